//! The kernel's logo (logo-32x32.png, logo-64x64.png in the kernelspec):
//! the heatmap of Nim's a xor b for heaps 0..4, in the colours of
//! grundy's heatmaps, its P-positions (the diagonal) in the P colour.

use crate::report::plot::{Cell, Chart};

/// Heaps 0..SIDE on each axis.
const SIDE: usize = 4;

/// The SG value in the logo's cell (row `a`, column `b`).
pub fn value(a: usize, b: usize) -> i64 {
    (a ^ b) as i64
}

/// The logo as a PNG of `size` x `size` pixels (`size` >= 8).
pub fn png(size: u32) -> Vec<u8> {
    let cells: Vec<Vec<Cell>> = (0..SIDE)
        .map(|a| (0..SIDE).map(|b| Cell::Sg(value(a, b))).collect())
        .collect();
    let chart = Chart {
        title: String::new(),
        row_name: String::new(),
        col_name: String::new(),
        row_labels: Vec::new(),
        col_labels: Vec::new(),
        max: (SIDE - 1) as i64,
        cells,
    };
    // Cells with a one-pixel gap (two at 64 pixels) on a white ground.
    let gap = (size / 32).max(1) as usize;
    let cell = (size as usize - gap) / SIDE;
    let margin = (size as usize - cell * SIDE + gap) / 2;
    let mut rgba = vec![255u8; (size * size * 4) as usize];
    for y in 0..size as usize {
        for x in 0..size as usize {
            let (cx, cy) = (x.wrapping_sub(margin), y.wrapping_sub(margin));
            let inside = cx < cell * SIDE && cy < cell * SIDE;
            if inside && cx % cell < cell - gap && cy % cell < cell - gap {
                let c = chart.colour(chart.cells[cy / cell][cx / cell]);
                let i = (y * size as usize + x) * 4;
                rgba[i..i + 3].copy_from_slice(&c);
            }
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, size, size);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    // Writing to memory cannot fail.
    if let Ok(mut w) = encoder.write_header() {
        let _ = w.write_image_data(&rgba);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::P_COLOUR;

    fn decode(bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        (info, buf)
    }

    #[test]
    fn the_logo_is_nims_heatmap_at_both_sizes() {
        for size in [32u32, 64] {
            let (info, px) = decode(&png(size));
            assert_eq!((info.width, info.height), (size, size));
            let at = |x: u32, y: u32| {
                let i = ((y * size + x) * 4) as usize;
                [px[i], px[i + 1], px[i + 2]]
            };
            // The centre of cell (a, b) is P-coloured exactly when a == b,
            // the P-positions of two-heap Nim.
            let step = size / SIDE as u32;
            for a in 0..SIDE as u32 {
                for b in 0..SIDE as u32 {
                    let c = at(b * step + step / 2, a * step + step / 2);
                    assert_eq!(c == P_COLOUR, a == b, "cell ({a}, {b}) at {size}: {c:?}");
                }
            }
        }
    }
}
