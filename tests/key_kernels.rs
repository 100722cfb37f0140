//! Kernels over lists and sets (`KernelMove::KeyLoop`: positions with list,
//! tuple and set arguments searched on frames of integers) against the
//! general path: every program below must print the same output, and fail
//! with the same error, with kernels on and off. Where a game has a second
//! formulation on integers (Welter's game on three coins, Cram on bit
//! masks, Nim's xor), the two are compared as well.

use crate::common;

use common::{explain, run, same_both_ways, same_both_ways_with};
use grundy::Limits;

const WELTER: &str = "
    game Welter(coins) where distinct(coins) {
        move slide(i in 0..len(coins), t in 0..coins[i]) -> Welter(sorted(update(coins, i, t)))
    }
    # Three coins on integers: a coin slides below, between or above the
    # others; landing on a coin breaks a < b < c.
    game W3(a, b, c) where 0 <= a < b < c {
        move a_down(t in 0..a) -> W3(t, b, c)
        move b_below(t in 0..a) -> W3(t, a, c)
        move b_between(t in a..b) -> W3(a, t, c)
        move c_below(t in 0..a) -> W3(t, a, b)
        move c_between_ab(t in a..b) -> W3(a, t, b)
        move c_between_bc(t in b..c) -> W3(a, b, t)
    }
";

#[test]
fn welter_on_sorted_lists_agrees_with_the_general_path_and_with_integers() {
    let program = format!(
        "{WELTER}
        # Largest first: the search meets options without values.
        print [sg(Welter([a, b, c])) for c in reversed(list(2..12)), b in 1..c, a in 0..b]
        assert all(sg(Welter([a, b, c])) == sg(W3(a, b, c)) for c in 2..12, b in 1..c, a in 0..b)
        print [sg(Welter([a, b, c, d])) for d in 3..10, c in 2..d, b in 1..c, a in 0..b]
        # Unsorted lists are positions too: their options are sorted.
        print [sg(Welter([5, 2, 7])), sg(Welter([9, 0, 4, 1]))]
        assert sg(Welter([5, 2, 7])) == sg(Welter([2, 5, 7]))"
    );
    let out = same_both_ways(&program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn sorted_runs_finish_positions_whose_options_lack_values() {
    // Queried largest first, one root at a time, the search expands each
    // position before its options have values: the sorted runs then
    // finish it place by place (the options with a value marked from the
    // window, the others looked up and searched), in a window laid out by
    // coordinates (`distinct` alone), by rank of sets and by rank of
    // multisets (`xs == sorted(xs)`), and with items past the window.
    // Against the general path and, on three coins, Welter's game on
    // integers.
    let out = same_both_ways(&format!(
        "{WELTER}
        game Ranked(coins) where distinct(coins) and coins == sorted(coins) {{
            move slide(i in 0..len(coins), t in 0..coins[i]) if t not in coins ->
                Ranked(sorted(update(coins, i, t)))
        }}
        game Multi(xs) where xs == sorted(xs) {{
            move s(i in 0..len(xs), t in 0..xs[i]) -> Multi(sorted(update(xs, i, t)))
        }}
        game M3(a, b, c) where 0 <= a <= b <= c {{
            move a_down(t in 0..a) -> M3(t, b, c)
            move b_below(t in 0..a) -> M3(t, a, c)
            move b_between(t in a..b) -> M3(a, t, c)
            move c_below(t in 0..a) -> M3(t, a, b)
            move c_between_ab(t in a..b) -> M3(a, t, b)
            move c_between_bc(t in b..c) -> M3(a, b, t)
        }}
        print [sg(Ranked([a, b, c, d])) for d in reversed(list(3..14)), c in reversed(list(2..d)), b in 1..c, a in 0..b]
        print [sg(Welter([a, b, c, 40 + d])) for d in reversed(list(0..3)), c in reversed(list(2..9)), b in 1..c, a in 0..b]
        print [sg(Multi([a, b, c, d])) for d in reversed(list(0..10)), c in reversed(list(0..=d)), b in 0..=c, a in 0..=b]
        assert all(sg(Ranked([a, b, c])) == sg(W3(a, b, c)) for c in reversed(list(2..16)), b in 1..c, a in 0..b)
        assert all(sg(Welter([a, b, c])) == sg(W3(a, b, c)) for c in reversed(list(2..16)), b in 1..c, a in 0..b)
        assert all(sg(Multi([a, b, c])) == sg(M3(a, b, c)) for c in reversed(list(0..14)), b in 0..=c, a in 0..=b)"
    ));
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn lists_with_repeats_fail_where_as_on_the_general_path() {
    let out = same_both_ways(&format!(
        "{WELTER}
        print sg(Welter([1, 4, 6]))
        print sg(Welter([1, 4, 4]))"
    ));
    // The second is not a position: an error, the same both ways.
    assert!(out.lines().count() == 2 && out.contains("failure"), "{out}");
    // Without a `where`, a list with a repeat is a position of its own.
    let out = same_both_ways(
        "game Slide(xs) {
            move s(i in 0..3, t in 0..xs[i]) -> Slide(sorted(update(xs, i, t)))
        }
        print [sg(Slide([a, b, c])) for c in reversed(list(0..7)), b in 0..=c, a in 0..=b]",
    );
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn runs_skip_repeats_only_where_distinct_comes_first() {
    // `distinct(coins)` first: a coin landing on another gives no
    // position, and the runs skip it. Elsewhere in the `where`, on another
    // argument, or absent, each such option is looked up as before.
    let out = same_both_ways(
        "game A(coins) where distinct(coins) and len(coins) > 1 {
            move s(i in 0..len(coins), t in 0..coins[i]) -> A(sorted(update(coins, i, t)))
        }
        game B(coins) where len(coins) > 1 and distinct(coins) {
            move s(i in 0..len(coins), t in 0..coins[i]) -> B(sorted(update(coins, i, t)))
        }
        game C(coins, other) where distinct(other) {
            move s(i in 0..len(coins), t in 0..coins[i]) -> C(sorted(update(coins, i, t)), other)
        }
        print [sg(A([a, b])) + sg(B([a, b])) for b in 1..12, a in 0..b]
        print [sg(A([a, b, c, d, e])) for e in 4..9, d in 3..e, c in 2..d, b in 1..c, a in 0..b]
        print [sg(B([a, b, c, d])) for d in 3..9, c in 2..d, b in 1..c, a in 0..b]
        print [sg(C([a, b, c], [1, 2])) for c in 0..6, b in 0..=c, a in 0..=b]
        # Unsorted lists, items past the window and below it.
        print [sg(A([9, 2, 5])), sg(A([70, 3, 1])), sg(A([300, 40, 2, 1]))]
        print [sg(A([-1, 3, 5])), sg(A([2, -4]))]
        print [sg(A([a, b, c])) for c in reversed(list(2..10)), b in 1..c, a in 0..b]
        # One coin, and six (its own window).
        game E(xs) where distinct(xs) {
            move s(i in 0..len(xs), t in 0..xs[i]) -> E(sorted(update(xs, i, t)))
        }
        print [sg(E([a])) for a in reversed(list(0..9))]
        print [sg(E([a, a + 2, b, b + 1, 2 * b + 3, 3 * b])) for b in 4..7, a in 0..2]",
    );
    assert_eq!(out.lines().count(), 9, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // What follows `distinct` is not evaluated for a repeat, but is for
    // every other option; before it, it is evaluated for repeats too (the
    // first two items equal divide by zero): the same both ways.
    for (where_clause, fails) in [
        ("distinct(xs) and 10 / (xs[1] - xs[0]) != 0", false),
        ("10 / (xs[1] - xs[0]) != 0 and distinct(xs)", true),
    ] {
        let out = same_both_ways(&format!(
            "game D(xs) where {where_clause} {{
                move s(i in 0..len(xs), t in 0..xs[i]) -> D(sorted(update(xs, i, t)))
            }}
            print [sg(D([a, b, c])) for c in 2..8, b in 1..c, a in 0..b]"
        ));
        assert_eq!(
            out.contains("division by zero"),
            fails,
            "{where_clause}: {out}"
        );
    }
}

#[test]
fn sorted_runs_with_affine_and_fixed_arguments_agree_with_the_general_path() {
    // Each place of `t` in the list is one run; the other arguments are
    // fixed (`c`), rise with `t` (`n + t - xs[i]`) or fall (`m - t`), and
    // some positions lie outside the memo's window (negative or large
    // items, unsorted lists): every run is placed from the same parts.
    let out = same_both_ways(
        "game G(n, c, xs, m) where n >= 0 and m >= 0 and distinct(xs) {
            move s(i in 0..len(xs), t in 0..xs[i]) -> G(n + t - xs[i], c, sorted(update(xs, i, t)), m - t + 2)
        }
        print [sg(G(n, 7, [a, b, c], 9)) for n in [0, 3, 40], c in 2..9, b in 1..c, a in 0..b]
        print [sg(G(5, -2, [c, a, b], 3)) for c in 2..8, b in 1..c, a in 0..b]
        print [sg(G(30, 1, [a, b, 70 + c], 50)) for c in 0..3, b in 1..6, a in 0..b]
        print [sg(G(4, 0, [-3, b, c], 4)) for c in 2..7, b in 1..c]
        game H(xs, k) {
            move s(i in 0..len(xs), t in 0..xs[i]) -> H(sorted(update(xs, i, t)), k + 1)
            move d(t in 0..k) -> H(xs, t)
        }
        print [sg(H([a, b], k)) for b in 0..6, a in 0..=b, k in 0..3]",
    );
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn settings_of_the_moving_item_run_at_once_agree_with_the_general_path() {
    // The runs of every setting of `i` are placed from the position's
    // list once and scanned at once; `t in c..xs[i]` is read off the list,
    // other ranges and indices run their code, and more than 16 settings,
    // constant lists of settings or a move without outer bindings go one
    // setting at a time. Largest first, the search meets options without
    // values (the general runs, after which the list is placed anew).
    let out = same_both_ways(
        "game S1(xs) where distinct(xs) {
            move s(i in 0..len(xs), t in 1..xs[i]) -> S1(sorted(update(xs, i, t)))
        }
        game S2(xs) where distinct(xs) {
            move s(i in 0..len(xs), t in 0..=xs[i] - 1) -> S2(sorted(update(xs, i, t)))
        }
        game S3(xs) where distinct(xs) {
            move s(i in 1..len(xs), t in xs[0] + 1..xs[i]) -> S3(sorted(update(xs, i, t)))
        }
        game S4(xs) where distinct(xs) {
            move s(i in 0..len(xs), t in 0..xs[len(xs) - 1 - i]) -> S4(sorted(update(xs, len(xs) - 1 - i, t)))
        }
        game S5(xs) where distinct(xs) {
            move s(i in 0..20, t in 0..xs[i % len(xs)]) -> S5(sorted(update(xs, i % len(xs), t)))
        }
        game S6(xs) where distinct(xs) {
            move s(i in [2, 0], t in 0..xs[i]) -> S6(sorted(update(xs, i, t)))
            move last(t in 0..xs[1]) -> S6(sorted(update(xs, 1, t)))
        }
        print [sg(S1([a, b, c, d])) for d in 3..9, c in 2..d, b in 1..c, a in 0..b]
        print [sg(S2([a, b, c])) for c in reversed(list(2..10)), b in 1..c, a in 0..b]
        print [sg(S3([a, b, c, d])) for d in 3..9, c in 2..d, b in 1..c, a in 0..b]
        print [sg(S4([a, b, c])) for c in 2..10, b in 1..c, a in 0..b]
        print [sg(S5([a, b, c])) for c in reversed(list(2..9)), b in 1..c, a in 0..b]
        print [sg(S6([a, b, c])) for c in 2..9, b in 1..c, a in 0..b]
        # Unsorted lists, items past the window and below it.
        print [sg(S1([9, 2, 5])), sg(S1([70, 3, 1])), sg(S1([300, 40, 2, 1])), sg(S2([-1, 3, 5]))]
        # Brute force: Welter's game on three coins, as integers.
        game W(a, b, c) where 0 <= a < b < c {
            move a_down(t in 1..a) -> W(t, b, c)
            move b_below(t in 1..a) -> W(t, a, c)
            move b_between(t in a + 1..b) -> W(a, t, c)
            move c_below(t in 1..a) -> W(t, a, b)
            move c_between_ab(t in a + 1..b) -> W(a, t, b)
            move c_between_bc(t in b + 1..c) -> W(a, b, t)
        }
        assert all(sg(S1([a, b, c])) == sg(W(a, b, c)) for c in 2..12, b in 1..c, a in 0..b)",
    );
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // A setting past the list: the same error both ways, whichever
    // settings came before it.
    let out = same_both_ways(
        "game S7(xs) where distinct(xs) {
            move s(i in 0..4, t in 0..xs[i]) -> S7(sorted(update(xs, i, t)))
        }
        print sg(S7([1, 4, 6, 9]))
        print sg(S7([1, 4, 6]))",
    );
    assert!(out.contains("failure"), "{out}");
}

#[test]
fn settings_read_off_an_ascending_list_agree_with_the_general_path() {
    // `t in c..xs[i]` on an ascending list: every setting's runs come
    // straight from the items (below item `i` only), swept bottom-up so
    // the options have values; repeats (no `distinct`) are positions whose
    // options land on an item, which run to the place below it.
    let out = same_both_ways(
        "game R(xs) {
            move s(i in 0..4, t in 2..xs[i]) -> R(sorted(update(xs, i, t)))
        }
        game D(xs) where distinct(xs) {
            move s(i in 0..4, t in 2..xs[i]) -> D(sorted(update(xs, i, t)))
        }
        game Z(xs) {
            move s(i in 0..len(xs), t in 0..xs[i]) -> Z(sorted(update(xs, i, t)))
        }
        print [sg(R([a, b, c, d])) for d in 0..9, c in 0..=d, b in 0..=c, a in 0..=b]
        print [sg(D([a, b, c, d])) for d in 3..11, c in 2..d, b in 1..c, a in 0..b]
        print [sg(Z([a, b, c])) for c in 0..9, b in 0..=c, a in 0..=b]
        print [sg(Z([a, b, c, d, e])) for e in 0..6, d in 0..=e, c in 0..=d, b in 0..=c, a in 0..=b]",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn sorted_runs_past_the_moving_item_and_around_its_value_agree_with_a_brute_force() {
    // Settings run by their code: a coin moving up places `t` past the
    // items above it (places after its own), and `t in lo..=xs[i]` with
    // `t not in xs` leaves out the coin's own value, two runs either side
    // of it. Checked against the general path and, on three coins, against
    // the same games on integers.
    let out = same_both_ways(
        "game Up(xs) where distinct(xs) and xs == sorted(xs) {
            move up(i in 0..len(xs), t in xs[i] + 1..9) if t not in xs -> Up(sorted(update(xs, i, t)))
        }
        game Up2(xs) {
            move up(i in 0..len(xs), t in xs[i] + 1..9) if t not in xs -> Up2(sorted(update(xs, i, t)))
        }
        game Near(xs) where distinct(xs) and xs == sorted(xs) {
            move near(i in 0..len(xs), t in xs[i] / 2..=xs[i]) if t not in xs -> Near(sorted(update(xs, i, t)))
        }
        game U(a, b, c) where 0 <= a < b < c <= 8 {
            move a_between(t in a + 1..b) -> U(t, b, c)
            move a_between_bc(t in b + 1..c) -> U(b, t, c)
            move a_above(t in c + 1..9) -> U(b, c, t)
            move b_between(t in b + 1..c) -> U(a, t, c)
            move b_above(t in c + 1..9) -> U(a, c, t)
            move c_above(t in c + 1..9) -> U(a, b, t)
        }
        game N(a, b, c) where 0 <= a < b < c {
            move a_below(t in a / 2..a) -> N(t, b, c)
            move b_below(t in b / 2..a) -> N(t, a, c)
            move b_between(t in max(a + 1, b / 2)..b) -> N(a, t, c)
            move c_below(t in c / 2..a) -> N(t, a, b)
            move c_between_ab(t in max(a + 1, c / 2)..b) -> N(a, t, b)
            move c_between_bc(t in max(b + 1, c / 2)..c) -> N(a, b, t)
        }
        assert all(sg(Up([a, b, c])) == sg(U(a, b, c)) for c in 2..9, b in 1..c, a in 0..b)
        assert all(sg(Up2([a, b, c])) == sg(U(a, b, c)) for c in 2..9, b in 1..c, a in 0..b)
        assert all(sg(Near([a, b, c])) == sg(N(a, b, c)) for c in 2..14, b in 1..c, a in 0..b)
        print [sg(Up([a, b, c, d])) for a in reversed(list(0..6)), b in a + 1..7, c in b + 1..8, d in c + 1..9]
        print [sg(Up2([a, b, c])) for a in 0..7, b in a + 1..8, c in b + 1..9]
        print [sg(Near([a, b, c, d])) for d in 3..14, c in 2..d, b in 1..c, a in 0..b]",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn nim_on_lists_with_updates_literals_tuples_and_items() {
    let out = same_both_ways(
        "game Nim(heaps) {
            move take(i in 0..len(heaps), t in 0..heaps[i]) -> Nim(update(heaps, i, t))
        }
        game Pair(h) {
            move left(t in 0..h[0]) -> Pair((t, h[1]))
            move right(t in 0..h[1]) -> Pair([h[0], t])
        }
        game Count(xs, n) {
            move down(x in xs) if x < n -> Count(xs, x)
            move end if n == 0 -> 0
        }
        print [sg(Nim([a, b, c])) for a in 0..6, b in 0..6, c in 0..6]
        assert all(sg(Nim([a, b, c])) == a ^ b ^ c for a in 0..6, b in 0..6, c in 0..6)
        print [sg(Pair((a, b))) for a in 0..5, b in 0..5]
        print [sg(Count([4, 1, 7, 2], n)) for n in 0..9]
        print [sg(Count((3, 0), n)) + sg(Count({5, 2}, n)) for n in 0..7]",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn cram_on_sets_agrees_with_the_general_path_and_with_bit_masks() {
    let out = same_both_ways(
        "game Cram(free) {
            move across(i in free) if i + 3 in free -> Cram(remove(remove(free, i), i + 3))
            move down(i in free) if i % 3 != 2 and i + 1 in free -> Cram(remove(remove(free, i), i + 1))
        }
        game CramBits(m) {
            move across(i in 0..30) if (m >> i) & 9 == 9 -> CramBits(m - (9 << i))
            move down(i in 0..30) if i % 3 != 2 and (m >> i) & 3 == 3 -> CramBits(m - (3 << i))
        }
        print [sg(Cram(set(0..3 * k))) for k in 0..=5]
        assert [sg(Cram(set(0..3 * k))) for k in 0..=5] == [sg(CramBits(pow(2, 3 * k) - 1)) for k in 0..=5]
        assert all(sg(Cram(set(c for c in 0..12 if (m >> c) & 1 == 1))) == sg(CramBits(m))
                   for m in 0..4096 if m % 5 == 3)
        print len(memo_histogram(Cram))",
    );
    // Cram on 3 x n boards, n = 0..5 (../shared/bench/README.md, W8).
    assert!(out.starts_with("[0, 1, 1, 0, 1, 1]"), "{out}");
}

#[test]
fn guards_on_bit_sets_read_as_masks_agree_with_the_general_path() {
    // Conjuncts `i + c in t`, `not in`, `not (...)`, conjuncts of `i` alone
    // and a second set; a conjunct that may fail keeps its place.
    let out = same_both_ways(
        "game G(s, t) {
            move a(i in s) if i - 2 in t and i % 4 != 1 and i + 1 not in s -> G(remove(s, i), insert(t, i))
            move b(i in s) if not (i + 1 in t) and i * i < 200 -> G(remove(s, i), t)
            move c(i in t) if i + 60 in t -> G(s, remove(t, i))
        }
        print [sg(G(set(x for x in 0..12 if (m >> x) & 1 == 1), {0, 3, 61})) for m in 0..4096 if m % 11 == 4]
        game H(s) { move m(i in s) if i + 1 in s and 12 / (i - 2) > 0 -> H(remove(s, i)) }
        print [sg(H({0, 1, 2, 5})), sg(H({2, 4, 5}))]
        print sg(H({1, 2, 3}))",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    // H({1, 2, 3}) meets 12 / 0 once `2 + 1 in s` holds: the same error.
    assert!(
        out.contains("failure") && out.contains("division by zero"),
        "{out}"
    );
    let out = same_both_ways(
        "game F(s) { move m(i in s) if 12 / (i - 2) > 0 and i + 1 in s -> F(remove(s, i)) }
         print sg(F({2, 4}))",
    );
    assert!(out.contains("division by zero"), "{out}");
}

#[test]
fn runs_of_bit_masks_agree_with_the_general_path_and_with_integers() {
    // The last binding over a bit set, with and without a guard read as a
    // mask, a second argument, items inserted and removed at offsets of
    // the binding (negative ones, past 63), and the same games on masks.
    let out = same_both_ways(
        "game Take(s, n) {
            move one(i in s) -> Take(remove(s, i), n)
            move two(i in s) if i + 2 in s and n > 0 -> Take(remove(remove(s, i + 2), i), n - 1)
        }
        game TakeBits(m, n) {
            move one(i in 0..64) if (m >> i) & 1 == 1 -> TakeBits(m - (1 << i), n)
            move two(i in 0..62) if (m >> i) & 5 == 5 and n > 0 -> TakeBits(m - (5 << i), n - 1)
        }
        assert all(sg(Take(set(c for c in 0..10 if (m >> c) & 1 == 1), n)) == sg(TakeBits(m, n))
                   for m in 0..1024, n in 0..3 if m % 7 == 2)
        game Shift(s) {
            move left(i in s) if i - 1 not in s and i > 0 -> Shift(insert(remove(s, i), i - 1))
            move hop(i in s) if i + 3 in s -> Shift(remove(insert(remove(s, i + 3), i + 1), i))
        }
        print [sg(Shift(set(c for c in 0..9 if (m >> c) & 1 == 1))) for m in 0..512 if m % 13 == 5]
        print [sg(Shift({1, 60, 62, 63})), sg(Shift({0, 3}))]
        game Up(s) { move up(i in s) if i + 1 not in s and i < 64 -> Up(insert(remove(s, i), i + 1)) }
        print [sg(Up({1, 3})), sg(Up({60, 62}))]
        print sorted(list(memo_histogram(Shift)))",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    // `Up({60, 62})` inserts 64: off the bit masks, on the general path.
    assert!(!out.contains("failure"), "{out}");
    let explained = explain(
        "game Take(s) { move one(i in s) -> Take(remove(s, i)) }
         game Off(s) { move m(i in s) if i + 1 in s and len(s) > 2 -> Off(remove(s, i)) }",
    );
    assert!(
        explained.contains("move one: one run of bit masks over its last binding"),
        "{explained}"
    );
    // A guard that must run per option keeps the options one by one.
    assert!(
        explained.contains("move m: option by option"),
        "{explained}"
    );
}

#[test]
fn sets_past_63_and_negative_items_fall_back_to_the_general_path() {
    let out = same_both_ways(
        "game Cram(free) {
            move across(i in free) if i + 3 in free -> Cram(remove(remove(free, i), i + 3))
            move down(i in free) if i % 3 != 2 and i + 1 in free -> Cram(remove(remove(free, i), i + 1))
        }
        # Cells past 63 and below 0: the sets are not bit masks.
        print [sg(Cram(set(x + s for x in 0..9))) for s in [-3, 0, 57, 60, 63]]
        # Inserting past 63 leaves the bit masks midway.
        game Grow(s) {
            move add(i in 0..3) if len(s) < 4 and not (62 + i in s) -> Grow(insert(s, 62 + i))
            move drop(i in s) if i < 61 -> Grow(remove(s, i))
        }
        print [sg(Grow({1, 2})), sg(Grow({62})), sg(Grow({-1, 63}))]
        print sorted(list(memo_histogram(Grow)))",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn index_and_type_errors_come_from_the_general_path() {
    for program in [
        // `coins[i]` past the list's end, in a run's bound.
        "game B(coins) { move s(i in 0..4, t in 0..coins[i]) -> B(sorted(update(coins, i, t))) }
         print sg(B([1, 2, 3]))",
        // `update` past the end, in a sorted run and option by option.
        "game U(xs) { move s(t in 0..xs[0]) -> U(sorted(update(xs, 3, t))) }
         print sg(U([2, 5, 6]))",
        "game V(xs) { move s(t in 0..xs[0]) if t >= 0 -> V(update(xs, -1, t)) }
         print sg(V([2, 5]))",
        // A set is no integer; an integer has no items.
        "game S(s) { move m(i in s) if s + i > 0 -> S(remove(s, i)) }
         print sg(S({1, 2}))",
        "game I(n) { move m(i in n) -> I(i) }
         print sg(I([3]) + I(4))",
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("failure"), "{program}: {out}");
    }
    // A cycle through list positions: a loopy game, valued by the
    // labelling (every position a draw), the same both ways.
    let out = same_both_ways(
        "game L(xs) { move m(i in 0..2) -> L(sorted(update(xs, i, xs[1 - i]))) }
         print sg(L([1, 2])), outcome(L([2, 2]))",
    );
    assert_eq!(out, "∞ D\n");
}

#[test]
fn lists_joined_with_plus_run_on_the_kernel_and_agree_with_the_general_path() {
    let program = "
        # A list grows at either end or doubles; its value depends only on
        # its length, which the integer game tracks.
        game Grow(xs) {
            move push(k in 0..3) if len(xs) < 9 -> Grow(xs + [k])
            move cons(k in 0..2) if len(xs) < 8 -> Grow([k, k] + xs)
            move double if 0 < len(xs) and 2 * len(xs) <= 9 -> Grow(xs + xs)
        }
        game Len(m) {
            move push(k in 0..3) if m < 9 -> Len(m + 1)
            move cons(k in 0..2) if m < 8 -> Len(m + 2)
            move double if 0 < m and 2 * m <= 9 -> Len(2 * m)
        }
        print [sg(Grow(xs)) for xs in [[], [1], [2, 0, 1], [0, 0, 0, 0, 0]]]
        assert all(sg(Grow([1 for i in 0..m])) == sg(Len(m)) for m in 0..10)";
    let bad = "
        game Bad(xs) { move m if len(xs) < 3 -> Bad(xs + {1}) }
        print sg(Bad([0]))";
    let out = same_both_ways(&format!("{program}{bad}"));
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.contains("failure"),
        "the join of a list and a set is an error: {out}"
    );
    let explained = explain(program);
    assert!(
        explained.contains("game Grow: kernel over lists and sets"),
        "{explained}"
    );
}

#[test]
fn a_constant_range_with_membership_guards_reads_as_a_mask_and_agrees() {
    // From a set of m items of 0..6, every order of adding the others is
    // 6 - m moves: the value is their parity. `Odd` keeps odd items only
    // and skips 3 by a guard left to run per option.
    let program = "
        game Fill(xs) { move add(k in 0..6) if not (k in xs) -> Fill(insert(xs, k)) }
        game Odd(xs) { move add(k in 1..=7) if not (k in xs) and k % 2 == 1 and k != 3 -> Odd(insert(xs, k)) }
        assert all(sg(Fill(s)) == (6 - len(s)) % 2 for s in [{}, {0}, {5, 2}, {0, 1, 2, 3, 4, 5}])
        print [sg(Fill(s)) for s in [{}, {3}, {0, 4}, {1, 9}]], [sg(Odd(s)) for s in [{}, {1}, {1, 5, 7}, {3}]]
        assert all(sg(Odd(s)) == (3 - len(s & {1, 5, 7})) % 2 for s in [{}, {1}, {5, 7}, {1, 5, 7}, {3}])";
    let out = same_both_ways(program);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(!out.contains("failure"), "{out}");
    let explained = explain(program);
    assert!(
        explained.contains("the binding's set or constant range and its guard's leading conjuncts read as one bit mask"),
        "{explained}"
    );
}

#[test]
fn explain_names_the_list_and_set_forms() {
    let out = explain(&format!(
        "{WELTER}
        game Cram(free) {{
            move across(i in free) if i + 3 in free -> Cram(remove(remove(free, i), i + 3))
        }}
        game Masked(free) {{
            move m(i in remove(free, 0)) -> Masked(remove(free, i))
        }}
        game Off(free) {{
            move m(i in sorted(free)) -> Off(remove(free, i))
        }}"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("game Welter: kernel over lists and sets"),
        "{out}"
    );
    assert!(
        out.contains("move slide: strided runs through the memo over its last binding, one per place of the new item in the sorted list"),
        "{out}"
    );
    assert!(
        out.contains("game Cram: kernel over lists and sets"),
        "{out}"
    );
    assert!(
        out.contains("move across: one run of bit masks over its last binding"),
        "{out}"
    );
    // A binding over a set the kernel computes as a bit mask.
    assert!(
        out.contains("game Masked: kernel over lists and sets"),
        "{out}"
    );
    assert!(out.contains("game Off: general path"), "{out}");
    assert!(
        out.contains("binding `i` runs over a value computed by the move"),
        "{out}"
    );
}

#[test]
fn set_operators_on_bit_sets_run_on_the_kernel_and_agree_with_the_general_path() {
    let program = "
        # Node Kayles: a move takes a vertex and its neighbours.
        game Path(s) {
            move pick(v in s) -> Path(s - {v - 1, v, v + 1})
        }
        # The graph as a static argument: the list of each vertex's neighbours.
        game Graph[adj](s) {
            move pick(v in s) -> Graph[adj](s - ({v} | adj[v]))
        }
        fn cycle(n) = [{(v + n - 1) % n, (v + 1) % n} for v in 0..n]
        print [sg(Path(set(0..n))) for n in 0..=24]
        print [sg(Graph[cycle(n)](set(0..n))) for n in 3..=16]
        # & keeps what both have; a literal's items past 63 are in no bit set.
        game Keep(s, t) {
            move k(v in s) -> Keep((s - {v}) & (t | {v + 1}), t)
            move far(v in s) if v > 5 -> Keep(s & {1, 2, 3, 100}, t)
        }
        print [sg(Keep(set(0..n), {1, 3, 5, 7})) for n in 0..10]
        # - between two arguments: integers or sets, as the position has them.
        game Either(a, b) {
            move m() if a != b -> Either(a - b, a - b)
            move n() if a != b -> Either(a & b, a & b)
        }
        print [sg(Either(5, 7)), sg(Either({1, 2, 3}, {2}))]
        # A union past 63 is no bit set: the general path runs it.
        game Wide(s) {
            move w(v in s) if v < 10 -> Wide(s - {v} | {v + 62})
            move d(v in s) -> Wide(s - {v})
        }
        print [sg(Wide({1})), sg(Wide({2, 5}))]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // Node Kayles on a path is Dawson's chess: OEIS A002187.
    assert_eq!(
        lines[0],
        "[0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0]"
    );
    // On a cycle every move leaves a path of n - 3 vertices.
    let path: Vec<u32> = lines[0]
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|v| v.parse().unwrap())
        .collect();
    let cycle: Vec<String> = (3..=16)
        .map(|n| u32::from(path[n - 3] == 0).to_string())
        .collect();
    assert_eq!(lines[1], format!("[{}]", cycle.join(", ")));
    let explained = explain(program);
    // Graph's instances, compiled for their neighbour lists, run on it.
    for game in ["Path", "Graph[[{1, 2}, {0, 2}, {0, 1}]]", "Keep", "Wide"] {
        assert!(
            explained.contains(&format!("game {game}: kernel over lists and sets")),
            "{game}: {explained}"
        );
    }
}

#[test]
fn set_operator_errors_come_from_the_general_path() {
    for program in [
        // An integer minus a set, and a set minus an integer.
        "game A(a, b) { move m(v in 0..1) -> A(a - b, b) }
         print sg(A(3, {1}))",
        "game B(s) { move m(v in s) -> B(s - v) }
         print sg(B({1, 2}))",
        // A neighbour list too short for the vertices.
        "game G[adj](s) { move m(v in s) -> G[adj](s - adj[v]) }
         print sg(G[[{1}, {0}]]({0, 1, 2}))",
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("failure"), "{program}: {out}");
    }
}

#[test]
fn set_helpers_are_read_in_place_and_agree_with_the_general_path() {
    let program = "
        fn closed(s, v) = s - nbhd(v)
        fn nbhd(v) = {v - 1, v, v + 1}
        game Path(s) {
            move pick(v in s) -> Path(s - {v - 1, v, v + 1})
        }
        game PathF(s) {
            move pick(v in s) -> PathF(closed(s, v))
        }
        print [sg(PathF(set(0..n))) for n in 0..=20]
        print all(sg(PathF(set(0..n))) == sg(Path(set(0..n))) for n in 0..=20)";
    let out = same_both_ways(program);
    assert!(out.ends_with("true\n"), "{out}");
    let explained = explain(program);
    assert!(
        explained.contains("game PathF: kernel over lists and sets"),
        "{explained}"
    );
    // A helper that calls itself stays a call: the general path reports
    // its recursion, the same both ways.
    let out = same_both_ways_with(
        "fn f(s) = f(s) - {1}
        game R(s) { move m(v in s) -> R(f(s)) }
        print sg(R({1, 2}))",
        Limits {
            max_call_depth: 200,
            ..Limits::default()
        },
    );
    assert!(out.contains("recursion deeper than"), "{out}");
}

#[test]
fn set_results_that_choose_or_go_through_functions_agree_with_the_general_path() {
    let program = "
        fn after(s, v) = NK(s - {v - 1, v, v + 1})
        game NK(s) {
            move pick(v in s) -> if v == 0 then NK(s - {0, 1}) else after(s, v)
        }
        game P(s) {
            move pick(v in s) -> P(s - {v - 1, v, v + 1})
        }
        # A sum chosen per option (with the zero game and an empty set).
        fn split(s, v) = if v == 0 then S(s - {0, 1}) + 0 else S(s - {v - 1, v, v + 1}) + S({})
        game S(s) {
            move pick(v in s) -> split(s, v)
        }
        print [sg(NK(set(0..n))) for n in 0..=20]
        print all(sg(NK(set(0..n))) == sg(P(set(0..n))) for n in 0..=20)
        print all(sg(S(set(0..n))) == sg(P(set(0..n))) for n in 0..=20)";
    let out = same_both_ways(program);
    assert!(out.ends_with("true\ntrue\n"), "{out}");
    let explained = explain(program);
    assert!(
        explained.contains(
            "move pick: option by option on a frame of integers, lists and sets read as \
             integers and options written as keys (its result one of 2 sums, chosen by \
             `if`), the function's body read in place\n"
        ),
        "{explained}"
    );
    assert!(
        explained.contains("game S: kernel over lists and sets"),
        "{explained}"
    );
    // A position a function builds that breaks `where`: an error both ways.
    let out = same_both_ways(
        "fn back(s, v) = W(s - {v} | {0})
        game W(s) where not (0 in s) {
            move m(v in s) -> if v > 2 then back(s, v) else W(s - {v})
        }
        print sg(W({1, 2, 3}))",
    );
    assert!(
        out.contains("failure") && out.contains("is not a position of W"),
        "{out}"
    );
}

/// A small deterministic generator of test positions (xorshift64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const STAIRCASE: &str = "
    game Stair(xs) {
        move step(i in 1..len(xs), k in 1..=xs[i]) ->
            Stair(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
    }
    game Stair5(xs) {
        move step(i in 1..5, k in 1..=xs[i]) ->
            Stair5(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
    }
    # A guard on `k`: option by option, the two updates written as a key.
    game OddStair(xs) {
        move step(i in 1..len(xs), k in 1..=xs[i]) if k % 2 == 1 ->
            OddStair(update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k))
    }
";

#[test]
fn staircase_updates_of_two_items_run_on_the_kernel_and_agree() {
    // Staircase Nim: each move changes exactly one odd-numbered stair
    // (down from stair i odd, up onto stair i - 1 odd), every smaller xor
    // of the odd stairs is reached by taking from one of them, so the
    // value is that xor (the Nim argument, as for Poker Nim).
    let mut rng = Rng(0x5eed_57a1);
    let random: Vec<String> = (0..30)
        .map(|_| {
            let n = 2 + rng.below(4);
            let items: Vec<String> = (0..n).map(|_| rng.below(7).to_string()).collect();
            format!("[{}]", items.join(", "))
        })
        .collect();
    let program = format!(
        "{STAIRCASE}
        assert all(sg(Stair([a, b, c, d, e])) == b ^ d
                   for a in 0..4, b in 0..5, c in 0..4, d in 0..5, e in 0..4)
        assert all(sg(Stair5([a, b, c, d, e])) == sg(Stair([a, b, c, d, e]))
                   for a in 0..3, b in 0..4, c in 0..3, d in 0..4, e in 0..4)
        let random = [{}]
        assert all(sg(Stair(xs)) == nimsum([xs[i] for i in 0..len(xs) if i % 2 == 1])
                   for xs in random)
        print [sg(Stair(xs)) for xs in random]
        print [sg(OddStair(xs)) for xs in random]
        print sorted(list(memo_histogram(Stair)))
        print [sg(Stair((a, b, c))) for a in 0..3, b in 0..4, c in 0..4]",
        random.join(", ")
    );
    // The memo's values before the tuples: a table of them is filled
    // whole levels at a time (`search/rank_fill.rs`), lists not asked too.
    let out = same_both_ways(&program);
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
    let shown = explain(STAIRCASE);
    // Stair and Stair5 as runs read by rank (`rank_shift.rs`).
    let runs = shown
        .lines()
        .filter(|l| l.contains("read by rank from the position's own list"))
        .count();
    assert_eq!(runs, 2, "{shown}");
}

#[test]
fn errors_of_two_updates_come_from_the_general_path() {
    for program in [
        // `i - 2` below 0 for `i = 1`, in a run and option by option.
        "game S(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) ->
             S(update(update(xs, i, xs[i] - k), i - 2, xs[i - 1] + k)) }
         print sg(S([0, 3, 1]))",
        "game S(xs) { move m(i in 1..len(xs), k in 1..=xs[i]) if k > 0 ->
             S(update(update(xs, i, xs[i] - k), i + 1, k)) }
         print sg(S([0, 3]))",
        // An update of a set.
        "game S(xs) { move m(k in 1..3) -> S(update(update(xs, 0, k), 1, 0)) }
         print sg(S({4, 5}))",
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("failure"), "{program}: {out}");
    }
}

const WELTER_GUARD: &str = "
    game Welter(coins) where distinct(coins) and coins == sorted(coins) {
        move slide(i in 0..len(coins), t in 0..coins[i]) if t not in coins ->
            Welter(sorted(update(coins, i, t)))
    }
    game Welter4(coins) where distinct(coins) {
        move slide(i in 0..4, t in 0..coins[i]) -> Welter4(sorted(update(coins, i, t)))
    }
    # The range takes the moving coin's own square, which the guard leaves
    # out; no `where`.
    game Slide(xs) {
        move s(i in 0..len(xs), t in 0..=xs[i]) if t not in xs -> Slide(sorted(update(xs, i, t)))
    }
";

#[test]
fn a_guard_t_not_in_the_list_runs_as_sorted_runs_and_agrees() {
    let mut rng = Rng(0xc0_1e5);
    let random: Vec<String> = (0..40)
        .map(|_| {
            let n = 1 + rng.below(5);
            let items: Vec<String> = (0..n).map(|_| rng.below(12).to_string()).collect();
            format!("[{}]", items.join(", "))
        })
        .collect();
    let program = format!(
        "{WELTER_GUARD}
        assert all(sg(Welter([a, b, c, d])) == sg(Welter4([a, b, c, d]))
                   for d in 3..11, c in 2..d, b in 1..c, a in 0..b)
        print [sg(Welter([a, b, c])) for c in 2..9, b in 1..c, a in 0..b]
        let random = [{}]
        print [sg(Slide(xs)) for xs in random]
        assert all(sg(Slide(sorted(xs))) == sg(Welter(sorted(xs))) for xs in random if distinct(xs))
        print sorted(list(memo_histogram(Slide)))",
        random.join(", ")
    );
    let out = same_both_ways(&program);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // An unsorted list and a repeat fail the `where`, the same both ways.
    for position in ["[5, 2, 7]", "[1, 4, 4]", "(1, 2, 3)"] {
        let out = same_both_ways(&format!("{WELTER_GUARD}\nprint sg(Welter({position}))"));
        assert!(out.contains("failure"), "{position}: {out}");
    }
    let shown = explain(WELTER_GUARD);
    assert!(shown.contains("  where: integer code"), "{shown}");
    let runs = shown
        .lines()
        .filter(|l| {
            l.contains("strided runs through the memo over its last binding, one per place")
        })
        .count();
    assert_eq!(runs, 3, "{shown}");
}

#[test]
fn set_literals_taken_out_or_joined_run_as_masks_and_agree() {
    let program = "
        game Cram(free) {
            move across(i in free) if i + 3 in free -> Cram(free - {i, i + 3})
            move down(i in free) if i % 3 != 2 and i + 1 in free -> Cram(free - {i, i + 1})
        }
        game CramR(free) {
            move across(i in free) if i + 3 in free -> CramR(remove(remove(free, i), i + 3))
            move down(i in free) if i % 3 != 2 and i + 1 in free -> CramR(remove(remove(free, i), i + 1))
        }
        # Tokens step right onto a free cell below 10: a chain taking one
        # item out and putting one in.
        game Step(s) {
            move go(i in s) if i + 1 not in s and i + 1 < 10 -> Step((s - {i}) | {i + 1})
        }
        assert all(sg(Cram(set(0..3 * k))) == sg(CramR(set(0..3 * k))) for k in 0..=5)
        print [sg(Cram(set(c for c in 0..12 if (m >> c) & 1 == 1))) for m in 0..4096 if m % 7 == 2]
        print [sg(Step(set(c for c in 0..10 if (m >> c) & 1 == 1))) for m in 0..1024 if m % 3 == 1]
        print [sg(Cram(set(x + s for x in 0..6))) for s in [-3, 58, 60]]";
    let out = same_both_ways(program);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    let shown = explain(program);
    let runs = shown
        .lines()
        .filter(|l| l.contains("one run of bit masks over its last binding"))
        .count();
    assert_eq!(runs, 5, "{shown}");
}

#[test]
fn geography_over_a_let_list_of_sets_agrees_with_a_function_and_the_general_path() {
    let out = same_both_ways(
        "let N = 4
        let adj = [{u for u in [v - 3, v + 3] if 0 <= u < 3 * N}
                   | {u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u}
                   for v in 0..3 * N]
        fn near(v) = {u for u in [v - 3, v + 3] if 0 <= u < 3 * N}
                     | {u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u < 3 * N}
        game Geo(v, seen) {
            move go(u in adj[v] - seen) -> Geo(u, seen | {u})
        }
        game GeoFn(v, seen) {
            move go(u in near(v) - seen) -> GeoFn(u, seen | {u})
        }
        print [sg(Geo(v, {v})) for v in 0..3 * N]
        assert all(sg(Geo(v, {v})) == sg(GeoFn(v, {v})) for v in 0..3 * N)
        assert all(sg(Geo(v, {v, w})) == sg(GeoFn(v, {v, w})) for v in 0..3 * N, w in 0..3 * N)
        print sorted(list(memo_histogram(Geo)))",
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

/// Vertex geography on the 3 x `n` grid (vertex `3c + r`), by a plain
/// memoised search over bit masks: an independent check of the rule
/// files' values. The start positions' values and how many positions the
/// search valued.
fn grid_geography_values(n: usize) -> (Vec<u8>, usize) {
    fn sg(
        adj: &[u64],
        memo: &mut std::collections::HashMap<(usize, u64), u8>,
        v: usize,
        seen: u64,
    ) -> u8 {
        if let Some(&x) = memo.get(&(v, seen)) {
            return x;
        }
        let mut values = 0u64;
        let mut free = adj[v] & !seen;
        while free != 0 {
            let u = free.trailing_zeros() as usize;
            free &= free - 1;
            values |= 1 << sg(adj, memo, u, seen | 1 << u);
        }
        let x = values.trailing_ones() as u8;
        memo.insert((v, seen), x);
        x
    }
    let cells = 3 * n;
    let adj: Vec<u64> = common::grid3_neighbours(n);
    let mut memo = std::collections::HashMap::new();
    let values = (0..cells).map(|v| sg(&adj, &mut memo, v, 1 << v)).collect();
    (values, memo.len())
}

#[test]
fn geography_past_the_window_stores_each_position_once_and_agrees_with_a_brute_force() {
    // On the 3 x 7 grid a position is a vertex and a mask of 21 bits,
    // past the window's free size: positions go to the sparse table
    // (each found missing there is stored when the search expands it)
    // until the window, found full enough, takes them. Every position
    // once, both kinds of place.
    let out = run(
        "let N = 7
        let adj = [{u for u in [v - 3, v + 3] if 0 <= u < 3 * N}
                   | {u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u}
                   for v in 0..3 * N]
        game Geo(v, seen) {
            move go(u in adj[v] - seen) -> Geo(u, seen | {u})
        }
        print [sg(Geo(v, {v})) for v in 0..3 * N]
        print sum(memo_histogram(Geo))",
        true,
    );
    let (values, positions) = grid_geography_values(7);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], format!("{values:?}"), "{out}");
    assert_eq!(lines[1], positions.to_string(), "{out}");
}

#[test]
fn set_functions_of_comprehensions_run_on_the_kernel_and_agree_with_a_brute_force() {
    // `adj(v)`, a function whose body is set comprehensions over a list
    // literal reading a top-level constant; `ring[M](v)` with a static
    // argument and a range binding; `pair(v, w)` of two arguments.
    let program = "let N = 4
        fn adj(v) = {u for u in [v - 3, v + 3] if 0 <= u < 3 * N}
                    | {u for u in [v - 1, v + 1] if u / 3 == v / 3 and 0 <= u < 3 * N}
        fn ring[M](v) = {(v + d) % M for d in 1..3}
        fn pair(v, w) = {x for x in [v, w, v + w] if x < 20}
        game Geo(v, seen) {
            move go(u in adj(v) - seen) -> Geo(u, seen | {u})
        }
        game Ring[M](v, seen) {
            move go(u in ring[M](v) - seen) -> Ring[M](u, seen | {u})
        }
        game Pair(v, seen) {
            move go(u in pair(v, 1) - seen) if u > 0 -> Pair(u, seen | pair(u, v))
        }
        print [sg(Geo(v, {v})) for v in 0..3 * N]
        print [sg(Ring[7](v, {v})) for v in 0..7]
        print [sg(Ring[9](v, {v, 4})) for v in 0..9]
        print [sg(Pair(v, {v})) for v in 0..20]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
    let (expected, _) = grid_geography_values(4);
    assert_eq!(lines[0], format!("{expected:?}"), "{out}");
    let explained = explain(program);
    for game in [
        "Geo (its top-level constants read as values)",
        "Ring",
        "Pair",
    ] {
        assert!(
            explained.contains(&format!("game {game}: kernel over lists and sets")),
            "{explained}"
        );
    }
}

#[test]
fn set_functions_past_the_masks_and_with_errors_agree_with_the_general_path() {
    // Items past 63 or below 0, an argument past the kept table, and a
    // division by zero inside the function: the general path decides.
    let out = same_both_ways(
        "fn far(v) = {u for u in [v - 1, v + 70] if u != 5}
        fn bad(v) = {u / (v - 3) for u in [v, v + 1]}
        game Far(v, seen) {
            move go(u in far(v) - seen) if 0 <= u < 10 -> Far(u, seen | {u})
        }
        game Big(v, seen) {
            move go(u in far(v) - seen) if u >= 1000 -> Big(u - 1000, seen)
        }
        game Bad(v, seen) {
            move go(u in bad(v) - seen) -> Bad(u, seen | {u})
        }
        print [sg(Far(v, {v})) for v in 0..10]
        print sg(Big(1500, {0}))
        print sg(Bad(6, {6}))
        print sg(Bad(3, {3}))",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains("failure"), "{out}");
}

#[test]
fn bindings_over_list_literals_run_on_the_kernel_and_agree() {
    let program = "
        game Hop(xs) {
            move h(i in [0, 2, 1], k in [1, xs[i]]) if 0 < k <= xs[i] -> Hop(update(xs, i, xs[i] - k))
        }
        print [sg(Hop([a, b, c])) for a in 0..5, b in 0..5, c in 0..5]
        # A heap from which one or all may be taken has value 0 empty, 1
        # odd, 2 even (by induction: its options are h - 1 and 0); the
        # heaps add as a sum.
        fn one(h) = if h == 0 then 0 else 2 - h % 2
        assert all(sg(Hop([a, b, c])) == one(a) ^ one(b) ^ one(c) for a in 0..5, b in 0..5, c in 0..5)";
    let out = same_both_ways(program);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(!out.contains("failure"), "{out}");
    assert!(explain(program).contains("game Hop: kernel over lists and sets"));
}

#[test]
fn sets_of_one_binding_read_from_their_table_agree_with_the_general_path() {
    // `{v} | near[v]` and `{v - 60, v}` read only `v`: computed once for
    // each `v` in 0..63 and read from that table, run for the others
    // (64..67 here, whose items past 63 are in no bit set), and an index
    // past `near`'s end fails where the general path fails.
    let out = same_both_ways(
        "let near = [{1}, {0, 2}, {1, 3}, {2, 4}, {3}]
        game T(s) {
            move take(v in s) if v < 5 -> T(s - ({v} | near[v]))
            move far(v in 60..68) if v - 60 in s -> T(s - {v - 60, v})
        }
        print [sg(T(set(0..n))) for n in 0..6]
        print sg(T({0, 2, 4, 61, 63})), sg(T({1, 3, 62}))
        print sorted(list(memo_histogram(T)))",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    let failed = same_both_ways(
        "let near = [{1}, {0, 2}]
        game T(s) { move take(v in s) -> T(s - ({v} | near[v])) }
        print sg(T({0, 1, 2}))",
    );
    assert!(failed.contains("failure"), "{failed}");
}

/// An argument that is neither integer code nor set code a keyed kernel
/// computes: `--explain` quotes the piece of set code refused (`str(i)`
/// inside the set literal), not the whole argument, and the values
/// agree with the general path.
#[test]
fn explain_quotes_the_piece_of_set_code_refused() {
    let program = "game T(free) {
            move m(i in free) -> T(free - {i, i + len(str(i))})
        }
        print [sg(T(set(0..k))) for k in 0..8]";
    let out = same_both_ways(program);
    assert_eq!(out.lines().count(), 1, "{out}");
    let explained = explain(program);
    assert!(
        explained.contains("`str(i)`: `len` of a value not in a slot"),
        "{explained}"
    );
}
