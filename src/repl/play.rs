//! `:play GAME`: the user plays a game against perfect play, one entry per
//! move. The game lives in the [`super::Repl`] between entries (so a
//! notebook plays it cell by cell): the positions at the user's turns,
//! for `undo`, and the remoteness values found so far.
//!
//! The program moves to a P-position when it can (the quickest win: least
//! remoteness), otherwise to the option that lasts longest (greatest
//! remoteness); see [`crate::eval::remoteness`].

use std::io::Write;
use std::rc::Rc;

use super::show::move_label;
use crate::diag::{Diag, Fallible};
use crate::eval::compile::Env;
use crate::eval::query;
use crate::eval::remoteness::{perfect_move, remoteness, Known};
use crate::eval::search::sg_of_game;
use crate::eval::value::{Game, MoveRecord, Value};
use crate::session::Session;
use crate::syntax::Span;

/// A game being played.
pub struct Play {
    /// The positions at which it was the user's turn, the current last.
    turns: Vec<Game>,
    known: Known,
    /// The `:play` expression: errors about the game point there.
    span: Span,
}

/// What an input in a game did.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn {
    /// The game goes on.
    Continue,
    /// The game is over, or the user left it.
    Over,
}

/// Why an input could not be played.
pub enum PlayError {
    /// Not a move: the message and a hint.
    Input(String, String),
    /// Computing the answer failed (a limit, Ctrl-C).
    Eval(Box<Diag>),
}

impl From<Box<Diag>> for PlayError {
    fn from(d: Box<Diag>) -> PlayError {
        PlayError::Eval(d)
    }
}

const HOW: &str =
    "type a move's number or its name as listed; `undo` takes back your last move and my reply, `quit` ends the game";

impl Play {
    /// Starts a game at `game` (the user moves first) and shows it; `None`
    /// when it has no move to play.
    pub fn start(
        session: &Session,
        game: Game,
        span: Span,
        out: &mut dyn Write,
    ) -> Fallible<Option<Play>> {
        let play = Play {
            turns: vec![game],
            known: Known::default(),
            span,
        };
        let mut env = Env::new(session.runtime());
        let moves = play.moves(&mut env)?;
        if moves.is_empty() {
            let _ = writeln!(
                out,
                "{} has no move: there is nothing to play",
                play.position()
            );
            return Ok(None);
        }
        let _ = writeln!(out, "you move first; {HOW}");
        play.show(&mut env, &moves, out)?;
        Ok(Some(play))
    }

    fn position(&self) -> &Game {
        self.turns.last().expect("a position")
    }

    /// The moves of the current position, with their values.
    fn moves(&self, env: &mut Env) -> Fallible<Vec<Rc<MoveRecord>>> {
        moves_of(env, self.position(), self.span)
    }

    /// The position, its value and its moves, numbered.
    fn show(&self, env: &mut Env, moves: &[Rc<MoveRecord>], out: &mut dyn Write) -> Fallible<()> {
        let sg = sg_of_game(env, self.position(), self.span)?;
        let chances = if sg == 0 {
            "you lose against perfect play"
        } else {
            "you can win"
        };
        let _ = writeln!(out, "{}  sg {sg}: {chances}", self.position());
        let _ = writeln!(out, "{}", listing(moves));
        Ok(())
    }

    /// Plays one input: a move (its number or name), `undo` or `quit`.
    pub fn input(
        &mut self,
        session: &Session,
        text: &str,
        out: &mut dyn Write,
    ) -> Result<Turn, PlayError> {
        let mut env = Env::new(session.runtime());
        let text = text.trim();
        match text {
            "quit" => {
                let _ = writeln!(out, "game left at {}", self.position());
                return Ok(Turn::Over);
            }
            "undo" => {
                if self.turns.len() == 1 {
                    return Err(PlayError::Input(
                        "nothing to undo: this is where the game started".into(),
                        HOW.into(),
                    ));
                }
                self.turns.pop();
                let _ = writeln!(out, "took back your last move and my reply");
                let moves = self.moves(&mut env)?;
                self.show(&mut env, &moves, out)?;
                return Ok(Turn::Continue);
            }
            _ => {}
        }
        let moves = self.moves(&mut env)?;
        let chosen = choose(&moves, text)?;
        let yours = &moves[chosen];
        let _ = writeln!(out, "you: {}", described(yours, &moves));
        if let Some(over) = self.over_at(&mut env, &yours.to, Player::Me)? {
            let _ = writeln!(out, "{over}");
            return Ok(Turn::Over);
        }
        let replies = moves_of(&mut env, &yours.to, self.span)?;
        let listed: Vec<&MoveRecord> = replies.iter().map(|m| &**m).collect();
        let mine = perfect_move(&mut env, &listed, &mut self.known, self.span)?
            .expect("a position that is not over has a move");
        let mine = &replies[mine];
        let left = remoteness(&mut env, &mine.to, &mut self.known, self.span)?;
        let why = if mine.sg == Value::Int(0) {
            format!("to a P-position: the game ends within {left} more moves")
        } else {
            format!(
                "no winning move: the longest resistance, {left} more moves if you play perfectly"
            )
        };
        let _ = writeln!(out, "me:  {}  ({why})", described(mine, &replies));
        if let Some(over) = self.over_at(&mut env, &mine.to, Player::You)? {
            let _ = writeln!(out, "{over}");
            return Ok(Turn::Over);
        }
        self.turns.push(mine.to.clone());
        let moves = self.moves(&mut env)?;
        self.show(&mut env, &moves, out)?;
        Ok(Turn::Continue)
    }

    /// Who won, if `to_move` has no move at `position`.
    fn over_at(&self, env: &mut Env, position: &Game, to_move: Player) -> Fallible<Option<String>> {
        if !moves_of(env, position, self.span)?.is_empty() {
            return Ok(None);
        }
        // At the end the player to move wins exactly when the position's
        // value is not 0: under misère play (value 1), not under normal play.
        let mover_wins = sg_of_game(env, position, self.span)? != 0;
        let (stuck, winner) = match to_move {
            Player::Me => ("I have no move", if mover_wins { "I" } else { "you" }),
            Player::You => ("you have no move", if mover_wins { "you" } else { "I" }),
        };
        let rule = if mover_wins {
            " (misère play: the last mover loses)"
        } else {
            ""
        };
        Ok(Some(format!(
            "game over at {position}: {stuck}, so {winner} win{rule}"
        )))
    }
}

#[derive(Clone, Copy)]
enum Player {
    Me,
    You,
}

fn moves_of(env: &mut Env, game: &Game, span: Span) -> Fallible<Vec<Rc<MoveRecord>>> {
    let v = query::options(env, &Value::game(game.clone()), span, false)?;
    Ok(v.items()
        .unwrap_or_default()
        .iter()
        .filter_map(|m| match m {
            Value::Move(m) => Some(m.clone()),
            _ => None,
        })
        .collect())
}

fn in_sum(moves: &[Rc<MoveRecord>]) -> bool {
    moves.iter().any(|m| m.component > 0)
}

/// A move as the game's messages name it: `take(k=2) -> Heap(3)`.
fn described(m: &MoveRecord, moves: &[Rc<MoveRecord>]) -> String {
    format!("{} -> {}", move_label(m, in_sum(moves)), m.to)
}

/// The moves numbered from 1, columns aligned, a `*` on those to a
/// P-position.
pub fn listing(moves: &[Rc<MoveRecord>]) -> String {
    let sum = in_sum(moves);
    let rows: Vec<[String; 4]> = (moves.iter().enumerate())
        .map(|(i, m)| {
            [
                (i + 1).to_string(),
                move_label(m, sum),
                m.to.to_string(),
                m.sg.to_string(),
            ]
        })
        .collect();
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    let lines: Vec<String> = (moves.iter().zip(&rows))
        .map(|(m, [n, label, to, sg])| {
            let mark = if m.sg == Value::Int(0) { "*" } else { " " };
            format!("{mark} {n:>w0$}  {label:<w1$}  -> {to:<w2$}  sg {sg:>w3$}")
        })
        .collect();
    lines.join("\n")
}

/// The move `text` names: its number, its label as listed (`take(k=2)`,
/// `[1] take(k=2)`, spaces aside), the label alone when one move has it,
/// or the position it leads to.
fn choose(moves: &[Rc<MoveRecord>], text: &str) -> Result<usize, PlayError> {
    let n = moves.len();
    let range = if n == 1 {
        "the only move is 1".to_string()
    } else {
        format!("the moves are numbered 1 to {n}")
    };
    if let Ok(i) = text.parse::<i64>() {
        return match usize::try_from(i) {
            Ok(i) if (1..=n).contains(&i) => Ok(i - 1),
            _ => Err(PlayError::Input(
                format!("there is no move {i} here: {range}"),
                HOW.into(),
            )),
        };
    }
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let wanted = squeeze(text);
    let sum = in_sum(moves);
    let names = |m: &MoveRecord| {
        [
            move_label(m, sum),
            move_label(m, false),
            m.to.to_string(),
            m.label.to_string(),
        ]
    };
    // The most precise spelling that names some move decides.
    for k in 0..4 {
        let found: Vec<usize> = (0..n)
            .filter(|&i| squeeze(&names(&moves[i])[k]) == wanted)
            .collect();
        match found.len() {
            0 => continue,
            1 => return Ok(found[0]),
            _ => {
                let numbers: Vec<String> = found.iter().map(|i| (i + 1).to_string()).collect();
                return Err(PlayError::Input(
                    format!(
                        "`{text}` names {} moves: {}",
                        found.len(),
                        numbers.join(", ")
                    ),
                    "give its number, or its name with its bindings as listed".into(),
                ));
            }
        }
    }
    Err(PlayError::Input(
        format!("`{text}` is not a move here: {range}"),
        "a game of `:play` goes on, so an entry is a move: its number or its name as listed, `undo`, or `quit` to end the game and go back to the session".into(),
    ))
}
