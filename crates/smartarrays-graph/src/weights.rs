//! Edge weights: non-negative integers, one per stored forward entry of a graph (aligned with
//! `edge`: the weight of the `i`-th entry of `edge` is the `i`-th weight), held in a smart
//! array whose width follows the edge class (32 bits uncompressed, the fewest bits that hold
//! the largest weight when compressed). Weights come from a weighted edge list
//! ([`WeightedEdges`], read by [`crate::io::read_weighted_edges`] from `u v w` lines) through
//! [`build_weighted`], or are generated for an existing graph by [`EdgeWeights::generate`]:
//! integers in `1..=255` drawn from a seeded hash of the edge's endpoints, so an undirected edge
//! has the same weight in both of its lists and the result depends only on the seed.

use std::sync::Arc;

use smartarrays::SmartArray;

use crate::error::{GraphError, Result};
use crate::options::{array_options, ArrayClass, GraphOptions, Keep};
use crate::{build, EdgeList, Graph};

/// Largest generated weight (generated weights are in `1..=MAX_GENERATED_WEIGHT`).
pub const MAX_GENERATED_WEIGHT: u64 = 255;

/// An edge list with one weight per edge.
///
/// # Example
/// ```
/// use smartarrays_graph::WeightedEdges;
/// let mut edges = WeightedEdges::new(true);
/// edges.push(0, 1, 7);
/// edges.push(1, 2, 3);
/// assert_eq!(edges.len(), 2);
/// assert_eq!(edges.weights(), &[7, 3]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedEdges {
    edges: EdgeList,
    weights: Vec<u32>,
}

impl WeightedEdges {
    /// An empty list.
    pub fn new(directed: bool) -> WeightedEdges {
        WeightedEdges {
            edges: EdgeList::new(directed),
            weights: Vec::new(),
        }
    }

    /// A list from edges and their weights (one per edge, in order).
    pub fn from_parts(edges: EdgeList, weights: Vec<u32>) -> Result<WeightedEdges> {
        if edges.len() != weights.len() {
            return Err(GraphError::InvalidArgument(format!(
                "{} weights for {} edges",
                weights.len(),
                edges.len()
            )));
        }
        Ok(WeightedEdges { edges, weights })
    }

    /// Appends an edge with its weight.
    pub fn push(&mut self, source: u64, target: u64, weight: u32) {
        self.edges.push(source, target);
        self.weights.push(weight);
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// The edges.
    pub fn edges(&self) -> &EdgeList {
        &self.edges
    }

    /// Mutable access to the edges (to declare vertices or the direction).
    pub fn edges_mut(&mut self) -> &mut EdgeList {
        &mut self.edges
    }

    /// The weights, one per edge.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// The edges and the weights.
    pub fn into_parts(self) -> (EdgeList, Vec<u32>) {
        (self.edges, self.weights)
    }
}

/// The weights of a graph's forward entries, in `edge` order.
#[derive(Debug)]
pub struct EdgeWeights {
    weights: SmartArray,
    max: u64,
}

/// A 64-bit mix (the finaliser of SplitMix64): a bijection with good avalanche.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The generated weight of edge `(u, v)` (in `1..=255`); undirected edges use the ordered pair
/// so both directions agree.
pub fn generated_weight(seed: u64, u: u64, v: u64, directed: bool) -> u64 {
    let (a, b) = if directed || u <= v { (u, v) } else { (v, u) };
    1 + mix(mix(seed ^ mix(a)) ^ b) % MAX_GENERATED_WEIGHT
}

impl EdgeWeights {
    /// Wraps an array of weights aligned with `graph`'s `edge` array.
    pub fn from_array(graph: &Graph, weights: SmartArray) -> Result<EdgeWeights> {
        if weights.len() as u64 != graph.stored_entries() {
            return Err(GraphError::InvalidArgument(format!(
                "{} weights for {} stored edges",
                weights.len(),
                graph.stored_entries()
            )));
        }
        let max = weights.par_max().unwrap_or(0);
        Ok(EdgeWeights { weights, max })
    }

    /// Weights in `1..=255` for every edge of `graph`, from a seeded hash of its endpoints
    /// (the same for both directions of an undirected edge), stored with `class`'s placement
    /// and width.
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::{build, generate, EdgeWeights, GraphOptions};
    /// let graph = build(generate::kronecker(8, 8, 1, false)?, &GraphOptions::default())?;
    /// let weights = EdgeWeights::generate(&graph, 7, &GraphOptions::default().edges)?;
    /// assert_eq!(weights.len() as u64, graph.stored_entries());
    /// assert!(weights.max() <= 255);
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn generate(graph: &Graph, seed: u64, class: &ArrayClass) -> Result<EdgeWeights> {
        let entries = graph.stored_entries() as usize;
        let bits = class.width.resolve(MAX_GENERATED_WEIGHT, 32);
        let options = array_options(class, bits, graph.runtime());
        let offsets = graph.begin().local();
        let targets = graph.edge().local();
        let n = graph.vertices();
        let directed = graph.is_directed();
        let weights = SmartArray::from_batches(entries, &options, |range, out| {
            // The vertex whose list holds position range.start: the last with offset <= it.
            let (mut low, mut high) = (0usize, n);
            while low < high {
                let mid = (low + high).div_ceil(2);
                if offsets.value(mid) as usize <= range.start {
                    low = mid;
                } else {
                    high = mid - 1;
                }
            }
            let mut u = low;
            let mut ids = vec![0u64; range.len()];
            let _ = targets.unpack(range.start, &mut ids);
            for (k, (slot, &v)) in out.iter_mut().zip(&ids).enumerate() {
                let position = range.start + k;
                while offsets.value(u + 1) as usize <= position {
                    u += 1;
                }
                *slot = generated_weight(seed, u as u64, v, directed);
            }
        })?;
        // The largest weight drawn, not the largest possible one: the binary format records it
        // and checks it on load (a small graph rarely draws 255).
        let max = weights.par_max().unwrap_or(0);
        Ok(EdgeWeights { weights, max })
    }

    /// [`EdgeWeights::generate`] at the default edge width, in the placement of the graph's own
    /// arrays: what the bindings' "generate weights" calls give.
    pub fn generate_like_edges(graph: &Graph, seed: u64) -> Result<EdgeWeights> {
        let class = ArrayClass {
            placement: graph.properties().placement.clone(),
            width: crate::GraphOptions::default().edges.width,
        };
        EdgeWeights::generate(graph, seed, &class)
    }

    /// The weights array (aligned with the graph's `edge`).
    pub fn array(&self) -> &SmartArray {
        &self.weights
    }

    /// Number of weights.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Largest weight (0 when there are none).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Out-neighbours of `v` with their weights, in `edge` order.
    pub fn out_edges(&self, graph: &Graph, v: u64) -> Result<Vec<(u64, u64)>> {
        let neighbours = graph.out_neighbors(v)?;
        let start = graph.begin().get(v as usize)? as usize;
        let mut weights = vec![0; neighbours.len()];
        self.weights.unpack(start, &mut weights)?;
        Ok(neighbours.into_iter().zip(weights).collect())
    }

    /// Checks that these weights belong to `graph` (one per stored entry).
    pub(crate) fn check(&self, graph: &Graph) -> Result<()> {
        if self.weights.len() as u64 != graph.stored_entries() {
            return Err(GraphError::InvalidArgument(format!(
                "the weights ({}) do not belong to this graph ({} stored edges)",
                self.weights.len(),
                graph.stored_entries()
            )));
        }
        Ok(())
    }
}

/// Builds a graph and its weights from a weighted edge list, with `options`'s duplicate and
/// self-loop policies: when duplicates are dropped the smallest weight of the repeated edge is
/// kept (the one a shortest path would use); undirected edges carry their weight both ways.
/// Weights are stored with the edge class's placement and width.
///
/// # Example
/// ```
/// use smartarrays_graph::{build_weighted, GraphOptions, WeightedEdges};
/// let mut edges = WeightedEdges::new(false);
/// edges.push(0, 1, 4);
/// edges.push(1, 2, 9);
/// let (graph, weights) = build_weighted(edges, &GraphOptions::default())?;
/// assert_eq!(weights.out_edges(&graph, 1)?, vec![(0, 4), (2, 9)]);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn build_weighted(
    edges: WeightedEdges,
    options: &GraphOptions,
) -> Result<(Graph, EdgeWeights)> {
    let runtime = options.resolve_runtime()?;
    let (edges, weights) = edges.into_parts();
    let n = usize::try_from(edges.vertices()).map_err(|_| {
        GraphError::InvalidArgument(format!(
            "{} vertices do not fit in memory",
            edges.vertices()
        ))
    })?;
    let directed = edges.is_directed();
    let drop_loops = options.self_loops == Keep::Drop;
    let dedup = options.duplicates == Keep::Drop;
    // Counting sort of (target, weight) by source, both directions for undirected edges (a
    // self-loop once), exactly as the build lays out the forward lists.
    let mut counts = vec![0u64; n + 1];
    for (s, t) in edges.iter() {
        if s == t {
            if !drop_loops {
                counts[s as usize + 1] += 1;
            }
            continue;
        }
        counts[s as usize + 1] += 1;
        if !directed {
            counts[t as usize + 1] += 1;
        }
    }
    for v in 0..n {
        counts[v + 1] += counts[v];
    }
    let mut fill = counts.clone();
    let mut lists = vec![(0u64, 0u32); counts[n] as usize];
    for ((s, t), &w) in edges.iter().zip(&weights) {
        if s == t && drop_loops {
            continue;
        }
        lists[fill[s as usize] as usize] = (t, w);
        fill[s as usize] += 1;
        if !directed && s != t {
            lists[fill[t as usize] as usize] = (s, w);
            fill[t as usize] += 1;
        }
    }
    drop(fill);
    drop(weights);
    // Per-vertex sort by (target, weight), then the duplicate policy: the kept copy of a
    // repeated edge is the first, i.e. the lightest.
    let lists = &lists;
    let counts = &counts;
    let mut parts: Vec<(usize, Vec<u64>)> = runtime.map_reduce(
        0..n,
        crate::build::VERTEX_BATCH,
        Vec::new,
        |mut done, _, range| {
            let mut out = Vec::new();
            let mut list = Vec::new();
            for v in range.clone() {
                list.clear();
                list.extend_from_slice(&lists[counts[v] as usize..counts[v + 1] as usize]);
                list.sort_unstable();
                if dedup {
                    list.dedup_by_key(|e| e.0);
                }
                out.extend(list.iter().map(|e| u64::from(e.1)));
            }
            done.push((range.start, out));
            done
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    );
    parts.sort_by_key(|p| p.0);
    let aligned: Vec<u64> = parts.into_iter().flat_map(|p| p.1).collect();
    let graph = build(edges, &options.clone().runtime(Arc::clone(&runtime)))?;
    if aligned.len() as u64 != graph.stored_entries() {
        return Err(GraphError::InvalidArgument(format!(
            "{} weights laid out for {} stored edges",
            aligned.len(),
            graph.stored_entries()
        )));
    }
    let max = aligned.iter().copied().max().unwrap_or(0);
    let bits = options.edges.width.resolve(max, 32);
    let array = SmartArray::from_batches(
        aligned.len(),
        &array_options(&options.edges, bits, &runtime),
        |range, out| out.copy_from_slice(&aligned[range]),
    )?;
    Ok((
        graph,
        EdgeWeights {
            weights: array,
            max,
        },
    ))
}
