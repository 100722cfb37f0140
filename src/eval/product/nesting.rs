//! Compounds nested without end. A position whose move leads to a
//! compound holding a position from which play leads back to it
//! (`misere(M(0))` from `M(0)`; `M(0) -> misere(M(1))` with `M(1) ->
//! misere(M(0))`, or with plain moves between) makes the product search
//! list compounds one level deeper at every turn, for ever: inside the
//! compound the same move is made again.
//!
//! It is read off the graph of the atoms listed so far: a position to the
//! atoms of its options, a compound that can move to its components (a
//! compound with no option, such as a conjunctive one with a part that
//! cannot move, nests nothing). A cycle through a position's edge to a
//! compound is that nesting repeated (a compound's edges go to its
//! components, so the cycle goes down into it and back to the position);
//! a cycle of positions alone is a loopy game, which the search reports
//! as such. The graph is read only when a nested compound holding a
//! nested compound is listed, and then again once the atoms have doubled
//! (`ProductTables::next_nesting_check`): nesting without end makes new
//! atoms without end, so it is met; the checks cost at most twice the
//! atoms listed, and compounds that nest nothing cost nothing.

use crate::eval::loopy::graph::Graph;
use crate::eval::product_tables::{AtomOf, ProductTables};

/// A position's move to a compound in which a position leading back to
/// it is nested: the three atoms.
pub(super) struct Nesting {
    pub position: u32,
    pub compound: u32,
    pub nested: u32,
}

/// The nesting without end among the atoms listed so far, if any; when
/// there is none, the next check waits until the atoms have doubled.
pub(super) fn unbounded_nesting(t: &mut ProductTables) -> Option<Nesting> {
    if t.atoms.len() < t.next_nesting_check {
        return None;
    }
    let found = find(t);
    if found.is_none() {
        t.next_nesting_check = 2 * t.atoms.len();
    }
    found
}

fn find(t: &ProductTables) -> Option<Nesting> {
    let mut g = Graph::default();
    for _ in &t.atoms {
        g.add_vertex(None);
    }
    for a in &t.atoms {
        match (&a.of, &a.options) {
            (AtomOf::Game(_), Some(options)) => {
                options.iter().flatten().for_each(|&b| g.push_edge(b))
            }
            (AtomOf::Compound(key), Some(options)) if !options.is_empty() => {
                components(key).for_each(|b| g.push_edge(b))
            }
            _ => {}
        }
        g.close();
    }
    let comp = g.components();
    let is_compound = |b: u32| matches!(t.atoms[b as usize].of, AtomOf::Compound(_));
    // The positions nested in the compound `c` that are on its cycle,
    // `x` itself if it is one (the message then says so), else the first.
    let nested_in = |c: u32, x: u32| {
        let (mut first, mut down) = (None, vec![c]);
        while let Some(c) = down.pop() {
            for b in g
                .succ(c as usize)
                .filter(|&b| comp[b as usize] == comp[x as usize])
            {
                match is_compound(b) {
                    true => down.push(b),
                    false if b == x => return b,
                    false => first = first.or(Some(b)),
                }
            }
        }
        first.expect("a cycle through a compound goes down to a position in it")
    };
    let mut found = None;
    for x in 0..t.atoms.len() as u32 {
        if is_compound(x) {
            continue;
        }
        let on_cycle = |&c: &u32| is_compound(c) && comp[c as usize] == comp[x as usize];
        for c in g.succ(x as usize).filter(on_cycle) {
            let nested = nested_in(c, x);
            let n = Nesting {
                position: x,
                compound: c,
                nested,
            };
            if nested == x {
                return Some(n);
            }
            found = found.or(Some(n));
        }
    }
    found
}

/// The components of a compound's key, all its parts.
fn components(key: &[u32]) -> impl Iterator<Item = u32> + '_ {
    super::keys::parts_of(key).flat_map(move |r| key[r].iter().copied())
}
