//! Vertex numbers of positions given by `n` integers: read from a dense
//! box of coordinates (an array of numbers indexed like a memo window)
//! where the positions fill it well enough, hashed outside it. The box
//! grows (doubling) to take a position outside it as long as it would
//! hold at least one position in `DENSITY` cells, so a game whose
//! positions fill a region (a board, heaps below a bound) is numbered
//! without hashing, and one whose positions lie far apart costs no more
//! than the hash.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::cell_box::CellBox;
use crate::eval::memo::{words_hash, MAX_COORDS};

/// A cell or key with no number yet.
pub const NEW: u32 = u32::MAX;
/// A cell or key that is not a position (its `where` fails).
pub const NOT_A_POSITION: u32 = u32::MAX - 1;

/// A box grows while it holds at least one position in this many cells,
/// or while it is at most `FREE_CELLS` cells.
const DENSITY: usize = 4;
const FREE_CELLS: usize = 1 << 16;
/// Most cells a box may have (4 bytes each).
const MAX_CELLS: usize = 1 << 30;

/// A position's coordinates as a hash key, hashed to one well-mixed word.
#[derive(Clone, PartialEq, Eq)]
struct Coords(SmallVec<[i64; 4]>);

impl std::hash::Hash for Coords {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(words_hash(&self.0));
    }
}

/// Numbers (or `NOT_A_POSITION`) of positions of `n` coordinates.
pub struct Numbering {
    n: usize,
    /// The box, and the numbers in its cells.
    box_: CellBox,
    cells: Vec<u32>,
    outside: FxHashMap<Coords, u32>,
    /// Positions numbered so far (what a grown box must be dense for).
    numbered: usize,
    /// Whether the box may grow (off: every position is hashed).
    dense: bool,
}

impl Numbering {
    /// A numbering of positions of `n` coordinates; `dense`: whether it
    /// may use a box (off, everything is hashed: to check the box against
    /// the hash).
    pub fn new(n: usize, dense: bool) -> Numbering {
        Numbering {
            n,
            box_: CellBox::empty(n),
            cells: Vec::new(),
            outside: FxHashMap::default(),
            numbered: 0,
            dense: dense && n <= MAX_COORDS,
        }
    }

    /// The cell of `first` and the step between cells of the run of
    /// `len` positions `first + j * step`, when the whole run lies in the
    /// box.
    #[inline]
    pub fn strided(&self, first: &[i64], step: &[i64], len: u64) -> Option<(usize, isize)> {
        self.box_.strided(first, step, len)
    }

    /// The number in the box's cell `cell` (from `strided`).
    #[inline]
    pub fn at(&self, cell: usize) -> u32 {
        self.cells[cell]
    }

    /// The number of `coords`: `NEW` if none yet.
    #[inline]
    pub fn get(&self, coords: &[i64]) -> u32 {
        match self.box_.cell(coords) {
            Some(c) => self.cells[c],
            None if self.outside.is_empty() => NEW,
            None => (self
                .outside
                .get(&Coords(SmallVec::from_slice(coords)))
                .copied())
            .unwrap_or(NEW),
        }
    }

    /// Gives `coords` the number `id` (or marks them `NOT_A_POSITION`).
    pub fn set(&mut self, coords: &[i64], id: u32) {
        if id != NOT_A_POSITION {
            self.numbered += 1;
        }
        if self.box_.cell(coords).is_none() && self.dense {
            self.try_grow(coords);
        }
        match self.box_.cell(coords) {
            Some(c) => self.cells[c] = id,
            None => {
                self.outside
                    .insert(Coords(SmallVec::from_slice(coords)), id);
            }
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        4 * self.cells.capacity() + self.outside.capacity() * (std::mem::size_of::<Coords>() + 5)
    }

    /// Grows the box to take `coords`, doubling each side that must grow,
    /// if it stays dense enough; re-places every number.
    fn try_grow(&mut self, coords: &[i64]) {
        let n = self.n;
        let (mut lo, mut size) = ([0i64; MAX_COORDS], [0u64; MAX_COORDS]);
        lo[..n].copy_from_slice(self.box_.lo());
        size[..n].copy_from_slice(self.box_.size());
        for i in 0..n {
            let c = coords[i];
            if size[i] == 0 {
                (lo[i], size[i]) = (c, 1);
                continue;
            }
            let hi = lo[i] as i128 + size[i] as i128;
            if (c as i128) < lo[i] as i128 {
                let need = (hi - c as i128) as u128;
                let grown = need.max(2 * size[i] as u128);
                let Ok(grown) = u64::try_from(grown) else {
                    return;
                };
                lo[i] = (hi - grown as i128).max(i64::MIN as i128) as i64;
                size[i] = (hi - lo[i] as i128) as u64;
            } else if c as i128 >= hi {
                let need = (c as i128 - lo[i] as i128 + 1) as u128;
                let grown = need.max(2 * size[i] as u128);
                let end = (lo[i] as i128 + grown as i128).min(i64::MAX as i128 + 1);
                size[i] = (end - lo[i] as i128) as u64;
            }
        }
        let room = FREE_CELLS.max(self.numbered.saturating_mul(DENSITY));
        let Some(grown) = CellBox::new(&lo[..n], &size[..n], room.min(MAX_CELLS)) else {
            return;
        };
        // Every number so far, with its coordinates, into the new box.
        let mut all: Vec<(Coords, u32)> = self.outside.drain().collect();
        let mut at = [0i64; MAX_COORDS];
        for (c, &id) in self.cells.iter().enumerate() {
            if id != NEW {
                self.box_.coords_of(c, &mut at);
                all.push((Coords(SmallVec::from_slice(&at[..n])), id));
            }
        }
        self.box_ = grown;
        self.cells = vec![NEW; grown.cells()];
        for (c, id) in all {
            match self.box_.cell(&c.0) {
                Some(cell) => self.cells[cell] = id,
                None => {
                    self.outside.insert(c, id);
                }
            }
        }
    }
}
