//! # smartarrays-ffi
//!
//! The C ABI of smartarrays, and its Arrow export. The C library itself (`libsmartarrays.so` /
//! `libsmartarrays.a`) is built by the `smartarrays-capi` crate, which links this one; the header
//! is `include/smartarrays.h`, generated from this crate by cbindgen (see `build.rs`) and checked
//! in.
//!
//! Rules every exported function follows:
//! - opaque handles ([`SaArray`], [`SaF64Array`], [`SaColumn`], [`SaSelection`], [`SaMap`],
//!   [`SaSet`], [`SaBag`], [`SaFrozenMap`], [`SaFrozenSet`], [`SaGraph`]) created and freed by the library;
//! - every fallible call returns an [`SaStatus`]; the message of the last failure on the calling
//!   thread is returned by [`sa_last_error_message`];
//! - no panic crosses the boundary ([`status::guard`] catches them as `SA_STATUS_PANIC`);
//! - NULL pointers are reported as `SA_STATUS_NULL_POINTER`, naming the argument;
//! - ownership and thread safety are documented on every function (and in the header).
//!
//! Modules: [`status`] (codes, last error, guard), [`ptr`] (checked pointer conversions),
//! [`system`] (version, strings, runtime, topology), [`array`](mod@array) (`SaArray`), [`float`]
//! (`SaF64Array`), [`arrow`] (Arrow C Data and Stream interfaces, with a Rust API),
//! [`column`](mod@column) (typed encoded columns of `smartarrays-encodings`: `SaColumn`, `SaSelection`),
//! [`collections`] (smart collections of `smartarrays-collections`: `SaMap`, `SaSet`, `SaBag`),
//! [`frozen`] (their read-only succinct forms: `SaFrozenMap`, `SaFrozenSet`),
//! [`graph`](mod@graph) (graphs and algorithms of `smartarrays-graph`: `SaGraph`),
//! [`graph_csr`] (`sa_graph_from_csr`: graphs from CSR offset and neighbour arrays),
//! [`graph_weights`] (edge weights and `sa_graph_sssp`: weighted graphs and shortest paths),
//! [`graph_reorder`] (`sa_graph_reorder_by_degree`: vertices relabelled by degree, and the id map),
//! [`query`] (tables and SQL of `smartarrays-query`: `SaCatalog`, `sa_query` with an Arrow C
//! stream result).
//!
//! # Example (C)
//! ```c
//! #include <smartarrays.h>
//! uint64_t values[] = {1, 2, 3};
//! SaArray *array = NULL;
//! if (sa_array_from_u64(values, 3, "interleaved", 0, &array) != SA_STATUS_OK) {
//!     fprintf(stderr, "%s\n", sa_last_error_message());
//! }
//! uint64_t sum = 0;
//! sa_array_sum(array, &sum);
//! sa_array_free(array);
//! ```

pub mod array;
pub mod arrow;
pub mod collections;
pub mod column;
pub mod float;
pub mod frozen;
pub mod graph;
pub mod graph_csr;
pub mod graph_reorder;
pub mod graph_weights;
mod lookup;
pub mod ptr;
pub mod query;
pub mod status;
pub mod system;

pub use array::*;
pub use arrow::{sa_array_export_arrow, sa_array_export_arrow_stream, sa_f64_array_export_arrow};
pub use collections::*;
pub use column::*;
pub use float::*;
pub use frozen::*;
pub use graph::*;
pub use graph_csr::*;
pub use graph_reorder::*;
pub use graph_weights::*;
pub use query::*;
pub use status::SaStatus;
pub use system::*;

#[cfg(test)]
mod header {
    /// The header cbindgen generated for this build (see build.rs).
    const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/smartarrays.h"));

    /// Fails when `include/smartarrays.h` differs from what the sources generate. With
    /// `SMARTARRAYS_WRITE_HEADER=1` it rewrites the checked-in header instead (`make ffi-header`).
    #[test]
    fn checked_in_header_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include/smartarrays.h");
        if std::env::var_os("SMARTARRAYS_WRITE_HEADER").is_some() {
            std::fs::write(&path, GENERATED).expect("write include/smartarrays.h");
            return;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        if checked_in != GENERATED {
            let fresh = std::env::temp_dir()
                .join(format!("smartarrays.h.generated.{}", std::process::id()));
            let _ = std::fs::write(&fresh, GENERATED);
            let line = checked_in
                .lines()
                .zip(GENERATED.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0)
                + 1;
            panic!(
                "{} is out of date (first difference at line {line}; see `diff -u {} {}`); run `make ffi-header` and commit it",
                path.display(),
                path.display(),
                fresh.display()
            );
        }
    }
}
