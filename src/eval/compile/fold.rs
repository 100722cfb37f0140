//! How the aggregates of a comprehension's values (`sum`, `histogram`,
//! `min`, `max`, `count`, the collecting ones) take its elements: an SG
//! value that a sweep read from the memo comes as a small integer
//! (`Fold::sg`), counted or added in a register with no `Value` made or
//! dropped; anything else comes as a value. Only `list`, `set` and
//! `period` keep the values; the others keep what their answer needs.

use super::runtime::Env;
use crate::diag::Fallible;
use crate::eval::builtins;
use crate::eval::gsg::is_infinite;
use crate::eval::ops;
use crate::eval::value::Value;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;

/// Takes a comprehension's values in order; each call returns false to
/// stop.
pub(crate) trait Fold {
    /// It takes a block of SG values (`sgs`) with less work than one by
    /// one: a sweep then hands them on as blocks.
    const BLOCKS: bool = false;
    /// It takes a boolean (`bool`) with less work than a `Value`: a
    /// sweep then hands tests on as blocks. Both false, a sweep's code
    /// for blocks is not made for the fold at all.
    const BOOLS: bool = false;

    /// The SG value `v` (an integer, or an infinite value of a loopy game).
    fn sg(&mut self, env: &mut Env, v: u64) -> Fallible<bool> {
        let v = env.rt.inf_sets.borrow().to_value(v);
        self.value(env, v)
    }

    /// SG values read as a block (a sweep's known values), in order: how
    /// many were taken before one asked to stop (`None`: all of them).
    #[inline]
    fn sgs(&mut self, env: &mut Env, vs: &[u64]) -> Fallible<Option<usize>> {
        for (j, &v) in vs.iter().enumerate() {
            if !self.sg(env, v)? {
                return Ok(Some(j + 1));
            }
        }
        Ok(None)
    }

    /// A boolean value (a test of an item or of a swept value).
    #[inline]
    fn bool(&mut self, env: &mut Env, b: bool) -> Fallible<bool> {
        self.value(env, Value::Bool(b))
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
    const BLOCKS: bool = true;

    /// Room for the block made at once (doubling, as `push` grows it),
    /// the infinite values' sets borrowed once.
    fn sgs(&mut self, env: &mut Env, vs: &[u64]) -> Fallible<Option<usize>> {
        let items = &mut self.items;
        if items.capacity() - items.len() < vs.len() {
            let more = items.capacity().max(vs.len()).max(4);
            crate::budget::reserve(items, more, self.span)?;
        }
        let sets = env.rt.inf_sets.borrow();
        items.extend(vs.iter().map(|&v| match is_infinite(v) {
            false => Value::Int(v as i64),
            true => sets.to_value(v),
        }));
        Ok(None)
    }

    #[inline(always)]
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
    const BOOLS: bool = true;

    #[inline]
    fn bool(&mut self, _: &mut Env, b: bool) -> Fallible<bool> {
        self.n += b as i64;
        Ok(true)
    }

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

/// `min`, `max`: the least (greatest) value so far, as the built-in picks
/// it from a list (`builtins::picks`), with no list of the values kept:
/// `max(sg(G(n)) for n in 0..=N)` holds one value, not N.
pub(crate) struct Extreme {
    pub best: Option<Value>,
    pub want_max: bool,
}

impl Extreme {
    /// The answer; no value at all is the built-in's error at `span`.
    pub fn finish(self, span: Span) -> Fallible<Value> {
        self.best.ok_or_else(|| builtins::empty_extreme(span))
    }
}

impl Fold for Extreme {
    #[inline]
    fn sg(&mut self, env: &mut Env, v: u64) -> Fallible<bool> {
        if let (Some(Value::Int(b)), false) = (&mut self.best, is_infinite(v)) {
            let v = v as i64;
            if (v > *b) == self.want_max && v != *b {
                *b = v;
            }
            return Ok(true);
        }
        let v = env.rt.inf_sets.borrow().to_value(v);
        self.value(env, v)
    }

    fn value(&mut self, _: &mut Env, v: Value) -> Fallible<bool> {
        match &self.best {
            Some(a) if !builtins::picks(a, &v, self.want_max) => {}
            _ => self.best = Some(v),
        }
        Ok(true)
    }
}

/// `histogram`: counts per value, kept as the integers of the answer's
/// list, so that the list is the counts themselves, with no second array
/// of them beside it while it is made.
pub(crate) struct Histogram {
    pub counts: Vec<Value>,
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
        if let Some(Value::Int(c)) = self.counts.get_mut(v as usize) {
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
        builtins::count_into(&mut self.counts, &v, self.body_span).map(|()| true)
    }
}
