//! How a game whose position is one list of integers lays its memo out
//! (`sequence_order`): by the list's largest item when its `where` says
//! the list is sorted (`xs == sorted(xs)`) or every move's result is
//! `sorted(...)` (and by sets of items when the `where` also says
//! `distinct(xs)`, Welter's coins), every sorted list below the largest asked
//! being ranked (`memo/ranked.rs`); otherwise by sum when its moves never
//! raise the sum of its items (coins moved or taken away; Staircase Nim:
//! `update(update(xs, i, xs[i] - k), i - 1, xs[i - 1] + k)`). The positions
//! reachable from one of sum `s` are then among the lists of sum at most
//! `s`, which a memo laid out by rank of sum fills densely
//! (`Memo::ranking_sequences`). Only the layout depends on this: values
//! are the same either way.
//!
//! A move qualifies when its result is the game's own position with the
//! list written as a chain of `update(xs, index_j, xs[index_j] + d_j)` on
//! the position's list `xs`, the indices pairwise different (the same
//! integer code plus different constants, or two bindings one of which
//! ends below the other, `j in 0..i`, or that a guard `i != j` keeps
//! apart), and the changes `d_j`, linear
//! in the move's bindings, adding up to a sum that is never positive:
//! its constant at most 0 and every binding's coefficient 0, or negative
//! with the binding over a range starting at a natural.

use super::int_tree::{lowered, lowered_bool, BoolNode, IntNode};
use super::linear::{conjuncts as conjuncts_of, node_form, Linear, Term};
use crate::eval::builtins::Builtin;
use crate::eval::memo::Order;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// `e` as an affine form of locals other than `list`, with at most one
/// item `xs[index]` of that list (coefficient 1, as atom 0), its index
/// returned apart.
fn affine(e: &IntNode, list: Slot) -> Option<(Linear, Option<IntNode>)> {
    let mut index = None;
    let mut form = node_form(e, &mut |n| match n {
        IntNode::Item(s, i) if *s == list && index.is_none() => {
            index = Some((**i).clone());
            Some(Term::Atom(0))
        }
        _ => None,
    })?;
    let one_item = form.coef_of(Term::Atom(0));
    if index.is_some() {
        form = form.combine(1, &Linear::term(Term::Atom(0)), -one_item)?;
    }
    let plain = form.is_affine_i64() && !form.mentions(Term::Local(list));
    (plain && one_item == i128::from(index.is_some())).then_some((form, index))
}

/// The updates of `e` on the list in `list`, innermost first: each
/// index and the change of its item, affine forms of locals; `None` if
/// `e` is not such a chain.
pub(super) fn updates(e: &IrExpr, list: Slot) -> Option<Vec<(Linear, Linear)>> {
    let (inner, chain) = e.update_chain()?;
    matches!(inner.kind, IrKind::Local(s) if s == list).then_some(())?;
    let update = |[index, value]: [&IrExpr; 2]| {
        let (index, None) = affine(&lowered(index)?, list)? else {
            return None;
        };
        // The new item is the old one plus a change.
        let (change, Some(item)) = affine(&lowered(value)?, list)? else {
            return None;
        };
        let (read, None) = affine(&item, list)? else {
            return None;
        };
        (read == index).then_some((index, change))
    };
    chain.into_iter().map(update).collect()
}

/// Whether locals `a` and `b` of `m` always differ: one is bound over a
/// range ending (exclusive) at the other (`j in 0..i`), or the guard
/// says `a != b`, `a < b` or `a > b` (a conjunct of it).
fn differ(m: &IrMove, a: Slot, b: Slot) -> bool {
    let local = |e: &IrExpr, s: Slot| matches!(e.kind, IrKind::Local(l) if l == s);
    let pair =
        |x: &IrExpr, y: &IrExpr| (local(x, a) && local(y, b)) || (local(x, b) && local(y, a));
    let by_range = bound_below(m, a, b) || bound_below(m, b, a);
    let mut conjuncts = Vec::new();
    if let Some(g) = &m.guard {
        conjuncts_of(g, &mut conjuncts);
    }
    by_range
        || conjuncts.iter().any(|c| {
            matches!(&c.kind, IrKind::Binary { op: BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Gt, lhs, rhs, .. }
                if pair(lhs, rhs))
        })
}

/// Whether local `a` of `m` is a binding over a range ending (exclusive)
/// at local `b` (`j in 0..i`): always below it.
fn bound_below(m: &IrMove, a: Slot, b: Slot) -> bool {
    m.bindings.iter().any(|bind| {
        matches!(bind.pattern, IrPattern::Slot { slot, .. } if slot == a)
            && matches!(&bind.iterable.kind, IrKind::Range { end, inclusive: false, .. }
                if matches!(end.kind, IrKind::Local(e) if e == b))
    })
}

/// Whether indices `a` and `b` of updates of `m` are bindings the first
/// of which ranges below the second (`j in 0..i`).
pub(super) fn index_below(m: &IrMove, a: &Linear, b: &Linear) -> bool {
    matches!((a.lone_local(), b.lone_local()), (Some(x), Some(y)) if bound_below(m, x, y))
}

/// Whether `a` and `b`, indices of two updates of `m`, always differ.
fn different_items(m: &IrMove, a: &Linear, b: &Linear) -> bool {
    if a.terms == b.terms {
        return a.constant != b.constant;
    }
    matches!((a.lone_local(), b.lone_local()), (Some(x), Some(y)) if differ(m, x, y))
}

/// Whether binding slot `s` of `m` runs over a range starting at a
/// natural constant.
fn natural_binding(m: &IrMove, s: Slot) -> bool {
    m.bindings.iter().any(|b| {
        matches!(b.pattern, IrPattern::Slot { slot, .. } if slot == s)
            && matches!(&b.iterable.kind, IrKind::Range { start, .. }
                if matches!(start.kind, IrKind::Const(Value::Int(n)) if n >= 0))
    })
}

/// Whether move `m` of game `game` (whose list is in slot `list`) never
/// raises the sum of the list's items.
fn move_keeps_sum(game: GameId, n_statics: usize, list: Slot, m: &IrMove) -> bool {
    let Some([arg]) = own_position_args(game, n_statics, &m.result) else {
        return false;
    };
    let Some(updates) = updates(arg, list) else {
        return false;
    };
    for (a, (ia, _)) in updates.iter().enumerate() {
        for (ib, _) in &updates[a + 1..] {
            if !different_items(m, ia, ib) {
                return false;
            }
        }
    }
    let Some(total) = (updates.into_iter().map(|(_, d)| d))
        .try_fold(Linear::constant(0), |acc, d| acc.combine(1, &d, 1))
    else {
        return false;
    };
    total.constant <= 0
        && (total.terms.iter())
            .all(|(t, c)| matches!(t[..], [Term::Local(s)] if *c < 0 && natural_binding(m, s)))
}

/// How the memo of `g` (game `game`) lays out its positions, if they
/// are one list it can rank (see the module's comment).
pub(crate) fn sequence_order(game: GameId, g: &IrGame) -> Option<Order> {
    if g.n_params != 1 {
        return None;
    }
    let list = g.n_statics as Slot;
    match sorted_order(game, g, list) {
        Some(order) => Some(order),
        None => item_sum_never_grows(game, g, list).then_some(Order::Sums),
    }
}

/// `Ascending` if a conjunct of `g`'s `where` is `xs == sorted(xs)` (or
/// the other way round) for its list `xs`, or if every move's result is
/// the game's own position of a `sorted(...)` list; `Increasing` if the
/// `where` also says `distinct(xs)`. A list not sorted (a root written
/// unsorted) then has no rank and goes to the sparse table.
fn sorted_order(game: GameId, g: &IrGame, list: Slot) -> Option<Order> {
    let mut parts = Vec::new();
    if let Some(w) = &g.where_clause {
        conjuncts_of(w, &mut parts);
    }
    let parts: Vec<BoolNode> = parts.into_iter().filter_map(lowered_bool).collect();
    // `xs == sorted(xs)`, either way round.
    let said_sorted = parts.iter().any(|c| {
        matches!(*c, BoolNode::ItemsEqual { a: (x, s), b: (y, t), negate: false }
            if x == list && y == list && s != t)
    });
    let ascending = said_sorted || moves_sort(game, g);
    let distinct = parts.contains(&BoolNode::Distinct(list));
    match (ascending, distinct) {
        (true, true) => Some(Order::Increasing),
        (true, false) => Some(Order::Ascending),
        (false, _) => None,
    }
}

/// Whether every move of `g` (game `game`, one list argument) ends in
/// the game's own position of a list that `sorted(...)` returns.
fn moves_sort(game: GameId, g: &IrGame) -> bool {
    let IrGameBody::Moves(moves) = &g.body else {
        return false;
    };
    !moves.is_empty()
        && moves.iter().all(|m| {
            matches!(
                own_position_args(game, g.n_statics, &m.result),
                Some([IrExpr {
                    kind: IrKind::CallBuiltin {
                        builtin: Builtin::Sorted,
                        ..
                    },
                    ..
                }])
            )
        })
}

/// The arguments of `result` if it is a position of `game` with the
/// position's own static arguments (the same instance).
fn own_position_args(game: GameId, n_statics: usize, result: &IrExpr) -> Option<&[IrExpr]> {
    let IrKind::Position {
        game: to,
        statics,
        args,
    } = &result.kind
    else {
        return None;
    };
    let own_statics = statics.len() == n_statics
        && (statics.iter().enumerate())
            .all(|(i, s)| matches!(s.kind, IrKind::Local(l) if l as usize == i));
    (*to == game && own_statics).then_some(&args[..])
}

/// Whether the list `list` of `g` (game `game`), its one argument, has
/// an item sum no move raises: see the module's comment.
fn item_sum_never_grows(game: GameId, g: &IrGame, list: Slot) -> bool {
    let IrGameBody::Moves(moves) = &g.body else {
        return false;
    };
    !moves.is_empty()
        && moves
            .iter()
            .all(|m| move_keeps_sum(game, g.n_statics, list, m))
}
