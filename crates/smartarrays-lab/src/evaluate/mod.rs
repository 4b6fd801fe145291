//! Evaluation the paper's way (§6.3), moved here from the advisor library because it is an
//! experiment, not part of choosing: over cases (a workload at one data width on one machine)
//! with the time of every configuration, how often Auto picked the fastest, its mean and worst
//! distance from it, and its gain over the best single static configuration ([`summarise`]).
//!
//! And the paper's findings on its two machines ([`paper_findings`]): the presets are fed the
//! paper's Table 1 figures and modelled profiles of the aggregation (§5.1) and degree centrality
//! (§5.2) workloads; every finding is checked against the model's estimates, with the range of
//! decode costs over which it holds (the decode cost of the paper's implementation is not
//! published, so it is our estimate, see [`CostProfile::haswell_model`]).
//!
//! One job per file: [`summary`] scores cases, [`profiles`] models the paper's jobs, [`findings`]
//! checks the paper's statements on the presets, and [`measured`] times every configuration of
//! the jobs on this machine (`smartarrays bench adapt`).
//!
//! [`CostProfile::haswell_model`]: smartarrays_adapt::CostProfile::haswell_model

pub mod findings;
pub mod measured;
pub mod profiles;
pub mod summary;

pub use findings::{paper_findings, Finding, ModelledCase, PresetEvaluation};
pub use profiles::{
    aggregation_profile, degree_profile, pagerank_profile, PAPER_AGGREGATE_VALUES,
    PAPER_DEGREE_VERTICES, PAPER_WIDTHS,
};
pub use summary::{
    rule, summarise, summarise_compression, Case, CaseOutcome, CompressionSummary, ConfigTime,
    Summary,
};
