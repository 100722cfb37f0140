//! Integer code: arithmetic and comparisons on integer locals and
//! constants, compiled without building values. `None` at run time means
//! "not the simple case" and sends the caller to the value path, which
//! also reports any error.

use std::rc::Rc;

use super::compiler::Compiler;
pub(crate) use super::int_tree::{map_locals, mentions, substitute};
use super::int_tree::{with_int_fn, with_int_op, BoolNode, IntNode, NotIntCode};
use crate::eval::builtins::Builtin;
use crate::eval::memo::{MaskCache, MAX_COORDS};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
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
        self[slot as usize].as_int()
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
    /// `e` as an operand of integer code: a local or a constant is kept
    /// apart (plans read them). `None` at run time (not an integer,
    /// overflow, division by zero) sends the caller to the value path,
    /// which reports the error properly.
    pub(crate) fn operand<L: Locals + ?Sized>(&self, e: &IrExpr) -> Option<Operand<L>> {
        self.int_operand(e).ok()
    }

    /// `operand`, or why `e` is not integer code.
    pub(crate) fn int_operand<L: Locals + ?Sized>(
        &self,
        e: &IrExpr,
    ) -> Result<Operand<L>, NotIntCode> {
        Ok(node_operand(&self.int_tree(e)?))
    }

    /// Comparisons of integer code joined by `and`, `or`, `not`, without
    /// building values; `None` at run time sends the caller to the value path.
    pub(crate) fn bool_expr<L: Locals + ?Sized>(&self, e: &IrExpr) -> Option<BoolCode<L>> {
        Some(bool_code(&self.bool_tree(e).ok()?))
    }
}

/// The closure of an integer node.
pub(crate) fn int_code<L: Locals + ?Sized>(node: &IntNode) -> IntCode<L> {
    match node {
        &IntNode::Const(n) => Box::new(move |_| Some(n)),
        &IntNode::Local(slot) => Box::new(move |x: &L| x.int(slot)),
        // One closure per operator, so the arithmetic is inlined.
        IntNode::Binary(op, l, r) => {
            let (l, r) = (node_operand(l), node_operand(r));
            with_int_op!(*op, |f| shaped(f, l, r))
        }
        // A function of one integer as one of two, the second unread.
        IntNode::Unary(fun, x) => {
            let x = node_operand(x);
            with_int_fn!(*fun, |f| shaped(move |a, _| f(a), x, Operand::Const(0)))
        }
        IntNode::If(cond, then, otherwise) => {
            let c = bool_code(cond);
            let (t, o) = (int_code(then), int_code(otherwise));
            Box::new(move |l| if c(l)? { t(l) } else { o(l) })
        }
        IntNode::ConstItem(items, index) => {
            let (items, index) = (items.clone(), int_code(index));
            Box::new(move |x| items.get(usize::try_from(index(x)?).ok()?).copied())
        }
        &IntNode::Item(slot, ref index) => {
            let index = int_code(index);
            Box::new(move |x| {
                let i = usize::try_from(index(x)?).ok()?;
                if let Some((seq, xs)) = x.items(slot) {
                    return if seq == Seq::Set {
                        None
                    } else {
                        xs.get(i).copied()
                    };
                }
                match x.value(slot)? {
                    Value::List(xs) | Value::Tuple(xs) => xs.get(i)?.as_int(),
                    _ => None,
                }
            })
        }
        &IntNode::Len(slot) => Box::new(move |x: &L| match x.items(slot) {
            Some((_, xs)) => Some(xs.len() as i64),
            None if x.bits(slot).is_some() => x.bits(slot).map(|m| m.count_ones() as i64),
            None => match x.value(slot)? {
                Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => Some(xs.len() as i64),
                _ => None,
            },
        }),
    }
}

/// A node as an operand: its two commonest forms kept apart.
pub(crate) fn node_operand<L: Locals + ?Sized>(node: &IntNode) -> Operand<L> {
    match *node {
        IntNode::Local(s) => Operand::Local(s),
        IntNode::Const(c) => Operand::Const(c),
        _ => Operand::Code(int_code(node)),
    }
}

/// The closure of a boolean node.
pub(crate) fn bool_code<L: Locals + ?Sized>(node: &BoolNode) -> BoolCode<L> {
    match node {
        &BoolNode::Const(b) => Box::new(move |_| Some(b)),
        BoolNode::Not(x) => {
            let x = bool_code(x);
            Box::new(move |l| x(l).map(|b| !b))
        }
        BoolNode::Either { or, l, r } => {
            let (l, r, want) = (bool_code(l), bool_code(r), *or);
            Box::new(move |x| {
                let a = l(x)?;
                if a == want {
                    return Some(want);
                }
                r(x)
            })
        }
        // One closure per operator, so the comparison is inlined.
        BoolNode::Compare(op, l, r) => {
            let (l, r) = (node_operand(l), node_operand(r));
            match op {
                BinaryOp::Eq => compare(l, r, |a, b| a == b),
                BinaryOp::Ne => compare(l, r, |a, b| a != b),
                BinaryOp::Lt => compare(l, r, |a, b| a < b),
                BinaryOp::Le => compare(l, r, |a, b| a <= b),
                BinaryOp::Gt => compare(l, r, |a, b| a > b),
                _ => compare(l, r, |a, b| a >= b),
            }
        }
        &BoolNode::In {
            ref item,
            slot,
            negate,
        } => {
            let item = node_operand(item);
            let cache = MaskCache::default();
            Box::new(move |x: &L| {
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
            })
        }
        &BoolNode::Distinct(slot) => Box::new(move |x: &L| {
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
        }),
        &BoolNode::ItemsEqual { a, b, negate } => items_equal(a, b, negate),
    }
}

/// `xs == ys` (`!=` when `negate`) between lists held as a frame's items,
/// each side a slot, sorted or not (`coins == sorted(coins)`), or between
/// two integers in slots; `None` at run time for anything else (the value
/// path compares those).
fn items_equal<L: Locals + ?Sized>(
    (a, sort_a): (Slot, bool),
    (b, sort_b): (Slot, bool),
    negate: bool,
) -> BoolCode<L> {
    if a == b && sort_a != sort_b {
        // `xs == sorted(xs)`: whether the list ascends, with no copy.
        return Box::new(move |x: &L| {
            let (seq, xs) = x.items(a)?;
            (seq == Seq::List).then(|| xs.windows(2).all(|w| w[0] <= w[1]) != negate)
        });
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
    Box::new(move |x: &L| {
        // Two integers (`a == b` of integer locals reads as this too).
        if let (false, false, Some(p), Some(q)) = (sort_a, sort_b, x.int(a), x.int(b)) {
            return Some((p == q) != negate);
        }
        let equal = list(x, a, sort_a)? == list(x, b, sort_b)?;
        Some(equal != negate)
    })
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
