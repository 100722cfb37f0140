//! Speed of the take-and-break engine: `grundy octal` against
//! `ogsolve -m rc` (a Rust octal-game solver, `cargo install ogsolve`; skipped
//! with a note when it is not installed) on 0.16 to 10^6 heaps, and against
//! the hand-written W5 baseline of `../shared/bench/baselines` (Dawson's
//! chess, 0.137) at N = 10^5, whose checksum line must match.
//!
//! ```text
//! cargo bench --bench octal                 # 3 runs each, medians
//! cargo bench --bench octal -- --runs 5
//! ```
//!
//! Each program is run as a child process, alternating, and timed by wall
//! clock and by CPU time (user + system, from getrusage of the children): on
//! a shared machine the CPU time is the steadier figure; grundy may use
//! both cores, so its CPU time can exceed its wall time.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

const DAWSON_N: u64 = 100_000;
const DAWSON_LINE: &str = "workload=dawson states=100001 sum=270550 p=14709 max=9";
const OCTAL16_N: u64 = 1_000_000;

struct Sample {
    stdout: String,
    wall: f64,
    cpu: f64,
}

fn children_cpu() -> f64 {
    // SAFETY: getrusage writes into the struct we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn measure(program: &Path, args: &[String]) -> Result<Sample, String> {
    let cpu0 = children_cpu();
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(Sample {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        wall,
        cpu,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Runs two programs `runs` times each, alternating; returns their samples.
fn duel(
    a: (&Path, &[String]),
    b: (&Path, &[String]),
    runs: usize,
) -> Result<(Vec<Sample>, Vec<Sample>), String> {
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        sa.push(measure(a.0, a.1)?);
        sb.push(measure(b.0, b.1)?);
    }
    Ok((sa, sb))
}

fn row(name: &str, ours: &[Sample], theirs: &[Sample], other: &str) {
    let (gw, gc) = (
        median(ours.iter().map(|s| s.wall).collect()),
        median(ours.iter().map(|s| s.cpu).collect()),
    );
    let (ow, oc) = (
        median(theirs.iter().map(|s| s.wall).collect()),
        median(theirs.iter().map(|s| s.cpu).collect()),
    );
    println!(
        "{name:<28} grundy {gw:7.3} s wall {gc:7.3} s cpu | {other} {ow:7.3} s wall {oc:7.3} s cpu | ratio wall {:.2}x cpu {:.2}x",
        gw / ow,
        gc / oc
    );
}

fn find_ogsolve() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("ogsolve"))
        .find(|p| p.is_file())
}

fn build_dawson(root: &Path) -> Result<Option<PathBuf>, String> {
    let manifest = root.join("../shared/bench/baselines/Cargo.toml");
    if !manifest.exists() {
        eprintln!("W5: {} not found; skipped", manifest.display());
        return Ok(None);
    }
    let target = root.join("target/baselines");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--bin",
            "dawson",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|e| format!("cannot build the baselines: {e}"))?;
    if !status.success() {
        return Err("building the W5 baseline failed".into());
    }
    Ok(Some(target.join("release/dawson")))
}

fn line_with<'s>(text: &'s str, prefix: &str) -> Option<&'s str> {
    text.lines().find_map(|l| l.strip_prefix(prefix))
}

fn run() -> Result<bool, String> {
    let mut runs = 3;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {}
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|r| r.parse().ok())
                    .filter(|&r| r >= 1)
                    .ok_or("--runs takes a positive number")?
            }
            other => return Err(format!("unknown argument {other:?} (usage: -- [--runs K])")),
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let grundy = PathBuf::from(env!("CARGO_BIN_EXE_grundy"));
    let mut ok = true;

    // 0.16 to 10^6 heaps against ogsolve's rare-value method.
    let ours: Vec<String> = ["octal", "0.16", "--heaps", &OCTAL16_N.to_string()]
        .map(String::from)
        .to_vec();
    match find_ogsolve() {
        None => println!("0.16: ogsolve is not installed (cargo install ogsolve); skipped"),
        Some(og) => {
            let theirs: Vec<String> = ["-m", "rc", "-n", &OCTAL16_N.to_string(), "0.16"]
                .map(String::from)
                .to_vec();
            let (g, o) = duel((&grundy, &ours), (&og, &theirs), runs)?;
            let value =
                line_with(&g[0].stdout, &format!("value of heap {OCTAL16_N}: ")).unwrap_or("?");
            let theirs_value = o[0]
                .stdout
                .lines()
                .find_map(|l| l.trim().strip_prefix(&format!("nimber of {OCTAL16_N}: ")))
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or("??");
            let period = g[0]
                .stdout
                .contains("periodic from 105351 with period 149459 (proven)");
            let their_period = o[0]
                .stdout
                .contains("period of length 149459 and pre-period 105351");
            if value != theirs_value || !period || !their_period {
                println!("0.16: the two programs disagree (value {value} vs {theirs_value}, period found {period} / {their_period})");
                ok = false;
            }
            row("0.16, heaps 0..=10^6", &g, &o, "ogsolve -m rc");
        }
    }

    // W5: Dawson's chess at N = 10^5, checksum lines compared.
    if let Some(dawson) = build_dawson(&root)? {
        let ours: Vec<String> = ["octal", "0.137", "--heaps", &DAWSON_N.to_string()]
            .map(String::from)
            .to_vec();
        let theirs = vec![DAWSON_N.to_string()];
        let (g, b) = duel((&grundy, &ours), (&dawson, &theirs), runs)?;
        let line = line_with(&g[0].stdout, "totals: ").map(|t| format!("workload=dawson {t}"));
        for (who, got) in [
            ("grundy", line.as_deref()),
            ("W5", b[0].stdout.lines().next()),
        ] {
            if got != Some(DAWSON_LINE) {
                println!("W5: {who} printed {got:?}, expected {DAWSON_LINE:?}");
                ok = false;
            }
        }
        println!("{DAWSON_LINE}");
        row("0.137 (W5), N = 10^5", &g, &b, "W5 baseline");
    }
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: a result differs (see above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
