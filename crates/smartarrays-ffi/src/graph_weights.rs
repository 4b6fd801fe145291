//! Edge weights and single-source shortest paths of `smartarrays-graph` in the C ABI: a
//! [`SaGraph`] may carry one non-negative integer weight below 2^32 per edge (given with the
//! edges, generated from a seed, or loaded from a weighted file), and `sa_graph_sssp` adds them
//! up along shortest paths (delta-stepping), writing one distance per vertex, -1 for vertices
//! not reached (the convention of the Python binding), or handing the distances out as a smart
//! array.
//!
//! Files: `sa_graph_load` keeps the weights of a weighted `.sag` file and reads a `.wel` file
//! (`source target weight` lines) as a weighted edge list; `sa_graph_save` writes the weights
//! of a weighted graph into `.sag` and `.wel` files (other formats have no place for them), so
//! a weighted graph saved and loaded again keeps them.

use std::ffi::{c_char, c_void};
use std::path::Path;
use std::sync::{Arc, Mutex};

use smartarrays_graph::algo::sssp::{sssp, SsspOptions};
use smartarrays_graph::io::{load_graph_with_weights, save_graph_with_weights, TextOptions};
use smartarrays_graph::{build_weighted, EdgeWeights, Graph, GraphOptions, WeightedEdges};

use crate::array::SaArray;
use crate::graph::{edge_list, graph_options, per_vertex, report, SaGraph, SaGraphProgress};
use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// The weights slot of a new handle.
pub(crate) fn weights_slot(weights: Option<EdgeWeights>) -> Mutex<Option<Arc<EdgeWeights>>> {
    Mutex::new(weights.map(Arc::new))
}

impl SaGraph {
    /// The graph's weights, when it has them (a clone of the shared pointer: a later
    /// `sa_graph_generate_weights` does not change what a running call uses).
    pub(crate) fn weights(&self) -> Option<Arc<EdgeWeights>> {
        self.weights
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Replaces the graph's weights.
    fn set_weights(&self, weights: EdgeWeights) {
        *self
            .weights
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Arc::new(weights));
    }
}

/// Stores a newly built graph and its weights (if any) in `*out`.
///
/// # Safety
/// `out` must be valid for writing a pointer (checked for NULL before building).
pub(crate) unsafe fn hand_out_weighted(
    out: *mut *mut SaGraph,
    graph: Graph,
    weights: Option<EdgeWeights>,
) -> FfiResult {
    let handle = Box::into_raw(Box::new(SaGraph {
        graph,
        weights: weights_slot(weights),
    }));
    // SAFETY: forwarded from the caller; `out` is not NULL (checked first), so nothing leaks.
    unsafe { ptr::write(out, "out", handle) }
}

/// Borrows the handle itself (graph and weights).
///
/// # Safety
/// `graph` must be NULL or a live handle from this library.
unsafe fn borrow_handle<'a>(graph: *const SaGraph) -> FfiResult<&'a SaGraph> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(graph, "graph") }
}

/// Loads a graph file with its weights when it holds them (see
/// [`load_graph_with_weights`]): a `.wel` file as a weighted edge list (directed unless
/// `undirected`), a weighted `.sag` file with its weights, anything else as `sa_graph_load`
/// always read it (without weights).
pub(crate) fn load_with_weights(
    path: &Path,
    undirected: bool,
    options: &GraphOptions,
) -> FfiResult<(Graph, Option<EdgeWeights>)> {
    let text = TextOptions {
        undirected,
        vertices: None,
    };
    Ok(load_graph_with_weights(path, &text, options)?)
}

/// Saves a graph as `sa_graph_save` does, with its weights in a `.sag` or `.wel` file when it
/// has them (see [`save_graph_with_weights`]); a `.wel` file of a graph without weights is
/// `SA_STATUS_INVALID_ARGUMENT`.
pub(crate) fn save_with_weights(
    graph: &Graph,
    weights: Option<&EdgeWeights>,
    path: &Path,
) -> FfiResult {
    Ok(save_graph_with_weights(graph, weights, path)?)
}

/// Creates a weighted graph from `len` edges `sources[i] -> targets[i]` of weight `weights[i]`
/// (both ends of an undirected edge, with the same weight, when `directed` is false), as
/// `sa_graph_from_edges` does otherwise: vertices are `0..vertices` (0 = one past the largest
/// id; a smaller nonzero count than an id needs is `SA_STATUS_INVALID_ARGUMENT`), repeated
/// edges and self-loops are kept. Weights are non-negative integers below 2^32 (0 is allowed);
/// a larger one is `SA_STATUS_INVALID_ARGUMENT` naming the edge index and the value.
/// `placement` as for `sa_array_new` (NULL = "os"). The three arrays may be NULL when `len` is
/// 0. The weights are what `sa_graph_sssp` adds up.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new graph the caller owns
/// (free with `sa_graph_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `sources`, `targets` and `weights` must point to `len` readable values; `placement` must be
/// NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sa_graph_from_weighted_edges(
    sources: *const u64,
    targets: *const u64,
    weights: *const u64,
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
        // SAFETY: forwarded from the caller.
        let weights = unsafe { ptr::slice(weights, len, "weights") }?;
        let options = graph_options(placement)?;
        let narrow = weights
            .iter()
            .enumerate()
            .map(|(index, &weight)| {
                u32::try_from(weight).map_err(|_| {
                    FfiError::new(
                        SaStatus::InvalidArgument,
                        format!(
                            "weights[{index}] = {weight} does not fit 32 bits: \
                             weights are below 2^32"
                        ),
                    )
                })
            })
            .collect::<FfiResult<Vec<u32>>>()?;
        let edges = edge_list(sources, targets, vertices, directed)?;
        let (graph, weights) = build_weighted(WeightedEdges::from_parts(edges, narrow)?, &options)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out_weighted(out, graph, Some(weights)) }
    })
}

/// Gives every edge a generated weight in `1..=255`, drawn from a hash of the seed and the
/// edge's ends (both directions of an undirected edge get the same weight; the same seed gives
/// the same weights), as the benchmark suites generate weights for unweighted inputs. Replaces
/// the weights the graph had.
///
/// Thread-safe: may run while other calls use the graph; an `sa_graph_sssp` already running
/// keeps the weights it started with.
///
/// # Safety
/// `graph` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_generate_weights(graph: *const SaGraph, seed: u64) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { borrow_handle(graph) }?;
        let weights = EdgeWeights::generate_like_edges(&handle.graph, seed)?;
        handle.set_weights(weights);
        Ok(())
    })
}

/// Writes whether the graph carries edge weights (from `sa_graph_from_weighted_edges`,
/// `sa_graph_generate_weights` or a weighted file) to `*out`.
///
/// Thread-safe.
///
/// # Safety
/// `graph` must be NULL or a live handle; `out` NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_is_weighted(graph: *const SaGraph, out: *mut bool) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { borrow_handle(graph) }?;
        let weighted = handle.weights().is_some();
        // SAFETY: not NULL (checked first); valid for writing (the caller's contract).
        unsafe { ptr::write(out, "out", weighted) }
    })
}

/// Runs delta-stepping on a weighted handle (the checks every SSSP entry point shares).
fn run_sssp(
    handle: &SaGraph,
    source: u64,
    delta: u64,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> FfiResult<smartarrays_graph::SsspResult> {
    let weights = handle.weights().ok_or_else(|| {
        FfiError::new(
            SaStatus::InvalidArgument,
            "sssp needs edge weights and this graph has none: build it with \
             sa_graph_from_weighted_edges, load a weighted .sag or .wel file, or call \
             sa_graph_generate_weights first",
        )
    })?;
    let mut rounds = 0u64;
    let result = sssp(
        &handle.graph,
        &weights,
        source,
        &SsspOptions { delta },
        |_, _| {
            rounds += 1;
            report(progress, user_data, rounds, 0);
        },
    )?;
    Ok(result)
}

/// Single-source shortest paths by delta-stepping (buckets of width `delta`, at least 1; the
/// distances are exact whatever the delta, which only changes the speed): writes every
/// vertex's distance from `source` (the sum of the weights along a shortest path; 0 for the
/// source) to `distances`, -1 for vertices not reached, and the number of vertices reached
/// (the source included) to `*reached` (NULL when not wanted). `distances` holds `len` values,
/// at least the vertex count. `progress` (may be NULL) is called after every round of
/// relaxations with `done` = the rounds run so far and `total` = 0 (the number of rounds is
/// not known in advance).
///
/// Errors: a graph without weights is `SA_STATUS_INVALID_ARGUMENT` (the message says how to
/// give them); so are a source that is not a vertex and `delta` 0; a short buffer is
/// `SA_STATUS_BUFFER_TOO_SMALL`; NULL `graph` or `distances` `SA_STATUS_NULL_POINTER`. On
/// failure nothing is written.
///
/// Thread-safe; any number of runs may share a graph.
///
/// # Safety
/// `graph` must be NULL or a live handle; `distances` NULL or valid for writing `len` values;
/// `reached` NULL or valid for writing; `progress` NULL or a function that may be called with
/// `user_data`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sa_graph_sssp(
    graph: *const SaGraph,
    source: u64,
    delta: u64,
    distances: *mut i64,
    len: usize,
    reached: *mut u64,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { borrow_handle(graph) }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { per_vertex(&handle.graph, distances, len, "distances") }?;
        let result = run_sssp(handle, source, delta, progress, user_data)?;
        let missing = result.unreached();
        let mut values = vec![0u64; out.len()];
        result.distances.unpack(0, &mut values)?;
        for (slot, value) in out.iter_mut().zip(values) {
            *slot = if value == missing {
                -1
            } else {
                i64::try_from(value).map_err(|_| {
                    FfiError::new(
                        SaStatus::InvalidArgument,
                        format!("distance {value} does not fit int64"),
                    )
                })?
            };
        }
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(reached, result.reached) };
        Ok(())
    })
}

/// Single-source shortest paths as `sa_graph_sssp` computes them, the distances handed out as a
/// smart array without a copy: `*distances` gets every vertex's distance, packed at 32 bits
/// while no path can be longer than 2^32 - 2, else 64. A vertex not reached holds all ones at
/// the array's width (`UINT32_MAX` or `UINT64_MAX`; `sa_array_bits` gives the width). The
/// number of vertices reached goes to `*reached` (NULL when not wanted); `progress` as for
/// `sa_graph_sssp`. Errors as for `sa_graph_sssp`.
///
/// Ownership: on success `*distances` is a new array the caller owns (free it with
/// `sa_array_free`); on failure nothing is written. Thread-safe.
///
/// # Safety
/// `graph` must be NULL or a live handle; `distances` valid for writing a pointer; `reached`
/// NULL or valid for writing; `progress` NULL or a function that may be called with
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_sssp_array(
    graph: *const SaGraph,
    source: u64,
    delta: u64,
    distances: *mut *mut SaArray,
    reached: *mut u64,
    progress: SaGraphProgress,
    user_data: *mut c_void,
) -> SaStatus {
    guard(|| {
        ptr::check_out(distances, "distances")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { borrow_handle(graph) }?;
        let result = run_sssp(handle, source, delta, progress, user_data)?;
        // SAFETY: NULL or valid for writing (the caller's contract).
        unsafe { ptr::write_optional(reached, result.reached) };
        let array = SaArray::into_raw(Arc::new(result.distances));
        // SAFETY: not NULL (checked first); valid for writing a pointer (the caller's contract).
        unsafe { ptr::write(distances, "distances", array) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{sa_array_bits, sa_array_free, sa_array_get};
    use crate::graph::{sa_graph_free, sa_graph_from_edges, sa_graph_load, sa_graph_save};
    use std::ffi::CString;
    use std::ptr::{null, null_mut};

    fn weighted(
        sources: &[u64],
        targets: &[u64],
        weights: &[u64],
        vertices: u64,
        directed: bool,
    ) -> (SaStatus, *mut SaGraph) {
        let mut graph = null_mut();
        // SAFETY: the slices hold `len` values; `graph` is a valid output slot.
        let status = unsafe {
            sa_graph_from_weighted_edges(
                sources.as_ptr(),
                targets.as_ptr(),
                weights.as_ptr(),
                sources.len(),
                vertices,
                directed,
                null(),
                &mut graph,
            )
        };
        (status, graph)
    }

    fn distances(graph: *const SaGraph, source: u64, delta: u64) -> (SaStatus, Vec<i64>, u64) {
        let mut shape = 0usize;
        // SAFETY: a live handle (or NULL, refused).
        unsafe { crate::graph::sa_graph_shape(graph, &mut shape, null_mut(), null_mut()) };
        let mut out = vec![7i64; shape];
        let mut reached = 0u64;
        // SAFETY: `out` holds `shape` values.
        let status = unsafe {
            sa_graph_sssp(
                graph,
                source,
                delta,
                out.as_mut_ptr(),
                out.len(),
                &mut reached,
                None,
                null_mut(),
            )
        };
        (status, out, reached)
    }

    #[test]
    fn directed_distances_and_unreached() {
        let (status, graph) = weighted(&[0, 0, 2, 3], &[1, 2, 1, 0], &[5, 1, 2, 1], 5, true);
        assert_eq!(status, SaStatus::Ok);
        for delta in [1, 2, 7, 1000] {
            let (status, out, reached) = distances(graph, 0, delta);
            assert_eq!(status, SaStatus::Ok);
            assert_eq!(out, vec![0, 3, 1, -1, -1]);
            assert_eq!(reached, 3);
        }
        // SAFETY: a live handle, freed once.
        unsafe { sa_graph_free(graph) };
    }

    #[test]
    fn wide_weights_and_errors() {
        let max = u64::from(u32::MAX);
        let (status, graph) = weighted(&[0, 1, 2], &[1, 2, 3], &[max, max, max], 0, false);
        assert_eq!(status, SaStatus::Ok);
        let (_, out, _) = distances(graph, 0, 1000);
        assert_eq!(out, vec![0, max as i64, 2 * max as i64, 3 * max as i64]);
        assert_eq!(distances(graph, 4, 1).0, SaStatus::InvalidArgument);
        assert_eq!(distances(graph, 0, 0).0, SaStatus::InvalidArgument);
        let mut short = [0i64; 3];
        // SAFETY: `short` holds 3 values.
        let status = unsafe {
            sa_graph_sssp(
                graph,
                0,
                1,
                short.as_mut_ptr(),
                3,
                null_mut(),
                None,
                null_mut(),
            )
        };
        assert_eq!(status, SaStatus::BufferTooSmall);
        let mut array = null_mut();
        // SAFETY: live handle; `array` is a valid output slot.
        let status =
            unsafe { sa_graph_sssp_array(graph, 0, 1, &mut array, null_mut(), None, null_mut()) };
        assert_eq!(status, SaStatus::Ok);
        let (mut bits, mut last) = (0u32, 0u64);
        // SAFETY: `array` is a live array handle.
        unsafe {
            sa_array_bits(array, &mut bits);
            sa_array_get(array, 3, &mut last);
            sa_array_free(array);
        }
        assert_eq!((bits, last), (64, 3 * max));
        // SAFETY: a live handle, freed once.
        unsafe { sa_graph_free(graph) };

        let (status, _) = weighted(&[0], &[1], &[max + 1], 0, true);
        assert_eq!(status, SaStatus::InvalidArgument);
        assert!(crate::status::last_error()
            .unwrap_or_default()
            .contains("weights[0] = 4294967296"));
    }

    #[test]
    fn unweighted_generated_and_files() {
        let mut graph = null_mut();
        // SAFETY: the arrays hold 2 values; `graph` is a valid output slot.
        let status = unsafe {
            sa_graph_from_edges(
                [0u64, 1].as_ptr(),
                [1u64, 2].as_ptr(),
                2,
                0,
                true,
                null(),
                &mut graph,
            )
        };
        assert_eq!(status, SaStatus::Ok);
        let mut flag = true;
        // SAFETY: live handle, valid output.
        unsafe { sa_graph_is_weighted(graph, &mut flag) };
        assert!(!flag);
        assert_eq!(distances(graph, 0, 1).0, SaStatus::InvalidArgument);
        assert!(crate::status::last_error()
            .unwrap_or_default()
            .contains("sa_graph_generate_weights"));
        // SAFETY: live handle.
        assert_eq!(unsafe { sa_graph_generate_weights(graph, 3) }, SaStatus::Ok);
        // SAFETY: live handle, valid output.
        unsafe { sa_graph_is_weighted(graph, &mut flag) };
        assert!(flag);
        let (status, out, reached) = distances(graph, 0, 1);
        assert_eq!((status, reached), (SaStatus::Ok, 3));
        assert!(out[1] >= 1 && out[1] <= 255 && out[2] > out[1]);

        let dir = std::env::temp_dir();
        for extension in ["sag", "wel"] {
            let path = dir.join(format!("ffi-weights-{}.{extension}", std::process::id()));
            let text = CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: live handle, NUL-terminated path.
            let status = unsafe { sa_graph_save(graph, text.as_ptr()) };
            let message = crate::status::last_error().unwrap_or_default();
            assert_eq!(status, SaStatus::Ok, "{message}");
            let mut loaded = null_mut();
            // SAFETY: NUL-terminated path, valid output slot.
            let status = unsafe { sa_graph_load(text.as_ptr(), false, null(), &mut loaded) };
            let message = crate::status::last_error().unwrap_or_default();
            assert_eq!(status, SaStatus::Ok, "{message}");
            assert_eq!(distances(loaded, 0, 2).1, out);
            // SAFETY: a live handle, freed once.
            unsafe { sa_graph_free(loaded) };
            let _ = std::fs::remove_file(&path);
        }
        // SAFETY: a live handle, freed once.
        unsafe { sa_graph_free(graph) };
    }
}
