//! IR -> closures. Every expression becomes a `Code` closure over the value
//! stack, so evaluation never walks a tree of names. Moves become loops that
//! hand each option to a `Sink`, writing the option's position straight into
//! a reusable key (no allocation per option on the common paths). Games
//! whose moves are integer code of the position also get a kernel
//! (`kernel.rs`), a compact form the SG search runs directly.
//!
//! The machine the closures run on (`runtime.rs`: `Runtime`, `Env`) lives
//! here too: closures take `Env`, and the runtime holds the compiled
//! games. So does the line sweep (`line_sweep.rs`), which runs compiled
//! sweeps. What compiled code asks of the search and the game questions
//! above it goes through `Above` (function pointers in the runtime).

mod batch_code;
mod calls;
mod explain;
mod fold;
mod game_plan;
mod inline;
mod int_code;
mod kernel;
mod key_kernel;
mod line_sweep;
mod moves;
pub mod runtime;
mod sweep;

use std::collections::HashSet;
use std::rc::Rc;

use super::builtins::{self, expect_bool, expect_int, type_error, Builtin};
use super::memo::{int_shape, shape_push, Key, MaskCache, Shape, Tag, MAX_ARGS, MAX_COORDS};
use super::ops;
use super::value::{Callable, Game, InstanceId, Position, Table, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;
use smallvec::SmallVec;

pub(crate) use batch_code::BatchCode;
pub use calls::*;
use int_code::*;
pub(crate) use int_code::{BoolCode, Locals, Seq};
pub(crate) use kernel::{
    int_frame, Kernel, KernelMove, KeyFrame, LoopMove, LoopSource, RunMove, SingleMove, SlotKind,
    SumRunMove, KERNEL_FRAME,
};
pub(crate) use kernel::{Bend, Bound, StrideMove};
pub(crate) use key_kernel::{BitsRun, KeyLoopMove, KeyRun, KeySource, OptionKey, RunArg};
pub use line_sweep::{sweep_line, Affine, LineSink, SweepLine};
pub use moves::*;
pub use runtime::{Above, Env, Instance, Limits, Progress, Rules, Runtime};

pub type Code = Box<dyn Fn(&mut Env) -> Fallible<Value>>;
/// Runs one move rule, giving every option it yields to the sink.
pub type MoveCode = Box<dyn Fn(&mut Env, &mut dyn Sink) -> Fallible<()>>;

pub struct CompiledFn {
    pub name: Rc<str>,
    pub n_args: usize,
    pub n_slots: usize,
    pub body: Code,
    pub span: Span,
}

pub struct CompiledGame {
    pub id: GameId,
    pub name: Rc<str>,
    pub param_names: Vec<Rc<str>>,
    pub n_statics: usize,
    pub n_params: usize,
    pub n_slots: usize,
    pub where_clause: Option<Code>,
    /// The `where` clause as integer code on a position's integers
    /// (`KeyFrame`), when it has that form.
    pub(crate) where_ints: Option<BoolCode<KeyFrame>>,
    /// The same on a frame of integers, for positions whose static
    /// arguments and arguments are all integers (the commonest case).
    pub(crate) where_flat: Option<BoolCode<[i64]>>,
    pub where_span: Option<Span>,
    pub body: CompiledBody,
    /// The moves in kernel form, when they all have one.
    pub(crate) kernel: Option<Kernel>,
    /// How the search evaluates the game (`--explain`), a line each.
    pub explanation: Vec<String>,
    pub span: Span,
}

pub enum CompiledBody {
    Moves(Vec<CompiledMove>),
    Alias(Code),
}

pub struct CompiledMove {
    pub label: Rc<str>,
    /// Binding names and slots, for listing options.
    pub names: Vec<(Rc<str>, Slot)>,
    pub run: MoveCode,
}

/// Compiles the IR of one program. `aliases` are the game ids whose bodies
/// are aliases (their positions must be expanded, not keyed).
pub struct Compiler<'a> {
    pub aliases: &'a HashSet<GameId>,
    /// Function bodies, for inlining small integer functions.
    pub fn_ir: &'a [Option<Rc<IrFn>>],
    pub inline_depth: std::cell::Cell<u32>,
}

impl<'a> Compiler<'a> {
    pub fn new(aliases: &'a HashSet<GameId>, fn_ir: &'a [Option<Rc<IrFn>>]) -> Compiler<'a> {
        Compiler {
            aliases,
            fn_ir,
            inline_depth: std::cell::Cell::new(0),
        }
    }
}

pub(crate) enum IterCode {
    Range {
        start: Code,
        end: Code,
        inclusive: bool,
    },
    Values(Code),
}

pub(crate) enum CClause {
    For {
        pattern: IrPattern,
        iter: IterCode,
        span: Span,
    },
    If(Code, Span),
}

/// Runs the clauses as nested loops; `body` returns false to stop early.
/// Returns false if stopped.
fn run_clauses(
    env: &mut Env,
    clauses: &[CClause],
    body: &mut dyn FnMut(&mut Env) -> Fallible<bool>,
) -> Fallible<bool> {
    let track = std::mem::take(&mut env.track_next) && !env.tracking;
    let Some((first, rest)) = clauses.split_first() else {
        return body(env);
    };
    match first {
        CClause::If(cond, span) => {
            if expect_bool(&cond(env)?, *span)? {
                run_clauses(env, rest, body)
            } else {
                Ok(true)
            }
        }
        CClause::For {
            pattern,
            iter,
            span,
        } => match iter {
            IterCode::Range {
                start,
                end,
                inclusive,
            } => {
                let a = expect_int(&start(env)?, *span)?;
                let b = expect_int(&end(env)?, *span)?;
                let b = if *inclusive { b.saturating_add(1) } else { b };
                let IrPattern::Slot { slot, .. } = pattern else {
                    return Diag::new(ErrorKind::Type, *span, "cannot destructure an integer")
                        .label("a range yields integers")
                        .err();
                };
                if track {
                    return tracked_range(env, *slot, a, b, rest, body, *span);
                }
                if rest.is_empty() {
                    // The innermost loop calls the body itself.
                    for k in a..b {
                        env.set_local_int(*slot, k);
                        env.tick(*span)?;
                        if !body(env)? {
                            return Ok(false);
                        }
                    }
                    return Ok(true);
                }
                for k in a..b {
                    env.set_local_int(*slot, k);
                    env.tick(*span)?;
                    if !run_clauses(env, rest, body)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            IterCode::Values(code) => {
                let v = code(env)?;
                let items: Rc<Vec<Value>> = match v {
                    Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => xs,
                    Value::Table(t) => {
                        Rc::new(t.rows.iter().map(|r| Value::list(r.clone())).collect())
                    }
                    other => {
                        return Err(type_error(
                            *span,
                            "a list, set, tuple or range to iterate",
                            &other,
                        ))
                    }
                };
                for item in items.iter() {
                    bind(env, pattern, item.clone())?;
                    env.tick(*span)?;
                    if !run_clauses(env, rest, body)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        },
    }
}

/// The outermost range loop of a comprehension, reporting its progress.
fn tracked_range(
    env: &mut Env,
    slot: Slot,
    a: i64,
    b: i64,
    rest: &[CClause],
    body: &mut dyn FnMut(&mut Env) -> Fallible<bool>,
    span: Span,
) -> Fallible<bool> {
    use std::sync::atomic::Ordering::Relaxed;
    let progress = env.rt.progress.clone();
    progress.done.store(0, Relaxed);
    progress
        .total
        .store(b.saturating_sub(a).max(0) as u64, Relaxed);
    env.tracking = true;
    let mut result = Ok(true);
    for k in a..b {
        env.set_local_int(slot, k);
        progress.done.store((k - a) as u64, Relaxed);
        result = env.tick(span).and_then(|_| run_clauses(env, rest, body));
        if !matches!(result, Ok(true)) {
            break;
        }
    }
    env.tracking = false;
    progress.total.store(0, Relaxed);
    result
}

/// Runs a comprehension's clauses, tracking the progress of its first loop.
fn run_comprehension(
    env: &mut Env,
    clauses: &[CClause],
    body: &mut dyn FnMut(&mut Env) -> Fallible<bool>,
) -> Fallible<bool> {
    env.track_next = true;
    run_clauses(env, clauses, body)
}

fn bind(env: &mut Env, pattern: &IrPattern, v: Value) -> Fallible<()> {
    match pattern {
        IrPattern::Slot { slot, .. } => {
            env.set_local(*slot, v);
            Ok(())
        }
        IrPattern::Tuple(parts, span) => {
            let items = match v.items() {
                Some(items) if items.len() == parts.len() => items.to_vec(),
                _ => {
                    return Diag::new(
                        ErrorKind::Type,
                        *span,
                        format!(
                            "cannot unpack {} `{v:#}` into {} names",
                            v.kind(),
                            parts.len()
                        ),
                    )
                    .label("this pattern")
                    .err()
                }
            };
            for (p, item) in parts.iter().zip(items) {
                bind(env, p, item)?;
            }
            Ok(())
        }
    }
}

/// Describes the current bindings of the clauses, e.g. `a = 3, b = 5`.
fn describe_bindings(env: &Env, clauses: &[CClause]) -> String {
    let mut names = Vec::new();
    for c in clauses {
        if let CClause::For { pattern, .. } = c {
            pattern.names(&mut names);
        }
    }
    names
        .iter()
        .map(|(n, s)| format!("{n} = {:#}", env.local(*s)))
        .collect::<Vec<_>>()
        .join(", ")
}

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
        let kernel = self.kernel(id, g);
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
            where_ints: g.where_clause.as_ref().and_then(|w| self.bool_expr(w)),
            where_flat: g.where_clause.as_ref().and_then(|w| self.bool_expr(w)),
            where_span: g.where_clause.as_ref().map(|w| w.span),
            body,
            explanation: self.explain(id, g, kernel.as_ref()),
            kernel,
            span: g.span,
        }
    }

    pub(crate) fn clause_for(&self, b: &IrBinding) -> CClause {
        let iter = match &b.iterable.kind {
            IrKind::Range {
                start,
                end,
                inclusive,
            } if matches!(b.pattern, IrPattern::Slot { .. }) => IterCode::Range {
                start: self.expr(start),
                end: self.expr(end),
                inclusive: *inclusive,
            },
            _ => IterCode::Values(self.expr(&b.iterable)),
        };
        CClause::For {
            pattern: b.pattern.clone(),
            iter,
            span: b.iterable.span,
        }
    }

    pub(crate) fn clauses(&self, comp: &IrComp) -> Vec<CClause> {
        comp.clauses
            .iter()
            .map(|c| match c {
                IrClause::For(b) => self.clause_for(b),
                IrClause::If(e) => CClause::If(self.expr(e), e.span),
            })
            .collect()
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
                    let out = comp.collect(env)?;
                    Ok(if set {
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
                    Ok(Value::list((a..b).map(Value::Int).collect()))
                })
            }
            IrKind::If {
                cond,
                then,
                otherwise,
            } => {
                let (c, t, o) = (self.expr(cond), self.expr(then), self.expr(otherwise));
                let cspan = cond.span;
                // A comparison of integers is decided without values; any
                // other case (and its errors) goes the value way.
                if let Some(fast) = self.bool_expr::<[Value]>(cond) {
                    return Box::new(move |env| {
                        let holds = match fast(env.frame()) {
                            Some(b) => b,
                            None => expect_bool(&c(env)?, cspan)?,
                        };
                        if holds {
                            t(env)
                        } else {
                            o(env)
                        }
                    });
                }
                Box::new(move |env| {
                    if expect_bool(&c(env)?, cspan)? {
                        t(env)
                    } else {
                        o(env)
                    }
                })
            }
            IrKind::CallFn { func, args } => {
                if let Some(body) = self.inlined_call(*func, args) {
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
            } if self.keyed_position(&args[0]).is_some() => {
                let (game, pargs) = self.keyed_position(&args[0]).expect("checked");
                let writers: Vec<ArgWriter> = pargs.iter().map(|a| self.arg_writer(a)).collect();
                let position = self.expr(&args[0]);
                let general = move |env: &mut Env| {
                    let p = position(env)?;
                    call_builtin(env, Builtin::Sg, &[p], span)
                };
                let cached = std::cell::Cell::new(None);
                let outcome = *b == Builtin::Outcome;
                // Already-known positions answer from the memo directly: no
                // position value is built, no `where` evaluated again.
                Box::new(move |env| {
                    let sg = match keyed_sg(env, game, &cached, &writers, span)? {
                        Some(v) => Value::Int(v as i64),
                        None => general(env)?,
                    };
                    Ok(if outcome {
                        Value::Outcome(if sg == Value::Int(0) {
                            super::value::Outcome::P
                        } else {
                            super::value::Outcome::N
                        })
                    } else {
                        sg
                    })
                })
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Sg | Builtin::Outcome),
                args,
            } if self.game_plan(&args[0]).is_some() => {
                let plan = self.game_plan(&args[0]).expect("checked");
                let game = self.expr(&args[0]);
                let b = *b;
                // Sums and compounds of positions answer from the keys of
                // their positions: no game value is built.
                Box::new(move |env| match plan.sg(env, span)? {
                    Some(v) if b == Builtin::Sg => Ok(Value::Int(v as i64)),
                    Some(v) => Ok(Value::Outcome(if v == 0 {
                        super::value::Outcome::P
                    } else {
                        super::value::Outcome::N
                    })),
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
        }
    }

    /// `G(args)` for a game without static arguments that is not an alias.
    pub(crate) fn keyed_position<'e>(&self, e: &'e IrExpr) -> Option<(GameId, &'e [IrExpr])> {
        match &e.kind {
            IrKind::Position {
                game,
                statics,
                args,
            } if statics.is_empty() && !self.aliases.contains(game) => Some((*game, args)),
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
                let cmp = matches!(
                    op,
                    BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                        | BinaryOp::Eq
                        | BinaryOp::Ne
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
                        } else if cmp {
                            return Ok(Value::Bool(match op {
                                BinaryOp::Lt => x < y,
                                BinaryOp::Le => x <= y,
                                BinaryOp::Gt => x > y,
                                BinaryOp::Ge => x >= y,
                                BinaryOp::Eq => x == y,
                                _ => x != y,
                            }));
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
            Builtin::Count => Box::new(move |env| {
                let mut n = 0i64;
                run_comprehension(env, &clauses, &mut |env| {
                    n += expect_bool(&body(env)?, body_span)? as i64;
                    Ok(true)
                })?;
                Ok(Value::Int(n))
            }),
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
            _ => unreachable!("aggregates of values are swept above"),
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
                let mut h = fold::Histogram {
                    counts: Vec::new(),
                    body_span,
                };
                swept.for_each(env, &mut h)?;
                Ok(Value::list(h.counts.into_iter().map(Value::Int).collect()))
            }),
            _ => {
                // list, set, min, max, period: collect, then apply the built-in.
                Box::new(move |env| {
                    let out = swept.collect(env)?;
                    builtins::apply_pure(b, &[Value::list(out)], span)
                })
            }
        }
    }
}

/// The value a binding clause bound, as a table header shows it.
fn pattern_value(env: &Env, clause: &CClause) -> Value {
    let CClause::For { pattern, .. } = clause else {
        return Value::tuple(vec![]);
    };
    let mut names = Vec::new();
    pattern.names(&mut names);
    match names.as_slice() {
        [(_, slot)] => env.local(*slot).clone(),
        _ => Value::tuple(names.iter().map(|(_, s)| env.local(*s).clone()).collect()),
    }
}

/// Arguments of a call, without a heap allocation for up to four.
fn eval_small(env: &mut Env, codes: &[Code]) -> Fallible<smallvec::SmallVec<[Value; 4]>> {
    codes.iter().map(|c| c(env)).collect()
}

pub fn eval_all(env: &mut Env, codes: &[Code]) -> Fallible<Vec<Value>> {
    codes.iter().map(|c| c(env)).collect()
}
