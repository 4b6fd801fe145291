//! # smartarrays-lab
//!
//! Experiments, kept apart from the libraries: the paper's jobs run in any configuration with
//! profiling ([`workloads`]: the aggregation and degree centrality, as the advisor's evaluation
//! and `smartarrays advise` measure them), and the advisor's evaluation ([`evaluate`]: the
//! modelled profiles of the paper's jobs, the paper-style summary of how well Auto picked, the
//! paper's findings checked on its two machines, and the measurements behind `smartarrays bench
//! adapt`).
//!
//! The benchmarks' measurements live here too ([`bench`](mod@bench): aggregation, codec
//! kernels, random reads, graph algorithms), each timed next to its plain baseline
//! ([`baselines`]: raw slices, the fastlanes crate, a plain CSR graph) with the helpers of
//! [`measure`]; criterion benches of the codec per width and kernel level are in `benches/`
//! (`cargo bench -p smartarrays-lab`), and the Rust row of the cross-language benchmark (`make
//! bench-languages`) is the example `langbench-rust`.
//! [`collections_bench`] times the smart collections against hashbrown, foldhash and dashmap;
//! [`encodings_bench`] the encodings against the raw scan (DuckDB and Parquet in a script).
//!
//! Not published; the CLI sits on top of it and of the libraries, parsing arguments and printing
//! what the lab measured. The crate graph itself is checked by this crate's test `layering`.

pub mod baselines;
pub mod bench;
pub mod collections_bench;
pub mod encodings_bench;
pub mod evaluate;
pub mod measure;
pub mod workloads;

/// Errors of the experiments: whatever the core, the advisor or the graph library refused.
pub type Error = Box<dyn std::error::Error>;

/// Result alias of the lab.
pub type Result<T> = std::result::Result<T, Error>;
