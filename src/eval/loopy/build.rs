//! The graph of the positions reachable from one position, found by
//! listing options with the search's `enumerate`. Positions are kept as
//! packed keys (the instance and the key's shape in two words, then its
//! integers), numbered in the order they are found.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::graph::Graph;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::eval::compile::{satisfies_where, Env, Sink, Target};
use crate::eval::memo::{words_hash, Key, State};
use crate::eval::search::{enumerate, MoveSink};
use crate::eval::value::{Game, InstanceId};
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

/// The reachable positions: their packed keys and the digraph of moves.
pub struct PositionGraph {
    pub graph: Graph,
    keys: Vec<Packed>,
    generic: Vec<Key>,
}

impl PositionGraph {
    /// The position of vertex `u`, `None` for the zero game.
    pub fn position(&self, u: usize) -> Option<(InstanceId, Key)> {
        let p = &self.keys[u].0;
        if p[0] == ZERO {
            return None;
        }
        let instance = InstanceId(p[0] as u32);
        if p[0] & GENERIC != 0 {
            return Some((instance, self.generic[p[1] as usize].clone()));
        }
        let mut key = Key::default();
        key.set_coords(p[1] as u64, (p[0] >> 32) as u8, &p[2..]);
        Some((instance, key))
    }

    /// Bytes held: the graph's and the keys'.
    pub fn bytes(&self) -> usize {
        let packed = std::mem::size_of::<Packed>();
        self.graph.bytes()
            + self.keys.capacity() * packed
            // The index from packed keys to vertices, while building.
            + self.keys.len() * (packed + 8) * 8 / 7
            + self.generic.capacity() * std::mem::size_of::<Key>()
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
}

/// Lists the reachable positions from `root` breadth first.
pub fn build(
    env: &mut Env,
    root: (InstanceId, &Key),
    reach: Reach,
    span: Span,
) -> Fallible<PositionGraph> {
    let mut b = Builder {
        out: PositionGraph {
            graph: Graph::default(),
            keys: Vec::new(),
            generic: Vec::new(),
        },
        index: FxHashMap::default(),
        generic_index: FxHashMap::default(),
        reach,
        options: Vec::new(),
        span,
        error: None,
    };
    b.vertex_of(env, root.0, root.1, true)?;
    let mut u = 0;
    while u < b.out.graph.len() {
        if u % 4096 == 4095 {
            env.rt.check_interrupt(span)?;
            env.rt.check_memory(b.out.bytes(), span)?;
        }
        if b.out.graph.fixed(u).is_none() {
            let (instance, key) = b.out.position(u).expect("a position");
            b.options.clear();
            let mut sink = Collect {
                b: &mut b,
                from: instance,
            };
            enumerate(env, instance, &key, span, &mut sink)?;
            if let Some(e) = b.error.take() {
                return Err(e);
            }
            for i in 0..b.options.len() {
                let w = b.options[i];
                b.out.graph.push_edge(w);
            }
        }
        b.out.graph.close();
        u += 1;
    }
    Ok(b.out)
}

struct Builder {
    out: PositionGraph,
    index: FxHashMap<Packed, u32>,
    generic_index: FxHashMap<(InstanceId, Key), u32>,
    reach: Reach,
    /// The options of the vertex being expanded.
    options: Vec<u32>,
    span: Span,
    error: Option<Box<Diag>>,
}

impl Builder {
    /// The vertex of a position, added if new; `None` if the key is not a
    /// position (its `where` fails).
    fn vertex_of(
        &mut self,
        env: &mut Env,
        instance: InstanceId,
        key: &Key,
        is_root: bool,
    ) -> Fallible<Option<u32>> {
        let packed = self.pack(instance, key);
        if let Some(&u) = self.index.get(&packed) {
            return Ok(Some(u));
        }
        let inst = env.rt.instance(instance);
        let state = inst.memo.borrow_mut().get(key);
        let known = match state {
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
            State::OnPath => inst.infinite.borrow().get(key).copied(),
            State::Valid => None,
        };
        let fixed = known.filter(|_| self.reach == Reach::ToKnown && !is_root);
        let u = self.out.graph.add_vertex(fixed);
        self.out.keys.push(packed.clone());
        self.index.insert(packed, u);
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

    fn zero_vertex(&mut self) -> u32 {
        let packed = Packed(SmallVec::from_slice(&[ZERO]));
        if let Some(&u) = self.index.get(&packed) {
            return u;
        }
        let fixed = (self.reach == Reach::ToKnown).then_some(0);
        let u = self.out.graph.add_vertex(fixed);
        self.out.keys.push(packed.clone());
        self.index.insert(packed, u);
        u
    }
}

/// The sink `enumerate` lists a vertex's options into.
struct Collect<'b> {
    b: &'b mut Builder,
    from: InstanceId,
}

impl Sink for Collect<'_> {
    fn option(&mut self, env: &mut Env, target: Target<'_>) -> Fallible<()> {
        let b = &mut *self.b;
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
            Target::Sum(_) | Target::Game(_) => {
                if b.error.is_none() {
                    let name = env.rt.instance(self.from).name.clone();
                    b.error = Some(
                        Diag::new(
                            ErrorKind::Loopy,
                            b.span,
                            format!(
                                "loopy game: a move of {name} leads to a sum or a compound, which the loopy labelling does not follow"
                            ),
                        )
                        .label("while computing the generalised SG value of this")
                        .help("in a game with cycles, write each move to a single position (a sum of loopy games is valued by Smith's rules when asked for directly: sg(A + B))")
                        .boxed(),
                    );
                }
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
