//! Ordinals below ω^ω in Cantor normal form, and the transfinite theorems of
//! Abuku, "Transfinite Version of Welter's Game" (shared/seeds/004):
//!
//! - the nim-sum of ordinals, coefficient by coefficient (Definition 3.5),
//!   which is the Grundy number of transfinite Nim (Theorem 3.6);
//! - the Welter function of integers by the mating method (Definition 2.6,
//!   Section 2.2.1) and of ordinals (Definition 3.8), the Grundy number of
//!   (transfinite) Welter's game (Theorems 2.8 and 3.9);
//! - the good moves (moves to a P-position) of transfinite Nim and Welter
//!   positions (Theorem 3.6 and Corollary 3.10).
//!
//! Such positions have infinitely many options; everything here follows
//! from the theorems, nothing is enumerated.

use std::collections::BTreeMap;
use std::fmt;

/// An ordinal `ω^e1*c1 + ... + ω^ek*ck` with natural exponents
/// `e1 > ... > ek >= 0` and coefficients `ci >= 1` (zero has no terms).
///
/// Exponents and coefficients are non-negative `i64`s, so the derived
/// lexicographic order on the terms is the order of the ordinals: the higher
/// leading power wins, then the larger coefficient, and a proper prefix is
/// smaller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ordinal {
    terms: Vec<(i64, i64)>,
}

/// Most terms an ordinal may have (`pow` is the only way to make many).
pub const MAX_TERMS: usize = 100_000;

impl Ordinal {
    pub fn zero() -> Ordinal {
        Ordinal::default()
    }

    /// A natural number `n >= 0` as an ordinal.
    pub fn nat(n: i64) -> Ordinal {
        assert!(n >= 0, "ordinals are non-negative");
        Ordinal::from_terms(vec![(0, n)])
    }

    /// `ω^e` for a natural `e`.
    pub fn omega_pow(e: i64) -> Ordinal {
        assert!(e >= 0, "natural exponent");
        Ordinal::from_terms(vec![(e, 1)])
    }

    /// From terms with strictly decreasing exponents; zero coefficients are
    /// dropped.
    pub fn from_terms(mut terms: Vec<(i64, i64)>) -> Ordinal {
        terms.retain(|&(_, c)| c != 0);
        debug_assert!(terms.windows(2).all(|w| w[0].0 > w[1].0));
        debug_assert!(terms.iter().all(|&(e, c)| e >= 0 && c > 0));
        Ordinal { terms }
    }

    /// The Cantor normal form: (exponent, coefficient), highest power first.
    pub fn terms(&self) -> &[(i64, i64)] {
        &self.terms
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value as a natural number, if the ordinal is finite.
    pub fn as_nat(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(0, c)] => Some(*c),
            _ => None,
        }
    }

    /// The coefficient of `ω^e`.
    pub fn coeff(&self, e: i64) -> i64 {
        self.terms
            .iter()
            .find(|&&(x, _)| x == e)
            .map_or(0, |&(_, c)| c)
    }

    /// `α = ω·λ + m` (Definition 3.8): `(λ, m)`.
    pub fn split_omega(&self) -> (Ordinal, i64) {
        let lambda = self
            .terms
            .iter()
            .filter(|&&(e, _)| e > 0)
            .map(|&(e, c)| (e - 1, c))
            .collect();
        (Ordinal { terms: lambda }, self.coeff(0))
    }

    /// `ω·λ + m` for `m >= 0`; `None` if an exponent overflows.
    pub fn omega_times_plus(&self, m: i64) -> Option<Ordinal> {
        debug_assert!(m >= 0);
        let mut terms = Vec::with_capacity(self.terms.len() + 1);
        for &(e, c) in &self.terms {
            terms.push((e.checked_add(1)?, c));
        }
        terms.push((0, m));
        Some(Ordinal::from_terms(terms))
    }

    /// Ordinal addition (not commutative: `1 + ω = ω`). `None` on overflow
    /// of a coefficient.
    pub fn add(&self, other: &Ordinal) -> Option<Ordinal> {
        let Some(&(lead, lead_c)) = other.terms.first() else {
            return Some(self.clone());
        };
        // Terms of self below other's leading power are absorbed.
        let mut terms: Vec<(i64, i64)> = Vec::with_capacity(self.terms.len() + other.terms.len());
        terms.extend(self.terms.iter().copied().filter(|&(e, _)| e > lead));
        let own = self.coeff(lead);
        terms.push((lead, own.checked_add(lead_c)?));
        terms.extend_from_slice(&other.terms[1..]);
        Some(Ordinal { terms })
    }

    /// Ordinal multiplication (not commutative: `2·ω = ω`, `ω·2 = ω + ω`).
    /// `None` on overflow of an exponent or a coefficient.
    pub fn mul(&self, other: &Ordinal) -> Option<Ordinal> {
        let Some(&(lead, lead_c)) = self.terms.first() else {
            return Some(Ordinal::zero());
        };
        // α·(ω^f·d + ...) = Σ α·ω^f·d, and for α = ω^e·c + rest:
        // α·ω^f = ω^(e+f) when f >= 1, α·d = ω^e·(c·d) + rest.
        let mut terms = Vec::with_capacity(other.terms.len() + self.terms.len());
        for &(f, d) in &other.terms {
            if f > 0 {
                terms.push((lead.checked_add(f)?, d));
            } else {
                terms.push((lead, lead_c.checked_mul(d)?));
                terms.extend_from_slice(&self.terms[1..]);
            }
        }
        Some(Ordinal { terms })
    }

    /// `α^k` for a natural `k`; `None` on overflow or when the result would
    /// have more than `MAX_TERMS` terms.
    pub fn pow(&self, mut k: u64) -> Option<Ordinal> {
        let mut result = Ordinal::nat(1);
        let mut base = self.clone();
        // Multiplication is associative, so square-and-multiply is exact.
        while k > 0 {
            if k & 1 == 1 {
                result = result.mul(&base)?;
                if result.terms.len() > MAX_TERMS {
                    return None;
                }
            }
            k >>= 1;
            if k > 0 {
                base = base.mul(&base)?;
                if base.terms.len() > MAX_TERMS {
                    return None;
                }
            }
        }
        Some(result)
    }

    /// The nim-sum (Definition 3.5): the coefficients of each power of ω
    /// are added in binary without carry.
    pub fn nim_sum(&self, other: &Ordinal) -> Ordinal {
        let (a, b) = (&self.terms, &other.terms);
        let mut terms = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let term = match (a.get(i), b.get(j)) {
                (Some(&(e, c)), Some(&(f, d))) if e == f => {
                    i += 1;
                    j += 1;
                    (e, c ^ d)
                }
                (Some(&(e, c)), Some(&(f, _))) if e > f => {
                    i += 1;
                    (e, c)
                }
                (Some(&(e, c)), None) => {
                    i += 1;
                    (e, c)
                }
                (_, Some(&t)) => {
                    j += 1;
                    t
                }
                (None, None) => unreachable!(),
            };
            if term.1 != 0 {
                terms.push(term);
            }
        }
        Ordinal { terms }
    }

    /// The nim-sum of several ordinals.
    pub fn nim_sum_all<'a>(items: impl IntoIterator<Item = &'a Ordinal>) -> Ordinal {
        items
            .into_iter()
            .fold(Ordinal::zero(), |acc, x| acc.nim_sum(x))
    }
}

impl fmt::Display for Ordinal {
    /// Cantor normal form as the language writes it: `ω^2*3 + ω*2 + 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        for (i, &(e, c)) in self.terms.iter().enumerate() {
            if i > 0 {
                write!(f, " + ")?;
            }
            match (e, c) {
                (0, c) => write!(f, "{c}")?,
                (1, 1) => write!(f, "ω")?,
                (1, c) => write!(f, "ω*{c}")?,
                (e, 1) => write!(f, "ω^{e}")?,
                (e, c) => write!(f, "ω^{e}*{c}")?,
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The Welter function of integers
// ---------------------------------------------------------------------------

/// The mating function `(x|y)` of Definition 2.1: `2^(n+1) - 1` where
/// `x = y (mod 2^n)` but not modulo `2^(n+1)`, and `-1` when `x = y`. In
/// 64-bit two's complement (so `(x|y)` for `n = 63` is `-1`, as `2^64 - 1` is
/// modulo `2^64`).
pub fn mate(x: i64, y: i64) -> i64 {
    let n = (x ^ y).trailing_zeros();
    if n >= 63 {
        -1
    } else {
        (1i64 << (n + 1)) - 1
    }
}

/// The Welter function `[a1 | ... | an]` of integers (Definition 2.6), by
/// the mating method of Section 2.2.1: the pair with the largest mating
/// value is mated first (`[a|b] = a (+) b - 1`), then the next among the
/// rest, and the values of the pairs and of the one coin left over are
/// nim-added. Any integers are allowed (the function is defined on Z; a
/// repeated value mates as `(x|x) = -1`). `None` if the value does not fit
/// in 64 bits.
///
/// The pairs are found in a binary trie on the bits from the lowest: coins
/// that agree on more low bits are more congruent, so each subtree mates
/// inside itself first and passes up at most one coin. O(64 n).
pub fn welter_ints(xs: &[i64]) -> Option<i64> {
    let mut bits: Vec<u64> = xs.iter().map(|&x| x as u64).collect();
    let mut acc = 0i64;
    if let Some(left) = mate_trie(&mut bits, 0, &mut acc)? {
        acc ^= left as i64;
    }
    Some(acc)
}

/// Mates the coins of `xs` (which agree on the bits below `bit`) as deeply
/// as possible, nim-adding each pair's value into `acc`; returns the coin
/// left over, if the count is odd. `None` on overflow.
fn mate_trie(xs: &mut [u64], bit: u32, acc: &mut i64) -> Option<Option<u64>> {
    match xs.len() {
        0 => return Some(None),
        1 => return Some(Some(xs[0])),
        _ => {}
    }
    if bit == 64 {
        // All equal: each pair is [x|x] = -1.
        if (xs.len() / 2) % 2 == 1 {
            *acc ^= -1;
        }
        return Some((xs.len() % 2 == 1).then(|| xs[0]));
    }
    // Partition on the bit: zeros first.
    let mut k = 0;
    for i in 0..xs.len() {
        if xs[i] >> bit & 1 == 0 {
            xs.swap(i, k);
            k += 1;
        }
    }
    let (zeros, ones) = xs.split_at_mut(k);
    let l0 = mate_trie(zeros, bit + 1, acc)?;
    let l1 = mate_trie(ones, bit + 1, acc)?;
    Some(match (l0, l1) {
        (Some(a), Some(b)) => {
            *acc ^= ((a ^ b) as i64).checked_sub(1)?;
            None
        }
        (a, b) => a.or(b),
    })
}

/// The unique integer `x` with `[x | a1 | ... | an] = s` (Section 2.2.1: the
/// Welter function is a bijection in each argument), exact modulo 2^64.
///
/// `[x | a1 | ... | an] = x (+) [a1 | ... | an] (+) (x|a1) (+) ... (+) (x|an)`
/// (Definition 2.6), and bit `j` of `(x|a)` is 1 exactly when `x = a`
/// modulo `2^j`, which depends on the bits of `x` below `j` only. So the
/// bits of `x` follow one by one from the lowest.
pub fn welter_solve(others: &[i64], s: i64) -> i64 {
    let rest = welter_wrapping(others);
    let t = (s ^ rest) as u64;
    let mut x: u64 = 0;
    for j in 0..64u32 {
        let mask = (1u64 << j) - 1;
        let congruent = others
            .iter()
            .filter(|&&a| ((a as u64) ^ x) & mask == 0)
            .count() as u64;
        x |= ((t >> j ^ congruent) & 1) << j;
    }
    x as i64
}

/// The Welter function modulo 2^64 (for solving; never overflows).
fn welter_wrapping(xs: &[i64]) -> i64 {
    // Definition 2.6 directly: O(n^2), exact modulo 2^64.
    let mut acc = 0i64;
    for (i, &a) in xs.iter().enumerate() {
        acc ^= a;
        for &b in &xs[i + 1..] {
            acc ^= mate(a, b);
        }
    }
    acc
}

// ---------------------------------------------------------------------------
// Transfinite Nim and Welter
// ---------------------------------------------------------------------------

/// Why a transfinite Welter question has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WelterError {
    /// Two coins on one square (the indices).
    Repeated(usize, usize),
    /// A value beyond 64 bits.
    Overflow,
}

/// The Welter function of ordinals (Definition 3.8): with `αi = ω·λi + mi`,
/// `[α1 | ... | αn] = ω·(λ1 (+) ... (+) λn) + (+)_λ [S_λ]`, where `S_λ` are
/// the finite parts `mi` of the coins with `λi = λ`. The squares must be
/// distinct (a position of transfinite Welter's game).
pub fn welter(xs: &[Ordinal]) -> Result<Ordinal, WelterError> {
    check_distinct(xs)?;
    let parts = Parts::new(xs);
    let f = parts.finite_value()?;
    parts
        .lambda
        .omega_times_plus(f)
        .ok_or(WelterError::Overflow)
}

fn check_distinct(xs: &[Ordinal]) -> Result<(), WelterError> {
    let mut seen: BTreeMap<&Ordinal, usize> = BTreeMap::new();
    for (i, x) in xs.iter().enumerate() {
        if let Some(&j) = seen.get(x) {
            return Err(WelterError::Repeated(j, i));
        }
        seen.insert(x, i);
    }
    Ok(())
}

/// A transfinite Welter position split as in Definition 3.8.
struct Parts {
    /// `λi` and `mi` of each coin.
    coins: Vec<(Ordinal, i64)>,
    /// `S_λ` for each `λ` that occurs.
    groups: BTreeMap<Ordinal, Vec<i64>>,
    /// `λ1 (+) ... (+) λn`.
    lambda: Ordinal,
}

impl Parts {
    fn new(xs: &[Ordinal]) -> Parts {
        let coins: Vec<(Ordinal, i64)> = xs.iter().map(Ordinal::split_omega).collect();
        let mut groups: BTreeMap<Ordinal, Vec<i64>> = BTreeMap::new();
        for (l, m) in &coins {
            groups.entry(l.clone()).or_default().push(*m);
        }
        let lambda = Ordinal::nim_sum_all(coins.iter().map(|(l, _)| l));
        Parts {
            coins,
            groups,
            lambda,
        }
    }

    fn group(&self, l: &Ordinal) -> &[i64] {
        self.groups.get(l).map_or(&[], |g| g.as_slice())
    }

    /// `(+)_λ [S_λ]`.
    fn finite_value(&self) -> Result<i64, WelterError> {
        let mut f = 0i64;
        for g in self.groups.values() {
            f ^= welter_ints(g).ok_or(WelterError::Overflow)?;
        }
        Ok(f)
    }
}

/// Every move of a transfinite Nim position to a P-position, as
/// `(index, new size)`, by index. By Theorem 3.6 the position's value is the
/// nim-sum `s` of the heaps, so the only move of heap `i` to a P-position is
/// to `αi (+) s`, and it is a move when that is smaller than `αi`.
pub fn good_moves_nim(xs: &[Ordinal]) -> Vec<(usize, Ordinal)> {
    let s = Ordinal::nim_sum_all(xs);
    if s.is_zero() {
        return Vec::new();
    }
    xs.iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let to = a.nim_sum(&s);
            (to < *a).then_some((i, to))
        })
        .collect()
}

/// Every move of a transfinite Welter position to a P-position, as
/// `(index, new square)`, by index (Corollary 3.10: a position is P exactly
/// when `λ1 (+) ... (+) λn = 0` and `(+)_λ [S_λ] = 0`).
///
/// Moving coin `i` from `ω·λi + mi` to `ω·λ' + m'`: the first condition
/// forces `λ' = λi (+) Λ` (with `Λ` the nim-sum of all `λ`), which must not
/// exceed `λi`. If `λ' = λi` (so `Λ = 0`), the coin stays in its group and
/// `m'` is the unique solution of `[S_λi with mi replaced by m'] = F (+)
/// [S_λi]` (`F` the position's finite value), a move when `m' < mi`. If
/// `λ' < λi`, the coin leaves its group for `S_λ'`, any `m'` is below the
/// old square, and `m'` solves `[S_λ' + m'] = F (+) [S_λi] (+) [S_λi - mi]
/// (+) [S_λ']`. The squares must be distinct.
pub fn good_moves_welter(xs: &[Ordinal]) -> Result<Vec<(usize, Ordinal)>, WelterError> {
    check_distinct(xs)?;
    let parts = Parts::new(xs);
    let f = parts.finite_value()?;
    let mut moves = Vec::new();
    for (i, (l, m)) in parts.coins.iter().enumerate() {
        let target_l = l.nim_sum(&parts.lambda);
        if target_l > *l {
            continue;
        }
        let own = parts.group(l);
        let own_value = welter_ints(own).ok_or(WelterError::Overflow)?;
        let mut rest: Vec<i64> = own.to_vec();
        let at = rest
            .iter()
            .position(|x| x == m)
            .expect("the coin is in its group");
        rest.remove(at);
        let (others, target) = if target_l == *l {
            (rest, f ^ own_value)
        } else {
            let rest_value = welter_ints(&rest).ok_or(WelterError::Overflow)?;
            let new_group = parts.group(&target_l);
            let new_value = welter_ints(new_group).ok_or(WelterError::Overflow)?;
            (new_group.to_vec(), f ^ own_value ^ rest_value ^ new_value)
        };
        let x = welter_solve(&others, target);
        // Check the solution (it is exact modulo 2^64 only).
        let mut with_x = others.clone();
        with_x.push(x);
        let legal = x >= 0
            && !others.contains(&x)
            && (target_l != *l || x < *m)
            && welter_ints(&with_x) == Some(target);
        if legal {
            let to = target_l.omega_times_plus(x).ok_or(WelterError::Overflow)?;
            moves.push((i, to));
        }
    }
    Ok(moves)
}
