//! Whether a root reaches a good share of its game's box, told before
//! any graph is built: a breadth-first walk over the box's cells alone (a
//! bit a cell, a queue of cells, each cell's options as runs of cells by
//! `BoxMoves`), about a tenth of what listing a position into a graph
//! costs. The graph is then the whole box from the start, where a
//! breadth-first listing begun and dropped at the same share would pay
//! for those positions twice.

use super::box_moves::BoxMoves;
use super::cell_box::CellBox;
use crate::diag::Fallible;
use crate::eval::compile::KERNEL_FRAME;

/// Whether the cells reached from cell `root` (itself counted) are more
/// than `limit`: a cell `fixed` says is reached but not walked on (its
/// value is known). `frame` holds the static arguments, then room for
/// the coordinates from `first_arg` on. `None` when some cell's options
/// are not runs of cells (`BoxMoves::list_cell`). `check` is called every
/// few thousand cells walked.
pub(crate) fn reaches_more_than(
    moves: &BoxMoves,
    cells: CellBox,
    (frame, first_arg): (&mut [i64; KERNEL_FRAME], usize),
    root: usize,
    limit: usize,
    mut fixed: impl FnMut(&[i64]) -> bool,
    mut check: impl FnMut() -> Fallible<()>,
) -> Fallible<Option<bool>> {
    let n = cells.lo().len();
    let mut seen = vec![0u64; cells.cells().div_ceil(64)];
    let mut queue = vec![root as u32];
    seen[root / 64] |= 1 << (root % 64);
    let mut next = 0;
    while next < queue.len() {
        if queue.len() > limit {
            return Ok(Some(true));
        }
        if next % 4096 == 4095 {
            check()?;
        }
        let u = queue[next] as usize;
        next += 1;
        let coords = &mut frame[first_arg..first_arg + n];
        cells.coords_of(u, coords);
        if u != root && fixed(coords) {
            continue;
        }
        let listed = moves.list_cell(&mut frame[..], &mut |first, step, count| {
            for j in 0..count as isize {
                let c = (first as isize + j * step) as usize;
                if seen[c / 64] >> (c % 64) & 1 == 0 {
                    seen[c / 64] |= 1 << (c % 64);
                    queue.push(c as u32);
                }
            }
        });
        if !listed {
            return Ok(None);
        }
    }
    Ok(Some(queue.len() > limit))
}
