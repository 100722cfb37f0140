//! The line editor's helper: Tab completion of names and commands, syntax
//! highlighting and the multi-line validator, all driven by the logos
//! lexer (`syntax::lexer`). The pure functions ([`complete`],
//! [`highlight`], [`needs_more`]) are what the tests call; [`Helper`] hands
//! them to rustyline.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::Context;

use super::command::{self, COMMANDS};
use crate::eval::builtins::Builtin;
use crate::syntax::lexer::{self, Class, KEYWORDS};

/// The names Tab completes and the highlighter colours.
#[derive(Clone, Debug, Default)]
pub struct Words {
    /// Every completable name, sorted, without repeats.
    pub all: Vec<String>,
    /// Names of games (coloured as games).
    pub games: HashSet<String>,
    /// Names of functions and constants defined in the session.
    pub defined: HashSet<String>,
}

impl Words {
    /// The words for these game names and other defined names, with the
    /// built-ins, keywords and the outcomes `P` and `N`.
    pub fn new(games: Vec<String>, others: Vec<String>) -> Words {
        let mut all: Vec<String> = games
            .iter()
            .chain(&others)
            .cloned()
            .chain(Builtin::ALL.iter().map(|b| b.name().to_string()))
            .chain(KEYWORDS.iter().map(|k| k.to_string()))
            .chain(["P".to_string(), "N".to_string(), "D".to_string()])
            .collect();
        all.sort();
        all.dedup();
        Words {
            all,
            games: games.into_iter().collect(),
            defined: others.into_iter().collect(),
        }
    }
}

/// Completions for the word before `pos`: (where it starts, candidates).
/// On a command line the first word completes to command names; otherwise
/// an identifier completes to game, function, constant, built-in and
/// keyword names. (File names after `:load` are left to the caller.)
pub fn complete(words: &Words, line: &str, pos: usize) -> (usize, Vec<String>) {
    let pos = pos.min(line.len());
    if command::is_command(line) {
        let colon = line.find(':').unwrap_or(0);
        let head = line.get(colon + 1..pos).unwrap_or("");
        if head.contains(char::is_whitespace) {
            return (pos, Vec::new());
        }
        let found = COMMANDS
            .iter()
            .filter(|c| c.name.starts_with(head))
            .map(|c| format!(":{}", c.name))
            .collect();
        return (colon, found);
    }
    let (start, word) = lexer::word_before(line, pos);
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return (pos, Vec::new());
    }
    let found = words
        .all
        .iter()
        .filter(|w| w.starts_with(word))
        .cloned()
        .collect();
    (start, found)
}

/// Whether the entry so far needs another line: a bracket is still open,
/// or the parser says the text ended too early (`game G(n)` without its
/// body, `print 1 +`) and the last line is not blank. A command line never
/// continues.
pub fn needs_more(text: &str) -> bool {
    if command::is_command(text) {
        return false;
    }
    if lexer::open_depth(text) > 0 {
        return true;
    }
    let last_line_blank = text.contains('\n')
        && text
            .rsplit('\n')
            .next()
            .is_some_and(|l| l.trim().is_empty());
    if last_line_blank || text.trim().is_empty() {
        return false;
    }
    matches!(crate::syntax::parse(text, Default::default()), Err(e) if e.incomplete)
}

const KEYWORD: &str = "\x1b[1;35m";
const NUMBER: &str = "\x1b[36m";
const STRING: &str = "\x1b[32m";
const COMMENT: &str = "\x1b[90m";
const GAME: &str = "\x1b[1;33m";
const BUILTIN: &str = "\x1b[34m";
const DEFINED: &str = "\x1b[33m";
const UNKNOWN: &str = "\x1b[31m";
const COMMAND: &str = "\x1b[1;34m";
const MATCH: &str = "\x1b[1;4m";
const RESET: &str = "\x1b[0m";

/// The line with ANSI colours: keywords, numbers, strings, comments, game
/// names, built-ins and the session's names each in their colour; with
/// `bracket_at`, the bracket there and its partner are underlined. The
/// text itself (its display width) is unchanged.
pub fn highlight(words: &Words, line: &str, bracket_at: Option<usize>) -> String {
    if command::is_command(line) {
        let start = line.find(':').unwrap_or(0);
        let end = line[start..]
            .find(char::is_whitespace)
            .map_or(line.len(), |i| start + i);
        return format!(
            "{}{COMMAND}{}{RESET}{}",
            &line[..start],
            &line[start..end],
            &line[end..]
        );
    }
    let partners = bracket_at.and_then(|p| lexer::matching_bracket(line, p));
    let mut out = String::with_capacity(line.len() * 2);
    let mut last = 0;
    for (token, range) in lexer::tokens(line) {
        out.push_str(&line[last..range.start]);
        let text = &line[range.clone()];
        let style = match token.class() {
            Class::Keyword => Some(KEYWORD),
            Class::Number => Some(NUMBER),
            Class::String => Some(STRING),
            Class::Comment => Some(COMMENT),
            Class::Unknown => Some(UNKNOWN),
            Class::Name if words.games.contains(text) => Some(GAME),
            Class::Name if words.defined.contains(text) => Some(DEFINED),
            Class::Name if Builtin::from_name(text).is_some() => Some(BUILTIN),
            Class::Bracket
                if partners.is_some_and(|(a, b)| range.start == a || range.start == b) =>
            {
                Some(MATCH)
            }
            _ => None,
        };
        match style {
            Some(s) => {
                out.push_str(s);
                out.push_str(text);
                out.push_str(RESET);
            }
            None => out.push_str(text),
        }
        last = range.end;
    }
    out.push_str(&line[last..]);
    out
}

/// The rustyline helper.
pub struct Helper {
    pub words: Words,
    pub color: bool,
    files: FilenameCompleter,
    /// Whether to mark the bracket under the cursor (not on the final
    /// redraw of an entered line).
    brackets: Cell<bool>,
}

impl Helper {
    pub fn new(words: Words, color: bool) -> Helper {
        Helper {
            words,
            color,
            files: FilenameCompleter::new(),
            brackets: Cell::new(false),
        }
    }
}

impl Completer for Helper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let wants_file = command::is_command(line)
            && line.trim_start()[1..].contains(char::is_whitespace)
            && matches!(
                line.trim_start()[1..].split_whitespace().next().and_then(command::spec),
                Some(s) if s.name == "load" || s.name == "plot"
            );
        if wants_file {
            return self.files.complete(line, pos, ctx);
        }
        let (start, found) = complete(&self.words, line, pos);
        let pairs = found
            .into_iter()
            .map(|w| Pair {
                display: w.clone(),
                replacement: w,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Highlighter for Helper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        let bracket = self.brackets.get().then_some(pos);
        Cow::Owned(highlight(&self.words, line, bracket))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        self.brackets.set(kind != CmdKind::ForcedRefresh);
        self.color
    }
}

impl Validator for Helper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if needs_more(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Hinter for Helper {
    type Hint = String;
}

impl rustyline::Helper for Helper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words::new(vec!["Heap".into(), "HeapPair".into()], vec!["half".into()])
    }

    #[test]
    fn completes_names_of_every_kind() {
        let w = words();
        assert_eq!(
            complete(&w, "sg(He", 5),
            (3, vec!["Heap".into(), "HeapPair".into()])
        );
        assert_eq!(complete(&w, "ha", 2), (0, vec!["half".into()]));
        assert_eq!(complete(&w, "print tab", 9).1, vec!["table".to_string()]);
        assert_eq!(complete(&w, "wher", 4).1, vec!["where".to_string()]);
        assert_eq!(complete(&w, "sg(", 3).1, Vec::<String>::new());
        assert_eq!(complete(&w, "x = 12", 6).1, Vec::<String>::new());
        assert_eq!(
            complete(&w, "Hx", 1),
            (0, vec!["Heap".into(), "HeapPair".into()])
        );
    }

    #[test]
    fn completes_command_names() {
        let w = words();
        assert_eq!(complete(&w, ":rel", 4), (0, vec![":reload".into()]));
        assert_eq!(complete(&w, "  :g", 4), (2, vec![":games".into()]));
        assert_eq!(complete(&w, ":", 1).1.len(), COMMANDS.len());
        assert_eq!(complete(&w, ":load He", 8).1, Vec::<String>::new());
    }

    #[test]
    fn odd_input_never_panics() {
        let w = words();
        let lines = [
            "",
            ":",
            "  :",
            ":ω",
            "ω",
            "\"ω(",
            "#ω{",
            "sg(ωα",
            ")))",
            "{[(",
            "é:load x",
            "w^",
            "1..=",
            "\"\\",
            "f(\"a\", ",
            ":load \"",
            "@#$%^&*",
        ];
        for line in lines {
            for (pos, _) in line.char_indices().chain([(line.len(), ' ')]) {
                let _ = complete(&w, line, pos);
                let _ = highlight(&w, line, Some(pos));
            }
            let _ = needs_more(line);
        }
    }

    #[test]
    fn load_and_plot_complete_file_names() {
        let dir = std::env::temp_dir().join(format!("grundy-complete-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("nim.game"), "").unwrap();
        let history = rustyline::history::DefaultHistory::new();
        let ctx = Context::new(&history);
        let helper = Helper::new(words(), false);
        for cmd in [":load", ":l", ":plot t"] {
            let line = format!("{cmd} {}/ni", dir.display());
            let (_, found) = helper.complete(&line, line.len(), &ctx).unwrap();
            let names: Vec<&str> = found.iter().map(|p| p.replacement.as_str()).collect();
            assert!(
                names.iter().any(|n| n.ends_with("nim.game")),
                "{cmd}: {names:?}"
            );
        }
        let (_, found) = helper.complete("sg(He", 5, &ctx).unwrap();
        assert_eq!(found.len(), 2, "names, not files, outside :load");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn open_brackets_and_unfinished_statements_continue() {
        assert!(needs_more("game Heap(n) where n >= 0 {"));
        assert!(needs_more("print max(1,"));
        assert!(needs_more("game Heap(n) where n >= 0"));
        assert!(needs_more("print 1 +"));
        assert!(!needs_more("print 1 +\n"), "a blank line ends the entry");
        assert!(needs_more("f(\n"), "but not inside brackets");
        assert!(!needs_more("print 1"));
        assert!(
            !needs_more("print )"),
            "an error is reported, not continued"
        );
        assert!(!needs_more(":load x("));
        assert!(!needs_more("print \"(\""));
        assert!(!needs_more(
            "game Heap(n) where n >= 0 {\n move take(k in 1..=n) -> Heap(n - k)\n}"
        ));
    }

    #[test]
    fn highlighting_colours_tokens_and_keeps_the_text() {
        let w = words();
        let line = "print sg(Heap(3)) # c";
        let h = highlight(&w, line, None);
        assert!(h.contains(&format!("{KEYWORD}print{RESET}")));
        assert!(h.contains(&format!("{BUILTIN}sg{RESET}")));
        assert!(h.contains(&format!("{GAME}Heap{RESET}")));
        assert!(h.contains(&format!("{NUMBER}3{RESET}")));
        assert!(h.contains(&format!("{COMMENT}# c{RESET}")));
        let plain = h
            .replace(KEYWORD, "")
            .replace(BUILTIN, "")
            .replace(GAME, "");
        let plain = plain
            .replace(NUMBER, "")
            .replace(COMMENT, "")
            .replace(RESET, "");
        assert_eq!(plain, line);
        let c = highlight(&w, ":load x.game", None);
        assert_eq!(c, format!("{COMMAND}:load{RESET} x.game"));
    }

    #[test]
    fn the_bracket_under_the_cursor_and_its_partner_are_marked() {
        let w = words();
        let h = highlight(&w, "f(1)", Some(1));
        assert_eq!(
            h,
            format!("f{MATCH}({RESET}{NUMBER}1{RESET}{MATCH}){RESET}")
        );
        assert!(!highlight(&w, "f(1)", None).contains(MATCH));
    }
}
