//! The last binding of a keyed kernel's move read as strided runs
//! (`compile::KeyRun`): the option's key is written once per run of the
//! move, and each run (one per place of the binding in a sorted list) is
//! placed in the memo's dense window from per-coordinate parts computed
//! once, not from the whole key again: positions with lists (Welter's
//! game) have several short runs each, so their setup is the cost. The
//! runs of one setting are scanned at once; a run whose key is only the
//! sorted list goes first through `sorted_run.rs`, which writes no key.

use super::engine::SgSink;
use super::run_key::{Placement, RunKey, RunScratch};
use super::settings::run_range;
use crate::diag::Fallible;
use crate::eval::compile::{affine_fits, AffineRun, Env, Instance, KeyFrame, KeyRun};
use crate::eval::memo::scan::{mark_runs, Strided};
use crate::eval::value::InstanceId;

/// One call of a keyed run: the instance whose memo it reads, the run
/// and the frame its code reads.
struct RunCall<'a> {
    instance: InstanceId,
    inst: &'a Instance,
    run: &'a KeyRun,
    frame: &'a KeyFrame,
}

impl SgSink {
    /// Marks the options of the last binding of a move read as strided
    /// runs: one run, or one per place of the binding among the other
    /// items of a sorted list.
    pub(super) fn key_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        run: &KeyRun,
        frame: &KeyFrame,
    ) -> Fallible<bool> {
        let Some((a, b)) = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive) else {
            return Ok(false);
        };
        let call = RunCall {
            instance,
            inst,
            run,
            frame,
        };
        // A value the guard excludes splits the run in two.
        match run.excluded(frame) {
            None => Ok(false),
            Some(Some(x)) if (a..b).contains(&x) => {
                for ks in [(a, x), (x + 1, b)] {
                    if !self.key_run_over(env, &call, ks)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Some(_) => self.key_run_over(env, &call, (a, b)),
        }
    }

    /// `key_run` for the options `k` in `a..b`: the runs in the window
    /// are scanned at once; those outside it, or holding options without
    /// a value yet, then go one by one.
    fn key_run_over(
        &mut self,
        env: &mut Env,
        call: &RunCall<'_>,
        ks: (i64, i64),
    ) -> Fallible<bool> {
        if ks.0 >= ks.1 || self.sorted_runs(call.inst, call.run, call.frame, ks) {
            return Ok(true);
        }
        if let (Ok(shift), true) = (&call.run.shift, env.rt.limits.plans.rank_shifts) {
            let target = (call.instance, call.inst);
            if self.shifted_run(env, target, (call.run.slot, shift), call.frame, ks)? {
                return Ok(true);
            }
        }
        let mut scratch = self.run_scratch.take().unwrap_or_default();
        let done = self.key_runs(env, call, ks, &mut scratch);
        self.run_scratch = Some(scratch);
        done
    }

    /// `key_run_over` past the sorted runs, with the run's buffers.
    fn key_runs(
        &mut self,
        env: &mut Env,
        call: &RunCall<'_>,
        (a, b): (i64, i64),
        scratch: &mut RunScratch,
    ) -> Fallible<bool> {
        let RunCall {
            inst, run, frame, ..
        } = *call;
        let RunScratch {
            key,
            placement,
            strided,
            ..
        } = scratch;
        if key.write(run, frame).is_none() {
            return Ok(false);
        }
        let n = key.out.len;
        // The list's coordinates are items or `k` itself: checking the
        // others over the whole range covers every run.
        if key.affine && !affine_fits(&key.out.coords[..n], &key.coefs[..n], a, b) {
            return Ok(false);
        }
        // The runs in the window (bit `j` of `placed` for place `j`),
        // scanned at once.
        let (mut n_strided, mut placed, mut complete) = (0, 0u32, false);
        let mut all_placed = true;
        {
            let memo = inst.memo.borrow();
            let window = memo.window(key.out.shape).filter(|w| placement.set(w, key));
            for j in 0..key.places() {
                let (lo, hi) = key.bounds(j, a, b);
                if lo >= hi {
                    continue;
                }
                match window.as_ref().and_then(|_| placement.run(key, j, lo, hi)) {
                    Some((first, stride)) => {
                        let n = (hi - lo) as usize;
                        strided[n_strided] = Strided { first, stride, n };
                        n_strided += 1;
                        placed |= 1 << j;
                    }
                    None => all_placed = false,
                }
            }
            if let Some(w) = &window {
                complete = mark_runs(w, &strided[..n_strided], &mut self.seen);
            }
        }
        if all_placed && complete {
            return Ok(true);
        }
        // Those not placed, or all if some option had no value (read
        // again run by run below, collecting the options).
        for j in 0..key.places() {
            let (lo, hi) = key.bounds(j, a, b);
            if lo < hi && (!complete || placed & 1 << j == 0) {
                self.place_slow(env, call, key, placement, (j, lo, hi))?;
            }
        }
        Ok(true)
    }

    /// Marks the options of one run that the scan could not: those
    /// without a value yet, or the whole run outside the window, looked
    /// up one by one (which may lay the window out anew: the run is
    /// placed again first).
    fn place_slow(
        &mut self,
        env: &mut Env,
        call: &RunCall<'_>,
        key: &RunKey,
        placement: &mut Placement,
        (j, lo, hi): (usize, i64, i64),
    ) -> Fallible<()> {
        self.slow.clear();
        let scanned = {
            let memo = call.inst.memo.borrow();
            let window = memo.window(key.out.shape).filter(|w| placement.set(w, key));
            match window.and_then(|w| Some((placement.run(key, j, lo, hi)?, w))) {
                Some(((first, stride), w)) => {
                    let n = (hi - lo) as usize;
                    self.scan_walk(&w, &Strided { first, stride, n }, lo..hi);
                    true
                }
                None => false,
            }
        };
        if !scanned {
            env.rt
                .check_memory((hi.abs_diff(lo) as usize).saturating_mul(8), self.span)?;
            self.slow.extend(lo..hi);
        }
        if self.slow.is_empty() {
            return Ok(());
        }
        let n = key.out.len;
        let (bases, coefs) = key.place(j);
        let affine = AffineRun {
            instance: call.instance,
            slot: call.run.slot,
            lo,
            hi,
            shape: key.out.shape,
            n_args: key.out.n_args,
            bases: &bases[..n],
            coefs: &coefs[..n],
        };
        self.look_up_slow(env, &affine)
    }
}
