//! The part of a source text a diagnostic shows: the lines its labels are
//! on (and one line of context each side), each cut to a window around the
//! labels when it is long. miette then renders a few hundred bytes whatever
//! the size of the file or of its lines (a 50 MB line, or a column past
//! 65,536, which its renderer cannot handle), and line ends are `\n` in the
//! excerpt whatever they were in the file (`\r\n`, or a lone `\r`).
//!
//! The line and column numbers miette prints stay those of the original
//! text: [`Excerpt`] is a `SourceCode` that maps them back.

use std::collections::BTreeMap;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Widest part of a line shown, in bytes (a little more to end on a char).
const WINDOW: usize = 160;
/// Bytes shown before a label's start on a cut line.
const BEFORE: usize = 60;
/// A span over more lines than this is shown by its first line only.
const MAX_SPAN_LINES: usize = 12;

/// A line of the original text: byte range without its line end.
#[derive(Clone, Copy)]
struct LineRange {
    start: usize,
    end: usize,
}

/// Where the lines of the original text start, and how they end.
struct LineIndex {
    lines: Vec<LineRange>,
}

impl LineIndex {
    /// Lines end at `\n`, `\r\n` or a lone `\r`.
    fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    lines.push(LineRange { start, end: i });
                    start = i + 1;
                }
                b'\r' => {
                    lines.push(LineRange { start, end: i });
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        // A text ending in a line end has no empty line after it.
        if start < bytes.len() || lines.is_empty() {
            lines.push(LineRange {
                start,
                end: bytes.len(),
            });
        }
        LineIndex { lines }
    }

    /// The line holding byte `offset` (a line end belongs to its line).
    fn line_of(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|l| l.start <= offset)
            .saturating_sub(1)
    }
}

/// One line of the excerpt: which bytes of its original line it shows.
struct Shown {
    from: usize,
    to: usize,
    /// Where it starts in the excerpt text (after a leading `…`, if cut).
    at: usize,
}

/// The excerpt of a source for a set of spans, as a miette `SourceCode`
/// reporting the original line and column numbers.
pub struct Excerpt {
    name: String,
    text: String,
    /// Excerpt line -> (original line, byte column of its first shown
    /// byte minus the bytes of a leading `…`).
    lines: Vec<(usize, isize)>,
    shown: Vec<Shown>,
}

fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Excerpt {
    /// The excerpt of `text` showing `spans` (byte ranges into `text`).
    /// Spans over many lines are shortened to their first line; use
    /// [`Excerpt::map`] to move spans into the excerpt.
    pub fn new(name: &str, text: &str, spans: &[(usize, usize)]) -> Excerpt {
        let index = LineIndex::new(text);
        // For each line to show, the label offsets on it (to centre the cut).
        let mut wanted: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &(s, e) in spans {
            let s = s.min(text.len());
            let e = e.clamp(s, text.len());
            let (ls, le) = (index.line_of(s), index.line_of(e));
            let le = if le - ls >= MAX_SPAN_LINES { ls } else { le };
            let first = ls.saturating_sub(1);
            let last = (le + 1).min(index.lines.len() - 1);
            for l in first..=last {
                wanted.entry(l).or_default();
            }
            wanted.entry(ls).or_default().push(s);
            wanted
                .entry(le)
                .or_default()
                .push(e.min(index.lines[le].end));
        }
        let mut out = Excerpt {
            name: name.to_string(),
            text: String::new(),
            lines: Vec::new(),
            shown: Vec::new(),
        };
        for (line, offsets) in wanted {
            let LineRange { start, end } = index.lines[line];
            let (from, to) = if end - start <= WINDOW {
                (start, end)
            } else {
                let first = offsets.iter().copied().min().unwrap_or(start);
                let from = floor_char(text, first.saturating_sub(BEFORE).max(start));
                let to = ceil_char(text, (from + WINDOW).min(end));
                (from, to)
            };
            let cut_before = from > start;
            // miette counts columns in bytes; a leading `…` is 3 of them
            // (more than the bytes it may replace: the shift can be negative).
            let column = (from - start) as isize - if cut_before { 3 } else { 0 };
            if cut_before {
                out.text.push('…');
            }
            out.shown.push(Shown {
                from,
                to,
                at: out.text.len(),
            });
            out.lines.push((line, column));
            out.text.push_str(&text[from..to]);
            if to < end {
                out.text.push('…');
            }
            out.text.push('\n');
        }
        out
    }

    /// Moves a span of the original text into the excerpt (clamped to the
    /// shown part of its lines).
    pub fn map(&self, start: usize, end: usize) -> (usize, usize) {
        let point = |o: usize| -> usize {
            // The last shown line starting at or before `o`.
            let i = self
                .shown
                .partition_point(|s| s.from <= o)
                .saturating_sub(1);
            let Some(s) = self.shown.get(i) else {
                return 0;
            };
            let o = o.clamp(s.from, s.to);
            s.at + (o - s.from)
        };
        let s = point(start);
        let first_line_end = self
            .shown
            .iter()
            .find(|sh| s >= sh.at && s <= sh.at + (sh.to - sh.from))
            .map(|sh| sh.at + (sh.to - sh.from));
        let mut e = point(end).max(s);
        // A span whose end is not shown (many lines on) stops at its first line.
        if end > start && !self.shown.iter().any(|sh| sh.from <= end && end <= sh.to) {
            e = first_line_end.unwrap_or(s).max(s);
        }
        (s, e)
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        let (line, column) = self
            .lines
            .get(inner.line())
            .map(|&(l, c)| (l, (inner.column() as isize + c).max(0) as usize))
            .unwrap_or((inner.line(), inner.column()));
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            line,
            column,
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let line = format!("let x = {}+ y", "1 + ".repeat(100_000));
        let at = line.find("+ y").unwrap();
        let ex = Excerpt::new("f", &line, &[(at, at + 1)]);
        assert!(ex.text.len() < 400, "{}", ex.text.len());
        let (s, e) = ex.map(at, at + 1);
        assert_eq!(&ex.text[s..e], "+");
        assert!(ex.text.starts_with('…'));
    }

    #[test]
    fn a_cut_just_after_the_line_start_keeps_columns() {
        // The window starts 1 or 2 bytes into the line: fewer than the 3
        // bytes of the `…` put in their place.
        for skip in 0..5 {
            let line = format!("{}#{}", "x".repeat(BEFORE + skip), "y".repeat(300));
            let at = BEFORE + skip;
            let ex = Excerpt::new("f", &line, &[(at, at + 1)]);
            let (s, e) = ex.map(at, at + 1);
            assert_eq!(&ex.text[s..e], "#");
            let contents = ex.read_span(&(s, 1).into(), 0, 0).unwrap();
            assert_eq!(contents.column(), at, "skip {skip}");
        }
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        let text = "let a = 1\rlet b = 2\rlet c = oops\rlet d = 4";
        let at = text.find("oops").unwrap();
        let ex = Excerpt::new("f", text, &[(at, at + 4)]);
        assert_eq!(ex.text, "let b = 2\nlet c = oops\nlet d = 4\n");
        assert_eq!(ex.lines[1].0, 2);
    }

    #[test]
    fn a_span_over_many_lines_shows_its_first_line() {
        let text = format!("let x = [\n{}]", "1,\n".repeat(1000));
        let ex = Excerpt::new("f", &text, &[(8, text.len())]);
        assert!(ex.text.lines().count() <= 3, "{}", ex.text);
        let (s, e) = ex.map(8, text.len());
        assert_eq!(&ex.text[s..e], "[");
    }
}
