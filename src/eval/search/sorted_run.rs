//! The commonest keyed run, read straight off the memo's window: a move
//! whose one argument is `sorted(update(xs, i, k))` (Welter's game), the
//! other items of `xs` in order. Each place of `k` among them is one
//! strided run, placed from the list's items (`sorted_parts.rs`) and
//! marked as it is placed, with the runs of every other setting of the
//! item that moves; no key is written and no run kept. A position some of whose options lie outside
//! the window or have no value yet is finished place by place, those
//! options looked up one by one (`finish_sorted`). Other arguments beside
//! the list, or a list not ascending, are left to `key_run.rs`.

use std::ops::Range;

use super::engine::SgSink;
use super::settings::run_range;
use super::sorted_parts::{sorted_runs, Boxed, Places, Settings};
use crate::diag::Fallible;
use crate::eval::compile::{AffineRun, Env, Instance, KeyFrame, KeyRun, Locals, RunArg, Seq};
use crate::eval::memo::scan::{mark_bytes, ValueBytes};
use crate::eval::memo::{shape_push, DenseOf, Memo, Shape, Tag, BIG, MAX_COORDS};
use crate::eval::value::InstanceId;
use crate::ir::ir::Slot;

/// A sorted list's items and whether `k` equal to one of them gives no
/// option (`KeyRun::skips_repeats`).
type SortedList<'a> = (&'a [i64], bool);

/// Settings of the moving item: item `i` moving over `k` in `a..b`.
trait SettingsOf: Iterator<Item = (usize, (i64, i64))> + Clone {}
impl<T: Iterator<Item = (usize, (i64, i64))> + Clone> SettingsOf for T {}

impl SgSink {
    /// Marks the options of `settings` of `run` from the position's list:
    /// all at once in its window when they lie there with values, else
    /// one place at a time, those without a value yet looked up one by
    /// one (`finish_sorted`). False, having marked only values of
    /// options, if the run has not this form or the list is not
    /// ascending.
    fn mark_sorted(
        &mut self,
        env: &mut Env,
        target: (InstanceId, &Instance),
        run: &KeyRun,
        frame: &KeyFrame,
        settings: impl SettingsOf,
    ) -> Fallible<bool> {
        let [RunArg::SortedUpdate { list, .. }] = &run.args[..] else {
            return Ok(false);
        };
        let Some((seq, xs)) = frame.items(*list) else {
            return Ok(false);
        };
        // A set updated is a set again, sorted anew: not here.
        if seq == Seq::Set {
            return Ok(false);
        }
        let Some(shape) = shape_push(0, 0, Tag::List(xs.len() as u32)) else {
            return Ok(false);
        };
        let list = (xs, run.skips_repeats());
        if self.mark_placed(target.1, shape, list, settings.clone()) {
            return Ok(true);
        }
        self.finish_sorted(env, target, shape, list, settings)
    }

    /// The runs of `settings` placed in the list's window, whichever its
    /// layout, each marked as it is placed: true if every option lay
    /// there with a value. False otherwise, having marked only values of
    /// options.
    fn mark_placed(
        &mut self,
        inst: &Instance,
        shape: Shape,
        list: SortedList<'_>,
        settings: impl SettingsOf,
    ) -> bool {
        let sums = &mut self.run_scratch.get_or_insert_with(Box::default).sums;
        let memo = inst.memo.borrow();
        match memo.dense_of(shape) {
            Some(DenseOf::Boxed(w)) if w.n_coords() == list.0.len() => {
                let places = (&Boxed(w.layout()), w.dense());
                mark_bytes(&mut self.seen, |seen, stamp| {
                    sorted_runs(list, settings, places, sums, (seen, stamp))
                })
            }
            Some(DenseOf::Ranked(w)) => {
                let Some(items) = w.sorted_items() else {
                    return false;
                };
                mark_bytes(&mut self.seen, |seen, stamp| {
                    sorted_runs(list, settings, (&items, w.dense()), sums, (seen, stamp))
                })
            }
            _ => false,
        }
    }

    /// The options of `settings` one place of `k` at a time (an affine
    /// run: the other items fixed, `k` at coordinate `c`): those with a
    /// value in the window marked, the others (without a value yet,
    /// outside the window) looked up one by one, which may put them on
    /// the stack. False, marking nothing, if the list is not ascending,
    /// too long or an `i` out of range.
    fn finish_sorted(
        &mut self,
        env: &mut Env,
        (instance, inst): (InstanceId, &Instance),
        shape: Shape,
        (xs, skips): SortedList<'_>,
        settings: impl SettingsOf,
    ) -> Fallible<bool> {
        let n = xs.len();
        let fits = (1..=MAX_COORDS).contains(&n) && xs.is_sorted();
        if !fits || settings.clone().any(|(i, _)| i >= n) {
            return Ok(false);
        }
        let repeat = !skips as i64;
        let mut coefs = [0i64; MAX_COORDS];
        for (i, (a, b)) in settings {
            // The other items (ascending), `k` put at coordinate `c`.
            let rest = |q: usize| xs[q + (q >= i) as usize];
            for c in 0..n {
                let lo = match c {
                    0 => a,
                    _ => a.max(rest(c - 1).saturating_add(1)),
                };
                let hi = match c + 1 < n {
                    true => b.min(rest(c).saturating_add(repeat)),
                    false => b,
                };
                if lo >= hi {
                    continue;
                }
                let mut bases = [0i64; MAX_COORDS];
                for (p, x) in bases[..n].iter_mut().enumerate() {
                    *x = match p.cmp(&c) {
                        std::cmp::Ordering::Less => rest(p),
                        std::cmp::Ordering::Equal => 0,
                        std::cmp::Ordering::Greater => rest(p - 1),
                    };
                }
                coefs[c] = 1;
                self.slow.clear();
                self.unvalued(&inst.memo.borrow(), shape, &bases[..n], (c, lo..hi));
                let run = AffineRun {
                    instance,
                    lo,
                    hi,
                    shape,
                    n_args: 1,
                    bases: &bases[..n],
                    coefs: &coefs[..n],
                };
                self.look_up_slow(env, &run)?;
                coefs[c] = 0;
            }
        }
        Ok(true)
    }

    /// Marks the values of the options `ks` of the list `items` with `k`
    /// at coordinate `c` that the memo's window holds; puts the others in
    /// `slow`.
    fn unvalued(&mut self, memo: &Memo, shape: Shape, items: &[i64], (c, ks): (usize, Range<i64>)) {
        match memo.dense_of(shape) {
            Some(DenseOf::Boxed(w)) if w.n_coords() == items.len() => {
                self.unvalued_in(&w, &Boxed(w.layout()), items, (c, ks))
            }
            Some(DenseOf::Ranked(w)) => match w.sorted_items() {
                Some(places) => self.unvalued_in(&w, &places, items, (c, ks)),
                None => self.slow.extend(ks),
            },
            _ => self.slow.extend(ks),
        }
    }

    /// `unvalued` in one window: each option's index is the other items'
    /// parts and `k`'s.
    fn unvalued_in<P: Places>(
        &mut self,
        window: &impl ValueBytes,
        places: &P,
        items: &[i64],
        (c, ks): (usize, Range<i64>),
    ) {
        let mut others = 0usize;
        for (p, &x) in items.iter().enumerate() {
            if p != c {
                others = others.wrapping_add(places.at(x, p));
            }
        }
        // A ranking of distinct lists has no place for a list with a
        // repeat (its parts would name another list).
        let (below, above) = (
            c.checked_sub(1).map(|p| items[p]),
            items.get(c + 1).copied(),
        );
        let others_repeat = (0..items.len().saturating_sub(2)).any(|p| {
            let (x, y) = (
                items[p + (p >= c) as usize],
                items[p + 1 + (p + 1 >= c) as usize],
            );
            x >= y
        });
        let strict = places.distinct();
        let repeats = |k: i64| strict && (others_repeat || below == Some(k) || above == Some(k));
        let bytes = window.dense();
        for k in ks {
            let at = others.wrapping_add(places.at(k, c));
            match bytes.get(at) {
                _ if repeats(k) => self.slow.push(k),
                Some(&b) if self.seen.mark_byte(b) => {}
                Some(&BIG) => match window.big(at) {
                    Some(v) => self.seen.add(v),
                    None => self.slow.push(k),
                },
                _ => self.slow.push(k),
            }
        }
    }

    /// Marks the options `k` in `a..b` (not empty) of `run` if it has this
    /// form: true then. False otherwise, having marked only values of
    /// options.
    pub(super) fn sorted_runs(
        &mut self,
        env: &mut Env,
        target: (InstanceId, &Instance),
        run: &KeyRun,
        frame: &KeyFrame,
        ab: (i64, i64),
    ) -> Fallible<bool> {
        let [RunArg::SortedUpdate { index, .. }] = &run.args[..] else {
            return Ok(false);
        };
        let Some(i) = index.eval(frame).and_then(|i| usize::try_from(i).ok()) else {
            return Ok(false);
        };
        self.mark_sorted(env, target, run, frame, std::iter::once((i, ab)))
    }

    /// `sorted_runs` for every setting `k` in `ks` of the last outer
    /// binding `slot` of a move (the item that moves), their runs marked
    /// in one go: true if every option was marked. False otherwise, having
    /// marked only values of options: the settings then run one by one.
    pub(super) fn sorted_settings(
        &mut self,
        env: &mut Env,
        target: (InstanceId, &Instance),
        run: &KeyRun,
        (slot, ks): (Slot, Range<i64>),
        frame: &mut KeyFrame,
    ) -> Fallible<bool> {
        let [RunArg::SortedUpdate { list, index }] = &run.args[..] else {
            return Ok(false);
        };
        // A few settings (one per item).
        if ks.is_empty() || ks.end.saturating_sub(ks.start) > MAX_COORDS as i64 {
            return Ok(false);
        }
        // `k in c..xs[i]` for item `i` moving: no code to run.
        if let Some(c) = run.item_range(slot) {
            frame.set_int(slot, ks.end - 1);
            let Some((_, xs)) = frame.items(*list) else {
                return Ok(false);
            };
            // An item out of range fails in `sorted_runs`.
            let settings = ks.map(|i| {
                let i = usize::try_from(i).unwrap_or(usize::MAX);
                (i, (c, xs.get(i).map_or(c, |&b| b)))
            });
            return self.mark_sorted(env, target, run, frame, settings);
        }
        let mut settings = Settings::default();
        let placed = ks.clone().try_for_each(|k| {
            frame.set_int(slot, k);
            let ab = run_range(run.lo.eval(frame), run.hi.eval(frame), run.inclusive)?;
            let i = usize::try_from(index.eval(frame)?).ok()?;
            // `k not in xs` excludes the moving item's own value.
            match run.excluded(frame)? {
                Some(x) => settings.push_without(i, ab, x),
                None => settings.push(i, ab),
            }
        });
        frame.set_int(slot, ks.end - 1);
        match placed {
            Some(()) => self.mark_sorted(env, target, run, frame, settings.get()),
            None => Ok(false),
        }
    }
}
