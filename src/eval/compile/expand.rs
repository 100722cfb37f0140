//! Move results read as alternatives of sums of positions: calls of user
//! functions expanded (`-> split(a, n - a)` with `fn split(a, b) = K(a) +
//! K(b)` is read as `-> K(a) + K(n - a)`) and choices lifted (`-> if c
//! then A else B`, also inside a function's body or a term of a sum), so
//! that such a result gets the kernel forms a sum of positions written out
//! gets. The Loop forms of both kernels (`kernel.rs`, `key_kernel.rs`)
//! keep the alternatives as `MoveResult`s, built here.

use super::compiler::Compiler;
use super::int_code::{bool_code, substitute, BoolCode, Locals};
use super::int_tree::{BoolNode, NotIntCode};
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

/// One sum a Loop form of a kernel move may give: on a frame of integers
/// (`LoopResult`) or on a key's frame (`KeyResult`), each argument of its
/// parts as `A`.
pub(crate) struct MoveResult<L: ?Sized, A> {
    /// Each condition with the value it must have.
    pub conds: Vec<(BoolCode<L>, bool)>,
    /// For a result read through a function's body: the `where` of the
    /// positions the body writes. An option for which it does not hold
    /// goes to the general path, which reports the error.
    pub body_where: Option<BoolCode<L>>,
    /// Whether a function's body is read in place (for `--explain`).
    pub from_body: bool,
    /// The arguments of each part of the sum (no part: the zero game).
    pub parts: Vec<Vec<A>>,
}

impl Compiler<'_> {
    /// The results of a move read as `alternatives`, each argument by `arg`.
    pub(crate) fn choices<L: Locals + ?Sized, A>(
        &self,
        game: GameId,
        g: &IrGame,
        alternatives: &[Alternative],
        arg: impl Fn(&IrExpr) -> Option<A>,
    ) -> Option<Vec<MoveResult<L, A>>> {
        (self.choices_or_why(game, g, alternatives, |a| arg(a).ok_or(None))).ok()
    }

    /// `choices`, or the first condition, argument or `where` of a
    /// body's position that is not integer code and why (`None` inside:
    /// no reason to quote, as when a part is no position of `game`).
    pub(crate) fn choices_or_why<L: Locals + ?Sized, A>(
        &self,
        game: GameId,
        g: &IrGame,
        alternatives: &[Alternative],
        arg: impl Fn(&IrExpr) -> Result<A, Option<NotIntCode>>,
    ) -> Result<Vec<MoveResult<L, A>>, Option<NotIntCode>> {
        alternatives
            .iter()
            .map(|a| {
                let conds =
                    (a.conds.iter()).map(|(c, holds)| Ok((bool_code(&self.bool_tree(c)?), *holds)));
                Ok(MoveResult {
                    conds: conds.collect::<Result<_, NotIntCode>>()?,
                    body_where: self.where_of_positions(g, &a.from_bodies)?,
                    from_body: !a.from_bodies.is_empty(),
                    parts: self.parts_as(game, g.n_statics, &a.result, &arg)?,
                })
            })
            .collect()
    }

    /// The one result of a move whose result is a sum of positions
    /// written out.
    pub(crate) fn plain_result<L: ?Sized, A>(
        &self,
        game: GameId,
        n_statics: usize,
        result: &IrExpr,
        arg: impl Fn(&IrExpr) -> Option<A>,
    ) -> Option<MoveResult<L, A>> {
        Some(MoveResult {
            conds: Vec::new(),
            body_where: None,
            from_body: false,
            parts: (self.parts_as(game, n_statics, result, &|a| arg(a).ok_or(None::<()>))).ok()?,
        })
    }

    /// The arguments of each part of a sum of positions of `game`, each
    /// by `arg`.
    fn parts_as<A, E>(
        &self,
        game: GameId,
        n_statics: usize,
        result: &IrExpr,
        arg: &impl Fn(&IrExpr) -> Result<A, Option<E>>,
    ) -> Result<Vec<Vec<A>>, Option<E>> {
        let mut parts = Vec::new();
        (self.sum_parts(game, n_statics, result, &mut parts)).ok_or(None)?;
        parts
            .iter()
            .map(|args| args.iter().map(arg).collect())
            .collect()
    }

    /// The `where` of `g` on each of `positions` (positions of `g`), as
    /// one boolean code; `None` inside when `g` has none, `None` outside
    /// when it is not integer code.
    fn where_of_positions<L: Locals + ?Sized>(
        &self,
        g: &IrGame,
        positions: &[IrExpr],
    ) -> Result<Option<BoolCode<L>>, Option<NotIntCode>> {
        let Some(w) = &g.where_clause else {
            return Ok(None);
        };
        // Each position's `where` lowered, joined by `and`.
        let mut all = None;
        for p in positions {
            let IrKind::Position { statics, args, .. } = &p.kind else {
                return Err(None);
            };
            let values: Vec<IrExpr> = statics.iter().chain(args).cloned().collect();
            let here = self.bool_tree(&substitute(w, &values).ok_or(None)?)?;
            all = Some(match all {
                Some(l) => BoolNode::Either {
                    or: false,
                    l: Box::new(l),
                    r: Box::new(here),
                },
                None => here,
            });
        }
        Ok(all.as_ref().map(bool_code))
    }
}
