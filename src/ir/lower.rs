//! AST -> IR: resolves every name to a slot, global, function, game or
//! built-in; checks arities; folds constant arithmetic.

use std::rc::Rc;

use super::ir::*;
use super::names::{suggest, Item, Names};
use crate::diag::{Diag, ErrorKind};
use crate::eval::builtins::Builtin;
use crate::eval::ops;
use crate::eval::ordinal::Ordinal;
use crate::eval::value::{Outcome, Value};
use crate::syntax::ast::{self, CompKind, ExprKind, GameBody, Pattern, StmtKind};
use crate::syntax::Span;

/// One lowered program: new definitions and the statements to run, in order.
#[derive(Debug, Default)]
pub struct Lowered {
    pub fns: Vec<(FnId, IrFn)>,
    pub games: Vec<(GameId, IrGame)>,
    pub stmts: Vec<IrStmt>,
}

/// Lowers a program against the session's names, adding its definitions to
/// `names`. On error `names` is left as it was.
pub fn lower_program(program: &ast::Program, names: &mut Names) -> Result<Lowered, Vec<Diag>> {
    let mut scratch = names.clone();
    let mut errors = Vec::new();
    register(program, &mut scratch, &mut errors);
    let mut out = Lowered::default();
    for stmt in &program.stmts {
        if let Err(e) = lower_stmt(stmt, &scratch, &mut out) {
            errors.push(*e);
        }
    }
    if errors.is_empty() {
        *names = scratch;
        Ok(out)
    } else {
        Err(errors)
    }
}

/// First pass: every definition gets an id, so that bodies may refer to
/// definitions further down the file (and to themselves).
fn register(program: &ast::Program, names: &mut Names, errors: &mut Vec<Diag>) {
    // Where each name of this text was first defined (a map: a file may
    // define 100,000 names).
    let mut seen: rustc_hash::FxHashMap<&str, Span> = Default::default();
    for stmt in &program.stmts {
        let (name, item) = match &stmt.kind {
            StmtKind::Game(g) => {
                names.game_count += 1;
                let item = Item::Game {
                    id: names.game_count - 1,
                    n_statics: g.static_params.len(),
                    n_params: g.params.len(),
                    span: g.name.span,
                };
                (&g.name, item)
            }
            StmtKind::Fn(f) => {
                names.fn_count += 1;
                let item = Item::Fn {
                    id: names.fn_count - 1,
                    n_statics: f.static_params.len(),
                    n_params: f.params.len(),
                    span: f.name.span,
                };
                (&f.name, item)
            }
            StmtKind::Let { name, .. } => {
                names.global_count += 1;
                let item = Item::Global {
                    id: names.global_count - 1,
                    span: name.span,
                };
                (name, item)
            }
            _ => continue,
        };
        if let Some(first) = seen.get(name.name.as_str()) {
            errors.push(
                Diag::new(
                    ErrorKind::Duplicate,
                    name.span,
                    format!("`{}` is defined twice", name.name),
                )
                .label("defined again here")
                .note(*first, "first defined here")
                .help("rename one of the two definitions"),
            );
            continue;
        }
        seen.insert(&name.name, name.span);
        names.items.insert(Rc::from(name.name.as_str()), item);
    }
}

fn lower_stmt(stmt: &ast::Stmt, names: &Names, out: &mut Lowered) -> Result<(), Box<Diag>> {
    match &stmt.kind {
        StmtKind::Game(g) => {
            let Some(Item::Game { id, .. }) = names.get(&g.name.name) else {
                return Ok(()); // a duplicate, already reported
            };
            let id = *id;
            let mut cx = Lowerer::new(names);
            for p in g.static_params.iter().chain(&g.params) {
                cx.declare(p)?;
            }
            let where_clause = g.where_clause.as_ref().map(|w| cx.expr(w)).transpose()?;
            let body = match &g.body {
                GameBody::Moves(moves) => {
                    let mut ir_moves = Vec::new();
                    for m in moves {
                        ir_moves.push(cx.lower_move(m)?);
                    }
                    IrGameBody::Moves(ir_moves)
                }
                GameBody::Alias(e) => IrGameBody::Alias(cx.expr(e)?),
            };
            out.games.push((
                id,
                IrGame {
                    name: Rc::from(g.name.name.as_str()),
                    param_names: g.params.iter().map(|p| Rc::from(p.name.as_str())).collect(),
                    n_statics: g.static_params.len(),
                    n_params: g.params.len(),
                    n_slots: cx.max_slots,
                    where_clause,
                    body,
                    span: stmt.span,
                },
            ));
        }
        StmtKind::Fn(f) => {
            let Some(Item::Fn { id, .. }) = names.get(&f.name.name) else {
                return Ok(());
            };
            let id = *id;
            let mut cx = Lowerer::new(names);
            for p in f.static_params.iter().chain(&f.params) {
                cx.declare(p)?;
            }
            let body = cx.expr(&f.body)?;
            out.fns.push((
                id,
                IrFn {
                    name: Rc::from(f.name.name.as_str()),
                    n_statics: f.static_params.len(),
                    n_params: f.params.len(),
                    n_slots: cx.max_slots,
                    body,
                    span: stmt.span,
                },
            ));
        }
        StmtKind::Let { name, value } => {
            let Some(Item::Global { id, .. }) = names.get(&name.name) else {
                return Ok(());
            };
            let global = *id;
            let mut cx = Lowerer::new(names);
            let value = cx.expr(value)?;
            out.stmts.push(IrStmt::Let {
                global,
                value,
                n_slots: cx.max_slots,
            });
        }
        StmtKind::Assert(e) => {
            let mut cx = Lowerer::new(names);
            let expr = cx.expr(e)?;
            out.stmts.push(IrStmt::Assert {
                expr,
                n_slots: cx.max_slots,
            });
        }
        StmtKind::Print(es) => {
            let mut cx = Lowerer::new(names);
            let exprs = es.iter().map(|e| cx.expr(e)).collect::<Result<_, _>>()?;
            out.stmts.push(IrStmt::Print {
                exprs,
                n_slots: cx.max_slots,
            });
        }
        StmtKind::Expr(e) => {
            let mut cx = Lowerer::new(names);
            let expr = cx.expr(e)?;
            out.stmts.push(IrStmt::Show {
                expr,
                n_slots: cx.max_slots,
            });
        }
    }
    Ok(())
}

/// Lowers the expressions of one frame (a function, a game, a statement).
struct Lowerer<'n> {
    names: &'n Names,
    /// Visible locals, innermost last.
    scope: Vec<(Rc<str>, Slot)>,
    next_slot: usize,
    max_slots: usize,
}

type Lowering<T> = Result<T, Box<Diag>>;

impl<'n> Lowerer<'n> {
    fn new(names: &'n Names) -> Self {
        Lowerer {
            names,
            scope: Vec::new(),
            next_slot: 0,
            max_slots: 0,
        }
    }

    /// Declares a parameter (only parameters are in scope when this runs).
    fn declare(&mut self, ident: &ast::Ident) -> Lowering<Slot> {
        if self.scope.iter().any(|(n, _)| **n == *ident.name) {
            return Diag::new(
                ErrorKind::Duplicate,
                ident.span,
                format!("parameter `{}` is declared twice", ident.name),
            )
            .label("declared again here")
            .err();
        }
        let slot = self.next_slot as Slot;
        self.next_slot += 1;
        self.max_slots = self.max_slots.max(self.next_slot);
        self.scope.push((Rc::from(ident.name.as_str()), slot));
        Ok(slot)
    }

    /// Runs `f` in a nested scope: names bound inside vanish afterwards and
    /// their slots are reused.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Lowering<T>) -> Lowering<T> {
        let (scope_len, next) = (self.scope.len(), self.next_slot);
        let result = f(self);
        self.scope.truncate(scope_len);
        self.next_slot = next;
        result
    }

    fn lower_move(&mut self, m: &ast::MoveDef) -> Lowering<IrMove> {
        self.nested(|cx| {
            let mut bindings = Vec::new();
            for b in &m.bindings {
                bindings.push(cx.binding(b)?);
            }
            let guard = m.guard.as_ref().map(|g| cx.expr(g)).transpose()?;
            let result = cx.expr(&m.result)?;
            Ok(IrMove {
                label: Rc::from(m.label.name.as_str()),
                bindings,
                guard,
                result,
                span: m.span,
            })
        })
    }

    /// The iterable is resolved before the pattern's names become visible.
    fn binding(&mut self, b: &ast::Binding) -> Lowering<IrBinding> {
        let iterable = self.expr(&b.iterable)?;
        let pattern = self.pattern(&b.pattern)?;
        Ok(IrBinding {
            pattern,
            iterable,
            span: b.span,
        })
    }

    fn pattern(&mut self, p: &Pattern) -> Lowering<IrPattern> {
        match p {
            Pattern::Name(id) => {
                let slot = self.next_slot as Slot;
                self.next_slot += 1;
                self.max_slots = self.max_slots.max(self.next_slot);
                self.scope.push((Rc::from(id.name.as_str()), slot));
                Ok(IrPattern::Slot {
                    slot,
                    name: Rc::from(id.name.as_str()),
                })
            }
            Pattern::Tuple(parts, span) => {
                let parts = parts
                    .iter()
                    .map(|q| self.pattern(q))
                    .collect::<Lowering<_>>()?;
                Ok(IrPattern::Tuple(parts, *span))
            }
        }
    }

    fn comprehension(&mut self, c: &ast::Comprehension) -> Lowering<IrComp> {
        self.nested(|cx| {
            let mut clauses = Vec::new();
            for clause in &c.clauses {
                clauses.push(match clause {
                    ast::Clause::For(b) => IrClause::For(cx.binding(b)?),
                    ast::Clause::If(e) => IrClause::If(cx.expr(e)?),
                });
            }
            let body = cx.expr(&c.body)?;
            Ok(IrComp { clauses, body })
        })
    }

    fn lookup_local(&self, name: &str) -> Option<Slot> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| **n == *name)
            .map(|(_, s)| *s)
    }

    fn exprs(&mut self, es: &[ast::Expr]) -> Lowering<Vec<IrExpr>> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn expr(&mut self, e: &ast::Expr) -> Lowering<IrExpr> {
        let span = e.span;
        let kind = match &e.kind {
            ExprKind::Int(n) => IrKind::Const(Value::Int(*n)),
            ExprKind::Bool(b) => IrKind::Const(Value::Bool(*b)),
            ExprKind::Str(s) => IrKind::Const(Value::str(s)),
            ExprKind::Name(id) => return self.name(id),
            ExprKind::List(items) => IrKind::List(self.exprs(items)?),
            ExprKind::Set(items) => IrKind::Set(self.exprs(items)?),
            ExprKind::Tuple(items) => IrKind::Tuple(self.exprs(items)?),
            ExprKind::Comprehension(c) => match c.kind {
                CompKind::List | CompKind::Set => IrKind::Collect {
                    set: c.kind == CompKind::Set,
                    comp: Box::new(self.comprehension(c)?),
                },
                CompKind::Generator => {
                    return Diag::new(
                        ErrorKind::Invalid,
                        span,
                        "a generator `e for x in ...` must be the argument of a call",
                    )
                    .label("bare generator")
                    .help("write [e for ...] for a list, or all(...), sum(...), table(...)")
                    .err()
                }
            },
            ExprKind::Unary { op, operand } => {
                let operand = self.expr(operand)?;
                if let IrKind::Const(v) = &operand.kind {
                    if let Ok(folded) = ops::unary(*op, v, span) {
                        return Ok(IrExpr {
                            kind: IrKind::Const(folded),
                            span,
                        });
                    }
                }
                IrKind::Unary(*op, Box::new(operand))
            }
            ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let (lhs, rhs) = (self.expr(lhs)?, self.expr(rhs)?);
                if let (IrKind::Const(a), IrKind::Const(b)) = (&lhs.kind, &rhs.kind) {
                    if let (Value::Int(_), Value::Int(_)) = (a, b) {
                        let arithmetic = !matches!(
                            op,
                            ast::BinaryOp::Eq
                                | ast::BinaryOp::Ne
                                | ast::BinaryOp::Lt
                                | ast::BinaryOp::Le
                                | ast::BinaryOp::Gt
                                | ast::BinaryOp::Ge
                        );
                        if let (true, Ok(folded)) = (arithmetic, ops::binary(*op, a, b, span)) {
                            return Ok(IrExpr {
                                kind: IrKind::Const(folded),
                                span,
                            });
                        }
                    }
                }
                IrKind::Binary {
                    op: *op,
                    op_span: *op_span,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                }
            }
            ExprKind::Range {
                start,
                end,
                inclusive,
            } => IrKind::Range {
                start: Box::new(self.expr(start)?),
                end: Box::new(self.expr(end)?),
                inclusive: *inclusive,
            },
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => IrKind::If {
                cond: Box::new(self.expr(cond)?),
                then: Box::new(self.expr(then)?),
                otherwise: Box::new(self.expr(otherwise)?),
            },
            ExprKind::Call { callee, args } => return self.call(callee, args, span),
            ExprKind::Index { target, indices } => return self.index(target, indices, span),
            ExprKind::OmegaPow { base, exponent } => {
                // With a local or a definition of that name, `w^2` is a
                // nim-sum like any other; otherwise it is omega to the power.
                let shadowed =
                    self.lookup_local(&base.name).is_some() || self.names.get(&base.name).is_some();
                match &exponent.kind {
                    ExprKind::Int(k) if !shadowed && *k >= 0 => {
                        IrKind::Const(Value::ordinal(Ordinal::omega_pow(*k)))
                    }
                    _ => IrKind::Binary {
                        op: ast::BinaryOp::Xor,
                        op_span: span,
                        lhs: Box::new(self.name(base)?),
                        rhs: Box::new(self.expr(exponent)?),
                    },
                }
            }
            // `Family[a..b]`: a static argument that is a range, as before
            // slices existed.
            ExprKind::Slice {
                target,
                start: Some(start),
                end: Some(end),
                inclusive,
            } if self.static_family(target).is_some() => {
                let range = ast::Expr {
                    span: start.span.to(end.span),
                    kind: ExprKind::Range {
                        start: start.clone(),
                        end: end.clone(),
                        inclusive: *inclusive,
                    },
                };
                return self.index(target, &[range], span);
            }
            ExprKind::Slice {
                target,
                start,
                end,
                inclusive,
            } => IrKind::Slice {
                target: Box::new(self.expr(target)?),
                start: self.optional(start.as_deref())?,
                end: self.optional(end.as_deref())?,
                inclusive: *inclusive,
            },
            ExprKind::Let { bindings, body } => return self.let_in(bindings, body),
            ExprKind::Field { target, name } => IrKind::Field {
                target: Box::new(self.expr(target)?),
                name: Rc::from(name.name.as_str()),
            },
        };
        Ok(IrExpr { kind, span })
    }

    fn optional(&mut self, e: Option<&ast::Expr>) -> Lowering<Option<Box<IrExpr>>> {
        e.map(|e| self.expr(e).map(Box::new)).transpose()
    }

    /// `let p = e, q = f in body` as nested `Let`s, each value resolved
    /// before its pattern's names become visible, all of them gone after.
    fn let_in(&mut self, bindings: &[ast::LetBinding], body: &ast::Expr) -> Lowering<IrExpr> {
        self.nested(|cx| {
            let mut lowered = Vec::new();
            for b in bindings {
                let value = cx.expr(&b.value)?;
                lowered.push((cx.pattern(&b.pattern)?, value, b.span));
            }
            let mut expr = cx.expr(body)?;
            for (pattern, value, span) in lowered.into_iter().rev() {
                expr = IrExpr {
                    span: span.to(body.span),
                    kind: IrKind::Let {
                        pattern,
                        value: Box::new(value),
                        body: Box::new(expr),
                    },
                };
            }
            Ok(expr)
        })
    }

    fn unknown(&self, id: &ast::Ident, what: &str) -> Box<Diag> {
        let locals = self.scope.iter().map(|(n, _)| &**n);
        let items = self.names.items.keys().map(|n| &**n);
        let builtins = Builtin::ALL.iter().map(|b| b.name());
        let all: Vec<&str> = locals.chain(items).chain(builtins).collect();
        let mut d = Diag::new(
            ErrorKind::UnknownName,
            id.span,
            format!("unknown {what} `{}`", id.name),
        )
        .label("not defined");
        d = match suggest(&id.name, all.into_iter()) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help("define it with `game`, `fn` or `let` before using it"),
        };
        d.boxed()
    }

    fn name(&mut self, id: &ast::Ident) -> Lowering<IrExpr> {
        let span = id.span;
        let kind = if let Some(slot) = self.lookup_local(&id.name) {
            IrKind::Local(slot)
        } else if let Some(item) = self.names.get(&id.name) {
            match item {
                Item::Global { id, .. } => IrKind::Global(*id),
                Item::Fn { id: f, .. } => IrKind::FnRef {
                    func: *f,
                    statics: vec![],
                },
                Item::Game { id: g, .. } => IrKind::GameRef {
                    game: *g,
                    statics: vec![],
                },
            }
        } else if let Some(b) = Builtin::from_name(&id.name) {
            IrKind::BuiltinRef(b)
        } else {
            match id.name.as_str() {
                "P" => IrKind::Const(Value::Outcome(Outcome::P)),
                "N" => IrKind::Const(Value::Outcome(Outcome::N)),
                "D" => IrKind::Const(Value::Outcome(Outcome::D)),
                // Omega, the least infinite ordinal.
                "w" | "ω" => IrKind::Const(Value::ordinal(Ordinal::omega_pow(1))),
                _ => return Err(self.unknown(id, "name")),
            }
        };
        Ok(IrExpr { kind, span })
    }

    /// `Family[statics]`: a game or function with static arguments, or an
    /// ordinary index `xs[i]`.
    fn index(&mut self, target: &ast::Expr, indices: &[ast::Expr], span: Span) -> Lowering<IrExpr> {
        if let Some((item, name)) = self.static_family(target) {
            let statics = self.statics(&item, name, indices, span)?;
            let kind = match item {
                Item::Fn { id, .. } => IrKind::FnRef { func: id, statics },
                Item::Game { id, .. } => IrKind::GameRef { game: id, statics },
                Item::Global { .. } => unreachable!("static_family returns fns and games"),
            };
            return Ok(IrExpr { kind, span });
        }
        if indices.len() != 1 {
            return Diag::new(
                ErrorKind::Arity,
                span,
                format!("an index takes one value, found {}", indices.len()),
            )
            .label("write xs[i]")
            .err();
        }
        Ok(IrExpr {
            kind: IrKind::Index {
                target: Box::new(self.expr(target)?),
                index: Box::new(self.expr(&indices[0])?),
            },
            span,
        })
    }

    /// If `e` names a function or game (not shadowed by a local), that item.
    fn static_family<'e>(&self, e: &'e ast::Expr) -> Option<(Item, &'e ast::Ident)> {
        let ExprKind::Name(id) = &e.kind else {
            return None;
        };
        if self.lookup_local(&id.name).is_some() {
            return None;
        }
        match self.names.get(&id.name)? {
            item @ (Item::Fn { .. } | Item::Game { .. }) => Some((item.clone(), id)),
            Item::Global { .. } => None,
        }
    }

    fn statics(
        &mut self,
        item: &Item,
        name: &ast::Ident,
        indices: &[ast::Expr],
        span: Span,
    ) -> Lowering<Vec<IrExpr>> {
        let (Item::Fn { n_statics, .. } | Item::Game { n_statics, .. }) = item else {
            unreachable!()
        };
        if indices.len() != *n_statics {
            return Err(arity_error(
                span,
                &format!("{} `{}`", item.what(), name.name),
                *n_statics,
                indices.len(),
                "static argument",
                item.span(),
            ));
        }
        self.exprs(indices)
    }

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Lowering<IrExpr> {
        // `Name(args)` and `Name[statics](args)` for functions and games.
        let (family, statics_ast): (Option<(Item, &ast::Ident)>, &[ast::Expr]) = match &callee.kind
        {
            ExprKind::Index { target, indices } => match self.static_family(target) {
                Some(f) => (Some(f), indices),
                None => (None, &[]),
            },
            _ => (self.static_family(callee), &[]),
        };
        if let Some((item, name)) = family {
            let statics = self.statics(&item, name, statics_ast, callee.span)?;
            let (Item::Fn { n_params, .. } | Item::Game { n_params, .. }) = item else {
                unreachable!()
            };
            if args.len() != n_params {
                return Err(arity_error(
                    span,
                    &format!("{} `{}`", item.what(), name.name),
                    n_params,
                    args.len(),
                    "argument",
                    item.span(),
                ));
            }
            self.no_generator(args)?;
            let args = self.exprs(args)?;
            let kind = match item {
                Item::Fn { id, .. } => IrKind::CallFn {
                    func: id,
                    args: statics.into_iter().chain(args).collect(),
                },
                Item::Game { id, .. } => IrKind::Position {
                    game: id,
                    statics,
                    args,
                },
                Item::Global { .. } => unreachable!(),
            };
            return Ok(IrExpr { kind, span });
        }
        // Built-ins, unless a local or global of the same name shadows them.
        if let ExprKind::Name(id) = &callee.kind {
            let shadowed =
                self.lookup_local(&id.name).is_some() || self.names.get(&id.name).is_some();
            if !shadowed {
                if let Some(b) = Builtin::from_name(&id.name) {
                    return self.builtin_call(b, args, span);
                }
                if !matches!(id.name.as_str(), "P" | "N" | "D") {
                    return Err(self.unknown(id, "function or game"));
                }
            }
        }
        self.no_generator(args)?;
        Ok(IrExpr {
            kind: IrKind::CallValue {
                callee: Box::new(self.expr(callee)?),
                args: self.exprs(args)?,
            },
            span,
        })
    }

    fn builtin_call(&mut self, b: Builtin, args: &[ast::Expr], span: Span) -> Lowering<IrExpr> {
        let (lo, hi) = b.arity();
        if args.len() < lo || args.len() > hi {
            let expected = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo} or {hi}")
            };
            return Diag::new(
                ErrorKind::Arity,
                span,
                format!(
                    "built-in `{}` takes {expected} argument{}, but {} {} given",
                    b.name(),
                    if hi == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
            )
            .label("wrong number of arguments")
            .help(b.doc())
            .err();
        }
        if let [arg] = args {
            if let ExprKind::Comprehension(c) = &arg.kind {
                if c.kind == CompKind::Generator {
                    if !b.takes_generator() {
                        return Diag::new(
                            ErrorKind::Invalid,
                            arg.span,
                            format!("`{}` does not take a generator", b.name()),
                        )
                        .label("generator here")
                        .help(b.doc())
                        .err();
                    }
                    let comp = self.comprehension(c)?;
                    return Ok(IrExpr {
                        kind: IrKind::Aggregate {
                            builtin: b,
                            comp: Box::new(comp),
                        },
                        span,
                    });
                }
            }
        }
        self.no_generator(args)?;
        Ok(IrExpr {
            kind: IrKind::CallBuiltin {
                builtin: b,
                args: self.exprs(args)?,
            },
            span,
        })
    }

    fn no_generator(&self, args: &[ast::Expr]) -> Lowering<()> {
        for a in args {
            if let ExprKind::Comprehension(c) = &a.kind {
                if c.kind == CompKind::Generator {
                    return Diag::new(
                        ErrorKind::Invalid,
                        a.span,
                        "a generator can only be the single argument of a built-in such as all, sum or table",
                    )
                    .label("generator here")
                    .help("write [e for ...] to pass a list")
                    .err();
                }
            }
        }
        Ok(())
    }
}

fn arity_error(
    span: Span,
    what: &str,
    expected: usize,
    found: usize,
    noun: &str,
    defined: Span,
) -> Box<Diag> {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut d = Diag::new(
        ErrorKind::Arity,
        span,
        format!(
            "{what} takes {expected} {noun}{}, but {found} {} given",
            plural(expected),
            if found == 1 { "was" } else { "were" }
        ),
    )
    .label(format!("{found} {noun}{}", plural(found)));
    if defined.source == span.source {
        d = d.note(defined, "defined here");
    }
    d.help(format!(
        "pass exactly {expected} {noun}{}",
        plural(expected)
    ))
    .boxed()
}
