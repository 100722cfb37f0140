//! Runtime values: integers, ordinals, lists, sets, games, outcomes and move
//! records.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use super::ordinal::Ordinal;
use crate::diag::{Diag, ErrorKind, Fallible};
use crate::syntax::Span;

/// An identifier of one game instance: a game definition together with its
/// static (square-bracket) arguments. Each instance has its own memo table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceId(pub u32);

/// A callable value: a user function (with its static arguments bound) or a
/// built-in, or a game family such as `subtraction({1, 2, 5})`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Callable {
    /// A user function, with static arguments already applied.
    User {
        id: u32,
        name: Rc<str>,
        statics: Rc<Vec<Value>>,
    },
    Builtin {
        id: u32,
        name: &'static str,
    },
    /// A game instance not yet given a position: `Heap`, `CB[F1]`,
    /// `subtraction({1, 2, 5})`.
    Game {
        instance: InstanceId,
        name: Rc<str>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    P,
    N,
    /// A draw: a loopy game's position from which each player can avoid
    /// losing forever.
    D,
}

/// A game value: the zero game, a position, a disjunctive sum, or a compound.
/// Games are ordered as sums (see the `Ord` impl below).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    Zero,
    Position(Position),
    /// At least two components, none of them zero, none of them a sum.
    Sum(Vec<Game>),
    /// A compound the Sprague-Grundy theorem does not decompose.
    Compound(Rc<Compound>),
}

impl Game {
    /// The game as the components of a sum: none for the zero game, the
    /// game itself for a position or a compound.
    fn components(&self) -> &[Game] {
        match self {
            Game::Zero => &[],
            Game::Sum(parts) => parts,
            other => std::slice::from_ref(other),
        }
    }
}

/// Games in the language's order: as lists of components, compared
/// component by component (a prefix first), so the zero game comes first
/// and `Heap(3)` before `Heap(3) + Heap(1)`. Positions come before
/// compounds; positions compare by name, then arguments (then definition,
/// for two games of one name); compounds by kind, then parts. Equal only
/// when equal: components keep their order, as in equality.
impl Ord for Game {
    fn cmp(&self, other: &Game) -> Ordering {
        let (a, b) = (self.components(), other.components());
        a.iter()
            .zip(b)
            .map(|(x, y)| cmp_components(x, y))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len()))
    }
}

impl PartialOrd for Game {
    fn partial_cmp(&self, other: &Game) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Two components of sums: positions or compounds.
fn cmp_components(a: &Game, b: &Game) -> Ordering {
    match (a, b) {
        (Game::Position(p), Game::Position(q)) => (p.name.cmp(&q.name))
            .then_with(|| p.args.cmp(&q.args))
            .then_with(|| p.instance.cmp(&q.instance)),
        (Game::Position(_), _) => Ordering::Less,
        (_, Game::Position(_)) => Ordering::Greater,
        (Game::Compound(c), Game::Compound(d)) => c.cmp(d),
        // Never components of a sum; ordered as games all the same.
        (x, y) => x.cmp(y),
    }
}

/// `pass(E, k)`, `misere(E)`, `conjunctive(...)`, `selective(...)`,
/// `hypergraph(edges, ...)`, `ordinal(G, H)`: searched over the product
/// of its parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Compound {
    pub kind: CompoundKind,
    pub parts: Vec<Game>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompoundKind {
    /// Passes left (at least 1; with none left the game is its part).
    Pass(u32),
    Misere,
    Conjunctive,
    Selective,
    /// Each edge: the indices of the parts moved in together.
    Hypergraph(Rc<Vec<Vec<usize>>>),
    /// The ordinal sum of two parts, base and top: a move in the base
    /// removes the top.
    Ordinal,
}

/// A position of one game instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub instance: InstanceId,
    /// How the instance is written, e.g. `Heap` or `CB[F1]`; for display.
    pub name: Rc<str>,
    pub args: Rc<[Value]>,
}

/// One option of a game as the questions `options` and `winning` report it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveRecord {
    pub label: Rc<str>,
    /// Binding names and their values, in order.
    pub bindings: Vec<(Rc<str>, Value)>,
    /// Which component of a sum the move was made in (0 outside sums).
    pub component: usize,
    pub to: Game,
    /// An integer, or an infinite value (`Value::Infinite`).
    pub sg: Value,
}

/// A two-dimensional table of values with its row and column headers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table {
    pub row_name: Rc<str>,
    pub col_name: Rc<str>,
    pub row_keys: Vec<Value>,
    pub col_keys: Vec<Value>,
    pub rows: Vec<Vec<Value>>,
}

#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    /// An infinite ordinal (below ω^ω); finite ones are always `Int`s, so
    /// integer code never sees an ordinal. Build with `Value::ordinal`.
    Ordinal(Rc<Ordinal>),
    /// The infinite generalised SG value ∞_K of a loopy game's position:
    /// K, sorted without repeats, is the set of its options' finite values.
    Infinite(Rc<Vec<u64>>),
    Bool(bool),
    /// Behind one thin pointer, as every other payload, so that a value
    /// is 16 bytes (`size_of_value_is_two_words`): lists, frames and keys
    /// of values are two thirds of what a wide pointer made them.
    Str(Rc<String>),
    List(Rc<Vec<Value>>),
    /// Sorted, without repeats.
    Set(Rc<Vec<Value>>),
    Tuple(Rc<Vec<Value>>),
    Outcome(Outcome),
    Game(Rc<Game>),
    Func(Rc<Callable>),
    Move(Rc<MoveRecord>),
    Table(Rc<Table>),
    /// What `periodicity(...)` found about a family's heap values.
    Periodicity(Rc<crate::takebreak::Periodicity>),
    /// `plot(T)`: a table to be shown as a heatmap.
    Plot(Rc<Plot>),
}

impl Value {
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    /// The integer this value is, if it is one.
    #[inline]
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(n) => Some(n),
            _ => None,
        }
    }

    /// A set from any items: sorts and removes repeats.
    pub fn set(mut items: Vec<Value>) -> Value {
        items.sort();
        items.dedup();
        Value::Set(Rc::new(items))
    }

    /// An ordinal as a value: an `Int` when it is finite.
    pub fn ordinal(o: Ordinal) -> Value {
        match o.as_nat() {
            Some(n) => Value::Int(n),
            None => Value::Ordinal(Rc::new(o)),
        }
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Rc::new(s.to_string()))
    }

    /// A string value that owns `s`.
    pub fn string(s: String) -> Value {
        Value::Str(Rc::new(s))
    }

    /// A game as a value; the zero game is the integer 0, so that it
    /// compares equal to the `0` a rule file writes for it.
    pub fn game(g: Game) -> Value {
        match g {
            Game::Zero => Value::Int(0),
            g => Value::Game(Rc::new(g)),
        }
    }

    /// The kind of value, as error messages name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "integer",
            Value::Ordinal(_) => "ordinal",
            Value::Infinite(_) => "infinite value",
            Value::Bool(_) => "boolean",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Tuple(_) => "tuple",
            Value::Outcome(_) => "outcome",
            Value::Game(_) => "game",
            Value::Func(_) => "function",
            Value::Move(_) => "move",
            Value::Table(_) => "table",
            Value::Periodicity(_) => "periodicity",
            Value::Plot(_) => "plot",
        }
    }

    /// The kind with its article: "an integer", "a list".
    pub fn kind_a(&self) -> String {
        let k = self.kind();
        let article = if k.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {k}")
    }

    fn rank(&self) -> u8 {
        match self {
            // Integers and ordinals compare by value (see `cmp`).
            Value::Int(_) | Value::Ordinal(_) | Value::Infinite(_) => 0,
            Value::Bool(_) => 1,
            Value::Str(_) => 2,
            Value::List(_) => 3,
            Value::Set(_) => 4,
            Value::Tuple(_) => 5,
            Value::Outcome(_) => 6,
            Value::Game(_) => 7,
            Value::Func(_) => 8,
            Value::Move(_) => 9,
            Value::Table(_) => 10,
            Value::Periodicity(_) => 11,
            Value::Plot(_) => 12,
        }
    }

    /// The items of a list, set or tuple; a table gives its rows.
    pub fn items(&self) -> Option<&[Value]> {
        match self {
            Value::List(xs) | Value::Set(xs) | Value::Tuple(xs) => Some(xs),
            _ => None,
        }
    }

    /// A table compares equal to the list of its rows.
    fn table_rows(t: &Table) -> Vec<Value> {
        t.rows.iter().map(|r| Value::list(r.clone())).collect()
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        use Value::*;
        match (self, other) {
            (Int(a), Int(b)) => a.cmp(b),
            // Every integer is below every infinite ordinal.
            (Ordinal(a), Ordinal(b)) => a.cmp(b),
            (Int(_), Ordinal(_)) => Ordering::Less,
            (Ordinal(_), Int(_)) => Ordering::Greater,
            // Infinite SG values after every number, by their K sets.
            (Infinite(a), Infinite(b)) => a.cmp(b),
            (Int(_) | Ordinal(_), Infinite(_)) => Ordering::Less,
            (Infinite(_), Int(_) | Ordinal(_)) => Ordering::Greater,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Str(a), Str(b)) => a.cmp(b),
            (List(a), List(b)) | (Set(a), Set(b)) | (Tuple(a), Tuple(b)) => a.cmp(b),
            (Outcome(a), Outcome(b)) => a.cmp(b),
            (Game(a), Game(b)) => a.cmp(b),
            (Func(a), Func(b)) => a.cmp(b),
            (Move(a), Move(b)) => a.cmp(b),
            (Table(a), Table(b)) => a.rows.cmp(&b.rows),
            (Periodicity(a), Periodicity(b)) => a.cmp(b),
            (Plot(a), Plot(b)) => a.cmp(b),
            (Table(t), List(xs)) => Value::table_rows(t).as_slice().cmp(xs.as_slice()),
            (List(xs), Table(t)) => xs.as_slice().cmp(Value::table_rows(t).as_slice()),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            // Tables hash as lists, since they compare equal to them.
            Value::Table(t) => {
                3u8.hash(state);
                for row in &t.rows {
                    3u8.hash(state);
                    row.hash(state);
                }
            }
            Value::Int(n) => (0u8, n).hash(state),
            // Never equal to an integer (ordinals are infinite).
            Value::Ordinal(o) => (11u8, o).hash(state),
            Value::Infinite(k) => (12u8, k).hash(state),
            Value::Bool(b) => (1u8, b).hash(state),
            Value::Str(s) => (2u8, s).hash(state),
            Value::List(xs) => (3u8, xs).hash(state),
            Value::Set(xs) => (4u8, xs).hash(state),
            Value::Tuple(xs) => (5u8, xs).hash(state),
            Value::Outcome(o) => o.hash(state),
            Value::Game(g) => g.hash(state),
            Value::Func(f) => f.hash(state),
            Value::Move(m) => m.hash(state),
            Value::Periodicity(p) => p.hash(state),
            Value::Plot(p) => p.hash(state),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::P => write!(f, "P"),
            Outcome::N => write!(f, "N"),
            Outcome::D => write!(f, "D"),
        }
    }
}

/// Writes ∞_K as `∞{0,2}`, and as `∞` when K is empty.
fn write_infinite(f: &mut fmt::Formatter<'_>, k: &[u64]) -> fmt::Result {
    write!(f, "∞")?;
    if k.is_empty() {
        return Ok(());
    }
    let items: Vec<String> = k.iter().map(|x| x.to_string()).collect();
    write!(f, "{{{}}}", items.join(","))
}

/// Writes items separated by ", " between `open` and `close`.
fn write_items(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[Value],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{v:#}")?;
    }
    f.write_str(close)
}

impl fmt::Display for Value {
    /// `{}` prints strings raw (for `print`); `{:#}` quotes them, as inside a list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Ordinal(o) => write!(f, "{o}"),
            Value::Infinite(k) => write_infinite(f, k),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Str(s) if f.alternate() => write!(f, "{s:?}"),
            Value::Str(s) => write!(f, "{s}"),
            Value::List(xs) => write_items(f, "[", xs, "]"),
            Value::Set(xs) => write_items(f, "{", xs, "}"),
            Value::Tuple(xs) => write_items(f, "(", xs, if xs.len() == 1 { ",)" } else { ")" }),
            Value::Outcome(o) => write!(f, "{o}"),
            Value::Game(g) => write!(f, "{g}"),
            Value::Func(c) => write!(f, "{c}"),
            Value::Move(m) => write!(f, "{m}"),
            Value::Table(t) => write!(f, "{t}"),
            Value::Periodicity(p) => write!(f, "{p}"),
            Value::Plot(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Zero => write!(f, "0"),
            Game::Position(p) => write!(f, "{p}"),
            Game::Sum(parts) => {
                for (i, g) in parts.iter().enumerate() {
                    if i > 0 {
                        write!(f, " + ")?;
                    }
                    write!(f, "{g}")?;
                }
                Ok(())
            }
            Game::Compound(c) => {
                let name = match &c.kind {
                    CompoundKind::Pass(_) => "pass",
                    CompoundKind::Misere => "misere",
                    CompoundKind::Conjunctive => "conjunctive",
                    CompoundKind::Selective => "selective",
                    CompoundKind::Hypergraph(_) => "hypergraph",
                    CompoundKind::Ordinal => "ordinal",
                };
                write!(f, "{name}(")?;
                if let CompoundKind::Hypergraph(edges) = &c.kind {
                    let shown: Vec<String> = edges
                        .iter()
                        .map(|e| {
                            let ids: Vec<String> = e.iter().map(|i| i.to_string()).collect();
                            format!("[{}]", ids.join(", "))
                        })
                        .collect();
                    write!(f, "[{}], ", shown.join(", "))?;
                }
                for (i, g) in c.parts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{g}")?;
                }
                if let CompoundKind::Pass(k) = c.kind {
                    if k != 1 {
                        write!(f, ", {k}")?;
                    }
                }
                write!(f, ")")
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        write_items(f, "(", &self.args, ")")
    }
}

impl fmt::Display for Callable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Callable::User { name, statics, .. } => {
                write!(f, "{name}")?;
                if !statics.is_empty() {
                    write_items(f, "[", statics, "]")?;
                }
                Ok(())
            }
            Callable::Builtin { name, .. } => write!(f, "{name}"),
            Callable::Game { name, .. } => write!(f, "{name}"),
        }
    }
}

impl fmt::Display for MoveRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.label)?;
        if !self.bindings.is_empty() {
            write!(f, "(")?;
            for (i, (name, v)) in self.bindings.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{name}={v:#}")?;
            }
            write!(f, ")")?;
        }
        write!(f, " -> {} [sg {}]", self.to, self.sg)
    }
}

impl fmt::Display for Table {
    /// A grid with the column keys on top and the row keys on the left.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Strings show as text, so that a table can hold labels or blanks.
        let cell = |v: &Value| match v {
            Value::Str(s) => s.to_string(),
            v => format!("{v:#}"),
        };
        let corner = format!("{}\\{}", self.row_name, self.col_name);
        let row_heads: Vec<String> = self.row_keys.iter().map(cell).collect();
        let head_width = row_heads
            .iter()
            .map(|s| s.chars().count())
            .chain([corner.chars().count()])
            .max();
        let head_width = head_width.unwrap_or(0);
        let cols = self.col_keys.len();
        let mut widths: Vec<usize> = self
            .col_keys
            .iter()
            .map(|k| cell(k).chars().count())
            .collect();
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(cell).collect())
            .collect();
        for row in &cells {
            for (j, c) in row.iter().enumerate().take(cols) {
                widths[j] = widths[j].max(c.chars().count());
            }
        }
        write!(f, "{corner:>head_width$} |")?;
        for (j, k) in self.col_keys.iter().enumerate() {
            write!(f, " {:>w$}", cell(k), w = widths[j])?;
        }
        writeln!(f)?;
        let rule_len = head_width + 2 + widths.iter().map(|w| w + 1).sum::<usize>();
        writeln!(f, "{}", "-".repeat(rule_len))?;
        for (i, row) in cells.iter().enumerate() {
            write!(f, "{:>head_width$} |", row_heads[i])?;
            for (j, c) in row.iter().enumerate().take(cols) {
                write!(f, " {c:>w$}", w = widths[j])?;
            }
            if i + 1 < cells.len() {
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

/// A table to be shown as a heatmap.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Plot {
    pub table: Rc<Table>,
    /// Where the statement showing it writes it: FILE.png and FILE.svg.
    pub file: Option<Rc<str>>,
    /// The picture's title: the text of the table's expression, given by
    /// the statement that shows or prints the plot.
    pub title: Option<Rc<str>>,
}

// The checks of a value's kind that operators and built-ins share.

pub fn type_error(span: Span, expected: &str, found: &Value) -> Box<Diag> {
    Diag::new(
        ErrorKind::Type,
        span,
        format!("expected {expected}, found {} `{found:#}`", found.kind_a()),
    )
    .label(format!("this is {}", found.kind_a()))
    .boxed()
}

/// An ordinal: a non-negative integer or an infinite ordinal.
pub fn expect_ordinal(v: &Value, span: Span) -> Fallible<Ordinal> {
    match v {
        Value::Ordinal(o) => Ok((**o).clone()),
        Value::Int(n) if *n >= 0 => Ok(Ordinal::nat(*n)),
        Value::Int(n) => Diag::new(
            ErrorKind::Invalid,
            span,
            format!("expected an ordinal, found the negative integer `{n}`"),
        )
        .label("not an ordinal")
        .help("ordinals are the integers >= 0 and expressions in ω (or w) such as ω*2 + 4")
        .err(),
        other => Err(type_error(span, "an ordinal", other)),
    }
}

pub fn expect_bool(v: &Value, span: Span) -> Fallible<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(type_error(span, "a boolean", other)),
    }
}

/// An argument outside an operation's domain: `what` was asked, `why` not.
pub(crate) fn invalid<T>(span: Span, what: String, why: &str) -> crate::diag::Fallible<T> {
    Diag::new(ErrorKind::Invalid, span, what).label(why).err()
}

pub fn overflow(span: Span, what: &str) -> Box<Diag> {
    Diag::new(
        ErrorKind::Overflow,
        span,
        format!("integer overflow in {what}"),
    )
    .label("the result does not fit in 64 bits")
    .help("integers are 64-bit; values beyond ±9223372036854775807 are errors, never wrapped")
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every payload is one word, so a value is two: a list of n values
    /// takes 16n bytes (a histogram of 30,001 values 0.48 MB, not 0.72).
    #[test]
    fn size_of_value_is_two_words() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        let s = Value::str("ab");
        assert_eq!(s, Value::string("ab".to_string()));
        assert_eq!(format!("{s:#}"), "\"ab\"");
        let k = Value::Infinite(Rc::new(vec![0, 2]));
        assert_eq!(k.to_string(), "∞{0,2}");
        assert!(k > Value::Int(i64::MAX));
    }
}
