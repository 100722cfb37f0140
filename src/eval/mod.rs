//! IR -> values: compiled code, the SG search and its memo tables, built-ins.
//!
//! The modules form layers; each uses only the ones listed before it
//! (`tests/eval_layers.rs` checks that no module, at any depth, imports
//! one that imports it back). A module with children (`compile`,
//! `search`, `product`, `product_tables`) is layered inside too: its `mod.rs`
//! declares the children and re-exports, its children import siblings
//! below them, never the parent; `compile/mod.rs` and `search/mod.rs`
//! list their children's layers.
//!
//! 1. `ordinal`, `value`: values (the `Plot` data too; `plot` draws it);
//!    `gsg`, the generalised SG values of loopy games and their sums;
//!    and the checks of a value's kind (`type_error`, `expect_bool`, ...);
//!    `open_table`, the hash table under the memo and the product tables;
//!    `nim_mul`, nim multiplication.
//! 2. `ops` (operators), `builtins` (pure built-ins), `compound` (building
//!    compounds), `plot`, `memo` (memo tables of positions),
//!    `product_tables` (the product search's data, held by the runtime).
//! 3. `compile`: what is compiled once (IR -> closures, kernels, integer
//!    code) together with the machine it runs on (`compile::runtime`:
//!    `Runtime`, `Env`, and the compiled program types), since compiled
//!    code is closures over `Env` and the runtime holds the compiled games.
//!    Compiled code reaches the layers above through `compile::Above`, a
//!    table of function pointers the top fills in once (`new_runtime`):
//!    one call per query, none per option.
//! 4. `takebreak` (octal games by the dedicated engine), then `search`
//!    (the SG search of positions, which runs compiled moves and kernels;
//!    `search::engine` is the walk, the other children its fast paths),
//!    then `loopy` (the retrograde labelling of loopy games' positions
//!    with generalised SG values, and their remoteness, over the graph of
//!    positions its game's kernel lists, or the search's `enumerate` where
//!    there is none; the search reaches it through `compile::Above`).
//! 5. `query` (the game questions on game values: `sg`, `outcome`,
//!    `options`), `remoteness` (how long a finite game lasts under
//!    perfect play, and the move that plays it), then `product` (the product search of compounds:
//!    `keys`, the layout of a compound's key; `atoms`, its components and
//!    their options; `search`, the walk; `mod.rs`, the entry points).
//! 6. This module: `new_runtime` wires `compile::Above` to them.

pub mod builtins;
pub mod compile;
pub mod compound;
pub mod gsg;
pub mod loopy;
pub mod memo;
mod mex;
pub mod nim_mul;
pub mod open_table;
pub mod ops;
pub mod ordinal;
pub mod plot;
pub mod product;
pub mod product_tables;
pub mod query;
pub mod remoteness;
pub mod search;
pub mod takebreak;
pub mod value;

use compile::{Above, Limits, Runtime};

/// A runtime whose compiled code can ask the search, the product search
/// and the game questions for values.
pub fn new_runtime(limits: Limits) -> Runtime {
    Runtime::new(
        limits,
        Above {
            game_builtin: |env, b, args, span| match b {
                builtins::Builtin::Remoteness => remoteness::remoteness_of(env, &args[0], span),
                _ => query::game_builtin(env, b, args, span),
            },
            search_located: search::search_located,
            search_swept: search::search_swept,
            value_on_line: search::value_on_line,
            fill_ranked: search::fill_ranked,
            sg_of_position: search::sg_of_position,
            sg_of_compound: product::sg,
            sg_of_layered: search::sg_of_layered,
            sg_of_atoms: product::sg_of_atoms,
            label_loopy: loopy::label_position,
            specialize: compile::specialized_game,
        },
    )
}
