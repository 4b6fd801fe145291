//! `smartarrays.Graph`: the graph crate's CSR graphs (offsets and neighbour ids in smart arrays)
//! made from numpy edge arrays, scipy sparse matrices, files or generators, and its algorithms
//! returning numpy arrays, so that a networkx or scipy user changes one line. The algorithms run
//! with the GIL released; their vocabulary (levels, parents, labels, ranks, scores) is the Rust
//! crate's and the CLI's.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use smartarrays::{F64Array, SmartArray};
use smartarrays_graph::algo::pagerank::{
    pagerank, pagerank_gauss_seidel, Dangling, Iteration, Precision,
};
use smartarrays_graph::io::{load_graph_with_weights, save_graph_with_weights, TextOptions};
use smartarrays_graph::{
    bc, bfs, build, build_from_csr, build_weighted, connected_components, generate, sssp, tc,
    BcOptions, BcSources, CellOrder, EdgeList, EdgeWeights, Graph, GraphError, GraphOptions,
    PageRankOptions, SsspOptions, TcOrder, WeightedEdges,
};
use smartarrays_graph::{reorder_by_degree, reorder_by_degree_weighted};

use crate::buffer::{copy_u64_words, new_numpy_u64};
use crate::graph_reorder::PyVertexIds;
use crate::{input, runtime};

/// The Python exception for a graph error: OSError for files, the core's mapping for array
/// errors, ValueError for the rest (bad input: an unknown vertex, a malformed line), with the
/// crate's message unchanged.
fn to_py(error: GraphError) -> PyErr {
    let message = error.to_string();
    match error {
        GraphError::Io { .. } => PyOSError::new_err(message),
        GraphError::Array(inner) => crate::errors::to_py(inner),
        _ => PyValueError::new_err(message),
    }
}

/// The unwinding payload that stops a run whose Python progress callback raised.
struct Stopped;

/// A Python progress callback around a graph run. The run goes on without the GIL; the library
/// calls its progress closure on the calling thread between steps, where the GIL is taken
/// again for the call. When the callable raises, the exception is kept and the run is stopped
/// by unwinding with a private payload (`resume_unwind`, which runs no panic hook) out of the
/// library's step loop to [`Callback::run`], which raises the kept exception. The kernels hold
/// no locks and hand out nothing while a step is between calls, so stopping there leaves
/// nothing half-built behind (their partial results are dropped).
struct Callback {
    callable: Option<Py<PyAny>>,
}

impl Callback {
    fn new(callable: Option<Py<PyAny>>) -> Callback {
        Callback { callable }
    }

    /// Runs `task` without the GIL, giving it a `report(arguments)` closure that calls the
    /// callable (if any) with `arguments`; the task's error, or the callable's exception, is
    /// raised.
    fn run<T: Send, A: for<'py> pyo3::call::PyCallArgs<'py> + Send>(
        self,
        py: Python<'_>,
        task: impl FnOnce(&mut dyn FnMut(A)) -> Result<T, GraphError> + Send,
    ) -> PyResult<T> {
        let mut raised: Option<PyErr> = None;
        let outcome = py.detach(|| {
            let raised = &mut raised;
            let callable = &self.callable;
            let mut report = |arguments: A| {
                let Some(callable) = callable else { return };
                let failed = Python::attach(|py| callable.call1(py, arguments).err());
                if let Some(error) = failed {
                    *raised = Some(error);
                    std::panic::resume_unwind(Box::new(Stopped));
                }
            };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| task(&mut report)))
        });
        match outcome {
            Ok(result) => result.map_err(to_py),
            Err(payload) if payload.is::<Stopped>() => Err(raised.unwrap_or_else(|| {
                PyRuntimeError::new_err("the progress callback stopped the run")
            })),
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}

/// A directed or undirected graph in compressed sparse row form, its arrays in smart arrays.
#[pyclass(name = "Graph", module = "smartarrays", frozen)]
pub struct PyGraph {
    graph: Arc<Graph>,
    /// Edge weights, when the graph was built with them (for `sssp`).
    weights: Option<Arc<EdgeWeights>>,
}

/// Graph options from the Python arguments.
fn options(placement: &str, threads: Option<i64>) -> PyResult<GraphOptions> {
    let placement = input::placement(placement)?;
    let runtime = runtime::resolve(runtime::check_threads(threads)?)?;
    input::check_nodes(&placement, runtime.topology())?;
    let mut options = GraphOptions::default().placement(placement);
    options.runtime = Some(runtime);
    Ok(options)
}

/// Non-negative integers (vertex ids, weights) from a numpy-convertible array: refused when not
/// integers, negative or not one-dimensional, naming the argument and the first bad position.
fn vertex_ids(py: Python<'_>, values: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u64>> {
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (values,))?;
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "{name} must be one-dimensional, got {ndim} dimensions"
        )));
    }
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let len: usize = array.getattr("size")?.extract()?;
    if len > 0 && kind != "i" && kind != "u" {
        return Err(PyTypeError::new_err(format!(
            "{name} must hold integers, got dtype {}",
            array.getattr("dtype")?.str()?
        )));
    }
    if kind == "i" && len > 0 {
        let below = numpy.call_method1("less", (&array, 0))?;
        let negative = numpy.call_method1("flatnonzero", (below,))?;
        if negative.len()? > 0 {
            let at: usize = negative.get_item(0)?.extract()?;
            return Err(PyValueError::new_err(format!(
                "{name}[{at}] is {}: {name} cannot be negative",
                array.get_item(at)?
            )));
        }
    }
    let words = numpy.call_method1("ascontiguousarray", (array, "uint64"))?;
    copy_u64_words(&words)
}

/// A numpy uint64 array of a smart array's values.
fn numpy_u64<'py>(py: Python<'py>, array: &SmartArray) -> PyResult<Bound<'py, PyAny>> {
    new_numpy_u64(py, array.len(), |out| {
        array
            .unpack(0, out)
            .expect("a whole array unpacks into a buffer of its length");
    })
}

/// A numpy int64 array of a smart array's values, with -1 where it holds `missing`.
fn numpy_i64<'py>(
    py: Python<'py>,
    array: &SmartArray,
    missing: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let words = new_numpy_u64(py, array.len(), |out| {
        array
            .unpack(0, out)
            .expect("a whole array unpacks into a buffer of its length");
        for value in out.iter_mut() {
            if *value == missing {
                *value = u64::MAX;
            }
        }
    })?;
    words.call_method1("view", ("int64",))
}

/// A numpy float64 array of a float smart array's values.
fn numpy_f64<'py>(py: Python<'py>, array: &F64Array) -> PyResult<Bound<'py, PyAny>> {
    let values = array.to_vec();
    let words = new_numpy_u64(py, values.len(), |out| {
        for (slot, value) in out.iter_mut().zip(&values) {
            *slot = value.to_bits();
        }
    })?;
    words.call_method1("view", ("float64",))
}

#[pymethods]
impl PyGraph {
    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.graph.vertices()
    }

    /// Number of edges (an undirected edge counts once).
    #[getter]
    fn num_edges(&self) -> u64 {
        self.graph.edges()
    }

    /// Whether the edges are directed.
    #[getter]
    fn directed(&self) -> bool {
        self.graph.is_directed()
    }

    /// Whether the edges carry weights (given to `from_edges`), as `sssp` needs.
    #[getter]
    fn weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Packed bytes of the graph's arrays (offsets and neighbour ids, both directions when
    /// directed).
    #[getter]
    fn nbytes(&self) -> u64 {
        self.graph.memory_report().packed_bytes
    }

    fn __len__(&self) -> usize {
        self.graph.vertices()
    }

    fn __repr__(&self) -> String {
        format!(
            "Graph({} vertices, {} {} edges)",
            self.graph.vertices(),
            self.graph.edges(),
            if self.graph.is_directed() {
                "directed"
            } else {
                "undirected"
            }
        )
    }

    /// The out-neighbours of vertex `v` (the neighbours when undirected), sorted, as uint64.
    fn neighbors<'py>(&self, py: Python<'py>, v: u64) -> PyResult<Bound<'py, PyAny>> {
        let neighbours = self.graph.out_neighbors(v).map_err(to_py)?;
        new_numpy_u64(py, neighbours.len(), |out| out.copy_from_slice(&neighbours))
    }

    /// Breadth-first search from `source`: `(levels, parents)` as int64 arrays, -1 for
    /// vertices not reached (the source is its own parent).
    fn bfs<'py>(
        &self,
        py: Python<'py>,
        source: u64,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let graph = Arc::clone(&self.graph);
        let result = py.detach(|| bfs(&graph, source)).map_err(to_py)?;
        let missing = result.unreached();
        Ok((
            numpy_i64(py, &result.levels, missing)?,
            numpy_i64(py, &result.parents, missing)?,
        ))
    }

    /// Shortest path distances from `source` over the edge weights (delta-stepping with bucket
    /// width `delta`) as int64, -1 for vertices not reached. The graph must have weights.
    #[pyo3(signature = (source, delta=1))]
    fn sssp<'py>(&self, py: Python<'py>, source: u64, delta: u64) -> PyResult<Bound<'py, PyAny>> {
        let weights = self.weights.clone().ok_or_else(|| {
            PyValueError::new_err(
                "sssp needs edge weights: build the graph with from_edges(..., weights=...), load a .wel or weighted .sag file, or call with_generated_weights(seed)",
            )
        })?;
        let graph = Arc::clone(&self.graph);
        let options = SsspOptions { delta };
        let result = py
            .detach(|| sssp(&graph, &weights, source, &options, |_, _| {}))
            .map_err(to_py)?;
        numpy_i64(py, &result.distances, result.unreached())
    }

    /// Connected components (weak ones for a directed graph): the label of every vertex, the
    /// smallest vertex id of its component, as uint64.
    fn connected_components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let graph = Arc::clone(&self.graph);
        let result = py.detach(|| connected_components(&graph)).map_err(to_py)?;
        numpy_u64(py, &result.labels)
    }

    /// PageRank as float64 ranks summing to 1, dangling vertices' rank spread over all.
    /// Iterates until the sum of absolute changes is below `tolerance` or `max_iterations`;
    /// `gauss_seidel=True` updates in place (fewer iterations to the same tolerance).
    /// `progress`, when given, is called as `progress(iteration, change)` after every iteration
    /// (1-based, and the sum of absolute rank changes), with the GIL held; an exception it
    /// raises stops the run and is raised here. `cell_order` places the contributions the
    /// pull gathers: "auto" (degree order above 262,144 vertices), "vertex", or "degree" (the
    /// most-read cells first; the graph keeps a renamed copy of its incoming lists for it, as
    /// large as the lists). The ranks are in vertex order either way. `dangling="drop"` leaves
    /// the rank of vertices without out-edges out (ranks then sum to less than 1, as GAPBS
    /// does). `contributions="f32"` gathers `f32` contributions (half the memory traffic; ranks
    /// agree to about 1e-7 of their value); the default "f64" gives the plain formula's ranks.
    #[pyo3(signature = (damping=0.85, tolerance=1e-6, max_iterations=1000, gauss_seidel=false, progress=None, cell_order="auto", dangling="spread", contributions="f64"))]
    #[allow(clippy::too_many_arguments)]
    fn pagerank<'py>(
        &self,
        py: Python<'py>,
        damping: f64,
        tolerance: f64,
        max_iterations: usize,
        gauss_seidel: bool,
        progress: Option<Py<PyAny>>,
        cell_order: &str,
        dangling: &str,
        contributions: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let options = PageRankOptions {
            damping,
            tolerance,
            max_iterations,
            dangling: dangling.parse::<Dangling>().map_err(to_py)?,
            contributions: contributions.parse::<Precision>().map_err(to_py)?,
            cell_order: cell_order.parse::<CellOrder>().map_err(to_py)?,
        };
        let graph = Arc::clone(&self.graph);
        let callback = Callback::new(progress);
        let result = callback.run(py, |report| {
            let mut on_iteration = |step: &Iteration| report((step.iteration, step.change));
            if gauss_seidel {
                pagerank_gauss_seidel(&graph, &options, &mut on_iteration)
            } else {
                pagerank(&graph, &options, &mut on_iteration)
            }
        })?;
        numpy_f64(py, &result.ranks)
    }

    /// Builds the degree order of the vertex cells now (a renamed copy of the incoming lists,
    /// as large as them, that `pagerank(cell_order="degree")` gathers through), so a timed
    /// `pagerank` does not include it; kept until the graph is freed. Returns whether the copy
    /// exists (False when the ids do not fit 32 bits).
    fn prepare_degree_order(&self, py: Python<'_>) -> PyResult<bool> {
        let graph = Arc::clone(&self.graph);
        py.detach(|| graph.prepare_degree_order()).map_err(to_py)
    }

    /// Betweenness centrality (Brandes), unnormalised, as float64: from every vertex when
    /// `sources` is None (exact), else from the given vertices; or, with `samples=k`, from `k`
    /// sources drawn with the seeded generator `seed` among the vertices that have out-edges
    /// (GAPBS's sampled BC; the same seed draws the same sources).
    /// `progress`, when given, is called as `progress(done, total)` after every source, with
    /// the GIL held; an exception it raises stops the run and is raised here.
    #[pyo3(signature = (sources=None, progress=None, samples=None, seed=1))]
    fn betweenness<'py>(
        &self,
        py: Python<'py>,
        sources: Option<&Bound<'py, PyAny>>,
        progress: Option<Py<PyAny>>,
        samples: Option<usize>,
        seed: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sources = match (sources, samples) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give either sources or samples, not both",
                ))
            }
            (None, None) => BcSources::All,
            (None, Some(count)) => BcSources::Sample { count, seed },
            (Some(list), None) => BcSources::List(vertex_ids(py, list, "sources")?),
        };
        let options = BcOptions { sources };
        let graph = Arc::clone(&self.graph);
        let callback = Callback::new(progress);
        let result = callback.run(py, |report| {
            bc(&graph, &options, |done, total| report((done, total)))
        })?;
        numpy_f64(py, &result.scores)
    }

    /// The number of triangles of an undirected graph. `order` is the order the count walks
    /// the vertices in: "degree" (by degree then id, on oriented lists gathered first) or "id"
    /// (by vertex id, on the graph's lists in place); the count is the same.
    #[pyo3(signature = (order="degree"))]
    fn triangle_count(&self, py: Python<'_>, order: &str) -> PyResult<u64> {
        let order = order.parse::<TcOrder>().map_err(to_py)?;
        let graph = Arc::clone(&self.graph);
        py.detach(|| tc(&graph, order, |_, _| {})).map_err(to_py)
    }

    /// Writes the graph in the format the file name's extension names: `.sag` (binary, loads
    /// without parsing), `.mtx` (Matrix Market), `.wel` (a weighted edge list), else an edge
    /// list; a weighted graph's weights go into `.sag` and `.wel` files.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let graph = Arc::clone(&self.graph);
        let weights = self.weights.clone();
        py.detach(|| save_graph_with_weights(&graph, weights.as_deref(), &path))
            .map_err(to_py)
    }

    /// The same graph (its arrays shared, not copied) with seeded generated edge weights:
    /// integers in 1..=255 from a hash of the seed and the edge's ends, GAPBS's convention, so
    /// `sssp` can run on a graph that came without weights.
    fn with_generated_weights(&self, py: Python<'_>, seed: u64) -> PyResult<PyGraph> {
        let graph = Arc::clone(&self.graph);
        let weights = py
            .detach(|| EdgeWeights::generate_like_edges(&graph, seed))
            .map_err(to_py)?;
        Ok(PyGraph {
            graph,
            weights: Some(Arc::new(weights)),
        })
    }

    /// The graph relabelled by decreasing degree (out + in when directed; equal degrees keep
    /// their order) and the id map: `(graph, ids)`, where vertex `ids.to_new(v)` of the new
    /// graph is vertex `v` of this one. The kernels run faster on it for skewed graphs, so
    /// relabel once, run many kernels from `ids.to_new(source)`, and bring the results back
    /// with `ids.results_to_original` (levels, distances, ranks, scores),
    /// `ids.parents_to_original` (BFS parents) or `ids.labels_to_original` (component labels).
    /// Edge weights move with their edges.
    fn reorder_by_degree(&self, py: Python<'_>) -> PyResult<(PyGraph, PyVertexIds)> {
        let graph = Arc::clone(&self.graph);
        let weights = self.weights.clone();
        let (reordered, new_weights) = py
            .detach(|| match &weights {
                Some(weights) => reorder_by_degree_weighted(&graph, weights)
                    .map(|(reordered, new_weights)| (reordered, Some(new_weights))),
                None => reorder_by_degree(&graph).map(|reordered| (reordered, None)),
            })
            .map_err(to_py)?;
        Ok((
            PyGraph {
                graph: Arc::new(reordered.graph),
                weights: new_weights.map(Arc::new),
            },
            PyVertexIds::new(reordered.ids),
        ))
    }

    /// Every edge as two uint64 arrays `(sources, targets)` in CSR order (an undirected edge
    /// once, from its smaller end).
    fn edges<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let directed = self.graph.is_directed();
        let pairs: Vec<(u64, u64)> = self
            .graph
            .edge_iter()
            .filter(|&(s, t)| directed || s <= t)
            .collect();
        let sources = new_numpy_u64(py, pairs.len(), |out| {
            for (slot, pair) in out.iter_mut().zip(&pairs) {
                *slot = pair.0;
            }
        })?;
        let targets = new_numpy_u64(py, pairs.len(), |out| {
            for (slot, pair) in out.iter_mut().zip(&pairs) {
                *slot = pair.1;
            }
        })?;
        Ok((sources, targets))
    }

    /// The graph as a networkx `Graph` or `DiGraph` (for small graphs: every edge becomes a
    /// Python object).
    fn to_networkx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let networkx = py.import("networkx")?;
        let class = if self.graph.is_directed() {
            "DiGraph"
        } else {
            "Graph"
        };
        let graph = networkx.getattr(class)?.call0()?;
        graph.call_method1(
            "add_nodes_from",
            (pyo3::types::PyRange::new(
                py,
                0,
                self.graph.vertices() as isize,
            )?,),
        )?;
        let (sources, targets) = self.edges(py)?;
        let zip = py.import("builtins")?.getattr("zip")?.call1((
            sources.call_method0("tolist")?,
            targets.call_method0("tolist")?,
        ))?;
        graph.call_method1("add_edges_from", (zip,))?;
        Ok(graph)
    }
}

/// graph_from_edges(sources, targets, num_vertices=None, directed=False, weights=None, placement="os", threads=None) -> Graph
///
/// A graph from two equally long integer arrays of edge ends (numpy or any sequence). Vertices
/// are `0..num_vertices` (default: one past the largest id). Duplicate edges and self-loops are
/// kept as given. `weights`, one non-negative integer below 2**32 per edge, are what `sssp`
/// adds up.
#[pyfunction]
#[pyo3(signature = (sources, targets, num_vertices=None, directed=false, weights=None, placement="os", threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn graph_from_edges(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    targets: &Bound<'_, PyAny>,
    num_vertices: Option<u64>,
    directed: bool,
    weights: Option<&Bound<'_, PyAny>>,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PyGraph> {
    let options = options(placement, threads)?;
    let sources = vertex_ids(py, sources, "sources")?;
    let targets = vertex_ids(py, targets, "targets")?;
    if sources.len() != targets.len() {
        return Err(PyValueError::new_err(format!(
            "sources holds {} vertex ids but targets {}: one of each per edge",
            sources.len(),
            targets.len()
        )));
    }
    let largest = sources.iter().chain(&targets).copied().max();
    let needed = largest.map_or(0, |v| v + 1);
    let vertices = match num_vertices {
        Some(n) if n < needed => {
            return Err(PyValueError::new_err(format!(
                "num_vertices={n}, but vertex id {} appears in the edges",
                needed - 1
            )))
        }
        Some(n) => n,
        None => needed,
    };
    let pairs: Vec<[u64; 2]> = sources
        .iter()
        .zip(&targets)
        .map(|(&s, &t)| [s, t])
        .collect();
    let weights = match weights {
        None => None,
        Some(weights) => {
            let weights = vertex_ids(py, weights, "weights")?;
            if weights.len() != pairs.len() {
                return Err(PyValueError::new_err(format!(
                    "weights holds {} values for {} edges: one per edge",
                    weights.len(),
                    pairs.len()
                )));
            }
            let narrow = weights
                .iter()
                .enumerate()
                .map(|(at, &w)| {
                    u32::try_from(w).map_err(|_| {
                        PyValueError::new_err(format!(
                            "weights[{at}] is {w}: weights are below 2**32"
                        ))
                    })
                })
                .collect::<PyResult<Vec<u32>>>()?;
            Some(narrow)
        }
    };
    let edges = EdgeList::from_wide_pairs(vertices, directed, pairs);
    let (graph, weights) = py
        .detach(|| match weights {
            None => build(edges, &options).map(|graph| (graph, None)),
            Some(weights) => build_weighted(WeightedEdges::from_parts(edges, weights)?, &options)
                .map(|(graph, weights)| (graph, Some(Arc::new(weights)))),
        })
        .map_err(to_py)?;
    Ok(PyGraph {
        graph: Arc::new(graph),
        weights,
    })
}

/// graph_from_scipy(matrix, directed=True, placement="os", threads=None) -> Graph
///
/// A graph from a scipy sparse matrix or array (any format; row `i`'s nonzeros are the edges
/// `i -> j`; values are ignored). Square matrices only. `directed=False` reads each stored
/// entry as an undirected edge (pass one triangle of a symmetric matrix). Built from the
/// matrix's CSR form (`matrix.tocsr()`: no copy for a CSR matrix; scipy sums repeated COO
/// entries into one) through `graph_from_csr`.
#[pyfunction]
#[pyo3(signature = (matrix, directed=true, placement="os", threads=None))]
pub fn graph_from_scipy(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    directed: bool,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PyGraph> {
    let shape: (usize, usize) =
        matrix
            .getattr("shape")
            .and_then(|s| s.extract())
            .map_err(|_| {
                PyTypeError::new_err("expected a scipy sparse matrix or array (with a 2-D shape)")
            })?;
    if shape.0 != shape.1 {
        return Err(PyValueError::new_err(format!(
            "an adjacency matrix is square; this one is {} x {}",
            shape.0, shape.1
        )));
    }
    let csr = matrix.call_method0("tocsr")?;
    graph_from_csr(
        py,
        &csr.getattr("indptr")?,
        &csr.getattr("indices")?,
        directed,
        placement,
        threads,
    )
}

/// graph_from_csr(indptr, indices, directed=False, placement="os", threads=None) -> Graph
///
/// A graph from compressed sparse row arrays (numpy or any sequence of non-negative integers):
/// vertex `v`'s neighbours are `indices[indptr[v]:indptr[v + 1]]`, so `indptr` holds
/// `num_vertices + 1` values from 0 up to `len(indices)`. Lists need not be sorted; repeated
/// entries and self-loops are kept. `directed=False` reads each entry as one undirected edge,
/// stored at both ends (pass one triangle of a symmetric matrix).
#[pyfunction]
#[pyo3(signature = (indptr, indices, directed=false, placement="os", threads=None))]
pub fn graph_from_csr(
    py: Python<'_>,
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    directed: bool,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PyGraph> {
    let options = options(placement, threads)?;
    let offsets = vertex_ids(py, indptr, "indptr")?;
    let targets = vertex_ids(py, indices, "indices")?;
    let graph = py
        .detach(|| build_from_csr(&offsets, &targets, directed, &options))
        .map_err(|error| match error {
            // The crate names the arrays offsets and targets; here they are scipy's names.
            GraphError::InvalidArgument(message) => PyValueError::new_err(
                message
                    .replace("offsets", "indptr")
                    .replace("offset", "indptr value")
                    .replace("targets", "indices"),
            ),
            other => to_py(other),
        })?;
    Ok(PyGraph {
        graph: Arc::new(graph),
        weights: None,
    })
}

/// graph_load(path, undirected=False, placement="os", threads=None) -> Graph
///
/// Loads a graph file: an edge list (one `source target` pair per line, `#` comments), a Matrix
/// Market file, or the binary `.sag` format; the format is read from the first bytes, then the
/// extension. A weighted edge list (`.wel`: `source target weight` lines) and a `.sag` file
/// saved with weights load with their weights, ready for `sssp`. Malformed lines are a
/// ValueError naming the file and line.
#[pyfunction]
#[pyo3(signature = (path, undirected=false, placement="os", threads=None))]
pub fn graph_load(
    py: Python<'_>,
    path: PathBuf,
    undirected: bool,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PyGraph> {
    let options = options(placement, threads)?;
    let text = TextOptions {
        undirected,
        vertices: None,
    };
    let (graph, weights) = py
        .detach(|| load_graph_with_weights(&path, &text, &options))
        .map_err(to_py)?;
    Ok(PyGraph {
        graph: Arc::new(graph),
        weights: weights.map(Arc::new),
    })
}

/// graph_convert(input, output, undirected=False) -> None
///
/// Converts a graph file into the format `output`'s extension names, as `smartarrays graph
/// convert` does: loads `input` as `load` would (weights included) and writes it as
/// `Graph.save` would; nothing is written when the input cannot be read.
#[pyfunction]
#[pyo3(signature = (input, output, undirected=false))]
pub fn graph_convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    undirected: bool,
) -> PyResult<()> {
    let text = TextOptions {
        undirected,
        vertices: None,
    };
    py.detach(|| {
        let (graph, weights) = load_graph_with_weights(&input, &text, &GraphOptions::default())?;
        save_graph_with_weights(&graph, weights.as_ref(), &output)
    })
    .map_err(to_py)
}

/// graph_kronecker(scale, edge_factor=16, seed=1, directed=False, placement="os", threads=None) -> Graph
///
/// A Kronecker (R-MAT) graph of `2**scale` vertices and `edge_factor * 2**scale` generated edges,
/// the Graph500 and GAPBS generator's parameters, seeded.
#[pyfunction]
#[pyo3(signature = (scale, edge_factor=16, seed=1, directed=false, placement="os", threads=None))]
pub fn graph_kronecker(
    py: Python<'_>,
    scale: u32,
    edge_factor: u64,
    seed: u64,
    directed: bool,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PyGraph> {
    let options = options(placement, threads)?;
    let graph = py
        .detach(|| {
            build(
                generate::kronecker(scale, edge_factor, seed, directed)?,
                &options,
            )
        })
        .map_err(to_py)?;
    Ok(PyGraph {
        graph: Arc::new(graph),
        weights: None,
    })
}

/// Adds the graph class and functions to the native module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyGraph>()?;
    module.add_class::<PyVertexIds>()?;
    module.add_function(wrap_pyfunction!(graph_from_edges, module)?)?;
    module.add_function(wrap_pyfunction!(graph_from_scipy, module)?)?;
    module.add_function(wrap_pyfunction!(graph_from_csr, module)?)?;
    module.add_function(wrap_pyfunction!(graph_load, module)?)?;
    module.add_function(wrap_pyfunction!(graph_convert, module)?)?;
    module.add_function(wrap_pyfunction!(graph_kronecker, module)?)?;
    Ok(())
}
