//! Games whose moves are planned one by one (issue 33): a move of no
//! kernel form (a guard or an argument integer code cannot read) runs on
//! the general path by its own code while the game's other moves stay on
//! kernel code. Values and errors must be the general path's; `--explain`
//! names each move's plan or its refusal.

use crate::common;

use common::{explain, same_both_ways};

/// Subtract-a-square with one more move, by 7, that only the general path
/// runs (its guard reads `str(k)`).
const SQUARES_AND_SEVEN: &str = "game G(n) where n >= 0 {
    move square(k in 1..=n) if k * k <= n -> G(n - k * k)
    move seven(k in 1..=min(n, 9)) if str(k) == \"7\" -> G(n - k)
}";

/// The mex of `values` at the indices `n - d` for each distance `d`.
fn mex_of(values: &[u64], n: usize, distances: impl Iterator<Item = usize>) -> u64 {
    let seen: Vec<u64> = distances
        .filter(|&d| d <= n)
        .map(|d| values[n - d])
        .collect();
    (0..).find(|v| !seen.contains(v)).expect("a mex")
}

#[test]
fn a_mixed_game_has_the_values_of_a_brute_force() {
    let top = 400;
    let mut values = Vec::new();
    for n in 0..=top {
        let squares = (1..).map(|k: usize| k * k).take_while(|&s| s <= n);
        let v = mex_of(&values, n, squares.chain([7]));
        values.push(v);
    }
    let out = same_both_ways(&format!(
        "{SQUARES_AND_SEVEN}\nprint [sg(G(n)) for n in 0..={top}]\n\
         print [sg(G(n)) for n in reversed(list(0..={top}))]"
    ));
    let shown = |vs: &mut dyn Iterator<Item = &u64>| {
        let items: Vec<String> = vs.map(|v| v.to_string()).collect();
        format!("[{}]", items.join(", "))
    };
    let want = format!(
        "{}\n{}\n",
        shown(&mut values.iter()),
        shown(&mut values.iter().rev())
    );
    assert_eq!(out, want);
    // The move by 7 matters: without it G(7) would be 1 (options 6, 3).
    assert_ne!(values[7], 1);
}

#[test]
fn explain_names_each_moves_plan_and_refusal_in_a_mixed_game() {
    let out = explain(SQUARES_AND_SEVEN);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("game G: kernel")
            && lines[0].ends_with("; 1 move(s) on the general path, each by its own code"),
        "{out}"
    );
    assert!(
        out.contains("  move square: a run through the memo, 1 argument(s) quadratic"),
        "{out}"
    );
    assert!(
        out.contains("  move seven: general path: its guard is not integer code"),
        "{out}"
    );
    // A game none of whose moves has a kernel form names each refusal.
    let out = explain(
        "game N(n) where n >= 0 {
            move a(k in 1..=n) if str(k) != \"3\" -> N(n - k)
            move b(k in 1..=n) -> N(n - len(str(k)))
            move c(k in 1..=n) -> [N(n - k)][0]
        }",
    );
    assert!(out.contains("game N: general path"), "{out}");
    assert!(
        out.contains("move a: general path: its guard is not integer code"),
        "{out}"
    );
    assert!(
        out.contains("move b: general path: argument 1 of its result is not integer code"),
        "{out}"
    );
    assert!(
        out.contains("move c: general path, each option built as a game value (its result is neither a position nor a sum of positions): its result is not a position of the game itself"),
        "{out}"
    );
}

#[test]
fn a_list_game_keeps_its_keyed_moves_beside_a_general_one() {
    let text = "game L(xs) where all(x >= 0 for x in xs) {
        move take(i in 0..len(xs), k in 1..=xs[i]) -> L(update(xs, i, xs[i] - k))
        move odd(i in 0..len(xs)) if str(xs[i]) == \"3\" -> L(update(xs, i, 0) + [1])
    }";
    let out = explain(text);
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.starts_with("game L: kernel over lists and sets")
                && l.ends_with("; 1 move(s) on the general path, each by its own code")),
        "{out}"
    );
    assert!(out.contains("  move odd: general path"), "{out}");
    // The general move adds a heap of 1 where a heap of 3 is emptied: by
    // hand, L([3]) has the options L([k]) (k < 3, values 0, 1, 2) and
    // L([0, 1]) (value 1), so its value is 3.
    let out = same_both_ways(&format!(
        "{text}\nprint [sg(L([a, b])) for a in 0..=4, b in 0..=4]\nprint sg(L([3]))"
    ));
    assert!(out.ends_with("\n3\n"), "{out}");
}

/// A kernel move whose code fails at one position (a division by zero at
/// `k == 2`) is run there by its code, after a general move: the error is
/// the general path's, at the same place.
#[test]
fn a_kernel_move_failing_at_run_time_gives_the_general_paths_error() {
    let out = same_both_ways(
        "game G(n) where n >= 0 {
            move g(k in 1..=min(n, 2)) if str(k) != \"5\" -> G(n - k)
            move d(k in 1..=min(n, 3)) -> G(n / (k - 2))
        }
        print [sg(G(n)) for n in 0..=1]
        print sg(G(4))",
    );
    assert!(
        out.starts_with("[0, 1]\n") && out.contains("failure") && out.contains("zero"),
        "{out}"
    );
}

/// Compounds and loopy games of a mixed game: layers read the general
/// move's options as they come, the loopy labelling lists them by code.
#[test]
fn compounds_and_cycles_of_a_mixed_game_agree_with_the_general_path() {
    let out = same_both_ways(&format!(
        "{SQUARES_AND_SEVEN}
        print [sg(pass(G(n))) for n in 0..=20]
        print [sg(misere(G(n))) for n in 0..=20]
        print [sg(pass(G(n), 3)) for n in 0..=12]
        print [sg(conjunctive(G(a), G(b))) for a in 0..=6, b in 0..=6]"
    ));
    assert!(!out.contains("failure"), "{out}");
    let out = same_both_ways(
        "game U(n) where 0 <= n <= 12 {
            move down(k in 1..=min(n, 2)) -> U(n - k)
            move up(k in 1..=2) if str(n + k) != \"7\" and n + k <= 12 -> U(n + k)
        }
        print [sg(U(n)) for n in 0..=12]",
    );
    assert!(!out.contains("failure"), "{out}");
}

/// Subtract-a-square and a move to `min(n - k, n / 2)`, both written
/// through helper functions: the planner reads the integer tree, with
/// the helpers put in place, so the guard is a cut, the argument a
/// quadratic run and the `min` a bend, as when written out; the values
/// are a brute force's and the general path's.
#[test]
fn moves_through_helpers_get_the_plans_of_their_bodies() {
    let text = "fn back(a, b) = a - b
fn sq(x) = x * x
fn half(a, b) = a / 2
game G(n) where n >= 0 {
    move square(k in 1..=n) if sq(k) <= n -> G(back(n, sq(k)))
    move halve(k in 1..=n) -> G(min(back(n, k), half(n, k)))
}";
    let out = explain(text);
    assert!(
        out.contains("  move square: a run through the memo, 1 argument(s) quadratic"),
        "{out}"
    );
    assert!(
        out.contains("  move halve: a run through the memo, split where 1 clamped"),
        "{out}"
    );
    let top = 300;
    let mut values = Vec::new();
    for n in 0..=top {
        let squares = (1..).map(|k: usize| k * k).take_while(|&s| s <= n);
        // min(n - k, n / 2) over 1 <= k <= n: every value 0..=n/2.
        let halves = (n - n / 2..=n).filter(|&d| d >= 1);
        values.push(mex_of(&values, n, squares.chain(halves)));
    }
    let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let out = same_both_ways(&format!("{text}\nprint [sg(G(n)) for n in 0..={top}]"));
    assert_eq!(out, format!("[{}]\n", items.join(", ")));
}

/// For a move left on the general path, `--explain` quotes the code the
/// integer tree refused and says why, from the refusal the planner got.
#[test]
fn explain_quotes_the_code_integer_code_refused() {
    let out = explain(
        "let N = 9
        game R(n) where n >= 0 {
            move a(k in 1..=n) if str(k) != \"3\" -> R(n - k)
            move b(k in 1..=n) -> R(n - len(str(k)))
            move c(k in 1..=min(n, N)) -> R(n - k)
        }",
    );
    let guard = "its guard is not integer code (comparisons, `and`, `or`, `not` of integer \
                 arithmetic): `str(k)`: a built-in function integer code does not cover";
    assert!(
        out.contains(&format!("move a: general path: {guard}")),
        "{out}"
    );
    assert!(
        out.contains("lists joined with `+`): `str(k)`: `len` of a value not in a slot"),
        "{out}"
    );
    assert!(
        out.contains("move c: general path: the bounds of `k` are not integer code: `N`: a top-level `let`, read at run time"),
        "{out}"
    );
}

/// A condition written through a helper function is put in place as
/// integer code, as an integer helper is: a `where` and a guard read so
/// get the plans they get written out, and the values of a brute force.
#[test]
fn conditions_through_helper_functions_are_integer_code() {
    let text = "fn ok(a, b) = a >= 0 and b >= 0
        fn fits(k, n) = k * k <= n
        game T(a, b) where ok(a, b) {
            move x(k in 1..=a) -> T(a - k, b)
            move y(k in 1..=b) -> T(a, b - k)
        }
        game S(n) where n >= 0 {
            move take(k in 1..=n) if fits(k, n) -> S(n - k * k)
        }";
    let out = explain(text);
    let lines: Vec<&str> = out.lines().collect();
    let t = lines
        .iter()
        .position(|l| l.starts_with("game T:"))
        .expect("T");
    assert!(lines[t].starts_with("game T: kernel"), "{out}");
    assert_eq!(lines[t + 1], "  where: integer code", "{out}");
    assert!(
        out.contains("  move take: a run through the memo, 1 argument(s) quadratic"),
        "{out}"
    );
    assert!(
        out.contains("1 guard conjunct(s) monotone in a binding solved into its range"),
        "{out}"
    );
    // Two heaps of Nim: a xor b; subtract-a-square by its mex.
    let top = 200;
    let mut squares = Vec::new();
    for n in 0..=top {
        let moves = (1..).map(|k: usize| k * k).take_while(|&s| s <= n);
        squares.push(mex_of(&squares, n, moves));
    }
    let nim: Vec<String> = (0..12)
        .flat_map(|a: u64| (0..12).map(move |b| (a ^ b).to_string()))
        .collect();
    let shown: Vec<String> = squares.iter().map(|v| v.to_string()).collect();
    let out = same_both_ways(&format!(
        "{text}\nprint [sg(T(a, b)) for a in 0..12, b in 0..12]\n\
         print [sg(S(n)) for n in 0..={top}]"
    ));
    assert_eq!(
        out,
        format!("[{}]\n[{}]\n", nim.join(", "), shown.join(", "))
    );
}

/// A move whose result chooses by a condition integer code cannot read
/// is on the general path; `--explain` quotes that condition.
#[test]
fn explain_quotes_the_condition_a_choice_refused() {
    let text = "game C(n) where n >= 0 {
            move m(k in 1..=n) -> if str(k) == \"3\" then C(n - 1) else C(n - k)
        }";
    let out = explain(text);
    assert!(
        out.contains(
            "`where` of a position the body writes is not integer code: `str(k)`: a built-in \
             function integer code does not cover"
        ),
        "{out}"
    );
    let top = 60;
    let mut values = Vec::new();
    for n in 0..=top {
        let moves = (1..=n).map(|k| if k == 3 { 1 } else { k });
        values.push(mex_of(&values, n, moves));
    }
    let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let out = same_both_ways(&format!("{text}\nprint [sg(C(n)) for n in 0..={top}]"));
    assert_eq!(out, format!("[{}]\n", shown.join(", ")));
}

/// A `let ... in` in a guard or a helper's body is integer code: its
/// value is put in where its body reads it (`int_tree.rs`). Values
/// against brute forces, and the same with every plan off.
#[test]
fn lets_in_guards_and_helpers_are_integer_code() {
    let text = "fn half(n) = let h = n / 2 in h + n % 2
        fn drop(n, k) = let rest = n - k in rest
        game H(n) where n >= 0 {
            move take(k in 1..=half(n)) -> H(drop(n, k))
        }
        game Q(n) where n >= 0 {
            move sq(k in 1..=n) if (let s = k * k in s <= n) -> Q(n - k * k)
        }";
    let out = explain(text);
    for (game, plan) in [
        ("  move take: ", "a run read along the position's own line"),
        ("  move sq: ", "guard conjunct(s) monotone in a binding"),
    ] {
        let line = (out.lines().find(|l| l.starts_with(game))).expect("the move's line");
        assert!(line.contains(plan), "{out}");
    }
    // H takes 1..=ceil(n / 2) from n; Q subtracts a square.
    let top = 150;
    let (mut h, mut q) = (Vec::new(), Vec::new());
    for n in 0..=top {
        h.push(mex_of(&h, n, 1..=n.div_ceil(2)));
        let squares = (1..).map(|k: usize| k * k).take_while(|&s| s <= n);
        q.push(mex_of(&q, n, squares));
    }
    let shown = |v: &[u64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let out = same_both_ways(&format!(
        "{text}\nprint [sg(H(n)) for n in 0..={top}]\nprint [sg(Q(n)) for n in 0..={top}]"
    ));
    assert_eq!(out, format!("[{}]\n[{}]\n", shown(&h), shown(&q)));
}

/// A `let` whose value can fail is put in place only where its body
/// reads it on every path (`D1`'s guard; not `D2`'s, whose `or` may skip
/// it): the general path evaluates the value first and reports its
/// error, and so do both games, with the plans on as with them off.
#[test]
fn a_let_whose_value_fails_keeps_its_error() {
    for (game, guard) in [("D1", "q >= 0 or k > 1"), ("D2", "k > 1 or q >= 0")] {
        let text = format!(
            "game {game}(n) where n >= 0 {{
                move m(k in 1..=n) if (let q = 12 / (n - 3) in {guard}) -> {game}(n - k)
            }}"
        );
        let out = same_both_ways(&format!("{text}\nprint sg({game}(5))"));
        assert!(out.contains("division by zero in `12 / 0`"), "{out}");
        let plan = explain(&text);
        let kernel = game == "D1";
        assert_eq!(plan.contains("move m: general path"), !kernel, "{plan}");
    }
}
