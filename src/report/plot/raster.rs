//! The chart as a PNG: an RGB pixel buffer with labels in an 8x8 bitmap
//! font, encoded by the `png` crate.

use font8x8::{UnicodeFonts, BASIC_FONTS, GREEK_FONTS, LATIN_FONTS};

use super::{
    legend_loopy, legend_ramp, legend_ramp_text, text_on, title_text, Chart, Layout, BACKGROUND,
    CHAR, INK, LEGEND_P, LEGEND_SWATCH, P_COLOUR,
};

struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Canvas {
        let mut pixels = Vec::with_capacity((width * height * 3) as usize);
        for _ in 0..width * height {
            pixels.extend_from_slice(&BACKGROUND);
        }
        Canvas {
            width,
            height,
            pixels,
        }
    }

    fn fill(&mut self, x: u32, y: u32, w: u32, h: u32, colour: [u8; 3]) {
        for yy in y..(y + h).min(self.height) {
            for xx in x..(x + w).min(self.width) {
                let i = ((yy * self.width + xx) * 3) as usize;
                self.pixels[i..i + 3].copy_from_slice(&colour);
            }
        }
    }

    /// Draws `text` with its top-left corner at (x, y), each font pixel
    /// `scale` pixels wide.
    fn text(&mut self, x: u32, y: u32, text: &str, colour: [u8; 3], scale: u32) {
        for (k, c) in text.chars().enumerate() {
            let glyph = BASIC_FONTS
                .get(c)
                .or_else(|| GREEK_FONTS.get(c))
                .or_else(|| LATIN_FONTS.get(c))
                .or_else(|| BASIC_FONTS.get('?'))
                .unwrap_or([0; 8]);
            let gx = x + k as u32 * CHAR * scale;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        self.fill(
                            gx + col * scale,
                            y + row as u32 * scale,
                            scale,
                            scale,
                            colour,
                        );
                    }
                }
            }
        }
    }

    /// Draws `text` one character under another (a vertical axis name).
    fn text_down(&mut self, x: u32, y: u32, text: &str, colour: [u8; 3]) {
        for (k, c) in text.chars().enumerate() {
            self.text(x, y + k as u32 * (CHAR + 1), &c.to_string(), colour, 1);
        }
    }
}

fn text_width(text: &str) -> u32 {
    text.chars().count() as u32 * CHAR
}

/// Draws the chart and encodes it as PNG bytes.
pub fn encode(chart: &Chart, layout: &Layout) -> Result<Vec<u8>, png::EncodingError> {
    let canvas = draw(chart, layout);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, canvas.width, canvas.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&canvas.pixels)?;
    writer.finish()?;
    Ok(out)
}

fn draw(chart: &Chart, l: &Layout) -> Canvas {
    let mut c = Canvas::new(l.width, l.height);
    c.text(
        l.row_name_x,
        l.title_y,
        &title_text(&chart.title),
        INK,
        l.title_scale,
    );
    // Axis names: the column name centred over the grid, the row name
    // down the left side, level with the middle of the grid.
    let grid_w = chart.cols() as u32 * l.cell;
    let grid_h = chart.rows() as u32 * l.cell;
    let name_w = text_width(&chart.col_name);
    c.text(
        l.grid_x + grid_w.saturating_sub(name_w) / 2,
        l.col_name_y,
        &chart.col_name,
        INK,
        1,
    );
    let name_h = chart.row_name.chars().count() as u32 * (CHAR + 1);
    c.text_down(
        l.row_name_x,
        l.grid_y + grid_h.saturating_sub(name_h) / 2,
        &chart.row_name,
        INK,
    );
    for (j, label) in chart.col_labels.iter().enumerate() {
        if j % l.col_step == 0 {
            let (x, _, w, _) = l.cell_rect(0, j);
            let lw = text_width(label);
            let lx = (x + w / 2)
                .saturating_sub(lw / 2)
                .max(l.grid_x.saturating_sub(4));
            c.text(lx, l.col_keys_y, label, INK, 1);
        }
    }
    for (i, label) in chart.row_labels.iter().enumerate() {
        if i % l.row_step == 0 {
            let (_, y, _, h) = l.cell_rect(i, 0);
            let lx = l.grid_x - 6 - text_width(label);
            let ly = (y + h / 2).saturating_sub(CHAR / 2);
            c.text(lx, ly, label, INK, 1);
        }
    }
    for (i, row) in chart.cells.iter().enumerate() {
        for (j, &cell) in row.iter().enumerate() {
            let (x, y, w, h) = l.cell_rect(i, j);
            let fill = chart.colour(cell);
            c.fill(x, y, w, h, fill);
            let text = cell.text();
            if l.cell_text_fits(&text) {
                let tx = x + (w - text_width(&text)) / 2;
                let ty = y + (h - CHAR) / 2;
                c.text(tx, ty, &text, text_on(fill), 1);
            }
        }
    }
    draw_legend(&mut c, chart, l);
    c
}

fn draw_legend(c: &mut Canvas, chart: &Chart, l: &Layout) {
    let y = l.legend_y;
    let mut x = l.row_name_x;
    c.fill(x, y, LEGEND_SWATCH, LEGEND_SWATCH, P_COLOUR);
    x += LEGEND_SWATCH + 6;
    c.text(x, y + 2, LEGEND_P, INK, 1);
    x += text_width(LEGEND_P) + 24;
    for colour in legend_ramp(chart) {
        c.fill(x, y, LEGEND_SWATCH, LEGEND_SWATCH, colour);
        x += LEGEND_SWATCH;
    }
    let text = legend_ramp_text(chart);
    c.text(x + 6, y + 2, &text, INK, 1);
    x += 6 + text_width(&text);
    for (colour, text) in legend_loopy(chart) {
        x += 24;
        c.fill(x, y, LEGEND_SWATCH, LEGEND_SWATCH, colour);
        x += LEGEND_SWATCH + 6;
        c.text(x, y + 2, text, INK, 1);
        x += text_width(text);
    }
}
