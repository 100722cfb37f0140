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
    pub(crate) fn mex(&mut self, values: &[u64]) -> u64 {
        let n = values.len();
        if self.seen.len() <= n {
            self.seen.resize(n + 1, 0);
        }
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
