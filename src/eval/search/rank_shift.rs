//! The options of a keyed run whose move changes a few items of a list
//! kept by rank (`compile::RankShift`, Staircase Nim): their places in the
//! memo follow from the position's own items and the changes
//! (`Ranking::shifted`: one column of binomials per prefix sum that moves
//! with the binding), read by the one scan. No option's key is written
//! but for those without a value yet.

use super::engine::SgSink;
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, Env, Instance, KeyFrame, Locals, RankShift, Seq};
use crate::eval::memo::scan::scan;
use crate::eval::memo::{shape_push, ItemShift, Tag, MAX_COORDS};
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
        let mut shifts = SmallVec::new();
        if item_shifts(shift, frame, &mut shifts).is_none() {
            return Ok(false);
        }
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
            let Some(walk) = window.shifted(items, &shifts, a, b) else {
                return Ok(false);
            };
            scan(&window, &walk, a..b, &mut self.seen, &mut self.slow);
        }
        if self.slow.is_empty() {
            return Ok(true);
        }
        // The options' keys, for those looked up one by one: `shifted`
        // checked that each changed item fits at `k = 0` shifted.
        let (mut bases, mut coefs) = ([0i64; MAX_COORDS], [0i64; MAX_COORDS]);
        let len = items.len();
        bases[..len].copy_from_slice(items);
        for s in &shifts {
            bases[s.index] += s.base;
            coefs[s.index] = s.per_k;
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

/// Puts the changes of `shift` for the bindings in `frame` in `out`,
/// ascending by index; `None` if an index is below 0 or repeated (a later
/// update would overwrite an earlier one), or code fails.
pub(super) fn item_shifts(shift: &RankShift, frame: &KeyFrame, out: &mut Shifts) -> Option<()> {
    for c in &shift.changes {
        out.push(ItemShift {
            index: usize::try_from(c.index.eval(frame)?).ok()?,
            base: c.base.eval(frame)?,
            per_k: c.per_k,
        });
    }
    if !out.is_sorted_by_key(|s| s.index) {
        out.sort_unstable_by_key(|s| s.index);
    }
    out.windows(2)
        .all(|w| w[0].index < w[1].index)
        .then_some(())
}

/// The changes of one setting: a few (Staircase Nim: two).
pub(super) type Shifts = SmallVec<[ItemShift; 4]>;
