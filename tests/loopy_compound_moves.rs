//! A loopy game's move to a compound (`pass`, `misere`, `conjunctive`,
//! `selective`) of its own position, or of a position from which play
//! leads back to it (issue 34). Such a compound's positions are searched
//! through its components' moves, and a component whose moves lead to a
//! compound holding itself again makes compounds nested ever deeper: a
//! `grundy::loopy` error at the move, well before the timeout, instead of
//! a search that runs to it. A game whose compounds nest a bounded number
//! of times keeps its values, and so does a compound that cannot move.

use crate::common::{run_with, same_both_ways};
use std::collections::HashMap;

/// The output of `text` under a 30 s timeout, with every plan on or all
/// off, asserted to come well before it: no test here can hang.
fn bounded(text: &str, fast: bool) -> String {
    let limits = grundy::Limits {
        timeout: Some(std::time::Duration::from_secs(30)),
        plans: if fast {
            grundy::Plans::ALL
        } else {
            grundy::Plans::NONE
        },
        ..grundy::Limits::default()
    };
    let started = std::time::Instant::now();
    let out = run_with(text, limits);
    assert!(started.elapsed().as_secs() < 15, "{text}: {out}");
    out
}

/// The error, with every plan on, names the move and the position, and
/// comes well before the timeout (with the plans on and off).
fn refused(kind: &str, first: bool) {
    let m = format!("move m -> {kind}");
    let others = "move up -> M(n + 1)  move down -> M(n - 1)";
    let moves = if first {
        format!("{m}  {others}")
    } else {
        format!("{others}  {m}")
    };
    let text = format!("game M(n) where 0 <= n <= 5 {{ {moves} }}\nprint sg(M(2))\n");
    let out = bounded(&text, true);
    assert!(out.starts_with("failure: loopy compound"), "{kind}: {out}");
    if first {
        assert!(out.contains("'s move m leads to"), "{kind}: {out}");
        assert!(out.contains("nested ever deeper"), "{kind}: {out}");
    }
}

#[test]
fn a_move_to_a_compound_of_the_position_itself_is_refused_at_once() {
    for kind in [
        "misere(M(0))",
        "pass(M(n))",
        "selective(M(0), M(1))",
        "conjunctive(M(0), M(1))",
    ] {
        refused(kind, true);
        refused(kind, false);
    }
}

/// The error is the same with the fast plans off, and points at the move.
#[test]
fn the_refusal_points_at_the_move() {
    let out = same_both_ways(
        "game M(n) where 0 <= n <= 3 { move m -> misere(M(0))  move up -> M(n + 1) }
         print sg(M(1))",
    );
    assert!(
        out.contains("M(0)'s move m leads to misere(M(0)), a compound holding M(0) itself"),
        "{out}"
    );
}

/// `A(n)` moves to `A(n - 1)` or to `misere(A(n - 1))`: compounds nested
/// `n` deep, a finite game. Its values by the definitions written here:
/// normal play `sg(n) = mex{sg(n - 1), msg(n - 1)}` where `msg` is the
/// misère value of `A`'s game as its positions are played under misère
/// (terminal worth 1), nested the same way.
#[test]
fn compounds_nested_a_bounded_number_of_times_keep_their_values() {
    let n = 12usize;
    let out = same_both_ways(&format!(
        "game A(n) where n >= 0 {{ move down if n > 0 -> A(n - 1)  move m if n > 0 -> misere(A(n - 1)) }}
         print [sg(A(n)) for n in 0..={n}]"
    ));
    // A game as a tree: (depth of misère nesting, position). Its value
    // under `d` nested misère compounds: the options are the position's
    // moves inside the same nesting; a move to `misere(A(k))` adds one.
    fn value(d: u32, k: usize, memo: &mut std::collections::HashMap<(u32, usize), u64>) -> u64 {
        if let Some(&v) = memo.get(&(d, k)) {
            return v;
        }
        let options: Vec<u64> = if k == 0 {
            Vec::new()
        } else {
            vec![value(d, k - 1, memo), value(d + 1, k - 1, memo)]
        };
        // Innermost: no move left anywhere, the play ends. Under `d`
        // misère layers a terminal position is worth 1 if the innermost
        // compound is misère (d > 0), else 0.
        let v = if options.is_empty() {
            u64::from(d > 0)
        } else {
            (0..).find(|v| !options.contains(v)).expect("a mex")
        };
        memo.insert((d, k), v);
        v
    }
    let mut memo = std::collections::HashMap::new();
    let want: Vec<String> = (0..=n)
        .map(|k| value(0, k, &mut memo).to_string())
        .collect();
    assert_eq!(out.trim(), format!("[{}]", want.join(", ")));
}

/// Positions leading to compounds of each other (directly, or through
/// plain moves between them), in a loopy game or not: refused at a move
/// to a compound, with the position nested in it named, and with the
/// plans on and off, before the timeout.
#[test]
fn compounds_nested_through_other_positions_are_refused() {
    let two = |kind: &str| format!("game M(n) where 0 <= n <= 1 {{ move m -> {kind} }}");
    let mut games: Vec<String> = ["misere(M(1 - n))", "pass(M(1 - n))"]
        .iter()
        .chain(&[
            "selective(M(1 - n), M(1 - n))",
            "conjunctive(M(1 - n), M(1 - n))",
        ])
        .map(|k| two(k))
        .collect();
    // A chain of plain moves between the compounds, and the same beside a
    // plain cycle (a loopy game).
    for kind in ["misere", "pass"] {
        games.push(format!(
            "game M(n) where 0 <= n <= 2 {{ move m if n == 0 -> {kind}(M(1))  \
             move step if n == 1 -> M(2)  move back if n == 2 -> {kind}(M(0)) }}"
        ));
    }
    for game in &games {
        for fast in [true, false] {
            let out = bounded(&format!("{game}\nprint sg(M(0))\n"), fast);
            assert!(out.starts_with("failure: loopy compound"), "{game}: {out}");
            assert!(out.contains("nested ever deeper"), "{game}: {out}");
            assert!(
                out.contains("from which play leads back to"),
                "{game}: {out}"
            );
        }
    }
    // In a loopy game the compound's own cycle may be met first: an
    // error all the same, before the timeout.
    let loopy = "game M(n) where 0 <= n <= 3 { move up if n < 3 -> M(n + 1)  \
                 move down if n > 0 -> M(n - 1)  move m if n == 3 -> misere(M(0)) }";
    for fast in [true, false] {
        let out = bounded(&format!("{loopy}\nprint sg(M(0))\n"), fast);
        assert!(out.starts_with("failure: loopy compound"), "{out}");
    }
}

/// The two-position nesting is named as such: the move, the compound it
/// leads to and the position nested in it that leads back.
#[test]
fn the_indirect_refusal_names_the_way_back() {
    let out = bounded(
        "game M(n) where 0 <= n <= 1 { move m -> misere(M(1 - n)) }\nprint sg(M(0))\n",
        true,
    );
    let named = ["M(0)'s move m leads to misere(M(1)), a compound holding M(1), from which play leads back to M(0)",
        "M(1)'s move m leads to misere(M(0)), a compound holding M(0), from which play leads back to M(1)"];
    assert!(named.iter().any(|n| out.contains(n)), "{out}");
}

/// A position of the brute force below: `A(n)`, `E(k)`, or a conjunctive
/// compound of two of them.
#[derive(Clone, PartialEq, Eq, Hash)]
enum P {
    A(i64),
    E(i64),
    Conj(Box<P>, Box<P>),
}

/// `E(k)` moves to `E(k - 1)`; `A(n)` to `A(n - 1)`, to `conjunctive(A(n),
/// E(0))` when `n` is even (a compound of the position itself with a
/// position with no move: a terminal position), and to
/// `conjunctive(A(n - 1), E(2))`; a conjunctive compound moves in both
/// components at once and ends when one of them cannot move.
fn options(p: &P) -> Vec<P> {
    let conj = |a: P, b: P| P::Conj(Box::new(a), Box::new(b));
    match p {
        P::E(k) => (*k > 0).then(|| P::E(k - 1)).into_iter().collect(),
        P::A(n) => {
            let mut o = Vec::new();
            if *n > 0 {
                o.push(P::A(n - 1));
                o.push(conj(P::A(n - 1), P::E(2)));
            }
            if n % 2 == 0 {
                o.push(conj(P::A(*n), P::E(0)));
            }
            o
        }
        P::Conj(a, b) => {
            let (oa, ob) = (options(a), options(b));
            let mut o = Vec::new();
            for x in &oa {
                for y in &ob {
                    o.push(conj(x.clone(), y.clone()));
                }
            }
            o
        }
    }
}

fn brute_sg(p: &P, memo: &mut HashMap<P, u64>) -> u64 {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let values: Vec<u64> = options(p).iter().map(|o| brute_sg(o, memo)).collect();
    let v = (0..).find(|v| !values.contains(v)).expect("a mex");
    memo.insert(p.clone(), v);
    v
}

/// A move to `conjunctive(A(n), B)` with `B` a position with no move is a
/// move to a terminal position: valued, not refused as a nesting (it was
/// refused from 15:48 UTC of 27 November). Its values against the brute
/// force above, with the plans on and off, and the compound itself.
#[test]
fn a_conjunctive_compound_of_the_position_that_cannot_move_is_terminal() {
    let n = 9;
    let text = format!(
        "game E(k) where k >= 0 {{ move t if k > 0 -> E(k - 1) }}
         game A(n) where 0 <= n <= {n} {{ move down if n > 0 -> A(n - 1)  \
         move c if n % 2 == 0 -> conjunctive(A(n), E(0))  move s if n > 0 -> conjunctive(A(n - 1), E(2)) }}
         print [sg(A(n)) for n in 0..={n}]
         print sg(conjunctive(A(4), E(0)))
         print sg(conjunctive(A({n}), E(2)))\n"
    );
    let on = bounded(&text, true);
    assert_eq!(on, bounded(&text, false));
    let mut memo = HashMap::new();
    let want: Vec<String> = (0..=n)
        .map(|k| brute_sg(&P::A(k), &mut memo).to_string())
        .collect();
    let last = P::Conj(Box::new(P::A(n)), Box::new(P::E(2)));
    let want = format!("[{}]\n0\n{}\n", want.join(", "), brute_sg(&last, &mut memo));
    assert_eq!(on, want);
    // Not a constant: the compound's option of value 0 shows in the
    // values, which differ along the line.
    assert!(want
        .lines()
        .next()
        .is_some_and(|l| l.contains('0') && l.contains('1')));
}

/// Such a compound whose other component's plays all end (`E(2)`) would
/// nest only two deep, but is refused all the same: the error says so,
/// at the move, with the plans on and off.
#[test]
fn a_conjunctive_compound_nested_in_itself_is_refused_saying_why() {
    let text = "game E(k) where 0 <= k <= 2 { move d if k > 0 -> E(k - 1) }
         game A(n) where 0 <= n <= 3 { move down if n > 0 -> A(n - 1)  move c if n % 2 == 0 -> conjunctive(A(n), E(2)) }
         print sg(A(2))\n";
    for fast in [true, false] {
        let out = bounded(text, fast);
        assert!(out.starts_with("failure: loopy compound"), "{out}");
        assert!(
            out.contains("A(2)'s move c leads to conjunctive(A(2), E(2))"),
            "{out}"
        );
        assert!(
            out.contains("even when its other parts' plays all end (not supported)"),
            "{out}"
        );
    }
}

/// Such a compound whose other component can move for ever (`L`, a
/// cycle of two positions) nests the position without end: refused.
#[test]
fn a_conjunctive_compound_of_the_position_that_can_move_is_refused() {
    let text = "game L(k) where 0 <= k <= 1 { move t -> L(1 - k) }
         game A(n) where 0 <= n <= 3 { move down if n > 0 -> A(n - 1)  move c -> conjunctive(A(n), L(0)) }
         print sg(A(2))\n";
    for fast in [true, false] {
        let out = bounded(text, fast);
        assert!(out.starts_with("failure: loopy compound"), "{out}");
        assert!(out.contains("move c leads to"), "{out}");
    }
}
