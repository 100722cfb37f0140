//! Why the planner keeps a move, or a whole game, off kernel code: each
//! refusal is named where the planner decides (`kernel.rs`), and
//! `--explain` prints the same value (`explain.rs`).

use std::rc::Rc;

use super::int_tree::NotIntCode;
use crate::eval::builtins::Builtin;

/// Why a move has no kernel form; the kernel runs it on the general path
/// (its compiled closure), or the game has no kernel when no move has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Its result is not a position of the game itself (same static
    /// arguments), a sum of such positions, or 0.
    ResultElsewhere,
    /// Its result is a compound (`pass`, `misere`, ...).
    ResultCompound(Builtin),
    /// Its result chooses with `if` or reads a function's body, and a
    /// condition, an argument or the `where` of a position the body
    /// writes is not integer code, and why (when a subexpression is).
    ChoiceNotIntegerCode(Option<NotIntCode>),
    /// This argument (counted from 0) of a part of its result is not
    /// integer code, and why.
    ArgumentNotIntegerCode(usize, NotIntCode),
    /// A binding destructures a tuple.
    BindingPattern,
    /// This binding's slot lies past the kernel frame.
    FrameFull(Rc<str>),
    /// The bounds of this binding's range are not integer code, and why.
    BoundsNotIntegerCode(Rc<str>, NotIntCode),
    /// This binding runs over a value computed by the move.
    SourceComputed(Rc<str>),
    /// This binding runs over an argument of the position (a list or a
    /// set), which only a kernel over lists and sets reads.
    SourceArgument(Rc<str>),
    /// Its guard is not integer code, and why.
    GuardNotIntegerCode(NotIntCode),
    /// In a kernel over lists and sets: the move is integer code, but not
    /// in a form that kernel runs.
    NotOnKeyFrame,
}

/// Why a game has no kernel at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NoKernel {
    /// An alias, expanded where it is used.
    Alias,
    /// A game without moves.
    NoMoves,
    /// A game without arguments.
    NoArguments,
    /// More arguments than a kernel frame holds.
    TooManyArguments,
    /// No move has a kernel form: each move's refusal, in order.
    NoMove(Vec<Refusal>),
}
