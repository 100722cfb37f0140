//! The data of the product search (`product`), kept in the `Runtime` for
//! the whole session: the interned atoms, the memo of compound positions,
//! the buffers of the last search. The search itself (`product`) works on
//! them through `Env`; the types live here, below the runtime that holds
//! them.

use std::ops::Range;
use std::rc::Rc;

mod memo;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::value::Game;
pub(crate) use memo::ProductMemo;

/// The interned atoms and the memo of compound positions, kept for the
/// whole session (cleared with the other memo tables).
#[derive(Default)]
pub struct ProductTables {
    pub(crate) atom_ids: FxHashMap<Game, u32>,
    /// Positions whose arguments flatten, by instance and key: a query
    /// finds its components' atoms without building them as games.
    pub(crate) position_ids: FxHashMap<PositionKey, u32>,
    pub(crate) atoms: Vec<Atom>,
    pub(crate) edges: Vec<Rc<Vec<Vec<usize>>>>,
    pub(crate) memo: ProductMemo,
    /// The buffers of the last search, for the next.
    pub(crate) spare: Option<Search>,
}

pub(crate) struct Atom {
    pub(crate) game: Game,
    /// Each option as the sorted atoms of its result (terminal ones kept).
    pub(crate) options: Option<Rc<[Box<[u32]>]>>,
    /// The same with terminal atoms dropped: what a key holds.
    pub(crate) canonical: Option<Rc<[Box<[u32]>]>>,
    /// The normal-play SG value, once asked.
    pub(crate) sg: Option<u64>,
}

/// `[instance, shape, n_args, coords...]` of a position with a flat key.
pub(crate) type PositionKey = SmallVec<[i64; 8]>;

/// The buffers of one product search. Keys on the stack are shared, so
/// looking at the top copies none.
#[derive(Default)]
pub(crate) struct Search {
    pub(crate) stack: Vec<(Rc<[u32]>, bool)>,
    /// The current position's options, packed: `ranges` index `options`.
    pub(crate) options: Vec<u32>,
    pub(crate) ranges: Vec<Range<usize>>,
    pub(crate) part: Vec<u32>,
    pub(crate) values: Vec<u64>,
    pub(crate) pending: Vec<Rc<[u32]>>,
    /// `seen[v] == stamp`: v is among `values` (never cleared).
    pub(crate) seen: Vec<u32>,
    pub(crate) stamp: u32,
}
