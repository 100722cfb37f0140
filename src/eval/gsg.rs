//! Generalised Sprague-Grundy values of loopy games (Smith 1966; Fraenkel
//! and Yesha 1986): a nimber, or an infinity ∞_K subscripted by the set K
//! of finite values among the position's options.
//!
//! The search and compiled code pass SG values as `u64`; an infinite value
//! is a `u64` with its top bit set whose other bits number its K set in
//! the runtime's `InfSets`. Finite values never come near that bit (the
//! mex of a position is at most its number of options), so every path that
//! passes finite values passes infinite ones unchanged; the few that
//! combine values (sums, the outcome, conversion to a `Value`) ask here.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::value::{Outcome, Value};

/// The bit that marks an SG value as infinite.
pub const INFINITE: u64 = 1 << 63;

/// Whether `v` is an infinite value.
#[inline]
pub fn is_infinite(v: u64) -> bool {
    v & INFINITE != 0
}

/// The K sets of the infinite values met so far, each kept once, so that
/// an infinite value is one `u64` and equal values are equal numbers.
#[derive(Default)]
pub struct InfSets {
    sets: Vec<Rc<Vec<u64>>>,
    ids: FxHashMap<Rc<Vec<u64>>, u64>,
}

impl InfSets {
    /// The infinite value ∞_K, `k` (in any order, with repeats or not)
    /// sorted in place: allocates only for a new set.
    pub fn infinite_in(&mut self, k: &mut Vec<u64>) -> u64 {
        k.sort_unstable();
        k.dedup();
        if let Some(&id) = self.ids.get(&*k) {
            return INFINITE | id;
        }
        let set = Rc::new(k.clone());
        let id = self.sets.len() as u64;
        self.sets.push(set.clone());
        self.ids.insert(set, id);
        INFINITE | id
    }

    /// The K set of the infinite value `v`.
    pub fn k(&self, v: u64) -> &Rc<Vec<u64>> {
        debug_assert!(is_infinite(v));
        &self.sets[(v & !INFINITE) as usize]
    }

    /// Smith's sum of two generalised values: finite a + finite b is
    /// a xor b; finite b + ∞_K is ∞_{K xor b}; ∞_K + ∞_L is ∞ with an
    /// empty K, since every option of such a sum keeps one infinite
    /// component and the other's value, so none is finite.
    pub fn add(&mut self, a: u64, b: u64) -> u64 {
        match (is_infinite(a), is_infinite(b)) {
            (false, false) => a ^ b,
            (true, true) => self.infinite_in(&mut Vec::new()),
            (true, false) => self.shifted(a, b),
            (false, true) => self.shifted(b, a),
        }
    }

    fn shifted(&mut self, inf: u64, b: u64) -> u64 {
        if b == 0 {
            return inf;
        }
        let mut k = self.k(inf).iter().map(|&x| x ^ b).collect();
        self.infinite_in(&mut k)
    }

    /// The value as the language shows it: an integer, or `∞{...}`.
    pub fn to_value(&self, v: u64) -> Value {
        if is_infinite(v) {
            Value::Infinite(self.k(v).clone())
        } else {
            Value::Int(v as i64)
        }
    }

    /// The outcome of a position of value `v`: P iff 0; N iff a positive
    /// nimber or an infinity whose K holds 0 (a move to a P-position);
    /// D (a draw) iff an infinity whose K lacks 0.
    #[inline]
    pub fn outcome(&self, v: u64) -> Outcome {
        match v {
            0 => Outcome::P,
            v if !is_infinite(v) => Outcome::N,
            v if self.k(v).first() == Some(&0) => Outcome::N,
            _ => Outcome::D,
        }
    }
}

/// Whether an option of value `to` keeps the draw of a D-position: it is
/// infinite and its K lacks 0 (so the opponent cannot move to a P-position).
pub fn keeps_draw(sets: &InfSets, to: u64) -> bool {
    is_infinite(to) && sets.k(to).first() != Some(&0)
}
