//! The lean walk of games whose moves are all keyed kernel loops
//! (`src/eval/search/key_walk.rs`): against the general path (every
//! plan off) and against brute forces, and the cases where it hands a
//! position over to the general search (code it cannot run, a cycle,
//! a limit).

use crate::common;

use common::{run, run_with, same_both_ways};
use grundy::{Limits, Plans};

/// Node Kayles on the 3 x `n` grid (vertex `3c + r`) by a plain memoised
/// search over bit masks of the free vertices: the value of the whole
/// grid and how many positions the search valued.
fn grid_node_kayles(n: usize) -> (u64, usize) {
    fn sg(closed: &[u64], memo: &mut std::collections::HashMap<u64, u64>, free: u64) -> u64 {
        if let Some(&x) = memo.get(&free) {
            return x;
        }
        let mut values = Vec::new();
        let mut rest = free;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            values.push(sg(closed, memo, free & !closed[v]));
        }
        let x = (0..).find(|x| !values.contains(x)).expect("a gap");
        memo.insert(free, x);
        x
    }
    let cells = 3 * n;
    let closed: Vec<u64> = common::grid3_neighbours(n)
        .into_iter()
        .enumerate()
        .map(|(v, a)| a | 1 << v)
        .collect();
    let mut memo = std::collections::HashMap::new();
    let x = sg(&closed, &mut memo, (1u64 << cells) - 1);
    (x, memo.len())
}

const NODE_KAYLES: &str = "
    let adj = [{u for u in [v - 3, v + 3] if 0 <= u < 3 * N}
               | {u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u}
               for v in 0..3 * N]
    game K(free) {
        move take(v in free) -> K(free - ({v} | adj[v]))
    }
    print sg(K(set(0..3 * N)))
    print sum(memo_histogram(K))";

#[test]
fn node_kayles_on_the_walk_agrees_with_the_general_path_and_a_brute_force() {
    for n in [2, 4] {
        let program = format!("let N = {n}\n{NODE_KAYLES}");
        let out = same_both_ways(&program);
        let (x, positions) = grid_node_kayles(n);
        assert_eq!(out, format!("{x}\n{positions}\n"), "N = {n}");
    }
}

#[test]
fn options_found_solved_as_they_are_listed_read_at_once_in_dense_and_sparse_tables() {
    // Node Kayles reaches most positions many ways: an option found
    // solved when listed is read then (`Memo::probe`). A negative second
    // argument keeps every position in the sparse table (no window takes
    // negative coordinates), so both lookups are met; the values and the
    // number of positions against the brute force and the general path.
    for n in [3, 5] {
        let (x, positions) = grid_node_kayles(n);
        for (args, result) in [("", ""), (", t", ", t")] {
            let program = format!(
                "let N = {n}
                let adj = [{{u for u in [v - 3, v + 3] if 0 <= u < 3 * N}}
                           | {{u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u}}
                           for v in 0..3 * N]
                game K(free{args}) {{
                    move take(v in free) -> K(free - ({{v}} | adj[v]){result})
                }}
                print sg(K(set(0..3 * N){tail}))
                print sum(memo_histogram(K))",
                tail = if args.is_empty() { "" } else { ", -1" },
            );
            let out = same_both_ways(&program);
            assert_eq!(out, format!("{x}\n{positions}\n"), "N = {n}, {args:?}");
        }
    }
}

#[test]
fn several_bindings_guards_and_chosen_results_agree_with_the_general_path() {
    let out = same_both_ways(
        "# Two bindings, a guard across them, a result chosen by `if`, an
        # integer beside the set.
        game Pairs(s, n) {
            move two(i in s, j in s) if i < j and j - i <= n ->
                if i == 0 then Pairs(s - {i, j}, n) else Pairs(s - {j}, n)
            move one(k in 0..n) if k in s and n > 1 -> Pairs(s - {k}, n - 1)
        }
        print [sg(Pairs(set(0..m), 3)) for m in 0..9]
        print sorted(list(memo_histogram(Pairs)))",
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn a_walk_stopped_midway_leaves_its_values_to_the_general_search() {
    // Sets that reach item 64 are no bit masks: the walk stops at the
    // first such position, deep in its search, and the general search
    // takes the start again, reading the values the walk stored.
    let out = same_both_ways(
        "game Up(s) {
            move m(i in s) if i < 66 -> Up(s - {i} | {i + 1})
        }
        print [sg(Up({a, b})) for a in [50, 58, 61] for b in [62, 63]]
        print sorted(list(memo_histogram(Up)))",
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn a_cycle_met_by_the_walk_goes_to_the_loopy_labelling() {
    let out = same_both_ways(
        "let adj = [{1, 2}, {0}, {0, 3}, {}]
        # Moves back and forth between vertices 0 and 1: loopy.
        game Walk(v, seen) {
            move go(u in adj[v] - seen) -> Walk(u, seen | {v})
            move back(u in adj[v] & seen) -> Walk(u, seen - {u})
        }
        print [sg(Walk(v, {})) for v in 0..4], outcome(Walk(0, {}))",
    );
    assert!(!out.contains("failure"), "{out}");
    assert!(out.contains('∞') || out.contains('D'), "{out}");
}

#[test]
fn the_state_limit_and_errors_stop_the_walk_as_they_stop_the_search() {
    let program = format!("let N = 6\n{NODE_KAYLES}");
    for plans in [Plans::ALL, Plans::NONE] {
        let limits = Limits {
            max_states: 500,
            plans,
            ..Limits::default()
        };
        let out = run_with(&program, limits);
        assert!(out.contains("state space too large"), "{out}");
    }
    // An index past the list's end in the set a binding runs over.
    let out = same_both_ways(
        "let adj = [{1}, {0, 2}, {1, 3}]
        game G(v, seen) {
            move go(u in adj[v] - seen) -> G(u, seen | {u})
        }
        print sg(G(0, {0}))",
    );
    assert!(out.contains("failure"), "{out}");
    // On the path 0 - 1 - 2, from 0 the only play is 0, 1, 2: a win for
    // the player who moved to 2, so value 0; from 1 two moves to ends.
    let again = run(
        "let adj = [{1}, {0, 2}, {1}]
        game G(v, seen) {
            move go(u in adj[v] - seen) -> G(u, seen | {u})
        }
        print sg(G(0, {0})), sg(G(1, {1})), sg(G(0, {0}))",
        true,
    );
    assert_eq!(again, "0 1 0\n");
}

#[test]
fn explain_names_the_walk_for_the_games_it_runs_and_no_others() {
    const WALK: &str = "search: a lean walk";
    // Whether an explanation of `game` names the walk (a game reading
    // top-level constants is explained again once they are known).
    let explained = |program: &str, game: &str| {
        let out = common::explain(program);
        let mut named = None;
        let mut current = false;
        for line in out.lines() {
            if let Some(rest) = line.strip_prefix("game ") {
                let name = rest.split([':', ' ']).next().unwrap_or("");
                current = name == game;
                named = named.or(current.then_some(false));
            } else if current && line.contains(WALK) {
                named = Some(true);
            }
        }
        named.unwrap_or_else(|| panic!("no game {game}: {out}"))
    };
    // Node Kayles, geography through a `let` and through a function, and
    // two bindings with a guard and a chosen result: every move a keyed
    // loop to one position.
    let program = format!("let N = 3\n{NODE_KAYLES}");
    assert!(explained(&program, "K"));
    let geography = "let adj = [{1}, {0, 2}, {1}]
        fn near(v) = {u for u in [v - 1, v + 1] if 0 <= u < 3}
        game G(v, seen) { move go(u in adj[v] - seen) -> G(u, seen | {u}) }
        game F(v, seen) { move go(u in near(v) - seen) -> F(u, seen | {u}) }
        game Pairs(s, n) {
            move two(i in s, j in s) if i < j and j - i <= n ->
                if i == 0 then Pairs(s - {i, j}, n) else Pairs(s - {j}, n)
        }
        print sg(G(0, {0})), sg(F(0, {0})), sg(Pairs({1, 2}, 1))";
    for game in ["G", "F", "Pairs"] {
        assert!(explained(geography, game), "{game}");
    }
    // Not walked: a `where`, a sum, a bit-mask run (Cram's), a strided
    // run (Welter's), integer positions.
    let others = "game W(s) where not (0 in s) { move m(v in s) -> W(s - {v}) }
        game S(s) { move m(v in s) -> S(s - {v}) + S(s - {v}) }
        game Cram(free) {
            move across(i in free) if i % 4 != 3 and i + 1 in free
                -> Cram(remove(remove(free, i), i + 1))
        }
        game Welter(coins) where coins == sorted(coins) and distinct(coins) {
            move slide(i in 0..len(coins), t in 0..coins[i]) if t not in coins
                -> Welter(sorted(update(coins, i, t)))
        }
        game Heap(n) { move take(k in 1..=n) -> Heap(n - k) }
        print sg(W({1, 2})), sg(S({1})), sg(Cram({0, 1})), sg(Welter([1, 2])), sg(Heap(3))";
    for game in ["W", "S", "Cram", "Welter", "Heap"] {
        assert!(
            !explained(others, game),
            "{game}: {}",
            common::explain(others)
        );
    }
}

#[test]
fn every_form_of_set_and_sequence_code_agrees_with_the_general_path() {
    // Each move writes its option through another node of the key code
    // (`compile/key_tree.rs`, generated into closures): chains of
    // several steps, operators on operators, a literal, a constant set,
    // a table read at integer code, a comprehension, a call, a set of
    // one local read from its table and, past 63, from its code; an
    // integer or a set (`n - i`); `update`, `sorted` of a list and of a
    // bit set, lists joined, a list literal.
    let out = same_both_ways(
        "let adj = [{1, 2}, {0, 3}, {0, 3}, {1, 2}, {5}, {4}]
        let evens = {0, 2, 4}
        fn ring(v) = {u for u in [v - 1, v + 1] if 0 <= u < 6}
        game S(s) {
            move pair(i in s, j in s) if i < j -> S(s - {i} - {j})
            move ops(i in s) -> S((s & evens) - ({i} | adj[i]))
            move near(i in s) -> S(s - ring(i) - {i})
            move two(i in s) -> S(remove(s - {i, i + 1}, i + 2))
            move deep(i in s) -> S((s - (adj[(i + 1) % 6] & s)) - {i})
            move far(k in [70, 71]) if k - 69 in s -> S(s - ({k - 69} | {k - 70}))
        }
        game D(n, s) {
            move m(i in s) if i <= n -> D(n - i, s - {i})
        }
        game L(xs, s) {
            move down(i in 0..len(xs)) if xs[i] > 0 -> L(update(xs, i, xs[i] - 1), s)
            move bits(i in s) -> L(sorted(s - {i}), s - {i})
            move join(i in s) if len(xs) < 3 -> L(sorted(xs + [i]), s - {i})
            move lit(i in s) -> L([i, i + 1], s - {i})
        }
        print [sg(S(set(0..m))) for m in 0..7]
        print [sg(D(n, {1, 2, 3})) for n in 0..7]
        print [sg(L(xs, {0, 1, 2})) for xs in [[], [1], [2, 0], [1, 1, 1]]]
        print sorted(list(memo_histogram(S))), sorted(list(memo_histogram(L)))",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn the_general_path_writes_by_key_code_the_keys_values_write() {
    // Move `a` writes its option by the key code (`s - {i}`, `update`),
    // move `b` the same kind of option through a form that code refuses
    // (`set(list(..))`, a comprehension), so as a value: were their keys
    // to differ, a position reached both ways would be stored twice.
    // Every subset of the start is reached and every move takes one item
    // (or one unit) away: values are parities, counts products.
    let program = |start: &str| {
        format!(
            "game C(s) {{
                move a(i in s) if i % 2 == 0 -> C(s - {{i}})
                move b(i in s) if i % 2 == 1 -> C(set(list(s - {{i}})))
            }}
            game L(xs) {{
                move a(i in 0..len(xs)) if xs[i] > 0 and i == 0 -> L(update(xs, i, xs[i] - 1))
                move b(i in 0..len(xs)) if xs[i] > 0 and i > 0 ->
                    L([if j == i then xs[j] - 1 else xs[j] for j in 0..len(xs)])
            }}
            print [sg(C(set({start}..{start} + n))) for n in 0..8], sum(memo_histogram(C))
            print [sg(L([a, b, 2])) for a in 0..3 for b in 0..3], sum(memo_histogram(L))"
        )
    };
    let parities: Vec<String> = (0..8).map(|n| (n % 2).to_string()).collect();
    let sums: Vec<String> = (0..3)
        .flat_map(|a| (0..3).map(move |b| ((a + b + 2) % 2).to_string()))
        .collect();
    let want = format!("[{}] 128\n[{}] 27\n", parities.join(", "), sums.join(", "));
    for plans in [Plans::ALL, Plans::NONE] {
        let limits = Limits {
            plans,
            ..Limits::default()
        };
        // Items 0..7 (bit sets) and 60..67 (sets past 63, written as
        // values by both moves).
        for start in ["0", "60"] {
            assert_eq!(
                run_with(&program(start), limits.clone()),
                want,
                "from {start}"
            );
        }
    }
}

/// `sg(n, s)` of the game whose move takes an item `i <= n` of `s` out of
/// both (`n - i`, `s - {i}`), by a plain memoised search.
fn distinct_takes(n: i64, s: u64, memo: &mut std::collections::HashMap<(i64, u64), u64>) -> u64 {
    if let Some(&x) = memo.get(&(n, s)) {
        return x;
    }
    let mut values = Vec::new();
    let mut rest = s;
    while rest != 0 {
        let i = rest.trailing_zeros() as i64;
        rest &= rest - 1;
        if i <= n {
            values.push(distinct_takes(n - i, s & !(1 << i), memo));
        }
    }
    let x = (0..).find(|x| !values.contains(x)).expect("a gap");
    memo.insert((n, s), x);
    x
}

#[test]
fn options_of_one_coordinate_each_are_made_in_registers_and_sequences_keep_their_keys() {
    // `T`'s option is integer code, set code and a slot passed on: one
    // coordinate each while `t` is a bit set (made in registers), a
    // sequence of items when `t` holds 70 (its key written, and the
    // option looked up the same). `L` writes a list: always its key.
    let program = "game T(n, s, t) {
            move m(i in s) if i <= n -> T(n - i, s - {i}, t)
        }
        game L(xs, s) {
            move m(i in s) if len(xs) < 2 -> L(xs + [i], s - {i})
        }
        print [sg(T(n, set(1..8), {5})) for n in 0..20]
        print [sg(T(n, set(1..8), {5, 70})) for n in 0..20]
        print [sg(L([], set(0..k))) for k in 0..5]";
    let out = same_both_ways(program);
    let mut memo = std::collections::HashMap::new();
    let want: Vec<u64> = (0..20)
        .map(|n| distinct_takes(n, 0b1111_1110, &mut memo))
        .collect();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("{want:?}"), "{out}");
    assert_eq!(lines[1], format!("{want:?}"), "{out}");
    // `L`: a list of at most two of the k items, then no move: 0 if none
    // is left to take (k = 0), else the parity of the moves left.
    assert_eq!(lines[2], "[0, 1, 0, 0, 0]", "{out}");
    let explained = common::explain(program);
    assert!(
        explained.contains("each option made in registers"),
        "{explained}"
    );
    assert!(
        explained.contains("options of m written as keys"),
        "{explained}"
    );
}

/// Vertex geography on the 3 x `n` grid by a plain memoised search over
/// bit masks: how many of its positions have each value (from the
/// starts `(v, {v})`).
fn grid_geography_histogram(n: usize) -> Vec<usize> {
    fn sg(
        adj: &[u64],
        memo: &mut std::collections::HashMap<(usize, u64), usize>,
        v: usize,
        seen: u64,
    ) -> usize {
        if let Some(&x) = memo.get(&(v, seen)) {
            return x;
        }
        let (mut values, mut free) = (0u64, adj[v] & !seen);
        while free != 0 {
            let u = free.trailing_zeros() as usize;
            free &= free - 1;
            values |= 1 << sg(adj, memo, u, seen | 1 << u);
        }
        let x = values.trailing_ones() as usize;
        memo.insert((v, seen), x);
        x
    }
    let adj = common::grid3_neighbours(n);
    let mut memo = std::collections::HashMap::new();
    (0..3 * n).for_each(|v| {
        sg(&adj, &mut memo, v, 1 << v);
    });
    let mut histogram = vec![0; memo.values().max().map_or(0, |&m| m + 1)];
    memo.values().for_each(|&x| histogram[x] += 1);
    histogram
}

#[test]
fn positions_whose_options_are_all_solved_when_listed_are_stored_once_with_their_value() {
    // Geography's positions form trees: every leaf, and every position
    // whose options were all searched by a sibling, has its value when
    // its options are listed, and is stored with it at once (no mark
    // on the path). Each position once, each value counted, in the
    // dense window and (a negative third argument) the sparse table,
    // against a brute force and the general path.
    for n in [3, 5] {
        let expected = grid_geography_histogram(n);
        for (args, result, tail) in [("", "", ""), (", t", ", t", ", -1")] {
            let program = format!(
                "let N = {n}
                let adj = [{{u for u in [v - 3, v + 3] if 0 <= u < 3 * N}}
                           | {{u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u}}
                           for v in 0..3 * N]
                game Geo(v, seen{args}) {{
                    move go(u in adj[v] - seen) -> Geo(u, seen | {{u}}{result})
                }}
                let starts = [sg(Geo(v, {{v}}{tail})) for v in 0..3 * N]
                print list(memo_histogram(Geo))"
            );
            let out = same_both_ways(&program);
            assert_eq!(out, format!("{expected:?}\n"), "N = {n}, {args:?}");
        }
    }
}

#[test]
fn a_position_whose_one_unsolved_option_is_itself_is_found_on_a_cycle() {
    // The position is marked on the path only after its options are
    // listed: an option that is the position itself is held unsolved,
    // and found on the path when its turn comes (a cycle: the loopy
    // labelling). {7} moves only to itself (a draw); {7, 3} to itself
    // and to {7}; {1, 2} is no cycle.
    let out = same_both_ways(
        "game L(s) {
            move keep(i in s) if i == 7 -> L(s)
            move drop(i in s) if i != 7 -> L(s - {i})
        }
        print sg(L({1, 2})), sg(L({7})), outcome(L({7})), outcome(L({7, 3}))",
    );
    assert!(!out.contains("failure"), "{out}");
    assert!(out.starts_with("0 "), "{out}");
    assert!(out.contains('∞') || out.contains('D'), "{out}");
}

#[test]
fn cycles_longer_than_the_unmarked_path_and_entered_below_it_are_found() {
    // The walk marks its path only at the root and from depth 64 on: a
    // ring of 80 positions entered away from the root repeats until it
    // is that deep, and a ring of 3 entered after a chain of 98
    // positions is met past it; both go to the loopy labelling, the
    // positions `n % 7 == 0` with an exit to 0.
    let out = same_both_ways(
        "game R(n, s) {
            move up(i in s) if n < 79 -> R(n + 1, s)
            move wrap(i in s) if n == 79 -> R(0, s)
            move out(i in s) if n % 7 == 0 -> R(n, {})
        }
        game T(n, s) {
            move up(i in s) if n < 100 -> T(n + 1, s)
            move back(i in s) if n == 100 -> T(98, s)
            move out(i in s) if n % 7 == 0 -> T(n, {})
        }
        print [outcome(R(n, {0})) for n in [0, 1, 40, 79]]
        print [outcome(T(n, {0})) for n in [0, 1, 97, 98, 99, 100]]
        print [sg(R(n, {0})) for n in [0, 1, 40, 79]]
        print [sg(T(n, {0})) for n in [0, 1, 97, 98, 99, 100]]",
    );
    assert!(!out.contains("failure"), "{out}");
    assert_eq!(out.lines().count(), 4, "{out}");
}
