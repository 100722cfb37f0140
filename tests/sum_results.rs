//! Moves whose result is a sum of positions (`-> G(a) + G(b)`) hand the
//! search the parts' keys, no game value built per option
//! (`Target::Sum`). Each game below is written twice: once so (`K`), once
//! with the sum inside a list, which the move evaluates as a value
//! (`KV`). Both must give the same values, option listings and errors,
//! with kernels on (`K` may run on a take-and-break kernel) and off (`K`
//! runs on the general path).

use crate::common;

use common::run;
use grundy::{Limits, Session};

/// The output of `keys` (sums written as keys) and of the same program
/// with `<game>V` for `<game>` and each sum in a list (`[... ][0]`), the
/// names made equal; asserts they agree with kernels on and off.
fn agree(keys: &str, values: &str) -> String {
    let mut seen = Vec::new();
    for kernels in [true, false] {
        let a = run(keys, kernels);
        let b = run(values, kernels).replace("V(", "(");
        assert_eq!(
            a, b,
            "sums as keys (left) and as values (right), kernels {kernels}"
        );
        seen.push(a);
    }
    assert_eq!(seen[0], seen[1], "kernels on (left) and off (right)");
    seen.pop().expect("two runs")
}

#[test]
fn sums_of_positions_as_keys_agree_with_sums_built_as_values() {
    let keys = "
        game K(n) where n >= 0 {
            move one(a in 0..=n - 1) -> K(a) + K(n - 1 - a)
            move two(a in 0..=n - 2) -> K(a) + 0 + K(n - 2 - a)
        }
        print [sg(K(n)) for n in 0..40]
        print options(K(4))
        print winning(K(5) + K(3))
        # Other games, a static argument that flattens not (a string).
        game S(tag, n) where n >= 0 { move m(k in 1..=n) -> S(tag, n - k) + K(k - 1) + S(tag, k - 1) }
        print [sg(S(\"x\", n)) for n in 0..12]
        print options(S(\"x\", 3))";
    let values = "
        game KV(n) where n >= 0 {
            move one(a in 0..=n - 1) -> [KV(a) + KV(n - 1 - a)][0]
            move two(a in 0..=n - 2) -> [KV(a) + 0 + KV(n - 2 - a)][0]
        }
        print [sg(KV(n)) for n in 0..40]
        print options(KV(4))
        print winning(KV(5) + KV(3))
        game SV(tag, n) where n >= 0 { move m(k in 1..=n) -> [SV(tag, n - k) + KV(k - 1) + SV(tag, k - 1)][0] }
        print [sg(SV(\"x\", n)) for n in 0..12]
        print options(SV(\"x\", 3))";
    let out = agree(keys, values);
    // Kayles (OEIS A002186): 0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, ...
    assert!(
        out.starts_with("[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7,"),
        "{out}"
    );
    assert!(out.contains("two(a=1) -> K(1) + K(1) [sg 0]"), "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn a_term_breaking_where_ends_the_option_before_the_next_term_is_evaluated() {
    // W(n - 3 + a) breaks `where` for a = 1 when n < 2: the option is no
    // option, and `6 / (a - 1)` is never evaluated; for n = 2 it is.
    let keys = "
        game H(n) where n >= 0 { move d(k in 0..n) -> H(k) }
        game W(n) where n >= 0 {
            move m(a in 0..=2) -> W(n - 3 + a) + H(6 / (a - 1) + 6) + W(n - 1)
        }
        print [sg(W(n)) for n in 0..2]
        print options(W(1))
        print sg(W(2))";
    let values = "
        game H(n) where n >= 0 { move d(k in 0..n) -> H(k) }
        game WV(n) where n >= 0 {
            move m(a in 0..=2) -> [WV(n - 3 + a) + H(6 / (a - 1) + 6) + WV(n - 1)][0]
        }
        print [sg(WV(n)) for n in 0..2]
        print options(WV(1))
        print sg(WV(2))";
    let out = agree(keys, values);
    assert!(
        out.contains("[m(a=2) -> W(0) + H(12) + W(0) [sg 12]]"),
        "{out}"
    );
    assert!(
        out.contains("failure") && out.contains("division by zero"),
        "{out}"
    );
}

#[test]
fn results_chosen_by_a_condition_agree_with_values() {
    // `if` results: each branch handed over on its own (positions, sums
    // and 0 as keys, other forms as values); a position breaking its
    // `where` in the condition makes no option, as for the value.
    let keys = "
        game H(n) where n >= 0 { move d(k in 0..n) -> H(k) }
        game K(n) where n >= 0 {
            move one(a in 0..=n - 1) -> if a % 2 == 0 then K(a) + K(n - 1 - a) else K(n - 1 - a) + H(a)
            move two(a in 0..=n - 2) -> if a == 1 then 0 else K(a) + K(n - 2 - a)
            move three(a in 0..=2) -> if sg(H(a - 1)) == 0 then K(n - 3) else K(n - 2) + H(sg(H(a - 2)))
            move four(a in 0..=1) -> if a == 0 then [K(n - 1)][0] else (if n > 5 then K(n - 4) else K(n - 1))
        }
        print [sg(K(n)) for n in 0..30]
        print options(K(4))
        print options(K(7))";
    let values = "
        game H(n) where n >= 0 { move d(k in 0..n) -> H(k) }
        game KV(n) where n >= 0 {
            move one(a in 0..=n - 1) -> [if a % 2 == 0 then KV(a) + KV(n - 1 - a) else KV(n - 1 - a) + H(a)][0]
            move two(a in 0..=n - 2) -> [if a == 1 then 0 else KV(a) + KV(n - 2 - a)][0]
            move three(a in 0..=2) -> [if sg(H(a - 1)) == 0 then KV(n - 3) else KV(n - 2) + H(sg(H(a - 2)))][0]
            move four(a in 0..=1) -> [if a == 0 then [KV(n - 1)][0] else (if n > 5 then KV(n - 4) else KV(n - 1))][0]
        }
        print [sg(KV(n)) for n in 0..30]
        print options(KV(4))
        print options(KV(7))";
    let out = agree(keys, values);
    assert!(out.contains("two(a=1) -> 0 [sg 0]"), "{out}");
    // three(a=0) asks sg(H(-1)): no option.
    assert!(!out.contains("three(a=0)"), "{out}");
    assert!(out.contains("three(a=2) -> K(2) + H(0)"), "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn explain_says_which_results_are_written_as_keys() {
    let mut session = Session::new(Limits::default());
    session.explain_games = true;
    let mut out = Vec::new();
    let result = session.run(
        "explain",
        "game H(n) where n >= 0 { move d(k in 0..n) -> H(k) }
         game W(n) where n >= 0 {
             move m(a in 0..=2) -> W(n - 3 + a) + H(a) + W(n - 1)
             move v(a in 0..=2) -> [W(n - 3 + a) + H(a)][0]
             move c(a in 0..=2) -> if a == 0 then 0 else W(n - a) + H(a)
             move p(a in 0..=2) -> if a == 0 then [W(n - 1)][0] else W(n - a)
         }",
        &mut out,
    );
    assert!(result.ok(), "{:?}", result.failures);
    let out = String::from_utf8(out).expect("utf-8 output");
    assert!(
        out.contains("move m: general path, each option a sum of 3 positions written as keys"),
        "{out}"
    );
    assert!(
        out.contains("move v: general path, each option built as a game value"),
        "{out}"
    );
    assert!(
        out.contains("move c: general path, each option a position or a sum of positions chosen by a condition, written as keys"),
        "{out}"
    );
    assert!(
        out.contains("move p: general path, each option written as keys where its branch is a position or a sum of positions, else built as a game value"),
        "{out}"
    );
}
