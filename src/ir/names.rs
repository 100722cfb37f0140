//! The session's table of top-level names: functions, games and globals,
//! with their arities, so that lowering can resolve and check every use.

use std::rc::Rc;

use indexmap::IndexMap;

use super::ir::{FnId, GameId, GlobalId};
use crate::syntax::Span;

#[derive(Clone, Debug)]
pub enum Item {
    Fn {
        id: FnId,
        n_statics: usize,
        n_params: usize,
        span: Span,
    },
    Game {
        id: GameId,
        n_statics: usize,
        n_params: usize,
        span: Span,
    },
    Global {
        id: GlobalId,
        span: Span,
    },
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Fn { span, .. } | Item::Game { span, .. } | Item::Global { span, .. } => *span,
        }
    }

    pub fn what(&self) -> &'static str {
        match self {
            Item::Fn { .. } => "function",
            Item::Game { .. } => "game",
            Item::Global { .. } => "constant",
        }
    }
}

/// Top-level names and the next free ids. Ids are never reused, so a
/// redefinition in the REPL gets fresh ids and old compiled code stays valid.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub items: IndexMap<Rc<str>, Item>,
    pub fn_count: u32,
    pub game_count: u32,
    pub global_count: u32,
}

impl Names {
    pub fn get(&self, name: &str) -> Option<&Item> {
        self.items.get(name)
    }

    /// The ids of the games with a name now.
    pub fn iter_games(&self) -> impl Iterator<Item = GameId> + '_ {
        self.items.values().filter_map(|item| match item {
            Item::Game { id, .. } => Some(*id),
            _ => None,
        })
    }
}

/// The closest of `candidates` to `name`, if it is close enough to be a
/// plausible typo.
pub fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// Edit distance in which swapping two neighbours counts as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["Heap", "Welter", "EmptyDivide"];
        assert_eq!(suggest("Haep", names.iter().copied()), Some("Heap"));
        assert_eq!(suggest("Welterr", names.iter().copied()), Some("Welter"));
        assert_eq!(suggest("Chocolate", names.iter().copied()), None);
    }
}
