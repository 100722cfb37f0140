//! The commonest keyed run, read straight off the memo's window: a move
//! whose one argument is `sorted(update(xs, i, k))` (Welter's game), the
//! other items of `xs` in order. Each place of `k` among them is one
//! strided run, placed by moving one item's coordinate at a time; no key
//! is written. Anything else (other arguments, items to sort, options
//! outside the window or without a value yet) is left to `key_run.rs`.

use super::*;
use crate::eval::compile::{KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::{shape_push, Tag, MAX_COORDS};
use scan::{scan_runs, Strided};

impl SgSink {
    /// Marks the options `k` in `a..b` (not empty) of `run` if it has this
    /// form and every option has a value in the window: true then. False
    /// otherwise, with no option missed that the general runs would not
    /// mark again (they do it all).
    pub(super) fn sorted_runs(
        &mut self,
        inst: &Instance,
        run: &KeyRun,
        frame: &KeyFrame,
        (a, b): (i64, i64),
        strided: &mut [Strided; MAX_COORDS],
    ) -> bool {
        let [RunArg::SortedUpdate { list, index }] = &run.args[..] else {
            return false;
        };
        let Some((seq, xs)) = frame.items(*list) else {
            return false;
        };
        let n = xs.len();
        let i = index.eval(frame).and_then(|i| usize::try_from(i).ok());
        let Some(i) = i.filter(|&i| i < n && seq != Seq::Set) else {
            return false;
        };
        // The other items, in order: sorted already, or left to sort.
        let mut rest = [0i64; MAX_COORDS];
        for (q, r) in rest[..n - 1].iter_mut().enumerate() {
            *r = xs[q + (q >= i) as usize];
        }
        let rest = &rest[..n - 1];
        if !rest.is_sorted() {
            return false;
        }
        let Some(shape) = shape_push(0, 0, Tag::List(n as u32)) else {
            return false;
        };
        let memo = inst.memo.borrow();
        let Some(w) = memo.window(shape).filter(|w| w.n_coords() == n) else {
            return false;
        };
        let (bits, strides) = w.layout();
        let part = |x: i64, c: usize| ((x as u64) >> bits[c] == 0).then(|| x as usize * strides[c]);
        // Place 0: every other item one coordinate up.
        let mut items = 0usize;
        for (q, &x) in rest.iter().enumerate() {
            let Some(p) = part(x, q + 1) else {
                return false;
            };
            items += p;
        }
        // `k` equal to an item: no position (`KeyRun::distinct`), or
        // looked up in its run.
        let repeat = !run.distinct as i64;
        let mut m = 0;
        for j in 0..n {
            let lo = match j {
                0 => a,
                _ => a.max(rest[j - 1].saturating_add(1)),
            };
            let hi = match rest.get(j) {
                Some(&x) => b.min(x.saturating_add(repeat)),
                None => b,
            };
            if lo < hi {
                if ((lo | (hi - 1)) as u64) >> bits[j] != 0 {
                    return false;
                }
                strided[m] = Strided {
                    first: items + lo as usize * strides[j],
                    stride: strides[j] as isize,
                    n: (hi - lo) as usize,
                };
                m += 1;
            }
            // The next place: item `j` back down to its own coordinate.
            if let Some(&x) = rest.get(j) {
                let Some(own) = part(x, j) else {
                    return false;
                };
                items = items - x as usize * strides[j + 1] + own;
            }
        }
        if scan_runs(w.dense(), &strided[..m], self.stamp, &mut self.seen) {
            // Options without a value: the general runs collect them.
            NO_VALUE_BYTES.iter().for_each(|&b| self.seen[b] = 0);
            return false;
        }
        true
    }
}
