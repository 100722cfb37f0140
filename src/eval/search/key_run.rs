//! The last binding of a keyed kernel's move read as runs
//! (`compile::KeyRun`), for one setting of the outer bindings: a sorted
//! list's item moving goes through `sorted_run.rs`, a list kept by rank
//! through `rank_shift.rs`, anything else as affine runs through the memo
//! (`scan_in`: one, or one per place of `k` in a sorted list beside other
//! arguments; those without a value yet looked up one by one), and a run
//! whose code fails option by option on the frame.

use super::engine::SgSink;
use super::run_key::RunScratch;
use super::settings::run_range;
use crate::diag::Fallible;
use crate::eval::compile::{affine_fits, AffineRun, Env, Instance, KeyFrame, KeyLoopMove, KeyRun};
use crate::eval::value::InstanceId;

impl SgSink {
    /// Marks the options of the last binding of `m`, read as the run
    /// `run`, for the outer bindings set in `frame`; false sends the
    /// position's move to its closure (some code failed).
    pub(super) fn key_run(
        &mut self,
        env: &mut Env,
        target: (InstanceId, &Instance),
        (m, run): (&KeyLoopMove, &KeyRun),
        frame: &mut KeyFrame,
    ) -> Fallible<bool> {
        let Some((a, b)) = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive) else {
            return Ok(false);
        };
        // A value the guard excludes splits the run in two.
        match run.excluded(frame) {
            None => Ok(false),
            Some(Some(x)) if (a..b).contains(&x) => {
                for ks in [(a, x), (x + 1, b)] {
                    if !self.key_run_over(env, target, (m, run), frame, ks)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Some(_) => self.key_run_over(env, target, (m, run), frame, (a, b)),
        }
    }

    /// `key_run` for the options `k` in `a..b`.
    fn key_run_over(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        (m, run): (&KeyLoopMove, &KeyRun),
        frame: &mut KeyFrame,
        ks: (i64, i64),
    ) -> Fallible<bool> {
        if ks.0 >= ks.1 || self.sorted_runs(env, (instance, inst), run, frame, ks)? {
            return Ok(true);
        }
        if let (Ok(shift), true) = (&run.shift, env.rt.limits.plans.rank_shifts) {
            if self.shifted_run(env, (instance, inst), shift, frame, ks)? {
                return Ok(true);
            }
        }
        let mut scratch = self.run_scratch.take().unwrap_or_default();
        let done = self.affine_places(env, (instance, inst), run, frame, ks, &mut scratch);
        self.run_scratch = Some(scratch);
        if done? {
            return Ok(true);
        }
        // No run: each option on the frame, as a move without one.
        for k in ks.0..ks.1 {
            frame.set_int(run.slot, k);
            if !self.key_option(env, (instance, inst), m, m.guard.as_ref(), frame)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The options `k` in `a..b` as affine runs through the memo
    /// (`scan_in`), one per place of `k` in a sorted list: false, with
    /// nothing marked, if some code fails or an option's arguments
    /// overflow.
    fn affine_places(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        run: &KeyRun,
        frame: &KeyFrame,
        ab: (i64, i64),
        scratch: &mut RunScratch,
    ) -> Fallible<bool> {
        let key = &mut scratch.key;
        if key.write(run, frame).is_none() {
            return Ok(false);
        }
        let (n, skips) = (key.out.len, run.skips_repeats());
        // The list's coordinates are its items or `k`: the others checked
        // over the whole range cover every place.
        key.place(0, ab, skips);
        if !affine_fits(&key.out.coords[..n], &key.coefs[..n], ab.0, ab.1) {
            return Ok(false);
        }
        for j in 0..key.places() {
            let (lo, hi) = key.place(j, ab, skips);
            if lo >= hi {
                continue;
            }
            let affine = AffineRun {
                instance,
                lo,
                hi,
                shape: key.out.shape,
                n_args: key.out.n_args,
                bases: &key.out.coords[..n],
                coefs: &key.coefs[..n],
            };
            self.scan_in(env, inst, &affine)?;
        }
        Ok(true)
    }
}
