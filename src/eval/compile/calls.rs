//! Calls at run time: user functions, built-ins, callable values, the
//! construction of positions (with their `where` check), fields of
//! move records and games, the built-in families, and the memo-first
//! `sg` of a literal position.

use std::cell::Cell;
use std::rc::Rc;

use super::moves::ArgWriter;
use super::runtime::{eval_all, Code, CompiledBody, CompiledGame, Env, LayerKind};
use super::where_check::satisfies_where;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::builtins::{self, expect_bool, type_error, Builtin};
use crate::eval::memo::Key;
use crate::eval::ops;
use crate::eval::value::{Callable, Game, InstanceId, Position, Value};
use crate::ir::ir::*;
use crate::syntax::Span;

pub fn call_user(
    env: &mut Env,
    func: FnId,
    args: impl IntoIterator<Item = Value>,
    span: Span,
) -> Fallible<Value> {
    let f = env.rt.func(func).clone();
    env.with_frame(args, f.n_slots, span, |env| (f.body)(env))
}

pub(crate) fn call_builtin(
    env: &mut Env,
    b: Builtin,
    args: &[Value],
    span: Span,
) -> Fallible<Value> {
    match b {
        Builtin::Sg
        | Builtin::Outcome
        | Builtin::Options
        | Builtin::Winning
        | Builtin::Remoteness
        | Builtin::Octal
        | Builtin::Periodicity => (env.rt.above.game_builtin)(env, b, args, span),
        Builtin::Pass
        | Builtin::Misere
        | Builtin::Conjunctive
        | Builtin::Selective
        | Builtin::Hypergraph
        | Builtin::OrdinalSum => crate::eval::compound::make(b, args, span),
        Builtin::MemoHistogram => memo_histogram(env, &args[0], span),
        Builtin::Subtraction => family(env, "subtraction_game", args[0].clone(), span),
        Builtin::Plot => crate::eval::plot::make(args, &[], span),
        _ => builtins::apply_pure(b, args, span),
    }
}

pub(crate) fn call_value(
    env: &mut Env,
    f: &Value,
    mut args: Vec<Value>,
    span: Span,
) -> Fallible<Value> {
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
            let g = &inst.game;
            if args.len() != g.n_params {
                return Err(arity_error(g.n_params, args.len()));
            }
            make_position(env, g.id, inst.statics.to_vec(), args, span)
        }
    }
}

pub(crate) fn game_callable(env: &mut Env, game: GameId, statics: Vec<Value>) -> Fallible<Value> {
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
pub(crate) fn check_where_here(
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

/// The fields of a value, as [`field`] reads them (for completion after
/// `v.`); none for a value without fields.
pub fn field_names(v: &Value) -> &'static [&'static str] {
    match v {
        Value::Move(_) => &["label", "args", "to", "sg", "component"],
        Value::Table(_) => &["rows", "cols"],
        Value::Plot(_) => &["table"],
        Value::Periodicity(_) => &["preperiod", "period", "saltus", "proven"],
        Value::Game(g) => match &**g {
            Game::Position(_) => &["args"],
            Game::Sum(_) | Game::Compound(_) => &["parts"],
            _ => &[],
        },
        _ => &[],
    }
}

pub(crate) fn field(v: &Value, name: &str, span: Span) -> Fallible<Value> {
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
            "label" => Value::str(&m.label),
            "args" => Value::tuple(m.bindings.iter().map(|(_, v)| v.clone()).collect()),
            "to" => Value::game(m.to.clone()),
            "sg" => m.sg.clone(),
            "component" => Value::Int(m.component as i64),
            _ => return Err(unknown("label, args, to, sg, component")),
        }),
        Value::Table(t) => Ok(match name {
            "rows" => Value::list(t.row_keys.clone()),
            "cols" => Value::list(t.col_keys.clone()),
            _ => return Err(unknown("rows, cols")),
        }),
        Value::Plot(p) => match name {
            "table" => Ok(Value::Table(p.table.clone())),
            _ => Err(unknown("table")),
        },
        Value::Periodicity(p) => {
            periodicity_field(p, name).ok_or_else(|| unknown("preperiod, period, saltus, proven"))
        }
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
        other => Err(type_error(
            span,
            "a move, table, plot or game with fields",
            other,
        )),
    }
}

/// `.preperiod`, `.period`, `.saltus`, `.proven` of a periodicity.
fn periodicity_field(p: &crate::takebreak::Periodicity, name: &str) -> Option<Value> {
    Some(match name {
        "preperiod" => Value::Int(p.preperiod as i64),
        "period" => Value::Int(p.period as i64),
        "saltus" => Value::Int(p.saltus as i64),
        "proven" => Value::Bool(p.proven),
        _ => return None,
    })
}

/// `memo_histogram(G)`: the values the memo holds for the game of `G` (a
/// game, a position of it) or for compounds of `G`'s kind.
// Once a statement, one arm of `call_builtin`: kept out of its caller.
#[inline(never)]
fn memo_histogram(env: &mut Env, g: &Value, span: Span) -> Fallible<Value> {
    let mut h: Vec<u64> = Vec::new();
    let add = |h: &mut Vec<u64>, v: u64, n: u64| {
        if h.len() <= v as usize {
            h.resize(v as usize + 1, 0);
        }
        h[v as usize] += n;
    };
    let not_game = || Err(type_error(span, "a game, a position or a compound", g));
    let instance = match g {
        Value::Func(c) => match **c {
            Callable::Game { instance, .. } => Some(instance),
            _ => return not_game(),
        },
        Value::Game(game) => match &**game {
            Game::Position(p) => Some(p.instance),
            Game::Compound(c) => {
                h = env.rt.product.borrow_mut().histogram(&c.kind);
                // With those of compounds of one position run as layers
                // of its game (`Runtime::layered_instance`).
                if let Some(kind) = LayerKind::of(&c.kind) {
                    let same =
                        |l: LayerKind| std::mem::discriminant(&l) == std::mem::discriminant(&kind);
                    env.rt
                        .for_each_layer_value(same, |v: u64| add(&mut h, v, 1));
                }
                None
            }
            _ => return not_game(),
        },
        _ => return not_game(),
    };
    // A loopy game's positions of infinite value are counted under their
    // values, as `histogram` counts them.
    let mut infinite = Vec::new();
    if let Some(instance) = instance {
        let inst = env.rt.instance(instance);
        (inst.memo.borrow()).for_each_value_count(|v: u64, n: u64| add(&mut h, v, n));
        let sets = env.rt.inf_sets.borrow();
        inst.infinite
            .borrow()
            .for_each_value(|v| infinite.push(sets.to_value(v)));
    }
    let counts = h.into_iter().map(|n| Value::Int(n as i64)).collect();
    Ok(crate::eval::builtins::histogram_value(counts, infinite))
}

/// `subtraction(S)` and `octal(code)`: members of the prelude's families.
#[inline(never)]
pub(crate) fn family(env: &mut Env, game: &str, statics: Value, span: Span) -> Fallible<Value> {
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

/// The SG value of `game(args)` computed from its key, without building
/// the position as a value; `None` when the arguments do not flatten or the
/// position violates its `where` (the general path then reports it).
pub(crate) fn keyed_sg(
    env: &mut Env,
    site: Site<'_>,
    writers: &[ArgWriter],
    span: Span,
) -> Fallible<Option<u64>> {
    let mut key = env.keys.pop().unwrap_or_default();
    let result = match write_keyed(env, site, writers, &mut key)? {
        Some(instance) => sg_of_keyed(env, instance, &key, span),
        None => Ok(None),
    };
    env.keys.push(key);
    result
}

/// Where a query names a game: the game, the code of its static arguments
/// (fixed while a loop runs) and the cache of its instance when it has
/// none.
pub(crate) type Site<'a> = (GameId, &'a [Code], &'a Cell<Option<(u32, InstanceId)>>);

/// The instance a site names: the plain one, cached per session
/// generation, or the one of its static arguments' values (for a sweep:
/// `Runtime::swept_instance`).
#[inline]
pub(crate) fn site_instance(
    env: &mut Env,
    (game, statics, cached): Site<'_>,
    swept: bool,
) -> Fallible<InstanceId> {
    if statics.is_empty() {
        return Ok(env.rt.plain_instance(game, cached));
    }
    instance_of_statics(env, game, statics, swept)
}

/// `site_instance` with static arguments, kept out of line: queries of
/// games without them (the common case) inline only the test above.
#[inline(never)]
fn instance_of_statics(
    env: &mut Env,
    game: GameId,
    statics: &[Code],
    swept: bool,
) -> Fallible<InstanceId> {
    let values = Rc::from(eval_all(env, statics)?);
    Ok(match swept {
        true => env.rt.swept_instance(game, values),
        false => env.rt.user_instance(game, values),
    })
}

/// Writes the key of `game(args)`; the game's instance, or `None` when the
/// arguments do not flatten.
pub(crate) fn write_keyed(
    env: &mut Env,
    site: Site<'_>,
    writers: &[ArgWriter],
    key: &mut Key,
) -> Fallible<Option<InstanceId>> {
    let instance = site_instance(env, site, false)?;
    key.clear();
    for w in writers {
        if !w.write(env, key)? {
            return Ok(None);
        }
    }
    Ok(Some(instance))
}

/// The SG value of the position `key` of `instance`, memo first; `None`
/// when the position violates its `where`.
pub(crate) fn sg_of_keyed(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<Option<u64>> {
    use crate::eval::memo::State;
    let inst = env.rt.instance(instance);
    let (state, at) = inst.memo.borrow_mut().locate(key);
    match state {
        State::Value(v) => Ok(Some(v)),
        State::Invalid => Ok(None),
        State::Unknown if !satisfies_where(env, instance, key, span)? => Ok(None),
        State::Unknown | State::Valid => {
            (env.rt.above.search_located)(env, instance, key, at, span).map(Some)
        }
        // A loopy game's position of infinite value, or one on the
        // search path (which `sg_of_position` reports).
        State::OnPath => match inst.infinite.borrow_mut().get(key) {
            Some(v) => Ok(Some(v)),
            None => (env.rt.above.sg_of_position)(env, instance, key, span).map(Some),
        },
    }
}
