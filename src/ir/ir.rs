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
