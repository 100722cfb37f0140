//! The command line: `grundy run FILE`, `grundy test PATH`, `grundy repl`,
//! `grundy jupyter install|kernel`: the words read by `args`, the commands
//! run here.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod args;

pub use args::{parse, parse_seconds, Cli, Command, Parsed, UsageError};

use crate::report::export::Format;
use crate::report::{plot, render};
use crate::{Limits, RunResult, Session};

/// Parses arguments and runs the command on a thread with a large stack
/// (deeply recursive rule functions need it). The thread hands its exit
/// status over and waits for the process to end instead of ending
/// itself: a thread's exit runs the C library's per-thread teardown,
/// whose code (resolver and RPC state) a run would page in for nothing.
/// A panic ends the thread, and the program with status 3.
pub fn main() -> ExitCode {
    let cli = match args::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(cli)) => cli,
        Ok(Parsed::Print(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(usage) => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    let (status, ended) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(crate::budget::caps::evaluator_stack())
        .spawn(move || {
            let _ = status.send(run_cli(cli));
            loop {
                std::thread::park();
            }
        })
        .expect("spawn the evaluator thread");
    ended.recv().unwrap_or(ExitCode::from(3))
}

fn limits(cli: &Cli) -> Limits {
    let default = Limits::default();
    Limits {
        max_states: cli.max_states.unwrap_or(default.max_states),
        max_memory: cli.max_memory.unwrap_or(default.max_memory),
        timeout: cli.timeout,
        ..default
    }
}

pub fn run_cli(cli: Cli) -> ExitCode {
    let color = std::io::stderr().is_terminal();
    match &cli.command {
        Command::Run {
            file,
            sets,
            format,
            plot,
            explain,
        } => {
            let mut session = Session::on_demand(limits(&cli));
            session.explain_games = *explain;
            if *format != Format::Text {
                let format = *format;
                session.format = Some(Box::new(move |v| format.table_text(v)));
            }
            for s in sets {
                let Some((name, expr)) = s.split_once('=') else {
                    eprintln!("error: --set takes NAME=EXPR, got `{s}`");
                    return ExitCode::from(2);
                };
                if let Err(f) = session.set_override(name.trim(), expr) {
                    eprintln!("{}", render(&f, &session.sources, color));
                    return ExitCode::from(2);
                }
            }
            // Ctrl-C stops the computation with an error that says where it
            // was; a spinner shows the time and memory of a long one.
            let rt = session.runtime();
            let busy = crate::busy::Busy::install(rt.interrupt.clone(), rt.progress.clone());
            let result = match busy.run(|out, _| run_file(&mut session, file, out)) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::from(2);
                }
            };
            for f in &result.failures {
                eprintln!("{}", render(f, &session.sources, color));
            }
            // Reported above, before the file ran.
            if !session.unused_overrides().is_empty() {
                return ExitCode::from(2);
            }
            let plotted = plot
                .as_ref()
                .is_none_or(|p| plot_last_table(&session, file, p));
            // The process ends here: freeing the memo tables entry by
            // entry would only delay the exit (seconds after a search of
            // millions of nested compounds).
            std::mem::forget(session);
            if result.ok() && plotted {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Command::Test { path } => test_path(path, &limits(&cli), color),
        Command::Repl { files } => crate::repl::run(files, limits(&cli)),
        Command::Octal { code, heaps, out } => {
            let job = crate::takebreak::run::Job {
                code: code.clone(),
                last: *heaps,
                out: out.clone(),
            };
            match crate::takebreak::run::run(&job, &mut std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Jupyter { action } => crate::jupyter::run(action, limits(&cli)),
    }
}

/// `--plot FILE`: the last table the run printed, as FILE.png and FILE.svg.
fn plot_last_table(session: &Session, file: &Path, path: &Path) -> bool {
    let Some(table) = &session.last_table else {
        eprintln!(
            "error: --plot: {} printed no table (print one with `table(e for r in R, c in C)`)",
            file.display()
        );
        return false;
    };
    match plot::plot_table(table, &file.display().to_string(), path) {
        Ok(w) => {
            eprintln!("wrote {} and {}", w.png.display(), w.svg.display());
            true
        }
        Err(e) => {
            eprintln!("error: --plot: {e}");
            false
        }
    }
}

/// Reads and runs one file in the session.
pub fn run_file(
    session: &mut Session,
    file: &Path,
    out: &mut dyn Write,
) -> std::io::Result<RunResult> {
    let text = crate::source_file::read_source(file)?;
    Ok(session.run(&file.display().to_string(), &text, out))
}

/// Every `.game` file under `path` (or `path` itself), sorted. Each
/// directory is walked once, so a symlink loop ends.
pub fn game_files(path: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    collect_game_files(path, &mut seen, &mut out);
    out
}

fn collect_game_files(
    path: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) {
    if !path.is_dir() {
        if path.exists() {
            out.push(path.to_path_buf());
        }
        return;
    }
    if !seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())) {
        return;
    }
    if let Ok(entries) = std::fs::read_dir(path) {
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                collect_game_files(&p, seen, out);
            } else if p.extension().is_some_and(|e| e == "game") {
                out.push(p);
            }
        }
    }
}

/// Whether a file is meant to fail (error examples are checked by snapshot
/// tests, not run as passing tests).
fn is_error_example(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == "errors")
}

fn test_path(path: &Path, limits: &Limits, color: bool) -> ExitCode {
    let files: Vec<PathBuf> = game_files(path)
        .into_iter()
        .filter(|p| !is_error_example(p))
        .collect();
    if files.is_empty() {
        eprintln!("error: no .game files under {}", path.display());
        return ExitCode::from(2);
    }
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        let mut session = Session::on_demand(limits.clone());
        let start = std::time::Instant::now();
        let mut sink = Vec::new();
        match run_file(&mut session, file, &mut sink) {
            Ok(r) if r.ok() => {
                passed += 1;
                println!(
                    "PASS {} ({} assertions, {:.2}s)",
                    file.display(),
                    r.assertions_passed,
                    start.elapsed().as_secs_f64()
                );
            }
            Ok(r) => {
                failed += 1;
                println!("FAIL {}", file.display());
                for f in &r.failures {
                    eprintln!("{}", render(f, &session.sources, color));
                }
            }
            Err(e) => {
                failed += 1;
                println!("FAIL {}: cannot read: {e}", file.display());
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
