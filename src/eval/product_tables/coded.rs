//! One-part keys of small components, kept as unary codes: the sorted
//! components `a_0 <= a_1 <= ...` of a key are the bits `a_i + i` of a
//! u128 (a one-to-one code: the `i`th set bit, less `i`, gives `a_i`).
//! A slot is the code with the value in its top byte: 16 bytes, four to a
//! cache line, where `table::KeyTable` keeps two keys of 32 bytes. An
//! option's code is its parent's with one bit taken out and one or two
//! put in: a few shifts and masks, whatever the number of components.

use super::table::{count_below, header_term, part0_term};
use crate::eval::open_table::{OpenTable, Prefetcher, SlotAt, Vacant};

/// Bits of a code; the slot's top byte holds the value.
const CODE_BITS: u32 = 120;
const CODE_MASK: u128 = (1 << CODE_BITS) - 1;

/// A slot's value byte: a value below these, or one of them.
pub(crate) const ON_PATH_BYTE: u8 = u8::MAX;
/// The value is too large for a byte: it is kept in the hash table of
/// whole keys.
pub(crate) const IN_HASH_BYTE: u8 = u8::MAX - 1;

/// Whether the sorted components of a key whose largest is `max` and
/// number is `len` have a code: the code's top bit is `max + len - 1`.
#[inline]
pub(crate) fn fits(max: u32, len: usize) -> bool {
    len > 0 && max as usize + len <= CODE_BITS as usize
}

/// Builds the code of sorted components given one at a time.
pub(crate) struct Coder {
    code: u128,
    len: u32,
    fits: bool,
}

impl Coder {
    pub(crate) fn new() -> Self {
        Coder {
            code: 0,
            len: 0,
            fits: true,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, atom: u32) {
        match BIT.get(atom as usize + self.len as usize) {
            Some(&bit) => self.code |= bit,
            None => self.fits = false,
        }
        self.len += 1;
    }

    /// The code, if the components fit one (and there is one).
    pub(crate) fn code(&self) -> Option<u128> {
        (self.fits && self.len > 0).then_some(self.code)
    }
}

/// The code of the sorted `atoms`, if they fit one.
pub(crate) fn code_of(atoms: &[u32]) -> Option<u128> {
    let mut coder = Coder::new();
    atoms.iter().for_each(|&a| coder.push(a));
    coder.code()
}

/// The sorted components of `code`.
#[cfg(test)]
fn atoms_of(mut code: u128) -> impl Iterator<Item = u32> {
    (0u32..).map_while(move |i| {
        let bit = (code != 0).then(|| code.trailing_zeros())?;
        code &= code - 1;
        Some(bit - i)
    })
}

/// `BIT[i]`: the bit `i` of a code, read where a shift of a u128 by a
/// variable costs several instructions.
static BIT: [u128; CODE_BITS as usize] = {
    let mut t = [0u128; CODE_BITS as usize];
    let mut i = 0;
    while i < t.len() {
        t[i] = 1 << i;
        i += 1;
    }
    t
};

/// `code` (below bit 127) with a bit put in at `at`: the bits from `at`
/// on move up one (adding them doubles them). `None` past the code's
/// bits.
#[inline(always)]
fn insert(code: u128, at: u32) -> Option<u128> {
    let bit = *BIT.get(at as usize)?;
    Some(code + (code & bit.wrapping_neg()) + bit)
}

/// `code` with its bit `at` taken out: the bits above move down one.
#[inline(always)]
fn take_out(code: u128, at: u32) -> u128 {
    let below = (1u128 << at) - 1;
    (code & below) | (code >> 1) & !below
}

#[derive(Clone, Copy)]
pub(crate) struct CodeSlot(u128);

impl Vacant for CodeSlot {
    /// No code is 0: a key here has a component.
    const VACANT: Self = CodeSlot(0);
    #[inline]
    fn is_vacant(&self) -> bool {
        self.0 == 0
    }
}

/// The codes of one kind and pass counter, with their value bytes.
pub(crate) struct CodeTable {
    slots: OpenTable<CodeSlot>,
    /// The hash term of the keys' header, for a growth's rehash.
    header: u64,
}

impl CodeTable {
    /// The table of one-part keys `[kind, counter, 1, ...]`.
    pub(crate) fn new(kind: u32, counter: u32) -> Self {
        CodeTable {
            slots: OpenTable::default(),
            header: header_term(kind, counter, 1),
        }
    }

    /// The hash of a stored code: `table::key_hash` of its key. A loop
    /// per 64-bit half: a growth decodes every stored code.
    fn hash_of(header: u64, code: u128) -> u64 {
        let (mut h, mut i) = (header, 0u32);
        for (mut half, at) in [(code as u64, 0u32), ((code >> 64) as u64, 64)] {
            while half != 0 {
                h = h.wrapping_add(part0_term(half.trailing_zeros() + at - i));
                half &= half - 1;
                i += 1;
            }
        }
        h
    }

    /// The value byte stored for `code` (hash `hash`).
    #[inline]
    pub(crate) fn get(&self, code: u128, hash: u64) -> Option<u8> {
        let found = (self.slots).find(hash, |s| s.0 & CODE_MASK == code);
        found.map(|s| (s.0 >> CODE_BITS) as u8)
    }

    /// Stores `byte` for `code`, known absent, and gives where.
    pub(crate) fn insert_new(&mut self, code: u128, hash: u64, byte: u8) -> SlotAt {
        let header = self.header;
        let slot = CodeSlot(code | (byte as u128) << CODE_BITS);
        (self.slots).insert_unique(hash, slot, |s| Self::hash_of(header, s.0 & CODE_MASK))
    }

    /// Sets the byte of `code`, stored at `at` unless the slots have moved
    /// since.
    pub(crate) fn set(&mut self, at: SlotAt, code: u128, hash: u64, byte: u8) {
        let slot = CodeSlot(code | (byte as u128) << CODE_BITS);
        match self.slots.at_mut(at) {
            Some(s) => *s = slot,
            None => match (self.slots).find_mut(hash, |s| s.0 & CODE_MASK == code) {
                Some(s) => *s = slot,
                None => {
                    self.insert_new(code, hash, byte);
                }
            },
        }
    }

    pub(crate) fn remove(&mut self, code: u128, hash: u64) {
        let header = self.header;
        let hash_of = |s: &CodeSlot| Self::hash_of(header, s.0 & CODE_MASK);
        (self.slots).remove(hash, |s| s.0 & CODE_MASK == code, hash_of);
    }

    /// Keeps the entries whose value byte `keep` accepts.
    pub(crate) fn retain_bytes(&mut self, keep: impl Fn(u8) -> bool) {
        let header = self.header;
        (self.slots).retain(
            |s| keep((s.0 >> CODE_BITS) as u8),
            |s| Self::hash_of(header, s.0 & CODE_MASK),
        );
    }

    /// The table's slots, used or not.
    pub(crate) fn slots(&self) -> usize {
        self.slots.capacity()
    }

    /// Every stored value byte.
    pub(crate) fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.slots.iter().map(|s| (s.0 >> CODE_BITS) as u8)
    }

    #[inline]
    pub(crate) fn prefetcher(&self) -> Option<Prefetcher<'_>> {
        self.slots.prefetcher()
    }
}

/// A one-part key's code and sorted components, made once per searched
/// position: the probes of each component's options start from it.
#[derive(Clone, Copy)]
pub(crate) struct ParentCode {
    code: u128,
    /// The components, then `u8::MAX` (above every component of a code).
    sorted: [u8; 32],
}

/// The parent code of the sorted components `part`, whose code is
/// `code`, if they fit the sorted bytes.
pub(crate) fn parent_code(code: u128, part: &[u32]) -> Option<ParentCode> {
    if part.len() >= 32 {
        return None;
    }
    let mut sorted = [u8::MAX; 32];
    for (s, &a) in sorted.iter_mut().zip(part) {
        *s = a as u8;
    }
    Some(ParentCode { code, sorted })
}

impl ParentCode {
    /// The probe of the options replacing the component at `skip`.
    pub(crate) fn replacing<'t>(&'t self, table: &'t CodeTable, skip: usize) -> CodedReplacing<'t> {
        let replaced = self.sorted[skip];
        CodedReplacing {
            table,
            rest: take_out(self.code, replaced as u32 + skip as u32),
            sorted: &self.sorted,
            replaced,
        }
    }
}

/// The codes of the options that replace one component of a one-part
/// key, from the code of the other components.
pub(crate) struct CodedReplacing<'t> {
    table: &'t CodeTable,
    rest: u128,
    /// All the parent's components and the one replaced: a place among
    /// the others is one among all, less one if the replaced one is below.
    sorted: &'t [u8; 32],
    replaced: u8,
}

impl CodedReplacing<'_> {
    /// The value byte stored for the option adding the sorted `add` (its
    /// hash `hash`); `None` when this cannot tell (more than two
    /// components added, or an option without a code).
    #[inline]
    pub(crate) fn get(&self, add: &[u32], hash: u64) -> Option<Option<u8>> {
        // The bit of `x` put in among the others: `x` plus the number of
        // them below it.
        let at = |x: u32| {
            let below = count_below(self.sorted, x as u8) - (self.replaced < x as u8) as usize;
            x + below as u32
        };
        // The bits put in are below 120, so none moves past bit 121.
        let code = match *add {
            [] => self.rest,
            [a] if a < CODE_BITS => insert(self.rest, at(a))?,
            // `a <= b`: `a`'s bit goes in below `b`'s.
            [a, b] if b < CODE_BITS => insert(insert(self.rest, at(b))?, at(a))?,
            _ => return None,
        };
        // Neither 0 (no component) nor past the code's bits.
        if code.wrapping_sub(1) >= CODE_MASK {
            return None;
        }
        Some(self.table.get(code, hash))
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::key_hash;
    use super::*;

    #[test]
    fn codes_are_one_to_one_and_decode() {
        // Every sorted multiset of up to 5 components below 9: distinct
        // codes, each decoding to its components.
        let mut seen = std::collections::HashSet::new();
        for k in 1..=5usize {
            let mut atoms = vec![0u32; k];
            loop {
                let code = code_of(&atoms).expect("fits");
                assert_eq!(atoms_of(code).collect::<Vec<_>>(), atoms);
                assert!(seen.insert(code), "{atoms:?}");
                let Some(i) = (0..k).rev().find(|&i| atoms[i] < 8) else {
                    break;
                };
                let v = atoms[i] + 1;
                atoms[i..].iter_mut().for_each(|a| *a = v);
            }
        }
        // The limits: the largest plus the number at most 120.
        assert!(code_of(&[]).is_none());
        assert!(code_of(&[119]).is_some() && fits(119, 1));
        assert!(code_of(&[120]).is_none() && !fits(120, 1));
        assert!(code_of(&[0, 5, 117]).is_some() && fits(117, 3));
        assert!(code_of(&[0, 5, 118]).is_none() && !fits(118, 3));
        assert!(code_of(&[u32::MAX]).is_none());
    }

    #[test]
    fn a_grown_table_keeps_its_values_and_hashes_as_keys_do() {
        let mut t = CodeTable::new(1, 0);
        let keys: Vec<Vec<u32>> = (0..3000u32)
            .map(|i| {
                let mut k: Vec<u32> = (0..1 + i % 9).map(|j| (i * 7 + j * 13) % 50).collect();
                k.sort_unstable();
                k
            })
            .collect();
        let hash = |k: &[u32]| {
            let mut key = vec![1, 0, 1, k.len() as u32];
            key.extend(k);
            key_hash(&key)
        };
        let mut stored = std::collections::HashMap::new();
        for k in &keys {
            let code = code_of(k).expect("fits");
            assert_eq!(CodeTable::hash_of(t.header, code), hash(k));
            if stored.contains_key(k) {
                continue;
            }
            assert_eq!(t.get(code, hash(k)), None);
            let at = t.insert_new(code, hash(k), ON_PATH_BYTE);
            let byte = (stored.len() % 200) as u8;
            t.set(at, code, hash(k), byte);
            stored.insert(k.clone(), byte);
        }
        for (k, &byte) in &stored {
            assert_eq!(t.get(code_of(k).unwrap(), hash(k)), Some(byte), "{k:?}");
        }
        let some = &keys[17];
        t.remove(code_of(some).unwrap(), hash(some));
        assert_eq!(t.get(code_of(some).unwrap(), hash(some)), None);
        assert_eq!(t.bytes().count(), stored.len() - 1);
    }

    proptest::proptest! {
        #[test]
        fn an_option_code_is_the_code_of_the_option(
            part in proptest::collection::vec(0u32..40, 1..31),
            skip_at in 0usize..31,
            add in proptest::collection::vec(0u32..125, 0..3),
        ) {
            let mut part = part;
            part.sort_unstable();
            let mut add = add;
            add.sort_unstable();
            let skip = skip_at % part.len();
            let mut option: Vec<u32> = part.clone();
            option.remove(skip);
            option.extend(&add);
            option.sort_unstable();
            // A table holding the option's code, if it has one.
            let mut t = CodeTable::new(0, 0);
            let code = code_of(&option);
            if let Some(c) = code {
                t.insert_new(c, 5, 9);
            }
            let parent = parent_code(code_of(&part).expect("fits"), &part);
            let parent = parent.expect("short");
            let probe = parent.replacing(&t, skip);
            let got = probe.get(&add, 5);
            // An option without a code lives elsewhere: the probe cannot
            // tell, nor for more than two components added.
            let expected = code.filter(|_| add.len() <= 2).map(|_| Some(9));
            proptest::prop_assert_eq!(got, expected);
        }
    }
}
