//! A lean search for games whose every move is a keyed kernel loop
//! (`compile::KeyLoopMove`) leading to one position of the game (or to
//! the zero game), as a hand-written program searches: one stack of
//! positions, each listing its options once, straight from its key, by
//! the kernel's code, each looked up as it is listed (`Memo::probe`:
//! one pass where the memo answers at once, the slot prefetched in a
//! table past the cache), one stack of the options not solved yet, each
//! read again from the memo when its turn comes (a new one searched
//! above its parent at once), and one stack of the values found, whose
//! mex is the position's value, stored once. One whose options all have
//! values when listed (every leaf of a tree of positions) is stored at
//! once; one with options held is marked on the path only at the root
//! or from `MARKED_DEPTH` on (a cycle repeats until then), else no mark.
//!
//! At a position the kernel's code cannot run (it needs the general
//! path, which reports any error) or on a cycle, the walk stops with
//! its path unmarked, keeping the values it stored; the general search
//! (`engine.rs`) then takes the position from the start.

use super::pick::{pick, Pick};
use super::settings::{each_bit, each_setting};
use crate::diag::Fallible;
use crate::eval::compile::{
    ArgCode, BoolCode, Env, Instance, KeyFrame, KeyLoopMove, OptionKey, Runtime, SCALAR_ARGS,
};
use crate::eval::memo::{coords_weight, shape_push, Key, Located, Memo, Probe, Shape, State};
use crate::eval::mex::StampedMex;
use crate::eval::value::Value;
use crate::syntax::Span;

/// The buffers of the walk, kept between searches.
#[derive(Default)]
pub(super) struct WalkScratch {
    nodes: Vec<Node>,
    /// The options listed by the positions on `nodes`, in stack order:
    /// the first `n_options`; the entries past them are kept to be
    /// written again (an entry is 190 bytes, not written whole per option).
    options: Vec<(OptionKey, Probe)>,
    n_options: usize,
    /// The values of the options read so far, in stack order.
    values: Vec<u64>,
    mex: StampedMex,
    key: Key,
}

impl WalkScratch {
    /// The next entry of the option stack, its key empty.
    #[inline]
    fn next_option(&mut self) -> &mut (OptionKey, Probe) {
        if self.n_options == self.options.len() {
            let empty = (OptionKey::default(), Probe::Found(State::Unknown, None));
            self.options.push(empty);
        }
        let entry = &mut self.options[self.n_options];
        self.n_options += 1;
        entry.0.clear();
        entry
    }
}

/// A position on the walk's path.
struct Node {
    /// Its key: the option at this place in `WalkScratch::options`.
    option: u32,
    /// Where the memo keeps it (marked `OnPath`).
    at: Option<Located>,
    /// Its options are `options[first..]`, the next to read at `next`.
    first: u32,
    next: u32,
    /// Its options' values are `values[values..]`.
    values: u32,
}

/// The value of the position `key` of `inst` (not valued yet, not on a
/// search path), searched by the walk; `None` if its game is not one the
/// walk runs or the walk stopped short (its path unmarked). Below, a
/// walk's `false` or `None` stops it: the kernel's code cannot run a
/// position, or a cycle.
pub(super) fn walk(
    env: &mut Env,
    scratch: &mut WalkScratch,
    inst: &Instance,
    key: &Key,
    span: Span,
) -> Fallible<Option<u64>> {
    if !env.rt.limits.plans.kernels || key.generic.is_some() {
        return Ok(None);
    }
    let g = &inst.game;
    let walked = g.kernel.as_ref().filter(|_| inst.layer.is_none());
    let Some(moves) = walked.and_then(|k| k.walk_moves(g.where_clause.is_some())) else {
        return Ok(None);
    };
    let mut root = OptionKey::default();
    for &c in key.coords() {
        root.push(c);
    }
    (root.shape, root.n_args) = (key.shape(), key.n_args());
    let mut memo = inst.memo.borrow_mut();
    let walker = Walker {
        moves: &moves,
        statics: inst.frame_statics(),
        inst,
        span,
    };
    scratch.nodes.clear();
    scratch.n_options = 0;
    scratch.values.clear();
    let result = walker.run(env, &mut memo, scratch, root);
    if !matches!(result, Ok(Some(_))) {
        unmark(&mut memo, scratch);
    }
    result
}

/// Leaves the positions on the walk's path valid, unsolved.
fn unmark(memo: &mut Memo, scratch: &mut WalkScratch) {
    for node in &scratch.nodes {
        scratch.options[node.option as usize]
            .0
            .key(&mut scratch.key);
        if memo.get(&scratch.key) == State::OnPath {
            memo.set(&scratch.key, State::Valid);
        }
    }
}

/// The frame of the position last listed, and its shape: a position of
/// the same shape is put in by its coordinates alone (`KeyFrame::reload`).
struct Loaded {
    frame: KeyFrame,
    shape: Option<Shape>,
}

struct Walker<'a> {
    moves: &'a [&'a KeyLoopMove],
    statics: &'a [Value],
    inst: &'a Instance,
    span: Span,
}

impl Walker<'_> {
    fn run(
        &self,
        env: &Env,
        memo: &mut Memo,
        s: &mut WalkScratch,
        root: OptionKey,
    ) -> Fallible<Option<u64>> {
        root.key(&mut s.key);
        let (state, at) = memo.locate(&s.key);
        if !matches!(state, State::Unknown | State::Valid) {
            return Ok(None);
        }
        // The start is held where options are: positions name their keys
        // by their place among the options.
        *s.next_option() = (root, Probe::Found(state, at));
        let mut frame = Loaded {
            frame: KeyFrame::empty(),
            shape: None,
        };
        match self.push(env, memo, s, &mut frame, (0, at))? {
            Pushed::Stopped => return Ok(None),
            Pushed::Solved(v) => return Ok(Some(v)),
            Pushed::Listed => {}
        }
        let mut steps = 0u32;
        loop {
            let top = s.nodes.last_mut().expect("a position on the path");
            let i = top.next as usize;
            if i < s.n_options {
                top.next += 1;
                let (option, probe) = &s.options[i];
                match memo.resolve(*probe, option.shape, option.coords()) {
                    (State::Value(v), _) => s.values.push(v),
                    (State::Invalid, _) => {}
                    (State::OnPath, _) => return Ok(None),
                    (State::Unknown | State::Valid, at) => {
                        steps = steps.wrapping_add(1);
                        if steps.is_multiple_of(4096) {
                            env.rt.check_interrupt(self.span)?;
                            env.rt.check_memory(0, self.span)?;
                            let name = &self.inst.name;
                            env.rt.check_states(s.nodes.len(), self.span, name)?;
                        }
                        match self.push(env, memo, s, &mut frame, (i, at))? {
                            Pushed::Stopped => return Ok(None),
                            Pushed::Solved(v) => s.values.push(v),
                            Pushed::Listed => {}
                        }
                    }
                }
                continue;
            }
            let (option, at, values) = (top.option as usize, top.at, top.values as usize);
            let v = s.mex.mex(&s.values[values..]);
            s.values.truncate(values);
            s.n_options = top.first as usize;
            s.nodes.pop();
            store(memo, s, option, at, State::Value(v));
            self.count_stored(env, &s.options[option].0)?;
            if s.nodes.is_empty() {
                return Ok(Some(v));
            }
            s.values.push(v);
        }
    }

    /// Lists the options of the position of option `option` (found
    /// unsolved at `at`); one whose options all had values when listed
    /// is solved at once and stored with its value, one store and no
    /// mark on the path (in a tree of positions, every leaf); any other
    /// is marked on the path, its options held above it.
    fn push(
        &self,
        env: &Env,
        memo: &mut Memo,
        s: &mut WalkScratch,
        loaded: &mut Loaded,
        (option, at): (usize, Option<Located>),
    ) -> Fallible<Pushed> {
        let position = &s.options[option].0;
        if loaded.shape == Some(position.shape) {
            let n_args = position.n_args as usize;
            (loaded.frame).reload(self.statics.len(), n_args, position.coords());
        } else {
            position.key(&mut s.key);
            loaded.frame = KeyFrame::empty();
            loaded.shape = None;
            if !loaded.frame.load(self.statics, &s.key) {
                return Ok(Pushed::Stopped);
            }
            loaded.shape = Some(position.shape);
        }
        // Listing stores nothing (`Memo::probe` only reads), so `at`
        // stays good through it. An option that is this position itself
        // is held, unsolved, and found on the path when its turn comes.
        let (first, values) = (s.n_options, s.values.len());
        let frame = &mut loaded.frame;
        for m in self.moves {
            let mut lister = Lister {
                memo,
                s: &mut *s,
                rt: env.rt,
                walker: self,
            };
            if !lister.level(m, frame, 0)? {
                return Ok(Pushed::Stopped);
            }
        }
        // With options held, marked on the path only at the root (its
        // store lays the window out) and from `MARKED_DEPTH` on, where a
        // cycle repeated so deep meets its mark; stored once at the pop.
        let state = match s.n_options == first {
            true => State::Value(s.mex.mex(&s.values[values..])),
            false if (1..MARKED_DEPTH).contains(&s.nodes.len()) => State::Unknown,
            false => State::OnPath,
        };
        let at = match state {
            State::Unknown => at,
            _ => store(memo, s, option, at, state),
        };
        if let State::Value(v) = state {
            s.values.truncate(values);
            self.count_stored(env, &s.options[option].0)?;
            return Ok(Pushed::Solved(v));
        }
        s.nodes.push(Node {
            option: option as u32,
            at,
            first: first as u32,
            next: first as u32,
            values: values as u32,
        });
        Ok(Pushed::Listed)
    }

    /// Counts a position stored with its value against the state limit.
    #[inline]
    fn count_stored(&self, env: &Env, position: &OptionKey) -> Fallible<()> {
        let weight = coords_weight(position.len);
        env.rt.count_stored_n(weight, self.span, &self.inst.name)
    }
}

/// The depth from which the walk marks its path (below it, only the
/// root): a mark costs a store, and an acyclic game's walk needs none.
const MARKED_DEPTH: usize = 64;

/// What `Walker::push` made of a position.
enum Pushed {
    /// The walk stops (the general path runs the position).
    Stopped,
    /// Its options all had values: its own, stored.
    Solved(u64),
    /// On the path, its unsolved options held above it.
    Listed,
}

/// Stores `state` for the position of option `option`, found at `at`:
/// at its place (held, or the vacant slot its lookup ended at) with no
/// key built, else through the key; where it is now.
#[inline(always)]
fn store(
    memo: &mut Memo,
    s: &mut WalkScratch,
    option: usize,
    at: Option<Located>,
    state: State,
) -> Option<Located> {
    let position = &s.options[option].0;
    let coords = position.coords();
    let placed = at.and_then(|at| match at.holds() {
        true => memo.set_at(at, state).then_some(at),
        false => memo.put_vacant(at, coords, state),
    });
    match placed {
        Some(at) => Some(at),
        None => {
            position.key(&mut s.key);
            memo.set_located(at, &s.key, state)
        }
    }
}

/// Lists the options of one position.
struct Lister<'a, 'w> {
    memo: &'a mut Memo,
    s: &'a mut WalkScratch,
    rt: &'a Runtime,
    walker: &'a Walker<'w>,
}

impl Lister<'_, '_> {
    /// Lists the options of binding `level` of `m` and those inside it.
    fn level(&mut self, m: &KeyLoopMove, frame: &mut KeyFrame, level: usize) -> Fallible<bool> {
        let Some((slot, source)) = m.bindings.get(level) else {
            return self.option(m, m.guard.as_ref(), frame);
        };
        let last = level + 1 == m.bindings.len();
        // The last binding over a bit set, the leading conjuncts of its
        // guard read as a mask.
        if let Some(filter) = m.filter.as_ref().filter(|_| last) {
            if let Some(mask) = filter.mask(frame) {
                let guard = filter.residual.as_ref();
                let each = |this: &mut Self, frame: &mut KeyFrame| this.option(m, guard, frame);
                return each_bit(self, frame, *slot, mask, each);
            }
        }
        let each = |this: &mut Self, frame: &mut KeyFrame| match last {
            true => this.option(m, m.guard.as_ref(), frame),
            false => this.level(m, frame, level + 1),
        };
        each_setting(self, frame, (*slot, source), each)
    }

    /// Lists the option of `m` whose bindings are set in `frame`.
    fn option(
        &mut self,
        m: &KeyLoopMove,
        guard: Option<&BoolCode<KeyFrame>>,
        frame: &KeyFrame,
    ) -> Fallible<bool> {
        let result = match pick(guard, &m.results, frame) {
            Pick::Result(r) => r,
            Pick::None => return Ok(true),
            Pick::GeneralPath => return Ok(false),
        };
        let Some(args) = result.parts.first() else {
            // The zero game.
            self.s.values.push(0);
            return Ok(true);
        };
        // An option of one coordinate an argument is made in registers
        // and held only if not solved yet; any other is written in place
        // on the option stack (a key is a few hundred bytes).
        let mut scalar = [0i64; SCALAR_ARGS];
        let in_registers = match m.scalar {
            true => match scalar_coords(args, frame, &mut scalar) {
                Ok(Some(shape)) => Some(shape),
                Ok(None) => return Ok(false),
                Err(()) => None,
            },
            false => None,
        };
        let (shape, coords) = match in_registers {
            Some(shape) => (shape, &scalar[..args.len()]),
            None => {
                let (out, _) = self.s.next_option();
                for a in args {
                    if a.write(frame, out).is_none() {
                        return Ok(false);
                    }
                }
                let out = &self.s.options[self.s.n_options - 1].0;
                (out.shape, out.coords())
            }
        };
        // An option solved already is read now, not held: most options
        // of a game whose positions are reached many ways.
        let found = self.memo.probe(shape, coords);
        let held = in_registers.is_none() as usize;
        match found {
            Probe::Found(State::Value(v), _) => {
                self.s.n_options -= held;
                self.s.values.push(v);
            }
            Probe::Found(State::Invalid, _) => self.s.n_options -= held,
            Probe::Found(State::OnPath, _) => return Ok(false),
            found => match in_registers {
                Some(shape) => {
                    let n = args.len();
                    let (out, probe) = self.s.next_option();
                    // Copied whole: a fixed size, no call.
                    out.coords[..SCALAR_ARGS].copy_from_slice(&scalar);
                    (out.len, out.shape, out.n_args) = (n, shape, n as u8);
                    *probe = found;
                }
                None => self.s.options[self.s.n_options - 1].1 = found,
            },
        }
        self.check_limits()
    }

    /// The limits, checked every 4096 options held.
    #[inline]
    fn check_limits(&self) -> Fallible<bool> {
        if self.s.n_options.is_multiple_of(4096) {
            let (rt, span) = (self.rt, self.walker.span);
            let waiting = self.s.n_options + self.s.nodes.len();
            rt.check_states(waiting, span, &self.walker.inst.name)?;
            rt.check_memory(0, span)?;
            rt.check_interrupt(span)?;
        }
        Ok(true)
    }
}

/// The coordinates of an option whose arguments `args` are each one
/// coordinate, into `out`, and its shape; `Ok(None)` if their code fails
/// (the general path), `Err(())` if one is no one coordinate in this
/// frame (a slot holding a sequence).
#[inline(always)]
fn scalar_coords(
    args: &[ArgCode],
    frame: &KeyFrame,
    out: &mut [i64; SCALAR_ARGS],
) -> Result<Option<Shape>, ()> {
    let mut shape = 0;
    for (n, a) in args.iter().enumerate() {
        let Some((c, tag)) = a.scalar(frame)? else {
            return Ok(None);
        };
        out[n] = c;
        let Some(pushed) = shape_push(shape, n as u8, tag) else {
            return Ok(None);
        };
        shape = pushed;
    }
    Ok(Some(shape))
}
