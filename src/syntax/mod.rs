//! Text -> AST: the pest grammar, the tree it yields, and syntax errors.

pub mod ast;
pub mod error;
pub mod lexer;
pub mod parser;
pub mod span;

pub use error::SyntaxError;
pub use parser::parse;
pub use span::{SourceId, Span};
