//! The positions of one shape outside its dense window: their coordinates
//! packed in one array, `n` integers per position, in the order they were
//! stored, found through an open-addressing table of indices
//! (`open_table`). About `8n + 24` bytes a position, far less than a
//! map from small vectors of coordinates.
//!
//! The slot a position's hash starts at is known before the lookup, so a
//! search asking for many options first prefetches their slots (`hash`,
//! `prefetch`), then looks them up (`get_hashed`): the misses of a table
//! past the cache overlap instead of waiting in turn.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use crate::eval::open_table::{OpenTable, Vacant};

/// One stored position in the index: its tag (`tag`: only a position
/// whose tag agrees is compared, most mismatches cost no read of the
/// coordinates) over its index plus one.
#[derive(Clone, Copy, Debug)]
struct Entry(u64);

/// Bits of an entry's index: room for 2^40 positions, more than memory.
const INDEX_BITS: u32 = 40;

impl Vacant for Entry {
    const VACANT: Entry = Entry(0);
    fn is_vacant(&self) -> bool {
        self.0 == 0
    }
}

impl Entry {
    fn new(hash: u64, index: usize) -> Entry {
        debug_assert!((index as u64) < (1 << INDEX_BITS) - 1);
        Entry(tag(hash) << INDEX_BITS | (index as u64 + 1))
    }

    fn index(self) -> usize {
        (self.0 & ((1 << INDEX_BITS) - 1)) as usize - 1
    }

    fn tag(self) -> u64 {
        self.0 >> INDEX_BITS
    }
}

/// The hash bits an entry keeps, bits 8..32. The table's slot comes
/// from the top bits (`open_table`), so these are others; the lowest is
/// set, so that no tag is a vacant slot's.
fn tag(hash: u64) -> u64 {
    (hash >> 8) & ((1 << (64 - INDEX_BITS)) - 1) | 1
}

#[derive(Debug, Default)]
pub(super) struct SparseTable {
    /// Coordinates per position.
    n: usize,
    /// Position `i`'s row, `rows[i * (n + 1)..][..n + 1]`: its
    /// coordinates, then its code (one cache line to read for both).
    rows: Vec<i64>,
    /// Indices of rows, by the hash of their coordinates.
    index: OpenTable<Entry>,
}

/// The hash of a position's coordinates: FxHash, its bits mixed by one
/// wide multiplication so that the top bits (the slot) and bits 8..32
/// (the tag) each depend on every coordinate bit.
pub(super) fn hash(coords: &[i64]) -> u64 {
    let mut h = FxHasher::default();
    for &c in coords {
        h.write_i64(c);
    }
    let wide = u128::from(h.finish()) * 0x9E37_79B9_7F4A_7C15;
    (wide as u64) ^ ((wide >> 64) as u64)
}

impl SparseTable {
    pub(super) fn new(n: usize) -> SparseTable {
        SparseTable {
            n,
            ..SparseTable::default()
        }
    }

    pub(super) fn len(&self) -> usize {
        self.rows.len() / (self.n + 1)
    }

    fn row(&self, i: usize) -> &[i64] {
        &self.rows[i * (self.n + 1)..][..self.n + 1]
    }

    fn at(&self, i: usize) -> &[i64] {
        &self.row(i)[..self.n]
    }

    /// The code of the position in row `i`.
    pub(super) fn code(&self, i: usize) -> u64 {
        self.row(i)[self.n] as u64
    }

    /// Stores `code` in row `i` (its coordinates stay).
    pub(super) fn set_code(&mut self, i: usize, code: u64) {
        self.rows[i * (self.n + 1) + self.n] = code as i64;
    }

    /// The row of `coords`, if stored: it stays while the table is not
    /// taken (`take`).
    #[inline]
    pub(super) fn row_of(&self, coords: &[i64]) -> Option<usize> {
        self.find(coords, hash(coords))
    }

    /// The code stored for `coords`, if any.
    #[inline]
    pub(super) fn get(&self, coords: &[i64]) -> Option<u64> {
        self.get_hashed(coords, hash(coords))
    }

    /// `get`, with `hash(coords)` given.
    #[inline]
    pub(super) fn get_hashed(&self, coords: &[i64], hash: u64) -> Option<u64> {
        let i = self.find(coords, hash)?;
        Some(self.code(i))
    }

    #[inline]
    fn find(&self, coords: &[i64], hash: u64) -> Option<usize> {
        let t = tag(hash);
        // Compared item by item: a call of `memcmp` for one or two
        // coordinates cost more than the comparison.
        let same = |e: &Entry| {
            e.tag() == t && {
                let at = self.at(e.index());
                at.len() == coords.len() && at.iter().zip(coords).all(|(a, b)| a == b)
            }
        };
        Some(self.index.find(hash, same)?.index())
    }

    /// Starts loading the slot where the lookup of `hash` begins, if the
    /// table is past the cache.
    #[inline]
    pub(super) fn prefetch(&self, hash: u64) {
        if let Some(p) = self.index.prefetcher() {
            p.prefetch(hash);
        }
    }

    /// Stores `code` for `coords` (`coords.len()` is the table's `n`).
    #[cfg(test)]
    fn insert(&mut self, coords: &[i64], code: u64) {
        if !self.overwrite(coords, code) {
            self.insert_new(coords, code);
        }
    }

    /// Stores `code` for `coords` if they are stored already: true then.
    #[inline]
    pub(super) fn overwrite(&mut self, coords: &[i64], code: u64) -> bool {
        match self.row_of(coords) {
            Some(i) => {
                self.set_code(i, code);
                true
            }
            None => false,
        }
    }

    /// Stores `code` for `coords`, not stored yet.
    pub(super) fn insert_new(&mut self, coords: &[i64], code: u64) {
        debug_assert_eq!(coords.len(), self.n);
        let h = hash(coords);
        let i = self.len();
        let width = self.n + 1;
        if self.rows.capacity() - self.rows.len() < width {
            // Doubling, within the budget; a refused growth stores
            // nothing, and the next budget check stops the search.
            let more = self.rows.capacity().max(16 * width);
            let bytes = 8 * (self.rows.capacity() + more);
            if !crate::budget::may_grow(bytes) || self.rows.try_reserve_exact(more).is_err() {
                crate::budget::refuse_growth(bytes);
                return;
            }
        }
        self.rows.extend_from_slice(coords);
        self.rows.push(code as i64);
        let (width, rows) = (self.n + 1, &self.rows);
        self.index.insert_unique(h, Entry::new(h, i), |e| {
            hash(&rows[e.index() * width..][..width - 1])
        });
    }

    /// The coordinates of every stored position.
    pub(super) fn positions(&self) -> impl Iterator<Item = &[i64]> + '_ {
        self.rows.chunks_exact(self.n + 1).map(|row| &row[..self.n])
    }

    /// Every stored code.
    pub(super) fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.rows
            .chunks_exact(self.n + 1)
            .map(|row| row[self.n] as u64)
    }

    /// Empties the table, giving what it held (to store again elsewhere).
    pub(super) fn take(&mut self) -> impl Iterator<Item = (Vec<i64>, u64)> {
        let taken = std::mem::replace(self, SparseTable::new(self.n));
        (0..taken.len()).map(move |i| (taken.at(i).to_vec(), taken.code(i)))
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
    fn agrees_with_a_map_through_growth_and_overwrites() {
        // Enough positions to grow the index many times and pass the size
        // where lookups prefetch; negative and repeated coordinates, some
        // keys stored twice.
        let mut t = SparseTable::new(3);
        let mut map = std::collections::HashMap::new();
        for step in 0..1_000_000u64 {
            // Pseudo-random bits: the table's own hash of the step.
            let x = hash(&[step as i64]);
            let c = [
                (x >> 40) as i64 % 100 - 50,
                (x >> 20) as i64 % 1000,
                -((x >> 50) as i64),
            ];
            t.insert(&c, step);
            map.insert(c, step);
            let probe = [c[0], c[1] + 1, c[2]];
            t.prefetch(hash(&probe));
            assert_eq!(t.get(&probe), map.get(&probe).copied(), "{probe:?}");
        }
        assert_eq!(t.len(), map.len());
        for (c, &v) in &map {
            assert_eq!(t.get_hashed(c, hash(c)), Some(v));
        }
        assert_eq!(t.values().count(), map.len());
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
