//! The clauses of comprehensions and move rules (`for` bindings and `if`
//! guards): compiled once into `CClause`s, run as nested loops.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use super::compiler::Compiler;
use super::int_code::Operand;
use super::runtime::{Code, Env};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::builtins::{expect_bool, expect_int, type_error};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::Span;

/// A condition as code giving a boolean.
pub(crate) type CondCode = Box<dyn Fn(&mut Env) -> Fallible<bool>>;

impl Compiler<'_> {
    /// `cond` as a boolean: a comparison of integers is decided without
    /// values; any other case (and its errors) goes the value way.
    pub(crate) fn cond_code(&self, cond: &IrExpr) -> CondCode {
        let c = self.expr(cond);
        let span = cond.span;
        match self.bool_expr::<[Value]>(cond) {
            Some(fast) => Box::new(move |env| match fast(env.frame()) {
                Some(b) => Ok(b),
                None => expect_bool(&c(env)?, span),
            }),
            None => Box::new(move |env| expect_bool(&c(env)?, span)),
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
pub(super) fn run_clauses(
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
                let items = items_of(code(env)?, *span)?;
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

/// The items a `for` over the value `v` binds in turn (a table's rows
/// as lists).
pub(super) fn items_of(v: Value, span: Span) -> Fallible<Rc<Vec<Value>>> {
    match v {
        Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => Ok(xs),
        Value::Table(t) => Ok(Rc::new(
            t.rows.iter().map(|r| Value::list(r.clone())).collect(),
        )),
        other => Err(type_error(
            span,
            "a list, set, tuple or range to iterate",
            &other,
        )),
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
pub(super) fn run_comprehension(
    env: &mut Env,
    clauses: &[CClause],
    body: &mut dyn FnMut(&mut Env) -> Fallible<bool>,
) -> Fallible<bool> {
    env.track_next = true;
    run_clauses(env, clauses, body)
}

pub(super) fn bind(env: &mut Env, pattern: &IrPattern, v: Value) -> Fallible<()> {
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
pub(super) fn describe_bindings(env: &Env, clauses: &[CClause]) -> String {
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

impl Compiler<'_> {
    /// A range's end (or start): integer code of the outer bindings and
    /// the top-level constants run first, with no value made (a line's
    /// `N - a - b` cost hundreds of instructions through value code); the
    /// value code where that fails (not integers, an overflow), so values
    /// and errors are the same. The constants' values are put in at the
    /// first run, and again if one has changed since.
    pub(crate) fn range_end(&self, e: &IrExpr) -> Code {
        let code = self.expr(e);
        let mut reads = Vec::new();
        if !arithmetic(e, &mut reads) {
            return code;
        }
        if reads.is_empty() {
            return match self.operand::<[Value]>(e) {
                Some(Operand::Const(_)) | None => code,
                Some(int) => Box::new(move |env| match int.eval(env.frame()) {
                    Some(x) => Ok(Value::Int(x)),
                    None => code(env),
                }),
            };
        }
        let e = e.clone();
        // The constants' values read and the code made with them.
        type Made = (Vec<i64>, Option<Operand>);
        let made: RefCell<Option<Made>> = RefCell::new(None);
        Box::new(move |env| {
            {
                let globals = env.rt.globals.borrow();
                let read = |g: usize| match globals.get(g) {
                    Some(Some(Value::Int(x))) => Some(*x),
                    _ => None,
                };
                let mut made = made.borrow_mut();
                let current = |(values, _): &Made| {
                    (reads.iter().zip(values)).all(|(&g, &v)| read(g) == Some(v))
                };
                if !made.as_ref().is_some_and(current) {
                    let aliases = HashSet::new();
                    let with = Compiler {
                        globals: &globals,
                        ..Compiler::new(&aliases, &[])
                    };
                    // A constant not an integer: no integer code.
                    let values: Option<Vec<i64>> = reads.iter().map(|&g| read(g)).collect();
                    let int = values.as_ref().and_then(|_| with.operand(&e));
                    *made = Some((values.unwrap_or_default(), int));
                }
                let int = made.as_ref().and_then(|(_, int)| int.as_ref());
                if let Some(x) = int.and_then(|int| int.eval(env.frame())) {
                    return Ok(Value::Int(x));
                }
            }
            code(env)
        })
    }

    pub(crate) fn clause_for(&self, b: &IrBinding) -> CClause {
        let iter = match &b.iterable.kind {
            IrKind::Range {
                start,
                end,
                inclusive,
            } if matches!(b.pattern, IrPattern::Slot { .. }) => IterCode::Range {
                start: self.range_end(start),
                end: self.range_end(end),
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
}

/// Whether `e` is arithmetic of locals, integers and top-level constants
/// (`reads` gets the constants it reads); integer code decides the rest.
fn arithmetic(e: &IrExpr, reads: &mut Vec<usize>) -> bool {
    match &e.kind {
        IrKind::Local(_) | IrKind::Const(Value::Int(_)) => true,
        IrKind::Global(g) => {
            reads.push(*g as usize);
            true
        }
        IrKind::Unary(_, x) => arithmetic(x, reads),
        IrKind::Binary { lhs, rhs, .. } => arithmetic(lhs, reads) && arithmetic(rhs, reads),
        _ => false,
    }
}

/// The value a binding clause bound, as a table header shows it.
pub(super) fn pattern_value(env: &Env, clause: &CClause) -> Value {
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
