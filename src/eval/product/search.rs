//! The product search: depth first over compound keys, each frame
//! walking its options and descending into those not valued yet.

use super::atoms::{canonical_options, plain_value};
use super::keys::{
    for_each_group, for_each_product, ordinal_options, part_moves, parts_of, COUNTER, KIND, MISERE,
    ONE_PART_HEADER, ON_PATH, ORDINAL, PASS,
};
use crate::diag::Fallible;
use crate::eval::compile::Env;
use crate::eval::open_table::Prefetcher;
use crate::eval::product_tables::{
    atom_term, key_hash, merge_without, Atom, Canonical, Frame, NoProbe, OptionProbe, Parent,
    ProductMemo, Replacing, Search, Walk,
};
use crate::eval::search::loop_diag;
use crate::syntax::Span;

/// What walking one option of a frame gave.
enum Step {
    Value(u64),
    /// Not valued yet: its key is in `Search::child`, with its hash.
    Descend(u64),
    Done,
}

/// How many options ahead of its probe an option's slot is prefetched.
const PREFETCH_AHEAD: usize = 8;

/// After an error, a path with a mark per this many memo slots or more is
/// unmarked by a sweep of the tables (a read of every slot in order), a
/// shorter one mark by mark (a random probe each).
const SWEEP_PER_MARK: usize = 16;

/// The options of a one-part key's components, walked with the memo
/// borrowed once: their values go to the frame's, component after
/// component, up to the first option the memo lacks or the first
/// component whose options are not listed yet. One call a frame walks
/// all its components, not one a component: the set-up of a step (the
/// frame, the borrow, the call) was most of a small component's cost.
struct PartWalk<'a> {
    memo: &'a ProductMemo,
    atoms: &'a [Atom],
    header: [u32; 2],
    part: &'a [u32],
    parent: Option<&'a Parent>,
    /// The key's hash.
    hash: u64,
    /// The prefetcher, and the hashes of the frame's options in walk
    /// order (`Search::ahead`).
    prefetcher: Option<&'a Prefetcher<'a>>,
    hashes: &'a [u64],
}

/// The key of the option of the one-part key `[code, counter, 1, ..part]`
/// that replaces its item `at` by the sorted `add`, written in `child`.
fn option_key<'c>(
    child: &'c mut Vec<u32>,
    [code, counter]: [u32; 2],
    part: &[u32],
    at: usize,
    add: &[u32],
) -> &'c [u32] {
    let len = part.len() - 1 + add.len();
    child.clear();
    child.resize(4 + len, 0);
    let (header, atoms) = child.split_at_mut(4);
    header.copy_from_slice(&[code, counter, 1, len as u32]);
    let mut k = 0;
    merge_without(part, at, add, |x| (atoms[k], k) = (x, k + 1));
    child
}

/// Where a walk of a key's components stopped.
enum Stop {
    /// At an option the memo lacks (its key in `Search::child`): its hash,
    /// and whether it is on the search path.
    Missing(u64, bool),
    /// At a component whose options are not listed yet.
    Unlisted,
    /// Past the last component.
    End,
}

impl<'a> PartWalk<'a> {
    /// Walks the components from `at`, its options from `next` on; the
    /// key of an option the memo lacks is left in `child`.
    fn run(
        &self,
        at: &mut usize,
        next: &mut usize,
        prefetched: &mut usize,
        (values, child): (&mut Vec<u64>, &mut Vec<u32>),
    ) -> Stop {
        let part = self.part;
        let probes = (self.memo).probes(self.header, part.len().saturating_sub(1), self.parent);
        loop {
            let Some(&a) = part.get(*at) else {
                return Stop::End;
            };
            if *next == 0 && *at > 0 && part[*at - 1] == a {
                *at += 1; // the same component: the same moves
                continue;
            }
            let Some(opts) = self.atoms[a as usize].canonical.as_deref() else {
                return Stop::Unlisted;
            };
            let walk = (opts, self.hash.wrapping_sub(atom_term(0, a)), *at);
            let out = (&mut *values, &mut *child);
            let missing = match probes.replacing(part, *at) {
                Some(Replacing::Dense(p)) => {
                    p.push_known(&opts.singles, next, out.0);
                    self.options(&p, walk, next, prefetched, out)
                }
                Some(Replacing::Coded(p)) => self.options(&p, walk, next, prefetched, out),
                Some(Replacing::Hashed(p)) => self.options(&p, walk, next, prefetched, out),
                None => self.options(&NoProbe, walk, next, prefetched, out),
            };
            if let Some((add, hash, on_path)) = missing {
                option_key(child, self.header, part, *at, add);
                return Stop::Missing(hash, on_path);
            }
            (*at, *next) = (*at + 1, 0);
        }
    }

    /// Walks the options from `next` on of the component at `at` (its
    /// options `opts`, the key's hash less its term `base`) with `probe`,
    /// each prefetching the slot of `hashes[prefetched]` (then the next).
    /// One copy per kind of probe, out of line: inlined, with the probe
    /// chosen per option, its state lived on the stack.
    #[inline(never)]
    fn options<P: OptionProbe>(
        &self,
        probe: &P,
        (opts, base, at): (&'a Canonical, u64, usize),
        next: &mut usize,
        prefetched: &mut usize,
        (values, child): (&mut Vec<u64>, &mut Vec<u32>),
    ) -> Option<(&'a [u32], u64, bool)> {
        let (mut i, mut ahead) = (*next, *prefetched);
        let missing = loop {
            let Some(add) = opts.options.get(i) else {
                break None;
            };
            if let (Some(p), Some(&hash)) = (self.prefetcher, self.hashes.get(ahead)) {
                p.prefetch(hash);
                ahead += 1;
            }
            let hash = base.wrapping_add(opts.terms[i]);
            i += 1;
            let value = match probe.get(add, hash, ON_PATH) {
                Some(v) => v,
                // Built, and asked as any key is.
                None => (self.memo).get(
                    option_key(child, self.header, self.part, at, add),
                    hash,
                    ON_PATH,
                ),
            };
            match value {
                Some(ON_PATH) => break Some((add, hash, true)),
                Some(v) => values.push(v),
                None => break Some((add, hash, false)),
            }
        };
        (*next, *prefetched) = (i, ahead);
        missing
    }
}

impl Search {
    /// The value of `root` (not stored yet), searched depth first.
    pub(super) fn run(
        &mut self,
        env: &mut Env,
        root: &[u32],
        hash: u64,
        span: Span,
    ) -> Fallible<u64> {
        self.push_frame(env, root, hash, span)?;
        let mut steps = 0u32;
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(1024) {
                env.rt.check_interrupt(span)?;
            }
            let step = match self.frames.last().expect("a frame").walk {
                Walk::Listed { .. } => self.step_listed(env, span)?,
                Walk::Replace { .. } => self.step_replace(env, span)?,
            };
            match step {
                Step::Value(v) => self.values.push(v),
                Step::Descend(hash) => {
                    let child = std::mem::take(&mut self.child);
                    let pushed = self.push_frame(env, &child, hash, span);
                    self.child = child;
                    pushed?;
                }
                Step::Done => {
                    let v = self.finish(env, span)?;
                    if self.frames.is_empty() {
                        return Ok(v);
                    }
                    self.values.push(v);
                }
            }
        }
    }

    /// Stores the value of the top frame and pops it.
    fn finish(&mut self, env: &mut Env, span: Span) -> Fallible<u64> {
        let frame = self.frames.pop().expect("a frame");
        let v = if self.keys[frame.key.start + KIND] == MISERE && self.values.len() == frame.values
        {
            1 // a terminal position wins under misère play
        } else {
            self.mex(frame.values)
        };
        let key = &self.keys[frame.key.clone()];
        env.rt
            .product
            .borrow_mut()
            .memo
            .settle(frame.mark, key, frame.hash, v, ON_PATH);
        env.rt.count_stored(span, "a compound")?;
        self.keys.truncate(frame.key.start);
        self.values.truncate(frame.values);
        match frame.walk {
            Walk::Listed { first, packed, .. } => {
                self.ranges.truncate(first);
                self.hashes.truncate(first);
                self.options.truncate(packed);
            }
            Walk::Replace { from, .. } => self.ahead.truncate(from),
        }
        Ok(v)
    }

    /// The value of a listed option, or its key to descend into.
    fn step_listed(&mut self, env: &mut Env, span: Span) -> Fallible<Step> {
        let Walk::Listed { next, end, .. } = &mut self.frames.last_mut().expect("a frame").walk
        else {
            unreachable!("a listed frame")
        };
        if *next == *end {
            return Ok(Step::Done);
        }
        let i = *next;
        *next += 1;
        let opt = &self.options[self.ranges[i].clone()];
        let value = if opt[KIND] == PASS && opt[COUNTER] == 0 {
            plain_value(env, opt, span)?
        } else {
            env.rt
                .product
                .borrow()
                .memo
                .get(opt, self.hashes[i], ON_PATH)
        };
        match value {
            Some(ON_PATH) => Err(self.loop_error(env, opt, span)),
            Some(v) => Ok(Step::Value(v)),
            None => {
                self.child.clear();
                self.child.extend_from_slice(opt);
                Ok(Step::Descend(self.hashes[i]))
            }
        }
    }

    /// The value of the next option of a one-part compound, or its key to
    /// descend into. The option's key is built only then: the memo is
    /// asked with the parent's hash updated and the option compared in
    /// place.
    fn step_replace(&mut self, env: &mut Env, span: Span) -> Fallible<Step> {
        let frame = self.frames.last_mut().expect("a frame");
        let key = &self.keys[frame.key.clone()];
        let hash = frame.hash;
        let Walk::Replace {
            at,
            next,
            passed,
            parent,
            from: _,
            prefetched,
        } = &mut frame.walk
        else {
            unreachable!("a one-part frame")
        };
        let (code, counter) = (key[KIND], key[COUNTER]);
        let part = &key[ONE_PART_HEADER..];
        loop {
            if *at == part.len() {
                if code != PASS || counter == 0 || part.is_empty() || *passed {
                    return Ok(Step::Done);
                }
                // The pass: the same components, one pass fewer.
                *passed = true;
                self.child.clear();
                self.child.extend_from_slice(key);
                self.child[COUNTER] -= 1;
                let child = &self.child;
                let value = match plain_value(env, child, span)? {
                    Some(v) => Some(v),
                    None => env
                        .rt
                        .product
                        .borrow()
                        .memo
                        .get(child, key_hash(child), ON_PATH),
                };
                return match value {
                    Some(ON_PATH) => Err(self.loop_error(env, &self.child, span)),
                    Some(v) => Ok(Step::Value(v)),
                    None => Ok(Step::Descend(key_hash(&self.child))),
                };
            }
            // The options already valued go to the frame's values in one
            // walk, with the memo borrowed once.
            let t = env.rt.product.borrow();
            // Each probe prefetches the slot of the option a few ahead in
            // the frame's walk; again those just ahead, after a child's
            // search may have evicted them.
            let ahead = t.memo.prefetcher([code, counter], parent.as_ref());
            if let Some(p) = &ahead {
                let again = prefetched.saturating_sub(PREFETCH_AHEAD);
                for &hash in self.ahead.get(again..*prefetched).unwrap_or_default() {
                    p.prefetch(hash);
                }
            }
            let walk = PartWalk {
                memo: &t.memo,
                atoms: &t.atoms,
                header: [code, counter],
                part,
                parent: parent.as_ref(),
                hash,
                prefetcher: ahead.as_ref(),
                hashes: &self.ahead,
            };
            let out = (&mut self.values, &mut self.child);
            let (hash, on_path) = match walk.run(at, next, prefetched, out) {
                Stop::End => continue,
                Stop::Unlisted => {
                    drop(t);
                    canonical_options(env, part[*at], span)?;
                    continue;
                }
                Stop::Missing(hash, on_path) => (hash, on_path),
            };
            drop(t);
            return if on_path {
                Err(self.loop_error(env, &self.child, span))
            } else {
                Ok(Step::Descend(hash))
            };
        }
    }

    /// Lists the hashes of the options of the one-part `key` (hash `hash`)
    /// in walk order, as far as its components' options are known, and
    /// prefetches the slots of the first few; only for a key past the
    /// dense tables (with a `parent`) while its table is past the cache.
    /// Returns how many were prefetched.
    fn list_ahead(&mut self, env: &Env, key: &[u32], hash: u64, parent: Option<&Parent>) -> usize {
        let t = env.rt.product.borrow();
        let Some(p) = (t.memo)
            .prefetcher([key[KIND], key[COUNTER]], parent)
            .filter(|_| parent.is_some())
        else {
            return 0;
        };
        let from = self.ahead.len();
        let part = &key[ONE_PART_HEADER..];
        for (i, &a) in part.iter().enumerate() {
            if i > 0 && part[i - 1] == a {
                continue; // the same component: not walked again
            }
            let Some(c) = &t.atoms[a as usize].canonical else {
                break;
            };
            let base = hash.wrapping_sub(atom_term(0, a));
            (self.ahead).extend(c.terms.iter().map(|&term| base.wrapping_add(term)));
        }
        let first = &self.ahead[from..];
        let n = first.len().min(PREFETCH_AHEAD);
        first[..n].iter().for_each(|&h| p.prefetch(h));
        n
    }

    /// Marks `key` (known absent) as on the search path and starts its
    /// frame (listing the options of a product).
    fn push_frame(&mut self, env: &mut Env, key: &[u32], hash: u64, span: Span) -> Fallible<()> {
        let start = self.keys.len();
        self.keys.extend_from_slice(key);
        let mark = (env.rt.product.borrow_mut().memo).mark_on_path(key, hash, ON_PATH);
        let one_part = matches!(key[KIND], PASS | MISERE);
        let parent = one_part
            .then(|| env.rt.product.borrow().memo.parent(key, mark.code()))
            .flatten();
        let (first, packed) = (self.ranges.len(), self.options.len());
        let from = self.ahead.len();
        let prefetched = from + self.list_ahead(env, key, hash, parent.as_ref());
        self.frames.push(Frame {
            key: start..self.keys.len(),
            hash,
            mark,
            values: self.values.len(),
            walk: if one_part {
                Walk::Replace {
                    at: 0,
                    next: 0,
                    passed: false,
                    from,
                    prefetched,
                    parent,
                }
            } else {
                Walk::Listed {
                    first,
                    next: first,
                    end: first,
                    packed,
                }
            },
        });
        if !one_part {
            let listed = self.list_options(env, key, span);
            let end = self.ranges.len();
            if let Walk::Listed { end: e, .. } =
                &mut self.frames.last_mut().expect("just pushed").walk
            {
                *e = end;
            }
            listed?;
        }
        env.rt
            .check_states(self.frames.len() + self.ranges.len(), span, "a compound")
    }

    /// Unmarks the positions on the search path, after an error. Each
    /// removal probes the tables at random, so a long path (a deep pass
    /// compound) is unmarked by one sweep of the tables instead, which
    /// only the outermost search may make: an outer search's marks stay.
    pub(super) fn forget_path(&self, env: &mut Env) {
        let mut t = env.rt.product.borrow_mut();
        if t.searching == 1 && self.frames.len() >= t.memo.slots() / SWEEP_PER_MARK {
            t.memo.forget_marks(ON_PATH);
            return;
        }
        for f in &self.frames {
            let key = &self.keys[f.key.clone()];
            if t.memo.get(key, f.hash, ON_PATH) == Some(ON_PATH) {
                t.memo.remove(key, f.hash);
            }
        }
    }

    pub(super) fn clear(&mut self) {
        self.frames.clear();
        self.keys.clear();
        self.options.clear();
        self.ranges.clear();
        self.hashes.clear();
        self.ahead.clear();
        self.values.clear();
    }

    /// The least value not among `values[from..]`.
    fn mex(&mut self, from: usize) -> u64 {
        self.marks.mex(&self.values[from..])
    }

    /// Appends the options of the product position `key` (conjunctive,
    /// selective, hypergraph, ordinal) to `options`/`ranges`/`hashes`.
    fn list_options(&mut self, env: &mut Env, key: &[u32], span: Span) -> Fallible<()> {
        let parts: Vec<&[u32]> = parts_of(key).map(|r| &key[r]).collect();
        let mut canonical = Vec::with_capacity(parts.len());
        for part in &parts {
            let mut options = Vec::with_capacity(part.len());
            for &a in part.iter() {
                options.push(canonical_options(env, a, span)?);
            }
            canonical.push(options);
        }
        // The options of the component `a` of part `p`.
        let options_of = |p: usize, a: u32| {
            let i = parts[p].iter().position(|&b| b == a).expect("a component");
            &canonical[p][i].options
        };
        let code = key[KIND];
        if code == ORDINAL {
            let of_either = |a: u32| options_of(if parts[0].contains(&a) { 0 } else { 1 }, a);
            ordinal_options(parts[0], parts[1], of_either, &mut |k| {
                let start = self.options.len();
                self.options.extend_from_slice(k);
                self.ranges.push(start..self.options.len());
                self.hashes.push(key_hash(k));
            });
            return Ok(());
        }
        let moves: Vec<Vec<Vec<u32>>> = (parts.iter().enumerate())
            .map(|(p, part)| part_moves(part, |a| options_of(p, a)))
            .collect();
        let edges = env.rt.product.borrow().edges.clone();
        for_each_group(code, parts.len(), &edges, &mut |group| {
            let mut chosen = parts.clone();
            for_each_product(group, &moves, &mut chosen, &mut |ps| {
                // Checked as they grow: a product of many parts lists more
                // options than memory holds, or than time allows.
                env.tick(span)?;
                let start = self.options.len();
                let len = 3 + ps.iter().map(|p| 1 + p.len()).sum::<usize>();
                if self.options.capacity() - start < len {
                    crate::budget::reserve(&mut self.options, len.max(start), span)?;
                }
                self.options.extend_from_slice(&[code, 0, ps.len() as u32]);
                for p in ps {
                    self.options.push(p.len() as u32);
                    self.options.extend_from_slice(p);
                }
                crate::budget::push(&mut self.ranges, start..self.options.len(), span)?;
                let hash = key_hash(&self.options[start..]);
                crate::budget::push(&mut self.hashes, hash, span)
            })
        })
    }

    /// The loop through the search path back to the listed option `again`.
    fn loop_error(&self, env: &Env, again: &[u32], span: Span) -> Box<crate::diag::Diag> {
        let t = env.rt.product.borrow();
        let path: Vec<&[u32]> = self
            .frames
            .iter()
            .map(|f| &self.keys[f.key.clone()])
            .collect();
        let start = path.iter().position(|k| *k == again).unwrap_or(0);
        loop_diag(
            path[start..]
                .iter()
                .map(|k| t.to_game(k).to_string())
                .collect(),
            span,
        )
    }
}
