//! The strided scan over the memo's dense window: the search's hot loop.

use std::ops::Range;

use crate::eval::memo::{WindowBytes, BIG};

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
    dense: WindowBytes<'_>,
    first: usize,
    stride: isize,
    ks: Range<i64>,
    stamp: u32,
    seen: &mut [u32],
    slow: &mut Vec<i64>,
) {
    let (lo, hi) = (ks.start, ks.end);
    let run = Strided {
        first,
        stride,
        n: (hi - lo) as usize,
    };
    let (start, window, step) = run.window(dense.bytes);
    // `seen` is indexed by byte codes: it always has at least 256 slots.
    let bytes_seen: &mut [u32; 256] = (&mut seen[..256]).try_into().expect("256 slots");
    mark_strided(window, step, stamp, bytes_seen);
    // Options without a value are rare: a second pass collects them.
    let missing = NO_VALUE_BYTES.iter().any(|&b| bytes_seen[b] == stamp);
    if missing {
        NO_VALUE_BYTES.iter().for_each(|&b| bytes_seen[b] = 0);
        let k_at = |j: usize| {
            if stride >= 0 {
                lo + j as i64
            } else {
                hi - 1 - j as i64
            }
        };
        let before = slow.len();
        let step = step.max(1);
        for (j, &b) in window.iter().step_by(step).enumerate() {
            if !NO_VALUE_BYTES.contains(&(b as usize)) {
                continue;
            }
            if b == BIG && mark_wide(dense.wide, start + j * step, stamp, seen) {
                continue;
            }
            slow.push(k_at(j));
        }
        if stride < 0 {
            slow[before..].reverse();
        }
    }
}

/// Marks the large value whose code `wide` keeps at `index`, if it keeps
/// it and `seen` has its slot (else the caller looks it up, which grows
/// `seen`): true then.
#[inline]
pub(super) fn mark_wide(wide: &[u16], index: usize, stamp: u32, seen: &mut [u32]) -> bool {
    // A kept code is a value's, `v + 4`, past the bytes (`State::encode`).
    let Some(&code) = wide.get(index).filter(|&&c| c >= 4) else {
        return false;
    };
    match seen.get_mut(seen_slot(code as u64 - 4)) {
        Some(slot) => {
            *slot = stamp;
            true
        }
        None => false,
    }
}

/// A run of `n` options whose dense bytes are `first + stride * j`.
#[derive(Clone, Copy, Default)]
pub(super) struct Strided {
    pub first: usize,
    pub stride: isize,
    pub n: usize,
}

impl Strided {
    /// The run's bytes from the lowest address (`start`), whatever the
    /// sign of the stride, and the step between them (a stride of 0 is one
    /// byte). One bounds check for the whole run.
    #[inline(always)]
    fn window(self, dense: &[u8]) -> (usize, &[u8], usize) {
        let n = if self.stride == 0 { 1 } else { self.n };
        let step = self.stride.unsigned_abs();
        let start = match self.stride >= 0 {
            true => self.first,
            false => self.first - (n - 1) * step,
        };
        (start, &dense[start..=start + (n - 1) * step], step)
    }
}

/// Marks the slot of every `step`-th byte of `window` from its first,
/// values or not: no branch in the loop.
#[inline(always)]
fn mark_strided(window: &[u8], step: usize, stamp: u32, seen: &mut [u32; 256]) {
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
        // At most three left (`step_by` costs more on so few).
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            seen[b as usize] = stamp;
            i += step;
        }
    }
}

/// A run of `n` options (at least 1) whose dense bytes are
/// `first + step * j`, `step` at least 1: a place of a sorted list.
#[derive(Clone, Copy, Default)]
pub(super) struct Ascending {
    pub first: usize,
    pub step: usize,
    pub n: usize,
}

/// `scan_runs` for ascending runs: true, with the slots of bytes without
/// a value cleared, if some byte held none or some run passes the end of
/// `dense` (then the caller marks the options otherwise).
#[inline(never)]
pub(super) fn scan_ascending(
    dense: &[u8],
    runs: &[Ascending],
    stamp: u32,
    seen: &mut [u32],
) -> bool {
    let seen: &mut [u32; 256] = (&mut seen[..256]).try_into().expect("seen has 256 slots");
    let mut inside = true;
    for r in runs {
        let Some(window) = dense.get(r.first..=r.first + (r.n - 1) * r.step) else {
            inside = false;
            break;
        };
        if r.step <= 1 {
            window.iter().for_each(|&b| seen[b as usize] = stamp);
            continue;
        }
        // Four options a step, as `mark_strided` does, but split off
        // one by one: runs are short, and `chunks_exact` divides.
        let step = r.step;
        let mut rest = window;
        while let Some((q, next)) = rest.split_at_checked(4 * step) {
            let (a, b, c, d) = (q[0], q[step], q[2 * step], q[3 * step]);
            seen[a as usize] = stamp;
            seen[b as usize] = stamp;
            seen[c as usize] = stamp;
            seen[d as usize] = stamp;
            rest = next;
        }
        let mut i = 0;
        while let Some(&b) = rest.get(i) {
            seen[b as usize] = stamp;
            i += step;
        }
    }
    if !inside || NO_VALUE_BYTES.iter().any(|&b| seen[b] == stamp) {
        NO_VALUE_BYTES.iter().for_each(|&b| seen[b] = 0);
        return true;
    }
    false
}

/// `scan_dense` for several runs at once (the few short runs of a
/// position with a list), without collecting: marks every byte's slot
/// and tells whether some byte held no value, in which case the caller
/// clears those slots and scans the runs again one by one.
#[inline(never)]
pub(super) fn scan_runs(dense: &[u8], runs: &[Strided], stamp: u32, seen: &mut [u32]) -> bool {
    let seen: &mut [u32; 256] = (&mut seen[..256]).try_into().expect("seen has 256 slots");
    for r in runs {
        let (_, window, step) = r.window(dense);
        mark_strided(window, step, stamp, seen);
    }
    NO_VALUE_BYTES.iter().any(|&b| seen[b] == stamp)
}

/// The `len` items of `w` from the `j`-th in walking order (backwards
/// from the end where `rev`), in memory order.
#[inline(always)]
fn block<T>(w: &[T], j: usize, len: usize, rev: bool) -> &[T] {
    let n = w.len();
    if rev {
        &w[n - j - len..n - j]
    } else {
        &w[j..j + len]
    }
}

/// The codes of a block in walking order: each byte's, or for `BIG` the
/// window's wide code (0 where it keeps none: no value here).
#[inline(always)]
fn wide_codes<const REV: bool>(bytes: &[u8], wide: &[u16], out: &mut [u16]) {
    let code = |(&b, &w): (&u8, &u16)| {
        let big = 0u16.wrapping_sub((b == BIG) as u16);
        (b as u16 & !big) | (w & big)
    };
    let pairs = bytes.iter().zip(wide);
    if REV {
        out.iter_mut()
            .zip(pairs.rev())
            .for_each(|(o, p)| *o = code(p));
    } else {
        out.iter_mut().zip(pairs).for_each(|(o, p)| *o = code(p));
    }
}

/// The slots of `seen` a scan of large values may mark: every xor of two
/// 16-bit values has its slot below this.
pub(super) const WIDE_SLOTS: usize = 1 << 17;

/// The bytes two parts of a sum read over the options `ks`, when both
/// walk with a stride of 1 or -1 (as `G(a) + G(n - a)` does) and stay in
/// `dense`: each as the slice it covers, in memory order. `None`
/// otherwise (the caller walks the indices one by one).
pub(super) fn unit_windows<T>(
    dense: &[T],
    (f1, s1): (usize, isize),
    (f2, s2): (usize, isize),
    ks: Range<i64>,
) -> Option<(&[T], &[T])> {
    let n = usize::try_from(ks.end.checked_sub(ks.start)?).ok()?;
    let window = |first: usize, stride: isize| {
        let start = match stride {
            1 => first,
            -1 => (first + 1).checked_sub(n)?,
            _ => return None,
        };
        dense.get(start..start.checked_add(n)?)
    };
    Some((window(f1, s1)?, window(f2, s2)?))
}

/// The hot loop of take-and-break games of two parts: for the byte pairs
/// of the options `ks` (`a` and `b` as `unit_windows` gives them, read
/// backwards where `REV_A`, `REV_B`), in order, marks the xor of the two
/// values, or collects `k` in `slow` when a byte holds no value yet. Not
/// inlined, so its state stays in registers.
/// Where the window keeps large values (`wide`, the same ranges as the
/// bytes), the options whose bytes are `BIG` are marked from there; the
/// return is the highest slot of `seen` marked past the first 512 (0 if
/// none), and `seen` must have `WIDE_SLOTS` slots then.
#[inline(never)]
pub(super) fn scan_pairs<const REV_A: bool, const REV_B: bool>(
    (a, b): (&[u8], &[u8]),
    wide: Option<(&[u16], &[u16])>,
    ks: Range<i64>,
    stamp: u32,
    seen: &mut [u32],
    slow: &mut Vec<i64>,
) -> usize {
    // A value byte is 4..=254, its value the byte - 4: any other byte
    // wraps to above `MAX_VALUE`, so one comparison tells both apart.
    const MAX_VALUE: u8 = BIG - 5;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let value = |byte: u8| byte.wrapping_sub(4);
    // Bytes without a value are rare: when neither window holds one (a
    // check the compiler vectorises), the loop marks without a test.
    let clean = |w: &[u8]| w.iter().fold(0u8, |m, &x| m.max(value(x))) <= MAX_VALUE;
    if clean(a) && clean(b) {
        let seen: &mut [u32; 512] = (&mut seen[..512]).try_into().expect("512 slots");
        // In blocks: the xors first (vector code, reversals included),
        // then one store a value. Marking straight from the bytes kept
        // the vector unit idle.
        const BLOCK: usize = 64;
        let mark = |seen: &mut [u32; 512], v: u8| seen[seen_slot(v as u64) & 511] = stamp;
        let block = |w: &[u8], j: usize, rev: bool| -> [u8; BLOCK] {
            let at = if rev { n - j - BLOCK } else { j };
            w[at..at + BLOCK].try_into().expect("a block")
        };
        let mut j = 0;
        while j + BLOCK <= n {
            let (xa, xb) = (block(a, j, REV_A), block(b, j, REV_B));
            let mut xors = [0u8; BLOCK];
            for (t, out) in xors.iter_mut().enumerate() {
                let x = if REV_A { xa[BLOCK - 1 - t] } else { xa[t] };
                let y = if REV_B { xb[BLOCK - 1 - t] } else { xb[t] };
                *out = value(x) ^ value(y);
            }
            xors.iter().for_each(|&v| mark(seen, v));
            j += BLOCK;
        }
        for j in j..n {
            let x = if REV_A { a[n - 1 - j] } else { a[j] };
            let y = if REV_B { b[n - 1 - j] } else { b[j] };
            mark(seen, value(x) ^ value(y));
        }
        return 0;
    }
    if let Some((wa, wb)) = wide {
        let seen: &mut [u32; WIDE_SLOTS] = (&mut seen[..WIDE_SLOTS]).try_into().expect("slots");
        const BLOCK: usize = 64;
        let (wa, wb) = (&wa[..n], &wb[..n]);
        let mut top = 0u16;
        let mut j = 0;
        while j < n {
            let len = BLOCK.min(n - j);
            let (mut ca, mut cb) = ([0u16; BLOCK], [0u16; BLOCK]);
            wide_codes::<REV_A>(block(a, j, len, REV_A), block(wa, j, len, REV_A), &mut ca);
            wide_codes::<REV_B>(block(b, j, len, REV_B), block(wb, j, len, REV_B), &mut cb);
            // The xors, and the least code (below 4: no value).
            let mut xors = [0u16; BLOCK];
            let mut low = u16::MAX;
            for ((out, &x), &y) in xors[..len].iter_mut().zip(&ca).zip(&cb) {
                low = low.min(x.min(y));
                *out = x.wrapping_sub(4) ^ y.wrapping_sub(4);
            }
            for (t, &v) in xors[..len].iter().enumerate() {
                if low < 4 && ca[t].min(cb[t]) < 4 {
                    slow.push(ks.start + (j + t) as i64);
                } else {
                    top = top.max(v);
                    seen[seen_slot(v as u64) & (WIDE_SLOTS - 1)] = stamp;
                }
            }
            j += len;
        }
        let top = seen_slot(top as u64);
        return if top >= 512 { top } else { 0 };
    }
    for j in 0..n {
        let x = if REV_A { a[n - 1 - j] } else { a[j] };
        let y = if REV_B { b[n - 1 - j] } else { b[j] };
        let (v1, v2) = (x.wrapping_sub(4), y.wrapping_sub(4));
        if v1.max(v2) > MAX_VALUE {
            slow.push(ks.start + j as i64);
        } else {
            // The xor of two values below 256 has its slot below 512.
            seen[seen_slot((v1 ^ v2) as u64) & 511] = stamp;
        }
    }
    0
}
