//! `grundy repl [FILES]`: an interactive session.
//!
//! - [`core`]: the REPL without a terminal (entries, commands, rollback,
//!   `:reload`), what the tests drive;
//! - [`command`]: parsing of `:commands`;
//! - [`editor`]: completion, highlighting and the multi-line validator for
//!   rustyline; [`history`]: where the history file lives;
//! - [`show`]: how answers are shown; [`games`], [`help`], [`changes`]:
//!   the texts of `:games`, `:help` and `:reload`;
//! - [`play`]: a game of `:play`, move by move;
//!
//! Ctrl-C and the spinner while an entry runs are [`crate::busy`]'s.
//!
//! This file is the glue: the prompt loop.

pub mod changes;
pub mod command;
pub mod core;
pub mod editor;
pub mod games;
pub mod help;
pub mod history;
pub mod play;
pub mod show;
mod typeahead;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Config, Editor};

pub use self::core::{Flow, Repl, Style};
use crate::Limits;

const PROMPT: &str = "grundy> ";
/// The prompt while a game of `:play` goes on: entries are its moves.
const PLAY_PROMPT: &str = "  play> ";
const MORE: &str = "   ...> ";

/// Whether a stream should get colours: a terminal, and `NO_COLOR` unset.
fn colour(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Runs the interactive session after loading `files`.
pub fn run(files: &[PathBuf], limits: Limits) -> ExitCode {
    let style = Style {
        color_out: colour(std::io::stdout().is_terminal()),
        color_err: colour(std::io::stderr().is_terminal()),
    };
    let mut repl = Repl::new(limits, style);
    let busy = crate::busy::Busy::install(repl.interrupt(), repl.progress());
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        println!(
            "grundy {}: Sprague-Grundy values. :help for help, Ctrl-D to quit.",
            env!("CARGO_PKG_VERSION")
        );
    }
    for f in files {
        busy.run(|out, err| repl.load(f, out, err));
    }
    let config = Config::builder().auto_add_history(false).build();
    let mut editor: Editor<editor::Helper, DefaultHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            return ExitCode::from(2);
        }
    };
    editor.set_helper(Some(editor::Helper::new(repl.words(), style.color_out)));
    let history = history::history_path();
    if let Some(path) = &history {
        if let Err(e) = history::prepare(path) {
            eprintln!("warning: no history file {}: {e}", path.display());
        }
        let _ = editor.load_history(path);
    }
    let mut typeahead = typeahead::Typeahead::default();
    loop {
        if let Some(h) = editor.helper_mut() {
            h.words = repl.words();
        }
        if interactive {
            typeahead.collect();
        }
        let prompt = if repl.playing() { PLAY_PROMPT } else { PROMPT };
        let Some(entry) = read_entry(&mut editor, &mut typeahead, prompt) else {
            break;
        };
        if entry.trim().is_empty() {
            continue;
        }
        if interactive {
            let _ = editor.add_history_entry(entry.as_str());
            if let Some(path) = &history {
                let _ = editor.append_history(path);
            }
        }
        if busy.run(|out, err| repl.handle(&entry, out, err)) == Flow::Quit {
            break;
        }
    }
    ExitCode::SUCCESS
}

/// Reads one entry, over several lines while it is unfinished (the
/// validator does this on a terminal; this loop does it for piped input).
/// `None` at the end of input; Ctrl-C at the prompt gives an empty entry.
/// Lines typed ahead come first (shown after the prompt, as typed).
fn read_entry(
    editor: &mut Editor<editor::Helper, DefaultHistory>,
    typeahead: &mut typeahead::Typeahead,
    prompt: &str,
) -> Option<String> {
    let mut read = |prompt: &str| match typeahead.next() {
        Some(line) => {
            println!("{prompt}{line}");
            Ok(line)
        }
        None => editor.readline(prompt),
    };
    let mut entry = match read(prompt) {
        Ok(line) => line,
        Err(ReadlineError::Interrupted) => return Some(String::new()),
        Err(ReadlineError::Eof) => return None,
        Err(e) => {
            eprintln!("error: {e}");
            return None;
        }
    };
    while editor::needs_more(&entry) {
        match read(MORE) {
            Ok(line) => {
                entry.push('\n');
                entry.push_str(&line);
            }
            Err(ReadlineError::Interrupted) => return Some(String::new()),
            Err(_) => break,
        }
    }
    Some(entry)
}
