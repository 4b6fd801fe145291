//! Where each figure of a profile came from: [`Source`], and [`Figure`], a number with its source.

use serde::{Deserialize, Serialize};

use crate::perf::CounterSource;

/// Where a figure of a profile came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `perf_event_open` hardware counters.
    HardwareCounters,
    /// `perf_event_open` software event (task clock).
    PerfSoftwareEvent,
    /// Each worker's CPU clock.
    ThreadCpuClock,
    /// The wall clock around the run.
    WallClock,
    /// Counted by the workload's loops while it ran.
    CountedAccesses,
    /// Stated by the workload from its algorithm (e.g. "one pass over begin").
    DeclaredByWorkload,
    /// Estimated: counted accesses times the array cost profile.
    CostProfileEstimate,
    /// Given by the user.
    UserGiven,
    /// Computed by the performance model (no run).
    Modelled,
}

impl Source {
    /// Plain-words description.
    pub fn describe(self) -> &'static str {
        match self {
            Source::HardwareCounters => "hardware counters (perf_event)",
            Source::PerfSoftwareEvent => "kernel software event (perf task clock)",
            Source::ThreadCpuClock => "per-thread CPU clock",
            Source::WallClock => "wall clock",
            Source::CountedAccesses => "counted while running",
            Source::DeclaredByWorkload => "declared by the workload",
            Source::CostProfileEstimate => "estimated from counted accesses and the cost profile",
            Source::UserGiven => "given by the user",
            Source::Modelled => "modelled, not measured",
        }
    }
}

impl From<CounterSource> for Source {
    fn from(source: CounterSource) -> Source {
        match source {
            CounterSource::HardwareCounters => Source::HardwareCounters,
            CounterSource::PerfSoftwareEvent => Source::PerfSoftwareEvent,
            CounterSource::ThreadCpuClock => Source::ThreadCpuClock,
        }
    }
}

/// A number with its source.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The value.
    pub value: f64,
    /// Where it came from.
    pub source: Source,
}

impl Figure {
    /// A figure.
    pub fn new(value: f64, source: Source) -> Figure {
        Figure { value, source }
    }
}
