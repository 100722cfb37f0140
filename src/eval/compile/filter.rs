//! Comprehensions that filter or test the items of a list: `[v for v in
//! values if v in SMALL]`, `count(v == 0 for v in finite)`. When the last
//! `for` binds one name to the items of a collection and only `if`s
//! follow it, a condition (or body) that compares the item with code not
//! reading it (`v in S`, `v != 0`, `3 <= v`) evaluates that code once per
//! pass over the items, lazily, where the general path would first, and
//! tests each item by reference: no value bound, cloned, compared and
//! dropped per item. A body that is the item itself hands the item to the
//! fold. Any other condition or body binds the item and runs its code, so
//! values and errors are the same as the general path's.

use super::clauses::{bind, items_of};
use super::compiler::Compiler;
use super::fold::Fold;
use super::int_tree::mentions;
use super::runtime::{Code, Env};
use crate::diag::Fallible;
use crate::eval::builtins::expect_bool;
use crate::eval::memo::bit_mask;
use crate::eval::ops;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;

/// The last `for` of a comprehension over a collection, with the `if`s
/// after it.
pub(crate) struct ListFilter {
    /// How many clauses come before the `for` (run as nested loops).
    pub from: usize,
    pattern: IrPattern,
    items: Code,
    span: Span,
    tests: Vec<Test>,
    body: Body,
}

/// One `if`, or the body.
enum Test {
    /// `item op other` (`item_left`) or `other op item`.
    Compare {
        op: BinaryOp,
        other: Code,
        item_left: bool,
        span: Span,
    },
    /// Any other condition: run with the item bound.
    Cond(Code, Span),
}

enum Body {
    Item,
    Test(Test),
    /// The comprehension's own body, run with the item bound.
    Code,
}

/// A `Compare`'s other side, evaluated once per pass: a set of small
/// integers as its bit mask for `in`, an integer as itself.
enum Side {
    Mask(u64),
    Int(i64),
    Value(Value),
}

impl Compiler<'_> {
    /// The comprehension's last `for` as a filter of its items, if the
    /// clauses after it are `if`s and it binds one name to a collection
    /// (not a range, which the integer loop runs).
    pub(crate) fn list_filter(&self, comp: &IrComp) -> Option<ListFilter> {
        let from = comp
            .clauses
            .iter()
            .rposition(|c| matches!(c, IrClause::For(_)))?;
        let IrClause::For(b) = &comp.clauses[from] else {
            return None;
        };
        let IrPattern::Slot { slot, .. } = b.pattern else {
            return None;
        };
        if matches!(b.iterable.kind, IrKind::Range { .. }) {
            return None;
        }
        let tests = comp.clauses[from + 1..]
            .iter()
            .map(|c| match c {
                IrClause::If(e) => self.item_test(e, slot),
                IrClause::For(_) => unreachable!("the last `for`"),
            })
            .collect::<Vec<_>>();
        let body = match &comp.body.kind {
            IrKind::Local(s) if *s == slot => Body::Item,
            _ => match self.item_test(&comp.body, slot) {
                t @ Test::Compare { .. } => Body::Test(t),
                Test::Cond(..) => Body::Code,
            },
        };
        let compares = tests.iter().chain(match &body {
            Body::Test(t) => Some(t),
            _ => None,
        });
        // Only where some item is tested or handed over without binding.
        let gains = matches!(body, Body::Item | Body::Test(_))
            || compares.clone().any(|t| matches!(t, Test::Compare { .. }));
        gains.then(|| ListFilter {
            from,
            pattern: b.pattern.clone(),
            items: self.expr(&b.iterable),
            span: b.iterable.span,
            tests,
            body,
        })
    }

    /// `e` as a test of the item in `slot`.
    fn item_test(&self, e: &IrExpr, slot: Slot) -> Test {
        let general = || Test::Cond(self.expr(e), e.span);
        let IrKind::Binary { op, lhs, rhs, .. } = &e.kind else {
            return general();
        };
        use BinaryOp::*;
        if !matches!(op, In | NotIn | Eq | Ne | Lt | Le | Gt | Ge) {
            return general();
        }
        let is_item = |x: &IrExpr| matches!(x.kind, IrKind::Local(s) if s == slot);
        let item_left = is_item(lhs);
        let other = if item_left { rhs } else { lhs };
        // A range on the right of `in` is the integer test of `expr.rs`.
        if !(item_left || is_item(rhs))
            || mentions(other, slot)
            || matches!(rhs.kind, IrKind::Range { .. })
        {
            return general();
        }
        Test::Compare {
            op: *op,
            other: self.expr(other),
            item_left,
            span: e.span,
        }
    }
}

impl ListFilter {
    /// Runs the `for` and its `if`s for the bindings of the clauses
    /// before it, giving `f` the body's value for each item kept.
    pub(crate) fn run<F: Fold>(&self, env: &mut Env, body: &Code, f: &mut F) -> Fallible<bool> {
        let items = items_of((self.items)(env)?, self.span)?;
        let mut sides: Vec<Option<Side>> = (0..=self.tests.len()).map(|_| None).collect();
        for item in items.iter() {
            env.tick(self.span)?;
            let mut bound = false;
            let mut kept = true;
            for (t, side) in self.tests.iter().zip(&mut sides) {
                if !self.holds(env, t, side, item, &mut bound)? {
                    kept = false;
                    break;
                }
            }
            if !kept {
                continue;
            }
            let go = match &self.body {
                Body::Item => f.value(env, item.clone())?,
                Body::Test(t) => {
                    let side = sides.last_mut().expect("the body's side");
                    let holds = self.holds(env, t, side, item, &mut bound)?;
                    f.bool(env, holds)?
                }
                Body::Code => {
                    self.bind_once(env, item, &mut bound)?;
                    let v = body(env)?;
                    f.value(env, v)?
                }
            };
            if !go {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn bind_once(&self, env: &mut Env, item: &Value, bound: &mut bool) -> Fallible<()> {
        if !std::mem::replace(bound, true) {
            bind(env, &self.pattern, item.clone())?;
        }
        Ok(())
    }

    /// Whether the test holds for `item`: an integer or a mask compared
    /// inline, anything else out of line (`holds_slow`).
    #[inline(always)]
    fn holds(
        &self,
        env: &mut Env,
        t: &Test,
        side: &mut Option<Side>,
        item: &Value,
        bound: &mut bool,
    ) -> Fallible<bool> {
        if let (Test::Compare { op, item_left, .. }, Some(side)) = (t, &*side) {
            if let Some(holds) = compared(*op, *item_left, side, item) {
                return Ok(holds);
            }
        }
        self.holds_slow(env, t, side, item, bound)
    }

    /// `holds` the general way; the other side is evaluated the first
    /// time it is asked.
    #[inline(never)]
    fn holds_slow(
        &self,
        env: &mut Env,
        t: &Test,
        side: &mut Option<Side>,
        item: &Value,
        bound: &mut bool,
    ) -> Fallible<bool> {
        let (op, other, item_left, span) = match t {
            Test::Compare {
                op,
                other,
                item_left,
                span,
            } => (*op, other, *item_left, *span),
            Test::Cond(code, span) => {
                self.bind_once(env, item, bound)?;
                return expect_bool(&code(env)?, *span);
            }
        };
        if side.is_none() {
            let value = other(env)?;
            *side = Some(match &value {
                Value::Set(xs) if matches!(op, BinaryOp::In | BinaryOp::NotIn) => {
                    bit_mask(xs).map_or(Side::Value(value), Side::Mask)
                }
                Value::Int(y) => Side::Int(*y),
                _ => Side::Value(value),
            });
        }
        let side = side.as_ref().expect("evaluated");
        if let Some(holds) = compared(op, item_left, side, item) {
            return Ok(holds);
        }
        let other = match side {
            Side::Int(y) => &Value::Int(*y),
            Side::Value(v) => v,
            Side::Mask(_) => unreachable!("a mask answers every item"),
        };
        let (a, b) = if item_left {
            (item, other)
        } else {
            (other, item)
        };
        expect_bool(&ops::binary(op, a, b, span)?, span)
    }
}

/// A comparison of `item` with a side read as an integer or a mask;
/// `None` for any other.
#[inline(always)]
fn compared(op: BinaryOp, item_left: bool, side: &Side, item: &Value) -> Option<bool> {
    match (side, item) {
        // Only an integer equals an integer: a mask answers any item.
        (Side::Mask(mask), _) => {
            let found =
                matches!(*item, Value::Int(n) if (0..64).contains(&n) && mask >> n & 1 == 1);
            Some(found == (op == BinaryOp::In))
        }
        (Side::Int(y), Value::Int(x)) => {
            let (a, b) = if item_left { (*x, *y) } else { (*y, *x) };
            ops::int_compare(op, a, b)
        }
        _ => None,
    }
}
