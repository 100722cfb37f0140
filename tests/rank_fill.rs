//! Tables of lists kept by rank filled a level at a time, options before
//! their lists (`compile/rank_fill.rs`, `search/rank_fill.rs`): values,
//! errors and limits as the general path's, with that plan switched off,
//! and with every plan off; games whose changes move ranks both ways are
//! refused by name in `--explain` and searched.

use crate::common::{explain, run_with};
use grundy::{Limits, Plans};

/// The output of `program` under `limits` with every plan on, asserted
/// to be the same with the fill off and with every plan off.
fn same_three_ways(program: &str, limits: Limits) -> String {
    let with = |plans| {
        run_with(
            program,
            Limits {
                plans,
                ..limits.clone()
            },
        )
    };
    let on = with(Plans::ALL);
    let fill_off = Plans {
        rank_fills: false,
        ..Plans::ALL
    };
    assert_eq!(on, with(fill_off), "fill on (left) and off (right)");
    assert_eq!(
        on,
        with(Plans::NONE),
        "every plan on (left) and off (right)"
    );
    on
}

/// Tables of the lists of 4 with sum at most 9 asked in two orders, and
/// single lists (one outside the ranking).
fn tables(game: &str) -> String {
    format!(
        "{game}
         print histogram(sg(G([a, b, c, d])) for a in 0..=9, b in 0..=9 - a,
                         c in 0..=9 - a - b, d in 0..=9 - a - b - c)
         print [sg(G([0, a, 0, 12 - a])) for a in 0..=12]
         print sg(G([2, -1, 3, 1])), sg(G([1, 2, 3, 4]))"
    )
}

const FILLED_DOWN: &str = "fills each level at once from its highest rank down";
const FILLED_UP: &str = "fills the levels up to the one asked from the lowest rank up";

#[test]
fn update_chain_games_filled_by_level_agree_with_the_general_path() {
    let games = [
        // Staircase Nim: a prefix sum moves up.
        (
            "game G(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Over a constant range of stairs.
        (
            "game G(xs) { move m(i in 1..4, k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Two coins from one pile, one to each of the two below it: two
        // prefix sums move.
        (
            "game G(xs) { move m(i in 2..len(xs), k in 1..=xs[i] / 2) ->
                 G(update(update(update(xs, i, xs[i] - 2 * k), i - 1, xs[i - 1] + k),
                          i - 2, xs[i - 2] + k)) }",
            FILLED_DOWN,
        ),
        // k coins to the pile below and one more two below: one prefix
        // sum moves with k, the one under it by a constant.
        (
            "game G(xs) { move m(i in 2..len(xs), k in 1..xs[i]) ->
                 G(update(update(update(xs, i, xs[i] - k - 1), i - 1, xs[i - 1] + k),
                          i - 2, xs[i - 2] + 1)) }",
            FILLED_DOWN,
        ),
        // Stairs two apart, the index twice the binding: each setting's
        // column two rows past the last.
        (
            "game G(xs) { move m(i in 1..(len(xs) + 1) / 2, k in 1..=xs[2 * i]) ->
                 G(update(update(xs, 2 * i, xs[2 * i] - k), 2 * i - 1, xs[2 * i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // The stairs walked down from the top: the index falls as the
        // binding rises.
        (
            "game G(xs) { move m(i in 0..3, k in 1..=xs[3 - i]) ->
                 G(update(update(xs, 3 - i, xs[3 - i] - k), 2 - i, xs[2 - i] + k)) }",
            FILLED_DOWN,
        ),
        // Stairs listed, not a range, and a run that stops short of the
        // pile: `k in 1..xs[i]`.
        (
            "game G(xs) { move m(i in [3, 1, 2], k in 1..xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Two outer bindings, the index reading both.
        (
            "game G(xs) { move m(d in 0..2, i in 1..len(xs) - d, k in 1..=xs[i + d]) ->
                 G(update(update(xs, i + d, xs[i + d] - k), i + d - 1, xs[i + d - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Coins from pile `i` to any lower pile `j in 0..i`: indices of two
        // forms, their order proven by `j`'s range; the prefix sums from
        // `j` up to `i` move.
        (
            "game G(xs) { move m(i in 1..len(xs), j in 0..i, k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), j, xs[j] + k)) }",
            FILLED_DOWN,
        ),
        // The run ending at the item of an outer binding other than the
        // last (`t` repeats each stair's options): read off the list, and
        // the pile it lowers proven to stay natural all the same.
        (
            "game G(xs) { move m(i in 1..len(xs), t in 0..2, k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // A run one past the pile: the pile's check is not proven and
        // refuses the setting whose last option leaves it at -1 (a list
        // with no rank), which the search then values.
        (
            "game G(xs) { move m(i in 1..len(xs), k in 1..=xs[i] + 1) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Stairs up to the first pile's count: the outer range reads an
        // item, so its settings are worked out for each list, not once.
        (
            "game G(xs) { move m(i in 1..min(len(xs), xs[0] + 2), k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // The stairs from a constant set and the run's end from code: the
        // settings once per fill, the run per list through the frame.
        (
            "game G(xs) { move m(i in {3, 1}, k in 1..xs[i] + 1) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            FILLED_DOWN,
        ),
        // Coins moved up, to the pile above: a prefix sum moves down.
        (
            "game G(xs) { move m(i in 0..len(xs) - 1, k in 1..=xs[i]) ->
                 G(update(update(xs, i + 1, xs[i + 1] + k), i, xs[i] - k)) }",
            FILLED_UP,
        ),
        // Nim on a list, and coins taken two at a time: every option of a
        // lower sum.
        (
            "game G(xs) {
                 move take(i in 0..len(xs), k in 1..=xs[i]) -> G(update(xs, i, xs[i] - k))
                 move half(i in 0..len(xs), k in 1..=xs[i] / 2) -> G(update(xs, i, xs[i] - 2 * k))
             }",
            FILLED_UP,
        ),
    ];
    for (game, said) in games {
        let shown = explain(game);
        assert!(shown.contains(said), "{game}\n{shown}");
        let out = same_three_ways(&tables(game), Limits::default());
        assert_eq!(out.lines().count(), 3, "{game}\n{out}");
    }
}

#[test]
fn shifts_of_both_signs_or_a_where_are_refused_and_searched() {
    let games = [
        // One coin lost on the way down: a prefix sum up, the sum down.
        (
            "game G(xs) { move m(i in 1..len(xs), k in 0..xs[i]) ->
                 G(update(update(xs, i - 1, xs[i - 1] + k), i, xs[i] - k - 1)) }",
            "not proven to move every option's rank one way",
        ),
        // Two moves, one each way.
        (
            "game G(xs) {
                 move down(i in 1..len(xs), k in 1..=xs[i]) ->
                     G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
                 move up(i in 0..len(xs) - 1, k in 1..=xs[i]) ->
                     G(update(update(xs, i + 1, xs[i + 1] + k), i, xs[i] - k))
             }",
            "not proven to move every option's rank one way",
        ),
        (
            "game G(xs) where xs[0] <= 20 { move m(i in 1..len(xs), k in 1..=xs[i]) ->
                 G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
            "not filled a level at a time: the game has a `where`",
        ),
    ];
    for (game, said) in games {
        let shown = explain(game);
        assert!(shown.contains(said), "{game}\n{shown}");
        assert!(!shown.contains("  fill:"), "{game}\n{shown}");
        let out = same_three_ways(&tables(game), Limits::default());
        assert_eq!(out.lines().count(), 3, "{game}\n{out}");
    }
}

#[test]
fn code_that_fails_in_a_level_is_the_general_paths_error() {
    // `i + 1` past the last item, and a range dividing by zero on lists
    // whose first item is 1: the fill stops there, the search reports it.
    for game in [
        "game G(xs) { move m(i in 0..len(xs), k in 1..=xs[i]) ->
             G(update(update(xs, i, xs[i] - k), i + 1, xs[i + 1] + k)) }",
        "game G(xs) { move m(i in 1..len(xs), k in 1..=xs[i] / (xs[0] - 1)) ->
             G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
    ] {
        let out = same_three_ways(&tables(game), Limits::default());
        assert!(out.contains("failure"), "{game}\n{out}");
    }
}

#[test]
fn state_limits_and_timeouts_stop_a_filled_table_the_same_way() {
    let game = "game G(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
                    G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }";
    let limited = same_three_ways(
        &tables(game),
        Limits {
            max_states: 300,
            ..Limits::default()
        },
    );
    assert!(limited.contains("state space too large"), "{limited}");
    // Lists of 5 with sum at most 12: ticks past the first interrupt
    // check in the fill and in the searches alike.
    let timed = same_three_ways(
        &format!(
            "{game}
             print histogram(sg(G([a, b, c, d, e])) for a in 0..=12, b in 0..=12 - a,
                 c in 0..=12 - a - b, d in 0..=12 - a - b - c, e in 0..=12 - a - b - c - d)"
        ),
        Limits {
            timeout: Some(std::time::Duration::ZERO),
            ..Limits::default()
        },
    );
    assert!(timed.contains("timed out"), "{timed}");
}

#[test]
fn filled_staircase_and_nim_are_their_theorems() {
    // Staircase Nim: the xor of the odd stairs; Nim: the xor of the
    // piles. Both tables are filled (the first down, the second up).
    let out = same_three_ways(
        "game S(xs) { move step(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }
         game T(xs) { move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k)) }
         print [sg(S([a, b, c, d, e])) for a in 0..=8, b in 0..=8 - a, c in 0..=8 - a - b,
                d in 0..=8 - a - b - c, e in 0..=8 - a - b - c - d]
             == [b ^ d for a in 0..=8, b in 0..=8 - a, c in 0..=8 - a - b,
                 d in 0..=8 - a - b - c, e in 0..=8 - a - b - c - d]
         print [sg(T([a, b, c])) for a in 0..=10, b in 0..=10 - a, c in 0..=10 - a - b]
             == [a ^ b ^ c for a in 0..=10, b in 0..=10 - a, c in 0..=10 - a - b]",
        Limits::default(),
    );
    assert_eq!(out, "true\ntrue\n");
}

#[test]
fn lines_by_rank_read_back_known_lists_in_order() {
    // A table whose lines (the last item moving) lie in a window by rank
    // of sum: asked first with nothing known (filled, or searched with
    // the fill off), then again with every list known, read along each
    // line by rank; values past a byte (Nim on two piles up to 300) and
    // lines whose lists are known in part (the singles asked first).
    // Checked against the theorems, and the same with every plan off and
    // with each of the fill and the sweeps off.
    let tables = "
        print [sg(S([a, b, c, d])) for a in 0..=9, b in 0..=9 - a, c in 0..=9 - a - b,
               d in 0..=9 - a - b - c] == stairs
        print [sg(T([a, b])) for a in 0..=300, b in 0..=300 - a]
            == [a ^ b for a in 0..=300, b in 0..=300 - a]
        print histogram(sg(T([a, b])) for a in 290..=300, b in 0..=300 - a)";
    let program = format!(
        "game S(xs) {{ move step(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }}
         game T(xs) {{ move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k)) }}
         print sg(S([0, 3, 0, 2])), sg(S([1, 2, 5, 1])), sg(T([7, 290])), sg(T([295, 1]))
         let stairs = [b ^ d for a in 0..=9, b in 0..=9 - a, c in 0..=9 - a - b,
                       d in 0..=9 - a - b - c]
         {tables}
         {tables}"
    );
    let out = same_three_ways(&program, Limits::default());
    let sweeps_off = Plans {
        sweeps: false,
        ..Plans::ALL
    };
    let limits = Limits {
        plans: sweeps_off,
        ..Limits::default()
    };
    assert_eq!(out, run_with(&program, limits), "sweeps on (left) and off");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(
        lines[0],
        format!("{} {} {} {}", 3 ^ 2, 2 ^ 1, 7 ^ 290, 295 ^ 1)
    );
    assert_eq!(
        [lines[1], lines[2], lines[4], lines[5]],
        ["true"; 4],
        "{out}"
    );
    assert_eq!(lines[3], lines[6]);
}

#[test]
fn known_lines_by_rank_stop_and_tick_as_asked() {
    // Lines of up to 301 lists by rank (Nim on two piles, its table
    // filled), read back along their lines: folds that stop at a list
    // found late (`any`, `all`), a timeout whose first interrupt
    // check falls inside a line, and a state limit, each the same with the
    // fill off and with every plan off, and against Nim's theorem.
    let game =
        "game T(xs) { move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k)) }";
    let asks = "
        print [sg(T([a, b])) for a in 0..=300, b in 0..=300 - a]
            == [a ^ b for a in 0..=300, b in 0..=300 - a]
        print any(sg(T([a, b])) == 300 for a in 0..=300, b in 0..=300 - a),
              any(sg(T([a, b])) == 511 for a in 0..=300, b in 0..=300 - a)
        print all(sg(T([a, b])) != 297 for a in 0..=300, b in 0..=300 - a)
        print count(sg(T([a, b])) == 0 for a in 0..=300, b in 0..=300 - a)";
    let out = same_three_ways(&format!("{game}{asks}"), Limits::default());
    // `a ^ b == 300` at (0, 300); never 511 (both below 512 and a + b at
    // most 300 < 511); 297 at (0, 297); zero on the diagonal a = b.
    assert_eq!(out, "true\ntrue false\nfalse\n151\n", "{out}");
    for limits in [
        Limits {
            timeout: Some(std::time::Duration::ZERO),
            ..Limits::default()
        },
        Limits {
            max_states: 20_000,
            ..Limits::default()
        },
    ] {
        let stopped = same_three_ways(&format!("{game}{asks}{asks}"), limits);
        assert!(stopped.contains("failure"), "{stopped}");
    }
}
