//! Loopy games: positions from which play may go on forever. When the SG
//! search meets a cycle (or a position already found infinite) it hands
//! the position to `label_position`, which lists the positions reachable
//! from it (`build`), labels them with their generalised SG values
//! (`label`, the Fraenkel-Yesha algorithm) and stores them: finite values
//! in the memo as any value, infinite ones in the instance's `infinite`
//! table (the memo marks them, see `memo::State::OnPath`). A game that
//! turns out to be acyclic never comes here.
//!
//! Children, in layers: `graph` (the digraph in compressed rows),
//! `kernel_options` (a position's options listed by its game's kernel)
//! and `numbering` (vertex numbers of positions by their integers), then
//! `label` (the labelling and the remoteness on it), `reach` (how much
//! of a box a root reaches, by a walk over its cells) and `build` (the
//! graph of a game's positions).

pub mod box_moves;
pub mod build;
pub mod cell_box;
pub mod graph;
mod kernel_options;
pub mod label;
pub mod numbering;
mod reach;

use crate::diag::{Diag, ErrorKind, Fallible};
use std::rc::Rc;

use crate::eval::compile::{Env, Instance};
use crate::eval::gsg::is_infinite;
use crate::eval::memo::{Key, State};
use crate::eval::value::InstanceId;
use crate::syntax::Span;
use build::{build, PositionGraph, Reach};

/// The generalised SG value of the position `key` of `instance` (see
/// `crate::eval::gsg`), labelling every unvalued position reachable
/// from it. A part of a sum its graph needs is valued first, in its own
/// graph, and so on (`PositionGraph::wanted`): each position waiting on
/// the stack, whose parts are kept as they are (they reach back).
pub fn label_position(env: &mut Env, instance: InstanceId, key: &Key, span: Span) -> Fallible<u64> {
    let mut stack = vec![(instance, key.clone())];
    loop {
        let (instance, key) = stack.last().expect("a position").clone();
        let started = std::time::Instant::now();
        let g = build(env, (instance, &key), Reach::ToKnown, span, &stack)?;
        if let Some(part) = g.wanted {
            stack.push(part);
            continue;
        }
        let built = started.elapsed().as_secs_f64();
        let bytes = g.bytes();
        env.rt.check_memory(bytes, span)?;
        let rt = env.rt;
        let mut check = || rt.check_interrupt(span);
        let (values, levels) = label::label(&g.graph, &mut rt.inf_sets.borrow_mut(), &mut check)?;
        let labelled = started.elapsed().as_secs_f64();
        store(env, &g, &values, span)?;
        let total = started.elapsed().as_secs_f64();
        let name = env.rt.instance(instance).name.clone();
        let mut runs = env.rt.loopy_runs.borrow_mut();
        // A table of queries may label thousands of times: the first are told.
        if runs.len() < 100 {
            runs.push(format!(
                "loopy labelling from {name}: {} positions ({} numbered by their integers, \
                 the rest by hashed keys), {} moves, {levels} value levels, {} held, {:.3} s \
                 (graph {built:.3} s, labelling {:.3} s, storing {:.3} s)",
                g.graph.len(),
                g.numbered(),
                g.graph.edges(),
                crate::budget::human(bytes),
                total,
                labelled - built,
                total - labelled,
            ));
        }
        stack.pop();
        if stack.is_empty() {
            return Ok(values[g.root]);
        }
    }
}

/// Writes the labelled values of the graph's free vertices to the memo
/// tables (infinite ones to their instance's `infinite` table), the
/// tables' windows first widened to the positions numbered by their
/// integers; a whole box a line at a time (`Memo::set_line`).
fn store(env: &mut Env, g: &PositionGraph, values: &[u64], span: Span) -> Fallible<()> {
    if let Some((instance, shape, lo, hi)) = g.main_box() {
        let inst = env.rt.instance(instance);
        for corner in [&lo, &hi] {
            inst.memo.borrow_mut().reserve_new(shape, corner);
            inst.infinite.borrow_mut().reserve(shape, corner);
        }
    }
    let state = |v: u64| match is_infinite(v) {
        true => State::OnPath,
        false => State::Value(v),
    };
    let mut key = Key::default();
    let line = |u: usize, instance, shape, first: &[i64], len: usize| {
        let inst = env.rt.instance(instance);
        // A line of free vertices (the usual case) asks no vertex.
        let all_free = g.graph.none_fixed(u, u + len);
        let free = |j: usize| all_free || g.graph.fixed(u + j).is_none();
        let value = |j: usize| free(j).then(|| values[u + j]);
        let at = (first, first.len().wrapping_sub(1), len);
        let in_memo = (inst.memo.borrow_mut()).set_line(shape, at, |j| value(j).map(state));
        let infinite = |j: usize| value(j).filter(|&v| is_infinite(v));
        let in_infinite = (inst.infinite.borrow_mut()).set_line(shape, at, infinite);
        // A line outside the windows: a position at a time.
        if !(in_memo && in_infinite) {
            let mut coords = first.to_vec();
            for j in 0..len {
                let Some(v) = value(j) else {
                    continue;
                };
                if let (Some(x), Some(&x0)) = (coords.last_mut(), first.last()) {
                    *x = x0 + j as i64;
                }
                key.set_coords(shape, first.len() as u8, &coords);
                if !in_memo {
                    inst.memo.borrow_mut().set(&key, state(v));
                }
                if !in_infinite && is_infinite(v) {
                    inst.infinite.borrow_mut().set(&key, v);
                }
            }
        }
        key.set_coords(shape, first.len() as u8, first);
        let stored = match all_free {
            true => len,
            false => (0..len).filter(|&j| free(j)).count(),
        };
        env.rt
            .count_stored_n(stored * key.weight(), span, &inst.name)
    };
    // Counted against the state limit per instance, once stored.
    let mut last: Option<(InstanceId, Rc<Instance>)> = None;
    let mut weight = 0;
    g.for_each_position(line, |u, instance, key| {
        if g.graph.fixed(u).is_some() {
            return Ok(());
        }
        let inst = match &last {
            Some((id, inst)) if *id == instance => inst,
            _ => {
                if let Some((_, inst)) = &last {
                    env.rt
                        .count_stored_n(std::mem::take(&mut weight), span, &inst.name)?;
                }
                &last.insert((instance, env.rt.instance(instance))).1
            }
        };
        let v = values[u];
        inst.memo.borrow_mut().set(key, state(v));
        if is_infinite(v) {
            inst.infinite.borrow_mut().set(key, v);
        }
        weight += key.weight();
        Ok(())
    })?;
    if let Some((_, inst)) = &last {
        env.rt.count_stored_n(weight, span, &inst.name)?;
    }
    Ok(())
}

/// Smith's remoteness of a position: `(wins, r)` where `wins` says the
/// player to move wins, and `r` is the number of moves the play lasts
/// when the winner hurries and the loser delays. A draw has none: the
/// error says so.
pub fn remoteness(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<(bool, u32)> {
    let mut g = build(env, (instance, key), Reach::Parts, span, &[])?;
    env.rt.check_memory(g.bytes(), span)?;
    if !g.splits.is_empty() {
        sums_stay_bounded(env, &g, span)?;
        g = build(env, (instance, key), Reach::All, span, &[])?;
        env.rt.check_memory(g.bytes(), span)?;
    }
    match label::remoteness(&g.graph)[g.root] {
        Some(r) => Ok(r),
        None => Diag::new(
            ErrorKind::Invalid,
            span,
            "remoteness: this position is a draw (D), from which neither player can force a win",
        )
        .label("a draw has no remoteness")
        .help("remoteness is defined for P- and N-positions; outcome(G) tells which a position is")
        .err(),
    }
}

/// The error for a game whose plays pass through sums of ever more
/// positions, from the graph of its positions with each sum option an
/// edge to each part (`Reach::Parts`): a position `u` that moves to a sum
/// of a part leading back to `u` (in `u`'s strongly connected component)
/// beside another part with a move. Replaying the way back leaves that
/// other part in the sum, so each round adds one: the sums have no end.
/// Without such a split every part that returns to its component does
/// so alone, and the sums' sizes are bounded.
fn sums_stay_bounded(env: &Env, g: &PositionGraph, span: Span) -> Fallible<()> {
    let comp = g.graph.components();
    let has_move = |p: &u32| g.graph.succ(*p as usize).next().is_some();
    for (u, parts) in &g.splits {
        let live: Vec<u32> = parts.iter().copied().filter(has_move).collect();
        let Some(&back) = live
            .iter()
            .find(|&&p| comp[p as usize] == comp[*u as usize])
        else {
            continue;
        };
        if live.len() < 2 {
            continue;
        }
        let show = |v: u32| match g.position(v as usize) {
            Some((instance, key)) => {
                let args: Vec<String> = key.to_args().iter().map(|a| format!("{a:#}")).collect();
                format!("{}({})", env.rt.instance(instance).name, args.join(", "))
            }
            None => "0".to_string(),
        };
        let (from, part) = (show(*u), show(back));
        return Diag::new(
            ErrorKind::Loopy,
            span,
            format!(
                "remoteness: a play passes through sums of ever more positions: {from} moves to \
                 a sum of {part} and {} other part(s) with moves, and play from {part} leads back \
                 to {from}",
                live.len() - 1
            ),
        )
        .label("the remoteness of this")
        .help("remoteness follows the moves of every part of a sum (it is not a function of the parts' values), and each return to the position adds a part: the positions to count have no end")
        .err();
    }
    Ok(())
}
