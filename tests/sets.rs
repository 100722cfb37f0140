//! Positions on sets: small sets are keyed as bit masks, `remove`/`insert`
//! chains and `in` run without building sets. Checked against the same
//! games written on integers and on lists, and against published values.

use crate::common;

use grundy::Limits;

/// Its output followed by its failures.
fn run(text: &str) -> String {
    common::run_with(text, Limits::default())
}

#[test]
fn cram_on_sets_equals_cram_on_bit_masks_and_the_published_values() {
    let out = run("game Cram(free) {
            move across(i in free) if i + 3 in free -> Cram(remove(remove(free, i), i + 3))
            move down(i in free) if i % 3 != 2 and i + 1 in free -> Cram(remove(remove(free, i), i + 1))
        }
        game CramBits(m) {
            move across(i in 0..30) if (m >> i) & 9 == 9 -> CramBits(m - (9 << i))
            move down(i in 0..30) if i % 3 != 2 and (m >> i) & 3 == 3 -> CramBits(m - (3 << i))
        }
        print [sg(Cram(set(0..3 * k))) for k in 0..=6]
        assert [sg(Cram(set(0..3 * k))) for k in 0..=6] == [sg(CramBits(pow(2, 3 * k) - 1)) for k in 0..=6]
        assert all(sg(Cram(set(c for c in 0..12 if (m >> c) & 1 == 1))) == sg(CramBits(m))
                   for m in 0..4096)");
    // Cram on 3 x n boards, n = 0..6 (../shared/bench/README.md, W8).
    assert_eq!(out, "[0, 1, 1, 0, 1, 1, 4]\n", "{out}");
}

#[test]
fn sets_beyond_63_negative_items_and_mixed_forms() {
    // Items move across 64 (bit masks one way, lists of items the other)
    // and below 0.
    let out = run("game Take(s) {
            move t(x in s) if x >= 70 and x - 70 not in s -> Take(insert(remove(s, x), x - 70))
            move u(x in s) if x > 60 and x + 1 not in s -> Take(remove(s, x))
            move v(x in s) if x > -3 and x < 2 -> Take(insert(remove(s, x), x - 1))
            move w(x in s) if x < -2 -> Take(remove(s, x))
        }
        game TakeList(xs) {
            move t(x in xs) if x >= 70 and x - 70 not in xs -> TakeList(sorted(set(insert(remove(xs, x), x - 70))))
            move u(x in xs) if x > 60 and x + 1 not in xs -> TakeList(sorted(remove(xs, x)))
            move v(x in xs) if x > -3 and x < 2 -> TakeList(sorted(set(insert(remove(xs, x), x - 1))))
            move w(x in xs) if x < -2 -> TakeList(sorted(remove(xs, x)))
        }
        assert all(sg(Take(set(s))) == sg(TakeList(sorted(s)))
                   for s in [[], [0], [1, 2], [61, 62, 63], [62, 63, 64], [0, 70, 140], [-5, 3, 63], [1, 71, 133]])
        print sorted({3, 1, 63})
        print {2, 5} == set([5, 2]) and remove({1, 2}, 99) == {1, 2}
        print [x in {4, 63} for x in [4, 5, 63, 64, -1]]");
    assert_eq!(
        out, "[1, 3, 63]\ntrue\n[true, false, true, false, false]\n",
        "{out}"
    );
}

#[test]
fn membership_in_constant_sets_agrees_with_membership_in_lists() {
    // `v in S` for a set of small integers reads a bit of its mask; the
    // same question of the set's items as a list compares values one by
    // one. Items of every kind: negative, past 63, strings, infinite
    // values, booleans.
    let out = run("let SMALL = set(0..64)
        let ODD = set(2 * i + 1 for i in 0..20)
        let MIXED = set([1, 5, 70, -3])
        let xs = [-3, -1, 0, 1, 3, 5, 39, 41, 63, 64, 70, 100, \"a\", true, inf(), inf(0, 2)]
        fn kept(S) = [v for v in xs if v in S] == [v for v in xs if v in [s for s in S]]
        fn dropped(S) = [v for v in xs if v not in S] == [v for v in xs if v not in [s for s in S]]
        assert all(kept(S) and dropped(S) for S in [SMALL, ODD, MIXED, set([])])
        print [v for v in xs if v in SMALL]
        print count(v not in ODD for v in xs)");
    assert_eq!(out, "[0, 1, 3, 5, 39, 41, 63]\n12\n", "{out}");
}
