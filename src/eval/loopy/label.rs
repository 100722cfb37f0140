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
//! linear in the edges among the vertices not finished below it. The
//! open followers are counted once and kept (`open_left`): a vertex
//! labelled finite takes one off each predecessor's as it is labelled,
//! so a level starts its counters from them without reading the edges.

use rustc_hash::FxHashMap;

use super::graph::{Graph, Preds};
use crate::diag::Fallible;
use crate::eval::gsg::{is_infinite, InfSets, INFINITE};

/// A vertex's label while the labelling runs, in 32 bits so that the
/// per-vertex arrays stay small: a finite value (a level), or one of the
/// marks below. Finite values of fixed vertices too large for a label
/// are `FIXED_LARGE`: no level reaches them.
type Label = u32;
/// Not labelled yet.
const UNLABELLED: Label = u32::MAX;
/// Labelled ∞ during the labelling; its K is found at the end.
const INF: Label = u32::MAX - 1;
/// A fixed vertex of infinite value (its K read from `InfSets`).
const FIXED_INF: Label = u32::MAX - 2;
/// A fixed vertex of a finite value no level reaches.
const FIXED_LARGE: Label = u32::MAX - 3;

/// Unlabelled, or infinite (labelled ∞ or a fixed infinite value).
#[inline]
fn open(v: Label) -> bool {
    v >= FIXED_INF
}

/// A vertex's state while the labelling runs, kept together so that a
/// step reads one place per vertex.
#[derive(Clone, Copy)]
struct Vertex {
    value: Label,
    /// The level + 1 at which it was last hit (a follower labelled then).
    hit: u32,
    /// Open followers not hit yet, this level; of an ∞ vertex, its K as
    /// a bit mask (below).
    count: u32,
    /// Followers still open (unlabelled or ∞), kept up to date as they
    /// are labelled.
    open_left: u32,
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
    let blank = Vertex {
        value: UNLABELLED,
        hit: 0,
        count: 0,
        open_left: 0,
    };
    let mut vs: Vec<Vertex> = vec![blank; n];
    // Fixed finite vertices by value, and the fixed infinite ones.
    let mut finite_leaves: Vec<(u64, u32)> = Vec::new();
    let mut infinite_leaves: Vec<(u32, u64)> = Vec::new();
    for (u, v) in g.fixed_vertices() {
        vs[u as usize].value = if is_infinite(v) {
            infinite_leaves.push((u, v));
            FIXED_INF
        } else {
            finite_leaves.push((v, u));
            Label::try_from(v).map_or(FIXED_LARGE, |l| l.min(FIXED_LARGE))
        };
    }
    // The runs of vertices between fixed ones, each extended at once.
    let mut active: Vec<u32> = Vec::with_capacity(n);
    let mut next = 0;
    for (u, _) in g.fixed_vertices().chain([(n as u32, 0)]) {
        active.extend(next..u);
        next = u + 1;
    }
    finite_leaves.sort_unstable();
    let mut next_leaf = 0;
    // Each vertex's open followers, and the first level's counters:
    // without fixed finite vertices every follower is open, the degree.
    if finite_leaves.is_empty() {
        for (x, d) in vs.iter_mut().zip(g.degrees()) {
            (x.open_left, x.count) = (d, d);
        }
    } else {
        for u in 0..g.closed().min(n) {
            let open_left = g.succ(u).filter(|&w| open(vs[w as usize].value)).count() as u32;
            (vs[u].open_left, vs[u].count) = (open_left, open_left);
        }
    }
    // The K of each ∞ vertex as a bit mask, built as the levels run: a
    // vertex still unlabelled after level i had a follower labelled i,
    // and one labelled ∞ gains bit i when a follower is labelled i.
    // The mask is the ∞ vertex's `count`, which no level reads again.
    // Past 32 levels, or with fixed values no level reached, K is read
    // from the followers at the end instead.
    let mut queue: Vec<u32> = Vec::new();
    let mut newly_hit: Vec<u32> = Vec::new();
    let mut level: u32 = 0;
    while !active.is_empty() {
        check()?;
        let stamp = level + 1;
        let bit = 1u32.checked_shl(level).unwrap_or(0);
        // Every hit the fixed vertices cause, before anything is labelled:
        // a follower labelled i disqualifies a vertex whatever the order.
        newly_hit.clear();
        while next_leaf < finite_leaves.len() && finite_leaves[next_leaf].0 <= level as u64 {
            let (v, w) = finite_leaves[next_leaf];
            next_leaf += 1;
            if v == level as u64 {
                for &p in preds.of(w as usize) {
                    let x = &mut vs[p as usize];
                    if x.hit != stamp {
                        x.hit = stamp;
                        newly_hit.push(p);
                        if x.value == INF {
                            x.count |= bit;
                        }
                    }
                }
            }
        }
        for &(w, v) in &infinite_leaves {
            let x = &mut vs[w as usize];
            if sets.k(v).binary_search(&(level as u64)).is_ok() && x.hit != stamp {
                x.hit = stamp;
                newly_hit.push(w);
            }
        }
        queue.clear();
        let mut steps: u32 = 0;
        for &v in &newly_hit {
            on_hit(v, &preds, level, &mut vs, &mut queue);
        }
        for &u in &active {
            let x = &mut vs[u as usize];
            if x.value == UNLABELLED && x.count == 0 && x.hit != stamp {
                x.value = level;
                queue.push(u);
            }
        }
        while let Some(w) = queue.pop() {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(1 << 16) {
                check()?;
            }
            for &p in preds.of(w as usize) {
                let x = &mut vs[p as usize];
                // `w`, labelled now, is no longer open.
                x.open_left -= 1;
                if x.hit != stamp {
                    x.hit = stamp;
                    if x.value == INF {
                        x.count |= bit;
                    }
                    on_hit(p, &preds, level, &mut vs, &mut queue);
                }
            }
        }
        // The unlabelled not hit are ∞; those left start the next
        // level's counters (no follower is labelled between).
        let mut kept = 0;
        for i in 0..active.len() {
            let u = active[i];
            let x = &mut vs[u as usize];
            if x.value != UNLABELLED {
                continue;
            }
            if x.hit != stamp {
                x.value = INF;
                // Hit at every level before this one.
                x.count = bit.wrapping_sub(1);
                continue;
            }
            x.count = x.open_left;
            active[kept] = u;
            kept += 1;
        }
        active.truncate(kept);
        level += 1;
    }
    drop((queue, newly_hit, preds));
    let masks_whole = level <= 32 && next_leaf == finite_leaves.len();
    // The values: fixed ones as given, the K of each ∞ its followers'
    // finite values.
    let mut out: Vec<u64> = (vs.iter())
        .map(|x| {
            if x.value == INF {
                INFINITE
            } else {
                x.value as u64
            }
        })
        .collect();
    for (v, u) in finite_leaves {
        out[u as usize] = v;
    }
    for (u, v) in infinite_leaves {
        out[u as usize] = v;
    }
    // Each mask's value asked of `InfSets` once (many vertices share few
    // sets), the last one kept at hand.
    let mut by_mask: FxHashMap<u64, u64> = FxHashMap::default();
    let mut last: Option<(u64, u64)> = None;
    let mut k = Vec::new();
    for (u, x) in vs.iter().enumerate() {
        if x.value != INF {
            continue;
        }
        let finite = || {
            g.succ(u)
                .map(|w| out[w as usize])
                .filter(|&v| !is_infinite(v))
        };
        let mask = match masks_whole {
            true => Some(x.count as u64),
            false => finite().try_fold(0u64, |m, v| (v < 64).then(|| m | 1 << v)),
        };
        k.clear();
        let v = match (mask, last) {
            (Some(mask), Some((m, v))) if m == mask => v,
            (Some(mask), _) => {
                let v = *by_mask.entry(mask).or_insert_with(|| {
                    k.extend((0..64).filter(|&b| mask >> b & 1 == 1));
                    sets.infinite_in(&mut k)
                });
                last = Some((mask, v));
                v
            }
            (None, _) => {
                k.extend(finite());
                sets.infinite_in(&mut k)
            }
        };
        out[u] = v;
    }
    Ok((out, level as u64))
}

/// A follower `v` of the vertices in `preds.of(v)` has just been hit at
/// level `level`: those waiting on it count one open follower less, and
/// one left with none, not hit itself, is labelled `level` and queued.
/// Inline: it runs once per hit vertex.
#[inline(always)]
fn on_hit(v: u32, preds: &Preds, level: u32, vs: &mut [Vertex], queue: &mut Vec<u32>) {
    if !open(vs[v as usize].value) {
        return;
    }
    for &u in preds.of(v as usize) {
        let x = &mut vs[u as usize];
        if x.value == UNLABELLED {
            x.count -= 1;
            if x.count == 0 && x.hit != level + 1 {
                x.value = level;
                queue.push(u);
            }
        }
    }
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
