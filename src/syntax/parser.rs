//! Text -> AST.
//!
//! The grammar is `grammar/rules.pest`; its head summarises it. In short:
//! a program is a list of statements (`game`, `fn`, `let`, `assert`,
//! `print`, or a bare expression); newlines are ordinary whitespace.
//! Expressions, loosest to tightest: `if c then a else b` (its branches
//! extend as far right as possible), `or`, `and`, `not`, comparisons and
//! `in`/`not in` (chains `a < b <= c` mean `(a < b) and (b <= c)`), ranges
//! `a..b`/`a..=b` (non-associative), `|`, `^`, `&`, `<<`/`>>`, `+`/`-`,
//! `*`/`/`/`%`, unary `-`, postfix call/index/field, primaries. A
//! comprehension body with `for` clauses stands in `[...]`, `{...}`, or
//! alone as the argument of a call (a generator: `all(c for x in R)`).
//!
//! pest does the recognising; this module walks the pair tree and builds
//! `ast` nodes with byte spans, and reports what pest cannot: integers that
//! do not fit in 64 bits and misplaced generators. pest's own failures are
//! turned into a [`SyntaxError`] by `error::from_pest`.

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

/// Parses a whole rule file (or one REPL entry).
pub fn parse(src: &str, source: SourceId) -> Result<Program, SyntaxError> {
    let mut pairs =
        GrammarParser::parse(Rule::program, src).map_err(|e| error::from_pest(src, source, e))?;
    let program = pairs.next().expect("pest yields the program pair");
    let builder = Builder { source };
    let stmts = program
        .into_inner()
        .filter(|p| p.as_rule() != Rule::EOI)
        .map(|p| builder.stmt(p))
        .collect::<Result<_, _>>()?;
    Ok(Program { stmts })
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

struct Builder {
    source: SourceId,
}

impl Builder {
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.source, s.start(), s.end())
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
        parts(p).map(|c| self.item(c)).collect()
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
            Rule::expr
            | Rule::and_expr
            | Rule::bor_expr
            | Rule::xor_expr
            | Rule::band_expr
            | Rule::shift_expr
            | Rule::add_expr
            | Rule::mul_expr => self.left_assoc(p),
            Rule::not_expr => {
                let span = self.span(&p);
                let mut it = p.into_inner();
                let first = it.next().expect("not_expr child");
                if first.as_rule() == Rule::not_op {
                    let operand = self.expr(it.next().expect("operand of not"))?;
                    Ok(Expr {
                        kind: ExprKind::Unary {
                            op: UnaryOp::Not,
                            operand: Box::new(operand),
                        },
                        span,
                    })
                } else {
                    self.expr(first)
                }
            }
            Rule::cmp_expr => self.comparison(p),
            Rule::range_expr => {
                let span = self.span(&p);
                let mut it = p.into_inner();
                let start = self.expr(it.next().expect("range start"))?;
                match it.next() {
                    None => Ok(start),
                    Some(op) => {
                        let end = self.expr(it.next().expect("range end"))?;
                        Ok(Expr {
                            kind: ExprKind::Range {
                                start: Box::new(start),
                                end: Box::new(end),
                                inclusive: op.as_str() == "..=",
                            },
                            span,
                        })
                    }
                }
            }
            Rule::unary => self.unary(p),
            Rule::postfix => self.postfix(p),
            _ => self.primary(p),
        }
    }

    fn left_assoc(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let mut it = p.into_inner();
        let mut lhs = self.expr(it.next().expect("operand"))?;
        while let Some(op) = it.next() {
            let rhs = self.expr(it.next().expect("right operand"))?;
            lhs = binary(binary_op(op.as_str()), self.span(&op), lhs, rhs);
        }
        Ok(lhs)
    }

    /// `a < b <= c` becomes `(a < b) and (b <= c)`; the synthesised `and`
    /// has the span of the operator that continues the chain.
    fn comparison(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let mut it = p.into_inner();
        let mut operands = vec![self.expr(it.next().expect("operand"))?];
        let mut ops = Vec::new();
        while let Some(op) = it.next() {
            ops.push((binary_op(op.as_str()), self.span(&op)));
            operands.push(self.expr(it.next().expect("right operand"))?);
        }
        if ops.is_empty() {
            return Ok(operands.pop().expect("one operand"));
        }
        let mut acc: Option<Expr> = None;
        for (i, (op, op_span)) in ops.into_iter().enumerate() {
            let cmp = binary(op, op_span, operands[i].clone(), operands[i + 1].clone());
            acc = Some(match acc {
                None => cmp,
                Some(prev) => binary(BinaryOp::And, op_span, prev, cmp),
            });
        }
        Ok(acc.expect("at least one comparison"))
    }

    fn unary(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let mut children: Vec<Pair<'_, Rule>> = p.into_inner().collect();
        let operand = children.pop().expect("postfix operand");
        let mut negs = children;
        // `-9223372036854775808` is i64::MIN although its digits overflow.
        let mut expr = match (negs.last(), bare_int(&operand)) {
            (Some(neg), Some(digits)) if digits.parse::<i128>() == Ok(1i128 << 63) => {
                let span = self.span(neg).to(self.span(&operand));
                negs.pop();
                Expr {
                    kind: ExprKind::Int(i64::MIN),
                    span,
                }
            }
            _ => self.expr(operand)?,
        };
        for neg in negs.iter().rev() {
            expr = Expr {
                span: self.span(neg).to(expr.span),
                kind: ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(expr),
                },
            };
        }
        Ok(expr)
    }

    fn postfix(&self, p: Pair<'_, Rule>) -> Res<Expr> {
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
                Rule::index => ExprKind::Index {
                    target,
                    indices: parts(op).map(|c| self.expr(c)).collect::<Res<_>>()?,
                },
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

    fn primary(&self, p: Pair<'_, Rule>) -> Res<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
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
