//! Periods of heap values, proven by the periodicity theorem for
//! take-and-break games (Guy and Smith 1956; Winning Ways ch. 4; Siegel,
//! Combinatorial Game Theory IV.2): if a game's moves remove at most `t`
//! tokens and leave at most two heaps, and g(n + p) = g(n) for
//! n0 <= n < 2 n0 + p + t, then g(n + p) = g(n) for every n >= n0.
//!
//! The proof pairs the options of n + p with those of n by taking p tokens
//! off the largest part of each split, which is at least n0 + p when the
//! parts sum to at least 2 n0 + 2 p. With k parts the same argument needs
//! k n0 + (k - 1) p + t, which is the bound used for splits into three.
//! It does not apply when splits must be unequal (`!`, `?`: taking p off
//! one part can make two parts equal), so such periods are only observed.

use super::code::Code;

/// What the values show: periodicity (saltus 0) or arithmetic periodicity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Periodicity {
    /// The first heap from which the values repeat.
    pub preperiod: usize,
    pub period: usize,
    /// How much the values grow per period (0 for plain periodicity).
    pub saltus: u64,
    /// Whether the theorem proves the pattern holds for every heap.
    pub proven: bool,
}

impl std::fmt::Display for Periodicity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.saltus == 0 {
            "periodic"
        } else {
            "arithmetic periodic"
        };
        write!(
            f,
            "{kind} from {} with period {}",
            self.preperiod, self.period
        )?;
        if self.saltus != 0 {
            write!(f, " and saltus {}", self.saltus)?;
        }
        f.write_str(if self.proven {
            " (proven)"
        } else {
            " (observed, not proven)"
        })
    }
}

/// Heaps that must be known for the theorem to prove period `p` from `n0`:
/// values of heaps 0..needed(...) (None when the theorem does not apply).
pub fn heaps_needed(code: &Code, n0: usize, p: usize) -> Option<usize> {
    if code.constrained() {
        return None;
    }
    let k = code.max_heaps().max(2) as usize;
    let t = code.max_removed();
    // g(n + p) = g(n) checked for n0 <= n < k n0 + (k - 1) p + t.
    Some(k * n0 + (k - 1) * p + t + p)
}

/// The period the theorem proves from these values (heaps 0..len), if any:
/// the smallest period, with the smallest preperiod for it.
pub fn proven_period(code: &Code, g: &[u16]) -> Option<Periodicity> {
    let len = g.len();
    heaps_needed(code, 0, 1)?;
    for (n0, p) in tail_periods(g) {
        if heaps_needed(code, n0, p).is_some_and(|need| need <= len) {
            return Some(Periodicity {
                preperiod: n0,
                period: p,
                saltus: 0,
                proven: true,
            });
        }
    }
    None
}

/// For the suffixes of `g` from longest to shortest, as (start, smallest
/// period of that suffix), by the prefix function of the reversed values.
/// A suffix from n0 with period p says g(n + p) = g(n) for n0 <= n < len - p.
fn tail_periods(g: &[u16]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let len = g.len();
    let rev = |i: usize| g[len - 1 - i];
    // 4 bytes a heap: runs stay below 2^32 heaps.
    let mut pi = vec![0u32; len];
    for i in 1..len {
        let mut k = pi[i - 1] as usize;
        while k > 0 && rev(i) != rev(k) {
            k = pi[k - 1] as usize;
        }
        if rev(i) == rev(k) {
            k += 1;
        }
        pi[i] = k as u32;
    }
    // Suffix of length l = i + 1 starts at len - l; its period is l - pi[i].
    (0..len)
        .rev()
        .map(move |i| (len - 1 - i, i + 1 - pi[i] as usize))
}

/// The pattern the values suggest when nothing is proven: the smallest
/// (arithmetic) period covering at least the last half of the values and
/// repeating at least three times, else None.
pub fn observed_period(g: &[u16]) -> Option<Periodicity> {
    let len = g.len();
    let diffs = |p: usize, s: i64| {
        (0..len - p)
            .rev()
            .take_while(|&n| g[n + p] as i64 - g[n] as i64 == s)
            .count()
    };
    for p in 1..=len / 3 {
        let s = g[len - 1] as i64 - g[len - 1 - p] as i64;
        if s < 0 {
            continue;
        }
        let run = diffs(p, s);
        let n0 = len - p - run;
        if len - n0 >= (len / 2).max(3 * p) {
            return Some(Periodicity {
                preperiod: n0,
                period: p,
                saltus: s as u64,
                proven: false,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::takebreak::values::brute_force;

    fn code(s: &str) -> Code {
        Code::parse(s).unwrap()
    }

    #[test]
    fn tail_periods_find_the_shortest_period_of_each_suffix() {
        let g = [5, 0, 1, 2, 0, 1, 2, 0, 1];
        let t: Vec<_> = tail_periods(&g).collect();
        assert_eq!(t[0], (0, 9));
        assert_eq!(t[1], (1, 3));
    }

    #[test]
    fn kayles_and_dawson_are_proven_with_their_published_periods() {
        // Winning Ways ch. 4: Kayles (0.77) has period 12 from 71 (last
        // exception 70); Dawson's chess (0.137) period 34 from 52 (last
        // exception 51). Values from the definition, by brute force.
        let k = code("0.77");
        let need = heaps_needed(&k, 71, 12).unwrap();
        let p = proven_period(&k, &brute_force(&k, need)).unwrap();
        assert_eq!((p.preperiod, p.period, p.proven), (71, 12, true));
        assert!(proven_period(&k, &brute_force(&k, need - 1)).is_none_or(|q| q.period != 12));
        let d = code("0.137");
        let p = proven_period(&d, &brute_force(&d, 300)).unwrap();
        assert_eq!((p.preperiod, p.period), (52, 34));
        assert_eq!(p.to_string(), "periodic from 52 with period 34 (proven)");
    }

    #[test]
    fn constrained_splits_are_never_proven() {
        let g = code("4!.0");
        assert_eq!(heaps_needed(&g, 0, 1), None);
    }

    #[test]
    fn an_arithmetic_pattern_is_observed() {
        let g: Vec<u16> = (0..40).map(|n| (n / 2) as u16).collect();
        let p = observed_period(&g).unwrap();
        assert_eq!(
            (p.preperiod, p.period, p.saltus, p.proven),
            (0, 2, 1, false)
        );
        assert_eq!(
            p.to_string(),
            "arithmetic periodic from 0 with period 2 and saltus 1 (observed, not proven)"
        );
    }
}
