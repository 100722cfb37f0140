//! Loopy games (issue 34): grundy's generalised SG values checked against
//! brute forces written here, independent of the labelling in
//! `src/eval/loopy`: a plain win/lose/draw retrograde over the same
//! graph for outcomes, Smith's remoteness from its defining equations, a
//! product-graph search for sums, and the definition of the generalised
//! SG function (Smith 1966; Fraenkel and Yesha 1986) checked value by
//! value. Random digraphs (with and without cycles, up to 300 vertices)
//! are written as rule files over an adjacency list.

use crate::common;

use std::collections::VecDeque;

use common::{run, same_both_ways};
use proptest::prelude::*;

/// A generalised SG value as grundy prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Gsg {
    Finite(u64),
    /// ∞ with its K set, sorted.
    Infinite(Vec<u64>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    P,
    N,
    D,
}

/// The items of a printed list `[a, b, ...]` (items hold no ", ").
pub(crate) fn items(line: &str) -> Vec<&str> {
    let inner = line
        .trim()
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'));
    let inner = inner.unwrap_or_else(|| panic!("not a list: {line}"));
    if inner.is_empty() {
        return Vec::new();
    }
    inner.split(", ").collect()
}

pub(crate) fn parse_gsg(s: &str) -> Gsg {
    if let Some(rest) = s.strip_prefix('∞') {
        let k = match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(list) => list
                .split(',')
                .map(|x| x.parse().expect("K item"))
                .collect(),
            None if rest.is_empty() => Vec::new(),
            None => panic!("not an infinite value: {s}"),
        };
        Gsg::Infinite(k)
    } else {
        Gsg::Finite(s.parse().unwrap_or_else(|_| panic!("not a value: {s}")))
    }
}

pub(crate) fn parse_outcome(s: &str) -> Outcome {
    match s {
        "P" => Outcome::P,
        "N" => Outcome::N,
        "D" => Outcome::D,
        _ => panic!("not an outcome: {s}"),
    }
}

/// The outcome a generalised value means.
pub(crate) fn outcome_of(v: &Gsg) -> Outcome {
    match v {
        Gsg::Finite(0) => Outcome::P,
        Gsg::Finite(_) => Outcome::N,
        Gsg::Infinite(k) if k.contains(&0) => Outcome::N,
        Gsg::Infinite(_) => Outcome::D,
    }
}

/// Win/lose/draw by retrograde analysis: a vertex with no move is lost;
/// a vertex with a move to a lost one is won; a vertex all of whose
/// moves go to won ones is lost; what is left is drawn.
pub(crate) fn brute_outcomes(adj: &[Vec<usize>]) -> Vec<Outcome> {
    let n = adj.len();
    let mut preds = vec![Vec::new(); n];
    for (u, ws) in adj.iter().enumerate() {
        for &w in ws {
            preds[w].push(u);
        }
    }
    let mut out: Vec<Option<Outcome>> = vec![None; n];
    let mut unresolved: Vec<usize> = adj.iter().map(Vec::len).collect();
    let mut queue: VecDeque<usize> = (0..n).filter(|&u| adj[u].is_empty()).collect();
    for &u in &queue {
        out[u] = Some(Outcome::P);
    }
    while let Some(w) = queue.pop_front() {
        for &u in &preds[w] {
            if out[u].is_some() {
                continue;
            }
            if out[w] == Some(Outcome::P) {
                out[u] = Some(Outcome::N);
                queue.push_back(u);
            } else {
                unresolved[u] -= 1;
                if unresolved[u] == 0 {
                    out[u] = Some(Outcome::P);
                    queue.push_back(u);
                }
            }
        }
    }
    out.into_iter().map(|o| o.unwrap_or(Outcome::D)).collect()
}

pub(crate) fn mex(values: impl Iterator<Item = u64>) -> u64 {
    let mut seen: Vec<u64> = values.collect();
    seen.sort_unstable();
    seen.dedup();
    seen.iter()
        .enumerate()
        .take_while(|(i, &v)| *i as u64 == v)
        .count() as u64
}

/// The definition of the generalised SG function, vertex by vertex: a
/// finite value is the mex of its options' finite values, no option has
/// it, and every option of larger or infinite value has an option of that
/// value; an infinite value's K is its options' finite values, and some
/// infinite option has no option of value mex(K) (else the vertex would
/// take that value).
pub(crate) fn check_definition(adj: &[Vec<usize>], vals: &[Gsg]) -> Result<(), String> {
    let has_option_of = |w: usize, m: u64| adj[w].iter().any(|&x| vals[x] == Gsg::Finite(m));
    let finite = |w: usize| match vals[w] {
        Gsg::Finite(v) => Some(v),
        Gsg::Infinite(_) => None,
    };
    for (u, ws) in adj.iter().enumerate() {
        let opts: Vec<u64> = ws.iter().filter_map(|&w| finite(w)).collect();
        match &vals[u] {
            Gsg::Finite(v) => {
                if mex(opts.iter().copied()) != *v {
                    return Err(format!("{u}: value {v} is not the mex of {opts:?}"));
                }
                for &w in ws {
                    let larger = finite(w).is_none_or(|x| x > *v);
                    if larger && !has_option_of(w, *v) {
                        return Err(format!(
                            "{u} = {v}: option {w} = {:?} has no option {v}",
                            vals[w]
                        ));
                    }
                }
            }
            Gsg::Infinite(k) => {
                let mut want = opts.clone();
                want.sort_unstable();
                want.dedup();
                if *k != want {
                    return Err(format!("{u}: K = {k:?}, options' finite values {want:?}"));
                }
                let m = mex(opts.iter().copied());
                let blocked = ws
                    .iter()
                    .any(|&w| finite(w).is_none() && !has_option_of(w, m));
                if !blocked {
                    return Err(format!(
                        "{u}: ∞{k:?} but every infinite option reverses through {m}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Smith's remoteness from its equations, for the vertices that are not
/// draws (`outcomes` from the brute force): a terminal vertex has 0; an
/// N-vertex 1 + the least remoteness of its P-options; a P-vertex 1 + the
/// largest of its options'. Checked against `rem` (None for draws).
fn check_remoteness(
    adj: &[Vec<usize>],
    outcomes: &[Outcome],
    rem: &[Option<u64>],
) -> Result<(), String> {
    for (u, ws) in adj.iter().enumerate() {
        let r = match (outcomes[u], rem[u]) {
            (Outcome::D, None) => continue,
            (o, Some(r)) if o != Outcome::D => r,
            (o, r) => return Err(format!("{u}: outcome {o:?} with remoteness {r:?}")),
        };
        let want = match outcomes[u] {
            _ if ws.is_empty() => 0,
            Outcome::N => {
                1 + ws
                    .iter()
                    .filter(|&&w| outcomes[w] == Outcome::P)
                    .map(|&w| rem[w].unwrap())
                    .min()
                    .unwrap()
            }
            _ => 1 + ws.iter().map(|&w| rem[w].unwrap()).max().unwrap(),
        };
        if r != want {
            return Err(format!("{u}: remoteness {r}, its equation gives {want}"));
        }
    }
    Ok(())
}

pub(crate) fn adjacency_text(adj: &[Vec<usize>]) -> String {
    let rows: Vec<String> = adj
        .iter()
        .map(|ws| {
            format!(
                "[{}]",
                ws.iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    format!("[{}]", rows.join(", "))
}

/// The values and outcomes grundy gives the token game on `adj`, asked
/// in the order `order` (each query labels what the earlier ones left),
/// with the fast paths on and off.
fn grundy_values(adj: &[Vec<usize>], order: &[usize]) -> (Vec<Gsg>, Vec<Outcome>) {
    let n = adj.len();
    let order_text = adjacency_text(&[order.to_vec()]);
    let text = format!(
        "let E = {}\nlet ORDER = {order_text}[0]\ngame T(v) {{\n    move go(w in E[v]) -> T(w)\n}}\n\
         print [sg(T(v)) for v in ORDER]\nprint [outcome(T(v)) for v in 0..{n}]\n",
        adjacency_text(adj)
    );
    let out = same_both_ways(&text);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let mut vals = vec![Gsg::Finite(u64::MAX); n];
    for (&v, item) in order.iter().zip(items(lines[0])) {
        vals[v] = parse_gsg(item);
    }
    let outcomes = items(lines[1]).into_iter().map(parse_outcome).collect();
    (vals, outcomes)
}

fn check_graph(adj: &[Vec<usize>], order: &[usize]) -> Result<(), String> {
    let (vals, outcomes) = grundy_values(adj, order);
    let brute = brute_outcomes(adj);
    for u in 0..adj.len() {
        if outcome_of(&vals[u]) != brute[u] || outcomes[u] != brute[u] {
            return Err(format!(
                "vertex {u}: sg {:?}, outcome {:?}, brute force {:?}",
                vals[u], outcomes[u], brute[u]
            ));
        }
    }
    check_definition(adj, &vals)
}

/// A random digraph on `n` vertices with up to `deg` moves each; with
/// `acyclic`, moves only go to smaller vertices.
fn digraph(max_n: usize, deg: usize, acyclic: bool) -> impl Strategy<Value = Vec<Vec<usize>>> {
    (1..=max_n).prop_flat_map(move |n| {
        let row = |u: usize| {
            let hi = if acyclic { u } else { n };
            if hi == 0 {
                Just(Vec::new()).boxed()
            } else {
                proptest::collection::vec(0..hi, 0..=deg).boxed()
            }
        };
        (0..n).map(row).collect::<Vec<_>>()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_loopy_digraphs_match_the_brute_force_and_the_definition(
        (adj, seed) in (digraph(300, 3, false), any::<u64>())
    ) {
        // Queries in a shuffled order: later ones meet labelled positions.
        let mut order: Vec<usize> = (0..adj.len()).collect();
        let mut s = seed | 1;
        for i in (1..order.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            order.swap(i, (s % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(check_graph(&adj, &order), Ok(()));
    }

    #[test]
    fn random_acyclic_digraphs_keep_their_sg_values(adj in digraph(300, 4, true)) {
        let order: Vec<usize> = (0..adj.len()).collect();
        let (vals, _) = grundy_values(&adj, &order);
        // The plain recursion: each vertex's options are smaller.
        let mut sg: Vec<u64> = Vec::new();
        for ws in &adj {
            let v = mex(ws.iter().map(|&w| sg[w]));
            sg.push(v);
        }
        let want: Vec<Gsg> = sg.into_iter().map(Gsg::Finite).collect();
        prop_assert_eq!(vals, want);
    }

    #[test]
    fn remoteness_of_random_digraphs_meets_its_equations(adj in digraph(120, 3, false)) {
        let brute = brute_outcomes(&adj);
        let decided: Vec<usize> = (0..adj.len()).filter(|&u| brute[u] != Outcome::D).collect();
        let text = format!(
            "let E = {}\nlet V = {}[0]\ngame T(v) {{\n    move go(w in E[v]) -> T(w)\n}}\nprint [remoteness(T(v)) for v in V]\n",
            adjacency_text(&adj),
            adjacency_text(std::slice::from_ref(&decided))
        );
        let out = run(&text, true);
        let mut rem = vec![None; adj.len()];
        for (&u, r) in decided.iter().zip(items(out.lines().next().unwrap_or("[]"))) {
            rem[u] = Some(r.parse::<u64>().unwrap_or_else(|_| panic!("{out}")));
        }
        prop_assert_eq!(check_remoteness(&adj, &brute, &rem), Ok(()));
    }

    #[test]
    fn sums_of_random_loopy_digraphs_match_the_product_graph(
        a in digraph(9, 2, false),
        b in digraph(9, 2, false),
    ) {
        let (na, nb) = (a.len(), b.len());
        let text = format!(
            "let A = {}\nlet B = {}\ngame TA(v) {{\n    move go(w in A[v]) -> TA(w)\n}}\n\
             game TB(v) {{\n    move go(w in B[v]) -> TB(w)\n}}\n\
             print [sg(TA(x) + TB(y)) for x in 0..{na}, y in 0..{nb}]\n\
             print [outcome(TA(x) + TB(y)) for x in 0..{na}, y in 0..{nb}]\n",
            adjacency_text(&a),
            adjacency_text(&b)
        );
        let out = same_both_ways(&text);
        let lines: Vec<&str> = out.lines().collect();
        let vals: Vec<Gsg> = items(lines[0]).into_iter().map(parse_gsg).collect();
        let outcomes: Vec<Outcome> = items(lines[1]).into_iter().map(parse_outcome).collect();
        // The product graph: a move in either component.
        let id = |x: usize, y: usize| x * nb + y;
        let mut product = vec![Vec::new(); na * nb];
        for x in 0..na {
            for y in 0..nb {
                product[id(x, y)].extend(a[x].iter().map(|&x2| id(x2, y)));
                product[id(x, y)].extend(b[y].iter().map(|&y2| id(x, y2)));
            }
        }
        let brute = brute_outcomes(&product);
        for u in 0..na * nb {
            prop_assert_eq!(outcome_of(&vals[u]), brute[u], "sum {} ({:?})", u, vals[u]);
            prop_assert_eq!(outcomes[u], brute[u], "sum {}", u);
        }
        prop_assert_eq!(check_definition(&product, &vals), Ok(()));
    }
}

#[test]
fn the_checks_reject_wrong_values() {
    // 0 -> 1 -> 2 (terminal): values 0, 1, 0; a wrong value fails.
    let adj = vec![vec![1], vec![2], vec![]];
    let good = [Gsg::Finite(0), Gsg::Finite(1), Gsg::Finite(0)];
    assert_eq!(check_definition(&adj, &good), Ok(()));
    let bad = [Gsg::Finite(1), Gsg::Finite(0), Gsg::Finite(0)];
    assert!(check_definition(&adj, &bad).is_err());
    // A 2-cycle: both draws (∞ with K empty), not 0.
    let cycle = vec![vec![1], vec![0]];
    assert_eq!(brute_outcomes(&cycle), [Outcome::D, Outcome::D]);
    let zero = [Gsg::Finite(0), Gsg::Finite(0)];
    assert!(check_definition(&cycle, &zero).is_err());
    assert_eq!(
        check_definition(&cycle, &[Gsg::Infinite(vec![]), Gsg::Infinite(vec![])]),
        Ok(())
    );
}

/// An example file with `extra` appended, run with the fast paths on and
/// off; its output's last `lines` lines.
#[test]
fn positions_among_their_own_options_are_loopy_on_every_path() {
    // Each vertex moves to itself and to the two below. Asked from the
    // top, a position is listed before any search has put it on its
    // path, and its listing meets itself.
    let n: usize = 40;
    let adj: Vec<Vec<usize>> = (0..n)
        .map(|v| (v.saturating_sub(2)..=v).collect())
        .collect();
    let order: Vec<usize> = (0..n).rev().collect();
    assert_eq!(check_graph(&adj, &order), Ok(()));
    // The same graph as an integer game, whose moves are a kernel's run.
    let (vals, _) = grundy_values(&adj, &order);
    let out = same_both_ways(&format!(
        "game L(n) where n >= 0 {{ move m(k in 0..=min(n, 2)) -> L(n - k) }}
        print [sg(L(v)) for v in reversed(list(0..{n}))]"
    ));
    let line = out.lines().next().expect("a line");
    let printed: Vec<Gsg> = items(line).into_iter().map(parse_gsg).collect();
    let wanted: Vec<Gsg> = order.iter().map(|&v| vals[v].clone()).collect();
    assert_eq!(printed, wanted);
}

fn run_example(rel: &str, extra: &str, lines: usize) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(path).expect("example readable");
    let out = same_both_ways(&format!("{text}\n{extra}\n"));
    assert!(!out.contains("failure:"), "{out}");
    let all: Vec<String> = out.lines().map(String::from).collect();
    all[all.len() - lines..].to_vec()
}

/// The adjacency list `let E = [...]` of an example file.
fn example_graph(rel: &str) -> Vec<Vec<usize>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(path).expect("example readable");
    let line = text
        .lines()
        .find(|l| l.starts_with("let E = "))
        .expect("let E");
    serde_json::from_str(&line["let E = ".len()..]).expect("an adjacency list")
}

#[test]
fn token_digraph_example_matches_the_brute_force() {
    let rel = "examples/loopy/token_digraph.game";
    let adj = example_graph(rel);
    let out = run_example(
        rel,
        "print [sg(G(v)) for v in V]\nprint [outcome(G(v)) for v in V]\n\
         print [if outcome(G(v)) == D then -1 else remoteness(G(v)) for v in V]",
        3,
    );
    let vals: Vec<Gsg> = items(&out[0]).into_iter().map(parse_gsg).collect();
    let outcomes: Vec<Outcome> = items(&out[1]).into_iter().map(parse_outcome).collect();
    let brute = brute_outcomes(&adj);
    assert_eq!(outcomes, brute);
    assert_eq!(vals.iter().map(outcome_of).collect::<Vec<_>>(), brute);
    assert_eq!(check_definition(&adj, &vals), Ok(()));
    let rem: Vec<Option<u64>> = items(&out[2]).into_iter().map(|r| r.parse().ok()).collect();
    assert_eq!(check_remoteness(&adj, &brute, &rem), Ok(()));
}

#[test]
fn add_or_subtract_example_matches_the_brute_force() {
    // The rules of AddTake[24], written here as a graph.
    let n_max = 24;
    let adj: Vec<Vec<usize>> = (0..=n_max)
        .map(|n: usize| {
            let takes = (1..=3).filter(|&k| k <= n).map(|k| n - k);
            let puts = (1..=2)
                .filter(|&k| n % 5 == 3 && n + k <= n_max)
                .map(|k| n + k);
            takes.chain(puts).collect()
        })
        .collect();
    let out = run_example(
        "examples/loopy/add_or_subtract.game",
        "print [sg(H(n)) for n in 0..=24]\n\
         print [if outcome(H(n)) == D then -1 else remoteness(H(n)) for n in 0..=24]",
        2,
    );
    let vals: Vec<Gsg> = items(&out[0]).into_iter().map(parse_gsg).collect();
    let brute = brute_outcomes(&adj);
    assert_eq!(vals.iter().map(outcome_of).collect::<Vec<_>>(), brute);
    assert_eq!(check_definition(&adj, &vals), Ok(()));
    let rem: Vec<Option<u64>> = items(&out[1]).into_iter().map(|r| r.parse().ok()).collect();
    assert_eq!(check_remoteness(&adj, &brute, &rem), Ok(()));
}

#[test]
fn sums_example_matches_the_product_graph() {
    let rel = "examples/loopy/sums.game";
    let token = example_graph(rel);
    let heaps = 6;
    let out = run_example(rel, "print [sg(G(v) + Nim(n)) for v in V, n in 0..6]", 1);
    let vals: Vec<Gsg> = items(&out[0]).into_iter().map(parse_gsg).collect();
    // Token + Nim(n): a move slides the token or takes from the heap.
    let id = |v: usize, n: usize| v * heaps + n;
    let mut product = vec![Vec::new(); token.len() * heaps];
    for v in 0..token.len() {
        for n in 0..heaps {
            product[id(v, n)].extend(token[v].iter().map(|&w| id(w, n)));
            product[id(v, n)].extend((0..n).map(|m| id(v, m)));
        }
    }
    let brute = brute_outcomes(&product);
    assert_eq!(vals.iter().map(outcome_of).collect::<Vec<_>>(), brute);
    assert_eq!(check_definition(&product, &vals), Ok(()));
}

#[test]
fn put_or_take_a_square_example_matches_the_brute_force() {
    // The capped rules of the example, as a graph on 0..=CAP.
    let cap: usize = 100_000;
    let square = |n: usize| {
        let r = (n as f64).sqrt() as usize;
        let r = (r.saturating_sub(1)..=r + 1)
            .filter(|r| r * r <= n)
            .max()
            .unwrap_or(0);
        r * r
    };
    let adj: Vec<Vec<usize>> = (0..=cap)
        .map(|n| {
            let s = square(n);
            let mut ws = Vec::new();
            if n > 0 {
                ws.push(n - s);
                if n + s <= cap {
                    ws.push(n + s);
                }
            }
            ws
        })
        .collect();
    let brute = brute_outcomes(&adj);
    let out = run_example(
        "examples/loopy/put_or_take_a_square.game",
        "print [outcome(G(n)) for n in 0..1200]",
        1,
    );
    let outcomes: Vec<Outcome> = items(&out[0]).into_iter().map(parse_outcome).collect();
    assert_eq!(outcomes, brute[..1200]);
}

/// Checks the values grundy prints for the positions `0..adj.len()` of a
/// game whose graph is `adj` (listed in that order) against the brute
/// force and the definition.
fn check_printed(adj: &[Vec<usize>], line: &str) -> Result<(), String> {
    let vals: Vec<Gsg> = items(line).into_iter().map(parse_gsg).collect();
    if vals.len() != adj.len() {
        return Err(format!("{} values for {} positions", vals.len(), adj.len()));
    }
    let brute = brute_outcomes(adj);
    for u in 0..adj.len() {
        if outcome_of(&vals[u]) != brute[u] {
            return Err(format!("{u}: sg {:?}, brute force {:?}", vals[u], brute[u]));
        }
    }
    check_definition(adj, &vals)
}

/// Runs `text` with the fast paths on (positions numbered by their
/// integers in a dense box, options listed by the game's kernel) and off
/// (hashed keys, the moves' code), asserting the same output; and checks
/// that the first did number positions by their integers.
fn dense_and_hashed(text: &str) -> String {
    let out = same_both_ways(text);
    let explained = common::explain(text);
    let numbered = explained
        .lines()
        .filter_map(|l| l.split_once(" positions ("))
        .filter_map(|(_, rest)| rest.split(' ').next()?.parse::<usize>().ok())
        .sum::<usize>();
    assert!(
        numbered > 0,
        "no position numbered by its integers:\n{explained}"
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn dense_and_hashed_numbering_agree_on_random_integer_digraphs(
        n in 1usize..300, d in 1usize..4, a in 0usize..1000, b in 1usize..1000, c in 0usize..1000,
    ) {
        // A token on the digraph v -> (a v + b k + c) mod n, k < d: cycles
        // of every kind, written as integer moves the kernel lists.
        let text = format!(
            "game R(v) where 0 <= v < {n} {{\n    move go(k in 0..{d}) -> R(({a} * v + {b} * k + {c}) % {n})\n}}\n\
             print [sg(R(v)) for v in 0..{n}]\n"
        );
        let out = dense_and_hashed(&text);
        let adj: Vec<Vec<usize>> = (0..n)
            .map(|v| {
                let mut ws: Vec<usize> = (0..d).map(|k| (a * v + b * k + c) % n).collect();
                ws.sort_unstable();
                ws.dedup();
                ws
            })
            .collect();
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
    }

    #[test]
    fn dense_and_hashed_numbering_agree_on_random_grid_games(
        w in 1usize..14, t in 1usize..4, p in 1usize..6, r in 0usize..6, q in 1usize..5,
        neg in any::<bool>(),
    ) {
        // Two heaps (shifted below 0 with `neg`, where the box must reach
        // negative coordinates): take from x, put one on y when x = r mod
        // p, swap the heaps when x + y = 0 mod q.
        let o = if neg { w as i64 } else { 0 };
        let text = format!(
            "game H(x, y) where {lo} <= x < {hi} and {lo} <= y < {hi} {{\n\
             move take(k in 1..={t}) if x - k >= {lo} -> H(x - k, y)\n\
             move put if (x - {lo}) % {p} == {r} and y + 1 < {hi} -> H(x, y + 1)\n\
             move swap if (x + y - 2 * {lo}) % {q} == 0 -> H(y, x)\n}}\n\
             print [sg(H(x, y)) for x in {lo}..{hi}, y in {lo}..{hi}]\n",
            lo = -o,
            hi = w as i64 - o,
        );
        let out = dense_and_hashed(&text);
        let adj = take_put_swap_grid(w, t, |x, y| x % p == r && y + 1 < w, q);
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn box_lines_agree_with_the_brute_force_in_three_coordinates(
        w in 2usize..7, t in 1usize..4, p in 1usize..5, r in 0usize..5, q in 1usize..4,
    ) {
        // A whole box of three coordinates, `z` innermost: `take` and `lift`
        // move with the position along `z` (listed once per line of the
        // box), `put`'s guard starts with conjuncts free of `z` (decided
        // once per line) and ends with one of it, `shift`'s first conjunct
        // reads `z` (decided per cell), `drop` is cut by `z`.
        let text = format!(
            "game B(x, y, z) where 0 <= x < {w} and 0 <= y < {w} and 0 <= z < {w} {{\n\
             move take(k in 1..={t}) if k <= x -> B(x - k, y, z)\n\
             move drop(k in 1..=2) if k <= z -> B(x, y, z - k)\n\
             move put if x % {p} == {r} and y % 2 == 0 and z + 1 < {w} -> B(x, y, z + 1)\n\
             move shift if z % {q} == 0 and x + 1 < {w} -> B(x + 1, y, z)\n\
             move lift if y + 1 < {w} and x % 2 == 1 -> B(x, y + 1, z)\n}}\n\
             print [sg(B(x, y, z)) for x in 0..{w}, y in 0..{w}, z in 0..{w}]\n"
        );
        let out = dense_and_hashed(&text);
        let id = |x: usize, y: usize, z: usize| (x * w + y) * w + z;
        let mut adj = vec![Vec::new(); w * w * w];
        for x in 0..w {
            for y in 0..w {
                for z in 0..w {
                    let ws: &mut Vec<usize> = &mut adj[id(x, y, z)];
                    ws.extend((1..=t).filter(|&k| k <= x).map(|k| id(x - k, y, z)));
                    ws.extend((1..=2).filter(|&k| k <= z).map(|k| id(x, y, z - k)));
                    if x % p == r && y % 2 == 0 && z + 1 < w {
                        ws.push(id(x, y, z + 1));
                    }
                    if z % q == 0 && x + 1 < w {
                        ws.push(id(x + 1, y, z));
                    }
                    if y + 1 < w && x % 2 == 1 {
                        ws.push(id(x, y + 1, z));
                    }
                    ws.sort_unstable();
                    ws.dedup();
                }
            }
        }
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn runs_shifted_along_lines_agree_with_the_brute_force(
        w in 3usize..10, t in 1usize..5, c in 1usize..3, g in 0usize..4, p in 1usize..4,
        r in 0usize..4,
    ) {
        // `fall` changes the innermost coordinate by the binding: where its
        // guard holds inside the box (`k <= z`, `z >= k`, and `k < z` for
        // `z - 2 * k`), it is listed once per line on the stretch the box
        // does not clip, per cell near the ends; `k < z` for `z - k` and
        // `k <= x` keep their guard per cell. `rise` has no guard: the
        // box clips it at the line's top. From `w = 3` on, `rise` and
        // `fall` make cycles (so the game is labelled).
        let guards = ["k <= z", "k < z", "z >= k", "k <= x"];
        let keep = |k: usize, x: usize, z: usize| match g {
            0 | 2 => k <= z,
            1 => k < z,
            _ => k <= x,
        };
        let text = format!(
            "game H(x, z) where 0 <= x < {w} and 0 <= z < {w} {{\n\
             move take(k in 1..=2) if k <= x -> H(x - k, z)\n\
             move fall(k in 1..={t}) if {guard} -> H(x, {fall})\n\
             move rise(k in 1..=2) -> H(x, z + k)\n\
             move put if x % {p} == {r} and x + 1 < {w} -> H(x + 1, z)\n}}\n\
             print [sg(H(x, z)) for x in 0..{w}, z in 0..{w}]\n",
            guard = guards[g],
            fall = if c == 1 { "z - k" } else { "z - 2 * k" },
        );
        let out = dense_and_hashed(&text);
        let adj = box_options(w, |x, z| {
            let mut ws = Vec::new();
                ws.extend((1..=2).filter(|&k| k <= x).map(|k| (x - k, z)));
                ws.extend((1..=t).filter(|&k| keep(k, x, z) && c * k <= z).map(|k| (x, z - c * k)));
                ws.extend((1..=2).filter(|&k| z + k < w).map(|k| (x, z + k)));
                if x % p == r && x + 1 < w {
                    ws.push((x + 1, z));
                }
            ws
        });
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
    }
}

#[test]
fn memo_histogram_counts_infinite_positions() {
    // AddTake as in examples/loopy/add_or_subtract.game: some heaps are
    // draws. The memo's histogram counts each value, infinite ones too,
    // as `histogram` over the same positions does.
    let out = same_both_ways(
        "game H(n) where 0 <= n <= 24 {
            move take(k in 1..=3) if k <= n -> H(n - k)
            move put(k in 1..=2) if n % 5 == 3 and n + k <= 24 -> H(n + k)
        }
        print sg(H(24))
        print memo_histogram(H)
        print histogram(sg(H(n)) for n in 0..=24)
        print count(outcome(H(n)) == D for n in 0..=24)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    // Every position was labelled from H(24): the memo holds the 25.
    assert_eq!(lines[1], lines[2], "{out}");
    assert!(lines[1].contains('∞'), "{out}");
    let draws: usize = lines[3].parse().expect("a count");
    assert!(draws > 0, "{out}");
}

/// The `w` x `w` grid game of the tests below as an adjacency list
/// (vertex `x * w + y`): take 1 to `take` from `x`, `put` one on `y` where
/// it allows, swap `x` and `y` where `q` divides `x + y`.
fn take_put_swap_grid(
    w: usize,
    take: usize,
    put: impl Fn(usize, usize) -> bool,
    q: usize,
) -> Vec<Vec<usize>> {
    box_options(w, |x, y| {
        let mut ws = Vec::new();
        ws.extend((1..=take).filter(|&k| k <= x).map(|k| (x - k, y)));
        if put(x, y) {
            ws.push((x, y + 1));
        }
        if (x + y) % q == 0 {
            ws.push((y, x));
        }
        ws
    })
}

/// The options of each cell `x * w + y` of a `w` by `w` box, as
/// `options(x, y)` lists them by their coordinates: sorted, no repeats.
fn box_options(w: usize, options: impl Fn(usize, usize) -> Vec<(usize, usize)>) -> Vec<Vec<usize>> {
    (0..w * w)
        .map(|u| {
            let mut ws: Vec<usize> = (options(u / w, u % w).into_iter())
                .map(|(x, y)| x * w + y)
                .collect();
            ws.sort_unstable();
            ws.dedup();
            ws
        })
        .collect()
}

/// The positions one labelling reports (`--explain`), per labelling.
fn labelled_counts(text: &str) -> Vec<usize> {
    (common::explain(text).lines())
        .filter_map(|l| l.split_once("loopy labelling from "))
        .filter_map(|(_, rest)| rest.split(' ').nth(1)?.parse().ok())
        .collect()
}

#[test]
fn box_graphs_breadth_first_graphs_and_the_brute_force_agree() {
    // A box of 6400 cells (past the size always labelled whole): a root
    // that reaches little of it is labelled breadth first, one that
    // reaches much turns to the whole box (vertex = cell); the triangle's
    // `where` is no box, so its positions are numbered as found.
    let w = 80usize;
    let game = format!(
        "game H(x, y) where 0 <= x < {w} and 0 <= y < {w} {{\n\
         move take(k in 1..=2) if k <= x -> H(x - k, y)\n\
         move put if x % 5 == 2 and y < 5 -> H(x, y + 1)\n\
         move swap if (x + y) % 7 == 0 -> H(y, x)\n}}\n"
    );
    let small = labelled_counts(&format!("{game}print sg(H(3, 1))\n"));
    assert!(small.len() == 1 && small[0] < w * w / 8, "{small:?}");
    let whole = labelled_counts(&format!("{game}print sg(H({0}, {0}))\n", w - 1));
    assert_eq!(whole, vec![w * w]);
    // From the corner first (breadth first, then turning to the box), then
    // every position: the same values with kernels off, and the brute
    // force's outcomes and the definition.
    let text = format!(
        "{game}print sg(H(3, 1))\nprint sg(H(40, 3))\n\
         print [sg(H(x, y)) for x in 0..{w}, y in 0..{w}]\n"
    );
    let out = dense_and_hashed(&text);
    let adj = take_put_swap_grid(w, 2, |x, y| x % 5 == 2 && y < 5, 7);
    assert_eq!(
        check_printed(&adj, out.lines().last().unwrap_or("")),
        Ok(())
    );

    // No box: `x + y < t` numbers the positions as they are found.
    let t = 60usize;
    let text = format!(
        "game T(x, y) where 0 <= x and 0 <= y and x + y < {t} {{\n\
         move take(k in 1..=2) if k <= x -> T(x - k, y)\n\
         move put if x % 5 == 2 and x + y + 1 < {t} -> T(x, y + 1)\n\
         move swap if (x + y) % 7 == 0 -> T(y, x)\n}}\n\
         print [sg(T(x, s - x)) for s in 0..{t}, x in 0..=s]\n"
    );
    let out = dense_and_hashed(&text);
    let cells: Vec<(usize, usize)> = (0..t)
        .flat_map(|s| (0..=s).map(move |x| (x, s - x)))
        .collect();
    let index: std::collections::HashMap<(usize, usize), usize> =
        cells.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let adj: Vec<Vec<usize>> = (cells.iter())
        .map(|&(x, y)| {
            let mut ws: Vec<usize> = (1..=2)
                .filter(|&k| k <= x)
                .map(|k| index[&(x - k, y)])
                .collect();
            if x % 5 == 2 && x + y + 1 < t {
                ws.push(index[&(x, y + 1)]);
            }
            if (x + y) % 7 == 0 {
                ws.push(index[&(y, x)]);
            }
            ws.sort_unstable();
            ws.dedup();
            ws
        })
        .collect();
    assert_eq!(
        check_printed(&adj, out.lines().last().unwrap_or("")),
        Ok(())
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn box_rows_shared_along_a_line_and_the_told_reach_match_the_brute_force(
        w in 65usize..90, t in 1usize..4, s in 1usize..4, p in 2usize..8, r in 0usize..8,
        first in 0usize..3,
    ) {
        // Boxes past the size always labelled whole, whose lines share one
        // row of options (take from x along the line, take from y
        // shifted, the puts never there) but on their ends and the lines
        // of the puts; the first root reaches a little of the box, a
        // corner of it, or all of it (the walk over cells tells which),
        // the table then labels the rest around positions known already.
        let r = r % p;
        let game = format!(
            "game H(x, y) where 0 <= x < {w} and 0 <= y < {w} {{\n\
             move take_x(k in 1..={t}) if k <= x -> H(x - k, y)\n\
             move take_y(k in 1..={s}) if k <= y -> H(x, y - k)\n\
             move put_y if x % {p} == {r} and y + 1 < {w} -> H(x, y + 1)\n\
             move put_x if x % {p} == {r} and y % 3 == 0 and x + 1 < {w} -> H(x + 1, y)\n}}\n"
        );
        let root = [(1, 1), (w / 3, w / 3), (w - 1, w - 1)][first];
        let text = format!(
            "{game}print sg(H({}, {}))\nprint [sg(H(x, y)) for x in 0..{w}, y in 0..{w}]\n",
            root.0, root.1
        );
        let out = dense_and_hashed(&text);
        let adj = box_options(w, |x, y| {
            let mut ws = Vec::new();
                ws.extend((1..=t).filter(|&k| k <= x).map(|k| (x - k, y)));
                ws.extend((1..=s).filter(|&k| k <= y).map(|k| (x, y - k)));
                if x % p == r && y + 1 < w {
                    ws.push((x, y + 1));
                }
                if x % p == r && y % 3 == 0 && x + 1 < w {
                    ws.push((x + 1, y));
                }
            ws
        });
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
        // The corner reaches the whole box, listed as such at once.
        if first == 2 {
            prop_assert_eq!(labelled_counts(&text).first().copied(), Some(w * w));
        }
    }
}

#[test]
fn tables_of_a_labelled_game_read_its_infinite_values() {
    // After one labelling, a table of `sg` (a sweep along its last
    // clause, reading the infinite values from their own table), of
    // `outcome`, and a count and histogram over the same positions: the
    // same with every plan off, the values the brute force's outcomes and
    // the definition, the outcomes the brute force's, the counts theirs.
    let w = 40usize;
    let text = format!(
        "game H(x, y) where 0 <= x < {w} and 0 <= y < {w} {{\n\
         move take(k in 1..=3) if k <= x -> H(x - k, y)\n\
         move put if x % 4 == 1 and y + 1 < {w} -> H(x, y + 1)\n\
         move swap if (x + y) % 5 == 0 -> H(y, x)\n}}\n\
         print sg(H({last}, {last}))\n\
         print [sg(H(x, y)) for x in 0..{w}, y in 0..{w}]\n\
         print [outcome(H(x, y)) for x in 0..{w}, y in 0..{w}]\n\
         print count(outcome(H(x, y)) == D for x in 0..{w}, y in 0..{w})\n\
         print len(histogram(sg(H(x, y)) for x in 0..{w}, y in 0..{w}))\n\
         print count(P == outcome(H(x, y)) for x in 0..{w}, y in 0..{w})\n\
         print count(sg(H(x, y)) != 0 for x in 0..{w}, y in 0..{w})\n",
        last = w - 1,
    );
    let out = same_both_ways(&text);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    let adj = take_put_swap_grid(w, 3, |x, y| x % 4 == 1 && y + 1 < w, 5);
    assert_eq!(check_printed(&adj, lines[1]), Ok(()));
    let outcomes: Vec<Outcome> = items(lines[2]).into_iter().map(parse_outcome).collect();
    let brute = brute_outcomes(&adj);
    assert_eq!(outcomes, brute);
    let draws = brute.iter().filter(|&&o| o == Outcome::D).count();
    assert!(draws > 0, "{out}");
    assert_eq!(lines[3], draws.to_string());
    let distinct: std::collections::BTreeSet<&str> = items(lines[1]).into_iter().collect();
    assert_eq!(lines[4], distinct.len().to_string());
    // Comparisons with a constant, swept too (either side, `==` and `!=`).
    let losses = brute.iter().filter(|&&o| o == Outcome::P).count();
    assert_eq!(lines[5], losses.to_string());
    assert_eq!(lines[6], (w * w - losses).to_string());
}

#[test]
fn games_of_no_arguments_and_adjacency_lists_are_labelled() {
    // Two positions of no arguments, each the other's only option: draws.
    let out = same_both_ways(
        "game A() { move go -> B() }\ngame B() { move go -> A() }\n\
         print sg(A())\nprint outcome(B())\n",
    );
    assert_eq!(out.lines().collect::<Vec<_>>(), ["∞", "D"], "{out}");
    // A token on an adjacency list: no kernel, its positions numbered by
    // their integers all the same; the values the brute force's.
    let n = 60usize;
    let adj: Vec<Vec<usize>> = (0..n)
        .map(|v| match v % 4 {
            0 => Vec::new(),
            _ => vec![(v * 7 + 1) % n, (v + n - 1) % n, (v * 13 + 5) % n],
        })
        .collect();
    let text = format!(
        "let E = {}\ngame T(v) where 0 <= v < {n} {{ move go(w in E[v]) -> T(w) }}\n\
         print sg(T(1))\nprint [sg(T(v)) for v in 0..{n}]\n",
        adjacency_text(&adj)
    );
    let out = dense_and_hashed(&text);
    assert_eq!(
        check_printed(&adj, out.lines().last().unwrap_or("")),
        Ok(())
    );
}

#[test]
fn infinite_values_keep_k_sets_with_large_and_shared_items() {
    // Vertices 0..=66 are nim heaps (each moves to every smaller one), so
    // vertex i has value i. Each loop vertex moves to itself and to some
    // heaps: it is infinite, its K the heaps' values. K sets of values
    // past 63 (`{3, 64}`, `{65, 66}`) and sets shared by several vertices
    // (`{2, 3}` twice, asked in either order) must all come out as the
    // definition and the brute force say, from one labelling and from
    // queries that meet vertices labelled before (the shuffled order).
    let heaps = 67usize;
    let mut adj: Vec<Vec<usize>> = (0..heaps).map(|i| (0..i).collect()).collect();
    let loops: [&[usize]; 6] = [&[64, 3], &[2, 3], &[3, 2], &[65, 66, 1], &[0, 64], &[]];
    for ks in loops {
        let u = adj.len();
        adj.push(ks.iter().copied().chain([u]).collect());
    }
    // One more: a cycle of two through the loop vertices.
    let (a, b) = (adj.len(), adj.len() + 1);
    adj.push(vec![b, 5, heaps]);
    adj.push(vec![a, 64]);
    let order: Vec<usize> = (0..adj.len()).rev().collect();
    assert_eq!(check_graph(&adj, &order), Ok(()));
    let order: Vec<usize> = (0..adj.len()).collect();
    assert_eq!(check_graph(&adj, &order), Ok(()));
    let (vals, _) = grundy_values(&adj, &order);
    assert_eq!(vals[heaps], Gsg::Infinite(vec![3, 64]));
    assert_eq!(vals[heaps + 1], vals[heaps + 2]);
    assert_eq!(vals[heaps + 3], Gsg::Infinite(vec![1, 65, 66]));
}

/// Lines longer than the block a sweep hands on at once
/// (`line_sweep::BLOCK`, 64), with a remainder: a table of `sg`, of
/// `outcome` and counts of comparisons with constants (read as blocks,
/// the tests made per block), then the finite values filtered out of the
/// table by a set (kept runs handed on as slices). Against the brute
/// force and the definition, and the same with no plan and with each
/// plan off in turn.
#[test]
fn long_lines_of_a_labelled_game_are_read_in_blocks() {
    use grundy::{Limits, Plans};
    let (a, b) = (5usize, 150usize);
    let text = format!(
        "game H(x, y) where 0 <= x < {a} and 0 <= y < {b} {{\n\
         move take_y(k in 1..=3) if k <= y -> H(x, y - k)\n\
         move take_x(k in 1..=2) if k <= x -> H(x - k, y)\n\
         move put_y if y % 5 == 2 and y + 1 < {b} -> H(x, y + 1)\n\
         move put_x if y % 7 == 3 and x + 1 < {a} -> H(x + 1, y)\n}}\n\
         print sg(H({la}, {lb}))\n\
         let values = [sg(H(x, y)) for x in 0..{a}, y in 0..{b}]\n\
         print values\n\
         print [outcome(H(x, y)) for x in 0..{a}, y in 0..{b}]\n\
         print count(outcome(H(x, y)) == D for x in 0..{a}, y in 0..{b})\n\
         print count(N != outcome(H(x, y)) for x in 0..{a}, y in 0..{b})\n\
         print count(sg(H(x, y)) == 1 for x in 0..{a}, y in 0..{b})\n\
         let S = set(0..64)\n\
         let finite = [v for v in values if v in S]\n\
         print finite\n\
         print [v for v in values if v not in S]\n\
         print count(v == 0 for v in finite)\n",
        la = a - 1,
        lb = b - 1,
    );
    let run = |plans: Plans| {
        common::run_with(
            &text,
            Limits {
                plans,
                ..Limits::default()
            },
        )
    };
    let out = run(Plans::ALL);
    assert_eq!(run(Plans::NONE), out, "every plan against none");
    for (name, plans) in Plans::each_off() {
        assert_eq!(run(plans), out, "{name} off against every plan on");
    }
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9, "{out}");
    let id = |x: usize, y: usize| x * b + y;
    let mut adj = vec![Vec::new(); a * b];
    for x in 0..a {
        for y in 0..b {
            let ws = &mut adj[id(x, y)];
            ws.extend((1..=3).filter(|&k| k <= y).map(|k| id(x, y - k)));
            ws.extend((1..=2).filter(|&k| k <= x).map(|k| id(x - k, y)));
            if y % 5 == 2 && y + 1 < b {
                ws.push(id(x, y + 1));
            }
            if y % 7 == 3 && x + 1 < a {
                ws.push(id(x + 1, y));
            }
        }
    }
    assert_eq!(check_printed(&adj, lines[1]), Ok(()));
    let values: Vec<Gsg> = items(lines[1]).into_iter().map(parse_gsg).collect();
    let outcomes: Vec<Outcome> = items(lines[2]).into_iter().map(parse_outcome).collect();
    let brute = brute_outcomes(&adj);
    assert_eq!(outcomes, brute);
    let count = |o: Outcome| brute.iter().filter(|&&x| x == o).count();
    assert!(count(Outcome::D) > 0 && count(Outcome::P) > 0, "{out}");
    assert_eq!(lines[3], count(Outcome::D).to_string());
    assert_eq!(lines[4], (a * b - count(Outcome::N)).to_string());
    let ones = values.iter().filter(|&v| *v == Gsg::Finite(1)).count();
    assert_eq!(lines[5], ones.to_string());
    // The filters split the table's own printed items, in order.
    let (finite, infinite): (Vec<&str>, Vec<&str>) =
        (items(lines[1]).into_iter()).partition(|s| !s.starts_with('∞'));
    assert!(!infinite.is_empty() && !finite.is_empty(), "{out}");
    assert_eq!(items(lines[6]), finite);
    assert_eq!(items(lines[7]), infinite);
    let zeros = finite.iter().filter(|&&s| s == "0").count();
    assert_eq!(lines[8], zeros.to_string());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn moves_bounded_on_a_line_by_their_guards_match_the_brute_force(
        w in 20usize..75, t in 1usize..3, p in 2usize..6, r in 0usize..6, a in 1usize..3,
        b in 1usize..3, c in 0usize..5, e in 0usize..75, swap in any::<bool>(),
    ) {
        // Moves without bindings whose guards bound the last coordinate
        // (`y + a < w`, `b <= y`, `y < x + c`, `y == e`, `x < y`, with
        // conjuncts that do not read it before and after), each decided
        // once per line of the box as a stretch of cells; a swap whose
        // first argument reads `y` is listed per cell.
        let (r, e) = (r % p, e % w);
        let swap_move = if swap { "move swap if y < x -> H(y, x)\n" } else { "" };
        let game = format!(
            "game H(x, y) where 0 <= x < {w} and 0 <= y < {w} {{\n\
             move take_x(k in 1..={t}) if k <= x -> H(x - k, y)\n\
             move take_y(k in 1..=2) if k <= y -> H(x, y - k)\n\
             move up if y + {a} < {w} and x % {p} == {r} -> H(x, y + {a})\n\
             move down if x % 3 == 1 and {b} <= y and y < x + {c} -> H(x, y - {b})\n\
             move hop if y == {e} and x + 1 < {w} -> H(x + 1, y)\n\
             move back if x < y and x % 2 == 1 -> H(x - 1, y + 1)\n\
             {swap_move}}}\n"
        );
        let text = format!(
            "{game}print sg(H({0}, {0}))\nprint [sg(H(x, y)) for x in 0..{w}, y in 0..{w}]\n",
            w - 1
        );
        let out = dense_and_hashed(&text);
        let adj = box_options(w, |x, y| {
            let mut ws = Vec::new();
                ws.extend((1..=t).filter(|&k| k <= x).map(|k| (x - k, y)));
                ws.extend((1..=2).filter(|&k| k <= y).map(|k| (x, y - k)));
                if y + a < w && x % p == r {
                    ws.push((x, y + a));
                }
                if x % 3 == 1 && b <= y && y < x + c {
                    ws.push((x, y - b));
                }
                if y == e && x + 1 < w {
                    ws.push((x + 1, y));
                }
                if x < y && x % 2 == 1 && y + 1 < w {
                    ws.push((x - 1, y + 1));
                }
                if swap && y < x {
                    ws.push((y, x));
                }
            ws
        });
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
        // The corner reaches the whole box, listed as such at once.
        prop_assert_eq!(labelled_counts(&text).first().copied(), Some(w * w));
    }

    #[test]
    fn moves_tested_per_cell_on_a_line_match_the_brute_force(
        w in 20usize..75, p in 2usize..6, q in 2usize..5, s in 0usize..5, a in 1usize..3,
        d in 0usize..75, divide in any::<bool>(),
    ) {
        // Moves without bindings whose guards test the last coordinate
        // with conjuncts that are no orders (`y % q == s`, `(x + y) % 4`),
        // before and after orders and conjuncts that do not read it: the
        // line's shared row plus the cells whose tests hold (`tick` off
        // the box at `x = w - 1`, an order after a test in `tock`). With
        // `divide`, a test divides by zero at `y == d` on some lines,
        // where the general path must say so: the same output both ways.
        use grundy::{Limits, Plans};
        let (s, d) = (s % q, d % w);
        let split = if divide {
            format!("move split if x % 5 == 4 and 12 / (y - {d}) != 99 -> H(x, y)\n")
        } else {
            String::new()
        };
        let game = format!(
            "game H(x, y) where 0 <= x < {w} and 0 <= y < {w} {{\n\
             move take_x(k in 1..=3) if k <= x -> H(x - k, y)\n\
             move take_y(k in 1..=2) if k <= y -> H(x, y - k)\n\
             move tick if x % {p} == 1 and y % {q} == {s} -> H(x + 1, y)\n\
             move tock if y % {q} != {s} and y + {a} < {w} and x % 3 == 0 -> H(x, y + {a})\n\
             move tuck if 1 <= y and (x + y) % 4 == 1 and x % 2 == 1 -> H(x, y - 1)\n\
             {split}}}\n"
        );
        let text = format!(
            "{game}print sg(H({0}, {0}))\nprint [sg(H(x, y)) for x in 0..{w}, y in 0..{w}]\n",
            w - 1
        );
        let out = same_both_ways(&text);
        if divide {
            prop_assert!(out.contains("failure"), "{}", out);
            return Ok(());
        }
        let adj = box_options(w, |x, y| {
            let mut ws = Vec::new();
                ws.extend((1..=3).filter(|&k| k <= x).map(|k| (x - k, y)));
                ws.extend((1..=2).filter(|&k| k <= y).map(|k| (x, y - k)));
                if x % p == 1 && y % q == s && x + 1 < w {
                    ws.push((x + 1, y));
                }
                if y % q != s && y + a < w && x % 3 == 0 {
                    ws.push((x, y + a));
                }
                if 1 <= y && (x + y) % 4 == 1 && x % 2 == 1 {
                    ws.push((x, y - 1));
                }
            ws
        });
        prop_assert_eq!(check_printed(&adj, out.lines().last().unwrap_or("")), Ok(()));
        prop_assert_eq!(labelled_counts(&text).first().copied(), Some(w * w));
        // Each plan off in turn: the same values.
        for (name, plans) in Plans::each_off() {
            let limits = Limits { plans, ..Limits::default() };
            prop_assert_eq!(&common::run_with(&text, limits), &out, "{} off", name);
        }
    }
}
