//! A move of a list game kept by rank of sum (`item_sum.rs`) read as
//! changes to the position's own items (`RankShift`): its result is the
//! list with a few items, at indices free of the move's last binding `k`,
//! changed by amounts affine in `k` (Staircase Nim: `xs[i] - k` and
//! `xs[i - 1] + k`). The ranks of its options then follow from the
//! position's list and the changes alone (`memo::Ranking::shifted`), with
//! no option's key written.

use super::frame::{KeyFrame, KERNEL_FRAME};
use super::int_code::Locals;
use super::item_sum::{sequence_order, updates, Linear};
use crate::eval::memo::Order;
use crate::ir::ir::*;

/// The changes a move makes to the list in slot `list`, one per update.
#[derive(Debug)]
pub(crate) struct RankShift {
    pub list: Slot,
    pub changes: Vec<ItemChange>,
}

/// Item `index` of the list plus `base + per_k * k`.
#[derive(Debug)]
pub(crate) struct ItemChange {
    pub index: LinearCode,
    pub base: LinearCode,
    pub per_k: i64,
}

/// `constant + sum of coefficient * local`, read from a `KeyFrame`.
#[derive(Debug)]
pub(crate) struct LinearCode {
    constant: i64,
    terms: Vec<(Slot, i64)>,
}

impl LinearCode {
    /// Its value; `None` if a local is not an integer or it overflows.
    #[inline]
    pub(crate) fn eval(&self, f: &KeyFrame) -> Option<i64> {
        self.terms.iter().try_fold(self.constant, |acc, &(s, c)| {
            acc.checked_add(c.checked_mul(f.int(s)?)?)
        })
    }

    /// `lin` without the term of `k`, if every other local lies in the
    /// frame.
    fn of(lin: &Linear, k: Slot) -> Option<LinearCode> {
        let terms: Vec<(Slot, i64)> = (lin.terms.iter())
            .filter(|(&s, _)| s != k)
            .map(|(&s, &c)| ((s as usize) < KERNEL_FRAME).then_some((s, c)))
            .collect::<Option<_>>()?;
        Some(LinearCode {
            constant: lin.constant,
            terms,
        })
    }
}

/// Why a move with a last binding read as a run has no `RankShift`
/// (`--explain` prints it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShiftRefusal {
    /// Some move of the game may raise the list's sum: lists are not kept
    /// by rank.
    NotRanked,
    /// The result is not the game's own list written as `update` chains
    /// of items plus changes linear in the bindings.
    NotItemChanges,
    /// An updated index depends on the last binding.
    IndexMovesWithBinding,
    /// A local the changes read lies past the kernel frame.
    PastFrame,
}

impl ShiftRefusal {
    /// The refusal as `--explain` words it.
    pub(crate) fn text(self) -> &'static str {
        match self {
            ShiftRefusal::NotRanked => {
                "a move may raise the sum of the list's items, so lists are not kept by rank"
            }
            ShiftRefusal::NotItemChanges => {
                "the result is not the list with items changed by amounts linear in the bindings"
            }
            ShiftRefusal::IndexMovesWithBinding => "an updated index depends on the last binding",
            ShiftRefusal::PastFrame => "a local it reads lies past the kernel frame",
        }
    }
}

/// The `RankShift` of move `m` of game `game` over its last binding `k`.
pub(crate) fn rank_shift(
    game: GameId,
    g: &IrGame,
    m: &IrMove,
    k: Slot,
) -> Result<RankShift, ShiftRefusal> {
    if sequence_order(game, g) != Some(Order::Sums) {
        return Err(ShiftRefusal::NotRanked);
    }
    // Ranked by sum: one argument, every move an update chain on the list.
    let list = g.n_statics as Slot;
    let IrKind::Position { args, .. } = &m.result.kind else {
        return Err(ShiftRefusal::NotItemChanges);
    };
    let [arg] = &args[..] else {
        return Err(ShiftRefusal::NotItemChanges);
    };
    let chain = updates(arg, list).ok_or(ShiftRefusal::NotItemChanges)?;
    let mut changes = Vec::with_capacity(chain.len());
    for (index, change) in &chain {
        if index.terms.contains_key(&k) {
            return Err(ShiftRefusal::IndexMovesWithBinding);
        }
        changes.push(ItemChange {
            index: LinearCode::of(index, k).ok_or(ShiftRefusal::PastFrame)?,
            base: LinearCode::of(change, k).ok_or(ShiftRefusal::PastFrame)?,
            per_k: change.terms.get(&k).copied().unwrap_or(0),
        });
    }
    // Indices of one form apart by constants (`i`, `i - 1`) are then in
    // ascending order at run time, as `Ranking::shifted` reads them.
    if changes
        .windows(2)
        .all(|w| w[0].index.terms == w[1].index.terms)
    {
        changes.sort_by_key(|c| c.index.constant);
    }
    Ok(RankShift { list, changes })
}
