//! Graph algorithms on the project's runtime: degree centrality, PageRank (Jacobi and
//! Gauss-Seidel), BFS, weakly connected components, single-source shortest paths
//! (delta-stepping), betweenness centrality (Brandes) and triangle counting. Each reads the CSR
//! arrays through `crate::access` and returns smart arrays placed and sized like the graph's
//! vertex properties (or a count).

pub mod bc;
pub mod bfs;
mod cells;
pub mod components;
pub mod degree;
pub mod pagerank;
pub mod sssp;
pub mod tc;

use std::ops::Range;

use smartarrays::Runtime;

/// Folds `range` in batches of `batch` as [`Runtime::map_reduce`] does, but on the calling
/// thread when the range holds at most `inline` items or the runtime has a single worker:
/// handing a step that small to the workers (waking them, waiting for the last) costs more
/// than the step. Level- and bucket-synchronous kernels (BFS, SSSP) run many such steps.
pub(crate) fn fold_steps<T: Send>(
    runtime: &Runtime,
    range: Range<usize>,
    batch: usize,
    inline: usize,
    identity: impl Fn() -> T + Sync,
    fold: impl Fn(T, Range<usize>) -> T + Sync,
    combine: impl Fn(T, T) -> T,
) -> T {
    if range.len() <= inline || runtime.threads() == 1 {
        return fold(identity(), range);
    }
    runtime.map_reduce(range, batch, identity, |acc, _, r| fold(acc, r), combine)
}
