//! Speed benchmark: `grundy` against the hand-written Rust baselines.
//!
//! Every workload of `../shared/bench/README.md` (W1 to W16) runs through
//! its rule file in `../shared/bench/rules/`, unchanged: the game as a user
//! writes it. Beside it, each workload runs one or more other natural forms
//! of the same game kept in this folder (`benches/<form>.game`: a guard
//! against a `where`, a literal set against a `let`, `0..4` against
//! `0..len(xs)`, a function against an indexed list, a built-in family
//! against its rules), so that the table shows how much the way a game is
//! written costs. More workloads are this repository's own, each a rule
//! file in this folder against a hand-written program in
//! `benches/baselines/`: L1 `loopy_grid`, a loopy game against a retrograde
//! labelling, and S1 to S6, games of shapes the shared workloads do not
//! have (runs along rows, columns and diagonals of two integers, a pass
//! compound of a two-integer game, a take and a split run whose values grow
//! with the heap, a subtraction set from a `let`, a list move over two
//! bindings, a set move removing a vertex and its neighbours). Each file
//! prints one checksum line,
//!
//! ```text
//! workload=welter4 states=635376 sum=19998720 p=10416 max=63
//! ```
//!
//! which must equal, byte for byte, the line printed by the baseline program
//! and the line recorded in `../shared/bench/README.md` for that size.
//!
//! For every form the harness runs `grundy run FILE --set N=<size>`, with no
//! limit flag (the default limits must let a workload run), and the
//! workload's baseline binary with the size, alternating the two, and
//! reports the median wall time and the median peak resident set size of
//! each, the ratio to the baseline and, for the forms in this folder, the
//! ratio to the rules/ form. A grundy run that takes longer than `--timeout`
//! seconds (default 300) is stopped and its row says so, with the least
//! ratio that implies. Any mismatch of a checksum line, a failing child or a
//! stopped run ends the bench with a non-zero exit status, after the table.
//!
//! Usage (arguments after `--`; the words may be combined):
//!
//! ```text
//! cargo bench --bench workloads                      # large sizes, median of 3 runs
//! cargo bench --bench workloads -- --quick           # smoke run: default sizes, 1 run
//! cargo bench --bench workloads -- welter4 nim       # only workloads or forms containing a filter
//! cargo bench --bench workloads -- --sizes default --runs 5
//! cargo bench --bench workloads -- --rules-only      # only the ../shared/bench/rules/ files
//! cargo bench --bench workloads -- --no-baseline     # grundy's figures only
//! ```
//!
//! Environment: `GRUNDY_BENCH_SIZES=default|large` and `GRUNDY_BENCH_RUNS=<k>`
//! (defaults for `--sizes` / `--runs`), `GRUNDY_BENCH_BASELINES=<dir>` (the
//! baselines' cargo project, instead of `../shared/bench/baselines`),
//! `GRUNDY_BENCH_TIMER=wait4` (measure with wait4(2) even when `/usr/bin/time`
//! is present).
//!
//! Measurement: wall time is taken around the child process; peak RSS is
//! `/usr/bin/time -v`'s "Maximum resident set size" when `/usr/bin/time`
//! exists (as in the README's `run_bench.py`), otherwise `ru_maxrss` from
//! wait4(2). grundy is built with `cargo build --release --locked` into
//! `target/workloads-bench/` (the binary a user builds, not the one Cargo
//! builds for the bench), the baselines likewise into `target/baselines/`,
//! so nothing is written into `../shared`.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// One workload: its rule file `../shared/bench/rules/<name>.game` and
/// baseline binary `<name>` of `../shared/bench/baselines` (or, for a
/// workload of this repository's own, `benches/<name>.game` and
/// `benches/baselines`), the other forms of it in this folder, its two
/// sizes, and the checksum line at each size.
struct Workload {
    id: &'static str,
    name: &'static str,
    /// Rule file and baseline in this repository, not in `../shared/bench`.
    local: bool,
    /// Other natural forms of the game: `benches/<form>.game`.
    forms: &'static [&'static str],
    default_n: u64,
    default_line: &'static str,
    large_n: u64,
    large_line: &'static str,
}

/// Sizes and checksum lines as recorded in `../shared/bench/README.md`.
const WORKLOADS: [Workload; 23] = [
    Workload {
        id: "W1",
        local: false,
        name: "nim3pass",
        forms: &["nim3pass", "nim3pass_pass"],
        default_n: 40,
        default_line: "workload=nim3pass states=137842 sum=3597194 p=2770 max=65",
        large_n: 120,
        large_line: "workload=nim3pass states=3543122 sum=239085261 p=26518 max=207",
    },
    Workload {
        id: "W2",
        local: false,
        name: "emptydivide",
        forms: &["emptydivide"],
        default_n: 400,
        default_line: "workload=emptydivide states=160000 sum=428727 p=40000 max=9",
        large_n: 2000,
        large_line: "workload=emptydivide states=4000000 sum=11356374 p=1000000 max=11",
    },
    Workload {
        id: "W3",
        local: false,
        name: "welter4",
        forms: &["welter4"],
        default_n: 64,
        default_line: "workload=welter4 states=635376 sum=19998720 p=10416 max=63",
        large_n: 128,
        large_line: "workload=welter4 states=10668000 sum=677289984 p=85344 max=127",
    },
    Workload {
        id: "W4",
        local: false,
        name: "chocolate3d",
        forms: &["chocolate3d", "chocolate3d_param"],
        default_n: 60,
        default_line: "workload=chocolate3d states=76901 sum=2748866 p=1183 max=94",
        large_n: 200,
        large_line: "workload=chocolate3d states=2720334 sum=323153106 p=10791 max=324",
    },
    Workload {
        id: "W5",
        local: false,
        name: "dawson",
        forms: &["dawson", "dawson_octal"],
        default_n: 20000,
        default_line: "workload=dawson states=20001 sum=54075 p=2945 max=9",
        large_n: 100000,
        large_line: "workload=dawson states=100001 sum=270550 p=14709 max=9",
    },
    Workload {
        id: "W6",
        local: false,
        name: "subtract125",
        forms: &["subtract125"],
        default_n: 10000000,
        default_line: "workload=subtract125 states=10000001 sum=10000000 p=3333334 max=2",
        large_n: 200000000,
        large_line: "workload=subtract125 states=200000001 sum=200000001 p=66666667 max=2",
    },
    Workload {
        id: "W7",
        local: false,
        name: "grundy",
        forms: &["grundy"],
        default_n: 20000,
        default_line: "workload=grundy states=20001 sum=824738 p=42 max=147",
        large_n: 150000,
        large_line: "workload=grundy states=150001 sum=9332445 p=42 max=230",
    },
    Workload {
        id: "W8",
        local: false,
        name: "cram",
        forms: &["cram"],
        default_n: 8,
        default_line: "workload=cram states=621768 sum=911399 p=170430 max=9",
        large_n: 9,
        large_line: "workload=cram states=3460988 sum=5273380 p=912255 max=10",
    },
    Workload {
        id: "W9",
        local: false,
        name: "kayles_misere",
        forms: &["kayles_misere"],
        default_n: 55,
        default_line: "workload=kayles_misere states=526823 sum=192 p=5 max=10",
        large_n: 65,
        large_line: "workload=kayles_misere states=2323520 sum=230 p=5 max=10",
    },
    Workload {
        id: "W10",
        local: false,
        name: "subtract_squares",
        forms: &["subtract_squares_where"],
        default_n: 100000,
        default_line: "workload=subtract_squares states=100001 sum=2469832 p=2781 max=74",
        large_n: 1000000,
        large_line: "workload=subtract_squares states=1000001 sum=56447381 p=13952 max=168",
    },
    Workload {
        id: "W11",
        local: false,
        name: "fibonacci_nim",
        forms: &["fibonacci_nim_guard"],
        default_n: 600,
        default_line: "workload=fibonacci_nim states=360600 sum=4591945 p=3569 max=19",
        large_n: 1400,
        large_line: "workload=fibonacci_nim states=1961400 sum=31481905 p=9817 max=24",
    },
    Workload {
        id: "W12",
        local: false,
        name: "staircase",
        forms: &["staircase_fixed"],
        default_n: 35,
        default_line: "workload=staircase states=658008 sum=5648624 p=43320 max=35",
        large_n: 65,
        large_line: "workload=staircase states=12103014 sum=190714786 p=445060 max=65",
    },
    Workload {
        id: "W13",
        local: false,
        name: "pass_emptydivide",
        forms: &["pass_emptydivide_canonical"],
        default_n: 400,
        default_line: "workload=pass_emptydivide states=160000 sum=3251134 p=19201 max=46",
        large_n: 1200,
        large_line: "workload=pass_emptydivide states=1440000 sum=57007208 p=172801 max=96",
    },
    Workload {
        id: "W14",
        local: false,
        name: "geography",
        forms: &["geography_fn"],
        default_n: 8,
        default_line: "workload=geography states=339300 sum=196662 p=173110 max=3",
        large_n: 10,
        large_line: "workload=geography states=3750610 sum=2147812 p=1926624 max=3",
    },
    Workload {
        id: "W15",
        local: false,
        name: "officers",
        forms: &["officers_octal"],
        default_n: 20000,
        default_line: "workload=officers states=20001 sum=1748298 p=14 max=284",
        large_n: 80000,
        large_line: "workload=officers states=80001 sum=8814485 p=14 max=284",
    },
    Workload {
        id: "W16",
        local: false,
        name: "subtract_fib",
        forms: &["subtract_fib_literal"],
        default_n: 5000000,
        default_line: "workload=subtract_fib states=5000001 sum=11029930 p=955862 max=9",
        large_n: 50000000,
        large_line: "workload=subtract_fib states=50000001 sum=110294638 p=9558803 max=9",
    },
    // Not in ../shared/bench: a loopy game (issue 34), checked against this
    // repository's own retrograde baseline (`benches/baselines`); the lines
    // are that baseline's output.
    Workload {
        id: "L1",
        local: true,
        name: "loopy_grid",
        forms: &[],
        default_n: 300,
        default_line: "workload=loopy_grid states=90000 sum=59586 p=10548 d=47358 inf=49666",
        large_n: 1000,
        large_line: "workload=loopy_grid states=1000000 sum=607142 p=103220 d=585620 inf=593255",
    },
    // Not in ../shared/bench: games of other shapes than the sample's
    // (issue 33: "we also measure games that are in no bench"), each against
    // this repository's own hand-written baseline (`benches/baselines`);
    // the lines are those baselines' output.
    Workload {
        id: "S1",
        local: true,
        name: "wythoff",
        forms: &[],
        default_n: 300,
        default_line: "workload=wythoff states=90601 sum=17003984 p=229 max=458",
        large_n: 800,
        large_line: "workload=wythoff states=641601 sum=320795011 p=611 max=1212",
    },
    Workload {
        id: "S2",
        local: true,
        name: "pass_wythoff",
        forms: &[],
        default_n: 200,
        default_line: "workload=pass_wythoff states=40401 sum=5047594 p=155 max=304",
        large_n: 600,
        large_line: "workload=pass_wythoff states=361201 sum=135378312 p=459 max=902",
    },
    Workload {
        id: "S3",
        local: true,
        name: "take_split",
        forms: &[],
        default_n: 6000,
        default_line: "workload=take_split states=6001 sum=18003000 p=1 max=6000",
        large_n: 30000,
        large_line: "workload=take_split states=30001 sum=450015000 p=1 max=30000",
    },
    Workload {
        id: "S4",
        local: true,
        name: "subtract_let25",
        forms: &[],
        default_n: 2000000,
        default_line: "workload=subtract_let25 states=2000001 sum=5520955 p=335331 max=8",
        large_n: 40000000,
        large_line: "workload=subtract_let25 states=40000001 sum=110419161 p=6706588 max=8",
    },
    Workload {
        id: "S5",
        local: true,
        name: "stair_jump",
        forms: &[],
        default_n: 30,
        default_line: "workload=stair_jump states=46376 sum=547972 p=2077 max=44",
        large_n: 60,
        large_line: "workload=stair_jump states=635376 sum=14319035 p=15076 max=87",
    },
    Workload {
        id: "S6",
        local: true,
        name: "node_kayles",
        forms: &[],
        default_n: 9,
        default_line: "workload=node_kayles states=81745 sum=104717 p=26317 max=7",
        large_n: 11,
        large_line: "workload=node_kayles states=955847 sum=1313644 p=289331 max=9",
    },
];

const USAGE: &str = "\
usage: cargo bench --bench workloads -- [--quick] [--sizes default|large] [--runs K]
                                        [--rules-only] [--no-baseline] [--timeout SECS]
                                        [FILTER ...]
  --quick          smoke run: default sizes, 1 run (same as --sizes default --runs 1)
  --sizes S        'large' (default; the README's larger sizes) or 'default'
  --runs K         timed runs per program; the median is reported (default 3)
  --rules-only     only the ../shared/bench/rules/ files, not the other forms
  --no-baseline    do not build or run the baselines
  --timeout SECS   stop a grundy run after SECS seconds (default 300)
  FILTER           run only the workloads (W1..W16 or names) or forms containing a filter
env: GRUNDY_BENCH_SIZES, GRUNDY_BENCH_RUNS, GRUNDY_BENCH_BASELINES=<dir>, GRUNDY_BENCH_TIMER=wait4";

#[derive(Clone, Copy, PartialEq)]
enum Sizes {
    Default,
    Large,
}

struct Options {
    sizes: Sizes,
    runs: usize,
    baseline: bool,
    rules_only: bool,
    timeout_s: u64,
    filters: Vec<String>,
}

fn parse_sizes(s: &str) -> Result<Sizes, String> {
    match s {
        "default" | "quick" | "small" => Ok(Sizes::Default),
        "large" => Ok(Sizes::Large),
        _ => Err(format!(
            "unknown sizes {s:?} (expected 'default' or 'large')"
        )),
    }
}

fn parse_runs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(format!("bad number of runs {s:?}")),
    }
}

fn parse_options() -> Result<Options, String> {
    let mut opts = Options {
        sizes: match std::env::var("GRUNDY_BENCH_SIZES") {
            Ok(s) => parse_sizes(&s)?,
            Err(_) => Sizes::Large,
        },
        runs: match std::env::var("GRUNDY_BENCH_RUNS") {
            Ok(s) => parse_runs(&s)?,
            Err(_) => 3,
        },
        baseline: true,
        rules_only: false,
        timeout_s: 300,
        filters: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // `cargo bench` passes `--bench` to every bench target.
            "--bench" => {}
            "--quick" => {
                opts.sizes = Sizes::Default;
                opts.runs = 1;
            }
            "--sizes" => opts.sizes = parse_sizes(&args.next().ok_or("--sizes needs a value")?)?,
            "--runs" => opts.runs = parse_runs(&args.next().ok_or("--runs needs a value")?)?,
            "--no-baseline" => opts.baseline = false,
            "--rules-only" => opts.rules_only = true,
            "--timeout" => {
                let t = args.next().ok_or("--timeout needs a value")?;
                opts.timeout_s = t.parse().map_err(|_| format!("bad timeout {t:?}"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            a if a.starts_with('-') => return Err(format!("unknown option {a:?}")),
            a => opts.filters.push(a.to_string()),
        }
    }
    Ok(opts)
}

/// The result of one timed run of a child process.
struct Sample {
    stdout: String,
    wall_s: f64,
    /// Peak resident set size in KiB (None if it could not be measured).
    rss_kib: Option<u64>,
}

const GNU_TIME: &str = "/usr/bin/time";
const TIMEOUT: &str = "/usr/bin/timeout";

fn use_gnu_time() -> bool {
    std::env::var("GRUNDY_BENCH_TIMER").map_or(true, |t| t != "wait4")
        && Path::new(GNU_TIME).exists()
}

/// Runs `program args` once, returning its standard output, wall time and peak RSS.
/// A non-zero exit status is an error carrying the child's standard error.
fn measure(program: &Path, args: &[OsString], timeout_s: Option<u64>) -> Result<Sample, String> {
    // With a time limit, the child runs under coreutils' `timeout`: wait4's
    // peak RSS covers its (reaped) child too.
    let (program, args): (PathBuf, Vec<OsString>) = match timeout_s {
        Some(t) if Path::new(TIMEOUT).exists() => {
            let mut all: Vec<OsString> = vec!["-s".into(), "KILL".into(), t.to_string().into()];
            all.push(program.into());
            all.extend(args.iter().cloned());
            (PathBuf::from(TIMEOUT), all)
        }
        _ => (program.to_path_buf(), args.to_vec()),
    };
    let (program, args) = (program.as_path(), &args[..]);
    let shown = format!(
        "{} {}",
        program.display(),
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if use_gnu_time() {
        let start = Instant::now();
        let out = Command::new(GNU_TIME)
            .arg("-v")
            .arg(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {GNU_TIME} {shown}: {e}"))?;
        let wall_s = start.elapsed().as_secs_f64();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!("`{shown}` failed ({}):\n{stderr}", out.status));
        }
        let rss_kib = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
            .and_then(|v| v.trim().parse().ok());
        Ok(Sample {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            wall_s,
            rss_kib,
        })
    } else {
        measure_wait4(program, args, &shown)
    }
}

/// Fallback without `/usr/bin/time`: reap the child with wait4(2) to get its rusage.
#[cfg(unix)]
fn measure_wait4(program: &Path, args: &[OsString], shown: &str) -> Result<Sample, String> {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    // Drain stderr on a thread so that neither pipe can fill up and block the child.
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut stdout)
        .map_err(|e| format!("reading the output of {shown}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own, not yet reaped child; the pointers are valid for the call.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_s = start.elapsed().as_secs_f64();
    let stderr = err_thread.join().unwrap_or_default();
    if rc != pid {
        return Err(format!(
            "wait4 on {shown} failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!(
            "`{shown}` failed (wait status {status}):\n{stderr}"
        ));
    }
    // ru_maxrss is in KiB on Linux and in bytes on macOS.
    let maxrss = usage.ru_maxrss as u64;
    let rss_kib = if cfg!(target_os = "macos") {
        maxrss / 1024
    } else {
        maxrss
    };
    Ok(Sample {
        stdout,
        wall_s,
        rss_kib: Some(rss_kib),
    })
}

/// Fallback on systems without wait4(2): wall time only.
#[cfg(not(unix))]
fn measure_wait4(program: &Path, args: &[OsString], shown: &str) -> Result<Sample, String> {
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let wall_s = start.elapsed().as_secs_f64();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{shown}` failed ({}):\n{stderr}", out.status));
    }
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok(Sample {
        stdout,
        wall_s,
        rss_kib: None,
    })
}

/// Builds the baselines into `target/baselines/` and returns the folder holding the
/// binaries, or None if the baselines' project is absent.
fn build_baselines(root: &Path) -> Result<Option<PathBuf>, String> {
    let dir = match std::env::var_os("GRUNDY_BENCH_BASELINES") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared/bench/baselines"),
    };
    let manifest = dir.join("Cargo.toml");
    if !manifest.exists() {
        eprintln!(
            "baselines: {} not found; reporting grundy's figures only",
            manifest.display()
        );
        return Ok(None);
    }
    let target_dir = root.join("target/baselines");
    cargo_build_release("baselines", &manifest, &[], &target_dir)?;
    Ok(Some(target_dir.join("release")))
}

/// Builds the baselines written in this repository (`benches/baselines`)
/// into `target/baselines-local/` and returns the folder holding the binaries.
fn build_local_baselines(root: &Path) -> Result<PathBuf, String> {
    let manifest = root.join("benches/baselines/Cargo.toml");
    let target_dir = root.join("target/baselines-local");
    cargo_build_release("local baselines", &manifest, &[], &target_dir)?;
    Ok(target_dir.join("release"))
}

/// Builds grundy's binary as a user does, `cargo build --release`, into
/// `target/workloads-bench/`, and returns its path. Not the binary Cargo
/// builds for the bench itself: that one has the features the
/// dev-dependencies add to shared crates (a larger binary, laid out
/// otherwise), and runs slower than the release binary of the same
/// code. A folder of its own also keeps a `cargo build
/// --release` running alongside from swapping the binary between runs.
fn build_grundy(root: &Path) -> Result<PathBuf, String> {
    let target_dir = root.join("target/workloads-bench");
    let manifest = root.join("Cargo.toml");
    cargo_build_release("grundy", &manifest, &["--bin", "grundy"], &target_dir)?;
    let exe = format!("grundy{}", std::env::consts::EXE_SUFFIX);
    Ok(target_dir.join("release").join(exe))
}

/// Prints how many of the functions `link/function-order.txt` lists the
/// binary has (by `nm`, when installed). The list's symbols carry hashes
/// that change with the profile, the toolchain and the dependencies; a
/// stale list lays out little and the small runs' memory grows back
/// (`python3 link/order_functions.py` makes it again).
fn report_function_order(root: &Path, grundy: &Path) {
    let Ok(order) = std::fs::read_to_string(root.join("link/function-order.txt")) else {
        return;
    };
    let Ok(listed) = Command::new("nm").arg(grundy).output() else {
        return;
    };
    let in_binary: std::collections::HashSet<&str> = std::str::from_utf8(&listed.stdout)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let wanted: Vec<&str> = order
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let found = wanted.iter().filter(|s| in_binary.contains(*s)).count();
    eprintln!(
        "function order: {found} of the {} functions in link/function-order.txt are in the binary{}",
        wanted.len(),
        if found * 10 < wanted.len() * 9 {
            " (stale: run `python3 link/order_functions.py`)"
        } else {
            ""
        }
    );
}

/// `cargo build --release --locked` of the project at `manifest` into
/// `target_dir`, with `extra` arguments.
fn cargo_build_release(
    what: &str,
    manifest: &Path,
    extra: &[&str],
    target_dir: &Path,
) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!(
        "{what}: building {} into {}",
        manifest.display(),
        target_dir.display()
    );
    let status = Command::new(cargo)
        .args(["build", "--release", "--locked", "--quiet"])
        .args(extra)
        .arg("--manifest-path")
        .arg(manifest)
        .env("CARGO_TARGET_DIR", target_dir)
        .status()
        .map_err(|e| format!("cannot run cargo to build {what}: {e}"))?;
    if !status.success() {
        return Err(format!("building {what} failed ({status})"));
    }
    Ok(())
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median wall time and median peak RSS (MiB) of a program's runs.
struct Summary {
    wall_s: f64,
    rss_mib: Option<f64>,
}

fn summarise(samples: &[Sample]) -> Summary {
    let walls: Vec<f64> = samples.iter().map(|s| s.wall_s).collect();
    let rss: Option<Vec<f64>> = samples
        .iter()
        .map(|s| s.rss_kib.map(|k| k as f64 / 1024.0))
        .collect();
    Summary {
        wall_s: median(&walls),
        rss_mib: rss.map(|r| median(&r)),
    }
}

struct Row {
    id: &'static str,
    /// The rule file, relative to the project: `rules/NAME.game` (the
    /// shared one) or `benches/FORM.game`.
    form: String,
    n: u64,
    /// None when grundy's run failed or was stopped (`status` says which).
    grundy: Option<Summary>,
    baseline: Option<Summary>,
    /// grundy's time on the workload's rules/ form, for the other forms.
    rules_wall_s: Option<f64>,
    /// Seconds after which a stopped run was killed.
    stopped_at: Option<u64>,
    status: String,
}

fn fmt_opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

fn print_table(rows: &[Row]) {
    let header = [
        "workload",
        "form",
        "N",
        "grundy (s)",
        "baseline (s)",
        "ratio",
        "vs rules",
        "grundy RSS (MiB)",
        "baseline RSS (MiB)",
        "RSS ratio",
        "checksum",
    ];
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let b_wall = r.baseline.as_ref().map(|b| b.wall_s);
        let b_rss = r.baseline.as_ref().and_then(|b| b.rss_mib);
        let g_wall = r.grundy.as_ref().map(|g| g.wall_s);
        let g_rss = r.grundy.as_ref().and_then(|g| g.rss_mib);
        let rss_ratio = g_rss.zip(b_rss).map(|(g, b)| g / b);
        // A stopped run took at least its time limit.
        let (g_time, at_least) = match (g_wall, r.stopped_at) {
            (Some(g), _) => (Some(g), ""),
            (None, Some(t)) => (Some(t as f64), ">"),
            (None, None) => (None, ""),
        };
        let ratio = g_time.zip(b_wall).map(|(g, b)| g / b);
        let vs_rules = g_time.zip(r.rules_wall_s).map(|(g, w)| g / w);
        cells.push(vec![
            r.id.to_string(),
            r.form.clone(),
            r.n.to_string(),
            fmt_opt(g_time, |x| format!("{at_least}{x:.3}")),
            fmt_opt(b_wall, |x| format!("{x:.3}")),
            fmt_opt(ratio, |x| format!("{at_least}{x:.1}x")),
            fmt_opt(vs_rules, |x| format!("{at_least}{x:.2}x")),
            fmt_opt(g_rss, |x| format!("{x:.1}")),
            fmt_opt(b_rss, |x| format!("{x:.1}")),
            fmt_opt(rss_ratio, |x| format!("{x:.1}x")),
            r.status.clone(),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| cells.iter().map(|row| row[c].len()).max().unwrap_or(0))
        .collect();
    for (i, row) in cells.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, w))| {
                if c <= 1 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        println!("| {} |", line.join(" | "));
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            println!("|-{}-|", rule.join("-|-"));
        }
    }
}

fn run() -> Result<bool, String> {
    let opts = parse_options()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let grundy = build_grundy(&root)?;
    report_function_order(&root, &grundy);
    let (baselines, local_baselines) = if opts.baseline {
        (build_baselines(&root)?, Some(build_local_baselines(&root)?))
    } else {
        (None, None)
    };

    // (workload, rule file, label) for every form to run, rules/ first.
    let mut selected: Vec<(&Workload, PathBuf, String)> = Vec::new();
    for w in &WORKLOADS {
        let rules = match w.local {
            true => (
                root.join(format!("benches/{}.game", w.name)),
                format!("benches/{}.game", w.name),
            ),
            false => (
                root.join(format!("../shared/bench/rules/{}.game", w.name)),
                format!("rules/{}.game", w.name),
            ),
        };
        let mut forms = vec![rules];
        if !opts.rules_only {
            forms.extend(w.forms.iter().map(|f| {
                let label = format!("benches/{f}.game");
                (root.join(&label), label)
            }));
        }
        for (path, label) in forms {
            let wanted = opts.filters.is_empty()
                || opts.filters.iter().any(|f| {
                    w.id.eq_ignore_ascii_case(f)
                        || w.name.contains(f.as_str())
                        || label.contains(f.as_str())
                });
            if wanted {
                selected.push((w, path, label));
            }
        }
    }
    if selected.is_empty() {
        return Err(format!("no workload matches {:?}\n{USAGE}", opts.filters));
    }
    eprintln!(
        "grundy: {}\nsizes: {}, runs: {} (median), timer: {}",
        grundy.display(),
        if opts.sizes == Sizes::Large {
            "large"
        } else {
            "default"
        },
        opts.runs,
        if use_gnu_time() {
            "/usr/bin/time -v"
        } else {
            "wait4"
        }
    );

    let mut rows: Vec<Row> = Vec::new();
    let mut all_ok = true;
    for (w, game, label) in selected {
        let (n, expected) = match opts.sizes {
            Sizes::Default => (w.default_n, w.default_line),
            Sizes::Large => (w.large_n, w.large_line),
        };
        // No limit flag: the default limits must let every workload run.
        let g_args: Vec<OsString> = vec![
            "run".into(),
            game.into_os_string(),
            "--set".into(),
            format!("N={n}").into(),
        ];
        let b_dir = match w.local {
            true => local_baselines.as_ref(),
            false => baselines.as_ref(),
        };
        let b_prog = b_dir.map(|d| d.join(w.name));
        let b_args: Vec<OsString> = vec![n.to_string().into()];
        // The rules/ form of the same workload comes first, when selected.
        let rules_wall_s = rows
            .iter()
            .find(|r| r.id == w.id && r.form.starts_with("rules/"))
            .filter(|_| !label.starts_with("rules/"))
            .and_then(|r| r.grundy.as_ref().map(|g| g.wall_s));

        let (mut g_samples, mut b_samples) = (Vec::new(), Vec::new());
        let mut failed = None;
        // Alternate the two programs, so that a noisy stretch hurts both alike.
        for run in 1..=opts.runs {
            let started = Instant::now();
            let g = match measure(&grundy, &g_args, Some(opts.timeout_s)) {
                Ok(g) => g,
                Err(e) => {
                    let stopped = started.elapsed().as_secs() + 1 >= opts.timeout_s;
                    eprintln!("  {label} N={n} grundy   run {run}: {e}");
                    failed = Some(stopped);
                    break;
                }
            };
            eprintln!(
                "  {label} N={n} grundy   run {run}/{}: {:8.3} s",
                opts.runs, g.wall_s
            );
            g_samples.push(g);
            if let Some(b_prog) = &b_prog {
                let b = measure(b_prog, &b_args, None)?;
                eprintln!(
                    "  {label} N={n} baseline run {run}/{}: {:8.3} s",
                    opts.runs, b.wall_s
                );
                b_samples.push(b);
            }
        }
        if let Some(stopped) = failed {
            // The baseline still gets its time, for the ratio a stopped run implies.
            if b_samples.is_empty() {
                if let Some(b_prog) = &b_prog {
                    b_samples.push(measure(b_prog, &b_args, None)?);
                }
            }
            all_ok = false;
            rows.push(Row {
                id: w.id,
                form: label,
                n,
                grundy: None,
                baseline: (!b_samples.is_empty()).then(|| summarise(&b_samples)),
                rules_wall_s,
                stopped_at: stopped.then_some(opts.timeout_s),
                status: if stopped {
                    format!("stopped at {} s", opts.timeout_s)
                } else {
                    "failed".to_string()
                },
            });
            continue;
        }

        // Every output must be exactly the README's checksum line.
        let mut ok = true;
        for (who, s) in g_samples
            .iter()
            .map(|s| ("grundy", s))
            .chain(b_samples.iter().map(|s| ("baseline", s)))
        {
            let got = s.stdout.trim_end_matches(['\n', '\r']);
            if got != expected {
                ok = false;
                eprintln!(
                    "CHECKSUM MISMATCH: {label} N={n} ({who})\n  expected: {expected}\n  got:      {got}"
                );
            }
        }
        all_ok &= ok;
        rows.push(Row {
            id: w.id,
            form: label,
            n,
            grundy: Some(summarise(&g_samples)),
            baseline: (!b_samples.is_empty()).then(|| summarise(&b_samples)),
            rules_wall_s,
            stopped_at: None,
            status: (if ok { "ok" } else { "MISMATCH" }).to_string(),
        });
    }
    println!();
    print_table(&rows);
    Ok(all_ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: a checksum line differs or a run failed (see above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
