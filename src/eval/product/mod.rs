//! The product search for compounds no theorem decomposes (pass, misère,
//! conjunctive, selective, hypergraph).
//!
//! A compound position is a packed key of small integers: the compound's
//! kind, its pass counter, and for each part the sorted multiset of the
//! part's components. A component (an *atom*: a position of a game, or a
//! nested compound) is interned once, and its options are enumerated once
//! through the game's compiled moves and kept as sorted atom lists, so the
//! search builds an option by merging integers, never a game value. Sums
//! are canonical: components in a fixed order, terminal components
//! dropped, so equal positions meet in one memo entry. A pass compound
//! with no pass left is a plain sum: the Sprague-Grundy theorem values it.

use std::ops::Range;
use std::rc::Rc;

use smallvec::SmallVec;

use super::compile::Env;
use super::memo::Key;
use super::product_tables::{
    atom_term, key_hash, merge_without, Atom, Canonical, Frame, PositionKey, ProductTables, Search,
    Walk,
};
use super::query::game_options;
use super::search::{loop_diag, sg_of_game};
use super::value::{Compound, CompoundKind, Game, InstanceId, Position};
use crate::diag::Fallible;
use crate::syntax::Span;

/// Key layout: `[kind, counter, n_parts, (len, atoms...) per part]`.
const KIND: usize = 0;
const COUNTER: usize = 1;
const N_PARTS: usize = 2;
const HEADER: usize = 3;

/// Memo value of a position on the current search path.
const ON_PATH: u64 = u64::MAX;

/// Kind codes in keys; hypergraphs add the index of their edge list.
const PASS: u32 = 0;
const MISERE: u32 = 1;
const CONJUNCTIVE: u32 = 2;
const SELECTIVE: u32 = 3;
const HYPERGRAPH: u32 = 4;

fn position_key(instance: InstanceId, key: &Key) -> Option<PositionKey> {
    if key.generic.is_some() {
        return None;
    }
    let mut k = PositionKey::new();
    k.extend([instance.0 as i64, key.shape() as i64, key.n_args() as i64]);
    k.extend_from_slice(key.coords());
    Some(k)
}

impl ProductTables {
    fn intern(&mut self, g: &Game) -> u32 {
        if let Game::Position(p) = g {
            let key = Key::from_args(&p.args);
            if let Some(k) = position_key(p.instance, &key) {
                return self.intern_flat(k, || g.clone());
            }
        }
        if let Some(&id) = self.atom_ids.get(g) {
            return id;
        }
        let id = self.push_atom(g.clone());
        self.atom_ids.insert(g.clone(), id);
        id
    }

    /// The atom of the position `key` of `instance`, built as a game only
    /// the first time.
    pub fn intern_position(
        &mut self,
        instance: InstanceId,
        name: impl FnOnce() -> Rc<str>,
        key: &Key,
    ) -> u32 {
        let make = || {
            Game::Position(Position {
                instance,
                name: name(),
                args: key.to_args(),
            })
        };
        match position_key(instance, key) {
            Some(k) => self.intern_flat(k, make),
            None => self.intern(&make()),
        }
    }

    fn intern_flat(&mut self, k: PositionKey, game: impl FnOnce() -> Game) -> u32 {
        if let Some(&id) = self.position_ids.get(&k) {
            return id;
        }
        let id = self.push_atom(game());
        self.position_ids.insert(k, id);
        id
    }

    fn push_atom(&mut self, game: Game) -> u32 {
        let id = self.atoms.len() as u32;
        self.atoms.push(Atom {
            game,
            options: None,
            canonical: None,
            sg: None,
        });
        id
    }

    /// Appends the atoms of `g` (a sum is its components; the zero game
    /// has none).
    fn flatten(&mut self, g: &Game, out: &mut Vec<u32>) {
        match g {
            Game::Zero => {}
            Game::Sum(parts) => parts.iter().for_each(|p| self.flatten(p, out)),
            _ => out.push(self.intern(g)),
        }
    }

    fn kind_code(&mut self, kind: &CompoundKind) -> (u32, u32) {
        match kind {
            CompoundKind::Pass(k) => (PASS, *k),
            CompoundKind::Misere => (MISERE, 0),
            CompoundKind::Conjunctive => (CONJUNCTIVE, 0),
            CompoundKind::Selective => (SELECTIVE, 0),
            CompoundKind::Hypergraph(edges) => {
                let i = match self.edges.iter().position(|e| e == edges) {
                    Some(i) => i,
                    None => {
                        self.edges.push(edges.clone());
                        self.edges.len() - 1
                    }
                };
                (HYPERGRAPH + i as u32, 0)
            }
        }
    }

    fn kind_of(&self, code: u32, counter: u32) -> CompoundKind {
        match code {
            PASS => CompoundKind::Pass(counter),
            MISERE => CompoundKind::Misere,
            CONJUNCTIVE => CompoundKind::Conjunctive,
            SELECTIVE => CompoundKind::Selective,
            h => CompoundKind::Hypergraph(self.edges[(h - HYPERGRAPH) as usize].clone()),
        }
    }

    fn is_terminal(&self, atom: u32) -> bool {
        self.atoms[atom as usize]
            .options
            .as_ref()
            .is_some_and(|o| o.is_empty())
    }

    /// The compound a key stands for, to show it.
    fn to_game(&self, key: &[u32]) -> Game {
        let parts = parts_of(key)
            .map(|r| {
                key[r].iter().fold(Game::Zero, |sum, &a| {
                    crate::eval::ops::game_sum(&sum, &self.atoms[a as usize].game)
                })
            })
            .collect();
        match (key[KIND], key[COUNTER]) {
            (PASS, 0) => parts_into_sum(parts),
            (code, counter) => Game::Compound(Rc::new(Compound {
                kind: self.kind_of(code, counter),
                parts,
            })),
        }
    }

    /// The histogram of the values stored for compounds of this kind
    /// (`memo_histogram`).
    pub fn histogram(&mut self, kind: &CompoundKind) -> Vec<u64> {
        let (code, _) = self.kind_code(kind);
        let mut h = Vec::new();
        self.memo.for_each_value(|kind, v| {
            if kind == code && v != ON_PATH {
                if h.len() <= v as usize {
                    h.resize(v as usize + 1, 0);
                }
                h[v as usize] += 1;
            }
        });
        h
    }
}

fn parts_into_sum(parts: Vec<Game>) -> Game {
    parts
        .iter()
        .fold(Game::Zero, |s, p| crate::eval::ops::game_sum(&s, p))
}

/// The ranges of a key's parts.
fn parts_of(key: &[u32]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = HEADER;
    (0..key[N_PARTS]).map(move |_| {
        let len = key[at] as usize;
        let r = at + 1..at + 1 + len;
        at = r.end;
        r
    })
}

/// Computes the options of `atom` (once), interning their components.
fn ensure_options(env: &mut Env, atom: u32, span: Span) -> Fallible<()> {
    let game = {
        let t = env.rt.product.borrow();
        let a = &t.atoms[atom as usize];
        if a.options.is_some() {
            return Ok(());
        }
        a.game.clone()
    };
    let options = game_options(env, &game, span)?;
    // An atom's option lists are stored positions too: nested compounds
    // (`-> misere(M(a) + M(b))`) grow them, not the memo, and the state
    // limit must see that growth.
    env.rt
        .count_stored_n(1 + options.len(), span, "a compound")?;
    let mut t = env.rt.product.borrow_mut();
    let mut list = Vec::with_capacity(options.len());
    let mut atoms = Vec::new();
    for (_, _, to) in &options {
        atoms.clear();
        t.flatten(to, &mut atoms);
        atoms.sort_unstable();
        list.push(atoms.clone().into_boxed_slice());
    }
    t.atoms[atom as usize].options = Some(Rc::from(list));
    Ok(())
}

/// The options of `atom` with terminal components dropped (computed once).
fn canonical_options(env: &mut Env, atom: u32, span: Span) -> Fallible<Rc<Canonical>> {
    if let Some(c) = &env.rt.product.borrow().atoms[atom as usize].canonical {
        return Ok(c.clone());
    }
    ensure_options(env, atom, span)?;
    let options = env.rt.product.borrow().atoms[atom as usize]
        .options
        .clone()
        .expect("just computed");
    for o in options.iter() {
        for &b in o.iter() {
            ensure_options(env, b, span)?;
        }
    }
    let mut t = env.rt.product.borrow_mut();
    let options: Box<[Box<[u32]>]> = options
        .iter()
        .map(|o| o.iter().copied().filter(|&b| !t.is_terminal(b)).collect())
        .collect();
    let terms = options
        .iter()
        .map(|o| o.iter().fold(0u64, |h, &b| h.wrapping_add(atom_term(0, b))))
        .collect();
    let canonical = Rc::new(Canonical { options, terms });
    t.atoms[atom as usize].canonical = Some(canonical.clone());
    Ok(canonical)
}

/// The normal-play value of an atom (cached).
fn atom_sg(env: &mut Env, atom: u32, span: Span) -> Fallible<u64> {
    let game = {
        let t = env.rt.product.borrow();
        let a = &t.atoms[atom as usize];
        if let Some(v) = a.sg {
            return Ok(v);
        }
        a.game.clone()
    };
    let v = sg_of_game(env, &game, span)?;
    env.rt.product.borrow_mut().atoms[atom as usize].sg = Some(v);
    Ok(v)
}

/// Appends a part to a root key: its atoms (in any order), canonical.
/// A root key, on the stack for the few parts a query has.
type RootKey = SmallVec<[u32; 16]>;

fn push_part(env: &mut Env, key: &mut RootKey, atoms: &mut [u32], span: Span) -> Fallible<()> {
    let listed = |t: &ProductTables| atoms.iter().all(|&a| t.atoms[a as usize].options.is_some());
    if !listed(&env.rt.product.borrow()) {
        for &a in atoms.iter() {
            ensure_options(env, a, span)?;
        }
    }
    let t = env.rt.product.borrow();
    let start = key.len();
    key.push(0);
    key.extend(atoms.iter().copied().filter(|&a| !t.is_terminal(a)));
    key[start + 1..].sort_unstable();
    key[start] = (key.len() - start - 1) as u32;
    Ok(())
}

/// The value of a compound: its SG value, or for `misere(E)` the misère
/// Grundy value (terminal positions have value 1).
pub fn sg(env: &mut Env, root: &Compound, span: Span) -> Fallible<u64> {
    let (code, counter) = env.rt.product.borrow_mut().kind_code(&root.kind);
    let mut key: RootKey = SmallVec::new();
    key.extend([code, counter, root.parts.len() as u32]);
    let mut atoms = Vec::new();
    for p in &root.parts {
        atoms.clear();
        env.rt.product.borrow_mut().flatten(p, &mut atoms);
        push_part(env, &mut key, &mut atoms, span)?;
    }
    value_of(env, &key, span)
}

/// The value of a compound whose parts are given as their atoms
/// (`intern_position`), with no game value built: what a compiled query
/// such as `sg(pass(Heap(a) + Heap(b)))` asks.
pub fn sg_of_atoms(
    env: &mut Env,
    kind: &CompoundKind,
    parts: &mut [SmallVec<[u32; 4]>],
    span: Span,
) -> Fallible<u64> {
    let (code, counter) = env.rt.product.borrow_mut().kind_code(kind);
    let mut key: RootKey = SmallVec::new();
    key.extend([code, counter, parts.len() as u32]);
    for atoms in parts.iter_mut() {
        push_part(env, &mut key, atoms, span)?;
    }
    value_of(env, &key, span)
}

/// The normal-play value of a sum of atoms: the xor of theirs.
pub fn sg_of_sum(
    env: &mut Env,
    atoms: impl Iterator<Item = u32> + Clone,
    span: Span,
) -> Fallible<u64> {
    // Values already known: one borrow for them all.
    let known = {
        let t = env.rt.product.borrow();
        atoms
            .clone()
            .try_fold(0, |x, a| t.atoms[a as usize].sg.map(|v| x ^ v))
    };
    if let Some(x) = known {
        return Ok(x);
    }
    let mut x = 0;
    for a in atoms {
        x ^= atom_sg(env, a, span)?;
    }
    Ok(x)
}

fn value_of(env: &mut Env, key: &[u32], span: Span) -> Fallible<u64> {
    if let Some(v) = plain_value(env, key, span)? {
        return Ok(v);
    }
    let mut hash = None;
    {
        let t = env.rt.product.borrow();
        // A dense key needs no hash to be found.
        let hashed = || *hash.insert(key_hash(key));
        match t.memo.get_lazy(key, hashed, ON_PATH) {
            // Asked again while an outer search values it.
            Some(ON_PATH) => return Err(loop_diag(vec![t.to_game(key).to_string()], span)),
            Some(v) => return Ok(v),
            None => {}
        }
    }
    // A table of queries would otherwise allocate the buffers for each.
    let mut search = env.rt.product.borrow_mut().spare.take().unwrap_or_default();
    let hash = hash.unwrap_or_else(|| key_hash(key));
    let result = search.run(env, key, hash, span);
    if result.is_err() {
        search.forget_path(env);
    }
    search.clear();
    env.rt.product.borrow_mut().spare = Some(search);
    result
}

/// The value of a pass compound with no pass left: a plain sum, valued by
/// the theorem. `None` for any other key.
fn plain_value(env: &mut Env, key: &[u32], span: Span) -> Fallible<Option<u64>> {
    if key[KIND] != PASS || key[COUNTER] != 0 {
        return Ok(None);
    }
    let mut x = 0;
    for r in parts_of(key) {
        for &a in &key[r] {
            x ^= atom_sg(env, a, span)?;
        }
    }
    Ok(Some(x))
}

/// What walking one option of a frame gave.
enum Step {
    Value(u64),
    /// Not valued yet: its key is in `Search::child`, with its hash.
    Descend(u64),
    Done,
}

/// How many options ahead of its probe an option's slot is prefetched.
const PREFETCH_AHEAD: usize = 8;

/// Key header of a one-part compound: `[kind, counter, 1, len]`.
const ONE_PART_HEADER: usize = HEADER + 1;

impl Search {
    /// The value of `root` (not stored yet), searched depth first.
    fn run(&mut self, env: &mut Env, root: &[u32], hash: u64, span: Span) -> Fallible<u64> {
        self.push_frame(env, root, hash, span)?;
        let mut steps = 0u32;
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(1024) {
                env.rt.check_interrupt(span)?;
            }
            let step = match self.frames.last().expect("a frame").walk {
                Walk::Listed { .. } => self.step_listed(env, span)?,
                Walk::Replace { .. } => self.step_replace(env, span)?,
            };
            match step {
                Step::Value(v) => self.values.push(v),
                Step::Descend(hash) => {
                    let child = std::mem::take(&mut self.child);
                    let pushed = self.push_frame(env, &child, hash, span);
                    self.child = child;
                    pushed?;
                }
                Step::Done => {
                    let v = self.finish(env, span)?;
                    if self.frames.is_empty() {
                        return Ok(v);
                    }
                    self.values.push(v);
                }
            }
        }
    }

    /// Stores the value of the top frame and pops it.
    fn finish(&mut self, env: &mut Env, span: Span) -> Fallible<u64> {
        let frame = self.frames.pop().expect("a frame");
        let v = if self.keys[frame.key.start + KIND] == MISERE && self.values.len() == frame.values
        {
            1 // a terminal position wins under misère play
        } else {
            self.mex(frame.values)
        };
        let key = &self.keys[frame.key.clone()];
        env.rt
            .product
            .borrow_mut()
            .memo
            .settle(frame.mark, key, frame.hash, v, ON_PATH);
        env.rt.count_stored(span, "a compound")?;
        self.keys.truncate(frame.key.start);
        self.values.truncate(frame.values);
        match frame.walk {
            Walk::Listed { first, packed, .. } => {
                self.ranges.truncate(first);
                self.hashes.truncate(first);
                self.options.truncate(packed);
            }
            Walk::Replace { from, .. } => self.ahead.truncate(from),
        }
        Ok(v)
    }

    /// The value of a listed option, or its key to descend into.
    fn step_listed(&mut self, env: &mut Env, span: Span) -> Fallible<Step> {
        let Walk::Listed { next, end, .. } = &mut self.frames.last_mut().expect("a frame").walk
        else {
            unreachable!("a listed frame")
        };
        if *next == *end {
            return Ok(Step::Done);
        }
        let i = *next;
        *next += 1;
        let opt = &self.options[self.ranges[i].clone()];
        let value = if opt[KIND] == PASS && opt[COUNTER] == 0 {
            plain_value(env, opt, span)?
        } else {
            env.rt
                .product
                .borrow()
                .memo
                .get(opt, self.hashes[i], ON_PATH)
        };
        match value {
            Some(ON_PATH) => Err(self.loop_error(env, opt, span)),
            Some(v) => Ok(Step::Value(v)),
            None => {
                self.child.clear();
                self.child.extend_from_slice(opt);
                Ok(Step::Descend(self.hashes[i]))
            }
        }
    }

    /// The value of the next option of a one-part compound, or its key to
    /// descend into. The option's key is built only then: the memo is
    /// asked with the parent's hash updated and the option compared in
    /// place.
    fn step_replace(&mut self, env: &mut Env, span: Span) -> Fallible<Step> {
        let frame = self.frames.last_mut().expect("a frame");
        let key = &self.keys[frame.key.clone()];
        let Walk::Replace {
            at,
            next,
            options,
            passed,
            parent,
            from: _,
            prefetched,
        } = &mut frame.walk
        else {
            unreachable!("a one-part frame")
        };
        let (code, counter) = (key[KIND], key[COUNTER]);
        let part = &key[ONE_PART_HEADER..];
        loop {
            if *at == part.len() {
                if code != PASS || counter == 0 || part.is_empty() || *passed {
                    return Ok(Step::Done);
                }
                // The pass: the same components, one pass fewer.
                *passed = true;
                self.child.clear();
                self.child.extend_from_slice(key);
                self.child[COUNTER] -= 1;
                let child = &self.child;
                let value = match plain_value(env, child, span)? {
                    Some(v) => Some(v),
                    None => env
                        .rt
                        .product
                        .borrow()
                        .memo
                        .get(child, key_hash(child), ON_PATH),
                };
                return match value {
                    Some(ON_PATH) => Err(self.loop_error(env, &self.child, span)),
                    Some(v) => Ok(Step::Value(v)),
                    None => Ok(Step::Descend(key_hash(&self.child))),
                };
            }
            let a = part[*at];
            let Some(opts) = options else {
                if *at > 0 && part[*at - 1] == a {
                    *at += 1; // the same component: the same moves
                    continue;
                }
                *options = Some(canonical_options(env, a, span)?);
                *next = 0;
                continue;
            };
            if *next == opts.options.len() {
                *options = None;
                *at += 1;
                continue;
            }
            // The options of this component already valued go to the
            // frame's values in one loop, with the memo borrowed once.
            let base = frame.hash.wrapping_sub(atom_term(0, a));
            let t = env.rt.product.borrow();
            let fast = t
                .memo
                .replacing([code, counter], part, *at, parent.as_ref());
            // Each probe prefetches the slot of the option a few ahead in
            // the frame's walk; again those just ahead, after a child's
            // search may have evicted them.
            let ahead = t.memo.prefetcher();
            if let Some(p) = &ahead {
                let again = prefetched.saturating_sub(PREFETCH_AHEAD);
                for &hash in self.ahead.get(again..*prefetched).unwrap_or_default() {
                    p.prefetch(hash);
                }
            }
            let missing = loop {
                let Some(add) = opts.options.get(*next) else {
                    break None;
                };
                if let (Some(p), Some(&hash)) = (&ahead, self.ahead.get(*prefetched)) {
                    p.prefetch(hash);
                    *prefetched += 1;
                }
                // The option's hash, needed only past the dense tables.
                let term = opts.terms[*next];
                let hash = || base.wrapping_add(term);
                *next += 1;
                let value = match fast.as_ref().and_then(|f| f.get(add, hash, ON_PATH)) {
                    Some(v) => v,
                    None => t
                        .memo
                        .get_replaced([code, counter], part, *at, add, hash(), ON_PATH),
                };
                match value {
                    Some(ON_PATH) => break Some((add, hash(), true)),
                    Some(v) => self.values.push(v),
                    None => break Some((add, hash(), false)),
                }
            };
            drop(t);
            let Some((add, hash, on_path)) = missing else {
                continue;
            };
            self.child.clear();
            let len = (part.len() - 1 + add.len()) as u32;
            self.child.extend_from_slice(&[code, counter, 1, len]);
            let child = &mut self.child;
            merge_without(part, *at, add, |x| child.push(x));
            return if on_path {
                Err(self.loop_error(env, &self.child, span))
            } else {
                Ok(Step::Descend(hash))
            };
        }
    }

    /// Lists the hashes of the options of the one-part `key` (hash `hash`)
    /// in walk order, as far as its components' options are known, and
    /// prefetches the slots of the first few; only for a key past the
    /// dense tables (`hashed`) while the hash table is past the cache.
    /// Returns how many were prefetched.
    fn list_ahead(&mut self, env: &Env, key: &[u32], hash: u64, hashed: bool) -> usize {
        let t = env.rt.product.borrow();
        let Some(p) = t.memo.prefetcher().filter(|_| hashed) else {
            return 0;
        };
        let from = self.ahead.len();
        let part = &key[ONE_PART_HEADER..];
        for (i, &a) in part.iter().enumerate() {
            if i > 0 && part[i - 1] == a {
                continue; // the same component: not walked again
            }
            let Some(c) = &t.atoms[a as usize].canonical else {
                break;
            };
            let base = hash.wrapping_sub(atom_term(0, a));
            (self.ahead).extend(c.terms.iter().map(|&term| base.wrapping_add(term)));
        }
        let first = &self.ahead[from..];
        let n = first.len().min(PREFETCH_AHEAD);
        first[..n].iter().for_each(|&h| p.prefetch(h));
        n
    }

    /// Marks `key` (known absent) as on the search path and starts its
    /// frame (listing the options of a product).
    fn push_frame(&mut self, env: &mut Env, key: &[u32], hash: u64, span: Span) -> Fallible<()> {
        let start = self.keys.len();
        self.keys.extend_from_slice(key);
        let mark = (env.rt.product.borrow_mut().memo).mark_on_path(key, hash, ON_PATH);
        let one_part = matches!(key[KIND], PASS | MISERE);
        let parent = one_part
            .then(|| env.rt.product.borrow().memo.parent_image(key))
            .flatten();
        let (first, packed) = (self.ranges.len(), self.options.len());
        let from = self.ahead.len();
        let prefetched = from + self.list_ahead(env, key, hash, parent.is_some());
        self.frames.push(Frame {
            key: start..self.keys.len(),
            hash,
            mark,
            values: self.values.len(),
            walk: if one_part {
                Walk::Replace {
                    at: 0,
                    next: 0,
                    options: None,
                    passed: false,
                    from,
                    prefetched,
                    parent,
                }
            } else {
                Walk::Listed {
                    first,
                    next: first,
                    end: first,
                    packed,
                }
            },
        });
        if !one_part {
            let listed = self.list_options(env, key, span);
            let end = self.ranges.len();
            if let Walk::Listed { end: e, .. } =
                &mut self.frames.last_mut().expect("just pushed").walk
            {
                *e = end;
            }
            listed?;
        }
        env.rt
            .check_states(self.frames.len() + self.ranges.len(), span, "a compound")
    }

    /// Unmarks the positions on the search path, after an error.
    fn forget_path(&self, env: &mut Env) {
        let mut t = env.rt.product.borrow_mut();
        for f in &self.frames {
            let key = &self.keys[f.key.clone()];
            if t.memo.get(key, f.hash, ON_PATH) == Some(ON_PATH) {
                t.memo.remove(key, f.hash);
            }
        }
    }

    fn clear(&mut self) {
        self.frames.clear();
        self.keys.clear();
        self.options.clear();
        self.ranges.clear();
        self.hashes.clear();
        self.ahead.clear();
        self.values.clear();
    }

    /// The least value not among `values[from..]`.
    fn mex(&mut self, from: usize) -> u64 {
        let values = &self.values[from..];
        let n = values.len();
        if self.seen.len() <= n {
            self.seen.resize(n + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        for &v in values {
            if v < n as u64 {
                self.seen[v as usize] = self.stamp;
            }
        }
        (0..=n).find(|&m| self.seen[m] != self.stamp).unwrap_or(n) as u64
    }

    /// Appends the options of the position `key` (hash `hash`) to
    /// `options`/`ranges`/`hashes`.
    /// Appends the options of the product position `key` (conjunctive,
    /// selective, hypergraph) to `options`/`ranges`/`hashes`.
    fn list_options(&mut self, env: &mut Env, key: &[u32], span: Span) -> Fallible<()> {
        let parts: Vec<Range<usize>> = parts_of(key).collect();
        let code = key[KIND];
        {
            {
                let n = parts.len();
                let mut moves = Vec::with_capacity(n);
                for r in &parts {
                    moves.push(self.part_moves(env, &key[r.clone()], span)?);
                }
                let groups: Vec<Vec<usize>> = match code {
                    CONJUNCTIVE => vec![(0..n).collect()],
                    SELECTIVE => (1u64..1 << n.min(20))
                        .map(|mask| (0..n).filter(|i| mask >> i & 1 == 1).collect())
                        .collect(),
                    h => {
                        let t = env.rt.product.borrow();
                        t.edges[(h - HYPERGRAPH) as usize].to_vec()
                    }
                };
                let unmoved: Vec<&[u32]> = parts.iter().map(|r| &key[r.clone()]).collect();
                for group in groups {
                    let mut chosen = unmoved.clone();
                    self.product(code, &group, &moves, &mut chosen);
                }
            }
        }
        Ok(())
    }

    /// Every way of moving in each part of `group` at once (the others stay).
    fn product<'a>(
        &mut self,
        code: u32,
        group: &[usize],
        moves: &'a [Vec<Vec<u32>>],
        chosen: &mut Vec<&'a [u32]>,
    ) {
        let Some((&i, rest)) = group.split_first() else {
            self.push_option(code, 0, chosen);
            return;
        };
        let saved = chosen[i];
        for m in &moves[i] {
            chosen[i] = m;
            self.product(code, rest, moves, chosen);
        }
        chosen[i] = saved;
    }

    /// Appends an option given by its parts, hashed from scratch.
    fn push_option(&mut self, code: u32, counter: u32, parts: &[&[u32]]) {
        let start = self.options.len();
        self.options
            .extend_from_slice(&[code, counter, parts.len() as u32]);
        for p in parts {
            self.options.push(p.len() as u32);
            self.options.extend_from_slice(p);
        }
        self.ranges.push(start..self.options.len());
        self.hashes.push(key_hash(&self.options[start..]));
    }

    /// The multisets a part can move to: one component replaced by the
    /// components of one of its options (merged in order).
    fn part_moves(&mut self, env: &mut Env, part: &[u32], span: Span) -> Fallible<Vec<Vec<u32>>> {
        let mut out = Vec::new();
        for (i, &a) in part.iter().enumerate() {
            if i > 0 && part[i - 1] == a {
                continue; // the same component: the same moves
            }
            let options = canonical_options(env, a, span)?;
            for o in options.options.iter() {
                self.part.clear();
                let moved = &mut self.part;
                merge_without(part, i, o, |x| moved.push(x));
                out.push(self.part.clone());
            }
        }
        Ok(out)
    }

    /// The loop through the search path back to the listed option `again`.
    fn loop_error(&self, env: &Env, again: &[u32], span: Span) -> Box<crate::diag::Diag> {
        let t = env.rt.product.borrow();
        let path: Vec<&[u32]> = self
            .frames
            .iter()
            .map(|f| &self.keys[f.key.clone()])
            .collect();
        let start = path.iter().position(|k| *k == again).unwrap_or(0);
        loop_diag(
            path[start..]
                .iter()
                .map(|k| t.to_game(k).to_string())
                .collect(),
            span,
        )
    }
}
