//! `grundy run --explain` and `:explain NAME`: how the search evaluates
//! each game, move by move, and for a move off the fast paths, why, so that
//! a researcher whose game is slow learns what to change.

use super::compiler::Compiler;
use super::expand::MoveResult;
use super::guard_bounds::LoopGuard;
use super::int_tree::{BoolNode, NotIntCode};
use super::kernel::{Kernel, KernelMove, MovePlan};
use super::key_kernel::{KeyRun, RunArg};
use super::moves::ResultForm;
use super::rank_fill::{fill_order, FillOrder};
use super::refusal::{NoKernel, Refusal};
use crate::eval::memo::Order;
use crate::ir::ir::*;
use crate::syntax::{SourceId, Span};

/// Where a kernel's positions are kept (`memo::ShapeTable`).
const MEMO: &str = "a dense window over the positions searched, a hash table \
                    for those it would hold too thinly (integers far apart, the bit \
                    masks of subsets of a large range)";

impl Compiler<'_> {
    /// The explanation of a game from what its compilation decided: its
    /// plans (`Compiler::kernel`), its `where` as lowered and its memo's
    /// order; a headline, then one line per move.
    pub(crate) fn explain(
        &self,
        g: &IrGame,
        planned: &Result<Kernel, NoKernel>,
        where_lowered: Option<&Result<BoolNode, NotIntCode>>,
        order: Option<Order>,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        let moves = match &g.body {
            IrGameBody::Alias(_) => {
                lines.push(format!(
                    "game {}: an alias, expanded where it is used",
                    g.name
                ));
                return lines;
            }
            IrGameBody::Moves(moves) => moves,
        };
        let kernel = planned.as_ref().ok();
        let general = kernel.map_or(0, |k| {
            (k.moves.iter())
                .filter(|m| matches!(m, MovePlan::General(_)))
                .count()
        });
        let mixed = match general {
            0 => String::new(),
            n => format!("; {n} move(s) on the general path, each by its own code"),
        };
        lines.push(match kernel {
            Some(k) if k.keyed => format!(
                "game {}: kernel over lists and sets (positions of integers, lists, tuples \
                 and sets of small integers are searched on frames of integers, options \
                 written as keys and read from the memo: {MEMO}){mixed}",
                g.name
            ),
            Some(_) => format!(
                "game {}: kernel (positions of integers are searched on frames of integers, \
                 options read from the memo: {MEMO}){mixed}",
                g.name
            ),
            None => format!(
                "game {}: general path (options written as keys by the moves' code, one by one)",
                g.name
            ),
        });
        if let Some(walked) = kernel.and_then(|k| k.walk_moves(g.where_clause.is_some())) {
            let keyed: Vec<_> = (moves.iter().zip(&walked))
                .filter(|(_, m)| !m.scalar)
                .map(|(m, _)| m.label.to_string())
                .collect();
            let made = match &keyed[..] {
                [] => "each option made in registers (every argument one coordinate: an \
                       integer or a bit set), its key written only if not solved yet"
                    .to_string(),
                names => format!(
                    "options of {} written as keys (an argument is a sequence, \
                     not one coordinate)",
                    names.join(", ")
                ),
            };
            lines.push(format!(
                "  search: a lean walk (stacks of positions, options and values: each \
                 position's options written by the kernel's code, each read once from the \
                 memo; {made}); a position the code cannot run, or a cycle, goes to the \
                 general search"
            ));
        }
        match planned {
            Err(NoKernel::NoArguments) => {
                lines.push("  (a game without arguments has no kernel)".into())
            }
            Err(NoKernel::TooManyArguments) => {
                lines.push("  (too many arguments for a kernel frame)".into())
            }
            _ => {}
        }
        if g.n_statics > 0 {
            lines.push(
                "  static arguments: an instance with integer ones runs as described here; \
                 one with a function, a set or a list among them is compiled for those \
                 values (a function called in place, the others as constants), which \
                 may put it on a kernel"
                    .to_string(),
            );
        }
        if let Some(w) = where_lowered {
            lines.push(match w {
                Ok(_) => "  where: integer code".to_string(),
                Err(why) => format!(
                    "  where: value code (it uses values integer code does not cover){}",
                    located(why)
                ),
            });
        }
        if let Some(order) = order {
            lines.push(format!("  memo: {}", ranked_memo(order)));
        }
        if let (Some(Order::Sums), Some(k)) = (order, kernel) {
            lines.push(match fill_order(g.where_clause.is_some(), k) {
                Ok(FillOrder::Down) => "  fill: every option ranks above its list (the changes \
                    move prefix sums up), so a table asked by a comprehension fills each level \
                    at once from its highest rank down, with no search"
                    .into(),
                Ok(FillOrder::Up) => "  fill: every option ranks below its list (the changes \
                    move prefix sums down), so a table asked by a comprehension fills the levels \
                    up to the one asked from the lowest rank up, with no search"
                    .into(),
                Err(why) => format!("  not filled a level at a time: {}", why.text()),
            });
        }
        if let Some((i, j)) = kernel.and_then(|k| k.swappable) {
            let name = |p: usize| g.param_names.get(p).map_or("?".into(), |n| n.to_string());
            lines.push(format!(
                "  arguments {} and {} swap: a position's value is read from its twin's, \
                 and a run of twin options reads half of them",
                name(i),
                name(j)
            ));
        }
        for (i, _) in kernel.map_or(&[][..], |k| &k.clamps[..]) {
            let name = g.param_names.get(*i).map_or("?".into(), |n| n.to_string());
            let options = match kernel.is_some_and(|k| k.options_clamped) {
                true => ", and each option is read at its clamped position",
                false => "",
            };
            lines.push(format!(
                "  argument {name} is read only through min({name}, ...): a position with it \
                 above that bound has the value of the one at the bound{options}"
            ));
        }
        for (i, m) in moves.iter().enumerate() {
            let how = match (kernel, planned) {
                (Some(k), _) => match &k.moves[i] {
                    MovePlan::Kernel(k) => describe(k) + &ranged_words(self.ranged(m).1),
                    MovePlan::General(why) => self.general_text(m, why),
                },
                (None, Err(NoKernel::NoMove(why))) => self.general_text(m, &why[i]),
                (None, _) => format!("general path{}", self.result_text(&m.result)),
            };
            lines.push(format!("  move {}: {how}", m.label));
        }
        if let Some(strides) = kernel.and_then(|k| k.strides.as_ref()) {
            lines.push(format!(
                "  tables swept in order (`[sg(G(n)) for n in a..b]`, `histogram(...)`): \
                 each value read from its {} options at fixed distances in the memo",
                strides.len()
            ));
        }
        lines
    }

    /// A move on the general path: how its options are handed over, and
    /// why it has no kernel form.
    fn general_text(&self, m: &IrMove, why: &Refusal) -> String {
        format!(
            "general path{}: {}",
            self.result_text(&m.result),
            refusal_text(why)
        )
    }

    /// How a move on the general path hands over its result: positions
    /// and sums of positions as keys, anything else as a game value.
    fn result_text(&self, result: &IrExpr) -> String {
        match self.result_form(result) {
            ResultForm::Zero | ResultForm::Position => String::new(),
            ResultForm::Sum(terms) => {
                format!(
                    ", each option a sum of {} positions written as keys",
                    terms.len()
                )
            }
            ResultForm::Choice { all: true } => {
                ", each option a position or a sum of positions chosen by a condition, \
                 written as keys"
                    .into()
            }
            ResultForm::Choice { all: false } => {
                ", each option written as keys where its branch is a position or a sum of \
                 positions, else built as a game value"
                    .into()
            }
            ResultForm::Value => ", each option built as a game value (its result is neither a \
                                  position nor a sum of positions)"
                .into(),
        }
    }
}

/// Why a move has no kernel form, in words.
fn refusal_text(why: &Refusal) -> String {
    match why {
        Refusal::ResultElsewhere => "its result is not a position of the game itself (same \
                                     static arguments), a sum of such positions, or 0"
            .into(),
        Refusal::ResultCompound(b) => format!(
            "its result is a compound (`{}`): each option is valued by the product search, \
             its components kept as keys",
            b.name()
        ),
        Refusal::ChoiceNotIntegerCode(why) => format!(
            "its result chooses with `if` or reads a function's body, and a condition, an \
             argument or the `where` of a position the body writes is not integer code{}",
            why.as_ref().map(located).unwrap_or_default()
        ),
        Refusal::ArgumentNotIntegerCode(i, why) => format!(
            "argument {} of its result is not integer code, nor a list or set the kernel \
             writes (an argument, `update`, `sorted`, `remove`, `insert`, `-`, `&` or `|` \
             on sets of small integers, a list of integers, lists joined with `+`){}",
            i + 1,
            located(why)
        ),
        Refusal::BindingPattern => "a binding destructures a tuple".into(),
        Refusal::FrameFull(name) => {
            format!("binding `{name}`: too many locals for a kernel frame")
        }
        Refusal::BoundsNotIntegerCode(name, why) => {
            format!(
                "the bounds of `{name}` are not integer code{}",
                located(why)
            )
        }
        Refusal::SourceComputed(name) => format!(
            "binding `{name}` runs over a value computed by the move, not an integer range, \
             a constant set or an argument of the position"
        ),
        Refusal::SourceArgument(name) => format!(
            "binding `{name}` runs over an argument of the position, which only a kernel \
             over lists and sets reads, and the move has no form there"
        ),
        Refusal::GuardNotIntegerCode(why) => format!(
            "its guard is not integer code (comparisons, `and`, `or`, `not` of integer \
             arithmetic){}",
            located(why)
        ),
        Refusal::NotOnKeyFrame => "integer code, but not in a form the kernel over lists and \
                                   sets runs"
            .into(),
    }
}

/// Marks the span of a refusal in an explanation's text; the compiler has
/// no sources, the session puts the source text in (`show_spans`).
const MARK: char = '\u{1}';

/// `: `CODE`: why`, the code the span of the tree's refusal covers.
fn located(why: &NotIntCode) -> String {
    let s = why.span;
    format!(
        ": {MARK}{}:{}:{}{MARK}: {}",
        s.source.0, s.start, s.end, why.why
    )
}

/// An explanation's line with each marked span replaced by the source it
/// covers, quoted (`snippet` reads it).
pub fn show_spans(line: &str, snippet: impl Fn(Span) -> String) -> String {
    let mut parts = line.split(MARK);
    let mut out = parts.next().unwrap_or_default().to_string();
    while let (Some(mark), rest) = (parts.next(), parts.next()) {
        let span = mark
            .split(':')
            .map(str::parse::<u32>)
            .collect::<Result<Vec<_>, _>>();
        match span.as_deref() {
            Ok(&[source, start, end]) => {
                let text = snippet(Span {
                    source: SourceId(source),
                    start,
                    end,
                });
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                out.push_str(&format!("`{text}`"));
            }
            _ => out.push_str(mark),
        }
        out.push_str(rest.unwrap_or_default());
    }
    out
}

/// How many leading guard conjuncts the kernels read as the ends of a
/// binding's range (`range_bounds.rs`), if any.
fn ranged_words(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(
            "; {n} guard conjunct(s) comparing a binding with code free of it read as its \
             range's ends (no code per option)"
        ),
    }
}

/// How a plan's guard bounds its loops (`guard_bounds.rs`), if it does.
fn bounds_words(g: &LoopGuard) -> String {
    let mut words = Vec::new();
    if g.cuts > 0 {
        words.push(format!(
            "{} guard conjunct(s) monotone in a binding solved into its range (a polynomial's root)",
            g.cuts
        ));
    }
    if g.hoisted > 0 {
        words.push(format!(
            "{} guard conjunct(s) not mentioning a binding decided outside its loop",
            g.hoisted
        ));
    }
    if g.from_where > 0 {
        words.push(format!(
            "{} conjunct(s) of the result's `where` bounding the loop too (options that are \
             no positions never made)",
            g.from_where
        ));
    }
    if g.guaranteed > 0 {
        words.push(format!(
            "{} conjunct(s) of the result's `where` guaranteed by the move's range, guard and \
             the position's own `where` (never checked)",
            g.guaranteed
        ));
    }
    if words.is_empty() {
        return String::new();
    }
    format!("; {}", words.join(", "))
}

/// A kernel plan in words, with how its guard bounds its loops.
fn describe(k: &KernelMove) -> String {
    let guard = match k {
        KernelMove::Run(r) => bounds_words(&r.guard),
        KernelMove::SumRun(r) => bounds_words(&r.guard),
        KernelMove::Loop(l) => bounds_words(&l.bounds),
        _ => String::new(),
    };
    let plan: String = match k {
        KernelMove::Single(s) if s.varies.is_some() => {
            "one option, read along the position's own line of the memo (one argument changes)"
                .into()
        }
        KernelMove::Single(_) => "one option by integer code".into(),
        KernelMove::Run(r) if r.varies.is_some() => {
            "a run read along the position's own line of the memo (one argument changes)".into()
        }
        KernelMove::Run(r) if r.bends.is_some() => format!(
            "a run through the memo, split where {} clamped or divided argument(s) bend, \
             each piece read with strides",
            r.per_option.len()
        ),
        KernelMove::Run(r) if r.quadratic.is_some() => format!(
            "a run through the memo, {} argument(s) quadratic in the binding, walked with a \
             growing stride",
            r.per_option.len()
        ),
        KernelMove::Run(r) if !r.per_option.is_empty() => format!(
            "a run through the memo, {} argument(s) computed per option by batched integer code",
            r.per_option.len()
        ),
        KernelMove::Run(_) => {
            "a strided run through the memo (arguments affine in the binding)".into()
        }
        KernelMove::SumRun(r) => format!(
            "a take-and-break run: each of the {} parts read with its own stride, values xored",
            r.parts.len()
        ),
        KernelMove::KeyLoop(l) => {
            let mask = "the binding's set or constant range and its guard's leading conjuncts \
                        read as one bit mask";
            let sorted =
                |r: &KeyRun| (r.args.iter()).any(|a| matches!(a, RunArg::SortedUpdate { .. }));
            match &l.run {
                Some(r) if sorted(r) => "strided runs through the memo over its last binding, \
                    one per place of the new item in the sorted list (lists and sets read as \
                    integers)"
                    .into(),
                Some(r) => match &r.shift {
                    Ok(_) => "options of its last binding read by rank from the position's own \
                              list: the items it changes, by amounts affine in the binding, move \
                              the list's prefix sums, and each option's place is the binomials of \
                              those read along their columns (no option's key written)"
                        .into(),
                    // Said only of a list with items changed: the runs of
                    // other keys are not candidates.
                    Err(why) if r.args.iter().any(|a| matches!(a, RunArg::Items(_))) => format!(
                        "a strided run through the memo over its last binding (lists and sets \
                         read as integers); not read by rank from the position's list: {}",
                        why.text()
                    ),
                    Err(_) => "a strided run through the memo over its last binding (lists and \
                               sets read as integers)"
                        .into(),
                },
                None if l.bits_run.is_some() => {
                    format!(
                    "one run of bit masks over its last binding, each option's set computed from \
                     the position's and read from the memo without writing its key{}",
                    l.filter.as_ref().map_or(String::new(), |_| format!(" ({mask})"))
                )
                }
                None => {
                    format!(
                    "option by option on a frame of integers, lists and sets read as integers and \
                     options written as keys{}{}",
                    l.filter.as_ref().map_or(String::new(), |_| format!(", {mask}")),
                    results_words(&l.results)
                )
                }
            }
        }
        KernelMove::Loop(l) => format!(
            "{} on a frame of integers{}",
            match l.bindings.len() {
                0 => "one option",
                _ => "option by option",
            },
            results_words(&l.results)
        ),
    };
    plan + &guard
}

/// What a Loop form's results are: each one's number of parts, whether
/// it reads a function's body in place, and whether it checks the
/// positions that body writes against `where`.
fn results_words<L: ?Sized, A>(results: &[MoveResult<L, A>]) -> String {
    let sums = match results {
        [r] if r.parts.is_empty() => " (to the zero game)".to_string(),
        [r] if r.parts.len() == 1 => String::new(),
        [r] => format!(" (a sum of {} parts, values xored)", r.parts.len()),
        all => format!(" (its result one of {} sums, chosen by `if`)", all.len()),
    };
    let body = if results.iter().any(|r| r.body_where.is_some()) {
        ", the function's body read in place and its positions checked against `where`"
    } else if results.iter().any(|r| r.from_body) {
        ", the function's body read in place"
    } else {
        ""
    };
    sums + body
}

/// What `--explain` says of a memo laid out by `Ranking` in `order`.
fn ranked_memo(order: Order) -> &'static str {
    match order {
        Order::Sums => {
            "no move raises the sum of the list's items, so lists are kept at their rank \
             by sum, one byte each (those of n items and sum up to s fill the first \
             C(s + n, n) bytes)"
        }
        Order::Ascending => {
            "the `where` or the moves' `sorted(...)` keep the list sorted, so lists \
             are kept at their rank as multisets, one byte each (those of n items up to m fill the first \
             C(m + n, n) bytes)"
        }
        Order::Increasing => {
            "the list is kept sorted (by the `where` or the moves' `sorted(...)`) and \
             distinct (by the `where`), so lists are kept at their rank as sets, one byte each (those of n items below m fill the first \
             C(m, n) bytes)"
        }
    }
}
