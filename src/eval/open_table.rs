//! An open-addressing hash table with linear probing, for the slots of
//! the product search's `KeyTable` and the index of the memo's sparse
//! table (`memo::sparse`). A lookup reads a slot at a time (each within
//! one cache line, see `product_tables::table::Slot`) with no control
//! bytes beside it, and the slot
//! a hash starts at is known before the lookup: the search prefetches the
//! slots of the options a few ahead while it compares the current one's,
//! so the misses of a large table overlap.

/// A slot value that marks an empty slot. Its bytes are all zero: a
/// table's slots are allocated zeroed (`vacant_slots`), as vacant.
pub(crate) trait Vacant: Copy {
    const VACANT: Self;
    fn is_vacant(&self) -> bool;
}

/// Tables larger than this are past the cache: their slots are
/// prefetched.
const PREFETCH_PAST_BYTES: usize = 8 << 20;

/// Tables larger than this ask for huge pages (`huge_pages`): a random
/// slot of a table of 4 KiB pages costs a miss of the TLB as well as of
/// the cache (the kernel spends time compacting memory for the pages, so
/// smaller tables do without).
const HUGE_PAGES_PAST_BYTES: usize = 32 << 20;

/// Tables whose doubling takes at most this grow without asking the
/// budget. A refused doubling (by the budget or the system) leaves the
/// table to fill up to its last vacant slot, room for many thousands of
/// stores in a table this large, and the budget is checked every few
/// thousand steps: the check stops the computation long before.
const ALWAYS_GROWS_BYTES: usize = 2 << 20;

/// Capacity of a table's first allocation.
const MIN_CAPACITY: usize = 16;

/// Where a table's runs start, taken once for the probes of many
/// options: the same type for tables of any slot size, so that a search
/// prefetches from whichever table its options are in.
pub(crate) struct Prefetcher<'t> {
    slots: *const u8,
    shift: u32,
    /// log2 of the slot size.
    slot_shift: u32,
    _table: std::marker::PhantomData<&'t [u8]>,
}

impl Prefetcher<'_> {
    /// Starts loading the first slot of the run of `hash`.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = (self.slots).wrapping_add(((hash >> self.shift) as usize) << self.slot_shift);
            // SAFETY: SSE is part of x86_64; a prefetch reads nothing the
            // program sees and cannot fault.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
            }
            // With two slots or fewer a line, a run often goes on into the
            // next line: that one too (the product memo's 32-byte slots).
            // Four slots a line or more seldom need it.
            if self.slot_shift >= 5 {
                // SAFETY: as above.
                unsafe {
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                        p.wrapping_add(64).cast(),
                    )
                };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }
}

/// Where `OpenTable::insert_unique` stored a slot: valid while no growth
/// or removal has moved the slots since (`OpenTable::at_mut`).
#[derive(Clone, Copy)]
pub(crate) struct SlotAt {
    pub(crate) index: usize,
    generation: u64,
}

#[derive(Debug)]
pub(crate) struct OpenTable<T> {
    /// A power of two of slots, or none before the first insert.
    slots: Vec<T>,
    len: usize,
    /// `64 - log2(slots.len())`: a hash's run starts in the cache line
    /// its top bits pick.
    shift: u32,
    /// The index of the first slot that starts a cache line.
    phase: usize,
    /// Masks a run's start (`home`): to its cache line's first slot in a
    /// table past the cache, whose lines are prefetched; all ones in one
    /// within it, where a run starts at its own slot.
    line_mask: usize,
    /// Counts the growths and removals, which move slots: an index taken
    /// at an insert stays valid while this stays the same.
    generation: u64,
    /// Tests: growths past the first allocation are refused, as a budget
    /// or a system out of memory would.
    #[cfg(test)]
    refuse_growth: bool,
}

impl<T> Default for OpenTable<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            len: 0,
            shift: 64,
            phase: 0,
            line_mask: !0,
            generation: 0,
            #[cfg(test)]
            refuse_growth: false,
        }
    }
}

impl<T: Vacant> OpenTable<T> {
    /// Slots in a 64-byte cache line (a power of two: slot sizes are).
    const PER_LINE: usize = if std::mem::size_of::<T>() >= 64 {
        1
    } else {
        64 / std::mem::size_of::<T>()
    };

    /// Where the run of `hash` starts. In a table past the cache, the
    /// first slot of the cache line its top bits pick, so that the first
    /// probes of a run share the line the search prefetched (starting
    /// mid-line, a second probe waited for the next line about one time
    /// in three). Within the cache, the slot its top bits pick: runs
    /// started at a line's first slot pile the line's keys up in one run
    /// that every lookup from that line walks from its start (geography's
    /// sparse lookups cost a third fewer instructions from their own slot).
    #[inline]
    fn home(&self, hash: u64) -> usize {
        // Only called with slots: shift < 64. The lines start `phase`
        // slots into the array.
        let top = (hash >> self.shift) as usize;
        let start = (top.wrapping_sub(self.phase) & self.line_mask).wrapping_add(self.phase);
        start & (self.slots.len() - 1)
    }

    #[inline]
    fn index(&self, hash: u64, eq: impl FnMut(&T) -> bool) -> Option<usize> {
        self.locate(hash, eq)?.ok()
    }

    /// Where the run of `hash` holds the slot `eq` accepts (`Ok`), or
    /// where it ends without one (`Err`: the vacant slot an insert of it
    /// would take while the slots stay as they are); `None` before the
    /// first insert.
    #[inline]
    pub(crate) fn locate(
        &self,
        hash: u64,
        mut eq: impl FnMut(&T) -> bool,
    ) -> Option<Result<usize, usize>> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            // SAFETY: `slots.len()` is `1 << (64 - shift)`: the home, a
            // hash's top bits, and every index masked are below it.
            let s = unsafe { self.slots.get_unchecked(i) };
            if s.is_vacant() {
                return Some(Err(i));
            }
            if eq(s) {
                return Some(Ok(i));
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot at `index` (from `locate` or an insert).
    #[inline]
    pub(crate) fn slot(&self, index: usize) -> &T {
        &self.slots[index]
    }

    #[inline]
    pub(crate) fn slot_mut(&mut self, index: usize) -> &mut T {
        &mut self.slots[index]
    }

    /// Counts the growths and removals: an index from `locate` or an
    /// insert stays good while this stays the same.
    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Stores `value` in the slot `vacancy`, if it is vacant and no growth
    /// is due: where `locate` (of this generation) ended the run of a
    /// value known absent. False: nothing stored.
    #[inline]
    pub(crate) fn put_vacant(&mut self, vacancy: usize, value: T) -> bool {
        let fits = 5 * (self.len + 1) <= 3 * self.slots.len();
        match self.slots.get_mut(vacancy) {
            Some(s) if fits && s.is_vacant() => {
                *s = value;
                self.len += 1;
                true
            }
            _ => false,
        }
    }

    /// The slot `eq` accepts in the run of `hash` (`eq` never accepts a
    /// vacant slot).
    #[inline]
    pub(crate) fn find(&self, hash: u64, eq: impl FnMut(&T) -> bool) -> Option<&T> {
        self.index(hash, eq).map(|i| &self.slots[i])
    }

    #[inline]
    pub(crate) fn find_mut(&mut self, hash: u64, eq: impl FnMut(&T) -> bool) -> Option<&mut T> {
        self.index(hash, eq).map(|i| &mut self.slots[i])
    }

    /// What starts loading the first slot of a hash's run, `None` while
    /// the table is small enough to stay in the cache (the prefetches then
    /// only cost).
    #[inline]
    pub(crate) fn prefetcher(&self) -> Option<Prefetcher<'_>> {
        let bytes = std::mem::size_of_val(&self.slots[..]);
        (bytes > PREFETCH_PAST_BYTES).then_some(Prefetcher {
            slots: self.slots.as_ptr().cast(),
            shift: self.shift,
            slot_shift: std::mem::size_of::<T>().trailing_zeros(),
            _table: std::marker::PhantomData,
        })
    }

    /// Stores `value`, known absent, and gives where; `hash_of` gives a
    /// stored slot's hash when the table grows.
    pub(crate) fn insert_unique(
        &mut self,
        hash: u64,
        value: T,
        hash_of: impl Fn(&T) -> u64,
    ) -> SlotAt {
        // At most three fifths full: runs stay short. Linear probing
        // slows fast past that, for no saving in peak memory. A doubling
        // refused (by the budget or the system) is noted, and the table
        // stores on, fuller, while a vacant slot remains to end every
        // run: the next budget check stops the computation.
        if 5 * (self.len + 1) > 3 * self.slots.len() {
            let full = self.len + 2 > self.slots.len();
            if (full || self.may_grow()) && !self.grow(&hash_of) {
                self.note_refusal();
                if full {
                    // No slot left and none to be had: as a Vec would.
                    let layout = std::alloc::Layout::array::<T>(2 * self.slots.len());
                    std::alloc::handle_alloc_error(
                        layout.unwrap_or(std::alloc::Layout::new::<T>()),
                    );
                }
            }
        }
        self.len += 1;
        SlotAt {
            index: self.place(hash, value),
            generation: self.generation,
        }
    }

    /// Grows the table ahead of `n` more inserts, as they would (within
    /// the budget). Slots copied from another table come in the order of
    /// their hashes: inserted one by one into a table still small, they
    /// would pile up in one run at its start.
    pub(crate) fn reserve(&mut self, n: usize, hash_of: impl Fn(&T) -> u64) {
        while 5 * (self.len + n) > 3 * self.slots.len() {
            if !self.may_grow() || !self.grow(&hash_of) {
                self.note_refusal();
                return;
            }
        }
    }

    fn place(&mut self, hash: u64, value: T) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        while !self.slots[i].is_vacant() {
            i = (i + 1) & mask;
        }
        self.slots[i] = value;
        i
    }

    /// The slot an insert stored at `at`, if the slots have not moved
    /// since.
    pub(crate) fn at_mut(&mut self, at: SlotAt) -> Option<&mut T> {
        (at.generation == self.generation).then(|| &mut self.slots[at.index])
    }

    /// Whether the budget lets the table double (a small one always may).
    fn may_grow(&self) -> bool {
        let bytes = 2 * std::mem::size_of_val(&self.slots[..]);
        bytes <= ALWAYS_GROWS_BYTES || crate::budget::may_grow(bytes)
    }

    /// Notes a refused doubling for the next budget check (not the
    /// tests' refusals: the budget's note is global to the process).
    fn note_refusal(&self) {
        #[cfg(test)]
        if self.refuse_growth {
            return;
        }
        crate::budget::refuse_growth(2 * std::mem::size_of_val(&self.slots[..]));
    }

    /// Doubles the table; false if the system refused the memory.
    fn grow(&mut self, hash_of: &impl Fn(&T) -> u64) -> bool {
        #[cfg(test)]
        if self.refuse_growth && !self.slots.is_empty() {
            return false;
        }
        let capacity = (2 * self.slots.len()).max(MIN_CAPACITY);
        let Some(slots) = vacant_slots(capacity) else {
            return false;
        };
        self.generation += 1;
        let old = std::mem::replace(&mut self.slots, slots);
        self.shift = 64 - capacity.trailing_zeros();
        let line = (self.slots.as_ptr() as usize % 64) / std::mem::size_of::<T>().max(1);
        self.phase = (Self::PER_LINE - line) % Self::PER_LINE;
        let past_cache = std::mem::size_of_val(&self.slots[..]) > PREFETCH_PAST_BYTES;
        self.line_mask = if past_cache {
            !(Self::PER_LINE - 1)
        } else {
            !0
        };
        for s in old {
            if !s.is_vacant() {
                self.place(hash_of(&s), s);
            }
        }
        true
    }

    /// Removes the slot `eq` accepts in the run of `hash`, if any, moving
    /// back the slots after it that its place lets reach nearer home.
    pub(crate) fn remove(
        &mut self,
        hash: u64,
        eq: impl FnMut(&T) -> bool,
        hash_of: impl Fn(&T) -> u64,
    ) {
        let Some(mut hole) = self.index(hash, eq) else {
            return;
        };
        self.generation += 1;
        let mask = self.slots.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.is_vacant() {
                break;
            }
            // `s` may fill the hole if the hole is between its home and it.
            let home = self.home(hash_of(&s));
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = T::VACANT;
        self.len -= 1;
    }

    /// Keeps only the slots `keep` accepts, in one sweep: the others are
    /// emptied, then every slot is placed again from its home, walking the
    /// table from a slot that was vacant before (no run crosses it), so
    /// each run is closed up from its start.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool, hash_of: impl Fn(&T) -> u64) {
        let Some(start) = self.slots.iter().position(|s| s.is_vacant()) else {
            return;
        };
        let mut removed = 0;
        for s in self.slots.iter_mut() {
            if !s.is_vacant() && !keep(s) {
                *s = T::VACANT;
                removed += 1;
            }
        }
        if removed == 0 {
            return;
        }
        self.generation += 1;
        self.len -= removed;
        let mask = self.slots.len() - 1;
        for k in 1..=self.slots.len() {
            let j = (start + k) & mask;
            let s = self.slots[j];
            if !s.is_vacant() {
                self.slots[j] = T::VACANT;
                self.place(hash_of(&s), s);
            }
        }
    }

    /// The slots in use.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The slots, used or not.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Every slot, vacant ones too.
    pub(crate) fn all(&self) -> &[T] {
        &self.slots
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().filter(|s| !s.is_vacant())
    }
}

/// `capacity` vacant slots, on huge pages if the table is large (the
/// advice must come before the pages are first written); `None` if the
/// system refuses the memory.
fn vacant_slots<T: Vacant>(capacity: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(capacity).ok()?;
    if layout.size() == 0 {
        return Some(vec![T::VACANT; capacity]);
    }
    // Zeroed by the allocator, not written slot by slot: a large table's
    // fresh pages are zero already, and stay untouched until stored to.
    // SAFETY: the layout has a size (checked above).
    let memory = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if memory.is_null() {
        return None;
    }
    // SAFETY: `memory` was allocated by the global allocator with the
    // layout of `capacity` slots, and holds `capacity` of them: all zero
    // bytes, which is `T::VACANT` (the trait's contract).
    let mut slots = unsafe { Vec::from_raw_parts(memory, capacity, capacity) };
    if std::mem::size_of_val(&slots[..]) > HUGE_PAGES_PAST_BYTES {
        huge_pages(&mut slots[..]);
    }
    debug_assert!(slots.iter().all(|s| s.is_vacant()));
    Some(slots)
}

/// Asks the kernel to back the 2 MiB pages that lie within `memory` with
/// huge pages (transparent huge pages, `madvise` mode). Only for memory
/// written soon in full: the kernel may fill a huge page partly written.
fn huge_pages<T>(memory: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = memory.as_ptr() as usize;
        let end = (start + std::mem::size_of_val(memory)) & !(HUGE - 1);
        let first = start.next_multiple_of(HUGE);
        if end > first {
            // SAFETY: the range lies within `memory`, which this program
            // owns; the advice changes how it is backed, not its contents.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Vacant for (u64, u64) {
        const VACANT: Self = (0, 0);
        fn is_vacant(&self) -> bool {
            self.0 == 0
        }
    }

    #[test]
    fn tables_past_the_huge_page_size_start_vacant() {
        // Advised for huge pages, then filled: every slot vacant.
        let capacity = 2 * HUGE_PAGES_PAST_BYTES / std::mem::size_of::<(u64, u64)>();
        let slots: Vec<(u64, u64)> = vacant_slots(capacity).unwrap();
        assert_eq!(slots.len(), capacity);
        assert!(slots.iter().all(|s| s.is_vacant()));
        let small: Vec<(u64, u64)> = vacant_slots(MIN_CAPACITY).unwrap();
        assert_eq!(small.len(), MIN_CAPACITY);
    }

    #[test]
    fn inserts_finds_and_removes_against_a_map() {
        // Few distinct hashes: long runs that wrap, removals from their
        // middles.
        let hash = |k: u64| (k % 37).wrapping_mul(0x9E37_79B9_7F4A_7C15) | (k % 3) << 63;
        let mut t = OpenTable::<(u64, u64)>::default();
        let mut map = std::collections::HashMap::new();
        let mut x = 1u64;
        for step in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = 1 + (x >> 33) % 500;
            if step % 3 == 2 {
                t.remove(hash(k), |s| s.0 == k, |s| hash(s.0));
                map.remove(&k);
            } else if let Some(s) = t.find_mut(hash(k), |s| s.0 == k) {
                s.1 = step;
                map.insert(k, step);
            } else {
                t.insert_unique(hash(k), (k, step), |s| hash(s.0));
                map.insert(k, step);
            }
            if let Some(p) = t.prefetcher() {
                p.prefetch(hash(k));
            }
        }
        for k in 1..=500 {
            assert_eq!(
                t.find(hash(k), |s| s.0 == k).map(|s| s.1),
                map.get(&k).copied()
            );
        }
        assert_eq!(t.iter().count(), map.len());
        assert_eq!(t.len, map.len());
    }

    #[test]
    fn runs_start_at_their_slot_within_the_cache_and_at_their_line_past_it() {
        // One key in an empty table takes its home: the slot its hash's
        // top bits pick, or past the cache that slot's line's first slot
        // (the line the prefetcher loads). Tables past the cache: 16 MiB.
        let hash = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let past = PREFETCH_PAST_BYTES / std::mem::size_of::<(u64, u64)>();
        for (n, past_cache, keys) in [(100, false, 64), (past, true, 8)] {
            for k in 1..=keys {
                let mut t = OpenTable::<(u64, u64)>::default();
                t.reserve(n, |s| hash(s.0));
                assert_eq!(t.prefetcher().is_some(), past_cache);
                let at = t.insert_unique(hash(k), (k, k), |s| hash(s.0)).index;
                let top = (hash(k) >> t.shift) as usize;
                let line = top.wrapping_sub(t.phase) & !(OpenTable::<(u64, u64)>::PER_LINE - 1);
                let line_start = line.wrapping_add(t.phase) & (t.capacity() - 1);
                assert_eq!(at, if past_cache { line_start } else { top }, "key {k}");
            }
        }
    }

    #[test]
    fn a_refused_growth_fills_the_table_to_its_last_vacant_slot() {
        // Refused growths past the first allocation: the table stores
        // on past three fifths (no abort) until one slot is left, and
        // every value stays findable, inserted ones and absent ones.
        let hash = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut t = OpenTable::<(u64, u64)>::default();
        t.insert_unique(hash(1), (1, 10), |s| hash(s.0));
        t.refuse_growth = true;
        let capacity = t.capacity();
        for k in 2..capacity as u64 {
            t.insert_unique(hash(k), (k, 10 * k), |s| hash(s.0));
        }
        assert_eq!((t.capacity(), t.len), (capacity, capacity - 1));
        for k in 1..capacity as u64 {
            assert_eq!(t.find(hash(k), |s| s.0 == k).map(|s| s.1), Some(10 * k));
        }
        assert!(t.find(hash(999), |s| s.0 == 999).is_none());
    }

    #[test]
    fn retain_keeps_every_other_slot_findable() {
        // Few distinct hashes, some at the table's end: runs that wrap.
        let hash = |k: u64| (k % 29).wrapping_mul(0x9E37_79B9_7F4A_7C15) | (k % 2) << 63;
        for drop_every in [2, 3, 7] {
            let mut t = OpenTable::<(u64, u64)>::default();
            for k in 1..=600u64 {
                t.insert_unique(hash(k), (k, 10 * k), |s| hash(s.0));
            }
            let kept = |k: u64| !k.is_multiple_of(drop_every);
            t.retain(|s| kept(s.0), |s| hash(s.0));
            for k in 1..=600u64 {
                let found = t.find(hash(k), |s| s.0 == k).map(|s| s.1);
                assert_eq!(found, kept(k).then_some(10 * k), "key {k}");
            }
            let n = (1..=600u64).filter(|&k| kept(k)).count();
            assert_eq!((t.len, t.iter().count()), (n, n));
        }
    }
}
