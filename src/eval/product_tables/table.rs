//! An exact hash table of compound keys, hashed as multisets.
//!
//! A key's hash is the sum of one mixed term per component (and one for
//! its header), so the hash of an option that replaces one component by
//! others is the parent's hash minus one term plus a few: the search
//! finds an option's slot in O(1), without hashing the option's key. The
//! table is still exact: a slot holds its whole key, inline when it is
//! short and its numbers are small (most keys), otherwise in an arena, and
//! a lookup compares it. A slot is 32 bytes with its value, where a table
//! of boxed keys cost a pointer chase on every hit and about 100 bytes per
//! position.

use crate::eval::open_table::{OpenTable, Prefetcher, SlotAt, Vacant};

/// Numbers of a key a slot holds inline (as bytes).
const INLINE: usize = 23;
/// The first byte of a slot whose key is kept in the arena.
const IN_ARENA: u8 = u8::MAX;
/// A slot's key bytes as little-endian words, so a compare is three.
const WORDS: usize = (1 + INLINE).div_ceil(8);
type Image = [u64; WORDS];

/// Aligned to its size, so that a slot never straddles two cache lines
/// (a large `Vec` from `malloc` starts 16 bytes into a page: half the
/// slots did, and a probe of one waited for a second line the prefetch
/// had not asked for).
#[derive(Clone, Copy)]
#[repr(align(32))]
pub(crate) struct Slot {
    value: u64,
    /// Byte 0: the key's length when inline, else `IN_ARENA`. Then the
    /// key's numbers as bytes (zeros after them), or the arena offset (8
    /// bytes) of `[len, key...]`.
    image: Image,
}

impl Vacant for Slot {
    /// No stored key has length 0.
    const VACANT: Self = Slot {
        value: 0,
        image: [0; WORDS],
    };
    #[inline]
    fn is_vacant(&self) -> bool {
        self.image[0] & 0xFF == 0
    }
}

#[derive(Default)]
pub(crate) struct KeyTable {
    slots: OpenTable<Slot>,
    arena: Vec<u32>,
}

/// Whether a slot's image is `image`, compared word by word in
/// registers: an image just computed compared as one array went through
/// the stack, in stores of 8 and 16 bytes that the compare's wider loads
/// could not take forwarded, a stall on every probe.
#[inline(always)]
fn same_image(stored: &Image, image: Image) -> bool {
    let [a, b, c] = image;
    ((stored[0] ^ a) | (stored[1] ^ b) | (stored[2] ^ c)) == 0
}

/// The image of an inline key from its bytes (length first).
fn image_of(bytes: &[u8; 8 * WORDS]) -> Image {
    let mut image = [0u64; WORDS];
    for (w, chunk) in bytes.chunks_exact(8).enumerate() {
        image[w] = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    image
}

fn bytes_of(image: &Image) -> [u8; 8 * WORDS] {
    let mut bytes = [0u8; 8 * WORDS];
    for (chunk, x) in bytes.chunks_exact_mut(8).zip(image) {
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    bytes
}

/// The image moved one byte down (towards the start), a zero shifted in.
fn shift_down(image: &Image) -> Image {
    let mut out = [0u64; WORDS];
    for w in 0..WORDS {
        out[w] = image[w] >> 8;
        if w + 1 < WORDS {
            out[w] |= image[w + 1] << 56;
        }
    }
    out
}

/// The image moved `lanes` bytes up (towards the end), zeros shifted in.
fn shift_up(image: &Image, lanes: u32) -> Image {
    let mut out = [0u64; WORDS];
    for w in 0..WORDS {
        out[w] = image[w] << (8 * lanes);
        if w > 0 {
            out[w] |= image[w - 1] >> (64 - 8 * lanes);
        }
    }
    out
}

/// A well-mixed term per number (splitmix64's finaliser).
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The hash term of `atom` in the key's part `part`.
pub(crate) fn atom_term(part: usize, atom: u32) -> u64 {
    mix((part as u64) << 32 | atom as u64)
}

/// `atom_term(0, a)` of the atoms a byte holds: a table growth rehashes
/// every stored key, most of them one-part keys of small atoms.
static TERMS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut a = 0;
    while a < 256 {
        t[a] = mix(a as u64);
        a += 1;
    }
    t
};

/// `atom_term(0, atom)`, from a table for the atoms a byte holds.
#[inline]
pub(crate) fn part0_term(atom: u32) -> u64 {
    match TERMS.get(atom as usize) {
        Some(&t) => t,
        None => atom_term(0, atom),
    }
}

/// The hash term of a key's header (its kind, pass counter and parts).
pub(crate) fn header_term(kind: u32, counter: u32, n_parts: u32) -> u64 {
    mix(!((kind as u64) << 40 ^ (counter as u64) << 8 ^ n_parts as u64))
}

/// The hash of a key `[kind, counter, n_parts, (len, atoms...) per part]`:
/// the header's term plus each component's (the lengths follow from the
/// components).
pub(crate) fn key_hash(key: &[u32]) -> u64 {
    hash_of(key)
}

fn hash_of<T: Copy + Into<u32>>(key: &[T]) -> u64 {
    let n = |i: usize| key[i].into();
    let mut h = header_term(n(0), n(1), n(2));
    let mut at = 3;
    for part in 0..n(2) as usize {
        let len = n(at) as usize;
        for i in at + 1..at + 1 + len {
            let term = match TERMS.get(n(i) as usize) {
                Some(&t) if part == 0 => t,
                _ => atom_term(part, n(i)),
            };
            h = h.wrapping_add(term);
        }
        at += 1 + len;
    }
    h
}

impl Slot {
    fn key<'a>(&self, arena: &'a [u32]) -> Stored<'a> {
        let bytes = bytes_of(&self.image);
        if bytes[0] == IN_ARENA {
            let at = u64::from_le_bytes(bytes[1..9].try_into().expect("8 bytes")) as usize;
            let len = arena[at] as usize;
            Stored::Wide(&arena[at + 1..at + 1 + len])
        } else {
            Stored::Bytes(bytes)
        }
    }
}

enum Stored<'a> {
    /// Length, then the numbers.
    Bytes([u8; 8 * WORDS]),
    Wide(&'a [u32]),
}

impl Stored<'_> {
    fn equals(&self, key: &[u32]) -> bool {
        match self {
            Stored::Bytes(b) => {
                let len = b[0] as usize;
                len == key.len() && b[1..=len].iter().zip(key).all(|(&b, &k)| b as u32 == k)
            }
            Stored::Wide(w) => *w == key,
        }
    }

    fn first(&self) -> u32 {
        match self {
            Stored::Bytes(b) => b[1] as u32,
            Stored::Wide(w) => w[0],
        }
    }

    fn hash(&self) -> u64 {
        match self {
            Stored::Bytes(b) => hash_of(&b[1..=b[0] as usize]),
            Stored::Wide(w) => hash_of(w),
        }
    }
}

/// Gives `put` the items of `part` without its item `skip`, merged with
/// the sorted `add`, in order: one walk, for the probes of the search's
/// hot loop and for the keys it builds.
pub(crate) fn merge_without(part: &[u32], skip: usize, add: &[u32], mut put: impl FnMut(u32)) {
    // The next atom of `add` to merge; past its end a sentinel above every
    // atom (atoms are indices of interned positions: far fewer than
    // u32::MAX fit in memory).
    let mut adds = add.iter().copied();
    let mut next_add = adds.next().unwrap_or(u32::MAX);
    for (i, &p) in part.iter().enumerate() {
        if i == skip {
            continue;
        }
        while next_add < p {
            put(next_add);
            next_add = adds.next().unwrap_or(u32::MAX);
        }
        put(p);
    }
    while next_add != u32::MAX {
        put(next_add);
        next_add = adds.next().unwrap_or(u32::MAX);
    }
}

/// The image of `key` if it is kept inline.
fn inline_image(key: &[u32]) -> Option<Image> {
    if key.len() > INLINE {
        return None;
    }
    let mut bytes = [0u8; 8 * WORDS];
    bytes[0] = key.len() as u8;
    let mut small = true;
    for (b, &k) in bytes[1..].iter_mut().zip(key) {
        *b = k as u8;
        small &= k < IN_ARENA as u32;
    }
    small.then(|| image_of(&bytes))
}

/// `BELOW[p]`: the image with its bytes below `p` set; past `WORDS * 8`
/// for a lane no place reaches (an absent addition).
static BELOW: [Image; 8 * WORDS + 3] = {
    let mut t = [[0u64; WORDS]; 8 * WORDS + 3];
    let mut p = 0;
    while p < t.len() {
        let mut lane = 0;
        while lane < p && lane < 8 * WORDS {
            t[p][lane / 8] |= 0xFF << (8 * (lane % 8));
            lane += 1;
        }
        p += 1;
    }
    t
};

/// The lane of the first component in a key's image (length, then the
/// header `[code, counter, 1, len]`).
const FIRST: usize = 5;

/// A one-part key's image and sorted components, made once per searched
/// position: the probes of each component's options start from it.
#[derive(Clone, Copy)]
pub(crate) struct ParentImage {
    image: Image,
    /// The components, then `u8::MAX` (above every inline component),
    /// which ends a scan for a place.
    sorted: [u8; 32],
}

/// The parent image of the one-part key `key` (`[code, counter, 1, len,
/// components...]`), if the key is kept inline.
pub(crate) fn parent_image(key: &[u32]) -> Option<ParentImage> {
    let image = inline_image(key)?;
    let mut sorted = [u8::MAX; 32];
    for (i, &x) in key[FIRST - 1..].iter().enumerate() {
        sorted[i] = x as u8;
    }
    Some(ParentImage { image, sorted })
}

/// How many of the sorted bytes `sorted` are below `x`: with SSE2 (every
/// x86-64 CPU), two compares of 16 bytes and no branch. A scan up to the
/// first byte not below `x` mispredicted its exit on most probes of the
/// search, whose options land anywhere in the order.
#[inline(always)]
pub(super) fn count_below(sorted: &[u8; 32], x: u8) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8, _mm_setzero_si128,
            _mm_subs_epu8,
        };
        // SAFETY: SSE2 is part of x86-64; each load reads 16 bytes inside
        // `sorted` (unaligned loads allowed).
        let mask = unsafe {
            let xs = _mm_set1_epi8(x as i8);
            // `x - y` saturates to 0 exactly where `y >= x`.
            let at_least = |at: usize| {
                let ys = _mm_loadu_si128(sorted.as_ptr().add(at).cast());
                _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(xs, ys), _mm_setzero_si128()))
            };
            at_least(0) as u32 | (at_least(16) as u32) << 16
        };
        // Sorted: the bytes below `x` are the first ones.
        mask.trailing_zeros() as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    sorted.iter().take_while(|&&y| y < x).count()
}

/// The inline keys of the options that replace one component of a
/// one-part key, built by word masks from the parent's image: the parent
/// without that component, at three shifts, is laid out once, and an
/// option adding the sorted `a <= b` takes each byte from the shift its
/// place calls for. No merge, no loop over bytes per option.
pub(crate) struct InlineReplacing<'t> {
    table: &'t KeyTable,
    /// The image of the header and the other components, shifted right by
    /// 0, 1 and 2 lanes (zeros shifted in and past the end).
    shifted: [Image; 3],
    /// All the parent's components (`ParentImage::sorted`) and the one
    /// replaced: a place among the others is one among all, less one if
    /// the replaced one is below.
    sorted: [u8; 32],
    replaced: u8,
    /// The other components' number, and the largest of them.
    n: usize,
    others_max: u32,
}

impl ParentImage {
    /// The probe of the options replacing the component at `skip` (of
    /// `n + 1`) in the table `table`.
    pub(crate) fn replacing<'t>(
        &self,
        table: &'t KeyTable,
        skip: usize,
        n: usize,
    ) -> InlineReplacing<'t> {
        // Lanes from the skipped one on move one down.
        let keep = &BELOW[FIRST + skip];
        let down = shift_down(&self.image);
        let mut base = [0u64; WORDS];
        for w in 0..WORDS {
            base[w] = (self.image[w] & keep[w]) | (down[w] & !keep[w]);
        }
        InlineReplacing {
            table,
            shifted: [base, shift_up(&base, 1), shift_up(&base, 2)],
            sorted: self.sorted,
            replaced: self.sorted[skip],
            n,
            others_max: self.sorted[if skip == n { n - 1 } else { n }] as u32,
        }
    }
}

impl InlineReplacing<'_> {
    /// The largest component of the option adding the sorted `add`, and
    /// its number of components.
    #[inline]
    pub(crate) fn option_shape(&self, add: &[u32]) -> (u32, usize) {
        let max = add
            .last()
            .map_or(self.others_max, |&b| b.max(self.others_max));
        (max, self.n + add.len())
    }

    /// The value stored for the option adding the sorted `add` (its hash
    /// `hash`), as `KeyTable::get` gives it of the option's key; `None` when this
    /// cannot tell (more than two components added, a key not inline).
    #[inline]
    pub(crate) fn get(&self, add: &[u32], hash: u64) -> Option<Option<u64>> {
        // A lane no place reaches stands for an absent addition.
        const NOWHERE: usize = 8 * WORDS + 1;
        let (a, b) = match *add {
            [] => (0, 0),
            [a] => (a, 0),
            [a, b] => (a, b),
            _ => return None,
        };
        let len = self.n + add.len();
        if 4 + len > INLINE || a >= IN_ARENA as u32 || b >= IN_ARENA as u32 {
            return None;
        }
        let place = |x: u32| {
            let x = x as u8;
            FIRST + count_below(&self.sorted, x) - (self.replaced < x) as usize
        };
        let (pa, pb) = match add.len() {
            0 => (NOWHERE, NOWHERE),
            1 => (place(a), NOWHERE),
            // `b` lands one lane further than its place among the others:
            // `a` is before it.
            _ => (place(a), place(b) + 1),
        };
        let splat = |x: u32| (x as u64) * 0x0101_0101_0101_0101;
        let (a, b) = (splat(a), splat(b));
        let [s0, s1, s2] = &self.shifted;
        let (lt_a, le_a, lt_b, le_b) = (&BELOW[pa], &BELOW[pa + 1], &BELOW[pb], &BELOW[pb + 1]);
        let mut image = [0u64; WORDS];
        for w in 0..WORDS {
            image[w] = (s0[w] & lt_a[w])
                | (a & (le_a[w] ^ lt_a[w]))
                | (s1[w] & !le_a[w] & lt_b[w])
                | (b & (le_b[w] ^ lt_b[w]))
                | (s2[w] & !le_b[w]);
        }
        // The length, and the header's count of components.
        image[0] = (image[0] & !0xFF_0000_00FF) | (4 + len) as u64 | (len as u64) << 32;
        let found = (self.table.slots).find(hash, |s| same_image(&s.image, image));
        Some(found.map(|s| s.value))
    }
}

impl KeyTable {
    /// What loads the slot of a hash ahead of its probe, while the table
    /// is past the cache.
    #[inline]
    pub(crate) fn prefetcher(&self) -> Option<Prefetcher<'_>> {
        self.slots.prefetcher()
    }

    /// The value stored for `key`, whose hash is `hash` (`key_hash`).
    pub(crate) fn get(&self, key: &[u32], hash: u64) -> Option<u64> {
        if let Some(image) = inline_image(key) {
            return (self.slots)
                .find(hash, |s| same_image(&s.image, image))
                .map(|s| s.value);
        }
        let arena = &self.arena;
        self.slots
            .find(hash, |s| s.key(arena).equals(key))
            .map(|s| s.value)
    }

    /// Stores `value` for `key`, replacing what was there.
    pub(crate) fn insert(&mut self, key: &[u32], hash: u64, value: u64) {
        let inline = inline_image(key);
        let arena = &self.arena;
        let found = match inline {
            Some(image) => self.slots.find_mut(hash, |s| same_image(&s.image, image)),
            None => self.slots.find_mut(hash, |s| s.key(arena).equals(key)),
        };
        match found {
            Some(s) => s.value = value,
            None => {
                self.insert_absent(key, inline, hash, value);
            }
        }
    }

    /// Stores `value` for `key`, known absent, and gives where: `set`
    /// changes the value there without looking the key up again.
    pub(crate) fn insert_new(&mut self, key: &[u32], hash: u64, value: u64) -> SlotAt {
        self.insert_absent(key, inline_image(key), hash, value)
    }

    fn insert_absent(
        &mut self,
        key: &[u32],
        inline: Option<Image>,
        hash: u64,
        value: u64,
    ) -> SlotAt {
        let image = inline.unwrap_or_else(|| {
            let mut bytes = [0u8; 8 * WORDS];
            bytes[0] = IN_ARENA;
            let at = self.arena.len() as u64;
            bytes[1..9].copy_from_slice(&at.to_le_bytes());
            self.arena.push(key.len() as u32);
            self.arena.extend_from_slice(key);
            image_of(&bytes)
        });
        let slot = Slot { value, image };
        let arena = &self.arena;
        (self.slots).insert_unique(hash, slot, |s| s.key(arena).hash())
    }

    /// Sets the value of `key` (hash `hash`), stored at `at` unless the
    /// slots have moved since.
    pub(crate) fn set(&mut self, at: SlotAt, key: &[u32], hash: u64, value: u64) {
        match self.slots.at_mut(at) {
            Some(s) => s.value = value,
            None => self.insert(key, hash, value),
        }
    }

    /// Forgets `key` (its arena copy, if any, stays until the table is
    /// dropped: removals are rare, after an error).
    pub(crate) fn remove(&mut self, key: &[u32], hash: u64) {
        let arena = &self.arena;
        let hash_of = |s: &Slot| s.key(arena).hash();
        (self.slots).remove(hash, |s| s.key(arena).equals(key), hash_of);
    }

    /// Keeps the entries whose value `keep` accepts (the arena copies of
    /// the others stay, as after `remove`).
    pub(crate) fn retain_values(&mut self, keep: impl Fn(u64) -> bool) {
        let arena = &self.arena;
        (self.slots).retain(|s| keep(s.value), |s| s.key(arena).hash());
    }

    /// The table's slots, used or not.
    pub(crate) fn slots(&self) -> usize {
        self.slots.capacity()
    }

    /// Every stored value with the first number of its key (its kind).
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32, u64)) {
        for s in self.slots.iter() {
            f(s.key(&self.arena).first(), s.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_of_a_multiset_ignores_order_and_updates_by_terms() {
        let a = [1, 0, 1, 3, 5, 2, 9];
        let b = [1, 0, 1, 3, 2, 9, 5];
        assert_eq!(key_hash(&a), key_hash(&b));
        // Replacing 5 by 4 and 4: minus one term, plus two.
        let c = [1, 0, 1, 4, 2, 4, 4, 9];
        let by_terms = key_hash(&a)
            .wrapping_sub(atom_term(0, 5))
            .wrapping_add(atom_term(0, 4))
            .wrapping_add(atom_term(0, 4));
        assert_eq!(key_hash(&c), by_terms);
        // The part a component is in counts.
        assert_ne!(
            key_hash(&[2, 0, 2, 1, 4, 1, 7]),
            key_hash(&[2, 0, 2, 1, 7, 1, 4])
        );
    }

    #[test]
    fn inline_and_arena_keys_keep_their_values_through_growth() {
        let mut t = KeyTable::default();
        let keys: Vec<Vec<u32>> = (0..5000u32)
            .map(|i| {
                let len = (i % 40) as usize;
                let mut k = vec![1, 0, 1, len as u32 + 1];
                // Some keys with large numbers go to the arena.
                k.extend((0..len as u32).map(|j| if i % 7 == 0 { 300 + j } else { j + i % 5 }));
                k.push(i); // makes every key distinct
                k
            })
            .collect();
        let mut pending = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get(k, key_hash(k)), None);
            pending.push((i, t.insert_new(k, key_hash(k), u64::MAX)));
            assert_eq!(t.get(k, key_hash(k)), Some(u64::MAX));
            // Set in batches, as a search settles its path: the table
            // grows (its slots move) between some inserts and their sets.
            if i % 37 == 36 || i + 1 == keys.len() {
                for (j, at) in pending.drain(..).rev() {
                    t.set(at, &keys[j], key_hash(&keys[j]), j as u64);
                }
            }
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get(k, key_hash(k)), Some(i as u64), "{k:?}");
        }
        // A key equal to a stored one but for its last number is absent.
        let mut other = keys[3].clone();
        *other.last_mut().unwrap() = 99_999;
        assert_eq!(t.get(&other, key_hash(&other)), None);
        // A removal moves slots too.
        let at = t.insert_new(&other, key_hash(&other), u64::MAX);
        t.remove(&keys[10], key_hash(&keys[10]));
        t.set(at, &other, key_hash(&other), 7);
        assert_eq!(t.get(&other, key_hash(&other)), Some(7));
        t.remove(&other, key_hash(&other));
        t.remove(&keys[14], key_hash(&keys[14]));
        assert_eq!(t.get(&keys[10], key_hash(&keys[10])), None);
        assert_eq!(t.get(&keys[14], key_hash(&keys[14])), None);
        let mut n = 0;
        t.for_each(|kind, _| {
            assert_eq!(kind, 1);
            n += 1;
        });
        assert_eq!(n, 4998);
    }

    #[test]
    fn a_slot_fills_half_a_cache_line_at_its_start_or_middle() {
        assert_eq!(std::mem::size_of::<Slot>(), 32);
        assert_eq!(std::mem::align_of::<Slot>(), 32);
        let t = vec![Slot::VACANT; 1 << 16];
        assert_eq!(t.as_ptr() as usize % 32, 0);
    }

    #[test]
    fn merging_keeps_order_and_drops_the_moved_component() {
        let mut out = Vec::new();
        merge_without(&[1, 3, 3, 7], 1, &[2, 3, 9], |x| out.push(x));
        assert_eq!(out, [1, 2, 3, 3, 7, 9]);
        out.clear();
        merge_without(&[4], 0, &[], |x| out.push(x));
        assert!(out.is_empty());
        // Against sorting, on every item skipped and additions anywhere.
        let part = [0, 2, 2, 5, 8, 8, 8, 11];
        for skip in 0..part.len() {
            for add in [vec![], vec![0], vec![2, 8], vec![1, 12], vec![8, 8, 8]] {
                out.clear();
                merge_without(&part, skip, &add, |x| out.push(x));
                let mut expected: Vec<u32> = part.to_vec();
                expected.remove(skip);
                expected.extend(&add);
                expected.sort_unstable();
                assert_eq!(out, expected, "skip {skip}, add {add:?}");
            }
        }
    }
}
