//! The decision (paper §6): step 1 walks the two decision diagrams of Figure 13 (a: uncompressed
//! placement, b: compressed placement) to get one candidate of each kind; step 2 estimates both
//! with the model of [`crate::model`] (the §6.2 speedup estimate) and keeps the faster. Every
//! test of the diagrams is recorded as a [`Step`] with the numbers behind its answer, so a
//! [`Choice`] can explain itself in plain words.
//!
//! Figure 13 is a drawing the text we work from does not reproduce; the diagrams here are our
//! reading of §6.1. Diagram (a): read-only? → enough accesses per element to pay for the
//! replicas? → room for a replica on every node? → replicate; otherwise, significant random
//! accesses? → interleave (the lowest-latency placement without replicas); otherwise the
//! "all local speedup > all remote slowdown" test picks single node or interleaved. Diagram (b)
//! first asks whether the values can be compressed at all and whether the compressed arrays fit
//! (compression can make replication possible), then the same tests on compressed sizes and
//! traffic.
//!
//! Beyond the paper, [`Advisor::choose_jointly`] picks placement and width for each array of a
//! workload separately under one memory budget.

use smartarrays::topology::format_bytes;
use smartarrays::Placement;

use crate::costs::CostProfile;
use crate::error::{AdaptError, Result};
use crate::machine::MachineDescription;
use crate::model::{self, Estimate, ResourceKind, Scales};
use crate::profile::{ArrayProfile, Source, WorkloadProfile};

mod choice;
mod joint;

pub use choice::{
    AdvisorSettings, ArrayDecision, Calibration, Candidate, Characteristic, Choice, JointChoice,
    Step,
};

/// The best joint configuration so far: configs, lifetime cost, estimate, memory, replica build time.
type Best = (Vec<(Placement, u32)>, f64, Estimate, f64, f64);

/// Picks configurations from a machine description, an array cost profile and workload profiles.
///
/// # Example
/// ```
/// use smartarrays_adapt::{Advisor, CostProfile, MachineDescription};
/// use smartarrays_adapt::profile::{ArrayProfile, ArraySpec, Source, WorkloadProfile};
/// let machine = MachineDescription::paper_8core();
/// let costs = CostProfile::for_preset("paper-8core").unwrap();
/// let arrays = ["a1", "a2"].map(|name| ArrayProfile {
///     spec: ArraySpec::read_only(name, 500_000_000, 64),
///     sequential_reads: 5e8, random_reads: 0.0, writes: 0.0,
///     access_source: Source::UserGiven,
/// });
/// let profile = WorkloadProfile::modelled("aggregate", &machine, &costs, arrays.to_vec(), 0.0, 15.0).unwrap();
/// let choice = Advisor::new(machine, costs).choose(&profile).unwrap();
/// assert_eq!(choice.chosen.placement, smartarrays::Placement::Replicated); // the paper's finding
/// println!("{choice}");
/// ```
#[derive(Clone, Debug)]
pub struct Advisor {
    /// The machine.
    pub machine: MachineDescription,
    /// Access costs on it.
    pub costs: CostProfile,
    /// Bounds.
    pub settings: AdvisorSettings,
}

/// Context shared by the tests of one decision.
struct Context<'a> {
    profile: &'a WorkloadProfile,
    scales: Scales,
    extra_compute: f64,
    measured: f64,
    nodes: Vec<usize>,
}

impl Advisor {
    /// An advisor with default settings.
    pub fn new(machine: MachineDescription, costs: CostProfile) -> Advisor {
        Advisor {
            machine,
            costs,
            settings: AdvisorSettings::default(),
        }
    }

    /// Fits the model to the profiled run: estimates the profiled configuration with the machine
    /// as described, and scales the capacity of its bottleneck so that the estimate equals the
    /// measured time (the paper scales the bandwidths to the utilisation the workload reached).
    pub fn calibrate(&self, profile: &WorkloadProfile) -> Result<Calibration> {
        profile.validate()?;
        let configs = profile.profiled_configs();
        let widths: Vec<u32> = configs.iter().map(|c| c.1).collect();
        let compute = profile.compute_seconds_at(&widths, &self.costs);
        let plain = model::estimate(
            &self.machine,
            &profile.threads,
            &profile.loads(&configs),
            compute,
            &Scales::default(),
        )?;
        let measured = profile.seconds_per_run();
        let mut scales = Scales::default();
        let mut extra_compute_seconds = 0.0;
        let mut attribution = "not calibrated (modelled profile or calibration off)".to_string();
        if self.settings.calibrate && profile.elapsed_seconds.source != Source::Modelled {
            let factor = (plain.seconds / measured).clamp(0.01, 100.0);
            let cores: f64 = profile
                .threads
                .iter()
                .map(|&(node, threads)| {
                    self.machine.node(node).map_or(0, |n| n.cores.min(threads)) as f64
                })
                .sum();
            let unexplained_work = (measured * cores - compute).max(0.0);
            match plain.bottleneck_kind {
                Some(ResourceKind::Memory | ResourceKind::Link)
                    if factor >= self.settings.bandwidth_floor || factor > 1.0 =>
                {
                    scales.bandwidth = factor;
                    attribution = format!(
                        "bandwidth-bound: the run reached {:.0}% of the modelled bandwidth; bandwidths scaled to that",
                        factor * 100.0
                    );
                }
                Some(ResourceKind::Memory | ResourceKind::Link) => {
                    extra_compute_seconds = unexplained_work;
                    attribution = format!(
                        "the run moved only {:.0}% of the bandwidth the machine has (bound {:.0}%), so its extra time is taken as {:.4} core-s of CPU work per run that the cost profile does not see",
                        factor * 100.0,
                        self.settings.bandwidth_floor * 100.0,
                        unexplained_work
                    );
                }
                Some(ResourceKind::Compute) if factor < 1.0 => {
                    extra_compute_seconds = unexplained_work;
                    attribution = format!("compute-bound: {unexplained_work:.4} core-s of CPU work per run beyond the array accesses");
                }
                Some(ResourceKind::Compute) => {
                    scales.compute = factor;
                    attribution = format!(
                        "compute-bound and faster than modelled: compute scaled by {factor:.2}"
                    );
                }
                Some(ResourceKind::Latency) => {
                    scales.latency = factor;
                    attribution = format!("latency-bound: latency capacity scaled by {factor:.2}");
                }
                None => attribution = "no bottleneck found".into(),
            }
        }
        Ok(Calibration {
            measured_seconds: measured,
            modelled_seconds: plain.seconds,
            bottleneck: plain.bottleneck,
            scales,
            extra_compute_seconds,
            attribution,
        })
    }

    /// CPU work per run at `widths`, with the calibration's unexplained work.
    fn compute(&self, context: &Context, widths: &[u32]) -> f64 {
        context.profile.compute_seconds_at(widths, &self.costs) + context.extra_compute
    }

    /// The calibrated model's estimate of a run with each array at its `(placement, bits)` of
    /// `configs`.
    fn estimate_at(&self, context: &Context, configs: &[(Placement, u32)]) -> Result<Estimate> {
        let widths: Vec<u32> = configs.iter().map(|c| c.1).collect();
        model::estimate(
            &self.machine,
            &context.profile.threads,
            &context.profile.loads(configs),
            self.compute(context, &widths),
            &context.scales,
        )
    }

    fn context<'a>(&self, profile: &'a WorkloadProfile) -> Result<(Context<'a>, Calibration)> {
        let calibration = self.calibrate(profile)?;
        let context = Context {
            profile,
            scales: calibration.scales,
            extra_compute: calibration.extra_compute_seconds,
            measured: calibration.measured_seconds,
            nodes: self.machine.node_ids(),
        };
        Ok((context, calibration))
    }

    /// Widths of every array: the adaptable ones compressed (minimal) or not (natural), the
    /// others as profiled.
    fn widths(profile: &WorkloadProfile, compressed: bool) -> Vec<u32> {
        profile
            .arrays
            .iter()
            .map(|a| match (a.spec.adaptable, compressed) {
                (false, _) => a.spec.profiled_bits,
                (true, true) => a.spec.minimal_bits,
                (true, false) => a.spec.natural_bits,
            })
            .collect()
    }

    fn configs(
        profile: &WorkloadProfile,
        placement: &Placement,
        widths: &[u32],
    ) -> Vec<(Placement, u32)> {
        profile
            .arrays
            .iter()
            .zip(widths)
            .map(|(a, &bits)| {
                (
                    if a.spec.adaptable {
                        placement.clone()
                    } else {
                        Placement::Interleaved(Vec::new())
                    },
                    bits,
                )
            })
            .collect()
    }

    /// Models the adaptable arrays at `placement` and `widths` (others as profiled).
    fn candidate(
        &self,
        context: &Context,
        placement: &Placement,
        compressed: bool,
    ) -> Result<Candidate> {
        let widths = Self::widths(context.profile, compressed);
        self.candidate_with(
            context,
            Self::configs(context.profile, placement, &widths),
            placement.clone(),
            compressed,
        )
    }

    fn candidate_with(
        &self,
        context: &Context,
        configs: Vec<(Placement, u32)>,
        placement: Placement,
        compressed: bool,
    ) -> Result<Candidate> {
        let estimate = self.estimate_at(context, &configs)?;
        let widths: Vec<u32> = configs.iter().map(|c| c.1).collect();
        let memory_bytes = context
            .profile
            .arrays
            .iter()
            .zip(&configs)
            .map(|(a, (p, bits))| {
                a.bytes_at(*bits)
                    * if matches!(p, Placement::Replicated) {
                        self.machine.nodes.len() as f64
                    } else {
                        1.0
                    }
            })
            .sum();
        Ok(Candidate {
            placement,
            compressed,
            widths,
            speedup: context.measured / estimate.seconds,
            estimate,
            memory_bytes,
        })
    }

    /// Bytes each node must hold for the adaptable arrays at `placement` and `widths`, plus the
    /// fixed arrays (interleaved).
    fn bytes_per_node(
        &self,
        profile: &WorkloadProfile,
        placement: &Placement,
        widths: &[u32],
    ) -> Vec<(usize, f64)> {
        let nodes = self.machine.node_ids();
        let n = nodes.len() as f64;
        nodes
            .iter()
            .map(|&node| {
                let bytes = profile
                    .arrays
                    .iter()
                    .zip(widths)
                    .map(|(a, &bits)| {
                        let size = a.bytes_at(bits);
                        match (a.spec.adaptable, placement) {
                            // Auto never reaches here (candidates are concrete); count it as spread out.
                            (false, _)
                            | (
                                true,
                                Placement::Interleaved(_) | Placement::OsDefault | Placement::Auto,
                            ) => size / n,
                            (true, Placement::Replicated) => size,
                            (true, Placement::SingleNode(k)) => {
                                if *k == node {
                                    size
                                } else {
                                    0.0
                                }
                            }
                        }
                    })
                    .sum();
                (node, bytes)
            })
            .collect()
    }

    /// Whether `placement` fits in every node's free memory (with headroom); the reason in words.
    fn fits(
        &self,
        profile: &WorkloadProfile,
        placement: &Placement,
        widths: &[u32],
    ) -> (bool, String) {
        let mut worst: Option<(usize, f64, f64)> = None;
        for (node, bytes) in self.bytes_per_node(profile, placement, widths) {
            let free = self
                .machine
                .node(node)
                .map_or(0.0, |n| n.memory_free as f64)
                * self.settings.memory_headroom;
            if worst.is_none_or(|(_, b, f)| bytes - free > b - f) {
                worst = Some((node, bytes, free));
            }
        }
        match worst {
            Some((node, bytes, free)) => (
                bytes <= free,
                format!(
                    "node {node} would hold {} of {} usable ({}% of its free memory)",
                    format_bytes(bytes as u64),
                    format_bytes(free as u64),
                    (self.settings.memory_headroom * 100.0).round()
                ),
            ),
            None => (false, "no node".into()),
        }
    }

    /// Replication's break-even: (accesses per element needed, seconds to build the extra
    /// replicas, seconds gained per run, (interleaved, replicated) seconds per run).
    fn replication_threshold(
        &self,
        context: &Context,
        compressed: bool,
    ) -> Result<(f64, f64, f64, (f64, f64))> {
        let profile = context.profile;
        let widths = Self::widths(profile, compressed);
        let interleaved =
            self.candidate(context, &Placement::Interleaved(Vec::new()), compressed)?;
        let replicated = self.candidate(context, &Placement::Replicated, compressed)?;
        let gain = interleaved.estimate.seconds - replicated.estimate.seconds;
        let bytes: f64 = profile
            .arrays
            .iter()
            .zip(&widths)
            .filter(|(a, _)| a.spec.adaptable)
            .map(|(a, &b)| a.bytes_at(b))
            .sum();
        let slowest = self
            .machine
            .nodes
            .iter()
            .filter_map(|n| self.machine.link(n.id, n.id).map(|l| l.read_bandwidth_gbs))
            .fold(f64::INFINITY, f64::min)
            * 1e9
            * context.scales.bandwidth;
        let build = if self.machine.nodes.len() > 1 {
            bytes / slowest
        } else {
            0.0
        };
        let (reads, len) = profile
            .arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .fold((0.0, 0.0), |(r, l), a| {
                (r + a.reads() / profile.runs, l + a.spec.len as f64)
            });
        let per_run = if len > 0.0 { reads / len } else { 0.0 };
        let needed = if gain > 0.0 {
            build / gain * per_run
        } else {
            f64::INFINITY
        };
        Ok((
            needed,
            build,
            gain,
            (interleaved.estimate.seconds, replicated.estimate.seconds),
        ))
    }

    /// Fraction of the profiled run the cores would spend waiting on random-read latency.
    fn random_pressure(&self, context: &Context) -> Result<f64> {
        let estimate = self.estimate_at(context, &context.profile.profiled_configs())?;
        Ok(estimate
            .utilisation
            .iter()
            .filter(|u| u.kind == ResourceKind::Latency)
            .map(|u| u.fraction)
            .fold(0.0, f64::max))
    }

    /// The paper's "all local speedup > all remote slowdown" test at `widths`, generalised to
    /// N nodes: for each home node, the thread-weighted mean of the local node's speedup
    /// (compute or memory left after remote readers) and the other nodes' speedups (their link).
    /// Returns the best home node, its mean speedup, and the figures in words.
    fn single_node_test(
        &self,
        context: &Context,
        compressed: bool,
    ) -> Result<(usize, f64, String)> {
        let profile = context.profile;
        let widths = Self::widths(profile, compressed);
        let seconds = context.measured;
        let bytes_per_run: f64 = profile
            .loads(
                &profile
                    .profiled_configs()
                    .into_iter()
                    .zip(&widths)
                    .map(|((p, _), &b)| (p, b))
                    .collect::<Vec<_>>(),
            )
            .iter()
            .map(|l| l.read_bytes() + l.write_bytes())
            .sum();
        let total_threads: f64 = profile.threads.iter().map(|t| t.1 as f64).sum();
        let compute = self.compute(context, &widths);
        let scale = context.scales.bandwidth * 1e9;
        let mut best: Option<(usize, f64, String)> = None;
        for &home in &context.nodes {
            let mut weighted = 0.0;
            let mut parts = Vec::new();
            for &(node, threads) in profile.threads.iter().filter(|t| t.1 > 0) {
                let share = threads as f64 / total_threads;
                let bw_current = bytes_per_run / seconds * share;
                let cores = self
                    .machine
                    .node(node)
                    .map_or(1.0, |n| (n.cores.min(threads)) as f64)
                    * context.scales.compute;
                let exec = if compute > 0.0 {
                    cores / (compute * share / seconds)
                } else {
                    f64::INFINITY
                };
                let speedup = if node == home {
                    let memory = self.machine.link(home, home).ok_or_else(|| {
                        AdaptError::MissingFigure(format!("node {home} local figures"))
                    })?;
                    let inbound: f64 = context
                        .nodes
                        .iter()
                        .filter(|&&o| o != home)
                        .map(|&o| {
                            self.machine
                                .link(o, home)
                                .map(|l| l.read_bandwidth_gbs)
                                .ok_or_else(|| {
                                    AdaptError::MissingFigure(format!(
                                        "node {o} reading node {home}"
                                    ))
                                })
                        })
                        .sum::<Result<f64>>()?;
                    let bw = ((memory.read_bandwidth_gbs - inbound) * scale / bw_current).max(0.0);
                    parts.push(format!(
                        "node {node} local: min(compute {exec:.2}x, memory {bw:.2}x)"
                    ));
                    exec.min(bw)
                } else {
                    let link = self.machine.link(node, home).ok_or_else(|| {
                        AdaptError::MissingFigure(format!("node {node} reading node {home}"))
                    })?;
                    let bw = link.read_bandwidth_gbs * scale / bw_current;
                    parts.push(format!(
                        "node {node} remote: min(compute {exec:.2}x, link {bw:.2}x)"
                    ));
                    exec.min(bw)
                };
                weighted += share * speedup;
            }
            let words = format!(
                "data on node {home}: {}; mean {weighted:.2}x",
                parts.join(", ")
            );
            if best.as_ref().is_none_or(|b| weighted > b.1) {
                best = Some((home, weighted, words));
            }
        }
        best.ok_or_else(|| AdaptError::InvalidInput("the machine has no node".into()))
    }

    /// Walks one diagram; returns the placement and the steps.
    fn diagram(
        &self,
        context: &Context,
        compressed: bool,
    ) -> Result<(Option<Placement>, Vec<Step>)> {
        let profile = context.profile;
        let mut steps = Vec::new();
        let widths = Self::widths(profile, compressed);
        let adaptable: Vec<&ArrayProfile> =
            profile.arrays.iter().filter(|a| a.spec.adaptable).collect();
        if compressed {
            let compressible = adaptable
                .iter()
                .any(|a| a.spec.minimal_bits < a.spec.natural_bits);
            let widths_words = adaptable
                .iter()
                .map(|a| {
                    format!(
                        "{} needs {} of {} bits",
                        a.spec.name, a.spec.minimal_bits, a.spec.natural_bits
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            steps.push(Step {
                question: "Can the values be stored in fewer bits?".into(),
                characteristic: Characteristic::Runtime,
                answer: compressible,
                because: widths_words,
            });
            if !compressible {
                return Ok((None, steps));
            }
            let (fits, words) = self.fits(profile, &Placement::Interleaved(Vec::new()), &widths);
            steps.push(Step {
                question: "Do the compressed arrays fit (interleaved)?".into(),
                characteristic: Characteristic::Runtime,
                answer: fits,
                because: words,
            });
        }
        let interleaved = Placement::Interleaved(Vec::new());
        if self.machine.nodes.len() == 1 {
            let (fits, words) = self.fits(profile, &interleaved, &widths);
            steps.push(Step {
                question: "Is there more than one NUMA node?".into(),
                characteristic: Characteristic::Machine,
                answer: false,
                because: format!(
                    "one node: every placement puts the pages on it (interleaved = single node = one replica); {words}{}",
                    if fits { "" } else { ", which does not fit" }
                ),
            });
            return Ok((Some(interleaved), steps));
        }
        let read_only = profile.read_only();
        steps.push(Step {
            question: "Is the data read-only?".into(),
            characteristic: Characteristic::Software,
            answer: read_only,
            because: if read_only {
                "no adaptable array is written".into()
            } else {
                "the workload writes an adaptable array; replicas would all need every write".into()
            },
        });
        let mut replicate = false;
        if read_only {
            let (needed, build, gain, times) = self.replication_threshold(context, compressed)?;
            let have = profile.accesses_per_element();
            let enough = profile.init_hidden || have >= needed;
            let because = if profile.init_hidden {
                "building replicas is hidden behind loading".to_string()
            } else if needed.is_infinite() {
                format!("replicas save nothing per run here (model: {:.4} s interleaved, {:.4} s replicated)", times.0, times.1)
            } else {
                format!(
                    "{have:.1} accesses per element over {} runs; replicas take {build:.4} s to build and save {gain:.4} s per run, so {needed:.2} are needed",
                    profile.expected_runs
                )
            };
            steps.push(Step {
                question: "Enough accesses per element to pay for replicas?".into(),
                characteristic: Characteristic::Software,
                answer: enough,
                because,
            });
            if enough {
                let (fits, words) = self.fits(profile, &Placement::Replicated, &widths);
                steps.push(Step {
                    question: format!(
                        "Is there space for {} replicas on every node?",
                        if compressed {
                            "compressed"
                        } else {
                            "uncompressed"
                        }
                    ),
                    characteristic: Characteristic::Runtime,
                    answer: fits,
                    because: words,
                });
                replicate = fits;
            }
        }
        if replicate {
            return Ok((Some(Placement::Replicated), steps));
        }
        let pressure = self.random_pressure(context)?;
        let significant = pressure >= self.settings.random_significant;
        steps.push(Step {
            question: "Significant random accesses?".into(),
            characteristic: Characteristic::Runtime,
            answer: significant,
            because: format!(
                "random reads are {:.0}% of reads; their latency would keep the cores {:.0}% busy (bound {:.0}%)",
                profile.random_share() * 100.0,
                pressure * 100.0,
                self.settings.random_significant * 100.0
            ),
        });
        if significant {
            return Ok((Some(interleaved), steps));
        }
        let single = self.single_node_test(context, compressed);
        match single {
            Ok((home, speedup, words)) => {
                // The paper compares with 1, the speed of the profiled (interleaved, uncompressed)
                // run; for compressed data the fair comparison is interleaving at the same
                // widths, estimated by the model (equal to 1 after calibration for diagram a).
                let interleaved_speedup = context.measured
                    / self
                        .candidate(context, &interleaved, compressed)?
                        .estimate
                        .seconds;
                let beneficial = speedup > interleaved_speedup * 1.001;
                let words = format!("{words}, against {interleaved_speedup:.2}x for interleaving");
                steps.push(Step {
                    question: "All local speedup > all remote slowdown?".into(),
                    characteristic: Characteristic::Machine,
                    answer: beneficial,
                    because: words,
                });
                if beneficial {
                    let placement = Placement::SingleNode(home);
                    let (fits, words) = self.fits(profile, &placement, &widths);
                    steps.push(Step {
                        question: format!("Is there space on node {home}?"),
                        characteristic: Characteristic::Runtime,
                        answer: fits,
                        because: words,
                    });
                    if fits {
                        return Ok((Some(placement), steps));
                    }
                }
            }
            Err(AdaptError::MissingFigure(what)) => steps.push(Step {
                question: "All local speedup > all remote slowdown?".into(),
                characteristic: Characteristic::Machine,
                answer: false,
                because: format!("cannot tell: {what} is not in the machine description"),
            }),
            Err(other) => return Err(other),
        }
        Ok((Some(interleaved), steps))
    }

    /// Steps 1 and 2 for a workload whose adaptable arrays share one configuration.
    pub fn choose(&self, profile: &WorkloadProfile) -> Result<Choice> {
        let (context, calibration) = self.context(profile)?;
        let mut notes = Vec::new();
        if self.machine.nodes.len() == 1 {
            notes.push("one NUMA node: only the compression decision matters here; remote figures are absent and not needed".into());
        }
        let (uncompressed_placement, uncompressed_steps) = self.diagram(&context, false)?;
        let uncompressed_placement =
            uncompressed_placement.unwrap_or(Placement::Interleaved(Vec::new()));
        let uncompressed = self.candidate(&context, &uncompressed_placement, false)?;
        let (compressed_placement, compressed_steps) = self.diagram(&context, true)?;
        let compressed = match compressed_placement {
            Some(placement) => Some(self.candidate(&context, &placement, true)?),
            None => None,
        };
        let chosen = match &compressed {
            Some(c)
                if c.estimate.seconds < uncompressed.estimate.seconds
                    || (c.estimate.seconds == uncompressed.estimate.seconds
                        && c.memory_bytes < uncompressed.memory_bytes) =>
            {
                c.clone()
            }
            _ => uncompressed.clone(),
        };
        let mut alternatives = Vec::new();
        for placement in self.placements(profile.read_only()) {
            for compressed in [false, true] {
                if compressed
                    && !profile
                        .arrays
                        .iter()
                        .any(|a| a.spec.adaptable && a.spec.minimal_bits < a.spec.natural_bits)
                {
                    continue;
                }
                match self.candidate(&context, &placement, compressed) {
                    Ok(candidate) => alternatives.push(candidate),
                    Err(AdaptError::MissingFigure(what)) => {
                        notes.push(format!("{placement} not estimated: {what}"))
                    }
                    Err(other) => return Err(other),
                }
            }
        }
        Ok(Choice {
            workload: profile.workload.clone(),
            machine: self.machine.name.clone(),
            chosen,
            uncompressed,
            compressed,
            uncompressed_steps,
            compressed_steps,
            calibration,
            alternatives,
            notes,
            constraint: None,
        })
    }

    /// The placements worth considering on this machine: interleaved, each single node and
    /// (for read-only data) replicated; on one node, interleaved alone.
    pub fn placements(&self, read_only: bool) -> Vec<Placement> {
        let mut placements = vec![Placement::Interleaved(Vec::new())];
        if self.machine.nodes.len() > 1 {
            placements.extend(
                self.machine
                    .node_ids()
                    .into_iter()
                    .map(Placement::SingleNode),
            );
            if read_only {
                placements.push(Placement::Replicated);
            }
        }
        placements
    }

    /// Estimates an arbitrary configuration of the adaptable arrays (for evaluations).
    pub fn estimate_configuration(
        &self,
        profile: &WorkloadProfile,
        placement: &Placement,
        compressed: bool,
    ) -> Result<Candidate> {
        let (context, _) = self.context(profile)?;
        self.candidate(&context, placement, compressed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{ArraySpec, Figure};

    /// The paper's aggregation, modelled: two read-only arrays of `values` 64-bit integers whose
    /// data needs `bits` bits, each scanned once per run (the lab's `aggregation_profile`; this
    /// crate does not depend on the lab, so the tests build it themselves).
    fn aggregation_profile(
        machine: &MachineDescription,
        costs: &CostProfile,
        values: u64,
        bits: u32,
        expected_runs: f64,
    ) -> Result<WorkloadProfile> {
        let arrays = ["a1", "a2"]
            .iter()
            .map(|name| ArrayProfile {
                spec: ArraySpec::read_only(name, values, bits).with_natural(64),
                sequential_reads: values as f64,
                random_reads: 0.0,
                writes: 0.0,
                access_source: Source::DeclaredByWorkload,
            })
            .collect();
        WorkloadProfile::modelled("aggregate", machine, costs, arrays, 0.0, expected_runs)
    }

    fn one_node() -> MachineDescription {
        let mut machine = MachineDescription::paper_18core();
        machine.nodes.truncate(1);
        machine.links.retain(|l| l.from == 0 && l.to == 0);
        machine
    }

    fn costs() -> CostProfile {
        CostProfile::haswell_model(2.3)
    }

    /// A "measured" profile: the modelled one with its time replaced by `factor` times the model's.
    fn measured(machine: &MachineDescription, bits: u32, factor: f64) -> WorkloadProfile {
        let mut profile = aggregation_profile(machine, &costs(), 100_000_000, bits, 15.0).unwrap();
        profile.elapsed_seconds =
            Figure::new(profile.elapsed_seconds.value * factor, Source::WallClock);
        profile
    }

    #[test]
    fn calibration_scales_bandwidth_or_adds_unexplained_work() {
        let machine = one_node();
        let advisor = Advisor::new(machine.clone(), costs());
        let near = advisor.calibrate(&measured(&machine, 33, 1.25)).unwrap();
        assert!((near.scales.bandwidth - 0.8).abs() < 1e-3, "{near:?}");
        assert_eq!(near.extra_compute_seconds, 0.0);
        let slow = advisor.calibrate(&measured(&machine, 33, 3.0)).unwrap();
        assert_eq!(slow.scales.bandwidth, 1.0);
        assert!(
            slow.extra_compute_seconds > 0.0 && slow.attribution.contains("CPU work"),
            "{slow:?}"
        );
        // After calibration the profiled configuration is estimated at the measured time.
        for profile in [measured(&machine, 33, 1.25), measured(&machine, 33, 3.0)] {
            let candidate = advisor
                .estimate_configuration(&profile, &Placement::Interleaved(vec![]), false)
                .unwrap();
            assert!(
                (candidate.speedup - 1.0).abs() < 1e-3,
                "{}",
                candidate.speedup
            );
        }
    }

    #[test]
    fn on_one_node_only_compression_is_decided_and_cpu_bound_runs_stay_uncompressed() {
        let machine = one_node();
        let advisor = Advisor::new(machine.clone(), costs());
        let bandwidth_bound = advisor.choose(&measured(&machine, 33, 1.0)).unwrap();
        assert_eq!(
            bandwidth_bound.chosen.placement,
            Placement::Interleaved(vec![])
        );
        assert!(bandwidth_bound.chosen.compressed, "{bandwidth_bound}");
        assert!(bandwidth_bound
            .uncompressed_steps
            .iter()
            .any(|s| s.question.contains("more than one NUMA node") && !s.answer));
        assert!(bandwidth_bound
            .notes
            .iter()
            .any(|n| n.contains("one NUMA node")));
        // Five times slower than the bandwidth allows: CPU-bound, so unpacking only adds work.
        let cpu_bound = advisor.choose(&measured(&machine, 33, 5.0)).unwrap();
        assert!(!cpu_bound.chosen.compressed, "{cpu_bound}");
        // Native 64-bit data has no compressed candidate.
        let native = advisor.choose(&measured(&machine, 64, 1.0)).unwrap();
        assert!(native.compressed.is_none() && !native.chosen.compressed);
    }

    #[test]
    fn diagram_tests_follow_the_software_characteristics() {
        let machine = MachineDescription::paper_8core();
        let advisor = Advisor::new(
            machine.clone(),
            CostProfile::for_preset("paper-8core").unwrap(),
        );
        let mut profile =
            aggregation_profile(&machine, &advisor.costs, 500_000_000, 64, 15.0).unwrap();
        assert_eq!(
            advisor.choose(&profile).unwrap().chosen.placement,
            Placement::Replicated
        );
        // One run does not pay for building replicas...
        profile.expected_runs = 0.5;
        let once = advisor.choose(&profile).unwrap();
        assert_ne!(once.uncompressed.placement, Placement::Replicated, "{once}");
        assert!(once
            .uncompressed_steps
            .iter()
            .any(|s| s.question.contains("pay for replicas") && !s.answer));
        // ...unless building them is hidden behind loading.
        profile.init_hidden = true;
        assert_eq!(
            advisor.choose(&profile).unwrap().uncompressed.placement,
            Placement::Replicated
        );
        // Written data is never replicated; on the 8-core machine single socket beats interleaving.
        profile.init_hidden = false;
        profile.expected_runs = 15.0;
        for array in &mut profile.arrays {
            array.spec.read_only = false;
        }
        let written = advisor.choose(&profile).unwrap();
        assert_eq!(
            written.uncompressed.placement,
            Placement::SingleNode(0),
            "{written}"
        );
        assert!(written
            .uncompressed_steps
            .iter()
            .any(|s| s.question.contains("read-only") && !s.answer));
    }

    #[test]
    fn random_heavy_workloads_take_the_lowest_latency_placement_without_replicas() {
        let mut machine = MachineDescription::paper_8core();
        machine.memory_level_parallelism = 1.0;
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let array = ArrayProfile {
            spec: ArraySpec::written("table", 1 << 30, 30).with_natural(64),
            sequential_reads: 0.0,
            random_reads: 1e8,
            writes: 1e3,
            access_source: Source::UserGiven,
        };
        let profile =
            WorkloadProfile::modelled("lookups", &machine, &costs, vec![array], 0.0, 10.0).unwrap();
        let choice = Advisor::new(machine, costs).choose(&profile).unwrap();
        assert_eq!(
            choice.uncompressed.placement,
            Placement::Interleaved(vec![])
        );
        assert!(
            choice
                .uncompressed_steps
                .iter()
                .any(|s| s.question.contains("random") && s.answer),
            "{choice}"
        );
    }

    #[test]
    fn missing_remote_figures_are_said_not_guessed() {
        let mut machine = MachineDescription::paper_8core();
        machine
            .links
            .retain(|l| l.from == l.to || (l.from == 0 && l.to == 1));
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let mut profile = aggregation_profile(
            &MachineDescription::paper_8core(),
            &costs,
            100_000_000,
            33,
            15.0,
        )
        .unwrap();
        for array in &mut profile.arrays {
            array.spec.read_only = false;
        }
        let advisor = Advisor::new(machine, costs);
        match advisor.choose(&profile) {
            Ok(choice) => {
                assert!(
                    choice
                        .uncompressed_steps
                        .iter()
                        .any(|s| s.because.contains("cannot tell")),
                    "{choice}"
                );
            }
            Err(error) => assert!(matches!(error, AdaptError::MissingFigure(_)), "{error}"),
        }
    }
}
