//! Limits that hold wherever grundy runs (issue 35): under an address-space
//! cap (`ulimit -v`, as on a shared server or a batch node) hostile inputs
//! end in a located `grundy::out_of_memory`, never an allocation abort
//! (exit 134); `--timeout` and Ctrl-C reach every loop; the memory budget,
//! not a count of positions, is the default stop. Run through the binary,
//! as a user would; the inputs are written here.
//!
//! A test binary of its own (Cargo.toml), not a module of
//! tests/integration.rs: a child's peak memory from wait4 starts at its
//! parent's high-water mark, which the other tests would raise.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The address-space cap of these runs, in KiB: 1 GiB leaves a budget of
/// a few hundred MiB after the evaluator's stack, so a runaway input
/// reaches it within seconds.
const CAP_KIB: u64 = 1 << 20;

struct Ended {
    code: i32,
    out: String,
    err: String,
    secs: f64,
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `grundy run FILE ARGS`, under `ulimit -v cap_kib` when one is given.
fn run(file: &Path, args: &[&str], cap_kib: Option<u64>) -> Ended {
    let bin = env!("CARGO_BIN_EXE_grundy");
    let mut cmd = match cap_kib {
        Some(kib) => {
            let mut c = Command::new("bash");
            c.arg("-c")
                .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
                .arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.arg("run").arg(file).args(args).stdin(Stdio::null());
    let start = Instant::now();
    let out = cmd.output().expect("run grundy");
    Ended {
        code: out.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
        secs: start.elapsed().as_secs_f64(),
    }
}

/// `grundy run FILE ARGS` and its peak resident memory in KiB (from
/// wait4, which reports that child alone).
fn run_measured(file: &Path, args: &[&str]) -> (Ended, i64) {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let start = Instant::now();
    // Waited for by wait4 below, which also gives its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("run")
        .arg(file)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run grundy");
    let mut status = 0;
    // SAFETY: rusage is plain data, filled in by wait4 for our own child,
    // which nothing else waits for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let ended = Ended {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        out: std::fs::read_to_string(&out_path).unwrap(),
        err: std::fs::read_to_string(&err_path).unwrap(),
        secs: start.elapsed().as_secs_f64(),
    };
    (ended, usage.ru_maxrss)
}

/// Runs each `(name, text, located)` under the cap (with a timeout as a
/// guard against a hang) and checks that it ends in `grundy::out_of_memory`
/// pointing at `located` (`file:line:column`, or the statement it
/// names; alternatives separated by ` | `), not an abort.
fn each_runs_out_of_memory(cases: &[(&str, &str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, located) in cases {
        let file = write(dir.path(), name, text);
        let e = run(&file, &["--timeout", "15"], Some(CAP_KIB));
        assert_ne!(e.code, 134, "{name} aborted:\n{}", e.err);
        assert_eq!(e.code, 1, "{name}:\n{}", e.err);
        assert!(
            e.err.contains("grundy::out_of_memory"),
            "{name}:\n{}",
            e.err
        );
        assert!(
            located.split(" | ").any(|at| e.err.contains(at)),
            "{name}: not at {located}:\n{}",
            e.err
        );
        // The default budget follows the cap, and the message says so.
        let flat = e.err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("address-space limit (ulimit -v) of 1.0 GiB"),
            "{name}:\n{}",
            e.err
        );
        assert!(e.secs < 20.0, "{name}: {} s", e.secs);
    }
}

#[test]
fn comprehensions_over_a_trillion_values_stop_at_the_budget_of_ulimit_v() {
    each_runs_out_of_memory(&[
        (
            "list.game",
            "print len([x for x in 0..1000000000000])\n",
            "list.game:1:11",
        ),
        (
            "set.game",
            "print len({x for x in 0..1000000000000})\n",
            "set.game:1:11",
        ),
    ]);
}

#[test]
fn products_of_many_components_stop_at_the_budget_of_ulimit_v() {
    let heap = "game H(n) where n >= 0 { move take(k in 1..=n) -> H(n - k) }\n";
    let heaps = |n: usize| {
        (0..n)
            .map(|i| format!("H({})", i % 5 + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let edge = (0..64)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let cases = [
        (
            "sel20.game",
            format!("{heap}print sg(selective({}))\n", heaps(20)),
        ),
        (
            "sel64.game",
            format!("{heap}print sg(selective({}))\n", heaps(64)),
        ),
        (
            "hyper64.game",
            format!("{heap}print sg(hypergraph([[{edge}]], {}))\n", heaps(64)),
        ),
    ];
    let cases: Vec<_> = cases
        .iter()
        .map(|(name, text)| (*name, text.as_str(), "game:2:7"))
        .collect();
    each_runs_out_of_memory(&cases);
}

#[test]
fn positions_that_grow_without_end_stop_at_the_budget_of_ulimit_v() {
    each_runs_out_of_memory(&[
        (
            "list.game",
            "game G(xs) { move grow -> G(xs + [len(xs)]) }\nprint sg(G([]))\n",
            "list.game:1:29",
        ),
        (
            "string.game",
            "game G(s) { move grow -> G(s + \"ab\") }\nprint sg(G(\"\"))\n",
            "string.game:1:28",
        ),
        // A misère game whose options are sums of many positions.
        (
            "misere.game",
            "game K(n) where n >= 0 { move take(a in 0..n, b in 0..n) if a + b < n -> K(a) + K(b) }\n\
             print sg(misere(K(2000)))\n",
            // Where the check falls varies: the statement is pointed at,
            // or named when the check falls where no span is at hand.
            "misere.game:2:7 | while evaluating `sg(misere(K(2000)))`",
        ),
    ]);
}

#[test]
fn options_outside_where_cost_no_memory() {
    // Subtract-a-square: most `n - k * k` are negative, outside `where`.
    // They once filled the memo (281 MB at N = 4000, past --max-memory).
    let n = 4000;
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "squares.game",
        &format!(
            "game S(n) where n >= 0 {{ move take(k in 1..=n) -> S(n - k * k) }}\n\
             print [sg(S(n)) for n in 0..={n}]\n"
        ),
    );
    let (e, peak_kib) = run_measured(&file, &["--max-memory", "30M"]);
    assert_eq!(e.code, 0, "{}", e.err);
    assert!(peak_kib < 40 << 10, "peak {peak_kib} KiB");
    // The values by the mex rule, directly.
    let mut g = vec![0usize; n + 1];
    for m in 1..=n {
        let mut seen = vec![false; m + 2];
        for k in (1..).take_while(|k| k * k <= m) {
            seen[g[m - k * k]] = true;
        }
        g[m] = seen.iter().position(|s| !s).unwrap();
    }
    let expected = format!(
        "[{}]",
        g.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(e.out.trim(), expected);
    assert!(e.secs < 20.0, "{} s", e.secs);
}

/// Checks a run that must stop at `--timeout` with a located error, at
/// most `within` seconds after the limit.
fn times_out(name: &str, text: &str, timeout: f64, within: f64, located: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), name, text);
    let e = run(
        &file,
        &["--timeout", &timeout.to_string()],
        Some(4 * CAP_KIB),
    );
    assert_eq!(e.code, 1, "{name}:\n{}", e.err);
    assert!(e.err.contains("grundy::timeout"), "{name}:\n{}", e.err);
    assert!(
        e.err.contains(&format!("timed out after {timeout} s")),
        "{name}:\n{}",
        e.err
    );
    assert!(
        e.err.contains(located),
        "{name}: not at {located}:\n{}",
        e.err
    );
    assert!(e.secs >= timeout, "{name}: {} s", e.secs);
    assert!(e.secs < timeout + within, "{name}: {} s", e.secs);
}

#[test]
fn a_timeout_reaches_recursion_and_pass_compounds() {
    times_out(
        "calls.game",
        "fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)\nprint f(60)\n",
        2.0,
        3.0,
        // Either call of `f(n - 1)` may be running when the limit falls.
        "calls.game:1:",
    );
    times_out(
        "pass.game",
        "game Heap(n) where n >= 0 { move take(k in 1..=n) -> Heap(n - k) }\n\
         print sg(pass(Heap(3) + Heap(4), 1000000))\n",
        // Long enough for a path of many thousand positions, which the
        // error unmarks in a sweep of the memo: within a second.
        8.0,
        1.0,
        "pass.game:2:7",
    );
}

#[test]
fn a_timeout_reaches_the_take_and_break_engine() {
    // Splits into three heaps: the period search computes 4096 heaps at
    // a cost of n^2 each, seconds even in a release build.
    times_out(
        "period.game",
        "print periodicity(octal(\"0.86\"))\n",
        1.0,
        3.0,
        "period.game:1:7",
    );
    // A misère search whose positions have 10^5 options each.
    times_out(
        "misere.game",
        "game H(n) where n >= 0 { move take(k in 0..n) -> H(k) }\n\
         print sg(misere(H(100000)))\n",
        1.0,
        3.0,
        "misere.game:2:7",
    );
}

#[test]
fn ctrl_c_reaches_the_take_and_break_engine() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "period.game",
        "print periodicity(octal(\"0.86\"))\n",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("run")
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run grundy");
    std::thread::sleep(Duration::from_millis(700));
    let sent = Instant::now();
    // SAFETY: kill(2) on the pid of a child we have not waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("grundy::interrupted"), "{err}");
    assert!(err.contains("period.game:1:7"), "{err}");
    assert!(
        sent.elapsed() < Duration::from_secs(3),
        "{:?}",
        sent.elapsed()
    );
}

#[test]
fn by_default_a_search_stores_as_many_positions_as_memory_allows() {
    // More than the 10^7 positions the state limit once allowed by
    // default; the sum of n mod 2 over 0..N is N / 2.
    let n = 10_500_000;
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "count.game",
        &format!(
            "game C(n) where n >= 0 {{ move down if n > 0 -> C(n - 1) }}\n\
             print sum(sg(C(n)) for n in 0..{n})\n"
        ),
    );
    let e = run(&file, &[], None);
    assert_eq!(
        (e.code, e.out.trim()),
        (0, &*(n / 2).to_string()),
        "{}",
        e.err
    );
    // A search that walks away from its start stops at the memory budget.
    each_runs_out_of_memory(&[(
        "walk.game",
        "game I(n) { move up -> I(n + 1) }\nprint sg(I(0))\n",
        "walk.game:2:7",
    )]);
    // The state limit can still be set.
    let e = run(&file, &["--max-states", "1000000"], None);
    assert_eq!(e.code, 1, "{}", e.err);
    assert!(e.err.contains("grundy::too_many_states"), "{}", e.err);
}

/// Memo tables ask the budget before they double: a grid game of 1.6e9
/// positions (negative coordinates, so a hashed table of them) stops at
/// the doubling that would pass the limit, with a located
/// `grundy::out_of_memory` that says so, under `ulimit -v` and under
/// `--max-memory`; its peak memory stays within the limit.
#[test]
fn memo_tables_ask_the_budget_before_doubling() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "grid.game",
        "game G(a, b) where a >= -40000 and b >= -40000 { move x -> G(a - 1, b) move y -> G(a, b - 1) }\n\
         print sg(G(0, 0))\n",
    );
    let check = |e: &Ended, how: &str| {
        assert_ne!(e.code, 134, "{how}: aborted:\n{}", e.err);
        assert_eq!(e.code, 1, "{how}:\n{}", e.err);
        let flat = e.err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("grundy::out_of_memory"), "{how}:\n{}", e.err);
        assert!(
            flat.contains("a memo table would grow past it"),
            "{how}: not stopped at a table's doubling:\n{}",
            e.err
        );
        assert!(e.err.contains("grid.game:2:7"), "{how}:\n{}", e.err);
    };
    let e = run(&file, &["--timeout", "120"], Some(CAP_KIB));
    check(&e, "ulimit -v");
    let limit_mib = 64;
    let (e, peak_kib) = run_measured(
        &file,
        &["--max-memory", &format!("{limit_mib}M"), "--timeout", "120"],
    );
    check(&e, "--max-memory");
    assert!(
        peak_kib < limit_mib * 1024,
        "peak {peak_kib} KiB past the limit of {limit_mib} MiB"
    );
}
