//! Vertex relabelling by degree of `smartarrays-graph` in the C ABI: `sa_graph_reorder_by_degree`
//! makes a new graph whose vertex 0 has the largest degree (a weighted graph keeps every weight
//! with its edge) and writes the id map into caller buffers, `original_ids` (new id -> input id)
//! and `new_ids` (input id -> new id). The use is "relabel once, run many kernels, map the
//! results back": sources go in as `new_ids[source]`, and a per-vertex value comes back as
//! `value_in_input_order[v] = value[new_ids[v]]`. Two results need more than indexing and have
//! a function each: BFS parents (`sa_graph_parents_to_original`: the parent is a vertex id too)
//! and component labels (`sa_graph_labels_to_original`: the label is the smallest id of the
//! component, which changes with the ids).

use smartarrays_graph::{reorder_by_degree, reorder_by_degree_weighted, VertexIds};

use crate::graph::{per_vertex, SaGraph};
use crate::ptr;
use crate::status::{guard, FfiResult, SaStatus};

/// Relabels `graph` by decreasing degree (out-degree plus in-degree when directed, the list
/// length when undirected; equal degrees keep their input order) into a new graph `*out` with
/// the same vertices, edges, self-loops, repeats, array widths and placement. A weighted graph's
/// weights move with their edges, so `sa_graph_sssp` on the new graph gives the same distances.
/// Writes the id map to the caller buffers (each may be NULL when not wanted; each holds `len`
/// values, at least the vertex count, else `SA_STATUS_BUFFER_TOO_SMALL`):
/// `original_ids[w]` is the input id of new vertex `w`, and `new_ids[v]` the new id of input
/// vertex `v`.
///
/// Run the algorithms on `*out` from `new_ids[source]`, then index with the map to read the
/// results in input order: `levels_in_input_order[v] = levels[new_ids[v]]` (likewise
/// distances, ranks, scores); BFS parents with `sa_graph_parents_to_original`, component
/// labels with `sa_graph_labels_to_original`. Triangle counts need nothing.
///
/// ```c
/// SaGraph *fast = NULL;
/// uint64_t *new_ids = malloc(n * sizeof(uint64_t));
/// sa_graph_reorder_by_degree(graph, &fast, new_ids, NULL, n);
/// sa_graph_bfs(fast, new_ids[source], levels, NULL, n);  // levels[new_ids[v]] is v's level
/// ```
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new graph the caller owns
/// (free with `sa_graph_free`); on failure nothing is written. Thread-safe; the input graph
/// is only read.
///
/// # Safety
/// `graph` must be NULL or a live handle; `out` valid for writing a pointer; `new_ids` and
/// `original_ids` NULL or valid for writing `len` values.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_reorder_by_degree(
    graph: *const SaGraph,
    out: *mut *mut SaGraph,
    new_ids: *mut u64,
    original_ids: *mut u64,
    len: usize,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(graph, "graph") }?;
        let input = &handle.graph;
        let new_out = if new_ids.is_null() {
            None
        } else {
            // SAFETY: forwarded from the caller.
            Some(unsafe { per_vertex(input, new_ids, len, "new_ids") }?)
        };
        let original_out = if original_ids.is_null() {
            None
        } else {
            // SAFETY: forwarded from the caller.
            Some(unsafe { per_vertex(input, original_ids, len, "original_ids") }?)
        };
        let (reordered, weights) = match handle.weights() {
            Some(weights) => {
                let (reordered, new_weights) = reorder_by_degree_weighted(input, &weights)?;
                (reordered, Some(new_weights))
            }
            None => (reorder_by_degree(input)?, None),
        };
        if let Some(slots) = new_out {
            slots.copy_from_slice(reordered.ids.new_ids());
        }
        if let Some(slots) = original_out {
            slots.copy_from_slice(reordered.ids.original_ids());
        }
        // SAFETY: forwarded from the caller; `out` is not NULL (checked first).
        unsafe { crate::graph_weights::hand_out_weighted(out, reordered.graph, weights) }
    })
}

/// The id map of `len` vertices from the caller's `new_ids`, checked to be a permutation.
///
/// # Safety
/// `new_ids` must be NULL or point to `len` readable values.
unsafe fn id_map(new_ids: *const u64, len: usize) -> FfiResult<VertexIds> {
    // SAFETY: forwarded from the caller.
    let new_ids = unsafe { ptr::slice(new_ids, len, "new_ids") }?;
    Ok(VertexIds::from_new_ids(new_ids.to_vec())?)
}

/// BFS parents of a relabelled graph (`parents`, indexed by new id, holding new ids, -1 for
/// vertices not reached, as `sa_graph_bfs` writes them) in input order and input ids:
/// `out[v]` is the input id of the parent of input vertex `v`, -1 where not reached. `new_ids`
/// is the map `sa_graph_reorder_by_degree` wrote (`len` values, a permutation of `0..len`,
/// else `SA_STATUS_INVALID_ARGUMENT`); a parent that is not a vertex is
/// `SA_STATUS_INVALID_ARGUMENT`. `out` must not overlap `parents`. Thread-safe.
///
/// # Safety
/// `new_ids` and `parents` must point to `len` readable values, `out` to `len` writable ones.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_parents_to_original(
    new_ids: *const u64,
    parents: *const i64,
    len: usize,
    out: *mut i64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let ids = unsafe { id_map(new_ids, len) }?;
        // SAFETY: forwarded from the caller.
        let parents = unsafe { ptr::slice(parents, len, "parents") }?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, len, "out") }?;
        // -1 is all ones as u64: the "not reached" marker passes through.
        let words: Vec<u64> = parents.iter().map(|&p| p as u64).collect();
        let mapped = ids.ids_to_original(&words, Some(u64::MAX))?;
        for (slot, value) in out.iter_mut().zip(mapped) {
            *slot = value as i64;
        }
        Ok(())
    })
}

/// Component labels of a relabelled graph (`labels`, indexed by new id, any label below `len`,
/// as `sa_graph_connected_components` writes them) as the input graph's labels: `out[v]` is
/// the smallest input id of input vertex `v`'s component, what `sa_graph_connected_components`
/// gives on the input graph. `new_ids` as for `sa_graph_parents_to_original`; a label that is
/// not a vertex id is `SA_STATUS_INVALID_ARGUMENT`. `out` may be `labels` itself (in place).
/// Thread-safe.
///
/// # Safety
/// `new_ids` and `labels` must point to `len` readable values, `out` to `len` writable ones.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_labels_to_original(
    new_ids: *const u64,
    labels: *const u64,
    len: usize,
    out: *mut u64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let ids = unsafe { id_map(new_ids, len) }?;
        // A copy, so that `out` may be `labels`.
        // SAFETY: forwarded from the caller.
        let labels = unsafe { ptr::slice(labels, len, "labels") }?.to_vec();
        let mapped = ids.labels_to_original(&labels)?;
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, len, "out") }?;
        out.copy_from_slice(&mapped);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{sa_graph_bfs, sa_graph_free, sa_graph_kronecker};

    #[test]
    fn reorders_and_maps_back() {
        let mut graph: *mut SaGraph = std::ptr::null_mut();
        // SAFETY: valid out pointer; NULL placement.
        let status = unsafe { sa_graph_kronecker(6, 4, 3, false, std::ptr::null(), &mut graph) };
        assert_eq!(status, SaStatus::Ok);
        let n = 64;
        let mut fast: *mut SaGraph = std::ptr::null_mut();
        let mut new_ids = vec![0u64; n];
        let mut original_ids = vec![0u64; n];
        // SAFETY: live graph, buffers of n values.
        let status = unsafe {
            sa_graph_reorder_by_degree(
                graph,
                &mut fast,
                new_ids.as_mut_ptr(),
                original_ids.as_mut_ptr(),
                n,
            )
        };
        assert_eq!(status, SaStatus::Ok);
        for v in 0..n {
            assert_eq!(original_ids[new_ids[v] as usize], v as u64);
        }
        let (mut levels, mut parents) = (vec![0i64; n], vec![0i64; n]);
        let (mut fast_levels, mut fast_parents) = (vec![0i64; n], vec![0i64; n]);
        // SAFETY: live graphs, buffers of n values.
        unsafe {
            assert_eq!(
                sa_graph_bfs(graph, 0, levels.as_mut_ptr(), parents.as_mut_ptr(), n),
                SaStatus::Ok
            );
            assert_eq!(
                sa_graph_bfs(
                    fast,
                    new_ids[0],
                    fast_levels.as_mut_ptr(),
                    fast_parents.as_mut_ptr(),
                    n
                ),
                SaStatus::Ok
            );
        }
        let mut mapped = vec![0i64; n];
        // SAFETY: buffers of n values.
        let status = unsafe {
            sa_graph_parents_to_original(
                new_ids.as_ptr(),
                fast_parents.as_ptr(),
                n,
                mapped.as_mut_ptr(),
            )
        };
        assert_eq!(status, SaStatus::Ok);
        for v in 0..n {
            assert_eq!(fast_levels[new_ids[v] as usize], levels[v]);
            // A parent is one level up and a neighbour; BFS trees may differ, levels may not.
            if mapped[v] >= 0 {
                assert_eq!(levels[mapped[v] as usize] + i64::from(v != 0), levels[v]);
            } else {
                assert_eq!(levels[v], -1);
            }
        }
        // Errors: a buffer too short, a map that is not a permutation.
        let mut other: *mut SaGraph = std::ptr::null_mut();
        // SAFETY: live graph, buffer of 1 value.
        let status = unsafe {
            sa_graph_reorder_by_degree(
                graph,
                &mut other,
                new_ids.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
            )
        };
        assert_eq!(status, SaStatus::BufferTooSmall);
        assert!(other.is_null());
        let bad = [0u64, 0];
        let labels = [0u64, 1];
        let mut out = [0u64; 2];
        // SAFETY: buffers of 2 values.
        let status = unsafe {
            sa_graph_labels_to_original(bad.as_ptr(), labels.as_ptr(), 2, out.as_mut_ptr())
        };
        assert_eq!(status, SaStatus::InvalidArgument);
        // SAFETY: handles from this library, freed once.
        unsafe {
            sa_graph_free(fast);
            sa_graph_free(graph);
        }
    }
}
