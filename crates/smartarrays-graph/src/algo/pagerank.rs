//! PageRank, pull-based over reverse edges, Jacobi style (each iteration reads only the previous
//! iteration's ranks), as in the paper's §5.2 and the usual C++ suites: every iteration first
//! writes each vertex's contribution `rank / out_degree` (one vertex pass), then each vertex
//! sums the contributions of its in-neighbours (one pass over `rbegin`/`redge`).
//!
//! `rank' = (1 - d) / n + d * (sum of in-neighbour contributions + dangling / n)`, where
//! `dangling` is the rank held by vertices without out-edges: spread uniformly by default (as
//! networkx does, so ranks keep summing to 1), or left out ([`Dangling::Drop`], as some C++
//! suites do). Iteration stops when the sum of absolute rank changes is below the tolerance, or
//! after the maximum number of iterations (reported as not converged).

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use smartarrays::{ArrayOptions, F64Array, SmartArray};

use crate::access::{f64_for_worker, gather_sum, values, with_window, EdgeWindow, Targets};
use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::Graph;

/// Vertices per parallel batch of the PageRank passes.
pub(crate) const BATCH: usize = 2048;

/// What to do with the rank of vertices without out-edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Dangling {
    /// Spread it uniformly over all vertices (networkx's default).
    #[default]
    Spread,
    /// Leave it out (ranks then sum to less than 1).
    Drop,
}

/// PageRank settings.
#[derive(Clone, Debug, Serialize)]
pub struct PageRankOptions {
    /// Damping factor `d` (default 0.85).
    pub damping: f64,
    /// Stop when the sum of absolute rank changes of an iteration is below this (default 1e-3).
    pub tolerance: f64,
    /// Stop after this many iterations even if not converged (default 1000).
    pub max_iterations: usize,
    /// Dangling vertices (default: spread).
    pub dangling: Dangling,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions { damping: 0.85, tolerance: 1e-3, max_iterations: 1000, dangling: Dangling::Spread }
    }
}

impl PageRankOptions {
    pub(crate) fn check(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.damping) {
            return Err(GraphError::InvalidArgument(format!("damping {} must be in [0, 1)", self.damping)));
        }
        if self.tolerance.is_nan() || self.tolerance < 0.0 {
            return Err(GraphError::InvalidArgument(format!("tolerance {} must be at least 0", self.tolerance)));
        }
        if self.max_iterations == 0 {
            return Err(GraphError::InvalidArgument("max iterations must be at least 1".into()));
        }
        Ok(())
    }
}

/// One iteration's progress.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Iteration {
    /// 1-based iteration number.
    pub iteration: usize,
    /// Sum of absolute rank changes.
    pub change: f64,
    /// Seconds the iteration took.
    pub seconds: f64,
}

/// How a PageRank run went.
#[derive(Clone, Debug, Serialize)]
pub struct PageRankSummary {
    /// Iterations run.
    pub iterations: usize,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// The last iteration's change.
    pub change: f64,
    /// Every iteration.
    pub history: Vec<Iteration>,
}

/// Ranks and the run's summary.
#[derive(Debug)]
pub struct PageRankResult {
    /// Rank of every vertex (placed like the graph's properties).
    pub ranks: F64Array,
    /// Out-degrees used (the paper's out-degree vertex property, at the properties' width).
    pub out_degrees: SmartArray,
    /// Iterations, convergence.
    pub summary: PageRankSummary,
}

/// The two passes of an iteration over some storage (smart arrays or plain vectors).
pub(crate) trait RankState {
    /// Writes every contribution; returns the dangling rank.
    fn spread(&mut self) -> f64;
    /// Writes every new rank from the contributions; returns the sum of absolute changes.
    fn pull(&mut self, base: f64, damping: f64) -> f64;
}

/// The iteration loop shared by smart arrays and the plain baseline.
pub(crate) fn iterate(
    state: &mut impl RankState,
    n: usize,
    options: &PageRankOptions,
    on_iteration: &mut dyn FnMut(&Iteration),
) -> PageRankSummary {
    let mut summary = PageRankSummary { iterations: 0, converged: false, change: f64::INFINITY, history: Vec::new() };
    if n == 0 {
        summary.converged = true;
        summary.change = 0.0;
        return summary;
    }
    let d = options.damping;
    for iteration in 1..=options.max_iterations {
        let started = Instant::now();
        let dangling = state.spread();
        let spread = if options.dangling == Dangling::Spread { d * dangling / n as f64 } else { 0.0 };
        let change = state.pull((1.0 - d) / n as f64 + spread, d);
        let step = Iteration { iteration, change, seconds: started.elapsed().as_secs_f64() };
        on_iteration(&step);
        summary.history.push(step);
        summary.iterations = iteration;
        summary.change = change;
        if change < options.tolerance {
            summary.converged = true;
            break;
        }
    }
    summary
}

/// Contributions of a batch: `out[i] = ranks[i] / degree[i]`; returns the rank of the batch's
/// vertices without out-edges.
#[inline]
pub(crate) fn contributions<T: Copy + Into<u64>>(degrees: &[T], ranks: &[f64], out: &mut [f64]) -> f64 {
    let mut dangling = 0.0;
    for ((slot, &degree), &rank) in out.iter_mut().zip(degrees).zip(ranks) {
        let degree: u64 = degree.into();
        if degree == 0 {
            dangling += rank;
            *slot = 0.0;
        } else {
            *slot = rank / degree as f64;
        }
    }
    dangling
}

/// New ranks of a batch: `offsets` are the batch's `rbegin` values (one more than vertices).
#[inline]
pub(crate) fn pull<W: EdgeWindow>(
    window: &mut W,
    offsets: &[u64],
    contributions: &[f64],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
) -> f64 {
    let mut change = 0.0;
    for (i, rank) in ranks.iter_mut().enumerate() {
        let (mut s, t) = (offsets[i] as usize, offsets[i + 1] as usize);
        let mut sum = 0.0;
        while s < t {
            let piece = window.piece(s, t);
            sum += gather_sum(piece, contributions);
            s += piece.len();
        }
        let new = base + damping * sum;
        change += (new - *rank).abs();
        *rank = new;
    }
    change
}

/// PageRank on a graph; `on_iteration` sees every iteration as it ends (for progress).
///
/// # Example
/// ```
/// use smartarrays_graph::{build, pagerank, EdgeList, GraphOptions, PageRankOptions};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [1, 2], [2, 0]]), &GraphOptions::default()).unwrap();
/// let result = pagerank(&graph, &PageRankOptions::default(), |_| {}).unwrap();
/// assert!(result.summary.converged);
/// for v in 0..3 {
///     assert!((result.ranks.get(v).unwrap() - 1.0 / 3.0).abs() < 1e-9);
/// }
/// ```
pub fn pagerank(graph: &Graph, options: &PageRankOptions, mut on_iteration: impl FnMut(&Iteration)) -> Result<PageRankResult> {
    options.check()?;
    let n = graph.vertices();
    let runtime = Arc::clone(graph.runtime());
    let properties = graph.properties();
    let array_options = ArrayOptions::new().placement(properties.placement.clone()).runtime(Arc::clone(&runtime));
    let begin = graph.begin();
    let out_degrees =
        SmartArray::from_batches(n, &array_options.clone().bits(property_bits(properties, graph.max_out_degree())), |range, out| {
            crate::access::with_scratch(|buffer, _| {
                let offsets = values(begin.local(), range.start..range.end + 1, buffer);
                for (slot, pair) in out.iter_mut().zip(offsets.windows(2)) {
                    *slot = pair[1] - pair[0];
                }
            })
        })?;
    let ranks = F64Array::from_fn(n, &array_options, |_| 1.0 / n as f64)?;
    let contributions = F64Array::from_fn(n, &array_options, |_| 0.0)?;
    let mut state = SmartRanks { graph, out_degrees: &out_degrees, ranks, contributions };
    let summary = iterate(&mut state, n, options, &mut on_iteration);
    let ranks = state.ranks;
    Ok(PageRankResult { ranks, out_degrees, summary })
}

struct SmartRanks<'g> {
    graph: &'g Graph,
    out_degrees: &'g SmartArray,
    ranks: F64Array,
    contributions: F64Array,
}

impl RankState for SmartRanks<'_> {
    fn spread(&mut self) -> f64 {
        let (ranks, degrees) = (&self.ranks, self.out_degrees);
        self.contributions
            .par_update(
                BATCH,
                || (0.0, Vec::new()),
                |(dangling, mut buffer), worker, range, out| {
                    let ranks = &f64_for_worker(ranks, worker)[range.clone()];
                    let degrees = values(degrees.for_worker(worker), range, &mut buffer);
                    (dangling + contributions(degrees, ranks, out), buffer)
                },
                |a, b| (a.0 + b.0, Vec::new()),
            )
            .0
    }

    fn pull(&mut self, base: f64, damping: f64) -> f64 {
        let contributions = &self.contributions;
        let incoming = self.graph.incoming();
        self.ranks
            .par_update(
                BATCH,
                || (0.0, Vec::new(), Vec::new()),
                |(change, mut offsets_buffer, mut edges_buffer), worker, range, ranks| {
                    let contributions = f64_for_worker(contributions, worker);
                    let offsets = values(incoming.offsets().for_worker(worker), range.start..range.end + 1, &mut offsets_buffer);
                    let limit = offsets[offsets.len() - 1] as usize;
                    let targets = Targets::of(incoming.targets().for_worker(worker));
                    let delta = with_window!(targets, &mut edges_buffer, limit, |window| {
                        pull(&mut window, offsets, contributions, ranks, base, damping)
                    });
                    (change + delta, offsets_buffer, edges_buffer)
                },
                |a, b| (a.0 + b.0, Vec::new(), Vec::new()),
            )
            .0
    }
}
