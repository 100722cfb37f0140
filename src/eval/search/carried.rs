//! A swept line's pieces of runs carried from one position to the next
//! (`Carry`). Along a line a bend run's piece often lists the same
//! options at every position, only more of them (W4's quotient piece,
//! `(u, (u + z) / 3, z)` for `u` below `3 * y - z`, as `y` grows): its
//! values are marked in the line's own set, kept apart from the
//! position's stamped one, and each position marks only the options
//! the piece gained. A piece is known again by where its options lie
//! in the window (`PieceWalk`), compared whole, so no move needs to say
//! what it reads; a piece that shrinks, vanishes or lists options the
//! window cannot answer ends the carrying for the rest of the line
//! (the position is then marked again without it).

use std::ops::Range;

use crate::eval::memo::scan::{mark_each, scan, Marks, Strided, Walk};
use crate::eval::memo::{Window, BIG};

/// Where the options of a piece of a run lie in a window as a function
/// of the binding `k`: at `origin + stride * k`, plus `unit * floor((num
/// + a * k) / d)` with a quotient.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct PieceWalk {
    pub origin: usize,
    pub stride: isize,
    pub quot: Option<QuotPart>,
}

/// The quotient coordinate of a `PieceWalk`: `floor((num + a * k) / d)`
/// times `unit`, `a = a_div * d + a_rem`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) struct QuotPart {
    pub unit: isize,
    pub num: i64,
    pub a: i64,
    pub d: i64,
    pub a_div: i64,
    pub a_rem: i64,
}

impl PieceWalk {
    /// Marks the values of the options `ks` (which fit: the run's ends
    /// were checked) in `marks`, those the window cannot answer listed
    /// in `slow`.
    #[inline]
    pub(super) fn scan(
        &self,
        window: &Window<'_>,
        ks: Range<i64>,
        marks: &mut Marks,
        slow: &mut Vec<i64>,
    ) {
        let lo = ks.start;
        let first = (self.origin).wrapping_add_signed(self.stride.wrapping_mul(lo as isize));
        let Some(q) = self.quot else {
            let n = (ks.end - lo) as usize;
            let walk = Strided {
                first,
                stride: self.stride,
                n,
            };
            return scan(window, &walk, ks, marks, slow);
        };
        // From one k to the next the quotient grows by `a_div`, and by one
        // more when the remainder passes `d`.
        let at = q.num + q.a * lo;
        let walk = QuotWalk {
            first: first.wrapping_add((at.div_euclid(q.d) as usize).wrapping_mul(q.unit as usize)),
            step: (self.stride).wrapping_add((q.a_div as isize).wrapping_mul(q.unit)),
            unit: q.unit,
            rem: (at.rem_euclid(q.d), q.a_rem, q.d),
        };
        scan(window, &walk, ks, marks, slow);
    }
}

/// A walk through the window whose index steps by `step`, plus `unit`
/// when the remainder `rem.0` (growing by `rem.1`) passes `rem.2`.
#[derive(Clone, Copy)]
struct QuotWalk {
    first: usize,
    step: isize,
    unit: isize,
    rem: (i64, i64, i64),
}

impl Walk for QuotWalk {
    fn indices(&self, n: usize) -> impl Iterator<Item = usize> {
        let (mut at, (mut r, ra, d)) = (self.first as isize, self.rem);
        let (step, unit) = (self.step, self.unit);
        (0..n).map(move |_| {
            let i = at as usize;
            r += ra;
            let carry = r >= d;
            r -= if carry { d } else { 0 };
            at += step + if carry { unit } else { 0 };
            i
        })
    }

    fn mark_bytes(&self, bytes: &[u8], n: usize, stamp: u32, seen: &mut [u32; 256]) {
        let d = self.rem.2 as usize;
        if n < d.saturating_mul(4) {
            return mark_each(self.indices(n), bytes, stamp, seen);
        }
        // The remainder repeats every `d` options, and so do the index's
        // steps: the options `s + p * d` (phase `s`) are a strided run over
        // `p`, whose index grows by `advance` a period (the remainder
        // passes `d` exactly `ra` times in `d` steps).
        let advance = d as isize * self.step + self.rem.1 as isize * self.unit;
        for (s, first) in self.indices(d).enumerate() {
            let phase = Strided {
                first,
                stride: advance,
                n: (n - s).div_ceil(d),
            };
            phase.mark_bytes(bytes, phase.n, stamp, seen);
        }
    }
}

/// A piece met on the line: where its options lie, and the options
/// whose values the line's set holds (`None`: met once, marked in the
/// position's set only).
struct Piece {
    walk: PieceWalk,
    marked: Option<Range<i64>>,
    /// Met at the current position.
    met: bool,
}

/// More pieces than this on one line: not carried (a line's runs have
/// a few pieces each).
const MAX_PIECES: usize = 16;

/// Pieces shorter than this are marked per position: carrying them
/// costs more than their marks (W4's pieces at N = 60, measured). A
/// piece the line carries only grows, so it is never this short.
const SHORTEST_CARRIED: i64 = 64;

/// The pieces of a swept line's runs carried from one position to the
/// next, and the values they hold.
#[derive(Default)]
pub(super) struct Carry {
    /// Set while a position of a line is valued on its kernel
    /// (`swept_line.rs`), off everywhere else.
    on: bool,
    /// The line's carrying ended: its next positions mark every option.
    refused: bool,
    /// The line's set holds a value that is not an option's of the
    /// current position (a piece shrank, changed or vanished): the
    /// position must be marked again without it.
    broken: bool,
    /// Some piece is carried: the line's set takes part in the mex.
    holds: bool,
    marks: Marks,
    pieces: Vec<Piece>,
}

impl Carry {
    /// Forgets the line: the next position starts a new one, carrying
    /// pieces if `allowed` (`Plans::carried_pieces`).
    pub(super) fn new_line(&mut self, allowed: bool) {
        self.marks.start();
        self.pieces.clear();
        self.refused = !allowed;
        self.broken = false;
        self.holds = false;
    }

    /// Starts a position of the line.
    #[inline]
    pub(super) fn start(&mut self) {
        self.on = !self.refused;
    }

    /// Off till the next position of a line.
    #[inline]
    pub(super) fn pause(&mut self) {
        self.on = false;
    }

    /// Ends the position's marking: false where the line's set holds a
    /// value that is not the position's (a carried piece not met again
    /// whole); the carrying is then refused for the rest of the line and
    /// the position is to be marked again. Pieces met once but not at
    /// this position are forgotten.
    #[inline]
    pub(super) fn finish(&mut self) -> bool {
        if !self.on {
            return true;
        }
        let mut broken = self.broken;
        self.pieces.retain_mut(|p| {
            broken |= p.marked.is_some() && !p.met;
            let keep = p.met;
            p.met = false;
            keep
        });
        if broken {
            self.new_line(false);
            self.on = false;
            return false;
        }
        true
    }

    /// Marks the options `ks` of the piece `walk`: in the position's set
    /// `seen` off a line, or where the piece is new to it or short; else
    /// in the line's set, only the options it did not hold. Options the
    /// window cannot answer go to `slow`, and end the carrying after this
    /// position (their values are marked in the position's set).
    #[inline]
    pub(super) fn scan(
        &mut self,
        window: &Window<'_>,
        (walk, ks): (PieceWalk, Range<i64>),
        seen: &mut Marks,
        slow: &mut Vec<i64>,
    ) {
        if !self.on || ks.end - ks.start < SHORTEST_CARRIED {
            return walk.scan(window, ks, seen, slow);
        }
        let Some(p) = (self.pieces.iter_mut()).find(|p| !p.met && p.walk == walk) else {
            if self.pieces.len() >= MAX_PIECES {
                self.refused = true;
            } else {
                self.pieces.push(Piece {
                    walk,
                    marked: None,
                    met: true,
                });
            }
            return walk.scan(window, ks, seen, slow);
        };
        p.met = true;
        self.holds = true;
        let before = slow.len();
        match p.marked.replace(ks.clone()) {
            None => walk.scan(window, ks, &mut self.marks, slow),
            Some(m) if ks.start <= m.start && m.end <= ks.end => {
                if ks.start < m.start {
                    walk.scan(window, ks.start..m.start, &mut self.marks, slow);
                }
                if m.end < ks.end {
                    walk.scan(window, m.end..ks.end, &mut self.marks, slow);
                }
            }
            Some(_) => {
                self.broken = true;
                walk.scan(window, ks, seen, slow);
            }
        }
        // Looked up one by one into the position's set: the line's lacks them.
        self.refused |= slow.len() > before;
    }

    /// The least value marked in neither `seen` nor, while the line
    /// carries pieces, the line's set.
    pub(super) fn mex(&self, seen: &Marks) -> u64 {
        if !(self.on && self.holds) {
            return seen.mex();
        }
        let ((a, sa), (b, sb)) = (seen.slots(), self.marks.slots());
        // As `Marks::mex`: eight slots at a time without a branch, values
        // below `BIG - 4` at slots 4.., the larger ones from 256 on (both
        // sets have at least `SCANNED_SLOTS`).
        let first_free = |from: usize, to: usize| {
            let (a, b) = (&a[from..to.min(a.len())], &b[from..to.min(b.len())]);
            let both = a.len().min(b.len());
            let mut i = 0;
            while i + 8 <= both {
                let (x, y) = (&a[i..i + 8], &b[i..i + 8]);
                let all = (0..8).fold(true, |all, j| all & ((x[j] == sa) | (y[j] == sb)));
                if !all {
                    break;
                }
                i += 8;
            }
            // The rest one by one, past the shorter set too.
            let marked = |i: usize| (a.get(i) == Some(&sa)) | (b.get(i) == Some(&sb));
            while from + i < to && marked(i) {
                i += 1;
            }
            i
        };
        let small = (BIG - 4) as usize;
        let m = first_free(4, 4 + small);
        if m < small {
            return m as u64;
        }
        let end = seen.marked_len().max(self.marks.marked_len()).max(256);
        (small + first_free(256, end)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mex of the position's set and the line's is the mex of one set
    /// holding both, whichever holds which values, small or past `BIG`.
    #[test]
    fn the_mex_of_two_sets_is_the_mex_of_their_union() {
        let mut seed = 7u64;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for round in 0..400 {
            let top = [8, 40, 300, 700][round % 4];
            let (mut seen, mut carry, mut union) =
                (Marks::default(), Carry::default(), Marks::default());
            seen.start();
            union.start();
            carry.on = round % 5 != 0;
            carry.holds = carry.on;
            // Sometimes every value below a bound, so that the mex is large.
            let dense = next(3) == 0;
            for i in 0..next(2 * top) {
                let v = if dense { i % top } else { next(top) };
                match (next(2) == 0, carry.on) {
                    (true, true) => carry.marks.add(v),
                    _ => seen.add(v),
                }
                union.add(v);
            }
            assert_eq!(carry.mex(&seen), union.mex(), "round {round}");
        }
    }
}
