//! The degree order of a graph's vertex cells ("hot cells first"), a layout derived from the
//! graph and kept beside it ([`crate::Graph::prepare_degree_order`]).
//!
//! A pull sweep reads the cell of every in-neighbour of every vertex, in the random order the
//! lists give. On skewed graphs a few high-degree vertices take most of those reads, but their
//! cells are spread over the whole array, so each read is a cache line of its own. A
//! [`DegreeOrder`] gives every vertex a cell index by decreasing out-degree (the number of lists
//! it appears in) and keeps a copy of the incoming lists in those indices, so the most-read
//! cells share lines and stay in the near caches. Kernels still sweep the vertices in their own
//! order (a Gauss-Seidel sweep's result depends on it: on a scale-22 Kronecker graph, sweeping
//! in degree order took 20-24 iterations to the tolerance the input order met in 5), and
//! results stay in vertex order: only the cells move. Degree-based relabelling is discussed in
//! the GAP Benchmark Suite report (Beamer et al., 2015) and by Balaji and Lucia (IISWC 2018).

use std::sync::Arc;

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;
use crate::graph::Graph;

/// Cell indices by decreasing out-degree, and the incoming lists rewritten in them.
#[derive(Debug)]
pub(crate) struct DegreeOrder {
    /// The cell index of each vertex.
    pub(crate) cell_of: Vec<u32>,
    /// The vertex of each cell index.
    pub(crate) vertex_of: Vec<u32>,
    /// The graph's incoming lists, every id replaced by its cell index, at the lists' width and
    /// placement.
    pub(crate) targets: SmartArray,
}

impl DegreeOrder {
    /// The order of `graph`'s vertices by decreasing out-degree (equal degrees keep their
    /// vertex order), or `None` when the vertex ids do not fit 32 bits.
    pub(crate) fn of(graph: &Graph) -> Result<Option<DegreeOrder>> {
        let n = graph.vertices();
        if n as u64 >= u64::from(u32::MAX) {
            return Ok(None);
        }
        let offsets = graph.outgoing().offsets().to_vec();
        let degrees: Vec<u64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let (cell_of, vertex_of) = degree_ranks(&degrees);
        let incoming = graph.incoming().targets();
        let view = incoming.local();
        let options = ArrayOptions::new()
            .bits(incoming.bits())
            .placement(incoming.placement().clone())
            .runtime(Arc::clone(graph.runtime()));
        let targets = SmartArray::from_batches(incoming.len(), &options, |range, out| {
            // The range lies inside the lists (`from_batches` asks for its own length only),
            // and every id is a vertex.
            if view.unpack(range.start, out).is_ok() {
                for id in out.iter_mut() {
                    *id = u64::from(cell_of[*id as usize]);
                }
            }
        })?;
        Ok(Some(DegreeOrder {
            cell_of,
            vertex_of,
            targets,
        }))
    }
}

/// `(rank_of, vertex_of)`: every vertex's position by decreasing degree through a counting
/// sort (stable, so ties keep their vertex order), and the inverse, as ids of type `T` (the
/// caller has checked that `degrees.len()` ids fit `T`). Used by the cell order here and by the
/// relabelling (`crate::reorder`).
pub(crate) fn degree_ranks<T: Copy + Default + TryFrom<usize>>(
    degrees: &[u64],
) -> (Vec<T>, Vec<T>) {
    let n = degrees.len();
    let largest = degrees.iter().copied().max().unwrap_or(0);
    // Degrees are at most the edge count; one counter per distinct degree up to the largest
    // (bounded by `n` in a simple graph, by the edges in a multigraph).
    let mut starts = vec![0usize; largest as usize + 2];
    for &d in degrees {
        starts[(largest - d) as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let id = |x: usize| T::try_from(x).ok().expect("the caller checked the ids fit");
    let mut rank_of = vec![T::default(); n];
    let mut vertex_of = vec![T::default(); n];
    for (v, &d) in degrees.iter().enumerate() {
        let slot = &mut starts[(largest - d) as usize];
        rank_of[v] = id(*slot);
        vertex_of[*slot] = id(v);
        *slot += 1;
    }
    (rank_of, vertex_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_ranks_sort_by_decreasing_degree_keeping_ties_in_order() {
        let (cell_of, vertex_of) = degree_ranks::<u32>(&[1, 5, 0, 5, 2]);
        assert_eq!(vertex_of, vec![1, 3, 4, 0, 2]);
        assert_eq!(cell_of, vec![3, 0, 4, 1, 2]);
        assert_eq!(degree_ranks::<u32>(&[]), (vec![], vec![]));
        assert_eq!(degree_ranks::<u32>(&[0]), (vec![0], vec![0]));
    }
}
