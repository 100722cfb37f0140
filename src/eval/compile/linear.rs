//! The one linear form of integer code that the compile-time analyses
//! read: `constant + sum of coefficient * term`, exact (`i128`), a term a
//! variable or the product of two, a variable a local of the frame or an
//! *atom* (a node of the integer tree the reader names: `F(x, z)`'s body
//! in a proof, an item `xs[i]` of a list, anything free of a binding),
//! read off the tree by `node_form` alone. The proofs of
//! `guaranteed.rs`, the cuts of `guard_bounds.rs` (a polynomial in one
//! binding), the affine arguments of runs (`moves.rs`, `kernel.rs`,
//! `key_kernel.rs`) and the item changes of list moves (`item_sum.rs`,
//! `rank_shift.rs`) are readings of it.

use super::int_code::{int_code, IntCode, Locals};
use super::int_tree::{lowered, IntNode, IntOp};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use smallvec::{smallvec, SmallVec};

/// A linear form `constant + sum of coefficient * term`, a term a
/// variable or the product of two (sorted), the terms merged and sorted,
/// none with coefficient 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Linear {
    pub terms: Vec<(Monomial, i128)>,
    pub constant: i128,
}

/// A variable of a linear form: a local of the frame, or an atom (an
/// index into the nodes the reader keeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Term {
    Local(Slot),
    Atom(usize),
}

/// One or two variables, sorted: their product.
pub(super) type Monomial = SmallVec<[Term; 2]>;

impl Linear {
    pub(super) fn constant(c: i128) -> Self {
        Linear {
            terms: Vec::new(),
            constant: c,
        }
    }

    fn monomial(m: Monomial) -> Self {
        match m.is_empty() {
            true => Linear::constant(1),
            false => Linear {
                terms: vec![(m, 1)],
                constant: 0,
            },
        }
    }

    pub(super) fn term(t: Term) -> Self {
        Linear::monomial(smallvec![t])
    }

    /// `a * self + b * other`.
    pub(super) fn combine(&self, a: i128, other: &Linear, b: i128) -> Option<Linear> {
        let mut terms: Vec<(Monomial, i128)> = Vec::new();
        let scaled = (self.terms.iter().map(|(t, c)| (t, c.checked_mul(a))))
            .chain(other.terms.iter().map(|(t, c)| (t, c.checked_mul(b))));
        for (t, c) in scaled {
            let c = c?;
            match terms.iter_mut().find(|(u, _)| u == t) {
                Some((_, d)) => *d = d.checked_add(c)?,
                None => terms.push((t.clone(), c)),
            }
        }
        terms.retain(|&(_, c)| c != 0);
        terms.sort_unstable();
        let constant =
            (self.constant.checked_mul(a)?).checked_add(other.constant.checked_mul(b)?)?;
        Some(Linear { terms, constant })
    }

    /// `self * other`, if no term has more than two variables.
    fn times(&self, other: &Linear) -> Option<Linear> {
        let parts = |f: &Linear| {
            let constant = (Monomial::new(), f.constant);
            f.terms.clone().into_iter().chain([constant])
        };
        let mut out = Linear::constant(0);
        for (m, c) in parts(self) {
            for (n, d) in parts(other) {
                let mut product: Monomial = m.iter().chain(&n).copied().collect();
                if product.len() > 2 {
                    return None;
                }
                product.sort_unstable();
                out = out.combine(1, &Linear::monomial(product), c.checked_mul(d)?)?;
            }
        }
        Some(out)
    }

    /// The coefficient of the monomial `t`.
    pub(super) fn coef(&self, t: &Monomial) -> i128 {
        self.terms
            .iter()
            .find(|(u, _)| u == t)
            .map_or(0, |&(_, c)| c)
    }

    /// The coefficient of the variable `t` alone (of `t`, not `t * u`).
    pub(super) fn coef_of(&self, t: Term) -> i128 {
        self.coef(&smallvec![t])
    }

    /// Whether some term has the variable `t`.
    pub(super) fn mentions(&self, t: Term) -> bool {
        self.terms.iter().any(|(m, _)| m.contains(&t))
    }

    /// Whether it is `constant + sum of coefficient * local`, every number
    /// within `i64`.
    pub(super) fn is_affine_i64(&self) -> bool {
        let fits = |c: i128| i64::try_from(c).is_ok();
        fits(self.constant)
            && (self.terms.iter()).all(|(m, c)| fits(*c) && matches!(m[..], [Term::Local(_)]))
    }

    /// The locals of an affine form (`is_affine_i64`) with their
    /// coefficients, in slot order.
    pub(super) fn locals(&self) -> impl Iterator<Item = (Slot, i64)> + '_ {
        (self.terms.iter()).filter_map(|(m, c)| match m[..] {
            [Term::Local(s)] => Some((s, i64::try_from(*c).ok()?)),
            _ => None,
        })
    }

    /// The local it is, alone (`x`: coefficient 1, no constant).
    pub(super) fn lone_local(&self) -> Option<Slot> {
        match (&self.terms[..], self.constant) {
            ([(m, 1)], 0) => match m[..] {
                [Term::Local(s)] => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
}

/// `l op r` as a form `f >= 0` (`None` for an operator that is no order).
pub(super) fn nonnegative(op: BinaryOp, l: &Linear, r: &Linear) -> Option<Linear> {
    let one = Linear::constant(1);
    match op {
        BinaryOp::Ge => l.combine(1, r, -1),
        BinaryOp::Gt => l.combine(1, r, -1)?.combine(1, &one, -1),
        BinaryOp::Le => r.combine(1, l, -1),
        BinaryOp::Lt => r.combine(1, l, -1)?.combine(1, &one, -1),
        _ => None,
    }
}

/// `(x, c)` if `e` is the local `x` plus the constant `c` in at most one
/// operation (`x`, `x + c`, `c + x`, `x - c`): exact wherever it is
/// asked, as the general path computes it, with no other step to fail.
pub(super) fn local_plus_constant(e: &IrExpr) -> Option<(Slot, i64)> {
    node_local_plus(&lowered(e)?)
}

/// `local_plus_constant` of a node.
pub(super) fn node_local_plus(n: &IntNode) -> Option<(Slot, i64)> {
    use BinaryOp::{Add, Sub};
    let IntNode::Binary(IntOp::Op(op @ (Add | Sub)), l, r) = n else {
        return match *n {
            IntNode::Local(x) => Some((x, 0)),
            _ => None,
        };
    };
    match (&**l, &**r, op) {
        (&IntNode::Local(x), &IntNode::Const(c), Add)
        | (&IntNode::Const(c), &IntNode::Local(x), Add) => Some((x, c)),
        (&IntNode::Local(x), &IntNode::Const(c), Sub) => Some((x, c.checked_neg()?)),
        _ => None,
    }
}

/// Integer code (a node of the tree) as a linear form, its nodes that
/// are not linear as atoms (`atom` gives their variable, or `None` when
/// the form is not to be had).
pub(super) fn node_form(
    n: &IntNode,
    atom: &mut dyn FnMut(&IntNode) -> Option<Term>,
) -> Option<Linear> {
    use BinaryOp::{Add, Mul, Sub};
    Some(match n {
        IntNode::Const(c) => Linear::constant(*c as i128),
        IntNode::Local(s) => Linear::term(Term::Local(*s)),
        IntNode::Binary(IntOp::Op(op @ (Add | Sub)), l, r) => {
            let (l, r) = (node_form(l, atom)?, node_form(r, atom)?);
            l.combine(1, &r, if *op == Add { 1 } else { -1 })?
        }
        IntNode::Binary(IntOp::Op(Mul), l, r) => {
            let l = node_form(l, atom);
            let product = l.zip(node_form(r, atom)).and_then(|(l, r)| l.times(&r));
            match product {
                Some(p) => p,
                None => Linear::term(atom(n)?),
            }
        }
        _ => Linear::term(atom(n)?),
    })
}

/// The coefficients `(c1, c2)` of `k` and `k * k` in `e` when it is
/// `base + c1 * k + c2 * k * k` with constants `c1`, `c2` (the base any
/// integer code without `k`): `e` read as a linear form, its nodes
/// without `k` as atoms.
pub(super) fn quadratic_coefs(e: &IntNode, k: Slot) -> Option<(i64, i64)> {
    if !e.reads(k) {
        return Some((0, 0));
    }
    let mut atoms = 0;
    let mut outer = |x: &IntNode| {
        atoms += 1;
        (!x.reads(k)).then_some(Term::Atom(atoms))
    };
    let (form, k) = (node_form(e, &mut outer)?, Term::Local(k));
    let mut coefs = (0, 0);
    for (m, c) in form.terms.iter().filter(|(m, _)| m.contains(&k)) {
        match m[..] {
            [_] => coefs.0 = i64::try_from(*c).ok()?,
            [x, y] if x == y => coefs.1 = i64::try_from(*c).ok()?,
            _ => return None,
        }
    }
    Some(coefs)
}

/// The degree of `e` as written, as a polynomial in the local `k` whose
/// coefficients do not mention it, if it is one of degree at most 2
/// built with `+`, `-` and `*`; every node reading `k` (but `k` itself)
/// is added to `nodes`. A form merges `k * k - k * k + k` into `k`; the
/// written degree tells that its code computes `k * k`.
pub(super) fn degree<'e>(e: &'e IntNode, k: Slot, nodes: &mut Vec<&'e IntNode>) -> Option<u32> {
    use BinaryOp::{Add, Mul, Sub};
    if !e.reads(k) {
        return Some(0);
    }
    let d = match e {
        IntNode::Local(_) => return Some(1),
        IntNode::Binary(IntOp::Op(Add | Sub), l, r) => {
            degree(l, k, nodes)?.max(degree(r, k, nodes)?)
        }
        IntNode::Binary(IntOp::Op(Mul), l, r) => degree(l, k, nodes)? + degree(r, k, nodes)?,
        _ => return None,
    };
    nodes.push(e);
    (d <= 2).then_some(d)
}

/// `e` as `base + coef * k`: code for the base (`e` at `k = 0`) and a
/// constant coefficient, `e` of degree at most 1 in `k` as written (so
/// that no step of an option's code is left out of them).
pub(super) fn affine<L: Locals + ?Sized>(e: &IntNode, k: Slot) -> Option<(IntCode<L>, i64)> {
    if degree(e, k, &mut Vec::new())? > 1 {
        return None;
    }
    let (coef, _) = quadratic_coefs(e, k)?;
    Some((int_code(&e.with_local(k, 0)?), coef))
}

/// `op` with its sides exchanged (`e < x` is `x > e`).
pub(crate) fn flipped(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        op => op,
    }
}

/// The conjuncts of `e` (`x and y and ...`), in order.
pub(crate) fn conjuncts<'e>(e: &'e IrExpr, out: &mut Vec<&'e IrExpr>) {
    operands(BinaryOp::And, e, out)
}

/// The operands of a chain of `op` in `e` (`x and y and ...`, `A + B +
/// ...`), in order.
pub(crate) fn operands<'e>(op: BinaryOp, e: &'e IrExpr, out: &mut Vec<&'e IrExpr>) {
    match &e.kind {
        IrKind::Binary {
            op: o, lhs, rhs, ..
        } if *o == op => {
            operands(op, lhs, out);
            operands(op, rhs, out);
        }
        _ => out.push(e),
    }
}
