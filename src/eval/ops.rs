//! Operators on values: checked integer arithmetic, ordinal arithmetic
//! (`+`, `*`, nim-sum `^`), comparisons, membership, string and list
//! concatenation, and the disjunctive sum.

use std::rc::Rc;

use super::value::{
    expect_bool, expect_ordinal, invalid, overflow, type_error, CompoundKind, Game, Value,
};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;

pub fn unary(op: UnaryOp, v: &Value, span: Span) -> Fallible<Value> {
    match (op, v) {
        (UnaryOp::Neg, Value::Int(n)) => n
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| overflow(span, "negation")),
        (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (UnaryOp::Neg, Value::Ordinal(o)) => Diag::new(
            ErrorKind::Type,
            span,
            format!("cannot negate the ordinal `{o}`"),
        )
        .label("an infinite ordinal")
        .help("ordinals are never negative; only integers can be negated")
        .err(),
        (UnaryOp::Neg, other) => Err(type_error(span, "an integer to negate", other)),
        (UnaryOp::Not, other) => Err(type_error(span, "a boolean after `not`", other)),
    }
}

/// Integer arithmetic; `None` means overflow, which the caller reports.
#[inline]
pub fn int_op(op: BinaryOp, a: i64, b: i64) -> Option<i64> {
    use BinaryOp::*;
    match op {
        Add => a.checked_add(b),
        Sub => a.checked_sub(b),
        Mul => a.checked_mul(b),
        Div => a.checked_div_euclid(b).map(|q| {
            // Floor division: round towards minus infinity.
            if b < 0 && a.rem_euclid(b) != 0 {
                q - 1
            } else {
                q
            }
        }),
        Mod => a.checked_rem_euclid(b),
        BitOr => Some(a | b),
        Xor => Some(a ^ b),
        BitAnd => Some(a & b),
        Shl => (0..63)
            .contains(&b)
            .then(|| a.checked_mul(1i64 << b))
            .flatten(),
        Shr => (b >= 0).then(|| if b >= 64 { a >> 63 } else { a >> b }),
        _ => unreachable!("not an integer operator"),
    }
}

/// An integer comparison's answer (`None` for an operator that is none).
#[inline(always)]
pub fn int_compare(op: BinaryOp, x: i64, y: i64) -> Option<bool> {
    Some(match op {
        BinaryOp::Lt => x < y,
        BinaryOp::Le => x <= y,
        BinaryOp::Gt => x > y,
        BinaryOp::Ge => x >= y,
        BinaryOp::Eq => x == y,
        BinaryOp::Ne => x != y,
        _ => return None,
    })
}

/// Floor division and modulo by a positive constant, by multiplication and
/// shifts instead of a division instruction (integer code divides by the
/// same constant for every option, as in `(u + z) / 3`).
#[derive(Clone, Copy)]
pub struct ConstDivisor {
    divisor: i64,
    reduced: strength_reduce::StrengthReducedU64,
}

impl ConstDivisor {
    /// `None` unless `divisor > 0`.
    pub fn new(divisor: i64) -> Option<ConstDivisor> {
        (divisor > 0).then(|| ConstDivisor {
            divisor,
            reduced: strength_reduce::StrengthReducedU64::new(divisor as u64),
        })
    }

    /// The divisor.
    pub fn divisor(self) -> i64 {
        self.divisor
    }

    /// `a / divisor` rounded towards minus infinity (the language's `/`).
    #[inline]
    pub fn floor_div(self, a: i64) -> i64 {
        if a >= 0 {
            (a as u64 / self.reduced) as i64
        } else {
            // floor(a / d) = -((-a - 1) / d) - 1 for a < 0; -(a + 1) fits.
            -(((-(a + 1)) as u64 / self.reduced) as i64) - 1
        }
    }

    /// `a mod divisor` in `0..divisor` (the language's `%`).
    #[inline]
    pub fn floor_mod(self, a: i64) -> i64 {
        // The remainder lies in 0..divisor: wrapping arithmetic gets it
        // even where the product does not fit.
        a.wrapping_sub(self.floor_div(a).wrapping_mul(self.divisor))
    }
}

fn int_binary(op: BinaryOp, a: i64, b: i64, span: Span) -> Fallible<Value> {
    if b == 0 && matches!(op, BinaryOp::Div | BinaryOp::Mod) {
        return Diag::new(
            ErrorKind::DivisionByZero,
            span,
            format!("division by zero in `{a} {} 0`", op.symbol()),
        )
        .label("the divisor is 0")
        .help("guard the division, e.g. `if d == 0 then ... else n / d`")
        .err();
    }
    if b < 0 && matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
        let what = format!("negative shift `{a} {} {b}`", op.symbol());
        return invalid(span, what, "shift by a negative amount");
    }
    int_op(op, a, b)
        .map(Value::Int)
        .ok_or_else(|| overflow(span, &format!("`{a} {} {b}`", op.symbol())))
}

/// An operator with at least one infinite ordinal operand: ordinal sum and
/// product, and the nim-sum (Definition 3.5 of the transfinite Nim paper).
fn ordinal_binary(op: BinaryOp, a: &Value, b: &Value, span: Span) -> Fallible<Value> {
    let (x, y) = (expect_ordinal(a, span)?, expect_ordinal(b, span)?);
    let result = match op {
        BinaryOp::Add => x.add(&y),
        BinaryOp::Mul => x.mul(&y),
        BinaryOp::Xor => Some(x.nim_sum(&y)),
        _ => {
            return Diag::new(
                ErrorKind::Type,
                span,
                format!(
                    "`{}` is not defined on infinite ordinals (`{a:#} {} {b:#}`)",
                    op.symbol(),
                    op.symbol()
                ),
            )
            .label(format!("{} {} {}", a.kind(), op.symbol(), b.kind()))
            .help(
                "ordinals have `+` and `*` (ordinal sum and product: 1 + ω = ω, 2 * ω = ω), \
                 `^` (nim-sum), comparisons and pow(a, n); cnf(a) gives the coefficients",
            )
            .err()
        }
    };
    result
        .map(Value::ordinal)
        .ok_or_else(|| overflow(span, &format!("the ordinal `{a:#} {} {b:#}`", op.symbol())))
}

/// The disjunctive sum, flattened, without zero components.
pub fn game_sum(a: &Game, b: &Game) -> Game {
    let mut parts = Vec::new();
    for g in [a, b] {
        match g {
            Game::Zero => {}
            Game::Sum(gs) => parts.extend(gs.iter().cloned()),
            other => parts.push(other.clone()),
        }
    }
    match parts.len() {
        0 => Game::Zero,
        1 => parts.pop().expect("one part"),
        _ => Game::Sum(parts),
    }
}

/// A value used as a game: a game, or the integer 0 (the zero game).
pub fn as_game(v: &Value, span: Span) -> Fallible<Rc<Game>> {
    match v {
        Value::Game(g) => Ok(g.clone()),
        Value::Int(0) => Ok(Rc::new(Game::Zero)),
        other => Err(type_error(span, "a game (or 0, the zero game)", other).help_boxed(
            "positions are written like Heap(3); sums like Heap(3) + Heap(4); 0 is the zero game",
        )),
    }
}

trait HelpBoxed {
    fn help_boxed(self, help: &str) -> Self;
}

impl HelpBoxed for Box<Diag> {
    fn help_boxed(mut self, help: &str) -> Self {
        self.help = Some(help.to_string());
        self
    }
}

pub fn contains(container: &Value, item: &Value, span: Span) -> Fallible<bool> {
    match container {
        Value::Set(xs) => Ok(match item {
            // Integers compared as integers: the commonest question, `c in cells`.
            Value::Int(v) => xs
                .binary_search_by(|x| match x {
                    Value::Int(n) => n.cmp(v),
                    other => other.cmp(item),
                })
                .is_ok(),
            _ => xs.binary_search(item).is_ok(),
        }),
        Value::List(xs) | Value::Tuple(xs) => Ok(xs.contains(item)),
        Value::Str(s) => match item {
            Value::Str(sub) => Ok(s.contains(&**sub)),
            other => Err(type_error(span, "a string to look for in a string", other)),
        },
        Value::Table(t) => Ok(t.rows.iter().any(|r| Value::list(r.clone()) == *item)),
        other => Err(type_error(
            span,
            "a list, set, tuple or range after `in`",
            other,
        )),
    }
}

/// `<`, `<=`, `>`, `>=`: values of one kind (`Value`'s order); games
/// also with `0`, the zero game, which comes before every other game.
fn compare(op: BinaryOp, a: &Value, b: &Value, span: Span) -> Fallible<Value> {
    let comparable = matches!(
        (a, b),
        (
            Value::Int(_) | Value::Ordinal(_),
            Value::Int(_) | Value::Ordinal(_)
        ) | (Value::Str(_), Value::Str(_))
            | (Value::List(_), Value::List(_))
            | (Value::Tuple(_), Value::Tuple(_))
            | (Value::Set(_), Value::Set(_))
            | (Value::Game(_), Value::Game(_))
            | (Value::Game(_), Value::Int(0))
            | (Value::Int(0), Value::Game(_))
    );
    if !comparable {
        return Diag::new(
            ErrorKind::Type,
            span,
            format!(
                "cannot order {} and {} with `{}`",
                a.kind_a(),
                b.kind_a(),
                op.symbol()
            ),
        )
        .label(format!("{} {} {}", a.kind(), op.symbol(), b.kind()))
        .help("`<`, `<=`, `>`, `>=` compare two numbers (integers or ordinals), strings, lists, tuples, sets or games (0 is the zero game)")
        .err();
    }
    // The order as -1, 0 or 1, compared with 0.
    let holds = int_compare(op, a.cmp(b) as i64, 0);
    Ok(Value::Bool(holds.expect("an order")))
}

/// Applies a binary operator to two evaluated operands. (`and` and `or`
/// short-circuit in compiled code; here they take two booleans.)
pub fn binary(op: BinaryOp, a: &Value, b: &Value, span: Span) -> Fallible<Value> {
    use BinaryOp::*;
    match (op, a, b) {
        (
            Add | Sub | Mul | Div | Mod | BitOr | Xor | BitAnd | Shl | Shr,
            Value::Int(x),
            Value::Int(y),
        ) => int_binary(op, *x, *y, span),
        (Eq, _, _) => Ok(Value::Bool(a == b)),
        (Ne, _, _) => Ok(Value::Bool(a != b)),
        (Lt | Le | Gt | Ge, _, _) => compare(op, a, b, span),
        (In, _, _) => Ok(Value::Bool(contains(b, a, span)?)),
        (NotIn, _, _) => Ok(Value::Bool(!contains(b, a, span)?)),
        (And, _, _) => Ok(Value::Bool(expect_bool(a, span)? && expect_bool(b, span)?)),
        (Or, _, _) => Ok(Value::Bool(expect_bool(a, span)? || expect_bool(b, span)?)),
        (
            Add | Sub | Mul | Div | Mod | BitOr | Xor | BitAnd | Shl | Shr,
            Value::Int(_) | Value::Ordinal(_),
            Value::Int(_) | Value::Ordinal(_),
        ) => ordinal_binary(op, a, b, span),
        (Add, Value::Str(x), Value::Str(y)) => {
            crate::budget::check_grow(x.len() + y.len(), span)?;
            Ok(Value::Str(Rc::from(format!("{x}{y}"))))
        }
        (Add, Value::List(x), Value::List(y)) => {
            let bytes = (x.len() + y.len()) * std::mem::size_of::<Value>();
            crate::budget::check_grow(bytes, span)?;
            Ok(Value::list(x.iter().chain(y.iter()).cloned().collect()))
        }
        (BitOr, Value::Set(x), Value::Set(y)) => {
            // The union, and the sort's buffer of half of it.
            let bytes = (x.len() + y.len()) * std::mem::size_of::<Value>() / 2 * 3;
            crate::budget::check_grow(bytes, span)?;
            Ok(Value::set(x.iter().chain(y.iter()).cloned().collect()))
        }
        (BitAnd, Value::Set(x), Value::Set(y)) => Ok(Value::Set(Rc::new(
            x.iter()
                .filter(|v| y.binary_search(v).is_ok())
                .cloned()
                .collect(),
        ))),
        (Sub, Value::Set(x), Value::Set(y)) => Ok(Value::Set(Rc::new(
            x.iter()
                .filter(|v| y.binary_search(v).is_err())
                .cloned()
                .collect(),
        ))),
        (Add, Value::Game(_), _) | (Add, _, Value::Game(_)) => {
            let (ga, gb) = (as_game(a, span)?, as_game(b, span)?);
            if is_misere(&ga) || is_misere(&gb) {
                return Diag::new(
                    ErrorKind::Type,
                    span,
                    "misère play applies to a whole game, not to a part of a sum",
                )
                .label("a misere(...) in a sum")
                .help("write misere(A + B) rather than misere(A) + B")
                .err();
            }
            Ok(Value::game(game_sum(&ga, &gb)))
        }
        _ => Diag::new(
            ErrorKind::Type,
            span,
            format!(
                "`{}` does not apply to {} and {}",
                op.symbol(),
                a.kind_a(),
                b.kind_a()
            ),
        )
        .label(format!("{} {} {}", a.kind(), op.symbol(), b.kind()))
        .help(match op {
            Add => "`+` adds integers, joins strings or lists, and sums games",
            _ => "arithmetic and bit operators take two integers",
        })
        .err(),
    }
}

pub fn is_misere(g: &Game) -> bool {
    matches!(g, Game::Compound(c) if c.kind == CompoundKind::Misere)
}
