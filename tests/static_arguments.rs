//! Games compiled for an instance's static arguments (`compile/specialize.rs`):
//! an instance whose static arguments are not all integers (a function, a
//! set, a list) is compiled with them put in. Every program below must
//! print the same output, and fail with the same error, with that (and the
//! kernels it allows) on and off, and agree with the game written with the
//! argument in place.

use crate::common;

use common::same_both_ways;
use grundy::{Limits, Session};

/// The chocolate bar games of the paper (`examples/chocolate_bar`) with
/// the bound `F` a static argument, and the same game with it written in.
const CHOCOLATE: &str = "
game CB[F](x, y, z) where x >= 0 and z >= 0 and 0 <= y <= F(x, z) {
    move cut_x(u in 0..x) -> CB[F](u, min(F(u, z), y), z)
    move cut_y(v in 0..y) -> CB[F](x, v, z)
    move cut_z(w in 0..z) -> CB[F](x, min(y, F(x, w)), w)
}
fn F1(x, z) = (x + z) / 3
fn F2(x, z) = z / 2
fn lift[h](x, z) = h(z)
fn half(z) = z / 2
game Choc(x, y, z) where x >= 0 and z >= 0 and 0 <= y <= (x + z) / 3 {
    move cut_x(u in 0..x) -> Choc(u, min((u + z) / 3, y), z)
    move cut_y(v in 0..y) -> Choc(x, v, z)
    move cut_z(w in 0..z) -> Choc(x, min(y, (x + w) / 3), w)
}
";

#[test]
fn a_function_argument_gives_the_values_of_the_game_written_with_it() {
    let text = format!(
        "{CHOCOLATE}
        print [sg(CB[F1](x, y, z)) for x in 0..=9, z in 0..=9, y in 0..=F1(x, z)]
        print [sg(CB[F2](x, y, z)) for x in 0..=9, z in 0..=9, y in 0..=F2(x, z)]
        print [sg(CB[lift[half]](x, y, z)) for x in 0..=6, z in 0..=9, y in 0..=half(z)]
        assert all(sg(CB[F1](x, y, z)) == sg(Choc(x, y, z)) for x in 0..=12, z in 0..=12, y in 0..=F1(x, z))
        assert all(sg(CB[F2](x, y, z)) == sg(CB[lift[half]](x, y, z)) for x in 0..=8, z in 0..=8, y in 0..=half(z))"
    );
    let out = same_both_ways(&text);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // Asked the other way round (largest first: the search, not a sweep).
    let reversed = format!(
        "{CHOCOLATE}
        assert all(sg(CB[F1](x, y, z)) == sg(Choc(x, y, z)) for x in reversed(list(0..=10)), z in reversed(list(0..=10)), y in 0..=F1(x, z))"
    );
    assert!(!same_both_ways(&reversed).contains("failure"));
}

#[test]
fn set_and_list_arguments_and_moves_to_other_instances() {
    let out = same_both_ways(
        "game Sub[S](n) where n >= 0 {
            move take(k in S) if k <= n -> Sub[S](n - k)
        }
        game CB2L[hs](y, z) where 0 <= z < len(hs) and 0 <= y <= hs[z] {
            move cut_y(v in 0..y) -> CB2L[hs](v, z)
            move cut_z(w in 0..z) -> CB2L[hs](min(y, hs[w]), w)
        }
        game Swap[f, g](n) where n >= 0 {
            move down(k in 1..=n) -> Swap[g, f](f(n, k))
        }
        game C2(y, z) where 0 <= z < 8 and 0 <= y <= [3, 1, 4, 1, 5, 9, 2, 6][z] {
            move cut_y(v in 0..y) -> C2(v, z)
            move cut_z(w in 0..z) -> C2(min(y, [3, 1, 4, 1, 5, 9, 2, 6][w]), w)
        }
        game K[f](n) where n >= 0 { move m(k in 1..=n) -> K[f](f(n, k)) }
        fn over(n, k) = n - 2 * k
        fn minus(n, k) = n - k
        fn half_minus(n, k) = (n - k) / 2
        print [sg(Sub[{1, 3, 4}](n)) for n in 0..40]
        print [sg(Sub[{2, 5}](n)) for n in reversed(list(0..40))]
        print [sg(CB2L[[3, 1, 4, 1, 5, 9, 2, 6]](y, z)) for z in 0..8, y in 0..=[3, 1, 4, 1, 5, 9, 2, 6][z]]
        print [sg(Swap[minus, half_minus](n)) for n in 0..30]
        assert all(sg(CB2L[[3, 1, 4, 1, 5, 9, 2, 6]](y, z)) == sg(C2(y, z)) for z in 0..8, y in 0..=[3, 1, 4, 1, 5, 9, 2, 6][z])
        # Results below 0 break the `where` in the result itself: dropped.
        # Moving to n - 2k is Nim on a heap of n / 2.
        assert all(sg(K[over](n)) == n / 2 for n in 0..30)",
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(!out.contains("failure"), "{out}");
    // Subtraction {1, 3, 4}: period 7, 0 1 0 1 2 3 2.
    let first = out.lines().next().unwrap();
    let values: Vec<&str> = first.trim_matches(['[', ']']).split(", ").collect();
    let period = ["0", "1", "0", "1", "2", "3", "2"];
    assert!(
        values.iter().enumerate().all(|(n, v)| *v == period[n % 7]),
        "{first}"
    );
}

#[test]
fn integer_arguments_swept_give_the_values_of_the_game_written_with_them() {
    let out = same_both_ways(
        "game Two[a, b](n) where n >= 0 {
            move take(k in {a, b}) if k <= n -> Two[a, b](n - k)
        }
        game OneFour(n) where n >= 0 {
            move take(k in {1, 4}) if k <= n -> OneFour(n - k)
        }
        let A = 1
        print [sg(Two[A, 4](n)) for n in 0..30]
        print [sg(Two[2, 3](n)) for n in reversed(list(0..30))]
        assert all(sg(Two[1, 4](n)) == sg(OneFour(n)) for n in 0..2000)
        # Subtraction {1, 4}: period 5, 0 1 0 1 2.
        assert all(sg(Two[1, 4](n)) == [0, 1, 0, 1, 2][n % 5] for n in 0..2000)
        # The same instance asked again after the sweep, and its explanation.
        print sg(Two[1, 4](1999)), outcome(Two[1, 4](10))",
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
    assert!(out.starts_with("[0, 1, 0, 1, 2, 0, 1, 0, 1, 2,"), "{out}");
}

#[test]
fn errors_in_code_of_static_arguments_are_the_same() {
    for text in [
        // A function with the wrong number of arguments.
        "game G[f](n) where n >= 0 { move m(k in 1..=n) -> G[f](f(n, k)) }
        fn one(a) = a - 1
        print sg(G[one](3))",
        // A function used as an integer.
        "game H[f](n) where n >= 0 { move m if n > 0 -> H[f](n - f) }
        fn one(a) = a - 1
        print sg(H[one](3))",
        // An index past the end of a list argument.
        "game L[hs](n) where n >= 0 { move m(k in 0..n) -> L[hs](hs[k] + len(hs) - 4) }
        print [sg(L[[0, 1, 0, 2]](n)) for n in 0..8]",
        // Division by zero by an integer argument, in a sweep.
        "game Z[a](n) where n >= 0 { move m(k in 0..n) -> Z[a](k / (n - a)) }
        print [sg(Z[4](n)) for n in 0..10]",
        // Division by zero in the function, reached by some positions only.
        "game D[f](n) where n >= 0 { move m(k in 0..n) -> D[f](f(n, k)) }
        fn odd(n, k) = k / (n - 5)
        print [sg(D[odd](n)) for n in 0..10]",
    ] {
        let out = same_both_ways(text);
        assert!(out.contains("failure"), "{out}");
    }
}

#[test]
fn explain_shows_each_instance_compiled_for_its_arguments() {
    let mut session = Session::new(Limits::default());
    session.explain_games = true;
    let mut out = Vec::new();
    let text = format!("{CHOCOLATE}\nprint sg(CB[F1](3, 1, 4)), sg(CB[F2](3, 1, 4))\n");
    let result = session.run("explain", &text, &mut out);
    assert!(result.failures.is_empty(), "{:?}", result.failures);
    let out = String::from_utf8(out).unwrap();
    // The game as written: the calls of `F` are not integer code, so the
    // two moves making them run on the general path beside `cut_y`.
    assert!(
        out.contains("game CB: kernel") && out.contains("; 2 move(s) on the general path"),
        "{out}"
    );
    assert!(
        out.contains("move cut_x: general path: argument 2 of its result is not integer code"),
        "{out}"
    );
    assert!(
        out.contains("static arguments: an instance with integer ones"),
        "{out}"
    );
    // Each instance used, compiled for its function, runs on a kernel.
    // `F2` ignores its first argument: `min(F2(u, z), y)`, read on the
    // integer tree with `F2` put in place, does not depend on `u`, so
    // that instance's `cut_x` is a strided run where `F1`'s bends.
    assert!(out.contains("game CB[F1]: kernel"), "{out}");
    assert!(
        out.contains("game CB[F2]: kernel")
            && out.contains("  move cut_x: a strided run through the memo"),
        "{out}"
    );
    let one = session.explain(Some("CB")).unwrap();
    assert!(
        one.contains("game CB[F1]: kernel") && one.contains("  where: integer code"),
        "{one}"
    );
}

#[test]
fn explain_names_instances_of_one_plan_after_the_first() {
    let out = common::explain(
        "game Sub[S](n) where n >= 0 {
            move take(k in S) if k <= n -> Sub[S](n - k)
        }
        game Pick[S](n) where n >= 0 {
            move take(k in S) if k <= n -> Pick[S](n - k)
            move half if n >= 2 -> Pick[S](n / 2)
        }
        print [sg(Sub[{1, 2}](9)), sg(Sub[{1, 3}](9)), sg(Sub[{2, 3}](9)),
               sg(Sub[{1, 4}](9)), sg(Sub[{3, 4}](9))]
        print sg(Pick[{1}](9)), sg(Pick[{2}](9))",
    );
    // One plan each: the first instance in full, the others counted, the
    // first few named.
    assert_eq!(out.matches("game Sub[{").count(), 1, "{out}");
    assert!(
        out.contains(
            "  the same for 4 more instances: Sub[{1, 3}], Sub[{2, 3}], Sub[{1, 4}], ...\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  the same for 1 more instance: Pick[{2}]\n"),
        "{out}"
    );
}
