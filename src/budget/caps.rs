//! What caps this process's memory, for the default `--max-memory`: the
//! machine's physical memory, a cgroup limit, and the address-space and
//! data-segment limits (`ulimit -v`, `ulimit -d`). The default is the
//! smallest of the shares each allows.

use super::human;

/// Share of the machine's (or the cgroup's) memory allowed by default, in
/// percent: the rest is for the other programs and the page cache.
pub const MACHINE_SHARE: u64 = 70;
/// Share of an address-space or data limit allowed by default, in percent,
/// after [`reserved`]: the allocator's own slack (free chunks, tables
/// being rehashed) takes address space the counter does not see.
pub const RLIMIT_SHARE: u64 = 75;
/// The stack of the evaluator thread (deeply recursive rule functions need
/// it), at most a quarter of an address-space or data limit.
const EVALUATOR_STACK: u64 = 1 << 30;
/// Address space besides the evaluator's stack the budget leaves alone:
/// the program's code, other threads' stacks, the allocator's arenas.
const OTHER_RESERVED: u64 = 256 << 20;
/// The default when nothing can be read.
const FALLBACK: u64 = 4 << 30;

/// One cap on this process's memory and the budget it allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cap {
    /// What sets the cap.
    pub source: Source,
    /// The cap, in bytes.
    pub bytes: u64,
    /// The bytes the budget may use under it.
    pub allows: u64,
}

/// What sets a [`Cap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Machine,
    Cgroup,
    /// `ulimit -v` or `ulimit -d`, by its name.
    Rlimit(&'static str),
}

impl Cap {
    /// How the budget follows from the cap, for messages: "70% of this
    /// machine's 23 GiB". Written only when a message asks: every run
    /// reads the caps, few print them, and the text pulls in float
    /// formatting.
    pub fn what(&self) -> String {
        let bytes = human_u64(self.bytes);
        match self.source {
            Source::Machine => format!("{MACHINE_SHARE}% of this machine's {bytes}"),
            Source::Cgroup => format!("{MACHINE_SHARE}% of the cgroup's limit of {bytes}"),
            Source::Rlimit(name) => format!(
                "{RLIMIT_SHARE}% of {name} of {bytes} less {} for stacks and code",
                human_u64(reserved(Some(self.bytes)))
            ),
        }
    }
}

/// Every cap that can be read here.
pub fn caps() -> Vec<Cap> {
    let mut caps = Vec::new();
    if let Some(total) = physical_memory() {
        caps.push(share_of(Source::Machine, total));
    }
    if let Some(c) = cgroup_limit() {
        caps.push(share_of(Source::Cgroup, c));
    }
    for (resource, name) in [
        (libc::RLIMIT_AS, "the address-space limit (ulimit -v)"),
        (libc::RLIMIT_DATA, "the data limit (ulimit -d)"),
    ] {
        if let Some(limit) = rlimit(resource) {
            let usable = limit.saturating_sub(reserved(Some(limit)));
            caps.push(Cap {
                source: Source::Rlimit(name),
                bytes: limit,
                allows: usable / 100 * RLIMIT_SHARE,
            });
        }
    }
    caps
}

fn share_of(source: Source, bytes: u64) -> Cap {
    Cap {
        source,
        bytes,
        allows: bytes / 100 * MACHINE_SHARE,
    }
}

/// The tightest cap, or None when none can be read.
pub fn tightest() -> Option<Cap> {
    caps().into_iter().min_by_key(|c| c.allows)
}

/// The default `--max-memory`.
pub fn default_limit() -> usize {
    match tightest() {
        Some(c) => c.allows.try_into().unwrap_or(usize::MAX).max(1),
        None => FALLBACK as usize,
    }
}

/// How the default `--max-memory` was found, for messages.
#[cold]
pub fn default_described() -> String {
    match tightest() {
        Some(c) => c.what(),
        None => human_u64(FALLBACK),
    }
}

/// The stack the evaluator thread gets: [`EVALUATOR_STACK`], or a quarter
/// of an address-space or data limit when that is smaller.
pub fn evaluator_stack() -> usize {
    let cap = [libc::RLIMIT_AS, libc::RLIMIT_DATA]
        .into_iter()
        .filter_map(rlimit)
        .min();
    stack_under(cap) as usize
}

fn stack_under(limit: Option<u64>) -> u64 {
    limit.map_or(EVALUATOR_STACK, |l| EVALUATOR_STACK.min(l / 4))
}

/// Address space outside the budget under `limit`: the evaluator's stack
/// and [`OTHER_RESERVED`].
fn reserved(limit: Option<u64>) -> u64 {
    stack_under(limit) + OTHER_RESERVED
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// A soft resource limit, None when unlimited or unreadable.
fn rlimit(resource: Resource) -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit through a valid pointer.
    if unsafe { libc::getrlimit(resource, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    // rlim_t is u64 on Linux, not on every system.
    #[allow(clippy::unnecessary_cast)]
    Some(lim.rlim_cur as u64)
}

/// MemTotal of /proc/meminfo (Linux).
pub fn physical_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory limit of this process's cgroup (v2, else v1), if any.
fn cgroup_limit() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok())
    // cgroup v1 writes "no limit" as a number near 2^63.
    .filter(|&c| c < 1 << 60)
}

fn human_u64(bytes: u64) -> String {
    human(bytes.try_into().unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_shrinks_under_a_small_limit() {
        assert_eq!(stack_under(None), 1 << 30);
        assert_eq!(stack_under(Some(6 << 30)), 1 << 30);
        assert_eq!(stack_under(Some(1 << 30)), 256 << 20);
        assert_eq!(reserved(Some(6 << 30)), (1 << 30) + (256 << 20));
    }

    #[test]
    fn a_cap_is_described_only_when_asked_and_names_its_share() {
        let gib = 1u64 << 30;
        let machine = share_of(Source::Machine, 8 * gib);
        assert_eq!(machine.allows, 8 * gib / 100 * MACHINE_SHARE);
        let text = machine.what();
        assert!(
            text.starts_with(&format!("{MACHINE_SHARE}% of this machine's")),
            "{text}"
        );
        assert!(text.ends_with(&human_u64(8 * gib)), "{text}");
        let limit = Cap {
            source: Source::Rlimit("the data limit (ulimit -d)"),
            bytes: 2 * gib,
            allows: 0,
        };
        let text = limit.what();
        assert!(text.contains(&human_u64(reserved(Some(2 * gib)))), "{text}");
        assert!(text.contains("ulimit -d"), "{text}");
    }

    #[test]
    fn the_default_is_the_tightest_cap() {
        let limit = default_limit();
        for cap in caps() {
            assert!(limit as u64 <= cap.allows.max(1), "{cap:?}");
        }
        let described = default_described();
        match tightest() {
            Some(c) => assert_eq!(described, c.what()),
            None => assert_eq!(described, human_u64(FALLBACK)),
        }
    }
}
