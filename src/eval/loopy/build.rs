//! The graph of the positions reachable from one position, numbered in
//! the order they are found. The root's game, when its positions are
//! integers, has them numbered by their coordinates (`numbering`: a dense
//! box, hashed outside it) and, when it has a kernel, its options listed
//! by the kernel (`kernel_options`) straight into the graph's rows; other
//! positions are kept as packed keys (the instance and the key's shape in
//! two words, then its integers) and their options listed by the search's
//! `enumerate`.
//!
//! When that game's `where` is bounds on every argument (a box) and the
//! root reaches a good share of the box, the whole box is the graph
//! instead: vertex `c` is the box's cell `c`, every cell a position, the
//! rows (and the labelling's arrays) in the box's order, with no
//! numbering to look positions up in.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::box_moves::{BoxMoves, LineRuns};
use super::cell_box::CellBox;
use super::graph::Graph;
use super::kernel_options::{list_options, Listed};
use super::numbering::{Numbering, NEW, NOT_A_POSITION};
use super::reach::reaches_more_than;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::compile::{satisfies_where, Env, Instance, Sink, Target, KERNEL_FRAME};
use crate::eval::gsg::is_infinite;
use crate::eval::memo::{int_shape, words_hash, Key, Shape, State, MAX_ARGS};
use crate::eval::search::{enumerate, sg_of_game, MoveSink};
use crate::eval::value::{Game, InstanceId, Value};
use crate::syntax::Span;

/// A position as a few integers: `[instance | n_args << 32 | len << 40,
/// shape, coords...]`; a key of values (`Key::generic`) is
/// `[instance | GENERIC, index in the generic keys]`.
#[derive(Clone, PartialEq, Eq)]
struct Packed(SmallVec<[i64; 4]>);

/// One well-mixed word: small coordinates under a plain FxHash collide.
impl std::hash::Hash for Packed {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(words_hash(&self.0));
    }
}

const GENERIC: i64 = 1 << 48;
/// The vertex of the zero game (a move to `0`), which has no key.
const ZERO: i64 = -1;
/// A sum: `[SUM, rest, parts...]`, its open parts' vertices, sorted, and
/// `rest` the generalised value of the others.
const SUM: i64 = -2;
/// Most parts a sum's vertex keeps (more: sums that keep growing).
const SUM_PARTS: usize = 64;
/// A position, as a part of a sum.
pub type Part = (InstanceId, Key);

/// The reachable positions: where each vertex's position is kept, and
/// the digraph of moves.
pub struct PositionGraph {
    pub graph: Graph,
    /// The root's vertex.
    pub root: usize,
    /// The main game's box when the graph is the whole box: vertices
    /// `0..cells` are its cells, in order.
    whole: Option<CellBox>,
    /// Per vertex past the box's cells: `MAIN | i` for the `i`-th position
    /// of the root's game numbered by its coordinates (`main`), else its
    /// index in `others`.
    origin: Vec<u32>,
    main: Option<MainGame>,
    /// The coordinates of the main game's vertices, `n` each.
    main_coords: Vec<i64>,
    others: Vec<Packed>,
    generic: Vec<Key>,
    /// Bytes the numbering held while building.
    numbering_bytes: usize,
    /// A part of a sum to value first, the graph left unfinished (the
    /// parts of the positions `build` is told wait for it are kept open).
    pub wanted: Option<Part>,
    /// With `Reach::Parts`: each sum option, as the vertex that moves to
    /// it and its parts' vertices.
    pub splits: Vec<(u32, SmallVec<[u32; 4]>)>,
}

/// The root's game when its positions are numbered by their integers
/// (`Numbering`), their options listed by its kernel when it has one.
#[derive(Clone)]
struct MainGame {
    instance: InstanceId,
    inst: Rc<Instance>,
    shape: Shape,
    n: usize,
    /// The frame's static arguments as integers.
    statics: SmallVec<[i64; 4]>,
}

const MAIN: u32 = 1 << 31;

impl PositionGraph {
    /// The first vertex past the whole box's cells (0 without one).
    fn first_other(&self) -> usize {
        self.whole.map_or(0, |b| b.cells())
    }

    /// Writes the coordinates of vertex `u` into `out` if it is a
    /// position of the main game; false otherwise.
    #[inline]
    fn main_coords_into(&self, u: usize, out: &mut [i64]) -> bool {
        if let Some(b) = self.whole.as_ref().filter(|b| u < b.cells()) {
            b.coords_of(u, out);
            return true;
        }
        let o = self.origin[u - self.first_other()];
        if o & MAIN == 0 {
            return false;
        }
        let n = self.main.as_ref().expect("a main game").n;
        let i = (o & !MAIN) as usize;
        out[..n].copy_from_slice(&self.main_coords[i * n..(i + 1) * n]);
        true
    }

    /// The position of vertex `u`, `None` for the zero game.
    pub fn position(&self, u: usize) -> Option<Part> {
        let mut key = Key::default();
        let instance = self.key_into(u, &mut key)?;
        Some((instance, key))
    }

    /// Writes the key of vertex `u`'s position into `key`; its instance,
    /// `None` for the zero game.
    pub fn key_into(&self, u: usize, key: &mut Key) -> Option<InstanceId> {
        let mut coords = [0i64; MAX_ARGS as usize];
        if self.main_coords_into(u, &mut coords) {
            let m = self.main.as_ref().expect("a main game");
            key.set_coords(m.shape, m.n as u8, &coords[..m.n]);
            return Some(m.instance);
        }
        let p = &self.others[self.origin[u - self.first_other()] as usize].0;
        if p[0] == ZERO || p[0] == SUM {
            return None;
        }
        let instance = InstanceId(p[0] as u32);
        if p[0] & GENERIC != 0 {
            *key = self.generic[p[1] as usize].clone();
            return Some(instance);
        }
        key.set_coords(p[1] as u64, (p[0] >> 32) as u8, &p[2..]);
        Some(instance)
    }

    /// The known parts' value and the open parts' vertices of a sum's vertex.
    fn sum_of(&self, u: usize) -> Option<(u64, &[i64])> {
        let o = self.origin[u.checked_sub(self.first_other())?];
        let p = &self.others.get((o & MAIN == 0).then_some(o as usize)?)?.0;
        (p[0] == SUM).then(|| (p[1] as u64, &p[2..]))
    }

    /// Calls `line(u, instance, shape, first, len)` for each line of the
    /// whole box when the graph is one (the cells `u..u + len`, whose
    /// coordinates are `first` but for the last, raised by 0 to `len - 1`),
    /// then `f(u, instance, key)` for every other vertex `u` that is a
    /// position (not the zero game nor a sum), in order.
    pub fn for_each_position(
        &self,
        mut line: impl FnMut(usize, InstanceId, Shape, &[i64], usize) -> Fallible<()>,
        mut f: impl FnMut(usize, InstanceId, &Key) -> Fallible<()>,
    ) -> Fallible<()> {
        let mut first = 0;
        if let (Some(b), Some(m)) = (&self.whole, &self.main) {
            let len = b.size().last().map_or(1, |&s| s as usize).max(1);
            let mut coords = [0i64; MAX_ARGS as usize];
            for u in (0..b.cells()).step_by(len) {
                b.coords_of(u, &mut coords[..m.n]);
                line(u, m.instance, m.shape, &coords[..m.n], len)?;
            }
            first = b.cells();
        }
        let mut key = Key::default();
        for u in first..self.graph.len() {
            if let Some(instance) = self.key_into(u, &mut key) {
                f(u, instance, &key)?;
            }
        }
        Ok(())
    }

    /// The main game's instance, shape, and least and greatest coordinates
    /// of its positions in the graph, if it has any.
    pub fn main_box(&self) -> Option<(InstanceId, Shape, Vec<i64>, Vec<i64>)> {
        let m = self.main.as_ref()?;
        if let Some(b) = &self.whole {
            let lo = b.lo().to_vec();
            let hi = (lo.iter().zip(b.size()))
                .map(|(&l, &s)| l + (s as i64 - 1))
                .collect();
            return Some((m.instance, m.shape, lo, hi));
        }
        let mut rows = self.main_coords.chunks_exact(m.n.max(1));
        let first = rows.next()?;
        let (mut lo, mut hi) = (first.to_vec(), first.to_vec());
        for row in rows {
            for (j, &c) in row.iter().enumerate() {
                lo[j] = lo[j].min(c);
                hi[j] = hi[j].max(c);
            }
        }
        Some((m.instance, m.shape, lo, hi))
    }

    /// Bytes held: the graph's, the positions' and, while building, their
    /// numbering.
    pub fn bytes(&self) -> usize {
        let packed = std::mem::size_of::<Packed>();
        self.graph.bytes()
            + 4 * self.origin.capacity()
            + 8 * self.main_coords.capacity()
            + self.others.capacity() * packed
            // The index from packed keys to vertices, while building.
            + self.others.len() * (packed + 8) * 8 / 7
            + self.generic.capacity() * std::mem::size_of::<Key>()
            + self.numbering_bytes
    }

    /// How many vertices were numbered by their coordinates (the rest by
    /// hashed keys).
    pub fn numbered(&self) -> usize {
        self.first_other() + self.main_coords.len() / self.main.as_ref().map_or(1, |m| m.n.max(1))
    }
}

/// Which positions end the graph without being expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Positions whose value the memo holds (finite, or infinite in the
    /// instance's table) are fixed vertices: for the labelling.
    ToKnown,
    /// Every reachable position is expanded: for the remoteness.
    All,
    /// As `All`, a sum option an edge to each of its parts
    /// (`PositionGraph::splits`): a finite graph even where sums grow.
    Parts,
}

/// Lists the reachable positions from `root` breadth first: the root's
/// game's integer positions (kernels on) numbered by their integers and
/// listed by its kernel if it has one, others by their keys and moves'
/// code; the whole box instead when that game's `where` is a box and the
/// root reaches one cell in `REACHED_SHARE` of it (or the box is small).
/// A game with moves to sums is listed breadth first only. `waiting`: as
/// `PositionGraph::wanted` says.
pub fn build(
    env: &mut Env,
    root: (InstanceId, &Key),
    reach: Reach,
    span: Span,
    waiting: &[Part],
) -> Fallible<PositionGraph> {
    let main = main_game(env, root.0, root.1);
    let whole = main.as_ref().and_then(|m| whole_box(env, m, span));
    let new = |whole| Builder {
        waiting: waiting.to_vec(),
        ..Builder::new(main.clone(), whole, reach, span)
    };
    let switch_at = whole.map(|b| b.cells() / REACHED_SHARE);
    let told = match (whole, &main) {
        (Some(b), Some(m)) if b.cells() > SMALL_BOX => {
            reaches_share(env, m, b, root.1, reach, span)?
        }
        _ => None,
    };
    let found = match whole.filter(|b| b.cells() <= SMALL_BOX || told == Some(true)) {
        Some(b) => new(Some(b)).expand(env, root, None)?,
        None => match new(None).expand(env, root, switch_at)? {
            None => new(whole).expand(env, root, None)?,
            g => g,
        },
    };
    // `None`: the whole box met a sum.
    Ok(match found {
        Some(g) => g,
        None => new(None).expand(env, root, None)?.expect("no switch"),
    })
}

/// A box of at most this many cells is the graph whenever it can be.
const SMALL_BOX: usize = 1 << 12;
/// The breadth-first listing turns to the whole box once it has reached
/// one cell in this many.
const REACHED_SHARE: usize = 32;

/// Whether the root at `key` reaches more than one cell in
/// `REACHED_SHARE` of the box, by a walk over its cells
/// (`reaches_more_than`) when the kernel lists its options as runs of
/// cells: the positions whose value the memo holds end it as they end
/// the graph (`Reach::ToKnown`).
fn reaches_share(
    env: &Env,
    m: &MainGame,
    cells: CellBox,
    key: &Key,
    reach: Reach,
    span: Span,
) -> Fallible<Option<bool>> {
    let g = &m.inst.game;
    let s = m.statics.len();
    let moves = (g.kernel.as_ref()).and_then(|k| BoxMoves::new(k, cells, s));
    let (Some(moves), Some(root)) = (moves, cells.cell(key.coords())) else {
        return Ok(None);
    };
    let mut frame = [0i64; KERNEL_FRAME];
    frame[..s].copy_from_slice(&m.statics);
    let mut memo = m.inst.memo.borrow_mut();
    let mut known = |coords: &[i64]| match memo.get_coords(m.shape, coords) {
        State::Value(_) => true,
        State::OnPath => {
            let mut infinite = m.inst.infinite.borrow_mut();
            infinite.get_coords(m.shape, coords).is_some()
        }
        _ => false,
    };
    let fixed = |coords: &[i64]| reach == Reach::ToKnown && known(coords);
    let limit = cells.cells() / REACHED_SHARE;
    let check = || env.rt.check_interrupt(span);
    reaches_more_than(&moves, cells, (&mut frame, s), root, limit, fixed, check)
}

/// The main game's box of positions, when its `where` is bounds on every
/// argument, every cell a position, and the box fits the memory and
/// state limits as a graph.
fn whole_box(env: &Env, m: &MainGame, span: Span) -> Option<CellBox> {
    let g = &m.inst.game;
    let bounds = g.where_bounds.as_deref()?;
    let s = m.statics.len();
    let (mut lo, mut size) = (Vec::with_capacity(m.n), Vec::with_capacity(m.n));
    for slot in s..s + m.n {
        let on = || bounds.iter().filter(|b| b.slot == slot);
        let a = on().map(|b| b.lo).max()?;
        let z = on().map(|b| b.hi).min()?;
        let side = u64::try_from(i128::from(z) - i128::from(a) + 1).ok()?;
        lo.push(a);
        size.push(side);
    }
    let limits = &env.rt.limits;
    let b = CellBox::new(&lo, &size, limits.max_states)?;
    // The graph's rows and the labelling's arrays: about 24 bytes a cell
    // before the moves.
    env.rt
        .check_memory(b.cells().saturating_mul(24), span)
        .ok()?;
    (b.cells() > 0).then_some(b)
}

/// The root's game as a `MainGame`, when kernels are on, its positions
/// are integers (the root's key is of integers only, as many as the
/// game's arguments; with a kernel, one over integers) and its static
/// arguments are integers. Without a kernel its positions are still
/// numbered by their integers, their options listed by their moves' code.
fn main_game(env: &Env, instance: InstanceId, key: &Key) -> Option<MainGame> {
    if !env.rt.limits.plans.kernels {
        return None;
    }
    let inst = env.rt.instance(instance);
    let g = &inst.game;
    let (n, shape) = (g.n_params, int_shape(g.n_params));
    // A game of no arguments has one position: nothing to number.
    if n == 0 || n > MAX_ARGS as usize {
        return None;
    }
    if key.generic.is_some() || key.shape() != shape || key.coords().len() != n {
        return None;
    }
    if let Some(kernel) = &g.kernel {
        if kernel.keyed || kernel.shape != shape || kernel.n_params != n {
            return None;
        }
    }
    let statics = inst
        .frame_statics()
        .iter()
        .map(|v| match v {
            Value::Int(n) => Some(*n),
            _ => None,
        })
        .collect::<Option<SmallVec<_>>>()?;
    (statics.len() + n <= KERNEL_FRAME).then(|| MainGame {
        instance,
        shape,
        n,
        statics,
        inst: inst.clone(),
    })
}

struct Builder {
    out: PositionGraph,
    /// The main game's positions by their coordinates.
    numbering: Numbering,
    /// Other positions by their packed keys.
    index: FxHashMap<Packed, u32>,
    generic_index: FxHashMap<(InstanceId, Key), u32>,
    reach: Reach,
    /// The options of the vertex being expanded.
    options: Vec<u32>,
    span: Span,
    waiting: Vec<Part>,
    /// Whether an option is a sum (the whole box then gives way).
    sums: bool,
}

impl Builder {
    fn new(main: Option<MainGame>, whole: Option<CellBox>, reach: Reach, span: Span) -> Builder {
        Builder {
            numbering: Numbering::new(
                main.as_ref().map_or(0, |m| m.n),
                main.is_some() && whole.is_none(),
            ),
            out: PositionGraph {
                graph: Graph::default(),
                root: 0,
                whole,
                origin: Vec::new(),
                main,
                main_coords: Vec::new(),
                others: Vec::new(),
                generic: Vec::new(),
                numbering_bytes: 0,
                wanted: None,
                splits: Vec::new(),
            },
            index: FxHashMap::default(),
            generic_index: FxHashMap::default(),
            reach,
            options: Vec::new(),
            span,
            waiting: Vec::new(),
            sums: false,
        }
    }

    /// Whether the graph is left unfinished: a part of a sum is wanted
    /// first, or the whole box met a sum.
    fn stopped(&self) -> bool {
        self.out.wanted.is_some() || (self.sums && self.out.whole.is_some())
    }

    /// Lists the vertices' options in order, from the root (or the whole
    /// box's cells, then the others); `None` once more than `switch_at`
    /// positions of the main game are numbered.
    fn expand(
        mut self,
        env: &mut Env,
        root: (InstanceId, &Key),
        switch_at: Option<usize>,
    ) -> Fallible<Option<PositionGraph>> {
        if self.out.whole.is_some() {
            self.add_cells(env, root.1)?;
        }
        let span = self.span;
        let b = &mut self;
        b.out.root = b
            .vertex_of(env, root.0, root.1, true)?
            .expect("the root is a position") as usize;
        let mut listed = Listed::default();
        let mut frame = [0i64; KERNEL_FRAME];
        let mut u = b.by_cells(env, &mut listed)?;
        while u < b.out.graph.len() && !b.stopped() {
            let switch = switch_at.filter(|_| !b.sums);
            if u % 64 == 63 && switch.is_some_and(|limit| b.out.numbered() > limit) {
                return Ok(None);
            }
            if u % 4096 == 4095 {
                b.out.numbering_bytes = b.numbering.bytes();
                env.rt.check_interrupt(span)?;
                env.rt.check_memory(b.out.bytes(), span)?;
            }
            if b.out.graph.fixed(u).is_none() {
                b.list_vertex(env, u, &mut listed, &mut frame)?;
            }
            b.out.graph.close();
            u += 1;
        }
        b.out.numbering_bytes = b.numbering.bytes();
        Ok((!b.sums || b.out.whole.is_none()).then_some(self.out))
    }

    /// Lists the options of every cell of the whole box in order, as runs
    /// of cells (`BoxMoves`) when the main game's kernel gives them, the
    /// general way for a cell where it does not. The first vertex left to
    /// list: past the cells, or 0 when there is no whole box or its moves
    /// are not runs of cells.
    fn by_cells(&mut self, env: &mut Env, listed: &mut Listed) -> Fallible<usize> {
        let (Some(cells), Some(m)) = (self.out.whole, self.out.main.clone()) else {
            return Ok(0);
        };
        let g = &m.inst.game;
        let s = m.statics.len();
        let Some(moves) = (g.kernel.as_ref()).and_then(|k| BoxMoves::new(k, cells, s)) else {
            return Ok(0);
        };
        let mut frame = [0i64; KERNEL_FRAME];
        frame[..s].copy_from_slice(&m.statics);
        let mut general = [0i64; KERNEL_FRAME];
        let line_len = *cells.size().last().expect("a coordinate") as usize;
        let inner = s + m.n - 1;
        let mut line = LineRuns::default();
        let mut unchecked = 0;
        for start in (0..cells.cells()).step_by(line_len.max(1)) {
            if self.stopped() {
                break;
            }
            unchecked += line_len;
            if unchecked >= 4096 {
                unchecked = 0;
                env.rt.check_interrupt(self.span)?;
                env.rt.check_memory(self.out.bytes(), self.span)?;
            }
            cells.coords_of(start, &mut frame[s..s + m.n]);
            let x0 = frame[inner];
            moves.start_line(&mut frame, start, &mut line);
            // A line without fixed cells asks none; its stretch of cells
            // sharing a row is pushed at once.
            let all_free = self.out.graph.none_fixed(start, start + line_len);
            let ((a, b), row) = line.same_row();
            if start == 0 {
                // The rows of the whole box at once, as long as the first
                // line's shared row (realloc copies no more).
                let rows = cells.cells();
                self.out
                    .graph
                    .reserve(rows + 1, rows.saturating_mul(row.len()));
            }
            let mut j = 0;
            while j < line_len {
                if all_free && j == a && a < b {
                    // Its tested moves' options added per cell; a cell
                    // whose test does not evaluate is listed below.
                    let graph = &mut self.out.graph;
                    j += match line.tested() {
                        true => graph.push_shared_rows((start + a, b - a), row, |u, succ| {
                            frame[inner] = x0 + (u - start) as i64;
                            moves.extras(&frame, u, &line, succ)
                        }),
                        false => graph.push_shared_rows((start + a, b - a), row, |_, _| true),
                    };
                    if j == b {
                        continue;
                    }
                }
                let u = start + j;
                frame[inner] = x0 + j as i64;
                if all_free || self.out.graph.fixed(u).is_none() {
                    let graph = &mut self.out.graph;
                    let by_runs = moves.list(&mut frame, u, &line, &mut |first, step, count| {
                        graph.push_run(first, step, count)
                    });
                    if !by_runs {
                        self.out.graph.discard_row();
                        self.list_vertex(env, u, listed, &mut general)?;
                    }
                }
                self.out.graph.close();
                if self.stopped() {
                    return Ok(cells.cells());
                }
                j += 1;
            }
        }
        Ok(cells.cells())
    }

    /// Lists the options of vertex `u` into the graph: through its game's
    /// kernel, or through its moves' code.
    fn list_vertex(
        &mut self,
        env: &mut Env,
        u: usize,
        listed: &mut Listed,
        frame: &mut [i64; KERNEL_FRAME],
    ) -> Fallible<()> {
        if self.by_kernel(env, u, listed, frame)? {
            return Ok(());
        }
        let Some((instance, key)) = self.out.position(u) else {
            return self.list_sum(env, u);
        };
        self.options.clear();
        let span = self.span;
        let mut sink = Collect(&mut *self);
        enumerate(env, instance, &key, span, &mut sink)?;
        for i in 0..self.options.len() {
            let w = self.options[i];
            self.out.graph.push_edge(w);
        }
        Ok(())
    }

    /// Adds a vertex per cell of the whole box, in order: fixed where the
    /// memo holds the position's value (the root aside). A line the
    /// memo's window shows all unknown is added at once, its bytes read
    /// in a row; the others ask the memo per cell.
    fn add_cells(&mut self, env: &mut Env, root: &Key) -> Fallible<()> {
        let b = self.out.whole.expect("a whole box");
        let m = self.out.main.as_ref().expect("a main game");
        let root_cell = b.cell(root.coords());
        let (n, len) = (m.n, *b.size().last().expect("a coordinate") as usize);
        let mut coords = [0i64; MAX_ARGS as usize];
        let mut key = Key::default();
        let mut memo = m.inst.memo.borrow_mut();
        if self.reach == Reach::ToKnown {
            // The window takes the box now, as storing the labels would.
            let hi: SmallVec<[i64; 4]> = (b.lo().iter().zip(b.size()))
                .map(|(&l, &s)| l + (s as i64 - 1))
                .collect();
            memo.reserve_new(m.shape, b.lo());
            memo.reserve_new(m.shape, &hi);
        }
        for start in (0..b.cells()).step_by(len.max(1)) {
            if start % (1 << 16) < len {
                env.rt.check_interrupt(self.span)?;
            }
            b.coords_of(start, &mut coords[..n]);
            let x0 = coords[n - 1];
            let line = memo.line(m.shape, &coords[..n], n - 1);
            let unknown = line.is_some_and(|l| {
                let Some(bytes) = memo.line_bytes(&l) else {
                    return false;
                };
                (x0..x0 + len as i64).all(|x| l.index(x).is_some_and(|i| bytes[i] == 0))
            });
            if unknown {
                self.out.graph.add_vertices(len);
                continue;
            }
            for cell in start..start + len {
                coords[n - 1] = x0 + (cell - start) as i64;
                let known = match memo.get_coords(m.shape, &coords[..n]) {
                    State::Value(v) => Some(v),
                    State::OnPath => {
                        key.set_coords(m.shape, m.n as u8, &coords[..n]);
                        m.inst.infinite.borrow_mut().get(&key)
                    }
                    _ => None,
                };
                let fixed =
                    known.filter(|_| self.reach == Reach::ToKnown && Some(cell) != root_cell);
                self.out.graph.add_vertex(fixed);
            }
        }
        Ok(())
    }

    /// The number of the main game's position at `coords`: its cell in
    /// the whole box (`NOT_A_POSITION` outside it), else from the
    /// numbering (`NEW` if it has none yet).
    #[inline]
    fn main_number(&self, coords: &[i64]) -> u32 {
        match &self.out.whole {
            Some(b) => b.cell(coords).map_or(NOT_A_POSITION, |c| c as u32),
            None => self.numbering.get(coords),
        }
    }

    /// Lists the options of vertex `u` through its game's kernel into the
    /// graph; false, with nothing listed, if `u` is not the main game's
    /// or the kernel cannot list them.
    fn by_kernel(
        &mut self,
        env: &mut Env,
        u: usize,
        listed: &mut Listed,
        frame: &mut [i64; KERNEL_FRAME],
    ) -> Fallible<bool> {
        let Some(m) = self.out.main.as_ref() else {
            return Ok(false);
        };
        let (n, s) = (m.n, m.statics.len());
        if !self.out.main_coords_into(u, &mut frame[s..s + n]) {
            return Ok(false);
        }
        let inst = m.inst.clone();
        let g = &inst.game;
        let Some(kernel) = g.kernel.as_ref() else {
            return Ok(false);
        };
        frame[..s].copy_from_slice(&m.statics);
        if !list_options(kernel, &frame[..s + n], listed) {
            return Ok(false);
        }
        for option in listed.coords.chunks_exact(n) {
            let w = self.main_number(option);
            self.push_main(env, &inst, w, option)?;
        }
        let mut option = [0i64; MAX_ARGS as usize];
        let whole = self.out.whole.is_some();
        for &r in &listed.runs {
            let (first, step) = listed.run(r, n);
            let cells = match &self.out.whole {
                Some(b) => b.strided(first, step, r.len),
                None => self.numbering.strided(first, step, r.len),
            };
            for j in 0..r.len as i64 {
                // In the box, the run's cells follow one another by a
                // stride: an option's coordinates are written out only
                // for a new position, or outside the box.
                let in_box = cells.map(|(c0, dc)| {
                    let cell = (c0 as isize + dc * j as isize) as usize;
                    if whole {
                        cell as u32
                    } else {
                        self.numbering.at(cell)
                    }
                });
                let w = match in_box {
                    Some(w) if w != NEW => w,
                    _ => {
                        for ((o, &f), &s) in option.iter_mut().zip(first).zip(step) {
                            *o = f + s * j;
                        }
                        in_box.unwrap_or_else(|| self.main_number(&option[..n]))
                    }
                };
                self.push_main(env, &inst, w, &option[..n])?;
            }
        }
        if listed.zeros > 0 {
            let w = self.zero_vertex();
            self.out.graph.push_edge(w);
        }
        Ok(true)
    }

    /// Pushes the edge to the main game's position at `coords`, whose
    /// number is `w` (`NEW`: added now).
    #[inline]
    fn push_main(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        w: u32,
        coords: &[i64],
    ) -> Fallible<()> {
        let w = match w {
            NEW => self.main_vertex(env, inst, coords, false)?,
            NOT_A_POSITION => None,
            w => Some(w),
        };
        if let Some(w) = w {
            self.out.graph.push_edge(w);
        }
        Ok(())
    }

    /// The vertex of a position, added if new; `None` if the key is not a
    /// position (its `where` fails).
    fn vertex_of(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        key: &Key,
        is_root: bool,
    ) -> Fallible<Option<u32>> {
        if let Some(m) = &self.out.main {
            if m.instance == instance && key.generic.is_none() && key.shape() == m.shape {
                let inst = m.inst.clone();
                return self.main_vertex(env, &inst, key.coords(), is_root);
            }
        }
        let packed = self.pack(instance, key);
        if let Some(&u) = self.index.get(&packed) {
            return Ok(Some(u));
        }
        let Some(known) = self.known(env, instance, key)? else {
            return Ok(None);
        };
        let fixed = known.filter(|_| self.reach == Reach::ToKnown && !is_root);
        let u = self.out.graph.add_vertex(fixed);
        self.out.origin.push(self.out.others.len() as u32);
        self.out.others.push(packed.clone());
        self.index.insert(packed, u);
        Ok(Some(u))
    }

    /// What the memo knows of a position met for the first time: `None`
    /// if it is not one, `Some(None)` if it is one without a value yet,
    /// `Some(Some(v))` if its value is `v`.
    fn known(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        key: &Key,
    ) -> Fallible<Option<Option<u64>>> {
        let inst = env.rt.instance(instance);
        let state = inst.memo.borrow_mut().get(key);
        Ok(Some(match state {
            State::Invalid => return Ok(None),
            State::Unknown => {
                // A position's value is stored once labelled; only a key
                // that is none is noted now.
                if !satisfies_where(env, instance, key, self.span)? {
                    inst.memo.borrow_mut().set(key, State::Invalid);
                    return Ok(None);
                }
                None
            }
            State::Value(v) => Some(v),
            State::OnPath => inst.infinite.borrow_mut().get(key),
            State::Valid => None,
        }))
    }

    /// The vertex of the main game's position at `coords`, added if new.
    fn main_vertex(
        &mut self,
        env: &mut Env,
        inst: &Instance,
        coords: &[i64],
        is_root: bool,
    ) -> Fallible<Option<u32>> {
        match self.main_number(coords) {
            NEW => {}
            NOT_A_POSITION => return Ok(None),
            u => return Ok(Some(u)),
        }
        let m = self.out.main.as_ref().expect("a main game");
        let state = inst.memo.borrow_mut().get_coords(m.shape, coords);
        let known = match state {
            State::Invalid => None,
            State::Unknown => {
                let holds = match where_on_frame(inst, &m.statics, coords) {
                    Some(holds) => holds,
                    None => {
                        let mut key = Key::default();
                        key.set_coords(m.shape, m.n as u8, coords);
                        satisfies_where(env, m.instance, &key, self.span)?
                    }
                };
                holds.then_some(None)
            }
            State::Value(v) => Some(Some(v)),
            State::OnPath => {
                let mut key = Key::default();
                key.set_coords(m.shape, m.n as u8, coords);
                Some(inst.infinite.borrow_mut().get(&key))
            }
            State::Valid => Some(None),
        };
        let Some(known) = known else {
            // Not a position: noted here only, the memo's window untouched.
            self.numbering.set(coords, NOT_A_POSITION);
            return Ok(None);
        };
        let fixed = known.filter(|_| self.reach == Reach::ToKnown && !is_root);
        let u = self.out.graph.add_vertex(fixed);
        self.out
            .origin
            .push(MAIN | (self.out.main_coords.len() / m.n) as u32);
        self.out.main_coords.extend_from_slice(coords);
        self.numbering.set(coords, u);
        Ok(Some(u))
    }

    fn pack(&mut self, instance: InstanceId, key: &Key) -> Packed {
        let mut p = SmallVec::new();
        if key.generic.is_some() {
            let next = self.out.generic.len() as u32;
            let i = *self
                .generic_index
                .entry((instance, key.clone()))
                .or_insert(next);
            if i == next {
                self.out.generic.push(key.clone());
            }
            p.extend([instance.0 as i64 | GENERIC, i as i64]);
            return Packed(p);
        }
        p.push(instance.0 as i64 | (key.n_args() as i64) << 32 | (key.len() as i64) << 40);
        p.push(key.shape() as i64);
        p.extend_from_slice(key.coords());
        Packed(p)
    }

    /// An option that is a sum of positions and of a game of value `rest`
    /// (Smith 1966: its value is the parts' generalised nim-sum): the parts
    /// of known value (`part_value`) folded into `rest`, the others kept as
    /// a sum's vertex (`sum_vertex`); none when a part is no position.
    fn sum_option(&mut self, env: &mut Env, parts: &[Part], mut rest: u64) -> Fallible<()> {
        self.sums = true;
        let mut open = SmallVec::<[u32; 4]>::new();
        for part @ (instance, key) in parts {
            match self.part_value(env, part)? {
                None => return Ok(()),
                Some(Some(v)) => rest = env.rt.inf_sets.borrow_mut().add(rest, v),
                Some(None) => open.extend(self.vertex_of(env, *instance, key, false)?),
            }
        }
        if self.reach == Reach::Parts {
            self.options.extend_from_slice(&open);
            let from = self.out.graph.closed() as u32;
            self.out.splits.push((from, open));
        } else if !self.stopped() {
            let u = self.sum_vertex(env, &open, rest)?;
            self.options.push(u);
        }
        Ok(())
    }

    /// A part of a sum: `None` if no position, `Some(Some(v))` if of known
    /// value `v`, else `Some(None)`: `wanted` unless it waits for this graph
    /// (it reaches back) or the moves themselves count (the remoteness).
    fn part_value(
        &mut self,
        env: &mut Env,
        (instance, key): &Part,
    ) -> Fallible<Option<Option<u64>>> {
        let instance = *instance;
        let state = env.rt.instance(instance).memo.borrow_mut().get(key);
        let known = self.known(env, instance, key)?;
        let waits = self.waiting.iter().any(|(i, k)| *i == instance && k == key);
        if self.reach != Reach::ToKnown {
            return Ok(known.map(|_| None));
        }
        if known == Some(None) && matches!(state, State::Unknown | State::Valid) && !waits {
            self.out
                .wanted
                .get_or_insert_with(|| (instance, key.clone()));
        }
        Ok(known)
    }

    /// The vertex of the sum of the vertices `parts` and a part of value
    /// `rest`: sums among `parts` spliced in, fixed ones folded into
    /// `rest`, those listed with no move left out; a fixed vertex of value
    /// `rest` if none is left, the part's own if one is and `rest` is 0.
    fn sum_vertex(&mut self, env: &Env, parts: &[u32], mut rest: u64) -> Fallible<u32> {
        let mut open: SmallVec<[i64; 6]> = SmallVec::new();
        let mut sets = env.rt.inf_sets.borrow_mut();
        for &u in parts {
            if let Some(v) = self.out.graph.fixed(u as usize) {
                rest = sets.add(rest, v);
            } else if let Some((r, inner)) = self.out.sum_of(u as usize) {
                rest = sets.add(rest, r);
                open.extend_from_slice(inner);
            } else if (u as usize) < self.out.graph.closed()
                && self.out.graph.succ(u as usize).next().is_none()
            {
                // A part with no move: the sum is the same game without it.
            } else {
                open.push(u as i64);
            }
        }
        if open.len() == 1 && rest == 0 {
            return Ok(open[0] as u32);
        }
        if open.len() > SUM_PARTS {
            return Diag::new(
                ErrorKind::Loopy,
                self.span,
                format!("loopy game: a play passes through sums of ever more positions (past {SUM_PARTS}), so the game has no end of positions"),
            )
            .label("while computing the generalised SG value of this")
            .help("a part of a sum counts by its value when its own search finds one; parts that reach back to the position being valued are followed as they are, and here they keep adding parts")
            .err();
        }
        open.sort_unstable();
        let packed = Packed([SUM, rest as i64].into_iter().chain(open.clone()).collect());
        if let Some(&u) = self.index.get(&packed) {
            return Ok(u);
        }
        let u = self.out.graph.add_vertex(open.is_empty().then_some(rest));
        self.out.origin.push(self.out.others.len() as u32);
        self.out.others.push(packed.clone());
        self.index.insert(packed, u);
        Ok(u)
    }

    /// Lists the options of a sum's vertex `u` (none for the zero game's): a
    /// move in one open part (older, listed already), or in the part of known
    /// value, for which Smith's rules let any game of that value stand: a nim
    /// heap, or for ∞_K, a position with moves to each of K and to itself.
    fn list_sum(&mut self, env: &Env, u: usize) -> Fallible<()> {
        let Some((rest, parts)) = self.out.sum_of(u) else {
            return Ok(());
        };
        let parts: SmallVec<[u32; 6]> = parts.iter().map(|&p| p as u32).collect();
        let mut next: SmallVec<[u32; 6]> = SmallVec::new();
        for j in 0..parts.len() {
            for w in self.out.graph.succ(parts[j] as usize).collect::<Vec<_>>() {
                next.clear();
                next.extend(
                    parts
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != j)
                        .map(|(_, &p)| p),
                );
                next.push(w);
                let v = self.sum_vertex(env, &next, rest)?;
                self.out.graph.push_edge(v);
            }
        }
        let smaller: Vec<u64> = if is_infinite(rest) {
            self.out.graph.push_edge(u as u32);
            env.rt.inf_sets.borrow().k(rest).to_vec()
        } else {
            (0..rest).collect()
        };
        for k in smaller {
            let v = self.sum_vertex(env, &parts, k)?;
            self.out.graph.push_edge(v);
        }
        Ok(())
    }

    fn zero_vertex(&mut self) -> u32 {
        let packed = Packed(SmallVec::from_slice(&[ZERO]));
        if let Some(&u) = self.index.get(&packed) {
            return u;
        }
        let fixed = (self.reach == Reach::ToKnown).then_some(0);
        let u = self.out.graph.add_vertex(fixed);
        self.out.origin.push(self.out.others.len() as u32);
        self.out.others.push(packed.clone());
        self.index.insert(packed, u);
        u
    }
}

/// Whether the main game's position at `coords` satisfies its `where`,
/// by its integer code (`None`: it has none that decides; no `where`:
/// true).
fn where_on_frame(inst: &Instance, statics: &[i64], coords: &[i64]) -> Option<bool> {
    let g = &inst.game;
    if g.where_clause.is_none() {
        return Some(true);
    }
    let mut frame = [0i64; KERNEL_FRAME];
    frame[..statics.len()].copy_from_slice(statics);
    frame[statics.len()..statics.len() + coords.len()].copy_from_slice(coords);
    let frame = &frame[..statics.len() + coords.len()];
    // A `where` of bounds alone is read as its bounds, without code.
    if let Some(bounds) = g.where_bounds.as_deref() {
        return Some(
            bounds
                .iter()
                .all(|b| (b.lo..=b.hi).contains(&frame[b.slot])),
        );
    }
    g.where_flat.as_ref()?(frame)
}

/// The sink `enumerate` lists a vertex's options into.
struct Collect<'b>(&'b mut Builder);

impl Sink for Collect<'_> {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()> {
        let b = &mut *self.0;
        match target {
            Target::Zero | Target::Game(Game::Zero) => {
                let u = b.zero_vertex();
                b.options.push(u);
            }
            Target::Position(instance, key) => {
                if let Some(u) = b.vertex_of(env, instance, key, false)? {
                    b.options.push(u);
                }
            }
            Target::Game(Game::Position(p)) => {
                let key = Key::from_args(&p.args);
                if let Some(u) = b.vertex_of(env, p.instance, &key, false)? {
                    b.options.push(u);
                }
            }
            Target::Sum(parts) => b.sum_option(env, parts, 0)?,
            Target::Game(g) => {
                // Compounds valued by their own search (which says if loopy).
                let (mut parts, mut rest) = (Vec::new(), 0);
                for part in if let Game::Sum(ps) = g {
                    ps
                } else {
                    std::slice::from_ref(g)
                } {
                    match part {
                        Game::Position(p) => parts.push((p.instance, Key::from_args(&p.args))),
                        other => {
                            let v = sg_of_game(env, other, b.span)?;
                            rest = env.rt.inf_sets.borrow_mut().add(rest, v);
                        }
                    }
                }
                b.sum_option(env, &parts, rest)?;
            }
        }
        Ok(())
    }
}

impl MoveSink for Collect<'_> {
    fn start_move(&mut self, _index: usize) {}
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
}
