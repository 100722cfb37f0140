//! IR -> closures. Every expression becomes a `Code` closure over the value
//! stack, so evaluation never walks a tree of names. Moves become loops that
//! hand each option to a `Sink`, writing the option's position straight into
//! a reusable key (no allocation per option on the common paths). Games
//! whose moves are integer code of the position also get a kernel
//! (`kernel.rs`), a compact form the SG search runs directly.
//!
//! This module only declares its children and re-exports what the rest of
//! `eval` uses; no child imports it. The children form layers, each using
//! only ones listed before it (`tests/eval_layers.rs` checks it):
//!
//! 1. `compiler`: the `Compiler` struct the other modules' `impl Compiler`
//!    blocks extend.
//! 2. `int_tree` (integer and boolean code lowered once from the IR, with
//!    small functions inlined), then `int_code` (its closures on a frame
//!    of locals), then
//!    `constants` (static arguments and top-level constants put in IR),
//!    `guaranteed` (conjuncts of a result's `where` a move guarantees),
//!    `range_bounds` (a guard's leading comparisons of a binding put in
//!    its range), `guard_bounds` (a guard's leading conjuncts as loop
//!    bounds), `expand` (move results with their function calls expanded),
//!    `batch_code`, `frame` (`KeyFrame`: a position as integers),
//!    `refusal` (why a move or game has no kernel form), `item_sum`
//!    (list games whose moves never raise the sum of the items),
//!    `rank_shift` (their moves as changes to the list's items), `key_tree`
//!    (set and sequence code of keyed kernels on the integer tree's
//!    leaves), `key_kernel` and
//!    `kernel` (a plan per move: its kernel form or its refusal), `rank_fill`
//!    (whether a ranked table is filled without a search), `symmetry`
//!    (arguments a game may swap), `where_line` (a `where` read along a
//!    line of positions as an interval).
//! 3. `runtime`: the machine compiled code runs on (`Runtime`, `Env`)
//!    together with the program it holds (`Code`, `CompiledGame`, ...)
//!    and the `Sink` moves feed: closures take `Env`, and the runtime
//!    holds the compiled games, so these are one module. What compiled
//!    code asks of the search and the game questions above `compile`
//!    goes through `Above` (function pointers in the runtime).
//! 4. `where_check` (whether a key is a position: its game's `where`),
//!    then `fold`, `clauses` (comprehension clauses as nested loops),
//!    `filter` (a comprehension's last `for` over a list, its items
//!    tested without binding them), `moves`
//!    (move rules -> loops feeding a `Sink`), `calls` (calls and
//!    positions at run time), `line_sweep` (sweeps a line of positions),
//!    `game_plan` (queries of positions, sums and compounds answered from
//!    their keys, and a comprehension's body as an SG value),
//!    `query_line` (such a body's innermost loop run line by line),
//!    `swept_end` (the far end of a swept coordinate bound by outer
//!    loops), `sweep`
//!    (comprehensions swept along a line), `explain`, `inline`.
//! 5. `expr`: expressions -> `Code`, and the entry points compiling a
//!    function and a game; then `specialize` (a game compiled for one
//!    instance's static arguments, reached from the runtime through
//!    `Above::specialize`).

mod batch_code;
mod calls;
mod clauses;
mod compiler;
mod constants;
mod expand;
mod explain;
mod expr;
mod filter;
mod fold;
mod frame;
mod game_plan;
mod guaranteed;
mod guard_bounds;
mod inline;
mod int_code;
mod int_tree;
mod item_sum;
mod kernel;
mod key_kernel;
mod key_tree;
mod line_sweep;
mod linear;
mod moves;
mod query_line;
mod range_bounds;
mod rank_fill;
mod rank_shift;
mod refusal;
pub mod runtime;
mod specialize;
mod sweep;
mod swept_end;
mod symmetry;
mod where_check;
mod where_line;

pub(crate) use batch_code::BatchCode;
pub use calls::*;
pub use compiler::Compiler;
pub(crate) use expand::MoveResult;
pub use explain::show_spans;
pub(crate) use frame::{int_frame, KeyFrame, KERNEL_FRAME};
pub(crate) use guard_bounds::Narrowed;
pub(crate) use int_code::{BoolCode, Locals, Operand, Seq};
pub(crate) use kernel::{
    Bend, Kernel, KernelMove, Limit, LoopMove, MovePlan, Quadratic, RunMove, SingleMove, SumRunMove,
};
pub(crate) use key_kernel::RunEnd;
pub(crate) use key_kernel::{
    ArgCode, BitsRun, KeyLoopMove, KeyRun, KeySource, OptionKey, RunArg, Settings, SCALAR_ARGS,
};
pub use line_sweep::{sweep_line, Affine, LineSink, SweepLine};
pub(crate) use moves::affine_fits;
pub(crate) use rank_fill::FillOrder;
pub(crate) use rank_shift::{RankShift, Steps};
pub use runtime::{
    eval_all, Above, AffineRun, Code, CompiledBody, CompiledFn, CompiledGame, CompiledMove, Env,
    Instance, Layer, LayerKind, Limits, MoveCode, OnLine, Plans, Progress, Runtime, Sink, Target,
    MOST_LAYERED_PASSES,
};
pub use specialize::specialized_game;
pub(crate) use where_check::is_keyed_position;
pub use where_check::satisfies_where;
