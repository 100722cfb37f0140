//! The positions of one shape outside its dense window, in an
//! open-addressing table (`open_table`).
//!
//! While every position's coordinates pack into one word (`Packing`:
//! each coordinate in the fewest bits that have held its values so far),
//! a slot is that word with the position's code in its low byte: 8 bytes
//! a slot, no per-position overhead, one slot read and one comparison per
//! lookup. Codes past a byte are kept beside (`big`). A position whose
//! coordinates need more than `PACKED_BITS` in all turns the table to
//! rows: the coordinates in one array, `n` integers and the code per
//! position, found through slots of a hash tag and a row index.
//!
//! A lookup gives the position's place (`Slot`): the slot holding it, or
//! the vacant slot its insert would take. Both stay good while the
//! table's `generation` does, so a search that found a position missing
//! stores it, marks it and stores its value there without hashing or
//! walking a run again. A packed position's word with the number of its
//! packing (`pack_word`) gives its coordinates back after any later
//! change of the table (`unpack_word`): a search holds positions so.
//!
//! The slot a position's hash starts at is known before the lookup, so a
//! search asking for many options in a table past the cache first
//! prefetches their slots (`probe`), then looks them up: the misses
//! overlap instead of waiting in turn.

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use crate::eval::open_table::{OpenTable, Vacant};

/// Most integers a flattened key holds; longer positions are keyed by
/// value (here: the length of the coordinates a table gives back).
pub const MAX_COORDS: usize = 16;

/// One slot. Packed: `(key + 1) << 8 | byte`, the byte the position's
/// code or `BIG_BYTE`. Rows: the hash's tag over the row index plus one.
/// Zero is vacant.
#[derive(Clone, Copy, Debug)]
struct Entry(u64);

impl Vacant for Entry {
    const VACANT: Entry = Entry(0);
    fn is_vacant(&self) -> bool {
        self.0 == 0
    }
}

/// Most bits of a packed key: plus one, and shifted over the code's
/// byte, it still fits a word.
const PACKED_BITS: u32 = 55;

/// A packed slot's byte when the code is kept in `big`.
const BIG_BYTE: u64 = 0xFF;

/// Bits of a row slot's index: room for 2^40 positions, more than memory.
const INDEX_BITS: u32 = 40;

impl Entry {
    fn packed(key: u64, code: u64) -> Entry {
        Entry((key + 1) << 8 | code.min(BIG_BYTE))
    }

    fn key(self) -> u64 {
        (self.0 >> 8) - 1
    }

    fn byte(self) -> u64 {
        self.0 & BIG_BYTE
    }

    fn row(hash: u64, index: usize) -> Entry {
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

/// The hash bits a row slot keeps, bits 8..32. The table's slot comes
/// from the top bits (`open_table`), so these are others; the lowest is
/// set, so that no tag is a vacant slot's.
fn tag(hash: u64) -> u64 {
    (hash >> 8) & ((1 << (64 - INDEX_BITS)) - 1) | 1
}

/// How the coordinates of a shape pack into one word: each as its
/// zigzag code (0, -1, 1, -2, ... to 0, 1, 2, 3, ...) in `bits[c]` bits,
/// the first lowest.
#[derive(Clone, Copy, Debug, Default)]
struct Packing {
    bits: [u8; MAX_COORDS],
}

fn zigzag(c: i64) -> u64 {
    ((c << 1) ^ (c >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

impl Packing {
    /// The word of `coords`, if each fits its bits.
    #[inline]
    fn pack(&self, coords: &[i64]) -> Option<u64> {
        let (mut key, mut at, mut outside) = (0u64, 0u32, 0u64);
        for (&c, &bits) in coords.iter().zip(&self.bits) {
            let z = zigzag(c);
            // `bits` is at most `PACKED_BITS`: the shifts stay in range.
            outside |= z >> bits;
            key |= z << at;
            at += bits as u32;
        }
        (outside == 0).then_some(key)
    }

    /// The `n` coordinates packed in `key`.
    fn unpack(&self, key: u64, n: usize) -> [i64; MAX_COORDS] {
        let mut coords = [0i64; MAX_COORDS];
        self.unpack_into(key, &mut coords[..n]);
        coords
    }

    /// Writes the coordinates packed in `key` into `coords`.
    #[inline]
    fn unpack_into(&self, mut key: u64, coords: &mut [i64]) {
        for (c, &bits) in coords.iter_mut().zip(&self.bits) {
            *c = unzigzag(key & ((1 << bits) - 1));
            key >>= bits;
        }
    }

    /// This packing widened to hold `coords`, if it fits `PACKED_BITS`: a
    /// coordinate that widens takes half its bits again as room while
    /// the total fits, so that one growing a bit at a time (the masks of
    /// a search's visited sets) repacks the table a few times, not once
    /// a bit.
    fn widened(&self, coords: &[i64]) -> Option<Packing> {
        let (mut wider, mut roomy) = (*self, *self);
        for (i, &c) in coords.iter().enumerate() {
            let (bits, need) = (self.bits[i], (64 - zigzag(c).leading_zeros()) as u8);
            if need > bits {
                wider.bits[i] = need;
                roomy.bits[i] = need.max(bits + bits / 2);
            }
        }
        let total = |p: &Packing| p.bits.iter().map(|&b| b as u32).sum::<u32>();
        [roomy, wider].into_iter().find(|p| total(p) <= PACKED_BITS)
    }
}

/// The hash of a packed key: one wide multiplication, folded, so that
/// the top bits (the slot) depend on every bit of the key.
#[inline]
fn key_hash(key: u64) -> u64 {
    let wide = u128::from(key) * 0x9E37_79B9_7F4A_7C15;
    (wide as u64) ^ ((wide >> 64) as u64)
}

/// The hash of a position's coordinates: FxHash, its bits mixed by one
/// wide multiplication so that the top bits (the slot) and bits 8..32
/// (the tag) each depend on every coordinate bit.
pub(super) fn hash(coords: &[i64]) -> u64 {
    let mut h = FxHasher::default();
    for &c in coords {
        h.write_i64(c);
    }
    key_hash(h.finish())
}

/// Where a lookup left a position (`SparseTable::locate`), good while
/// the table's generation stays the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The slot holding it, and its code.
    Held(usize, u64),
    /// The vacant slot that ends its run: where an insert puts it.
    Vacant(usize),
}

/// Where the lookup of a position starts: its packed word (0 in rows)
/// and its hash.
#[derive(Clone, Copy, Debug)]
pub struct Sought {
    key: u64,
    hash: u64,
}

/// Most packings a table keeps the number of (`pack_word`): each widens
/// the one before, by a bit at least, up to `PACKED_BITS`, from each
/// emptying of the table.
const MAX_PACKINGS: usize = 255;

#[derive(Debug)]
pub(super) struct SparseTable {
    /// Coordinates per position.
    n: usize,
    /// How positions pack into slots; `None` once one did not (rows).
    packing: Option<Packing>,
    /// The packings the table has had, by number (at most
    /// `MAX_PACKINGS`): a word packed under one unpacks under it later.
    packings: Vec<Packing>,
    /// The number of the current packing, if it has one.
    packing_id: Option<u8>,
    slots: OpenTable<Entry>,
    /// Packed: the codes past a byte, by key.
    big: FxHashMap<u64, u64>,
    /// Rows: position `i`'s coordinates, then its code, at
    /// `rows[i * (n + 1)..][..n + 1]`.
    rows: Vec<i64>,
    len: usize,
    /// Counts the times the stored positions changed places (repacked,
    /// turned to rows, taken): with the slots' growths, a place from
    /// before (`locate`) is stale.
    generation: u64,
}

impl Default for SparseTable {
    fn default() -> SparseTable {
        SparseTable::new(0)
    }
}

impl SparseTable {
    pub(super) fn new(n: usize) -> SparseTable {
        SparseTable {
            n,
            packing: Some(Packing::default()),
            packings: vec![Packing::default()],
            packing_id: Some(0),
            slots: OpenTable::default(),
            big: FxHashMap::default(),
            rows: Vec::new(),
            len: 0,
            generation: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// What a place from `locate` is good for: while this stays the same.
    #[inline]
    pub(super) fn generation(&self) -> u32 {
        self.generation.wrapping_add(self.slots.generation()) as u32
    }

    /// What `slot` holds, if `generation` is current.
    #[inline]
    pub(super) fn at(&self, slot: usize, generation: u32) -> Option<Slot> {
        if generation != self.generation() || slot >= self.slots.capacity() {
            return None;
        }
        let e = *self.slots.slot(slot);
        Some(match (e.is_vacant(), self.packing) {
            (true, _) => Slot::Vacant(slot),
            (false, Some(_)) => Slot::Held(slot, self.code_of(e)),
            (false, None) => Slot::Held(slot, self.rows[e.index() * (self.n + 1) + self.n] as u64),
        })
    }

    /// The packed word held in `slot` with the number of its packing,
    /// if `generation` is current and the table packs.
    #[inline]
    pub(super) fn word_at(&self, slot: usize, generation: u32) -> Option<(u8, u64)> {
        if generation != self.generation() || slot >= self.slots.capacity() {
            return None;
        }
        let e = *self.slots.slot(slot);
        let held = !e.is_vacant() && self.packing.is_some();
        held.then_some((self.packing_id?, e.key()))
    }

    /// `coords` in one word under the current packing, with the number
    /// of that packing, if they fit it.
    #[inline]
    pub(super) fn pack_word(&self, coords: &[i64]) -> Option<(u8, u64)> {
        Some((self.packing_id?, self.packing?.pack(coords)?))
    }

    /// Writes the coordinates of a word from `pack_word` into `coords`.
    #[inline]
    pub(super) fn unpack_word(&self, (id, word): (u8, u64), coords: &mut [i64]) {
        self.packings[id as usize].unpack_into(word, coords);
    }

    /// The place of `coords`: their slot and code, or the vacant slot
    /// an insert of them would take; `None` before the first insert, or
    /// if they do not pack (not stored then).
    #[inline]
    pub(super) fn locate(&self, coords: &[i64]) -> Option<Slot> {
        self.locate_sought(coords, self.sought(coords)?)
    }

    /// Where the lookup of `coords` starts, if they may be stored: good
    /// while the generation stays.
    #[inline]
    pub(super) fn sought(&self, coords: &[i64]) -> Option<Sought> {
        Some(match &self.packing {
            Some(p) => {
                let key = p.pack(coords)?;
                Sought {
                    key,
                    hash: key_hash(key),
                }
            }
            None => Sought {
                key: 0,
                hash: hash(coords),
            },
        })
    }

    /// `locate` from where the lookup of `coords` starts (`sought`, of
    /// this generation).
    #[inline]
    pub(super) fn locate_sought(&self, coords: &[i64], sought: Sought) -> Option<Slot> {
        let found = match &self.packing {
            Some(_) => (self.slots).locate(sought.hash, |e| e.0 >> 8 == sought.key + 1)?,
            None => self.row_of(coords, sought.hash)?,
        };
        Some(match (found, &self.packing) {
            (Ok(i), Some(_)) => Slot::Held(i, self.code_of(*self.slots.slot(i))),
            (Ok(i), None) => {
                let row = self.slots.slot(i).index();
                Slot::Held(i, self.rows[row * (self.n + 1) + self.n] as u64)
            }
            (Err(i), _) => Slot::Vacant(i),
        })
    }

    /// The code stored for `coords`, if any.
    #[inline]
    pub(super) fn get(&self, coords: &[i64]) -> Option<u64> {
        match self.locate(coords)? {
            Slot::Held(_, code) => Some(code),
            Slot::Vacant(_) => None,
        }
    }

    /// The code of a packed slot.
    #[inline]
    fn code_of(&self, e: Entry) -> u64 {
        match e.byte() {
            BIG_BYTE => self.big[&e.key()],
            byte => byte,
        }
    }

    /// The slot of the row of `coords` (`Ok`), or the vacant one ending
    /// their run (`Err`).
    #[inline]
    fn row_of(&self, coords: &[i64], hash: u64) -> Option<Result<usize, usize>> {
        let (t, width) = (tag(hash), self.n + 1);
        // Compared item by item: a call of `memcmp` for one or two
        // coordinates cost more than the comparison.
        let same = |e: &Entry| {
            e.tag() == t && {
                let at = &self.rows[e.index() * width..][..width - 1];
                at.iter().zip(coords).all(|(a, b)| a == b)
            }
        };
        self.slots.locate(hash, same)
    }

    /// Stores `code` in `slot` (held, from `locate` of this generation).
    #[inline]
    pub(super) fn set_at(&mut self, slot: usize, code: u64) {
        if self.packing.is_none() {
            let row = self.slots.slot(slot).index();
            self.rows[row * (self.n + 1) + self.n] = code as i64;
            return;
        }
        let slot = self.slots.slot_mut(slot);
        let key = slot.key();
        let was_big = slot.byte() == BIG_BYTE;
        *slot = Entry::packed(key, code);
        if code >= BIG_BYTE {
            self.big.insert(key, code);
        } else if was_big {
            self.big.remove(&key);
        }
    }

    /// The lookup of `coords` among many in a row: their place at once
    /// (`locate`) if the slots are within the cache, else the slot where
    /// their lookup begins loading and that start (`sought`, `None` if
    /// they do not pack), to be read after the others' loads.
    #[inline]
    pub(super) fn probe(&self, coords: &[i64]) -> Result<Option<Slot>, Option<Sought>> {
        let sought = self.sought(coords);
        match (self.slots.prefetcher(), sought) {
            (None, Some(sought)) => Ok(self.locate_sought(coords, sought)),
            (None, None) => Ok(None),
            (Some(p), sought) => {
                if let Some(s) = sought {
                    p.prefetch(s.hash);
                }
                Err(sought)
            }
        }
    }

    /// Stores `code` for `coords` if they are stored already: their
    /// slot then.
    #[inline]
    pub(super) fn overwrite(&mut self, coords: &[i64], code: u64) -> Option<usize> {
        match self.locate(coords)? {
            Slot::Held(slot, _) => {
                self.set_at(slot, code);
                Some(slot)
            }
            Slot::Vacant(_) => None,
        }
    }

    /// Stores `code` for `coords`, not stored yet (`coords.len()` is the
    /// table's `n`); gives their slot (none if the budget refused the
    /// memory).
    pub(super) fn insert_new(&mut self, coords: &[i64], code: u64) -> Option<usize> {
        debug_assert_eq!(coords.len(), self.n);
        if let Some(packing) = self.packing {
            let packing = match packing.pack(coords) {
                Some(_) => Some(packing),
                None => packing.widened(coords),
            };
            match packing {
                Some(p) => return Some(self.insert_packed(p, coords, code)),
                None => self.turn_to_rows(),
            }
        }
        self.insert_row(coords, code, None)
    }

    /// Stores `code` for `coords`, not stored yet, in the vacant slot
    /// where `locate` of `generation` found them missing, if the table
    /// has not changed since, they pack as the table does (or it keeps
    /// rows) and, packed, the slots need not grow: their slot then, found
    /// without walking the run again. `None`: nothing stored
    /// (`insert_new` does it all).
    #[inline]
    pub(super) fn insert_vacant(
        &mut self,
        coords: &[i64],
        code: u64,
        (slot, generation): (usize, u32),
    ) -> Option<usize> {
        if generation != self.generation() {
            return None;
        }
        let Some(packing) = self.packing else {
            return self.insert_row(coords, code, Some(slot));
        };
        let key = packing.pack(coords)?;
        if !self.slots.put_vacant(slot, Entry::packed(key, code)) {
            return None;
        }
        if code >= BIG_BYTE {
            self.big.insert(key, code);
        }
        self.len += 1;
        Some(slot)
    }

    fn insert_packed(&mut self, packing: Packing, coords: &[i64], code: u64) -> usize {
        if let Some(old) = self.packing.replace(packing) {
            if old.bits != packing.bits {
                self.number_packing();
                self.repack(old);
            }
        }
        let key = packing.pack(coords).expect("widened to hold them");
        if code >= BIG_BYTE {
            self.big.insert(key, code);
        }
        let hash_of = |e: &Entry| key_hash(e.key());
        let (hash, entry) = (key_hash(key), Entry::packed(key, code));
        let at = self.slots.insert_unique(hash, entry, hash_of);
        self.len += 1;
        at.index
    }

    /// Numbers the current packing, while numbers are left.
    fn number_packing(&mut self) {
        self.packing_id = None;
        if let Some(p) = self.packing {
            if self.packings.len() < MAX_PACKINGS {
                self.packings.push(p);
                self.packing_id = Some((self.packings.len() - 1) as u8);
            }
        }
    }

    /// Packs every position again, from `old` to the current packing.
    fn repack(&mut self, old: Packing) {
        let new = self.packing.expect("packed");
        let n = self.n;
        let moved = |e: &Entry| {
            let key = new.pack(&old.unpack(e.key(), n)[..n]).expect("wider");
            (key, e.byte())
        };
        let slots = std::mem::take(&mut self.slots);
        // Places in the old slots stay stale with the new slots' count.
        self.generation = (self.generation + 1).wrapping_add(slots.generation());
        let hash_of = |e: &Entry| key_hash(e.key());
        self.slots.reserve(self.len, hash_of);
        let mut big = FxHashMap::default();
        for e in slots.iter() {
            let (key, byte) = moved(e);
            if byte == BIG_BYTE {
                big.insert(key, self.big[&e.key()]);
            }
            let entry = Entry(e.0 & BIG_BYTE | (key + 1) << 8);
            self.slots.insert_unique(key_hash(key), entry, hash_of);
        }
        self.big = big;
    }

    /// Turns a packed table to rows: a position did not pack.
    fn turn_to_rows(&mut self) {
        let taken: Vec<_> = self.take().collect();
        self.packing = None;
        for (coords, code) in taken {
            self.insert_row(&coords[..self.n], code, None);
        }
    }

    fn insert_row(&mut self, coords: &[i64], code: u64, vacancy: Option<usize>) -> Option<usize> {
        let h = hash(coords);
        let i = self.len;
        let width = self.n + 1;
        if self.rows.capacity() - self.rows.len() < width {
            // Doubling, within the budget; a refused growth stores
            // nothing, and the next budget check stops the search.
            let more = self.rows.capacity().max(16 * width);
            let bytes = 8 * (self.rows.capacity() + more);
            if !crate::budget::may_grow(bytes) || self.rows.try_reserve_exact(more).is_err() {
                crate::budget::refuse_growth(bytes);
                return None;
            }
        }
        self.rows.extend_from_slice(coords);
        self.rows.push(code as i64);
        let rows = &self.rows;
        let hash_of = |e: &Entry| hash(&rows[e.index() * width..][..width - 1]);
        // Into the vacant slot `locate` found (no second walk of the run).
        let entry = Entry::row(h, i);
        let at = match vacancy.filter(|&v| self.slots.put_vacant(v, entry)) {
            Some(v) => v,
            None => self.slots.insert_unique(h, entry, hash_of).index,
        };
        self.len += 1;
        Some(at)
    }

    /// Every stored position: its coordinates (the first `n` of the
    /// array) and its code.
    pub(super) fn entries(&self) -> impl Iterator<Item = ([i64; MAX_COORDS], u64)> + '_ {
        let packed = self.packing.map(|p| {
            let n = self.n;
            self.slots
                .iter()
                .map(move |&e| (p.unpack(e.key(), n), self.code_of(e)))
        });
        let rows = self.packing.is_none().then(|| {
            self.rows.chunks_exact(self.n + 1).map(|row| {
                let mut coords = [0i64; MAX_COORDS];
                coords[..self.n].copy_from_slice(&row[..self.n]);
                (coords, row[self.n] as u64)
            })
        });
        packed
            .into_iter()
            .flatten()
            .chain(rows.into_iter().flatten())
    }

    /// Calls `f` with the coordinates of stored positions until it
    /// gives false.
    pub(super) fn coords_while(&self, mut f: impl FnMut(&[i64]) -> bool) {
        let mut coords = [0i64; MAX_COORDS];
        let coords = &mut coords[..self.n];
        match self.packing {
            Some(p) => self.slots.iter().all(|e| {
                p.unpack_into(e.key(), coords);
                f(coords)
            }),
            None => (self.rows.chunks_exact(self.n + 1)).all(|row| f(&row[..self.n])),
        };
    }

    /// Counts the stored codes below `counts.len()` in `counts` (and
    /// vacant slots under code 0, which is no position's), read without
    /// unpacking the keys; gives the others to `other`.
    pub(super) fn count_codes(&self, counts: &mut [u64], mut other: impl FnMut(u64)) {
        let mut count = |code: u64| match counts.get_mut(code as usize) {
            Some(n) => *n += 1,
            None => other(code),
        };
        match self.packing {
            Some(_) => {
                // Every slot's byte counted with no branch (most slots of
                // a large table are read here, vacant ones too); those
                // of `BIG_BYTE` are the codes `big` holds.
                let mut bytes = [0u64; 256];
                for e in self.slots.all() {
                    bytes[e.byte() as usize] += 1;
                }
                for (byte, n) in bytes.into_iter().enumerate().take(BIG_BYTE as usize) {
                    match counts.get_mut(byte) {
                        Some(c) => *c += n,
                        None => (0..n).for_each(|_| other(byte as u64)),
                    }
                }
                self.big.values().for_each(|&code| other(code));
            }
            None => (self.rows.get(self.n..).unwrap_or_default())
                .iter()
                .step_by(self.n + 1)
                .for_each(|&c| count(c as u64)),
        }
    }

    /// Keeps the positions `keep` accepts (given their coordinates and
    /// code), in place; places found before are stale.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&[i64], u64) -> bool) {
        let n = self.n;
        let Some(packing) = self.packing else {
            // Stored again from the start: packed, if they all pack now.
            for (coords, code) in self.take() {
                if keep(&coords[..n], code) {
                    self.insert_new(&coords[..n], code);
                }
            }
            return;
        };
        let (mut slots, mut big) = (
            std::mem::take(&mut self.slots),
            std::mem::take(&mut self.big),
        );
        slots.retain(
            |&e| {
                let code = match e.byte() {
                    BIG_BYTE => big[&e.key()],
                    byte => byte,
                };
                let kept = keep(&packing.unpack(e.key(), n)[..n], code);
                if !kept && code >= BIG_BYTE {
                    big.remove(&e.key());
                }
                kept
            },
            |e| key_hash(e.key()),
        );
        self.len = slots.len();
        (self.slots, self.big) = (slots, big);
        self.generation = self.generation.wrapping_add(1);
    }

    /// Empties the table, giving what it held (to store again elsewhere);
    /// places found before are stale.
    fn take(&mut self) -> impl Iterator<Item = ([i64; MAX_COORDS], u64)> {
        let mut empty = SparseTable::new(self.n);
        empty.generation = (self.generation + 1).wrapping_add(self.slots.generation());
        // Words packed before still unpack (`unpack_word`).
        empty.packings = std::mem::take(&mut self.packings);
        empty.number_packing();
        let taken = std::mem::replace(self, empty);
        taken.entries().collect::<Vec<_>>().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(t: &mut SparseTable, coords: &[i64], code: u64) {
        if t.overwrite(coords, code).is_none() {
            t.insert_new(coords, code);
        }
    }

    /// `count_codes` counts each stored code once, as `entries` lists
    /// them: those of a byte (but 0, which vacant slots share) in the
    /// counts, the others given one by one.
    fn assert_counted(t: &SparseTable) {
        let mut counts = [0u64; 255];
        let mut others = Vec::new();
        t.count_codes(&mut counts, |c| others.push(c));
        let mut expected = [0u64; 255];
        let mut expected_others = Vec::new();
        for (_, code) in t.entries() {
            match expected.get_mut(code as usize) {
                Some(n) => *n += 1,
                None => expected_others.push(code),
            }
        }
        others.sort_unstable();
        expected_others.sort_unstable();
        assert_eq!(counts[1..], expected[1..]);
        assert_eq!(others, expected_others);
    }

    #[test]
    fn zigzag_codes_round_trip_and_stay_small_for_small_integers() {
        for c in [0i64, 1, -1, 2, -2, 1000, -1000, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(c)), c);
        }
        assert_eq!([0, -1, 1, -2].map(zigzag), [0, 1, 2, 3]);
    }

    #[test]
    fn stores_finds_and_overwrites_keys_packed_and_past_a_byte() {
        let mut t = SparseTable::new(2);
        for x in -500..500i64 {
            insert(&mut t, &[x, x * x], (x + 1000) as u64);
        }
        assert!(t.packing.is_some(), "1000 and 500^2 pack in 30 bits");
        insert(&mut t, &[3, 9], 7);
        assert_eq!(t.get(&[3, 9]), Some(7));
        assert_eq!(t.get(&[-4, 16]), Some(996));
        assert_eq!(t.get(&[3, 10]), None);
        assert_eq!(t.get(&[3, 1 << 40]), None, "outside the packing: absent");
        // A code back below a byte leaves `big`.
        insert(&mut t, &[-4, 16], 12);
        assert_eq!(t.get(&[-4, 16]), Some(12));
        assert_eq!(t.big.len(), 998);
        assert_eq!(t.entries().count(), 1000);
        assert_counted(&t);
        let taken: Vec<_> = t.take().collect();
        assert_eq!(taken.len(), 1000);
        assert!(taken.iter().any(|(c, code)| c[..2] == [3, 9] && *code == 7));
        assert_eq!(t.get(&[3, 9]), None);
    }

    #[test]
    fn places_stay_good_until_the_generation_changes() {
        let mut t = SparseTable::new(2);
        t.insert_new(&[1, 2], 5);
        let Some(Slot::Held(place, 5)) = t.locate(&[1, 2]) else {
            panic!("stored")
        };
        let generation = t.generation();
        // Found missing: stored in the vacant slot found, then held there.
        let Some(Slot::Vacant(vacancy)) = t.locate(&[-1, -2]) else {
            panic!("missing")
        };
        assert_eq!(
            t.insert_vacant(&[-1, -2], 6, (vacancy, generation)),
            Some(vacancy)
        );
        assert_eq!(
            t.insert_vacant(&[1, -2], 6, (vacancy, generation)),
            None,
            "taken"
        );
        assert_eq!(t.locate(&[-1, -2]), Some(Slot::Held(vacancy, 6)));
        assert_eq!(t.generation(), generation, "no wider coordinate, no growth");
        t.set_at(place, 300);
        assert_eq!(t.get(&[1, 2]), Some(300));
        let word = t.pack_word(&[1, 2]).unwrap();
        t.insert_new(&[-70_000, 0], 8);
        assert_ne!(t.generation(), generation, "the first coordinate widened");
        assert_eq!(t.get(&[1, 2]), Some(300));
        let mut coords = [0; 2];
        t.unpack_word(word, &mut coords);
        assert_eq!(coords, [1, 2], "packed before the widening");
        let wider = t.pack_word(&[1, 2]).unwrap();
        assert_ne!(wider.0, word.0);
        // Growth of the slots moves them: a new generation.
        let generation = t.generation();
        for x in 0..100 {
            t.insert_new(&[x, 7], 1);
        }
        assert_ne!(t.generation(), generation, "the slots grew");
        t.insert_new(&[i64::MAX, 0], 9);
        assert!(t.packing.is_none(), "past 55 bits: rows");
        assert_eq!(t.pack_word(&[1, 2]), None);
        t.unpack_word(wider, &mut coords);
        assert_eq!(coords, [1, 2]);
        assert_eq!(t.get(&[1, 2]), Some(300));
        assert_eq!(t.get(&[i64::MAX, 0]), Some(9));
        let Some(Slot::Held(row, 300)) = t.locate(&[1, 2]) else {
            panic!("stored")
        };
        t.set_at(row, 4);
        assert_eq!(t.get(&[1, 2]), Some(4));
        let Some(Slot::Vacant(vacancy)) = t.locate(&[5, 5]) else {
            panic!("missing")
        };
        let generation = t.generation();
        assert_eq!(
            t.insert_vacant(&[5, 5], 3, (vacancy, generation)),
            Some(vacancy)
        );
        assert_eq!(t.locate(&[5, 5]), Some(Slot::Held(vacancy, 3)));
    }

    #[test]
    fn agrees_with_a_map_through_growth_repacking_rows_and_overwrites() {
        // Enough positions to grow the slots many times and pass the size
        // where lookups prefetch; coordinates widening as they come,
        // negative and repeated ones, some keys stored twice, large
        // codes; a last stretch of keys too wide to pack.
        let mut t = SparseTable::new(3);
        let mut map = std::collections::HashMap::new();
        for step in 0..1_200_000u64 {
            // Pseudo-random bits: the table's own hash of the step.
            let x = hash(&[step as i64]);
            let wide = (step as i64) << if step < 1_000_000 { 0 } else { 40 };
            let c = [
                (x >> 40) as i64 % 100 - 50,
                ((x >> 20) as i64 % 1000) * (step as i64 >> 10),
                -wide,
            ];
            let code = if step % 7 == 0 {
                1000 + step
            } else {
                step % 250
            };
            insert(&mut t, &c, code);
            map.insert(c, code);
            let probe = [c[0], c[1] + 1, c[2]];
            let found = match t.probe(&probe) {
                Ok(slot) => slot,
                Err(sought) => sought.and_then(|sought| t.locate_sought(&probe, sought)),
            };
            assert_eq!(found, t.locate(&probe), "{probe:?}");
            assert_eq!(t.get(&probe), map.get(&probe).copied(), "{probe:?}");
            if step == 999_999 {
                assert!(t.packing.is_some());
            }
        }
        assert!(t.packing.is_none());
        assert_eq!(t.len(), map.len());
        assert_counted(&t);
        for (c, &v) in &map {
            assert_eq!(t.get(c), Some(v));
        }
        let mut entries: Vec<_> = t.entries().map(|(c, v)| ([c[0], c[1], c[2]], v)).collect();
        let mut expected: Vec<_> = map.into_iter().collect();
        entries.sort_unstable();
        expected.sort_unstable();
        assert_eq!(entries, expected);
    }

    #[test]
    fn retain_keeps_the_others_packed_or_in_rows_and_packs_again_without_the_wide() {
        for wide in [false, true] {
            let mut t = SparseTable::new(2);
            for x in 0..5000i64 {
                t.insert_new(&[x, -x], (x % 300) as u64);
            }
            if wide {
                t.insert_new(&[1 << 60, 0], 1);
                assert!(t.packing.is_none());
            }
            let generation = t.generation();
            t.retain(|c, code| c[0] % 3 != 0 && c[0] < 1 << 40 && code != 7);
            assert_ne!(t.generation(), generation);
            assert!(t.packing.is_some(), "none too wide is left");
            let kept = |x: i64| x % 3 != 0 && x % 300 != 7;
            for x in 0..5000i64 {
                let code = kept(x).then_some((x % 300) as u64);
                assert_eq!(t.get(&[x, -x]), code, "{x}");
            }
            assert_eq!(t.get(&[1 << 60, 0]), None);
            assert_eq!(t.len(), (0..5000).filter(|&x| kept(x)).count());
            assert_eq!(t.entries().count(), t.len());
            assert_counted(&t);
        }
    }

    #[test]
    fn a_shape_without_coordinates_holds_one_position() {
        let mut t = SparseTable::new(0);
        assert_eq!(t.get(&[]), None);
        insert(&mut t, &[], 5);
        insert(&mut t, &[], 6);
        assert_eq!(t.get(&[]), Some(6));
        assert_eq!(t.take().map(|(_, v)| v).collect::<Vec<_>>(), vec![6]);
    }
}
