//! The integer tree: integer and boolean code lowered once from `IrExpr`,
//! with calls of small functions inlined, into nodes over the slots of a
//! frame. `int_code.rs` generates per-option closures from it and
//! `batch_code.rs` code over a run of one binding; neither reads `IrExpr`.
//! A subexpression that is not integer code is refused with the reason.

use std::rc::Rc;

use super::compiler::Compiler;
use crate::eval::builtins::Builtin;
use crate::eval::ops::ConstDivisor;
use crate::eval::value::{Callable, Value};
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use crate::syntax::Span;

/// Why a subexpression is not integer code, and where it is: the
/// refusal `--explain` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotIntCode {
    pub why: &'static str,
    pub span: Span,
}

/// The refusal of `e`.
fn refuse(e: &IrExpr, why: &'static str) -> NotIntCode {
    NotIntCode { why, span: e.span }
}

/// Integer code. Each step that can fail at run time (overflow, a zero
/// divisor, an index out of range, a slot that is not an integer) gives
/// `None` there, and the general path reports the error. Equal nodes
/// are the same code (the atoms of the proofs, `guaranteed.rs`).
#[derive(Clone, PartialEq)]
pub(crate) enum IntNode {
    Const(i64),
    Local(Slot),
    Binary(IntOp, Box<IntNode>, Box<IntNode>),
    Unary(IntFn, Box<IntNode>),
    /// Only the branch taken runs, as on the value path.
    If(Box<BoolNode>, Box<IntNode>, Box<IntNode>),
    /// An item of a constant list of integers (a static argument put in).
    ConstItem(Rc<[i64]>, Box<IntNode>),
    /// An item of the list or tuple in a slot.
    Item(Slot, Box<IntNode>),
    /// The length of the list, tuple or set in a slot.
    Len(Slot),
}

/// An arithmetic operator, or `min`, `max`, `pow`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntOp {
    Op(BinaryOp),
    Builtin(Builtin),
}

/// `abs`, `log2`, `low0`, or `/` and `%` by a positive constant
/// (multiplications and shifts).
#[derive(Clone, Copy)]
pub(crate) enum IntFn {
    Builtin(Builtin),
    FloorDiv(ConstDivisor),
    FloorMod(ConstDivisor),
}

impl PartialEq for IntFn {
    fn eq(&self, other: &IntFn) -> bool {
        use IntFn::*;
        match (self, other) {
            (Builtin(a), Builtin(b)) => a == b,
            (FloorDiv(a), FloorDiv(b)) | (FloorMod(a), FloorMod(b)) => a.divisor() == b.divisor(),
            _ => false,
        }
    }
}

/// Comparisons of integer code joined by `and`, `or`, `not`.
#[derive(Clone, PartialEq)]
pub(crate) enum BoolNode {
    Const(bool),
    Not(Box<BoolNode>),
    /// `l or r` when `or`, else `l and r`: `r` runs only if `l` does not
    /// decide.
    Either {
        or: bool,
        l: Box<BoolNode>,
        r: Box<BoolNode>,
    },
    /// `l op r` for a comparison operator `op`.
    Compare(BinaryOp, IntNode, IntNode),
    /// An integer in (or, when `negate`, not in) the list, tuple or set
    /// in a slot.
    In {
        item: IntNode,
        slot: Slot,
        negate: bool,
    },
    /// `distinct(xs)`, `xs` in a slot.
    Distinct(Slot),
    /// `xs == ys` (`!=` when `negate`) between lists (or integers) in
    /// slots, each side `(slot, sorted)`: the slot itself or `sorted` of
    /// it.
    ItemsEqual {
        a: (Slot, bool),
        b: (Slot, bool),
        negate: bool,
    },
}

impl IntNode {
    /// Whether the node reads the slot `k`.
    pub(crate) fn reads(&self, k: Slot) -> bool {
        match self {
            IntNode::Const(_) => false,
            &IntNode::Local(s) | &IntNode::Len(s) => s == k,
            IntNode::Binary(_, l, r) => l.reads(k) || r.reads(k),
            IntNode::Unary(_, x) | IntNode::ConstItem(_, x) => x.reads(k),
            IntNode::If(c, t, o) => c.reads(k) || t.reads(k) || o.reads(k),
            &IntNode::Item(s, ref i) => s == k || i.reads(k),
        }
    }

    /// The node with the local `k` replaced by the constant `c` (the
    /// bases of the polynomial readings, `linear.rs`; a move over a
    /// constant set, one setting at a time); `None` where `k` is read as
    /// a list.
    pub(crate) fn with_local(&self, k: Slot, c: i64) -> Option<IntNode> {
        let put = |x: &IntNode| x.with_local(k, c).map(Box::new);
        Some(match self {
            _ if !self.reads(k) => self.clone(),
            IntNode::Local(_) => IntNode::Const(c),
            IntNode::Binary(op, l, r) => IntNode::Binary(*op, put(l)?, put(r)?),
            IntNode::Unary(f, x) => IntNode::Unary(*f, put(x)?),
            IntNode::ConstItem(xs, i) => IntNode::ConstItem(xs.clone(), put(i)?),
            IntNode::If(b, t, o) => IntNode::If(Box::new(b.with_local(k, c)?), put(t)?, put(o)?),
            &IntNode::Item(s, ref i) if s != k => IntNode::Item(s, put(i)?),
            IntNode::Const(_) | IntNode::Item(..) | IntNode::Len(_) => return None,
        })
    }
}

impl BoolNode {
    /// The conjuncts of the node (`x and y and ...`), in order.
    pub(crate) fn conjuncts(&self) -> Vec<&BoolNode> {
        match self {
            BoolNode::Either { or: false, l, r } => [l.conjuncts(), r.conjuncts()].concat(),
            _ => vec![self],
        }
    }

    /// The node with the local `k` replaced by the constant `c`, as
    /// `IntNode::with_local`.
    pub(crate) fn with_local(&self, k: Slot, c: i64) -> Option<BoolNode> {
        let put = |x: &BoolNode| x.with_local(k, c).map(Box::new);
        Some(match self {
            _ if !self.reads(k) => self.clone(),
            BoolNode::Not(x) => BoolNode::Not(put(x)?),
            &BoolNode::Either { or, ref l, ref r } => BoolNode::Either {
                or,
                l: put(l)?,
                r: put(r)?,
            },
            BoolNode::Compare(op, l, r) => {
                BoolNode::Compare(*op, l.with_local(k, c)?, r.with_local(k, c)?)
            }
            &BoolNode::In {
                ref item,
                slot,
                negate,
            } if slot != k => BoolNode::In {
                item: item.with_local(k, c)?,
                slot,
                negate,
            },
            _ => return None,
        })
    }

    /// Whether the node reads the slot `k`.
    pub(crate) fn reads(&self, k: Slot) -> bool {
        match self {
            BoolNode::Const(_) => false,
            BoolNode::Not(x) => x.reads(k),
            BoolNode::Either { l, r, .. } => l.reads(k) || r.reads(k),
            BoolNode::Compare(_, l, r) => l.reads(k) || r.reads(k),
            BoolNode::In { item, slot, .. } => *slot == k || item.reads(k),
            &BoolNode::Distinct(s) => s == k,
            BoolNode::ItemsEqual { a, b, .. } => a.0 == k || b.0 == k,
        }
    }
}

/// `$body` for the value of `$x`, with `$f` bound to the closure of its
/// arm: one instance of `$body` per arm, so that the closure inlines.
macro_rules! per_arm {
    ($x:expr, |$f:ident| $body:expr, $($pat:pat => $fun:expr,)*) => {
        match $x { $($pat => { let $f = $fun; $body })* }
    };
}
pub(crate) use per_arm;

/// `$body` with `$f` the arithmetic of the `IntOp` `$op`; `None` from
/// `$f`: overflow, a zero divisor, a shift out of range.
macro_rules! with_int_op {
    ($op:expr, |$f:ident| $body:expr) => {{
        use $crate::eval::builtins::Builtin as F;
        use $crate::eval::compile::int_tree::{per_arm, IntOp::*};
        use $crate::eval::ops::int_op;
        use $crate::syntax::ast::BinaryOp as B;
        per_arm!($op, |$f| $body,
            Op(B::Add) => |a: i64, b: i64| a.checked_add(b),
            Op(B::Sub) => |a: i64, b: i64| a.checked_sub(b),
            Op(B::Mul) => |a: i64, b: i64| a.checked_mul(b),
            Op(B::BitOr) => |a: i64, b: i64| Some(a | b),
            Op(B::Xor) => |a: i64, b: i64| Some(a ^ b),
            Op(B::BitAnd) => |a: i64, b: i64| Some(a & b),
            Op(op @ (B::Shl | B::Shr)) => move |a: i64, b: i64| int_op(op, a, b),
            Op(op) => move |a: i64, b: i64| if b == 0 { None } else { int_op(op, a, b) },
            Builtin(F::Min) => |a: i64, b: i64| Some(a.min(b)),
            Builtin(F::Max) => |a: i64, b: i64| Some(a.max(b)),
            Builtin(_) => |a: i64, e: i64| a.checked_pow(u32::try_from(e).ok()?),
        )
    }};
}
pub(crate) use with_int_op;

/// `$body` with `$f` the `IntFn` `$fun`; outside its domain `$f` gives
/// `None`.
macro_rules! with_int_fn {
    ($fun:expr, |$f:ident| $body:expr) => {{
        use $crate::eval::builtins::Builtin as F;
        use $crate::eval::compile::int_tree::{per_arm, IntFn::*};
        per_arm!($fun, |$f| $body,
            Builtin(F::Abs) => |a: i64| a.checked_abs(),
            Builtin(F::Log2) => |n: i64| (n >= 1).then(|| 63 - n.leading_zeros() as i64),
            Builtin(_) => |n: i64| (n >= 0).then(|| (!n).trailing_zeros() as i64),
            FloorDiv(d) => move |a: i64| Some(d.floor_div(a)),
            FloorMod(d) => move |a: i64| Some(d.floor_mod(a)),
        )
    }};
}
pub(crate) use with_int_fn;

impl Compiler<'_> {
    /// `e` as integer code, or why it is not.
    pub(crate) fn int_tree(&self, e: &IrExpr) -> Result<IntNode, NotIntCode> {
        let node = |x: IntNode| Box::new(x);
        Ok(match &e.kind {
            IrKind::Const(Value::Int(n)) => IntNode::Const(*n),
            IrKind::Const(_) => return Err(refuse(e, "a constant that is not an integer")),
            IrKind::Local(slot) => IntNode::Local(*slot),
            IrKind::Binary { op, lhs, rhs, .. } if is_arithmetic(*op) => {
                let (l, r) = (self.int_tree(lhs)?, self.int_tree(rhs)?);
                match (op, &r) {
                    (BinaryOp::Div | BinaryOp::Mod, &IntNode::Const(c)) if c > 0 => {
                        let d = ConstDivisor::new(c).expect("positive");
                        let f = match op {
                            BinaryOp::Div => IntFn::FloorDiv(d),
                            _ => IntFn::FloorMod(d),
                        };
                        IntNode::Unary(f, node(l))
                    }
                    _ => IntNode::Binary(IntOp::Op(*op), node(l), node(r)),
                }
            }
            IrKind::CallBuiltin { builtin, args } => match (builtin, &args[..]) {
                (Builtin::Min | Builtin::Max | Builtin::Pow, [l, r]) => {
                    let (l, r) = (self.int_tree(l)?, self.int_tree(r)?);
                    IntNode::Binary(IntOp::Builtin(*builtin), node(l), node(r))
                }
                (Builtin::Abs | Builtin::Log2 | Builtin::Low0, [x, ..]) => {
                    IntNode::Unary(IntFn::Builtin(*builtin), node(self.int_tree(x)?))
                }
                (Builtin::Len, [x, ..]) => match &x.kind {
                    IrKind::Const(Value::List(xs) | Value::Tuple(xs) | Value::Set(xs)) => {
                        IntNode::Const(xs.len() as i64)
                    }
                    _ => IntNode::Len(
                        local_slot(x).ok_or(refuse(x, "`len` of a value not in a slot"))?,
                    ),
                },
                _ => return Err(refuse(e, "a built-in function integer code does not cover")),
            },
            IrKind::If {
                cond,
                then,
                otherwise,
            } => IntNode::If(
                Box::new(self.bool_tree(cond)?),
                node(self.int_tree(then)?),
                node(self.int_tree(otherwise)?),
            ),
            IrKind::Index { target, index } => match const_ints(target) {
                Some(items) => IntNode::ConstItem(items, node(self.int_tree(index)?)),
                None => {
                    let slot = (local_slot(target))
                        .ok_or(refuse(target, "an index into a value not in a slot"))?;
                    IntNode::Item(slot, node(self.int_tree(index)?))
                }
            },
            IrKind::CallFn { .. } | IrKind::CallValue { .. } => {
                self.in_place(e, |body| self.int_tree(body))?
            }
            IrKind::Binary { .. } => {
                return Err(refuse(
                    e,
                    "a comparison or logical operator, not arithmetic",
                ))
            }
            // `0 - x` overflows where `-x` does, at `i64::MIN` alone.
            IrKind::Unary(UnaryOp::Neg, x) => {
                let zero = IntNode::Const(0);
                IntNode::Binary(
                    IntOp::Op(BinaryOp::Sub),
                    node(zero),
                    node(self.int_tree(x)?),
                )
            }
            IrKind::Global(g) => match self.globals.get(*g as usize) {
                Some(Some(Value::Int(n))) => IntNode::Const(*n),
                _ => return Err(refuse(e, "a top-level `let`, read at run time")),
            },
            IrKind::Let { .. } => self.int_tree(&let_put_in(e)?)?,
            _ => return Err(refuse(e, "a form integer code does not cover")),
        })
    }

    /// `e` as boolean code over integers, or why it is not.
    pub(crate) fn bool_tree(&self, e: &IrExpr) -> Result<BoolNode, NotIntCode> {
        Ok(match &e.kind {
            IrKind::CallBuiltin {
                builtin: Builtin::Distinct,
                args,
            } => BoolNode::Distinct(
                local_slot(&args[0]).ok_or(refuse(e, "`distinct` of a value not in a slot"))?,
            ),
            IrKind::Const(Value::Bool(b)) => BoolNode::Const(*b),
            IrKind::CallFn { .. } | IrKind::CallValue { .. } => {
                self.in_place(e, |body| self.bool_tree(body))?
            }
            IrKind::Unary(UnaryOp::Not, x) => BoolNode::Not(Box::new(self.bool_tree(x)?)),
            IrKind::Let { .. } => self.bool_tree(&let_put_in(e)?)?,
            IrKind::Binary { op, lhs, rhs, .. } => match op {
                BinaryOp::In | BinaryOp::NotIn => BoolNode::In {
                    item: self.int_tree(lhs)?,
                    slot: local_slot(rhs)
                        .ok_or(refuse(rhs, "membership in a value not in a slot"))?,
                    negate: *op == BinaryOp::NotIn,
                },
                BinaryOp::And | BinaryOp::Or => BoolNode::Either {
                    or: *op == BinaryOp::Or,
                    l: Box::new(self.bool_tree(lhs)?),
                    r: Box::new(self.bool_tree(rhs)?),
                },
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => match (list_side(lhs), list_side(rhs), op) {
                    (Some(a), Some(b), BinaryOp::Eq | BinaryOp::Ne) => BoolNode::ItemsEqual {
                        a,
                        b,
                        negate: *op == BinaryOp::Ne,
                    },
                    _ => BoolNode::Compare(*op, self.int_tree(lhs)?, self.int_tree(rhs)?),
                },
                _ => {
                    return Err(refuse(
                        e,
                        "an arithmetic operator where a condition is expected",
                    ))
                }
            },
            _ => return Err(refuse(e, "a condition integer code does not cover")),
        })
    }

    /// The call `e` put in place: `lower` of its body, the arguments put
    /// in (`call_body`), at most 8 calls deep.
    fn in_place<T>(
        &self,
        e: &IrExpr,
        lower: impl FnOnce(&IrExpr) -> Result<T, NotIntCode>,
    ) -> Result<T, NotIntCode> {
        let depth = self.inline_depth.get();
        if depth >= 8 {
            return Err(refuse(e, "calls nested more than 8 deep"));
        }
        let body =
            (self.call_body(e)).ok_or(refuse(e, "a call whose body cannot be put in place"))?;
        self.inline_depth.set(depth + 1);
        let tree = lower(&body);
        self.inline_depth.set(depth);
        tree
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
}

/// `e` lowered to integer code, no function put in place: for readers
/// asked without the program's compiler (`item_sum.rs`, which lays out
/// the memo, and `linear::local_plus_constant`).
pub(crate) fn lowered(e: &IrExpr) -> Option<IntNode> {
    alone(|c| c.int_tree(e).ok())
}

/// `lowered` of a condition.
pub(crate) fn lowered_bool(e: &IrExpr) -> Option<BoolNode> {
    alone(|c| c.bool_tree(e).ok())
}

/// `f` of a compiler that knows no game, function or constant.
fn alone<T>(f: impl FnOnce(&Compiler) -> T) -> T {
    f(&Compiler::new(&std::collections::HashSet::new(), &[]))
}

/// Whether `op` is an operator of two integers to an integer.
fn is_arithmetic(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(
        op,
        Add | Sub | Mul | Div | Mod | BitOr | Xor | BitAnd | Shl | Shr
    )
}

/// `(slot, sorted)` if `e` is a local or `sorted` of one: a side of
/// `ItemsEqual`.
fn list_side(e: &IrExpr) -> Option<(Slot, bool)> {
    match &e.kind {
        IrKind::Local(s) => Some((*s, false)),
        IrKind::CallBuiltin {
            builtin: Builtin::Sorted,
            args,
        } if args.len() == 1 => Some((local_slot(&args[0])?, true)),
        _ => None,
    }
}

/// The items of `e` if it is a constant list or tuple of integers.
fn const_ints(e: &IrExpr) -> Option<Rc<[i64]>> {
    match &e.kind {
        IrKind::Const(Value::List(xs) | Value::Tuple(xs)) => xs.iter().map(Value::as_int).collect(),
        _ => None,
    }
}

/// The slot of `e` if it is a local: the list forms of integer code read
/// their list from a slot.
fn local_slot(e: &IrExpr) -> Option<Slot> {
    match e.kind {
        IrKind::Local(slot) => Some(slot),
        _ => None,
    }
}

/// The `let` `e` with its value put in where its body reads the name,
/// or why not: a tuple pattern, a form `map_locals` does not cover, or
/// a value that could fail (not a local or a constant) and that the
/// body does not read on every path (the general path evaluates it
/// first, and its error must not be lost).
fn let_put_in(e: &IrExpr) -> Result<IrExpr, NotIntCode> {
    let put = map_locals(e, &|s| {
        let kind = IrKind::Local(s);
        Some(IrExpr { kind, span: e.span })
    });
    put.ok_or(refuse(e, "a `let` not put in place (a tuple pattern, or a value that could fail read on some paths only)"))
}

/// Whether evaluating `e` reads the local `slot` whichever way its
/// conditions go (no for the forms that bind names).
fn always_reads(e: &IrExpr, slot: Slot) -> bool {
    match &e.kind {
        IrKind::Local(s) => *s == slot,
        IrKind::If {
            cond,
            then,
            otherwise,
        } => {
            always_reads(cond, slot) || (always_reads(then, slot) && always_reads(otherwise, slot))
        }
        // The right side of `and` and `or` may not run.
        IrKind::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            lhs,
            ..
        } => always_reads(lhs, slot),
        kind => kind
            .children()
            .is_some_and(|cs| cs.into_iter().any(|x| always_reads(x, slot))),
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

/// `body` with parameter `i` replaced by `args[i]`, for the integer forms
/// `int_tree` understands; `None` for anything else.
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
        // A `let` of one name: its value put in where the body reads it.
        IrKind::Let {
            pattern: IrPattern::Slot { slot, .. },
            value,
            body,
        } => {
            let can_fail = !matches!(value.kind, IrKind::Local(_) | IrKind::Const(_));
            if can_fail && !always_reads(body, *slot) {
                return None;
            }
            let span = e.span;
            let body = map_locals(body, &|s| match s == *slot {
                true => Some((**value).clone()),
                false => Some(IrExpr {
                    kind: IrKind::Local(s),
                    span,
                }),
            })?;
            return map_locals(&body, local);
        }
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
