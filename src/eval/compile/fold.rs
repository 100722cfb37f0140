//! How the aggregates of a comprehension's values (`sum`, `histogram`,
//! the collecting ones) take its elements: an SG value that a sweep read
//! from the memo comes as a small integer (`Fold::sg`), counted or added
//! in a register with no `Value` made or dropped; anything else comes as
//! a value.

use super::runtime::Env;
use crate::diag::Fallible;
use crate::eval::builtins::{self, expect_int};
use crate::eval::gsg::is_infinite;
use crate::eval::ops;
use crate::eval::value::Value;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;

/// Takes a comprehension's values in order; each call returns false to
/// stop.
pub(crate) trait Fold {
    /// The SG value `v` (an integer, or an infinite value of a loopy game).
    fn sg(&mut self, env: &mut Env, v: u64) -> Fallible<bool> {
        let v = env.rt.inf_sets.borrow().to_value(v);
        self.value(env, v)
    }

    fn value(&mut self, env: &mut Env, v: Value) -> Fallible<bool>;
}

/// The values in a list; its growth is checked against the memory budget,
/// which names the comprehension at `span`.
pub(crate) struct Collect {
    pub items: Vec<Value>,
    pub span: Span,
}

impl Fold for Collect {
    fn value(&mut self, _: &mut Env, v: Value) -> Fallible<bool> {
        crate::budget::push(&mut self.items, v, self.span)?;
        Ok(true)
    }
}

/// `count`: how many of the values are true; a value that is not a
/// boolean is an error at `span`, the body.
pub(crate) struct CountTrue {
    pub n: i64,
    pub span: Span,
}

impl Fold for CountTrue {
    fn value(&mut self, _: &mut Env, v: Value) -> Fallible<bool> {
        self.n += builtins::expect_bool(&v, self.span)? as i64;
        Ok(true)
    }
}

/// `sum`: integers add in a register; anything else (ordinals) goes
/// through the `+` operator.
pub(crate) struct Sum {
    pub total: Value,
    /// Where an overflow points, and where a bad element does.
    pub span: Span,
    pub body_span: Span,
}

impl Fold for Sum {
    #[inline]
    fn sg(&mut self, env: &mut Env, v: u64) -> Fallible<bool> {
        if let Value::Int(a) = &mut self.total {
            if let Some(t) = a.checked_add(v as i64).filter(|_| !is_infinite(v)) {
                *a = t;
                return Ok(true);
            }
        }
        let v = env.rt.inf_sets.borrow().to_value(v);
        self.value(env, v)
    }

    fn value(&mut self, _: &mut Env, v: Value) -> Fallible<bool> {
        self.total = match (&self.total, &v) {
            (Value::Int(a), Value::Int(b)) => Value::Int(
                a.checked_add(*b)
                    .ok_or_else(|| builtins::overflow(self.span, "sum"))?,
            ),
            _ => ops::binary(BinaryOp::Add, &self.total, &v, self.body_span)?,
        };
        Ok(true)
    }
}

/// `histogram`: counts per value.
pub(crate) struct Histogram {
    pub counts: Vec<i64>,
    /// The infinite SG values met (loopy games), in order.
    pub infinite: Vec<Value>,
    pub body_span: Span,
}

impl Histogram {
    pub fn new(body_span: Span) -> Histogram {
        Histogram {
            counts: Vec::new(),
            infinite: Vec::new(),
            body_span,
        }
    }

    /// The built-in's answer (`builtins::histogram_value`).
    pub fn finish(self) -> Value {
        builtins::histogram_value(self.counts, self.infinite)
    }
}

impl Fold for Histogram {
    /// Small enough to inline into a sweep's loop: a value already
    /// counted is added to in place, the rest out of line.
    #[inline]
    fn sg(&mut self, env: &mut Env, v: u64) -> Fallible<bool> {
        if let Some(c) = self.counts.get_mut(v as usize) {
            *c += 1;
            return Ok(true);
        }
        let v = env.rt.inf_sets.borrow().to_value(v);
        self.value(env, v)
    }

    fn value(&mut self, _: &mut Env, v: Value) -> Fallible<bool> {
        if let Value::Infinite(_) = v {
            self.infinite.push(v);
            return Ok(true);
        }
        if let Value::Int(n) = v {
            if let Some(c) = usize::try_from(n).ok().and_then(|i| self.counts.get_mut(i)) {
                *c += 1;
                return Ok(true);
            }
        }
        histogram_other(&mut self.counts, v, self.body_span)
    }
}

/// A histogram's element that is not a count already held: counted if it
/// is an integer in range (growing the counts), else the built-in's error.
#[cold]
#[inline(never)]
fn histogram_other(h: &mut Vec<i64>, v: Value, span: Span) -> Fallible<bool> {
    let n = expect_int(&v, span)?;
    if !(0..1 << 24).contains(&n) {
        return builtins::histogram(&[v], span).map(|_| true);
    }
    if h.len() <= n as usize {
        h.resize(n as usize + 1, 0);
    }
    h[n as usize] += 1;
    Ok(true)
}
