//! Baseline of the workload `wythoff` (benches/wythoff.game): the SG
//! value of every position (a, b), 0 <= a, b <= N, of Wythoff's game (take
//! any number from one heap, or the same number from both), by a plain
//! dense table and a stamped mex.
//!
//! Usage: wythoff N. Prints
//!   workload=wythoff states=... sum=... p=... max=...

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    let values = wythoff(n);
    print_histogram("wythoff", &values);
}

/// The values of (a, b) at `a * (n + 1) + b`.
fn wythoff(n: usize) -> Vec<u16> {
    let w = n + 1;
    let mut g = vec![0u16; w * w];
    // A value is at most the number of options, 3n.
    let mut seen = vec![0u32; 3 * n + 2];
    let mut stamp = 0u32;
    for a in 0..=n {
        for b in 0..=n {
            stamp += 1;
            for k in 1..=a {
                seen[g[(a - k) * w + b] as usize] = stamp;
            }
            for k in 1..=b {
                seen[g[a * w + b - k] as usize] = stamp;
            }
            for k in 1..=a.min(b) {
                seen[g[(a - k) * w + b - k] as usize] = stamp;
            }
            let mut m = 0;
            while seen[m] == stamp {
                m += 1;
            }
            g[a * w + b] = m as u16;
        }
    }
    g
}

fn print_histogram(name: &str, values: &[u16]) {
    let sum: u64 = values.iter().map(|&v| v as u64).sum();
    let p = values.iter().filter(|&&v| v == 0).count();
    let max = values.iter().copied().max().unwrap_or(0);
    println!("workload={name} states={} sum={sum} p={p} max={max}", values.len());
}
