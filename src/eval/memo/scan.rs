//! Reading options' values out of a dense window: the search's hot loop.
//!
//! Every fast path that reads a run of options from the memo describes
//! where they lie as a `Walk` (a stride, a stride with a carry, a stride
//! that grows, indices gathered one by one) and calls `scan`, which marks
//! their values in `Marks` (bytes, large values kept past the bytes) and
//! lists the options the window cannot answer: outside it, or without a
//! value yet.

use std::ops::Range;

use super::ranked::RankedRun;
use super::{RankedWindow, Window, BIG};

/// Where `Marks` marks the value `v`: at its dense memo byte (`v + 4`)
/// while that is a value byte, past the `BIG` byte above. Bytes that are
/// not values (0..=3 and `BIG`) have slots of their own, which a scan
/// checks afterwards.
#[inline]
pub fn seen_slot(v: u64) -> usize {
    if v < (BIG - 4) as u64 {
        v as usize + 4
    } else {
        v as usize + 5
    }
}

/// The slot of the value of an option whose dense byte is `byte` and
/// whose 16-bit code is `wide` (`ShapeTable::wide`, 0 wherever the byte
/// is not `BIG`): the byte's own slot, or for `BIG` the slot of the value
/// its code holds, `seen_slot(wide - 4) = wide + 1`, whichever is larger.
/// A `BIG` byte without a 16-bit code (a value past 16 bits, in the
/// window's map) marks `BIG`'s slot, and byte 0 marks slot 1: both no
/// value's, read by the second pass. No branch (the options' bytes and
/// codes come in runs the processor cannot predict), and vector code
/// over a block.
#[inline(always)]
pub fn code_slot(byte: u8, wide: u16) -> u32 {
    (byte as u32).max(wide as u32 + 1)
}

/// The code of a position whose dense byte is `byte` and whose 16-bit
/// code is `wide` (as `code_slot`): the byte's, or for `BIG` the 16-bit
/// code; `BIG` itself (no value here) where that is kept past 16 bits.
#[inline(always)]
pub fn full_code(byte: u8, wide: u16) -> u16 {
    (byte as u16).max(wide)
}

/// The slots a scan of a window with large values may mark: every
/// 16-bit code's (`code_slot`), and every xor of two 16-bit values'.
pub const WIDE_SLOTS: usize = 1 << 17;

/// The dense bytes that mean "no value here yet" (`State::encode`):
/// unknown, on the search path, valid; and `BIG`, a value kept elsewhere.
/// (Byte 2, not a position, has a slot that nothing reads.)
pub const NO_VALUE_BYTES: [usize; 4] = [0, 1, 3, BIG as usize];

/// The dense byte of a position on the search path, or of a loopy
/// game's position of infinite value (`State::encode`).
pub const ON_PATH_BYTE: u8 = 1;

/// The value a dense byte holds, if it holds one in the byte.
#[inline]
pub fn byte_value(byte: u8) -> Option<u64> {
    (4..BIG).contains(&byte).then(|| (byte - 4) as u64)
}

/// Values from this on are never marked: the mex is at most the number
/// of options, and no position has this many.
pub const LARGEST: u64 = 1 << 26;

/// The slots every scan may mark without growing `Marks`: a value byte's,
/// or the xor of two.
pub const SCANNED_SLOTS: usize = 512;

/// The values of one position's options: `seen[seen_slot(v)] == stamp`
/// when `v` is one. Slots are dense byte codes, so a scan marks
/// `seen[byte]` without decoding.
#[derive(Clone, Debug)]
pub struct Marks {
    seen: Vec<u32>,
    stamp: u32,
    /// The highest slot marked one by one (`add`, `mark_byte`), or by a
    /// scan past `SCANNED_SLOTS` (`marked_up_to`), since `start`.
    top: usize,
    /// Slots below this may have been marked by a scan without `top`
    /// knowing (`byte_slots`, `slots_mut`).
    scanned: usize,
    /// The last scan of a window with large values met one: the next
    /// reads codes and bytes at once (`scan`), else bytes first.
    large: bool,
}

impl Default for Marks {
    fn default() -> Marks {
        Marks {
            seen: vec![0; SCANNED_SLOTS],
            stamp: 1,
            top: 0,
            scanned: 0,
            large: false,
        }
    }
}

impl Marks {
    /// Forgets every mark: the next position's options.
    #[inline]
    pub fn start(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.top = 0;
        self.scanned = 0;
    }

    /// Marks the value `v`.
    #[inline]
    pub fn add(&mut self, v: u64) {
        if v >= LARGEST {
            return;
        }
        let i = seen_slot(v);
        self.grow((i + 1).next_power_of_two());
        self.seen[i] = self.stamp;
        self.top = self.top.max(i);
    }

    /// Marks the value a dense byte holds (none for "not a position");
    /// false, marking nothing, if it holds no value in the byte.
    #[inline]
    pub fn mark_byte(&mut self, byte: u8) -> bool {
        if NO_VALUE_BYTES.contains(&(byte as usize)) {
            return false;
        }
        // Byte 2 (not a position) marks a slot nothing reads.
        self.seen[byte as usize] = self.stamp;
        self.top = self.top.max(byte as usize);
        true
    }

    /// Grows `seen` to `n` slots of zeroed memory: pages not resident till marked.
    #[inline]
    fn grow(&mut self, n: usize) {
        if self.seen.len() < n {
            self.grow_to(n);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.seen, vec![0; n]);
        self.seen[..old.len()].copy_from_slice(&old);
    }

    /// Past the last slot marked since `start`.
    pub fn marked_len(&self) -> usize {
        (self.top + 1).max(self.scanned).min(self.seen.len())
    }

    /// The slots and their stamp, to read.
    pub fn slots(&self) -> (&[u32], u32) {
        (&self.seen, self.stamp)
    }

    /// The first `n` slots (grown to hold them) and the stamp, for a scan
    /// that marks slots itself; it reports the highest it marked past
    /// `SCANNED_SLOTS` through `marked_up_to`.
    pub fn slots_mut(&mut self, n: usize) -> (&mut [u32], u32) {
        self.grow(n);
        self.scanned = self.scanned.max(SCANNED_SLOTS);
        (&mut self.seen[..n], self.stamp)
    }

    /// Notes that slots up to `slot` may be marked.
    pub fn marked_up_to(&mut self, slot: usize) {
        self.top = self.top.max(slot);
    }

    /// Whether some value is marked.
    pub fn any(&self) -> bool {
        let marked = |(i, &s): (usize, &u32)| s == self.stamp && i != BIG as usize;
        (self.seen[4..self.marked_len().max(4)].iter())
            .enumerate()
            .map(|(i, s)| (i + 4, s))
            .any(marked)
    }

    /// The least value not marked.
    pub fn mex(&self) -> u64 {
        let stamp = self.stamp;
        // The first slot of `slots` not marked, eight slots at a time
        // compared without a branch (vector code), then one by one;
        // `slots.len()` if all are.
        let first_free = |slots: &[u32]| {
            let full = (slots.chunks_exact(8))
                .take_while(|c| c.iter().fold(true, |all, &s| all & (s == stamp)))
                .count()
                * 8;
            full + (slots[full..].iter())
                .position(|&s| s != stamp)
                .unwrap_or(slots.len() - full)
        };
        // Values below `BIG - 4` have consecutive slots from 4 on, the
        // larger ones from 256 on (slot 255 is `BIG`'s, no value's); no
        // slot from `marked_len` on is marked.
        let small = (BIG - 4) as usize;
        let m = first_free(&self.seen[4..4 + small]);
        if m < small {
            return m as u64;
        }
        let end = self.marked_len().max(256);
        (small + first_free(&self.seen[256..end])) as u64
    }

    /// The slots of the dense bytes, to mark without decoding.
    #[inline]
    fn byte_slots(&mut self) -> (&mut [u32; 256], u32) {
        self.scanned = self.scanned.max(256);
        let slots = (&mut self.seen[..256]).try_into().expect("256 slots");
        (slots, self.stamp)
    }

    /// Every slot a code of a window with large values may mark
    /// (`code_slot`), to mark without decoding; the scan reports the
    /// highest it marked (`marked_up_to`).
    #[inline]
    fn wide_slots(&mut self) -> (&mut [u32; WIDE_SLOTS], u32) {
        self.grow(WIDE_SLOTS);
        self.scanned = self.scanned.max(256);
        let slots = (&mut self.seen[..WIDE_SLOTS]).try_into().expect("slots");
        (slots, self.stamp)
    }

    /// Whether a byte slot without a value was marked; clears them.
    #[inline]
    fn take_missing(&mut self) -> bool {
        let stamp = self.stamp;
        let missing = NO_VALUE_BYTES.iter().any(|&b| self.seen[b] == stamp);
        if missing {
            NO_VALUE_BYTES.iter().for_each(|&b| self.seen[b] = 0);
        }
        missing
    }
}

/// A window's value bytes, whatever its layout (by coordinates or by
/// rank), and the large values kept past them: what `scan` reads.
pub trait ValueBytes {
    /// The bytes, one a position (`State::encode`).
    fn dense(&self) -> &[u8];
    /// The value of the position at `index` whose byte is `BIG`.
    fn big(&self, index: usize) -> Option<u64>;
    /// The 16-bit codes of the positions whose byte is `BIG`, indexed
    /// as the bytes (0 where the code is not kept there); empty while
    /// the window holds no large value.
    fn wide(&self) -> &[u16];
}

impl ValueBytes for Window<'_> {
    #[inline]
    fn dense(&self) -> &[u8] {
        Window::dense(self)
    }

    #[inline]
    fn big(&self, index: usize) -> Option<u64> {
        Window::big(self, index)
    }

    #[inline]
    fn wide(&self) -> &[u16] {
        Window::wide(self)
    }
}

impl ValueBytes for RankedWindow<'_> {
    #[inline]
    fn dense(&self) -> &[u8] {
        RankedWindow::dense(self)
    }

    #[inline]
    fn big(&self, index: usize) -> Option<u64> {
        RankedWindow::big(self, index)
    }

    #[inline]
    fn wide(&self) -> &[u16] {
        RankedWindow::wide(self)
    }
}

/// Where a run of options lies in a window: the index of each, in the
/// order of their bindings. An index past the window is an option the
/// window cannot answer.
pub trait Walk {
    /// The indices of the first `n` options, in order.
    fn indices(&self, n: usize) -> impl Iterator<Item = usize>;

    /// Marks the slot of each of the `n` options' bytes, whatever it
    /// holds; an index past `bytes` marks byte 0's (no value).
    #[inline(always)]
    fn mark_bytes(&self, bytes: &[u8], n: usize, stamp: u32, seen: &mut [u32; 256]) {
        mark_each(self.indices(n), bytes, stamp, seen);
    }

    /// Marks the slot of each of the `n` options' codes (`code_slot`),
    /// whatever they hold, in a window with large values (`wide` laid
    /// out as `bytes`); an index past `bytes` marks byte 0's (no value).
    /// Gives a bound of the slots marked: their bits or'ed (one
    /// instruction an option, where their maximum took two), at most
    /// twice the highest.
    #[inline(always)]
    fn mark_codes(
        &self,
        (bytes, wide): (&[u8], &[u16]),
        n: usize,
        stamp: u32,
        seen: &mut [u32; WIDE_SLOTS],
    ) -> usize {
        let slots = self.indices(n).map(|i| match (bytes.get(i), wide.get(i)) {
            (Some(&b), Some(&w)) => code_slot(b, w),
            _ => 0,
        });
        mark_slots(slots, stamp, seen)
    }
}

/// Marks each of `slots` (`code_slot`s); gives their bits or'ed
/// (`Walk::mark_codes`).
#[inline(always)]
fn mark_slots(slots: impl Iterator<Item = u32>, stamp: u32, seen: &mut [u32; WIDE_SLOTS]) -> usize {
    let mut top = 0;
    for slot in slots {
        top |= slot;
        seen[slot as usize & (WIDE_SLOTS - 1)] = stamp;
    }
    top as usize
}

/// `Walk::mark_bytes` one index at a time.
#[inline(always)]
pub fn mark_each(
    indices: impl Iterator<Item = usize>,
    bytes: &[u8],
    stamp: u32,
    seen: &mut [u32; 256],
) {
    for i in indices {
        seen[bytes.get(i).copied().unwrap_or(0) as usize] = stamp;
    }
}

/// The hot loop of the search: marks the values of the options `ks`,
/// which lie in `window` where `walk` says, and collects the options
/// the window cannot answer (in order) in `slow`. Not inlined: on its
/// own it keeps the loop's state in registers.
#[inline(never)]
pub fn scan(
    window: &impl ValueBytes,
    walk: &impl Walk,
    ks: Range<i64>,
    marks: &mut Marks,
    slow: &mut Vec<i64>,
) {
    let n = ks.end.saturating_sub(ks.start) as usize;
    let (bytes, wide) = (window.dense(), window.wide());
    // Where the window holds large values, the codes are read with the
    // bytes when the last such scan met one (values that grow with the
    // position: most options have one), else the bytes alone first, a
    // line of memory an option fewer, and the codes only if a byte is
    // `BIG`.
    if wide.is_empty() || !marks.large {
        let (seen, stamp) = marks.byte_slots();
        walk.mark_bytes(bytes, n, stamp, seen);
        if wide.is_empty() || seen[BIG as usize] != stamp {
            marks.large = false;
        } else {
            seen[BIG as usize] = 0;
            marks.large = true;
        }
    }
    if marks.large {
        // One read of each option's byte and code, no branch between.
        let (seen, stamp) = marks.wide_slots();
        let top = walk.mark_codes((bytes, wide), n, stamp, seen);
        marks.marked_up_to(top);
        marks.large = top >= 256;
    }
    // Options without a value are rare: a second pass collects them.
    if marks.take_missing() {
        collect(window, walk.indices(n).zip(ks), marks, slow);
    }
}

/// The second pass of a scan: marks the large values of the options
/// `(index, k)` and lists in `slow` those the window cannot answer.
#[inline(never)]
fn collect(
    window: &impl ValueBytes,
    options: impl Iterator<Item = (usize, i64)>,
    marks: &mut Marks,
    slow: &mut Vec<i64>,
) {
    let bytes = window.dense();
    for (i, k) in options {
        match bytes.get(i) {
            Some(&b) if !NO_VALUE_BYTES.contains(&(b as usize)) => {}
            Some(&BIG) => match window.big(i) {
                Some(v) => marks.add(v),
                None => slow.push(k),
            },
            _ => slow.push(k),
        }
    }
}

/// Marks the dense bytes `mark` reads, through the slots of the bytes
/// and the stamp (`seen[byte] = stamp`): true if `mark` read every
/// option (it says) and none was without a value. The runs of a sorted
/// list's settings mark their bytes as they are placed (`sorted_run.rs`).
#[inline(always)]
pub fn mark_bytes(marks: &mut Marks, mark: impl FnOnce(&mut [u32; 256], u32) -> bool) -> bool {
    let (seen, stamp) = marks.byte_slots();
    let inside = mark(seen, stamp);
    !marks.take_missing() && inside
}

/// A run of `n` options whose indices are `first + stride * j`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strided {
    pub first: usize,
    pub stride: isize,
    pub n: usize,
}

impl Strided {
    /// The run's bytes from the lowest index, whatever the sign of the
    /// stride, and the step between them (a stride of 0 is one byte):
    /// one bounds check for the whole run. `None` if it leaves `bytes`.
    #[inline(always)]
    pub(crate) fn window<T>(self, bytes: &[T]) -> Option<(&[T], usize)> {
        let n = if self.stride == 0 { 1 } else { self.n };
        let step = self.stride.unsigned_abs();
        let span = (n.checked_sub(1)?).checked_mul(step)?;
        let start = match self.stride >= 0 {
            true => self.first,
            false => self.first.checked_sub(span)?,
        };
        Some((bytes.get(start..=start.checked_add(span)?)?, step))
    }

    /// Marks the slot of every byte of the run; false, marking nothing,
    /// if it leaves `bytes`.
    #[inline(always)]
    pub fn mark_window(self, bytes: &[u8], stamp: u32, seen: &mut [u32; 256]) -> bool {
        if self.n == 0 {
            return true;
        }
        let Some((window, step)) = self.window(bytes) else {
            return false;
        };
        if step <= 1 {
            window.iter().for_each(|&b| seen[b as usize] = stamp);
            return true;
        }
        // Four options a step: fewer loop checks, and no branch.
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
        true
    }
}

impl Walk for Strided {
    #[inline(always)]
    fn indices(&self, n: usize) -> impl Iterator<Item = usize> {
        let (first, stride) = (self.first as isize, self.stride);
        (0..n as isize).map(move |j| first.wrapping_add(stride.wrapping_mul(j)) as usize)
    }

    #[inline(always)]
    fn mark_codes(
        &self,
        (bytes, wide): (&[u8], &[u16]),
        n: usize,
        stamp: u32,
        seen: &mut [u32; WIDE_SLOTS],
    ) -> usize {
        let run = Strided { n, ..*self };
        if n == 0 {
            return 0;
        }
        // One bounds check for the run (`wide` is laid out as `bytes`).
        let (Some((bytes, step)), Some((wide, _))) = (run.window(bytes), run.window(wide)) else {
            // Past the window: the second pass finds which.
            seen[0] = stamp;
            return 0;
        };
        let wide = &wide[..bytes.len()];
        let mut top = 0;
        if step <= 1 {
            // In blocks: the slots first (vector code), then a store each.
            const BLOCK: usize = 64;
            for (bytes, wide) in bytes.chunks(BLOCK).zip(wide.chunks(BLOCK)) {
                let mut slots = [0u32; BLOCK];
                for ((s, &b), &w) in slots.iter_mut().zip(bytes).zip(wide) {
                    *s = code_slot(b, w);
                }
                top |= slots.iter().fold(0, |t, &s| t | s);
                for &s in &slots[..bytes.len()] {
                    seen[s as usize & (WIDE_SLOTS - 1)] = stamp;
                }
            }
            return top as usize;
        }
        let slots = (0..bytes.len()).step_by(step);
        mark_slots(slots.map(|i| code_slot(bytes[i], wide[i])), stamp, seen)
    }

    #[inline(always)]
    fn mark_bytes(&self, bytes: &[u8], n: usize, stamp: u32, seen: &mut [u32; 256]) {
        let run = Strided { n, ..*self };
        if !run.mark_window(bytes, stamp, seen) {
            // Past the window: the second pass finds which.
            seen[0] = stamp;
        }
    }
}

/// A run of lists kept by rank (`ranked.rs`): one prefix sum moving is
/// one column of binomials read in order.
impl Walk for RankedRun<'_> {
    #[inline(always)]
    fn indices(&self, n: usize) -> impl Iterator<Item = usize> {
        (0..n).map(|t| self.index(t))
    }

    #[inline(always)]
    fn mark_bytes(&self, bytes: &[u8], n: usize, stamp: u32, seen: &mut [u32; 256]) {
        match self.one_column(n) {
            Some((fixed, rows, step)) => {
                let indices = rows.iter().step_by(step).map(|&c| fixed + c);
                mark_each(indices, bytes, stamp, seen);
            }
            None => mark_each(self.indices(n), bytes, stamp, seen),
        }
    }
}
