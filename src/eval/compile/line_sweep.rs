//! Sweeps: a line of positions of one game asked in a row, as a table
//! asks them (`histogram(sg(G(n)) for n in 0..=N)`, `sg(W([a, b, c, d]))
//! for a in 0..b`), valued in one loop: each position is read from (or
//! written to) the memo's dense window by index, its `where` decided
//! once for the line as an interval of its argument when it has that
//! form (`where_line.rs`), and, for a game whose moves are all
//! `StrideMove`s, its options read at fixed distances from its own memo
//! entry with no search stack and no move code run. The plain loop goes
//! in blocks: within one, every element's options lie at the same
//! distances, no interrupt check falls and the state limit cannot be
//! reached, so an element costs a few reads, its mex and a store (on a
//! line laid out by rank, its known lists are read at their ranks). Any
//! position that is not that plain case (outside the window, not a
//! position, an option without a value yet, ...) is handed back to the
//! caller, which asks it the general way; an unknown position of a game
//! on a kernel of integers is valued on it with the line's frame held
//! (`value_on_line` via `Above`), and positions whose options need a
//! search go through the search (`search_swept` via `Above`, on buffers
//! held for the line) as a single query would. So values and errors are
//! those of asking one position at a time.

use std::any::Any;
use std::ops::Range;

use super::frame::KeyFrame;
use super::kernel::{Bound, StrideMove};
use super::runtime::{CompiledBody, CompiledGame, Env, Instance, OnLine};
use super::where_check::satisfies_where;
use crate::diag::Fallible;
use crate::eval::gsg::INFINITE;
use crate::eval::memo::scan::{byte_value, NO_VALUE_BYTES, ON_PATH_BYTE};
use crate::eval::memo::{
    int_shape, populate_for_writing, Key, Line, Located, RankedLine, Shape, State, Tag, BIG,
    MAX_COORDS,
};
use crate::eval::value::InstanceId;
use crate::ir::ir::*;
use crate::syntax::Span;
use smallvec::SmallVec;

/// The line of positions a sweep asks: `instance` at the key of `shape`
/// (`n_args` arguments) whose coordinates are `coords`, with coordinate
/// `coord` set per element.
pub struct SweepLine<'a> {
    pub instance: InstanceId,
    pub shape: Shape,
    pub n_args: u8,
    /// All coordinates of the positions' keys; `coords[coord]` is
    /// overwritten.
    pub coords: &'a mut [i64],
    pub coord: usize,
    /// Where a tick of the asking loop points (interrupts) and where the
    /// query's errors point.
    pub tick_span: Span,
    pub span: Span,
}

/// The moving coordinate of element `k`: `scale * k + add`, exactly (an
/// element where it is not an integer is asked the general way, which
/// reports the overflow).
#[derive(Clone, Copy, Debug)]
pub struct Affine {
    pub scale: i64,
    pub add: i128,
}

impl Affine {
    #[inline]
    pub fn at(&self, k: i64) -> Option<i64> {
        i64::try_from(self.scale as i128 * k as i128 + self.add).ok()
    }

    /// How many elements from `k` on, before `end`, have their coordinate
    /// in `lo..=hi`, given that `k`'s is (at least one).
    fn run_within(&self, k: i64, end: i64, lo: i64, hi: i64) -> u64 {
        let (s, a) = (self.scale as i128, self.add);
        let last = match s.signum() {
            0 => end as i128 - 1,
            1 => (hi as i128 - a).div_euclid(s),
            _ => (a - lo as i128).div_euclid(-s),
        };
        ((last + 1).min(end as i128) - k as i128).max(1) as u64
    }
}

/// What a sweep hands its elements to, in order.
pub trait LineSink {
    /// Element `k`'s value; false to stop.
    fn value(&mut self, env: &mut Env, k: i64, v: u64) -> Fallible<bool>;
    /// Whether it takes known values as blocks (`values`), where that
    /// saves it work per value, rather than one by one.
    fn blocks(&self) -> bool {
        false
    }
    /// The values of elements `k`, `k + 1`, ... (at most `BLOCK`), read
    /// as a block, in order: how many were taken before one asked to stop
    /// (`None`: all).
    fn values(&mut self, env: &mut Env, k: i64, vs: &[u64]) -> Fallible<Option<usize>> {
        for (j, &v) in vs.iter().enumerate() {
            if !self.value(env, k + j as i64, v)? {
                return Ok(Some(j + 1));
            }
        }
        Ok(None)
    }
    /// Element `k`, to be asked the general way (nothing of it was stored
    /// or counted); false to stop.
    fn general(&mut self, env: &mut Env, k: i64) -> Fallible<bool>;
    /// The elements before `k` are done (for a progress bar).
    fn reached(&mut self, k: i64);
}

/// For each `k` of `ks`: one tick of the asking loop, then the value of
/// the position whose coordinate `coord` is `map.at(k)` to `sink`, or the
/// element to ask the general way. Stops, false, when `sink` says so.
/// Inlined into its caller, one per sink: on the LTO build W16 ran
/// 1,125.6M instructions so and 1,220.6M left to the inliner.
#[inline(always)]
pub fn sweep_line<S: LineSink>(
    env: &mut Env,
    line: SweepLine<'_>,
    ks: Range<i64>,
    map: Affine,
    sink: &mut S,
) -> Fallible<bool> {
    let inst = env.rt.instance(line.instance);
    let g = &inst.game;
    let n = line.coords.len();
    let usable = env.rt.limits.plans.sweeps
        && g.n_statics == 0
        && g.n_params == line.n_args as usize
        && n <= MAX_COORDS
        && line.coord < n
        && matches!(g.body, CompiledBody::Moves(_));
    if !usable {
        for k in ks {
            sink.reached(k);
            env.tick(line.tick_span)?;
            if !sink.general(env, k)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    // Stride moves, bounds and flat `where` code read integer arguments.
    let ints = line.shape == int_shape(n);
    let kernel = g.kernel.as_ref().filter(|k| ints && k.shape == line.shape);
    // The `where` along the line, decided once for it where it can be.
    let where_line = match (&g.where_clause, &g.where_line) {
        (None, _) => Some((i64::MIN, i64::MAX)),
        (Some(_), Some(w)) if ints && env.rt.limits.plans.where_code => {
            w.interval(line.coords, line.coord)
        }
        _ => None,
    };
    // A window laid out by rank: the line looked up once, here (the plain
    // loop and `find` read it; a layout changed since, `find` looks it up
    // again).
    let column = (inst.memo.borrow()).ranked_line(line.shape, line.coords, line.coord);
    let mut sweep = Sweeper {
        inst: &inst,
        instance: line.instance,
        shape: line.shape,
        n_args: line.n_args,
        ints,
        coords: line.coords,
        coord: line.coord,
        span: line.span,
        // A compound's layer adds an option the strides do not read
        // (the pass, below) or a terminal value (misère): searched.
        strides: (kernel.filter(|_| inst.layer.is_none())).and_then(|k| k.strides.as_deref()),
        where_line,
        placed: None,
        column,
        plan: None,
        key: Key::default(),
        frame: None,
        known: false,
        keyed: false,
        written_ahead: false,
        held: None,
        may_fill: g.fill_order.is_some() && inst.layer.is_none(),
        on_kernel: (kernel.is_some_and(|k| !k.keyed) || g.kernel.as_ref().is_some_and(|k| k.keyed))
            && inst.layer.is_none()
            && env.rt.limits.plans.kernels,
    };
    let tick_span = line.tick_span;
    let mut run = || -> Fallible<bool> {
        let mut k = ks.start;
        // Whether to try the plain loop: always with stride moves, else while
        // it finds values (a line valued by a search per element skips it).
        let mut plain = true;
        while k < ks.end {
            // As many elements as the plain loop takes, then one the slow way.
            let mut ticked = false;
            if plain {
                match sweep.run(env, k..ks.end, map, sink, tick_span)? {
                    Run::Stopped => return Ok(false),
                    Run::At(next, t) => (k, ticked) = (next, t),
                }
                if k >= ks.end {
                    break;
                }
            }
            if !ticked {
                sink.reached(k);
                env.tick(tick_span)?;
            }
            let v = match map.at(k) {
                Some(x) => sweep.value(env, x)?,
                None => None,
            };
            // Not again where the window has no line (a line by rank:
            // while its lists are known).
            plain = (sweep.strides.is_some() || sweep.known) && sweep.placed.is_some()
                || sweep.known && sweep.column.is_some();
            let go = match v {
                Some(v) => sink.value(env, k, v)?,
                None => sink.general(env, k)?,
            };
            if !go {
                return Ok(false);
            }
            k += 1;
        }
        Ok(true)
    };
    let result = run();
    env.scratch.extend(sweep.held.take());
    result
}

/// Where the plain loop of a sweep stopped.
enum Run {
    /// The sink asked to stop.
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

/// Per memo byte: the bit it sets in a mask of option values. Values of
/// 62 and more share bit 62 (with at most `MAX_STRIDES` options they never
/// decide the mex); a byte holding no value yet (`NO_VALUE_BYTES`) sets
/// bit 63, `MISSING`; not a position sets none.
const MARK: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 4;
    while b < BIG as usize {
        let v = if b - 4 < 62 { b - 4 } else { 62 };
        t[b] = 1 << v;
        b += 1;
    }
    let mut i = 0;
    while i < NO_VALUE_BYTES.len() {
        t[NO_VALUE_BYTES[i]] = MISSING;
        i += 1;
    }
    t
};

const MISSING: u64 = 1 << 63;

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
    shape: Shape,
    n_args: u8,
    /// The key is of integer arguments only (`shape` is `int_shape`).
    ints: bool,
    coords: &'a mut [i64],
    coord: usize,
    span: Span,
    strides: Option<&'a [StrideMove]>,
    /// Where the line's positions satisfy their `where` (`WhereLine`),
    /// when that is known for the whole line: `lo..=hi` of its argument.
    where_line: Option<Interval>,
    /// The line in the memo's window, while its layout lasts.
    placed: Option<Line>,
    /// The line in a window laid out by rank, while its layout lasts.
    column: Option<RankedLine>,
    /// The plan of the plain loop, kept while its line's layout lasts: a
    /// line whose positions each need a search returns to the loop once
    /// per element.
    plan: Option<Plan>,
    key: Key,
    /// The frame a `where` of sequence arguments is read on, loaded once
    /// per line, and where the moving coordinate lies in it.
    frame: Option<(Box<KeyFrame>, FrameAt)>,
    /// The last position `value` asked had a value in the memo.
    known: bool,
    /// `key` holds the position `value` is asking.
    keyed: bool,
    /// The pages of the line's elements were faulted in for writing
    /// (`write_ahead`).
    written_ahead: bool,
    /// A level of the game's lists may be filled at once (`fill_ranked`):
    /// it has a fill order and no layer.
    may_fill: bool,
    /// The search's buffers, held for the line (`Above::search_swept`).
    held: Option<Box<dyn Any>>,
    /// The game has a kernel of the line's integers, or a keyed one, and
    /// no layer: an unknown position is valued on it
    /// (`Above::value_on_line`).
    on_kernel: bool,
}

/// Where a key's coordinate lies in its `KeyFrame`.
#[derive(Clone, Copy)]
enum FrameAt {
    Slot(Slot),
    Item(usize),
}

/// The first coordinate and the length of the argument of `key` in
/// `slot` (after `n_statics` static arguments), if it is a list and
/// coordinate `coord` is one of its items.
fn list_at(key: &Key, n_statics: usize, slot: Slot, coord: usize) -> Option<(usize, usize)> {
    let mut at = 0;
    for (j, tag) in key.tags().enumerate() {
        let width = tag.width();
        if n_statics + j == slot as usize {
            let list = matches!(tag, Tag::List(_)) && (at..at + width).contains(&coord);
            return list.then_some((at, width));
        }
        at += width;
    }
    None
}

/// Where coordinate `coord` of `key` lies in a frame loaded with it and
/// `n_statics` static arguments.
fn frame_at(key: &Key, n_statics: usize, coord: usize) -> Option<FrameAt> {
    let (mut at, mut items) = (0, 0);
    for (j, tag) in key.tags().enumerate() {
        let (width, seq) = match tag {
            Tag::Int | Tag::Bool | Tag::Bits => (1, false),
            Tag::List(n) | Tag::Set(n) | Tag::Tuple(n) => (n as usize, true),
        };
        if (at..at + width).contains(&coord) {
            return Some(match seq {
                false if tag == Tag::Int => FrameAt::Slot((n_statics + j) as Slot),
                false => return None,
                true => FrameAt::Item(items + coord - at),
            });
        }
        at += width;
        items += if seq { width } else { 0 };
    }
    None
}

/// What the memo's byte says of a swept position.
enum Found {
    Value(u64),
    /// Valid, or unknown with its `where` to check (`true`): to value,
    /// at this index of the line in `Sweeper::placed`.
    ToValue(bool, usize),
    /// The same, for a position the window has no line for (one laid out
    /// by rank, at its place here, or outside the window): found by its
    /// coordinates.
    ByKey(bool, Option<Located>),
    /// Anything else: the caller asks it the general way.
    General,
}

/// How a block of the plain loop ended.
enum Ended {
    /// After this many elements given to the sink (all of the block, or
    /// the next one needs the slow way).
    At(usize),
    /// The sink asked to stop at this many elements given.
    Stopped(usize),
}

/// One block of the plain loop: `m` elements whose memo bytes lie at
/// `index`, `index + stride`, ...; none crosses an interrupt check.
struct Block {
    index: usize,
    stride: isize,
    k: i64,
    m: usize,
    /// Positions that may still be stored before the state limit.
    room: usize,
    /// An unknown position satisfies its `where`.
    where_ok: bool,
}

impl Block {
    /// Gives the elements' values to `sink`: known ones as read, those on
    /// the search path from `on_path(k)` (a loopy game's infinite
    /// values), unknown or valid ones from `seen(dense, index)` (the
    /// marks of their options) and stored; stops at the first that needs
    /// the slow way. Counts the positions stored in `put`.
    #[inline(always)]
    fn run<S: LineSink>(
        &self,
        env: &mut Env,
        (sink, put): &mut (&mut S, &mut usize),
        dense: &mut [u8],
        seen: impl Fn(&[u8], usize) -> u64,
        on_path: impl Fn(i64) -> Option<u64>,
    ) -> Fallible<Ended> {
        let mut index = self.index;
        for j in 0..self.m {
            let b = dense[index];
            let v = if let Some(v) = byte_value(b) {
                v
            } else if b == ON_PATH_BYTE {
                match on_path(self.k + j as i64) {
                    Some(v) => v,
                    None => return Ok(Ended::At(j)),
                }
            } else {
                if !(b == 3 || (b == 0 && self.where_ok)) || **put == self.room {
                    return Ok(Ended::At(j));
                }
                let marks = seen(dense, index);
                if marks & MISSING != 0 {
                    return Ok(Ended::At(j));
                }
                let v = (!marks).trailing_zeros() as u64;
                dense[index] = v as u8 + 4;
                **put += 1;
                v
            };
            if !sink.value(env, self.k + j as i64, v)? {
                return Ok(Ended::Stopped(j + 1));
            }
            index = index.wrapping_add_signed(self.stride);
        }
        Ok(Ended::At(self.m))
    }

    /// `run` for a sink that takes blocks (`LineSink::blocks`), of known
    /// values only: they go to `sink` up to `BLOCK` at a time; stops at
    /// the first element without a value.
    #[inline(never)]
    fn run_known<S: LineSink>(
        &self,
        env: &mut Env,
        sink: &mut S,
        dense: &[u8],
        on_path: impl Fn(i64) -> Option<u64>,
    ) -> Fallible<Ended> {
        let (mut index, mut j) = (self.index, 0);
        while j < self.m {
            let (from, mut vs) = (j, [0u64; BLOCK]);
            let mut n = 0;
            while n < BLOCK && j < self.m {
                let b = dense[index];
                let v = match byte_value(b) {
                    Some(v) => v,
                    None if b == ON_PATH_BYTE => match on_path(self.k + j as i64) {
                        Some(v) => v,
                        None => break,
                    },
                    None => break,
                };
                (vs[n], n, j) = (v, n + 1, j + 1);
                index = index.wrapping_add_signed(self.stride);
            }
            if let Some(taken) = sink.values(env, self.k + from as i64, &vs[..n])? {
                return Ok(Ended::Stopped(from + taken));
            }
            if n < BLOCK && j < self.m {
                break; // an element without a value
            }
        }
        Ok(Ended::At(j))
    }
}

/// How many known values a sweep hands on at once (`LineSink::values`).
pub const BLOCK: usize = 64;

/// Faults in for writing the window's pages that hold the elements `ks`
/// (their coordinate within `0..=top`), when those lie less than a page
/// apart: the sweep writes each of those pages, after reading an
/// element's own byte first.
fn write_ahead(dense: &mut [u8], line: &Line, map: Affine, (ks, top): (Range<i64>, i64)) {
    let apart = (map.scale.unsigned_abs() as usize).saturating_mul(line.stride());
    let within = |k: i64| {
        map.at(k)
            .map(|x| x.clamp(0, top))
            .and_then(|x| line.index(x))
    };
    if ks.is_empty() || apart >= 4096 {
        return;
    }
    if let Some((a, b)) = within(ks.start).zip(within(ks.end - 1)) {
        populate_for_writing(&mut dense[a.min(b)..=a.max(b)]);
    }
}

/// The marks of the options at `offsets` from `index`.
#[inline(always)]
fn marks(dense: &[u8], index: usize, offsets: &[isize]) -> u64 {
    offsets.iter().fold(0, |seen, &o| {
        seen | MARK[dense[index.wrapping_add_signed(o)] as usize]
    })
}

impl Sweeper<'_> {
    /// The plan of the current line, made anew if the window's layout
    /// changed since.
    fn current_plan(&mut self) -> Option<&Plan> {
        let current = (self.plan.as_ref())
            .is_some_and(|p| self.inst.memo.borrow_mut().line_bytes(&p.line).is_some());
        if !current {
            self.plan = self.make_plan();
        }
        self.plan.as_ref()
    }

    /// The stride moves of the current line, laid out for its window.
    fn make_plan(&mut self) -> Option<Plan> {
        let memo = self.inst.memo.borrow();
        let line = memo.line(self.shape, self.coords, self.coord)?;
        self.placed = Some(line);
        let full = (i64::MIN, i64::MAX);
        let where_ok = self.where_line;
        let mut moves = SmallVec::new();
        for s in self.strides.unwrap_or(&[]) {
            let taken = narrow(&s.bounds, self.coords, self.coord, full);
            let (end, step) = (line.ends[s.coord], line.strides[s.coord] as isize);
            let top = end as i64 - 1;
            let (within, offset) = if s.coord == self.coord {
                // 0 <= x + delta <= top
                let lo = 0i64.saturating_sub(s.delta);
                let hi = top.saturating_sub(s.delta);
                ((lo, hi), (s.delta as isize).wrapping_mul(step))
            } else {
                let x = self.coords[s.coord];
                match x.checked_add(s.delta) {
                    Some(y) if (0..=top).contains(&y) => {
                        (full, ((y - x) as isize).wrapping_mul(step))
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
    /// It goes in blocks of elements in one region of the plan (the same
    /// options taken), ticked at once: one tick as the asking loop would,
    /// then as many as follow without reaching an interrupt check.
    fn run<S: LineSink>(
        &mut self,
        env: &mut Env,
        ks: Range<i64>,
        map: Affine,
        sink: &mut S,
        tick_span: Span,
    ) -> Fallible<Run> {
        if let Some(line) = self.column {
            return self.run_ranked(env, &line, ks, map, sink, tick_span);
        }
        let (inst, coord, strides) = (self.inst, self.coord, self.strides.is_some());
        // A loopy game's positions of infinite value, read from its own
        // table's line.
        let mut infinite = inst.infinite.borrow_mut();
        let infinite = infinite.line(self.shape, self.coords, coord);
        let on_path = |k: i64| {
            let (line, bytes) = infinite.as_ref()?;
            let id = byte_value(bytes[line.index(map.at(k)?)?])?;
            Some(id | INFINITE)
        };
        let ahead = !std::mem::replace(&mut self.written_ahead, true);
        // Borrowed, not moved: a plan is a few hundred bytes.
        let Some(plan) = self.current_plan() else {
            return Ok(Run::At(ks.start, false));
        };
        let mut memo = inst.memo.borrow_mut();
        let Some(dense) = memo.line_bytes(&plan.line) else {
            return Ok(Run::At(ks.start, false));
        };
        let (end, step) = (plan.line.ends[coord], plan.line.strides[coord]);
        let top = end as i64 - 1;
        if ahead {
            write_ahead(dense, &plan.line, map, (ks.clone(), top));
        }
        let max_states = env.rt.limits.max_states;
        let mut stored = 0usize;
        let mut k = ks.start;
        let mut region = Region::empty(); // placed at the first element below
                                          // The sink is given values only here: it runs the comprehension's
                                          // aggregate, which does not read the memo.
        let result = loop {
            if k >= ks.end {
                break Ok(Run::At(k, false));
            }
            let Some(x) = map.at(k).filter(|x| (0..=top).contains(x)) else {
                break Ok(Run::At(k, false));
            };
            let (mut lo, mut hi) = (0, top);
            if strides {
                if !(region.lo..=region.hi).contains(&x) {
                    region = plan.region(x);
                }
                (lo, hi) = (lo.max(region.lo), hi.min(region.hi));
            }
            sink.reached(k);
            if let Err(e) = env.tick(tick_span) {
                break Err(e);
            }
            let free = 0xfff - (env.ticks & 0xfff) as u64;
            let m = map.run_within(k, ks.end, lo, hi).min(free + 1) as usize;
            let block = Block {
                index: plan.line.index(x).expect("in the window"),
                stride: if m > 1 {
                    (map.scale as isize).wrapping_mul(step as isize)
                } else {
                    0
                },
                k,
                m,
                room: max_states.saturating_sub(env.rt.stored.get()),
                where_ok: region.where_ok,
            };
            let mut put = 0; // stored by the block
            let offsets = &region.offsets[..];
            let mut out = (&mut *sink, &mut put);
            let ended = if !strides || region.outside {
                // Only known values: an unknown one goes the slow way.
                if out.0.blocks() {
                    block.run_known(env, out.0, dense, on_path)
                } else {
                    block.run(env, &mut out, dense, |_, _| MISSING, on_path)
                }
            } else {
                // Fixed counts unroll the reads of the options.
                match *offsets {
                    [a] => block.run(env, &mut out, dense, |d, i| marks(d, i, &[a]), on_path),
                    [a, b] => block.run(env, &mut out, dense, |d, i| marks(d, i, &[a, b]), on_path),
                    [a, b, c] => block.run(
                        env,
                        &mut out,
                        dense,
                        |d, i| marks(d, i, &[a, b, c]),
                        on_path,
                    ),
                    [a, b, c, e] => block.run(
                        env,
                        &mut out,
                        dense,
                        |d, i| marks(d, i, &[a, b, c, e]),
                        on_path,
                    ),
                    _ => block.run(env, &mut out, dense, |d, i| marks(d, i, offsets), on_path),
                }
            };
            stored += put;
            env.rt.stored.set(env.rt.stored.get() + put);
            // The ticks of the block's elements after its first, up to the
            // one it stopped at (ticked: the slow way does not tick it).
            match ended {
                Err(e) => break Err(e),
                Ok(Ended::Stopped(j)) => {
                    env.ticks = env.ticks.wrapping_add(j as u32 - 1);
                    break Ok(Run::Stopped);
                }
                Ok(Ended::At(j)) if j == m => {
                    env.ticks = env.ticks.wrapping_add(m as u32 - 1);
                    k += m as i64;
                }
                Ok(Ended::At(j)) => {
                    env.ticks = env.ticks.wrapping_add(j as u32);
                    break Ok(Run::At(k + j as i64, true));
                }
            }
        };
        memo.stored += stored;
        result
    }

    /// The value of the position with coordinate `coord` at `x`, `None`
    /// if the caller must ask it the general way.
    #[inline]
    fn value(&mut self, env: &mut Env, x: i64) -> Fallible<Option<u64>> {
        self.coords[self.coord] = x;
        (self.known, self.keyed) = (false, false);
        let (unknown, index, by_key) = match self.find(x) {
            Found::Value(v) => {
                self.known = true;
                return Ok(Some(v));
            }
            Found::General => return Ok(None),
            Found::ToValue(unknown, index) => (unknown, Some(index), None),
            Found::ByKey(unknown, at) => (unknown, None, at),
        };
        if unknown && !self.where_holds(env)? {
            return Ok(None);
        }
        if let Some(v) = index.and_then(|index| self.by_strides(x, index)) {
            env.rt.count_stored(self.span, &self.inst.name)?;
            return Ok(Some(v));
        }
        // On the game's kernel, with the line's set-up held (a list kept
        // by rank whose level may be filled at once: filled, below).
        let placed = match index {
            Some(index) => self.placed.as_ref().map(|line| line.located(index)),
            None => by_key.filter(|_| !self.may_fill),
        };
        if let (true, Some(at)) = (self.on_kernel, placed) {
            let on = OnLine {
                at,
                shape: self.shape,
                n_args: self.n_args,
                coords: self.coords,
                coord: self.coord,
                span: self.span,
            };
            let inst = (self.instance, self.inst);
            if let Some(v) = (env.rt.above.value_on_line)(env, &mut self.held, inst, &on)? {
                return Ok(Some(v));
            }
        }
        if !self.keyed {
            self.set_key();
        }
        let at = match index {
            Some(index) => self.placed.as_ref().map(|line| line.located(index)),
            None => {
                // A list kept by rank: its level filled at once, if its
                // game's moves allow (the lists asked after it are then read).
                if self.may_fill
                    && (env.rt.above.fill_ranked)(env, self.instance, &self.key, self.span)?
                {
                    let mut memo = self.inst.memo.borrow_mut();
                    if let State::Value(v) = memo.get_coords(self.shape, self.coords) {
                        return Ok(Some(v));
                    }
                }
                by_key
            }
        };
        let Some(at) = at else {
            if self.inst.layer.is_some() {
                return Ok(None); // a compound's, the general way
            }
            return (env.rt.above.search_located)(env, self.instance, &self.key, None, self.span)
                .map(Some);
        };
        let inst = (self.instance, self.inst);
        (env.rt.above.search_swept)(env, &mut self.held, inst, &self.key, at, self.span)
    }

    /// The key of the current position.
    #[inline]
    fn set_key(&mut self) {
        (self.key).set_coords(self.shape, self.n_args, self.coords);
    }

    /// Reads the position's memo byte (placing the line first if needed).
    #[inline]
    fn find(&mut self, x: i64) -> Found {
        let mut memo = self.inst.memo.borrow_mut();
        // A list of a window laid out by rank, read at its rank on the line.
        if let Some((state, at)) = (self.column.as_ref()).and_then(|l| memo.ranked_line_state(l, x))
        {
            drop(memo);
            return self.by_key(state, Some(at));
        }
        // The line stays in `placed` (not copied: it is large).
        if !matches!(&self.placed, Some(l) if memo.line_bytes(l).is_some()) {
            match memo.line(self.shape, self.coords, self.coord) {
                Some(l) => self.placed = Some(l),
                None => {
                    self.placed = None;
                    self.column = memo.ranked_line(self.shape, self.coords, self.coord);
                    // Read at its rank on the line, not ranked again.
                    let on_line = (self.column.as_ref()).and_then(|l| memo.ranked_line_state(l, x));
                    let (state, at) = match on_line {
                        Some((state, at)) => (state, Some(at)),
                        None => (memo.get_coords(self.shape, self.coords), None),
                    };
                    drop(memo);
                    return self.by_key(state, at);
                }
            }
        }
        let line = self.placed.as_ref().expect("the line is placed");
        let Some(index) = line.index(x) else {
            return Found::General;
        };
        let dense = memo.line_bytes(line).expect("the line is current");
        match dense[index] {
            0 => Found::ToValue(true, index),
            3 => Found::ToValue(false, index),
            // A loopy game's position of infinite value (or one on the
            // search path, asked the general way).
            ON_PATH_BYTE => {
                drop(memo);
                let mut infinite = self.inst.infinite.borrow_mut();
                (infinite.get_coords(self.shape, self.coords)).map_or(Found::General, Found::Value)
            }
            b => byte_value(b).map_or(Found::General, Found::Value),
        }
    }

    /// `find` for a position the window has no line for, from its state
    /// (and its place, on a line laid out by rank). Inlined: `find` reads
    /// each element of a line by rank through it.
    #[inline(always)]
    fn by_key(&self, state: State, at: Option<Located>) -> Found {
        match state {
            State::Value(v) => Found::Value(v),
            State::Unknown => Found::ByKey(true, at),
            State::Valid => Found::ByKey(false, at),
            // A loopy game's position of infinite value (or one on the
            // search path, asked the general way).
            State::OnPath => {
                let mut infinite = self.inst.infinite.borrow_mut();
                (infinite.get_coords(self.shape, self.coords)).map_or(Found::General, Found::Value)
            }
            State::Invalid => Found::General,
        }
    }

    /// Whether the unknown position satisfies its game's `where`: from
    /// the line's interval, or as integer code when it has that form (on the integers, or
    /// on the key's frame for sequence arguments), else the general way.
    fn where_holds(&mut self, env: &mut Env) -> Fallible<bool> {
        if let Some((lo, hi)) = self.where_line {
            return Ok((lo..=hi).contains(&self.coords[self.coord]));
        }
        let inst = self.inst;
        let g = &inst.game;
        if self.ints {
            if let Some(holds) = g.where_flat.as_ref().and_then(|w| w(self.coords)) {
                return Ok(holds);
            }
        }
        self.set_key();
        self.keyed = true;
        let sorted = env
            .rt
            .limits
            .plans
            .where_code
            .then(|| self.sorted_interval(g));
        if let Some(interval) = sorted.flatten() {
            // The same for the rest of the line.
            self.where_line = Some(interval);
            return Ok((interval.0..=interval.1).contains(&self.coords[self.coord]));
        }
        if let (false, Some(w)) = (self.ints, &g.where_ints) {
            // Loaded at the line's first position; then only its moving
            // coordinate changes.
            if self.frame.is_none() {
                let mut frame = Box::new(KeyFrame::empty());
                if frame.load(inst.frame_statics(), &self.key) {
                    let at = frame_at(&self.key, inst.frame_statics().len(), self.coord);
                    self.frame = at.map(|at| (frame, at));
                }
            }
            if let Some((frame, at)) = &mut self.frame {
                let x = self.coords[self.coord];
                match *at {
                    FrameAt::Slot(slot) => frame.set_int(slot, x),
                    FrameAt::Item(i) => frame.set_item(i, x),
                }
                if let Some(holds) = w(frame) {
                    return Ok(holds);
                }
            }
        }
        satisfies_where(env, self.instance, &self.key, self.span)
    }

    /// The interval of the line's argument where a `where` that keeps a
    /// list sorted holds, when the line moves an item of that list (its
    /// key written).
    fn sorted_interval(&self, g: &CompiledGame) -> Option<(i64, i64)> {
        let w = g.where_line.as_ref()?;
        let slot = w.sorted_list()?;
        let (at, n) = list_at(&self.key, self.inst.frame_statics().len(), slot, self.coord)?;
        w.sorted_interval(&self.coords[at..at + n], self.coord - at)
    }

    /// The value of the position `x` at `index` of the placed line from
    /// its stride moves' options, stored (and counted in the memo), if the
    /// game has stride moves and every option taken has a value in the
    /// window.
    #[inline]
    fn by_strides(&mut self, x: i64, index: usize) -> Option<u64> {
        self.strides?;
        let inst = self.inst;
        let plan = self.current_plan()?;
        let region = plan.region(x);
        let mut memo = inst.memo.borrow_mut();
        let dense = memo.line_bytes(&plan.line)?;
        let marks = marks(dense, index, &region.offsets);
        if region.outside || marks & MISSING != 0 {
            return None;
        }
        let v = (!marks).trailing_zeros() as u64;
        dense[index] = v as u8 + 4;
        memo.stored += 1;
        Some(v)
    }

    /// The plain loop on a line laid out by rank (`RankedLine`): each
    /// element's list read at its rank while it has a value (a filled
    /// level, `fill_ranked`), ticked as the asking loop would; stops at
    /// the first other, which goes the slow way.
    fn run_ranked<S: LineSink>(
        &mut self,
        env: &mut Env,
        line: &RankedLine,
        ks: Range<i64>,
        map: Affine,
        sink: &mut S,
        tick_span: Span,
    ) -> Fallible<Run> {
        // The sink runs the comprehension's aggregate, which does not
        // read the memo.
        let memo = self.inst.memo.borrow();
        let mut k = ks.start;
        while k < ks.end {
            let state = map.at(k).and_then(|x| memo.ranked_line_state(line, x));
            let Some((State::Value(v), _)) = state else {
                break;
            };
            sink.reached(k);
            env.tick(tick_span)?;
            if !sink.value(env, k, v)? {
                return Ok(Run::Stopped);
            }
            k += 1;
        }
        Ok(Run::At(k, false))
    }
}
