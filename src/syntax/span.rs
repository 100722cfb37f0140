//! Byte spans into one of the session's source texts.

/// Which text a span points into: a file, or one REPL entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SourceId(pub u32);

/// A byte range `start..end` in the source `source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub source: SourceId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(source: SourceId, start: usize, end: usize) -> Span {
        Span {
            source,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (same source assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            source: self.source,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> miette::SourceSpan {
        (span.start as usize, span.len()).into()
    }
}
