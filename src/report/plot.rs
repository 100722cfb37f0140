//! Pictures of two-dimensional tables: a heatmap of SG values (or outcomes)
//! written as PNG and SVG, with the P-positions highlighted and both axes
//! labelled, like the charts of P- and N-positions in the papers.
//!
//! The row keys run down the left side and the column keys along the top,
//! as `table` prints them. A cell with SG value 0 (or outcome `P`) is a
//! P-position, drawn in [`P_COLOUR`]; SG values 1, 2, ... go from light to
//! dark blue; outcome `N` is a middle blue; negative integers grey. A
//! loopy game's infinite values are purple: dark for draws (∞ with 0 not
//! in K, and outcome `D`), light for ∞ with 0 in K (N-positions); the
//! legend names them when they occur.
//!
//! [`Chart`] is the picture's content, [`Layout`] where everything goes
//! (shared by both formats), `raster` draws the PNG, `svg` the SVG.

mod raster;
mod svg;

use std::path::{Path, PathBuf};

use crate::eval::value::{Outcome, Table, Value};

/// The colour of P-positions.
pub const P_COLOUR: [u8; 3] = [255, 200, 60];
/// The colour of outcome `N` cells.
pub const N_COLOUR: [u8; 3] = [49, 109, 173];
/// The colour of draws: infinite values whose K lacks 0, outcome `D`.
pub const DRAW_COLOUR: [u8; 3] = [106, 27, 154];
/// The colour of infinite values whose K holds 0 (N-positions).
pub const INF_N_COLOUR: [u8; 3] = [206, 147, 216];
const LIGHT: [u8; 3] = [205, 224, 242];
const DARK: [u8; 3] = [8, 40, 96];
const NEGATIVE: [u8; 3] = [150, 150, 150];
const MISSING: [u8; 3] = [255, 255, 255];
pub(crate) const INK: [u8; 3] = [30, 30, 30];
pub(crate) const BACKGROUND: [u8; 3] = [255, 255, 255];

/// One cell of the chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// An SG value (0 is a P-position).
    Sg(i64),
    Outcome(Outcome),
    /// An infinite SG value (a loopy game's): a draw, or (0 in K) an
    /// N-position.
    Infinite {
        draw: bool,
    },
    /// A row shorter than the column keys.
    Missing,
}

impl Cell {
    /// The cell of a value: `Missing` for one a chart does not draw.
    pub fn of(v: &Value) -> Cell {
        match v {
            Value::Int(n) => Cell::Sg(*n),
            Value::Outcome(o) => Cell::Outcome(*o),
            Value::Infinite(k) => Cell::Infinite {
                draw: k.first() != Some(&0),
            },
            _ => Cell::Missing,
        }
    }

    pub fn is_p(self) -> bool {
        matches!(self, Cell::Sg(0) | Cell::Outcome(Outcome::P))
    }

    /// The text written in the cell.
    pub fn text(self) -> String {
        match self {
            Cell::Sg(n) => n.to_string(),
            Cell::Outcome(o) => o.to_string(),
            Cell::Infinite { .. } => "∞".to_string(),
            Cell::Missing => String::new(),
        }
    }
}

/// What a picture shows: the cells with their headers.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub row_name: String,
    pub col_name: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `cells[i][j]`: row `i`, column `j`.
    pub cells: Vec<Vec<Cell>>,
    /// The largest SG value (at least 1), for the colour scale.
    pub max: i64,
}

impl Chart {
    /// The chart of a table of integers or outcomes; an error names the
    /// first cell of another kind.
    pub fn from_table(t: &Table, title: &str) -> Result<Chart, String> {
        // What can be drawn is the language's rule for `plot(T)`.
        crate::eval::plot::check_table(t).map_err(|(message, _)| message)?;
        let cells: Vec<Vec<Cell>> = t
            .rows
            .iter()
            .map(|row| {
                (0..t.col_keys.len())
                    .map(|j| row.get(j).map_or(Cell::Missing, Cell::of))
                    .collect()
            })
            .collect();
        let max = cells
            .iter()
            .flatten()
            .filter_map(|c| match c {
                Cell::Sg(n) => Some(*n),
                _ => None,
            })
            .max()
            .unwrap_or(1)
            .max(1);
        let label = |v: &Value| format!("{v:#}");
        Ok(Chart {
            title: title.to_string(),
            row_name: t.row_name.to_string(),
            col_name: t.col_name.to_string(),
            row_labels: t.row_keys.iter().map(label).collect(),
            col_labels: t.col_keys.iter().map(label).collect(),
            cells,
            max,
        })
    }

    pub fn rows(&self) -> usize {
        self.cells.len()
    }

    pub fn cols(&self) -> usize {
        self.col_labels.len()
    }

    /// The fill colour of a cell.
    pub fn colour(&self, cell: Cell) -> [u8; 3] {
        match cell {
            _ if cell.is_p() => P_COLOUR,
            Cell::Sg(n) if n < 0 => NEGATIVE,
            Cell::Sg(n) => {
                let t = if self.max <= 1 {
                    1.0
                } else {
                    (n - 1) as f64 / (self.max - 1) as f64
                };
                mix(LIGHT, DARK, t)
            }
            Cell::Outcome(Outcome::D) | Cell::Infinite { draw: true } => DRAW_COLOUR,
            Cell::Infinite { draw: false } => INF_N_COLOUR,
            Cell::Outcome(_) => N_COLOUR,
            Cell::Missing => MISSING,
        }
    }
}

fn mix(a: [u8; 3], b: [u8; 3], t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    let f = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2])]
}

/// Text on a colour: white on dark fills, black on light ones.
pub(crate) fn text_on(fill: [u8; 3]) -> [u8; 3] {
    let luma = 0.299 * fill[0] as f64 + 0.587 * fill[1] as f64 + 0.114 * fill[2] as f64;
    if luma < 128.0 {
        [255, 255, 255]
    } else {
        INK
    }
}

/// Width of a character of label text, in pixels (the 8x8 bitmap font).
pub const CHAR: u32 = 8;
const PAD: u32 = 12;
/// Space between the row axis name and the widest row key.
pub(crate) const ROW_NAME_GAP: u32 = 2 * CHAR;
/// Most rows or columns a picture may have (beyond, the PNG alone would
/// need hundreds of megabytes).
pub const MAX_SIDE: usize = crate::eval::plot::MAX_SIDE;
/// Longest title, in characters; longer ones are cut with "...".
const TITLE_CHARS: usize = 90;

/// Where everything goes, in pixels; the same for PNG and SVG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    /// Side of one cell.
    pub cell: u32,
    /// Top-left corner of the grid.
    pub grid_x: u32,
    pub grid_y: u32,
    /// The title's letters are this many times as large as labels: 2, or 1
    /// when a large title would be wider than the grid.
    pub title_scale: u32,
    /// Every how many rows and columns a key is written.
    pub row_step: usize,
    pub col_step: usize,
    /// Baselines (top edges) of the title, the column axis name, the
    /// column keys and the legend; left edge of the row axis name.
    pub title_y: u32,
    pub col_name_y: u32,
    pub col_keys_y: u32,
    pub row_name_x: u32,
    pub legend_y: u32,
}

impl Layout {
    /// Cells are `720 / max(rows, cols)` pixels, between 2 and 32.
    pub fn new(chart: &Chart) -> Layout {
        let (rows, cols) = (chart.rows() as u32, chart.cols() as u32);
        let cell = (720 / rows.max(cols).max(1)).clamp(2, 32);
        let widest = |ls: &[String]| ls.iter().map(|l| l.chars().count()).max().unwrap_or(1) as u32;
        let row_label_w = widest(&chart.row_labels) * CHAR;
        let col_label_w = widest(&chart.col_labels) * CHAR;
        let row_step = (CHAR + 2).div_ceil(cell).max(1) as usize;
        let col_step = (col_label_w + 4).div_ceil(cell).max(1) as usize;
        let title_chars = title_text(&chart.title).chars().count() as u32;
        let row_name_x = PAD;
        // The row axis name runs down one column (letters stacked in the
        // PNG, rotated in the SVG), two characters clear of the keys, so
        // that it does not read as part of the middle row's key.
        let grid_x = row_name_x + CHAR + ROW_NAME_GAP + row_label_w + 6;
        let title_scale = if title_chars * CHAR * 2 <= grid_x + cols * cell - PAD {
            2
        } else {
            1
        };
        let title_y = PAD;
        let col_name_y = title_y + CHAR * title_scale + PAD;
        let col_keys_y = col_name_y + CHAR + 6;
        let grid_y = col_keys_y + CHAR + 6;
        let grid_h = rows * cell;
        let legend_y = grid_y + grid_h + PAD;
        let height = legend_y + CHAR * 2 + PAD;
        let title_w = title_chars * CHAR * title_scale;
        let legend_w = legend_width(chart);
        let width = (grid_x + cols * cell + PAD)
            .max(PAD + title_w + PAD)
            .max(PAD + legend_w + PAD);
        Layout {
            width,
            height,
            cell,
            title_scale,
            grid_x,
            grid_y,
            row_step,
            col_step,
            title_y,
            col_name_y,
            col_keys_y,
            row_name_x,
            legend_y,
        }
    }

    /// The rectangle (x, y, width, height) of cell `(row, col)`; a one-pixel
    /// gap separates cells of 8 pixels or more.
    pub fn cell_rect(&self, row: usize, col: usize) -> (u32, u32, u32, u32) {
        let gap = u32::from(self.cell >= 8);
        (
            self.grid_x + col as u32 * self.cell,
            self.grid_y + row as u32 * self.cell,
            self.cell - gap,
            self.cell - gap,
        )
    }

    /// Whether the cells are large enough to hold their values' text.
    pub fn cell_text_fits(&self, text: &str) -> bool {
        self.cell >= text.chars().count() as u32 * CHAR + 4 && self.cell >= CHAR + 4
    }
}

/// The title as drawn: at most [`TITLE_CHARS`] characters.
pub(crate) fn title_text(title: &str) -> String {
    if title.chars().count() > TITLE_CHARS {
        let cut: String = title.chars().take(TITLE_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        title.to_string()
    }
}

/// The legend's entries: a P swatch, then the SG value scale.
pub(crate) const LEGEND_P: &str = "P-position (sg 0)";
pub(crate) const LEGEND_SWATCH: u32 = 12;
pub(crate) const LEGEND_RAMP: u32 = 8;

/// The legend's width: P swatch, its text, the ramp and its text.
fn legend_width(chart: &Chart) -> u32 {
    let ramp = legend_ramp(chart).len() as u32 * LEGEND_SWATCH;
    let text = legend_ramp_text(chart).chars().count() as u32 * CHAR;
    let loopy: u32 = (legend_loopy(chart).iter())
        .map(|(_, t)| 24 + LEGEND_SWATCH + 6 + t.chars().count() as u32 * CHAR)
        .sum();
    LEGEND_SWATCH + 6 + LEGEND_P.len() as u32 * CHAR + 24 + ramp + 6 + text + loopy
}

/// The legend's entries after the ramp for a loopy game's cells that
/// occur: each colour with its text.
pub(crate) fn legend_loopy(chart: &Chart) -> Vec<([u8; 3], &'static str)> {
    let cells = || chart.cells.iter().flatten();
    let mut out = Vec::new();
    if cells().any(|c| matches!(c, Cell::Infinite { draw: false })) {
        out.push((INF_N_COLOUR, "inf, 0 in K (N)"));
    }
    if cells().any(|c| matches!(c, Cell::Infinite { draw: true } | Cell::Outcome(Outcome::D))) {
        out.push((DRAW_COLOUR, "draw (D)"));
    }
    out
}

fn has_sg(chart: &Chart) -> bool {
    chart
        .cells
        .iter()
        .flatten()
        .any(|c| matches!(c, Cell::Sg(_)))
}

/// The legend's ramp of N colours: SG values from 1 to the largest (at
/// most [`LEGEND_RAMP`] steps), or the one colour of outcome `N`.
pub(crate) fn legend_ramp(chart: &Chart) -> Vec<[u8; 3]> {
    if !has_sg(chart) {
        return vec![N_COLOUR];
    }
    let steps = LEGEND_RAMP.min(chart.max.max(1) as u32) as i64;
    (0..steps)
        .map(|k| {
            let v = if steps <= 1 {
                chart.max
            } else {
                1 + k * (chart.max - 1) / (steps - 1)
            };
            chart.colour(Cell::Sg(v))
        })
        .collect()
}

/// The legend's text after the ramp of N colours.
pub(crate) fn legend_ramp_text(chart: &Chart) -> String {
    if has_sg(chart) {
        format!("N: sg 1..{}", chart.max)
    } else {
        "N-position".to_string()
    }
}

/// The files a plot was written to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub png: PathBuf,
    pub svg: PathBuf,
}

/// The PNG and SVG paths for `path`: its extension (`.png`, `.svg` or none)
/// is replaced by each.
pub fn output_paths(path: &Path) -> Written {
    // A directory gets plot.png and plot.svg inside it.
    let inside;
    let path = if path.is_dir() {
        inside = path.join("plot");
        inside.as_path()
    } else {
        path
    };
    let stem = match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") || e.eq_ignore_ascii_case("svg") => {
            path.with_extension("")
        }
        _ => path.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s = stem.clone().into_os_string();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    };
    Written {
        png: with("png"),
        svg: with("svg"),
    }
}

/// Writes the table's heatmap as PNG and SVG next to `path` (see
/// [`output_paths`]).
pub fn plot_table(t: &Table, title: &str, path: &Path) -> Result<Written, String> {
    let written = output_paths(path);
    write_pictures(t, title, &written)?;
    Ok(written)
}

/// The table's heatmap as SVG text and PNG bytes.
pub fn pictures(t: &Table, title: &str) -> Result<(String, Vec<u8>), String> {
    let chart = Chart::from_table(t, title)?;
    let layout = Layout::new(&chart);
    let png = raster::encode(&chart, &layout).map_err(|e| format!("cannot encode the PNG: {e}"))?;
    Ok((svg::render(&chart, &layout), png))
}

fn write_pictures(t: &Table, title: &str, to: &Written) -> Result<(), String> {
    let (svg, png) = pictures(t, title)?;
    let cant = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    std::fs::write(&to.png, png).map_err(|e| cant(&to.png, e))?;
    std::fs::write(&to.svg, svg).map_err(|e| cant(&to.svg, e))
}

/// Writes the files of a `plot(T, FILE)` value (none without FILE).
pub fn write_plot(p: &crate::eval::value::Plot) -> Result<Option<Written>, String> {
    let Some(file) = &p.file else {
        return Ok(None);
    };
    let (png, svg) = crate::eval::plot::file_names(file);
    let written = Written {
        png: PathBuf::from(png),
        svg: PathBuf::from(svg),
    };
    write_pictures(&p.table, &p.title(), &written)?;
    Ok(Some(written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn table(rows: Vec<Vec<Value>>) -> Table {
        Table {
            row_name: Rc::from("a"),
            col_name: Rc::from("b"),
            row_keys: (0..rows.len() as i64).map(Value::Int).collect(),
            col_keys: (0..rows[0].len() as i64).map(Value::Int).collect(),
            rows,
        }
    }

    #[test]
    fn infinite_cells_have_their_own_colours_and_legend() {
        let inf = |k: Vec<u64>| Value::Infinite(Rc::from(k));
        let t = table(vec![vec![Value::Int(0), inf(vec![0]), inf(vec![1])]]);
        let c = Chart::from_table(&t, "t").unwrap();
        assert_eq!(c.cells[0][1], Cell::Infinite { draw: false });
        assert_eq!(c.cells[0][2], Cell::Infinite { draw: true });
        assert_eq!(c.colour(c.cells[0][1]), INF_N_COLOUR);
        assert_eq!(c.colour(c.cells[0][2]), DRAW_COLOUR);
        assert_eq!(c.colour(Cell::Outcome(Outcome::D)), DRAW_COLOUR);
        let legend: Vec<&str> = legend_loopy(&c).iter().map(|(_, t)| *t).collect();
        assert_eq!(legend, ["inf, 0 in K (N)", "draw (D)"]);
        let finite = Chart::from_table(&table(vec![vec![Value::Int(1)]]), "t").unwrap();
        assert!(legend_loopy(&finite).is_empty());
        let (svg, png) = pictures(&t, "t").unwrap();
        assert!(svg.contains("draw (D)") && !png.is_empty());
    }

    #[test]
    fn p_cells_are_highlighted_and_values_darken() {
        let t = table(vec![vec![Value::Int(0), Value::Int(1), Value::Int(3)]]);
        let c = Chart::from_table(&t, "t").unwrap();
        assert_eq!(c.max, 3);
        assert_eq!(c.colour(Cell::Sg(0)), P_COLOUR);
        assert_eq!(c.colour(Cell::Sg(1)), LIGHT);
        assert_eq!(c.colour(Cell::Sg(3)), DARK);
        assert_eq!(c.colour(Cell::Outcome(Outcome::P)), P_COLOUR);
        assert_eq!(c.colour(Cell::Outcome(Outcome::N)), N_COLOUR);
    }

    #[test]
    fn other_values_are_refused_with_the_cell_named() {
        let t = table(vec![vec![Value::Int(0), Value::list(vec![])]]);
        let e = Chart::from_table(&t, "t").unwrap_err();
        assert!(e.contains("a=0, b=1 is a list `[]`"), "{e}");
    }

    #[test]
    fn empty_and_huge_tables_are_refused() {
        let mut t = table(vec![vec![Value::Int(0)]]);
        t.rows.clear();
        assert!(Chart::from_table(&t, "").unwrap_err().contains("empty"));
        let t = table(vec![vec![Value::Int(0); MAX_SIDE + 1]]);
        assert!(Chart::from_table(&t, "")
            .unwrap_err()
            .contains("at most 4000"));
    }

    #[test]
    fn small_tables_get_large_cells_and_big_ones_small() {
        let small = Chart::from_table(&table(vec![vec![Value::Int(0); 9]; 9]), "").unwrap();
        assert_eq!(Layout::new(&small).cell, 32);
        let big = Chart::from_table(&table(vec![vec![Value::Int(0); 300]; 300]), "").unwrap();
        let l = Layout::new(&big);
        assert_eq!(l.cell, 2);
        assert!(l.col_step >= 12, "keys of 3 digits need room: {l:?}");
        assert_eq!(l.cell_rect(1, 1), (l.grid_x + 2, l.grid_y + 2, 2, 2));
    }

    #[test]
    fn a_directory_gets_the_plot_inside_it() {
        let dir = std::env::temp_dir();
        assert_eq!(output_paths(&dir).png, dir.join("plot.png"));
        assert_eq!(output_paths(&dir).svg, dir.join("plot.svg"));
    }

    #[test]
    fn output_paths_replace_the_extension() {
        let w = output_paths(Path::new("out/ed.png"));
        assert_eq!(w.png, PathBuf::from("out/ed.png"));
        assert_eq!(w.svg, PathBuf::from("out/ed.svg"));
        assert_eq!(output_paths(Path::new("x")).svg, PathBuf::from("x.svg"));
        assert_eq!(
            output_paths(Path::new("x.v2")).png,
            PathBuf::from("x.v2.png")
        );
    }
}
