//! Sweeps: a line of positions of one game asked in a row, as a table
//! asks them (`histogram(sg(G(n)) for n in 0..=N)`), valued in one loop:
//! each position is read from (or written to) the memo's dense window by
//! index, its `where` checked as bounds when it has that form, and, for a
//! game whose moves are all `StrideMove`s, its options read at fixed
//! distances from its own memo entry with no search stack and no move
//! code run. Any position that is not that plain case (outside the
//! window, not a position, an option without a value yet, ...) is handed
//! back to the caller, which asks it the general way; positions whose
//! options need a search go through `search_located` (via `Above`) as a
//! single query would. So values and errors are those of asking one position at a
//! time.

use std::ops::Range;

use super::*;
use crate::eval::memo::{int_shape, Line, BIG};
use smallvec::SmallVec;

/// The line of positions a sweep asks: `instance(coords)` with argument
/// `coord` set per element.
pub struct SweepLine<'a> {
    pub instance: InstanceId,
    /// All arguments of the positions; `coords[coord]` is overwritten.
    pub coords: &'a mut [i64],
    pub coord: usize,
    /// Where a tick of the asking loop points (interrupts) and where the
    /// query's errors point.
    pub tick_span: Span,
    pub span: Span,
}

/// For each `k` of `ks`: one tick of the asking loop, then `each(env, k,
/// value)` with the value of the position whose argument `coord` is
/// `x_of(k)`, or `None` when the caller must ask that position the
/// general way (then nothing of it was stored or counted). Stops, false,
/// when `each` returns false.
pub fn sweep_line<X, F>(
    env: &mut Env,
    line: SweepLine<'_>,
    ks: Range<i64>,
    x_of: X,
    mut each: F,
) -> Fallible<bool>
where
    X: Fn(i64) -> Option<i64>,
    F: FnMut(&mut Env, i64, Option<u64>) -> Fallible<bool>,
{
    let inst = env.rt.instance(line.instance);
    let Rules::User(g) = &inst.rules;
    let n = line.coords.len();
    let shape = int_shape(n);
    let usable = env.rt.limits.kernels
        && g.n_statics == 0
        && g.n_params == n
        && n <= MAX_ARGS as usize
        && matches!(g.body, CompiledBody::Moves(_));
    if !usable {
        for k in ks {
            env.tick(line.tick_span)?;
            if !each(env, k, None)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    let kernel = g.kernel.as_ref().filter(|k| k.shape == shape);
    let mut sweep = Sweeper {
        inst: &inst,
        instance: line.instance,
        shape,
        coords: line.coords,
        coord: line.coord,
        span: line.span,
        strides: kernel.and_then(|k| k.strides.as_deref()),
        where_bounds: kernel.and_then(|k| k.where_bounds.as_deref()),
        placed: None,
        plan: None,
        key: Key::default(),
    };
    let mut k = ks.start;
    while k < ks.end {
        // As many elements as the plain loop takes, then one the slow way.
        let (next, ticked) = match sweep.run(env, k..ks.end, &x_of, &mut each, line.tick_span)? {
            Run::Stopped => return Ok(false),
            Run::At(next, ticked) => (next, ticked),
        };
        k = next;
        if k >= ks.end {
            break;
        }
        if !ticked {
            env.tick(line.tick_span)?;
        }
        let v = match x_of(k) {
            Some(x) => sweep.value(env, x)?,
            None => None,
        };
        if !each(env, k, v)? {
            return Ok(false);
        }
        k += 1;
    }
    Ok(true)
}

/// Where the plain loop of a sweep stopped.
enum Run {
    /// `each` asked to stop.
    Stopped,
    /// At this element, already ticked (`true`) or not.
    At(i64, bool),
}

/// An interval of the line's argument, both ends included.
type Interval = (i64, i64);

/// A stride move on a line: its option's distance from the position's
/// index, where its guard holds, where its option lies in the window.
type PlannedMove = (isize, Interval, Interval);

/// A line's stride moves laid out for its window: per move, the distance
/// of its option from the position's index, the interval of the line's
/// argument where its guard holds, and the one where its option lies in
/// the window (outside it, but guarded in: the slow way).
struct Plan {
    line: Line,
    moves: SmallVec<[PlannedMove; 8]>,
    /// Where an unknown position satisfies its `where` (`None`: the slow
    /// way checks it).
    where_ok: Option<(i64, i64)>,
}

/// Where every planned move keeps its state (taken and in the window,
/// not taken, or taken outside it) and the `where` its answer: the plain
/// loop reads the options of a position inside it without a test per
/// move.
struct Region {
    lo: i64,
    hi: i64,
    /// The distances of the options taken.
    offsets: SmallVec<[isize; 8]>,
    /// Some option taken lies outside the window: the slow way.
    outside: bool,
    /// An unknown position here satisfies its `where`.
    where_ok: bool,
}

impl Region {
    fn empty() -> Region {
        Region {
            lo: 1,
            hi: 0,
            offsets: SmallVec::new(),
            outside: false,
            where_ok: false,
        }
    }
}

impl Plan {
    /// The region of `x`.
    fn region(&self, x: i64) -> Region {
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        let mut inside = |(a, b): Interval| {
            if a > b {
                return false; // never: the same everywhere
            }
            if x < a {
                hi = hi.min(a - 1);
                false
            } else if x > b {
                lo = lo.max(b + 1);
                false
            } else {
                lo = lo.max(a);
                hi = hi.min(b);
                true
            }
        };
        let where_ok = self.where_ok.is_some_and(&mut inside);
        let (mut offsets, mut outside) = (SmallVec::new(), false);
        for &(offset, taken, within) in &self.moves {
            if inside(taken) {
                if inside(within) {
                    offsets.push(offset);
                } else {
                    outside = true;
                }
            } else {
                inside(within);
            }
        }
        Region {
            lo,
            hi,
            offsets,
            outside,
            where_ok,
        }
    }
}

/// Per memo byte: the bit it sets in a mask of option values (values of
/// 63 and more share the top bit: with at most `MAX_STRIDES` options they
/// never decide the mex; not a position sets none) ...
const MARK: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 4;
    while b < BIG as usize {
        let v = if b - 4 < 63 { b - 4 } else { 63 };
        t[b] = 1 << v;
        b += 1;
    }
    t
};

/// ... and whether it holds no value yet (unknown, on the path, valid,
/// or a large value kept elsewhere).
const NO_VALUE: [bool; 256] = {
    let mut t = [false; 256];
    t[0] = true;
    t[1] = true;
    t[3] = true;
    t[BIG as usize] = true;
    t
};

/// `(lo, hi)` narrowed by the bounds of `bounds` on `coords`: those on
/// slot `coord` narrow it, the others hold or empty it.
fn narrow(
    bounds: &[Bound],
    coords: &[i64],
    coord: usize,
    (mut lo, mut hi): (i64, i64),
) -> (i64, i64) {
    for b in bounds {
        if b.slot == coord {
            lo = lo.max(b.lo);
            hi = hi.min(b.hi);
        } else if !(b.lo..=b.hi).contains(&coords[b.slot]) {
            return (1, 0);
        }
    }
    (lo, hi)
}

/// The state of one sweep.
struct Sweeper<'a> {
    inst: &'a Instance,
    instance: InstanceId,
    shape: crate::eval::memo::Shape,
    coords: &'a mut [i64],
    coord: usize,
    span: Span,
    strides: Option<&'a [StrideMove]>,
    where_bounds: Option<&'a [Bound]>,
    /// The line in the memo's window, while its layout lasts.
    placed: Option<Line>,
    /// The plan of the plain loop, kept while its line's layout lasts: a
    /// line whose positions each need a search returns to the loop once
    /// per element.
    plan: Option<Plan>,
    key: Key,
}

/// What the memo's byte says of a swept position.
enum Found {
    Value(u64),
    /// Valid, or unknown with its `where` to check (`true`): to value.
    ToValue(bool, usize, Line),
    /// Anything else: the caller asks it the general way.
    General,
}

impl Sweeper<'_> {
    /// The stride moves of the current line, laid out for its window.
    fn make_plan(&mut self) -> Option<Plan> {
        let memo = self.inst.memo.borrow();
        let line = memo.line(self.shape, self.coords, self.coord)?;
        self.placed = Some(line);
        let full = (i64::MIN, i64::MAX);
        let where_ok = match self.where_bounds {
            Some(bounds) => Some(narrow(bounds, self.coords, self.coord, full)),
            None => {
                let Rules::User(g) = &self.inst.rules;
                g.where_clause.is_none().then_some(full)
            }
        };
        let mut moves = SmallVec::new();
        for s in self.strides.unwrap_or(&[]) {
            let taken = narrow(&s.bounds, self.coords, self.coord, full);
            let (bits, shift) = (line.bits[s.coord], line.shifts[s.coord]);
            let top = (1i64 << bits) - 1;
            let (within, offset) = if s.coord == self.coord {
                // 0 <= x + delta <= top
                let lo = 0i64.saturating_sub(s.delta);
                let hi = top.saturating_sub(s.delta);
                ((lo, hi), (s.delta as isize) << shift)
            } else {
                let x = self.coords[s.coord];
                match x.checked_add(s.delta) {
                    Some(y) if (0..=top).contains(&y) => {
                        (full, ((y as isize) << shift) - ((x as isize) << shift))
                    }
                    _ => ((1, 0), 0),
                }
            };
            moves.push((offset, taken, within));
        }
        Some(Plan {
            line,
            moves,
            where_ok,
        })
    }

    /// The plain loop: elements whose position is in the line's window
    /// and either has a value or (with stride moves and a `where` of
    /// bounds) has options that all have one; stops at the first other.
    fn run<X, F>(
        &mut self,
        env: &mut Env,
        ks: Range<i64>,
        x_of: &X,
        each: &mut F,
        tick_span: Span,
    ) -> Fallible<Run>
    where
        X: Fn(i64) -> Option<i64>,
        F: FnMut(&mut Env, i64, Option<u64>) -> Fallible<bool>,
    {
        let inst = self.inst;
        let current = (self.plan.as_ref())
            .is_some_and(|p| inst.memo.borrow_mut().line_bytes(&p.line).is_some());
        if !current {
            self.plan = self.make_plan();
        }
        // Borrowed, not moved: a plan is a few hundred bytes.
        let Some(plan) = &self.plan else {
            return Ok(Run::At(ks.start, false));
        };
        let mut memo = inst.memo.borrow_mut();
        let Some(dense) = memo.line_bytes(&plan.line) else {
            return Ok(Run::At(ks.start, false));
        };
        let strides = self.strides.is_some();
        let mut stored = 0usize;
        let mut k = ks.start;
        let mut region = Region::empty(); // placed at the first element below
                                          // `each` is given values only here: it runs the comprehension's
                                          // aggregate, which does not read the memo.
        let result = loop {
            if k >= ks.end {
                break Ok(Run::At(k, false));
            }
            if let Err(e) = env.tick(tick_span) {
                break Err(e);
            }
            let Some(x) = x_of(k) else {
                break Ok(Run::At(k, true));
            };
            let Some(index) = plan.line.index(x) else {
                break Ok(Run::At(k, true));
            };
            let b = dense[index];
            let v = if (4..=254).contains(&b) {
                (b - 4) as u64
            } else if strides && (b == 0 || b == 3) {
                if !(region.lo..=region.hi).contains(&x) {
                    region = plan.region(x);
                }
                if region.outside || (b == 0 && !region.where_ok) {
                    break Ok(Run::At(k, true));
                }
                let (mut seen, mut missing) = (0u64, false);
                for &offset in &region.offsets {
                    let o = dense[(index as isize + offset) as usize];
                    seen |= MARK[o as usize];
                    missing |= NO_VALUE[o as usize];
                }
                if missing {
                    break Ok(Run::At(k, true));
                }
                let v = (!seen).trailing_zeros() as u64;
                dense[index] = v as u8 + 4;
                stored += 1;
                if let Err(e) = env.rt.count_stored(self.span, &inst.name) {
                    break Err(e);
                }
                v
            } else {
                break Ok(Run::At(k, true));
            };
            match each(env, k, Some(v)) {
                Ok(true) => k += 1,
                Ok(false) => break Ok(Run::Stopped),
                Err(e) => break Err(e),
            }
        };
        memo.stored += stored;
        result
    }

    /// The value of the position with argument `coord` at `x`, `None` if
    /// the caller must ask it the general way.
    #[inline]
    fn value(&mut self, env: &mut Env, x: i64) -> Fallible<Option<u64>> {
        self.coords[self.coord] = x;
        let (unknown, index, line) = match self.find(x) {
            Found::Value(v) => return Ok(Some(v)),
            Found::General => return Ok(None),
            Found::ToValue(unknown, index, line) => (unknown, index, line),
        };
        if unknown && !self.where_holds(env)? {
            return Ok(None);
        }
        if let Some(v) = self.by_strides(index, &line) {
            env.rt.count_stored(self.span, &self.inst.name)?;
            return Ok(Some(v));
        }
        self.key.set_raw(
            self.shape,
            self.coords.len() as u8,
            self.coords.iter().copied(),
        );
        let at = Some(line.located(index));
        (env.rt.above.search_located)(env, self.instance, &self.key, at, self.span).map(Some)
    }

    /// Reads the position's memo byte (placing the line first if needed).
    #[inline]
    fn find(&mut self, x: i64) -> Found {
        let mut memo = self.inst.memo.borrow_mut();
        let line = match self.placed {
            Some(l) if memo.line_bytes(&l).is_some() => l,
            _ => match memo.line(self.shape, self.coords, self.coord) {
                Some(l) => {
                    self.placed = Some(l);
                    l
                }
                None => return Found::General,
            },
        };
        let Some(index) = line.index(x) else {
            return Found::General;
        };
        let dense = memo.line_bytes(&line).expect("the line is current");
        match dense[index] {
            0 => Found::ToValue(true, index, line),
            3 => Found::ToValue(false, index, line),
            b @ 4..=254 => Found::Value((b - 4) as u64),
            _ => Found::General,
        }
    }

    /// Whether the unknown position satisfies its game's `where`.
    fn where_holds(&mut self, env: &mut Env) -> Fallible<bool> {
        if let Some(bounds) = self.where_bounds {
            return Ok(Bound::all_hold(bounds, self.coords));
        }
        let Rules::User(g) = &self.inst.rules;
        if g.where_clause.is_none() {
            return Ok(true);
        }
        if let Some(holds) = g.where_flat.as_ref().and_then(|w| w(self.coords)) {
            return Ok(holds);
        }
        self.key.set_raw(
            self.shape,
            self.coords.len() as u8,
            self.coords.iter().copied(),
        );
        satisfies_where(env, self.instance, &self.key, self.span)
    }

    /// The value of the position at `index` of `line` from its stride
    /// moves' options, stored (and counted in the memo), if the game has
    /// stride moves and every option taken has a value in the window.
    #[inline]
    fn by_strides(&mut self, index: usize, line: &Line) -> Option<u64> {
        let strides = self.strides?;
        let mut memo = self.inst.memo.borrow_mut();
        let dense = memo.line_bytes(line)?;
        let v = stride_mex(strides, self.coords, line, dense, index)?;
        if v >= (BIG - 4) as u64 {
            return None;
        }
        dense[index] = v as u8 + 4;
        memo.stored += 1;
        Some(v)
    }
}

/// The mex of the options of the position `coords` at `index` of `line`
/// under stride moves; `None` if an option taken lies outside the window,
/// overflows, or has no value yet.
#[inline]
fn stride_mex(
    strides: &[StrideMove],
    coords: &[i64],
    line: &Line,
    dense: &[u8],
    index: usize,
) -> Option<u64> {
    let mut seen = 0u64;
    for s in strides {
        if !Bound::all_hold(&s.bounds, coords) {
            continue;
        }
        let y = coords[s.coord].checked_add(s.delta)?;
        let at = line.moved(index, s.coord, y)?;
        match dense[at] {
            // Not a position: not an option.
            2 => {}
            b @ 4..=254 => seen |= 1u64.checked_shl((b - 4) as u32).unwrap_or(0),
            _ => return None,
        }
    }
    Some((!seen).trailing_zeros() as u64)
}
