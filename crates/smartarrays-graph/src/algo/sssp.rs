//! Single-source shortest paths on non-negative integer weights by delta-stepping (Meyer and
//! Sanders, "Δ-stepping: a parallelizable shortest path algorithm"): tentative distances are
//! kept in buckets of width `delta`; the lowest non-empty bucket is settled in parallel rounds
//! (every vertex of it relaxes all its out-edges, lowering distances with an atomic minimum and
//! filing each improved vertex into the bucket of its new distance) until it stays empty, then
//! the next bucket is taken. With `delta = 1` this is a parallel Dijkstra by distance levels;
//! larger deltas settle fewer, larger buckets at the price of some repeated relaxations.
//! Distances are exact whatever the delta and the thread count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{run, Run, Targets};
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::{EdgeWeights, Graph};

const UNREACHED: u64 = u64::MAX;
/// Frontier vertices per parallel batch.
const FRONTIER_BATCH: usize = 64;
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
/// each target's distance with an atomic minimum and files every target it improved.
#[inline(always)]
fn relax<I: Copy + Into<u64>, W: Copy + Into<u64>>(
    ids: &[I],
    weights: &[W],
    du: u64,
    distances: &[AtomicU64],
    file: &mut impl FnMut(u64, u64),
) {
    for (&v, &w) in ids.iter().zip(weights) {
        let v: u64 = v.into();
        let candidate = du.saturating_add(w.into());
        let slot = &distances[v as usize];
        let mut old = slot.load(Ordering::Relaxed);
        while candidate < old {
            match slot.compare_exchange_weak(old, candidate, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    file(v, candidate);
                    break;
                }
                Err(current) => old = current,
            }
        }
    }
}

/// Shortest path distances from `source` over out-edges weighted by `weights` (which must
/// belong to `graph`, see [`EdgeWeights`]); `on_round` sees the bucket and the frontier size of
/// every round (for progress).
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
    let delta = options.delta;
    let runtime = Arc::clone(graph.runtime());
    let distances: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(UNREACHED)).collect();
    distances[source as usize].store(0, Ordering::Relaxed);
    let offsets = graph.begin().local();
    let targets = Targets::of(graph.edge().local());
    let weight_values = Targets::of(weights.array().local());
    let mut buckets: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    buckets.insert(0, vec![source]);
    let mut rounds = 0;
    while let Some((bucket, frontier)) = buckets.pop_first() {
        on_round(bucket, frontier.len());
        rounds += 1;
        let floor = bucket.saturating_mul(delta);
        let frontier = &frontier;
        let distances = &distances;
        // Improved vertices by bucket: near buckets (relative to this one) in a vector of
        // lists, far ones (only with weights far above delta) as (bucket, vertex) pairs.
        let (near, far, ..) = runtime.map_reduce(
            0..frontier.len(),
            FRONTIER_BATCH,
            || (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
            |(mut near, mut far, mut ids, mut ws): Filed, _, range| {
                for &u in &frontier[range] {
                    let du = distances[u as usize].load(Ordering::Relaxed);
                    if du < floor {
                        // Settled in an earlier bucket since it was filed here.
                        continue;
                    }
                    let (s, t) = (
                        offsets.value(u as usize) as usize,
                        offsets.value(u as usize + 1) as usize,
                    );
                    if s == t {
                        continue;
                    }
                    let neighbours = run(targets, s, t, &mut ids);
                    let edge_weights = run(weight_values, s, t, &mut ws);
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
                }
                (near, far, ids, ws)
            },
            |mut a, mut b| {
                if a.0.len() < b.0.len() {
                    std::mem::swap(&mut a.0, &mut b.0);
                }
                for (mine, theirs) in a.0.iter_mut().zip(b.0.iter_mut()) {
                    mine.append(theirs);
                }
                a.1.append(&mut b.1);
                a
            },
        );
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
    let distances: Vec<u64> = distances.into_iter().map(AtomicU64::into_inner).collect();
    let reached = distances.iter().filter(|&&d| d != UNREACHED).count() as u64;
    let max_distance = distances
        .iter()
        .copied()
        .filter(|&d| d != UNREACHED)
        .max()
        .unwrap_or(0);
    let properties = graph.properties();
    // One more than the largest distance, so the all-ones marker never is one.
    let bits = property_bits(properties, max_distance.saturating_add(1));
    let array_options = ArrayOptions::new()
        .placement(properties.placement.clone())
        .runtime(Arc::clone(&runtime))
        .bits(bits);
    let marker = max_value(bits);
    let distances = SmartArray::from_batches(n, &array_options, |range, out| {
        for (slot, &d) in out.iter_mut().zip(&distances[range]) {
            *slot = if d == UNREACHED { marker } else { d };
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
