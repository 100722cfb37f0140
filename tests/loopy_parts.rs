//! The parts of the loopy labelling that stand alone, through their public
//! API: Smith's sums of generalised values (`gsg::InfSets`), the box of
//! cells a whole-box graph is laid out in (`loopy::cell_box`), and the
//! numbering of positions by their integers (`loopy::numbering`), and a
//! run of options clipped to the box (`loopy::box_moves::clip`).

use grundy::eval::gsg::{is_infinite, keeps_draw, InfSets};
use grundy::eval::loopy::box_moves::clip;
use grundy::eval::loopy::cell_box::CellBox;
use grundy::eval::loopy::numbering::{Numbering, NEW};
use grundy::eval::value::Outcome;

#[test]
fn sums_follow_smiths_rules() {
    let mut sets = InfSets::default();
    assert_eq!(sets.add(5, 3), 6);
    let a = sets.infinite_in(&mut vec![2, 0, 2]);
    assert_eq!(sets.k(a).as_slice(), [0, 2]);
    assert_eq!(sets.infinite_in(&mut vec![0, 2]), a, "one number per K set");
    let shifted = sets.add(3, a);
    assert_eq!(sets.k(shifted).as_slice(), [1, 3]);
    assert_eq!(sets.add(a, 0), a);
    let both = sets.add(a, shifted);
    assert!(is_infinite(both) && sets.k(both).is_empty());
}

#[test]
fn outcomes_of_values() {
    let mut sets = InfSets::default();
    let with_zero = sets.infinite_in(&mut vec![0, 1]);
    let without = sets.infinite_in(&mut vec![1]);
    assert_eq!(sets.outcome(0), Outcome::P);
    assert_eq!(sets.outcome(4), Outcome::N);
    assert_eq!(sets.outcome(with_zero), Outcome::N);
    assert_eq!(sets.outcome(without), Outcome::D);
    assert!(keeps_draw(&sets, without) && !keeps_draw(&sets, with_zero) && !keeps_draw(&sets, 1));
    assert_eq!(sets.to_value(without).to_string(), "∞{1}");
    let empty = sets.infinite_in(&mut vec![]);
    assert_eq!(sets.to_value(empty).to_string(), "∞");
}

#[test]
fn cells_and_coordinates_are_inverse() {
    let b = CellBox::new(&[-3, 5, 0], &[4, 2, 7], 1000).expect("small");
    assert_eq!(b.cells(), 56);
    let mut seen = vec![false; b.cells()];
    let mut at = [0i64; 3];
    for x in -3..1 {
        for y in 5..7 {
            for z in 0..7 {
                let c = b.cell(&[x, y, z]).expect("inside");
                assert!(!seen[c]);
                seen[c] = true;
                b.coords_of(c, &mut at);
                assert_eq!(at, [x, y, z]);
            }
        }
    }
    assert!(b.cell(&[1, 5, 0]).is_none() && b.cell(&[0, 5, -1]).is_none());
    assert!(CellBox::new(&[0, 0], &[1 << 20, 1 << 20], 1 << 30).is_none());
}

#[test]
fn numbers_survive_growth_and_far_positions_are_hashed() {
    let mut dense = Numbering::new(2, true);
    let mut hashed = Numbering::new(2, false);
    let mut points = Vec::new();
    for i in 0..300i64 {
        points.push([(i * 37) % 101 - 50, (i * 11) % 23]);
    }
    points.push([1 << 40, -(1 << 40)]);
    for (id, p) in points.iter().enumerate() {
        for nb in [&mut dense, &mut hashed] {
            assert_eq!(nb.get(p), NEW);
            nb.set(p, id as u32);
        }
    }
    for (id, p) in points.iter().enumerate() {
        assert_eq!(dense.get(p), id as u32);
        assert_eq!(hashed.get(p), id as u32);
    }
    assert_eq!(dense.get(&[1000, 1000]), NEW);
    // The dense numbering's box holds the points near 0, not the far one;
    // the hashed one has no box.
    assert!(dense.strided(&[-50, 0], &[1, 1], 23).is_some());
    assert!(dense.strided(&[1 << 40, -(1 << 40)], &[0, 0], 1).is_none());
    assert!(hashed.strided(&[0, 0], &[0, 0], 1).is_none());
}

#[test]
fn strided_runs_step_through_the_cells_of_their_options() {
    let mut nb = Numbering::new(2, true);
    let mut id = 0;
    for x in -5..20i64 {
        for y in 0..30i64 {
            nb.set(&[x, y], id);
            id += 1;
        }
    }
    // Runs along either coordinate, both at once, backwards.
    for (first, step, len) in [
        ([3, 4], [1, 0], 10u64),
        ([3, 4], [0, 1], 20),
        ([-5, 0], [2, 3], 8),
        ([19, 29], [-1, -2], 15),
    ] {
        let (c0, dc) = nb.strided(&first, &step, len).expect("in the box");
        for j in 0..len as i64 {
            let at = [first[0] + step[0] * j, first[1] + step[1] * j];
            let cell = (c0 as isize + dc * j as isize) as usize;
            assert_eq!(nb.at(cell), nb.get(&at), "{first:?} + {j} * {step:?}");
            assert_ne!(nb.at(cell), NEW);
        }
    }
    // A run that leaves the box (at either end) is not strided.
    let inside = |x: i64| nb.strided(&[x, 0], &[1, 0], 1).is_some();
    let hi = (19i64..1 << 20)
        .find(|&x| !inside(x))
        .expect("a bounded box");
    let lo = (-(1i64 << 20)..=-5)
        .rev()
        .find(|&x| !inside(x))
        .expect("a bounded box");
    assert!(nb.strided(&[hi - 2, 0], &[1, 0], 3).is_none());
    assert!(nb.strided(&[lo, 0], &[1, 0], 3).is_none());
    assert!(nb.strided(&[0, 0], &[i64::MAX, 0], 3).is_none());
    assert!(nb.strided(&[0, 0], &[1 << 40, 0], 2).is_none());
}

#[test]
fn clipping_keeps_exactly_the_k_inside() {
    for c in -4i64..=4 {
        for d in -12i64..=12 {
            for size in 1i64..=6 {
                let (a, b) = (-5, 7);
                let (x, y) = clip(d, c, size, (a, b)).expect("small");
                let inside: Vec<i64> = (a..b)
                    .filter(|k| (0..size).contains(&(d + c * k)))
                    .collect();
                let got: Vec<i64> = (x..y).collect();
                assert_eq!(got, inside, "d {d} c {c} size {size}");
            }
        }
    }
}
