//! Where the items of a position's sorted list lie in the memo's window
//! (`SortedParts`), computed once per position for `sorted_run.rs`.

use super::scan::Strided;
use crate::eval::compile::{Instance, KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::{shape_push, Shape, Tag, MAX_COORDS};

/// Set in the part of an item that lies outside the window: dense
/// windows have at most 2^30 bytes, so no index has it, and a sum of at
/// most 16 such parts does not overflow.
pub(super) const OUTSIDE: usize = 1 << (usize::BITS - 8);

/// The most runs `SortedParts` keeps: a place for each item, for each
/// setting.
const MAX_RUNS: usize = MAX_COORDS * MAX_COORDS;

/// Where the items of a position's list lie in the memo's window of the
/// options' shape, computed once for every setting of the outer bindings
/// of a move on one position (`stale` at their start), and again after
/// the general runs looked options up (which may lay the window out anew).
pub(super) struct SortedParts {
    /// Computed for the current position and layout.
    pub(super) ready: bool,
    /// The run and the list have the form, and the window has one
    /// coordinate per item.
    pub(super) usable: bool,
    pub(super) n: usize,
    /// The options' shape: a list of `n` items.
    pub(super) shape: Shape,
    /// The list is ascending: every `rest` is too.
    sorted: bool,
    pub(super) xs: [i64; MAX_COORDS],
    /// Where the places next to item `p` start and end: `xs[p] + 1`, and
    /// `xs[p]` (`k` equal to it skipped, `KeyRun::distinct`) or
    /// `xs[p] + 1` (looked up in its run).
    after: [i64; MAX_COORDS],
    before: [i64; MAX_COORDS],
    bits: [u8; MAX_COORDS],
    strides: [usize; MAX_COORDS],
    /// For item `i` moving, `k` at place 0: the items before `i` one
    /// coordinate up, those after at their own (`OUTSIDE` added for each
    /// outside the window).
    first: [usize; MAX_COORDS],
    /// From one place to the next, item `q` moves one coordinate down:
    /// the change of the index, for `q` before the moving item (from
    /// coordinate `q + 1` to `q`) and after it (from `q` to `q - 1`).
    down_before: [usize; MAX_COORDS],
    down_after: [usize; MAX_COORDS],
    /// The runs of one setting, or of all (at most `MAX_COORDS` of them),
    /// scanned at once: the first `n_runs`.
    pub(super) runs: [Strided; MAX_RUNS],
    pub(super) n_runs: usize,
}

impl SortedParts {
    /// Parts to compute on first use.
    pub(super) fn new() -> SortedParts {
        SortedParts {
            ready: false,
            usable: false,
            n: 0,
            shape: 0,
            sorted: false,
            xs: [0; MAX_COORDS],
            after: [0; MAX_COORDS],
            before: [0; MAX_COORDS],
            bits: [0; MAX_COORDS],
            strides: [0; MAX_COORDS],
            first: [0; MAX_COORDS],
            down_before: [0; MAX_COORDS],
            down_after: [0; MAX_COORDS],
            runs: [Strided::default(); MAX_RUNS],
            n_runs: 0,
        }
    }

    /// To compute again: another position, or the memo may have been
    /// laid out anew.
    pub(super) fn stale(&mut self) {
        self.ready = false;
    }

    /// Computes the parts of the items of `run`'s list.
    pub(super) fn set(&mut self, inst: &Instance, run: &KeyRun, frame: &KeyFrame) {
        self.ready = true;
        self.usable = false;
        let [RunArg::SortedUpdate { list, .. }] = &run.args[..] else {
            return;
        };
        let Some((seq, xs)) = frame.items(*list) else {
            return;
        };
        let n = xs.len();
        if seq == Seq::Set || n == 0 || n > MAX_COORDS {
            return;
        }
        let Some(shape) = shape_push(0, 0, Tag::List(n as u32)) else {
            return;
        };
        let memo = inst.memo.borrow();
        let Some(w) = memo.window(shape).filter(|w| w.n_coords() == n) else {
            return;
        };
        let (bits, strides) = w.layout();
        let (bits, strides) = (&bits[..n], &strides[..n]);
        // `x` at coordinate `c`.
        let at = |x: i64, c: usize| match (x as u64) >> bits[c] {
            0 => x as usize * strides[c],
            _ => OUTSIDE,
        };
        let repeat = !run.distinct as i64;
        let mut own = [0usize; MAX_COORDS];
        let mut ups = 0usize;
        for (p, &x) in xs.iter().enumerate() {
            self.after[p] = x.saturating_add(1);
            self.before[p] = x.saturating_add(repeat);
            // Item `p` before the moving one goes from `p + 1` down to `p`
            // (the last item is never before it); after it, from `p` to
            // `p - 1` (the first is never after it).
            own[p] = at(x, p);
            let up = if p + 1 < n { at(x, p + 1) } else { 0 };
            self.down_before[p] = own[p].wrapping_sub(up);
            self.down_after[p] = if p > 0 {
                at(x, p - 1).wrapping_sub(own[p])
            } else {
                0
            };
            self.first[p] = ups;
            ups = ups.wrapping_add(up);
        }
        let mut owns = 0usize;
        for p in (0..n).rev() {
            self.first[p] = self.first[p].wrapping_add(owns);
            owns = owns.wrapping_add(own[p]);
        }
        // Item by item: lists are short, and `copy_from_slice` calls
        // `memcpy`.
        for c in 0..n {
            (self.xs[c], self.bits[c], self.strides[c]) = (xs[c], bits[c], strides[c]);
        }
        self.sorted = xs.is_sorted();
        self.n = n;
        self.shape = shape;
        self.usable = true;
    }

    /// Adds the runs of `k` in `a..b` (not empty) for item `i` moving to
    /// `runs`; `None` if `i` is out of range, the other items are not in
    /// order, or some option lies outside the window.
    #[inline]
    pub(super) fn place(&mut self, i: usize, (a, b): (i64, i64)) -> Option<()> {
        let n = self.n.min(MAX_COORDS);
        if i >= n {
            return None;
        }
        // The other items, in order: `rest[j]` is `xs[j + (j >= i)]`.
        let at = |j: usize| j + (j >= i) as usize;
        if !self.sorted && !(1..n - 1).all(|j| self.xs[at(j - 1)] <= self.xs[at(j)]) {
            return None;
        }
        // Place `j`, `k` between `rest[j - 1]` and `rest[j]`: `rest[q]` at
        // coordinate `q` for `q < j`, `q + 1` after. Place 0 first.
        let mut items = self.first[i];
        let (mut j, mut lo) = (0, a);
        while j + 1 < n {
            let q = at(j);
            let hi = b.min(self.before[q]);
            if lo < hi {
                self.push_run(items, j, (lo, hi))?;
            }
            lo = a.max(self.after[q]);
            // The later places start higher still: no option there (for
            // Welter's game, every place past the moving coin's own).
            if lo >= b {
                return Some(());
            }
            // The next place: `rest[j]` one coordinate down.
            items = items.wrapping_add(match q < i {
                true => self.down_before[q],
                false => self.down_after[q],
            });
            j += 1;
        }
        self.push_run(items, j, (lo, b))
    }

    /// Adds the run `lo..hi` (not empty) at place `j` whose other items
    /// make `items`; `None` if some option lies outside the window.
    #[inline]
    fn push_run(&mut self, items: usize, j: usize, (lo, hi): (i64, i64)) -> Option<()> {
        let (bits, step) = (self.bits[j], self.strides[j]);
        if items >= OUTSIDE || ((lo | (hi - 1)) as u64) >> bits != 0 {
            return None;
        }
        *self.runs.get_mut(self.n_runs)? = Strided {
            first: items + lo as usize * step,
            stride: step as isize,
            n: (hi - lo) as usize,
        };
        self.n_runs += 1;
        Some(())
    }
}
