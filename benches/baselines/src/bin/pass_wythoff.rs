//! Baseline of the workload `pass_wythoff` (benches/pass_wythoff.game):
//! the SG value of every position (a, b), 0 <= a, b <= N, of Wythoff's game
//! with one pass per play, allowed from any position with a move. The
//! values without the pass left (plain Wythoff) are one dense table, those
//! with it another: an option is a move within the same table, or the
//! pass, to the same position in the first table.
//!
//! Usage: pass_wythoff N. Prints
//!   workload=pass_wythoff states=... sum=... p=... max=...

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let w = n + 1;
    let mut seen = vec![0u32; 3 * n + 3];
    let mut stamp = 0u32;
    let mut layers = [vec![0u16; w * w], vec![0u16; w * w]];
    for pass in 0..2 {
        let (done, layer) = layers.split_at_mut(pass);
        let layer = &mut layer[0];
        for a in 0..=n {
            for b in 0..=n {
                stamp += 1;
                for k in 1..=a {
                    seen[layer[(a - k) * w + b] as usize] = stamp;
                }
                for k in 1..=b {
                    seen[layer[a * w + b - k] as usize] = stamp;
                }
                for k in 1..=a.min(b) {
                    seen[layer[(a - k) * w + b - k] as usize] = stamp;
                }
                if pass == 1 && a + b > 0 {
                    seen[done[0][a * w + b] as usize] = stamp;
                }
                let mut m = 0;
                while seen[m] == stamp {
                    m += 1;
                }
                layer[a * w + b] = m as u16;
            }
        }
    }
    let values = &layers[1];
    let sum: u64 = values.iter().map(|&v| v as u64).sum();
    let p = values.iter().filter(|&&v| v == 0).count();
    let max = values.iter().copied().max().unwrap_or(0);
    println!("workload=pass_wythoff states={} sum={sum} p={p} max={max}", values.len());
}
