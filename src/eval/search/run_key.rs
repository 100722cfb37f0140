//! The buffers of `key_run.rs` kept in the sink between runs (`RunScratch`):
//! the key of a run's options and where its runs lie in the window.

use super::sorted_parts::{Runs, OUTSIDE};
use crate::eval::compile::{KeyFrame, KeyRun, Locals, OptionKey, RunArg, Seq};
use crate::eval::memo::scan::{Column, Strided};
use crate::eval::memo::{Tag, Window, MAX_COORDS};
use crate::ir::ir::Slot;

/// The options of a `KeyRun` for one setting of the outer bindings: their
/// key with the list's coordinates left open, and the affine coefficients.
/// Kept in the sink between runs (`RunScratch`): written in place, never
/// moved.
pub(super) struct RunKey {
    pub(super) out: OptionKey,
    pub(super) coefs: [i64; MAX_COORDS],
    /// The sorted list's other items, ascending.
    rest: [i64; MAX_COORDS],
    /// Where the list starts among the coordinates and how many other
    /// items it has.
    list: Option<(usize, usize)>,
    /// `k` equal to another item gives no position (`KeyRun::distinct`).
    skip_repeats: bool,
    /// Some coefficient is not 0.
    pub(super) affine: bool,
}

impl RunKey {
    /// Writes the key of `run`'s options; `None` if some code needs the
    /// general path.
    pub(super) fn write(&mut self, run: &KeyRun, frame: &KeyFrame) -> Option<()> {
        self.out.len = 0;
        self.out.shape = 0;
        self.out.n_args = 0;
        self.list = None;
        self.skip_repeats = run.skips_repeats();
        // Coefficients are 0 but where an affine argument puts one: only
        // those are cleared.
        if self.affine {
            self.coefs = [0; MAX_COORDS];
            self.affine = false;
        }
        for arg in &run.args {
            let start = self.out.len;
            match arg {
                RunArg::Fixed(a) => a.write(frame, &mut self.out)?,
                RunArg::Affine(base, coef) => {
                    self.out.push(base.eval(frame)?)?;
                    self.out.end(Tag::Int)?;
                    self.coefs[start] = *coef;
                    self.affine = true;
                }
                RunArg::SortedUpdate { list, index } => {
                    let n_rest = sorted_rest(frame, *list, index.eval(frame), &mut self.rest)?;
                    for _ in 0..=n_rest {
                        self.out.push(0)?;
                    }
                    self.out.end(Tag::List(n_rest as u32 + 1))?;
                    self.list = Some((start, n_rest));
                }
                RunArg::Items(items) => {
                    let (seq, xs) = frame.items(items.list)?;
                    // A set updated is a set again, sorted anew: not here.
                    if seq == Seq::Set {
                        return None;
                    }
                    for &x in xs {
                        self.out.push(x)?;
                    }
                    for (index, base, coef) in &items.updates {
                        let i = usize::try_from(index.eval(frame)?).ok()?;
                        if i >= xs.len() {
                            return None;
                        }
                        self.out.coords[start + i] = base.eval(frame)?;
                        self.coefs[start + i] = *coef;
                        self.affine |= *coef != 0;
                    }
                    let n = xs.len() as u32;
                    self.out.end(match seq {
                        Seq::Tuple => Tag::Tuple(n),
                        _ => Tag::List(n),
                    })?;
                }
            }
        }
        Some(())
    }

    /// How many runs: one per place of `k` in the list.
    pub(super) fn places(&self) -> usize {
        self.list.map_or(1, |(_, n_rest)| n_rest + 1)
    }

    /// The part of `a..b` where `k` is item `j` of the list:
    /// `rest[j - 1] < k <= rest[j]` (at `k == rest[j]` the list repeats
    /// an item: the game's `where` decides, through `lookup`, unless it is
    /// known to say no).
    #[inline]
    pub(super) fn bounds(&self, j: usize, a: i64, b: i64) -> (i64, i64) {
        let Some((_, n_rest)) = self.list else {
            return (a, b);
        };
        let lo = match j {
            0 => a,
            _ => a.max(self.rest[j - 1].saturating_add(1)),
        };
        let hi = match j < n_rest {
            true => b.min(self.rest[j].saturating_add(!self.skip_repeats as i64)),
            false => b,
        };
        (lo, hi)
    }

    /// The bases and coefficients of the options of place `j`, for the
    /// options looked up one by one.
    pub(super) fn place(&self, j: usize) -> ([i64; MAX_COORDS], [i64; MAX_COORDS]) {
        let (mut bases, mut coefs) = (self.out.coords, self.coefs);
        if let Some((start, n_rest)) = self.list {
            for p in 0..=n_rest {
                bases[start + p] = match p.cmp(&j) {
                    std::cmp::Ordering::Less => self.rest[p],
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Greater => self.rest[p - 1],
                };
                coefs[start + p] = (p == j) as i64;
            }
        }
        (bases, coefs)
    }
}

/// Where the runs of a `RunKey` lie in one layout of the dense window,
/// computed once for all its places: a place is then a few operations.
pub(super) struct Placement {
    /// Index and stride of the coordinates outside the list (their sum
    /// wraps: only the whole index lies in the window).
    base: usize,
    stride: isize,
    /// Affine coordinates (coefficient not 0) outside the list, checked
    /// per run: `(base, coef, end)`.
    varying: [(i64, i64, u64); MAX_COORDS],
    n_varying: usize,
    /// For place `j` of `k`: the index of the list's other items (`rest[q]`
    /// is coordinate `start + q` for `q < j`, `start + q + 1` after), with
    /// `OUTSIDE` or more if one lies outside the window; and the extent
    /// and stride of `k`'s coordinate.
    items: [usize; MAX_COORDS],
    k_place: [(u64, usize); MAX_COORDS],
}

impl Placement {
    /// False if the window has another number of coordinates or a fixed
    /// coordinate lies outside it (every run then goes one by one).
    pub(super) fn set(&mut self, w: &Window<'_>, key: &RunKey) -> bool {
        let n = key.out.len;
        if w.n_coords() != n {
            return false;
        }
        (self.base, self.stride, self.n_varying) = (0, 0, 0);
        let (start, end) = key
            .list
            .map_or((n, n), |(start, n_rest)| (start, start + n_rest + 1));
        for c in (0..start).chain(end..n) {
            let (end, step) = w.place(c);
            let (base, coef) = (key.out.coords[c], key.coefs[c]);
            if coef == 0 {
                if base as u64 >= end {
                    return false;
                }
                self.base = self.base.wrapping_add(base as usize * step);
            } else {
                self.varying[self.n_varying] = (base, coef, end);
                self.n_varying += 1;
                let (base, step) = (base as usize, step as isize);
                self.base = self.base.wrapping_add(base.wrapping_mul(step as usize));
                self.stride = self.stride.wrapping_add((coef as isize).wrapping_mul(step));
            }
        }
        if let Some((start, n_rest)) = key.list {
            // The items from `j` on one coordinate up, then those before
            // `j` at their own. An item outside the window adds `OUTSIDE`
            // (far above any index, and at most 16 of them: no overflow).
            let (ends, strides) = w.layout();
            let (ends, strides) = (
                &ends[start..=start + n_rest],
                &strides[start..=start + n_rest],
            );
            let rest = &key.rest[..n_rest];
            let at = |x: i64, c: usize| match x as u64 >= ends[c] {
                false => x as usize * strides[c],
                true => OUTSIDE,
            };
            let mut up = 0;
            self.items[n_rest] = 0;
            for (q, &x) in rest.iter().enumerate().rev() {
                up += at(x, q + 1);
                self.items[q] = up;
            }
            let mut own = 0;
            for (j, (&e, &s)) in ends.iter().zip(strides).enumerate() {
                self.items[j] += own;
                self.k_place[j] = (e, s);
                if let Some(&x) = rest.get(j) {
                    own += at(x, j);
                }
            }
        }
        true
    }

    /// The first index and the stride of the run `lo..hi` (not empty) at
    /// place `j`, if every option lies in the window.
    #[inline]
    pub(super) fn run(&self, key: &RunKey, j: usize, lo: i64, hi: i64) -> Option<(usize, isize)> {
        for &(base, coef, end) in &self.varying[..self.n_varying] {
            // `affine_fits` held over the whole range: no overflow here.
            let (at_lo, at_hi) = (base + coef * lo, base + coef * (hi - 1));
            if (at_lo as u64).max(at_hi as u64) >= end {
                return None;
            }
        }
        let mut index = self
            .base
            .wrapping_add(self.stride.wrapping_mul(lo as isize) as usize);
        let mut stride = self.stride;
        if key.list.is_some() {
            let ((end, step), items) = (self.k_place[j], self.items[j]);
            if items >= OUTSIDE || (lo as u64).max((hi - 1) as u64) >= end {
                return None;
            }
            index = index.wrapping_add(items + lo as usize * step);
            stride = stride.wrapping_add(step as isize);
        }
        Some((index, stride))
    }
}

/// The sink's buffers for `key_run`, boxed: taken out and put back, not
/// moved.
pub(super) struct RunScratch {
    pub(super) key: RunKey,
    pub(super) placement: Placement,
    /// The runs of one setting of the outer bindings in the window, to
    /// scan at once.
    pub(super) strided: [Strided; MAX_COORDS],
    /// The runs of a sorted list's settings (`sorted_run.rs`), to scan
    /// at once, in a window laid out by coordinates or by rank.
    pub(super) sorted_runs: Runs<Strided>,
    pub(super) ranked_runs: Runs<Column>,
}

impl Default for RunScratch {
    fn default() -> RunScratch {
        RunScratch {
            key: RunKey {
                out: OptionKey::default(),
                coefs: [0; MAX_COORDS],
                rest: [0; MAX_COORDS],
                list: None,
                skip_repeats: false,
                affine: false,
            },
            placement: Placement {
                base: 0,
                stride: 0,
                varying: [(0, 0, 0); MAX_COORDS],
                n_varying: 0,
                items: [0; MAX_COORDS],
                k_place: [(0, 0); MAX_COORDS],
            },
            strided: [Strided::default(); MAX_COORDS],
            sorted_runs: Runs::new(),
            ranked_runs: Runs::new(),
        }
    }
}

/// Puts the items but the `i`-th of the list or tuple in `slot` into
/// `rest`, ascending, and gives their number; `None` if the slot holds no
/// list or tuple, or `i` is out of range (the general path reports it).
fn sorted_rest(
    frame: &KeyFrame,
    slot: Slot,
    i: Option<i64>,
    rest: &mut [i64; MAX_COORDS],
) -> Option<usize> {
    let (seq, xs) = frame.items(slot)?;
    let i = usize::try_from(i?).ok()?;
    if seq == Seq::Set || i >= xs.len() {
        return None;
    }
    let n = xs.len() - 1;
    // Item by item: lists are short, and `copy_from_slice` calls `memcpy`.
    for (q, r) in rest[..n].iter_mut().enumerate() {
        *r = xs[q + (q >= i) as usize];
    }
    // Positions kept sorted (the usual case) need no sorting.
    if !rest[..n].is_sorted() {
        rest[..n].sort_unstable();
    }
    Some(n)
}
