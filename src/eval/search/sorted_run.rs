//! The commonest keyed run, read straight off the memo's window: a move
//! whose one argument is `sorted(update(xs, i, k))` (Welter's game), the
//! other items of `xs` in order. Each place of `k` among them is one
//! strided run, placed by moving one item's coordinate at a time and
//! scanned at once; no key is written. The parts of the position's items
//! in the window are computed once for every setting of the outer
//! bindings (`i`: which item moves), in `SortedParts`. Anything else
//! (other arguments, items to sort, options outside the window or without
//! a value yet) is left to `key_run.rs`.

use std::ops::Range;

use super::engine::{run_range, SgSink};
use super::sorted_parts::{lowered_runs, Runs, SortedParts};
use crate::eval::compile::{Instance, KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::scan::mark_runs;
use crate::eval::memo::{shape_push, Tag, Window, MAX_COORDS};
use crate::ir::ir::Slot;

impl SgSink {
    /// Marks the position's list stale: the next `sorted_runs` computes it.
    pub(super) fn sorted_parts_stale(&mut self) {
        if let Some(scratch) = &mut self.run_scratch {
            scratch.parts.stale();
        }
    }

    /// Whether the position's list has the form for `run`, its parts
    /// computed on first use.
    fn sorted_parts(&mut self, inst: &Instance, run: &KeyRun, frame: &KeyFrame) -> bool {
        let parts = &mut self.run_scratch.get_or_insert_with(Box::default).parts;
        if !parts.ready {
            parts.set(&inst.memo.borrow(), run, frame);
        }
        parts.usable
    }

    /// Runs `place` on the parts of the position's list (usable) and
    /// its window to add runs, then scans them: true if it placed every
    /// option and each has a value. False otherwise, having marked only
    /// values of options.
    #[inline]
    fn mark_sorted(
        &mut self,
        inst: &Instance,
        place: impl FnOnce(&SortedParts, &Window, &mut Runs) -> Option<()>,
    ) -> bool {
        let Some(scratch) = &mut self.run_scratch else {
            return false;
        };
        let (parts, runs) = (&scratch.parts, &mut scratch.sorted_runs);
        let memo = inst.memo.borrow();
        let Some(w) = memo.window(parts.shape) else {
            return false;
        };
        runs.n = 0;
        if place(parts, &w, runs).is_none() {
            return false;
        }
        mark_runs(&w, runs.get(), &mut self.seen)
    }

    /// Marks the options of every setting `i` in `items` of a move
    /// `k in c..xs[i]` (`run`) on an ascending list, straight from its
    /// items (`lowered_runs`): whether it marked every option, each with a
    /// value (if not, it marked only values of options). `None`, marking
    /// nothing, if the list or its runs do not have the form.
    fn lowered(
        &mut self,
        inst: &Instance,
        run: &KeyRun,
        frame: &KeyFrame,
        c: i64,
        items: Range<i64>,
    ) -> Option<bool> {
        let [RunArg::SortedUpdate { list, .. }] = &run.args[..] else {
            return None;
        };
        let (seq, xs) = frame.items(*list)?;
        let shape = shape_push(0, 0, Tag::List(xs.len() as u32))?;
        let items = usize::try_from(items.start).ok()?..usize::try_from(items.end).ok()?;
        if seq == Seq::Set {
            return None;
        }
        let runs = &mut self
            .run_scratch
            .get_or_insert_with(Box::default)
            .sorted_runs;
        let memo = inst.memo.borrow();
        let w = memo.window(shape).filter(|w| w.n_coords() == xs.len())?;
        let list = (xs, run.skips_repeats());
        runs.n = lowered_runs(list, c, items, w.layout(), &mut runs.runs)?;
        Some(mark_runs(&w, runs.get(), &mut self.seen))
    }

    /// Marks the options `k` in `a..b` (not empty) of `run` if it has this
    /// form and every option has a value in the window: true then. False
    /// otherwise, with no option missed that the general runs would not
    /// mark again (they do it all).
    pub(super) fn sorted_runs(
        &mut self,
        inst: &Instance,
        run: &KeyRun,
        frame: &KeyFrame,
        (a, b): (i64, i64),
    ) -> bool {
        let [RunArg::SortedUpdate { index, .. }] = &run.args[..] else {
            return false;
        };
        let Some(i) = index.eval(frame).and_then(|i| usize::try_from(i).ok()) else {
            return false;
        };
        self.sorted_parts(inst, run, frame)
            && self.mark_sorted(inst, |parts, w, runs| {
                runs.n = parts.place(w, i, (a, b), (&mut runs.runs, runs.n))?;
                Some(())
            })
    }

    /// `sorted_runs` for every setting `k` in `ks` of the last outer
    /// binding `slot` of a move (the item that moves), their runs marked
    /// in one go: true if every option was marked. False otherwise, having
    /// marked only values of options: the settings then run one by one.
    pub(super) fn sorted_settings(
        &mut self,
        inst: &Instance,
        run: &KeyRun,
        slot: Slot,
        frame: &mut KeyFrame,
        ks: Range<i64>,
    ) -> bool {
        let [RunArg::SortedUpdate { index, .. }] = &run.args[..] else {
            return false;
        };
        // A few settings (one per item).
        if ks.is_empty() || ks.end.saturating_sub(ks.start) > MAX_COORDS as i64 {
            return false;
        }
        let c = run.item_range(slot);
        if let Some(done) = c.and_then(|c| self.lowered(inst, run, frame, c, ks.clone())) {
            frame.set_int(slot, ks.end - 1);
            return done;
        }
        // The moving item's value excluded in every run: one by one.
        if !self.sorted_parts(inst, run, frame) || (c.is_none() && run.not_in_list) {
            return false;
        }
        if let Some(c) = c {
            // `k in c..xs[i]` for item `i` moving: no code to run.
            let done = self.mark_sorted(inst, |parts, w, runs| {
                for i in ks.clone() {
                    let i = usize::try_from(i).ok()?;
                    let b = *parts.xs[..parts.n].get(i)?;
                    if c < b {
                        runs.n = parts.place(w, i, (c, b), (&mut runs.runs, runs.n))?;
                    }
                }
                Some(())
            });
            frame.set_int(slot, ks.end - 1);
            return done;
        }
        self.mark_sorted(inst, |parts, w, runs| {
            for k in ks {
                frame.set_int(slot, k);
                let (a, b) = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive)?;
                if a < b {
                    let i = usize::try_from(index.eval(frame)?).ok()?;
                    runs.n = parts.place(w, i, (a, b), (&mut runs.runs, runs.n))?;
                }
            }
            Some(())
        })
    }
}
