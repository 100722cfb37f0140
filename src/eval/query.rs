//! The game questions: `sg`, `outcome`, `options`, `winning`,
//! `remoteness`.

use std::rc::Rc;

use super::builtins::Builtin;
use super::compile::Env;
use super::compile::{is_keyed_position, CompiledBody, Sink, Target};
use super::compound::ordinal_sum;
use super::gsg::keeps_draw;
use super::memo::Key;
use super::ops::{as_game, game_sum};
use super::search::{enumerate, sg_of_game, MoveSink};
use super::value::{
    Compound, CompoundKind, Game, InstanceId, MoveRecord, Outcome, Position, Value,
};
use crate::diag::Fallible;
use crate::syntax::Span;

/// The built-ins that ask about games, for compiled code
/// (`Above::game_builtin`).
pub fn game_builtin(env: &mut Env, b: Builtin, args: &[Value], span: Span) -> Fallible<Value> {
    match b {
        Builtin::Sg => {
            let v = sg_value(env, &args[0], span)?;
            Ok(env.rt.inf_sets.borrow().to_value(v))
        }
        Builtin::Outcome => outcome(env, &args[0], span),
        Builtin::Options => options(env, &args[0], span, false),
        Builtin::Winning => options(env, &args[0], span, true),
        Builtin::Octal => super::takebreak::octal(env, &args[0], span),
        Builtin::Periodicity => super::takebreak::periodicity(env, args, span),
        _ => unreachable!("{} does not ask about games", b.name()),
    }
}

pub fn sg_value(env: &mut Env, v: &Value, span: Span) -> Fallible<u64> {
    let g = as_game(v, span)?;
    sg_of_game(env, &g, span)
}

pub fn outcome(env: &mut Env, v: &Value, span: Span) -> Fallible<Value> {
    let sg = sg_value(env, v, span)?;
    Ok(Value::Outcome(env.rt.inf_sets.borrow().outcome(sg)))
}

/// `options(G)` (every move) or `winning(G)`: of an N-position the moves
/// to SG value 0, of a draw (D) the moves that keep it (to an infinite
/// value whose K lacks 0, from which the opponent cannot win), of a
/// P-position none.
pub fn options(env: &mut Env, v: &Value, span: Span, winning_only: bool) -> Fallible<Value> {
    let g = as_game(v, span)?;
    let draw = winning_only && {
        let v = sg_of_game(env, &g, span)?;
        env.rt.inf_sets.borrow().outcome(v) == Outcome::D
    };
    let mut records = Vec::new();
    for (component, part, to) in game_options(env, &g, span)? {
        let sg = sg_of_game(env, &to, span)?;
        let sets = env.rt.inf_sets.borrow();
        let wanted = match draw {
            true => keeps_draw(&sets, sg),
            false => sg == 0,
        };
        if winning_only && !wanted {
            continue;
        }
        records.push(Value::Move(Rc::new(MoveRecord {
            label: part.label,
            bindings: part.bindings,
            component,
            to,
            sg: sets.to_value(sg),
        })));
    }
    Ok(Value::list(records))
}

/// A move of one position, before its SG value is known.
#[derive(Clone, Debug)]
pub struct RawMove {
    pub label: Rc<str>,
    pub bindings: Vec<(Rc<str>, Value)>,
}

impl RawMove {
    pub fn labelled(label: &str) -> RawMove {
        RawMove {
            label: Rc::from(label),
            bindings: Vec::new(),
        }
    }

    /// Moves made together (in a conjunctive compound): labels joined by `&`.
    fn joined(moves: Vec<RawMove>) -> RawMove {
        let label: Vec<&str> = moves.iter().map(|m| &*m.label).collect();
        RawMove {
            label: Rc::from(label.join(" & ")),
            bindings: moves.iter().flat_map(|m| m.bindings.clone()).collect(),
        }
    }
}

/// Every option of `g` as (component, move, resulting game).
pub fn game_options(env: &mut Env, g: &Game, span: Span) -> Fallible<Vec<(usize, RawMove, Game)>> {
    match g {
        Game::Compound(c) => Ok(compound_options(env, c, span)?
            .into_iter()
            .map(|m| (m.component, RawMove::joined(m.moves), m.to))
            .collect()),
        Game::Zero => Ok(Vec::new()),
        Game::Position(p) => Ok(position_options(env, p, span)?
            .into_iter()
            .map(|(m, to)| (0, m, to))
            .collect()),
        Game::Sum(parts) => {
            let mut out = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                for (_, m, to) in game_options(env, part, span)? {
                    let mut sum = Game::Zero;
                    for (j, other) in parts.iter().enumerate() {
                        sum = game_sum(&sum, if i == j { &to } else { other });
                    }
                    out.push((i, m, sum));
                }
            }
            Ok(out)
        }
    }
}

struct RecordSink<'g> {
    moves: &'g [super::compile::CompiledMove],
    current: usize,
    out: Vec<(RawMove, Game)>,
    span: Span,
}

impl RecordSink<'_> {
    /// Keeps an option; options count as steps for the limits (a position
    /// may have more options than memory or time allow).
    fn record(&mut self, env: &mut Env, to: Game) -> Fallible<()> {
        env.tick(self.span)?;
        let m = &self.moves[self.current];
        let bindings = m
            .names
            .iter()
            .map(|(n, s)| (n.clone(), env.local(*s).clone()))
            .collect();
        let option = (
            RawMove {
                label: m.label.clone(),
                bindings,
            },
            to,
        );
        crate::budget::push(&mut self.out, option, self.span)
    }
}

impl Sink for RecordSink<'_> {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()> {
        match target {
            Target::Zero => self.record(env, Game::Zero)?,
            Target::Position(instance, key) => {
                if let Some(to) = keyed_position(env, instance, key, self.span)? {
                    self.record(env, to)?;
                }
            }
            Target::Sum(parts) => {
                // As the sum built as a value: its positions in order.
                let mut games = Vec::with_capacity(parts.len());
                for (instance, key) in parts {
                    match keyed_position(env, *instance, key, self.span)? {
                        Some(g) => games.push(g),
                        None => return Ok(()),
                    }
                }
                self.record(env, Game::Sum(games))?;
            }
            Target::Game(g) => self.record(env, g.clone())?,
        }
        Ok(())
    }
}

/// The position `key` of `instance` as a game, if it is a position
/// (its game's `where` holds).
fn keyed_position(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<Option<Game>> {
    if !is_keyed_position(env, instance, key, span)? {
        return Ok(None);
    }
    let name = env.rt.instance(instance).name.clone();
    Ok(Some(Game::Position(Position {
        instance,
        name,
        args: key.to_args(),
    })))
}

impl MoveSink for RecordSink<'_> {
    fn start_move(&mut self, index: usize) {
        self.current = index;
    }
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
}

fn position_options(env: &mut Env, p: &Position, span: Span) -> Fallible<Vec<(RawMove, Game)>> {
    let inst = env.rt.instance(p.instance);
    let g = &inst.game;
    let CompiledBody::Moves(moves) = &g.body else {
        unreachable!("aliases are expanded when built")
    };
    let mut sink = RecordSink {
        moves,
        current: 0,
        out: Vec::new(),
        span,
    };
    enumerate(env, p.instance, &Key::from_args(&p.args), span, &mut sink)?;
    Ok(sink.out)
}

/// One option of a compound: the moves made in its parts and the result.
pub struct CompoundMove {
    pub component: usize,
    pub moves: Vec<RawMove>,
    pub to: Game,
}

/// Every option of the compound `c`.
pub fn compound_options(
    env: &mut Env,
    c: &Rc<Compound>,
    span: Span,
) -> Fallible<Vec<CompoundMove>> {
    let mut part_options = Vec::with_capacity(c.parts.len());
    for p in &c.parts {
        part_options.push(game_options(env, p, span)?);
    }
    let rebuild =
        |parts: Vec<Game>, kind: CompoundKind| Game::Compound(Rc::new(Compound { kind, parts }));
    let mut out = Vec::new();
    match &c.kind {
        CompoundKind::Pass(k) => {
            let options = &part_options[0];
            for (component, m, to) in options {
                out.push(CompoundMove {
                    component: *component,
                    moves: vec![m.clone()],
                    to: rebuild(vec![to.clone()], CompoundKind::Pass(*k)),
                });
            }
            if !options.is_empty() {
                let to = if *k == 1 {
                    c.parts[0].clone()
                } else {
                    rebuild(c.parts.clone(), CompoundKind::Pass(k - 1))
                };
                out.push(CompoundMove {
                    component: 0,
                    moves: vec![RawMove::labelled("pass")],
                    to,
                });
            }
        }
        CompoundKind::Misere => {
            for (component, m, to) in &part_options[0] {
                out.push(CompoundMove {
                    component: *component,
                    moves: vec![m.clone()],
                    to: rebuild(vec![to.clone()], CompoundKind::Misere),
                });
            }
        }
        CompoundKind::Ordinal => {
            // A move in the base removes the top; a move in the top keeps
            // the base. The moves are marked with their part: 0 or 1.
            for (_, m, to) in &part_options[0] {
                out.push(CompoundMove {
                    component: 0,
                    moves: vec![m.clone()],
                    to: to.clone(),
                });
            }
            for (_, m, to) in &part_options[1] {
                out.push(CompoundMove {
                    component: 1,
                    moves: vec![m.clone()],
                    to: ordinal_sum(c.parts[0].clone(), to.clone()),
                });
            }
        }
        kind => {
            // The sets of parts moved in together.
            let n = c.parts.len();
            let groups: Vec<Vec<usize>> = match kind {
                CompoundKind::Conjunctive => vec![(0..n).collect()],
                CompoundKind::Selective => (1u64..1 << n.min(20))
                    .map(|mask| (0..n).filter(|i| mask >> i & 1 == 1).collect())
                    .collect(),
                CompoundKind::Hypergraph(edges) => edges.to_vec(),
                _ => unreachable!(),
            };
            for group in groups {
                product(&c.parts, &part_options, &group, &mut |parts, moves| {
                    out.push(CompoundMove {
                        component: group[0],
                        moves,
                        to: rebuild(parts, kind.clone()),
                    });
                });
            }
        }
    }
    Ok(out)
}

type PartOptions = Vec<(usize, RawMove, Game)>;

/// Every way of moving in each part of `group` at once (the other parts
/// stay), given to `emit` as the new parts and the moves made.
fn product(
    parts: &[Game],
    options: &[PartOptions],
    group: &[usize],
    emit: &mut dyn FnMut(Vec<Game>, Vec<RawMove>),
) {
    fn go(
        at: usize,
        group: &[usize],
        current: &mut Vec<Game>,
        moves: &mut Vec<RawMove>,
        options: &[PartOptions],
        emit: &mut dyn FnMut(Vec<Game>, Vec<RawMove>),
    ) {
        let Some(&i) = group.get(at) else {
            emit(current.clone(), moves.clone());
            return;
        };
        let saved = current[i].clone();
        for (_, m, to) in &options[i] {
            current[i] = to.clone();
            moves.push(m.clone());
            go(at + 1, group, current, moves, options, emit);
            moves.pop();
        }
        current[i] = saved;
    }
    let mut current = parts.to_vec();
    go(0, group, &mut current, &mut Vec::new(), options, emit);
}
