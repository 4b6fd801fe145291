//! Memory checks made before a graph's arrays are allocated, so that one bad line in a file (a
//! vertex id of 2^32, a Matrix Market size of 10^11) or an oversized generator request is an
//! error naming the value, not an allocation failure that aborts the process.

use smartarrays::memory::current_available_memory;

/// Bytes a graph needs per vertex at the least while it is built and used (CSR offsets, degree
/// counts and one value array, 8 bytes each, and as much again for the reverse direction).
pub const BYTES_PER_VERTEX: u64 = 32;

/// Bytes a parsed or generated edge needs at the least (a pair of 32-bit ids).
pub const BYTES_PER_EDGE: u64 = 8;

/// Memory the machine can hand out now (MemAvailable); when the kernel does not say,
/// `u64::MAX`, so that nothing is refused on a guess.
pub fn available_bytes() -> u64 {
    current_available_memory().unwrap_or(u64::MAX)
}

/// Vertex ids below this value fit the memory available now.
pub fn vertex_id_limit() -> u64 {
    available_bytes() / BYTES_PER_VERTEX
}

/// Why `vertices` (as a number, possibly past 2^64 - 1) do not fit in `available` bytes.
pub fn too_many_vertices(vertices: u128, available: u64) -> String {
    let needed = vertices.saturating_mul(u128::from(BYTES_PER_VERTEX));
    format!(
        "{vertices} vertices need at least {} of memory ({BYTES_PER_VERTEX} bytes each), but \
         this machine has {} available",
        human(needed),
        human(u128::from(available))
    )
}

/// The problem with vertex id `id`, or `None` when a graph with that id fits `limit`.
pub fn check_vertex_id(id: u64, limit: u64) -> Option<String> {
    (id >= limit).then(|| {
        format!(
            "vertex id {id} is too large: {}",
            too_many_vertices(u128::from(id) + 1, limit.saturating_mul(BYTES_PER_VERTEX))
        )
    })
}

/// Checks that a graph of `vertices` vertices and `edges` edges fits the memory available now.
pub fn check_graph(vertices: u128, edges: u128) -> Result<(), String> {
    let available = available_bytes();
    let needed = vertices
        .saturating_mul(u128::from(BYTES_PER_VERTEX))
        .saturating_add(edges.saturating_mul(u128::from(BYTES_PER_EDGE)));
    if needed > u128::from(available) {
        return Err(format!(
            "{vertices} vertices and {edges} edges need at least {} of memory, but this machine \
             has {} available",
            human(needed),
            human(u128::from(available))
        ));
    }
    Ok(())
}

/// Bytes for people: `34.4 GB`.
fn human(bytes: u128) -> String {
    let value = bytes as f64;
    match value {
        v if v >= 1e12 => format!("{:.1} TB", v / 1e12),
        v if v >= 1e9 => format!("{:.1} GB", v / 1e9),
        v if v >= 1e6 => format!("{:.1} MB", v / 1e6),
        _ => format!("{bytes} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_past_the_limit_are_named_with_what_they_would_need() {
        assert_eq!(check_vertex_id(9, 10), None);
        let problem = check_vertex_id(10, 10).unwrap();
        assert!(
            problem.starts_with("vertex id 10 is too large: 11 vertices need"),
            "{problem}"
        );
        let problem = check_vertex_id(u64::MAX, 1 << 30).unwrap();
        assert!(
            problem.contains("18446744073709551616 vertices"),
            "{problem}"
        );
        assert!(check_graph(1 << 70, 0).is_err());
        assert!(check_graph(10, 10).is_ok());
    }
}
