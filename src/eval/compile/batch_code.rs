//! Batched integer code: an integer expression evaluated for a whole run
//! of one binding at once (`k in lo..hi`), a node at a time over a vector
//! of options, rather than an option at a time through the whole closure
//! tree. Kernels use it for move arguments that are not affine in the
//! binding (`min(F(u, z), y)` in chocolate games). `None` at run time
//! (overflow, division by zero) sends the caller to the general path,
//! which reports the error.

use std::ops::Range;

use super::int_tree::{with_int_fn, with_int_op, IntFn, IntNode, IntOp};
use crate::eval::builtins::Builtin;
use crate::ir::ir::*;

/// `code(frame, ks, out)` sets `out[j]` to the expression's value for the
/// binding `ks.start + j` (`out.len() == ks.len()`), the other locals read
/// from the integer frame.
pub(crate) type BatchCode = Box<dyn Fn(&[i64], Range<i64>, &mut [i64]) -> Option<()>>;

/// A leaf of batched code: the same for every option, or the binding.
#[derive(Clone, Copy)]
enum Leaf {
    Local(Slot),
    Const(i64),
    Binding,
}

impl Leaf {
    /// The leaf's values over `ks` into `out`.
    fn fill(self, frame: &[i64], ks: Range<i64>, out: &mut [i64]) -> Option<()> {
        match self {
            Leaf::Binding => out.iter_mut().zip(ks).for_each(|(x, k)| *x = k),
            Leaf::Local(s) => out.fill(*frame.get(s as usize)?),
            Leaf::Const(c) => out.fill(c),
        }
        Some(())
    }

    /// `out[j] = f(out[j], leaf)` (or `f(leaf, out[j])` when `leaf_first`)
    /// over `ks`; the leaf is read once unless it is the binding.
    #[inline]
    fn combine(
        self,
        f: impl Fn(i64, i64) -> Option<i64>,
        leaf_first: bool,
        frame: &[i64],
        ks: Range<i64>,
        out: &mut [i64],
    ) -> Option<()> {
        let g = |x: i64, y: i64| if leaf_first { f(y, x) } else { f(x, y) };
        match self {
            Leaf::Binding => {
                for (x, k) in out.iter_mut().zip(ks) {
                    *x = g(*x, k)?;
                }
            }
            Leaf::Local(_) | Leaf::Const(_) => {
                let c = match self {
                    Leaf::Local(s) => *frame.get(s as usize)?,
                    Leaf::Const(c) => c,
                    Leaf::Binding => unreachable!(),
                };
                for x in out.iter_mut() {
                    *x = g(*x, c)?;
                }
            }
        }
        Some(())
    }
}

/// One side of a binary node: a leaf, or code run into a buffer.
enum Side {
    Leaf(Leaf),
    Code(BatchCode),
}

/// The batched code of an integer node over the binding `k`; `None` for
/// the nodes without a batched form (conditionals, items, lengths,
/// `pow`, `log2`, `low0`).
pub(crate) fn batch_code(node: &IntNode, k: Slot) -> Option<BatchCode> {
    if let Some(leaf) = leaf(node, k) {
        return Some(Box::new(move |frame, ks, out| leaf.fill(frame, ks, out)));
    }
    match node {
        // One instance per operator, so the arithmetic is inlined.
        IntNode::Binary(op, l, r) if *op != IntOp::Builtin(Builtin::Pow) => {
            with_int_op!(*op, |f| batch_binary(f, l, r, k))
        }
        // A function of one integer as one of two, the second unread.
        IntNode::Unary(
            fun @ (IntFn::Builtin(Builtin::Abs) | IntFn::FloorDiv(_) | IntFn::FloorMod(_)),
            x,
        ) => with_int_fn!(*fun, |f| batch_binary(
            move |a, _| f(a),
            x,
            &IntNode::Const(0),
            k
        )),
        _ => None,
    }
}

/// A node as one side of a binary node.
fn side(node: &IntNode, k: Slot) -> Option<Side> {
    match leaf(node, k) {
        Some(l) => Some(Side::Leaf(l)),
        None => batch_code(node, k).map(Side::Code),
    }
}

/// `f(lhs, rhs)` option by option; a side that is a leaf is read in
/// place, the other is run into `out` (both code: the right side into
/// a buffer of its own).
fn batch_binary(
    f: impl Fn(i64, i64) -> Option<i64> + Copy + 'static,
    lhs: &IntNode,
    rhs: &IntNode,
    k: Slot,
) -> Option<BatchCode> {
    Some(match (side(lhs, k)?, side(rhs, k)?) {
        (Side::Code(l), Side::Leaf(r)) => Box::new(move |frame, ks, out| {
            l(frame, ks.clone(), out)?;
            r.combine(f, false, frame, ks, out)
        }),
        (Side::Leaf(l), Side::Code(r)) => Box::new(move |frame, ks, out| {
            r(frame, ks.clone(), out)?;
            l.combine(f, true, frame, ks, out)
        }),
        (Side::Leaf(l), Side::Leaf(r)) => Box::new(move |frame, ks, out| {
            l.fill(frame, ks.clone(), out)?;
            r.combine(f, false, frame, ks, out)
        }),
        (Side::Code(l), Side::Code(r)) => Box::new(move |frame, ks, out| {
            l(frame, ks.clone(), out)?;
            let mut right = vec![0; out.len()];
            r(frame, ks, &mut right)?;
            for (x, y) in out.iter_mut().zip(right) {
                *x = f(*x, y)?;
            }
            Some(())
        }),
    })
}

/// A node as a leaf over the binding `k`, if it is one.
fn leaf(node: &IntNode, k: Slot) -> Option<Leaf> {
    match *node {
        IntNode::Local(s) if s == k => Some(Leaf::Binding),
        IntNode::Local(s) => Some(Leaf::Local(s)),
        IntNode::Const(c) => Some(Leaf::Const(c)),
        _ => None,
    }
}
