//! The memo of compound positions. A one-part key with few components
//! (`pass(A + B + C)`, `misere(A + B)`) goes to a dense table per kind,
//! pass counter and number of components, at the colex rank of its sorted
//! components: options that change one component read nearby entries,
//! with no hashing. Other keys go to an exact table hashed as multisets
//! (`table.rs`): callers pass the key's hash, which the search updates
//! per option instead of hashing each option's key.

use super::table::KeyTable;

/// Components of a key a dense table takes at most.
const DENSE_LEN: usize = 4;
/// Entries a dense table may grow to (4 bytes each).
const DENSE_CAP: u64 = 1 << 24;

/// Dense entries: 0 unknown, 1 on the search path, `v + 2` the value `v`;
/// `IN_HASH`: a value too large, kept in the hash table.
const UNKNOWN: u32 = 0;
const ON_PATH_CODE: u32 = 1;
const IN_HASH: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct ProductMemo {
    /// By `[kind, counter, components]`: a few tables, found by a scan.
    dense: Vec<([u32; 3], Vec<u32>)>,
    hashed: KeyTable,
}

/// Where a key lives: its dense table and rank, or the hash table.
fn place(key: &[u32]) -> Option<([u32; 3], usize)> {
    // [kind, counter, n_parts, len, atoms...]
    let (&[code, counter, 1, len], atoms) = key.split_first_chunk::<4>()? else {
        return None;
    };
    if atoms.len() > DENSE_LEN || atoms.len() != len as usize {
        return None;
    }
    // Sorted a_1 <= a_2 <= ... map to the strictly increasing b_i = a_i + i;
    // the rank is the sum of C(b_i, i + 1) (the colex rank of a multiset),
    // so every multiset of components below n ranks below C(n + k - 1, k):
    // a table only grows as components are interned.
    let mut rank = 0u64;
    for (i, &a) in atoms.iter().enumerate() {
        let b = a as u64 + i as u64;
        // C(b, i + 1) (divisions by constants); past the cap the key is
        // hashed.
        let pairs = || Some(b.checked_mul(b - 1)? / 2);
        let c = match i {
            0 => b,
            1 => pairs()?,
            2 => pairs()?.checked_mul(b - 2)? / 3,
            _ => (pairs()?.checked_mul(b - 2)? / 3).checked_mul(b - 3)? / 4,
        };
        rank += c;
        if rank >= DENSE_CAP {
            return None;
        }
    }
    Some(([code, counter, len], rank as usize))
}

impl ProductMemo {
    /// The stored value, `Some(on_path)` for a position on the search
    /// path; `hash` is the key's `table::key_hash`.
    pub(crate) fn get(&self, key: &[u32], hash: u64, on_path: u64) -> Option<u64> {
        let Some((table, rank)) = place(key) else {
            return self.hashed.get(key, hash);
        };
        let t = self.dense.iter().find(|(id, _)| *id == table);
        match t.and_then(|(_, t)| t.get(rank)) {
            None | Some(&UNKNOWN) => None,
            Some(&ON_PATH_CODE) => Some(on_path),
            Some(&IN_HASH) => self.hashed.get(key, hash),
            Some(&code) => Some(code as u64 - 2),
        }
    }

    /// `get` of the one-part key `[code, counter, 1, len]` whose
    /// components are `part` without its item `skip`, with the sorted `add`
    /// merged in; `hash` is its hash. Keys for the hash table are not
    /// built.
    pub(crate) fn get_replaced(
        &self,
        [code, counter]: [u32; 2],
        part: &[u32],
        skip: usize,
        add: &[u32],
        hash: u64,
        on_path: u64,
    ) -> Option<u64> {
        let len = part.len() - 1 + add.len();
        let header = [code, counter, 1, len as u32];
        if len > DENSE_LEN {
            return self.hashed.get_replaced(&header, (part, skip, add), hash);
        }
        let mut key = smallvec::SmallVec::<[u32; 4 + DENSE_LEN]>::new();
        key.extend_from_slice(&header);
        let mut rest = part
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(_, &a)| a)
            .peekable();
        let mut add = add.iter().copied().peekable();
        while let Some(&a) = rest.peek() {
            match add.peek() {
                Some(&b) if b < a => key.push(add.next().expect("peeked")),
                _ => key.push(rest.next().expect("peeked")),
            }
        }
        key.extend(add);
        self.get(&key, hash, on_path)
    }

    /// Stores `v` (or `on_path` itself, to mark the position on the path).
    pub(crate) fn insert(&mut self, key: &[u32], hash: u64, v: u64, on_path: u64) {
        let Some((table, rank)) = place(key) else {
            self.hashed.insert(key, hash, v);
            return;
        };
        let code = if v == on_path {
            ON_PATH_CODE
        } else if v < (IN_HASH - 2) as u64 {
            v as u32 + 2
        } else {
            self.hashed.insert(key, hash, v);
            IN_HASH
        };
        let t = match self.dense.iter().position(|(id, _)| *id == table) {
            Some(i) => &mut self.dense[i].1,
            None => {
                self.dense.push((table, Vec::new()));
                &mut self.dense.last_mut().expect("just pushed").1
            }
        };
        if t.len() <= rank {
            t.resize((rank + 1).next_power_of_two(), UNKNOWN);
        }
        t[rank] = code;
    }

    pub(crate) fn remove(&mut self, key: &[u32], hash: u64) {
        if let Some((table, rank)) = place(key) {
            let t = self.dense.iter_mut().find(|(id, _)| *id == table);
            if let Some(e) = t.and_then(|(_, t)| t.get_mut(rank)) {
                *e = UNKNOWN;
            }
        }
        self.hashed.remove(key, hash);
    }

    /// Every stored value (not on the path) with the kind of its key.
    pub(crate) fn for_each_value(&self, mut f: impl FnMut(u32, u64)) {
        for ([kind, _, _], t) in &self.dense {
            let kind = *kind;
            for &code in t {
                if code != UNKNOWN && code != ON_PATH_CODE && code != IN_HASH {
                    f(kind, code as u64 - 2);
                }
            }
        }
        self.hashed.for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::key_hash;
    use super::*;

    #[test]
    fn ranks_are_one_to_one_on_sorted_multisets() {
        // Every sorted multiset of up to 4 components below 12: distinct
        // ranks, and those of k components below n fill 0..C(n + k - 1, k).
        for k in 0..=4usize {
            let mut ranks = Vec::new();
            let mut atoms = vec![0u32; k];
            loop {
                let mut key = vec![0, 1, 1, k as u32];
                key.extend(&atoms);
                ranks.push(place(&key).expect("dense").1);
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
            memo.insert(k, key_hash(k), on_path, on_path);
            assert_eq!(memo.get(k, key_hash(k), on_path), Some(on_path));
            memo.insert(k, key_hash(k), i as u64 * 1_000_000_000, on_path);
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
}
