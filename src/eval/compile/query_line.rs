//! A comprehension whose body is an SG value (`SgBody`), its elements
//! handed to the fold as integers. When its innermost `for` ranges over
//! integers, that loop runs here as one loop per line: what does not read
//! the binding (an `if`'s condition, the positions of a sum or compound
//! that stay, the pass count) is decided once per line (`SgBody::line`),
//! and each element finds only its moving positions' atoms and reads its
//! value from the product tables: `histogram(value(a, b, c, p) for p in
//! 0..=1, a in .., b in .., c in ..)` with `value` choosing
//! `sg(pass(H(a) + H(b) + H(c)))` or `sg(H(a) + H(b) + H(c))`. Any element
//! it cannot answer goes through the body's code as before, so values and
//! errors are the same.

use super::clauses::{run_comprehension, CClause, IterCode};
use super::compiler::Compiler;
use super::fold::Fold;
use super::game_plan::SgBody;
use super::runtime::{Code, Env};
use crate::diag::Fallible;
use crate::eval::builtins::expect_int;
use crate::ir::ir::{IrClause, IrComp, IrKind, IrPattern};
use crate::syntax::Span;

/// A comprehension's body as an SG value, and whether it was compiled
/// for the innermost binding (`Compiler::sg_body`'s `line`).
pub(crate) struct SgQuery {
    pub(crate) body: SgBody,
    pub(crate) lines: bool,
}

impl Compiler<'_> {
    /// The body of `comp` as an SG value, compiled for its innermost
    /// binding when that ranges over integers.
    pub(crate) fn sg_query(&self, comp: &IrComp) -> Option<SgQuery> {
        let line = match comp.clauses.last() {
            Some(IrClause::For(b)) => match (&b.pattern, &b.iterable.kind) {
                (IrPattern::Slot { slot, .. }, IrKind::Range { .. }) => Some(*slot),
                _ => None,
            },
            _ => None,
        };
        Some(SgQuery {
            body: self.sg_body(&comp.body, line)?,
            lines: line.is_some(),
        })
    }
}

impl SgQuery {
    /// Runs the comprehension of `clauses` and `body` (the body's value
    /// code), giving `f` each element's value in order; false if `f`
    /// stopped it.
    pub(crate) fn run<F: Fold>(
        &self,
        env: &mut Env,
        clauses: &[CClause],
        body: &Code,
        f: &mut F,
    ) -> Fallible<bool> {
        let line = match clauses.split_last() {
            Some((
                CClause::For {
                    pattern: IrPattern::Slot { slot, .. },
                    iter:
                        IterCode::Range {
                            start,
                            end,
                            inclusive,
                        },
                    span,
                },
                outer,
            )) if self.lines && env.rt.limits.plans.query_lines => Some((
                outer,
                Range {
                    slot: *slot,
                    start,
                    end,
                    inclusive: *inclusive,
                    span: *span,
                },
            )),
            _ => None,
        };
        match line {
            Some(([], range)) => {
                let track = !env.tracking;
                self.line(env, &range, body, f, track)
            }
            Some((outer, range)) => run_comprehension(env, outer, &mut |env| {
                self.line(env, &range, body, f, false)
            }),
            None => run_comprehension(env, clauses, &mut |env| self.element(env, body, f)),
        }
    }

    /// One element, its bindings set.
    #[inline]
    fn element<F: Fold>(&self, env: &mut Env, body: &Code, f: &mut F) -> Fallible<bool> {
        if let Some(v) = self.body.eval(env)? {
            return f.sg(env, v);
        }
        let v = body(env)?;
        f.value(env, v)
    }

    /// The innermost loop for the outer bindings as they are, as
    /// `clauses::run_clauses` runs it (the range's errors, the ticks,
    /// the progress when it is the only loop).
    fn line<F: Fold>(
        &self,
        env: &mut Env,
        r: &Range<'_>,
        body: &Code,
        f: &mut F,
        track: bool,
    ) -> Fallible<bool> {
        let a = expect_int(&(r.start)(env)?, r.span)?;
        let b = expect_int(&(r.end)(env)?, r.span)?;
        let b = if r.inclusive { b.saturating_add(1) } else { b };
        if a >= b {
            return Ok(true);
        }
        let progress = env.rt.progress.clone();
        if track {
            env.track_line(b.wrapping_sub(a) as u64);
        }
        let mut plan = self.body.line(env, r.slot);
        let mut result = Ok(true);
        for k in a..b {
            env.set_local_int(r.slot, k);
            if track {
                let done = k.wrapping_sub(a) as u64;
                progress
                    .done
                    .store(done, std::sync::atomic::Ordering::Relaxed);
            }
            if let Err(e) = env.tick(r.span) {
                result = Err(e);
                break;
            }
            let step = match plan.as_mut().and_then(|p| p.value(env, k)) {
                Some(v) => f.sg(env, v),
                None => self.element(env, body, f),
            };
            if !matches!(step, Ok(true)) {
                result = step;
                break;
            }
        }
        if track {
            env.untrack_line();
        }
        result
    }
}

/// The innermost `for`: its binding and range.
struct Range<'c> {
    slot: u32,
    start: &'c Code,
    end: &'c Code,
    inclusive: bool,
    span: Span,
}
