//! The SG search: iterative depth-first, memoised, with loop detection and a
//! state limit. Sums never reach it as products: their value is the xor of
//! their components' values (the Sprague-Grundy theorem).
//!
//! This module only declares its children and re-exports the search; no
//! child imports it. The children form layers, each using only ones
//! listed before it (`tests/eval_layers.rs` checks it):
//!
//! 1. `sum_scan` (take-and-break runs read from the memo's dense window;
//!    single runs are `memo::scan`'s), `sorted_parts` (where a
//!    sorted list's items lie in the window), `run_key` (the buffers of
//!    keyed runs), `marked` (the values a position's options reported),
//!    `pick` (the result a kernel move's option takes), `settings` (the
//!    values a binding takes: run ranges, the walk of a keyed binding's
//!    settings), then `key_walk` (the lean search of games whose moves
//!    are all keyed kernel loops).
//! 2. `engine`: the walk and `SgSink`, which collects options' values
//!    (they call each other, so they are one module).
//! 3. `kernel`, `key_kernel`, `bend`, `quadratic`, `sorted_run`,
//!    `rank_shift` (keyed runs of lists kept by rank, read from the
//!    position's own items),
//!    `key_run`: the fast paths of `SgSink` (`impl SgSink` blocks) for
//!    kernels, keyed kernels, bent and quadratic runs and keyed runs;
//!    `layered`, pass and misère compounds of one position searched as
//!    layers of its game; `swept_line`, a swept line's positions valued
//!    on their kernel with the line's set-up held.
//! 4. `rank_fill`: tables of lists kept by rank filled a level at a time,
//!    with no search.

mod bend;
mod engine;
mod kernel;
mod key_kernel;
mod key_run;
mod key_walk;
mod layered;
mod marked;
mod pick;
mod quadratic;
mod rank_fill;
mod rank_shift;
mod run_key;
mod settings;
mod sorted_parts;
mod sorted_run;
mod sum_scan;
mod swept_line;

pub use engine::{
    enumerate, loop_diag, search_located, sg_of_game, sg_of_position, MoveSink, SearchScratch,
};
pub use layered::{search_swept, sg_of_layered};
pub(crate) use pick::{pick, Pick};
pub use rank_fill::fill_ranked;
pub(crate) use settings::run_range;
pub use swept_line::value_on_line;
