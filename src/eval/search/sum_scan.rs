//! The scans of take-and-break runs: the values of the parts of each
//! option read from the memo's dense window and xored (a single part is
//! `memo::scan`'s).

use std::ops::Range;

use smallvec::SmallVec;

use crate::eval::memo::scan::{full_code, seen_slot, Marks, Strided, WIDE_SLOTS};
use crate::eval::memo::{Window, BIG};

/// The most parts of a sum a kernel reads in one go.
pub(super) const MAX_PARTS: usize = 8;

/// The hot loop of take-and-break games: marks in `marks` the xor of the
/// values at `first_p + stride_p * (k - lo)` over the parts `p`
/// (`places`), for each `k` of `ks`, read from the window's bytes and,
/// past 250, its 16-bit codes; options with a part that holds no value
/// there go to `slow`.
pub(super) fn scan_sum(
    window: &Window<'_>,
    places: &[(usize, isize)],
    ks: Range<i64>,
    marks: &mut Marks,
    slow: &mut Vec<i64>,
) {
    let (dense, wide) = (window.dense(), window.wide());
    let (seen, stamp) = marks.slots_mut(WIDE_SLOTS);
    let seen: &mut [u32; WIDE_SLOTS] = seen.try_into().expect("slots");
    if let [(f1, s1), (f2, s2)] = *places {
        if let Some(ab) = unit_windows(dense, (f1, s1), (f2, s2), ks.clone()) {
            let wide = (!wide.is_empty())
                .then(|| unit_windows(wide, (f1, s1), (f2, s2), ks.clone()))
                .flatten();
            let top = match (s1 < 0, s2 < 0) {
                (false, false) => scan_pairs::<false, false>(ab, wide, ks, stamp, seen, slow),
                (false, true) => scan_pairs::<false, true>(ab, wide, ks, stamp, seen, slow),
                (true, false) => scan_pairs::<true, false>(ab, wide, ks, stamp, seen, slow),
                (true, true) => scan_pairs::<true, true>(ab, wide, ks, stamp, seen, slow),
            };
            return marks.marked_up_to(top);
        }
    }
    // A part's code: its byte's, or its 16-bit code where the byte is
    // `BIG` (`BIG` itself where that is kept past 16 bits: no value
    // here, as bytes 0 to 3).
    let code = |i: usize| full_code(dense[i], wide.get(i).copied().unwrap_or(0)) as usize;
    let mut at: SmallVec<[isize; MAX_PARTS]> = places.iter().map(|p| p.0 as isize).collect();
    let mut top = 0;
    for k in ks {
        let (mut x, mut bad) = (0usize, false);
        for (i, p) in at.iter_mut().zip(places) {
            let c = code(*i as usize);
            x ^= c.wrapping_sub(4);
            bad |= (c < 4) | (c == BIG as usize);
            *i += p.1;
        }
        if bad {
            slow.push(k);
        } else {
            let slot = seen_slot(x as u64);
            top |= slot;
            seen[slot & (WIDE_SLOTS - 1)] = stamp;
        }
    }
    marks.marked_up_to(top);
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

/// The bytes two parts of a sum read over the options `ks`, when both
/// walk with a stride of 1 or -1 (as `G(a) + G(n - a)` does) and stay in
/// `dense`: each as the slice it covers, in memory order. `None`
/// otherwise (the caller walks the indices one by one).
fn unit_windows<T>(
    dense: &[T],
    (f1, s1): (usize, isize),
    (f2, s2): (usize, isize),
    ks: Range<i64>,
) -> Option<(&[T], &[T])> {
    let n = usize::try_from(ks.end.checked_sub(ks.start)?).ok()?;
    let window = |first: usize, stride: isize| {
        let run = (stride.unsigned_abs() == 1).then_some(Strided { first, stride, n })?;
        Some(run.window(dense)?.0)
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
/// none).
#[inline(never)]
fn scan_pairs<const REV_A: bool, const REV_B: bool>(
    (a, b): (&[u8], &[u8]),
    wide: Option<(&[u16], &[u16])>,
    ks: Range<i64>,
    stamp: u32,
    seen: &mut [u32; WIDE_SLOTS],
    slow: &mut Vec<i64>,
) -> usize {
    // A value byte is 4..=254, its value the byte - 4: any other byte
    // wraps to above `MAX_VALUE`, so one comparison tells both apart.
    const MAX_VALUE: u8 = BIG - 5;
    const BLOCK: usize = 64;
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
        let mark = |seen: &mut [u32; 512], v: u8| seen[seen_slot(v as u64) & 511] = stamp;
        let block = |w: &[u8], j: usize, rev: bool| -> [u8; BLOCK] {
            block(w, j, BLOCK, rev).try_into().expect("a block")
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
    // Some byte holds no value yet, or large values are kept: the codes
    // block by block (a byte's, or for `BIG` its 16-bit code), each
    // option with both values marked, the others collected.
    let no_codes = [0u16; BLOCK];
    let mut top = 0u16;
    let mut j = 0;
    while j < n {
        let len = BLOCK.min(n - j);
        let (wa, wb) = match wide {
            Some((wa, wb)) => (block(wa, j, len, REV_A), block(wb, j, len, REV_B)),
            None => (&no_codes[..len], &no_codes[..len]),
        };
        let (mut ca, mut cb) = ([0u16; BLOCK], [0u16; BLOCK]);
        wide_codes::<REV_A>(block(a, j, len, REV_A), wa, &mut ca);
        wide_codes::<REV_B>(block(b, j, len, REV_B), wb, &mut cb);
        // The xors, and the least code (below 4: no value).
        let mut xors = [0u16; BLOCK];
        let mut low = u16::MAX;
        for ((out, &x), &y) in xors[..len].iter_mut().zip(&ca).zip(&cb) {
            low = low.min(x.min(y));
            *out = x.wrapping_sub(4) ^ y.wrapping_sub(4);
        }
        if low >= 4 {
            // Every option of the block has its value: no test each.
            top = top.max(xors[..len].iter().fold(0, |m, &v| m.max(v)));
            for &v in &xors[..len] {
                seen[seen_slot(v as u64) & (WIDE_SLOTS - 1)] = stamp;
            }
        } else {
            for (t, &v) in xors[..len].iter().enumerate() {
                if ca[t].min(cb[t]) < 4 {
                    slow.push(ks.start + (j + t) as i64);
                } else {
                    top = top.max(v);
                    seen[seen_slot(v as u64) & (WIDE_SLOTS - 1)] = stamp;
                }
            }
        }
        j += len;
    }
    let top = seen_slot(top as u64);
    if top >= 512 {
        top
    } else {
        0
    }
}
