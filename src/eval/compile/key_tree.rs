//! The set and sequence nodes of the expression tree: what keyed kernels
//! (`key_kernel.rs`) compute beside integers. Set code (locals holding bit
//! sets, literals, constant sets, `adj[v]` of a constant list of sets,
//! `remove`/`insert` chains, `-`, `&`, `|`, comprehensions, calls of
//! helpers) and the arguments an option's key is written from (`update`,
//! `sorted`, lists joined with `+`, list and tuple literals) are lowered
//! once from `IrExpr`, their integer leaves through the integer tree
//! (`int_tree.rs`), and refused with its `NotIntCode`. The nodes are read
//! at compile time, then generated into closures (`set_code`, `ArgCode`):
//! one a node, the operands that are leaves (a slot, a constant, a table
//! read) read inside the node's closure, and an argument that is one
//! integer or one bit set read by its caller (`ArgCode::scalar`), so that
//! the common chains are one call of straight-line code; a set node reading a single integer local (`{v} | adj[v]`,
//! `adj(v)`) is read from a table of what it gives for that local's values
//! 0..63.

use smallvec::SmallVec;

use super::compiler::Compiler;
use super::constants::with_constants;
use super::frame::{KeyFrame, SlotKind, KERNEL_FRAME};
use super::int_code::{bool_code, map_locals, BoolCode, Locals, Operand, Seq};
use super::int_tree::NotIntCode;
use super::linear;
use crate::eval::builtins::Builtin;
use crate::eval::memo::{shape_push, Key, Shape, Tag, MAX_COORDS};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// The refusal of `e`.
fn refuse(e: &IrExpr, why: &'static str) -> NotIntCode {
    NotIntCode { why, span: e.span }
}

/// A set of integers as the bit mask of its items in 0..63, and whether
/// it also has items outside 0..63 (only a literal or a constant can: a
/// bit set of a position has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mask {
    bits: u64,
    wide: bool,
}

impl Mask {
    const EMPTY: Mask = Mask {
        bits: 0,
        wide: false,
    };

    #[inline]
    fn bits(bits: u64) -> Mask {
        Mask { bits, wide: false }
    }

    /// The set of `items`; `None` if one is not an integer.
    fn of(items: impl IntoIterator<Item = Option<i64>>) -> Option<Mask> {
        let mut m = Mask::EMPTY;
        for v in items {
            m.add(v?);
        }
        Some(m)
    }

    #[inline]
    fn add(&mut self, v: i64) {
        match u32::try_from(v) {
            Ok(b) if b < 64 => self.bits |= 1 << b,
            _ => self.wide = true,
        }
    }

    /// `a op b` for the set operators; `None` when the result may have
    /// items outside 0..63 (it would be no bit set).
    #[inline]
    fn apply(op: BinaryOp, a: Mask, b: Mask) -> Option<Mask> {
        let bits = match op {
            // Items of b outside 0..63 are in no bit set a: ignored.
            BinaryOp::Sub if !a.wide => a.bits & !b.bits,
            BinaryOp::BitAnd if !(a.wide && b.wide) => a.bits & b.bits,
            BinaryOp::BitOr if !(a.wide || b.wide) => a.bits | b.bits,
            _ => return None,
        };
        Some(Mask::bits(bits))
    }

    /// The bit set a key holds, if the set is one.
    #[inline]
    pub(crate) fn key_bits(self) -> Option<u64> {
        (!self.wide).then_some(self.bits)
    }
}

/// One `remove`/`insert` of item `v` on the mask `m`.
#[inline]
pub(crate) fn chain_step(m: u64, insert: bool, v: i64) -> Option<u64> {
    let fits = (0..64).contains(&v);
    match (insert, fits) {
        (true, true) => Some(m | 1 << v),
        (false, true) => Some(m & !(1 << v)),
        // A set of integers 0..63 holds no other: nothing removed.
        (false, false) => Some(m),
        (true, false) => None,
    }
}

/// Set code as lowered. The nodes are read at compile time (`bits_run`
/// reads a chain's steps) and then generated into closures (`set_code`);
/// none runs by itself. The code gives `None` where an operand is not a
/// bit set or integer code fails (the general path then runs the move).
pub(crate) enum SetNode {
    /// The bit set in a slot.
    Local(Slot),
    Const(Mask),
    /// `{a, b, ...}`.
    Literal(Vec<Operand<KeyFrame>>),
    /// An item of a constant list of sets (`adj[v]`, the graph a static
    /// argument put in).
    Table(Vec<Mask>, Operand<KeyFrame>),
    /// `(insert, item)` steps in order on a set: `remove(free, i)`,
    /// `seen | {u}`, `free - {i, i + 3}`.
    Chain(Box<SetNode>, Vec<(bool, ChainItem)>),
    /// `a - b`, `a & b`, `a | b`.
    Op(BinaryOp, Box<SetNode>, Box<SetNode>),
    /// A set comprehension, run on a copy of the frame.
    Comp(Vec<CompStep>, Operand<KeyFrame>),
    /// A user function's body in a frame of its own (a comprehension does
    /// not inline into the caller's), its parameters the arguments.
    Call(Vec<Operand<KeyFrame>>, Box<SetNode>),
    /// A node reading only the integer local in the slot: what it gives
    /// for each value 0..63 of it (failures too), its code run for others.
    Tabulated(Slot, Box<[Option<Mask>; 64]>, SetCode),
}

/// An item a `Chain` inserts or removes.
pub(crate) enum ChainItem {
    /// `x + c`, `x` a local (the commonest: a cell and its neighbour).
    Offset(Slot, i64),
    Code(Operand<KeyFrame>),
}

impl ChainItem {
    #[inline]
    fn eval(&self, f: &KeyFrame) -> Option<i64> {
        match self {
            ChainItem::Offset(x, c) => f.int(*x)?.checked_add(*c),
            ChainItem::Code(op) => op.eval(f),
        }
    }
}

/// One clause of a set comprehension.
pub(crate) enum CompStep {
    For(Slot, KeySource),
    If(BoolCode<KeyFrame>),
}

/// Set code generated from a `SetNode`: one closure a node, the leaves
/// below it (a slot, a constant, a table read) read inside it without a
/// call and without a `match` on their kinds (the closure is generated
/// for them, `Leaf::read_as`), so that `seen | {u}`, `adj[v] - seen` and
/// `free - ({v} | adj[v])` (its right side tabulated) are one closure of
/// straight-line code each.
pub(crate) type SetCode = Box<dyn Fn(&KeyFrame) -> Option<Mask>>;

/// An operand of a set node, read in the code of the node above it.
enum Leaf {
    Local(Slot),
    Const(Mask),
    Table(Box<[Mask]>, Operand<KeyFrame>),
    Tabulated(Slot, Box<[Option<Mask>; 64]>, SetCode),
    /// Any other node: its own closure, called.
    Code(SetCode),
}

impl Leaf {
    fn of(node: SetNode) -> Leaf {
        match node {
            SetNode::Local(s) => Leaf::Local(s),
            SetNode::Const(m) => Leaf::Const(m),
            SetNode::Table(sets, i) => Leaf::Table(sets.into(), i),
            SetNode::Tabulated(s, table, code) => Leaf::Tabulated(s, table, code),
            node => Leaf::Code(set_code(node)),
        }
    }

    /// Calls `k` with this leaf as a reader of its own kind, so that the
    /// code `k` generates reads it with no `match` on the kind.
    fn read_as<K: WithRead>(self, k: K) -> SetCode {
        match self {
            Leaf::Local(s) => k.with(move |f: &KeyFrame| Some(Mask::bits(f.bits(s)?))),
            Leaf::Const(m) => k.with(move |_: &KeyFrame| Some(m)),
            Leaf::Table(sets, Operand::Local(i)) => {
                k.with(move |f: &KeyFrame| sets.get(usize::try_from(f.int(i)?).ok()?).copied())
            }
            Leaf::Table(sets, i) => {
                k.with(move |f: &KeyFrame| sets.get(usize::try_from(i.eval(f)?).ok()?).copied())
            }
            Leaf::Tabulated(s, table, code) => k.with(move |f: &KeyFrame| match f.int(s) {
                Some(x) if (0..64).contains(&x) => table[x as usize],
                _ => code(f),
            }),
            Leaf::Code(code) => k.with(move |f: &KeyFrame| code(f)),
        }
    }
}

/// A leaf's reader, of the leaf's own kind.
trait Read: Fn(&KeyFrame) -> Option<Mask> + 'static {}

impl<R: Fn(&KeyFrame) -> Option<Mask> + 'static> Read for R {}

/// Code generated around a leaf's reader (`Leaf::read_as`).
trait WithRead {
    fn with<A: Read>(self, a: A) -> SetCode;
}

/// An operator's code once its left operand's reader is known: reads
/// the right one's kind next.
struct OpLeft {
    op: BinaryOp,
    b: Leaf,
}

impl WithRead for OpLeft {
    // Code generation, once a compile: its own function for each kind of
    // leaf, so that the kinds a run does not meet stay out of its pages.
    #[inline(never)]
    fn with<A: Read>(self, a: A) -> SetCode {
        let op = self.op;
        self.b.read_as(OpRight { op, a })
    }
}

struct OpRight<A> {
    op: BinaryOp,
    a: A,
}

impl<A: Read> WithRead for OpRight<A> {
    /// The operator's code for the two readers, one closure an operator.
    #[inline(never)]
    fn with<B: Read>(self, b: B) -> SetCode {
        let a = self.a;
        match self.op {
            BinaryOp::Sub => Box::new(move |f| Mask::apply(BinaryOp::Sub, a(f)?, b(f)?)),
            BinaryOp::BitAnd => Box::new(move |f| Mask::apply(BinaryOp::BitAnd, a(f)?, b(f)?)),
            BinaryOp::BitOr => Box::new(move |f| Mask::apply(BinaryOp::BitOr, a(f)?, b(f)?)),
            op => Box::new(move |f| Mask::apply(op, a(f)?, b(f)?)),
        }
    }
}

/// `(insert, item)` steps on a base's reader (none: the base as it is);
/// one step `x + c` is straight-line code.
struct Steps {
    steps: Vec<(bool, ChainItem)>,
}

impl WithRead for Steps {
    #[inline(never)]
    fn with<A: Read>(mut self, base: A) -> SetCode {
        // Step `x + c`, `insert` a constant in each closure.
        #[inline(always)]
        fn one(base: &impl Read, f: &KeyFrame, insert: bool, (x, c): (Slot, i64)) -> Option<Mask> {
            let m = base(f)?.key_bits()?;
            chain_step(m, insert, f.int(x)?.checked_add(c)?).map(Mask::bits)
        }
        match (self.steps.len(), self.steps.pop()) {
            (0, _) => Box::new(base),
            (1, Some((true, ChainItem::Offset(x, c)))) => {
                Box::new(move |f| one(&base, f, true, (x, c)))
            }
            (1, Some((false, ChainItem::Offset(x, c)))) => {
                Box::new(move |f| one(&base, f, false, (x, c)))
            }
            (_, last) => {
                let mut steps = self.steps;
                steps.extend(last);
                Box::new(move |f| {
                    let mut m = base(f)?.key_bits()?;
                    for (insert, item) in &steps {
                        m = chain_step(m, *insert, item.eval(f)?)?;
                    }
                    Some(Mask::bits(m))
                })
            }
        }
    }
}

/// The code of `node`: a chain of one step and an operator on two
/// leaves are straight-line code.
pub(crate) fn set_code(node: SetNode) -> SetCode {
    match node {
        SetNode::Chain(base, steps) => Leaf::of(*base).read_as(Steps { steps }),
        SetNode::Op(op, a, b) => {
            let b = Leaf::of(*b);
            Leaf::of(*a).read_as(OpLeft { op, b })
        }
        SetNode::Literal(items) => Box::new(move |f| Mask::of(items.iter().map(|x| x.eval(f)))),
        SetNode::Comp(steps, body) => Box::new(move |f| {
            let (mut frame, mut m) = (f.clone(), Mask::EMPTY);
            comp_items(&steps, &body, &mut frame, &mut m)?;
            Some(m)
        }),
        SetNode::Call(params, body) => {
            let body = set_code(*body);
            Box::new(move |f| {
                let mut frame = KeyFrame::empty();
                for (i, p) in params.iter().enumerate() {
                    frame.set_int(i as Slot, p.eval(f)?);
                }
                body(&frame)
            })
        }
        leaf => Leaf::of(leaf).read_as(Steps { steps: Vec::new() }),
    }
}

/// Adds to `m` the items the comprehension's `steps` (from the first)
/// give with `body` in the frame `f`.
fn comp_items(
    steps: &[CompStep],
    body: &Operand<KeyFrame>,
    f: &mut KeyFrame,
    m: &mut Mask,
) -> Option<()> {
    match steps.split_first() {
        None => m.add(body.eval(f)?),
        Some((CompStep::If(cond), rest)) => {
            if cond(f)? {
                comp_items(rest, body, f, m)?;
            }
        }
        Some((CompStep::For(slot, source), rest)) => {
            let mut settings = Settings::new();
            source.settings(f, &mut settings)?;
            for k in settings {
                f.set_int(*slot, k);
                comp_items(rest, body, f, m)?;
            }
        }
    }
    Some(())
}

/// `node`, which reads only the local `s`, read from a table of what it
/// gives for `s` an integer in 0..63 (failures too) and run for any
/// other: an option of a binding over a bit set costs one read instead
/// of the set's code.
fn tabulated(s: Slot, node: SetNode) -> SetNode {
    let code = set_code(node);
    let mut frame = KeyFrame::empty();
    let table = std::array::from_fn(|x| {
        frame.set_int(s, x as i64);
        code(&frame)
    });
    SetNode::Tabulated(s, Box::new(table), code)
}

/// The one local `e` reads, if it reads one and only in forms
/// `map_locals` follows (not inside a comprehension).
fn one_local(e: &IrExpr) -> Option<Slot> {
    let read = std::cell::Cell::new(None);
    let only = |s: Slot| {
        let first = *read.get().get_or_insert(s);
        read.set(Some(first));
        (first == s).then_some(IrExpr {
            kind: IrKind::Local(s),
            span: e.span,
        })
    };
    map_locals(e, &only)?;
    read.get()
}

/// The mask of a constant set of integers.
fn const_mask(v: &Value) -> Option<Mask> {
    let Value::Set(xs) = v else {
        return None;
    };
    Mask::of(xs.iter().map(|x| match x {
        Value::Int(n) => Some(*n),
        _ => None,
    }))
}

/// The integers of a constant list, tuple or set (a set ascending, no
/// repeats).
fn const_ints(v: &Value) -> Option<Vec<i64>> {
    let (Value::List(xs) | Value::Tuple(xs) | Value::Set(xs)) = v else {
        return None;
    };
    let ints = xs.iter().map(|x| match x {
        Value::Int(n) => Some(*n),
        _ => None,
    });
    let mut ints: Vec<i64> = ints.collect::<Option<_>>()?;
    if matches!(v, Value::Set(_)) {
        ints.sort_unstable();
        ints.dedup();
    }
    Some(ints)
}

/// What a binding of a keyed kernel (or of a comprehension in set code)
/// runs over.
pub(crate) enum KeySource {
    Range {
        lo: Operand<KeyFrame>,
        hi: Operand<KeyFrame>,
        inclusive: bool,
    },
    /// A constant set or list of integers (a set ascending, no repeats).
    Values(Vec<i64>),
    /// The items of the list, tuple or set in a slot, in order (a bit
    /// set's bits ascending).
    Items(Slot),
    /// A set computed as a bit mask (`adj[v] - seen`): its bits
    /// ascending, a set's items in order.
    Mask(SetCode),
    /// A list or tuple literal of integer code (`[v - 3, v + 3]`), in
    /// order.
    Codes(Vec<Operand<KeyFrame>>),
}

/// The settings of a binding other than a range, held while the frame
/// changes under them.
pub(crate) type Settings = SmallVec<[i64; 64]>;

impl KeySource {
    /// The values the binding takes in `f` as a bit mask, ascending, if
    /// it runs over a bit set.
    #[inline]
    pub(crate) fn bits(&self, f: &KeyFrame) -> Option<u64> {
        match self {
            KeySource::Items(s) if f.kind(*s) == SlotKind::Bits => f.bits(*s),
            KeySource::Mask(set) => set(f)?.key_bits(),
            _ => None,
        }
    }

    /// The values the binding takes in `f`, in order, into `out` (empty
    /// first); `None` if the source is not at hand as integers (the
    /// general path then runs it).
    pub(crate) fn settings(&self, f: &KeyFrame, out: &mut Settings) -> Option<()> {
        out.clear();
        let bits = |out: &mut Settings, mut mask: u64| {
            while mask != 0 {
                out.push(mask.trailing_zeros() as i64);
                mask &= mask - 1;
            }
        };
        match self {
            KeySource::Range { lo, hi, inclusive } => {
                let (a, b) = (lo.eval(f)?, hi.eval(f)?);
                let b = if *inclusive { b.checked_add(1)? } else { b };
                // A range too long to hold runs one by one (`each_setting`).
                if b.saturating_sub(a) > 1 << 16 {
                    return None;
                }
                out.extend(a..b);
            }
            KeySource::Values(values) => out.extend_from_slice(values),
            KeySource::Items(s) => match f.kind(*s) {
                // The bits ascending: a set's items in order.
                SlotKind::Bits => bits(out, f.bits(*s)?),
                SlotKind::Items(..) => out.extend_from_slice(f.items(*s)?.1),
                SlotKind::Int | SlotKind::Unset => return None,
            },
            KeySource::Mask(set) => bits(out, set(f)?.key_bits()?),
            KeySource::Codes(codes) => {
                for c in codes {
                    out.push(c.eval(f)?);
                }
            }
        }
        Some(())
    }
}

/// How one argument of an option is written into its key, as lowered
/// (read at compile time, then generated into an `ArgCode`).
pub(crate) enum KeyArg {
    /// A slot as it is: an integer, a bit set or a sequence.
    Local(Slot),
    Int(Operand<KeyFrame>),
    /// A bit set.
    Set(SetNode),
    /// `a - b`, `a & b`, `a | b` on two locals: integers or bit sets,
    /// as the position has them.
    IntOrSet(Operand<KeyFrame>, SetNode),
    /// `update(xs, i, v)`: the items of `xs`, then item `i` overwritten.
    Update(Box<KeyArg>, Operand<KeyFrame>, Operand<KeyFrame>),
    /// `sorted(xs)`: a list of the items ascending.
    Sorted(Box<KeyArg>),
    /// `xs + ys`: two lists joined.
    Join(Box<KeyArg>, Box<KeyArg>),
    /// A list or tuple literal of integer code.
    Items(Seq, Vec<Operand<KeyFrame>>),
}

/// The code of an argument: writes its coordinates into the option,
/// giving their tag.
type ArgFn = Box<dyn Fn(&KeyFrame, &mut OptionKey) -> Option<Tag>>;

/// How an argument of an option is written, generated from its
/// `KeyArg`: a slot as it is (the commonest argument: the binding, an
/// argument passed on) copied in the caller's code, an integer or a bit
/// set as one coordinate (`scalar`: an option whose every argument is one
/// is made in registers, `search/key_walk.rs`), any other one closure,
/// its set code and leaves inside it.
pub(crate) enum ArgCode {
    Slot(Slot),
    /// An integer if there is integer code and it gives one, else a bit
    /// set if there is set code (`a - b` on locals is either).
    Scalar(Option<Operand<KeyFrame>>, Option<SetCode>),
    Code(ArgFn),
}

impl ArgCode {
    pub(crate) fn new(arg: KeyArg) -> ArgCode {
        match arg {
            KeyArg::Local(slot) => ArgCode::Slot(slot),
            KeyArg::Int(op) => ArgCode::Scalar(Some(op), None),
            KeyArg::Set(set) => ArgCode::Scalar(None, Some(set_code(set))),
            KeyArg::IntOrSet(op, set) => ArgCode::Scalar(Some(op), Some(set_code(set))),
            arg => ArgCode::Code(arg_fn(arg)),
        }
    }

    /// Whether the argument may be one coordinate (`scalar`): a slot
    /// holding an integer or a bit set, integer code or set code.
    pub(crate) fn may_be_scalar(&self) -> bool {
        !matches!(self, ArgCode::Code(_))
    }

    /// The argument as one coordinate and its tag; `Err(())` if it is
    /// none (a slot holding a sequence, or a closure: `coords` writes
    /// it), `Ok(None)` if its code fails (the general path).
    #[inline(always)]
    pub(crate) fn scalar(&self, f: &KeyFrame) -> Result<Option<(i64, Tag)>, ()> {
        Ok(match self {
            ArgCode::Slot(slot) => match f.kind(*slot) {
                SlotKind::Int => f.int(*slot).map(|x| (x, Tag::Int)),
                SlotKind::Bits => f.bits(*slot).map(|m| (m as i64, Tag::Bits)),
                SlotKind::Items(..) | SlotKind::Unset => return Err(()),
            },
            ArgCode::Scalar(int, set) => match int.as_ref().and_then(|op| op.eval(f)) {
                Some(x) => Some((x, Tag::Int)),
                None => set.as_ref().and_then(|set| bits_of(set, f)),
            },
            ArgCode::Code(_) => return Err(()),
        })
    }

    /// Writes the argument into `out`; `None` sends the position to the
    /// general path.
    #[inline(always)]
    pub(crate) fn write(&self, f: &KeyFrame, out: &mut OptionKey) -> Option<()> {
        let tag = self.coords(f, out)?;
        out.end(tag)
    }

    /// Writes the argument's coordinates into `out`, giving their tag.
    #[inline(always)]
    pub(crate) fn coords(&self, f: &KeyFrame, out: &mut OptionKey) -> Option<Tag> {
        match self {
            ArgCode::Slot(slot) => out.slot(f, *slot),
            ArgCode::Code(code) => code(f, out),
            scalar => {
                let (c, tag) = scalar.scalar(f).ok()??;
                out.push(c)?;
                Some(tag)
            }
        }
    }
}

/// The bit set `set` gives in `f` as one coordinate, if it is one.
#[inline(always)]
fn bits_of(set: &SetCode, f: &KeyFrame) -> Option<(i64, Tag)> {
    Some((set(f)?.key_bits()? as i64, Tag::Bits))
}

/// The closure writing `arg`: a slot, an integer or a set in place, a
/// sequence around the closures of the sequences it is written from.
fn arg_fn(arg: KeyArg) -> ArgFn {
    match arg {
        KeyArg::Local(_) | KeyArg::Int(_) | KeyArg::Set(_) | KeyArg::IntOrSet(..) => {
            let code = ArgCode::new(arg);
            Box::new(move |f, out| code.coords(f, out))
        }
        KeyArg::Update(inner, index, value) => {
            let inner = arg_fn(*inner);
            Box::new(move |f, out| {
                let start = out.len;
                let tag = inner(f, out)?;
                // A set updated is a set again, sorted anew: not here.
                let (Tag::List(n) | Tag::Tuple(n)) = tag else {
                    return None;
                };
                let i = usize::try_from(index.eval(f)?).ok()?;
                if i >= n as usize {
                    return None;
                }
                out.coords[start + i] = value.eval(f)?;
                Some(tag)
            })
        }
        KeyArg::Sorted(inner) => {
            let inner = arg_fn(*inner);
            Box::new(move |f, out| {
                let start = out.len;
                let n = match inner(f, out)? {
                    Tag::Bits => {
                        // The bits ascending, in place of the mask.
                        out.len -= 1;
                        let mut mask = out.coords[out.len] as u64;
                        let n = mask.count_ones();
                        while mask != 0 {
                            out.push(mask.trailing_zeros() as i64)?;
                            mask &= mask - 1;
                        }
                        return Some(Tag::List(n));
                    }
                    Tag::List(n) | Tag::Tuple(n) | Tag::Set(n) => n,
                    Tag::Int | Tag::Bool => return None,
                };
                out.coords[start..out.len].sort_unstable();
                Some(Tag::List(n))
            })
        }
        KeyArg::Join(first, second) => {
            let (first, second) = (arg_fn(*first), arg_fn(*second));
            Box::new(move |f, out| match (first(f, out)?, second(f, out)?) {
                (Tag::List(n), Tag::List(m)) => Some(Tag::List(n + m)),
                // Anything else is no list join (the general path says
                // what it is).
                _ => None,
            })
        }
        KeyArg::Items(seq, items) => {
            let n = items.len() as u32;
            let tag = match seq {
                Seq::Tuple => Tag::Tuple(n),
                _ => Tag::List(n),
            };
            Box::new(move |f, out| {
                for x in &items {
                    out.push(x.eval(f)?)?;
                }
                Some(tag)
            })
        }
    }
}

/// The coordinates and shape of an option's key, written argument by
/// argument.
#[derive(Clone, Copy)]
pub(crate) struct OptionKey {
    pub coords: [i64; MAX_COORDS],
    pub len: usize,
    pub shape: Shape,
    pub n_args: u8,
}

impl Default for OptionKey {
    fn default() -> OptionKey {
        OptionKey {
            coords: [0; MAX_COORDS],
            len: 0,
            shape: 0,
            n_args: 0,
        }
    }
}

impl OptionKey {
    /// Empties the key for another option (its coordinates are written
    /// before they are read).
    #[inline]
    pub(crate) fn clear(&mut self) {
        (self.len, self.shape, self.n_args) = (0, 0, 0);
    }

    #[inline]
    pub(crate) fn push(&mut self, c: i64) -> Option<()> {
        *self.coords.get_mut(self.len)? = c;
        self.len += 1;
        Some(())
    }

    /// Ends an argument.
    #[inline]
    pub(crate) fn end(&mut self, tag: Tag) -> Option<()> {
        self.shape = shape_push(self.shape, self.n_args, tag)?;
        self.n_args += 1;
        Some(())
    }

    pub(crate) fn coords(&self) -> &[i64] {
        &self.coords[..self.len]
    }

    /// Sets `key` to this option's key.
    pub(crate) fn key(&self, key: &mut Key) {
        key.set_raw(self.shape, self.n_args, self.coords().iter().copied());
    }

    /// Writes the coordinates of the slot's contents, giving their tag
    /// (in the option's code: most arguments are a slot as it is).
    #[inline(always)]
    fn slot(&mut self, f: &KeyFrame, slot: Slot) -> Option<Tag> {
        match f.kind(slot) {
            SlotKind::Int => {
                self.push(f.int(slot)?)?;
                Some(Tag::Int)
            }
            SlotKind::Bits => {
                self.push(f.bits(slot)? as i64)?;
                Some(Tag::Bits)
            }
            SlotKind::Items(seq, _, _) => {
                let (_, xs) = f.items(slot)?;
                for &x in xs {
                    self.push(x)?;
                }
                let n = xs.len() as u32;
                Some(match seq {
                    Seq::List => Tag::List(n),
                    Seq::Tuple => Tag::Tuple(n),
                    Seq::Set => Tag::Set(n),
                })
            }
            SlotKind::Unset => None,
        }
    }
}

/// Whether `e` is written with a set operator or as a set: its key
/// argument may be a bit set.
fn set_form(e: &IrExpr) -> bool {
    matches!(
        &e.kind,
        IrKind::Binary {
            op: BinaryOp::Sub | BinaryOp::BitAnd | BinaryOp::BitOr,
            ..
        } | IrKind::Set(_)
            | IrKind::Const(Value::Set(_))
            | IrKind::Collect { set: true, .. }
            | IrKind::CallBuiltin {
                builtin: Builtin::Remove | Builtin::Insert,
                ..
            }
    )
}

impl Compiler<'_> {
    /// How an argument of a result is written into the option's key, or
    /// why it is none a keyed kernel writes.
    pub(crate) fn key_arg(&self, e: &IrExpr) -> Result<KeyArg, NotIntCode> {
        if let IrKind::Local(s) = e.kind {
            return Ok(KeyArg::Local(s));
        }
        // A helper (`closed(s, v)` for `s - {v - 1, v, v + 1}`): its body
        // with the arguments put in.
        if let Some(arg) = self.in_helper(e, |body| self.key_arg(body).ok()) {
            return Ok(arg);
        }
        let set = match set_form(e) {
            true => Some(self.set_node(e)),
            false => None,
        };
        match (self.int_operand(e), set) {
            (Ok(op), Some(Ok(set))) => Ok(KeyArg::IntOrSet(op, set)),
            (Ok(op), _) => Ok(KeyArg::Int(op)),
            (Err(_), Some(Ok(set))) => Ok(KeyArg::Set(set)),
            // Neither: the refusal that read further into `e` (the
            // narrower span) says what stopped it.
            (Err(int), Some(Err(set))) => {
                let width = |why: &NotIntCode| why.span.end.saturating_sub(why.span.start);
                Err(if width(&set) < width(&int) { set } else { int })
            }
            (Err(why), None) => self.seq_arg(e, why),
        }
    }

    /// A sequence written into a key, or `why` if `e` is no form of one.
    fn seq_arg(&self, e: &IrExpr, why: NotIntCode) -> Result<KeyArg, NotIntCode> {
        let seq = |x: &IrExpr| -> Result<Box<KeyArg>, NotIntCode> {
            let not_seq = refuse(x, "not a sequence a keyed kernel writes");
            Ok(Box::new(self.seq_arg(x, not_seq)?))
        };
        Ok(match &e.kind {
            IrKind::Local(s) => KeyArg::Local(*s),
            IrKind::CallBuiltin { builtin, args } => match (builtin, &args[..]) {
                (Builtin::Remove | Builtin::Insert, _) => KeyArg::Set(self.set_node(e)?),
                // `update(update(xs, i, a), j, b)` changes two items.
                (Builtin::Update, [xs, i, v]) => {
                    KeyArg::Update(seq(xs)?, self.int_operand(i)?, self.int_operand(v)?)
                }
                (Builtin::Sorted, [xs]) => KeyArg::Sorted(seq(xs)?),
                _ => return Err(why),
            },
            IrKind::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
                ..
            } => KeyArg::Join(seq(lhs)?, seq(rhs)?),
            IrKind::List(xs) | IrKind::Tuple(xs) => {
                let items = xs.iter().map(|x| self.int_operand(x));
                let kind = match e.kind {
                    IrKind::List(_) => Seq::List,
                    _ => Seq::Tuple,
                };
                KeyArg::Items(kind, items.collect::<Result<_, _>>()?)
            }
            _ => return Err(why),
        })
    }

    /// What a binding runs over, as a keyed kernel reads it.
    pub(crate) fn key_source(&self, e: &IrExpr) -> Result<KeySource, NotIntCode> {
        Ok(match &e.kind {
            IrKind::Range {
                start,
                end,
                inclusive,
            } => KeySource::Range {
                lo: self.int_operand(start)?,
                hi: self.int_operand(end)?,
                inclusive: *inclusive,
            },
            IrKind::Local(s) if (*s as usize) < KERNEL_FRAME => KeySource::Items(*s),
            IrKind::List(xs) | IrKind::Tuple(xs) => KeySource::Codes(
                (xs.iter().map(|x| self.int_operand(x))).collect::<Result<_, _>>()?,
            ),
            IrKind::Const(v @ (Value::List(_) | Value::Tuple(_) | Value::Set(_))) => {
                KeySource::Values(
                    const_ints(v).ok_or(refuse(e, "a constant of items not all integers"))?,
                )
            }
            _ => KeySource::Mask(set_code(self.set_node(e)?)),
        })
    }

    /// Set code for `e`, a node reading one integer local read from its
    /// table.
    pub(crate) fn set_node(&self, e: &IrExpr) -> Result<SetNode, NotIntCode> {
        let node = self.set_node_of(e)?;
        let plain = matches!(
            node,
            SetNode::Local(_) | SetNode::Const(_) | SetNode::Table(..)
        );
        Ok(
            match one_local(e).filter(|&s| !plain && (s as usize) < KERNEL_FRAME) {
                Some(s) => tabulated(s, node),
                None => node,
            },
        )
    }

    /// `set_node` without the table of a set of one local.
    fn set_node_of(&self, e: &IrExpr) -> Result<SetNode, NotIntCode> {
        let node = |x: &IrExpr| self.set_node(x).map(Box::new);
        Ok(match &e.kind {
            IrKind::Local(s) => SetNode::Local(*s),
            IrKind::Const(v @ Value::Set(_)) => {
                SetNode::Const(const_mask(v).ok_or(refuse(e, "a set of items not all integers"))?)
            }
            IrKind::Set(items) => SetNode::Literal(
                (items.iter().map(|x| self.int_operand(x))).collect::<Result<_, _>>()?,
            ),
            IrKind::Index { target, index } => {
                let IrKind::Const(Value::List(sets) | Value::Tuple(sets)) = &target.kind else {
                    return Err(refuse(target, "an index into no constant list of sets"));
                };
                let sets = sets.iter().map(const_mask).collect::<Option<_>>();
                let sets =
                    sets.ok_or(refuse(target, "a list of items not all sets of integers"))?;
                SetNode::Table(sets, self.int_operand(index)?)
            }
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Remove | Builtin::Insert),
                args,
            } if args.len() == 2 => self.chain(*b == Builtin::Insert, &args[0], &args[1..])?,
            // A set literal taken out or joined is the same chain.
            IrKind::Binary {
                op: op @ (BinaryOp::Sub | BinaryOp::BitOr),
                lhs,
                rhs,
                ..
            } if matches!(rhs.kind, IrKind::Set(_)) => {
                let IrKind::Set(items) = &rhs.kind else {
                    unreachable!("matched above")
                };
                self.chain(*op == BinaryOp::BitOr, lhs, items)?
            }
            IrKind::Binary { op, lhs, rhs, .. }
                if matches!(op, BinaryOp::Sub | BinaryOp::BitAnd | BinaryOp::BitOr) =>
            {
                SetNode::Op(*op, node(lhs)?, node(rhs)?)
            }
            IrKind::CallFn { .. } | IrKind::CallValue { .. } => {
                match self.in_helper(e, |body| self.set_node(body).ok()) {
                    Some(node) => node,
                    None => self.call_set(e)?,
                }
            }
            IrKind::Collect { set: true, comp } => self.comp_set(comp)?,
            _ => return Err(refuse(e, "not a set of integers a keyed kernel computes")),
        })
    }

    /// `items` inserted (or removed) in turn on the set `base`.
    fn chain(&self, insert: bool, base: &IrExpr, items: &[IrExpr]) -> Result<SetNode, NotIntCode> {
        let mut steps = Vec::new();
        for item in items {
            steps.push((
                insert,
                match linear::local_plus_constant(item) {
                    Some((x, c)) => ChainItem::Offset(x, c),
                    None => ChainItem::Code(self.int_operand(item)?),
                },
            ));
        }
        Ok(match self.set_node(base)? {
            SetNode::Chain(base, mut first) => {
                first.append(&mut steps);
                SetNode::Chain(base, first)
            }
            base => SetNode::Chain(Box::new(base), steps),
        })
    }

    /// Set code for a call of a user function whose body is set code in
    /// its own frame (a set comprehension): its arguments integer code,
    /// or its static arguments constants put into the body.
    fn call_set(&self, e: &IrExpr) -> Result<SetNode, NotIntCode> {
        let depth = self.inline_depth.get();
        let (f, args) = (self.called(e)).ok_or(refuse(e, "a call of no function known here"))?;
        if depth >= 8 {
            return Err(refuse(e, "calls nested more than 8 deep"));
        }
        if f.n_slots > KERNEL_FRAME {
            return Err(refuse(
                e,
                "a function with more locals than a kernel's frame",
            ));
        }
        let operands = |args: &[IrExpr]| {
            (args.iter().map(|a| self.int_operand::<KeyFrame>(a))).collect::<Result<Vec<_>, _>>()
        };
        let (statics, params) = match operands(&args) {
            Ok(all) => (Vec::new(), all),
            Err(why) => {
                let statics = (args[..f.n_statics].iter())
                    .map(|a| match &a.kind {
                        IrKind::Const(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<Value>>>()
                    .ok_or(why)?;
                (statics, operands(&args[f.n_statics..])?)
            }
        };
        let body = with_constants(&f.body, &statics, self.globals);
        self.inline_depth.set(depth + 1);
        let body = self.set_node(&body);
        self.inline_depth.set(depth);
        Ok(SetNode::Call(params, Box::new(body?)))
    }

    /// Set code for a set comprehension whose bindings are sources a
    /// kernel reads, its guards integer code and its item an integer.
    fn comp_set(&self, comp: &IrComp) -> Result<SetNode, NotIntCode> {
        let step = |c: &IrClause| match c {
            IrClause::For(b) => match b.pattern {
                IrPattern::Slot { slot, .. } if (slot as usize) < KERNEL_FRAME => {
                    Ok(CompStep::For(slot, self.key_source(&b.iterable)?))
                }
                _ => Err(refuse(
                    &b.iterable,
                    "a binding a kernel's frame does not hold",
                )),
            },
            IrClause::If(e) => Ok(CompStep::If(bool_code(&self.bool_tree(e)?))),
        };
        let steps = comp.clauses.iter().map(step).collect::<Result<_, _>>()?;
        Ok(SetNode::Comp(steps, self.int_operand(&comp.body)?))
    }

    /// `read` of the body of `e` with its arguments put in, if `e` is a
    /// call of a user function that can be inlined; at most 8 deep,
    /// counting the calls inlined around it (a recursive helper stays a
    /// call).
    pub(crate) fn in_helper<T>(
        &self,
        e: &IrExpr,
        read: impl FnOnce(&IrExpr) -> Option<T>,
    ) -> Option<T> {
        let call = matches!(e.kind, IrKind::CallFn { .. } | IrKind::CallValue { .. });
        if !call || self.inline_depth.get() >= 8 {
            return None;
        }
        let body = self.call_body(e)?;
        let depth = self.inline_depth.get();
        self.inline_depth.set(depth + 1);
        let out = read(&body);
        self.inline_depth.set(depth);
        out
    }
}
