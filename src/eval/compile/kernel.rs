//! Kernels: a compact second form of a game's moves for the SG search.
//!
//! When every move of a game leads to a position of the same game (same
//! static arguments) whose integer arguments are integer code of the
//! position's arguments, the search need not go through frames of values,
//! move closures and keys for each position: it puts the static arguments
//! and arguments in a frame of integers and, per move, evaluates a few
//! integer codes on it and reads the memo directly: a strided run for `k in
//! lo..hi` with arguments affine in `k` (arguments that are not come from
//! batched code over the run), one read for a move without bindings. Each
//! move is planned on its own: a move of no kernel form is kept as a
//! general plan, named with its refusal (`refusal.rs`), which runs that
//! move's compiled closure, so the game's other moves stay on kernel
//! code. A game none of whose moves has a kernel form has no kernel. The
//! search runs kernels in `search/kernel.rs`.

use super::batch_code::{batch_code, BatchCode};
use super::compiler::Compiler;
use super::expand::MoveResult;
use super::frame::KERNEL_FRAME;
use super::guaranteed::{const_items, Facts};
use super::guard_bounds::{Implied, LoopGuard};
use super::int_code::{bool_code, mentions, node_operand, BoolCode, Locals, Operand};
use super::int_tree::{BoolNode, IntFn, IntNode, IntOp};
use super::key_kernel::KeyLoopMove;
use super::linear::{
    affine, local_plus_constant, node_local_plus, nonnegative, quadratic_coefs, Linear, Term,
};
use super::refusal::{NoKernel, Refusal};
use crate::eval::builtins::Builtin;
use crate::eval::memo::{int_shape, Key, Shape, MAX_ARGS};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use smallvec::SmallVec;

/// The moves of one game in kernel form; used for positions whose
/// arguments (and static arguments) are all integers. Its code reads a
/// frame of integers: the static arguments, then the arguments.
pub(crate) struct Kernel {
    /// The key shape of a position of `n_params` integer arguments.
    pub shape: Shape,
    /// How many integer arguments a position has.
    pub n_params: usize,
    /// One plan per move of the game, in order.
    pub moves: Vec<MovePlan>,
    /// The moves' kernel forms are `KeyLoopMove`s: positions of any
    /// flattened shape (integers, lists, tuples, bit sets) run on a
    /// `KeyFrame`.
    pub keyed: bool,
    /// The same moves as `StrideMove`s, when every one has that form
    /// (subtraction games; `strides_of`): a table swept in order values
    /// its positions from fixed distances in the memo
    /// (`compile/line_sweep.rs`).
    pub strides: Option<Vec<StrideMove>>,
    /// Two arguments the game may swap, a position and its twin having
    /// one value (`compile/symmetry.rs`); only when every move is in
    /// kernel form, as are `clamps`.
    pub swappable: Option<(usize, usize)>,
    /// Arguments the moves read only as `min(x, bound)`, with their
    /// bounds: a position with `x` above its bound has the value of the
    /// one with `x` at it (`compile/symmetry.rs`).
    pub clamps: Vec<(usize, Operand<[i64]>)>,
    /// The moves read each option at its clamped position
    /// (`Compiler::clamped_options`).
    pub options_clamped: bool,
}

impl Kernel {
    /// Whether no move in kernel form leads to a sum: then a compound of
    /// one position stays one position of the game after every move
    /// (`search/layered.rs`). A general move's options are checked as they
    /// come (`SgSink::layer_option`), as on a game without a kernel.
    pub(crate) fn moves_to_single_positions(&self) -> bool {
        self.moves.iter().all(|m| match m {
            MovePlan::General(_) => true,
            MovePlan::Kernel(k) => match k {
                KernelMove::Run(_) | KernelMove::Single(_) => true,
                KernelMove::SumRun(_) => false,
                KernelMove::Loop(l) => l.results.iter().all(|r| r.parts.len() <= 1),
                KernelMove::KeyLoop(k) => k.results.iter().all(|r| r.parts.len() <= 1),
            },
        })
    }

    /// The moves of a game the lean walk runs (`search/key_walk.rs`):
    /// every one a keyed loop whose results are one position or none, read
    /// option by option (no strided or bit-mask run), in a game without
    /// `where` (`has_where`), twins or clamps. The walk chooses its games
    /// by this, and `--explain` names it by this.
    pub(crate) fn walk_moves(&self, has_where: bool) -> Option<SmallVec<[&KeyLoopMove; 4]>> {
        if !self.keyed || has_where || self.swappable.is_some() || !self.clamps.is_empty() {
            return None;
        }
        let one_part = |r: &MoveResult<_, _>| r.parts.len() <= 1;
        (self.moves.iter())
            .map(|plan| match plan {
                MovePlan::Kernel(KernelMove::KeyLoop(m))
                    if m.run.is_none()
                        && m.bits_run.is_none()
                        && m.results.iter().all(one_part) =>
                {
                    Some(m)
                }
                _ => None,
            })
            .collect()
    }

    /// Whether every move is in kernel form.
    pub(crate) fn all_kernel(&self) -> bool {
        self.moves.iter().all(|m| matches!(m, MovePlan::Kernel(_)))
    }

    /// Whether the kernel runs positions with this key.
    #[inline]
    pub(crate) fn accepts(&self, key: &Key) -> bool {
        key.generic.is_none() && (self.keyed || key.shape() == self.shape)
    }
}

/// `lo <= frame[slot] <= hi`: a comparison of one frame slot with a
/// constant (`lo > hi`: never true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub slot: usize,
    pub lo: i64,
    pub hi: i64,
}

/// A move without bindings (or one item of a move over a constant set)
/// whose option is the position with argument `coord` moved by the constant
/// `delta` (`n - 2`), taken when every bound of its guard holds (`2 <= n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StrideMove {
    pub coord: usize,
    pub delta: i64,
    pub bounds: Vec<Bound>,
}

/// Most stride moves a kernel keeps: with fewer options than 64, option
/// values of 64 or more never decide the mex, so a 64-bit mask serves.
pub(crate) const MAX_STRIDES: usize = 32;

/// How the search runs one move of a game that has a kernel.
// A game holds a few, read in place for every position: not boxed.
#[allow(clippy::large_enum_variant)]
pub(crate) enum MovePlan {
    /// On the kernel's frame, in this form.
    Kernel(KernelMove),
    /// Its compiled closure on a frame of values built from the
    /// position's key, as the general path runs every move; why it has
    /// no kernel form.
    General(Refusal),
}

pub(crate) enum KernelMove {
    Run(RunMove),
    SumRun(SumRunMove),
    Loop(LoopMove),
    /// A move without bindings (`name if guard -> G(args)`): its one
    /// option.
    Single(SingleMove),
    /// A move of a keyed kernel: the Loop form on a frame that holds lists
    /// and sets of the position too (`key_kernel.rs`).
    KeyLoop(KeyLoopMove),
}

/// `name(k in lo..hi) if guard -> G(args_1) + G(args_2) + ...`, a
/// take-and-break move: every argument of every part affine in `k`, the
/// guard (if any) wholly loop bounds (`a < n - a`). The search reads each
/// part's run with its own stride and xors their values.
pub(crate) struct SumRunMove {
    pub lo: Operand<[i64]>,
    pub hi: Operand<[i64]>,
    pub inclusive: bool,
    pub guard: LoopGuard,
    pub parts: Vec<AffinePart>,
}

/// One part of a `SumRunMove`: the bases and coefficients of its
/// arguments.
pub(crate) type AffinePart = (Vec<Operand<[i64]>>, Vec<i64>);

/// Any other move whose bindings run over integer ranges or constant sets
/// of integers, whose guard is integer code, and whose result is a sum of
/// positions of the game itself with integer-code arguments (no part: the
/// zero game), or a choice between such sums. Evaluated option by option
/// on a frame of integers.
pub(crate) struct LoopMove {
    pub bindings: Vec<(Slot, LoopSource)>,
    /// The guard's leading conjuncts as bounds on the bindings' loops;
    /// `guard`, the whole guard, is still evaluated per option.
    pub bounds: LoopGuard,
    pub guard: Option<BoolCode<[i64]>>,
    /// The result: one sum, or for a result that chooses with `if`
    /// (`compile/expand.rs`) one per choice, the first whose conditions
    /// hold taken.
    pub results: Vec<LoopResult>,
}

impl LoopMove {
    /// The frame's width for this move's options: the position's `ints`
    /// then every binding's slot.
    pub(crate) fn frame_width(&self, ints: usize) -> usize {
        (self.bindings.iter())
            .map(|(s, _)| *s as usize + 1)
            .max()
            .unwrap_or(0)
            .max(ints)
    }

    /// Calls `option` with `frame[..width]` for every setting of the
    /// bindings (outermost first, each level's range narrowed by the
    /// guard's bounds while the levels above were), the position's
    /// integers already in the frame. False as soon as a range does not
    /// evaluate on integers or `option` returns false: the caller then
    /// takes the general path. The one walk the search and the loopy
    /// labelling share.
    pub(crate) fn each_option<E>(
        &self,
        frame: &mut [i64; KERNEL_FRAME],
        width: usize,
        option: &mut impl FnMut(&[i64]) -> Result<bool, E>,
    ) -> Result<bool, E> {
        self.level(frame, width, (0, true), option)
    }

    /// `each_option` from binding `level` on (`bounded`: every outer
    /// level's bounds were decided, so this one's may narrow its range).
    fn level<E>(
        &self,
        frame: &mut [i64; KERNEL_FRAME],
        width: usize,
        (level, bounded): (usize, bool),
        option: &mut impl FnMut(&[i64]) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let Some((slot, source)) = self.bindings.get(level) else {
            return option(&frame[..width]);
        };
        let slot = *slot as usize;
        match source {
            LoopSource::Range { lo, hi, inclusive } => {
                let ends = lo.eval(&frame[..width]).zip(hi.eval(&frame[..width]));
                let Some((a, b)) = ends else {
                    return Ok(false);
                };
                let b = match (*inclusive, b.checked_add(1)) {
                    (false, _) => b,
                    (true, Some(b)) => b,
                    (true, None) => return Ok(false),
                };
                let (a, b, inner) = self.bounds.level_range(bounded, level, frame, (a, b), None);
                for k in a..b {
                    frame[slot] = k;
                    if !self.level(frame, width, (level + 1, inner), option)? {
                        return Ok(false);
                    }
                }
            }
            LoopSource::Values(values) => {
                let all = (0, values.len() as i64);
                let (i, j, inner) =
                    (self.bounds).level_range(bounded, level, frame, all, Some(values));
                for &k in &values[i as usize..j as usize] {
                    frame[slot] = k;
                    if !self.level(frame, width, (level + 1, inner), option)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}

/// One sum a `LoopMove` may give.
pub(crate) type LoopResult = MoveResult<[i64], Operand<[i64]>>;

pub(crate) enum LoopSource {
    Range {
        lo: Operand<[i64]>,
        hi: Operand<[i64]>,
        inclusive: bool,
    },
    Values(Vec<i64>),
}

/// `name(k in lo..hi) if guard -> G(args)`: arguments `bases + coefs *
/// k`, except those in `per_option` (their base and coefficient are 0);
/// the guard (if any) wholly loop bounds (`k * k <= n`).
pub(crate) struct RunMove {
    pub lo: Operand<[i64]>,
    pub hi: Operand<[i64]>,
    pub inclusive: bool,
    pub guard: LoopGuard,
    pub bases: Vec<Operand<[i64]>>,
    pub coefs: Vec<i64>,
    /// Arguments that are not affine in `k` (`min(f(k), y)`): batched
    /// integer code, run over the whole run at once.
    pub per_option: Vec<(usize, BatchCode)>,
    /// The `per_option` arguments again, in the same order, when each is
    /// piecewise floor-affine in `k` (`Bend`): the search then splits the
    /// run where they bend and reads each piece with strides, without the
    /// batched code.
    pub bends: Option<Vec<Bend>>,
    /// The `per_option` arguments again, in the same order, when each is
    /// quadratic in `k` (`n - k * k`): the search then walks the run with
    /// a stride that grows by a constant step, without the batched code.
    pub quadratic: Option<Vec<Quadratic>>,
    /// `Some(i)` when the options are the position itself with only
    /// argument `i` changed (the commonest move: lower one heap); the
    /// search then reads them next to the position's own memo entry.
    pub varies: Option<usize>,
    /// The arguments along which the options move with the position
    /// (`translated_along`).
    pub translated: u64,
    /// Its guard holds for every option inside the game's `where`
    /// (`Facts::guard_within_where`): a listing of the options inside a
    /// box that is the `where` skips it.
    pub guard_in_where: bool,
    /// The frame slots its range, guard and affine arguments read, a bit
    /// each (all where that is not known): along a swept line that moves
    /// none of them, they are worked out once for the line.
    pub reads: u64,
}

/// A run argument `floor((base + coef * k) / div)` (`div > 0`), maybe
/// clamped: `min` (or `max`, when `min` is false) of that and a `Limit`,
/// as in `min(F(u, z), y)` or `min(2 * k, max(n - k, 1))`. Each side is
/// monotone in `k`, so the clamps split the run into a few pieces, each
/// floor-affine.
pub(crate) struct Bend {
    pub base: Operand<[i64]>,
    pub coef: i64,
    pub div: i64,
    /// `coef` as `coef_div * div + coef_rem` (`0 <= coef_rem < div`),
    /// divided once here, so that the search divides per run only what
    /// depends on the position (a 64-bit division takes tens of cycles,
    /// and a position has several bends' runs).
    pub coef_div: i64,
    pub coef_rem: i64,
    pub clamp: Option<(bool, Limit)>,
    /// The frame slots `base` reads, a bit each (as `RunMove::reads`):
    /// along a swept line that moves none of them, the quotient is
    /// worked out once for the line.
    pub reads: u64,
}

/// The bound of a `Bend`'s clamp: `base + coef * k`, itself maybe clamped
/// (`min`, or `max` when false) by a bound free of `k`.
pub(crate) struct Limit {
    pub base: Operand<[i64]>,
    pub coef: i64,
    pub clamp: Option<(bool, Operand<[i64]>)>,
}

impl Bend {
    /// The bend of `moving` (`floor((base + coef * k) / div)`), clamped.
    fn new(moving: &IntNode, k: Slot, clamp: Option<(bool, Limit)>) -> Option<Self> {
        let (base, coef, div) = floor_affine(moving, k)?;
        Some(Bend {
            base,
            coef,
            div,
            coef_div: coef.div_euclid(div),
            coef_rem: coef.rem_euclid(div),
            clamp,
            reads: slots_read(k, |s| moving.reads(s)),
        })
    }
}

/// The frame slots below 64 other than the binding `k` that `reads`
/// says are read, a bit each.
fn slots_read(k: Slot, reads: impl Fn(Slot) -> bool) -> u64 {
    (0..KERNEL_FRAME.min(64) as Slot)
        .filter(|&s| s != k && reads(s))
        .fold(0, |mask, s| mask | 1 << s)
}

/// A run argument `base + c1 * k + c2 * k * k` with constant `c1`,
/// `c2` (`c2 != 0`).
pub(crate) struct Quadratic {
    pub base: Operand<[i64]>,
    pub c1: i64,
    pub c2: i64,
}

/// `name if guard -> G(args)`.
pub(crate) struct SingleMove {
    /// The guard's conjuncts in order (none without a guard), each with
    /// the arguments it reads (bit `i` for argument `i`): a caller may
    /// decide the leading ones once for many positions that agree on what
    /// they read.
    pub guard: Vec<(u64, BoolCode<[i64]>)>,
    pub args: Vec<Operand<[i64]>>,
    /// As for runs: the option is the position with argument `i` changed.
    pub varies: Option<usize>,
    /// As for runs (`translated_along`).
    pub translated: u64,
    /// Per guard conjunct, its reading as an `Order` where it is one: a
    /// caller may decide it as a bound on a local, for many positions.
    pub orders: Vec<Option<Order>>,
    /// Per argument, `(x, c)` where it is the local `x` plus the constant
    /// `c` (`node_local_plus`).
    pub shifts: Vec<Option<(Slot, i64)>>,
}

/// A comparison `l op r` (`op` an order or `==`) whose sides are each a
/// local plus a constant (`(Some(x), c)`) or a constant (`(None, c)`):
/// where no side overflows it holds exactly when the bound it sets holds.
#[derive(Clone, Copy)]
pub(crate) struct Order {
    pub op: BinaryOp,
    pub l: (Option<Slot>, i64),
    pub r: (Option<Slot>, i64),
}

/// A conjunct as an `Order`, if it is one.
fn order_of(c: &BoolNode) -> Option<Order> {
    use BinaryOp::{Eq, Ge, Gt, Le, Lt};
    let BoolNode::Compare(op @ (Lt | Le | Gt | Ge | Eq), l, r) = c else {
        return None;
    };
    let side = |e: &IntNode| match *e {
        IntNode::Const(c) => Some((None, c)),
        _ => node_local_plus(e).map(|(x, c)| (Some(x), c)),
    };
    Some(Order {
        op: *op,
        l: side(l)?,
        r: side(r)?,
    })
}

impl SingleMove {
    /// Whether the guard's conjuncts `conjuncts` hold, evaluated in order
    /// as `and` does (the first false decides); `None` if one does not
    /// evaluate on integers.
    #[inline]
    pub(crate) fn holds(&self, conjuncts: std::ops::Range<usize>, ints: &[i64]) -> Option<bool> {
        for (_, c) in &self.guard[conjuncts] {
            if !c(ints)? {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// A move without bindings whose result is the position of the game
/// itself (`args`, its arguments' code) with one argument moved by a
/// constant, as a `StrideMove`, if it has that form.
fn stride_of(g: &IrGame, args: &[IntNode], guard: Option<&BoolNode>) -> Option<StrideMove> {
    let own = |j: usize| IntNode::Local((g.n_statics + j) as Slot);
    let mut moved = args.iter().enumerate().filter(|&(j, a)| *a != own(j));
    let (coord, arg) = moved.next()?;
    if moved.next().is_some() {
        return None;
    }
    let (x, delta) = node_local_plus(arg)?;
    if IntNode::Local(x) != own(coord) {
        return None;
    }
    let bounds = match guard {
        Some(c) => bounds_of(c, frame_width(g))?,
        None => Vec::new(),
    };
    Some(StrideMove {
        coord,
        delta,
        bounds,
    })
}

/// `min(l, r)` (true) or `max(l, r)` (false): which, and its sides both
/// ways round.
type Sides<'e> = [(&'e IntNode, &'e IntNode); 2];
fn clamp_sides(e: &IntNode) -> Option<(bool, Sides<'_>)> {
    let IntNode::Binary(IntOp::Builtin(b @ (Builtin::Min | Builtin::Max)), l, r) = e else {
        return None;
    };
    Some((*b == Builtin::Min, [(l, r), (r, l)]))
}

/// `e` as a `Quadratic` in the binding `k`, if it is one: its base is
/// `e` at `k = 0`.
fn quadratic_of(e: &IntNode, k: Slot) -> Option<Quadratic> {
    let (c1, c2) = quadratic_coefs(e, k)?;
    if c2 == 0 {
        return None;
    }
    let base = node_operand(&e.with_local(k, 0)?);
    Some(Quadratic { base, c1, c2 })
}

/// `e` as a `Bend` over the binding `k`, if it is one.
fn bend_of(e: &IntNode, k: Slot) -> Option<Bend> {
    let Some((min, sides)) = clamp_sides(e) else {
        return Bend::new(e, k, None);
    };
    let side =
        |(moving, bound): (&IntNode, &IntNode)| Bend::new(moving, k, Some((min, limit(bound, k)?)));
    side(sides[0]).or_else(|| side(sides[1]))
}

/// `e` as a `Limit` over the binding `k`: affine in `k`, or `min` or
/// `max` of that and a bound free of `k`.
fn limit(e: &IntNode, k: Slot) -> Option<Limit> {
    if let Some((base, coef)) = affine_operand(e, k) {
        let clamp = None;
        return Some(Limit { base, coef, clamp });
    }
    let (min, sides) = clamp_sides(e)?;
    let side = |(moving, bound): (&IntNode, &IntNode)| {
        let (base, coef) = affine_operand(moving, k)?;
        let clamp = Some((min, (!bound.reads(k)).then(|| node_operand(bound))?));
        Some(Limit { base, coef, clamp })
    };
    side(sides[0]).or_else(|| side(sides[1]))
}

/// `e` as `floor((base + coef * k) / div)` with `div > 0`.
fn floor_affine(e: &IntNode, k: Slot) -> Option<(Operand<[i64]>, i64, i64)> {
    if let IntNode::Unary(IntFn::FloorDiv(d), x) = e {
        let (base, coef) = affine_operand(x, k)?;
        return Some((base, coef, d.divisor()));
    }
    let (base, coef) = affine_operand(e, k)?;
    Some((base, coef, 1))
}

/// `e` as `base + coef * k`, the base as an operand.
fn affine_operand<L: Locals + ?Sized>(e: &IntNode, k: Slot) -> Option<(Operand<L>, i64)> {
    match *e {
        _ if !e.reads(k) => Some((node_operand(e), 0)),
        IntNode::Local(_) => Some((Operand::Const(0), 1)),
        _ => affine(e, k).map(|(base, coef)| match local_base(e, k) {
            Some(s) => (Operand::Local(s), coef),
            None => (Operand::Code(base), coef),
        }),
    }
}

/// `Some(x)` when `e` is the local `x` plus or minus `k` or a constant
/// times `k` (`y - k`, `y + 2 * k`): its base is `x` itself, read as a
/// local (a listing can then tell which coordinate it is).
fn local_base(e: &IntNode, k: Slot) -> Option<Slot> {
    use IntNode::{Binary, Const, Local};
    let Binary(IntOp::Op(BinaryOp::Add | BinaryOp::Sub), l, r) = e else {
        return None;
    };
    let is_k = |n: &IntNode| matches!(*n, Local(s) if s == k);
    let times_k = match &**r {
        Binary(IntOp::Op(BinaryOp::Mul), a, b) => {
            (is_k(a) && matches!(**b, Const(_))) || (is_k(b) && matches!(**a, Const(_)))
        }
        r => is_k(r),
    };
    match **l {
        Local(x) if x != k && times_k => Some(x),
        _ => None,
    }
}

/// The slots of a game's kernel frame: its static arguments, then its
/// arguments.
fn frame_width(g: &IrGame) -> usize {
    g.n_statics + g.n_params
}

/// The only binding of a move when it names one integer of a range: its
/// slot, the range's bounds and whether the end is included.
fn only_range(m: &IrMove) -> Option<(Slot, &IrExpr, &IrExpr, bool)> {
    let [b] = &m.bindings[..] else {
        return None;
    };
    slot_range(b)
}

/// A binding of one integer of a range: its slot, the range's bounds and
/// whether the end is included.
pub(crate) fn slot_range(b: &IrBinding) -> Option<(Slot, &IrExpr, &IrExpr, bool)> {
    let IrPattern::Slot { slot, .. } = b.pattern else {
        return None;
    };
    let IrKind::Range {
        start,
        end,
        inclusive,
    } = &b.iterable.kind
    else {
        return None;
    };
    Some((slot, start, end, *inclusive))
}

/// Why a result that is no sum of positions of the game itself has no
/// kernel form.
fn result_refusal(result: &IrExpr) -> Refusal {
    match &result.kind {
        IrKind::CallBuiltin {
            builtin:
                b @ (Builtin::Pass
                | Builtin::Misere
                | Builtin::Conjunctive
                | Builtin::Selective
                | Builtin::Hypergraph
                | Builtin::OrdinalSum),
            ..
        } => Refusal::ResultCompound(*b),
        _ => Refusal::ResultElsewhere,
    }
}

/// A condition as bounds on a frame of `width` slots: comparisons of a
/// slot with a constant (or of two constants) joined by `and`, each read
/// as forms `f >= 0` (`==` as two), the range it leaves its slot (`lo >
/// hi` for none; no bound for a conjunct that always holds). Such
/// comparisons of integers cannot fail, so the bounds decide exactly what
/// the condition would. `None` for any other form.
pub(crate) fn bounds_of(c: &BoolNode, width: usize) -> Option<Vec<Bound>> {
    let side = |e: &IntNode| match *e {
        IntNode::Local(s) if (s as usize) < width => Some(Linear::term(Term::Local(s))),
        IntNode::Const(c) => Some(Linear::constant(c.into())),
        _ => None,
    };
    // A conjunct of constants alone, as `holds - 1 >= 0`.
    let holds = |b: bool| {
        (
            BinaryOp::Ge,
            Linear::constant(b as i128 - 1),
            Linear::constant(0),
        )
    };
    let mut out = Vec::new();
    for c in c.conjuncts() {
        let (op, l, r) = match c {
            BoolNode::Const(b) => holds(*b),
            BoolNode::Compare(op, l, r) => (*op, side(l)?, side(r)?),
            _ => return None,
        };
        let (op, l, r) = match (l.terms.is_empty(), r.terms.is_empty()) {
            (false, false) => return None,
            (true, true) if op == BinaryOp::Ne => holds(l != r),
            _ => (op, l, r),
        };
        let ops = match op {
            BinaryOp::Eq => &[BinaryOp::Ge, BinaryOp::Le][..],
            ref op => std::slice::from_ref(op),
        };
        let (mut slot, mut lo, mut hi) = (0, i128::from(i64::MIN), i128::from(i64::MAX));
        for &op in ops {
            // `f >= 0`, `f` a constant or `x + c` or `c - x`.
            let f = nonnegative(op, &l, &r)?;
            match &f.terms[..] {
                [] if f.constant < 0 => (lo, hi) = (1, 0),
                [] => {}
                [(m, c @ (1 | -1))] => {
                    let [Term::Local(x)] = m[..] else {
                        return None;
                    };
                    slot = x as usize;
                    match c {
                        1 => lo = lo.max(-f.constant),
                        _ => hi = hi.min(f.constant),
                    }
                }
                _ => return None,
            }
        }
        let (lo, hi) = (i64::try_from(lo).ok()?, i64::try_from(hi).ok()?);
        if (lo, hi) != (i64::MIN, i64::MAX) {
            out.push(Bound { slot, lo, hi });
        }
    }
    Some(out)
}

/// Whether argument `j` is the position's own argument of the same place
/// (the frame holds `n_statics` statics first).
fn own(args: &[Operand<[i64]>], n_statics: usize, j: usize) -> bool {
    matches!(args[j], Operand::Local(s) if s as usize == n_statics + j)
}

/// The arguments along which a move's options move with the position,
/// bit `i` for argument `i`: argument `i` of the result is the position's
/// own, and no range, guard or other argument of the move reads it. A
/// position one further along `i` then has the same options, each one
/// further along `i` (as far as the move tells: the `where` aside).
fn translated_along(n_statics: usize, m: &IrMove, args: &[IrExpr]) -> u64 {
    let ranges = m.bindings.iter().map(|b| &b.iterable);
    (0..args.len().min(64))
        .filter(|&i| {
            let slot = (n_statics + i) as Slot;
            let mut read = (m.guard.iter().chain(ranges.clone())).chain(
                args.iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, a)| a),
            );
            matches!(args[i].kind, IrKind::Local(s) if s == slot)
                && !read.any(|e| mentions(e, slot))
        })
        .fold(0, |mask, i| mask | 1 << i)
}

/// `Some(i)` when every argument but the `i`-th is the position's own.
fn varies_only(args: &[Operand<[i64]>], n_statics: usize, i: usize) -> Option<usize> {
    (0..args.len())
        .all(|j| j == i || own(args, n_statics, j))
        .then_some(i)
}

impl Compiler<'_> {
    /// The kernel of a game: a plan per move, or why it has none. The
    /// moves are planned on a frame of integers, or on a key's frame
    /// (`KeyLoop`, lists and sets) when that puts as many of them in
    /// kernel form, one of them only there; a move in neither is a
    /// general plan.
    pub(crate) fn kernel(&self, game: GameId, g: &IrGame) -> Result<Kernel, NoKernel> {
        let moves = match &g.body {
            IrGameBody::Alias(_) => return Err(NoKernel::Alias),
            IrGameBody::Moves(moves) if moves.is_empty() => return Err(NoKernel::NoMoves),
            IrGameBody::Moves(moves) => moves,
        };
        if g.n_params == 0 {
            return Err(NoKernel::NoArguments);
        }
        if g.n_params > MAX_ARGS as usize || frame_width(g) > KERNEL_FRAME {
            return Err(NoKernel::TooManyArguments);
        }
        let int_plans: Vec<MovePlan> = moves
            .iter()
            .map(|m| match self.kernel_move(game, g, m) {
                Ok(k) => MovePlan::Kernel(k),
                Err(why) => MovePlan::General(why),
            })
            .collect();
        let count = |plans: &[MovePlan]| {
            (plans.iter())
                .filter(|p| matches!(p, MovePlan::Kernel(_)))
                .count()
        };
        let mut plans = (int_plans, false);
        if count(&plans.0) < moves.len() {
            let key_plans: Vec<MovePlan> =
                (moves.iter().zip(&plans.0))
                    .map(|(m, int)| match self.key_loop_move(game, g, m) {
                        Some(k) => MovePlan::Kernel(KernelMove::KeyLoop(k)),
                        // An argument neither integer code nor one the kernel
                        // over lists and sets writes: its refusal first.
                        None => MovePlan::General(self.key_arg_refusal(game, g, m).unwrap_or_else(
                            || match int {
                                MovePlan::General(why) => why.clone(),
                                MovePlan::Kernel(_) => Refusal::NotOnKeyFrame,
                            },
                        )),
                    })
                    .collect();
            // A move only the keyed kernel runs writes lists or sets: the
            // positions are likely not all integers, which the integer
            // kernel needs.
            let key_only = (key_plans.iter().zip(&plans.0))
                .any(|p| matches!(p, (MovePlan::Kernel(_), MovePlan::General(_))));
            // With no kernel move either way, the keyed refusals say more.
            let none = count(&plans.0) == 0;
            if none || key_only && count(&key_plans) >= count(&plans.0) {
                plans = (key_plans, true);
            }
        }
        let (kernel_moves, keyed) = plans;
        if count(&kernel_moves) == 0 {
            let why = kernel_moves.into_iter().filter_map(|m| match m {
                MovePlan::General(why) => Some(why),
                MovePlan::Kernel(_) => None,
            });
            return Err(NoKernel::NoMove(why.collect()));
        }
        Ok(Kernel {
            shape: int_shape(g.n_params),
            n_params: g.n_params,
            strides: if keyed {
                None
            } else {
                self.strides_of(game, g, moves)
            },
            moves: kernel_moves,
            keyed,
            swappable: None,
            clamps: Vec::new(),
            options_clamped: false,
        })
    }

    /// The moves as `StrideMove`s, when each is a move without bindings
    /// of that form, or one over a constant set of integers whose every
    /// item (put in for the binding) gives one; at most `MAX_STRIDES` in
    /// all. Keyed kernels have none: sweeps read integer frames.
    fn strides_of(&self, game: GameId, g: &IrGame, moves: &[IrMove]) -> Option<Vec<StrideMove>> {
        let mut out = Vec::new();
        for m in moves {
            let args = self.same_game_args(game, g.n_statics, &m.result)?;
            let args: Vec<IntNode> =
                (args.iter().map(|a| self.int_tree(a).ok())).collect::<Option<_>>()?;
            let guard = match &m.guard {
                Some(e) => Some(self.bool_tree(e).ok()?),
                None => None,
            };
            let b = match &m.bindings[..] {
                [] => {
                    out.push(stride_of(g, &args, guard.as_ref())?);
                    continue;
                }
                [b] => b,
                _ => return None,
            };
            let IrPattern::Slot { slot, .. } = b.pattern else {
                return None;
            };
            for k in const_items(&b.iterable).filter(|ks| ks.len() <= MAX_STRIDES)? {
                let args: Vec<IntNode> =
                    (args.iter().map(|a| a.with_local(slot, k))).collect::<Option<_>>()?;
                let guard = match &guard {
                    Some(c) => Some(c.with_local(slot, k)?),
                    None => None,
                };
                out.push(stride_of(g, &args, guard.as_ref())?);
            }
        }
        (out.len() <= MAX_STRIDES).then_some(out)
    }

    /// The kernel form of a move on a frame of integers: the fastest
    /// form it has, or why it has none.
    pub(crate) fn kernel_move(
        &self,
        game: GameId,
        g: &IrGame,
        m: &IrMove,
    ) -> Result<KernelMove, Refusal> {
        let n_statics = g.n_statics;
        if let Some(alternatives) = self.expanded_result(&m.result) {
            // Only the Loop form chooses, and checks each option's positions.
            let mut l = self.loop_move(m)?;
            let arg = |a: &IrExpr| self.int_operand(a).map_err(Some);
            l.results = (self.choices_or_why(game, g, &alternatives, arg))
                .map_err(Refusal::ChoiceNotIntegerCode)?;
            return Ok(KernelMove::Loop(l));
        }
        let run = self
            .same_game_args(game, n_statics, &m.result)
            .and_then(|args| match &m.bindings[..] {
                [] => self.single_move(g, m, args).map(KernelMove::Single),
                _ => self.run_move(g, m, args),
            });
        if let Some(k) = run.or_else(|| self.sum_run_move(game, g, m)) {
            return Ok(k);
        }
        let mut parts = Vec::new();
        if self
            .sum_parts(game, n_statics, &m.result, &mut parts)
            .is_none()
        {
            return Err(result_refusal(&m.result));
        }
        let mut l = self.loop_move(m)?;
        // One binding only: a deeper binding's bounds from `where` could
        // skip options whose guard the general path evaluates (and fails)
        // where an outer bound is undecided.
        if l.bindings.len() == 1 {
            l.bounds = self.loop_guard(
                &l.bounds.slots,
                m.guard.as_ref(),
                &self.implied_by_where(g, m, &parts),
            );
        }
        l.results = vec![self.loop_result(&parts)?];
        Ok(KernelMove::Loop(l))
    }

    /// The one result of a Loop form whose result is the sum of `parts`
    /// written out, each argument integer code.
    fn loop_result(&self, parts: &[&[IrExpr]]) -> Result<LoopResult, Refusal> {
        let parts = (parts.iter())
            .map(|args| {
                (args.iter().enumerate())
                    .map(|(i, a)| {
                        (self.int_operand(a)).map_err(|why| Refusal::ArgumentNotIntegerCode(i, why))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MoveResult {
            conds: Vec::new(),
            body_where: None,
            from_body: false,
            parts,
        })
    }

    /// A take-and-break run (`SumRunMove`), if the move has that form.
    fn sum_run_move(&self, game: GameId, g: &IrGame, m: &IrMove) -> Option<KernelMove> {
        let (slot, start, end, inclusive) = only_range(m)?;
        let mut parts = Vec::new();
        self.sum_parts(game, g.n_statics, &m.result, &mut parts)?;
        if parts.len() < 2 {
            return None;
        }
        let implied = self.implied_by_where(g, m, &parts);
        let guard = self.loop_guard(&[slot], m.guard.as_ref(), &implied);
        if !guard.is_whole() {
            return None;
        }
        let parts = parts
            .iter()
            .map(|args| {
                args.iter()
                    .map(|a| self.affine_operand(a, slot))
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.into_iter().unzip())
            })
            .collect::<Option<Vec<_>>>()?;
        Some(KernelMove::SumRun(SumRunMove {
            lo: self.operand(start)?,
            hi: self.operand(end)?,
            inclusive,
            guard,
            parts,
        }))
    }

    /// The general kernel move (`LoopMove`), if its bindings and guard are
    /// integer code (else why not); its results are for the caller to add.
    fn loop_move(&self, m: &IrMove) -> Result<LoopMove, Refusal> {
        let mut bindings = Vec::new();
        let mut over_argument = None;
        for b in &m.bindings {
            let IrPattern::Slot { slot, name } = &b.pattern else {
                return Err(Refusal::BindingPattern);
            };
            if *slot as usize >= KERNEL_FRAME {
                return Err(Refusal::FrameFull(name.clone()));
            }
            let computed = || Refusal::SourceComputed(name.clone());
            let source = match &b.iterable.kind {
                IrKind::Range {
                    start,
                    end,
                    inclusive,
                } => {
                    let bounds = |e| self.int_operand(e);
                    let why = |why| Refusal::BoundsNotIntegerCode(name.clone(), why);
                    let (lo, hi) = (bounds(start).map_err(why)?, bounds(end).map_err(why)?);
                    LoopSource::Range {
                        lo,
                        hi,
                        inclusive: *inclusive,
                    }
                }
                IrKind::Local(_) => {
                    // Named only if nothing else refuses: a kernel over
                    // lists and sets may read it.
                    over_argument.get_or_insert_with(|| name.clone());
                    continue;
                }
                _ => LoopSource::Values(const_items(&b.iterable).ok_or_else(computed)?),
            };
            bindings.push((*slot, source));
        }
        let guard = match &m.guard {
            Some(e) => Some(bool_code(
                &self.bool_tree(e).map_err(Refusal::GuardNotIntegerCode)?,
            )),
            None => None,
        };
        if let Some(name) = over_argument {
            return Err(Refusal::SourceArgument(name));
        }
        let slots: Vec<Slot> = bindings.iter().map(|(s, _)| *s).collect();
        Ok(LoopMove {
            bounds: self.loop_guard(&slots, m.guard.as_ref(), &Implied::default()),
            bindings,
            guard,
            results: Vec::new(),
        })
    }

    /// The parts of a result that is a sum of positions of `game` itself
    /// (the zero game has none), as their argument lists.
    pub(crate) fn sum_parts<'e>(
        &self,
        game: GameId,
        n_statics: usize,
        e: &'e IrExpr,
        out: &mut Vec<&'e [IrExpr]>,
    ) -> Option<()> {
        match &e.kind {
            IrKind::Const(Value::Int(0)) => Some(()),
            IrKind::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
                ..
            } => {
                self.sum_parts(game, n_statics, lhs, out)?;
                self.sum_parts(game, n_statics, rhs, out)
            }
            _ => {
                out.push(self.same_game_args(game, n_statics, e)?);
                Some(())
            }
        }
    }

    /// The single move of a move without bindings whose result is one
    /// position of the game itself, with arguments `ir_args`.
    fn single_move(&self, g: &IrGame, m: &IrMove, ir_args: &[IrExpr]) -> Option<SingleMove> {
        let n_statics = g.n_statics;
        let args: Vec<_> = ir_args
            .iter()
            .map(|a| self.operand(a))
            .collect::<Option<_>>()?;
        let guard = m
            .guard
            .as_ref()
            .map(|e| self.bool_tree(e))
            .transpose()
            .ok()?;
        // Each conjunct with the parameters it reads, bit `i` for parameter `i`.
        let reads = |c: &BoolNode| {
            (0..args.len().min(64))
                .filter(|&i| c.reads((n_statics + i) as Slot))
                .fold(0, |mask, i| mask | 1 << i)
        };
        Some(SingleMove {
            guard: (guard.iter().flat_map(|e| e.conjuncts()))
                .map(|c| (reads(c), bool_code(c)))
                .collect(),
            orders: (guard.iter().flat_map(|e| e.conjuncts()))
                .map(order_of)
                .collect(),
            shifts: ir_args.iter().map(local_plus_constant).collect(),
            varies: (0..args.len())
                .find(|&j| !own(&args, n_statics, j))
                .and_then(|i| varies_only(&args, n_statics, i)),
            translated: translated_along(n_statics, m, ir_args),
            args,
        })
    }

    /// The run move of a move with one binding over a range, its guard
    /// (if any) wholly loop bounds, whose result is one position of the
    /// game itself.
    fn run_move(&self, g: &IrGame, m: &IrMove, args: &[IrExpr]) -> Option<KernelMove> {
        let n_statics = g.n_statics;
        let (slot, start, end, inclusive) = only_range(m)?;
        let implied = self.implied_by_where(g, m, &[args]);
        let guard = self.loop_guard(&[slot], m.guard.as_ref(), &implied);
        if !guard.is_whole() {
            return None;
        }
        let (mut bases, mut coefs, mut per_option) = (Vec::new(), Vec::new(), Vec::new());
        // What the range, the guard and the affine arguments read.
        let reads_of = |e: &IrExpr| match self.int_tree(e) {
            Ok(t) => slots_read(slot, |s| t.reads(s)),
            Err(_) => u64::MAX,
        };
        let mut reads = reads_of(start) | reads_of(end);
        if let Some(g) = &m.guard {
            reads |= match self.bool_tree(g) {
                Ok(t) => slots_read(slot, |s| t.reads(s)),
                Err(_) => u64::MAX,
            };
        }
        let mut bends = Some(Vec::new());
        let mut quadratic = Some(Vec::new());
        for (i, a) in args.iter().enumerate() {
            match self.affine_operand(a, slot) {
                Some((base, coef)) => {
                    reads |= reads_of(a);
                    bases.push(base);
                    coefs.push(coef);
                }
                // Computed for every option, on a frame that holds
                // the binding too.
                None if (slot as usize) < KERNEL_FRAME => {
                    let a = self.int_tree(a).ok()?;
                    per_option.push((i, batch_code(&a, slot)?));
                    bends = bends.and_then(|mut v: Vec<Bend>| {
                        v.push(bend_of(&a, slot)?);
                        Some(v)
                    });
                    quadratic = quadratic.and_then(|mut v: Vec<Quadratic>| {
                        v.push(quadratic_of(&a, slot)?);
                        Some(v)
                    });
                    bases.push(Operand::Const(0));
                    coefs.push(0);
                }
                None => return None,
            }
        }
        let moving: Vec<usize> = (0..coefs.len()).filter(|&j| coefs[j] != 0).collect();
        Some(KernelMove::Run(RunMove {
            lo: self.operand(start)?,
            hi: self.operand(end)?,
            inclusive,
            guard,
            varies: match moving[..] {
                [i] if per_option.is_empty() => varies_only(&bases, n_statics, i),
                _ => None,
            },
            translated: translated_along(n_statics, m, args),
            guard_in_where: Facts::guard_within_where(self, g, m, args),
            reads,
            bases,
            coefs,
            bends: bends.filter(|_| !per_option.is_empty()),
            quadratic: quadratic.filter(|_| !per_option.is_empty()),
            per_option,
        }))
    }

    /// `e` as `base + coef * k`, the base as an operand (a local or a
    /// constant as written kept apart).
    pub(crate) fn affine_operand<L: Locals + ?Sized>(
        &self,
        e: &IrExpr,
        k: Slot,
    ) -> Option<(Operand<L>, i64)> {
        if !mentions(e, k) {
            return Some((self.operand(e)?, 0));
        }
        affine_operand(&self.int_tree(e).ok()?, k)
    }

    /// The arguments of `result` if it is a position of `game` itself with
    /// the same static arguments (so of the same instance).
    pub(crate) fn same_game_args<'e>(
        &self,
        game: GameId,
        n_statics: usize,
        result: &'e IrExpr,
    ) -> Option<&'e [IrExpr]> {
        let IrKind::Position {
            game: target,
            statics,
            args,
        } = &result.kind
        else {
            return None;
        };
        // The game's own static arguments: its first locals, or, compiled
        // for one instance, that instance's arguments as constants.
        let own = |(i, s): (usize, &IrExpr)| match (&s.kind, self.own_statics) {
            (IrKind::Local(l), None) => *l as usize == i,
            (IrKind::Const(v), Some(own)) => own.get(i) == Some(v),
            _ => false,
        };
        let n_own = self.own_statics.map_or(n_statics, <[_]>::len);
        let same = *target == game
            && !self.aliases.contains(target)
            && statics.len() == n_own
            && statics.iter().enumerate().all(own);
        same.then_some(&args[..])
    }
}
