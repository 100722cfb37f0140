//! A finite digraph of positions in compressed rows: each vertex's
//! followers, and the value of the vertices whose value is known already
//! (fixed; they are not expanded).

/// The digraph, built one vertex at a time in order: `add_vertex` for
/// each new vertex, `close` once per vertex (in order) after pushing its
/// followers with `push_edge`.
/// Rows up to this long keep their repeats (`Graph::close`).
const SHORT_ROW: usize = 16;

#[derive(Default)]
pub struct Graph {
    /// Vertex `u`'s followers are `succ[start[u]..start[u + 1]]`.
    start: Vec<u32>,
    succ: Vec<u32>,
    len: usize,
    /// Bit `u` says vertex `u` is fixed; the fixed vertices with their
    /// values, in order (few: a labelling's graph ends at them).
    is_fixed: Vec<u64>,
    fixed: Vec<(u32, u64)>,
    /// The stretches of rows pushed as one row of offsets
    /// (`push_shared_rows`), in order: first vertex, cells, and the
    /// offsets' range in `offsets`; their predecessors are found by
    /// stretch, not by edge.
    shared: Vec<(u32, u32, u32, u32)>,
    offsets: Vec<u32>,
}

impl Graph {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn edges(&self) -> usize {
        self.succ.len()
    }

    /// A new vertex; its value when known (`fixed`). Its number.
    #[inline]
    pub fn add_vertex(&mut self, fixed: Option<u64>) -> u32 {
        let id = self.len as u32;
        self.len += 1;
        if self.is_fixed.len() * 64 < self.len {
            self.is_fixed.push(0);
        }
        if let Some(v) = fixed {
            self.is_fixed[id as usize / 64] |= 1 << (id % 64);
            self.fixed.push((id, v));
        }
        if self.start.is_empty() {
            self.start.push(0);
        }
        id
    }

    /// Room for `vertices` rows more and `edges` followers more.
    pub fn reserve(&mut self, vertices: usize, edges: usize) {
        self.start.reserve(vertices);
        self.succ.reserve(edges);
    }

    /// `count` new vertices, none fixed.
    pub fn add_vertices(&mut self, count: usize) {
        self.len += count;
        self.is_fixed
            .resize(self.is_fixed.len().max(self.len.div_ceil(64)), 0);
        if self.start.is_empty() {
            self.start.push(0);
        }
    }

    /// The vertices closed so far: the next one to close is this one.
    pub fn closed(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn push_edge(&mut self, to: u32) {
        self.succ.push(to);
    }

    /// Pushes the followers `first + j * step` for `j` in `0..count`.
    #[inline]
    pub fn push_run(&mut self, first: usize, step: isize, count: usize) {
        // One reservation for the run, not a check per follower.
        let first = first as isize;
        (self.succ).extend((0..count as isize).map(|j| (first + j * step) as u32));
    }

    /// The rows of the `cells` vertices from `first` on, each closed, each
    /// the followers `u + o` for the offsets `o` (wrapping in 32 bits),
    /// then those `extra(u, row)` pushes. How many rows it pushed: it
    /// stops at a vertex `extra` refuses (false), whose row it drops.
    pub fn push_shared_rows(
        &mut self,
        (first, cells): (usize, usize),
        offsets: &[u32],
        mut extra: impl FnMut(usize, &mut Vec<u32>) -> bool,
    ) -> usize {
        let long = offsets.len() > SHORT_ROW;
        self.succ.reserve(cells * offsets.len());
        self.start.reserve(cells);
        for u in first..first + cells {
            (self.succ).extend(offsets.iter().map(|&o| (u as u32).wrapping_add(o)));
            if !extra(u, &mut self.succ) {
                self.discard_row();
                return self.shared_stretch(first, u, offsets, long);
            }
            // Long rows are freed of repeats as they close.
            match long {
                true => self.close(),
                false => self.start.push(self.succ.len() as u32),
            }
        }
        self.shared_stretch(first, first + cells, offsets, long)
    }

    /// Notes the rows `first..end` pushed sharing `offsets` (short rows
    /// only: long ones were sorted); `end - first`.
    fn shared_stretch(&mut self, first: usize, end: usize, offsets: &[u32], long: bool) -> usize {
        if !long && end > first {
            let from = self.offsets.len() as u32;
            self.offsets.extend_from_slice(offsets);
            let to = self.offsets.len() as u32;
            (self.shared).push((first as u32, (end - first) as u32, from, to));
        }
        end - first
    }

    /// Drops the followers pushed since the last `close`.
    pub fn discard_row(&mut self) {
        let from = self.start.last().map_or(0, |&s| s as usize);
        self.succ.truncate(from);
    }

    /// Ends the followers of the next vertex. A long row is freed of
    /// repeats (a move may list one option many times); a short one keeps
    /// them: the labelling counts a follower once per edge on both sides
    /// (its counters and the predecessors), so repeats change no value.
    #[inline]
    pub fn close(&mut self) {
        let from = *self.start.last().expect("a vertex") as usize;
        if self.succ.len() - from > SHORT_ROW {
            self.free_of_repeats(from);
        }
        self.start.push(self.succ.len() as u32);
    }

    /// Sorts the followers from `from` on and drops their repeats.
    #[cold]
    fn free_of_repeats(&mut self, from: usize) {
        let tail = &mut self.succ[from..];
        tail.sort_unstable();
        let mut kept = 0;
        for i in 0..tail.len() {
            if i == 0 || tail[i] != tail[i - 1] {
                tail[kept] = tail[i];
                kept += 1;
            }
        }
        self.succ.truncate(from + kept);
    }

    #[inline]
    pub fn fixed(&self, u: usize) -> Option<u64> {
        if self.is_fixed[u / 64] >> (u % 64) & 1 == 0 {
            return None;
        }
        let i = (self.fixed).partition_point(|&(w, _)| (w as usize) < u);
        Some(self.fixed[i].1)
    }

    /// Whether none of the vertices `from..to` is fixed.
    pub fn none_fixed(&self, from: usize, to: usize) -> bool {
        let i = (self.fixed).partition_point(|&(w, _)| (w as usize) < from);
        self.fixed.get(i).is_none_or(|&(w, _)| w as usize >= to)
    }

    /// The fixed vertices with their values, in order.
    pub fn fixed_vertices(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.fixed.iter().copied()
    }

    /// How many followers each closed vertex has (edges, repeats
    /// counted), in order.
    pub fn degrees(&self) -> impl Iterator<Item = u32> + '_ {
        self.start.windows(2).map(|w| w[1] - w[0])
    }

    pub fn succ(&self, u: usize) -> impl Iterator<Item = u32> + '_ {
        self.succ[self.start[u] as usize..self.start[u + 1] as usize]
            .iter()
            .copied()
    }

    /// The followers reversed: each vertex's predecessors. A shared
    /// stretch adds one to a range of vertices per offset (a difference
    /// at each end) and fills them offset by offset; only the other rows
    /// and the stretches' extras are read edge by edge.
    pub fn predecessors(&self) -> Preds {
        let n = self.len();
        // The rows before each stretch (and after the last) as a stretch
        // of no shared offsets: all their followers extras.
        let mut u = 0;
        let last = (self.closed() as u32, 0, 0, 0);
        let parts: Vec<_> = (self.shared.iter().chain([&last]))
            .flat_map(|&(first, cells, from, to)| {
                let gap = (u, first - u, 0, 0);
                u = first + cells;
                [gap, (first, cells, from, to)]
            })
            .collect();
        // Each vertex's count one place up, summed below (the rows' starts).
        let mut start = vec![0u32; n + 1];
        let mut ranges = vec![0u32; n + 1];
        for &(first, cells, from, to) in &parts {
            for &o in &self.offsets[from as usize..to as usize] {
                let w = first.wrapping_add(o) as usize;
                ranges[w] = ranges[w].wrapping_add(1);
                ranges[w + cells as usize] = ranges[w + cells as usize].wrapping_sub(1);
            }
            for &w in self.extras(first, cells, to - from).flat_map(|(_, e)| e) {
                start[w as usize + 1] += 1;
            }
        }
        let mut open = 0u32;
        for i in 0..n {
            open = open.wrapping_add(ranges[i]);
            start[i + 1] = start[i + 1].wrapping_add(start[i]).wrapping_add(open);
        }
        drop(ranges);
        let mut fill = start.clone();
        let mut pred = vec![0u32; self.succ.len()];
        for &(first, cells, from, to) in &parts {
            for &o in &self.offsets[from as usize..to as usize] {
                let w = first.wrapping_add(o) as usize;
                for (at, v) in fill[w..w + cells as usize].iter_mut().zip(first..) {
                    pred[*at as usize] = v;
                    *at += 1;
                }
            }
            for (v, extra) in self.extras(first, cells, to - from) {
                for &w in extra {
                    let at = &mut fill[w as usize];
                    pred[*at as usize] = v;
                    *at += 1;
                }
            }
        }
        Preds { start, pred }
    }

    /// The followers a shared stretch's rows have past their `k` shared
    /// ones, by vertex: none without a row longer than `k`.
    fn extras(&self, first: u32, cells: u32, k: u32) -> impl Iterator<Item = (u32, &[u32])> {
        let rows = &self.start[first as usize..(first + cells) as usize + 1];
        let some = rows[cells as usize] - rows[0] != cells * k;
        (rows.windows(2).zip(first..).filter(move |_| some))
            .map(move |(r, v)| (v, &self.succ[(r[0] + k) as usize..r[1] as usize]))
    }

    /// The strongly connected component of each vertex, numbered as each
    /// completes: Tarjan's algorithm (1972), its depth-first walk kept on
    /// a stack of `(vertex, next edge)`. Every vertex closed.
    pub fn components(&self) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let n = self.len;
        let (mut index, mut low, mut comp) = (vec![NONE; n], vec![0; n], vec![NONE; n]);
        let (mut open, mut walk) = (Vec::new(), Vec::<(usize, usize)>::new());
        let (mut found, mut done) = (0, 0);
        for root in 0..n {
            if index[root] != NONE {
                continue;
            }
            walk.push((root, self.start[root] as usize));
            (index[root], low[root]) = (found, found);
            found += 1;
            open.push(root);
            while let Some((u, e)) = walk.last_mut() {
                let u = *u;
                if *e < self.start[u + 1] as usize {
                    let w = self.succ[*e] as usize;
                    *e += 1;
                    if index[w] == NONE {
                        (index[w], low[w]) = (found, found);
                        found += 1;
                        open.push(w);
                        walk.push((w, self.start[w] as usize));
                    } else if comp[w] == NONE {
                        low[u] = low[u].min(index[w]);
                    }
                    continue;
                }
                walk.pop();
                if let Some(&(p, _)) = walk.last() {
                    low[p] = low[p].min(low[u]);
                }
                if low[u] == index[u] {
                    while let Some(w) = open.pop() {
                        comp[w] = done;
                        if w == u {
                            break;
                        }
                    }
                    done += 1;
                }
            }
        }
        comp
    }

    /// Bytes held, with the predecessors the labelling adds and its
    /// per-vertex arrays.
    pub fn bytes(&self) -> usize {
        4 * (self.start.capacity() + 2 * self.succ.capacity() + self.len() + 1)
            + 8 * self.is_fixed.capacity()
            + 16 * self.fixed.capacity()
            + (16 + 4 + 8) * self.len()
    }
}

/// The predecessors of each vertex, in compressed rows.
pub struct Preds {
    start: Vec<u32>,
    pred: Vec<u32>,
}

impl Preds {
    #[inline]
    pub fn of(&self, w: usize) -> &[u32] {
        &self.pred[self.start[w] as usize..self.start[w + 1] as usize]
    }
}
