//! The values a position's options were found to have when it was first
//! expanded, kept while its options without a value yet are searched:
//! each of those reports its value here as it is found, and the
//! position's value is the mex of the set, without listing its options a
//! second time. A game on subsets of 0..40 looked up every option twice
//! (once finding the new ones, once after they were searched), each
//! lookup two cache misses. Only positions outside a dense window keep
//! marks (`run_search`): options read from a window cost less to list
//! again than the marks to keep.
//!
//! Only small values are kept (the first `SLOTS` of `SgSink::seen`, a
//! bit each): they decide a mex below 251. A position whose options have
//! every value below 251 is listed again as before (`Marked::mex` gives
//! `None`).

use super::scan::seen_slot;

/// Slots of `SgSink::seen` kept: those of the values below 251.
const SLOTS: usize = 256;

/// A bit per slot of `SgSink::seen` (`seen_slot`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marked {
    bits: [u64; SLOTS / 64],
}

impl Marked {
    /// The slots kept of `seen` marked with `stamp`.
    pub(super) fn from_seen(seen: &[u32], stamp: u32) -> Marked {
        // A byte per slot first (vector compares), then eight bytes of 0
        // or 1 into eight bits by one multiplication: bit by bit, this
        // was a seventh of a set game's time.
        let mut bytes = [0u8; SLOTS];
        for (b, &s) in bytes.iter_mut().zip(seen) {
            *b = u8::from(s == stamp);
        }
        let mut marked = Marked::default();
        for (i, eight) in bytes.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
            let packed = x.wrapping_mul(0x0102_0408_1020_4080) >> 56;
            marked.bits[i / 8] |= packed << (8 * (i % 8));
        }
        marked
    }

    /// Adds the value `v` of an option searched since (a value past the
    /// slots kept changes no mex they decide).
    pub(super) fn mark(&mut self, v: u64) {
        let slot = seen_slot(v.min(SLOTS as u64));
        if slot < SLOTS {
            self.bits[slot / 64] |= 1 << (slot % 64);
        }
    }

    /// The least value not marked, if the slots kept decide it.
    pub(super) fn mex(&self) -> Option<u64> {
        // Values start at slot 4 (`seen_slot`).
        let first_free = (4..SLOTS).find(|&i| self.bits[i / 64] >> (i % 64) & 1 == 0)?;
        // Slot 255 is `BIG`'s, no value's: free there, every value below
        // 251 is marked, and whether 251 is lies past the slots kept.
        (first_free < SLOTS - 1).then(|| first_free as u64 - 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mex_of_marks_from_seen_and_reported_values() {
        let mut seen = vec![0u32; SLOTS];
        for v in [0u64, 1, 3] {
            seen[seen_slot(v)] = 7;
        }
        seen[seen_slot(2)] = 6; // another position's mark
        let mut m = Marked::from_seen(&seen, 7);
        assert_eq!(m.mex(), Some(2));
        m.mark(2);
        assert_eq!(m.mex(), Some(4));
        for v in 4..100 {
            m.mark(v);
        }
        assert_eq!(m.mex(), Some(100));
    }

    #[test]
    fn values_past_the_slots_decide_no_mex() {
        let mut seen = vec![0; 2 * SLOTS];
        seen[seen_slot(300)] = 1;
        let mut m = Marked::from_seen(&seen, 1);
        m.mark(251);
        m.mark(1 << 40);
        assert_eq!(m.mex(), Some(0));
        for v in 0..250 {
            m.mark(v);
        }
        assert_eq!(m.mex(), Some(250));
        // 250 is the last value with a slot kept: 251 may be marked or not.
        m.mark(250);
        assert_eq!(m.mex(), None);
    }
}
