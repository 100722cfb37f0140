//! The data of the product search (`product`), kept in the `Runtime` for
//! the whole session: the interned atoms, the memo of compound positions,
//! the buffers of the last search. The search itself (`product`) works on
//! them through `Env`; the types live here, below the runtime that holds
//! them.

use std::ops::Range;
use std::rc::Rc;

mod coded;
mod memo;
mod table;

use rustc_hash::FxHashMap;

use crate::eval::mex::StampedMex;
use smallvec::SmallVec;

use super::value::{Game, InstanceId};
use memo::Mark;
pub(crate) use memo::{single, NoProbe, OptionProbe, Parent, ProductMemo, Replacing, DENSE_LEN};
pub(crate) use table::{atom_term, key_hash, merge_without};

/// The interned atoms and the memo of compound positions, kept for the
/// whole session (cleared with the other memo tables).
#[derive(Default)]
pub struct ProductTables {
    /// Atoms kept as game values (positions whose arguments do not
    /// flatten).
    pub(crate) atom_ids: FxHashMap<Game, u32>,
    /// Compounds nested as components: the hash of each one's key and its
    /// atom, which keeps the key.
    pub(crate) compound_ids: hashbrown::HashTable<(u64, u32)>,
    /// Positions whose arguments flatten, by instance and key: a query
    /// finds its components' atoms without building them as games.
    pub(crate) position_ids: FxHashMap<PositionKey, u32>,
    pub(crate) atoms: Vec<Atom>,
    /// `plan_atoms[instance][n]`: 1 + the atom of the position `(n)` of
    /// that instance, once a compiled query has checked it is a position
    /// (`plan_atom`); 0 unknown.
    plan_atoms: Vec<Vec<u32>>,
    pub(crate) edges: Vec<Rc<Vec<Vec<usize>>>>,
    pub(crate) memo: ProductMemo,
    /// The buffers of the last search, for the next.
    pub(crate) spare: Option<Search>,
    /// Searches running: more than one when a component's rules ask for
    /// the value of another compound.
    pub(crate) searching: u32,
    /// The number of atoms at which compounds nested in compounds next
    /// have the atoms' graph read for nesting without end
    /// (`product/nesting.rs`).
    pub(crate) next_nesting_check: usize,
}

pub(crate) struct Atom {
    pub(crate) of: AtomOf,
    /// Each option as the sorted atoms of its result (terminal ones kept).
    pub(crate) options: Option<Rc<AtomLists>>,
    /// The same with terminal atoms dropped: what a key holds.
    pub(crate) canonical: Option<Rc<Canonical>>,
    /// The normal-play SG value, once asked.
    pub(crate) sg: Option<u64>,
}

impl Atom {
    pub(crate) fn new(of: AtomOf) -> Self {
        Atom {
            of,
            options: None,
            canonical: None,
            sg: None,
        }
    }
}

/// What an atom stands for.
#[derive(Clone)]
pub(crate) enum AtomOf {
    /// A position (a game value, built once).
    Game(Game),
    /// A compound nested as a component: its key, with its parts'
    /// components sorted and none dropped (a game value is built from it
    /// only to show it).
    Compound(Rc<[u32]>),
}

/// An atom's options as a key holds them (terminal components dropped),
/// each distinct one once (the mex reads only their values), with the hash terms of each one's components in a one-part key.
pub(crate) struct Canonical {
    pub(crate) options: AtomLists,
    pub(crate) terms: Box<[u64]>,
    /// Each option as one number (`single`): what a dense frame's walk
    /// reads, one load an option.
    pub(crate) singles: Box<[u32]>,
}

/// Lists of atoms packed in one array: an atom's options, each the atoms
/// of its result. Two allocations for all of them, not one per option (a
/// search of nested compounds interns millions of atoms).
#[derive(Default)]
pub(crate) struct AtomLists {
    atoms: Vec<u32>,
    /// `ends[i]`: where list `i` ends in `atoms`.
    ends: Vec<u32>,
}

impl AtomLists {
    pub(crate) fn push(&mut self, list: impl IntoIterator<Item = u32>) {
        self.atoms.extend(list);
        self.ends.push(self.atoms.len() as u32);
    }

    /// Frees the room left for more lists.
    pub(crate) fn shrunk(mut self) -> Self {
        self.atoms.shrink_to_fit();
        self.ends.shrink_to_fit();
        self
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&[u32]> {
        let end = *self.ends.get(i)? as usize;
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j] as usize);
        Some(&self.atoms[start..end])
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Key layout: `[kind, counter, n_parts, (len, atoms...) per part]`.
pub(crate) const KIND: usize = 0;
pub(crate) const COUNTER: usize = 1;
pub(crate) const N_PARTS: usize = 2;
pub(crate) const HEADER: usize = 3;

/// Kind codes in keys; hypergraphs add the index of their edge list. A
/// pass compound with no pass left is a plain sum: a sum is asked as one.
pub(crate) const PASS: u32 = 0;
pub(crate) const MISERE: u32 = 1;
pub(crate) const CONJUNCTIVE: u32 = 2;
pub(crate) const SELECTIVE: u32 = 3;
pub(crate) const ORDINAL: u32 = 4;
pub(crate) const HYPERGRAPH: u32 = 5;

/// A compound's key as a query writes it (its parts' atoms in any order,
/// terminal ones too), on the stack for the few parts a query has.
pub type RootKey = SmallVec<[u32; 16]>;

impl ProductTables {
    pub(crate) fn is_terminal(&self, atom: u32) -> bool {
        self.atoms[atom as usize]
            .options
            .as_ref()
            .is_some_and(|o| o.is_empty())
    }

    /// Puts each part of `key` in its canonical form in place: terminal
    /// atoms dropped, the rest sorted. False when some atom's options are
    /// not listed yet (it is kept; run again once they are).
    pub(crate) fn canonical_in_place(&self, key: &mut RootKey) -> bool {
        let (len, listed) = self.canonical_parts(key.as_mut_slice());
        key.truncate(len);
        listed
    }

    /// `canonical_in_place` on a slice (no spill checks per index): the
    /// key's new length and whether every atom was listed.
    fn canonical_parts(&self, key: &mut [u32]) -> (usize, bool) {
        let mut listed = true;
        let (mut read, mut write) = (HEADER, HEADER);
        for _ in 0..key[N_PARTS] {
            let len = key[read] as usize;
            let start = write + 1;
            write = start;
            for i in read + 1..read + 1 + len {
                let a = key[i];
                match &self.atoms[a as usize].options {
                    Some(o) if o.is_empty() => continue,
                    Some(_) => {}
                    None => listed = false,
                }
                key[write] = a;
                write += 1;
            }
            read += 1 + len;
            key[start - 1] = (write - start) as u32;
            // A query's parts have a few atoms: an insertion sort.
            let part = &mut key[start..write];
            if part.len() > 8 {
                part.sort_unstable();
                continue;
            }
            for i in 1..part.len() {
                let (a, mut j) = (part[i], i);
                while j > 0 && part[j - 1] > a {
                    part[j] = part[j - 1];
                    j -= 1;
                }
                part[j] = a;
            }
        }
        (write, listed)
    }

    /// The value of the compound `key` when nothing need be searched: a
    /// plain sum whose atoms' values are known and finite, or a key whose
    /// atoms are listed (put in canonical form here) found in the memo.
    /// What a table of queries mostly asks, with one borrow and no
    /// allocation.
    pub(crate) fn known_value(&self, key: &mut RootKey) -> Option<u64> {
        if (key[KIND], key[COUNTER]) == (PASS, 0) {
            let mut at = HEADER;
            let mut x = 0;
            for _ in 0..key[N_PARTS] {
                let len = key[at] as usize;
                x ^= self.sum_value(key[at + 1..at + 1 + len].iter().copied())?;
                at += 1 + len;
            }
            return Some(x);
        }
        if let &[code, counter, 1, len, ref atoms @ ..] = &key[..] {
            if atoms.len() == len as usize {
                let none = [0; DENSE_LEN];
                let v = self.part_value_with(code, counter, none, 0, atoms.iter().copied());
                if let Some(v) = v {
                    return v;
                }
            }
        }
        if !self.canonical_in_place(key) {
            return None;
        }
        // A key on the search path is left to the search, which says so.
        match self.memo.get_lazy(key, || key_hash(key), u64::MAX) {
            Some(u64::MAX) => None,
            v => v,
        }
    }
}

impl ProductTables {
    /// The xor of the SG values of `atoms` (the value of their plain sum),
    /// when every one is known and finite.
    #[inline]
    pub(crate) fn sum_value(&self, atoms: impl Iterator<Item = u32>) -> Option<u64> {
        let mut x = 0;
        for a in atoms {
            x ^= self.atoms[a as usize]
                .sg
                .filter(|v| !crate::eval::gsg::is_infinite(*v))?;
        }
        Some(x)
    }

    /// `atoms` but the terminal ones, sorted, and how many: what a
    /// one-part key of them holds; `None` when one is not listed yet or
    /// they are more than `DENSE_LEN`.
    pub(crate) fn listed_sorted(&self, atoms: &[u32]) -> Option<([u32; DENSE_LEN], usize)> {
        let none = [0; DENSE_LEN];
        self.insert_listed(none, 0, atoms.iter().copied())?
    }

    /// `known_value` of the one-part key of kind `code` with `counter`
    /// whose components are the `n` first of `sorted` (`listed_sorted`)
    /// and `more`, in registers: `more`'s listed but terminal atoms put
    /// in place as they are met, and the part read from its dense table
    /// at its rank (`ProductMemo::dense_value`), with no key rewritten;
    /// `None` for more than `DENSE_LEN` components or where that table
    /// cannot tell.
    #[inline]
    pub(crate) fn part_value_with(
        &self,
        code: u32,
        counter: u32,
        sorted: [u32; DENSE_LEN],
        n: usize,
        more: impl Iterator<Item = u32>,
    ) -> Option<Option<u64>> {
        match self.insert_listed(sorted, n, more) {
            Some(Some((sorted, n))) => self.memo.dense_value(code, counter, &sorted[..n]),
            Some(None) => None,
            // Listed once the search asks for them.
            None => Some(None),
        }
    }

    /// `sorted[..n]` with the listed, non-terminal `atoms` put in place;
    /// `None` when one is not listed, `Some(None)` when they do not fit.
    #[inline]
    pub(crate) fn insert_listed(
        &self,
        mut sorted: [u32; DENSE_LEN],
        mut n: usize,
        atoms: impl Iterator<Item = u32>,
    ) -> Option<Option<([u32; DENSE_LEN], usize)>> {
        for a in atoms {
            match &self.atoms[a as usize].options {
                None => return None,
                Some(o) if o.is_empty() => continue,
                Some(_) => {}
            }
            if n == DENSE_LEN {
                return Some(None);
            }
            let mut j = n;
            while j > 0 && sorted[j - 1] > a {
                sorted[j] = sorted[j - 1];
                j -= 1;
            }
            sorted[j] = a;
            n += 1;
        }
        Some(Some((sorted, n)))
    }
}

/// Integer arguments `plan_atoms` holds (4 bytes each per instance).
const PLAN_ATOMS_CAP: i64 = 1 << 20;

impl ProductTables {
    /// The atom of the position `(n)` (one integer argument) of `instance`,
    /// if a compiled query remembered it.
    #[inline]
    pub(crate) fn plan_atom(&self, instance: InstanceId, n: i64) -> Option<u32> {
        let by_n = self.plan_atoms.get(instance.0 as usize)?;
        match by_n.get(usize::try_from(n).ok()?) {
            Some(&a) if a > 0 => Some(a - 1),
            _ => None,
        }
    }

    /// Remembers that the position `(n)` of `instance` is one and is the
    /// atom `atom`.
    pub(crate) fn remember_plan_atom(&mut self, instance: InstanceId, n: i64, atom: u32) {
        if !(0..PLAN_ATOMS_CAP).contains(&n) {
            return;
        }
        let i = instance.0 as usize;
        if self.plan_atoms.len() <= i {
            self.plan_atoms.resize_with(i + 1, Vec::new);
        }
        let by_n = &mut self.plan_atoms[i];
        if by_n.len() <= n as usize {
            by_n.resize((n as usize + 1).next_power_of_two(), 0);
        }
        by_n[n as usize] = atom + 1;
    }
}

/// `[instance, shape, n_args, coords...]` of a position with a flat key.
pub(crate) type PositionKey = SmallVec<[i64; 8]>;

/// The buffers of one product search: a depth-first search whose frames
/// list their options once and walk them, descending into each option not
/// yet valued. Every frame's key and options sit on shared stacks.
#[derive(Default)]
pub(crate) struct Search {
    pub(crate) frames: Vec<Frame>,
    /// The frames' keys, one after another.
    pub(crate) keys: Vec<u32>,
    /// The frames' options, packed: `ranges` index `options`, `hashes` are
    /// their keys' hashes.
    pub(crate) options: Vec<u32>,
    pub(crate) ranges: Vec<Range<usize>>,
    pub(crate) hashes: Vec<u64>,
    /// The hashes of one-part frames' options, in the order they are
    /// walked, listed when the frame starts (as far as its components'
    /// options are known), so that slots are prefetched a few probes
    /// ahead across components, most of which have only a few options.
    pub(crate) ahead: Vec<u64>,
    /// The values of the options walked so far, per frame.
    pub(crate) values: Vec<u64>,
    /// The key of the option to descend into.
    pub(crate) child: Vec<u32>,
    /// The mex of a frame's values.
    pub(crate) marks: StampedMex,
}

/// A position being valued: where its key and values start, and how its
/// options are walked.
pub(crate) struct Frame {
    pub(crate) key: Range<usize>,
    pub(crate) hash: u64,
    /// Where the key is marked on the path, for its value.
    pub(crate) mark: Mark,
    pub(crate) values: usize,
    pub(crate) walk: Walk,
}

pub(crate) enum Walk {
    /// Options listed on the stack: `ranges[first..end]`, packed in
    /// `options` from `packed`; `next` is the next to walk.
    Listed {
        first: usize,
        next: usize,
        end: usize,
        packed: usize,
    },
    /// A one-part compound (pass, misère): its options replace the
    /// component at `at` by those of the `next`th option of that atom, and
    /// are built only when not in the memo. Then the pass, if any is left.
    Replace {
        at: usize,
        next: usize,
        passed: bool,
        /// The key's code or image, where its options' probes start.
        parent: Option<Parent>,
        /// Its options' hashes in walk order start at `Search::ahead[from]`;
        /// the slot of `ahead[prefetched]` is the next to prefetch.
        from: usize,
        prefetched: usize,
    },
}
