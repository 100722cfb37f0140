//! Calls of small functions compiled in place: `value(a, b, c, p)` whose
//! body is `if p == 1 then sg(...) else sg(...)` becomes that body with the
//! caller's locals put in for the parameters, so a query in a loop pushes
//! no frame and builds no argument values, and the body's own fast paths
//! (integer code, `GamePlan`) see the caller's locals.
//!
//! Only calls whose arguments are locals or constants (reading them cannot
//! fail or differ between two reads, so evaluating them where the body
//! reads them is the same as evaluating them once up front), of functions
//! whose body calls no user function (no recursion, no code growth), and
//! reads nothing but its parameters, in the forms `map_locals` rebuilds, without indexing.

use super::compiler::Compiler;
use crate::ir::ir::*;

impl Compiler<'_> {
    /// The body of the call `e` of a user function with its arguments put
    /// in (`call_body`), if the call can be compiled in place.
    pub(crate) fn inlined_call(&self, e: &IrExpr) -> Option<IrExpr> {
        let IrKind::CallFn { args, .. } = &e.kind else {
            return None;
        };
        let simple = |a: &IrExpr| matches!(a.kind, IrKind::Local(_) | IrKind::Const(_));
        let body = self.call_body(e).filter(|_| args.iter().all(simple))?;
        (!calls_or_indexes(&body)).then_some(body)
    }
}

/// Whether `e`, a form `map_locals` rebuilds, calls a user function or
/// indexes: itself, or in operands, conditionals, built-in calls and
/// positions (not inside literals).
fn calls_or_indexes(e: &IrExpr) -> bool {
    match &e.kind {
        IrKind::CallFn { .. } | IrKind::CallValue { .. } | IrKind::Index { .. } => true,
        kind @ (IrKind::Unary(..)
        | IrKind::Binary { .. }
        | IrKind::If { .. }
        | IrKind::CallBuiltin { .. }
        | IrKind::Position { .. }) => kind
            .children()
            .is_some_and(|cs| cs.into_iter().any(calls_or_indexes)),
        _ => false,
    }
}
