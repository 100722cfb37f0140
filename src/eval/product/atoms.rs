//! The components of compound keys (*atoms*): positions of games, and
//! compounds nested as components, interned once each. A position's
//! options come from its game's compiled moves; a nested compound's from
//! its key and its components' options, so a compound nested in a game's
//! moves (`-> misere(M(a) + M(b))`) is a key of integers in the search,
//! never a game value (one is built only to show it).

use std::hash::{Hash, Hasher};
use std::rc::Rc;

use smallvec::SmallVec;

use super::keys::{
    for_each_group, for_each_product, ordinal_options, part_moves, parts_of, CONJUNCTIVE, COUNTER,
    HYPERGRAPH, KIND, MISERE, ONE_PART_HEADER, ORDINAL, PASS, SELECTIVE,
};
use super::nesting::{unbounded_nesting, Nesting};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::compile::{CompiledBody, Env};
use crate::eval::memo::Key;
use crate::eval::product_tables::{
    atom_term, single, Atom, AtomLists, AtomOf, Canonical, PositionKey, ProductTables,
};
use crate::eval::query::game_options;
use crate::eval::search::sg_of_game;
use crate::eval::value::{Compound, CompoundKind, Game, InstanceId, Position};
use crate::syntax::Span;

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
    /// The atom of the position `g`.
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
        let id = self.push_atom(AtomOf::Game(g.clone()));
        self.atom_ids.insert(g.clone(), id);
        id
    }

    /// The atom of the compound `key` (its parts' components sorted, none
    /// dropped).
    fn intern_compound(&mut self, key: &[u32]) -> u32 {
        fn key_of(atoms: &[Atom], id: u32) -> &[u32] {
            match &atoms[id as usize].of {
                AtomOf::Compound(k) => k,
                AtomOf::Game(_) => unreachable!("only compounds are indexed by key"),
            }
        }
        let hash = compound_hash(key);
        let atoms = &mut self.atoms;
        // The hash kept beside the atom: a growth rehashes without
        // reading the keys, and a probe reads a key only when it matches.
        let entry = self.compound_ids.entry(
            hash,
            |&(h, id)| h == hash && key_of(atoms, id) == key,
            |&(h, _)| h,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => e.get().1,
            hashbrown::hash_table::Entry::Vacant(e) => {
                let id = atoms.len() as u32;
                atoms.push(Atom::new(AtomOf::Compound(Rc::from(key))));
                e.insert((hash, id));
                id
            }
        }
    }

    /// The atom of the compound game `c`: its key, its parts flattened.
    fn intern_compound_game(&mut self, c: &Compound) -> u32 {
        let (code, counter) = self.kind_code(&c.kind);
        let mut key = vec![code, counter, c.parts.len() as u32];
        let mut atoms = Vec::new();
        for p in &c.parts {
            atoms.clear();
            self.flatten(p, &mut atoms);
            atoms.sort_unstable();
            key.push(atoms.len() as u32);
            key.extend_from_slice(&atoms);
        }
        self.intern_compound(&key)
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
        let id = self.push_atom(AtomOf::Game(game()));
        self.position_ids.insert(k, id);
        id
    }

    fn push_atom(&mut self, of: AtomOf) -> u32 {
        let id = self.atoms.len() as u32;
        self.atoms.push(Atom::new(of));
        id
    }

    /// Appends the atoms of `g` (a sum is its components; the zero game
    /// has none).
    pub(super) fn flatten(&mut self, g: &Game, out: &mut Vec<u32>) {
        match g {
            Game::Zero => {}
            Game::Sum(parts) => parts.iter().for_each(|p| self.flatten(p, out)),
            Game::Compound(c) => out.push(self.intern_compound_game(c)),
            Game::Position(_) => out.push(self.intern(g)),
        }
    }

    pub(super) fn kind_code(&mut self, kind: &CompoundKind) -> (u32, u32) {
        match kind {
            CompoundKind::Pass(k) => (PASS, *k),
            CompoundKind::Misere => (MISERE, 0),
            CompoundKind::Conjunctive => (CONJUNCTIVE, 0),
            CompoundKind::Selective => (SELECTIVE, 0),
            CompoundKind::Ordinal => (ORDINAL, 0),
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
            ORDINAL => CompoundKind::Ordinal,
            h => CompoundKind::Hypergraph(self.edges[(h - HYPERGRAPH) as usize].clone()),
        }
    }

    /// The game an atom stands for, to show it.
    fn atom_game(&self, atom: u32) -> Game {
        match &self.atoms[atom as usize].of {
            AtomOf::Game(g) => g.clone(),
            AtomOf::Compound(key) => self.to_game(key),
        }
    }

    /// The compound a key stands for, to show it.
    pub(super) fn to_game(&self, key: &[u32]) -> Game {
        let parts = parts_of(key)
            .map(|r| {
                key[r].iter().fold(Game::Zero, |sum, &a| {
                    crate::eval::ops::game_sum(&sum, &self.atom_game(a))
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
}

/// The hash of a nested compound's key in `ProductTables::compound_ids`.
fn compound_hash(key: &[u32]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
}

fn parts_into_sum(parts: Vec<Game>) -> Game {
    parts
        .iter()
        .fold(Game::Zero, |s, p| crate::eval::ops::game_sum(&s, p))
}

/// Computes the options of `atom` (once), interning their components.
pub(super) fn ensure_options(env: &mut Env, atom: u32, span: Span) -> Fallible<()> {
    let of = {
        let t = env.rt.product.borrow();
        let a = &t.atoms[atom as usize];
        if a.options.is_some() {
            return Ok(());
        }
        a.of.clone()
    };
    let list = match of {
        AtomOf::Game(game) => game_options_as_atoms(env, &game, span)?,
        AtomOf::Compound(key) => compound_options(env, &key, span)?,
    };
    // An atom's option lists are stored positions too: nested compounds
    // (`-> misere(M(a) + M(b))`) grow them, not the memo, and the state
    // limit must see that growth.
    env.rt.count_stored_n(1 + list.len(), span, "a compound")?;
    env.rt.product.borrow_mut().atoms[atom as usize].options = Some(Rc::new(list));
    Ok(())
}

/// The options of `game`, each as the sorted atoms of its result.
fn game_options_as_atoms(env: &mut Env, game: &Game, span: Span) -> Fallible<AtomLists> {
    let options = game_options(env, game, span)?;
    let rt = env.rt;
    let mut t = rt.product.borrow_mut();
    let mut atoms = Vec::new();
    let mut list = AtomLists::default();
    for (_, _, to) in &options {
        env.tick(span)?;
        atoms.clear();
        t.flatten(to, &mut atoms);
        atoms.sort_unstable();
        list.push(atoms.iter().copied());
    }
    Ok(list.shrunk())
}

/// The error for a position's move to a compound in which a position
/// leading back to it is nested (`nesting.rs`), at the move.
fn nested_without_end(env: &mut Env, n: &Nesting, span: Span) -> Box<Diag> {
    let (game, nested) = {
        let t = env.rt.product.borrow();
        (t.atom_game(n.position), t.atom_game(n.nested))
    };
    // The move: the position's option that holds the compound.
    let options = game_options(env, &game, span).unwrap_or_default();
    let mut atoms = Vec::new();
    let (label, to) = options
        .iter()
        .find(|(_, _, to)| {
            atoms.clear();
            env.rt.product.borrow_mut().flatten(to, &mut atoms);
            atoms.contains(&n.compound)
        })
        .map_or_else(
            || (None, env.rt.product.borrow().atom_game(n.compound)),
            |(_, m, to)| (Some(m.label.clone()), to.clone()),
        );
    let at = match (&game, &label) {
        (Game::Position(p), Some(label)) => match &env.rt.instance(p.instance).game.body {
            CompiledBody::Moves(moves) => moves.iter().find(|m| m.label == *label).map(|m| m.span),
            CompiledBody::Alias(_) => None,
        },
        _ => None,
    };
    let label = label.map_or_else(String::new, |l| format!(" {l}"));
    let holding = if n.nested == n.position {
        format!("{game} itself, in which the same move can be made again")
    } else {
        format!(
            "{nested}, from which play leads back to {game}: the same move made again inside it"
        )
    };
    // A compound that ends when one part ends: the nesting may end too
    // (when the other parts' plays all end), but it is refused all the same.
    let ends_with_a_part = matches!(
        &env.rt.product.borrow().atoms[n.compound as usize].of,
        AtomOf::Compound(key) if key[KIND] == CONJUNCTIVE || key[KIND] >= HYPERGRAPH
    );
    let why = match ends_with_a_part {
        true => {
            "compounds nested ever deeper, which end only where a part cannot move; \
                 grundy refuses a conjunctive or hypergraph compound nested in itself even when \
                 its other parts' plays all end (not supported)"
        }
        false => "compounds nested ever deeper, without end",
    };
    let d = Diag::new(
        ErrorKind::Loopy,
        at.unwrap_or(span),
        format!("loopy compound: {game}'s move{label} leads to {to}, a compound holding {holding}: {why}"),
    )
    .label(format!("this move leads to a compound holding {nested}"))
    .help("a compound's positions are searched through its components' moves, and a position whose move leads to a compound of a position leading back to it makes new positions for ever (a conjunctive or hypergraph compound too, as long as it can move: such a move is refused all the same); a move to a sum of positions (-> M(0) + M(1)) is valued with the loopy game instead");
    match at {
        Some(_) => d.note(span, "while computing the SG value of this").boxed(),
        None => d.boxed(),
    }
}

/// The options of the nested compound `key`, each as the atoms of its
/// result: the compounds a move in its parts leads to (`query::
/// compound_options` gives the same as games), and for a pass compound
/// the pass (its part itself when it was the last pass).
fn compound_options(env: &mut Env, key: &[u32], span: Span) -> Fallible<AtomLists> {
    for r in parts_of(key) {
        for &a in &key[r] {
            ensure_options(env, a, span)?;
        }
    }
    // A compound nested in a compound: the nesting may go on for ever.
    let nested = parts_of(key).any(|r| {
        (key[r].iter()).any(|&a| {
            matches!(
                env.rt.product.borrow().atoms[a as usize].of,
                AtomOf::Compound(_)
            )
        })
    });
    if nested {
        let found = unbounded_nesting(&mut env.rt.product.borrow_mut());
        if let Some(n) = found {
            return Err(nested_without_end(env, &n, span));
        }
    }
    let rt = env.rt;
    let mut t = rt.product.borrow_mut();
    let (code, counter) = (key[KIND], key[COUNTER]);
    let parts: Vec<&[u32]> = parts_of(key).map(|r| &key[r]).collect();
    if code == ORDINAL {
        let mut keys: Vec<Vec<u32>> = Vec::new();
        let atoms = &t.atoms;
        let options_of = |a: u32| (atoms[a as usize].options.as_deref()).expect("just computed");
        ordinal_options(parts[0], parts[1], options_of, &mut |k| {
            keys.push(k.to_vec())
        });
        let mut list = AtomLists::default();
        for k in &keys {
            // A plain sum is its components; an ordinal sum one atom.
            if k[KIND] == PASS {
                list.push(k[ONE_PART_HEADER..].iter().copied());
            } else {
                list.push([t.intern_compound(k)]);
            }
        }
        return Ok(list.shrunk());
    }
    let moves: Vec<Vec<Vec<u32>>> = (parts.iter())
        .map(|part| {
            part_moves(part, |a| {
                (t.atoms[a as usize].options.as_deref()).expect("just computed")
            })
        })
        .collect();
    // A one-part compound moves in its one part; a product in groups.
    let mut keys: Vec<Vec<u32>> = Vec::new();
    let mut emit_group = |group: &[usize]| {
        let mut chosen = parts.clone();
        for_each_product(group, &moves, &mut chosen, &mut |ps| {
            let mut k = vec![code, counter, ps.len() as u32];
            for p in ps {
                k.push(p.len() as u32);
                k.extend_from_slice(p);
            }
            env.tick(span)?;
            crate::budget::push(&mut keys, k, span)
        })
    };
    if matches!(code, PASS | MISERE) {
        emit_group(&[0])?;
    } else {
        for_each_group(code, parts.len(), &t.edges, &mut emit_group)?;
    }
    // The pass, if the part can move: the part itself after the last.
    let mut pass = None;
    if code == PASS && !keys.is_empty() {
        match counter {
            1 => pass = Some(parts[0]),
            _ => {
                let mut fewer = key.to_vec();
                fewer[COUNTER] -= 1;
                keys.push(fewer);
            }
        }
    }
    let mut list = AtomLists::default();
    for k in &keys {
        list.push([t.intern_compound(k)]);
    }
    if let Some(part) = pass {
        list.push(part.iter().copied());
    }
    Ok(list.shrunk())
}

/// The options of `atom` with terminal components dropped, each distinct
/// one once (computed once).
pub(super) fn canonical_options(env: &mut Env, atom: u32, span: Span) -> Fallible<Rc<Canonical>> {
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
            env.tick(span)?;
            ensure_options(env, b, span)?;
        }
    }
    let mut t = env.rt.product.borrow_mut();
    let mut kept = AtomLists::default();
    // Options that are the same multiset (Kayles' `K(a) + K(b)` and
    // `K(b) + K(a)`) have the same value: walked once, the first kept.
    let mut seen: rustc_hash::FxHashSet<SmallVec<[u32; 4]>> = Default::default();
    for o in options.iter() {
        let list: SmallVec<[u32; 4]> = o.iter().copied().filter(|&b| !t.is_terminal(b)).collect();
        if !seen.contains(&list) {
            kept.push(list.iter().copied());
            seen.insert(list);
        }
    }
    let options = kept.shrunk();
    let terms = options
        .iter()
        .map(|o| o.iter().fold(0u64, |h, &b| h.wrapping_add(atom_term(0, b))))
        .collect();
    let singles = options.iter().map(single).collect();
    let canonical = Rc::new(Canonical {
        options,
        terms,
        singles,
    });
    t.atoms[atom as usize].canonical = Some(canonical.clone());
    Ok(canonical)
}

/// The normal-play value of an atom (cached).
pub(super) fn atom_sg(env: &mut Env, atom: u32, span: Span) -> Fallible<u64> {
    let of = {
        let t = env.rt.product.borrow();
        let a = &t.atoms[atom as usize];
        if let Some(v) = a.sg {
            return Ok(v);
        }
        a.of.clone()
    };
    let v = match of {
        AtomOf::Game(game) => sg_of_game(env, &game, span)?,
        // The product search sits above this module: asked through the
        // runtime, as a compiled query asks it.
        AtomOf::Compound(key) => {
            (env.rt.above.sg_of_atoms)(env, &mut key.iter().copied().collect(), span)?
        }
    };
    env.rt.product.borrow_mut().atoms[atom as usize].sg = Some(v);
    Ok(v)
}

/// The value of a pass compound with no pass left, or of an ordinal sum
/// with an empty side (`G : 0` is `G`, `0 : H` is `H`, move for move): a
/// plain sum, valued by the theorem. `None` for any other key.
pub(super) fn plain_value(env: &mut Env, key: &[u32], span: Span) -> Fallible<Option<u64>> {
    let plain = match (key[KIND], key[COUNTER]) {
        (PASS, 0) => true,
        (ORDINAL, _) => parts_of(key).any(|r| r.is_empty()),
        _ => false,
    };
    if !plain {
        return Ok(None);
    }
    let mut x = 0;
    for r in parts_of(key) {
        for &a in &key[r] {
            let v = atom_sg(env, a, span)?;
            x = env.rt.inf_sets.borrow_mut().add(x, v);
        }
    }
    Ok(Some(x))
}
