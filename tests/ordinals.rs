//! Ordinal arithmetic (`src/eval/ordinal.rs`): Cantor normal form, the
//! order, sums, products and nim-sums of ordinals, Welter's function and
//! its good moves, against definitions and published examples.

use grundy::eval::ordinal::*;
use std::collections::HashMap;

fn o(terms: &[(i64, i64)]) -> Ordinal {
    Ordinal::from_terms(terms.to_vec())
}

fn n(k: i64) -> Ordinal {
    Ordinal::nat(k)
}

fn w() -> Ordinal {
    Ordinal::omega_pow(1)
}

#[test]
fn prints_in_cantor_normal_form() {
    assert_eq!(o(&[(2, 3), (1, 2), (0, 4)]).to_string(), "ω^2*3 + ω*2 + 4");
    assert_eq!(o(&[(2, 1), (1, 1)]).to_string(), "ω^2 + ω");
    assert_eq!(Ordinal::zero().to_string(), "0");
    assert_eq!(n(7).to_string(), "7");
}

#[test]
fn order_is_the_order_of_ordinals() {
    let mut xs = vec![
        o(&[(2, 1)]),
        n(5),
        o(&[(1, 1), (0, 3)]),
        o(&[(1, 2)]),
        o(&[(1, 1)]),
        Ordinal::zero(),
        o(&[(2, 1), (0, 1)]),
        o(&[(1, 1), (0, 100)]),
        n(1000),
    ];
    xs.sort();
    let shown: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    assert_eq!(
        shown,
        ["0", "5", "1000", "ω", "ω + 3", "ω + 100", "ω*2", "ω^2", "ω^2 + 1"]
    );
}

#[test]
fn addition_absorbs_smaller_terms_on_the_left() {
    let one = n(1);
    assert_eq!(one.add(&w()).unwrap(), w());
    assert_eq!(w().add(&one).unwrap(), o(&[(1, 1), (0, 1)]));
    assert_eq!(
        o(&[(2, 1), (1, 5), (0, 25)])
            .add(&o(&[(1, 2), (0, 1)]))
            .unwrap(),
        o(&[(2, 1), (1, 7), (0, 1)])
    );
    assert_eq!(n(3).add(&n(4)).unwrap(), n(7));
    assert_eq!(Ordinal::zero().add(&w()).unwrap(), w());
    assert_eq!(w().add(&Ordinal::zero()).unwrap(), w());
    assert!(n(i64::MAX).add(&n(1)).is_none());
}

#[test]
fn multiplication_is_ordinal_multiplication() {
    // 2·ω = ω, ω·2 = ω + ω
    assert_eq!(n(2).mul(&w()).unwrap(), w());
    assert_eq!(w().mul(&n(2)).unwrap(), o(&[(1, 2)]));
    // (ω + 1)·2 = ω·2 + 1; (ω + 1)·ω = ω^2; (ω + 1)^2 = ω^2 + ω + 1
    let w1 = o(&[(1, 1), (0, 1)]);
    assert_eq!(w1.mul(&n(2)).unwrap(), o(&[(1, 2), (0, 1)]));
    assert_eq!(w1.mul(&w()).unwrap(), o(&[(2, 1)]));
    assert_eq!(w1.mul(&w1).unwrap(), o(&[(2, 1), (1, 1), (0, 1)]));
    assert_eq!(w1.pow(3).unwrap(), o(&[(3, 1), (2, 1), (1, 1), (0, 1)]));
    // (ω^2·3 + 9)·(ω·2 + 4) = ω^3·2 + ω^2·12 + 9
    let a = o(&[(2, 3), (0, 9)]);
    let b = o(&[(1, 2), (0, 4)]);
    assert_eq!(a.mul(&b).unwrap(), o(&[(3, 2), (2, 12), (0, 9)]));
    assert_eq!(Ordinal::zero().mul(&w()).unwrap(), Ordinal::zero());
    assert_eq!(w().mul(&Ordinal::zero()).unwrap(), Ordinal::zero());
    assert_eq!(n(6).mul(&n(7)).unwrap(), n(42));
    assert_eq!(w().pow(0).unwrap(), n(1));
    assert_eq!(n(3).pow(4).unwrap(), n(81));
    assert!(w1.pow(1 << 40).is_none());
}

/// Addition and multiplication against a second, naive definition on
/// many small ordinals: associativity, left distributivity, and the
/// order being compatible with addition on the right.
#[test]
fn arithmetic_laws_hold_on_small_ordinals() {
    let mut xs = Vec::new();
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                xs.push(o(&[(2, a), (1, b), (0, c)]));
            }
        }
    }
    for a in &xs {
        for b in &xs {
            let ab = a.add(b).unwrap();
            assert!(ab >= *a && ab >= *b);
            for c in &xs {
                assert_eq!(ab.add(c), a.add(&b.add(c).unwrap()));
                let a_bc = a.mul(&b.add(c).unwrap()).unwrap();
                assert_eq!(a_bc, a.mul(b).unwrap().add(&a.mul(c).unwrap()).unwrap());
                if b < c {
                    assert!(a.add(b).unwrap() < a.add(c).unwrap());
                }
            }
            let ab = a.mul(b).unwrap();
            for c in &xs {
                assert_eq!(ab.mul(c), a.mul(&b.mul(c).unwrap()));
            }
        }
    }
}

#[test]
fn nim_sum_is_coefficientwise_xor() {
    let a = o(&[(2, 3), (1, 2), (0, 4)]);
    assert_eq!(a.nim_sum(&a), Ordinal::zero());
    assert_eq!(a.nim_sum(&Ordinal::zero()), a);
    assert_eq!(
        a.nim_sum(&o(&[(3, 1), (1, 2), (0, 1)])),
        o(&[(3, 1), (2, 3), (0, 5)])
    );
}

/// Example 3.7: (1, ω·2 + 4, ω^2·3 + 9, ω^2·2 + ω·4 + 16, ω^2 + ω·5 + 25).
#[test]
fn example_3_7() {
    let pos = [
        n(1),
        o(&[(1, 2), (0, 4)]),
        o(&[(2, 3), (0, 9)]),
        o(&[(2, 2), (1, 4), (0, 16)]),
        o(&[(2, 1), (1, 5), (0, 25)]),
    ];
    let s = Ordinal::nim_sum_all(&pos);
    assert_eq!(s, o(&[(1, 3), (0, 5)]));
    assert_eq!(good_moves_nim(&pos), vec![(1, o(&[(1, 1), (0, 1)]))]);
    let mut after = pos.clone();
    after[1] = o(&[(1, 1), (0, 1)]);
    assert!(Ordinal::nim_sum_all(&after).is_zero());
    assert!(good_moves_nim(&after).is_empty());
}

/// Example 3.11, with the corrected good move (the paper prints
/// ω^2 + ω·4 + 6, whose position has value 24).
#[test]
fn example_3_11() {
    let pos = [
        n(1),
        o(&[(1, 2), (0, 4)]),
        o(&[(1, 2), (0, 9)]),
        o(&[(2, 1), (1, 4), (0, 16)]),
        o(&[(2, 1), (1, 5), (0, 25)]),
    ];
    assert_eq!(welter(&pos).unwrap(), o(&[(1, 1), (0, 4)]));
    let good = o(&[(2, 1), (1, 4), (0, 30)]);
    assert_eq!(good_moves_welter(&pos).unwrap(), vec![(4, good.clone())]);
    let mut printed = pos.clone();
    printed[4] = o(&[(2, 1), (1, 4), (0, 6)]);
    assert_eq!(welter(&printed).unwrap(), n(24));
    let mut after = pos.clone();
    after[4] = good;
    assert!(welter(&after).unwrap().is_zero());
    assert!(good_moves_welter(&after).unwrap().is_empty());
}

/// Definition 2.6 directly: the nim-sum of the coins and of the mates of
/// every pair of them.
fn welter_by_definition(xs: &[i64]) -> i64 {
    let mut acc = 0i64;
    for (i, &a) in xs.iter().enumerate() {
        acc ^= a;
        for &b in &xs[i + 1..] {
            acc ^= mate(a, b);
        }
    }
    acc
}

#[test]
fn mating_method_equals_definition_2_6() {
    // All multisets of up to 5 values from -6..10 would be many; take
    // every list of up to 4 values and a sample of longer ones.
    let vals: Vec<i64> = (-6..10).collect();
    let mut stack: Vec<Vec<i64>> = vec![vec![]];
    while let Some(xs) = stack.pop() {
        assert_eq!(welter_ints(&xs), Some(welter_by_definition(&xs)), "{xs:?}");
        if xs.len() < 4 {
            for &v in &vals {
                let mut ys = xs.clone();
                ys.push(v);
                stack.push(ys);
            }
        }
    }
    let mut seed = 12345u64;
    for _ in 0..2000 {
        let len = (seed % 12) as usize;
        let xs: Vec<i64> = (0..len)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 40) as i64 - (1 << 23)
            })
            .collect();
        assert_eq!(welter_ints(&xs), Some(welter_by_definition(&xs)), "{xs:?}");
    }
    // Two coins: [a|b] = a (+) b - 1; one coin: [a] = a.
    assert_eq!(welter_ints(&[4, 9]), Some(12));
    assert_eq!(welter_ints(&[6, 16]), Some(21));
    assert_eq!(welter_ints(&[30, 16]), Some(13));
    assert_eq!(welter_ints(&[7]), Some(7));
    assert_eq!(welter_ints(&[]), Some(0));
    assert_eq!(welter_ints(&[3, 3]), Some(-1));
    // Overflow is reported, not wrapped.
    assert_eq!(welter_ints(&[0, i64::MIN]), None);
}

/// Sprague-Grundy values of Welter's game by mex over the options (a
/// coin moves to any free lower square), for sorted sets of squares.
fn sg_welter(coins: &[i64], memo: &mut HashMap<Vec<i64>, i64>) -> i64 {
    if let Some(&v) = memo.get(coins) {
        return v;
    }
    let mut seen = Vec::new();
    for i in 0..coins.len() {
        for t in 0..coins[i] {
            if coins.contains(&t) {
                continue;
            }
            let mut next = coins.to_vec();
            next[i] = t;
            next.sort_unstable();
            seen.push(sg_welter(&next, memo));
        }
    }
    let mut m = 0;
    while seen.contains(&m) {
        m += 1;
    }
    memo.insert(coins.to_vec(), m);
    m
}

fn subsets(board: i64, k: usize) -> Vec<Vec<i64>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for xs in subsets(board, k - 1) {
        let from = xs.last().map_or(0, |&l| l + 1);
        for v in from..board {
            let mut ys = xs.clone();
            ys.push(v);
            out.push(ys);
        }
    }
    out
}

/// Theorem 2.8 and the good moves, against an independent mex search.
#[test]
fn finite_welter_equals_mex_search() {
    let mut memo = HashMap::new();
    for (k, board) in [(1, 20), (2, 16), (3, 12), (4, 10)] {
        for coins in subsets(board, k) {
            let sg = sg_welter(&coins, &mut memo);
            assert_eq!(welter_ints(&coins), Some(sg), "{coins:?}");
            let ords: Vec<Ordinal> = coins.iter().map(|&c| n(c)).collect();
            assert_eq!(welter(&ords).unwrap(), n(sg));
            // Good moves: every move to a position of value 0.
            let mut expected = Vec::new();
            for i in 0..coins.len() {
                for t in 0..coins[i] {
                    if coins.contains(&t) {
                        continue;
                    }
                    let mut next = coins.clone();
                    next[i] = t;
                    next.sort_unstable();
                    if sg_welter(&next, &mut memo) == 0 {
                        expected.push((i, n(t)));
                    }
                }
            }
            assert_eq!(good_moves_welter(&ords).unwrap(), expected, "{coins:?}");
        }
    }
}

#[test]
fn solving_for_one_coin_is_exact() {
    for coins in subsets(9, 3) {
        for s in 0..20 {
            let x = welter_solve(&coins, s);
            let found: Vec<i64> = (-40..80)
                .filter(|&y| {
                    let mut all = coins.clone();
                    all.push(y);
                    welter_by_definition(&all) == s
                })
                .collect();
            assert_eq!(found, vec![x], "{coins:?} {s}");
            assert!(x >= 0 && !coins.contains(&x));
        }
    }
}

/// All ordinals ω^2·a + ω·b + c with a < 2, b < bmax, c < cmax.
fn grid(bmax: i64, cmax: i64) -> Vec<Ordinal> {
    let mut out = Vec::new();
    for a in 0..2 {
        for b in 0..bmax {
            for c in 0..cmax {
                out.push(o(&[(2, a), (1, b), (0, c)]));
            }
        }
    }
    out
}

/// Theorem 3.9 checked on a finite window: from positions of two or
/// three coins below ω^2·2, no option (in a window) has the position's
/// value, and every smaller value in a window is the value of some
/// option in the window. Both facts are what mex means.
#[test]
fn transfinite_welter_is_a_mex_on_a_window() {
    let squares = grid(3, 4);
    let options = grid(8, 24);
    let mut positions: Vec<Vec<Ordinal>> = Vec::new();
    for (i, a) in squares.iter().enumerate() {
        for (j, b) in squares.iter().enumerate().skip(i + 1) {
            positions.push(vec![a.clone(), b.clone()]);
            if (i + j) % 5 == 0 {
                for c in squares.iter().skip(j + 1).step_by(3) {
                    positions.push(vec![a.clone(), b.clone(), c.clone()]);
                }
            }
        }
    }
    for pos in &positions {
        let value = welter(pos).unwrap();
        let mut reached = Vec::new();
        for i in 0..pos.len() {
            for to in options.iter().filter(|t| **t < pos[i] && !pos.contains(t)) {
                let mut next = pos.clone();
                next[i] = to.clone();
                let v = welter(&next).unwrap();
                assert_ne!(v, value, "{pos:?} -> {next:?}");
                reached.push(v);
            }
        }
        for below in grid(3, 6).iter().filter(|b| **b < value) {
            assert!(
                reached.contains(below),
                "{pos:?}: no option of value {below}"
            );
        }
        // The good moves are the options (in the window) of value 0.
        let mut expected = Vec::new();
        for i in 0..pos.len() {
            for to in options.iter().filter(|t| **t < pos[i] && !pos.contains(t)) {
                let mut next = pos.clone();
                next[i] = to.clone();
                if welter(&next).unwrap().is_zero() {
                    expected.push((i, to.clone()));
                }
            }
        }
        let good = good_moves_welter(pos).unwrap();
        let in_window: Vec<_> = good
            .iter()
            .filter(|(_, t)| options.contains(t))
            .cloned()
            .collect();
        assert_eq!(in_window, expected, "{pos:?}");
        assert_eq!(good.is_empty(), value.is_zero(), "{pos:?}");
    }
}

/// Theorem 3.6 on a window, the same way.
#[test]
fn transfinite_nim_is_a_mex_on_a_window() {
    let heaps = grid(3, 3);
    let options = grid(4, 8);
    for a in &heaps {
        for b in heaps.iter().step_by(2) {
            let pos = [a.clone(), b.clone()];
            let value = a.nim_sum(b);
            let mut reached = Vec::new();
            let mut zero_moves = Vec::new();
            for i in 0..2 {
                for to in options.iter().filter(|t| **t < pos[i]) {
                    let mut next = pos.clone();
                    next[i] = to.clone();
                    let v = next[0].nim_sum(&next[1]);
                    assert_ne!(v, value);
                    if v.is_zero() {
                        zero_moves.push((i, to.clone()));
                    }
                    reached.push(v);
                }
            }
            for below in grid(3, 4).iter().filter(|x| **x < value) {
                assert!(reached.contains(below), "{pos:?}: {below}");
            }
            assert_eq!(good_moves_nim(&pos), zero_moves, "{pos:?}");
        }
    }
}

#[test]
fn repeated_squares_are_refused() {
    let pos = [w(), n(3), w()];
    assert_eq!(welter(&pos), Err(WelterError::Repeated(0, 2)));
    assert_eq!(good_moves_welter(&pos), Err(WelterError::Repeated(0, 2)));
}
