//! Baseline of the workload `take_split` (benches/take_split.game):
//! the SG value of every heap 0 <= n <= N of the game where a move takes
//! any number of counters or splits the heap into two non-empty heaps,
//! by a plain table and a stamped mex.
//!
//! Usage: take_split N. Prints
//!   workload=take_split states=... sum=... p=... max=...

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3000);
    let mut g = vec![0u32; n + 1];
    // A xor of two values below 2^b is below 2^b.
    let mut seen = vec![0u32; 2 * (n + 1).next_power_of_two() + 2];
    let mut stamp = 0u32;
    for h in 0..=n {
        stamp += 1;
        for k in 1..=h {
            seen[g[h - k] as usize] = stamp;
        }
        for a in 1..h {
            if a > h - a {
                break;
            }
            seen[(g[a] ^ g[h - a]) as usize] = stamp;
        }
        let mut m = 0;
        while seen[m] == stamp {
            m += 1;
        }
        g[h] = m as u32;
    }
    let sum: u64 = g.iter().map(|&v| v as u64).sum();
    let p = g.iter().filter(|&&v| v == 0).count();
    let max = g.iter().copied().max().unwrap_or(0);
    println!("workload=take_split states={} sum={sum} p={p} max={max}", g.len());
}
