//! Games whose `where` or moves keep their list sorted keep their positions at
//! their rank among sorted lists (`memo/ranked.rs`: multisets, or sets
//! when the `where` also says `distinct`), their sorted runs read through
//! the rank's binomial columns (`search/sorted_parts.rs`): values as the
//! general path's (which keeps them in the box window and sparse table)
//! and as theorems give them.

use std::collections::HashMap;

use crate::common::{explain, run_with, same_both_ways};
use grundy::{Limits, Plans};

/// Welter's game: coins on distinct squares, one slid to a lower free
/// square.
const WELTER: &str = "
    game W(coins) where distinct(coins) and coins == sorted(coins) {
        move slide(i in 0..len(coins), t in 0..coins[i]) if t not in coins ->
            W(sorted(update(coins, i, t)))
    }";

#[test]
fn welter_by_rank_of_sets_is_the_general_paths_and_two_coins_are_a_xor_b_less_1() {
    // Two coins on squares a < b: the value is (a ^ b) - 1 (checked by
    // hand for the squares below 4; here against the general path too).
    let program = WELTER.to_string()
        + "
        assert all(sg(W([a, b])) == (a ^ b) - 1 for b in 1..40, a in 0..b)
        print histogram(sg(W([a, b, c, d])) for d in 3..14, c in 2..d, b in 1..c, a in 0..b)
        # Larger coins after smaller ones: the ranked window grows.
        print [sg(W([a, 20, 31, 40])) for a in 0..20]
        # Not sorted, or a repeat: not a position of the game.
        print sg(W([3, 1, 5]))";
    let out = same_both_ways(&program);
    assert_eq!(out.matches("failure").count(), 1, "{out}");
    assert!(out.contains("is not a position of W"), "{out}");
    let valid = program.replace("print sg(W([3, 1, 5]))", "");
    assert!(
        explain(&valid).contains("rank as sets"),
        "{}",
        explain(&valid)
    );
}

#[test]
fn lists_swept_along_their_last_item_rank_flipped_and_past_the_bound_go_elsewhere() {
    // The first table of four coins asks the last coin fastest: the
    // lists are ranked flipped, bounded by the sweep's largest coin; the
    // coins past it, asked later, are kept outside the ranked window.
    let program = WELTER.to_string()
        + "
        print histogram(sg(W([a, b, c, d])) for a in 0..10, b in a + 1..11, c in b + 1..12,
                        d in c + 1..13)
        print [sg(W([a, b, 11, 12])) for b in 1..11, a in 0..b]
        print [sg(W([1, 4, c, 20])) for c in 5..20]
        # Sorted lists with repeats rank as multisets, flipped too.
        game P(xs) where xs == sorted(xs) {
            move m(i in 0..len(xs), t in 0..xs[i]) -> P(sorted(update(xs, i, t)))
        }
        assert all(sg(P([a, b, c])) == a ^ b ^ c for a in 0..12, b in a..12, c in b..12)
        assert all(sg(P([a, b, 15])) == a ^ b ^ 15 for b in 0..15, a in 0..=b)";
    let out = same_both_ways(&program);
    assert!(!out.contains("failure"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn sorted_lists_with_repeats_rank_as_multisets_and_play_as_nim() {
    // Nim on sorted heaps: lowering one heap and sorting again is a move
    // of Nim, so the value is the xor of the heaps.
    let program = "
        game P(xs) where xs == sorted(xs) {
            move m(i in 0..len(xs), t in 0..xs[i]) -> P(sorted(update(xs, i, t)))
        }
        assert all(sg(P([a, b, c])) == a ^ b ^ c for c in 0..24, b in 0..=c, a in 0..=b)
        print [sg(P([a, a, 9, 30])) for a in 0..=9]";
    let out = same_both_ways(program);
    assert!(!out.contains("failure"), "{out}");
    let want: Vec<String> = (0..=9).map(|a: i64| (a ^ a ^ 9 ^ 30).to_string()).collect();
    assert_eq!(out.trim(), format!("[{}]", want.join(", ")));
    assert!(explain(program).contains("rank as multisets"));
}

#[test]
fn sets_whose_moves_may_repeat_an_item_drop_those_options_by_their_where() {
    // Without `t not in coins`, a coin may land on another: the option
    // fails the `where` and is no option. Ranks of sets cannot name such
    // lists, so these runs are read another way; values are Welter's.
    let guarded = WELTER.to_string()
        + "
        print [sg(W([a, b, c])) for c in 2..16, b in 1..c, a in 0..b]";
    let unguarded = guarded.replace(" if t not in coins", "");
    let (a, b) = (same_both_ways(&guarded), same_both_ways(&unguarded));
    assert!(!a.contains("failure"), "{a}");
    assert_eq!(a, b);
}

#[test]
fn lists_every_move_sorts_rank_without_a_where_saying_so_and_unsorted_roots_still_play() {
    // Welter with only `distinct` in its `where` (the other form of the
    // bench's W3), and Nim on heaps whose moves sort them with no `where`
    // at all: both rank, and a root written unsorted (no rank) is valued
    // from its sorted options like any other position.
    let program = "
        game W(coins) where distinct(coins) {
            move slide(i in 0..len(coins), t in 0..coins[i]) -> W(sorted(update(coins, i, t)))
        }
        assert all(sg(W([a, b])) == (a ^ b) - 1 for b in 1..30, a in 0..b)
        print histogram(sg(W([a, b, c])) for c in 2..16, b in 1..c, a in 0..b)
        print sg(W([9, 2, 5])) == sg(W([2, 5, 9]))
        game P(xs) {
            move m(i in 0..len(xs), t in 0..xs[i]) -> P(sorted(update(xs, i, t)))
        }
        assert all(sg(P([a, b, c])) == a ^ b ^ c for c in 0..16, b in 0..=c, a in 0..=b)
        assert all(sg(P([c, a, b])) == a ^ b ^ c for c in 0..9, b in 0..9, a in 0..9)";
    let out = same_both_ways(program);
    assert!(!out.contains("failure"), "{out}");
    assert_eq!(out.lines().last(), Some("true"), "{out}");
    let shown = explain(program);
    assert!(shown.contains("rank as sets"), "{shown}");
    assert!(shown.contains("rank as multisets"), "{shown}");
}

#[test]
fn where_conditions_comparing_a_list_with_its_sorted_self_agree_with_the_value_path() {
    // `xs != sorted(xs)` keeps the unsorted lists only; a tuple is never
    // equal to the list `sorted` makes of it.
    let program = "
        game U(xs) where xs != sorted(xs) {
            move m(i in 0..len(xs), k in 1..=xs[i]) -> U(update(xs, i, xs[i] - k))
        }
        print [sg(U([a, b, c])) for a in 0..5, b in 0..5, c in 0..5 if [a, b, c] != sorted([a, b, c])]
        game T(t) where t == sorted(t) {
            move m(k in 0..t[0]) -> T((k, t[1]))
        }
        print sg(T((1, 2)))";
    let out = same_both_ways(program);
    assert_eq!(out.matches("failure").count(), 1, "{out}");
    assert!(out.contains("is not a position of T"), "{out}");
    // U([1, 0, 0]) has no option left unsorted ([0, 0, 0] is sorted).
    assert!(out.starts_with("[0, "), "{out}");
}

/// Welter's game on `coins` (ascending, distinct) by the definition: a
/// coin slid to any lower free square, the values kept by list.
fn welter(coins: &[u32], memo: &mut HashMap<Vec<u32>, u32>) -> u32 {
    if let Some(&v) = memo.get(coins) {
        return v;
    }
    let mut seen = Vec::new();
    for (i, &x) in coins.iter().enumerate() {
        for t in (0..x).filter(|t| !coins.contains(t)) {
            let mut option = coins.to_vec();
            option[i] = t;
            option.sort_unstable();
            seen.push(welter(&option, memo));
        }
    }
    let v = (0..).find(|v| !seen.contains(v)).expect("a mex");
    memo.insert(coins.to_vec(), v);
    v
}

/// The ascending lists of `n` distinct squares below `m`, the first item
/// varying fastest (`first_fastest`) or the last.
fn ascending(n: usize, m: u32, first_fastest: bool) -> Vec<Vec<u32>> {
    let mut all: Vec<Vec<u32>> = vec![vec![]];
    for _ in 0..n {
        all = all
            .into_iter()
            .flat_map(|xs| {
                let from = xs.last().map_or(0, |&x| x + 1);
                (from..m).map(move |x| [xs.clone(), vec![x]].concat())
            })
            .collect();
    }
    if first_fastest {
        all.sort_by(|a, b| a.iter().rev().cmp(b.iter().rev()));
    }
    all
}

#[test]
fn sorted_runs_marked_as_placed_agree_with_a_brute_force_for_three_to_five_coins() {
    // Each setting's runs are marked as they are placed, in a window by
    // rank of sets (flipped when the last coin varies fastest) and by
    // coordinates (`distinct` alone), for three, four and five coins,
    // the tables asked bottom-up (every option known: the marked runs
    // alone) and largest first (positions finished place by place).
    // Against the definition, with every plan, none, and each off in turn.
    let boxed = "
        game B(coins) where distinct(coins) {
            move slide(i in 0..len(coins), t in 0..coins[i]) -> B(sorted(update(coins, i, t)))
        }";
    let tables = [
        (
            "W",
            "a, b, c",
            "a in 0..16, b in a + 1..16, c in b + 1..16",
            3,
            16,
            false,
        ),
        (
            "W",
            "a, b, c, d",
            "d in 3..11, c in 2..d, b in 1..c, a in 0..b",
            4,
            11,
            true,
        ),
        (
            "B",
            "a, b, c, d",
            "d in 3..11, c in 2..d, b in 1..c, a in 0..b",
            4,
            11,
            true,
        ),
        (
            "W",
            "a, b, c, d, e",
            "a in 0..10, b in a + 1..10, c in b + 1..10, d in c + 1..10, e in d + 1..10",
            5,
            10,
            false,
        ),
        (
            "B",
            "a, b, c, d, e",
            "e in 4..10, d in 3..e, c in 2..d, b in 1..c, a in 0..b",
            5,
            10,
            true,
        ),
    ];
    let mut memo = HashMap::new();
    for (game, items, bindings, n, m, first_fastest) in tables {
        let lists = ascending(n, m, first_fastest);
        let values: Vec<String> = lists
            .iter()
            .map(|xs| welter(xs, &mut memo).to_string())
            .collect();
        let expected = format!("[{}]", values.join(", "));
        let values: Vec<String> = values.into_iter().rev().collect();
        let reversed = format!("[{}]", values.join(", "));
        let table = format!("[sg({game}([{items}])) for {bindings}]");
        // Largest first: every range reversed reverses the table.
        let down = format!("[sg({game}([{items}])) for {}]", largest_first(bindings));
        for (asked, want) in [(table, &expected), (down, &reversed)] {
            let program = format!("{WELTER}\n{boxed}\nprint {asked}");
            agrees_under_every_plan(&program, want, &asked);
        }
    }
    // Lists the runs refuse (a repeat, not ascending, a negative coin,
    // coins past the window): values or errors as the general path's.
    let program = format!(
        "{WELTER}\n{boxed}
        print [sg(W([a, b, c])) for a in 0..6, b in a + 1..7, c in b + 1..8]
        print [sg(B([9, 2, 5])), sg(B([70, 3, 1])), sg(B([300, 40, 2, 1]))]
        print sg(W([1, 4, 4]))
        # A coin below the window moves nowhere: the other two play alone.
        assert sg(B([-1, 3, 5])) == sg(B([3, 5]))"
    );
    let run = |plans: Plans| {
        run_with(
            &program,
            Limits {
                plans,
                ..Limits::default()
            },
        )
    };
    let none = run(Plans::NONE);
    assert_eq!(none.matches("failure").count(), 1, "{none}");
    assert!(
        none.contains("W([1, 4, 4]) is not a position of W"),
        "{none}"
    );
    // Unsorted roots play as their sorted sets.
    let unsorted = format!(
        "[{}, {}, ",
        welter(&[2, 5, 9], &mut memo),
        welter(&[1, 3, 70], &mut memo)
    );
    assert!(
        none.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with(&unsorted)),
        "{none}"
    );
    assert_eq!(run(Plans::ALL), none, "every plan against none");
    for (name, plans) in Plans::each_off() {
        assert_eq!(run(plans), none, "{name} off against none");
    }
}

/// Runs `program` with every plan, none, and each off in turn: each
/// prints `want` (what the definition gives).
fn agrees_under_every_plan(program: &str, want: &str, what: &str) {
    let run = |plans: Plans| {
        run_with(
            program,
            Limits {
                plans,
                ..Limits::default()
            },
        )
    };
    let all = run(Plans::ALL);
    assert_eq!(
        all.trim(),
        want,
        "{what}: every plan against the definition"
    );
    assert_eq!(run(Plans::NONE), all, "{what}: no plan against every plan");
    for (name, plans) in Plans::each_off() {
        assert_eq!(run(plans), all, "{what}: {name} off against every plan");
    }
}

#[test]
fn a_keyed_kernel_values_a_swept_line_on_one_frame_beside_other_moves_and_games() {
    // A swept line of lists is valued on the keyed kernel's frame, loaded
    // once a line (`swept_line.rs`). Welter's game with a second move to
    // a sum of two smaller games (its options of another shape), and two
    // layouts of Welter's game asked in one table, position by position
    // (the sorted runs' scratch shared by both windows): bottom-up and
    // largest first, against the definition, every plan, none, each off.
    fn g(xs: &[u32], memo: &mut HashMap<Vec<u32>, u32>) -> u32 {
        if let Some(&v) = memo.get(xs) {
            return v;
        }
        let mut seen = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            for t in (0..x).filter(|t| !xs.contains(t)) {
                let mut o = xs.to_vec();
                o[i] = t;
                o.sort_unstable();
                seen.push(g(&o, memo));
            }
        }
        if xs.len() == 3 {
            seen.push(g(&xs[1..], memo) ^ g(&xs[..2], memo));
        }
        let v = (0..).find(|v| !seen.contains(v)).expect("a mex");
        memo.insert(xs.to_vec(), v);
        v
    }
    let rules = format!(
        "{WELTER}
        game B(coins) where distinct(coins) {{
            move slide(i in 0..len(coins), t in 0..coins[i]) -> B(sorted(update(coins, i, t)))
        }}
        game G(coins) where distinct(coins) and coins == sorted(coins) {{
            move slide(i in 0..len(coins), t in 0..coins[i]) if t not in coins ->
                G(sorted(update(coins, i, t)))
            move drop() if len(coins) == 3 -> G([coins[1], coins[2]]) + G([coins[0], coins[1]])
        }}"
    );
    let bindings = "a in 0..10, b in a + 1..11, c in b + 1..12";
    let lists = ascending(3, 12, false);
    let (mut gm, mut wm) = (HashMap::new(), HashMap::new());
    let gs: Vec<String> = lists.iter().map(|xs| g(xs, &mut gm).to_string()).collect();
    let both: Vec<String> = lists
        .iter()
        .map(|xs| (100 * welter(xs, &mut wm) + welter(xs, &mut wm)).to_string())
        .collect();
    for (body, values) in [
        ("sg(G([a, b, c]))", gs),
        ("100 * sg(W([a, b, c])) + sg(B([a, b, c]))", both),
    ] {
        let want = format!("[{}]", values.join(", "));
        let rev: Vec<String> = values.into_iter().rev().collect();
        let rev = format!("[{}]", rev.join(", "));
        for (asked, want) in [
            (format!("[{body} for {bindings}]"), &want),
            (format!("[{body} for {}]", largest_first(bindings)), &rev),
        ] {
            let program = format!("{rules}\nprint {asked}");
            agrees_under_every_plan(&program, want, &asked);
        }
    }
}

/// `bindings` with each range's items taken largest first.
fn largest_first(bindings: &str) -> String {
    bindings
        .split(", ")
        .map(|b| {
            let (name, range) = b.split_once(" in ").expect("a binding");
            format!("{name} in reversed(list({range}))")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value of the sorted list `coins` (distinct items) in the game
/// whose move slides item `x` to a free square of `moves(x)`, by the
/// definition.
fn slide_value(
    coins: &[i64],
    moves: &dyn Fn(i64) -> std::ops::Range<i64>,
    memo: &mut HashMap<Vec<i64>, u32>,
) -> u32 {
    if let Some(&v) = memo.get(coins) {
        return v;
    }
    let mut seen = Vec::new();
    for (i, &x) in coins.iter().enumerate() {
        for t in moves(x).filter(|t| !coins.contains(t)) {
            let mut option = coins.to_vec();
            option[i] = t;
            option.sort_unstable();
            seen.push(slide_value(&option, moves, memo));
        }
    }
    let v = (0..).find(|v| !seen.contains(v)).expect("a mex");
    memo.insert(coins.to_vec(), v);
    v
}

#[test]
fn runs_of_settings_that_lower_or_raise_an_item_agree_with_the_definition() {
    // Coins slid down at most three squares (settings from code, `a > 0`)
    // and coins slid up (options past the position), by rank of sets
    // (flipped: the last coin fastest) and by coordinates (`distinct`
    // alone), asked bottom-up and largest first, against the definition,
    // with every plan, none, and each off in turn.
    let games = [
        ("down3", "max(0, coins[i] - 3)..coins[i]", 0),
        ("up", "coins[i] + 1..12", 1),
    ];
    let ranges: [&dyn Fn(i64) -> std::ops::Range<i64>; 2] =
        [&|x| (x - 3).max(0)..x, &|x| x + 1..12];
    for ((name, range, up), moves) in games.into_iter().zip(ranges) {
        let rules = format!(
            "
            game R(coins) where distinct(coins) and coins == sorted(coins) {{
                move slide(i in 0..len(coins), t in {range}) if t not in coins ->
                    R(sorted(update(coins, i, t)))
            }}
            game B(coins) where distinct(coins) {{
                move slide(i in 0..len(coins), t in {range}) -> B(sorted(update(coins, i, t)))
            }}"
        );
        let mut memo = HashMap::new();
        for (items, bindings, n) in [
            ("a, b, c", "a in 0..12, b in a + 1..12, c in b + 1..12", 3),
            (
                "a, b, c, d",
                "a in 0..11, b in a + 1..11, c in b + 1..11, d in c + 1..11",
                4,
            ),
        ] {
            let m = if n == 3 { 12 } else { 11 };
            let lists = ascending(n, m, false);
            let values: Vec<String> = lists
                .iter()
                .map(|xs| {
                    let xs: Vec<i64> = xs.iter().map(|&x| x as i64).collect();
                    slide_value(&xs, moves, &mut memo).to_string()
                })
                .collect();
            let expected = format!("[{}]", values.join(", "));
            let reversed: Vec<String> = values.into_iter().rev().collect();
            let reversed = format!("[{}]", reversed.join(", "));
            for game in ["R", "B"] {
                let table = format!("[sg({game}([{items}])) for {bindings}]");
                let down = format!("[sg({game}([{items}])) for {}]", largest_first(bindings));
                for (asked, want) in [(table, &expected), (down, &reversed)] {
                    let program = format!("{rules}\nprint {asked}");
                    agrees_under_every_plan(&program, want, &format!("{name} {asked}"));
                }
            }
        }
        // Past the window a table laid out (a coin past the flipped
        // bound), and a repeat: as the general path, the repeat an error.
        let past: Vec<i64> = if up == 0 {
            vec![1, 4, 20]
        } else {
            vec![1, 4, 11]
        };
        let want = slide_value(&past, moves, &mut memo);
        let program = format!(
            "{rules}
            print histogram(sg(R([a, b, c])) for a in 0..8, b in a + 1..9, c in b + 1..10)
            print sg(R({past:?})), sg(B({past:?}))
            print sg(R([2, 2, 5]))"
        );
        let all = run_with(&program, Limits::default());
        assert!(all.contains(&format!("{want} {want}")), "{name}: {all}");
        assert!(
            all.contains("R([2, 2, 5]) is not a position of R"),
            "{name}: {all}"
        );
        let none = run_with(
            &program,
            Limits {
                plans: Plans::NONE,
                ..Limits::default()
            },
        );
        assert_eq!(none, all, "{name}: no plan against every plan");
    }
}
