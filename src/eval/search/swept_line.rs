//! The unknown positions of a swept line valued on their game's kernel
//! (`Above::value_on_line`), in place of the search's entry per
//! position (`search_swept`, `value_directly`, a key written and a frame
//! loaded from it): the line's frame is loaded once and only its moving
//! coordinate set per position, the kernel's moves run on it, the mex
//! stored at the position's index in the window. A position with an
//! option that has no value yet (or any move that needs the general
//! path) is left to the search, nothing stored.

use std::any::Any;

use super::engine::{line_buffers, twin_value};
use super::kernel::RunHeld;
use crate::diag::Fallible;
use crate::eval::compile::{
    int_frame, Env, Instance, Kernel, KernelMove, MovePlan, OnLine, KERNEL_FRAME,
};
use crate::eval::memo::{coords_weight, int_shape, Key, Located, State};
use crate::eval::value::InstanceId;

/// What a line keeps between its positions. The buffers that hold it
/// are the sweep's for one line (`sweep_line`'s, their `line` emptied
/// when taken, `line_buffers`): every position asked with them lies on
/// the line it was loaded for, so none is checked.
struct LineKernel {
    /// The frame of the line's positions (static arguments, then the
    /// coordinates), its width, and the slot of the moving coordinate.
    frame: [i64; KERNEL_FRAME],
    width: usize,
    slot: usize,
    /// The kernel values the line's positions alone: every move of a
    /// kernel form.
    usable: bool,
    /// A position may take its twin's value (`value_directly`).
    twins: bool,
    /// A position of the line went to the search: its next ones go there
    /// straight away (in a table not asked in the memo's order, they
    /// would each run the kernel twice).
    fell_back: bool,
    /// Per move, what is kept of its set-up for the line.
    held: Vec<RunHeld>,
}

impl LineKernel {
    /// Loaded for the line of `on`.
    fn load(inst: &Instance, kernel: &Kernel, on: &OnLine<'_>) -> Self {
        let n = on.coords.len();
        let frame = int_frame(inst.frame_statics(), on.coords);
        let plain = |m: &MovePlan| {
            matches!(
                m,
                MovePlan::Kernel(
                    KernelMove::Run(_)
                        | KernelMove::SumRun(_)
                        | KernelMove::Loop(_)
                        | KernelMove::Single(_)
                )
            )
        };
        let usable = frame.is_some()
            && !kernel.keyed
            && kernel.n_params == n
            && kernel.moves.iter().all(plain);
        let (frame, width) = frame.unwrap_or(([0; KERNEL_FRAME], 0));
        LineKernel {
            frame,
            width,
            slot: width.saturating_sub(n) + on.coord,
            usable,
            twins: kernel.swappable.is_some() || !kernel.clamps.is_empty(),
            fell_back: false,
            held: kernel.moves.iter().map(|_| RunHeld::default()).collect(),
        }
    }
}

/// `Above::value_on_line`: the value of the unknown position `on` of a
/// swept line, valued on its game's kernel and stored, or `None` with
/// nothing stored where the search must value it.
pub fn value_on_line(
    env: &mut Env,
    held: &mut Option<Box<dyn Any>>,
    (instance, inst): (InstanceId, &Instance),
    on: &OnLine<'_>,
) -> Fallible<Option<u64>> {
    let g = &inst.game;
    let Some(kernel) = &g.kernel else {
        return Ok(None);
    };
    let (sink, kept) = line_buffers(env, held);
    let line = match kept.as_mut().and_then(|b| b.downcast_mut::<LineKernel>()) {
        Some(line) => line,
        None => {
            let line = LineKernel::load(inst, kernel, on);
            kept.insert(Box::new(line) as Box<dyn Any>)
                .downcast_mut()
                .expect("a line kernel")
        }
    };
    if !line.usable || line.fell_back {
        return Ok(None);
    }
    let at = on.line.located(on.index);
    let twin = line.twins.then(|| twin_value(inst, kernel, on.coords));
    if let Some(v) = twin.flatten() {
        return store(env, inst, at, (on, g.n_params), v).map(Some);
    }
    line.frame[line.slot] = on.coords[on.coord];
    let ints = &line.frame[..line.width];
    // Past the slots a move's reads are known for: none kept.
    let moving = 1u64.checked_shl(line.slot as u32).unwrap_or(u64::MAX);
    sink.start_on_line(on.span);
    for (plan, held) in kernel.moves.iter().zip(&mut line.held) {
        let inst = (instance, inst);
        if !sink.kernel_move_held(env, inst, kernel, (plan, held), ints, (at, moving))? {
            line.fell_back = true;
            return Ok(None);
        }
    }
    match sink.line_value() {
        Some(v) => store(env, inst, at, (on, g.n_params), v).map(Some),
        None => {
            line.fell_back = true;
            Ok(None)
        }
    }
}

/// Stores the value `v` of the position `on` (of a game of `n_params`
/// arguments) at `at` and counts it, as `value_directly` does.
fn store(
    env: &mut Env,
    inst: &Instance,
    at: Located,
    (on, n_params): (&OnLine<'_>, usize),
    v: u64,
) -> Fallible<u64> {
    let mut memo = inst.memo.borrow_mut();
    if !memo.set_at(at, State::Value(v)) {
        // The window was laid out anew by an option's look-up.
        let mut key = Key::default();
        key.set_coords(int_shape(on.coords.len()), n_params as u8, on.coords);
        memo.set(&key, State::Value(v));
    }
    drop(memo);
    let weight = coords_weight(on.coords.len());
    env.rt.count_stored_n(weight, on.span, &inst.name)?;
    Ok(v)
}
