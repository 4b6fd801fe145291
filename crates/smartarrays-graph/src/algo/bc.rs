//! Betweenness centrality by Brandes's algorithm ("A faster algorithm for betweenness
//! centrality"), exact from every source or approximate from sampled sources. Per source, a
//! level-synchronous BFS claims each level's vertices in parallel, adds each frontier vertex's
//! shortest-path count to the neighbours it claimed for the next level, and marks those edges in
//! a bitmap over edge positions (the successor bits of Madduri, Ediger, Jiang, Bader and
//! Chavarría-Miranda, "A faster parallel algorithm and efficient multithreaded implementations
//! for evaluating betweenness centrality on massive datasets"). The dependencies are then
//! accumulated level by level from the deepest, each vertex pulling from its marked successors
//! only, so no depth is looked up twice. Path counts are whole numbers summed in `f64`: exact, and
//! so independent of the thread count, while they stay below 2^53. Scores are the sums of
//! dependencies over the sources (the source itself gets none); a graph's edges count with their
//! multiplicity (duplicate edges are separate paths).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use smartarrays::{ArrayOptions, F64Array};

use crate::access::{with_window, AsIndex, EdgeWindow, Targets};
use crate::algo::cells::{self, narrow, Cell};
use crate::algo::fold_steps;
use crate::error::{GraphError, Result};
use crate::Graph;

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

impl BcSources {
    /// The source vertices these settings name on `graph`, in order (a sample is drawn as
    /// [`bc`] draws it): to run on a relabelled graph the sources an input graph would use.
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::{build, generate, BcSources, GraphOptions};
    /// let graph = build(generate::kronecker(6, 8, 1, false)?, &GraphOptions::default())?;
    /// let sources = BcSources::Sample { count: 3, seed: 1 }.resolve(&graph)?;
    /// assert_eq!(sources.len(), 3);
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn resolve(&self, graph: &Graph) -> Result<Vec<u64>> {
        pick_sources(graph, self)
    }
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

/// Adds `value` to the `f64` in `cell` (a compare-and-swap loop).
#[inline(always)]
fn add(cell: &AtomicU64, value: f64) {
    let mut current = cell.load(Ordering::Relaxed);
    loop {
        let new = (f64::from_bits(current) + value).to_bits();
        match cell.compare_exchange_weak(current, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(seen) => current = seen,
        }
    }
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
    on_source: impl FnMut(usize, usize),
) -> Result<BcResult> {
    let sources = pick_sources(graph, &options.sources)?;
    if narrow(graph.vertices()) {
        brandes::<AtomicU32>(graph, sources, on_source)
    } else {
        brandes::<AtomicU64>(graph, sources, on_source)
    }
}

/// Brandes from `sources`, levels kept in cells of type `C`.
fn brandes<C: Cell>(
    graph: &Graph,
    sources: Vec<u64>,
    on_source: impl FnMut(usize, usize),
) -> Result<BcResult> {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let mut forward_buffer = Vec::new();
    let begin = cells::offsets(graph.begin(), &mut forward_buffer);
    // One bit per out-edge position: set when the edge leads one level down (a successor).
    let words = (begin[n] as usize).div_ceil(64);
    let zero = |_| 0;
    // Scratch cells filled in parallel on huge pages: the first touch of these pages is the
    // kernel's largest serial cost otherwise (the level loops write them at scattered places,
    // a page fault each per 4 KiB).
    cells::scratch(
        n,
        &runtime,
        |_| C::NONE,
        |depth: &[C]| {
            cells::scratch(n, &runtime, zero, |paths: &[AtomicU64]| {
                cells::scratch(n, &runtime, zero, |dependency: &[AtomicU64]| {
                    cells::scratch(n, &runtime, zero, |scores: &[AtomicU64]| {
                        cells::scratch(words, &runtime, zero, |successors: &[AtomicU64]| {
                            let scratch = Scratch {
                                depth,
                                paths,
                                dependency,
                                scores,
                                successors,
                            };
                            from_sources(graph, sources, begin, scratch, on_source)
                        })?
                    })?
                })?
            })?
        },
    )?
}

/// BC's per-vertex cells and its successor bits.
struct Scratch<'a, C> {
    depth: &'a [C],
    paths: &'a [AtomicU64],
    dependency: &'a [AtomicU64],
    scores: &'a [AtomicU64],
    successors: &'a [AtomicU64],
}

/// Brandes from `sources` in `scratch`, fresh (depth "none", the rest zero).
fn from_sources<C: Cell>(
    graph: &Graph,
    sources: Vec<u64>,
    begin: &[u64],
    scratch: Scratch<'_, C>,
    mut on_source: impl FnMut(usize, usize),
) -> Result<BcResult> {
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let forward = Targets::of(graph.edge().local());
    let Scratch {
        depth,
        paths,
        dependency,
        scores,
        successors,
    } = scratch;
    let is_successor = |e: usize| successors[e / 64].load(Ordering::Relaxed) & (1 << (e % 64)) != 0;
    // Whether any edge position in `e..b` is marked (most vertices of a level have no
    // successor: their lists need not be read, nor decoded when packed).
    let any_successor = |e: usize, b: usize| {
        if e >= b {
            return false;
        }
        let (first, last) = (e / 64, (b - 1) / 64);
        (first..=last).any(|word| {
            let mut bits = successors[word].load(Ordering::Relaxed);
            if word == first {
                bits &= u64::MAX << (e % 64);
            }
            if word == last {
                bits &= u64::MAX >> (63 - (b - 1) % 64);
            }
            bits != 0
        })
    };
    for (index, &source) in sources.iter().enumerate() {
        let s = source as usize;
        depth[s].set(0);
        store(&paths[s], 1.0);
        let mut levels: Vec<Vec<u64>> = vec![vec![source]];
        loop {
            let level = levels.len() as u64;
            let frontier = &levels[levels.len() - 1];
            // Claims the next level and adds each frontier vertex's path count to its
            // successors (final: the frontier's counts were completed one step earlier).
            let next: Vec<u64> = fold_steps(
                &runtime,
                0..frontier.len(),
                LEVEL_BATCH,
                LEVEL_BATCH,
                || (Vec::new(), Vec::new()),
                |(mut next, mut buffer), range| {
                    with_window!(forward, &mut buffer, 0, |window| {
                        for &u in &frontier[range] {
                            let (mut e, b) =
                                (begin[u as usize] as usize, begin[u as usize + 1] as usize);
                            let mine = load(&paths[u as usize]);
                            while e < b {
                                let piece = window.piece(e, b);
                                for &v in piece {
                                    let v = v.at();
                                    let slot = &depth[v];
                                    let mut found = slot.get();
                                    if found == C::NONE {
                                        if slot.replace(C::NONE, level) {
                                            next.push(v as u64);
                                        }
                                        found = slot.get();
                                    }
                                    if found == level {
                                        add(&paths[v], mine);
                                        successors[e / 64]
                                            .fetch_or(1 << (e % 64), Ordering::Relaxed);
                                    }
                                    e += 1;
                                }
                            }
                        }
                    });
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
            levels.push(next);
        }
        // Dependencies, deepest level first, each vertex pulling from its successors.
        for vertices in levels.iter().rev() {
            fold_steps(
                &runtime,
                0..vertices.len(),
                LEVEL_BATCH,
                LEVEL_BATCH,
                Vec::new,
                |mut buffer, range| {
                    with_window!(forward, &mut buffer, 0, |window| {
                        for &v in &vertices[range] {
                            let v = v as usize;
                            let (mut e, b) = (begin[v] as usize, begin[v + 1] as usize);
                            let mut sum = 0.0;
                            if !any_successor(e, b) {
                                e = b;
                            }
                            while e < b {
                                let piece = window.piece(e, b);
                                for &w in piece {
                                    if is_successor(e) {
                                        let w = w.at();
                                        sum += (1.0 + load(&dependency[w])) / load(&paths[w]);
                                    }
                                    e += 1;
                                }
                            }
                            let value = load(&paths[v]) * sum;
                            store(&dependency[v], value);
                            if v != s {
                                store(&scores[v], load(&scores[v]) + value);
                            }
                        }
                    });
                    buffer
                },
                |a, _| a,
            );
        }
        // Reset what this source touched (not after the last: the cells are dropped).
        if index + 1 < sources.len() {
            for &v in levels.iter().flatten() {
                let v = v as usize;
                depth[v].set(C::NONE);
                store(&paths[v], 0.0);
                store(&dependency[v], 0.0);
                for word in
                    &successors[begin[v] as usize / 64..(begin[v + 1] as usize).div_ceil(64)]
                {
                    word.store(0, Ordering::Relaxed);
                }
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
