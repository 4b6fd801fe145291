//! Degree centrality (paper §5.2): per vertex, the out-degree plus the in-degree, each the
//! difference of two consecutive `begin` / `rbegin` values; for an undirected graph, the
//! degree. [`degree_centrality`] returns a new smart array at the properties' placement and
//! width; [`degree_centrality_into`] rewrites an existing one in place (no allocation, so
//! repeated runs touch no fresh pages).

use std::ops::Range;
use std::sync::Arc;

use smartarrays::codec::{self, Combine};
use smartarrays::{ArrayOptions, SmartArray};

use crate::error::{GraphError, Result};
use crate::graph::property_bits;
use crate::Graph;

/// The largest degree centrality value of a graph (an upper bound: max out + max in).
fn largest_degree(graph: &Graph) -> u64 {
    if graph.is_directed() {
        graph.max_out_degree() + graph.max_in_degree()
    } else {
        graph.max_out_degree()
    }
}

/// Writes the degrees of the vertices `range` into `out`: differences of neighbouring offsets,
/// decoded and subtracted in one pass over both directions by the core's kernels (64-bit offsets
/// are read in place; packed ones need no decode buffer).
fn produce(graph: &Graph, range: Range<usize>, out: &mut [u64]) {
    let forward = graph.begin().local();
    // The range lies inside the graph's vertices, so `range.end` is a valid offset index.
    let _ = if graph.is_directed() {
        forward.unpack_paired_differences(graph.rbegin().local(), range.start, out)
    } else {
        forward.unpack_differences(range.start, out, Combine::Overwrite)
    };
}

/// Degree of every vertex: out + in for a directed graph, the degree for an undirected one
/// (a stored self-loop counts once). Allocates the result; to run it repeatedly, keep that
/// array and call [`degree_centrality_into`].
///
/// # Example
/// ```
/// use smartarrays_graph::{build, degree_centrality, EdgeList, GraphOptions};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [0, 2], [2, 1]]), &GraphOptions::default()).unwrap();
/// assert_eq!(degree_centrality(&graph).unwrap().to_vec(), vec![2, 2, 2]);
/// ```
pub fn degree_centrality(graph: &Graph) -> Result<SmartArray> {
    let options = ArrayOptions::new()
        .placement(graph.properties().placement.clone())
        .bits(property_bits(graph.properties(), largest_degree(graph)))
        .runtime(Arc::clone(graph.runtime()));
    Ok(SmartArray::from_batches(
        graph.vertices(),
        &options,
        |range, out| produce(graph, range, out),
    )?)
}

/// Degree centrality written into `out` in place, in parallel on the graph's runtime (each
/// replica of `out` is updated). `out` keeps its placement and width; it must have one value
/// per vertex and at least the bits of the largest possible degree (max out-degree plus max
/// in-degree), else [`GraphError::OutputMismatch`] is returned and `out` is left unchanged.
/// An array returned by [`degree_centrality`] for the same graph always fits.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, degree_centrality, degree_centrality_into, EdgeList, GraphError, GraphOptions};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [0, 2], [2, 1]]), &GraphOptions::default()).unwrap();
/// let mut degrees = degree_centrality(&graph).unwrap();
/// for _ in 0..3 {
///     degree_centrality_into(&graph, &mut degrees).unwrap(); // reuses the array's memory
/// }
/// assert_eq!(degrees.to_vec(), vec![2, 2, 2]);
///
/// // Max out-degree 2 + max in-degree 2 = 4 needs 3 bits; a 1-bit array is refused.
/// let mut narrow = smartarrays::SmartArray::from_fn(3, &smartarrays::ArrayOptions::new().bits(1), |_| 0).unwrap();
/// assert!(matches!(degree_centrality_into(&graph, &mut narrow), Err(GraphError::OutputMismatch { needed_bits: 3, bits: 1, .. })));
/// ```
pub fn degree_centrality_into(graph: &Graph, out: &mut SmartArray) -> Result<()> {
    let needed_bits = codec::bits_needed(largest_degree(graph));
    if out.len() != graph.vertices() || out.bits() < needed_bits {
        return Err(GraphError::OutputMismatch {
            expected_len: graph.vertices(),
            len: out.len(),
            needed_bits,
            bits: out.bits(),
        });
    }
    Ok(out.rewrite_batches(|range, values| produce(graph, range, values))?)
}
