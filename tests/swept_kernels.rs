//! Tables of games on kernels swept in order (`compile/line_sweep.rs`):
//! each position is valued through its kernel on the search's buffers the
//! sweep holds for its line (`search::value_on_line`, the line's frame
//! and the set-up of runs that do not read the moving coordinate held;
//! `search::search_swept` when an option has no value yet, the search
//! going on from what was listed). Against the
//! general path (every plan off, and each plan off in turn): values,
//! errors and limits alike; values against a brute force written here,
//! on tables asked in order and out of order (positions waiting for
//! their options, with the marks they keep, `search/marked.rs`).

use crate::common;

use common::run_with;
use grundy::{Limits, Plans};

/// The output of `text` under `limits`, asserted to be the same with
/// every plan on, every plan off, and each plan off in turn.
fn same_every_way(text: &str, limits: Limits) -> String {
    let run = |plans: Plans| {
        run_with(
            text,
            Limits {
                plans,
                ..limits.clone()
            },
        )
    };
    let reference = run(Plans::NONE);
    assert_eq!(run(Plans::ALL), reference, "every plan against none");
    for (name, plans) in Plans::each_off() {
        assert_eq!(run(plans), reference, "{name} off against none");
    }
    reference
}

/// Wythoff's game by the definition: `g[a][b]` for `a, b <= n`.
fn wythoff(n: usize) -> Vec<Vec<u64>> {
    let mut g = vec![vec![0u64; n + 1]; n + 1];
    for a in 0..=n {
        for b in 0..=n {
            let mut options = Vec::new();
            options.extend((1..=a).map(|k| g[a - k][b]));
            options.extend((1..=b).map(|k| g[a][b - k]));
            options.extend((1..=a.min(b)).map(|k| g[a - k][b - k]));
            g[a][b] = (0..).find(|v| !options.contains(v)).expect("a mex");
        }
    }
    g
}

const WYTHOFF: &str = "game P(a, b) where a >= 0 and b >= 0 {
    move r(k in 1..=a) -> P(a - k, b)
    move c(k in 1..=b) -> P(a, b - k)
    move d(k in 1..=min(a, b)) -> P(a - k, b - k)
}
";

#[test]
fn wythoff_swept_in_order_and_asked_sparsely_agrees_with_the_definition() {
    let n = 24;
    let g = wythoff(n);
    // In order: every option stored when its parent is reached.
    let table = same_every_way(
        &format!("{WYTHOFF}print [sg(P(a, b)) for a in 0..={n}, b in 0..={n}]"),
        Limits::default(),
    );
    let want: Vec<String> = g.iter().flatten().map(|v| v.to_string()).collect();
    assert_eq!(table.trim(), format!("[{}]", want.join(", ")));
    // Sparse and from the top: each position waits for its options, its
    // marks kept while they are searched.
    let sparse = same_every_way(
        &format!("{WYTHOFF}print [sg(P(a, {n} - a)) for a in 0..={n}]\nprint [sg(P(a, a + 1)) for a in 0..{n}]"),
        Limits::default(),
    );
    let anti: Vec<String> = (0..=n).map(|a| g[a][n - a].to_string()).collect();
    let next: Vec<String> = (0..n).map(|a| g[a][a + 1].to_string()).collect();
    assert_eq!(
        sparse,
        format!("[{}]\n[{}]\n", anti.join(", "), next.join(", "))
    );
}

#[test]
fn a_quadratic_run_over_its_vertex_with_values_past_255_agrees_with_the_definition() {
    // `hump`'s options rise then fall over its range (the run's extremes
    // found next to the vertex, `search/quadratic.rs`); below n = 26 some
    // are no position and the run goes to the batched code. `all` lifts
    // the values past 255 (the window's 16-bit codes). Swept in order,
    // then asked from the top (every option unknown when listed).
    let n = 420;
    let mut g: Vec<usize> = Vec::new();
    for m in 0..=n {
        let all = (0..m).filter(|j| j % 3 != 1).map(|j| g[j]);
        let hump = (0..=10).filter_map(|k: usize| (m + 10 * k).checked_sub(26 + k * k));
        let options: Vec<usize> = all.chain(hump.map(|j| g[j])).collect();
        g.push((0..).find(|v| !options.contains(v)).expect("a mex"));
    }
    assert!(g.iter().any(|&v| v > 255));
    let game = "game V(n) where n >= 0 {
            move all(j in 0..n) if j % 3 != 1 -> V(j)
            move hump(k in 0..=10) -> V(n - 1 - (k - 5) * (k - 5))
        }";
    let how = common::explain(game);
    assert!(
        how.contains("move hump: a run through the memo, 1 argument(s) quadratic"),
        "{how}"
    );
    let asked = format!("{game}\nprint [sg(V(m)) for m in 0..={n}]\nprint sg(V({n}))");
    let want: Vec<String> = g.iter().map(|v| v.to_string()).collect();
    let out = same_every_way(&asked, Limits::default());
    assert_eq!(out, format!("[{}]\n{}\n", want.join(", "), g[n]));
    let top = same_every_way(&format!("{game}\nprint sg(V({n}))"), Limits::default());
    assert_eq!(top, format!("{}\n", g[n]));
}

#[test]
fn tables_asked_backwards_and_moves_off_the_kernel_agree() {
    // Backwards: every position's options are unknown when it is reached,
    // so the sweep's position goes on into the search. A move the kernel
    // cannot run (a call it does not compile) runs by its closure.
    let text = "fn half(x) = if x % 2 == 0 then x / 2 else x - 1
        game H(n, m) where n >= 0 and m >= 0 {
            move take(k in 1..=n) -> H(n - k, m)
            move halve if m > 0 -> H(n, half(m))
            move both(k in 1..=min(n, m)) if k != 2 -> H(n - k, m - k)
        }
        print [sg(H(n, m)) for n in 0..8, m in 0..8]
        print [sg(H(7 - n, 9 - m)) for n in 0..8, m in 0..10]
        print histogram(sg(H(n, m)) for n in 0..=40, m in 0..=40)";
    let out = same_every_way(text, Limits::default());
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("failure"), "{out}");
}

#[test]
fn errors_and_limits_inside_a_swept_line_are_the_general_paths() {
    // An option whose argument divides by zero at one position of the line.
    let text = "game D(a, b) where a >= 0 and b >= 0 {
            move r(k in 1..=a) -> D(a - k, b)
            move c if b > 0 -> D(a, 12 / (b - 3))
        }
        print [sg(D(a, b)) for a in 0..4, b in 0..=6]";
    let out = same_every_way(text, Limits::default());
    assert!(
        out.contains("failure") && out.contains("division by zero"),
        "{out}"
    );
    // The state limit and the timeout (checked every 4096 elements, so
    // past that many), met in the middle of a line.
    let text = format!("{WYTHOFF}print histogram(sg(P(a, b)) for a in 0..=100, b in 0..=100)");
    let limited = same_every_way(
        &text,
        Limits {
            max_states: 1000,
            ..Limits::default()
        },
    );
    assert!(limited.contains("state space too large"), "{limited}");
    let timed = same_every_way(
        &text,
        Limits {
            timeout: Some(std::time::Duration::ZERO),
            ..Limits::default()
        },
    );
    assert!(timed.contains("timed out"), "{timed}");
}

#[test]
fn loopy_positions_in_a_swept_table_keep_their_infinite_values() {
    // Positions of infinite value are on-path in the memo: a sweep that
    // reaches one reads it, never searches it.
    let text = "game L(a, b) where 0 <= a <= 4 and 0 <= b <= 4 {
            move up if a < 4 and b == 0 -> L(a + 1, b)
            move down if a > 0 and b == 0 -> L(a - 1, b)
            move take(k in 1..=b) -> L(a, b - k)
        }
        print [sg(L(a, 0)) for a in 0..=4]
        print [sg(L(a, b)) for a in 0..=4, b in 0..=4]";
    let out = same_every_way(text, Limits::default());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "[∞, ∞, ∞, ∞, ∞]", "{out}");
    assert_eq!(lines.len(), 2, "{out}");
}

/// The 3-D chocolate bar of `benches/chocolate3d.game` by its definition:
/// `g[x][z][y]` for `x, z <= n`, `y <= (x + z) / 3`.
fn chocolate(n: usize) -> Vec<u64> {
    let f = |x: usize, z: usize| (x + z) / 3;
    let mut g = vec![vec![vec![0u64; f(n, n) + 1]; n + 1]; n + 1];
    let mut out = Vec::new();
    for x in 0..=n {
        for z in 0..=n {
            for y in 0..=f(x, z) {
                let mut options = Vec::new();
                options.extend((0..x).map(|u| g[u][z][y.min(f(u, z))]));
                options.extend((0..y).map(|v| g[x][z][v]));
                options.extend((0..z).map(|w| g[x][w][y.min(f(x, w))]));
                g[x][z][y] = (0..).find(|v| !options.contains(v)).expect("a mex");
                out.push(g[x][z][y]);
            }
        }
    }
    out
}

#[test]
fn a_where_read_once_per_line_and_runs_that_bend_agree_with_the_definition() {
    // The `where` bounds the swept argument by code of the others, in
    // either order, beside conjuncts that do not read it; the moves bend
    // (`min(F(u, z), y)`), in pieces read with and without a quotient.
    let n = 9;
    let moves = "fn F(x, z) = (x + z) / 3
        game C(x, y, z) where WHERE {
            move cut_x(u in 0..x) -> C(u, min(F(u, z), y), z)
            move cut_y(v in 0..y) -> C(x, v, z)
            move cut_z(w in 0..z) -> C(x, min(y, F(x, w)), w)
        }";
    let want: Vec<String> = chocolate(n).iter().map(|v| v.to_string()).collect();
    let want = format!("[{}]", want.join(", "));
    for w in [
        "x >= 0 and z >= 0 and 0 <= y <= F(x, z)",
        "F(x, z) >= y and y > -1 and 0 <= z and x >= 0",
        "y < F(x, z) + 1 and not (y < 0) and x >= 0 and z >= 0",
    ] {
        let text = moves.replace("WHERE", w);
        let table = same_every_way(
            &format!(
                "{text}\nprint [sg(C(x, y, z)) for x in 0..={n}, z in 0..={n}, y in 0..=F(x, z)]"
            ),
            Limits::default(),
        );
        assert_eq!(table.trim(), want, "where {w}");
        // Past the `where` on both sides of the line: no position there.
        let outside = same_every_way(
            &format!("{text}\nprint [sg(C(4, y, 5)) for y in -2..6]"),
            Limits::default(),
        );
        assert!(outside.contains("failure"), "where {w}: {outside}");
    }
    // Conjuncts that are no interval of the swept argument (`y % 2`, a
    // bound that divides by zero on one line), checked position by
    // position: the values and the error of the general path.
    for (w, fails) in [
        ("y >= 0 and y % 2 == 0 and y <= x", false),
        ("y >= 0 and y <= x + 12 / (x - 3) - 12 / (x - 3)", true),
        ("x != 2 and 0 <= y <= x", false),
    ] {
        let text = format!(
            "game E(x, y) where {w} {{
                move a(k in 0..x) -> E(k, min(y, k))
                move b(k in 0..y) -> E(x, k)
            }}
            print [sg(E(x, y)) for x in 0..6, y in 0..=x]"
        );
        let out = same_every_way(&text, Limits::default());
        assert_eq!(out.contains("division by zero"), fails, "where {w}: {out}");
    }
}

/// Welter's game by its definition, coins on `0..n` moving down to any
/// square from `c` on not taken (`distinct`), or to any square from `c`
/// on, the list kept sorted (not `distinct`): the values of the lists
/// `[a, b, d]`, `a <= b <= d < n` (`a < b < d` when distinct), in the
/// order of the loops `a`, `b`, `d`.
fn coins(n: i64, c: i64, distinct: bool) -> Vec<u64> {
    use std::collections::HashMap;
    fn sg(xs: Vec<i64>, c: i64, distinct: bool, memo: &mut HashMap<Vec<i64>, u64>) -> u64 {
        if let Some(&v) = memo.get(&xs) {
            return v;
        }
        let mut options = Vec::new();
        for i in 0..xs.len() {
            for t in c..xs[i] {
                if distinct && xs.contains(&t) {
                    continue;
                }
                let mut ys = xs.clone();
                ys[i] = t;
                ys.sort();
                options.push(sg(ys, c, distinct, memo));
            }
        }
        let v = (0..).find(|v| !options.contains(v)).expect("a mex");
        memo.insert(xs, v);
        v
    }
    let mut memo = HashMap::new();
    let step = i64::from(distinct);
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + step..n {
            for d in b + step..n {
                out.push(sg(vec![a, b, d], c, distinct, &mut memo));
            }
        }
    }
    out
}

#[test]
fn sorted_lists_swept_along_their_last_item_agree_with_the_definition() {
    // Tables of sorted lists swept along their last item, their options
    // read as runs off the items (`search/sorted_parts.rs`): against the
    // definition, with and without `distinct`, moves from 0 and from 1 on.
    let n = 9;
    for (c, distinct) in [(0, true), (1, true), (0, false), (1, false)] {
        let (where_, guard, step) = match distinct {
            true => (
                "distinct(xs) and xs == sorted(xs)",
                " if t not in xs",
                " + 1",
            ),
            false => ("xs == sorted(xs)", "", ""),
        };
        let text = format!(
            "game W(xs) where {where_} {{
                move slide(i in 0..len(xs), t in {c}..xs[i]){guard} -> W(sorted(update(xs, i, t)))
            }}
            print [sg(W([a, b, d])) for a in 0..{n}, b in a{step}..{n}, d in b{step}..{n}]"
        );
        let table = same_every_way(&text, Limits::default());
        let want: Vec<String> = coins(n, c, distinct)
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(
            table.trim(),
            format!("[{}]", want.join(", ")),
            "c {c}, distinct {distinct}"
        );
    }
}

/// The value of the sorted list `xs` in Welter's game with coins moving
/// down to any square from 0 on (not taken, when `distinct`), by its
/// definition.
fn welter_value(
    xs: Vec<i64>,
    distinct: bool,
    memo: &mut std::collections::HashMap<Vec<i64>, u64>,
) -> u64 {
    if let Some(&v) = memo.get(&xs) {
        return v;
    }
    let mut options = Vec::new();
    for i in 0..xs.len() {
        for t in 0..xs[i] {
            if distinct && xs.contains(&t) {
                continue;
            }
            let mut ys = xs.clone();
            ys[i] = t;
            ys.sort();
            options.push(welter_value(ys, distinct, memo));
        }
    }
    let v = (0..).find(|v| !options.contains(v)).expect("a mex");
    memo.insert(xs, v);
    v
}

#[test]
fn a_where_keeping_a_list_sorted_is_decided_once_per_line() {
    // Lines along the middle item of sorted lists, the `where` written
    // in several ways (`compile/where_line.rs` reads it as the interval
    // between the item's neighbours); `distinct` alone is no interval and
    // is checked position by position. Against the definition, and
    // lines that leave the `where` (the neighbours out of order, the
    // item past one of them) fail as on the general path.
    let n = 8;
    for (w, distinct) in [
        ("distinct(xs) and xs == sorted(xs)", true),
        ("sorted(xs) == xs and distinct(xs)", true),
        ("xs == sorted(xs)", false),
        ("xs == sorted(xs) and xs == sorted(xs)", false),
    ] {
        let guard = if distinct { " if t not in xs" } else { "" };
        let game = format!(
            "game W(xs) where {w} {{
                move slide(i in 0..len(xs), t in 0..xs[i]){guard} -> W(sorted(update(xs, i, t)))
            }}"
        );
        let (gap, step) = if distinct { (2, " + 1") } else { (0, "") };
        let table = same_every_way(
            &format!(
                "{game}\nprint [sg(W([a, b, d])) for a in 0..{n}, d in a + {gap}..{n}, b in a{step}..d{}]",
                if distinct { "" } else { " + 1" }
            ),
            Limits::default(),
        );
        let mut memo = std::collections::HashMap::new();
        let mut want = Vec::new();
        let g = i64::from(distinct);
        for a in 0..n {
            for d in a + 2 * g..n {
                for b in a + g..d + 1 - g {
                    want.push(welter_value(vec![a, b, d], distinct, &mut memo).to_string());
                }
            }
        }
        assert_eq!(table.trim(), format!("[{}]", want.join(", ")), "where {w}");
        for line in [
            "[sg(W([2, b, 5])) for b in 0..8]",
            "[sg(W([2, b, 5])) for b in 2..=5]",
            "[sg(W([5, b, 2])) for b in 0..8]",
            "[sg(W([1, 3, d])) for d in 0..8]",
        ] {
            let out = same_every_way(&format!("{game}\nprint {line}"), Limits::default());
            let inside = !distinct && line.contains("2..=5");
            assert_eq!(
                !out.contains("not a position"),
                inside,
                "where {w}, {line}: {out}"
            );
        }
    }
    // `distinct` alone: every position checked, the same values.
    let game = "game D(xs) where distinct(xs) {
        move m(i in 0..len(xs), t in 0..xs[i]) if t not in xs -> D(update(xs, i, t))
    }";
    let out = same_every_way(
        &format!("{game}\nprint [sg(D([3, b, 1])) for b in 0..6]"),
        Limits::default(),
    );
    assert!(out.contains("not a position"), "{out}");
}

/// The game of `a_runs_set_up_depends_on_either_coordinate_of_the_line`
/// by its definition: `g[a][b]` for `a, b <= n`.
fn mixed(n: usize) -> Vec<Vec<u64>> {
    let isqrt = |x: usize| (0..=x).take_while(|k| k * k <= x).last().unwrap_or(0);
    let mut g = vec![vec![0u64; n + 1]; n + 1];
    for a in 0..=n {
        for b in 0..=n {
            let mut options = Vec::new();
            // k * k <= b: a guard on the other coordinate's line.
            options.extend((1..=a.min(isqrt(b))).map(|k| g[a - k][b]));
            // k * k <= a + b: on both.
            options.extend((1..=b.min(isqrt(a + b))).map(|k| g[a][b - k]));
            // A bend whose base and clamp read b.
            options.extend((0..a).map(|k| g[k][((k + b) / 2).min(b)]));
            // A guard that reads a only.
            options.extend((1..=b).filter(|k| 2 * k <= a).map(|k| g[a][b - k]));
            // Quadratic in the binding, its guard on a.
            options.extend((1..=isqrt(a)).map(|k| g[a - k * k][b]));
            // A clamp whose bound is a.
            options.extend((0..b).map(|k| g[a.min(k + 1)][k]));
            g[a][b] = (0..).find(|v| !options.contains(v)).expect("a mex");
        }
    }
    g
}

#[test]
fn a_runs_set_up_depends_on_either_coordinate_of_the_line() {
    // Each move's range, guard, bend and quadratic argument read the
    // swept coordinate, the other one, or both: a table swept along `b`
    // and one swept along `a` (separate runs, so that each line is
    // valued in order), and one asked from the top (positions waiting for
    // their options), against the definition and the general path.
    let n = 16;
    let g = mixed(n);
    let game = "game G(a, b) where a >= 0 and b >= 0 {
            move m1(k in 1..=a) if k * k <= b -> G(a - k, b)
            move m2(k in 1..=b) if k * k <= a + b -> G(a, b - k)
            move m3(k in 0..a) -> G(k, min((k + b) / 2, b))
            move m4(k in 1..=b) if 2 * k <= a -> G(a, b - k)
            move m5(k in 1..=a) if k * k <= a -> G(a - k * k, b)
            move m6(k in 0..b) -> G(min(a, k + 1), k)
        }";
    let along_b = same_every_way(
        &format!("{game}\nprint [sg(G(a, b)) for a in 0..={n}, b in 0..={n}]"),
        Limits::default(),
    );
    let want: Vec<String> = g.iter().flatten().map(|v| v.to_string()).collect();
    assert_eq!(along_b.trim(), format!("[{}]", want.join(", ")));
    let along_a = same_every_way(
        &format!("{game}\nprint [sg(G(a, b)) for b in 0..={n}, a in 0..={n}]"),
        Limits::default(),
    );
    let want: Vec<String> = (0..=n)
        .flat_map(|b| (0..=n).map(move |a| (a, b)))
        .map(|(a, b)| g[a][b].to_string())
        .collect();
    assert_eq!(along_a.trim(), format!("[{}]", want.join(", ")));
    let down = same_every_way(
        &format!("{game}\nprint [sg(G({n} - a, b)) for a in 0..={n}, b in 0..={n}]"),
        Limits::default(),
    );
    let want: Vec<String> = (0..=n)
        .flat_map(|a| (0..=n).map(move |b| (n - a, b)))
        .map(|(a, b)| g[a][b].to_string())
        .collect();
    assert_eq!(down.trim(), format!("[{}]", want.join(", ")));
}

/// The game of `bends_whose_clamps_read_the_swept_coordinate_or_not` by
/// its definition: `g[a][b]` for `a, b <= n`.
fn clamped(n: usize) -> Vec<Vec<u64>> {
    let mut g = vec![vec![0u64; n + 1]; n + 1];
    for a in 0..=n {
        for b in 0..=n {
            let mut options = Vec::new();
            // A quotient clamped by b.
            options.extend((0..a).map(|k| g[k][((k + 2 * a) / 3).min(b)]));
            // A quotient clamped by a.
            options.extend((0..b).map(|k| g[a.min((k + a) / 2)][k]));
            options.extend((0..b).map(|k| g[a][k]));
            // Clamped by a constant.
            options.extend((1..=a).map(|k| g[a - k][b.saturating_sub(k)]));
            // Clamped by a bound that itself moves with the binding.
            let bound = |k: usize| (a as i64 + b as i64 - 2 * k as i64).max(1) as usize;
            options.extend((0..b).map(|k| g[a][k.min(bound(k))]));
            g[a][b] = (0..).find(|v| !options.contains(v)).expect("a mex");
        }
    }
    g
}

#[test]
fn bends_whose_clamps_read_the_swept_coordinate_or_not() {
    // Swept along `b`, the first move's clamp reads the moving coordinate
    // and the second's does not; along `a`, the other way round; the
    // fourth's clamp is a constant and the last's bound moves with the
    // binding. Each line is valued on the kernel with its set-up held
    // (`search/swept_line.rs`); asked from the top, the positions wait
    // for their options and go to the search. Against the definition
    // and the general path.
    let n = 15;
    let g = clamped(n);
    let game = "game G(a, b) where a >= 0 and b >= 0 {
            move m1(k in 0..a) -> G(k, min((k + 2 * a) / 3, b))
            move m2(k in 0..b) -> G(min(a, (k + a) / 2), k)
            move m3(k in 0..b) -> G(a, k)
            move m4(k in 1..=a) -> G(a - k, max(b - k, 0))
            move m5(k in 0..b) -> G(a, min(k, max(a + b - 2 * k, 1)))
        }";
    // The loops, the position asked, and where element (i, j) lies.
    type At = fn(usize, usize, usize) -> (usize, usize);
    let cases: [(&str, &str, At); 3] = [
        ("a in 0..=N, b in 0..=N", "G(a, b)", |_, i, j| (i, j)),
        ("b in 0..=N, a in 0..=N", "G(a, b)", |_, i, j| (j, i)),
        ("a in 0..=N, b in 0..=N", "G(N - a, b)", |n, i, j| {
            (n - i, j)
        }),
    ];
    for (loops, asked, at) in cases {
        let text = format!("{game}\nprint [sg({asked}) for {loops}]").replace('N', &n.to_string());
        let out = same_every_way(&text, Limits::default());
        let want: Vec<String> = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| (i, j)))
            .map(|(i, j)| at(n, i, j))
            .map(|(a, b)| g[a][b].to_string())
            .collect();
        assert_eq!(
            out.trim(),
            format!("[{}]", want.join(", ")),
            "{loops}, {asked}"
        );
    }
}

/// Where element (i, j, l) of a table over a cube of side `n + 1` lies,
/// for one order of its loops and one way of asking.
type At3 = fn(usize, [usize; 3]) -> [usize; 3];

/// `game`'s table for each of `cases` (the loops, the position asked,
/// where element (i, j, l) lies) against its definition `g`, with every
/// plan, none and each off in turn.
fn valued_in_every_case(game: &str, n: usize, g: &Cube, cases: &[(&str, &str, At3)], label: &str) {
    for &(loops, asked, at) in cases {
        let text = format!("{game}\nprint [sg({asked}) for {loops}]").replace('N', &n.to_string());
        let out = same_every_way(&text, Limits::default());
        let want: Vec<String> = (0..=n)
            .flat_map(|i| (0..=n).flat_map(move |j| (0..=n).map(move |l| [i, j, l])))
            .map(|ijl| at(n, ijl))
            .map(|[a, b, c]| g[a][b][c].to_string())
            .collect();
        let want = format!("[{}]", want.join(", "));
        assert_eq!(out.trim(), want, "{label}: {loops}, {asked}");
    }
}

/// A game on `a, b, c <= n` by its definition: `g[a][b][c]` the mex of
/// `options(g, a, b, c)`, which reads only positions with no coordinate
/// above the position's and one below (each known before the positions
/// that reach it, in this order).
fn cube(n: usize, options: impl Fn(&Cube, usize, usize, usize) -> Vec<u64>) -> Cube {
    let mut g = vec![vec![vec![0u64; n + 1]; n + 1]; n + 1];
    for a in 0..=n {
        for b in 0..=n {
            for c in 0..=n {
                let options = options(&g, a, b, c);
                g[a][b][c] = (0..).find(|v| !options.contains(v)).expect("a mex");
            }
        }
    }
    g
}

type Cube = Vec<Vec<Vec<u64>>>;

/// The game of `bend_runs_along_a_line_agree_with_the_definition`
/// by its definition: `g[a][b][c]` for `a, b, c <= n`.
fn sloped(n: usize) -> Cube {
    cube(n, |g, a, b, c| {
        let mut options = Vec::new();
        let (ai, bi, ci) = (a as i64, b as i64, c as i64);
        // A quotient of `b` clamped by a bound of slope 3 in `c`
        // and -1 in `a`.
        let bound = (3 * ci - ai).max(0);
        options.extend((0..b).map(|k| g[a][((k + 2 * b) / 3).min(bound as usize)][c]));
        // A quotient of `b` clamped by `a`.
        options.extend((0..c).map(|k| g[a.min((k + b) / 2)][b][k]));
        // `c` clamped by a bound of slope 2 in `b` that moves with
        // the binding.
        let bound = |k: usize| (2 * bi - k as i64).max(0) as usize;
        options.extend((0..a).map(|k| g[k][b][c.min(bound(k))]));
        // A quotient of `a` and the binding clamped by `b`.
        options.extend((1..=c).map(|k| g[a][b.min((a + k) / 3)][c - k]));
        options.extend((0..a).map(|k| g[k][b][c]));
        // A quotient of the binding and `a` clamped by `b`: reads
        // neither `c` nor the binding's bounds' other coordinates.
        options.extend((0..a).map(|k| g[k][b.min((k + a) / 2)][c]));
        options
    })
}

#[test]
fn bend_runs_along_a_line_agree_with_the_definition() {
    // Bends whose quotients and clamps read the swept coordinate with
    // slopes 3, 2, 1 and -1, and bends that read none of it (whose
    // set-up a line could keep from its first position): each line is
    // valued on the kernel (`search/swept_line.rs`, `search/bend.rs`).
    // Swept along `c`, along `b`, along `a`, and asked from the top
    // (positions waiting for their options). Against the definition and
    // the general path.
    let n = 6;
    let g = sloped(n);
    let game = "game G(a, b, c) where a >= 0 and b >= 0 and c >= 0 {
            move m1(k in 0..b) -> G(a, min((k + 2 * b) / 3, max(3 * c - a, 0)), c)
            move m2(k in 0..c) -> G(min(a, (k + b) / 2), b, k)
            move m3(k in 0..a) -> G(k, b, min(c, max(2 * b - k, 0)))
            move m4(k in 1..=c) -> G(a, min(b, (a + k) / 3), c - k)
            move m5(k in 0..a) -> G(k, b, c)
            move m6(k in 0..a) -> G(k, min(b, (k + a) / 2), c)
        }";
    // The loops, the position asked, and where element (i, j, l) lies.
    let cases: [(&str, &str, At3); 4] = [
        (
            "a in 0..=N, b in 0..=N, c in 0..=N",
            "G(a, b, c)",
            |_, [i, j, l]| [i, j, l],
        ),
        (
            "c in 0..=N, a in 0..=N, b in 0..=N",
            "G(a, b, c)",
            |_, [i, j, l]| [j, l, i],
        ),
        (
            "b in 0..=N, c in 0..=N, a in 0..=N",
            "G(a, b, c)",
            |_, [i, j, l]| [l, i, j],
        ),
        (
            "a in 0..=N, b in 0..=N, c in 0..=N",
            "G(N - a, b, N - c)",
            |n, [i, j, l]| [n - i, j, n - l],
        ),
    ];
    valued_in_every_case(game, n, &g, &cases, "");
}

/// The game of `bend_pieces_along_a_line_grow_shrink_or_move` by its
/// definition (with its `shrink` move or without): `g[a][b][c]` for `a,
/// b, c <= n`.
fn growing(n: usize, shrink: bool) -> Cube {
    cube(n, |g, a, b, c| {
        let mut options = Vec::new();
        options.extend((0..c).map(|k| g[a.min((k + b) / 2)][b][k]));
        if shrink {
            options.extend((c..a).map(|k| g[a - 1][b.min((k + a) / 3)][0]));
        }
        options.extend((0..b).map(|k| g[a][k][c.min((k + a) / 2)]));
        options
    })
}

#[test]
fn bend_pieces_along_a_line_grow_shrink_or_move() {
    // Along `c`, `grow`'s pieces and `drift`'s quotient piece list the
    // same options at every position, more of them as `c` grows (the
    // pieces a line could carry from one position to the next, marking
    // only what each adds); `drift`'s clamped piece moves with `c`, and
    // `shrink`'s pieces lose an option a position. Swept along `c` up
    // and down (`N - c`: every such piece shrinks), along `b` and along
    // `a`, against the definition and the general path, every plan on,
    // off and each off in turn.
    let n = 7;
    for (name, shrink) in [
        (
            "with shrink",
            "move shrink(k in c..a) -> H(a - 1, min(b, (k + a) / 3), 0)",
        ),
        ("without shrink", ""),
    ] {
        let game = format!(
            "game H(a, b, c) where a >= 0 and b >= 0 and c >= 0 {{
                move grow(k in 0..c) -> H(min(a, (k + b) / 2), b, k)
                {shrink}
                move drift(k in 0..b) -> H(a, k, min(c, (k + a) / 2))
            }}"
        );
        let g = growing(n, !shrink.is_empty());
        let cases: [(&str, &str, At3); 4] = [
            (
                "a in 0..=N, b in 0..=N, c in 0..=N",
                "H(a, b, c)",
                |_, [i, j, l]| [i, j, l],
            ),
            (
                "a in 0..=N, b in 0..=N, c in 0..=N",
                "H(a, b, N - c)",
                |n, [i, j, l]| [i, j, n - l],
            ),
            (
                "a in 0..=N, c in 0..=N, b in 0..=N",
                "H(a, b, c)",
                |_, [i, j, l]| [i, l, j],
            ),
            (
                "b in 0..=N, c in 0..=N, a in 0..=N",
                "H(a, b, c)",
                |_, [i, j, l]| [l, i, j],
            ),
        ];
        valued_in_every_case(&game, n, &g, &cases, name);
    }
}

/// The chocolate moves on a bar whose `y` has no top (`H(x, y, z)`, `y
/// >= 0`): `g[x][z][y]` for `x, z <= n`, `y <= top`.
fn open_chocolate(n: usize, top: usize) -> Vec<Vec<Vec<u64>>> {
    let f = |x: usize, z: usize| (x + z) / 3;
    let mut g = vec![vec![vec![0u64; top + 1]; n + 1]; n + 1];
    for x in 0..=n {
        for z in 0..=n {
            for y in 0..=top {
                let mut options = Vec::new();
                options.extend((0..x).map(|u| g[u][z][y.min(f(u, z))]));
                options.extend((0..y).map(|v| g[x][z][v]));
                options.extend((0..z).map(|w| g[x][w][y.min(f(x, w))]));
                g[x][z][y] = (0..).find(|v| !options.contains(v)).expect("a mex");
            }
        }
    }
    g
}

#[test]
fn a_swept_end_read_off_the_outer_loops_or_not() {
    // The swept `y`'s range ends at code of the outer loops' variables:
    // rising with them (`F(x, z)`, `min(x, z) + 1`, an outer loop with an
    // exclusive end, a `let ... in`), where the window is reserved at
    // once for the box (`compile/swept_end.rs`), or not rising (`N - x`,
    // `2 * x - z`, `(x * z) % 5`), where it grows line by line. Against
    // the definition and the general path.
    let n = 7;
    let g = open_chocolate(n, 2 * n + 1);
    let game = "fn F(x, z) = (x + z) / 3
        game H(x, y, z) where x >= 0 and z >= 0 and y >= 0 {
            move cut_x(u in 0..x) -> H(u, min(F(u, z), y), z)
            move cut_y(v in 0..y) -> H(x, v, z)
            move cut_z(w in 0..z) -> H(x, min(y, F(x, w)), w)
        }";
    type End = fn(usize, usize, usize) -> i64;
    let cases: [(&str, &str, End); 7] = [
        ("0..=N", "0..=F(x, z)", |_, x, z| ((x + z) / 3) as i64),
        ("0..=N", "0..min(x, z) + 1", |_, x, z| x.min(z) as i64),
        ("0..N", "1..=2 * F(x, z) + 1", |_, x, z| {
            (2 * ((x + z) / 3) + 1) as i64
        }),
        ("0..=N", "0..=N - x", |n, x, _| (n - x) as i64),
        ("0..=N", "0..=2 * x - z", |_, x, z| 2 * x as i64 - z as i64),
        ("0..=N", "0..=(x * z) % 5", |_, x, z| ((x * z) % 5) as i64),
        ("0..=N", "0..=(let t = x + z in t / 2)", |_, x, z| {
            ((x + z) / 2) as i64
        }),
    ];
    for (outer, swept, end) in cases {
        let text =
            format!("{game}\nprint [sg(H(x, y, z)) for x in {outer}, z in 0..=N, y in {swept}]")
                .replace('N', &n.to_string());
        let out = same_every_way(&text, Limits::default());
        let last = if outer.contains("..=") { n } else { n - 1 };
        let start = |_: usize, _: usize| i64::from(swept.starts_with('1'));
        let want: Vec<String> = (0..=last)
            .flat_map(|x| (0..=n).map(move |z| (x, z)))
            .flat_map(|(x, z)| (start(x, z)..=end(n, x, z)).map(move |y| (x, y as usize, z)))
            .map(|(x, y, z)| g[x][z][y].to_string())
            .collect();
        assert_eq!(
            out.trim(),
            format!("[{}]", want.join(", ")),
            "{outer}, {swept}"
        );
    }
}

/// The game of `runs_of_four_bends_and_of_five` by its definition:
/// `g[a][b][c][d][e][f]` for each coordinate at most `n`, flattened.
fn five_bends(n: usize) -> Vec<u64> {
    let m = n + 1;
    let at = |p: [usize; 6]| p.iter().fold(0, |i, &x| i * m + x);
    let mut g = vec![0u64; m.pow(6)];
    for i in 0..m.pow(6) {
        let mut p = [0usize; 6];
        let mut r = i;
        for x in p.iter_mut().rev() {
            *x = r % m;
            r /= m;
        }
        let [a, b, c, d, e, f] = p;
        let mut options = Vec::new();
        options.extend((0..a).map(|k| {
            g[at([
                k,
                b.min(k),
                c.min(k + 1),
                d.min(2 * k),
                e.min((k + a) / 2),
                f.saturating_sub(k),
            ])]
        }));
        options.extend((0..a).map(|k| {
            g[at([
                k,
                b.min(k),
                c.min(k + 1),
                d.min(2 * k),
                e.min((k + a) / 2),
                f,
            ])]
        }));
        options.extend((0..f).map(|k| g[at([a, b, c, d, e, k])]));
        g[i] = (0..).find(|v| !options.contains(v)).expect("a mex");
    }
    g
}

#[test]
fn runs_of_four_bends_and_of_five() {
    // Runs of four and five clamped arguments (`search/bend.rs`: a cut
    // or more for each, sorted, the run's end after them; pieces with
    // no cut, one and several), swept along the last coordinate and
    // asked from the top. Against the definition and the general path.
    let n = 2;
    let g = five_bends(n);
    let game = "game G(a, b, c, d, e, f) where a >= 0 and b >= 0 and c >= 0 and d >= 0 and e >= 0 and f >= 0 {
            move five(k in 0..a) -> G(k, min(b, k), min(c, k + 1), min(d, 2 * k), min(e, (k + a) / 2), max(f - k, 0))
            move four(k in 0..a) -> G(k, min(b, k), min(c, k + 1), min(d, 2 * k), min(e, (k + a) / 2), f)
            move take(k in 0..f) -> G(a, b, c, d, e, k)
        }";
    let loops = "a in 0..=N, b in 0..=N, c in 0..=N, d in 0..=N, e in 0..=N, f in 0..=N";
    for asked in ["G(a, b, c, d, e, f)", "G(N - a, b, c, d, e, N - f)"] {
        let text = format!("{game}\nprint [sg({asked}) for {loops}]").replace('N', &n.to_string());
        let out = same_every_way(&text, Limits::default());
        let m = n + 1;
        let want: Vec<String> = (0..m.pow(6))
            .map(|i| match asked.contains("N - a") {
                // `a` and `f` read from the top.
                true => {
                    let (a, f) = (i / m.pow(5), i % m);
                    i - a * m.pow(5) - f + (n - a) * m.pow(5) + (n - f)
                }
                false => i,
            })
            .map(|i| g[i].to_string())
            .collect();
        assert_eq!(out.trim(), format!("[{}]", want.join(", ")), "{asked}");
    }
}

/// The game of `bends_kept_for_a_line_or_evaluated_at_each_position` by
/// its definition: `g[a][b][c]` for `a, b, c <= n`.
fn kept_bends(n: usize) -> Cube {
    cube(n, |g, a, b, c| {
        let mut options = Vec::new();
        options.extend((0..a).map(|k| g[k][((k + 2 * b) / 3).min(b)][k.min(c)]));
        options.extend((0..a).map(|k| g[k][b][((k + 2 * c) / 3).min(c)]));
        options.extend((0..a).map(|k| g[k][((k + a) / 2).min(b)][0]));
        options.extend((0..a).map(|k| g[k][((k + 5) / 3).min(2)][c.min(k)]));
        options.extend((0..a).map(|k| g[k][((k + b) / 2).min(b)][c.min(k / 2)]));
        let clamp = |k: usize| (b as i64 - k as i64).min(1);
        options.extend((0..a).map(|k| g[k][b][(((k + c) / 2) as i64).max(clamp(k)) as usize]));
        options.extend((0..c).map(|k| g[a][b][k]));
        options
    })
}

#[test]
fn bends_kept_for_a_line_or_evaluated_at_each_position() {
    // Runs whose range and affine arguments read only `a`: along `b` or
    // `c` a line keeps their set-up (`search/kernel.rs`, `RunHeld`), and
    // with it each bend's quotient that does not read the moving
    // coordinate and the run's place in the window (`search/bend.rs`,
    // `BendHeld`). `p`'s quotient reads `b` (evaluated at each position
    // along `b`, kept along `c`) and its second bend's clamp `c`, `r`'s
    // quotient and clamp read `c` (with its quotient kept along `c`, the
    // sweep along `c` fails); `q`'s
    // quotient reads `a` (kept along `b` and `c`) and its clamp `b`;
    // `s`'s first quotient and clamp are constants; `u` has two
    // quotients that are not affine, which `kernel_bends` refuses (the
    // batched code values it) at every position; `v`'s quotient reads `c`
    // and its clamp, itself clamped, `b` (a line's kept bends refresh
    // their clamps' lines at each position). Swept along each
    // coordinate and asked from the top (positions waiting for their
    // options), against the definition and the general path.
    let n = 7;
    let g = kept_bends(n);
    let game = "game H(a, b, c) where a >= 0 and b >= 0 and c >= 0 {
            move p(k in 0..a) -> H(k, min((k + 2 * b) / 3, b), min(k, c))
            move r(k in 0..a) -> H(k, b, min((k + 2 * c) / 3, c))
            move q(k in 0..a) -> H(k, min((k + a) / 2, b), 0)
            move s(k in 0..a) -> H(k, min((k + 5) / 3, 2), min(c, k))
            move u(k in 0..a) -> H(k, min((k + b) / 2, b), min(c, k / 2))
            move v(k in 0..a) -> H(k, b, max((k + c) / 2, min(b - k, 1)))
            move t(k in 0..c) -> H(a, b, k)
        }";
    let cases: [(&str, &str, At3); 4] = [
        (
            "a in 0..=N, c in 0..=N, b in 0..=N",
            "H(a, b, c)",
            |_, [i, j, l]| [i, l, j],
        ),
        (
            "a in 0..=N, b in 0..=N, c in 0..=N",
            "H(a, b, c)",
            |_, [i, j, l]| [i, j, l],
        ),
        (
            "b in 0..=N, c in 0..=N, a in 0..=N",
            "H(a, b, c)",
            |_, [i, j, l]| [l, i, j],
        ),
        (
            "a in 0..=N, c in 0..=N, b in 0..=N",
            "H(N - a, N - b, c)",
            |n, [i, j, l]| [n - i, n - l, j],
        ),
    ];
    valued_in_every_case(game, n, &g, &cases, "");
}

/// The game of `a_lines_moves_in_one_pass_or_one_by_one` by its
/// definition, with its single move or without, and its run of two
/// quotients or without: `g[a][b][c]` for `a, b, c <= n`.
fn one_pass(n: usize, single: bool, quotients: bool) -> Cube {
    cube(n, |g, a, b, c| {
        let mut options = Vec::new();
        options.extend((0..a).map(|k| g[k][((k + b) / 2).min(b)][c]));
        options.extend((0..c).map(|k| g[a][b][k]));
        options.extend((1..=a.min(b)).map(|k| g[a - k][b - k][c]));
        options.extend((0..a).map(|k| g[k][b][c.min(3 * k)]));
        if single && c > 1 {
            options.push(g[a][b][c - 2]);
        }
        if quotients {
            options.extend((0..a).map(|k| g[k][((k + b) / 2).min(b)][c.min(k / 2)]));
        }
        options
    })
}

#[test]
fn a_lines_moves_in_one_pass_or_one_by_one() {
    // A line whose every move is a run read whole in the memo's window
    // (a bend run, the options beside the position, a plain run of two
    // moving arguments, a clamp by the binding); with a single move
    // beside them, or a run of two quotients that `kernel_bends` refuses
    // (the batched code values it); and tables asked from the top
    // (options without a value yet). A one-pass form of the first
    // (bend19, commit 9552a69) was tried against these. Along each
    // coordinate, against the definition and the general path.
    let n = 6;
    let base = "game G(a, b, c) where a >= 0 and b >= 0 and c >= 0 {
            move m(k in 0..a) -> G(k, min((k + b) / 2, b), c)
            move t(k in 0..c) -> G(a, b, k)
            move p(k in 1..=min(a, b)) -> G(a - k, b - k, c)
            move r(k in 0..a) -> G(k, b, min(c, 3 * k))
            MORE
        }";
    for (single, quotients) in [(false, false), (true, false), (false, true)] {
        let g = one_pass(n, single, quotients);
        let more = match (single, quotients) {
            (true, _) => "move s() if c > 1 -> G(a, b, c - 2)",
            (_, true) => "move u(k in 0..a) -> G(k, min((k + b) / 2, b), min(c, k / 2))",
            _ => "",
        };
        let game = base.replace("MORE", more);
        let cases: [(&str, &str, At3); 4] = [
            (
                "a in 0..=N, b in 0..=N, c in 0..=N",
                "G(a, b, c)",
                |_, [i, j, l]| [i, j, l],
            ),
            (
                "a in 0..=N, c in 0..=N, b in 0..=N",
                "G(a, b, c)",
                |_, [i, j, l]| [i, l, j],
            ),
            (
                "b in 0..=N, c in 0..=N, a in 0..=N",
                "G(a, b, c)",
                |_, [i, j, l]| [l, i, j],
            ),
            (
                "a in 0..=N, b in 0..=N, c in 0..=N",
                "G(N - a, b, N - c)",
                |n, [i, j, l]| [n - i, j, n - l],
            ),
        ];
        valued_in_every_case(&game, n, &g, &cases, more);
    }
}
