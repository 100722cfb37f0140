//! The positions of one shape outside its dense window: their coordinates
//! packed in one array, `n` integers per position, found through a hash
//! table of indices. About `8n + 26` bytes a position, where a map from
//! small vectors of coordinates took about 100 whatever `n`.

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

#[derive(Debug, Default)]
pub(super) struct SparseTable {
    /// Coordinates per position.
    n: usize,
    /// Position `i`'s coordinates are `coords[i * n..][..n]`.
    coords: Vec<i64>,
    codes: Vec<u64>,
    /// Indices into `codes`, by the hash of their coordinates.
    index: HashTable<usize>,
}

fn hash(coords: &[i64]) -> u64 {
    let mut h = FxHasher::default();
    for &c in coords {
        h.write_i64(c);
    }
    h.finish()
}

impl SparseTable {
    pub(super) fn new(n: usize) -> SparseTable {
        SparseTable {
            n,
            ..SparseTable::default()
        }
    }

    fn at(&self, i: usize) -> &[i64] {
        &self.coords[i * self.n..][..self.n]
    }

    /// The code stored for `coords`, if any.
    #[inline]
    pub(super) fn get(&self, coords: &[i64]) -> Option<u64> {
        let i = self.index.find(hash(coords), |&i| self.at(i) == coords)?;
        Some(self.codes[*i])
    }

    /// Stores `code` for `coords` (`coords.len()` is the table's `n`).
    pub(super) fn insert(&mut self, coords: &[i64], code: u64) {
        debug_assert_eq!(coords.len(), self.n);
        let h = hash(coords);
        let (n, keys) = (self.n, &self.coords);
        let same = |&i: &usize| &keys[i * n..][..n] == coords;
        if let Some(&i) = self.index.find(h, same) {
            self.codes[i] = code;
            return;
        }
        let i = self.codes.len();
        self.coords.extend_from_slice(coords);
        self.codes.push(code);
        let keys = &self.coords;
        self.index
            .insert_unique(h, i, |&j| hash(&keys[j * n..][..n]));
    }

    /// The coordinates of every stored position.
    pub(super) fn positions(&self) -> impl Iterator<Item = &[i64]> + '_ {
        self.coords
            .chunks_exact(self.n.max(1))
            .take(self.codes.len())
    }

    /// Every stored code.
    pub(super) fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.codes.iter().copied()
    }

    /// Empties the table, giving what it held (to store again elsewhere).
    pub(super) fn take(&mut self) -> impl Iterator<Item = (Vec<i64>, u64)> {
        let taken = std::mem::replace(self, SparseTable::new(self.n));
        (0..taken.codes.len()).map(move |i| (taken.at(i).to_vec(), taken.codes[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_finds_and_overwrites_packed_keys() {
        let mut t = SparseTable::new(2);
        for x in -500..500i64 {
            t.insert(&[x, x * x], (x + 1000) as u64);
        }
        t.insert(&[3, 9], 7);
        assert_eq!(t.get(&[3, 9]), Some(7));
        assert_eq!(t.get(&[-4, 16]), Some(996));
        assert_eq!(t.get(&[3, 10]), None);
        assert_eq!(t.values().count(), 1000);
        let taken: Vec<_> = t.take().collect();
        assert_eq!(taken.len(), 1000);
        assert!(taken.contains(&(vec![3, 9], 7)));
        assert_eq!(t.get(&[3, 9]), None);
    }

    #[test]
    fn a_shape_without_coordinates_holds_one_position() {
        let mut t = SparseTable::new(0);
        assert_eq!(t.get(&[]), None);
        t.insert(&[], 5);
        t.insert(&[], 6);
        assert_eq!(t.get(&[]), Some(6));
        assert_eq!(t.take().collect::<Vec<_>>(), vec![(vec![], 6)]);
    }
}
