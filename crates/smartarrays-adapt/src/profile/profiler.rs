//! Collecting a profile around real runs: the [`AccessCounter`]s a workload adds to, and the
//! [`Profiler`] that reads the clocks and counters and builds the [`WorkloadProfile`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use smartarrays::{Placement, Runtime};

use super::{
    access_compute_seconds, ArrayProfile, ArraySpec, Figure, Source, WorkloadProfile,
    PROFILE_FORMAT,
};
use crate::costs::CostProfile;
use crate::error::{AdaptError, Result};
use crate::machine::MachineDescription;
use crate::perf::{CounterReading, WorkerCounters};

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
