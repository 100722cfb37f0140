//! Values as Jupyter MIME bundles: a table as `text/html` (headers, the
//! P-positions highlighted as in the terminal) besides its grid; the moves
//! of `options`/`winning` as an HTML list with the winning moves marked; a
//! heatmap (`:plot`, or a `plot(...)` value) as `image/svg+xml` and
//! `image/png`. `text/plain` is always the
//! REPL's text, so a console front end shows what the terminal shows.

use base64::Engine;
use jupyter_protocol::{Media, MediaType};

use crate::eval::value::{MoveRecord, Outcome, Table, Value};
use crate::repl::show;
use crate::report::plot;

/// Background of a P-position cell (the heatmap's P colour family).
const P_STYLE: &str = "background:#ffe082;font-weight:bold";
/// Infinite SG values (loopy games) and draws.
const INF_STYLE: &str = "background:#ce93d8";

/// The bundle of a shown value.
pub fn bundle(v: &Value) -> Media {
    match v {
        Value::Table(t) => Media::new(vec![
            MediaType::Plain(show::grid(t, false)),
            MediaType::Html(table_html(t)),
        ]),
        Value::List(items) => match moves(items) {
            Some(m) => Media::new(vec![
                MediaType::Plain(show::moves_text(&m, false)),
                MediaType::Html(moves_html(&m)),
            ]),
            None => plain(v),
        },
        Value::Plot(p) => match plot::pictures(&p.table, &p.title()) {
            Ok((svg, png)) => picture(svg, &png, &p.to_string()),
            Err(_) => plain(v),
        },
        _ => plain(v),
    }
}

fn plain(v: &Value) -> Media {
    Media::new(vec![MediaType::Plain(format!("{v:#}"))])
}

/// The items as moves, when all are moves and there is one at least.
fn moves(items: &[Value]) -> Option<Vec<&MoveRecord>> {
    let m: Option<Vec<&MoveRecord>> = items
        .iter()
        .map(|i| match i {
            Value::Move(m) => Some(&**m),
            _ => None,
        })
        .collect();
    m.filter(|m| !m.is_empty())
}

/// A heatmap as SVG and PNG, and its caption as text.
pub fn picture(svg: String, png: &[u8], caption: &str) -> Media {
    Media::new(vec![
        MediaType::Plain(caption.to_string()),
        MediaType::Svg(svg),
        MediaType::Png(base64::engine::general_purpose::STANDARD.encode(png)),
    ])
}

/// Whether a cell holds a P-position: SG value 0 or the outcome P.
fn is_p(v: &Value) -> bool {
    matches!(v, Value::Int(0) | Value::Outcome(Outcome::P))
}

/// The table as HTML: the corner `row\col`, the keys as headers, the
/// P-positions highlighted.
pub fn table_html(t: &Table) -> String {
    let text = |v: &Value| escape(&format!("{v:#}"));
    let mut h = String::from("<table class=\"grundy-table\">\n<thead><tr>");
    h.push_str(&format!(
        "<th>{}\\{}</th>",
        escape(&t.row_name),
        escape(&t.col_name)
    ));
    for k in &t.col_keys {
        h.push_str(&format!("<th>{}</th>", text(k)));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (key, row) in t.row_keys.iter().zip(&t.rows) {
        h.push_str(&format!("<tr><th>{}</th>", text(key)));
        for v in row {
            if is_p(v) {
                h.push_str(&format!(
                    "<td class=\"p-position\" style=\"{P_STYLE}\">{}</td>",
                    text(v)
                ));
            } else if matches!(v, Value::Infinite(_) | Value::Outcome(Outcome::D)) {
                h.push_str(&format!(
                    "<td class=\"infinite\" style=\"{INF_STYLE}\">{}</td>",
                    text(v)
                ));
            } else {
                h.push_str(&format!("<td>{}</td>", text(v)));
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>");
    h
}

/// The moves as an HTML list; a winning move (to SG value 0) is marked
/// with a star, bold and green.
pub fn moves_html(moves: &[&MoveRecord]) -> String {
    let in_sum = moves.iter().any(|m| m.component > 0);
    let mut h = String::from("<ul class=\"grundy-moves\">\n");
    for m in moves {
        let label = show::move_label(m, in_sum);
        let body = format!(
            "<code>{}</code> &rarr; <code>{}</code> (sg {})",
            escape(&label),
            escape(&m.to.to_string()),
            m.sg
        );
        if m.sg == Value::Int(0) {
            h.push_str(&format!(
                "<li class=\"winning\" style=\"color:#1b5e20;font-weight:bold\">&#9733; {body}</li>\n"
            ));
        } else {
            h.push_str(&format!("<li>{body}</li>\n"));
        }
    }
    let winning = moves.iter().filter(|m| m.sg == Value::Int(0)).count();
    h.push_str(&format!(
        "</ul>\n<p>{} move{}, {winning} winning (&#9733;: to a P-position)</p>",
        moves.len(),
        if moves.len() == 1 { "" } else { "s" }
    ));
    h
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::value::{Game, InstanceId, Position};
    use std::rc::Rc;

    fn table() -> Table {
        Table {
            row_name: Rc::from("a"),
            col_name: Rc::from("b"),
            row_keys: vec![Value::Int(1), Value::Int(2)],
            col_keys: vec![Value::Int(1), Value::Int(2)],
            rows: vec![
                vec![Value::Int(0), Value::Int(1)],
                vec![Value::Outcome(Outcome::N), Value::Outcome(Outcome::P)],
            ],
        }
    }

    #[test]
    fn tables_highlight_exactly_the_p_positions() {
        let h = table_html(&table());
        assert_eq!(h.matches("class=\"p-position\"").count(), 2, "{h}");
        assert!(h.contains("<th>a\\b</th><th>1</th><th>2</th>"), "{h}");
        assert!(h.contains(&format!(
            "<td class=\"p-position\" style=\"{P_STYLE}\">0</td>"
        )));
        assert!(h.contains("<td>1</td>") && h.contains("<td>N</td>"), "{h}");
        let data = serde_json::to_value(bundle(&Value::Table(Rc::new(table())))).unwrap();
        assert_eq!(data["text/plain"], table().to_string());
    }

    #[test]
    fn winning_moves_are_marked_and_text_is_escaped() {
        let to = |n: i64| {
            Game::Position(Position {
                instance: InstanceId(0),
                name: Rc::from("Heap"),
                args: Rc::from(vec![Value::Int(n)]),
            })
        };
        let mv = |k: i64, sg: i64| MoveRecord {
            label: Rc::from("take"),
            bindings: vec![(Rc::from("k"), Value::Int(k))],
            component: 0,
            to: to(3 - k),
            sg: Value::Int(sg),
        };
        let (a, b) = (mv(1, 2), mv(3, 0));
        let h = moves_html(&[&a, &b]);
        assert_eq!(h.matches("class=\"winning\"").count(), 1, "{h}");
        assert!(h.contains("&#9733; <code>take(k=3)</code> &rarr; <code>Heap(0)</code> (sg 0)"));
        assert!(h.contains("2 moves, 1 winning"));
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn a_plot_is_a_picture_in_both_formats_with_its_summary() {
        let v = crate::eval::plot::make(&[Value::Table(Rc::new(table()))], &[], Default::default())
            .unwrap();
        let data = serde_json::to_value(bundle(&v)).unwrap();
        assert_eq!(
            data["text/plain"],
            "heatmap of a\\b (2 x 2 cells, 2 P-positions)"
        );
        let svg = data["image/svg+xml"].as_str().unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("a=1, b=1: 0 (P)"),
            "{svg}"
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(data["image/png"].as_str().unwrap())
            .unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn other_values_are_plain_text() {
        let data = serde_json::to_value(bundle(&Value::str("hi"))).unwrap();
        assert_eq!(data, serde_json::json!({"text/plain": "\"hi\""}));
    }
}
