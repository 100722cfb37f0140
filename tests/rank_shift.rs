//! Moves of list games kept by rank read through their changes to the
//! position's items (`compile/rank_shift.rs`): values and errors as the
//! general path's, with that plan switched off, and with every plan off;
//! and the values of games with a theorem for them.

use crate::common::{explain, run_with};
use grundy::{Limits, Plans};

/// The output of `program` with every plan on, asserted to be the same
/// with the rank shifts off and with every plan off.
fn same_three_ways(program: &str) -> String {
    let with = |plans| {
        run_with(
            program,
            Limits {
                plans,
                ..Limits::default()
            },
        )
    };
    let on = with(Plans::ALL);
    let shifts_off = Plans {
        rank_shifts: false,
        ..Plans::ALL
    };
    assert_eq!(
        on,
        with(shifts_off),
        "rank shifts on (left) and off (right)"
    );
    assert_eq!(
        on,
        with(Plans::NONE),
        "every plan on (left) and off (right)"
    );
    on
}

/// Update-chain games of several forms: the histogram of the lists of 4
/// with sum at most 9 and a few lists with an item below 0 (kept outside
/// the ranking), each game's move read by rank (`--explain`).
#[test]
fn update_chains_read_by_rank_agree_with_the_general_path() {
    let games = [
        // Staircase Nim with the stairs over a constant range.
        "game G(xs) { move m(i in 1..4, k in 1..=xs[i]) ->
             G(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }",
        // One coin lost on the way down (a constant part), k from 0.
        "game G(xs) { move m(i in 1..len(xs), k in 0..xs[i]) ->
             G(update(update(xs, i - 1, xs[i - 1] + k), i, xs[i] - k - 1)) }",
        // Two coins from one pile, one to each of the two below it.
        "game G(xs) { move m(i in 2..len(xs), k in 1..=xs[i] / 2) ->
             G(update(update(update(xs, i, xs[i] - 2 * k), i - 1, xs[i - 1] + k),
                      i - 2, xs[i - 2] + k)) }",
        // Coins moved up, to a pile above, from a pile below.
        "game G(xs) { move m(i in 0..len(xs) - 1, k in 1..=xs[i]) ->
             G(update(update(xs, i + 1, xs[i + 1] + k), i, xs[i] - k)) }",
    ];
    // Indices of two forms: coins from pile i to a lower pile j (`j in
    // 0..i`: j below i, so in that order), the updates written either way.
    let two_forms = [
        "game G(xs) { move m(i in 1..len(xs), j in 0..i, k in 1..=xs[i]) ->
             G(update(update(xs, i, xs[i] - k), j, xs[j] + k)) }",
        "game G(xs) { move m(i in 1..len(xs), j in 0..i, k in 1..=xs[i]) ->
             G(update(update(xs, j, xs[j] + k), i, xs[i] - k)) }",
    ];
    for game in games.into_iter().chain(two_forms) {
        let shown = explain(game);
        assert!(
            shown.contains("read by rank from the position's own list"),
            "{game}\n{shown}"
        );
        let program = format!(
            "{game}
             print histogram(sg(G([a, b, c, d])) for a in 0..=9, b in 0..=9 - a,
                             c in 0..=9 - a - b, d in 0..=9 - a - b - c)
             print sg(G([2, -1, 3, 1])), sg(G([0, 4, -2, 5]))
             print [sg(G([0, 0, a, 30 - a])) for a in 0..=30]"
        );
        let out = same_three_ways(&program);
        assert!(!out.contains("failure"), "{game}\n{out}");
        assert_eq!(out.lines().count(), 3, "{game}\n{out}");
    }
}

#[test]
fn an_index_past_the_list_is_the_general_paths_error() {
    // `i + 1` past the last item for the last `i`: an error either way.
    let out = same_three_ways(
        "game G(xs) { move m(i in 0..len(xs), k in 1..=xs[i]) ->
             G(update(update(xs, i, xs[i] - k), i + 1, xs[i + 1] + k)) }
         print sg(G([0, 0, 0]))
         print sg(G([1, 0, 2]))",
    );
    assert!(out.contains("failure"), "{out}");
}

#[test]
fn nim_and_staircase_nim_by_rank_are_their_theorems() {
    // Nim on a list: the xor of the items. Staircase Nim: the xor of the
    // odd stairs (a move changes one of them as a move of Nim does).
    let out = same_three_ways(
        "game T(xs) { move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k)) }
         game S(xs) { move step(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)) }
         print all(sg(T([a, b, c])) == a ^ b ^ c for a in 0..12, b in 0..12, c in 0..12)
         print all(sg(S([a, b, c, d, e])) == b ^ d for a in 0..=6, b in 0..=6 - a,
                   c in 0..=6 - a - b, d in 0..=6 - a - b - c, e in 0..=6 - a - b - c - d)",
    );
    assert_eq!(out, "true\ntrue\n");
}
