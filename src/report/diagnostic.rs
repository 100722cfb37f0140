//! Turns errors (which carry spans only) into rendered miette reports with
//! the source text attached.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use crate::diag::Diag;
use crate::session::{Failure, Sources};

/// A `Diag` with its source text, as miette wants it.
struct WithSource<'a> {
    diag: &'a Diag,
    source: NamedSource<String>,
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.diag)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diag.message)
    }
}

impl std::error::Error for WithSource<'_> {}

impl Diagnostic for WithSource<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.kind.code()))
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let main = LabeledSpan::new_primary_with_span(
            Some(self.diag.label.clone()).filter(|l| !l.is_empty()),
            self.diag.span,
        );
        let notes = self
            .diag
            .notes
            .iter()
            .filter(|(s, _)| s.source == self.diag.span.source)
            .map(|(s, text)| LabeledSpan::new_with_span(Some(text.clone()), *s));
        Some(Box::new(std::iter::once(main).chain(notes)))
    }
}

/// Renders a failure as text; `color` for a terminal.
pub fn render(failure: &Failure, sources: &Sources, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    let result = match failure {
        Failure::Syntax(e) => {
            let (name, text) = sources.get(e.span.source);
            let report = miette::Report::new(e.clone())
                .with_source_code(NamedSource::new(name, text.to_string()));
            handler.render_report(&mut out, report.as_ref())
        }
        Failure::Error(d) => {
            let (name, text) = sources.get(d.span.source);
            let w = WithSource {
                diag: d,
                source: NamedSource::new(name, text.to_string()),
            };
            handler.render_report(&mut out, &w)
        }
    };
    if result.is_err() {
        out = format!("error: {failure}");
    }
    out
}
