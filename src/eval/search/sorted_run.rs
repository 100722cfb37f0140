//! The commonest keyed run, read straight off the memo's window: a move
//! whose one argument is `sorted(update(xs, i, k))` (Welter's game), the
//! other items of `xs` in order. Each place of `k` among them is one
//! strided run, placed from the list's items (`sorted_parts.rs`) and
//! scanned at once with the runs of every other setting of the item that
//! moves; no key is written. Anything else (other arguments, a list not
//! ascending, options outside the window or without a value yet) is left
//! to `key_run.rs`.

use std::ops::Range;

use super::engine::SgSink;
use super::settings::run_range;
use super::sorted_parts::{sorted_runs, Boxed, Settings};
use crate::eval::compile::{Instance, KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::scan::{mark_columns, mark_runs};
use crate::eval::memo::{shape_push, Tag, MAX_COORDS};
use crate::ir::ir::Slot;

impl SgSink {
    /// Places the options of `settings` (item `i` moving over `k` in
    /// `a..b`, not empty) of `run` from the position's list
    /// in its window, whichever its layout, and scans them: true if it
    /// placed every option and each has a value. False otherwise, having
    /// marked only values of options.
    fn mark_sorted(
        &mut self,
        inst: &Instance,
        run: &KeyRun,
        frame: &KeyFrame,
        settings: impl Iterator<Item = (usize, (i64, i64))>,
    ) -> bool {
        let [RunArg::SortedUpdate { list, .. }] = &run.args[..] else {
            return false;
        };
        let Some((seq, xs)) = frame.items(*list) else {
            return false;
        };
        // A set updated is a set again, sorted anew: not here.
        if seq == Seq::Set {
            return false;
        }
        let Some(shape) = shape_push(0, 0, Tag::List(xs.len() as u32)) else {
            return false;
        };
        let scratch = self.run_scratch.get_or_insert_with(Box::default);
        let memo = inst.memo.borrow();
        let list = (xs, run.skips_repeats());
        if let Some(w) = memo.window(shape).filter(|w| w.n_coords() == xs.len()) {
            let runs = &mut scratch.sorted_runs;
            let Some(n) = sorted_runs(list, settings, &Boxed(w.layout()), &mut runs.runs) else {
                return false;
            };
            runs.n = n;
            return mark_runs(&w, runs.get(), &mut self.seen);
        }
        let Some(w) = memo.ranked(shape) else {
            return false;
        };
        let Some(places) = w.sorted_items() else {
            return false;
        };
        let runs = &mut scratch.ranked_runs;
        let Some(n) = sorted_runs(list, settings, &places, &mut runs.runs) else {
            return false;
        };
        runs.n = n;
        mark_columns(&w, &places, runs.get(), &mut self.seen)
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
        ab: (i64, i64),
    ) -> bool {
        let [RunArg::SortedUpdate { index, .. }] = &run.args[..] else {
            return false;
        };
        let Some(i) = index.eval(frame).and_then(|i| usize::try_from(i).ok()) else {
            return false;
        };
        self.mark_sorted(inst, run, frame, std::iter::once((i, ab)))
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
        let [RunArg::SortedUpdate { list, index }] = &run.args[..] else {
            return false;
        };
        // A few settings (one per item).
        if ks.is_empty() || ks.end.saturating_sub(ks.start) > MAX_COORDS as i64 {
            return false;
        }
        // `k in c..xs[i]` for item `i` moving: no code to run.
        if let Some(c) = run.item_range(slot) {
            frame.set_int(slot, ks.end - 1);
            let Some((_, xs)) = frame.items(*list) else {
                return false;
            };
            // An item out of range fails in `sorted_runs`.
            let settings = ks.map(|i| {
                let i = usize::try_from(i).unwrap_or(usize::MAX);
                (i, (c, xs.get(i).map_or(c, |&b| b)))
            });
            return self.mark_sorted(inst, run, frame, settings);
        }
        let mut settings = Settings::default();
        let placed = ks.clone().try_for_each(|k| {
            frame.set_int(slot, k);
            let ab = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive)?;
            let i = usize::try_from(index.eval(frame)?).ok()?;
            // `k not in xs` excludes the moving item's own value.
            match run.excluded(frame)? {
                Some(x) => settings.push_without(i, ab, x),
                None => settings.push(i, ab),
            }
        });
        frame.set_int(slot, ks.end - 1);
        placed.is_some() && self.mark_sorted(inst, run, frame, settings.get())
    }
}
