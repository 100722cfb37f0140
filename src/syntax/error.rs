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
//! | `print [1, x for x in R]` | a comprehension must be alone in its `[...]` |
//! | `print x for x in R` | a generator `... for ...` may only stand alone as the argument of a call |
//! | `print a..b..=c` | a range cannot be followed by `..=` |
//! | `print a == not b` | expected an expression, found keyword `not` |
//! | `print H(2.5)` | `2.5` is not a number here: numbers are integers |
//! | 101 nested brackets | expression nested too deeply |

use super::span::Span;
use miette::{LabeledSpan, SourceSpan};

/// A syntax error in one source text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(grundy::syntax))]
pub struct SyntaxError {
    /// The headline, e.g. "expected an expression, found `)`".
    pub message: String,
    /// Where, with the source id (for the caller to pick the source text);
    /// also miette's primary label (`Span` converts to `SourceSpan`).
    #[label(primary, "{label}")]
    pub span: Span,
    /// The text under the primary label, e.g. "expected an expression".
    pub label: String,
    #[help]
    pub help: Option<String>,
    /// Secondary labels in the same source, e.g. "this `(` is not closed".
    #[label(collection)]
    pub notes: Vec<LabeledSpan>,
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
            label: label.into(),
            help: None,
            notes: Vec::new(),
            incomplete: false,
        }
    }

    /// The primary span as miette's `SourceSpan`.
    pub fn source_span(&self) -> SourceSpan {
        self.span.into()
    }

    pub fn with_help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }

    /// Adds a secondary label.
    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> SyntaxError {
        self.notes
            .push(LabeledSpan::new_with_span(Some(note.into()), span));
        self
    }

    /// The same error in a text that starts `offset` bytes further on.
    pub fn shifted(mut self, offset: usize) -> SyntaxError {
        let o = offset as u32;
        self.span.start += o;
        self.span.end += o;
        self.notes = self
            .notes
            .into_iter()
            .map(|n| {
                let span = SourceSpan::from((n.offset() + offset, n.len()));
                LabeledSpan::new_with_span(n.label().map(String::from), span)
            })
            .collect();
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
        rparen => (1, "`)`"),
        rbracket => (2, "`]`"),
        rbrace => (3, "`}`"),
        lparen | params | move_bindings => (4, "`(`"),
        lbracket | static_params => (5, "`[`"),
        lbrace | move_block => (6, "`{`"),
        assign | alias_body => (7, "`=`"),
        arrow => (8, "`->`"),
        kw_move | move_def => (9, "`move`"),
        kw_where | where_clause => (9, "`where`"),
        kw_if | guard | comp_if => (9, "`if`"),
        kw_then => (9, "`then`"),
        kw_else => (9, "`else`"),
        kw_for | comp_for | comp_clauses => (9, "`for`"),
        kw_in => (9, "`in`"),
        game_name => (10, "a game name"),
        fn_name => (10, "a function name"),
        let_name => (10, "a name"),
        param => (10, "a parameter name"),
        label => (10, "a move label"),
        bind_name | pattern | tuple_pattern | binding | let_bind => (10, "a name to bind"),
        field_name => (10, "a field name"),
        item | expr | iter_expr | postfix | if_expr | paren | list | set | int | bool | string
        | omega_pow | name | not_op | neg_op | let_expr | slice_from_start | slice_bound => {
            (11, "an expression")
        }
        or_op | and_op | cmp_op | range_op | bor_op | xor_op | band_op | shift_op | add_op
        | mul_op | call | index | field | call_open | index_open | slice_to_end => {
            (12, "an operator")
        }
        program | game_def | fn_def | let_stmt | assert_stmt | print_stmt | expr_stmt | kw_game
        | kw_fn | kw_let | kw_assert | kw_print => (13, "a statement"),
        EOI => (14, "end of input"),
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

    // The innermost bracket open at the failure, if the whole text never
    // closes it (a mismatched closer closes nothing).
    let mut open: Vec<(usize, char)> = Vec::new();
    let mut innermost_at_pos = None;
    let bad_string = walk(src, source, |i, c| {
        if i >= pos && innermost_at_pos.is_none() {
            innermost_at_pos = Some(open.last().copied());
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
    let innermost = innermost_at_pos.unwrap_or_else(|| open.last().copied());
    let unclosed = innermost.filter(|o| open.contains(o));

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
    // An expression is a statement; `for` after a complete expression is
    // only right inside brackets or a call, and the operators say enough.
    if described.iter().any(|&(_, d)| d == "a statement") {
        described.retain(|&(_, d)| d != "an expression");
    }
    // After `let` at the start of a statement: the name of a constant (a
    // `let ... in` expression there is written in parentheses).
    if described.iter().any(|&(_, d)| d == "a name") {
        described.retain(|&(_, d)| d != "a name to bind");
    }
    if described.iter().any(|&(_, d)| d == "an operator") {
        described.retain(|&(_, d)| d != "`for`");
    }
    let expected: Vec<&str> = described.iter().map(|&(_, d)| d).collect();

    if expected.contains(&"a field name") {
        if let Some(err) = decimal_fraction(src, source, pos) {
            return err;
        }
    }
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

    let unclosed = unclosed.map(|(at, c)| {
        let closer = match c {
            '(' => "`)`",
            '[' => "`]`",
            _ => "`}`",
        };
        (at, c, closer)
    });
    if let Some((at, c, _)) = unclosed {
        err = err.with_note(
            Span::new(source, at, at + 1),
            format!("this `{c}` is not closed"),
        );
    }
    let bracket_help = unclosed.map(|(_, c, closer)| format!("close the `{c}` with {closer}"));
    err.help = specific_help(src, pos, &found, &expected)
        .or(bracket_help)
        .or_else(|| general_help(&expected));
    err
}

/// `2.5` read as the field `5` of the integer `2`: the language has no
/// fractions, so say that, over the whole literal.
fn decimal_fraction(src: &str, source: SourceId, pos: usize) -> Option<SyntaxError> {
    let before = src[..pos].strip_suffix('.')?;
    let int_start = before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let starts_number = int_start < before.len()
        && !before[..int_start].ends_with(is_ident_char)
        && src[pos..].starts_with(|c: char| c.is_ascii_digit());
    if !starts_number {
        return None;
    }
    let frac_len = src[pos..]
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(src.len() - pos);
    let literal = &src[int_start..pos + frac_len];
    Some(
        SyntaxError::new(
            format!("`{literal}` is not a number: numbers are integers"),
            Span::new(source, int_start, pos + frac_len),
            "a decimal fraction",
        )
        .with_help(
            "grundy computes with 64-bit integers (and ordinals such as ω + 1), never fractions: \
             scale the quantity to integers, or use `/` (floor division) and `%`",
        ),
    )
}

/// Help for a mistake recognisable from what was found and expected.
fn specific_help(src: &str, pos: usize, found: &str, expected: &[&str]) -> Option<String> {
    let has = |d: &str| expected.contains(&d);
    let wants_name = expected.iter().any(|d| is_name_role(d));
    let help = match found.strip_prefix("keyword ") {
        Some(word) if wants_name => {
            return Some(format!("{word} is a keyword, so it cannot be used as a name"))
        }
        Some("`not`") if has("an expression") => {
            "`not` binds more loosely than comparisons and arithmetic: put it in parentheses, as in `a == (not b)`"
        }
        _ if found == "`=`" && has("an operator") => "to compare, write `==`",
        _ if wants_name && src[pos..].starts_with(|c: char| c.is_ascii_digit()) => {
            "a name must start with a letter or `_`"
        }
        _ if has("`->`") => "a move is written `move label(x in S) if guard -> result`",
        _ if has("`where`") || has("a game name") => {
            "a game is written `game Name(params) where cond { moves }` or `game Name(params) = expr`"
        }
        _ if has("a function name") => "a function is written `fn name(params) = expr`",
        _ if has("a name") => "a constant is written `let name = expr`",
        _ if has("`[`") && has("`(`") => {
            "parameters follow the name in parentheses, `Name(a, b)`, after optional static ones: `Name[F](a, b)`"
        }
        _ if has("`then`") || has("`else`") => "a conditional is written `if c then a else b`",
        _ if has("`in`") && in_let_value(src, pos) => {
            "the value of `let x = e in body` stops before comparisons, `and`, `or` and `if`: \
             parenthesise it, as in `let ok = (a < b) in ...`"
        }
        _ if has("`in`") => "a binding is written `x in S` or `(a, b) in pairs`",
        _ => return None,
    };
    Some(help.to_string())
}

/// Whether `pos` is in the value of a `let ... in`: the last `let`, `for`
/// or `move` before it is a `let` not at the start of a line (where it
/// would be a statement, which takes any value).
fn in_let_value(src: &str, pos: usize) -> bool {
    let before = &src[..pos];
    let last = |word: &str| {
        before.rmatch_indices(word).map(|(i, _)| i).find(|&i| {
            let after = before[i + word.len()..].chars().next();
            !before[..i].ends_with(is_ident_char) && !after.is_some_and(is_ident_char)
        })
    };
    let Some(at) = last("let") else {
        return false;
    };
    let statement = before[..at]
        .trim_end_matches([' ', '\t'])
        .ends_with(['\n', '\r'])
        || before[..at].trim().is_empty();
    !statement
        && [last("for"), last("move")]
            .iter()
            .all(|w| w.is_none_or(|w| w < at))
}

fn general_help(expected: &[&str]) -> Option<String> {
    let has = |d: &str| expected.contains(&d);
    let help = if has("a statement") {
        "a statement is `game`, `fn`, `let`, `assert`, `print`, or an expression"
    } else if has("an expression") {
        "an expression is a number, a name, a call like `Heap(3)`, a list `[...]`, a set `{...}` or a tuple `(...)`"
    } else if has("`=`") {
        "definitions are written `fn name(params) = expr` and `let name = expr`"
    } else {
        return None;
    };
    Some(help.to_string())
}
