//! Runs a game's kernel (`compile::Kernel`) for one position: its
//! options' values are read from the memo on a frame of integers, without
//! move closures or keys, where the general path (`enumerate`) would build
//! them.

use super::*;

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
        let mut ints = [0i64; KERNEL_FRAME];
        let n_statics = inst.statics.len();
        for (x, s) in ints.iter_mut().zip(inst.statics.iter()) {
            match s {
                Value::Int(n) => *x = *n,
                _ => return Ok(false),
            }
        }
        let n = n_statics + key.len();
        ints[n_statics..n].copy_from_slice(key.coords());
        let ints = &ints[..n];
        for m in &kernel.moves {
            let done = match m {
                KernelMove::Run { .. } => {
                    self.kernel_run(env, (instance, inst), kernel, m, ints, at)?
                }
                KernelMove::Single { .. } => {
                    self.kernel_single(env, (instance, inst), kernel, m, ints, at)?
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
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        let KernelMove::Run {
            slot,
            lo,
            hi,
            inclusive,
            bases,
            coefs,
            varies,
        } = m
        else {
            unreachable!("called for runs")
        };
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
