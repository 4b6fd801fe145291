//! `Graph`: a CSR graph whose arrays are smart arrays (`begin`/`edge`, and `rbegin`/`redge` for
//! directed graphs; undirected graphs are stored once, each edge in both endpoints' lists), with
//! its memory report and the savings of the paper's variants.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use smartarrays::{Runtime, SmartArray};

use crate::degree_order::DegreeOrder;
use crate::error::{GraphError, Result};
use crate::options::{ArrayClass, GraphOptions, Variant};

/// One direction of a graph: `offsets[v]..offsets[v + 1]` indexes `targets`, the sorted
/// neighbour ids of `v`.
#[derive(Debug)]
pub struct Csr {
    pub(crate) offsets: SmartArray,
    pub(crate) targets: SmartArray,
    pub(crate) self_loops: u64,
}

impl Csr {
    /// The offsets (`begin` or `rbegin`), `vertices + 1` values.
    pub fn offsets(&self) -> &SmartArray {
        &self.offsets
    }

    /// The neighbour ids (`edge` or `redge`).
    pub fn targets(&self) -> &SmartArray {
        &self.targets
    }
}

/// A graph in compressed sparse row form on smart arrays.
///
/// # Example
/// ```
/// use smartarrays_graph::{build, EdgeList, GraphOptions, Variant};
/// let edges = EdgeList::from_pairs(4, true, vec![[0, 1], [0, 2], [2, 1], [3, 3]]);
/// let graph = build(edges, &GraphOptions::variant(Variant::VE)).unwrap();
/// assert_eq!(graph.vertices(), 4);
/// assert_eq!(graph.edges(), 4);
/// assert_eq!(graph.out_neighbors(0).unwrap(), vec![1, 2]);
/// assert_eq!(graph.in_neighbors(1).unwrap(), vec![0, 2]);
/// assert_eq!(graph.edge().bits(), 2); // ids 0..=3 need 2 bits
/// ```
#[derive(Debug)]
pub struct Graph {
    vertices: usize,
    directed: bool,
    forward: Csr,
    reverse: Option<Csr>,
    max_out_degree: u64,
    max_in_degree: u64,
    properties: ArrayClass,
    runtime: Arc<Runtime>,
    /// The degree order of the vertex cells, once prepared ([`Graph::prepare_degree_order`]).
    degree_order: OnceLock<DegreeOrder>,
}

impl Graph {
    pub(crate) fn from_parts(
        vertices: usize,
        directed: bool,
        forward: Csr,
        reverse: Option<Csr>,
        options: &GraphOptions,
        runtime: Arc<Runtime>,
    ) -> Result<Graph> {
        let max_out_degree = max_degree(&forward.offsets, &runtime);
        let max_in_degree = reverse
            .as_ref()
            .map_or(max_out_degree, |r| max_degree(&r.offsets, &runtime));
        Ok(Graph {
            vertices,
            directed,
            forward,
            reverse,
            max_out_degree,
            max_in_degree,
            properties: options.properties.clone(),
            runtime,
            degree_order: OnceLock::new(),
        })
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// Number of edges: forward entries for a directed graph; for an undirected graph each edge
    /// counts once (it is stored in both endpoints' lists; a self-loop is stored once).
    pub fn edges(&self) -> u64 {
        let entries = self.forward.targets.len() as u64;
        if self.directed {
            entries
        } else {
            (entries - self.forward.self_loops) / 2 + self.forward.self_loops
        }
    }

    /// Entries stored in `edge` (twice the edge count, less self-loops, when undirected).
    pub fn stored_entries(&self) -> u64 {
        self.forward.targets.len() as u64
    }

    /// Self-loops stored.
    pub fn self_loops(&self) -> u64 {
        self.forward.self_loops
    }

    /// Whether edges are directed.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Forward offsets.
    pub fn begin(&self) -> &SmartArray {
        &self.forward.offsets
    }

    /// Forward neighbour ids.
    pub fn edge(&self) -> &SmartArray {
        &self.forward.targets
    }

    /// Reverse offsets (the forward ones for an undirected graph).
    pub fn rbegin(&self) -> &SmartArray {
        &self.incoming().offsets
    }

    /// Reverse neighbour ids (the forward ones for an undirected graph).
    pub fn redge(&self) -> &SmartArray {
        &self.incoming().targets
    }

    /// The forward direction.
    pub fn outgoing(&self) -> &Csr {
        &self.forward
    }

    /// The reverse direction (the forward one for an undirected graph).
    pub fn incoming(&self) -> &Csr {
        self.reverse.as_ref().unwrap_or(&self.forward)
    }

    /// Largest out-degree.
    pub fn max_out_degree(&self) -> u64 {
        self.max_out_degree
    }

    /// Largest in-degree.
    pub fn max_in_degree(&self) -> u64 {
        self.max_in_degree
    }

    /// Placement and width for vertex properties and results.
    pub fn properties(&self) -> &ArrayClass {
        &self.properties
    }

    /// Changes the placement and width used for vertex properties and results.
    pub fn set_properties(&mut self, properties: ArrayClass) {
        self.properties = properties;
    }

    /// Runs the algorithms on another runtime (e.g. with another thread count).
    pub fn set_runtime(&mut self, runtime: Arc<Runtime>) {
        self.runtime = runtime;
    }

    /// The runtime the graph's arrays and algorithms use.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    fn check_vertex(&self, v: u64) -> Result<usize> {
        if v as usize >= self.vertices || v > usize::MAX as u64 {
            return Err(GraphError::InvalidArgument(format!(
                "vertex {v} does not exist (the graph has {} vertices)",
                self.vertices
            )));
        }
        Ok(v as usize)
    }

    /// Out-neighbours of `v`, sorted.
    pub fn out_neighbors(&self, v: u64) -> Result<Vec<u64>> {
        neighbors(&self.forward, self.check_vertex(v)?)
    }

    /// In-neighbours of `v`, sorted (the neighbours for an undirected graph).
    pub fn in_neighbors(&self, v: u64) -> Result<Vec<u64>> {
        neighbors(self.incoming(), self.check_vertex(v)?)
    }

    /// Out-degree of `v`.
    pub fn out_degree(&self, v: u64) -> Result<u64> {
        let v = self.check_vertex(v)?;
        Ok(self.forward.offsets.get(v + 1)? - self.forward.offsets.get(v)?)
    }

    /// In-degree of `v`.
    pub fn in_degree(&self, v: u64) -> Result<u64> {
        let v = self.check_vertex(v)?;
        let incoming = self.incoming();
        Ok(incoming.offsets.get(v + 1)? - incoming.offsets.get(v)?)
    }

    /// Every edge `(source, target)` in CSR order (each undirected edge appears twice).
    pub fn edge_iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let offsets = self.forward.offsets.local();
        let targets = self.forward.targets.iter();
        let mut vertex = 0usize;
        targets.enumerate().map(move |(position, target)| {
            while offsets.value(vertex + 1) <= position as u64 {
                vertex += 1;
            }
            (vertex as u64, target)
        })
    }

    /// Builds, once, the graph's degree order: a copy of the incoming lists in which every
    /// vertex id is replaced by the vertex's rank by decreasing out-degree (its cell index).
    /// Gauss-Seidel PageRank with [`CellOrder::Degree`](crate::CellOrder) gathers through it,
    /// so the most-read cells share cache lines; it builds it on first use when not prepared.
    /// Returns false, building nothing, when the ids do not fit 32 bits. The copy takes as many
    /// bytes as the incoming lists (it appears in [`Graph::arrays`] and the memory report as
    /// `degree-ordered in-lists`) until [`Graph::release_degree_order`].
    ///
    /// # Example
    /// ```
    /// use smartarrays_graph::{build, generate, GraphOptions};
    /// let graph = build(generate::kronecker(10, 8, 1, true)?, &GraphOptions::default())?;
    /// assert!(graph.prepare_degree_order()?);
    /// assert!(graph.arrays().iter().any(|(name, _)| *name == "degree-ordered in-lists"));
    /// # Ok::<(), smartarrays_graph::GraphError>(())
    /// ```
    pub fn prepare_degree_order(&self) -> Result<bool> {
        Ok(self.degree_order()?.is_some())
    }

    /// Whether the degree order is built (see [`Graph::prepare_degree_order`]).
    pub fn has_degree_order(&self) -> bool {
        self.degree_order.get().is_some()
    }

    /// Frees the degree order, if built.
    pub fn release_degree_order(&mut self) {
        self.degree_order = OnceLock::new();
    }

    /// The degree order, built on first call (`None` when ids do not fit 32 bits).
    pub(crate) fn degree_order(&self) -> Result<Option<&DegreeOrder>> {
        if let Some(order) = self.degree_order.get() {
            return Ok(Some(order));
        }
        let Some(order) = DegreeOrder::of(self)? else {
            return Ok(None);
        };
        // Two threads may build it at once; the first one stored is kept.
        let _ = self.degree_order.set(order);
        Ok(self.degree_order.get())
    }

    /// The graph's arrays with their sizes.
    pub fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        let mut arrays = vec![
            ("begin", &self.forward.offsets),
            ("edge", &self.forward.targets),
        ];
        if let Some(reverse) = &self.reverse {
            arrays.push(("rbegin", &reverse.offsets));
            arrays.push(("redge", &reverse.targets));
        }
        if let Some(order) = self.degree_order.get() {
            arrays.push(("degree-ordered in-lists", &order.targets));
        }
        arrays
    }

    /// Memory report: every array's length, width, bytes and placement; the total; and the
    /// sizes of the U, V and V+E variants of this graph (computed, not built), including the
    /// PageRank vertex properties (out-degrees and ranks) as the paper's formula does.
    pub fn memory_report(&self) -> MemoryReport {
        let arrays: Vec<ArrayMemory> = self
            .arrays()
            .into_iter()
            .map(|(name, array)| ArrayMemory {
                name: name.to_string(),
                elements: array.len() as u64,
                bits: array.bits(),
                packed_bytes: array.packed_bytes() as u64,
                mapped_bytes: array.memory_bytes() as u64,
                placement: array.placement().to_string(),
                replicas: array.replica_count(),
            })
            .collect();
        let packed_bytes = arrays.iter().map(|a| a.packed_bytes).sum();
        let mapped_bytes = arrays.iter().map(|a| a.mapped_bytes).sum();
        let variants = Variant::ALL
            .iter()
            .map(|&variant| {
                let options = GraphOptions::variant(variant);
                let graph_bytes = self.variant_graph_bytes(&options);
                let degree_bits = options.properties.width.resolve(self.max_out_degree, 32);
                let property_bytes = (self.vertices as u64 * (degree_bits as u64 + 64)).div_ceil(8);
                VariantMemory {
                    variant: variant.name().to_string(),
                    graph_bytes,
                    graph_bytes_per_edge: graph_bytes as f64 / self.edges().max(1) as f64,
                    with_pagerank_properties_bytes: graph_bytes + property_bytes,
                    with_pagerank_properties_bytes_per_edge: (graph_bytes + property_bytes) as f64
                        / self.edges().max(1) as f64,
                    saving_over_u: 0.0,
                    saving_over_u_with_properties: 0.0,
                }
            })
            .collect::<Vec<_>>();
        let (u_graph, u_all) = (
            variants[0].graph_bytes as f64,
            variants[0].with_pagerank_properties_bytes as f64,
        );
        let variants = variants
            .into_iter()
            .map(|mut v| {
                v.saving_over_u = 1.0 - v.graph_bytes as f64 / u_graph.max(1.0);
                v.saving_over_u_with_properties =
                    1.0 - v.with_pagerank_properties_bytes as f64 / u_all.max(1.0);
                v
            })
            .collect();
        MemoryReport {
            vertices: self.vertices as u64,
            edges: self.edges(),
            directed: self.directed,
            arrays,
            packed_bytes,
            mapped_bytes,
            bytes_per_edge: packed_bytes as f64 / self.edges().max(1) as f64,
            variants,
        }
    }

    fn variant_graph_bytes(&self, options: &GraphOptions) -> u64 {
        let directions = if self.directed { 2 } else { 1 };
        let entries = self.forward.targets.len() as u64;
        let offset_bits = options.offsets.width.resolve(entries, 64) as u64;
        let id_bits = options
            .edges
            .width
            .resolve(self.vertices.saturating_sub(1) as u64, 32) as u64;
        directions * ((self.vertices as u64 + 1) * offset_bits + entries * id_bits).div_ceil(8)
    }

    /// Checks the CSR invariants in parallel: offsets start at 0, never decrease and end at the
    /// entry count; every neighbour id is a vertex. Used on loads of untrusted files.
    pub(crate) fn validate(&self) -> std::result::Result<(), String> {
        for (name, csr) in [("begin/edge", &self.forward)]
            .into_iter()
            .chain(self.reverse.as_ref().map(|r| ("rbegin/redge", r)))
        {
            validate_csr(csr, self.vertices, &self.runtime)
                .map_err(|problem| format!("{name}: {problem}"))?;
        }
        if let Some(reverse) = &self.reverse {
            if reverse.targets.len() != self.forward.targets.len() {
                return Err(format!(
                    "{} reverse entries for {} forward entries",
                    reverse.targets.len(),
                    self.forward.targets.len()
                ));
            }
        }
        Ok(())
    }
}

fn neighbors(csr: &Csr, v: usize) -> Result<Vec<u64>> {
    let (start, end) = (
        csr.offsets.get(v)? as usize,
        csr.offsets.get(v + 1)? as usize,
    );
    let mut out = vec![0; end - start];
    csr.targets.unpack(start, &mut out)?;
    Ok(out)
}

fn max_degree(offsets: &SmartArray, runtime: &Runtime) -> u64 {
    let view = offsets.local();
    let vertices = offsets.len().saturating_sub(1);
    runtime
        .map_reduce(
            0..vertices,
            1 << 16,
            || (0u64, Vec::new()),
            |(largest, mut buffer): (u64, Vec<u64>), _, range| {
                buffer.resize(range.len() + 1, 0);
                if view.unpack(range.start, &mut buffer).is_err() {
                    return (largest, buffer);
                }
                (
                    buffer
                        .windows(2)
                        .map(|w| w[1].saturating_sub(w[0]))
                        .fold(largest, u64::max),
                    buffer,
                )
            },
            |a, b| (a.0.max(b.0), Vec::new()),
        )
        .0
}

fn validate_csr(csr: &Csr, vertices: usize, runtime: &Runtime) -> std::result::Result<(), String> {
    let offsets = &csr.offsets;
    let entries = csr.targets.len() as u64;
    if offsets.len() != vertices + 1 {
        return Err(format!("{} offsets for {vertices} vertices", offsets.len()));
    }
    let view = offsets.local();
    if view.value(0) != 0 || view.value(vertices) != entries {
        return Err(format!(
            "offsets run from {} to {} but there are {entries} entries",
            view.value(0),
            view.value(vertices)
        ));
    }
    let decreasing = runtime.map_reduce(
        0..vertices,
        1 << 16,
        || (None, Vec::new()),
        |(found, mut buffer): (Option<usize>, Vec<u64>), _, range| {
            buffer.resize(range.len() + 1, 0);
            let _ = view.unpack(range.start, &mut buffer);
            let here = buffer
                .windows(2)
                .position(|w| w[1] < w[0])
                .map(|i| range.start + i);
            (found.or(here), buffer)
        },
        |a, b| (a.0.or(b.0), Vec::new()),
    );
    if let Some(v) = decreasing.0 {
        return Err(format!("offsets decrease at vertex {v}"));
    }
    let largest = csr.targets.par_max().unwrap_or(0);
    if entries > 0 && largest >= vertices as u64 {
        return Err(format!(
            "neighbour id {largest} is not a vertex (there are {vertices})"
        ));
    }
    Ok(())
}

/// One array in a [`MemoryReport`].
#[derive(Clone, Debug, Serialize)]
pub struct ArrayMemory {
    /// `begin`, `edge`, `rbegin`, `redge`.
    pub name: String,
    /// Number of values.
    pub elements: u64,
    /// Bits per value.
    pub bits: u32,
    /// `ceil(elements * bits / 8)`, one copy.
    pub packed_bytes: u64,
    /// Bytes mapped, all replicas, whole pages.
    pub mapped_bytes: u64,
    /// Placement.
    pub placement: String,
    /// Number of copies.
    pub replicas: usize,
}

/// Size of the graph under one variant.
#[derive(Clone, Debug, Serialize)]
pub struct VariantMemory {
    /// `U`, `V`, `V+E`.
    pub variant: String,
    /// Bytes of `begin`, `edge` (and `rbegin`, `redge`).
    pub graph_bytes: u64,
    /// Graph bytes per edge.
    pub graph_bytes_per_edge: f64,
    /// Plus PageRank's vertex properties (out-degrees at the variant's width, 64-bit ranks).
    pub with_pagerank_properties_bytes: u64,
    /// The same per edge.
    pub with_pagerank_properties_bytes_per_edge: f64,
    /// `1 - graph_bytes / U's graph_bytes`.
    pub saving_over_u: f64,
    /// The same with properties (the paper's formula: about 21% for V+E on Twitter).
    pub saving_over_u_with_properties: f64,
}

/// Memory use of a graph, array by array.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryReport {
    /// Vertices.
    pub vertices: u64,
    /// Edges.
    pub edges: u64,
    /// Directed or not.
    pub directed: bool,
    /// The arrays.
    pub arrays: Vec<ArrayMemory>,
    /// Sum of the arrays' packed bytes.
    pub packed_bytes: u64,
    /// Sum of the arrays' mapped bytes.
    pub mapped_bytes: u64,
    /// Packed bytes per edge.
    pub bytes_per_edge: f64,
    /// U, V and V+E sizes of this graph.
    pub variants: Vec<VariantMemory>,
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<8} {:>14} {:>5} {:>14} {:>14} {:>12}  placement",
            "array", "elements", "bits", "packed B", "mapped B", "replicas"
        )?;
        for a in &self.arrays {
            writeln!(
                f,
                "{:<8} {:>14} {:>5} {:>14} {:>14} {:>12}  {}",
                a.name, a.elements, a.bits, a.packed_bytes, a.mapped_bytes, a.replicas, a.placement
            )?;
        }
        writeln!(
            f,
            "{:<8} {:>14} {:>5} {:>14} {:>14}   ({:.2} B/edge)",
            "total", "", "", self.packed_bytes, self.mapped_bytes, self.bytes_per_edge
        )?;
        writeln!(
            f,
            "variant   graph B      B/edge  saving   +pagerank props B  B/edge  saving"
        )?;
        for v in &self.variants {
            writeln!(
                f,
                "{:<6} {:>12} {:>9.2} {:>6.1}% {:>18} {:>8.2} {:>6.1}%",
                v.variant,
                v.graph_bytes,
                v.graph_bytes_per_edge,
                v.saving_over_u * 100.0,
                v.with_pagerank_properties_bytes,
                v.with_pagerank_properties_bytes_per_edge,
                v.saving_over_u_with_properties * 100.0
            )?;
        }
        Ok(())
    }
}

/// Resolved width for a property whose largest value is `largest` (natural width 32).
pub(crate) fn property_bits(properties: &ArrayClass, largest: u64) -> u32 {
    properties.width.resolve(largest, 32)
}
