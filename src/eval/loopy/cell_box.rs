//! A box of integer coordinates laid out as an array of cells: coordinate
//! `i` in `lo[i]..lo[i] + size[i]`, the last coordinate innermost (as a
//! memo window). What the numbering's dense box and the graph of a game
//! whose positions fill a box (vertex = cell) index by.

use crate::eval::memo::MAX_COORDS;

#[derive(Clone, Copy)]
pub struct CellBox {
    n: usize,
    lo: [i64; MAX_COORDS],
    size: [u64; MAX_COORDS],
    stride: [usize; MAX_COORDS],
    cells: usize,
}

impl CellBox {
    /// The box of `n` coordinates with these corners and sides; `None`
    /// if it has more than `max_cells` cells (or `n > MAX_COORDS`).
    pub fn new(lo: &[i64], size: &[u64], max_cells: usize) -> Option<CellBox> {
        let n = lo.len();
        if n > MAX_COORDS || size.len() != n {
            return None;
        }
        let mut b = CellBox {
            n,
            lo: [0; MAX_COORDS],
            size: [0; MAX_COORDS],
            stride: [0; MAX_COORDS],
            cells: 1,
        };
        b.lo[..n].copy_from_slice(lo);
        b.size[..n].copy_from_slice(size);
        for i in (0..n).rev() {
            b.stride[i] = b.cells;
            b.cells = b.cells.checked_mul(usize::try_from(size[i]).ok()?)?;
        }
        (b.cells <= max_cells).then_some(b)
    }

    /// An empty box of `n` coordinates (no cell).
    pub fn empty(n: usize) -> CellBox {
        CellBox {
            n: n.min(MAX_COORDS),
            lo: [0; MAX_COORDS],
            size: [0; MAX_COORDS],
            stride: [0; MAX_COORDS],
            cells: 0,
        }
    }

    /// How many cells it has.
    pub fn cells(&self) -> usize {
        self.cells
    }

    pub fn lo(&self) -> &[i64] {
        &self.lo[..self.n]
    }

    pub fn size(&self) -> &[u64] {
        &self.size[..self.n]
    }

    /// How many cells apart two cells are whose coordinate `i` differs by 1.
    pub fn strides(&self) -> &[usize] {
        &self.stride[..self.n]
    }

    /// The cell of `coords`, if they lie in the box.
    #[inline]
    pub fn cell(&self, coords: &[i64]) -> Option<usize> {
        if self.cells == 0 {
            return None;
        }
        let mut at = 0usize;
        let box_ = self.lo.iter().zip(&self.size).zip(&self.stride);
        for (&c, ((&lo, &size), &stride)) in coords[..self.n].iter().zip(box_) {
            let d = c.wrapping_sub(lo) as u64;
            if d >= size {
                return None;
            }
            at += d as usize * stride;
        }
        Some(at)
    }

    /// Writes the coordinates of cell `cell` into `out` (`n` of them).
    #[inline]
    pub fn coords_of(&self, cell: usize, out: &mut [i64]) {
        let mut rest = cell;
        for ((x, &lo), &stride) in out[..self.n].iter_mut().zip(&self.lo).zip(&self.stride) {
            *x = lo + (rest / stride) as i64;
            rest %= stride;
        }
    }

    /// The cell of `first` and the step between cells of the run of
    /// `len` positions `first + j * step`, when the whole run lies in the
    /// box (its ends do: the box is convex).
    #[inline]
    pub fn strided(&self, first: &[i64], step: &[i64], len: u64) -> Option<(usize, isize)> {
        let c0 = self.cell(first)?;
        let mut last = [0i64; MAX_COORDS];
        let mut dc = 0isize;
        for (i, ((&f, &s), l)) in first.iter().zip(step).zip(&mut last).enumerate() {
            *l = f.checked_add(s.checked_mul(len as i64 - 1)?)?;
            // Exact whenever both ends lie in the box (|s| < its side).
            dc = dc.wrapping_add((s as isize).wrapping_mul(self.stride[i] as isize));
        }
        self.cell(&last[..self.n])?;
        Some((c0, dc))
    }
}
