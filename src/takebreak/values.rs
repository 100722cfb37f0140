//! Values of single heaps of a take-and-break game, computed in order into
//! a compact array, by one of two methods:
//!
//! * naive: every option of heap n is looked at; the values seen are bits of
//!   a word (or of a few words), pairs of heaps are read from the two ends of
//!   the array, and a long run of pairs is split between threads (rayon);
//! * rare values (Gangolli and Plambeck; Flammenkamp's "sparse space"): a
//!   bit mask splits values into *rare* (even number of mask bits) and
//!   *common* ones. A pair of heaps has a common value only when exactly one
//!   of them is rare, so the common values among a heap's options come from
//!   the few rare heaps; the usual answer, the least common value missing,
//!   is then confirmed by finding the smaller rare values among the pairs,
//!   which almost always happens within the first few pairs.
//!
//! The method changes nothing in the values, only in the time: the mask is
//! chosen from the values so far, and the naive method is used while no mask
//! makes rare values rare.

use rayon::prelude::*;

use super::code::{Code, Constraint};

/// Why a computation stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The caller asked to stop (Ctrl-C).
    Interrupted,
    /// A value does not fit in 16 bits (at this heap).
    TooLarge(usize),
}

/// Pairs in one heap above which the naive method splits them between
/// threads: a split costs a wake-up of the other thread per heap, which
/// must be small beside the heap's own work.
const PARALLEL_PAIRS: usize = 1 << 18;
/// Heaps computed before a mask for rare values is first chosen.
const FIRST_MASK_AT: usize = 2048;
/// A mask is used while at most this fraction (1 / n) of heaps are rare: a
/// heap then costs a pass over the rare heaps instead of half of all heaps.
const RARE_FRACTION: usize = 4;

/// The moves of a code, sorted by kind.
#[derive(Clone, Debug)]
struct Moves {
    take_all: Vec<usize>,
    take: Vec<usize>,
    split2: Vec<(usize, Constraint)>,
    split3: Vec<(usize, Constraint)>,
}

impl Moves {
    fn of(code: &Code) -> Moves {
        let mut m = Moves {
            take_all: Vec::new(),
            take: Vec::new(),
            split2: Vec::new(),
            split3: Vec::new(),
        };
        for (k, d) in code.digits.iter().enumerate() {
            if k > 0 && d.leaves(0) {
                m.take_all.push(k);
            }
            if k > 0 && d.leaves(1) {
                m.take.push(k);
            }
            if d.leaves(2) {
                m.split2.push((k, d.constraint));
            }
            if d.leaves(3) {
                m.split3.push((k, d.constraint));
            }
        }
        m
    }
}

/// The rare/common split in use: the mask and the rare heaps (>= 1), ascending.
#[derive(Clone, Debug)]
struct Rare {
    mask: u16,
    heaps: Vec<u32>,
}

/// Values of heaps 0, 1, 2, ... of one game, extended on demand.
#[derive(Clone, Debug)]
pub struct Engine {
    code: Code,
    moves: Moves,
    g: Vec<u16>,
    /// A power of two above every value so far: options are below it.
    width: usize,
    rare: Option<Rare>,
    /// When to look at the rare/common split again.
    next_review: usize,
    /// Whether the rare-value method may be used (set false to test the naive one).
    pub allow_rare: bool,
}

fn parity(v: u16) -> bool {
    v.count_ones() & 1 == 1
}

impl Engine {
    pub fn new(code: Code) -> Engine {
        Engine {
            moves: Moves::of(&code),
            code,
            g: Vec::new(),
            width: 1,
            rare: None,
            next_review: FIRST_MASK_AT,
            allow_rare: true,
        }
    }

    /// An engine that continues from known values of heaps 0.. (a file).
    pub fn resume(code: Code, values: Vec<u16>) -> Engine {
        let mut e = Engine::new(code);
        let max = values.iter().copied().max().unwrap_or(0) as usize;
        e.width = (max + 1).next_power_of_two();
        e.g = values;
        if e.g.len() >= FIRST_MASK_AT {
            e.review();
        }
        e
    }

    pub fn code(&self) -> &Code {
        &self.code
    }

    /// Values of heaps 0..len().
    pub fn values(&self) -> &[u16] {
        &self.g
    }

    pub fn len(&self) -> usize {
        self.g.len()
    }

    pub fn is_empty(&self) -> bool {
        self.g.is_empty()
    }

    /// The mask of the rare-value method in use, if any.
    pub fn rare_mask(&self) -> Option<u16> {
        self.rare.as_ref().map(|r| r.mask)
    }

    /// The value of heap `n`, computing what is missing.
    pub fn value(&mut self, n: usize) -> Result<u16, Stop> {
        self.extend_to(n + 1, &mut |_| true)?;
        Ok(self.g[n])
    }

    /// Computes heaps up to `len - 1`. `go(done)` is asked every
    /// [`WORK_PER_CHECK`] steps (a few milliseconds) whether to go on.
    pub fn extend_to(&mut self, len: usize, go: &mut dyn FnMut(usize) -> bool) -> Result<(), Stop> {
        if len <= self.g.len() {
            return Ok(());
        }
        self.g.reserve(len - self.g.len());
        let mut common = vec![false; self.width * 2];
        self.fill_common(&mut common);
        // `go` is asked after about WORK_PER_CHECK steps: a heap costs
        // about n steps, n^2 when it splits into three.
        let mut work = 0usize;
        while self.g.len() < len {
            let n = self.g.len();
            work += if self.moves.split3.is_empty() {
                n
            } else {
                n * n / 8
            }
            .max(1);
            if work >= WORK_PER_CHECK {
                work = 0;
                if !go(n) {
                    return Err(Stop::Interrupted);
                }
            }
            if n >= self.next_review {
                self.review();
                self.fill_common(&mut common);
            }
            let v = match &self.rare {
                Some(r) => self.rare_value(n, r, &common),
                None => self.naive_value(n),
            };
            let v = u16::try_from(v)
                .ok()
                .filter(|&v| v < u16::MAX)
                .ok_or(Stop::TooLarge(n))?;
            self.g.push(v);
            if v as usize >= self.width {
                self.width = (v as usize + 1).next_power_of_two();
                common.resize(self.width * 2, false);
                self.fill_common(&mut common);
            }
            if let Some(r) = &mut self.rare {
                if n > 0 && !parity(v & r.mask) {
                    r.heaps.push(n as u32);
                }
            }
        }
        Ok(())
    }

    fn fill_common(&self, common: &mut [bool]) {
        if let Some(r) = &self.rare {
            for (v, c) in common.iter_mut().enumerate() {
                *c = parity(v as u16 & r.mask);
            }
        }
    }

    /// Chooses (again) the mask that leaves the fewest rare heaps, or none.
    fn review(&mut self) {
        self.next_review = self.g.len().max(FIRST_MASK_AT) * 2;
        if !self.allow_rare || !self.moves.split3.is_empty() || self.moves.split2.is_empty() {
            self.rare = None;
            return;
        }
        let mut histogram = vec![0usize; self.width];
        for &v in self.g.iter().skip(1) {
            histogram[v as usize] += 1;
        }
        let best = (1..self.width.min(1 << 10))
            .map(|m| {
                let rare: usize = (0..self.width)
                    .filter(|&v| !parity(v as u16 & m as u16))
                    .map(|v| histogram[v])
                    .sum();
                (rare, m as u16)
            })
            .min();
        self.rare = match best {
            Some((count, mask)) if count * RARE_FRACTION <= self.g.len() => Some(Rare {
                mask,
                heaps: (1..self.g.len())
                    .filter(|&h| !parity(self.g[h] & mask))
                    .map(|h| h as u32)
                    .collect(),
            }),
            _ => None,
        };
    }

    /// Values of the options that are not splits, into `seen`.
    fn mark_takes(&self, n: usize, seen: &mut [u64]) {
        for &k in &self.moves.take_all {
            if n == k {
                seen[0] |= 1;
            }
        }
        for &k in &self.moves.take {
            if n > k {
                mark(seen, self.g[n - k] as usize);
            }
        }
    }

    fn words(&self) -> usize {
        // Room for common values up to twice the width (the rare method).
        (self.width * 2).div_ceil(64)
    }

    fn naive_value(&self, n: usize) -> usize {
        let mut seen = vec![0u64; self.words()];
        self.mark_takes(n, &mut seen);
        for &(k, c) in &self.moves.split2 {
            if n >= k + 2 {
                let r = n - k;
                let hi = pair_hi(r, c);
                pairs_into(&self.g, r, 1, hi, self.width, &mut seen);
            }
        }
        for &(k, c) in &self.moves.split3 {
            if n >= k + 3 {
                triples_into(&self.g, n - k, c, &mut seen);
            }
        }
        first_zero(&seen)
    }

    fn rare_value(&self, n: usize, rare: &Rare, common: &[bool]) -> usize {
        if self.words() == 1 {
            return self.rare_value_small(n, rare, common);
        }
        let g = &self.g;
        let mut seen = vec![0u64; self.words()];
        self.mark_takes(n, &mut seen);
        // Common values: a rare heap and a common one.
        for &(k, _) in &self.moves.split2 {
            if n < k + 2 {
                continue;
            }
            let r = n - k;
            let below = rare.heaps.partition_point(|&x| (x as usize) < r);
            for &x in &rare.heaps[..below] {
                let x = x as usize;
                let y = g[r - x];
                let v = (g[x] ^ y) as usize;
                seen[v / 64] |= (common[y as usize] as u64) << (v % 64);
            }
        }
        let unseen = |v: usize| seen[v / 64] & (1 << (v % 64)) == 0;
        let c = (0..)
            .find(|&v| common[v] && unseen(v))
            .expect("a common value is missing");
        let first_wide_rare = (self.width..common.len())
            .find(|&v| !common[v])
            .unwrap_or(usize::MAX);
        let candidate = c.min(first_wide_rare);
        // Rare values below it still to be found among the pairs.
        let mut need = vec![0u64; self.words()];
        let mut left = 0;
        for (v, &is_common) in common.iter().enumerate().take(candidate.min(self.width)) {
            if !is_common && unseen(v) {
                mark(&mut need, v);
                left += 1;
            }
        }
        'digits: for &(k, cons) in &self.moves.split2 {
            if left == 0 {
                break;
            }
            if n < k + 2 {
                continue;
            }
            let r = n - k;
            let hi = pair_hi(r, cons);
            let (left_heaps, right_heaps) = (&g[1..=hi], &g[r - hi..r]);
            for (&a, &b) in left_heaps.iter().zip(right_heaps.iter().rev()) {
                let v = (a ^ b) as usize;
                let word = &mut need[v / 64];
                let bit = 1 << (v % 64);
                if *word & bit != 0 {
                    *word &= !bit;
                    left -= 1;
                    if left == 0 {
                        break 'digits;
                    }
                }
            }
        }
        if left == 0 {
            candidate
        } else {
            first_one(&need)
        }
    }
}

impl Engine {
    /// `rare_value` for values below 32: the sets are bits of one word.
    fn rare_value_small(&self, n: usize, rare: &Rare, common: &[bool]) -> usize {
        let g = &self.g;
        let mut seen = [0u64];
        self.mark_takes(n, &mut seen);
        let mut seen = seen[0];
        for &(k, _) in &self.moves.split2 {
            if n < k + 2 {
                continue;
            }
            let r = n - k;
            let below = rare.heaps.partition_point(|&x| (x as usize) < r);
            for &x in &rare.heaps[..below] {
                let x = x as usize;
                let y = g[r - x];
                // Branch-free: a rare partner adds nothing.
                seen |= (common[y as usize] as u64) << (g[x] ^ y);
            }
        }
        // Common values as bits (within 64), the least missing one.
        let common_bits = common
            .iter()
            .take(64)
            .enumerate()
            .fold(0u64, |m, (v, &c)| m | (c as u64) << v);
        let c = (!seen & common_bits).trailing_zeros() as usize;
        let first_wide_rare = (self.width..64).find(|&v| !common[v]).unwrap_or(64);
        let candidate = c.min(first_wide_rare);
        let below = if candidate >= 64 {
            u64::MAX
        } else {
            (1u64 << candidate) - 1
        };
        let below_width = (1u64 << self.width) - 1;
        let mut need = !seen & !common_bits & below & below_width;
        if need == 0 {
            return candidate;
        }
        for &(k, cons) in &self.moves.split2 {
            if n < k + 2 {
                continue;
            }
            let r = n - k;
            let hi = pair_hi(r, cons);
            let (left_heaps, right_heaps) = (&g[1..=hi], &g[r - hi..r]);
            for (&a, &b) in left_heaps.iter().zip(right_heaps.iter().rev()) {
                need &= !(1u64 << (a ^ b));
                if need == 0 {
                    return candidate;
                }
            }
        }
        need.trailing_zeros() as usize
    }
}

/// The largest smaller heap of a split of `r` into two (unequal when constrained).
fn pair_hi(r: usize, c: Constraint) -> usize {
    match c {
        Constraint::None => r / 2,
        _ => (r - 1) / 2,
    }
}

fn mark(seen: &mut [u64], v: usize) {
    seen[v / 64] |= 1 << (v % 64);
}

fn first_zero(seen: &[u64]) -> usize {
    for (i, w) in seen.iter().enumerate() {
        if *w != u64::MAX {
            return i * 64 + w.trailing_ones() as usize;
        }
    }
    seen.len() * 64
}

fn first_one(seen: &[u64]) -> usize {
    for (i, w) in seen.iter().enumerate() {
        if *w != 0 {
            return i * 64 + w.trailing_zeros() as usize;
        }
    }
    seen.len() * 64
}

/// Marks g(a) ^ g(r - a) for a in lo..=hi.
fn pairs_into(g: &[u16], r: usize, lo: usize, hi: usize, width: usize, seen: &mut [u64]) {
    if hi < lo {
        return;
    }
    if hi - lo >= PARALLEL_PAIRS && rayon::current_num_threads() > 1 {
        let chunks = (hi - lo + 1).div_ceil(PARALLEL_PAIRS / 2);
        let step = (hi - lo + 1).div_ceil(chunks);
        let words = seen.len();
        let parts: Vec<Vec<u64>> = (0..chunks)
            .into_par_iter()
            .map(|i| {
                let a = lo + i * step;
                let b = (a + step - 1).min(hi);
                let mut part = vec![0u64; words];
                pairs_serial(g, r, a, b, width, &mut part);
                part
            })
            .collect();
        for part in parts {
            for (s, p) in seen.iter_mut().zip(part) {
                *s |= p;
            }
        }
    } else {
        pairs_serial(g, r, lo, hi, width, seen);
    }
}

fn pairs_serial(g: &[u16], r: usize, lo: usize, hi: usize, width: usize, seen: &mut [u64]) {
    let left = &g[lo..=hi];
    let right = &g[r - hi..=r - lo];
    if width <= 64 {
        // Values below 64, in blocks: the xors first (vector code, the
        // reversal included), then one store a value into a byte per
        // value. Or-ing a bit per pair into a register compiled to lane
        // shuffles around a per-lane shift, which was slower.
        const BLOCK: usize = 64;
        let n = left.len();
        let mut hit = [false; 64];
        let mut j = 0;
        while j + BLOCK <= n {
            let a: &[u16; BLOCK] = left[j..j + BLOCK].try_into().expect("a block");
            let b: &[u16; BLOCK] = right[n - j - BLOCK..n - j].try_into().expect("a block");
            let mut xors = [0u16; BLOCK];
            for (t, x) in xors.iter_mut().enumerate() {
                *x = (a[t] ^ b[BLOCK - 1 - t]) & 63;
            }
            xors.iter().for_each(|&x| hit[x as usize] = true);
            j += BLOCK;
        }
        for t in j..n {
            hit[((left[t] ^ right[n - 1 - t]) & 63) as usize] = true;
        }
        let bits = hit
            .iter()
            .enumerate()
            .fold(0u64, |m, (v, &h)| m | (h as u64) << v);
        seen[0] |= bits;
    } else {
        for (&a, &b) in left.iter().zip(right.iter().rev()) {
            mark(seen, (a ^ b) as usize);
        }
    }
}

/// Marks g(a) ^ g(b) ^ g(c) for a <= b <= c, a + b + c = r, a >= 1.
fn triples_into(g: &[u16], r: usize, cons: Constraint, seen: &mut [u64]) {
    for a in 1..=r / 3 {
        for b in a..=(r - a) / 2 {
            let c = r - a - b;
            let ok = match cons {
                Constraint::None => true,
                Constraint::Unequal => a < b && b < c,
                Constraint::NotAllEqual => a < c,
            };
            if ok {
                mark(seen, (g[a] ^ g[b] ^ g[c]) as usize);
            }
        }
    }
}

/// Values by the definition, option by option: the independent check.
pub fn brute_force(code: &Code, len: usize) -> Vec<u16> {
    let mut g: Vec<u16> = Vec::with_capacity(len);
    for n in 0..len {
        let mut options = std::collections::BTreeSet::new();
        for (k, d) in code.digits.iter().enumerate() {
            if n < k {
                continue;
            }
            let r = n - k;
            if k > 0 && d.leaves(0) && r == 0 {
                options.insert(0);
            }
            if k > 0 && d.leaves(1) && r >= 1 {
                options.insert(g[r]);
            }
            for a in 1..r {
                let b = r - a;
                if d.leaves(2) && a <= b && (d.constraint == Constraint::None || a != b) {
                    options.insert(g[a] ^ g[b]);
                }
                for c in 1..r {
                    if a + c >= r {
                        break;
                    }
                    let b = r - a - c;
                    let sorted = a <= b && b <= c;
                    let ok = match d.constraint {
                        Constraint::None => true,
                        Constraint::Unequal => a != b && b != c,
                        Constraint::NotAllEqual => !(a == b && b == c),
                    };
                    if d.leaves(3) && sorted && ok {
                        options.insert(g[a] ^ g[b] ^ g[c]);
                    }
                }
            }
        }
        g.push((0..).find(|v| !options.contains(v)).unwrap());
    }
    g
}

/// Steps of the value computation between two questions to `go`.
const WORK_PER_CHECK: usize = 1 << 22;

#[cfg(test)]
mod tests {
    use super::*;

    fn values(code: &str, len: usize, rare: bool) -> Vec<u16> {
        let mut e = Engine::new(Code::parse(code).unwrap());
        e.allow_rare = rare;
        e.extend_to(len, &mut |_| true).unwrap();
        e.values().to_vec()
    }

    #[test]
    fn pairs_split_between_threads_mark_what_one_thread_marks() {
        // A run long enough to be split (when there are threads), values
        // below 64 (one word of bits) and up to 1000 (several).
        let mut x = 12345u64;
        for top in [64u64, 1000] {
            let g: Vec<u16> = (0..2 * PARALLEL_PAIRS + 100)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Sparse high values: most pairs repeat a few.
                    let v = (x >> 33) % 512;
                    (if v < 500 { v % 40 } else { (x >> 20) % top }) as u16
                })
                .collect();
            let width = if top <= 64 { 64 } else { 1024 };
            let r = g.len() - 1;
            let (lo, hi) = (1, r / 2);
            let mut split = vec![0u64; width / 64];
            pairs_into(&g, r, lo, hi, width, &mut split);
            let mut one = vec![0u64; width / 64];
            for a in lo..=hi {
                mark(&mut one, (g[a] ^ g[r - a]) as usize);
            }
            assert_eq!(split, one, "values below {top}");
        }
    }

    #[test]
    fn both_methods_agree_with_the_definition() {
        for code in [
            "0.137", "0.77", "4.4", "4!.0", "4?.0", "0.16", "0.F", "8!.0", "8?.3", "0.6C?", "0.07",
            "0.15", "C.1",
        ] {
            let brute = brute_force(&Code::parse(code).unwrap(), 160);
            assert_eq!(values(code, 160, false), brute, "{code} naive");
            assert_eq!(values(code, 160, true), brute, "{code} rare");
        }
    }

    #[test]
    fn the_rare_value_method_changes_nothing_but_the_time() {
        // Grundy's game and 0.16 have rare values from early on.
        for code in ["4!.0", "0.16", "0.56", "0.127"] {
            let naive = values(code, 12000, false);
            let mut e = Engine::new(Code::parse(code).unwrap());
            e.extend_to(12000, &mut |_| true).unwrap();
            assert_eq!(e.values(), &naive[..], "{code}");
        }
        let mut e = Engine::new(Code::parse("4!.0").unwrap());
        e.extend_to(5000, &mut |_| true).unwrap();
        assert!(e.rare_mask().is_some(), "Grundy's game has sparse values");
    }

    #[test]
    fn resuming_gives_the_same_values() {
        let all = values("0.16", 9000, true);
        let mut e = Engine::resume(Code::parse("0.16").unwrap(), all[..5000].to_vec());
        e.extend_to(9000, &mut |_| true).unwrap();
        assert_eq!(e.values(), &all[..]);
    }

    #[test]
    fn a_stop_is_reported() {
        let mut e = Engine::new(Code::parse("0.137").unwrap());
        assert_eq!(
            e.extend_to(100_000, &mut |n| n < 8192),
            Err(Stop::Interrupted)
        );
        assert!(e.len() >= 8192);
    }
}
