//! A dense layout for positions that are sequences of naturals of
//! bounded sum (`Ranking`): each one's index is its rank among all
//! sequences of its length, those of smaller sum first. The sequences of
//! `n` items with sum at most `s` then take exactly the first
//! `C(s + n, n)` indices, so a game whose moves never raise the sum
//! (Staircase Nim, coins moved between piles) fills its table with one
//! byte per position, and raising the largest sum only appends.
//!
//! The rank of `x` is that of the `n`-subset `{c_0 < ... < c_{n-1}}`,
//! `c_j = x_0 + ... + x_j + j`, in colexicographic order (stars and
//! bars): `sum_j C(c_j, j + 1)`. Subsets of a larger largest item, here
//! sequences of a larger sum, come after.

use smallvec::SmallVec;

/// Most bytes a ranked table addresses; sums past it go to the sparse
/// table.
const MAX_LEN: usize = 1 << 34;

/// The ranks of the sequences of `n` naturals with sum at most `max_sum`.
#[derive(Debug, Clone, Default)]
pub(super) struct Ranking {
    n: usize,
    /// The largest sum ranked so far.
    max_sum: usize,
    /// `C(m, j + 1)` at `binom[j * rows + m]`, `m` below `rows`
    /// (`max_sum + n`).
    binom: Vec<usize>,
    rows: usize,
}

impl Ranking {
    /// Ranks for sequences of `n` items (at least one), up to sum 0.
    pub(super) fn new(n: usize) -> Ranking {
        let mut r = Ranking {
            n,
            ..Ranking::default()
        };
        r.fill(0);
        r
    }

    /// How many sequences have a rank: those of sum at most `max_sum`.
    pub(super) fn len(&self) -> usize {
        self.count(self.max_sum).unwrap_or(usize::MAX)
    }

    /// `C(s + n, n)`: the sequences of sum at most `s`, if that count is
    /// at most `MAX_LEN`.
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

    /// Ranks sums up to `s`; false (nothing changed) if they would need
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

    /// The sum of `coords` if they are `n` naturals (`None` otherwise).
    pub(super) fn sum(&self, coords: &[i64]) -> Option<usize> {
        if coords.len() != self.n {
            return None;
        }
        coords.iter().try_fold(0usize, |s, &x| {
            let x = usize::try_from(x).ok()?;
            s.checked_add(x)
        })
    }

    /// The rank of `coords`, if they are naturals whose sum is ranked.
    #[inline]
    pub(super) fn index(&self, coords: &[i64]) -> Option<usize> {
        if coords.len() != self.n {
            return None;
        }
        let (mut c, mut rank) = (0usize, 0usize);
        for (j, &x) in coords.iter().enumerate() {
            if x < 0 {
                return None;
            }
            // `c` is below `rows` here, `x` below 2^63: no overflow.
            c += x as usize;
            let m = c + j;
            if m >= self.rows {
                return None;
            }
            rank += self.binom[j * self.rows + m];
        }
        Some(rank)
    }
}

/// Item `index` of a sequence plus `base + per_k * k` (`Ranking::shifted`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemShift {
    pub index: usize,
    pub base: i64,
    pub per_k: i64,
}

impl Ranking {
    /// Where the sequences `items` with `shifts` applied (indices
    /// ascending, each at most once), `k` in `lo..hi` (not empty), lie, if
    /// they all are naturals whose sum is ranked: from the items' prefix
    /// sums, each moved by the shifts at or below it, no sequence written.
    pub(super) fn shifted(
        &self,
        items: &[i64],
        shifts: &[ItemShift],
        lo: i64,
        hi: i64,
    ) -> Option<RankedRun<'_>> {
        if items.len() != self.n || lo >= hi {
            return None;
        }
        let max = self.max_sum as i64;
        let mut out = RankedRun {
            binom: &self.binom,
            fixed: 0,
            moving: SmallVec::new(),
        };
        // Items and prefix sums are affine in `k`: naturals at both ends
        // and at most the largest sum there, they are so throughout, and
        // every row read below lies in its column. Each item is checked
        // before it is added: no sum overflows.
        let (mut c_lo, mut c_hi, mut q) = (0i64, 0i64, 0i64);
        let mut next = 0;
        for (j, &x) in items.iter().enumerate() {
            let (mut x_lo, mut x_hi) = (x, x);
            if let Some(s) = shifts.get(next).filter(|s| s.index == j) {
                next += 1;
                let at_0 = x.checked_add(s.base)?;
                x_lo = at_0.checked_add(s.per_k.checked_mul(lo)?)?;
                x_hi = at_0.checked_add(s.per_k.checked_mul(hi - 1)?)?;
                q = q.checked_add(s.per_k)?;
            }
            if (x_lo | x_hi) < 0 || x_lo > max || x_hi > max {
                return None;
            }
            (c_lo, c_hi) = (c_lo + x_lo, c_hi + x_hi);
            if c_lo > max || c_hi > max {
                return None;
            }
            // `C(c_lo + j, j + 1)`'s place in column `j`.
            let row = j * self.rows + c_lo as usize + j;
            match q {
                0 => out.fixed += self.binom[row],
                _ => out.moving.push((row, isize::try_from(q).ok()?)),
            }
        }
        // A shift left over lies past the items or out of order.
        (next == shifts.len()).then_some(out)
    }
}

/// The ranks of a run of sequences (`Ranking::shifted`): a part that stays,
/// and the prefix sums that move with the run, each with the place of its
/// binomial at the run's first sequence (in `binom`, its column's rows
/// consecutive) and its step.
pub struct RankedRun<'m> {
    binom: &'m [usize],
    fixed: usize,
    moving: SmallVec<[(usize, isize); 2]>,
}

impl RankedRun<'_> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sequence of `n` naturals with sum at most `s`, in any order.
    fn all(n: usize, s: usize) -> Vec<Vec<i64>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for x in 0..=s {
            for mut rest in all(n - 1, s - x) {
                rest.insert(0, x as i64);
                out.push(rest);
            }
        }
        out
    }

    #[test]
    fn ranks_are_a_bijection_onto_the_first_indices_smaller_sums_first() {
        for n in 1..=5 {
            let s = 7;
            let mut r = Ranking::new(n);
            assert!(r.grow(s));
            let seqs = all(n, s);
            assert_eq!(r.len(), seqs.len(), "C(s + n, n) sequences");
            let mut seen = vec![false; seqs.len()];
            for x in &seqs {
                let i = r.index(x).expect("ranked");
                assert!(!seen[i], "rank {i} given twice");
                seen[i] = true;
                // Sum-major: all sequences of smaller sum rank below.
                let sum: i64 = x.iter().sum();
                assert!(i >= r.count(sum as usize).unwrap() - r.count_layer(sum as usize));
                assert!(i < r.count(sum as usize).unwrap());
            }
        }
    }

    #[test]
    fn growing_keeps_every_rank_and_refuses_nothing_within_reach() {
        let mut r = Ranking::new(4);
        let small: Vec<Option<usize>> = all(4, 5).iter().map(|x| r.index(x)).collect();
        assert!(
            small.iter().skip(1).all(Option::is_none),
            "only sum 0 at first"
        );
        assert!(r.grow(5));
        let before: Vec<usize> = all(4, 5).iter().map(|x| r.index(x).unwrap()).collect();
        assert!(r.grow(40));
        let after: Vec<usize> = all(4, 5).iter().map(|x| r.index(x).unwrap()).collect();
        assert_eq!(before, after);
        assert_eq!(r.index(&[1, -1, 0, 0]), None);
        assert_eq!(r.index(&[41, 0, 0, 0]), None);
        assert_eq!(r.index(&[1, 0, 0]), None);
    }

    #[test]
    fn a_run_gives_the_rank_of_each_of_its_sequences() {
        let mut r = Ranking::new(5);
        assert!(r.grow(12));
        // Staircase Nim: `k` coins from item 3 to item 2; coins taken
        // from two items at once; two coins at a time to the item before.
        let cases: [([i64; 5], [i64; 5]); 5] = [
            ([1, 2, 3, 4, 2], [0, 0, 1, -1, 0]),
            ([0, 3, 0, 5, 1], [0, -1, 0, -1, 0]),
            ([2, 0, 0, 0, 0], [1, 0, 0, 0, 0]),
            ([0, 0, 6, 1, 0], [0, 0, -1, 1, 0]),
            ([0, 1, 0, 9, 0], [0, 0, 2, -2, 0]),
        ];
        for (bases, coefs) in cases {
            let hi = (0..5)
                .filter(|&c| coefs[c] < 0)
                .map(|c| bases[c] / -coefs[c] + 1)
                .min()
                .unwrap_or(11);
            let run = run(&r, &bases, &coefs, 1, hi).expect("in the window");
            let n = (hi - 1) as usize;
            let indices: Vec<usize> = (0..n).map(|t| run.index(t)).collect();
            for k in 1..hi {
                let x: Vec<i64> = (0..5).map(|c| bases[c] + coefs[c] * k).collect();
                assert_eq!(indices[(k - 1) as usize], r.index(&x).unwrap(), "{x:?}");
            }
            // One prefix sum moving: its column read in order gives the
            // same indices (in the order of the rows).
            let moved = run.one_column(n);
            assert_eq!(
                moved.is_some(),
                coefs == [0, 0, 1, -1, 0] || coefs == [0, 0, -1, 1, 0] || coefs == [0, 0, 2, -2, 0]
            );
            if let Some((fixed, rows, step)) = moved {
                let mut read: Vec<usize> = rows.iter().step_by(step).map(|&c| fixed + c).collect();
                let mut want = indices.clone();
                read.sort_unstable();
                want.sort_unstable();
                assert_eq!(read, want);
            } else {
                // Coins taken from two items, or added to item 0 (every
                // prefix sum moves): several columns.
                assert!(run.moving.len() > 1, "{coefs:?}");
            }
        }
        // An item below 0, or a sum past the window, at either end: none.
        assert!(run(&r, &[1, 2, 3, 4, 2], &[0, 0, 1, -1, 0], 1, 6).is_none());
        assert!(run(&r, &[2, 0, 0, 0, 0], &[1, 0, 0, 0, 0], 0, 12).is_none());
    }

    /// `Ranking::shifted` of `items` with item `c` plus `coefs[c] * k`.
    fn run<'r>(
        r: &'r Ranking,
        items: &[i64],
        coefs: &[i64],
        lo: i64,
        hi: i64,
    ) -> Option<RankedRun<'r>> {
        let shifts: Vec<ItemShift> = (coefs.iter().enumerate())
            .filter(|(_, &c)| c != 0)
            .map(|(index, &per_k)| ItemShift {
                index,
                base: 0,
                per_k,
            })
            .collect();
        r.shifted(items, &shifts, lo, hi)
    }

    #[test]
    fn shifts_with_constant_parts_rank_every_option_and_refuse_what_is_not_a_list() {
        let mut r = Ranking::new(4);
        assert!(r.grow(15));
        // Every list of 4 with sum at most 6, every pair of items, changes
        // `b1 + p1 * k` and `b2 + p2 * k` over every window of `k` whose
        // lists all are ranked: the run's indices are those of the lists.
        let shift = |index, base, per_k| ItemShift { index, base, per_k };
        for xs in all(4, 6) {
            for (i, j) in [(0, 1), (1, 3), (2, 3), (0, 2)] {
                for (b1, p1, b2, p2) in [(-1, -1, 1, 1), (0, -2, 3, 1), (2, 0, -1, 0), (0, 1, 0, 0)]
                {
                    let shifts = [shift(i, b1, p1), shift(j, b2, p2)];
                    let at = |k: i64| {
                        let mut x = xs.clone();
                        x[i] += b1 + p1 * k;
                        x[j] += b2 + p2 * k;
                        x
                    };
                    for (lo, hi) in [(0, 1), (0, 3), (1, 4), (2, 6)] {
                        let want: Option<Vec<usize>> = (lo..hi).map(|k| r.index(&at(k))).collect();
                        let got = r.shifted(&xs, &shifts, lo, hi);
                        let got =
                            got.map(|run| (0..(hi - lo) as usize).map(|t| run.index(t)).collect());
                        assert_eq!(got, want, "{xs:?} {shifts:?} {lo}..{hi}");
                    }
                }
            }
        }
        // Shifts past the items, repeated or out of order: refused.
        let xs = [1, 1, 1, 1];
        assert!(r.shifted(&xs, &[shift(4, 0, 1)], 0, 2).is_none());
        assert!(r
            .shifted(&xs, &[shift(1, 0, 1), shift(1, 0, -1)], 0, 2)
            .is_none());
        assert!(r
            .shifted(&xs, &[shift(2, 0, 1), shift(1, 0, -1)], 0, 2)
            .is_none());
        assert!(r
            .shifted(&xs, &[shift(1, 0, 1), shift(2, 0, -1)], 0, 2)
            .is_some());
    }

    #[test]
    fn sums_past_the_addressable_range_are_refused() {
        let mut r = Ranking::new(8);
        assert!(!r.grow(1 << 20));
        assert_eq!(r.len(), 1);
    }

    impl Ranking {
        /// The sequences of sum exactly `s`: `C(s + n - 1, n - 1)`.
        fn count_layer(&self, s: usize) -> usize {
            let below = if s == 0 {
                0
            } else {
                self.count(s - 1).unwrap()
            };
            self.count(s).unwrap() - below
        }
    }
}
