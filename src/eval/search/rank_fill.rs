//! A table of lists kept by rank of sum, filled a level at a time
//! (`compile::fill_order`): when every move's options rank on one side of
//! their parent, the level's lists are valued in the opposite rank order,
//! each from its options' bytes, with no search stack. A list's rank and
//! prefix sums come from the walk (`memo::LevelWalk`). A move's outer
//! bindings are set, and its steps' indices worked out, once per fill
//! when they are the same for every list of its length
//! (`RankShift::fixed`), else per list (`Outer`); each setting then moves
//! only the prefix sums its changes reach (`ranks_at`), and a move under
//! one column whose run's range keeps its items natural
//! (`OneColumn::proven`) reads its options' binomials in order down it
//! with no check per setting (`mark_lean`). A list the fill
//! cannot value plainly (code that fails, an option without a value, a
//! value past a byte) ends it: the lists left are searched one by one,
//! as they would have been.

use super::rank_shift::{ranks_at, step_ends, Ends};
use super::settings::run_range;
use crate::diag::Fallible;
use crate::eval::compile::{
    Env, FillOrder, KernelMove, KeyFrame, KeyLoopMove, KeyRun, Locals, MovePlan, Operand,
    RankShift, RunEnd, Settings,
};
use crate::eval::memo::scan::{byte_value, mark_each, Walk, NO_VALUE_BYTES};
use crate::eval::memo::{Binomials, Key, Placed, RankedFill, BIG};
use crate::eval::value::InstanceId;
use crate::ir::ir::Slot;
use crate::syntax::Span;

/// Fills the level of the list `key` of `instance` (and for options that
/// rank lower, the levels below it) if its game has a fill order, the
/// levels were not claimed by a fill before and the state limit leaves
/// room for them; true if it filled them all.
pub fn fill_ranked(env: &mut Env, instance: InstanceId, key: &Key, span: Span) -> Fallible<bool> {
    let plans = env.rt.limits.plans;
    if !(plans.rank_fills && plans.kernels && plans.rank_shifts) {
        return Ok(false);
    }
    let inst = env.rt.instance(instance);
    let g = &inst.game;
    let (Some(kernel), Some(order)) = (&g.kernel, g.fill_order) else {
        return Ok(false);
    };
    // All of this form: `fill_order` checked.
    let mut moves: Vec<FillMove<'_>> = (kernel.moves.iter())
        .filter_map(|p| match p {
            MovePlan::Kernel(KernelMove::KeyLoop(m)) => {
                let run = m.run.as_ref()?;
                let shift = run.shift.as_ref().ok()?;
                let k_lo = match run.lo {
                    Operand::Const(c) => Some(c),
                    _ => None,
                };
                let end_item = match (k_lo, &run.hi) {
                    (Some(c), &RunEnd::Item(list, i))
                        if list == shift.list && m.bindings.iter().any(|&(s, _)| s == i) =>
                    {
                        Some((i, c, i64::from(run.inclusive)))
                    }
                    _ => None,
                };
                let end = end_item.map(|(i, _, plus)| (i, plus));
                let column = shift.steps.column.as_ref();
                // (Not `?`: a move left out would lose its options.)
                let lean = match (column, end_item) {
                    (Some(c), Some((_, a, plus))) if c.proven(k_lo, end) => {
                        let (_, by, q) = c.moving;
                        let from = q.checked_mul(a).and_then(|qa| qa.checked_add(by));
                        let from = from.and_then(|f| isize::try_from(f).ok());
                        from.map(|from| Lean {
                            a,
                            plus,
                            from,
                            up: q == 1,
                        })
                    }
                    _ => None,
                };
                Some(FillMove {
                    m,
                    run,
                    shift,
                    end_item,
                    outer: Outer::default(),
                    lean,
                })
            }
            _ => None,
        })
        .collect();
    let mut frame = KeyFrame::empty();
    if !frame.load(inst.frame_statics(), key) || frame.items(g.n_statics as u32).is_none() {
        return Ok(false);
    }
    let n = key.coords().len();
    let mut fixed = moves.iter_mut().filter(|m| m.shift.fixed);
    if !fixed.all(|m| m.settings(&mut frame, n)) {
        return Ok(false);
    }
    let per_list = (moves.iter()).any(|m| !m.shift.fixed || m.end_item.is_none());
    let mut memo = inst.memo.borrow_mut();
    let Some(mut fill) = memo.ranked_fill(key.shape(), key.coords()) else {
        return Ok(false);
    };
    let Some(s) = fill.level(key.coords()) else {
        return Ok(false);
    };
    let levels = match order {
        FillOrder::Down => s..=s,
        FillOrder::Up => 0..=s,
    };
    // The whole fill within the state limit, or none of it.
    let room = (env.rt.limits.max_states).saturating_sub(env.rt.stored.get());
    let need = levels
        .clone()
        .try_fold(0usize, |n, l| n.checked_add(fill.level_len(l)?));
    if need.is_none_or(|n| n > room) {
        return Ok(false);
    }
    let mut fill_run = Fill {
        frame,
        per_list,
        n,
        seen: [0; 256],
        stamp: 0,
        stored: 0,
        options: 0,
    };
    let mut filled = Ok(true);
    for level in levels {
        if !fill.claim(level) {
            continue;
        }
        filled = fill_run.level(
            &mut moves,
            env,
            &mut fill,
            level,
            order == FillOrder::Down,
            span,
        );
        if !matches!(filled, Ok(true)) {
            break;
        }
    }
    memo.stored += fill_run.stored;
    drop(memo);
    env.rt.count_stored_n(fill_run.stored, span, &inst.name)?;
    filled
}

/// A move of a game with a fill order: its bindings, its last binding's
/// run and its changes to the list.
struct FillMove<'a> {
    m: &'a KeyLoopMove,
    run: &'a KeyRun,
    shift: &'a RankShift,
    /// A run `c..xs[i]` (`i`, `c` and whether `..=`), `i` an outer
    /// binding and `xs` the list: its end read off the list.
    end_item: Option<(Slot, i64, i64)>,
    /// The settings of the outer bindings, worked out once for the fill
    /// when they are the same for every list (`RankShift::fixed`), else
    /// for each list.
    outer: Outer,
    /// A move under one column whose run ends at an item and keeps every
    /// changed item natural (`OneColumn::proven`): each setting is then
    /// its run's end, the moving prefix sum's binomial and a row down its
    /// column.
    lean: Option<Lean>,
}

/// What a lean move's settings share: the run `a..xs[i] + plus`, and the
/// row of its first option, `from` past the moving prefix sum's own
/// (`up`: the next rows below it, else above).
#[derive(Clone, Copy)]
struct Lean {
    a: i64,
    plus: i64,
    from: isize,
    up: bool,
}

/// The settings of a move's outer bindings for a list, each with its
/// steps' indices and the item its run ends at.
#[derive(Default)]
struct Outer {
    /// The bindings' values, a setting after another.
    ks: Vec<i64>,
    placings: Vec<Placing>,
}

/// Where a setting's options lie in the list.
#[derive(Clone, Copy)]
struct Placing {
    /// The steps' indices (`step_ends`); `None` if one is outside the
    /// list or they do not ascend, which fails the setting only if its
    /// run has options.
    ends: Option<Ends>,
    /// The index of the item the run ends at (`FillMove::end_item`), if
    /// within the list.
    item: Option<usize>,
    /// Under one column, the prefix sum that moves with `k` (with valid
    /// `ends`).
    sum: usize,
}

impl FillMove<'_> {
    /// Works out `outer` for the list in `frame`: false if a binding's
    /// code fails.
    fn settings(&mut self, frame: &mut KeyFrame, n: usize) -> bool {
        let mut outer = std::mem::take(&mut self.outer);
        outer.ks.clear();
        outer.placings.clear();
        let ok = self.collect(0, frame, n, &mut outer).is_some();
        self.outer = outer;
        ok
    }

    /// `settings` from binding `level` in, those before it set.
    fn collect(&self, level: usize, frame: &mut KeyFrame, n: usize, out: &mut Outer) -> Option<()> {
        let Some((slot, source)) = self.m.bindings.get(level) else {
            let item = self
                .end_item
                .and_then(|(i, _, _)| usize::try_from(frame.int(i)?).ok());
            out.ks.extend(
                self.m
                    .bindings
                    .iter()
                    .map(|&(s, _)| frame.int(s).unwrap_or(0)),
            );
            let ends = step_ends(&self.shift.steps, frame, n);
            let column = self.shift.steps.column.as_ref();
            out.placings.push(Placing {
                ends,
                item: item.filter(|&i| i < n),
                sum: ends.zip(column).map_or(0, |(e, c)| e[0] + c.moving.0),
            });
            return Some(());
        };
        let mut settings = Settings::new();
        source.settings(frame, &mut settings)?;
        for k in settings {
            frame.set_int(*slot, k);
            self.collect(level + 1, frame, n, out)?;
        }
        Some(())
    }
}

/// One fill: the frame its game's code reads, and the marks of a list's
/// option bytes (`seen[byte] == stamp`).
struct Fill {
    frame: KeyFrame,
    /// The frame is read per list: some move's settings or runs are
    /// worked out by code for each.
    per_list: bool,
    n: usize,
    seen: [u32; 256],
    stamp: u32,
    stored: usize,
    /// Options marked since the last tick.
    options: usize,
}

impl Fill {
    /// Values the lists of level `s` in rank order (`down`: highest
    /// first) by `moves`; false at the first it cannot value plainly.
    fn level(
        &mut self,
        moves: &mut [FillMove<'_>],
        env: &mut Env,
        fill: &mut RankedFill<'_>,
        s: usize,
        down: bool,
        span: Span,
    ) -> Fallible<bool> {
        let Some(mut walk) = fill.walk(s, down) else {
            return Ok(false);
        };
        loop {
            // A tick per list and per option, as a search would count.
            let before = env.ticks;
            env.ticks = before.wrapping_add(1 + std::mem::take(&mut self.options) as u32);
            if (before ^ env.ticks) >> 12 != 0 {
                env.rt.check_interrupt(span)?;
            }
            let (at, items) = (&walk.at, &walk.items[..self.n]);
            match fill.dense[at.rank] {
                0 | 3 => {
                    let Some(v) = self.value(moves, fill.binomials(), fill.dense, at, items) else {
                        return Ok(false);
                    };
                    fill.dense[at.rank] = v;
                    self.stored += 1;
                }
                b if byte_value(b).is_some() => {}
                _ => return Ok(false),
            }
            if !walk.advance() {
                return Ok(true);
            }
        }
    }

    /// The memo byte of the value of the list `items` at `at`, if every
    /// option has a value in a byte.
    fn value(
        &mut self,
        moves: &mut [FillMove<'_>],
        bin: Binomials<'_>,
        dense: &[u8],
        at: &Placed,
        items: &[i64],
    ) -> Option<u8> {
        if self.stamp == u32::MAX {
            (self.seen, self.stamp) = ([0; 256], 0);
        }
        self.stamp += 1;
        if self.per_list {
            for (j, &x) in items.iter().enumerate() {
                self.frame.set_item(j, x);
            }
        }
        for m in moves {
            if !m.shift.fixed && !m.settings(&mut self.frame, items.len()) {
                return None;
            }
            self.mark_move(m, (bin, dense), at, items)?;
        }
        let marked = |b: u8| self.seen[b as usize] == self.stamp;
        if NO_VALUE_BYTES.iter().any(|&b| marked(b as u8)) || marked(2) {
            return None;
        }
        (4..BIG).find(|&b| !marked(b))
    }

    /// Marks the options of `m` for each setting of its outer bindings:
    /// per setting, the run's ends (off the list when it ends at an item)
    /// and the options' ranks from the steps' indices (`ranks_at`), or
    /// for a lean move down its column (`mark_lean`).
    fn mark_move(
        &mut self,
        m: &FillMove<'_>,
        (bin, dense): (Binomials<'_>, &[u8]),
        at: &Placed,
        items: &[i64],
    ) -> Option<()> {
        if let Some(lean) = m.lean {
            return self.mark_lean(m, lean, (bin, dense), at, items);
        }
        let width = m.m.bindings.len();
        for (t, p) in m.outer.placings.iter().enumerate() {
            let (a, b) = match m.end_item {
                // Items of a ranked list are small: no overflow.
                Some((_, a, plus)) => (a, items[p.item?] + plus),
                None => {
                    // The frame written only for code that reads it.
                    let ks = &m.outer.ks[t * width..(t + 1) * width];
                    for (&(slot, _), &k) in m.m.bindings.iter().zip(ks) {
                        self.frame.set_int(slot, k);
                    }
                    let run = m.run;
                    let (lo, hi) = (run.lo.eval(&self.frame), run.hi.eval(&self.frame));
                    run_range(lo, hi, run.inclusive)?
                }
            };
            if a >= b {
                continue;
            }
            let ends = p.ends.as_ref()?;
            let n = usize::try_from(b.checked_sub(a)?).ok()?;
            self.options = self.options.saturating_add(n);
            let options = ranks_at(&m.shift.steps, ends, items, at, bin, (a, b))?;
            options.mark_bytes(dense, n, self.stamp, &mut self.seen);
        }
        Some(())
    }

    /// `mark_move` for a lean move: per setting, the run's end off the
    /// list, the moving prefix sum's binomial taken out of the rank, and
    /// the options' binomials read in order down its column.
    #[inline(always)]
    fn mark_lean(
        &mut self,
        m: &FillMove<'_>,
        Lean { a, plus, from, up }: Lean,
        (bin, dense): (Binomials<'_>, &[u8]),
        at: &Placed,
        items: &[i64],
    ) -> Option<()> {
        for p in &m.outer.placings {
            // Items of a ranked list are small, and `a` is at least 0 (a
            // column raises an item by `k`, proven natural from `a` on):
            // no overflow.
            let b = items[p.item?] + plus;
            if a >= b {
                continue;
            }
            p.ends.as_ref()?;
            let n = (b - a) as usize;
            self.options += n;
            let place = p.sum * bin.rows + at.c[p.sum];
            let fixed = at.rank - bin.table[place];
            let row = place.wrapping_add_signed(from);
            let rows = match up {
                true => &bin.table[row..row + n],
                false => &bin.table[row + 1 - n..=row],
            };
            mark_rows(rows, fixed, dense, self.stamp, &mut self.seen);
        }
        Some(())
    }
}

/// Marks the bytes at `fixed + row` for each of `rows`: out of line, so
/// that its loop keeps its state in registers. Four at a time, then the
/// last four rows (fewer if the run is shorter; a byte marked twice is
/// marked once): the loop's branch depends on the run's length by fours
/// alone, where a compiler's unrolling by two branches on its parity too,
/// and a run of up to four takes none.
#[inline(never)]
fn mark_rows(rows: &[usize], fixed: usize, dense: &[u8], stamp: u32, seen: &mut [u32; 256]) {
    let Some(last) = rows.len().checked_sub(1) else {
        return;
    };
    for four in rows[..last].chunks_exact(4) {
        mark_each(four.iter().map(|&r| fixed + r), dense, stamp, seen);
    }
    let tail = (0..4).map(|u| fixed + rows[(last + u).saturating_sub(3)]);
    mark_each(tail, dense, stamp, seen);
}
