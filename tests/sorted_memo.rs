//! Games whose `where` or moves keep their list sorted keep their positions at
//! their rank among sorted lists (`memo/ranked.rs`: multisets, or sets
//! when the `where` also says `distinct`), their sorted runs read through
//! the rank's binomial columns (`search/sorted_parts.rs`): values as the
//! general path's (which keeps them in the box window and sparse table)
//! and as theorems give them.

use crate::common::{explain, same_both_ways};

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
