//! How the REPL shows answers: the moves of `options`/`winning` as an
//! aligned list with the winning ones marked, tables as a grid with the
//! P-positions highlighted on a colour terminal. Everything else prints as
//! in files.

use crate::eval::value::Plot;
use crate::eval::value::{MoveRecord, Outcome, Table, Value};
use crate::report::plot::{text_on, Cell, Chart};

const GREEN: &str = "\x1b[32m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const P_CELL: &str = "\x1b[1;33m";
/// Infinite SG values (loopy games) and draws: magenta.
const INF_CELL: &str = "\x1b[35m";
const RESET: &str = "\x1b[0m";

/// The REPL's text for a value, or `None` to print it as usual.
pub fn pretty(v: &Value, color: bool) -> Option<String> {
    match v {
        Value::List(items) => {
            let moves: Option<Vec<&MoveRecord>> = items
                .iter()
                .map(|i| match i {
                    Value::Move(m) => Some(&**m),
                    _ => None,
                })
                .collect();
            moves
                .filter(|m| !m.is_empty())
                .map(|m| moves_text(&m, color))
        }
        Value::Table(t) if color => Some(grid(t, color)),
        Value::Plot(p) if color => Some(heatmap(p)),
        _ => None,
    }
}

/// A plot on a colour terminal: the grid with each cell in its heatmap
/// colour (24-bit), then the plot's summary line.
pub fn heatmap(p: &Plot) -> String {
    let Ok(chart) = Chart::from_table(&p.table, "") else {
        return p.to_string();
    };
    let paint = |v: &Value, cell: String| {
        let c = match Cell::of(v) {
            Cell::Missing => return cell,
            c => c,
        };
        let [r, g, b] = chart.colour(c);
        let [fr, fg, fb] = text_on([r, g, b]);
        format!("\x1b[48;2;{r};{g};{b}m\x1b[38;2;{fr};{fg};{fb}m {cell}{RESET}")
    };
    format!("{}\n{DIM}{p}{RESET}", painted_grid(&p.table, true, &paint))
}

/// One move per line: a `*` for a winning move (to SG value 0), the
/// component of a sum it is made in, label and bindings, the position it
/// leads to, its SG value; columns aligned.
/// A move as a listing names it: `take(k=3)`, with its component first
/// (`[1] take(k=3)`) when the moves are those of a sum.
pub fn move_label(m: &MoveRecord, in_sum: bool) -> String {
    let mut label = m.label.to_string();
    if !m.bindings.is_empty() {
        let b: Vec<String> = m
            .bindings
            .iter()
            .map(|(n, v)| format!("{n}={v:#}"))
            .collect();
        label = format!("{label}({})", b.join(", "));
    }
    if in_sum {
        label = format!("[{}] {label}", m.component);
    }
    label
}

pub fn moves_text(moves: &[&MoveRecord], color: bool) -> String {
    let in_sum = moves.iter().any(|m| m.component > 0);
    let rows: Vec<[String; 3]> = moves
        .iter()
        .map(|m| [move_label(m, in_sum), m.to.to_string(), m.sg.to_string()])
        .collect();
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut lines = Vec::with_capacity(rows.len() + 1);
    for (m, [label, to, sg]) in moves.iter().zip(&rows) {
        let win = m.sg == Value::Int(0);
        let mark = if win { "*" } else { " " };
        let line = format!("{mark} {label:<w0$}  -> {to:<w1$}  sg {sg:>w2$}");
        lines.push(if win && color {
            format!("{GREEN}{line}{RESET}")
        } else {
            line
        });
    }
    let winning = moves.iter().filter(|m| m.sg == Value::Int(0)).count();
    let noun = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let summary = format!(
        "{}, {} (*: to a P-position)",
        noun(moves.len(), "move", "moves"),
        noun(winning, "winning", "winning")
    );
    lines.push(if color {
        format!("{DIM}{summary}{RESET}")
    } else {
        summary
    });
    lines.join("\n")
}

/// The table as a grid with headers, laid out like its plain text; with
/// `color`, headers are bold and P-positions (0 or `P`) highlighted.
pub fn grid(t: &Table, color: bool) -> String {
    let highlight = |v: &Value, cell: String| {
        let is_p = matches!(v, Value::Int(0) | Value::Outcome(Outcome::P));
        let infinite = matches!(v, Value::Infinite(_) | Value::Outcome(Outcome::D));
        if is_p && color {
            format!(" {P_CELL}{cell}{RESET}")
        } else if infinite && color {
            format!(" {INF_CELL}{cell}{RESET}")
        } else {
            format!(" {cell}")
        }
    };
    painted_grid(t, color, &highlight)
}

/// The grid with each cell (right-aligned, without its leading space)
/// given to `paint` with its value.
fn painted_grid(t: &Table, color: bool, paint_cell: &dyn Fn(&Value, String) -> String) -> String {
    let text = |v: &Value| format!("{v:#}");
    let paint = |s: String, style: &str| {
        if color {
            format!("{style}{s}{RESET}")
        } else {
            s
        }
    };
    let corner = format!("{}\\{}", t.row_name, t.col_name);
    let heads: Vec<String> = t.row_keys.iter().map(text).collect();
    let head_w = heads
        .iter()
        .map(|s| s.chars().count())
        .chain([corner.chars().count()])
        .max()
        .unwrap_or(0);
    let cells: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.iter().map(text).collect())
        .collect();
    let mut widths: Vec<usize> = t.col_keys.iter().map(|k| text(k).chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    out.push_str(&paint(format!("{corner:>head_w$}"), BOLD));
    out.push_str(" |");
    for (k, w) in t.col_keys.iter().zip(&widths) {
        out.push(' ');
        out.push_str(&paint(format!("{:>w$}", text(k)), BOLD));
    }
    out.push('\n');
    let rule = head_w + 2 + widths.iter().map(|w| w + 1).sum::<usize>();
    out.push_str(&"-".repeat(rule));
    for (i, row) in cells.iter().enumerate() {
        out.push('\n');
        let head = heads.get(i).cloned().unwrap_or_default();
        out.push_str(&paint(format!("{head:>head_w$}"), BOLD));
        out.push_str(" |");
        for ((c, w), v) in row.iter().zip(&widths).zip(&t.rows[i]) {
            out.push_str(&paint_cell(v, format!("{c:>w$}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::value::{Game, Position};
    use std::rc::Rc;

    fn heap(n: i64) -> Game {
        Game::Position(Position {
            instance: crate::eval::value::InstanceId(0),
            name: Rc::from("Heap"),
            args: Rc::from(vec![Value::Int(n)]),
        })
    }

    fn mv(k: i64, component: usize, to: Game, sg: u64) -> MoveRecord {
        MoveRecord {
            label: Rc::from("take"),
            bindings: vec![(Rc::from("k"), Value::Int(k))],
            component,
            to,
            sg: Value::Int(sg as i64),
        }
    }

    #[test]
    fn moves_are_aligned_and_winning_ones_marked() {
        let a = mv(1, 0, heap(2), 2);
        let b = mv(3, 0, heap(0), 0);
        let c = mv(12, 0, heap(10), 10);
        let text = moves_text(&[&a, &b, &c], false);
        assert_eq!(
            text,
            "  take(k=1)   -> Heap(2)   sg  2\n\
             * take(k=3)   -> Heap(0)   sg  0\n\
             \x20 take(k=12)  -> Heap(10)  sg 10\n\
             3 moves, 1 winning (*: to a P-position)"
        );
    }

    #[test]
    fn moves_in_sums_name_their_component() {
        let a = mv(1, 0, Game::Sum(vec![heap(0), heap(1)]), 1);
        let b = mv(1, 1, Game::Sum(vec![heap(1), heap(0)]), 1);
        let text = moves_text(&[&a, &b], false);
        assert!(text.starts_with("  [0] take(k=1)  -> Heap(0) + Heap(1)  sg 1\n"));
        assert!(text.contains("  [1] take(k=1)  -> Heap(1) + Heap(0)  sg 1"));
    }

    #[test]
    fn only_move_lists_and_coloured_tables_change() {
        assert_eq!(pretty(&Value::Int(3), true), None);
        assert_eq!(pretty(&Value::list(vec![]), true), None);
        assert_eq!(pretty(&Value::list(vec![Value::Int(1)]), true), None);
        let m = Value::Move(Rc::new(mv(1, 0, heap(0), 0)));
        assert!(pretty(&Value::list(vec![m]), false).is_some());
    }

    fn table() -> Table {
        Table {
            row_name: Rc::from("a"),
            col_name: Rc::from("b"),
            row_keys: vec![Value::Int(1), Value::Int(10)],
            col_keys: vec![Value::Int(1), Value::Int(2)],
            rows: vec![
                vec![Value::Int(0), Value::Int(1)],
                vec![Value::Int(12), Value::Int(0)],
            ],
        }
    }

    #[test]
    fn plain_grid_is_the_table_display() {
        let t = table();
        assert_eq!(grid(&t, false), t.to_string());
    }

    #[test]
    fn coloured_grid_highlights_p_positions() {
        let g = grid(&table(), true);
        assert!(g.contains(&format!("{P_CELL} 0{RESET}")), "{g:?}");
        assert!(!g.contains(&format!("{P_CELL} 1")));
        assert!(!g.contains(&format!("{P_CELL}12")));
        assert!(pretty(&Value::Table(Rc::new(table())), false).is_none());
    }

    #[test]
    fn a_plot_is_a_grid_in_the_heatmap_colours_on_a_colour_terminal() {
        let p = crate::eval::plot::make(&[Value::Table(Rc::new(table()))], &[], Default::default())
            .unwrap();
        let Value::Plot(plot) = &p else {
            panic!("a plot")
        };
        let h = pretty(&p, true).expect("a heatmap");
        let [r, g, b] = crate::report::plot::P_COLOUR;
        let p_cell = format!("\x1b[48;2;{r};{g};{b}m");
        assert_eq!(h.matches(&p_cell).count(), 2, "{h:?}");
        assert_eq!(h.matches("\x1b[48;2;").count(), 4, "{h:?}");
        assert!(h.ends_with(&format!("{DIM}{plot}{RESET}")), "{h:?}");
        // Without colour a plot is its summary line.
        assert!(pretty(&p, false).is_none());
        assert_eq!(
            p.to_string(),
            "heatmap of a\\b (2 x 2 cells, 2 P-positions)"
        );
    }
}
