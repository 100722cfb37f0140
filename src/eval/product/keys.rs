//! The layout of a compound's packed key, shared by the atoms' options,
//! the search and the entry points.

use std::ops::Range;

use crate::diag::Fallible;
use crate::eval::product_tables::{merge_without, AtomLists};

pub(super) use crate::eval::product_tables::{
    CONJUNCTIVE, COUNTER, HEADER, HYPERGRAPH, KIND, MISERE, N_PARTS, ORDINAL, PASS, SELECTIVE,
};

/// Key header of a one-part compound: `[kind, counter, 1, len]`.
pub(super) const ONE_PART_HEADER: usize = HEADER + 1;

/// Memo value of a position on the current search path.
pub(super) const ON_PATH: u64 = u64::MAX;

/// The ranges of a key's parts.
pub(super) fn parts_of(key: &[u32]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = HEADER;
    (0..key[N_PARTS]).map(move |_| {
        let len = key[at] as usize;
        let r = at + 1..at + 1 + len;
        at = r.end;
        r
    })
}

/// Each group of parts a compound of `code` moves in together, to `f`:
/// all of them (conjunctive), every non-empty set (selective, 2^n - 1 of
/// them, made one at a time), or the edges of the hypergraph (`edges`,
/// the session's edge lists).
pub(super) fn for_each_group(
    code: u32,
    n: usize,
    edges: &[std::rc::Rc<Vec<Vec<usize>>>],
    f: &mut impl FnMut(&[usize]) -> Fallible<()>,
) -> Fallible<()> {
    match code {
        CONJUNCTIVE => f(&(0..n).collect::<Vec<_>>()),
        SELECTIVE => {
            // A binary counter over the parts: every non-empty subset.
            let mut chosen = vec![false; n];
            let mut group = Vec::with_capacity(n);
            loop {
                let Some(first_clear) = chosen.iter().position(|c| !c) else {
                    return Ok(());
                };
                chosen[..first_clear].fill(false);
                chosen[first_clear] = true;
                group.clear();
                group.extend((0..n).filter(|&i| chosen[i]));
                f(&group)?;
            }
        }
        h => edges[(h - HYPERGRAPH) as usize]
            .iter()
            .try_for_each(|group| f(group)),
    }
}

/// The options of the ordinal sum `base : top` (sorted multisets whose
/// components' options `options_of` gives): a move in the base, which
/// removes the top, as a plain sum (a pass key with no pass left); a move
/// in the top, keeping the base, as an ordinal key, or the base alone
/// when the top has no component left. Each option's key goes to `emit`.
pub(super) fn ordinal_options<'o>(
    base: &[u32],
    top: &[u32],
    mut options_of: impl FnMut(u32) -> &'o AtomLists,
    emit: &mut impl FnMut(&[u32]),
) {
    let mut key = Vec::new();
    let plain = |key: &mut Vec<u32>, atoms: &[u32]| {
        key.clear();
        key.extend_from_slice(&[PASS, 0, 1, atoms.len() as u32]);
        key.extend_from_slice(atoms);
    };
    for moved in part_moves(base, &mut options_of) {
        plain(&mut key, &moved);
        emit(&key);
    }
    for moved in part_moves(top, &mut options_of) {
        if moved.is_empty() {
            plain(&mut key, base);
        } else {
            key.clear();
            key.extend_from_slice(&[ORDINAL, 0, 2, base.len() as u32]);
            key.extend_from_slice(base);
            key.push(moved.len() as u32);
            key.extend_from_slice(&moved);
        }
        emit(&key);
    }
}

/// Every way of moving in each part of `group` at once, the other parts
/// staying as `chosen` holds them: `moves[i]` lists the multisets part
/// `i` can move to. `emit` gets the parts of each option.
pub(super) fn for_each_product<'a>(
    group: &[usize],
    moves: &'a [Vec<Vec<u32>>],
    chosen: &mut Vec<&'a [u32]>,
    emit: &mut impl FnMut(&[&[u32]]) -> Fallible<()>,
) -> Fallible<()> {
    let Some((&i, rest)) = group.split_first() else {
        return emit(chosen);
    };
    let saved = chosen[i];
    for m in &moves[i] {
        chosen[i] = m;
        for_each_product(rest, moves, chosen, emit)?;
    }
    chosen[i] = saved;
    Ok(())
}

/// The multisets the sorted `part` can move to: one component replaced
/// by the components of one of its options (`options_of`), merged in
/// order. A repeated component has the same moves: listed once.
pub(super) fn part_moves<'o>(
    part: &[u32],
    mut options_of: impl FnMut(u32) -> &'o AtomLists,
) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for (i, &a) in part.iter().enumerate() {
        if i > 0 && part[i - 1] == a {
            continue;
        }
        for o in options_of(a).iter() {
            let mut moved = Vec::with_capacity(part.len() - 1 + o.len());
            merge_without(part, i, o, |x| moved.push(x));
            out.push(moved);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selective_compound_moves_in_every_nonempty_set_of_its_parts() {
        // More parts than a 20-bit mask holds: every one of the 2^21 - 1
        // non-empty sets comes once, each in increasing order.
        let n = 21;
        let mut seen = vec![false; 1 << n];
        let mut count = 0usize;
        for_each_group(SELECTIVE, n, &[], &mut |group| {
            assert!(group.windows(2).all(|w| w[0] < w[1]));
            let mask: usize = group.iter().map(|&i| 1 << i).sum();
            assert!(mask != 0 && !seen[mask], "{group:?}");
            seen[mask] = true;
            count += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(count, (1 << n) - 1);
        let mut all = Vec::new();
        for_each_group(CONJUNCTIVE, 3, &[], &mut |g| {
            all.push(g.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(all, [vec![0, 1, 2]]);
    }
}
