//! Game kernels (the search's compact form of moves that are integer code of
//! the position) against the general path: every program below must print
//! the same output, and fail with the same error, with kernels on and off.

use crate::common;

use common::{explain, run, same_both_ways};
use grundy::{Limits, Session};

#[test]
fn runs_and_single_moves_with_a_guard() {
    // Three-heap Nim with one pass, asked in an order that needs the search
    // (largest first) and in one that does not.
    let out = same_both_ways(
        "game N3(a, b, c, p) {
            move take_a(x in 0..a) -> N3(x, b, c, p)
            move take_b(x in 0..b) -> N3(a, x, c, p)
            move take_c(x in 0..c) -> N3(a, b, x, p)
            move pass if p == 1 and a + b + c > 0 -> N3(a, b, c, 0)
        }
        print [sg(N3(a, b, c, 1)) for a in reversed(list(0..=7)), b in 0..=7, c in 0..=3]
        print [sg(N3(a, b, c, p)) for p in 0..=1, a in 0..=5, b in 0..=5, c in 0..=5]",
    );
    assert!(out.lines().count() == 2 && out.contains('[') && !out.contains("failure"));
}

#[test]
fn where_clauses_divisions_and_negative_strides() {
    let out = same_both_ways(
        "game ED(a, b) where 1 <= a <= b {
            move eat_a(k in 1..=b / 2) -> ED(k, b - k)
            move eat_b(k in 1..=a / 2) -> ED(k, a - k)
        }
        game Shift(a, b) {
            move m(k in 1..=a) -> Shift(a - k, b + 2 * k)
            move n(k in 0..b / 3) -> Shift(a, b - 3 * k - 1)
        }
        game Take[m](n) {
            move t(x in 1..=min(n, m)) -> Take[m](n - x)
        }
        print [sg(ED(a, b)) for a in 1..=20, b in a..=20]
        print [sg(Shift(a, b)) for a in 0..=6, b in 0..=9]
        print [sg(Take[3](n)) + sg(Take[5](n)) for n in 0..=30]
        game Cap[S](n) {
            move t(x in 0..min(n, len(S))) -> Cap[S](x)
            move s if n > S[0] -> Cap[S](n - S[0])
        }
        print [sg(Cap[[2, 3, 4]](n)) for n in 0..=12]",
    );
    // (Cap's static is a list: its kernel cannot run, the general path does.)
    assert!(out.lines().count() == 4 && !out.contains("failure"));
}

#[test]
fn options_next_to_the_position() {
    // Moves that change one argument are read along the position's own
    // memo entry: downwards with a stride, upwards past the memo's window,
    // asked largest first so that many options are unknown when reached.
    let out = same_both_ways(
        "game Up(a, b) {
            move down(k in 1..=a / 2) -> Up(a - 2 * k, b)
            move side(k in 0..b) -> Up(a, k)
            move up if a % 2 == 0 and a < 40 -> Up(a + 1, b)
        }
        print [sg(Up(a, b)) for a in reversed(list(0..=30)), b in reversed(list(0..=4))]
        print [sg(Up(a, b)) for a in 0..=33, b in 0..=5]",
    );
    assert!(out.lines().count() == 2 && !out.contains("failure"));
}

#[test]
fn arguments_computed_per_option() {
    // Arguments that are not affine in the binding are computed for every
    // option: inside the memo's window, below it (negative), and with the
    // affine arguments themselves leaving the window.
    let out = same_both_ways(
        "game Choc(x, y, z) where 0 <= y <= (x + z) / 3 {
            move cut_x(u in 0..x) -> Choc(u, min((u + z) / 3, y), z)
            move cut_y(v in 0..y) -> Choc(x, v, z)
            move cut_z(w in 0..z) -> Choc(x, min(y, (x + w) / 3), w)
        }
        print [sg(Choc(x, y, z)) for x in reversed(list(0..=9)), z in reversed(list(0..=9)), y in 0..=(x + z) / 3]
        print [sg(Choc(x, y, z)) for x in 0..=10, z in 0..=10, y in 0..=(x + z) / 3]
        game Below(a, b) {
            move m(k in 1..=a) -> Below(a - k, b - k * k)
        }
        print [sg(Below(a, b)) for a in 0..=6, b in 0..=3]
        game Outside(a, b) {
            move m(k in 1..=a) -> Outside(a - 2 * k, (k * k) % 5 + b)
        }
        print [sg(Outside(a, b)) for a in 0..=8, b in 0..=2]",
    );
    assert!(out.lines().count() == 4 && !out.contains("failure"));
}

#[test]
fn sorted_list_moves_agree_with_the_value_path() {
    // `sorted(update(xs, i, t))` is read as strided runs, one per place of
    // `t` among the other items (`t` equal to one of them included); the
    // same move through a function takes the value path.
    let out = same_both_ways(
        "fn upd(xs, i, t) = sorted(update(xs, i, t))
        game S(xs) {
            move m(i in 0..3, t in 0..xs[i]) -> S(sorted(update(xs, i, t)))
        }
        game V(xs) {
            move m(i in 0..3, t in 0..xs[i]) -> V(upd(xs, i, t))
        }
        game SD(xs) where distinct(xs) {
            move m(i in 0..3, t in 0..xs[i]) -> SD(sorted(update(xs, i, t)))
        }
        game VD(xs) where distinct(xs) {
            move m(i in 0..3, t in 0..xs[i]) -> VD(upd(xs, i, t))
        }
        print [sg(S([a, b, c])) for c in 0..=7, b in 0..=c, a in 0..=b]
        print [sg(V([a, b, c])) for c in 0..=7, b in 0..=c, a in 0..=b]
        print [sg(SD([a, b, c])) for c in 2..=8, b in 1..c, a in 0..b]
        print [sg(VD([a, b, c])) for c in 2..=8, b in 1..c, a in 0..b]",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], lines[1]);
    assert_eq!(lines[2], lines[3]);
}

#[test]
fn where_clauses_on_list_arguments() {
    // `where` clauses reading list items, lengths and `distinct` are
    // decided on the key's integers (kernels on) or on values (off).
    let out = same_both_ways(
        "game T(xs, m) where distinct(xs) and len(xs) == 3 and xs[0] < m {
            move t(i in 0..3, v in 0..xs[i]) -> T(update(xs, i, v), m)
        }
        print [sg(T([a, b, c], 4)) for a in 0..=5, b in 0..=5, c in 0..=5 if a < 4 and a != b and b != c and a != c]
        game Bad(xs) where xs[3] >= 0 {
            move t(v in 0..xs[0]) -> Bad(update(xs, 0, v))
        }
        print sg(Bad([2, 1, 0]))",
    );
    assert!(out.lines().count() == 2, "{out}");
    assert!(out.contains("failure") && out.contains("index"), "{out}");
}

#[test]
fn errors_come_from_the_general_path() {
    // An overflow in an argument and a cycle are reported the same way.
    let overflow = same_both_ways(
        "game Big(a, b) {
            move down if a > 0 -> Big(a - 1, b * 4611686018427387904)
        }
        print sg(Big(3, 5))",
    );
    assert!(overflow.contains("failure") && overflow.contains("overflow"));
    // An overflow inside a run: the first option fits, later ones do not.
    let in_run = same_both_ways(
        "game R(a, b) {
            move m(k in 0..a) -> R(k, 9223372036854775800 + 8 * k)
        }
        print sg(R(3, 0))",
    );
    assert!(in_run.contains("failure") && in_run.contains("overflow"));
    // An overflow in an argument computed per option.
    let per_option = same_both_ways(
        "game Sq(a, b) {
            move m(k in 0..a) -> Sq(k, b + k * k * 4611686018427387904)
        }
        print sg(Sq(3, 0))",
    );
    assert!(per_option.contains("failure") && per_option.contains("overflow"));
    // A `where` clause that fails on some position (integer code leaves
    // the error to the value path).
    let in_where = same_both_ways(
        "game W(a, b) where a / b >= 0 and a >= b {
            move m(k in 0..a) -> W(k, b)
        }
        print [sg(W(a, 1)) for a in 1..=5]
        print sg(W(3, 0))",
    );
    assert!(in_where.contains("failure") && in_where.contains("division by zero"));
    let loopy = same_both_ways(
        "game L(a) {
            move up if a < 3 -> L(a + 1)
            move down if a > 0 -> L(a - 1)
        }
        print sg(L(1))
        print sg(misere(L(1)))",
    );
    // A game with cycles has generalised values (here a draw, ∞); a
    // compound of it is an error.
    assert!(loopy.starts_with("∞\n"), "{loopy}");
    assert!(loopy.contains("failure") && loopy.contains("loopy"));
}

#[test]
fn take_and_break_sums_read_with_strides() {
    // Dawson's chess (octal 0.137), Kayles (0.77) and Grundy's game written
    // as explicit rules: moves to sums of two heaps of the game itself.
    let out = same_both_ways(
        "game Dawson(n) where n >= 0 {
            move take_one if n == 1 -> 0
            move take_two if n >= 2 -> Dawson(n - 2)
            move take_three(a in 0..=(n - 3) / 2) if n >= 3 -> Dawson(a) + Dawson(n - 3 - a)
        }
        game Kayles(n) where n >= 0 {
            move one(a in 0..=(n - 1) / 2) -> Kayles(a) + Kayles(n - 1 - a)
            move two(a in 0..=(n - 2) / 2) -> Kayles(a) + Kayles(n - 2 - a)
        }
        game Grundy(n) {
            move split(a in 1..=(n - 1) / 2) -> Grundy(a) + Grundy(n - a)
        }
        print [sg(Dawson(n)) for n in 0..=40]
        print [sg(Kayles(n)) for n in 0..=40]
        print [sg(Grundy(n)) for n in reversed(list(0..=40))]",
    );
    // OEIS A002187 (Dawson's chess), A002186 (Kayles), A002188 (Grundy's
    // game, listed from n = 40 down here).
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "[0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 2, 7, 4, 0, 1, 1, 2, 0, 3, 1]"
    );
    assert_eq!(
        lines[1],
        "[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 3, 1]"
    );
    assert_eq!(
        lines[2],
        "[1, 4, 2, 1, 4, 2, 1, 4, 2, 1, 3, 2, 1, 4, 0, 3, 4, 0, 3, 4, 0, 3, 4, 2, 3, 1, 2, 3, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 0, 0, 0]"
    );
}

#[test]
fn long_take_and_break_runs_of_small_values_match_a_brute_force() {
    // Grundy's game to n = 400: runs of up to 199 options of small values,
    // read in blocks (both parts forwards, and one backwards), checked
    // against a direct computation here.
    let out = same_both_ways(
        "game Grundy(n) {
            move split(a in 1..=(n - 1) / 2) -> Grundy(a) + Grundy(n - a)
        }
        game Back(n) {
            move split(a in 1..=(n - 1) / 2) -> Back(n - a) + Back(a)
        }
        print [sg(Grundy(n)) for n in 0..=400]
        print [sg(Back(n)) for n in 0..=400]",
    );
    let mut g = vec![0u64; 401];
    for n in 0..=400usize {
        let seen: Vec<u64> = (1..=(n.max(1) - 1) / 2).map(|a| g[a] ^ g[n - a]).collect();
        g[n] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    let expected = format!("{g:?}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, [expected.as_str(), expected.as_str()]);
}

#[test]
fn sums_with_invalid_parts_large_values_and_three_parts() {
    let out = same_both_ways(
        "game T(n) where n >= 0 {
            move take(k in 0..n) -> T(k)
            move split(a in 1..n) -> T(a) + T(n - 2 * a)
            move three(a in 0..n / 3) -> T(a) + T(a + 1) + T(n - 2 * a - 2)
        }
        game Z(n) where n >= 0 {
            move end if n % 3 == 0 -> 0
            move down(k in {1, 2, 5}) if k <= n + 1 -> Z(n - k)
            move cut(a in 0..n, b in 0..=a) if a + b < n -> Z(a) + Z(b)
        }
        print [sg(T(n)) for n in 0..=320]
        print [sg(Z(n)) for n in reversed(list(0..=30))]
        print sg(T(400) + T(3))
        game Half(n) { move h if n > 0 -> Half(n >> 1) + Half(n - 1 - (n >> 1)) }
        print [sg(Half(n)) for n in 0..=40]",
    );
    assert!(
        out.lines().count() == 4 && !out.contains("failure"),
        "{out}"
    );
    // T(n) >= n: every T(k) below is an option; values past 250 are kept
    // outside the dense bytes.
    let t: Vec<u64> = out.lines().next().unwrap()[1..]
        .trim_end_matches(']')
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(t.iter().enumerate().all(|(n, &v)| v >= n as u64));
}

#[test]
fn two_part_sums_walking_in_every_direction() {
    // Parts whose memo bytes are read forwards and backwards in all four
    // combinations, over values past the dense bytes and,
    // asked from the top, over options that have no value yet.
    let out = same_both_ways(
        "game U(n) where n >= 0 {
            move take(k in 0..n) -> U(k)
            move up(a in 0..n / 2) -> U(a) + U(a + 1)
            move down(a in 0..n / 2) -> U(n - 1 - a) + U(n - 2 - a)
            move apart(a in 1..n) -> U(a) + U(n - a)
            move across(a in 1..n) -> U(n - a) + U(a)
        }
        print sg(U(300))
        print [sg(U(n)) for n in 0..=300]",
    );
    assert!(
        out.lines().count() == 2 && !out.contains("failure"),
        "{out}"
    );
    let u: Vec<u64> = out.lines().nth(1).unwrap()[1..]
        .trim_end_matches(']')
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    // Distinct values (every U(k) below is an option), many past 250.
    let distinct: std::collections::HashSet<u64> = u.iter().copied().collect();
    assert_eq!(distinct.len(), u.len());
    assert!(u.iter().filter(|&&v| v > 250).count() > 20, "{out}");
    assert_eq!(out.lines().next().unwrap(), u[300].to_string());
}

#[test]
fn loop_moves_report_errors_and_cycles_as_the_general_path() {
    for program in [
        // Overflow in an argument of one part.
        "game O(n) { move m(k in 0..n) -> O(k) + O(k * 4611686018427387904) }
         print sg(O(3))",
        // A cycle through a part of a sum.
        "game C(n) where n >= 0 { move m(k in 0..2) -> C(k) + C(n) }
         print sg(C(2))",
        // A negative shift.
        "game S(n) { move m if n > 0 -> S(n >> (n - 3)) + S(n - 1) }
         print sg(S(2))",
        // A guard that fails on the value path.
        "game D(n) { move m(k in {1, 2}) if k / (n - 2) > 0 -> D(n - k) }
         print sg(D(4))",
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("failure"), "{program}: {out}");
    }
}

#[test]
fn results_written_through_functions_run_on_the_kernel() {
    // Dawson's chess with its results written through helpers (one
    // calling another, one a term of a sum): the same values as the
    // rules written out, with kernels on and off.
    let program = "
        fn one(m) = DF(m)
        fn parts(a, b) = one(a) + one(b)
        game D(n) where n >= 0 {
            move take_one if n == 1 -> 0
            move take_two if n >= 2 -> D(n - 2)
            move take_three(a in 0..=(n - 3) / 2) if n >= 3 -> D(a) + D(n - 3 - a)
        }
        game DF(n) where n >= 0 {
            move take_one if n == 1 -> 0
            move take_two if n >= 2 -> one(n - 2)
            move take_three(a in 0..=(n - 3) / 2) if n >= 3 -> parts(a, n - 3 - a)
            move none(a in 0..0) -> DF(a) + one(a)
        }
        print [sg(DF(n)) for n in 0..=80]
        print [sg(D(n)) for n in 0..=80] == [sg(DF(n)) for n in 0..=80]";
    let out = same_both_ways(program);
    assert!(out.ends_with("true\n"), "{out}");
    let how = explain(program);
    assert!(how.contains("game DF: kernel"), "{how}");
    assert!(
        how.contains("move take_three: option by option on a frame of integers (a sum of 2 parts, values xored), the function's body read in place"),
        "{how}"
    );
    // A position a function builds that breaks `where` is an error, as
    // documented, not a dropped option: the kernel leaves it to the
    // general path, which points into the function.
    let broken = same_both_ways(
        "fn split(a, b) = K(a) + K(b)
        game K(n) where n >= 0 {
            move knock(k in {1, 2}, a in 0..=n) -> split(a, n - k - a)
        }
        print [sg(K(n)) for n in 0..=1]
        print sg(K(5))",
    );
    assert!(
        broken.contains("failure") && broken.contains("K(-1) is not a position of K"),
        "{broken}"
    );
    // An argument the body never reads is still evaluated by the call,
    // so its error is reported: such a call is not read in place.
    let unread = same_both_ways(
        "fn first(a, b) = U(a)
        game U(n) where n >= 0 {
            move m if n > 0 -> first(n - 1, n / (n - n))
        }
        print sg(U(3))",
    );
    assert!(unread.contains("division by zero"), "{unread}");
    // The same for a call inside a position's argument (integer code
    // inlines small functions) and inside a guard.
    for program in [
        "fn first(a, b) = a
        game U(n) where n >= 0 { move m if n > 0 -> U(first(n - 1, n / (n - n))) }
        print sg(U(3))",
        "fn first(a, b) = a
        game U(n) where n >= 0 { move m(k in 1..=n) if first(k, n / (k - k)) > 0 -> U(n - k) }
        print sg(U(3))",
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("division by zero"), "{program}: {out}");
    }
}

#[test]
fn results_that_choose_with_if_run_on_the_kernel() {
    // Kayles with its results chosen by `if`: in a helper's body (a term
    // of a sum: four choices), in the move itself, and nested; the same
    // values as the rules written out, with kernels on and off.
    let program = "
        game K(n) where n >= 0 {
            move one(a in 0..=(n - 1) / 2) -> K(a) + K(n - 1 - a)
            move two(a in 0..=(n - 2) / 2) -> K(a) + K(n - 2 - a)
        }
        fn part(a) = if a == 0 then KF(0) else KF(a)
        game KF(n) where n >= 0 {
            move one(a in 0..=(n - 1) / 2) -> part(a) + part(n - 1 - a)
            move two(a in 0..=(n - 2) / 2) -> part(a) + part(n - 2 - a)
        }
        game KI(n) where n >= 0 {
            move split(k in 1..=2, a in 0..=n) if 2 * a <= n - k ->
                if a > 0 then KI(a) + KI(n - k - a) else if n == k then 0 else KI(n - k)
        }
        # The branch not taken breaks `where` (KB(-1)): never built.
        fn down(a) = if a >= 1 then KB(a - 1) else KB(0)
        game KB(n) where n >= 0 {
            move d if n > 0 -> down(n - 1) + down(n)
        }
        print [sg(KF(n)) for n in 0..=70]
        print [sg(K(n)) for n in 0..=70] == [sg(KF(n)) for n in 0..=70]
        print [sg(K(n)) for n in 0..=70] == [sg(KI(n)) for n in 0..=70]
        print [sg(KB(n)) for n in 0..=20]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1..3], ["true", "true"], "{out}");
    // KB(n) -> KB(n - 2) + KB(n - 1) for n >= 2: a one-option game whose
    // values follow from its first two by hand.
    let mut kb = vec![0u32, 1];
    for n in 2..=20 {
        let x = kb[n - 2] ^ kb[n - 1];
        kb.push(u32::from(x == 0));
    }
    let kb: Vec<String> = kb.iter().map(|v| v.to_string()).collect();
    assert_eq!(lines[3], format!("[{}]", kb.join(", ")), "{out}");
    let how = explain(program);
    for game in ["KF", "KI", "KB"] {
        assert!(how.contains(&format!("game {game}: kernel")), "{how}");
    }
    assert!(
        how.contains("move one: option by option on a frame of integers (its result one of 4 sums, chosen by `if`), the function's body read in place"),
        "{how}"
    );
    assert!(
        how.contains("move split: option by option on a frame of integers (its result one of 3 sums, chosen by `if`); 1 guard conjunct(s) monotone in a binding solved into its range (a polynomial's root)\n"),
        "{how}"
    );
    // Errors in a condition, and a position that breaks `where` in the
    // branch taken, come from the general path.
    for (program, error) in [
        (
            "game C(n) where n >= 0 { move m(a in 0..n) -> if n / a > 1 then C(a) else 0 }
            print sg(C(4))",
            "division by zero",
        ),
        (
            "fn g(a) = if a > 2 then W(a - 5) else W(a)
            game W(n) where n >= 0 { move m(a in 0..n) -> g(a) }
            print sg(W(4))",
            "W(-2) is not a position of W",
        ),
    ] {
        let out = same_both_ways(program);
        assert!(out.contains("failure") && out.contains(error), "{out}");
    }
}

#[test]
fn explain_names_each_moves_form_and_why_a_move_is_slow() {
    let out = explain(
        "game Dawson(n) where n >= 0 {
            move take_one if n == 1 -> 0
            move take_two if n >= 2 -> Dawson(n - 2)
            move take_three(a in 0..=(n - 3) / 2) if n >= 3 -> Dawson(a) + Dawson(n - 3 - a)
        }
        game Sub(n) { move take(k in {1, 2, 5}) if k <= n -> Sub(n - k) }
        game Two(n) { move cut(a in 0..n, b in 0..a) -> Two(a) + Two(b) }
        game Cram(free) {
            move across(i in free) if i + 3 in free -> Cram(remove(remove(free, i), i + 3))
        }
        game Half(n) { move h if n > 0 -> Half(n >> 1) + Half(n - 1 - (n >> 1)) }",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("game Dawson: kernel"), "{out}");
    assert_eq!(lines[1], "  where: integer code");
    assert!(lines[2].contains("take_one: one option on a frame") && lines[2].contains("zero game"));
    assert!(
        lines[3].contains("take_two: one option, read along the position's own line of the memo"),
        "{out}"
    );
    assert!(
        lines[4].contains("take_three: a take-and-break run")
            && lines[4].contains(
                "; 1 guard conjunct(s) not mentioning a binding decided outside its loop, 2 conjunct(s) of the result's `where` guaranteed by the move's range"
            ),
        "{out}"
    );
    assert!(out.contains("game Sub: kernel"), "{out}");
    assert!(
        out.contains(
            "move take: option by option on a frame of integers; 1 guard conjunct(s) monotone"
        ),
        "{out}"
    );
    // Only Sub's moves are all single steps: its tables are swept from
    // fixed distances.
    assert_eq!(out.matches("tables swept in order").count(), 1, "{out}");
    assert!(
        out.contains("each value read from its 3 options at fixed distances"),
        "{out}"
    );
    assert!(
        out.contains("move cut: option by option on a frame of integers (a sum of 2 parts"),
        "{out}"
    );
    // Sets of small integers are read as bit masks (`key_kernels.rs`).
    assert!(
        out.contains("game Cram: kernel over lists and sets"),
        "{out}"
    );
    // Shifts are integer code too.
    assert!(out.contains("game Half: kernel"), "{out}");
}

#[test]
fn explain_from_the_command_line_and_for_one_game() {
    let dir = std::env::temp_dir().join(format!("grundy-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("heap.game");
    std::fs::write(
        &file,
        "game Heap(n) where n >= 0 { move take(k in 0..n) -> Heap(k) }\nprint sg(Heap(3))\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["run", "--explain"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The explanation comes first, then the file's own output.
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "game Heap: kernel (positions of integers are searched on frames of integers, options read from the memo: a dense window over the positions searched, a hash table for those it would hold too thinly (integers far apart, the bit masks of subsets of a large range))",
            "  where: integer code",
            "  move take: a run read along the position's own line of the memo (one argument changes); 1 conjunct(s) of the result's `where` guaranteed by the move's range, guard and the position's own `where` (never checked)",
            "3",
        ]
    );
    std::fs::remove_dir_all(&dir).ok();

    let mut session = Session::new(Limits::default());
    let r = session.run(
        "one",
        "game Heap(n) where n >= 0 { move take(k in 0..n) -> Heap(k) }
         game Two(a, b) = Heap(a) + Heap(b)",
        &mut Vec::new(),
    );
    assert!(r.ok());
    assert_eq!(
        session.explain(Some("Two")).unwrap(),
        "game Two: an alias, expanded where it is used\n"
    );
    assert_eq!(
        session.explain(Some("Nope")).unwrap_err(),
        "no game named `Nope`"
    );
    assert!(session
        .explain(None)
        .unwrap()
        .starts_with("game Heap: kernel"));
}

#[test]
fn memo_histogram_of_a_game_and_of_a_wrong_value() {
    let out = run(
        "game Heap(n) where n >= 0 { move take(k in 0..n) -> Heap(k) }
        print sg(Heap(4))
        print memo_histogram(Heap)
        print memo_histogram(Heap(0))
        print memo_histogram(3)",
        true,
    );
    let lines: Vec<&str> = out.lines().collect();
    // Heap(0..=4) are stored, one of each value.
    assert_eq!(lines[..3], ["4", "[1, 1, 1, 1, 1]", "[1, 1, 1, 1, 1]"]);
    assert!(
        lines[3].contains("expected a game, a position or a compound"),
        "{out}"
    );
}

/// The SG value of `p` by memoised recursion over `options` (positions
/// that fail `valid` are not options): an independent check of the search.
pub(crate) fn brute_sg<P: Clone + Eq + std::hash::Hash>(
    p: &P,
    options: &dyn Fn(&P) -> Vec<P>,
    valid: &dyn Fn(&P) -> bool,
    memo: &mut std::collections::HashMap<P, i64>,
) -> i64 {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let values: Vec<i64> = options(p)
        .into_iter()
        .filter(|q| valid(q))
        .map(|q| brute_sg(&q, options, valid, memo))
        .collect();
    let v = (0..).find(|v| !values.contains(v)).expect("a mex");
    memo.insert(p.clone(), v);
    v
}

pub(crate) fn shown(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn clamps_of_decreasing_arguments_split_where_they_cross() {
    // A clamp whose moving side falls with the binding (coefficients -1,
    // -1 over a divisor, -3 over a divisor): the run splits where the
    // clamp switches sides. The second argument matters to the value
    // (its own move), so a split in the wrong place shows.
    let out = same_both_ways(
        "game E(a, b) {
            move m(k in 0..a) -> E(k, max((a - k) / 2, b))
            move n(j in 0..b) -> E(a, j)
        }
        game G(a, b) {
            move m(k in 0..a) -> G(k, min(b, (2 * a - 3 * k) / 2))
            move n(j in 0..b) -> G(a, j)
        }
        game H(a, b) {
            move m(k in 0..a) -> H(k, max(b - k, 1))
            move n(j in 0..b) -> H(a, j)
        }
        print [sg(E(a, b)) for a in 0..=24, b in 0..=9]
        print [sg(G(a, b)) for a in 0..=24, b in 0..=20]
        print [sg(H(a, b)) for a in 0..=24, b in 0..=12]",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let all = |_: &(i64, i64)| true;
    let with_n = |(a, b): (i64, i64), mut o: Vec<(i64, i64)>| {
        o.extend((0..b).map(|j| (a, j)));
        o
    };
    let e = move |&(a, b): &(i64, i64)| {
        with_n(
            (a, b),
            (0..a).map(|k| (k, (a - k).div_euclid(2).max(b))).collect(),
        )
    };
    let g = move |&(a, b): &(i64, i64)| {
        with_n(
            (a, b),
            (0..a)
                .map(|k| (k, b.min((2 * a - 3 * k).div_euclid(2))))
                .collect(),
        )
    };
    let h =
        move |&(a, b): &(i64, i64)| with_n((a, b), (0..a).map(|k| (k, (b - k).max(1))).collect());
    type Options<'a> = &'a dyn Fn(&(i64, i64)) -> Vec<(i64, i64)>;
    let games: [(Options, i64); 3] = [(&e, 9), (&g, 20), (&h, 12)];
    for (line, (options, b_max)) in lines.iter().zip(games) {
        let mut memo = std::collections::HashMap::new();
        let values: Vec<i64> = (0..=24)
            .flat_map(|a| (0..=b_max).map(move |b| (a, b)))
            .map(|p| brute_sg(&p, options, &all, &mut memo))
            .collect();
        assert_eq!(*line, shown(&values));
    }
    let how = explain(
        "game E(a, b) {
            move m(k in 0..a) -> E(k, max((a - k) / 2, b))
            move n(j in 0..b) -> E(a, j)
        }",
    );
    assert!(
        how.contains("move m: a run through the memo, split where"),
        "{how}"
    );
}

#[test]
fn scans_mark_values_past_the_dense_bytes_where_they_read_them() {
    // Values past 250 have the byte `BIG` and their codes in the window's
    // wide array: a line scan (`cut_y`), a bend scanned phase by phase
    // (`cut_x`, divisor 8) and a bend walked option by option (`far`,
    // divisor 97) mark them from there, against the general path's
    // lookups.
    let out = same_both_ways(
        "game W(x, y) where 0 <= y <= x / 8 {
            move cut_x(u in 0..x) -> W(u, min(u / 8, y))
            move cut_y(v in 0..y) -> W(x, v)
            move far(u in 0..x) -> W(u, min(y, (u + 3 * y) / 97))
        }
        print [sg(W(x, y)) for x in 0..=280, y in 0..=x / 8]",
    );
    let values: Vec<u64> = out
        .trim()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(values.iter().filter(|&&v| v > 250).count() > 100, "{out}");
}

#[test]
fn runs_split_where_a_clamp_or_quotient_bends() {
    // Arguments piecewise floor-affine in the binding (`Bend`): min with
    // an increasing quotient (bound on either side), max with a decreasing
    // one, a quotient alone that leaves the window below, two quotients in
    // one run (not a bend piece: batched code), a clamp of the binding
    // itself, and a coefficient that is a multiple of the divisor.
    let out = same_both_ways(
        "fn F(x, z) = (x + 2 * z) / 3
        game C(x, y, z) where 0 <= y <= F(x, z) {
            move cut_x(u in 0..x) -> C(u, min(F(u, z), y), z)
            move cut_y(v in 0..y) -> C(x, v, z)
            move cut_z(w in 0..z) -> C(x, min(y, F(x, w)), w)
        }
        print [sg(C(x, y, z)) for x in reversed(list(0..=8)), z in 0..=8, y in 0..=F(x, z)]
        print [sg(C(x, y, z)) for x in 0..=12, z in 0..=12, y in 0..=F(x, z)]
        game D(a, b) {
            move m(k in 0..a) -> D(k, max((a - k) / 2, b))
        }
        print [sg(D(a, b)) for a in 0..=14, b in 0..=5]
        game Q(a, b) {
            move m(k in 0..a) -> Q(k, (b - 3 * k) / 2)
        }
        print [sg(Q(a, b)) for a in 0..=9, b in -4..=9]
        game T(a, b, c) {
            move m(k in 0..a) -> T(k, (k + b) / 2, (k + c) / 3)
            move n(k in 0..b) -> T(a, k, min(c, (2 * k + a) / 2))
        }
        print [sg(T(a, b, c)) for a in 0..=7, b in 0..=5, c in 0..=4]
        game M(a, b) {
            move m(k in 0..a) -> M(k, min(b, k + 1))
            move n(k in 0..b) -> M(a, k)
        }
        print [sg(M(a, b)) for a in 0..=10, b in 0..=10]
        game L(a, b) {
            move m(k in 0..a) -> L(k, min((b + 5 * k) / 7, b + 3))
            move n(k in 0..b) -> L(a, k)
        }
        print [sg(L(a, b)) for a in 0..=70, b in 0..=12]",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");

    let f = |x: i64, z: i64| (x + 2 * z).div_euclid(3);
    let choc = move |&(x, y, z): &(i64, i64, i64)| {
        let mut o: Vec<_> = (0..x).map(|u| (u, f(u, z).min(y), z)).collect();
        o.extend((0..y).map(|v| (x, v, z)));
        o.extend((0..z).map(|w| (x, y.min(f(x, w)), w)));
        o
    };
    let valid = move |&(x, y, z): &(i64, i64, i64)| 0 <= y && y <= f(x, z);
    let mut memo = std::collections::HashMap::new();
    let mut c = |x, y, z| brute_sg(&(x, y, z), &choc, &valid, &mut memo);
    let first: Vec<i64> = (0..=8)
        .rev()
        .flat_map(|x| (0..=8).flat_map(move |z| (0..=f(x, z)).map(move |y| (x, y, z))))
        .map(|(x, y, z)| c(x, y, z))
        .collect();
    assert_eq!(lines[0], shown(&first));
    let second: Vec<i64> = (0..=12)
        .flat_map(|x| (0..=12).flat_map(move |z| (0..=f(x, z)).map(move |y| (x, y, z))))
        .map(|(x, y, z)| c(x, y, z))
        .collect();
    assert_eq!(lines[1], shown(&second));

    let all = |_: &(i64, i64)| true;
    let d = |&(a, b): &(i64, i64)| {
        (0..a)
            .map(|k| (k, ((a - k).div_euclid(2)).max(b)))
            .collect()
    };
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=14)
        .flat_map(|a| (0..=5).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &d, &all, &mut memo))
        .collect();
    assert_eq!(lines[2], shown(&values));

    let q = |&(a, b): &(i64, i64)| (0..a).map(|k| (k, (b - 3 * k).div_euclid(2))).collect();
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=9)
        .flat_map(|a| (-4..=9).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &q, &all, &mut memo))
        .collect();
    assert_eq!(lines[3], shown(&values));

    let t = |&(a, b, c): &(i64, i64, i64)| {
        let mut o: Vec<_> = (0..a)
            .map(|k| (k, (k + b).div_euclid(2), (k + c).div_euclid(3)))
            .collect();
        o.extend((0..b).map(|k| (a, k, c.min((2 * k + a).div_euclid(2)))));
        o
    };
    let all3 = |_: &(i64, i64, i64)| true;
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=7)
        .flat_map(|a| (0..=5).flat_map(move |b| (0..=4).map(move |c| (a, b, c))))
        .map(|p| brute_sg(&p, &t, &all3, &mut memo))
        .collect();
    assert_eq!(lines[4], shown(&values));

    let m = |&(a, b): &(i64, i64)| {
        let mut o: Vec<_> = (0..a).map(|k| (k, b.min(k + 1))).collect();
        o.extend((0..b).map(|k| (a, k)));
        o
    };
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=10)
        .flat_map(|a| (0..=10).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &m, &all, &mut memo))
        .collect();
    assert_eq!(lines[5], shown(&values));

    // Long runs: the quotient's walk reads whole blocks of its period.
    let l = |&(a, b): &(i64, i64)| {
        let mut o: Vec<_> = (0..a).map(|k| (k, ((b + 5 * k) / 7).min(b + 3))).collect();
        o.extend((0..b).map(|k| (a, k)));
        o
    };
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=70)
        .flat_map(|a| (0..=12).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &l, &all, &mut memo))
        .collect();
    assert_eq!(lines[6], shown(&values));

    // Overflow inside a clamped quotient: the bend path leaves the run to
    // the batched code, which leaves the error to the general path.
    let overflow = same_both_ways(
        "game O(a, b) {
            move m(k in 0..a) -> O(k, min((b + k * 4611686018427387904) / 3, 5))
        }
        print sg(O(3, 0))",
    );
    assert!(overflow.contains("failure") && overflow.contains("overflow"));
    // A divisor near the top of the integers.
    let huge = same_both_ways(
        "game H(a, b) {
            move m(k in 0..a) -> H(k, min((b + k) / 4611686018427387904, b))
        }
        print [sg(H(a, b)) for a in 0..=6, b in 0..=2]",
    );
    assert_eq!(huge.lines().count(), 1, "{huge}");
    assert!(!huge.contains("failure"), "{huge}");
}

#[test]
fn conditional_arithmetic_powers_and_logarithms_as_integer_code() {
    // `if`, `pow`, `log2` and `low0` in arguments, bounds and guards, and
    // called through functions, with and without kernels; then the same
    // built-ins outside their domains, which must fail the same way.
    let out = same_both_ways(
        "fn h_max(z) = if z == 0 then 0 else pow(2, log2(z)) - 1
        fn step(n, k) = if k % 2 == 0 then n - k else (n - k) / 2
        game A(n) where n >= 0 { move m(k in 1..=n) -> A(h_max(n - k)) }
        game B(n) where n >= 0 { move m(k in 1..=n) if low0(k) <= 1 -> B(step(n, k)) }
        game C(a, b) where a >= 0 and b >= 0 {
            move x(k in 0..(if a > b then a else b)) if k < a -> C(k, b)
            move y(k in 0..pow(2, log2(b + 1) + 1)) if k < b -> C(a, k)
        }
        print [sg(A(n)) for n in 0..40]
        print [sg(B(n)) for n in reversed(list(0..60))]
        print [sg(C(a, b)) for a in 0..12, b in 0..12]
        assert all(sg(C(a, b)) == a ^ b for a in 0..12, b in 0..12)",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    for text in [
        "game L(n) where n >= 0 { move m(k in 0..n) -> L(log2(k)) }\nprint sg(L(4))",
        "game P(n) where n >= 0 { move m(k in 1..=n) -> P(pow(2, k - 2)) }\nprint sg(P(3))",
        "game Z(n) where n >= 0 { move m(k in 1..=n) -> Z(low0(k - 2)) }\nprint sg(Z(3))",
        "game O(n) where n >= 0 { move m(k in 1..=n) -> O(pow(10, 40 - k)) }\nprint sg(O(3))",
    ] {
        let out = same_both_ways(text);
        assert!(out.contains("failure"), "{out}");
    }
}

#[test]
fn mirrored_take_and_break_runs_read_half_and_mark_values_past_the_bytes() {
    // Runs whose two parts trade places between `a` and the run's far end
    // (`O(a) + O(n - 1 - a)` over the whole of `0..=n - 1`) read only
    // their first half; with values past 250 (every `O(k)` below is an
    // option too) the sums of large values are marked from the window's
    // map of them. Checked against a direct computation here, and the
    // two-argument game against the brute force.
    let out = same_both_ways(
        "game O(n) where n >= 0 {
            move take(k in 0..n) -> O(k)
            move split(a in 0..=n - 1) -> O(a) + O(n - 1 - a)
            move odd(a in 1..n - 1) -> O(a) + O(n - 1 - a)
        }
        game P(x, y) where x >= 0 and y >= 0 {
            move s(k in 1..x) -> P(k, y) + P(x - k, y)
            move t(k in 1..y) -> P(x, y - k) + P(x, k - 1)
            move u(k in 0..y) -> P(x, k) + P(x, y - 1 - k)
        }
        print [sg(O(n)) for n in 0..=300]
        print [sg(P(x, y)) for x in 0..=12, y in 0..=9]",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let mut g = vec![0i64; 301];
    for n in 0..=300usize {
        let mut seen: Vec<i64> = (0..n).map(|k| g[k]).collect();
        seen.extend((0..n).map(|a| g[a] ^ g[n - 1 - a]));
        g[n] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    assert_eq!(lines[0], shown(&g));
    assert!(g.iter().filter(|&&v| v > 250).count() > 40, "{out}");
    let options = |&(x, y): &(i64, i64)| -> Vec<Vec<(i64, i64)>> {
        let mut o: Vec<Vec<(i64, i64)>> = (1..x).map(|k| vec![(k, y), (x - k, y)]).collect();
        o.extend((1..y).map(|k| vec![(x, y - k), (x, k - 1)]));
        o.extend((0..y).map(|k| vec![(x, k), (x, y - 1 - k)]));
        o
    };
    type SumOptions<'a> = &'a dyn Fn(&(i64, i64)) -> Vec<Vec<(i64, i64)>>;
    fn sum_sg(
        p: (i64, i64),
        options: SumOptions,
        memo: &mut std::collections::HashMap<(i64, i64), i64>,
    ) -> i64 {
        if let Some(&v) = memo.get(&p) {
            return v;
        }
        let values: Vec<i64> = options(&p)
            .into_iter()
            .map(|parts| {
                parts
                    .into_iter()
                    .map(|q| sum_sg(q, options, memo))
                    .fold(0, |a, b| a ^ b)
            })
            .collect();
        let v = (0..).find(|v| !values.contains(v)).unwrap();
        memo.insert(p, v);
        v
    }
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=12)
        .flat_map(|x| (0..=9).map(move |y| (x, y)))
        .map(|p| sum_sg(p, &options, &mut memo))
        .collect();
    assert_eq!(lines[1], shown(&values));
}

#[test]
fn quadratic_arguments_are_walked_with_a_growing_stride() {
    // Arguments quadratic in the binding (`n - k * k`, `a - 2k^2 + k`,
    // `k * k` upwards): the run is walked through the memo with a stride
    // that grows by a constant step; with values past 250 (`U`), asked
    // from the top (options not known yet), and with `where` dropping the
    // options below 0 (`W`). Subtract-a-square is checked against a
    // direct computation here.
    let out = same_both_ways(
        "game S(n) where n >= 0 { move take(k in 1..=n) if k * k <= n -> S(n - k * k) }
        game W(n) where n >= 0 { move take(k in 1..=n) -> W(n - k * k) }
        game T(a, b) where a >= 0 and b >= 0 {
            move m(k in 1..=a) if 2 * k * k <= a + k -> T(a - 2 * k * k + k, b)
            move n(k in 0..b) -> T(a, k)
            move q(k in 0..3) -> T(k * k, b - 1)
        }
        game U(n) where n >= 0 {
            move all(k in 0..n) -> U(k)
            move sq(k in 1..=n) if (k + 1) * (k + 1) <= n + 1 -> U(n - (k + 1) * (k + 1) + 1)
        }
        print [sg(S(n)) for n in 0..=400]
        print [sg(W(n)) for n in reversed(list(0..=200))]
        print [sg(T(a, b)) for a in 0..=30, b in 0..=6]
        print sg(U(300))
        print [sg(U(n)) for n in 0..=300]",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let mut g = vec![0i64; 401];
    for n in 0..=400usize {
        let seen: Vec<i64> = (1..)
            .take_while(|k| k * k <= n)
            .map(|k| g[n - k * k])
            .collect();
        g[n] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    assert_eq!(lines[0], shown(&g));
    let mut w = g[..=200].to_vec();
    w.reverse();
    assert_eq!(lines[1], shown(&w));
    let u: Vec<i64> = (0..=300).collect();
    assert_eq!(lines[4], shown(&u));
    assert_eq!(lines[3], "300");
    let how =
        explain("game S(n) where n >= 0 { move take(k in 1..=n) if k * k <= n -> S(n - k * k) }");
    assert!(how.contains("quadratic in the binding"), "{how}");
}

#[test]
fn games_that_may_swap_two_arguments_value_one_of_each_pair() {
    // Empty-and-Divide as in docs/language.md: renaming `a` and `b` gives
    // the same rules, so ED(b, a) has the value of ED(a, b) and the
    // twin options of a split run are read once. `Lop` (its `where` is
    // not symmetric) and `Tilt` (a move of `b` alone) may not swap; the
    // swap must not be taken for them.
    let program = "game ED(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> ED(k, b - k)
            move split_a(k in 1..a) -> ED(k, a - k)
        }
        game Lop(a, b) where a >= 1 and b >= 2 {
            move split_b(k in 1..b) -> Lop(k, b - k)
            move split_a(k in 1..a) -> Lop(k, a - k)
        }
        game Tilt(a, b) where a >= 0 and b >= 0 {
            move x(k in 0..a) -> Tilt(k, b)
            move y(k in 0..b) -> Tilt(a, k)
            move z if b >= 2 -> Tilt(a, b - 2)
        }
        print [sg(ED(a, b)) for a in 1..=24, b in 1..=24]
        print [sg(ED(a, b)) for b in reversed(list(1..=24)), a in reversed(list(1..=24))]
        print [sg(Lop(a, b)) for a in 1..=16, b in 2..=16]
        print [sg(Tilt(a, b)) for b in 0..=12, a in 0..=12]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let ed = |&(a, b): &(i64, i64)| -> Vec<(i64, i64)> {
        let mut o: Vec<(i64, i64)> = (1..b).map(|k| (k, b - k)).collect();
        o.extend((1..a).map(|k| (k, a - k)));
        o
    };
    let mut memo = std::collections::HashMap::new();
    let valid = |&(a, b): &(i64, i64)| a >= 1 && b >= 1;
    let forward: Vec<i64> = (1..=24)
        .flat_map(|a| (1..=24).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &ed, &valid, &mut memo))
        .collect();
    assert_eq!(lines[0], shown(&forward));
    let backward: Vec<i64> = (1..=24)
        .rev()
        .flat_map(|b| (1..=24).rev().map(move |a| (a, b)))
        .map(|p| brute_sg(&p, &ed, &valid, &mut memo))
        .collect();
    assert_eq!(lines[1], shown(&backward));
    let lop_valid = |&(a, b): &(i64, i64)| a >= 1 && b >= 2;
    let mut memo = std::collections::HashMap::new();
    let lop: Vec<i64> = (1..=16)
        .flat_map(|a| (2..=16).map(move |b| (a, b)))
        .map(|p| brute_sg(&p, &ed, &lop_valid, &mut memo))
        .collect();
    assert_eq!(lines[2], shown(&lop));
    let tilt = |&(a, b): &(i64, i64)| -> Vec<(i64, i64)> {
        let mut o: Vec<(i64, i64)> = (0..a).map(|k| (k, b)).collect();
        o.extend((0..b).map(|k| (a, k)));
        if b >= 2 {
            o.push((a, b - 2));
        }
        o
    };
    let mut memo = std::collections::HashMap::new();
    let tilt_values: Vec<i64> = (0..=12)
        .flat_map(|b| (0..=12).map(move |a| (a, b)))
        .map(|p| brute_sg(&p, &tilt, &|_| true, &mut memo))
        .collect();
    assert_eq!(lines[3], shown(&tilt_values));
    let how = explain(program);
    assert_eq!(how.matches("arguments a and b swap").count(), 1, "{how}");
}

#[test]
fn squares_of_games_that_trade_their_arguments_are_filled_in_shells() {
    // A square table of a game whose arguments swap and whose runs trade
    // one for the other is valued in shells of its first argument
    // (`compile/sweep.rs`, `fill_shells`), the runs reading the twins in
    // those shells (`search/kernel.rs`, `canonical_half`): `ED`'s runs
    // read their second halves, `Flip`'s (`Flip(b - k, k)`) their first,
    // and `Flip` has runs that trade nothing beside them. Asked in both
    // loop orders, under a pass (the layer below filled first), on a
    // rectangle (not filled) and on squares of odd and even sides:
    // values against a brute force. `Bad` fails at (3, 4) and (4, 3):
    // the filling stops there, and the lines meet the same error as
    // with the fast paths off.
    let program = "game ED(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> ED(k, b - k)
            move split_a(k in 1..a) -> ED(k, a - k)
        }
        game Flip(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> Flip(b - k, k)
            move split_a(k in 1..a) -> Flip(a - k, k)
            move take_a(k in 2..a) -> Flip(a - k, b)
            move take_b(k in 2..b) -> Flip(a, b - k)
        }
        print [sg(ED(a, b)) for a in 1..=31, b in 1..=31]
        print [sg(ED(a, b)) for b in 1..=30, a in 1..=30]
        print [sg(Flip(a, b)) for a in 1..=21, b in 1..=21]
        print [sg(pass(ED(a, b))) for a in 1..=20, b in 1..=20]
        print [sg(ED(a, b)) for a in 1..=12, b in 1..=30]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    type P = (i64, i64, i64);
    let valid = |&(a, b, _): &P| a >= 1 && b >= 1;
    let ed = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..b).map(|k| (k, b - k, p)).collect();
        o.extend((1..a).map(|k| (k, a - k, p)));
        // One pass left: a move to the same position with none, but from
        // a terminal position.
        if p == 1 && !o.is_empty() {
            o.push((a, b, 0));
        }
        o
    };
    let flip = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..b).map(|k| (b - k, k, p)).collect();
        o.extend((1..a).map(|k| (a - k, k, p)));
        o.extend((2..a).map(|k| (a - k, b, p)));
        o.extend((2..b).map(|k| (a, b - k, p)));
        o
    };
    let table = |rows: std::ops::RangeInclusive<i64>,
                 cols: std::ops::RangeInclusive<i64>,
                 at: &dyn Fn(i64, i64) -> P,
                 options: &dyn Fn(&P) -> Vec<P>| {
        let mut memo = std::collections::HashMap::new();
        let values: Vec<i64> = (rows.flat_map(|x| cols.clone().map(move |y| (x, y))))
            .map(|(x, y)| brute_sg(&at(x, y), options, &valid, &mut memo))
            .collect();
        shown(&values)
    };
    assert_eq!(lines[0], table(1..=31, 1..=31, &|a, b| (a, b, 0), &ed));
    assert_eq!(lines[1], table(1..=30, 1..=30, &|b, a| (a, b, 0), &ed));
    assert_eq!(lines[2], table(1..=21, 1..=21, &|a, b| (a, b, 0), &flip));
    assert_eq!(lines[3], table(1..=20, 1..=20, &|a, b| (a, b, 1), &ed));
    assert_eq!(lines[4], table(1..=12, 1..=30, &|a, b| (a, b, 0), &ed));
    let bad = "game Bad(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> Bad(k, b - k)
            move split_a(k in 1..a) -> Bad(k, a - k)
            move odd if a * b == 12 -> Bad(1, 1 / (a + b - 7))
        }
        print [sg(Bad(a, b)) for a in 1..=9, b in 1..=9]";
    let out = same_both_ways(bad);
    assert!(out.contains("failure"), "{out}");
    let how = explain(program);
    assert_eq!(how.matches("arguments a and b swap").count(), 2, "{how}");
}

#[test]
fn squares_asked_at_min_and_max_of_triangle_games_are_filled_in_shells() {
    // A game whose `where` keeps two arguments ordered (`1 <= a <= b`,
    // `0 <= a and a < b`, `b >= a`) asked over a square at
    // `(min(a, b), max(a, b))` (`compile/sweep.rs`, `Piece`): its lines
    // are cut at the diagonal, and its triangle is filled first in shells
    // of the larger argument (`fill_shells`), under a pass the layer
    // below first. Asked in both loop orders, with the arguments the
    // other way round (outside the `where`: an error, as with the fast
    // paths off), of a game whose `where` orders nothing (read, not
    // filled), on a rectangle and with one `min` alone: values against a
    // brute force. Squares of twins are read from the half they fill.
    let program = "game Tri(a, b) where 1 <= a <= b {
            move eat_a(k in 1..=b / 2) -> Tri(k, b - k)
            move eat_b(k in 1..=a / 2) -> Tri(k, a - k)
        }
        game Low(a, b) where a >= 0 and b > a {
            move down_a(k in 1..=a) -> Low(a - k, b)
            move down_b(k in 1..b) -> Low(a, b - k)
            move cut(k in 1..b) -> Low(k / 2, b - k)
        }
        game Free(a, b) where a >= 0 and b >= 0 {
            move down_a(k in 1..=a) -> Free(a - k, b)
            move half_b(k in 1..=b / 2) -> Free(a, b - 2 * k)
        }
        print [sg(Tri(min(a, b), max(a, b))) for a in 1..=29, b in 1..=29]
        print [sg(Tri(min(b, a), max(b, a))) for b in 1..=24, a in 1..=24]
        print [sg(pass(Tri(min(a, b), max(a, b)))) for a in 1..=20, b in 1..=20]
        print [sg(Low(min(a, b), max(a, b) + 1)) for a in 0..=17, b in 0..=17]
        print [sg(Low(min(a, b), max(a, b))) for a in 0..=17, b in 0..=17 if a != b]
        print [sg(Free(min(a, b), max(a, b))) for a in 0..=15, b in 0..=15]
        print [sg(Tri(min(a, b), max(a, b))) for a in 1..=9, b in 1..=25]
        print [sg(Free(min(a, 5), b)) for a in 0..=9, b in 0..=9]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    type P = (i64, i64, i64);
    let tri = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..=b / 2).map(|k| (k, b - k, p)).collect();
        o.extend((1..=a / 2).map(|k| (k, a - k, p)));
        // One pass left: a move to the same position with none, but from
        // a terminal position.
        if p == 1 && !o.is_empty() {
            o.push((a, b, 0));
        }
        o
    };
    let low = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..=a).map(|k| (a - k, b, p)).collect();
        o.extend((1..b).map(|k| (a, b - k, p)));
        o.extend((1..b).map(|k| (k / 2, b - k, p)));
        o
    };
    let free = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..=a).map(|k| (a - k, b, p)).collect();
        o.extend((1..=b / 2).map(|k| (a, b - 2 * k, p)));
        o
    };
    let in_tri = |&(a, b, _): &P| 1 <= a && a <= b;
    let in_low = |&(a, b, _): &P| a >= 0 && b > a;
    let in_free = |&(a, b, _): &P| a >= 0 && b >= 0;
    type Options<'a> = &'a dyn Fn(&P) -> Vec<P>;
    let table = |cells: Vec<P>, options: Options, valid: &dyn Fn(&P) -> bool| {
        let mut memo = std::collections::HashMap::new();
        let values: Vec<i64> = (cells.iter())
            .map(|p| brute_sg(p, options, valid, &mut memo))
            .collect();
        shown(&values)
    };
    let square = |rows: std::ops::RangeInclusive<i64>,
                  cols: std::ops::RangeInclusive<i64>,
                  at: &dyn Fn(i64, i64) -> Option<P>| {
        (rows.flat_map(|x| cols.clone().map(move |y| (x, y))))
            .filter_map(|(x, y)| at(x, y))
            .collect::<Vec<P>>()
    };
    let sorted = |p: i64| move |x: i64, y: i64| Some((x.min(y), x.max(y), p));
    assert_eq!(
        lines[0],
        table(square(1..=29, 1..=29, &sorted(0)), &tri, &in_tri)
    );
    assert_eq!(
        lines[1],
        table(square(1..=24, 1..=24, &sorted(0)), &tri, &in_tri)
    );
    assert_eq!(
        lines[2],
        table(square(1..=20, 1..=20, &sorted(1)), &tri, &in_tri)
    );
    let above = |x: i64, y: i64| Some((x.min(y), x.max(y) + 1, 0));
    assert_eq!(
        lines[3],
        table(square(0..=17, 0..=17, &above), &low, &in_low)
    );
    let apart = |x: i64, y: i64| (x != y).then_some((x.min(y), x.max(y), 0));
    assert_eq!(
        lines[4],
        table(square(0..=17, 0..=17, &apart), &low, &in_low)
    );
    assert_eq!(
        lines[5],
        table(square(0..=15, 0..=15, &sorted(0)), &free, &in_free)
    );
    assert_eq!(
        lines[6],
        table(square(1..=9, 1..=25, &sorted(0)), &tri, &in_tri)
    );
    let clamped = |x: i64, y: i64| Some((x.min(5), y, 0));
    assert_eq!(
        lines[7],
        table(square(0..=9, 0..=9, &clamped), &free, &in_free)
    );
    // A square of twins filled whole reads its lines from the half
    // filled (`(max, min)`): asked twice, then a larger square over the
    // same memo, then a rectangle, and under a pass.
    let out = same_both_ways(
        "game ED(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> ED(k, b - k)
            move split_a(k in 1..a) -> ED(k, a - k)
        }
        print [sg(ED(a, b)) for a in 1..=14, b in 1..=14]
        print [sg(ED(a, b)) for a in 1..=14, b in 1..=14]
        print [sg(ED(a, b)) for b in 1..=19, a in 1..=19]
        print [sg(ED(a, b)) for a in 1..=7, b in 1..=19]
        print [sg(pass(ED(a, b))) for a in 1..=15, b in 1..=15]",
    );
    let lines: Vec<&str> = out.lines().collect();
    let ed = |&(a, b, p): &P| -> Vec<P> {
        let mut o: Vec<P> = (1..b).map(|k| (k, b - k, p)).collect();
        o.extend((1..a).map(|k| (k, a - k, p)));
        if p == 1 && !o.is_empty() {
            o.push((a, b, 0));
        }
        o
    };
    let in_ed = |&(a, b, _): &P| a >= 1 && b >= 1;
    let plain = |p: i64| move |x: i64, y: i64| Some((x, y, p));
    let swapped = |x: i64, y: i64| Some((y, x, 0));
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(
        lines[0],
        table(square(1..=14, 1..=14, &plain(0)), &ed, &in_ed)
    );
    assert_eq!(lines[1], lines[0]);
    assert_eq!(
        lines[2],
        table(square(1..=19, 1..=19, &swapped), &ed, &in_ed)
    );
    assert_eq!(
        lines[3],
        table(square(1..=7, 1..=19, &plain(0)), &ed, &in_ed)
    );
    assert_eq!(
        lines[4],
        table(square(1..=15, 1..=15, &plain(1)), &ed, &in_ed)
    );
    // The other way round: `Tri(2, 1)` is outside the `where`, an error
    // with the fast paths on as off.
    let out = same_both_ways(
        "game Tri(a, b) where 1 <= a <= b {
            move eat_a(k in 1..=b / 2) -> Tri(k, b - k)
            move eat_b(k in 1..=a / 2) -> Tri(k, a - k)
        }
        print [sg(Tri(max(a, b), min(a, b))) for a in 1..=6, b in 1..=6]",
    );
    assert!(out.contains("failure"), "{out}");
    // A strict order: the triangle is filled off the diagonal, which the
    // square then asks, outside the `where`: the same error.
    let out = same_both_ways(
        "game Low(a, b) where a >= 0 and b > a {
            move down_b(k in 1..b) -> Low(a, b - k)
        }
        print [sg(Low(min(a, b), max(a, b))) for a in 0..=6, b in 0..=6]",
    );
    assert!(out.contains("failure"), "{out}");
}

#[test]
fn games_symmetric_once_their_results_arguments_are_exchanged_read_twins() {
    // Three-heap Nim with one pass written out (`benches/nim3pass.game`):
    // renaming `a` and `b` turns `take_a` into `take_b` once the results'
    // first two arguments are exchanged, and the pass's guard reads
    // `b + a` for `a + b`; so N3(b, a, c, p) has the value of N3(a, b, c,
    // p). `Lean` weighs `b` twice in its pass: no swap; `Skew` moves `b`
    // further than `a`: no swap. Values against a brute force, the
    // tables asked in both orders, every plan on and off.
    let program = "game N3(a, b, c, p) {
            move take_a(x in 0..a) -> N3(x, b, c, p)
            move take_b(x in 0..b) -> N3(a, x, c, p)
            move take_c(x in 0..c) -> N3(a, b, x, p)
            move pass if p == 1 and a + b + c > 0 -> N3(a, b, c, 0)
        }
        game Lean(a, b, c, p) {
            move take_a(x in 0..a) -> Lean(x, b, c, p)
            move take_b(x in 0..b) -> Lean(a, x, c, p)
            move take_c(x in 0..c) -> Lean(a, b, x, p)
            move pass if p == 1 and a + 2 * b + c > 2 -> Lean(a, b, c, 0)
        }
        game Skew(a, b) where a >= 0 and b >= 0 {
            move x(k in 0..a) -> Skew(k, b)
            move y(k in 0..b) -> Skew(a, k)
            move z if b >= 2 -> Skew(a + 1, b - 2)
        }
        print [sg(N3(a, b, c, p)) for p in 0..=1, a in 0..=7, b in 0..=7, c in 0..=7]
        print [sg(N3(a, b, c, 1)) for c in reversed(list(0..=7)), b in reversed(list(0..=7)), a in reversed(list(0..=7))]
        print [sg(Lean(a, b, c, p)) for p in 0..=1, a in 0..=6, b in 0..=6, c in 0..=6]
        print [sg(Skew(a, b)) for a in 0..=10, b in 0..=10]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    type P4 = (i64, i64, i64, i64);
    let takes = |&(a, b, c, p): &P4| -> Vec<P4> {
        let mut o: Vec<P4> = (0..a).map(|x| (x, b, c, p)).collect();
        o.extend((0..b).map(|x| (a, x, c, p)));
        o.extend((0..c).map(|x| (a, b, x, p)));
        o
    };
    let n3 = |q: &P4| {
        let mut o = takes(q);
        let &(a, b, c, p) = q;
        if p == 1 && a + b + c > 0 {
            o.push((a, b, c, 0));
        }
        o
    };
    let lean = |q: &P4| {
        let mut o = takes(q);
        let &(a, b, c, p) = q;
        if p == 1 && a + 2 * b + c > 2 {
            o.push((a, b, c, 0));
        }
        o
    };
    let mut memo = std::collections::HashMap::new();
    let forward: Vec<i64> = (0..=1)
        .flat_map(|p| {
            (0..=7).flat_map(move |a| (0..=7).flat_map(move |b| (0..=7).map(move |c| (a, b, c, p))))
        })
        .map(|q| brute_sg(&q, &n3, &|_| true, &mut memo))
        .collect();
    assert_eq!(lines[0], shown(&forward));
    let backward: Vec<i64> = (0..=7)
        .rev()
        .flat_map(|c| {
            (0..=7)
                .rev()
                .flat_map(move |b| (0..=7).rev().map(move |a| (a, b, c, 1)))
        })
        .map(|q| brute_sg(&q, &n3, &|_| true, &mut memo))
        .collect();
    assert_eq!(lines[1], shown(&backward));
    let mut memo = std::collections::HashMap::new();
    let lean_values: Vec<i64> = (0..=1)
        .flat_map(|p| {
            (0..=6).flat_map(move |a| (0..=6).flat_map(move |b| (0..=6).map(move |c| (a, b, c, p))))
        })
        .map(|q| brute_sg(&q, &lean, &|_| true, &mut memo))
        .collect();
    assert_eq!(lines[2], shown(&lean_values));
    let skew = |&(a, b): &(i64, i64)| -> Vec<(i64, i64)> {
        let mut o: Vec<(i64, i64)> = (0..a).map(|k| (k, b)).collect();
        o.extend((0..b).map(|k| (a, k)));
        if b >= 2 {
            o.push((a + 1, b - 2));
        }
        o
    };
    let mut memo = std::collections::HashMap::new();
    let skew_values: Vec<i64> = (0..=10)
        .flat_map(|a| (0..=10).map(move |b| (a, b)))
        .map(|q| brute_sg(&q, &skew, &|_| true, &mut memo))
        .collect();
    assert_eq!(lines[3], shown(&skew_values));
    let how = explain(program);
    assert_eq!(how.matches("arguments a and b swap").count(), 1, "{how}");
}

#[test]
fn arguments_read_only_through_a_clamp_take_the_clamped_twins_value() {
    // Fibonacci Nim: `m` enters the moves only as `min(m, n)`, so
    // `Fib(n, m)` for `m >= n` has the options of `Fib(n, n)`. `Cap`
    // reads `m` bare too (its move `grow`), so it may not be clamped.
    let program = "game Fib(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=min(m, n)) -> Fib(n - k, 2 * k)
        }
        game Cap(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=min(m, n)) -> Cap(n - k, 2 * k)
            move grow if m < 3 and n > 0 -> Cap(n - 1, m + 5)
        }
        print [sg(Fib(n, m)) for n in 0..=30, m in 1..=30]
        print [sg(Fib(n, m)) for n in reversed(list(0..=30)), m in reversed(list(1..=30))]
        print [sg(Cap(n, m)) for n in 0..=25, m in 1..=25]";
    let out = same_both_ways(program);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let fib = |&(n, m): &(i64, i64)| -> Vec<(i64, i64)> {
        (1..=m.min(n)).map(|k| (n - k, 2 * k)).collect()
    };
    let cap = |&(n, m): &(i64, i64)| -> Vec<(i64, i64)> {
        let mut o: Vec<(i64, i64)> = (1..=m.min(n)).map(|k| (n - k, 2 * k)).collect();
        if m < 3 && n > 0 {
            o.push((n - 1, m + 5));
        }
        o
    };
    let valid = |&(n, m): &(i64, i64)| n >= 0 && m >= 1;
    let mut memo = std::collections::HashMap::new();
    let forward: Vec<i64> = (0..=30)
        .flat_map(|n| (1..=30).map(move |m| (n, m)))
        .map(|p| brute_sg(&p, &fib, &valid, &mut memo))
        .collect();
    assert_eq!(lines[0], shown(&forward));
    let backward: Vec<i64> = (0..=30)
        .rev()
        .flat_map(|n| (1..=30).rev().map(move |m| (n, m)))
        .map(|p| brute_sg(&p, &fib, &valid, &mut memo))
        .collect();
    assert_eq!(lines[1], shown(&backward));
    let mut memo = std::collections::HashMap::new();
    let capped: Vec<i64> = (0..=25)
        .flat_map(|n| (1..=25).map(move |m| (n, m)))
        .map(|p| brute_sg(&p, &cap, &valid, &mut memo))
        .collect();
    assert_eq!(lines[2], shown(&capped));
    let how = explain(program);
    assert_eq!(
        how.matches("argument m is read only through min(m, ...)")
            .count(),
        1,
        "{how}"
    );
}

#[test]
fn a_guard_bounding_the_binding_clamps_the_range_end_as_min_does() {
    // Fibonacci Nim with the bound as the guard's leading conjunct:
    // `k in 1..=m` with `k <= n` reads `m` only as `min(m, n)`. `Div`
    // puts a conjunct that fails past `n` (a division by zero at
    // `k = n + 1`) before the bound, so a position with `m > n` must not
    // take its clamped twin's value: it fails, as on the general path.
    let program = "game Fib(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=m) if k <= n -> Fib(n - k, 2 * k)
        }
        print [sg(Fib(n, m)) for n in reversed(list(0..=30)), m in reversed(list(1..=30))]";
    let out = same_both_ways(program);
    let fib = |&(n, m): &(i64, i64)| -> Vec<(i64, i64)> {
        (1..=m.min(n)).map(|k| (n - k, 2 * k)).collect()
    };
    let valid = |&(n, m): &(i64, i64)| n >= 0 && m >= 1;
    let mut memo = std::collections::HashMap::new();
    let backward: Vec<i64> = (0..=30)
        .rev()
        .flat_map(|n| (1..=30).rev().map(move |m| (n, m)))
        .map(|p| brute_sg(&p, &fib, &valid, &mut memo))
        .collect();
    assert_eq!(out.trim_end(), shown(&backward));
    let how = explain(program);
    assert!(
        how.contains("argument m is read only through min(m, ...)"),
        "{how}"
    );

    let failing = "game Div(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=m) if 10 / (n + 1 - k) >= 0 and k <= n -> Div(n - k, 2 * k)
        }
        print sg(Div(4, 4))
        print sg(Div(4, 9))";
    let out = same_both_ways(failing);
    assert!(out.contains("division by zero"), "{out}");
    assert!(!explain(
        "game Div(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=m) if 10 / (n + 1 - k) >= 0 and k <= n -> Div(n - k, 2 * k)
        }"
    )
    .contains("read only through min"));
}

/// Arguments affine in the binding however they are written (a product
/// with a constant on either side, terms that cancel) are read as runs
/// through the memo, with the values of the general path and of the
/// theorem: a move to every smaller heap is Nim (sg(n) = n).
#[test]
fn arguments_affine_however_written_are_runs() {
    let program = "game B(n) where n >= 0 {
            move m(k in 1..=n) -> B((n - k) * 2 - n + k * 1 - (0 - 1) * (n - n))
        }
        print [sg(B(n)) for n in 0..=40]";
    let out = same_both_ways(program);
    let nim = format!("{:?}", (0..=40).collect::<Vec<i64>>());
    assert_eq!(out, format!("{nim}\n"));
    let how = explain(program);
    assert!(how.contains("move m: a run read along"), "{how}");
}

/// The values of Wythoff's game, `(a, b)` at `a * (n + 1) + b` for `0 <= a,
/// b <= n`, by plain loops; with `pass`, of its one-time pass compound
/// (the pass, to the same position without it, from any position with
/// a move).
fn wythoff_by_loops(n: usize, pass: bool) -> Vec<u64> {
    let w = n + 1;
    let mex = |options: &mut dyn Iterator<Item = u64>| {
        let seen: std::collections::HashSet<u64> = options.collect();
        (0..).find(|v| !seen.contains(v)).unwrap()
    };
    let mut layers = vec![vec![0u64; w * w]];
    for p in 0..=pass as usize {
        let mut g = vec![0u64; w * w];
        for a in 0..=n {
            for b in 0..=n {
                let row = (1..=a).map(|k| g[(a - k) * w + b]);
                let column = (1..=b).map(|k| g[a * w + b - k]);
                let diagonal = (1..=a.min(b)).map(|k| g[(a - k) * w + b - k]);
                let passed = (p == 1 && a + b > 0).then(|| layers[0][a * w + b]);
                let mut options = row.chain(column).chain(diagonal).chain(passed);
                g[a * w + b] = mex(&mut options);
            }
        }
        layers[p] = g;
        layers.push(vec![]);
    }
    layers.swap_remove(pass as usize)
}

#[test]
fn values_that_grow_past_250_agree_with_plain_loops() {
    // Values past the memo's bytes (read from its 16-bit codes) in every
    // run of a kernel: Wythoff's row, column and diagonal (values to about
    // 1.6 n), its pass compound's two layers, and a take run and a split
    // run whose values reach the heap's size and whose xors pass it.
    let wythoff = "game W(a, b) where a >= 0 and b >= 0 {
            move row(k in 1..=a) -> W(a - k, b)
            move column(k in 1..=b) -> W(a, b - k)
            move diagonal(k in 1..=min(a, b)) -> W(a - k, b - k)
        }";
    // The diagonal's `min(a, b)` keeps its options in the `where`.
    let diagonal = explain(&format!("{wythoff}\nprint sg(W(2, 3))"));
    let diagonal = diagonal.lines().find(|l| l.contains("move diagonal"));
    assert!(
        diagonal.is_some_and(|l| l.contains("2 conjunct(s) of the result's `where` guaranteed"))
    );
    let (n, m) = (190, 130);
    let out = run(
        &format!(
            "{wythoff}
            print [sg(W(a, b)) for a in 0..={n}, b in 0..={n}]
            print [sg(pass(W(a, b))) for a in 0..={m}, b in 0..={m}]
            print sg(W({n} + 7, 3))"
        ),
        true,
    );
    let show = |xs: &[u64]| format!("{xs:?}").replace(' ', "");
    let plain = wythoff_by_loops(n + 7, false);
    let lines: Vec<String> = out.lines().map(|l| l.replace(' ', "")).collect();
    let square: Vec<u64> = (0..=n)
        .flat_map(|a| (0..=n).map(move |b| (a, b)))
        .map(|(a, b)| plain[a * (n + 8) + b])
        .collect();
    assert!(square.iter().any(|&v| v > 250), "values past the bytes");
    assert_eq!(lines[0], show(&square));
    assert_eq!(lines[1], show(&wythoff_by_loops(m, true)));
    assert_eq!(lines[2], plain[(n + 7) * (n + 8) + 3].to_string());
    let heaps = 1500;
    let mut g = vec![0u64; heaps + 1];
    for h in 0..=heaps {
        let take = (1..=h).map(|k| g[h - k]);
        let split = (1..h).filter(|&a| a <= h - a).map(|a| g[a] ^ g[h - a]);
        let seen: std::collections::HashSet<u64> = take.chain(split).collect();
        g[h] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    let out = run(
        &format!(
            "game H(n) where n >= 0 {{
                move take(k in 1..=n) -> H(n - k)
                move split(a in 1..n) if a <= n - a -> H(a) + H(n - a)
            }}
            print [sg(H(n)) for n in 0..={heaps}]
            print sg(H({heaps}))"
        ),
        true,
    );
    assert!(g.iter().any(|&v| v > 1000));
    assert_eq!(
        out.replace(' ', ""),
        format!("{}\n{}\n", show(&g), g[heaps])
    );
}
