//! The options of a box's cells as runs of cells: when a loopy game's
//! graph is its whole box (vertex = cell) and each of its moves' targets
//! is affine in the position's integers with a constant coefficient of the
//! move's binding (`G(x - k, y)` for `k in 1..=3`), or a move without
//! bindings (`G(x, y + 1)`), a cell's options are a few runs of cells a
//! constant number of cells apart: `(first, step, count)`. The run's
//! range is the binding's range as the guard cuts it (`LoopGuard`, the
//! bounds the search reads) and as the box clips it, so no option is
//! written out as coordinates, and no code runs per option.
//!
//! A move whose options move with the position along the box's innermost
//! coordinate (`translated` by the kernel: `take_x` above, whose range,
//! guard and other arguments do not read `y`) has the same runs, shifted
//! by the cell, all along a line of the box: they are listed once per
//! line (`LineRuns`). So does a move that changes the innermost
//! coordinate by the binding (`G(x, y - k)`) where nothing else of it
//! reads that coordinate and its guard holds inside the box
//! (`RunMove::guard_in_where`: `k <= y`), on the stretch of the line
//! where the box clips none of its options (`OnLine::Shifted`); the
//! cells near the line's ends list it per cell. Where no move of a line
//! is listed per cell, its cells share one row of options, offsets from
//! the cell, copied per cell (`LineRuns::same_row`).

use super::cell_box::CellBox;
use crate::eval::compile::{
    affine_fits, Kernel, KernelMove, MovePlan, Narrowed, Operand, RunMove, SingleMove,
};
use crate::eval::memo::MAX_COORDS;
use crate::eval::search::run_range;
use crate::syntax::ast::BinaryOp;

/// A kernel's moves read as runs of cells of `cells`.
pub(crate) struct BoxMoves<'k> {
    cells: CellBox,
    moves: Vec<BoxMove<'k>>,
    /// Where the position's integers start in the frame (after the static
    /// arguments).
    first_arg: usize,
}

struct BoxMove<'k> {
    kind: MoveKind<'k>,
    /// Its options move with the position along the innermost coordinate.
    along_lines: bool,
    /// Its options move with the position along the innermost coordinate
    /// where the box does not clip them (a run changing that coordinate
    /// by the binding, nothing else reading it).
    shifted: bool,
    /// A move without bindings decided per line as a stretch of cells
    /// (`BoxMoves::start_bounded`): its conjuncts that read the innermost
    /// coordinate orders (bounds on it) or tests made per cell, its last
    /// argument that coordinate plus a constant and no other argument
    /// reading it.
    bounded: bool,
}

enum MoveKind<'k> {
    /// Options `bases + coefs * k`: a step of `step` cells per `k`.
    Run {
        m: &'k RunMove,
        step: isize,
    },
    Single(&'k SingleMove),
}

/// What one move is on the current line of the box.
#[derive(Clone, Copy)]
enum OnLine {
    /// Its runs are `LineRuns::runs[from..to]`, the same for every cell.
    Listed(usize, usize),
    /// Its runs are `LineRuns::runs[from..to]` for the cells `lo..hi`
    /// along the line, listed per cell at the others.
    Shifted(usize, usize, usize, usize),
    /// Its runs are `LineRuns::runs[from..to]` for the cells `lo..hi`
    /// along the line, and it has no option at the others.
    Only(usize, usize, usize, usize),
    /// As `Only` where its conjuncts that read the innermost coordinate
    /// and are no orders hold, tested per cell (`BoxMoves::extras`).
    Tested(usize, usize, usize, usize),
    /// Listed per cell.
    PerCell,
    /// Its guard fails all along the line.
    Never,
}

/// The moves on one line of the box (its cells differing in the innermost
/// coordinate only).
#[derive(Default)]
pub(crate) struct LineRuns {
    /// The line's first cell.
    start: usize,
    /// The runs of the moves listed once per line, their first cell as an
    /// offset from the cell.
    runs: Vec<(isize, isize, usize)>,
    /// Per move, in order.
    moves: Vec<OnLine>,
    /// The cells `lo..hi` along the line where every move's options are
    /// its runs here (none listed per cell): their options as `offsets`
    /// from the cell (wrapping, in 32 bits as vertices are), a row to copy.
    same: (usize, usize),
    offsets: Vec<u32>,
}

impl LineRuns {
    /// The stretch `lo..hi` of the line's cells (from its first) whose
    /// options are one row of `offsets` from the cell, and that row.
    #[inline]
    pub fn same_row(&self) -> ((usize, usize), &[u32]) {
        (self.same, &self.offsets)
    }

    /// Whether a move is tested per cell on the line (`BoxMoves::extras`).
    pub fn tested(&self) -> bool {
        self.moves.iter().any(|m| matches!(m, OnLine::Tested(..)))
    }

    /// Finds the stretch of the line where no move is listed per cell,
    /// and the row its cells share (tested moves aside: `extras`).
    fn find_same_row(&mut self, size: usize) {
        let (mut lo, mut hi) = (0, size);
        let uniform = self.moves.iter().all(|m| match *m {
            OnLine::Listed(..) | OnLine::Never | OnLine::Tested(..) => true,
            OnLine::Shifted(_, _, a, b) | OnLine::Only(_, _, a, b) => {
                (lo, hi) = (lo.max(a), hi.min(b));
                true
            }
            OnLine::PerCell => false,
        });
        self.offsets.clear();
        self.same = (0, 0);
        if !uniform || lo >= hi {
            return;
        }
        for m in &self.moves {
            if let OnLine::Listed(from, to)
            | OnLine::Shifted(from, to, ..)
            | OnLine::Only(from, to, ..) = *m
            {
                for &(offset, step, count) in &self.runs[from..to] {
                    (self.offsets).extend((0..count as isize).map(|j| (offset + j * step) as u32));
                }
            }
        }
        self.same = (lo, hi);
    }
}

impl<'k> BoxMoves<'k> {
    /// The kernel's moves over `cells`, if every one is an affine run
    /// with no argument computed per option, or a move without bindings;
    /// `first_arg`: how many static arguments the frame starts with.
    pub fn new(kernel: &'k Kernel, cells: CellBox, first_arg: usize) -> Option<Self> {
        let n = cells.lo().len();
        if kernel.keyed || kernel.n_params != n || n == 0 {
            return None;
        }
        let inner = 1u64 << (n - 1);
        // Whether an operand is evaluated without the innermost coordinate.
        let free = |o: &Operand<[i64]>| match o {
            Operand::Const(_) => true,
            Operand::Local(s) => *s as usize != first_arg + n - 1,
            Operand::Code(_) => false,
        };
        let moves = (kernel.moves.iter())
            .map(|plan| match plan {
                MovePlan::Kernel(KernelMove::Run(m)) if m.per_option.is_empty() => {
                    let step = (m.coefs.iter().zip(cells.strides())).try_fold(
                        0isize,
                        |acc, (&c, &s)| {
                            acc.checked_add(isize::try_from(c).ok()?.checked_mul(s as isize)?)
                        },
                    )?;
                    let along_lines = m.translated & inner != 0;
                    let (last, others) = m.bases.split_last()?;
                    let shifted = !along_lines
                        && m.guard_in_where
                        && free(&m.lo)
                        && free(&m.hi)
                        && others.iter().all(free)
                        && matches!(last, Operand::Local(s) if *s as usize == first_arg + n - 1);
                    Some(BoxMove {
                        kind: MoveKind::Run { m, step },
                        along_lines,
                        shifted,
                        bounded: false,
                    })
                }
                MovePlan::Kernel(KernelMove::Single(m)) => Some(BoxMove {
                    kind: MoveKind::Single(m),
                    along_lines: m.translated & inner != 0,
                    shifted: false,
                    bounded: bounded_single(m, first_arg + n - 1),
                }),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(BoxMoves {
            cells,
            moves,
            first_arg,
        })
    }

    /// Decides, for the line of cells starting at cell `u` (its first
    /// cell, whose frame is `frame`), what can be decided once for the
    /// line: the runs of the moves that move with the position along it,
    /// and the stretches of the line the others' guards allow.
    pub fn start_line(&self, frame: &mut [i64], u: usize, line: &mut LineRuns) {
        line.runs.clear();
        line.moves.clear();
        line.start = u;
        for m in &self.moves {
            let on_line = if m.shifted {
                self.start_shifted(m, frame, u, line)
            } else if m.along_lines {
                let from = line.runs.len();
                let runs = &mut line.runs;
                let listed = self.list_move(m, frame, &mut |first, step, count| {
                    runs.push((first as isize - u as isize, step, count))
                });
                // Code that does not evaluate: the cells ask it again.
                if listed {
                    OnLine::Listed(from, line.runs.len())
                } else {
                    line.runs.truncate(from);
                    OnLine::PerCell
                }
            } else {
                let bounded = match &m.kind {
                    MoveKind::Single(s) if m.bounded => self.start_bounded(s, frame, line),
                    _ => None,
                };
                bounded.unwrap_or(OnLine::PerCell)
            };
            line.moves.push(on_line);
        }
        line.find_same_row(*self.cells.size().last().expect("a coordinate") as usize);
    }

    /// A shifted move on the line from cell `u`: its runs at the first
    /// cell along the line where the box clips none of the binding's
    /// range, kept for the stretch of cells where it clips none.
    fn start_shifted(
        &self,
        m: &BoxMove,
        frame: &mut [i64],
        u: usize,
        line: &mut LineRuns,
    ) -> OnLine {
        let MoveKind::Run { m: run, .. } = m.kind else {
            return OnLine::PerCell;
        };
        let ints = &frame[..self.first_arg + self.cells.lo().len()];
        let range = run_range(run.lo.eval(ints), run.hi.eval(ints), run.inclusive);
        let (Some((a, b)), Some(&c), Some(&size)) =
            (range, run.coefs.last(), self.cells.size().last())
        else {
            return OnLine::PerCell;
        };
        if a >= b {
            return OnLine::Never;
        }
        // Cell `j` of the line keeps every option when `j + c * k` lies
        // in `0..size` for `k = a` and `k = b - 1`.
        let ends = [c as i128 * a as i128, c as i128 * (b as i128 - 1)];
        let lo = (-ends[0]).max(-ends[1]).max(0);
        let hi = (size as i128 - ends[0].max(ends[1])).min(size as i128);
        if lo >= hi {
            return OnLine::PerCell;
        }
        let (lo, hi) = (lo as usize, hi as usize);
        let inner = self.first_arg + self.cells.lo().len() - 1;
        let first = frame[inner];
        frame[inner] = first + lo as i64;
        let from = line.runs.len();
        let at = u + lo;
        let runs = &mut line.runs;
        let listed = self.list_move(m, frame, &mut |cell, step, count| {
            runs.push((cell as isize - at as isize, step, count))
        });
        frame[inner] = first;
        if !listed {
            line.runs.truncate(from);
            return OnLine::PerCell;
        }
        OnLine::Shifted(from, line.runs.len(), lo, hi)
    }

    /// A bounded move without bindings (`BoxMove::bounded`) on the line
    /// from cell `u`: the conjuncts that do not read the innermost
    /// coordinate decided once (in any order: an order cannot fail, the
    /// others read nothing that changes along the line), each order that
    /// reads it a stretch of the line, its option one offset from the
    /// cell where the box holds it. `None` where some code does not
    /// evaluate or a side could overflow: the cells list it then.
    fn start_bounded(&self, m: &SingleMove, frame: &[i64], line: &mut LineRuns) -> Option<OnLine> {
        let n = self.cells.lo().len();
        let inner = self.first_arg + n - 1;
        let ints = &frame[..inner + 1];
        let size = *self.cells.size().last()? as i128;
        let y0 = ints[inner] as i128;
        // The cells `lo..hi` of the line where every bound holds.
        let (mut lo, mut hi) = (0i128, size);
        // A side `x + c` at cell `j`: `a * j + b`; exact only where the
        // code's own `x + c` fits 64 bits at both ends of the line.
        let side = |(x, c): (Option<usize>, i64)| -> Option<(i128, i128)> {
            let fits = |v: i128| i64::try_from(v).is_ok();
            match x {
                None => Some((0, c as i128)),
                Some(x) if x == inner => {
                    let b = y0 + c as i128;
                    (fits(b) && fits(b + size - 1)).then_some((1, b))
                }
                Some(x) => Some((0, ints.get(x)?.checked_add(c)? as i128)),
            }
        };
        // A conjunct reading the coordinate that is no order is tested per
        // cell; past the first, no cell of the orders' stretch may be
        // dropped (the cell's own listing would evaluate the tests there).
        let mut tested = false;
        for (&(reads, ref code), order) in m.guard.iter().zip(&m.orders) {
            let inner_read = reads >> (n - 1) & 1 == 1;
            if !inner_read {
                if !code(ints)? {
                    return (!tested).then_some(OnLine::Never);
                }
                continue;
            }
            let Some(o) = order.filter(|_| !tested) else {
                tested = true;
                continue;
            };
            let (l, r) = (
                side((o.l.0.map(|s| s as usize), o.l.1))?,
                side((o.r.0.map(|s| s as usize), o.r.1))?,
            );
            // `a * j + b` against 0.
            let (a, b) = (l.0 - r.0, l.1 - r.1);
            let (from, to) = holds_on(o.op, a, b, size)?;
            (lo, hi) = (lo.max(from), hi.min(to));
        }
        // The option: the cell's own with its last coordinate moved by `c`
        // and the others' fixed along the line.
        let (Some((_, c)), Some((_, outer))) = (m.shifts.last()?, m.args.split_last()) else {
            return None;
        };
        let mut offset = *c as i128;
        let lo_box = self.cells.lo();
        for (i, arg) in outer.iter().enumerate() {
            let x = arg.eval(ints)? as i128;
            if !(lo_box[i] as i128..lo_box[i] as i128 + self.cells.size()[i] as i128).contains(&x) {
                return (!tested || lo >= hi).then_some(OnLine::Never);
            }
            offset += (x - ints[self.first_arg + i] as i128) * self.cells.strides()[i] as i128;
        }
        // The option's last coordinate `y0 + j + c` in the box.
        let from_lo = lo_box[n - 1] as i128 - y0 - *c as i128;
        let orders = (lo, hi);
        (lo, hi) = (lo.max(from_lo), hi.min(from_lo + size));
        if lo >= hi && !(tested && orders.0 < orders.1) {
            return Some(OnLine::Never);
        }
        if tested && (lo, hi) != orders {
            return None;
        }
        let from = line.runs.len();
        line.runs.push((isize::try_from(offset).ok()?, 0, 1));
        let (lo, hi) = (lo as usize, hi as usize);
        Some(match tested {
            true => OnLine::Tested(from, from + 1, lo, hi),
            false => OnLine::Only(from, from + 1, lo, hi),
        })
    }

    /// Calls `run(first, step, count)` for the runs of cells that are the
    /// options of the position of cell `u`, whose frame (static
    /// arguments, then its integers, then room for bindings) is `frame`,
    /// on the line `line` starts; false, having called it for some, when
    /// some code does not evaluate on integers (the caller then lists the
    /// cell's options the general way, afresh).
    #[inline]
    pub fn list(
        &self,
        frame: &mut [i64],
        u: usize,
        line: &LineRuns,
        run: &mut impl FnMut(usize, isize, usize),
    ) -> bool {
        (self.moves.iter().zip(&line.moves)).all(|(m, on_line)| {
            let (from, to, lo, hi) = match *on_line {
                OnLine::Listed(from, to) => (from, to, 0, usize::MAX),
                OnLine::Shifted(from, to, lo, hi)
                | OnLine::Only(from, to, lo, hi)
                | OnLine::Tested(from, to, lo, hi) => (from, to, lo, hi),
                OnLine::PerCell => return self.list_move(m, frame, run),
                OnLine::Never => return true,
            };
            let held = match (on_line, &m.kind) {
                // Off its stretch a shifted move is listed by the cell.
                _ if !(lo..hi).contains(&(u - line.start)) => {
                    return !matches!(on_line, OnLine::Shifted(..)) || self.list_move(m, frame, run)
                }
                (OnLine::Tested(..), MoveKind::Single(s)) => self.tests_hold(s, frame),
                _ => Some(true),
            };
            for &(offset, step, count) in &line.runs[from..to] {
                if held == Some(true) {
                    run((u as isize + offset) as usize, step, count);
                }
            }
            held.is_some()
        })
    }

    /// Pushes the options of cell `u` (frame `frame`) of a line's shared
    /// stretch that its tested moves add to the shared row: false if a
    /// test does not evaluate (the cell is then listed the usual way).
    #[inline]
    pub fn extras(&self, frame: &[i64], u: usize, line: &LineRuns, succ: &mut Vec<u32>) -> bool {
        let ints = &frame[..self.first_arg + self.cells.lo().len()];
        (self.moves.iter().zip(&line.moves)).all(|(m, on_line)| {
            let (OnLine::Tested(from, _, lo, hi), MoveKind::Single(s)) = (*on_line, &m.kind) else {
                return true;
            };
            if !(lo..hi).contains(&(u - line.start)) {
                return true;
            }
            let Some(held) = self.tests_hold(s, ints) else {
                return false;
            };
            if held {
                succ.push((u as isize + line.runs[from].0) as u32);
            }
            true
        })
    }

    /// Whether a bounded move's conjuncts that read the innermost
    /// coordinate, from the first that is no order on, hold at the cell
    /// whose integers are `ints`; `None` when one does not evaluate.
    #[inline]
    fn tests_hold(&self, m: &SingleMove, ints: &[i64]) -> Option<bool> {
        let inner = 1u64 << (self.cells.lo().len() - 1);
        let mut tested = false;
        for ((reads, code), order) in m.guard.iter().zip(&m.orders) {
            tested |= reads & inner != 0 && order.is_none();
            if tested && reads & inner != 0 && !code(ints)? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Calls `run` for the runs of cells that are the options of the
    /// position whose frame is `frame`, nothing decided for its line;
    /// false as `list` says.
    pub fn list_cell(&self, frame: &mut [i64], run: &mut impl FnMut(usize, isize, usize)) -> bool {
        (self.moves.iter()).all(|m| self.list_move(m, frame, run))
    }

    /// Lists one move's runs.
    #[inline]
    fn list_move(
        &self,
        m: &BoxMove,
        frame: &mut [i64],
        run: &mut impl FnMut(usize, isize, usize),
    ) -> bool {
        let width = self.first_arg + self.cells.lo().len();
        match m.kind {
            MoveKind::Run { m, step } => self.run(m, step, frame, width, run),
            MoveKind::Single(m) => self.single(m, &frame[..width], run),
        }
    }

    fn run(
        &self,
        m: &RunMove,
        step: isize,
        frame: &mut [i64],
        width: usize,
        run: &mut impl FnMut(usize, isize, usize),
    ) -> bool {
        let ints = &frame[..width];
        let Some((mut a, mut b)) = run_range(m.lo.eval(ints), m.hi.eval(ints), m.inclusive) else {
            return false;
        };
        if a >= b {
            return true;
        }
        // The guard's own cuts (none to apply when it holds inside the
        // box); the box stands for the result's `where`.
        if !m.guard_in_where && (m.guard.levels.first()).is_some_and(|steps| !steps.is_empty()) {
            match m.guard.narrow(0, frame, (a, b), None, false) {
                Narrowed::Range(x, y) => (a, b) = (x, y),
                Narrowed::Unknown => return false,
            }
        }
        let ints = &frame[..width];
        let (a0, b0) = (a, b);
        // Clipped to the box coordinate by coordinate: coordinate `i` of
        // option `k` is `d[i] + coef * k` from the box's low corner.
        let mut d = [0i64; MAX_COORDS];
        let box_ = self.cells.lo().iter().zip(self.cells.size());
        for ((d, (base, &coef)), (&lo, &size)) in
            d.iter_mut().zip(m.bases.iter().zip(&m.coefs)).zip(box_)
        {
            let Some(v) = base.eval(ints) else {
                return false;
            };
            // Every option of the guard's range within 64 bits, as the
            // general path would evaluate them.
            let Some(from_lo) = v
                .checked_sub(lo)
                .filter(|_| affine_fits(&[v], &[coef], a0, b0))
            else {
                return false;
            };
            let Some(range) = clip(from_lo, coef, size as i64, (a, b)) else {
                return false;
            };
            (a, b) = range;
            if a >= b {
                return true;
            }
            *d = from_lo;
        }
        // Inside the box: every `d[i] + coef * a` is a coordinate's offset.
        let cell = (d.iter().zip(&m.coefs).zip(self.cells.strides()))
            .map(|((&d, &coef), &stride)| (d + coef * a) as usize * stride)
            .sum();
        run(cell, step, (b - a) as usize);
        true
    }

    fn single(
        &self,
        m: &SingleMove,
        ints: &[i64],
        run: &mut impl FnMut(usize, isize, usize),
    ) -> bool {
        match m.holds(0..m.guard.len(), ints) {
            Some(true) => {}
            Some(false) => return true,
            None => return false,
        }
        let mut at = [0i64; MAX_COORDS];
        for (x, arg) in at.iter_mut().zip(&m.args) {
            match arg.eval(ints) {
                Some(v) => *x = v,
                None => return false,
            }
        }
        if let Some(cell) = self.cells.cell(&at[..m.args.len()]) {
            run(cell, 0, 1);
        }
        true
    }
}

/// The `k` in `a..b` (`a < b`) for which `d + c * k` lies in `0..size`;
/// `None` if that cannot be told within 64 bits.
#[inline]
pub fn clip(d: i64, c: i64, size: i64, (a, b): (i64, i64)) -> Option<(i64, i64)> {
    // `lo..hi`: the `k` allowed by this coordinate.
    let (lo, hi) = match c {
        0 => {
            return Some(if (0..size).contains(&d) {
                (a, b)
            } else {
                (a, a)
            })
        }
        1 => (d.checked_neg()?, size.checked_sub(d)?),
        -1 => (d.checked_sub(size)?.checked_add(1)?, d.checked_add(1)?),
        c if c > 0 => (
            ceil_div(d.checked_neg()?, c)?,
            (size - 1).checked_sub(d)?.div_euclid(c) + 1,
        ),
        c => {
            let c = c.checked_neg()?;
            (ceil_div(d.checked_sub(size - 1)?, c)?, d.div_euclid(c) + 1)
        }
    };
    let (x, y) = (a.max(lo), b.min(hi));
    Some((x, y.max(x)))
}

/// `ceil(x / c)` for `c > 0`.
#[inline]
fn ceil_div(x: i64, c: i64) -> Option<i64> {
    x.checked_neg()?.div_euclid(c).checked_neg()
}

/// Whether a move without bindings can be decided per line of the box
/// (`BoxMove::bounded`), `inner` the innermost coordinate's slot.
fn bounded_single(m: &SingleMove, inner: usize) -> bool {
    let reads_inner = |a: &Operand<[i64]>, shift: &Option<(u32, i64)>| match (a, shift) {
        (Operand::Const(_), _) => false,
        (Operand::Local(s), _) => *s as usize == inner,
        (_, Some((s, _))) => *s as usize == inner,
        (Operand::Code(_), None) => true,
    };
    let Some(((_, outer), (last_shift, outer_shifts))) =
        m.args.split_last().zip(m.shifts.split_last())
    else {
        return false;
    };
    matches!(last_shift, Some((s, _)) if *s as usize == inner)
        && (outer.iter().zip(outer_shifts)).all(|(a, s)| !reads_inner(a, s))
}

/// The cells `j` in `0..size` where `a * j + b op 0` holds (`a` in -1..=1),
/// as a range; `None` for an operator that is no order.
fn holds_on(op: BinaryOp, a: i128, b: i128, size: i128) -> Option<(i128, i128)> {
    use BinaryOp::{Eq, Ge, Gt, Le, Lt};
    let all = |holds: bool| if holds { (0, size) } else { (0, 0) };
    Some(match (a, op) {
        (0, Lt) => all(b < 0),
        (0, Le) => all(b <= 0),
        (0, Gt) => all(b > 0),
        (0, Ge) => all(b >= 0),
        (0, Eq) => all(b == 0),
        // `j + b op 0`.
        (1, Lt) => (0, -b),
        (1, Le) => (0, -b + 1),
        (1, Gt) => (-b + 1, size),
        (1, Ge) => (-b, size),
        (1, Eq) => (-b, -b + 1),
        // `b - j op 0`.
        (-1, Lt) => (b + 1, size),
        (-1, Le) => (b, size),
        (-1, Gt) => (0, b),
        (-1, Ge) => (0, b + 1),
        (-1, Eq) => (b, b + 1),
        _ => return None,
    })
}
