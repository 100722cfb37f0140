//! The options of a keyed run whose move changes a few items of a list
//! kept by rank (`compile::RankShift`, Staircase Nim): their places in the
//! memo follow from the list's place and the move's steps (`option_ranks`:
//! the prefix sums the steps move have their binomials exchanged, read
//! along their columns when they move with the binding), read by the one
//! scan. No option's key is written but for those without a value yet.
//! A fill (`rank_fill.rs`) places options the same way.

use super::engine::SgSink;
use crate::diag::Fallible;
use crate::eval::compile::{
    AffineRun, Env, Instance, KeyFrame, Locals, OneColumn, RankShift, Seq, Step, Steps, FAR,
};
use crate::eval::memo::scan::scan;
use crate::eval::memo::{shape_push, Binomials, Placed, RankedRun, Tag, MAX_COORDS};
use crate::eval::value::InstanceId;
use crate::ir::ir::Slot;
use smallvec::SmallVec;

impl SgSink {
    /// Marks the options `k` in `a..b` (not empty, `k` in `slot`) of a
    /// move through its `shift`, if the memo keeps the position's lists by
    /// rank and every option lies in the ranking: those with a value from
    /// the window, the others looked up one by one. False, with nothing
    /// marked, if not (an index out of range, an item below 0, a sum past
    /// the ranking: the keyed run then writes the options' keys).
    pub(super) fn shifted_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        (slot, shift): (Slot, &RankShift),
        frame: &KeyFrame,
        (a, b): (i64, i64),
    ) -> Fallible<bool> {
        let Some((seq, items)) = frame.items(shift.list) else {
            return Ok(false);
        };
        let tag = match seq {
            Seq::List => Tag::List(items.len() as u32),
            Seq::Tuple => Tag::Tuple(items.len() as u32),
            Seq::Set => return Ok(false),
        };
        let Some(shape) = shape_push(0, 0, tag) else {
            return Ok(false);
        };
        self.slow.clear();
        {
            let memo = inst.memo.borrow();
            let Some(window) = memo.ranked(shape) else {
                return Ok(false);
            };
            let at = window.place(items);
            let bin = window.binomials();
            let Some(walk) =
                at.and_then(|at| option_ranks(&shift.steps, frame, items, &at, bin, (a, b)))
            else {
                return Ok(false);
            };
            scan(&window, &walk, a..b, &mut self.seen, &mut self.slow);
        }
        if self.slow.is_empty() {
            return Ok(true);
        }
        // The options' keys, for those looked up one by one: `option_ranks`
        // checked each index and that each changed item stays a natural.
        let (mut bases, mut coefs) = ([0i64; MAX_COORDS], [0i64; MAX_COORDS]);
        let len = items.len();
        bases[..len].copy_from_slice(items);
        for s in &shift.steps.steps {
            let j = s.index.eval(frame).unwrap_or_default() as usize;
            bases[j] += s.base;
            coefs[j] = s.per_k;
        }
        let run = AffineRun {
            instance,
            slot,
            lo: a,
            hi: b,
            shape,
            n_args: 1,
            bases: &bases[..len],
            coefs: &coefs[..len],
        };
        self.look_up_slow(env, &run)?;
        Ok(true)
    }
}

/// Where the options `k` in `a..b` (not empty) of a move with `steps` lie,
/// the move's other bindings in `frame`, for the list `items` placed at
/// `at`: the list's rank with the binomials of the prefix sums the steps
/// move exchanged. `None` if an index is out of range, a changed item
/// leaves the naturals or a moved sum the ranking, at either end of the
/// run (all are affine in `k`, so they stay within between).
pub(super) fn option_ranks<'m>(
    steps: &Steps,
    frame: &KeyFrame,
    items: &[i64],
    at: &Placed,
    bin: Binomials<'m>,
    (a, b): (i64, i64),
) -> Option<RankedRun<'m>> {
    let n = items.len();
    let (lo, last, max) = (a as i128, b as i128 - 1, bin.max_sum as i128);
    let mut fixed = at.rank;
    let mut moving: SmallVec<[(usize, isize); 2]> = SmallVec::new();
    let index = |s: &Step| Some(usize::try_from(s.index.eval(frame)?).ok()?).filter(|&j| j < n);
    let steps = &steps.steps;
    let mut below = None;
    for (t, s) in steps.iter().enumerate() {
        let j = index(s)?;
        // The steps' prefix sums hold only while the indices ascend.
        if below.is_some_and(|i| i >= j) {
            return None;
        }
        below = Some(j);
        let (x, q) = (items[j] as i128 + s.base as i128, s.per_k as i128);
        if x + q * lo < 0 || x + q * last < 0 {
            return None;
        }
        let (base, per_k) = (s.moved.0 as i128, s.moved.1 as i128);
        if (base, per_k) == (0, 0) {
            continue;
        }
        let end = steps.get(t + 1).map_or(Some(n), index)?;
        for c in j..end {
            let p = (at.c[c] - c) as i128 + base;
            let (p_lo, p_last) = (p + per_k * lo, p + per_k * last);
            if p_lo.min(p_last) < 0 || p_lo.max(p_last) > max {
                return None;
            }
            fixed = fixed.wrapping_sub(bin.table[c * bin.rows + at.c[c]]);
            let row = c * bin.rows + p_lo as usize + c;
            match per_k {
                0 => fixed = fixed.wrapping_add(bin.table[row]),
                _ => moving.push((row, per_k as isize)),
            }
        }
    }
    Some(RankedRun::new(bin.table, fixed, moving))
}

/// `option_ranks` for steps with one column (`OneColumn`), its first index
/// at `j0`: the checks of the setting in `i64` (the list is ranked, so its
/// items are small, and the column's constants and the run's ends are
/// within `FAR`), the `t`-th option at `fixed + table[row + step * t]` as
/// `(fixed, row, step)`. `None` where `option_ranks` decides.
#[inline(always)]
pub(super) fn column_ranks(
    col: &OneColumn,
    j0: i64,
    items: &[i64],
    at: &Placed,
    bin: Binomials<'_>,
    (a, b): (i64, i64),
) -> Option<(usize, usize, isize)> {
    let j0 = (usize::try_from(j0).ok())
        .filter(|&j| j + col.span < items.len() && a >= -FAR && b <= FAR)?;
    let last = b - 1;
    for &(d, base, per_k) in &col.items {
        let x = items[j0 + d] + base;
        if (x + per_k * a).min(x + per_k * last) < 0 {
            return None;
        }
    }
    let mut fixed = at.rank;
    for &(d, by) in &col.shifted {
        let (row, old) = moved_sum(at, bin, j0 + d, (by, by))?;
        fixed = fixed - old + bin.table[row];
    }
    let (d, by, q) = col.moving;
    let (row, old) = moved_sum(at, bin, j0 + d, (by + q * a, by + q * last))?;
    Some((fixed - old, row, q as isize))
}

/// The row of prefix sum `c` of `at` moved by `by` and the binomial it
/// leaves, if moved by `by` and by `to` it stays in the ranking.
#[inline(always)]
fn moved_sum(
    at: &Placed,
    bin: Binomials<'_>,
    c: usize,
    (by, to): (i64, i64),
) -> Option<(usize, usize)> {
    let p = (at.c[c] - c) as i64;
    if p + by.min(to) < 0 || p + by.max(to) > bin.max_sum as i64 {
        return None;
    }
    let column = c * bin.rows;
    Some((column + (p + by) as usize + c, bin.table[column + at.c[c]]))
}
