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
//! reads nothing but its parameters, in the forms listed in `put_args`.

use super::*;

impl Compiler<'_> {
    /// The body of `func` with `args` put in, if the call can be compiled
    /// in place.
    pub(crate) fn inlined_call(&self, func: FnId, args: &[IrExpr]) -> Option<IrExpr> {
        let simple = |a: &IrExpr| matches!(a.kind, IrKind::Local(_) | IrKind::Const(_));
        if !args.iter().all(simple) {
            return None;
        }
        let f = self.fn_ir.get(func as usize)?.as_ref()?;
        put_args(&f.body, args)
    }
}

/// `e` with each parameter `s` replaced by `args[s]`; `None` for a form
/// not listed (a call of a user function, a comprehension, ...) or a local
/// that is not a parameter.
fn put_args(e: &IrExpr, args: &[IrExpr]) -> Option<IrExpr> {
    let go = |x: &IrExpr| put_args(x, args).map(Box::new);
    let all =
        |xs: &[IrExpr]| -> Option<Vec<IrExpr>> { xs.iter().map(|x| put_args(x, args)).collect() };
    let kind = match &e.kind {
        IrKind::Local(s) => return args.get(*s as usize).cloned(),
        IrKind::Const(_) | IrKind::Global(_) => e.kind.clone(),
        IrKind::Unary(op, x) => IrKind::Unary(*op, go(x)?),
        IrKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } => IrKind::Binary {
            op: *op,
            op_span: *op_span,
            lhs: go(lhs)?,
            rhs: go(rhs)?,
        },
        IrKind::If {
            cond,
            then,
            otherwise,
        } => IrKind::If {
            cond: go(cond)?,
            then: go(then)?,
            otherwise: go(otherwise)?,
        },
        IrKind::CallBuiltin { builtin, args: xs } => IrKind::CallBuiltin {
            builtin: *builtin,
            args: all(xs)?,
        },
        IrKind::Position {
            game,
            statics,
            args: xs,
        } => IrKind::Position {
            game: *game,
            statics: all(statics)?,
            args: all(xs)?,
        },
        _ => return None,
    };
    Some(IrExpr { kind, span: e.span })
}
