//! Where the options of a move on a sorted list lie in the memo's
//! window: `sorted_runs` places every setting's runs from the list's
//! items and marks each run's bytes as it is placed (`Places::mark`), no
//! run kept to be read back. A window laid out by
//! coordinates (`Boxed`: an item adds its value times its coordinate's
//! stride) and one laid out by rank of sorted lists (`SortedItems`: an
//! item adds a binomial of its coordinate's column) both add one part per
//! item (`Places`), so the same placement serves both.

use crate::eval::memo::scan::Strided;
use crate::eval::memo::{SortedItems, MAX_COORDS};

/// Set in the part of an item that lies outside the window: dense
/// windows have at most 2^30 bytes, so no index has it, and a sum of at
/// most 16 such parts does not overflow.
pub(super) const OUTSIDE: usize = 1 << (usize::BITS - 8);

/// A layout whose index of a list is a sum of one part per item: the part
/// item `x` adds at coordinate `c` (`OUTSIDE` past the layout), and the
/// run of one item moving over `lo..hi` at coordinate `c` while the
/// others add `items`, whose bytes `mark` marks.
pub(super) trait Places {
    fn at(&self, x: i64, c: usize) -> usize;
    /// Marks the bytes of the run `lo..hi` (not empty) in `bytes`
    /// (`seen[byte] = stamp`): false, marking nothing, if some option
    /// lies outside the window.
    fn mark(&self, bytes: &[u8], items: usize, c: usize, lo_hi: (i64, i64), seen: Seen<'_>)
        -> bool;
    /// Only lists of distinct items have a place (parts of lists with
    /// repeats would name other lists).
    fn distinct(&self) -> bool {
        false
    }
}

/// The slots of the dense bytes and the stamp a run marks them with
/// (`scan::mark_bytes`).
pub(super) type Seen<'s> = (&'s mut [u32; 256], u32);

/// A window laid out by coordinates: its extents and strides.
pub(super) struct Boxed<'m>(pub(super) (&'m [u64; MAX_COORDS], &'m [usize; MAX_COORDS]));

impl Places for Boxed<'_> {
    #[inline(always)]
    fn at(&self, x: i64, c: usize) -> usize {
        let (ends, strides) = self.0;
        match x as u64 >= ends[c] {
            false => x as usize * strides[c],
            true => OUTSIDE,
        }
    }

    #[inline(always)]
    fn mark(
        &self,
        bytes: &[u8],
        items: usize,
        c: usize,
        (lo, hi): (i64, i64),
        seen: Seen<'_>,
    ) -> bool {
        let (ends, strides) = self.0;
        if items >= OUTSIDE || (lo as u64).max((hi - 1) as u64) >= ends[c] {
            return false;
        }
        let run = Strided {
            first: items + lo as usize * strides[c],
            stride: strides[c] as isize,
            n: (hi - lo) as usize,
        };
        run.mark_window(bytes, seen.1, seen.0)
    }
}

impl Places for SortedItems<'_> {
    #[inline(always)]
    fn distinct(&self) -> bool {
        SortedItems::distinct(self)
    }

    #[inline(always)]
    fn at(&self, x: i64, c: usize) -> usize {
        self.part(x, c).unwrap_or(OUTSIDE)
    }

    /// The run's parts, read down the column in rank order: its bytes
    /// are read forward.
    #[inline(always)]
    fn mark(
        &self,
        bytes: &[u8],
        items: usize,
        c: usize,
        lo_hi: (i64, i64),
        seen: Seen<'_>,
    ) -> bool {
        let n = (lo_hi.1 - lo_hi.0) as usize;
        let parts = match self.column(c, lo_hi) {
            Some(first) if items < OUTSIDE => self.binom().get(first..first + n),
            _ => None,
        };
        // Binomials rise down a column: the last part is the farthest.
        let Some((parts, &far)) = parts.and_then(|p| Some((p, p.last()?))) else {
            return false;
        };
        let Some(bytes) = bytes.get(items..=items + far) else {
            return false;
        };
        mark_parts(bytes, parts, seen);
        true
    }
}

/// Marks the bytes at `parts` (each in `bytes`: the caller sliced them
/// up to the last, the largest): out of line, so that its loop keeps its
/// slots and stamp in registers, which the placement around it does not
/// leave free (inlined, the loop reloaded both, 11 instructions an option
/// against 8).
#[inline(never)]
fn mark_parts(bytes: &[u8], parts: &[usize], (seen, stamp): Seen<'_>) {
    for &p in parts {
        seen[bytes[p] as usize] = stamp;
    }
}

/// Settings of a move on one position to place together, when their
/// ranges come from code: item `i` moving over `k` in `a..b`.
pub(super) struct Settings {
    each: [(usize, (i64, i64)); 2 * MAX_COORDS],
    n: usize,
}

impl Settings {
    /// Adds item `i` moving over `a..b` (nothing if empty); `None` when full.
    pub(super) fn push(&mut self, i: usize, (a, b): (i64, i64)) -> Option<()> {
        if a < b {
            *self.each.get_mut(self.n)? = (i, (a, b));
            self.n += 1;
        }
        Some(())
    }

    /// Item `i` moving over `a..b` but `x` (`k not in xs`, `x` the moving
    /// item's own value): the two runs either side of it.
    pub(super) fn push_without(&mut self, i: usize, (a, b): (i64, i64), x: i64) -> Option<()> {
        match (a..b).contains(&x) {
            true => self.push(i, (a, x)).and_then(|_| self.push(i, (x + 1, b))),
            false => self.push(i, (a, b)),
        }
    }

    pub(super) fn get(&self) -> impl Iterator<Item = (usize, (i64, i64))> + Clone + '_ {
        self.each[..self.n.min(2 * MAX_COORDS)].iter().copied()
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            each: [(0, (0, 0)); 2 * MAX_COORDS],
            n: 0,
        }
    }
}

/// Marks the options of every setting `(i, (a, b))` of a move whose one
/// argument is `sorted(update(xs, i, k))` (Welter's game), item `i`
/// moving over `k` in `a..b`, on an ascending list `xs` (`distinct`: `k`
/// equal to another item gives no option), in `bytes` laid out by
/// `places`. One run per place of `k` among the other items: at a place,
/// the items below `k` keep their coordinate and those above it sit one
/// up, so from one place to the next the item passed moves one
/// coordinate down, and each run's index is the last one's plus that
/// part's change. Each run is marked as it is placed. False (having
/// marked maybe some) if the list is not ascending or does not fit
/// `places`, an `i` is out of range, or some option lies outside the
/// window.
pub(super) fn sorted_runs<P: Places>(
    (xs, distinct): (&[i64], bool),
    settings: impl Iterator<Item = (usize, (i64, i64))>,
    (places, bytes): (&P, &[u8]),
    sums: &mut Sums,
    (seen, stamp): Seen<'_>,
) -> bool {
    let n = xs.len();
    if n == 0 || n > MAX_COORDS {
        return false;
    }
    let strict = places.distinct();
    if strict && !distinct {
        return false;
    }
    let repeat = !distinct as i64;
    // The sums of the items before each at their own coordinate and one
    // up (the last is never below the moving one), in the scratch's
    // arrays: no zeroing per position.
    let Sums { owns, ups } = sums;
    (owns[0], ups[0]) = (0, 0);
    for q in 0..n {
        let mut up = 0;
        if q + 1 < n {
            if xs[q] > xs[q + 1] || (strict && xs[q] == xs[q + 1]) {
                return false;
            }
            up = places.at(xs[q], q + 1);
        }
        owns[q + 1] = owns[q].wrapping_add(places.at(xs[q], q));
        ups[q + 1] = ups[q].wrapping_add(up);
    }
    // Item `q`'s part at its own coordinate, and one up.
    let own = |q: usize| owns[q + 1].wrapping_sub(owns[q]);
    let up = |q: usize| ups[q + 1].wrapping_sub(ups[q]);
    'settings: for (i, (a, b)) in settings {
        if i >= n {
            return false;
        }
        if a >= b {
            continue;
        }
        // The lowest place: the items below `i` one coordinate up, those
        // above it at their own.
        let mut base = ups[i].wrapping_add(owns[n].wrapping_sub(owns[i + 1]));
        let mut lo = a;
        // Below each item `q` under the moving one: `k` up to it, then
        // past it, where `q` has moved one coordinate down.
        for (q, &x) in xs.iter().enumerate().take(i) {
            let hi = b.min(x.saturating_add(repeat));
            if lo < hi && !places.mark(bytes, base, q, (lo, hi), (&mut *seen, stamp)) {
                return false;
            }
            lo = a.max(x.saturating_add(1));
            if lo >= b {
                continue 'settings;
            }
            base = base.wrapping_add(own(q).wrapping_sub(up(q)));
        }
        // The same past the moving item (for Welter's game, `k` below it:
        // the first place here is the last with options).
        for (q, &x) in xs.iter().enumerate().skip(i + 1) {
            let hi = b.min(x.saturating_add(repeat));
            if lo < hi && !places.mark(bytes, base, q - 1, (lo, hi), (&mut *seen, stamp)) {
                return false;
            }
            lo = a.max(x.saturating_add(1));
            if lo >= b {
                continue 'settings;
            }
            base = base.wrapping_add(places.at(x, q - 1).wrapping_sub(own(q)));
        }
        if !places.mark(bytes, base, n - 1, (lo, b), (&mut *seen, stamp)) {
            return false;
        }
    }
    true
}

/// `sorted_runs`' sums of the items' parts, kept between positions.
pub(super) struct Sums {
    owns: [usize; MAX_COORDS + 1],
    ups: [usize; MAX_COORDS + 1],
}

impl Default for Sums {
    fn default() -> Sums {
        Sums {
            owns: [0; MAX_COORDS + 1],
            ups: [0; MAX_COORDS + 1],
        }
    }
}
