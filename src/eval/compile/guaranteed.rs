//! Which conjuncts of a result's `where` a move guarantees: for every
//! option it makes, whatever the position, they hold. `n - k >= 0` for
//! `Heap(n - k)` over `k in 1..=n`, `k >= 1` and `b - k >= 1` for
//! `EmptyDivide(k, b - k)` over `k in 1..b`: the binding's range, the
//! move's guard and the position's own `where` (which holds: the search
//! values positions only) imply them. Such a conjunct is dropped when the
//! move is compiled, so no option pays for it.
//!
//! The proof is linear: every fact and the conjunct are lowered to the
//! integer tree (`int_tree.rs`: helper calls and `let`s put in place)
//! and read as `f >= 0` with `f` a linear form over the frame's locals
//! and over *atoms* (nodes that are not linear, compared as lowered:
//! `F(x, z)`'s body, `x / 2`, `min(a, b)`), and the conjunct's form is
//! reduced by nonnegative multiples of the facts' forms to a nonnegative
//! constant. Nothing is assumed of an atom but that it has one value
//! wherever it is the same node on one frame (and what a quotient, a
//! remainder, `min` or `max` is known to satisfy).
//!
//! Exactness: a dropped conjunct must be one the general path evaluates
//! to `true`, never to an error. Its sides may be constants, the result's
//! arguments (computed anyway, before `where` is asked) and expressions
//! that the position's own `where` or the move's guard evaluated on the
//! same locals; no other arithmetic of the conjunct is taken.

use super::compiler::Compiler;
use super::int_tree::{BoolNode, IntFn, IntNode, IntOp};
use super::linear::{conjuncts, node_form, nonnegative, Linear, Term};
use crate::eval::builtins::Builtin;
use crate::eval::value::Value;
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;

/// What holds for every option of one move: forms `f >= 0`, read off
/// the integer tree of the conditions (`Compiler::int_tree`).
pub(super) struct Facts<'c, 'a> {
    compiler: &'c Compiler<'a>,
    forms: Vec<Linear>,
    /// The atoms the forms name, as lowered.
    atoms: Vec<IntNode>,
}

/// The most facts a proof reads, and the most steps it takes: moves are
/// short, and a proof not found is only a conjunct kept.
const MAX_FACTS: usize = 24;
const MAX_STEPS: usize = 3;

/// `l op r` if the condition `c` is a comparison of integer code (two
/// integer locals compared with `==` or `!=` included).
fn comparison(c: &BoolNode) -> Option<(BinaryOp, IntNode, IntNode)> {
    match c {
        BoolNode::Compare(op, l, r) => Some((*op, l.clone(), r.clone())),
        &BoolNode::ItemsEqual {
            a: (a, false),
            b: (b, false),
            negate,
        } => Some((
            if negate { BinaryOp::Ne } else { BinaryOp::Eq },
            IntNode::Local(a),
            IntNode::Local(b),
        )),
        _ => None,
    }
}

impl<'c, 'a> Facts<'c, 'a> {
    /// The facts of an option of `m` in game `g`: the position's own
    /// `where`, the range of each binding over integers or constant
    /// integers, and the guard's conjuncts.
    pub(super) fn of_move(compiler: &'c Compiler<'a>, g: &IrGame, m: &IrMove) -> Self {
        let mut facts = Facts::of_ranges(compiler, g, m);
        if let Some(guard) = &m.guard {
            facts.add_conditions(guard);
        }
        facts.forms.truncate(MAX_FACTS);
        facts
    }

    /// The position's own `where` and the ranges of the bindings.
    fn of_ranges(compiler: &'c Compiler<'a>, g: &IrGame, m: &IrMove) -> Self {
        let mut facts = Facts {
            compiler,
            forms: Vec::new(),
            atoms: Vec::new(),
        };
        if let Some(w) = &g.where_clause {
            facts.add_conditions(w);
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
                    let (lo, hi) = (facts.form_of(start), facts.form_of(end));
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
    pub(super) fn guard_within_where(
        compiler: &'c Compiler<'a>,
        g: &IrGame,
        m: &IrMove,
        args: &[IrExpr],
    ) -> bool {
        let Some(guard) = &m.guard else {
            return true;
        };
        let Some(w) = &g.where_clause else {
            return false;
        };
        let mut facts = Facts::of_ranges(compiler, g, m);
        let (mut conds, mut parts) = (Vec::new(), Vec::new());
        conjuncts(w, &mut conds);
        for c in conds {
            match substitute_params(c, g.n_statics, args) {
                Some(e) => facts.add_conditions(&e),
                None => return false,
            }
        }
        facts.forms.truncate(MAX_FACTS);
        conjuncts(guard, &mut parts);
        parts.iter().all(|c| {
            let Some((op, l, r)) = compiler.bool_tree(c).ok().as_ref().and_then(comparison) else {
                return false;
            };
            let leaf = |e: &IntNode| match *e {
                IntNode::Local(s) => Some(Linear::term(Term::Local(s))),
                IntNode::Const(c) => Some(Linear::constant(c.into())),
                _ => None,
            };
            let Some((l, r)) = leaf(&l).zip(leaf(&r)) else {
                return false;
            };
            facts.proves_comparison(op, &l, &r)
        })
    }

    /// `e` lowered to integer code as a linear form, its nodes that are
    /// not linear as atoms.
    fn form_of(&mut self, e: &IrExpr) -> Option<Linear> {
        let n = self.compiler.int_tree(e).ok()?;
        self.form(&n)
    }

    fn form(&mut self, n: &IntNode) -> Option<Linear> {
        node_form(n, &mut |x| Some(self.atom(x)))
    }

    /// Adds the conjuncts of `e` that are comparisons of integer code as
    /// facts (`==` as two).
    fn add_conditions(&mut self, e: &IrExpr) {
        let mut conds = Vec::new();
        conjuncts(e, &mut conds);
        for c in conds {
            let Some((op, l, r)) = self
                .compiler
                .bool_tree(c)
                .ok()
                .as_ref()
                .and_then(comparison)
            else {
                continue;
            };
            let Some((l, r)) = self.form(&l).zip(self.form(&r)) else {
                continue;
            };
            if op == BinaryOp::Eq {
                self.forms.extend(nonnegative(BinaryOp::Ge, &l, &r));
                self.forms.extend(nonnegative(BinaryOp::Le, &l, &r));
            } else if let Some(f) = nonnegative(op, &l, &r) {
                self.forms.push(f);
            }
        }
    }

    /// Whether the conjunct `c` of the game's `where`, asked of the
    /// position with arguments `args` (parameter `i` is local `n_statics
    /// + i`), holds for every option these facts describe.
    pub(super) fn guarantee(&self, c: &IrExpr, n_statics: usize, args: &[IrExpr]) -> bool {
        let lowered = |e: &IrExpr| {
            self.compiler
                .bool_tree(e)
                .ok()
                .as_ref()
                .and_then(comparison)
        };
        // The conjunct as written, and with the arguments put in.
        let Some(((op, l, r), (_, l_put, r_put))) = lowered(c).zip(
            substitute_params(c, n_statics, args)
                .as_ref()
                .and_then(lowered),
        ) else {
            return false;
        };
        let mut scratch = Facts {
            compiler: self.compiler,
            forms: Vec::new(),
            atoms: self.atoms.clone(),
        };
        let mut side = |e: &IntNode, put: &IntNode| -> Option<Linear> {
            match *e {
                IntNode::Const(c) => Some(Linear::constant(c.into())),
                IntNode::Local(s) if (s as usize) < n_statics => Some(Linear::term(Term::Local(s))),
                IntNode::Local(_) => scratch.form(put),
                // Anything else only as evaluated already: one of the
                // facts' atoms once the arguments are put in.
                _ => {
                    let i = self.atoms.iter().position(|a| a == put)?;
                    Some(Linear::term(Term::Atom(i)))
                }
            }
        };
        let Some((l, r)) = side(&l, &l_put).zip(side(&r, &r_put)) else {
            return false;
        };
        self.proves_comparison(op, &l, &r)
    }

    /// Whether `l op r` follows from the facts (`==` as `>=` and `<=`).
    fn proves_comparison(&self, op: BinaryOp, l: &Linear, r: &Linear) -> bool {
        let ops = match op {
            BinaryOp::Eq => &[BinaryOp::Ge, BinaryOp::Le][..],
            ref op => std::slice::from_ref(op),
        };
        (ops.iter()).all(|&op| nonnegative(op, l, r).is_some_and(|f| self.proves(&f, MAX_STEPS)))
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

    /// The atom `n`, added if new. A new floor quotient or remainder by
    /// a positive constant `c` brings what it is known to satisfy: `0 <=
    /// x - c * (x / c) < c` and `0 <= x % c < c`.
    fn atom(&mut self, n: &IntNode) -> Term {
        if let Some(i) = self.atoms.iter().position(|a| a == n) {
            return Term::Atom(i);
        }
        self.atoms.push(n.clone());
        let t = Term::Atom(self.atoms.len() - 1);
        match n {
            IntNode::Unary(f @ (IntFn::FloorDiv(d) | IntFn::FloorMod(d)), x) => {
                let c = i128::from(d.divisor());
                let rest = match f {
                    IntFn::FloorDiv(_) => self
                        .form(x)
                        .and_then(|x| x.combine(1, &Linear::term(t), -c)),
                    _ => Some(Linear::term(t)),
                };
                if let Some(rest) = rest {
                    let below_c = Linear::constant(c - 1).combine(1, &rest, -1);
                    self.forms.extend(below_c);
                    self.forms.push(rest);
                }
            }
            // `min(x, y)` is at most either side, `max(x, y)` at least: a
            // diagonal `k in 1..=min(a, b)` keeps `a - k` and `b - k` at 0
            // or more.
            IntNode::Binary(IntOp::Builtin(b @ (Builtin::Min | Builtin::Max)), l, r) => {
                let sign = if *b == Builtin::Min { 1 } else { -1 };
                for side in [l, r] {
                    let f =
                        (self.form(side)).and_then(|x| x.combine(sign, &Linear::term(t), -sign));
                    self.forms.extend(f);
                }
            }
            _ => {}
        }
        t
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
        .map(|x| match &x.kind {
            IrKind::Const(v) => v.as_int(),
            _ => None,
        })
        .collect()
}

/// The integers of a constant list, set or tuple to iterate (a set in
/// ascending order, without repeats).
pub(super) fn const_items(e: &IrExpr) -> Option<Vec<i64>> {
    let items = match &e.kind {
        IrKind::Const(Value::List(xs) | Value::Set(xs) | Value::Tuple(xs)) => {
            xs.iter().map(Value::as_int).collect::<Option<Vec<_>>>()?
        }
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
