//! The whole pipeline for one session: text -> AST -> IR -> compiled code ->
//! statements run. A session keeps its definitions, globals and memo tables
//! between texts (files, REPL entries).

use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::rc::Rc;

use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::builtins::expect_bool;
use crate::eval::compile::{Code, Compiler};
use crate::eval::compile::{Env, Limits, Runtime};
use crate::eval::value::{Table, Value};
use crate::ir::ir::{IrExpr, IrGameBody, IrKind, IrStmt};
use crate::ir::names::Names;
use crate::ir::{lower_program, Lowered};
use crate::syntax::ast::BinaryOp;
use crate::syntax::{parse, SourceId, Span, SyntaxError};

/// The texts a session has read, by `SourceId`.
#[derive(Default)]
pub struct Sources {
    texts: Vec<(String, Rc<str>)>,
}

impl Sources {
    pub fn add(&mut self, name: &str, text: &str) -> SourceId {
        self.texts.push((name.to_string(), Rc::from(text)));
        SourceId(self.texts.len() as u32 - 1)
    }

    pub fn get(&self, id: SourceId) -> (&str, &str) {
        match self.texts.get(id.0 as usize) {
            Some((n, t)) => (n, t),
            None => ("<unknown>", ""),
        }
    }

    /// The text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        let (_, text) = self.get(span.source);
        text.get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// Something that went wrong in a text: a syntax error or a later error.
#[derive(Debug, Clone)]
pub enum Failure {
    Syntax(SyntaxError),
    Error(Diag),
}

impl Failure {
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Failure::Syntax(_) => None,
            Failure::Error(d) => Some(d.kind),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Syntax(e) => write!(f, "{e}"),
            Failure::Error(d) => write!(f, "{d}"),
        }
    }
}

/// What running one text did.
#[derive(Debug, Default)]
pub struct RunResult {
    pub assertions_passed: usize,
    /// Failed assertions, then the error that stopped the run, if any.
    pub failures: Vec<Failure>,
    /// Whether the text parsed and lowered, so that its definitions were
    /// installed (false after a syntax or name error: nothing changed).
    pub installed: bool,
}

impl RunResult {
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Turns a value printed by `print` or shown by a bare expression into
/// text; `None` keeps the default text. The REPL aligns option lists with
/// it, `grundy run --format csv` writes tables as CSV.
pub type ValueFormat = Box<dyn Fn(&Value) -> Option<String>>;

/// Takes a value shown by a bare expression before it is written: when it
/// returns true, the value was shown elsewhere and nothing is written (the
/// Jupyter kernel sends it as rich output).
pub type ShowHook = Box<dyn FnMut(&Value) -> bool>;

/// The session's top-level names at one moment, to go back to after a
/// failed REPL entry (see [`Session::restore`]).
#[derive(Clone)]
pub struct Snapshot {
    names: Names,
}

pub struct Session {
    pub sources: Sources,
    names: Names,
    rt: Runtime,
    /// Top-level `let` values given from outside (`--set N=10`): a file's
    /// own `let` of the same name is skipped.
    overrides: Vec<(String, Value)>,
    /// How printed and shown values are written (default: their `Display`).
    pub format: Option<ValueFormat>,
    /// The last table printed or shown, for `--plot` and `:plot`.
    pub last_table: Option<Rc<Table>>,
    /// `--explain`: each text's games are explained (to its output) before
    /// its statements run.
    pub explain_games: bool,
    /// Where shown values go first (see [`ShowHook`]); `None`: to `out`.
    pub show: Option<ShowHook>,
    /// The prelude is not loaded yet, and is loaded by the first text
    /// that names one of its families (`Session::on_demand`).
    prelude_on_demand: bool,
}

/// Words that every use of the prelude's families contains: the
/// built-ins `subtraction(S)` and `octal(code)`, and the games
/// `subtraction_game` and `octal_game` themselves.
const PRELUDE_WORDS: [&str; 2] = ["subtraction", "octal"];

impl Session {
    pub fn new(limits: Limits) -> Session {
        let mut session = Session::on_demand(limits);
        session.load_prelude();
        session
    }

    /// A session that loads the prelude only when a text it runs names
    /// one of its families: parsing and compiling the prelude is most of
    /// what a short run of one file costs (`grundy run`, `grundy test`).
    /// Until then the prelude's names are unknown, so a session that lists
    /// or completes names (the REPL) starts with `new`.
    pub fn on_demand(limits: Limits) -> Session {
        Session {
            sources: Sources::default(),
            names: Names::default(),
            rt: crate::eval::new_runtime(limits),
            overrides: Vec::new(),
            format: None,
            last_table: None,
            explain_games: false,
            show: None,
            prelude_on_demand: true,
        }
    }

    fn load_prelude(&mut self) {
        self.prelude_on_demand = false;
        let prelude = include_str!("prelude/families.game");
        // Without the `--set` overrides: they are for the user's file,
        // whose `let`s the prelude does not have.
        let given = std::mem::take(&mut self.overrides);
        let result = self.run("<prelude>", prelude, &mut std::io::sink());
        self.overrides = given;
        debug_assert!(result.ok(), "the prelude runs");
        for name in ["subtraction_game", "octal_game"] {
            if let Some(crate::ir::names::Item::Game { id, .. }) = self.names.get(name) {
                self.rt.prelude.push((name, *id));
            }
        }
    }

    /// Loads the prelude before `text` runs, if it is loaded on demand
    /// and `text` may use it.
    fn prelude_for(&mut self, text: &str) {
        if self.prelude_on_demand && PRELUDE_WORDS.iter().any(|w| text.contains(w)) {
            self.load_prelude();
        }
    }

    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The time limit of each text run from now on.
    pub fn set_timeout(&mut self, timeout: Option<std::time::Duration>) {
        self.rt.limits.timeout = timeout;
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    /// The top-level names as they are now.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            names: self.names.clone(),
        }
    }

    /// Goes back to the names of `snapshot`: definitions made since are
    /// forgotten. Ids are never reused (the counters keep their current
    /// values), so memo tables and compiled code made since stay valid.
    pub fn restore(&mut self, snapshot: Snapshot) {
        let Names {
            fn_count,
            game_count,
            global_count,
            ..
        } = self.names;
        self.names = Names {
            fn_count,
            game_count,
            global_count,
            ..snapshot.names
        };
    }

    /// A line of an explanation with the code its refusals point at.
    fn show_spans(&self, line: &str) -> String {
        crate::eval::compile::show_spans(line, |span| self.sources.snippet(span).to_string())
    }

    /// How the search evaluates the game `name`, or every game defined
    /// outside the prelude (in definition order): `--explain`, `:explain`.
    pub fn explain(&self, name: Option<&str>) -> Result<String, String> {
        let prelude: Vec<u32> = self.rt.prelude.iter().map(|(_, id)| *id).collect();
        let mut ids: Vec<u32> = match name {
            Some(n) => match self.names.get(n) {
                Some(crate::ir::names::Item::Game { id, .. }) => vec![*id],
                _ => return Err(format!("no game named `{n}`")),
            },
            None => self
                .names
                .iter_games()
                .filter(|id| !prelude.contains(id))
                .collect(),
        };
        ids.sort_unstable();
        let mut text = String::new();
        for id in ids {
            if let Some(Some(g)) = self.rt.games.get(id as usize) {
                for line in g
                    .explanation
                    .iter()
                    .chain(&self.rt.specialized_explanations(id))
                {
                    text.push_str(&self.show_spans(line));
                    text.push('\n');
                }
            }
        }
        if text.is_empty() {
            text.push_str("no games defined\n");
        }
        Ok(text)
    }

    /// Fixes the value of a top-level `let NAME` for texts run later.
    /// `expr_text` must be one expression; the name a plain name given
    /// once.
    pub fn set_override(&mut self, name: &str, expr_text: &str) -> Result<(), Failure> {
        let source_name = format!("--set {name}={expr_text}");
        let refuse = |this: &mut Session, text: &str, message: String, label: &str| {
            let source = this.sources.add(&source_name, text);
            Err(Failure::Error(
                Diag::new(
                    ErrorKind::Invalid,
                    Span::new(source, 0, text.len()),
                    message,
                )
                .label(label.to_string())
                .help("give each value as --set NAME=EXPR, e.g. --set N=128"),
            ))
        };
        let is_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with("__");
        if !is_name {
            return refuse(
                self,
                name,
                format!("`{name}` is not a name a `let` can define"),
                "not a name",
            );
        }
        if self.overrides.iter().any(|(n, _)| n == name) {
            return refuse(
                self,
                name,
                format!("--set {name} is given twice"),
                "given before",
            );
        }
        let text = format!("let __override = {expr_text}");
        // One expression only: `--set N=1 print 2` would run a statement.
        if let Ok(program) = parse(&text, SourceId::default()) {
            if program.stmts.len() != 1 {
                return refuse(
                    self,
                    expr_text,
                    format!("--set {name}= takes one expression, got more: `{expr_text}`"),
                    "more than one expression",
                );
            }
        }
        // Loaded outside the snapshot, which forgets the names made since.
        self.prelude_for(&text);
        let snapshot = self.snapshot();
        let mut sink = Vec::new();
        // Without the overrides given so far (they are for the file).
        let given = std::mem::take(&mut self.overrides);
        let r = self.run(&source_name, &text, &mut sink);
        self.overrides = given;
        let value = match self.names.get("__override") {
            Some(crate::ir::names::Item::Global { id, .. }) if r.ok() => {
                self.rt.globals.borrow()[*id as usize].clone()
            }
            _ => None,
        };
        // `__override` is not left behind as a name of the session.
        self.restore(snapshot);
        if let Some(f) = r.failures.into_iter().next() {
            return Err(f);
        }
        let v = value.expect("a let that ran has a value");
        self.overrides.push((name.to_string(), v));
        Ok(())
    }

    /// The value of `text`, which must be one expression, run as a source
    /// named `name` (nothing printed, nothing defined), with the span of
    /// that source: errors found later about the value point there.
    pub fn evaluate(&mut self, name: &str, text: &str) -> Result<(Value, Span), Vec<Failure>> {
        let one_expression = parse(text, SourceId::default()).map(|p| {
            p.stmts.len() == 1 && matches!(p.stmts[0].kind, crate::syntax::ast::StmtKind::Expr(_))
        });
        if matches!(one_expression, Ok(false)) {
            let source = self.sources.add(name, text);
            let d = Diag::new(
                ErrorKind::Invalid,
                Span::new(source, 0, text.len()),
                "expected one expression",
            )
            .label("not a single expression")
            .help("give one expression, such as Heap(5) + Heap(3)");
            return Err(vec![Failure::Error(d)]);
        }
        // `run` reads the text as the next source; its one statement shows
        // the value, which this hook takes instead of printing it.
        self.prelude_for(text);
        let source = SourceId(self.sources.texts.len() as u32);
        let value: Rc<std::cell::RefCell<Option<Value>>> = Rc::default();
        let taken = value.clone();
        let shown = self.show.replace(Box::new(move |v| {
            *taken.borrow_mut() = Some(v.clone());
            true
        }));
        let result = self.run(name, text, &mut std::io::sink());
        self.show = shown;
        if !result.ok() {
            return Err(result.failures);
        }
        let v = value
            .take()
            .expect("an expression that ran shows its value");
        Ok((v, Span::new(source, 0, text.len())))
    }

    /// Parses, lowers, compiles and runs `text`, writing `print` output and
    /// shown values to `out`.
    pub fn run(&mut self, name: &str, text: &str, out: &mut dyn Write) -> RunResult {
        self.prelude_for(text);
        let source = self.sources.add(name, text);
        self.rt.start_clock();
        let mut result = RunResult::default();
        let program = match parse(text, source) {
            Ok(p) => p,
            Err(e) => {
                result.failures.push(Failure::Syntax(e));
                return result;
            }
        };
        let lowered = match lower_program(&program, &mut self.names) {
            Ok(l) => l,
            Err(errors) => {
                result
                    .failures
                    .extend(errors.into_iter().map(Failure::Error));
                return result;
            }
        };
        if let Some(missing) = self.override_not_in(&program) {
            let d = Diag::new(
                ErrorKind::UnknownName,
                Span::new(source, 0, 0),
                format!("--set {missing} matches no top-level `let` in {name}"),
            )
            .label(format!("no `let {missing}` in this file"))
            .help("--set NAME=EXPR replaces the value of a `let NAME = ...` of the file");
            result.failures.push(Failure::Error(d));
            return result;
        }
        let overridden: Vec<u32> = self.apply_overrides(&program);
        self.install(&lowered);
        result.installed = true;
        self.rt.explaining.set(self.explain_games);
        if self.explain_games {
            self.explain_installed(&lowered, out);
        }
        for stmt in &lowered.stmts {
            if let IrStmt::Let { global, .. } = stmt {
                if overridden.contains(global) {
                    continue;
                }
            }
            match self.run_stmt(stmt, out) {
                Ok(true) => result.assertions_passed += 1,
                Ok(false) => {}
                Err(e) if e.kind == ErrorKind::AssertFailed => {
                    result.failures.push(Failure::Error(*e))
                }
                Err(mut e) => {
                    self.name_the_statement(&mut e, stmt);
                    result.failures.push(Failure::Error(*e));
                    break;
                }
            }
        }
        if self.explain_games {
            self.explain_ran(&lowered, out);
        }
        self.rt.loopy_runs.borrow_mut().clear();
        self.rt.compound_plans.borrow_mut().clear();
        result
    }

    /// `--explain`'s plans of the games a text defines. Its own function,
    /// like [`Session::explain_ran`]: a run that does not ask never
    /// executes it, and its code stays off that run's pages.
    #[cold]
    #[inline(never)]
    fn explain_installed(&self, lowered: &Lowered, out: &mut dyn Write) {
        for (id, _) in &lowered.games {
            if let Some(Some(g)) = self.rt.games.get(*id as usize) {
                for line in &g.explanation {
                    let _ = writeln!(out, "{}", self.show_spans(line));
                }
            }
        }
    }

    /// `--explain`'s account of what the text's statements ran.
    #[cold]
    #[inline(never)]
    fn explain_ran(&self, lowered: &Lowered, out: &mut dyn Write) {
        // Instances compiled for their static arguments exist once used.
        for (id, _) in &lowered.games {
            for line in self.rt.specialized_explanations(*id) {
                let _ = writeln!(out, "{}", self.show_spans(&line));
            }
        }
        // What each loopy labelling of this text built and held.
        for line in self.rt.loopy_runs.borrow().iter() {
            let _ = writeln!(out, "{line}");
        }
        // How its compounds of one position were valued.
        for line in self.rt.compound_plans.borrow().iter() {
            let _ = writeln!(out, "{line}");
        }
    }

    /// A limit (time, memory, Ctrl-C) stops deep inside a computation; its
    /// message also names the statement's expression, which may be in
    /// another text (a REPL entry calling a function of a file).
    #[cold]
    #[inline(never)]
    fn name_the_statement(&self, e: &mut Diag, stmt: &IrStmt) {
        if !matches!(
            e.kind,
            ErrorKind::Timeout | ErrorKind::OutOfMemory | ErrorKind::Interrupted
        ) {
            return;
        }
        let span = match stmt {
            IrStmt::Let { value, .. } => value.span,
            IrStmt::Show { expr, .. } | IrStmt::Assert { expr, .. } => expr.span,
            IrStmt::Print { exprs, .. } => match (exprs.first(), exprs.last()) {
                (Some(a), Some(b)) => a.span.to(b.span),
                _ => return,
            },
        };
        if span == e.span {
            return;
        }
        let text = self.sources.snippet(span);
        let text = match text.char_indices().nth(60) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_string(),
        };
        e.message = format!("{} while evaluating `{}`", e.message, one_line(&text));
    }

    /// A name given with `--set` that no top-level `let` of `program`
    /// defines (checked before anything runs), if overrides are given.
    fn override_not_in(&self, program: &crate::syntax::ast::Program) -> Option<String> {
        if self.overrides.is_empty() {
            return None;
        }
        let lets: HashSet<&str> = program
            .stmts
            .iter()
            .filter_map(|s| match &s.kind {
                crate::syntax::ast::StmtKind::Let { name, .. } => Some(name.name.as_str()),
                _ => None,
            })
            .collect();
        self.overrides
            .iter()
            .find(|(n, _)| !lets.contains(n.as_str()))
            .map(|(n, _)| n.clone())
    }

    /// Names given with `--set` that no `let` of the texts run so far uses.
    pub fn unused_overrides(&self) -> Vec<String> {
        self.overrides
            .iter()
            .filter(|(n, _)| {
                !matches!(
                    self.names.get(n),
                    Some(crate::ir::names::Item::Global { .. })
                )
            })
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Sets overridden globals of this program; returns their ids.
    fn apply_overrides(&mut self, program: &crate::syntax::ast::Program) -> Vec<u32> {
        let mut ids = Vec::new();
        for stmt in &program.stmts {
            if let crate::syntax::ast::StmtKind::Let { name, .. } = &stmt.kind {
                if let Some((_, v)) = self.overrides.iter().find(|(n, _)| *n == name.name) {
                    if let Some(crate::ir::names::Item::Global { id, .. }) =
                        self.names.get(&name.name)
                    {
                        self.set_global(*id, v.clone());
                        ids.push(*id);
                    }
                }
            }
        }
        ids
    }

    fn set_global(&self, id: u32, v: Value) {
        let mut globals = self.rt.globals.borrow_mut();
        if globals.len() <= id as usize {
            globals.resize(id as usize + 1, None);
        }
        globals[id as usize] = Some(v);
    }

    /// Compiles the program's definitions into the runtime.
    fn install(&mut self, lowered: &Lowered) {
        let mut aliases = self.rt.aliases();
        aliases.extend(
            lowered
                .games
                .iter()
                .filter(|(_, g)| matches!(g.body, IrGameBody::Alias(_)))
                .map(|(id, _)| *id),
        );
        for (id, f) in &lowered.fns {
            let i = *id as usize;
            if self.rt.fn_ir.len() <= i {
                self.rt.fn_ir.resize(i + 1, None);
            }
            self.rt.fn_ir[i] = Some(Rc::new(f.clone()));
        }
        for (id, g) in &lowered.games {
            let i = *id as usize;
            if self.rt.game_ir.len() <= i {
                self.rt.game_ir.resize(i + 1, None);
            }
            self.rt.game_ir[i] = Some(Rc::new(g.clone()));
        }
        let compiler = Compiler::new(&aliases, &self.rt.fn_ir);
        let fns: Vec<_> = lowered
            .fns
            .iter()
            .map(|(id, f)| (*id, compiler.function(f)))
            .collect();
        let games: Vec<_> = lowered
            .games
            .iter()
            .map(|(id, g)| (*id, compiler.game(*id, g)))
            .collect();
        for (id, f) in fns {
            self.rt.set_fn(id, f);
        }
        for (id, g) in games {
            self.rt.set_game(id, g);
        }
    }

    /// Runs one statement; Ok(true) for a passed assertion.
    fn run_stmt(&mut self, stmt: &IrStmt, out: &mut dyn Write) -> Fallible<bool> {
        let aliases = self.rt.aliases();
        let compiler = Compiler::new(&aliases, &self.rt.fn_ir);
        match stmt {
            IrStmt::Let {
                global,
                value,
                n_slots,
            } => {
                let code = compiler.expr(value);
                // A plot kept in a name keeps its expression as its title.
                let v = self.titled(self.eval(&code, *n_slots, value.span)?, value.span);
                self.set_global(*global, v);
                Ok(false)
            }
            IrStmt::Print { exprs, n_slots } => {
                let mut parts = Vec::new();
                for e in exprs {
                    let code = compiler.expr(e);
                    let v = self.titled(self.eval(&code, *n_slots, e.span)?, e.span);
                    write_plot(&v, e.span)?;
                    parts.push(text_of(&self.format, &mut self.last_table, &v, false));
                }
                let _ = writeln!(out, "{}", parts.join(" "));
                Ok(false)
            }
            IrStmt::Show { expr, n_slots } => {
                let code = compiler.expr(expr);
                let v = self.titled(self.eval(&code, *n_slots, expr.span)?, expr.span);
                write_plot(&v, expr.span)?;
                if let Some(show) = self.show.as_mut() {
                    if show(&v) {
                        if let Some(t) = table_in(&v) {
                            self.last_table = Some(t.clone());
                        }
                        return Ok(false);
                    }
                }
                let _ = writeln!(
                    out,
                    "{}",
                    text_of(&self.format, &mut self.last_table, &v, true)
                );
                Ok(false)
            }
            IrStmt::Assert { expr, n_slots } => self.assert(&compiler, expr, *n_slots),
        }
    }

    /// A plot without a title gets the text of the expression at `span`
    /// (the statement's: `plot(t)` is titled `t`).
    fn titled(&self, v: Value, span: Span) -> Value {
        match &v {
            Value::Plot(p) if p.title.is_none() => {
                Value::Plot(Rc::new(p.titled(self.sources.snippet(span))))
            }
            _ => v,
        }
    }

    fn eval(&self, code: &Code, n_slots: usize, span: Span) -> Fallible<Value> {
        let mut env = Env::new(&self.rt);
        env.with_frame([], n_slots, span, |env| code(env))
    }

    /// Checks an assertion; a comparison shows both sides when it fails.
    fn assert(&self, compiler: &Compiler, expr: &IrExpr, n_slots: usize) -> Fallible<bool> {
        let mut env = Env::new(&self.rt);
        let text = self.sources.snippet(expr.span).to_string();
        let failed = |detail: String, help: Option<String>| {
            let mut d = Diag::new(
                ErrorKind::AssertFailed,
                expr.span,
                format!("assertion failed: {text}"),
            )
            .label(detail);
            if let Some(h) = help {
                d = d.help(h);
            }
            Err(d.boxed())
        };
        if let IrKind::Binary {
            op: op @ (BinaryOp::Eq | BinaryOp::Ne),
            lhs,
            rhs,
            op_span,
        } = &expr.kind
        {
            let (l, r) = (compiler.expr(lhs), compiler.expr(rhs));
            let (a, b) = env.with_frame([], n_slots, expr.span, |env| Ok((l(env)?, r(env)?)))?;
            let holds = (a == b) == (*op == BinaryOp::Eq);
            if holds {
                return Ok(true);
            }
            let _ = op_span;
            return failed(
                format!("left side is {}", short(&a)),
                Some(format!(
                    "left:  {}\nright: {}{}",
                    long(&a),
                    long(&b),
                    first_difference(&a, &b)
                )),
            );
        }
        let code = compiler.expr(expr);
        env.counterexample = None;
        let v = env.with_frame([], n_slots, expr.span, |env| code(env))?;
        if expect_bool(&v, expr.span)? {
            return Ok(true);
        }
        match env.counterexample.take() {
            Some(c) => failed(
                format!("false for {c}"),
                Some(format!("first counterexample: {c}")),
            ),
            None => failed("this is false".to_string(), None),
        }
    }
}

/// The text of a printed (`shown` false) or shown value; remembers a table
/// as the last one.
fn text_of(
    format: &Option<ValueFormat>,
    last_table: &mut Option<Rc<Table>>,
    v: &Value,
    shown: bool,
) -> String {
    if let Some(t) = table_in(v) {
        *last_table = Some(t.clone());
    }
    match format.as_ref().and_then(|f| f(v)) {
        Some(text) => text,
        None if shown => format!("{v:#}"),
        None => format!("{v}"),
    }
}

/// The table of a table or plot value (what `:plot` and `--plot` take).
fn table_in(v: &Value) -> Option<&Rc<Table>> {
    match v {
        Value::Table(t) => Some(t),
        Value::Plot(p) => Some(&p.table),
        _ => None,
    }
}

/// A statement that prints or shows `plot(T, FILE)` writes its files.
fn write_plot(v: &Value, span: Span) -> Fallible<()> {
    let Value::Plot(p) = v else { return Ok(()) };
    crate::report::plot::write_plot(p).map(|_| ()).map_err(|e| {
        Diag::new(ErrorKind::Invalid, span, e)
            .label("this plot's files could not be written")
            .boxed()
    })
}

/// Text on one line: runs of whitespace become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn short(v: &Value) -> String {
    let s = format!("{v:#}");
    if s.len() > 60 && !s.contains('\n') {
        format!(
            "{}…",
            &s[..s.char_indices().nth(57).map_or(s.len(), |(i, _)| i)]
        )
    } else if s.contains('\n') {
        format!("a {}", v.kind())
    } else {
        s
    }
}

fn long(v: &Value) -> String {
    match v {
        Value::Table(_) => format!("\n{v:#}"),
        _ => format!("{v:#}"),
    }
}

/// Where two lists first differ, for long lists and tables.
fn first_difference(a: &Value, b: &Value) -> String {
    let rows = |v: &Value| -> Option<Vec<Value>> {
        match v {
            Value::Table(t) => Some(t.rows.iter().map(|r| Value::list(r.clone())).collect()),
            _ => v.items().map(|i| i.to_vec()),
        }
    };
    let (Some(xs), Some(ys)) = (rows(a), rows(b)) else {
        return String::new();
    };
    for (i, (x, y)) in xs.iter().zip(&ys).enumerate() {
        if x != y {
            return format!(
                "\nfirst difference at index {i}: {} vs {}",
                short(x),
                short(y)
            );
        }
    }
    if xs.len() != ys.len() {
        return format!("\nlengths differ: {} vs {}", xs.len(), ys.len());
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(session: &mut Session, text: &str) -> String {
        let mut out = Vec::new();
        let r = session.run("t", text, &mut out);
        assert!(r.ok(), "{text}");
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_session_on_demand_loads_the_prelude_for_a_text_that_names_it() {
        let mut lazy = Session::on_demand(Limits::default());
        output(&mut lazy, "let x = 1");
        assert!(lazy.names.get("octal_game").is_none());
        assert!(lazy.rt.prelude.is_empty());
        // The families answer as in a session that loaded it first.
        let text = "print [sg(octal(\"0.137\")(n)) for n in 0..12]
                    print sg(subtraction({1, 2, 5})(9))";
        let mut eager = Session::new(Limits::default());
        assert_eq!(output(&mut lazy, text), output(&mut eager, text));
        assert_eq!(lazy.rt.prelude.len(), 2);
        // Through `--set` as well, kept after the override's names go.
        let mut set = Session::on_demand(Limits::default());
        set.set_override("G", "subtraction_game[{1, 3}]").unwrap();
        assert!(set.names.get("subtraction_game").is_some());
        assert_eq!(output(&mut set, "let G = 0\nprint sg(G(4))"), "0\n");
        // A file naming a family, run with `--set` of its own `let`: the
        // prelude loads without the override (it has no such `let`).
        let mut file = Session::on_demand(Limits::default());
        file.set_override("N", "11").unwrap();
        let text = "let N = 3\nprint [sg(octal(\"0.137\")(n)) for n in 0..=N]";
        let mut eager = Session::new(Limits::default());
        eager.set_override("N", "11").unwrap();
        assert_eq!(output(&mut file, text), output(&mut eager, text));
        assert_eq!(output(&mut file, text).matches(',').count(), 11);
    }
}
