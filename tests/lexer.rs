//! The REPL's logos lexer must agree with the pest grammar: on every example
//! file (and every parsable `game` block of the reference), the identifier,
//! keyword, number and string spans of both are the same.

use std::path::{Path, PathBuf};

use grundy::syntax::lexer::{tokens, Class};
use grundy::syntax::parser::{GrammarParser, Rule};
use pest::Parser;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Name,
    Keyword,
    Number,
    String,
}

/// Spans of names, keywords, numbers and strings as pest sees them.
fn pest_spans(text: &str) -> Option<Vec<(Kind, usize, usize)>> {
    let pairs = GrammarParser::parse(Rule::program, text).ok()?;
    let mut out = Vec::new();
    for p in pairs.flatten() {
        let (start, end) = (p.as_span().start(), p.as_span().end());
        let kind = match p.as_rule() {
            Rule::name
            | Rule::game_name
            | Rule::fn_name
            | Rule::let_name
            | Rule::param
            | Rule::label
            | Rule::bind_name
            | Rule::field_name => Kind::Name,
            Rule::int | Rule::omega_pow => Kind::Number,
            Rule::string => Kind::String,
            Rule::bool | Rule::or_op | Rule::and_op | Rule::not_op => Kind::Keyword,
            Rule::kw_game
            | Rule::kw_fn
            | Rule::kw_move
            | Rule::kw_where
            | Rule::kw_if
            | Rule::kw_then
            | Rule::kw_else
            | Rule::kw_for
            | Rule::kw_in
            | Rule::kw_let
            | Rule::kw_assert
            | Rule::kw_print => Kind::Keyword,
            // `in` and `not in` are comparison operators made of keywords.
            Rule::cmp_op if p.as_str() == "in" => Kind::Keyword,
            Rule::cmp_op if p.as_str().starts_with("not") => {
                out.push((Kind::Keyword, start, start + 3));
                out.push((Kind::Keyword, end - 2, end));
                continue;
            }
            _ => continue,
        };
        out.push((kind, start, end));
    }
    out.sort();
    Some(out)
}

fn logos_spans(text: &str) -> Vec<(Kind, usize, usize)> {
    let mut out: Vec<_> = tokens(text)
        .into_iter()
        .filter_map(|(t, r)| {
            let kind = match t.class() {
                Class::Name => Kind::Name,
                Class::Keyword => Kind::Keyword,
                Class::Number => Kind::Number,
                Class::String => Kind::String,
                _ => return None,
            };
            Some((kind, r.start, r.end))
        })
        .collect();
    out.sort();
    out
}

fn game_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            game_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "game") {
            out.push(p);
        }
    }
}

/// The `game` code blocks of a Markdown file.
fn game_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.starts_with("```game") => current = Some(String::new()),
            Some(_) if line.starts_with("```") => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn check(name: &str, text: &str) -> bool {
    let Some(expected) = pest_spans(text) else {
        return false; // a syntax-error example: nothing to compare
    };
    let got = logos_spans(text);
    if got != expected {
        let first = got
            .iter()
            .zip(&expected)
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("logos {a:?} vs pest {b:?}: {:?}", &text[b.1..b.2]));
        panic!(
            "{name}: logos and pest disagree ({} vs {} tokens); first difference: {}",
            got.len(),
            expected.len(),
            first.unwrap_or_else(|| "in length".to_string())
        );
    }
    true
}

#[test]
fn logos_agrees_with_pest_on_every_example_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    game_files(&root.join("examples"), &mut files);
    files.push(root.join("src/prelude/families.game"));
    let mut compared = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable example");
        compared += usize::from(check(&f.display().to_string(), &text));
    }
    assert!(compared >= 5, "only {compared} example files parsed");
}

#[test]
fn logos_agrees_with_pest_on_the_reference_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/language.md")).expect("docs");
    let blocks = game_blocks(&doc);
    let compared = blocks
        .iter()
        .enumerate()
        .filter(|(i, b)| check(&format!("docs/language.md block {i}"), b))
        .count();
    assert!(compared >= 20, "only {compared} reference blocks parsed");
}

#[test]
fn a_mismatch_is_detected() {
    // The check itself must be able to fail: pest's `w^2` is one number.
    let text = "print w^2";
    let pest = pest_spans(text).expect("parses");
    assert!(pest.contains(&(Kind::Number, 6, 9)));
    assert_eq!(logos_spans(text), pest);
    assert_ne!(logos_spans("print w ^ 2"), pest);
}
