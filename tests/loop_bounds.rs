//! Bindings and guards as loop bounds (`src/eval/compile/guard_bounds.rs`)
//! and top-level constants read as values (`src/eval/compile/specialize.rs`):
//! every program prints the same values, and fails with the same error,
//! with the fast paths on and off; values are also checked against a
//! plain recursion written here.

use crate::common;

use common::{explain, same_both_ways, same_both_ways_with};
use grundy::Limits;

/// The least value not among `values`.
fn mex(values: impl IntoIterator<Item = u64>) -> u64 {
    let seen: std::collections::HashSet<u64> = values.into_iter().collect();
    (0..).find(|v| !seen.contains(v)).unwrap()
}

fn list(values: &[u64]) -> String {
    let items: Vec<String> = values.iter().map(u64::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// The values of heaps 0..=n of the game whose options from `h` are
/// `options(h)`, by plain recursion from below.
fn heap_values(n: usize, options: impl Fn(usize) -> Vec<usize>) -> Vec<u64> {
    let mut sg: Vec<u64> = Vec::new();
    for h in 0..=n {
        let v = mex(options(h).into_iter().map(|o| sg[o]));
        sg.push(v);
    }
    sg
}

#[test]
fn a_guard_increasing_in_the_binding_ends_its_loop() {
    // Subtract-a-square, the guard against the bound written out.
    const N: usize = 300;
    let want = heap_values(N, |n| {
        (1..=n)
            .take_while(|k| k * k <= n)
            .map(|k| n - k * k)
            .collect()
    });
    for rule in [
        "move take(k in 1..=n) if k * k <= n -> S(n - k * k)",
        "move take(k in 1..=n) if n >= k * k -> S(n - k * k)",
        // Two cuts and a check in one guard.
        "move take(k in 0..=n) if k >= 1 and n >= 0 and k * k <= n -> S(n - k * k)",
        // Without a guard: the options below 0 fail `where`.
        "move take(k in 1..=n) -> S(n - k * k)",
    ] {
        let out = same_both_ways(&format!(
            "game S(n) where n >= 0 {{ {rule} }}
            print [sg(S(n)) for n in 0..={N}]"
        ));
        assert_eq!(out, format!("{}\n", list(&want)), "{rule}");
    }
    let how =
        explain("game S(n) where n >= 0 { move take(k in 1..=n) if k * k <= n -> S(n - k * k) }");
    assert!(
        how.contains("move take: a run through the memo, 1 argument(s) quadratic in the binding, walked with a growing stride; 1 guard conjunct(s) monotone in a binding solved into its range (a polynomial's root)"),
        "{how}"
    );
}

#[test]
fn results_outside_where_are_never_made_on_the_kernel() {
    // Subtract-a-square without its guard: most options fail `where`.
    // On the kernel they are never made (the `where` bounds the loop);
    // off it they are looked up and not stored (`SgSink::lookup`). The
    // values agree both ways, within a state limit just above the
    // positions valued.
    const N: usize = 2000;
    let want = heap_values(N, |n| {
        (1..=n)
            .take_while(|k| k * k <= n)
            .map(|k| n - k * k)
            .collect()
    });
    let program = format!(
        "game S(n) where n >= 0 {{ move take(k in 1..=n) -> S(n - k * k) }}
        print [sg(S(n)) for n in 0..={N}]"
    );
    let limits = Limits {
        max_states: N + 100,
        ..Limits::default()
    };
    let out = same_both_ways_with(&program, limits);
    assert_eq!(out, format!("{}\n", list(&want)));
    let how = explain(&program);
    assert!(
        how.contains("1 conjunct(s) of the result's `where` bounding the loop too"),
        "{how}"
    );
}

#[test]
fn where_conjuncts_a_move_guarantees_are_never_checked() {
    // Empty-and-Divide: over `k in 1..b`, `k >= 1` and `b - k >= 1` hold
    // for every option (`src/eval/compile/guaranteed.rs`). Values against
    // a plain recursion over the splits.
    const N: usize = 30;
    let mut sg = vec![vec![0u64; N + 1]; N + 1];
    for s in 2..=N {
        for a in 1..=N {
            for b in 1..=N {
                if a.max(b) != s {
                    continue;
                }
                let splits = |x: usize| (1..x).map(move |k| (k, x - k));
                let opts = splits(b).chain(splits(a)).map(|(p, q)| sg[p][q]);
                sg[a][b] = mex(opts);
            }
        }
    }
    let want: Vec<u64> = (1..=N)
        .flat_map(|a| (1..=N).map(move |b| (a, b)))
        .map(|(a, b)| sg[a][b])
        .collect();
    let program = format!(
        "game E(a, b) where a >= 1 and b >= 1 {{
            move split_b(k in 1..b) -> E(k, b - k)
            move split_a(k in 1..a) -> E(k, a - k)
        }}
        print [sg(E(a, b)) for a in 1..={N}, b in 1..={N}]"
    );
    assert_eq!(same_both_ways(&program), format!("{}\n", list(&want)));
    let how = explain(&program);
    assert_eq!(
        how.matches("2 conjunct(s) of the result's `where` guaranteed")
            .count(),
        2,
        "{how}"
    );
    assert!(!how.contains("bounding the loop too"), "{how}");

    // A range one past the heap does not guarantee `n - k >= 0`; the
    // guard `k <= n` does; the position's own `where` gives `0 <= y`, and
    // `v <= F(n)` for `F(n)` written the same; a floor quotient's bound
    // gives `n - 3 - a >= 0` over `a in 0..=(n - 3) / 2` under `n >= 3`.
    // `y <= F(n - k)` is not proved (a new atom).
    for (rule, guaranteed, bounding) in [
        ("move take(k in 1..=n + 1) -> H(n - k, y)", 1, 1),
        ("move take(k in 1..=n + 1) if k <= n -> H(n - k, y)", 2, 0),
        ("move cut(v in 0..y) -> H(n, v)", 3, 0),
        (
            "move two(a in 0..=(n - 3) / 2) if n >= 3 -> H(a, 0) + H(n - 3 - a, 0)",
            4,
            0,
        ),
    ] {
        let program = format!(
            "fn F(x) = x / 2
            game H(n, y) where n >= 0 and 0 <= y <= F(n) {{ {rule} }}
            print [sg(H(n, y)) for n in 0..=40, y in 0..=F(n)]"
        );
        same_both_ways(&program);
        let how = explain(&program);
        // The number before "conjunct(s) of the result's `where` <words>".
        let count = |words: &str| {
            let phrase = format!(" conjunct(s) of the result's `where` {words}");
            how.find(&phrase).map_or(0, |at| {
                let number = how[..at].rsplit(' ').next().unwrap();
                number.parse::<usize>().unwrap()
            })
        };
        assert_eq!(count("guaranteed"), guaranteed, "{rule}: {how}");
        assert_eq!(count("bounding"), bounding, "{rule}: {how}");
    }
}

#[test]
fn a_guard_decreasing_in_the_binding_starts_its_loop() {
    // Take at least half of the heap (`2 * k >= n`), and Grundy's game
    // with its guard `a < n - a` against the bound `(n - 1) / 2`.
    const N: usize = 200;
    let want = heap_values(N, |n| {
        (1..=n).filter(|k| 2 * k >= n).map(|k| n - k).collect()
    });
    let out = same_both_ways(&format!(
        "game H(n) where n >= 0 {{ move take(k in 1..=n) if 2 * k >= n -> H(n - k) }}
        print [sg(H(n)) for n in 0..={N}]"
    ));
    assert_eq!(out, format!("{}\n", list(&want)));
    // Grundy's game: g(n) is the mex of g(a) xor g(n - a), 1 <= a < n - a.
    let mut g = vec![0u64; N + 1];
    for n in 0..=N {
        g[n] = mex((1..n).filter(|&a| a < n - a).map(|a| g[a] ^ g[n - a]));
    }
    for rule in [
        "move split(a in 1..n) if a < n - a -> G(a) + G(n - a)",
        "move split(a in 1..=(n - 1) / 2) -> G(a) + G(n - a)",
        "move split(a in 1..n) if n - a > a and n > 2 -> G(a) + G(n - a)",
    ] {
        let out = same_both_ways(&format!(
            "game G(n) where n >= 0 {{ {rule} }}
            print [sg(G(n)) for n in 0..={N}]"
        ));
        assert_eq!(out, format!("{}\n", list(&g)), "{rule}");
    }
    let how =
        explain("game G(n) where n >= 0 { move split(a in 1..n) if a < n - a -> G(a) + G(n - a) }");
    assert!(how.contains("move split: a take-and-break run"), "{how}");
}

#[test]
fn cuts_whose_coefficients_depend_on_the_position() {
    // A cut's sides are polynomials in the binding read once per range:
    // coefficients that are constants (`k * k + k`), that depend on the
    // position (`n * k`, `(n - k) * (n - k)`), rising or falling, strict
    // or not, over a range or a constant set.
    const N: usize = 150;
    type Holds = fn(i64, i64) -> bool;
    let cases: [(&str, &str, Holds); 6] = [
        ("1..=n", "n * k < 2 * n + 5 * k", |n, k| {
            n * k < 2 * n + 5 * k
        }),
        ("1..=n", "(n - k) * (n - k) > n", |n, k| {
            (n - k) * (n - k) > n
        }),
        ("1..=n", "k * k + k >= n", |n, k| k * k + k >= n),
        ("1..=n", "2 * k * k <= 3 * n + 1", |n, k| {
            2 * k * k <= 3 * n + 1
        }),
        ("1..n", "n - 3 * k * k > 4", |n, k| n - 3 * k * k > 4),
        (
            "{1, 2, 3, 5, 8, 13, 21, 34}",
            "k * k <= 4 * n + 1",
            |n, k| k * k <= 4 * n + 1,
        ),
    ];
    for (range, guard, holds) in cases {
        let ks: Vec<i64> = match range {
            "1..=n" | "1..n" => Vec::new(),
            _ => vec![1, 2, 3, 5, 8, 13, 21, 34],
        };
        let want = heap_values(N, |n| {
            let n = n as i64;
            let all: Vec<i64> = match range {
                "1..=n" => (1..=n).collect(),
                "1..n" => (1..n).collect(),
                _ => ks.clone(),
            };
            (all.into_iter())
                .filter(|&k| k <= n && holds(n, k))
                .map(|k| (n - k) as usize)
                .collect()
        });
        let out = same_both_ways(&format!(
            "game H(n) where n >= 0 {{ move take(k in {range}) if {guard} -> H(n - k) }}
            print [sg(H(n)) for n in 0..={N}]"
        ));
        assert_eq!(out, format!("{}\n", list(&want)), "{guard}");
    }
    // Roots far from 0: a position near 10^12 whose options are the
    // squares between n - 2 and n (its value 1 when there is one).
    for (n, want) in [
        (1_000_000_000_002i64, 1),
        (1_000_000_000_005, 0),
        (999_999_999_999, 0),
    ] {
        let has_square = (1..=1_100_000i64).any(|k| k * k <= n && k * k >= n - 2);
        assert_eq!(has_square, want == 1, "{n}");
        let out = common::run(
            &format!(
                "game H(n) where n >= 0 {{
                    move take(k in 1..=1100000) if k * k <= n and k * k >= n - 2 -> H(0)
                }}
                print sg(H({n}))"
            ),
            true,
        );
        assert_eq!(out, format!("{want}\n"), "{n}");
    }
}

#[test]
fn guards_not_monotone_or_not_of_the_binding() {
    // `(k - 4) * (k - 4) <= n` falls then rises over 0..=n: no cut where
    // its vertex is inside the range. `k % 3 != 1` is no polynomial.
    // `n % 2 == 0` does not mention `k`: decided once per position.
    const N: usize = 120;
    type Holds = fn(usize, usize) -> bool;
    let cases: [(&str, Holds); 4] = [
        ("(k - 4) * (k - 4) <= n", |n, k| {
            (k as i64 - 4).pow(2) <= n as i64
        }),
        ("k % 3 != 1 and k * k <= 4 * n", |n, k| {
            k % 3 != 1 && k * k <= 4 * n
        }),
        ("n % 2 == 0 and 3 * k <= n", |n, k| n % 2 == 0 && 3 * k <= n),
        ("3 * k <= n and n % 2 == 0", |n, k| n % 2 == 0 && 3 * k <= n),
    ];
    for (guard, holds) in cases {
        let want = heap_values(N, |n| {
            (1..=n).filter(|&k| holds(n, k)).map(|k| n - k).collect()
        });
        let out = same_both_ways(&format!(
            "game H(n) where n >= 0 {{ move take(k in 1..=n) if {guard} -> H(n - k) }}
            print [sg(H(n)) for n in 0..={N}]"
        ));
        assert_eq!(out, format!("{}\n", list(&want)), "{guard}");
    }
}

#[test]
fn several_bindings_each_bounded_by_its_conjuncts() {
    // The inner loop's bounds depend on the outer binding; the guard cuts
    // both (`a * a <= n` the outer, `a * a + b <= n` the inner).
    const N: usize = 80;
    let want = heap_values(N, |n| {
        let mut out = Vec::new();
        for a in 1..=n {
            for b in 0..=a {
                if a * a <= n && a * a + b <= n {
                    out.push(n - a * a - b);
                }
            }
        }
        out
    });
    let program = format!(
        "game T(n) where n >= 0 {{
            move m(a in 1..=n, b in 0..=a) if a * a <= n and a * a + b <= n -> T(n - a * a - b)
        }}
        print [sg(T(n)) for n in 0..={N}]"
    );
    let out = same_both_ways(&program);
    assert_eq!(out, format!("{}\n", list(&want)));
    let how = explain(&program);
    assert!(
        how.contains("2 guard conjunct(s) monotone in a binding solved into its range"),
        "{how}"
    );
}

#[test]
fn errors_are_those_of_the_general_path() {
    // 3037000500 * 3037000500 overflows: the range's last option fails in
    // the guard, whichever path evaluates it.
    let out = same_both_ways(
        "game Q(n) where n >= 0 { move t(k in 3037000490..=3037000500) if k * k <= n -> Q(0) }
        print sg(Q(9223372030926249001))",
    );
    assert!(out.contains("failure") && out.contains("overflow"), "{out}");
    // A conjunct before it that fails first keeps the overflow unevaluated.
    let out = same_both_ways(
        "game Q(n) where n >= 0 { move t(k in 3037000490..=3037000500) if k <= 3037000495 and k * k <= n -> Q(0) }
        print sg(Q(9223372030926249001))",
    );
    assert_eq!(out, "1\n");
    // A conjunct left per option fails inside the cut range ...
    let out = same_both_ways(
        "game D(n) where n >= 0 { move t(k in 1..=n) if k * k <= n and n / (k - 2) > 0 -> D(n - k) }
        print sg(D(9))",
    );
    assert!(out.contains("division by zero"), "{out}");
    // ... but not outside it, where the general path never evaluates it.
    let out = same_both_ways(
        "game D(n) where n >= 0 { move t(k in 1..=n) if k <= 3 and n / (k - 10) <= 0 -> D(n - k) }
        print [sg(D(n)) for n in 0..=20]",
    );
    assert!(!out.contains("failure"), "{out}");
    // A check of the position that fails is reported too.
    let out = same_both_ways(
        "game E(n) where n >= 0 { move t(k in 1..=n) if 10 / (n - 5) >= 0 and k * k <= n -> E(n - k) }
        print sg(E(8))",
    );
    assert!(out.contains("division by zero"), "{out}");
}

#[test]
fn a_constant_set_from_a_let_of_any_size_runs_as_a_literal() {
    // Sets of 1 to 100 items from a top-level `let`, against the same set
    // written out, and against a recursion here.
    const N: usize = 400;
    for size in [1usize, 5, 15, 32, 33, 100] {
        let items: Vec<usize> = (0..size).map(|i| 1 + 3 * i + i * i % 7).collect();
        let mut set: Vec<usize> = items.clone();
        set.sort_unstable();
        set.dedup();
        let want = heap_values(N, |n| {
            set.iter().filter(|&&k| k <= n).map(|k| n - k).collect()
        });
        let literal: Vec<String> = set.iter().map(usize::to_string).collect();
        let from_let = same_both_ways(&format!(
            "let S = {{1 + 3 * i + i * i % 7 for i in 0..{size}}}
            game F(n) where n >= 0 {{ move take(k in S) if k <= n -> F(n - k) }}
            print [sg(F(n)) for n in 0..={N}]"
        ));
        let written = same_both_ways(&format!(
            "game F(n) where n >= 0 {{ move take(k in {{{}}}) if k <= n -> F(n - k) }}
            print [sg(F(n)) for n in 0..={N}]",
            literal.join(", ")
        ));
        assert_eq!(from_let, format!("{}\n", list(&want)), "{size} items");
        assert_eq!(written, from_let, "{size} items");
    }
    // A list of 40 items in descending order: bounds on item indices
    // would need ascending items; the guard runs per option instead.
    let items: Vec<usize> = (0..40).map(|i| 200 - 3 * i).collect();
    let want = heap_values(N, |n| {
        items.iter().filter(|&&k| k <= n).map(|k| n - k).collect()
    });
    let out = same_both_ways(&format!(
        "let L = [200 - 3 * i for i in 0..40]
        game F(n) where n >= 0 {{ move take(k in L) if k <= n -> F(n - k) }}
        print [sg(F(n)) for n in 0..={N}]"
    ));
    assert_eq!(out, format!("{}\n", list(&want)));
    // The game reading the constant is compiled for its value: a kernel.
    let how = explain(
        "let S = {1, 2, 5}
        game F(n) where n >= 0 { move take(k in S) if k <= n -> F(n - k) }
        print sg(F(10))",
    );
    assert!(
        how.contains("game F (its top-level constants read as values): kernel"),
        "{how}"
    );
}

#[test]
fn a_constant_list_of_sets_from_a_let_is_read_as_bit_masks() {
    // Geography on a path of 12 vertices: the token moves to an unvisited
    // neighbour. Against a recursion over (vertex, visited mask).
    const N: usize = 12;
    fn geo(v: usize, seen: u32, memo: &mut std::collections::HashMap<(usize, u32), u64>) -> u64 {
        if let Some(&x) = memo.get(&(v, seen)) {
            return x;
        }
        let near = [v.wrapping_sub(1), v + 1];
        let options: Vec<u64> = near
            .into_iter()
            .filter(|&u| u < N && seen >> u & 1 == 0)
            .map(|u| geo(u, seen | 1 << u, memo))
            .collect();
        let x = mex(options);
        memo.insert((v, seen), x);
        x
    }
    let mut memo = std::collections::HashMap::new();
    let want: Vec<u64> = (0..N).map(|v| geo(v, 1 << v, &mut memo)).collect();
    let program = format!(
        "let adj = [{{u for u in [v - 1, v + 1] if 0 <= u < {N}}} for v in 0..{N}]
        game Geo(v, seen) {{ move go(u in adj[v] - seen) -> Geo(u, seen | {{u}}) }}
        print [sg(Geo(v, {{v}})) for v in 0..{N}]"
    );
    assert_eq!(same_both_ways(&program), format!("{}\n", list(&want)));
    let how = explain(&program);
    assert!(
        how.contains(
            "game Geo (its top-level constants read as values): kernel over lists and sets"
        ),
        "{how}"
    );
}

#[test]
fn a_constant_used_before_its_let_still_fails() {
    let out = same_both_ways(
        "game F(n) where n >= 0 { move take(k in S) if k <= n -> F(n - k) }
        print sg(F(3))
        let S = {1, 2}",
    );
    assert!(out.contains("before its `let` ran"), "{out}");
}

/// A cut of the binding against code that does not read it (`k <= n - 1`,
/// `n - 2 >= k`, `k > n / 2`, `3 >= k`: each operator, the binding on
/// either side) is read off as a bound of the range: the values against
/// the plain recursion, with the fast paths on and off.
#[test]
fn cuts_of_the_binding_against_free_code_are_bounds() {
    let n = 60;
    let out = same_both_ways(&format!(
        "game G(n) where n >= 0 {{
           move a(k in 1..=4) if k <= n - 1 -> G(n - k)
           move b(k in 1..=6) if n - 2 >= k -> G(n - k)
           move c(k in 2..=7) if k < n -> G(n - k)
           move e(k in 1..=9) if k > n / 2 and k <= n -> G(n - k)
           move f(k in 1..=9) if k >= n - 4 and k <= n -> G(n - k)
           move g(k in 1..=9) if n / 3 < k and n >= k -> G(n - k)
           move h(k in 1..=9) if 3 >= k and k <= n -> G(n - k)
           move i(k in 1..=9) if n / 5 > k and n + 1 > k -> G(n - k)
         }}
         print [sg(G(n)) for n in 0..={n}]"
    ));
    let want = heap_values(n, |h| {
        let h = h as i64;
        let mut o = Vec::new();
        let mut take = |ks: std::ops::RangeInclusive<i64>, ok: &dyn Fn(i64) -> bool| {
            o.extend(ks.filter(|&k| ok(k)).map(|k| (h - k) as usize))
        };
        take(1..=4, &|k| k < h);
        take(1..=6, &|k| h - 2 >= k);
        take(2..=7, &|k| k < h);
        take(1..=9, &|k| k > h / 2 && k <= h);
        take(1..=9, &|k| k >= h - 4 && k <= h);
        take(1..=9, &|k| h / 3 < k && h >= k);
        take(1..=9, &|k| 3 >= k && k <= h);
        take(1..=9, &|k| h / 5 > k && h + 1 > k);
        o
    });
    assert_eq!(out.trim(), list(&want));
    // Not one value throughout.
    assert!(want.iter().any(|&v| v != want[0]));
}

#[test]
fn comparisons_of_a_binding_are_range_ends() {
    // Fibonacci Nim with its bound as a guard, `if k <= n`, and as the
    // range's `min(m, n)`: the kernels plan both as the second
    // (`range_bounds.rs`); both against a brute force.
    const N: usize = 40;
    let mut fib = vec![vec![0u64; 2 * N + 2]; N + 1];
    for n in 0..=N {
        for m in 1..=2 * N + 1 {
            fib[n][m] = mex((1..=m.min(n)).map(|k| fib[n - k][(2 * k).min(2 * N + 1)]));
        }
    }
    let want: Vec<u64> = (0..=N)
        .flat_map(|n| (1..=N).map(move |m| (n, m)))
        .map(|(n, m)| fib[n][m])
        .collect();
    for rule in [
        "move take(k in 1..=m) if k <= n -> Fib(n - k, 2 * k)",
        "move take(k in 1..=m) if n >= k -> Fib(n - k, 2 * k)",
        "move take(k in 1..m + 1) if k < n + 1 -> Fib(n - k, 2 * k)",
        "move take(k in 1..=min(m, n)) -> Fib(n - k, 2 * k)",
    ] {
        let program = format!(
            "game Fib(n, m) where n >= 0 and m >= 1 {{ {rule} }}
            print [sg(Fib(n, m)) for n in 0..={N}, m in 1..={N}]"
        );
        assert_eq!(
            same_both_ways(&program),
            format!("{}\n", list(&want)),
            "{rule}"
        );
    }
    let how = explain("game Fib(n, m) where n >= 0 and m >= 1 { move take(k in 1..=m) if k <= n -> Fib(n - k, 2 * k) }");
    assert!(
        how.contains(
            "1 guard conjunct(s) comparing a binding with code free of it read as its range's ends"
        ) && how.contains("argument m is read only through min(m, ...)")
            && !how.contains("solved into its range"),
        "{how}"
    );
    // Rising and falling bounds, strict or not, either side, leading
    // conjuncts only (`k % 3 != 0` first keeps `k <= n - 2` a guard),
    // and one that is no bound (`k * k <= n`, a cut; `k % 2 == 1`).
    const H: usize = 90;
    type Holds = fn(i64, i64) -> bool;
    let cases: [(&str, &str, Holds); 7] = [
        ("1..=n", "k <= n / 2", |n, k| k <= n / 2),
        ("1..=n", "n / 3 < k", |n, k| n / 3 < k),
        ("1..n", "k >= n - 7 and k <= n / 2 + 1", |n, k| {
            k >= n - 7 && k <= n / 2 + 1
        }),
        ("0..=n", "k > 0 and 5 > k and k * k <= n", |n, k| {
            k > 0 && 5 > k && k * k <= n
        }),
        ("1..=n", "k % 3 != 0 and k <= n - 2", |n, k| {
            k % 3 != 0 && k <= n - 2
        }),
        ("1..=n", "k <= n - 2 and k % 2 == 1", |n, k| {
            k <= n - 2 && k % 2 == 1
        }),
        (
            "1..=n",
            "(k - 5) * (k - 5) >= n and k < 2 * n / 3",
            |n, k| (k - 5) * (k - 5) >= n && k < 2 * n / 3,
        ),
    ];
    for (range, guard, holds) in cases {
        let want = heap_values(H, |n| {
            let n = n as i64;
            let all: Vec<i64> = match range {
                "1..=n" => (1..=n).collect(),
                "1..n" => (1..n).collect(),
                _ => (0..=n).collect(),
            };
            (all.into_iter())
                .filter(|&k| holds(n, k))
                .map(|k| (n - k) as usize)
                .collect()
        });
        let program = format!(
            "game H(n) where n >= 0 {{ move take(k in {range}) if {guard} -> H(n - k) }}
            print [sg(H(n)) for n in 0..={H}]"
        );
        assert_eq!(
            same_both_ways(&program),
            format!("{}\n", list(&want)),
            "{guard}"
        );
    }
    // Bounds on two bindings: the inner's by the outer binding, the
    // outer's by the position.
    const T: usize = 40;
    let want = heap_values(T, |n| {
        let mut out = Vec::new();
        for a in 1..=n {
            for b in 0..=n {
                if b <= a && 2 * a <= n + 1 && a + b / 2 <= n {
                    out.push(n - a - b / 2);
                }
            }
        }
        out
    });
    let program = format!(
        "game T(n) where n >= 0 {{
            move m(a in 1..=n, b in 0..=n) if b <= a and a <= (n + 1) / 2 -> T(n - a - b / 2)
        }}
        print [sg(T(n)) for n in 0..={T}]"
    );
    assert_eq!(same_both_ways(&program), format!("{}\n", list(&want)));
    assert!(explain(&program).contains("2 guard conjunct(s) comparing a binding"));
    // A bound whose code fails: where the range has a `k`, the general
    // path's error; where it has none, no error.
    let out = same_both_ways(
        "game D(n) where n >= 0 { move t(k in 1..=n) if k <= 12 / (n - 3) -> D(n - k) }
        print sg(D(3))",
    );
    assert!(out.contains("division by zero"), "{out}");
    let out = same_both_ways(
        "game D(n) where n >= 0 { move t(k in n..=2) if k <= 12 / (n - 3) -> D(n - 1) }
        print [sg(D(n)) for n in 0..=8]",
    );
    assert!(!out.contains("failure"), "{out}");
    // `k <= f` with `f` at the top of the integers: `f + 1` overflows in
    // the kernel's end, which then leaves the move to the general path.
    let out = same_both_ways(
        "game W(n) where n >= 0 { move t(k in 1..3) if k <= 9223372036854775807 - n -> W(n - k) }
        print [sg(W(n)) for n in 0..=6]",
    );
    assert_eq!(
        out,
        format!(
            "{}\n",
            list(&heap_values(6, |n| (1..3)
                .filter(|&k| k <= n)
                .map(|k| n - k)
                .collect()))
        )
    );
}
