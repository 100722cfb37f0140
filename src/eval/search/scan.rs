//! The strided scan over the memo's dense window: the search's hot loop.

use super::*;

/// Where `SgSink::seen` marks the value `v`: at its dense memo byte
/// (`v + 4`) while that is a value byte, past the `BIG` byte above. Bytes
/// that are not values (0..=3 and `BIG`) have slots of their own, which a
/// scan checks afterwards.
#[inline]
pub(super) fn seen_slot(v: u64) -> usize {
    if v < (BIG - 4) as u64 {
        v as usize + 4
    } else {
        v as usize + 5
    }
}

/// The dense bytes that mean "no value here yet" (`State::encode`):
/// unknown, on the search path, valid; and `BIG`, a value kept elsewhere.
/// (Byte 2, not a position, has a slot that nothing reads.)
pub(super) const NO_VALUE_BYTES: [usize; 4] = [0, 1, 3, BIG as usize];

/// The hot loop of the search: marks the values of the options `lo..hi`
/// whose dense bytes are `first + stride * (k - lo)`, and collects the
/// options whose byte holds no value yet (in ascending order) in `slow`.
/// Not inlined: on its own it keeps the loop's state in registers.
#[inline(never)]
pub(super) fn scan_dense(
    dense: &[u8],
    first: usize,
    stride: isize,
    ks: Range<i64>,
    stamp: u32,
    seen: &mut [u32],
    slow: &mut Vec<i64>,
) {
    // `seen` is indexed by byte codes: it always has at least 256 slots.
    let seen: &mut [u32; 256] = (&mut seen[..256]).try_into().expect("seen has 256 slots");
    let (lo, hi) = (ks.start, ks.end);
    let n = if stride == 0 { 1 } else { (hi - lo) as usize };
    // Walk upwards in memory whatever the sign of the stride.
    let (start, step) = if stride >= 0 {
        (first, stride as usize)
    } else {
        (
            first - (n - 1) * stride.unsigned_abs(),
            stride.unsigned_abs(),
        )
    };
    // Every byte marks its slot, values or not: no branch in the loop, and
    // one bounds check for the whole window.
    let window = &dense[start..=start + (n - 1) * step];
    if step <= 1 {
        window.iter().for_each(|&b| seen[b as usize] = stamp);
    } else {
        // Four options a step: fewer loop checks.
        let quads = window.chunks_exact(4 * step);
        let rest = quads.remainder();
        for q in quads {
            let (a, b, c, d) = (q[0], q[step], q[2 * step], q[3 * step]);
            seen[a as usize] = stamp;
            seen[b as usize] = stamp;
            seen[c as usize] = stamp;
            seen[d as usize] = stamp;
        }
        rest.iter()
            .step_by(step)
            .for_each(|&b| seen[b as usize] = stamp);
    }
    // Options without a value are rare: a second pass collects them.
    let missing = NO_VALUE_BYTES.iter().any(|&b| seen[b] == stamp);
    if missing {
        NO_VALUE_BYTES.iter().for_each(|&b| seen[b] = 0);
        let k_at = |j: usize| {
            if stride >= 0 {
                lo + j as i64
            } else {
                hi - 1 - j as i64
            }
        };
        let before = slow.len();
        slow.extend(
            (window.iter().step_by(step.max(1)).enumerate())
                .filter(|(_, &b)| NO_VALUE_BYTES.contains(&(b as usize)))
                .map(|(j, _)| k_at(j)),
        );
        if stride < 0 {
            slow[before..].reverse();
        }
    }
}
