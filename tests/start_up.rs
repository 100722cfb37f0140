//! What a run of the binary costs before and after its work: the
//! libraries it loads, and its exit through the evaluator thread
//! (docs/performance.md, "the memory floor").

use std::process::{Command, Stdio};

/// The C math library is not loaded: the one function of it the program
/// calls is defined in the binary (src/main.rs), and loading the library
/// paged in about 0.35 MiB of it at every start. glibc's loader lists the
/// libraries a program loads, without running it, when
/// `LD_TRACE_LOADED_OBJECTS` is set (what `ldd` does).
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_binary_does_not_load_the_math_library() {
    let out = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run the loader on grundy");
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("libc.so"), "no list of libraries: {listed}");
    assert!(!listed.contains("libm.so"), "{listed}");
}

/// The evaluator thread hands its exit status to the main thread, which
/// ends the process: every line written reaches the pipe, and the status
/// is the run's (0, then 1 for a failed assertion).
#[test]
fn a_run_ends_with_its_status_and_all_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lines.game");
    let text = "print [n * n for n in 0..20000]\nprint 7\n";
    std::fs::write(&path, format!("{text}assert 1 == 2\n")).unwrap();
    let failing = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["run", path.to_str().unwrap()])
        .output()
        .expect("run grundy");
    assert_eq!(failing.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&failing.stdout);
    assert!(stdout.contains("399960001]"), "the list is printed whole");
    assert!(stdout.ends_with("7\n"), "{}", &stdout[stdout.len() - 40..]);
    std::fs::write(&path, text).unwrap();
    let passing = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["run", path.to_str().unwrap()])
        .output()
        .expect("run grundy");
    assert_eq!(passing.status.code(), Some(0));
    assert_eq!(passing.stdout, failing.stdout);
}

/// Resident KiB of this test binary's read-only mappings (its code and
/// constants), from /proc/self/smaps.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn resident_code_kib() -> u64 {
    let exe = std::env::current_exe().unwrap();
    let exe = exe.to_str().unwrap();
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut ours = false;
    let mut kib = 0;
    for line in smaps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields
            .first()
            .is_some_and(|f| f.contains('-') && !f.ends_with(':'))
        {
            ours = fields.get(5) == Some(&exe) && !fields[1].contains('w');
        } else if ours && fields.first() == Some(&"Rss:") {
            kib += fields[1].parse::<u64>().unwrap();
        }
    }
    kib
}

/// `code_pages::release` unmaps the program's code and constants (what
/// `Session::run` does before each statement) and the program runs on:
/// the pages come back as they are used, and a game computed after the
/// release has the values a brute force gives (the subtraction game
/// {1, 3, 4}: position n loses when n mod 7 is 0 or 2).
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn released_code_pages_come_back_as_they_run() {
    let text = "game S(n) where n >= 0 {\n  move take(k in [1, 3, 4]) if k <= n -> S(n - k)\n}\n\
                let v = [sg(S(n)) for n in 0..50]\nprint v\n";
    let first = crate::common::run(text, true);
    let before = resident_code_kib();
    grundy::code_pages::release();
    let after = resident_code_kib();
    assert!(
        after < before,
        "resident code {before} KiB before the release, {after} after"
    );
    let again = crate::common::run(text, true);
    assert_eq!(first, again);
    let mut sg = [0u32; 50];
    for n in 0..50 {
        let options: Vec<u32> = [1, 3, 4]
            .iter()
            .filter(|&&k| k <= n)
            .map(|&k| sg[n - k])
            .collect();
        sg[n] = (0..).find(|v| !options.contains(v)).unwrap();
    }
    let shown: Vec<String> = sg.iter().map(u32::to_string).collect();
    assert_eq!(again.trim(), format!("[{}]", shown.join(", ")));
    for (n, v) in sg.iter().enumerate() {
        assert_eq!(*v == 0, n % 7 == 0 || n % 7 == 2, "n = {n}");
    }
}
