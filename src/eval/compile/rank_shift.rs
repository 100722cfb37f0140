//! A move of a list game kept by rank of sum (`item_sum.rs`) read as
//! changes to the position's own items (`RankShift`): its result is the
//! list with a few items, at indices free of the move's last binding `k`,
//! changed by amounts affine in `k` (Staircase Nim: `xs[i] - k` and
//! `xs[i - 1] + k`). The ranks of its options then follow from the
//! position's list and the changes alone (`search/rank_shift.rs`), with
//! no option's key written.

use super::frame::{KeyFrame, KERNEL_FRAME};
use super::int_code::Locals;
use super::item_sum::{index_below, sequence_order, updates};
use super::linear::{Linear, Term};
use crate::eval::builtins::Builtin;
use crate::eval::memo::Order;
use crate::ir::ir::*;
use std::cmp::Ordering;

/// The changes a move makes to the list in slot `list`, as steps up it.
#[derive(Debug)]
pub(crate) struct RankShift {
    pub list: Slot,
    pub steps: Steps,
    /// The move's other bindings take the same settings, and its steps
    /// the same indices, for every list of one length: they read the list
    /// only through `len`, and no local but those bindings and the game's
    /// static arguments. A fill works them out once (`search/rank_fill.rs`).
    pub fixed: bool,
}

/// `constant + sum of coefficient * local`, read from a `KeyFrame`.
#[derive(Clone, Debug)]
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

    /// `c` if the code is `slot + c`.
    fn offset_from(&self, slot: Slot) -> Option<i64> {
        (self.terms[..] == [(slot, 1)]).then_some(self.constant)
    }

    /// The affine form `lin` (`Linear::is_affine_i64`) without the term
    /// of `k`, if every other local lies in the frame.
    fn of(lin: &Linear, k: Slot) -> Option<LinearCode> {
        let terms: Vec<(Slot, i64)> = (lin.locals())
            .filter(|&(s, _)| s != k)
            .map(|(s, c)| ((s as usize) < KERNEL_FRAME).then_some((s, c)))
            .collect::<Option<_>>()?;
        Some(LinearCode {
            constant: i64::try_from(lin.constant).ok()?,
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
    /// A change's constant part depends on a binding.
    NotSteps,
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
            ShiftRefusal::NotSteps => "a change's constant part depends on a binding",
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
    let mut chain = updates(arg, list).ok_or(ShiftRefusal::NotItemChanges)?;
    // Indices of one form apart by constants (`i`, `i - 1`) are ascending
    // once sorted by their constants, and so are bindings one of which
    // ranges below the other (`j in 0..i`); indices of other forms are
    // taken in the order the run finds them ascending in, or not at all
    // (`search/rank_shift.rs`, `step_ends`, checks it).
    let below = |a: &Linear, b: &Linear| match a.terms == b.terms {
        true => a.constant < b.constant,
        false => index_below(m, a, b),
    };
    chain.sort_by(|(a, _), (b, _)| below(b, a).cmp(&below(a, b)));
    let ordered = chain.windows(2).all(|w| below(&w[0].0, &w[1].0));
    let one_form = chain
        .iter()
        .all(|(index, _)| index.terms == chain[0].0.terms);
    let (mut b, mut q) = (0i64, 0i64);
    let mut steps = Vec::with_capacity(chain.len());
    for (index, change) in &chain {
        let k_term = Term::Local(k);
        if index.mentions(k_term) {
            return Err(ShiftRefusal::IndexMovesWithBinding);
        }
        if change.locals().any(|(s, _)| s != k) {
            return Err(ShiftRefusal::NotSteps);
        }
        // Within `i64`: `updates` reads affine forms only.
        let (base, per_k) = (change.constant as i64, change.coef_of(k_term) as i64);
        let (Some(nb), Some(nq)) = (b.checked_add(base), q.checked_add(per_k)) else {
            return Err(ShiftRefusal::NotSteps);
        };
        (b, q) = (nb, nq);
        steps.push(Step {
            index: LinearCode::of(index, k).ok_or(ShiftRefusal::PastFrame)?,
            base,
            per_k,
            moved: (b, q),
        });
    }
    if steps.is_empty() {
        return Err(ShiftRefusal::NotItemChanges);
    }
    let column = one_form.then(|| OneColumn::of(&chain, &steps)).flatten();
    let outer = &m.bindings[..m.bindings.len().saturating_sub(1)];
    let fixed_slot = |s: Slot| {
        (s as usize) < g.n_statics
            || outer
                .iter()
                .any(|b| matches!(b.pattern, IrPattern::Slot { slot, .. } if slot == s))
    };
    let fixed = outer
        .iter()
        .all(|b| per_length(&b.iterable, list, &fixed_slot))
        && (chain.iter()).all(|(index, _)| {
            index.terms.iter().all(|(t, _)| match t[..] {
                [Term::Local(s)] => fixed_slot(s),
                _ => false,
            })
        });
    Ok(RankShift {
        list,
        fixed,
        steps: Steps {
            ordered,
            steps,
            column,
        },
    })
}

/// Whether `e` is the same for every list in slot `list` of one length:
/// it reads the list only as `len(list)` and no local for which `fixed`
/// is false (no comprehension or `let`, whose locals are not walked).
fn per_length(e: &IrExpr, list: Slot, fixed: &dyn Fn(Slot) -> bool) -> bool {
    match &e.kind {
        IrKind::CallBuiltin {
            builtin: Builtin::Len,
            args,
        } if matches!(args[..], [IrExpr { kind: IrKind::Local(s), .. }] if s == list) => true,
        &IrKind::Local(s) => s != list && fixed(s),
        kind => (kind.children()).is_some_and(|xs| xs.iter().all(|x| per_length(x, list, fixed))),
    }
}

/// Steps that move one prefix sum with `k`, by `+k` or `-k` (`k` coins
/// moved from one item to another, Staircase Nim's `i` to `i - 1`), and
/// no other, their indices one form plus constants: the options lie down
/// one binomial column from the first, each known by one addition
/// (`search/rank_fill.rs`, `Lean`).
#[derive(Debug)]
pub(crate) struct OneColumn {
    /// The first step's index; each step's lies `offset` past it.
    pub index: LinearCode,
    /// Per step: `(offset, base, per_k)`.
    pub items: Vec<(usize, i64, i64)>,
    /// The prefix sum moving with `k`: `(offset, base, slope)`.
    pub moving: (usize, i64, i64),
}

impl OneColumn {
    /// The column of `steps` (their indices in `chain`, sorted), if they
    /// have one: the last step moving no prefix sum (the list's sum kept).
    fn of(chain: &[(Linear, Linear)], steps: &[Step]) -> Option<OneColumn> {
        let first = chain[0].0.constant;
        let offsets: Vec<usize> = (chain.iter())
            .map(|(index, _)| usize::try_from(index.constant.checked_sub(first)?).ok())
            .collect::<Option<_>>()?;
        if steps.last()?.moved != (0, 0) || offsets.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        let mut moving = None;
        for (t, s) in steps.iter().enumerate() {
            for c in offsets[t]..offsets.get(t + 1).copied().unwrap_or(offsets[t]) {
                match s.moved {
                    (0, 0) => {}
                    (by, q @ (1 | -1)) if moving.is_none() => moving = Some((c, by, q)),
                    _ => return None,
                }
            }
        }
        Some(OneColumn {
            index: steps[0].index.clone(),
            items: (offsets.iter().zip(steps))
                .map(|(&d, s)| (d, s.base, s.per_k))
                .collect(),
            moving: moving?,
        })
    }

    /// Whether every item a run of `k` from `k_lo` changes is proven to
    /// stay a natural, the run ending at `xs[i] + plus` when `end` is
    /// `Some((i, plus))`: an item raised from `k_lo >= 0` on, or `xs[i]`
    /// lowered by `k` (to at least `base + 1 - plus`).
    pub(crate) fn proven(&self, k_lo: Option<i64>, end: Option<(Slot, i64)>) -> bool {
        let from_natural = k_lo.is_some_and(|c| c >= 0);
        let own = |d: usize| end.filter(|&(i, _)| self.index.offset_from(i) == Some(-(d as i64)));
        (self.items.iter()).all(|&(d, base, per_k)| match own(d) {
            _ if from_natural && base >= 0 && per_k >= 0 => true,
            Some((_, plus)) => per_k == -1 && base + 1 - plus >= 0,
            None => false,
        })
    }
}

/// A move's changes as steps up the list, bases constants: the prefix
/// sums from one changed index up to the next move by `moved`, a constant
/// plus a constant times `k`, while the indices ascend in this order.
#[derive(Debug)]
pub(crate) struct Steps {
    /// The indices always ascend in this order: each of one form with the
    /// next and a lower constant, or a binding ranging below it.
    pub ordered: bool,
    pub steps: Vec<Step>,
    pub column: Option<OneColumn>,
}

/// One change of `Steps`: item `index` plus `base + per_k * k`.
#[derive(Debug)]
pub(crate) struct Step {
    pub index: LinearCode,
    pub base: i64,
    pub per_k: i64,
    pub moved: (i64, i64),
}

impl Steps {
    /// How every option's rank compares with its parent's, `k` at least
    /// `k_lo` (`None`: unknown), if that is provably one way: a list's
    /// rank grows with each of its prefix sums, so it grows (`Greater`)
    /// when every prefix sum moves up or not at all and one strictly, and
    /// shrinks (`Less`) the other way.
    pub(crate) fn rank_sign(&self, k_lo: Option<i64>) -> Option<Ordering> {
        // Indices not proven ascending may come in another order at run
        // time.
        if !self.ordered {
            return None;
        }
        let mut moves = Vec::with_capacity(self.steps.len());
        for s in &self.steps {
            // The move at the least `k` and its slope: it keeps the sign
            // of both from there on.
            let at_lo = match (s.moved, k_lo) {
                ((b, 0), _) => b,
                ((b, q), Some(k)) => b.checked_add(q.checked_mul(k)?)?,
                (_, None) => return None,
            };
            moves.push((at_lo.signum(), s.moved.1.signum()));
        }
        [Ordering::Greater, Ordering::Less].into_iter().find(|&o| {
            let s = if o == Ordering::Greater { 1 } else { -1 };
            moves.iter().all(|&(a, q)| a != -s && q != -s) && moves.iter().any(|&(a, _)| a == s)
        })
    }
}
