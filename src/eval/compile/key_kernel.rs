//! Kernels over lists and sets: the Loop form of kernel moves (`kernel.rs`)
//! for games whose positions hold lists, tuples or sets of integers. The
//! search puts a position's key in a `KeyFrame` (an integer per slot, a set
//! of integers 0..63 as its bit mask, a sequence as a run of integers) and
//! runs the move on it: bindings over ranges, constant sets or the items of
//! an argument (`i in free`), a guard of integer code, and a result whose
//! arguments are written straight into the option's key (integer code,
//! `update`, `sorted`, `remove`/`insert` and the set operators `-`, `&`,
//! `|` on bit sets, list literals, lists joined with `+`) and read from
//! the memo. A last binding over a range whose options are affine in it,
//! or a sorted list with it put in (`sorted(update(xs, i, t))`), is read as
//! strided runs through the memo. Code that meets anything else at run
//! time gives `None`, and the search takes the position to the general
//! path, which also reports any error. The search runs these moves in
//! `search/key_kernel.rs`.

use std::cell::RefCell;
use std::rc::Rc;

use smallvec::SmallVec;

use super::compiler::Compiler;
use super::constants::with_constants;
use super::expand::MoveResult;
use super::frame::{KeyFrame, SlotKind, KERNEL_FRAME};
use super::int_code::{map_locals, mentions, sorted_update_of, BoolCode, Locals, Operand, Seq};
use super::linear;
use super::rank_shift::{rank_shift, RankShift, ShiftRefusal};
use crate::eval::builtins::Builtin;
use crate::eval::memo::{shape_push, Key, Shape, Tag, MAX_COORDS};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};

/// A move of a keyed kernel (`Kernel::keyed`).
pub(crate) struct KeyLoopMove {
    /// The bindings run option by option (all of them but the last when
    /// `run` is set).
    pub bindings: Vec<(Slot, KeySource)>,
    pub guard: Option<BoolCode<KeyFrame>>,
    /// The result: one sum, or for a result that chooses with `if` or is
    /// written through functions (`compile/expand.rs`) one per choice,
    /// the first whose conditions hold taken (none with `run`).
    pub results: Vec<KeyResult>,
    /// The last binding read as strided runs (no guard, one part).
    pub run: Option<KeyRun>,
    /// The last binding over a bit set, its guard's leading conjuncts
    /// read as bit masks.
    pub filter: Option<BitsFilter>,
    /// That binding's options read as one run of masks (no guard left
    /// to run per option).
    pub bits_run: Option<BitsRun>,
}

/// One sum a `KeyLoopMove` may give.
pub(crate) type KeyResult = MoveResult<KeyFrame, KeyArg>;

/// `i in s` as the last binding of a move with one part whose key differs
/// from option to option only in one bit set, `remove`/`insert` of
/// `i + c` on a set other than `i` (Cram's `remove(remove(free, i), i +
/// 3)`): each option is a few mask operations and one read of the memo's
/// window, its key never written.
pub(crate) struct BitsRun {
    /// Which argument of the part is the chain.
    pub arg: usize,
    /// The set the chain starts from.
    pub base: Slot,
    /// `(insert, c)`: insert or remove `i + c`, in order.
    pub steps: Vec<(bool, i64)>,
    /// The bits `c` when every step removes an item `i + c` with `c` in
    /// 0..63 (Cram's): an option's mask is then `m & !(removed << i)`.
    pub removed: Option<u64>,
}

impl BitsRun {
    /// The option's mask for `i = k` (in 0..63) on the base mask `m`;
    /// `None` if an inserted item does not fit in a mask.
    #[inline]
    pub(crate) fn mask(&self, mut m: u64, k: i64) -> Option<u64> {
        if let Some(removed) = self.removed {
            // Items past 63 shift out: removing them leaves the set as it is.
            return Some(m & !(removed << k));
        }
        for &(insert, c) in &self.steps {
            m = chain_step(m, insert, k.checked_add(c)?)?;
        }
        Some(m)
    }
}

/// One `remove`/`insert` of item `v` on the mask `m`.
#[inline]
fn chain_step(m: u64, insert: bool, v: i64) -> Option<u64> {
    let fits = (0..64).contains(&v);
    match (insert, fits) {
        (true, true) => Some(m | 1 << v),
        (false, true) => Some(m & !(1 << v)),
        // A set of integers 0..63 holds no other: nothing removed.
        (false, false) => Some(m),
        (true, false) => None,
    }
}

/// `i in s` (or `i in a..b`, constants within 0..63) as the last binding
/// of a move whose guard begins with conjuncts `i + c in t` (or `not in`)
/// and conjuncts of `i` alone: when `s` and every `t` are bit sets, the
/// options are the bits of one mask
/// (`free & (free >> 3)` for `i + 3 in free`), and only the rest of the
/// guard runs per option.
pub(crate) struct BitsFilter {
    /// What the binding runs over.
    pub source: FilterSource,
    /// The bits `i` in 0..63 that the conjuncts of `i` alone keep.
    pub fixed: u64,
    /// `i + c in t` as `(t, c, negated)`.
    pub tests: Vec<(Slot, i64, bool)>,
    /// The guard's other conjuncts, in order (`None`: none).
    pub residual: Option<BoolCode<KeyFrame>>,
}

/// What a filtered binding runs over, as a mask.
pub(crate) enum FilterSource {
    /// A set of the frame (`i in free`).
    Set(Slot),
    /// A constant range within 0..63 (`k in 0..40`): its bits.
    Bits(u64),
}

impl BitsFilter {
    /// The options' bits, if the sets it reads are bit sets.
    #[inline]
    pub(crate) fn mask(&self, f: &KeyFrame) -> Option<u64> {
        let source = match self.source {
            FilterSource::Set(s) => f.bits(s)?,
            FilterSource::Bits(bits) => bits,
        };
        let mut m = source & self.fixed;
        for &(t, c, negated) in &self.tests {
            let t = f.bits(t)?;
            // Bit i of `shifted` is bit i + c of t (0 outside 0..63).
            let shifted = if c >= 0 {
                t.checked_shr(c as u32).unwrap_or(0)
            } else {
                t.checked_shl(c.unsigned_abs() as u32).unwrap_or(0)
            };
            m &= if negated { !shifted } else { shifted };
        }
        Some(m)
    }
}

/// What a binding of a `KeyLoopMove` runs over.
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
    /// A set computed as a bit mask (`adj[v] - seen`, `adj` a constant
    /// list of sets): its bits ascending, a set's items in order.
    Mask(MaskCode),
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
            KeySource::Mask(code) => code(f)?.key_bits(),
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
            KeySource::Mask(code) => bits(out, code(f)?.key_bits()?),
            KeySource::Codes(codes) => {
                for c in codes {
                    out.push(c.eval(f)?);
                }
            }
        }
        Some(())
    }
}

/// One clause of a set comprehension in mask code.
enum CompStep {
    For(Slot, KeySource),
    If(BoolCode<KeyFrame>),
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

/// The arguments (in 0..`CALL_CACHE`) whose set a one-argument set
/// function's calls keep (`adj(v)`): a call is then one read.
const CALL_CACHE: usize = 1024;

/// The `BitsRun` of a move whose last binding is `last`, if its one part
/// has one argument a chain of `i + c` and the others are locals not `i`.
fn bits_run(last: &IrBinding, parts: &[Vec<KeyArg>]) -> Option<BitsRun> {
    let (IrPattern::Slot { slot: i, .. }, IrKind::Local(_)) = (&last.pattern, &last.iterable.kind)
    else {
        return None;
    };
    let [args] = parts else {
        return None;
    };
    let mut run = None;
    for (j, a) in args.iter().enumerate() {
        match a {
            KeyArg::Local(s) if s != i => {}
            KeyArg::Bits(chain) if run.is_none() && chain.base != *i => {
                let steps = chain.steps.iter().map(|(insert, item)| match item {
                    ChainItem::Offset(x, c) if x == i => Some((*insert, *c)),
                    _ => None,
                });
                let steps: Vec<(bool, i64)> = steps.collect::<Option<_>>()?;
                let removed = steps.iter().try_fold(0u64, |bits, &(insert, c)| {
                    (!insert && (0..64).contains(&c)).then(|| bits | 1 << c)
                });
                run = Some(BitsRun {
                    arg: j,
                    base: chain.base,
                    steps,
                    removed,
                });
            }
            _ => return None,
        }
    }
    run
}

/// How one argument of an option is written into its key.
pub(crate) enum KeyArg {
    /// A slot as it is: an integer, a bit set or a sequence.
    Local(Slot),
    Int(Operand<KeyFrame>),
    /// `remove(...)`/`insert(...)` of integers on a bit set.
    Bits(BitsChain),
    /// Set operators on bit sets: `s - {v - 1, v, v + 1}`,
    /// `free - ({v} | adj[v])`.
    Mask(MaskCode),
    /// `a - b`, `a & b`, `a | b` on two locals: integers or bit sets,
    /// as the position has them.
    IntOrMask(Operand<KeyFrame>, MaskCode),
    /// Code writing a sequence's items (or a bit mask), giving its tag.
    Seq(SeqCode),
}

/// Set code: the set an expression gives, as a [`Mask`]; `None` when an
/// operand is not a bit set (the general path then runs the move).
pub(crate) type MaskCode = Box<dyn Fn(&KeyFrame) -> Option<Mask>>;

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

    /// The set of `items`; `None` if one is not an integer.
    fn of(items: impl IntoIterator<Item = Option<i64>>) -> Option<Mask> {
        let mut m = Mask {
            bits: 0,
            wide: false,
        };
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
        Some(Mask { bits, wide: false })
    }

    /// The bit set a key holds, if the set is one.
    #[inline]
    pub(crate) fn key_bits(self) -> Option<u64> {
        (!self.wide).then_some(self.bits)
    }
}

/// Writes coordinates into an option's key and gives the tag they make.
pub(crate) type SeqCode = Box<dyn Fn(&KeyFrame, &mut OptionKey) -> Option<Tag>>;

/// `remove`/`insert` of integers, in order, on the bit set in `base`.
pub(crate) struct BitsChain {
    base: Slot,
    /// `(insert, item)`: insert or remove `item`.
    steps: Vec<(bool, ChainItem)>,
}

/// An item inserted or removed by a `BitsChain`.
enum ChainItem {
    /// `x + c`, `x` a local (the commonest: a cell and its neighbour).
    Offset(Slot, i64),
    Code(Operand<KeyFrame>),
}

impl BitsChain {
    /// The resulting bit mask; `None` if `base` holds no bit set, an item
    /// is not integer code, or an inserted item does not fit in a mask.
    #[inline]
    pub(crate) fn mask(&self, f: &KeyFrame) -> Option<u64> {
        let mut m = f.bits(self.base)?;
        for (insert, item) in &self.steps {
            let v = match item {
                ChainItem::Offset(x, c) => f.int(*x)?.checked_add(*c)?,
                ChainItem::Code(op) => op.eval(f)?,
            };
            m = chain_step(m, *insert, v)?;
        }
        Some(m)
    }
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

/// `code` of a set that reads only the local `s` (`{v} | adj[v]`), read
/// from a table of what it gives for `s` an integer in 0..63 (failures
/// too), and run for any other: an option of a binding over a bit set
/// costs one read instead of the set's code.
fn tabulated(s: Slot, code: MaskCode) -> MaskCode {
    if s as usize >= KERNEL_FRAME {
        return code;
    }
    let mut frame = KeyFrame::empty();
    let table: Vec<Option<Mask>> = (0..64)
        .map(|x| {
            frame.set_int(s, x);
            code(&frame)
        })
        .collect();
    Box::new(move |f| match f.int(s) {
        Some(x) if (0..64).contains(&x) => table[x as usize],
        _ => code(f),
    })
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

    /// Writes the coordinates of the slot's contents, giving their tag.
    #[inline]
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

impl KeyArg {
    /// Writes the argument into `out`; `None` sends the position to the
    /// general path.
    #[inline]
    pub(crate) fn write(&self, f: &KeyFrame, out: &mut OptionKey) -> Option<()> {
        let tag = match self {
            KeyArg::Local(slot) => out.slot(f, *slot)?,
            KeyArg::Int(op) => {
                out.push(op.eval(f)?)?;
                Tag::Int
            }
            KeyArg::Bits(chain) => {
                out.push(chain.mask(f)? as i64)?;
                Tag::Bits
            }
            KeyArg::Mask(code) => {
                out.push(code(f)?.key_bits()? as i64)?;
                Tag::Bits
            }
            KeyArg::IntOrMask(op, code) => match op.eval(f) {
                Some(n) => {
                    out.push(n)?;
                    Tag::Int
                }
                None => {
                    out.push(code(f)?.key_bits()? as i64)?;
                    Tag::Bits
                }
            },
            KeyArg::Seq(code) => code(f, out)?,
        };
        out.end(tag)
    }
}

/// The last binding of a move, `k in lo..hi`, read as strided runs: every
/// argument of the (one) result is affine in `k`, does not mention it, or
/// is `sorted(update(xs, i, k))`.
pub(crate) struct KeyRun {
    pub slot: Slot,
    pub lo: Operand<KeyFrame>,
    pub hi: RunEnd,
    pub inclusive: bool,
    pub args: Vec<RunArg>,
    /// The game's `where` begins with `distinct` of the sorted list's
    /// argument: an option with `k` equal to another item is no position
    /// (the general path finds the same, without an error), so runs skip
    /// those instead of looking each up.
    pub distinct: bool,
    /// The move's guard is `k not in xs` (conjuncts of it), `xs` the
    /// sorted list: `k` equal to any item of it gives no option, runs skip
    /// those (the moving item's value too).
    pub not_in_list: bool,
    /// The options as changes to the position's list kept by rank, read
    /// without writing their keys (`rank_shift.rs`), or why not.
    pub shift: Result<RankShift, ShiftRefusal>,
}

impl KeyRun {
    /// Whether `k` equal to another item of the sorted list gives no
    /// option, so that runs skip it.
    pub(crate) fn skips_repeats(&self) -> bool {
        self.distinct || self.not_in_list
    }

    /// The value of the moving item of the sorted list if the guard
    /// excludes it (`not_in_list`), `Some(None)` if none is excluded;
    /// `None` if the list or index is not at hand (the general path).
    #[inline]
    pub(crate) fn excluded(&self, f: &KeyFrame) -> Option<Option<i64>> {
        if !self.not_in_list {
            return Some(None);
        }
        let (list, index) = self.args.iter().find_map(|a| match a {
            RunArg::SortedUpdate { list, index } => Some((*list, index)),
            _ => None,
        })?;
        let (_, xs) = f.items(list)?;
        let i = usize::try_from(index.eval(f)?).ok()?;
        Some(Some(*xs.get(i)?))
    }
}

/// The upper end of a `KeyRun`: integer code, or the item of a list or
/// tuple at an integer local (`coins[i]`: every setting of Welter's game
/// reads one), read without a call.
pub(crate) enum RunEnd {
    Code(Operand<KeyFrame>),
    /// `xs[i]`: the slots of `xs` and `i`.
    Item(Slot, Slot),
}

impl RunEnd {
    /// The end, as the integer code of `xs[i]` gives it.
    #[inline]
    pub(crate) fn eval(&self, f: &KeyFrame) -> Option<i64> {
        match self {
            RunEnd::Code(op) => op.eval(f),
            RunEnd::Item(list, i) => {
                let i = usize::try_from(f.int(*i)?).ok()?;
                match f.items(*list)? {
                    (Seq::Set, _) => None,
                    (_, xs) => xs.get(i).copied(),
                }
            }
        }
    }
}

impl KeyRun {
    /// `Some(c)` if the run is `k in c..xs[i]` with its one argument
    /// `sorted(update(xs, i, k))`, `c` a constant and `i` the local `slot`
    /// (Welter's game): for a setting `i` of that local, the run's range
    /// is `c..xs[i]`, read off the list directly.
    pub(crate) fn item_range(&self, slot: Slot) -> Option<i64> {
        let [RunArg::SortedUpdate {
            list,
            index: Operand::Local(i),
        }] = &self.args[..]
        else {
            return None;
        };
        match (&self.lo, &self.hi, self.inclusive) {
            (Operand::Const(c), RunEnd::Item(xs, j), false)
                if xs == list && *xs != slot && *j == slot && *i == slot =>
            {
                Some(*c)
            }
            _ => None,
        }
    }
}

pub(crate) enum RunArg {
    /// An argument that does not mention `k`.
    Fixed(KeyArg),
    /// `base + coef * k`.
    Affine(Operand<KeyFrame>, i64),
    /// `sorted(update(xs, i, k))`: the list's other items, sorted, with
    /// `k` between them; affine in `k` between two of them.
    SortedUpdate {
        list: Slot,
        index: Operand<KeyFrame>,
    },
    /// A list or tuple with items replaced by values affine in `k`
    /// (Staircase Nim's `update(update(xs, i, xs[i] - k), i - 1, xs[i - 1]
    /// + k)`): every coordinate affine in `k`.
    Items(AffineItems),
}

/// The items of the sequence in `list`, then each update in order: item
/// `index` set to `base + coef * k`.
pub(crate) struct AffineItems {
    pub list: Slot,
    pub updates: Vec<(Operand<KeyFrame>, Operand<KeyFrame>, i64)>,
}

impl Compiler<'_> {
    /// The keyed kernel form of a move, if every piece has one.
    pub(crate) fn key_loop_move(
        &self,
        game: GameId,
        g: &IrGame,
        m: &IrMove,
    ) -> Option<KeyLoopMove> {
        let n_statics = g.n_statics;
        let mut bindings = Vec::new();
        for b in &m.bindings {
            let IrPattern::Slot { slot, .. } = b.pattern else {
                return None;
            };
            if slot as usize >= KERNEL_FRAME {
                return None;
            }
            bindings.push((slot, self.key_source(&b.iterable)?));
        }
        let guard = match &m.guard {
            Some(e) => Some(self.bool_expr(e)?),
            None => None,
        };
        let filter = self.bits_filter(m);
        let key_arg = |a: &IrExpr| self.key_arg(a);
        if let Some(alternatives) = self.expanded_result(&m.result) {
            return Some(KeyLoopMove {
                bindings,
                guard,
                results: self.choices(game, g, &alternatives, key_arg)?,
                run: None,
                filter,
                bits_run: None,
            });
        }
        let mut parts = Vec::new();
        self.sum_parts(game, n_statics, &m.result, &mut parts)?;
        if let Some(run) = self.key_run(game, g, m, &parts) {
            bindings.pop();
            return Some(KeyLoopMove {
                bindings,
                guard: None,
                results: Vec::new(),
                run: Some(run),
                filter: None,
                bits_run: None,
            });
        }
        let result = self.plain_result(game, n_statics, &m.result, key_arg)?;
        let guard_left = match &filter {
            Some(f) => f.residual.is_some(),
            None => m.guard.is_some(),
        };
        let bits_run = match (m.bindings.last(), guard_left) {
            (Some(b), false) => bits_run(b, &result.parts),
            _ => None,
        };
        Some(KeyLoopMove {
            bindings,
            guard,
            results: vec![result],
            run: None,
            filter,
            bits_run,
        })
    }

    /// The `BitsFilter` of a move, if its last binding runs over a local
    /// and its guard begins with conjuncts a mask can decide.
    fn bits_filter(&self, m: &IrMove) -> Option<BitsFilter> {
        let last = m.bindings.last()?;
        let IrPattern::Slot { slot: i, .. } = &last.pattern else {
            return None;
        };
        let source = match &last.iterable.kind {
            IrKind::Local(s) => FilterSource::Set(*s),
            IrKind::Range {
                start,
                end,
                inclusive,
            } => FilterSource::Bits(constant_range_bits(start, end, *inclusive)?),
            _ => return None,
        };
        let mut conjuncts = Vec::new();
        linear::conjuncts(m.guard.as_ref()?, &mut conjuncts);
        let mut filter = BitsFilter {
            source,
            fixed: u64::MAX,
            tests: Vec::new(),
            residual: None,
        };
        // Only a leading run of conjuncts: one after a conjunct that runs
        // per option must not be decided before it (that one may fail).
        let mut taken = 0;
        for c in &conjuncts {
            if let Some(test) = membership(c, *i) {
                filter.tests.push(test);
            } else if let Some(bits) = self.bits_of_binding(c, *i) {
                filter.fixed &= bits;
            } else {
                break;
            }
            taken += 1;
        }
        if taken == 0 {
            return None;
        }
        let rest = conjuncts[taken..]
            .iter()
            .map(|c| self.bool_expr::<KeyFrame>(c))
            .collect::<Option<Vec<_>>>()?;
        if !rest.is_empty() {
            filter.residual = Some(Box::new(move |f| {
                for c in &rest {
                    if !c(f)? {
                        return Some(false);
                    }
                }
                Some(true)
            }));
        }
        Some(filter)
    }

    /// The bits `i` in 0..63 for which `e`, which reads no local but `i`,
    /// holds; `None` if it reads another or fails for some `i`.
    fn bits_of_binding(&self, e: &IrExpr, i: Slot) -> Option<u64> {
        let only_i = map_locals(e, &|s| {
            (s == i).then_some(IrExpr {
                kind: IrKind::Local(s),
                span: e.span,
            })
        });
        only_i?;
        let code = self.bool_expr::<KeyFrame>(e)?;
        let mut frame = KeyFrame::empty();
        let mut bits = 0u64;
        for v in 0..64 {
            frame.set_int(i, v);
            if code(&frame)? {
                bits |= 1 << v;
            }
        }
        Some(bits)
    }

    fn key_source(&self, e: &IrExpr) -> Option<KeySource> {
        Some(match &e.kind {
            IrKind::Range {
                start,
                end,
                inclusive,
            } => KeySource::Range {
                lo: self.operand(start)?,
                hi: self.operand(end)?,
                inclusive: *inclusive,
            },
            IrKind::Local(s) if (*s as usize) < KERNEL_FRAME => KeySource::Items(*s),
            IrKind::List(xs) | IrKind::Tuple(xs) => {
                KeySource::Codes(xs.iter().map(|x| self.operand(x)).collect::<Option<_>>()?)
            }
            IrKind::Const(Value::List(xs) | Value::Tuple(xs)) => KeySource::Values(
                xs.iter()
                    .map(|x| match x {
                        Value::Int(n) => Some(*n),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            IrKind::Const(Value::Set(xs)) => {
                let mut v: Vec<i64> = xs
                    .iter()
                    .map(|x| match x {
                        Value::Int(n) => Some(*n),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                v.sort_unstable();
                v.dedup();
                KeySource::Values(v)
            }
            _ => KeySource::Mask(self.mask_code(e)?),
        })
    }

    /// The last binding of `m` as strided runs, if the move has that form.
    fn key_run(&self, game: GameId, g: &IrGame, m: &IrMove, parts: &[&[IrExpr]]) -> Option<KeyRun> {
        let [args] = parts else {
            return None;
        };
        let last = m.bindings.last()?;
        let IrPattern::Slot { slot: k, .. } = last.pattern else {
            return None;
        };
        let IrKind::Range {
            start,
            end,
            inclusive,
        } = &last.iterable.kind
        else {
            return None;
        };
        let mut run_args = Vec::new();
        for a in args.iter() {
            run_args.push(if !mentions(a, k) {
                RunArg::Fixed(self.key_arg(a)?)
            } else if let Some((list, index)) = sorted_update_of(a, k) {
                RunArg::SortedUpdate {
                    list,
                    index: self.operand(index)?,
                }
            } else if let Some(items) = self.affine_items(a, k) {
                RunArg::Items(items)
            } else {
                let (base, coef) = self.affine_operand(a, k)?;
                RunArg::Affine(base, coef)
            });
        }
        let mut sorted_updates = (run_args.iter().enumerate())
            .filter(|(_, a)| matches!(a, RunArg::SortedUpdate { .. }))
            .map(|(a, _)| a);
        let list_arg = sorted_updates.next();
        if sorted_updates.next().is_some() {
            return None;
        }
        // A guard only of `k not in xs`, `xs` the list sorted with `k` put
        // in (`t not in coins`): the runs skip the list's items.
        let not_in_list = match (&m.guard, list_arg.map(|a| &run_args[a])) {
            (None, _) => false,
            (Some(guard), Some(RunArg::SortedUpdate { list, .. })) => {
                let mut conjuncts = Vec::new();
                linear::conjuncts(guard, &mut conjuncts);
                let excludes = |c: &&IrExpr| membership(c, k) == Some((*list, 0, true));
                if !conjuncts.iter().all(excludes) {
                    return None;
                }
                true
            }
            (Some(_), _) => return None,
        };
        Some(KeyRun {
            slot: k,
            lo: self.operand(start)?,
            hi: match &end.kind {
                IrKind::Index { target, index } => match (&target.kind, &index.kind) {
                    (IrKind::Local(xs), IrKind::Local(i)) => RunEnd::Item(*xs, *i),
                    _ => RunEnd::Code(self.operand(end)?),
                },
                _ => RunEnd::Code(self.operand(end)?),
            },
            inclusive: *inclusive,
            args: run_args,
            distinct: list_arg.is_some_and(|a| first_distinct(g) == Some(g.n_statics + a)),
            not_in_list,
            shift: rank_shift(game, g, m, k),
        })
    }

    /// `e` as `update(...)` chains on a local other than `k`, each index
    /// free of `k` and each value affine in it.
    fn affine_items(&self, e: &IrExpr, k: Slot) -> Option<AffineItems> {
        let (list, chain) = e.update_chain()?;
        let list = match list.kind {
            IrKind::Local(s) if s != k => s,
            _ => return None,
        };
        let update = |[index, value]: [&IrExpr; 2]| {
            if mentions(index, k) {
                return None;
            }
            let (base, coef) = self.affine_operand(value, k)?;
            Some((self.operand(index)?, base, coef))
        };
        let updates = chain.into_iter().map(update).collect::<Option<_>>()?;
        Some(AffineItems { list, updates })
    }

    /// How an argument of a result is written into the option's key.
    pub(crate) fn key_arg(&self, e: &IrExpr) -> Option<KeyArg> {
        if let IrKind::Local(s) = e.kind {
            return Some(KeyArg::Local(s));
        }
        // A helper (`closed(s, v)` for `s - {v - 1, v, v + 1}`): its body
        // with the arguments put in.
        if let Some(arg) = self.in_helper(e, |body| self.key_arg(body)) {
            return Some(arg);
        }
        let set_op = matches!(
            &e.kind,
            IrKind::Binary {
                op: BinaryOp::Sub | BinaryOp::BitAnd | BinaryOp::BitOr,
                ..
            } | IrKind::Set(_)
                | IrKind::Const(Value::Set(_))
                | IrKind::Collect { set: true, .. }
        );
        if let Some(op) = self.operand(e) {
            return Some(match set_op.then(|| self.mask_code(e)).flatten() {
                Some(code) => KeyArg::IntOrMask(op, code),
                None => KeyArg::Int(op),
            });
        }
        if let Some(chain) = self.bits_chain(e) {
            return Some(KeyArg::Bits(chain));
        }
        if set_op {
            if let Some(code) = self.mask_code(e) {
                return Some(KeyArg::Mask(code));
            }
        }
        self.seq_code(e).map(KeyArg::Seq)
    }

    /// `read` of the body of `e` with its arguments put in, if `e` is a
    /// call of a user function that can be inlined; at most 8 deep,
    /// counting the calls inlined around it (a recursive helper stays a
    /// call).
    fn in_helper<T>(&self, e: &IrExpr, read: impl FnOnce(&IrExpr) -> Option<T>) -> Option<T> {
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

    /// Set code for `e`: locals holding bit sets, set literals of integer
    /// code, constant sets, an item of a constant list of sets
    /// (`adj[v]`, the graph a static argument put in), `remove`/`insert`
    /// chains, calls of helpers made of these, and `-`, `&`, `|` between
    /// them.
    fn mask_code(&self, e: &IrExpr) -> Option<MaskCode> {
        let code = self.mask_code_of(e)?;
        let plain = matches!(e.kind, IrKind::Local(_) | IrKind::Const(_));
        Some(match one_local(e).filter(|_| !plain) {
            Some(s) => tabulated(s, code),
            None => code,
        })
    }

    /// `mask_code` without the table of a set of one local.
    fn mask_code_of(&self, e: &IrExpr) -> Option<MaskCode> {
        Some(match &e.kind {
            IrKind::Local(s) => {
                let s = *s;
                Box::new(move |f| {
                    Some(Mask {
                        bits: f.bits(s)?,
                        wide: false,
                    })
                })
            }
            IrKind::Const(v @ Value::Set(_)) => {
                let m = const_mask(v)?;
                Box::new(move |_| Some(m))
            }
            IrKind::Set(items) => {
                let items = items
                    .iter()
                    .map(|x| self.operand(x))
                    .collect::<Option<Vec<Operand<KeyFrame>>>>()?;
                Box::new(move |f| Mask::of(items.iter().map(|x| x.eval(f))))
            }
            IrKind::Index { target, index } => {
                let IrKind::Const(Value::List(sets) | Value::Tuple(sets)) = &target.kind else {
                    return None;
                };
                let table = sets.iter().map(const_mask).collect::<Option<Vec<_>>>()?;
                let index = self.operand(index)?;
                Box::new(move |f| table.get(usize::try_from(index.eval(f)?).ok()?).copied())
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Remove | Builtin::Insert,
                ..
            } => {
                let chain = self.bits_chain(e)?;
                Box::new(move |f| {
                    Some(Mask {
                        bits: chain.mask(f)?,
                        wide: false,
                    })
                })
            }
            IrKind::CallFn { .. } | IrKind::CallValue { .. } => self
                .in_helper(e, |body| self.mask_code(body))
                .or_else(|| self.call_mask(e))?,
            IrKind::Collect { set: true, comp } => self.comp_mask(comp)?,
            IrKind::Binary { op, lhs, rhs, .. }
                if matches!(op, BinaryOp::Sub | BinaryOp::BitAnd | BinaryOp::BitOr) =>
            {
                let (op, a, b) = (*op, self.mask_code(lhs)?, self.mask_code(rhs)?);
                Box::new(move |f| Mask::apply(op, a(f)?, b(f)?))
            }
            _ => return None,
        })
    }

    /// Set code for a call of a user function whose body is set code in
    /// its own frame (a set comprehension, which does not inline into the
    /// caller's frame): its arguments integer code, or its static
    /// arguments constants put into the body. A function of one argument
    /// that is not a constant keeps the sets of the arguments asked, as a
    /// table.
    fn call_mask(&self, e: &IrExpr) -> Option<MaskCode> {
        let depth = self.inline_depth.get();
        let (f, args) = self.called(e)?;
        if depth >= 8 || f.n_slots > KERNEL_FRAME {
            return None;
        }
        let operands = |args: &[IrExpr]| {
            (args.iter())
                .map(|a| self.operand::<KeyFrame>(a))
                .collect::<Option<Vec<_>>>()
        };
        let (statics, params) = match operands(&args) {
            Some(all) => (Vec::new(), all),
            None => {
                let statics = (args[..f.n_statics].iter())
                    .map(|a| match &a.kind {
                        IrKind::Const(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<Value>>>()?;
                (statics, operands(&args[f.n_statics..])?)
            }
        };
        let body = with_constants(&f.body, &statics, self.globals);
        self.inline_depth.set(depth + 1);
        let code = self.mask_code(&body);
        self.inline_depth.set(depth);
        let code = code?;
        let mut varying = (0..params.len()).filter(|&i| !matches!(params[i], Operand::Const(_)));
        let cached = match (varying.next(), varying.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        };
        let params = Rc::new(params);
        let read = params.clone();
        let run = move |at: &KeyFrame| {
            let mut frame = KeyFrame::empty();
            for (i, p) in read.iter().enumerate() {
                frame.set_int(i as Slot, p.eval(at)?);
            }
            code(&frame)
        };
        let Some(param) = cached else {
            return Some(Box::new(run));
        };
        let table: RefCell<Vec<Option<Mask>>> = RefCell::new(Vec::new());
        Some(Box::new(move |at| {
            let x = params[param].eval(at)?;
            let Some(i) = usize::try_from(x).ok().filter(|&i| i < CALL_CACHE) else {
                return run(at);
            };
            if let Some(Some(m)) = table.borrow().get(i) {
                return Some(*m);
            }
            let m = run(at)?;
            let mut table = table.borrow_mut();
            if table.len() <= i {
                table.resize(i + 1, None);
            }
            table[i] = Some(m);
            Some(m)
        }))
    }

    /// Set code for a set comprehension whose bindings are sources a
    /// kernel reads (ranges, literals of integer code, sets), its guards
    /// integer code and its item an integer: run on a copy of the frame.
    fn comp_mask(&self, comp: &IrComp) -> Option<MaskCode> {
        let steps = (comp.clauses.iter())
            .map(|c| match c {
                IrClause::For(b) => match b.pattern {
                    IrPattern::Slot { slot, .. } if (slot as usize) < KERNEL_FRAME => {
                        Some(CompStep::For(slot, self.key_source(&b.iterable)?))
                    }
                    _ => None,
                },
                IrClause::If(e) => Some(CompStep::If(self.bool_expr(e)?)),
            })
            .collect::<Option<Vec<_>>>()?;
        let body = self.operand::<KeyFrame>(&comp.body)?;
        Some(Box::new(move |f| {
            let (mut frame, mut m) = (f.clone(), Mask::EMPTY);
            comp_items(&steps, &body, &mut frame, &mut m)?;
            Some(m)
        }))
    }

    /// `remove(...)`/`insert(...)` chains on a local, if `e` is one; a
    /// set literal taken out or joined (`free - {i, i + 3}`, `s | {v}`) is
    /// the same chain, an item at a time.
    fn bits_chain(&self, e: &IrExpr) -> Option<BitsChain> {
        let (insert, base, items) = match &e.kind {
            IrKind::CallBuiltin {
                builtin: b @ (Builtin::Remove | Builtin::Insert),
                args,
            } if args.len() == 2 => (*b == Builtin::Insert, &args[0], &args[1..]),
            IrKind::Binary {
                op: op @ (BinaryOp::Sub | BinaryOp::BitOr),
                lhs,
                rhs,
                ..
            } => match &rhs.kind {
                IrKind::Set(items) => (*op == BinaryOp::BitOr, &**lhs, &items[..]),
                _ => return None,
            },
            _ => return None,
        };
        let mut chain = match base.kind {
            IrKind::Local(base) => BitsChain {
                base,
                steps: Vec::new(),
            },
            _ => self.bits_chain(base)?,
        };
        for item in items {
            let item = match linear::local_plus_constant(item) {
                Some((x, c)) => ChainItem::Offset(x, c),
                None => ChainItem::Code(self.operand(item)?),
            };
            chain.steps.push((insert, item));
        }
        Some(chain)
    }

    /// Code writing a sequence (or a bit set) into an option's key.
    fn seq_code(&self, e: &IrExpr) -> Option<SeqCode> {
        match &e.kind {
            IrKind::Local(s) => {
                let s = *s;
                Some(Box::new(move |f, out| out.slot(f, s)))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Remove | Builtin::Insert,
                ..
            } => {
                let chain = self.bits_chain(e)?;
                Some(Box::new(move |f, out| {
                    out.push(chain.mask(f)? as i64)?;
                    Some(Tag::Bits)
                }))
            }
            // `update(ys, i, v)` on any list or tuple the kernel writes
            // (`update(update(xs, i, a), j, b)` changes two items): its
            // items, then item `i` overwritten.
            IrKind::CallBuiltin {
                builtin: Builtin::Update,
                args,
            } if args.len() == 3 => {
                let inner = self.seq_code(&args[0])?;
                let (index, value) = (self.operand(&args[1])?, self.operand(&args[2])?);
                Some(Box::new(move |f, out| {
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
                }))
            }
            IrKind::CallBuiltin {
                builtin: Builtin::Sorted,
                args,
            } if args.len() == 1 => {
                let inner = self.seq_code(&args[0])?;
                Some(Box::new(move |f, out| {
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
                }))
            }
            // `xs + ys` joins two lists: each writes its items in turn.
            IrKind::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
                ..
            } => {
                let (first, second) = (self.seq_code(lhs)?, self.seq_code(rhs)?);
                Some(Box::new(move |f, out| {
                    match (first(f, out)?, second(f, out)?) {
                        (Tag::List(n), Tag::List(m)) => Some(Tag::List(n + m)),
                        // Anything else is no list join (the general path
                        // says what it is).
                        _ => None,
                    }
                }))
            }
            IrKind::List(xs) | IrKind::Tuple(xs) => {
                let items = xs
                    .iter()
                    .map(|x| self.operand(x))
                    .collect::<Option<Vec<Operand<KeyFrame>>>>()?;
                let n = items.len() as u32;
                let tag = if matches!(e.kind, IrKind::List(_)) {
                    Tag::List(n)
                } else {
                    Tag::Tuple(n)
                };
                Some(Box::new(move |f, out| {
                    for x in &items {
                        out.push(x.eval(f)?)?;
                    }
                    Some(tag)
                }))
            }
            _ => None,
        }
    }
}

/// The bits of a range with constant ends within 0..63 (`0..40`,
/// `1..=n` with `n` a constant), ascending as the range runs; `None` for
/// any other.
fn constant_range_bits(start: &IrExpr, end: &IrExpr, inclusive: bool) -> Option<u64> {
    let (IrKind::Const(Value::Int(a)), IrKind::Const(Value::Int(b))) = (&start.kind, &end.kind)
    else {
        return None;
    };
    let b = if inclusive { b.checked_add(1)? } else { *b };
    if !(0..=64).contains(a) || !(0..=64).contains(&b) {
        return None;
    }
    let below = |n: i64| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    Some(below(b) & !below(*a))
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

/// `(t, c, negated)` if `e` is `i + c in t` (`i - c`, `c + i`, `i`), or
/// the same with `not in` or under `not`, `t` a local.
fn membership(e: &IrExpr, i: Slot) -> Option<(Slot, i64, bool)> {
    let (e, negated) = match &e.kind {
        IrKind::Unary(UnaryOp::Not, x) => (x.as_ref(), true),
        _ => (e, false),
    };
    let IrKind::Binary { op, lhs, rhs, .. } = &e.kind else {
        return None;
    };
    let negated = match op {
        BinaryOp::In => negated,
        BinaryOp::NotIn => !negated,
        _ => return None,
    };
    let IrKind::Local(t) = rhs.kind else {
        return None;
    };
    // Small offsets only: `i + c` then never overflows.
    let (x, c) = linear::local_plus_constant(lhs)?;
    if x != i || c.unsigned_abs() >= 1 << 32 {
        return None;
    }
    (t != i).then_some((t, c, negated))
}

/// The slot of `xs` if the game's `where` is `distinct(xs)` or begins
/// with it (`distinct(xs) and ...`: what follows is not evaluated when
/// it fails).
fn first_distinct(g: &IrGame) -> Option<usize> {
    let mut conjuncts = Vec::new();
    linear::conjuncts(g.where_clause.as_ref()?, &mut conjuncts);
    match &conjuncts.first()?.kind {
        IrKind::CallBuiltin {
            builtin: Builtin::Distinct,
            args,
        } => match args.first()?.kind {
            IrKind::Local(s) if args.len() == 1 => Some(s as usize),
            _ => None,
        },
        _ => None,
    }
}
