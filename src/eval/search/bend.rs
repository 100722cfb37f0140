//! Kernel runs whose per-option arguments are `Bend`s, piecewise
//! floor-affine in the binding (`min(F(u, z), y)` with `F(u, z) = (u + z) /
//! 3`, or `min(2 * k, max(n - k, 1))` whose bound moves with `k`): the run
//! is split where a clamp switches sides, and each piece is
//! read from the memo's window like an affine run, with at most one
//! coordinate that is a quotient, stepped by a remainder counter. This
//! replaces the batched code and the gathered reads (`kernel_per_option`)
//! with a strided walk; a run that does not fit it (overflow, two
//! quotients in one piece) goes there instead.

use std::ops::Range;

use super::engine::SgSink;
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, BatchCode, Bend, Env, Instance, Limit};
use crate::eval::memo::scan::{mark_each, Strided, Walk};
use crate::eval::memo::{Window, MAX_ARGS};
use smallvec::SmallVec;

/// An argument over a piece: `floor((num + a * k) / d)`, `d > 0`, with
/// `a = a_div * d + a_rem` (`0 <= a_rem < d`, from `Bend`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Quot {
    num: i64,
    a: i64,
    d: i64,
    a_div: i64,
    a_rem: i64,
}

impl Quot {
    fn at(self, k: i64) -> i64 {
        // The piece's ends fit (checked in `piece`), so every k between.
        (self.num + self.a * k).div_euclid(self.d)
    }
}

/// A piece of a run: its options, the affine arguments (the quotient's
/// coordinate 0 there) and the quotient argument, if any.
struct Piece {
    ks: Range<i64>,
    bases: [i64; MAX_ARGS as usize],
    coefs: [i64; MAX_ARGS as usize],
    quot: Option<(usize, Quot)>,
}

impl Piece {
    fn coords(&self, k: i64, out: &mut [i64]) {
        for ((x, &base), &coef) in out.iter_mut().zip(&self.bases).zip(&self.coefs) {
            *x = base + coef * k;
        }
        if let Some((c, q)) = self.quot {
            out[c] = q.at(k);
        }
    }
}

/// A clamp's `Limit` evaluated on a frame: `base + coef * k`, clamped
/// (`min`, bound).
#[derive(Clone, Copy)]
struct Line {
    base: i64,
    coef: i64,
    clamp: Option<(bool, i64)>,
}

impl Line {
    /// `limit` on the frame `ints`, if its code runs and it fits over
    /// `lo..hi`.
    fn of(limit: &Limit, ints: &[i64], (lo, hi): (i64, i64)) -> Option<Line> {
        let clamp = match &limit.clamp {
            Some((min, c)) => Some((*min, c.eval(ints)?)),
            None => None,
        };
        let (base, coef) = (limit.base.eval(ints)?, limit.coef);
        // At both ends, so over the run (affine).
        if coef != 0 {
            coef.checked_mul(lo)?.checked_add(base)?;
            coef.checked_mul(hi - 1)?.checked_add(base)?;
        }
        Some(Line { base, coef, clamp })
    }

    /// The affine piece (base, coefficient) the line follows at `k`.
    fn piece_at(self, k: i64) -> (i64, i64) {
        match self.clamp {
            Some((min, c)) if (self.base + self.coef * k >= c) == min => (c, 0),
            _ => (self.base, self.coef),
        }
    }
}

/// A bend evaluated on a frame: its coordinate, its quotient, and its
/// clamp (`min`, bound).
type Evaluated = (usize, Quot, Option<(bool, Line)>);

/// Pushes to `cuts` the points of `lo..hi` where the sides of the clamp
/// of `q` by `line` may change: `q` against the line's affine part, the
/// line against its own bound, `q` against that bound. `None` on
/// overflow.
fn clamp_cuts(q: Quot, line: Line, (lo, hi): (i64, i64), cuts: &mut Cuts) -> Option<()> {
    let mut at = [None; 3];
    at[0] = match line.coef {
        0 => cut((q.num, q.a, q.d), line.base)?,
        // q >= base + coef * k  <=>  floor((num - base * d + (a - coef * d) * k) / d) >= 0.
        coef => {
            let num = q.num.checked_sub(line.base.checked_mul(q.d)?)?;
            cut((num, q.a.checked_sub(coef.checked_mul(q.d)?)?, q.d), 0)?
        }
    };
    if let Some((_, c)) = line.clamp {
        at[1] = cut((line.base, line.coef, 1), c)?;
        at[2] = cut((q.num, q.a, q.d), c)?;
    }
    for t in at.into_iter().flatten() {
        if lo < t && t < hi {
            cuts.push(t);
        }
    }
    Some(())
}

type Cuts = SmallVec<[i64; 4]>;

/// The first `k` where `floor((num + a * k) / d) >= c` changes truth (the
/// quotient is monotone in `k`), if it changes; `None` on overflow.
fn cut((num, a, d): (i64, i64, i64), c: i64) -> Option<Option<i64>> {
    // floor(n / d) >= c  <=>  n >= c * d, so: a * k >= r.
    let r = c.checked_mul(d)?.checked_sub(num)?;
    let t = match a {
        0 => return Some(None),
        // The commonest coefficients, without a division.
        1 => Some(r),
        -1 => r.checked_neg().and_then(|m| m.checked_add(1)),
        // True from ceil(r / a) on.
        2.. => r
            .checked_neg()
            .map(|m| m.div_euclid(a))
            .and_then(i64::checked_neg),
        // True up to floor(r / a) = floor(-r / -a).
        _ => r
            .checked_neg()
            .zip(a.checked_neg())
            .and_then(|(m, a)| m.div_euclid(a).checked_add(1)),
    };
    t.map(Some)
}

impl SgSink {
    /// Marks the options of a run whose per-option arguments are `bends`,
    /// piece by piece. False, with nothing marked, if the run does not fit
    /// this form; the caller then goes through the batched code.
    pub(super) fn kernel_bends(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
        (per_option, bends): (&[(usize, BatchCode)], &[Bend]),
        ints: &[i64],
    ) -> Fallible<bool> {
        let (lo, hi) = (run.lo, run.hi);
        let mut evaluated: SmallVec<[Evaluated; 4]> = SmallVec::new();
        let mut cuts = Cuts::new();
        let mut quotients = 0;
        for (&(coord, _), b) in per_option.iter().zip(bends) {
            let Some(num) = b.base.eval(ints) else {
                return Ok(false);
            };
            let q = Quot {
                num,
                a: b.coef,
                d: b.div,
                a_div: b.coef_div,
                a_rem: b.coef_rem,
            };
            // Both ends fit, so every option between does (affine).
            for k in [lo, hi - 1] {
                if q.a
                    .checked_mul(k)
                    .and_then(|x| x.checked_add(num))
                    .is_none()
                {
                    return Ok(false);
                }
            }
            // A quotient that is not affine: at most one, walked with a
            // remainder.
            quotients += usize::from(q.a_rem != 0);
            let clamp = match &b.clamp {
                Some((min, limit)) => {
                    let Some(line) = Line::of(limit, ints, (lo, hi)) else {
                        return Ok(false);
                    };
                    if clamp_cuts(q, line, (lo, hi), &mut cuts).is_none() {
                        return Ok(false);
                    }
                    Some((*min, line))
                }
                None => None,
            };
            evaluated.push((coord, q, clamp));
        }
        if quotients > 1 {
            return Ok(false);
        }
        cuts.sort_unstable();
        let mut p = lo;
        for q in cuts.iter().copied().chain([hi]) {
            if p < q {
                let piece = piece(run, &evaluated, p..q);
                self.bend_piece(env, inst, run, &piece)?;
            }
            p = q;
        }
        Ok(true)
    }

    /// Marks the options of one piece: a strided walk through the window,
    /// then the options it could not answer one by one.
    fn bend_piece(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
        piece: &Piece,
    ) -> Fallible<()> {
        let n = run.bases.len();
        self.slow.clear();
        let placed = {
            let memo = inst.memo.borrow();
            match memo.window(run.shape) {
                Some(w) => self.walk(&w, piece, n),
                None => false,
            }
        };
        let all = if placed { 0..0 } else { piece.ks.clone() };
        let mut coords = [0i64; MAX_ARGS as usize];
        self.look_up_slow_then(env, run.instance, all, |k, key| {
            piece.coords(k, &mut coords[..n]);
            key.set_raw(run.shape, run.n_args, coords[..n].iter().copied());
        })
    }

    /// Marks the options of `piece` that `window` holds values for, the
    /// others left in `slow`; false, marking nothing, if the piece does not
    /// lie in the window.
    fn walk(&mut self, window: &Window<'_>, piece: &Piece, n: usize) -> bool {
        let (lo, hi) = (piece.ks.start, piece.ks.end);
        let Some((first, stride)) = window.run(&piece.bases[..n], &piece.coefs[..n], lo, hi) else {
            return false;
        };
        let n = (hi - lo) as usize;
        let Some((c, q)) = piece.quot else {
            self.scan_walk(window, &Strided { first, stride, n }, piece.ks.clone());
            return true;
        };
        let (bits, unit) = window.place(c);
        let unit = unit as isize;
        // The first quotient and its remainder from one division.
        let at_lo = q.num + q.a * lo;
        let from = at_lo.div_euclid(q.d);
        let rem = at_lo - from * q.d;
        let to = q.at(hi - 1);
        if ((from | to) as u64) >> bits != 0 {
            return false;
        }
        // From one k to the next the quotient grows by `a_div`, and by one
        // more when the remainder passes `d`.
        let step = stride.wrapping_add((q.a_div as isize).wrapping_mul(unit));
        let walk = QuotWalk {
            first: first + from as usize * unit as usize,
            step,
            unit,
            rem: (rem, q.a_rem, q.d),
        };
        self.scan_walk(window, &walk, piece.ks.clone());
        true
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

/// The piece `ks` of `run`: each clamp on one side throughout.
fn piece(run: &AffineRun<'_>, evaluated: &[Evaluated], ks: Range<i64>) -> Piece {
    // Element by element: a copy of a slice of unknown length would be a
    // call to memcpy, dearer than the whole piece for short runs.
    let mut piece = Piece {
        ks: ks.clone(),
        bases: std::array::from_fn(|i| run.bases.get(i).copied().unwrap_or(0)),
        coefs: std::array::from_fn(|i| run.coefs.get(i).copied().unwrap_or(0)),
        quot: None,
    };
    let k = ks.start;
    for &(coord, q, clamp) in evaluated {
        // The run's ends fit (`kernel_bends`); `c * d` may not.
        let above = |c: i64| i128::from(q.num + q.a * k) >= i128::from(c) * i128::from(q.d);
        let bound = clamp.and_then(|(min, line)| {
            let (base, coef) = line.piece_at(k);
            (above(base + coef * k) == min).then_some((base, coef))
        });
        match bound {
            Some(line) => (piece.bases[coord], piece.coefs[coord]) = line,
            None if q.d == 1 => (piece.bases[coord], piece.coefs[coord]) = (q.num, q.a),
            None if q.a_rem == 0 => {
                (piece.bases[coord], piece.coefs[coord]) = (q.num.div_euclid(q.d), q.a_div)
            }
            None => piece.quot = Some((coord, q)),
        }
    }
    piece
}
