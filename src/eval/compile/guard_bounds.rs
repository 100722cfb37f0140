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
//!   binding's range, it holds on a prefix or a suffix of the range; the
//!   range shrinks to it. Its sides are polynomials whose coefficients
//!   are read once per range (constants, and the value at `k = 0`, or
//!   values at three points), so the end of that prefix is found by
//!   integer arithmetic next to the real root, with no code run per
//!   option or per step of a bisection. A cut remembers where its
//!   comparison last changed truth: positions asked a step apart (a
//!   sweep's line) move it little, so it is checked there first, and the
//!   root is solved only when it moved.
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
//! polynomial) and is within `i64` at both ends:
//! each then stays between its values at the ends, so no option the cut
//! removes would have overflowed where the general path evaluates it.
//! Anything else (`Narrowed::Unknown`) leaves the range as it was.

use super::compiler::Compiler;
use super::frame::KERNEL_FRAME;
use super::guaranteed::{substitute_params, Facts};
use super::int_code::{bool_code, int_code, BoolCode, IntCode};
use super::int_tree::{BoolNode, IntNode};
use super::linear::{conjuncts, degree, flipped, quadratic_coefs};
use super::range_bounds::conjunction;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use smallvec::SmallVec;
use std::cell::Cell;

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
    /// How many conjuncts of the result's `where` the move guarantees,
    /// dropped before these (`guaranteed.rs`).
    pub guaranteed: usize,
}

/// The conjuncts of a result's `where` that a move's options are asked,
/// and how many more the move guarantees.
#[derive(Default)]
pub(crate) struct Implied {
    pub conds: Vec<IrExpr>,
    pub guaranteed: usize,
}

pub(crate) enum Step {
    /// A conjunct that does not mention the binding it is applied to.
    Check(BoolCode<[i64]>),
    Cut(Cut),
}

/// A comparison of two polynomials of degree at most 2 in the binding in
/// `slot`, the other names outer: over one range of the binding, a
/// polynomial whose coefficients its values at three points give.
pub(crate) struct Cut {
    slot: Slot,
    op: BinaryOp,
    /// Every subexpression mentioning `slot` but `slot` itself.
    nodes: Vec<Node>,
    sides: [Side; 2],
    /// Where the comparison last changed truth (`apply`'s split index):
    /// the first guess for the next range. A sweep asks positions a step
    /// apart, whose split moves little (`k * k <= n` by at most one as `n`
    /// grows by one), so the guess is checked and no root is solved.
    last: Cell<i64>,
}

/// A subexpression of a cut as a polynomial in its binding `k`.
enum Node {
    /// `base + c1 * k + c2 * k * k` with constant `c1`, `c2`: only the
    /// base (the subexpression at `k = 0`) evaluated per range.
    Constant {
        base: IntCode<[i64]>,
        c1: i64,
        c2: i64,
    },
    /// Coefficients that depend on other names (`a * k`): evaluated at
    /// three points.
    Sampled(IntCode<[i64]>),
}

/// One side of a cut's comparison.
enum Side {
    /// The binding itself.
    Binding,
    /// An integer constant.
    Const(i64),
    /// Code that does not mention the binding.
    Free(IntCode<[i64]>),
    /// One of the cut's `nodes`.
    Node(usize),
}

/// A polynomial of degree at most 2 in `t = k - first`:
/// `p0 + step * t + curve * t * (t - 1) / 2`. Its arithmetic is checked:
/// a term past `i64` (a side near 2^63) leaves the range undecided.
#[derive(Clone, Copy)]
struct Points {
    p0: i64,
    step: i64,
    curve: i64,
}

impl Points {
    /// From its values at `t = 0, 1, 2`.
    fn from([p0, p1, p2]: [i64; 3]) -> Option<Self> {
        let step = p1.checked_sub(p0)?;
        Some(Points {
            p0,
            step,
            curve: p2.checked_sub(p1)?.checked_sub(step)?,
        })
    }

    /// `base + c1 * k + c2 * k * k` from `k = first` on.
    fn of_coefs(base: i64, (c1, c2): (i64, i64), first: i64) -> Option<Self> {
        if c2 == 0 {
            return Some(Points {
                p0: base.checked_add(c1.checked_mul(first)?)?,
                step: c1,
                curve: 0,
            });
        }
        let square = c2.checked_mul(first)?.checked_mul(first)?;
        let p0 = base
            .checked_add(c1.checked_mul(first)?)?
            .checked_add(square)?;
        // From `k` to `k + 1`: `c1 + c2 * (2k + 1)`.
        let twice = first.checked_mul(2)?.checked_add(1)?;
        Some(Points {
            p0,
            step: c1.checked_add(c2.checked_mul(twice)?)?,
            curve: c2.checked_mul(2)?,
        })
    }

    fn constant(c: i64) -> Self {
        Points {
            p0: c,
            step: 0,
            curve: 0,
        }
    }

    /// The value at offset `t >= 0`.
    #[inline]
    fn at(self, t: i64) -> Option<i64> {
        let linear = self.p0.checked_add(self.step.checked_mul(t)?)?;
        if self.curve == 0 {
            return Some(linear);
        }
        let half_square = if t & 1 == 0 {
            (t / 2).checked_mul(t - 1)?
        } else {
            t.checked_mul((t - 1) / 2)?
        };
        linear.checked_add(self.curve.checked_mul(half_square)?)
    }

    /// Whether it is monotone over `0..=t` (its steps keep one sign).
    fn monotone_to(self, t: i64) -> bool {
        if self.curve == 0 {
            return true;
        }
        let last_step =
            (self.curve.checked_mul(t.max(1) - 1)).and_then(|c| c.checked_add(self.step));
        last_step.is_some_and(|s| self.step.signum() * s.signum() >= 0)
    }

    /// Where it is 0, as a real number, near `0..=span` (a guess for
    /// the search; `None`: no guess).
    fn root(self, span: i64) -> Option<f64> {
        let (a, b, c) = (
            self.curve as f64 / 2.0,
            self.step as f64 - self.curve as f64 / 2.0,
            self.p0 as f64,
        );
        if a == 0.0 {
            return (b != 0.0).then(|| -c / b);
        }
        let d = (b * b - 4.0 * a * c).max(0.0).sqrt();
        let (r0, r1) = ((-b - d) / (2.0 * a), (-b + d) / (2.0 * a));
        let inside = |r: f64| (-1.0..=span as f64 + 1.0).contains(&r);
        Some(if inside(r0) { r0 } else { r1 })
    }

    fn minus(self, o: Points) -> Option<Points> {
        Some(Points {
            p0: self.p0.checked_sub(o.p0)?,
            step: self.step.checked_sub(o.step)?,
            curve: self.curve.checked_sub(o.curve)?,
        })
    }
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
        match usable.then(|| self.narrow(level, frame, range, values, true)) {
            Some(Narrowed::Range(x, y)) => (x, y, true),
            _ => (range.0, range.1, false),
        }
    }

    /// The range `a..b` of a run's binding (level 0) at the position
    /// `ints` narrowed by its steps (`with_where`: those from the result's
    /// `where` too; callers of `narrow` without them check it themselves).
    /// `None`: a bound cannot be decided here, the general path decides.
    #[inline]
    pub(crate) fn narrowed_run(
        &self,
        ints: &[i64],
        (a, b): (i64, i64),
        with_where: bool,
    ) -> Option<(i64, i64)> {
        if self.levels.first().is_none_or(|steps| steps.is_empty()) || a >= b {
            return Some((a, b));
        }
        let mut frame = [0i64; KERNEL_FRAME];
        frame[..ints.len()].copy_from_slice(ints);
        match self.narrow(0, &mut frame, (a, b), None, with_where) {
            Narrowed::Range(a, b) => Some((a, b)),
            Narrowed::Unknown => None,
        }
    }

    /// Applies level `level`'s steps to the range `a..b` of the binding
    /// in `slot` (its values `values[i]` for `i` in `a..b` when it runs
    /// over a constant set; the integers `a..b` otherwise). `frame`
    /// holds the outer names; the binding's slot is overwritten. Without
    /// `with_where`, the steps from the result's `where` are left out: for
    /// a caller that checks every option's position itself (the loopy
    /// graph, whose box or numbering does).
    pub(crate) fn narrow(
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
    /// The integers `lo..hi` where the binding compared with code that
    /// does not read it holds (`k <= y`, `n > k`), read off directly; the
    /// outer `None` for any other cut, the inner one when that code does
    /// not evaluate. A loopy box cuts a run this way at every cell.
    fn bound(&self, frame: &mut [i64]) -> Option<Option<(i128, i128)>> {
        let (op, other) = match &self.sides {
            [Side::Binding, other] => (self.op, other),
            [other, Side::Binding] => (flipped(self.op), other),
            _ => return None,
        };
        let f = match other {
            Side::Const(c) => *c,
            Side::Free(code) => match code(frame) {
                Some(v) => v,
                None => return Some(None),
            },
            _ => return None,
        } as i128;
        Some(Some(match op {
            BinaryOp::Lt => (i128::MIN, f),
            BinaryOp::Le => (i128::MIN, f + 1),
            BinaryOp::Gt => (f + 1, i128::MAX),
            _ => (f, i128::MAX),
        }))
    }

    /// The part of `a..b` where the comparison holds, if it is monotone
    /// there (`values`: as for `LoopGuard::narrow`). Each node's
    /// polynomial is read once (from its base, or its values at the
    /// range's first three integers); it gives the node at the range's
    /// last integer (within `i64` there and monotone between, each node
    /// evaluates everywhere between, as the general path evaluates it)
    /// and the comparison at any point.
    fn apply(
        &self,
        frame: &mut [i64],
        (a, b): (i64, i64),
        values: Option<&[i64]>,
    ) -> Option<(i64, i64)> {
        if values.is_none() && self.nodes.is_empty() {
            if let Some(bound) = self.bound(frame) {
                return bound.map(|(lo, hi)| {
                    let x = lo.clamp(a as i128, b as i128);
                    (x as i64, hi.clamp(x, b as i128) as i64)
                });
            }
        }
        let slot = self.slot as usize;
        let value = |i: i64| -> Option<i64> {
            match values {
                Some(v) => v.get(usize::try_from(i).ok()?).copied(),
                None => Some(i),
            }
        };
        let (first, last) = (value(a)?, value(b - 1)?);
        let span = last.checked_sub(first)?;
        // Fewer than three integers: the points past `last` repeat it,
        // and only offsets 0 and `span` are read.
        let points = |node: &Node, frame: &mut [i64]| -> Option<Points> {
            match node {
                Node::Constant { base, c1, c2 } => {
                    Points::of_coefs(base(frame)?, (*c1, *c2), first)
                }
                Node::Sampled(code) => {
                    let mut p = [0i64; 3];
                    for (t, v) in p.iter_mut().enumerate() {
                        frame[slot] = first + (t as i64).min(span);
                        *v = code(frame)?;
                    }
                    Points::from(p)
                }
            }
        };
        let mut nodes: SmallVec<[Points; 4]> = SmallVec::new();
        for node in &self.nodes {
            let p = points(node, frame)?;
            if p.at(span).is_none() || !p.monotone_to(span) {
                return None;
            }
            nodes.push(p);
        }
        let side = |s: &Side| -> Option<Points> {
            Some(match s {
                Side::Binding => Points {
                    p0: first,
                    step: 1,
                    curve: 0,
                },
                Side::Const(c) => Points::constant(*c),
                Side::Free(code) => Points::constant(code(frame)?),
                Side::Node(i) => nodes[*i],
            })
        };
        let diff = side(&self.sides[0])?.minus(side(&self.sides[1])?)?;
        if !diff.monotone_to(span) {
            return None;
        }
        let op = self.op;
        let holds = |i: i64| -> Option<bool> {
            let d = diff.at(value(i)? - first)?;
            Some(match op {
                BinaryOp::Lt => d < 0,
                BinaryOp::Le => d <= 0,
                BinaryOp::Gt => d > 0,
                _ => d >= 0,
            })
        };
        // The comparison of a monotone difference changes truth at most
        // once: where it did last time, if it does there now.
        let last = self.last.get();
        if a < last && last < b {
            let before = holds(last - 1)?;
            if before != holds(last)? {
                return Some(if before { (a, last) } else { (last, b) });
            }
        }
        let (at_a, at_last) = (holds(a)?, holds(b - 1)?);
        if at_a == at_last {
            return Some(if at_a { (a, b) } else { (a, a) });
        }
        // The first index in (lo, hi] where the comparison is `at_last`:
        // next to the real root, then by bisection if that was off.
        let (mut lo, mut hi) = (a, b - 1);
        let guess = if lo < last && last <= hi {
            Some(last)
        } else {
            diff.root(span).map(|root| {
                let t = root.ceil().clamp(0.0, span as f64) as i64;
                match values {
                    None => a + t,
                    Some(v) => {
                        a + v[a as usize..b as usize].partition_point(|&x| x - first < t) as i64
                    }
                }
                .clamp(lo + 1, hi)
            })
        };
        if let Some(guess) = guess {
            if holds(guess)? == at_last {
                hi = guess;
                if guess - 1 > lo && holds(guess - 1)? != at_last {
                    lo = guess - 1;
                }
            } else {
                lo = guess;
                if guess < hi && holds(guess + 1)? == at_last {
                    hi = guess + 1;
                }
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if holds(mid)? == at_last {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        self.last.set(hi);
        Some(if at_a { (a, hi) } else { (hi, b) })
    }
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
        implied: &Implied,
    ) -> LoopGuard {
        let m = bindings.len();
        let mut out = LoopGuard {
            slots: bindings.to_vec(),
            levels: (0..m).map(|_| Vec::new()).collect(),
            guaranteed: implied.guaranteed,
            ..LoopGuard::default()
        };
        let mut parts = Vec::new();
        if let Some(guard) = guard.filter(|g| !is_true(g)) {
            conjuncts(guard, &mut parts);
        }
        let explicit = parts.len();
        parts.extend(&implied.conds);
        let (mut level, mut taken) = (0, 0);
        for c in &parts {
            // Each conjunct is read off its tree; one that is not integer
            // code ends them.
            let Ok(c) = self.bool_tree(c) else {
                break;
            };
            // The innermost binding the conjunct reads, counted from 1
            // (0: none).
            let innermost = (1..=m)
                .rev()
                .find(|&j| c.reads(bindings[j - 1]))
                .unwrap_or(0);
            // A cut narrows that binding's range; a check of the names
            // up to it is decided on the next binding's range.
            let cut = (innermost > level)
                .then(|| cut(&c, bindings[innermost - 1]))
                .flatten()
                .map(|cut| (innermost - 1, Step::Cut(cut)));
            let step = cut.or_else(|| {
                (innermost < m && innermost >= level)
                    .then(|| (innermost, Step::Check(bool_code(&c))))
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
    /// move `m`'s result sums (`parts`, their arguments), in the order the
    /// general path checks them, the arguments put in for the
    /// parameters; up to the first that cannot be written so. Those the
    /// move guarantees (`guaranteed.rs`: `n - k >= 0` over `k in 1..=n`)
    /// are left out, only counted.
    pub(crate) fn implied_by_where(&self, g: &IrGame, m: &IrMove, parts: &[&[IrExpr]]) -> Implied {
        let mut out = Implied::default();
        let Some(w) = &g.where_clause else {
            return out;
        };
        let mut conds = Vec::new();
        conjuncts(w, &mut conds);
        let facts = Facts::of_move(self, g, m);
        for args in parts {
            for c in &conds {
                if facts.guarantee(c, g.n_statics, args) {
                    out.guaranteed += 1;
                    continue;
                }
                match substitute_params(c, g.n_statics, args) {
                    Some(e) => out.conds.push(e),
                    None => return out,
                }
            }
        }
        out
    }
}

/// `c` as a cut of the binding in `k`, if it is a comparison of
/// polynomials in it.
fn cut(c: &BoolNode, k: Slot) -> Option<Cut> {
    use BinaryOp::{Ge, Gt, Le, Lt};
    let BoolNode::Compare(op @ (Lt | Le | Gt | Ge), lhs, rhs) = c else {
        return None;
    };
    if k as usize >= KERNEL_FRAME {
        return None;
    }
    let mut nodes = Vec::new();
    degree(lhs, k, &mut nodes)?;
    degree(rhs, k, &mut nodes)?;
    let side = |e: &IntNode| match (nodes.iter().position(|n| std::ptr::eq(*n, e)), e) {
        (Some(i), _) => Side::Node(i),
        (None, &IntNode::Local(s)) if s == k => Side::Binding,
        (None, &IntNode::Const(c)) => Side::Const(c),
        _ => Side::Free(int_code(e)),
    };
    Some(Cut {
        slot: k,
        op: *op,
        sides: [side(lhs), side(rhs)],
        nodes: nodes.iter().map(|n| node(n, k)).collect::<Option<_>>()?,
        last: Cell::new(i64::MIN),
    })
}

/// A node of a cut as a polynomial in its binding `k`.
fn node(e: &IntNode, k: Slot) -> Option<Node> {
    Some(match quadratic_coefs(e, k) {
        Some((c1, c2)) => Node::Constant {
            base: int_code(&e.with_local(k, 0)?),
            c1,
            c2,
        },
        None => Node::Sampled(int_code(e)),
    })
}

/// Whether `e` is the constant `true` (a guard that is no guard).
pub(crate) fn is_true(e: &IrExpr) -> bool {
    matches!(e.kind, IrKind::Const(Value::Bool(true)))
}
