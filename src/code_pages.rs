//! The program's own code and constants, handed back to the page cache
//! between the statements of a run.
//!
//! Every fault in the binary's code maps the 64 KiB around it (and whole
//! large folios), so the parser, the lowering and the compiler a run goes
//! through first stay mapped, about a megabyte, while its search pages in
//! its own code on top of them: that sum was most of a small run's peak
//! memory (docs/performance.md). Unmapping the program's read-only
//! segments before a statement runs keeps only the code that statement
//! executes mapped; the pages stay in the page cache, so mapping them
//! again is a minor fault (a few dozen a statement). Writable segments
//! (data, relocated tables) are never touched.

/// Unmaps the program's read-only, file-backed segments (code and
/// constants) from this process; they are mapped again as they are used.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release() {
    // Debuggers and probes write their breakpoints into private copies
    // of code pages, which unmapping would drop: leave a traced process alone.
    if traced() {
        return;
    }
    // SAFETY: the callback reads only the headers the loader hands it.
    unsafe { libc::dl_iterate_phdr(Some(release_program), std::ptr::null_mut()) };
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release() {}

/// Called for each loaded object, the program first: unmaps its segments
/// that are loaded and not writable, then stops the walk.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" fn release_program(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    _data: *mut libc::c_void,
) -> libc::c_int {
    // SAFETY: the loader passes a valid dl_phdr_info whose dlpi_phdr points
    // at dlpi_phnum program headers.
    let info = unsafe { &*info };
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    let page = page_size();
    for h in headers {
        if h.p_type != libc::PT_LOAD || h.p_flags & libc::PF_W != 0 {
            continue;
        }
        // Whole pages inside the segment only: a page it shares with a
        // writable segment keeps its mapping.
        let start = (info.dlpi_addr as usize + h.p_vaddr as usize).next_multiple_of(page);
        let end = (info.dlpi_addr as usize + (h.p_vaddr + h.p_memsz) as usize) / page * page;
        if start < end {
            // SAFETY: the range lies in a read-only, file-backed mapping of
            // this program, whose pages MADV_DONTNEED only unmaps: they read
            // the same from the file when touched again.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
        }
    }
    1
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(4096)
}

/// Whether a debugger or tracer is attached (TracerPid in /proc/self/status),
/// read once.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn traced() -> bool {
    static TRACED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACED.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("TracerPid:"))
                .is_some_and(|pid| pid.trim() != "0")
        })
    })
}
