//! Guards read as range ends. A move's leading guard conjuncts that
//! compare a binding with integer code free of it (`k <= n`, `j > i`,
//! `2 >= k`; the binding the innermost one the conjunct reads, its range
//! `lo..hi` or `lo..=hi`, the end bounded not a constant) become ends of
//! that binding's range:
//! `take(k in 1..=m) if k <= n` is planned as `take(k in 1..=min(m, n))`
//! and `k >= f` as `k in max(lo, f)..hi`, the conjunct taken out of the
//! guard. Every kernel plan that takes a range (runs, sums of runs,
//! bends, loops over several bindings, keyed loops, the loopy box) then
//! reads the bound as it reads a `min` written in the range, with no code
//! run per option or per position for the guard.
//!
//! Only the kernels' plans read the move so rewritten; the general path
//! runs it as written. Exact: the options left are those the guard
//! admits; the new end's code fails only where the conjunct's other side
//! fails (or `f + 1` passes `i64::MAX`), and a range end that fails at a
//! position sends the move there to the general path. Only leading
//! conjuncts move: the general path evaluates a later conjunct only
//! where the earlier ones hold, which the narrowed range keeps.

use super::compiler::Compiler;
use super::int_tree::mentions;
use super::linear::{conjuncts, flipped};
use crate::eval::builtins::Builtin;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use std::borrow::Cow;

/// Which end of a range a conjunct bounds, and by what.
enum End<'e> {
    /// `k <= f` (`inclusive`) or `k < f`.
    Upper(&'e IrExpr, bool),
    /// `k >= f` (`inclusive`) or `k > f`.
    Lower(&'e IrExpr, bool),
}

impl Compiler<'_> {
    /// The game as its kernel plans read it: each move `ranged`.
    pub(crate) fn ranged_game<'g>(&self, g: &'g IrGame) -> Cow<'g, IrGame> {
        let IrGameBody::Moves(moves) = &g.body else {
            return Cow::Borrowed(g);
        };
        let ranged: Vec<_> = moves.iter().map(|m| self.ranged(m)).collect();
        if ranged.iter().all(|(_, n)| *n == 0) {
            return Cow::Borrowed(g);
        }
        let mut out = g.clone();
        out.body = IrGameBody::Moves(ranged.into_iter().map(|(m, _)| m.into_owned()).collect());
        Cow::Owned(out)
    }

    /// The move with its leading guard conjuncts that bound a binding's
    /// range put in that range, and how many moved (`--explain` says so).
    pub(crate) fn ranged<'m>(&self, m: &'m IrMove) -> (Cow<'m, IrMove>, usize) {
        let Some(guard) = &m.guard else {
            return (Cow::Borrowed(m), 0);
        };
        // Every binding one slot: the innermost binding a conjunct reads
        // is then known.
        let slots: Option<Vec<Slot>> = (m.bindings.iter())
            .map(|b| match b.pattern {
                IrPattern::Slot { slot, .. } => Some(slot),
                _ => None,
            })
            .collect();
        let Some(slots) = slots else {
            return (Cow::Borrowed(m), 0);
        };
        let mut parts = Vec::new();
        conjuncts(guard, &mut parts);
        let mut out = Cow::Borrowed(m);
        let mut taken = 0;
        for c in &parts {
            let Some(i) = (0..slots.len()).rev().find(|&i| mentions(c, slots[i])) else {
                break;
            };
            let Some(end) = end_of(c, slots[i]).filter(|e| self.int_tree(e.code()).is_ok()) else {
                break;
            };
            let IrKind::Range {
                start,
                end: hi,
                inclusive,
            } = &out.bindings[i].iterable.kind
            else {
                break;
            };
            // A constant end stays one: plans read a range free of the
            // position (the loopy box shifts such a run along a line, its
            // guard left to the box), and the conjunct stays a cut.
            let bounded = match end {
                End::Upper(..) => hi,
                End::Lower(..) => start,
            };
            if matches!(bounded.kind, IrKind::Const(_)) {
                break;
            }
            let inclusive = *inclusive;
            let (start, hi) = match end {
                End::Upper(f, le) => {
                    // `k <= f` in `lo..hi` is `k < f + 1`; `k < f` in
                    // `lo..=hi` is `k <= f - 1`.
                    let f = match (le, inclusive) {
                        (true, false) => plus(f, BinaryOp::Add),
                        (false, true) => plus(f, BinaryOp::Sub),
                        _ => f.clone(),
                    };
                    ((**start).clone(), call(Builtin::Min, (**hi).clone(), f))
                }
                End::Lower(f, ge) => {
                    let f = if ge {
                        f.clone()
                    } else {
                        plus(f, BinaryOp::Add)
                    };
                    (call(Builtin::Max, (**start).clone(), f), (**hi).clone())
                }
            };
            out.to_mut().bindings[i].iterable.kind = IrKind::Range {
                start: Box::new(start),
                end: Box::new(hi),
                inclusive,
            };
            taken += 1;
        }
        if taken > 0 {
            out.to_mut().guard = conjunction(&parts[taken..]);
        }
        (out, taken)
    }
}

impl End<'_> {
    fn code(&self) -> &IrExpr {
        match self {
            End::Upper(f, _) | End::Lower(f, _) => f,
        }
    }
}

/// `c` as a bound on the binding in `k`: `k` compared with code that
/// does not read it, either way round.
fn end_of(c: &IrExpr, k: Slot) -> Option<End<'_>> {
    let IrKind::Binary { op, lhs, rhs, .. } = &c.kind else {
        return None;
    };
    let is_k = |e: &IrExpr| matches!(e.kind, IrKind::Local(s) if s == k);
    // `f op k` is `k op' f` with the comparison turned round.
    let (op, f) = match (is_k(lhs), is_k(rhs)) {
        (true, false) => (*op, rhs),
        (false, true) => (flipped(*op), lhs),
        _ => return None,
    };
    if mentions(f, k) {
        return None;
    }
    Some(match op {
        BinaryOp::Lt => End::Upper(f, false),
        BinaryOp::Le => End::Upper(f, true),
        BinaryOp::Gt => End::Lower(f, false),
        BinaryOp::Ge => End::Lower(f, true),
        _ => return None,
    })
}

/// `f + 1` (`op` `Add`) or `f - 1` (`Sub`), spanning `f`.
fn plus(f: &IrExpr, op: BinaryOp) -> IrExpr {
    let one = IrExpr {
        span: f.span,
        kind: IrKind::Const(Value::Int(1)),
    };
    IrExpr {
        span: f.span,
        kind: IrKind::Binary {
            op,
            op_span: f.span,
            lhs: Box::new(f.clone()),
            rhs: Box::new(one),
        },
    }
}

/// `builtin(a, b)`, spanning `a`.
pub(crate) fn call(builtin: Builtin, a: IrExpr, b: IrExpr) -> IrExpr {
    IrExpr {
        span: a.span,
        kind: IrKind::CallBuiltin {
            builtin,
            args: vec![a, b],
        },
    }
}

/// `x and y and ...` of the conjuncts again (`None` for none).
pub(crate) fn conjunction(parts: &[&IrExpr]) -> Option<IrExpr> {
    let (first, rest) = parts.split_first()?;
    Some(rest.iter().fold((*first).clone(), |acc, x| IrExpr {
        span: acc.span.to(x.span),
        kind: IrKind::Binary {
            op: BinaryOp::And,
            op_span: x.span,
            lhs: Box::new(acc),
            rhs: Box::new((*x).clone()),
        },
    }))
}
