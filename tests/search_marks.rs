//! The search keeps the values an expanded position's options had, and
//! takes the values of those it had to search as they are found, instead
//! of listing the options again (`src/eval/search/marked.rs`), for
//! positions in the memo's hash table (most games here carry a far
//! coordinate `z` that keeps them there) and in its dense window (the
//! pass and misère layers of Empty-and-Divide, whose positions each wait
//! for options, and a pass layer's for the layer below). Checked
//! against values computed here by plain recursion, from searches that
//! start far from any known position (every option new), with the fast
//! paths on and off; values of any size (past 250, past 1000); sums
//! waiting on a part and options reached twice fall back to listing the
//! options again.
//! New options of a batch of lookups go straight to the search, which
//! checks their `where` (`Batch::flush` in `src/eval/search/key_kernel.rs`).

use crate::common;

use common::same_both_ways;

/// A coordinate too far for the dense window.
const Z: &str = "1000000000000";

/// The least value not among `values`.
fn mex(values: impl IntoIterator<Item = u64>) -> u64 {
    let seen: std::collections::HashSet<u64> = values.into_iter().collect();
    (0..).find(|v| !seen.contains(v)).unwrap()
}

fn list(values: &[u64]) -> String {
    let items: Vec<String> = values.iter().map(u64::to_string).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn stones_on_a_path_of_14_agree_with_recursion_over_bit_masks() {
    // A stone goes on a free cell with free neighbours.
    const N: u32 = 14;
    let mut sg = vec![0u64; 1 << N];
    for m in (0..1usize << N).rev() {
        let options = (0..N).filter_map(|k| {
            let near = (0b111usize << k) >> 1;
            (m & near == 0).then(|| sg[m | 1 << k])
        });
        sg[m] = mex(options);
    }
    let wanted: Vec<u64> = (0..1usize << N).step_by(37).map(|m| sg[m]).collect();
    let out = same_both_ways(&format!(
        "game P(xs, z) {{
            move put(k in 0..{N}) if not (k in xs) and not (k + 1 in xs) and not (k - 1 in xs) -> P(insert(xs, k), z)
        }}
        print sg(P({{}}, {Z}))
        print [sg(P(set(c for c in 0..{N} if (m >> c) & 1 == 1), {Z})) for m in 0..pow(2, {N}) if m % 37 == 0]"
    ));
    assert_eq!(out, format!("{}\n{}\n", sg[0], list(&wanted)));
    assert!(wanted.iter().any(|&v| v >= 2), "values past 0 and 1");
}

#[test]
fn values_past_250_and_past_1000_are_kept_by_the_marks() {
    // Nim: a heap's value is its size (Bouton), here up to 1199: the
    // marks keep values of any size.
    let out = same_both_ways(&format!(
        "game H(n, z) {{ move take(k in 1..=n) -> H(n - k, z) }}
        print sg(H(1199, {Z}))
        assert [sg(H(n, {Z})) for n in 0..1200] == [n for n in 0..1200]"
    ));
    assert_eq!(out, "1199\n");
}

#[test]
fn sums_and_positions_waiting_together_agree_with_recursion() {
    // A heap takes k or splits in two; `again` reaches the same options
    // as `take` a second time.
    const N: usize = 120;
    let mut sg = vec![0u64; N + 1];
    for n in 0..=N {
        let takes = (1..=n).map(|k| sg[n - k]);
        let splits = (1..n).map(|k| sg[k] ^ sg[n - k]);
        sg[n] = mex(takes.chain(splits));
    }
    let out = same_both_ways(&format!(
        "game M(n, z) {{
            move take(k in 1..=n) -> M(n - k, z)
            move split(k in 1..n) -> M(k, z) + M(n - k, z)
            move again(k in 1..=n) -> M(n - k, z)
        }}
        print [sg(M(n, {Z})) for n in [{N}, 7, 60]]
        print [sg(M(n, {Z})) for n in 0..={N}]"
    ));
    let some = list(&[sg[N], sg[7], sg[60]]);
    assert_eq!(out, format!("{some}\n{}\n", list(&sg)));
}

#[test]
fn kayles_written_as_sums_agrees_with_recursion() {
    // A move takes one or two adjacent pins, leaving two rows.
    const N: usize = 90;
    let mut sg = vec![0u64; N + 1];
    for n in 1..=N {
        let one = (0..n).map(|a| sg[a] ^ sg[n - 1 - a]);
        let two = (0..n.saturating_sub(1)).map(|a| sg[a] ^ sg[n - 2 - a]);
        sg[n] = mex(one.chain(two));
    }
    let out = same_both_ways(&format!(
        "game K(n, z) {{
            move one(a in 0..n) -> K(a, z) + K(n - 1 - a, z)
            move two(a in 0..n - 1) -> K(a, z) + K(n - 2 - a, z)
        }}
        print sg(K({N}, {Z}))
        print [sg(K(n, {Z})) for n in 0..={N}]"
    ));
    assert_eq!(out, format!("{}\n{}\n", sg[N], list(&sg)));
}

#[test]
fn new_options_that_break_the_where_condition_are_not_options() {
    // An item of 0..9 is added below a free one; a position holds at
    // most five unless it holds 0. Each option of a set is looked up in a batch; the new ones
    // go to the search, which checks `where`.
    const N: u32 = 9;
    let valid = |m: usize| m.count_ones() <= 5 || m & 1 == 1;
    let mut sg = vec![0u64; 1 << N];
    for m in (0..1usize << N).rev().filter(|&m| valid(m)) {
        let options = (0..N)
            .filter(|&k| m & (0b11 << k) == 0)
            .map(|k| m | 1 << k)
            .filter(|&o| valid(o))
            .map(|o| sg[o]);
        sg[m] = mex(options);
    }
    let shown: Vec<usize> = (0..1usize << N)
        .filter(|&m| valid(m) && m % 7 == 0)
        .collect();
    let wanted: Vec<u64> = shown.iter().map(|&m| sg[m]).collect();
    let out = same_both_ways(&format!(
        "game W(xs, z) where len(xs) <= 5 or 0 in xs {{
            move add(k in 0..{N}) if not (k in xs) and not (k + 1 in xs) -> W(insert(xs, k), z)
        }}
        print sg(W({{}}, {Z}))
        print [sg(W(set(c for c in 0..{N} if (m >> c) & 1 == 1), {Z})) for m in 0..pow(2, {N}) if m % 7 == 0 and (len([c for c in 0..{N} if (m >> c) & 1 == 1]) <= 5 or m % 2 == 1)]"
    ));
    assert_eq!(out, format!("{}\n{}\n", sg[0], list(&wanted)));
    assert!(wanted.iter().any(|&v| v >= 2), "values past 0 and 1");
}

#[test]
fn pass_and_misere_layers_in_the_dense_window_agree_with_recursion() {
    // Empty-and-Divide: empty one pile, split the other. Asked row by row
    // from (1, 1), each position waits for options not searched yet (rows
    // further on); a pass layer's position waits for the layer below too.
    const N: usize = 24;
    let mut plain = vec![vec![0u64; N + 1]; N + 1];
    let mut pass = plain.clone();
    let mut misere = plain.clone();
    let options = |a: usize, b: usize| {
        let split_b = (1..b).map(move |k| (k, b - k));
        split_b.chain((1..a).map(move |k| (k, a - k)))
    };
    for sum in 2..=2 * N {
        for a in (1..=N).filter(|&a| sum > a && sum - a <= N) {
            let b = sum - a;
            plain[a][b] = mex(options(a, b).map(|(x, y)| plain[x][y]));
            let moves = options(a, b).count();
            let passed = (moves > 0).then_some(plain[a][b]);
            pass[a][b] = mex(options(a, b).map(|(x, y)| pass[x][y]).chain(passed));
            misere[a][b] = match moves {
                0 => 1,
                _ => mex(options(a, b).map(|(x, y)| misere[x][y])),
            };
        }
    }
    let rows = |t: &[Vec<u64>]| -> Vec<u64> {
        (1..=N)
            .flat_map(|a| (1..=N).map(move |b| t[a][b]))
            .collect()
    };
    let out = same_both_ways(&format!(
        "game E(a, b) where a >= 1 and b >= 1 {{
            move split_b(k in 1..b) -> E(k, b - k)
            move split_a(k in 1..a) -> E(k, a - k)
        }}
        print [sg(pass(E(a, b))) for a in 1..={N}, b in 1..={N}]
        print [sg(misere(E(a, b))) for a in 1..={N}, b in 1..={N}]
        print [sg(E(a, b)) for a in 1..={N}, b in 1..={N}]"
    ));
    let (p, m, g) = (rows(&pass), rows(&misere), rows(&plain));
    assert_eq!(out, format!("{}\n{}\n{}\n", list(&p), list(&m), list(&g)));
    assert!(
        p.iter().zip(&g).any(|(x, y)| x != y),
        "the pass changes values"
    );
}
