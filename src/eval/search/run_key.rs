//! The buffers of keyed runs kept in the sink between runs (`RunScratch`):
//! the runs of a sorted list's settings (`sorted_run.rs`) and the key of
//! a run of other arguments (`key_run.rs`).

use super::sorted_parts::Runs;
use crate::eval::compile::{KeyFrame, KeyRun, Locals, OptionKey, RunArg, Seq};
use crate::eval::memo::scan::{Column, Strided};
use crate::eval::memo::{Tag, MAX_COORDS};

/// The options of a `KeyRun` without a sorted list for one setting of
/// the outer bindings: the key of the option `k = 0` and each
/// coordinate's coefficient of `k`.
pub(super) struct RunKey {
    pub(super) out: OptionKey,
    pub(super) coefs: [i64; MAX_COORDS],
}

impl RunKey {
    /// Writes the key of `run`'s options; `None` if some code needs the
    /// general path, or the run moves an item of a sorted list (whose
    /// options are no one affine run: `sorted_run.rs`).
    pub(super) fn write(&mut self, run: &KeyRun, frame: &KeyFrame) -> Option<()> {
        self.out.clear();
        self.coefs = [0; MAX_COORDS];
        for arg in &run.args {
            let start = self.out.len;
            match arg {
                RunArg::Fixed(a) => a.write(frame, &mut self.out)?,
                RunArg::Affine(base, coef) => {
                    self.out.push(base.eval(frame)?)?;
                    self.out.end(Tag::Int)?;
                    self.coefs[start] = *coef;
                }
                RunArg::SortedUpdate { .. } => return None,
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
}

/// The sink's buffers for keyed runs, boxed: taken out and put back, not
/// moved.
pub(super) struct RunScratch {
    pub(super) key: RunKey,
    /// The runs of a sorted list's settings (`sorted_run.rs`), to scan
    /// at once, in a window laid out by coordinates or by rank.
    pub(super) sorted_runs: Runs<Strided>,
    pub(super) ranked_runs: Runs<Column>,
}

impl Default for RunScratch {
    fn default() -> RunScratch {
        RunScratch {
            key: RunKey {
                out: OptionKey::default(),
                coefs: [0; MAX_COORDS],
            },
            sorted_runs: Runs::new(),
            ranked_runs: Runs::new(),
        }
    }
}
