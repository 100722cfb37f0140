//! The IR the evaluator compiles: names resolved to slots, functions, games
//! and built-ins; arities checked; constants folded.

use std::rc::Rc;

use crate::eval::builtins::Builtin;
use crate::eval::value::Value;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;

/// A local variable's index in its frame (parameters first, then bindings).
pub type Slot = u32;

/// Index of a user function in the session.
pub type FnId = u32;
/// Index of a game definition in the session.
pub type GameId = u32;
/// Index of a global constant (`let`) in the session.
pub type GlobalId = u32;

#[derive(Clone, Debug)]
pub struct IrExpr {
    pub kind: IrKind,
    pub span: Span,
}

impl IrExpr {
    /// The list, index and value of `update(list, index, value)`.
    pub fn as_update(&self) -> Option<[&IrExpr; 3]> {
        match &self.kind {
            IrKind::CallBuiltin {
                builtin: Builtin::Update,
                args,
            } => match &args[..] {
                [list, index, value] => Some([list, index, value]),
                _ => None,
            },
            _ => None,
        }
    }

    /// `update(update(list, i, x), j, y)...` as its innermost list and
    /// each update's index and value, innermost first; `None` if it is no
    /// update.
    pub fn update_chain(&self) -> Option<(&IrExpr, Vec<[&IrExpr; 2]>)> {
        let [mut list, index, value] = self.as_update()?;
        let mut chain = vec![[index, value]];
        while let Some([inner, index, value]) = list.as_update() {
            chain.push([index, value]);
            list = inner;
        }
        chain.reverse();
        Some((list, chain))
    }
}

#[derive(Clone, Debug)]
pub enum IrKind {
    Const(Value),
    Local(Slot),
    Global(GlobalId),
    List(Vec<IrExpr>),
    Set(Vec<IrExpr>),
    Tuple(Vec<IrExpr>),
    /// `[e for ...]` or `{e for ...}`.
    Collect {
        set: bool,
        comp: Box<IrComp>,
    },
    Unary(UnaryOp, Box<IrExpr>),
    Binary {
        op: BinaryOp,
        op_span: Span,
        lhs: Box<IrExpr>,
        rhs: Box<IrExpr>,
    },
    Range {
        start: Box<IrExpr>,
        end: Box<IrExpr>,
        inclusive: bool,
    },
    If {
        cond: Box<IrExpr>,
        then: Box<IrExpr>,
        otherwise: Box<IrExpr>,
    },
    /// A user function; static arguments come first in `args`.
    CallFn {
        func: FnId,
        args: Vec<IrExpr>,
    },
    CallBuiltin {
        builtin: Builtin,
        args: Vec<IrExpr>,
    },
    /// Calling a value: a function parameter, a family such as `octal(..)`.
    CallValue {
        callee: Box<IrExpr>,
        args: Vec<IrExpr>,
    },
    /// `Game[statics](args)`: a position (or, for an alias, its expansion).
    Position {
        game: GameId,
        statics: Vec<IrExpr>,
        args: Vec<IrExpr>,
    },
    /// `Game` or `Game[statics]` used as a value (callable later).
    GameRef {
        game: GameId,
        statics: Vec<IrExpr>,
    },
    /// `f` or `f[statics]` used as a value.
    FnRef {
        func: FnId,
        statics: Vec<IrExpr>,
    },
    BuiltinRef(Builtin),
    /// A built-in applied to a generator: `all(c for x in R)`.
    Aggregate {
        builtin: Builtin,
        comp: Box<IrComp>,
    },
    Index {
        target: Box<IrExpr>,
        index: Box<IrExpr>,
    },
    Field {
        target: Box<IrExpr>,
        name: Rc<str>,
    },
    /// `target[start..end]` (`..=` when `inclusive`); a missing start is
    /// 0, a missing end the length.
    Slice {
        target: Box<IrExpr>,
        start: Option<Box<IrExpr>>,
        end: Option<Box<IrExpr>>,
        inclusive: bool,
    },
    /// `let pattern = value in body` (several bindings nest).
    Let {
        pattern: IrPattern,
        value: Box<IrExpr>,
        body: Box<IrExpr>,
    },
}

impl IrKind {
    /// The child expressions of this node, or `None` for the nodes that
    /// bind names (comprehensions, `let`), where a walk for a local or a
    /// constant must look at the bindings itself.
    pub fn children(&self) -> Option<Vec<&IrExpr>> {
        let mut out: Vec<&IrExpr> = Vec::new();
        match self {
            IrKind::Local(_) | IrKind::Const(_) | IrKind::Global(_) | IrKind::BuiltinRef(_) => {}
            IrKind::List(xs) | IrKind::Set(xs) | IrKind::Tuple(xs) => out.extend(xs),
            IrKind::CallFn { args, .. } | IrKind::CallBuiltin { args, .. } => out.extend(args),
            IrKind::CallValue { callee, args } => {
                out.push(callee);
                out.extend(args);
            }
            IrKind::Position { statics, args, .. } => {
                out.extend(statics);
                out.extend(args);
            }
            IrKind::GameRef { statics, .. } | IrKind::FnRef { statics, .. } => out.extend(statics),
            IrKind::Unary(_, x) | IrKind::Field { target: x, .. } => out.push(x),
            IrKind::Binary { lhs, rhs, .. } => out.extend([&**lhs, &**rhs]),
            IrKind::Range { start, end, .. } => out.extend([&**start, &**end]),
            IrKind::If {
                cond,
                then,
                otherwise,
            } => out.extend([&**cond, &**then, &**otherwise]),
            IrKind::Index { target, index } => out.extend([&**target, &**index]),
            IrKind::Slice {
                target, start, end, ..
            } => {
                out.push(target);
                out.extend(start.iter().map(|b| &**b));
                out.extend(end.iter().map(|b| &**b));
            }
            IrKind::Collect { .. } | IrKind::Aggregate { .. } | IrKind::Let { .. } => return None,
        }
        Some(out)
    }

    /// This node with each child expression `x` replaced by `f(x)`, leaves
    /// cloned; `None` when `f` gives `None` for a child, and for the nodes
    /// that bind names (comprehensions, `let`), which their callers walk
    /// themselves. The one walk over a node's children for rewriters of
    /// the IR (`int_code::map_locals`, `compile/constants.rs`).
    pub fn map_children(&self, f: &mut dyn FnMut(&IrExpr) -> Option<IrExpr>) -> Option<IrKind> {
        let mut go = |x: &IrExpr| f(x).map(Box::new);
        Some(match self {
            IrKind::Const(_) | IrKind::Local(_) | IrKind::Global(_) | IrKind::BuiltinRef(_) => {
                self.clone()
            }
            IrKind::List(xs) => IrKind::List(all(xs, &mut go)?),
            IrKind::Set(xs) => IrKind::Set(all(xs, &mut go)?),
            IrKind::Tuple(xs) => IrKind::Tuple(all(xs, &mut go)?),
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
            IrKind::Range {
                start,
                end,
                inclusive,
            } => IrKind::Range {
                start: go(start)?,
                end: go(end)?,
                inclusive: *inclusive,
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
            IrKind::CallFn { func, args } => IrKind::CallFn {
                func: *func,
                args: all(args, &mut go)?,
            },
            IrKind::CallBuiltin { builtin, args } => IrKind::CallBuiltin {
                builtin: *builtin,
                args: all(args, &mut go)?,
            },
            IrKind::CallValue { callee, args } => IrKind::CallValue {
                callee: go(callee)?,
                args: all(args, &mut go)?,
            },
            IrKind::Position {
                game,
                statics,
                args,
            } => IrKind::Position {
                game: *game,
                statics: all(statics, &mut go)?,
                args: all(args, &mut go)?,
            },
            IrKind::GameRef { game, statics } => IrKind::GameRef {
                game: *game,
                statics: all(statics, &mut go)?,
            },
            IrKind::FnRef { func, statics } => IrKind::FnRef {
                func: *func,
                statics: all(statics, &mut go)?,
            },
            IrKind::Index { target, index } => IrKind::Index {
                target: go(target)?,
                index: go(index)?,
            },
            IrKind::Field { target, name } => IrKind::Field {
                target: go(target)?,
                name: name.clone(),
            },
            IrKind::Slice {
                target,
                start,
                end,
                inclusive,
            } => IrKind::Slice {
                target: go(target)?,
                start: match start {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
                end: match end {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
                inclusive: *inclusive,
            },
            IrKind::Collect { .. } | IrKind::Aggregate { .. } | IrKind::Let { .. } => return None,
        })
    }
}

/// Each of `xs` through `go`, unboxed.
fn all(xs: &[IrExpr], go: &mut dyn FnMut(&IrExpr) -> Option<Box<IrExpr>>) -> Option<Vec<IrExpr>> {
    xs.iter().map(|x| go(x).map(|b| *b)).collect()
}

/// The clauses of a comprehension and the expression they feed.
#[derive(Clone, Debug)]
pub struct IrComp {
    pub clauses: Vec<IrClause>,
    pub body: IrExpr,
}

#[derive(Clone, Debug)]
pub enum IrClause {
    For(IrBinding),
    If(IrExpr),
}

#[derive(Clone, Debug)]
pub struct IrBinding {
    pub pattern: IrPattern,
    pub iterable: IrExpr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum IrPattern {
    Slot { slot: Slot, name: Rc<str> },
    Tuple(Vec<IrPattern>, Span),
}

impl IrPattern {
    /// The names bound, left to right, with their slots.
    pub fn names(&self, out: &mut Vec<(Rc<str>, Slot)>) {
        match self {
            IrPattern::Slot { slot, name } => out.push((name.clone(), *slot)),
            IrPattern::Tuple(parts, _) => parts.iter().for_each(|p| p.names(out)),
        }
    }
}

#[derive(Clone, Debug)]
pub struct IrFn {
    pub name: Rc<str>,
    pub n_statics: usize,
    pub n_params: usize,
    /// Frame size: statics, parameters, then locals.
    pub n_slots: usize,
    pub body: IrExpr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct IrGame {
    pub name: Rc<str>,
    pub param_names: Vec<Rc<str>>,
    pub n_statics: usize,
    pub n_params: usize,
    pub n_slots: usize,
    pub where_clause: Option<IrExpr>,
    pub body: IrGameBody,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum IrGameBody {
    Moves(Vec<IrMove>),
    Alias(IrExpr),
}

#[derive(Clone, Debug)]
pub struct IrMove {
    pub label: Rc<str>,
    pub bindings: Vec<IrBinding>,
    pub guard: Option<IrExpr>,
    pub result: IrExpr,
    pub span: Span,
}

impl IrMove {
    /// The move's expressions: its bindings' iterables, its guard, its
    /// result, in that order.
    pub fn exprs(&self) -> impl Iterator<Item = &IrExpr> {
        let iterables = self.bindings.iter().map(|b| &b.iterable);
        iterables.chain(&self.guard).chain([&self.result])
    }

    /// `exprs`, to rewrite in place.
    pub fn exprs_mut(&mut self) -> impl Iterator<Item = &mut IrExpr> {
        let iterables = self.bindings.iter_mut().map(|b| &mut b.iterable);
        iterables.chain(&mut self.guard).chain([&mut self.result])
    }
}

/// A top-level statement after lowering.
#[derive(Clone, Debug)]
pub enum IrStmt {
    Let {
        global: GlobalId,
        value: IrExpr,
        n_slots: usize,
    },
    Assert {
        expr: IrExpr,
        n_slots: usize,
    },
    Print {
        exprs: Vec<IrExpr>,
        n_slots: usize,
    },
    /// A bare expression: its value is shown.
    Show {
        expr: IrExpr,
        n_slots: usize,
    },
}
