//! Kernel runs whose per-option arguments are quadratic in the binding
//! (`take(k in 1..=n) if k * k <= n -> S(n - k * k)`): the options' memo
//! indices have constant second differences, so the run is walked with a
//! stride that grows by a constant step, without the batched code and the
//! gathered reads (`kernel_per_option`). A run that leaves the memo's
//! window goes there instead.

use super::engine::SgSink;
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, BatchCode, Env, Instance, Quadratic};
use crate::eval::memo::scan::Walk;
use crate::eval::memo::{Window, MAX_ARGS};

/// Largest binding and coefficient a walk takes: every term of every
/// argument then stays below 2^62, as the general path computes it.
const MAX_K: i64 = 1 << 24;
const MAX_COEF: i64 = 1 << 12;

/// One argument over the run: `c0 + c1 * k + c2 * k * k`.
#[derive(Clone, Copy, Default)]
struct Poly {
    c0: i64,
    c1: i64,
    c2: i64,
}

impl Poly {
    #[inline]
    fn at(self, k: i64) -> i64 {
        self.c0 + self.c1 * k + self.c2 * k * k
    }

    /// The least and the greatest value over `lo..hi` (not empty): at the
    /// ends, and next to the vertex where the step `p(k + 1) - p(k)`,
    /// linear in `k`, changes sign between them (only then a division, floored).
    fn extremes(self, lo: i64, hi: i64) -> (i64, i64) {
        let (a, b) = (self.at(lo), self.at(hi - 1));
        let mut span = (a.min(b), a.max(b));
        let step = |k: i64| self.c1 + self.c2 * (2 * k + 1);
        if step(lo).signum() * step(hi - 2).signum() < 0 {
            let v = (-self.c1 * self.c2.signum()).div_euclid(2 * self.c2.abs());
            for x in [v, v + 1].map(|k| self.at(k.clamp(lo, hi - 1))) {
                span = (span.0.min(x), span.1.max(x));
            }
        }
        span
    }
}

impl SgSink {
    /// Marks the options of a run whose per-option arguments are
    /// `Quadratic`s. False, with nothing marked, if the run does not fit
    /// this form (its binding or coefficients too large, or some option
    /// outside the window); the caller then goes through the batched code.
    pub(super) fn kernel_quadratic(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
        (per_option, quadratic): (&[(usize, BatchCode)], &[Quadratic]),
        ints: &[i64],
    ) -> Fallible<bool> {
        let (lo, hi) = (run.lo, run.hi);
        let n = run.bases.len();
        if lo.abs().max(hi.abs()) > MAX_K {
            return Ok(false);
        }
        let mut polys = [Poly::default(); MAX_ARGS as usize];
        for (p, (&c0, &c1)) in polys.iter_mut().zip(run.bases.iter().zip(run.coefs)) {
            *p = Poly { c0, c1, c2: 0 };
        }
        for (&(coord, _), q) in per_option.iter().zip(quadratic) {
            let Some(c0) = q.base.eval(ints) else {
                return Ok(false);
            };
            polys[coord] = Poly {
                c0,
                c1: q.c1,
                c2: q.c2,
            };
        }
        let polys = &polys[..n];
        let small = |c: i64| c.abs() <= MAX_COEF;
        if !polys
            .iter()
            .all(|p| small(p.c1) && small(p.c2) && p.c0.abs() < 1 << 61)
        {
            return Ok(false);
        }
        let scan = |sink: &mut Self, window: Option<&Window<'_>>| {
            let window = window?;
            let (ends, strides) = window.layout();
            // The index of option `k` is `i0 + i1 * k + i2 * k * k`.
            let (mut i0, mut i1, mut i2) = (0isize, 0isize, 0isize);
            for (c, p) in polys.iter().enumerate() {
                let (least, most) = p.extremes(lo, hi);
                if least < 0 || most as u64 >= ends[c] {
                    return None;
                }
                // Wrapping: the terms may pass 2^63 where their sum, an
                // index in the window, does not.
                let s = strides[c] as isize;
                i0 = i0.wrapping_add((p.c0 as isize).wrapping_mul(s));
                i1 = i1.wrapping_add((p.c1 as isize).wrapping_mul(s));
                i2 = i2.wrapping_add((p.c2 as isize).wrapping_mul(s));
            }
            let index_of = |k: i64| {
                let k = k as isize;
                let quad = i2.wrapping_mul(k.wrapping_mul(k));
                i0.wrapping_add(i1.wrapping_mul(k)).wrapping_add(quad) as usize
            };
            // From `k` to `k + 1` the index moves by `i1 + i2 * (2k + 1)`.
            let walk = GrowingWalk {
                first: index_of(lo),
                step: (index_of(lo + 1) as isize).wrapping_sub(index_of(lo) as isize),
                growth: i2.wrapping_mul(2),
            };
            sink.scan_walk(window, &walk, lo..hi);
            Some(0..0)
        };
        self.read_run(env, (inst, run), scan, |k, key| {
            key.set_raw(run.shape, run.n_args, polys.iter().map(|p| p.at(k)))
        })
    }
}

/// A walk through the window from `first`, its step growing by `growth`
/// at each option.
struct GrowingWalk {
    first: usize,
    step: isize,
    growth: isize,
}

impl Walk for GrowingWalk {
    fn indices(&self, n: usize) -> impl Iterator<Item = usize> {
        let (mut at, mut step, growth) = (self.first as isize, self.step, self.growth);
        (0..n).map(move |_| {
            let i = at as usize;
            at = at.wrapping_add(step);
            step = step.wrapping_add(growth);
            i
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Poly;

    #[test]
    fn extremes_agree_with_every_point_of_the_range() {
        // Vertices inside, outside and at the ends; ranges of 1 to 9 integers.
        let ranges = (-6..=6).flat_map(|lo| (1..=9).map(move |n| lo..lo + n));
        let polys = (-9..=9).flat_map(|c1| (-3..=3).map(move |c2| Poly { c0: 5, c1, c2 }));
        for (p, ks) in polys.flat_map(|p| ranges.clone().map(move |ks| (p, ks))) {
            let values = ks.clone().map(|k| p.at(k));
            let brute = (values.clone().min().unwrap(), values.max().unwrap());
            assert_eq!(p.extremes(ks.start, ks.end), brute, "{ks:?}");
        }
    }
}
