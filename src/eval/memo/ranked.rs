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

    /// `C(m, j + 1)` for `m` below the ranked rows: the part of a rank
    /// that the prefix sum ending at item `j` (plus `j`) adds.
    #[inline]
    pub(super) fn column(&self, j: usize) -> &[usize] {
        &self.binom[j * self.rows..(j + 1) * self.rows]
    }
}

impl Ranking {
    /// Where the sequences `bases + coefs * k`, `k` in `lo..hi` (not
    /// empty), lie, if they all are naturals whose sum is ranked.
    pub(super) fn run(
        &self,
        bases: &[i64],
        coefs: &[i64],
        lo: i64,
        hi: i64,
    ) -> Option<RankedRun<'_>> {
        if bases.len() != self.n || coefs.len() != self.n || lo >= hi {
            return None;
        }
        let at = |base: i64, coef: i64, k: i64| base.checked_add(coef.checked_mul(k)?);
        // Items and their sum are affine in `k`: in range at both ends, in
        // range throughout, and so is every prefix sum.
        let (mut sum_lo, mut sum_hi) = (0i64, 0i64);
        for (&base, &coef) in bases.iter().zip(coefs) {
            let (x, y) = (at(base, coef, lo)?, at(base, coef, hi - 1)?);
            if x < 0 || y < 0 {
                return None;
            }
            sum_lo = sum_lo.checked_add(x)?;
            sum_hi = sum_hi.checked_add(y)?;
        }
        if sum_lo.max(sum_hi) as u64 > self.max_sum as u64 {
            return None;
        }
        let mut out = RankedRun {
            fixed: 0,
            moving: SmallVec::new(),
        };
        let (mut c, mut q) = (0i64, 0i64);
        for j in 0..self.n {
            c += at(bases[j], coefs[j], lo)?;
            q = q.checked_add(coefs[j])?;
            let column = self.column(j);
            let m = c as usize + j;
            match q {
                0 => out.fixed += column[m],
                _ => out.moving.push((column, m, q as isize)),
            }
        }
        Some(out)
    }
}

/// The ranks of a run of sequences (`Ranking::run`): a part that stays,
/// and the prefix sums that move with the run, each with its column of
/// binomials, its row at the run's first sequence and its step.
pub struct RankedRun<'m> {
    fixed: usize,
    moving: SmallVec<[(&'m [usize], usize, isize); 2]>,
}

impl RankedRun<'_> {
    /// The index of the run's `t`-th sequence.
    #[inline]
    pub fn index(&self, t: usize) -> usize {
        let mut i = self.fixed;
        for &(column, m, q) in &self.moving {
            i += column[m.wrapping_add_signed(q * t as isize)];
        }
        i
    }

    /// Calls `f` with `t` and the index of the `t`-th sequence, for `t`
    /// in `0..n`: when one prefix sum moves by one at a time (an item
    /// moved to the next, as in Staircase Nim), its column read in order.
    #[inline]
    pub fn for_each(&self, n: usize, mut f: impl FnMut(usize, usize)) {
        match self.moving[..] {
            [(column, m, 1)] => {
                for (t, &c) in column[m..m + n].iter().enumerate() {
                    f(t, self.fixed + c);
                }
            }
            [(column, m, -1)] => {
                for (t, &c) in column[m + 1 - n..=m].iter().rev().enumerate() {
                    f(t, self.fixed + c);
                }
            }
            _ => (0..n).for_each(|t| f(t, self.index(t))),
        }
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
        // Staircase Nim: `k` coins from item 3 to item 2; and coins taken
        // from two items at once.
        let cases: [([i64; 5], [i64; 5]); 4] = [
            ([1, 2, 3, 4, 2], [0, 0, 1, -1, 0]),
            ([0, 3, 0, 5, 1], [0, -1, 0, -1, 0]),
            ([2, 0, 0, 0, 0], [1, 0, 0, 0, 0]),
            ([0, 0, 6, 1, 0], [0, 0, -1, 1, 0]),
        ];
        for (bases, coefs) in cases {
            let hi = (0..5)
                .filter(|&c| coefs[c] < 0)
                .map(|c| bases[c] + 1)
                .min()
                .unwrap_or(11);
            let run = r.run(&bases, &coefs, 1, hi).expect("in the window");
            let mut each = Vec::new();
            run.for_each((hi - 1) as usize, |t, i| each.push((t, i)));
            for k in 1..hi {
                let x: Vec<i64> = (0..5).map(|c| bases[c] + coefs[c] * k).collect();
                let t = (k - 1) as usize;
                assert_eq!(run.index(t), r.index(&x).unwrap(), "{x:?}");
                assert_eq!(each[t], (t, run.index(t)));
            }
            assert_eq!(each.len(), (hi - 1) as usize);
        }
        // An item below 0, or a sum past the window, at either end: none.
        assert!(r.run(&[1, 2, 3, 4, 2], &[0, 0, 1, -1, 0], 1, 6).is_none());
        assert!(r.run(&[2, 0, 0, 0, 0], &[1, 0, 0, 0, 0], 0, 12).is_none());
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
