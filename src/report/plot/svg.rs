//! The chart as SVG: the same layout as the PNG, with real text, and a
//! tooltip (`<title>`) on each cell naming the position and its value.

use std::fmt::Write;

use super::{
    legend_loopy, legend_ramp, legend_ramp_text, text_on, title_text, Cell, Chart, Layout, CHAR,
    INK, LEGEND_P, LEGEND_SWATCH, P_COLOUR,
};

/// Tables with more cells than this get no tooltips, to keep files small.
const TOOLTIP_CELLS: usize = 40_000;

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Escapes text for XML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn render(chart: &Chart, l: &Layout) -> String {
    let mut s = String::new();
    let ink = hex(INK);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="monospace" font-size="{f}">"#,
        w = l.width,
        h = l.height,
        f = CHAR + 3,
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-size="{}" fill="{ink}">{}</text>"#,
        l.row_name_x,
        l.title_y + l.title_scale * CHAR,
        l.title_scale * CHAR + 2,
        esc(&title_text(&chart.title))
    );
    let grid_w = chart.cols() as u32 * l.cell;
    let grid_h = chart.rows() as u32 * l.cell;
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold" fill="{ink}">{}</text>"#,
        l.grid_x + grid_w / 2,
        l.col_name_y + CHAR,
        esc(&chart.col_name)
    );
    let (rx, ry) = (l.row_name_x + CHAR, l.grid_y + grid_h / 2);
    let _ = writeln!(
        s,
        r#"<text x="{rx}" y="{ry}" text-anchor="middle" font-weight="bold" fill="{ink}" transform="rotate(-90 {rx} {ry})">{}</text>"#,
        esc(&chart.row_name)
    );
    for (j, label) in chart.col_labels.iter().enumerate() {
        if j % l.col_step == 0 {
            let (x, _, w, _) = l.cell_rect(0, j);
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle" fill="{ink}">{}</text>"#,
                x + w / 2,
                l.col_keys_y + CHAR,
                esc(label)
            );
        }
    }
    for (i, label) in chart.row_labels.iter().enumerate() {
        if i % l.row_step == 0 {
            let (_, y, _, h) = l.cell_rect(i, 0);
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end" dominant-baseline="middle" fill="{ink}">{}</text>"#,
                l.grid_x - 6,
                y + h / 2,
                esc(label)
            );
        }
    }
    let tooltips = chart.rows() * chart.cols() <= TOOLTIP_CELLS;
    for (i, row) in chart.cells.iter().enumerate() {
        for (j, &cell) in row.iter().enumerate() {
            let (x, y, w, h) = l.cell_rect(i, j);
            let fill = chart.colour(cell);
            let class = if cell.is_p() { "P" } else { "N" };
            let _ = write!(
                s,
                r#"<rect class="{class}" x="{x}" y="{y}" width="{w}" height="{h}" fill="{}">"#,
                hex(fill)
            );
            if tooltips {
                let _ = write!(
                    s,
                    "<title>{}={}, {}={}: {} ({class})</title>",
                    esc(&chart.row_name),
                    esc(&chart.row_labels[i]),
                    esc(&chart.col_name),
                    esc(&chart.col_labels[j]),
                    esc(&cell.text()),
                );
            }
            let _ = writeln!(s, "</rect>");
            let text = cell.text();
            if l.cell_text_fits(&text) && cell != Cell::Missing {
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{}" text-anchor="middle" dominant-baseline="central" fill="{}">{}</text>"#,
                    x + w / 2,
                    y + h / 2,
                    hex(text_on(fill)),
                    esc(&text)
                );
            }
        }
    }
    legend(&mut s, chart, l);
    s.push_str("</svg>\n");
    s
}

fn legend(s: &mut String, chart: &Chart, l: &Layout) {
    let ink = hex(INK);
    let y = l.legend_y;
    let mut x = l.row_name_x;
    let _ = writeln!(
        s,
        r#"<rect x="{x}" y="{y}" width="{LEGEND_SWATCH}" height="{LEGEND_SWATCH}" fill="{}"/>"#,
        hex(P_COLOUR)
    );
    x += LEGEND_SWATCH + 6;
    let _ = writeln!(
        s,
        r#"<text x="{x}" y="{}" fill="{ink}">{LEGEND_P}</text>"#,
        y + LEGEND_SWATCH - 2
    );
    x += LEGEND_P.len() as u32 * CHAR + 24;
    for colour in legend_ramp(chart) {
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{LEGEND_SWATCH}" height="{LEGEND_SWATCH}" fill="{}"/>"#,
            hex(colour)
        );
        x += LEGEND_SWATCH;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" fill="{ink}">{}</text>"#,
        x + 6,
        y + LEGEND_SWATCH - 2,
        esc(&legend_ramp_text(chart))
    );
    x += 6 + legend_ramp_text(chart).chars().count() as u32 * CHAR;
    for (colour, text) in legend_loopy(chart) {
        x += 24;
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{LEGEND_SWATCH}" height="{LEGEND_SWATCH}" fill="{}"/>"#,
            hex(colour)
        );
        x += LEGEND_SWATCH + 6;
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" fill="{ink}">{}</text>"#,
            y + LEGEND_SWATCH - 2,
            esc(text)
        );
        x += text.chars().count() as u32 * CHAR;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_xml() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
