//! Runs a keyed kernel (`compile::KeyLoopMove`, positions with lists and
//! sets) for one position: the position's key is put in a `KeyFrame`, each
//! option's key is written by integer code and its value read from the
//! memo, without values or move closures. A last binding read as strided
//! runs goes through the memo's dense window like the runs of integer
//! kernels.

use super::engine::SgSink;
use super::pick::{pick, Pick};
use super::settings::{each_bit, each_setting, run_range};
use crate::diag::Fallible;
use crate::eval::compile::{
    BitsRun, BoolCode, Env, Instance, Kernel, KernelMove, KeyFrame, KeyLoopMove, KeySource, Locals,
    MovePlan, OptionKey,
};
use crate::eval::memo::{Key, Window};
use crate::eval::value::InstanceId;
use crate::ir::ir::Slot;
use crate::syntax::Span;

impl SgSink {
    /// `run_kernel` for a keyed kernel: false, with nothing marked, when
    /// the position does not load into a `KeyFrame`.
    pub(super) fn run_key_kernel(
        &mut self,
        env: &mut Env,
        target: (InstanceId, &Instance),
        kernel: &Kernel,
        key: &Key,
    ) -> Fallible<bool> {
        let mut frame = KeyFrame::empty();
        if !frame.load(target.1.frame_statics(), key) {
            return Ok(false);
        }
        self.key_moves(env, target, kernel, &mut frame, Some(key))
    }

    /// Marks the options of the keyed kernel's moves at the position in
    /// `frame` (its key `key`): a move that is not a kernel loop, or that
    /// needs the general path there, runs by its closure; without `key`
    /// (a swept line's frame) it stops there, false.
    pub(super) fn key_moves(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        frame: &mut KeyFrame,
        key: Option<&Key>,
    ) -> Fallible<bool> {
        let mut ticks = 0u32;
        for (i, plan) in kernel.moves.iter().enumerate() {
            let mark = self.option_mark();
            let done = match plan {
                MovePlan::Kernel(KernelMove::KeyLoop(m)) => {
                    self.key_level(env, (instance, inst), m, frame, 0, &mut ticks)?
                }
                _ => false,
            };
            if !done {
                // As in `run_kernel`: this move by its closure.
                self.drop_option(mark);
                let Some(key) = key else {
                    return Ok(false);
                };
                self.general_move(env, instance, key, i)?;
            }
        }
        Ok(true)
    }

    /// Runs binding `level` of `m` and those inside it.
    fn key_level(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        m: &KeyLoopMove,
        frame: &mut KeyFrame,
        level: usize,
        ticks: &mut u32,
    ) -> Fallible<bool> {
        let Some((slot, source)) = m.bindings.get(level) else {
            return match &m.run {
                Some(run) => self.key_run(env, (instance, inst), (m, run), frame),
                None => self.key_option(env, (instance, inst), m, m.guard.as_ref(), frame),
            };
        };
        let last = level + 1 == m.bindings.len();
        // The last binding over a bit set, its guard read as a mask.
        if let (true, Some(filter)) = (last, &m.filter) {
            if let Some(mask) = filter.mask(frame) {
                if let Some(run) = &m.bits_run {
                    let target = (instance, inst);
                    if let Some(ok) =
                        self.key_bits_run(env, target, (m, run), frame, (*slot, mask))?
                    {
                        return Ok(ok);
                    }
                }
                let guard = filter.residual.as_ref();
                let each = |sink: &mut SgSink, frame: &mut KeyFrame| {
                    sink.key_option(env, (instance, inst), m, guard, frame)
                };
                return each_bit(self, frame, *slot, mask, each);
            }
        }
        // The runs of every setting of this last binding first tried all
        // at once (`sorted_run.rs`).
        if let (true, Some(run)) = (last, &m.run) {
            if let KeySource::Range { lo, hi, inclusive } = source {
                let ks = run_range(lo.eval(frame), hi.eval(frame), *inclusive);
                if let Some((a, b)) = ks {
                    if self.sorted_settings(env, (instance, inst), run, (*slot, a..b), frame)? {
                        return count_ticks(env, self.span, ticks, b - a).map(|_| true);
                    }
                }
            }
        }
        // The last binding over a bit set without a filter, as one run.
        if let (true, Some(run), KeySource::Items(s)) = (last, &m.bits_run, source) {
            if let Some(mask) = frame.bits(*s) {
                let target = (instance, inst);
                if let Some(ok) = self.key_bits_run(env, target, (m, run), frame, (*slot, mask))? {
                    return Ok(ok);
                }
            }
        }
        let next = |sink: &mut SgSink, frame: &mut KeyFrame| {
            *ticks = ticks.wrapping_add(1);
            if ticks.is_multiple_of(1 << 16) {
                env.rt.check_interrupt(sink.span)?;
            }
            match (last, &m.run) {
                // Straight to the runs: one call less per setting.
                (true, Some(run)) => sink.key_run(env, (instance, inst), (m, run), frame),
                _ => sink.key_level(env, (instance, inst), m, frame, level + 1, ticks),
            }
        };
        each_setting(self, frame, (*slot, source), next)
    }

    /// Marks the options of `m` whose last binding, in `slot`, is a bit
    /// `k` of `mask`, through `run`: a mask and one window read each;
    /// those without a value yet are looked up one by one. `None`, with
    /// nothing marked, if the options' other coordinates do not lie in
    /// the window (then they run one by one); `Some(false)` sends the
    /// position to the general path.
    fn key_bits_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        (m, run): (&KeyLoopMove, &BitsRun),
        frame: &mut KeyFrame,
        (slot, mask): (Slot, u64),
    ) -> Fallible<Option<bool>> {
        if mask == 0 {
            return Ok(Some(true));
        }
        // The first option's key: the shape, and the coordinate that moves.
        frame.set_int(slot, mask.trailing_zeros() as i64);
        let mut out = OptionKey::default();
        let mut coord = 0;
        for (j, a) in m.results[0].parts[0].iter().enumerate() {
            if j == run.arg {
                coord = out.len;
            }
            if a.write(frame, &mut out).is_none() {
                return Ok(Some(false));
            }
        }
        let Some(base) = frame.bits(run.base) else {
            return Ok(Some(false));
        };
        let mut slow = std::mem::take(&mut self.slow);
        slow.clear();
        let marked = {
            let memo = inst.memo.borrow();
            let window = memo.window(out.shape);
            let place = window
                .as_ref()
                .and_then(|w| fixed_place(w, out.coords(), coord));
            match (window, place) {
                (Some(window), Some((fixed, (end, stride)))) => {
                    let dense = window.dense();
                    let mut rest = mask;
                    while rest != 0 {
                        let k = rest.trailing_zeros() as i64;
                        rest &= rest - 1;
                        match run.mask(base, k) {
                            Some(o) if o < end => {
                                if !self.seen.mark_byte(dense[fixed + o as usize * stride]) {
                                    slow.push(k);
                                }
                            }
                            _ => slow.push(k),
                        }
                    }
                    true
                }
                _ => false,
            }
        };
        let mut ok = true;
        if marked {
            for &k in &slow {
                frame.set_int(slot, k);
                ok = self.key_option(env, (instance, inst), m, None, frame)?;
                if !ok {
                    break;
                }
            }
        }
        self.slow = slow;
        Ok(marked.then_some(ok))
    }

    /// Marks one option of `m` (its bindings set in `frame`).
    pub(super) fn key_option(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        m: &KeyLoopMove,
        guard: Option<&BoolCode<KeyFrame>>,
        frame: &KeyFrame,
    ) -> Fallible<bool> {
        let result = match pick(guard, &m.results, frame) {
            Pick::Result(r) => r,
            Pick::None => return Ok(true),
            Pick::GeneralPath => return Ok(false),
        };
        self.option_of_parts(env, result.parts.len(), |this, env, p| {
            let mut out = OptionKey::default();
            for a in &result.parts[p] {
                if a.write(frame, &mut out).is_none() {
                    return Ok(None);
                }
            }
            let state = inst.memo.borrow_mut().get_coords(out.shape, out.coords());
            let write_key = |key: &mut Key| out.key(key);
            this.part_of_option(env, instance, state, write_key)
                .map(Some)
        })
    }
}

/// Where the keys `coords`, all but coordinate `coord`, lie in `window`:
/// the index they add up to, and coordinate `coord`'s bits and stride.
/// `None` if one of them lies outside.
fn fixed_place(window: &Window<'_>, coords: &[i64], coord: usize) -> Option<(usize, (u64, usize))> {
    if window.n_coords() != coords.len() {
        return None;
    }
    let (ends, strides) = window.layout();
    let mut fixed = 0usize;
    for (j, &x) in coords.iter().enumerate() {
        if j != coord {
            if x as u64 >= ends[j] {
                return None;
            }
            fixed += x as usize * strides[j];
        }
    }
    Some((fixed, (ends[coord], strides[coord])))
}

/// Counts `n` settings run at once in `ticks`, checking for an interrupt
/// if the count passed a multiple of 2^16 (as counting one by one does).
fn count_ticks(env: &Env, span: Span, ticks: &mut u32, n: i64) -> Fallible<()> {
    let before = *ticks;
    *ticks = ticks.wrapping_add(n as u32);
    if (before >> 16) != (*ticks >> 16) || n >= 1 << 16 {
        env.rt.check_interrupt(span)?;
    }
    Ok(())
}
