//! Syntax errors: one per parse (pest stops at the first failure), with a
//! span and no source text. The caller attaches the source (a
//! `miette::NamedSource`) when rendering:
//!
//! ```ignore
//! let report = miette::Report::new(err).with_source_code(NamedSource::new(path, text));
//! ```
//!
//! What triggers each kind of message (each is a test in `parser.rs`):
//!
//! | input | message |
//! |---|---|
//! | `game Heap(n { }` | expected `,` or `)`, found `{` |
//! | `assert 1 +` | expected an expression, found end of input |
//! | `let 3 = 4` | expected a name, found `3` |
//! | `game in(n) {}` | expected a game name, found keyword `in` |
//! | `print 99999999999999999999` | integer literal too large for 64 bits |
//! | `print f(x for x in R, 1)` | a generator `... for ...` must be the only argument of a call |
//! | `print "abc` | unterminated string |
//! | `print "a\q"` | unknown escape `\q` in a string |

use super::span::Span;
use miette::SourceSpan;

/// A syntax error in one source text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(grundy::syntax))]
pub struct SyntaxError {
    /// The headline, e.g. "expected an expression, found `)`".
    pub message: String,
    /// Where, with the source id (for the caller to pick the source text).
    pub span: Span,
    /// The same place for miette.
    #[label(primary, "{label}")]
    pub at: SourceSpan,
    /// The text under the primary label, e.g. "unexpected `)`".
    pub label: String,
    #[help]
    pub help: Option<String>,
    /// A second place worth showing, e.g. an unclosed bracket.
    #[label("{}", note.as_deref().unwrap_or(""))]
    pub note_at: Option<SourceSpan>,
    pub note: Option<String>,
    /// True when the text ended too early: more input could make it valid
    /// (an open bracket, `assert 1 +`). The REPL uses this to ask for
    /// another line instead of reporting an error.
    pub incomplete: bool,
}

impl SyntaxError {
    pub fn new(message: impl Into<String>, span: Span, label: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            span,
            at: span.into(),
            label: label.into(),
            help: None,
            note_at: None,
            note: None,
            incomplete: false,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }

    /// Adds a secondary label.
    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> SyntaxError {
        self.note_at = Some(span.into());
        self.note = Some(note.into());
        self
    }

    pub fn incomplete(mut self, incomplete: bool) -> SyntaxError {
        self.incomplete = incomplete;
        self
    }
}

// ------------------------------------------------------ pest's failures

use super::parser::Rule;
use super::span::SourceId;
use pest::error::{ErrorVariant, InputLocation};

const KEYWORDS: [&str; 17] = [
    "game", "fn", "move", "where", "if", "then", "else", "for", "in", "not", "and", "or", "true",
    "false", "assert", "print", "let",
];

/// Readable names for what pest expected, ranked so that specific tokens
/// come first and "end of input" last.
fn describe(rule: Rule) -> Option<(u8, &'static str)> {
    use Rule::*;
    Some(match rule {
        comma => (0, "`,`"),
        lparen | params | move_bindings => (0, "`(`"),
        rparen => (0, "`)`"),
        lbracket | static_params => (0, "`[`"),
        rbracket => (0, "`]`"),
        lbrace | move_block => (0, "`{`"),
        rbrace => (0, "`}`"),
        assign | alias_body => (0, "`=`"),
        arrow => (0, "`->`"),
        kw_move | move_def => (0, "`move`"),
        kw_where | where_clause => (0, "`where`"),
        kw_if | guard | comp_if => (0, "`if`"),
        kw_then => (0, "`then`"),
        kw_else => (0, "`else`"),
        kw_for | comp_for | comp_clauses => (0, "`for`"),
        kw_in => (0, "`in`"),
        game_name => (1, "a game name"),
        fn_name => (1, "a function name"),
        let_name => (1, "a name"),
        param => (1, "a parameter name"),
        label => (1, "a move label"),
        bind_name | pattern | tuple_pattern | binding => (1, "a name to bind"),
        field_name => (1, "a field name"),
        item | expr | iter_expr | postfix | if_expr | paren | list | set | int | bool | string
        | omega_pow | name | not_op | neg_op => (2, "an expression"),
        or_op | and_op | cmp_op | range_op | bor_op | xor_op | band_op | shift_op | add_op
        | mul_op | call | index | field | call_open | index_open => (3, "an operator"),
        program | game_def | fn_def | let_stmt | assert_stmt | print_stmt | expr_stmt | kw_game
        | kw_fn | kw_let | kw_assert | kw_print => (4, "a statement"),
        EOI => (5, "end of input"),
        _ => return None,
    })
}

fn is_name_role(description: &str) -> bool {
    description.ends_with("name")
        || description == "a move label"
        || description == "a name to bind"
}

/// "a", "a or b", "a, b or c".
fn one_of(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == 'ω'
}

/// What stands at `pos`: a description and its length in bytes.
fn found_at(src: &str, pos: usize) -> (String, usize) {
    let rest = &src[pos.min(src.len())..];
    let Some(first) = rest.chars().next() else {
        return ("end of input".to_string(), 0);
    };
    if is_ident_char(first) {
        let len = rest
            .char_indices()
            .find(|&(_, c)| !is_ident_char(c))
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..len];
        return if KEYWORDS.contains(&word) {
            (format!("keyword `{word}`"), len)
        } else {
            (format!("`{word}`"), len)
        };
    }
    if first == '"' {
        let len = rest[1..].find(['"', '\n']).map_or(rest.len(), |i| i + 2);
        return ("a string".to_string(), len);
    }
    for op in ["..=", "..", "->", "==", "!=", "<=", ">=", "<<", ">>"] {
        if rest.starts_with(op) {
            return (format!("`{op}`"), op.len());
        }
    }
    (format!("`{first}`"), first.len_utf8())
}

/// Walks the source as the grammar's lexical rules do (strings, comments),
/// calling `f(byte_pos, char)` on every character outside them.
/// Returns the first bad string literal, as (start of the literal, error).
fn walk(
    src: &str,
    source: SourceId,
    mut f: impl FnMut(usize, char),
) -> Option<(usize, SyntaxError)> {
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '"' => loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((j, '\\')) => match chars.next() {
                        Some((_, 'n' | 't' | '\\' | '"')) => {}
                        Some((k, e)) if e != '\n' && e != '\r' => {
                            let span = Span::new(source, j, k + e.len_utf8());
                            let err = SyntaxError::new(
                                format!("unknown escape `\\{e}` in a string"),
                                span,
                                "unknown escape",
                            )
                            .with_help(r#"the escapes are `\n`, `\t`, `\\` and `\"`"#);
                            return Some((i, err));
                        }
                        _ => return Some((i, unterminated(src, source, i))),
                    },
                    Some((_, '\n' | '\r')) | None => {
                        return Some((i, unterminated(src, source, i)))
                    }
                    Some(_) => {}
                }
            },
            _ => f(i, c),
        }
    }
    None
}

fn unterminated(src: &str, source: SourceId, start: usize) -> SyntaxError {
    let end = src[start..]
        .find(['\n', '\r'])
        .map_or(src.len(), |i| start + i);
    SyntaxError::new(
        "unterminated string",
        Span::new(source, start, end),
        "this string is not closed",
    )
    .with_help(
        "close it with `\"` on the same line; a string cannot contain a line break (write `\\n`)",
    )
}

/// Turns pest's failure (the furthest position it reached, and the rules it
/// tried there) into a readable error.
pub(crate) fn from_pest(src: &str, source: SourceId, e: pest::error::Error<Rule>) -> SyntaxError {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
    .min(src.len());

    // Unclosed brackets before the failure, innermost last.
    let mut open: Vec<(usize, char)> = Vec::new();
    let bad_string = walk(src, source, |i, c| {
        if i >= pos {
            return;
        }
        match c {
            '(' | '[' | '{' => open.push((i, c)),
            ')' | ']' | '}' => {
                let opener = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.last().is_some_and(|&(_, o)| o == opener) {
                    open.pop();
                }
            }
            _ => {}
        }
    });
    if let Some((start, err)) = bad_string {
        if start <= pos {
            return err;
        }
    }

    let positives = match e.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { message } => {
            return SyntaxError::new(
                format!("cannot parse this input: {message}"),
                Span::new(source, pos, pos),
                "here",
            )
            .with_help("the input is probably nested too deeply");
        }
    };
    let mut described: Vec<(u8, &str)> = positives.into_iter().filter_map(describe).collect();
    described.sort();
    described.dedup();
    if described.iter().any(|&(_, d)| d == "a statement") {
        described.retain(|&(_, d)| d != "an expression");
    }
    let expected: Vec<&str> = described.iter().map(|&(_, d)| d).collect();

    let (found, len) = found_at(src, pos);
    let at_end = src[pos..].trim().is_empty();
    let span = Span::new(source, pos, pos + len);
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", one_of(&expected))
    };
    let label = if expected.is_empty() {
        "unexpected".to_string()
    } else {
        format!("expected {}", one_of(&expected))
    };
    let mut err = SyntaxError::new(message, span, label).incomplete(at_end);

    let closer_of = |c: char| match c {
        '(' => ')',
        '[' => ']',
        _ => '}',
    };
    if let Some(&(at, c)) = open.last() {
        let closer = format!("`{}`", closer_of(c));
        if at_end || expected.contains(&closer.as_str()) {
            err = err
                .with_note(
                    Span::new(source, at, at + 1),
                    format!("this `{c}` is not closed"),
                )
                .with_help(format!("close the `{c}` with {closer}"));
        }
    }

    let word = found.strip_prefix("keyword ");
    if let Some(word) = word.filter(|_| expected.iter().any(|d| is_name_role(d))) {
        err = err.with_help(format!(
            "{word} is a keyword, so it cannot be used as a name"
        ));
    } else if found == "`=`" && expected.contains(&"an operator") {
        err = err.with_help("to compare, write `==`");
    } else if expected.iter().any(|d| is_name_role(d))
        && src[pos..].starts_with(|c: char| c.is_ascii_digit())
    {
        err = err.with_help("a name must start with a letter or `_`");
    } else if err.help.is_none() {
        err.help = generic_help(&expected);
    }
    err
}

fn generic_help(expected: &[&str]) -> Option<String> {
    let has = |d: &str| expected.contains(&d);
    let help = if has("`->`") {
        "a move is written `move label(x in S) if guard -> result`"
    } else if has("`where`") || (has("`{`") && has("`=`")) {
        "a game is written `game Name(params) where cond { moves }` or `game Name(params) = expr`"
    } else if has("`then`") || has("`else`") {
        "a conditional is written `if c then a else b`"
    } else if has("`in`") {
        "a binding is written `x in S` or `(a, b) in pairs`"
    } else if has("a statement") {
        "a statement is `game`, `fn`, `let`, `assert`, `print`, or an expression"
    } else if has("an expression") {
        "an expression is a number, a name, a call like `Heap(3)`, a list `[...]`, a set `{...}` or a tuple `(...)`"
    } else {
        return None;
    };
    Some(help.to_string())
}
