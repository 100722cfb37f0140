//! Built-in functions: their names and arities (for lowering) and the pure
//! ones' implementations. Game questions (`sg`, `options` ...) live in
//! `query`; aggregates over generators (`all`, `table` ...) in `compile`.

use std::rc::Rc;

use super::ordinal::{self, Ordinal, WelterError};
pub use super::value::{expect_bool, expect_ordinal, overflow, type_error};
use super::value::{invalid, Value};
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;

macro_rules! builtins {
    ($($variant:ident $name:literal $min:literal $max:literal $doc:literal,)*) => {
        /// Every built-in function, with its name and arity.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Builtin { $($variant,)* }

        impl Builtin {
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            pub fn name(self) -> &'static str {
                match self { $(Builtin::$variant => $name,)* }
            }

            /// Fewest and most arguments (a generator counts as one).
            pub fn arity(self) -> (usize, usize) {
                match self { $(Builtin::$variant => ($min, $max),)* }
            }

            /// One line for `:help` and the reference.
            pub fn doc(self) -> &'static str {
                match self { $(Builtin::$variant => $doc,)* }
            }
        }
    };
}

builtins! {
    Min "min" 1 2 "min(a, b), min(list) or min(e for ...): the smallest",
    Max "max" 1 2 "max(a, b), max(list) or max(e for ...): the largest",
    Abs "abs" 1 1 "abs(n): absolute value",
    Len "len" 1 1 "len(xs): number of items of a list, set, tuple or string",
    Sum "sum" 1 2 "sum(xs) or sum(e for ...): sum of integers; sum(xs, start): start + xs[0] + xs[1] + ... with `+` (lists, strings, games)",
    Sorted "sorted" 1 1 "sorted(xs): the items as an ascending list",
    Distinct "distinct" 1 1 "distinct(xs): true when no item repeats",
    Update "update" 3 3 "update(xs, i, v): copy of list xs with item i replaced by v",
    Remove "remove" 2 2 "remove(s, v): copy of set or list s without (the first) v",
    Insert "insert" 2 2 "insert(s, v): copy of set s with v added (list: appended)",
    Matches "matches" 2 2 "matches(xs, pattern): indices where the list pattern occurs in xs",
    Splice "splice" 3 3 "splice(xs, i, ys): copy of xs with len(ys) items from index i replaced by ys",
    Log2 "log2" 1 1 "log2(n): floor of the base-2 logarithm, n >= 1",
    Pow "pow" 2 2 "pow(a, b): a to the power b (b >= 0); a may be an ordinal: pow(w, 3) = ω^3",
    Mex "mex" 1 1 "mex(xs): the least non-negative integer not in xs",
    Low0 "low0" 1 1 "low0(n): index of the lowest zero bit of n >= 0",
    Isqrt "isqrt" 1 1 "isqrt(n): the integer square root of n >= 0, the largest r with r * r <= n",
    NimMul "nim_mul" 2 2 "nim_mul(a, b): the nim-product of integers a, b >= 0 (2 ⊗ 2 = 3, 16 ⊗ 16 = 24)",
    Join "join" 2 2 "join(xs, sep): the items of xs as one string, sep between them (strings as their text, other values as str(v))",
    Nimsum "nimsum" 1 1 "nimsum(xs): xor of a list of integers; of ordinals, coefficient by coefficient",
    Welter "welter" 1 64 "welter(a, b, ...) or welter(xs): the Welter function [a|b|...], the Grundy value of Welter's game (ordinals too)",
    GoodMovesNim "good_moves_nim" 1 1 "good_moves_nim(xs): every move of a (transfinite) Nim position to a P-position, as (index, from, to)",
    GoodMovesWelter "good_moves_welter" 1 1 "good_moves_welter(xs): every move of a (transfinite) Welter position to a P-position, as (index, from, to)",
    Cnf "cnf" 1 1 "cnf(a): the Cantor normal form of an ordinal, a list of (exponent, coefficient), highest power first",
    Str "str" 1 1 "str(v): the value as text",
    List "list" 1 1 "list(xs) or list(e for ...): the items as a list",
    Set "set" 1 1 "set(xs) or set(e for ...): the items as a set",
    Reversed "reversed" 1 1 "reversed(xs): the items in reverse order",
    Sg "sg" 1 1 "sg(G): the Sprague-Grundy value of game G; of a loopy game, its generalised value: an integer or an infinite value ∞{K}",
    Outcome "outcome" 1 1 "outcome(G): P (previous player wins), N (next player wins) or D (a draw, in a loopy game)",
    Options "options" 1 1 "options(G): the moves of G with labels, bindings, results and SG values",
    Winning "winning" 1 1 "winning(G): the moves of G to a position of SG value 0; of a draw, the moves that keep the draw",
    Remoteness "remoteness" 1 1 "remoteness(G): how many moves the play of a P- or N-position lasts when the winner hurries and the loser delays (Smith's remoteness; even for P, odd for N)",
    Inf "inf" 0 64 "inf(a, b, ...): the infinite SG value ∞{a,b,...} of a loopy game's position whose options' finite values are a, b, ...; inf() is ∞",
    All "all" 1 1 "all(c for ...): every c holds; a failing assert names the first counterexample",
    Any "any" 1 1 "any(c for ...): some c holds",
    Count "count" 1 1 "count(c for ...): how many c hold",
    Table "table" 1 1 "table(e for r in R, c in C): a two-dimensional table with headers",
    Period "period" 1 1 "period(e for n in R): (preperiod, period) of the sequence",
    Histogram "histogram" 1 1 "histogram(e for ...): h[v] = how many times value v occurs",
    Pass "pass" 1 2 "pass(G) or pass(G, k): G with one (or k) passes for the whole play; a pass is allowed from any non-terminal position",
    Misere "misere" 1 1 "misere(G): G under the misere convention (the last mover loses); sg gives the misere Grundy value",
    Conjunctive "conjunctive" 1 64 "conjunctive(A, B, ...): move in every component; ends when one has no move",
    Selective "selective" 1 64 "selective(A, B, ...): move in any non-empty set of components",
    Hypergraph "hypergraph" 2 65 "hypergraph(edges, A, B, ...): move in every component of one edge (a list of 0-based indices)",
    OrdinalSum "ordinal" 2 2 "ordinal(G, H): the ordinal sum G:H: a move in G removes H, a move in H keeps G",
    MemoHistogram "memo_histogram" 1 1 "memo_histogram(G): h[v] = how many positions the memo holds with SG value v, for G's game (a game or a position of it) or G's kind of compound (misere(...), pass(...) ...)",
    Subtraction "subtraction" 1 1 "subtraction(S): the subtraction game with set S; positions subtraction(S)(n)",
    Octal "octal" 1 1 "octal(\"0.137\"): the take-and-break game with that code (digits up to F, `!` for unequal heaps: \"4!.0\" is Grundy's game); positions octal(code)(n)",
    Plot "plot" 1 2 "plot(T), plot(e for r in R, c in C) or plot(T, \"fig.png\"): table T as a heatmap (inline in a notebook, coloured in the REPL); shown or printed with a file, it writes fig.png and fig.svg",
    Periodicity "periodicity" 1 2 "periodicity(octal(code)) or periodicity(G, max_heaps): preperiod, period, saltus of the heap values, proven by the periodicity theorem when it applies",
}

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL.iter().copied().find(|b| b.name() == name)
    }

    /// Built-ins that accept a generator as their single argument.
    pub fn takes_generator(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            Min | Max | Sum | All | Any | Count | Table | Plot | Period | Histogram | List | Set
        )
    }
}

pub fn expect_int(v: &Value, span: Span) -> Fallible<i64> {
    match v {
        Value::Int(n) => Ok(*n),
        other => Err(type_error(span, "an integer", other)),
    }
}

fn expect_ordinals(items: &[Value], span: Span) -> Fallible<Vec<Ordinal>> {
    items.iter().map(|v| expect_ordinal(v, span)).collect()
}

pub fn expect_items(v: &Value, span: Span) -> Fallible<&[Value]> {
    v.items()
        .ok_or_else(|| type_error(span, "a list, set or tuple", v))
}

fn index_in(len: usize, i: i64, span: Span) -> Fallible<usize> {
    if i < 0 || i as usize >= len {
        return Diag::new(
            ErrorKind::Index,
            span,
            format!("index {i} is out of range for a list of length {len}"),
        )
        .label("out of range")
        .help("lists are indexed from 0")
        .err();
    }
    Ok(i as usize)
}

/// `xs[i]`.
pub fn index(target: &Value, i: &Value, span: Span) -> Fallible<Value> {
    let i = expect_int(i, span)?;
    match target {
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => {
            Ok(xs[index_in(xs.len(), i, span)?].clone())
        }
        Value::Table(t) => Ok(Value::list(
            t.rows[index_in(t.rows.len(), i, span)?].clone(),
        )),
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(Value::str(
                &chars[index_in(chars.len(), i, span)?].to_string(),
            ))
        }
        other => Err(type_error(span, "a list, tuple or set to index", other)),
    }
}

/// `xs[a..b]` (`inclusive`: `xs[a..=b]`) of a list, tuple or string: the
/// items at the indices the range runs through, as the same kind. A missing
/// start is 0, a missing end the length. An empty range gives an empty
/// slice; otherwise every index of the range must be an index of `xs` (an
/// error, not clamped: a rule reading past the end is a mistake to show).
pub fn slice(
    target: &Value,
    start: Option<i64>,
    end: Option<i64>,
    inclusive: bool,
    span: Span,
) -> Fallible<Value> {
    let chars: Vec<char> = match target {
        Value::Str(s) => s.chars().collect(),
        _ => Vec::new(),
    };
    let len = match target {
        Value::List(xs) | Value::Tuple(xs) => xs.len(),
        Value::Str(_) => chars.len(),
        other => return Err(type_error(span, "a list, tuple or string to slice", other)),
    };
    let from = start.unwrap_or(0);
    let to = match (end, inclusive) {
        (None, _) => len as i64,
        (Some(b), false) => b,
        (Some(b), true) => b.checked_add(1).ok_or_else(|| overflow(span, "a slice"))?,
    };
    if from >= to {
        return Ok(match target {
            Value::Str(_) => Value::str(""),
            _ => same_kind(target, Vec::new()),
        });
    }
    if from < 0 || to > len as i64 {
        let shown = |b: Option<i64>| b.map_or(String::new(), |b| b.to_string());
        let op = if inclusive { "..=" } else { ".." };
        let bad = if from < 0 { from } else { len as i64 };
        return Diag::new(
            ErrorKind::Index,
            span,
            format!(
                "slice [{}{op}{}] reaches index {bad}, out of range for {} of length {len}",
                shown(start),
                shown(end),
                target.kind_a()
            ),
        )
        .label("out of range")
        .help(format!(
            "indices run from 0 to {}; a slice is not clamped to the length: \
             write `xs[a..min(b, len(xs))]` to stop at the end",
            len as i64 - 1
        ))
        .err();
    }
    let (from, to) = (from as usize, to as usize);
    Ok(match target {
        Value::Str(_) => Value::Str(Rc::from(chars[from..to].iter().collect::<String>())),
        Value::List(xs) | Value::Tuple(xs) => same_kind(target, xs[from..to].to_vec()),
        _ => unreachable!("checked above"),
    })
}

/// Rebuilds a collection of the same kind as `like` from items.
fn same_kind(like: &Value, items: Vec<Value>) -> Value {
    match like {
        Value::Set(_) => Value::set(items),
        Value::Tuple(_) => Value::tuple(items),
        _ => Value::list(items),
    }
}

fn min_max(args: &[Value], span: Span, want_max: bool) -> Fallible<Value> {
    let pick = |a: &Value, b: &Value| (if picks(a, b, want_max) { b } else { a }).clone();
    match args {
        [a, b] => Ok(pick(a, b)),
        [xs] => {
            let items = expect_items(xs, span)?;
            let Some(first) = items.first() else {
                return Err(empty_extreme(span));
            };
            Ok(items[1..]
                .iter()
                .fold(first.clone(), |acc, x| pick(&acc, x)))
        }
        _ => unreachable!("arity checked in lowering"),
    }
}

/// Whether `max` (or `min`) of `a` then `b` is `b`: only when it is
/// strictly greater (smaller), so the first of equal values stays.
pub fn picks(a: &Value, b: &Value, want_max: bool) -> bool {
    (b > a) == want_max && b != a
}

/// `min` or `max` of no values.
pub fn empty_extreme(span: Span) -> Box<Diag> {
    Diag::new(ErrorKind::Invalid, span, "min/max of an empty collection")
        .label("this is empty")
        .boxed()
}

pub fn sum_ints(items: &[Value], span: Span) -> Fallible<i64> {
    let mut total: i64 = 0;
    for v in items {
        total = total
            .checked_add(expect_int(v, span)?)
            .ok_or_else(|| overflow(span, "sum"))?;
    }
    Ok(total)
}

pub fn mex_of(items: &[Value], span: Span) -> Fallible<i64> {
    let mut seen: Vec<i64> = Vec::with_capacity(items.len());
    for v in items {
        // An infinite ordinal never decides the mex of a finite collection.
        if !matches!(v, Value::Ordinal(_)) {
            seen.push(expect_int(v, span)?);
        }
    }
    seen.sort_unstable();
    let mut m = 0;
    for s in seen {
        if s == m {
            m += 1;
        } else if s > m {
            break;
        }
    }
    Ok(m)
}

/// Applies a pure built-in to evaluated arguments. Game questions and
/// families are not pure and are dispatched elsewhere.
pub fn apply_pure(b: Builtin, args: &[Value], span: Span) -> Fallible<Value> {
    use Builtin::*;
    let int = |i: usize| expect_int(&args[i], span);
    Ok(match b {
        Min => min_max(args, span, false)?,
        Max => min_max(args, span, true)?,
        Abs => Value::Int(int(0)?.checked_abs().ok_or_else(|| overflow(span, "abs"))?),
        Len => match &args[0] {
            Value::Str(s) => Value::Int(s.chars().count() as i64),
            Value::Table(t) => Value::Int(t.rows.len() as i64),
            v => Value::Int(expect_items(v, span)?.len() as i64),
        },
        Sum if args.len() == 2 => sum_from(expect_items(&args[0], span)?, &args[1], span)?,
        Sum => {
            let items = expect_items(&args[0], span)?;
            if items.iter().any(|v| matches!(v, Value::Ordinal(_))) {
                // Ordinal addition, in the order of the items.
                let mut total = Ordinal::zero();
                for v in items {
                    total = total
                        .add(&expect_ordinal(v, span)?)
                        .ok_or_else(|| overflow(span, "sum"))?;
                }
                Value::ordinal(total)
            } else {
                Value::Int(sum_ints(items, span)?)
            }
        }
        Sorted => {
            let mut items = expect_items(&args[0], span)?.to_vec();
            // Only what `<` orders: neighbours of one kind make all one kind.
            for w in items.windows(2) {
                super::ops::binary(crate::syntax::ast::BinaryOp::Lt, &w[0], &w[1], span)?;
            }
            items.sort();
            Value::list(items)
        }
        Distinct => {
            let items = expect_items(&args[0], span)?;
            let mut sorted: Vec<&Value> = items.iter().collect();
            sorted.sort();
            Value::Bool(sorted.windows(2).all(|w| w[0] != w[1]))
        }
        Update => {
            let items = expect_items(&args[0], span)?;
            let i = index_in(items.len(), int(1)?, span)?;
            let mut copy = items.to_vec();
            copy[i] = args[2].clone();
            same_kind(&args[0], copy)
        }
        Remove => {
            let items = expect_items(&args[0], span)?;
            let mut copy = items.to_vec();
            if let Some(pos) = copy.iter().position(|x| *x == args[1]) {
                copy.remove(pos);
            }
            same_kind(&args[0], copy)
        }
        Insert => {
            let mut copy = expect_items(&args[0], span)?.to_vec();
            copy.push(args[1].clone());
            same_kind(&args[0], copy)
        }
        Matches => {
            let xs = expect_items(&args[0], span)?;
            let pat = expect_items(&args[1], span)?;
            let hits = if pat.is_empty() || pat.len() > xs.len() {
                Vec::new()
            } else {
                (0..=xs.len() - pat.len())
                    .filter(|&i| xs[i..i + pat.len()] == *pat)
                    .map(|i| Value::Int(i as i64))
                    .collect()
            };
            Value::list(hits)
        }
        Splice => {
            let xs = expect_items(&args[0], span)?;
            let ys = expect_items(&args[2], span)?;
            let i = int(1)?;
            if i < 0 || i as usize + ys.len() > xs.len() {
                return Diag::new(
                    ErrorKind::Index,
                    span,
                    format!(
                        "splice of {} items at index {i} does not fit in a list of length {}",
                        ys.len(),
                        xs.len()
                    ),
                )
                .label("out of range")
                .err();
            }
            let mut copy = xs.to_vec();
            copy[i as usize..i as usize + ys.len()].clone_from_slice(ys);
            same_kind(&args[0], copy)
        }
        Log2 => {
            let n = int(0)?;
            if n < 1 {
                return invalid(span, format!("log2 of {n}"), "log2 needs an integer >= 1");
            }
            Value::Int(63 - n.leading_zeros() as i64)
        }
        // An ordinal base takes a natural exponent (an ordinal one is an
        // integer expected); an integer base no ordinal exponent.
        Pow if matches!(args[1], Value::Ordinal(_)) && !matches!(args[0], Value::Ordinal(_)) => {
            return Diag::new(
                ErrorKind::Invalid,
                span,
                format!("pow with the infinite exponent `{}`", args[1]),
            )
            .label("the exponent must be a natural number")
            .help("ordinals here are below ω^ω: exponents are natural numbers (ω^3, pow(w, n))")
            .err();
        }
        Pow => {
            let base = match &args[0] {
                Value::Ordinal(_) => None,
                _ => Some(int(0)?),
            };
            let e = int(1)?;
            if e < 0 {
                let why = "the exponent must be >= 0";
                return invalid(span, format!("pow with exponent {e}"), why);
            }
            let Some(a) = base else {
                let a = expect_ordinal(&args[0], span)?;
                return Ok(Value::ordinal(a.pow(e as u64).ok_or_else(|| {
                    let mut d = overflow(span, &format!("pow({}, {e})", args[0]));
                    d.label = "too large".into();
                    d.help = Some(
                        "ordinals have 64-bit exponents and coefficients and at most 100000 terms"
                            .into(),
                    );
                    d
                })?));
            };
            let e = u32::try_from(e).map_err(|_| overflow(span, "pow"))?;
            Value::Int(a.checked_pow(e).ok_or_else(|| overflow(span, "pow"))?)
        }
        Mex => Value::Int(mex_of(expect_items(&args[0], span)?, span)?),
        Low0 => {
            let n = int(0)?;
            if n < 0 {
                return invalid(span, format!("low0 of {n}"), "low0 needs an integer >= 0");
            }
            Value::Int((!n).trailing_zeros() as i64)
        }
        Isqrt => {
            let n = int(0)?;
            if n < 0 {
                return invalid(span, format!("isqrt of {n}"), "isqrt needs an integer >= 0");
            }
            Value::Int(n.isqrt())
        }
        NimMul => {
            let (a, b) = (int(0)?, int(1)?);
            if a < 0 || b < 0 {
                let why = "nim multiplication takes integers >= 0";
                return invalid(span, format!("nim_mul({a}, {b})"), why);
            }
            let product = super::nim_mul::nim_mul(a as u64, b as u64);
            Value::Int(
                i64::try_from(product)
                    .map_err(|_| overflow(span, &format!("nim_mul({a}, {b})")))?,
            )
        }
        Join => join(&args[0], &args[1], span)?,
        Nimsum => {
            let items = expect_items(&args[0], span)?;
            if items.iter().any(|v| matches!(v, Value::Ordinal(_))) {
                let ords = expect_ordinals(items, span)?;
                Value::ordinal(Ordinal::nim_sum_all(&ords))
            } else {
                let mut x = 0i64;
                for v in items {
                    x ^= expect_int(v, span)?;
                }
                Value::Int(x)
            }
        }
        Welter => welter(args, span)?,
        GoodMovesNim => {
            let items = expect_items(&args[0], span)?;
            let heaps = expect_ordinals(items, span)?;
            moves_value(items, ordinal::good_moves_nim(&heaps))
        }
        GoodMovesWelter => {
            let items = expect_items(&args[0], span)?;
            let squares = expect_ordinals(items, span)?;
            let moves =
                ordinal::good_moves_welter(&squares).map_err(|e| welter_error(e, items, span))?;
            moves_value(items, moves)
        }
        Cnf => {
            let a = expect_ordinal(&args[0], span)?;
            Value::list(
                a.terms()
                    .iter()
                    .map(|&(e, c)| Value::tuple(vec![Value::Int(e), Value::Int(c)]))
                    .collect(),
            )
        }
        Str => Value::Str(Rc::from(format!("{}", args[0]))),
        List => Value::list(collection_items(&args[0], span)?),
        Set => Value::set(collection_items(&args[0], span)?),
        Reversed => {
            let mut items = expect_items(&args[0], span)?.to_vec();
            items.reverse();
            same_kind(&Value::list(vec![]), items)
        }
        All | Any | Count => {
            let items = expect_items(&args[0], span)?;
            let mut n = 0i64;
            for v in items {
                n += expect_bool(v, span)? as i64;
            }
            match b {
                All => Value::Bool(n as usize == items.len()),
                Any => Value::Bool(n > 0),
                _ => Value::Int(n),
            }
        }
        Period => {
            let items = expect_items(&args[0], span)?;
            let (pre, per) = period_of(items);
            Value::tuple(vec![Value::Int(pre as i64), Value::Int(per as i64)])
        }
        Histogram => histogram(expect_items(&args[0], span)?, span)?,
        Inf => {
            let mut k = Vec::with_capacity(args.len());
            for a in args {
                let n = expect_int(a, span)?;
                if n < 0 {
                    let why = "the K of an infinite value holds SG values, which are at least 0";
                    return invalid(span, format!("inf({n}): a negative value"), why);
                }
                k.push(n as u64);
            }
            k.sort_unstable();
            k.dedup();
            Value::Infinite(Rc::from(k))
        }
        Sg | MemoHistogram | Outcome | Options | Winning | Remoteness | Table | Subtraction
        | Octal | Periodicity | Plot | Pass | Misere | Conjunctive | Selective | Hypergraph
        | OrdinalSum => {
            unreachable!("{} is not a pure built-in", b.name())
        }
    })
}

/// `sum(xs, start)`: `start + xs[0] + xs[1] + ...` with the language's
/// `+`; lists and strings are joined in place, not copied at every step.
fn sum_from(items: &[Value], start: &Value, span: Span) -> Fallible<Value> {
    let add = crate::syntax::ast::BinaryOp::Add;
    match start {
        Value::List(first) if items.iter().all(|v| matches!(v, Value::List(_))) => {
            let lists = items.iter().filter_map(Value::items);
            let len = first.len() + lists.clone().map(<[Value]>::len).sum::<usize>();
            crate::budget::check_grow(len * std::mem::size_of::<Value>(), span)?;
            let mut all = Vec::with_capacity(len);
            all.extend(first.iter().cloned());
            lists.for_each(|xs| all.extend(xs.iter().cloned()));
            Ok(Value::list(all))
        }
        Value::Str(first) if items.iter().all(|v| matches!(v, Value::Str(_))) => {
            let mut text = first.to_string();
            for v in items {
                if let Value::Str(s) = v {
                    crate::budget::check_grow(text.len() + s.len(), span)?;
                    text.push_str(s);
                }
            }
            Ok(Value::Str(Rc::from(text)))
        }
        _ => items.iter().try_fold(start.clone(), |total, v| {
            super::ops::binary(add, &total, v, span)
        }),
    }
}

/// `join(xs, sep)`: the items' text with `sep` between them.
fn join(xs: &Value, sep: &Value, span: Span) -> Fallible<Value> {
    let Value::Str(sep) = sep else {
        return Err(type_error(span, "a string to put between the items", sep));
    };
    let mut text = String::new();
    for (i, v) in collection_items(xs, span)?.iter().enumerate() {
        if i > 0 {
            text.push_str(sep);
        }
        match v {
            Value::Str(s) => text.push_str(s),
            other => text.push_str(&other.to_string()),
        }
        crate::budget::check_grow(text.len(), span)?;
    }
    Ok(Value::Str(Rc::from(text)))
}

/// `welter(a, b, ...)` or `welter(xs)`. All integers: Definition 2.6 on
/// any integers (by the mating method). With an infinite ordinal:
/// Definition 3.8, on distinct squares.
fn welter(args: &[Value], span: Span) -> Fallible<Value> {
    let items = match args {
        [xs] if xs.items().is_some() => expect_items(xs, span)?,
        _ => args,
    };
    if items.iter().all(|v| matches!(v, Value::Int(_))) {
        let xs: Vec<i64> = items
            .iter()
            .map(|v| expect_int(v, span))
            .collect::<Fallible<_>>()?;
        return ordinal::welter_ints(&xs)
            .map(Value::Int)
            .ok_or_else(|| overflow(span, "the Welter function"));
    }
    let squares = expect_ordinals(items, span)?;
    let value = ordinal::welter(&squares).map_err(|e| welter_error(e, items, span))?;
    Ok(Value::ordinal(value))
}

fn welter_error(e: WelterError, items: &[Value], span: Span) -> Box<Diag> {
    match e {
        WelterError::Repeated(i, j) => Diag::new(
            ErrorKind::Invalid,
            span,
            format!(
                "two coins on the square `{}` (positions {i} and {j})",
                items[i]
            ),
        )
        .label("not a Welter position")
        .help("the squares of a (transfinite) Welter position must be distinct")
        .boxed(),
        WelterError::Overflow => overflow(span, "the Welter function"),
    }
}

/// Moves `(index, to)` as the list of tuples `(index, from, to)`.
fn moves_value(items: &[Value], moves: Vec<(usize, Ordinal)>) -> Value {
    Value::list(
        moves
            .into_iter()
            .map(|(i, to)| {
                Value::tuple(vec![
                    Value::Int(i as i64),
                    items[i].clone(),
                    Value::ordinal(to),
                ])
            })
            .collect(),
    )
}

fn collection_items(v: &Value, span: Span) -> Fallible<Vec<Value>> {
    match v {
        Value::Table(t) => Ok(t.rows.iter().map(|r| Value::list(r.clone())).collect()),
        Value::Str(s) => Ok(s.chars().map(|c| Value::str(&c.to_string())).collect()),
        _ => Ok(expect_items(v, span)?.to_vec()),
    }
}

/// h[v] = number of items equal to v, for non-negative integers.
pub fn histogram(items: &[Value], span: Span) -> Fallible<Value> {
    let mut h: Vec<Value> = Vec::new();
    let mut infinite = Vec::new();
    for v in items {
        if let Value::Infinite(_) = v {
            infinite.push(v.clone());
            continue;
        }
        count_into(&mut h, v, span)?;
    }
    Ok(histogram_value(h, infinite))
}

/// Adds one to `h[v]`, the count of the integer `v` (0 to 2^24), `h`
/// grown with zeros to hold it; the counts are the integers of the
/// histogram's list (`histogram_value`).
pub fn count_into(h: &mut Vec<Value>, v: &Value, span: Span) -> Fallible<()> {
    let n = expect_int(v, span)?;
    if !(0..1 << 24).contains(&n) {
        let why = "histogram counts integers from 0 to 2^24";
        return invalid(span, format!("histogram of the value {n}"), why);
    }
    if h.len() <= n as usize {
        h.resize(n as usize + 1, Value::Int(0));
    }
    if let Value::Int(c) = &mut h[n as usize] {
        *c += 1;
    }
    Ok(())
}

/// A histogram's answer: the counts `h[v]` of the integers `v` (each an
/// `Int`); when infinite SG values (of a loopy game) occur too, which no
/// index names, the list of `(v, count)` pairs of every value that
/// occurs instead, integers first.
pub fn histogram_value(counts: Vec<Value>, mut infinite: Vec<Value>) -> Value {
    if infinite.is_empty() {
        return Value::list(counts);
    }
    infinite.sort();
    let mut pairs: Vec<Value> = (counts.into_iter().enumerate())
        .filter(|(_, c)| matches!(c, Value::Int(c) if *c > 0))
        .map(|(v, c)| Value::tuple(vec![Value::Int(v as i64), c]))
        .collect();
    for run in infinite.chunk_by(|a, b| a == b) {
        pairs.push(Value::tuple(vec![
            run[0].clone(),
            Value::Int(run.len() as i64),
        ]));
    }
    Value::list(pairs)
}

/// The shortest period p of the sequence (eventually: from some index on,
/// s[i] = s[i + p] up to the end), then the shortest preperiod for that p.
/// A finite sequence only suggests a period, so one is believed only when
/// its periodic part repeats at least twice and covers at least half of the
/// sequence; otherwise the answer is `(0, len)`.
pub fn period_of(items: &[Value]) -> (usize, usize) {
    let n = items.len();
    for p in 1..=n / 2 {
        let mut start = n - p;
        while start > 0 && items[start - 1] == items[start - 1 + p] {
            start -= 1;
        }
        if n - start >= (2 * p).max(n.div_ceil(2)) {
            return (start, p);
        }
    }
    (0, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Vec<Value> {
        xs.iter().map(|&x| Value::Int(x)).collect()
    }

    #[test]
    fn period_finds_shortest_period_and_preperiod() {
        assert_eq!(period_of(&ints(&[0, 1, 2, 0, 1, 2, 0, 1, 2])), (0, 3));
        assert_eq!(period_of(&ints(&[5, 0, 1, 0, 1, 0, 1])), (1, 2));
        assert_eq!(period_of(&ints(&[7, 7, 7, 7])), (0, 1));
        // A short run at the end is not taken for a period.
        let pnnn: Vec<i64> = (0..200).map(|n| (n % 4 != 0) as i64).collect();
        assert_eq!(period_of(&ints(&pnnn)), (0, 4));
    }

    #[test]
    fn mex_skips_repeats_and_gaps() {
        assert_eq!(mex_of(&ints(&[0, 1, 1, 3]), Span::default()).unwrap(), 2);
        assert_eq!(mex_of(&ints(&[1, 2]), Span::default()).unwrap(), 0);
    }

    #[test]
    fn overflow_is_an_error() {
        let r = apply_pure(Builtin::Pow, &ints(&[2, 64]), Span::default());
        assert_eq!(r.unwrap_err().kind, ErrorKind::Overflow);
    }
}
