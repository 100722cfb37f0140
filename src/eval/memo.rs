//! Position keys and memo tables.
//!
//! A position's arguments are flattened into a key: a shape (one tag per
//! argument: integer, boolean, or a list/set/tuple of integers of some
//! length) and the integers themselves. Keys of one shape whose integers are
//! small and non-negative live in a dense byte array indexed by their bits
//! (untouched pages of it cost no memory); others go to hash maps. Arguments
//! that do not flatten (nested lists, games ...) are hashed as values.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::value::Value;

/// What one argument of a flattened position is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    Int,
    Bool,
    List(u32),
    Set(u32),
    Tuple(u32),
}

pub type Tags = SmallVec<[Tag; 4]>;
pub type Coords = SmallVec<[i64; 8]>;

/// A position key: flattened when every argument flattens, else the values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Key {
    pub tags: Tags,
    pub coords: Coords,
    pub generic: Option<Rc<[Value]>>,
}

impl Key {
    pub fn clear(&mut self) {
        self.tags.clear();
        self.coords.clear();
        self.generic = None;
    }

    /// Appends one argument; false if it does not flatten to integers.
    pub fn push_value(&mut self, v: &Value) -> bool {
        let (tag, items) = match v {
            Value::Int(n) => {
                self.tags.push(Tag::Int);
                self.coords.push(*n);
                return true;
            }
            Value::Bool(b) => {
                self.tags.push(Tag::Bool);
                self.coords.push(*b as i64);
                return true;
            }
            Value::List(xs) => (Tag::List(xs.len() as u32), xs),
            Value::Set(xs) => (Tag::Set(xs.len() as u32), xs),
            Value::Tuple(xs) => (Tag::Tuple(xs.len() as u32), xs),
            _ => return false,
        };
        let start = self.coords.len();
        for x in items.iter() {
            match x {
                Value::Int(n) => self.coords.push(*n),
                _ => {
                    self.coords.truncate(start);
                    return false;
                }
            }
        }
        self.tags.push(tag);
        true
    }

    /// The key of a position with these arguments.
    pub fn from_args(args: &[Value]) -> Key {
        let mut key = Key::default();
        key.set_args(args);
        key
    }

    pub fn set_args(&mut self, args: &[Value]) {
        self.clear();
        if !args.iter().all(|a| self.push_value(a)) {
            self.clear();
            self.generic = Some(Rc::from(args));
        }
    }

    /// The arguments back as values.
    pub fn to_args(&self) -> Rc<[Value]> {
        if let Some(g) = &self.generic {
            return g.clone();
        }
        let mut out = Vec::with_capacity(self.tags.len());
        self.push_args(&mut out);
        Rc::from(out)
    }

    /// Appends the arguments as values (no allocation for integer arguments).
    pub fn push_args(&self, out: &mut Vec<Value>) {
        if let Some(g) = &self.generic {
            out.extend(g.iter().cloned());
            return;
        }
        let mut at = 0;
        for tag in &self.tags {
            let ints = |n: u32| -> Vec<Value> {
                self.coords[at..at + n as usize]
                    .iter()
                    .map(|&c| Value::Int(c))
                    .collect()
            };
            out.push(match *tag {
                Tag::Int => Value::Int(self.coords[at]),
                Tag::Bool => Value::Bool(self.coords[at] != 0),
                Tag::List(n) => Value::list(ints(n)),
                Tag::Set(n) => Value::Set(Rc::new(ints(n))),
                Tag::Tuple(n) => Value::tuple(ints(n)),
            });
            at += match *tag {
                Tag::Int | Tag::Bool => 1,
                Tag::List(n) | Tag::Set(n) | Tag::Tuple(n) => n as usize,
            };
        }
    }
}

/// What the memo knows of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Never seen; its `where` condition is not checked yet.
    Unknown,
    /// On the current search path: reaching it again means a cycle.
    OnPath,
    /// Violates its game's `where` condition: not a position.
    Invalid,
    /// A valid position whose value is not known yet.
    Valid,
    Value(u64),
}

impl State {
    fn encode(self) -> u64 {
        match self {
            State::Unknown => 0,
            State::OnPath => 1,
            State::Invalid => 2,
            State::Valid => 3,
            State::Value(v) => v + 4,
        }
    }

    fn decode(code: u64) -> State {
        match code {
            0 => State::Unknown,
            1 => State::OnPath,
            2 => State::Invalid,
            3 => State::Valid,
            v => State::Value(v - 4),
        }
    }
}

/// Dense byte codes above this live in `big` (the byte holds `BIG`).
const BIG: u8 = u8::MAX;

/// The SG value a dense byte holds, if it holds one itself.
#[inline]
pub fn dense_value(code: u8) -> Option<u64> {
    (4..BIG).contains(&code).then(|| code as u64 - 4)
}
/// Largest dense index space, in bits (2^30 bytes of address space, touched
/// only where positions are).
const MAX_DENSE_BITS: u32 = 30;

/// The positions of one shape.
#[derive(Debug, Default)]
struct ShapeTable {
    tags: Tags,
    /// Bits per coordinate of the dense window, and their shifts.
    bits: SmallVec<[u8; 8]>,
    shifts: SmallVec<[u8; 8]>,
    dense: Vec<u8>,
    big: FxHashMap<u64, u64>,
    sparse: FxHashMap<Coords, u64>,
}

impl ShapeTable {
    fn new(tags: Tags, n_coords: usize) -> ShapeTable {
        let mut t = ShapeTable {
            tags,
            bits: SmallVec::from_elem(0, n_coords),
            ..ShapeTable::default()
        };
        t.layout();
        t
    }

    fn layout(&mut self) {
        let mut shift = 0u8;
        self.shifts.clear();
        for &b in self.bits.iter().rev() {
            self.shifts.push(shift);
            shift += b;
        }
        self.shifts.reverse();
        self.dense = vec![0u8; 1usize << shift];
    }

    #[inline]
    fn index(&self, coords: &[i64]) -> Option<usize> {
        let mut idx = 0usize;
        for ((&c, &b), &s) in coords.iter().zip(&self.bits).zip(&self.shifts) {
            if (c as u64) >> b != 0 {
                return None; // negative or too large for the window
            }
            idx |= (c as usize) << s;
        }
        Some(idx)
    }

    fn coords_of(&self, idx: usize) -> Coords {
        self.bits
            .iter()
            .zip(&self.shifts)
            .map(|(&b, &s)| ((idx >> s) & ((1usize << b) - 1)) as i64)
            .collect()
    }

    #[inline]
    fn get(&self, coords: &[i64]) -> u64 {
        match self.index(coords) {
            Some(i) => match self.dense[i] {
                BIG => self.big[&(i as u64)],
                code => code as u64,
            },
            None => self.sparse.get(coords).copied().unwrap_or(0),
        }
    }

    fn set(&mut self, coords: &[i64], code: u64) {
        if self.index(coords).is_none() {
            self.try_grow(coords);
        }
        match self.index(coords) {
            Some(i) => {
                if code >= BIG as u64 {
                    self.dense[i] = BIG;
                    self.big.insert(i as u64, code);
                } else {
                    if self.dense[i] == BIG {
                        self.big.remove(&(i as u64));
                    }
                    self.dense[i] = code as u8;
                }
            }
            None => {
                self.sparse.insert(Coords::from_slice(coords), code);
            }
        }
    }

    /// Widens the dense window to take `coords` if they are non-negative and
    /// the window stays within `MAX_DENSE_BITS`; moves every entry over.
    fn try_grow(&mut self, coords: &[i64]) {
        if coords.iter().any(|&c| c < 0) {
            return;
        }
        let need: SmallVec<[u8; 8]> = coords
            .iter()
            .zip(&self.bits)
            .map(|(&c, &b)| b.max((64 - (c as u64).leading_zeros()) as u8))
            .collect();
        if need.iter().map(|&b| b as u32).sum::<u32>() > MAX_DENSE_BITS {
            return;
        }
        let old_dense = std::mem::take(&mut self.dense);
        let old_big = std::mem::take(&mut self.big);
        let old_layout = ShapeTable {
            bits: self.bits.clone(),
            shifts: self.shifts.clone(),
            ..ShapeTable::default()
        };
        self.bits = need;
        self.layout();
        for (i, &code) in old_dense.iter().enumerate() {
            if code != 0 {
                let c = old_layout.coords_of(i);
                let full = if code == BIG {
                    old_big[&(i as u64)]
                } else {
                    code as u64
                };
                self.set(&c, full);
            }
        }
        let sparse = std::mem::take(&mut self.sparse);
        for (c, code) in sparse {
            self.set(&c, code);
        }
    }
}

/// The memo table of one game instance.
#[derive(Debug, Default)]
pub struct Memo {
    shapes: Vec<ShapeTable>,
    shape_ids: FxHashMap<Tags, usize>,
    /// The shape used last: most games have one shape.
    last_shape: usize,
    generic: FxHashMap<Rc<[Value]>, u64>,
    /// How many positions have a value or are known not to be positions.
    pub stored: usize,
}

impl Memo {
    #[inline]
    fn shape_of(&self, tags: &Tags) -> Option<usize> {
        match self.shapes.get(self.last_shape) {
            Some(t) if t.tags == *tags => Some(self.last_shape),
            _ => self.shape_ids.get(tags).copied(),
        }
    }

    #[inline]
    pub fn get(&mut self, key: &Key) -> State {
        if let Some(g) = &key.generic {
            return State::decode(self.generic.get(g).copied().unwrap_or(0));
        }
        match self.shape_of(&key.tags) {
            Some(s) => {
                self.last_shape = s;
                State::decode(self.shapes[s].get(&key.coords))
            }
            None => State::Unknown,
        }
    }

    /// Where the positions `bases + coefs * k` (integer arguments), `k` in
    /// `lo..hi`, lie in the dense window, if they all do: the window's
    /// bytes, the first index and the stride between consecutive `k`.
    /// Bytes 4..255 are values 0..250 (see `dense_value`).
    pub fn dense_run(
        &mut self,
        bases: &[i64],
        coefs: &[i64],
        lo: i64,
        hi: i64,
    ) -> Option<(&[u8], usize, isize)> {
        let tags: Tags = bases.iter().map(|_| Tag::Int).collect();
        let s = self.shape_of(&tags)?;
        self.last_shape = s;
        let table = &self.shapes[s];
        let at = |k: i64| -> Coords { bases.iter().zip(coefs).map(|(b, c)| b + c * k).collect() };
        let first = table.index(&at(lo))?;
        table.index(&at(hi - 1))?;
        let stride: isize = coefs
            .iter()
            .zip(&table.shifts)
            .map(|(&c, &sh)| (c as isize) << sh)
            .sum();
        Some((&table.dense, first, stride))
    }

    pub fn set(&mut self, key: &Key, state: State) {
        if matches!(state, State::Value(_) | State::Invalid) {
            self.stored += 1;
        }
        let code = state.encode();
        if let Some(g) = &key.generic {
            self.generic.insert(g.clone(), code);
            return;
        }
        let s = match self.shape_of(&key.tags) {
            Some(s) => s,
            None => {
                self.shapes
                    .push(ShapeTable::new(key.tags.clone(), key.coords.len()));
                self.shape_ids
                    .insert(key.tags.clone(), self.shapes.len() - 1);
                self.shapes.len() - 1
            }
        };
        self.last_shape = s;
        self.shapes[s].set(&key.coords, code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(args: &[Value]) -> Key {
        Key::from_args(args)
    }

    #[test]
    fn keys_round_trip() {
        let args = vec![
            Value::Int(-3),
            Value::list(vec![Value::Int(1), Value::Int(7)]),
            Value::set(vec![Value::Int(2)]),
            Value::Bool(true),
        ];
        assert_eq!(&*key(&args).to_args(), &args[..]);
        let nested = vec![Value::list(vec![Value::list(vec![])])];
        let k = key(&nested);
        assert!(k.generic.is_some());
        assert_eq!(&*k.to_args(), &nested[..]);
    }

    #[test]
    fn memo_keeps_values_across_window_growth_and_sparse_keys() {
        let mut memo = Memo::default();
        let mut expected = Vec::new();
        for (i, (a, b)) in [
            (0, 0),
            (1, 0),
            (5, 9),
            (300, 2),
            (-4, 1),
            (1 << 40, 3),
            (70, 70),
        ]
        .into_iter()
        .enumerate()
        {
            let k = key(&[Value::Int(a), Value::Int(b)]);
            let v = (i as u64) * 100; // some above the dense byte range
            memo.set(&k, State::Value(v));
            expected.push((k, v));
        }
        for (k, v) in &expected {
            assert_eq!(memo.get(k), State::Value(*v), "{k:?}");
        }
        assert_eq!(
            memo.get(&key(&[Value::Int(2), Value::Int(2)])),
            State::Unknown
        );
        assert_eq!(memo.stored, expected.len());
    }
}
