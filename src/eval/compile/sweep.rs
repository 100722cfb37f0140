//! Comprehensions that ask a table of SG values along a range:
//! `[sg(G(x, n)) for x in .., n in a..b]`, `histogram(sg(G(n)) for n in
//! 0..=N)`. When the last clause ranges over integers and the body is
//! `sg(G(args))` with one argument moving with the binding (`n`, `n + e`,
//! `e - n`, `n * e`) and the others integers fixed for the range, the range
//! is handed to the search's sweep (`line_sweep::sweep_line`), which values the
//! whole line in one loop; any element the sweep cannot value plainly is
//! asked through the body's own code, so values and errors are the same.

use std::cell::Cell;

use super::*;

/// A compiled comprehension: its clauses and body, and the sweep of its
/// last clause when it has one (`clauses` then holds the others).
pub(crate) struct Comp {
    clauses: Vec<CClause>,
    body: Code,
    sweep: Option<SweepCode>,
}

/// The last clause of a comprehension with a body `sg(G(args))`, swept.
pub(crate) struct SweepCode {
    slot: Slot,
    start: Code,
    end: Code,
    inclusive: bool,
    clause_span: Span,
    game: GameId,
    cached: Cell<Option<(u32, InstanceId)>>,
    /// The arguments that do not move with the binding (`None` at the
    /// one that does, `coord`).
    fixed: Vec<Option<Operand>>,
    coord: usize,
    moving: Moving,
    sg_span: Span,
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
    /// The operation with its operand's value.
    fn at(&self, frame: &[Value]) -> Option<(BinaryOp, i64, bool)> {
        Some(match self {
            Moving::Same => (BinaryOp::Add, 0, false),
            Moving::Add(e) => (BinaryOp::Add, e.eval(frame)?, false),
            Moving::Sub(e) => (BinaryOp::Sub, e.eval(frame)?, false),
            Moving::SubFrom(e) => (BinaryOp::Sub, e.eval(frame)?, true),
            Moving::Mul(e) => (BinaryOp::Mul, e.eval(frame)?, false),
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
        Comp {
            clauses,
            body: self.expr(&comp.body),
            sweep,
        }
    }

    fn sweep_code(&self, comp: &IrComp) -> Option<SweepCode> {
        let Some(IrClause::For(b)) = comp.clauses.last() else {
            return None;
        };
        let (slot, start, end, inclusive) = kernel::slot_range(b)?;
        let IrKind::CallBuiltin {
            builtin: Builtin::Sg,
            args,
        } = &comp.body.kind
        else {
            return None;
        };
        let (game, pargs) = self.keyed_position(args.first()?)?;
        if pargs.is_empty() || pargs.len() > MAX_ARGS as usize {
            return None;
        }
        let mut fixed = Vec::new();
        let mut moving = None;
        for (i, a) in pargs.iter().enumerate() {
            if !mentions(a, slot) {
                fixed.push(Some(self.operand(a)?));
                continue;
            }
            if moving.is_some() {
                return None;
            }
            fixed.push(None);
            moving = Some((i, self.moving(a, slot)?));
        }
        let (coord, moving) = moving?;
        Some(SweepCode {
            slot,
            start: self.expr(start),
            end: self.expr(end),
            inclusive,
            clause_span: b.iterable.span,
            game,
            cached: Cell::new(None),
            fixed,
            coord,
            moving,
            sg_span: comp.body.span,
        })
    }

    /// `e` as a `Moving` form of the binding `k`.
    fn moving(&self, e: &IrExpr, k: Slot) -> Option<Moving> {
        let is_k = |x: &IrExpr| matches!(x.kind, IrKind::Local(s) if s == k);
        if is_k(e) {
            return Some(Moving::Same);
        }
        let IrKind::Binary { op, lhs, rhs, .. } = &e.kind else {
            return None;
        };
        let other = |x: &IrExpr| {
            if mentions(x, k) {
                None
            } else {
                self.operand(x)
            }
        };
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

impl Comp {
    /// Runs the comprehension, giving `f` the body's value for every
    /// binding, in order; `f` returns false to stop. False if stopped.
    /// Generic in `f`, so that a sweep's loop holds the aggregate inline.
    pub(crate) fn for_each<F>(&self, env: &mut Env, f: &mut F) -> Fallible<bool>
    where
        F: FnMut(&mut Env, Value) -> Fallible<bool>,
    {
        let Some(sweep) = &self.sweep else {
            return run_comprehension(env, &self.clauses, &mut |env| {
                let v = (self.body)(env)?;
                f(env, v)
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

    /// The body's values in order.
    pub(crate) fn collect(&self, env: &mut Env) -> Fallible<Vec<Value>> {
        let mut out = Vec::new();
        self.for_each(env, &mut |_, v| {
            out.push(v);
            Ok(true)
        })?;
        Ok(out)
    }
}

impl SweepCode {
    /// Runs the swept clause, as `run_clauses` would run it (`track`: it is
    /// the comprehension's first loop).
    fn run<F>(&self, env: &mut Env, body: &Code, track: bool, f: &mut F) -> Fallible<bool>
    where
        F: FnMut(&mut Env, Value) -> Fallible<bool>,
    {
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
            use std::sync::atomic::Ordering::Relaxed;
            progress.done.store(0, Relaxed);
            progress
                .total
                .store(b.saturating_sub(a).max(0) as u64, Relaxed);
            env.tracking = true;
        }
        let result = self.sweep(env, body, a..b, track.then_some(&*progress), f);
        if track {
            env.tracking = false;
            progress
                .total
                .store(0, std::sync::atomic::Ordering::Relaxed);
        }
        result
    }

    fn sweep<F>(
        &self,
        env: &mut Env,
        body: &Code,
        ks: std::ops::Range<i64>,
        progress: Option<&Progress>,
        f: &mut F,
    ) -> Fallible<bool>
    where
        F: FnMut(&mut Env, Value) -> Fallible<bool>,
    {
        let a = ks.start;
        let slot = self.slot;
        let mut each = |env: &mut Env, k: i64, v: Option<u64>| {
            if let Some(p) = progress {
                p.done
                    .store((k - a) as u64, std::sync::atomic::Ordering::Relaxed);
            }
            let v = match v {
                Some(v) => Value::Int(v as i64),
                None => {
                    env.set_local_int(slot, k);
                    body(env)?
                }
            };
            f(env, v)
        };
        let mut coords = [0i64; MAX_ARGS as usize];
        let n = self.fixed.len();
        let fixed = self
            .fixed
            .iter()
            .zip(coords.iter_mut())
            .all(|(e, x)| match e {
                Some(e) => e.eval(env.frame()).map(|v| *x = v).is_some(),
                None => true,
            });
        let moving = self.moving.at(env.frame());
        let (Some((op, e, flipped)), true) = (moving, fixed) else {
            // Not integers: every element the general way.
            for k in ks {
                env.tick(self.clause_span)?;
                if !each(env, k, None)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        };
        let line = SweepLine {
            instance: self.instance(env),
            coords: &mut coords[..n],
            coord: self.coord,
            tick_span: self.clause_span,
            span: self.sg_span,
        };
        match (op, flipped) {
            (BinaryOp::Add, _) => sweep_line(env, line, ks, |k| k.checked_add(e), &mut each),
            (BinaryOp::Sub, false) => sweep_line(env, line, ks, |k| k.checked_sub(e), &mut each),
            (BinaryOp::Sub, true) => sweep_line(env, line, ks, |k| e.checked_sub(k), &mut each),
            _ => sweep_line(env, line, ks, |k| k.checked_mul(e), &mut each),
        }
    }

    fn instance(&self, env: &mut Env) -> InstanceId {
        let generation = env.rt.generation.get();
        match self.cached.get() {
            Some((g, id)) if g == generation => id,
            _ => {
                let id = env.rt.user_instance(self.game, Rc::from(Vec::new()));
                self.cached.set(Some((generation, id)));
                id
            }
        }
    }
}
