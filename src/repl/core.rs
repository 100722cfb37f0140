//! The REPL without a terminal: one [`Repl`] holds the session and runs
//! entries and commands, writing answers to `out` and errors to `err`.
//! Tests drive it directly; `repl::run` only adds the line editor, Ctrl-C
//! and the progress display.
//!
//! A typed entry is all-or-nothing: when any of its statements fails, the
//! session's names go back to what they were before it. A loaded file runs
//! as `grundy run` runs it: one that parses and whose names resolve is
//! loaded, its failed assertions (and an error that stopped it) reported,
//! its definitions kept; `:load` and `:reload` follow this one rule.
//! `:reload` replays the loaded files and the entries that defined
//! something, in their order, from the names the session started with.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indexmap::IndexMap;

use super::changes::{definitions, Changes};
use super::command::{self, Command};
use super::editor::Words;
use super::games::{self, one_line};
use super::play::{Play, PlayError, Turn};
use super::{help, show};
use crate::eval::ops::as_game;
use crate::eval::value::Value;
use crate::ir::names::Item;
use crate::report::{plot, render};
use crate::session::{Failure, RunResult, Snapshot};
use crate::syntax::ast::StmtKind;
use crate::{Limits, Session};

/// Whether answers (`out`) and errors (`err`) go to colour terminals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub color_out: bool,
    pub color_err: bool,
}

/// What the caller should do after an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Something `:reload` replays.
#[derive(Clone, Debug)]
enum Event {
    Load(PathBuf),
    /// An entry that defined something: its source name and text.
    Entry(String, String),
}

/// "1 failed assertion", "2 failed assertions and an error".
fn failures_text(result: &RunResult) -> String {
    let failed = (result.failures.iter())
        .filter(|f| f.kind() == Some(crate::diag::ErrorKind::AssertFailed))
        .count();
    let stopped = failed < result.failures.len();
    let plural = if failed == 1 { "" } else { "s" };
    match (failed, stopped) {
        (0, _) => "an error".to_string(),
        (n, false) => format!("{n} failed assertion{plural}"),
        (n, true) => format!("{n} failed assertion{plural} and an error"),
    }
}

/// The default file of `:plot`.
pub const PLOT_FILE: &str = "plot.png";

pub struct Repl {
    session: Session,
    /// The names after the prelude: where `:reload` starts from.
    base: Snapshot,
    log: Vec<Event>,
    /// The text last read of each loaded file.
    texts: IndexMap<PathBuf, String>,
    timing: bool,
    style: Style,
    entries: usize,
    /// The entry that showed the last table, as the title of `:plot`.
    last_table_title: Option<String>,
    /// Whether the last input wrote an error (see [`Repl::failed`]).
    failed: bool,
    /// The game of `:play` being played: entries are its moves meanwhile.
    play: Option<Play>,
}

impl Repl {
    pub fn new(limits: Limits, style: Style) -> Repl {
        let mut session = Session::new(limits);
        let color = style.color_out;
        session.format = Some(Box::new(move |v| show::pretty(v, color)));
        let base = session.snapshot();
        Repl {
            session,
            base,
            log: Vec::new(),
            texts: IndexMap::new(),
            timing: false,
            style,
            entries: 0,
            last_table_title: None,
            failed: false,
            play: None,
        }
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, for a front end that shows values its own way (the
    /// Jupyter kernel sets [`Session::show`]).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Whether the last [`Repl::handle`] reported an error: anything it
    /// wrote to `err` before the timing line (a failed entry, a command
    /// that could not run).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The flag that stops a running computation when set (Ctrl-C).
    pub fn interrupt(&self) -> Arc<AtomicBool> {
        self.session.runtime().interrupt.clone()
    }

    /// How far the running comprehension has got (for the progress bar).
    pub fn progress(&self) -> Arc<crate::eval::compile::Progress> {
        self.session.runtime().progress.clone()
    }

    pub fn timing(&self) -> bool {
        self.timing
    }

    /// Whether a game of `:play` is going on: entries that are not
    /// `:commands` are its moves.
    pub fn playing(&self) -> bool {
        self.play.is_some()
    }

    /// The names Tab completes: games apart from functions and constants.
    pub fn words(&self) -> Words {
        let (mut games, mut others) = (Vec::new(), Vec::new());
        for (name, item) in &self.session.names().items {
            match item {
                Item::Game { .. } => games.push(name.to_string()),
                _ => others.push(name.to_string()),
            }
        }
        Words::new(games, others)
    }

    /// The value of `expr`, one expression, computed quietly and within
    /// `limit` (for completing the fields after `expr.`): nothing is shown,
    /// defined or remembered as the last table; `None` when `expr` is not
    /// one expression, fails or takes longer.
    pub fn value_of(&mut self, expr: &str, limit: Duration) -> Option<Value> {
        let parsed = crate::syntax::parse(expr, Default::default()).ok()?;
        if parsed.stmts.len() != 1 || !matches!(parsed.stmts[0].kind, StmtKind::Expr(_)) {
            return None;
        }
        let found = Rc::new(RefCell::new(None));
        let keep = found.clone();
        let show = self.session.show.replace(Box::new(move |v| {
            *keep.borrow_mut() = Some(v.clone());
            true
        }));
        let timeout = self.session.runtime().limits.timeout;
        self.session
            .set_timeout(Some(timeout.map_or(limit, |t| t.min(limit))));
        let (snapshot, last_table) = (self.session.snapshot(), self.session.last_table.clone());
        // In a list, so that a plot with a file writes nothing.
        let listed = format!("[{expr}\n]");
        let result = self
            .session
            .run("<completion>", &listed, &mut std::io::sink());
        self.session.restore(snapshot);
        self.session.last_table = last_table;
        self.session.set_timeout(timeout);
        self.session.show = show;
        let value = found.borrow_mut().take();
        match value {
            Some(Value::List(items)) if result.ok() && items.len() == 1 => Some(items[0].clone()),
            _ => None,
        }
    }

    /// Runs one entry (statements or a `:command`).
    pub fn handle(&mut self, input: &str, out: &mut dyn Write, err: &mut dyn Write) -> Flow {
        if input.trim().is_empty() {
            return Flow::Continue;
        }
        let start = Instant::now();
        let mut err = Noting {
            inner: err,
            wrote: false,
        };
        let err: &mut Noting = &mut err;
        let (flow, timed) = if self.play.is_some() && !command::is_command(input) {
            self.play_turn(input, out, err);
            (Flow::Continue, false)
        } else if command::is_command(input) {
            match command::parse(input) {
                Ok(cmd) => {
                    let timed = matches!(
                        cmd,
                        Command::Load(_) | Command::Reload | Command::Plot { .. }
                    );
                    (self.command(cmd, out, err), timed)
                }
                Err(e) => {
                    let _ = writeln!(err, "error: {e}");
                    (Flow::Continue, false)
                }
            }
        } else {
            self.entry(input, out, err);
            (Flow::Continue, true)
        };
        self.failed = err.wrote;
        if timed && self.timing {
            let _ = writeln!(err, "time: {}", elapsed_text(start.elapsed()));
        }
        flow
    }

    fn command(&mut self, cmd: Command, out: &mut dyn Write, err: &mut dyn Write) -> Flow {
        match cmd {
            Command::Quit => return Flow::Quit,
            Command::Load(path) => {
                self.load(&path, out, err);
            }
            Command::Reload => self.reload(out, err),
            Command::Games => {
                let _ = writeln!(out, "{}", games::render(&games::games(&self.session)));
            }
            Command::Explain(name) => match self.session.explain(name.as_deref()) {
                Ok(text) => {
                    let _ = write!(out, "{text}");
                }
                Err(e) => {
                    let _ = writeln!(err, "error: {e}");
                }
            },
            Command::Help(topic) => match help::help(topic.as_deref(), &self.session) {
                Ok(text) => {
                    let _ = writeln!(out, "{text}");
                }
                Err(e) => {
                    let _ = writeln!(err, "error: {e}");
                }
            },
            Command::Time(on) => {
                self.timing = on.unwrap_or(!self.timing);
                let state = if self.timing { "on" } else { "off" };
                let _ = writeln!(out, "timing {state}");
            }
            Command::Clear => {
                let rt = self.session.runtime();
                let n = rt.stored.get();
                rt.clear_memos();
                let _ = writeln!(out, "memo tables cleared ({n} positions dropped)");
            }
            Command::Timeout(set) => {
                if let Some(t) = set {
                    self.session.set_timeout(t);
                }
                let _ = match self.session.runtime().limits.timeout {
                    Some(t) => writeln!(out, "timeout {} s per entry", t.as_secs_f64()),
                    None => writeln!(out, "no timeout"),
                };
            }
            Command::Plot { expr, file } => self.plot(expr.as_deref(), file.as_deref(), out, err),
            Command::Play(expr) => self.start_play(&expr, out, err),
        }
        Flow::Continue
    }

    /// Runs typed statements; on any failure the names go back.
    fn entry(&mut self, text: &str, out: &mut dyn Write, err: &mut dyn Write) {
        self.entries += 1;
        let name = format!("<repl {}>", self.entries);
        let before = self.session.last_table.clone();
        if self.run_atomic(&name, text, out, err).ok() {
            if defines(text) {
                self.log.push(Event::Entry(name, text.to_string()));
            }
            let shown = &self.session.last_table;
            if shown.is_some() && !same_table(shown, &before) {
                self.last_table_title = Some(one_line(text));
            }
        }
    }

    fn run_atomic(
        &mut self,
        name: &str,
        text: &str,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> RunResult {
        let snapshot = self.session.snapshot();
        let result = self.session.run(name, text, out);
        self.report(&result, err);
        if !result.ok() {
            self.session.restore(snapshot);
        }
        result
    }

    fn report(&self, result: &RunResult, err: &mut dyn Write) {
        for f in &result.failures {
            let _ = writeln!(
                err,
                "{}",
                render(f, &self.session.sources, self.style.color_err)
            );
        }
    }

    /// `:load FILE`; false when it could not be read.
    pub fn load(&mut self, path: &Path, out: &mut dyn Write, err: &mut dyn Write) -> bool {
        let text = match crate::source_file::read_source(path) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(err, "error: cannot read {}: {e}", path.display());
                return false;
            }
        };
        let before = self.session.last_table.clone();
        // As `:reload` and `grundy run`: a file that parses and whose names
        // resolve is loaded, and what failed in it (assertions, an error
        // that stopped it) is reported; one that does not changes nothing.
        let snapshot = self.session.snapshot();
        let result = self.session.run(&path.display().to_string(), &text, out);
        self.report(&result, err);
        if !result.installed {
            self.session.restore(snapshot);
            let _ = writeln!(
                err,
                "nothing from {} was loaded; fix it and :load it again",
                path.display()
            );
            return true;
        }
        if self.session.last_table.is_some() && !same_table(&self.session.last_table, &before) {
            self.last_table_title = Some(path.display().to_string());
        }
        let names: Vec<String> = definitions(&text).into_keys().collect();
        self.log.push(Event::Load(path.to_path_buf()));
        self.texts.insert(path.to_path_buf(), text);
        if names.is_empty() {
            let _ = writeln!(out, "loaded {}", path.display());
        } else {
            let _ = writeln!(out, "loaded {}: {}", path.display(), short_list(&names));
        }
        if !result.ok() {
            let _ = writeln!(
                err,
                "{} loaded with {} (reported above); its definitions are in the session",
                path.display(),
                failures_text(&result)
            );
        }
        true
    }

    /// `:reload`: all files or nothing.
    pub fn reload(&mut self, out: &mut dyn Write, err: &mut dyn Write) {
        if self.texts.is_empty() {
            let _ = writeln!(err, "error: no file loaded yet: use :load FILE");
            return;
        }
        let mut fresh = IndexMap::new();
        for path in self.texts.keys() {
            match crate::source_file::read_source(path) {
                Ok(t) => {
                    fresh.insert(path.clone(), t);
                }
                Err(e) => {
                    let _ = writeln!(
                        err,
                        "error: cannot read {}: {e}; nothing reloaded",
                        path.display()
                    );
                    return;
                }
            }
        }
        let before = self.session.snapshot();
        self.session.restore(self.base.clone());
        let mut log = Vec::new();
        let mut dropped = Vec::new();
        for event in &self.log {
            match event {
                Event::Load(path) => {
                    let text = &fresh[path];
                    let result = self.session.run(&path.display().to_string(), text, out);
                    self.report(&result, err);
                    if !result.installed {
                        self.session.restore(before);
                        let _ = writeln!(
                            err,
                            "reload stopped: {} has errors; the session is as it was",
                            path.display()
                        );
                        return;
                    }
                }
                Event::Entry(name, text) => {
                    let snapshot = self.session.snapshot();
                    let result = self.session.run(name, text, &mut std::io::sink());
                    if !result.ok() {
                        self.session.restore(snapshot);
                        dropped.push((text.clone(), result));
                        continue;
                    }
                }
            }
            log.push(event.clone());
        }
        self.log = log;
        for (path, text) in fresh {
            let old = self
                .texts
                .insert(path.clone(), text.clone())
                .unwrap_or_default();
            let changes = Changes::between(&definitions(&old), &definitions(&text));
            let _ = writeln!(out, "reloaded {}: {changes}", path.display());
        }
        for (text, result) in dropped {
            let first = text.lines().next().unwrap_or("");
            let _ = writeln!(
                err,
                "dropped your earlier entry `{first}`: it fails with the reloaded files"
            );
            self.report(&result, err);
        }
    }

    /// `:play EXPR`: evaluates the game and starts playing it (instead of a
    /// game being played, if any).
    fn start_play(&mut self, expr: &str, out: &mut dyn Write, err: &mut dyn Write) {
        self.entries += 1;
        let name = format!("<repl {}>", self.entries);
        let failures = match self.session.evaluate(&name, expr) {
            Ok((value, span)) => match as_game(&value, span) {
                Ok(game) => match Play::start(&self.session, (*game).clone(), span, out) {
                    Ok(play) => {
                        self.play = play;
                        return;
                    }
                    Err(d) => vec![Failure::Error(*d)],
                },
                Err(d) => vec![Failure::Error(*d)],
            },
            Err(failures) => failures,
        };
        self.report(
            &RunResult {
                failures,
                ..Default::default()
            },
            err,
        );
    }

    /// One entry while a game is played: a move, `undo` or `quit`.
    fn play_turn(&mut self, input: &str, out: &mut dyn Write, err: &mut dyn Write) {
        let Some(play) = self.play.as_mut() else {
            return;
        };
        self.session.runtime().start_clock();
        match play.input(&self.session, input, out) {
            Ok(Turn::Continue) => {}
            Ok(Turn::Over) => self.play = None,
            Err(PlayError::Input(message, help)) => {
                let _ = writeln!(err, "error: {message}\n  help: {help}");
            }
            Err(PlayError::Eval(d)) => {
                let failure = Failure::Error(*d);
                let _ = writeln!(
                    err,
                    "{}",
                    render(&failure, &self.session.sources, self.style.color_err)
                );
            }
        }
    }

    /// `:plot [EXPR] [FILE]`.
    fn plot(
        &mut self,
        expr: Option<&str>,
        file: Option<&Path>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) {
        let (table, title) = match expr {
            None => match &self.session.last_table {
                Some(t) => (t.clone(), self.last_table_title.clone().unwrap_or_default()),
                None => {
                    let _ = writeln!(
                        err,
                        "error: no table shown yet; give one: :plot table(sg(G(a, b)) for a in 0..10, b in 0..10)"
                    );
                    return;
                }
            },
            Some(e) => {
                if !is_one_expression(e) {
                    let _ = writeln!(
                        err,
                        "error: `:plot` takes one expression, e.g. :plot table(...)"
                    );
                    return;
                }
                let before = self.session.last_table.take();
                self.entries += 1;
                let name = format!("<repl {}>", self.entries);
                let result = self.run_atomic(&name, e, &mut std::io::sink(), err);
                match self.session.last_table.clone() {
                    Some(t) => {
                        self.last_table_title = Some(one_line(e));
                        (t, one_line(e))
                    }
                    None => {
                        self.session.last_table = before;
                        if result.ok() {
                            let _ = writeln!(
                                err,
                                "error: `:plot` needs a table, made with table(e for r in R, c in C)"
                            );
                        }
                        return;
                    }
                }
            }
        };
        let path = file.unwrap_or(Path::new(PLOT_FILE));
        match plot::plot_table(&table, &title, path) {
            Ok(w) => {
                let _ = writeln!(
                    out,
                    "wrote {} and {} ({} x {} cells)",
                    w.png.display(),
                    w.svg.display(),
                    table.rows.len(),
                    table.col_keys.len()
                );
            }
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
            }
        }
    }
}

/// A writer that notes whether anything was written through it.
struct Noting<'a> {
    inner: &'a mut dyn Write,
    wrote: bool,
}

impl Write for Noting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.wrote |= !buf.is_empty();
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Whether the text defines a game, function or constant.
fn defines(text: &str) -> bool {
    crate::syntax::parse(text, Default::default()).is_ok_and(|p| {
        p.stmts.iter().any(|s| {
            matches!(
                s.kind,
                StmtKind::Game(_) | StmtKind::Fn(_) | StmtKind::Let { .. }
            )
        })
    })
}

/// Whether the text is one bare expression (or does not parse: the
/// session then reports the syntax error).
fn is_one_expression(text: &str) -> bool {
    match crate::syntax::parse(text, Default::default()) {
        Ok(p) => p.stmts.len() == 1 && matches!(p.stmts[0].kind, StmtKind::Expr(_)),
        Err(_) => true,
    }
}

fn same_table(
    a: &Option<std::rc::Rc<crate::eval::value::Table>>,
    b: &Option<std::rc::Rc<crate::eval::value::Table>>,
) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => std::rc::Rc::ptr_eq(x, y),
        (None, None) => true,
        _ => false,
    }
}

/// Up to eight names, then how many more.
fn short_list(names: &[String]) -> String {
    if names.len() <= 8 {
        names.join(", ")
    } else {
        format!("{}, and {} more", names[..8].join(", "), names.len() - 8)
    }
}

/// A duration as `0.42 ms`, `12.3 ms` or `1.234 s`.
pub fn elapsed_text(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.3} s", ms / 1000.0)
    }
}
