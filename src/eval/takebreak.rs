//! The evaluator's side of the take-and-break engine (`crate::takebreak`):
//! `octal(code)` as a member of the prelude's `octal_game` family, the
//! values of its heaps read from the engine instead of searched, and
//! `periodicity(...)`.
//!
//! `octal_game[D]` keeps rules in the language that play the same game
//! (options, `winning`, compounds use them); only the value of a single
//! heap, asked of `sg_of_position`, comes from the engine.

use std::rc::Rc;
use std::sync::atomic::Ordering;

use super::builtins::type_error;
use super::compile::family;
use super::compile::{Env, Runtime};
use super::memo::{int_shape, Key};
use super::value::{Callable, InstanceId, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;
use crate::takebreak::{period, Code, CodeError, Engine, Stop};

/// Heaps computed first by `periodicity`, doubled until a period is proven.
const FIRST_HEAPS: usize = 1024;
/// The default most heaps `periodicity` computes; splits into three heaps
/// cost a square per heap, so fewer of those.
pub const DEFAULT_MAX_HEAPS: usize = 1 << 21;
pub const DEFAULT_MAX_HEAPS_3: usize = 1 << 12;

/// `octal(code)`: the `octal_game` instance of the parsed code.
pub fn octal(env: &mut Env, code: &Value, span: Span) -> Fallible<Value> {
    let Value::Str(text) = code else {
        return Err(type_error(
            span,
            "a take-and-break code as a string, like \"0.137\"",
            code,
        ));
    };
    let code = Code::parse(text).map_err(|e| code_diag(&e, text, span))?;
    let digits = code.packed().into_iter().map(Value::Int).collect();
    family(env, "octal_game", Value::list(digits), span)
}

/// The error of a bad code, pointing inside the string literal when the
/// span is exactly that literal (quotes included, no escapes).
pub fn code_diag(e: &CodeError, text: &str, span: Span) -> Box<Diag> {
    let exact = span.len() == text.len() + 2;
    let at = if exact {
        Span {
            source: span.source,
            start: span.start + 1 + e.at.start as u32,
            end: span.start + 1 + e.at.end as u32,
        }
    } else {
        span
    };
    Diag::new(
        ErrorKind::Invalid,
        at,
        format!("`{text}` is not a take-and-break code: {}", e.message),
    )
    .label("here")
    .help(e.help)
    .boxed()
}

/// The code of an `octal_game` instance, or None for any other game.
fn code_of(env: &Env, instance: InstanceId) -> Option<Code> {
    Code::from_packed(&prelude_ints(env, instance, "octal_game")?)
}

/// The static argument of `instance`, a list of integers, when it is an
/// instance of the prelude's `game`.
fn prelude_ints(env: &Env, instance: InstanceId, game: &str) -> Option<Vec<i64>> {
    let (_, id) = env.rt.prelude.iter().find(|(n, _)| *n == game)?;
    let inst = env.rt.instance(instance);
    let g = &inst.game;
    if g.id != *id {
        return None;
    }
    let items = inst.statics.first()?.items()?;
    items.iter().map(Value::as_int).collect()
}

/// The value of heap `key` when `instance` is an `octal_game`, by the engine.
pub fn heap_value(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<Option<u64>> {
    if key.generic.is_some() || key.shape() != int_shape(1) {
        return Ok(None);
    }
    let n = key.coords()[0];
    if n < 0 {
        return Ok(None);
    }
    let known = env
        .rt
        .takebreak
        .borrow()
        .get(&instance)
        .map(|e| e.values().get(n as usize).copied());
    match known {
        Some(Some(v)) => return Ok(Some(v as u64)),
        Some(None) => {}
        None => {
            let Some(code) = code_of(env, instance) else {
                return Ok(None);
            };
            env.rt
                .takebreak
                .borrow_mut()
                .insert(instance, Engine::new(code));
        }
    }
    compute(env, instance, n as usize + 1, span)?;
    Ok(Some(heap_values(env, instance)[n as usize] as u64))
}

/// The values the engine of `instance` has computed so far. Read in place:
/// a comprehension asks the heaps one by one, and a copy of all of them per
/// heap cost a square.
fn heap_values<'r>(env: &Env<'r>, instance: InstanceId) -> std::cell::Ref<'r, [u16]> {
    let rt: &'r Runtime = env.rt;
    std::cell::Ref::map(rt.takebreak.borrow(), |engines| {
        engines
            .get(&instance)
            .expect("created by the caller")
            .values()
    })
}

/// Extends the engine of `instance` to `len` heaps (with a progress bar
/// and Ctrl-C).
fn compute(env: &mut Env, instance: InstanceId, len: usize, span: Span) -> Fallible<()> {
    let rt = env.rt;
    let name = rt.instance(instance).name.clone();
    if len > rt.limits.max_states {
        return Diag::new(
            ErrorKind::TooManyStates,
            span,
            format!("{len} heaps of {name} are more than the limit of {} values", rt.limits.max_states),
        )
        .label("this needs the values of every smaller heap")
        .help("raise the limit with --max-states N if memory allows (2 bytes a heap); `grundy octal CODE --heaps N --out FILE` streams long runs to a file")
        .err();
    }
    // Two bytes a heap, and as much again while the table grows.
    rt.check_memory(len.saturating_mul(4), span)?;
    let mut engines = rt.takebreak.borrow_mut();
    let engine = engines.get_mut(&instance).expect("created by the caller");
    // Show progress unless a comprehension's loop already does.
    let tracked = rt.progress.total.load(Ordering::Relaxed) == 0 && len > engine.len() + 100_000;
    if tracked {
        rt.progress.total.store(len as u64, Ordering::Relaxed);
    }
    let result = engine.extend_to(len, &mut |done| {
        if tracked {
            rt.progress.done.store(done as u64, Ordering::Relaxed);
        }
        !rt.should_stop()
    });
    if tracked {
        rt.progress.total.store(0, Ordering::Relaxed);
        rt.progress.done.store(0, Ordering::Relaxed);
    }
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Interrupted) => {
            drop(engines);
            rt.check_interrupt(span)?;
            Diag::new(ErrorKind::Interrupted, span, "interrupted").err()
        }
        Err(Stop::TooLarge(n)) => Diag::new(
            ErrorKind::Overflow,
            span,
            format!("heap {n} of {name} has a value above 65534, more than the engine stores"),
        )
        .label("while computing the values of this game")
        .err(),
    }
}

/// `periodicity(G)` or `periodicity(G, max_heaps)`: the period of the heap
/// values of a take-and-break family `G = octal(code)` (or a subtraction
/// game with a finite set), proven when the periodicity theorem applies.
pub fn periodicity(env: &mut Env, args: &[Value], span: Span) -> Fallible<Value> {
    let instance = family_instance(&args[0], span)?;
    let code = if let Some(code) = code_of(env, instance) {
        code
    } else {
        subtraction_code(env, instance).ok_or_else(|| {
            type_error(
                span,
                "a take-and-break family such as octal(\"0.77\") or subtraction({1, 2, 5})",
                &args[0],
            )
        })?
    };
    let max = match args.get(1) {
        None if code.max_heaps() == 3 => DEFAULT_MAX_HEAPS_3,
        None => DEFAULT_MAX_HEAPS,
        Some(Value::Int(m)) if *m >= 1 => *m as usize,
        Some(other) => return Err(type_error(span, "a positive number of heaps", other)),
    };
    let engine_slot = env.rt.takebreak.borrow().contains_key(&instance);
    if !engine_slot {
        env.rt
            .takebreak
            .borrow_mut()
            .insert(instance, Engine::new(code.clone()));
    }
    let mut len = FIRST_HEAPS.min(max);
    loop {
        env.rt.check_interrupt(span)?;
        compute(env, instance, len, span)?;
        let values = &heap_values(env, instance)[..len];
        if let Some(p) = period::proven_period(&code, values) {
            return Ok(Value::Periodicity(Rc::new(p)));
        }
        if len >= max {
            return match period::observed_period(values) {
                Some(p) => Ok(Value::Periodicity(Rc::new(p))),
                None => Diag::new(
                    ErrorKind::Invalid,
                    span,
                    format!("no period shows in the first {len} heaps of {code}"),
                )
                .label("values computed, no period found")
                .help("give more heaps as a second argument: periodicity(G, 10000000)")
                .err(),
            };
        }
        len = (len * 2).min(max);
    }
}

fn family_instance(v: &Value, span: Span) -> Fallible<InstanceId> {
    match v {
        Value::Func(c) => match &**c {
            Callable::Game { instance, .. } => Ok(*instance),
            _ => Err(type_error(span, "a game family such as octal(\"0.77\")", v)),
        },
        _ => Err(type_error(span, "a game family such as octal(\"0.77\")", v)),
    }
}

/// A subtraction game with a finite set S is the code with digit 3 at each
/// k in S (take k, leaving nothing or one heap).
fn subtraction_code(env: &Env, instance: InstanceId) -> Option<Code> {
    let mut packed = vec![0i64];
    for k in prelude_ints(env, instance, "subtraction_game")? {
        let k = usize::try_from(k)
            .ok()
            .filter(|k| (1..=crate::takebreak::code::MAX_DIGITS).contains(k))?;
        if packed.len() <= k {
            packed.resize(k + 1, 0);
        }
        packed[k] = 3;
    }
    Code::from_packed(&packed)
}
