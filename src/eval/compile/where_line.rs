//! A game's `where` read along a line of positions (a sweep moves one
//! argument, the others fixed): the conjuncts that do not read the moving
//! argument are decided once for the line, and those that compare it with
//! code free of it (`0 <= y <= F(x, z)`) bound it, so the whole `where`
//! becomes one interval of the line's argument, found once per line
//! instead of running its code for every position. A `where` that keeps
//! a list sorted (`xs == sorted(xs)`, with `distinct(xs)` or not) holds,
//! along a line that moves one item, between that item's neighbours
//! when the other items are in order: one interval too.

use super::int_code::{bool_code, node_operand, BoolCode, Operand};
use super::int_tree::{BoolNode, IntNode};
use super::linear::flipped;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// The conjuncts of a `where` on a frame of integers, in order; or a
/// `where` that keeps one list sorted.
pub(crate) struct WhereLine {
    conjuncts: Vec<Conjunct>,
    /// The `where` is `xs == sorted(xs)` (either way round), with or
    /// without `distinct(xs)`, of the list in this slot, and nothing
    /// else: whether it is `distinct` too.
    sorted: Option<(Slot, bool)>,
}

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
        let parts = w.conjuncts();
        if let Some(sorted) = sorted_where(&parts) {
            return WhereLine {
                conjuncts: Vec::new(),
                sorted: Some(sorted),
            };
        }
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
        WhereLine {
            conjuncts: parts.into_iter().map(conjunct).collect(),
            sorted: None,
        }
    }
}

/// The slot of the list the conjuncts `parts` keep sorted, and whether
/// they say `distinct` too, if they say only that.
fn sorted_where(parts: &[&BoolNode]) -> Option<(Slot, bool)> {
    let (mut list, mut sorted, mut distinct) = (None, false, false);
    for c in parts {
        let slot = match **c {
            BoolNode::Distinct(s) => {
                distinct = true;
                s
            }
            BoolNode::ItemsEqual {
                a: (a, a_sorted),
                b: (b, b_sorted),
                negate: false,
            } if a == b && a_sorted != b_sorted => {
                sorted = true;
                a
            }
            _ => return None,
        };
        if *list.get_or_insert(slot) != slot {
            return None;
        }
    }
    Some((list.filter(|_| sorted)?, distinct))
}

impl WhereLine {
    /// The values of slot `slot` of `frame` (the others fixed) at which
    /// the `where` holds: `lo..=hi` (empty when `lo > hi`). `None` when it
    /// is not known to be one interval (a conjunct reads the slot other
    /// than compared with code free of it, or some code fails on
    /// integers: the caller then checks each position).
    pub(crate) fn interval(&self, frame: &[i64], slot: usize) -> Option<(i64, i64)> {
        if self.sorted.is_some() {
            return None;
        }
        let bit = 1u64.checked_shl(slot as u32)?;
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        // In order, as `and` evaluates them: a conjunct false on the whole
        // line decides it (the ones before it cannot fail here).
        for c in &self.conjuncts {
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

impl WhereLine {
    /// Whether one of the conjuncts says `lo <= hi` or `lo < hi` (either
    /// way round) of the slots `lo` and `hi`: the game's positions are
    /// then one half of their square, the triangle `lo <= hi`.
    pub(crate) fn orders(&self, lo: usize, hi: usize) -> bool {
        let is = |o: &Operand<[i64]>, s: usize| matches!(o, Operand::Local(x) if *x as usize == s);
        self.conjuncts.iter().any(|c| match &c.compare {
            Some((BinaryOp::Le | BinaryOp::Lt, (l, _), (r, _))) => is(l, lo) && is(r, hi),
            Some((BinaryOp::Ge | BinaryOp::Gt, (l, _), (r, _))) => is(l, hi) && is(r, lo),
            _ => false,
        })
    }
}

impl WhereLine {
    /// The slot of the list a `where` that keeps one list sorted reads.
    pub(crate) fn sorted_list(&self) -> Option<Slot> {
        self.sorted.map(|(slot, _)| slot)
    }

    /// The values of item `i` of the list `xs` of such a `where` (its
    /// other items fixed) at which it holds: `lo..=hi`, empty when the
    /// other items are out of order. Sorted, item `i` lies between its
    /// neighbours (strictly when `distinct`, which on a sorted list is
    /// items strictly ascending). `None` on overflow.
    pub(crate) fn sorted_interval(&self, xs: &[i64], i: usize) -> Option<(i64, i64)> {
        let (_, distinct) = self.sorted?;
        if i >= xs.len() {
            return None;
        }
        let in_order = |a: i64, b: i64| if distinct { a < b } else { a <= b };
        let others = (xs.windows(2).enumerate())
            .all(|(j, pair)| j == i || j + 1 == i || in_order(pair[0], pair[1]));
        if !others {
            return Some((1, 0));
        }
        let gap = i64::from(distinct);
        let lo = match i.checked_sub(1) {
            Some(j) => xs[j].checked_add(gap)?,
            None => i64::MIN,
        };
        let hi = match xs.get(i + 1) {
            Some(&y) => y.checked_sub(gap)?,
            None => i64::MAX,
        };
        Some((lo, hi))
    }
}
