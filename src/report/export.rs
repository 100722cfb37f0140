//! Tables as CSV or JSON, for `grundy run --format csv|json`.
//!
//! CSV: a header line with the corner `row\col` and the column keys, then
//! one line per row, its key first, then a blank line. JSON: one object per
//! table, on one line, `{"row": "a", "col": "b", "row_keys": [...],
//! "col_keys": [...], "cells": [[...], ...]}`; integers and booleans stay
//! numbers and booleans, strings stay strings, every other value is its
//! text.

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Value as Json};

use crate::eval::value::{Table, Value};

/// How `grundy run` writes the tables it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The grid with headers, as in the REPL.
    #[default]
    Text,
    Csv,
    Json,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            _ => Err(format!("unknown format `{s}`: use text, csv or json")),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Format::Text => "text",
            Format::Csv => "csv",
            Format::Json => "json",
        };
        write!(f, "{name}")
    }
}

impl Format {
    /// The text of a value in this format: `Some` for a table (or the
    /// table of a plot) in CSV or JSON, `None` for everything else (it
    /// prints as usual).
    pub fn table_text(self, v: &Value) -> Option<String> {
        let t = match v {
            Value::Table(t) => t,
            Value::Plot(p) => &p.table,
            _ => return None,
        };
        match self {
            Format::Text => None,
            // A blank line after each table keeps several apart.
            Format::Csv => Some(format!("{}\n", to_csv(t))),
            Format::Json => Some(to_json(t).to_string()),
        }
    }
}

/// The table as CSV lines (without a final newline), written by the `csv`
/// crate: a field is quoted when it holds a comma, a quote or a line break.
pub fn to_csv(t: &Table) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .flexible(true)
        .from_writer(Vec::new());
    let corner = format!("{}\\{}", t.row_name, t.col_name);
    let head = std::iter::once(corner).chain(t.col_keys.iter().map(csv_value));
    // Writing to memory cannot fail.
    let _ = w.write_record(head);
    for (key, row) in t.row_keys.iter().zip(&t.rows) {
        let _ = w.write_record(std::iter::once(csv_value(key)).chain(row.iter().map(csv_value)));
    }
    let bytes = w.into_inner().unwrap_or_default();
    let text = String::from_utf8(bytes).unwrap_or_default();
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

fn csv_value(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        _ => format!("{v:#}"),
    }
}

/// The table as a JSON object.
pub fn to_json(t: &Table) -> Json {
    let keys = |ks: &[Value]| Json::Array(ks.iter().map(json_value).collect());
    let cells: Vec<Json> = t.rows.iter().map(|r| keys(r)).collect();
    json!({
        "row": &*t.row_name,
        "col": &*t.col_name,
        "row_keys": keys(&t.row_keys),
        "col_keys": keys(&t.col_keys),
        "cells": cells,
    })
}

fn json_value(v: &Value) -> Json {
    match v {
        Value::Int(n) => json!(n),
        Value::Bool(b) => json!(b),
        Value::Str(s) => json!(&**s),
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => {
            Json::Array(xs.iter().map(json_value).collect())
        }
        _ => json!(format!("{v:#}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn table() -> Table {
        Table {
            row_name: Rc::from("a"),
            col_name: Rc::from("b"),
            row_keys: vec![Value::Int(1), Value::Int(2)],
            col_keys: vec![Value::Int(0), Value::Int(1), Value::Int(2)],
            rows: vec![
                vec![Value::Int(1), Value::Int(0), Value::Int(3)],
                vec![Value::str("x,y"), Value::Bool(true), Value::list(vec![])],
            ],
        }
    }

    #[test]
    fn csv_has_a_header_and_quotes_when_needed() {
        assert_eq!(to_csv(&table()), "a\\b,0,1,2\n1,1,0,3\n2,\"x,y\",true,[]");
        let mut t = table();
        t.rows[0][0] = Value::str("say \"hi\"\nbye");
        assert!(to_csv(&t).contains("\n1,\"say \"\"hi\"\"\nbye\",0,3\n"));
    }

    #[test]
    fn json_keeps_numbers_and_strings() {
        let j = to_json(&table());
        assert_eq!(j["row"], "a");
        assert_eq!(j["col_keys"], json!([0, 1, 2]));
        assert_eq!(j["cells"][0], json!([1, 0, 3]));
        assert_eq!(j["cells"][1], json!(["x,y", true, []]));
    }

    #[test]
    fn infinite_values_are_written_as_their_text() {
        let mut t = table();
        t.rows[0][1] = Value::Infinite(Rc::from(vec![0, 2]));
        t.rows[0][2] = Value::Infinite(Rc::from(vec![]));
        assert!(
            to_csv(&t).contains("\n1,1,\"∞{0,2}\",∞\n"),
            "{}",
            to_csv(&t)
        );
        assert_eq!(to_json(&t)["cells"][0], json!([1, "∞{0,2}", "∞"]));
    }

    #[test]
    fn only_tables_change() {
        assert_eq!(Format::Csv.table_text(&Value::Int(3)), None);
        assert_eq!(
            Format::Text.table_text(&Value::Table(Rc::new(table()))),
            None
        );
        assert!(Format::Json
            .table_text(&Value::Table(Rc::new(table())))
            .is_some_and(|s| !s.contains('\n')));
        let t = Value::Table(Rc::new(table()));
        let plot = crate::eval::value::Plot {
            table: Rc::new(table()),
            file: None,
            title: None,
        };
        let plot = Value::Plot(Rc::new(plot));
        assert_eq!(Format::Csv.table_text(&plot), Format::Csv.table_text(&t));
        assert_eq!("CSV".parse(), Ok(Format::Csv));
        assert!("xml".parse::<Format>().is_err());
    }
}
