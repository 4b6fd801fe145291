//! Single-source shortest paths on non-negative integer weights by delta-stepping (Meyer and
//! Sanders, "Δ-stepping: a parallelizable shortest path algorithm"): tentative distances are
//! kept in buckets of width `delta`; the lowest non-empty bucket is settled in parallel rounds
//! (every vertex of it relaxes all its out-edges, lowering distances with an atomic minimum and
//! filing each improved vertex into the bucket of its new distance) until it stays empty, then
//! the next bucket is taken. With `delta = 1` this is a parallel Dijkstra by distance levels;
//! larger deltas settle fewer, larger buckets at the price of some repeated relaxations.
//! Distances are exact whatever the delta and the thread count. A worker that finds few
//! vertices for the current bucket settles them at once ("bucket fusion"), saving rounds.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use smartarrays::codec::max_value;
use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{Bounds, Run, Runs};
use crate::algo::cells::{self, Cell};
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::{EdgeWeights, Graph};

/// Frontier vertices per claimed batch.
const FRONTIER_BATCH: usize = 64;
/// Vertices per batch of the passes that build the result.
const RESULT_BATCH: usize = 16_384;
/// Buckets after the current one that workers file into lists of their own.
const NEAR: usize = 1024;

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
///
/// The distances are read without bounds checks (one compare and branch per edge saved).
///
/// # Safety
/// Every id in `ids` must be below `distances.len()`.
#[inline(always)]
unsafe fn relax<I: Copy + Into<u64>, W: Copy + Into<u64>, C: Cell>(
    ids: &[I],
    weights: &[W],
    du: u64,
    distances: &[C],
    file: &mut impl FnMut(u64, u64),
) {
    for (&v, &w) in ids.iter().zip(weights) {
        let v: u64 = v.into();
        let candidate = du + w.into();
        debug_assert!((v as usize) < distances.len());
        // SAFETY: the caller guarantees every id in `ids` is below `distances.len()`.
        let slot = unsafe { distances.get_unchecked(v as usize) };
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

/// One barrier for the workers of a parallel region: spins briefly (a round of delta-stepping
/// is often a few microseconds), then yields the CPU while it waits.
struct Spin {
    arrived: AtomicUsize,
    generation: AtomicUsize,
    workers: usize,
}

impl Spin {
    fn new(workers: usize) -> Spin {
        Spin {
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            workers,
        }
    }

    /// Returns once all the workers have called it (for this generation).
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.workers {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Graphs with fewer edges than this are searched by the calling thread alone. Their rounds
/// hold a few hundred edges at most, less work than the two barriers a parallel round waits
/// at; and when another process keeps a worker's CPU busy, each barrier waits for that worker's
/// next time slice (a 200-vertex graph took 0.9 ms a search on two workers against 0.05 ms on
/// one, `docs/benchmarks.md`, "Small loops on the calling thread").
const PARALLEL_EDGES: u64 = 1 << 16;

/// Spins of a waiting worker before it yields its CPU.
const SPINS: u32 = 1 << 14;

/// A worker's buckets: lists of improved vertices for the buckets `base..base + NEAR` (index 0
/// is `base`), farther ones by bucket index, and its decoding buffers.
#[derive(Default)]
struct Bins {
    base: u64,
    near: VecDeque<Vec<u64>>,
    far: BTreeMap<u64, Vec<u64>>,
    ids: Vec<u64>,
    ws: Vec<u64>,
}

impl Bins {
    #[inline(always)]
    fn file(&mut self, v: u64, bucket: u64) {
        let offset = bucket - self.base;
        if offset < NEAR as u64 {
            let offset = offset as usize;
            if self.near.len() <= offset {
                self.near.resize_with(offset + 1, Vec::new);
            }
            self.near[offset].push(v);
        } else {
            self.far.entry(bucket).or_default().push(v);
        }
    }

    /// The lowest bucket holding a vertex, or `u64::MAX`.
    fn lowest(&self) -> u64 {
        let near = self
            .near
            .iter()
            .position(|list| !list.is_empty())
            .map_or(u64::MAX, |i| self.base + i as u64);
        let far = self.far.keys().next().copied().unwrap_or(u64::MAX);
        near.min(far)
    }

    /// Moves to bucket `next` (no bucket below it holds a vertex) and swaps its vertices into
    /// `out`, whose old contents are dropped.
    fn take(&mut self, next: u64, out: &mut Vec<u64>) {
        let skip = (next - self.base).min(self.near.len() as u64) as usize;
        self.near.drain(..skip);
        self.base = next;
        out.clear();
        if let Some(first) = self.near.front_mut() {
            std::mem::swap(first, out);
        }
        if let Some(mut far) = self.far.remove(&next) {
            out.append(&mut far);
        }
    }
}

/// The state of a search that outlives one parallel region.
struct Shared {
    /// Per worker: the vertices it filed for the current bucket (read by all in a round).
    frontier: Vec<RwLock<Vec<u64>>>,
    /// Per worker: its buckets (locked by that worker only, for a region).
    bins: Vec<Mutex<Bins>>,
    /// Per round parity: the lowest bucket any worker holds, vertices expanded, and the
    /// claiming cursors into each worker's frontier list.
    lowest: [AtomicU64; 2],
    expanded: [AtomicUsize; 2],
    cursors: [Vec<AtomicUsize>; 2],
    /// Set by worker 0 for the workers to leave the region after this round.
    stop: AtomicBool,
    /// (bucket, vertices expanded) of the rounds run since the caller last looked.
    log: Mutex<Vec<(u64, usize)>>,
}

/// Seconds a parallel region runs before it returns to the caller to report progress.
const SLICE: Duration = Duration::from_millis(100);

fn search<C: Cell>(
    graph: &Graph,
    weights: &EdgeWeights,
    source: u64,
    options: &SsspOptions,
    on_round: &mut impl FnMut(u64, usize),
) -> Result<SsspResult> {
    search_sliced::<C>(graph, weights, source, options, on_round, SLICE)
}

/// Delta-stepping in parallel regions of at most about `slice` each: every worker relaxes
/// the vertices it claims from all the workers' lists for the current bucket and files the
/// improved ones in buckets of its own; after a barrier each knows the lowest bucket left
/// anywhere, publishes its list for it, and after a second barrier the next round starts.
fn search_sliced<C: Cell>(
    graph: &Graph,
    weights: &EdgeWeights,
    source: u64,
    options: &SsspOptions,
    on_round: &mut impl FnMut(u64, usize),
    slice: Duration,
) -> Result<SsspResult> {
    let n = graph.vertices();
    let delta = options.delta;
    // Bucket of a distance: a shift when delta is a power of two.
    let shift = delta.is_power_of_two().then(|| delta.trailing_zeros());
    let bucket_of = |d: u64| match shift {
        Some(s) => d >> s,
        None => d / delta,
    };
    let runtime = Arc::clone(graph.runtime());
    // The tentative distances live in scratch cells filled in parallel on huge pages (a vector
    // filled by one thread takes a page fault per 4 KiB).
    let scratch = Arc::clone(&runtime);
    cells::scratch(
        n,
        &scratch,
        |_| C::NONE,
        |distances: &[C]| {
            distances[source as usize].set(0);
            let offsets = Bounds::of(graph.begin().local());
            let targets = Runs::of(graph.edge().local());
            let weight_values = Runs::of(weights.array().local());
            let threads = runtime.threads();
            let shared = Shared {
                frontier: (0..threads).map(|_| RwLock::new(Vec::new())).collect(),
                bins: (0..threads).map(|_| Mutex::new(Bins::default())).collect(),
                lowest: [AtomicU64::new(u64::MAX), AtomicU64::new(u64::MAX)],
                expanded: [AtomicUsize::new(0), AtomicUsize::new(0)],
                cursors: [
                    (0..threads).map(|_| AtomicUsize::new(0)).collect(),
                    (0..threads).map(|_| AtomicUsize::new(0)).collect(),
                ],
                stop: AtomicBool::new(false),
                log: Mutex::new(Vec::new()),
            };
            if let Ok(mut first) = shared.frontier[0].write() {
                first.push(source);
            }
            let distances = &distances;
            // Relaxes the out-edges of `u` (unless it was settled in an earlier bucket since it was
            // filed in this one), filing the improved vertices in `bins`.
            let expand = |u: u64, floor: u64, bins: &mut Bins| {
                let du = distances[u as usize].get();
                if du < floor {
                    return;
                }
                let (s, t) = offsets.list(u as usize);
                if s == t {
                    return;
                }
                let (mut ids, mut ws) =
                    (std::mem::take(&mut bins.ids), std::mem::take(&mut bins.ws));
                let neighbours = targets.run(s, t, &mut ids);
                let edge_weights = weight_values.run(s, t, &mut ws);
                let mut file = |v: u64, candidate: u64| bins.file(v, bucket_of(candidate));
                // SAFETY: the runs hold the graph's neighbour ids, all below `n` (checked when the
                // graph was built or loaded), and `distances` holds `n` cells.
                unsafe {
                    match (neighbours, edge_weights) {
                        (Run::N32(a), Run::N32(b)) => relax(a, b, du, distances, &mut file),
                        (Run::N32(a), Run::N64(b)) => relax(a, b, du, distances, &mut file),
                        (Run::N64(a), Run::N32(b)) => relax(a, b, du, distances, &mut file),
                        (Run::N64(a), Run::N64(b)) => relax(a, b, du, distances, &mut file),
                    }
                }
                bins.ids = ids;
                bins.ws = ws;
            };
            let mut bucket = 0u64;
            let mut rounds = 0usize;
            let mut done = false;
            while !done {
                let start_bucket = bucket;
                let start_round = rounds;
                let started = Instant::now();
                // One region: runs rounds until the buckets are empty or the slice is over; returns
                // (bucket, round, finished) as every worker saw them.
                let region = |worker: usize, spin: &Spin| -> (u64, usize, bool) {
                    let mut guard = shared.bins[worker]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner());
                    let bins = &mut *guard;
                    let (mut bucket, mut round) = (start_bucket, start_round);
                    loop {
                        let parity = round & 1;
                        let floor = bucket.saturating_mul(delta);
                        let mut expanded = 0usize;
                        {
                            let lists: Vec<_> = shared
                                .frontier
                                .iter()
                                .map(|l| l.read().unwrap_or_else(|e| e.into_inner()))
                                .collect();
                            for k in 0..lists.len() {
                                let owner = (worker + k) % lists.len();
                                let list = &lists[owner];
                                let cursor = &shared.cursors[parity][owner];
                                loop {
                                    let s = cursor.fetch_add(FRONTIER_BATCH, Ordering::Relaxed);
                                    if s >= list.len() {
                                        break;
                                    }
                                    let t = (s + FRONTIER_BATCH).min(list.len());
                                    expanded += t - s;
                                    for &u in &list[s..t] {
                                        expand(u, floor, bins);
                                    }
                                }
                            }
                        }
                        // Fusion: while this worker's share of the current bucket is small, settle it
                        // here rather than in another round.
                        let mut batch = Vec::new();
                        loop {
                            let current = match bins.near.front_mut() {
                                Some(current) if bins.base == bucket => current,
                                _ => break,
                            };
                            if current.is_empty() || current.len() >= FUSE {
                                break;
                            }
                            std::mem::swap(current, &mut batch);
                            expanded += batch.len();
                            for &u in &batch {
                                expand(u, floor, bins);
                            }
                            batch.clear();
                        }
                        shared.expanded[parity].fetch_add(expanded, Ordering::Relaxed);
                        shared.lowest[parity].fetch_min(bins.lowest(), Ordering::Relaxed);
                        spin.wait();
                        let next = shared.lowest[parity].load(Ordering::Relaxed);
                        if worker == 0 {
                            let count = shared.expanded[parity].load(Ordering::Relaxed);
                            if let Ok(mut log) = shared.log.lock() {
                                log.push((bucket, count));
                            }
                            shared
                                .stop
                                .store(started.elapsed() >= slice, Ordering::Relaxed);
                        }
                        round += 1;
                        if next == u64::MAX {
                            return (bucket, round, true);
                        }
                        {
                            let mut mine = shared.frontier[worker]
                                .write()
                                .unwrap_or_else(|e| e.into_inner());
                            bins.take(next, &mut mine);
                        }
                        spin.wait();
                        if worker == 0 {
                            // This parity's counters are next used two rounds on, after the barrier
                            // that ends the coming round.
                            shared.lowest[parity].store(u64::MAX, Ordering::Relaxed);
                            shared.expanded[parity].store(0, Ordering::Relaxed);
                            for cursor in &shared.cursors[parity] {
                                cursor.store(0, Ordering::Relaxed);
                            }
                        }
                        bucket = next;
                        if shared.stop.load(Ordering::Relaxed) {
                            return (bucket, round, false);
                        }
                    }
                };
                let together = if threads > 1 && graph.edges() >= PARALLEL_EDGES {
                    let spin = Spin::new(threads);
                    runtime.on_each_worker_together(|worker| region(worker.index, &spin))
                } else {
                    None
                };
                let outcome = match together {
                    Some(outcomes) => outcomes[0],
                    None => {
                        // One worker (or workers that cannot wait for each other): the calling thread
                        // runs the rounds alone, claiming every worker's list.
                        let spin = Spin::new(1);
                        region(0, &spin)
                    }
                };
                (bucket, rounds, done) = outcome;
                let log =
                    std::mem::take(&mut *shared.log.lock().unwrap_or_else(|e| e.into_inner()));
                for (b, count) in log {
                    on_round(b, count);
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
        },
    )?
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use smartarrays::Runtime;

    use super::*;
    use crate::{build_weighted, GraphOptions, Variant, WeightedEdges};

    /// Distances by a plain Dijkstra over `(source, target, weight)` triples.
    fn dijkstra(n: usize, triples: &[(u64, u64, u32)], source: usize) -> Vec<Option<u64>> {
        let mut out = vec![Vec::new(); n];
        for &(s, t, w) in triples {
            out[s as usize].push((t as usize, u64::from(w)));
        }
        let mut best = vec![None; n];
        let mut heap = std::collections::BinaryHeap::new();
        heap.push(std::cmp::Reverse((0u64, source)));
        while let Some(std::cmp::Reverse((d, u))) = heap.pop() {
            if best[u].is_some() {
                continue;
            }
            best[u] = Some(d);
            for &(v, w) in &out[u] {
                if best[v].is_none() {
                    heap.push(std::cmp::Reverse((d + w, v)));
                }
            }
        }
        best
    }

    /// Regions cut after every round (the caller re-enters them each time) give the same exact
    /// distances and the same rounds as uninterrupted ones, on 1, 2 and 3 workers.
    #[test]
    fn sliced_regions_match_dijkstra() {
        let n = 1025u64;
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        let triples: Vec<(u64, u64, u32)> = (0..8 * n)
            .map(|_| {
                let weight = match next() % 4 {
                    0 => 0,
                    1 => 1,
                    2 => 63,
                    _ => (next() % 5000) as u32,
                };
                (next() % n, next() % n, weight)
            })
            .collect();
        let expected = dijkstra(n as usize, &triples, 0);
        for threads in [1, 2, 3] {
            let runtime = Arc::new(Runtime::with_threads(threads).unwrap());
            for variant in [Variant::U, Variant::VE] {
                let mut edges = WeightedEdges::new(true);
                for &(s, t, w) in &triples {
                    edges.push(s, t, w);
                }
                let options = GraphOptions::variant(variant).runtime(Arc::clone(&runtime));
                let (graph, weights) = build_weighted(edges, &options).unwrap();
                for delta in [1, 3, 64, 1000] {
                    let options = SsspOptions { delta };
                    let (mut whole, mut cut) = (Vec::new(), Vec::new());
                    let one = search_sliced::<AtomicU32>(
                        &graph,
                        &weights,
                        0,
                        &options,
                        &mut |b, size| whole.push((b, size)),
                        Duration::from_secs(3600),
                    )
                    .unwrap();
                    let many = search_sliced::<AtomicU64>(
                        &graph,
                        &weights,
                        0,
                        &options,
                        &mut |b, size| cut.push((b, size)),
                        Duration::ZERO,
                    )
                    .unwrap();
                    let label = format!("{threads} threads {variant:?} delta {delta}");
                    for result in [&one, &many] {
                        let got: Vec<Option<u64>> = (0..n).map(|v| result.distance(v)).collect();
                        assert_eq!(got, expected, "{label}");
                        verify_sssp(&graph, &weights, result).unwrap();
                    }
                    assert_eq!(whole.len(), one.rounds, "{label}");
                    assert_eq!(cut.len(), many.rounds, "{label}");
                    let buckets =
                        |log: &[(u64, usize)]| log.iter().map(|r| r.0).collect::<Vec<_>>();
                    assert!(
                        buckets(&whole).windows(2).all(|w| w[0] <= w[1]),
                        "{label}: buckets in order"
                    );
                    assert!(
                        buckets(&cut).windows(2).all(|w| w[0] <= w[1]),
                        "{label}: buckets in order"
                    );
                }
            }
        }
    }

    /// The unchecked distance reads on small graphs at the edge sizes: chains of 1, 2, 63, 64,
    /// 65 and 1025 vertices whose second half is unreachable (the last vertex only has a
    /// self-loop, which fixes `n`), weights 1 and the largest `u32` (64-bit cells), 1 and 3
    /// workers, against Dijkstra.
    #[test]
    fn trusted_relaxation_small_graphs_match_dijkstra() {
        for n in [1u64, 2, 63, 64, 65, 1025] {
            for max in [1u32, 255, u32::MAX] {
                let half = n.div_ceil(2);
                let mut triples: Vec<(u64, u64, u32)> = (1..half)
                    .flat_map(|v| [(v - 1, v, max), (0, v, (v as u32).max(1))])
                    .collect();
                triples.push((n - 1, n - 1, max));
                let expected = dijkstra(n as usize, &triples, 0);
                for threads in [1, 3] {
                    let runtime = Arc::new(Runtime::with_threads(threads).unwrap());
                    let mut edges = WeightedEdges::new(true);
                    for &(s, t, w) in &triples {
                        edges.push(s, t, w);
                    }
                    let options = GraphOptions::variant(Variant::U).runtime(runtime);
                    let (graph, weights) = build_weighted(edges, &options).unwrap();
                    assert_eq!(graph.vertices() as u64, n);
                    let result =
                        sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap();
                    let got: Vec<Option<u64>> = (0..n).map(|v| result.distance(v)).collect();
                    assert_eq!(got, expected, "n {n} max {max} threads {threads}");
                    let reached = got.iter().filter(|d| d.is_some()).count() as u64;
                    assert_eq!(reached, half, "n {n}");
                    verify_sssp(&graph, &weights, &result).unwrap();
                }
            }
        }
    }

    /// Searches started at once from several threads on one runtime (whose regions must not
    /// hold some workers each while waiting for the others) all finish with exact distances.
    #[test]
    fn concurrent_searches_on_one_runtime() {
        let n = 600u64;
        let triples: Vec<(u64, u64, u32)> = (0..n * 6)
            .map(|i| ((i * 7919) % n, (i * 104_729 + 1) % n, (i % 97) as u32 + 1))
            .collect();
        let expected = dijkstra(n as usize, &triples, 0);
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let mut edges = WeightedEdges::new(true);
        for &(s, t, w) in &triples {
            edges.push(s, t, w);
        }
        let options = GraphOptions::variant(Variant::U).runtime(runtime);
        let (graph, weights) = build_weighted(edges, &options).unwrap();
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        let result =
                            sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap();
                        let got: Vec<Option<u64>> = (0..n).map(|v| result.distance(v)).collect();
                        assert_eq!(got, expected);
                    }
                });
            }
        });
    }
}
