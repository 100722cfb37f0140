//! IR -> closures. Every expression becomes a `Code` closure over the value
//! stack, so evaluation never walks a tree of names. Moves become loops that
//! hand each option to a `Sink`, writing the option's position straight into
//! a reusable key (no allocation per option on the common paths).

use std::collections::HashSet;
use std::rc::Rc;

use super::builtins::{self, expect_bool, expect_int, type_error, Builtin};
use super::memo::{Key, Shape, Tag, MAX_COORDS};
use super::ops;
use super::query;
use super::runtime::Env;
use super::value::{Callable, Game, InstanceId, Position, Table, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;
use smallvec::SmallVec;

pub type Code = Box<dyn Fn(&mut Env) -> Fallible<Value>>;
/// Runs one move rule, giving every option it yields to the sink.
pub type MoveCode = Box<dyn Fn(&mut Env, &mut dyn Sink) -> Fallible<()>>;
/// Writes one argument of a position into a key; false when the value does
/// not flatten (the caller then falls back to values).
type Writer = Box<dyn Fn(&mut Env, &mut Key) -> Fallible<bool>>;
/// Integer-only code; `None` means "not the simple case".
type IntCode = Box<dyn Fn(&Env) -> Option<i64>>;
/// Boolean code over integers; `None` means "not the simple case".
type BoolCode = Box<dyn Fn(&Env) -> Option<bool>>;

/// An operand of integer code.
enum Operand {
    Local(Slot),
    Const(i64),
    Code(IntCode),
}

#[inline]
fn int_at(env: &Env, slot: Slot) -> Option<i64> {
    match env.local(slot) {
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

/// Integer code for `f(l, r)`, specialised on the operands' forms.
fn shaped(f: impl Fn(i64, i64) -> Option<i64> + 'static, l: Operand, r: Operand) -> IntCode {
    use Operand::*;
    match (l, r) {
        (Local(a), Local(b)) => Box::new(move |env| f(int_at(env, a)?, int_at(env, b)?)),
        (Local(a), Const(c)) => Box::new(move |env| f(int_at(env, a)?, c)),
        (Const(c), Local(b)) => Box::new(move |env| f(c, int_at(env, b)?)),
        (Code(x), Const(c)) => Box::new(move |env| f(x(env)?, c)),
        (Const(c), Code(y)) => Box::new(move |env| f(c, y(env)?)),
        (Code(x), Local(b)) => Box::new(move |env| f(x(env)?, int_at(env, b)?)),
        (Local(a), Code(y)) => Box::new(move |env| f(int_at(env, a)?, y(env)?)),
        (Code(x), Code(y)) => Box::new(move |env| f(x(env)?, y(env)?)),
        (Const(a), Const(b)) => {
            let v = f(a, b);
            Box::new(move |_| v)
        }
    }
}

/// How one argument of a move's resulting position is written into its key.
enum ArgWriter {
    Local(Slot),
    Int(IntCode),
    Other(Writer),
}

impl ArgWriter {
    #[inline]
    fn write(&self, env: &mut Env, key: &mut Key) -> Fallible<bool> {
        Ok(match self {
            ArgWriter::Local(slot) => match env.local(*slot) {
                Value::Int(n) => key.push_int(*n),
                v => key.push_value(v),
            },
            ArgWriter::Int(code) => match code(env) {
                Some(n) => key.push_int(n),
                None => false,
            },
            ArgWriter::Other(w) => w(env, key)?,
        })
    }
}

/// Where a move leads.
pub enum Target<'a> {
    Zero,
    Position(InstanceId, &'a Key),
    Game(&'a Game),
}

/// Receives the options of a position, one at a time. The bindings of the
/// move are in the current frame of `env` while `option` runs.
pub trait Sink {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()>;

    /// A run of options `instance(base + coef * k)` (all integer arguments)
    /// for `k` in `lo..hi`, with `k` bound in `slot`. The SG search reads
    /// such runs with a stride through the memo; this default goes one by one.
    /// A batch of options with known keys; the default goes one by one.
    fn batch(&mut self, env: &mut Env, batch: &OptionBatch<'_>) -> Fallible<()> {
        let mut key = Key::default();
        for (j, &k) in batch.ks.iter().enumerate() {
            env.set_local_int(batch.slot, k);
            batch.key_at(j, &mut key);
            self.option(env, Target::Position(batch.instance, &key))?;
        }
        Ok(())
    }

    fn affine(&mut self, env: &mut Env, run: &AffineRun<'_>) -> Fallible<()> {
        let mut key = Key::default();
        for k in run.lo..run.hi {
            env.set_local_int(run.slot, k);
            run.key_at(k, &mut key);
            self.option(env, Target::Position(run.instance, &key))?;
        }
        Ok(())
    }
}

/// Options `instance(bases + coefs * k)` for `k` in `lo..hi`, keys of
/// `shape`; every coordinate is known to fit in 64 bits over the run.
pub struct AffineRun<'a> {
    pub instance: InstanceId,
    pub slot: Slot,
    pub lo: i64,
    pub hi: i64,
    pub shape: Shape,
    pub n_args: u8,
    pub bases: &'a [i64],
    pub coefs: &'a [i64],
}

impl AffineRun<'_> {
    /// The key of the option for `k`.
    pub fn key_at(&self, k: i64, key: &mut Key) {
        key.set_raw(
            self.shape,
            self.n_args,
            self.bases.iter().zip(self.coefs).map(|(b, c)| b + c * k),
        );
    }
}

/// How one argument of a move's result depends on the innermost binding.
enum ArgForm {
    /// `base + coef * k`.
    Affine(IntCode, i64),
    /// Any other integer code: evaluated for every `k`.
    PerOption(IntCode),
    /// `sorted(update(xs, i, k))`.
    SortedUpdate { list: Slot, index: IntCode },
}

/// The coordinates of a move's result for one setting of the outer
/// bindings: affine in `k`, except one sorted list in which `k` takes the
/// place `slot` (the list's other items are `rest`, ascending).
struct Template<'f> {
    /// Coordinates computed by code for every option: (index, code).
    per_option: SmallVec<[(usize, &'f IntCode); 4]>,
    bases: SmallVec<[i64; MAX_COORDS]>,
    coefs: SmallVec<[i64; MAX_COORDS]>,
    shape: Shape,
    n_args: u8,
    /// Where the sorted list starts in the coordinates, and its other items.
    list: Option<(usize, SmallVec<[i64; MAX_COORDS]>)>,
}

impl<'f> Template<'f> {
    fn build(env: &Env, forms: &'f [ArgForm]) -> Option<Template<'f>> {
        let mut key = Key::default();
        let (mut bases, mut coefs) = (SmallVec::new(), SmallVec::new());
        let mut list = None;
        let mut per_option = SmallVec::new();
        for f in forms {
            match f {
                ArgForm::PerOption(code) => {
                    per_option.push((bases.len(), code));
                    bases.push(0);
                    coefs.push(0);
                    if !key.push_int(0) {
                        return None;
                    }
                }
                ArgForm::Affine(base, coef) => {
                    bases.push(base(env)?);
                    coefs.push(*coef);
                    if !key.push_int(0) {
                        return None;
                    }
                }
                ArgForm::SortedUpdate { list: slot, index } => {
                    let Value::List(xs) = env.local(*slot) else {
                        return None;
                    };
                    let i = index(env)?;
                    if i < 0 || i as usize >= xs.len() {
                        return None;
                    }
                    let mut rest: SmallVec<[i64; MAX_COORDS]> = SmallVec::new();
                    for (j, x) in xs.iter().enumerate() {
                        match x {
                            Value::Int(n) if j != i as usize => rest.push(*n),
                            Value::Int(_) => {}
                            _ => return None,
                        }
                    }
                    rest.sort_unstable();
                    list = Some((bases.len(), rest));
                    for _ in 0..xs.len() {
                        bases.push(0);
                        coefs.push(0);
                        if !key.push_coord(0) {
                            return None;
                        }
                    }
                    if !key.push_tag(Tag::List(xs.len() as u32)) {
                        return None;
                    }
                }
            }
        }
        Some(Template {
            per_option,
            bases,
            coefs,
            shape: key.shape(),
            n_args: forms.len() as u8,
            list,
        })
    }

    /// Hands the options for `k` in `a..b` to the sink as affine runs; `k`
    /// equal to an item of the sorted list goes the generic way.
    fn emit(
        mut self,
        env: &mut Env,
        sink: &mut dyn Sink,
        slot: Slot,
        a: i64,
        b: i64,
        generic: &MoveCode,
    ) -> Fallible<()> {
        let Some((start, rest)) = self.list.take() else {
            return self.run(env, sink, slot, a, b, generic);
        };
        for j in 0..=rest.len() {
            // Between rest[j - 1] and rest[j], k is item j of the list.
            let lo = if j == 0 {
                a
            } else {
                a.max(rest[j - 1].saturating_add(1))
            };
            let hi = if j == rest.len() { b } else { b.min(rest[j]) };
            if lo < hi {
                for (p, x) in (start..).zip(rest.iter().take(j).chain([&0]).chain(&rest[j..])) {
                    self.bases[p] = *x;
                    self.coefs[p] = 0;
                }
                self.coefs[start + j] = 1;
                self.run(env, sink, slot, lo, hi, generic)?;
            }
            if j < rest.len() && (a..b).contains(&rest[j]) && (j == 0 || rest[j] != rest[j - 1]) {
                env.set_local_int(slot, rest[j]);
                generic(env, sink)?;
            }
        }
        Ok(())
    }

    fn run(
        &self,
        env: &mut Env,
        sink: &mut dyn Sink,
        slot: Slot,
        a: i64,
        b: i64,
        generic: &MoveCode,
    ) -> Fallible<()> {
        // Every coordinate is monotone in k: checking both ends rules out
        // overflow inside the run.
        let fits = self.bases.iter().zip(&self.coefs).all(|(&base, &coef)| {
            [a, b - 1].iter().all(|&k| {
                coef.checked_mul(k)
                    .and_then(|x| x.checked_add(base))
                    .is_some()
            })
        });
        if !fits {
            for k in a..b {
                env.set_local_int(slot, k);
                generic(env, sink)?;
            }
            return Ok(());
        }
        if !self.per_option.is_empty() {
            return self.batch(env, sink, slot, a, b, generic);
        }
        let run = AffineRun {
            instance: env.instance,
            slot,
            lo: a,
            hi: b,
            shape: self.shape,
            n_args: self.n_args,
            bases: &self.bases,
            coefs: &self.coefs,
        };
        sink.affine(env, &run)
    }

    /// Computes every option's coordinates first, then hands them over in
    /// one batch; an option whose code needs the value path goes alone.
    fn batch(
        &self,
        env: &mut Env,
        sink: &mut dyn Sink,
        slot: Slot,
        a: i64,
        b: i64,
        generic: &MoveCode,
    ) -> Fallible<()> {
        let width = self.bases.len();
        let mut coords = std::mem::take(&mut env.batch_buf);
        coords.clear();
        let mut ks = Vec::with_capacity((b - a) as usize);
        'options: for k in a..b {
            env.set_local_int(slot, k);
            let start = coords.len();
            coords.extend(
                self.bases
                    .iter()
                    .zip(&self.coefs)
                    .map(|(&base, &coef)| base + coef * k),
            );
            for &(at, code) in &self.per_option {
                match code(env) {
                    Some(v) => coords[start + at] = v,
                    None => {
                        coords.truncate(start);
                        generic(env, sink)?;
                        continue 'options;
                    }
                }
            }
            ks.push(k);
        }
        let batch = OptionBatch {
            instance: env.instance,
            slot,
            shape: self.shape,
            n_args: self.n_args,
            width,
            ks: &ks,
            coords: &coords,
        };
        let result = sink.batch(env, &batch);
        env.batch_buf = coords;
        result
    }
}

/// Options of one move whose keys are all known: `coords` holds `width`
/// coordinates per option, the option for `ks[j]` at `j * width`.
pub struct OptionBatch<'a> {
    pub instance: InstanceId,
    pub slot: Slot,
    pub shape: Shape,
    pub n_args: u8,
    pub width: usize,
    pub ks: &'a [i64],
    pub coords: &'a [i64],
}

impl OptionBatch<'_> {
    pub fn key_at(&self, j: usize, key: &mut Key) {
        let c = &self.coords[j * self.width..(j + 1) * self.width];
        key.set_raw(self.shape, self.n_args, c.iter().copied());
    }
}

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
    pub where_span: Option<Span>,
    pub body: CompiledBody,
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

enum IterCode {
    Range {
        start: Code,
        end: Code,
        inclusive: bool,
    },
    Values(Code),
}

enum CClause {
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
            where_span: g.where_clause.as_ref().map(|w| w.span),
            body,
            span: g.span,
        }
    }

    fn compile_move(&self, game: GameId, g: &IrGame, m: &IrMove) -> CompiledMove {
        let mut names = Vec::new();
        for b in &m.bindings {
            b.pattern.names(&mut names);
        }
        if let Some(run) = self.affine_move(game, g.n_statics, m) {
            return CompiledMove {
                label: m.label.clone(),
                names,
                run,
            };
        }
        let clauses: Vec<CClause> = m.bindings.iter().map(|b| self.clause_for(b)).collect();
        let guard = m
            .guard
            .as_ref()
            .map(|e| (self.bool_expr(e), self.expr(e), e.span));
        let emit = self.result(game, g.n_statics, &m.result);
        let run: MoveCode = Box::new(move |env, sink| {
            run_clauses(env, &clauses, &mut |env| {
                if let Some((fast, guard, span)) = &guard {
                    // The integer form decides when it can; the value form
                    // otherwise (and reports any error).
                    let holds = match fast.as_ref().and_then(|f| f(env)) {
                        Some(b) => b,
                        None => expect_bool(&guard(env)?, *span)?,
                    };
                    if !holds {
                        return Ok(true);
                    }
                }
                emit(env, sink)?;
                Ok(true)
            })?;
            Ok(())
        });
        CompiledMove {
            label: m.label.clone(),
            names,
            run,
        }
    }

    /// A move `label(..., k in lo..hi) -> G(args)` without a guard, whose
    /// arguments are all `base + coef * k` with integer bases computed from
    /// outer names and constant coefficients: the innermost loop then runs
    /// without evaluating any code per option.
    fn affine_move(&self, game: GameId, n_statics: usize, m: &IrMove) -> Option<MoveCode> {
        if m.guard.is_some() {
            return None;
        }
        let (last, outer) = m.bindings.split_last()?;
        let IrPattern::Slot { slot: k, .. } = last.pattern else {
            return None;
        };
        let IrKind::Range {
            start,
            end,
            inclusive,
        } = &last.iterable.kind
        else {
            return None;
        };
        let IrKind::Position {
            game: target,
            statics,
            args,
        } = &m.result.kind
        else {
            return None;
        };
        let same_instance = *target == game
            && statics.len() == n_statics
            && statics
                .iter()
                .enumerate()
                .all(|(i, s)| matches!(s.kind, IrKind::Local(l) if l as usize == i));
        if !same_instance || self.aliases.contains(target) || args.is_empty() || args.len() > 8 {
            return None;
        }
        let mut forms = Vec::new();
        for a in args {
            forms.push(self.arg_form(a, k)?);
        }
        let sorted_updates = forms
            .iter()
            .filter(|f| matches!(f, ArgForm::SortedUpdate { .. }))
            .count();
        if sorted_updates > 1 {
            return None;
        }
        let lo = self.int_expr(start)?;
        let hi = self.int_expr(end)?;
        let inclusive = *inclusive;
        let clauses: Vec<CClause> = outer.iter().map(|b| self.clause_for(b)).collect();
        // The generic form, for when a bound or base is not a plain integer.
        let fallback_clauses: Vec<CClause> =
            m.bindings.iter().map(|b| self.clause_for(b)).collect();
        let fallback = self.result(game, n_statics, &m.result);
        Some(Box::new(move |env, sink| {
            run_clauses(env, &clauses, &mut |env| {
                let bounds = lo(env).zip(hi(env)).and_then(|(a, b)| {
                    let b = if inclusive { b.checked_add(1)? } else { b };
                    Some((a, b))
                });
                let Some((a, b)) = bounds else {
                    return generic_innermost(env, &fallback_clauses, &fallback, sink);
                };
                if a >= b {
                    return Ok(true);
                }
                match Template::build(env, &forms) {
                    Some(t) => {
                        t.emit(env, sink, k, a, b, &fallback)?;
                        Ok(true)
                    }
                    None => generic_innermost(env, &fallback_clauses, &fallback, sink),
                }
            })?;
            Ok(())
        }))
    }

    /// How an argument depends on the innermost binding `k`: affine, or
    /// `sorted(update(xs, i, k))`, which is affine between the other items.
    fn arg_form(&self, e: &IrExpr, k: Slot) -> Option<ArgForm> {
        if let IrKind::CallBuiltin {
            builtin: Builtin::Sorted,
            args,
        } = &e.kind
        {
            if let IrKind::CallBuiltin {
                builtin: Builtin::Update,
                args: u,
            } = &args[0].kind
            {
                if let (IrKind::Local(list), IrKind::Local(value)) = (&u[0].kind, &u[2].kind) {
                    if *value == k && *list != k && !mentions(&u[1], k) {
                        return Some(ArgForm::SortedUpdate {
                            list: *list,
                            index: self.int_expr(&u[1])?,
                        });
                    }
                }
            }
        }
        match self.affine_in(e, k) {
            Some((base, coef)) => Some(ArgForm::Affine(base, coef)),
            None => Some(ArgForm::PerOption(self.int_expr(e)?)),
        }
    }

    /// `e` as `base + coef * k`: an integer base not mentioning `k` and a
    /// constant coefficient.
    fn affine_in(&self, e: &IrExpr, k: Slot) -> Option<(IntCode, i64)> {
        if !mentions(e, k) {
            return Some((self.int_expr(e)?, 0));
        }
        match &e.kind {
            IrKind::Local(s) if *s == k => Some((Box::new(|_| Some(0)), 1)),
            IrKind::Binary { op, lhs, rhs, .. } => match op {
                BinaryOp::Add | BinaryOp::Sub => {
                    let (lb, lc) = self.affine_in(lhs, k)?;
                    let (rb, rc) = self.affine_in(rhs, k)?;
                    let sub = *op == BinaryOp::Sub;
                    let coef = if sub {
                        lc.checked_sub(rc)?
                    } else {
                        lc.checked_add(rc)?
                    };
                    Some((
                        Box::new(move |env| {
                            let (x, y) = (lb(env)?, rb(env)?);
                            if sub {
                                x.checked_sub(y)
                            } else {
                                x.checked_add(y)
                            }
                        }),
                        coef,
                    ))
                }
                BinaryOp::Mul => {
                    let (c, other) = match (&lhs.kind, &rhs.kind) {
                        (IrKind::Const(Value::Int(c)), _) => (*c, rhs),
                        (_, IrKind::Const(Value::Int(c))) => (*c, lhs),
                        _ => return None,
                    };
                    let (b, coef) = self.affine_in(other, k)?;
                    Some((
                        Box::new(move |env| b(env)?.checked_mul(c)),
                        coef.checked_mul(c)?,
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn clause_for(&self, b: &IrBinding) -> CClause {
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

    fn clauses(&self, comp: &IrComp) -> Vec<CClause> {
        comp.clauses
            .iter()
            .map(|c| match c {
                IrClause::For(b) => self.clause_for(b),
                IrClause::If(e) => CClause::If(self.expr(e), e.span),
            })
            .collect()
    }

    /// The result of a move: positions of keyed games are written straight
    /// into a key; anything else is evaluated as a game value.
    fn result(&self, game: GameId, n_statics: usize, e: &IrExpr) -> MoveCode {
        match &e.kind {
            IrKind::Const(Value::Int(0)) => Box::new(|env, sink| sink.option(env, Target::Zero)),
            IrKind::Position {
                game: target,
                statics,
                args,
            } if !self.aliases.contains(target) => {
                let same_instance = *target == game
                    && statics.len() == n_statics
                    && statics
                        .iter()
                        .enumerate()
                        .all(|(i, s)| matches!(s.kind, IrKind::Local(l) if l as usize == i));
                let target = *target;
                let static_codes: Vec<Code> = statics.iter().map(|s| self.expr(s)).collect();
                let writers: Vec<ArgWriter> = args.iter().map(|a| self.arg_writer(a)).collect();
                let values: Vec<Code> = args.iter().map(|a| self.expr(a)).collect();
                Box::new(move |env, sink| {
                    let instance = if same_instance {
                        env.instance
                    } else {
                        let statics = eval_all(env, &static_codes)?;
                        env.rt.user_instance(target, Rc::from(statics))
                    };
                    let mut key = env.keys.pop().unwrap_or_default();
                    key.clear();
                    let mut flat = true;
                    for w in &writers {
                        if !w.write(env, &mut key)? {
                            flat = false;
                            break;
                        }
                    }
                    if !flat {
                        let args = eval_all(env, &values)?;
                        key.set_args(&args);
                    }
                    let r = sink.option(env, Target::Position(instance, &key));
                    env.keys.push(key);
                    r
                })
            }
            _ => {
                let code = self.expr(e);
                let span = e.span;
                Box::new(move |env, sink| {
                    let v = match code(env) {
                        Ok(v) => v,
                        // A result that is not a position is not an option.
                        Err(e) if e.kind == ErrorKind::WhereViolated && within(e.span, span) => {
                            return Ok(())
                        }
                        Err(e) => return Err(e),
                    };
                    let g = ops::as_game(&v, span)?;
                    sink.option(env, Target::Game(&g))
                })
            }
        }
    }

    /// The cheapest writer for one argument: locals and integer code are
    /// written without a call through a closure.
    fn arg_writer(&self, e: &IrExpr) -> ArgWriter {
        match &e.kind {
            IrKind::Local(slot) => ArgWriter::Local(*slot),
            _ => match self.int_expr(e) {
                Some(code) => ArgWriter::Int(code),
                None => ArgWriter::Other(self.writer(e)),
            },
        }
    }

    /// A writer for one position argument, with allocation-free forms for
    /// locals, `update(xs, i, v)` and `sorted(...)`.
    fn writer(&self, e: &IrExpr) -> Writer {
        match &e.kind {
            IrKind::Local(slot) => {
                let slot = *slot;
                Box::new(move |env, key| Ok(key.push_value(env.local(slot))))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Update,
                args,
            } if matches!(args[0].kind, IrKind::Local(_)) => {
                let IrKind::Local(slot) = args[0].kind else {
                    unreachable!()
                };
                let int_or_value = |e: &IrExpr| -> IntCode {
                    match self.int_expr(e) {
                        Some(code) => code,
                        None => Box::new(|_| None),
                    }
                };
                let (index, value) = (int_or_value(&args[1]), int_or_value(&args[2]));
                Box::new(move |env, key| {
                    let (Some(i), Some(v)) = (index(env), value(env)) else {
                        return Ok(false);
                    };
                    let Value::List(xs) = env.local(slot) else {
                        return Ok(false);
                    };
                    if i < 0 || i as usize >= xs.len() {
                        return Ok(false); // the value path reports the error
                    }
                    for (j, x) in xs.iter().enumerate() {
                        let c = match x {
                            _ if j == i as usize => v,
                            Value::Int(n) => *n,
                            _ => return Ok(false),
                        };
                        if !key.push_coord(c) {
                            return Ok(false);
                        }
                    }
                    Ok(key.push_tag(Tag::List(xs.len() as u32)))
                })
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Sorted,
                args,
            } => {
                let inner = self.writer(&args[0]);
                Box::new(move |env, key| {
                    let start = key.len();
                    if !inner(env, key)? {
                        return Ok(false);
                    }
                    let n = match key.last_tag() {
                        Some(Tag::List(n) | Tag::Set(n) | Tag::Tuple(n)) => n,
                        _ => return Ok(false),
                    };
                    key.coords_from_mut(start).sort_unstable();
                    key.set_last_tag(Tag::List(n));
                    Ok(true)
                })
            }
            _ => {
                if let Some(int) = self.int_expr(e) {
                    return Box::new(move |env, key| match int(env) {
                        Some(n) => Ok(key.push_int(n)),
                        None => Ok(false),
                    });
                }
                let code = self.expr(e);
                Box::new(move |env, key| {
                    let v = code(env)?;
                    Ok(key.push_value(&v))
                })
            }
        }
    }

    /// Integer arithmetic on locals and constants without building values.
    /// `None` at run time (not an integer, overflow, division by zero) sends
    /// the caller to the value path, which reports the error properly.
    fn int_expr(&self, e: &IrExpr) -> Option<IntCode> {
        match &e.kind {
            IrKind::Const(Value::Int(n)) => {
                let n = *n;
                Some(Box::new(move |_| Some(n)))
            }
            IrKind::Local(slot) => {
                let slot = *slot;
                Some(Box::new(move |env| match env.local(slot) {
                    Value::Int(n) => Some(*n),
                    _ => None,
                }))
            }
            IrKind::Binary { op, lhs, rhs, .. }
                if matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::Div
                        | BinaryOp::Mod
                        | BinaryOp::BitOr
                        | BinaryOp::Xor
                        | BinaryOp::BitAnd
                ) =>
            {
                let operand = |e: &IrExpr| -> Option<Operand> {
                    Some(match e.kind {
                        IrKind::Local(s) => Operand::Local(s),
                        IrKind::Const(Value::Int(c)) => Operand::Const(c),
                        _ => Operand::Code(self.int_expr(e)?),
                    })
                };
                let (l, r) = (operand(lhs)?, operand(rhs)?);
                // One closure per operator, so the arithmetic is inlined.
                Some(match op {
                    BinaryOp::Add => shaped(|a, b| a.checked_add(b), l, r),
                    BinaryOp::Sub => shaped(|a, b| a.checked_sub(b), l, r),
                    BinaryOp::Mul => shaped(|a, b| a.checked_mul(b), l, r),
                    BinaryOp::BitOr => shaped(|a, b| Some(a | b), l, r),
                    BinaryOp::Xor => shaped(|a, b| Some(a ^ b), l, r),
                    BinaryOp::BitAnd => shaped(|a, b| Some(a & b), l, r),
                    &op => shaped(
                        move |a, b| {
                            if b == 0 {
                                return None;
                            }
                            ops::int_op(op, a, b)
                        },
                        l,
                        r,
                    ),
                })
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Min | Builtin::Max),
                args,
            } if args.len() == 2 => {
                let (l, r) = (self.int_expr(&args[0])?, self.int_expr(&args[1])?);
                let max = *b == Builtin::Max;
                Some(Box::new(move |env| {
                    let (a, b) = (l(env)?, r(env)?);
                    Some(if max { a.max(b) } else { a.min(b) })
                }))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Abs,
                args,
            } => {
                let x = self.int_expr(&args[0])?;
                Some(Box::new(move |env| x(env)?.checked_abs()))
            }
            IrKind::Index { target, index } if matches!(target.kind, IrKind::Local(_)) => {
                let IrKind::Local(slot) = target.kind else {
                    unreachable!()
                };
                let index = self.int_expr(index)?;
                Some(Box::new(move |env| {
                    let i = usize::try_from(index(env)?).ok()?;
                    match env.local(slot) {
                        Value::List(xs) | Value::Tuple(xs) => match xs.get(i)? {
                            Value::Int(n) => Some(*n),
                            _ => None,
                        },
                        _ => None,
                    }
                }))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Len,
                args,
            } if matches!(args[0].kind, IrKind::Local(_)) => {
                let IrKind::Local(slot) = args[0].kind else {
                    unreachable!()
                };
                Some(Box::new(move |env| match env.local(slot) {
                    Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => Some(xs.len() as i64),
                    _ => None,
                }))
            }
            IrKind::CallFn { func, args } if self.inline_depth.get() < 8 => {
                // A small integer function is inlined: its body with the
                // arguments put in for the parameters.
                let f = self.fn_ir.get(*func as usize)?.as_ref()?;
                let body = substitute(&f.body, args)?;
                self.inline_depth.set(self.inline_depth.get() + 1);
                let code = self.int_expr(&body);
                self.inline_depth.set(self.inline_depth.get() - 1);
                code
            }
            _ => None,
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
                let clauses = self.clauses(comp);
                let body = self.expr(&comp.body);
                let set = *set;
                Box::new(move |env| {
                    let mut out = Vec::new();
                    run_comprehension(env, &clauses, &mut |env| {
                        out.push(body(env)?);
                        Ok(true)
                    })?;
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
                Box::new(move |env| {
                    if expect_bool(&c(env)?, cspan)? {
                        t(env)
                    } else {
                        o(env)
                    }
                })
            }
            IrKind::CallFn { func, args } => {
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
            IrKind::CallBuiltin { builtin, args } => {
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

    /// Comparisons of integer code joined by `and`, `or`, `not`, without
    /// building values; `None` at run time sends the caller to the value path.
    fn bool_expr(&self, e: &IrExpr) -> Option<BoolCode> {
        match &e.kind {
            IrKind::Const(Value::Bool(b)) => {
                let b = *b;
                Some(Box::new(move |_| Some(b)))
            }
            IrKind::Unary(UnaryOp::Not, x) => {
                let x = self.bool_expr(x)?;
                Some(Box::new(move |env| x(env).map(|b| !b)))
            }
            IrKind::Binary { op, lhs, rhs, .. } => match op {
                BinaryOp::And | BinaryOp::Or => {
                    let (l, r) = (self.bool_expr(lhs)?, self.bool_expr(rhs)?);
                    let want = *op == BinaryOp::Or;
                    Some(Box::new(move |env| {
                        let a = l(env)?;
                        if a == want {
                            return Some(want);
                        }
                        r(env)
                    }))
                }
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => {
                    let (l, r) = (self.int_expr(lhs)?, self.int_expr(rhs)?);
                    let op = *op;
                    Some(Box::new(move |env| {
                        let (a, b) = (l(env)?, r(env)?);
                        Some(match op {
                            BinaryOp::Eq => a == b,
                            BinaryOp::Ne => a != b,
                            BinaryOp::Lt => a < b,
                            BinaryOp::Le => a <= b,
                            BinaryOp::Gt => a > b,
                            _ => a >= b,
                        })
                    }))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `G(args)` for a game without static arguments that is not an alias.
    fn keyed_position<'e>(&self, e: &'e IrExpr) -> Option<(GameId, &'e [IrExpr])> {
        match &e.kind {
            IrKind::Position {
                game,
                statics,
                args,
            } if statics.is_empty() && !self.aliases.contains(game) => Some((*game, args)),
            _ => None,
        }
    }

    fn exprs(&self, es: &[IrExpr]) -> Vec<Code> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn binary(&self, op: BinaryOp, lhs: &IrExpr, rhs: &IrExpr, span: Span) -> Code {
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

    fn aggregate(&self, b: Builtin, comp: &IrComp, span: Span) -> Code {
        let clauses = self.clauses(comp);
        let body = self.expr(&comp.body);
        let body_span = comp.body.span;
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
            Builtin::Sum => Box::new(move |env| {
                let mut total = 0i64;
                run_comprehension(env, &clauses, &mut |env| {
                    let v = expect_int(&body(env)?, body_span)?;
                    total = total
                        .checked_add(v)
                        .ok_or_else(|| builtins::overflow(span, "sum"))?;
                    Ok(true)
                })?;
                Ok(Value::Int(total))
            }),
            Builtin::Histogram => Box::new(move |env| {
                let mut h: Vec<i64> = Vec::new();
                run_comprehension(env, &clauses, &mut |env| {
                    let v = body(env)?;
                    let n = expect_int(&v, body_span)?;
                    if !(0..1 << 24).contains(&n) {
                        return builtins::histogram(&[v], body_span).map(|_| true);
                    }
                    if h.len() <= n as usize {
                        h.resize(n as usize + 1, 0);
                    }
                    h[n as usize] += 1;
                    Ok(true)
                })?;
                Ok(Value::list(h.into_iter().map(Value::Int).collect()))
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
            _ => {
                // list, set, min, max, period: collect, then apply the built-in.
                Box::new(move |env| {
                    let mut out = Vec::new();
                    run_comprehension(env, &clauses, &mut |env| {
                        out.push(body(env)?);
                        Ok(true)
                    })?;
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

pub fn call_user(
    env: &mut Env,
    func: FnId,
    args: impl IntoIterator<Item = Value>,
    span: Span,
) -> Fallible<Value> {
    let f = env.rt.func(func).clone();
    env.with_frame(args, f.n_slots, span, |env| (f.body)(env))
}

fn call_builtin(env: &mut Env, b: Builtin, args: &[Value], span: Span) -> Fallible<Value> {
    match b {
        Builtin::Sg => Ok(Value::Int(query::sg_value(env, &args[0], span)? as i64)),
        Builtin::Outcome => query::outcome(env, &args[0], span),
        Builtin::Options => query::options(env, &args[0], span, false),
        Builtin::Winning => query::options(env, &args[0], span, true),
        Builtin::Pass
        | Builtin::Misere
        | Builtin::Conjunctive
        | Builtin::Selective
        | Builtin::Hypergraph => super::compound::make(b, args, span),
        Builtin::Subtraction => family(env, "subtraction_game", args[0].clone(), span),
        Builtin::Octal => {
            let digits = octal_digits(&args[0], span)?;
            family(env, "octal_game", digits, span)
        }
        _ => builtins::apply_pure(b, args, span),
    }
}

fn call_value(env: &mut Env, f: &Value, mut args: Vec<Value>, span: Span) -> Fallible<Value> {
    let Value::Func(c) = f else {
        return Err(type_error(span, "a function or game to call", f));
    };
    let arity_error = |expected: usize, found: usize| {
        Diag::new(
            ErrorKind::Arity,
            span,
            format!("`{c}` takes {expected} arguments, but {found} were given"),
        )
        .label("wrong number of arguments")
        .boxed()
    };
    match &**c {
        Callable::User { id, statics, .. } => {
            let f = env.rt.func(*id).clone();
            let mut all: Vec<Value> = statics.to_vec();
            all.append(&mut args);
            if all.len() != f.n_args {
                return Err(arity_error(
                    f.n_args - statics.len(),
                    all.len() - statics.len(),
                ));
            }
            call_user(env, *id, all, span)
        }
        Callable::Builtin { id, .. } => {
            let b = Builtin::ALL[*id as usize];
            let (lo, hi) = b.arity();
            if args.len() < lo || args.len() > hi {
                return Err(arity_error(lo, args.len()));
            }
            call_builtin(env, b, &args, span)
        }
        Callable::Game { instance, .. } => {
            let inst = env.rt.instance(*instance);
            let super::runtime::Rules::User(g) = &inst.rules;
            if args.len() != g.n_params {
                return Err(arity_error(g.n_params, args.len()));
            }
            make_position(env, g.id, inst.statics.to_vec(), args, span)
        }
    }
}

fn game_callable(env: &mut Env, game: GameId, statics: Vec<Value>) -> Fallible<Value> {
    let instance = env.rt.user_instance(game, Rc::from(statics));
    let name = env.rt.instance(instance).name.clone();
    Ok(Value::Func(Rc::new(Callable::Game { instance, name })))
}

/// `Game[statics](args)`: checks the `where` condition (an error if it
/// fails) and builds the position, or expands an alias.
pub fn make_position(
    env: &mut Env,
    game: GameId,
    statics: Vec<Value>,
    args: Vec<Value>,
    span: Span,
) -> Fallible<Value> {
    let g = env.rt.game(game).clone();
    if let CompiledBody::Alias(body) = &g.body {
        let frame: Vec<Value> = statics.into_iter().chain(args.iter().cloned()).collect();
        let name = g.name.clone();
        return env.with_frame(frame, g.n_slots, span, |env| {
            check_where_here(env, &g, &name, &args, span)?;
            let v = body(env)?;
            ops::as_game(&v, span).map(Value::Game)
        });
    }
    let instance = env.rt.user_instance(game, Rc::from(statics));
    let inst = env.rt.instance(instance);
    let frame: Vec<Value> = inst.statics.iter().chain(args.iter()).cloned().collect();
    env.with_frame(frame, g.n_slots, span, |env| {
        check_where_here(env, &g, &inst.name, &args, span)
    })?;
    Ok(Value::game(Game::Position(Position {
        instance,
        name: inst.name.clone(),
        args: Rc::from(args),
    })))
}

/// Evaluates the `where` of `g` in the current frame (set up for `args`).
/// `name` is the instance as written, e.g. `Sub[{1, 2}]`.
fn check_where_here(
    env: &mut Env,
    g: &CompiledGame,
    name: &str,
    args: &[Value],
    span: Span,
) -> Fallible<()> {
    let Some(cond) = &g.where_clause else {
        return Ok(());
    };
    let wspan = g.where_span.unwrap_or(g.span);
    if expect_bool(&cond(env)?, wspan)? {
        return Ok(());
    }
    let shown: Vec<String> = args.iter().map(|a| format!("{a:#}")).collect();
    let mut d = Diag::new(
        ErrorKind::WhereViolated,
        span,
        format!(
            "{name}({}) is not a position of {name}: its `where` condition is false",
            shown.join(", "),
        ),
    )
    .label("this position violates the condition");
    if wspan.source == span.source {
        d = d.note(wspan, "the condition");
    }
    d.help(
        "as a move result such a position is simply not an option; queried directly it is an error",
    )
    .err()
}

/// Whether the position `key` of `instance` satisfies its `where`.
pub fn satisfies_where(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<bool> {
    let inst = env.rt.instance(instance);
    let super::runtime::Rules::User(g) = &inst.rules;
    let Some(cond) = &g.where_clause else {
        return Ok(true);
    };
    let args = key.to_args();
    let frame: Vec<Value> = inst.statics.iter().chain(args.iter()).cloned().collect();
    let wspan = g.where_span.unwrap_or(span);
    env.with_frame(frame, g.n_slots, span, |env| {
        expect_bool(&cond(env)?, wspan)
    })
}

fn field(v: &Value, name: &str, span: Span) -> Fallible<Value> {
    let unknown = |fields: &str| {
        Diag::new(
            ErrorKind::UnknownName,
            span,
            format!("{} has no field `{name}`", v.kind()),
        )
        .label("unknown field")
        .help(format!("the fields are {fields}"))
        .boxed()
    };
    match v {
        Value::Move(m) => Ok(match name {
            "label" => Value::Str(m.label.clone()),
            "args" => Value::tuple(m.bindings.iter().map(|(_, v)| v.clone()).collect()),
            "to" => Value::game(m.to.clone()),
            "sg" => Value::Int(m.sg as i64),
            "component" => Value::Int(m.component as i64),
            _ => return Err(unknown("label, args, to, sg, component")),
        }),
        Value::Table(t) => Ok(match name {
            "rows" => Value::list(t.row_keys.clone()),
            "cols" => Value::list(t.col_keys.clone()),
            _ => return Err(unknown("rows, cols")),
        }),
        Value::Game(g) => match (&**g, name) {
            (Game::Position(p), "args") => Ok(Value::tuple(p.args.to_vec())),
            (Game::Sum(parts), "parts") => Ok(Value::list(
                parts.iter().map(|p| Value::game(p.clone())).collect(),
            )),
            (Game::Compound(c), "parts") => Ok(Value::list(
                c.parts.iter().map(|p| Value::game(p.clone())).collect(),
            )),
            _ => Err(unknown(
                "args (of a position), parts (of a sum or compound)",
            )),
        },
        other => Err(type_error(span, "a move, table or game with fields", other)),
    }
}

fn within(inner: Span, outer: Span) -> bool {
    inner.source == outer.source && outer.start <= inner.start && inner.end <= outer.end
}

/// `subtraction(S)` and `octal(code)`: members of the prelude's families.
fn family(env: &mut Env, game: &str, statics: Value, span: Span) -> Fallible<Value> {
    let Some((_, id)) = env.rt.prelude.iter().find(|(n, _)| *n == game) else {
        return Diag::new(
            ErrorKind::UnknownName,
            span,
            format!("no built-in family {game}"),
        )
        .label("the prelude did not load")
        .err();
    };
    game_callable(env, *id, vec![statics])
}

/// The digits after the point of an octal code such as "0.137" or "4.007".
fn octal_digits(code: &Value, span: Span) -> Fallible<Value> {
    let Value::Str(s) = code else {
        return Err(type_error(
            span,
            "an octal code as a string, like \"0.137\"",
            code,
        ));
    };
    let bad = || {
        Diag::new(
            ErrorKind::Invalid,
            span,
            format!("`{s}` is not an octal game code"),
        )
        .label("expected digits 0-7 like \"0.137\"")
        .help("the code is d0.d1d2d3...; only the digits after the point are used")
        .boxed()
    };
    let after = s.split_once('.').map_or("", |(_, a)| a);
    if after.is_empty() || after.len() > 64 {
        return Err(bad());
    }
    let digits = after
        .chars()
        .map(|c| c.to_digit(8).map(|d| Value::Int(d as i64)).ok_or_else(bad))
        .collect::<Fallible<Vec<_>>>()?;
    Ok(Value::list(digits))
}

/// Runs only the innermost binding of `clauses` (the outer ones are bound
/// already) and emits each option the generic way.
fn generic_innermost(
    env: &mut Env,
    clauses: &[CClause],
    emit: &MoveCode,
    sink: &mut dyn Sink,
) -> Fallible<bool> {
    let last = &clauses[clauses.len() - 1..];
    run_clauses(env, last, &mut |env| {
        emit(env, sink)?;
        Ok(true)
    })
}

/// Whether `e` reads the local `slot`.
fn mentions(e: &IrExpr, slot: Slot) -> bool {
    let any = |es: &[IrExpr]| es.iter().any(|x| mentions(x, slot));
    match &e.kind {
        IrKind::Local(s) => *s == slot,
        IrKind::Const(_) | IrKind::Global(_) | IrKind::BuiltinRef(_) => false,
        IrKind::List(xs) | IrKind::Set(xs) | IrKind::Tuple(xs) => any(xs),
        IrKind::CallFn { args, .. } | IrKind::CallBuiltin { args, .. } => any(args),
        IrKind::CallValue { callee, args } => mentions(callee, slot) || any(args),
        IrKind::Position { statics, args, .. } => any(statics) || any(args),
        IrKind::GameRef { statics, .. } | IrKind::FnRef { statics, .. } => any(statics),
        IrKind::Unary(_, x) => mentions(x, slot),
        IrKind::Binary { lhs, rhs, .. } => mentions(lhs, slot) || mentions(rhs, slot),
        IrKind::Range { start, end, .. } => mentions(start, slot) || mentions(end, slot),
        IrKind::If {
            cond,
            then,
            otherwise,
        } => mentions(cond, slot) || mentions(then, slot) || mentions(otherwise, slot),
        IrKind::Index { target, index } => mentions(target, slot) || mentions(index, slot),
        IrKind::Field { target, .. } => mentions(target, slot),
        // Comprehensions may bind the same slot again; be conservative.
        IrKind::Collect { .. } | IrKind::Aggregate { .. } => true,
    }
}

/// The SG value of `game(args)` computed from its key, without building
/// the position as a value; `None` when the arguments do not flatten or the
/// position violates its `where` (the general path then reports it).
fn keyed_sg(
    env: &mut Env,
    game: GameId,
    cached: &std::cell::Cell<Option<(u32, InstanceId)>>,
    writers: &[ArgWriter],
    span: Span,
) -> Fallible<Option<u64>> {
    use super::memo::State;
    let generation = env.rt.generation.get();
    let instance = match cached.get() {
        Some((g, id)) if g == generation => id,
        _ => {
            let id = env.rt.user_instance(game, Rc::from(Vec::new()));
            cached.set(Some((generation, id)));
            id
        }
    };
    let mut key = env.keys.pop().unwrap_or_default();
    key.clear();
    let mut flat = true;
    for w in writers {
        if !w.write(env, &mut key)? {
            flat = false;
            break;
        }
    }
    let result = if flat {
        let inst = env.rt.instance(instance);
        let state = inst.memo.borrow_mut().get(&key);
        match state {
            State::Value(v) => Ok(Some(v)),
            State::Invalid => Ok(None),
            State::Unknown if !satisfies_where(env, instance, &key, span)? => Ok(None),
            _ => super::search::sg_of_position(env, instance, &key, span).map(Some),
        }
    } else {
        Ok(None)
    };
    env.keys.push(key);
    result
}

/// `body` with parameter `i` replaced by `args[i]`, for the integer forms
/// `int_expr` understands; `None` for anything else.
fn substitute(body: &IrExpr, args: &[IrExpr]) -> Option<IrExpr> {
    let kind = match &body.kind {
        IrKind::Const(v) => IrKind::Const(v.clone()),
        IrKind::Local(s) => return args.get(*s as usize).cloned(),
        IrKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } => IrKind::Binary {
            op: *op,
            op_span: *op_span,
            lhs: Box::new(substitute(lhs, args)?),
            rhs: Box::new(substitute(rhs, args)?),
        },
        IrKind::CallBuiltin { builtin, args: xs } => IrKind::CallBuiltin {
            builtin: *builtin,
            args: xs
                .iter()
                .map(|x| substitute(x, args))
                .collect::<Option<_>>()?,
        },
        IrKind::CallFn { func, args: xs } => IrKind::CallFn {
            func: *func,
            args: xs
                .iter()
                .map(|x| substitute(x, args))
                .collect::<Option<_>>()?,
        },
        _ => return None,
    };
    Some(IrExpr {
        kind,
        span: body.span,
    })
}
