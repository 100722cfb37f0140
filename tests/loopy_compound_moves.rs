//! A loopy game's move to a compound (`pass`, `misere`, `conjunctive`,
//! `selective`) of its own position (issue 34). Such a compound's
//! positions are searched through its components' moves, and a component
//! that moves to a compound holding itself makes compounds nested ever
//! deeper: a `grundy::loopy` error at the move, at once, instead of a
//! search that runs to the timeout. A game whose compounds nest a
//! bounded number of times keeps its values.

use crate::common::{run_with, same_both_ways};

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
    let limits = grundy::Limits {
        timeout: Some(std::time::Duration::from_secs(30)),
        ..grundy::Limits::default()
    };
    let started = std::time::Instant::now();
    let out = run_with(&text, limits);
    assert!(started.elapsed().as_secs() < 15, "{kind}: {out}");
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
