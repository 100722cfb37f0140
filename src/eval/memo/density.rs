//! How full a dense window is (`Density`): the pages it has written and
//! the positions in them, kept as it is written, so that a window whose
//! positions turn out to spread thinly can be judged without reading it
//! (`ShapeTable::recheck` then gives its positions to the sparse table).

/// A page of memory: the unit a window's density is counted in.
pub(super) const PAGE: usize = 4096;

/// The pages of one dense window written so far (a bit each) and the
/// positions stored in it.
#[derive(Debug, Default)]
pub(super) struct Density {
    pages: Vec<u64>,
    pub(super) n_pages: usize,
    pub(super) positions: usize,
}

impl Density {
    /// Nothing written yet in a window of `bytes` bytes.
    pub(super) fn new(bytes: usize) -> Density {
        let mut density = Density::default();
        density.grow(bytes);
        density
    }

    /// Counts for a window lengthened to `bytes`, its pages where they
    /// were.
    pub(super) fn grow(&mut self, bytes: usize) {
        let words = bytes.div_ceil(PAGE).div_ceil(64);
        if words > self.pages.len() {
            self.pages.resize(words, 0);
        }
    }

    /// A position stored at byte `i`, where none was.
    #[inline]
    pub(super) fn stored(&mut self, i: usize) {
        self.positions += 1;
        self.page(i / PAGE);
    }

    /// The bytes `at..at + bytes.len()` written with `bytes`.
    pub(super) fn copied(&mut self, at: usize, bytes: &[u8]) {
        self.positions += bytes.iter().filter(|&&b| b != 0).count();
        if bytes.is_empty() {
            return;
        }
        for p in at / PAGE..=(at + bytes.len() - 1) / PAGE {
            self.page(p);
        }
    }

    /// Whether nothing was written in `lo..hi`, at most a page long.
    #[inline]
    pub(super) fn unwritten(&self, lo: usize, hi: usize) -> bool {
        let has = |p: usize| {
            self.pages
                .get(p / 64)
                .is_some_and(|w| w >> (p % 64) & 1 != 0)
        };
        hi - lo <= PAGE && !has(lo / PAGE) && !has((hi - 1) / PAGE)
    }

    #[inline]
    fn page(&mut self, p: usize) {
        let (word, bit) = (p / 64, p % 64);
        if let Some(w) = self.pages.get_mut(word) {
            if *w >> bit & 1 == 0 {
                *w |= 1 << bit;
                self.n_pages += 1;
            }
        }
    }

    /// The pages written, ascending.
    pub(super) fn written(&self) -> impl Iterator<Item = usize> + '_ {
        self.pages.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_positions_are_counted_once() {
        let mut d = Density::new(10 * PAGE);
        d.stored(5);
        d.stored(PAGE + 1);
        d.stored(7);
        d.copied(3 * PAGE - 2, &[1, 0, 0, 4]);
        assert_eq!(d.positions, 5);
        assert_eq!(d.n_pages, 4);
        assert_eq!(d.written().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        // Past the window: not counted as a page.
        d.stored(10 * PAGE + 64 * PAGE);
        assert_eq!(d.n_pages, 4);
    }
}
