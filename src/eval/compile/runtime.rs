//! The evaluator's state: compiled functions and games, global values, game
//! instances with their memo tables, limits; and `Env`, the value stack that
//! compiled code runs on.
//!
//! The compiled program (`Code`, `CompiledGame`, ...) and the `Sink`
//! that move code feeds are defined here too: they are closures over
//! `Env` while the runtime holds them, so the machine and its program
//! are one layer, below the modules that compile to them.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::frame::KeyFrame;
use super::int_code::BoolCode;
use super::kernel::{Bound, Kernel};
use super::rank_fill::FillOrder;
use super::where_line::WhereLine;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::builtins::Builtin;
use crate::eval::gsg::InfSets;
use crate::eval::memo::{InfiniteMemo, Key, Located, Memo, Shape, HASHED_BYTES};
use crate::eval::product_tables::{ProductTables, RootKey};
use crate::eval::value::{Compound, CompoundKind, Game, InstanceId, Value};
use crate::ir::ir::{FnId, GameId, Slot};
use crate::syntax::Span;

pub type Code = Box<dyn Fn(&mut Env) -> Fallible<Value>>;
/// Runs one move rule, giving every option it yields to the sink.
pub type MoveCode = Box<dyn Fn(&mut Env, &mut dyn Sink) -> Fallible<()>>;

pub struct CompiledFn {
    pub name: Rc<str>,
    pub n_args: usize,
    pub n_slots: usize,
    pub body: Code,
    pub span: Span,
}

pub struct CompiledGame {
    pub id: GameId,
    pub name: Rc<str>,
    pub param_names: Vec<Rc<str>>,
    pub n_statics: usize,
    pub n_params: usize,
    pub n_slots: usize,
    pub where_clause: Option<Code>,
    /// The `where` clause as integer code on a position's integers
    /// (`KeyFrame`), when it has that form.
    pub(crate) where_ints: Option<BoolCode<KeyFrame>>,
    /// The same on a frame of integers, for positions whose static
    /// arguments and arguments are all integers (the commonest case).
    pub(crate) where_flat: Option<BoolCode<[i64]>>,
    /// The same as bounds on that frame, when it is one (`bounds_of`).
    pub(crate) where_bounds: Option<Vec<Bound>>,
    /// The same read along a line of positions (`where_line.rs`).
    pub(crate) where_line: Option<WhereLine>,
    pub where_span: Option<Span>,
    pub body: CompiledBody,
    /// A plan per move, when some move has a kernel form.
    pub(crate) kernel: Option<Kernel>,
    /// The order a level of its lists kept by rank is filled in at once
    /// (`compile::fill_order`), decided here once: a sweep asks a fill
    /// only of games that have one.
    pub(crate) fill_order: Option<FillOrder>,
    /// How the search evaluates the game (`--explain`), a line each.
    pub explanation: Vec<String>,
    /// Its moves or `where` read a top-level constant (`specialize.rs`).
    pub reads_constants: bool,
    /// Its position is one list its memo lays out by rank in this order
    /// (`item_sum.rs`): sorted lists by largest item, or lists whose item
    /// sum no move raises by sum.
    pub sequence_order: Option<crate::eval::memo::Order>,
    pub span: Span,
}

pub enum CompiledBody {
    Moves(Vec<CompiledMove>),
    Alias(Code),
}

pub struct CompiledMove {
    pub label: Rc<str>,
    /// The move in the rule file, for errors about where it leads.
    pub span: Span,
    /// Binding names and slots, for listing options.
    pub names: Vec<(Rc<str>, Slot)>,
    pub run: MoveCode,
}

pub fn eval_all(env: &mut Env, codes: &[Code]) -> Fallible<Vec<Value>> {
    codes.iter().map(|c| c(env)).collect()
}

/// Where a move leads.
pub enum Target<'a> {
    Zero,
    Position(InstanceId, &'a Key),
    /// A sum of two or more positions, in the order the move writes them.
    Sum(&'a [(InstanceId, Key)]),
    Game(&'a Game),
}

/// Receives the options of a position, one at a time. The bindings of the
/// move are in the current frame of `env` while `option` runs.
pub trait Sink {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()>;
}

/// Options `instance(bases + coefs * k)` for `k` in `lo..hi`, keys of
/// `shape`; every coordinate is known to fit in 64 bits over the run.
#[derive(Clone, Copy)]
pub struct AffineRun<'a> {
    pub instance: InstanceId,
    pub lo: i64,
    pub hi: i64,
    pub shape: Shape,
    pub n_args: u8,
    pub bases: &'a [i64],
    pub coefs: &'a [i64],
}

impl AffineRun<'_> {
    /// The key of the option for `k`.
    pub fn key_at(&self, k: i64, key: &mut Key) {
        key.set_raw(
            self.shape,
            self.n_args,
            self.bases.iter().zip(self.coefs).map(|(b, c)| b + c * k),
        );
    }
}

/// A game and its static arguments.
type InstanceKey = (GameId, Rc<[Value]>);

/// One game instance: a game with its static arguments, and its memo.
pub struct Instance {
    /// Its compiled moves: how it generates its options.
    pub game: Rc<CompiledGame>,
    pub statics: Rc<[Value]>,
    pub name: Rc<str>,
    pub memo: RefCell<Memo>,
    /// The positions of infinite value (loopy games; `crate::eval::gsg`),
    /// which the memo marks `State::OnPath` so that any search reaching
    /// one hands over to the loopy labelling.
    pub infinite: RefCell<InfiniteMemo>,
    /// For the instance of a compound layer (`Runtime::layered_instance`):
    /// which compound of which instance its positions stand for.
    pub layer: Option<Layer>,
}

/// A compound of one position, searched as a copy of the position's
/// instance with a memo of its own: the positions of `base` under
/// `kind` (`search/layered.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layer {
    pub base: InstanceId,
    pub kind: LayerKind,
}

/// Most passes a compound runs as layers (one instance each); more go to
/// the product search, which keeps the count in its keys.
pub const MOST_LAYERED_PASSES: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayerKind {
    /// `pass(G, n)`: `n` passes left (at least 1).
    Pass(u32),
    /// `misere(G)`.
    Misere,
}

impl LayerKind {
    /// The layer of a compound of one position, if it has one.
    pub fn of(kind: &CompoundKind) -> Option<LayerKind> {
        match kind {
            CompoundKind::Pass(n) => Some(LayerKind::Pass(*n)),
            CompoundKind::Misere => Some(LayerKind::Misere),
            _ => None,
        }
    }
}

impl Layer {
    /// The value of an option that is the zero game: terminal, so 0 in
    /// normal play and 1 in misère play.
    pub fn zero_value(&self) -> u64 {
        match self.kind {
            LayerKind::Pass(_) => 0,
            LayerKind::Misere => 1,
        }
    }
}

impl Instance {
    /// The static arguments its compiled code reads at the front of its
    /// frame: none when the game was compiled for them
    /// (`Above::specialize`), which puts them in as constants.
    #[inline]
    pub fn frame_statics(&self) -> &[Value] {
        let g = &self.game;
        &self.statics[..g.n_statics]
    }
}

#[derive(Clone, Debug)]
pub struct Limits {
    /// Most positions stored over all memo tables before the search
    /// stops; by default none (`usize::MAX`): the memory budget stops a
    /// search that outgrows the machine.
    pub max_states: usize,
    /// Deepest nesting of user function calls.
    pub max_call_depth: usize,
    /// Most bytes the process may hold (counted by `crate::budget`) before
    /// an evaluation stops with `grundy::out_of_memory`.
    pub max_memory: usize,
    /// Longest a text (a file, a REPL entry) may run before it stops with
    /// `grundy::timeout`; `None`: no limit.
    pub timeout: Option<std::time::Duration>,
    /// The fast plans the evaluator may use: all by default; off, one by
    /// one or together, only to check them against the general path.
    pub plans: Plans,
}

/// Declares `Plans` with one flag per plan, and its `ALL`, `NONE` and
/// `each_off`, so that a plan added is switched off by the tests too.
macro_rules! plans {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// The evaluator's fast plans, each of which must give what the
        /// general path gives (values and errors): `tests/generated_games.rs`
        /// switches them off in turn.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Plans {
            $($(#[doc = $doc])* pub $name: bool,)*
        }

        impl Plans {
            /// Every plan on: the default.
            pub const ALL: Plans = Plans { $($name: true,)* };
            /// The general path alone.
            pub const NONE: Plans = Plans { $($name: false,)* };

            /// Every plan on but one, named.
            pub fn each_off() -> Vec<(&'static str, Plans)> {
                vec![$((stringify!($name), Plans { $name: false, ..Plans::ALL }),)*]
            }
        }
    };
}

plans! {
    /// Game kernels: positions searched on frames of integers or keys,
    /// options read from the memo (`compile::kernel`, `compile::key_kernel`).
    kernels,
    /// `where` clauses decided by integer code (`compile::where_check`).
    where_code,
    /// Games compiled for their static arguments and top-level constants
    /// (`compile::specialize`).
    specialize,
    /// Tables asked over a range swept bottom-up (`compile::line_sweep`),
    /// and lists filtered with their items tested in place
    /// (`compile::filter`).
    sweeps,
    /// `pass(G(x), n)` and `misere(G(x))` searched as layers of `G`, on
    /// its kernel when it has one (`search/layered.rs`), not by the
    /// product search.
    compound_layers,
    /// Tables of sums and compounds of positions asked along their
    /// innermost range, what does not move decided once per line
    /// (`compile::query_line`).
    query_lines,
    /// Options of a list kept by rank read from the position's own items
    /// and the move's changes (`compile::rank_shift`), no key written.
    rank_shifts,
    /// Tables of lists kept by rank filled a level at a time, options
    /// before parents (`compile::rank_fill`), when a sweep asks them.
    rank_fills,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_states: usize::MAX,
            max_call_depth: 20_000,
            max_memory: crate::budget::default_limit(),
            timeout: None,
            plans: Plans::ALL,
        }
    }
}

/// `compile::specialized_game`: a game, an instance's static arguments
/// and name, and whether to compile only if the game reads constants.
pub type Specialize = fn(&Runtime, GameId, &[Value], &Rc<str>, bool) -> Option<CompiledGame>;

/// `Above::search_swept`.
pub type SearchSwept = fn(
    &mut Env,
    &mut Option<Box<dyn std::any::Any>>,
    (InstanceId, &Instance),
    &Key,
    Located,
    Span,
) -> Fallible<Option<u64>>;

/// A position of a swept line for `Above::value_on_line`: its place in
/// the window (a line by coordinates or by rank), its shape, its
/// coordinates with the moving one, `coord`, set to the position's.
pub struct OnLine<'a> {
    pub at: Located,
    pub shape: Shape,
    pub n_args: u8,
    pub coords: &'a [i64],
    pub coord: usize,
    pub span: Span,
}

/// `Above::value_on_line`.
pub type ValueOnLine = fn(
    &mut Env,
    &mut Option<Box<dyn std::any::Any>>,
    (InstanceId, &Instance),
    &OnLine<'_>,
) -> Fallible<Option<u64>>;

/// What compiled code asks of the layers above it: the search, the
/// product search and the game questions run compiled code, and compiled
/// code asks them for values (`sg(G(x))` in a move rule). The top of
/// `eval` fills this in once (`eval::new_runtime`); each query costs one
/// call through a pointer, no search loop calls through it per option.
#[derive(Clone, Copy)]
pub struct Above {
    /// The built-ins that ask about games (`sg`, `outcome`, `options`,
    /// `winning`, `octal_game`, `periodicity`): `query::game_builtin`.
    pub game_builtin: fn(&mut Env, Builtin, &[Value], Span) -> Fallible<Value>,
    /// `search::search_located`: a position's value, its memo entry
    /// possibly located already.
    pub search_located: fn(&mut Env, InstanceId, &Key, Option<Located>, Span) -> Fallible<u64>,
    /// `search::search_swept`: `search_located` of a position a sweep
    /// found in its window, on the search's buffers it holds; `None`
    /// when a compound's layer hands it to the general way.
    pub search_swept: SearchSwept,
    /// `search::value_on_line`: an unknown position of a swept line
    /// valued on its game's kernel, the frame and the moves' set-up that
    /// do not read the moving coordinate kept for the line in the held
    /// buffers; `None` (nothing stored) where it needs the search.
    pub value_on_line: ValueOnLine,
    /// `search::fill_ranked`: the level of a list kept by rank filled
    /// without a search, when its game's moves allow; true if done.
    pub fill_ranked: fn(&mut Env, InstanceId, &Key, Span) -> Fallible<bool>,
    /// `search::sg_of_position`.
    pub sg_of_position: fn(&mut Env, InstanceId, &Key, Span) -> Fallible<u64>,
    /// `product::sg`: the value of a compound game value.
    pub sg_of_compound: fn(&mut Env, &Compound, Span) -> Fallible<u64>,
    /// `search::sg_of_layered`: `pass(G(x), n)` or `misere(G(x))` of the
    /// position `key` of `instance` on its game's kernel; `None` when the
    /// product search must value it.
    pub sg_of_layered: fn(&mut Env, LayerKind, InstanceId, &Key, Span) -> Fallible<Option<u64>>,
    /// `product::sg_of_atoms`: a compound (or a sum) given as its parts'
    /// atoms.
    pub sg_of_atoms: fn(&mut Env, &mut RootKey, Span) -> Fallible<u64>,
    /// `loopy::label_position`: the generalised value of a position
    /// whose search met a cycle or a position of infinite value.
    pub label_loopy: fn(&mut Env, InstanceId, &Key, Span) -> Fallible<u64>,
    /// `compile::specialized_game`: a game compiled for one instance's
    /// static arguments (`Runtime::user_instance` and `swept_instance`
    /// decide when).
    pub specialize: Specialize,
}

pub struct Runtime {
    pub fns: Vec<Option<Rc<CompiledFn>>>,
    /// The IR of every function, for inlining.
    pub fn_ir: Vec<Option<Rc<crate::ir::ir::IrFn>>>,
    /// The IR of every game, to compile it for an instance's static
    /// arguments (`Above::specialize`).
    pub game_ir: Vec<Option<Rc<crate::ir::ir::IrGame>>>,
    pub games: Vec<Option<Rc<CompiledGame>>>,
    pub globals: RefCell<Vec<Option<Value>>>,
    instances: RefCell<Vec<Rc<Instance>>>,
    instance_ids: RefCell<FxHashMap<InstanceKey, InstanceId>>,
    /// The instances of compound layers (`layered_instance`).
    layer_ids: RefCell<FxHashMap<Layer, InstanceId>>,
    /// The compounds of one position being searched as layers now
    /// (`search/layered.rs`): one asked again within its own search goes
    /// to the product search instead of starting that search again.
    pub layering: RefCell<Vec<(Layer, crate::eval::memo::Key)>>,
    /// How this text's compounds were valued, a line per plan, for
    /// `--explain`, noted only while `explaining`.
    pub compound_plans: RefCell<Vec<String>>,
    pub explaining: Cell<bool>,
    pub limits: Limits,
    /// Compound positions (pass, misère, conjunctive ...) and their parts.
    pub product: RefCell<ProductTables>,
    /// Positions stored over all memo tables.
    pub stored: Cell<usize>,
    /// Bumped whenever instance ids or the product tables' atoms are
    /// forgotten (`clear_memos`), so caches of them expire.
    pub generation: Cell<u32>,
    /// Heap values of `octal_game` instances, computed by the dedicated
    /// engine (`crate::takebreak`).
    pub takebreak: RefCell<FxHashMap<InstanceId, crate::takebreak::Engine>>,
    /// Games of the built-in prelude (`subtraction_game`, `octal_game`).
    pub prelude: Vec<(&'static str, GameId)>,
    /// Set from another thread (Ctrl-C) to stop a long computation.
    pub interrupt: Arc<AtomicBool>,
    /// How far the outermost loop of a comprehension has got, for a
    /// progress bar drawn by another thread.
    pub progress: Arc<Progress>,
    /// When the text being run must stop (`Limits::timeout`).
    pub deadline: Cell<Option<std::time::Instant>>,
    /// The K sets of infinite SG values (loopy games).
    pub inf_sets: RefCell<InfSets>,
    /// What each loopy labelling built, for `--explain`.
    pub loopy_runs: RefCell<Vec<String>>,
    /// The layers above compiled code.
    pub above: Above,
}

impl Runtime {
    pub fn new(limits: Limits, above: Above) -> Runtime {
        Runtime {
            fns: Vec::new(),
            fn_ir: Vec::new(),
            game_ir: Vec::new(),
            games: Vec::new(),
            globals: RefCell::default(),
            instances: RefCell::default(),
            instance_ids: RefCell::default(),
            layer_ids: RefCell::default(),
            layering: RefCell::default(),
            compound_plans: RefCell::default(),
            explaining: Cell::default(),
            limits,
            product: RefCell::default(),
            stored: Cell::default(),
            generation: Cell::default(),
            takebreak: RefCell::default(),
            prelude: Vec::new(),
            interrupt: Arc::default(),
            progress: Arc::default(),
            deadline: Cell::default(),
            inf_sets: RefCell::default(),
            loopy_runs: RefCell::default(),
            above,
        }
    }

    pub fn set_fn(&mut self, id: FnId, f: CompiledFn) {
        let i = id as usize;
        if self.fns.len() <= i {
            self.fns.resize(i + 1, None);
        }
        self.fns[i] = Some(Rc::new(f));
    }

    pub fn set_game(&mut self, id: GameId, g: CompiledGame) {
        let i = id as usize;
        if self.games.len() <= i {
            self.games.resize(i + 1, None);
        }
        self.games[i] = Some(Rc::new(g));
    }

    pub fn game(&self, id: GameId) -> &Rc<CompiledGame> {
        self.games[id as usize]
            .as_ref()
            .expect("lowering only refers to compiled games")
    }

    pub fn func(&self, id: FnId) -> &Rc<CompiledFn> {
        self.fns[id as usize]
            .as_ref()
            .expect("lowering only refers to compiled functions")
    }

    pub fn instance(&self, id: InstanceId) -> Rc<Instance> {
        self.instances.borrow()[id.0 as usize].clone()
    }

    /// `user_instance` of a game without static arguments, kept in
    /// `cached` (a call site's) until the instances are forgotten.
    #[inline]
    pub fn plain_instance(
        &self,
        game: GameId,
        cached: &Cell<Option<(u32, InstanceId)>>,
    ) -> InstanceId {
        let generation = self.generation.get();
        match cached.get() {
            Some((g, id)) if g == generation => id,
            _ => {
                let id = self.user_instance(game, Rc::from(Vec::new()));
                cached.set(Some((generation, id)));
                id
            }
        }
    }

    /// The games whose bodies are aliases: their positions are expanded,
    /// never keyed.
    pub fn aliases(&self) -> HashSet<GameId> {
        (self.games.iter().enumerate())
            .filter(|(_, g)| {
                g.as_ref()
                    .is_some_and(|g| matches!(g.body, CompiledBody::Alias(_)))
            })
            .map(|(i, _)| i as GameId)
            .collect()
    }

    /// The instance of a user game with these static arguments, created on
    /// first use (compiled for them when they are not all integers, unless
    /// that plan is off: `Plans::specialize`).
    pub fn user_instance(&self, game: GameId, statics: Rc<[Value]>) -> InstanceId {
        self.instance_for(game, statics, false)
    }

    /// `user_instance` for a sweep, which asks many positions: compiled
    /// for its static arguments even when they are integers (integers run
    /// on kernel frames anyway; compiled in, they let the sweep take the
    /// line), if the sweep creates it.
    pub fn swept_instance(&self, game: GameId, statics: Rc<[Value]>) -> InstanceId {
        self.instance_for(game, statics, true)
    }

    fn instance_for(&self, game: GameId, statics: Rc<[Value]>, ints_too: bool) -> InstanceId {
        let key = (game, statics);
        if let Some(id) = self.instance_ids.borrow().get(&key) {
            return *id;
        }
        let generic = self.game(game).clone();
        let name: Rc<str> = if key.1.is_empty() {
            generic.name.clone()
        } else {
            let args: Vec<String> = key.1.iter().map(|v| format!("{v:#}")).collect();
            Rc::from(format!("{}[{}]", generic.name, args.join(", ")))
        };
        // Each compiled instance costs about 2 KiB and a few microseconds:
        // not paid for integer arguments, which kernels read anyway, unless
        // a sweep asks.
        let ints = key.1.iter().all(|v| matches!(v, Value::Int(_)));
        // A game reading top-level constants is compiled for their values
        // whatever its static arguments.
        let for_statics = !key.1.is_empty() && (ints_too || !ints);
        let specialized = (self.limits.plans.specialize
            && (for_statics || generic.reads_constants))
            .then(|| (self.above.specialize)(self, game, &key.1, &name, !for_statics))
            .flatten();
        let g = specialized.map_or(generic, Rc::new);
        let memo = self.memo_for(&g);
        let mut list = self.instances.borrow_mut();
        let id = InstanceId(list.len() as u32);
        list.push(Rc::new(Instance {
            game: g,
            statics: key.1.clone(),
            name,
            memo: RefCell::new(memo),
            infinite: RefCell::default(),
            layer: None,
        }));
        self.instance_ids.borrow_mut().insert(key, id);
        id
    }

    /// An empty memo for positions of `g`: lists laid out by rank when
    /// they are sorted or no move raises their sum (and kernels run, which
    /// read such a memo along their runs).
    fn memo_for(&self, g: &CompiledGame) -> Memo {
        match g.sequence_order.filter(|_| self.limits.plans.kernels) {
            Some(order) => Memo::ranking_sequences(order),
            None => Memo::default(),
        }
    }

    /// The instance whose positions are those of `layer.base` under the
    /// layer's compound: the base's rules (its moves stay in the instance
    /// that runs them) and a memo of its own.
    pub fn layered_instance(&self, layer: Layer) -> InstanceId {
        if let Some(&id) = self.layer_ids.borrow().get(&layer) {
            return id;
        }
        let base = self.instance(layer.base);
        let mut list = self.instances.borrow_mut();
        let id = InstanceId(list.len() as u32);
        list.push(Rc::new(Instance {
            game: base.game.clone(),
            statics: base.statics.clone(),
            name: base.name.clone(),
            memo: RefCell::new(Memo::default()),
            infinite: RefCell::default(),
            layer: Some(layer),
        }));
        self.layer_ids.borrow_mut().insert(layer, id);
        id
    }

    /// Why the compound `layer` of a position of `layer.base` cannot be
    /// searched as layers of its game (`search/layered.rs`), the product
    /// search valuing it instead; `None` when it can. A sweep of a
    /// compound's table asks it once per line, the query once per query.
    pub fn layer_refusal(&self, layer: Layer) -> Option<&'static str> {
        if !self.limits.plans.compound_layers {
            return Some("Plans::compound_layers off");
        }
        let inst = self.instance(layer.base);
        let g = &inst.game;
        match &g.kernel {
            _ if inst.layer.is_some() => Some("a compound of a compound's layer"),
            Some(k) if !k.moves_to_single_positions() => {
                Some("a move of its game leads to a sum, so a position is a multiset of components")
            }
            _ if matches!(layer.kind, LayerKind::Pass(n) if n > MOST_LAYERED_PASSES) => {
                Some("more passes than the layers kept (64)")
            }
            _ => None,
        }
    }

    /// Each value stored for a compound layer of `kind` (`memo_histogram`
    /// of a compound), to `f`.
    pub fn for_each_layer_value(&self, kind: impl Fn(LayerKind) -> bool, mut f: impl FnMut(u64)) {
        for inst in self.instances.borrow().iter() {
            if inst.layer.is_some_and(|l| kind(l.kind)) {
                inst.memo.borrow().for_each_value(&mut f);
            }
        }
    }

    /// Notes how a compound was valued, for `--explain` (each plan once).
    pub fn note_compound_plan(&self, line: impl FnOnce() -> String) {
        if !self.explaining.get() {
            return;
        }
        let mut plans = self.compound_plans.borrow_mut();
        if plans.len() < 100 {
            let line = line();
            if !plans.contains(&line) {
                plans.push(line);
            }
        }
    }

    /// The explanations (`--explain`) of the instances of `game` that were
    /// compiled for their static arguments, in the order they were made.
    pub fn specialized_explanations(&self, game: GameId) -> Vec<String> {
        /// Instances evaluated the same way (`CB2L[hs]` for ten lists `hs`
        /// in examples/chocolate_bar) are shown once: the first in full,
        /// the others counted and this many of them named.
        const NAMED: usize = 3;
        let generic = self.game(game);
        // Per plan: its first instance, and how many more, the first named.
        let mut plans: Vec<(&CompiledGame, Vec<&str>, usize)> = Vec::new();
        let instances = self.instances.borrow();
        for inst in instances.iter() {
            let g = &inst.game;
            if g.id != game || Rc::ptr_eq(g, generic) || inst.layer.is_some() {
                continue;
            }
            match plans.iter_mut().find(|(first, ..)| same_plan(first, g)) {
                Some((_, named, more)) => {
                    *more += 1;
                    if named.len() < NAMED {
                        named.extend(plan(g).map(|(name, _)| name));
                    }
                }
                None => plans.push((g, Vec::new(), 0)),
            }
        }
        let mut lines = Vec::new();
        for (first, named, more) in plans {
            lines.extend(first.explanation.iter().cloned());
            if more > 0 {
                let etc = if more > named.len() { ", ..." } else { "" };
                let s = if more == 1 { "" } else { "s" };
                lines.push(format!(
                    "  the same for {more} more instance{s}: {}{etc}",
                    named.join(", ")
                ));
            }
        }
        lines
    }

    /// Drops every memo table (the instances stay valid).
    pub fn clear_memos(&self) {
        for inst in self.instances.borrow().iter() {
            *inst.memo.borrow_mut() = Memo::default();
        }
        *self.product.borrow_mut() = Default::default();
        self.generation.set(self.generation.get().wrapping_add(1));
        self.takebreak.borrow_mut().clear();
        self.stored.set(0);
    }

    /// The periodic check of long computations: Ctrl-C, the memory
    /// budget and the deadline.
    pub fn check_interrupt(&self, span: Span) -> Fallible<()> {
        if self.interrupt.swap(false, Ordering::Relaxed) {
            return Diag::new(ErrorKind::Interrupted, span, "interrupted")
                .label("stopped while computing this")
                .help("the memo tables keep what was computed so far")
                .err();
        }
        self.check_memory(0, span)?;
        if let Some(deadline) = self.deadline.get() {
            if std::time::Instant::now() >= deadline {
                let secs = self.limits.timeout.map_or(0.0, |t| t.as_secs_f64());
                return Diag::new(
                    ErrorKind::Timeout,
                    span,
                    format!("timed out after {secs} s"),
                )
                .label("stopped while computing this")
                .help("raise the limit with --timeout SECONDS (in the REPL: :timeout SECONDS); the memo tables keep what was computed so far")
                .err();
            }
        }
        Ok(())
    }

    /// Whether [`Runtime::check_interrupt`] would stop now, for loops
    /// outside the evaluator (the take-and-break engine) that ask without
    /// a span; the check then says why.
    pub fn should_stop(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
            || crate::budget::in_use() > self.limits.max_memory
            || crate::budget::growth_refused()
            || self
                .deadline
                .get()
                .is_some_and(|d| std::time::Instant::now() >= d)
    }

    /// Whether `extra` more bytes fit in the memory budget; the error
    /// names the expression at `span`.
    pub fn check_memory(&self, extra: usize, span: Span) -> Fallible<()> {
        crate::budget::check(self.limits.max_memory, extra, span)
    }

    /// Starts the clock of `Limits::timeout` for a new text, and makes its
    /// memory limit the one [`crate::budget::check_grow`] enforces.
    pub fn start_clock(&self) {
        crate::budget::set_limit(self.limits.max_memory);
        self.deadline
            .set(self.limits.timeout.map(|t| std::time::Instant::now() + t));
    }

    #[inline]
    pub fn count_stored(&self, span: Span, name: &str) -> Fallible<()> {
        self.count_stored_n(1, span, name)
    }

    /// Counts `n` more stored positions against the state limit.
    #[inline]
    pub fn count_stored_n(&self, n: usize, span: Span, name: &str) -> Fallible<()> {
        let n = self.stored.get().saturating_add(n);
        self.stored.set(n);
        if n <= self.limits.max_states {
            return Ok(()); // the usual case, without a call
        }
        self.check_states(0, span, name)
    }

    /// The state limit counts the positions a search holds on its stack
    /// (`stacked`, waiting for their values) with those stored: a game
    /// that walks away from its start hits it too. Waiting positions cost
    /// far more memory than stored ones (their whole key), so at most an
    /// eighth of the limit may wait: a position with billions of options
    /// stops within seconds, not when the machine runs out of memory.
    pub fn check_states(&self, stacked: usize, span: Span, name: &str) -> Fallible<()> {
        let max = self.limits.max_states;
        let max_waiting = max / WAITING_SHARE;
        if stacked > max_waiting {
            return Diag::new(
                ErrorKind::TooManyStates,
                span,
                format!(
                    "state space too large: more than {max_waiting} positions waiting on the search stack (while searching {name})"
                ),
            )
            .label("this search must hold more positions at once than the limit")
            .help(format!(
                "a position waits while its options are searched, at about {WAITING_BYTES} bytes each ({} here; the limit is 1/{WAITING_SHARE} of --max-states {max}); raise --max-states if memory allows, or query a smaller position",
                crate::budget::human(max_waiting.saturating_mul(WAITING_BYTES))
            ))
            .err();
        }
        if self.stored.get().saturating_add(stacked) > max {
            return Diag::new(
                ErrorKind::TooManyStates,
                span,
                format!(
                    "state space too large: more than {max} positions stored or waiting (while searching {name})"
                ),
            )
            .label("this search needs more positions than the limit")
            .help(format!(
                "--max-states {max} stands for up to about {} of memo tables ({HASHED_BYTES} bytes a hashed position, 1 byte a dense one; a position with a longer key counts once per {HASHED_BYTES} bytes of it); raise it if memory allows, or query a smaller position",
                crate::budget::human(max.saturating_mul(HASHED_BYTES))
            ))
            .err();
        }
        Ok(())
    }
}

/// At most 1/`WAITING_SHARE` of the state limit may wait on a search stack.
const WAITING_SHARE: usize = 8;
/// About what a waiting position costs: its key on the stack and in the
/// pending list, and its memo entry (measured on a 4-argument game).
const WAITING_BYTES: usize = 320;

/// Steps done out of a total (0: no loop is being tracked).
#[derive(Debug, Default)]
pub struct Progress {
    pub done: AtomicU64,
    pub total: AtomicU64,
}

/// The value stack compiled code runs on. A frame is `base..base + n_slots`.
pub struct Env<'r> {
    pub rt: &'r Runtime,
    pub stack: Vec<Value>,
    pub base: usize,
    pub depth: usize,
    /// The instance whose options are being enumerated.
    pub instance: InstanceId,
    /// Spare keys, so that writing an option's key allocates nothing.
    pub keys: Vec<Box<Key>>,
    /// Spare keys for the positions of a sum that a move leads to.
    pub sum_keys: Vec<(InstanceId, Key)>,
    /// The bindings at which the last `all(...)` failed, for `assert`.
    pub counterexample: Option<String>,
    /// Set by a comprehension for its first clause: track that loop's
    /// progress (if no outer loop is tracked already).
    pub track_next: bool,
    pub tracking: bool,
    /// Loop steps so far, for interrupt checks.
    pub ticks: u32,
    /// Reused buffer for a position's arguments.
    pub args_buf: Vec<Value>,
    /// Buffers of finished searches, for the next one (a
    /// `search::SearchScratch` each: the search, above, owns the type).
    pub scratch: Vec<Box<dyn std::any::Any>>,
}

impl<'r> Env<'r> {
    /// A swept line's progress shown from here: `total` elements.
    pub fn track_line(&mut self, total: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.rt.progress.done.store(0, Relaxed);
        self.rt.progress.total.store(total, Relaxed);
        self.tracking = true;
    }

    /// The line's progress no longer shown (`track_line`).
    pub fn untrack_line(&mut self) {
        self.tracking = false;
        (self.rt.progress.total).store(0, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn new(rt: &'r Runtime) -> Env<'r> {
        Env {
            rt,
            stack: Vec::with_capacity(256),
            base: 0,
            depth: 0,
            instance: InstanceId(0),
            keys: Vec::new(),
            sum_keys: Vec::new(),
            counterexample: None,
            scratch: Vec::new(),
            args_buf: Vec::new(),
            ticks: 0,
            track_next: false,
            tracking: false,
        }
    }

    #[inline]
    pub fn local(&self, slot: u32) -> &Value {
        &self.stack[self.base + slot as usize]
    }

    /// The current frame's slots, for integer code.
    #[inline]
    pub fn frame(&self) -> &[Value] {
        &self.stack[self.base..]
    }

    #[inline]
    pub fn set_local(&mut self, slot: u32, v: Value) {
        let i = self.base + slot as usize;
        self.stack[i] = v;
    }

    /// Counts a loop step; every 4096 steps, checks for an interrupt.
    #[inline]
    pub fn tick(&mut self, span: Span) -> Fallible<()> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks & 0xfff == 0 {
            self.rt.check_interrupt(span)?;
        }
        Ok(())
    }

    /// Sets an integer local; cheaper than `set_local` in loops, since the
    /// old value is usually an integer too and needs no drop.
    #[inline]
    pub fn set_local_int(&mut self, slot: u32, n: i64) {
        match &mut self.stack[self.base + slot as usize] {
            Value::Int(x) => *x = n,
            other => *other = Value::Int(n),
        }
    }

    /// Runs `f` in a new frame whose first slots are `args` and which has
    /// `n_slots` slots in all.
    pub fn with_frame<T>(
        &mut self,
        args: impl IntoIterator<Item = Value>,
        n_slots: usize,
        span: Span,
        f: impl FnOnce(&mut Env<'r>) -> Fallible<T>,
    ) -> Fallible<T> {
        if self.depth >= self.rt.limits.max_call_depth {
            return Diag::new(
                ErrorKind::Invalid,
                span,
                format!(
                    "recursion deeper than {} calls",
                    self.rt.limits.max_call_depth
                ),
            )
            .label("this call nests too deeply")
            .help("check that the recursion reaches its base case")
            .err();
        }
        // Calls count as steps: recursion without loops still sees
        // interrupts, the deadline and the memory budget.
        self.tick(span)?;
        let new_base = self.stack.len();
        self.stack.extend(args);
        self.stack.resize(new_base + n_slots, Value::Int(0));
        let (old_base, old_depth) = (self.base, self.depth);
        self.base = new_base;
        self.depth += 1;
        let result = f(self);
        self.stack.truncate(new_base);
        self.base = old_base;
        self.depth = old_depth;
        result
    }
}

/// Whether two instances of a game are evaluated the same way: their
/// explanations differ only in the name.
fn same_plan(a: &CompiledGame, b: &CompiledGame) -> bool {
    let plan = |g| plan(g).map(|(_, plan)| plan);
    plan(a).is_some_and(|p| Some(p) == plan(b))
}

/// An instance's name (`NAME[STATICS]`) and its explanation without it:
/// the headline past the name, and the lines after it. The statics end at
/// the last `]: `: a static string may hold one, the plan's words do not.
fn plan(g: &CompiledGame) -> Option<(&str, (&str, &[String]))> {
    let (headline, rest) = g.explanation.split_first()?;
    let named = headline.strip_prefix("game ")?;
    let statics = named.strip_prefix(&*g.name)?.strip_prefix('[')?;
    let (_, plan) = statics.rsplit_once("]: ")?;
    Some((&named[..named.len() - plan.len() - 2], (plan, rest)))
}
