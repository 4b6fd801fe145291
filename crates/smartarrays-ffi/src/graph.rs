//! The graphs of `smartarrays-graph` in the C ABI: `SaGraph` (CSR offsets and neighbour ids in
//! smart arrays) made from edge arrays, files or the Kronecker generator, and the algorithms
//! (BFS, connected components, PageRank, betweenness, triangle counting) writing their results
//! into caller buffers of one value per vertex; graphs saved or converted between the file
//! formats. Long runs report progress through an optional callback.

use std::ffi::{c_char, c_void, CStr};
use std::path::Path;
use std::sync::Arc;

use smartarrays::F64Array;
use smartarrays_graph::algo::pagerank::{
    pagerank, pagerank_gauss_seidel, CellOrder, Dangling, Precision,
};
use smartarrays_graph::{
    bc, bfs, build, connected_components, generate, tc, BcOptions, BcResult, BcSources, EdgeList,
    Graph, GraphError, GraphOptions, PageRankOptions, TcOrder,
};

use crate::array::SaArray;
use crate::float::SaF64Array;
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// A directed or undirected graph in compressed sparse row form, in placed smart arrays.
/// Opaque: create it with `sa_graph_from_edges`, `sa_graph_load` or `sa_graph_kronecker`, free it
/// with `sa_graph_free`.
///
/// Thread safety: every function but `sa_graph_free` takes a `const SaGraph *` and may run at the
/// same time as the others on the same graph, from any number of threads.
pub struct SaGraph {
    pub(crate) graph: Graph,
    /// Edge weights for `sa_graph_sssp`, when the graph has them (see [`crate::graph_weights`]).
    pub(crate) weights: std::sync::Mutex<Option<Arc<smartarrays_graph::EdgeWeights>>>,
}

/// Progress of a long graph run: `done` of `total` steps (PageRank iterations, with `total` the
/// iteration limit; betweenness sources). The callback runs on the calling thread, between
/// steps, and must not unwind (throw) into the library.
pub type SaGraphProgress =
    Option<unsafe extern "C" fn(user_data: *mut c_void, done: u64, total: u64)>;

impl From<GraphError> for FfiError {
    fn from(error: GraphError) -> FfiError {
        let message = error.to_string();
        match error {
            GraphError::Array(inner) => FfiError::from(inner),
            GraphError::Io { .. } => FfiError::new(SaStatus::System, message),
            _ => FfiError::new(SaStatus::InvalidArgument, message),
        }
    }
}

/// Graph options from the C placement text (NULL = "os"), on the library's runtime.
pub(crate) fn graph_options(placement: *const c_char) -> FfiResult<GraphOptions> {
    let array = crate::array::checked_options(placement)?;
    let mut options = GraphOptions::default().placement(array.placement.clone());
    options.runtime = array.runtime;
    Ok(options)
}

/// Stores a newly built graph in `*out`.
///
/// # Safety
/// `out` must be valid for writing a pointer (checked for NULL before building).
pub(crate) unsafe fn hand_out(out: *mut *mut SaGraph, graph: Graph) -> FfiResult {
    let weights = crate::graph_weights::weights_slot(None);
    let handle = Box::into_raw(Box::new(SaGraph { graph, weights }));
    // SAFETY: forwarded from the caller; `out` is not NULL (checked first), so nothing leaks.
    unsafe { ptr::write(out, "out", handle) }
}

/// The edge list `sources[i] -> targets[i]` on `vertices` vertices (0: one past the largest
/// id); a nonzero count smaller than an id needs is `SA_STATUS_INVALID_ARGUMENT`.
pub(crate) fn edge_list(
    sources: &[u64],
    targets: &[u64],
    vertices: u64,
    directed: bool,
) -> FfiResult<EdgeList> {
    let needed = sources
        .iter()
        .chain(targets)
        .max()
        .map_or(0, |&largest| largest.saturating_add(1));
    if vertices != 0 && vertices < needed {
        return Err(FfiError::new(
            SaStatus::InvalidArgument,
            format!(
                "vertices = {vertices}, but vertex id {} appears in the edges",
                needed - 1
            ),
        ));
    }
    let pairs = sources.iter().zip(targets).map(|(&s, &t)| [s, t]).collect();
    Ok(EdgeList::from_wide_pairs(
        vertices.max(needed),
        directed,
        pairs,
    ))
}

/// Borrows the graph behind a handle.
///
/// # Safety
/// `graph` must be NULL or a live handle from this library.
unsafe fn borrow<'a>(graph: *const SaGraph) -> FfiResult<&'a Graph> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(graph, "graph") }.map(|handle| &handle.graph)
}

/// A caller buffer of one value per vertex, checked for NULL and length.
///
/// # Safety
/// `out` must be NULL or valid for writing `len` values.
pub(crate) unsafe fn per_vertex<'a, T>(
    graph: &Graph,
    out: *mut T,
    len: usize,
    name: &str,
) -> FfiResult<&'a mut [T]> {
    let vertices = graph.vertices();
    if len < vertices {
        return Err(FfiError::new(
            SaStatus::BufferTooSmall,
            format!("`{name}` holds {len} values; the graph has {vertices} vertices"),
        ));
    }
    // SAFETY: forwarded from the caller.
    unsafe { ptr::slice_mut(out, vertices, name) }
}

/// Calls the progress callback, if there is one.
pub(crate) fn report(progress: SaGraphProgress, user_data: *mut c_void, done: u64, total: u64) {
    if let Some(callback) = progress {
        // SAFETY: the caller gave this function pointer and its user data for this call.
        unsafe { callback(user_data, done, total) }
    }
}

/// Creates a graph from `len` edges `sources[i] -> targets[i]` (both ends of an undirected edge
/// when `directed` is false). Vertices are `0..vertices`; `vertices` 0 means one past the largest
/// id, and a smaller nonzero count than an id needs is `SA_STATUS_INVALID_ARGUMENT`. Repeated
/// edges and self-loops are kept as given. `placement` as for `sa_array_new` (NULL = "os").
/// `sources` and `targets` may be NULL when `len` is 0.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new graph the caller owns
/// (free with `sa_graph_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `sources` and `targets` must point to `len` readable values; `placement` must be NULL or
/// NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_from_edges(
    sources: *const u64,
    targets: *const u64,
    len: usize,
    vertices: u64,
    directed: bool,
    placement: *const c_char,
    out: *mut *mut SaGraph,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let sources = unsafe { ptr::slice(sources, len, "sources") }?;
        // SAFETY: forwarded from the caller.
        let targets = unsafe { ptr::slice(targets, len, "targets") }?;
        let options = graph_options(placement)?;
        let graph = build(edge_list(sources, targets, vertices, directed)?, &options)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, graph) }
    })
}

/// Loads a graph file: an edge list (`source target` per line, `#` comments; undirected when
/// `undirected` is true), a Matrix Market file, or the binary `.sag` format, told apart by the
/// first bytes, then the extension. Weights are kept: those of a weighted `.sag` file, and a
/// `.wel` file is read as a weighted edge list (`source target weight` lines; see
/// `sa_graph_sssp`). A malformed line is `SA_STATUS_INVALID_ARGUMENT` with the
/// file and line in the message; a file that cannot be read is `SA_STATUS_SYSTEM`.
///
/// Ownership: on success `*out` is a new graph the caller owns. Thread-safe.
///
/// # Safety
/// `path` and `placement` must be NULL or NUL-terminated text; `out` must be valid for writing
/// a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_load(
    path: *const c_char,
    undirected: bool,
    placement: *const c_char,
    out: *mut *mut SaGraph,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let path = unsafe { ptr::text(path, "path") }?.ok_or_else(|| {
            FfiError::new(SaStatus::NullPointer, "argument `path` is NULL".to_string())
        })?;
        let options = graph_options(placement)?;
        let (graph, weights) =
            crate::graph_weights::load_with_weights(Path::new(path), undirected, &options)?;
        // SAFETY: forwarded from the caller.
        unsafe { crate::graph_weights::hand_out_weighted(out, graph, weights) }
    })
}

/// The text behind a required path argument.
///
/// # Safety
/// `path` must be NULL or NUL-terminated text.
unsafe fn required_path<'a>(path: *const c_char, name: &str) -> FfiResult<&'a Path> {
    // SAFETY: forwarded from the caller.
    let text = unsafe { ptr::text(path, name) }?.ok_or_else(|| {
        FfiError::new(SaStatus::NullPointer, format!("argument `{name}` is NULL"))
    })?;
    Ok(Path::new(text))
}

/// Saves a graph to `path` in the format its extension names: `.sag` the binary format (which
/// reloads without parsing), `.mtx` Matrix Market, anything else an edge list (`source target`
/// per line; an undirected edge once). The edge weights of a weighted graph go into `.sag` files
/// and `.wel` files (`source target weight` lines; a graph without weights cannot be saved as
/// `.wel`: `SA_STATUS_INVALID_ARGUMENT`); other formats leave them out. A file that cannot be
/// written is `SA_STATUS_SYSTEM`.
///
/// Thread-safe; the graph is only read.
///
/// # Safety
/// `graph` must be NULL or a live handle; `path` NULL or NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_save(graph: *const SaGraph, path: *const c_char) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(graph, "graph") }?;
        // SAFETY: forwarded from the caller.
        let path = unsafe { required_path(path, "path") }?;
        let weights = handle.weights();
        crate::graph_weights::save_with_weights(&handle.graph, weights.as_deref(), path)
    })
}

/// Converts a graph file into another format, as `smartarrays graph convert` does: `input` is
/// read as `sa_graph_load` reads it (`undirected` for edge lists), `output` written as
/// `sa_graph_save` writes it (the format from its extension), edge weights included where both
/// formats hold them (`.sag`, `.wel`). Nothing is written when the input cannot be read; errors
/// are those of the two functions.
///
/// Thread-safe.
///
/// # Safety
/// `input` and `output` must be NULL or NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_convert(
    input: *const c_char,
    output: *const c_char,
    undirected: bool,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let input = unsafe { required_path(input, "input") }?;
        // SAFETY: forwarded from the caller.
        let output = unsafe { required_path(output, "output") }?;
        let options = graph_options(std::ptr::null())?;
        let (graph, weights) =
            crate::graph_weights::load_with_weights(input, undirected, &options)?;
        crate::graph_weights::save_with_weights(&graph, weights.as_ref(), output)
    })
}

/// Creates a seeded Kronecker (R-MAT) graph of `2^scale` vertices and `edge_factor * 2^scale`
/// generated edges, with the Graph500 parameters GAPBS uses.
///
/// Ownership: on success `*out` is a new graph the caller owns. Thread-safe.
///
/// # Safety
/// `placement` must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_kronecker(
    scale: u32,
    edge_factor: u64,
    seed: u64,
    directed: bool,
    placement: *const c_char,
    out: *mut *mut SaGraph,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let options = graph_options(placement)?;
        let graph = build(
            generate::kronecker(scale, edge_factor, seed, directed)?,
            &options,
        )?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, graph) }
    })
}

/// Frees a graph. NULL is ignored.
///
/// # Safety
/// `graph` must be NULL or a live handle not freed before; no other call on it may be running,
/// and the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_free(graph: *mut SaGraph) {
    if graph.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from a graph constructor, exactly once.
        drop(unsafe { Box::from_raw(graph) });
    }));
}

/// Writes the number of vertices, of edges (an undirected edge counts once) and whether the
/// edges are directed; each output may be NULL when not wanted.
///
/// # Safety
/// `graph` must be NULL or a live handle; each output NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_shape(
    graph: *const SaGraph,
    vertices: *mut usize,
    edges: *mut u64,
    directed: *mut bool,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: each output is NULL or valid for writing (the caller's contract).
        unsafe {
            ptr::write_optional(vertices, graph.vertices());
            ptr::write_optional(edges, graph.edges());
            ptr::write_optional(directed, graph.is_directed());
        }
        Ok(())
    })
}

/// Breadth-first search from `source`: writes every vertex's level (hops from the source) to
/// `levels` and its parent in one BFS tree to `parents` (the source is its own parent), -1 for
/// vertices not reached; either buffer may be NULL. Buffers hold `len` values, at least the
/// vertex count (else `SA_STATUS_BUFFER_TOO_SMALL`). A source that is not a vertex is
/// `SA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `graph` must be NULL or a live handle; `levels` and `parents` NULL or valid for writing `len`
/// values.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_bfs(
    graph: *const SaGraph,
    source: u64,
    levels: *mut i64,
    parents: *mut i64,
    len: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        let result = bfs(graph, source)?;
        let missing = result.unreached();
        for (out, array, name) in [
            (levels, &result.levels, "levels"),
            (parents, &result.parents, "parents"),
        ] {
            if out.is_null() {
                continue;
            }
            // SAFETY: forwarded from the caller.
            let out = unsafe { per_vertex(graph, out, len, name) }?;
            let mut values = vec![0u64; out.len()];
            array.unpack(0, &mut values)?;
            for (slot, value) in out.iter_mut().zip(values) {
                *slot = if value == missing { -1 } else { value as i64 };
            }
        }
        Ok(())
    })
}

/// Breadth-first search from `source`, its results handed out as smart arrays without a copy:
/// `*levels` gets every vertex's level and `*parents` its parent in one BFS tree (the source is
/// its own parent), each packed at the fewest bits the graph's property class allows. A vertex
/// not reached holds all ones at its array's width (`(1 << bits) - 1`, or `UINT64_MAX` at 64
/// bits; `sa_array_bits` gives the width). Either output may be NULL when not wanted.
///
/// Ownership: on success each non-NULL output is a new array the caller owns (free it with
/// `sa_array_free`); on failure nothing is written. Thread-safe.
///
/// # Safety
/// `graph` must be NULL or a live handle; `levels` and `parents` NULL or valid for writing a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_bfs_arrays(
    graph: *const SaGraph,
    source: u64,
    levels: *mut *mut SaArray,
    parents: *mut *mut SaArray,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        let result = bfs(graph, source)?;
        for (out, array) in [(levels, result.levels), (parents, result.parents)] {
            if !out.is_null() {
                // SAFETY: not NULL; valid for writing a pointer (the caller's contract).
                unsafe { ptr::write_optional(out, SaArray::into_raw(Arc::new(array))) };
            }
        }
        Ok(())
    })
}

/// Connected components (weak ones for a directed graph) handed out as a smart array without
/// a copy: `*labels` gets every vertex's label, the smallest vertex id of its component,
/// packed at the fewest bits the graph's property class allows; the number of components goes
/// to `*count` (NULL when not wanted).
///
/// Ownership: on success `*labels` is a new array the caller owns (free it with
/// `sa_array_free`); on failure nothing is written. Thread-safe.
///
/// # Safety
/// `graph` must be NULL or a live handle; `labels` valid for writing a pointer; `count` NULL or
/// valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_connected_components_array(
    graph: *const SaGraph,
    labels: *mut *mut SaArray,
    count: *mut u64,
) -> SaStatus {
    guard(|| {
        ptr::check_out(labels, "labels")?;
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        let result = connected_components(graph)?;
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(count, result.count) };
        // SAFETY: not NULL (checked first); valid for writing a pointer (the caller's contract).
        unsafe { ptr::write(labels, "labels", SaArray::into_raw(Arc::new(result.labels))) }
    })
}

/// Connected components (weak ones for a directed graph): writes every vertex's label, the
/// smallest vertex id of its component, to `labels` (`len` values, at least the vertex count),
/// and the number of components to `*count` (NULL when not wanted).
///
/// # Safety
/// `graph` must be NULL or a live handle; `labels` valid for writing `len` values; `count` NULL
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_connected_components(
    graph: *const SaGraph,
    labels: *mut u64,
    len: usize,
    count: *mut u64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(graph, labels, len, "labels") }?;
        let result = connected_components(graph)?;
        result.labels.unpack(0, out)?;
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(count, result.count) };
        Ok(())
    })
}

/// PageRank: writes every vertex's rank (summing to 1; a dangling vertex's rank is spread over
/// all) to `ranks` (`len` values, at least the vertex count) and the iterations run to
/// `*iterations` (NULL when not wanted). Iterates until the sum of absolute changes is below
/// `tolerance` or `max_iterations`; `gauss_seidel` updates in place (fewer iterations to the
/// same tolerance). `progress` (may be NULL) is called after every iteration.
///
/// # Safety
/// `graph` must be NULL or a live handle; `ranks` valid for writing `len` values;
/// `iterations` NULL or valid for writing; `progress` NULL or a function that may be called
/// with `user_data`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sa_graph_pagerank(
    graph: *const SaGraph,
    damping: f64,
    tolerance: f64,
    max_iterations: usize,
    gauss_seidel: bool,
    ranks: *mut f64,
    len: usize,
    iterations: *mut usize,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(graph, ranks, len, "ranks") }?;
        let options = PageRankOptions {
            damping,
            tolerance,
            max_iterations,
            contributions: Precision::F64,
            ..PageRankOptions::default()
        };
        let on_iteration = |iteration: &smartarrays_graph::algo::pagerank::Iteration| {
            report(
                progress,
                user_data,
                iteration.iteration as u64,
                max_iterations as u64,
            );
        };
        let result = if gauss_seidel {
            pagerank_gauss_seidel(graph, &options, on_iteration)?
        } else {
            pagerank(graph, &options, on_iteration)?
        };
        for (slot, rank) in out.iter_mut().zip(result.ranks.to_vec()) {
            *slot = rank;
        }
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(iterations, result.summary.iterations) };
        Ok(())
    })
}

/// Every PageRank setting, for `sa_graph_pagerank_with_options`. Start from
/// `sa_pagerank_options_default()` and change the fields wanted; a NULL text field takes its
/// default. The texts are the words the Python, Java and command-line interfaces use.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SaPageRankOptions {
    /// Damping factor, in (0, 1) (default 0.85).
    pub damping: f64,
    /// Stop when the sum of absolute rank changes of an iteration is below this (default 1e-6).
    pub tolerance: f64,
    /// Stop after this many iterations even if not converged (default 1000).
    pub max_iterations: usize,
    /// Update ranks in place (Gauss-Seidel: fewer iterations to the same tolerance) instead of
    /// from the previous iteration's (Jacobi; default false).
    pub gauss_seidel: bool,
    /// "spread" (default: a dangling vertex's rank is spread over all, ranks sum to 1) or "drop"
    /// (left out: ranks sum to less than 1, as GAPBS does).
    pub dangling: *const c_char,
    /// Precision of the contributions the pull gathers: "f64" (default: ranks equal the plain
    /// `double` formula's) or "f32" (half the memory traffic; ranks agree to about 1e-7 of their
    /// value, and the last iterations of a tolerance below 1e-5 switch to f64).
    pub contributions: *const c_char,
    /// Order of the contribution cells: "auto" (default: "degree" above 262,144 vertices),
    /// "vertex", or "degree" (the most-read cells first: the graph keeps a renamed copy of its
    /// incoming lists for it, as large as the lists; see `sa_graph_prepare_degree_order`). The
    /// ranks are the same either way.
    pub cell_order: *const c_char,
}

/// How a PageRank run went, from `sa_graph_pagerank_with_options`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SaPageRankSummary {
    /// Iterations run.
    pub iterations: usize,
    /// Whether the change fell below the tolerance (false: stopped at `max_iterations`).
    pub converged: bool,
    /// The last iteration's sum of absolute rank changes.
    pub change: f64,
    /// The cell order used: "vertex" or "degree" (a static string; do not free).
    pub cell_order: *const c_char,
}

/// The default PageRank settings: damping 0.85, tolerance 1e-6, at most 1000 iterations,
/// Jacobi, and NULL (default) texts: dangling "spread", contributions "f64", cell order "auto".
#[no_mangle]
pub extern "C" fn sa_pagerank_options_default() -> SaPageRankOptions {
    SaPageRankOptions {
        damping: 0.85,
        tolerance: 1e-6,
        max_iterations: 1000,
        gauss_seidel: false,
        dangling: std::ptr::null(),
        contributions: std::ptr::null(),
        cell_order: std::ptr::null(),
    }
}

/// The Rust options from the C struct; unknown words are `SA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// Every text field must be NULL or a NUL-terminated string valid for the call.
unsafe fn pagerank_options(options: &SaPageRankOptions) -> FfiResult<PageRankOptions> {
    // SAFETY: forwarded from the caller.
    let dangling = unsafe { ptr::text(options.dangling, "dangling") }?;
    // SAFETY: forwarded from the caller.
    let contributions = unsafe { ptr::text(options.contributions, "contributions") }?;
    // SAFETY: forwarded from the caller.
    let cell_order = unsafe { ptr::text(options.cell_order, "cell_order") }?;
    Ok(PageRankOptions {
        damping: options.damping,
        tolerance: options.tolerance,
        max_iterations: options.max_iterations,
        dangling: dangling.map_or(Ok(Dangling::Spread), str::parse)?,
        contributions: contributions.map_or(Ok(Precision::F64), str::parse)?,
        cell_order: cell_order.map_or(Ok(CellOrder::Auto), str::parse)?,
    })
}

/// PageRank with every setting (`options`, NULL for the defaults of
/// `sa_pagerank_options_default`): writes every vertex's rank to `ranks` (`len` values, at least
/// the vertex count) and, when `summary` is not NULL, how the run went. `progress` (may be
/// NULL) is called after every iteration with the iteration and the iteration limit.
///
/// ```c
/// SaPageRankOptions options = sa_pagerank_options_default();
/// options.gauss_seidel = true;
/// options.cell_order = "degree";
/// SaPageRankSummary summary;
/// sa_graph_pagerank_with_options(graph, &options, ranks, n, &summary, NULL, NULL);
/// printf("%zu iterations, cells in %s order\n", summary.iterations, summary.cell_order);
/// ```
///
/// # Safety
/// `graph` must be NULL or a live handle; `options` NULL or a valid struct whose texts are NULL
/// or NUL-terminated; `ranks` valid for writing `len` values; `summary` NULL or valid for
/// writing; `progress` NULL or a function that may be called with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_pagerank_with_options(
    graph: *const SaGraph,
    options: *const SaPageRankOptions,
    ranks: *mut f64,
    len: usize,
    summary: *mut SaPageRankSummary,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(graph, ranks, len, "ranks") }?;
        // SAFETY: forwarded from the caller.
        let (result, written) = unsafe { run_pagerank(graph, options, progress, user_data) }?;
        copy_into(out, &result);
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(summary, written) };
        Ok(())
    })
}

/// PageRank as `sa_graph_pagerank_with_options`, with the ranks handed out as an `SaF64Array`
/// (read and freed with the `sa_f64_array_*` functions) instead of copied into a caller buffer.
///
/// # Safety
/// As `sa_graph_pagerank_with_options`; `ranks` valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_pagerank_array(
    graph: *const SaGraph,
    options: *const SaPageRankOptions,
    ranks: *mut *mut SaF64Array,
    summary: *mut SaPageRankSummary,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        ptr::check_out(ranks, "ranks")?;
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let (result, written) = unsafe { run_pagerank(graph, options, progress, user_data) }?;
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(summary, written) };
        // SAFETY: forwarded from the caller; `ranks` is not NULL (checked first).
        unsafe { crate::float::hand_out(ranks, result) }
    })
}

/// Runs PageRank with the C options (NULL: the defaults) and returns the ranks and the summary.
///
/// # Safety
/// `options` NULL or a valid struct whose texts are NULL or NUL-terminated; `progress` NULL or a
/// function that may be called with `user_data`.
unsafe fn run_pagerank(
    graph: &Graph,
    options: *const SaPageRankOptions,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> FfiResult<(F64Array, SaPageRankSummary)> {
    let given = if options.is_null() {
        sa_pagerank_options_default()
    } else {
        // SAFETY: not NULL; the caller guarantees a valid struct.
        *unsafe { ptr::borrow(options, "options") }?
    };
    // SAFETY: the caller guarantees the texts.
    let options = unsafe { pagerank_options(&given) }?;
    let limit = options.max_iterations as u64;
    let on_iteration = |iteration: &smartarrays_graph::algo::pagerank::Iteration| {
        report(progress, user_data, iteration.iteration as u64, limit);
    };
    let result = if given.gauss_seidel {
        pagerank_gauss_seidel(graph, &options, on_iteration)?
    } else {
        pagerank(graph, &options, on_iteration)?
    };
    let cell_order: &'static CStr = match result.summary.cell_order {
        CellOrder::Degree => c"degree",
        _ => c"vertex",
    };
    let summary = SaPageRankSummary {
        iterations: result.summary.iterations,
        converged: result.summary.converged,
        change: result.summary.change,
        cell_order: cell_order.as_ptr(),
    };
    Ok((result.ranks, summary))
}

/// Builds the graph's degree order now (the renamed copy of its incoming lists that PageRank's
/// "degree" cell order gathers through; as large as the lists, and shown in the memory report
/// as "degree-ordered in-lists"), so a timed PageRank does not include it. Writes to `*built`
/// (NULL when not wanted) whether a copy exists afterwards: false when the graph's ids do not
/// fit 32 bits. Building it again is a no-op; it lives until `sa_graph_free`.
///
/// # Safety
/// `graph` must be NULL or a live handle; `built` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_prepare_degree_order(
    graph: *const SaGraph,
    built: *mut bool,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        let prepared = graph.prepare_degree_order()?;
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(built, prepared) };
        Ok(())
    })
}

/// Betweenness centrality (Brandes), unnormalised, into `scores` (`len` values, at least the
/// vertex count): from every vertex when `sources` is NULL (exact), else from the
/// `source_count` vertices of `sources`. `progress` (may be NULL) is called after every source.
///
/// # Safety
/// `graph` must be NULL or a live handle; `sources` NULL or pointing to `source_count` values;
/// `scores` valid for writing `len` values; `progress` NULL or a function that may be called
/// with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_betweenness(
    graph: *const SaGraph,
    sources: *const u64,
    source_count: usize,
    scores: *mut f64,
    len: usize,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(graph, scores, len, "scores") }?;
        // SAFETY: forwarded from the caller.
        let sources = unsafe { listed_sources(sources, source_count) }?;
        let result = run_betweenness(graph, sources, progress, user_data)?;
        copy_into(out, &result.scores);
        Ok(())
    })
}

/// Betweenness as `sa_graph_betweenness` (exact when `sources` is NULL, else from the
/// `source_count` vertices of `sources`), with the scores handed out as an `SaF64Array` (read
/// and freed with the `sa_f64_array_*` functions) instead of copied into a caller buffer.
///
/// # Safety
/// `graph` must be NULL or a live handle; `sources` NULL or pointing to `source_count` values;
/// `scores` valid for writing a pointer; `progress` NULL or a function that may be called with
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_betweenness_array(
    graph: *const SaGraph,
    sources: *const u64,
    source_count: usize,
    scores: *mut *mut SaF64Array,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        ptr::check_out(scores, "scores")?;
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let sources = unsafe { listed_sources(sources, source_count) }?;
        let result = run_betweenness(graph, sources, progress, user_data)?;
        // SAFETY: forwarded from the caller; `scores` is not NULL (checked first).
        unsafe { crate::float::hand_out(scores, result.scores) }
    })
}

/// Betweenness centrality (Brandes), unnormalised, from `count` sources drawn uniformly with a
/// seeded generator among the vertices that have out-edges (repeats possible, as independent
/// samples; the same seed draws the same sources): GAPBS's sampled BC. Writes every vertex's
/// score to `scores` (`len` values, at least the vertex count) and, when `drawn` is not NULL,
/// the sources used to `drawn` (`count` values). `progress` (may be NULL) is called after
/// every source.
///
/// # Safety
/// `graph` must be NULL or a live handle; `scores` valid for writing `len` values; `drawn`
/// NULL or valid for writing `count` values; `progress` NULL or a function that may be called
/// with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_betweenness_sampled(
    graph: *const SaGraph,
    count: usize,
    seed: u64,
    scores: *mut f64,
    len: usize,
    drawn: *mut u64,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(graph, scores, len, "scores") }?;
        let drawn = if drawn.is_null() {
            None
        } else {
            // SAFETY: forwarded from the caller.
            Some(unsafe { ptr::slice_mut(drawn, count, "drawn") }?)
        };
        let sources = BcSources::Sample { count, seed };
        let result = run_betweenness(graph, sources, progress, user_data)?;
        copy_into(out, &result.scores);
        if let Some(drawn) = drawn {
            for (slot, &source) in drawn.iter_mut().zip(&result.sources) {
                *slot = source;
            }
        }
        Ok(())
    })
}

/// Betweenness sources from C: every vertex for NULL, else the `count` values at `sources`.
///
/// # Safety
/// `sources` must be NULL or point to `count` readable values.
unsafe fn listed_sources(sources: *const u64, count: usize) -> FfiResult<BcSources> {
    if sources.is_null() {
        return Ok(BcSources::All);
    }
    // SAFETY: forwarded from the caller.
    Ok(BcSources::List(
        unsafe { ptr::slice(sources, count, "sources") }?.to_vec(),
    ))
}

/// Runs betweenness from `sources`, reporting every source to `progress`.
fn run_betweenness(
    graph: &Graph,
    sources: BcSources,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> FfiResult<BcResult> {
    Ok(bc(graph, &BcOptions { sources }, |done, total| {
        report(progress, user_data, done as u64, total as u64);
    })?)
}

/// Copies per-vertex `f64` results into a caller buffer of at least as many values.
fn copy_into(out: &mut [f64], values: &F64Array) {
    for (slot, value) in out.iter_mut().zip(values.to_vec()) {
        *slot = value;
    }
}

/// Writes the number of triangles of an undirected graph to `*count`; a directed graph is
/// `SA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `graph` must be NULL or a live handle; `count` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_triangle_count(
    graph: *const SaGraph,
    count: *mut u64,
) -> SaStatus {
    guard(|| {
        ptr::check_out(count, "count")?;
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        let triangles = tc(graph, TcOrder::default(), |_, _| {})?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(count, "count", triangles) }
    })
}

/// Triangles of an undirected graph, as `sa_graph_triangle_count`, with the order the count
/// walks the vertices in: "degree" (NULL, the default: by degree then id, on oriented lists
/// gathered first, the fastest on skewed graphs) or "id" (by vertex id, on the graph's lists in
/// place, no extra memory). Both give the same count. An unknown word is
/// `SA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `graph` must be NULL or a live handle; `order` NULL or a NUL-terminated string; `count` NULL
/// or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_triangle_count_ordered(
    graph: *const SaGraph,
    order: *const c_char,
    count: *mut u64,
) -> SaStatus {
    guard(|| {
        ptr::check_out(count, "count")?;
        // SAFETY: forwarded from the caller.
        let graph = unsafe { borrow(graph) }?;
        // SAFETY: forwarded from the caller.
        let order = unsafe { ptr::text(order, "order") }?;
        let order = order.map_or(Ok(TcOrder::default()), str::parse)?;
        let triangles = tc(graph, order, |_, _| {})?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(count, "count", triangles) }
    })
}
