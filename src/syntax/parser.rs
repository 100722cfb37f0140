//! Text -> AST.
//!
//! The grammar is `grammar/rules.pest`; its head summarises it. In short:
//! a program is a list of statements (`game`, `fn`, `let`, `assert`,
//! `print`, or a bare expression) with no separators; newlines are
//! ordinary whitespace. Expressions, loosest to tightest: `if c then a else
//! b` (a primary whose branches extend as far right as possible), `or`,
//! `and`, `not` (prefix; only at the start of an operand of `or`/`and`),
//! comparisons and `in`/`not in` (chains `a < b <= c` mean `(a < b) and
//! (b <= c)`), ranges `a..b`/`a..=b` (non-associative), `|`, `^`, `&`,
//! `<<`/`>>`, `+`/`-`, `*`/`/`/`%`, unary `-`, postfix call/index/field,
//! primaries (`ω^k`/`w^k` written without spaces is one primary). A
//! comprehension body with `for` clauses stands in `[...]`, `{...}`, or
//! alone as the argument of a call (a generator: `all(c for x in R)`).
//!
//! pest recognises the text, with each expression as a flat sequence of
//! operands and operators; this module walks the pair tree, resolves
//! precedence by precedence climbing, builds `ast` nodes with byte spans,
//! and reports what pest cannot: integers that do not fit in 64 bits,
//! misplaced generators, chained ranges, nesting deeper than [`MAX_DEPTH`].
//! pest's own failures are turned into a [`SyntaxError`] by
//! `error::from_pest`.

use pest::iterators::Pair;
use pest::Parser;

use super::ast::*;
use super::error::{self, SyntaxError};
use super::span::{SourceId, Span};

/// The pest parser; `Rule` is public so that tests (e.g. the logos/pest
/// token cross-check) can run the raw grammar.
#[derive(pest_derive::Parser)]
#[grammar = "grammar/rules.pest"]
pub struct GrammarParser;

/// Parses a whole rule file (or one REPL entry). A large text is parsed a
/// group of statements at a time, so that pest's pair queue (some 50 bytes
/// per byte of input) stays proportional to a group, not to the file.
pub fn parse(src: &str, source: SourceId) -> Result<Program, SyntaxError> {
    let starts = scan_statements(src, source)?;
    let mut stmts = Vec::new();
    let mut from = 0;
    for &at in &starts {
        if at - from >= CHUNK {
            stmts.extend(parse_chunk(&src[from..at], from, source)?);
            from = at;
        }
    }
    stmts.extend(parse_chunk(&src[from..], from, source)?);
    Ok(Program { stmts })
}

/// Smallest group of statements parsed at once in a large text.
const CHUNK: usize = 256 << 10;

/// Bytes pest and the builder need per byte of one group, about.
const PARSE_BYTES_PER_BYTE: usize = 120;

/// Parses `text`, which starts at byte `offset` of the source.
fn parse_chunk(text: &str, offset: usize, source: SourceId) -> Result<Vec<Stmt>, SyntaxError> {
    let whole = Span::new(source, offset, offset + text.len());
    if let Err(d) = crate::budget::check_grow(text.len() * PARSE_BYTES_PER_BYTE, whole) {
        // The first statement of the group: the group alone, or with what
        // earlier groups hold, does not fit.
        return Err(SyntaxError::new(
            "the text is too large to parse within the memory limit",
            Span::new(source, offset, offset + text.len().min(1)),
            "parsing stopped at this statement",
        )
        .with_help(d.message));
    }
    let mut pairs = GrammarParser::parse(Rule::program, text)
        .map_err(|e| error::from_pest(text, source, e).shifted(offset))?;
    let program = pairs.next().expect("pest yields the program pair");
    let builder = Builder {
        source,
        offset,
        depth: std::cell::Cell::new(0),
        weight: std::cell::Cell::new(0),
    };
    program
        .into_inner()
        .filter(|p| p.as_rule() != Rule::EOI)
        .map(|p| builder.stmt(p))
        .collect()
}

type Res<T> = Result<T, SyntaxError>;

/// An `item`: an expression, possibly followed by comprehension clauses.
struct Item {
    expr: Expr,
    clauses: Option<Vec<Clause>>,
    span: Span,
}

/// Punctuation and keywords: present in the pair tree for error reporting,
/// skipped when building.
fn is_token(rule: Rule) -> bool {
    use Rule::*;
    matches!(
        rule,
        comma
            | call_open
            | index_open
            | lparen
            | rparen
            | lbracket
            | rbracket
            | lbrace
            | rbrace
            | assign
            | arrow
            | kw_game
            | kw_fn
            | kw_move
            | kw_where
            | kw_if
            | kw_then
            | kw_else
            | kw_for
            | kw_in
            | kw_let
            | kw_assert
            | kw_print
    )
}

/// The children of `p` that carry meaning.
fn parts(p: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    p.into_inner().filter(|c| !is_token(c.as_rule()))
}

/// The single meaningful child of `p`.
fn only(p: Pair<'_, Rule>) -> Pair<'_, Rule> {
    parts(p).next().expect("grammar guarantees a child")
}

fn count_commas(p: &Pair<'_, Rule>) -> usize {
    p.clone()
        .into_inner()
        .filter(|c| c.as_rule() == Rule::comma)
        .count()
}

fn binary_op(text: &str) -> BinaryOp {
    use BinaryOp::*;
    match text {
        "or" => Or,
        "and" => And,
        "==" => Eq,
        "!=" => Ne,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "in" => In,
        "|" => BitOr,
        "^" => Xor,
        "&" => BitAnd,
        "<<" => Shl,
        ">>" => Shr,
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Mod,
        // `not in`, with any whitespace or comments between the words.
        t if t.starts_with("not") => NotIn,
        t => unreachable!("operator {t:?}"),
    }
}

fn binary(op: BinaryOp, op_span: Span, lhs: Expr, rhs: Expr) -> Expr {
    Expr {
        span: lhs.span.to(rhs.span),
        kind: ExprKind::Binary {
            op,
            op_span,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
    }
}

/// How deeply expressions may nest (brackets, `if` branches). pest and the
/// builder recurse on nesting, a few KiB of stack per level; past this the
/// text is refused rather than risking the stack (tests run on 2 MiB
/// threads, and the `deep_nesting` test checks the limit fits there).
pub const MAX_DEPTH: usize = 100;

/// How many operators (binary, prefix, postfix) may nest in one expression,
/// counted over the open levels: a chain `1 + 1 + ... + 1` is a tree as
/// deep as it is long, and lowering, compiling and evaluating recurse on
/// that depth. Past this the text is refused with a located error.
pub const MAX_OPERATORS: usize = 10_000;

/// Brackets deeper than the expressions may nest are refused before pest
/// runs (pest recurses on them, a few KiB of stack each).
const MAX_BRACKETS: usize = MAX_DEPTH + 10;

/// Where the top-level statements starting a line begin (a statement
/// keyword at column 0, outside brackets), to cut a large text at; refuses
/// brackets nested past [`MAX_BRACKETS`] (outside strings and comments), at
/// the first bracket too deep, before pest recurses on them.
fn scan_statements(src: &str, source: SourceId) -> Result<Vec<usize>, SyntaxError> {
    const KEYWORDS: [&[u8]; 5] = [b"game", b"fn", b"let", b"assert", b"print"];
    let bytes = src.as_bytes();
    let mut starts = Vec::new();
    let (mut depth, mut i) = (0usize, 0);
    let mut line_start = true;
    while i < bytes.len() {
        if line_start && depth == 0 {
            let rest = &bytes[i..];
            let starts_statement = KEYWORDS.iter().any(|k| {
                rest.starts_with(k)
                    && !rest
                        .get(k.len())
                        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
            });
            if starts_statement && i > 0 && !(rest.starts_with(b"let") && continues(&bytes[..i])) {
                starts.push(i);
            }
        }
        line_start = false;
        match bytes[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Err(too_deep(Span::new(source, i, i + 1)));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' | b'\r' => line_start = true,
            b'#' => {
                while i + 1 < bytes.len() && !matches!(bytes[i + 1], b'\n' | b'\r') {
                    i += 1;
                }
            }
            b'"' => {
                while i + 1 < bytes.len() && !matches!(bytes[i + 1], b'"' | b'\n' | b'\r') {
                    i += if bytes[i + 1] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(starts)
}

/// Whether the text before a line starting with `let` leaves an operand
/// open (`=`, an operator, `then`, `print` ...), so that the `let` starts a
/// `let ... in` expression, not a statement.
fn continues(before: &[u8]) -> bool {
    let text = before.trim_ascii_end();
    let Some(&last) = text.last() else {
        return false;
    };
    if b"=,([{+-*/%|^&<>.".contains(&last) {
        return true;
    }
    let word_start = text
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .map_or(0, |i| i + 1);
    let word = &text[word_start..];
    [
        &b"then"[..],
        b"else",
        b"in",
        b"and",
        b"or",
        b"not",
        b"if",
        b"where",
        b"print",
        b"assert",
    ]
    .contains(&word)
}

struct Builder {
    source: SourceId,
    /// Where the text being built starts in the source.
    offset: usize,
    depth: std::cell::Cell<usize>,
    /// Operators nesting over the open levels (see [`MAX_OPERATORS`]).
    weight: std::cell::Cell<usize>,
}

impl Builder {
    /// The text of `p` without the whitespace pest skipped after its last
    /// token (a rule ending in a failed `x?` or `x*` keeps that whitespace).
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        Span::new(
            self.source,
            self.offset + p.as_span().start(),
            self.offset + end_of(p),
        )
    }

    fn ident(&self, p: Pair<'_, Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }

    fn idents(&self, p: Pair<'_, Rule>) -> Vec<Ident> {
        parts(p).map(|c| self.ident(c)).collect()
    }

    // ------------------------------------------------------------ statements

    fn stmt(&self, p: Pair<'_, Rule>) -> Res<Stmt> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::game_def => StmtKind::Game(self.game_def(p)?),
            Rule::fn_def => {
                let mut it = parts(p).peekable();
                let name = self.ident(it.next().expect("fn name"));
                let static_params = match it.next_if(|c| c.as_rule() == Rule::static_params) {
                    Some(c) => self.idents(c),
                    None => Vec::new(),
                };
                let params = self.idents(it.next().expect("fn params"));
                let body = self.plain_item(it.next().expect("fn body"))?;
                StmtKind::Fn(FnDef {
                    name,
                    static_params,
                    params,
                    body,
                })
            }
            Rule::let_stmt => {
                let mut it = parts(p);
                let name = self.ident(it.next().expect("let name"));
                let value = self.plain_item(it.next().expect("let value"))?;
                StmtKind::Let { name, value }
            }
            Rule::assert_stmt => StmtKind::Assert(self.plain_item(only(p))?),
            Rule::print_stmt => {
                StmtKind::Print(parts(p).map(|c| self.plain_item(c)).collect::<Res<_>>()?)
            }
            Rule::expr_stmt => StmtKind::Expr(self.plain_item(only(p))?),
            r => unreachable!("statement rule {r:?}"),
        };
        Ok(Stmt { kind, span })
    }

    fn game_def(&self, p: Pair<'_, Rule>) -> Res<GameDef> {
        let mut it = parts(p).peekable();
        let name = self.ident(it.next().expect("game name"));
        let static_params = match it.next_if(|c| c.as_rule() == Rule::static_params) {
            Some(c) => self.idents(c),
            None => Vec::new(),
        };
        let params = self.idents(it.next().expect("game params"));
        let where_clause = match it.next_if(|c| c.as_rule() == Rule::where_clause) {
            Some(c) => Some(self.expr(only(c))?),
            None => None,
        };
        let body = it.next().expect("game body");
        let body = match body.as_rule() {
            Rule::move_block => {
                GameBody::Moves(parts(body).map(|m| self.move_def(m)).collect::<Res<_>>()?)
            }
            _ => GameBody::Alias(self.plain_item(only(body))?),
        };
        Ok(GameDef {
            name,
            static_params,
            params,
            where_clause,
            body,
        })
    }

    fn move_def(&self, p: Pair<'_, Rule>) -> Res<MoveDef> {
        let span = self.span(&p);
        let mut it = parts(p).peekable();
        let label = self.ident(it.next().expect("move label"));
        let bindings = match it.next_if(|c| c.as_rule() == Rule::move_bindings) {
            Some(c) => parts(c).map(|b| self.binding(b)).collect::<Res<_>>()?,
            None => Vec::new(),
        };
        let guard = match it.next_if(|c| c.as_rule() == Rule::guard) {
            Some(c) => Some(self.expr(only(c))?),
            None => None,
        };
        let result = self.plain_item(it.next().expect("move result"))?;
        Ok(MoveDef {
            label,
            bindings,
            guard,
            result,
            span,
        })
    }

    fn binding(&self, p: Pair<'_, Rule>) -> Res<Binding> {
        let span = self.span(&p);
        let mut it = parts(p);
        let pattern = self.pattern(it.next().expect("pattern"));
        let iterable = self.expr(it.next().expect("iterable"))?;
        Ok(Binding {
            pattern,
            iterable,
            span,
        })
    }

    fn let_bind(&self, p: Pair<'_, Rule>) -> Res<LetBinding> {
        let span = self.span(&p);
        let mut it = parts(p);
        let pattern = self.pattern(it.next().expect("pattern"));
        let value = self.expr(it.next().expect("value"))?;
        Ok(LetBinding {
            pattern,
            value,
            span,
        })
    }

    fn pattern(&self, p: Pair<'_, Rule>) -> Pattern {
        let inner = only(p);
        match inner.as_rule() {
            Rule::bind_name => Pattern::Name(self.ident(inner)),
            _ => {
                let span = self.span(&inner);
                let commas = count_commas(&inner);
                let mut pats: Vec<Pattern> = parts(inner).map(|c| self.pattern(c)).collect();
                if pats.len() == 1 && commas == 0 {
                    pats.pop().expect("one pattern")
                } else {
                    Pattern::Tuple(pats, span)
                }
            }
        }
    }

    // ----------------------------------------------------- items, generators

    fn item(&self, p: Pair<'_, Rule>) -> Res<Item> {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let expr = self.expr(it.next().expect("item expression"))?;
        let clauses = it.next().map(|c| self.clauses(c)).transpose()?;
        Ok(Item {
            expr,
            clauses,
            span,
        })
    }

    fn clauses(&self, p: Pair<'_, Rule>) -> Res<Vec<Clause>> {
        let mut out = Vec::new();
        for c in parts(p) {
            match c.as_rule() {
                Rule::comp_for => {
                    for b in parts(c) {
                        out.push(Clause::For(self.binding(b)?));
                    }
                }
                _ => out.push(Clause::If(self.expr(only(c))?)),
            }
        }
        Ok(out)
    }

    /// An item where a bare generator is not allowed.
    fn plain_item(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let item = self.item(p)?;
        match item.clauses {
            None => Ok(item.expr),
            Some(_) => Err(misplaced_generator(item.span)),
        }
    }

    fn items(&self, p: Pair<'_, Rule>) -> Res<Vec<Item>> {
        // A loop, not `collect`: this is on the recursion path of nested
        // brackets, and iterator adapters cost stack per level.
        let mut out = Vec::new();
        for c in parts(p) {
            out.push(self.item(c)?);
        }
        Ok(out)
    }

    fn comprehension(kind: CompKind, body: Expr, clauses: Vec<Clause>, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Comprehension(Box::new(Comprehension {
                kind,
                body,
                clauses,
            })),
            span,
        }
    }

    /// `[...]` or `{...}`: elements, or one body with clauses.
    fn collection(&self, p: Pair<'_, Rule>, kind: CompKind) -> Res<Expr> {
        let span = self.span(&p);
        let mut items = self.items(p)?;
        if items.len() == 1 && items[0].clauses.is_some() {
            let item = items.pop().expect("one item");
            let clauses = item.clauses.expect("checked");
            return Ok(Self::comprehension(kind, item.expr, clauses, span));
        }
        if let Some(bad) = items.iter().find(|i| i.clauses.is_some()) {
            let (open, close) = if kind == CompKind::Set {
                ("{", "}")
            } else {
                ("[", "]")
            };
            return Err(SyntaxError::new(
                format!("a comprehension must be alone in its `{open}...{close}`"),
                bad.span,
                "other elements stand beside it",
            )
            .with_help(format!(
                "write `{open}e for x in R{close}` with nothing else inside; join lists with `+` if needed"
            )));
        }
        let elems = items.into_iter().map(|i| i.expr).collect();
        let kind = if kind == CompKind::Set {
            ExprKind::Set(elems)
        } else {
            ExprKind::List(elems)
        };
        Ok(Expr { kind, span })
    }

    fn call_args(&self, p: Pair<'_, Rule>) -> Res<Vec<Expr>> {
        let mut items = self.items(p)?;
        if items.len() == 1 && items[0].clauses.is_some() {
            let item = items.pop().expect("one item");
            let clauses = item.clauses.expect("checked");
            return Ok(vec![Self::comprehension(
                CompKind::Generator,
                item.expr,
                clauses,
                item.span,
            )]);
        }
        if let Some(bad) = items.iter().find(|i| i.clauses.is_some()) {
            return Err(SyntaxError::new(
                "a generator `... for ...` must be the only argument of a call",
                bad.span,
                "not the only argument",
            )
            .with_help(
                "pass the generator alone, as in `all(c for x in R)`, or make it a list: `[e for x in R]`",
            ));
        }
        Ok(items.into_iter().map(|i| i.expr).collect())
    }

    /// `( ... )`: unit, parenthesised expression, or tuple.
    fn paren(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let span = self.span(&p);
        let commas = count_commas(&p);
        let items = self.items(p)?;
        if let Some(bad) = items.iter().find(|i| i.clauses.is_some()) {
            return Err(misplaced_generator(bad.span));
        }
        let mut elems: Vec<Expr> = items.into_iter().map(|i| i.expr).collect();
        if elems.len() == 1 && commas == 0 {
            let inner = elems.pop().expect("one element");
            return Ok(Expr {
                kind: inner.kind,
                span,
            });
        }
        Ok(Expr {
            kind: ExprKind::Tuple(elems),
            span,
        })
    }

    // ----------------------------------------------------------- expressions

    fn expr(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        match p.as_rule() {
            Rule::expr | Rule::iter_expr | Rule::slice_bound => {
                let depth = self.depth.get() + 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(self.span(&p)));
                }
                self.depth.set(depth);
                let toks: Vec<_> = p.into_inner().collect();
                // Operands and operators alternate (prefix operators aside).
                let before = self.add_operators(toks.len() / 2, &toks, 2)?;
                let result = Climber {
                    builder: self,
                    toks,
                    pos: 0,
                }
                .climb(0);
                self.weight.set(before);
                self.depth.set(depth - 1);
                result
            }
            Rule::postfix => self.postfix(p),
            _ => self.primary(p),
        }
    }

    /// Opens `n` more operators, found every `stride` tokens of `toks`;
    /// refuses past [`MAX_OPERATORS`], pointing at the token where the
    /// limit is crossed. Returns the weight to restore afterwards.
    fn add_operators(&self, n: usize, toks: &[Pair<'_, Rule>], stride: usize) -> Res<usize> {
        let before = self.weight.get();
        if before + n > MAX_OPERATORS {
            let at = (stride * MAX_OPERATORS.saturating_sub(before) + 1).min(toks.len() - 1);
            return Err(SyntaxError::new(
                "expression too long",
                self.span(&toks[at]),
                format!("more than {MAX_OPERATORS} operators nest here"),
            )
            .with_help("split it with `let` or `fn` definitions, or sum a list: `sum([...])`"));
        }
        self.weight.set(before + n);
        Ok(before)
    }

    fn postfix(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let toks: Vec<_> = p.clone().into_inner().collect();
        let before = self.add_operators(toks.len().saturating_sub(1), &toks, 1)?;
        let result = self.postfix_chain(p);
        self.weight.set(before);
        result
    }

    fn postfix_chain(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let mut it = p.into_inner();
        let mut expr = self.expr(it.next().expect("primary"))?;
        for op in it {
            let span = expr.span.to(self.span(&op));
            let target = Box::new(expr);
            let kind = match op.as_rule() {
                Rule::call => ExprKind::Call {
                    callee: target,
                    args: self.call_args(op)?,
                },
                Rule::index => self.index(target, op)?,
                Rule::field => ExprKind::Field {
                    target,
                    name: self.ident(only(op)),
                },
                r => unreachable!("postfix {r:?}"),
            };
            expr = Expr { kind, span };
        }
        Ok(expr)
    }

    /// `[i]`, `[F, G]` (static arguments) or a slice after `target`.
    fn index(&self, target: Box<Expr>, op: Pair<'_, Rule>) -> Res<ExprKind> {
        let mut inner = parts(op).peekable();
        if let Some(from_start) = inner.next_if(|c| c.as_rule() == Rule::slice_from_start) {
            let mut it = from_start.into_inner();
            let range = it.next().expect("a range operator");
            let end = it.next().map(|b| self.expr(b)).transpose()?;
            return self.slice(target, None, range, end);
        }
        let mut indices = Vec::new();
        for c in inner {
            if c.as_rule() == Rule::slice_to_end {
                let start = indices.pop();
                let range = c.into_inner().next().expect("a range operator");
                return self.slice(target, start, range, None);
            }
            indices.push(self.expr(c)?);
        }
        // `xs[a..b]`: an index by a range is a slice.
        if let [Expr {
            kind: ExprKind::Range { .. },
            ..
        }] = indices.as_slice()
        {
            let Some(Expr {
                kind:
                    ExprKind::Range {
                        start,
                        end,
                        inclusive,
                    },
                ..
            }) = indices.pop()
            else {
                unreachable!("matched above")
            };
            return Ok(ExprKind::Slice {
                target,
                start: Some(start),
                end: Some(end),
                inclusive,
            });
        }
        Ok(ExprKind::Index { target, indices })
    }

    /// A slice with an open end: `..=` needs the end it includes.
    fn slice(
        &self,
        target: Box<Expr>,
        start: Option<Expr>,
        range: Pair<'_, Rule>,
        end: Option<Expr>,
    ) -> Res<ExprKind> {
        let inclusive = range.as_str() == "..=";
        if inclusive && end.is_none() {
            return Err(SyntaxError::new(
                "`..=` in a slice needs the last index",
                self.span(&range),
                "no end after `..=`",
            )
            .with_help("write `xs[a..=b]`, or `xs[a..]` to run to the end"));
        }
        Ok(ExprKind::Slice {
            target,
            start: start.map(Box::new),
            end: end.map(Box::new),
            inclusive,
        })
    }

    fn primary(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::let_expr => {
                let mut bindings = Vec::new();
                let mut body = None;
                for c in parts(p) {
                    match c.as_rule() {
                        Rule::let_bind => bindings.push(self.let_bind(c)?),
                        _ => body = Some(Box::new(self.expr(c)?)),
                    }
                }
                ExprKind::Let {
                    bindings,
                    body: body.expect("a let expression has a body"),
                }
            }
            Rule::if_expr => {
                let mut it = parts(p);
                let mut next = || self.expr(it.next().expect("if part")).map(Box::new);
                ExprKind::If {
                    cond: next()?,
                    then: next()?,
                    otherwise: next()?,
                }
            }
            Rule::int => ExprKind::Int(parse_int(p.as_str(), span)?),
            Rule::bool => ExprKind::Bool(p.as_str() == "true"),
            Rule::string => ExprKind::Str(unescape(p.as_str())),
            Rule::name => ExprKind::Name(self.ident(p)),
            Rule::paren => return self.paren(p),
            Rule::list => return self.collection(p, CompKind::List),
            Rule::set => return self.collection(p, CompKind::Set),
            Rule::omega_pow => {
                let text = p.as_str();
                let caret = text.find('^').expect("omega_pow has a caret");
                let start = span.start as usize;
                let base_span = Span::new(self.source, start, start + caret);
                let exp_span = Span::new(self.source, start + caret + 1, span.end as usize);
                ExprKind::OmegaPow {
                    base: Ident {
                        name: text[..caret].to_string(),
                        span: base_span,
                    },
                    exponent: Box::new(Expr {
                        kind: ExprKind::Int(parse_int(&text[caret + 1..], exp_span)?),
                        span: exp_span,
                    }),
                }
            }
            r => unreachable!("primary {r:?}"),
        };
        Ok(Expr { kind, span })
    }
}

/// Binding strength of a binary operator (higher binds tighter).
fn precedence(rule: Rule) -> u8 {
    match rule {
        Rule::or_op => 1,
        Rule::and_op => 2,
        // `not` (prefix) sits at 3: its operand is everything from 4 up.
        Rule::cmp_op => 4,
        Rule::range_op => 5,
        Rule::bor_op => 6,
        Rule::xor_op => 7,
        Rule::band_op => 8,
        Rule::shift_op => 9,
        Rule::add_op => 10,
        Rule::mul_op => 11,
        r => unreachable!("not a binary operator: {r:?}"),
    }
}
const NOT_OPERAND: u8 = 4;
const CMP_OPERAND: u8 = 5;
const RANGE_OPERAND: u8 = 6;

/// Precedence climbing over the flat operand/operator sequence of an
/// `expr` (or `iter_expr`) pair. Recursion grows with the number of
/// precedence levels, not with the length of the input.
struct Climber<'b, 'i> {
    builder: &'b Builder,
    toks: Vec<Pair<'i, Rule>>,
    pos: usize,
}

impl<'i> Climber<'_, 'i> {
    fn peek(&self) -> Option<Rule> {
        self.toks.get(self.pos).map(|t| t.as_rule())
    }

    fn next(&mut self) -> Pair<'i, Rule> {
        self.pos += 1;
        self.toks[self.pos - 1].clone()
    }

    /// Operators binding at least as tight as `min`, left-associative,
    /// except chained comparisons and non-associative ranges.
    fn climb(&mut self, min: u8) -> Res<Expr> {
        let b = self.builder;
        let mut lhs = self.unary()?;
        while let Some(rule) = self.peek() {
            let prec = precedence(rule);
            if prec < min {
                break;
            }
            let op = self.next();
            let op_span = b.span(&op);
            lhs = match rule {
                Rule::cmp_op => {
                    let rhs = self.climb(CMP_OPERAND)?;
                    let mut acc = binary(binary_op(op.as_str()), op_span, lhs, rhs);
                    // `a < b <= c`: (a < b) and (b <= c); the `and` gets the
                    // span of the operator that continues the chain.
                    while self.peek() == Some(Rule::cmp_op) {
                        let op = self.next();
                        let op_span = b.span(&op);
                        let middle = match &acc.kind {
                            ExprKind::Binary {
                                op: BinaryOp::And,
                                rhs,
                                ..
                            } => match &rhs.kind {
                                ExprKind::Binary { rhs, .. } => (**rhs).clone(),
                                _ => unreachable!("chain link is a comparison"),
                            },
                            ExprKind::Binary { rhs, .. } => (**rhs).clone(),
                            _ => unreachable!("chain is a comparison"),
                        };
                        let rhs = self.climb(CMP_OPERAND)?;
                        let link = binary(binary_op(op.as_str()), op_span, middle, rhs);
                        acc = binary(BinaryOp::And, op_span, acc, link);
                    }
                    acc
                }
                Rule::range_op => {
                    let end = self.climb(RANGE_OPERAND)?;
                    if self.peek() == Some(Rule::range_op) {
                        let again = self.next();
                        return Err(SyntaxError::new(
                            format!("a range cannot be followed by `{}`", again.as_str()),
                            b.span(&again),
                            "ranges do not chain",
                        )
                        .with_help("a range is `a..b` or `a..=b`; add parentheses if a bound is itself a range"));
                    }
                    Expr {
                        span: lhs.span.to(end.span),
                        kind: ExprKind::Range {
                            start: Box::new(lhs),
                            end: Box::new(end),
                            inclusive: op.as_str() == "..=",
                        },
                    }
                }
                _ => {
                    let rhs = self.climb(prec + 1)?;
                    binary(binary_op(op.as_str()), op_span, lhs, rhs)
                }
            };
        }
        Ok(lhs)
    }

    /// `not`s (whose operand reaches down to comparisons), then `-`s, then
    /// a postfix operand. Built iteratively: `- - - x` does not recurse.
    fn unary(&mut self) -> Res<Expr> {
        let b = self.builder;
        let mut nots = Vec::new();
        while self.peek() == Some(Rule::not_op) {
            nots.push(b.span(&self.next()));
        }
        let mut expr = if nots.is_empty() {
            self.negated()?
        } else {
            self.climb(NOT_OPERAND)?
        };
        for not in nots.into_iter().rev() {
            expr = Expr {
                span: not.to(expr.span),
                kind: ExprKind::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(expr),
                },
            };
        }
        Ok(expr)
    }

    fn negated(&mut self) -> Res<Expr> {
        let b = self.builder;
        let mut negs = Vec::new();
        while self.peek() == Some(Rule::neg_op) {
            negs.push(b.span(&self.next()));
        }
        let operand = self.next();
        // `-9223372036854775808` is i64::MIN although its digits overflow.
        let mut expr = match (negs.last(), bare_int(&operand)) {
            (Some(&neg), Some(digits)) if digits.parse::<i128>() == Ok(1i128 << 63) => {
                negs.pop();
                Expr {
                    kind: ExprKind::Int(i64::MIN),
                    span: neg.to(b.span(&operand)),
                }
            }
            _ => b.postfix(operand)?,
        };
        for neg in negs.into_iter().rev() {
            expr = Expr {
                span: neg.to(expr.span),
                kind: ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(expr),
                },
            };
        }
        Ok(expr)
    }
}

/// Where the last token inside `p` ends.
fn end_of(p: &Pair<'_, Rule>) -> usize {
    let mut p = p.clone();
    while let Some(last) = p.clone().into_inner().last() {
        p = last;
    }
    p.as_span().end()
}

/// The digits of a postfix node that is just an integer literal.
fn bare_int<'i>(postfix: &Pair<'i, Rule>) -> Option<&'i str> {
    let mut inner = postfix.clone().into_inner();
    match (inner.next(), inner.next()) {
        (Some(p), None) if p.as_rule() == Rule::int => Some(p.as_str()),
        _ => None,
    }
}

fn parse_int(digits: &str, span: Span) -> Res<i64> {
    digits.parse::<i64>().map_err(|_| {
        SyntaxError::new(
            "integer literal too large for 64 bits",
            span,
            "does not fit in a 64-bit integer",
        )
        .with_help(format!("integers range from {} to {}", i64::MIN, i64::MAX))
    })
}

/// The value of a string literal (quotes included in `text`); the grammar
/// admits only the escapes handled here.
fn unescape(text: &str) -> String {
    let body = &text[1..text.len() - 1];
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn too_deep(span: Span) -> SyntaxError {
    SyntaxError::new(
        "expression nested too deeply",
        span,
        format!("more than {MAX_DEPTH} levels deep here"),
    )
    .with_help("name the inner parts with `fn` or `let` definitions")
}

fn misplaced_generator(span: Span) -> SyntaxError {
    SyntaxError::new(
        "a generator `... for ...` may only stand alone as the argument of a call",
        span,
        "generator outside a call",
    )
    .with_help(
        "write `all(c for x in R)`, `count(...)`, `table(...)` ..., or build a list `[e for x in R]` or a set `{e for x in R}`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: SourceId = SourceId(7);

    fn program(src: &str) -> Program {
        match parse(src, SRC) {
            Ok(p) => p,
            Err(e) => panic!("{src:?} failed: {} at {:?}", e.message, e.span),
        }
    }

    fn err(src: &str) -> SyntaxError {
        match parse(src, SRC) {
            Ok(p) => panic!("{src:?} parsed: {p:?}"),
            Err(e) => e,
        }
    }

    /// The single expression statement of `src`.
    fn expr(src: &str) -> Expr {
        let mut p = program(src);
        assert_eq!(p.stmts.len(), 1, "{src:?}");
        match p.stmts.pop().unwrap().kind {
            StmtKind::Expr(e) => e,
            k => panic!("not an expression statement: {k:?}"),
        }
    }

    fn text(src: &str, span: Span) -> &str {
        assert_eq!(span.source, SRC);
        &src[span.start as usize..span.end as usize]
    }

    fn pat(p: &Pattern) -> String {
        match p {
            Pattern::Name(i) => i.name.clone(),
            Pattern::Tuple(ps, _) => {
                let inner: Vec<String> = ps.iter().map(pat).collect();
                format!("(pat {})", inner.join(" "))
            }
        }
    }

    fn clause(c: &Clause) -> String {
        match c {
            Clause::For(b) => format!("(for {} {})", pat(&b.pattern), sx(&b.iterable)),
            Clause::If(e) => format!("(if {})", sx(e)),
        }
    }

    fn all(es: &[Expr]) -> String {
        es.iter().map(sx).collect::<Vec<_>>().join(" ")
    }

    /// An S-expression, to check shapes and precedence compactly.
    fn sx(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(n) => n.to_string(),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Str(s) => format!("{s:?}"),
            ExprKind::Name(i) => i.name.clone(),
            ExprKind::List(es) => format!("[{}]", all(es)),
            ExprKind::Set(es) => format!("{{{}}}", all(es)),
            ExprKind::Tuple(es) => format!("(tuple {})", all(es)).replace(" )", ")"),
            ExprKind::Comprehension(c) => {
                let kind = match c.kind {
                    CompKind::List => "list",
                    CompKind::Set => "set",
                    CompKind::Generator => "gen",
                };
                let cs: Vec<String> = c.clauses.iter().map(clause).collect();
                format!("({kind} {} {})", sx(&c.body), cs.join(" "))
            }
            ExprKind::Unary { op, operand } => {
                let op = if *op == UnaryOp::Neg { "-" } else { "not" };
                format!("({op} {})", sx(operand))
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                format!("({} {} {})", op.symbol(), sx(lhs), sx(rhs))
            }
            ExprKind::Range {
                start,
                end,
                inclusive,
            } => {
                let op = if *inclusive { "..=" } else { ".." };
                format!("({op} {} {})", sx(start), sx(end))
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => format!("(if {} {} {})", sx(cond), sx(then), sx(otherwise)),
            ExprKind::Call { callee, args } => {
                format!("(call {} {})", sx(callee), all(args)).replace(" )", ")")
            }
            ExprKind::Index { target, indices } => {
                format!("(index {} {})", sx(target), all(indices))
            }
            ExprKind::Field { target, name } => format!("(. {} {})", sx(target), name.name),
            ExprKind::Slice {
                target,
                start,
                end,
                inclusive,
            } => {
                let bound = |b: &Option<Box<Expr>>| b.as_ref().map_or("_".to_string(), |b| sx(b));
                let op = if *inclusive { "..=" } else { ".." };
                format!(
                    "(slice {} {op} {} {})",
                    sx(target),
                    bound(start),
                    bound(end)
                )
            }
            ExprKind::Let { bindings, body } => {
                let bs: Vec<String> = (bindings.iter())
                    .map(|b| format!("{} {}", pat(&b.pattern), sx(&b.value)))
                    .collect();
                format!("(let {} {})", bs.join(" "), sx(body))
            }
            ExprKind::OmegaPow { base, exponent } => {
                format!("(pow {} {})", base.name, sx(exponent))
            }
        }
    }

    fn check(src: &str, expected: &str) {
        assert_eq!(sx(&expr(src)), expected, "source: {src}");
    }

    const EXAMPLES: &str = r#"
game Heap(n) where n >= 0 {
    move take(k in 1..=n) -> Heap(n - k)
}
game Sub125(n) where n >= 0 {
    move take(k in {1, 2, 5}) if k <= n -> Sub125(n - k)
}
game EmptyDivide(a, b) where a >= 1 and b >= 1 {
    move split_b(k in 1..b) -> EmptyDivide(k, b - k)
    move split_a(k in 1..a) -> EmptyDivide(k, a - k)
}
game Welter(coins) where distinct(coins) {
    move slide(i in 0..len(coins), t in 0..coins[i]) -> Welter(update(coins, i, t))
}
fn F(x, z) = (x + z) / 3
game Chocolate(x, y, z) where x >= 0 and z >= 0 and 0 <= y and y <= F(x, z) {
    move cut_x(u in 0..x) -> Chocolate(u, min(F(u, z), y), z)
}
game Stair(x, y, z) = pass(Heap(x) + Chocolate(0, y, z))   # an alias
game CB[F](x, y, z) where 0 <= y <= F(x, z) { move a(u in 0..x) -> CB[F](u, min(F(u, z), y), z) }
let t = table(sg(EmptyDivide(a, b)) for a in 1..=9, b in 1..=9)
assert all(sg(Heap(n)) == n for n in 0..20)
assert a ^ b == 0
print "sum=" + str(3), sg(Heap(3) + Heap(4))
fn f(n) = if n == 0 then 0 else n + f(n - 1)
print octal("0.137")(5), subtraction({1, 2, 5})(7), [o.sg for o in options(Heap(3))]
game Empty() { }
game Twice(n) { move m -> 0 }
print (1, 2), (1,), (), [(a, b) for (a, b) in pairs if a < b]
"#;

    fn game(s: &Stmt) -> &GameDef {
        match &s.kind {
            StmtKind::Game(g) => g,
            k => panic!("not a game: {k:?}"),
        }
    }

    fn moves(g: &GameDef) -> &[MoveDef] {
        match &g.body {
            GameBody::Moves(ms) => ms,
            GameBody::Alias(e) => panic!("alias {e:?}"),
        }
    }

    fn names(ids: &[Ident]) -> Vec<&str> {
        ids.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn examples_parse() {
        let p = program(EXAMPLES);
        assert_eq!(p.stmts.len(), 17);
        for s in &p.stmts {
            // Every statement span starts with its keyword or expression.
            let t = text(EXAMPLES, s.span);
            assert!(!t.starts_with(char::is_whitespace) && !t.ends_with(char::is_whitespace));
        }

        let heap = game(&p.stmts[0]);
        assert_eq!(heap.name.name, "Heap");
        assert_eq!(names(&heap.params), ["n"]);
        assert_eq!(sx(heap.where_clause.as_ref().unwrap()), "(>= n 0)");
        let take = &moves(heap)[0];
        assert_eq!(take.label.name, "take");
        assert_eq!(take.bindings.len(), 1);
        assert_eq!(pat(&take.bindings[0].pattern), "k");
        assert_eq!(sx(&take.bindings[0].iterable), "(..= 1 n)");
        assert_eq!(take.guard, None);
        assert_eq!(sx(&take.result), "(call Heap (- n k))");

        let sub = moves(game(&p.stmts[1]));
        assert_eq!(sx(&sub[0].bindings[0].iterable), "{1 2 5}");
        assert_eq!(sx(sub[0].guard.as_ref().unwrap()), "(<= k n)");

        let ed = game(&p.stmts[2]);
        assert_eq!(moves(ed).len(), 2);
        assert_eq!(
            sx(ed.where_clause.as_ref().unwrap()),
            "(and (>= a 1) (>= b 1))"
        );

        let welter = moves(game(&p.stmts[3]));
        assert_eq!(
            sx(&welter[0].bindings[1].iterable),
            "(.. 0 (index coins i))"
        );

        match &p.stmts[4].kind {
            StmtKind::Fn(f) => {
                assert_eq!(f.name.name, "F");
                assert_eq!(names(&f.params), ["x", "z"]);
                assert!(f.static_params.is_empty());
                assert_eq!(sx(&f.body), "(/ (+ x z) 3)");
            }
            k => panic!("{k:?}"),
        }

        let choc = game(&p.stmts[5]);
        assert_eq!(
            sx(choc.where_clause.as_ref().unwrap()),
            "(and (and (and (>= x 0) (>= z 0)) (<= 0 y)) (<= y (call F x z)))"
        );

        let stair = game(&p.stmts[6]);
        match &stair.body {
            GameBody::Alias(e) => assert_eq!(
                sx(e),
                "(call pass (+ (call Heap x) (call Chocolate 0 y z)))"
            ),
            b => panic!("{b:?}"),
        }

        let cb = game(&p.stmts[7]);
        assert_eq!(names(&cb.static_params), ["F"]);
        assert_eq!(names(&cb.params), ["x", "y", "z"]);
        assert_eq!(
            sx(cb.where_clause.as_ref().unwrap()),
            "(and (<= 0 y) (<= y (call F x z)))"
        );
        assert_eq!(
            sx(&moves(cb)[0].result),
            "(call (index CB F) u (call min (call F u z) y) z)"
        );

        match &p.stmts[8].kind {
            StmtKind::Let { name, value } => {
                assert_eq!(name.name, "t");
                assert_eq!(
                    sx(value),
                    "(call table (gen (call sg (call EmptyDivide a b)) (for a (..= 1 9)) (for b (..= 1 9))))"
                );
            }
            k => panic!("{k:?}"),
        }
        match &p.stmts[9].kind {
            StmtKind::Assert(e) => assert_eq!(
                sx(e),
                "(call all (gen (== (call sg (call Heap n)) n) (for n (.. 0 20))))"
            ),
            k => panic!("{k:?}"),
        }
        match &p.stmts[10].kind {
            StmtKind::Assert(e) => assert_eq!(sx(e), "(== (^ a b) 0)"),
            k => panic!("{k:?}"),
        }
        match &p.stmts[11].kind {
            StmtKind::Print(es) => {
                assert_eq!(es.len(), 2);
                assert_eq!(sx(&es[0]), r#"(+ "sum=" (call str 3))"#);
                assert_eq!(sx(&es[1]), "(call sg (+ (call Heap 3) (call Heap 4)))");
            }
            k => panic!("{k:?}"),
        }
        match &p.stmts[12].kind {
            StmtKind::Fn(f) => assert_eq!(sx(&f.body), "(if (== n 0) 0 (+ n (call f (- n 1))))"),
            k => panic!("{k:?}"),
        }
        match &p.stmts[13].kind {
            StmtKind::Print(es) => {
                assert_eq!(sx(&es[0]), r#"(call (call octal "0.137") 5)"#);
                assert_eq!(sx(&es[1]), "(call (call subtraction {1 2 5}) 7)");
                assert_eq!(
                    sx(&es[2]),
                    "(list (. o sg) (for o (call options (call Heap 3))))"
                );
            }
            k => panic!("{k:?}"),
        }
        let empty = game(&p.stmts[14]);
        assert!(empty.params.is_empty());
        assert!(moves(empty).is_empty());
        let twice = moves(game(&p.stmts[15]));
        assert!(twice[0].bindings.is_empty());
        assert_eq!(sx(&twice[0].result), "0");
        match &p.stmts[16].kind {
            StmtKind::Print(es) => {
                let got: Vec<String> = es.iter().map(sx).collect();
                assert_eq!(
                    got,
                    [
                        "(tuple 1 2)",
                        "(tuple 1)",
                        "(tuple)",
                        "(list (tuple a b) (for (pat a b) pairs) (if (< a b)))"
                    ]
                );
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn precedence() {
        let cases = [
            ("a ^ b == 0", "(== (^ a b) 0)"),
            ("x in 1..10", "(in x (.. 1 10))"),
            ("-2 * 3", "(* (- 2) 3)"),
            ("not a and b", "(and (not a) b)"),
            ("1..n+1", "(.. 1 (+ n 1))"),
            ("a or b and c", "(or a (and b c))"),
            ("not a == b", "(not (== a b))"),
            ("not not a", "(not (not a))"),
            ("a | b ^ c & d", "(| a (^ b (& c d)))"),
            ("a & b << 1", "(& a (<< b 1))"),
            ("1 << 2 + 3", "(<< 1 (+ 2 3))"),
            ("a + b * c % d", "(+ a (% (* b c) d))"),
            ("a - b - c", "(- (- a b) c)"),
            ("a / b / c", "(/ (/ a b) c)"),
            ("a | b | c", "(| (| a b) c)"),
            ("a or b or c", "(or (or a b) c)"),
            ("- - x", "(- (- x))"),
            ("-x.y[0](1)", "(- (call (index (. x y) 0) 1))"),
            ("a..=b | c", "(..= a (| b c))"),
            ("x not in S", "(not in x S)"),
            ("x not # comment\n in S", "(not in x S)"),
            ("a != b", "(!= a b)"),
            ("a < b", "(< a b)"),
            ("a > b >> 1", "(> a (>> b 1))"),
            ("0 <= y <= F(x, z)", "(and (<= 0 y) (<= y (call F x z)))"),
            ("a < b < c < d", "(and (and (< a b) (< b c)) (< c d))"),
            ("(a < b) < c", "(< (< a b) c)"),
            ("a == b in S", "(and (== a b) (in b S))"),
            ("if a then b else c or d", "(if a b (or c d))"),
            ("if a then if b then 1 else 2 else 3", "(if a (if b 1 2) 3)"),
            ("1 + if c then 2 else 3 + 4", "(+ 1 (if c 2 (+ 3 4)))"),
            ("(if c then 2 else 3) + 4", "(+ (if c 2 3) 4)"),
            ("x == 1 and y == 2 or z", "(or (and (== x 1) (== y 2)) z)"),
            ("w^2*3 + w*2 + 4", "(+ (+ (* (pow w 2) 3) (* w 2)) 4)"),
            ("ω^2*3 + ω", "(+ (* (pow ω 2) 3) ω)"),
            ("w ^ 2", "(^ w 2)"),
            ("a^w^3", "(^ a (pow w 3))"),
            ("1..5", "(.. 1 5)"),
            ("xs[1..3]", "(slice xs .. 1 3)"),
        ];
        for (src, want) in cases {
            check(src, want);
        }
    }

    #[test]
    fn literals_and_names() {
        check("42", "42");
        check("9223372036854775807", "9223372036854775807");
        check("-9223372036854775808", "-9223372036854775808");
        check("- -9223372036854775808", "(- -9223372036854775808)");
        check("true", "true");
        check("false", "false");
        check(r#""a\"b\\c\nd\te""#, r#""a\"b\\c\nd\te""#);
        check(r##""# not a comment""##, r##""# not a comment""##);
        check("ω", "ω");
        check("_x1", "_x1");
        // Keywords need a word boundary; these are ordinary names.
        for name in [
            "index",
            "notes",
            "passive",
            "format",
            "iffy",
            "order",
            "android",
            "inx",
            "printer",
            "letter",
            "gamer",
            "fns",
            "movement",
            "elsewhere",
            "thence",
            "forty",
            "trueish",
            "pass",
            "misere",
            "P",
            "N",
            "w",
        ] {
            check(name, name);
        }
        check("notes or android", "(or notes android)");
        check("index in inbox", "(in index inbox)");
        // Comments and newlines are whitespace.
        check("1 # one\n + # plus\n 2", "(+ 1 2)");
    }

    #[test]
    fn collections_and_comprehensions() {
        check("[]", "[]");
        check("[1, 2,]", "[1 2]");
        check("{}", "{}");
        check("{1, 2, 5}", "{1 2 5}");
        check("((1))", "1");
        check("(1, 2, 3,)", "(tuple 1 2 3)");
        check("[[1], {2}, (3,)]", "[[1] {2} (tuple 3)]");
        check(
            "[x for x in R if x > 2 for y in S]",
            "(list x (for x R) (if (> x 2)) (for y S))",
        );
        check(
            "[e for x in R, y in R2 if c]",
            "(list e (for x R) (for y R2) (if c))",
        );
        check("{x * 2 for x in 0..n}", "(set (* x 2) (for x (.. 0 n)))");
        check(
            "count(x > 2 for x in S if x != 4)",
            "(call count (gen (> x 2) (for x S) (if (!= x 4))))",
        );
        check(
            "period(sg(H(n)) for n in 0..100)",
            "(call period (gen (call sg (call H n)) (for n (.. 0 100))))",
        );
        check(
            "sum(x for x in xs if x in S and x > 0)",
            "(call sum (gen x (for x xs) (if (and (in x S) (> x 0)))))",
        );
        check(
            "min(a for (a, (b, c)) in t)",
            "(call min (gen a (for (pat a (pat b c)) t)))",
        );
        check("[a for (a,) in t]", "(list a (for (pat a) t))");
        check("[a for (a) in t]", "(list a (for a t))");
        check(
            "[x for x in 1..=n if if x then a else b]",
            "(list x (for x (..= 1 n)) (if (if x a b)))",
        );
        check(
            "[if c then a else b for x in R]",
            "(list (if c a b) (for x R))",
        );
        check("f()", "(call f)");
        check("f(1, 2,)", "(call f 1 2)");
        check("F[a, b](1)", "(call (index F a b) 1)");
        check("g(x)(y)[0].z", "(. (index (call (call g x) y) 0) z)");
        check("x . y", "(. x y)");
    }

    #[test]
    fn statements() {
        let src = "fn f[G](x) = G(x)\nlet ω2 = 3\nassert not x\nprint 1\nx + 1\ngame Sub[S](n) where n >= 0 { move take(k in S) if k <= n -> Sub[S](n - k) }\ngame A(n) where n > 0 = Heap(n)";
        let p = program(src);
        assert_eq!(p.stmts.len(), 7);
        match &p.stmts[0].kind {
            StmtKind::Fn(f) => {
                assert_eq!(names(&f.static_params), ["G"]);
                assert_eq!(sx(&f.body), "(call G x)");
            }
            k => panic!("{k:?}"),
        }
        assert!(matches!(&p.stmts[1].kind, StmtKind::Let { name, .. } if name.name == "ω2"));
        assert!(matches!(&p.stmts[2].kind, StmtKind::Assert(_)));
        assert!(matches!(&p.stmts[3].kind, StmtKind::Print(es) if es.len() == 1));
        assert!(matches!(&p.stmts[4].kind, StmtKind::Expr(_)));
        let sub = game(&p.stmts[5]);
        assert_eq!(names(&sub.static_params), ["S"]);
        assert_eq!(sx(&moves(sub)[0].result), "(call (index Sub S) (- n k))");
        let alias = game(&p.stmts[6]);
        assert_eq!(sx(alias.where_clause.as_ref().unwrap()), "(> n 0)");
        assert!(matches!(&alias.body, GameBody::Alias(_)));
        let spans: Vec<&str> = p.stmts.iter().map(|s| text(src, s.span)).collect();
        assert_eq!(spans[1], "let ω2 = 3");
        assert_eq!(spans[4], "x + 1");
        assert_eq!(spans[6], "game A(n) where n > 0 = Heap(n)");

        // Empty programs, comments only, and trailing commas in parameter lists.
        assert!(program("").stmts.is_empty());
        assert!(program("  # nothing\n\n").stmts.is_empty());
        let g = program("game G(a, b,) { move m(x in a, (p, q) in b,) -> 0 }");
        let g = game(&g.stmts[0]);
        assert_eq!(names(&g.params), ["a", "b"]);
        assert_eq!(pat(&moves(g)[0].bindings[1].pattern), "(pat p q)");
    }

    #[test]
    fn spans() {
        let src = "print (1 + 2) * x, f(a)[0].b, -3 .. 5\ngame G(n) {\n  move take(k in 1..=n) if k < 3 -> G(n - k)\n}\nassert all(c for x in R)";
        let p = program(src);
        let es = match &p.stmts[0].kind {
            StmtKind::Print(es) => es,
            k => panic!("{k:?}"),
        };
        assert_eq!(
            text(src, p.stmts[0].span),
            "print (1 + 2) * x, f(a)[0].b, -3 .. 5"
        );
        assert_eq!(text(src, es[0].span), "(1 + 2) * x");
        match &es[0].kind {
            ExprKind::Binary {
                op_span, lhs, rhs, ..
            } => {
                assert_eq!(text(src, *op_span), "*");
                assert_eq!(text(src, lhs.span), "(1 + 2)");
                assert_eq!(text(src, rhs.span), "x");
                match &lhs.kind {
                    ExprKind::Binary { op_span, lhs, .. } => {
                        assert_eq!(text(src, *op_span), "+");
                        assert_eq!(text(src, lhs.span), "1");
                    }
                    k => panic!("{k:?}"),
                }
            }
            k => panic!("{k:?}"),
        }
        assert_eq!(text(src, es[1].span), "f(a)[0].b");
        match &es[1].kind {
            ExprKind::Field { target, name } => {
                assert_eq!(text(src, target.span), "f(a)[0]");
                assert_eq!(text(src, name.span), "b");
            }
            k => panic!("{k:?}"),
        }
        assert_eq!(text(src, es[2].span), "-3 .. 5");

        let g = game(&p.stmts[1]);
        assert_eq!(text(src, g.name.span), "G");
        let m = &moves(g)[0];
        assert_eq!(
            text(src, m.span),
            "move take(k in 1..=n) if k < 3 -> G(n - k)"
        );
        assert_eq!(text(src, m.label.span), "take");
        assert_eq!(text(src, m.bindings[0].span), "k in 1..=n");
        assert_eq!(text(src, m.bindings[0].iterable.span), "1..=n");
        assert_eq!(text(src, m.guard.as_ref().unwrap().span), "k < 3");
        assert_eq!(text(src, m.result.span), "G(n - k)");

        match &p.stmts[2].kind {
            StmtKind::Assert(e) => match &e.kind {
                ExprKind::Call { args, .. } => {
                    assert_eq!(text(src, args[0].span), "c for x in R");
                    match &args[0].kind {
                        ExprKind::Comprehension(c) => assert_eq!(c.kind, CompKind::Generator),
                        k => panic!("{k:?}"),
                    }
                }
                k => panic!("{k:?}"),
            },
            k => panic!("{k:?}"),
        }

        // Chains: the synthesised `and` spans the chain, its op_span is the
        // second operator; the comparisons keep their own spans.
        let src = "0 <= y < 5";
        match &expr(src).kind {
            ExprKind::Binary {
                op: BinaryOp::And,
                op_span,
                lhs,
                rhs,
            } => {
                assert_eq!(text(src, *op_span), "<");
                assert_eq!(text(src, lhs.span), "0 <= y");
                assert_eq!(text(src, rhs.span), "y < 5");
            }
            k => panic!("{k:?}"),
        }
        let src = "w^12 + 1";
        match &expr(src).kind {
            ExprKind::Binary { lhs, .. } => match &lhs.kind {
                ExprKind::OmegaPow { base, exponent } => {
                    assert_eq!(text(src, lhs.span), "w^12");
                    assert_eq!(text(src, base.span), "w");
                    assert_eq!(text(src, exponent.span), "12");
                }
                k => panic!("{k:?}"),
            },
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn slices_take_optional_bounds_above_ranges() {
        check("xs[1..]", "(slice xs .. 1 _)");
        check("xs[..=k]", "(slice xs ..= _ k)");
        check("xs[..]", "(slice xs .. _ _)");
        check("xs[a + 1..n - 1]", "(slice xs .. (+ a 1) (- n 1))");
        check("xs[-1..=b][0]", "(index (slice xs ..= (- 1) b) 0)");
        check("f(x)[a | b..c]", "(slice (call f x) .. (| a b) c)");
        // An index is as before; several indices are static arguments.
        check("xs[i]", "(index xs i)");
        check("F[a, b]", "(index F a b)");
        check("xs[(0..3)]", "(slice xs .. 0 3)");
        let e = err("print xs[1..2..3]");
        assert_eq!(e.message, "a range cannot be followed by `..`");
        let e = err("print xs[1..=]");
        assert_eq!(e.message, "`..=` in a slice needs the last index");
        assert_eq!(err("print xs[..=]").message, e.message);
        let e = err("print xs[..a < b]");
        assert!(e.message.starts_with("expected"), "{}", e.message);
    }

    #[test]
    fn let_in_binds_in_turn_and_its_body_extends_right() {
        check("(let x = 1 in x + 1)", "(let x 1 (+ x 1))");
        check(
            "(let a = 1, (b, c) = p in a * b)",
            "(let a 1 (pat b c) p (* a b))",
        );
        check("f(let x = 0..n in x)", "(call f (let x (.. 0 n) x))");
        check(
            "(let x = 1 in let y = x in y) + 1",
            "(+ (let x 1 (let y x y)) 1)",
        );
        // At the start of a statement `let` is the definition, as before.
        let p = program("let x = 1 in xs");
        assert!(matches!(p.stmts[0].kind, StmtKind::Let { .. }));
        let p = program("print let x = 1 in x\nlet y = 2");
        assert_eq!(p.stmts.len(), 2);
        let e = err("print let ok = n < 3 in ok");
        assert_eq!(e.message, "expected `,`, `in` or an operator, found `<`");
        assert!(e.help.unwrap().contains("let ok = (a < b)"));
        let e = err("print let x = 1");
        assert!(e.message.starts_with("expected `,`, `in`"), "{}", e.message);
        assert!(e.incomplete);
    }

    #[test]
    fn a_decimal_fraction_is_named_as_such() {
        let src = "game H(n) { }\nprint H(2.5), 1";
        let e = err(src);
        assert_eq!(e.message, "`2.5` is not a number: numbers are integers");
        assert_eq!(text(src, e.span), "2.5");
        assert!(e.help.unwrap().contains("64-bit integers"));
        assert_eq!(
            err("print 0.25").message,
            "`0.25` is not a number: numbers are integers"
        );
        // A field of a name stays a field error.
        let e = err("print m.5");
        assert_eq!(e.message, "expected a field name, found `5`");
    }

    #[test]
    fn a_let_expression_at_a_line_start_is_not_cut_as_a_statement() {
        assert!(continues(b"fn f(n) =\n"));
        assert!(continues(b"print\n"));
        assert!(continues(b"x + \n"));
        assert!(!continues(b"let a = 3\n"));
        assert!(!continues(b"print x_in\n"));
        assert!(!continues(b""));
        // A large text is cut at statements: the `let` line below starts
        // just past the chunk size, right after a `fn`'s `=`.
        let line = "let pad = [0]\n";
        let mut src = line.repeat((CHUNK - "fn f(n) =\n".len()).div_ceil(line.len()));
        src.push_str("fn f(n) =\nlet h = n in h + 1\nprint f(1)\n");
        let p = parse(&src, SRC).expect("parses");
        assert!(matches!(p.stmts[p.stmts.len() - 2].kind, StmtKind::Fn(_)));
    }

    #[test]
    fn error_unclosed_paren_in_params() {
        let src = "game Heap(n { }";
        let e = err(src);
        assert_eq!(e.message, "expected `,` or `)`, found `{`");
        assert_eq!(text(src, e.span), "{");
        assert_eq!(e.notes.len(), 1);
        assert_eq!(e.notes[0].label(), Some("this `(` is not closed"));
        assert_eq!((e.notes[0].offset(), e.notes[0].len()), (9, 1));
        assert!(!e.incomplete);
    }

    #[test]
    fn error_missing_operand() {
        let src = "assert 1 +";
        let e = err(src);
        assert_eq!(e.message, "expected an expression, found end of input");
        assert_eq!((e.span.start, e.span.end), (10, 10));
        assert!(e.incomplete);
        assert!(e.help.is_some());
    }

    #[test]
    fn error_let_needs_a_name() {
        let e = err("let 3 = 4");
        assert_eq!(e.message, "expected a name, found `3`");
        assert_eq!((e.span.start, e.span.end), (4, 5));
        assert_eq!(
            e.help.as_deref(),
            Some("a name must start with a letter or `_`")
        );
    }

    #[test]
    fn error_integer_too_large() {
        let src = "print 99999999999999999999";
        let e = err(src);
        assert_eq!(e.message, "integer literal too large for 64 bits");
        assert_eq!((e.span.start, e.span.end), (6, 26));
        assert!(e.help.unwrap().contains("9223372036854775807"));
        let src = "print 1, 99999999999999999999";
        let e = err(src);
        assert_eq!(e.message, "integer literal too large for 64 bits");
        assert_eq!(text(src, e.span), "99999999999999999999");
        assert_eq!(err("print 9223372036854775808").message, e.message);
        assert_eq!(err("print w^99999999999999999999").message, e.message);
    }

    #[test]
    fn error_keyword_as_name() {
        let src = "game in(n) {}";
        let e = err(src);
        assert_eq!(e.message, "expected a game name, found keyword `in`");
        assert_eq!(text(src, e.span), "in");
        assert_eq!(
            e.help.as_deref(),
            Some("`in` is a keyword, so it cannot be used as a name")
        );
        let e = err("fn f(x, for) = 1");
        assert_eq!(
            e.message,
            "expected `)` or a parameter name, found keyword `for`"
        );
        let e = err("let if = 1");
        assert_eq!(e.message, "expected a name, found keyword `if`");
        let e = err("game G(n) { move then -> 0 }");
        assert_eq!(e.message, "expected a move label, found keyword `then`");
    }

    #[test]
    fn error_misplaced_generator() {
        let src = "print f(x for x in R, 1)";
        let e = err(src);
        assert_eq!(
            e.message,
            "a generator `... for ...` must be the only argument of a call"
        );
        assert_eq!(text(src, e.span), "x for x in R");
        let src = "print f(1, x for x in R)";
        assert_eq!(text(src, err(src).span), "x for x in R");
        for src in [
            "print x for x in R",
            "assert (x > 0 for x in R)",
            "let a = x for x in R",
            "x for x in R",
        ] {
            let e = err(src);
            assert!(e.message.starts_with("a generator"), "{src}: {}", e.message);
            assert_eq!(
                text(src, e.span),
                src[src.find('x').unwrap()..].trim_end_matches(')')
            );
        }
        let src = "print [1, x for x in R]";
        let e = err(src);
        assert_eq!(e.message, "a comprehension must be alone in its `[...]`");
        assert_eq!(text(src, e.span), "x for x in R");
    }

    #[test]
    fn error_strings() {
        let src = "print \"abc\nprint 1";
        let e = err(src);
        assert_eq!(e.message, "unterminated string");
        assert_eq!(text(src, e.span), "\"abc");
        let src = "print 1, \"ab";
        assert_eq!(text(src, err(src).span), "\"ab");
        let src = r#"print "a\qb""#;
        let e = err(src);
        assert_eq!(e.message, r"unknown escape `\q` in a string");
        assert_eq!(text(src, e.span), r"\q");
        // A quote in a comment is no string.
        program("print 1 # say \"hi\n");
    }

    #[test]
    fn error_unclosed_brackets_at_end() {
        for (src, opener) in [
            ("print f(1, 2", 7),
            ("print [1, 2", 6),
            ("game G(n) {\n move m -> 0\n", 10),
            ("print {1, (2, 3), [4]", 6),
        ] {
            let e = err(src);
            assert!(e.incomplete, "{src}");
            assert_eq!(e.notes[0].offset(), opener, "{src}: {e:?}");
            assert!(
                e.message.ends_with("found end of input"),
                "{src}: {}",
                e.message
            );
        }
        let e = err("print (1, 2]");
        assert_eq!(e.message, "expected `,`, `)` or an operator, found `]`");
        assert!(!e.incomplete);
    }

    #[test]
    fn error_other_messages() {
        let src = "print a..b..=c";
        let e = err(src);
        assert_eq!(e.message, "a range cannot be followed by `..=`");
        assert_eq!(text(src, e.span), "..=");
        let e = err("game G(n) where n > 0 move m -> 0");
        assert_eq!(
            e.message,
            "expected `{`, `=` or an operator, found keyword `move`"
        );
        let e = err("game G(n) { move m(k in S) 0 }");
        assert_eq!(e.message, "expected `->` or `if`, found `0`");
        let e = err("game G(n) { take(k in S) -> 0 }");
        assert_eq!(e.message, "expected `}` or `move`, found `take`");
        let e = err("print if a then b");
        assert_eq!(
            e.message,
            "expected `else` or an operator, found end of input"
        );
        let e = err("assert x = 3");
        assert_eq!(e.help.as_deref(), Some("to compare, write `==`"));
        let e = err("print 1 )");
        assert_eq!(
            e.message,
            "expected `,`, an operator, a statement or end of input, found `)`"
        );
        let e = err("[x for 3 in R]");
        assert_eq!(e.message, "expected a name to bind, found `3`");
        let e = err("print 12abc");
        assert_eq!(e.message, "expected an expression, found `12abc`");
    }

    #[test]
    fn error_not_inside_an_operand() {
        for src in ["print a == not b", "print - not x", "print 1 + not x"] {
            let e = err(src);
            assert_eq!(
                e.message, "expected an expression, found keyword `not`",
                "{src}"
            );
            assert!(e.help.unwrap().contains("(not b)"));
        }
        check("a and not b", "(and a (not b))");
        check("a == (not b)", "(== a (not b))");
    }

    #[test]
    fn statements_need_no_separator() {
        // Newlines are whitespace: statements simply follow each other.
        let p = program("print 1 print 2 assert x let y = 1 game G() {} 3 4");
        assert_eq!(p.stmts.len(), 7);
        // ... so an expression continues onto the next line when it can.
        let p = program("let x = 3\n-1");
        assert_eq!(p.stmts.len(), 1);
    }

    #[test]
    fn errors_render_with_a_source() {
        let src = "game Heap(n { }";
        let report = miette::Report::new(err(src))
            .with_source_code(miette::NamedSource::new("heap.game", src.to_string()));
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .render_report(&mut out, report.as_ref())
            .unwrap();
        assert!(out.contains("grundy::syntax"), "{out}");
        assert!(out.contains("expected `,` or `)`"), "{out}");
        assert!(out.contains("heap.game:1:13"), "{out}");
        assert!(out.contains("this `(` is not closed"), "{out}");
    }

    #[test]
    fn deep_nesting_is_refused_not_crashed() {
        // Runs on the test harness's 2 MiB thread: the deepest accepted
        // nesting must fit, one more level is a clean error.
        let shapes = [
            ("(", ")"),
            ("f(", ")"),
            ("[", "]"),
            ("{", "}"),
            ("[x for x in ", "]"),
            ("xs[", "]"),
            ("if c then 1 else ", ""),
            ("all(", " for x in R)"),
        ];
        for (open, close) in shapes {
            let ok = format!(
                "print {}1{}",
                open.repeat(MAX_DEPTH - 1),
                close.repeat(MAX_DEPTH - 1)
            );
            parse(&ok, SRC).unwrap_or_else(|e| panic!("{open}: {}", e.message));
            let deep = format!(
                "print {}1{}",
                open.repeat(MAX_DEPTH + 5),
                close.repeat(MAX_DEPTH + 5)
            );
            let e = parse(&deep, SRC).unwrap_err();
            assert_eq!(e.message, "expression nested too deeply", "{open}");
        }
        // Far deeper: pest's own guard or ours, never a crash.
        for n in [1000, 5000] {
            let src = format!("print {}1{}", "(".repeat(n), ")".repeat(n));
            assert!(parse(&src, SRC).is_err());
        }
        // Long flat sequences do not recurse; up to MAX_OPERATORS of them
        // nest (as a tree as deep as the chain is long).
        let n = MAX_OPERATORS;
        for src in [
            format!("print {}1", "-".repeat(n)),
            format!("print {}x", "not ".repeat(n)),
            format!("print 0{}", " + 1".repeat(n)),
            format!("print 0{}", " < 1".repeat(n / 2)),
            format!("print x{}", "[0]".repeat(n)),
            format!(
                "print [{}1]",
                format!("(1{}), ", " * 2".repeat(n / 2)).repeat(3)
            ),
        ] {
            parse(&src, SRC).unwrap_or_else(|e| panic!("{}: {}", &src[..20], e.message));
        }
        for src in [
            format!("print {}1", "-".repeat(2 * n + 2)),
            format!("print 0{}", " + 1".repeat(n + 1)),
            format!("print x{}", "[0]".repeat(n + 1)),
            format!(
                "print 1{} + (1{})",
                " + 1".repeat(n / 2),
                " * 2".repeat(n / 2)
            ),
        ] {
            let e = parse(&src, SRC).unwrap_err();
            assert_eq!(e.message, "expression too long", "{}", &src[..20]);
        }
        let src = format!("print 0{}", " + 1".repeat(100_000));
        let e = parse(&src, SRC).unwrap_err();
        assert_eq!(&src[e.span.start as usize..e.span.end as usize], "+");
        assert_eq!(
            e.span.start as usize,
            "print 0".len() + 4 * MAX_OPERATORS + 1
        );
        // Brackets far too deep are refused before pest recurses on them.
        let src = format!("print {}1{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        let e = parse(&src, SRC).unwrap_err();
        assert_eq!(e.message, "expression nested too deeply");
    }
}
