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

use super::engine::SgSink;
use super::settings::run_range;
use super::sorted_parts::{lowered_runs, Boxed, Places, SortedParts, MAX_RUNS};
use crate::eval::compile::{Instance, KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::scan::{mark_columns, mark_runs};
use crate::eval::memo::{shape_push, Tag, MAX_COORDS};
use crate::ir::ir::Slot;

/// The settings of a move on one position whose options are placed
/// together: item `i` moving over `k` in `a..b` (not empty).
#[derive(Default)]
struct Settings {
    each: [(usize, (i64, i64)); MAX_COORDS],
    n: usize,
}

impl Settings {
    fn push(&mut self, i: usize, ab: (i64, i64)) -> Option<()> {
        *self.each.get_mut(self.n)? = (i, ab);
        self.n += 1;
        Some(())
    }
}

/// Places the options of every setting in `places`: the number of runs
/// put in `out`, if every option has a place.
fn place_all<P: Places>(
    parts: &SortedParts,
    places: &P,
    settings: &Settings,
    out: &mut [P::Run; MAX_RUNS],
) -> Option<usize> {
    let mut n = 0;
    for &(i, ab) in &settings.each[..settings.n] {
        n = parts.place(places, i, ab, (&mut *out, n))?;
    }
    Some(n)
}

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

    /// Places the options of `settings` from the parts of the position's
    /// list (usable) in its window, whichever its layout, and scans them:
    /// true if it placed every option and each has a value. False
    /// otherwise, having marked only values of options.
    #[inline]
    fn mark_sorted(&mut self, inst: &Instance, settings: &Settings) -> bool {
        let Some(scratch) = &mut self.run_scratch else {
            return false;
        };
        let parts = &scratch.parts;
        let memo = inst.memo.borrow();
        if parts.ranked {
            let Some(w) = memo.ranked(parts.shape) else {
                return false;
            };
            let Some(items) = w.sorted_items() else {
                return false;
            };
            let runs = &mut scratch.ranked_runs;
            let Some(n) = place_all(parts, &items, settings, &mut runs.runs) else {
                return false;
            };
            runs.n = n;
            return mark_columns(&w, &items, runs.get(), &mut self.seen);
        }
        let Some(w) = memo.window(parts.shape) else {
            return false;
        };
        let runs = &mut scratch.sorted_runs;
        let Some(n) = place_all(parts, &Boxed(w.layout()), settings, &mut runs.runs) else {
            return false;
        };
        runs.n = n;
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
        let scratch = self.run_scratch.get_or_insert_with(Box::default);
        let memo = inst.memo.borrow();
        let list = (xs, run.skips_repeats());
        if let Some(w) = memo.window(shape).filter(|w| w.n_coords() == xs.len()) {
            let runs = &mut scratch.sorted_runs;
            runs.n = lowered_runs(list, c, items, &Boxed(w.layout()), &mut runs.runs)?;
            return Some(mark_runs(&w, runs.get(), &mut self.seen));
        }
        let w = memo.ranked(shape)?;
        let places = w.sorted_items()?;
        let runs = &mut scratch.ranked_runs;
        runs.n = lowered_runs(list, c, items, &places, &mut runs.runs)?;
        Some(mark_columns(&w, &places, runs.get(), &mut self.seen))
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
        let mut settings = Settings::default();
        settings.push(i, (a, b));
        self.sorted_parts(inst, run, frame) && self.mark_sorted(inst, &settings)
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
        let [RunArg::SortedUpdate { .. }] = &run.args[..] else {
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
        let mut settings = Settings::default();
        let placed = match c {
            // `k in c..xs[i]` for item `i` moving: no code to run.
            Some(c) => self.item_settings(c, ks.clone(), &mut settings),
            None => run_settings(run, (slot, frame), ks.clone(), &mut settings),
        };
        frame.set_int(slot, ks.end - 1);
        placed.is_some() && self.mark_sorted(inst, &settings)
    }

    /// The settings `k in c..xs[i]` for the items `i` in `ks` of the
    /// position's list: `None` if an item is out of range.
    fn item_settings(&self, c: i64, ks: Range<i64>, settings: &mut Settings) -> Option<()> {
        let parts = &self.run_scratch.as_ref()?.parts;
        for i in ks {
            let i = usize::try_from(i).ok()?;
            let b = *parts.xs[..parts.n].get(i)?;
            if c < b {
                settings.push(i, (c, b))?;
            }
        }
        Some(())
    }
}

/// The settings of `run` for every `k` in `ks` of its last outer binding
/// `slot`, from its code: `None` if some code fails.
fn run_settings(
    run: &KeyRun,
    (slot, frame): (Slot, &mut KeyFrame),
    ks: Range<i64>,
    settings: &mut Settings,
) -> Option<()> {
    let [RunArg::SortedUpdate { index, .. }] = &run.args[..] else {
        return None;
    };
    for k in ks {
        frame.set_int(slot, k);
        let (a, b) = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive)?;
        if a < b {
            let i = usize::try_from(index.eval(frame)?).ok()?;
            settings.push(i, (a, b))?;
        }
    }
    Some(())
}
