//! Workload profile (input 3 of the paper's §6): what one run of a workload did, collected while
//! it ran in the uncompressed interleaved configuration, as the paper does: elapsed time; per
//! array its length, widths, reads (sequential and random) and writes; CPU time; instructions and
//! cycles when the kernel has hardware counters. Every figure carries the [`Source`] it came
//! from, so a profile says plainly what was measured, counted, estimated or given.
//!
//! [`Profiler`] collects a profile around a workload that counts its accesses in
//! [`AccessCounter`]s (one atomic add per batch). [`WorkloadProfile::modelled`] builds one from
//! characteristics alone (for the paper's machines, or when the user states them).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use smartarrays::{Placement, Runtime};

use crate::costs::CostProfile;
use crate::error::{AdaptError, Result};
use crate::machine::{write_file, MachineDescription};
use crate::model::{self, ArrayLoad, Scales};
use crate::perf::{CounterReading, CounterSource, WorkerCounters};

/// Format tag of workload profile files.
pub const PROFILE_FORMAT: &str = "smartarrays-profile/1";

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

/// What the profiler must know about an array before the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArraySpec {
    /// Name, e.g. "a1", "rbegin".
    pub name: String,
    /// Number of values.
    pub len: u64,
    /// Width it had while profiled.
    pub profiled_bits: u32,
    /// Its uncompressed width (32 or 64).
    pub natural_bits: u32,
    /// Fewest bits that hold its largest value.
    pub minimal_bits: u32,
    /// Whether the workload only reads it (replication needs this).
    pub read_only: bool,
    /// Whether the advisor may change its placement and width.
    pub adaptable: bool,
    /// How the workload reads it sequentially: with the fused scan kernel (`sum_range`) or by
    /// decoding windows into a buffer (`unpack`).
    #[serde(default)]
    pub decode: Decode,
}

/// How a workload decodes an array it scans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decode {
    /// Fused decode-and-consume kernels (`sum_range`).
    #[default]
    Fused,
    /// Decoded into a buffer first (`unpack`, `for_each_chunk`).
    Unpack,
}

impl ArraySpec {
    /// A read-only, adaptable array of `len` values whose largest value needs `minimal_bits`,
    /// profiled at its natural width (32 bits when the values fit, else 64).
    pub fn read_only(name: &str, len: u64, minimal_bits: u32) -> ArraySpec {
        let natural = natural_bits(minimal_bits);
        ArraySpec {
            name: name.into(),
            len,
            profiled_bits: natural,
            natural_bits: natural,
            minimal_bits,
            read_only: true,
            adaptable: true,
            decode: Decode::Fused,
        }
    }

    /// The same array with another uncompressed width (e.g. 64 for data declared as 64-bit
    /// integers, as the paper's aggregation arrays are), profiled at that width.
    pub fn with_natural(mut self, natural_bits: u32) -> ArraySpec {
        self.natural_bits = natural_bits.max(self.minimal_bits);
        self.profiled_bits = self.natural_bits;
        self
    }

    /// The same array, read by decoding windows into a buffer.
    pub fn unpacked(mut self) -> ArraySpec {
        self.decode = Decode::Unpack;
        self
    }

    /// The same array, fixed (the advisor leaves it interleaved at its profiled width).
    pub fn fixed(mut self) -> ArraySpec {
        self.adaptable = false;
        self
    }

    /// An array the workload writes (adaptable, never replicated).
    pub fn written(name: &str, len: u64, minimal_bits: u32) -> ArraySpec {
        ArraySpec {
            read_only: false,
            ..ArraySpec::read_only(name, len, minimal_bits)
        }
    }
}

pub use smartarrays::array::natural_bits;

/// One array of a profile with its measured accesses (totals over the profiled runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayProfile {
    /// The array.
    #[serde(flatten)]
    pub spec: ArraySpec,
    /// Values read by scans.
    pub sequential_reads: f64,
    /// Values read at random positions.
    pub random_reads: f64,
    /// Values written.
    pub writes: f64,
    /// Where the access counts came from.
    pub access_source: Source,
}

impl ArrayProfile {
    /// All reads.
    pub fn reads(&self) -> f64 {
        self.sequential_reads + self.random_reads
    }

    /// Share of reads at random positions (0 when there are none).
    pub fn random_share(&self) -> f64 {
        if self.reads() > 0.0 {
            self.random_reads / self.reads()
        } else {
            0.0
        }
    }

    /// Bytes one copy takes at `bits`.
    pub fn bytes_at(&self, bits: u32) -> f64 {
        self.spec.len as f64 * bits as f64 / 8.0
    }

    /// The per-run load of this array at `placement` and `bits`, from a profile of `runs` runs.
    pub fn load(&self, placement: Placement, bits: u32, runs: f64) -> ArrayLoad {
        ArrayLoad {
            name: self.spec.name.clone(),
            placement,
            bits,
            len: self.spec.len,
            sequential_reads: self.sequential_reads / runs,
            random_reads: self.random_reads / runs,
            writes: self.writes / runs,
        }
    }
}

/// A workload's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadProfile {
    /// Must be [`PROFILE_FORMAT`].
    pub format: String,
    /// Workload name.
    pub workload: String,
    /// Runs (passes, iterations) the counts and times cover.
    pub runs: f64,
    /// Runs the workload will do in its lifetime (amortises replication; software characteristic).
    pub expected_runs: f64,
    /// Whether building replicas is hidden behind loading (paper §6.1: then any access count pays).
    pub init_hidden: bool,
    /// Workers per node during the profiled runs, `(node, workers)`.
    pub threads: Vec<(usize, usize)>,
    /// Placement of the adaptable arrays while profiled.
    pub placement: Placement,
    /// Wall-clock time of the profiled runs (seconds, all runs).
    pub elapsed_seconds: Figure,
    /// CPU time of the workers (seconds, all runs).
    pub cpu_seconds: Option<Figure>,
    /// Instructions retired (all runs), when hardware counters exist.
    pub instructions: Option<Figure>,
    /// Cycles (all runs), when hardware counters exist.
    pub cycles: Option<Figure>,
    /// CPU work at full speed in core-seconds (all runs): instructions over peak compute when
    /// counted, otherwise accesses times the cost profile.
    pub compute_core_seconds: Figure,
    /// Part of `compute_core_seconds` not caused by array accesses (kept when widths change).
    pub other_compute_core_seconds: f64,
    /// The arrays.
    pub arrays: Vec<ArrayProfile>,
    /// Remarks (e.g. why hardware counters are absent).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// CPU work of the array accesses per run at the given widths, in core-seconds.
pub fn access_compute_seconds(
    arrays: &[ArrayProfile],
    widths: &[u32],
    costs: &CostProfile,
    runs: f64,
) -> f64 {
    arrays
        .iter()
        .zip(widths)
        .map(|(a, &bits)| {
            let scan = match a.spec.decode {
                Decode::Fused => costs.sequential_ns(bits),
                Decode::Unpack => costs.unpack_ns(bits),
            };
            (a.sequential_reads + a.writes) * scan + a.random_reads * costs.random_ns(bits)
        })
        .sum::<f64>()
        * 1e-9
        / runs
}

impl WorkloadProfile {
    /// Seconds per run as measured.
    pub fn seconds_per_run(&self) -> f64 {
        self.elapsed_seconds.value / self.runs
    }

    /// Accesses per element over the workload's lifetime, over the adaptable arrays.
    pub fn accesses_per_element(&self) -> f64 {
        let (reads, len) = self
            .arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .fold((0.0, 0.0), |(r, l), a| {
                (r + a.reads(), l + a.spec.len as f64)
            });
        if len > 0.0 {
            reads / self.runs * self.expected_runs / len
        } else {
            0.0
        }
    }

    /// Random share of the adaptable arrays' reads.
    pub fn random_share(&self) -> f64 {
        let (random, all) = self
            .arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .fold((0.0, 0.0), |(r, t), a| (r + a.random_reads, t + a.reads()));
        if all > 0.0 {
            random / all
        } else {
            0.0
        }
    }

    /// Whether every adaptable array is read-only.
    pub fn read_only(&self) -> bool {
        self.arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .all(|a| a.spec.read_only)
    }

    /// CPU work per run at other widths: the measured work with the array accesses' share
    /// replaced (paper §6.2: `exec_compressed = exec_current + accesses · cost`).
    pub fn compute_seconds_at(&self, widths: &[u32], costs: &CostProfile) -> f64 {
        self.other_compute_core_seconds / self.runs
            + access_compute_seconds(&self.arrays, widths, costs, self.runs)
    }

    /// The loads per run of every array at the given configurations.
    pub fn loads(&self, configs: &[(Placement, u32)]) -> Vec<ArrayLoad> {
        self.arrays
            .iter()
            .zip(configs)
            .map(|(a, (placement, bits))| a.load(placement.clone(), *bits, self.runs))
            .collect()
    }

    /// The profiled configuration of every array.
    pub fn profiled_configs(&self) -> Vec<(Placement, u32)> {
        self.arrays
            .iter()
            .map(|a| (self.placement_of(a), a.spec.profiled_bits))
            .collect()
    }

    fn placement_of(&self, array: &ArrayProfile) -> Placement {
        if array.spec.adaptable {
            self.placement.clone()
        } else {
            Placement::Interleaved(Vec::new())
        }
    }

    /// A profile computed, not measured: arrays with their per-run accesses, `other_compute`
    /// core-seconds per run of work not tied to arrays, on all cores of `machine`, "profiled"
    /// at the natural widths interleaved. Elapsed time is the model's estimate.
    pub fn modelled(
        workload: &str,
        machine: &MachineDescription,
        costs: &CostProfile,
        arrays: Vec<ArrayProfile>,
        other_compute: f64,
        expected_runs: f64,
    ) -> Result<WorkloadProfile> {
        let threads: Vec<(usize, usize)> = machine.nodes.iter().map(|n| (n.id, n.cpus)).collect();
        let mut profile = WorkloadProfile {
            format: PROFILE_FORMAT.into(),
            workload: workload.into(),
            runs: 1.0,
            expected_runs,
            init_hidden: false,
            threads,
            placement: Placement::Interleaved(Vec::new()),
            elapsed_seconds: Figure::new(0.0, Source::Modelled),
            cpu_seconds: None,
            instructions: None,
            cycles: None,
            compute_core_seconds: Figure::new(0.0, Source::Modelled),
            other_compute_core_seconds: other_compute,
            arrays,
            notes: vec!["modelled profile: no run took place".into()],
        };
        let widths: Vec<u32> = profile
            .arrays
            .iter()
            .map(|a| a.spec.profiled_bits)
            .collect();
        let compute = profile.compute_seconds_at(&widths, costs);
        profile.compute_core_seconds = Figure::new(compute, Source::Modelled);
        let estimate = model::estimate(
            machine,
            &profile.threads,
            &profile.loads(&profile.profiled_configs()),
            compute,
            &Scales::default(),
        )?;
        profile.elapsed_seconds = Figure::new(estimate.seconds, Source::Modelled);
        profile.validate()?;
        Ok(profile)
    }

    /// Checks the profile's figures.
    pub fn validate(&self) -> Result<()> {
        let bad = |detail: String| Err(AdaptError::invalid("workload profile", detail));
        if self.format != PROFILE_FORMAT {
            return bad(format!(
                "format is {:?}, expected {PROFILE_FORMAT:?}",
                self.format
            ));
        }
        if !(self.runs > 0.0
            && self.runs.is_finite()
            && self.expected_runs >= 0.0
            && self.expected_runs.is_finite())
        {
            return bad(format!(
                "runs {} / expected runs {} must be positive",
                self.runs, self.expected_runs
            ));
        }
        if !(self.elapsed_seconds.value > 0.0 && self.elapsed_seconds.value.is_finite()) {
            return bad(format!("elapsed time {} s", self.elapsed_seconds.value));
        }
        if !(self.compute_core_seconds.value >= 0.0 && self.other_compute_core_seconds >= 0.0) {
            return bad("negative CPU work".into());
        }
        if self.threads.iter().all(|&(_, t)| t == 0) {
            return bad("no worker".into());
        }
        if self.arrays.is_empty() {
            return bad("no array".into());
        }
        for a in &self.arrays {
            let s = &a.spec;
            for bits in [s.profiled_bits, s.natural_bits, s.minimal_bits] {
                if !(1..=64).contains(&bits) {
                    return bad(format!("array {}: width {bits} is outside 1..=64", s.name));
                }
            }
            if s.minimal_bits > s.natural_bits || s.minimal_bits > s.profiled_bits {
                return bad(format!(
                    "array {}: its values need {} bits, more than its width",
                    s.name, s.minimal_bits
                ));
            }
            if [a.sequential_reads, a.random_reads, a.writes]
                .iter()
                .any(|v| !(*v >= 0.0 && v.is_finite()))
            {
                return bad(format!(
                    "array {}: negative or infinite access count",
                    s.name
                ));
            }
            if s.read_only && a.writes > 0.0 {
                return bad(format!(
                    "array {} is marked read-only but was written {} times",
                    s.name, a.writes
                ));
            }
        }
        Ok(())
    }

    /// Parses and validates JSON.
    pub fn from_json(text: &str) -> Result<WorkloadProfile> {
        let profile: WorkloadProfile = serde_json::from_str(text)
            .map_err(|e| AdaptError::invalid("workload profile", e.to_string()))?;
        profile.validate()?;
        Ok(profile)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and validates a file.
    pub fn load(path: &std::path::Path) -> Result<WorkloadProfile> {
        let text = std::fs::read_to_string(path).map_err(|e| AdaptError::io(path, e))?;
        WorkloadProfile::from_json(&text)
    }

    /// Writes the profile.
    pub fn save(&self, path: &std::path::Path) -> Result<()> {
        write_file(path, &self.to_json())
    }
}

impl std::fmt::Display for WorkloadProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "workload profile: {} ({} run(s) profiled, {} expected), placement {}",
            self.workload, self.runs, self.expected_runs, self.placement
        )?;
        writeln!(
            f,
            "  elapsed {:.4} s per run ({})",
            self.seconds_per_run(),
            self.elapsed_seconds.source.describe()
        )?;
        if let Some(cpu) = self.cpu_seconds {
            writeln!(
                f,
                "  CPU time {:.4} s per run ({})",
                cpu.value / self.runs,
                cpu.source.describe()
            )?;
        }
        match (self.instructions, self.cycles) {
            (Some(i), Some(c)) => writeln!(
                f,
                "  instructions {:.3e}, cycles {:.3e} per run ({})",
                i.value / self.runs,
                c.value / self.runs,
                i.source.describe()
            )?,
            _ => writeln!(f, "  instructions/cycles: not available")?,
        }
        writeln!(
            f,
            "  CPU work at full speed {:.4} core-s per run ({}); {:.4} of it not from array accesses",
            self.compute_core_seconds.value / self.runs,
            self.compute_core_seconds.source.describe(),
            self.other_compute_core_seconds / self.runs
        )?;
        for a in &self.arrays {
            writeln!(
                f,
                "  array {}: {} values, {} bits profiled (natural {}, needs {}), {}{}; per run {:.3e} sequential + {:.3e} random reads, {:.3e} writes ({})",
                a.spec.name,
                a.spec.len,
                a.spec.profiled_bits,
                a.spec.natural_bits,
                a.spec.minimal_bits,
                if a.spec.read_only { "read-only" } else { "written" },
                if a.spec.adaptable { "" } else { ", fixed" },
                a.sequential_reads / self.runs,
                a.random_reads / self.runs,
                a.writes / self.runs,
                a.access_source.describe()
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

/// Access counts of one array, added to by the workload's loops (relaxed atomics: one add per batch).
#[derive(Debug, Default)]
pub struct AccessCounter {
    sequential: AtomicU64,
    random: AtomicU64,
    writes: AtomicU64,
}

impl AccessCounter {
    /// Adds `n` values read by a scan.
    #[inline]
    pub fn sequential(&self, n: u64) {
        self.sequential.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds `n` values read at random positions.
    #[inline]
    pub fn random(&self, n: u64) {
        self.random.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds `n` values written.
    #[inline]
    pub fn writes(&self, n: u64) {
        self.writes.fetch_add(n, Ordering::Relaxed);
    }

    /// Current totals (sequential, random, writes).
    pub fn totals(&self) -> (u64, u64, u64) {
        (
            self.sequential.load(Ordering::Relaxed),
            self.random.load(Ordering::Relaxed),
            self.writes.load(Ordering::Relaxed),
        )
    }

    /// Sets every count to zero.
    pub fn reset(&self) {
        self.sequential.store(0, Ordering::Relaxed);
        self.random.store(0, Ordering::Relaxed);
        self.writes.store(0, Ordering::Relaxed);
    }
}

/// Collects a profile around workload runs: wall clock, per-worker counters, and the access
/// counters the workload fills.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};
/// use smartarrays_adapt::{profile::{ArraySpec, Profiler}, CostProfile, MachineDescription};
///
/// let runtime = Arc::new(Runtime::with_threads(2).unwrap());
/// let options = ArrayOptions::new().placement(Placement::Interleaved(vec![])).bits(32).runtime(runtime.clone());
/// let array = SmartArray::from_fn(100_000, &options, |i| i as u64 % 1000).unwrap();
/// let profiler = Profiler::start(&runtime, "sum", vec![ArraySpec::read_only("a", 100_000, 10)]);
/// let total = array.par_map_reduce(|| 0u64, |s, _, values| {
///     profiler.counter(0).sequential(values.len() as u64);
///     s + values.iter().sum::<u64>()
/// }, |a, b| a + b);
/// assert_eq!(total, (0..100_000u64).map(|i| i % 1000).sum::<u64>());
/// let machine = MachineDescription::paper_8core(); // only its peak compute is used here
/// let profile = profiler.finish(1.0, 1.0, Placement::Interleaved(vec![]), &machine, &CostProfile::haswell_model(2.4)).unwrap();
/// assert_eq!(profile.arrays[0].sequential_reads, 100_000.0);
/// ```
pub struct Profiler {
    runtime: Arc<Runtime>,
    workload: String,
    specs: Vec<ArraySpec>,
    counters: Vec<AccessCounter>,
    worker_counters: Option<WorkerCounters>,
    started: Instant,
}

impl Profiler {
    /// Starts counting (wall clock and per-worker counters) for arrays `specs`.
    pub fn start(runtime: &Arc<Runtime>, workload: &str, specs: Vec<ArraySpec>) -> Profiler {
        let counters = specs.iter().map(|_| AccessCounter::default()).collect();
        let worker_counters = Some(WorkerCounters::start(runtime));
        Profiler {
            runtime: Arc::clone(runtime),
            workload: workload.into(),
            specs,
            counters,
            worker_counters,
            started: Instant::now(),
        }
    }

    /// The access counter of array `index` (in the order of the specs).
    ///
    /// # Panics
    /// If `index` is not an array of the profile.
    pub fn counter(&self, index: usize) -> &AccessCounter {
        &self.counters[index]
    }

    /// Stops and builds the profile of `runs` runs (of `expected_runs` in the workload's
    /// lifetime), profiled at `placement`. Accesses the workload did not count are taken as
    /// zero; use [`Profiler::finish_declared`] for workloads that state their accesses.
    pub fn finish(
        mut self,
        runs: f64,
        expected_runs: f64,
        placement: Placement,
        machine: &MachineDescription,
        costs: &CostProfile,
    ) -> Result<WorkloadProfile> {
        let elapsed = self.started.elapsed().as_secs_f64();
        let reading = self.worker_counters.take().map(|c| c.stop(&self.runtime));
        let arrays = self
            .specs
            .iter()
            .zip(&self.counters)
            .map(|(spec, counter)| {
                let (sequential, random, writes) = counter.totals();
                ArrayProfile {
                    spec: spec.clone(),
                    sequential_reads: sequential as f64,
                    random_reads: random as f64,
                    writes: writes as f64,
                    access_source: Source::CountedAccesses,
                }
            })
            .collect();
        build_profile(
            &self.workload,
            &self.runtime,
            arrays,
            elapsed,
            reading,
            runs,
            expected_runs,
            placement,
            machine,
            costs,
        )
    }

    /// Like [`Profiler::finish`], with the accesses stated by the workload instead of counted:
    /// `accesses[i]` = (sequential reads, random reads, writes) of array `i` over all runs.
    #[allow(clippy::too_many_arguments)]
    pub fn finish_declared(
        mut self,
        accesses: &[(f64, f64, f64)],
        runs: f64,
        expected_runs: f64,
        placement: Placement,
        machine: &MachineDescription,
        costs: &CostProfile,
    ) -> Result<WorkloadProfile> {
        let elapsed = self.started.elapsed().as_secs_f64();
        let reading = self.worker_counters.take().map(|c| c.stop(&self.runtime));
        if accesses.len() != self.specs.len() {
            return Err(AdaptError::InvalidInput(format!(
                "{} access triples for {} arrays",
                accesses.len(),
                self.specs.len()
            )));
        }
        let arrays = self
            .specs
            .iter()
            .zip(accesses)
            .map(
                |(spec, &(sequential_reads, random_reads, writes))| ArrayProfile {
                    spec: spec.clone(),
                    sequential_reads,
                    random_reads,
                    writes,
                    access_source: Source::DeclaredByWorkload,
                },
            )
            .collect();
        build_profile(
            &self.workload,
            &self.runtime,
            arrays,
            elapsed,
            reading,
            runs,
            expected_runs,
            placement,
            machine,
            costs,
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn build_profile(
    workload: &str,
    runtime: &Runtime,
    arrays: Vec<ArrayProfile>,
    elapsed: f64,
    reading: Option<CounterReading>,
    runs: f64,
    expected_runs: f64,
    placement: Placement,
    machine: &MachineDescription,
    costs: &CostProfile,
) -> Result<WorkloadProfile> {
    let mut threads: Vec<(usize, usize)> = Vec::new();
    for worker in runtime.workers() {
        match threads.iter_mut().find(|(node, _)| *node == worker.node) {
            Some((_, count)) => *count += 1,
            None => threads.push((worker.node, 1)),
        }
    }
    let widths: Vec<u32> = arrays.iter().map(|a| a.spec.profiled_bits).collect();
    let access_work = access_compute_seconds(&arrays, &widths, costs, 1.0);
    let mut notes = Vec::new();
    let (instructions, cycles, cpu_seconds, compute, other) = match reading {
        Some(reading) => {
            let cpu = Some(Figure::new(reading.cpu_seconds, reading.cpu_source.into()));
            match (reading.instructions, reading.cycles) {
                (Some(i), Some(c)) => {
                    let work = i as f64 / (machine.peak_gops_per_core * 1e9);
                    notes.push(format!(
                        "CPU work = instructions / {:.2} G simple ops per second per core",
                        machine.peak_gops_per_core
                    ));
                    (
                        Some(Figure::new(i as f64, Source::HardwareCounters)),
                        Some(Figure::new(c as f64, Source::HardwareCounters)),
                        cpu,
                        Figure::new(work.max(access_work), Source::HardwareCounters),
                        (work - access_work).max(0.0),
                    )
                }
                _ => {
                    notes.push(format!(
                        "{}; CPU work estimated from the counted accesses and the array cost profile",
                        reading.hardware_note
                    ));
                    (
                        None,
                        None,
                        cpu,
                        Figure::new(access_work, Source::CostProfileEstimate),
                        0.0,
                    )
                }
            }
        }
        None => (
            None,
            None,
            None,
            Figure::new(access_work, Source::CostProfileEstimate),
            0.0,
        ),
    };
    let profile = WorkloadProfile {
        format: PROFILE_FORMAT.into(),
        workload: workload.into(),
        runs,
        expected_runs,
        init_hidden: false,
        threads,
        placement,
        elapsed_seconds: Figure::new(elapsed.max(1e-9), Source::WallClock),
        cpu_seconds,
        instructions,
        cycles,
        compute_core_seconds: compute,
        other_compute_core_seconds: other,
        arrays,
        notes,
    };
    profile.validate()?;
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aggregation(bits: u32, len: u64) -> Vec<ArrayProfile> {
        ["a1", "a2"]
            .iter()
            .map(|name| ArrayProfile {
                spec: ArraySpec::read_only(name, len, bits),
                sequential_reads: len as f64,
                random_reads: 0.0,
                writes: 0.0,
                access_source: Source::DeclaredByWorkload,
            })
            .collect()
    }

    #[test]
    fn modelled_profiles_carry_model_sources_and_round_trip() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::haswell_model(2.4);
        let profile = WorkloadProfile::modelled(
            "aggregate",
            &machine,
            &costs,
            aggregation(33, 500_000_000),
            0.0,
            15.0,
        )
        .unwrap();
        assert_eq!(profile.elapsed_seconds.source, Source::Modelled);
        assert_eq!(profile.arrays[0].spec.profiled_bits, 64);
        // 8 GB through two 8 GB/s links at 16 GB/s per socket: 0.25 s.
        assert!(
            (profile.seconds_per_run() / 0.25 - 1.0).abs() < 1e-4,
            "{}",
            profile.seconds_per_run()
        );
        assert_eq!(profile.accesses_per_element(), 15.0);
        assert_eq!(profile.random_share(), 0.0);
        assert!(profile.read_only());
        let again = WorkloadProfile::from_json(&profile.to_json()).unwrap();
        assert_eq!(again, profile);
        let dir = tempfile::tempdir().unwrap();
        profile.save(&dir.path().join("p.json")).unwrap();
        assert_eq!(
            WorkloadProfile::load(&dir.path().join("p.json")).unwrap(),
            profile
        );
        assert!(profile.to_string().contains("modelled"));
    }

    #[test]
    fn compressed_work_replaces_the_access_share_of_the_work() {
        let costs = CostProfile::haswell_model(2.4);
        let machine = MachineDescription::paper_18core();
        let profile = WorkloadProfile::modelled(
            "aggregate",
            &machine,
            &costs,
            aggregation(33, 1000),
            0.5,
            1.0,
        )
        .unwrap();
        let uncompressed = profile.compute_seconds_at(&[64, 64], &costs);
        let compressed = profile.compute_seconds_at(&[33, 33], &costs);
        assert!((uncompressed - (0.5 + 2000.0 * costs.sequential_ns(64) * 1e-9)).abs() < 1e-15);
        assert!(
            (compressed
                - uncompressed
                - 2000.0 * (costs.sequential_ns(33) - costs.sequential_ns(64)) * 1e-9)
                .abs()
                < 1e-15
        );
    }

    #[test]
    fn inconsistent_profiles_are_refused() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::haswell_model(2.4);
        let good =
            WorkloadProfile::modelled("a", &machine, &costs, aggregation(10, 1000), 0.0, 1.0)
                .unwrap();
        type Breaker = Box<dyn Fn(&mut WorkloadProfile)>;
        let cases: Vec<(Breaker, &str)> = vec![
            (Box::new(|p| p.format = "x".into()), "format"),
            (Box::new(|p| p.runs = 0.0), "runs"),
            (Box::new(|p| p.elapsed_seconds.value = -1.0), "elapsed"),
            (Box::new(|p| p.arrays.clear()), "no array"),
            (
                Box::new(|p| p.arrays[0].spec.minimal_bits = 40),
                "need 40 bits",
            ),
            (Box::new(|p| p.arrays[0].spec.natural_bits = 65), "outside"),
            (Box::new(|p| p.arrays[1].writes = 5.0), "read-only"),
            (
                Box::new(|p| p.arrays[1].random_reads = -1.0),
                "negative or infinite",
            ),
            (Box::new(|p| p.threads = vec![(0, 0)]), "no worker"),
        ];
        for (break_it, expected) in cases {
            let mut profile = good.clone();
            break_it(&mut profile);
            let error = WorkloadProfile::from_json(&profile.to_json())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(expected),
                "{error} should mention {expected}"
            );
        }
    }

    #[test]
    fn profiler_counts_accesses_and_records_sources() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let profiler = Profiler::start(
            &runtime,
            "count",
            vec![
                ArraySpec::read_only("a", 1000, 10),
                ArraySpec::written("b", 1000, 10),
            ],
        );
        runtime.for_each_batch(0..1000, 64, |_, range| {
            profiler.counter(0).sequential(range.len() as u64);
            profiler.counter(0).random(1);
            profiler.counter(1).writes(range.len() as u64);
        });
        let machine = MachineDescription::paper_8core();
        let profile = profiler
            .finish(
                2.0,
                10.0,
                Placement::Interleaved(vec![]),
                &machine,
                &CostProfile::haswell_model(2.4),
            )
            .unwrap();
        assert_eq!(profile.arrays[0].sequential_reads, 1000.0);
        assert_eq!(profile.arrays[0].random_reads, 16.0);
        assert_eq!(profile.arrays[1].writes, 1000.0);
        assert_eq!(profile.elapsed_seconds.source, Source::WallClock);
        assert!(profile.cpu_seconds.is_some());
        match profile.instructions {
            Some(i) => assert_eq!(i.source, Source::HardwareCounters),
            None => assert_eq!(
                profile.compute_core_seconds.source,
                Source::CostProfileEstimate
            ),
        }
        assert_eq!(profile.threads.iter().map(|t| t.1).sum::<usize>(), 2);
        assert!((profile.accesses_per_element() - (1016.0 / 2.0 * 10.0 / 2000.0)).abs() < 1e-12);
    }
}
