//! The options of a keyed run whose move changes a few items of a list
//! kept by rank (`compile::RankShift`, Staircase Nim): their places in the
//! memo follow from the list's place and the move's steps (`step_ends`,
//! `ranks_at`: the prefix sums the steps move have their binomials exchanged, read
//! along their columns when they move with the binding), read by the one
//! scan. No option's key is written but for those without a value yet.
//! A fill (`rank_fill.rs`) places options the same way.

use super::engine::SgSink;
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, Env, Instance, KeyFrame, Locals, RankShift, Seq, Steps};
use crate::eval::memo::scan::scan;
use crate::eval::memo::{shape_push, Binomials, Placed, RankedRun, Tag, MAX_COORDS};
use crate::eval::value::InstanceId;
use smallvec::SmallVec;

impl SgSink {
    /// Marks the options `k` in `a..b` (not empty) of a
    /// move through its `shift`, if the memo keeps the position's lists by
    /// rank and every option lies in the ranking: those with a value from
    /// the window, the others looked up one by one. False, with nothing
    /// marked, if not (an index out of range, an item below 0, a sum past
    /// the ranking: the keyed run then writes the options' keys).
    pub(super) fn shifted_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        shift: &RankShift,
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
            let ends = step_ends(&shift.steps, frame, items.len());
            let placed = at.zip(ends);
            let Some(walk) =
                placed.and_then(|(at, e)| ranks_at(&shift.steps, &e, items, &at, bin, (a, b)))
            else {
                return Ok(false);
            };
            scan(&window, &walk, a..b, &mut self.seen, &mut self.slow);
        }
        if self.slow.is_empty() {
            return Ok(true);
        }
        // The options' keys, for those looked up one by one: `step_ends`
        // and `ranks_at` checked each index and that each changed item stays a natural.
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

/// Each step's index, the move's other bindings in `frame`, and the
/// list's length `n` after the last: `None` if one is outside the list or
/// they do not ascend (the steps' prefix sums hold only then).
#[inline]
pub(super) fn step_ends(steps: &Steps, frame: &KeyFrame, n: usize) -> Option<Ends> {
    let mut ends = [n; MAX_COORDS + 1];
    for (t, s) in steps.steps.iter().enumerate() {
        let j = usize::try_from(s.index.eval(frame)?).ok()?;
        if j >= n || t.checked_sub(1).is_some_and(|u| ends[u] >= j) {
            return None;
        }
        ends[t] = j;
    }
    Some(ends)
}

/// The steps' indices, ascending within the list, then its length.
pub(super) type Ends = [usize; MAX_COORDS + 1];

/// Where the options `k` in `a..b` (not empty) of a move with `steps` at
/// indices `ends` (`step_ends`) lie, for the list `items` placed at `at`:
/// the list's rank with the binomials of the prefix sums the steps move
/// exchanged. `None` if a changed item leaves the naturals or the
/// option's sum the ranking, at either end of the run (all are affine in
/// `k`, so they stay within between). An option of natural items has its
/// prefix sums between 0 and its sum, so those are not checked one by
/// one.
pub(super) fn ranks_at<'m>(
    steps: &Steps,
    ends: &Ends,
    items: &[i64],
    at: &Placed,
    bin: Binomials<'m>,
    (a, b): (i64, i64),
) -> Option<RankedRun<'m>> {
    let (n, steps) = (items.len(), &steps.steps);
    let (lo, last) = (a as i128, b as i128 - 1);
    let (sum, max) = ((at.c[n - 1] + 1 - n) as i128, bin.max_sum as i128);
    let (by, per) = steps.last()?.moved;
    let (by, per) = (by as i128, per as i128);
    if sum + by + per * lo > max || sum + by + per * last > max {
        return None;
    }
    let mut fixed = at.rank;
    let mut moving = SmallVec::new();
    for (t, s) in steps.iter().enumerate() {
        let (x, q) = (items[ends[t]] as i128 + s.base as i128, s.per_k as i128);
        if x + q * lo < 0 || x + q * last < 0 {
            return None;
        }
        let (base, per_k) = (s.moved.0 as i128, s.moved.1 as i128);
        if (base, per_k) == (0, 0) {
            continue;
        }
        for c in ends[t]..ends[t + 1] {
            let p_lo = (at.c[c] - c) as i128 + base + per_k * lo;
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
