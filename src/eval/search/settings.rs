//! The values a binding of a kernel move takes: a run's range from its
//! evaluated bounds, and the walk of a keyed binding's settings (a bit
//! set by its bits, a range by counting, any other source listed first),
//! shared by keyed kernels (`key_kernel.rs`) and the walk (`key_walk.rs`).

use crate::diag::Fallible;
use crate::eval::compile::{KeyFrame, KeySource, Settings};
use crate::ir::ir::Slot;

/// The half-open range of a run's binding from its evaluated bounds
/// (`lo..hi`, or `lo..=hi` when `inclusive`); `None` if a bound's code
/// failed or the end overflows.
pub(crate) fn run_range(lo: Option<i64>, hi: Option<i64>, inclusive: bool) -> Option<(i64, i64)> {
    let (a, b) = lo.zip(hi)?;
    Some((a, if inclusive { b.checked_add(1)? } else { b }))
}

/// Sets `slot` to each bit of `mask`, ascending, and calls `each`, until
/// it gives false (then false).
#[inline]
pub(super) fn each_bit<S: ?Sized>(
    state: &mut S,
    frame: &mut KeyFrame,
    slot: Slot,
    mut mask: u64,
    mut each: impl FnMut(&mut S, &mut KeyFrame) -> Fallible<bool>,
) -> Fallible<bool> {
    while mask != 0 {
        frame.set_int(slot, mask.trailing_zeros() as i64);
        mask &= mask - 1;
        if !each(state, frame)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Sets `slot` to every value of the binding's `source` in `frame`, in
/// order, and calls `each`, until it gives false (then false; also when
/// the source is not at hand as integers: the general path runs it). The
/// source is read once, before the first call.
#[inline]
pub(super) fn each_setting<S: ?Sized>(
    state: &mut S,
    frame: &mut KeyFrame,
    (slot, source): (Slot, &KeySource),
    mut each: impl FnMut(&mut S, &mut KeyFrame) -> Fallible<bool>,
) -> Fallible<bool> {
    if let Some(mask) = source.bits(frame) {
        return each_bit(state, frame, slot, mask, each);
    }
    if let KeySource::Range { lo, hi, inclusive } = source {
        let Some((a, b)) = run_range(lo.eval(frame), hi.eval(frame), *inclusive) else {
            return Ok(false);
        };
        for k in a..b {
            frame.set_int(slot, k);
            if !each(state, frame)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    let mut settings = Settings::new();
    if source.settings(frame, &mut settings).is_none() {
        return Ok(false);
    }
    for k in settings {
        frame.set_int(slot, k);
        if !each(state, frame)? {
            return Ok(false);
        }
    }
    Ok(true)
}
