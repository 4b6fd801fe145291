//! # smartarrays-lab
//!
//! Experiments, kept apart from the libraries: the paper's jobs run in any configuration with
//! profiling ([`workloads`]: the aggregation and degree centrality, as the advisor's evaluation
//! and `smartarrays advise` measure them). Not published; the CLI sits on top of it and of the
//! libraries. The crate graph itself is checked by this crate's test `layering`.

pub mod encodings_bench;
pub mod workloads;

/// Errors of the experiments: whatever the core, the advisor or the graph library refused.
pub type Error = Box<dyn std::error::Error>;

/// Result alias of the lab.
pub type Result<T> = std::result::Result<T, Error>;
