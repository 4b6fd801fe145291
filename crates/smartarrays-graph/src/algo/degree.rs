//! Degree centrality (paper §5.2): per vertex, the out-degree plus the in-degree, each the
//! difference of two consecutive `begin` / `rbegin` values; for an undirected graph, the
//! degree. The result is a smart array at the properties' placement and width.

use std::sync::Arc;

use smartarrays::{ArrayOptions, SmartArray};

use crate::access::{values, with_scratch};
use crate::error::Result;
use crate::graph::property_bits;
use crate::Graph;

/// Vertices per parallel batch (plain baseline; smart arrays use the core's batch).
pub(crate) const DEGREE_BATCH: usize = 1 << 16;

/// Degree of every vertex: out + in for a directed graph, the degree for an undirected one
/// (a stored self-loop counts once).
///
/// # Example
/// ```
/// use smartarrays_graph::{build, degree_centrality, EdgeList, GraphOptions};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [0, 2], [2, 1]]), &GraphOptions::default()).unwrap();
/// assert_eq!(degree_centrality(&graph).unwrap().to_vec(), vec![2, 2, 2]);
/// ```
pub fn degree_centrality(graph: &Graph) -> Result<SmartArray> {
    let largest = if graph.is_directed() { graph.max_out_degree() + graph.max_in_degree() } else { graph.max_out_degree() };
    let options = ArrayOptions::new()
        .placement(graph.properties().placement.clone())
        .bits(property_bits(graph.properties(), largest))
        .runtime(Arc::clone(graph.runtime()));
    let (begin, rbegin, directed) = (graph.begin(), graph.rbegin(), graph.is_directed());
    Ok(SmartArray::from_batches(graph.vertices(), &options, |range, out| {
        with_scratch(|first, second| {
            let forward = values(begin.local(), range.start..range.end + 1, first);
            if directed {
                let reverse = values(rbegin.local(), range.start..range.end + 1, second);
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = (forward[i + 1] - forward[i]) + (reverse[i + 1] - reverse[i]);
                }
            } else {
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = forward[i + 1] - forward[i];
                }
            }
        })
    })?)
}
