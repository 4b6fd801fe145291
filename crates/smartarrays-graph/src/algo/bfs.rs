//! Breadth-first search, direction-optimising (Beamer, Asanović, Patterson, SC'12): top-down
//! steps expand the frontier over out-edges and claim vertices with a compare-and-swap;
//! bottom-up steps let every unvisited vertex look for a parent among its in-neighbours in a
//! frontier bitmap, which is cheaper when the frontier is large. Levels are exact either way;
//! parents are one valid BFS tree (which one may vary between runs).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{with_window, AsIndex, EdgeWindow, Targets};
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::Graph;

const UNSEEN: u64 = u64::MAX;
/// Switch to bottom-up when the frontier's edges exceed the unexplored edges / ALPHA.
const ALPHA: u64 = 15;
/// Switch back to top-down when the frontier is smaller than vertices / BETA.
const BETA: u64 = 18;
const FRONTIER_BATCH: usize = 64;
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

fn out_edges(graph: &Graph, u: usize, buffer: &mut Vec<u64>, mut visit: impl FnMut(u64) -> bool) {
    let offsets = graph.begin().local();
    let (s, t) = (offsets.value(u) as usize, offsets.value(u + 1) as usize);
    scan(Targets::of(graph.edge().local()), s, t, buffer, &mut visit);
}

fn in_edges(graph: &Graph, v: usize, buffer: &mut Vec<u64>, mut visit: impl FnMut(u64) -> bool) {
    let incoming = graph.incoming();
    let offsets = incoming.offsets().local();
    let (s, t) = (offsets.value(v) as usize, offsets.value(v + 1) as usize);
    scan(
        Targets::of(incoming.targets().local()),
        s,
        t,
        buffer,
        &mut visit,
    );
}

/// Calls `visit` on the ids at positions `s..t` until it returns false.
fn scan(
    targets: Targets<'_>,
    mut s: usize,
    t: usize,
    buffer: &mut Vec<u64>,
    visit: &mut impl FnMut(u64) -> bool,
) {
    with_window!(targets, buffer, 0, |window| {
        while s < t {
            let piece = window.piece(s, t);
            for &id in piece {
                if !visit(id.at() as u64) {
                    return;
                }
            }
            s += piece.len();
        }
    })
}

/// BFS from `source` over out-edges.
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
    let runtime = Arc::clone(graph.runtime());
    let parents: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(UNSEEN)).collect();
    let levels: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(UNSEEN)).collect();
    parents[source as usize].store(source, Ordering::Relaxed);
    levels[source as usize].store(0, Ordering::Relaxed);
    let begin = graph.begin().local();
    let out_degree = |v: usize| begin.value(v + 1) - begin.value(v);
    let mut frontier: Vec<u64> = vec![source];
    let mut unexplored_edges = graph.stored_entries();
    let mut depth = 0u64;
    let (mut top_down_steps, mut bottom_up_steps) = (0, 0);
    let words = n.div_ceil(64);
    while !frontier.is_empty() {
        let frontier_edges: u64 = frontier.iter().map(|&v| out_degree(v as usize)).sum();
        unexplored_edges = unexplored_edges.saturating_sub(frontier_edges);
        if frontier_edges > unexplored_edges / ALPHA && frontier.len() as u64 > 1 {
            // Bottom-up steps until the frontier shrinks below n / BETA.
            let mut bitmap: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
            for &v in &frontier {
                bitmap[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
            }
            let mut size = frontier.len() as u64;
            loop {
                let previous = size;
                let next: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
                let next_level = depth + 1;
                size = runtime
                    .map_reduce(
                        0..n,
                        VERTEX_BATCH,
                        || (0u64, Vec::new()),
                        |(found, mut buffer), _, range| {
                            let mut found = found;
                            for v in range {
                                if parents[v].load(Ordering::Relaxed) != UNSEEN {
                                    continue;
                                }
                                in_edges(graph, v, &mut buffer, |u| {
                                    if bitmap[u as usize / 64].load(Ordering::Relaxed)
                                        & (1 << (u % 64))
                                        == 0
                                    {
                                        return true;
                                    }
                                    parents[v].store(u, Ordering::Relaxed);
                                    levels[v].store(next_level, Ordering::Relaxed);
                                    next[v / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
                                    found += 1;
                                    false
                                });
                            }
                            (found, buffer)
                        },
                        |a, b| (a.0 + b.0, Vec::new()),
                    )
                    .0;
                bottom_up_steps += 1;
                bitmap = next;
                if size == 0 {
                    break;
                }
                depth += 1;
                if size < n as u64 / BETA && size <= previous {
                    break;
                }
            }
            frontier = bitmap_to_queue(&bitmap, n, &runtime);
            if frontier.is_empty() {
                break;
            }
            continue;
        }
        let next_level = depth + 1;
        let queue = &frontier;
        frontier = runtime
            .map_reduce(
                0..queue.len(),
                FRONTIER_BATCH,
                || (Vec::new(), Vec::new()),
                |(mut next, mut buffer), _, range| {
                    for &u in &queue[range] {
                        out_edges(graph, u as usize, &mut buffer, |v| {
                            let slot = &parents[v as usize];
                            if slot.load(Ordering::Relaxed) == UNSEEN
                                && slot
                                    .compare_exchange(
                                        UNSEEN,
                                        u,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                levels[v as usize].store(next_level, Ordering::Relaxed);
                                next.push(v);
                            }
                            true
                        });
                    }
                    (next, buffer)
                },
                |mut a, b| {
                    a.0.extend_from_slice(&b.0);
                    a
                },
            )
            .0;
        top_down_steps += 1;
        if !frontier.is_empty() {
            depth += 1;
        }
    }
    let levels: Vec<u64> = levels.into_iter().map(AtomicU64::into_inner).collect();
    let parents: Vec<u64> = parents.into_iter().map(AtomicU64::into_inner).collect();
    let reached = levels.iter().filter(|&&l| l != UNSEEN).count() as u64;
    let properties = graph.properties();
    let level_bits = property_bits(properties, depth + 1);
    let parent_bits = property_bits(properties, n as u64);
    let options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .runtime(Arc::clone(&runtime));
    let pack = |source: &[u64], bits: u32| {
        let marker = max_value(bits);
        SmartArray::from_batches(source.len(), &options.clone().bits(bits), |range, out| {
            for (slot, &value) in out.iter_mut().zip(&source[range]) {
                *slot = if value == UNSEEN { marker } else { value };
            }
        })
    };
    Ok(BfsResult {
        source,
        levels: pack(&levels, level_bits)?,
        parents: pack(&parents, parent_bits)?,
        reached,
        depth,
        steps: (top_down_steps, bottom_up_steps),
    })
}

fn bitmap_to_queue(bitmap: &[AtomicU64], n: usize, runtime: &smartarrays::Runtime) -> Vec<u64> {
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
