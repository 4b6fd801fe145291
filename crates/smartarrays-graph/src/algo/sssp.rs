//! Single-source shortest paths on non-negative integer weights by delta-stepping (Meyer and
//! Sanders, "Δ-stepping: a parallelizable shortest path algorithm"): tentative distances are
//! kept in buckets of width `delta`; the lowest non-empty bucket is settled in parallel rounds
//! (every vertex of it relaxes all its out-edges, lowering distances with an atomic minimum and
//! filing each improved vertex into the bucket of its new distance) until it stays empty, then
//! the next bucket is taken. With `delta = 1` this is a parallel Dijkstra by distance levels;
//! larger deltas settle fewer, larger buckets at the price of some repeated relaxations.
//! Distances are exact whatever the delta and the thread count. A worker that finds few
//! vertices for the current bucket settles them at once ("bucket fusion"), saving rounds.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::Arc;

use serde::Serialize;
use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{run, Run, Targets};
use crate::algo::cells::Cell;
use crate::algo::fold_steps;
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::{EdgeWeights, Graph};

/// Frontier vertices per parallel batch.
const FRONTIER_BATCH: usize = 64;
/// Frontiers of at most this many vertices are expanded on the calling thread.
const INLINE: usize = 256;
/// Vertices per batch of the passes that build the result.
const RESULT_BATCH: usize = 16_384;
/// Buckets after the current one that workers file into lists of their own.
const NEAR: usize = 1024;

/// A worker's improvements (near lists, far pairs) and its decoding buffers.
type Filed = (Vec<Vec<u64>>, Vec<(u64, u64)>, Vec<u64>, Vec<u64>);

/// Delta-stepping settings.
#[derive(Clone, Debug, Serialize)]
pub struct SsspOptions {
    /// Bucket width (at least 1; default 1).
    pub delta: u64,
}

impl Default for SsspOptions {
    fn default() -> Self {
        SsspOptions { delta: 1 }
    }
}

/// Distances from one source.
#[derive(Debug)]
pub struct SsspResult {
    /// The start vertex.
    pub source: u64,
    /// Distance of every vertex (sum of weights along a shortest path); unreached ones hold
    /// [`SsspResult::unreached`] (all ones at the array's width).
    pub distances: SmartArray,
    /// Vertices reached (the source included).
    pub reached: u64,
    /// Largest finite distance.
    pub max_distance: u64,
    /// Parallel relaxation rounds run.
    pub rounds: usize,
}

impl SsspResult {
    /// The marker of unreached vertices in `distances`.
    pub fn unreached(&self) -> u64 {
        max_value(self.distances.bits())
    }

    /// Distance of `v`, or `None` when unreached or out of range.
    pub fn distance(&self, v: u64) -> Option<u64> {
        self.distances
            .get(v as usize)
            .ok()
            .filter(|&d| d != self.unreached())
    }
}

/// Relaxes the edges to `ids` weighted by `weights` from a vertex at distance `du`: lowers
/// each target's distance with an atomic minimum and files every target it improved. Every
/// tentative distance is the length of a simple path (a relaxation that revisits a vertex
/// cannot lower it), so it stays below the cells' marker (see [`sssp`]'s choice of cells).
#[inline(always)]
fn relax<I: Copy + Into<u64>, W: Copy + Into<u64>, C: Cell>(
    ids: &[I],
    weights: &[W],
    du: u64,
    distances: &[C],
    file: &mut impl FnMut(u64, u64),
) {
    for (&v, &w) in ids.iter().zip(weights) {
        let v: u64 = v.into();
        let candidate = du + w.into();
        let slot = &distances[v as usize];
        let mut old = slot.get();
        while candidate < old {
            if slot.replace(old, candidate) {
                file(v, candidate);
                break;
            }
            old = slot.get();
        }
    }
}

/// Shortest path distances from `source` over out-edges weighted by `weights` (which must
/// belong to `graph`, see [`EdgeWeights`]); `on_round` sees, after every round, the bucket and
/// the vertices the round expanded (for progress).
///
/// Distances are kept in 32-bit cells while `vertices * largest weight` stays below 2^32 - 1
/// (no simple path can be longer), else 64-bit ones. A worker whose share of the current bucket
/// stays below 1000 vertices settles it itself, without a round of its own (bucket fusion, as
/// GAPBS's `sssp` does).
///
/// # Example
/// ```
/// use smartarrays_graph::{build_weighted, sssp, GraphOptions, SsspOptions, WeightedEdges};
/// let mut edges = WeightedEdges::new(true);
/// edges.push(0, 1, 5);
/// edges.push(0, 2, 1);
/// edges.push(2, 1, 2);
/// edges.push(3, 0, 1);
/// let (graph, weights) = build_weighted(edges, &GraphOptions::default())?;
/// let result = sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {})?;
/// assert_eq!(result.distance(1), Some(3));
/// assert_eq!(result.distance(3), None);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn sssp(
    graph: &Graph,
    weights: &EdgeWeights,
    source: u64,
    options: &SsspOptions,
    mut on_round: impl FnMut(u64, usize),
) -> Result<SsspResult> {
    let n = graph.vertices();
    if source >= n as u64 {
        return Err(GraphError::InvalidArgument(format!(
            "source vertex {source} does not exist (the graph has {n} vertices)"
        )));
    }
    if options.delta == 0 {
        return Err(GraphError::InvalidArgument(
            "delta must be at least 1".into(),
        ));
    }
    weights.check(graph)?;
    // A shortest (or tentative) distance is the length of a simple path: at most
    // (n - 1) * the largest weight. 32-bit cells while that stays below their marker.
    let bound = (n as u64).saturating_mul(weights.max());
    if bound < u64::from(u32::MAX) {
        search::<AtomicU32>(graph, weights, source, options, &mut on_round)
    } else {
        search::<AtomicU64>(graph, weights, source, options, &mut on_round)
    }
}

/// Improved vertices of a bucket a worker goes on settling itself, without a round of its
/// own, while there are fewer than this (Beamer et al.'s bucket fusion in GAPBS's `sssp`).
const FUSE: usize = 1000;

fn search<C: Cell>(
    graph: &Graph,
    weights: &EdgeWeights,
    source: u64,
    options: &SsspOptions,
    on_round: &mut impl FnMut(u64, usize),
) -> Result<SsspResult> {
    let n = graph.vertices();
    let delta = options.delta;
    let runtime = Arc::clone(graph.runtime());
    let distances: Vec<C> = (0..n).map(|_| C::new(C::NONE)).collect();
    distances[source as usize].set(0);
    let offsets = graph.begin().local();
    let targets = Targets::of(graph.edge().local());
    let weight_values = Targets::of(weights.array().local());
    let mut buckets: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    buckets.insert(0, vec![source]);
    let mut rounds = 0;
    while let Some((bucket, frontier)) = buckets.pop_first() {
        rounds += 1;
        let floor = bucket.saturating_mul(delta);
        let frontier = &frontier;
        let distances = &distances;
        // Relaxes the out-edges of `u` (unless it was settled in an earlier bucket since it was
        // filed here), filing the improved vertices by bucket: near buckets (relative to this
        // one) in a vector of lists, far ones (only with weights far above delta) as
        // (bucket, vertex) pairs.
        let expand = |u: u64, filed: &mut Filed| {
            let (near, far, ids, ws) = filed;
            let du = distances[u as usize].get();
            if du < floor {
                return;
            }
            let (s, t) = (
                offsets.value(u as usize) as usize,
                offsets.value(u as usize + 1) as usize,
            );
            if s == t {
                return;
            }
            let neighbours = run(targets, s, t, ids);
            let edge_weights = run(weight_values, s, t, ws);
            let mut file = |v: u64, candidate: u64| {
                let offset = candidate / delta - bucket;
                if offset < NEAR as u64 {
                    let offset = offset as usize;
                    if near.len() <= offset {
                        near.resize_with(offset + 1, Vec::new);
                    }
                    near[offset].push(v);
                } else {
                    far.push((candidate / delta, v));
                }
            };
            match (neighbours, edge_weights) {
                (Run::N32(a), Run::N32(b)) => relax(a, b, du, distances, &mut file),
                (Run::N32(a), Run::N64(b)) => relax(a, b, du, distances, &mut file),
                (Run::N64(a), Run::N32(b)) => relax(a, b, du, distances, &mut file),
                (Run::N64(a), Run::N64(b)) => relax(a, b, du, distances, &mut file),
            }
        };
        let (near, far, .., fused) = fold_steps(
            &runtime,
            0..frontier.len(),
            FRONTIER_BATCH,
            INLINE,
            || (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0usize),
            |(near, far, ids, ws, mut fused), range| {
                let mut filed: Filed = (near, far, ids, ws);
                for &u in &frontier[range] {
                    expand(u, &mut filed);
                }
                // Fusion: while this worker's share of the current bucket is small, settle it
                // here rather than in another round.
                while let Some(current) = filed.0.first_mut() {
                    if current.is_empty() || current.len() >= FUSE {
                        break;
                    }
                    let batch = std::mem::take(current);
                    fused += batch.len();
                    for &u in &batch {
                        expand(u, &mut filed);
                    }
                }
                let (near, far, ids, ws) = filed;
                (near, far, ids, ws, fused)
            },
            |mut a, mut b| {
                if a.0.len() < b.0.len() {
                    std::mem::swap(&mut a.0, &mut b.0);
                }
                for (mine, theirs) in a.0.iter_mut().zip(b.0.iter_mut()) {
                    mine.append(theirs);
                }
                a.1.append(&mut b.1);
                a.4 += b.4;
                a
            },
        );
        on_round(bucket, frontier.len() + fused);
        for (offset, vertices) in near.into_iter().enumerate() {
            if !vertices.is_empty() {
                let list = buckets.entry(bucket + offset as u64).or_default();
                if list.is_empty() {
                    *list = vertices;
                } else {
                    list.extend_from_slice(&vertices);
                }
            }
        }
        for (index, v) in far {
            buckets.entry(index).or_default().push(v);
        }
    }
    // Reached count and largest distance in one parallel pass over the cells; the array is
    // then filled from them directly.
    let (reached, max_distance) = runtime.map_reduce(
        0..n,
        RESULT_BATCH,
        || (0u64, 0u64),
        |(mut reached, mut largest), _, range| {
            for cell in &distances[range] {
                let d = cell.get();
                if d != C::NONE {
                    reached += 1;
                    largest = largest.max(d);
                }
            }
            (reached, largest)
        },
        |a, b| (a.0 + b.0, a.1.max(b.1)),
    );
    let properties = graph.properties();
    // One more than the largest distance, so the all-ones marker never is one.
    let bits = property_bits(properties, max_distance.saturating_add(1));
    let array_options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .runtime(Arc::clone(&runtime))
        .bits(bits);
    let marker = max_value(bits);
    let distances = SmartArray::from_batches(n, &array_options, |range, out| {
        for (slot, cell) in out.iter_mut().zip(&distances[range]) {
            *slot = match cell.get() {
                d if d == C::NONE => marker,
                d => d,
            };
        }
    })?;
    Ok(SsspResult {
        source,
        distances,
        reached,
        max_distance,
        rounds,
    })
}

/// Checks distances against the rules a shortest-path verifier applies: the source is at 0;
/// no edge `(u, v, w)` from a reached `u` can lower `v` (`dist[v] <= dist[u] + w`, so an edge
/// from a reached vertex never leads to an unreached one); and every reached vertex other than
/// the source has an in-edge that attains its distance. Returns the first violation found.
pub fn verify_sssp(
    graph: &Graph,
    weights: &EdgeWeights,
    result: &SsspResult,
) -> std::result::Result<(), String> {
    let n = graph.vertices();
    let distance = |v: u64| result.distance(v);
    if distance(result.source) != Some(0) {
        return Err(format!("the source {} is not at distance 0", result.source));
    }
    let mut attained = vec![false; n];
    attained[result.source as usize] = true;
    let all: Vec<u64> = weights.array().to_vec();
    for ((u, v), w) in graph.edge_iter().zip(all) {
        let Some(du) = distance(u) else { continue };
        match distance(v) {
            None => return Err(format!("edge {u} -> {v} reaches {v}, reported unreached")),
            Some(dv) if dv > du + w => {
                return Err(format!(
                    "edge {u} -> {v} (weight {w}) relaxes {v} further: {dv} > {du} + {w}"
                ))
            }
            Some(dv) if dv == du + w => attained[v as usize] = true,
            Some(_) => {}
        }
    }
    if let Some(v) = (0..n).find(|&v| distance(v as u64).is_some() && !attained[v]) {
        return Err(format!(
            "vertex {v} has distance {:?} but no in-edge attains it",
            distance(v as u64)
        ));
    }
    Ok(())
}
