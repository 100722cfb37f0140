//! Baseline of the workload `loopy_grid` (benches/loopy_grid.game): the
//! generalised Sprague-Grundy values of every position (x, y), 0 <= x, y
//! < N, of the game where a move takes 1, 2 or 3 from x or from y, or,
//! when x = 3 mod 7, puts one on y (below N), and when also y = 0 mod 3,
//! puts one on x (below N). Retrograde labelling with counters of
//! unresolved options, level by level (Fraenkel and Yesha): at level i a
//! position is labelled i when no option is labelled i and every option
//! still open (unlabelled or infinite) has an option labelled i; the
//! positions left without an option labelled i become infinite.
//!
//! Usage: loopy_grid N. Prints
//!   workload=loopy_grid states=... sum=... p=... d=... inf=...

const OPEN: u32 = u32::MAX; // unlabelled
const INF: u32 = u32::MAX - 1;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let total = n * n;
    // Options in compressed rows.
    let mut start = Vec::with_capacity(total + 1);
    let mut succ: Vec<u32> = Vec::with_capacity(total * 7);
    start.push(0u32);
    for x in 0..n {
        for y in 0..n {
            for k in 1..=3 {
                if k <= x {
                    succ.push(((x - k) * n + y) as u32);
                }
            }
            for k in 1..=3 {
                if k <= y {
                    succ.push((x * n + y - k) as u32);
                }
            }
            if x % 7 == 3 && y + 1 < n {
                succ.push((x * n + y + 1) as u32);
            }
            if x % 7 == 3 && y % 3 == 0 && x + 1 < n {
                succ.push(((x + 1) * n + y) as u32);
            }
            start.push(succ.len() as u32);
        }
    }
    // Predecessors.
    let mut pstart = vec![0u32; total + 1];
    for &w in &succ {
        pstart[w as usize + 1] += 1;
    }
    for i in 0..total {
        pstart[i + 1] += pstart[i];
    }
    let mut fill = pstart.clone();
    let mut pred = vec![0u32; succ.len()];
    for u in 0..total {
        for &w in &succ[start[u] as usize..start[u + 1] as usize] {
            pred[fill[w as usize] as usize] = u as u32;
            fill[w as usize] += 1;
        }
    }
    let options = |u: usize| &succ[start[u] as usize..start[u + 1] as usize];
    let preds = |u: usize| &pred[pstart[u] as usize..pstart[u + 1] as usize];
    let is_open = |v: u32| v >= INF;

    let mut value = vec![OPEN; total];
    let mut active: Vec<u32> = (0..total as u32).collect();
    let mut hit = vec![0u32; total];
    let mut count = vec![0u32; total];
    let mut queue: Vec<u32> = Vec::new();
    let mut level = 0u32;
    while !active.is_empty() {
        let stamp = level + 1;
        for &u in &active {
            let u = u as usize;
            count[u] = options(u).iter().filter(|&&w| is_open(value[w as usize])).count() as u32;
        }
        for &u in &active {
            let u = u as usize;
            if value[u] == OPEN && count[u] == 0 && hit[u] != stamp {
                value[u] = level;
                queue.push(u as u32);
            }
        }
        while let Some(w) = queue.pop() {
            for &p in preds(w as usize) {
                let p = p as usize;
                if hit[p] == stamp {
                    continue;
                }
                hit[p] = stamp;
                if !is_open(value[p]) {
                    continue;
                }
                for &u in preds(p) {
                    let u = u as usize;
                    if value[u] == OPEN {
                        count[u] -= 1;
                        if count[u] == 0 && hit[u] != stamp {
                            value[u] = level;
                            queue.push(u as u32);
                        }
                    }
                }
            }
        }
        for &u in &active {
            let u = u as usize;
            if value[u] == OPEN && hit[u] != stamp {
                value[u] = INF;
            }
        }
        active.retain(|&u| value[u as usize] == OPEN);
        level += 1;
    }
    let (mut sum, mut p, mut d, mut inf) = (0u64, 0u64, 0u64, 0u64);
    for u in 0..total {
        match value[u] {
            INF => {
                inf += 1;
                if !options(u).iter().any(|&w| value[w as usize] == 0) {
                    d += 1;
                }
            }
            0 => p += 1,
            v => sum += v as u64,
        }
    }
    println!("workload=loopy_grid states={total} sum={sum} p={p} d={d} inf={inf}");
}
