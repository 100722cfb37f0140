//! `grundy octal CODE --heaps N [--out FILE]`: values of heaps 0..=N of one
//! code, streamed to a value file (resumed from it when it exists), with a
//! summary: the method, the rare values, the largest value, the period.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::file::ValueFile;
use super::{period, Code, Engine, Stop};

/// What the command was asked.
#[derive(Clone, Debug)]
pub struct Job {
    pub code: String,
    /// The last heap: values of heaps 0..=last.
    pub last: usize,
    pub out: Option<PathBuf>,
}

/// A heap count as typed: `1000000`, `1_000_000`, `10^6` or `1e6`.
pub fn parse_heaps(s: &str) -> Result<usize, String> {
    let t = s.replace('_', "");
    let bad = || format!("`{s}` is not a number of heaps (write 1000000, 10^6 or 1e6)");
    let pow = |base: &str, exp: &str| -> Result<usize, String> {
        let b: usize = base.parse().map_err(|_| bad())?;
        let e: u32 = exp.parse().map_err(|_| bad())?;
        b.checked_pow(e).ok_or_else(bad)
    };
    if let Some((b, e)) = t.split_once('^') {
        pow(b, e)
    } else if let Some((m, e)) = t.split_once(['e', 'E']) {
        let m: usize = m.parse().map_err(|_| bad())?;
        m.checked_mul(pow("10", e)?).ok_or_else(bad)
    } else {
        t.parse().map_err(|_| bad())
    }
}

/// Heaps computed between two writes to the file (and progress updates).
const CHUNK: usize = 1 << 16;
/// Above this many heaps the period is not looked for (its check holds an
/// index per heap).
const MAX_PERIOD_CHECK: usize = 1 << 27;

/// Runs the job, printing the summary on `out` and progress on standard
/// error; returns an error message for the user.
pub fn run(job: &Job, out: &mut dyn Write) -> Result<(), String> {
    let code = Code::parse(&job.code).map_err(|e| {
        format!(
            "`{}` is not a take-and-break code: {}\n  {}\n  {}{}\nhelp: {}",
            job.code,
            e.message,
            job.code,
            " ".repeat(job.code[..e.at.start].chars().count()),
            "^".repeat(job.code[e.at.clone()].chars().count().max(1)),
            e.help
        )
    })?;
    let len = job.last.checked_add(1).ok_or("too many heaps")?;
    let (mut file, old) = match &job.out {
        Some(path) => {
            let (f, old) =
                ValueFile::open(path, &code).map_err(|e| format!("{}: {e}", path.display()))?;
            (Some(f), old)
        }
        None => (None, Vec::new()),
    };
    let resumed = old.len();
    let mut engine = Engine::resume(code.clone(), old);
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // Only the first handler of the process counts; a second is harmless.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let started = Instant::now();
    let bar = std::io::stderr().is_terminal();
    let mut written = resumed;
    let mut result = Ok(());
    while engine.len() < len && result.is_ok() {
        let target = (engine.len() + CHUNK).min(len);
        result = engine.extend_to(target, &mut |_| !stop.load(Ordering::Relaxed));
        if let Some(f) = &mut file {
            f.append(&engine.values()[written..])
                .map_err(|e| format!("writing the values: {e}"))?;
        }
        written = engine.len();
        if bar {
            progress(engine.len(), len, started);
        }
    }
    if bar {
        eprint!("\r\x1b[K");
    }
    let secs = started.elapsed().as_secs_f64();
    match result {
        Err(Stop::Interrupted) => {
            return Err(format!(
                "interrupted after heap {}: the values so far are in the file; run the same command again to resume",
                engine.len().saturating_sub(1)
            ))
        }
        Err(Stop::TooLarge(n)) => return Err(format!("heap {n} has a value above 65534, more than the engine stores")),
        Ok(()) => {}
    }
    summary(&engine, len, resumed, secs, out).map_err(|e| e.to_string())
}

fn progress(done: usize, total: usize, started: Instant) {
    let width = 30;
    let filled = done * width / total.max(1);
    eprint!(
        "\r[{}{}] {:>3}% {done}/{total} heaps {:.1} s",
        "=".repeat(filled),
        " ".repeat(width - filled),
        done * 100 / total.max(1),
        started.elapsed().as_secs_f64()
    );
}

fn summary(
    engine: &Engine,
    len: usize,
    resumed: usize,
    secs: f64,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let g = &engine.values()[..len];
    let code = engine.code();
    let method = match engine.rare_mask() {
        Some(m) => format!("rare-value method, mask {m:#x}"),
        None => "naive method".to_string(),
    };
    let from = if resumed > 0 {
        format!(", resumed after heap {}", resumed.min(len) - 1)
    } else {
        String::new()
    };
    writeln!(
        out,
        "{code}: heaps 0..={} in {secs:.2} s ({method}{from})",
        len - 1
    )?;
    let (first_max, max) = g.iter().enumerate().fold(
        (0, 0),
        |(i, m), (j, &v)| if v > m { (j, v) } else { (i, m) },
    );
    writeln!(out, "largest value: {max} (first at heap {first_max})")?;
    if let Some(mask) = engine.rare_mask() {
        let rare: Vec<usize> = (1..len)
            .filter(|&h| (g[h] & mask).count_ones().is_multiple_of(2))
            .collect();
        let mut values: Vec<u16> = rare.iter().map(|&h| g[h]).collect();
        values.sort_unstable();
        values.dedup();
        writeln!(
            out,
            "rare values (an even number of the bits {mask:#x}): {} heaps, values {:?}, last rare heap {}",
            rare.len(),
            values,
            rare.last().copied().unwrap_or(0)
        )?;
        if rare.len() <= 60 {
            writeln!(out, "rare heaps: {rare:?}")?;
        }
    }
    let zeros = g.iter().filter(|&&v| v == 0).count();
    let sum: u64 = g.iter().map(|&v| v as u64).sum();
    writeln!(out, "value of heap {}: {}", len - 1, g[len - 1])?;
    // The checksum line of ../shared/bench (W5 is 0.137).
    writeln!(out, "totals: states={len} sum={sum} p={zeros} max={max}")?;
    if len > MAX_PERIOD_CHECK {
        writeln!(out, "period: not looked for above {MAX_PERIOD_CHECK} heaps")?;
    } else if let Some(p) = period::proven_period(code, g) {
        writeln!(out, "period: {p}")?;
    } else {
        let seen =
            period::observed_period(g).map_or("none observed".to_string(), |p| p.to_string());
        writeln!(out, "period: none proven within these heaps ({seen})")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_counts_are_read_in_every_spelling() {
        assert_eq!(parse_heaps("10^6"), Ok(1_000_000));
        assert_eq!(parse_heaps("1e5"), Ok(100_000));
        assert_eq!(parse_heaps("1_000"), Ok(1000));
        assert!(parse_heaps("ten").is_err());
    }

    #[test]
    fn a_run_resumes_from_its_file_and_proves_the_period() {
        let dir = tempfile::tempdir().unwrap();
        let out = Some(dir.path().join("kayles.bin"));
        let job = |last| Job {
            code: "0.77".into(),
            last,
            out: out.clone(),
        };
        let mut text = Vec::new();
        run(&job(100), &mut text).unwrap();
        let mut text = Vec::new();
        run(&job(300), &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("resumed after heap 100"), "{text}");
        assert!(
            text.contains("periodic from 71 with period 12 (proven)"),
            "{text}"
        );
        let bad = run(
            &Job {
                code: "0.1x".into(),
                last: 5,
                out: None,
            },
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(bad.contains("   ^"), "{bad}");
    }
}
