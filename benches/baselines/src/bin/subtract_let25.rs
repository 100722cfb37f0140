//! Baseline of the workload `subtract_let25`
//! (benches/subtract_let25.game): the SG value of every heap
//! 0 <= n <= N of the subtraction game with a set of 25 moves, by a plain
//! byte table and a mex over a 64-bit mask (values are at most 25).
//!
//! Usage: subtract_let25 N. Prints
//!   workload=subtract_let25 states=... sum=... p=... max=...

const S: [usize; 25] = [
    1, 3, 4, 7, 9, 12, 15, 17, 20, 22, 25, 28, 30, 33, 36, 38, 41, 44, 46, 49, 52, 55, 57, 60, 63,
];

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000_000);
    let mut g = vec![0u8; n + 1];
    for h in 0..=n {
        let mut seen = 0u64;
        for &s in &S {
            if s > h {
                break;
            }
            seen |= 1 << g[h - s];
        }
        g[h] = (!seen).trailing_zeros() as u8;
    }
    let sum: u64 = g.iter().map(|&v| v as u64).sum();
    let p = g.iter().filter(|&&v| v == 0).count();
    let max = g.iter().copied().max().unwrap_or(0);
    println!("workload=subtract_let25 states={} sum={sum} p={p} max={max}", g.len());
}
