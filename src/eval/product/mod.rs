//! The product search for compounds no theorem decomposes (pass, misère,
//! conjunctive, selective, hypergraph, ordinal sum).
//!
//! A compound position is a packed key of small integers: the compound's
//! kind, its pass counter, and for each part the sorted multiset of the
//! part's components. A component (an *atom*: a position of a game, or a
//! nested compound) is interned once, and its options are enumerated once
//! (a position's through its game's compiled moves, a nested compound's
//! from its components') and kept as sorted atom lists, so the search
//! builds an option by merging integers, never a game value. Sums
//! are canonical: components in a fixed order, terminal components
//! dropped, so equal positions meet in one memo entry. A pass compound
//! with no pass left is a plain sum: the Sprague-Grundy theorem values it;
//! so is an ordinal sum's option that moved in its base (the top is gone).

mod atoms;
mod keys;
mod nesting;
mod search;

use smallvec::SmallVec;

use super::compile::{Env, LayerKind};
use super::memo::Key;
use super::product_tables::{key_hash, AtomOf, ProductTables, RootKey};
use super::search::{loop_diag, sg_of_layered};
use super::value::{Compound, CompoundKind, Game};
use crate::diag::Fallible;
use crate::syntax::Span;
use atoms::{ensure_options, plain_value};
use keys::{
    parts_of, CONJUNCTIVE, COUNTER, HEADER, KIND, MISERE, N_PARTS, ON_PATH, ORDINAL, PASS,
    SELECTIVE,
};

impl ProductTables {
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

/// The value of a compound: its SG value, or for `misere(E)` the misère
/// Grundy value (terminal positions have value 1).
pub fn sg(env: &mut Env, root: &Compound, span: Span) -> Fallible<u64> {
    let mut key = {
        let mut t = env.rt.product.borrow_mut();
        let (code, counter) = t.kind_code(&root.kind);
        let mut key: RootKey = SmallVec::new();
        key.extend([code, counter, root.parts.len() as u32]);
        let mut atoms = Vec::new();
        for p in &root.parts {
            atoms.clear();
            t.flatten(p, &mut atoms);
            key.push(atoms.len() as u32);
            key.extend(atoms.iter().copied());
        }
        key
    };
    sg_of_atoms(env, &mut key, span)
}

/// The value of the compound `key` (`RootKey`: each part's atoms, interned
/// by `intern_position`, in any order), with no game value built: what a
/// compiled query such as `sg(pass(Heap(a) + Heap(b)))` asks, and a sum
/// as a pass compound with no pass left.
pub fn sg_of_atoms(env: &mut Env, key: &mut RootKey, span: Span) -> Fallible<u64> {
    let layer = match (key[KIND], key[COUNTER]) {
        (PASS, n) if n > 0 => LayerKind::of(&CompoundKind::Pass(n)),
        (MISERE, _) => Some(LayerKind::Misere),
        _ => None,
    };
    match (layer, &key[HEADER..]) {
        (Some(layer), &[1, atom]) if key[N_PARTS] == 1 => {
            if let Some(v) = layered_atom(env, layer, key[KIND], atom, span)? {
                return Ok(v);
            }
        }
        _ => {
            if let Some(v) = env.rt.product.borrow().known_value(key) {
                return Ok(v);
            }
            // A plain sum needs no options listed: its atoms' values.
            if let Some(v) = plain_value(env, key, span)? {
                return Ok(v);
            }
            note_product_plan(env, key[KIND], key[N_PARTS]);
        }
    }
    let listed = env.rt.product.borrow().canonical_in_place(key);
    if !listed {
        for a in atoms_of(key) {
            ensure_options(env, a, span)?;
        }
        env.rt.product.borrow().canonical_in_place(key);
    }
    value_of(env, key, span)
}

/// The atoms of every part of `key`, one after another.
fn atoms_of(key: &[u32]) -> RootKey {
    parts_of(key).flat_map(|r| key[r].iter().copied()).collect()
}

/// Notes for `--explain` that a compound other than one of a single
/// position goes to the product search.
fn note_product_plan(env: &Env, code: u32, parts: u32) {
    env.rt.note_compound_plan(|| {
        let name = match code {
            PASS => "pass",
            MISERE => "misere",
            CONJUNCTIVE => "conjunctive",
            SELECTIVE => "selective",
            ORDINAL => "ordinal",
            _ => "hypergraph",
        };
        let s = if parts == 1 { "" } else { "s" };
        format!(
            "compound {name} of {parts} part{s} not one position: product search (a position \
             is the multiset of each part's components, each component's options listed once)"
        )
    });
}

/// `sg_of_layered` of a part that is one atom, a position (the compound
/// of a nested compound is noted as the product search's).
fn layered_atom(
    env: &mut Env,
    kind: LayerKind,
    code: u32,
    atom: u32,
    span: Span,
) -> Fallible<Option<u64>> {
    let position = match &env.rt.product.borrow().atoms[atom as usize].of {
        AtomOf::Game(Game::Position(p)) => Some(p.clone()),
        _ => None,
    };
    match position {
        Some(p) => sg_of_layered(env, kind, p.instance, &Key::from_args(&p.args), span),
        None => {
            note_product_plan(env, code, 1);
            Ok(None)
        }
    }
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
    env.rt.product.borrow_mut().searching += 1;
    let result = search.run(env, key, hash, span);
    if result.is_err() {
        search.forget_path(env);
    }
    search.clear();
    let mut t = env.rt.product.borrow_mut();
    t.searching -= 1;
    t.spare = Some(search);
    drop(t);
    result
}
