//! Steinhaus remoteness of finite games, and the move perfect play makes
//! with it: the winner hastens the end, the loser delays it.
//!
//! The remoteness of a position is 0 when it has no move; otherwise, when
//! the player to move wins (SG value not 0), 1 + the least remoteness of
//! an option of SG value 0; when they lose, 1 + the greatest remoteness of
//! an option. Under normal play it is even exactly at the P-positions.
//! Who wins is read from the SG value, so misère compounds (whose terminal
//! positions are won by the player to move) are measured too.

use std::collections::HashMap;
use std::rc::Rc;

use super::compile::Env;
use super::memo::Key;
use super::ops::as_game;
use super::query::game_options;
use super::search::{loop_diag, sg_of_game};
use super::value::{Compound, Game, MoveRecord, Value};
use crate::diag::Fallible;
use crate::syntax::Span;

/// Remoteness values found so far, to share between questions about the
/// positions of one game.
#[derive(Default)]
pub struct Known {
    /// By position in the form [`Known::canonical`] gives.
    values: HashMap<Game, u64>,
    /// Whether a component has no move.
    terminal: HashMap<Game, bool>,
}

impl Known {
    /// A position as it is kept: a sum's components sorted, those with no
    /// move left out (they add no move), likewise in each part of a
    /// compound; so a position reached in several orders is measured once.
    fn canonical(&mut self, env: &mut Env, game: Game, span: Span) -> Fallible<Game> {
        Ok(match game {
            Game::Sum(parts) => {
                let mut kept = Vec::with_capacity(parts.len());
                for p in parts {
                    if !self.is_terminal(env, &p, span)? {
                        kept.push(p);
                    }
                }
                kept.sort();
                match kept.len() {
                    0 => Game::Zero,
                    1 => kept.pop().expect("one component"),
                    _ => Game::Sum(kept),
                }
            }
            Game::Compound(c) => {
                let mut parts = Vec::with_capacity(c.parts.len());
                for p in &c.parts {
                    parts.push(self.canonical(env, p.clone(), span)?);
                }
                Game::Compound(Rc::new(Compound {
                    kind: c.kind.clone(),
                    parts,
                }))
            }
            g => g,
        })
    }

    fn is_terminal(&mut self, env: &mut Env, game: &Game, span: Span) -> Fallible<bool> {
        if let Some(&t) = self.terminal.get(game) {
            return Ok(t);
        }
        let t = game_options(env, game, span)?.is_empty();
        self.terminal.insert(game.clone(), t);
        Ok(t)
    }
}

/// Marks a position whose options are being measured.
const ON_PATH: u64 = u64::MAX;

/// One position being measured: its options not measured yet, and the
/// best remoteness among those measured.
struct Frame {
    game: Game,
    wins: bool,
    options: Vec<(Game, bool)>,
    next: usize,
    best: Option<u64>,
}

impl Frame {
    /// Takes the remoteness `r` of an option (`to_p`: of SG value 0).
    fn take(&mut self, r: u64, to_p: bool) {
        self.best = match (self.wins, self.best) {
            (true, _) if !to_p => self.best,
            (true, Some(b)) => Some(b.min(r)),
            (false, Some(b)) => Some(b.max(r)),
            (_, None) => Some(r),
        };
    }

    fn remoteness(&self) -> u64 {
        self.best.map_or(0, |b| b + 1)
    }
}

/// `remoteness(G)`: Smith's remoteness of a position of one game over the
/// graph of its positions (loopy or not: `loopy::remoteness`), and of a sum
/// or a compound of finite games by the walk below.
pub fn remoteness_of(env: &mut Env, v: &Value, span: Span) -> Fallible<Value> {
    let g = as_game(v, span)?;
    let r = match &*g {
        Game::Zero => 0,
        Game::Position(p) => {
            let key = Key::from_args(&p.args);
            u64::from(super::loopy::remoteness(env, p.instance, &key, span)?.1)
        }
        _ => remoteness(env, &g, &mut Known::default(), span)?,
    };
    Ok(Value::Int(r as i64))
}

/// The remoteness of `game`. Each position's options are listed once per
/// `known` (depth first, with no recursion: a long game needs no stack).
pub fn remoteness(env: &mut Env, game: &Game, known: &mut Known, span: Span) -> Fallible<u64> {
    let game = known.canonical(env, game.clone(), span)?;
    if let Some(&r) = known.values.get(&game).filter(|&&r| r != ON_PATH) {
        return Ok(r);
    }
    let result = walk(env, game, known, span);
    if result.is_err() {
        // The positions left waiting are not on any path now.
        known.values.retain(|_, r| *r != ON_PATH);
    }
    result
}

fn walk(env: &mut Env, game: Game, known: &mut Known, span: Span) -> Fallible<u64> {
    let mut stack = vec![frame(env, game, known, span)?];
    let mut steps = 0u32;
    loop {
        steps = steps.wrapping_add(1);
        if steps.is_multiple_of(1024) {
            env.rt.check_interrupt(span)?;
        }
        let top = stack.last_mut().expect("a frame");
        let Some((option, to_p)) = top.options.get(top.next).cloned() else {
            let done = stack.pop().expect("a frame");
            let r = done.remoteness();
            known.values.insert(done.game, r);
            env.rt.count_stored(span, "remoteness")?;
            match stack.last_mut() {
                Some(parent) => {
                    let to_p = parent.options[parent.next - 1].1;
                    parent.take(r, to_p);
                }
                None => return Ok(r),
            }
            continue;
        };
        top.next += 1;
        match known.values.get(&option) {
            Some(&ON_PATH) => {
                let mut cycle: Vec<String> = stack.iter().map(|f| f.game.to_string()).collect();
                let at = stack.iter().position(|f| f.game == option).unwrap_or(0);
                cycle.drain(..at);
                return Err(loop_diag(cycle, span));
            }
            Some(&r) => top.take(r, to_p),
            None => {
                let f = frame(env, option, known, span)?;
                stack.push(f);
            }
        }
    }
}

/// Starts measuring `game` (canonical): lists its options (canonical)
/// with whether each is a P-position, and marks it as on the path.
fn frame(env: &mut Env, game: Game, known: &mut Known, span: Span) -> Fallible<Frame> {
    let wins = sg_of_game(env, &game, span)? != 0;
    let mut options = Vec::new();
    for (_, _, to) in game_options(env, &game, span)? {
        let to_p = sg_of_game(env, &to, span)? == 0;
        options.push((known.canonical(env, to, span)?, to_p));
    }
    known.values.insert(game.clone(), ON_PATH);
    Ok(Frame {
        game,
        wins,
        options,
        next: 0,
        best: None,
    })
}

/// The move perfect play makes among `moves` (the options of one
/// position, with their SG values): to a P-position of least remoteness
/// when there is one (the quickest win), otherwise to the option of
/// greatest remoteness (the longest resistance). The first such move in
/// the list; `None` when there is no move.
pub fn perfect_move(
    env: &mut Env,
    moves: &[&MoveRecord],
    known: &mut Known,
    span: Span,
) -> Fallible<Option<usize>> {
    let wins = moves.iter().any(|m| m.sg == Value::Int(0));
    let mut best: Option<(usize, u64)> = None;
    for (i, m) in moves.iter().enumerate() {
        if wins && m.sg != Value::Int(0) {
            continue;
        }
        let r = remoteness(env, &m.to, known, span)?;
        let better = match best {
            None => true,
            Some((_, b)) if wins => r < b,
            Some((_, b)) => r > b,
        };
        if better {
            best = Some((i, r));
        }
    }
    Ok(best.map(|(i, _)| i))
}
