//! `:games`: the session's games with their parameters, `where`
//! conditions, number of move rules and where they were defined.

use crate::eval::compile::CompiledBody;
use crate::ir::names::Item;
use crate::session::Session;
use crate::syntax::ast::StmtKind;
use crate::syntax::Span;

/// One game as `:games` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameInfo {
    pub name: String,
    /// `Heap(n)`, `Sub[S](n)`.
    pub signature: String,
    /// The `where` condition's text, if any.
    pub where_text: Option<String>,
    /// How many `move` rules; `None` for an alias (`game A(n) = ...`).
    pub moves: Option<usize>,
    /// `file.game:3` or `<repl 2>:1`.
    pub origin: String,
    /// Defined by the built-in prelude (`subtraction_game`, `octal_game`).
    pub builtin: bool,
}

/// Every game the session can name, in definition order.
pub fn games(session: &Session) -> Vec<GameInfo> {
    let rt = session.runtime();
    session
        .names()
        .items
        .values()
        .filter_map(|item| match item {
            Item::Game { id, .. } => rt.games.get(*id as usize)?.as_ref(),
            _ => None,
        })
        .map(|g| {
            let (file, _) = session.sources.get(g.span.source);
            let statics = static_params(session, g.span);
            let mut signature = g.name.to_string();
            if !statics.is_empty() {
                signature.push_str(&format!("[{}]", statics.join(", ")));
            }
            let params: Vec<&str> = g.param_names.iter().map(|p| &**p).collect();
            signature.push_str(&format!("({})", params.join(", ")));
            GameInfo {
                name: g.name.to_string(),
                signature,
                where_text: g.where_span.map(|s| one_line(session.sources.snippet(s))),
                moves: match &g.body {
                    CompiledBody::Moves(m) => Some(m.len()),
                    CompiledBody::Alias(_) => None,
                },
                origin: format!("{file}:{}", line_of(session, g.span)),
                builtin: file == "<prelude>",
            }
        })
        .collect()
}

/// The static parameter names of the game defined at `span`, read back
/// from its text.
fn static_params(session: &Session, span: Span) -> Vec<String> {
    let text = session.sources.snippet(span);
    match crate::syntax::parse(text, Default::default()) {
        Ok(p) => match p.stmts.first().map(|s| &s.kind) {
            Some(StmtKind::Game(g)) => g.static_params.iter().map(|i| i.name.clone()).collect(),
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    }
}

fn line_of(session: &Session, span: Span) -> usize {
    let (_, text) = session.sources.get(span.source);
    let end = (span.start as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Text with runs of white space (newlines too) made one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The listing: one game per line, columns aligned; built-in families last.
pub fn render(games: &[GameInfo]) -> String {
    let user: Vec<&GameInfo> = games.iter().filter(|g| !g.builtin).collect();
    let mut lines = Vec::new();
    if user.is_empty() {
        lines.push(
            "no games yet: define one with `game Name(params) { move ... }` or `:load FILE`"
                .to_string(),
        );
    } else {
        let heads: Vec<String> = user
            .iter()
            .map(|g| match &g.where_text {
                Some(w) => format!("{} where {w}", g.signature),
                None => g.signature.clone(),
            })
            .collect();
        let rules: Vec<String> = user
            .iter()
            .map(|g| match g.moves {
                Some(1) => "1 move rule".to_string(),
                Some(n) => format!("{n} move rules"),
                None => "alias".to_string(),
            })
            .collect();
        let w0 = heads.iter().map(|h| h.chars().count()).max().unwrap_or(0);
        let w1 = rules.iter().map(|r| r.len()).max().unwrap_or(0);
        for ((g, head), rule) in user.iter().zip(&heads).zip(&rules) {
            lines.push(format!("{head:<w0$}  {rule:<w1$}  {}", g.origin));
        }
    }
    lines.push("built-in families: subtraction(S), octal(code)  (:help subtraction)".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    #[test]
    fn lists_parameters_where_and_origin() {
        let mut s = Session::new(Limits::default());
        let text = "# two games\ngame Heap(n) where n >= 0 and\n  n < 100 { move take(k in 1..=n) -> Heap(n - k) }\n\
                    game Sub[S, T](n) { }\ngame Twin(n) = Heap(n) + Heap(n)\n";
        assert!(s.run("g.game", text, &mut std::io::sink()).ok());
        let gs: Vec<GameInfo> = games(&s).into_iter().filter(|g| !g.builtin).collect();
        assert_eq!(gs.len(), 3);
        assert_eq!(gs[0].signature, "Heap(n)");
        assert_eq!(gs[0].where_text.as_deref(), Some("n >= 0 and n < 100"));
        assert_eq!(gs[0].moves, Some(1));
        assert_eq!(gs[0].origin, "g.game:2");
        assert_eq!(gs[1].signature, "Sub[S, T](n)");
        assert_eq!(gs[1].moves, Some(0));
        assert_eq!(gs[2].moves, None);
        let text = render(&games(&s));
        assert!(
            text.contains("Heap(n) where n >= 0 and n < 100  1 move rule   g.game:2"),
            "{text}"
        );
        assert!(text.contains("Twin(n)"));
        assert!(!text.contains("octal_game"));
        assert!(text.ends_with("(:help subtraction)"));
    }

    #[test]
    fn says_when_there_are_none() {
        let s = Session::new(Limits::default());
        assert!(render(&games(&s)).starts_with("no games yet"));
    }
}
