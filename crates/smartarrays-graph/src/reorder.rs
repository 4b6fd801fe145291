//! Vertex relabelling by decreasing degree: an explicit, exact transformation of a [`Graph`]
//! into a new graph whose vertex `0` has the largest degree, with the id map to translate
//! sources in and results out.
//!
//! On skewed graphs (Kronecker, social networks) a few hub vertices take most of the edges.
//! Giving them the smallest ids packs their per-vertex cells (levels, labels, ranks, bitmaps)
//! into a few cache lines that stay hot, which is what degree-based relabelling exploits; it is
//! studied by Balaji and Lucia ("When is Graph Reordering an Optimization?", IISWC 2018) and
//! used by the GAP Benchmark Suite (Beamer, Asanović and Patterson, "The GAP Benchmark Suite",
//! arXiv:1508.03619, 2015). Unlike the cell order of PageRank (`CellOrder::Degree`), which
//! moves cells only and keeps the sweep order, the relabelled graph is a graph of its own: every
//! kernel runs on it unchanged, and [`VertexIds`] maps its results back to the input's ids.
//!
//! The order: vertices by decreasing degree, where the degree is the out-degree plus the
//! in-degree for a directed graph and the number of stored list entries for an undirected one
//! (a kept self-loop counts once); equal degrees keep their input order, so the result is
//! deterministic. The rewrite runs on the graph's runtime: degrees and lists in parallel
//! batches, the ranking as one counting sort (linear in the vertices). The new graph keeps
//! every array's width and placement and the properties class, and its lists stay sorted.

use std::sync::Arc;

use smartarrays::{ArrayOptions, ArrayView, SmartArray};

use crate::error::{GraphError, Result};
use crate::graph::{Csr, Graph};
use crate::options::GraphOptions;
use crate::weights::EdgeWeights;

/// Vertices per parallel batch of the degree count.
const VERTEX_BATCH: usize = 1 << 14;

/// A graph relabelled by [`reorder_by_degree`], with its id map.
#[derive(Debug)]
pub struct Reordered {
    /// The relabelled graph: vertex `ids.to_new(v)` is the input's vertex `v`.
    pub graph: Graph,
    /// The map between the input's ids ("original") and the relabelled graph's ("new").
    pub ids: VertexIds,
}

/// A bijection between a graph's original vertex ids and the ids of its relabelled copy.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, EdgeList, GraphOptions, VertexIds};
/// // A star around vertex 3: it gets id 0, the leaves keep their order.
/// let edges = EdgeList::from_pairs(4, false, vec![[3, 0], [3, 1], [3, 2]]);
/// let graph = build(edges, &GraphOptions::default())?;
/// let ids = VertexIds::by_degree(&graph)?;
/// assert_eq!(ids.to_new(3)?, 0);
/// assert_eq!(ids.to_original(1)?, 0);
/// assert_eq!(ids.results_to_original(&[30, 0, 10, 20])?, vec![0, 10, 20, 30]);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexIds {
    /// The new id of every original vertex.
    new_of: Vec<u64>,
    /// The original id of every new vertex.
    original_of: Vec<u64>,
}

impl VertexIds {
    /// The order of `graph`'s vertices by decreasing degree (see the module documentation for
    /// which degree), ties by original id.
    pub fn by_degree(graph: &Graph) -> Result<VertexIds> {
        Ok(VertexIds::from_degrees(&degrees(graph)))
    }

    /// The map that sorts vertices by decreasing `degrees[v]`, ties by `v`.
    fn from_degrees(degrees: &[u64]) -> VertexIds {
        let (new_of, original_of) = crate::degree_order::degree_ranks::<u64>(degrees);
        VertexIds {
            new_of,
            original_of,
        }
    }

    /// Builds a map from the new id of every original vertex (`new_ids[v]` is `v`'s new id);
    /// refuses anything that is not a permutation of `0..new_ids.len()`.
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::VertexIds;
    /// let ids = VertexIds::from_new_ids(vec![2, 0, 1])?;
    /// assert_eq!(ids.original_ids(), &[1, 2, 0]);
    /// assert!(VertexIds::from_new_ids(vec![0, 0]).is_err());
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn from_new_ids(new_ids: Vec<u64>) -> Result<VertexIds> {
        let n = new_ids.len();
        let mut original_of = vec![u64::MAX; n];
        for (v, &new) in new_ids.iter().enumerate() {
            if new >= n as u64 || original_of[new as usize] != u64::MAX {
                return Err(GraphError::InvalidArgument(format!(
                    "new id {new} of vertex {v} is {} (ids must be a permutation of 0..{n})",
                    if new >= n as u64 {
                        "out of range"
                    } else {
                        "given twice"
                    }
                )));
            }
            original_of[new as usize] = v as u64;
        }
        Ok(VertexIds {
            new_of: new_ids,
            original_of,
        })
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.new_of.len()
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.new_of.is_empty()
    }

    /// The new id of every original vertex (indexed by original id).
    pub fn new_ids(&self) -> &[u64] {
        &self.new_of
    }

    /// The original id of every new vertex (indexed by new id).
    pub fn original_ids(&self) -> &[u64] {
        &self.original_of
    }

    /// The new id of original vertex `original`.
    pub fn to_new(&self, original: u64) -> Result<u64> {
        lookup(&self.new_of, original, "original")
    }

    /// The original id of new vertex `new`.
    pub fn to_original(&self, new: u64) -> Result<u64> {
        lookup(&self.original_of, new, "new")
    }

    /// A per-vertex array of the relabelled graph (indexed by new id) in original order:
    /// `result[v] = values[to_new(v)]`.
    pub fn results_to_original<T: Copy>(&self, values: &[T]) -> Result<Vec<T>> {
        self.check_len(values.len())?;
        Ok(self
            .new_of
            .iter()
            .map(|&new| values[new as usize])
            .collect())
    }

    /// A per-vertex array in original order (indexed by original id) in new order:
    /// `result[w] = values[to_original(w)]` (e.g. a personalisation vector).
    pub fn results_to_new<T: Copy>(&self, values: &[T]) -> Result<Vec<T>> {
        self.check_len(values.len())?;
        Ok(self
            .original_of
            .iter()
            .map(|&original| values[original as usize])
            .collect())
    }

    /// A per-vertex array of vertex ids of the relabelled graph (BFS parents, say) in original
    /// order and original ids: `result[v] = to_original(values[to_new(v)])`, where `marker`
    /// (e.g. the "unreached" value) passes through unchanged.
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::VertexIds;
    /// let ids = VertexIds::from_new_ids(vec![1, 0, 2])?; // vertices 0 and 1 swap ids
    /// // Parents in new ids: new 0 (original 1) is the root, new 1 hangs below it, new 2 is unreached.
    /// let parents = ids.ids_to_original(&[0, 0, u64::MAX], Some(u64::MAX))?;
    /// assert_eq!(parents, vec![1, 1, u64::MAX]);
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn ids_to_original(&self, values: &[u64], marker: Option<u64>) -> Result<Vec<u64>> {
        self.check_len(values.len())?;
        self.new_of
            .iter()
            .map(|&new| {
                let value = values[new as usize];
                if Some(value) == marker {
                    Ok(value)
                } else {
                    self.to_original(value)
                }
            })
            .collect()
    }

    /// BFS parents of the relabelled graph (`parents` of a [`crate::BfsResult`], indexed by new
    /// id, all ones at the array's width where unreached) in original order and original ids,
    /// `None` where unreached: the name the C, Python and Java bindings use for this
    /// translation ([`VertexIds::ids_to_original`] with the unreached marker).
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::{bfs, build, generate, reorder_by_degree, GraphOptions};
    /// let graph = build(generate::kronecker(7, 4, 1, false)?, &GraphOptions::default())?;
    /// let reordered = reorder_by_degree(&graph)?;
    /// let result = bfs(&reordered.graph, reordered.ids.to_new(0)?)?;
    /// let parents = reordered.ids.parents_to_original(&result.parents)?;
    /// assert_eq!(parents[0], Some(0)); // the source is its own parent
    /// let expected = bfs(&graph, 0)?;
    /// for (v, parent) in parents.iter().enumerate() {
    ///     // Trees may differ; reached vertices and levels do not.
    ///     assert_eq!(parent.is_some(), expected.parent(v as u64).is_some());
    /// }
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn parents_to_original(&self, parents: &SmartArray) -> Result<Vec<Option<u64>>> {
        let unreached = smartarrays::codec::max_value(parents.bits());
        let mapped = self.ids_to_original(&parents.to_vec(), Some(unreached))?;
        Ok(mapped
            .into_iter()
            .map(|parent| (parent != unreached).then_some(parent))
            .collect())
    }

    /// Component labels of the relabelled graph (indexed by new id, any label below the vertex
    /// count) as labels in original order whose value is the smallest original id of the
    /// component: the contract of [`crate::connected_components`] on the input graph.
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::VertexIds;
    /// let ids = VertexIds::from_new_ids(vec![2, 0, 1])?;
    /// // New vertices 0 and 2 (originals 1 and 0) share a component; new 1 (original 2) is alone.
    /// assert_eq!(ids.labels_to_original(&[0, 1, 0])?, vec![0, 0, 2]);
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn labels_to_original(&self, labels: &[u64]) -> Result<Vec<u64>> {
        self.check_len(labels.len())?;
        let n = self.len();
        let mut smallest = vec![u64::MAX; n];
        // Original ids in increasing order: the first one seen of a label is its smallest.
        for (original, &new) in self.new_of.iter().enumerate() {
            let label = labels[new as usize];
            let Some(slot) = usize::try_from(label)
                .ok()
                .and_then(|l| smallest.get_mut(l))
            else {
                return Err(GraphError::InvalidArgument(format!(
                    "label {label} is not a vertex id (there are {n} vertices)"
                )));
            };
            if *slot == u64::MAX {
                *slot = original as u64;
            }
        }
        Ok(self
            .new_of
            .iter()
            .map(|&new| smallest[labels[new as usize] as usize])
            .collect())
    }

    fn check_len(&self, len: usize) -> Result<()> {
        if len != self.len() {
            return Err(GraphError::InvalidArgument(format!(
                "{len} values for {} vertices",
                self.len()
            )));
        }
        Ok(())
    }
}

fn lookup(map: &[u64], id: u64, kind: &str) -> Result<u64> {
    usize::try_from(id)
        .ok()
        .and_then(|i| map.get(i).copied())
        .ok_or_else(|| {
            GraphError::InvalidArgument(format!(
                "{kind} vertex {id} does not exist (the graph has {} vertices)",
                map.len()
            ))
        })
}

/// Relabels `graph` by decreasing degree (out + in for a directed graph, ties by id): the new
/// graph has the same vertices, edges, self-loops and duplicates, every array at its input
/// width and placement, the same properties class and runtime. Run the kernels on
/// `graph`, pass sources through [`VertexIds::to_new`] and bring results back with
/// [`VertexIds::results_to_original`] (values), [`VertexIds::ids_to_original`] (ids, such as
/// BFS parents) or [`VertexIds::labels_to_original`] (component labels).
///
/// Weighted graphs: use [`reorder_by_degree_weighted`], which carries each weight with its
/// edge. Generated weights ([`crate::EdgeWeights::generate`]) are a hash of the endpoints' ids,
/// so generating them again on the relabelled graph gives other weights: generate them on the
/// input graph and carry them.
///
/// # Example
/// ```
/// use smartarrays_graph::{bfs, build, generate, reorder_by_degree, GraphOptions, Variant};
/// let graph = build(generate::kronecker(8, 8, 1, false)?, &GraphOptions::variant(Variant::VE))?;
/// let reordered = reorder_by_degree(&graph)?;
/// assert_eq!(reordered.graph.edges(), graph.edges());
/// assert_eq!(reordered.graph.edge().bits(), graph.edge().bits());
/// // BFS from input vertex 0, levels in input ids.
/// let result = bfs(&reordered.graph, reordered.ids.to_new(0)?)?;
/// let levels = reordered.ids.results_to_original(&result.levels.to_vec())?;
/// assert_eq!(levels, bfs(&graph, 0)?.levels.to_vec());
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn reorder_by_degree(graph: &Graph) -> Result<Reordered> {
    let ids = VertexIds::by_degree(graph)?;
    let graph = relabel(graph, &ids)?;
    Ok(Reordered { graph, ids })
}

/// [`reorder_by_degree`] for a weighted graph: the weights are rewritten with their edges (at
/// their width and placement), so a weight belongs to the same edge before and after.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, generate, reorder_by_degree_weighted, sssp, EdgeWeights, GraphOptions, SsspOptions};
/// let graph = build(generate::kronecker(8, 8, 1, false)?, &GraphOptions::default())?;
/// let weights = EdgeWeights::generate(&graph, 7, &GraphOptions::default().edges)?;
/// let (reordered, new_weights) = reorder_by_degree_weighted(&graph, &weights)?;
/// let source = reordered.ids.to_new(0)?;
/// let result = sssp(&reordered.graph, &new_weights, source, &SsspOptions::default(), |_, _| {})?;
/// let distances = reordered.ids.results_to_original(&result.distances.to_vec())?;
/// let expected = sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {})?;
/// assert_eq!(distances, expected.distances.to_vec());
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn reorder_by_degree_weighted(
    graph: &Graph,
    weights: &EdgeWeights,
) -> Result<(Reordered, EdgeWeights)> {
    weights.check(graph)?;
    let reordered = reorder_by_degree(graph)?;
    let new_weights = relabel_weights(graph, weights, &reordered)?;
    Ok((reordered, new_weights))
}

/// Relabels `graph` with `ids` (see [`reorder_by_degree`]); `ids` must cover its vertices.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, relabel, EdgeList, GraphOptions, VertexIds};
/// let graph = build(EdgeList::from_pairs(3, true, vec![[0, 1], [1, 2]]), &GraphOptions::default())?;
/// let ids = VertexIds::from_new_ids(vec![2, 1, 0])?; // reverse the ids
/// let relabelled = relabel(&graph, &ids)?;
/// assert_eq!(relabelled.out_neighbors(2)?, vec![1]);
/// assert_eq!(relabelled.out_neighbors(1)?, vec![0]);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn relabel(graph: &Graph, ids: &VertexIds) -> Result<Graph> {
    if ids.len() != graph.vertices() {
        return Err(GraphError::InvalidArgument(format!(
            "an id map of {} vertices for a graph of {}",
            ids.len(),
            graph.vertices()
        )));
    }
    let runtime = Arc::clone(graph.runtime());
    let forward = relabel_csr(graph.outgoing(), ids, &runtime)?;
    let reverse = if graph.is_directed() {
        Some(relabel_csr(graph.incoming(), ids, &runtime)?)
    } else {
        None
    };
    let options = GraphOptions {
        properties: graph.properties().clone(),
        ..GraphOptions::default()
    };
    Graph::from_parts(
        graph.vertices(),
        graph.is_directed(),
        forward,
        reverse,
        &options,
        runtime,
    )
}

/// Degrees by which the vertices are ordered: out + in when directed, list length otherwise.
fn degrees(graph: &Graph) -> Vec<u64> {
    let n = graph.vertices();
    let mut degrees = vec![0u64; n];
    let out = graph.begin().local();
    let incoming = graph.is_directed().then(|| graph.rbegin().local());
    graph.runtime().map_reduce_mut(
        &mut degrees,
        VERTEX_BATCH,
        || (),
        |(), _, range, piece| {
            for (slot, v) in piece.iter_mut().zip(range) {
                *slot = out.value(v + 1) - out.value(v);
                if let Some(incoming) = &incoming {
                    *slot += incoming.value(v + 1) - incoming.value(v);
                }
            }
        },
        |(), ()| (),
    );
    degrees
}

/// The new offsets of one direction: the list of new vertex `w` is the list of
/// `to_original(w)`.
fn new_offsets(offsets: &ArrayView<'_>, ids: &VertexIds) -> Vec<u64> {
    let mut out = Vec::with_capacity(ids.len() + 1);
    let mut running = 0u64;
    out.push(0);
    for &original in &ids.original_of {
        let v = original as usize;
        running += offsets.value(v + 1) - offsets.value(v);
        out.push(running);
    }
    out
}

/// Options of an array like `like`: its width and placement, on `runtime`.
fn options_like(like: &SmartArray, runtime: &Arc<smartarrays::Runtime>) -> ArrayOptions {
    ArrayOptions::new()
        .bits(like.bits())
        .placement(like.placement().clone())
        .runtime(Arc::clone(runtime))
}

/// Lists longer than this are rewritten once, before the array is filled, rather than in
/// every fill step they overlap (the fill asks for 1024 values at a time, and a hub's list
/// can hold millions).
const LONG_LIST: usize = 1024;

/// Scratch buffers of a list rewrite.
#[derive(Default)]
struct Scratch {
    ids: Vec<u64>,
    values: Vec<u64>,
    pairs: Vec<(u64, u64)>,
}

/// An array of `len` values laid out by the new lists (`offsets` in new ids), like `like`
/// (width, placement): `list(w, scratch, out)` writes new vertex `w`'s values to `out`.
fn rewrite_lists(
    like: &SmartArray,
    offsets: &[u64],
    runtime: &Arc<smartarrays::Runtime>,
    list: impl Fn(usize, &mut Scratch, &mut Vec<u64>) + Sync,
) -> Result<SmartArray> {
    let n = offsets.len() - 1;
    let long: Vec<usize> = (0..n)
        .filter(|&w| (offsets[w + 1] - offsets[w]) as usize > LONG_LIST)
        .collect();
    let mut rewritten: Vec<(usize, Vec<u64>)> = runtime.map_reduce(
        0..long.len(),
        1,
        Vec::new,
        |mut done, _, range| {
            let mut scratch = Scratch::default();
            for &w in &long[range] {
                let mut out = Vec::new();
                list(w, &mut scratch, &mut out);
                done.push((w, out));
            }
            done
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    );
    rewritten.sort_unstable_by_key(|entry| entry.0);
    let array =
        SmartArray::from_batches(like.len(), &options_like(like, runtime), |range, out| {
            let mut scratch = Scratch::default();
            let mut values = Vec::new();
            // The new vertex whose list holds `range.start`: the last one starting at or before it.
            let mut w = offsets[..n]
                .partition_point(|&o| o as usize <= range.start)
                .saturating_sub(1);
            while w < n && (offsets[w] as usize) < range.end {
                let (start, end) = (offsets[w] as usize, offsets[w + 1] as usize);
                if end - start > LONG_LIST {
                    if let Ok(at) = rewritten.binary_search_by_key(&w, |entry| entry.0) {
                        copy_overlap(&range, start, &rewritten[at].1, out);
                    }
                } else if end > start {
                    values.clear();
                    list(w, &mut scratch, &mut values);
                    copy_overlap(&range, start, &values, out);
                }
                w += 1;
            }
        })?;
    Ok(array)
}

/// The lists of one direction in new ids, each sorted, at the input's widths and placements.
fn relabel_csr(csr: &Csr, ids: &VertexIds, runtime: &Arc<smartarrays::Runtime>) -> Result<Csr> {
    let old_offsets = csr.offsets().local();
    let old_targets = csr.targets().local();
    let offsets = new_offsets(&old_offsets, ids);
    let new_offsets = SmartArray::from_batches(
        offsets.len(),
        &options_like(csr.offsets(), runtime),
        |r, out| out.copy_from_slice(&offsets[r]),
    )?;
    let narrow = narrow_new_ids(ids);
    let targets = rewrite_lists(csr.targets(), &offsets, runtime, |w, _, out| {
        let v = ids.original_of[w] as usize;
        let (start, end) = (old_offsets.value(v), old_offsets.value(v + 1));
        out.resize((end - start) as usize, 0);
        // Inside the array: the old offsets are those of a valid graph.
        let _ = old_targets.unpack(start as usize, out);
        match &narrow {
            Some(new_of) => out
                .iter_mut()
                .for_each(|id| *id = u64::from(new_of[*id as usize])),
            None => out.iter_mut().for_each(|id| *id = ids.new_of[*id as usize]),
        }
        out.sort_unstable();
    })?;
    Ok(Csr {
        offsets: new_offsets,
        targets,
        self_loops: csr.self_loops,
    })
}

/// The new id of every original vertex in 32 bits, when every id fits: the renaming reads the
/// map at random, and in 32 bits it takes half the cache.
fn narrow_new_ids(ids: &VertexIds) -> Option<Vec<u32>> {
    u32::try_from(ids.len())
        .is_ok()
        .then(|| ids.new_of.iter().map(|&id| id as u32).collect())
}

/// Copies the part of `list` (whose first entry is at position `start`) inside `range` into
/// `out` (which holds `range`).
fn copy_overlap(range: &std::ops::Range<usize>, start: usize, list: &[u64], out: &mut [u64]) {
    let from = range.start.max(start);
    let to = range.end.min(start + list.len());
    if from < to {
        out[from - range.start..to - range.start].copy_from_slice(&list[from - start..to - start]);
    }
}

/// The weights of `graph`'s forward entries in the order of `reordered`'s forward entries:
/// every list sorted by (new target, weight), as the relabelled targets are.
fn relabel_weights(
    graph: &Graph,
    weights: &EdgeWeights,
    reordered: &Reordered,
) -> Result<EdgeWeights> {
    let ids = &reordered.ids;
    let offsets = reordered.graph.begin().to_vec();
    let old_offsets = graph.begin().local();
    let old_targets = graph.edge().local();
    let old_weights = weights.array().local();
    // With 32-bit new ids and weights of at most 32 bits, a (new target, weight) pair sorts as
    // one u64 key (target in the high half), in the same order as the pair.
    let narrow = narrow_new_ids(ids).filter(|_| weights.array().bits() <= 32);
    let array = rewrite_lists(
        weights.array(),
        &offsets,
        graph.runtime(),
        |w, scratch, out| {
            let v = ids.original_of[w] as usize;
            let (start, end) = (
                old_offsets.value(v) as usize,
                old_offsets.value(v + 1) as usize,
            );
            scratch.ids.resize(end - start, 0);
            scratch.values.resize(end - start, 0);
            let _ = old_targets.unpack(start, &mut scratch.ids);
            let _ = old_weights.unpack(start, &mut scratch.values);
            if let Some(new_of) = &narrow {
                for (key, &weight) in scratch.ids.iter_mut().zip(&scratch.values) {
                    *key = u64::from(new_of[*key as usize]) << 32 | weight;
                }
                scratch.ids.sort_unstable();
                out.extend(scratch.ids.iter().map(|&key| key & u64::from(u32::MAX)));
                return;
            }
            scratch.pairs.clear();
            scratch.pairs.extend(
                scratch
                    .ids
                    .iter()
                    .zip(&scratch.values)
                    .map(|(&t, &weight)| (ids.new_of[t as usize], weight)),
            );
            scratch.pairs.sort_unstable();
            out.extend(scratch.pairs.iter().map(|p| p.1));
        },
    )?;
    EdgeWeights::from_array(&reordered.graph, array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_order_is_decreasing_with_ties_by_id() {
        let ids = VertexIds::from_degrees(&[1, 5, 0, 5, 2]);
        assert_eq!(ids.original_ids(), &[1, 3, 4, 0, 2]);
        assert_eq!(ids.new_ids(), &[3, 0, 4, 1, 2]);
        assert!(VertexIds::from_degrees(&[]).is_empty());
        assert_eq!(VertexIds::from_degrees(&[0]).new_ids(), &[0]);
    }

    #[test]
    fn bad_maps_and_lengths_are_errors() {
        assert!(VertexIds::from_new_ids(vec![0, 2]).is_err());
        let ids = VertexIds::from_new_ids(vec![1, 0]).unwrap();
        assert!(ids.to_new(2).is_err());
        assert!(ids.to_original(u64::MAX).is_err());
        assert!(ids.results_to_original(&[1]).is_err());
        assert!(ids.ids_to_original(&[5, 0], None).is_err());
        assert!(ids.labels_to_original(&[0, 7]).is_err());
    }
}
