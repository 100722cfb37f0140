//! A dense layout for positions that are sequences of naturals
//! (`Ranking`): each one's index is its rank among the sequences of its
//! length and kind, those of a smaller level first, so that the
//! sequences of `n` items up to level `s` take exactly the first
//! `C(s + n, n)` indices and raising the level only appends. Three kinds
//! (`Order`), each a bijection onto the `n`-subsets `{c_0 < ... <
//! c_{n-1}}` of the naturals, ranked in colexicographic order (the
//! combinatorial number system): `sum_j C(c_j, j + 1)`.
//! - `Sums`: any naturals, `c_j = x_0 + ... + x_j + j` (stars and bars);
//!   the level is the sum. A game whose moves never raise the sum
//!   (Staircase Nim, coins moved between piles) fills it densely.
//! - `Ascending`: `x_0 <= ... <= x_{n-1}`, `c_j = x_j + j` (multisets);
//!   the level is the largest item.
//! - `Increasing`: `x_0 < ... < x_{n-1}`, `c_j = x_j` (sets of `n` items,
//!   Welter's coins); the level is the largest item less `n - 1`.
//!
//! A sequence not of the kind has no rank (the memo keeps it elsewhere).

use super::sparse::MAX_COORDS;
use smallvec::SmallVec;

/// Most bytes a ranked table addresses; levels past it go to the sparse
/// table.
const MAX_LEN: usize = 1 << 34;

/// Which sequences a `Ranking` ranks, and how (see the module's text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    #[default]
    Sums,
    Ascending,
    Increasing,
}

/// The ranks of the sequences of `n` naturals of kind `order` up to
/// level `max_sum`.
#[derive(Debug, Clone, Default)]
pub(super) struct Ranking {
    n: usize,
    order: Order,
    /// The largest level ranked so far.
    max_sum: usize,
    /// `C(m, j + 1)` at `binom[j * rows + m]`, `m` below `rows`
    /// (`max_sum + n`).
    binom: Vec<usize>,
    rows: usize,
    /// Sorted lists asked with their last item varying fastest (a table
    /// swept along it) are ranked flipped: the items `bound - 1 - x` in
    /// reverse order, sorted too, so that lists differing in their last
    /// item lie next to one another. The bound is fixed once, by the first
    /// list the table makes room for (`0` until then); lists with an item
    /// at or past it have no rank.
    flip: Option<usize>,
    /// The levels a fill has claimed (`RankedFill::claim`).
    claimed: Vec<bool>,
}

impl Ranking {
    /// Ranks for sequences of `n` items (at least one) of kind `order`,
    /// up to level 0.
    pub(super) fn new(n: usize, order: Order) -> Ranking {
        let mut r = Ranking {
            n,
            order,
            ..Ranking::default()
        };
        r.fill(0);
        r
    }

    /// `new` for sorted lists ranked flipped (see `flip`), no bound yet.
    pub(super) fn flipped(n: usize, order: Order) -> Ranking {
        Ranking {
            flip: (order != Order::Sums).then_some(0),
            ..Ranking::new(n, order)
        }
    }

    /// Fixes the bound of a flipped ranking that has none yet to one past
    /// the largest item of `coords`: false if it has one or the lists
    /// below it would need more than `MAX_LEN` indices.
    pub(super) fn set_bound(&mut self, coords: &[i64]) -> bool {
        let Some(0) = self.flip else {
            return false;
        };
        let Some(bound) = coords.iter().max().and_then(|&x| usize::try_from(x).ok()) else {
            return false;
        };
        let bound = bound + 1;
        // The largest level below the bound: all items `0`, flipped.
        let top = match self.order {
            Order::Increasing => bound.checked_sub(self.n),
            _ => Some(bound - 1),
        };
        let Some(top) = top.filter(|&s| self.count(s).is_some()) else {
            return false;
        };
        self.fill(top);
        self.flip = Some(bound);
        true
    }

    /// Whether lists are ranked flipped.
    pub(super) fn is_flipped(&self) -> bool {
        self.flip.is_some()
    }

    /// How many sequences have a rank: those of level at most `max_sum`.
    pub(super) fn len(&self) -> usize {
        self.count(self.max_sum).unwrap_or(usize::MAX)
    }

    /// `C(s + n, n)`: the sequences of level at most `s`, if that count
    /// is at most `MAX_LEN`.
    fn count(&self, s: usize) -> Option<usize> {
        let mut c: u128 = 1;
        for i in 1..=self.n as u128 {
            c = c * (s as u128 + i) / i;
            if c > MAX_LEN as u128 {
                return None;
            }
        }
        Some(c as usize)
    }

    /// Ranks levels up to `s`; false (nothing changed) if they would need
    /// more than `MAX_LEN` indices.
    pub(super) fn grow(&mut self, s: usize) -> bool {
        if s <= self.max_sum {
            return true;
        }
        if self.count(s).is_none() {
            return false;
        }
        self.fill(s);
        true
    }

    fn fill(&mut self, s: usize) {
        let rows = s + self.n;
        let mut binom = vec![0usize; self.n * rows];
        for m in 0..rows {
            // C(m, 1) = m, then Pascal's rule column by column.
            binom[m] = m;
            for j in 1..self.n {
                if m > 0 {
                    binom[j * rows + m] = binom[(j - 1) * rows + m - 1] + binom[j * rows + m - 1];
                }
            }
        }
        self.binom = binom;
        self.rows = rows;
        self.max_sum = s;
    }

    /// The level of `coords` if they are `n` naturals of the kind
    /// (`None` otherwise, and for a flipped ranking, which never grows).
    pub(super) fn level(&self, coords: &[i64]) -> Option<usize> {
        if self.flip.is_some() {
            return None;
        }
        let c = self.subset(coords)?;
        Some(c - (self.n - 1))
    }

    /// The last item `c_{n-1}` of the subset of `coords`, if they are `n`
    /// naturals of the kind (at most `usize::MAX / 2`).
    fn subset(&self, coords: &[i64]) -> Option<usize> {
        if coords.len() != self.n {
            return None;
        }
        let mut c: Option<usize> = None;
        for (j, &x) in coords.iter().enumerate() {
            let x = usize::try_from(x).ok().filter(|&x| x <= usize::MAX / 4)?;
            let next = self.item(c, x, j)?;
            c = Some(next);
        }
        c
    }

    /// `c_j` from `c_{j-1}` (`None` before the first) and `x_j`, if the
    /// sequence is still of the kind.
    #[inline]
    fn item(&self, prev: Option<usize>, x: usize, j: usize) -> Option<usize> {
        let c = match self.order {
            Order::Sums => match prev {
                None => x,
                Some(p) => p.checked_add(x)?.checked_add(1)?,
            },
            Order::Ascending => x + j,
            Order::Increasing => x,
        };
        match prev {
            Some(p) if c <= p => None,
            _ => Some(c),
        }
    }

    /// The rank of `coords`, if they are naturals of the kind whose level
    /// is ranked.
    #[inline]
    pub(super) fn index(&self, coords: &[i64]) -> Option<usize> {
        if coords.len() != self.n {
            return None;
        }
        match self.flip {
            // Items at or past the bound turn negative: no rank.
            Some(bound) => {
                let flip = |&x: &i64| (bound as i64 - 1).wrapping_sub(x);
                self.index_of(coords.iter().rev().map(flip))
            }
            None if self.order == Order::Sums => Some(self.by_sum(coords)?.rank),
            None => self.index_of(coords.iter().copied()),
        }
    }

    /// Whether `coords` have a rank (`index`): by sum, told by their sum
    /// alone (its last prefix sum within the rows ranked), no rank added.
    pub(super) fn holds(&self, coords: &[i64]) -> bool {
        if self.order != Order::Sums || self.flip.is_some() || coords.len() != self.n {
            return self.index(coords).is_some();
        }
        let mut sum = 0u64;
        for &x in coords {
            if x < 0 {
                return false;
            }
            sum = sum.saturating_add(x as u64);
        }
        sum.saturating_add(self.n as u64 - 1) < self.rows as u64
    }

    /// The place of `coords` (`n` of them) ranked by sum, if its items are
    /// naturals and its level is ranked: `c_j` is the prefix sum plus `j`,
    /// so each item only adds (no order to check, as `index_of` does).
    #[inline(always)]
    fn by_sum(&self, coords: &[i64]) -> Option<Placed> {
        let mut at = Placed {
            rank: 0,
            c: [0; MAX_COORDS],
        };
        let mut sum = 0usize;
        for (j, &x) in coords.iter().enumerate() {
            // `sum` is below `rows` here and `x` below 2^63: no overflow.
            sum += usize::try_from(x).ok()?;
            let m = sum + j;
            if m >= self.rows {
                return None;
            }
            at.rank += self.binom[j * self.rows + m];
            at.c[j] = m;
        }
        Some(at)
    }

    /// `index` of the items as ranked (flipped already).
    #[inline(always)]
    fn index_of(&self, items: impl Iterator<Item = i64>) -> Option<usize> {
        let (mut c, mut rank) = (None, 0usize);
        for (j, x) in items.enumerate() {
            if x < 0 {
                return None;
            }
            // `c` is below `rows` here, `x` below 2^63: no overflow.
            let m = self.item(c, x as usize, j)?;
            if m >= self.rows {
                return None;
            }
            rank += self.binom[j * self.rows + m];
            c = Some(m);
        }
        Some(rank)
    }

    /// How the items of a sorted list add to its rank, if the ranking is
    /// of sorted lists.
    pub(super) fn sorted_items(&self) -> Option<SortedItems<'_>> {
        let shift = match self.order {
            Order::Sums => return None,
            Order::Ascending => 1,
            Order::Increasing => 0,
        };
        let (rows, width) = (self.rows as i64, (self.rows + shift) as i64);
        let (origin, per_c, per_x, limit, limit_per_c) = match self.flip {
            Some(bound) => {
                let origin = (self.n as i64 - 1) * width + bound as i64 - 1;
                (origin, -width, -1, bound as i64, 0)
            }
            None => (0, width, 1, rows, shift as i64),
        };
        Some(SortedItems {
            binom: &self.binom,
            shift,
            origin,
            per_c,
            per_x,
            limit,
            limit_per_c,
        })
    }
}

/// The lists of a ranking that differ only in one item `x`, when their
/// ranks differ only in one binomial column (`Ranking::column_line`):
/// `fixed + binom[origin + per_x * x]` for `x` in `lo..=hi`; its memo
/// table and the layout it is good for (`Memo::ranked_line`).
#[derive(Clone, Copy, Debug)]
pub struct RankedLine {
    pub(super) fixed: usize,
    origin: isize,
    per_x: isize,
    lo: i64,
    hi: i64,
    pub(super) table: usize,
    pub(super) layout: u32,
}

impl RankedLine {
    /// The rank of the list with the item at `x`, if ranked.
    #[inline]
    pub fn rank(&self, binom: &[usize], x: i64) -> Option<usize> {
        if x < self.lo || x > self.hi {
            return None;
        }
        Some(self.fixed + binom.get((self.origin + self.per_x * x as isize) as usize)?)
    }

    /// The binomials of its first `most` lists (at least one), in the
    /// order of `x` or the reverse: each list's rank less `fixed`.
    pub(super) fn rows<'b>(&self, binom: &'b [usize], most: i64) -> Option<&'b [usize]> {
        let hi = self.hi.min(self.lo.checked_add(most - 1)?);
        let row = |x: i64| (self.origin + self.per_x * x as isize) as usize;
        let (a, b) = (row(self.lo), row(hi));
        binom.get(a.min(b)..=a.max(b))
    }
}

impl Ranking {
    /// The line of the lists `coords` with item `coord` changed, if their
    /// ranks move along one column: the last item of a list ranked by sum
    /// (only `c_{n-1}` moves), any item of a sorted list (only its own
    /// part). `None` if the other items are not of the kind or ranked.
    pub(super) fn column_line(&self, coords: &[i64], coord: usize) -> Option<RankedLine> {
        let n = self.n;
        if coords.len() != n || coord >= n {
            return None;
        }
        let Some(items) = self.sorted_items() else {
            // By sum: the rank of the items before, then `C(next + x, n)`
            // with `next` their sum plus `n - 1`.
            if coord != n - 1 || self.flip.is_some() {
                return None;
            }
            let (mut fixed, mut sum) = (0usize, 0usize);
            for (j, &x) in coords[..n - 1].iter().enumerate() {
                // `sum` is below `rows` here and `x` below 2^63: no overflow.
                sum += usize::try_from(x).ok()?;
                let m = sum + j;
                if m >= self.rows {
                    return None;
                }
                fixed += self.binom[j * self.rows + m];
            }
            let next = sum + (n - 1);
            if next >= self.rows {
                return None;
            }
            let origin = (n - 1) * self.rows + next;
            let hi = (self.rows - next - 1) as i64;
            return Some(Ranking::line(fixed, origin as isize, 1, (0, hi)));
        };
        let distinct = items.distinct() as i64;
        let mut fixed = 0usize;
        for (c, &x) in coords.iter().enumerate() {
            if c != coord {
                fixed += items.part(x, c)?;
            }
        }
        // The other items sorted (those next to `coord`: by `lo..=hi`).
        let sorted =
            |c: usize| c == coord || c + 1 == coord || coords[c] + distinct <= coords[c + 1];
        if !(0..n - 1).all(sorted) {
            return None;
        }
        let lo = coord.checked_sub(1).map_or(0, |c| coords[c] + distinct);
        let hi = coords.get(coord + 1).map_or(i64::MAX, |&x| x - distinct);
        // Items `lo..=hi` within the column's rows (the list's own bound).
        let hi = hi.min(items.limit - items.limit_per_c * coord as i64 - 1);
        let origin = (items.origin + items.per_c * coord as i64) as isize;
        (lo <= hi).then(|| Ranking::line(fixed, origin, items.per_x as isize, (lo, hi)))
    }

    /// The line, its table and layout set by the memo.
    fn line(fixed: usize, origin: isize, per_x: isize, (lo, hi): (i64, i64)) -> RankedLine {
        let (table, layout) = (0, 0);
        RankedLine {
            fixed,
            origin,
            per_x,
            lo,
            hi,
            table,
            layout,
        }
    }
}

/// The rank of a sorted list (`Order::Ascending` or `Increasing`) is a
/// sum of one part per item: `C(x + shift * c, c + 1)` for item `x` at
/// coordinate `c`, read from column `c` of the binomials.
#[derive(Clone, Copy)]
pub struct SortedItems<'m> {
    binom: &'m [usize],
    shift: usize,
    /// Item `x` at coordinate `c` reads row `origin + per_c * c + per_x * x`
    /// of the binomials, if `0 <= x < limit - limit_per_c * c`. A flipped
    /// ranking (item `x` at coordinate `c` ranked as `bound - 1 - x` at
    /// `n - 1 - c`) runs down both and takes every item below its bound.
    origin: i64,
    per_c: i64,
    per_x: i64,
    limit: i64,
    limit_per_c: i64,
}

impl SortedItems<'_> {
    /// The row of item `x` at coordinate `c` in the binomials, if ranked.
    #[inline(always)]
    fn row_of(&self, x: i64, c: usize) -> Option<usize> {
        let c = c as i64;
        (x >= 0 && x < self.limit - self.limit_per_c * c)
            .then(|| (self.origin + self.per_c * c + self.per_x * x) as usize)
    }

    /// The part of the rank item `x` at coordinate `c` adds.
    #[inline(always)]
    pub fn part(&self, x: i64, c: usize) -> Option<usize> {
        Some(self.binom[self.row_of(x, c)?])
    }

    /// Where item `x` in `lo..hi` (not empty) at coordinate `c` reads its
    /// parts: the first row, the others following it (in the order of
    /// `x`, or the reverse if flipped: the same parts).
    #[inline(always)]
    pub fn column(&self, c: usize, (lo, hi): (i64, i64)) -> Option<usize> {
        let (a, b) = (self.row_of(lo, c)?, self.row_of(hi - 1, c)?);
        Some(a.min(b))
    }

    /// Only lists of distinct items are ranked (`Order::Increasing`).
    #[inline(always)]
    pub fn distinct(&self) -> bool {
        self.shift == 0
    }

    /// The binomials the rows index.
    #[inline(always)]
    pub fn binom(&self) -> &[usize] {
        self.binom
    }
}

/// A list's place in a ranking by sum: its rank and its `c_j` (prefix
/// sum plus `j`), read once for all the runs of its options.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub rank: usize,
    pub c: [usize; MAX_COORDS],
}

/// The binomials of a ranking by sum, for code that places options
/// itself: `C(m, j + 1)` at `table[j * rows + m]`, sums up to `max_sum`.
#[derive(Clone, Copy)]
pub struct Binomials<'m> {
    pub table: &'m [usize],
    pub rows: usize,
    pub max_sum: usize,
}

/// The lists of one level of a ranking by sum, walked in rank order
/// (`Ranking::level_walk`): each with its place and items.
pub struct LevelWalk {
    pub at: Placed,
    pub items: [i64; MAX_COORDS],
    n: usize,
    /// Lists left after this one.
    pub left: usize,
    descending: bool,
}

impl LevelWalk {
    /// Steps to the next list (colexicographic order of the `c_j`, the
    /// last fixed at the level): false after the last.
    #[inline]
    pub fn advance(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        let c = &mut self.at.c;
        // Most steps move only `c_0`, between the first two items.
        let first = match self.descending {
            true => c[0] > 0,
            false => c[0] + 1 < c[1],
        };
        if first {
            let d = if self.descending { -1 } else { 1 };
            c[0] = c[0].wrapping_add_signed(d as isize);
            self.at.rank = self.at.rank.wrapping_add_signed(d as isize);
            self.items[0] += d;
            self.items[1] -= d;
            return true;
        }
        let j = if self.descending {
            // The lowest `c_j` that can go down does; those below it
            // take their largest places under it.
            let j = (0..self.n - 1).find(|&j| c[j] > j).expect("a list left");
            c[j] -= 1;
            for i in (0..j).rev() {
                c[i] = c[i + 1] - 1;
            }
            self.at.rank -= 1;
            j
        } else {
            let j = (0..self.n - 1)
                .find(|&j| c[j] + 1 < c[j + 1])
                .expect("a list left");
            c[j] += 1;
            (0..j).for_each(|i| c[i] = i);
            self.at.rank += 1;
            j
        };
        // Only the items up to `j + 1` change.
        let mut prev = 0;
        for (x, &c) in self.items.iter_mut().zip(&c[..j + 2]) {
            *x = (c - prev) as i64;
            prev = c + 1;
        }
        true
    }
}

impl Ranking {
    /// The rank and prefix sums of `items`, if ranked by sum.
    pub(super) fn place(&self, items: &[i64]) -> Option<Placed> {
        if self.order != Order::Sums || items.len() != self.n || self.flip.is_some() {
            return None;
        }
        self.by_sum(items)
    }

    /// Its binomials.
    pub(super) fn binomials(&self) -> Binomials<'_> {
        Binomials {
            table: &self.binom,
            rows: self.rows,
            max_sum: self.max_sum,
        }
    }

    /// Claims level `s` for a fill: false if claimed before.
    pub(super) fn claim(&mut self, s: usize) -> bool {
        if self.claimed.len() <= s {
            self.claimed.resize(s + 1, false);
        }
        !std::mem::replace(&mut self.claimed[s], true)
    }

    /// How many lists level `s` holds, if ranked.
    pub(super) fn level_len(&self, s: usize) -> Option<usize> {
        let below = if s == 0 { 0 } else { self.count(s - 1)? };
        (s <= self.max_sum).then_some(self.count(s)? - below)
    }

    /// The lists of level `s` (ranked by sum, `s` ranked), from the
    /// highest rank down (`descending`) or up.
    pub(super) fn level_walk(&self, s: usize, descending: bool) -> Option<LevelWalk> {
        if self.order != Order::Sums || s > self.max_sum || self.flip.is_some() {
            return None;
        }
        let n = self.n;
        let mut items = [0i64; MAX_COORDS];
        items[if descending { 0 } else { n - 1 }] = s as i64;
        Some(LevelWalk {
            at: self.place(&items[..n])?,
            items,
            n,
            left: self.level_len(s)? - 1,
            descending,
        })
    }
}

/// The ranks of a run of sequences (`search/rank_shift.rs`): a part that stays,
/// and the prefix sums that move with the run, each with the place of its
/// binomial at the run's first sequence (in `binom`, its column's rows
/// consecutive) and its step.
pub struct RankedRun<'m> {
    binom: &'m [usize],
    fixed: usize,
    moving: SmallVec<[(usize, isize); 4]>,
}

impl<'m> RankedRun<'m> {
    /// The run with `fixed` and the rows and steps of `moving` in `binom`.
    pub fn new(binom: &'m [usize], fixed: usize, moving: SmallVec<[(usize, isize); 4]>) -> Self {
        RankedRun {
            binom,
            fixed,
            moving,
        }
    }

    /// The index of the run's `t`-th sequence.
    #[inline]
    pub fn index(&self, t: usize) -> usize {
        let mut i = self.fixed;
        for &(row, q) in &self.moving {
            i += self.binom[row.wrapping_add_signed(q * t as isize)];
        }
        i
    }

    /// When one prefix sum moves (an item moved to another, as in
    /// Staircase Nim): the fixed part, the binomials of the run's first
    /// `n` sequences (not empty), lowest row first, and the step between
    /// them, to read in order.
    #[inline]
    pub fn one_column(&self, n: usize) -> Option<(usize, &[usize], usize)> {
        let [(row, q)] = self.moving[..] else {
            return None;
        };
        let step = q.unsigned_abs();
        let span = step * n.checked_sub(1)?;
        let rows = match q > 0 {
            true => &self.binom[row..=row + span],
            false => &self.binom[row - span..=row],
        };
        Some((self.fixed, rows, step))
    }
}
