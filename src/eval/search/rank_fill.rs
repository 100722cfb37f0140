//! A table of lists kept by rank of sum, filled a level at a time
//! (`compile::fill_order`): when every move's options rank on one side of
//! their parent, the level's lists are valued in the opposite rank order,
//! each from its options' bytes, with no search stack. A list's rank and
//! prefix sums come from the walk (`memo::LevelWalk`), and each setting
//! of a move's outer bindings moves only the prefix sums its changes
//! reach (`column_ranks`: one column along the last binding, its first
//! index stepped along the last outer one and checked within the list at
//! that binding's least and greatest settings, the items the run's range
//! keeps natural not checked, `OneColumn::unproven`; else
//! `option_ranks`). A list the fill cannot value plainly
//! (code that fails, an option without a value, a value past a byte) ends
//! it: the lists left are searched one by one, as they would have been.

use super::rank_shift::{column_ranks, option_ranks};
use super::settings::run_range;
use crate::diag::Fallible;
use crate::eval::compile::{
    fill_order, Env, FillOrder, KernelMove, KeyFrame, KeyLoopMove, KeyRun, KeySource, Locals,
    MovePlan, OneColumn, Operand, RankShift, Rules, RunEnd, Settings,
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
                let checks =
                    (shift.steps.column.as_ref()).map_or_else(Vec::new, |c| c.unproven(k_lo, end));
                Some(FillMove {
                    m,
                    run,
                    shift,
                    end_item,
                    checks,
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
    /// A run `c..xs[i]` (`i`, `c` and whether `..=`), `i` an outer
    /// binding and `xs` the list: its end read off the list.
    end_item: Option<(Slot, i64, i64)>,
    /// The column's steps whose items may leave the naturals, checked
    /// per setting (`OneColumn::unproven`).
    checks: Vec<(usize, i64, i64)>,
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
            let ends = self.run_ends(m, items)?;
            return self.mark_run(m, ends, memo, at, items);
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
        // binding: evaluated at its least setting, stepped for the others,
        // and checked within the list once, at the least and the greatest.
        let column = column.filter(|_| level + 1 == m.m.bindings.len());
        let start = column.and_then(|c| {
            let (lo, hi) = match a < b {
                true => (a, b - 1),
                false => (*settings.iter().min()?, *settings.iter().max()?),
            };
            self.frame.set_int(*slot, lo);
            let (j, per) = (c.index.eval(&self.frame)?, c.index.coef(*slot));
            let j_hi = j.checked_add(per.checked_mul(hi.checked_sub(lo)?)?)?;
            let last = usize::try_from(j.max(j_hi)).ok()?.checked_add(c.span)?;
            (j.min(j_hi) >= 0 && last < items.len()).then_some((lo, j, per))
        });
        let settings = (a..b).chain(settings.iter().copied());
        if let Some((c, start)) = column.zip(start) {
            return self.mark_column(m, (c, *slot, start), settings, memo, at, items);
        }
        for k in settings {
            self.frame.set_int(*slot, k);
            self.mark_move(m, level + 1, memo, at, items)?;
        }
        Some(())
    }

    /// Marks the options of `m` for the settings of its last outer binding
    /// (`slot`) under one column, whose first index `j + per * (k - lo)`
    /// lies within the list for every setting `k` (checked at both ends):
    /// per setting, the run's ends (off the list when it ends at an item),
    /// the column's place and the options' bytes down it.
    #[inline(always)]
    fn mark_column(
        &mut self,
        m: &FillMove<'_>,
        (c, slot, (lo, j, per)): (&OneColumn, Slot, (i64, i64, i64)),
        settings: impl Iterator<Item = i64>,
        (bin, dense): (Binomials<'_>, &[u8]),
        at: &Placed,
        items: &[i64],
    ) -> Option<()> {
        for k in settings {
            // Between the two ends checked: no overflow, within the list.
            let j0 = (j + per * (k - lo)) as usize;
            // The frame written only for code that reads it.
            let (a, b) = match m.end_item {
                Some((i, a, plus)) if i == slot => {
                    (a, items.get(usize::try_from(k).ok()?)?.checked_add(plus)?)
                }
                _ => {
                    self.frame.set_int(slot, k);
                    self.run_ends(m, items)?
                }
            };
            if a >= b {
                continue;
            }
            let Some((fixed, row, step)) = column_ranks(c, &m.checks, j0, items, at, bin, (a, b))
            else {
                self.frame.set_int(slot, k);
                self.mark_run(m, (a, b), (bin, dense), at, items)?;
                continue;
            };
            let n = (b - a) as usize;
            self.options += n;
            let rows = match step {
                1 => &bin.table[row..row + n],
                _ => &bin.table[row + 1 - n..=row],
            };
            let indices = rows.iter().map(|&r| fixed + r);
            mark_each(indices, dense, self.stamp, &mut self.seen);
        }
        Some(())
    }

    /// The ends of the last binding's run of `m`, the others set.
    #[inline(always)]
    fn run_ends(&self, m: &FillMove<'_>, items: &[i64]) -> Option<(i64, i64)> {
        let run = m.run;
        let Some((i, c, plus)) = m.end_item else {
            return run_range(
                run.lo.eval(&self.frame),
                run.hi.eval(&self.frame),
                run.inclusive,
            );
        };
        let i = usize::try_from(self.frame.int(i)?).ok()?;
        Some((c, items.get(i)?.checked_add(plus)?))
    }

    /// Marks the options `k` in `a..b` of the last binding of `m`, the
    /// others set, placed by `option_ranks`.
    fn mark_run(
        &mut self,
        m: &FillMove<'_>,
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
        let options = option_ranks(&m.shift.steps, &self.frame, items, at, bin, (a, b))?;
        options.mark_bytes(dense, n, self.stamp, &mut self.seen);
        Some(())
    }
}
