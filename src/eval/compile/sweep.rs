//! Comprehensions that ask a table of SG values along a range:
//! `[sg(G(x, n)) for x in .., n in a..b]`, `histogram(sg(G(n)) for n in
//! 0..=N)`, `histogram(sg(W([a, b, c, d])) for .., a in 0..b)`. When the
//! last clause ranges over integers and the body is `sg(G(args))` (or
//! `outcome(G(args))`, or either compared with a constant by `==` or
//! `!=`: `count(outcome(G(x, y)) == D for ..)`) whose arguments are integers or list or tuple literals of integers, one of
//! them moving with the binding (`n`, `n + e`, `e - n`, `n * e`) and the
//! others fixed for the range, the range is handed to the search's sweep
//! (`line_sweep::sweep_line`) as the positions' key coordinates: it values
//! the whole line in one loop, with no position value built per element;
//! any element the sweep cannot value plainly is asked through the body's
//! own code, so values and errors are the same.

use std::cell::Cell;

use super::calls::site_instance;
use super::clauses::{run_comprehension, CClause};
use super::compiler::Compiler;
use super::filter::ListFilter;
use super::fold::{Collect, Fold};
use super::int_code::{mentions, node_operand, Operand};
use super::int_tree::{IntNode, IntOp};
use super::kernel;
use super::line_sweep::{sweep_line, Affine, LineSink, SweepLine, BLOCK};
use super::query_line::SgQuery;
use super::runtime::{Code, Env, Layer, LayerKind, Progress};
use super::symmetry::traded_pair;
use crate::diag::Fallible;
use crate::eval::builtins::{expect_int, Builtin};
use crate::eval::gsg::{is_infinite, InfSets};
use crate::eval::memo::{default_order, shape_push, Shape, Tag, MAX_ARGS, MAX_COORDS};
use crate::eval::value::{InstanceId, Value};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;
use smallvec::SmallVec;

/// A compiled comprehension: its clauses and body, and the sweep of its
/// last clause when it has one (`clauses` then holds the others).
pub(crate) struct Comp {
    clauses: Vec<CClause>,
    body: Code,
    /// The body as an SG value (`Compiler::sg_body`), handed to the fold
    /// with no `Value` made, when it is not swept (`query_line.rs`).
    sg_body: Option<SgQuery>,
    sweep: Option<SweepCode>,
    /// The last `for` over a collection and its `if`s (`clauses[from..]`),
    /// when the body or a condition tests its items without binding them
    /// (`filter.rs`; with the sweeps, `Plans::sweeps`).
    filter: Option<ListFilter>,
}

/// The last clause of a comprehension with a body `sg(G(args))`, swept.
pub(crate) struct SweepCode {
    slot: Slot,
    start: Code,
    end: Code,
    inclusive: bool,
    clause_span: Span,
    game: GameId,
    statics: Vec<Code>,
    cached: Cell<Option<(u32, InstanceId)>>,
    /// The key of the positions: its shape, its number of arguments, and
    /// its coordinates (the items of list and tuple literals in place)
    /// that do not move with the binding (`None` at the one that does,
    /// `coord`).
    shape: Shape,
    n_args: u8,
    fixed: Vec<Option<Operand>>,
    /// When the comprehension's whole box is known, per coordinate bound
    /// by an outer loop: its range's end (and whether it is inclusive),
    /// so that the window is reserved once for the box.
    box_ends: Vec<Option<(Code, bool)>>,
    follow: Follow,
    /// The coordinates in the order the comprehension's loops move them,
    /// the fastest first: the memo window's layout (`Memo::lay_out`).
    order: SmallVec<[u8; MAX_COORDS]>,
    sg_span: Span,
    reading: Reading,
    /// `sg(pass(G(..), n))` or `sg(misere(G(..)))`: the line swept on the
    /// compound's layer of `G` (`search/layered.rs`), when it has one.
    layer: Option<LayerCode>,
    /// A square of two coordinates, this loop's and the one just outside
    /// it, over the same constant range: filled in shells when the game
    /// trades them or keeps them ordered (`fill_shells`).
    square: Option<Square>,
    /// The square's `(hi, lo)` when its first line filled the half of a
    /// game that trades them whole: its lines read that half.
    twins: Cell<Option<(usize, usize)>>,
}

/// How the line's coordinates follow its binding `k`.
enum Follow {
    /// One coordinate moves, as `Moving` says.
    One(usize, Moving),
    /// Arguments `min(k, e)` and `max(k, e)` (`Piece`), the others fixed:
    /// the line is cut where `k` passes an `e`, and on each piece one
    /// coordinate moves as `k` or none does.
    Pieces(Vec<Piece>),
}

/// An argument `min(k, e)` (or `max(k, e)`), `e` fixed for the line.
struct Piece {
    coord: usize,
    max: bool,
    other: Operand,
    /// The end of the loop binding `e`, when `e` is that binding and its
    /// range's end is constant: the window is reserved for the box.
    other_end: Option<(Code, bool)>,
}

impl Piece {
    /// The coordinate at `k`, with `e` at `e`.
    fn at(&self, k: i64, e: i64) -> i64 {
        if self.max {
            k.max(e)
        } else {
            k.min(e)
        }
    }
}

/// The loop just outside the swept one and its range's code, the two
/// together moving the coordinates `pair`: the outer loop's and the
/// swept one's, or, `sorted`, those of `max(k, e)` and `min(k, e)`, `e`
/// the outer binding (the body asks the triangle `pair.0 >= pair.1`).
struct Square {
    outer: Slot,
    pair: (usize, usize),
    sorted: bool,
    start: Code,
    end: Code,
    inclusive: bool,
}

/// The compound around a swept position.
enum LayerCode {
    /// `pass(G(..))`, or `pass(G(..), n)` with the count's code.
    Pass(Option<Code>),
    Misere,
}

impl LayerCode {
    /// The layer for this line; `None` when its elements go the general
    /// way (a pass count that is not one the layers keep: the query
    /// reports or values it).
    fn kind(&self, env: &mut Env) -> Fallible<Option<LayerKind>> {
        Ok(match self {
            LayerCode::Misere => Some(LayerKind::Misere),
            LayerCode::Pass(None) => Some(LayerKind::Pass(1)),
            LayerCode::Pass(Some(n)) => match n(env)? {
                // Past the layers kept: `Runtime::layer_refusal` says so.
                Value::Int(n) if n >= 1 => u32::try_from(n).ok().map(LayerKind::Pass),
                _ => None,
            },
        })
    }
}

/// What the body makes of a swept position's SG value.
enum Reading {
    /// `sg(G(..))`: the value.
    Sg,
    /// `outcome(G(..))`.
    Outcome,
    /// `q == c` or `c == q` (`equal`; `!=`: not), `q` the position's
    /// outcome (`outcome`) or its value, `c` a constant.
    Is {
        outcome: bool,
        c: Value,
        equal: bool,
    },
}

impl Reading {
    /// The body's reading of `sg(G(..))` or `outcome(G(..))`, with the
    /// query's arguments.
    fn of(body: &IrExpr) -> Option<(Reading, &[IrExpr])> {
        fn query(e: &IrExpr) -> Option<(bool, &[IrExpr])> {
            match &e.kind {
                IrKind::CallBuiltin {
                    builtin: b @ (Builtin::Sg | Builtin::Outcome),
                    args,
                } => Some((*b == Builtin::Outcome, &args[..])),
                _ => None,
            }
        }
        if let Some((outcome, args)) = query(body) {
            let reading = if outcome {
                Reading::Outcome
            } else {
                Reading::Sg
            };
            return Some((reading, args));
        }
        let IrKind::Binary {
            op: op @ (BinaryOp::Eq | BinaryOp::Ne),
            lhs,
            rhs,
            ..
        } = &body.kind
        else {
            return None;
        };
        let constant = |e: &IrExpr| match &e.kind {
            IrKind::Const(c) => Some(c.clone()),
            _ => None,
        };
        let ((outcome, args), c) = match (query(lhs), constant(rhs)) {
            (Some(q), Some(c)) => (q, c),
            _ => (query(rhs)?, constant(lhs)?),
        };
        let equal = *op == BinaryOp::Eq;
        Some((Reading::Is { outcome, c, equal }, args))
    }

    /// The body's value for the SG value `v` (not for `Sg`, which folds
    /// the value itself).
    #[inline]
    fn read(&self, sets: &InfSets, v: u64) -> Value {
        match self {
            Reading::Sg => sets.to_value(v),
            Reading::Outcome => Value::Outcome(sets.outcome(v)),
            Reading::Is { .. } => Value::Bool(self.test(sets, v)),
        }
    }

    /// An `Is` reading's answer for the SG value `v`.
    #[inline]
    fn test(&self, sets: &InfSets, v: u64) -> bool {
        let Reading::Is { outcome, c, equal } = self else {
            unreachable!("a test reads `Is`")
        };
        let same = match c {
            Value::Outcome(o) if *outcome => sets.outcome(v) == *o,
            Value::Int(n) if !outcome => !is_infinite(v) && i64::try_from(v) == Ok(*n),
            c if *outcome => Value::Outcome(sets.outcome(v)) == *c,
            c => sets.to_value(v) == *c,
        };
        same == *equal
    }
}

/// How the moving argument follows the binding `k`: one checked operation
/// with an operand fixed for the range, as its integer code computes it.
enum Moving {
    Same,
    Add(Operand),
    /// `k - e`
    Sub(Operand),
    /// `e - k`
    SubFrom(Operand),
    Mul(Operand),
}

impl Moving {
    /// The moving coordinate as `scale * k + add`, with its operand's
    /// value.
    fn at(&self, frame: &[Value]) -> Option<Affine> {
        let affine = |scale: i64, add: i128| Affine { scale, add };
        Some(match self {
            Moving::Same => affine(1, 0),
            Moving::Add(e) => affine(1, e.eval(frame)?.into()),
            Moving::Sub(e) => affine(1, -i128::from(e.eval(frame)?)),
            Moving::SubFrom(e) => affine(-1, e.eval(frame)?.into()),
            Moving::Mul(e) => affine(e.eval(frame)?, 0),
        })
    }
}

impl Compiler<'_> {
    /// A comprehension, with its last clause swept when it can be.
    pub(crate) fn comprehension(&self, comp: &IrComp) -> Comp {
        let mut clauses = self.clauses(comp);
        let sweep = self.sweep_code(comp);
        if sweep.is_some() {
            clauses.pop();
        }
        let filter = (sweep.is_none()).then(|| self.list_filter(comp)).flatten();
        let sg_body = (sweep.is_none() && filter.is_none())
            .then(|| self.sg_query(comp))
            .flatten();
        Comp {
            clauses,
            body: self.expr(&comp.body),
            sg_body,
            sweep,
            filter,
        }
    }

    fn sweep_code(&self, comp: &IrComp) -> Option<SweepCode> {
        let Some(IrClause::For(b)) = comp.clauses.last() else {
            return None;
        };
        let (slot, start, end, inclusive) = kernel::slot_range(b)?;
        let (reading, args) = Reading::of(&comp.body)?;
        let (layer, position) = self.layer_code(args.first()?, slot)?;
        let (game, statics, pargs) = self.keyed_position(position)?;
        if pargs.is_empty() || pargs.len() > MAX_ARGS as usize {
            return None;
        }
        let (mut fixed, mut moving, mut shape) = (Vec::new(), None, 0);
        let mut pieces = Vec::new();
        // How deep the loop binding each coordinate is (0: none).
        let (mut depth, mut box_ends) = (Vec::new(), Vec::new());
        // Whether the box is known: integer coordinates, each constant or
        // bound by a loop up to a constant, the swept one too (or up to
        // code of those loops' variables that rises with them).
        let outer = |s: Slot| {
            let local = IrExpr {
                kind: IrKind::Local(s),
                span: end.span,
            };
            let d = loop_depth(&comp.clauses, &local).checked_sub(1)?;
            let IrClause::For(b) = &comp.clauses[d] else {
                return None;
            };
            kernel::slot_range(b)
                .filter(|&(_, _, end, _)| constant(end))
                .map(|(_, _, end, _)| end.clone())
        };
        let mut swept_end = match constant(end) {
            true => None,
            false => self.swept_far_end(end, &outer),
        };
        let mut whole = constant(end) || swept_end.is_some();
        for (i, a) in pargs.iter().enumerate() {
            let (items, tag) = match &a.kind {
                IrKind::List(items) => (&items[..], Tag::List(items.len() as u32)),
                IrKind::Tuple(items) => (&items[..], Tag::Tuple(items.len() as u32)),
                _ => (std::slice::from_ref(a), Tag::Int),
            };
            shape = shape_push(shape, i as u8, tag)?;
            whole &= tag == Tag::Int;
            for e in items {
                if !mentions(e, slot) {
                    let d = loop_depth(&comp.clauses, e);
                    depth.push(d);
                    // Its loop's end, if arithmetic of constants (the same
                    // for every line, and cheap to evaluate again).
                    let box_end = match d.checked_sub(1).map(|d| &comp.clauses[d]) {
                        Some(IrClause::For(b)) => (kernel::slot_range(b))
                            .filter(|&(_, _, end, _)| constant(end))
                            .map(|(_, _, end, inclusive)| (self.range_end(end), inclusive)),
                        _ => None,
                    };
                    whole &= box_end.is_some() || constant(e);
                    box_ends.push(box_end);
                    fixed.push(Some(self.operand(e)?));
                    continue;
                }
                depth.push(comp.clauses.len() + 1);
                if let Some(piece) = self.piece(&comp.clauses, e, slot, fixed.len()) {
                    box_ends.push(None);
                    pieces.push(piece);
                    fixed.push(None);
                    continue;
                }
                box_ends.push(swept_end.take().map(|end| (end, true)));
                if moving.is_some() {
                    return None;
                }
                moving = Some((fixed.len(), self.moving(e, slot)?));
                fixed.push(None);
            }
        }
        if fixed.len() > MAX_COORDS {
            return None;
        }
        let follow = match (moving, pieces.is_empty()) {
            (Some((coord, moving)), true) => Follow::One(coord, moving),
            (None, false) => Follow::Pieces(pieces),
            _ => return None,
        };
        let square = self.square(comp, pargs, (start, end), &follow);
        let mut order: SmallVec<[u8; MAX_COORDS]> =
            default_order(shape, fixed.len())[..fixed.len()].into();
        order.sort_by_key(|&c| std::cmp::Reverse(depth[c as usize]));
        Some(SweepCode {
            slot,
            start: self.range_end(start),
            end: self.range_end(end),
            inclusive,
            clause_span: b.iterable.span,
            game,
            statics: self.exprs(statics),
            cached: Cell::new(None),
            shape,
            n_args: pargs.len() as u8,
            fixed,
            box_ends: if whole { box_ends } else { Vec::new() },
            follow,
            order,
            sg_span: comp.body.span,
            reading,
            layer,
            square,
            twins: Cell::new(None),
        })
    }

    /// The `Square` of a sweep when the clause before it is a loop over
    /// a constant range (the same as its own, checked as the sweep runs)
    /// and either the moving coordinate is the binding itself and the
    /// outer binding another coordinate, bare, or the arguments are
    /// `min` and `max` of the two bindings: its lines then cover the
    /// square (or its triangle), whatever order its positions are valued
    /// in.
    fn square(
        &self,
        comp: &IrComp,
        pargs: &[IrExpr],
        (start, end): (&IrExpr, &IrExpr),
        follow: &Follow,
    ) -> Option<Square> {
        let [.., IrClause::For(outer), _] = &comp.clauses[..] else {
            return None;
        };
        let (slot, o_start, o_end, o_inclusive) = kernel::slot_range(outer)?;
        // Constant ranges: the sweep compares their values once.
        if ![start, end, o_start, o_end].iter().all(|e| constant(e)) {
            return None;
        }
        let (pair, sorted) = match follow {
            Follow::One(coord, Moving::Same) => {
                let bare = |a: &IrExpr| matches!(a.kind, IrKind::Local(s) if s == slot);
                ((pargs.iter().position(bare)?, *coord), false)
            }
            Follow::One(..) => return None,
            Follow::Pieces(pieces) => {
                let of = |max: bool| {
                    let outer = |p: &&Piece| matches!(p.other, Operand::Local(s) if s == slot);
                    let mut it = pieces.iter().filter(outer).filter(|p| p.max == max);
                    it.next().map(|p| p.coord)
                };
                ((of(true)?, of(false)?), true)
            }
        };
        Some(Square {
            outer: slot,
            pair,
            sorted,
            start: self.expr(o_start),
            end: self.expr(o_end),
            inclusive: o_inclusive,
        })
    }

    /// `e` as a `Piece` of coordinate `coord`: `min` or `max` of the
    /// binding `k` and code free of it.
    fn piece(&self, clauses: &[IrClause], e: &IrExpr, k: Slot, coord: usize) -> Option<Piece> {
        let IrKind::CallBuiltin {
            builtin: b @ (Builtin::Min | Builtin::Max),
            args,
        } = &e.kind
        else {
            return None;
        };
        let is_k = |a: &IrExpr| matches!(a.kind, IrKind::Local(s) if s == k);
        let other = match &args[..] {
            [x, o] | [o, x] if is_k(x) && !mentions(o, k) => o,
            _ => return None,
        };
        let other_end = match loop_depth(clauses, other)
            .checked_sub(1)
            .map(|d| &clauses[d])
        {
            Some(IrClause::For(b)) => (kernel::slot_range(b))
                .filter(|&(_, _, end, _)| constant(end))
                .map(|(_, _, end, inclusive)| (self.expr(end), inclusive)),
            _ => None,
        };
        Some(Piece {
            coord,
            max: *b == Builtin::Max,
            other: self.operand(other)?,
            other_end,
        })
    }

    /// The compound of `e` around a position, and the position; `None`
    /// for any other compound, or a pass count that moves with `slot`.
    fn layer_code<'e>(&self, e: &'e IrExpr, slot: Slot) -> Option<(Option<LayerCode>, &'e IrExpr)> {
        let IrKind::CallBuiltin { builtin, args } = &e.kind else {
            return Some((None, e));
        };
        match (builtin, &args[..]) {
            (Builtin::Pass, [p]) => Some((Some(LayerCode::Pass(None)), p)),
            (Builtin::Pass, [p, n]) if !mentions(n, slot) => {
                Some((Some(LayerCode::Pass(Some(self.expr(n)))), p))
            }
            (Builtin::Misere, [p]) => Some((Some(LayerCode::Misere), p)),
            _ => None,
        }
    }

    /// `e` as a `Moving` form of the binding `k`, read on its tree.
    fn moving(&self, e: &IrExpr, k: Slot) -> Option<Moving> {
        let is_k = |x: &IntNode| matches!(*x, IntNode::Local(s) if s == k);
        let e = self.int_tree(e).ok()?;
        if is_k(&e) {
            return Some(Moving::Same);
        }
        let IntNode::Binary(IntOp::Op(op), lhs, rhs) = &e else {
            return None;
        };
        let other = |x: &IntNode| (!x.reads(k)).then(|| node_operand(x));
        match op {
            BinaryOp::Add if is_k(lhs) => Some(Moving::Add(other(rhs)?)),
            BinaryOp::Add if is_k(rhs) => Some(Moving::Add(other(lhs)?)),
            BinaryOp::Sub if is_k(lhs) => Some(Moving::Sub(other(rhs)?)),
            BinaryOp::Sub if is_k(rhs) => Some(Moving::SubFrom(other(lhs)?)),
            BinaryOp::Mul if is_k(lhs) => Some(Moving::Mul(other(rhs)?)),
            BinaryOp::Mul if is_k(rhs) => Some(Moving::Mul(other(lhs)?)),
            _ => None,
        }
    }
}

/// Whether `e` is arithmetic of constants and top-level constants.
fn constant(e: &IrExpr) -> bool {
    match &e.kind {
        IrKind::Const(_) | IrKind::Global(_) => true,
        IrKind::Unary(_, x) => constant(x),
        IrKind::Binary { lhs, rhs, .. } => constant(lhs) && constant(rhs),
        _ => false,
    }
}

/// The depth of the loop among `clauses` that binds `e` if it is a bare
/// local (the first loop 1, the next 2, ...), else 0.
fn loop_depth(clauses: &[IrClause], e: &IrExpr) -> usize {
    let IrKind::Local(s) = e.kind else {
        return 0;
    };
    let binds = |c: &IrClause| matches!(c, IrClause::For(b) if matches!(b.pattern, IrPattern::Slot { slot, .. } if slot == s));
    clauses.iter().position(binds).map_or(0, |d| d + 1)
}

impl Comp {
    /// Runs the comprehension, giving `f` the body's value for every
    /// binding, in order; `f` returns false to stop. False if stopped.
    /// Generic in `f`, so that a sweep's loop holds the aggregate inline.
    pub(crate) fn for_each<F: Fold>(&self, env: &mut Env, f: &mut F) -> Fallible<bool> {
        if let Some(filter) = (self.filter.as_ref()).filter(|_| env.rt.limits.plans.sweeps) {
            let outer = &self.clauses[..filter.from];
            if outer.is_empty() {
                return filter.run(env, &self.body, f);
            }
            return run_comprehension(env, outer, &mut |env| filter.run(env, &self.body, f));
        }
        let Some(sweep) = &self.sweep else {
            if let Some(sg) = &self.sg_body {
                return sg.run(env, &self.clauses, &self.body, f);
            }
            return run_comprehension(env, &self.clauses, &mut |env| {
                let v = (self.body)(env)?;
                f.value(env, v)
            });
        };
        if self.clauses.is_empty() {
            // The swept clause is the first: it reports the progress.
            let track = !env.tracking;
            return sweep.run(env, &self.body, track, f);
        }
        run_comprehension(env, &self.clauses, &mut |env| {
            sweep.run(env, &self.body, false, f)
        })
    }

    /// The body's values in order; `span`, the comprehension, is where
    /// running out of memory points.
    pub(crate) fn collect(&self, env: &mut Env, span: Span) -> Fallible<Vec<Value>> {
        let mut out = Collect {
            items: Vec::new(),
            span,
        };
        self.for_each(env, &mut out)?;
        Ok(out.items)
    }
}

/// A swept clause's elements to a `Fold`: values as SG values, the others
/// through the body's code with the binding set.
struct Swept<'c, 'f, F> {
    body: &'c Code,
    reading: &'c Reading,
    slot: Slot,
    /// The progress to report, and the range's start.
    progress: Option<(&'c Progress, i64)>,
    fold: &'f mut F,
}

impl<F: Fold> LineSink for Swept<'_, '_, F> {
    #[inline(always)]
    fn value(&mut self, env: &mut Env, _: i64, v: u64) -> Fallible<bool> {
        if let Reading::Sg = self.reading {
            return self.fold.sg(env, v);
        }
        let v = self.reading.read(&env.rt.inf_sets.borrow(), v);
        self.fold.value(env, v)
    }

    /// Tests of the values, read with the sets borrowed once, or values
    /// a fold takes as blocks.
    fn blocks(&self) -> bool {
        F::BLOCKS || (F::BOOLS && !matches!(self.reading, Reading::Sg))
    }

    /// A block of known values: read with the sets borrowed once, tests
    /// handed over as booleans.
    fn values(&mut self, env: &mut Env, _: i64, vs: &[u64]) -> Fallible<Option<usize>> {
        let tests = match self.reading {
            Reading::Sg => return self.fold.sgs(env, vs),
            Reading::Outcome => return self.each(env, vs),
            reading @ Reading::Is { outcome, c, equal } => {
                let sets = env.rt.inf_sets.borrow();
                let mut tests = [false; BLOCK];
                let tests_of = tests.iter_mut().zip(vs);
                match c {
                    // An outcome compared: the test's match made once.
                    Value::Outcome(o) if *outcome => {
                        tests_of.for_each(|(t, &v)| *t = (sets.outcome(v) == *o) == *equal)
                    }
                    _ => tests_of.for_each(|(t, &v)| *t = reading.test(&sets, v)),
                }
                tests
            }
        };
        for (j, &t) in tests[..vs.len()].iter().enumerate() {
            if !self.fold.bool(env, t)? {
                return Ok(Some(j + 1));
            }
        }
        Ok(None)
    }

    fn general(&mut self, env: &mut Env, k: i64) -> Fallible<bool> {
        env.set_local_int(self.slot, k);
        let v = (self.body)(env)?;
        self.fold.value(env, v)
    }

    #[inline]
    fn reached(&mut self, k: i64) {
        if let Some((p, a)) = self.progress {
            p.done.store(
                k.wrapping_sub(a) as u64,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
    }
}

impl<F: Fold> Swept<'_, '_, F> {
    /// `vs` one by one, as `value` takes them.
    fn each(&mut self, env: &mut Env, vs: &[u64]) -> Fallible<Option<usize>> {
        for (j, &v) in vs.iter().enumerate() {
            if !self.value(env, 0, v)? {
                return Ok(Some(j + 1));
            }
        }
        Ok(None)
    }
}

/// The positions of a square filled ahead of its lines (`fill_shells`):
/// their values are stored in the memo, nothing else; an element the
/// sweep hands back stops the filling.
struct Ahead;

impl LineSink for Ahead {
    fn value(&mut self, _: &mut Env, _: i64, _: u64) -> Fallible<bool> {
        Ok(true)
    }

    fn general(&mut self, _: &mut Env, _: i64) -> Fallible<bool> {
        Ok(false)
    }

    fn reached(&mut self, _: i64) {}
}

/// Every element of `ks` asked the general way, ticked as the asking
/// loop ticks.
fn sweep_general<S: LineSink>(
    env: &mut Env,
    ks: std::ops::Range<i64>,
    sink: &mut S,
    span: Span,
) -> Fallible<bool> {
    for k in ks {
        sink.reached(k);
        env.tick(span)?;
        if !sink.general(env, k)? {
            return Ok(false);
        }
    }
    Ok(true)
}

impl SweepCode {
    /// The instance of the compound `layer` of `base`'s positions, laid
    /// out as the sweep lays out its own window (the position below a
    /// pass is read at the same coordinates), with the instance below a
    /// pass; `None` when the compound
    /// has no layer (`Runtime::layer_refusal`): the query asks the
    /// product search.
    fn layered(
        &self,
        env: &mut Env,
        layer: &LayerCode,
        base: InstanceId,
        order: &[u8],
    ) -> Fallible<Option<(InstanceId, Option<InstanceId>)>> {
        let Some(kind) = layer.kind(env)? else {
            return Ok(None);
        };
        let layer = Layer { base, kind };
        if env.rt.layer_refusal(layer).is_some() {
            return Ok(None);
        }
        let below = match kind {
            LayerKind::Pass(n) if n > 1 => Some(env.rt.layered_instance(Layer {
                base,
                kind: LayerKind::Pass(n - 1),
            })),
            LayerKind::Pass(_) => Some(base),
            LayerKind::Misere => None,
        };
        if let Some(below) = below {
            let inst = env.rt.instance(below);
            inst.memo.borrow_mut().lay_out(self.shape, order);
        }
        Ok(Some((env.rt.layered_instance(layer), below)))
    }

    /// The coordinates `(hi, lo)` of a square (`Square`) to fill in
    /// shells of `hi`, each a line of `lo` up to it, at the square's
    /// first line: when `G` trades the two coordinates (`traded_pair`: an
    /// option of `G(a, b)` may lie in any row up to `max(a, b)`, as a
    /// split's do), the half with its first argument at least its second,
    /// whose twins its runs read (`search/kernel.rs`, `canonical_half`);
    /// when the body asks `G(.., min(a, b), .., max(a, b))` of a `G` whose
    /// `where` keeps the two ordered, that triangle, each of whose
    /// positions the square asks twice. Swept row by row instead, a row's
    /// positions ask for options in rows after it, searched one by one.
    fn shells(
        &self,
        env: &mut Env,
        square: &Square,
        instance: InstanceId,
        ks: &std::ops::Range<i64>,
    ) -> Option<(usize, usize)> {
        let ints = |c: &Code, env: &mut Env| match c(env) {
            Ok(Value::Int(x)) => Some(x),
            _ => None,
        };
        let outer = ints(&square.start, env).zip(ints(&square.end, env));
        let outer = outer.map(|(a, b)| a..b.saturating_add(i64::from(square.inclusive)));
        let first = matches!(env.local(square.outer), Value::Int(x) if *x == ks.start);
        if outer.as_ref() != Some(ks) || !first {
            return None;
        }
        let inst = env.rt.instance(instance);
        let g = &inst.game;
        let (p, c) = square.pair;
        if let Some(pair) = g.kernel.as_ref().and_then(traded_pair) {
            return (pair == (p.min(c), p.max(c))).then_some(pair);
        }
        let ordered = g.where_line.as_ref().is_some_and(|w| w.orders(c, p));
        (square.sorted && ordered).then_some((p, c))
    }

    /// Values the positions of `instance` with coordinate `hi` at least
    /// `lo`, in shells of `hi` (`shells`), each shell a line of `lo` swept
    /// up to `hi` within the `where`: each position's options are then
    /// valued already, a few lines of memory per shell. The lines then
    /// read these values, or their twins'. Filling stops at the first
    /// position it cannot value plainly, or an error, which the lines
    /// then meet as they would.
    fn fill_shells(
        &self,
        env: &mut Env,
        instance: InstanceId,
        (hi, lo): (usize, usize),
        coords: &[i64],
        ks: std::ops::Range<i64>,
    ) -> bool {
        let mut shell: SmallVec<[i64; MAX_COORDS]> = coords.into();
        for m in ks.clone() {
            shell[hi] = m;
            let mut to_m = ks.start..m.saturating_add(1);
            let within = {
                let inst = env.rt.instance(instance);
                let g = &inst.game;
                let w = g.where_line.as_ref().filter(|_| g.where_clause.is_some());
                w.and_then(|w| w.interval(&shell, lo))
            };
            if let Some((a, b)) = within {
                to_m = to_m.start.max(a)..to_m.end.min(b.saturating_add(1));
            }
            let line = SweepLine {
                instance,
                shape: self.shape,
                n_args: self.n_args,
                coords: &mut shell,
                coord: lo,
                tick_span: self.clause_span,
                span: self.sg_span,
            };
            if !matches!(
                sweep_line(env, line, to_m, Affine { scale: 1, add: 0 }, &mut Ahead),
                Ok(true)
            ) {
                return false;
            }
        }
        true
    }

    /// Runs the swept clause, as `run_clauses` would run it (`track`: it is
    /// the comprehension's first loop).
    fn run<F: Fold>(&self, env: &mut Env, body: &Code, track: bool, f: &mut F) -> Fallible<bool> {
        let span = self.clause_span;
        let a = expect_int(&(self.start)(env)?, span)?;
        let b = expect_int(&(self.end)(env)?, span)?;
        let b = if self.inclusive {
            b.saturating_add(1)
        } else {
            b
        };
        let progress = env.rt.progress.clone();
        if track {
            env.track_line(b.saturating_sub(a).max(0) as u64);
        }
        let mut sink = Swept {
            body,
            reading: &self.reading,
            slot: self.slot,
            progress: track.then_some((&*progress, a)),
            fold: f,
        };
        let result = self.sweep(env, a..b, &mut sink);
        if track {
            env.untrack_line();
        }
        result
    }

    /// `far` (a line's far corner) taken out to the box's ends where
    /// they are known (`box_ends`).
    fn box_far(&self, env: &mut Env, far: &mut [i64; MAX_COORDS]) {
        for (x, end) in far.iter_mut().zip(&self.box_ends) {
            if let Some((end, inclusive)) = end {
                if let Ok(Value::Int(end)) = end(env) {
                    *x = (*x).max(end.saturating_sub(i64::from(!inclusive)));
                }
            }
        }
    }

    fn sweep<F: Fold>(
        &self,
        env: &mut Env,
        ks: std::ops::Range<i64>,
        sink: &mut Swept<'_, '_, F>,
    ) -> Fallible<bool> {
        let mut coords = [0i64; MAX_COORDS];
        let n = self.fixed.len();
        let fixed = self
            .fixed
            .iter()
            .zip(coords.iter_mut())
            .all(|(e, x)| match e {
                Some(e) => e.eval(env.frame()).map(|v| *x = v).is_some(),
                None => true,
            });
        // The moving coordinate's map, or the pieces' `e`s.
        let (map, es): (_, Option<SmallVec<[i64; MAX_COORDS]>>) = match &self.follow {
            Follow::One(_, moving) => (moving.at(env.frame()), Some(SmallVec::new())),
            Follow::Pieces(ps) => {
                let es = ps.iter().map(|p| p.other.eval(env.frame()));
                (Some(Affine { scale: 1, add: 0 }), es.collect())
            }
        };
        let (Some(map), Some(es), true) = (map, es, fixed) else {
            // Not integers: every element the general way.
            return sweep_general(env, ks, sink, self.clause_span);
        };
        let mut instance = site_instance(env, (self.game, &self.statics, &self.cached), true)?;
        // A layer has its game's rules: asked of the game itself.
        let shells = (self.square.as_ref()).and_then(|sq| self.shells(env, sq, instance, &ks));
        // A square filled in shells is laid out with its shells' lines
        // along the fastest coordinate.
        let mut shell_order;
        let order = match shells {
            Some((_, lo)) => {
                shell_order = self.order.clone();
                shell_order.retain(|c| *c as usize != lo);
                shell_order.insert(0, lo as u8);
                &shell_order[..]
            }
            None => &self.order[..],
        };
        let mut below = None;
        if let Some(layer) = &self.layer {
            match self.layered(env, layer, instance, order)? {
                Some((id, under)) => (instance, below) = (id, under),
                None => return sweep_general(env, ks, sink, self.clause_span),
            }
        }
        // The window takes the whole line, and the box where the loops'
        // ranges are known, at once, not by doublings that copy it (and
        // hold the old copy beside the new); the box's ends are evaluated
        // only for a line the window does not hold yet. The layer below a
        // pass is read at every position of the line: reserved too.
        let mut far = coords;
        let ends = (!ks.is_empty()).then(|| map.at(ks.start).zip(map.at(ks.end - 1)));
        match &self.follow {
            Follow::One(coord, _) => {
                if let Some(Some((x, y))) = ends {
                    far[*coord] = x.max(y);
                }
            }
            Follow::Pieces(ps) => {
                for (p, &e) in ps.iter().zip(&es) {
                    let box_end =
                        (p.other_end.as_ref()).and_then(|(end, inclusive)| match end(env) {
                            Ok(Value::Int(end)) => Some(end.saturating_sub(i64::from(!inclusive))),
                            _ => None,
                        });
                    far[p.coord] = p.at(ks.end.saturating_sub(1), e.max(box_end.unwrap_or(e)));
                }
            }
        }
        let line_known = matches!(ends, Some(Some(_)));
        let mut boxed = false;
        for id in [Some(instance), below].into_iter().flatten() {
            let inst = env.rt.instance(id);
            let held = {
                let mut memo = inst.memo.borrow_mut();
                memo.lay_out(self.shape, order);
                !line_known || memo.holds(self.shape, &far[..n])
            };
            if !held {
                if !boxed {
                    boxed = true;
                    self.box_far(env, &mut far);
                }
                inst.memo.borrow_mut().reserve(self.shape, &far[..n]);
            }
        }
        let square = self.square.as_ref();
        let sorted = square.is_some_and(|s| s.sorted);
        if square.is_some_and(|s| matches!(env.local(s.outer), Value::Int(x) if *x == ks.start)) {
            self.twins.set(None);
        }
        if let Some(pair) = shells {
            // The layer below first, as its own table: the layer's
            // positions then read it in place, one window at a time.
            let mut filled = !sorted;
            for id in [below, Some(instance)].into_iter().flatten() {
                filled &= self.fill_shells(env, id, pair, &coords[..n], ks.clone());
            }
            self.twins.set(shells.filter(|_| filled));
        }
        // The line's cuts: `(coordinate, max, e)` for `max(k, e)` (or
        // `min`). A square of twins filled whole is read in the half
        // filled, at `(max(k, e), min(k, e))`, `e` the outer binding: a
        // twin has the position's value, and both are positions or
        // neither.
        let cuts: SmallVec<[(usize, bool, i64); 2]> = match (&self.follow, self.twins.get()) {
            (Follow::Pieces(ps), _) => (ps.iter().zip(&es))
                .map(|(p, &e)| (p.coord, p.max, e))
                .collect(),
            (Follow::One(coord, _), Some((hi, lo))) => {
                let e = coords[hi + lo - coord];
                [(hi, true, e), (lo, false, e)].into_iter().collect()
            }
            (Follow::One(coord, _), _) => {
                let line = SweepLine {
                    instance,
                    shape: self.shape,
                    n_args: self.n_args,
                    coords: &mut coords[..n],
                    coord: *coord,
                    tick_span: self.clause_span,
                    span: self.sg_span,
                };
                return sweep_line(env, line, ks, map, sink);
            }
        };
        // The line cut where `k` reaches an `e`: on each piece every
        // `min(k, e)` and `max(k, e)` is `k` throughout or `e` throughout.
        let mut ends: SmallVec<[i64; MAX_COORDS]> = (cuts.iter())
            .map(|c| c.2)
            .filter(|e| ks.contains(e))
            .collect();
        ends.push(ks.end);
        ends.sort_unstable();
        let mut from = ks.start;
        for to in ends {
            if from >= to {
                continue;
            }
            let mut moving = SmallVec::<[usize; 2]>::new();
            for &(coord, max, e) in &cuts {
                match if max { from >= e } else { to <= e } {
                    true => moving.push(coord),
                    false => coords[coord] = e,
                }
            }
            let done = match moving[..] {
                [coord] => {
                    let line = SweepLine {
                        instance,
                        shape: self.shape,
                        n_args: self.n_args,
                        coords: &mut coords[..n],
                        coord,
                        tick_span: self.clause_span,
                        span: self.sg_span,
                    };
                    sweep_line(env, line, from..to, map, sink)?
                }
                // No coordinate moves, or two: the general way.
                _ => sweep_general(env, from..to, sink, self.clause_span)?,
            };
            if !done {
                return Ok(false);
            }
            from = to;
        }
        Ok(true)
    }
}
