//! `plot(T)` and `plot(T, FILE)`: a table marked to be shown as a heatmap.
//!
//! The value only checks that the table can be drawn (SG values or
//! outcomes, not empty, not too large) and remembers where it goes. The
//! front ends draw it (`report::plot`): a notebook shows it inline as SVG
//! and PNG, the REPL as a coloured grid, and the statement that prints or
//! shows a plot with a FILE writes FILE.png and FILE.svg (`Session`), as a
//! statement writes its text: evaluating an expression writes no file.

use std::fmt;
use std::rc::Rc;

use super::builtins::type_error;
use super::value::Plot;
use super::value::{Outcome, Table, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::lexer::{tokens, Token};
use crate::syntax::Span;

/// The most rows or columns a plot takes (one cell is at least 2 pixels).
pub const MAX_SIDE: usize = 4000;

impl Plot {
    /// The picture's title: the table's expression when the statement
    /// gave it, else the file's name, else the grid's corner (`a\b`: rows
    /// by `a`, columns by `b`).
    pub fn title(&self) -> String {
        match (&self.title, &self.file) {
            (Some(t), _) => t.to_string(),
            (None, Some(f)) => f.to_string(),
            (None, None) => format!("{}\\{}", self.table.row_name, self.table.col_name),
        }
    }

    /// The plot titled with the text of the statement's expression: for
    /// `plot(T)` and `plot(T, FILE)` the text of `T`, for `plot(e for r in R,
    /// c in C)` the comprehension's; other text (a name holding a plot)
    /// as it is.
    pub fn titled(&self, text: &str) -> Plot {
        Plot {
            title: Some(Rc::from(title_of(text, self.file.is_some()))),
            ..self.clone()
        }
    }

    /// How many cells are P-positions (SG value 0 or outcome `P`).
    pub fn p_positions(&self) -> usize {
        self.table.rows.iter().flatten().filter(|v| is_p(v)).count()
    }
}

pub fn is_p(v: &Value) -> bool {
    matches!(v, Value::Int(0) | Value::Outcome(Outcome::P))
}

/// `heatmap of a\b (9 x 9 cells, 25 P-positions)`, and where it is
/// written when it has a file.
impl fmt::Display for Plot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.table;
        let p = self.p_positions();
        write!(
            f,
            "heatmap of {}\\{} ({} x {} cells, {p} P-position{})",
            t.row_name,
            t.col_name,
            t.rows.len(),
            t.col_keys.len(),
            if p == 1 { "" } else { "s" }
        )?;
        if let Some(file) = &self.file {
            let (png, svg) = file_names(file);
            write!(f, ", written to {png} and {svg}")?;
        }
        Ok(())
    }
}

/// The two files of a plot's FILE: its extension `.png`/`.svg` replaced,
/// else both added (as `:plot` and `--plot` name them).
pub fn file_names(file: &str) -> (String, String) {
    let lower = file.to_ascii_lowercase();
    let stem = if lower.ends_with(".png") || lower.ends_with(".svg") {
        &file[..file.len() - 4]
    } else {
        file
    };
    (format!("{stem}.png"), format!("{stem}.svg"))
}

/// `plot(T)`, `plot(T, FILE)`; `spans` are the arguments' spans (the
/// call's span when unknown), for errors that point at the argument.
// Once a statement: kept out of `call_builtin`.
#[inline(never)]
pub fn make(args: &[Value], spans: &[Span], span: Span) -> Fallible<Value> {
    let at = |i: usize| spans.get(i).copied().unwrap_or(span);
    let table =
        match &args[0] {
            Value::Table(t) => t.clone(),
            Value::Plot(p) => p.table.clone(),
            other => return Err(Diag::new(
                ErrorKind::Type,
                at(0),
                format!("plot needs a table, found {} `{other:#}`", other.kind_a()),
            )
            .label(format!("this is {}", other.kind_a()))
            .help("make one with table(e for r in R, c in C), or write plot(e for r in R, c in C)")
            .boxed()),
        };
    check_table(&table).map_err(|(message, label)| {
        Diag::new(ErrorKind::Invalid, at(0), message)
            .label(label)
            .help("a heatmap shows SG values (integers) or outcomes (P, N)")
            .boxed()
    })?;
    let file = match args.get(1) {
        None => None,
        Some(Value::Str(s)) if !s.trim().is_empty() => Some(Rc::from(s.as_str())),
        Some(Value::Str(_)) => {
            return Diag::new(ErrorKind::Invalid, at(1), "the file name is empty")
                .label("no file name")
                .help("plot(t, \"fig.png\") writes fig.png and fig.svg")
                .err()
        }
        Some(other) => {
            return Err(type_error(at(1), "a file name (a string)", other));
        }
    };
    Ok(Value::Plot(Rc::new(Plot {
        table,
        file,
        title: None,
    })))
}

/// The title of a plot shown by the expression `text`: its text on one
/// line, without `plot(` ... `)` and without the FILE argument.
fn title_of(text: &str, has_file: bool) -> String {
    let text = text.trim();
    let inner = text
        .strip_prefix("plot(")
        .and_then(|t| t.strip_suffix(')'))
        .filter(|inner| is_balanced(inner));
    let shown = match inner {
        // The last argument at depth 0 is the file name.
        Some(inner) if has_file => {
            let mut depth = 0;
            let mut last_comma = None;
            for (t, r) in tokens(inner) {
                depth += t.depth_change();
                if depth == 0 && t == Token::Comma {
                    last_comma = Some(r.start);
                }
            }
            last_comma.map_or(inner, |c| &inner[..c])
        }
        Some(inner) => inner,
        None => text,
    };
    shown.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether no bracket of `text` closes one opened before it (so that
/// `plot(a) + plot(b)` is not taken for one call).
fn is_balanced(text: &str) -> bool {
    let mut depth = 0;
    tokens(text).iter().all(|(t, _)| {
        depth += t.depth_change();
        depth >= 0
    }) && depth == 0
}

/// Why a table cannot be drawn: a message and a label. `report::plot`
/// draws what passes.
pub fn check_table(t: &Table) -> Result<(), (String, String)> {
    if t.rows.is_empty() || t.col_keys.is_empty() {
        return Err((
            "the table is empty: there is nothing to plot".into(),
            "no cells".into(),
        ));
    }
    if t.rows.len() > MAX_SIDE || t.col_keys.len() > MAX_SIDE {
        return Err((
            format!(
                "the table has {} rows and {} columns: a plot takes at most {MAX_SIDE} of each",
                t.rows.len(),
                t.col_keys.len()
            ),
            "too large to draw".into(),
        ));
    }
    for (i, row) in t.rows.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            if !matches!(v, Value::Int(_) | Value::Outcome(_) | Value::Infinite(_)) {
                let key = |keys: &[Value], k: usize| {
                    keys.get(k)
                        .map_or_else(|| k.to_string(), |v| format!("{v:#}"))
                };
                return Err((
                    format!(
                        "the cell {}={}, {}={} is {} `{v:#}`: a plot needs SG values (integers) \
                         or outcomes (P, N)",
                        t.row_name,
                        key(&t.row_keys, i),
                        t.col_name,
                        key(&t.col_keys, j),
                        v.kind_a()
                    ),
                    format!("this table holds {}", v.kind_a()),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Vec<Value>>) -> Value {
        Value::Table(Rc::new(Table {
            row_name: Rc::from("a"),
            col_name: Rc::from("b"),
            row_keys: (0..rows.len() as i64).map(Value::Int).collect(),
            col_keys: (0..rows[0].len() as i64).map(Value::Int).collect(),
            rows,
        }))
    }

    fn message(r: Fallible<Value>) -> String {
        r.unwrap_err().message
    }

    #[test]
    fn a_plot_counts_its_p_positions_and_names_its_files() {
        let t = table(vec![
            vec![Value::Int(0), Value::Int(1)],
            vec![Value::Outcome(Outcome::P), Value::Outcome(Outcome::N)],
        ]);
        let s = Span::default();
        let Value::Plot(p) = make(std::slice::from_ref(&t), &[], s).unwrap() else {
            panic!("a plot")
        };
        assert_eq!(p.p_positions(), 2);
        assert_eq!(p.title(), "a\\b");
        assert_eq!(p.titled("plot(t)").title(), "t");
        assert_eq!(
            p.titled("plot(sg(G(a, b))\n  for a in 0..4, b in 0..4)")
                .title(),
            "sg(G(a, b)) for a in 0..4, b in 0..4"
        );
        assert_eq!(p.titled("p").title(), "p");
        assert_eq!(p.titled("plot(a) + plot(b)").title(), "plot(a) + plot(b)");
        assert_eq!(
            p.to_string(),
            "heatmap of a\\b (2 x 2 cells, 2 P-positions)"
        );
        let v = make(&[t, Value::str("out/ed.PNG")], &[], s).unwrap();
        assert_eq!(
            v.to_string(),
            "heatmap of a\\b (2 x 2 cells, 2 P-positions), written to out/ed.png and out/ed.svg"
        );
        assert_eq!(file_names("x"), ("x.png".into(), "x.svg".into()));
        let Value::Plot(f) = &v else { panic!("a plot") };
        assert_eq!(f.titled("plot(t, \"out/ed.PNG\")").title(), "t");
        assert_eq!(
            f.titled("plot(table(x for x in 0..3, y in [1, 2]), \"f\")")
                .title(),
            "table(x for x in 0..3, y in [1, 2])"
        );
        // A plot of a plot is the same plot.
        assert_eq!(
            make(std::slice::from_ref(&v), &[], s).unwrap().to_string(),
            p.to_string()
        );
    }

    #[test]
    fn what_cannot_be_drawn_is_an_error() {
        let s = Span::default();
        let m = message(make(&[Value::Int(3)], &[], s));
        assert_eq!(m, "plot needs a table, found an integer `3`");
        let t = table(vec![vec![Value::Int(0), Value::list(vec![])]]);
        let m = message(make(&[t], &[], s));
        assert!(m.starts_with("the cell a=0, b=1 is a list `[]`"), "{m}");
        let t = table(vec![vec![Value::Int(0)]]);
        let m = message(make(&[t.clone(), Value::Int(1)], &[], s));
        assert!(m.contains("expected a file name"), "{m}");
        let m = message(make(&[t, Value::str(" ")], &[], s));
        assert_eq!(m, "the file name is empty");
        let big = table(vec![vec![Value::Int(1); MAX_SIDE + 1]]);
        assert!(message(make(&[big], &[], s)).contains("at most 4000"));
    }
}
