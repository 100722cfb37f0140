//! A position's options listed through its game's kernel
//! (`compile::Kernel`), as the coordinates of the positions they lead to:
//! what the graph of a loopy game is built from, without move closures,
//! keys or values per option. The same plans the SG search reads
//! (`search/kernel.rs`); here each option is written out instead of its
//! value read from the memo.

use crate::eval::compile::{
    affine_fits, Kernel, KernelMove, LoopMove, MovePlan, Operand, RunMove, SingleMove, KERNEL_FRAME,
};
use crate::eval::memo::MAX_ARGS;
use crate::eval::search::{pick, run_range, Pick};

/// The options of one position: `coords` holds `n` integers per option
/// that is a position of the game itself, `runs` the options of affine
/// runs (each a first option and a step, not written out one by one),
/// `zeros` counts the moves to the zero game.
#[derive(Default)]
pub struct Listed {
    pub coords: Vec<i64>,
    pub runs: Vec<StridedRun>,
    /// Per run, its first option's `n` integers then its `n` steps.
    run_coords: Vec<i64>,
    pub zeros: usize,
    /// A run's arguments computed per option (batched code).
    batch: Vec<i64>,
}

/// `len` options of a run, the `j`-th at `first + j * step` (per
/// coordinate): read by `Listed::run`.
#[derive(Clone, Copy)]
pub struct StridedRun {
    at: usize,
    pub len: u64,
}

impl Listed {
    /// The first option and the step of a run, `n` integers each.
    pub fn run(&self, r: StridedRun, n: usize) -> (&[i64], &[i64]) {
        let c = &self.run_coords[r.at..r.at + 2 * n];
        c.split_at(n)
    }
}

/// Lists the options of the position whose kernel frame (static
/// arguments, then arguments) is `ints` into `out` (cleared first). False
/// when some move needs the general path (code that does not evaluate on
/// integers, a move into a sum, a keyed kernel): the caller then lists the
/// position's options by its moves' code.
pub fn list_options(kernel: &Kernel, ints: &[i64], out: &mut Listed) -> bool {
    out.coords.clear();
    out.runs.clear();
    out.run_coords.clear();
    out.zeros = 0;
    if kernel.keyed {
        return false;
    }
    kernel.moves.iter().all(|m| match m {
        // Its options are listed by its code, the position's with them.
        MovePlan::General(_) => false,
        MovePlan::Kernel(m) => kernel_move(kernel, m, ints, out),
    })
}

/// The options of one move in kernel form; false as `list_options`.
fn kernel_move(kernel: &Kernel, m: &KernelMove, ints: &[i64], out: &mut Listed) -> bool {
    match m {
        KernelMove::Run(r) => run(kernel, r, ints, out),
        KernelMove::Single(s) => single(s, ints, out),
        KernelMove::Loop(l) => {
            let mut frame = [0i64; KERNEL_FRAME];
            frame[..ints.len()].copy_from_slice(ints);
            let width = l.frame_width(ints.len());
            let listed = l.each_option(&mut frame, width, &mut |frame| {
                Ok::<_, std::convert::Infallible>(loop_option(kernel, l, frame, out))
            });
            listed.unwrap_or_else(|never| match never {})
        }
        // Sums of positions go the general path (`Builder::sum_option`).
        KernelMove::SumRun(_) | KernelMove::KeyLoop(_) => false,
    }
}

/// The options of a run move: arguments affine in its binding, or
/// computed over the whole run by batched code.
fn run(kernel: &Kernel, m: &RunMove, ints: &[i64], out: &mut Listed) -> bool {
    let Some((a, b)) = run_range(m.lo.eval(ints), m.hi.eval(ints), m.inclusive)
        .and_then(|range| m.guard.narrowed_run(ints, range, false))
    else {
        return false;
    };
    if a >= b {
        return true;
    }
    let n = kernel.n_params;
    let mut bases = [0i64; MAX_ARGS as usize];
    for (x, base) in bases.iter_mut().zip(&m.bases) {
        match base.eval(ints) {
            Some(v) => *x = v,
            None => return false,
        }
    }
    if !affine_fits(&bases[..n], &m.coefs, a, b) {
        return false;
    }
    let len = (b - a) as usize;
    if m.per_option.is_empty() {
        // Affine in `k`: the run's first option and its step.
        let at = out.run_coords.len();
        (out.run_coords)
            .extend((bases[..n].iter().zip(&m.coefs)).map(|(&base, &coef)| base + coef * a));
        out.run_coords.extend_from_slice(&m.coefs[..n]);
        out.runs.push(StridedRun {
            at,
            len: len as u64,
        });
        return true;
    }
    let mut batch = std::mem::take(&mut out.batch);
    batch.clear();
    batch.resize(m.per_option.len() * len, 0);
    let computed = (m.per_option.iter())
        .zip(batch.chunks_exact_mut(len.max(1)))
        .all(|((_, code), values)| code(ints, a..b, values).is_some());
    if computed {
        out.coords.reserve(n * len);
        for (j, k) in (a..b).enumerate() {
            let at = out.coords.len();
            out.coords
                .extend((bases[..n].iter().zip(&m.coefs)).map(|(&base, &coef)| base + coef * k));
            for (p, (coord, _)) in m.per_option.iter().enumerate() {
                out.coords[at + coord] = batch[p * len + j];
            }
        }
    }
    out.batch = batch;
    computed
}

/// The option of a move without bindings, if its guard holds.
fn single(m: &SingleMove, ints: &[i64], out: &mut Listed) -> bool {
    match m.holds(0..m.guard.len(), ints) {
        Some(true) => {}
        Some(false) => return true,
        None => return false,
    }
    push_args(&m.args, ints, out)
}

/// Appends the option whose arguments are `args` evaluated on `frame`.
fn push_args(args: &[Operand<[i64]>], frame: &[i64], out: &mut Listed) -> bool {
    let at = out.coords.len();
    for arg in args {
        match arg.eval(frame) {
            Some(v) => out.coords.push(v),
            None => {
                out.coords.truncate(at);
                return false;
            }
        }
    }
    true
}

/// One option of a `LoopMove` (its bindings set in `frame`): a position,
/// the zero game, or (a sum) the general path.
fn loop_option(kernel: &Kernel, m: &LoopMove, frame: &[i64], out: &mut Listed) -> bool {
    let result = match pick(m.guard.as_ref(), &m.results, frame) {
        Pick::Result(r) => r,
        Pick::None => return true,
        Pick::GeneralPath => return false,
    };
    match &result.parts[..] {
        [] => {
            out.zeros += 1;
            true
        }
        [args] if args.len() == kernel.n_params => push_args(args, frame, out),
        _ => false,
    }
}
