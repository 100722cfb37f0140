//! Compounds that no theorem decomposes: the pass, misère play, the
//! conjunctive, selective and hypergraph compounds. Their positions are
//! searched as whole game values, memoised on the tuple of their parts;
//! parts that are plain games (and what a compound turns into once its pass
//! is used) keep being valued by the Sprague-Grundy theorem.

use std::rc::Rc;

use super::builtins::{expect_int, expect_items, type_error, Builtin};
use super::ops::as_game;
use super::query::{game_options, RawMove};
use super::runtime::Env;
use super::search::sg_of_game;
use super::value::{Compound, CompoundKind, Game, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;

/// Builds a compound from the arguments of its built-in.
pub fn make(b: Builtin, args: &[Value], span: Span) -> Fallible<Value> {
    let parts = |vals: &[Value]| -> Fallible<Vec<Game>> {
        vals.iter()
            .map(|v| {
                let g = as_game(v, span)?;
                if is_misere(&g) {
                    return Diag::new(
                        ErrorKind::Type,
                        span,
                        "misère play applies to a whole game, not to a part of one",
                    )
                    .label("a misere(...) inside another game")
                    .help("write misere(A + B) rather than misere(A) + B")
                    .err();
                }
                Ok((*g).clone())
            })
            .collect()
    };
    let compound = |kind, parts| Value::game(Game::Compound(Rc::new(Compound { kind, parts })));
    Ok(match b {
        Builtin::Pass => {
            let passes = match args.get(1) {
                Some(v) => expect_int(v, span)?,
                None => 1,
            };
            if !(0..=1_000_000).contains(&passes) {
                return Diag::new(
                    ErrorKind::Invalid,
                    span,
                    format!("pass with {passes} passes"),
                )
                .label("the number of passes must be from 0 to 1000000")
                .err();
            }
            let part = parts(&args[..1])?.remove(0);
            if passes == 0 {
                Value::game(part)
            } else {
                compound(CompoundKind::Pass(passes as u32), vec![part])
            }
        }
        Builtin::Misere => compound(CompoundKind::Misere, parts(args)?),
        Builtin::Conjunctive => compound(CompoundKind::Conjunctive, parts(args)?),
        Builtin::Selective => compound(CompoundKind::Selective, parts(args)?),
        Builtin::Hypergraph => {
            let games = parts(&args[1..])?;
            let edges = hyperedges(&args[0], games.len(), span)?;
            compound(CompoundKind::Hypergraph(Rc::new(edges)), games)
        }
        _ => unreachable!("{} is not a compound", b.name()),
    })
}

fn hyperedges(v: &Value, n: usize, span: Span) -> Fallible<Vec<Vec<usize>>> {
    let mut edges = Vec::new();
    for e in expect_items(v, span)? {
        let mut edge = Vec::new();
        for i in expect_items(e, span)? {
            let i = expect_int(i, span)?;
            if i < 0 || i as usize >= n {
                return Diag::new(
                    ErrorKind::Index,
                    span,
                    format!("hyperedge names component {i}, but there are {n} components"),
                )
                .label("in these edges")
                .help("components are numbered from 0 in the order they are given")
                .err();
            }
            if !edge.contains(&(i as usize)) {
                edge.push(i as usize);
            }
        }
        if edge.is_empty() {
            return Err(type_error(span, "a non-empty list of component indices", e));
        }
        edges.push(edge);
    }
    Ok(edges)
}

pub fn is_misere(g: &Game) -> bool {
    matches!(g, Game::Compound(c) if c.kind == CompoundKind::Misere)
}

/// One option of a compound: the moves made in its parts and the result.
pub struct CompoundMove {
    pub component: usize,
    pub moves: Vec<RawMove>,
    pub to: Game,
}

/// Every option of the compound `c`.
pub fn options(env: &mut Env, c: &Rc<Compound>, span: Span) -> Fallible<Vec<CompoundMove>> {
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

/// The value of a compound: its SG value, or for `misere(E)` the misère
/// Grundy value (terminal positions have value 1).
pub fn sg(env: &mut Env, root: &Rc<Compound>, span: Span) -> Fallible<u64> {
    let root = Game::Compound(root.clone());
    if let Some(v) = known(env, &root) {
        return Ok(v);
    }
    let mut stack: Vec<(Game, bool)> = vec![(root.clone(), false)];
    let result = search(env, &mut stack, span);
    if result.is_err() {
        let mut memo = env.rt.compound_memo.borrow_mut();
        for (g, expanded) in &stack {
            if *expanded {
                memo.remove(g);
            }
        }
    }
    result?;
    Ok(known(env, &root).expect("the search stores the root's value"))
}

/// Memo states: a value, or `ON_PATH` while the position is being searched.
const ON_PATH: u64 = u64::MAX;

fn known(env: &Env, g: &Game) -> Option<u64> {
    env.rt
        .compound_memo
        .borrow()
        .get(g)
        .copied()
        .filter(|&v| v != ON_PATH)
}

fn search(env: &mut Env, stack: &mut Vec<(Game, bool)>, span: Span) -> Fallible<()> {
    while let Some((top, expanded)) = stack.last().cloned() {
        env.tick(span)?;
        if !expanded {
            if env.rt.compound_memo.borrow().contains_key(&top) {
                stack.pop();
                continue;
            }
            env.rt
                .compound_memo
                .borrow_mut()
                .insert(top.clone(), ON_PATH);
            stack.last_mut().expect("top").1 = true;
        }
        let Game::Compound(c) = &top else {
            unreachable!("only compounds are pushed")
        };
        let misere = c.kind == CompoundKind::Misere;
        let moves = options(env, c, span)?;
        let mut values = Vec::with_capacity(moves.len());
        let mut pending = Vec::new();
        for m in moves {
            match &m.to {
                Game::Compound(_) => {
                    let state = env.rt.compound_memo.borrow().get(&m.to).copied();
                    match state {
                        Some(ON_PATH) => return Err(loop_error(stack, &m.to, span)),
                        Some(v) => values.push(v),
                        None => pending.push(m.to),
                    }
                }
                // A compound may turn into a plain game (its pass used up):
                // the theorem values that.
                plain => values.push(sg_of_game(env, plain, span)?),
            }
        }
        if !pending.is_empty() {
            stack.extend(pending.into_iter().map(|g| (g, false)));
            continue;
        }
        let v = if misere && values.is_empty() {
            1
        } else {
            mex(&mut values)
        };
        env.rt.compound_memo.borrow_mut().insert(top, v);
        env.rt.count_stored(span, "a compound")?;
        stack.pop();
    }
    Ok(())
}

fn mex(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    let mut m = 0;
    for &v in values.iter() {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

fn loop_error(stack: &[(Game, bool)], again: &Game, span: Span) -> Box<Diag> {
    let path: Vec<&Game> = stack.iter().filter(|(_, e)| *e).map(|(g, _)| g).collect();
    let start = path.iter().position(|g| *g == again).unwrap_or(0);
    super::search::loop_diag(path[start..].iter().map(|g| g.to_string()).collect(), span)
}
