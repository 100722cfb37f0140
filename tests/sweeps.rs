//! Tables swept in one loop (`compile/sweep.rs`, `compile/line_sweep.rs`): a
//! comprehension whose body is `sg(G(args))` along a range, and subtraction
//! games valued from fixed distances in the memo (`StrideMove`), against the
//! general path (kernels off): every program must print the same output and
//! fail with the same errors both ways. Values are checked against a brute
//! force written here and against published sequences.

use crate::common;

use common::{explain, same_both_ways, same_both_ways_with};
use grundy::{Limits, Plans, Session};

/// Runs `texts` one after another in one session (a failure stops only
/// its own text: the next sees the memo it left), kernels on and off;
/// the outputs must agree.
fn steps_same_both_ways(texts: &[&str], limits: Limits) -> String {
    let run = |plans: Plans| {
        let mut session = Session::new(Limits {
            plans,
            ..limits.clone()
        });
        let mut shown = String::new();
        for (i, text) in texts.iter().enumerate() {
            let mut out = Vec::new();
            let result = session.run(&format!("step{i}"), text, &mut out);
            shown.push_str(&String::from_utf8(out).expect("utf-8 output"));
            for f in &result.failures {
                shown.push_str(&format!("failure: {f}\n"));
            }
        }
        shown
    };
    let (on, off) = (run(Plans::ALL), run(Plans::NONE));
    assert_eq!(on, off, "fast plans on (left) and off (right) differ");
    on
}

/// SG values of the subtraction game `s` for heaps 0..=n, by the textbook
/// recurrence (an independent check of the search).
fn subtraction_values(s: &[i64], n: i64) -> Vec<i64> {
    let mut g: Vec<i64> = Vec::new();
    for h in 0..=n {
        let opts: Vec<i64> = s
            .iter()
            .filter(|&&k| k <= h)
            .map(|&k| g[(h - k) as usize])
            .collect();
        g.push((0..).find(|v| !opts.contains(v)).expect("a mex"));
    }
    g
}

fn shown(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn subtraction_games_agree_with_a_brute_force_and_oeis() {
    let out = same_both_ways(
        "game S125(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S125(n - k)
        }
        game S123(n) {
            move take(k in [1, 2, 3]) if k <= n -> S123(n - k)
        }
        game S134(n) where n >= 0 {
            move a if n >= 1 -> S134(n - 1)
            move b(k in (3, 4)) if n >= k -> S134(n + -k)
        }
        print [sg(S125(n)) for n in 0..=300]
        print [sg(S123(n)) for n in 0..=40]
        print [sg(S134(n)) for n in 0..=300]
        print histogram(sg(S125(n)) for n in 0..=3000)
        print sum(sg(S134(n)) for n in 0..=3000)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], shown(&subtraction_values(&[1, 2, 5], 300)));
    // OEIS A010873: n mod 4, the values of the subtraction game {1, 2, 3}.
    let a010873: Vec<i64> = (0..=40).map(|n| n % 4).collect();
    assert_eq!(lines[1], shown(&a010873));
    let s134 = subtraction_values(&[1, 3, 4], 3000);
    assert_eq!(lines[2], shown(&s134[..=300]));
    let s125 = subtraction_values(&[1, 2, 5], 3000);
    let mut h = vec![0i64; 3];
    s125.iter().for_each(|&v| h[v as usize] += 1);
    assert_eq!(lines[3], shown(&h));
    assert_eq!(lines[4], s134.iter().sum::<i64>().to_string());
}

#[test]
fn large_subtraction_sets_sweep_up_to_the_stride_limit() {
    // 20 moves (`k * (k + 1) / 2 + 1`) are swept from fixed distances;
    // 33 (`k * k + 1`) are more than a sweep keeps (`MAX_STRIDES`, 32) and
    // go option by option. Both against the recurrence, kernels on and off.
    let s20: Vec<i64> = (0..20).map(|k| k * (k + 1) / 2 + 1).collect();
    let s33: Vec<i64> = (0..33).map(|k| k * k + 1).collect();
    let set = |s: &[i64]| {
        let items: Vec<String> = s.iter().map(|k| k.to_string()).collect();
        items.join(", ")
    };
    let games = format!(
        "game A(n) where n >= 0 {{ move take(k in {{{}}}) if k <= n -> A(n - k) }}
        game B(n) where n >= 0 {{ move take(k in {{{}}}) if k <= n -> B(n - k) }}
        ",
        set(&s20),
        set(&s33)
    );
    let out = same_both_ways(&format!(
        "{games}print [sg(A(n)) for n in 0..=1500]
        print [sg(B(n)) for n in 0..=1500]"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], shown(&subtraction_values(&s20, 1500)));
    assert_eq!(lines[1], shown(&subtraction_values(&s33, 1500)));
    let how = explain(&games);
    assert!(
        how.contains("each value read from its 20 options at fixed distances"),
        "{how}"
    );
    assert_eq!(how.matches("tables swept in order").count(), 1, "{how}");
    assert_eq!(
        how.matches("move take: option by option on a frame of integers")
            .count(),
        2,
        "{how}"
    );
}

#[test]
fn tables_asked_in_every_order_and_direction() {
    let out = same_both_ways(
        "game S(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S(n - k)
        }
        game T(a, b) where a >= 0 and b >= 0 {
            move x(k in {1, 2}) if k <= a -> T(a - k, b)
            move y(k in {1, 3}) if k <= b and a >= 1 -> T(a, b - k)
        }
        game Nim(n) {
            move take(k in 0..n) -> Nim(k)
        }
        print [sg(S(m - n)) for m in [60], n in 0..=60]
        print [sg(S(2 * n)) for n in 0..=40]
        print [sg(S(n + 7)) for n in 0..=40]
        print [sg(S(n - 3)) for n in 3..=40]
        print [sg(T(a, b)) for a in 0..8, b in 0..8]
        print [sg(T(a, b)) for b in 0..12, a in 0..12]
        print set(sg(T(b, m - b)) for m in [30], b in 0..=30)
        print min(sg(S(n)) for n in 3..100), max(sg(S(n)) for n in 3..100)
        print sum(sg(Nim(n)) for n in 0..=300)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9, "{out}");
    let s = subtraction_values(&[1, 2, 5], 120);
    let down: Vec<i64> = (0..=60).map(|n| s[60 - n]).collect();
    assert_eq!(lines[0], shown(&down));
    let even: Vec<i64> = (0..=40).map(|n| s[2 * n]).collect();
    assert_eq!(lines[1], shown(&even));
    assert_eq!(lines[2], shown(&s[7..=47]));
    assert_eq!(lines[3], shown(&s[0..=37]));
    // Nim heaps (values above the memo's byte range too): 0 + 1 + ... + 300.
    assert_eq!(lines[8], (300 * 301 / 2).to_string());
}

#[test]
fn negative_ranges_and_where_failing_inside_the_range() {
    // Without a `where`, negative heaps are positions (no move applies).
    let negative = same_both_ways(
        "game F(n) {
            move take(k in {1, 2}) if k <= n -> F(n - k)
        }
        print [sg(F(n)) for n in -5..=5]",
    );
    assert_eq!(negative.trim(), "[0, 0, 0, 0, 0, 0, 1, 2, 0, 1, 2]");
    // A `where` of bounds, of other integer code, and of the value path:
    // the first position outside it is the error, and what was stored
    // before it stays stored.
    for cond in ["n >= 0 and n <= 30", "n != 31 and n >= 0", "n in 0..=30"] {
        let game = format!(
            "game W(n) where {cond} {{
                move take(k in {{1, 2, 5}}) if k <= n -> W(n - k)
            }}"
        );
        let inside = same_both_ways(&format!("{game}\nprint [sg(W(n)) for n in 0..=40]"));
        assert!(
            inside.contains("failure: W(31) is not a position"),
            "{inside}"
        );
        // What was stored before the failing position stays stored.
        let stored = same_both_ways(&format!(
            "{game}\nprint histogram(sg(W(n)) for n in 0..=30)\nprint memo_histogram(W)"
        ));
        let lines: Vec<&str> = stored.lines().collect();
        assert_eq!(lines.len(), 2, "{stored}");
        assert_eq!(lines[0], lines[1], "{stored}");
        let below = same_both_ways(&format!("{game}\nprint [sg(W(n)) for n in -2..=3]"));
        assert!(
            below.contains("failure: W(-2) is not a position"),
            "{below}"
        );
    }
}

#[test]
fn overflow_and_unknown_options_inside_a_sweep() {
    // The moving argument overflows at the range's end; options above the
    // position are unknown when it is asked (the search takes over).
    let game = "game Inc(n) {
            move up(k in {1, 2}) if n <= 5 -> Inc(n + k)
        }\n";
    let values = same_both_ways(&format!("{game}print [sg(Inc(n)) for n in 0..=9]"));
    // By hand from the top: Inc(6..) = 0, Inc(5) = mex{0, 0} = 1, ...
    assert_eq!(values.trim(), "[0, 2, 1, 0, 2, 1, 0, 0, 0, 0]");
    let overflow = same_both_ways(&format!(
        "{game}print [sg(Inc(n + m)) for m in [9223372036854775805], n in 0..5]"
    ));
    assert!(
        overflow.contains("failure") && overflow.contains("overflow"),
        "{overflow}"
    );
    // An inclusive range ending at the largest integer.
    let top = same_both_ways(&format!(
        "{game}print [sg(Inc(n)) for n in 9223372036854775805..=9223372036854775807]"
    ));
    assert!(!top.contains("failure"), "{top}");
}

#[test]
fn guards_that_are_not_bounds_and_games_off_the_stride_form() {
    let out = same_both_ways(
        "game G(n) where n >= 0 {
            move take(k in {1, 3, 4}) if k <= n and n != 10 -> G(n - k)
        }
        game H(n) where n >= 0 {
            move take(k in 1..=min(n, 3)) -> H(n - k)
            move half if n % 2 == 0 and n > 0 -> H(n / 2)
        }
        game L(a) {
            move up if a < 3 -> L(a + 1)
            move down if a > 0 -> L(a - 1)
        }
        print [sg(G(n)) for n in 0..=60]
        print histogram(sg(H(n)) for n in 0..=500)
        print [sg(L(n)) for n in 0..3]",
    );
    // L has cycles and no terminal position: every position a draw.
    assert!(out.ends_with("\n[∞, ∞, ∞]\n"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn state_limits_and_timeouts_stop_a_sweep_the_same_way() {
    let text = "game S(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S(n - k)
        }
        print histogram(sg(S(n)) for n in 0..=5000)
        print memo_histogram(S)";
    let limited = same_both_ways_with(
        text,
        Limits {
            max_states: 1000,
            ..Limits::default()
        },
    );
    assert!(limited.contains("state space too large"), "{limited}");
    let timed = same_both_ways_with(
        text,
        Limits {
            timeout: Some(std::time::Duration::ZERO),
            ..Limits::default()
        },
    );
    assert!(timed.contains("timed out"), "{timed}");
}

/// Welter's game on `n` coins below `top`, by brute force over sorted
/// tuples: the SG value of every set, keyed by its items.
fn welter_values(n: usize, top: i64) -> std::collections::HashMap<Vec<i64>, i64> {
    fn sets(n: usize, top: i64) -> Vec<Vec<i64>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for s in sets(n - 1, top) {
            let lo = s.last().map_or(0, |x| x + 1);
            for x in lo..top {
                let mut t = s.clone();
                t.push(x);
                out.push(t);
            }
        }
        out
    }
    let mut all = sets(n, top);
    // By the sum of the items: every option has a smaller sum.
    all.sort_by_key(|s| s.iter().sum::<i64>());
    let mut g = std::collections::HashMap::new();
    for s in all {
        let mut opts = Vec::new();
        for i in 0..n {
            for t in 0..s[i] {
                if s.contains(&t) {
                    continue;
                }
                let mut o = s.clone();
                o[i] = t;
                o.sort();
                opts.push(g[&o]);
            }
        }
        let v = (0..).find(|v| !opts.contains(v)).expect("a mex");
        g.insert(s, v);
    }
    g
}

#[test]
fn sweeps_over_list_keys_agree_with_a_brute_force() {
    let game = "game W(coins) where distinct(coins) {
            move slide(i in 0..len(coins), t in 0..coins[i]) -> W(sorted(update(coins, i, t)))
        }\n";
    let out = same_both_ways(&format!(
        "{game}print [sg(W([a, b, c])) for c in 2..9, b in 1..c, a in 0..b]
        print histogram(sg(W([a, b, c])) for c in 2..12, b in 1..c, a in 0..b)
        print [sg(W([a, b, c])) for c in [7], b in [5], a in 4..=-1]
        print sum(sg(W((b, c - a, c))) for c in [9], b in [0], a in 1..c)
        print [sg(W([a + 1, b + 1, c + 1])) for c in 2..6, b in 1..c, a in 0..b]"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let g = welter_values(3, 12);
    let mut listed = Vec::new();
    let mut h = vec![0i64; 16];
    for c in 2..12 {
        for b in 1..c {
            for a in 0..b {
                if c < 9 {
                    listed.push(g[&vec![a, b, c]]);
                }
                h[g[&vec![a, b, c]] as usize] += 1;
            }
        }
    }
    assert_eq!(lines[0], shown(&listed));
    while h.last() == Some(&0) {
        h.pop();
    }
    assert_eq!(lines[1], shown(&h));
    assert_eq!(lines[2], "[]");
    let tuples: i64 = (1..9).map(|a| g[&vec![0, 9 - a, 9]]).sum();
    assert_eq!(lines[3], tuples.to_string());
    let mut shifted = Vec::new();
    for c in 2..6 {
        for b in 1..c {
            for a in 0..b {
                shifted.push(g[&vec![a + 1, b + 1, c + 1]]);
            }
        }
    }
    assert_eq!(lines[4], shown(&shifted));
}

#[test]
fn list_sweeps_fail_and_stop_the_same_way() {
    let game = "game W(coins) where distinct(coins) {
            move slide(i in 0..len(coins), t in 0..coins[i]) -> W(sorted(update(coins, i, t)))
        }
        game P(x, ys) where x >= 0 and ys[0] < ys[1] {
            move down if x > 0 -> P(x - 1, ys)
            move left if ys[0] > 0 -> P(x, [ys[0] - 1, ys[1]])
        }\n";
    // A `where` failing inside the range (a repeated coin), after values
    // were stored; what was stored stays stored.
    let repeat = steps_same_both_ways(
        &[
            &format!("{game}print [sg(W([a, 4, 9])) for a in 0..8]"),
            "print memo_histogram(W)",
        ],
        Limits::default(),
    );
    assert!(
        repeat.contains("failure: W([4, 4, 9]) is not a position"),
        "{repeat}"
    );
    assert!(repeat.ends_with("]\n"), "{repeat}");
    // A moving coordinate beside an integer argument, and not an integer.
    let mixed = same_both_ways(&format!(
        "{game}print [sg(P(x, [y, 5])) for x in [3], y in 0..5]
        print [sg(P(x, [y, 5])) for x in [3], y in 3..7]"
    ));
    assert!(
        mixed.contains("failure: P(3, [5, 5]) is not a position"),
        "{mixed}"
    );
    let not_int = same_both_ways(&format!("{game}print [sg(W([a, [1], 9])) for a in 0..3]"));
    assert!(not_int.contains("failure"), "{not_int}");
    // State limits and timeouts inside a sweep of lists: the same memo
    // left behind.
    let text =
        format!("{game}print histogram(sg(W([a, b, c])) for c in 2..30, b in 1..c, a in 0..b)");
    let limited = steps_same_both_ways(
        &[&text, "print memo_histogram(W)"],
        Limits {
            max_states: 700,
            ..Limits::default()
        },
    );
    assert!(limited.contains("state space too large"), "{limited}");
    assert!(limited.ends_with("]\n"), "{limited}");
    let timed = same_both_ways_with(
        &text,
        Limits {
            timeout: Some(std::time::Duration::ZERO),
            ..Limits::default()
        },
    );
    assert!(timed.contains("timed out"), "{timed}");
}

#[test]
fn state_limits_fall_inside_a_block_of_the_plain_loop() {
    // Blocks of the plain loop are up to 4096 elements long; a limit that
    // falls inside one (or just at its end) stops at the same position as
    // element by element, with the same memo left.
    let game = "game S(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S(n - k)
        }\n";
    let first = format!("{game}print histogram(sg(S(n)) for n in 0..=20000)");
    let steps = [
        first.as_str(),
        "print memo_histogram(S)",
        "print sum(sg(S(n)) for n in 0..=30000)",
        "print memo_histogram(S)",
    ];
    for max_states in [3000, 4096, 4097, 9000, 20001, 25000] {
        let out = steps_same_both_ways(
            &steps,
            Limits {
                max_states,
                ..Limits::default()
            },
        );
        assert!(out.contains("state space too large"), "{out}");
        assert!(out.ends_with("]\n"), "{out}");
    }
    // The values of a sweep asked again, and down the line.
    let again = same_both_ways(
        "game S(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S(n - k)
        }
        print histogram(sg(S(n)) for n in 0..=10000)
        print histogram(sg(S(n)) for n in 0..=12000)
        print sum(sg(S(12000 - n)) for n in 0..=12000)
        print sum(sg(S(3 * n)) for n in 0..=6000)",
    );
    let s = subtraction_values(&[1, 2, 5], 18000);
    let lines: Vec<&str> = again.lines().collect();
    let mut h = vec![0i64; 3];
    s[..=12000].iter().for_each(|&v| h[v as usize] += 1);
    assert_eq!(lines[1], shown(&h), "{again}");
    assert_eq!(lines[2], s[..=12000].iter().sum::<i64>().to_string());
    let thirds: i64 = (0..=6000).map(|n| s[3 * n]).sum();
    assert_eq!(lines[3], thirds.to_string());
}

/// A window's pages faulted in for writing ahead of a sweep's line
/// (`memo::populate_for_writing`) keep every byte, in the range and
/// beside it, and are then read and written with (nearly) no fault (two
/// a page otherwise: the zero page, then its copy).
#[test]
fn pages_faulted_in_ahead_keep_their_bytes_and_fault_no_more() {
    use grundy::eval::memo::populate_for_writing;
    const PAGE: usize = 4096;
    let mut bytes = vec![0u8; 5 * PAGE + 123];
    for (i, b) in bytes.iter_mut().enumerate().skip(3000).step_by(7) {
        *b = (i % 251) as u8;
    }
    let before = bytes.clone();
    populate_for_writing(&mut bytes[100..4 * PAGE + 5]);
    assert_eq!(bytes, before);
    #[cfg(target_os = "linux")]
    {
        let faults = || {
            // SAFETY: getrusage writes the struct it is given.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
            usage.ru_minflt
        };
        let pages = 1024;
        let mut zeroed = vec![0u8; pages * PAGE];
        populate_for_writing(&mut zeroed);
        let start = faults();
        // As a sweep does: each byte read (an element's own), then written.
        for i in (0..zeroed.len()).step_by(PAGE / 2) {
            let b = std::hint::black_box(zeroed[i]);
            zeroed[i] = b.wrapping_add(1);
        }
        let taken = faults() - start;
        assert!(
            taken < (pages / 8) as i64,
            "{taken} faults for {pages} pages"
        );
        assert!(zeroed.iter().step_by(PAGE / 2).all(|&b| b == 1));
    }
}

/// Wythoff's game: (a, b) with a <= b is a P-position exactly when
/// `a = floor(j * phi)`, `b = a + j` for some `j` (Wythoff 1907; OEIS
/// A000201 and A001950).
fn wythoff_p(a: i64, b: i64) -> bool {
    let (a, b) = (a.min(b), a.max(b));
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    ((b - a) as f64 * phi).floor() as i64 == a
}

#[test]
fn tables_over_a_box_reserved_at_once_agree_with_the_general_path() {
    // The window is reserved for the outer loops' box where their ranges
    // name no binding (`n in 0..=N`, `a in 0..N`), not where they do
    // (`b in a..20`), nor below a filtering `if`.
    let n = 30;
    let out = same_both_ways(&format!(
        "game W(a, b) where a >= 0 and b >= 0 {{
            move left(k in 1..=a) -> W(a - k, b)
            move right(k in 1..=b) -> W(a, b - k)
            move both(k in 1..=min(a, b)) -> W(a - k, b - k)
        }}
        game F(n, m) where n >= 0 and m >= 1 {{
            move take(k in 1..=min(m, n)) -> F(n - k, 2 * k)
        }}
        let N = {n}
        print [sg(W(a, b)) == 0 for a in 0..N, b in 0..N]
        print histogram(sg(F(x, m)) for x in 0..=N, m in 1..=N)
        print [sg(F(x, m)) for m in 1..=N, x in 0..N + 5]
        print [sg(W(a, b)) for a in 0..12, b in a..20 if a % 2 == 0]
        print [sg(W(a, 3 * b)) for b in -2..4, a in 0..5]"
    ));
    let first = out.lines().next().expect("the Wythoff table");
    let want: Vec<String> = (0..n)
        .flat_map(|a| (0..n).map(move |b| wythoff_p(a, b).to_string()))
        .collect();
    assert_eq!(first, format!("[{}]", want.join(", ")));
}

/// `histogram`, `min`, `max` and `sum` of a comprehension fold its values
/// as they come (`compile/fold.rs`: counts kept as the list's integers, one
/// value kept for `min`/`max`), swept or not: the same answers as the
/// built-ins applied to the list of the values, and as a brute force,
/// for values past 250 (Lasker's Nim without the choice of taking: a heap
/// of n has value n) and for small ones; no value at all is the list
/// form's error.
#[test]
fn aggregates_fold_values_as_the_built_ins_fold_their_list() {
    let out = same_both_ways(
        "game H(n) where n >= 0 {
            move take(k in 1..=n) -> H(n - k)
            move split(a in 1..n) if a <= n - a -> H(a) + H(n - a)
        }
        game S(n) where n >= 0 {
            move take(k in {1, 2, 5}) if k <= n -> S(n - k)
        }
        let xs = [sg(H(n)) for n in 0..=600]
        print histogram(sg(H(n)) for n in 0..=600) == histogram(xs)
        print max(sg(H(n)) for n in 0..=600), max(xs), min(sg(H(n)) for n in 3..=600)
        print sum(sg(H(n)) for n in 0..=600), sum(xs)
        let ys = [sg(S(n)) for n in 0..=3000]
        print min(sg(S(n)) for n in 1..=3000), max(sg(S(n)) for n in 0..=3000), min(ys[1..]), max(ys)
        print histogram(sg(S(n)) for n in 0..=3000)
        print max(v for v in [3, -2, 7, 7, 1]), min(v for v in [3, -2, 7, 1]), max(s for s in [\"b\", \"a\"])
        print max(sg(S(n)) for n in 5..5)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(lines[0], "true");
    assert_eq!(lines[1], "600 600 3");
    let total: i64 = (0..=600).sum();
    assert_eq!(lines[2], format!("{total} {total}"));
    let g = subtraction_values(&[1, 2, 5], 3000);
    let (lo, hi) = (g[1..].iter().min().unwrap(), g.iter().max().unwrap());
    assert_eq!(lines[3], format!("{lo} {hi} {lo} {hi}"));
    let mut h = vec![0i64; *hi as usize + 1];
    for &v in &g {
        h[v as usize] += 1;
    }
    assert_eq!(lines[4], shown(&h));
    assert_eq!(lines[5], "7 -2 b");
    assert!(
        lines[6].starts_with("failure:") && lines[6].contains("min/max of an empty collection"),
        "{out}"
    );
}

#[test]
fn range_ends_of_bindings_and_constants_read_as_integer_code() {
    // The ends of a comprehension's ranges, arithmetic of its outer
    // bindings and top-level constants, are run as integer code with the
    // constants' values put in; each program is checked against the same
    // ends read through value code (wrapped in `max(.., ..)`, which is not
    // arithmetic), kernels on and off, and against a count by hand.
    let game = "game S(n) { move m(k in 1..=3) if k <= n -> S(n - k) }\n";
    let forms = [
        ("N - a", "N - a - b"),
        ("max(N - a, -1)", "max(N - a - b, -1)"),
    ];
    let mut shown = Vec::new();
    for (b_end, c_end) in forms {
        shown.push(steps_same_both_ways(
            &[
                &format!("{game}let N = 7"),
                &format!(
                    "print [sg(S(a + 2 * b + c)) for a in 0..=N, b in 0..={b_end}, c in 0..={c_end}]
                     print count(true for a in 0..=N, b in 0..={b_end}, c in 0..={c_end})"
                ),
                // The constant defined again: the ends read its new value.
                "let N = 4",
                &format!("print count(true for a in 0..=N, b in 0..={b_end}, c in 0..={c_end})"),
                // An end past the integers, and one not an integer.
                "let M = 9223372036854775807",
                "print [sg(S(b)) for a in 0..=2, b in 0..M + a - M]",
                "let L = [1, 2]",
                "print [sg(S(b)) for a in 0..=2, b in 0..L - a]",
            ],
            Limits::default(),
        ));
    }
    assert_eq!(
        shown[0], shown[1],
        "integer code (left), value code (right)"
    );
    let lines: Vec<&str> = shown[0].lines().collect();
    // C(N + 3, 3) triples with sum at most N; S's values are n mod 4.
    let values: Vec<String> = (0..=7i64)
        .flat_map(|a| (0..=7 - a).flat_map(move |b| (0..=7 - a - b).map(move |c| a + 2 * b + c)))
        .map(|n| (n % 4).to_string())
        .collect();
    assert_eq!(lines[0], format!("[{}]", values.join(", ")));
    assert_eq!(lines[1..3], ["120", "35"], "{}", shown[0]);
    assert!(
        lines[3].starts_with("failure") && lines[3].contains("overflow"),
        "{}",
        shown[0]
    );
    assert!(
        lines[4].starts_with("failure") && lines[4].contains("integer"),
        "{}",
        shown[0]
    );
}
