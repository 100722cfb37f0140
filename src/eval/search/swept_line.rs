//! The unknown positions of a swept line valued on their game's kernel
//! (`Above::value_on_line`), in place of the search's entry per
//! position (`search_swept`, `value_directly`, a key written and a frame
//! loaded from it): the line's frame is loaded once and only its
//! coordinates set per position, the kernel's moves run on it, the mex
//! stored at the position's place in the window. A kernel of integers
//! runs on an array of them; a keyed kernel (lists and sets, not one the
//! lean walk takes) on a `KeyFrame`. A position with an option that has
//! no value yet (or any move that needs the general path) is left to the
//! search, nothing stored.

use std::any::Any;

use super::engine::{line_buffers, twin_value, walks_game};
use super::kernel::RunHeld;
use crate::diag::Fallible;
use crate::eval::compile::{
    int_frame, Env, Instance, Kernel, KernelMove, KeyFrame, MovePlan, OnLine, KERNEL_FRAME,
};
use crate::eval::memo::{coords_weight, Key, State};
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
    /// A keyed kernel's frame, and the slot of its first argument.
    keyed: Option<(Box<KeyFrame>, usize)>,
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
    fn load(env: &Env, inst: &Instance, kernel: &Kernel, on: &OnLine<'_>) -> Self {
        let n = on.coords.len();
        let statics = inst.frame_statics();
        let frame = int_frame(statics, on.coords).filter(|_| !kernel.keyed);
        let plain = |m: &MovePlan| match m {
            MovePlan::Kernel(KernelMove::KeyLoop(_)) => kernel.keyed,
            MovePlan::Kernel(
                KernelMove::Run(_)
                | KernelMove::SumRun(_)
                | KernelMove::Loop(_)
                | KernelMove::Single(_),
            ) => !kernel.keyed,
            _ => false,
        };
        // A keyed kernel's frame loaded from the line's first key; a game
        // the lean walk takes is left to it (`search_in`).
        let keyed = (kernel.keyed && !walks_game(env, inst)).then(|| {
            let mut key = Key::default();
            key.set_coords(on.shape, on.n_args, on.coords);
            let mut frame = Box::new(KeyFrame::empty());
            frame.load(statics, &key).then_some((frame, statics.len()))
        });
        let usable = (frame.is_some() || keyed.as_ref().is_some_and(Option::is_some))
            && kernel.n_params == on.n_args as usize
            && kernel.moves.iter().all(plain);
        let (frame, width) = frame.unwrap_or(([0; KERNEL_FRAME], 0));
        LineKernel {
            frame,
            width,
            slot: width.saturating_sub(n) + on.coord,
            keyed: keyed.flatten(),
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
            let line = LineKernel::load(env, inst, kernel, on);
            kept.insert(Box::new(line) as Box<dyn Any>)
                .downcast_mut()
                .expect("a line kernel")
        }
    };
    if !line.usable || line.fell_back {
        return Ok(None);
    }
    let at = on.at;
    let twin = line.twins.then(|| twin_value(inst, kernel, on.coords));
    if let Some(v) = twin.flatten() {
        return store(env, inst, on, v).map(Some);
    }
    sink.start_on_line(on.span);
    let target = (instance, inst);
    let done = match &mut line.keyed {
        Some((frame, first)) => {
            frame.reload(*first, on.n_args as usize, on.coords);
            sink.key_moves(env, target, kernel, frame, None)?
        }
        None => {
            line.frame[line.slot] = on.coords[on.coord];
            let ints = &line.frame[..line.width];
            // Past the slots a move's reads are known for: none kept.
            let moving = 1u64.checked_shl(line.slot as u32).unwrap_or(u64::MAX);
            let mut done = true;
            for (plan, held) in kernel.moves.iter().zip(&mut line.held) {
                let each = (plan, held);
                if !sink.kernel_move_held(env, target, kernel, each, ints, (at, moving))? {
                    done = false;
                    break;
                }
            }
            done
        }
    };
    match sink.line_value().filter(|_| done) {
        Some(v) => store(env, inst, on, v).map(Some),
        None => {
            line.fell_back = true;
            Ok(None)
        }
    }
}

/// Stores the value `v` of the position `on` at its place and counts
/// it, as `value_directly` does.
fn store(env: &mut Env, inst: &Instance, on: &OnLine<'_>, v: u64) -> Fallible<u64> {
    let mut memo = inst.memo.borrow_mut();
    if !memo.set_at(on.at, State::Value(v)) {
        // The window was laid out anew by an option's look-up.
        let mut key = Key::default();
        key.set_coords(on.shape, on.n_args, on.coords);
        memo.set(&key, State::Value(v));
    }
    drop(memo);
    let weight = coords_weight(on.coords.len());
    env.rt.count_stored_n(weight, on.span, &inst.name)?;
    Ok(v)
}
