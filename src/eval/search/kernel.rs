//! Runs a game's kernel (`compile::Kernel`) for one position: its
//! options' values are read from the memo on a frame of integers, without
//! move closures or keys, where the general path (`enumerate`) would build
//! them.

use std::ops::Range;

use super::bend::BendHeld;
use super::engine::{Lookup, SgSink};
use super::pick::{pick, Pick};
use super::settings::run_range;
use super::sum_scan::{scan_sum, MAX_PARTS};
use crate::diag::Fallible;
use crate::eval::compile::{
    affine_fits, int_frame, AffineRun, BatchCode, Env, Instance, Kernel, KernelMove, LoopMove,
    MovePlan, Operand, RunMove, SingleMove, SumRunMove, KERNEL_FRAME,
};
use crate::eval::memo::scan::{Strided, Walk};
use crate::eval::memo::{Key, Located, Window, MAX_ARGS};
use crate::eval::value::InstanceId;
use smallvec::SmallVec;

impl SgSink {
    /// Marks the values of the options of `key` through the game's kernel,
    /// move by move: a general plan, or a kernel form whose code needs the
    /// general path at this position, runs that move's closure (what the
    /// kernel form listed of it forgotten first, so no option is listed
    /// twice). False, with nothing marked, when the position does not fit
    /// the kernel's frame (a static argument is not an integer); the
    /// caller then lists the position with `enumerate`. `at` is where the
    /// memo keeps the position.
    pub(super) fn run_kernel(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        key: &Key,
        at: Option<Located>,
    ) -> Fallible<bool> {
        if kernel.keyed {
            return self.run_key_kernel(env, (instance, inst), kernel, key);
        }
        let Some((frame, n)) = int_frame(inst.frame_statics(), key.coords()) else {
            return Ok(false);
        };
        let ints = &frame[..n];
        for (i, plan) in kernel.moves.iter().enumerate() {
            let mark = self.option_mark();
            if !self.kernel_move(env, (instance, inst), kernel, plan, ints, at)? {
                self.drop_option(mark);
                self.general_move(env, instance, key, i)?;
            }
        }
        Ok(true)
    }

    /// Marks the options of one move of a kernel of integers at the
    /// position `ints` (its frame); false where the move needs the
    /// general path here (what it marked is then to be dropped).
    #[inline(always)]
    pub(super) fn kernel_move(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        plan: &MovePlan,
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        match plan {
            MovePlan::Kernel(KernelMove::Run(r)) => {
                self.kernel_run(env, (instance, inst), kernel, r, ints, at)
            }
            MovePlan::Kernel(KernelMove::SumRun(r)) => {
                self.kernel_sum_run(env, (instance, inst), kernel, r, ints)
            }
            MovePlan::Kernel(KernelMove::Loop(l)) => {
                self.kernel_loop(env, (instance, inst), kernel, l, ints)
            }
            MovePlan::Kernel(KernelMove::Single(s)) => {
                self.kernel_single(env, (instance, inst), kernel, s, ints, at)
            }
            // Only in keyed kernels, run apart.
            MovePlan::Kernel(KernelMove::KeyLoop(_)) | MovePlan::General(_) => Ok(false),
        }
    }

    /// `kernel_move` on a swept line whose moving coordinate is the frame
    /// slot `moving` (a bit): a run's set-up that does not read it is
    /// worked out at the line's first position and kept in `held`.
    #[inline]
    pub(super) fn kernel_move_held(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        (plan, held): (&MovePlan, &mut RunHeld),
        ints: &[i64],
        (at, moving): (Located, u64),
    ) -> Fallible<bool> {
        let MovePlan::Kernel(KernelMove::Run(m)) = plan else {
            return self.kernel_move(env, (instance, inst), kernel, plan, ints, Some(at));
        };
        let moves = m.reads & moving != 0;
        if moves || !held.filled {
            held.set_up.fill(m, ints);
            held.filled = true;
        }
        // A set-up the line does not move keeps its bends' too (a line's
        // `RunHeld` starts empty).
        let bends = (!moves).then_some((&mut held.bends, moving));
        self.run_from(
            env,
            (instance, inst),
            kernel,
            (m, &held.set_up, bends),
            ints,
            Some(at),
        )
    }

    /// Marks the options of a run move.
    #[inline(always)]
    fn kernel_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &RunMove,
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        let mut set_up = RunSetUp::default();
        set_up.fill(m, ints);
        self.run_from(env, (instance, inst), kernel, (m, &set_up, None), ints, at)
    }

    /// Marks the options of a run move from its set-up (and what a swept
    /// line keeps of its bends, `kernel_bends`).
    #[inline(always)]
    fn run_from(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        (m, set_up, line): (&RunMove, &RunSetUp, Option<(&mut BendHeld, u64)>),
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        let RunMove {
            bases,
            coefs,
            per_option,
            bends,
            quadratic,
            varies,
            ..
        } = m;
        let Some((a, b)) = set_up.range else {
            return Ok(false);
        };
        if a >= b {
            return Ok(true);
        }
        let n = bases.len();
        let mut coords = [0i64; MAX_ARGS as usize];
        let run = |coords| AffineRun {
            instance,
            lo: a,
            hi: b,
            shape: kernel.shape,
            n_args: n as u8,
            bases: coords,
            coefs,
        };
        if let Some((i, at)) = varies.zip(at) {
            // The options next to the position: only argument i to compute.
            if set_up.failed & 1 << i != 0 {
                return Ok(false);
            }
            let base = set_up.bases[i];
            let own = ints[ints.len() - n + i];
            if self.scan_line(inst, (i, own), (base, coefs[i]), a..b, at) {
                if !self.slow.is_empty() {
                    // The other arguments are the position's own, the
                    // frame's last.
                    coords[..n].copy_from_slice(&ints[ints.len() - n..]);
                    coords[i] = base;
                    self.look_up_slow(env, &run(&coords[..n]))?;
                }
                return Ok(true);
            }
        }
        if set_up.failed != 0 {
            return Ok(false);
        }
        let mut run = run(&set_up.bases[..n]);
        if per_option.is_empty() {
            if let Some(pair) = kernel.swappable.filter(|&pair| swapped_pairs(pair, &run)) {
                // Options `k` and `lo + hi - 1 - k` are twins: one value.
                (run.lo, run.hi) = canonical_half(pair, &run);
            }
            return self.scan_in(env, inst, &run);
        }
        if let Some(bends) = bends {
            if self.kernel_bends(env, inst, &run, (per_option, bends), ints, line)? {
                return Ok(true);
            }
        }
        if let Some(quadratic) = quadratic {
            if self.kernel_quadratic(env, inst, &run, (per_option, quadratic), ints)? {
                return Ok(true);
            }
        }
        self.kernel_per_option(env, inst, &run, per_option, ints)
    }

    /// Marks the options `ks` of a run that changes only argument `i` of
    /// the position at `at`, from `own` to `base + coef * k`: read next to the
    /// position's own memo entry, those without a value left in `slow`.
    /// False, with nothing marked, if they leave the memo's window (or
    /// overflow).
    fn scan_line(
        &mut self,
        inst: &Instance,
        (i, own): (usize, i64),
        (base, coef): (i64, i64),
        ks: Range<i64>,
        at: Located,
    ) -> bool {
        let end = |k: i64| base.checked_add(coef.checked_mul(k)?);
        let Some((from, to)) = end(ks.start).zip(end(ks.end - 1)) else {
            return false;
        };
        self.slow.clear();
        let memo = inst.memo.borrow();
        let Some((window, first, stride)) = memo.line_run(at, (i, own), from, to, coef) else {
            return false;
        };
        let n = (ks.end - ks.start) as usize;
        self.scan_walk(&window, &Strided { first, stride, n }, ks);
        true
    }

    /// Marks the options of a run with arguments that are not affine in
    /// its binding: their values over the whole run come from batched
    /// code, a vector each; the options are then read one by one.
    fn kernel_per_option(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
        per_option: &[(usize, BatchCode)],
        ints: &[i64],
    ) -> Fallible<bool> {
        if !affine_fits(run.bases, run.coefs, run.lo, run.hi) {
            return Ok(false);
        }
        let len = (run.hi - run.lo) as usize;
        let mut values = std::mem::take(&mut self.batch);
        values.clear();
        values.resize(per_option.len() * len, 0);
        let computed = per_option
            .iter()
            .zip(values.chunks_exact_mut(len))
            .all(|((_, code), out)| code(ints, run.lo..run.hi, out).is_some());
        let result = if computed {
            let gather = Gather {
                run,
                per_option,
                values: &values,
            };
            self.kernel_gather(env, inst, &gather)
        } else {
            Ok(false)
        };
        self.batch = values;
        result
    }

    /// Marks the options of a run with arguments computed per option
    /// (`Gather`): each option is read from the memo's window on its own.
    fn kernel_gather(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        gather: &Gather<'_>,
    ) -> Fallible<bool> {
        let run = gather.run;
        // The affine arguments step through the window with a stride (the
        // per-option ones are 0 there); the others add their bits. Without
        // a window every option goes one by one (none listed).
        let scan = |sink: &mut Self, window: Option<&Window<'_>>| {
            let placed =
                window.and_then(|w| Some((w, w.run(run.bases, run.coefs, run.lo, run.hi)?)));
            let Some((w, (first, stride))) = placed else {
                return Some(run.lo..run.hi);
            };
            let walk = GatherWalk {
                affine: Strided {
                    first,
                    stride,
                    n: 0,
                },
                places: (gather.per_option.iter())
                    .map(|(c, _)| w.place(*c))
                    .collect(),
                values: gather.values,
            };
            sink.scan_walk(w, &walk, run.lo..run.hi);
            Some(0..0)
        };
        let n = run.bases.len();
        let mut coords = [0i64; MAX_ARGS as usize];
        self.read_run(env, (inst, run), scan, |k, key| {
            gather.coords(k, &mut coords[..n]);
            key.set_raw(run.shape, run.n_args, coords[..n].iter().copied());
        })
    }

    /// Marks the option of a move without bindings.
    fn kernel_single(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &SingleMove,
        ints: &[i64],
        at: Option<Located>,
    ) -> Fallible<bool> {
        let SingleMove {
            guard,
            args,
            varies,
            ..
        } = m;
        match m.holds(0..guard.len(), ints) {
            Some(true) => {}
            Some(false) => return Ok(true),
            None => return Ok(false),
        }
        // An option next to the position: one coordinate to compute.
        if let (Some(i), Some(at)) = (*varies, at) {
            let Some(x) = args[i].eval(ints) else {
                return Ok(false);
            };
            // The other arguments are the position's own, the frame's last.
            let own = ints[ints.len() - args.len() + i];
            if self.scan_line(inst, (i, own), (x, 0), 0..1, at) && self.slow.is_empty() {
                return Ok(true);
            }
        }
        match self.part_at(env, (instance, inst), kernel, args, ints)? {
            Some(Lookup::Value(v)) => self.add(v),
            Some(_) => {}
            None => return Ok(false),
        }
        Ok(true)
    }

    /// The value of the option (or part) of `kernel`'s game with arguments
    /// `args` on `frame`; `None` where an argument's code fails.
    #[inline(always)]
    fn part_at(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        args: &[Operand<[i64]>],
        frame: &[i64],
    ) -> Fallible<Option<Lookup>> {
        let mut coords = [0i64; MAX_ARGS as usize];
        for (x, arg) in coords.iter_mut().zip(args) {
            match arg.eval(frame) {
                Some(v) => *x = v,
                None => return Ok(None),
            }
        }
        let coords = &coords[..kernel.n_params];
        self.part_of_coords(env, (instance, inst), kernel, coords)
            .map(Some)
    }

    /// The value of the position of `kernel`'s game at `coords`.
    #[inline(always)]
    fn part_of_coords(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        coords: &[i64],
    ) -> Fallible<Lookup> {
        let state = inst.memo.borrow_mut().get_coords(kernel.shape, coords);
        let write_key =
            |key: &mut Key| key.set_raw(kernel.shape, coords.len() as u8, coords.iter().copied());
        self.part_of_option(env, instance, state, write_key)
    }
}

/// What a run works out from a position's frame before reading its
/// options: its range narrowed by its guard (`None`: the general path
/// decides), and its affine arguments at `k = 0` (bit `i` of `failed`
/// where argument `i`'s code fails), worked out only for a range that
/// is not empty.
#[derive(Default)]
pub(super) struct RunSetUp {
    range: Option<(i64, i64)>,
    bases: [i64; MAX_ARGS as usize],
    failed: u8,
}

impl RunSetUp {
    #[inline(always)]
    fn fill(&mut self, m: &RunMove, ints: &[i64]) {
        self.range = run_range(m.lo.eval(ints), m.hi.eval(ints), m.inclusive)
            .and_then(|range| m.guard.narrowed_run(ints, range, true));
        self.failed = 0;
        if self.range.is_some_and(|(a, b)| a < b) {
            for (i, (x, base)) in self.bases.iter_mut().zip(&m.bases).enumerate() {
                match base.eval(ints) {
                    Some(v) => *x = v,
                    None => self.failed |= 1 << i,
                }
            }
        }
    }
}

/// What a swept line keeps of one of its kernel's moves: a run's set-up
/// (`kernel_move_held`), once `filled`, and of its bends.
#[derive(Default)]
pub(super) struct RunHeld {
    set_up: RunSetUp,
    filled: bool,
    bends: BendHeld,
}

/// A run of a kernel with arguments computed per option: those of `run`
/// (its bases and coefficients are 0 there) are the `per_option` ones, whose
/// values over the run `values` holds, a vector per argument.
struct Gather<'a> {
    run: &'a AffineRun<'a>,
    per_option: &'a [(usize, BatchCode)],
    values: &'a [i64],
}

impl Gather<'_> {
    /// The coordinates of option `k`.
    fn coords(&self, k: i64, out: &mut [i64]) {
        let run = self.run;
        for ((x, &base), &coef) in out.iter_mut().zip(run.bases).zip(run.coefs) {
            *x = base + coef * k;
        }
        let j = (k - run.lo) as usize;
        let len = self.values.len() / self.per_option.len();
        for (p, (coord, _)) in self.per_option.iter().enumerate() {
            out[*coord] = self.values[p * len + j];
        }
    }
}

/// Where the options of a `Gather` lie in a window: the affine
/// arguments' index, plus per option each per-option argument's value
/// times its stride (`places`: extent and stride); past the window where
/// a value is not in it.
struct GatherWalk<'a> {
    affine: Strided,
    places: SmallVec<[(u64, usize); 4]>,
    values: &'a [i64],
}

impl Walk for GatherWalk<'_> {
    fn indices(&self, n: usize) -> impl Iterator<Item = usize> {
        self.affine.indices(n).enumerate().map(move |(j, at)| {
            let (mut index, mut outside) = (at, 0u64);
            for (p, &(end, step)) in self.places.iter().enumerate() {
                let v = self.values[p * n + j];
                outside |= (v as u64 >= end) as u64;
                index = index.wrapping_add((v as usize).wrapping_mul(step));
            }
            if outside == 0 {
                index
            } else {
                usize::MAX
            }
        })
    }
}

impl SgSink {
    /// Marks the options of a take-and-break run: for each `k`, the xor of
    /// the values of its parts, each part read from the memo's window with
    /// its own stride. Options with a part the window cannot answer go
    /// through `lookup`, part by part.
    fn kernel_sum_run(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &SumRunMove,
        ints: &[i64],
    ) -> Fallible<bool> {
        let Some((a, b)) = run_range(m.lo.eval(ints), m.hi.eval(ints), m.inclusive)
            .and_then(|range| m.guard.narrowed_run(ints, range, true))
        else {
            return Ok(false);
        };
        if a >= b {
            return Ok(true);
        }
        let n_parts = m.parts.len();
        if n_parts > MAX_PARTS {
            return Ok(false);
        }
        let n = kernel.n_params;
        let mut bases = [[0i64; MAX_ARGS as usize]; MAX_PARTS];
        for (out, (part, coefs)) in bases.iter_mut().zip(&m.parts) {
            for (x, base) in out.iter_mut().zip(part) {
                match base.eval(ints) {
                    Some(v) => *x = v,
                    None => return Ok(false),
                }
            }
            if !affine_fits(&out[..n], coefs, a, b) {
                return Ok(false);
            }
        }
        // Two parts that trade places between options `k` and `a + b - 1 -
        // k` (`G(k) + G(n - 1 - k)`) make those options one sum: the first
        // half of the run has every option.
        let b = match &m.parts[..] {
            [(_, c0), (_, c1)]
                if mirrored((&bases[0][..n], c0), (&bases[1][..n], c1), a + b - 1) =>
            {
                a + (b - a + 1) / 2
            }
            _ => b,
        };
        self.slow.clear();
        let mut all = 0..0;
        {
            let memo = inst.memo.borrow();
            let mut places = [(0usize, 0isize); MAX_PARTS];
            let placed = memo.window(kernel.shape).and_then(|w| {
                for (p, (_, coefs)) in m.parts.iter().enumerate() {
                    places[p] = w.run(&bases[p][..n], coefs, a, b)?;
                }
                Some(w)
            });
            // Without a window every option goes one by one (none listed).
            match placed {
                Some(w) => scan_sum(&w, &places[..n_parts], a..b, &mut self.seen, &mut self.slow),
                None => all = a..b,
            }
        }
        if self.slow.is_empty() && all.is_empty() {
            return Ok(true);
        }
        // As a loop's options (`loop_option`), part by part.
        let slow = std::mem::take(&mut self.slow);
        let mut coords = [0i64; MAX_ARGS as usize];
        for k in slow.iter().copied().chain(all) {
            self.option_of_parts(env, n_parts, |this, env, p| {
                for ((c, &base), &coef) in coords.iter_mut().zip(&bases[p][..n]).zip(&m.parts[p].1)
                {
                    *c = base + coef * k;
                }
                this.part_of_coords(env, (instance, inst), kernel, &coords[..n])
                    .map(Some)
            })?;
        }
        self.slow = slow;
        Ok(true)
    }

    /// Marks the options of a `LoopMove`, one by one on a frame of
    /// integers that holds the bindings after the position's arguments.
    fn kernel_loop(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &LoopMove,
        ints: &[i64],
    ) -> Fallible<bool> {
        let mut frame = [0i64; KERNEL_FRAME];
        frame[..ints.len()].copy_from_slice(ints);
        let mut ticks = 0u32;
        m.each_option(&mut frame, m.frame_width(ints.len()), &mut |frame| {
            ticks = ticks.wrapping_add(1);
            if ticks.is_multiple_of(1 << 16) {
                env.rt.check_interrupt(self.span)?;
            }
            self.loop_option(env, (instance, inst), kernel, m, frame)
        })
    }

    /// Marks one option of a `LoopMove` (its bindings set in `frame`).
    fn loop_option(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        kernel: &Kernel,
        m: &LoopMove,
        frame: &[i64],
    ) -> Fallible<bool> {
        let result = match pick(m.guard.as_ref(), &m.results, frame) {
            Pick::Result(r) => r,
            Pick::None => return Ok(true),
            Pick::GeneralPath => return Ok(false),
        };
        // Part by part: an argument the general path must compute sends the
        // whole position there (`start` forgets what this one pushed).
        self.option_of_parts(env, result.parts.len(), |this, env, p| {
            this.part_at(env, (instance, inst), kernel, &result.parts[p], frame)
        })
    }
}

/// Whether the options of `run` come in twins (`Kernel::swappable`): the
/// option `k` with arguments `i` and `j` exchanged is the option `lo + hi
/// - 1 - k`.
fn swapped_pairs((i, j): (usize, usize), run: &AffineRun<'_>) -> bool {
    let (bases, coefs) = (run.bases, run.coefs);
    let arg = |m: usize| (&bases[m..=m], &coefs[m..=m]);
    (0..bases.len()).all(|m| m == i || m == j || coefs[m] == 0)
        && mirrored(arg(i), arg(j), run.lo + run.hi - 1)
}

/// The half of a run of twins (`swapped_pairs`) whose options have
/// argument `i` at least argument `j`, the middle option in both halves:
/// the twins a table filled in shells of `i` (`compile/sweep.rs`) has
/// valued, and which a position valued from its twin reads in place.
fn canonical_half((i, j): (usize, usize), run: &AffineRun<'_>) -> (i64, i64) {
    let (lo, hi) = (run.lo, run.hi);
    // `i - j` at `lo`; it changes sign once, at the middle of the run.
    let at = |m: usize| run.bases[m].wrapping_add(run.coefs[m].wrapping_mul(lo));
    match at(i) >= at(j) {
        true => (lo, lo + (hi - lo + 1) / 2),
        false => (lo + (hi - lo) / 2, hi),
    }
}

/// Whether two affine parts `bases + coefs * k` trade places between
/// the options `k` and `c - k`: the first at `c - k` is the second at `k`,
/// for every `k`.
fn mirrored((b0, c0): (&[i64], &[i64]), (b1, c1): (&[i64], &[i64]), c: i64) -> bool {
    let far = |base: i64, coef: i64| base.checked_add(coef.checked_mul(c)?);
    (b0.iter().zip(c0).zip(b1.iter().zip(c1)))
        .all(|((&x0, &k0), (&x1, &k1))| k1.checked_neg() == Some(k0) && far(x0, k0) == Some(x1))
}
