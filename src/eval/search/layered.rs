//! Compounds of one position searched as layers of its game:
//! `pass(G(x), n)` and `misere(G(x))` where every move of `G` leads to
//! one position of `G` (or the zero game). Such a compound stays one position of `G` after
//! every move, so its positions are `G`'s positions with the compound's
//! own state beside them: for `pass`, the passes left; for `misere`,
//! nothing. Each state is a *layer*, an instance with `G`'s rules and a
//! memo of its own (`Runtime::layered_instance`), and the search runs it
//! as it runs `G`: the kernel's strided runs read the layer's memo, a
//! dense window or a hash table as `G`'s own would be. The engine adds
//! what the compound adds (`SgSink::close_layer`): the pass, read in the
//! layer below (`G` itself below the last pass), from a position that
//! can move; a terminal position worth 1 under misère play. Options
//! that leave the layer (a sum, another game) or a cycle hand the
//! compound back to the product search.

use std::any::Any;

use super::engine::{search_finite, swept_finite};
use crate::diag::{ErrorKind, Fallible};
use crate::eval::compile::{Env, Instance, Layer, LayerKind};
use crate::eval::memo::{Key, Located, State};
use crate::eval::value::InstanceId;
use crate::syntax::Span;

/// The value of `kind` (a pass or misère compound) of the position `key`
/// of `instance`, searched as layers of its game; `None` when the
/// product search must value it (`Plans::compound_layers` off, a move to
/// a sum or another game, a cycle, or an error, which the product search
/// then reports as it finds it).
pub fn sg_of_layered(
    env: &mut Env,
    kind: LayerKind,
    instance: InstanceId,
    key: &Key,
    span: Span,
) -> Fallible<Option<u64>> {
    // A game without a kernel is tried: its moves' options are checked
    // as they come (`SgSink::layer_option`).
    let layer = Layer {
        base: instance,
        kind,
    };
    if let Some(why) = env.rt.layer_refusal(layer) {
        if env.rt.limits.plans.compound_layers {
            let name = &env.rt.instance(instance).name;
            env.rt.note_compound_plan(|| {
                format!(
                    "compound {}: product search ({why})",
                    layer_name(kind, name)
                )
            });
        }
        return Ok(None);
    }
    let id = env.rt.layered_instance(layer);
    let layered = env.rt.instance(id);
    let state = layered.memo.borrow_mut().get(key);
    match state {
        State::Value(v) => return Ok(Some(v)),
        // Asked again while an outer search values it (a cycle, or a
        // move of the position to this very compound): the product
        // search reports it.
        State::OnPath => return Ok(None),
        _ => {}
    }
    within_layer(env, layer, key, span, |env| {
        search_finite(env, id, key, None, span)
    })
}

/// Runs `search` of the position `key` of `layer` with the position
/// marked as being searched as a layer (a position asked again inside
/// its own search is `None`: the product search values it), the layer
/// below a pass valued first; an error other than a limit is `None`
/// too (the product search reports it where it finds it).
fn within_layer(
    env: &mut Env,
    layer: Layer,
    key: &Key,
    span: Span,
    search: impl FnOnce(&mut Env) -> Fallible<Option<u64>>,
) -> Fallible<Option<u64>> {
    // Compared in place, and dropped in place: a key is copied once.
    let asked = |(l, k): &(Layer, Key)| *l == layer && k == key;
    if env.rt.layering.borrow().iter().any(asked) {
        return Ok(None);
    }
    env.rt.layering.borrow_mut().push((layer, key.clone()));
    let searched = (|| {
        if let LayerKind::Pass(n) = layer.kind {
            below_first(env, (layer.base, n), key, span)?;
        }
        search(env)
    })();
    let mut layering = env.rt.layering.borrow_mut();
    let below = layering.len().saturating_sub(1);
    layering.truncate(below);
    drop(layering);
    let result = match searched {
        Err(e) if is_limit(e.kind) => return Err(e),
        Ok(v) => v,
        Err(_) => None,
    };
    note_plan(env, layer, result.is_some());
    Ok(result)
}

/// Notes for `--explain` how the compound `layer` was valued: as layers
/// (`layered`), or handed to the product search.
fn note_plan(env: &Env, layer: Layer, layered: bool) {
    env.rt.note_compound_plan(|| {
        let inst = env.rt.instance(layer.base);
        let g = &inst.game;
        let on = match g.kernel {
            Some(_) => "on its kernel",
            None => "on its general path",
        };
        let plan = match (layered, layer.kind) {
            (false, _) => "product search (searched as layers, it met an option off its game, a \
                 cycle or an error)"
                .to_string(),
            (true, LayerKind::Pass(_)) => format!(
                "as layers of {} ({on}), a memo per number of passes left, the pass read in \
                 the one below",
                inst.name
            ),
            (true, LayerKind::Misere) => format!(
                "as a layer of {} ({on}), a memo of its own, terminal positions worth 1",
                inst.name
            ),
        };
        format!("compound {}: {plan}", layer_name(layer.kind, &inst.name))
    });
}

/// `pass(G(..))`, `pass(G(..), n)` or `misere(G(..))` for `--explain`.
fn layer_name(kind: LayerKind, inst: &str) -> String {
    match kind {
        LayerKind::Pass(1) => format!("pass({inst})"),
        LayerKind::Pass(n) => format!("pass({inst}, {n})"),
        LayerKind::Misere => format!("misere({inst})"),
    }
}

/// The search of a position a sweep found at `at` (`swept_finite`, a
/// loopy game labelled where it meets a cycle); for a
/// layer's position (a compound's table swept on the layer's instance,
/// `compile/sweep.rs`), the search `sg_of_layered` runs once the layer
/// is known, so a line pays its layer's set-up once, not per position:
/// `None` (the element asked the general way, which hands the compound
/// to the product search) where `sg_of_layered` says `None`.
pub fn search_swept(
    env: &mut Env,
    held: &mut Option<Box<dyn Any>>,
    (instance, inst): (InstanceId, &Instance),
    key: &Key,
    at: Located,
    span: Span,
) -> Fallible<Option<u64>> {
    let Some(layer) = inst.layer else {
        return match swept_finite(env, held, (instance, inst), key, at, span)? {
            Some(v) => Ok(Some(v)),
            None => (env.rt.above.label_loopy)(env, instance, key, span).map(Some),
        };
    };
    within_layer(env, layer, key, span, |env| {
        swept_finite(env, held, (instance, inst), key, at, span)
    })
}

/// Values the position `key` in the layer below `pass(.., n)` of
/// `base` (`base` itself below the last pass), if it has no value
/// there yet: the pass reads it, so a table asked in order then finds
/// every option of the compound's position valued, and values it without
/// the search stack. An error other than a limit is left for the
/// compound's own search to meet (and report) where it would.
fn below_first(env: &mut Env, (base, n): (InstanceId, u32), key: &Key, span: Span) -> Fallible<()> {
    let below = match n {
        1 => base,
        _ => env.rt.layered_instance(Layer {
            base,
            kind: LayerKind::Pass(n - 1),
        }),
    };
    let state = env.rt.instance(below).memo.borrow_mut().get(key);
    if !matches!(state, State::Unknown | State::Valid) {
        return Ok(());
    }
    match search_finite(env, below, key, None, span) {
        Err(e) if is_limit(e.kind) => Err(e),
        _ => Ok(()),
    }
}

/// Errors of the limits (time, memory, states, Ctrl-C): the product
/// search would stop at them too, later.
fn is_limit(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Timeout
            | ErrorKind::OutOfMemory
            | ErrorKind::Interrupted
            | ErrorKind::TooManyStates
    )
}
