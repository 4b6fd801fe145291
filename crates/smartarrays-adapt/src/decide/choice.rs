//! What a decision produces and how it explains itself: the recorded tests ([`Step`]), the
//! candidates with their estimates, the calibration, and the answers [`Choice`] and
//! [`JointChoice`] with their plain-words reports.

use serde::{Deserialize, Serialize};
use smartarrays::topology::format_bytes;
use smartarrays::Placement;

use crate::model::{Estimate, Scales};
use crate::profile::WorkloadProfile;

/// Tunable bounds of the decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdvisorSettings {
    /// Random accesses are "significant" when the latency of the profiled run's random reads
    /// would keep the cores busy at least this fraction of the run (0..1).
    pub random_significant: f64,
    /// Fraction of a node's free memory the arrays may take.
    pub memory_headroom: f64,
    /// Scale the machine's capacities so that the model reproduces the profiled run.
    pub calibrate: bool,
    /// When the model says a profiled run was bandwidth-bound but the run moved less than this
    /// fraction of the machine's bandwidth, its extra time is taken as CPU work the cost profile
    /// does not see (allocation, the workload's own arithmetic) rather than as lost bandwidth.
    pub bandwidth_floor: f64,
}

impl Default for AdvisorSettings {
    fn default() -> Self {
        AdvisorSettings {
            random_significant: 0.5,
            memory_headroom: 0.9,
            calibrate: true,
            bandwidth_floor: 0.6,
        }
    }
}

/// Which kind of characteristic a diagram test uses (paper §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Characteristic {
    /// Stated by the programmer (read-only, iterations).
    Software,
    /// Measured from the workload (profile).
    Runtime,
    /// From the machine description.
    Machine,
}

/// One test of a decision diagram, answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The question, e.g. "Is the data read-only?".
    pub question: String,
    /// Kind of characteristic it rests on.
    pub characteristic: Characteristic,
    /// The answer.
    pub answer: bool,
    /// The numbers behind the answer, in words.
    pub because: String,
}

/// A configuration estimated by the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Placement of the adaptable arrays.
    pub placement: Placement,
    /// Whether the adaptable arrays are at their minimal width.
    pub compressed: bool,
    /// Width of every array of the profile, in order.
    pub widths: Vec<u32>,
    /// Modelled seconds per run and bottleneck (calibrated).
    pub estimate: Estimate,
    /// Measured (or modelled) seconds per run of the profiled configuration over this estimate.
    pub speedup: f64,
    /// Memory all arrays take in this configuration (every replica counted).
    pub memory_bytes: f64,
}

impl Candidate {
    /// Short label, e.g. "replicated, compressed".
    pub fn label(&self) -> String {
        format!(
            "{}, {}",
            self.placement,
            if self.compressed {
                "compressed"
            } else {
                "uncompressed"
            }
        )
    }
}

/// How the model was fitted to the profiled run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Measured seconds per run of the profiled configuration.
    pub measured_seconds: f64,
    /// Model's seconds for it with the machine as described.
    pub modelled_seconds: f64,
    /// The profiled run's modelled bottleneck.
    pub bottleneck: Vec<String>,
    /// Scale factors applied afterwards.
    pub scales: Scales,
    /// CPU work per run (core-seconds) added to every estimate: time of the profiled run that
    /// neither the cost profile nor the machine's bandwidth explains.
    #[serde(default)]
    pub extra_compute_seconds: f64,
    /// How the difference between model and measurement was attributed, in words.
    #[serde(default)]
    pub attribution: String,
}

/// The advisor's answer for a workload whose adaptable arrays share one configuration (the
/// paper's setting).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Workload name.
    pub workload: String,
    /// Machine name.
    pub machine: String,
    /// The chosen configuration.
    pub chosen: Candidate,
    /// Step 1's uncompressed candidate.
    pub uncompressed: Candidate,
    /// Step 1's compressed candidate (absent when the values cannot be compressed).
    pub compressed: Option<Candidate>,
    /// Diagram (a) as walked.
    pub uncompressed_steps: Vec<Step>,
    /// Diagram (b) as walked.
    pub compressed_steps: Vec<Step>,
    /// The model's fit to the profiled run.
    pub calibration: Calibration,
    /// Every configuration the model can estimate, for reference (not used by the decision).
    pub alternatives: Vec<Candidate>,
    /// Remarks (missing figures, one-node machine...).
    pub notes: Vec<String>,
    /// What the caller fixed that ruled the other candidate out (for instance "the width was
    /// fixed to 64 bits by the caller"), if anything.
    #[serde(default)]
    pub constraint: Option<String>,
}

impl Choice {
    /// The chosen width of array `name`.
    pub fn bits_of(&self, profile: &WorkloadProfile, name: &str) -> Option<u32> {
        profile
            .arrays
            .iter()
            .position(|a| a.spec.name == name)
            .map(|i| self.chosen.widths[i])
    }

    /// Plain-words summary in one sentence.
    pub fn summary(&self) -> String {
        let other = if self.chosen.compressed {
            Some(&self.uncompressed)
        } else {
            self.compressed.as_ref()
        };
        let comparison = match (other, &self.constraint) {
            (Some(other), Some(constraint)) if other.speedup > self.chosen.speedup => format!(
                "; the other candidate ({}, estimated at {:.2}x) was not an option: {constraint}",
                other.label(),
                other.speedup
            ),
            (Some(other), _) => format!(
                "; the other candidate ({}) is estimated at {:.2}x",
                other.label(),
                other.speedup
            ),
            (None, _) => String::new(),
        };
        format!(
            "use {} for {}: estimated {:.2}x the speed of the profiled run (limited by {}){comparison}",
            self.chosen.label(),
            self.workload,
            self.chosen.speedup,
            if self.chosen.estimate.bottleneck.is_empty() {
                "nothing saturated".to_string()
            } else {
                self.chosen.estimate.bottleneck.join(", ")
            }
        )
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "choice for {} on {}:", self.workload, self.machine)?;
        writeln!(f, "  {}", self.summary())?;
        let c = &self.calibration;
        writeln!(
            f,
            "  calibration: profiled run {:.4} s per run, model {:.4} s (bottleneck {}); scales compute x{:.2}, bandwidth x{:.2}, latency x{:.2}",
            c.measured_seconds,
            c.modelled_seconds,
            if c.bottleneck.is_empty() { "none".into() } else { c.bottleneck.join(", ") },
            c.scales.compute,
            c.scales.bandwidth,
            c.scales.latency
        )?;
        writeln!(f, "  calibration: {}", c.attribution)?;
        writeln!(f, "  step 1a, uncompressed placement:")?;
        for step in &self.uncompressed_steps {
            writeln!(
                f,
                "    - {} {} ({})",
                step.question,
                if step.answer { "yes" } else { "no" },
                step.because
            )?;
        }
        writeln!(f, "    => candidate: {}", self.uncompressed.label())?;
        writeln!(f, "  step 1b, compressed placement:")?;
        for step in &self.compressed_steps {
            writeln!(
                f,
                "    - {} {} ({})",
                step.question,
                if step.answer { "yes" } else { "no" },
                step.because
            )?;
        }
        match &self.compressed {
            Some(candidate) => writeln!(f, "    => candidate: {}", candidate.label())?,
            None => writeln!(f, "    => no compressed candidate")?,
        }
        writeln!(
            f,
            "  step 2, estimated speed of each candidate against the profiled run:"
        )?;
        for candidate in std::iter::once(&self.uncompressed).chain(self.compressed.as_ref()) {
            writeln!(
                f,
                "    {:<34} {:>8.4} s per run  {:>6.2}x  widths {:?}  memory {}  bottleneck: {}",
                candidate.label(),
                candidate.estimate.seconds,
                candidate.speedup,
                candidate.widths,
                format_bytes(candidate.memory_bytes as u64),
                candidate.estimate.bottleneck.join(", ")
            )?;
        }
        writeln!(f, "    => {}", self.chosen.label())?;
        if !self.alternatives.is_empty() {
            writeln!(
                f,
                "  for reference, every configuration the model estimates:"
            )?;
            for candidate in &self.alternatives {
                writeln!(
                    f,
                    "    {:<34} {:>8.4} s  {:>6.2}x",
                    candidate.label(),
                    candidate.estimate.seconds,
                    candidate.speedup
                )?;
            }
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

/// One array's part of a joint choice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayDecision {
    /// The array.
    pub name: String,
    /// Its placement.
    pub placement: Placement,
    /// Its width.
    pub bits: u32,
    /// Memory it takes (all replicas).
    pub memory_bytes: f64,
}

/// Placement and width per array under one memory budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointChoice {
    /// Workload name.
    pub workload: String,
    /// Per array, in profile order.
    pub arrays: Vec<ArrayDecision>,
    /// Modelled time per run.
    pub estimate: Estimate,
    /// Profiled time per run over the estimate.
    pub speedup: f64,
    /// Memory of all arrays.
    pub memory_bytes: f64,
    /// The budget (None: only the nodes' free memory).
    pub budget_bytes: Option<f64>,
    /// Seconds to build replicas beyond one copy (counted unless hidden behind loading).
    pub replication_seconds: f64,
    /// The best configuration shared by every adaptable array under the same budget, for comparison.
    pub uniform: Option<(String, f64)>,
    /// Configurations evaluated.
    pub evaluated: usize,
    /// How the search went.
    pub notes: Vec<String>,
}

impl std::fmt::Display for JointChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let budget = self
            .budget_bytes
            .map_or("the nodes' free memory".to_string(), |b| {
                format_bytes(b as u64)
            });
        writeln!(f, "joint choice for {} under {budget}:", self.workload)?;
        for a in &self.arrays {
            writeln!(
                f,
                "  {:<14} {:<14} {:>2} bits  {}",
                a.name,
                a.placement.to_string(),
                a.bits,
                format_bytes(a.memory_bytes as u64)
            )?;
        }
        writeln!(
            f,
            "  estimated {:.4} s per run ({:.2}x the profiled run), memory {}, limited by {}",
            self.estimate.seconds,
            self.speedup,
            format_bytes(self.memory_bytes as u64),
            self.estimate.bottleneck.join(", ")
        )?;
        if self.replication_seconds > 0.0 {
            writeln!(
                f,
                "  building the replicas costs about {:.4} s once",
                self.replication_seconds
            )?;
        }
        if let Some((label, speedup)) = &self.uniform {
            writeln!(
                f,
                "  best single configuration for all arrays: {label} at {speedup:.2}x"
            )?;
        }
        writeln!(f, "  {} configurations evaluated", self.evaluated)?;
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}
