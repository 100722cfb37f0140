//! The SG search itself: an iterative depth-first walk of positions
//! (`search_located`), memoised, with loop detection and a state limit, and
//! `SgSink`, which collects the values of a position's options. The sink
//! and the walk call each other (an option that is a compound is valued
//! by `sg_of_game`), so they are one module; the fast paths of the sink
//! are `impl SgSink` blocks in the modules next to this one.

use std::any::Any;
use std::ops::Range;
use std::rc::Rc;

use super::key_walk::{self, WalkScratch};
use super::marked::Marked;
use super::run_key::RunScratch;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::compile::{affine_fits, satisfies_where, AffineRun, CompiledBody, Sink, Target};
use crate::eval::compile::{int_frame, Env, Instance, Kernel, Layer, LayerKind};
use crate::eval::memo::scan::{scan, Marks, Strided, Walk};
use crate::eval::memo::{Key, Located, Memo, PackedKey, State, Window, MAX_ARGS};
use crate::eval::value::{Game, InstanceId, Position};
use crate::syntax::Span;

/// The SG value of any game value.
pub fn sg_of_game(env: &mut Env, g: &Game, span: Span) -> Fallible<u64> {
    match g {
        Game::Zero => Ok(0),
        Game::Position(p) => sg_of_position(env, p.instance, &Key::from_args(&p.args), span),
        Game::Sum(parts) => {
            let mut x = 0;
            for part in parts {
                let v = sg_of_game(env, part, span)?;
                x = env.rt.inf_sets.borrow_mut().add(x, v);
            }
            Ok(x)
        }
        Game::Compound(c) => (env.rt.above.sg_of_compound)(env, c, span),
    }
}

/// Runs every move rule of the position `key` of `instance`, in a frame
/// holding its static arguments and arguments.
pub fn enumerate(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
    sink: &mut dyn MoveSink,
) -> Fallible<()> {
    run_moves(env, instance, key, span, None, sink)
}

/// `enumerate` of one move rule (`only`), or of all of them.
fn run_moves(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    span: Span,
    only: Option<usize>,
    sink: &mut dyn MoveSink,
) -> Fallible<()> {
    let inst = env.rt.instance(instance);
    let g = &inst.game;
    let CompiledBody::Moves(moves) = &g.body else {
        unreachable!("aliases are expanded when built")
    };
    let mut frame = std::mem::take(&mut env.args_buf);
    frame.clear();
    frame.extend(inst.frame_statics().iter().cloned());
    key.push_args(&mut frame);
    let saved = env.instance;
    let result = env.with_frame(frame.drain(..), g.n_slots, span, |env| {
        env.instance = instance;
        for (i, m) in moves.iter().enumerate() {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            sink.start_move(i);
            (m.run)(env, sink.as_sink())?;
        }
        Ok(())
    });
    env.instance = saved;
    env.args_buf = frame;
    result
}

/// A sink that also wants to know which move rule is running.
pub trait MoveSink {
    fn start_move(&mut self, index: usize);
    fn as_sink(&mut self) -> &mut dyn Sink;
}

/// A position's key as the search holds it: in one word while its
/// memo's sparse table packs it (`Memo::pack_key`), else whole in a
/// list of keys beside, in the same order (`Stack::full`,
/// `SgSink::pending_full`).
#[derive(Clone, Copy)]
enum HeldKey {
    Word(PackedKey),
    Full,
}

impl HeldKey {
    /// How `memo` holds `key` (stored at `at`, if that is known): a
    /// word, or a copy pushed onto `full`.
    #[inline]
    fn hold(memo: &Memo, key: &Key, at: Option<Located>, full: &mut Vec<Key>) -> HeldKey {
        match at
            .and_then(|at| memo.packed_at(at))
            .or_else(|| memo.pack_key(key))
        {
            Some(word) => HeldKey::Word(word),
            None => {
                full.push(key.clone());
                HeldKey::Full
            }
        }
    }

    /// Writes the key held into `key`; `full` is the last key of the
    /// list beside (this one's, if held whole).
    #[inline]
    fn write(self, memo: &Memo, full: Option<&Key>, key: &mut Key) {
        match self {
            HeldKey::Word(word) => memo.unpack_key(word, key),
            HeldKey::Full => key.clone_from(full.expect("a key held whole")),
        }
    }
}

struct Frame {
    instance: InstanceId,
    key: HeldKey,
    expanded: bool,
    /// Where the memo keeps this position: from the lookup that listed
    /// it, then from its expansion.
    at: Option<Located>,
    /// The stack index of the position that pushed this one as an
    /// option (`NONE`: the search's start).
    parent: u32,
    /// Once expanded with options to search: its index in the search's
    /// `marks`, where those options report their values (`NONE`: they
    /// do not, its options are listed again once they have values).
    marked: u32,
}

impl Frame {
    const NONE: u32 = u32::MAX;

    fn new((instance, key, at): Waiting, parent: u32) -> Frame {
        Frame {
            instance,
            key,
            expanded: false,
            at,
            parent,
            marked: Frame::NONE,
        }
    }
}

/// An option waiting for its value: its instance, its key and where its
/// memo keeps it.
type Waiting = (InstanceId, HeldKey, Option<Located>);

/// The search's stack of positions, with what they hold beside.
#[derive(Default)]
struct Stack {
    frames: Vec<Frame>,
    /// The keys of the frames held whole, in stack order.
    full: Vec<Key>,
    /// The marks of the expanded positions on the stack, in stack order.
    marks: Vec<Marked>,
    /// The key of the frame being looked at.
    key: Key,
}

impl Stack {
    /// Writes the top frame's key into `key`.
    fn load_top(&mut self, memo: &Memo) {
        let top = self.frames.last().expect("a frame");
        top.key.write(memo, self.full.last(), &mut self.key);
    }

    /// Pops the top frame and the key it holds beside.
    fn pop(&mut self) -> Frame {
        let frame = self.frames.pop().expect("a frame");
        if let HeldKey::Full = frame.key {
            self.full.pop();
        }
        frame
    }
}

/// Collects the values of a position's options and the options still unknown.
#[derive(Default)]
pub(super) struct SgSink {
    /// The values of the current position's options.
    pub(super) seen: Marks,
    pending: Vec<Waiting>,
    /// The keys of `pending` held whole, in order.
    pending_full: Vec<Key>,
    /// Set when an option is on the current path (a cycle) or of
    /// infinite value: the search hands over to the loopy labelling.
    cycle_at: Option<(InstanceId, Key)>,
    /// Set when an option that is a sum waits for a part's value: the
    /// marks then lack it (see `marked`).
    sum_waits: bool,
    last: Option<(InstanceId, Rc<Instance>)>,
    /// Reused buffer: option indices of a run the memo could not answer.
    pub(super) slow: Vec<i64>,
    /// Reused buffer: a kernel run's arguments computed per option.
    pub(super) batch: Vec<i64>,
    /// Reused buffers of keyed kernels' runs (`run_key.rs`, filled by `key_run.rs`).
    pub(super) run_scratch: Option<Box<RunScratch>>,
    pub(super) span: Span,
    /// Positions on the search stack below the one being expanded: with
    /// `pending` they count against the state limit while options are
    /// listed (one position may have billions of options).
    stacked: usize,
    /// While a position of a compound layer is expanded: its instance and
    /// layer (`layered.rs`); options of its base instance are read in it.
    layer: Option<(InstanceId, Layer)>,
    /// Set when such a position has an option that is not one position
    /// of its game (a sum, a compound, another game): the layer cannot
    /// value it, the product search must.
    off_layer: bool,
}

impl SgSink {
    fn start(&mut self) {
        self.seen.start();
        self.pending.clear();
        self.pending_full.clear();
        self.sum_waits = false;
        self.off_layer = false;
    }

    /// Whether the position being expanded has an option: one marked, or
    /// waiting for its value.
    fn has_options(&self) -> bool {
        !self.pending.is_empty() || self.sum_waits || self.cycle_at.is_some() || self.seen.any()
    }

    /// Completes the options of a position of a compound layer once its
    /// moves' are marked: under `pass` with passes left, the pass (the
    /// same position with one pass fewer) from a position that can move.
    /// Gives the value when the layer fixes it: 1 for a terminal position
    /// under misère play.
    fn close_layer(&mut self, env: &mut Env, key: &Key) -> Fallible<Option<u64>> {
        let Some((_, layer)) = self.layer else {
            return Ok(None);
        };
        match layer.kind {
            LayerKind::Misere => Ok((!self.has_options()).then_some(1)),
            LayerKind::Pass(n) => {
                if self.has_options() {
                    let below = match n {
                        1 => layer.base,
                        _ => env.rt.layered_instance(Layer {
                            base: layer.base,
                            kind: LayerKind::Pass(n - 1),
                        }),
                    };
                    if let Lookup::Value(v) = self.lookup(env, below, key)? {
                        self.add(v);
                    }
                }
                Ok(None)
            }
        }
    }

    /// The instance an option of `instance` is read in while a layer's
    /// position is expanded: the layer's own for its base (or itself);
    /// `None`, noting it, for any other.
    fn in_layer(&mut self, instance: InstanceId) -> Option<InstanceId> {
        match self.layer {
            Some((id, l)) if instance == id || instance == l.base => Some(id),
            _ => {
                self.off_layer = true;
                None
            }
        }
    }

    /// Marks an option of `n_parts` positions, `part(self, env, p)` the
    /// lookup of part `p` (`None`: its code needs the general path; then
    /// false, the option left half listed for the caller to drop). Its
    /// value is the xor of its parts' once all are known; one position
    /// waiting reports its value to the marks (`marked`) itself, a sum of
    /// several waiting does not. A part that is no position drops the
    /// whole option (`drop_option`), so a sum holding the position itself
    /// and a part that is no position is no cycle.
    #[inline(always)]
    pub(super) fn option_of_parts(
        &mut self,
        env: &mut Env,
        n_parts: usize,
        mut part: impl FnMut(&mut Self, &mut Env, usize) -> Fallible<Option<Lookup>>,
    ) -> Fallible<bool> {
        let mark = self.option_mark();
        let (mut x, mut known) = (0, true);
        for p in 0..n_parts {
            match part(self, env, p)? {
                None => return Ok(false),
                Some(Lookup::Value(v)) => x ^= v,
                Some(Lookup::Pending) => known = false,
                Some(Lookup::Invalid) => {
                    self.drop_option(mark);
                    return Ok(true);
                }
            }
        }
        if n_parts == 0 {
            self.add(self.zero_value());
        } else if known {
            self.add(x);
        } else if n_parts > 1 {
            self.sum_waits = true;
        }
        Ok(true)
    }

    /// The value of an option that is the zero game.
    #[inline]
    fn zero_value(&self) -> u64 {
        self.layer.map_or(0, |(_, l)| l.zero_value())
    }

    #[inline]
    pub(super) fn add(&mut self, v: u64) {
        self.seen.add(v);
    }

    /// The value of an option position, or None if it is pending or not a
    /// position (then `invalid` is set).
    pub(super) fn lookup(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        key: &Key,
    ) -> Fallible<Lookup> {
        // Options almost always lead to the same instance: keep it at
        // hand. Its place goes with it to the stack.
        let inst = self.instance(env, instance);
        let (state, at) = inst.memo.borrow_mut().locate(key);
        let inst = &*inst;
        match state {
            State::Value(v) => Ok(Lookup::Value(v)),
            State::Invalid => Ok(Lookup::Invalid),
            State::OnPath => {
                self.cycle_at = Some((instance, key.clone()));
                Ok(Lookup::Pending)
            }
            State::Valid => {
                self.push_pending(env, (instance, inst), key, at)?;
                Ok(Lookup::Pending)
            }
            State::Unknown => {
                let g = &inst.game;
                if g.where_clause.is_none() || satisfies_where(env, instance, key, self.span)? {
                    // Found missing from a sparse table: its vacant slot
                    // goes with it, and it is first stored when expanded
                    // (on the path), one insert in all. Elsewhere `Valid`
                    // is one byte.
                    let at = match at {
                        Some(at) if !at.holds() => Some(at),
                        _ => inst.memo.borrow_mut().set_located(at, key, State::Valid),
                    };
                    self.push_pending(env, (instance, inst), key, at)?;
                    Ok(Lookup::Pending)
                } else {
                    // Kept only where the memo has its place already (a
                    // dense window's byte): a result outside `where` costs
                    // no memory, its `where` asked again if met again.
                    if at.is_some_and(|at| at.holds()) {
                        inst.memo.borrow_mut().set_located(at, key, State::Invalid);
                    }
                    Ok(Lookup::Invalid)
                }
            }
        }
    }
}

impl SgSink {
    /// Notes an option to search before the position's value; the state,
    /// memory and time limits are checked every 4096 of them.
    fn push_pending(
        &mut self,
        env: &Env,
        (instance, inst): (InstanceId, &Instance),
        key: &Key,
        at: Option<Located>,
    ) -> Fallible<()> {
        let held = HeldKey::hold(&inst.memo.borrow(), key, at, &mut self.pending_full);
        self.pending.push((instance, held, at));
        if self.pending.len().is_multiple_of(4096) {
            let name = env.rt.instance(instance).name.clone();
            env.rt
                .check_states(self.stacked + self.pending.len(), self.span, &name)?;
            env.rt.check_memory(0, self.span)?;
            env.rt.check_interrupt(self.span)?;
        }
        Ok(())
    }
}

/// `SgSink::option_mark`.
#[derive(Clone, Copy)]
pub(super) struct OptionMark {
    pending: usize,
    pending_full: usize,
    cycle: bool,
}

pub(super) enum Lookup {
    Value(u64),
    Pending,
    Invalid,
}

impl Sink for SgSink {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()> {
        if self.layer.is_some() {
            return self.layer_option(env, target);
        }
        match target {
            Target::Zero => self.add(0),
            Target::Position(instance, key) => {
                if let Lookup::Value(v) = self.lookup(env, instance, key)? {
                    self.add(v);
                }
            }
            Target::Sum(parts) => {
                self.sum_option(
                    env,
                    parts
                        .iter()
                        .map(|(i, k)| (*i, std::borrow::Cow::Borrowed(k))),
                )?;
            }
            Target::Game(g) if has_compound(g) => {
                // A move into a compound: valued by its own (nested) search.
                let v = sg_of_game(env, g, self.span)?;
                self.add(v);
            }
            Target::Game(g) => {
                let mut parts: Vec<&Position> = Vec::new();
                collect_positions(g, &mut parts);
                self.sum_option(
                    env,
                    parts
                        .into_iter()
                        .map(|p| (p.instance, std::borrow::Cow::Owned(Key::from_args(&p.args)))),
                )?;
            }
        }
        Ok(())
    }
}

impl SgSink {
    /// Marks the options of move `index` of the position `key` of
    /// `instance` through the move's compiled closure: a kernel's general
    /// plan, or kernel code that needs the general path at this position.
    pub(super) fn general_move(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        key: &Key,
        index: usize,
    ) -> Fallible<()> {
        let span = self.span;
        run_moves(env, instance, key, span, Some(index), self)
    }

    /// Where the search stands before an option's parts are looked up.
    pub(super) fn option_mark(&self) -> OptionMark {
        OptionMark {
            pending: self.pending.len(),
            pending_full: self.pending_full.len(),
            cycle: self.cycle_at.is_some(),
        }
    }

    /// Forgets what an option's parts asked since `mark` (a part on the
    /// search path, parts put on the stack), as if it had never been
    /// listed.
    pub(super) fn drop_option(&mut self, mark: OptionMark) {
        self.pending.truncate(mark.pending);
        self.pending_full.truncate(mark.pending_full);
        if !mark.cycle {
            self.cycle_at = None;
        }
    }

    /// One part of an option whose memo state was read already: its value,
    /// or the search's lookup when the state holds none (`write_key` puts
    /// the part's key in the key it is given).
    pub(super) fn part_of_option(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        state: State,
        write_key: impl FnOnce(&mut Key),
    ) -> Fallible<Lookup> {
        match state {
            State::Value(v) => Ok(Lookup::Value(v)),
            State::Invalid => Ok(Lookup::Invalid),
            _ => {
                let mut key = Key::default();
                write_key(&mut key);
                self.lookup(env, instance, &key)
            }
        }
    }

    /// An option that is a sum of positions: its value once every part's
    /// is known; dropped (`drop_option`) when a part is no position.
    fn sum_option<'k>(
        &mut self,
        env: &mut Env,
        mut parts: impl ExactSizeIterator<Item = (InstanceId, std::borrow::Cow<'k, Key>)>,
    ) -> Fallible<()> {
        self.option_of_parts(env, parts.len(), |this, env, _| match parts.next() {
            Some((instance, key)) => this.lookup(env, instance, &key).map(Some),
            None => Ok(None),
        })?;
        Ok(())
    }
}

impl SgSink {
    /// An option of a position of a compound layer: one position of its
    /// game (read in the layer), or the zero game; anything else leaves
    /// the layer (`off_layer`).
    fn layer_option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()> {
        let (instance, key) = match target {
            Target::Zero | Target::Game(Game::Zero) => {
                self.add(self.zero_value());
                return Ok(());
            }
            Target::Position(instance, key) => (instance, key.clone()),
            Target::Game(Game::Position(p)) => (p.instance, Key::from_args(&p.args)),
            Target::Sum(_) | Target::Game(_) => {
                self.off_layer = true;
                return Ok(());
            }
        };
        if let Some(id) = self.in_layer(instance) {
            if let Lookup::Value(v) = self.lookup(env, id, &key)? {
                self.add(v);
            }
        }
        Ok(())
    }

    fn instance(&mut self, env: &Env, instance: InstanceId) -> Rc<Instance> {
        match &self.last {
            Some((id, inst)) if *id == instance => inst.clone(),
            _ => {
                let inst = env.rt.instance(instance);
                self.last = Some((instance, inst.clone()));
                inst
            }
        }
    }
}

impl SgSink {
    /// Reads a run of options of `inst` through the memo with a stride;
    /// positions the memo cannot answer yet go through `lookup` one by
    /// one. False, with nothing marked, if some option's arguments
    /// overflow.
    pub(super) fn scan_in(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        run: &AffineRun<'_>,
    ) -> Fallible<bool> {
        self.slow.clear();
        {
            let mut memo = inst.memo.borrow_mut();
            match memo.dense_run(run.shape, run.bases, run.coefs, run.lo, run.hi) {
                Some((window, first, stride)) => {
                    let n = (run.hi - run.lo) as usize;
                    let walk = Strided { first, stride, n };
                    self.scan_walk(&window, &walk, run.lo..run.hi);
                }
                None if affine_fits(run.bases, run.coefs, run.lo, run.hi) => {
                    // No window: every option one by one, none listed.
                    drop(memo);
                    self.look_up_slow_then(env, run.instance, run.lo..run.hi, |k, key| {
                        run.key_at(k, key)
                    })?;
                    return Ok(true);
                }
                None => return Ok(false),
            }
        }
        self.look_up_slow(env, run)?;
        Ok(true)
    }

    /// Marks the values of the options `ks`, which lie in `window` where
    /// `walk` says; those it cannot answer go to `slow`.
    #[inline]
    pub(super) fn scan_walk(&mut self, window: &Window<'_>, walk: &impl Walk, ks: Range<i64>) {
        scan(window, walk, ks, &mut self.seen, &mut self.slow);
    }

    /// Looks up the options of `run` that `scan_walk` left in `slow`.
    pub(super) fn look_up_slow(&mut self, env: &mut Env, run: &AffineRun<'_>) -> Fallible<()> {
        self.look_up_slow_then(env, run.instance, 0..0, |k, key| run.key_at(k, key))
    }

    /// Reads the options of `run` through the memo's window (`None`: its
    /// shape has none): `scan` marks those it answers, leaves in `slow`
    /// those it cannot, and returns the options it did not reach, or
    /// `None` (false, nothing marked) when the run does not fit it. Those
    /// left are then looked up with the keys `write_key` writes.
    #[inline(always)]
    pub(super) fn read_run(
        &mut self,
        env: &mut Env,
        (inst, run): (&Instance, &AffineRun<'_>),
        scan: impl FnOnce(&mut Self, Option<&Window<'_>>) -> Option<Range<i64>>,
        write_key: impl FnMut(i64, &mut Key),
    ) -> Fallible<bool> {
        self.slow.clear();
        let Some(rest) = scan(self, inst.memo.borrow().window(run.shape).as_ref()) else {
            return Ok(false);
        };
        self.look_up_slow_then(env, run.instance, rest, write_key)?;
        Ok(true)
    }

    /// Looks up one by one the options listed in `slow`, then those of
    /// `more` (`write_key` puts option `k`'s key in the key it is given),
    /// marking the values known; `slow` is kept for reuse either way.
    pub(super) fn look_up_slow_then(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        more: Range<i64>,
        mut write_key: impl FnMut(i64, &mut Key),
    ) -> Fallible<()> {
        if self.slow.is_empty() && more.is_empty() {
            return Ok(());
        }
        let slow = std::mem::take(&mut self.slow);
        let mut key = Key::default();
        let mut result = Ok(());
        for k in slow.iter().copied().chain(more) {
            write_key(k, &mut key);
            match self.lookup(env, instance, &key) {
                Ok(Lookup::Value(v)) => self.add(v),
                Ok(_) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.slow = slow;
        result
    }
}

impl MoveSink for SgSink {
    fn start_move(&mut self, _index: usize) {}
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
}

/// The positions of a game without compounds.
pub fn collect_positions<'g>(g: &'g Game, out: &mut Vec<&'g Position>) {
    match g {
        Game::Zero | Game::Compound(_) => {}
        Game::Position(p) => out.push(p),
        Game::Sum(parts) => parts.iter().for_each(|p| collect_positions(p, out)),
    }
}

fn has_compound(g: &Game) -> bool {
    match g {
        Game::Compound(_) => true,
        Game::Sum(parts) => parts.iter().any(has_compound),
        _ => false,
    }
}

/// The SG value of one position, searching (iteratively) what the memo
/// does not know yet.
pub fn sg_of_position(env: &mut Env, instance: InstanceId, key: &Key, span: Span) -> Fallible<u64> {
    // Heaps of take-and-break codes are valued by their own engine.
    if let Some(v) = crate::eval::takebreak::heap_value(env, instance, key, span)? {
        return Ok(v);
    }
    let inst = env.rt.instance(instance);
    let state = inst.memo.borrow_mut().get(key);
    match state {
        State::Value(v) => return Ok(v),
        State::OnPath => {
            if let Some(v) = inst.infinite.borrow_mut().get(key) {
                return Ok(v);
            }
            return Diag::new(
                ErrorKind::Loopy,
                span,
                format!(
                    "loopy game: {}({}) is needed while its own value is being computed",
                    inst.name,
                    show_args(key)
                ),
            )
            .label("reached again here")
            .help("a rule of the game asks for the value of a position while that value is being computed (through its options); loopy games are valued only through their moves")
            .err();
        }
        _ => {}
    }
    search_located(env, instance, key, None, span)
}

/// `sg_of_position` for a position the memo holds no value for and which is
/// not on the current search path (its `where` may be unchecked yet), at
/// its place in the memo's dense window if the caller has located it
/// (`Memo::locate`) already.
pub fn search_located(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    at: Option<Located>,
    span: Span,
) -> Fallible<u64> {
    match search_finite(env, instance, key, at, span)? {
        Some(v) => Ok(v),
        // A cycle, or a position of infinite value: the game is loopy.
        None => (env.rt.above.label_loopy)(env, instance, key, span),
    }
}

/// `search_located` up to a cycle or a position of infinite value (or,
/// from a compound layer's position, an option off the layer): `None`
/// then, with the positions on the path unmarked. A position of infinite
/// value is `State::OnPath` in its memo, so it is never asked here.
pub(super) fn search_finite(
    env: &mut Env,
    instance: InstanceId,
    key: &Key,
    at: Option<Located>,
    span: Span,
) -> Fallible<Option<u64>> {
    // Searches reuse their buffers: a table of many small queries would
    // otherwise allocate them for every position.
    let mut scratch = take_scratch(env);
    let inst = env.rt.instance(instance);
    let result = search_in(
        env,
        searched(&mut scratch),
        (instance, &inst),
        (key, at),
        true,
        span,
    );
    env.scratch.push(scratch);
    result
}

/// `search_located` of a position a sweep found at `at`, on buffers it
/// holds for its whole line (`held`, taken from `Env::scratch` at
/// first), with its instance at hand: a table asked in order values each
/// position straight through its kernel (`value_directly`), the search
/// going on from what was listed only when an option has no value yet.
/// `None` on a cycle (or an option off a compound's layer): the caller
/// labels a loopy game (`layered::search_swept`).
pub(super) fn swept_finite(
    env: &mut Env,
    held: &mut Option<Box<dyn Any>>,
    (instance, inst): (InstanceId, &Instance),
    key: &Key,
    at: Located,
    span: Span,
) -> Fallible<Option<u64>> {
    // Taken at the line's first position, with no line's decision in it.
    let scratch = searched(held.get_or_insert_with(|| {
        let mut scratch = take_scratch(env);
        searched(&mut scratch).line_walks = None;
        searched(&mut scratch).line = None;
        scratch
    }));
    // Whether the lean walk takes the line's game is decided at its first
    // position, not asked again for each.
    let walks = match scratch.line_walks {
        Some((id, walks)) if id == instance => walks,
        _ => {
            let walks = walks_game(env, inst);
            scratch.line_walks = Some((instance, walks));
            walks
        }
    };
    search_in(env, scratch, (instance, inst), (key, Some(at)), walks, span)
}

/// The sink and the line's own buffers (`swept_line.rs`) of a sweep's
/// held search buffers, taken at the line's first position.
pub(super) fn line_buffers<'h>(
    env: &mut Env,
    held: &'h mut Option<Box<dyn Any>>,
) -> (&'h mut SgSink, &'h mut Option<Box<dyn Any>>) {
    let scratch = searched(held.get_or_insert_with(|| {
        let mut scratch = take_scratch(env);
        searched(&mut scratch).line_walks = None;
        searched(&mut scratch).line = None;
        scratch
    }));
    (&mut scratch.sink, &mut scratch.line)
}

impl SgSink {
    /// Starts a position of a swept line valued on its kernel, as
    /// `value_directly` starts one.
    pub(super) fn start_on_line(&mut self, span: Span) {
        self.span = span;
        self.cycle_at = None;
        self.layer = None;
        self.start();
        self.stacked = 0;
    }

    /// The value of a position of a swept line once its kernel's moves
    /// are marked: `None` when an option waits for its value, is on a
    /// cycle, or is off a layer (the search values it).
    pub(super) fn line_value(&self) -> Option<u64> {
        (self.pending.is_empty() && self.cycle_at.is_none() && !self.off_layer)
            .then(|| self.seen.mex())
    }
}

/// Whether the lean walk (`key_walk.rs`) may take positions of `inst`:
/// its own choice of games (`Kernel::walk_moves`), read once per swept
/// line. A position it would refuse for its key alone goes to it anyway.
pub(super) fn walks_game(env: &Env, inst: &Instance) -> bool {
    let g = &inst.game;
    env.rt.limits.plans.kernels
        && inst.layer.is_none()
        && (g.kernel.as_ref()).is_some_and(|k| k.walk_moves(g.where_clause.is_some()).is_some())
}

/// A search's buffers from `Env::scratch` (or new ones).
fn take_scratch(env: &mut Env) -> Box<dyn Any> {
    env.scratch
        .pop()
        .unwrap_or_else(|| Box::<SearchScratch>::default())
}

/// The search's buffers in `scratch` (`Env::scratch` holds no others).
fn searched(scratch: &mut Box<dyn Any>) -> &mut SearchScratch {
    scratch.downcast_mut().expect("a search's buffers")
}

/// `search_finite` on the buffers `scratch`; the lean walk tried first
/// if `walks` (false: it takes no position of this game).
fn search_in(
    env: &mut Env,
    SearchScratch {
        stack, sink, walk, ..
    }: &mut SearchScratch,
    (instance, inst): (InstanceId, &Instance),
    (key, at): (&Key, Option<Located>),
    walks: bool,
    span: Span,
) -> Fallible<Option<u64>> {
    sink.span = span;
    sink.last = None;
    sink.cycle_at = None;
    if walks {
        let walked = key_walk::walk(env, walk, inst, key, span);
        if !matches!(walked, Ok(None)) {
            return walked;
        }
    }
    match value_directly(env, sink, (instance, inst), key, at, span)? {
        Direct::Value(v) => Ok(Some(v)),
        direct => {
            stack.frames.clear();
            stack.full.clear();
            stack.marks.clear();
            let held = HeldKey::hold(&inst.memo.borrow(), key, at, &mut stack.full);
            stack
                .frames
                .push(Frame::new((instance, held, at), Frame::NONE));
            let listed = match direct {
                Direct::Waiting(at) => expanded_root(env, stack, sink, at, span),
                _ => Ok(()),
            };
            let result = listed.and_then(|()| run_search(env, stack, sink, span));
            if !matches!(result, Ok(Some(_))) {
                unmark_path(env, stack);
            }
            result
        }
    }
}

/// Leaves the memo consistent after a search that stopped: the positions
/// on its path are valid, unsolved.
fn unmark_path(env: &Env, stack: &mut Stack) {
    let mut full = stack.full.iter();
    for f in &stack.frames {
        let whole = match f.key {
            HeldKey::Full => full.next(),
            HeldKey::Word(_) => None,
        };
        if !f.expanded {
            continue;
        }
        let inst = env.rt.instance(f.instance);
        let mut memo = inst.memo.borrow_mut();
        f.key.write(&memo, whole, &mut stack.key);
        if memo.get(&stack.key) == State::OnPath {
            memo.set(&stack.key, State::Valid);
        }
    }
}

/// What `value_directly` found.
enum Direct {
    /// Every option had a value: the position's value (stored).
    Value(u64),
    /// Its options are listed in the sink, some waiting to be searched:
    /// the search starts from them (`expanded_root`). The position's
    /// place in the memo.
    Waiting(Option<Located>),
    /// Not listed, or listed in a way the search must list again.
    Search,
}

/// The value of a position whose options all have values in the memo (the
/// usual case when a table asks for positions in order), computed through
/// its game's kernel without the search stack. When some options have no
/// value yet, the search goes on from the options listed here
/// (`Direct::Waiting`); it lists the position itself again only when the
/// game has no kernel, the kernel's code needs the general path, or an
/// option is on a cycle or off a compound's layer.
fn value_directly(
    env: &mut Env,
    sink: &mut SgSink,
    (instance, inst): (InstanceId, &Instance),
    key: &Key,
    at: Option<Located>,
    span: Span,
) -> Fallible<Direct> {
    let g = &inst.game;
    let Some(kernel) = &g.kernel else {
        return Ok(Direct::Search);
    };
    if !env.rt.limits.plans.kernels || !kernel.accepts(key) {
        return Ok(Direct::Search);
    }
    let at = match at {
        Some(at) => Some(at),
        None => {
            let (state, at) = inst.memo.borrow_mut().locate(key);
            if !matches!(state, State::Unknown | State::Valid) {
                return Ok(Direct::Search);
            }
            at
        }
    };
    sink.layer = inst.layer.map(|l| (instance, l));
    let twins = kernel.swappable.is_some() || !kernel.clamps.is_empty();
    if let Some(v) = twins
        .then(|| twin_value(inst, kernel, key.coords()))
        .flatten()
    {
        inst.memo.borrow_mut().set_located(at, key, State::Value(v));
        env.rt.count_stored_n(key.weight(), span, &inst.name)?;
        return Ok(Direct::Value(v));
    }
    sink.start();
    sink.stacked = 0;
    let done = sink.run_kernel(env, (instance, inst), kernel, key, at)?;
    let fixed = match done && !sink.off_layer {
        true => sink.close_layer(env, key)?,
        false => None,
    };
    if !done || sink.off_layer || sink.cycle_at.is_some() {
        sink.cycle_at = None;
        return Ok(Direct::Search);
    }
    if !sink.pending.is_empty() {
        // A position among its own options waits for itself: the search
        // finds the cycle when it lists that option, on the path.
        return Ok(Direct::Waiting(at));
    }
    let v = fixed.unwrap_or_else(|| sink.seen.mex());
    inst.memo.borrow_mut().set_located(at, key, State::Value(v));
    env.rt.count_stored_n(key.weight(), span, &inst.name)?;
    Ok(Direct::Value(v))
}

/// Makes the one frame on the stack, the search's start, an expanded
/// position whose options `value_directly` listed (at `at` in the memo),
/// its waiting options pushed above it (`settle_top`).
fn expanded_root(
    env: &mut Env,
    stack: &mut Stack,
    sink: &mut SgSink,
    at: Option<Located>,
    span: Span,
) -> Fallible<()> {
    let inst = env.rt.instance(stack.frames[0].instance);
    stack.load_top(&inst.memo.borrow());
    let at = inst
        .memo
        .borrow_mut()
        .set_located(at, &stack.key, State::OnPath);
    let root = stack.frames.last_mut().expect("the start");
    root.at = at;
    root.expanded = true;
    settle_top(env, &inst, stack, sink, None, span).map(|_| ())
}

/// The value of the position `key` read from its twin, the position with
/// the kernel's swappable arguments exchanged (`Kernel::swappable`),
/// when the memo has it.
pub(super) fn twin_value(inst: &Instance, kernel: &Kernel, coords: &[i64]) -> Option<u64> {
    if coords.len() != kernel.n_params {
        return None;
    }
    let value = |twin: &[i64]| match inst.memo.borrow_mut().get_coords(kernel.shape, twin) {
        State::Value(v) => Some(v),
        _ => None,
    };
    let mut twin = [0i64; MAX_ARGS as usize];
    let twin = &mut twin[..coords.len()];
    if let Some((i, j)) = kernel.swappable.filter(|&(i, j)| coords[i] != coords[j]) {
        twin.copy_from_slice(coords);
        twin.swap(i, j);
        if let Some(v) = value(twin) {
            return Some(v);
        }
    }
    if kernel.clamps.is_empty() {
        return None;
    }
    // Each clamped argument above its bound put at the bound.
    let (frame, n) = int_frame(inst.frame_statics(), coords)?;
    let ints = &frame[..n];
    twin.copy_from_slice(coords);
    for (i, bound) in &kernel.clamps {
        twin[*i] = twin[*i].min(bound.eval(ints)?);
    }
    (twin != coords).then(|| value(twin)).flatten()
}

/// The buffers of one search, kept in `Env` between searches.
#[derive(Default)]
pub struct SearchScratch {
    stack: Stack,
    sink: SgSink,
    walk: WalkScratch,
    /// On a sweep's held buffers: the line's game and whether the lean
    /// walk takes it (`walks_game`).
    line_walks: Option<(InstanceId, bool)>,
    /// On a sweep's held buffers: what `swept_line.rs` keeps for the line.
    line: Option<Box<dyn Any>>,
}

/// The value of the position at the bottom of the stack; `None` if the
/// walk met a cycle or a position of infinite value.
fn run_search(
    env: &mut Env,
    stack: &mut Stack,
    sink: &mut SgSink,
    span: Span,
) -> Fallible<Option<u64>> {
    let mut steps: u32 = 0;
    let mut last = 0;
    let mut inst_id = stack.frames[0].instance;
    let mut inst = env.rt.instance(inst_id);
    while let Some(top) = stack.frames.last() {
        steps = steps.wrapping_add(1);
        if steps.is_multiple_of(4096) {
            env.rt.check_interrupt(span)?;
        }
        let instance = top.instance;
        if inst_id != instance {
            inst_id = instance;
            inst = env.rt.instance(instance);
        }
        if !top.expanded {
            let mut memo = inst.memo.borrow_mut();
            // Read at the place its lookup found, while that holds.
            let carried = top.at.and_then(|at| Some((memo.state_at(at)?, Some(at))));
            let loaded = carried.is_none();
            if loaded {
                stack.load_top(&memo);
            }
            let (state, at) = carried.unwrap_or_else(|| memo.locate(&stack.key));
            match state {
                State::Value(v) => {
                    last = v;
                    drop(memo);
                    pop_valued(stack, v);
                    continue;
                }
                State::Invalid => {
                    stack.pop();
                    continue;
                }
                _ => {}
            }
            if !loaded {
                stack.load_top(&memo);
            }
            let at = memo.set_located(at, &stack.key, State::OnPath);
            let top = stack.frames.last_mut().expect("top");
            top.at = at;
            top.expanded = true;
        } else if top.marked != Frame::NONE {
            // Back after its options were searched: they reported their
            // values to its marks.
            let v = stack.marks[top.marked as usize].mex();
            store_top(env, &inst, stack, v, span)?;
            last = v;
            continue;
        } else {
            stack.load_top(&inst.memo.borrow());
        }
        let key = &stack.key;
        sink.layer = inst.layer.map(|l| (instance, l));
        let g = &inst.game;
        let kernel = g.kernel.as_ref();
        let kernel = kernel.filter(|k| env.rt.limits.plans.kernels && k.accepts(key));
        if let Some(v) = kernel.and_then(|k| twin_value(&inst, k, key.coords())) {
            store_top(env, &inst, stack, v, span)?;
            last = v;
            continue;
        }
        sink.start();
        sink.stacked = stack.frames.len();
        let at = stack.frames.last().expect("top").at;
        let by_kernel = match kernel {
            Some(k) => {
                let done = sink.run_kernel(env, (instance, &inst), k, key, at)?;
                if !done {
                    // Not on the kernel's frame: every move by its code.
                    sink.start();
                    sink.cycle_at = None;
                }
                done
            }
            None => false,
        };
        if !by_kernel {
            enumerate(env, instance, key, span, sink)?;
        }
        if sink.off_layer {
            return Ok(None);
        }
        let fixed = sink.close_layer(env, key)?;
        if sink.cycle_at.take().is_some() {
            return Ok(None);
        }
        if let Some(v) = settle_top(env, &inst, stack, sink, fixed, span)? {
            last = v;
        }
    }
    Ok(Some(last))
}

/// Ends the expansion of the top frame (its key in `stack.key`), whose
/// options `sink` holds: with
/// none waiting, its value (`fixed`, or the mex) is stored and the frame
/// popped (`Some(value)`); otherwise the options waiting go on the stack
/// above it, and the values found so far stay as its marks, to which each
/// waiting option reports its value once found, so that no position's
/// options are listed twice. An option that is a sum of several waiting
/// parts reports no value: then the position is listed again.
fn settle_top(
    env: &Env,
    inst: &Instance,
    stack: &mut Stack,
    sink: &mut SgSink,
    fixed: Option<u64>,
    span: Span,
) -> Fallible<Option<u64>> {
    if sink.pending.is_empty() {
        let v = fixed.unwrap_or_else(|| sink.seen.mex());
        store_top(env, inst, stack, v, span)?;
        return Ok(Some(v));
    }
    let parent = u32::try_from(stack.frames.len() - 1)
        .ok()
        .filter(|&p| p != Frame::NONE);
    if parent.is_some() && !sink.sum_waits {
        let top = stack.frames.last_mut().expect("top");
        top.marked = stack.marks.len() as u32;
        stack.marks.push(Marked::from_marks(&sink.seen));
    }
    let parent = parent.unwrap_or(Frame::NONE);
    let pending = sink.pending.drain(..);
    stack
        .frames
        .extend(pending.map(|waiting| Frame::new(waiting, parent)));
    stack.full.append(&mut sink.pending_full);
    env.rt.check_states(stack.frames.len(), span, &inst.name)?;
    Ok(None)
}

/// Stores `v` as the value of the top frame's position (of `inst`, its
/// key held in a word stored through its place, else written into
/// `stack.key` first), counts it against the state limit and pops it
/// (`pop_valued`).
fn store_top(env: &Env, inst: &Instance, stack: &mut Stack, v: u64, span: Span) -> Fallible<()> {
    let (held, at) = stack
        .frames
        .last()
        .map(|top| (top.key, top.at))
        .expect("a frame");
    let mut memo = inst.memo.borrow_mut();
    let weight = match (held, at) {
        (HeldKey::Word(word), Some(at)) if memo.set_at(at, State::Value(v)) => {
            memo.packed_weight(word)
        }
        _ => {
            stack.load_top(&memo);
            memo.set_located(at, &stack.key, State::Value(v));
            stack.key.weight()
        }
    };
    drop(memo);
    env.rt.count_stored_n(weight, span, &inst.name)?;
    pop_valued(stack, v);
    Ok(())
}

/// Pops the top frame, a position of value `v`, and reports `v` to the
/// marks of the position that pushed it, if it keeps marks.
fn pop_valued(stack: &mut Stack, v: u64) {
    let frame = stack.pop();
    if frame.marked != Frame::NONE {
        stack.marks.truncate(frame.marked as usize);
    }
    let parent = stack.frames.get(frame.parent as usize);
    if let Some(m) = parent.and_then(|p| stack.marks.get_mut(p.marked as usize)) {
        m.mark(v);
    }
}

fn show_args(key: &Key) -> String {
    key.to_args()
        .iter()
        .map(|a| format!("{a:#}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a cycle of a compound's positions (the product search
/// does not label loopy games), given from the first one reached again;
/// the first is repeated at the end.
pub fn loop_diag(mut cycle: Vec<String>, span: Span) -> Box<Diag> {
    if let Some(first) = cycle.first().cloned() {
        cycle.push(first);
    }
    Diag::new(
        ErrorKind::Loopy,
        span,
        format!(
            "loopy compound: a position is reachable from itself: {}",
            cycle.join(" -> ")
        ),
    )
    .label("while computing the SG value of this")
    .help("pass, misere, conjunctive, selective and hypergraph compounds are valued by a search that needs every play to end; of a loopy game, only sums (A + B) have values (by Smith's rules)")
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_waiting_options_hold_keys_in_a_word_not_a_key() {
        // A `Key` is its 16 coordinates and more: the stack holds a word
        // and its place instead.
        let (frame, waiting) = (std::mem::size_of::<Frame>(), std::mem::size_of::<Waiting>());
        assert!(std::mem::size_of::<Key>() >= 150);
        assert!(frame <= 64, "{frame} bytes a frame");
        assert!(waiting <= 56, "{waiting} bytes a waiting option");
    }
}
