//! `sg(...)` and `outcome(...)` of a game written from positions, sums
//! and compounds, e.g. `sg(pass(Heap(a) + Heap(b) + Heap(c)))`: answered
//! from the positions' keys (the memo for a sum, the product memo for a
//! compound), with no game value built per query. A position that fails
//! its `where`, arguments that do not flatten, or a bad pass count send
//! the query the general way, which reports them.

use std::cell::Cell;

use smallvec::SmallVec;

use super::calls::{keyed_sg, site_instance, write_keyed};
use super::clauses::CondCode;
use super::compiler::Compiler;
use super::int_tree::mentions;
use super::moves::{sum_terms, ArgWriter};
use super::runtime::{Code, Env, LayerKind};
use super::where_check::is_keyed_position;
use crate::diag::Fallible;
use crate::eval::builtins::Builtin;
use crate::eval::memo::{int_shape, Key};
use crate::eval::product_tables::{
    ProductTables, RootKey, CONJUNCTIVE, COUNTER, DENSE_LEN, KIND, MISERE, PASS, SELECTIVE,
};
use crate::eval::value::{InstanceId, Value};
use crate::ir::ir::*;
use crate::syntax::ast::BinaryOp;
use crate::syntax::Span;

/// Code giving an SG value with no `Value` made: `Ok(None)` when the
/// general path (the expression's own code) must answer.
pub(crate) type SgCode = Box<dyn Fn(&mut Env) -> Fallible<Option<u64>>>;

/// A comprehension's body as an SG value (`Compiler::sg_body`): kept as
/// a tree, so that a loop over its innermost binding (`query_line.rs`)
/// can decide once per line what does not read that binding.
pub(crate) enum SgBody {
    /// `sg` of one position (its memo), asked element by element.
    Element(SgCode),
    /// `sg` of a sum or compound of positions.
    Plan(GamePlan, Span),
    /// `if cond then A else B`; `fixed` when `cond` does not read the
    /// innermost binding.
    If {
        cond: CondCode,
        fixed: bool,
        then: Box<SgBody>,
        otherwise: Box<SgBody>,
    },
}

impl SgBody {
    /// The value for the current bindings; `Ok(None)` when the body's own
    /// code must answer.
    pub(crate) fn eval(&self, env: &mut Env) -> Fallible<Option<u64>> {
        match self {
            SgBody::Element(code) => code(env),
            SgBody::Plan(plan, span) => plan.sg(env, *span),
            SgBody::If {
                cond,
                then,
                otherwise,
                ..
            } => match cond(env)? {
                true => then.eval(env),
                false => otherwise.eval(env),
            },
        }
    }

    /// What answers the elements of a line of the innermost binding
    /// `slot` with the outer bindings as they are: the branch its fixed
    /// `if`s take, a plan's positions that do not move found once. `None`
    /// when every element goes through `eval` (a condition that reads
    /// the binding, one position, or anything that fails or needs the
    /// general path, which reports it per element).
    pub(crate) fn line(&self, env: &mut Env, slot: Slot) -> Option<PlanLine<'_>> {
        match self {
            SgBody::Plan(plan, span) => plan.line(env, slot, *span),
            SgBody::If {
                cond,
                fixed: true,
                then,
                otherwise,
            } => match cond(env).ok()? {
                true => then.line(env, slot),
                false => otherwise.line(env, slot),
            },
            _ => None,
        }
    }
}

impl Compiler<'_> {
    /// The SG value of the game `e` from its positions' keys, when it is a
    /// position of a game whose static arguments are fixed (the memo), or
    /// a sum or compound of such (`GamePlan`, the product memo): what
    /// `sg(e)` and `outcome(e)` ask, with no game value built; `span` is
    /// the query's.
    pub(crate) fn query_code(&self, e: &IrExpr, span: Span) -> Option<SgCode> {
        if let Some(code) = self.position_code(e, span) {
            return Some(code);
        }
        let plan = self.game_plan(e, None)?;
        Some(Box::new(move |env| plan.sg(env, span)))
    }

    /// `query_code` of one position.
    fn position_code(&self, e: &IrExpr, span: Span) -> Option<SgCode> {
        let (game, statics, args) = self.keyed_position(e)?;
        let statics = self.exprs(statics);
        let writers: Vec<ArgWriter> = args.iter().map(|a| self.arg_writer(a)).collect();
        let cached = Cell::new(None);
        Some(Box::new(move |env| {
            keyed_sg(env, (game, &statics, &cached), &writers, span)
        }))
    }

    /// `e` as an SG value when it is `sg(...)` of what `query_code` answers,
    /// a choice (`if`) between such, or a call of a function whose body is
    /// one (put in place): a comprehension's body, handed to its fold as an
    /// integer (`histogram(value(a, b, c, p) for ...)`). `line` is the
    /// comprehension's innermost binding, when it ranges over integers.
    pub(crate) fn sg_body(&self, e: &IrExpr, line: Option<Slot>) -> Option<SgBody> {
        match &e.kind {
            IrKind::CallBuiltin {
                builtin: Builtin::Sg,
                args,
            } => match self.position_code(&args[0], e.span) {
                Some(code) => Some(SgBody::Element(code)),
                None => Some(SgBody::Plan(self.game_plan(&args[0], line)?, e.span)),
            },
            IrKind::If {
                cond,
                then,
                otherwise,
            } => Some(SgBody::If {
                then: Box::new(self.sg_body(then, line)?),
                otherwise: Box::new(self.sg_body(otherwise, line)?),
                cond: self.cond_code(cond),
                fixed: line.is_some_and(|s| !mentions(cond, s)),
            }),
            IrKind::CallFn { .. } => self.sg_body(&self.inlined_call(e)?, line),
            _ => None,
        }
    }
}

/// A game expression whose leaves are positions of games without static
/// arguments: one sum, or a compound of sums.
pub(crate) struct GamePlan {
    compound: Option<(Builtin, Option<Code>)>,
    /// The compound's parts; without a compound, the one sum.
    parts: Vec<Vec<KeyedPosition>>,
    /// Whether the pass count reads the innermost binding of the loop
    /// the plan is asked in (`query_line.rs`).
    count_moves: bool,
}

struct KeyedPosition {
    game: GameId,
    statics: Vec<Code>,
    cached: Cell<Option<(u32, InstanceId)>>,
    writers: Vec<ArgWriter>,
    /// Whether its arguments read the innermost binding of the loop the
    /// plan is asked in.
    moves: bool,
}

impl Compiler<'_> {
    /// The plan of `e`, if it is a sum of two or more positions or a
    /// compound (`pass`, `misere`, `conjunctive`, `selective`) of sums;
    /// `line` is the innermost binding of the loop asking it, if any.
    pub(crate) fn game_plan(&self, e: &IrExpr, line: Option<Slot>) -> Option<GamePlan> {
        let reads = |e: &IrExpr| line.is_some_and(|s| mentions(e, s));
        match &e.kind {
            IrKind::Binary {
                op: BinaryOp::Add, ..
            } => Some(GamePlan {
                compound: None,
                parts: vec![self.sum_leaves(e, &reads)?],
                count_moves: false,
            }),
            IrKind::CallBuiltin {
                builtin:
                    b @ (Builtin::Pass | Builtin::Misere | Builtin::Conjunctive | Builtin::Selective),
                args,
            } => {
                let (parts, count) = match b {
                    Builtin::Pass => (&args[..1], args.get(1)),
                    _ => (&args[..], None),
                };
                let parts = parts
                    .iter()
                    .map(|p| self.sum_leaves(p, &reads))
                    .collect::<Option<Vec<_>>>()?;
                Some(GamePlan {
                    compound: Some((*b, count.map(|n| self.expr(n)))),
                    parts,
                    count_moves: count.is_some_and(reads),
                })
            }
            _ => None,
        }
    }

    /// The positions of a sum of positions, in order.
    fn sum_leaves(
        &self,
        e: &IrExpr,
        reads: &dyn Fn(&IrExpr) -> bool,
    ) -> Option<Vec<KeyedPosition>> {
        let mut terms = Vec::new();
        sum_terms(e, &mut terms);
        terms
            .into_iter()
            .map(|t| {
                let (game, statics, args) = self.keyed_position(t)?;
                Some(KeyedPosition {
                    game,
                    statics: self.exprs(statics),
                    cached: Cell::new(None),
                    writers: args.iter().map(|a| self.arg_writer(a)).collect(),
                    moves: statics.iter().chain(args).any(reads),
                })
            })
            .collect()
    }
}

impl GamePlan {
    /// The value the query asks (the misère value for `misere`), or `None`
    /// when the general path must answer.
    pub(crate) fn sg(&self, env: &mut Env, span: Span) -> Fallible<Option<u64>> {
        // Each position's arguments, then its `where`, in the order the
        // general path builds them, so that the first error is the same.
        // Positions are kept as their atoms (interning has no errors),
        // written into the compound's key, its kind last, as the general
        // path evaluates a pass count after the parts.
        if let Some(v) = self.layered(env, span)? {
            return Ok(Some(v));
        }
        let mut key = RootKey::new();
        // Pushed one by one: inline, where `extend` is a call.
        key.push(0);
        key.push(0);
        key.push(self.parts.len() as u32);
        for part in &self.parts {
            key.push(part.len() as u32);
            for p in part {
                let Some(atom) = p.atom(env, span)? else {
                    return Ok(None);
                };
                key.push(atom);
            }
        }
        let Some((code, counter)) = self.kind(env)? else {
            return Ok(None);
        };
        (key[KIND], key[COUNTER]) = (code, counter);
        (env.rt.above.sg_of_atoms)(env, &mut key, span).map(Some)
    }

    /// The compound's kind code and counter in its key (a sum, or a pass
    /// compound with no pass, is `PASS` with none); `None` for a bad pass
    /// count, which the general path reports.
    fn kind(&self, env: &mut Env) -> Fallible<Option<(u32, u32)>> {
        Ok(Some(match &self.compound {
            None => (PASS, 0),
            Some((Builtin::Pass, passes)) => {
                let n = match passes {
                    Some(code) => match code(env)? {
                        Value::Int(n) if (0..=1_000_000).contains(&n) => n,
                        _ => return Ok(None),
                    },
                    None => 1,
                };
                (PASS, n as u32)
            }
            Some((Builtin::Misere, _)) => (MISERE, 0),
            Some((Builtin::Conjunctive, _)) => (CONJUNCTIVE, 0),
            Some((_, _)) => (SELECTIVE, 0),
        }))
    }

    /// The value of a pass or misère compound of one position on its
    /// game's kernel (`Above::sg_of_layered`), with no atom interned;
    /// `None` when the position is not one (the general path reports
    /// it) or the product search must value the compound.
    fn layered(&self, env: &mut Env, span: Span) -> Fallible<Option<u64>> {
        let (Some((Builtin::Pass | Builtin::Misere, _)), [part]) =
            (&self.compound, &self.parts[..])
        else {
            return Ok(None);
        };
        let [p] = &part[..] else {
            return Ok(None);
        };
        let mut key = env.keys.pop().unwrap_or_default();
        let result = self.layered_at(env, p, &mut key, span);
        env.keys.push(key);
        result
    }

    fn layered_at(
        &self,
        env: &mut Env,
        p: &KeyedPosition,
        key: &mut Key,
        span: Span,
    ) -> Fallible<Option<u64>> {
        let site = (p.game, &p.statics[..], &p.cached);
        let Some(instance) = write_keyed(env, site, &p.writers, key)? else {
            return Ok(None);
        };
        if !is_keyed_position(env, instance, key, span)? {
            return Ok(None);
        }
        let layer = match self.kind(env)? {
            Some((PASS, n)) if n > 0 => Some(LayerKind::Pass(n)),
            Some((MISERE, _)) => Some(LayerKind::Misere),
            _ => None,
        };
        match layer {
            Some(layer) => (env.rt.above.sg_of_layered)(env, layer, instance, key, span),
            None => Ok(None),
        }
    }
}

/// A plan asked along a line of the innermost binding (`SgBody::line`):
/// the compound's kind and the atoms of the positions that do not move
/// found once, the moving ones' atoms per element.
pub(crate) struct PlanLine<'p> {
    /// The key, the moving positions' places left to fill.
    key: RootKey,
    moving: SmallVec<[Moving<'p>; MOST_MOVING]>,
    /// The atoms that do not move, in key order.
    fixed: SmallVec<[u32; 8]>,
    known: Known,
    span: Span,
}

/// Positions a line lets move (`pass(H(a) + H(c) + H(c + 1))` has two).
const MOST_MOVING: usize = 4;

/// A position that moves along the line, and where its atom goes.
struct Moving<'p> {
    at: usize,
    p: &'p KeyedPosition,
    /// Its game's instance, when it has no static arguments.
    instance: Option<InstanceId>,
    /// Whether its one argument is the binding itself.
    binding: bool,
}

/// What the positions that do not move give every element, once the
/// product tables know it.
enum Known {
    /// A plain sum: the xor of their values.
    Sum(Option<u64>),
    /// A one-part compound of at most `DENSE_LEN` components: they,
    /// terminal ones dropped, sorted, and how many; and the dense table
    /// of each number of components, once found (`ProductMemo::dense_in`).
    Small {
        fixed: Option<([u32; DENSE_LEN], usize)>,
        tables: [u32; DENSE_LEN + 1],
    },
    /// Any other key: looked up whole (`known_value`).
    Key,
}

impl GamePlan {
    /// The plan's line for the outer bindings as they are, `slot` the
    /// innermost binding; `None` when its elements go one by one (`sg`):
    /// a pass or misère compound of one position (its layer), a pass
    /// count that reads the binding, more than `MOST_MOVING` positions
    /// that do, or a position that does not move failing or needing its
    /// key's way. Nothing is reported here: the element that meets it
    /// does.
    pub(crate) fn line(&self, env: &mut Env, slot: Slot, span: Span) -> Option<PlanLine<'_>> {
        let layered = matches!(self.compound, Some((Builtin::Pass | Builtin::Misere, _)))
            && matches!(&self.parts[..], [part] if part.len() == 1);
        if layered || self.count_moves {
            return None;
        }
        let mut key = RootKey::new();
        let (mut moving, mut fixed) = (SmallVec::new(), SmallVec::new());
        key.extend([0, 0, self.parts.len() as u32]);
        for part in &self.parts {
            key.push(part.len() as u32);
            for p in part {
                let atom = if p.moves {
                    if moving.len() == MOST_MOVING {
                        return None;
                    }
                    let instance =
                        (p.statics.is_empty()).then(|| env.rt.plain_instance(p.game, &p.cached));
                    let binding = matches!(p.writers[..], [ArgWriter::Local(s)] if s == slot);
                    let at = key.len();
                    moving.push(Moving {
                        at,
                        p,
                        instance,
                        binding,
                    });
                    u32::MAX
                } else {
                    let atom = p.atom(env, span).ok()??;
                    fixed.push(atom);
                    atom
                };
                key.push(atom);
            }
        }
        let (code, counter) = self.kind(env).ok()??;
        (key[KIND], key[COUNTER]) = (code, counter);
        let known = match (code, counter, &self.parts[..]) {
            (PASS, 0, _) => Known::Sum(None),
            (_, _, [part]) if part.len() <= DENSE_LEN => Known::Small {
                fixed: None,
                tables: [u32::MAX; DENSE_LEN + 1],
            },
            _ => Known::Key,
        };
        Some(PlanLine {
            key,
            moving,
            fixed,
            known,
            span,
        })
    }
}

impl PlanLine<'_> {
    /// The value of the element `k` (the binding set to it), when the
    /// product tables know it; `None` sends the element the general way.
    #[inline]
    pub(crate) fn value(&mut self, env: &mut Env, k: i64) -> Option<u64> {
        let mut atoms = [0; MOST_MOVING];
        let n = self.moving.len();
        let t = env.rt.product.borrow();
        for (m, atom) in self.moving.iter().zip(&mut atoms) {
            // The atom remembered for the moving position's argument.
            let arg = if m.binding { Some(k) } else { m.p.int_arg(env) };
            match m.instance.zip(arg).and_then(|(i, n)| t.plan_atom(i, n)) {
                Some(a) => *atom = a,
                None => {
                    drop(t);
                    return self.value_found(env);
                }
            }
        }
        self.value_of(&t, &atoms[..n])
    }

    /// `value` with the moving positions' atoms found by their keys.
    #[inline(never)]
    fn value_found(&mut self, env: &mut Env) -> Option<u64> {
        let mut atoms = [0; MOST_MOVING];
        for (m, atom) in self.moving.iter().zip(&mut atoms) {
            *atom = m.p.atom(env, self.span).ok()??;
        }
        let t = env.rt.product.borrow();
        self.value_of(&t, &atoms[..self.moving.len()])
    }

    /// The value with the moving positions' `atoms` in place.
    #[inline]
    fn value_of(&mut self, t: &ProductTables, atoms: &[u32]) -> Option<u64> {
        match &mut self.known {
            Known::Sum(x) => {
                let x = match *x {
                    Some(x) => x,
                    None => *x.insert(t.sum_value(self.fixed.iter().copied())?),
                };
                Some(x ^ t.sum_value(atoms.iter().copied())?)
            }
            Known::Small { fixed, tables } => {
                let (sorted, n) = match *fixed {
                    Some(s) => s,
                    None => *fixed.insert(t.listed_sorted(&self.fixed)?),
                };
                let (code, counter) = (self.key[KIND], self.key[COUNTER]);
                match t.insert_listed(sorted, n, atoms.iter().copied())? {
                    Some((sorted, n)) => {
                        match t.memo.dense_in(&mut tables[n], code, counter, &sorted[..n]) {
                            Some(v) => v,
                            None => self.whole(t, atoms),
                        }
                    }
                    None => self.whole(t, atoms),
                }
            }
            Known::Key => self.whole(t, atoms),
        }
    }

    /// The value of the whole key, the moving positions' `atoms` in
    /// place (`known_value`).
    #[inline(never)]
    fn whole(&self, t: &ProductTables, atoms: &[u32]) -> Option<u64> {
        let mut key = self.key.clone();
        for (m, &atom) in self.moving.iter().zip(atoms) {
            key[m.at] = atom;
        }
        t.known_value(&mut key)
    }
}

impl KeyedPosition {
    /// The position's atom; `None` if its arguments do not flatten or it
    /// fails its `where`.
    fn atom(&self, env: &mut Env, span: Span) -> Fallible<Option<u32>> {
        // One integer argument, met before: the atom is remembered, with
        // no key written, no `where` asked, no hashing.
        let n = self.int_arg(env);
        if let Some(n) = n {
            let instance = site_instance(env, (self.game, &self.statics, &self.cached), false)?;
            if let Some(atom) = env.rt.product.borrow().plan_atom(instance, n) {
                return Ok(Some(atom));
            }
        }
        let mut key = env.keys.pop().unwrap_or_default();
        let atom = self.atom_by_key(env, n, &mut key, span);
        env.keys.push(key);
        atom
    }

    /// The position's one integer argument, if that is what it has.
    #[inline]
    fn int_arg(&self, env: &Env) -> Option<i64> {
        match &self.writers[..] {
            [ArgWriter::Local(slot)] => match env.local(*slot) {
                Value::Int(n) => Some(*n),
                _ => None,
            },
            [ArgWriter::Int(code)] => code(env.frame()),
            _ => None,
        }
    }

    /// `atom` by the position's key (and remembered when it has one
    /// integer argument `n`).
    fn atom_by_key(
        &self,
        env: &mut Env,
        n: Option<i64>,
        key: &mut Key,
        span: Span,
    ) -> Fallible<Option<u32>> {
        let Some(instance) = write_keyed(
            env,
            (self.game, &self.statics, &self.cached),
            &self.writers,
            key,
        )?
        else {
            return Ok(None);
        };
        if !is_keyed_position(env, instance, key, span)? {
            return Ok(None);
        }
        let rt = &env.rt;
        let name = || rt.instance(instance).name.clone();
        let mut t = rt.product.borrow_mut();
        let atom = t.intern_position(instance, name, key);
        if let Some(n) = n.filter(|&n| {
            key.coords() == [n] && key.shape() == int_shape(1) && key.generic.is_none()
        }) {
            t.remember_plan_atom(instance, n, atom);
        }
        Ok(Some(atom))
    }
}
