//! grundy: Sprague-Grundy values of impartial games written in a rules
//! language.
//!
//! The data flow, one module per stage:
//! text -> [`syntax`] (AST with spans) -> [`ir`] (names resolved, arities
//! checked) -> [`eval`] (compiled closures, SG search, memo tables) ->
//! [`report`] (diagnostics, plots, CSV/JSON) -> [`cli`] / [`repl`].
//! [`session::Session`] runs the whole pipeline on one text.

pub mod budget;
pub mod busy;
pub mod cli;
pub mod diag;
pub mod eval;
pub mod ir;
pub mod jupyter;
pub mod repl;
pub mod report;
pub mod session;
pub mod source_file;
pub mod syntax;
pub mod takebreak;

pub use eval::compile::{Limits, Plans};
pub use session::{Failure, RunResult, Session};
