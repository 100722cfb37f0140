//! Integer code: arithmetic and comparisons on integer locals and
//! constants, compiled without building values. `None` at run time means
//! "not the simple case" and sends the caller to the value path, which
//! also reports any error.

use std::rc::Rc;

use super::compiler::Compiler;
use crate::eval::builtins::Builtin;
use crate::eval::memo::{MaskCache, MAX_COORDS};
use crate::eval::ops;
use crate::eval::value::{Callable, Value};
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use smallvec::SmallVec;

/// Where integer code reads its locals: the frame of values of the general
/// path, or the frame of integers of a kernel (`[i64]`), which needs no tag
/// checks and no values built.
pub(crate) trait Locals: 'static {
    /// The integer in `slot`; `None` if it holds something else.
    fn int(&self, slot: Slot) -> Option<i64>;
    /// The value in `slot`, where the frame holds values.
    fn value(&self, slot: Slot) -> Option<&Value>;
    /// The items of the list, tuple or set in `slot`, where the frame
    /// holds them as integers (`KeyFrame`).
    fn items(&self, _slot: Slot) -> Option<(Seq, &[i64])> {
        None
    }
    /// The bit mask of the set of integers 0..63 in `slot`, where the
    /// frame holds it as one (`KeyFrame`, a `Tag::Bits` argument).
    fn bits(&self, _slot: Slot) -> Option<u64> {
        None
    }
}

/// Which kind of sequence a frame's integer items make.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seq {
    List,
    Tuple,
    Set,
}

impl Locals for [Value] {
    #[inline]
    fn int(&self, slot: Slot) -> Option<i64> {
        match self[slot as usize] {
            Value::Int(n) => Some(n),
            _ => None,
        }
    }

    #[inline]
    fn value(&self, slot: Slot) -> Option<&Value> {
        Some(&self[slot as usize])
    }
}

impl Locals for [i64] {
    #[inline]
    fn int(&self, slot: Slot) -> Option<i64> {
        self.get(slot as usize).copied()
    }

    #[inline]
    fn value(&self, _slot: Slot) -> Option<&Value> {
        None
    }
}

/// Integer-only code; `None` means "not the simple case".
pub(crate) type IntCode<L = [Value]> = Box<dyn Fn(&L) -> Option<i64>>;
/// Boolean code over integers; `None` means "not the simple case".
pub(crate) type BoolCode<L = [Value]> = Box<dyn Fn(&L) -> Option<bool>>;

/// An operand of integer code: its two commonest forms are kept apart, so
/// that hot paths read them without a call.
pub(crate) enum Operand<L: ?Sized = [Value]> {
    Local(Slot),
    Const(i64),
    Code(IntCode<L>),
}

impl<L: Locals + ?Sized> Operand<L> {
    #[inline]
    pub(crate) fn eval(&self, locals: &L) -> Option<i64> {
        match self {
            Operand::Local(slot) => locals.int(*slot),
            Operand::Const(c) => Some(*c),
            Operand::Code(code) => code(locals),
        }
    }
}

/// Integer code for `f(l, r)`, specialised on the operands' forms.
pub(crate) fn shaped<L: Locals + ?Sized>(
    f: impl Fn(i64, i64) -> Option<i64> + 'static,
    l: Operand<L>,
    r: Operand<L>,
) -> IntCode<L> {
    use Operand::*;
    match (l, r) {
        (Local(a), Local(b)) => Box::new(move |x| f(x.int(a)?, x.int(b)?)),
        (Local(a), Const(c)) => Box::new(move |x| f(x.int(a)?, c)),
        (Const(c), Local(b)) => Box::new(move |x| f(c, x.int(b)?)),
        (Code(p), Const(c)) => Box::new(move |x| f(p(x)?, c)),
        (Const(c), Code(q)) => Box::new(move |x| f(c, q(x)?)),
        (Code(p), Local(b)) => Box::new(move |x| f(p(x)?, x.int(b)?)),
        (Local(a), Code(q)) => Box::new(move |x| f(x.int(a)?, q(x)?)),
        (Code(p), Code(q)) => Box::new(move |x| f(p(x)?, q(x)?)),
        (Const(a), Const(b)) => {
            let v = f(a, b);
            Box::new(move |_| v)
        }
    }
}

impl Compiler<'_> {
    /// Integer arithmetic on locals and constants without building values.
    /// `None` at run time (not an integer, overflow, division by zero) sends
    /// the caller to the value path, which reports the error properly.
    pub(crate) fn int_expr<L: Locals + ?Sized>(&self, e: &IrExpr) -> Option<IntCode<L>> {
        match &e.kind {
            IrKind::Const(Value::Int(n)) => {
                let n = *n;
                Some(Box::new(move |_| Some(n)))
            }
            IrKind::Local(slot) => {
                let slot = *slot;
                Some(Box::new(move |x: &L| x.int(slot)))
            }
            IrKind::Binary { op, lhs, rhs, .. }
                if matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::Div
                        | BinaryOp::Mod
                        | BinaryOp::BitOr
                        | BinaryOp::Xor
                        | BinaryOp::BitAnd
                        | BinaryOp::Shl
                        | BinaryOp::Shr
                ) =>
            {
                let (l, r) = (self.operand(lhs)?, self.operand(rhs)?);
                // Floor division and modulo by a positive constant are the
                // Euclidean ones, without `int_op`'s general case.
                if let (BinaryOp::Div | BinaryOp::Mod, Operand::Const(c)) = (op, &r) {
                    if let Some(d) = ops::ConstDivisor::new(*c) {
                        return Some(if *op == BinaryOp::Div {
                            shaped(move |a, _| Some(d.floor_div(a)), l, r)
                        } else {
                            shaped(move |a, _| Some(d.floor_mod(a)), l, r)
                        });
                    }
                }
                // One closure per operator, so the arithmetic is inlined.
                Some(match op {
                    BinaryOp::Add => shaped(|a, b| a.checked_add(b), l, r),
                    BinaryOp::Sub => shaped(|a, b| a.checked_sub(b), l, r),
                    BinaryOp::Mul => shaped(|a, b| a.checked_mul(b), l, r),
                    BinaryOp::BitOr => shaped(|a, b| Some(a | b), l, r),
                    BinaryOp::Xor => shaped(|a, b| Some(a ^ b), l, r),
                    BinaryOp::BitAnd => shaped(|a, b| Some(a & b), l, r),
                    // `int_op` gives the language's shifts: a negative or
                    // overflowing shift is the value path's error.
                    &op @ (BinaryOp::Shl | BinaryOp::Shr) => {
                        shaped(move |a, b| ops::int_op(op, a, b), l, r)
                    }
                    &op => shaped(
                        move |a, b| {
                            if b == 0 {
                                return None;
                            }
                            ops::int_op(op, a, b)
                        },
                        l,
                        r,
                    ),
                })
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Min | Builtin::Max),
                args,
            } if args.len() == 2 => {
                let (l, r) = (self.operand(&args[0])?, self.operand(&args[1])?);
                Some(if *b == Builtin::Max {
                    shaped(|a, b| Some(a.max(b)), l, r)
                } else {
                    shaped(|a, b| Some(a.min(b)), l, r)
                })
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Abs,
                args,
            } => {
                let x = self.int_expr(&args[0])?;
                Some(Box::new(move |l| x(l)?.checked_abs()))
            }
            IrKind::If {
                cond,
                then,
                otherwise,
            } => {
                // Only the branch taken runs, as on the value path.
                let c = self.bool_expr(cond)?;
                let (t, o) = (self.int_expr(then)?, self.int_expr(otherwise)?);
                Some(Box::new(move |l| if c(l)? { t(l) } else { o(l) }))
            }
            // Outside their domains these give `None`: the value path
            // reports the error.
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Log2 | Builtin::Low0),
                args,
            } => {
                let x = self.int_expr(&args[0])?;
                let f: fn(i64) -> Option<i64> = match b {
                    Builtin::Log2 => |n| (n >= 1).then(|| 63 - n.leading_zeros() as i64),
                    _ => |n| (n >= 0).then(|| (!n).trailing_zeros() as i64),
                };
                Some(Box::new(move |l| f(x(l)?)))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Pow,
                args,
            } if args.len() == 2 => {
                let (a, e) = (self.operand(&args[0])?, self.operand(&args[1])?);
                Some(shaped(|a, e| a.checked_pow(u32::try_from(e).ok()?), a, e))
            }
            IrKind::Index { target, index } if const_ints(target).is_some() => {
                // A constant list of integers (a static argument put in).
                let items = const_ints(target)?;
                let index = self.int_expr(index)?;
                Some(Box::new(move |x| {
                    items.get(usize::try_from(index(x)?).ok()?).copied()
                }))
            }
            IrKind::Index { target, index } => {
                let slot = local_slot(target)?;
                let index = self.int_expr(index)?;
                Some(Box::new(move |x| {
                    let i = usize::try_from(index(x)?).ok()?;
                    if let Some((seq, xs)) = x.items(slot) {
                        return if seq == Seq::Set {
                            None
                        } else {
                            xs.get(i).copied()
                        };
                    }
                    match x.value(slot)? {
                        Value::List(xs) | Value::Tuple(xs) => match xs.get(i)? {
                            Value::Int(n) => Some(*n),
                            _ => None,
                        },
                        _ => None,
                    }
                }))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Len,
                args,
            } => {
                if let IrKind::Const(Value::List(xs) | Value::Tuple(xs) | Value::Set(xs)) =
                    &args[0].kind
                {
                    let n = xs.len() as i64;
                    return Some(Box::new(move |_| Some(n)));
                }
                let slot = local_slot(&args[0])?;
                Some(Box::new(move |x: &L| match x.items(slot) {
                    Some((_, xs)) => Some(xs.len() as i64),
                    None if x.bits(slot).is_some() => x.bits(slot).map(|m| m.count_ones() as i64),
                    None => match x.value(slot)? {
                        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => {
                            Some(xs.len() as i64)
                        }
                        _ => None,
                    },
                }))
            }
            IrKind::CallFn { .. } | IrKind::CallValue { .. } if self.inline_depth.get() < 8 => {
                // A small integer function is inlined: its body with the
                // arguments put in for the parameters.
                let body = self.call_body(e)?;
                self.inline_depth.set(self.inline_depth.get() + 1);
                let code = self.int_expr(&body);
                self.inline_depth.set(self.inline_depth.get() - 1);
                code
            }
            _ => None,
        }
    }

    /// The body of a call of a user function with the arguments put in,
    /// to inline it: `f(args)`, or a call of a function value known when
    /// compiling (`h(z)` with `h` a static argument put in as a constant:
    /// `specialize.rs`), its own static arguments first. `None` for any
    /// other call, one with a number of arguments not the function's, and
    /// one passing an argument that could fail (anything but a local or a
    /// constant) that the body never reads: the call evaluates it, and
    /// its error must not be lost in place.
    pub(crate) fn call_body(&self, e: &IrExpr) -> Option<IrExpr> {
        let (f, args) = self.called(e)?;
        let can_fail = |a: &IrExpr| !matches!(a.kind, IrKind::Local(_) | IrKind::Const(_));
        let unread = (0..args.len()).any(|i| can_fail(&args[i]) && !mentions(&f.body, i as Slot));
        if unread {
            return None;
        }
        substitute(&f.body, &args)
    }

    /// The user function `e` calls and its arguments, the static ones
    /// first (a slot each, as the function's body reads them).
    pub(crate) fn called(&self, e: &IrExpr) -> Option<(&IrFn, Vec<IrExpr>)> {
        let (func, args) = match &e.kind {
            IrKind::CallFn { func, args } => (*func, args.clone()),
            IrKind::CallValue { callee, args } => match &callee.kind {
                IrKind::Const(Value::Func(f)) => match &**f {
                    Callable::User { id, statics, .. } => {
                        let known = statics.iter().map(|v| IrExpr {
                            kind: IrKind::Const(v.clone()),
                            span: callee.span,
                        });
                        (*id, known.chain(args.iter().cloned()).collect())
                    }
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        let f = self.fn_ir.get(func as usize)?.as_ref()?;
        if f.n_statics + f.n_params != args.len() {
            return None;
        }
        Some((f, args))
    }

    /// `e` as an operand of integer code.
    pub(crate) fn operand<L: Locals + ?Sized>(&self, e: &IrExpr) -> Option<Operand<L>> {
        Some(match e.kind {
            IrKind::Local(s) => Operand::Local(s),
            IrKind::Const(Value::Int(c)) => Operand::Const(c),
            _ => Operand::Code(self.int_expr(e)?),
        })
    }

    /// Comparisons of integer code joined by `and`, `or`, `not`, without
    /// building values; `None` at run time sends the caller to the value path.
    pub(crate) fn bool_expr<L: Locals + ?Sized>(&self, e: &IrExpr) -> Option<BoolCode<L>> {
        match &e.kind {
            IrKind::CallBuiltin {
                builtin: Builtin::Distinct,
                args,
            } => {
                let slot = local_slot(&args[0])?;
                Some(Box::new(move |x: &L| {
                    if x.bits(slot).is_some() {
                        return Some(true); // a set repeats nothing
                    }
                    let (_, xs) = x.items(slot)?;
                    // Lists kept sorted (the usual case): no copy, no sort.
                    if xs.windows(2).all(|w| w[0] < w[1]) {
                        return Some(true);
                    }
                    if xs.len() <= 8 {
                        // Few items: each pair, without sorting a copy.
                        let mut pairs = xs.iter().enumerate();
                        return Some(pairs.all(|(i, a)| !xs[i + 1..].contains(a)));
                    }
                    let mut sorted: SmallVec<[i64; MAX_COORDS]> = xs.iter().copied().collect();
                    sorted.sort_unstable();
                    Some(sorted.windows(2).all(|w| w[0] != w[1]))
                }))
            }
            IrKind::Const(Value::Bool(b)) => {
                let b = *b;
                Some(Box::new(move |_| Some(b)))
            }
            IrKind::Unary(UnaryOp::Not, x) => {
                let x = self.bool_expr(x)?;
                Some(Box::new(move |l| x(l).map(|b| !b)))
            }
            IrKind::Binary { op, lhs, rhs, .. } => match op {
                BinaryOp::In | BinaryOp::NotIn => {
                    // An integer in a list, set or tuple held in a local.
                    let (item, slot) = (self.operand(lhs)?, local_slot(rhs)?);
                    let negate = *op == BinaryOp::NotIn;
                    let cache = MaskCache::default();
                    Some(Box::new(move |x: &L| {
                        let v = item.eval(x)?;
                        let found = match x.items(slot) {
                            Some((_, xs)) => xs.contains(&v),
                            None if x.bits(slot).is_some() => {
                                let m = x.bits(slot).expect("checked");
                                (0..64).contains(&v) && (m >> v) & 1 == 1
                            }
                            None => match x.value(slot)? {
                                // A set of small integers: a bit of its mask.
                                Value::Set(xs) if cache.mask(xs).is_some() => {
                                    let m = cache.mask(xs).expect("checked");
                                    (0..64).contains(&v) && (m >> v) & 1 == 1
                                }
                                Value::Set(xs) => xs
                                    .binary_search_by(|x| match x {
                                        Value::Int(n) => n.cmp(&v),
                                        other => other.cmp(&Value::Int(v)),
                                    })
                                    .is_ok(),
                                Value::List(xs) | Value::Tuple(xs) => xs.contains(&Value::Int(v)),
                                _ => return None,
                            },
                        };
                        Some(found != negate)
                    }))
                }
                BinaryOp::And | BinaryOp::Or => {
                    let (l, r) = (self.bool_expr(lhs)?, self.bool_expr(rhs)?);
                    let want = *op == BinaryOp::Or;
                    Some(Box::new(move |x| {
                        let a = l(x)?;
                        if a == want {
                            return Some(want);
                        }
                        r(x)
                    }))
                }
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => {
                    if let Some(code) = items_equal(*op, lhs, rhs) {
                        return Some(code);
                    }
                    let (l, r) = (self.operand(lhs)?, self.operand(rhs)?);
                    // One closure per operator, so the comparison is inlined.
                    Some(match op {
                        BinaryOp::Eq => compare(l, r, |a, b| a == b),
                        BinaryOp::Ne => compare(l, r, |a, b| a != b),
                        BinaryOp::Lt => compare(l, r, |a, b| a < b),
                        BinaryOp::Le => compare(l, r, |a, b| a <= b),
                        BinaryOp::Gt => compare(l, r, |a, b| a > b),
                        _ => compare(l, r, |a, b| a >= b),
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// `xs == ys` or `xs != ys` between lists held as a frame's items, each a
/// local or `sorted(local)` (`coins == sorted(coins)`); `None` at run time
/// for anything but two lists (the value path compares those).
fn items_equal<L: Locals + ?Sized>(
    op: BinaryOp,
    lhs: &IrExpr,
    rhs: &IrExpr,
) -> Option<BoolCode<L>> {
    let side = |e: &IrExpr| match &e.kind {
        IrKind::Local(s) => Some((*s, false)),
        IrKind::CallBuiltin {
            builtin: Builtin::Sorted,
            args,
        } if args.len() == 1 => Some((local_slot(&args[0])?, true)),
        _ => None,
    };
    let ((a, sort_a), (b, sort_b)) = (side(lhs)?, side(rhs)?);
    let negate = match op {
        BinaryOp::Eq => false,
        BinaryOp::Ne => true,
        _ => return None,
    };
    if a == b && sort_a != sort_b {
        // `xs == sorted(xs)`: whether the list ascends, with no copy.
        return Some(Box::new(move |x: &L| {
            let (seq, xs) = x.items(a)?;
            (seq == Seq::List).then(|| xs.windows(2).all(|w| w[0] <= w[1]) != negate)
        }));
    }
    let list = |x: &L, slot: Slot, sort: bool| -> Option<SmallVec<[i64; MAX_COORDS]>> {
        let (seq, xs) = x.items(slot)?;
        // `sorted` of a set or tuple is a list; a list is compared only
        // with a list here.
        if seq != Seq::List && !sort {
            return None;
        }
        let mut xs: SmallVec<[i64; MAX_COORDS]> = SmallVec::from_slice(xs);
        if sort {
            xs.sort_unstable();
        }
        Some(xs)
    };
    Some(Box::new(move |x: &L| {
        let equal = list(x, a, sort_a)? == list(x, b, sort_b)?;
        Some(equal != negate)
    }))
}

/// Boolean code for `f(l, r)`, a local against a constant read without a
/// call through an operand.
fn compare<L: Locals + ?Sized>(
    l: Operand<L>,
    r: Operand<L>,
    f: impl Fn(i64, i64) -> bool + 'static,
) -> BoolCode<L> {
    match (l, r) {
        (Operand::Local(a), Operand::Const(c)) => Box::new(move |x| Some(f(x.int(a)?, c))),
        (Operand::Local(a), Operand::Local(b)) => Box::new(move |x| Some(f(x.int(a)?, x.int(b)?))),
        (l, r) => Box::new(move |x| Some(f(l.eval(x)?, r.eval(x)?))),
    }
}

/// The slot of `e` if it is a local: the list forms of integer code read
/// their list from a slot.
/// The items of `e` if it is a constant list or tuple of integers.
fn const_ints(e: &IrExpr) -> Option<Rc<[i64]>> {
    match &e.kind {
        IrKind::Const(Value::List(xs) | Value::Tuple(xs)) => xs
            .iter()
            .map(|x| match x {
                Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn local_slot(e: &IrExpr) -> Option<Slot> {
    match e.kind {
        IrKind::Local(slot) => Some(slot),
        _ => None,
    }
}

/// `(xs, i)` if `e` is `sorted(update(xs, i, k))` with `xs` a local other
/// than `k` and `i` not mentioning `k`.
pub(crate) fn sorted_update_of(e: &IrExpr, k: Slot) -> Option<(Slot, &IrExpr)> {
    let IrKind::CallBuiltin {
        builtin: Builtin::Sorted,
        args,
    } = &e.kind
    else {
        return None;
    };
    let [list, index, value] = args.first()?.as_update()?;
    match (&list.kind, &value.kind) {
        (IrKind::Local(list), IrKind::Local(value))
            if *value == k && *list != k && !mentions(index, k) =>
        {
            Some((*list, index))
        }
        _ => None,
    }
}

/// Whether `e` reads the local `slot`.
pub(crate) fn mentions(e: &IrExpr, slot: Slot) -> bool {
    match &e.kind {
        IrKind::Local(s) => *s == slot,
        // Comprehensions and lets may bind the same slot again; be
        // conservative.
        kind => kind
            .children()
            .is_none_or(|cs| cs.into_iter().any(|x| mentions(x, slot))),
    }
}

/// Whether `e` reads a top-level constant (`IrKind::Global`), itself or
/// through the bodies of the functions in `fns` it calls (8 calls deep).
pub(crate) fn reads_global(e: &IrExpr, fns: &[Option<Rc<IrFn>>]) -> bool {
    reads_global_within(e, fns, 0)
}

fn reads_global_within(e: &IrExpr, fns: &[Option<Rc<IrFn>>], depth: u32) -> bool {
    let reads_global = |x: &IrExpr| reads_global_within(x, fns, depth);
    let comp = |c: &IrComp| {
        reads_global(&c.body)
            || c.clauses.iter().any(|clause| match clause {
                IrClause::For(b) => reads_global(&b.iterable),
                IrClause::If(e) => reads_global(e),
            })
    };
    match &e.kind {
        IrKind::Global(_) => true,
        IrKind::CallFn { func, args } => {
            let f = fns.get(*func as usize).and_then(|f| f.as_ref());
            args.iter().any(reads_global)
                || (depth < 8 && f.is_some_and(|f| reads_global_within(&f.body, fns, depth + 1)))
        }
        IrKind::Collect { comp: c, .. } | IrKind::Aggregate { comp: c, .. } => comp(c),
        IrKind::Let { value, body, .. } => reads_global(value) || reads_global(body),
        kind => kind
            .children()
            .is_some_and(|cs| cs.into_iter().any(reads_global)),
    }
}

/// `body` with parameter `i` replaced by `args[i]`, for the integer forms
/// `int_expr` understands; `None` for anything else.
pub(crate) fn substitute(body: &IrExpr, args: &[IrExpr]) -> Option<IrExpr> {
    map_locals(body, &|s| args.get(s as usize).cloned())
}

/// `e` with each local `s` replaced by `local(s)`, for the forms integer
/// code and in-place calls read (arithmetic, `if`, calls, positions,
/// indexing, list, set and tuple literals); `None` for any other form or
/// when `local` gives `None`.
pub(crate) fn map_locals(e: &IrExpr, local: &dyn Fn(Slot) -> Option<IrExpr>) -> Option<IrExpr> {
    let kind = match &e.kind {
        IrKind::Local(s) => return local(*s),
        // Not read by integer code or in-place calls.
        IrKind::Range { .. }
        | IrKind::GameRef { .. }
        | IrKind::FnRef { .. }
        | IrKind::BuiltinRef(_)
        | IrKind::Field { .. }
        | IrKind::Slice { .. } => return None,
        kind => kind.map_children(&mut |x| map_locals(x, local))?,
    };
    Some(IrExpr { kind, span: e.span })
}
