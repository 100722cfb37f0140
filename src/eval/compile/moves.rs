//! Moves: each rule becomes a loop that hands its options to a `Sink`,
//! one by one, its results written straight into reusable keys: the
//! general path. Runs of options read from the memo in tight loops are
//! the kernels' plans (`kernel.rs`, `key_kernel.rs`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::clauses::{run_clauses, CClause};
use super::compiler::Compiler;
use super::frame::{KeyFrame, KERNEL_FRAME};
use super::int_code::{int_code, map_locals, IntCode};
use super::key_tree::{ArgCode, OptionKey};
use super::linear::operands;
use super::runtime::{eval_all, Code, CompiledMove, Env, MoveCode, Target};
use super::where_check::is_keyed_position;
use crate::diag::{ErrorKind, Fallible};
use crate::eval::builtins::expect_bool;
use crate::eval::memo::{Key, MaskCache};
use crate::eval::ops;
use crate::eval::value::{InstanceId, Value};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;

/// Writes one argument of a position into a key; false when the value does
/// not flatten (the caller then falls back to values).
pub(crate) type Writer = Box<dyn Fn(&mut Env, &mut Key) -> Fallible<bool>>;

/// How one argument of a move's resulting position is written into its key.
pub(crate) enum ArgWriter {
    Local(Slot),
    Int(IntCode),
    Other(Writer),
}

impl ArgWriter {
    #[inline]
    pub(crate) fn write(&self, env: &mut Env, key: &mut Key) -> Fallible<bool> {
        Ok(match self {
            ArgWriter::Local(slot) => match env.local(*slot) {
                Value::Int(n) => key.push_int(*n),
                v => key.push_value(v),
            },
            ArgWriter::Int(code) => match code(env.frame()) {
                Some(n) => key.push_int(n),
                None => false,
            },
            ArgWriter::Other(w) => w(env, key)?,
        })
    }
}

impl Compiler<'_> {
    pub(crate) fn compile_move(&self, game: GameId, g: &IrGame, m: &IrMove) -> CompiledMove {
        let mut names = Vec::new();
        for b in &m.bindings {
            b.pattern.names(&mut names);
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
                    let holds = match fast.as_ref().and_then(|f| f(env.frame())) {
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
            span: m.span,
            names,
            run,
        }
    }

    /// The result of a move: positions of keyed games are written straight
    /// into a key; anything else is evaluated as a game value.
    pub(crate) fn result(&self, game: GameId, n_statics: usize, e: &IrExpr) -> MoveCode {
        match (self.result_form(e), &e.kind) {
            (ResultForm::Zero, _) => Box::new(|env, sink| sink.option(env, Target::Zero)),
            (ResultForm::Position, _) => {
                let part = self.position_writer(game, n_statics, e);
                Box::new(move |env, sink| {
                    let mut key = env.keys.pop().unwrap_or_default();
                    let r = match part.write(env, &mut key) {
                        Ok(instance) => sink.option(env, Target::Position(instance, &key)),
                        Err(e) => Err(e),
                    };
                    env.keys.push(key);
                    r
                })
            }
            (ResultForm::Sum(terms), _) => {
                let parts: Vec<PositionWriter> = terms
                    .iter()
                    .map(|t| self.position_writer(game, n_statics, t))
                    .collect();
                let span = e.span;
                Box::new(move |env, sink| {
                    let mut keys = std::mem::take(&mut env.sum_keys);
                    let r = match write_sum(env, &parts, &mut keys, span) {
                        Ok(true) => sink.option(env, Target::Sum(&keys)),
                        Ok(false) => Ok(()),
                        // As for the sum built as a value: a position
                        // breaking its `where` in an argument means no option.
                        Err(e) if e.kind == ErrorKind::WhereViolated && within(e.span, span) => {
                            Ok(())
                        }
                        Err(e) => Err(e),
                    };
                    env.sum_keys = keys;
                    r
                })
            }
            (
                ResultForm::Choice { .. },
                IrKind::If {
                    cond,
                    then,
                    otherwise,
                },
            ) => {
                // Each branch hands its result over on its own: positions
                // and sums as keys.
                let c = self.cond_code(cond);
                let t = self.result(game, n_statics, then);
                let o = self.result(game, n_statics, otherwise);
                let span = e.span;
                Box::new(move |env, sink| match c(env) {
                    Ok(true) => t(env, sink),
                    Ok(false) => o(env, sink),
                    // As for the whole result built as a value: a position
                    // breaking its `where` in the condition means no option.
                    Err(e) if e.kind == ErrorKind::WhereViolated && within(e.span, span) => Ok(()),
                    Err(e) => Err(e),
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

    /// How a move hands its result `e` over, from its form alone.
    pub(crate) fn result_form<'e>(&self, e: &'e IrExpr) -> ResultForm<'e> {
        let keyed_position = |t: &IrExpr| matches!(&t.kind, IrKind::Position { game, .. } if !self.aliases.contains(game));
        match &e.kind {
            IrKind::Const(Value::Int(0)) => ResultForm::Zero,
            _ if keyed_position(e) => ResultForm::Position,
            IrKind::Binary {
                op: BinaryOp::Add, ..
            } => {
                let mut terms = Vec::new();
                sum_terms(e, &mut terms);
                terms.retain(|t| !matches!(t.kind, IrKind::Const(Value::Int(0))));
                if terms.len() >= 2 && terms.iter().all(|t| keyed_position(t)) {
                    ResultForm::Sum(terms)
                } else {
                    ResultForm::Value
                }
            }
            IrKind::If {
                then, otherwise, ..
            } => {
                let (t, o) = (self.result_form(then), self.result_form(otherwise));
                match (t.is_keyed(), o.is_keyed()) {
                    (true, true) => ResultForm::Choice { all: true },
                    _ if t.has_keys() || o.has_keys() => ResultForm::Choice { all: false },
                    _ => ResultForm::Value,
                }
            }
            _ => ResultForm::Value,
        }
    }

    /// The writer of a move's result (or a sum's term) `e`, a position of
    /// a game that is no alias (`result_form` checked it).
    fn position_writer(&self, game: GameId, n_statics: usize, e: &IrExpr) -> PositionWriter {
        let IrKind::Position {
            game: target,
            statics,
            args,
        } = &e.kind
        else {
            unreachable!("result_form found a position")
        };
        PositionWriter {
            same_instance: self.same_game_args(game, n_statics, e).is_some(),
            target: *target,
            statics: statics.iter().map(|s| self.expr(s)).collect(),
            writers: args.iter().map(|a| self.arg_writer(a)).collect(),
            values: args.iter().map(|a| self.expr(a)).collect(),
            cached: Cell::new(None),
        }
    }

    /// The cheapest writer for one argument: locals and integer code are
    /// written without a call through a closure.
    pub(crate) fn arg_writer(&self, e: &IrExpr) -> ArgWriter {
        match &e.kind {
            IrKind::Local(slot) => ArgWriter::Local(*slot),
            _ => match self.int_tree(e) {
                Ok(node) => ArgWriter::Int(int_code(&node)),
                Err(_) => ArgWriter::Other(self.writer(e)),
            },
        }
    }

    /// A writer for one position argument: the key code keyed kernels
    /// run (`key_tree.rs`: `update`, `sorted`, `remove`/`insert` chains,
    /// set operators, literals), on the locals it reads put in a frame of
    /// integers, without building values; or, for any form that code
    /// refuses, the value written.
    pub(crate) fn writer(&self, e: &IrExpr) -> Writer {
        let reads = locals_read(e).filter(|r| r.iter().all(|&s| (s as usize) < KERNEL_FRAME));
        if let (Ok(arg), Some(reads)) = (self.key_arg(e), reads) {
            let arg = ArgCode::new(arg);
            // Kept between options: the code reads only the slots `reads`
            // puts in again each time.
            let scratch = RefCell::new((KeyFrame::empty(), OptionKey::default()));
            let masks: Vec<MaskCache> = reads.iter().map(|_| MaskCache::default()).collect();
            return Box::new(move |env, key| {
                let (frame, out) = &mut *scratch.borrow_mut();
                // A local that is no integer, bit set or sequence of
                // integers, or code that fails: the caller writes values.
                let mut items = 0;
                for (&s, masks) in reads.iter().zip(&masks) {
                    if !frame.put_value(s, env.local(s), &mut items, masks) {
                        return Ok(false);
                    }
                }
                out.clear();
                let Some(tag) = arg.coords(frame, out) else {
                    return Ok(false);
                };
                Ok(out.coords().iter().all(|&c| key.push_coord(c)) && key.push_tag(tag))
            });
        }
        let code = self.expr(e);
        Box::new(move |env, key| {
            let v = code(env)?;
            Ok(key.push_value(&v))
        })
    }
}

/// The locals `e` reads, if `map_locals` follows it all.
fn locals_read(e: &IrExpr) -> Option<Vec<Slot>> {
    let reads = RefCell::new(Vec::new());
    map_locals(e, &|s| {
        reads.borrow_mut().push(s);
        Some(IrExpr {
            kind: IrKind::Local(s),
            span: e.span,
        })
    })?;
    let mut reads = reads.into_inner();
    reads.sort_unstable();
    reads.dedup();
    Some(reads)
}

/// Whether `bases + coefs * k` fits in 64 bits for every `k` in `a..b`:
/// each coordinate is monotone in `k`, so checking both ends suffices.
pub(crate) fn affine_fits(bases: &[i64], coefs: &[i64], a: i64, b: i64) -> bool {
    bases.iter().zip(coefs).all(|(&base, &coef)| {
        coef == 0
            || [a, b - 1].iter().all(|&k| {
                coef.checked_mul(k)
                    .and_then(|x| x.checked_add(base))
                    .is_some()
            })
    })
}

pub(crate) fn within(inner: Span, outer: Span) -> bool {
    inner.source == outer.source && outer.start <= inner.start && inner.end <= outer.end
}

/// How a move hands its result over (`Compiler::result_form`).
pub(crate) enum ResultForm<'e> {
    /// The zero game.
    Zero,
    /// A position, as its key.
    Position,
    /// A sum of two or more positions (zero terms dropped), as their keys.
    Sum(Vec<&'e IrExpr>),
    /// `if c then A else B` with a branch handed over as keys (`all`:
    /// every branch, at every depth).
    Choice { all: bool },
    /// Any other result: built as a game value per option.
    Value,
}

impl ResultForm<'_> {
    /// No game value is built for any option.
    pub(crate) fn is_keyed(&self) -> bool {
        !matches!(self, ResultForm::Value | ResultForm::Choice { all: false })
    }

    /// Some options are handed over as keys.
    pub(crate) fn has_keys(&self) -> bool {
        !matches!(self, ResultForm::Value)
    }
}

/// The terms of a sum `A + B + ...`, in order.
pub(crate) fn sum_terms<'e>(e: &'e IrExpr, out: &mut Vec<&'e IrExpr>) {
    operands(BinaryOp::Add, e, out)
}

/// Writes a position that is a move's result (or a term of one) into a
/// key: integer and flat arguments without values.
pub(crate) struct PositionWriter {
    /// The position is of the moving game's own instance.
    same_instance: bool,
    target: GameId,
    statics: Vec<Code>,
    writers: Vec<ArgWriter>,
    /// The arguments as values, for a key that does not flatten.
    values: Vec<Code>,
    /// The target's instance when it has no static arguments.
    cached: Cell<Option<(u32, InstanceId)>>,
}

impl PositionWriter {
    /// Sets `key` to the position's key, giving its instance.
    fn write(&self, env: &mut Env, key: &mut Key) -> Fallible<InstanceId> {
        let instance = if self.same_instance {
            env.instance
        } else if self.statics.is_empty() {
            env.rt.plain_instance(self.target, &self.cached)
        } else {
            let statics = eval_all(env, &self.statics)?;
            env.rt.user_instance(self.target, Rc::from(statics))
        };
        key.clear();
        for w in &self.writers {
            if !w.write(env, key)? {
                let args = eval_all(env, &self.values)?;
                key.set_args(&args);
                break;
            }
        }
        Ok(instance)
    }
}

/// Whether the game of `instance` has a `where` (asked at run time: a
/// session may define the game anew after this move was compiled).
fn has_where(env: &Env, instance: InstanceId) -> bool {
    let g = &env.rt.instance(instance).game;
    g.where_clause.is_some()
}

/// Writes the keys of a sum's positions into `keys`, in order; false if
/// a position other than the last breaks its game's `where` (the
/// option is then no option). As when the sum is built as a value, that
/// is found before the next term is evaluated; the last position's
/// `where` is the sink's to check, as for a single position.
fn write_sum(
    env: &mut Env,
    parts: &[PositionWriter],
    keys: &mut Vec<(InstanceId, Key)>,
    span: Span,
) -> Fallible<bool> {
    keys.truncate(parts.len());
    keys.resize_with(parts.len(), || (InstanceId(0), Key::default()));
    for (j, part) in parts.iter().enumerate() {
        let (instance, key) = &mut keys[j];
        *instance = part.write(env, key)?;
        let checked = j + 1 < parts.len() && has_where(env, *instance);
        if checked && !is_keyed_position(env, *instance, key, span)? {
            return Ok(false);
        }
    }
    Ok(true)
}
