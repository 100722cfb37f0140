//! A game's `where` read along a line of positions (a sweep moves one
//! argument, the others fixed): the conjuncts that do not read the moving
//! argument are decided once for the line, and those that compare it with
//! code free of it (`0 <= y <= F(x, z)`) bound it, so the whole `where`
//! becomes one interval of the line's argument, found once per line
//! instead of running its code for every position.

use super::int_code::{bool_code, node_operand, BoolCode, Operand};
use super::int_tree::{BoolNode, IntNode};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// The conjuncts of a `where` on a frame of integers, in order.
pub(crate) struct WhereLine(Vec<Conjunct>);

struct Conjunct {
    /// The frame slots it reads, bit `s` for slot `s`.
    reads: u64,
    code: BoolCode<[i64]>,
    /// A comparison `lhs op rhs` of integer code: its operator and its
    /// sides, each with the slots it reads.
    compare: Option<(BinaryOp, Side, Side)>,
}

type Side = (Operand<[i64]>, u64);

/// The slots of a frame of `width` that `reads` says are read (all of
/// them when some slot is past 63).
fn slots_read(reads: impl Fn(Slot) -> bool, width: usize) -> u64 {
    if width > 64 {
        return u64::MAX;
    }
    (0..width)
        .filter(|&s| reads(s as Slot))
        .fold(0, |m, s| m | 1 << s)
}

impl WhereLine {
    /// The `where` `w` (its tree) of a game whose frame has `width`
    /// slots, read by conjuncts.
    pub(crate) fn new(w: &BoolNode, width: usize) -> WhereLine {
        use BinaryOp::{Eq, Ge, Gt, Le, Lt};
        let side = |e: IntNode| (node_operand(&e), slots_read(|s| e.reads(s), width));
        let conjunct = |c: &BoolNode| Conjunct {
            reads: slots_read(|s| c.reads(s), width),
            code: bool_code(c),
            compare: match *c {
                BoolNode::Compare(op @ (Lt | Le | Gt | Ge | Eq), ref l, ref r) => {
                    Some((op, side(l.clone()), side(r.clone())))
                }
                // `x == y` of two locals, either of which could be a list.
                BoolNode::ItemsEqual {
                    a: (a, false),
                    b: (b, false),
                    negate: false,
                } => Some((Eq, side(IntNode::Local(a)), side(IntNode::Local(b)))),
                _ => None,
            },
        };
        WhereLine(w.conjuncts().into_iter().map(conjunct).collect())
    }
}

impl WhereLine {
    /// The values of slot `slot` of `frame` (the others fixed) at which
    /// the `where` holds: `lo..=hi` (empty when `lo > hi`). `None` when it
    /// is not known to be one interval (a conjunct reads the slot other
    /// than compared with code free of it, or some code fails on
    /// integers: the caller then checks each position).
    pub(crate) fn interval(&self, frame: &[i64], slot: usize) -> Option<(i64, i64)> {
        let bit = 1u64.checked_shl(slot as u32)?;
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        // In order, as `and` evaluates them: a conjunct false on the whole
        // line decides it (the ones before it cannot fail here).
        for c in &self.0 {
            if c.reads & bit == 0 {
                if !(c.code)(frame)? {
                    return Some((1, 0));
                }
                continue;
            }
            let (op, (l, lr), (r, rr)) = c.compare.as_ref()?;
            let is_slot =
                |o: &Operand<[i64]>| matches!(o, Operand::Local(s) if *s as usize == slot);
            // `x op e`, or `e op x` read as `x op' e`.
            let (op, e) = match (is_slot(l) && rr & bit == 0, is_slot(r) && lr & bit == 0) {
                (true, _) => (*op, r),
                (_, true) => (flipped(*op), l),
                _ => return None,
            };
            let e = e.eval(frame)?;
            match op {
                BinaryOp::Ge => lo = lo.max(e),
                BinaryOp::Gt => lo = lo.max(e.checked_add(1)?),
                BinaryOp::Le => hi = hi.min(e),
                BinaryOp::Lt => hi = hi.min(e.checked_sub(1)?),
                _ => (lo, hi) = (lo.max(e), hi.min(e)),
            }
        }
        Some((lo, hi))
    }
}

/// `op` with its sides exchanged (`e < x` is `x > e`).
fn flipped(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        op => op,
    }
}
