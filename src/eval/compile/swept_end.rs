//! The far end of a swept coordinate whose range's end reads the outer
//! loops (`y in 0..=F(x, z)` inside `x in 0..=N, z in 0..=N`): where that
//! end never falls as the outer loops' variables rise, it is largest at
//! their ends, so the sweep reserves the memo's window for it at once
//! rather than growing it (a copy of the window) line after line.

use super::compiler::Compiler;
use super::int_tree::{IntFn, IntNode, IntOp};
use super::runtime::Code;
use crate::eval::builtins::Builtin;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

impl Compiler<'_> {
    /// `end` with each local put at its loop's end (`outer`: that end's
    /// code, `None` for a local of no such loop), as code to evaluate per
    /// sweep; `None` unless `end` is integer code that never falls as
    /// those locals rise (so this is its largest value over the box, or
    /// one more where a loop's end is exclusive).
    pub(super) fn swept_far_end(
        &self,
        end: &IrExpr,
        outer: &dyn Fn(Slot) -> Option<IrExpr>,
    ) -> Option<Code> {
        let tree = self.int_tree(end).ok()?;
        if !rises(&tree, &|s| outer(s).is_some()) {
            return None;
        }
        let far = super::int_tree::map_locals(end, outer)?;
        Some(self.expr(&far))
    }
}

/// Whether `e` reads only locals that `var` accepts and never falls as
/// any of them rises.
fn rises(e: &IntNode, var: &dyn Fn(Slot) -> bool) -> bool {
    use BinaryOp::{Add, Mul, Sub};
    use IntNode::{Binary, Const, Local, Unary};
    match e {
        Const(_) => true,
        Local(s) => var(*s),
        Binary(IntOp::Op(Add), l, r)
        | Binary(IntOp::Builtin(Builtin::Min | Builtin::Max), l, r) => {
            rises(l, var) && rises(r, var)
        }
        Binary(IntOp::Op(Sub), l, r) => matches!(**r, Const(_)) && rises(l, var),
        Binary(IntOp::Op(Mul), l, r) => match (&**l, &**r) {
            (&Const(c), x) | (x, &Const(c)) => c >= 0 && rises(x, var),
            _ => false,
        },
        // By a positive constant.
        Unary(IntFn::FloorDiv(_), x) => rises(x, var),
        _ => false,
    }
}
