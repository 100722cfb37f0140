//! Inputs one step larger or stranger than usual (issue 14): each ends in a
//! value or a located error, never a panic, an abort or a hang. Huge inputs
//! are generated here, not stored. Run through the binary, as a user would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn grundy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run grundy")
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = grundy(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_diagnostic_on_a_very_long_line_shows_a_cut_of_it() {
    let dir = tempfile::tempdir().unwrap();
    // A syntax error at column 400,008 of a 400 KB line.
    let text = format!("let x = {})", "12 + ".repeat(80_000));
    let (code, _, err) = run(&write(dir.path(), "syntax.game", &text), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("grundy::syntax"), "{err}");
    assert!(
        err.contains(&format!("syntax.game:1:{}", text.len())),
        "{err}"
    );
    assert!(err.len() < 2_000, "{} bytes of diagnostic", err.len());
    // An evaluation error far along one line, with a label to the line's end.
    let text = format!("print [{}1 / 0]", "1, ".repeat(100_000));
    let (code, _, err) = run(&write(dir.path(), "eval.game", &text), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("grundy::division_by_zero"), "{err}");
    assert!(
        err.contains(&format!("eval.game:1:{}", 8 + 300_000)),
        "{err}"
    );
    assert!(err.len() < 2_000, "{} bytes of diagnostic", err.len());
}

#[test]
fn a_chain_of_a_million_terms_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("print 0{}\n", " + 1".repeat(1_000_000));
    let (code, _, err) = run(&write(dir.path(), "chain.game", text), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("expression too long"), "{err}");
    assert!(err.contains("chain.game:1:40009"), "{err}");
    // Just under the limit, the chain evaluates.
    let text = format!("print 0{}\n", " + 1".repeat(9_999));
    let (code, out, err) = run(&write(dir.path(), "ok.game", text), &[]);
    assert_eq!((code, out.trim()), (0, "9999"), "{err}");
}

#[test]
fn a_byte_order_mark_is_whitespace() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(&write(dir.path(), "bom.game", "\u{feff}print 1 + 1\n"), &[]);
    assert_eq!((code, out.as_str()), (0, "2\n"), "{err}");
}

#[test]
fn carriage_returns_alone_end_lines() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# a comment\rprint 1\rprint oops\rprint 3\r";
    let (code, out, err) = run(&write(dir.path(), "cr.game", text), &[]);
    // Names are checked before anything runs: nothing is printed.
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("cr.game:3:7"), "{err}");
    assert!(err.contains(" 3 │ print oops\n"), "{err}");
}

#[test]
fn invalid_utf8_is_reported_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        &write(dir.path(), "bad.game", b"print 1\nprint \xc3(\n"),
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("invalid UTF-8 at byte 14 (line 2, column 7)"),
        "{err}"
    );
}

#[test]
fn grundy_test_ends_on_symlink_loops_and_fifos() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.game", "assert 1 + 1 == 2\n");
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    let fifo = dir.path().join("pipe.game");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let out = grundy(&["test", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if made.is_ok_and(|s| s.success()) {
        assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
        assert!(stdout.contains("not a regular file"), "{stdout}");
    } else {
        assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
    }
}

/// Runs `text` with a small memory limit and a timeout; returns the exit
/// code, stderr and seconds taken.
fn run_limited(text: &str, max_memory: &str, timeout: &str) -> (i32, String, f64) {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "limited.game", text);
    let start = std::time::Instant::now();
    let (code, _, err) = run(&file, &["--max-memory", max_memory, "--timeout", timeout]);
    (code, err, start.elapsed().as_secs_f64())
}

#[test]
fn runaway_growth_stops_at_the_memory_limit_with_a_location() {
    let cases = [
        // A search that walks away from its start.
        (
            "game I(n) { move up -> I(n + 1) }\nprint sg(I(0))\n",
            "sg(I(0))",
        ),
        // A comprehension over 10^12 values.
        (
            "print len([x for x in 0..1000000000000])\n",
            "0..1000000000000",
        ),
        // Strings and lists doubling.
        (
            "fn g(s, n) = if n == 0 then len(s) else g(s + s, n - 1)\nprint g(\"ab\", 60)\n",
            "s + s",
        ),
        (
            "fn g(s, n) = if n == 0 then len(s) else g(s + s, n - 1)\nprint g([1], 60)\n",
            "s + s",
        ),
        // A position with 10^18 options.
        (
            "game T(n) { move take(k in 1..=n) -> T(n - k) }\nprint sg(T(1000000000000000000))\n",
            "sg(T(1000000000000000000))",
        ),
    ];
    for (text, located) in cases {
        let (code, err, secs) = run_limited(text, "200M", "60");
        assert_eq!(code, 1, "{text}\n{err}");
        assert!(err.contains("grundy::out_of_memory"), "{text}\n{err}");
        assert!(err.contains("the limit is 200 MiB"), "{err}");
        assert!(err.contains(located), "{text}\n{err}");
        assert!(secs < 30.0, "{text}: {secs} s");
    }
}

#[test]
fn a_timeout_reaches_function_calls_and_loops() {
    let cases = [
        "fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)\nprint f(60)\n",
        "print len([x for x in 0..1000000000000 if x < 0])\n",
    ];
    for text in cases {
        let (code, err, secs) = run_limited(text, "1G", "0.5");
        assert_eq!(code, 1, "{text}\n{err}");
        assert!(err.contains("grundy::timeout"), "{err}");
        assert!(err.contains("timed out after 0.5 s"), "{err}");
        assert!(secs < 10.0, "{text}: {secs} s");
    }
}

#[test]
fn limits_reject_bad_values() {
    for args in [
        ["--max-memory", "lots"],
        ["--timeout", "-1"],
        ["--timeout", "soon"],
    ] {
        let out = grundy(&[args[0], args[1], "run", "x.game"]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_hundred_thousand_lets_and_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let mut text: String = (0..100_000).map(|i| format!("let x{i} = {i}\n")).collect();
    text.push_str("print x99999 + x0\nlet x500 = 1\n");
    let (code, _, err) = run(&write(dir.path(), "lets.game", &text), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`x500` is defined twice"), "{err}");
    assert!(err.contains("lets.game:100002:5"), "{err}");
    text.truncate(text.len() - "let x500 = 1\n".len());
    let (code, out, err) = run(&write(dir.path(), "lets.game", &text), &[]);
    assert_eq!((code, out.as_str()), (0, "99999\n"), "{err}");
}

#[test]
fn a_large_file_is_parsed_in_groups_with_errors_in_place() {
    let dir = tempfile::tempdir().unwrap();
    // About 2 MB: several groups; the error is in a late one.
    let mut text: String = (0..60_000)
        .map(|i| format!("assert {i} + 1 == {}\n", i + 1))
        .collect();
    let (code, _, err) = run(&write(dir.path(), "many.game", &text), &[]);
    assert_eq!(code, 0, "{err}");
    text.push_str("game G(n) {\n  move m -> G(n -)\n}\n");
    let (code, _, err) = run(&write(dir.path(), "many.game", &text), &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("many.game:60002:18"), "{err}");
    assert!(err.contains("expected an expression"), "{err}");
}

#[test]
fn a_literal_too_large_for_the_memory_limit_is_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "let xs = [{}0]\nprint len(xs)\n",
        "123456, ".repeat(500_000)
    );
    let file = write(dir.path(), "big.game", &text);
    let (code, _, err) = run(&file, &["--max-memory", "100M"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("too large to parse within the memory limit"),
        "{err}"
    );
    assert!(err.contains("big.game:1:1"), "{err}");
    let (code, out, err) = run(&file, &["--max-memory", "2G"]);
    assert_eq!((code, out.as_str()), (0, "500001\n"), "{err}");
}

#[test]
fn set_takes_one_plain_name_once_with_one_expression_checked_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "set.game",
        "let N = 3\nlet M = 4\nprint \"ran\"\nprint N * M\n",
    );
    let (code, out, err) = run(&file, &["--set", "N=5", "--set", "M=2"]);
    assert_eq!((code, out.as_str()), (0, "ran\n10\n"), "{err}");
    for (args, message) in [
        (vec!["--set", "__override=1"], "`__override` is not a name"),
        (
            vec!["--set", "N=1", "--set", "N=2"],
            "--set N is given twice",
        ),
        (vec!["--set", "N=1 print 99"], "takes one expression"),
        (
            vec!["--set", "Q=1"],
            "--set Q matches no top-level `let` in",
        ),
    ] {
        let (code, out, err) = run(&file, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        // Nothing of the file ran.
        assert_eq!(out, "", "{args:?}");
    }
}

#[test]
fn plot_into_a_directory_writes_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "t.game",
        "print table(a + b for a in 0..3, b in 0..3)\n",
    );
    let plots = dir.path().join("plots");
    std::fs::create_dir(&plots).unwrap();
    let (code, _, err) = run(&file, &["--plot", plots.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(plots.join("plot.png").is_file(), "{err}");
    assert!(plots.join("plot.svg").is_file(), "{err}");
}

#[test]
fn sorted_orders_only_what_less_than_orders() {
    let dir = tempfile::tempdir().unwrap();
    for (text, expected) in [
        ("print sorted([1, \"a\"])\n", Some("cannot order")),
        ("print sorted([true, false])\n", Some("cannot order")),
        ("print sorted([3, 1, 2])\n", None),
        ("print sorted([\"b\", \"a\"])\n", None),
    ] {
        let (code, out, err) = run(&write(dir.path(), "s.game", text), &[]);
        match expected {
            Some(m) => {
                assert_eq!(code, 1, "{text}");
                assert!(
                    err.contains("grundy::type") && err.contains(m),
                    "{text}: {err}"
                );
            }
            None => assert!(code == 0 && out.starts_with('['), "{text}: {out}{err}"),
        }
    }
}

#[test]
fn grundy_test_times_out_each_file_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a_slow.game",
        "fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)\nassert f(60) > 0\n",
    );
    write(dir.path(), "b_fast.game", "assert 1 + 1 == 2\n");
    let out = grundy(&["test", "--timeout", "0.5", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
    assert!(stderr.contains("grundy::timeout"), "{stderr}");
}

#[test]
fn the_state_limit_counts_positions_waiting_on_the_search_stack() {
    let dir = tempfile::tempdir().unwrap();
    // Each position's only option is a new one: nothing is ever stored
    // with a value, so only the positions waiting on the stack count.
    for text in [
        "game I(n) { move up -> I(n + 1) }\nprint sg(I(0))\n",
        "game I(n) { move up -> I(n + 1) }\nprint sg(misere(I(0) + I(5)))\n",
    ] {
        let file = write(dir.path(), "walk.game", text);
        let (code, _, err) = run(&file, &["--max-states", "20000"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("grundy::too_many_states"), "{err}");
        assert!(
            err.contains("more than 2500 positions waiting on the search stack"),
            "{err}"
        );
        let flat = err.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("1/8 of --max-states 20000"), "{err}");
    }
}

#[test]
fn a_position_with_billions_of_options_stops_at_the_waiting_limit() {
    // Every option of the start is new, and there are 4 * 10^9 of them: the
    // search must stop while listing them, not after.
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "wide.game",
        "game Big(a, b, c, d) where a >= 0 and b >= 0 and c >= 0 and d >= 0 {\n\
         \x20   move ta(k in 1..=a) -> Big(a - k, b, c, d)\n\
         \x20   move tb(k in 1..=b) -> Big(a, b - k, c, d)\n\
         \x20   move tc(k in 1..=c) -> Big(a, b, c - k, d)\n\
         \x20   move td(k in 1..=d) -> Big(a, b, c, d - k)\n\
         }\n\
         print sg(Big(1000000000, 1000000000, 1000000000, 1000000000))\n",
    );
    let (code, _, err) = run(&file, &["--max-states", "80000"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("grundy::too_many_states"), "{err}");
    assert!(
        err.contains("more than 10000 positions waiting on the search stack"),
        "{err}"
    );
}

#[test]
fn the_stored_limit_says_what_memory_it_stands_for() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "table.game",
        "game H(n) where n >= 0 { move take(k in 1..=n) -> H(n - k) }\n\
         print [sg(H(n)) for n in 0..50000]\n",
    );
    let (code, _, err) = run(&file, &["--max-states", "20000"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("more than 20000 positions stored or waiting"),
        "{err}"
    );
    let flat = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("stands for up to about 1.5 MiB"), "{err}");
}

#[test]
fn ctrl_c_stops_grundy_run_with_the_place_it_was_computing() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "slow.game",
        "fn f(n) = if n == 0 then 1 else f(n - 1) + f(n - 1)\nprint 7\nprint f(60)\n",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["run", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run grundy");
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill(2) on the pid of a child we have not waited for.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "7\n",
        "output before it is kept"
    );
    assert!(err.contains("grundy::interrupted"), "{err}");
    assert!(
        err.contains("interrupted while evaluating `f(60)`"),
        "{err}"
    );
}

#[test]
fn the_state_limit_counts_the_options_a_compound_lists_for_its_components() {
    let dir = tempfile::tempdir().unwrap();
    // 2001 compound positions, but their components list 2 million
    // options between them: those are what fill memory. (A sum, so that
    // the product search values it: `misere(H(2000))` alone runs as a
    // layer of H, with no option lists.)
    let file = write(
        dir.path(),
        "listed.game",
        "game H(n) where n >= 0 { move take(k in 0..n) -> H(k) }\nprint sg(misere(H(2000) + H(0)))\n",
    );
    let (code, out, err) = run(&file, &["--max-states", "1000000"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("grundy::too_many_states"), "{err}");
    assert!(
        err.contains("more than 1000000 positions stored or waiting"),
        "{err}"
    );
    let (code, out, err) = run(&file, &["--max-states", "3000000"]);
    assert_eq!((code, out.as_str()), (0, "2000\n"), "{err}");
}

#[test]
fn positions_with_long_keys_count_once_per_80_bytes_of_them() {
    // 1001 positions either way. A list of 30 items does not fit a packed
    // key (16 integers): kept as values, each position takes hundreds of
    // bytes, and counts as several against the limit.
    let dir = tempfile::tempdir().unwrap();
    let plain = write(
        dir.path(),
        "plain.game",
        "game C(n) where n >= 0 { move down if n > 0 -> C(n - 1) }\n\
         assert all(sg(C(n)) == n % 2 for n in 0..1001)\nprint 0\n",
    );
    let long = write(
        dir.path(),
        "long.game",
        "let L = [i for i in 0..30]\n\
         game C(xs) where xs[0] >= 0 { move down if xs[0] > 0 -> C(update(xs, 0, xs[0] - 1)) }\n\
         assert all(sg(C(update(L, 0, n))) == n % 2 for n in 0..1001)\nprint 0\n",
    );
    let (code, out, err) = run(&plain, &["--max-states", "3000"]);
    assert_eq!((code, out.as_str()), (0, "0\n"), "{err}");
    let (code, _, err) = run(&long, &["--max-states", "3000"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("more than 3000 positions stored or waiting"),
        "{err}"
    );
    let (code, out, err) = run(&long, &["--max-states", "20000"]);
    assert_eq!((code, out.as_str()), (0, "0\n"), "{err}");
}
