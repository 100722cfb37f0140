//! The options of a keyed run (`compile::KeyRun`) read from a memo window
//! laid out by rank of sum (`memo/ranked.rs`): each option's index is a
//! fixed part plus, per prefix sum of the list that moves with the run's
//! binding, one binomial read from a column (Staircase Nim moves one).

use super::engine::SgSink;
use super::run_key::RunKey;
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, Env, Instance};
use crate::eval::memo::scan::scan;
use crate::eval::value::InstanceId;
use crate::ir::ir::Slot;

impl SgSink {
    /// Marks the options `k` in `a..b` (not empty) of the run whose key
    /// is `key`, `k` in `slot`, if the memo lays its shape out by rank:
    /// those with a value from the window (`scan`, as a strided run), the
    /// others looked up one by one. `None`, with nothing marked, if it does not.
    pub(super) fn ranked_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        slot: Slot,
        key: &RunKey,
        (a, b): (i64, i64),
    ) -> Fallible<Option<()>> {
        let Some((bases, coefs)) = key.affine() else {
            return Ok(None);
        };
        self.slow.clear();
        {
            let memo = inst.memo.borrow();
            let Some(window) = memo.ranked(key.out.shape) else {
                return Ok(None);
            };
            match window.run(bases, coefs, a, b) {
                Some(run) => scan(&window, &run, a..b, &mut self.seen, &mut self.slow),
                None => {
                    let bytes = (b.abs_diff(a) as usize).saturating_mul(8);
                    env.rt.check_memory(bytes, self.span)?;
                    self.slow.extend(a..b);
                }
            };
        }
        let run = AffineRun {
            instance,
            slot,
            lo: a,
            hi: b,
            shape: key.out.shape,
            n_args: key.out.n_args,
            bases,
            coefs,
        };
        self.look_up_slow(env, &run)?;
        Ok(Some(()))
    }
}
