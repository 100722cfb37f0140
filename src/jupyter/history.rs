//! The cells a kernel has run, for `history_request` (messaging spec 5.3,
//! "History"): the last `n` (`tail`), a range of execution counts
//! (`range`), or those matching a glob pattern (`search`, optionally
//! `unique`, the last `n`). A cell's line number is its execution count;
//! its output is the text of its result (empty when it had none). The
//! history lives as long as the kernel: it is session 1, the only one.

use jupyter_protocol::{HistoryEntry, HistoryRequest};
use serde_json::Value;

/// The number of the kernel's own (and only) session.
pub const SESSION: usize = 1;

/// A request field left out means "no limit"; see [`fill_defaults`].
const UNLIMITED: i32 = i32::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Cell {
    line: usize,
    input: String,
    output: String,
}

#[derive(Default)]
pub struct History {
    cells: Vec<Cell>,
}

impl History {
    /// Records a cell run with `store_history`.
    pub fn add(&mut self, line: usize, input: &str, output: Option<String>) {
        self.cells.push(Cell {
            line,
            input: input.to_string(),
            output: output.unwrap_or_default(),
        });
    }

    pub fn answer(&self, req: &HistoryRequest) -> Vec<HistoryEntry> {
        let (cells, output): (Vec<&Cell>, bool) = match req {
            HistoryRequest::Tail { n, output, .. } => {
                (last(self.cells.iter().collect(), *n), *output)
            }
            HistoryRequest::Range {
                session,
                start,
                stop,
                output,
                ..
            } => {
                // 0 (or none) is the current session, negative numbers count
                // back from it: there is no earlier one.
                let ours = matches!(session, None | Some(0)) || *session == Some(SESSION as i32);
                let cells = self
                    .cells
                    .iter()
                    .filter(|c| ours && c.line as i64 >= i64::from(*start))
                    .filter(|c| (c.line as i64) < i64::from(*stop))
                    .collect();
                (cells, *output)
            }
            HistoryRequest::Search {
                pattern,
                unique,
                output,
                n,
                ..
            } => {
                let Ok(glob) = glob::Pattern::new(pattern) else {
                    return Vec::new();
                };
                let mut found: Vec<&Cell> = self
                    .cells
                    .iter()
                    .filter(|c| glob.matches(&c.input))
                    .collect();
                if *unique {
                    // The latest run of each input, in order.
                    let mut seen = std::collections::HashSet::new();
                    found.reverse();
                    found.retain(|c| seen.insert(&c.input));
                    found.reverse();
                }
                (last(found, *n), *output)
            }
        };
        cells
            .into_iter()
            .map(|c| {
                if output {
                    HistoryEntry::InputOutput(SESSION, c.line, (c.input.clone(), c.output.clone()))
                } else {
                    HistoryEntry::Input(SESSION, c.line, c.input.clone())
                }
            })
            .collect()
    }
}

fn last(mut cells: Vec<&Cell>, n: i32) -> Vec<&Cell> {
    let n = n.max(0) as usize;
    if cells.len() > n {
        cells.drain(..cells.len() - n);
    }
    cells
}

/// Fills in what a client may leave out of a `history_request`'s content
/// (jupyter_client sends no `stop` for a range, no `n` or `unique` for a
/// search), so that it parses: no limit, not unique, input only.
pub fn fill_defaults(content: &mut Value) {
    let Some(c) = content.as_object_mut() else {
        return;
    };
    let kind = c
        .get("hist_access_type")
        .and_then(Value::as_str)
        .unwrap_or("range")
        .to_string();
    let mut default = |key: &str, v: Value| {
        if c.get(key).is_none_or(Value::is_null) {
            c.insert(key.to_string(), v);
        }
    };
    default("hist_access_type", Value::from(kind.as_str()));
    default("output", Value::Bool(false));
    default("raw", Value::Bool(true));
    match kind.as_str() {
        "range" => {
            default("start", Value::from(0));
            default("stop", Value::from(UNLIMITED));
        }
        "tail" => default("n", Value::from(10)),
        "search" => {
            default("pattern", Value::from("*"));
            default("unique", Value::Bool(false));
            default("n", Value::from(UNLIMITED));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history() -> History {
        let mut h = History::default();
        h.add(1, "6 * 7", Some("42".into()));
        h.add(2, "print 1", None);
        h.add(3, "6 * 7", Some("42".into()));
        h.add(4, "sg(Heap(3))", Some("3".into()));
        h
    }

    fn request(content: serde_json::Value) -> HistoryRequest {
        let mut content = content;
        fill_defaults(&mut content);
        serde_json::from_value(content).unwrap()
    }

    fn lines(entries: &[HistoryEntry]) -> Vec<usize> {
        entries
            .iter()
            .map(|e| match e {
                HistoryEntry::Input(_, l, _) | HistoryEntry::InputOutput(_, l, _) => *l,
            })
            .collect()
    }

    #[test]
    fn tail_gives_the_last_cells_with_or_without_output() {
        let h = history();
        let r = h.answer(&request(json!({"hist_access_type": "tail", "n": 2})));
        assert_eq!(lines(&r), [3, 4]);
        let r = h.answer(&request(
            json!({"hist_access_type": "tail", "n": 1, "output": true}),
        ));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!([[1, 4, ["sg(Heap(3))", "3"]]])
        );
        assert_eq!(
            serde_json::to_value(h.answer(&request(json!({"hist_access_type": "tail", "n": 1}))))
                .unwrap(),
            json!([[1, 4, "sg(Heap(3))"]])
        );
    }

    #[test]
    fn range_takes_start_to_before_stop_of_this_session_only() {
        let h = history();
        let r = h.answer(&request(
            json!({"hist_access_type": "range", "session": 1, "start": 2, "stop": 4}),
        ));
        assert_eq!(lines(&r), [2, 3]);
        // jupyter_client's defaults: session 0 (this one), start 0, no stop.
        let r = h.answer(&request(
            json!({"hist_access_type": "range", "session": 0, "start": 0}),
        ));
        assert_eq!(lines(&r), [1, 2, 3, 4]);
        let r = h.answer(&request(
            json!({"hist_access_type": "range", "session": -1}),
        ));
        assert!(r.is_empty(), "there is no earlier session");
    }

    #[test]
    fn search_matches_the_whole_input_as_a_glob() {
        let h = history();
        let search = |extra: serde_json::Value| {
            let mut c = json!({"hist_access_type": "search", "pattern": "6 ? 7"});
            for (k, v) in extra.as_object().unwrap() {
                c[k] = v.clone();
            }
            lines(&h.answer(&request(c)))
        };
        assert_eq!(search(json!({})), [1, 3]);
        assert_eq!(search(json!({"unique": true})), [3]);
        assert_eq!(search(json!({"n": 1})), [3]);
        assert_eq!(search(json!({"pattern": "*Heap*"})), [4]);
        assert_eq!(search(json!({"pattern": "Heap"})), Vec::<usize>::new());
        assert_eq!(search(json!({"pattern": "[unclosed"})), Vec::<usize>::new());
    }
}
