//! The memo of compound positions. A one-part key with few components
//! (`pass(A + B + C)`, `misere(A + B)`) goes to a dense table per kind,
//! pass counter and number of components, at the colex rank of its sorted
//! components: options that change one component read nearby entries,
//! with no hashing. Past them, a one-part key of small components goes to
//! a table of unary codes per kind and pass counter (`coded.rs`), and
//! every other key to an exact table hashed as multisets (`table.rs`).
//! Both are hashed alike: callers pass the key's hash, which the search
//! updates per option instead of hashing each option's key.

use super::coded::{self, CodeTable, CodedReplacing, ParentCode, IN_HASH_BYTE, ON_PATH_BYTE};
use super::table::{self, InlineReplacing, KeyTable, ParentImage};
use crate::eval::open_table::{Prefetcher, SlotAt};

/// Components of a key a dense table takes at most.
pub(crate) const DENSE_LEN: usize = 4;
/// Entries a dense table may grow to (4 bytes each).
const DENSE_CAP: u64 = 1 << 24;

/// Dense entries: 0 unknown, 1 on the search path, `v + 2` the value `v`;
/// `IN_HASH`: a value too large, kept in the hash table.
const UNKNOWN: u32 = 0;
const ON_PATH_CODE: u32 = 1;
const IN_HASH: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct ProductMemo {
    /// By `TableId`: a few tables, found by a scan.
    dense: Vec<(TableId, Vec<u32>)>,
    /// By `kind_id`, found by a scan.
    coded: Vec<(u64, CodeTable)>,
    hashed: KeyTable,
}

/// A kind and pass counter as one number.
fn kind_id(code: u32, counter: u32) -> u64 {
    (code as u64) << 32 | counter as u64
}

/// A dense table's kind and pass counter (`kind_id`), and its number of
/// components.
type TableId = (u64, u32);

fn table_id(code: u32, counter: u32, len: usize) -> TableId {
    (kind_id(code, counter), len as u32)
}

/// Where a key lives.
enum Place {
    Dense(TableId, usize),
    /// The code table of a kind (`kind_id`), the key's code.
    Coded(u64, u128),
    Hashed,
}

fn place(key: &[u32]) -> Place {
    // [kind, counter, n_parts, len, atoms...]
    let Some((&[code, counter, 1, len], atoms)) = key.split_first_chunk::<4>() else {
        return Place::Hashed;
    };
    if atoms.len() != len as usize {
        return Place::Hashed;
    }
    if atoms.len() <= DENSE_LEN {
        if let Some(rank) = rank(atoms) {
            return Place::Dense(table_id(code, counter, atoms.len()), rank);
        }
    }
    match coded::code_of(atoms) {
        Some(c) => Place::Coded(kind_id(code, counter), c),
        None => Place::Hashed,
    }
}

/// The value a code table's byte stands for; `in_hash` asks the hash
/// table for a value too large for a byte.
#[inline]
fn byte_value(byte: u8, on_path: u64, in_hash: impl FnOnce() -> Option<u64>) -> Option<u64> {
    match byte {
        ON_PATH_BYTE => Some(on_path),
        IN_HASH_BYTE => in_hash(),
        v => Some(v as u64),
    }
}

/// The rank of sorted components in their dense table; `None` past the
/// cap (the key is then hashed).
#[inline]
fn rank(atoms: &[u32]) -> Option<usize> {
    // Sorted a_1 <= a_2 <= ... map to the strictly increasing b_i = a_i + i;
    // the rank is the sum of C(b_i, i + 1) (the colex rank of a multiset),
    // so every multiset of components below n ranks below C(n + k - 1, k):
    // a table only grows as components are interned.
    // Unrolled: each place reads its own column.
    let rank = match *atoms {
        [] => 0,
        [a] => term(0, a),
        [a, b] => term(0, a) + term(1, b),
        [a, b, c] => term(0, a) + term(1, b) + term(2, c),
        [a, b, c, d] => term(0, a) + term(1, b) + term(2, c) + term(3, d),
        _ => DENSE_CAP,
    };
    (rank < DENSE_CAP).then_some(rank as usize)
}

/// The rank term `C(a + i, i + 1)` of the component `a` at sorted place
/// `i`, from tables that end where the binomials pass the cap (a term past
/// them counts as the cap: the key ranks past it).
#[inline]
fn term(i: usize, a: u32) -> u64 {
    let b = a as usize + i;
    let t = match i {
        0 => return b as u64,
        1 => C2.get(b),
        2 => C3.get(b),
        3 => C4.get(b),
        _ => None,
    };
    t.map_or(DENSE_CAP, |&c| c as u64)
}

/// `C(b, k)` for `b` in `0..N`; `N` is past the first `b` whose
/// `C(b, k)` reaches `DENSE_CAP`, so a larger `b` ranks past the cap.
const fn binomials<const N: usize>(k: u64) -> [u32; N] {
    let mut t = [0u32; N];
    let mut b = 0;
    while b < N {
        let mut c: u64 = 1;
        let mut i = 0;
        while i < k {
            // C(b, i + 1) = C(b, i) * (b - i) / (i + 1), exact at each step.
            c = c * (b as u64).saturating_sub(i) / (i + 1);
            i += 1;
        }
        t[b] = c as u32;
        b += 1;
    }
    t
}

static C2: [u32; 5800] = binomials(2);
static C3: [u32; 520] = binomials(3);
static C4: [u32; 150] = binomials(4);

impl ProductMemo {
    /// The stored value, `Some(on_path)` for a position on the search
    /// path; `hash` is the key's `table::key_hash`.
    pub(crate) fn get(&self, key: &[u32], hash: u64, on_path: u64) -> Option<u64> {
        self.get_lazy(key, || hash, on_path)
    }

    /// `get`, with the hash computed by `hash` only for a key that is
    /// not dense.
    pub(crate) fn get_lazy(
        &self,
        key: &[u32],
        hash: impl FnOnce() -> u64,
        on_path: u64,
    ) -> Option<u64> {
        match place(key) {
            Place::Dense(table, rank) => {
                self.get_dense(table, rank, on_path, || self.hashed.get(key, hash()))
            }
            Place::Coded(kind, code) => {
                let hash = hash();
                let byte = self.code_table(kind)?.get(code, hash)?;
                byte_value(byte, on_path, || self.hashed.get(key, hash))
            }
            Place::Hashed => self.hashed.get(key, hash()),
        }
    }

    /// What `get_lazy` gives the canonical one-part key of `sorted` (its
    /// components, at most `DENSE_LEN`) of kind `code` with `counter`, from
    /// its dense table: `Some(None)` unknown or on the search path; `None`
    /// when that table cannot tell (past its cap, or a value kept in the
    /// hash table), for the key's own way.
    #[inline]
    pub(crate) fn dense_value(
        &self,
        code: u32,
        counter: u32,
        sorted: &[u32],
    ) -> Option<Option<u64>> {
        let rank = rank(sorted)?;
        let table = table_id(code, counter, sorted.len());
        let t = self.dense.iter().find(|(id, _)| *id == table);
        match t.and_then(|(_, t)| t.get(rank)) {
            None | Some(&UNKNOWN) | Some(&ON_PATH_CODE) => Some(None),
            Some(&IN_HASH) => None,
            Some(&code) => Some(Some(code as u64 - 2)),
        }
    }

    /// `dense_value`, the table's place among the dense tables kept in
    /// `table` (`u32::MAX` until it is made): a line of queries asks the
    /// same few tables (`compile/game_plan.rs`, `PlanLine`).
    #[inline]
    pub(crate) fn dense_in(
        &self,
        table: &mut u32,
        code: u32,
        counter: u32,
        sorted: &[u32],
    ) -> Option<Option<u64>> {
        let rank = rank(sorted)?;
        if *table == u32::MAX {
            let id = table_id(code, counter, sorted.len());
            match self.dense.iter().position(|(i, _)| *i == id) {
                Some(i) => *table = i as u32,
                None => return Some(None),
            }
        }
        match self.dense.get(*table as usize)?.1.get(rank) {
            None | Some(&UNKNOWN) | Some(&ON_PATH_CODE) => Some(None),
            Some(&IN_HASH) => None,
            Some(&code) => Some(Some(code as u64 - 2)),
        }
    }

    /// The code table of `kind` (`kind_id`), if it has been made.
    #[inline]
    fn code_table(&self, kind: u64) -> Option<&CodeTable> {
        let t = self.coded.iter().find(|(id, _)| *id == kind);
        t.map(|(_, t)| t)
    }

    /// The entry at `rank` of the dense table `table`; `in_hash` asks the
    /// hash table for a value too large for it.
    #[inline]
    fn get_dense(
        &self,
        table: TableId,
        rank: usize,
        on_path: u64,
        in_hash: impl FnOnce() -> Option<u64>,
    ) -> Option<u64> {
        let t = self.dense.iter().find(|(id, _)| *id == table);
        match t.and_then(|(_, t)| t.get(rank)) {
            None | Some(&UNKNOWN) => None,
            Some(&ON_PATH_CODE) => Some(on_path),
            Some(&IN_HASH) => in_hash(),
            Some(&code) => Some(code as u64 - 2),
        }
    }

    /// The dense table `table`, if it has been made.
    #[inline]
    fn table(&self, table: TableId) -> Option<&[u32]> {
        let t = self.dense.iter().find(|(id, _)| *id == table);
        t.map(|(_, t)| &t[..])
    }

    /// What loads the slot of a hash ahead of its probe, while the table
    /// of the options of a one-part key of `[code, counter]` (`parent` its
    /// `parent`) is past the cache.
    #[inline]
    pub(crate) fn prefetcher(
        &self,
        [code, counter]: [u32; 2],
        parent: Option<&Parent>,
    ) -> Option<Prefetcher<'_>> {
        match parent {
            Some(Parent::Coded(_)) => self.code_table(kind_id(code, counter))?.prefetcher(),
            _ => self.hashed.prefetcher(),
        }
    }

    /// What the probes of the options of the one-part key `key` start
    /// from when they are past the dense tables (`replacing`); `code` is
    /// the key's code if it has one (`Mark::code`).
    pub(crate) fn parent(&self, key: &[u32], code: Option<u128>) -> Option<Parent> {
        if key.len() <= 4 + DENSE_LEN {
            return None;
        }
        match code {
            Some(code) => coded::parent_code(code, &key[4..]).map(Parent::Coded),
            None => table::parent_image(key).map(Parent::Inline),
        }
    }

    /// The tables the options of the components of the one-part key
    /// `[code, counter, 1, n + 1]` are read from (`parent` its `parent`),
    /// found once for all its components (`Probes::replacing`).
    #[inline]
    pub(crate) fn probes<'a>(
        &'a self,
        [code, counter]: [u32; 2],
        n: usize,
        parent: Option<&'a Parent>,
    ) -> Probes<'a> {
        if n < DENSE_LEN {
            return Probes::Dense {
                fewer: self.table(table_id(code, counter, n)),
                same: self.table(table_id(code, counter, n + 1)),
                more: (n + 2 <= DENSE_LEN)
                    .then(|| self.table(table_id(code, counter, n + 2)))
                    .flatten(),
                coded: self.code_table(kind_id(code, counter)),
            };
        }
        match parent {
            Some(Parent::Inline(p)) => Probes::Hashed(&self.hashed, p),
            Some(Parent::Coded(p)) => match self.code_table(kind_id(code, counter)) {
                Some(t) => Probes::Coded(t, p),
                None => Probes::None,
            },
            None => Probes::None,
        }
    }

    /// Marks `key`, known absent, as on the search path, and gives where:
    /// `settle` stores its value there without looking it up again.
    pub(crate) fn mark_on_path(&mut self, key: &[u32], hash: u64, on_path: u64) -> Mark {
        match place(key) {
            Place::Dense(table, rank) => {
                let table = self.dense_index(table);
                self.set_dense(table, rank, key, hash, on_path, on_path);
                Mark::Dense { table, rank }
            }
            Place::Coded(kind, code) => {
                let table = self.code_index(kind);
                let at = self.coded[table].1.insert_new(code, hash, ON_PATH_BYTE);
                Mark::Coded { table, code, at }
            }
            Place::Hashed => Mark::Hashed(self.hashed.insert_new(key, hash, on_path)),
        }
    }

    /// Stores the value `v` of `key`, marked at `mark`.
    pub(crate) fn settle(&mut self, mark: Mark, key: &[u32], hash: u64, v: u64, on_path: u64) {
        match mark {
            Mark::Dense { table, rank } => self.set_dense(table, rank, key, hash, v, on_path),
            Mark::Coded { table, code, at } => {
                let byte = if v < IN_HASH_BYTE as u64 {
                    v as u8
                } else {
                    self.hashed.insert(key, hash, v);
                    IN_HASH_BYTE
                };
                self.coded[table].1.set(at, code, hash, byte);
            }
            Mark::Hashed(at) => self.hashed.set(at, key, hash, v),
        }
    }

    /// The index of the code table of `kind`, made empty if new.
    fn code_index(&mut self, kind: u64) -> usize {
        match self.coded.iter().position(|(id, _)| *id == kind) {
            Some(i) => i,
            None => {
                let code_table = CodeTable::new((kind >> 32) as u32, kind as u32);
                self.coded.push((kind, code_table));
                self.coded.len() - 1
            }
        }
    }

    /// The index of the dense table `table`, made empty if new.
    fn dense_index(&mut self, table: TableId) -> usize {
        match self.dense.iter().position(|(id, _)| *id == table) {
            Some(i) => i,
            None => {
                self.dense.push((table, Vec::new()));
                self.dense.len() - 1
            }
        }
    }

    /// Stores `v` for `key` at `rank` of the dense table at `table` (a
    /// value too large for it in the hash table).
    fn set_dense(
        &mut self,
        table: usize,
        rank: usize,
        key: &[u32],
        hash: u64,
        v: u64,
        on_path: u64,
    ) {
        let code = if v == on_path {
            ON_PATH_CODE
        } else if v < (IN_HASH - 2) as u64 {
            v as u32 + 2
        } else {
            self.hashed.insert(key, hash, v);
            IN_HASH
        };
        let t = &mut self.dense[table].1;
        if t.len() <= rank {
            let len = (rank + 1).next_power_of_two();
            let more = len - t.len();
            // A growth the budget or the system refuses stores nothing:
            // the next budget check stops the search.
            if !crate::budget::may_grow(4 * len) || t.try_reserve_exact(more).is_err() {
                crate::budget::refuse_growth(4 * len);
                return;
            }
            t.resize(len, UNKNOWN);
        }
        t[rank] = code;
    }

    pub(crate) fn remove(&mut self, key: &[u32], hash: u64) {
        match place(key) {
            Place::Dense(table, rank) => {
                let t = self.dense.iter_mut().find(|(id, _)| *id == table);
                if let Some(e) = t.and_then(|(_, t)| t.get_mut(rank)) {
                    *e = UNKNOWN;
                }
            }
            Place::Coded(kind, code) => {
                if let Some((_, t)) = self.coded.iter_mut().find(|(id, _)| *id == kind) {
                    t.remove(code, hash);
                }
            }
            Place::Hashed => {}
        }
        self.hashed.remove(key, hash);
    }

    /// Forgets every position marked on a search path (stored as
    /// `on_path`), in one sweep of the tables.
    pub(crate) fn forget_marks(&mut self, on_path: u64) {
        for (_, t) in &mut self.dense {
            t.iter_mut()
                .filter(|e| **e == ON_PATH_CODE)
                .for_each(|e| *e = UNKNOWN);
        }
        for (_, t) in &mut self.coded {
            t.retain_bytes(|b| b != ON_PATH_BYTE);
        }
        self.hashed.retain_values(|v| v != on_path);
    }

    /// The entries of every table, used or not.
    pub(crate) fn slots(&self) -> usize {
        let dense: usize = self.dense.iter().map(|(_, t)| t.len()).sum();
        let coded: usize = self.coded.iter().map(|(_, t)| t.slots()).sum();
        dense + coded + self.hashed.slots()
    }

    /// Every stored value (not on the path) with the kind of its key.
    pub(crate) fn for_each_value(&self, mut f: impl FnMut(u32, u64)) {
        for ((kind, _), t) in &self.dense {
            let kind = (*kind >> 32) as u32;
            for &code in t {
                if code != UNKNOWN && code != ON_PATH_CODE && code != IN_HASH {
                    f(kind, code as u64 - 2);
                }
            }
        }
        for (kind, t) in &self.coded {
            let kind = (*kind >> 32) as u32;
            for byte in t.bytes() {
                if byte != ON_PATH_BYTE && byte != IN_HASH_BYTE {
                    f(kind, byte as u64);
                }
            }
        }
        self.hashed.for_each(f);
    }
}

/// Where a position marked on the search path is stored.
#[derive(Clone, Copy)]
pub(crate) enum Mark {
    Dense {
        table: usize,
        rank: usize,
    },
    Coded {
        table: usize,
        code: u128,
        at: SlotAt,
    },
    Hashed(SlotAt),
}

impl Mark {
    /// The code of the key marked, if it has one.
    pub(crate) fn code(&self) -> Option<u128> {
        match self {
            Mark::Coded { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Where the probes of a one-part key's options start from, past the
/// dense tables: its code, or its inline image.
#[derive(Clone, Copy)]
pub(crate) enum Parent {
    Coded(ParentCode),
    Inline(ParentImage),
}

/// The options of one component of a one-part key, read without building
/// their keys: by rank arithmetic in the dense tables while the keys are
/// short, by codes or inline key images past them. The search walks a
/// component's options with the probe inside (`OptionProbe`): a loop
/// for each kind of probe.
pub(crate) enum Replacing<'m> {
    Dense(DenseReplacing<'m>),
    Coded(CodedProbe<'m>),
    Hashed(HashedProbe<'m>),
}

/// Reads the memo for the options of one component of a one-part key.
pub(crate) trait OptionProbe {
    /// The memo's answer for the option adding the sorted `add` (hash
    /// `hash`), as `ProductMemo::get` gives it of the option's key; `None`
    /// when this cannot tell: the caller builds the key and asks `get`.
    fn get(&self, add: &[u32], hash: u64, on_path: u64) -> Option<Option<u64>>;
}

/// No probe: every option's key is built and asked of `get`.
pub(crate) struct NoProbe;

impl OptionProbe for NoProbe {
    #[inline]
    fn get(&self, _: &[u32], _: u64, _: u64) -> Option<Option<u64>> {
        None
    }
}

/// The search walks each kind of probe with its own loop; the tests ask
/// any.
#[cfg(test)]
impl OptionProbe for Replacing<'_> {
    fn get(&self, add: &[u32], hash: u64, on_path: u64) -> Option<Option<u64>> {
        match self {
            Replacing::Dense(p) => p.get(add, hash, on_path),
            Replacing::Coded(p) => p.get(add, hash, on_path),
            Replacing::Hashed(p) => p.get(add, hash, on_path),
        }
    }
}

/// Where the options of a one-part key's components are read: the dense
/// tables of one component fewer, as many and one more, the code table
/// and the key's code, the hash table and the key's image, or nowhere.
pub(crate) enum Probes<'a> {
    Dense {
        fewer: Option<&'a [u32]>,
        same: Option<&'a [u32]>,
        more: Option<&'a [u32]>,
        coded: Option<&'a CodeTable>,
    },
    Coded(&'a CodeTable, &'a ParentCode),
    Hashed(&'a KeyTable, &'a ParentImage),
    None,
}

impl<'a> Probes<'a> {
    /// The probe of the options that replace the item `skip` of `part`
    /// (`Replacing`); `None` when they are neither in the dense tables
    /// nor codes nor inline keys.
    #[inline]
    pub(crate) fn replacing(&self, part: &[u32], skip: usize) -> Option<Replacing<'a>> {
        let n = part.len() - 1;
        let (fewer, same, more, coded) = match *self {
            Probes::Dense {
                fewer,
                same,
                more,
                coded,
            } => (fewer, same, more, coded),
            Probes::Coded(t, p) => {
                let probe = p.replacing(t, skip);
                return Some(Replacing::Coded(CodedProbe { probe, n }));
            }
            Probes::Hashed(t, p) => {
                return Some(Replacing::Hashed(HashedProbe(p.replacing(t, skip, n))))
            }
            Probes::None => return None,
        };
        let mut r = DenseReplacing {
            rest: [0; DENSE_LEN],
            n,
            before: [0; DENSE_LEN + 1],
            after: [0; DENSE_LEN + 1],
            fewer,
            same,
            more,
            coded,
        };
        for (i, &a) in part.iter().enumerate() {
            if i != skip {
                let j = i - (i > skip) as usize;
                r.rest[j] = a;
            }
        }
        for i in 0..n {
            r.before[i + 1] = r.before[i] + term(i, r.rest[i]);
        }
        for i in (0..n).rev() {
            r.after[i] = r.after[i + 1] + term(i + 1, r.rest[i]);
        }
        Some(Replacing::Dense(r))
    }
}

/// Options with codes. `n`: the other components' number (past
/// `DENSE_LEN` but for an option that only drops one, which the caller
/// asks `get` with the key built).
pub(crate) struct CodedProbe<'m> {
    probe: CodedReplacing<'m>,
    n: usize,
}

impl OptionProbe for CodedProbe<'_> {
    #[inline]
    fn get(&self, add: &[u32], hash: u64, on_path: u64) -> Option<Option<u64>> {
        if self.n + add.len() <= DENSE_LEN {
            return None;
        }
        match self.probe.get(add, hash)? {
            None => Some(None),
            Some(IN_HASH_BYTE) => None,
            Some(byte) => Some(byte_value(byte, on_path, || None)),
        }
    }
}

/// Options with inline keys in the hash table.
pub(crate) struct HashedProbe<'m>(InlineReplacing<'m>);

impl OptionProbe for HashedProbe<'_> {
    #[inline]
    fn get(&self, add: &[u32], hash: u64, _: u64) -> Option<Option<u64>> {
        let (max, len) = self.0.option_shape(add);
        // An option of the dense tables, or one that has a code, is not in
        // the hash table.
        if len <= DENSE_LEN || coded::fits(max, len) {
            return None;
        }
        self.0.get(add, hash)
    }
}

/// `Canonical::singles` of an option that drops the component, and of
/// one that adds more than one (no atom reaches these ids: the atoms
/// would fill memory first).
const DROPS: u32 = u32::MAX - 1;
const SEVERAL: u32 = u32::MAX;

/// An option's atoms as one number: its atom when it has one, else
/// `DROPS` or `SEVERAL`.
pub(crate) fn single(option: &[u32]) -> u32 {
    match *option {
        [] => DROPS,
        [a] => a,
        _ => SEVERAL,
    }
}

/// The other components of a one-part key, fixed while the options of
/// one component are read: the option that puts `x` at sorted place `p`
/// ranks at `before[p] + term(p, x) + after[p]`, one that drops the
/// component at `before[n]`. No key is merged, no rank summed per option.
pub(crate) struct DenseReplacing<'m> {
    rest: [u32; DENSE_LEN],
    n: usize,
    /// `before[p]`: the terms of `rest[..p]` in place; `after[p]`: those of
    /// `rest[p..]` one place further.
    before: [u64; DENSE_LEN + 1],
    after: [u64; DENSE_LEN + 1],
    /// The tables of `n`, `n + 1` and `n + 2` components, if made, and
    /// the code table (for a split past them).
    fewer: Option<&'m [u32]>,
    same: Option<&'m [u32]>,
    more: Option<&'m [u32]>,
    coded: Option<&'m CodeTable>,
}

/// `C(b, i + 1)` by the place `i` of a component past the first: the
/// rank term of `a` at place `i` is `COLUMNS[i - 1][a + i]` (`term`).
static COLUMNS: [&[u32]; DENSE_LEN - 1] = [&C2, &C3, &C4];

impl DenseReplacing<'_> {
    /// Pushes the values of the options `next..` (each as one number,
    /// `Canonical::singles`) while each drops the component or replaces
    /// it by one and its entry holds a value, and leaves `*next` at the
    /// first it cannot tell (for `get` and the key built). The added
    /// component's sorted place is the number of the others below it,
    /// compared with them padded by `u32::MAX`, its rank that place's
    /// offset plus the term read from its column: no key, no hash, no
    /// merge. Kept out of line and short, its state in registers: a loop
    /// over the packed option lists that carried the place from option to
    /// option spilled a dozen values to the stack, about 55 instructions
    /// an option.
    #[inline(never)]
    pub(crate) fn push_known(&self, singles: &[u32], next: &mut usize, values: &mut Vec<u64>) {
        let n = self.n;
        let same = self.same.unwrap_or(&[]);
        let dropped = (self.fewer)
            .and_then(|t| t.get(usize::try_from(self.before[n]).ok()?))
            .map_or(UNKNOWN, |&c| c);
        let mut bound = [u32::MAX; DENSE_LEN - 1];
        bound[..n].copy_from_slice(&self.rest[..n]);
        let off: [u64; DENSE_LEN] = std::array::from_fn(|p| self.before[p] + self.after[p]);
        let from = *next;
        let todo = singles.get(from..).unwrap_or_default();
        values.reserve(todo.len());
        let spare = &mut values.spare_capacity_mut()[..todo.len()];
        let mut pushed = 0;
        for (&x, out) in todo.iter().zip(spare) {
            let code = if x < DROPS {
                let p = bound.iter().map(|&b| (x > b) as usize).sum::<usize>();
                let term = match p {
                    0 => x as u64,
                    _ => (COLUMNS[p - 1].get(x as usize + p)).map_or(DENSE_CAP, |&c| c as u64),
                };
                same.get((off[p] + term) as usize).map_or(UNKNOWN, |&c| c)
            } else if x == DROPS {
                dropped
            } else {
                break;
            };
            // Unknown, on the path and kept in the hash table wrap past
            // every value.
            let v = code.wrapping_sub(2);
            if v >= IN_HASH - 2 {
                break;
            }
            out.write(v as u64);
            pushed += 1;
        }
        // SAFETY: the first `pushed` slots of the spare capacity were
        // just written.
        unsafe { values.set_len(values.len() + pushed) };
        *next = from + pushed;
    }
}

impl OptionProbe for DenseReplacing<'_> {
    /// Cannot tell for an option adding more than two components, a key
    /// past the cap or without a code, or a value kept in the hash table.
    /// An option adding two (a split, Kayles' `K(a) + K(b)`) is put in
    /// place among the others, with no key built: ranked while it stays
    /// dense, its code read from the code table past them.
    #[inline]
    fn get(&self, add: &[u32], hash: u64, on_path: u64) -> Option<Option<u64>> {
        let n = self.n;
        let (rank, table) = match *add {
            [] => (self.before[n], self.fewer),
            [x] => {
                let p = self.rest[..n].iter().filter(|&&a| a < x).count();
                (self.before[p] + term(p, x) + self.after[p], self.same)
            }
            [x, y] => {
                let mut atoms = [0u32; DENSE_LEN + 1];
                atoms[..n].copy_from_slice(&self.rest[..n]);
                for (len, a) in [(n, x), (n + 1, y)] {
                    let mut j = len;
                    while j > 0 && atoms[j - 1] > a {
                        atoms[j] = atoms[j - 1];
                        j -= 1;
                    }
                    atoms[j] = a;
                }
                let atoms = &atoms[..n + 2];
                if n + 2 > DENSE_LEN {
                    return match self.coded?.get(coded::code_of(atoms)?, hash) {
                        Some(IN_HASH_BYTE) => None,
                        byte => {
                            Some(byte.map(|b| byte_value(b, on_path, || None).unwrap_or(on_path)))
                        }
                    };
                }
                (rank(atoms)? as u64, self.more)
            }
            _ => return None,
        };
        if rank >= DENSE_CAP {
            return None;
        }
        Some(match table.and_then(|t| t.get(rank as usize)) {
            None | Some(&UNKNOWN) => None,
            Some(&ON_PATH_CODE) => Some(on_path),
            Some(&IN_HASH) => return None,
            Some(&code) => Some(code as u64 - 2),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::key_hash;
    use super::*;

    /// The one-part key `[0, 1, 1, len, part...]`.
    fn key(part: &[u32]) -> Vec<u32> {
        let mut key = vec![0, 1, 1, part.len() as u32];
        key.extend(part);
        key
    }

    /// Stores `v` for the absent `key` as the search does: marked on the
    /// path, then settled.
    fn store(memo: &mut ProductMemo, key: &[u32], v: u64, on_path: u64) {
        let mark = memo.mark_on_path(key, key_hash(key), on_path);
        memo.settle(mark, key, key_hash(key), v, on_path);
    }

    /// The key of the option of `part` that replaces its item `skip` by
    /// `add`.
    fn replaced(part: &[u32], skip: usize, add: &[u32]) -> Vec<u32> {
        let mut k = part.to_vec();
        k.remove(skip);
        k.extend(add);
        k.sort_unstable();
        key(&k)
    }

    /// Checks every option (each item of each part replaced by each of
    /// `adds`): the `replacing` probe, where it can tell, reads what `get`
    /// reads of the key built. Returns how many the probe told.
    fn probes_agree(
        memo: &ProductMemo,
        parts: &[Vec<u32>],
        adds: &[&[u32]],
        on_path: u64,
    ) -> usize {
        let mut fast = 0;
        for p in parts {
            for skip in 0..p.len() {
                let k = key(p);
                let code = match place(&k) {
                    Place::Coded(_, code) => Some(code),
                    _ => None,
                };
                let parent = memo.parent(&k, code);
                let r = memo
                    .probes([0, 1], p.len() - 1, parent.as_ref())
                    .replacing(p, skip);
                for &add in adds {
                    let k = replaced(p, skip, add);
                    let hash = key_hash(&k);
                    let general = memo.get(&k, hash, on_path);
                    if let Some(v) = r.as_ref().and_then(|r| r.get(add, hash, on_path)) {
                        assert_eq!(v, general, "{p:?} {skip} {add:?}");
                        fast += 1;
                    }
                }
            }
        }
        fast
    }

    #[test]
    fn ranks_are_one_to_one_on_sorted_multisets() {
        // Every sorted multiset of up to 4 components below 12: distinct
        // ranks, and those of k components below n fill 0..C(n + k - 1, k).
        for k in 0..=4usize {
            let mut ranks = Vec::new();
            let mut atoms = vec![0u32; k];
            loop {
                let Place::Dense(_, rank) = place(&key(&atoms)) else {
                    panic!("{atoms:?} not dense");
                };
                ranks.push(rank);
                // Next sorted multiset, in lexicographic order.
                let Some(i) = (0..k).rev().find(|&i| atoms[i] < 11) else {
                    break;
                };
                let v = atoms[i] + 1;
                atoms[i..].iter_mut().for_each(|a| *a = v);
            }
            ranks.sort_unstable();
            let expected: Vec<usize> = (0..ranks.len()).collect();
            assert_eq!(ranks, expected, "k = {k}");
        }
    }

    /// Every sorted multiset of up to 5 components below 9 (those of 5
    /// coded, a split of 4 reads them; and a few large ones, hashed), some
    /// valued, some on the path, one with a value too large for a dense
    /// table: the memo, and the parts.
    fn small_parts_stored(on_path: u64) -> (ProductMemo, Vec<Vec<u32>>) {
        let mut memo = ProductMemo::default();
        let mut parts: Vec<Vec<u32>> = vec![vec![3, 70_000], vec![1, 2, 3_000_000]];
        for k in 0..=DENSE_LEN + 1 {
            let mut atoms = vec![0u32; k];
            loop {
                parts.push(atoms.clone());
                let Some(i) = (0..k).rev().find(|&i| atoms[i] < 8) else {
                    break;
                };
                let v = atoms[i] + 1;
                atoms[i..].iter_mut().for_each(|a| *a = v);
            }
        }
        for (i, p) in parts.iter().enumerate() {
            let k = key(p);
            let v = match i % 5 {
                0 => continue,
                1 => on_path,
                2 if i % 7 == 0 => u64::from(u32::MAX) + 5,
                _ => i as u64,
            };
            store(&mut memo, &k, v, on_path);
        }
        (memo, parts)
    }

    #[test]
    fn dense_in_reads_what_get_reads_with_its_table_found_once() {
        // Every stored part of up to 4 components (valued, on the path,
        // too large for a dense entry, missing), asked with one table
        // place kept per number of components across all of them, as a
        // line of queries keeps it: a value where `get` has one, unknown
        // where it has none or the part is on the path, and `None` (the
        // key's own way) only past the cap or where the entry is kept in
        // the hash table.
        let on_path = u64::MAX;
        let (memo, parts) = small_parts_stored(on_path);
        let mut tables = [u32::MAX; DENSE_LEN + 1];
        let mut told = 0;
        for p in parts.iter().filter(|p| p.len() <= DENSE_LEN) {
            let k = key(p);
            let general = memo.get(&k, key_hash(&k), on_path);
            match memo.dense_in(&mut tables[p.len()], 0, 1, p) {
                Some(Some(v)) => {
                    assert_eq!(Some(v), general, "{p:?}");
                    told += 1;
                }
                Some(None) => assert!(matches!(general, None | Some(u64::MAX)), "{p:?}"),
                None => {
                    let past_cap = !matches!(place(&k), Place::Dense(..));
                    let large = general.is_some_and(|v| v > u64::from(u32::MAX));
                    assert!(past_cap || large, "{p:?}");
                }
            }
        }
        assert!(told > 300, "{told}");
        // A table not made yet tells nothing and is looked for again.
        let mut none = u32::MAX;
        assert_eq!(memo.dense_in(&mut none, 2, 0, &[1, 2]), Some(None));
        assert_eq!(none, u32::MAX);
    }

    #[test]
    fn replacing_reads_what_get_reads_of_the_key_built() {
        let on_path = u64::MAX;
        let (memo, parts) = small_parts_stored(on_path);
        let adds: [&[u32]; 6] = [&[], &[0], &[4], &[8], &[2, 5], &[9]];
        let nonempty: Vec<Vec<u32>> = parts.into_iter().filter(|p| !p.is_empty()).collect();
        let fast = probes_agree(&memo, &nonempty, &adds, on_path);
        assert!(fast > 1000, "{fast}");
        // A split of four components leaves five: read by its code.
        let fours: Vec<Vec<u32>> = nonempty.into_iter().filter(|p| p.len() == 4).collect();
        let splits = probes_agree(&memo, &fours, &[&[2, 5], &[0, 8]], on_path);
        assert!(splits > 500, "{splits}");
    }

    #[test]
    fn pushed_values_are_what_get_reads_up_to_the_first_it_cannot_tell() {
        // Options in descending order (a heap's), ascending, and mixed,
        // with drops, pairs, and components past the binomial columns; each
        // walk resumed after each stop, as the search resumes it.
        let on_path = u64::MAX;
        let (memo, parts) = small_parts_stored(on_path);
        let orders: [&[&[u32]]; 3] = [
            &[&[8], &[7], &[6], &[5], &[4], &[3], &[2], &[1], &[0], &[]],
            &[
                &[],
                &[0],
                &[1],
                &[2],
                &[2, 5],
                &[3],
                &[6],
                &[8],
                &[9],
                &[70_000],
            ],
            &[
                &[4],
                &[0],
                &[8],
                &[3_000_000],
                &[1],
                &[7],
                &[],
                &[5],
                &[2],
                &[6],
            ],
        ];
        let (mut told, mut stops) = (0, 0);
        for options in orders {
            let singles: Vec<u32> = options.iter().map(|o| single(o)).collect();
            for p in parts
                .iter()
                .filter(|p| !p.is_empty() && p.len() <= DENSE_LEN)
            {
                for skip in 0..p.len() {
                    let probes = memo.probes([0, 1], p.len() - 1, None);
                    let Some(Replacing::Dense(r)) = probes.replacing(p, skip) else {
                        panic!("{p:?} not dense");
                    };
                    let read = |i: usize| {
                        let add = options[i];
                        let hash = key_hash(&replaced(p, skip, add));
                        memo.get(&replaced(p, skip, add), hash, on_path)
                    };
                    let mut next = 0;
                    while next < options.len() {
                        let (from, mut values) = (next, Vec::new());
                        r.push_known(&singles, &mut next, &mut values);
                        let general: Vec<u64> = (from..next).map(|i| read(i).unwrap()).collect();
                        assert_eq!(values, general, "{p:?} {skip} from {from}");
                        assert!(!values.contains(&on_path), "{p:?} {skip}");
                        told += values.len();
                        if next < options.len() {
                            // The probe tells no value there either, but
                            // for a split, left to the probe, which reads
                            // what `get` reads.
                            let hash = key_hash(&replaced(p, skip, options[next]));
                            let v = r.get(options[next], hash, on_path);
                            match options[next].len() {
                                2 => assert!(v.is_none_or(|v| v == read(next)), "{p:?} {skip}"),
                                _ => assert!(
                                    !matches!(v, Some(Some(v)) if v != on_path),
                                    "{p:?} {skip}"
                                ),
                            }
                            (next, stops) = (next + 1, stops + 1);
                        }
                    }
                }
            }
        }
        assert!(told > 1000 && stops > 1000, "{told} {stops}");
    }

    #[test]
    fn probes_past_the_dense_tables_read_what_get_reads() {
        // Parts of 5 to 24 components (up to past the inline keys), with
        // repeats, some with a number too large for a byte, some with one
        // on either side of the codes' limit; options adding none, one or
        // two components anywhere in the order, some crossing the limit
        // either way.
        let on_path = u64::MAX;
        let mut memo = ProductMemo::default();
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for len in 5..=24u32 {
            for seed in 0..6u32 {
                let mut p: Vec<u32> = (0..len).map(|i| (i * 7 + seed * 13) % 40).collect();
                if seed == 4 {
                    p[0] = 100 + 2 * len;
                }
                if seed == 5 {
                    p[0] = 300 + len;
                }
                p.sort_unstable();
                parts.push(p);
            }
        }
        let adds: [&[u32]; 9] = [
            &[],
            &[0],
            &[17],
            &[39, 41],
            &[2, 2],
            &[5, 30],
            &[254],
            &[3, 400],
            &[90],
        ];
        // Store about half of the options of every part, some on the path,
        // some with values too large for a code table's byte.
        let mut stored = 0u64;
        for p in &parts {
            for skip in 0..p.len() {
                for add in adds {
                    stored += 1;
                    if stored.is_multiple_of(2) {
                        let k = replaced(p, skip, add);
                        let v = if stored.is_multiple_of(10) {
                            on_path
                        } else if stored.is_multiple_of(7) {
                            u64::from(u32::MAX) + stored
                        } else {
                            stored % 250
                        };
                        store(&mut memo, &k, v, on_path);
                    }
                }
            }
        }
        let fast = probes_agree(&memo, &parts, &adds, on_path);
        assert!(fast > 5000, "{fast}");
        // Both tables past the dense ones hold keys.
        let (mut coded, mut hashed) = (0, 0);
        memo.coded
            .iter()
            .for_each(|(_, t)| coded += t.bytes().count());
        memo.hashed.for_each(|_, _| hashed += 1);
        assert!(coded > 1000 && hashed > 1000, "{coded} {hashed}");
    }

    #[test]
    fn binomial_tables_end_past_the_cap() {
        let c = |b: u64, k: u64| (0..k).fold(1u64, |c, i| c * (b - i) / (i + 1));
        for (t, k) in [(&C2[..], 2), (&C3[..], 3), (&C4[..], 4)] {
            for (b, &x) in t.iter().enumerate() {
                assert_eq!(x as u64, if (b as u64) < k { 0 } else { c(b as u64, k) });
            }
            assert!(c(t.len() as u64, k) >= DENSE_CAP, "k = {k}");
        }
    }

    #[test]
    fn keys_keep_their_values_dense_or_hashed() {
        let on_path = u64::MAX;
        let keys: Vec<Vec<u32>> = vec![
            vec![0, 1, 1, 0],
            vec![0, 1, 1, 3, 2, 5, 9],
            vec![0, 0, 1, 3, 2, 5, 9],
            vec![1, 0, 1, 3, 2, 5, 9],
            vec![1, 0, 1, 5, 1, 1, 2, 3, 4],
            vec![2, 0, 2, 1, 4, 1, 7],
            vec![0, 1, 1, 1, 100_000_000],
        ];
        let mut memo = ProductMemo::default();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(memo.get(k, key_hash(k), on_path), None);
            let mark = memo.mark_on_path(k, key_hash(k), on_path);
            assert_eq!(memo.get(k, key_hash(k), on_path), Some(on_path));
            memo.settle(mark, k, key_hash(k), i as u64 * 1_000_000_000, on_path);
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(
                memo.get(k, key_hash(k), on_path),
                Some(i as u64 * 1_000_000_000),
                "{k:?}"
            );
        }
        let mut all = Vec::new();
        memo.for_each_value(|kind, v| all.push((v, kind)));
        all.sort_unstable();
        let expected: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (i as u64 * 1_000_000_000, k[0]))
            .collect();
        assert_eq!(all, expected);
        memo.remove(&keys[1], key_hash(&keys[1]));
        memo.remove(&keys[4], key_hash(&keys[4]));
        memo.remove(&keys[6], key_hash(&keys[6]));
        assert_eq!(memo.get(&keys[1], key_hash(&keys[1]), on_path), None);
        assert_eq!(memo.get(&keys[4], key_hash(&keys[4]), on_path), None);
        assert_eq!(memo.get(&keys[6], key_hash(&keys[6]), on_path), None);
        assert_eq!(
            memo.get(&keys[2], key_hash(&keys[2]), on_path),
            Some(2_000_000_000)
        );
    }

    #[test]
    fn dense_values_are_what_get_reads_where_the_dense_table_tells() {
        // Every sorted multiset of up to 4 components below 7, and some
        // whose components pass the binomial columns: unknown, valued,
        // valued too large for a dense entry, on the path. `dense_value`
        // (what a query of one part reads with no key written) gives what
        // `get` gives of the key, or `None` where the key is not dense or
        // its value is kept in the hash table.
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for k in 0..=4usize {
            let mut atoms = vec![0u32; k];
            loop {
                parts.push(atoms.clone());
                let Some(i) = (0..k).rev().find(|&i| atoms[i] < 6) else {
                    break;
                };
                let v = atoms[i] + 1;
                atoms[i..].iter_mut().for_each(|a| *a = v);
            }
        }
        parts.extend([
            vec![6000],
            vec![3, 6000],
            vec![0, 1, 600],
            vec![1, 2, 3, 200],
        ]);
        let (mut memo, on_path) = (ProductMemo::default(), u64::MAX);
        let large = 1u64 << 40;
        for (i, p) in parts.iter().enumerate() {
            let k = key(p);
            match i % 4 {
                0 => {}
                1 => store(&mut memo, &k, i as u64, on_path),
                2 if i % 3 == 0 => store(&mut memo, &k, large + i as u64, on_path),
                2 => store(&mut memo, &k, 0, on_path),
                _ => {
                    memo.mark_on_path(&k, key_hash(&k), on_path);
                }
            }
        }
        let mut told = 0;
        for p in &parts {
            let k = key(p);
            let got = memo.get(&k, key_hash(&k), on_path);
            match memo.dense_value(0, 1, p) {
                Some(v) => {
                    assert_eq!(v, got.filter(|&v| v != on_path), "{p:?}");
                    told += 1;
                }
                None => assert!(
                    !matches!(place(&k), Place::Dense(..)) || got.is_some_and(|v| v >= large),
                    "{p:?}: {got:?}"
                ),
            }
        }
        assert!(told > parts.len() * 3 / 4, "{told} of {}", parts.len());
    }
}
