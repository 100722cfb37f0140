//! AST -> IR: name resolution, arity checks, constant folding.

#[allow(clippy::module_inception)]
pub mod ir;
pub mod lower;
pub mod names;

pub use lower::{lower_program, Lowered};
