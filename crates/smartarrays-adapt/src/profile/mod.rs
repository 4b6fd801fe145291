//! Workload profile (input 3 of the paper's §6): what one run of a workload did, collected while
//! it ran in the uncompressed interleaved configuration, as the paper does: elapsed time; per
//! array its length, widths, reads (sequential and random) and writes; CPU time; instructions and
//! cycles when the kernel has hardware counters. Every figure carries the [`Source`] it came
//! from, so a profile says plainly what was measured, counted, estimated or given.
//!
//! [`Profiler`] collects a profile around a workload that counts its accesses in
//! [`AccessCounter`]s (one atomic add per batch). [`WorkloadProfile::modelled`] builds one from
//! characteristics alone (for the paper's machines, or when the user states them).
//!
//! One job per file: [`Source`] and [`Figure`] (where a number came from), the arrays' specs
//! and access counts ([`ArraySpec`], [`ArrayProfile`]), the [`WorkloadProfile`] itself (built,
//! checked, saved and shown), and the [`Profiler`] that collects one around real runs.

mod arrays;
mod profiler;
mod source;
mod workload;

pub use arrays::{natural_bits, ArrayProfile, ArraySpec, Decode};
pub use profiler::{AccessCounter, Profiler};
pub use source::{Figure, Source};
pub use workload::{access_compute_seconds, WorkloadProfile};

/// Format tag of workload profile files.
pub const PROFILE_FORMAT: &str = "smartarrays-profile/1";
