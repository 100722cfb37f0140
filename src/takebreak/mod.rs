//! A dedicated engine for take-and-break heap games given by their code
//! (`octal("0.137")`): the notation (`code`), the values of heaps in a
//! compact array (`values`), proven periods (`period`) and the value files
//! of long runs (`file`). It knows nothing of the rules language; the
//! evaluator asks it for the values of the prelude's `octal_game` positions.

pub mod code;
pub mod file;
pub mod period;
pub mod run;
pub mod values;

pub use code::{Code, CodeError};
pub use period::Periodicity;
pub use values::{Engine, Stop};
