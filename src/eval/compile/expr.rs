//! Expressions -> `Code` closures, and the entry points compiling a
//! function (`Compiler::function`) and a game (`Compiler::game`).

use std::rc::Rc;

use super::calls::{call_builtin, call_user, call_value, field, game_callable, make_position};
use super::clauses::{
    bind, describe_bindings, pattern_value, run_clauses, run_comprehension, CClause,
};
use super::compiler::Compiler;
use super::int_code::{bool_code, reads_global};
use super::item_sum::sequence_order;
use super::kernel::bounds_of;
use super::rank_fill::fill_order;
use super::runtime::{eval_all, Code, CompiledBody, CompiledFn, CompiledGame, Env};
use super::symmetry::clamped_arguments;
use super::where_line::WhereLine;
use super::{fold, sweep};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::builtins::{self, expect_bool, expect_int, Builtin};
use crate::eval::memo::MaskCache;
use crate::eval::ops;
use crate::eval::value::{Callable, Table, Value};
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;

impl<'a> Compiler<'a> {
    pub fn function(&self, f: &IrFn) -> CompiledFn {
        CompiledFn {
            name: f.name.clone(),
            n_args: f.n_statics + f.n_params,
            n_slots: f.n_slots,
            body: self.expr(&f.body),
            span: f.span,
        }
    }

    pub fn game(&self, id: GameId, g: &IrGame) -> CompiledGame {
        // The `where` lowered once, read as code, as bounds (none without
        // a `where`) and along a line.
        let where_lowered = g.where_clause.as_ref().map(|w| self.bool_tree(w));
        let where_tree = where_lowered.clone().and_then(Result::ok);
        let order = sequence_order(id, g);
        let width = g.n_statics + g.n_params;
        let bounds = match &g.where_clause {
            Some(_) => where_tree.as_ref().and_then(|w| bounds_of(w, width)),
            None => Some(Vec::new()),
        };
        // The kernels plan the moves with their guards' bounds in their
        // ranges (`range_bounds.rs`); the general path runs them as written.
        let ranged = self.ranged_game(g);
        let planned = self.kernel(id, &ranged).map(|mut k| {
            // A general move's code is not read for its symmetries: only
            // a game whose moves are all in kernel form is assumed to have
            // them.
            if !k.keyed && k.all_kernel() {
                k.swappable = self.swappable_arguments(id, &ranged, bounds.as_deref());
                let clamps = clamped_arguments(&ranged);
                let clamped = (self.clamped_options(id, &ranged, &clamps, bounds.as_deref()))
                    .and_then(|c| self.kernel(id, &c).ok())
                    .filter(|c| !c.keyed && c.all_kernel());
                if let Some(c) = clamped {
                    (k.moves, k.options_clamped) = (c.moves, true);
                }
                k.clamps = (clamps.iter())
                    .filter_map(|(i, bound)| Some((*i, self.operand(bound)?)))
                    .collect();
            }
            k
        });
        let body = match &g.body {
            IrGameBody::Moves(moves) => {
                CompiledBody::Moves(moves.iter().map(|m| self.compile_move(id, g, m)).collect())
            }
            IrGameBody::Alias(e) => CompiledBody::Alias(self.expr(e)),
        };
        CompiledGame {
            id,
            name: g.name.clone(),
            param_names: g.param_names.clone(),
            n_statics: g.n_statics,
            n_params: g.n_params,
            n_slots: g.n_slots,
            where_clause: g.where_clause.as_ref().map(|w| self.expr(w)),
            where_ints: where_tree.as_ref().map(bool_code),
            where_flat: where_tree.as_ref().map(bool_code),
            where_bounds: g.where_clause.as_ref().and(bounds),
            where_line: where_tree.as_ref().map(|w| WhereLine::new(w, width)),
            where_span: g.where_clause.as_ref().map(|w| w.span),
            body,
            explanation: self.explain(g, &planned, where_lowered.as_ref(), order),
            reads_constants: game_reads_global(g, self.fn_ir),
            sequence_order: order,
            fill_order: (planned.as_ref().ok())
                .filter(|k| k.keyed)
                .and_then(|k| fill_order(g.where_clause.is_some(), k).ok()),
            kernel: planned.ok(),
            span: g.span,
        }
    }

    pub fn expr(&self, e: &IrExpr) -> Code {
        let span = e.span;
        match &e.kind {
            IrKind::Const(v) => {
                let v = v.clone();
                Box::new(move |_| Ok(v.clone()))
            }
            IrKind::Local(slot) => {
                let slot = *slot;
                Box::new(move |env| Ok(env.local(slot).clone()))
            }
            IrKind::Global(g) => {
                let g = *g as usize;
                Box::new(move |env| {
                    env.rt
                        .globals
                        .borrow()
                        .get(g)
                        .cloned()
                        .flatten()
                        .ok_or_else(|| {
                            Diag::new(
                                ErrorKind::Invalid,
                                span,
                                "constant used before its `let` ran",
                            )
                            .label("no value yet")
                            .help("move the `let` above its first use")
                            .boxed()
                        })
                })
            }
            IrKind::List(items) => {
                let codes = self.exprs(items);
                Box::new(move |env| Ok(Value::list(eval_all(env, &codes)?)))
            }
            IrKind::Set(items) => {
                let codes = self.exprs(items);
                Box::new(move |env| Ok(Value::set(eval_all(env, &codes)?)))
            }
            IrKind::Tuple(items) => {
                let codes = self.exprs(items);
                Box::new(move |env| Ok(Value::tuple(eval_all(env, &codes)?)))
            }
            IrKind::Collect { set, comp } => {
                let comp = self.comprehension(comp);
                let set = *set;
                Box::new(move |env| {
                    let out = comp.collect(env, span)?;
                    Ok(if set {
                        // Sorting takes a buffer of half the items.
                        crate::budget::check_grow(
                            out.len() / 2 * std::mem::size_of::<Value>(),
                            span,
                        )?;
                        Value::set(out)
                    } else {
                        Value::list(out)
                    })
                })
            }
            IrKind::Unary(op, operand) => {
                let (op, operand) = (*op, self.expr(operand));
                match op {
                    UnaryOp::Neg => Box::new(move |env| match operand(env)? {
                        Value::Int(n) => n
                            .checked_neg()
                            .map(Value::Int)
                            .ok_or_else(|| builtins::overflow(span, "negation")),
                        v => ops::unary(op, &v, span),
                    }),
                    UnaryOp::Not => Box::new(move |env| ops::unary(op, &operand(env)?, span)),
                }
            }
            IrKind::Binary { op, lhs, rhs, .. } => self.binary(*op, lhs, rhs, span),
            IrKind::Range {
                start,
                end,
                inclusive,
            } => {
                let (start, end, inclusive) = (self.expr(start), self.expr(end), *inclusive);
                Box::new(move |env| {
                    let a = expect_int(&start(env)?, span)?;
                    let b = expect_int(&end(env)?, span)?;
                    let b = if inclusive { b.saturating_add(1) } else { b };
                    if b.saturating_sub(a) > 100_000_000 {
                        return Diag::new(
                            ErrorKind::TooManyStates,
                            span,
                            "range too large to make a list of",
                        )
                        .label(format!("{a}..{b}"))
                        .help("iterate over it in a comprehension instead")
                        .err();
                    }
                    let items = b.saturating_sub(a).max(0) as usize;
                    crate::budget::check_grow(items * std::mem::size_of::<Value>(), span)?;
                    Ok(Value::list((a..b).map(Value::Int).collect()))
                })
            }
            IrKind::If {
                cond,
                then,
                otherwise,
            } => {
                let (c, t, o) = (self.cond_code(cond), self.expr(then), self.expr(otherwise));
                Box::new(move |env| if c(env)? { t(env) } else { o(env) })
            }
            IrKind::CallFn { func, args } => {
                if let Some(body) = self.inlined_call(e) {
                    return self.expr(&body);
                }
                let (func, args) = (*func, self.exprs(args));
                Box::new(move |env| {
                    let vals = eval_small(env, &args)?;
                    call_user(env, func, vals, span)
                })
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Sg | Builtin::Outcome),
                args,
            } if self.query_code(&args[0], span).is_some() => {
                let query = self.query_code(&args[0], span).expect("checked");
                let game = self.expr(&args[0]);
                let b = *b;
                // Positions, sums and compounds of positions answer from
                // their keys: no game value is built.
                Box::new(move |env| match query(env)? {
                    Some(v) if b == Builtin::Sg => Ok(env.rt.inf_sets.borrow().to_value(v)),
                    Some(v) => Ok(Value::Outcome(env.rt.inf_sets.borrow().outcome(v))),
                    None => {
                        let g = game(env)?;
                        call_builtin(env, b, &[g], span)
                    }
                })
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Plot,
                args,
            } => {
                // Errors point at the table or the file name.
                let spans: Vec<Span> = args.iter().map(|a| a.span).collect();
                let args = self.exprs(args);
                Box::new(move |env| {
                    let vals = eval_small(env, &args)?;
                    crate::eval::plot::make(&vals, &spans, span)
                })
            }
            IrKind::CallBuiltin { builtin, args } => {
                // A bad take-and-break code is shown inside its literal.
                let span = match (builtin, args.first()) {
                    (Builtin::Octal, Some(code)) => code.span,
                    _ => span,
                };
                let (b, args) = (*builtin, self.exprs(args));
                Box::new(move |env| {
                    let vals = eval_small(env, &args)?;
                    call_builtin(env, b, &vals, span)
                })
            }
            IrKind::CallValue { callee, args } => {
                let (callee, args) = (self.expr(callee), self.exprs(args));
                Box::new(move |env| {
                    let f = callee(env)?;
                    let vals = eval_all(env, &args)?;
                    call_value(env, &f, vals, span)
                })
            }
            IrKind::Position {
                game,
                statics,
                args,
            } => {
                let (game, statics, args) = (*game, self.exprs(statics), self.exprs(args));
                Box::new(move |env| {
                    let statics = eval_all(env, &statics)?;
                    let args = eval_all(env, &args)?;
                    make_position(env, game, statics, args, span)
                })
            }
            IrKind::GameRef { game, statics } => {
                let (game, statics) = (*game, self.exprs(statics));
                Box::new(move |env| {
                    let statics = eval_all(env, &statics)?;
                    game_callable(env, game, statics)
                })
            }
            IrKind::FnRef { func, statics } => {
                let (func, statics) = (*func, self.exprs(statics));
                Box::new(move |env| {
                    let statics = eval_all(env, &statics)?;
                    let name = env.rt.func(func).name.clone();
                    Ok(Value::Func(Rc::new(Callable::User {
                        id: func,
                        name,
                        statics: Rc::new(statics),
                    })))
                })
            }
            IrKind::BuiltinRef(b) => {
                let v = Value::Func(Rc::new(Callable::Builtin {
                    id: Builtin::ALL.iter().position(|x| x == b).expect("listed") as u32,
                    name: b.name(),
                }));
                Box::new(move |_| Ok(v.clone()))
            }
            IrKind::Aggregate { builtin, comp } => self.aggregate(*builtin, comp, span),
            IrKind::Index { target, index } => {
                let (t, i) = (self.expr(target), self.expr(index));
                Box::new(move |env| {
                    let tv = t(env)?;
                    let iv = i(env)?;
                    builtins::index(&tv, &iv, span)
                })
            }
            IrKind::Field { target, name } => {
                let (t, name) = (self.expr(target), name.clone());
                Box::new(move |env| field(&t(env)?, &name, span))
            }
            IrKind::Slice {
                target,
                start,
                end,
                inclusive,
            } => {
                let t = self.expr(target);
                let bound = |b: &Option<Box<IrExpr>>| b.as_ref().map(|b| (self.expr(b), b.span));
                let (start, end, inclusive) = (bound(start), bound(end), *inclusive);
                Box::new(move |env| {
                    let tv = t(env)?;
                    let mut int = |b: &Option<(Code, Span)>| match b {
                        Some((code, at)) => expect_int(&code(env)?, *at).map(Some),
                        None => Ok(None),
                    };
                    let (a, b) = (int(&start)?, int(&end)?);
                    builtins::slice(&tv, a, b, inclusive, span)
                })
            }
            IrKind::Let {
                pattern,
                value,
                body,
            } => {
                let (pattern, value, body) = (pattern.clone(), self.expr(value), self.expr(body));
                Box::new(move |env| {
                    let v = value(env)?;
                    bind(env, &pattern, v)?;
                    body(env)
                })
            }
        }
    }

    /// `G[statics](args)` for a game that is not an alias, whose static
    /// arguments (if any) are constants or globals, fixed while a loop
    /// runs: the game, its static arguments and its arguments.
    pub(crate) fn keyed_position<'e>(
        &self,
        e: &'e IrExpr,
    ) -> Option<(GameId, &'e [IrExpr], &'e [IrExpr])> {
        match &e.kind {
            IrKind::Position {
                game,
                statics,
                args,
            } if statics.iter().all(fixed) && !self.aliases.contains(game) => {
                Some((*game, statics, args))
            }
            _ => None,
        }
    }

    pub(crate) fn exprs(&self, es: &[IrExpr]) -> Vec<Code> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    pub(crate) fn binary(&self, op: BinaryOp, lhs: &IrExpr, rhs: &IrExpr, span: Span) -> Code {
        let lspan = lhs.span;
        let rspan = rhs.span;
        match op {
            BinaryOp::And | BinaryOp::Or => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let want = op == BinaryOp::Or;
                Box::new(move |env| {
                    if expect_bool(&l(env)?, lspan)? == want {
                        return Ok(Value::Bool(want));
                    }
                    Ok(Value::Bool(expect_bool(&r(env)?, rspan)?))
                })
            }
            BinaryOp::In | BinaryOp::NotIn if matches!(rhs.kind, IrKind::Range { .. }) => {
                let IrKind::Range {
                    start,
                    end,
                    inclusive,
                } = &rhs.kind
                else {
                    unreachable!()
                };
                let (x, a, b, inclusive) =
                    (self.expr(lhs), self.expr(start), self.expr(end), *inclusive);
                let negate = op == BinaryOp::NotIn;
                Box::new(move |env| {
                    let x = expect_int(&x(env)?, lspan)?;
                    let a = expect_int(&a(env)?, rspan)?;
                    let b = expect_int(&b(env)?, rspan)?;
                    let inside = a <= x && (x < b || (inclusive && x == b));
                    Ok(Value::Bool(inside != negate))
                })
            }
            BinaryOp::In | BinaryOp::NotIn => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let negate = op == BinaryOp::NotIn;
                let masks = MaskCache::default();
                Box::new(move |env| {
                    let (item, container) = (l(env)?, r(env)?);
                    // A set of small integers (`v in SMALL` over many `v`): one
                    // bit of its mask, kept while the set is the same; only an
                    // integer equals an integer.
                    if let Value::Set(xs) = &container {
                        if let Some(mask) = masks.mask(xs) {
                            let found = matches!(item, Value::Int(n) if (0..64).contains(&n) && mask >> n & 1 == 1);
                            return Ok(Value::Bool(found != negate));
                        }
                    }
                    ops::binary(op, &item, &container, span)
                })
            }
            _ => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                let int_op = matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::BitOr
                        | BinaryOp::Xor
                        | BinaryOp::BitAnd
                );
                Box::new(move |env| {
                    let a = l(env)?;
                    let b = r(env)?;
                    // Integer fast paths; everything else (and every error) goes
                    // through `ops::binary`.
                    if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                        if int_op {
                            if let Some(z) = ops::int_op(op, *x, *y) {
                                return Ok(Value::Int(z));
                            }
                        } else if let Some(holds) = ops::int_compare(op, *x, *y) {
                            return Ok(Value::Bool(holds));
                        }
                    }
                    ops::binary(op, &a, &b, span)
                })
            }
        }
    }

    pub(crate) fn aggregate(&self, b: Builtin, comp: &IrComp, span: Span) -> Code {
        let body_span = comp.body.span;
        // Aggregates of the values alone may sweep their last clause.
        if !matches!(
            b,
            Builtin::All | Builtin::Any | Builtin::Count | Builtin::Table | Builtin::Plot
        ) {
            return self.values_aggregate(b, self.comprehension(comp), body_span, span);
        }
        if b == Builtin::Count {
            // Counts every element (no early stop), so it may sweep too:
            // `count(outcome(G(x, y)) == D for ...)`.
            let comp = self.comprehension(comp);
            return Box::new(move |env| {
                let mut count = fold::CountTrue {
                    n: 0,
                    span: body_span,
                };
                comp.for_each(env, &mut count)?;
                Ok(Value::Int(count.n))
            });
        }
        let clauses = self.clauses(comp);
        let body = self.expr(&comp.body);
        match b {
            Builtin::All | Builtin::Any => {
                let want = b == Builtin::Any;
                Box::new(move |env| {
                    let mut found = None;
                    run_comprehension(env, &clauses, &mut |env| {
                        if expect_bool(&body(env)?, body_span)? == want {
                            found = Some(describe_bindings(env, &clauses));
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    if !want {
                        env.counterexample = found.clone();
                    }
                    Ok(Value::Bool(found.is_some() == want))
                })
            }
            Builtin::Table => {
                let names: Vec<Rc<str>> = comp
                    .clauses
                    .iter()
                    .filter_map(|c| match c {
                        IrClause::For(b) => {
                            let mut n = Vec::new();
                            b.pattern.names(&mut n);
                            Some(n.into_iter().map(|(n, _)| n).collect::<Vec<_>>().join(","))
                        }
                        IrClause::If(_) => None,
                    })
                    .map(Rc::from)
                    .collect();
                let well_formed =
                    clauses.len() == 2 && clauses.iter().all(|c| matches!(c, CClause::For { .. }));
                Box::new(move |env| {
                    if !well_formed {
                        return Diag::new(
                            ErrorKind::Invalid,
                            span,
                            "table needs exactly two bindings: table(e for r in R, c in C)",
                        )
                        .label("rows come from the first binding, columns from the second")
                        .err();
                    }
                    let (mut row_keys, mut col_keys, mut rows) =
                        (Vec::new(), Vec::new(), Vec::new());
                    run_comprehension(env, &clauses[..1], &mut |env| {
                        row_keys.push(pattern_value(env, &clauses[0]));
                        let (mut cols, mut row) = (Vec::new(), Vec::new());
                        run_clauses(env, &clauses[1..], &mut |env| {
                            cols.push(pattern_value(env, &clauses[1]));
                            row.push(body(env)?);
                            Ok(true)
                        })?;
                        if cols.len() > col_keys.len() {
                            col_keys = cols;
                        }
                        rows.push(row);
                        Ok(true)
                    })?;
                    Ok(Value::Table(Rc::new(Table {
                        row_name: names[0].clone(),
                        col_name: names[1].clone(),
                        row_keys,
                        col_keys,
                        rows,
                    })))
                })
            }
            // `plot(e for r in R, c in C)`: the plot of that table.
            Builtin::Plot => {
                let table = self.aggregate(Builtin::Table, comp, span);
                Box::new(move |env| crate::eval::plot::make(&[table(env)?], &[], span))
            }
            _ => unreachable!("aggregates of values and counts are swept above"),
        }
    }

    /// `sum`, `histogram`, `list`, `set`, `min`, `max`, `period` of a
    /// comprehension: they read only its values, so its last clause may be
    /// swept (`sweep.rs`).
    fn values_aggregate(
        &self,
        b: Builtin,
        swept: sweep::Comp,
        body_span: Span,
        span: Span,
    ) -> Code {
        match b {
            Builtin::Sum => Box::new(move |env| {
                let mut sum = fold::Sum {
                    total: Value::Int(0),
                    span,
                    body_span,
                };
                swept.for_each(env, &mut sum)?;
                Ok(sum.total)
            }),
            Builtin::Histogram => Box::new(move |env| {
                let mut h = fold::Histogram::new(body_span);
                swept.for_each(env, &mut h)?;
                Ok(h.finish())
            }),
            Builtin::Min | Builtin::Max => Box::new(move |env| {
                let mut m = fold::Extreme {
                    best: None,
                    want_max: b == Builtin::Max,
                };
                swept.for_each(env, &mut m)?;
                m.finish(span)
            }),
            _ => {
                // list, set, period: collect, then apply the built-in.
                Box::new(move |env| {
                    let out = swept.collect(env, span)?;
                    builtins::apply_pure(b, &[Value::list(out)], span)
                })
            }
        }
    }
}

/// Arguments of a call, without a heap allocation for up to four.
fn eval_small(env: &mut Env, codes: &[Code]) -> Fallible<smallvec::SmallVec<[Value; 4]>> {
    codes.iter().map(|c| c(env)).collect()
}

/// Whether `e` is the same wherever a program's loops are: a constant, a
/// global, or a function or game named with such static arguments.
fn fixed(e: &IrExpr) -> bool {
    match &e.kind {
        IrKind::Const(_) | IrKind::Global(_) | IrKind::BuiltinRef(_) => true,
        IrKind::FnRef { statics, .. } | IrKind::GameRef { statics, .. } => {
            statics.iter().all(fixed)
        }
        _ => false,
    }
}

/// Whether a game's `where` or moves read a top-level constant, also
/// through the functions in `fns` they call.
fn game_reads_global(g: &IrGame, fns: &[Option<Rc<IrFn>>]) -> bool {
    let reads_global = |e: &IrExpr| reads_global(e, fns);
    let moves = match &g.body {
        IrGameBody::Moves(moves) => moves,
        IrGameBody::Alias(_) => return false,
    };
    g.where_clause.as_ref().is_some_and(&reads_global)
        || moves.iter().flat_map(IrMove::exprs).any(reads_global)
}
