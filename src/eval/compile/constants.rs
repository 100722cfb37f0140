//! An instance's static arguments and the values of the top-level
//! constants put into IR as constants (`Fill`): for a game compiled for
//! one instance (`specialize.rs`) and for a function's body compiled in
//! its own frame (`key_kernel.rs`'s set functions).

use std::cell::Cell;
use std::rc::Rc;

use super::int_code::reads_global;
use crate::eval::value::Value;
use crate::ir::ir::*;

/// `body`, the body of a function, with its static arguments `statics`
/// and the values of the constants it reads put in; its other locals
/// move down by the number of statics.
pub(crate) fn with_constants(
    body: &IrExpr,
    statics: &[Value],
    globals: &[Option<Value>],
) -> IrExpr {
    Fill::new(statics, globals, &[]).expr(body)
}

/// Puts an instance's static arguments, and the values of the constants
/// it reads, into a game's IR.
pub(crate) struct Fill<'a> {
    statics: &'a [Value],
    n_statics: Slot,
    globals: &'a [Option<Value>],
    /// The functions' bodies: a function the game calls that reads a
    /// constant counts as a read (it is compiled with the values put in).
    fns: &'a [Option<Rc<IrFn>>],
    /// How many reads of constants were put in.
    constants: Cell<usize>,
}

impl<'a> Fill<'a> {
    /// Puts in `statics` (the first slots) and `globals`; the functions
    /// in `fns` are looked into for reads of constants.
    pub(crate) fn new(
        statics: &'a [Value],
        globals: &'a [Option<Value>],
        fns: &'a [Option<Rc<IrFn>>],
    ) -> Fill<'a> {
        Fill {
            statics,
            n_statics: statics.len() as Slot,
            globals,
            fns,
            constants: Cell::new(0),
        }
    }

    /// How many reads of constants were put in so far.
    pub(crate) fn constants(&self) -> usize {
        self.constants.get()
    }

    pub(crate) fn game(&self, g: &IrGame) -> IrGame {
        IrGame {
            name: g.name.clone(),
            param_names: g.param_names.clone(),
            n_statics: 0,
            n_params: g.n_params,
            n_slots: g.n_slots - g.n_statics,
            where_clause: g.where_clause.as_ref().map(|w| self.expr(w)),
            body: match &g.body {
                IrGameBody::Moves(moves) => {
                    IrGameBody::Moves(moves.iter().map(|m| self.move_(m)).collect())
                }
                IrGameBody::Alias(e) => IrGameBody::Alias(self.expr(e)),
            },
            span: g.span,
        }
    }

    fn move_(&self, m: &IrMove) -> IrMove {
        IrMove {
            label: m.label.clone(),
            bindings: m.bindings.iter().map(|b| self.binding(b)).collect(),
            guard: m.guard.as_ref().map(|g| self.expr(g)),
            result: self.expr(&m.result),
            span: m.span,
        }
    }

    fn binding(&self, b: &IrBinding) -> IrBinding {
        IrBinding {
            pattern: self.pattern(&b.pattern),
            iterable: self.expr(&b.iterable),
            span: b.span,
        }
    }

    fn pattern(&self, p: &IrPattern) -> IrPattern {
        match p {
            IrPattern::Slot { slot, name } => IrPattern::Slot {
                slot: slot - self.n_statics,
                name: name.clone(),
            },
            IrPattern::Tuple(parts, span) => {
                IrPattern::Tuple(parts.iter().map(|p| self.pattern(p)).collect(), *span)
            }
        }
    }

    fn comp(&self, c: &IrComp) -> IrComp {
        IrComp {
            clauses: (c.clauses.iter())
                .map(|clause| match clause {
                    IrClause::For(b) => IrClause::For(self.binding(b)),
                    IrClause::If(e) => IrClause::If(self.expr(e)),
                })
                .collect(),
            body: self.expr(&c.body),
        }
    }

    fn expr(&self, e: &IrExpr) -> IrExpr {
        let kind = match &e.kind {
            IrKind::Local(s) if *s < self.n_statics => {
                IrKind::Const(self.statics[*s as usize].clone())
            }
            IrKind::Local(s) => IrKind::Local(s - self.n_statics),
            IrKind::Global(g) => match self.globals.get(*g as usize) {
                Some(Some(v)) => {
                    self.constants.set(self.constants.get() + 1);
                    IrKind::Const(v.clone())
                }
                _ => e.kind.clone(),
            },
            IrKind::Collect { set, comp } => IrKind::Collect {
                set: *set,
                comp: Box::new(self.comp(comp)),
            },
            IrKind::Aggregate { builtin, comp } => IrKind::Aggregate {
                builtin: *builtin,
                comp: Box::new(self.comp(comp)),
            },
            IrKind::Let {
                pattern,
                value,
                body,
            } => IrKind::Let {
                pattern: self.pattern(pattern),
                value: Box::new(self.expr(value)),
                body: Box::new(self.expr(body)),
            },
            kind => {
                if let IrKind::CallFn { func, .. } = kind {
                    let f = self.fns.get(*func as usize).and_then(|f| f.as_ref());
                    if f.is_some_and(|f| reads_global(&f.body, self.fns)) {
                        self.constants.set(self.constants.get() + 1);
                    }
                }
                kind.map_children(&mut |x| Some(self.expr(x)))
                    .expect("only comprehensions and `let` have no plain children")
            }
        };
        IrExpr { kind, span: e.span }
    }
}
