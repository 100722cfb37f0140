//! Tokens of the rules language for the REPL's live jobs: syntax
//! highlighting, bracket depth (multi-line entries) and the word under the
//! cursor (completion). The parser does not use it: pest reads text, not
//! tokens (`tests/lexer.rs` checks that the two agree on every example
//! file: identifier, keyword and number spans).
//!
//! The lexer never fails: text it does not know becomes [`Token::Unknown`],
//! an unterminated string [`Token::OpenString`].

use logos::Logos;
use std::ops::Range;

/// One token. Keywords follow the grammar's list; `not in` is two tokens.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\u{FEFF}]+")]
pub enum Token {
    #[token("game")]
    Game,
    #[token("fn")]
    Fn,
    #[token("move")]
    Move,
    #[token("where")]
    Where,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("not")]
    Not,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("assert")]
    Assert,
    #[token("print")]
    Print,
    #[token("let")]
    Let,

    /// A name: a letter, `_` or `ω`, then letters, digits, `_` or `ω`.
    #[regex(r"[A-Za-z_ω][A-Za-z0-9_ω]*")]
    Ident,
    #[regex(r"[0-9]+")]
    Int,
    /// `ω^2` or `w^2` written without spaces: an ordinal literal.
    #[regex(r"[ωw]\^[0-9]+")]
    OmegaPow,
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*""#)]
    Str,
    /// A string that the line ends before closing.
    #[regex(r#""([^"\\\r\n]|\\[^\r\n])*"#)]
    OpenString,
    #[regex(r"#[^\r\n]*", allow_greedy = true)]
    Comment,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("..=")]
    DotDotEq,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("==")]
    Eq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("|")]
    Bar,

    /// Anything else (one character).
    Unknown,
}

/// What a token is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Keyword,
    Name,
    Number,
    String,
    Comment,
    Bracket,
    Operator,
    Unknown,
}

impl Token {
    pub fn class(self) -> Class {
        use Token::*;
        match self {
            Game | Fn | Move | Where | If | Then | Else | For | In | Not | And | Or | True
            | False | Assert | Print | Let => Class::Keyword,
            Ident => Class::Name,
            Int | OmegaPow => Class::Number,
            Str | OpenString => Class::String,
            Comment => Class::Comment,
            LParen | RParen | LBracket | RBracket | LBrace | RBrace => Class::Bracket,
            Unknown => Class::Unknown,
            _ => Class::Operator,
        }
    }

    /// +1 for an opening bracket, -1 for a closing one, else 0.
    pub fn depth_change(self) -> i32 {
        match self {
            Token::LParen | Token::LBracket | Token::LBrace => 1,
            Token::RParen | Token::RBracket | Token::RBrace => -1,
            _ => 0,
        }
    }
}

/// The keywords, as the grammar lists them.
pub const KEYWORDS: &[&str] = &[
    "game", "fn", "move", "where", "if", "then", "else", "for", "in", "not", "and", "or", "true",
    "false", "assert", "print", "let",
];

/// Every token of `text` with its byte range.
pub fn tokens(text: &str) -> Vec<(Token, Range<usize>)> {
    let mut lexer = Token::lexer(text);
    let mut out = Vec::new();
    while let Some(t) = lexer.next() {
        out.push((t.unwrap_or(Token::Unknown), lexer.span()));
    }
    out
}

/// How many brackets of `text` are open at its end (negative when more
/// close than open). Brackets inside strings and comments do not count.
pub fn open_depth(text: &str) -> i32 {
    tokens(text).iter().map(|(t, _)| t.depth_change()).sum()
}

/// The position of the bracket that matches the one at byte `pos` (or just
/// before it), if there is one.
pub fn matching_bracket(text: &str, pos: usize) -> Option<(usize, usize)> {
    let toks = tokens(text);
    let at = toks
        .iter()
        .position(|(t, r)| t.depth_change() != 0 && r.start == pos)
        .or_else(|| {
            toks.iter()
                .position(|(t, r)| t.depth_change() != 0 && r.end == pos)
        })?;
    let step = toks[at].0.depth_change();
    let mut depth = 0;
    let mut i = at as isize;
    while i >= 0 && (i as usize) < toks.len() {
        depth += toks[i as usize].0.depth_change();
        if depth == 0 {
            return Some((toks[at].1.start, toks[i as usize].1.start));
        }
        i += step as isize;
    }
    None
}

/// The identifier that ends at byte `pos`, as (start, text); for
/// completion. Empty text when `pos` follows no identifier character.
pub fn word_before(text: &str, pos: usize) -> (usize, &str) {
    let head = text.get(..pos).unwrap_or(text);
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == 'ω')
        .last()
        .map_or(head.len(), |(i, _)| i);
    (start, &head[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Token> {
        tokens(text).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn keywords_need_a_word_boundary() {
        use Token::*;
        assert_eq!(kinds("game gamey in inner"), [Game, Ident, In, Ident]);
        assert_eq!(kinds("not in"), [Not, In]);
    }

    #[test]
    fn numbers_strings_comments_and_omega() {
        use Token::*;
        assert_eq!(
            kinds(r#"x = 12 "a\"b" # done"#),
            [Ident, Assign, Int, Str, Comment]
        );
        assert_eq!(kinds("w^2 w ^ 2 ωx"), [OmegaPow, Ident, Caret, Int, Ident]);
        assert_eq!(kinds(r#"print "open"#), [Print, OpenString]);
    }

    #[test]
    fn operators_take_the_longest_match() {
        use Token::*;
        assert_eq!(kinds("0..=3 a..b -> << <= ="), {
            [
                Int, DotDotEq, Int, Ident, DotDot, Ident, Arrow, Shl, Le, Assign,
            ]
        });
        assert_eq!(kinds("m.sg"), [Ident, Dot, Ident]);
        assert_eq!(kinds("@"), [Unknown]);
    }

    #[test]
    fn slices_lets_and_decimals() {
        use Token::*;
        assert_eq!(
            kinds("xs[1..] xs[..=k]"),
            [Ident, LBracket, Int, DotDot, RBracket, Ident, LBracket, DotDotEq, Ident, RBracket]
        );
        assert_eq!(
            kinds("let a = 1, b = 2 in a"),
            [Let, Ident, Assign, Int, Comma, Ident, Assign, Int, In, Ident]
        );
        // `2.5` is not one number (the parser names it a fraction).
        assert_eq!(kinds("2.5"), [Int, Dot, Int]);
    }

    #[test]
    fn depth_ignores_brackets_in_strings_and_comments() {
        assert_eq!(open_depth("game G(n) {"), 1);
        assert_eq!(open_depth("print \"(\" # ("), 0);
        assert_eq!(open_depth("f(g(1)"), 1);
        assert_eq!(open_depth(")"), -1);
    }

    #[test]
    fn finds_matching_brackets_both_ways() {
        let text = "f([1, 2], (3))";
        assert_eq!(matching_bracket(text, 1), Some((1, 13)));
        assert_eq!(matching_bracket(text, 13), Some((13, 1)));
        assert_eq!(matching_bracket(text, 2), Some((2, 7)));
        assert_eq!(matching_bracket(text, 14), Some((13, 1)));
        assert_eq!(matching_bracket("f(1", 1), None);
        assert_eq!(matching_bracket("abc", 1), None);
    }

    #[test]
    fn word_before_the_cursor() {
        assert_eq!(word_before("sg(He", 5), (3, "He"));
        assert_eq!(word_before("sg(", 3), (3, ""));
        assert_eq!(word_before("ωa", "ωa".len()), (0, "ωa"));
        assert_eq!(word_before("abc", 99), (0, "abc"));
    }
}
