//! Breadth-first search, direction-optimising (Beamer, Asanović, Patterson, SC'12): top-down
//! steps expand the frontier over out-edges and claim vertices with a compare-and-swap;
//! bottom-up steps let every unvisited vertex look for a parent among its in-neighbours in a
//! frontier bitmap, which is cheaper when the frontier is large. Levels are exact either way;
//! parents are one valid BFS tree (which one may vary between runs).

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};

use crate::access::{
    with_window, AsIndex, Direct, EdgeWindow, FirstHit, Probed, Targets, Unpacked,
};
use crate::algo::cells::{self, narrow, Cell};
use crate::algo::fold_steps;
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::packed_run::PackedRun;
use crate::Graph;

/// Switch to bottom-up when the frontier's edges exceed the unexplored edges / ALPHA.
const ALPHA: u64 = 15;
/// Switch back to top-down when the frontier is smaller than vertices / BETA.
const BETA: u64 = 18;
const FRONTIER_BATCH: usize = 64;
/// Top-down steps over at most this many frontier vertices run on the calling thread.
const INLINE: usize = 64;
const VERTEX_BATCH: usize = 4096;

/// Levels and parents of a BFS.
#[derive(Debug)]
pub struct BfsResult {
    /// The start vertex.
    pub source: u64,
    /// Level (hops from the source) of every vertex; unreached ones hold [`BfsResult::unreached`]
    /// (all ones at the array's width).
    pub levels: SmartArray,
    /// Parent of every vertex in one BFS tree (the source is its own parent); unreached ones
    /// hold all ones at the array's width.
    pub parents: SmartArray,
    /// Number of vertices reached (the source included).
    pub reached: u64,
    /// Largest level.
    pub depth: u64,
    /// Steps run top-down and bottom-up.
    pub steps: (usize, usize),
}

impl BfsResult {
    /// The marker value of unreached vertices in `levels`.
    pub fn unreached(&self) -> u64 {
        max_value(self.levels.bits())
    }

    /// Level of `v`, or `None` when unreached or out of range.
    pub fn level(&self, v: u64) -> Option<u64> {
        self.levels
            .get(v as usize)
            .ok()
            .filter(|&l| l != self.unreached())
    }

    /// Parent of `v`, or `None` when unreached or out of range.
    pub fn parent(&self, v: u64) -> Option<u64> {
        let marker = max_value(self.parents.bits());
        self.parents.get(v as usize).ok().filter(|&p| p != marker)
    }
}

/// BFS from `source` over out-edges.
///
/// Vertex ids and levels are kept in 32-bit cells while the graph has fewer than 2^32 - 1
/// vertices. Top-down steps read each frontier vertex's neighbour list in one piece (decoded
/// block-wise when the edges are bit-packed); bottom-up steps walk the vertices in order and stop
/// at the first in-neighbour found in the frontier bitmap, reading bit-packed in-neighbours one
/// at a time (the first 64 of a list, then decoded in pieces), as most searches stop after a
/// few. The switch follows Beamer's rule: bottom-up once the edges out of the frontier exceed the
/// unexplored edges / 15, back to top-down once the frontier shrinks below vertices / 18.
///
/// # Example
/// ```
/// use smartarrays_graph::{bfs, build, EdgeList, GraphOptions};
/// let graph = build(EdgeList::from_pairs(4, true, vec![[0, 1], [1, 2], [0, 2]]), &GraphOptions::default()).unwrap();
/// let result = bfs(&graph, 0).unwrap();
/// assert_eq!((result.level(2), result.level(3)), (Some(1), None));
/// assert_eq!(result.reached, 3);
/// ```
pub fn bfs(graph: &Graph, source: u64) -> Result<BfsResult> {
    let n = graph.vertices();
    if source >= n as u64 {
        return Err(GraphError::InvalidArgument(format!(
            "source vertex {source} does not exist (the graph has {n} vertices)"
        )));
    }
    if narrow(n) {
        search::<AtomicU32>(graph, source)
    } else {
        search::<AtomicU64>(graph, source)
    }
}

/// The search state shared by the steps.
struct Search<'a, C, O> {
    parents: &'a [C],
    levels: &'a [C],
    offsets: &'a [O],
    in_offsets: &'a [O],
    targets: Targets<'a>,
    in_targets: Targets<'a>,
}

impl<C: Cell, O: AsIndex> Search<'_, C, O> {
    /// One top-down step: claims the unvisited out-neighbours of `queue`; returns the next
    /// queue and the out-edges of its vertices.
    /// When `seen` is not empty (after a bottom-up phase), the claimed vertices are set in it.
    fn top_down(
        &self,
        runtime: &Runtime,
        queue: &[u64],
        seen: &[AtomicU64],
        level: u64,
    ) -> (Vec<u64>, u64) {
        let (next, scout, _) = fold_steps(
            runtime,
            0..queue.len(),
            FRONTIER_BATCH,
            INLINE,
            || (Vec::new(), 0u64, Vec::new()),
            |(mut next, mut scout, mut buffer), range| {
                with_window!(self.targets, &mut buffer, 0, |window| {
                    for &u in &queue[range] {
                        let u = u as usize;
                        let (mut s, t) = (self.offsets[u].at(), self.offsets[u + 1].at());
                        while s < t {
                            let piece = window.piece(s, t);
                            for &v in piece {
                                let v = v.at();
                                let slot = &self.parents[v];
                                if slot.get() == C::NONE && slot.replace(C::NONE, u as u64) {
                                    self.levels[v].set(level);
                                    if !seen.is_empty() {
                                        seen[v / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
                                    }
                                    next.push(v as u64);
                                    scout +=
                                        (self.offsets[v + 1].at() - self.offsets[v].at()) as u64;
                                }
                            }
                            s += piece.len();
                        }
                    }
                });
                (next, scout, buffer)
            },
            |mut a, b| {
                a.0.extend_from_slice(&b.0);
                (a.0, a.1 + b.1, a.2)
            },
        );
        (next, scout)
    }

    /// One bottom-up step: every unvisited vertex (a zero bit in `seen`) takes its first
    /// in-neighbour in `front` as parent; the vertices found are set in `next` (every word of it
    /// is written) and in `seen`. Returns how many were found. Visited vertices are skipped a
    /// word of the bitmap at a time, without reading their parents.
    fn bottom_up(
        &self,
        runtime: &Runtime,
        front: &[AtomicU64],
        next: &[AtomicU64],
        seen: &[AtomicU64],
        level: u64,
    ) -> u64 {
        runtime
            .map_reduce(
                0..next.len(),
                VERTEX_BATCH / 64,
                || (0u64, Vec::new()),
                |(mut found, mut buffer), _, words| {
                    found += match self.in_targets {
                        // Read neighbour by neighbour: most searches stop after a few, so
                        // decoding the batch's lists in windows would decode mostly unread ids.
                        Targets::Packed(view) => match PackedRun::new(view) {
                            Some(run) => self.bottom_up_words(
                                &mut Probed::new(run, view, &mut buffer),
                                words,
                                [front, next, seen],
                                level,
                            ),
                            // Ids wider than single reads take (over 2^56 vertices).
                            None => self.bottom_up_words(
                                &mut Unpacked::new(view, &mut buffer),
                                words,
                                [front, next, seen],
                                level,
                            ),
                        },
                        Targets::U32(ids) => self.bottom_up_words(
                            &mut Direct(ids),
                            words,
                            [front, next, seen],
                            level,
                        ),
                        Targets::U64(ids) => self.bottom_up_words(
                            &mut Direct(ids),
                            words,
                            [front, next, seen],
                            level,
                        ),
                    };
                    (found, buffer)
                },
                |a, b| (a.0 + b.0, a.1),
            )
            .0
    }
}

impl<C: Cell, O: AsIndex> Search<'_, C, O> {
    /// The bottom-up step of the vertices of bitmap words `words`, with the in-neighbours
    /// searched through `search`; the three bitmaps are the frontier, the next frontier and the
    /// visited vertices. Returns how many found a parent.
    #[inline(always)]
    fn bottom_up_words(
        &self,
        search: &mut impl FirstHit,
        words: Range<usize>,
        [front, next, seen]: [&[AtomicU64]; 3],
        level: u64,
    ) -> u64 {
        words
            .map(|word| self.bottom_up_word(search, word, [front, next, seen], level))
            .sum()
    }

    /// The bottom-up step of the 64 vertices of bitmap word `word` (see
    /// [`Search::bottom_up_words`]).
    #[inline(always)]
    fn bottom_up_word(
        &self,
        search: &mut impl FirstHit,
        word: usize,
        [front, next, seen]: [&[AtomicU64]; 3],
        level: u64,
    ) -> u64 {
        let visited = seen[word].load(Ordering::Relaxed);
        let mut todo = !visited;
        let mut bits = 0u64;
        while todo != 0 {
            let bit = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let v = word * 64 + bit;
            let parent =
                search.first_hit(self.in_offsets[v].at(), self.in_offsets[v + 1].at(), |u| {
                    front[u / 64].load(Ordering::Relaxed) & (1 << (u % 64)) != 0
                });
            if let Some(u) = parent {
                self.parents[v].set(u as u64);
                self.levels[v].set(level);
                bits |= 1 << bit;
            }
        }
        next[word].store(bits, Ordering::Relaxed);
        if bits != 0 {
            seen[word].store(visited | bits, Ordering::Relaxed);
        }
        u64::from(bits.count_ones())
    }
}

/// The visited bitmap of the `visited` vertices (every vertex claimed by the top-down steps so
/// far), with the bits past the last vertex set as well (so a bottom-up step never looks at
/// them). Setting the bits of the few visited vertices costs far less than testing every
/// vertex's parent.
fn visited_bitmap(visited: &[u64], n: usize) -> Vec<AtomicU64> {
    let mut seen: Vec<u64> = vec![0; n.div_ceil(64)];
    for &v in visited {
        seen[v as usize / 64] |= 1 << (v % 64);
    }
    let tail = n % 64;
    if tail > 0 {
        if let Some(last) = seen.last_mut() {
            *last |= !0u64 << tail;
        }
    }
    seen.into_iter().map(AtomicU64::new).collect()
}

/// Runs the search on the graph's offsets read in place when both directions store them at 32
/// bits (no decoded copy per search), else decoded to `u64`s once.
fn search<C: Cell>(graph: &Graph, source: u64) -> Result<BfsResult> {
    let incoming = graph.incoming();
    let forward = graph.begin().local();
    let reverse = incoming.offsets().local();
    let narrow_offsets = (
        forward.as_native::<u32>(),
        if graph.is_directed() {
            reverse.as_native::<u32>()
        } else {
            forward.as_native::<u32>()
        },
    );
    if let (Some(offsets), Some(in_offsets)) = narrow_offsets {
        return search_with::<C, u32>(graph, source, offsets, in_offsets);
    }
    // Bit-packed offsets that fit 32 bits (V, V+E): one 32-bit copy per direction.
    if let Some(forward) = cells::offsets_u32(graph.begin()) {
        let offsets = cells::as_u32(&forward);
        if !graph.is_directed() {
            return search_with::<C, u32>(graph, source, offsets, offsets);
        }
        if let Some(reverse) = cells::offsets_u32(incoming.offsets()) {
            return search_with::<C, u32>(graph, source, offsets, cells::as_u32(&reverse));
        }
    }
    let (mut forward_buffer, mut reverse_buffer) = (Vec::new(), Vec::new());
    let offsets = cells::offsets(graph.begin(), &mut forward_buffer);
    let in_offsets = if graph.is_directed() {
        cells::offsets(incoming.offsets(), &mut reverse_buffer)
    } else {
        offsets
    };
    search_with::<C, u64>(graph, source, offsets, in_offsets)
}

/// What a search found besides its levels and parents.
struct Walk {
    reached: u64,
    depth: u64,
    steps: (usize, usize),
}

/// Searches in arrays stored at the cells' width, filled with "none" in parallel where their
/// pages belong (huge pages for large graphs: a vector of cells takes one page fault per 4 KiB,
/// 17 ms of a 160 ms search at scale 22). When the results are stored at that width whatever
/// the depth (the U layout) these arrays are the results; else (V, V+E) the cells are packed
/// into the results' narrower arrays at the end.
fn search_with<C: Cell, O: AsIndex>(
    graph: &Graph,
    source: u64,
    offsets: &[O],
    in_offsets: &[O],
) -> Result<BfsResult> {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let properties = graph.properties();
    let parent_bits = property_bits(properties, n as u64);
    let options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .runtime(Arc::clone(&runtime));
    let (fewest, most) = (
        property_bits(properties, 1),
        property_bits(properties, n as u64),
    );
    // Levels (at most n - 1, so depth + 1 <= n) and parents take the cells' width.
    let in_place = fewest == most && max_value(parent_bits) == C::NONE;
    let cell_bits = cells::bits::<C>();
    // Scratch cells need one copy only, wherever the results go.
    let scratch = if in_place {
        options.clone()
    } else {
        options.clone().placement(Placement::OsDefault)
    };
    let none = |_| C::NONE;
    let mut parents = SmartArray::from_fn(n, &scratch.clone().bits(cell_bits), none)?;
    let mut levels = SmartArray::from_fn(n, &scratch.bits(cell_bits), none)?;
    let walked = C::update(&mut parents, |parents| {
        C::update(&mut levels, |levels| {
            walk(graph, source, parents, levels, offsets, in_offsets)
        })
    })
    .flatten();
    let Some(walk) = walked else {
        // Arrays not updatable as cells (a big-endian machine): vectors of cells.
        let parents: Vec<C> = cells::filled(n, &runtime, none);
        let levels: Vec<C> = cells::filled(n, &runtime, none);
        let walk = walk(graph, source, &parents, &levels, offsets, in_offsets);
        let level_bits = property_bits(properties, walk.depth + 1);
        return Ok(BfsResult {
            source,
            levels: pack(&levels, level_bits, &options)?,
            parents: pack(&parents, parent_bits, &options)?,
            reached: walk.reached,
            depth: walk.depth,
            steps: walk.steps,
        });
    };
    if in_place {
        return Ok(BfsResult {
            source,
            levels,
            parents,
            reached: walk.reached,
            depth: walk.depth,
            steps: walk.steps,
        });
    }
    let level_bits = property_bits(properties, walk.depth + 1);
    let pack = |cells: &mut SmartArray, bits: u32| {
        C::update(cells, |source| pack(source, bits, &options))
            .expect("updated as cells during the search")
    };
    Ok(BfsResult {
        source,
        levels: pack(&mut levels, level_bits)?,
        parents: pack(&mut parents, parent_bits)?,
        reached: walk.reached,
        depth: walk.depth,
        steps: walk.steps,
    })
}

/// `cells` stored at `bits` bits (their "none" as the array's marker, all ones).
fn pack<C: Cell>(cells: &[C], bits: u32, options: &ArrayOptions) -> Result<SmartArray> {
    let marker = max_value(bits);
    Ok(SmartArray::from_batches(
        cells.len(),
        &options.clone().bits(bits),
        |range, out| {
            if marker == C::NONE {
                // The cells' "none" is the array's marker already.
                for (slot, cell) in out.iter_mut().zip(&cells[range]) {
                    *slot = cell.get();
                }
            } else {
                for (slot, cell) in out.iter_mut().zip(&cells[range]) {
                    let value = cell.get();
                    *slot = if value == C::NONE { marker } else { value };
                }
            }
        },
    )?)
}

/// The search itself, in `parents` and `levels` (all "none" on entry).
fn walk<C: Cell, O: AsIndex>(
    graph: &Graph,
    source: u64,
    parents: &[C],
    levels: &[C],
    offsets: &[O],
    in_offsets: &[O],
) -> Walk {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    parents[source as usize].set(source);
    levels[source as usize].set(0);
    let incoming = graph.incoming();
    let state = Search {
        parents,
        levels,
        offsets,
        in_offsets,
        targets: Targets::of(graph.edge().local()),
        in_targets: Targets::of(incoming.targets().local()),
    };
    let words = n.div_ceil(64);
    let mut queue: Vec<u64> = vec![source];
    let mut scout = (offsets[source as usize + 1].at() - offsets[source as usize].at()) as u64;
    let mut unexplored = graph.stored_entries();
    let mut reached = 1u64;
    let mut depth = 0u64;
    let (mut top_down_steps, mut bottom_up_steps) = (0, 0);
    let (mut front, mut next): (Vec<AtomicU64>, Vec<AtomicU64>) = (Vec::new(), Vec::new());
    let mut seen: Vec<AtomicU64> = Vec::new();
    // Every vertex claimed before the first bottom-up step (the queues so far).
    let mut visited: Vec<u64> = Vec::new();
    while !queue.is_empty() {
        if scout > unexplored / ALPHA && queue.len() > 1 {
            if front.is_empty() {
                front = (0..words).map(|_| AtomicU64::new(0)).collect();
                next = (0..words).map(|_| AtomicU64::new(0)).collect();
                visited.extend_from_slice(&queue);
                seen = visited_bitmap(&visited, n);
                visited = Vec::new();
            } else {
                front.iter().for_each(|w| w.store(0, Ordering::Relaxed));
            }
            for &v in &queue {
                let word = &front[v as usize / 64];
                word.store(
                    word.load(Ordering::Relaxed) | 1 << (v % 64),
                    Ordering::Relaxed,
                );
            }
            let mut size = queue.len() as u64;
            loop {
                let previous = size;
                size = state.bottom_up(&runtime, &front, &next, &seen, depth + 1);
                bottom_up_steps += 1;
                std::mem::swap(&mut front, &mut next);
                if size == 0 {
                    break;
                }
                depth += 1;
                reached += size;
                if size < n as u64 / BETA && size < previous {
                    break;
                }
            }
            queue = if size == 0 {
                Vec::new()
            } else {
                bitmap_to_queue(&front, n, &runtime)
            };
            scout = 1;
            continue;
        }
        unexplored = unexplored.saturating_sub(scout);
        if front.is_empty() {
            visited.extend_from_slice(&queue);
        }
        let (found, edges) = state.top_down(&runtime, &queue, &seen, depth + 1);
        top_down_steps += 1;
        queue = found;
        scout = edges;
        if !queue.is_empty() {
            depth += 1;
            reached += queue.len() as u64;
        }
    }
    Walk {
        reached,
        depth,
        steps: (top_down_steps, bottom_up_steps),
    }
}

fn bitmap_to_queue(bitmap: &[AtomicU64], n: usize, runtime: &Runtime) -> Vec<u64> {
    runtime.map_reduce(
        0..bitmap.len(),
        1024,
        Vec::new,
        |mut queue, _, range| {
            for word in range {
                let mut bits = bitmap[word].load(Ordering::Relaxed);
                while bits != 0 {
                    let v = word * 64 + bits.trailing_zeros() as usize;
                    if v < n {
                        queue.push(v as u64);
                    }
                    bits &= bits - 1;
                }
            }
            queue
        },
        |mut a, b| {
            a.extend_from_slice(&b);
            a
        },
    )
}
