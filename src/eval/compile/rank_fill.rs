//! Whether a game's lists kept by rank of sum can be valued by a fill
//! (`search/rank_fill.rs`): every move a run of changes to the list
//! (`RankShift`) whose options all rank on one side of their parent
//! (`RankShift::rank_sign`). Lists are then valued in the opposite order,
//! each from options valued before it, with no search: a table asked
//! level by level is filled a level at a time.

use super::int_code::Operand;
use super::kernel::{Kernel, KernelMove, MovePlan};
use std::cmp::Ordering;

/// The order a fill values a level's lists in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FillOrder {
    /// Options rank above their parents (they keep its sum: its level):
    /// the asked level alone, highest rank first.
    Down,
    /// Options rank below (a lower sum, or the same): every level up to
    /// the asked one, lowest rank first.
    Up,
}

/// Why a game's lists are not valued by a fill (`--explain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FillRefusal {
    /// The game has a `where`: some lists are no positions.
    Where,
    /// A move is not a run of changes to the list read by rank.
    NotShifted,
    /// Options of some move may rank on either side of their parent, or
    /// moves disagree.
    SignUnproven,
}

impl FillRefusal {
    pub(crate) fn text(self) -> &'static str {
        match self {
            FillRefusal::Where => "the game has a `where`",
            FillRefusal::NotShifted => {
                "a move's options are not placed by rank from the list's own items, or it has \
                 a guard"
            }
            FillRefusal::SignUnproven => {
                "the moves' changes are not proven to move every option's rank one way from its \
                 parent's"
            }
        }
    }
}

/// The fill order of a game with `kernel`, or why it has none.
pub(crate) fn fill_order(has_where: bool, kernel: &Kernel) -> Result<FillOrder, FillRefusal> {
    if has_where {
        return Err(FillRefusal::Where);
    }
    let mut sign = None;
    for plan in &kernel.moves {
        let MovePlan::Kernel(KernelMove::KeyLoop(m)) = plan else {
            return Err(FillRefusal::NotShifted);
        };
        let plain = m.guard.is_none() && m.filter.is_none() && m.bits_run.is_none();
        let (Some(run), true) = (&m.run, plain) else {
            return Err(FillRefusal::NotShifted);
        };
        let (Ok(shift), false) = (&run.shift, run.skips_repeats()) else {
            return Err(FillRefusal::NotShifted);
        };
        let k_lo = match run.lo {
            Operand::Const(c) => Some(c),
            _ => None,
        };
        let s = shift
            .steps
            .rank_sign(k_lo)
            .ok_or(FillRefusal::SignUnproven)?;
        if *sign.get_or_insert(s) != s {
            return Err(FillRefusal::SignUnproven);
        }
    }
    match sign {
        Some(Ordering::Greater) => Ok(FillOrder::Down),
        Some(_) => Ok(FillOrder::Up),
        None => Err(FillRefusal::NotShifted),
    }
}
