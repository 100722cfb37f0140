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
        // The run's ends fit (checked in `kernel_bends`), so every k between.
        (self.num + self.a * k).div_euclid(self.d)
    }
}

/// A bend's argument over a piece: affine (`base + coef * k`), or a
/// quotient.
#[derive(Clone, Copy)]
enum Arg {
    Affine(i64, i64),
    Quot(Quot),
}

impl Arg {
    fn at(self, k: i64) -> i64 {
        match self {
            Arg::Affine(base, coef) => base + coef * k,
            Arg::Quot(q) => q.at(k),
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
    #[inline]
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
#[inline]
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

/// The cuts of a run, then its end.
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

/// `b`'s quotient on the frame `ints`, if its code runs and it fits over
/// `lo..hi`.
fn quot_of(b: &Bend, ints: &[i64], (lo, hi): (i64, i64)) -> Option<Quot> {
    let num = b.base.eval(ints)?;
    // Both ends fit, so every option between does (affine).
    for k in [lo, hi - 1] {
        b.coef.checked_mul(k)?.checked_add(num)?;
    }
    Some(Quot {
        num,
        a: b.coef,
        d: b.div,
        a_div: b.coef_div,
        a_rem: b.coef_rem,
    })
}

/// What a swept line keeps of a bend run whose range and affine
/// arguments it does not move (`RunMove::reads`): each bend's quotient
/// whose base it does not move either (`Bend::reads`), and where the run's
/// affine arguments lie in the window, for as long as its layout holds.
#[derive(Default)]
pub(super) struct BendHeld {
    quots: SmallVec<[Option<Quot>; 4]>,
    placed: Option<((usize, u32), Placed)>,
}

/// Where a run's first option lies in a window and the stride between
/// its options, if they all lie in it (`Window::run`).
type Placed = Option<(usize, isize)>;

impl BendHeld {
    /// `run`'s placement in `window`, kept while its stamp holds.
    #[inline]
    fn placed(&mut self, window: &Window<'_>, run: &AffineRun<'_>) -> Placed {
        let stamp = window.stamp();
        match self.placed {
            Some((held, at)) if held == stamp => at,
            _ => {
                let at = window.run(run.bases, run.coefs, run.lo, run.hi);
                self.placed = Some((stamp, at));
                at
            }
        }
    }
}

impl SgSink {
    /// Marks the options of a run whose per-option arguments are `bends`,
    /// piece by piece. False, with nothing marked, if the run does not fit
    /// this form; the caller then goes through the batched code. `line`:
    /// on a swept line that moves none of the run's set-up, what the line
    /// keeps of it, and the moving frame slot (a bit).
    pub(super) fn kernel_bends(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
        (per_option, bends): (&[(usize, BatchCode)], &[Bend]),
        ints: &[i64],
        line: Option<(&mut BendHeld, u64)>,
    ) -> Fallible<bool> {
        let (lo, hi) = (run.lo, run.hi);
        let mut evaluated: SmallVec<[Evaluated; 4]> = SmallVec::new();
        let mut cuts = Cuts::new();
        let mut quotients = 0;
        let (mut held, moving) = match line {
            Some((held, moving)) => (Some(held), moving),
            None => (None, u64::MAX),
        };
        for (i, (&(coord, _), b)) in per_option.iter().zip(bends).enumerate() {
            let kept = held
                .as_ref()
                .and_then(|h| h.quots.get(i).copied().flatten());
            let Some(q) = kept.or_else(|| quot_of(b, ints, (lo, hi))) else {
                return Ok(false);
            };
            if let Some(h) = held.as_mut().filter(|h| h.quots.len() == i) {
                h.quots.push((b.reads & moving == 0).then_some(q));
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
        if cuts.len() > 1 {
            cuts.sort_unstable();
        }
        // The pieces' ends: the cuts, then the run's end.
        cuts.push(hi);
        // Every piece read through the window, placed once for the run
        // (once for the line where it keeps the run); then the options it
        // could not answer one by one.
        let scan = |sink: &mut Self, window: Option<&Window<'_>>| {
            let placed = window.map(|w| {
                let at = match held {
                    Some(h) => h.placed(w, run),
                    None => w.run(run.bases, run.coefs, lo, hi),
                };
                (w, at)
            });
            let mut p = lo;
            for &q in &cuts {
                if p >= q {
                    continue;
                }
                if !placed.is_some_and(|(w, at)| sink.walk(w, run, at, &evaluated, p..q)) {
                    return Some(p..hi);
                }
                p = q;
            }
            Some(0..0)
        };
        let n = run.bases.len();
        self.read_run(env, (inst, run), scan, |k, key| {
            // Options the window cannot answer are rare: no array a run.
            let mut coords = [0i64; MAX_ARGS as usize];
            // The piece of `k` starts at the last cut at or before it.
            let start = (cuts.iter().copied().filter(|&c| c <= k).max()).unwrap_or(lo);
            for ((x, &base), &coef) in coords.iter_mut().zip(run.bases).zip(run.coefs) {
                *x = base + coef * k;
            }
            for e in &evaluated {
                let (c, arg) = piece_arg(e, start);
                coords[c] = arg.at(k);
            }
            key.set_raw(run.shape, run.n_args, coords[..n].iter().copied());
        })
    }

    /// Marks the options `ks` of a piece of `run` (its bends `evaluated`)
    /// that `window` holds values for, the others left in `slow`; false,
    /// marking nothing, if the piece does not lie in the window. `placed`
    /// is where the run's affine arguments put its first option and their
    /// stride (`None`: not all in the window, so placed for the piece
    /// alone).
    fn walk(
        &mut self,
        window: &Window<'_>,
        run: &AffineRun<'_>,
        placed: Option<(usize, isize)>,
        evaluated: &[Evaluated],
        ks: Range<i64>,
    ) -> bool {
        let (lo, hi) = (ks.start, ks.end);
        let placed = match placed {
            Some((first, stride)) => Some((
                first.wrapping_add_signed(stride.wrapping_mul((lo - run.lo) as isize)),
                stride,
            )),
            None => window.run(run.bases, run.coefs, lo, hi),
        };
        let Some((mut first, mut stride)) = placed else {
            return false;
        };
        // Each bend's coordinate added: affine ones to the stride, at most
        // one quotient walked with its remainder.
        let mut quot = None;
        for e in evaluated {
            let (c, arg) = piece_arg(e, lo);
            let (end, unit) = window.place(c);
            let (from, to) = (arg.at(lo), arg.at(hi - 1));
            if (from as u64).max(to as u64) >= end {
                return false;
            }
            first = first.wrapping_add((from as usize).wrapping_mul(unit));
            match arg {
                Arg::Affine(_, coef) => {
                    stride = stride.wrapping_add((coef as isize).wrapping_mul(unit as isize))
                }
                Arg::Quot(q) => quot = Some((unit as isize, q)),
            }
        }
        let n = (hi - lo) as usize;
        let Some((unit, q)) = quot else {
            self.scan_walk(window, &Strided { first, stride, n }, ks);
            return true;
        };
        // From one k to the next the quotient grows by `a_div`, and by one
        // more when the remainder passes `d`.
        let rem = (q.num + q.a * lo).rem_euclid(q.d);
        let walk = QuotWalk {
            first,
            step: stride.wrapping_add((q.a_div as isize).wrapping_mul(unit)),
            unit,
            rem: (rem, q.a_rem, q.d),
        };
        self.scan_walk(window, &walk, ks);
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

/// The argument of the bend `evaluated` over the piece that starts at
/// `k` (each clamp on one side throughout a piece), with its coordinate.
#[inline]
fn piece_arg(&(coord, q, clamp): &Evaluated, k: i64) -> (usize, Arg) {
    // The run's ends fit (`kernel_bends`); `c * d` may not.
    let above = |c: i64| match c.checked_mul(q.d) {
        Some(cd) => q.num + q.a * k >= cd,
        None => i128::from(q.num + q.a * k) >= i128::from(c) * i128::from(q.d),
    };
    let bound = clamp.and_then(|(min, line)| {
        let (base, coef) = line.piece_at(k);
        (above(base + coef * k) == min).then_some((base, coef))
    });
    let arg = match bound {
        Some((base, coef)) => Arg::Affine(base, coef),
        None if q.d == 1 => Arg::Affine(q.num, q.a),
        None if q.a_rem == 0 => Arg::Affine(q.num.div_euclid(q.d), q.a_div),
        None => Arg::Quot(q),
    };
    (coord, arg)
}
