//! List games whose moves never raise the sum of the items keep their
//! positions at their rank by sum (`memo/ranked.rs`): values as the
//! general path's (which keeps them in the box window and sparse table)
//! and as theorems give them, past the byte range and for lists outside
//! the ranked range too.

use crate::common::{explain, same_both_ways};

#[test]
fn staircase_nim_by_rank_is_the_xor_of_the_odd_stairs() {
    // Staircase Nim's value is the xor of the odd-numbered stairs: a move
    // changes exactly one of them, down from stair i or onto stair i - 1,
    // as a move of Nim on those piles (the Nim argument).
    let program = "
        game Stair(xs) {
            move step(i in 1..len(xs), k in 1..=xs[i]) ->
                Stair(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
        }
        let N = 9
        assert all(sg(Stair([a, b, c, d, e])) == b ^ d
                   for a in 0..=N, b in 0..=N - a, c in 0..=N - a - b,
                       d in 0..=N - a - b - c, e in 0..=N - a - b - c - d)
        # Larger sums after smaller ones: the window grows, ranks stay.
        assert all(sg(Stair([0, b, 0, d, 1])) == b ^ d for b in 0..25, d in 0..25)
        # Items below 0 are in no ranked window: the sparse table.
        print sg(Stair([3, -2, 4])), sg(Stair([-1, 4, 2]))
        print histogram(sg(Stair([a, b, c, d])) for a in 0..=N, b in 0..=N - a,
                        c in 0..=N - a - b, d in 0..=N - a - b - c)
        print sorted(list(memo_histogram(Stair)))";
    let out = same_both_ways(program);
    assert!(!out.contains("failure"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn values_past_the_byte_range_survive_the_ranked_window_growing() {
    // Nim on a list, coins taken from one item: the xor of the items,
    // which passes 250 for items in the hundreds.
    let program = "
        game T(xs) {
            move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k))
        }
        assert all(sg(T([a, b])) == a ^ b for a in 0..40, b in 0..40)
        assert all(sg(T([a, 260 - a])) == a ^ (260 - a) for a in 0..=260)
        assert all(sg(T([a, 3, 300 - a])) == a ^ 3 ^ (300 - a) for a in 0..=300 if a % 7 == 0)
        print sg(T([300, 7])), sg(T([5, 300]))";
    let out = same_both_ways(program);
    assert!(!out.contains("failure"), "{out}");
    assert_eq!(out.trim(), format!("{} {}", 300 ^ 7, 5 ^ 300));
}

#[test]
fn two_bindings_updating_two_items_by_rank_agree_with_the_general_path() {
    // A coin moved from item i to any lower item j: `j in 0..i` and the
    // guard `i != j` both keep the two items apart, so the lists are
    // ranked; the general path keeps them in the box window.
    for game in [
        "game M(xs) { move m(i in 1..len(xs), j in 0..i) if xs[i] > 0 ->
             M(update(update(xs, i, xs[i] - 1), j, xs[j] + 1)) }",
        "game M(xs) { move m(i in 0..len(xs), j in 0..len(xs)) if i != j and j < i and xs[i] > 0 ->
             M(update(update(xs, j, xs[j] + 1), i, xs[i] - 1)) }",
    ] {
        let program = format!(
            "{game}
             print histogram(sg(M([a, b, c, d])) for a in 0..6, b in 0..6, c in 0..6, d in 0..6)
             print sg(M([0, 0, 0, 9])), sg(M([1, -1, 2]))"
        );
        let out = same_both_ways(&program);
        assert!(!out.contains("failure"), "{out}");
        assert_eq!(out.lines().count(), 2, "{out}");
    }
}

#[test]
fn moves_that_may_raise_the_sum_keep_the_box_window_and_agree() {
    // `i - 2` and `i - 1` read different items, `+ 1` adds a coin: the
    // sum may grow, so these lists are not ranked; errors and values as
    // the general path's.
    for program in [
        "game S(xs) { move m(i in 2..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 2, xs[i - 1] + k)) }
         print [sg(S([a, b, c])) for a in 0..4, b in 0..4, c in 0..4]",
        "game S(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k + 1)) }
         print [sg(S([a, b, c])) for a in 0..4, b in 0..4, c in 0..4]",
        "game S(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 2, xs[i - 2] + k)) }
         print sg(S([0, 3, 1]))",
    ] {
        same_both_ways(program);
    }
}

#[test]
fn explain_names_the_ranking_and_the_runs_read_by_rank() {
    let shown = explain(
        "game Stair(xs) {
            move step(i in 1..len(xs), k in 1..=xs[i]) ->
                Stair(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
        }",
    );
    assert!(
        shown.contains("read by rank from the position's own list"),
        "{shown}"
    );
    assert!(shown.contains("kept at their rank by sum"), "{shown}");
    // A move that may add a coin: no ranking named.
    let shown = explain(
        "game S(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k + 1)) }",
    );
    assert!(!shown.contains("rank by sum"), "{shown}");
    assert!(
        shown.contains("not read by rank from the position's list: a move may raise the sum"),
        "{shown}"
    );
}

#[test]
fn lists_asked_along_one_item_are_read_at_their_rank_as_the_general_path_reads_them() {
    // A sweep along the last item of lists kept by sum, or along any item
    // of sorted lists, reads each list at its rank on the line
    // (`Memo::ranked_line`): asked a second time every value is known.
    // Lists past the ranked levels, with an item below 0 or out of order
    // lie off the line and are asked the general way. Checked against
    // theorems: Nim on a list is the xor; Staircase Nim the xor of the
    // odd stairs; Nim on sorted lists the xor too.
    let games = "
        game T(xs) { move take(i in 0..len(xs), k in 1..=xs[i]) -> T(update(xs, i, xs[i] - k)) }
        game Stair(xs) {
            move step(i in 1..len(xs), k in 1..=xs[i]) ->
                Stair(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
        }
        game P(xs) { move m(i in 0..len(xs), t in 0..xs[i]) -> P(sorted(update(xs, i, t))) }";
    let asked = "
            assert all(sg(T([a, b, c])) == a ^ b ^ c for a in 0..8, b in 0..8 - a, c in 0..12)
            assert all(sg(Stair([a, b, c, d])) == b ^ d
                       for a in 0..6, b in 0..6, c in 0..6 - a, d in 0..14 - a - b)
            assert all(sg(P([a, b, c])) == a ^ b ^ c for a in 0..6, c in a..9, b in 0..11)
            print [sg(T([a, 1, c])) for a in 0..3, c in -2..40], [sg(Stair([1, 2, d])) for d in -3..4]";
    let out = same_both_ways(&format!("{games}{asked}{asked}"));
    assert!(!out.contains("failure"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], lines[1], "{out}");
}
