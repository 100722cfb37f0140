//! Move results read as alternatives of sums of positions: calls of user
//! functions expanded (`-> split(a, n - a)` with `fn split(a, b) = K(a) +
//! K(b)` is read as `-> K(a) + K(n - a)`) and choices lifted (`-> if c
//! then A else B`, also inside a function's body or a term of a sum), so
//! that such a result gets the kernel forms a sum of positions written out
//! gets.

use super::compiler::Compiler;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// Most alternatives a result is read as: each `if` in a sum doubles them.
const MAX_ALTERNATIVES: usize = 16;

/// One alternative of a result: taken when every condition has its
/// polarity, it is the sum `result`. `from_bodies` holds the positions the
/// bodies of functions wrote: a position built inside a function that
/// breaks its `where` is an error, not a dropped option
/// (docs/language.md), so a kernel that reads such a move sends an option
/// whose positions fail it to the general path, which reports the error.
pub(crate) struct Alternative {
    pub conds: Vec<(IrExpr, bool)>,
    pub result: IrExpr,
    pub from_bodies: Vec<IrExpr>,
}

impl Compiler<'_> {
    /// `result` as alternatives, when it calls user functions or chooses
    /// with `if` (at its top or in the terms of a sum); `None` when it does
    /// neither, or something in it cannot be read so.
    pub(crate) fn expanded_result(&self, result: &IrExpr) -> Option<Vec<Alternative>> {
        let alternatives = self.alternatives(result, false, 0)?;
        let expanded = alternatives.len() > 1 || !alternatives[0].from_bodies.is_empty();
        expanded.then_some(alternatives)
    }

    /// The alternatives of `e`: calls at its top and in the terms of a sum
    /// replaced by their bodies (`depth` calls deep, at most 8: recursion
    /// stays a call), `if`s split into one alternative per branch.
    fn alternatives(&self, e: &IrExpr, in_body: bool, depth: usize) -> Option<Vec<Alternative>> {
        let one = |from_bodies| {
            Some(vec![Alternative {
                conds: Vec::new(),
                result: e.clone(),
                from_bodies,
            }])
        };
        match &e.kind {
            IrKind::CallFn { .. } | IrKind::CallValue { .. } if depth < 8 => {
                let body = self.call_body(e)?;
                self.alternatives(&body, true, depth + 1)
            }
            IrKind::If {
                cond,
                then,
                otherwise,
            } => {
                let mut out = Vec::new();
                for (branch, holds) in [(then, true), (otherwise, false)] {
                    for mut a in self.alternatives(branch, in_body, depth)? {
                        a.conds.insert(0, ((**cond).clone(), holds));
                        out.push(a);
                    }
                }
                (out.len() <= MAX_ALTERNATIVES).then_some(out)
            }
            IrKind::Binary {
                op: BinaryOp::Add,
                op_span,
                lhs,
                rhs,
            } => {
                let (lhs, rhs) = (
                    self.alternatives(lhs, in_body, depth)?,
                    self.alternatives(rhs, in_body, depth)?,
                );
                if lhs.len() * rhs.len() > MAX_ALTERNATIVES {
                    return None;
                }
                let mut out = Vec::new();
                for l in &lhs {
                    for r in &rhs {
                        out.push(Alternative {
                            conds: l.conds.iter().chain(&r.conds).cloned().collect(),
                            result: IrExpr {
                                kind: IrKind::Binary {
                                    op: BinaryOp::Add,
                                    op_span: *op_span,
                                    lhs: Box::new(l.result.clone()),
                                    rhs: Box::new(r.result.clone()),
                                },
                                span: e.span,
                            },
                            from_bodies: l
                                .from_bodies
                                .iter()
                                .chain(&r.from_bodies)
                                .cloned()
                                .collect(),
                        });
                    }
                }
                Some(out)
            }
            IrKind::Position { .. } if in_body => one(vec![e.clone()]),
            IrKind::Position { .. } | IrKind::Const(_) => one(Vec::new()),
            _ => None,
        }
    }
}
