//! Bindings and guards as loop bounds, the one analysis every kernel plan
//! reads. A move's guard is a chain of conjuncts, evaluated in order for
//! every setting of the bindings. Its leading conjuncts of two kinds leave
//! the loop over options:
//!
//! - a *check*, which mentions no binding past some one: decided once per
//!   value of that binding (before any loop, if it mentions none), and a
//!   false check empties the loops inside;
//! - a *cut*, a comparison (`<`, `<=`, `>`, `>=`) of two polynomials of
//!   degree at most 2 in one binding (`k * k <= n`, `a < n - a`,
//!   `2 * k <= m`), the other names outer: where it is monotone over the
//!   binding's range, it holds on a prefix or a suffix of the range, which
//!   a bisection with the conjunct's own code finds; the range shrinks to
//!   it.
//!
//! The conjuncts are taken in their order, each acting on a binding no
//! outer than the one before: the general path evaluates a conjunct only
//! where those before it hold, and so does this. The first conjunct of
//! neither kind (or out of that order) ends them; it and those after it
//! are the guard left per option (`LoopGuard::rest`). After a guard that
//! is wholly checks and cuts, the result's `where` put in for its
//! arguments (`n - k * k >= 0` for `S(n - k * k)` under `where n >= 0`)
//! gives more: an option that is no position is then never made.
//!
//! Exactness: a cut is used only where every subexpression mentioning
//! its binding is monotone over the range (checked at run time from its
//! values at the range's first three points) and evaluates at both ends:
//! each then stays between its values at the ends, so no option the cut
//! removes would have overflowed where the general path evaluates it.
//! Anything else (`Narrowed::Unknown`) leaves the range as it was.

use super::compiler::Compiler;
use super::frame::KERNEL_FRAME;
use super::int_code::{map_locals, mentions, BoolCode, IntCode};
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::{BinaryOp, UnaryOp};

/// The leading conjuncts of a move's guard as bounds on its bindings'
/// loops (on a kernel's frame of integers).
#[derive(Default)]
pub(crate) struct LoopGuard {
    /// The bindings' slots, in order.
    pub slots: Vec<Slot>,
    /// Per binding, in order: the steps applied to its range once its
    /// bounds are known, as the guard orders them: cuts of it, and checks
    /// of the names bound before it (the first binding's: checks of the
    /// position alone).
    /// With each step, whether it comes from the result's `where`: where
    /// it cannot be decided, the search checks those options itself.
    pub levels: Vec<Vec<(Step, bool)>>,
    /// The conjuncts left, evaluated per option (`None`: none).
    pub rest: Option<IrExpr>,
    /// How many conjuncts became checks and cuts, and how many of the
    /// result's `where` became either (for `--explain`).
    pub hoisted: usize,
    pub cuts: usize,
    pub from_where: usize,
}

pub(crate) enum Step {
    /// A conjunct that does not mention the binding it is applied to.
    Check(BoolCode<[i64]>),
    Cut(Cut),
}

/// A comparison monotone in `slot` where the checks of `nodes` pass.
pub(crate) struct Cut {
    slot: Slot,
    cond: BoolCode<[i64]>,
    /// The comparison's sides.
    sides: [IntCode<[i64]>; 2],
    /// Every other subexpression mentioning `slot` but `slot` itself.
    nodes: Vec<IntCode<[i64]>>,
    /// Some subexpression is of degree 2 in `slot` (an affine one is
    /// monotone everywhere: no check needed).
    quadratic: bool,
}

/// What the steps of one level leave of a binding's range.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Narrowed {
    /// The options are those of this range of the binding (of item
    /// indices, for a set of values).
    Range(i64, i64),
    /// A step could not be decided here: the range as it was, the guard
    /// evaluated per option.
    Unknown,
}

impl LoopGuard {
    /// Whether the guard is wholly checks and cuts.
    pub(crate) fn is_whole(&self) -> bool {
        self.rest.is_none()
    }

    /// The part of loop level `level`'s range (`a..b`, or the indices of
    /// its set's `values`) that the steps leave when `bounded` (the levels
    /// above were narrowed too), and whether they decided it; the whole
    /// range otherwise, the guard then evaluated per option. Bounds on a
    /// set's item indices hold for ascending items only.
    pub(crate) fn level_range(
        &self,
        bounded: bool,
        level: usize,
        frame: &mut [i64],
        range: (i64, i64),
        values: Option<&[i64]>,
    ) -> (i64, i64, bool) {
        let usable = bounded && values.is_none_or(|v| v.is_sorted_by(|x, y| x < y));
        match usable.then(|| self.narrow(level, frame, range, values)) {
            Some(Narrowed::Range(x, y)) => (x, y, true),
            _ => (range.0, range.1, false),
        }
    }

    /// Applies level `level`'s steps to the range `a..b` of the binding
    /// in `slot` (its values `values[i]` for `i` in `a..b` when it runs
    /// over a constant set; the integers `a..b` otherwise). `frame`
    /// holds the outer names; the binding's slot is overwritten.
    pub(crate) fn narrow(
        &self,
        level: usize,
        frame: &mut [i64],
        range: (i64, i64),
        values: Option<&[i64]>,
    ) -> Narrowed {
        self.narrow_steps(level, frame, range, values, true)
    }

    /// `narrow` by the guard's own steps, those from the result's `where`
    /// left out: for a caller that checks every option's position itself
    /// (the loopy graph, whose box or numbering does).
    pub(crate) fn narrow_by_guard(
        &self,
        level: usize,
        frame: &mut [i64],
        range: (i64, i64),
        values: Option<&[i64]>,
    ) -> Narrowed {
        self.narrow_steps(level, frame, range, values, false)
    }

    fn narrow_steps(
        &self,
        level: usize,
        frame: &mut [i64],
        (a, b): (i64, i64),
        values: Option<&[i64]>,
        with_where: bool,
    ) -> Narrowed {
        let (mut a, mut b) = (a, b);
        let steps = self.levels.get(level).into_iter().flatten();
        for (step, from_where) in steps.filter(|(_, w)| with_where || !*w) {
            if a >= b {
                break;
            }
            let narrowed = match step {
                Step::Check(c) => c(frame).map(|holds| if holds { (a, b) } else { (a, a) }),
                Step::Cut(cut) => cut.apply(frame, (a, b), values),
            };
            match narrowed {
                Some((x, y)) => (a, b) = (x, y),
                None if *from_where => break,
                None => return Narrowed::Unknown,
            }
        }
        Narrowed::Range(a, b.max(a))
    }
}

impl Cut {
    /// The part of `a..b` where the comparison holds, if it is monotone
    /// there (`values`: as for `LoopGuard::narrow`).
    fn apply(
        &self,
        frame: &mut [i64],
        (a, b): (i64, i64),
        values: Option<&[i64]>,
    ) -> Option<(i64, i64)> {
        let slot = self.slot as usize;
        let value = |i: i64| -> Option<i64> {
            match values {
                Some(v) => v.get(usize::try_from(i).ok()?).copied(),
                None => Some(i),
            }
        };
        let (first, last) = (value(a)?, value(b - 1)?);
        // The subexpressions over the integers first..=last (for a set,
        // a superset of its items): monotone, and evaluated at both ends.
        if self.quadratic && last - first >= 2 {
            for code in self.nodes.iter().chain(&self.sides) {
                let mut at = |k: i64| {
                    frame[slot] = k;
                    code(frame).map(i128::from)
                };
                let (p0, p1, p2) = (at(first)?, at(first + 1)?, at(first + 2)?);
                at(last)?;
                let (step0, curve) = (p1 - p0, p2 - 2 * p1 + p0);
                let step_last = step0 + curve * i128::from(last - 1 - first);
                if step0.signum() * step_last.signum() < 0 {
                    return None;
                }
            }
            // The sides' difference too: their steps may differ in sign.
            let mut diff = |k: i64| {
                frame[slot] = k;
                Some(i128::from(self.sides[0](frame)?) - i128::from(self.sides[1](frame)?))
            };
            let (d0, d1, d2) = (diff(first)?, diff(first + 1)?, diff(first + 2)?);
            let step_last = (d1 - d0) + (d2 - 2 * d1 + d0) * i128::from(last - 1 - first);
            if (d1 - d0).signum() * step_last.signum() < 0 {
                return None;
            }
        }
        let mut holds = |i: i64| {
            frame[slot] = value(i)?;
            (self.cond)(frame)
        };
        let (at_a, at_last) = (holds(a)?, holds(b - 1)?);
        if at_a == at_last {
            return Some(if at_a { (a, b) } else { (a, a) });
        }
        // The first index in (lo, hi] where the comparison is `at_last`.
        let (mut lo, mut hi) = (a, b - 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if holds(mid)? == at_last {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(if at_a { (a, hi) } else { (hi, b) })
    }
}

/// The conjuncts of `e` (`x and y and ...`), in order.
pub(super) fn conjuncts<'e>(e: &'e IrExpr, out: &mut Vec<&'e IrExpr>) {
    match &e.kind {
        IrKind::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
            ..
        } => {
            conjuncts(lhs, out);
            conjuncts(rhs, out);
        }
        _ => out.push(e),
    }
}

/// `x and y and ...` of the conjuncts again (`None` for none).
fn conjunction(parts: &[&IrExpr]) -> Option<IrExpr> {
    let (first, rest) = parts.split_first()?;
    Some(rest.iter().fold((*first).clone(), |acc, x| IrExpr {
        span: acc.span.to(x.span),
        kind: IrKind::Binary {
            op: BinaryOp::And,
            op_span: x.span,
            lhs: Box::new(acc),
            rhs: Box::new((*x).clone()),
        },
    }))
}

/// The degree of `e` as a polynomial in the local `k` whose coefficients
/// do not mention it, if it is one of degree at most 2 built with `+`,
/// `-` and `*`; every subexpression mentioning `k` (but `k` itself) is
/// added to `nodes`.
fn degree<'e>(e: &'e IrExpr, k: Slot, nodes: &mut Vec<&'e IrExpr>) -> Option<u32> {
    if !mentions(e, k) {
        return Some(0);
    }
    let d = match &e.kind {
        IrKind::Local(s) if *s == k => return Some(1),
        IrKind::Unary(UnaryOp::Neg, x) => degree(x, k, nodes)?,
        IrKind::Binary { op, lhs, rhs, .. } => match op {
            BinaryOp::Add | BinaryOp::Sub => degree(lhs, k, nodes)?.max(degree(rhs, k, nodes)?),
            BinaryOp::Mul => degree(lhs, k, nodes)? + degree(rhs, k, nodes)?,
            _ => return None,
        },
        _ => return None,
    };
    nodes.push(e);
    (d <= 2).then_some(d)
}

impl Compiler<'_> {
    /// The guard of a move over `bindings` (their slots, in order) as
    /// loop bounds, followed, where the guard is wholly bounds, by the
    /// conjuncts `implied` by its result's `where` (`implied_by_where`):
    /// those that become bounds too drop options that are no positions
    /// before they are made; the others are left to the search.
    pub(crate) fn loop_guard(
        &self,
        bindings: &[Slot],
        guard: Option<&IrExpr>,
        implied: &[IrExpr],
    ) -> LoopGuard {
        let m = bindings.len();
        let mut out = LoopGuard {
            slots: bindings.to_vec(),
            levels: (0..m).map(|_| Vec::new()).collect(),
            ..LoopGuard::default()
        };
        let mut parts = Vec::new();
        if let Some(guard) = guard.filter(|g| !is_true(g)) {
            conjuncts(guard, &mut parts);
        }
        let explicit = parts.len();
        parts.extend(implied);
        let (mut level, mut taken) = (0, 0);
        for c in &parts {
            // The innermost binding the conjunct mentions, counted from 1
            // (0: none).
            let innermost = (1..=m)
                .rev()
                .find(|&j| mentions(c, bindings[j - 1]))
                .unwrap_or(0);
            // A cut narrows that binding's range; a check of the names
            // up to it is decided on the next binding's range.
            let cut = (innermost > level)
                .then(|| self.cut(c, bindings[innermost - 1]))
                .flatten()
                .map(|cut| (innermost - 1, Step::Cut(cut)));
            let step = cut.or_else(|| {
                (innermost < m && innermost >= level)
                    .then(|| self.bool_expr::<[i64]>(c))
                    .flatten()
                    .map(|code| (innermost, Step::Check(code)))
            });
            let Some((at, step)) = step else {
                break;
            };
            match step {
                _ if taken >= explicit => out.from_where += 1,
                Step::Check(_) => out.hoisted += 1,
                Step::Cut(_) => out.cuts += 1,
            }
            out.levels[at].push((step, taken >= explicit));
            level = at;
            taken += 1;
        }
        out.rest = conjunction(&parts[taken.min(explicit)..explicit]);
        out
    }

    /// The conjuncts of `where` of the positions of the game itself that
    /// a move's result sums (`parts`, their arguments), in the order the
    /// general path checks them, the arguments put in for the
    /// parameters; up to the first that cannot be written so.
    pub(crate) fn implied_by_where(&self, g: &IrGame, parts: &[&[IrExpr]]) -> Vec<IrExpr> {
        let mut out = Vec::new();
        let Some(w) = &g.where_clause else {
            return out;
        };
        let mut conds = Vec::new();
        conjuncts(w, &mut conds);
        let n_statics = g.n_statics as Slot;
        for args in parts {
            for c in &conds {
                let put = map_locals(c, &|s| match s.checked_sub(n_statics) {
                    Some(i) => args.get(i as usize).cloned(),
                    None => Some(IrExpr {
                        kind: IrKind::Local(s),
                        span: c.span,
                    }),
                });
                match put {
                    Some(e) => out.push(e),
                    None => return out,
                }
            }
        }
        out
    }

    /// `c` as a cut of the binding in `k`, if it is a comparison of
    /// polynomials in it.
    fn cut(&self, c: &IrExpr, k: Slot) -> Option<Cut> {
        let IrKind::Binary { op, lhs, rhs, .. } = &c.kind else {
            return None;
        };
        if !matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        ) || k as usize >= KERNEL_FRAME
        {
            return None;
        }
        let mut nodes = Vec::new();
        let quadratic = degree(lhs, k, &mut nodes)?.max(degree(rhs, k, &mut nodes)?) == 2;
        Some(Cut {
            quadratic,
            slot: k,
            cond: self.bool_expr(c)?,
            sides: [self.int_expr(lhs)?, self.int_expr(rhs)?],
            nodes: nodes
                .into_iter()
                .map(|n| self.int_expr(n))
                .collect::<Option<_>>()?,
        })
    }
}

/// Whether `e` is the constant `true` (a guard that is no guard).
pub(crate) fn is_true(e: &IrExpr) -> bool {
    matches!(e.kind, IrKind::Const(Value::Bool(true)))
}
