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
use super::product_tables::{key_hash, AtomOf, ProductTables};
use super::search::{loop_diag, sg_of_layered};
use super::value::{Compound, CompoundKind, Game};
use crate::diag::Fallible;
use crate::eval::gsg::is_infinite;
use crate::syntax::Span;
use atoms::{atom_sg, ensure_options, plain_value};
use keys::ON_PATH;

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
    if let (Some(kind), [Game::Position(p)]) = (LayerKind::of(&root.kind), &root.parts[..]) {
        let key = Key::from_args(&p.args);
        if let Some(v) = sg_of_layered(env, kind, p.instance, &key, span)? {
            return Ok(v);
        }
    } else {
        note_product_plan(env, &root.kind, root.parts.len());
    }
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
    match (LayerKind::of(kind), &*parts) {
        (Some(layer), [atoms]) if atoms.len() == 1 => {
            if let Some(v) = layered_atom(env, layer, atoms, span)? {
                return Ok(v);
            }
        }
        _ => note_product_plan(env, kind, parts.len()),
    }
    let (code, counter) = env.rt.product.borrow_mut().kind_code(kind);
    let mut key: RootKey = SmallVec::new();
    key.extend([code, counter, parts.len() as u32]);
    for atoms in parts.iter_mut() {
        push_part(env, &mut key, atoms, span)?;
    }
    value_of(env, &key, span)
}

/// Notes for `--explain` that a compound other than one of a single
/// position goes to the product search.
fn note_product_plan(env: &Env, kind: &CompoundKind, parts: usize) {
    env.rt.note_compound_plan(|| {
        let name = match kind {
            CompoundKind::Pass(_) => "pass",
            CompoundKind::Misere => "misere",
            CompoundKind::Conjunctive => "conjunctive",
            CompoundKind::Selective => "selective",
            CompoundKind::Hypergraph(_) => "hypergraph",
            CompoundKind::Ordinal => "ordinal",
        };
        let s = if parts == 1 { "" } else { "s" };
        format!(
            "compound {name} of {parts} part{s} not one position: product search (a position \
             is the multiset of each part's components, each component's options listed once)"
        )
    });
}

/// `sg_of_layered` of a part that is one atom, a position.
fn layered_atom(
    env: &mut Env,
    kind: LayerKind,
    atoms: &[u32],
    span: Span,
) -> Fallible<Option<u64>> {
    let position = match atoms {
        [a] => match &env.rt.product.borrow().atoms[*a as usize].of {
            AtomOf::Game(Game::Position(p)) => Some(p.clone()),
            _ => None,
        },
        _ => None,
    };
    match position {
        Some(p) => sg_of_layered(env, kind, p.instance, &Key::from_args(&p.args), span),
        None => Ok(None),
    }
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
        atoms.clone().try_fold(0, |x, a| {
            t.atoms[a as usize]
                .sg
                .filter(|v| !is_infinite(*v))
                .map(|v| x ^ v)
        })
    };
    if let Some(x) = known {
        return Ok(x);
    }
    let mut x = 0;
    for a in atoms {
        let v = atom_sg(env, a, span)?;
        x = env.rt.inf_sets.borrow_mut().add(x, v);
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
