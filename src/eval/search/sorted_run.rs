//! The commonest keyed run, read straight off the memo's window: a move
//! whose one argument is `sorted(update(xs, i, k))` (Welter's game), the
//! other items of `xs` in order. Each place of `k` among them is one
//! strided run, placed by moving one item's coordinate at a time; no key
//! is written. The parts of the position's items in the window are
//! computed once for every setting of the outer bindings (`i`: which item
//! moves), in `SortedParts`. Anything else (other arguments, items to
//! sort, options outside the window or without a value yet) is left to
//! `key_run.rs`.

use std::ops::Range;

use super::engine::{run_range, SgSink};
use super::scan::{scan_runs, NO_VALUE_BYTES};
use crate::eval::compile::{Instance, KeyFrame, KeyRun, RunArg};
use crate::eval::memo::MAX_COORDS;
use crate::ir::ir::Slot;

impl SgSink {
    /// Marks the position's list stale: the next `sorted_runs` computes it.
    pub(super) fn sorted_parts_stale(&mut self) {
        if let Some(scratch) = &mut self.run_scratch {
            scratch.parts.stale();
        }
    }

    /// The parts of the position's list for `run`, if it has the form.
    fn sorted_parts(&mut self, inst: &Instance, run: &KeyRun, frame: &KeyFrame) -> Option<()> {
        let parts = &mut self.run_scratch.get_or_insert_with(Box::default).parts;
        if !parts.ready {
            parts.set(inst, run, frame);
        }
        parts.usable.then_some(())
    }

    /// Scans the runs in `parts.runs`: false, marking only values, if
    /// some option has no value yet.
    fn scan_sorted(&mut self, inst: &Instance) -> bool {
        let Some(scratch) = &self.run_scratch else {
            return false;
        };
        let parts = &scratch.parts;
        let memo = inst.memo.borrow();
        let Some(w) = memo.window(parts.shape) else {
            return false;
        };
        if scan_runs(
            w.dense(),
            &parts.runs[..parts.n_runs],
            self.stamp,
            &mut self.seen,
        ) {
            // Options without a value: the general runs collect them.
            NO_VALUE_BYTES.iter().for_each(|&b| self.seen[b] = 0);
            return false;
        }
        true
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
        let i = index.eval(frame).and_then(|i| usize::try_from(i).ok());
        let (Some(i), Some(())) = (i, self.sorted_parts(inst, run, frame)) else {
            return false;
        };
        let parts = &mut self.run_scratch.as_mut().expect("parts set").parts;
        parts.n_runs = 0;
        parts.place(i, (a, b)).is_some() && self.scan_sorted(inst)
    }

    /// `sorted_runs` for every setting `k` in `ks` of the last outer
    /// binding `slot` of a move (the item that moves), their runs scanned
    /// at once: true if every option was marked. False otherwise, having
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
        // A few settings (one per item): their runs are kept.
        if ks.end.saturating_sub(ks.start) > MAX_COORDS as i64 {
            return false;
        }
        if ks.is_empty() || self.sorted_parts(inst, run, frame).is_none() {
            return false;
        }
        let parts = &mut self.run_scratch.as_mut().expect("parts set").parts;
        parts.n_runs = 0;
        if let Some(c) = run.item_range(slot) {
            // `k in c..xs[i]` for item `i` moving: no code to run.
            for i in ks.clone() {
                let Some(&b) = usize::try_from(i)
                    .ok()
                    .and_then(|i| parts.xs[..parts.n].get(i))
                else {
                    return false;
                };
                if c < b && parts.place(i as usize, (c, b)).is_none() {
                    return false;
                }
            }
            frame.set_int(slot, ks.end - 1);
            return self.scan_sorted(inst);
        }
        for k in ks {
            frame.set_int(slot, k);
            let ab = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive);
            let Some((a, b)) = ab else {
                return false;
            };
            if a >= b {
                continue;
            }
            let i = index.eval(frame).and_then(|i| usize::try_from(i).ok());
            if i.and_then(|i| parts.place(i, (a, b))).is_none() {
                return false;
            }
        }
        self.scan_sorted(inst)
    }
}
