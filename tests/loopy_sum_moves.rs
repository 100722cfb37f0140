//! Loopy games whose moves lead to sums of positions (issue 34): a move
//! that splits a token (or a heap) in two. grundy's values are checked
//! against the explicit graph of such a game, whose positions are the
//! multisets of tokens (a move moves or splits one of them), written out
//! here: a plain win/lose/draw retrograde over it for the outcomes, the
//! definition of the generalised SG function on it (Smith 1966; Fraenkel
//! and Yesha 1986) for every multiset's value, and Smith's remoteness as
//! the least solution of its equations.

use crate::common::{same_both_ways, same_both_ways_with};
use crate::loopy::{
    adjacency_text, brute_outcomes, check_definition, items, mex, outcome_of, parse_gsg,
    parse_outcome, Gsg, Outcome,
};

use std::collections::HashMap;

use proptest::prelude::*;

/// A game of tokens: `go[v]` the vertices a token on `v` slides to,
/// `split[v]` the pairs it splits into.
#[derive(Clone, Debug)]
struct Tokens {
    go: Vec<Vec<usize>>,
    split: Vec<Vec<(usize, usize)>>,
}

/// The explicit graph of the multisets of tokens reachable from single
/// tokens: `states[i]` (sorted) and its options `adj[i]`; the single
/// token `v` is `states[single[v]]`. A token with no move is left out of
/// a multiset: it is the zero game, so the graph is the same.
struct Explicit {
    states: Vec<Vec<usize>>,
    adj: Vec<Vec<usize>>,
    single: Vec<usize>,
}

impl Tokens {
    fn n(&self) -> usize {
        self.go.len()
    }

    fn stuck(&self, v: usize) -> bool {
        self.go[v].is_empty() && self.split[v].is_empty()
    }

    fn rules(&self) -> String {
        let pairs: Vec<String> = (self.split.iter())
            .map(|ps| {
                let ps: Vec<String> = ps.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
                format!("[{}]", ps.join(", "))
            })
            .collect();
        format!(
            "let E = {}\nlet S = [{}]\ngame T(v) where 0 <= v < {} {{\n    move go(w in E[v]) -> T(w)\n    \
             move split(p in S[v]) -> T(p[0]) + T(p[1])\n}}\n",
            adjacency_text(&self.go),
            pairs.join(", "),
            self.n()
        )
    }

    /// The explicit graph, `None` past `cap` multisets.
    fn explicit(&self, cap: usize) -> Option<Explicit> {
        self.explicit_from(0..self.n(), cap, usize::MAX)
    }

    /// The explicit graph from the single tokens `starts` (`single` in
    /// their order), `None` past `cap` multisets or `most` tokens in one.
    fn explicit_from(
        &self,
        starts: impl Iterator<Item = usize>,
        cap: usize,
        most: usize,
    ) -> Option<Explicit> {
        let mut ids: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut states: Vec<Vec<usize>> = Vec::new();
        let mut id = |s: Vec<usize>, states: &mut Vec<Vec<usize>>| {
            let mut s: Vec<usize> = s.into_iter().filter(|&v| !self.stuck(v)).collect();
            s.sort_unstable();
            *ids.entry(s.clone()).or_insert_with(|| {
                states.push(s);
                states.len() - 1
            })
        };
        let single: Vec<usize> = starts.map(|v| id(vec![v], &mut states)).collect();
        let mut adj: Vec<Vec<usize>> = Vec::new();
        while adj.len() < states.len() {
            if states.len() > cap || states[adj.len()].len() > most {
                return None;
            }
            let s = states[adj.len()].clone();
            let mut row = Vec::new();
            for j in 0..s.len() {
                let others = || {
                    s.iter()
                        .enumerate()
                        .filter(move |&(i, _)| i != j)
                        .map(|(_, &v)| v)
                };
                for &w in &self.go[s[j]] {
                    row.push(id(others().chain([w]).collect(), &mut states));
                }
                for &(a, b) in &self.split[s[j]] {
                    row.push(id(others().chain([a, b]).collect(), &mut states));
                }
            }
            adj.push(row);
        }
        Some(Explicit {
            states,
            adj,
            single,
        })
    }
}

/// Smith's remoteness of the vertices that are not draws, as the least
/// solution of its equations (a terminal vertex 0, an N-vertex 1 + the
/// least of its P-options', a P-vertex 1 + the largest of its options'),
/// found by raising every value from 0 until none changes.
fn least_remoteness(adj: &[Vec<usize>], outcomes: &[Outcome]) -> Vec<Option<u64>> {
    let mut rem = vec![0u64; adj.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (u, ws) in adj.iter().enumerate() {
            let r = match outcomes[u] {
                Outcome::D => continue,
                _ if ws.is_empty() => 0,
                Outcome::N => ws
                    .iter()
                    .filter(|&&w| outcomes[w] == Outcome::P)
                    .map(|&w| 1 + rem[w])
                    .min()
                    .expect("an N-vertex has a P-option"),
                Outcome::P => ws.iter().map(|&w| 1 + rem[w]).max().expect("an option"),
            };
            if r != rem[u] {
                rem[u] = r;
                changed = true;
            }
        }
    }
    (0..adj.len())
        .map(|u| (outcomes[u] != Outcome::D).then_some(rem[u]))
        .collect()
}

/// A multiset of tokens as a sum in the rules' language.
fn sum_text(state: &[usize]) -> String {
    let parts: Vec<String> = state.iter().map(|v| format!("T({v})")).collect();
    parts.join(" + ")
}

/// Checks grundy's values of the single tokens (asked in reverse order,
/// then their outcomes and remoteness) and of every multiset of the
/// explicit graph (as sums) against that graph. Returns the single
/// tokens' values.
fn check_tokens(game: &Tokens, x: &Explicit) -> Result<Vec<Gsg>, String> {
    let n = game.n();
    let sums: Vec<String> = (x.states.iter())
        .filter(|s| !s.is_empty())
        .map(|s| format!("sg({})", sum_text(s)))
        .collect();
    let text = format!(
        "{}print [sg(T(v)) for v in reversed(list(0..{n}))]\nprint [outcome(T(v)) for v in 0..{n}]\n\
         print [if outcome(T(v)) == D then -1 else remoteness(T(v)) for v in 0..{n}]\nprint [{}]\n",
        game.rules(),
        sums.join(", ")
    );
    // A graph that does not end is reported, not waited for. The memory
    // count is the process's, shared with the other tests of this binary
    // running beside this one (together up to about 3.4 GB): a limit of
    // 1 GiB failed them now and then, in the prelude.
    let limits = grundy::Limits {
        timeout: Some(std::time::Duration::from_secs(20)),
        max_memory: 8 << 30,
        ..grundy::Limits::default()
    };
    let out = same_both_ways_with(&text, limits);
    let lines: Vec<&str> = out.lines().collect();
    if lines.len() != 4 {
        return Err(format!("output: {out}"));
    }
    let mut singles: Vec<Gsg> = items(lines[0]).into_iter().map(parse_gsg).collect();
    singles.reverse();
    let outcomes: Vec<Outcome> = items(lines[1]).into_iter().map(parse_outcome).collect();
    let rem: Vec<Option<u64>> = (items(lines[2]).into_iter())
        .map(|r| r.parse().ok().filter(|&r: &i64| r >= 0).map(|r| r as u64))
        .collect();
    let mut printed = items(lines[3]).into_iter().map(parse_gsg);
    let vals: Vec<Gsg> = (x.states.iter())
        .map(|s| match s.is_empty() {
            true => Gsg::Finite(0),
            false => printed.next().expect("a value per multiset"),
        })
        .collect();
    let brute = brute_outcomes(&x.adj);
    let brute_rem = least_remoteness(&x.adj, &brute);
    for v in 0..n {
        let s = x.single[v];
        if singles[v] != vals[s] {
            return Err(format!(
                "T({v}) = {:?} alone, {:?} as a sum",
                singles[v], vals[s]
            ));
        }
        if outcomes[v] != brute[s] || rem[v] != brute_rem[s] {
            return Err(format!(
                "T({v}): outcome {:?}, remoteness {:?}; the explicit graph's {:?}, {:?}",
                outcomes[v], rem[v], brute[s], brute_rem[s]
            ));
        }
    }
    for (u, s) in x.states.iter().enumerate() {
        if outcome_of(&vals[u]) != brute[u] {
            return Err(format!(
                "{s:?} = {:?}, the retrograde's {:?}",
                vals[u], brute[u]
            ));
        }
    }
    check_definition(&x.adj, &vals).map_err(|e| {
        let named: Vec<String> = x.states.iter().map(|s| format!("{s:?}")).collect();
        format!("{e} (states {named:?})")
    })?;
    Ok(singles)
}

/// A random token game from `seed`. Tokens are in levels of three: a
/// token slides within its level or below (cycles within levels) and
/// splits into two tokens of lower levels. With `reach_back`, token 0
/// has no move and a token splits into any token and token 0, so the
/// split's first part may reach back to the token split (a cycle through
/// a sum); the explicit graph stays finite since token 0 is the zero game.
fn random_tokens(n: usize, seed: u64, reach_back: bool) -> Tokens {
    let mut s = seed | 1;
    let mut next = |m: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % m as u64) as usize
    };
    let mut game = Tokens {
        go: vec![Vec::new(); n],
        split: vec![Vec::new(); n],
    };
    for v in 0..n {
        if reach_back && v == 0 {
            continue;
        }
        let below = (v / 3) * 3;
        let within = (below + 3).min(n);
        for _ in 0..next(3) {
            game.go[v].push(next(within));
        }
        for _ in 0..next(3) {
            match reach_back {
                true => game.split[v].push((next(n), 0)),
                false if below > 0 => game.split[v].push((next(below), next(below))),
                false => {}
            }
        }
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_games_with_splits_match_the_explicit_graph(
        n in 2usize..=9,
        seed in any::<u64>(),
        reach_back in any::<bool>(),
    ) {
        let game = random_tokens(n, seed, reach_back);
        let x = game.explicit(3000);
        prop_assume!(x.is_some());
        let x = x.expect("assumed");
        prop_assert_eq!(check_tokens(&game, &x).map(|_| ()), Ok(()), "{:?}", game);
    }
}

#[test]
fn a_split_into_two_draws_is_a_draw_with_an_empty_k() {
    // Tokens 0 and 1 move to each other only (draws); token 2 splits into
    // both, or slides to either; token 3 splits into 2 and a stuck token.
    let game = Tokens {
        go: vec![vec![1], vec![0], vec![0, 1], vec![], vec![]],
        split: vec![vec![], vec![], vec![(0, 1)], vec![(2, 4)], vec![]],
    };
    let x = game.explicit(100).expect("a small graph");
    let vals = check_tokens(&game, &x).unwrap_or_else(|e| panic!("{e}"));
    let inf = |v: &Gsg| matches!(v, Gsg::Infinite(_));
    assert!(
        inf(&vals[0]) && inf(&vals[1]),
        "two infinite parts: {vals:?}"
    );
    assert_eq!(vals[2], Gsg::Infinite(Vec::new()));
}

/// A heap game with cycles (put one back at 3 mod 5, a heap of 6 mod 7
/// may pass) whose split moves lead to sums: `G(12)` splits into two
/// heaps of 6, both infinite.
#[test]
fn a_heap_game_with_splits_matches_the_explicit_graph() {
    let n_max = 20usize;
    let rules = format!(
        "game G(n) where 0 <= n <= {n_max} {{\n    move take(k in 1..=2) if k <= n -> G(n - k)\n    \
         move put if n % 5 == 3 and n < {n_max} -> G(n + 1)\n    move pass if n % 7 == 6 -> G(n)\n    \
         move split(a in 2..n) if a <= n - a -> G(a) + G(n - a)\n}}\n"
    );
    // The same rules as tokens: heap n is token n.
    let game = Tokens {
        go: (0..=n_max)
            .map(|n| {
                let takes = (1..=2).filter(|&k| k <= n).map(|k| n - k);
                let put = (n % 5 == 3 && n < n_max).then_some(n + 1);
                let pass = (n % 7 == 6).then_some(n);
                takes.chain(put).chain(pass).collect()
            })
            .collect(),
        split: (0..=n_max)
            .map(|n| (2..n).filter(|&a| a <= n - a).map(|a| (a, n - a)).collect())
            .collect(),
    };
    let x = game.explicit(20_000).expect("a finite graph");
    let vals = check_tokens(&game, &x).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(vals[6], Gsg::Infinite(_)), "{vals:?}");
    // The heap rules give the tokens' values.
    let out = same_both_ways(&format!("{rules}print [sg(G(n)) for n in 0..={n_max}]\n"));
    let heaps: Vec<Gsg> = items(out.lines().next().expect("a line"))
        .into_iter()
        .map(parse_gsg)
        .collect();
    assert_eq!(heaps, vals);
}

/// A long chain of splits asked from the top: token `c` of the chain
/// slides to `c - 1` or splits into token 1 (which may pass, `∞{0}`) and
/// `c - 1`, so each graph waits for the next part down the chain.
#[test]
fn a_long_chain_of_splits_asked_from_the_top_matches_the_explicit_graph() {
    let top = 24;
    let mut game = Tokens {
        go: vec![vec![], vec![1, 0], vec![0]],
        split: vec![vec![]; 3],
    };
    for c in 3..=top {
        game.go.push(vec![c - 1]);
        game.split.push(vec![(1, c - 1)]);
    }
    let x = game.explicit(2000).expect("a small graph");
    let vals = check_tokens(&game, &x).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(vals[1], Gsg::Infinite(vec![0]));
}

/// Smith's sum of generalised values (Smith 1966), written out here.
fn smith_sum(a: &Gsg, b: &Gsg) -> Gsg {
    match (a, b) {
        (Gsg::Finite(x), Gsg::Finite(y)) => Gsg::Finite(x ^ y),
        (Gsg::Finite(x), Gsg::Infinite(k)) | (Gsg::Infinite(k), Gsg::Finite(x)) => {
            let mut k: Vec<u64> = k.iter().map(|v| v ^ x).collect();
            k.sort_unstable();
            Gsg::Infinite(k)
        }
        _ => Gsg::Infinite(Vec::new()),
    }
}

/// A heap game whose splits reach back (a part may grow to the heap it
/// came from, `G(4) -> G(1) + G(3) -> G(1) + G(4)`, so its multisets of
/// heaps have no end and no explicit graph is searched): the values,
/// asked from the bottom and from the top, satisfy the definition of the
/// generalised SG function at every heap, a sum's value taken by Smith's
/// rules from its heaps' values, its options a move in one heap.
#[test]
fn splits_that_reach_back_meet_the_definition_by_smiths_rules() {
    let n_max = 40usize;
    let rules = format!(
        "game G(n) where 0 <= n <= {n_max} {{\n    move take(k in 1..=2) if k <= n -> G(n - k)\n    \
         move put if n % 5 == 3 and n < {n_max} -> G(n + 1)\n    move pass if n % 7 == 6 -> G(n)\n    \
         move split(a in 1..n) if a <= n - a -> G(a) + G(n - a)\n}}\n"
    );
    let values = |order: &str| -> Vec<Gsg> {
        let out = same_both_ways(&format!(
            "{rules}let V = [sg(G(n)) for n in {order}]\nprint [sg(G(n)) for n in 0..={n_max}]\n"
        ));
        items(out.lines().last().expect("a line"))
            .into_iter()
            .map(parse_gsg)
            .collect()
    };
    let vals = values(&format!("0..={n_max}"));
    assert_eq!(vals, values(&format!("reversed(list(0..={n_max}))")));
    // A heap's options, each a multiset of heaps.
    let moves = |n: usize| -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = (1..=2).filter(|&k| k <= n).map(|k| vec![n - k]).collect();
        out.extend((n % 5 == 3 && n < n_max).then(|| vec![n + 1]));
        out.extend((n % 7 == 6).then(|| vec![n]));
        out.extend((1..n).filter(|&a| a <= n - a).map(|a| vec![a, n - a]));
        out
    };
    let value = |m: &[usize]| {
        m.iter()
            .fold(Gsg::Finite(0), |acc, &h| smith_sum(&acc, &vals[h]))
    };
    let options = |m: &[usize]| -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for j in 0..m.len() {
            for o in moves(m[j]) {
                let mut next: Vec<usize> = m
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != j)
                    .map(|(_, &h)| h)
                    .collect();
                next.extend(o);
                out.push(next);
            }
        }
        out
    };
    let finite = |v: &Gsg| match v {
        Gsg::Finite(x) => Some(*x),
        Gsg::Infinite(_) => None,
    };
    let mut infinite = 0;
    for (n, val) in vals.iter().enumerate() {
        let opts: Vec<Gsg> = moves(n).iter().map(|m| value(m)).collect();
        let fin: Vec<u64> = opts.iter().filter_map(finite).collect();
        let has_option_of =
            |m: &[usize], v: u64| options(m).iter().any(|o| value(o) == Gsg::Finite(v));
        match val {
            Gsg::Finite(v) => {
                assert_eq!(mex(fin.iter().copied()), *v, "G({n}): {opts:?}");
                for m in moves(n) {
                    if finite(&value(&m)).is_none_or(|x| x > *v) {
                        assert!(
                            has_option_of(&m, *v),
                            "G({n}) = {v}: option {m:?} has no option {v}"
                        );
                    }
                }
            }
            Gsg::Infinite(k) => {
                infinite += 1;
                let mut want = fin.clone();
                want.sort_unstable();
                want.dedup();
                assert_eq!(*k, want, "G({n})");
                let m = mex(fin.iter().copied());
                let blocked = moves(n)
                    .iter()
                    .any(|o| finite(&value(o)).is_none() && !has_option_of(o, m));
                assert!(
                    blocked,
                    "G({n}) = ∞{k:?}: every infinite option reverses through {m}"
                );
            }
        }
    }
    assert!(infinite > 0, "{vals:?}");
}

/// Two parts of one sum that both reach back make sums of ever more
/// parts: past 64 the labelling stops with a `grundy::loopy` error that
/// says so, with the fast plans and without.
#[test]
fn sums_of_ever_more_parts_are_a_loopy_error() {
    let out = same_both_ways(
        "game C(n) where n >= 0 { move m(k in 0..2) -> C(k) + C(n) }
         print sg(C(2))",
    );
    assert!(out.starts_with("failure: loopy game"), "{out}");
    assert!(
        out.contains("sums of ever more positions (past 64)"),
        "{out}"
    );
}

/// Remoteness follows every part of a sum: where a token splits into a
/// part that leads back to it beside another part with a move, the
/// multisets have no end, and `remoteness` says so at once instead of
/// listing them. Random token games whose splits may reach back from
/// any token: where the error comes, the explicit graph from the token
/// does not end (it passes any bound, here 3,000 multisets or 40 tokens
/// in one: a finite one of at most 5 tokens has at most 32); where it
/// does not, the remoteness (or the draw) of that graph when it is
/// within the bound.
#[test]
fn remoteness_through_sums_that_grow_is_an_error_at_once() {
    let (mut errors, mut values) = (0, 0);
    for seed in 1..=40u64 {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = |m: usize| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % m as u64) as usize
        };
        let n = 3 + next(3);
        let mut game = Tokens {
            go: vec![Vec::new(); n],
            split: vec![Vec::new(); n],
        };
        for v in 0..n {
            for _ in 0..next(3) {
                game.go[v].push(next(n));
            }
            if next(3) == 0 {
                game.split[v].push((next(n), next(n)));
            }
        }
        for v in 0..n {
            let text = format!("{}print remoteness(T({v}))\n", game.rules());
            let started = std::time::Instant::now();
            let out = same_both_ways(&text);
            assert!(started.elapsed().as_secs() < 10, "{game:?} T({v}): slow");
            let x = game.explicit_from([v].into_iter(), 3000, 40);
            if out.contains("a play passes through sums of ever more positions") {
                assert!(out.starts_with("failure: remoteness"), "{out}");
                assert!(x.is_none(), "{game:?} T({v}): a finite graph, yet {out}");
                errors += 1;
                continue;
            }
            let Some(x) = x else {
                continue;
            };
            let brute = brute_outcomes(&x.adj);
            let rem = least_remoteness(&x.adj, &brute)[x.single[0]];
            match rem {
                Some(r) => assert_eq!(out.trim(), r.to_string(), "{game:?} T({v})"),
                None => assert!(out.contains("is a draw"), "{game:?} T({v}): {out}"),
            }
            values += 1;
        }
    }
    assert!(errors > 0 && values > 0, "{errors} errors, {values} values");
}
