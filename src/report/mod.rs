//! Answers -> text and pictures: rendered diagnostics, tables as CSV or
//! JSON, heatmaps of tables as PNG and SVG. (Values and tables print
//! through their `Display` in `eval::value`.)

pub mod diagnostic;
mod excerpt;
pub mod export;
pub mod plot;

pub use diagnostic::render;
