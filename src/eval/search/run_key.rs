//! The buffers of keyed runs kept in the sink between runs (`RunScratch`):
//! the sums of a sorted list's parts (`sorted_run.rs`) and the key of
//! a run's options as affine runs (`key_run.rs`).

use super::sorted_parts::Sums;
use crate::eval::compile::{KeyFrame, KeyRun, Locals, OptionKey, RunArg, Seq};
use crate::eval::memo::{Tag, MAX_COORDS};
use crate::ir::ir::Slot;

/// The options of a `KeyRun` for one setting of the outer bindings: the
/// key of the option `k = 0` and each coordinate's coefficient of `k`;
/// with a sorted list, one such run per place of `k` among its other
/// items (`place`).
pub(super) struct RunKey {
    pub(super) out: OptionKey,
    pub(super) coefs: [i64; MAX_COORDS],
    /// The sorted list's other items, ascending.
    rest: [i64; MAX_COORDS],
    /// Where the list starts among the coordinates and how many other
    /// items it has.
    list: Option<(usize, usize)>,
}

impl RunKey {
    /// Writes the key of `run`'s options; `None` if some code needs the
    /// general path.
    pub(super) fn write(&mut self, run: &KeyRun, frame: &KeyFrame) -> Option<()> {
        self.out.clear();
        self.coefs = [0; MAX_COORDS];
        self.list = None;
        for arg in &run.args {
            let start = self.out.len;
            match arg {
                RunArg::Fixed(a) => a.write(frame, &mut self.out)?,
                RunArg::Affine(base, coef) => {
                    self.out.push(base.eval(frame)?)?;
                    self.out.end(Tag::Int)?;
                    self.coefs[start] = *coef;
                }
                RunArg::SortedUpdate { list, index } => {
                    let n_rest = sorted_rest(frame, *list, index.eval(frame), &mut self.rest)?;
                    for _ in 0..=n_rest {
                        self.out.push(0)?;
                    }
                    self.out.end(Tag::List(n_rest as u32 + 1))?;
                    self.list = Some((start, n_rest));
                }
                RunArg::Items(items) => {
                    let (seq, xs) = frame.items(items.list)?;
                    // A set updated is a set again, sorted anew: not here.
                    if seq == Seq::Set {
                        return None;
                    }
                    for &x in xs {
                        self.out.push(x)?;
                    }
                    for (index, base, coef) in &items.updates {
                        let i = usize::try_from(index.eval(frame)?).ok()?;
                        if i >= xs.len() {
                            return None;
                        }
                        self.out.coords[start + i] = base.eval(frame)?;
                        self.coefs[start + i] = *coef;
                    }
                    let n = xs.len() as u32;
                    self.out.end(match seq {
                        Seq::Tuple => Tag::Tuple(n),
                        _ => Tag::List(n),
                    })?;
                }
            }
        }
        Some(())
    }

    /// How many runs: one per place of `k` in the sorted list.
    pub(super) fn places(&self) -> usize {
        self.list.map_or(1, |(_, n_rest)| n_rest + 1)
    }

    /// Puts `k` at place `j` of the sorted list (its other items around
    /// it), from place `j - 1` (or, for `j == 0`, from any), and gives
    /// the part of `a..b` where it lies there: `rest[j - 1] < k <=
    /// rest[j]` (at `k == rest[j]` the list repeats an item: left to the
    /// game's `where` unless `skips`).
    #[inline]
    pub(super) fn place(&mut self, j: usize, (a, b): (i64, i64), skips: bool) -> (i64, i64) {
        let Some((start, n_rest)) = self.list else {
            return (a, b);
        };
        let (coords, coefs) = (&mut self.out.coords[start..], &mut self.coefs[start..]);
        match j {
            0 => {
                coords[1..=n_rest].copy_from_slice(&self.rest[..n_rest]);
                coefs[1..=n_rest].fill(0);
            }
            // Item `j - 1` goes back below `k`.
            _ => (coords[j - 1], coefs[j - 1]) = (self.rest[j - 1], 0),
        }
        (coords[j], coefs[j]) = (0, 1);
        let lo = match j {
            0 => a,
            _ => a.max(self.rest[j - 1].saturating_add(1)),
        };
        let hi = match j < n_rest {
            true => b.min(self.rest[j].saturating_add(!skips as i64)),
            false => b,
        };
        (lo, hi)
    }
}

/// Puts the items but the `i`-th of the list or tuple in `slot` into
/// `rest`, ascending, and gives their number; `None` if the slot holds no
/// list or tuple, or `i` is out of range (the general path reports it).
fn sorted_rest(
    frame: &KeyFrame,
    slot: Slot,
    i: Option<i64>,
    rest: &mut [i64; MAX_COORDS],
) -> Option<usize> {
    let (seq, xs) = frame.items(slot)?;
    let i = usize::try_from(i?).ok()?;
    if seq == Seq::Set || i >= xs.len() {
        return None;
    }
    let n = xs.len() - 1;
    for (q, r) in rest[..n].iter_mut().enumerate() {
        *r = xs[q + (q >= i) as usize];
    }
    rest[..n].sort_unstable();
    Some(n)
}

/// The sink's buffers for keyed runs, boxed: taken out and put back, not
/// moved.
pub(super) struct RunScratch {
    pub(super) key: RunKey,
    /// The sums of a sorted list's parts (`sorted_run.rs`).
    pub(super) sums: Sums,
}

impl Default for RunScratch {
    fn default() -> RunScratch {
        RunScratch {
            key: RunKey {
                out: OptionKey::default(),
                coefs: [0; MAX_COORDS],
                rest: [0; MAX_COORDS],
                list: None,
            },
            sums: Sums::default(),
        }
    }
}
