//! Baseline of the workload `stair_jump` (benches/stair_jump.game):
//! the SG value of every list of 4 piles with at most N coins in all, where
//! a move takes k coins from pile i and puts them on a lower pile j. A
//! memoised recursion over a dense table indexed by the piles in base
//! N + 1 (a move lowers sum(i * x_i), so the recursion ends).
//!
//! Usage: stair_jump N. Prints
//!   workload=stair_jump states=... sum=... p=... max=...

const UNKNOWN: u16 = u16::MAX;

struct Solver {
    w: usize,
    memo: Vec<u16>,
}

impl Solver {
    fn index(&self, x: &[usize; 4]) -> usize {
        ((x[0] * self.w + x[1]) * self.w + x[2]) * self.w + x[3]
    }

    fn sg(&mut self, x: [usize; 4]) -> u16 {
        let at = self.index(&x);
        if self.memo[at] != UNKNOWN {
            return self.memo[at];
        }
        // At most 6 * N options, so values below 6 * N + 1.
        let mut seen = vec![false; 6 * self.w + 1];
        for i in 1..4 {
            for j in 0..i {
                for k in 1..=x[i] {
                    let mut y = x;
                    y[i] -= k;
                    y[j] += k;
                    let v = self.sg(y) as usize;
                    seen[v] = true;
                }
            }
        }
        let m = seen.iter().position(|&s| !s).unwrap() as u16;
        self.memo[at] = m;
        m
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let w = n + 1;
    let mut solver = Solver { w, memo: vec![UNKNOWN; w * w * w * w] };
    let (mut states, mut sum, mut p, mut max) = (0u64, 0u64, 0u64, 0u16);
    for a in 0..=n {
        for b in 0..=n - a {
            for c in 0..=n - a - b {
                for d in 0..=n - a - b - c {
                    let v = solver.sg([a, b, c, d]);
                    states += 1;
                    sum += v as u64;
                    p += (v == 0) as u64;
                    max = max.max(v);
                }
            }
        }
    }
    println!("workload=stair_jump states={states} sum={sum} p={p} max={max}");
}
