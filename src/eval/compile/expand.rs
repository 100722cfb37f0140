//! Move results that call user functions, read with the calls expanded,
//! so that a result written through a helper (`-> split(a, n - a)`) gets
//! the kernel forms a sum of positions written out gets.

use super::compiler::Compiler;
use super::int_code::{mentions, substitute};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// A move's result with the calls of user functions in it (at its top or
/// as terms of a sum) replaced by their bodies, when some are: `-> split(a,
/// n - a)` with `fn split(a, b) = K(a) + K(b)` is read as `-> K(a) + K(n -
/// a)`. `from_bodies` holds the positions the bodies wrote: a position
/// built inside a function that breaks its `where` is an error, not a
/// dropped option (docs/language.md), so a kernel that reads such a move
/// sends an option whose positions fail it to the general path, which
/// reports the error.
pub(crate) struct ExpandedResult {
    pub result: IrExpr,
    pub from_bodies: Vec<IrExpr>,
}

impl Compiler<'_> {
    /// `result` with its calls expanded, if it has any that can be.
    pub(crate) fn expanded_result(&self, result: &IrExpr) -> Option<ExpandedResult> {
        let mut from_bodies = Vec::new();
        let result = self.expand_calls(result, false, 0, &mut from_bodies)?;
        (!from_bodies.is_empty()).then_some(ExpandedResult {
            result,
            from_bodies,
        })
    }

    /// `e` with calls at its top and in the terms of a sum replaced by
    /// their bodies (`depth` calls deep, at most 8: recursion stays a call);
    /// positions reached through a call go to `from_bodies`.
    fn expand_calls(
        &self,
        e: &IrExpr,
        in_body: bool,
        depth: usize,
        from_bodies: &mut Vec<IrExpr>,
    ) -> Option<IrExpr> {
        match &e.kind {
            IrKind::CallFn { .. } | IrKind::CallValue { .. } if depth < 8 => {
                let (f, args) = self.called(e)?;
                // An argument the body never reads is never evaluated in
                // place, so one that could fail must be read: the call
                // evaluates it, and its error must not be lost.
                let can_fail = |a: &IrExpr| !matches!(a.kind, IrKind::Local(_) | IrKind::Const(_));
                let unread =
                    (0..args.len()).any(|i| can_fail(&args[i]) && !mentions(&f.body, i as Slot));
                if unread {
                    return None;
                }
                let body = substitute(&f.body, &args)?;
                self.expand_calls(&body, true, depth + 1, from_bodies)
            }
            IrKind::Binary {
                op: BinaryOp::Add,
                op_span,
                lhs,
                rhs,
            } => Some(IrExpr {
                kind: IrKind::Binary {
                    op: BinaryOp::Add,
                    op_span: *op_span,
                    lhs: Box::new(self.expand_calls(lhs, in_body, depth, from_bodies)?),
                    rhs: Box::new(self.expand_calls(rhs, in_body, depth, from_bodies)?),
                },
                span: e.span,
            }),
            IrKind::Position { .. } if in_body => {
                from_bodies.push(e.clone());
                Some(e.clone())
            }
            IrKind::Position { .. } | IrKind::Const(_) => Some(e.clone()),
            _ => None,
        }
    }
}
