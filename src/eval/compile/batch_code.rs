//! Batched integer code: an integer expression evaluated for a whole run
//! of one binding at once (`k in lo..hi`), a node at a time over a vector
//! of options, rather than an option at a time through the whole closure
//! tree. Kernels use it for move arguments that are not affine in the
//! binding (`min(F(u, z), y)` in chocolate games). `None` at run time
//! (overflow, division by zero) sends the caller to the general path,
//! which reports the error.

use std::ops::Range;

use super::compiler::Compiler;
use crate::eval::builtins::Builtin;
use crate::eval::ops;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

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

impl Compiler<'_> {
    /// `e` as batched code over the binding `k`, for the integer forms
    /// `int_expr` understands.
    pub(crate) fn batch_expr(&self, e: &IrExpr, k: Slot) -> Option<BatchCode> {
        if let Some(leaf) = leaf(e, k) {
            return Some(Box::new(move |frame, ks, out| leaf.fill(frame, ks, out)));
        }
        match &e.kind {
            IrKind::Binary { op, lhs, rhs, .. } => {
                let (l, r) = (lhs.as_ref(), rhs.as_ref());
                // One instance per operator, so the arithmetic is inlined.
                match op {
                    BinaryOp::Add => self.batch_binary(|a, b| a.checked_add(b), l, r, k),
                    BinaryOp::Sub => self.batch_binary(|a, b| a.checked_sub(b), l, r, k),
                    BinaryOp::Mul => self.batch_binary(|a, b| a.checked_mul(b), l, r, k),
                    BinaryOp::BitOr => self.batch_binary(|a, b| Some(a | b), l, r, k),
                    BinaryOp::Xor => self.batch_binary(|a, b| Some(a ^ b), l, r, k),
                    BinaryOp::BitAnd => self.batch_binary(|a, b| Some(a & b), l, r, k),
                    &op @ (BinaryOp::Shl | BinaryOp::Shr) => {
                        self.batch_binary(move |a, b| ops::int_op(op, a, b), l, r, k)
                    }
                    // Floor division and modulo; a zero divisor is the
                    // general path's error to report.
                    // By a positive constant: multiplications and shifts.
                    BinaryOp::Div | BinaryOp::Mod if const_divisor(r, k).is_some() => {
                        let d = const_divisor(r, k)?;
                        if *op == BinaryOp::Div {
                            self.batch_binary(move |a, _| Some(d.floor_div(a)), l, r, k)
                        } else {
                            self.batch_binary(move |a, _| Some(d.floor_mod(a)), l, r, k)
                        }
                    }
                    &op @ (BinaryOp::Div | BinaryOp::Mod) => self.batch_binary(
                        move |a, b| if b == 0 { None } else { ops::int_op(op, a, b) },
                        l,
                        r,
                        k,
                    ),
                    _ => None,
                }
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Min | Builtin::Max),
                args,
            } if args.len() == 2 => {
                let (l, r) = (&args[0], &args[1]);
                if *b == Builtin::Max {
                    self.batch_binary(|a, b| Some(a.max(b)), l, r, k)
                } else {
                    self.batch_binary(|a, b| Some(a.min(b)), l, r, k)
                }
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Abs,
                args,
            } => {
                let x = self.batch_expr(&args[0], k)?;
                Some(Box::new(move |frame, ks, out| {
                    x(frame, ks, out)?;
                    for v in out.iter_mut() {
                        *v = v.checked_abs()?;
                    }
                    Some(())
                }))
            }
            IrKind::CallFn { .. } | IrKind::CallValue { .. } if self.inline_depth.get() < 8 => {
                let body = self.call_body(e)?;
                self.inline_depth.set(self.inline_depth.get() + 1);
                let code = self.batch_expr(&body, k);
                self.inline_depth.set(self.inline_depth.get() - 1);
                code
            }
            _ => None,
        }
    }

    /// `f(lhs, rhs)` option by option; a side that is a leaf is read in
    /// place, the other is run into `out` (both code: the right side into
    /// a buffer of its own).
    fn batch_binary(
        &self,
        f: impl Fn(i64, i64) -> Option<i64> + Copy + 'static,
        lhs: &IrExpr,
        rhs: &IrExpr,
        k: Slot,
    ) -> Option<BatchCode> {
        let side = |e: &IrExpr| match leaf(e, k) {
            Some(l) => Some(Side::Leaf(l)),
            None => self.batch_expr(e, k).map(Side::Code),
        };
        Some(match (side(lhs)?, side(rhs)?) {
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
}

/// `e` as a positive constant divisor, if it is one.
fn const_divisor(e: &IrExpr, k: Slot) -> Option<ops::ConstDivisor> {
    match leaf(e, k)? {
        Leaf::Const(c) => ops::ConstDivisor::new(c),
        _ => None,
    }
}

/// `e` as a leaf over the binding `k`, if it is one.
fn leaf(e: &IrExpr, k: Slot) -> Option<Leaf> {
    match e.kind {
        IrKind::Local(s) if s == k => Some(Leaf::Binding),
        IrKind::Local(s) => Some(Leaf::Local(s)),
        IrKind::Const(Value::Int(c)) => Some(Leaf::Const(c)),
        _ => None,
    }
}
