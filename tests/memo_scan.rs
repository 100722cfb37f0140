//! The one scan of options (`src/eval/memo/scan.rs`) through its public
//! calls: strided and ranked runs mark the values the memo's key API reads
//! and list the options it cannot answer, runs past the window included.

use grundy::eval::memo::scan::{mark_bytes, scan, seen_slot, Marks, Strided, NO_VALUE_BYTES};
use grundy::eval::memo::{int_shape, Key, Memo, Order, RankedRun, State};
use grundy::eval::value::Value;

/// A memo of one integer argument with the values of `values` at
/// 0, 1, ...; `None` leaves a position unknown.
fn memo_of(values: &[Option<u64>]) -> Memo {
    let mut memo = Memo::default();
    let shape = int_shape(1);
    let mut key = Key::default();
    for (x, v) in values.iter().enumerate() {
        key.set_coords(shape, 1, &[x as i64]);
        memo.set(&key, v.map_or(State::Valid, State::Value));
    }
    memo
}

/// Brute force: each option's state read through the memo's key API.
fn expected(memo: &mut Memo, indices: &[i64]) -> (Vec<u64>, Vec<i64>) {
    let (mut values, mut slow) = (vec![], vec![]);
    let mut key = Key::default();
    for (k, &x) in indices.iter().enumerate() {
        key.set_coords(int_shape(1), 1, &[x]);
        match memo.get(&key) {
            State::Value(v) => values.push(v),
            _ => slow.push(k as i64),
        }
    }
    (values, slow)
}

#[test]
fn a_strided_scan_marks_small_and_large_values_and_lists_the_rest() {
    let values: Vec<Option<u64>> = (0..600u64)
        .map(|x| (x % 7 != 3).then_some((x * 37) % 1000))
        .collect();
    let mut memo = memo_of(&values);
    for (first, stride, n) in [
        (0i64, 1i64, 600usize),
        (599, -3, 150),
        (5, 7, 80),
        (4, 0, 9),
    ] {
        let xs: Vec<i64> = (0..n as i64).map(|j| first + stride * j).collect();
        let (want, want_slow) = expected(&mut memo, &xs);
        let window = memo.window(int_shape(1)).expect("a window");
        let (at, step) = window
            .run(&[first], &[stride], 0, n as i64)
            .expect("inside");
        let walk = Strided {
            first: at,
            stride: step,
            n,
        };
        let (mut marks, mut slow) = (Marks::default(), vec![]);
        marks.start();
        scan(&window, &walk, 0..n as i64, &mut marks, &mut slow);
        assert_eq!(slow, want_slow);
        let (seen, stamp) = marks.slots();
        let marked: Vec<u64> = (0..1000)
            .filter(|&v| seen.get(seen_slot(v)) == Some(&stamp))
            .collect();
        let mut want = want;
        want.sort_unstable();
        want.dedup();
        assert_eq!(marked, want);
    }
}

#[test]
fn a_ranked_run_marks_the_values_get_reads_and_lists_the_others() {
    let list =
        |xs: &[i64]| Key::from_args(&[Value::list(xs.iter().map(|&x| Value::Int(x)).collect())]);
    // Staircase Nim's options `[1 + k, 6 - k, 2]`, k in 0..7: some
    // valued (one past the byte range), some not yet.
    let mut memo = Memo::ranking_sequences(Order::Sums);
    let option = |k: i64| [1 + k, 6 - k, 2];
    for k in 0..7 {
        let state = match k {
            2 => State::Valid,
            4 => State::Value(300),
            5 => continue,
            _ => State::Value(k as u64 % 3),
        };
        memo.set(&list(&option(k)), state);
    }
    let shape = list(&option(0)).shape();
    let (mut marks, mut slow) = (Marks::default(), vec![]);
    marks.start();
    {
        let window = memo.ranked(shape).expect("ranked");
        // `[1 + k, 6 - k, 2]`: the first prefix sum moves with `k`.
        let (at, bin) = (
            window.place(&[1, 6, 2]).expect("ranked"),
            window.binomials(),
        );
        let fixed = at.rank - bin.table[at.c[0]];
        let run = RankedRun::new(bin.table, fixed, [(at.c[0], 1)].into_iter().collect());
        scan(&window, &run, 0..7, &mut marks, &mut slow);
    }
    let (mut want, mut want_slow) = (vec![], vec![]);
    for k in 0..7 {
        match memo.get(&list(&option(k))) {
            State::Value(v) => want.push(v),
            _ => want_slow.push(k),
        }
    }
    assert_eq!(slow, want_slow);
    assert_eq!(want_slow, [2, 5]);
    let (seen, stamp) = marks.slots();
    let marked: Vec<u64> = (0..1000)
        .filter(|&v| seen.get(seen_slot(v)) == Some(&stamp))
        .collect();
    want.sort_unstable();
    want.dedup();
    assert_eq!(marked, want);
    assert!(marked.contains(&300));
}

#[test]
fn runs_past_the_window_are_not_answered() {
    let memo = memo_of(&[Some(1), Some(2), Some(0)]);
    let window = memo.window(int_shape(1)).expect("a window");
    let len = window.dense().len();
    let (mut marks, mut slow) = (Marks::default(), vec![]);
    marks.start();
    let walk = Strided {
        first: len - 2,
        stride: 1,
        n: 4,
    };
    scan(&window, &walk, 10..14, &mut marks, &mut slow);
    // The last two bytes answer for themselves; past them, nothing.
    let tail = &window.dense()[len - 2..];
    let mut want: Vec<i64> = (10..12)
        .filter(|&k| NO_VALUE_BYTES.contains(&(tail[k as usize - 10] as usize)))
        .collect();
    want.extend([12, 13]);
    assert_eq!(slow, want);
    let dense = window.dense();
    let mark =
        |run: Strided| move |seen: &mut [u32; 256], stamp| run.mark_window(dense, stamp, seen);
    assert!(!mark_bytes(&mut marks, mark(walk)));
    let inside = Strided {
        first: 0,
        stride: 1,
        n: 3,
    };
    marks.start();
    assert!(mark_bytes(&mut marks, mark(inside)));
    assert_eq!(marks.mex(), 3);
}

/// The value (or state) of position `(a, b)` of the window of
/// `scans_read_values_of_every_size_whichever_run_came_before`: row 0
/// small values only; elsewhere a mix of small values, values past the
/// bytes (16-bit codes, 251 up to 65531), past 16 bits (65532 on, kept
/// in the window's map) and positions without a value.
fn mixed_state(a: i64, b: i64) -> State {
    if a == 0 {
        return State::Value((b * 7 % 250) as u64);
    }
    let h = (a * 7919 + b * 104_729) % 97;
    let i = (a * 64 + b) as u64;
    match h % 7 {
        0 => State::Valid,
        1 => State::Value(h as u64 * 3 % 251),
        2 => State::Value([250, 251, 65_531, 65_532][(h % 4) as usize]),
        3 | 4 => State::Value(251 + i * 37 % 65_281),
        5 => State::Value(65_532 + i),
        _ => State::Value(i % 250),
    }
}

#[test]
fn scans_read_values_of_every_size_whichever_run_came_before() {
    // A scan of a window with large values reads the codes with the bytes
    // when the last scan met a large value, else the bytes first: each
    // run here is scanned after a run of small values and after one of
    // large values, and must mark what the memo's key API reads, list
    // what it cannot answer, and give the mex of the values read.
    const W: i64 = 48;
    let shape = int_shape(2);
    let mut memo = Memo::default();
    let mut key = Key::default();
    for a in 0..W {
        for b in 0..W {
            key.set_coords(shape, 2, &[a, b]);
            memo.set(&key, mixed_state(a, b));
        }
    }
    // (first a, first b), (step a, step b), length: rows, columns,
    // diagonals, both ways, single options and empty runs.
    let mut runs = vec![
        ((0, 0), (0, 1), W),
        ((W - 1, 5), (-1, 0), W),
        ((3, 3), (1, 1), 40),
    ];
    for t in 0..60i64 {
        let (a, b) = (1 + t * 13 % (W - 1), t * 29 % W);
        let step = [
            (0, 1),
            (0, -1),
            (1, 0),
            (-1, 0),
            (1, 1),
            (-1, -1),
            (1, -1),
            (0, 0),
        ];
        let (da, db) = step[t as usize % step.len()];
        let fits = |x: i64, d: i64| match d {
            1 => W - x,
            -1 => x + 1,
            _ => W,
        };
        let n = fits(a, da).min(fits(b, db)).min(1 + t % 45);
        runs.push(((a, b), (da, db), n));
    }
    let (small, large) = (((0, 0), (0, 1), W), ((1, 0), (0, 1), W));
    for ((a, b), (da, db), n) in runs {
        let (mut want, mut want_slow) = (vec![], vec![]);
        for k in 0..n {
            key.set_coords(shape, 2, &[a + da * k, b + db * k]);
            match memo.get(&key) {
                State::Value(v) => want.push(v),
                _ => want_slow.push(k),
            }
        }
        let want_mex = (0..).find(|v| !want.contains(v)).unwrap();
        want.sort_unstable();
        want.dedup();
        let window = memo.window(shape).expect("a window");
        let walk_of = |((a, b), (da, db), n): ((i64, i64), (i64, i64), i64)| {
            let (first, stride) = window.run(&[a, b], &[da, db], 0, n.max(1)).expect("inside");
            let n = n as usize;
            Strided { first, stride, n }
        };
        for before in [small, large] {
            let (mut marks, mut slow) = (Marks::default(), vec![]);
            marks.start();
            scan(
                &window,
                &walk_of(before),
                0..before.2,
                &mut marks,
                &mut slow,
            );
            marks.start();
            slow.clear();
            scan(
                &window,
                &walk_of(((a, b), (da, db), n)),
                0..n,
                &mut marks,
                &mut slow,
            );
            let what = format!("run from ({a}, {b}) by ({da}, {db}), {n} long");
            assert_eq!(slow, want_slow, "{what}");
            let (seen, stamp) = marks.slots();
            let marked: Vec<u64> = (want.iter().copied())
                .chain(0..70_000)
                .filter(|&v| seen.get(seen_slot(v)) == Some(&stamp))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            assert_eq!(marked, want, "{what}");
            assert_eq!(marks.mex(), want_mex, "{what}");
        }
    }
}
