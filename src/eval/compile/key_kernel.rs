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

use super::compiler::Compiler;
use super::expand::MoveResult;
use super::frame::{KeyFrame, KERNEL_FRAME};
use super::int_code::{map_locals, mentions, sorted_update_of, BoolCode, Locals, Operand, Seq};
use super::key_tree::{chain_step, ChainItem, SetNode};
pub(crate) use super::key_tree::{ArgCode, KeyArg, KeySource, OptionKey, Settings};
use super::linear;
use super::rank_shift::{rank_shift, RankShift, ShiftRefusal};
use super::refusal::Refusal;
use crate::eval::builtins::Builtin;
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
    /// Every argument of every result may be one coordinate
    /// (`ArgCode::may_be_scalar`), at most `SCALAR_ARGS`: the walk makes such an option in
    /// registers, its key written only if it is not solved yet.
    pub scalar: bool,
}

/// One sum a `KeyLoopMove` may give.
pub(crate) type KeyResult = MoveResult<KeyFrame, ArgCode>;

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
            KeyArg::Set(SetNode::Chain(base, chain)) if run.is_none() => {
                let &SetNode::Local(base) = base.as_ref() else {
                    return None;
                };
                if base == *i {
                    return None;
                }
                let steps = chain.iter().map(|(insert, item)| match item {
                    ChainItem::Offset(x, c) if x == i => Some((*insert, *c)),
                    _ => None,
                });
                let steps: Vec<(bool, i64)> = steps.collect::<Option<_>>()?;
                let removed = steps.iter().try_fold(0u64, |bits, &(insert, c)| {
                    (!insert && (0..64).contains(&c)).then(|| bits | 1 << c)
                });
                run = Some(BitsRun {
                    arg: j,
                    base,
                    steps,
                    removed,
                });
            }
            _ => return None,
        }
    }
    run
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
    Fixed(ArgCode),
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
            bindings.push((slot, self.key_source(&b.iterable).ok()?));
        }
        let guard = match &m.guard {
            Some(e) => Some(self.bool_expr(e)?),
            None => None,
        };
        let filter = self.bits_filter(m);
        let key_arg = |a: &IrExpr| self.key_arg(a).ok();
        if let Some(alternatives) = self.expanded_result(&m.result) {
            let arg_code = |a: &IrExpr| key_arg(a).map(ArgCode::new);
            let results = self.choices(game, g, &alternatives, arg_code)?;
            return Some(KeyLoopMove {
                bindings,
                guard,
                scalar: scalar(&results),
                results,
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
                scalar: false,
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
        // The arguments read, their code generated.
        let parts = result.parts.into_iter();
        let result = KeyResult {
            parts: parts
                .map(|p| p.into_iter().map(ArgCode::new).collect())
                .collect(),
            conds: result.conds,
            body_where: result.body_where,
            from_body: result.from_body,
        };
        let results = vec![result];
        Some(KeyLoopMove {
            bindings,
            guard,
            scalar: scalar(&results),
            results,
            run: None,
            filter,
            bits_run,
        })
    }

    /// The first argument of `m`'s result that is neither integer code
    /// nor one a keyed kernel writes, as a refusal, if there is one.
    pub(crate) fn key_arg_refusal(&self, game: GameId, g: &IrGame, m: &IrMove) -> Option<Refusal> {
        let mut parts = Vec::new();
        self.sum_parts(game, g.n_statics, &m.result, &mut parts)?;
        parts.iter().find_map(|args| {
            (args.iter().enumerate()).find_map(|(i, a)| {
                let why = self.key_arg(a).err()?;
                Some(Refusal::ArgumentNotIntegerCode(i, why))
            })
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
                RunArg::Fixed(ArgCode::new(self.key_arg(a).ok()?))
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
}

/// Most arguments of an option made in registers (`KeyLoopMove::scalar`):
/// its coordinates are copied whole, with no loop and no call.
pub(crate) const SCALAR_ARGS: usize = 4;

/// Whether every argument of `results` may be one coordinate, at most
/// `SCALAR_ARGS` a part.
fn scalar(results: &[KeyResult]) -> bool {
    let parts = || results.iter().flat_map(|r| r.parts.iter());
    parts().all(|p| p.len() <= SCALAR_ARGS && p.iter().all(ArgCode::may_be_scalar))
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
