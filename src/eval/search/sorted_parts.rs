//! Where the items of a position's sorted list lie in the memo's window
//! (`SortedParts`), computed once per position for `sorted_run.rs`, and
//! the runs of its options placed from them (`Runs`). A window laid out
//! by coordinates (`Boxed`: an item adds its value times its coordinate's
//! stride) and one laid out by rank of sorted lists (`SortedItems`: an
//! item adds a binomial of its coordinate's column) both add one part per
//! item (`Places`), so the same placement serves both.

use std::ops::Range;

use crate::eval::compile::{KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::scan::{Column, Strided};
use crate::eval::memo::{shape_push, Memo, Shape, SortedItems, Tag, MAX_COORDS};

/// Set in the part of an item that lies outside the window: dense
/// windows have at most 2^30 bytes, so no index has it, and a sum of at
/// most 16 such parts does not overflow.
pub(super) const OUTSIDE: usize = 1 << (usize::BITS - 8);

/// A layout whose index of a list is a sum of one part per item: the part
/// item `x` adds at coordinate `c` (`OUTSIDE` past the layout), and the
/// run of one item moving over `lo..hi` at coordinate `c` while the
/// others add `items`.
pub(super) trait Places {
    type Run: Copy + Default;
    fn at(&self, x: i64, c: usize) -> usize;
    fn run(&self, items: usize, c: usize, lo_hi: (i64, i64)) -> Option<Self::Run>;
    /// Only lists of distinct items have a place (parts of lists with
    /// repeats would name other lists).
    fn distinct(&self) -> bool {
        false
    }
}

/// A window laid out by coordinates: its extents and strides.
pub(super) struct Boxed<'m>(pub(super) (&'m [u64; MAX_COORDS], &'m [usize; MAX_COORDS]));

impl Places for Boxed<'_> {
    type Run = Strided;

    #[inline(always)]
    fn at(&self, x: i64, c: usize) -> usize {
        let (ends, strides) = self.0;
        match x as u64 >= ends[c] {
            false => x as usize * strides[c],
            true => OUTSIDE,
        }
    }

    #[inline(always)]
    fn run(&self, items: usize, c: usize, (lo, hi): (i64, i64)) -> Option<Strided> {
        let (ends, strides) = self.0;
        if items >= OUTSIDE || (lo as u64).max((hi - 1) as u64) >= ends[c] {
            return None;
        }
        Some(Strided {
            first: items + lo as usize * strides[c],
            stride: strides[c] as isize,
            n: (hi - lo) as usize,
        })
    }
}

impl Places for SortedItems<'_> {
    type Run = Column;

    #[inline(always)]
    fn distinct(&self) -> bool {
        SortedItems::distinct(self)
    }

    #[inline(always)]
    fn at(&self, x: i64, c: usize) -> usize {
        self.part(x, c).unwrap_or(OUTSIDE)
    }

    #[inline(always)]
    fn run(&self, items: usize, c: usize, lo_hi: (i64, i64)) -> Option<Column> {
        if items >= OUTSIDE {
            return None;
        }
        Some(Column {
            base: items,
            first: self.column(c, lo_hi)?,
            n: (lo_hi.1 - lo_hi.0) as usize,
        })
    }
}

/// Where the items of a position's list lie in the memo's window of the
/// options' shape, computed once for every setting of the outer bindings
/// of a move on one position (`stale` at their start), and again after
/// the general runs looked options up (which may lay the window out anew).
pub(super) struct SortedParts {
    /// Computed for the current position and layout.
    pub(super) ready: bool,
    /// The run and the list have the form, and the window has one
    /// coordinate per item.
    pub(super) usable: bool,
    pub(super) n: usize,
    /// The options' shape: a list of `n` items.
    pub(super) shape: Shape,
    /// The list is ascending: every `rest` is too.
    sorted: bool,
    /// The parts are those of a window laid out by rank (`SortedItems`),
    /// not by coordinates.
    pub(super) ranked: bool,
    pub(super) xs: [i64; MAX_COORDS],
    /// Where the places next to item `p` start and end: `xs[p] + 1`, and
    /// `xs[p]` (`k` equal to it skipped, `KeyRun::skips_repeats`) or
    /// `xs[p] + 1` (looked up in its run).
    after: [i64; MAX_COORDS],
    before: [i64; MAX_COORDS],
    /// For item `i` moving, `k` at place 0: the items before `i` one
    /// coordinate up, those after at their own (`OUTSIDE` added for each
    /// outside the window).
    first: [usize; MAX_COORDS],
    /// From one place to the next, item `q` moves one coordinate down:
    /// the change of the index, for `q` before the moving item (from
    /// coordinate `q + 1` to `q`) and after it (from `q` to `q - 1`).
    down_before: [usize; MAX_COORDS],
    down_after: [usize; MAX_COORDS],
}

impl SortedParts {
    /// Parts to compute on first use.
    pub(super) fn new() -> SortedParts {
        SortedParts {
            ready: false,
            usable: false,
            n: 0,
            shape: 0,
            sorted: false,
            ranked: false,
            xs: [0; MAX_COORDS],
            after: [0; MAX_COORDS],
            before: [0; MAX_COORDS],
            first: [0; MAX_COORDS],
            down_before: [0; MAX_COORDS],
            down_after: [0; MAX_COORDS],
        }
    }

    /// To compute again: another position, or the memo may have been
    /// laid out anew.
    pub(super) fn stale(&mut self) {
        self.ready = false;
    }

    /// Computes the parts of the items of `run`'s list, laid out as in
    /// `memo`'s window (by coordinates or by rank).
    pub(super) fn set(&mut self, memo: &Memo, run: &KeyRun, frame: &KeyFrame) {
        self.ready = true;
        self.usable = false;
        let [RunArg::SortedUpdate { list, .. }] = &run.args[..] else {
            return;
        };
        let Some((seq, xs)) = frame.items(*list) else {
            return;
        };
        let n = xs.len();
        if seq == Seq::Set || n == 0 || n > MAX_COORDS {
            return;
        }
        let Some(shape) = shape_push(0, 0, Tag::List(n as u32)) else {
            return;
        };
        let placed = match memo.window(shape).filter(|w| w.n_coords() == n) {
            Some(w) => self.set_in(&Boxed(w.layout()), xs, run),
            None => match memo.ranked(shape).and_then(|r| r.sorted_items()) {
                Some(items) => self.set_in(&items, xs, run),
                None => false,
            },
        };
        if !placed {
            return;
        }
        self.ranked = memo.window(shape).is_none();
        self.n = n;
        self.shape = shape;
        self.usable = true;
    }

    /// `set` in the layout `places`: false if the run's options may have
    /// no place there.
    fn set_in<P: Places>(&mut self, places: &P, xs: &[i64], run: &KeyRun) -> bool {
        let n = xs.len();
        let strict = places.distinct();
        if strict && !run.skips_repeats() {
            return false;
        }
        let at = |x: i64, c: usize| places.at(x, c);
        // Item `p` before the moving one goes from `p + 1` down to `p`
        // (the last item is never before it); after it, from `p` to
        // `p - 1` (the first is never after it). `first[p]` is the sum of
        // the `up` parts before `p` and the `own` parts after it: the
        // latter as all of them less those up to `p`, added at the end.
        let repeat = !run.skips_repeats() as i64;
        let (mut ups, mut owns, mut down) = (0usize, 0usize, 0usize);
        let mut sorted = true;
        let mut own = at(xs[0], 0);
        for p in 0..n {
            let x = xs[p];
            let up = match p + 1 < n {
                true => at(x, p + 1),
                false => 0,
            };
            owns = owns.wrapping_add(own);
            self.xs[p] = x;
            self.after[p] = x.saturating_add(1);
            self.before[p] = x.saturating_add(repeat);
            self.down_before[p] = own.wrapping_sub(up);
            self.down_after[p] = down;
            self.first[p] = ups.wrapping_sub(owns);
            ups = ups.wrapping_add(up);
            if p + 1 < n {
                let next = xs[p + 1];
                sorted &= x < next || (!strict && x == next);
                let next_own = at(next, p + 1);
                down = at(next, p).wrapping_sub(next_own);
                own = next_own;
            }
        }
        for f in &mut self.first[..n] {
            *f = f.wrapping_add(owns);
        }
        self.sorted = sorted;
        true
    }

    /// Adds the runs of `k` in `a..b` (not empty) for item `i` moving to
    /// `out` from `n_out` on, one per place, in `places` (the layout the
    /// parts were computed in): the runs then. `None` if `i` is out of
    /// range, the other items are not in order, or some option lies
    /// outside the window.
    #[inline(always)]
    pub(super) fn place<P: Places>(
        &self,
        places: &P,
        i: usize,
        (a, b): (i64, i64),
        (out, mut n_out): (&mut [P::Run; MAX_RUNS], usize),
    ) -> Option<usize> {
        let n = self.n.min(MAX_COORDS);
        if i >= n {
            return None;
        }
        // The other items, in order: `rest[j]` is `xs[j + (j >= i)]`.
        let at = |j: usize| j + (j >= i) as usize;
        let in_order = |x: i64, y: i64| x < y || (!places.distinct() && x == y);
        if !self.sorted && !(1..n - 1).all(|j| in_order(self.xs[at(j - 1)], self.xs[at(j)])) {
            return None;
        }
        let mut push = |items: usize, j: usize, ks: (i64, i64)| {
            push_run(places, out, &mut n_out, items, j, ks)
        };
        // Place `j`, `k` between `rest[j - 1]` and `rest[j]`: `rest[q]` at
        // coordinate `q` for `q < j`, `q + 1` after. Place 0 first.
        let mut items = self.first[i];
        let (mut j, mut lo) = (0, a);
        while j + 1 < n {
            let q = at(j);
            let hi = b.min(self.before[q]);
            if lo < hi {
                push(items, j, (lo, hi))?;
            }
            lo = a.max(self.after[q]);
            // The later places start higher still: no option there (for
            // Welter's game, every place past the moving coin's own).
            if lo >= b {
                return Some(n_out);
            }
            // The next place: `rest[j]` one coordinate down.
            items = items.wrapping_add(match q < i {
                true => self.down_before[q],
                false => self.down_after[q],
            });
            j += 1;
        }
        push(items, j, (lo, b))?;
        Some(n_out)
    }
}

/// The runs of every setting `i` in `items` of a move `k in c..xs[i]`
/// whose one argument is `sorted(update(xs, i, k))` (Welter's game) on an
/// ascending list `xs`, put in `out` from its start, read off the items
/// directly: the number of runs. They are those `SortedParts::place`
/// gives: item `i` moving, the places of `k` are those below it, and an
/// item moves one coordinate down from one place to the next. `None`
/// (having placed maybe some) if the list is not ascending or does not
/// fit `places`, an `i` is out of range, or some option lies outside the
/// window: then `SortedParts` place them.
pub(super) fn lowered_runs<P: Places>(
    (xs, distinct): (&[i64], bool),
    c: i64,
    items: Range<usize>,
    places: &P,
    out: &mut [P::Run; MAX_RUNS],
) -> Option<usize> {
    let n = xs.len();
    if n == 0 || n > MAX_COORDS || items.end > n {
        return None;
    }
    let strict = places.distinct();
    if strict && !distinct {
        return None;
    }
    let repeat = !distinct as i64;
    let at = |x: i64, c: usize| places.at(x, c);
    // Item `q` at its own coordinate and one up (the last is never below
    // the moving one), and the sums of those before each item.
    let (mut own, mut up) = ([0usize; MAX_COORDS], [0usize; MAX_COORDS]);
    let (mut owns, mut ups) = ([0usize; MAX_COORDS + 1], [0usize; MAX_COORDS + 1]);
    for q in 0..n {
        if q + 1 < n {
            if xs[q] > xs[q + 1] || (strict && xs[q] == xs[q + 1]) {
                return None;
            }
            up[q] = at(xs[q], q + 1);
        }
        own[q] = at(xs[q], q);
        owns[q + 1] = owns[q].wrapping_add(own[q]);
        ups[q + 1] = ups[q].wrapping_add(up[q]);
    }
    let mut n_out = 0;
    for i in items {
        let b = xs[i];
        if c >= b {
            continue;
        }
        // Place 0: the items before `i` one coordinate up, those after at
        // their own.
        let mut base = ups[i].wrapping_add(owns[n].wrapping_sub(owns[i + 1]));
        let mut lo = c;
        for j in 0..=i {
            // Below item `j`: `k` up to it (or to `b`), then past it.
            let hi = match j < i {
                true => b.min(xs[j].saturating_add(repeat)),
                false => b,
            };
            if lo < hi {
                push_run(places, out, &mut n_out, base, j, (lo, hi))?;
            }
            if j == i {
                break;
            }
            lo = c.max(xs[j].saturating_add(1));
            if lo >= b {
                break;
            }
            // The next place: item `j` one coordinate down.
            base = base.wrapping_add(own[j].wrapping_sub(up[j]));
        }
    }
    Some(n_out)
}

/// Puts the run `lo..hi` (not empty) of a place whose other items make
/// `items`, at coordinate `c` of `places`, at `out[n_out]`; `None` if
/// some option lies outside the window (or `out` is full).
#[inline(always)]
fn push_run<P: Places>(
    places: &P,
    out: &mut [P::Run; MAX_RUNS],
    n_out: &mut usize,
    items: usize,
    c: usize,
    lo_hi: (i64, i64),
) -> Option<()> {
    *out.get_mut(*n_out)? = places.run(items, c, lo_hi)?;
    *n_out += 1;
    Some(())
}

/// The most runs of one position: a place for each item, for each
/// setting.
pub(super) const MAX_RUNS: usize = MAX_COORDS * MAX_COORDS;

/// The runs of a position's settings, scanned at once: the first `n`.
pub(super) struct Runs<R> {
    pub(super) runs: [R; MAX_RUNS],
    pub(super) n: usize,
}

impl<R: Copy + Default> Runs<R> {
    pub(super) fn new() -> Runs<R> {
        Runs {
            runs: [R::default(); MAX_RUNS],
            n: 0,
        }
    }

    /// The runs added.
    pub(super) fn get(&self) -> &[R] {
        &self.runs[..self.n.min(MAX_RUNS)]
    }
}
