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
