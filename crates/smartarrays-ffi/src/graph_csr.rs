//! Graphs of the C ABI built from compressed sparse row arrays (`sa_graph_from_csr`): the
//! caller's offsets and neighbour ids go straight into the CSR build of `smartarrays-graph`
//! ([`build_from_csr`]), with no edge list in between.

use std::ffi::c_char;

use smartarrays_graph::build_from_csr;

use crate::graph::{graph_options, hand_out, SaGraph};
use crate::ptr;
use crate::status::{guard, FfiError, SaStatus};

/// Creates a graph from CSR arrays: vertex `v`'s neighbours are `targets[offsets[v]]` up to
/// `targets[offsets[v + 1] - 1]`, so `offsets` holds `vertices + 1` values, starts at 0, never
/// decreases and ends at `edges`; every target is below `vertices`. Anything else is
/// `SA_STATUS_INVALID_ARGUMENT` with the first bad position in the message (e.g. `offsets[5] =
/// 3 is below offsets[4] = 7`, `targets[12] = 99 is not a vertex (the graph has 10 vertices)`).
///
/// Directed: the lists are the out-lists (sorted here when they are not), the in-lists their
/// transpose. Undirected: each `(v, w)` of the lists is one undirected edge, stored in both
/// `v`'s and `w`'s lists, so the graph equals `sa_graph_from_edges` of the same pairs (a
/// symmetric matrix holding both `(v, w)` and `(w, v)` gives each edge twice: pass one
/// triangle). Repeated entries and self-loops are kept as given. `placement` as for
/// `sa_array_new` (NULL = "os"). `targets` may be NULL when `edges` is 0; `offsets` is never
/// NULL (it holds at least one value).
///
/// Ownership: the arrays stay the caller's (they are copied); on success `*out` is a new graph
/// the caller owns (free with `sa_graph_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `offsets` must point to `vertices + 1` readable values and `targets` to `edges`; `placement`
/// must be NULL or NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_graph_from_csr(
    offsets: *const u64,
    vertices: usize,
    targets: *const u64,
    edges: usize,
    directed: bool,
    placement: *const c_char,
    out: *mut *mut SaGraph,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        let offsets_len = vertices.checked_add(1).ok_or_else(|| {
            FfiError::new(
                SaStatus::InvalidArgument,
                format!("vertices = {vertices}: offsets cannot hold vertices + 1 values"),
            )
        })?;
        // SAFETY: forwarded from the caller; the length is at least 1, so NULL is refused.
        let offsets = unsafe { ptr::slice(offsets, offsets_len, "offsets") }?;
        // SAFETY: forwarded from the caller.
        let targets = unsafe { ptr::slice(targets, edges, "targets") }?;
        let options = graph_options(placement)?;
        let graph = build_from_csr(offsets, targets, directed, &options)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, graph) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{sa_graph_free, sa_graph_shape};
    use crate::system::sa_last_error_message;

    fn last_message() -> String {
        // SAFETY: the library's own NUL-terminated, thread-local message.
        unsafe { std::ffi::CStr::from_ptr(sa_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn builds_and_reports_shape_and_errors() {
        let offsets = [0u64, 2, 2, 3];
        let targets = [2u64, 1, 1];
        let mut graph = std::ptr::null_mut();
        // SAFETY: valid arrays of the stated lengths and a valid out pointer.
        let status = unsafe {
            sa_graph_from_csr(
                offsets.as_ptr(),
                3,
                targets.as_ptr(),
                3,
                false,
                std::ptr::null(),
                &mut graph,
            )
        };
        assert_eq!(status, SaStatus::Ok);
        let (mut vertices, mut edges, mut directed) = (0usize, 0u64, true);
        // SAFETY: a live handle and valid outputs.
        let status = unsafe { sa_graph_shape(graph, &mut vertices, &mut edges, &mut directed) };
        assert_eq!(status, SaStatus::Ok);
        assert_eq!((vertices, edges, directed), (3, 3, false));
        // SAFETY: the handle is live and not used afterwards.
        unsafe { sa_graph_free(graph) };

        let bad = [0u64, 2, 1, 3];
        let mut graph = std::ptr::null_mut();
        // SAFETY: as above.
        let status = unsafe {
            sa_graph_from_csr(
                bad.as_ptr(),
                3,
                targets.as_ptr(),
                3,
                true,
                std::ptr::null(),
                &mut graph,
            )
        };
        assert_eq!(status, SaStatus::InvalidArgument);
        assert!(graph.is_null());
        assert!(last_message().contains("offsets[2] = 1 is below offsets[1] = 2"));
        // SAFETY: NULL offsets are refused before any read.
        let status = unsafe {
            sa_graph_from_csr(
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                true,
                std::ptr::null(),
                &mut graph,
            )
        };
        assert_eq!(status, SaStatus::NullPointer);
        assert!(last_message().contains("offsets"));
        // SAFETY: the length overflows and is refused before any read.
        let status = unsafe {
            sa_graph_from_csr(
                offsets.as_ptr(),
                usize::MAX,
                targets.as_ptr(),
                3,
                true,
                std::ptr::null(),
                &mut graph,
            )
        };
        assert_eq!(status, SaStatus::InvalidArgument);
    }
}
