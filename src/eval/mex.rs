//! The mex of a list of values, by marks stamped per list: the marks are
//! never cleared between lists, and sized by the longest list (a list of n
//! values has its mex at most n).

#[derive(Default)]
pub(crate) struct StampedMex {
    /// `seen[v] == stamp`: v is among the current list's values.
    seen: Vec<u32>,
    stamp: u32,
}

impl StampedMex {
    /// The least value not among `values`.
    #[inline]
    pub(crate) fn mex(&mut self, values: &[u64]) -> u64 {
        // Fewer than 64 values: their mex is below 64, one word of marks,
        // inline in the caller (as a call, saving and restoring the
        // registers the stamped marks need cost more than the marks).
        if values.len() < 64 {
            let mark = |m: u64, &v: &u64| if v < 64 { m | 1 << v } else { m };
            return (!values.iter().fold(0, mark)).trailing_zeros() as u64;
        }
        self.stamped(values)
    }

    /// `mex` of 64 values or more, by the stamped marks.
    #[inline(never)]
    fn stamped(&mut self, values: &[u64]) -> u64 {
        let n = values.len();
        self.seen.resize(self.seen.len().max(n + 1), 0);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        for &v in values {
            if v < n as u64 {
                self.seen[v as usize] = self.stamp;
            }
        }
        (0..=n).find(|&m| self.seen[m] != self.stamp).unwrap_or(n) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::StampedMex;

    #[test]
    fn agrees_with_the_least_missing_value_across_the_word_and_the_stamps() {
        let mut mex = StampedMex::default();
        // Pseudo-random lists of 0 to 140 values up to 150, some full
        // runs 0..n (mex n, past 63 too), repeats and large values.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 141) as usize;
            let values: Vec<u64> = match round % 3 {
                0 => (0..n as u64).rev().collect(),
                1 => (0..n as u64)
                    .map(|i| (i * 7).wrapping_add(x) % 150)
                    .collect(),
                _ => (0..n as u64)
                    .map(|i| if i == 5 { u64::MAX } else { i % 64 })
                    .collect(),
            };
            let expected = (0..).find(|m| !values.contains(m)).unwrap();
            assert_eq!(mex.mex(&values), expected, "{values:?}");
        }
    }
}
