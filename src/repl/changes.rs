//! What `:reload` reports: which definitions of a file were added,
//! changed or removed since it was last read. Two definitions are the same
//! when their tokens are (white space and comments do not count).

use std::fmt;

use indexmap::IndexMap;

use crate::syntax::ast::StmtKind;
use crate::syntax::lexer::{tokens, Class};

/// A file's definitions: name -> its tokens.
pub type Definitions = IndexMap<String, Vec<String>>;

/// The `game`, `fn` and `let` definitions of a text (none if it does not
/// parse).
pub fn definitions(text: &str) -> Definitions {
    let Ok(program) = crate::syntax::parse(text, Default::default()) else {
        return Definitions::new();
    };
    program
        .stmts
        .iter()
        .filter_map(|stmt| {
            let name = match &stmt.kind {
                StmtKind::Game(g) => &g.name.name,
                StmtKind::Fn(f) => &f.name.name,
                StmtKind::Let { name, .. } => &name.name,
                _ => return None,
            };
            let body = text.get(stmt.span.start as usize..stmt.span.end as usize)?;
            let toks = tokens(body)
                .into_iter()
                .filter(|(t, _)| t.class() != Class::Comment)
                .map(|(_, r)| body[r].to_string())
                .collect();
            Some((name.clone(), toks))
        })
        .collect()
}

/// The difference between two versions of a file's definitions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

impl Changes {
    pub fn between(old: &Definitions, new: &Definitions) -> Changes {
        let mut c = Changes::default();
        for (name, toks) in new {
            match old.get(name) {
                None => c.added.push(name.clone()),
                Some(t) if t != toks => c.changed.push(name.clone()),
                Some(_) => {}
            }
        }
        c.removed = old
            .keys()
            .filter(|n| !new.contains_key(*n))
            .cloned()
            .collect();
        c
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

impl fmt::Display for Changes {
    /// `changed Heap; added Kayles, Dawson; removed Old` or `no changes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "no changes");
        }
        let parts: Vec<String> = [
            ("changed", &self.changed),
            ("added", &self.added),
            ("removed", &self.removed),
        ]
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(what, names)| format!("{what} {}", names.join(", ")))
        .collect();
        write!(f, "{}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_comments_are_not_changes() {
        let old = definitions("game H(n) { move t(k in 1..=n) -> H(n - k) }\nfn f(x) = x + 1\n");
        let new = definitions(
            "# nim\ngame H(n) {\n  move t(k in 1..=n) -> H(n - k)  # take\n}\nfn f(x) = x + 1\n",
        );
        assert_eq!(Changes::between(&old, &new).to_string(), "no changes");
    }

    #[test]
    fn reports_added_changed_and_removed() {
        let old = definitions("game H(n) { }\nfn f(x) = x + 1\nlet N = 3\n");
        let new = definitions("game H(n) where n >= 0 { }\nlet N = 3\nfn g(x) = x\nlet M = 1\n");
        let c = Changes::between(&old, &new);
        assert_eq!(c.changed, ["H"]);
        assert_eq!(c.added, ["g", "M"]);
        assert_eq!(c.removed, ["f"]);
        assert_eq!(c.to_string(), "changed H; added g, M; removed f");
    }

    #[test]
    fn an_unparsable_text_has_no_definitions() {
        assert!(definitions("game (").is_empty());
    }
}
