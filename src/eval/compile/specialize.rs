//! Games compiled for one instance's static arguments. A game whose static
//! arguments are not all integers (`CB[F]` with a function `F`, `Sub[S]`
//! with a set `S`) would otherwise run on the general path: integer code
//! and kernels read a frame of integers, and a function or a set is not
//! one. Such an instance gets its own compiled game in which every read of
//! a static argument is that argument as a constant (integer code puts a
//! call of a constant function in place: `Compiler::call_body`), and the
//! remaining locals move down: the game compiles as one without static
//! arguments, with kernels, `where` code and sweeps like any other. Its
//! own positions in results are recognised by their static arguments'
//! values (`Compiler::own_statics`).
//!
//! The same compilation puts in the values of the top-level `let`s the
//! game reads (`IrKind::Global`), once they have run: a constant set or
//! list (`k in FIB`, `adj[v]`) is then a literal to the planner, whatever
//! its size or wherever it was computed. A game reading such constants
//! is compiled for them even without static arguments. A `let` runs once
//! (a redefinition is a new constant), so the values never change.

use std::cell::Cell;
use std::rc::Rc;

use super::compiler::Compiler;
use super::runtime::{CompiledGame, Runtime};
use crate::eval::value::Value;
use crate::ir::ir::*;

/// The game `game` compiled for the static arguments `statics` of its
/// instance `name` and the constants it reads (`None` for an alias, or a
/// game the runtime has no IR of; with `only_constants`, also when it
/// reads no constant that has a value). Its explanation names the
/// instance.
pub fn specialized_game(
    rt: &Runtime,
    game: GameId,
    statics: &[Value],
    name: &Rc<str>,
    only_constants: bool,
) -> Option<CompiledGame> {
    let ir = rt.game_ir.get(game as usize)?.as_ref()?;
    if ir.n_statics != statics.len() || matches!(ir.body, IrGameBody::Alias(_)) {
        return None;
    }
    let globals = rt.globals.borrow();
    let fill = Fill {
        statics,
        n_statics: ir.n_statics as Slot,
        globals: &globals,
        constants: Cell::new(0),
    };
    let mut filled = fill.game(ir);
    if only_constants && fill.constants.get() == 0 {
        return None;
    }
    filled.name = if statics.is_empty() {
        Rc::from(format!("{name} (its top-level constants read as values)"))
    } else {
        name.clone()
    };
    let aliases = rt.aliases();
    let mut compiler = Compiler::new(&aliases, &rt.fn_ir);
    compiler.own_statics = Some(statics);
    let mut compiled = compiler.game(game, &filled);
    compiled.name = ir.name.clone();
    Some(compiled)
}

/// Puts an instance's static arguments, and the values of the constants
/// it reads, into a game's IR.
struct Fill<'a> {
    statics: &'a [Value],
    n_statics: Slot,
    globals: &'a [Option<Value>],
    /// How many reads of constants were put in.
    constants: Cell<usize>,
}

impl Fill<'_> {
    fn game(&self, g: &IrGame) -> IrGame {
        IrGame {
            name: g.name.clone(),
            param_names: g.param_names.clone(),
            n_statics: 0,
            n_params: g.n_params,
            n_slots: g.n_slots - g.n_statics,
            where_clause: g.where_clause.as_ref().map(|w| self.expr(w)),
            body: match &g.body {
                IrGameBody::Moves(moves) => {
                    IrGameBody::Moves(moves.iter().map(|m| self.move_(m)).collect())
                }
                IrGameBody::Alias(e) => IrGameBody::Alias(self.expr(e)),
            },
            span: g.span,
        }
    }

    fn move_(&self, m: &IrMove) -> IrMove {
        IrMove {
            label: m.label.clone(),
            bindings: m.bindings.iter().map(|b| self.binding(b)).collect(),
            guard: m.guard.as_ref().map(|g| self.expr(g)),
            result: self.expr(&m.result),
            span: m.span,
        }
    }

    fn binding(&self, b: &IrBinding) -> IrBinding {
        IrBinding {
            pattern: self.pattern(&b.pattern),
            iterable: self.expr(&b.iterable),
            span: b.span,
        }
    }

    fn pattern(&self, p: &IrPattern) -> IrPattern {
        match p {
            IrPattern::Slot { slot, name } => IrPattern::Slot {
                slot: slot - self.n_statics,
                name: name.clone(),
            },
            IrPattern::Tuple(parts, span) => {
                IrPattern::Tuple(parts.iter().map(|p| self.pattern(p)).collect(), *span)
            }
        }
    }

    fn comp(&self, c: &IrComp) -> IrComp {
        IrComp {
            clauses: (c.clauses.iter())
                .map(|clause| match clause {
                    IrClause::For(b) => IrClause::For(self.binding(b)),
                    IrClause::If(e) => IrClause::If(self.expr(e)),
                })
                .collect(),
            body: self.expr(&c.body),
        }
    }

    fn all(&self, xs: &[IrExpr]) -> Vec<IrExpr> {
        xs.iter().map(|x| self.expr(x)).collect()
    }

    fn boxed(&self, x: &IrExpr) -> Box<IrExpr> {
        Box::new(self.expr(x))
    }

    fn expr(&self, e: &IrExpr) -> IrExpr {
        let kind = match &e.kind {
            IrKind::Local(s) if *s < self.n_statics => {
                IrKind::Const(self.statics[*s as usize].clone())
            }
            IrKind::Local(s) => IrKind::Local(s - self.n_statics),
            IrKind::Global(g) => match self.globals.get(*g as usize) {
                Some(Some(v)) => {
                    self.constants.set(self.constants.get() + 1);
                    IrKind::Const(v.clone())
                }
                _ => e.kind.clone(),
            },
            IrKind::Const(_) | IrKind::BuiltinRef(_) => e.kind.clone(),
            IrKind::List(xs) => IrKind::List(self.all(xs)),
            IrKind::Set(xs) => IrKind::Set(self.all(xs)),
            IrKind::Tuple(xs) => IrKind::Tuple(self.all(xs)),
            IrKind::Collect { set, comp } => IrKind::Collect {
                set: *set,
                comp: Box::new(self.comp(comp)),
            },
            IrKind::Unary(op, x) => IrKind::Unary(*op, self.boxed(x)),
            IrKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => IrKind::Binary {
                op: *op,
                op_span: *op_span,
                lhs: self.boxed(lhs),
                rhs: self.boxed(rhs),
            },
            IrKind::Range {
                start,
                end,
                inclusive,
            } => IrKind::Range {
                start: self.boxed(start),
                end: self.boxed(end),
                inclusive: *inclusive,
            },
            IrKind::If {
                cond,
                then,
                otherwise,
            } => IrKind::If {
                cond: self.boxed(cond),
                then: self.boxed(then),
                otherwise: self.boxed(otherwise),
            },
            IrKind::CallFn { func, args } => IrKind::CallFn {
                func: *func,
                args: self.all(args),
            },
            IrKind::CallBuiltin { builtin, args } => IrKind::CallBuiltin {
                builtin: *builtin,
                args: self.all(args),
            },
            IrKind::CallValue { callee, args } => IrKind::CallValue {
                callee: self.boxed(callee),
                args: self.all(args),
            },
            IrKind::Position {
                game,
                statics,
                args,
            } => IrKind::Position {
                game: *game,
                statics: self.all(statics),
                args: self.all(args),
            },
            IrKind::GameRef { game, statics } => IrKind::GameRef {
                game: *game,
                statics: self.all(statics),
            },
            IrKind::FnRef { func, statics } => IrKind::FnRef {
                func: *func,
                statics: self.all(statics),
            },
            IrKind::Aggregate { builtin, comp } => IrKind::Aggregate {
                builtin: *builtin,
                comp: Box::new(self.comp(comp)),
            },
            IrKind::Index { target, index } => IrKind::Index {
                target: self.boxed(target),
                index: self.boxed(index),
            },
            IrKind::Field { target, name } => IrKind::Field {
                target: self.boxed(target),
                name: name.clone(),
            },
            IrKind::Slice {
                target,
                start,
                end,
                inclusive,
            } => IrKind::Slice {
                target: self.boxed(target),
                start: start.as_ref().map(|b| self.boxed(b)),
                end: end.as_ref().map(|b| self.boxed(b)),
                inclusive: *inclusive,
            },
            IrKind::Let {
                pattern,
                value,
                body,
            } => IrKind::Let {
                pattern: self.pattern(pattern),
                value: self.boxed(value),
                body: self.boxed(body),
            },
        };
        IrExpr { kind, span: e.span }
    }
}
