//! Answers -> text: rendered diagnostics. (Values and tables print through
//! their `Display` in `eval::value`.)

pub mod diagnostic;

pub use diagnostic::render;
