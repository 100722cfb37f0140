//! Compounds that no theorem decomposes: the pass, misère play, the
//! conjunctive, selective and hypergraph compounds: how they are built
//! from their parts, and their options as game values (to list them).
//! Their values come from the product search (`product.rs`).

use std::rc::Rc;

use super::builtins::{expect_int, expect_items, type_error, Builtin};
use super::ops::as_game;
use super::query::{game_options, RawMove};
use super::runtime::Env;
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
