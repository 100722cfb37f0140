//! The one error type every stage after parsing reports: a message, the
//! span it is about, a label, a help line and secondary labels. Errors carry
//! spans only; `report` attaches the source text when rendering.

use crate::syntax::Span;

/// What went wrong, as a stable code for tests and for `grundy::CODE` in output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    UnknownName,
    Arity,
    Duplicate,
    Type,
    Overflow,
    DivisionByZero,
    Index,
    WhereViolated,
    Loopy,
    TooManyStates,
    AssertFailed,
    Interrupted,
    OutOfMemory,
    Timeout,
    Invalid,
}

impl ErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::UnknownName => "grundy::unknown_name",
            ErrorKind::Arity => "grundy::arity",
            ErrorKind::Duplicate => "grundy::duplicate",
            ErrorKind::Type => "grundy::type",
            ErrorKind::Overflow => "grundy::overflow",
            ErrorKind::DivisionByZero => "grundy::division_by_zero",
            ErrorKind::Index => "grundy::index",
            ErrorKind::WhereViolated => "grundy::where",
            ErrorKind::Loopy => "grundy::loopy",
            ErrorKind::TooManyStates => "grundy::too_many_states",
            ErrorKind::AssertFailed => "grundy::assert",
            ErrorKind::Interrupted => "grundy::interrupted",
            ErrorKind::OutOfMemory => "grundy::out_of_memory",
            ErrorKind::Timeout => "grundy::timeout",
            ErrorKind::Invalid => "grundy::invalid",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Diag {
    pub kind: ErrorKind,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub help: Option<String>,
    /// Further labelled spans in the same source ("defined here").
    pub notes: Vec<(Span, String)>,
}

/// Evaluation results box their error so that `Result<Value, _>` stays small
/// on the hot path.
pub type Fallible<T> = Result<T, Box<Diag>>;

impl Diag {
    // Errors are cold: their construction stays out of the code of the
    // functions that may raise them (and off the pages a good run maps).
    #[cold]
    pub fn new(kind: ErrorKind, span: Span, message: impl Into<String>) -> Diag {
        Diag {
            kind,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    #[cold]
    pub fn label(mut self, label: impl Into<String>) -> Diag {
        self.label = label.into();
        self
    }

    #[cold]
    pub fn help(mut self, help: impl Into<String>) -> Diag {
        self.help = Some(help.into());
        self
    }

    #[cold]
    pub fn note(mut self, span: Span, text: impl Into<String>) -> Diag {
        self.notes.push((span, text.into()));
        self
    }

    #[cold]
    pub fn boxed(self) -> Box<Diag> {
        Box::new(self)
    }

    #[cold]
    pub fn err<T>(self) -> Fallible<T> {
        Err(Box::new(self))
    }
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Diag {}
