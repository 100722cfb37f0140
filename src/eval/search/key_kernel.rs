//! Runs a keyed kernel (`compile::KeyLoopMove`, positions with lists and
//! sets) for one position: the position's key is put in a `KeyFrame`, each
//! option's key is written by integer code and its value read from the
//! memo, without values or move closures. A last binding read as strided
//! runs goes through the memo's dense window like the runs of integer
//! kernels.

use super::*;
use crate::eval::compile::{
    BoolCode, KeyFrame, KeyLoopMove, KeyRun, KeySource, Locals, OptionKey, RunArg, Seq, SlotKind,
};
use crate::eval::memo::{Tag, MAX_COORDS};
use crate::ir::ir::Slot;
use smallvec::SmallVec;

impl SgSink {
    /// `run_kernel` for a keyed kernel: false when some code needs the
    /// general path (the caller then starts the position over there).
    pub(super) fn run_key_kernel(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        key: &Key,
    ) -> Fallible<bool> {
        let mut frame = KeyFrame::empty();
        if !frame.load(&inst.statics, key) {
            return Ok(false);
        }
        let mut ticks = 0u32;
        for m in &kernel.moves {
            let KernelMove::KeyLoop(m) = m else {
                return Ok(false);
            };
            if !self.key_level(env, (instance, inst), m, &mut frame, 0, &mut ticks)? {
                return Ok(false);
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
                Some(run) => self.key_run(env, (instance, inst), run, frame),
                None => self.key_option(env, (instance, inst), m, m.guard.as_ref(), frame),
            };
        };
        let last = level + 1 == m.bindings.len();
        // The last binding over a bit set, its guard read as a mask.
        if let (true, Some(filter)) = (last, &m.filter) {
            if let Some(mut mask) = filter.mask(frame) {
                let guard = filter.residual.as_ref();
                while mask != 0 {
                    let k = mask.trailing_zeros() as i64;
                    mask &= mask - 1;
                    frame.set_int(*slot, k);
                    if !self.key_option(env, (instance, inst), m, guard, frame)? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
        }
        let mut next = |sink: &mut SgSink, frame: &mut KeyFrame, k: i64| {
            *ticks = ticks.wrapping_add(1);
            if ticks.is_multiple_of(1 << 16) {
                env.rt.check_interrupt(sink.span)?;
            }
            frame.set_int(*slot, k);
            sink.key_level(env, (instance, inst), m, frame, level + 1, ticks)
        };
        match source {
            KeySource::Range { lo, hi, inclusive } => {
                let Some((a, b)) = lo.eval(frame).zip(hi.eval(frame)) else {
                    return Ok(false);
                };
                let b = match (inclusive, b.checked_add(1)) {
                    (false, _) => b,
                    (true, Some(b)) => b,
                    (true, None) => return Ok(false),
                };
                for k in a..b {
                    if !next(self, frame, k)? {
                        return Ok(false);
                    }
                }
            }
            KeySource::Values(values) => {
                for &k in values {
                    if !next(self, frame, k)? {
                        return Ok(false);
                    }
                }
            }
            KeySource::Items(s) => match frame.kind(*s) {
                SlotKind::Bits => {
                    // The bits ascending: a set's items in order.
                    let mut mask = frame.bits(*s).expect("a bit set");
                    while mask != 0 {
                        let k = mask.trailing_zeros() as i64;
                        mask &= mask - 1;
                        if !next(self, frame, k)? {
                            return Ok(false);
                        }
                    }
                }
                SlotKind::Items(..) => {
                    let items: SmallVec<[i64; MAX_COORDS]> =
                        SmallVec::from_slice(frame.items(*s).expect("items").1);
                    for k in items {
                        if !next(self, frame, k)? {
                            return Ok(false);
                        }
                    }
                }
                SlotKind::Int | SlotKind::Unset => return Ok(false),
            },
        }
        Ok(true)
    }

    /// Marks one option of `m` (its bindings set in `frame`).
    fn key_option(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        m: &KeyLoopMove,
        guard: Option<&BoolCode<KeyFrame>>,
        frame: &KeyFrame,
    ) -> Fallible<bool> {
        match guard.map(|g| g(frame)) {
            None | Some(Some(true)) => {}
            Some(Some(false)) => return Ok(true),
            Some(None) => return Ok(false),
        }
        let mut x = 0;
        let mut known = true;
        for args in &m.parts {
            let mut out = OptionKey::default();
            for a in args {
                if a.write(frame, &mut out).is_none() {
                    return Ok(false);
                }
            }
            let state = inst.memo.borrow_mut().get_coords(out.shape, out.coords());
            match state {
                State::Value(v) => x ^= v,
                State::Invalid => return Ok(true),
                _ => {
                    let mut key = Key::default();
                    out.key(&mut key);
                    match self.lookup(env, instance, &key)? {
                        Lookup::Value(v) => x ^= v,
                        Lookup::Pending => known = false,
                        Lookup::Invalid => return Ok(true),
                    }
                }
            }
        }
        if known {
            self.add(x);
        }
        Ok(true)
    }

    /// Marks the options of the last binding of a move read as strided
    /// runs: one run, or one per place of the binding among the other
    /// items of a sorted list (at a place equal to one of them the list
    /// repeats an item: the game's `where` decides, through `lookup`).
    fn key_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        run: &KeyRun,
        frame: &KeyFrame,
    ) -> Fallible<bool> {
        let bounds = run
            .lo
            .eval(frame)
            .zip(run.hi.eval(frame))
            .and_then(|(a, b)| Some((a, if run.inclusive { b.checked_add(1)? } else { b })));
        let Some((a, b)) = bounds else {
            return Ok(false);
        };
        if a >= b {
            return Ok(true);
        }
        let mut out = OptionKey::default();
        let mut coefs = [0i64; MAX_COORDS];
        // The sorted list's other items, ascending, and where it starts
        // among the coordinates.
        let mut rest = [0i64; MAX_COORDS];
        let mut list: Option<(usize, usize)> = None;
        for arg in &run.args {
            let written = match arg {
                RunArg::Fixed(a) => a.write(frame, &mut out),
                RunArg::Affine(base, coef) => base.eval(frame).and_then(|v| {
                    coefs[out.len] = *coef;
                    out.push(v)?;
                    out.end(Tag::Int)
                }),
                RunArg::SortedUpdate { list: slot, index } => {
                    sorted_rest(frame, *slot, index.eval(frame), &mut rest).and_then(|n_rest| {
                        let start = out.len;
                        for _ in 0..=n_rest {
                            out.push(0)?;
                        }
                        out.end(Tag::List(n_rest as u32 + 1))?;
                        list = Some((start, n_rest));
                        Some(())
                    })
                }
            };
            if written.is_none() {
                return Ok(false);
            }
        }
        let n = out.len;
        let mut bases = out.coords;
        // The list's coordinates are items or `k` itself: checking the
        // others over the whole range covers every run.
        if !affine_fits(&bases[..n], &coefs[..n], a, b) {
            return Ok(false);
        }
        let places = list.map_or(1, |(_, n_rest)| n_rest + 1);
        let mut memo = Some(inst.memo.borrow());
        for j in 0..places {
            let (mut lo, mut hi) = (a, b);
            if let Some((start, n_rest)) = list {
                // For rest[j - 1] < k <= rest[j], k is item j of the list.
                if j > 0 {
                    lo = lo.max(rest[j - 1].saturating_add(1));
                }
                if j < n_rest {
                    hi = hi.min(rest[j].saturating_add(1));
                }
                if lo >= hi {
                    continue;
                }
                let items = rest[..j].iter().chain([&0]).chain(&rest[j..n_rest]);
                for (p, &x) in (start..).zip(items) {
                    bases[p] = x;
                    coefs[p] = 0;
                }
                coefs[start + j] = 1;
            }
            let (bases, coefs) = (&bases[..n], &coefs[..n]);
            // The run through the memo's dense window, if it lies there.
            self.slow.clear();
            let m = memo.get_or_insert_with(|| inst.memo.borrow());
            let placed = m.window(out.shape).and_then(|w| {
                let (first, stride) = w.run(bases, coefs, lo, hi)?;
                Some((w.dense(), first, stride))
            });
            match placed {
                Some((dense, first, stride)) => self.scan_window(dense, first, stride, lo..hi),
                None => {
                    env.rt
                        .check_memory((hi.abs_diff(lo) as usize).saturating_mul(8), self.span)?;
                    self.slow.extend(lo..hi);
                }
            }
            if !self.slow.is_empty() {
                // Options without a value yet: one by one, the memo free.
                memo = None;
                let affine = AffineRun {
                    instance,
                    slot: run.slot,
                    lo,
                    hi,
                    shape: out.shape,
                    n_args: out.n_args,
                    bases,
                    coefs,
                };
                self.look_up_slow(env, &affine)?;
            }
        }
        Ok(true)
    }
}

/// Puts the items but the `i`-th of the list or tuple in `slot` into
/// `rest`, ascending, and gives their number; `None` if the slot holds no
/// list or tuple, or `i` is out of range (the general path reports it).
fn sorted_rest(
    frame: &KeyFrame,
    slot: Slot,
    i: Option<i64>,
    rest: &mut [i64; MAX_COORDS],
) -> Option<usize> {
    let (seq, xs) = frame.items(slot)?;
    let i = usize::try_from(i?).ok()?;
    if seq == Seq::Set || i >= xs.len() {
        return None;
    }
    let n = xs.len() - 1;
    rest[..i].copy_from_slice(&xs[..i]);
    rest[i..n].copy_from_slice(&xs[i + 1..]);
    rest[..n].sort_unstable();
    Some(n)
}
