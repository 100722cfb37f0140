//! Position keys and memo tables.
//!
//! A position's arguments are flattened into a key: a shape (one tag per
//! argument: integer, boolean, or a list/set/tuple of integers of some
//! length) and the integers themselves. Keys of one shape whose integers are
//! small and non-negative live in a dense byte array, a box of the extent
//! its positions fill (untouched pages of it cost no memory, `zeroed.rs`
//! lengthens it in place); others go to a packed hash
//! table of their coordinates (`sparse.rs`). Arguments that do not flatten
//! (nested lists, games ...) are hashed as values.

mod density;
mod ranked;
pub mod scan;
mod sparse;
mod zeroed;

use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use self::density::{Density, PAGE};
use self::ranked::Ranking;
pub use self::ranked::{Binomials, LevelWalk, Order, Placed, RankedLine, RankedRun, SortedItems};
use self::sparse::{Slot, Sought, SparseTable};
use self::zeroed::Zeroed;
use super::gsg::INFINITE;
use super::value::Value;

/// What one argument of a flattened position is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    Int,
    Bool,
    List(u32),
    Set(u32),
    Tuple(u32),
    /// A set of integers from 0 to 63, as one coordinate: its bit mask.
    Bits,
}

impl Tag {
    /// An 8-bit code: the kind in the low 3 bits, the length (at most
    /// `MAX_COORDS`) above.
    fn code(self) -> Shape {
        let (kind, n) = match self {
            Tag::Int => (1, 0),
            Tag::Bool => (2, 0),
            Tag::List(n) => (3, n),
            Tag::Set(n) => (4, n),
            Tag::Tuple(n) => (5, n),
            Tag::Bits => (6, 0),
        };
        (kind | (n << 3)) as Shape
    }

    fn from_code(code: Shape) -> Tag {
        let n = (code >> 3) as u32;
        match code & 7 {
            1 => Tag::Int,
            2 => Tag::Bool,
            3 => Tag::List(n),
            4 => Tag::Set(n),
            6 => Tag::Bits,
            _ => Tag::Tuple(n),
        }
    }

    /// How many coordinates of a flattened key the argument takes.
    pub(crate) fn width(self) -> usize {
        match self {
            Tag::Int | Tag::Bool | Tag::Bits => 1,
            Tag::List(n) | Tag::Set(n) | Tag::Tuple(n) => n as usize,
        }
    }
}

pub use self::sparse::MAX_COORDS;
/// Most arguments a flattened key holds (8 bits of shape each).
pub const MAX_ARGS: u8 = 8;

/// The shape of a key: one tag code per argument, the first one highest.
pub type Shape = u64;

/// A position key: flattened into integers when every argument flattens
/// (and fits), else the argument values themselves.
#[derive(Clone, Debug)]
pub struct Key {
    shape: Shape,
    n_args: u8,
    len: u8,
    coords: [i64; MAX_COORDS],
    pub generic: Option<Rc<[Value]>>,
}

impl Default for Key {
    fn default() -> Key {
        Key {
            shape: 0,
            n_args: 0,
            len: 0,
            coords: [0; MAX_COORDS],
            generic: None,
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.shape == other.shape
            && self.n_args == other.n_args
            && self.coords() == other.coords()
            && self.generic == other.generic
    }
}

impl Eq for Key {}

/// One well-mixed word (`words_hash`), so that tables under a plain
/// FxHash (the loopy tables) spread keys of small coordinates.
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let head = [self.shape as i64, self.n_args as i64];
        state.write_u64(words_hash(&head) ^ words_hash(self.coords()));
        self.generic.hash(state);
    }
}

/// Faults in the pages of `bytes` for writing (`MADV_POPULATE_WRITE`),
/// their contents unchanged, for a range about to be written in full: a
/// page of zeroed memory read before it is written is otherwise faulted
/// twice (the shared zero page, then a copy on the write). A hint only:
/// where the system refuses it, the pages fault as they are met.
pub fn populate_for_writing(bytes: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = bytes.as_mut_ptr() as usize;
        let first = start & !(PAGE - 1);
        if bytes.len() >= 2 * PAGE {
            // SAFETY: the pages hold `bytes`, which this program owns (the
            // first and last may hold other memory of it too); populating
            // them changes how they are backed, never what they hold.
            unsafe {
                let at = first as *mut libc::c_void;
                libc::madvise(at, start + bytes.len() - first, libc::MADV_POPULATE_WRITE)
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
}

/// `Key::weight` of a key of `n` integers.
pub fn coords_weight(n: usize) -> usize {
    (26 + 8 * n).div_ceil(HASHED_BYTES).max(1)
}

/// A hash of integers whose every bit depends on every bit of them.
pub fn words_hash(words: &[i64]) -> u64 {
    sparse::hash(words)
}

/// About what a stored position costs in a hashed memo table: the unit of
/// the state limit (`Key::weight`).
pub const HASHED_BYTES: usize = 80;

/// About what a value held in a key costs, with what it holds.
fn value_bytes(v: &Value) -> usize {
    const HEADERS: usize = 40; // an `Rc` and a `Vec`
    let own = std::mem::size_of::<Value>();
    match v {
        Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => {
            own + HEADERS + xs.iter().map(value_bytes).sum::<usize>()
        }
        Value::Str(s) => own + HEADERS + s.len(),
        _ => own,
    }
}

impl Key {
    /// How many positions this one counts for against the state limit:
    /// one per `HASHED_BYTES` its memo entry takes, at least one. A key
    /// of many integers (a long list) takes more than a short one, and a
    /// key kept as values (`generic`) far more: counted once each, such
    /// positions would exhaust the machine's memory before the state
    /// limit.
    pub fn weight(&self) -> usize {
        let bytes = match &self.generic {
            Some(args) => 24 + args.iter().map(value_bytes).sum::<usize>(),
            None => return coords_weight(self.len()),
        };
        bytes.div_ceil(HASHED_BYTES).max(1)
    }

    pub fn clear(&mut self) {
        self.shape = 0;
        self.n_args = 0;
        self.len = 0;
        self.generic = None;
    }

    pub fn coords(&self) -> &[i64] {
        &self.coords[..self.len as usize]
    }

    pub fn n_args(&self) -> u8 {
        self.n_args
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tags, first argument first.
    pub fn tags(&self) -> impl Iterator<Item = Tag> + '_ {
        (0..self.n_args)
            .rev()
            .map(move |i| Tag::from_code((self.shape >> (8 * i as u32)) & 0xff))
    }

    /// Appends one integer coordinate (part of an argument being written);
    /// false if the key is full.
    #[inline]
    pub fn push_coord(&mut self, n: i64) -> bool {
        if self.len as usize >= MAX_COORDS {
            return false;
        }
        self.coords[self.len as usize] = n;
        self.len += 1;
        true
    }

    /// Ends an argument: its tag. False if the key has too many arguments.
    #[inline]
    pub fn push_tag(&mut self, tag: Tag) -> bool {
        if self.n_args >= MAX_ARGS {
            return false;
        }
        self.shape = (self.shape << 8) | tag.code();
        self.n_args += 1;
        true
    }

    /// Appends an integer argument.
    #[inline]
    pub fn push_int(&mut self, n: i64) -> bool {
        self.push_coord(n) && self.push_tag(Tag::Int)
    }

    /// Appends one argument; false if it does not flatten to integers.
    pub fn push_value(&mut self, v: &Value) -> bool {
        let (tag, items) = match v {
            Value::Int(n) => return self.push_int(*n),
            Value::Bool(b) => return self.push_coord(*b as i64) && self.push_tag(Tag::Bool),
            Value::List(xs) => (Tag::List(xs.len() as u32), xs),
            Value::Set(xs) => {
                // A set of small integers is one coordinate, its bit mask:
                // board games keep their free cells in one.
                if let Some(mask) = bit_mask(xs) {
                    return self.push_coord(mask as i64) && self.push_tag(Tag::Bits);
                }
                (Tag::Set(xs.len() as u32), xs)
            }
            Value::Tuple(xs) => (Tag::Tuple(xs.len() as u32), xs),
            _ => return false,
        };
        for x in items.iter() {
            match x {
                Value::Int(n) if self.push_coord(*n) => {}
                _ => return false,
            }
        }
        self.push_tag(tag)
    }

    /// The key of a position with these arguments.
    pub fn from_args(args: &[Value]) -> Key {
        let mut key = Key::default();
        key.set_args(args);
        key
    }

    pub fn set_args(&mut self, args: &[Value]) {
        self.clear();
        if !args.iter().all(|a| self.push_value(a)) {
            self.clear();
            self.generic = Some(Rc::from(args));
        }
    }

    /// The arguments back as values.
    pub fn to_args(&self) -> Rc<[Value]> {
        if let Some(g) = &self.generic {
            return g.clone();
        }
        let mut out = Vec::with_capacity(self.n_args as usize);
        self.push_args(&mut out);
        Rc::from(out)
    }

    /// Sets the key to these coordinates of a known shape, copied at
    /// once (at most `MAX_COORDS`).
    #[inline]
    pub fn set_coords(&mut self, shape: Shape, n_args: u8, coords: &[i64]) {
        self.shape = shape;
        self.n_args = n_args;
        self.generic = None;
        self.coords[..coords.len()].copy_from_slice(coords);
        self.len = coords.len() as u8;
    }

    /// Sets the key to these coordinates of a known shape.
    pub fn set_raw(&mut self, shape: Shape, n_args: u8, coords: impl Iterator<Item = i64>) {
        self.clear();
        self.shape = shape;
        self.n_args = n_args;
        for c in coords {
            self.coords[self.len as usize] = c;
            self.len += 1;
        }
    }

    /// The coordinates as integer values: the arguments of an integer-shaped
    /// key.
    pub fn int_args(&self) -> impl Iterator<Item = Value> + '_ {
        self.coords().iter().map(|&n| Value::Int(n))
    }

    /// Appends the arguments as values (no allocation for integer arguments).
    pub fn push_args(&self, out: &mut Vec<Value>) {
        if let Some(g) = &self.generic {
            out.extend(g.iter().cloned());
            return;
        }
        let mut at = 0;
        for tag in self.tags() {
            let ints = |n: u32| -> Vec<Value> {
                self.coords[at..at + n as usize]
                    .iter()
                    .map(|&c| Value::Int(c))
                    .collect()
            };
            out.push(match tag {
                Tag::Int => Value::Int(self.coords[at]),
                Tag::Bool => Value::Bool(self.coords[at] != 0),
                Tag::List(n) => Value::list(ints(n)),
                Tag::Set(n) => Value::Set(Rc::new(ints(n))),
                Tag::Tuple(n) => Value::tuple(ints(n)),
                Tag::Bits => Value::Set(Rc::new(bits_of(self.coords[at] as u64))),
            });
            at += tag.width();
        }
    }
}

/// The bit mask of a set whose items are all integers from 0 to 63.
pub fn bit_mask(items: &[Value]) -> Option<u64> {
    items.iter().try_fold(0u64, |m, x| match x {
        Value::Int(n) if (0..64).contains(n) => Some(m | 1 << n),
        _ => None,
    })
}

/// The bit mask of the last set asked for (held, so that its address
/// stays its own): the moves of one position ask about the same set again
/// and again (`c in cells`, `remove(cells, c)`).
#[derive(Default)]
pub struct MaskCache {
    last: std::cell::RefCell<Option<HeldMask>>,
}

/// A set and its bit mask (`None`: not a set of small integers).
type HeldMask = (Rc<Vec<Value>>, Option<u64>);

impl MaskCache {
    /// `bit_mask(xs)`, from the cache when `xs` is the set asked last.
    pub fn mask(&self, xs: &Rc<Vec<Value>>) -> Option<u64> {
        let mut last = self.last.borrow_mut();
        match &*last {
            Some((held, mask)) if Rc::ptr_eq(held, xs) => *mask,
            _ => {
                let mask = bit_mask(xs);
                *last = Some((xs.clone(), mask));
                mask
            }
        }
    }
}

/// The items of a bit mask, ascending.
fn bits_of(mut mask: u64) -> Vec<Value> {
    let mut out = Vec::with_capacity(mask.count_ones() as usize);
    while mask != 0 {
        out.push(Value::Int(mask.trailing_zeros() as i64));
        mask &= mask - 1;
    }
    out
}

/// `shape` with one more argument of kind `tag`; `None` past `MAX_ARGS`
/// arguments (`n_args` is the count so far).
pub fn shape_push(shape: Shape, n_args: u8, tag: Tag) -> Option<Shape> {
    (n_args < MAX_ARGS).then(|| (shape << 8) | tag.code())
}

/// Whether keys of `shape` lay out their first coordinate innermost in
/// the dense window: when they hold a sequence. A sorted list's smallest
/// items take the most values across a position's options (every item can
/// move below the smallest, as in Welter's game), so the strided runs over
/// them then read nearby bytes. Integer arguments keep the last innermost.
fn first_innermost(shape: Shape) -> bool {
    (0..MAX_ARGS).any(|i| matches!((shape >> (8 * i as u32)) & 7, 3..=5))
}

/// The order in which keys of `shape` with `n` coordinates lay out their
/// coordinates in the dense window, from the innermost (stride 1) out,
/// unless a sweep asked for another (`Memo::lay_out`).
pub fn default_order(shape: Shape, n: usize) -> [u8; MAX_COORDS] {
    let first = first_innermost(shape);
    let mut order = [0u8; MAX_COORDS];
    for (j, o) in order[..n].iter_mut().enumerate() {
        *o = if first { j } else { n - 1 - j } as u8;
    }
    order
}

/// Whether `shape` is one list or tuple argument of `n` (at least two)
/// integers.
fn one_sequence(shape: Shape, n: usize) -> bool {
    n >= 2
        && matches!(Tag::from_code(shape), Tag::List(m) | Tag::Tuple(m) if m as usize == n)
        && shape >> 8 == 0
}

/// The shape of `n` integer arguments.
pub fn int_shape(n: usize) -> Shape {
    (0..n).fold(0, |s, _| (s << 8) | Tag::Int.code())
}

/// What the memo knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Never seen; its `where` condition is not checked yet.
    Unknown,
    /// On the current search path: reaching it again means a cycle. Also
    /// a position of infinite value (a loopy game's, kept in its
    /// instance's `infinite` table): reaching one, the search hands over to
    /// the loopy labelling as it does at a cycle.
    OnPath,
    /// Violates its game's `where` condition: not a position.
    Invalid,
    /// A valid position whose value is not known yet.
    Valid,
    Value(u64),
}

impl State {
    /// The value, if the state holds one.
    pub fn value(self) -> Option<u64> {
        match self {
            State::Value(v) => Some(v),
            _ => None,
        }
    }

    fn encode(self) -> u64 {
        match self {
            State::Unknown => 0,
            State::OnPath => 1,
            State::Invalid => 2,
            State::Valid => 3,
            State::Value(v) => v + 4,
        }
    }

    fn decode(code: u64) -> State {
        match code {
            0 => State::Unknown,
            1 => State::OnPath,
            2 => State::Invalid,
            3 => State::Valid,
            v => State::Value(v - 4),
        }
    }
}

/// Dense byte codes above this live in `big` (the byte holds `BIG`).
pub const BIG: u8 = u8::MAX;

/// Largest dense index space (2^30 bytes of address space, touched only
/// where positions are).
const MAX_DENSE_BYTES: u64 = 1 << 30;

/// A window of up to `FREE_DENSE_BYTES` grows without asking how full it
/// would be.
pub const FREE_DENSE_BYTES: u64 = 1 << 22;

/// A larger window grows if the pages it would have written hold at
/// least `PAGE_FILL` positions each (see `ShapeTable::thin`), and goes
/// back to a small window when its written pages hold fewer than half
/// that (`ShapeTable::recheck`): 32 bytes a position, about what one
/// costs in the sparse table with its spare slots (at 64 a page, W14's
/// keys went dense once windows were laid out by extent, and its peak
/// memory doubled for no time gained). Narrowed only below where it grows: a
/// window narrowed at a fill it would grow at again was grown and
/// narrowed at every doubling of the memo, its positions moved each
/// time.
const PAGE_FILL: usize = 128;

/// A window is judged first when it has written this many pages (4 MiB),
/// then each time they double.
const RECHECK_PAGES: usize = 1024;

/// The stride of the coordinate laid out just outside one of `stride`
/// and extent `end`: past its whole range, and from 512 bytes up, where
/// that is a whole number of cache lines, an odd number of them. Options
/// read along a power-of-two stride (or one byte less: a diagonal) fall
/// in a few cache sets and evict one another.
fn stride_past(stride: usize, end: u64) -> usize {
    const LINE: usize = 64;
    let past = stride.saturating_mul(end as usize);
    if past < 512 || !past.is_multiple_of(LINE) {
        return past;
    }
    ((past / LINE) | 1) * LINE
}

/// How many positions a box of extents `ends` holds (saturating).
fn box_size(ends: &[u64]) -> u64 {
    ends.iter().fold(1u64, |size, &e| size.saturating_mul(e))
}

/// The extent a coordinate grows to when a position at `x` (past its
/// extent `end`) asks it to: at least `x + 1`, and at least an eighth
/// more, so that a coordinate asked one more at a time is laid out again
/// a few dozen times, not at every step: its unused room is in every row.
/// The outermost coordinate doubles instead, unless the position is the
/// far corner of a box about to be stored (`reserved`: a sweep's
/// reservation, whose box is then laid out exactly): its rows past those
/// stored are pages never touched.
fn grown_end(end: u64, x: u64, reserved: bool, outermost: bool) -> u64 {
    match outermost && !reserved {
        true => (x + 1).max(end.saturating_mul(2)),
        false => (x + 1).max(end + end / 8),
    }
}

/// The index of the position at `index` with a coordinate of `stride`
/// changed from `x` to `y` (wrapping: the caller checks `y` is in the
/// window).
#[inline]
fn replaced(index: usize, stride: usize, (x, y): (i64, i64)) -> usize {
    index.wrapping_add((y.wrapping_sub(x) as usize).wrapping_mul(stride))
}

/// The bytes `move_rows` tests and copies at a time.
const BLOCK: usize = 256;

/// Moves the rows of the innermost coordinate (`row` bytes each, stride
/// 1 in both layouts) from `old` to `new`, the outer coordinates given
/// from the inside out as their old extents and their old and new strides. Rows
/// with nothing stored are skipped; those in pages `written` (the old
/// window's `Density`, if it counted its writes) never wrote, unread.
fn move_rows(
    (old, written): (&[u8], Option<&Density>),
    new: &mut [u8],
    row: usize,
    outer: &[(u64, usize, usize)],
    density: &mut Density,
) {
    let unwritten = |lo: usize, hi: usize| written.is_some_and(|d| d.unwritten(lo, hi));
    // Rows next to each other in both layouts are moved as one (all of
    // them when only the outermost coordinate grew, as a sweep does).
    let (mut row, mut outer) = (row, outer);
    while let Some((&(end, ..), rest)) = outer
        .split_first()
        .filter(|(o, _)| o.1 == row && o.2 == row)
    {
        (row, outer) = (row * end as usize, rest);
    }
    // An odometer over the outer coordinates, the innermost fastest.
    let mut x = [0usize; MAX_COORDS];
    let (mut from, mut to) = (0usize, 0usize);
    loop {
        let bytes = &old[from..from + row];
        let page_end = (from / PAGE + 1) * PAGE;
        if let Some(&(end, old_stride, new_stride)) =
            outer.first().filter(|_| unwritten(from, row + from))
        {
            // The rows of the first outer coordinate within this page.
            let skip =
                ((page_end - from).saturating_sub(row) / old_stride + 1).min(end as usize - x[0]);
            x[0] += skip - 1;
            from += (skip - 1) * old_stride;
            to += (skip - 1) * new_stride;
        } else if row < 16 {
            for (j, &b) in bytes.iter().enumerate() {
                if b != 0 {
                    new[to + j] = b;
                    density.stored(to + j);
                }
            }
        } else {
            // Block by block, an OR of each (no early exit) runs as
            // vectors; blocks of zeros are not written, so that pages the
            // old window never wrote stay untouched in the new one.
            for (b, block) in bytes.chunks(BLOCK).enumerate() {
                let lo = from + b * BLOCK;
                if !unwritten(lo, lo + block.len())
                    && block.iter().fold(0u8, |acc, &b| acc | b) != 0
                {
                    let at = to + b * BLOCK;
                    new[at..at + block.len()].copy_from_slice(block);
                    density.copied(at, block);
                }
            }
        }
        let mut i = 0;
        loop {
            let Some(&(end, old_stride, new_stride)) = outer.get(i) else {
                return;
            };
            x[i] += 1;
            from += old_stride;
            to += new_stride;
            if (x[i] as u64) < end {
                break;
            }
            from -= x[i] * old_stride;
            to -= x[i] * new_stride;
            x[i] = 0;
            i += 1;
        }
    }
}

/// Where `coords` lie in a window of extents `ends` and `strides` per
/// coordinate, if they do.
#[inline]
fn index_in(coords: &[i64], ends: &[u64], strides: &[usize]) -> Option<usize> {
    let mut idx = 0usize;
    for ((&c, &end), &s) in coords.iter().zip(ends).zip(strides) {
        if c as u64 >= end {
            return None; // negative or too large for the window
        }
        idx += c as usize * s;
    }
    Some(idx)
}

/// The positions of one shape.
#[derive(Debug, Default)]
struct ShapeTable {
    n_coords: usize,
    /// The extent of the dense window per coordinate (a coordinate `x`
    /// lies in it if `0 <= x < end`), and their strides (see `layout`).
    ends: [u64; MAX_COORDS],
    strides: [usize; MAX_COORDS],
    /// Counts re-layouts of the window: a `Located` index from an older
    /// layout is stale.
    layout: u32,
    /// The coordinates from the innermost (stride 1) out: see
    /// `default_order`.
    order: [u8; MAX_COORDS],
    dense: Zeroed<u8>,
    /// The codes of positions whose byte is `BIG`, indexed like `dense`:
    /// two bytes a position where values pass 250, read without hashing.
    /// Allocated at the first large value; only its pages near large
    /// values are ever touched. 0: the code does not fit, look in `big`,
    /// and 0 wherever the byte is not `BIG` (scans read a position's
    /// code as the larger of the two, `scan::code_slot`).
    wide: Zeroed<u16>,
    /// The codes past 16 bits, by index in `dense`.
    big: FxHashMap<u64, u64>,
    /// Positions outside the window.
    sparse: SparseTable,
    /// The window may not grow (`try_grow`) until the memo stores this
    /// many positions.
    grow_after: usize,
    /// The pages of the window written and the positions in them.
    density: Density,
    /// The window's density is judged again (`recheck`) when it has
    /// written this many pages.
    recheck_pages: usize,
    /// Its bytes were handed out to be written (`Memo::line_bytes`):
    /// `density` no longer counts them, and the window is never judged.
    lent: bool,
    /// The window holds sequences of naturals at their rank (`ranked.rs`:
    /// by sum, or sorted lists by their largest item) instead of a box of bits per coordinate; it has no
    /// strides to read runs along.
    ranked: Option<Ranking>,
}

impl ShapeTable {
    fn new(n_coords: usize, order: [u8; MAX_COORDS]) -> ShapeTable {
        let mut t = ShapeTable {
            n_coords,
            ends: [1; MAX_COORDS],
            order,
            sparse: SparseTable::new(n_coords),
            ..ShapeTable::default()
        };
        t.layout();
        t
    }

    /// A table of `n` coordinates laid out by `Ranking` in `order`,
    /// sorted lists flipped if `flipped` (`Ranking::flipped`).
    fn ranked(n_coords: usize, order: Order, flipped: bool) -> ShapeTable {
        let mut t = ShapeTable::new(n_coords, default_order(0, n_coords));
        t.ranked = Some(match flipped {
            true => Ranking::flipped(n_coords, order),
            false => Ranking::new(n_coords, order),
        });
        t.dense = Zeroed::new(1);
        t
    }

    /// Lays the window out for `ends`: coordinate by coordinate from the
    /// innermost, each stride past the whole range of the one inside it
    /// (`stride_past`).
    fn layout(&mut self) {
        let (strides, bytes) = self.strides_for(&self.ends);
        self.strides = strides;
        self.dense = Zeroed::new(bytes);
        self.density = Density::new(bytes);
        self.layout = self.layout.wrapping_add(1);
    }

    /// The strides of a window of extents `ends`, and its size in bytes.
    fn strides_for(&self, ends: &[u64; MAX_COORDS]) -> ([usize; MAX_COORDS], usize) {
        let mut strides = [0usize; MAX_COORDS];
        let mut stride = 1usize;
        for i in self.inner_to_outer() {
            strides[i] = stride;
            stride = stride_past(stride, ends[i]);
        }
        (strides, stride)
    }

    /// The coordinates from the innermost (stride 1) outwards.
    fn inner_to_outer(&self) -> impl Iterator<Item = usize> + use<> {
        let order = self.order;
        (0..self.n_coords).map(move |j| order[j] as usize)
    }

    /// The coordinates of the position at `index`, under
    /// `strides` (outer coordinates first: each stride is past the whole
    /// range of those inside it).
    fn coords_at(&self, mut index: usize, strides: &[usize]) -> [usize; MAX_COORDS] {
        let mut coords = [0usize; MAX_COORDS];
        for &c in self.order[..self.n_coords].iter().rev() {
            let c = c as usize;
            coords[c] = index / strides[c];
            index %= strides[c];
        }
        coords
    }

    fn ends(&self) -> &[u64] {
        &self.ends[..self.n_coords]
    }

    fn strides(&self) -> &[usize] {
        &self.strides[..self.n_coords]
    }

    // Always inlined: every probe of an option asks it first.
    #[inline(always)]
    fn index(&self, coords: &[i64]) -> Option<usize> {
        match &self.ranked {
            Some(r) => r.index(coords),
            None => index_in(coords, self.ends(), self.strides()),
        }
    }

    /// The window laid out by coordinates, if it is (not `ranked`).
    fn boxed(&self) -> Option<&ShapeTable> {
        self.ranked.is_none().then_some(self)
    }

    /// The byte read inline (every option of a dense game reads one), a
    /// large code out of line.
    #[inline(always)]
    fn get_dense(&self, i: usize) -> u64 {
        match self.dense[i] {
            BIG => self.big_dense(i),
            code => code as u64,
        }
    }

    #[cold]
    #[inline(never)]
    fn big_dense(&self, i: usize) -> u64 {
        self.big_code(i).expect("a large value for a BIG byte")
    }

    /// The code of a position whose byte is `BIG`.
    #[inline]
    fn big_code(&self, i: usize) -> Option<u64> {
        match self.wide.get(i) {
            Some(&w) if w != 0 => Some(w as u64),
            _ => self.big.get(&(i as u64)).copied(),
        }
    }

    /// Keeps a code past `BIG` for the position at `i`: in `wide` if it
    /// fits in 16 bits, in `big` otherwise.
    fn put_big(&mut self, i: usize, code: u64) {
        put_large(&mut self.wide, &mut self.big, self.dense.len(), i, code);
    }

    /// Forgets the large code of the position at `i`.
    fn remove_big(&mut self, i: usize) {
        match self.wide.get_mut(i) {
            Some(w) if *w != 0 => *w = 0,
            _ => {
                self.big.remove(&(i as u64));
            }
        }
    }

    /// Whether the window holds any value past `BIG`.
    fn has_big(&self) -> bool {
        !self.wide.is_empty() || !self.big.is_empty()
    }

    /// Takes the large codes out, for a new layout to put back.
    fn take_big(&mut self) -> LargeCodes {
        LargeCodes {
            wide: std::mem::take(&mut self.wide),
            big: std::mem::take(&mut self.big),
        }
    }

    #[inline]
    fn get(&self, coords: &[i64]) -> u64 {
        match self.index(coords) {
            Some(i) => self.get_dense(i),
            None => self.sparse.get(coords).unwrap_or(0),
        }
    }

    #[inline]
    fn set_dense(&mut self, i: usize, code: u64) {
        let old = self.dense[i];
        if old == 0 && code != 0 {
            self.density.stored(i);
        }
        // A byte for a byte, inlined; a large code kept apart out of line.
        if code < BIG as u64 && old != BIG {
            self.dense[i] = code as u8;
            return;
        }
        self.set_large(i, code);
    }

    #[inline(never)]
    fn set_large(&mut self, i: usize, code: u64) {
        if code >= BIG as u64 {
            self.dense[i] = BIG;
            self.put_big(i, code);
        } else {
            if self.dense[i] == BIG {
                self.remove_big(i);
            }
            self.dense[i] = code as u8;
        }
    }

    /// Widens the window to take `coords` if they lie outside it (and it
    /// can: see `try_grow`), however few positions it would hold: a sweep
    /// asks ahead for the positions it is about to store.
    fn make_room(&mut self, coords: &[i64]) {
        if self.index(coords).is_none() {
            self.try_grow(coords, None);
        }
    }

    /// Stores `code` for `coords`, and gives where; `stored` (the memo's
    /// positions so far) decides whether a window too small for them may
    /// grow.
    fn set(&mut self, coords: &[i64], code: u64, stored: usize) -> Option<(Place, usize)> {
        if self.density.n_pages >= self.recheck_pages {
            self.recheck(stored);
        }
        if let Some(i) = self.index(coords) {
            self.set_dense(i, code);
            return Some((Place::Dense, i));
        }
        if let Some(slot) = self.sparse.overwrite(coords, code) {
            return Some((Place::Sparse, slot));
        }
        // Only a new position may make the window grow.
        let layout = self.layout;
        self.try_grow(coords, Some(stored));
        if let Some(i) = (self.layout != layout)
            .then(|| self.index(coords))
            .flatten()
        {
            self.set_dense(i, code);
            return Some((Place::Dense, i));
        }
        let slot = self.sparse.insert_new(coords, code)?;
        Some((Place::Sparse, slot))
    }

    /// Judges the window again as its written pages double: one past
    /// `FREE_DENSE_BYTES` whose written pages hold fewer than half
    /// `PAGE_FILL` positions each (a search whose first positions filled their pages,
    /// and whose later ones spread thinly: sets of visited vertices) is
    /// narrowed to
    /// at most `FREE_DENSE_BYTES`, its other positions moved to the sparse
    /// table, and may not grow again until the memo doubles.
    fn recheck(&mut self, stored: usize) {
        self.recheck_pages = self.density.n_pages.saturating_mul(2).max(RECHECK_PAGES);
        let n = self.n_coords;
        if self.lent || self.ranked.is_some() || box_size(self.ends()) <= FREE_DENSE_BYTES {
            return;
        }
        if 2 * self.density.positions >= self.density.n_pages * PAGE_FILL {
            return;
        }
        let mut ends = self.ends;
        while box_size(&ends[..n]) > FREE_DENSE_BYTES {
            let widest = (0..n).max_by_key(|&c| ends[c]).unwrap_or(0);
            ends[widest] = ends[widest].div_ceil(2);
        }
        let old_dense = std::mem::take(&mut self.dense);
        let old_big = self.take_big();
        let old_density = std::mem::take(&mut self.density);
        let old_strides = self.strides;
        self.ends = ends;
        self.layout();
        let mut coords = [0i64; MAX_COORDS];
        for page in old_density.written() {
            let start = page * PAGE;
            let end = (start + PAGE).min(old_dense.len());
            for (i, &b) in old_dense[start..end].iter().enumerate() {
                if b == 0 {
                    continue;
                }
                let i = start + i;
                let code = match b {
                    BIG => old_big.code(i),
                    _ => b as u64,
                };
                let at = self.coords_at(i, &old_strides);
                for c in 0..n {
                    coords[c] = at[c] as i64;
                }
                match self.index(&coords[..n]) {
                    Some(j) => self.set_dense(j, code),
                    None => {
                        self.sparse.insert_new(&coords[..n], code);
                    }
                }
            }
        }
        self.grow_after = stored.saturating_mul(2);
        self.recheck_pages = RECHECK_PAGES;
    }

    /// Whether a window of extents `need` (`need_size` positions) would be too
    /// thin: the pages it would have written (those of the window so far
    /// and those the sparse table's positions would fall in) hold fewer
    /// than `PAGE_FILL` positions each. A search along lines fills the
    /// pages it touches however large the window; one over bit masks of
    /// subsets touches a page a position. Judged again only once the
    /// memo's positions (`stored`, or those held, on the search path too)
    /// have doubled: a deep search holds thousands before its first
    /// value, and each would ask here. How many positions the memo holds
    /// says nothing of where they lie: a window grown because they were
    /// many, then narrowed by `recheck` because they lay scattered, grew
    /// and narrowed again at every doubling, moving them all each time.
    fn thin(&mut self, need: &[u64; MAX_COORDS], need_size: u64, stored: usize) -> bool {
        let held = stored.max(self.density.positions + self.sparse.len());
        if need_size <= FREE_DENSE_BYTES {
            return false;
        }
        if held < self.grow_after {
            return true;
        }
        let (mut pages, mut positions) = (self.density.n_pages, self.density.positions);
        if self.lent {
            // A sweep wrote the bytes: `density` did not count them.
            (pages, positions) = (0, 0);
            for page in self.dense.chunks(PAGE) {
                let here = page.iter().filter(|&&b| b != 0).count();
                pages += (here != 0) as usize;
                positions += here;
            }
        }
        let (strides, bytes) = self.strides_for(need);
        let mut sparse_pages = Density::new(bytes);
        // Read until the pages written alone make it thin whatever the
        // positions not read yet: spread positions decide in a few pages.
        let most = positions + self.sparse.len();
        self.sparse.coords_while(|coords| {
            if let Some(index) = index_in(coords, need, &strides) {
                sparse_pages.stored(index);
            }
            (pages + sparse_pages.n_pages) * PAGE_FILL <= most
        });
        pages += sparse_pages.n_pages;
        positions += sparse_pages.positions;
        let thin = positions < pages * PAGE_FILL;
        if thin {
            self.grow_after = (held + 1).saturating_mul(2);
        }
        thin
    }

    /// Whether `thin` holds for any position outside the window (which
    /// needs a larger one) before the memo doubles: the window is past
    /// `FREE_DENSE_BYTES` and was judged thin at half its `held`.
    #[inline]
    fn judged_thin(&self, stored: usize) -> bool {
        let held = stored.max(self.density.positions + self.sparse.len());
        held < self.grow_after && box_size(self.ends()) >= FREE_DENSE_BYTES
    }

    /// The extents of a window that takes `coords` (not negative) as
    /// well (`grown_end`, `reserved` for a sweep's reservation), per
    /// coordinate, and the positions it holds.
    #[inline]
    fn need(&self, coords: &[i64], reserved: bool) -> ([u64; MAX_COORDS], u64) {
        let mut need = self.ends;
        let outermost = self.order[self.n_coords.saturating_sub(1)] as usize;
        for (c, (n, &x)) in need[..self.n_coords].iter_mut().zip(coords).enumerate() {
            if x as u64 >= *n {
                *n = grown_end(*n, x as u64, reserved, c == outermost);
            }
        }
        (need, box_size(&need[..self.n_coords]))
    }

    /// Whether the window (not ranked) stays as it is for a new position
    /// at `coords` outside it, by the checks that read neither the
    /// window nor the sparse table: judged thin until the memo doubles
    /// (`judged_thin`, `thin`), a negative coordinate, or past
    /// `MAX_DENSE_BITS`. False: `try_grow` must judge. Inlined: every
    /// store into a vacant sparse slot asks it (a call was a third of it).
    #[inline(always)]
    fn stays(&self, coords: &[i64], stored: usize) -> bool {
        // Outside a window past `FREE_DENSE_BITS`, a position needs more
        // bits still: `thin` holds until the memo doubles, unasked.
        if self.judged_thin(stored) || coords.iter().any(|&c| c < 0) {
            return true;
        }
        let held = stored.max(self.density.positions + self.sparse.len());
        let (_, need_size) = self.need(coords, false);
        need_size > MAX_DENSE_BYTES || (need_size > FREE_DENSE_BYTES && held < self.grow_after)
    }

    /// Stores a new position found missing at a sparse slot (`vacancy`:
    /// the slot and the sparse table's generation then) in that slot,
    /// without looking for it again, when nothing moved since and the
    /// window stays as it is (`stays`); its slot. `None`: nothing stored
    /// (`set` does it all).
    #[inline]
    fn set_vacant(
        &mut self,
        coords: &[i64],
        code: u64,
        stored: usize,
        vacancy: (usize, u32),
    ) -> Option<usize> {
        let due = self.density.n_pages >= self.recheck_pages;
        if due || self.ranked.is_some() || !self.stays(coords, stored) {
            return None;
        }
        self.sparse.insert_vacant(coords, code, vacancy)
    }

    /// Widens the dense window to take `coords` if they are non-negative,
    /// the window stays within `MAX_DENSE_BYTES` and, past
    /// `FREE_DENSE_BYTES`, it would not be too thin for the `stored`
    /// positions (`thin`; `None`: a sweep asks ahead for the positions it
    /// will store, not judged); moves every entry over. Positions spread thinly
    /// (sets of 40 small integers as bit masks) stay in the sparse table,
    /// which costs a few dozen bytes each, instead of touching a page of
    /// the window each.
    fn try_grow(&mut self, coords: &[i64], stored: Option<usize>) {
        if self.ranked.is_some() {
            return self.grow_ranked(coords);
        }
        if stored.is_some_and(|stored| self.stays(coords, stored)) {
            return;
        }
        if coords.iter().any(|&c| c < 0) {
            return;
        }
        let (need, need_size) = self.need(coords, stored.is_none());
        let thin = |t: &mut ShapeTable, stored| t.thin(&need, need_size, stored);
        if need_size > MAX_DENSE_BYTES || stored.is_some_and(|stored| thin(self, stored)) {
            return;
        }
        // A window past the budget is not made: its positions stay in the
        // sparse table, whose growth the budget checks.
        let (strides, bytes) = self.strides_for(&need);
        let wide = if self.has_big() { 2 * bytes } else { 0 };
        if !crate::budget::fits(bytes + wide) {
            return;
        }
        if strides == self.strides {
            // Only the outermost coordinate grew: every index stays, and
            // the arrays are lengthened in place, not copied.
            self.ends = need;
            self.dense.grow(bytes);
            if !self.wide.is_empty() {
                self.wide.grow(bytes);
            }
            self.density.grow(bytes);
            self.layout = self.layout.wrapping_add(1);
            return self.take_in_sparse();
        }
        let old_dense = std::mem::take(&mut self.dense);
        let old_big = self.take_big();
        let old_density = std::mem::take(&mut self.density);
        let (old_ends, old_strides) = (self.ends, self.strides);
        self.ends = need;
        self.layout();
        // Each coordinate keeps its value; only its stride changes.
        let n = self.n_coords;
        let new_strides = self.strides;
        let mut order = self.inner_to_outer();
        let inner = order.next().unwrap_or(0);
        let outer: SmallVec<[(u64, usize, usize); MAX_COORDS]> = order
            .map(|c| (old_ends[c], old_strides[c], new_strides[c]))
            .collect();
        let row = old_ends[inner] as usize;
        let written = (!self.lent).then_some(&old_density);
        move_rows(
            (&old_dense, written),
            &mut self.dense,
            row,
            &outer,
            &mut self.density,
        );
        let moved = |i: usize| -> usize {
            let coords = self.coords_at(i, &old_strides);
            (0..n).map(|c| coords[c] * new_strides[c]).sum()
        };
        let (mut wide, mut big) = (Zeroed::default(), FxHashMap::default());
        for (i, code) in old_big.iter(&old_dense) {
            put_large(&mut wide, &mut big, self.dense.len(), moved(i), code);
        }
        (self.wide, self.big) = (wide, big);
        self.take_in_sparse();
    }

    /// Gives a flipped ranked window without a bound yet the bound of
    /// `coords` (`Ranking::set_bound`), if the budget lets it.
    fn bound_flipped(&mut self, coords: &[i64]) {
        let Some(mut bounded) = self.ranked.clone() else {
            return;
        };
        if !bounded.set_bound(coords) || !crate::budget::fits(bounded.len()) {
            return;
        }
        // Nothing is ranked before the bound: the window was empty.
        self.dense = Zeroed::new(bounded.len());
        self.ranked = Some(bounded);
        self.layout = self.layout.wrapping_add(1);
        self.take_big();
        self.take_in_sparse();
    }

    /// Widens a ranked window to the level of `coords`, if they are
    /// naturals of its kind and the budget lets it, at least doubling it:
    /// ranks stay, the new indices come after the old ones.
    // Only for ranked lists: kept out of `try_grow`.
    #[inline(never)]
    fn grow_ranked(&mut self, coords: &[i64]) {
        let Some(ranking) = &self.ranked else {
            return;
        };
        if ranking.is_flipped() {
            return self.bound_flipped(coords);
        }
        let Some(sum) = ranking.level(coords) else {
            return;
        };
        let mut grown = ranking.clone();
        if !grown.grow(sum) {
            return;
        }
        // Doubling: sums asked one after another do not copy each time.
        let mut wider = grown.clone();
        let mut s = sum;
        while wider.len() < 2 * self.dense.len() && wider.grow(s + 1) {
            s += 1;
        }
        if crate::budget::fits(wider.len()) {
            grown = wider;
        }
        let bytes = grown.len();
        let wide = if self.has_big() { 2 * bytes } else { 0 };
        if !crate::budget::fits(bytes + wide) {
            return;
        }
        // Ranks stay: the bytes and the large codes keep their indices,
        // lengthened in place (pages past the old ones stay untouched
        // until a position is stored in them).
        self.dense.grow(bytes);
        if !self.wide.is_empty() {
            self.wide.grow(bytes);
        }
        self.ranked = Some(grown);
        self.layout = self.layout.wrapping_add(1);
        self.take_in_sparse();
    }

    /// Moves the sparse table's positions that lie in the window into it;
    /// the others stay (they do not make the window grow: only a new
    /// position asks that, and `thin` decides).
    fn take_in_sparse(&mut self) {
        let mut sparse = std::mem::take(&mut self.sparse);
        sparse.retain(|c, code| match self.index(c) {
            Some(i) => {
                self.set_dense(i, code);
                false
            }
            None => true,
        });
        self.sparse = sparse;
    }
}

/// Where a key's state lives: its index in the dense window of its
/// shape, good until the window is laid out anew, or its slot in the
/// sparse table (or the vacant slot where it was found missing), good
/// until that table's generation changes (its slots grow, it packs its
/// positions anew, or the window takes them).
#[derive(Clone, Copy, Debug)]
pub struct Located {
    table: usize,
    index: usize,
    /// The window's layout, or the sparse table's generation.
    layout: u32,
    place: Place,
}

/// What a `Located` index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Dense,
    /// A slot of the sparse table holding the key.
    Sparse,
    /// The vacant slot of the sparse table where the key was found
    /// missing: where a store puts it.
    Vacant,
}

impl Located {
    /// Whether the key has a state stored here (not found missing).
    pub fn holds(&self) -> bool {
        self.place != Place::Vacant
    }
}

/// A flattened key in one word (`Memo::pack_key`): its shape table, the
/// number of the sparse table's packing and the word packed under it.
/// Good for as long as the memo: a search holds keys so on its stack.
#[derive(Clone, Copy, Debug)]
pub struct PackedKey {
    table: u32,
    packing: u8,
    word: u64,
}

/// The state of `coords` in `table` (shape table `s`), and where it
/// lives or would go.
#[inline]
fn located_in(table: &ShapeTable, s: usize, coords: &[i64]) -> (State, Option<Located>) {
    if let Some(index) = table.index(coords) {
        let at = Located {
            table: s,
            index,
            layout: table.layout,
            place: Place::Dense,
        };
        return (State::decode(table.get_dense(index)), Some(at));
    }
    located_sparse(table, s, table.sparse.locate(coords))
}

/// Calls `f` with each byte of `bytes` that is not zero, in order,
/// reading them a word at a time.
fn for_each_nonzero_byte(bytes: &[u8], mut f: impl FnMut(u8)) {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        let mut word = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        while word != 0 {
            let shift = word.trailing_zeros() & !7;
            f((word >> shift) as u8);
            word &= !(0xFF << shift);
        }
    }
    tail.iter().filter(|&&b| b != 0).for_each(|&b| f(b));
}

/// The state and place of a position outside the window of `table`
/// (shape table `s`), from the lookup in its sparse table.
#[inline]
fn located_sparse(table: &ShapeTable, s: usize, slot: Option<Slot>) -> (State, Option<Located>) {
    let Some(slot) = slot else {
        return (State::Unknown, None);
    };
    let (place, index, code) = match slot {
        Slot::Held(i, code) => (Place::Sparse, i, code),
        Slot::Vacant(i) => (Place::Vacant, i, 0),
    };
    let layout = table.sparse.generation();
    let at = Located {
        table: s,
        index,
        layout,
        place,
    };
    (State::decode(code), Some(at))
}

/// The positions of one shape's dense window that differ only in
/// coordinate `coord` (`Memo::line`): a table swept along one argument
/// reads and writes them by index. Good while the window keeps its
/// layout (`Memo::line_bytes` checks).
#[derive(Clone, Copy, Debug)]
pub struct Line {
    table: usize,
    layout: u32,
    /// The index with coordinate `coord` at 0.
    base: usize,
    coord: usize,
    /// The window's extent per coordinate, and their strides.
    pub ends: [u64; MAX_COORDS],
    pub strides: [usize; MAX_COORDS],
}

impl Line {
    /// How far apart in the window the line's neighbouring positions lie.
    pub fn stride(&self) -> usize {
        self.strides[self.coord]
    }

    /// The index of the position whose coordinate `coord` is `x`, if it
    /// lies in the window.
    #[inline]
    pub fn index(&self, x: i64) -> Option<usize> {
        ((x as u64) < self.ends[self.coord])
            .then(|| self.base + x as usize * self.strides[self.coord])
    }

    /// The index of the position at `index` with coordinate `c` changed
    /// from `x` to `y`, if `y` lies in the window.
    #[inline]
    pub fn moved(&self, index: usize, c: usize, (x, y): (i64, i64)) -> Option<usize> {
        if y as u64 >= self.ends[c] {
            return None;
        }
        Some(replaced(index, self.strides[c], (x, y)))
    }

    /// Where the position at `index` lives, for `Memo::set_located`.
    #[inline]
    pub fn located(&self, index: usize) -> Located {
        Located {
            table: self.table,
            index,
            layout: self.layout,
            place: Place::Dense,
        }
    }
}

/// Keeps `code` (past `BIG`) for the position at `i` of a window of
/// `len` bytes: in `wide` if it fits in 16 bits, in `big` otherwise.
fn put_large(
    wide: &mut Zeroed<u16>,
    big: &mut FxHashMap<u64, u64>,
    len: usize,
    i: usize,
    code: u64,
) {
    if wide.is_empty() {
        // Zeroed: pages stay untouched until written.
        *wide = Zeroed::new(len);
    }
    debug_assert_eq!(wide.len(), len, "large codes laid out as the bytes");
    match u16::try_from(code) {
        Ok(w) if w != 0 => {
            wide[i] = w;
            if !big.is_empty() {
                big.remove(&(i as u64));
            }
        }
        _ => {
            wide[i] = 0;
            big.insert(i as u64, code);
        }
    }
}

/// The large codes of a window taken out while its layout changes
/// (`ShapeTable::take_big`), read by their old indices.
struct LargeCodes {
    wide: Zeroed<u16>,
    big: FxHashMap<u64, u64>,
}

impl LargeCodes {
    /// The code of the position at old index `i`, whose byte is `BIG`.
    fn code(&self, i: usize) -> u64 {
        match self.wide.get(i) {
            Some(&w) if w != 0 => w as u64,
            _ => self.big.get(&(i as u64)).copied().unwrap_or(0),
        }
    }

    /// Every (old index, code), the bytes `dense` of the old layout
    /// saying which indices are large.
    fn iter<'a>(&'a self, dense: &'a [u8]) -> impl Iterator<Item = (usize, u64)> + 'a {
        let in_wide = self.wide.iter().enumerate().filter(|&(_, &w)| w != 0);
        let wide = in_wide.map(|(i, &w)| (i, w as u64));
        let big = self.big.iter().map(|(&i, &code)| (i as usize, code));
        debug_assert!(wide.clone().all(|(i, _)| dense[i] == BIG));
        wide.chain(big)
    }
}

/// A read-only view of one shape's dense window (`Memo::window`).
pub struct Window<'m> {
    table: &'m ShapeTable,
}

impl<'m> Window<'m> {
    /// The window's bytes: 4..=254 are values 0..=250 (`State::encode`),
    /// `BIG` a larger value kept elsewhere.
    #[inline]
    pub fn dense(&self) -> &'m [u8] {
        &self.table.dense
    }

    /// The 16-bit codes of its large values (`ShapeTable::wide`,
    /// indexed like the bytes, 0 where the byte is not `BIG`; empty while
    /// it has none): a scan marks those without a lookup.
    #[inline]
    pub fn wide(&self) -> &'m [u16] {
        &self.table.wide
    }

    /// Where the positions `bases + coefs * k`, `k` in `lo..hi` (not
    /// empty), lie in the window, if they all do (and fit in 64 bits): the
    /// first index and the stride between consecutive `k`.
    #[inline]
    pub fn run(&self, bases: &[i64], coefs: &[i64], lo: i64, hi: i64) -> Option<(usize, isize)> {
        let table = self.table;
        if bases.len() != table.n_coords || coefs.len() != table.n_coords {
            return None;
        }
        // Affine coordinates are monotone in k: both ends in the window
        // put the whole run in it.
        let (mut first, mut stride, mut outside) = (0usize, 0isize, 0u64);
        let per_coord = bases.iter().zip(coefs).zip(&table.ends).zip(&table.strides);
        for (((&base, &coef), &end), &step) in per_coord {
            let (at_lo, at_hi) = if coef == 0 {
                (base, base)
            } else {
                (
                    base.checked_add(coef.checked_mul(lo)?)?,
                    base.checked_add(coef.checked_mul(hi - 1)?)?,
                )
            };
            outside |= ((at_lo as u64).max(at_hi as u64) >= end) as u64;
            first = first.wrapping_add((at_lo as usize).wrapping_mul(step));
            stride = stride.wrapping_add((coef as isize).wrapping_mul(step as isize));
        }
        (outside == 0).then_some((first, stride))
    }

    /// The value of the position at `index` whose byte is `BIG`: kept in
    /// the window's map of large values.
    #[inline]
    pub fn big(&self, index: usize) -> Option<u64> {
        big_value(self.table, index)
    }

    /// Where coordinate `coord` lies in an index: its extent and its
    /// stride. A value `v` lies in the window if `v < end` (as unsigned)
    /// and adds `v * stride` to the index.
    #[inline]
    pub fn place(&self, coord: usize) -> (u64, usize) {
        (self.table.ends[coord], self.table.strides[coord])
    }

    /// `place` of every coordinate: their extents and their strides.
    #[inline]
    pub fn layout(&self) -> (&'m [u64; MAX_COORDS], &'m [usize; MAX_COORDS]) {
        (&self.table.ends, &self.table.strides)
    }

    /// How many coordinates the window's keys have.
    #[inline]
    pub fn n_coords(&self) -> usize {
        self.table.n_coords
    }

    /// Which layout of which window this is: a placement (`run`) made in
    /// a window with the same stamp still holds.
    #[inline]
    pub fn stamp(&self) -> (usize, u32) {
        (self.table.dense.as_ptr() as usize, self.table.layout)
    }
}

/// A read-only view of one shape's window laid out by rank of sum
/// (`Memo::ranked`).
/// A shape's dense window, laid out by coordinates or by rank
/// (`Memo::dense_of`).
pub enum DenseOf<'m> {
    Boxed(Window<'m>),
    Ranked(RankedWindow<'m>),
}

pub struct RankedWindow<'m> {
    table: &'m ShapeTable,
    ranking: &'m Ranking,
}

impl<'m> RankedWindow<'m> {
    /// The window's bytes, as `Window::dense`.
    #[inline]
    pub fn dense(&self) -> &'m [u8] {
        &self.table.dense
    }

    /// The place of the list `items`, if ranked by sum.
    #[inline]
    pub fn place(&self, items: &[i64]) -> Option<Placed> {
        self.ranking.place(items)
    }

    /// The binomials of its ranking.
    #[inline]
    pub fn binomials(&self) -> Binomials<'m> {
        self.ranking.binomials()
    }

    /// The value of the position at `index` whose byte is `BIG`, as
    /// `Window::big`.
    #[inline]
    pub fn big(&self, index: usize) -> Option<u64> {
        big_value(self.table, index)
    }

    /// The 16-bit codes of its large values, as `Window::wide`.
    #[inline]
    pub fn wide(&self) -> &'m [u16] {
        &self.table.wide
    }

    /// How the items of a sorted list add to its index, if the window
    /// ranks sorted lists.
    #[inline]
    pub fn sorted_items(&self) -> Option<SortedItems<'m>> {
        self.ranking.sorted_items()
    }
}

/// A window laid out by rank of sum, lent to be filled a level at a time
/// in place (`Memo::ranked_fill`).
pub struct RankedFill<'m> {
    ranking: &'m mut Ranking,
    pub dense: &'m mut [u8],
}

impl RankedFill<'_> {
    /// The level of `coords`, if a list of the ranking's kind.
    pub fn level(&self, coords: &[i64]) -> Option<usize> {
        self.ranking.level(coords)
    }

    /// Claims level `s` for a fill: false if claimed before.
    pub fn claim(&mut self, s: usize) -> bool {
        self.ranking.claim(s)
    }

    /// How many lists level `s` holds, if it is ranked.
    pub fn level_len(&self, s: usize) -> Option<usize> {
        self.ranking.level_len(s)
    }

    /// Its lists in rank order, down or up (`Ranking::level_walk`).
    pub fn walk(&self, s: usize, descending: bool) -> Option<LevelWalk> {
        self.ranking.level_walk(s, descending)
    }

    /// Its binomials.
    pub fn binomials(&self) -> Binomials<'_> {
        self.ranking.binomials()
    }
}

/// The value `table` keeps for `index` in its map of large values.
fn big_value(table: &ShapeTable, index: usize) -> Option<u64> {
    match State::decode(table.big_code(index)?) {
        State::Value(v) => Some(v),
        _ => None,
    }
}

/// The positions of infinite value of a loopy game's instance
/// (`crate::eval::gsg`): a memo table of the numbers of their K sets,
/// which are few and small, so that a dense window reads them from its
/// bytes as it reads small SG values.
#[derive(Debug, Default)]
pub struct InfiniteMemo(Memo);

impl InfiniteMemo {
    /// The infinite value of `key`, if it has one.
    pub fn get(&mut self, key: &Key) -> Option<u64> {
        if self.0.stored == 0 {
            return None;
        }
        self.0.get(key).value().map(|id| id | INFINITE)
    }

    /// `get` for the integer key `coords` of `shape`.
    pub fn get_coords(&mut self, shape: Shape, coords: &[i64]) -> Option<u64> {
        if self.0.stored == 0 {
            return None;
        }
        (self.0.get_coords(shape, coords).value()).map(|id| id | INFINITE)
    }

    /// The line of `Memo::line` in this table's window, with its bytes:
    /// `scan::byte_value` of a byte is the number of a K set.
    pub fn line(&mut self, shape: Shape, coords: &[i64], coord: usize) -> Option<(Line, &[u8])> {
        let line = self.0.line(shape, coords, coord)?;
        let bytes = self.0.line_bytes(&line)?;
        Some((line, bytes))
    }

    /// Keeps the infinite value `v` of `key`.
    pub fn set(&mut self, key: &Key, v: u64) {
        debug_assert!(v & INFINITE != 0);
        self.0.set(key, State::Value(v & !INFINITE));
    }

    /// Widens the dense window of `shape` to take `coords` (as
    /// `Memo::reserve`), ahead of storing many positions.
    pub fn reserve(&mut self, shape: Shape, coords: &[i64]) {
        self.0.reserve_new(shape, coords);
    }

    /// `Memo::set_line` of infinite values (`None`: nothing stored).
    pub fn set_line(
        &mut self,
        shape: Shape,
        (first, coord, len): (&[i64], usize, usize),
        mut value: impl FnMut(usize) -> Option<u64>,
    ) -> bool {
        (self.0).set_line(shape, (first, coord, len), |j| {
            value(j).map(|v| State::Value(v & !INFINITE))
        })
    }

    /// Calls `f` with every infinite value kept.
    pub fn for_each_value(&self, mut f: impl FnMut(u64)) {
        self.0.for_each_value(|id| f(id | INFINITE));
    }
}

/// The lookup of one of many options listed in a row (`Memo::probe`).
#[derive(Clone, Copy, Debug)]
pub enum Probe {
    /// Its state when listed, and where it lives or would go (none: its
    /// shape held no position then, or it does not pack).
    Found(State, Option<Located>),
    /// In shape table `table`'s sparse table, past the cache: its slot
    /// prefetched, its lookup's start `sought` (if they pack) good while
    /// the table's generation stays.
    Sparse {
        table: usize,
        generation: u32,
        sought: Option<Sought>,
    },
}

/// The memo table of one game instance.
#[derive(Debug, Default)]
pub struct Memo {
    shapes: Vec<(Shape, ShapeTable)>,
    shape_ids: FxHashMap<Shape, usize>,
    /// The shape used last: most games have one shape.
    last_shape: usize,
    generic: FxHashMap<Rc<[Value]>, u64>,
    /// How many positions have a value or are known not to be positions.
    pub stored: usize,
    /// Positions that are one sequence of integers are laid out by
    /// `Ranking` in this order (see `Memo::ranking_sequences`).
    rank_sequences: Option<Order>,
}

impl Memo {
    /// A memo whose positions of one sequence argument (a list or tuple
    /// of at least two integers) are kept at their rank in `order`: by
    /// sum for a game whose moves never raise the sum of the items, whose
    /// positions fill the sequences of sums up to the largest asked; by
    /// largest item for a game whose positions are sorted lists.
    pub fn ranking_sequences(order: Order) -> Memo {
        Memo {
            rank_sequences: Some(order),
            ..Memo::default()
        }
    }

    #[inline]
    fn shape_of(&self, shape: Shape) -> Option<usize> {
        match self.shapes.get(self.last_shape) {
            Some((s, _)) if *s == shape => Some(self.last_shape),
            _ => self.shape_ids.get(&shape).copied(),
        }
    }

    #[inline]
    pub fn get(&mut self, key: &Key) -> State {
        if let Some(g) = &key.generic {
            return State::decode(self.generic.get(g).copied().unwrap_or(0));
        }
        match self.shape_of(key.shape) {
            Some(s) => {
                self.last_shape = s;
                State::decode(self.shapes[s].1.get(key.coords()))
            }
            None => State::Unknown,
        }
    }

    /// The state of `key`, and where it lives if it is in a dense window
    /// or stored in a sparse table.
    #[inline]
    pub fn locate(&mut self, key: &Key) -> (State, Option<Located>) {
        if key.generic.is_none() {
            if let Some(s) = self.shape_of(key.shape) {
                self.last_shape = s;
                let table = &self.shapes[s].1;
                return located_in(table, s, key.coords());
            }
        }
        (self.get(key), None)
    }

    /// The state at `at`, if it is current: read without hashing. A
    /// vacant slot taken since may hold another key: `None` then too.
    #[inline]
    pub fn state_at(&self, at: Located) -> Option<State> {
        let table = &self.shapes.get(at.table)?.1;
        let code = match at.place {
            Place::Dense if table.layout == at.layout => table.get_dense(at.index),
            Place::Dense => return None,
            place => match (place, table.sparse.at(at.index, at.layout)?) {
                (Place::Sparse, Slot::Held(_, code)) => code,
                (Place::Vacant, Slot::Vacant(_)) => 0,
                _ => return None,
            },
        };
        Some(State::decode(code))
    }

    /// `set`, through a location from `locate` while it is current; gives
    /// where the state is now.
    #[inline]
    pub fn set_located(&mut self, at: Option<Located>, key: &Key, state: State) -> Option<Located> {
        match at {
            Some(at) if self.set_at(at, state) => Some(at),
            Some(at) if at.place == Place::Vacant => match self.put_vacant(at, key.coords(), state)
            {
                Some(at) => Some(at),
                None => self.set(key, state),
            },
            _ => self.set(key, state),
        }
    }

    /// Stores `state` for the position of coordinates `coords`, found
    /// missing at `at`, a vacant sparse slot, in that slot while nothing
    /// has moved since and its window would not grow for it; where it is
    /// now. `None`: nothing stored (`set_located` does it all).
    #[inline]
    pub fn put_vacant(&mut self, at: Located, coords: &[i64], state: State) -> Option<Located> {
        if at.place != Place::Vacant {
            return None;
        }
        let counted = matches!(state, State::Value(_) | State::Invalid) as usize;
        let (table, vacancy) = (&mut self.shapes[at.table].1, (at.index, at.layout));
        let stored = self.stored + counted;
        let index = table.set_vacant(coords, state.encode(), stored, vacancy)?;
        self.stored = stored;
        self.last_shape = at.table;
        let (layout, place) = (table.sparse.generation(), Place::Sparse);
        Some(Located {
            index,
            layout,
            place,
            ..at
        })
    }

    /// Stores `state` at `at`, without the key, if that place holds it
    /// and is current (else false, nothing stored).
    #[inline]
    pub fn set_at(&mut self, at: Located, state: State) -> bool {
        let table = &mut self.shapes[at.table].1;
        let current = match at.place {
            Place::Dense => table.layout == at.layout,
            Place::Sparse => table.sparse.generation() == at.layout,
            Place::Vacant => false,
        };
        if !current {
            return false;
        }
        match at.place {
            Place::Dense => table.set_dense(at.index, state.encode()),
            _ => table.sparse.set_at(at.index, state.encode()),
        }
        if matches!(state, State::Value(_) | State::Invalid) {
            self.stored += 1;
        }
        if table.density.n_pages >= table.recheck_pages {
            table.recheck(self.stored);
        }
        true
    }

    /// `Key::weight` of the key `packed` holds.
    pub fn packed_weight(&self, packed: PackedKey) -> usize {
        coords_weight(self.shapes[packed.table as usize].1.n_coords)
    }

    /// `key` in one word, if its shape's sparse table packs it.
    #[inline]
    pub fn pack_key(&self, key: &Key) -> Option<PackedKey> {
        if key.generic.is_some() {
            return None;
        }
        let s = self.shape_of(key.shape)?;
        let (packing, word) = self.shapes[s].1.sparse.pack_word(key.coords())?;
        let table = u32::try_from(s).ok()?;
        Some(PackedKey {
            table,
            packing,
            word,
        })
    }

    /// `pack_key` of the position held at `at` in a sparse table, read
    /// from its slot.
    #[inline]
    pub fn packed_at(&self, at: Located) -> Option<PackedKey> {
        if at.place != Place::Sparse {
            return None;
        }
        let table = &self.shapes.get(at.table)?.1.sparse;
        let (packing, word) = table.word_at(at.index, at.layout)?;
        let table = u32::try_from(at.table).ok()?;
        Some(PackedKey {
            table,
            packing,
            word,
        })
    }

    /// Sets `key` to the key `packed` holds.
    #[inline]
    pub fn unpack_key(&self, packed: PackedKey, key: &mut Key) {
        let (shape, table) = &self.shapes[packed.table as usize];
        key.shape = *shape;
        // One tag of 8 bits, never zero, per argument.
        key.n_args = (64 - shape.leading_zeros()).div_ceil(8) as u8;
        key.generic = None;
        key.len = table.n_coords as u8;
        let coords = &mut key.coords[..table.n_coords];
        table
            .sparse
            .unpack_word((packed.packing, packed.word), coords);
    }

    /// Where the positions `bases + coefs * k` (integer arguments), `k` in
    /// `lo..hi` (not empty), lie in the dense window, if they all do (and
    /// fit in 64 bits): the window, the first index and the stride
    /// between consecutive `k`.
    pub fn dense_run(
        &mut self,
        shape: Shape,
        bases: &[i64],
        coefs: &[i64],
        lo: i64,
        hi: i64,
    ) -> Option<(Window<'_>, usize, isize)> {
        let s = self.shape_of(shape)?;
        self.last_shape = s;
        let window = Window {
            table: self.shapes[s].1.boxed()?,
        };
        let (first, stride) = window.run(bases, coefs, lo, hi)?;
        Some((window, first, stride))
    }

    /// The dense window of `shape`, to read many positions in a row.
    #[inline]
    pub fn window(&self, shape: Shape) -> Option<Window<'_>> {
        let s = self.shape_of(shape)?;
        Some(Window {
            table: self.shapes[s].1.boxed()?,
        })
    }

    /// `window` or `ranked`, whichever lays out `shape`, from one lookup
    /// of the shape (a sorted run's placement asks it once a position).
    #[inline]
    pub fn dense_of(&self, shape: Shape) -> Option<DenseOf<'_>> {
        let table = &self.shapes[self.shape_of(shape)?].1;
        Some(match &table.ranked {
            Some(ranking) => DenseOf::Ranked(RankedWindow { table, ranking }),
            None => DenseOf::Boxed(Window { table }),
        })
    }

    /// The window of `shape` if it is laid out by rank.
    #[inline]
    pub fn ranked(&self, shape: Shape) -> Option<RankedWindow<'_>> {
        let table = &self.shapes[self.shape_of(shape)?].1;
        Some(RankedWindow {
            table,
            ranking: table.ranked.as_ref()?,
        })
    }

    /// The window of `shape` if it ranks lists by sum, grown to the
    /// level of `coords` if it can, lent to be filled in place.
    pub fn ranked_fill(&mut self, shape: Shape, coords: &[i64]) -> Option<RankedFill<'_>> {
        self.reserve(shape, coords);
        let s = self.shape_of(shape)?;
        let table = &mut self.shapes[s].1;
        let ranking = table.ranked.as_mut()?;
        table.lent = true;
        Some(RankedFill {
            ranking,
            dense: &mut table.dense,
        })
    }

    /// `dense_run` for options that differ from the located position only
    /// in coordinate `coord`, which is `own` at the position and goes from
    /// `from` to `to` in steps of `coef` (`to = from + coef * (n - 1)`):
    /// the window, the first index and the stride, if the location
    /// is current and the options lie in the window.
    #[inline]
    pub fn line_run(
        &self,
        at: Located,
        (coord, own): (usize, i64),
        from: i64,
        to: i64,
        coef: i64,
    ) -> Option<(Window<'_>, usize, isize)> {
        let table = self.shapes.get(at.table)?.1.boxed()?;
        if table.layout != at.layout || at.place != Place::Dense || coord >= table.n_coords {
            return None;
        }
        let (end, step) = (table.ends[coord], table.strides[coord]);
        if (from as u64).max(to as u64) >= end {
            return None;
        }
        let first = replaced(at.index, step, (own, from));
        let stride = (coef as isize).wrapping_mul(step as isize);
        Some((Window { table }, first, stride))
    }

    /// The line of positions of `shape` with these coordinates but for
    /// `coord` (its value in `coords` is ignored), if the others lie in
    /// the dense window.
    pub fn line(&self, shape: Shape, coords: &[i64], coord: usize) -> Option<Line> {
        let s = self.shape_of(shape)?;
        let table = self.shapes[s].1.boxed()?;
        if coords.len() != table.n_coords || coord >= coords.len() {
            return None;
        }
        let mut base = 0usize;
        for (c, (&x, (&end, &step))) in coords
            .iter()
            .zip(table.ends().iter().zip(table.strides()))
            .enumerate()
        {
            if c == coord {
                continue;
            }
            if x as u64 >= end {
                return None;
            }
            base += x as usize * step;
        }
        Some(Line {
            table: s,
            layout: table.layout,
            base,
            coord,
            ends: table.ends,
            strides: table.strides,
        })
    }

    /// `line` for a window laid out by rank, where the lists along
    /// `coord` move one binomial column (`Ranking::column_line`).
    pub fn ranked_line(&self, shape: Shape, coords: &[i64], coord: usize) -> Option<RankedLine> {
        let s = self.shape_of(shape)?;
        let table = &self.shapes[s].1;
        let ranking = table.ranked.as_ref()?;
        let mut line = ranking.column_line(coords, coord)?;
        (line.table, line.layout) = (s, table.layout);
        // The line's lists lie far apart (a level each, by sum): their
        // bytes read here together, each read independent of the others,
        // come from memory at once, where the sweep's reads one after
        // another would each wait (the first 64).
        let binom = ranking.binomials().table;
        let rows = line.rows(binom, 64).unwrap_or_default();
        let bytes = rows.iter().filter_map(|&r| table.dense.get(line.fixed + r));
        std::hint::black_box(bytes.fold(0u8, |a, &b| a | b));
        Some(line)
    }

    /// The state of the list of `line` with item `x`, read at its rank
    /// (not ranked again), and its place; `None` if the window's layout
    /// changed since or `x` is past the line.
    #[inline]
    pub fn ranked_line_state(&self, line: &RankedLine, x: i64) -> Option<(State, Located)> {
        let table = &self.shapes.get(line.table)?.1;
        if table.layout != line.layout {
            return None;
        }
        let index = line.rank(table.ranked.as_ref()?.binomials().table, x)?;
        let (layout, place) = (line.layout, Place::Dense);
        let at = Located {
            table: line.table,
            index,
            layout,
            place,
        };
        Some((State::decode(table.get_dense(index)), at))
    }

    /// The dense bytes of `line`'s window, while its layout is current:
    /// 4..=254 are values 0..=250, `BIG` a value kept elsewhere
    /// (`State::encode`). A value written here must be counted in
    /// `stored` by the writer.
    #[inline]
    pub fn line_bytes(&mut self, line: &Line) -> Option<&mut [u8]> {
        let table = &mut self.shapes.get_mut(line.table)?.1;
        table.lent = true;
        (table.layout == line.layout).then_some(&mut table.dense[..])
    }

    /// Calls `f` with the value of every position stored with one.
    pub fn for_each_value(&self, mut f: impl FnMut(u64)) {
        self.for_each_value_count(|v, n| (0..n).for_each(|_| f(v)));
    }

    /// Calls `f` with each value of the positions stored with one and how
    /// many have it (a value may come more than once): codes of a byte
    /// are counted first, then given once each.
    pub fn for_each_value_count(&self, mut f: impl FnMut(u64, u64)) {
        // `counts[c]`: the positions of code `c` below `BIG` (zero, no
        // position, counts too, and is no value).
        let mut counts = [0u64; BIG as usize];
        let mut code = |c: u64, n: u64| {
            if let State::Value(v) = State::decode(c) {
                f(v, n)
            }
        };
        for (_, t) in &self.shapes {
            // Most of a window is never stored (byte 0): blocks of zeros
            // are passed over by one OR each (vector code), and in the
            // others only the bytes not zero are read.
            let mut read = |bytes: &[u8]| {
                for block in bytes.chunks(64) {
                    if block.iter().fold(0u8, |acc, &b| acc | b) != 0 {
                        for_each_nonzero_byte(block, |b| {
                            if b != BIG {
                                counts[b as usize] += 1;
                            }
                        });
                    }
                }
            };
            // Only the pages written, where `density` counted them.
            match t.lent || t.ranked.is_some() {
                true => read(&t.dense),
                false => t.density.written().for_each(|page| {
                    let start = page * PAGE;
                    read(&t.dense[start..(start + PAGE).min(t.dense.len())])
                }),
            }
            // The large codes, in `wide` where the bytes are `BIG`.
            let wide_codes = |range: std::ops::Range<usize>, code: &mut dyn FnMut(u64, u64)| {
                let wide = t.wide.get(range).unwrap_or_default();
                wide.iter()
                    .filter(|&&w| w != 0)
                    .for_each(|&w| code(w as u64, 1));
            };
            match t.lent || t.ranked.is_some() {
                true => wide_codes(0..t.wide.len(), &mut code),
                false => t.density.written().for_each(|page| {
                    let start = page * PAGE;
                    wide_codes(start..(start + PAGE).min(t.wide.len()), &mut code)
                }),
            }
            t.big.values().for_each(|&c| code(c, 1));
            t.sparse.count_codes(&mut counts, |c| code(c, 1));
        }
        self.generic.values().for_each(|&c| code(c, 1));
        for (c, &n) in counts.iter().enumerate() {
            if n > 0 {
                code(c as u64, n);
            }
        }
    }

    /// The lookup of one of many options listed in a row: one pass (one
    /// hash, one probe, one compare) where the memo answers at once (a
    /// dense window, a sparse table within the cache); a sparse table
    /// past the cache has the slot prefetched, read by `resolve` after
    /// the other options' prefetches.
    #[inline]
    pub fn probe(&mut self, shape: Shape, coords: &[i64]) -> Probe {
        let Some(s) = self.shape_of(shape) else {
            return Probe::Found(State::Unknown, None);
        };
        self.last_shape = s;
        let table = &self.shapes[s].1;
        if let Some(index) = table.index(coords) {
            let at = Located {
                table: s,
                index,
                layout: table.layout,
                place: Place::Dense,
            };
            return Probe::Found(State::decode(table.get_dense(index)), Some(at));
        }
        match table.sparse.probe(coords) {
            Ok(slot) => {
                let (state, at) = located_sparse(table, s, slot);
                Probe::Found(state, at)
            }
            Err(sought) => Probe::Sparse {
                table: s,
                generation: table.sparse.generation(),
                sought,
            },
        }
    }

    /// The state now of the position of `shape` and `coords` that
    /// `probe` was made for, and where it lives or would go: a state
    /// found solved stays; an unsolved one is read again at its place
    /// while that is current (a sibling's search may have solved it).
    #[inline]
    pub fn resolve(
        &mut self,
        probe: Probe,
        shape: Shape,
        coords: &[i64],
    ) -> (State, Option<Located>) {
        match probe {
            Probe::Found(state @ (State::Value(_) | State::Invalid), at) => (state, at),
            Probe::Found(_, Some(at)) => match self.state_at(at) {
                Some(state) => (state, Some(at)),
                None => located_in(&self.shapes[at.table].1, at.table, coords),
            },
            Probe::Found(_, None) => match self.shape_of(shape) {
                Some(s) => located_in(&self.shapes[s].1, s, coords),
                None => (State::Unknown, None),
            },
            Probe::Sparse {
                table: s,
                generation,
                sought,
            } => {
                let table = &self.shapes[s].1;
                // The same generation: no window took it since.
                match sought.filter(|_| table.sparse.generation() == generation) {
                    Some(sought) => {
                        located_sparse(table, s, table.sparse.locate_sought(coords, sought))
                    }
                    None => located_in(table, s, coords),
                }
            }
        }
    }

    /// The state of the flattened position with this shape and coordinates.
    #[inline]
    pub fn get_coords(&mut self, shape: Shape, coords: &[i64]) -> State {
        match self.shape_of(shape) {
            Some(s) => {
                self.last_shape = s;
                State::decode(self.shapes[s].1.get(coords))
            }
            None => State::Unknown,
        }
    }

    /// Stores `state` for `key`; gives where, if in a shape's table.
    pub fn set(&mut self, key: &Key, state: State) -> Option<Located> {
        if matches!(state, State::Value(_) | State::Invalid) {
            self.stored += 1;
        }
        let code = state.encode();
        if let Some(g) = &key.generic {
            if self.generic.len() == self.generic.capacity() && !self.generic_may_grow() {
                return None;
            }
            self.generic.insert(g.clone(), code);
            return None;
        }
        let s = match self.shape_of(key.shape) {
            Some(s) => s,
            None if self.rank_sequences.is_some() && one_sequence(key.shape, key.len()) => {
                let order = self.rank_sequences.unwrap_or_default();
                self.add_table(key.shape, ShapeTable::ranked(key.len(), order, false))
            }
            None => self.add_shape(key.shape, default_order(key.shape, key.len()), key.len()),
        };
        self.last_shape = s;
        let table = &mut self.shapes[s].1;
        let (place, index) = table.set(key.coords(), code, self.stored)?;
        let layout = match place {
            Place::Dense => table.layout,
            _ => table.sparse.generation(),
        };
        Some(Located {
            table: s,
            index,
            layout,
            place,
        })
    }

    /// Stores `state(j)` (nothing for `None`) for the positions of
    /// `shape` at `first` with coordinate `coord` raised by `j`, for `j`
    /// in `0..len`, straight into the dense window, if the whole line lies
    /// in it; false, having stored nothing, if not. A labelling stores a
    /// box a line at a time (`loopy::store`), without a key per position.
    pub fn set_line(
        &mut self,
        shape: Shape,
        (first, coord, len): (&[i64], usize, usize),
        mut state: impl FnMut(usize) -> Option<State>,
    ) -> bool {
        let Some(s) = self.shape_of(shape) else {
            return false;
        };
        let table = &mut self.shapes[s].1;
        if table.ranked.is_some() || len == 0 || coord >= first.len() || first.len() > MAX_COORDS {
            return false;
        }
        if table.density.n_pages >= table.recheck_pages {
            table.recheck(self.stored);
        }
        let mut last = [0i64; MAX_COORDS];
        last[..first.len()].copy_from_slice(first);
        last[coord] = last[coord].saturating_add(len as i64 - 1);
        let (Some(at), Some(_)) = (table.index(first), table.index(&last[..first.len()])) else {
            return false;
        };
        let step = table.strides()[coord];
        self.last_shape = s;
        // A byte stored where none was, on the page the last such store
        // marked written, is only counted (in `fresh`): `set_dense`
        // marks each page once, not each byte.
        let (mut fresh, mut page) = (0, usize::MAX);
        for j in 0..len {
            if let Some(st) = state(j) {
                if matches!(st, State::Value(_) | State::Invalid) {
                    self.stored += 1;
                }
                let (i, code) = (at + j * step, st.encode());
                let old = table.dense[i];
                let new = old == 0 && code != 0;
                if code < BIG as u64 && old != BIG && (!new || i / PAGE == page) {
                    fresh += new as usize;
                    table.dense[i] = code as u8;
                } else {
                    if new {
                        page = i / PAGE;
                    }
                    table.set_dense(i, code);
                }
            }
        }
        table.density.positions += fresh;
        true
    }

    /// Grows the table of keys by value, full now, if the budget and the
    /// system let it double; if not, the refusal is noted (the next
    /// budget check stops the search) and the store is skipped.
    fn generic_may_grow(&mut self) -> bool {
        let more = self.generic.capacity().max(16);
        let entry = std::mem::size_of::<(Rc<[Value]>, u64)>() + 1;
        let bytes = entry * (self.generic.capacity() + more);
        if !crate::budget::may_grow(bytes) || self.generic.try_reserve(more).is_err() {
            crate::budget::refuse_growth(bytes);
            return false;
        }
        true
    }

    fn add_shape(&mut self, shape: Shape, order: [u8; MAX_COORDS], n: usize) -> usize {
        self.add_table(shape, ShapeTable::new(n, order))
    }

    fn add_table(&mut self, shape: Shape, table: ShapeTable) -> usize {
        self.shapes.push((shape, table));
        self.shape_ids.insert(shape, self.shapes.len() - 1);
        self.shapes.len() - 1
    }

    /// Whether the window of `shape` holds the position `coords` already,
    /// so that `reserve` would change nothing: a sweep asks once a line.
    #[inline]
    pub fn holds(&self, shape: Shape, coords: &[i64]) -> bool {
        let Some(s) = self.shape_of(shape) else {
            return false;
        };
        let table = &self.shapes[s].1;
        match &table.ranked {
            _ if coords.len() != table.n_coords => false,
            Some(ranking) => ranking.holds(coords),
            None => (coords.iter().zip(table.ends())).all(|(&x, &end)| (x as u64) < end),
        }
    }

    /// Widens the dense window of `shape`, if it has one, to take the
    /// position `coords` (if it can: see `ShapeTable::try_grow`), ahead of
    /// a sweep that will store positions up to it.
    pub fn reserve(&mut self, shape: Shape, coords: &[i64]) {
        if let Some(s) = self.shape_of(shape) {
            let table = &mut self.shapes[s].1;
            if coords.len() == table.n_coords {
                table.make_room(coords);
            }
        }
    }

    /// `reserve`, adding the shape (in its default order) if it has no
    /// table yet: ahead of storing many positions of it.
    pub fn reserve_new(&mut self, shape: Shape, coords: &[i64]) {
        if self.shape_of(shape).is_none() && coords.len() <= MAX_COORDS {
            self.add_shape(shape, default_order(shape, coords.len()), coords.len());
        }
        self.reserve(shape, coords);
    }

    /// Lays out the window of `shape` (keys of `order.len()` coordinates)
    /// in `order`, from the innermost coordinate out, if it holds nothing
    /// yet: a sweep puts its loops' order there, so that positions valued
    /// one after another, and their options, lie near one another. Lists
    /// of a memo `ranking_sequences` are laid out by rank all the same.
    pub fn lay_out(&mut self, shape: Shape, order: &[u8]) {
        if self.shape_of(shape).is_some() || order.len() > MAX_COORDS {
            return;
        }
        if let Some(kind) = self
            .rank_sequences
            .filter(|_| one_sequence(shape, order.len()))
        {
            // Swept along the last item: sorted lists ranked flipped.
            let flipped = order.first() == Some(&(order.len() as u8 - 1));
            self.add_table(shape, ShapeTable::ranked(order.len(), kind, flipped));
            return;
        }
        let mut full = [0u8; MAX_COORDS];
        full[..order.len()].copy_from_slice(order);
        self.add_shape(shape, full, order.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(args: &[Value]) -> Key {
        Key::from_args(args)
    }

    #[test]
    fn a_window_is_laid_out_by_the_extent_its_rows_fill_and_grows_in_rows_in_place() {
        // Rows of 601 positions stored one after another (a table of two
        // integers, values past 250 among them): the inner coordinate's
        // extent stays within an eighth of 601, not the power of two past
        // it, and rows added later keep every index (no layout copies the
        // window for them).
        let mut memo = Memo::default();
        let value = |a: i64, b: i64| (a * 7 + b * 3) as u64 % 400;
        let k = |a: i64, b: i64| key(&[Value::Int(a), Value::Int(b)]);
        for a in 0..=40 {
            for b in 0..=600 {
                memo.set(&k(a, b), State::Value(value(a, b)));
            }
        }
        let table = &memo.shapes[0].1;
        let (inner, outer) = (table.ends[1], table.ends[0]);
        assert!(
            (601..=601 + 601 / 8).contains(&inner),
            "inner extent {inner}"
        );
        assert!(outer >= 41 && table.strides[0] == inner as usize);
        let at = memo.locate(&k(3, 5)).1.expect("in the window");
        let layouts = memo.shapes[0].1.layout;
        memo.set(&k(200, 17), State::Value(9));
        let table = &memo.shapes[0].1;
        assert!(table.layout - layouts <= 1, "one lengthening at most");
        assert_eq!(table.ends[1], inner, "rows keep their extent");
        assert_eq!(memo.locate(&k(3, 5)).1.map(|l| l.index), Some(at.index));
        for a in 0..=40 {
            for b in 0..=600 {
                assert_eq!(memo.get(&k(a, b)), State::Value(value(a, b)));
            }
        }
        assert_eq!(memo.get(&k(200, 17)), State::Value(9));
        assert_eq!(memo.get(&k(200, 18)), State::Unknown);
        // A sweep's reservation lays the box out exactly.
        let mut reserved = Memo::default();
        reserved.reserve_new(k(0, 0).shape(), &[300, 450]);
        let w = reserved.window(k(0, 0).shape()).expect("a window");
        assert_eq!((w.place(0).0, w.place(1)), (301, (451, 1)));
    }

    #[test]
    fn sparse_locations_write_their_row_until_the_window_takes_it() {
        let mut memo = Memo::default();
        let far = key(&[Value::Int(-7), Value::Int(1 << 40)]);
        let near = key(&[Value::Int(3), Value::Int(4)]);
        memo.set(&near, State::Value(1));
        assert!(matches!(memo.locate(&far), (State::Unknown, None)));
        memo.set(&far, State::Valid);
        let (state, at) = memo.locate(&far);
        assert_eq!(state, State::Valid);
        let at = at.expect("a row of the sparse table");
        assert_eq!(at.place, Place::Sparse);
        memo.set_located(Some(at), &far, State::OnPath);
        assert_eq!(memo.get(&far), State::OnPath);
        // Other positions stored around it leave its row in place.
        for x in 0..1000 {
            memo.set(
                &key(&[Value::Int(-x - 8), Value::Int(x << 41)]),
                State::Value(2),
            );
        }
        memo.set_located(Some(at), &far, State::Value(300));
        assert_eq!(memo.get(&far), State::Value(300));
        assert_eq!(memo.get(&near), State::Value(1));
        // A window laid out anew takes the sparse rows: the location is
        // stale, and the store goes by the key.
        let moved = key(&[Value::Int(9), Value::Int(1 << 20)]);
        memo.set(&moved, State::Valid);
        let (_, moved_at) = memo.locate(&moved);
        let moved_at = moved_at.expect("located");
        assert_eq!(
            moved_at.place,
            Place::Sparse,
            "too thin a window for it yet"
        );
        memo.reserve(moved.shape(), &[9, 1 << 20]);
        assert_eq!(memo.locate(&moved).1.expect("located").place, Place::Dense);
        memo.set_located(Some(moved_at), &moved, State::Value(5));
        memo.set_located(Some(at), &far, State::Value(301));
        assert_eq!(memo.get(&moved), State::Value(5));
        assert_eq!(memo.get(&far), State::Value(301));
        assert_eq!(memo.get(&near), State::Value(1));
    }

    /// The largest window the memo's only shape has laid out, in bytes.
    fn window_bytes(memo: &Memo) -> usize {
        memo.shapes
            .iter()
            .map(|(_, t)| t.dense.len())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn many_scattered_positions_do_not_lay_the_window_out_again_and_again() {
        // A vertex and a set of visited vertices as a bit mask (geography
        // on 27 vertices): masks of every size, most far apart. However
        // many they are, they do not fill a window's pages: the window
        // stays near the free size and is laid out a few times (once
        // per bit it grows), not at every doubling of the memo.
        let mut memo = Memo::default();
        let mut x = 7u64;
        let mut stored = Vec::new();
        for i in 0..300_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let top = (x >> 59) % 27 + 1;
            let mask = (x >> 20) & ((1 << top) - 1);
            let v = (x >> 8) % 27;
            let k = key(&[Value::Int(v as i64), Value::Int(mask as i64)]);
            let value = (v + mask) % 5;
            memo.set(&k, State::Value(value));
            if i % 1000 == 0 {
                stored.push((k, value));
            }
        }
        let table = &memo.shapes[0].1;
        assert!(table.layout <= 40, "laid out {} times", table.layout);
        assert!((window_bytes(&memo) as u64) < 4 * FREE_DENSE_BYTES);
        for (k, v) in &stored {
            assert_eq!(memo.get(k), State::Value(*v));
        }
    }

    #[test]
    fn strides_are_the_extents_and_whole_cache_lines_from_512_bytes_an_odd_number() {
        // Three coordinates of extent 101 (a first position at 100 each):
        // strides 1, 101, 101 * 101.
        let mut memo = Memo::default();
        let k = key(&[Value::Int(100), Value::Int(100), Value::Int(100)]);
        memo.set(&k, State::Value(7));
        let w = memo.window(k.shape()).unwrap();
        let places: Vec<(u64, usize)> = (0..3).map(|c| w.place(c)).collect();
        assert_eq!(places, [(101, 101 * 101), (101, 101), (101, 1)]);
        assert_eq!(w.dense().len(), 101 * 101 * 101);
        assert_eq!(stride_past(128, 32), 4096 + 64);
        assert_eq!(stride_past(1, 128), 128);
        assert_eq!(stride_past(1, 256), 256);
        assert_eq!(stride_past(1, 512), 512 + 64);
        assert_eq!(stride_past(1, 601), 601);
        assert_eq!(stride_past(1, 1024), 1024 + 64);
        assert_eq!(stride_past(4096 + 64, 2), 2 * 4096 + 128 + 64);
        assert_eq!(memo.get(&k), State::Value(7));
        // Reserved ahead of a sweep: the far position fits the window,
        // and what was stored stays.
        let far = key(&[Value::Int(100), Value::Int(3), Value::Int(5000)]);
        assert!(memo
            .dense_run(far.shape(), far.coords(), &[0; 3], 0, 1)
            .is_none());
        memo.reserve(far.shape(), far.coords());
        assert!(memo
            .dense_run(far.shape(), far.coords(), &[0; 3], 0, 1)
            .is_some());
        assert_eq!(memo.get(&k), State::Value(7));
        assert_eq!(memo.get(&far), State::Unknown);
    }

    #[test]
    fn list_keys_lay_out_their_first_item_innermost_and_survive_growth() {
        let list = |xs: &[i64]| key(&[Value::list(xs.iter().map(|&x| Value::Int(x)).collect())]);
        assert!(first_innermost(list(&[1, 2]).shape()));
        assert!(!first_innermost(
            key(&[Value::Int(1), Value::Int(2)]).shape()
        ));
        let mut memo = Memo::default();
        let lists = [
            [0, 1, 2],
            [5, 1, 0],
            [3, 40, 2],
            [200, 7, 9],
            [-1, 3, 3],
            [6, 6, 600],
        ];
        for (i, xs) in lists.iter().enumerate() {
            memo.set(&list(xs), State::Value(i as u64 * 60));
        }
        for (i, xs) in lists.iter().enumerate() {
            assert_eq!(memo.get(&list(xs)), State::Value(i as u64 * 60), "{xs:?}");
        }
        assert_eq!(memo.get(&list(&[1, 0, 2])), State::Unknown);
        // Item 0 steps by 1 in the window: its runs read nearby bytes.
        let (_, first, stride) = memo
            .dense_run(list(&[0, 1, 2]).shape(), &[0, 1, 2], &[1, 0, 0], 0, 3)
            .unwrap();
        assert_eq!(stride, 1);
        let (_, next, _) = memo
            .dense_run(list(&[0, 1, 2]).shape(), &[1, 1, 2], &[0, 0, 0], 0, 1)
            .unwrap();
        assert_eq!(next, first + 1);
    }
}
