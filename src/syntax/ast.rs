//! The abstract syntax tree of a rule file. Every node carries the byte span
//! of the text it came from, so that later stages can point at it.

use super::span::Span;

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole rule file, or one REPL entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `game Name[F](params) where cond { moves }` or `game Name(params) = expr`.
    Game(GameDef),
    /// `fn name[F](params) = expr`.
    Fn(FnDef),
    /// `let name = expr`: a global constant.
    Let { name: Ident, value: Expr },
    /// `assert expr`.
    Assert(Expr),
    /// `print expr, expr, ...`.
    Print(Vec<Expr>),
    /// A bare expression: the REPL (and a file) prints its value.
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct GameDef {
    pub name: Ident,
    /// Parameters in square brackets: fixed for one member of a family
    /// (functions, sets, numbers), not part of the position.
    pub static_params: Vec<Ident>,
    pub params: Vec<Ident>,
    pub where_clause: Option<Expr>,
    pub body: GameBody,
}

#[derive(Clone, Debug, PartialEq)]
pub enum GameBody {
    /// `{ move ... move ... }` (possibly empty: every position terminal).
    Moves(Vec<MoveDef>),
    /// `= expr`: the game is another game expression.
    Alias(Expr),
}

/// `move label(b1 in e1, b2 in e2) if guard -> result`.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveDef {
    pub label: Ident,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub result: Expr,
    pub span: Span,
}

/// `pattern in iterable`.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub pattern: Pattern,
    pub iterable: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Name(Ident),
    /// `(a, b)`: destructures a tuple or list of that length.
    Tuple(Vec<Pattern>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FnDef {
    pub name: Ident,
    pub static_params: Vec<Ident>,
    pub params: Vec<Ident>,
    pub body: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Str(String),
    Name(Ident),
    List(Vec<Expr>),
    Set(Vec<Expr>),
    /// `(a, b)`, `(a,)` and `()`; a parenthesised expression is not a tuple.
    Tuple(Vec<Expr>),
    /// `[e for ...]`, `{e for ...}`, or `e for ...` as the sole argument of a call.
    Comprehension(Box<Comprehension>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// Chained comparisons (`0 <= y <= 5`) arrive as `and` of pairs.
    Binary {
        op: BinaryOp,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Range {
        start: Box<Expr>,
        end: Box<Expr>,
        inclusive: bool,
    },
    If {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `callee(args)`.
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `target[i]`, or `Family[F, G]` (several indices only for static arguments).
    Index {
        target: Box<Expr>,
        indices: Vec<Expr>,
    },
    /// `target[start..end]`, `target[start..=end]`, either bound optional.
    Slice {
        target: Box<Expr>,
        start: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
        inclusive: bool,
    },
    /// `let p = e, q = f in body`: each binding sees those before it.
    Let {
        bindings: Vec<LetBinding>,
        body: Box<Expr>,
    },
    /// `target.name`.
    Field {
        target: Box<Expr>,
        name: Ident,
    },
    /// `ω^k` or `w^k` written without spaces, `k` a decimal literal: omega to
    /// the power `k` (Cantor normal form), binding tighter than any operator,
    /// so `ω^2*3 + 4` is `((ω^2) * 3) + 4`. `base` is the name as written
    /// (`ω` or `w`); `exponent` is always an `Int`. If `base` is shadowed by a
    /// local name, a later stage may read it as `base ^ exponent` (nim-sum).
    OmegaPow {
        base: Ident,
        exponent: Box<Expr>,
    },
}

/// `pattern = value` in a `let ... in` expression.
#[derive(Clone, Debug, PartialEq)]
pub struct LetBinding {
    pub pattern: Pattern,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompKind {
    List,
    Set,
    /// Bare generator, only as the single argument of a call: `all(c for x in R)`.
    Generator,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub kind: CompKind,
    pub body: Expr,
    /// In source order; bindings and filters may interleave.
    pub clauses: Vec<Clause>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    For(Binding),
    If(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    BitOr,
    Xor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl BinaryOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Or => "or",
            And => "and",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            In => "in",
            NotIn => "not in",
            BitOr => "|",
            Xor => "^",
            BitAnd => "&",
            Shl => "<<",
            Shr => ">>",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
        }
    }
}
