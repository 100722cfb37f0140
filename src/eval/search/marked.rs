//! The values a position's options were found to have when it was first
//! expanded, kept while its options without a value yet are searched:
//! each of those reports its value here as it is found, and the
//! position's value is the mex of the set, without listing its options a
//! second time. A game on subsets of 0..40 looked up every option twice
//! (once finding the new ones, once after they were searched), each
//! lookup two cache misses; a pass layer's positions (which wait for
//! the layer below) were listed twice each.
//!
//! Every marked value is kept, a bit each, in a bit set as long as the
//! largest (inline up to the values below 251): the marks decide the mex
//! whatever the values' size.

use crate::eval::memo::scan::{seen_slot, Marks, LARGEST};
use smallvec::SmallVec;

/// Slots held inline: those of the values below 251 (and `BIG`'s).
const INLINE_SLOTS: usize = 256;

/// A bit per slot of `Marks` (`seen_slot`).
#[derive(Clone, Debug, Default)]
pub(super) struct Marked {
    bits: SmallVec<[u64; INLINE_SLOTS / 64]>,
}

impl Marked {
    /// The values marked in `marks`.
    pub(super) fn from_marks(marks: &Marks) -> Marked {
        let ((seen, stamp), len) = (marks.slots(), marks.marked_len());
        Marked::from_seen(seen, stamp, len)
    }

    /// The slots of `seen[..len]` marked with `stamp` (`len`: past the
    /// last slot marked).
    fn from_seen(seen: &[u32], stamp: u32, len: usize) -> Marked {
        let len = len.min(seen.len());
        let words = len.max(INLINE_SLOTS).div_ceil(64);
        let mut marked = Marked {
            bits: SmallVec::from_elem(0, words),
        };
        let seen = &seen[..len];
        // A byte per slot first (vector compares), then eight bytes of 0
        // or 1 into eight bits by one multiplication: bit by bit, this
        // was a seventh of a set game's time.
        for (word, slots) in marked.bits.iter_mut().zip(seen.chunks(64)) {
            let mut bytes = [0u8; 64];
            for (b, &s) in bytes.iter_mut().zip(slots) {
                *b = u8::from(s == stamp);
            }
            for (i, eight) in bytes.chunks_exact(8).enumerate() {
                let x = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
                let packed = x.wrapping_mul(0x0102_0408_1020_4080) >> 56;
                *word |= packed << (8 * i);
            }
        }
        marked
    }

    /// Adds the value `v` of an option searched since.
    pub(super) fn mark(&mut self, v: u64) {
        if v >= LARGEST {
            return;
        }
        let slot = seen_slot(v);
        if slot / 64 >= self.bits.len() {
            self.bits.resize(slot / 64 + 1, 0);
        }
        self.bits[slot / 64] |= 1 << (slot % 64);
    }

    /// The least value not marked.
    pub(super) fn mex(&self) -> u64 {
        // Slots 0..4 and 255 (`BIG`'s) are no value's (`seen_slot`): read
        // as marked, the first word not full has the free slot.
        let fixed = |w: usize| [0b1111, 0, 0, 1 << 63].get(w).copied().unwrap_or(0);
        let word = |w: usize| self.bits.get(w).copied().unwrap_or(0) | fixed(w);
        let (w, bits) = (0..)
            .map(|w| (w, word(w)))
            .find(|&(_, b)| b != u64::MAX)
            .expect("a free slot");
        let free = w as u64 * 64 + bits.trailing_ones() as u64;
        free - if free < 255 { 4 } else { 5 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::memo::scan::SCANNED_SLOTS;

    #[test]
    fn the_mex_of_marks_from_seen_and_reported_values() {
        let mut seen = vec![0u32; INLINE_SLOTS];
        for v in [0u64, 1, 3] {
            seen[seen_slot(v)] = 7;
        }
        seen[seen_slot(2)] = 6; // another position's mark
        let mut m = Marked::from_seen(&seen, 7, INLINE_SLOTS);
        assert_eq!(m.mex(), 2);
        m.mark(2);
        assert_eq!(m.mex(), 4);
        for v in 4..100 {
            m.mark(v);
        }
        assert_eq!(m.mex(), 100);
    }

    #[test]
    fn marks_read_as_far_as_they_were_marked_one_by_one_or_scanned() {
        // Marked one by one (values and a dense byte): only the slots up
        // to the highest are read, and they decide the mex.
        let mut marks = Marks::default();
        marks.start();
        marks.add(0);
        marks.add(2);
        assert!(marks.mark_byte(5), "the byte of value 1");
        assert_eq!(marks.marked_len(), seen_slot(2) + 1);
        assert_eq!(Marked::from_marks(&marks).mex(), 3);
        // A value past the byte slots, then a new position's marks.
        marks.add(300);
        assert_eq!(marks.marked_len(), seen_slot(300) + 1);
        marks.start();
        marks.add(1);
        assert_eq!(Marked::from_marks(&marks).mex(), 0);
        // A scan may mark any of the first `SCANNED_SLOTS` unreported.
        let (seen, stamp) = marks.slots_mut(SCANNED_SLOTS);
        seen[seen_slot(0)] = stamp;
        seen[seen_slot(100)] = stamp;
        let marked = Marked::from_marks(&marks);
        assert_eq!(marked.mex(), 2);
        assert!(marked.bits[seen_slot(100) / 64] >> (seen_slot(100) % 64) & 1 == 1);
    }

    #[test]
    fn values_past_250_and_past_1000_decide_the_mex() {
        let mut seen = vec![0; 4096];
        // Marks in `seen` past the inline slots, then reported ones.
        for v in 0..300 {
            seen[seen_slot(v)] = 1;
        }
        let mut m = Marked::from_seen(&seen, 1, seen_slot(299) + 1);
        assert_eq!(m.mex(), 300);
        m.mark(1 << 40); // too large to matter, and not kept
        for v in 300..1500 {
            if v != 1234 {
                m.mark(v);
            }
        }
        assert_eq!(m.mex(), 1234);
        m.mark(1234);
        assert_eq!(m.mex(), 1500);
        // Against a brute force over a scattered set of values.
        let mut m = Marked::default();
        let values: Vec<u64> = (0..2000).filter(|v| v % 7 != 6 || *v < 1000).collect();
        for &v in values.iter().rev() {
            m.mark(v);
        }
        let brute = (0..).find(|v| !values.contains(v)).expect("a gap");
        assert_eq!(m.mex(), brute);
    }
}
