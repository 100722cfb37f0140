//! `pass(G(x), n)` and `misere(G(x))` of a game with a kernel run as
//! layers of that game (`src/eval/search/layered.rs`). Generated games of
//! several shapes (one integer, two integers, a sorted list; moves to the
//! zero game, to sums, moves that fail, cycles) under each compound must
//! print the same values and fail with the same errors with the layers on
//! and off (the product search), and a subtraction game's layers must
//! agree with a brute force.

use crate::common;

use common::{explain, run_with};
use grundy::{Limits, Plans};
use proptest::prelude::*;

/// The output of `text` with compound layers on and off, asserted equal.
fn same_with_and_without_layers(text: &str) -> String {
    let run = |compound_layers| {
        run_with(
            text,
            Limits {
                plans: Plans {
                    compound_layers,
                    ..Plans::ALL
                },
                max_states: 2_000_000,
                ..Limits::default()
            },
        )
    };
    let (on, off) = (run(true), run(false));
    assert_eq!(
        on, off,
        "layers on (left) and off (right) differ for\n{text}"
    );
    on
}

/// The queries asked of the game `G` (positions written by `pos`, over
/// `range`): every compound the layers run, asked in both orders (the
/// first needs the search's stack, the second reads known options), and
/// the questions built on values.
fn queries(pos: &str, range: &str) -> String {
    format!(
        "print [sg(pass({pos})) for x in reversed(list({range}))]
        print [sg(misere({pos})) for x in reversed(list({range}))]
        print [sg(pass({pos}, 2)) for x in {range}]
        print [sg(pass({pos}, 3)) for x in reversed(list({range}))]
        print [outcome(misere({pos})) for x in {range}]
        print [len(winning(pass({pos}))) for x in {range}]
        print [sg(pass({pos})) + sg(misere({pos})) for x in {range}]"
    )
}

/// A game of one integer: a run of takes, a single move, maybe a move to
/// the zero game, to a sum, one that fails, or one that climbs (a cycle).
fn one_integer() -> impl Strategy<Value = String> {
    (1i64..5, 1i64..4, 0i64..3, 2i64..6, 0usize..5).prop_map(|(cap, m, r, step, extra)| {
        let extra = match extra {
            0 => String::new(),
            1 => format!("move done if n == {step} -> 0"),
            2 => format!("move split if n >= {step} -> G(1) + G(n - {step})"),
            3 => format!(
                "move fail if n == {} -> G(n / (n - {}))",
                step + 3,
                step + 3
            ),
            _ => format!("move up if n == {step} -> G(n + 1)"),
        };
        format!(
            "game G(n) where n >= 0 {{
                move take(k in 1..=min(n, {cap})) -> G(n - k)
                move jump if n % {} == {r} and n >= {step} -> G(n - {step})
                {extra}
            }}
            {}",
            m + 1,
            queries("G(x)", "0..=14")
        )
    })
}

/// A game of two integers: runs along each coordinate, one with a
/// stride, and a move that swaps them.
fn two_integers() -> impl Strategy<Value = String> {
    (1i64..4, 1i64..3, any::<bool>(), any::<bool>()).prop_map(|(cap, d, swap, zero)| {
        let swap = if swap {
            "move swap if a > b -> G(b, a - 1)"
        } else {
            ""
        };
        let zero = if zero {
            "move end if a == 1 and b == 1 -> 0"
        } else {
            ""
        };
        format!(
            "game G(a, b) where a >= 0 and b >= 0 {{
                move left(k in 1..=a) if k <= {cap} -> G(a - k, b)
                move down(k in 1..=b / {d}) -> G(a, b - {d} * k)
                {swap}
                {zero}
            }}
            {}",
            queries("G(x % 5, x / 5)", "0..=19")
        )
    })
}

/// A game of a sorted list: lower one item by up to `cap`.
fn list_position() -> impl Strategy<Value = String> {
    (1i64..4, any::<bool>()).prop_map(|(cap, remove)| {
        let remove = if remove {
            "move drop(i in 0..len(xs)) if xs[i] == 1 -> L(xs[..i] + xs[i + 1..])"
        } else {
            ""
        };
        format!(
            "game L(xs) {{
                move take(i in 0..len(xs), k in 1..=xs[i]) if k <= {cap} -> L(sorted(update(xs, i, xs[i] - k)))
                {remove}
            }}
            {}",
            queries("L([x % 3, x / 3])", "0..=11")
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn one_integer_games_under_compounds(text in one_integer()) {
        let out = same_with_and_without_layers(&text);
        prop_assert!(out.lines().count() >= 1);
    }

    #[test]
    fn two_integer_games_under_compounds(text in two_integers()) {
        let out = same_with_and_without_layers(&text);
        prop_assert!(out.lines().count() == 7 && !out.contains("failure"), "{}", out);
    }

    #[test]
    fn list_games_under_compounds(text in list_position()) {
        let out = same_with_and_without_layers(&text);
        prop_assert!(out.lines().count() == 7 && !out.contains("failure"), "{}", out);
    }
}

/// The values of `pass(S(n), passes)` and `misere(S(n))` for the
/// subtraction game with set `set`, by the definitions, without the
/// evaluator.
fn brute(set: &[i64], n_max: usize, passes: usize) -> (Vec<Vec<u64>>, Vec<u64>) {
    let mex = |vals: &mut Vec<u64>| {
        vals.sort_unstable();
        let mut m = 0;
        for &v in vals.iter() {
            if v == m {
                m += 1;
            }
        }
        m
    };
    let options = |n: usize| -> Vec<usize> {
        set.iter()
            .filter(|&&s| s as usize <= n)
            .map(|&s| n - s as usize)
            .collect()
    };
    // layer[j][n]: n with j passes left (j = 0: the plain game).
    let mut layer = vec![vec![0u64; n_max + 1]; passes + 1];
    for j in 0..=passes {
        for n in 0..=n_max {
            let mut vals: Vec<u64> = options(n).iter().map(|&o| layer[j][o]).collect();
            if j > 0 && !options(n).is_empty() {
                vals.push(layer[j - 1][n]);
            }
            layer[j][n] = mex(&mut vals);
        }
    }
    let mut misere = vec![0u64; n_max + 1];
    for n in 0..=n_max {
        let opts = options(n);
        misere[n] = if opts.is_empty() {
            1
        } else {
            mex(&mut opts.iter().map(|&o| misere[o]).collect())
        };
    }
    (layer, misere)
}

#[test]
fn subtraction_games_under_pass_and_misere_match_a_brute_force() {
    for set in [vec![1, 2], vec![2, 5, 6], vec![1, 3, 4], vec![3]] {
        let n_max = 60;
        let (layer, misere) = brute(&set, n_max, 3);
        let moves: Vec<String> = set
            .iter()
            .map(|s| format!("move t{s} if n >= {s} -> S(n - {s})"))
            .collect();
        let text = format!(
            "game S(n) where n >= 0 {{ {} }}
            print [sg(pass(S(n), j)) for j in 1..=3, n in reversed(list(0..={n_max}))]
            print [sg(misere(S(n))) for n in 0..={n_max}]",
            moves.join("\n")
        );
        let out = same_with_and_without_layers(&text);
        let show = |v: &[u64]| {
            let items: Vec<String> = v.iter().map(u64::to_string).collect();
            format!("[{}]", items.join(", "))
        };
        let passes: Vec<u64> = (1..=3)
            .flat_map(|j| layer[j].iter().rev().copied().collect::<Vec<_>>())
            .collect();
        assert_eq!(
            out,
            format!("{}\n{}\n", show(&passes), show(&misere)),
            "{set:?}"
        );
    }
}

/// Empty-and-Divide under `pass(.., passes)`, `ed[j][a][b]` with `j`
/// passes left, by the definitions (a move empties one pile and splits
/// the other), without the evaluator.
fn brute_empty_divide(n: usize, passes: usize) -> Vec<Vec<Vec<u64>>> {
    let mut ed = vec![vec![vec![0u64; n + 1]; n + 1]; passes + 1];
    // By the sum of the piles: every option's is smaller.
    let by_sum = (2..=2 * n).flat_map(|s| (1..s).map(move |a| (a, s - a)));
    let positions: Vec<(usize, usize)> = by_sum.filter(|&(a, b)| a <= n && b <= n).collect();
    for j in 0..=passes {
        for &(a, b) in &positions {
            let splits = (1..b).map(|k| (k, b - k)).chain((1..a).map(|k| (k, a - k)));
            let mut vals: Vec<u64> = splits.map(|(x, y)| ed[j][x][y]).collect();
            if j > 0 && !vals.is_empty() {
                vals.push(ed[j - 1][a][b]);
            }
            ed[j][a][b] = (0..).find(|v| !vals.contains(v)).expect("a mex");
        }
    }
    ed
}

#[test]
fn two_integer_tables_under_pass_asked_in_order_match_a_brute_force() {
    // Asked in order, each compound's position finds its options and its
    // pass (the position in the layer below, valued first) known.
    let n = 14;
    let out = same_with_and_without_layers(&format!(
        "game E(a, b) where a >= 1 and b >= 1 {{
            move split_b(k in 1..b) -> E(k, b - k)
            move split_a(k in 1..a) -> E(k, a - k)
        }}
        print [sg(pass(E(a, b))) for a in 1..={n}, b in 1..={n}]
        print [sg(pass(E(a, b), 2)) for a in 1..={n}, b in 1..={n}]"
    ));
    let ed = brute_empty_divide(n, 2);
    let row = |j: usize| {
        let items: Vec<String> = (1..=n)
            .flat_map(|a| (1..=n).map(move |b| (a, b)))
            .map(|(a, b)| ed[j][a][b].to_string())
            .collect();
        format!("[{}]", items.join(", "))
    };
    assert_eq!(out, format!("{}\n{}\n", row(1), row(2)));
}

#[test]
fn explain_names_the_plan_of_each_compound() {
    let out = explain(
        "game H(n) where n >= 0 { move t(k in 1..=n) -> H(n - k) }
        game K(n) where n >= 0 {
            move knock(k in {1, 2}, a in 0..=n - k) -> K(a) + K(n - k - a)
        }
        print sg(pass(H(5))), sg(misere(H(4))), sg(misere(K(5))), sg(pass(H(2) + H(3)))",
    );
    assert!(
        out.contains(
            "compound pass(H): as layers of H (on its kernel), a memo per number of passes left"
        ),
        "{out}"
    );
    assert!(
        out.contains("compound misere(H): as a layer of H (on its kernel)"),
        "{out}"
    );
    assert!(
        out.contains("compound misere(K): product search (a move of its game leads to a sum"),
        "{out}"
    );
    assert!(
        out.contains("compound pass of 1 part not one position: product search"),
        "{out}"
    );
    // Two integers, and a list (its `drop` on the general path: the slice
    // has no kernel form; `take` on the kernel).
    let out = explain(
        "game E(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> E(k, b - k)
            move split_a(k in 1..a) -> E(k, a - k)
        }
        game L(xs) {
            move take(i in 0..len(xs), k in 1..=xs[i]) -> L(sorted(update(xs, i, xs[i] - k)))
            move drop(i in 0..len(xs)) if xs[i] == 1 -> L(xs[..i] + xs[i + 1..])
        }
        print sg(pass(E(4, 5), 2)), sg(misere(L([2, 3, 1])))",
    );
    assert!(
        out.contains("compound pass(E, 2): as layers of E (on its kernel)"),
        "{out}"
    );
    assert!(
        out.contains("move drop: general path: argument 1 of its result is not integer code"),
        "{out}"
    );
    assert!(
        out.contains("compound misere(L): as a layer of L (on its kernel)"),
        "{out}"
    );
    // A move that fails: the product search reports it.
    let out = common::run(
        "game F(n) where n >= 0 {
            move t(k in 1..=min(n, 2)) -> F(n - k)
            move f if n == 3 -> F(n / (n - 3))
        }
        print sg(pass(F(6)))",
        true,
    );
    assert!(out.contains("division by zero"), "{out}");
}

/// The tables of compounds asked of `pos` (a position reading the swept
/// binding, and `j`, an outer loop over pass counts): the body and the
/// loops before the swept one.
const COMPOUND_TABLES: [(&str, &str); 5] = [
    ("sg(pass({pos}))", ""),
    ("sg(misere({pos}))", ""),
    ("sg(pass({pos}, j))", "j in 1..=3, "),
    ("sg(pass({pos}, 2)) + sg(misere({pos}))", ""),
    ("outcome(misere({pos})) == N", ""),
];

/// Each table of `COMPOUND_TABLES` of `pos` in `game`, its last loop
/// `last in range`, asked over the range (swept on the compound's layer,
/// `compile/sweep.rs`) and over a list of it (not swept, each element a
/// query), each with every plan on and with none: all four must print
/// the same. The tables' lines.
fn swept_and_unswept(game: &str, pos: &str, outer: &str, last: &str) -> String {
    let mut out = String::new();
    for (body, loops) in COMPOUND_TABLES {
        let body = body.replace("{pos}", pos);
        let swept = format!("{game}\nprint [{body} for {loops}{outer}{last}]");
        let (binding, range) = last.split_once(" in ").expect("a loop");
        let unswept =
            format!("{game}\nprint [{body} for {loops}{outer}{binding} in list({range})]");
        let on = common::same_both_ways(&swept);
        assert_eq!(on, common::same_both_ways(&unswept), "{swept}");
        out += &on;
    }
    out
}

/// A game of one integer under a `where`: a run of takes or single
/// takes (all moves then strides, which the sweep's plain loop reads),
/// a move by a stride, maybe a move to the zero game or one the `where`
/// drops.
fn swept_one_integer() -> impl Strategy<Value = String> {
    (1i64..5, 2i64..5, 0i64..3, 0usize..3, any::<bool>()).prop_map(
        |(cap, step, low, extra, singles)| {
            let extra = match extra {
                0 => String::new(),
                1 => format!("move done if n == {step} -> 0"),
                _ => "move under(k in 1..=2) -> G(n - 3 * k)".to_string(),
            };
            let take = match singles {
                true => format!(
                    "move one if n >= 1 -> G(n - 1)\nmove cap if n >= {cap} -> G(n - {cap})"
                ),
                false => format!("move take(k in 1..=min(n, {cap})) -> G(n - k)"),
            };
            let game = format!(
                "game G(n) where n >= {low} {{
                {take}
                move jump if n >= {step} -> G(n - {step})
                {extra}
            }}"
            );
            swept_and_unswept(&game, "G(x)", "", &format!("x in {low}..=24"))
        },
    )
}

/// A game of two integers under a `where` (Empty-and-Divide, or runs
/// along each coordinate), its table swept along either coordinate,
/// starting inside the `where` or outside it (an error, the same).
fn swept_two_integers() -> impl Strategy<Value = String> {
    (any::<bool>(), any::<bool>(), 0i64..2, 1i64..3).prop_map(|(divide, by_b, start, cap)| {
        let game = if divide {
            "game G(a, b) where a >= 1 and b >= 1 {
                move split_b(k in 1..b) -> G(k, b - k)
                move split_a(k in 1..a) -> G(k, a - k)
            }"
            .to_string()
        } else {
            format!(
                "game G(a, b) where a >= 1 and b >= 0 {{
                    move left(k in 1..a) if k <= {cap} -> G(a - k, b)
                    move down(k in 1..=b) -> G(a, b - k)
                }}"
            )
        };
        let (outer, last) = match by_b {
            true => ("a in 1..=7, ".to_string(), format!("b in {start}..=8")),
            false => ("b in 1..=7, ".to_string(), format!("a in {start}..=8")),
        };
        swept_and_unswept(&game, "G(a, b)", &outer, &last)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn compound_tables_swept_agree_with_their_queries(
        one in swept_one_integer(),
        two in swept_two_integers(),
    ) {
        prop_assert!(one.lines().count() == COMPOUND_TABLES.len(), "{}", one);
        prop_assert!(two.lines().count() >= 1, "{}", two);
    }
}

#[test]
fn a_compound_table_swept_matches_a_brute_force_and_is_explained() {
    // Empty-and-Divide under one and two passes, by a brute force; and
    // `--explain` names the layers of the swept table.
    let n = 12;
    let game = "game E(a, b) where a >= 1 and b >= 1 {
            move split_b(k in 1..b) -> E(k, b - k)
            move split_a(k in 1..a) -> E(k, a - k)
        }";
    let out = common::same_both_ways(&format!(
        "{game}
        print [sg(pass(E(a, b), j)) for j in 1..=2, a in 1..={n}, b in 1..={n}]"
    ));
    let ed = brute_empty_divide(n, 2);
    let items: Vec<String> = (1..=2)
        .flat_map(|j| (1..=n).flat_map(move |a| (1..=n).map(move |b| (j, a, b))))
        .map(|(j, a, b)| ed[j][a][b].to_string())
        .collect();
    assert_eq!(out, format!("[{}]\n", items.join(", ")));
    let out = explain(&format!(
        "{game}
        print histogram(sg(pass(E(a, b))) for a in 1..=6, b in 1..=6)"
    ));
    assert!(
        out.contains("compound pass(E): as layers of E (on its kernel)"),
        "{out}"
    );
}
