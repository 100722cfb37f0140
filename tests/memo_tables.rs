//! The memo's tables through their public calls: keys, values kept
//! across window growth and sparse keys, lookups begun in a row and
//! resolved after stores.

use grundy::eval::memo::{int_shape, Key, Memo, Probe, Shape, State, FREE_DENSE_BYTES};
use grundy::eval::value::Value;

fn key(args: &[Value]) -> Key {
    Key::from_args(args)
}

#[test]
fn keys_round_trip() {
    let args = vec![
        Value::Int(-3),
        Value::list(vec![Value::Int(1), Value::Int(7)]),
        Value::set(vec![Value::Int(2)]),
        Value::Bool(true),
    ];
    assert_eq!(&*key(&args).to_args(), &args[..]);
    let nested = vec![Value::list(vec![Value::list(vec![])])];
    let k = key(&nested);
    assert!(k.generic.is_some());
    assert_eq!(&*k.to_args(), &nested[..]);
}

#[test]
fn memo_keeps_values_across_window_growth_and_sparse_keys() {
    let mut memo = Memo::default();
    let mut expected = Vec::new();
    for (i, (a, b)) in [
        (0, 0),
        (1, 0),
        (5, 9),
        (300, 2),
        (-4, 1),
        (1 << 40, 3),
        (70, 70),
    ]
    .into_iter()
    .enumerate()
    {
        let k = key(&[Value::Int(a), Value::Int(b)]);
        let v = (i as u64) * 100; // some above the dense byte range
        memo.set(&k, State::Value(v));
        expected.push((k, v));
    }
    for (k, v) in &expected {
        assert_eq!(memo.get(k), State::Value(*v), "{k:?}");
    }
    assert_eq!(
        memo.get(&key(&[Value::Int(2), Value::Int(2)])),
        State::Unknown
    );
    assert_eq!(memo.stored, expected.len());
}

#[test]
fn lookups_probed_in_a_row_resolve_to_what_get_reads() {
    // Scattered positions stay sparse, enough of them that the sparse
    // slots pass the cache (their lookups then wait for `resolve`, after
    // a prefetch); a line of them goes dense. The probes are all made
    // before any is resolved, as the walk lists a position's options.
    let mut memo = Memo::default();
    let shape = key(&[Value::Int(0)]).shape();
    for i in 0..700_000i64 {
        memo.set(&key(&[Value::Int(i << 22)]), State::Value(i as u64 % 300));
    }
    for i in 0..3000i64 {
        memo.set(&key(&[Value::Int(i)]), State::Value(i as u64 % 7 + 1000));
    }
    let asked: Vec<i64> = (0..4000i64)
        .flat_map(|i| [i << 22, i, (i << 22) + 1, -i])
        .collect();
    let probes: Vec<Probe> = asked.iter().map(|&c| memo.probe(shape, &[c])).collect();
    assert!(probes.iter().any(|p| matches!(p, Probe::Sparse { .. })));
    // Found at once: a dense byte (the line's values are 1000 and up).
    let dense = |p: &Probe| matches!(p, Probe::Found(State::Value(1000..), Some(_)));
    assert!(probes.iter().any(dense));
    // Stores between the probes and their lookups: the sparse slots
    // grow and its packing widens, positions found missing are stored.
    for i in 1..20_000i64 {
        memo.set(&key(&[Value::Int((i << 40) + 3)]), State::Value(2));
        memo.set(&key(&[Value::Int(-i)]), State::Value(3));
    }
    for (&c, &p) in asked.iter().zip(&probes) {
        let (state, at) = memo.resolve(p, shape, &[c]);
        assert_eq!(state, memo.get_coords(shape, &[c]), "{c}");
        if let Some(at) = at {
            assert_eq!(memo.state_at(at), Some(state), "{c}");
        }
    }
    let mut probed = |shape, coords: &[i64]| {
        let p = memo.probe(shape, coords);
        memo.resolve(p, shape, coords).0
    };
    assert_eq!(probed(shape, &[5 << 22]), State::Value(5));
    assert_eq!(probed(shape, &[5]), State::Value(1005));
    assert_eq!(probed(shape, &[-7]), State::Value(3));
    let other = key(&[Value::Int(0), Value::Int(0)]).shape();
    assert_eq!(probed(other, &[0, 0]), State::Unknown);
}

#[test]
fn a_position_weighs_one_per_80_bytes_of_its_key() {
    let ints = |n: i64| Value::list((0..n).map(Value::Int).collect());
    assert_eq!(key(&[Value::Int(5), Value::Int(7)]).weight(), 1);
    // 26 + 8 * 14 bytes: two.
    assert_eq!(key(&[ints(13)]).weight(), 2);
    // Past 16 integers the key holds the values themselves.
    let long = key(&[ints(30)]);
    assert!(long.generic.is_some());
    assert!((5..=15).contains(&long.weight()), "{}", long.weight());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Keys stored in any order (the window re-laid out as each
    /// coordinate grows, long rows moved by copies, short ones byte by
    /// byte, values past the dense bytes kept aside) read back as a
    /// map holds them.
    #[test]
    fn growth_keeps_every_stored_value(
        entries in proptest::collection::vec(
            (proptest::collection::vec(0i64..70, 3), 0u64..400, proptest::bool::ANY),
            1..60,
        ),
        order in proptest::sample::select(vec![
            None,
            Some([0u8, 1, 2]),
            Some([1, 0, 2]),
            Some([1, 2, 0]),
            Some([2, 0, 1]),
            Some([2, 1, 0]),
        ]),
    ) {
        let mut memo = Memo::default();
        // Layouts in every order of the coordinates, as sweeps ask.
        if let Some(order) = order {
            let (list, ints) = (key(&[Value::list(vec![Value::Int(0); 3])]), key(&[Value::Int(0), Value::Int(0), Value::Int(0)]));
            memo.lay_out(list.shape(), &order);
            memo.lay_out(ints.shape(), &order);
        }
        // The last value stored for each key.
        let mut model: Vec<(Key, u64)> = Vec::new();
        for (xs, v, as_list) in &entries {
            let k = if *as_list {
                key(&[Value::list(xs.iter().map(|&x| Value::Int(x)).collect())])
            } else {
                key(&xs.iter().map(|&x| Value::Int(x)).collect::<Vec<_>>())
            };
            memo.set(&k, State::Value(*v));
            model.retain(|(other, _)| *other != k);
            model.push((k, *v));
        }
        for (k, v) in &model {
            proptest::prop_assert_eq!(memo.get(k), State::Value(*v), "{:?}", k);
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Keys spread over many pages, stored in any order: a window grown
    /// (rows of a few bytes, of less than a page and of more, moved past
    /// the pages nothing was written in) reads back as a map holds them.
    #[test]
    fn growth_over_unwritten_pages_keeps_every_stored_value(
        spans in proptest::collection::vec(proptest::sample::select(vec![8i64, 70, 700, 9000]), 2..=3),
        picks in proptest::collection::vec((proptest::collection::vec(0.0f64..1.0, 3), 0u64..300), 1..150),
    ) {
        let mut memo = Memo::default();
        let mut model: Vec<(Key, u64)> = Vec::new();
        for (fractions, v) in &picks {
            let xs: Vec<Value> = spans
                .iter()
                .zip(fractions)
                .map(|(&span, f)| Value::Int((f * span as f64) as i64))
                .collect();
            let k = key(&xs);
            memo.set(&k, State::Value(*v));
            model.retain(|(other, _)| *other != k);
            model.push((k, *v));
        }
        for (k, v) in &model {
            proptest::prop_assert_eq!(memo.get(k), State::Value(*v), "{:?}", k);
        }
    }
}

#[test]
fn for_each_value_reads_every_value_of_a_window_and_no_other_state() {
    // Positions scattered over a window (some bytes alone in a word,
    // some next to each other, some at a block's end), with values
    // past the dense bytes, and states that are no values.
    let mut memo = Memo::default();
    let mut expected = Vec::new();
    for i in 0..200i64 {
        let (a, b) = ((i * 37) % 61, i % 13);
        let k = key(&[Value::Int(a), Value::Int(b)]);
        let state = match i % 7 {
            0 => State::Valid,
            1 => State::OnPath,
            2 => State::Invalid,
            _ => State::Value(((i * 31) % 300) as u64),
        };
        memo.set(&k, state);
        expected.retain(|&(old, _)| old != (a, b));
        expected.push(((a, b), state));
    }
    let mut want: Vec<u64> = expected
        .iter()
        .filter_map(|(_, s)| match s {
            State::Value(v) => Some(*v),
            _ => None,
        })
        .collect();
    let mut got = Vec::new();
    memo.for_each_value(|v| got.push(v));
    want.sort_unstable();
    got.sort_unstable();
    assert!(want.len() > 50, "{} values", want.len());
    assert_eq!(got, want);
}

/// The bytes of the dense window of `shape`.
fn window_bytes(memo: &Memo, shape: Shape) -> usize {
    memo.window(shape).map_or(0, |w| w.dense().len())
}

#[test]
fn a_window_grows_for_positions_along_lines_not_for_scattered_ones() {
    // Positions 2^21 apart (bit masks of a set game): each would touch
    // its own page of a window, so they stay in the sparse table.
    let mut scattered = Memo::default();
    let keys: Vec<Key> = (0..500).map(|i| key(&[Value::Int(i << 21)])).collect();
    for (i, k) in keys.iter().enumerate() {
        scattered.set(k, State::Value(i as u64));
    }
    // (A window is padded by a cache line or so: see `stride_past`.)
    assert!((window_bytes(&scattered, int_shape(1)) as u64) < 2 * FREE_DENSE_BYTES);
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(scattered.get(k), State::Value(i as u64));
    }
    // The same number of positions along a line past the free size:
    // the pages they touch are full, so the window takes them.
    let mut lined = Memo::default();
    for x in 0..500 {
        lined.set(&key(&[Value::Int(1 << 20), Value::Int(x)]), State::Value(1));
    }
    for x in 0..500 {
        let k = key(&[Value::Int((1 << 20) + 7), Value::Int(x)]);
        lined.set(&k, State::Value(2));
    }
    assert!(window_bytes(&lined, int_shape(2)) as u64 >= 2 * FREE_DENSE_BYTES);
    let k = key(&[Value::Int((1 << 20) + 7), Value::Int(499)]);
    assert!(lined.locate(&k).1.is_some(), "in the window");
}

#[test]
fn a_window_whose_later_positions_spread_thinly_narrows_again() {
    // Two full lines make the window grow past the free size...
    let mut memo = Memo::default();
    let mut stored = Vec::new();
    for (a, b) in (0..500).flat_map(|b| [(1 << 20, b), ((1 << 20) + 7, b)]) {
        stored.push((key(&[Value::Int(a), Value::Int(b)]), (a + b) as u64 % 300));
    }
    // ... then positions a page apart each (rows of 512 bytes).
    for j in 1..3000 {
        let a = (1 << 20) - 8 * j;
        stored.push((key(&[Value::Int(a), Value::Int(3)]), j as u64 % 260));
    }
    let mut widest = 0;
    for (k, v) in &stored {
        memo.set(k, State::Value(*v));
        widest = widest.max(window_bytes(&memo, int_shape(2)));
    }
    assert!(widest as u64 >= 2 * FREE_DENSE_BYTES);
    assert!((window_bytes(&memo, int_shape(2)) as u64) < 2 * FREE_DENSE_BYTES);
    for (k, v) in &stored {
        assert_eq!(memo.get(k), State::Value(*v));
    }
}

#[test]
fn a_place_found_missing_carries_the_store_and_the_value_and_keys_pack_in_a_word() {
    // Sparse positions (a coordinate past the window), stored at the
    // vacant slot where each was found missing, then read and written
    // at their place; checked against `get` by key, through growths of
    // the slots and widenings of the packing that make places stale.
    let mut memo = Memo::default();
    let at_of = |x: i64| key(&[Value::Int(x), Value::Int(x << 24)]);
    memo.set(&at_of(0), State::Value(1));
    let mut places = Vec::new();
    for x in 1..3000i64 {
        let k = at_of(if x % 2 == 0 { x } else { -x });
        let (state, at) = memo.locate(&k);
        assert_eq!(state, State::Unknown);
        // A place in the window would hold the key (as `Unknown`).
        let outside = at.is_none_or(|at| !at.holds());
        assert!(outside, "too thin a window");
        let at = memo.set_located(at, &k, State::Valid);
        let at = at.expect("stored in a shape's table");
        assert_eq!(memo.state_at(at), Some(State::Valid));
        let packed = memo.pack_key(&k).expect("packs in 55 bits");
        places.push((k, at, packed));
    }
    let mut stale = 0;
    let mut unpacked = Key::default();
    for (i, (k, at, packed)) in places.iter().enumerate() {
        memo.unpack_key(*packed, &mut unpacked);
        assert_eq!(&unpacked, k, "a word unpacks after widenings");
        match memo.state_at(*at) {
            Some(state) => assert_eq!(state, State::Valid),
            None => stale += 1,
        }
        let v = State::Value(i as u64 % 400);
        memo.set_located(Some(*at), k, v);
        assert_eq!(memo.get(k), v);
    }
    assert!(stale > 0 && stale < places.len(), "{stale} stale places");
    assert_eq!(memo.get(&at_of(0)), State::Value(1));
    // A vacancy taken by another key since reads as stale, and a
    // store through it still lands on its own key.
    let (a, b) = (at_of(1 << 19), at_of(-(1 << 19)));
    let (_, vacancy) = memo.locate(&a);
    memo.set(&b, State::Value(9));
    memo.set_located(vacancy, &a, State::Value(8));
    assert_eq!(
        (memo.get(&a), memo.get(&b)),
        (State::Value(8), State::Value(9))
    );
}

#[test]
fn large_values_of_every_width_survive_growth_overwrites_and_are_counted() {
    // Values past the window's bytes (250) are kept two bytes a position
    // and those past 16 bits apart; the window grows under them, some are
    // overwritten by small values and some small ones by large.
    let mut memo = Memo::default();
    let mut model = std::collections::BTreeMap::new();
    let value_of = |a: i64, b: i64, round: u64| match (a * 7 + b * 3 + round as i64) % 5 {
        0 => (a + b) as u64 % 200,
        1 => 251 + (a * 31 + b) as u64 % 3000,
        2 => 70_000 + (a * b) as u64,
        3 => 65_535 - (a + b) as u64 % 10,
        _ => 250 + round,
    };
    for round in 0..3u64 {
        // Each round reaches further out, so the window grows.
        let reach = 8i64 << (3 * round);
        for a in (0..reach).step_by(1 + round as usize) {
            for b in (0..reach).step_by(3 + 2 * round as usize) {
                let v = value_of(a, b, round);
                memo.set(&key(&[Value::Int(a), Value::Int(b)]), State::Value(v));
                model.insert((a, b), v);
            }
        }
        for (&(a, b), &v) in &model {
            let got = memo.get(&key(&[Value::Int(a), Value::Int(b)]));
            assert_eq!(got, State::Value(v), "({a}, {b}) after round {round}");
        }
    }
    let mut counted = Vec::new();
    memo.for_each_value(|v| counted.push(v));
    let mut expected: Vec<u64> = model.values().copied().collect();
    counted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(counted, expected);
}
