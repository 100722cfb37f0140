//! Runs a game's kernel (`compile::Kernel`) for one position: its
//! options' values are read from the memo on a frame of integers, without
//! move closures or keys, where the general path (`enumerate`) would build
//! them.

use super::*;
use crate::eval::compile::{int_frame, BatchCode};
use crate::eval::memo::{Shape, Window};
use smallvec::SmallVec;

impl SgSink {
    /// Marks the values of the options of `key` through the game's kernel.
    /// False when some integer code needs the general path (or a static
    /// argument is not an integer); the caller then starts the position
    /// over with `enumerate`. `at` is where the memo keeps the position.
    pub(super) fn run_kernel(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        key: &Key,
        at: Option<Located>,
    ) -> Fallible<bool> {
        // The statics, then the arguments; bindings go after them.
        let Some((mut frame, n)) = int_frame(&inst.statics, key.coords()) else {
            return Ok(false);
        };
        for m in &kernel.moves {
            let done = match m {
                KernelMove::Run { .. } => {
                    self.kernel_run(env, (instance, inst), kernel, m, (&mut frame, n), at)?
                }
                KernelMove::Single { .. } => {
                    self.kernel_single(env, (instance, inst), kernel, m, &frame[..n], at)?
                }
            };
            if !done {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Marks the options of a run move (`KernelMove::Run`).
    fn kernel_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &KernelMove,
        (frame, n_live): (&mut [i64; KERNEL_FRAME], usize),
        at: Option<Located>,
    ) -> Fallible<bool> {
        let KernelMove::Run {
            slot,
            lo,
            hi,
            inclusive,
            bases,
            coefs,
            per_option,
            varies,
        } = m
        else {
            unreachable!("called for runs")
        };
        let ints = &frame[..n_live];
        let bounds = lo
            .eval(ints)
            .zip(hi.eval(ints))
            .and_then(|(a, b)| Some((a, if *inclusive { b.checked_add(1)? } else { b })));
        let Some((a, b)) = bounds else {
            return Ok(false);
        };
        if a >= b {
            return Ok(true);
        }
        let mut coords = [0i64; MAX_ARGS as usize];
        // Options next to the position: one coordinate to compute.
        if let (Some(i), Some(at)) = (*varies, at) {
            let Some(base) = bases[i].eval(ints) else {
                return Ok(false);
            };
            let end = |k: i64| base.checked_add(coefs[i].checked_mul(k)?);
            let scanned = match end(a).zip(end(b - 1)) {
                Some((from, to)) => {
                    self.slow.clear();
                    let memo = inst.memo.borrow();
                    let line = memo.line_run(at, i, from, to, coefs[i]);
                    if let Some((dense, first, stride)) = line {
                        self.scan_window(dense, first, stride, a..b);
                    }
                    line.is_some()
                }
                None => false,
            };
            if scanned {
                if !self.slow.is_empty() {
                    let n = bases.len();
                    // The position's own arguments are the frame's last.
                    coords[..n].copy_from_slice(&ints[ints.len() - n..]);
                    coords[i] = base;
                    let run = AffineRun {
                        instance,
                        slot: *slot,
                        lo: a,
                        hi: b,
                        shape: kernel.shape,
                        n_args: n as u8,
                        bases: &coords[..n],
                        coefs,
                    };
                    self.look_up_slow(env, &run)?;
                }
                return Ok(true);
            }
        }
        let n = bases.len();
        for (x, base) in coords.iter_mut().zip(bases) {
            match base.eval(ints) {
                Some(v) => *x = v,
                None => return Ok(false),
            }
        }
        if !per_option.is_empty() {
            if !affine_fits(&coords[..n], coefs, a, b) {
                return Ok(false);
            }
            // The other arguments of the whole run, a vector each.
            let len = (b - a) as usize;
            let mut values = std::mem::take(&mut self.batch);
            values.clear();
            values.resize(per_option.len() * len, 0);
            let computed = per_option
                .iter()
                .zip(values.chunks_exact_mut(len))
                .all(|((_, code), out)| code(ints, a..b, out).is_some());
            let result = if computed {
                let gather = Gather {
                    ks: a..b,
                    bases: &coords[..n],
                    coefs,
                    per_option,
                    values: &values,
                };
                self.kernel_gather(env, (instance, inst), kernel.shape, &gather)
            } else {
                Ok(false)
            };
            self.batch = values;
            return result;
        }
        let run = AffineRun {
            instance,
            slot: *slot,
            lo: a,
            hi: b,
            shape: kernel.shape,
            n_args: n as u8,
            bases: &coords[..n],
            coefs,
        };
        self.scan_in(env, inst, &run)
    }

    /// Marks the options of a run with arguments computed per option
    /// (`Gather`): each option is read from the memo's window on its own.
    fn kernel_gather(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        shape: Shape,
        gather: &Gather<'_>,
    ) -> Fallible<bool> {
        self.slow.clear();
        {
            let memo = inst.memo.borrow();
            // The affine arguments step through the window with a stride
            // (the per-option ones are 0 there); the others add their bits.
            let window = memo.window(shape);
            let (lo, hi) = (gather.ks.start, gather.ks.end);
            let run = window.as_ref().and_then(|w| {
                let (first, stride) = w.run(gather.bases, gather.coefs, lo, hi)?;
                Some((w, first, stride))
            });
            match run {
                Some((window, first, stride)) => self.gather_in(window, (first, stride), gather),
                None => self.slow.extend(gather.ks.clone()),
            }
        }
        if !self.slow.is_empty() {
            let n = gather.bases.len();
            let mut coords = [0i64; MAX_ARGS as usize];
            let slow = std::mem::take(&mut self.slow);
            let mut key = Key::default();
            for &k in &slow {
                gather.coords(k, &mut coords[..n]);
                key.set_raw(shape, n as u8, coords[..n].iter().copied());
                if let Lookup::Value(v) = self.lookup(env, instance, &key)? {
                    self.add(v);
                }
            }
            self.slow = slow;
        }
        Ok(true)
    }

    /// Marks the options of `gather` whose affine arguments are at `first
    /// + stride * (k - lo)` in `window`; those the window cannot answer go
    /// to `slow`.
    fn gather_in(
        &mut self,
        window: &Window<'_>,
        (first, stride): (usize, isize),
        gather: &Gather<'_>,
    ) {
        let dense = window.dense();
        let len = gather.values.len() / gather.per_option.len();
        let places: SmallVec<[(u8, u8); 4]> = gather
            .per_option
            .iter()
            .map(|(c, _)| window.place(*c))
            .collect();
        let mut at = first as isize;
        for (j, k) in gather.ks.clone().enumerate() {
            let (mut index, mut outside) = (at as usize, 0u64);
            for (p, &(bits, shift)) in places.iter().enumerate() {
                let v = gather.values[p * len + j];
                outside |= (v as u64) >> bits;
                index |= (v as usize) << shift;
            }
            if outside != 0 || !self.mark_byte(dense[index]) {
                self.slow.push(k);
            }
            at += stride;
        }
    }

    /// Marks the option of a move without bindings (`KernelMove::Single`).
    fn kernel_single(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &KernelMove,
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        let KernelMove::Single {
            guard,
            args,
            varies,
        } = m
        else {
            unreachable!("called for single moves")
        };
        match guard.as_ref().map(|g| g(ints)) {
            None | Some(Some(true)) => {}
            Some(Some(false)) => return Ok(true),
            Some(None) => return Ok(false),
        }
        // An option next to the position: one coordinate to compute.
        if let (Some(i), Some(at)) = (*varies, at) {
            let Some(x) = args[i].eval(ints) else {
                return Ok(false);
            };
            let byte = {
                let memo = inst.memo.borrow();
                memo.line_run(at, i, x, x, 0)
                    .map(|(dense, first, _)| dense[first])
            };
            if byte.is_some_and(|b| self.mark_byte(b)) {
                return Ok(true);
            }
        }
        let mut coords = [0i64; MAX_ARGS as usize];
        let n = args.len();
        for (x, arg) in coords.iter_mut().zip(args) {
            match arg.eval(ints) {
                Some(v) => *x = v,
                None => return Ok(false),
            };
        }
        let known = inst
            .memo
            .borrow_mut()
            .get_coords(kernel.shape, &coords[..n]);
        match known {
            State::Value(v) => self.add(v),
            State::Invalid => {}
            _ => {
                let mut key = Key::default();
                key.set_raw(kernel.shape, n as u8, coords[..n].iter().copied());
                if let Lookup::Value(v) = self.lookup(env, instance, &key)? {
                    self.add(v);
                }
            }
        }
        Ok(true)
    }
}

/// A run of a kernel with arguments computed per option: `bases + coefs *
/// k` (which fit in 64 bits for every `k`), except the `per_option` ones,
/// whose values over the run `values` holds (a vector per argument).
struct Gather<'a> {
    ks: Range<i64>,
    bases: &'a [i64],
    coefs: &'a [i64],
    per_option: &'a [(usize, BatchCode)],
    values: &'a [i64],
}

impl Gather<'_> {
    /// The coordinates of option `k`.
    fn coords(&self, k: i64, out: &mut [i64]) {
        for ((x, &base), &coef) in out.iter_mut().zip(self.bases).zip(self.coefs) {
            *x = base + coef * k;
        }
        let (j, len) = (
            (k - self.ks.start) as usize,
            self.values.len() / self.per_option.len(),
        );
        for (p, (coord, _)) in self.per_option.iter().enumerate() {
            out[*coord] = self.values[p * len + j];
        }
    }
}
