//! Baseline of the workload `node_kayles` (benches/node_kayles.game):
//! Node Kayles on the 3 x N grid graph (a move picks a free vertex and
//! removes it and its neighbours), from the whole grid, by a recursive
//! search over 64-bit masks with a std HashMap (a multiply-fold hasher) and
//! a stamped mex. Counts the values of every position searched.
//!
//! Usage: node_kayles N. Prints
//!   workload=node_kayles states=... sum=... p=... max=...

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default)]
struct Fold(u64);

impl Hasher for Fold {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, k: u64) {
        let m = (k as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

struct Solver {
    closed: Vec<u64>, // each vertex with its neighbours
    memo: HashMap<u64, u8, BuildHasherDefault<Fold>>,
}

impl Solver {
    fn sg(&mut self, free: u64) -> u8 {
        if let Some(&v) = self.memo.get(&free) {
            return v;
        }
        let mut seen = 0u128;
        let mut rest = free;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            seen |= 1 << self.sg(free & !self.closed[v]);
        }
        let m = (!seen).trailing_zeros() as u8;
        self.memo.insert(free, m);
        m
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let vertices = 3 * n;
    assert!(vertices <= 64);
    let closed = (0..vertices)
        .map(|v| {
            let mut m = 1u64 << v;
            if v >= 3 {
                m |= 1 << (v - 3);
            }
            if v + 3 < vertices {
                m |= 1 << (v + 3);
            }
            if v % 3 > 0 {
                m |= 1 << (v - 1);
            }
            if v % 3 < 2 {
                m |= 1 << (v + 1);
            }
            m
        })
        .collect();
    let mut solver = Solver { closed, memo: HashMap::default() };
    let all = if vertices == 64 { u64::MAX } else { (1u64 << vertices) - 1 };
    solver.sg(all);
    let (mut sum, mut p, mut max) = (0u64, 0u64, 0u8);
    for &v in solver.memo.values() {
        sum += v as u64;
        p += (v == 0) as u64;
        max = max.max(v);
    }
    println!("workload=node_kayles states={} sum={sum} p={p} max={max}", solver.memo.len());
}
