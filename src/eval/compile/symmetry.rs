//! Arguments a game may swap: `EmptyDivide(a, b)` has the value of
//! `EmptyDivide(b, a)` when renaming `a` and `b` in its rules gives the
//! same rules, each move renamed one of the game's moves as it is, or
//! with the two arguments of its results' positions of the game exchanged
//! too (`N3(a, b, c, p)`'s `take_a(x in 0..a) -> N3(x, b, c, p)` renamed
//! and exchanged is `take_b`), operands of `+`, `*`, `==` and `!=` in
//! either order. Then each option of the swapped position is an option
//! of the position itself or that option swapped, and its `where` holds
//! for both or neither: by induction over the options, the two have one
//! value. The search values one of the two and reads the other's value
//! from it, and a run whose options come in swapped pairs reads half of
//! them.
//!
//! Arguments a game reads only clamped (`clamped_arguments`): a position
//! past the clamp has the value of the one at it, so options are read
//! there (`Compiler::clamped_options`).

use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

use super::compiler::Compiler;
use super::guaranteed::substitute_params;
use super::int_code::{map_locals, mentions};
use super::kernel::{Bound, Kernel, KernelMove, MovePlan, RunMove};
use super::range_bounds::call;
use crate::eval::builtins::Builtin;
use crate::eval::value::Value;

/// `e` with the locals `x` and `y` swapped (a range's ends too).
fn swapped(e: &IrExpr, (x, y): (Slot, Slot)) -> Option<IrExpr> {
    if let IrKind::Range {
        start,
        end,
        inclusive,
    } = &e.kind
    {
        let kind = IrKind::Range {
            start: Box::new(swapped(start, (x, y))?),
            end: Box::new(swapped(end, (x, y))?),
            inclusive: *inclusive,
        };
        return Some(IrExpr { kind, span: e.span });
    }
    map_locals(e, &|s| {
        let kind = IrKind::Local(one_for_other(s, (x, y)));
        Some(IrExpr { kind, span: e.span })
    })
}

/// `s`, or `x` for `y` and `y` for `x`.
fn one_for_other<T: PartialEq>(s: T, (x, y): (T, T)) -> T {
    if s == x {
        y
    } else if s == y {
        x
    } else {
        s
    }
}

/// `m` with the locals `x` and `y` swapped.
fn swapped_move(m: &IrMove, pair: (Slot, Slot)) -> Option<IrMove> {
    let mut out = m.clone();
    for e in out.exprs_mut() {
        *e = swapped(e, pair)?;
    }
    Some(out)
}

/// Whether two moves are the same rule (labels and spans aside): the
/// same binding slots, a guard in both or neither, and their expressions
/// `same`, commuted operands allowed.
fn same_move(a: &IrMove, b: &IrMove) -> bool {
    let slot = |x: &IrBinding| match x.pattern {
        IrPattern::Slot { slot, .. } => Some(slot),
        IrPattern::Tuple(..) => None,
    };
    let slots = |m: &IrMove| m.bindings.iter().map(slot).collect::<Option<Vec<_>>>();
    slots(a).is_some_and(|s| Some(s) == slots(b))
        && a.guard.is_some() == b.guard.is_some()
        && a.exprs().zip(b.exprs()).all(|(x, y)| same(x, y, true))
}

impl Compiler<'_> {
    /// The first pair of arguments `(i, j)`, `i < j`, that the game may
    /// swap (see the module's comment), if there is one. Its `where` must
    /// be bounds on the frame (`where_bounds`, from `bounds_of`), which
    /// swap slot for slot.
    pub(crate) fn swappable_arguments(
        &self,
        game: GameId,
        g: &IrGame,
        where_bounds: Option<&[Bound]>,
    ) -> Option<(usize, usize)> {
        let IrGameBody::Moves(moves) = &g.body else {
            return None;
        };
        let bounds = where_bounds?;
        let key = |b: &Bound| (b.slot, b.lo, b.hi);
        let mut want: Vec<_> = bounds.iter().map(key).collect();
        want.sort_unstable();
        (0..g.n_params)
            .flat_map(|i| (i + 1..g.n_params).map(move |j| (i, j)))
            .find(|&(i, j)| {
                let (x, y) = (g.n_statics + i, g.n_statics + j);
                let swap = |b: &Bound| (one_for_other(b.slot, (x, y)), b.lo, b.hi);
                let mut got: Vec<_> = bounds.iter().map(swap).collect();
                got.sort_unstable();
                let pair = (x as Slot, y as Slot);
                got == want
                    && moves.iter().all(|m| {
                        let Some(s) = swapped_move(m, pair) else {
                            return false;
                        };
                        if moves.iter().any(|n| same_move(&s, n)) {
                            return true;
                        }
                        let mut e = s;
                        self.exchange(game, g.n_statics, &mut e.result, (i, j));
                        moves.iter().any(|n| same_move(&e, n))
                    })
            })
    }

    /// Exchanges arguments `i` and `j` of the positions of `game` in `e`
    /// (as results: alone, in sums and in choices).
    fn exchange(&self, game: GameId, n_statics: usize, e: &mut IrExpr, (i, j): (usize, usize)) {
        let own = self.same_game_args(game, n_statics, e).is_some();
        match &mut e.kind {
            IrKind::Position { args, .. } if own => args.swap(i, j),
            IrKind::Binary {
                op: BinaryOp::Add,
                lhs: a,
                rhs: b,
                ..
            }
            | IrKind::If {
                then: a,
                otherwise: b,
                ..
            } => {
                self.exchange(game, n_statics, a, (i, j));
                self.exchange(game, n_statics, b, (i, j));
            }
            _ => {}
        }
    }
}

/// The arguments the kernel's game swaps (`Kernel::swappable`) when one
/// of its runs trades them, `k` from one for `k` to the other
/// (`G(k, b - k)`): a position's options then lie along anti-diagonals,
/// in rows past its own.
pub(crate) fn traded_pair(kernel: &Kernel) -> Option<(usize, usize)> {
    let (i, j) = kernel.swappable?;
    let trades = |r: &RunMove| match (r.coefs.get(i), r.coefs.get(j)) {
        (Some(&x), Some(&y)) => x != 0 && x.checked_neg() == Some(y),
        _ => false,
    };
    (kernel.moves.iter())
        .any(|m| matches!(m, MovePlan::Kernel(KernelMove::Run(r)) if trades(r)))
        .then_some((i, j))
}

/// Whether every local `e` reads is below `width` (none is a binding).
fn reads_below(e: &IrExpr, width: Slot) -> bool {
    match &e.kind {
        IrKind::Local(s) => *s < width,
        _ => e
            .kind
            .children()
            .is_some_and(|cs| cs.into_iter().all(|c| reads_below(c, width))),
    }
}

/// Walks `e` for the local `x`: every read of it must be one side of a
/// `min(x, bound)` whose other side is the same `bound` everywhere. False
/// if some read is not.
fn only_clamped<'e>(e: &'e IrExpr, x: Slot, bound: &mut Option<&'e IrExpr>) -> bool {
    if let IrKind::CallBuiltin {
        builtin: Builtin::Min,
        args,
    } = &e.kind
    {
        if let [l, r] = &args[..] {
            let is_x = |a: &IrExpr| matches!(a.kind, IrKind::Local(s) if s == x);
            let other = match (is_x(l), is_x(r)) {
                (true, false) => Some(r),
                (false, true) => Some(l),
                _ => None,
            };
            if let Some(other) = other.filter(|o| !mentions(o, x)) {
                return match bound {
                    Some(b) => same(b, other, false),
                    None => {
                        *bound = Some(other);
                        true
                    }
                };
            }
        }
    }
    match &e.kind {
        IrKind::Local(s) => *s != x,
        _ => e
            .kind
            .children()
            .is_some_and(|cs| cs.into_iter().all(|c| only_clamped(c, x, bound))),
    }
}

/// The arguments that the moves read only as `min(x, bound)`, `bound`
/// the same code of the position's arguments everywhere (Fibonacci Nim's
/// `k in 1..=min(m, n)`, or `k in 1..=m if k <= n` as the kernels read
/// it, `range_bounds.rs`): a position with `x` above `bound` has the
/// options of the one with `x = bound`, so the two have one value once
/// both are positions. Each as its index and its bound.
pub(crate) fn clamped_arguments(g: &IrGame) -> Vec<(usize, IrExpr)> {
    let IrGameBody::Moves(moves) = &g.body else {
        return Vec::new();
    };
    let width = (g.n_statics + g.n_params) as Slot;
    (0..g.n_params)
        .filter_map(|i| {
            let x = (g.n_statics + i) as Slot;
            let mut bound = None;
            let all = moves
                .iter()
                .flat_map(|m| m.exprs())
                .all(|e| only_clamped(e, x, &mut bound));
            let bound = bound.filter(|b| all && reads_below(b, width))?;
            Some((i, bound.clone()))
        })
        .collect()
}

impl Compiler<'_> {
    /// The game with each option that is one position of the game itself
    /// read at its clamped position: argument `x` clamped by `bound`
    /// becomes `min(x, max(bound, lo))`, `bound` read at the option and
    /// `lo` the least `x` the `where` allows. The two positions have one
    /// value: past `bound`, moves read `x` only as `bound`; and the
    /// clamped `x` lies between `lo` and `x`, so a `where` of bounds on
    /// the frame with none above `x` holds for both or neither. None
    /// when the `where` is not of that form (`where_bounds`, from
    /// `bounds_of`), or a bound reads a clamped
    /// argument (clamping one would move the other's bound).
    pub(crate) fn clamped_options(
        &self,
        game: GameId,
        g: &IrGame,
        clamps: &[(usize, IrExpr)],
        where_bounds: Option<&[Bound]>,
    ) -> Option<IrGame> {
        let slot = |i: usize| g.n_statics + i;
        let bounds = where_bounds?;
        let reads_clamped = |b: &IrExpr| clamps.iter().any(|(j, _)| mentions(b, slot(*j) as Slot));
        if clamps.is_empty() || clamps.iter().any(|(_, b)| reads_clamped(b)) {
            return None;
        }
        // Per clamp, the least `x` the `where` allows; none if it has a top.
        let floors = (clamps.iter())
            .map(|(i, _)| {
                let mut on_x = bounds.iter().filter(|b| b.slot == slot(*i));
                on_x.try_fold(i64::MIN, |lo, b| (b.hi == i64::MAX).then_some(lo.max(b.lo)))
            })
            .collect::<Option<Vec<i64>>>()?;
        let clamped = |args: &[IrExpr]| -> Option<Vec<IrExpr>> {
            let mut out = args.to_vec();
            for ((i, bound), &lo) in clamps.iter().zip(&floors) {
                let (kind, span) = (IrKind::Const(Value::Int(lo)), bound.span);
                let at = substitute_params(bound, g.n_statics, args)?;
                let at = call(Builtin::Max, at, IrExpr { kind, span });
                out[*i] = call(Builtin::Min, args[*i].clone(), at);
            }
            Some(out)
        };
        let mut out = g.clone();
        let IrGameBody::Moves(moves) = &mut out.body else {
            return None;
        };
        for m in moves {
            if let Some(args) = self.same_game_args(game, g.n_statics, &m.result) {
                let args = clamped(args)?;
                if let IrKind::Position { args: to, .. } = &mut m.result.kind {
                    *to = args;
                }
            }
        }
        Some(out)
    }
}

/// Whether two expressions are the same code (spans aside); forms
/// `same_node` does not compare count as different. Where `commute`,
/// the operands of `+`, `*`, `==` and `!=` may come in either order
/// along the operators from the top (both orders evaluate the same
/// operands, so where one has a value the other has the same); below
/// any other node, in the same order.
fn same(a: &IrExpr, b: &IrExpr, commute: bool) -> bool {
    let commute = commute && matches!(a.kind, IrKind::Binary { .. });
    let (Some(xs), Some(ys)) = (a.kind.children(), b.kind.children()) else {
        return false;
    };
    let in_order = || xs.iter().zip(&ys).all(|(x, y)| same(x, y, true));
    let commutes = matches!(
        a.kind,
        IrKind::Binary {
            op: BinaryOp::Add | BinaryOp::Mul | BinaryOp::Eq | BinaryOp::Ne,
            ..
        }
    );
    same_node(&a.kind, &b.kind)
        && xs.len() == ys.len()
        && (in_order()
            || (commute && commutes && same(xs[0], ys[1], true) && same(xs[1], ys[0], true)))
}

/// Whether two nodes are the same apart from their children.
fn same_node(a: &IrKind, b: &IrKind) -> bool {
    use IrKind::*;
    match (a, b) {
        (Const(x), Const(y)) => x == y,
        (Local(x), Local(y)) | (Global(x), Global(y)) => x == y,
        (List(_), List(_)) | (Set(_), Set(_)) | (Tuple(_), Tuple(_)) | (If { .. }, If { .. }) => {
            true
        }
        (Unary(o, _), Unary(p, _)) => o == p,
        (Binary { op: o, .. }, Binary { op: p, .. }) => o == p,
        (Range { inclusive: i, .. }, Range { inclusive: j, .. }) => i == j,
        (CallFn { func: f, .. }, CallFn { func: g, .. }) => f == g,
        (CallBuiltin { builtin: f, .. }, CallBuiltin { builtin: g, .. }) => f == g,
        (
            Position {
                game: g1,
                statics: s1,
                ..
            },
            Position {
                game: g2,
                statics: s2,
                ..
            },
        ) => g1 == g2 && s1.len() == s2.len(),
        _ => false,
    }
}
