//! The generalised Sprague-Grundy function of a finite digraph with cycles,
//! by the labelling algorithm of Fraenkel and Yesha ("Theory of annihilation
//! games - I", Bull. AMS 1982, and "The generalized Sprague-Grundy function
//! and its invariance under certain mappings", J. Combin. Theory A 43,
//! 1986; Smith 1966 for the values; Winning Ways ch. 12 and Siegel,
//! Combinatorial Game Theory, ch. IV for loopy impartial games):
//!
//! for i = 0, 1, ...: while some unlabelled vertex u has no follower
//! labelled i, and each follower of u that is unlabelled or labelled ∞ has
//! a follower labelled i, label u with i; then label ∞ every unlabelled
//! vertex with no follower labelled i; stop when none is unlabelled. An
//! ∞ vertex's K is the set of its followers' finite labels.
//!
//! Each level is one retrograde pass with counters, as win/lose/draw
//! solvers run: a vertex counts its followers still open (unlabelled or ∞)
//! that have no follower labelled i yet ("hit"); it is labelled i when the
//! count reaches 0 while it is not hit itself. So a level costs time
//! linear in the edges among the vertices not finished below it.

use super::graph::Graph;
use crate::diag::Fallible;
use crate::eval::gsg::{is_infinite, InfSets};

/// Not labelled yet.
const UNLABELLED: u64 = u64::MAX;
/// Labelled ∞ during the labelling; its K is found at the end.
const INF: u64 = u64::MAX - 1;

/// Unlabelled, or infinite (labelled ∞ or a fixed infinite value).
#[inline]
fn open(v: u64) -> bool {
    is_infinite(v)
}

/// The generalised value of every vertex of `g`: the fixed ones keep
/// theirs. `check` is called now and then (time limit, Ctrl-C). Returns
/// the values and how many levels it took.
pub fn label(
    g: &Graph,
    sets: &mut InfSets,
    check: &mut dyn FnMut() -> Fallible<()>,
) -> Fallible<(Vec<u64>, u64)> {
    let n = g.len();
    let preds = g.predecessors();
    let mut value: Vec<u64> = (0..n).map(|u| g.fixed(u).unwrap_or(UNLABELLED)).collect();
    let mut active: Vec<u32> = (0..n as u32)
        .filter(|&u| g.fixed(u as usize).is_none())
        .collect();
    // Fixed finite vertices by value, and the fixed infinite ones.
    let mut finite_leaves: Vec<(u64, u32)> = Vec::new();
    let mut infinite_leaves: Vec<u32> = Vec::new();
    for u in 0..n {
        match g.fixed(u) {
            Some(v) if is_infinite(v) => infinite_leaves.push(u as u32),
            Some(v) => finite_leaves.push((v, u as u32)),
            None => {}
        }
    }
    finite_leaves.sort_unstable();
    let mut next_leaf = 0;
    let mut hit = vec![0u32; n];
    let mut count = vec![0u32; n];
    let mut queue: Vec<u32> = Vec::new();
    let mut newly_hit: Vec<u32> = Vec::new();
    let mut level: u64 = 0;
    while !active.is_empty() {
        check()?;
        let stamp = level as u32 + 1;
        for &u in &active {
            count[u as usize] = g
                .succ(u as usize)
                .filter(|&w| open(value[w as usize]))
                .count() as u32;
        }
        // Every hit the fixed vertices cause, before anything is labelled:
        // a follower labelled i disqualifies a vertex whatever the order.
        newly_hit.clear();
        while next_leaf < finite_leaves.len() && finite_leaves[next_leaf].0 <= level {
            let (v, w) = finite_leaves[next_leaf];
            next_leaf += 1;
            if v == level {
                for &p in preds.of(w as usize) {
                    if hit[p as usize] != stamp {
                        hit[p as usize] = stamp;
                        newly_hit.push(p);
                    }
                }
            }
        }
        for &w in &infinite_leaves {
            if sets.k(value[w as usize]).binary_search(&level).is_ok() && hit[w as usize] != stamp {
                hit[w as usize] = stamp;
                newly_hit.push(w);
            }
        }
        queue.clear();
        let mut steps: u32 = 0;
        let on_hit =
            |v: u32, value: &mut [u64], count: &mut [u32], hit: &[u32], queue: &mut Vec<u32>| {
                if !open(value[v as usize]) {
                    return;
                }
                for &u in preds.of(v as usize) {
                    let u = u as usize;
                    if value[u] == UNLABELLED {
                        count[u] -= 1;
                        if count[u] == 0 && hit[u] != stamp {
                            value[u] = level;
                            queue.push(u as u32);
                        }
                    }
                }
            };
        for &v in &newly_hit {
            on_hit(v, &mut value, &mut count, &hit, &mut queue);
        }
        for &u in &active {
            let u = u as usize;
            if value[u] == UNLABELLED && count[u] == 0 && hit[u] != stamp {
                value[u] = level;
                queue.push(u as u32);
            }
        }
        while let Some(w) = queue.pop() {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(1 << 16) {
                check()?;
            }
            for &p in preds.of(w as usize) {
                if hit[p as usize] != stamp {
                    hit[p as usize] = stamp;
                    on_hit(p, &mut value, &mut count, &hit, &mut queue);
                }
            }
        }
        for &u in &active {
            let u = u as usize;
            if value[u] == UNLABELLED && hit[u] != stamp {
                value[u] = INF;
            }
        }
        active.retain(|&u| value[u as usize] == UNLABELLED);
        level += 1;
    }
    // The K of each ∞: its followers' finite values.
    let mut k = Vec::new();
    for u in 0..n {
        if value[u] == INF {
            k.clear();
            k.extend(
                g.succ(u)
                    .map(|w| value[w as usize])
                    .filter(|&v| !is_infinite(v)),
            );
            value[u] = sets.infinite(k.clone());
        }
    }
    Ok((value, level))
}

/// Smith's remoteness of every vertex that is not a draw: `Some((wins,
/// r))`, where `wins` says the player to move wins, and `r` is how many
/// moves the play lasts when the winner wins as fast as possible and the
/// loser lasts as long as possible; `None` for a draw. Terminal vertices
/// (and fixed ones, which must be terminal here) have remoteness 0.
pub fn remoteness(g: &Graph) -> Vec<Option<(bool, u32)>> {
    let n = g.len();
    let preds = g.predecessors();
    let mut out: Vec<Option<(bool, u32)>> = vec![None; n];
    let mut left: Vec<u32> = (0..n).map(|u| g.succ(u).count() as u32).collect();
    let mut queue = std::collections::VecDeque::new();
    for u in 0..n {
        if left[u] == 0 {
            out[u] = Some((false, 0));
            queue.push_back(u as u32);
        }
    }
    // First in, first out: vertices are decided in order of remoteness, so
    // a winner's first losing option is its nearest, and a loser's last
    // option decided its farthest.
    while let Some(w) = queue.pop_front() {
        let (w_wins, r) = out[w as usize].expect("decided");
        for &u in preds.of(w as usize) {
            let u = u as usize;
            if out[u].is_some() {
                continue;
            }
            if !w_wins {
                out[u] = Some((true, r + 1));
                queue.push_back(u as u32);
            } else {
                left[u] -= 1;
                if left[u] == 0 {
                    out[u] = Some((false, r + 1));
                    queue.push_back(u as u32);
                }
            }
        }
    }
    out
}
