//! Turns errors (which carry spans only) into rendered miette reports with
//! the excerpt of their source text that shows their labels.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode, SourceSpan,
};

use super::excerpt::Excerpt;
use crate::session::{Failure, Sources};

/// A diagnostic (a `Diag` or a syntax error) with the excerpt of its
/// source that shows its labels, as miette wants it.
struct WithSource {
    message: String,
    code: &'static str,
    help: Option<String>,
    /// The primary label first; spans already moved into the excerpt.
    labels: Vec<LabeledSpan>,
    source: Excerpt,
}

impl WithSource {
    /// `labels`: (text, start, end) in the original source, primary first.
    fn new(
        message: String,
        code: &'static str,
        help: Option<String>,
        labels: Vec<(Option<String>, usize, usize)>,
        name: &str,
        text: &str,
    ) -> WithSource {
        let spans: Vec<(usize, usize)> = labels.iter().map(|(_, s, e)| (*s, *e)).collect();
        let source = Excerpt::new(name, text, &spans);
        let labels = labels
            .into_iter()
            .enumerate()
            .map(|(i, (label, s, e))| {
                let (s, e) = source.map(s, e);
                let span = SourceSpan::from((s, e - s));
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, span)
                } else {
                    LabeledSpan::new_with_span(label, span)
                }
            })
            .collect();
        WithSource {
            message: shorten(&message),
            code,
            help: help.map(|h| shorten(&h)),
            labels,
            source,
        }
    }
}

/// Messages quote source text and values: keep them to a screenful.
fn shorten(text: &str) -> String {
    const MAX: usize = 2000;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut cut = MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..cut], text.len())
}

impl fmt::Debug for WithSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl fmt::Display for WithSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for WithSource {}

impl Diagnostic for WithSource {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.code))
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
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
    let report = match failure {
        Failure::Syntax(e) => {
            let (name, text) = sources.get(e.span.source);
            let mut labels = vec![(
                Some(e.label.clone()).filter(|l| !l.is_empty()),
                e.span.start as usize,
                e.span.end as usize,
            )];
            labels.extend(e.notes.iter().map(|n| {
                (
                    n.label().map(String::from),
                    n.offset(),
                    n.offset() + n.len(),
                )
            }));
            WithSource::new(
                e.message.clone(),
                "grundy::syntax",
                e.help.clone(),
                labels,
                name,
                text,
            )
        }
        Failure::Error(d) => {
            let (name, text) = sources.get(d.span.source);
            let mut labels = vec![(
                Some(d.label.clone()).filter(|l| !l.is_empty()),
                d.span.start as usize,
                d.span.end as usize,
            )];
            labels.extend(
                d.notes
                    .iter()
                    .filter(|(s, _)| s.source == d.span.source)
                    .map(|(s, text)| (Some(text.clone()), s.start as usize, s.end as usize)),
            );
            WithSource::new(
                d.message.clone(),
                d.kind.code(),
                d.help.clone(),
                labels,
                name,
                text,
            )
        }
    };
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!("error: {}", shorten(&failure.to_string()));
    }
    out
}
