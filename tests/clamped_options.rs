//! Options read at their clamped position: an argument the moves read
//! only as `min(x, bound)` makes an option past its bound equal to the
//! option at it (`Compiler::clamped_options`), so a table reads such
//! options inside its box. Values and errors are the general path's, on
//! games where that holds and on games where it must not be used: the
//! argument read bare somewhere, a `where` the clamped position could
//! break, a bound that reads the argument.

use crate::common::{explain, same_both_ways};
use crate::kernels::{brute_sg, shown};

const CLAMPED: &str = "each option is read at its clamped position";

type Options = dyn Fn(&(i64, i64)) -> Vec<(i64, i64)>;

/// The values of the positions `H(n, m)` for `n in 0..=top, m in
/// 1..=top` (the order the programs below print them), by brute force.
fn table(top: i64, options: &Options, valid: &dyn Fn(&(i64, i64)) -> bool) -> String {
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=top)
        .flat_map(|n| (1..=top).map(move |m| (n, m)))
        .filter(valid)
        .map(|p| brute_sg(&p, options, valid, &mut memo))
        .collect();
    shown(&values)
}

/// `game H(n, m) where {wh} {moves}` asked over `0..=top` by `1..=top`,
/// checked against the general path and against `options` by brute
/// force; whether `--explain` says its options are read clamped.
fn check(
    wh: &str,
    moves: &str,
    top: i64,
    options: &Options,
    valid: &dyn Fn(&(i64, i64)) -> bool,
) -> bool {
    let program = format!(
        "game H(n, m) where {wh} {{\n{moves}\n}}\n\
         print [sg(H(n, m)) for n in 0..={top}, m in 1..={top} if {wh}]"
    );
    let out = same_both_ways(&program);
    assert_eq!(out.trim_end(), table(top, options, valid), "{program}");
    explain(&program).contains(CLAMPED)
}

fn fib(&(n, m): &(i64, i64)) -> Vec<(i64, i64)> {
    (1..=m.min(n)).map(|k| (n - k, 2 * k)).collect()
}

#[test]
fn fibonacci_nim_reads_options_past_the_box_at_their_clamped_position() {
    // Options (n - k, 2k) with 2k > 30 lie outside the table's box; at
    // n - k = 0 the clamp's bound is 0, below the `where`'s m >= 1.
    let valid = |&(n, m): &(i64, i64)| n >= 0 && m >= 1;
    let wh = "n >= 0 and m >= 1";
    let as_min = "move take(k in 1..=min(m, n)) -> H(n - k, 2 * k)";
    assert!(check(wh, as_min, 30, &fib, &valid));
    let as_guard = "move take(k in 1..=m) if k <= n -> H(n - k, 2 * k)";
    assert!(check(wh, as_guard, 30, &fib, &valid));
    // A `where` whose least m is above the bound at small n.
    let valid3 = |&(n, m): &(i64, i64)| n >= 0 && m >= 3;
    let plus2 = |&(n, m): &(i64, i64)| (1..=m.min(n)).map(|k| (n - k, 2 * k + 2)).collect();
    let moves = "move take(k in 1..=min(m, n)) -> H(n - k, 2 * k + 2)";
    assert!(check("n >= 0 and m >= 3", moves, 24, &plus2, &valid3));
}

#[test]
fn options_are_not_clamped_where_the_proof_fails() {
    let valid = |&(n, m): &(i64, i64)| n >= 0 && m >= 1;
    // `m` read bare by a second move.
    let bare = "move take(k in 1..=min(m, n)) -> H(n - k, 2 * k)
        move grow if m < 3 and n > 0 -> H(n - 1, m + 5)";
    let grow = |&(n, m): &(i64, i64)| {
        let mut o = fib(&(n, m));
        if m < 3 && n > 0 {
            o.push((n - 1, m + 5));
        }
        o
    };
    assert!(!check("n >= 0 and m >= 1", bare, 20, &grow, &valid));
    // A `where` with a top for m: an option past it is no position, its
    // clamped twin would be one.
    let capped = |&(n, m): &(i64, i64)| n >= 0 && (1..=20).contains(&m);
    let fib_min = "move take(k in 1..=min(m, n)) -> H(n - k, 2 * k)";
    assert!(!check(
        "n >= 0 and 1 <= m <= 20",
        fib_min,
        20,
        &fib,
        &capped
    ));
    // A `where` that is not bounds: `m != 7` could hold at the option and
    // fail at its clamped twin, or the other way.
    let not7 = |&(n, m): &(i64, i64)| n >= 0 && m >= 1 && m != 7;
    assert!(!check(
        "n >= 0 and m >= 1 and m != 7",
        fib_min,
        20,
        &fib,
        &not7
    ));
    // A bound that reads the argument itself.
    let own = |&(n, m): &(i64, i64)| {
        (1..=m.min(n + m))
            .filter(|k| *k <= n)
            .map(|k| (n - k, 2 * k))
            .collect()
    };
    let moves = "move take(k in 1..=min(m, n + m)) if k <= n -> H(n - k, 2 * k)";
    assert!(!check("n >= 0 and m >= 1", moves, 20, &own, &valid));
}

#[test]
fn a_bound_that_fails_at_an_option_leaves_it_to_the_general_path() {
    // The bound `12 / n` read at the option (0, 2k) divides by zero; the
    // option is no position (n >= 1), so the general path never asks it:
    // no failure either way.
    let valid = |&(n, m): &(i64, i64)| n >= 1 && m >= 1;
    let options = |&(n, m): &(i64, i64)| (1..=m.min(12 / n)).map(|k| (n - k, 2 * k)).collect();
    let moves = "move take(k in 1..=min(m, 12 / n)) -> H(n - k, 2 * k)";
    let program = format!(
        "game H(n, m) where n >= 1 and m >= 1 {{\n{moves}\n}}\n\
         print [sg(H(n, m)) for n in 1..=20, m in 1..=20]"
    );
    let out = same_both_ways(&program);
    assert!(!out.contains("failure"), "{out}");
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (1..=20)
        .flat_map(|n| (1..=20).map(move |m| (n, m)))
        .map(|p| brute_sg(&p, &options, &valid, &mut memo))
        .collect();
    assert_eq!(out.trim_end(), shown(&values));
    assert!(explain(&program).contains(CLAMPED));
    // An error the general path meets is met the same way: the bound's
    // code at the option fails on (0, 2k), which is a position here.
    let failing = "game H(n, m) where n >= 0 and m >= 1 {
            move take(k in 1..=m) if k <= 12 / n -> H(n - k, 2 * k)
        }
        print [sg(H(n, m)) for n in 1..=6, m in 1..=6]";
    assert!(same_both_ways(failing).contains("division by zero"));
}

#[test]
fn two_clamped_arguments_each_read_at_their_bound() {
    // `b` and `c` both read only through `min(_, a)`.
    let program = "game G(a, b, c) where a >= 0 and b >= 1 and c >= 0 {
            move x(k in 1..=min(b, a)) -> G(a - k, 2 * k, k + 1)
            move y(j in 1..=min(c, a)) -> G(a - j, j, 3 * j)
        }
        print [sg(G(a, b, c)) for a in 0..=12, b in 1..=12, c in 0..=12]";
    let out = same_both_ways(program);
    let options = |&(a, b, c): &(i64, i64, i64)| -> Vec<(i64, i64, i64)> {
        let xs = (1..=b.min(a)).map(|k| (a - k, 2 * k, k + 1));
        xs.chain((1..=c.min(a)).map(|j| (a - j, j, 3 * j)))
            .collect()
    };
    let valid = |&(a, b, c): &(i64, i64, i64)| a >= 0 && b >= 1 && c >= 0;
    let mut memo = std::collections::HashMap::new();
    let values: Vec<i64> = (0..=12)
        .flat_map(|a| (1..=12).flat_map(move |b| (0..=12).map(move |c| (a, b, c))))
        .map(|p| brute_sg(&p, &options, &valid, &mut memo))
        .collect();
    assert_eq!(out.trim_end(), shown(&values));
    assert_eq!(explain(program).matches(CLAMPED).count(), 2);
}
