//! Compounds that no theorem decomposes: the pass, misère play, the
//! conjunctive, selective and hypergraph compounds and the ordinal sum:
//! how they are built from their parts. Their options as game values (to list them) are in
//! `query`, their values come from the product search (`product`).

use std::rc::Rc;

use super::builtins::{expect_int, expect_items, type_error, Builtin};
use super::ops::{as_game, is_misere};
use super::value::{invalid, Compound, CompoundKind, Game, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;

/// Builds a compound from the arguments of its built-in.
// Once a statement: kept out of `call_builtin`.
#[inline(never)]
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
                let why = "the number of passes must be from 0 to 1000000";
                return invalid(span, format!("pass with {passes} passes"), why);
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
        Builtin::OrdinalSum => {
            let mut ps = parts(args)?;
            let top = ps.pop().expect("two parts");
            let base = ps.pop().expect("two parts");
            Value::game(ordinal_sum(base, top))
        }
        Builtin::Hypergraph => {
            let games = parts(&args[1..])?;
            let edges = hyperedges(&args[0], games.len(), span)?;
            compound(CompoundKind::Hypergraph(Rc::new(edges)), games)
        }
        _ => unreachable!("{} is not a compound", b.name()),
    })
}

/// The ordinal sum `base : top`. With the zero game on either side it is
/// the other game, move for move, so it is written as that game.
pub fn ordinal_sum(base: Game, top: Game) -> Game {
    match (base, top) {
        (g, Game::Zero) | (Game::Zero, g) => g,
        (base, top) => Game::Compound(Rc::new(Compound {
            kind: CompoundKind::Ordinal,
            parts: vec![base, top],
        })),
    }
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
