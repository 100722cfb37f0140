//! What the integration tests share: a program's output with its
//! failures, the same run with the fast plans (`Limits::plans`:
//! kernels, integer code, sweeps, games compiled for their static
//! arguments) on and off, and what `--explain` says of it.

// Each test file uses some of these.
#![allow(dead_code)]

use grundy::{Limits, Plans, Session};

/// Runs `text` under `limits` and returns its output followed by its
/// failures.
pub fn run_with(text: &str, limits: Limits) -> String {
    let mut session = Session::new(limits);
    let mut out = Vec::new();
    let result = session.run("program", text, &mut out);
    let mut shown = String::from_utf8(out).expect("utf-8 output");
    for f in &result.failures {
        shown.push_str(&format!("failure: {f}\n"));
    }
    shown
}

/// `run_with` the default limits, the fast plans all on or all off.
pub fn run(text: &str, fast: bool) -> String {
    run_with(
        text,
        Limits {
            plans: if fast { Plans::ALL } else { Plans::NONE },
            ..Limits::default()
        },
    )
}

/// The output of `text` under `limits`, asserted to be the same with the
/// fast paths on and off.
pub fn same_both_ways_with(text: &str, limits: Limits) -> String {
    let on = run_with(
        text,
        Limits {
            plans: Plans::ALL,
            ..limits.clone()
        },
    );
    let off = run_with(
        text,
        Limits {
            plans: Plans::NONE,
            ..limits
        },
    );
    assert_eq!(on, off, "fast paths on (left) and off (right) differ");
    on
}

/// `same_both_ways_with` the default limits.
pub fn same_both_ways(text: &str) -> String {
    same_both_ways_with(text, Limits::default())
}

/// What `--explain` says of a program's games.
pub fn explain(text: &str) -> String {
    let mut session = Session::new(Limits::default());
    session.explain_games = true;
    let mut out = Vec::new();
    let result = session.run("explain", text, &mut out);
    assert!(result.ok(), "{:?}", result.failures);
    String::from_utf8(out).expect("utf-8 output")
}

/// The neighbours of each cell of the 3 x `n` grid as bit masks, cells
/// numbered down each column (`v = 3 * column + row`): the brute forces
/// of Node Kayles and of geography on that grid read them.
pub fn grid3_neighbours(n: usize) -> Vec<u64> {
    (0..3 * n)
        .map(|v| {
            let (r, c) = (v % 3, v / 3);
            let mut a = 0u64;
            if r > 0 {
                a |= 1 << (v - 1);
            }
            if r < 2 {
                a |= 1 << (v + 1);
            }
            if c > 0 {
                a |= 1 << (v - 3);
            }
            if c + 1 < n {
                a |= 1 << (v + 3);
            }
            a
        })
        .collect()
}
