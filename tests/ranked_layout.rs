//! The memo's layout of lists by rank (`src/eval/memo/ranked.rs`),
//! through the memo's own interface: every list of a kind up to a level
//! stored with a value of its own is read back with it (ranks are
//! distinct), at a rank below the count of such lists (they fill the
//! first indices), lower levels first; growing keeps ranks; a list's rank
//! is a sum of one binomial per coordinate as `RankedWindow` gives it;
//! and a line of lists that differ in one item reads each at its rank
//! down one column (`Memo::ranked_line`) as a lookup by key reads it.

use grundy::eval::memo::{int_shape, Key, Memo, Order, Shape, State};
use grundy::eval::value::Value;

fn key(xs: &[i64]) -> Key {
    Key::from_args(&[Value::list(xs.iter().map(|&x| Value::Int(x)).collect())])
}

/// Every list of `n` naturals below `m` (sum at most `m - 1` for
/// `Order::Sums`), of kind `order`, in lexicographic order.
fn lists(n: usize, m: i64, order: Order) -> Vec<Vec<i64>> {
    let mut out: Vec<Vec<i64>> = vec![vec![]];
    for _ in 0..n {
        out = (out.into_iter())
            .flat_map(|xs| {
                let (from, to) = match (order, xs.last()) {
                    (Order::Sums, _) => (0, m - xs.iter().sum::<i64>()),
                    (_, None) => (0, m),
                    (Order::Ascending, Some(&x)) => (x, m),
                    (Order::Increasing, Some(&x)) => (x + 1, m),
                };
                (from..to).map(move |y| [&xs[..], &[y]].concat())
            })
            .collect();
    }
    out
}

/// `C(a, b)`.
fn binomial(a: usize, b: usize) -> usize {
    (0..b).fold(1, |c, i| c * (a - i) / (i + 1))
}

/// The level a ranking orders by: the sum, or the largest item.
fn level(order: Order, xs: &[i64]) -> i64 {
    match order {
        Order::Sums => xs.iter().sum(),
        _ => *xs.last().unwrap(),
    }
}

/// Stores every list of `all` with its own value in a memo ranking
/// `order` (laid out flipped when `flip`), and checks each reads back
/// from the ranked window: by key, and along every line through it.
fn check(order: Order, n: usize, all: &[Vec<i64>], flip: bool) {
    let mut memo = Memo::ranking_sequences(order);
    let shape: Shape = key(&all[0]).shape();
    if flip {
        // Swept along the last item; bounded by the largest item.
        let order: Vec<u8> = (0..n as u8).rev().collect();
        memo.lay_out(shape, &order);
        memo.reserve(shape, all.last().unwrap());
    }
    for (v, xs) in all.iter().enumerate() {
        memo.set(&key(xs), State::Value(v as u64));
    }
    let window = memo.ranked(shape).expect("ranked");
    let parts = window.sorted_items();
    for xs in all {
        // The rank as the window places a list: every one below the count.
        let rank = match &parts {
            Some(p) => (0..n).map(|c| p.part(xs[c], c).expect("ranked")).sum(),
            None => window.place(xs).expect("ranked").rank,
        };
        // A sorted list's item between its neighbours: down one column.
        for c in (0..n).filter(|_| !flip && parts.is_some()) {
            let p = parts.as_ref().unwrap();
            let distinct = (order == Order::Increasing) as i64;
            let lo = if c == 0 { 0 } else { xs[c - 1] + distinct };
            let hi = if c + 1 == n {
                9
            } else {
                xs[c + 1] + 1 - distinct
            };
            let first = p.column(c, (lo, hi)).expect("ranked");
            let part = p.binom()[first + (xs[c] - lo) as usize];
            assert_eq!(part, p.part(xs[c], c).unwrap(), "{xs:?} at {c}");
        }
        assert!(rank < all.len(), "{order:?} {xs:?} at {rank}");
        if !flip {
            // Lists of a lower level first.
            let below = all.iter().filter(|ys| level(order, ys) < level(order, xs));
            let upto = all.iter().filter(|ys| level(order, ys) <= level(order, xs));
            assert!((below.count()..upto.count()).contains(&rank), "{xs:?}");
        }
    }
    for (v, xs) in all.iter().enumerate() {
        assert_eq!(memo.get(&key(xs)), State::Value(v as u64), "{xs:?}");
    }
    // Every line through every list: read at its rank where it has one,
    // as by key; the lines of a ranking by sum run along the last item.
    let mut lined = 0;
    for xs in all {
        for coord in 0..n {
            let Some(line) = memo.ranked_line(shape, xs, coord) else {
                assert!(
                    order == Order::Sums && coord + 1 < n,
                    "{xs:?} along {coord}"
                );
                continue;
            };
            for x in -2..20 {
                let mut ys = xs.clone();
                ys[coord] = x;
                let Some((state, at)) = memo.ranked_line_state(&line, x) else {
                    continue;
                };
                assert_eq!(state, memo.get(&key(&ys)), "{ys:?} along {coord}");
                assert_eq!(memo.state_at(at), Some(state), "{ys:?} placed");
                lined += matches!(state, State::Value(_)) as usize;
            }
        }
    }
    assert!(lined > all.len(), "{order:?}: lines read");
}

#[test]
fn lists_by_rank_read_back_by_key_and_along_lines() {
    for n in 2..=4 {
        check(Order::Sums, n, &lists(n, 8, Order::Sums), false);
        for order in [Order::Ascending, Order::Increasing] {
            check(order, n, &lists(n, 9, order), false);
            check(order, n, &lists(n, 9, order), true);
        }
    }
}

#[test]
fn the_count_of_lists_by_sum_is_stars_and_bars() {
    // The lists of `n` naturals with sum below `m`: C(m - 1 + n, n).
    for n in 1..=5 {
        assert_eq!(lists(n, 8, Order::Sums).len(), binomial(7 + n, n));
    }
}

#[test]
fn growing_keeps_ranks_and_lists_off_the_kind_have_none() {
    let mut memo = Memo::ranking_sequences(Order::Sums);
    let small = lists(4, 6, Order::Sums);
    for (v, xs) in small.iter().enumerate() {
        memo.set(&key(xs), State::Value(v as u64));
    }
    let shape = key(&small[0]).shape();
    let before: Vec<usize> = (small.iter())
        .map(|xs| memo.ranked(shape).unwrap().place(xs).unwrap().rank)
        .collect();
    memo.set(&key(&[0, 0, 0, 40]), State::Value(1000));
    let window = memo.ranked(shape).unwrap();
    let after: Vec<usize> = small
        .iter()
        .map(|xs| window.place(xs).unwrap().rank)
        .collect();
    assert_eq!(before, after);
    assert!(window.place(&[1, -1, 0, 0]).is_none());
    assert!(window.place(&[1 << 40, 0, 0, 0]).is_none());
    assert!(window.place(&[1, 0, 0]).is_none());
    assert!(memo.ranked_line(shape, &[0, -1, 2, 0], 3).is_none());
    for (v, xs) in small.iter().enumerate() {
        assert_eq!(memo.get(&key(xs)), State::Value(v as u64), "{xs:?}");
    }
    // Sums past the addressable range: kept, outside the ranked window.
    memo.set(&key(&[1 << 40, 0, 0, 0]), State::Value(7));
    assert_eq!(memo.get(&key(&[1 << 40, 0, 0, 0])), State::Value(7));
}

#[test]
fn ranked_lists_keep_values_past_a_byte_across_growth_and_other_shapes_keep_the_box() {
    let mut memo = Memo::ranking_sequences(Order::Sums);
    let positions: [&[i64]; 8] = [
        &[0, 0, 0],
        &[1, 2, 0],
        &[3, 0, 40],
        &[0, 1, 2],
        &[-1, 2, 0],      // below 0: the sparse table
        &[1 << 40, 0, 0], // past the addressable sums: sparse
        &[7, 7],          // another shape
        &[2, 2, 2],
    ];
    for (i, xs) in positions.iter().enumerate() {
        // Some values past the byte range, kept beside it.
        memo.set(&key(xs), State::Value(i as u64 * 90));
    }
    for (i, xs) in positions.iter().enumerate() {
        assert_eq!(memo.get(&key(xs)), State::Value(i as u64 * 90), "{xs:?}");
    }
    assert_eq!(memo.get(&key(&[0, 2, 1])), State::Unknown);
    let shape = key(&[0, 0, 0]).shape();
    assert!(memo.window(shape).is_none(), "no strided window");
    assert!(memo.ranked(key(&[7, 7]).shape()).is_some());
    // Integers keep the box window.
    memo.set(
        &Key::from_args(&[Value::Int(3), Value::Int(4)]),
        State::Value(1),
    );
    assert!(memo.ranked(int_shape(2)).is_none());
}
