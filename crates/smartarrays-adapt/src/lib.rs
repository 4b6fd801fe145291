//! # smartarrays-adapt
//!
//! Adaptivity for smart arrays (Psaroudakis et al., EuroSys 2018, §6): choose each array's NUMA
//! placement and bit compression automatically from three inputs, and explain the choice.
//!
//! 1. [`MachineDescription`]: nodes, cores, memory; bandwidth and latency per node pair; compute
//!    per core. Presets for the paper's two machines; [`mlc::this_machine`] measures this one
//!    with a short built-in microbenchmark and caches the result.
//! 2. [`CostProfile`]: CPU cost of one access at every width 1..=64, sequential and random.
//! 3. [`WorkloadProfile`]: what a run of the workload did (time, accesses per array, counters),
//!    collected by a [`profile::Profiler`] in the uncompressed interleaved configuration, or
//!    modelled from stated characteristics.
//!
//! [`Advisor::choose`] walks the paper's decision diagrams (step 1) and compares the two
//! candidates with the §6.2 speedup estimate (step 2, [`model`]); the [`Choice`] prints its
//! reasoning. Beyond the paper: [`Advisor::choose_jointly`] picks per-array configurations
//! under one memory budget, [`auto`] resolves "Auto" placement/compression into core
//! [`smartarrays::ArrayOptions`], and [`adaptive`] restructures the arrays of a running
//! iterative workload (PageRank) without readers ever seeing a half-built array.
//!
//! This crate chooses; it does not experiment. The profiles of particular jobs (the paper's
//! aggregation, degree centrality, PageRank), the paper-style evaluation (picked-best rate,
//! distance from the best, gain over the best static configuration) and the checks of the
//! paper's findings on its two machines live in the unpublished experiments crate
//! `smartarrays-lab` (`smartarrays_lab::evaluate`).
//!
//! # Example
//! ```
//! use smartarrays_adapt::{Advisor, CostProfile, MachineDescription};
//! use smartarrays_adapt::profile::{ArrayProfile, ArraySpec, Source, WorkloadProfile};
//!
//! // The paper's aggregation (two arrays of 500 M values, 33-bit data) on its 18-core machine.
//! let machine = MachineDescription::paper_18core();
//! let costs = CostProfile::for_preset("paper-18core").unwrap();
//! let arrays = ["a1", "a2"].map(|name| ArrayProfile {
//!     spec: ArraySpec::read_only(name, 500_000_000, 33),
//!     sequential_reads: 5e8, random_reads: 0.0, writes: 0.0,
//!     access_source: Source::UserGiven,
//! });
//! let profile = WorkloadProfile::modelled("aggregate", &machine, &costs, arrays.to_vec(), 0.0, 15.0).unwrap();
//! let choice = Advisor::new(machine, costs).choose(&profile).unwrap();
//! assert!(choice.chosen.compressed); // on the 18-core machine compression pays
//! println!("{choice}");
//! ```

pub mod adaptive;
pub mod auto;
pub mod costs;
pub mod decide;
mod error;
pub mod machine;
pub mod mlc;
pub mod model;
pub mod perf;
pub mod profile;

pub use auto::{
    install, install_for_this_machine, AutoOptions, Characteristics, Compression, PlacementRule,
};
pub use costs::CostProfile;
pub use decide::{Advisor, AdvisorSettings, Candidate, Choice, JointChoice, Step};
pub use error::{AdaptError, Result};
pub use machine::MachineDescription;
pub use profile::WorkloadProfile;

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
