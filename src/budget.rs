//! The memory budget: a counting global allocator (the system allocator
//! plus one atomic counter of bytes in use), and the caps on this process's
//! memory, for the default limit ([`caps`]). The evaluator compares the count with
//! `Limits::max_memory` at its periodic checks (`Runtime::check_interrupt`)
//! and before building a large value ([`check_grow`]), and stops with
//! `grundy::out_of_memory` well before the allocator itself would fail
//! (which aborts the process).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub mod caps;

use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;

/// Bytes currently allocated by the whole process.
static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// Most bytes in use at once so far.
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting.
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(chunk(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(chunk(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(chunk(layout.size()), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            let (old, new) = (chunk(layout.size()), chunk(new_size));
            if new >= old {
                grew(new - old);
            } else {
                IN_USE.fetch_sub(old - new, Relaxed);
            }
        }
        p
    }
}

/// What an allocation of `size` bytes takes from the system allocator
/// (glibc's malloc on 64 bits): the size and an 8-byte header, rounded up
/// to 16 bytes, at least 32. Counting only `size` undercounts a search
/// that holds millions of small allocations (option lists of a few
/// integers) by half or more, and the process then outgrows
/// `--max-memory` before the limit sees it.
#[inline]
fn chunk(size: usize) -> usize {
    (size.saturating_add(8 + 15) & !15).max(32)
}

#[inline]
fn grew(bytes: usize) {
    let now = IN_USE.fetch_add(bytes, Relaxed) + bytes;
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
}

/// Pages mapped from the system outside the allocator (a dense window's
/// large arrays, `eval/memo/zeroed.rs`) count as bytes in use, as the
/// allocator's zeroed blocks do, so that the limit sees them.
pub fn mapped(bytes: usize) {
    grew(bytes);
}

/// Mapped pages given back to the system.
pub fn unmapped(bytes: usize) {
    IN_USE.fetch_sub(bytes, Relaxed);
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The memory limit of the text being run, for checks made where no
/// runtime is at hand ([`check_grow`]).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The largest growth of a memo table refused since the text being run
/// started (0: none). Tables grow inside stores that cannot fail: a
/// refused growth is noted here, the table stores on (fuller) or skips
/// the store, and the next check of the budget stops the computation.
static REFUSED: AtomicUsize = AtomicUsize::new(0);

pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Relaxed);
    REFUSED.store(0, Relaxed);
}

/// Whether `bytes` more fit within the limit of the text being run (for
/// a growth that is a choice, such as a memo window's).
pub fn fits(bytes: usize) -> bool {
    in_use()
        .saturating_add(resident_floor())
        .saturating_add(bytes)
        <= limit()
}

/// The resident memory the allocator does not count (the program's code,
/// its libraries, stacks), taken once: the limit is on the whole process.
fn resident_floor() -> usize {
    static FLOOR: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *FLOOR.get_or_init(|| resident_bytes().saturating_sub(in_use()))
}

/// The process's resident memory now (0 where it cannot be read).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse::<usize>().ok());
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.unwrap_or(0) * usize::try_from(page).unwrap_or(4096)
}

/// Whether a memo table may take `bytes` more (a doubling: the new block
/// while the old one is still held) within the limit of the text being
/// run. If not, the refusal is noted and the next check reports it.
pub fn may_grow(bytes: usize) -> bool {
    if fits(bytes) {
        return true;
    }
    refuse_growth(bytes);
    false
}

/// Notes a memo table's growth of `bytes` that the budget or the system
/// refused: the next check reports it.
pub fn refuse_growth(bytes: usize) {
    REFUSED.fetch_max(bytes.max(1), Relaxed);
}

/// Whether a memo table's growth was refused since the text started.
pub fn growth_refused() -> bool {
    REFUSED.load(Relaxed) > 0
}

/// The memory limit of the text being run (for the spinner's line).
pub fn limit() -> usize {
    LIMIT.load(Relaxed)
}

/// Before building a value of about `extra` bytes (a concatenation...):
/// whether it fits in the limit of the text being run.
pub fn check_grow(extra: usize, span: Span) -> Fallible<()> {
    check(LIMIT.load(Relaxed), extra, span)
}

/// Whether `extra` more bytes fit under `limit`; the error names the
/// expression at `span`.
pub fn check(limit: usize, extra: usize, span: Span) -> Fallible<()> {
    let now = in_use();
    let refused = REFUSED.load(Relaxed);
    if refused == 0 && now.saturating_add(extra) <= limit {
        return Ok(());
    }
    Err(out_of_memory(limit, extra, span, now, refused))
}

/// The error of [`check`], in its own function: the messages are most of
/// its code, and a run that fits never executes them.
#[cold]
#[inline(never)]
fn out_of_memory(limit: usize, extra: usize, span: Span, now: usize, refused: usize) -> Box<Diag> {
    let default = caps::default_described();
    if refused > 0 {
        return Diag::new(
            ErrorKind::OutOfMemory,
            span,
            format!(
                "out of memory: the limit is {}, and a memo table would grow past it ({} more needed, {} in use)",
                human(limit),
                human(refused),
                human(now)
            ),
        )
        .label("stopped while computing this")
        .help(format!(
            "raise the limit with --max-memory SIZE (default: {default}), or compute something smaller"
        ))
        .boxed();
    }
    let needs = if extra > 0 {
        format!("{} more needed, {} in use", human(extra), human(now))
    } else {
        format!("{} in use", human(now))
    };
    Diag::new(
        ErrorKind::OutOfMemory,
        span,
        format!("out of memory: the limit is {} ({needs})", human(limit)),
    )
    .label("stopped while computing this")
    .help(format!(
        "raise the limit with --max-memory SIZE (default: {default}), or compute something smaller"
    ))
    .boxed()
}

/// Pushes `item` onto `items`, first checking that a growth of the vector
/// fits the budget: the grown block is allocated while the old one is
/// still held, so the whole new block must fit.
#[inline]
pub fn push<T>(items: &mut Vec<T>, item: T, span: Span) -> Fallible<()> {
    if items.len() == items.capacity() {
        reserve(items, items.capacity().max(4), span)?;
    }
    items.push(item);
    Ok(())
}

/// Reserves room for `more` items in `items` within the budget, and
/// without aborting when the system refuses the memory.
pub fn reserve<T>(items: &mut Vec<T>, more: usize, span: Span) -> Fallible<()> {
    let bytes = items
        .capacity()
        .saturating_add(more)
        .saturating_mul(std::mem::size_of::<T>());
    check_grow(bytes, span)?;
    items.try_reserve(more).map_err(|_| refused(bytes, span))
}

/// The error when the system refuses `bytes` the budget allowed (other
/// processes, or a cap the default did not see).
pub fn refused(bytes: usize, span: Span) -> Box<Diag> {
    Diag::new(
        ErrorKind::OutOfMemory,
        span,
        format!(
            "out of memory: the system refused {} ({} in use, the limit is {})",
            human(bytes),
            human(in_use()),
            human(limit())
        ),
    )
    .label("stopped while computing this")
    .help("lower --max-memory to what this machine can give, or compute something smaller")
    .boxed()
}

/// Bytes allocated now.
pub fn in_use() -> usize {
    IN_USE.load(Relaxed)
}

/// Most bytes allocated at once since the start.
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

/// The default `--max-memory`: the tightest of the caps on this process
/// (see [`caps`]).
pub fn default_limit() -> usize {
    caps::default_limit()
}

/// A size in bytes for people: `1.5 GiB`, `300 MiB`.
pub fn human(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut x = bytes as f64;
    let mut unit = 0;
    while x >= 1024.0 && unit < UNITS.len() - 1 {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else if x < 10.0 {
        format!("{x:.1} {}", UNITS[unit])
    } else {
        format!("{x:.0} {}", UNITS[unit])
    }
}

/// Parses `--max-memory`: bytes, or a number with K, M, G or T (powers
/// of 1024; `KiB`, `MB`... are read the same way).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size (say 4G, 512M or 1000000)"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("`{text}`: unknown unit (use K, M, G or T)")),
    };
    let bytes = num * (1u64 << shift) as f64;
    if !(1.0..=usize::MAX as f64).contains(&bytes) {
        return Err(format!("`{text}` is not a usable size"));
    }
    Ok(bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("2 gb"), Ok(2 << 30));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3X").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(human(3 << 29), "1.5 GiB");
    }

    #[test]
    fn small_allocations_count_what_malloc_gives_them() {
        assert_eq!(chunk(1), 32);
        assert_eq!(chunk(24), 32);
        assert_eq!(chunk(25), 48);
        assert_eq!(chunk(1 << 20), (1 << 20) + 16);
        let before = in_use();
        let boxes: Vec<Box<u32>> = (0..1_000_000).map(Box::new).collect();
        // Other tests allocate and free concurrently: a margin of 8 MB;
        // counting the 4 bytes asked for would count 4 MB.
        assert!(
            in_use() >= before + 24_000_000,
            "4-byte boxes count 32 bytes each"
        );
        drop(boxes);
    }

    #[test]
    fn the_counter_follows_allocations() {
        // Other tests allocate concurrently: only a lower bound holds.
        let v: Vec<u8> = Vec::with_capacity(64 << 20);
        assert!(in_use() >= 64 << 20);
        assert!(peak() >= 64 << 20);
        drop(v);
    }
}
