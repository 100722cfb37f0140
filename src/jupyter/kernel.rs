//! The evaluator side of the kernel: one [`Repl`] (the REPL's library
//! core, so a cell is exactly a REPL entry), fed the shell requests in
//! order. Outputs of a cell go out as they come: printed text as `stream`,
//! shown values as rich bundles (the last one as the `execute_result`),
//! errors as an `error` whose traceback is the rendered diagnostic.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use jupyter_protocol::{
    CommInfoReply, CompleteReply, CompleteRequest, DisplayData, ErrorOutput, ExecuteInput,
    ExecuteReply, ExecuteRequest, ExecutionCount, HistoryReply, InspectReply, InspectRequest,
    IsCompleteReply, IsCompleteRequest, JupyterMessage, JupyterMessageContent, Media, MediaType,
    ReplyError, ReplyStatus, Status, StreamContent,
};
use tokio::sync::mpsc::UnboundedSender;

use super::channels::{status, Outgoing};
use super::history::History;
use super::info::message;
use super::progress::{End, Ticker};
use super::rich;
use crate::eval::compile::field_names;
use crate::repl::command::{self, Command};
use crate::repl::{editor, help, Flow, Repl};
use crate::report::plot;
use crate::syntax::lexer;

pub struct Kernel {
    repl: Repl,
    requests: mpsc::Receiver<JupyterMessage>,
    /// Requests taken off the queue early (see [`Kernel::execute`]).
    queued: VecDeque<JupyterMessage>,
    out: UnboundedSender<Outgoing>,
    count: usize,
    /// Numbers the temporary files of inline plots.
    plots: usize,
    /// The cells run with `store_history`, for `history_request`.
    history: History,
}

impl Kernel {
    pub fn new(
        repl: Repl,
        requests: mpsc::Receiver<JupyterMessage>,
        out: UnboundedSender<Outgoing>,
    ) -> Kernel {
        Kernel {
            repl,
            requests,
            queued: VecDeque::new(),
            out,
            count: 0,
            plots: 0,
            history: History::default(),
        }
    }

    /// Answers shell requests until the I/O side closes the queue.
    pub fn serve(mut self) {
        loop {
            let msg = match self.queued.pop_front() {
                Some(m) => m,
                None => match self.requests.recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
            };
            if self.handle(&msg) {
                // A failed cell of a "run all" stops the cells queued
                // after it, as ipykernel does: they are answered `aborted`.
                let queued = std::mem::take(&mut self.queued);
                for m in queued {
                    if matches!(m.content, JupyterMessageContent::ExecuteRequest(_)) {
                        self.abort(&m);
                    } else {
                        self.queued.push_back(m);
                    }
                }
            }
        }
    }

    fn abort(&self, msg: &JupyterMessage) {
        self.publish(status(msg, Status::busy()));
        let reply = ExecuteReply {
            status: ReplyStatus::Aborted,
            execution_count: ExecutionCount::new(self.count),
            ..Default::default()
        };
        self.reply(msg, reply);
        self.publish(status(msg, Status::idle()));
    }

    /// Answers one request; true when it was a cell that failed and asked
    /// to stop on errors.
    fn handle(&mut self, msg: &JupyterMessage) -> bool {
        let mut stop = false;
        self.publish(status(msg, Status::busy()));
        match &msg.content {
            JupyterMessageContent::ExecuteRequest(r) => {
                stop = !self.execute(msg, r) && r.stop_on_error;
            }
            JupyterMessageContent::CompleteRequest(r) => {
                let reply = self.complete(r);
                self.reply(msg, reply);
            }
            JupyterMessageContent::InspectRequest(r) => {
                let reply = self.inspect(r);
                self.reply(msg, reply);
            }
            JupyterMessageContent::IsCompleteRequest(r) => {
                self.reply(msg, is_complete(r));
            }
            JupyterMessageContent::HistoryRequest(r) => {
                self.reply(msg, HistoryReply::new(self.history.answer(r)));
            }
            JupyterMessageContent::CommInfoRequest(_) => {
                let reply = CommInfoReply {
                    status: ReplyStatus::Ok,
                    comms: HashMap::new(),
                    error: None,
                };
                self.reply(msg, reply);
            }
            // grundy has no comms, debugger or input: nothing to answer.
            _ => {}
        }
        self.publish(status(msg, Status::idle()));
        stop
    }

    fn publish(&self, msg: JupyterMessage) {
        let _ = self.out.send(Outgoing::IoPub(msg));
    }

    fn reply(&self, parent: &JupyterMessage, content: impl Into<JupyterMessageContent>) {
        let _ = self
            .out
            .send(Outgoing::Shell(message(content, Some(parent))));
    }

    /// Runs a cell; false when it failed.
    fn execute(&mut self, msg: &JupyterMessage, req: &ExecuteRequest) -> bool {
        let silent = req.silent;
        let stored = !silent && req.store_history;
        if stored {
            self.count += 1;
        }
        let count = ExecutionCount::new(self.count);
        if !silent {
            self.publish(message(
                ExecuteInput {
                    code: req.code.clone(),
                    execution_count: count,
                },
                Some(msg),
            ));
        }
        // An interrupt that came while nothing ran is not for this cell.
        self.repl.interrupt().store(false, Ordering::SeqCst);
        let cell = Rc::new(RefCell::new(CellOutput {
            parent: msg.clone(),
            out: self.out.clone(),
            silent,
            text: String::new(),
            pending: None,
            count,
        }));
        let shown = cell.clone();
        self.repl.session_mut().show = Some(Box::new(move |v| {
            shown.borrow_mut().show(rich::bundle(v));
            true
        }));
        let ticker = (!silent).then(|| Ticker::start(self.repl.progress(), self.out.clone(), msg));
        let mut out = StreamWriter(cell.clone());
        let mut err = Vec::new();
        let flow = match plot_command(&req.code) {
            Some((expr, file)) => self.plot(expr, file, &cell, &mut out, &mut err),
            None => self.repl.handle(&req.code, &mut out, &mut err),
        };
        let err = String::from_utf8_lossy(&err).into_owned();
        let failed = self.repl.failed();
        let error = failed.then(|| error_of(&err));
        if let Some(ticker) = ticker {
            ticker.finish(match &error {
                None => End::Computed,
                Some(e) if e.ename == INTERRUPTED => End::Interrupted,
                Some(_) => End::Failed,
            });
        }
        self.repl.session_mut().show = None;
        let result = cell.borrow_mut().finish();
        if stored {
            self.history.add(self.count, &req.code, result);
        }
        if let Some(error) = error {
            if req.stop_on_error {
                // What was sent before this reply is what a "run all" sent
                // after this cell: take it now, before the client can send
                // anything in answer to the reply.
                let early: Vec<JupyterMessage> = self.requests.try_iter().collect();
                self.queued.extend(early);
            }
            if !silent {
                self.publish(message(
                    ErrorOutput {
                        ename: error.ename.clone(),
                        evalue: error.evalue.clone(),
                        traceback: error.traceback.clone(),
                    },
                    Some(msg),
                ));
            }
            let reply = ExecuteReply {
                status: ReplyStatus::Error,
                execution_count: count,
                error: Some(Box::new(error)),
                ..Default::default()
            };
            self.reply(msg, reply);
            return false;
        }
        let mut err = err;
        if flow == Flow::Quit {
            err.push_str("`:quit` does nothing in a notebook: shut the kernel down from it\n");
        }
        if !err.is_empty() && !silent {
            self.publish(message(StreamContent::stderr(&err), Some(msg)));
        }
        let reply = ExecuteReply {
            status: ReplyStatus::Ok,
            execution_count: count,
            user_expressions: Some(HashMap::new()),
            ..Default::default()
        };
        self.reply(msg, reply);
        true
    }

    /// `:plot [EXPR] [FILE]`: the REPL writes the heatmap (to a temporary
    /// file when no FILE is named), and the cell shows it inline.
    fn plot(
        &mut self,
        expr: Option<String>,
        file: Option<PathBuf>,
        cell: &Rc<RefCell<CellOutput>>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Flow {
        self.plots += 1;
        let temporary = file.is_none();
        let target = file.unwrap_or_else(|| {
            std::env::temp_dir().join(format!(
                "grundy-plot-{}-{}.png",
                std::process::id(),
                self.plots
            ))
        });
        let paths = plot::output_paths(&target);
        let line = format!(
            ":plot {} \"{}\"",
            expr.as_deref().unwrap_or(""),
            target.display()
        );
        let mut quiet = Vec::new();
        let sink: &mut dyn Write = if temporary { &mut quiet } else { out };
        // The table the expression shows is drawn, not shown as well.
        let show = self.repl.session_mut().show.replace(Box::new(|_| true));
        let flow = self.repl.handle(&line, sink, err);
        self.repl.session_mut().show = show;
        if !self.repl.failed() {
            if let (Ok(svg), Ok(png)) = (
                std::fs::read_to_string(&paths.svg),
                std::fs::read(&paths.png),
            ) {
                let caption = match &expr {
                    Some(e) => format!("heatmap of {e}"),
                    None => "heatmap of the last table".to_string(),
                };
                cell.borrow_mut().show(rich::picture(svg, &png, &caption));
            }
        }
        if temporary {
            let _ = std::fs::remove_file(&paths.png);
            let _ = std::fs::remove_file(&paths.svg);
        }
        flow
    }

    /// The REPL's Tab completion, and after `expr.` the fields of the
    /// value of `expr`. Jupyter counts cursor positions in characters, the
    /// completer in bytes.
    fn complete(&mut self, req: &CompleteRequest) -> CompleteReply {
        let pos = byte_of(&req.code, req.cursor_pos);
        let (start, matches) = match self.complete_field(&req.code, pos) {
            Some(found) => found,
            None => editor::complete(&self.repl.words(), &req.code, pos),
        };
        CompleteReply {
            matches,
            cursor_start: char_of(&req.code, start),
            cursor_end: char_of(&req.code, pos),
            metadata: Default::default(),
            status: ReplyStatus::Ok,
            error: None,
        }
    }

    /// The fields after `expr.` at `pos`: (where the field's name starts,
    /// the fields of `expr`'s value it begins). `None` when `pos` follows
    /// no `.` of a field; no fields when `expr` has none, fails or takes
    /// longer than [`FIELD_VALUE_TIME`].
    fn complete_field(&mut self, code: &str, pos: usize) -> Option<(usize, Vec<String>)> {
        if command::is_command(code) {
            return None;
        }
        let (start, word) = lexer::word_before(code, pos);
        let before = &code[..start];
        if !before.ends_with('.') || before.ends_with("..") {
            return None;
        }
        let dot = start - 1;
        let expr = &code[postfix_start(code, dot)..dot];
        let fields = match self.repl.value_of(expr, FIELD_VALUE_TIME) {
            Some(v) => field_names(&v)
                .iter()
                .filter(|f| f.starts_with(word))
                .map(|f| f.to_string())
                .collect(),
            None => Vec::new(),
        };
        Some((start, fields))
    }

    /// What `:help NAME` shows for the name under the cursor, or for the
    /// call that ends just before it (`sg(Heap(3))|`: `sg`).
    fn inspect(&self, req: &InspectRequest) -> InspectReply {
        let word = inspected(&req.code, byte_of(&req.code, req.cursor_pos));
        let text = (!word.is_empty())
            .then(|| help::help(Some(word), self.repl.session()).ok())
            .flatten();
        match text {
            Some(t) => InspectReply {
                found: true,
                data: Media::new(vec![MediaType::Plain(t)]),
                ..Default::default()
            },
            None => InspectReply::default(),
        }
    }
}

/// The parts of a `:plot` cell.
fn plot_command(code: &str) -> Option<(Option<String>, Option<PathBuf>)> {
    if !command::is_command(code) {
        return None;
    }
    match command::parse(code) {
        Ok(Command::Plot { expr, file }) => Some((expr, file)),
        _ => None,
    }
}

/// The REPL's rule for unfinished entries: an open bracket, or text the
/// parser says ended too early. Other syntax errors are `invalid`.
fn is_complete(req: &IsCompleteRequest) -> IsCompleteReply {
    let code = &req.code;
    if command::is_command(code) || code.trim().is_empty() {
        return IsCompleteReply::complete();
    }
    if crate::syntax::lexer::open_depth(code) > 0 {
        return IsCompleteReply::incomplete("    ".into());
    }
    match crate::syntax::parse(code, Default::default()) {
        Ok(_) => IsCompleteReply::complete(),
        Err(e) if e.incomplete => IsCompleteReply::incomplete("    ".into()),
        Err(_) => IsCompleteReply::invalid(),
    }
}

/// The `ename` of a cell stopped by an interrupt.
const INTERRUPTED: &str = "Interrupted";

/// The error of a failed cell: the first line of the diagnostic as its
/// value, the whole rendered diagnostic (with colours) as the traceback.
fn error_of(err: &str) -> ReplyError {
    let plain = strip_ansi(err);
    let lines: Vec<&str> = plain
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // A miette diagnostic: its code (`grundy::unknown_name`) on the first
    // line, the message after `×`. Other errors are one `error: ...` line.
    let message = lines
        .iter()
        .find_map(|l| l.strip_prefix('×'))
        .or_else(|| lines.first().copied())
        .unwrap_or("error")
        .trim();
    let code = lines
        .first()
        .filter(|l| l.starts_with("grundy::") && !l.contains(' '))
        .map_or("GrundyError", |l| l);
    let ename = if message.starts_with("interrupted") {
        INTERRUPTED
    } else {
        code
    };
    ReplyError {
        ename: ename.to_string(),
        evalue: message.to_string(),
        traceback: vec![err.trim_end().to_string()],
    }
}

/// The text without ANSI escape sequences (`ESC [ ... letter`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The byte offset of the `n`th character (the end when past it).
fn byte_of(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// The number of characters before byte `b`.
fn char_of(text: &str, b: usize) -> usize {
    text.get(..b)
        .map_or(text.chars().count(), |t| t.chars().count())
}

/// How long completion may compute the value before a `.`.
const FIELD_VALUE_TIME: Duration = Duration::from_millis(500);

/// Where the postfix expression ending at byte `end` starts: names, calls,
/// indexing and fields (`options(Heap(3))[0].to`), not operators.
fn postfix_start(text: &str, end: usize) -> usize {
    let mut i = end;
    loop {
        let head = &text[..i];
        if head.ends_with(')') || head.ends_with(']') {
            match lexer::matching_bracket(text, i - 1) {
                Some((_, open)) if open < i - 1 => {
                    i = open;
                    continue;
                }
                _ => return i,
            }
        }
        let (start, word) = lexer::word_before(text, i);
        if word.is_empty() {
            return i;
        }
        i = start;
        let head = &text[..i];
        if !head.ends_with('.') || head.ends_with("..") {
            return i;
        }
        i -= 1;
    }
}

/// The name inspected at byte `pos`: the word there, else the callee of
/// the call (or index) that ends just before it.
fn inspected(text: &str, pos: usize) -> &str {
    let mut word = word_at(text, pos);
    let mut at = text[..pos.min(text.len())].trim_end().len();
    while word.is_empty() && (text[..at].ends_with(')') || text[..at].ends_with(']')) {
        match lexer::matching_bracket(text, at - 1) {
            Some((_, open)) if open < at - 1 => {
                word = word_at(text, open);
                at = open;
            }
            _ => break,
        }
    }
    word
}

/// The name (or `:command`) around byte `pos`.
fn word_at(text: &str, pos: usize) -> &str {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let pos = pos.min(text.len());
    let start = text[..pos]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(pos, |(i, _)| i);
    let end = text[pos..]
        .char_indices()
        .find(|&(_, c)| !is_word(c))
        .map_or(text.len(), |(i, _)| pos + i);
    let start = if text[..start].ends_with(':') {
        start - 1
    } else {
        start
    };
    &text[start..end]
}

/// The outputs of the running cell, in order. Printed text is sent a line
/// at a time; a shown value waits, so that the last one of the cell can be
/// its `execute_result` (an earlier one, or one followed by text, goes out
/// as `display_data`).
struct CellOutput {
    parent: JupyterMessage,
    out: UnboundedSender<Outgoing>,
    silent: bool,
    text: String,
    pending: Option<Media>,
    count: ExecutionCount,
}

impl CellOutput {
    fn send(&self, content: impl Into<JupyterMessageContent>) {
        if !self.silent {
            let _ = self
                .out
                .send(Outgoing::IoPub(message(content, Some(&self.parent))));
        }
    }

    fn write_text(&mut self, s: &str) {
        self.send_pending();
        self.text.push_str(s);
        if let Some(end) = self.text.rfind('\n') {
            let lines: String = self.text.drain(..=end).collect();
            self.send(StreamContent::stdout(&lines));
        }
    }

    fn send_text(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            self.send(StreamContent::stdout(&text));
        }
    }

    fn send_pending(&mut self) {
        if let Some(data) = self.pending.take() {
            self.send(DisplayData::new(data));
        }
    }

    fn show(&mut self, data: Media) {
        self.send_text();
        self.send_pending();
        self.pending = Some(data);
    }

    /// Sends what is left; returns the text of the cell's result.
    fn finish(&mut self) -> Option<String> {
        self.send_text();
        let data = self.pending.take()?;
        let text = data.content.iter().find_map(|m| match m {
            MediaType::Plain(t) => Some(t.clone()),
            _ => None,
        });
        let mut result = jupyter_protocol::ExecuteResult::new(self.count, data);
        // The spec's schema wants an object here, never null.
        result.transient = Some(jupyter_protocol::Transient::default());
        self.send(result);
        text
    }
}

/// The cell's standard output.
struct StreamWriter(Rc<RefCell<CellOutput>>);

impl Write for StreamWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .borrow_mut()
            .write_text(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_positions_count_characters() {
        let s = "ω + sg";
        assert_eq!(byte_of(s, 1), 2);
        assert_eq!(char_of(s, 2), 1);
        assert_eq!(byte_of(s, 99), s.len());
    }

    #[test]
    fn the_word_under_the_cursor_may_be_a_command() {
        assert_eq!(word_at("print sg(Heap(3))", 7), "sg");
        assert_eq!(word_at("print sg(Heap(3))", 6), "sg");
        assert_eq!(word_at(":reload", 3), ":reload");
        assert_eq!(word_at("1 + ", 4), "");
    }

    #[test]
    fn just_after_a_call_its_callee_is_inspected() {
        assert_eq!(inspected("sg(Heap(3))", 11), "sg");
        assert_eq!(inspected("sg(Heap(3)) ", 12), "sg");
        assert_eq!(inspected("print Heap(3)", 13), "Heap");
        assert_eq!(
            inspected("subtraction_game[{1, 2}](5)", 27),
            "subtraction_game"
        );
        assert_eq!(inspected("sg(Heap(3))", 1), "sg");
        assert_eq!(inspected("1 + 2", 5), "2");
        assert_eq!(inspected("(1 + 2)", 7), "");
    }

    #[test]
    fn the_fields_offered_are_the_fields_there_are() {
        use crate::repl::Style;
        let mut repl = Repl::new(crate::Limits::default(), Style::default());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let game = "game H(n) where n >= 0 { move take(k in 1..=n) -> H(n - k) }";
        repl.handle(game, &mut out, &mut err);
        repl.handle("table(a for a in 0..2, b in 0..3)", &mut out, &mut err);
        assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
        let shown = repl.session().last_table.clone();
        let t = Duration::from_secs(5);
        for expr in [
            "H(3)",
            "(H(1) + H(2))",
            "misere(H(1) + H(2))",
            "options(H(3))[0]",
            "table(a for a in 0..2, b in 0..2)",
            "plot(a for a in 0..2, b in 0..2)",
            "periodicity(octal(\"0.07\"))",
        ] {
            let v = repl.value_of(expr, t).unwrap_or_else(|| panic!("{expr}"));
            let fields = field_names(&v);
            assert!(!fields.is_empty(), "{expr} has fields");
            for f in fields {
                let read = format!("{expr}.{f}");
                assert!(repl.value_of(&read, t).is_some(), "{read}");
            }
            assert!(repl.value_of(&format!("{expr}.nosuch"), t).is_none());
        }
        assert!(field_names(&repl.value_of("3", t).unwrap()).is_empty());
        // A plot with a file is not written by completing after it.
        let dir = std::env::temp_dir().join(format!("grundy-fields-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.png");
        let plot = format!(
            "plot(table(a for a in 0..2, b in 0..2), \"{}\")",
            file.display()
        );
        assert!(repl.value_of(&plot, t).is_some());
        let written = file.exists() || dir.join("f.svg").exists();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!written, "completion wrote the plot's files");
        // Nothing was shown, defined or taken as the last table.
        assert!(repl.value_of("let x = 1", t).is_none());
        assert!(repl.value_of("x", t).is_none());
        assert!(!out.is_empty() && repl.session().last_table == shown);
    }

    #[test]
    fn a_field_follows_a_postfix_expression() {
        fn start(t: &str) -> &str {
            &t[postfix_start(t, t.len())..]
        }
        assert_eq!(start("print Heap(3)"), "Heap(3)");
        assert_eq!(
            start("x = options(Heap(3))[0].to"),
            "options(Heap(3))[0].to"
        );
        assert_eq!(start("1 + (Heap(1) + Heap(2))"), "(Heap(1) + Heap(2))");
        assert_eq!(start("0..n"), "n");
        assert_eq!(start("f(x))"), "");
    }

    #[test]
    fn unfinished_entries_are_incomplete_and_broken_ones_invalid() {
        let req = |c: &str| IsCompleteRequest { code: c.into() };
        let status = |c: &str| is_complete(&req(c)).status;
        use jupyter_protocol::IsCompleteReplyStatus as S;
        assert_eq!(status("sg(Heap(3)"), S::Incomplete);
        assert_eq!(status("print 1 +"), S::Incomplete);
        assert_eq!(status("print 1 + 2"), S::Complete);
        assert_eq!(status(":games"), S::Complete);
        assert_eq!(status("print )"), S::Invalid);
    }

    #[test]
    fn an_error_keeps_its_colours_in_the_traceback_only() {
        let e = error_of(
            "\x1b[31mgrundy::unknown_name\x1b[0m\n\n  \x1b[31m×\x1b[0m no game `Hep`\n  help: `Heap`?\n",
        );
        assert_eq!(e.evalue, "no game `Hep`");
        assert_eq!(e.ename, "grundy::unknown_name");
        assert!(e.traceback[0].starts_with("\x1b[31m"));
        assert_eq!(error_of("× interrupted\n").ename, "Interrupted");
        let e = error_of("error: unknown command `:relaod`\n  help: did you mean `:reload`?\n");
        assert_eq!(e.ename, "GrundyError");
        assert_eq!(e.evalue, "error: unknown command `:relaod`");
    }
}
