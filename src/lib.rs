//! grundy: Sprague-Grundy values of impartial games written in a rules
//! language.
//!
//! The data flow, one module per stage:
//! text -> [`syntax`] (AST with spans) -> [`ir`] (names resolved, arities
//! checked) -> [`eval`] (compiled closures, SG search, memo tables) ->
//! [`report`] (values, tables, diagnostics) -> [`cli`] / REPL.
//! [`session::Session`] runs the whole pipeline on one text.

pub mod cli;
pub mod diag;
pub mod eval;
pub mod ir;
pub mod report;
pub mod session;
pub mod syntax;

pub use eval::runtime::Limits;
pub use session::{Failure, RunResult, Session};

/// A plain line-by-line REPL (the full one with history, completion and
/// highlighting lives in `repl`).
pub fn repl_basic(files: &[std::path::PathBuf], limits: Limits) -> std::process::ExitCode {
    let mut session = Session::new(limits);
    let color = std::io::IsTerminal::is_terminal(&std::io::stderr());
    for f in files {
        match cli::run_file(&mut session, f, &mut std::io::stdout()) {
            Ok(r) => {
                for failure in &r.failures {
                    eprintln!("{}", report::render(failure, &session.sources, color));
                }
            }
            Err(e) => eprintln!("error: cannot read {}: {e}", f.display()),
        }
    }
    let Ok(mut editor) = rustyline::DefaultEditor::new() else {
        eprintln!("error: cannot start the line editor");
        return std::process::ExitCode::from(2);
    };
    let mut n = 0;
    while let Ok(line) = editor.readline("grundy> ") {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == ":quit" || line == ":q" {
            break;
        }
        let _ = editor.add_history_entry(line);
        n += 1;
        let r = session.run(&format!("<repl {n}>"), line, &mut std::io::stdout());
        for failure in &r.failures {
            eprintln!("{}", report::render(failure, &session.sources, color));
        }
    }
    std::process::ExitCode::SUCCESS
}
