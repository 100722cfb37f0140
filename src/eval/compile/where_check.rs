//! Whether a key is a position: its game's `where`, decided by integer
//! code where it can, memo first where the memo may know.

use super::frame::{int_frame, KeyFrame};
use super::runtime::Env;
use crate::diag::Fallible;
use crate::eval::builtins::expect_bool;
use crate::eval::memo::{int_shape, Key, State};
use crate::eval::value::InstanceId;
use crate::syntax::Span;

/// Whether the position `key` of `instance` satisfies its `where`.
pub fn satisfies_where(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<bool> {
    let inst = env.rt.instance(instance);
    let g = &inst.game;
    let Some(cond) = &g.where_clause else {
        return Ok(true);
    };
    let wspan = g.where_span.unwrap_or(span);
    let check = |env: &mut Env| expect_bool(&cond(env)?, wspan);
    // Integer arguments (or sequences of them): integer code decides when
    // it can, without values.
    let flat = g
        .where_flat
        .as_ref()
        .filter(|_| env.rt.limits.plans.where_code);
    if let Some(w) = flat.filter(|_| key.shape() == int_shape(key.len()) && key.generic.is_none()) {
        if let Some(holds) =
            int_frame(inst.frame_statics(), key.coords()).and_then(|(f, n)| w(&f[..n]))
        {
            return Ok(holds);
        }
    }
    if let Some(w) = g
        .where_ints
        .as_ref()
        .filter(|_| env.rt.limits.plans.where_code)
    {
        // Loaded in place: a frame returned by value is copied.
        let mut frame = KeyFrame::empty();
        if let Some(holds) = frame
            .load(inst.frame_statics(), key)
            .then(|| w(&frame))
            .flatten()
        {
            return Ok(holds);
        }
    }
    if key.shape() == int_shape(key.len()) && key.generic.is_none() {
        let frame = inst.frame_statics().iter().cloned().chain(key.int_args());
        return env.with_frame(frame, g.n_slots, span, check);
    }
    let args = key.to_args();
    let frame = inst.frame_statics().iter().chain(args.iter()).cloned();
    env.with_frame(frame, g.n_slots, span, check)
}

/// Whether the position `key` of `instance` is one (its `where` holds),
/// memo first.
pub(crate) fn is_keyed_position(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<bool> {
    let state = env.rt.instance(instance).memo.borrow_mut().get(key);
    match state {
        State::Invalid => Ok(false),
        State::Unknown => satisfies_where(env, instance, key, span),
        _ => Ok(true),
    }
}
