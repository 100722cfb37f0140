//! The memo's tables through their public calls: keys, values kept
//! across window growth and sparse keys, lookups begun in a row and
//! resolved after stores.

use grundy::eval::memo::{Key, Memo, Probe, State};
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
    // Scattered positions stay sparse, a line of them goes dense; the
    // probes are all made before any is resolved, as a batch does.
    let mut memo = Memo::default();
    let shape = key(&[Value::Int(0)]).shape();
    for i in 0..3000i64 {
        memo.set(&key(&[Value::Int(i << 22)]), State::Value(i as u64 % 300));
        memo.set(&key(&[Value::Int(i)]), State::Value(i as u64 % 7 + 1000));
    }
    let asked: Vec<i64> = (0..4000i64)
        .flat_map(|i| [i << 22, i, (i << 22) + 1, -i])
        .collect();
    let probes: Vec<Probe> = asked.iter().map(|&c| memo.probe(shape, &[c])).collect();
    assert!(probes.iter().any(|p| matches!(p, Probe::Sparse { .. })));
    assert!(probes
        .iter()
        .any(|p| matches!(p, Probe::Known(State::Value(_)))));
    // Stores between the probes and their lookups: the sparse slots
    // grow and its packing widens, positions found missing are stored.
    for i in 1..20_000i64 {
        memo.set(&key(&[Value::Int((i << 40) + 3)]), State::Value(2));
        memo.set(&key(&[Value::Int(-i)]), State::Value(3));
    }
    for (&c, &p) in asked.iter().zip(&probes) {
        let (state, at) = memo.resolve(p, &[c]);
        assert_eq!(state, memo.get_coords(shape, &[c]), "{c}");
        if let Some(at) = at {
            assert_eq!(memo.state_at(at), Some(state), "{c}");
        }
    }
    let mut probed = |shape, coords: &[i64]| {
        let p = memo.probe(shape, coords);
        memo.resolve(p, coords).0
    };
    assert_eq!(probed(shape, &[5 << 22]), State::Value(5));
    assert_eq!(probed(shape, &[5]), State::Value(1005));
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
