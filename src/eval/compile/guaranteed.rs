//! Which conjuncts of a result's `where` a move guarantees: for every
//! option it makes, whatever the position, they hold. `n - k >= 0` for
//! `Heap(n - k)` over `k in 1..=n`, `k >= 1` and `b - k >= 1` for
//! `EmptyDivide(k, b - k)` over `k in 1..b`: the binding's range, the
//! move's guard and the position's own `where` (which holds: the search
//! values positions only) imply them. Such a conjunct is dropped when the
//! move is compiled, so no option pays for it.
//!
//! The proof is linear: every fact and the conjunct are read as `f >= 0`
//! with `f` a linear form over the frame's locals and over *atoms*
//! (subexpressions that are not linear, compared as written: `F(x, z)`),
//! and the conjunct's form is reduced by nonnegative multiples of the
//! facts' forms to a nonnegative constant. Nothing is assumed of an atom
//! but that it has one value wherever it is written the same on one frame.
//!
//! Exactness: a dropped conjunct must be one the general path evaluates
//! to `true`, never to an error. Its sides may be constants, the result's
//! arguments (computed anyway, before `where` is asked) and expressions
//! that the position's own `where` or the move's guard evaluated on the
//! same locals; no other arithmetic of the conjunct is taken.

use super::linear::{conjuncts, linear, nonnegative, Atoms, Linear, NoAtoms, Term};
use crate::eval::builtins::Builtin;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// What holds for every option of one move: forms `f >= 0`.
#[derive(Default)]
pub(super) struct Facts {
    forms: Vec<Linear>,
    /// The atoms the forms name, as written.
    atoms: Vec<IrExpr>,
}

/// The most facts a proof reads, and the most steps it takes: moves are
/// short, and a proof not found is only a conjunct kept.
const MAX_FACTS: usize = 24;
const MAX_STEPS: usize = 3;

impl Facts {
    /// The facts of an option of `m` in game `g`: the position's own
    /// `where`, the range of each binding over integers or constant
    /// integers, and the guard's conjuncts.
    pub(super) fn of_move(g: &IrGame, m: &IrMove) -> Facts {
        let mut facts = Facts::of_ranges(g, m);
        let mut conds = Vec::new();
        if let Some(guard) = &m.guard {
            conjuncts(guard, &mut conds);
        }
        for c in conds {
            facts.add_comparison(c);
        }
        facts.forms.truncate(MAX_FACTS);
        facts
    }

    /// The position's own `where` and the ranges of the bindings.
    fn of_ranges(g: &IrGame, m: &IrMove) -> Facts {
        let mut facts = Facts::default();
        let mut conds = Vec::new();
        if let Some(w) = &g.where_clause {
            conjuncts(w, &mut conds);
        }
        for c in conds {
            facts.add_comparison(c);
        }
        for b in &m.bindings {
            let IrPattern::Slot { slot, .. } = b.pattern else {
                continue;
            };
            let k = Linear::term(Term::Local(slot));
            let (lo, last) = match &b.iterable.kind {
                IrKind::Range {
                    start,
                    end,
                    inclusive,
                } => {
                    let (lo, hi) = (linear(start, &mut facts), linear(end, &mut facts));
                    let last = hi.and_then(|hi| {
                        let one = Linear::constant(if *inclusive { 0 } else { 1 });
                        hi.combine(1, &one, -1)
                    });
                    (lo, last)
                }
                _ => match const_items(&b.iterable) {
                    Some(v) if !v.is_empty() => (
                        v.iter().min().map(|&c| Linear::constant(c as i128)),
                        v.iter().max().map(|&c| Linear::constant(c as i128)),
                    ),
                    _ => (None, None),
                },
            };
            // `k - lo >= 0` and `last - k >= 0`.
            if let Some(f) = lo.and_then(|lo| k.combine(1, &lo, -1)) {
                facts.forms.push(f);
            }
            if let Some(f) = last.and_then(|last| last.combine(1, &k, -1)) {
                facts.forms.push(f);
            }
        }
        facts
    }

    /// Whether the guard of `m`, whose result has the arguments `args`,
    /// holds for every option that is a position: each of its conjuncts
    /// compares two names or integer constants (so it never fails where
    /// the general path asks it) and follows from the result's `where`
    /// with `args` put in, the position's own `where` and the bindings'
    /// ranges. `k <= y` for `G(x, y - k)` under `where 0 <= y`. A listing
    /// that keeps only the options inside the `where` may skip it.
    pub(super) fn guard_within_where(g: &IrGame, m: &IrMove, args: &[IrExpr]) -> bool {
        let Some(guard) = &m.guard else {
            return true;
        };
        let Some(w) = &g.where_clause else {
            return false;
        };
        let mut facts = Facts::of_ranges(g, m);
        let (mut conds, mut parts) = (Vec::new(), Vec::new());
        conjuncts(w, &mut conds);
        for c in conds {
            match substitute_params(c, g.n_statics, args) {
                Some(e) => facts.add_comparison(&e),
                None => return false,
            }
        }
        facts.forms.truncate(MAX_FACTS);
        conjuncts(guard, &mut parts);
        parts.iter().all(|c| {
            let IrKind::Binary { op, lhs, rhs, .. } = &c.kind else {
                return false;
            };
            let leaf = |e: &IrExpr| match e.kind {
                IrKind::Local(_) | IrKind::Const(Value::Int(_)) => linear(e, &mut NoAtoms),
                _ => None,
            };
            let Some((l, r)) = leaf(lhs).zip(leaf(rhs)) else {
                return false;
            };
            let ops = match op {
                BinaryOp::Eq => &[BinaryOp::Ge, BinaryOp::Le][..],
                op => std::slice::from_ref(op),
            };
            (ops.iter())
                .all(|&op| nonnegative(op, &l, &r).is_some_and(|f| facts.proves(&f, MAX_STEPS)))
        })
    }

    /// Adds a comparison that holds as facts (`==` as two).
    fn add_comparison(&mut self, c: &IrExpr) {
        let IrKind::Binary { op, lhs, rhs, .. } = &c.kind else {
            return;
        };
        let Some((l, r)) = linear(lhs, self).zip(linear(rhs, self)) else {
            return;
        };
        if *op == BinaryOp::Eq {
            self.forms.extend(nonnegative(BinaryOp::Ge, &l, &r));
            self.forms.extend(nonnegative(BinaryOp::Le, &l, &r));
        } else if let Some(f) = nonnegative(*op, &l, &r) {
            self.forms.push(f);
        }
    }

    /// Whether the conjunct `c` of the game's `where`, asked of the
    /// position with arguments `args` (parameter `i` is local `n_statics
    /// + i`), holds for every option these facts describe.
    pub(super) fn guarantee(&self, c: &IrExpr, n_statics: usize, args: &[IrExpr]) -> bool {
        let IrKind::Binary { op, lhs, rhs, .. } = &c.kind else {
            return false;
        };
        let mut scratch = Facts {
            forms: Vec::new(),
            atoms: self.atoms.clone(),
        };
        let side = |e: &IrExpr, scratch: &mut Facts| -> Option<Linear> {
            match &e.kind {
                IrKind::Const(Value::Int(c)) => Some(Linear::constant(*c as i128)),
                IrKind::Local(s) => match (*s as usize).checked_sub(n_statics) {
                    Some(i) => linear(args.get(i)?, scratch),
                    None => Some(Linear::term(Term::Local(*s))),
                },
                // Anything else only as evaluated already: one of the
                // facts' atoms once the arguments are put in.
                _ => {
                    let put = substitute_params(e, n_statics, args)?;
                    let i = self.atoms.iter().position(|a| same(a, &put))?;
                    Some(Linear::term(Term::Atom(i)))
                }
            }
        };
        let Some((l, r)) = side(lhs, &mut scratch).zip(side(rhs, &mut scratch)) else {
            return false;
        };
        let forms = |op| nonnegative(op, &l, &r);
        match op {
            BinaryOp::Eq => [BinaryOp::Ge, BinaryOp::Le]
                .into_iter()
                .all(|op| forms(op).is_some_and(|f| self.proves(&f, MAX_STEPS))),
            _ => forms(*op).is_some_and(|f| self.proves(&f, MAX_STEPS)),
        }
    }

    /// Whether `f >= 0` follows from the facts in at most `steps`
    /// eliminations, each taking a positive multiple of one fact off a
    /// positive multiple of `f` to cancel one of its terms.
    fn proves(&self, f: &Linear, steps: usize) -> bool {
        if f.terms.is_empty() {
            return f.constant >= 0;
        }
        if steps == 0 {
            return false;
        }
        f.terms.iter().any(|(t, c)| {
            self.forms.iter().any(|h| {
                let (c, d) = (*c, h.coef(t));
                // `|d| f - |c| h` cancels `t`; if it is `>= 0`, so is `f`.
                d.signum() == c.signum()
                    && f.combine(d.abs(), h, -c.abs())
                        .is_some_and(|g| self.proves(&g, steps - 1))
            })
        })
    }
}

impl Atoms<'_> for Facts {
    /// The atom `e`, added if new. A new floor quotient or remainder by
    /// a positive constant `c` brings what it is known to satisfy: `0 <=
    /// x - c * (x / c) < c` and `0 <= x % c < c`.
    fn atom(&mut self, e: &IrExpr) -> Option<Term> {
        if let Some(i) = self.atoms.iter().position(|a| same(a, e)) {
            return Some(Term::Atom(i));
        }
        self.atoms.push(e.clone());
        let t = Term::Atom(self.atoms.len() - 1);
        if let IrKind::Binary {
            op: op @ (BinaryOp::Div | BinaryOp::Mod),
            lhs,
            rhs,
            ..
        } = &e.kind
        {
            if let IrKind::Const(Value::Int(c @ 1..)) = rhs.kind {
                let c = c as i128;
                let rest = match op {
                    BinaryOp::Div => {
                        linear(lhs, self).and_then(|x| x.combine(1, &Linear::term(t), -c))
                    }
                    _ => Some(Linear::term(t)),
                };
                if let Some(rest) = rest {
                    let below_c = Linear::constant(c - 1).combine(1, &rest, -1);
                    self.forms.extend(below_c);
                    self.forms.push(rest);
                }
            }
        }
        // `min(x, y)` is at most either side, `max(x, y)` at least: a
        // diagonal `k in 1..=min(a, b)` keeps `a - k` and `b - k` at 0 or
        // more.
        if let IrKind::CallBuiltin {
            builtin: b @ (Builtin::Min | Builtin::Max),
            args,
        } = &e.kind
        {
            let sign = if *b == Builtin::Min { 1 } else { -1 };
            for side in args.iter().take(2).filter(|_| args.len() == 2) {
                let f = linear(side, self).and_then(|x| x.combine(sign, &Linear::term(t), -sign));
                self.forms.extend(f);
            }
        }
        Some(t)
    }
}

/// `e` with the game's parameters replaced by `args`.
pub(super) fn substitute_params(e: &IrExpr, n_statics: usize, args: &[IrExpr]) -> Option<IrExpr> {
    super::int_code::map_locals(e, &|s| match (s as usize).checked_sub(n_statics) {
        Some(i) => args.get(i).cloned(),
        None => Some(IrExpr {
            kind: IrKind::Local(s),
            span: e.span,
        }),
    })
}

/// The integers of a literal whose items are all integer constants.
fn const_ints(xs: &[IrExpr]) -> Option<Vec<i64>> {
    xs.iter()
        .map(|x| match x.kind {
            IrKind::Const(Value::Int(n)) => Some(n),
            _ => None,
        })
        .collect()
}

/// The integers of a constant list, set or tuple to iterate (a set in
/// ascending order, without repeats).
pub(super) fn const_items(e: &IrExpr) -> Option<Vec<i64>> {
    let items = match &e.kind {
        IrKind::Const(Value::List(xs) | Value::Set(xs) | Value::Tuple(xs)) => xs
            .iter()
            .map(|x| match x {
                Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        IrKind::List(xs) | IrKind::Tuple(xs) => const_ints(xs)?,
        IrKind::Set(xs) => {
            let mut v = const_ints(xs)?;
            v.sort_unstable();
            v.dedup();
            v
        }
        _ => return None,
    };
    Some(items)
}

/// Whether two expressions are the same code (spans aside). Forms this
/// does not compare count as different.
pub(super) fn same(a: &IrExpr, b: &IrExpr) -> bool {
    let all = |xs: &[IrExpr], ys: &[IrExpr]| {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
    };
    match (&a.kind, &b.kind) {
        (IrKind::Const(x), IrKind::Const(y)) => x == y,
        (IrKind::Local(x), IrKind::Local(y)) | (IrKind::Global(x), IrKind::Global(y)) => x == y,
        (IrKind::List(xs), IrKind::List(ys))
        | (IrKind::Set(xs), IrKind::Set(ys))
        | (IrKind::Tuple(xs), IrKind::Tuple(ys)) => all(xs, ys),
        (IrKind::Unary(o, x), IrKind::Unary(p, y)) => o == p && same(x, y),
        (
            IrKind::Binary {
                op: o,
                lhs: l1,
                rhs: r1,
                ..
            },
            IrKind::Binary {
                op: p,
                lhs: l2,
                rhs: r2,
                ..
            },
        ) => o == p && same(l1, l2) && same(r1, r2),
        (
            IrKind::Range {
                start: s1,
                end: e1,
                inclusive: i1,
            },
            IrKind::Range {
                start: s2,
                end: e2,
                inclusive: i2,
            },
        ) => i1 == i2 && same(s1, s2) && same(e1, e2),
        (
            IrKind::If {
                cond: c1,
                then: t1,
                otherwise: o1,
            },
            IrKind::If {
                cond: c2,
                then: t2,
                otherwise: o2,
            },
        ) => same(c1, c2) && same(t1, t2) && same(o1, o2),
        (IrKind::CallFn { func: f, args: xs }, IrKind::CallFn { func: g, args: ys }) => {
            f == g && all(xs, ys)
        }
        (
            IrKind::CallBuiltin {
                builtin: f,
                args: xs,
            },
            IrKind::CallBuiltin {
                builtin: g,
                args: ys,
            },
        ) => f == g && all(xs, ys),
        (
            IrKind::Position {
                game: g1,
                statics: s1,
                args: a1,
            },
            IrKind::Position {
                game: g2,
                statics: s2,
                args: a2,
            },
        ) => g1 == g2 && all(s1, s2) && all(a1, a2),
        _ => false,
    }
}
