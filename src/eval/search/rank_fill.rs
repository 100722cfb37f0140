//! A table of lists kept by rank of sum, filled a level at a time
//! (`compile::fill_order`): when every move's options rank on one side of
//! their parent, the level's lists are valued in the opposite rank order,
//! each from its options' bytes, with no search stack. A list's rank and
//! prefix sums come from the walk (`memo::LevelWalk`), and each setting
//! of a move's outer bindings moves only the prefix sums its changes
//! reach (`column_ranks`: one column along the last binding, its first
//! index stepped along the last outer one and checked once per setting;
//! else `option_ranks`). A list the fill cannot value plainly
//! (code that fails, an option without a value, a value past a byte) ends
//! it: the lists left are searched one by one, as they would have been.

use super::rank_shift::{column_ranks, option_ranks};
use super::settings::run_range;
use crate::diag::Fallible;
use crate::eval::compile::{
    fill_order, Env, FillOrder, KernelMove, KeyFrame, KeyLoopMove, KeyRun, KeySource, Locals,
    MovePlan, Operand, RankShift, Rules, RunEnd, Settings,
};
use crate::eval::memo::scan::{byte_value, NO_VALUE_BYTES};
use crate::eval::memo::{Binomials, Key, Placed, RankedFill, BIG};
use crate::eval::value::InstanceId;
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
    let Rules::User(g) = &inst.rules;
    let Some(kernel) = g.kernel.as_ref().filter(|k| k.keyed) else {
        return Ok(false);
    };
    let Ok(order) = fill_order(g.where_clause.is_some(), kernel) else {
        return Ok(false);
    };
    // All of this form: `fill_order` checked.
    let moves: Vec<FillMove<'_>> = (kernel.moves.iter())
        .filter_map(|p| match p {
            MovePlan::Kernel(KernelMove::KeyLoop(m)) => {
                let run = m.run.as_ref()?;
                let shift = run.shift.as_ref().ok()?;
                let off_list = match (&run.lo, &run.hi, m.bindings.last()) {
                    (&Operand::Const(c), &RunEnd::Item(list, i), Some(&(k, _)))
                        if i == k && list == shift.list =>
                    {
                        Some((c, i64::from(run.inclusive)))
                    }
                    _ => None,
                };
                Some(FillMove {
                    m,
                    run,
                    shift,
                    off_list,
                })
            }
            _ => None,
        })
        .collect();
    let mut frame = KeyFrame::empty();
    if !frame.load(inst.frame_statics(), key) || frame.items(g.n_statics as u32).is_none() {
        return Ok(false);
    }
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
        moves: &moves,
        frame,
        n: key.coords().len(),
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
        filled = fill_run.level(env, &mut fill, level, order == FillOrder::Down, span);
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
    /// A run `c..xs[k]` (`c` and whether `..=`), `k` the last outer
    /// binding and `xs` the list.
    off_list: Option<(i64, i64)>,
}

/// One fill: the game's moves, the frame its code reads, and the marks
/// of a list's option bytes (`seen[byte] == stamp`).
struct Fill<'a> {
    moves: &'a [FillMove<'a>],
    frame: KeyFrame,
    n: usize,
    seen: [u32; 256],
    stamp: u32,
    stored: usize,
    /// Options marked since the last tick.
    options: usize,
}

impl Fill<'_> {
    /// Values the lists of level `s` in rank order (`down`: highest
    /// first); false at the first it cannot value plainly.
    fn level(
        &mut self,
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
                    let Some(v) = self.value(fill.binomials(), fill.dense, at, items) else {
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
        bin: Binomials<'_>,
        dense: &[u8],
        at: &Placed,
        items: &[i64],
    ) -> Option<u8> {
        if self.stamp == u32::MAX {
            (self.seen, self.stamp) = ([0; 256], 0);
        }
        self.stamp += 1;
        for (j, &x) in items.iter().enumerate() {
            self.frame.set_item(j, x);
        }
        for m in self.moves {
            self.mark_move(m, 0, (bin, dense), at, items)?;
        }
        let marked = |b: u8| self.seen[b as usize] == self.stamp;
        if NO_VALUE_BYTES.iter().any(|&b| marked(b as u8)) || marked(2) {
            return None;
        }
        (4..BIG).find(|&b| !marked(b))
    }

    /// Marks the options of `m` from binding `level` in.
    fn mark_move(
        &mut self,
        m: &FillMove<'_>,
        level: usize,
        memo: (Binomials<'_>, &[u8]),
        at: &Placed,
        items: &[i64],
    ) -> Option<()> {
        let column = m.shift.steps.column.as_ref();
        let Some((slot, source)) = m.m.bindings.get(level) else {
            let j0 = column.and_then(|c| c.index.eval(&self.frame));
            let ends = self.run_ends(m, None, items)?;
            return self.mark_run(m, j0, ends, memo, at, items);
        };
        let mut settings = Settings::new();
        let (a, b) = match source {
            KeySource::Range { lo, hi, inclusive } => {
                run_range(lo.eval(&self.frame), hi.eval(&self.frame), *inclusive)?
            }
            _ => source
                .settings(&self.frame, &mut settings)
                .map(|_| (0, 0))?,
        };
        // Under one column the first index is affine in the last outer
        // binding: evaluated at its first setting, stepped for the others.
        let first = if a < b {
            Some(a)
        } else {
            settings.first().copied()
        };
        let column = column.filter(|_| level + 1 == m.m.bindings.len());
        let start = column.zip(first).and_then(|(c, first)| {
            self.frame.set_int(*slot, first);
            Some((first, c.index.eval(&self.frame)?, c.index.coef(*slot)))
        });
        for k in (a..b).chain(settings.iter().copied()) {
            self.frame.set_int(*slot, k);
            let Some((first, j, per)) = start else {
                self.mark_move(m, level + 1, memo, at, items)?;
                continue;
            };
            let j0 = (k.checked_sub(first))
                .and_then(|d| per.checked_mul(d))
                .and_then(|d| j.checked_add(d));
            let ends = self.run_ends(m, Some(k), items)?;
            self.mark_run(m, j0, ends, memo, at, items)?;
        }
        Some(())
    }

    /// The ends of the last binding's run of `m`, the others set (the last
    /// outer one to `k`): a run `c..xs[k]` (or `..=`) read off the list.
    #[inline(always)]
    fn run_ends(&self, m: &FillMove<'_>, k: Option<i64>, items: &[i64]) -> Option<(i64, i64)> {
        let run = m.run;
        match (m.off_list, k) {
            (Some((c, plus)), Some(k)) => {
                Some((c, items.get(usize::try_from(k).ok()?)?.checked_add(plus)?))
            }
            _ => run_range(
                run.lo.eval(&self.frame),
                run.hi.eval(&self.frame),
                run.inclusive,
            ),
        }
    }

    /// Marks the options `k` in `a..b` of the last binding of `m`, the
    /// others set, down the column from index `j0` if the steps have one.
    #[inline(always)]
    fn mark_run(
        &mut self,
        m: &FillMove<'_>,
        j0: Option<i64>,
        (a, b): (i64, i64),
        (bin, dense): (Binomials<'_>, &[u8]),
        at: &Placed,
        items: &[i64],
    ) -> Option<()> {
        if a >= b {
            return Some(());
        }
        let n = usize::try_from(b.checked_sub(a)?).ok()?;
        self.options = self.options.saturating_add(n);
        let (seen, stamp) = (&mut self.seen, self.stamp);
        let mut mark = |i: usize| seen[dense[i] as usize] = stamp;
        // One column: an addition per option, its bytes marked as read.
        if let Some((fixed, row, step)) = (m.shift.steps.column.as_ref())
            .zip(j0)
            .and_then(|(c, j0)| column_ranks(c, j0, items, at, bin, (a, b)))
        {
            let rows = match step {
                1 => &bin.table[row..row + n],
                _ => &bin.table[row + 1 - n..=row],
            };
            rows.iter().for_each(|&r| mark(fixed + r));
            return Some(());
        }
        let options = option_ranks(&m.shift.steps, &self.frame, items, at, bin, (a, b))?;
        (0..n).for_each(|t| mark(options.index(t)));
        Some(())
    }
}
