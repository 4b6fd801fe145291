//! Betweenness centrality by Brandes's algorithm ("A faster algorithm for betweenness
//! centrality"), exact from every source or approximate from sampled sources. Per source, a
//! level-synchronous BFS claims each level's vertices in parallel and then counts their
//! shortest paths by pulling the counts of their in-neighbours one level up (no atomic floating
//! point additions, so results do not depend on the thread count); the dependencies are then
//! accumulated level by level from the deepest, each vertex pulling from its out-neighbours one
//! level down. Scores are the sums of dependencies over the sources (the source itself gets
//! none); a graph's edges count with their multiplicity (duplicate edges are separate paths).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use smartarrays::{ArrayOptions, F64Array};

use crate::access::{run, Targets};
use crate::error::{GraphError, Result};
use crate::Graph;

const UNSEEN: u64 = u64::MAX;
const LEVEL_BATCH: usize = 64;

/// Which sources betweenness centrality starts from.
#[derive(Clone, Debug, Serialize)]
pub enum BcSources {
    /// Every vertex: exact betweenness.
    All,
    /// `count` sources drawn uniformly (with a seeded generator) among the vertices that have
    /// out-edges; repeats possible, as with independent samples.
    Sample {
        /// How many.
        count: usize,
        /// The generator's seed.
        seed: u64,
    },
    /// These vertices.
    List(Vec<u64>),
}

/// Betweenness settings.
#[derive(Clone, Debug, Serialize)]
pub struct BcOptions {
    /// The sources (default: 4 sampled with seed 1).
    pub sources: BcSources,
}

impl Default for BcOptions {
    fn default() -> Self {
        BcOptions {
            sources: BcSources::Sample { count: 4, seed: 1 },
        }
    }
}

/// Betweenness scores.
#[derive(Debug)]
pub struct BcResult {
    /// Sum over the sources of every vertex's dependency (unnormalised; for an undirected
    /// graph each unordered pair is counted from both ends when both are sources).
    pub scores: F64Array,
    /// The sources used, in order.
    pub sources: Vec<u64>,
}

impl BcResult {
    /// Scores divided by the largest one (all zero when the largest is zero).
    pub fn normalized(&self) -> Vec<f64> {
        let scores = self.scores.to_vec();
        let largest = scores.iter().copied().fold(0.0, f64::max);
        if largest > 0.0 {
            scores.iter().map(|s| s / largest).collect()
        } else {
            scores
        }
    }
}

#[inline(always)]
fn load(cell: &AtomicU64) -> f64 {
    f64::from_bits(cell.load(Ordering::Relaxed))
}

#[inline(always)]
fn store(cell: &AtomicU64, value: f64) {
    cell.store(value.to_bits(), Ordering::Relaxed)
}

/// The sources `options` names, checked against `graph`.
fn pick_sources(graph: &Graph, sources: &BcSources) -> Result<Vec<u64>> {
    let n = graph.vertices() as u64;
    match sources {
        BcSources::All => Ok((0..n).collect()),
        BcSources::List(list) => {
            if let Some(&bad) = list.iter().find(|&&s| s >= n) {
                return Err(GraphError::InvalidArgument(format!(
                    "source vertex {bad} does not exist (the graph has {n} vertices)"
                )));
            }
            Ok(list.clone())
        }
        BcSources::Sample { count, seed } => {
            if *count == 0 {
                return Ok(Vec::new());
            }
            let begin = graph.begin().local();
            let candidates = (0..n as usize)
                .filter(|&v| begin.value(v + 1) > begin.value(v))
                .count();
            if candidates == 0 {
                return Err(GraphError::InvalidArgument(
                    "no vertex has out-edges to sample sources from".into(),
                ));
            }
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(*seed);
            let mut picked = Vec::with_capacity(*count);
            while picked.len() < *count {
                let v = rng.random_range(0..n);
                if begin.value(v as usize + 1) > begin.value(v as usize) {
                    picked.push(v);
                }
            }
            Ok(picked)
        }
    }
}

/// Betweenness centrality from the sources `options` names; `on_source` sees each finished
/// source's index (from 1) and the number of sources (for progress).
///
/// # Example
/// ```
/// use smartarrays_graph::{bc, build, BcOptions, BcSources, EdgeList, GraphOptions};
/// // A path 0 - 1 - 2: every path between 0 and 2 passes 1.
/// let graph = build(EdgeList::from_pairs(3, false, vec![[0, 1], [1, 2]]), &GraphOptions::default())?;
/// let result = bc(&graph, &BcOptions { sources: BcSources::All }, |_, _| {})?;
/// assert_eq!(result.scores.to_vec(), vec![0.0, 2.0, 0.0]);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn bc(
    graph: &Graph,
    options: &BcOptions,
    mut on_source: impl FnMut(usize, usize),
) -> Result<BcResult> {
    let n = graph.vertices();
    let sources = pick_sources(graph, &options.sources)?;
    let runtime = Arc::clone(graph.runtime());
    let depth: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(UNSEEN)).collect();
    let paths: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let dependency: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let scores: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let begin = graph.begin().local();
    let forward = Targets::of(graph.edge().local());
    let incoming = graph.incoming();
    let rbegin = incoming.offsets().local();
    let backward = Targets::of(incoming.targets().local());
    let (depth, paths, dependency, scores) = (&depth, &paths, &dependency, &scores);
    for (index, &source) in sources.iter().enumerate() {
        let s = source as usize;
        depth[s].store(0, Ordering::Relaxed);
        store(&paths[s], 1.0);
        let mut levels: Vec<Vec<u64>> = vec![vec![source]];
        loop {
            let level = levels.len() as u64;
            let frontier = &levels[levels.len() - 1];
            let next: Vec<u64> = runtime
                .map_reduce(
                    0..frontier.len(),
                    LEVEL_BATCH,
                    || (Vec::new(), Vec::new()),
                    |(mut next, mut buffer), _, range| {
                        for &u in &frontier[range] {
                            let (a, b) = (
                                begin.value(u as usize) as usize,
                                begin.value(u as usize + 1) as usize,
                            );
                            let neighbours = run(forward, a, b, &mut buffer);
                            for k in 0..neighbours.len() {
                                let v = neighbours.get(k);
                                let slot = &depth[v as usize];
                                if slot.load(Ordering::Relaxed) == UNSEEN
                                    && slot
                                        .compare_exchange(
                                            UNSEEN,
                                            level,
                                            Ordering::Relaxed,
                                            Ordering::Relaxed,
                                        )
                                        .is_ok()
                                {
                                    next.push(v);
                                }
                            }
                        }
                        (next, buffer)
                    },
                    |mut a, mut b| {
                        a.0.append(&mut b.0);
                        a
                    },
                )
                .0;
            if next.is_empty() {
                break;
            }
            // Path counts of the new level, pulled from in-neighbours one level up.
            let above = level - 1;
            let next_ref = &next;
            runtime.map_reduce(
                0..next.len(),
                LEVEL_BATCH,
                Vec::new,
                |mut buffer, _, range| {
                    for &v in &next_ref[range] {
                        let (a, b) = (
                            rbegin.value(v as usize) as usize,
                            rbegin.value(v as usize + 1) as usize,
                        );
                        let neighbours = run(backward, a, b, &mut buffer);
                        let mut sum = 0.0;
                        for k in 0..neighbours.len() {
                            let u = neighbours.get(k) as usize;
                            if depth[u].load(Ordering::Relaxed) == above {
                                sum += load(&paths[u]);
                            }
                        }
                        store(&paths[v as usize], sum);
                    }
                    buffer
                },
                |a, _| a,
            );
            levels.push(next);
        }
        // Dependencies, deepest level first, each vertex pulling from the level below it.
        for (level, vertices) in levels.iter().enumerate().rev() {
            let below = level as u64 + 1;
            runtime.map_reduce(
                0..vertices.len(),
                LEVEL_BATCH,
                Vec::new,
                |mut buffer, _, range| {
                    for &v in &vertices[range] {
                        let v = v as usize;
                        let (a, b) = (begin.value(v) as usize, begin.value(v + 1) as usize);
                        let neighbours = run(forward, a, b, &mut buffer);
                        let mut sum = 0.0;
                        for k in 0..neighbours.len() {
                            let w = neighbours.get(k) as usize;
                            if depth[w].load(Ordering::Relaxed) == below {
                                sum += (1.0 + load(&dependency[w])) / load(&paths[w]);
                            }
                        }
                        let value = load(&paths[v]) * sum;
                        store(&dependency[v], value);
                        if v != s {
                            store(&scores[v], load(&scores[v]) + value);
                        }
                    }
                    buffer
                },
                |a, _| a,
            );
        }
        // Reset what this source touched.
        for vertices in &levels {
            for &v in vertices {
                depth[v as usize].store(UNSEEN, Ordering::Relaxed);
                store(&paths[v as usize], 0.0);
                store(&dependency[v as usize], 0.0);
            }
        }
        on_source(index + 1, sources.len());
    }
    let options = ArrayOptions::new()
        .placement(graph.properties().placement.clone())
        .runtime(runtime);
    let scores = F64Array::from_fn(n, &options, |v| load(&scores[v]))?;
    Ok(BcResult { scores, sources })
}
