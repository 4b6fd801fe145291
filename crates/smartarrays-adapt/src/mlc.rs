//! The built-in machine microbenchmark, in the manner of Intel's Memory Latency Checker: for every
//! (reader node, memory node) pair, a read-bandwidth stream by all of the reader node's pinned
//! workers over a buffer bound to the memory node, and a dependent-load latency chase by one of
//! them through a random cyclic permutation of cache lines. Memory is bound with the core's
//! [`Placement::SingleNode`]; threads are the core's pinned [`Runtime`] workers. Also measures a
//! simple compute figure per core and the number of misses one core keeps in flight.
//!
//! [`this_machine`] returns the cached description when there is one for this machine's
//! fingerprint and measures (then caches) otherwise.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray, Topology};

use crate::costs::{costs_cache_path, CostProfile, CostSettings};
use crate::error::Result;
use crate::machine::{
    fingerprint, machine_cache_path, physical_cores, Link, MachineDescription, MachineSource,
    NodeDescription, MACHINE_FORMAT,
};

/// Sizes and repetitions of the microbenchmark.
#[derive(Clone, Debug)]
pub struct MlcSettings {
    /// Bytes streamed per bandwidth pass (must exceed the last-level cache; default 256 MiB).
    pub bandwidth_bytes: usize,
    /// Bytes of the latency chase buffer (default 128 MiB).
    pub latency_bytes: usize,
    /// Dependent loads per latency sample.
    pub latency_hops: usize,
    /// Samples per figure; the best is kept.
    pub samples: usize,
}

impl Default for MlcSettings {
    fn default() -> Self {
        MlcSettings {
            bandwidth_bytes: 256 << 20,
            latency_bytes: 128 << 20,
            latency_hops: 1 << 20,
            samples: 3,
        }
    }
}

impl MlcSettings {
    /// Tiny buffers for tests: the figures then measure caches, not memory.
    pub fn quick() -> MlcSettings {
        MlcSettings {
            bandwidth_bytes: 4 << 20,
            latency_bytes: 2 << 20,
            latency_hops: 20_000,
            samples: 1,
        }
    }
}

/// Measures this machine: topology from the kernel, every node pair's bandwidth and latency,
/// compute per core, misses in flight.
pub fn measure_machine(settings: &MlcSettings) -> Result<MachineDescription> {
    let topology = Topology::discover()?;
    let runtime = Arc::new(Runtime::new(smartarrays::RuntimeOptions {
        topology: Some(Arc::new(topology.clone())),
        ..Default::default()
    })?);
    let mut nodes = Vec::new();
    for node in topology.nodes() {
        let workers = runtime
            .workers()
            .iter()
            .filter(|w| w.node == node.id)
            .count();
        nodes.push(NodeDescription {
            id: node.id,
            cpus: node.cpus.len().max(workers),
            cores: physical_cores(&node.cpus).min(node.cpus.len()).max(1),
            memory_total: node.memory_total,
            memory_free: node.memory_free,
        });
    }
    let compute_nodes: Vec<usize> = topology
        .node_ids()
        .into_iter()
        .filter(|&n| runtime.workers().iter().any(|w| w.node == n))
        .collect();
    let memory_nodes: Vec<usize> = topology
        .nodes()
        .iter()
        .filter(|n| n.memory_total > 0)
        .map(|n| n.id)
        .collect();
    let mut links = Vec::new();
    let mut mlp = Vec::new();
    for &to in &memory_nodes {
        let stream = stream_buffer(&runtime, to, settings.bandwidth_bytes)?;
        let chase = chase_buffer(&runtime, to, settings.latency_bytes)?;
        for &from in &compute_nodes {
            let bandwidth = read_bandwidth(&runtime, from, &stream, settings.samples);
            let latency = chase_latency(
                &runtime,
                from,
                &chase,
                settings.latency_hops,
                settings.samples,
            );
            if from == to {
                let independent = independent_load_ns(
                    &runtime,
                    from,
                    &chase,
                    settings.latency_hops,
                    settings.samples,
                );
                mlp.push((latency / independent).clamp(1.0, 64.0));
            }
            links.push(Link {
                from,
                to,
                read_bandwidth_gbs: bandwidth,
                latency_ns: latency,
            });
        }
    }
    let compute = peak_compute(&runtime, settings.samples);
    let fingerprint = fingerprint(&topology);
    let memory_level_parallelism = if mlp.is_empty() {
        10.0
    } else {
        mlp.iter().sum::<f64>() / mlp.len() as f64
    };
    let machine = MachineDescription {
        format: MACHINE_FORMAT.into(),
        name: format!("this machine ({} node(s), {} CPU(s))", topology.nodes().len(), topology.cpu_count()),
        source: MachineSource::Measured,
        fingerprint,
        clock_ghz: None,
        peak_gops_per_core: compute,
        memory_level_parallelism,
        nodes,
        links,
        notes: vec![
            format!(
                "bandwidth: all {} worker(s) of the reader node stream {} MiB bound to the memory node, best of {}",
                runtime.threads(),
                settings.bandwidth_bytes >> 20,
                settings.samples
            ),
            format!(
                "latency: one worker chases {} dependent loads through {} MiB of randomly linked cache lines (huge pages when the kernel gives them)",
                settings.latency_hops,
                settings.latency_bytes >> 20
            ),
            "misses in flight = dependent-load latency / independent-load time on the local node".into(),
            "compute: four dissimilar dependent integer chains on one worker, simple operations per ns".into(),
        ],
    };
    machine.validate()?;
    Ok(machine)
}

/// This machine's description and cost profile: from the cache under `cache_dir` when present
/// (and `remeasure` is false), otherwise measured and cached. Free memory is refreshed from the
/// kernel either way. Returns whether each came from the cache.
pub fn this_machine(
    cache_dir: &Path,
    remeasure: bool,
    mlc: &MlcSettings,
    cost_settings: &CostSettings,
) -> Result<(MachineDescription, CostProfile, bool, bool)> {
    let topology = Topology::discover()?;
    let key = fingerprint(&topology);
    let machine_path = machine_cache_path(cache_dir, &key);
    let (mut machine, machine_cached) = cached_or_measured(
        remeasure,
        || {
            MachineDescription::load(&machine_path)
                .ok()
                .filter(|m| m.fingerprint == key)
        },
        || measure_machine(mlc),
        |machine| machine.save(&machine_path),
    )?;
    machine.refresh_free_memory();
    let costs_path = costs_cache_path(cache_dir, &key);
    let (costs, costs_cached) = cached_or_measured(
        remeasure,
        || {
            CostProfile::load(&costs_path)
                .ok()
                .filter(|c| c.fingerprint == key)
        },
        || CostProfile::measure(&key, cost_settings),
        |costs| costs.save(&costs_path),
    )?;
    Ok((machine, costs, machine_cached, costs_cached))
}

/// What `load` finds in the cache (unless `remeasure`), else what `measure` gives, handed to
/// `save` for next time; and whether it came from the cache.
fn cached_or_measured<T>(
    remeasure: bool,
    load: impl FnOnce() -> Option<T>,
    measure: impl FnOnce() -> Result<T>,
    save: impl FnOnce(&T) -> Result<()>,
) -> Result<(T, bool)> {
    if !remeasure {
        if let Some(cached) = load() {
            return Ok((cached, true));
        }
    }
    let measured = measure()?;
    save(&measured)?;
    Ok((measured, false))
}

fn node_runtime_workers(runtime: &Runtime, node: usize) -> usize {
    runtime.workers().iter().filter(|w| w.node == node).count()
}

fn stream_buffer(runtime: &Arc<Runtime>, node: usize, bytes: usize) -> Result<SmartArray> {
    let words = (bytes / 8).max(1024);
    let options = ArrayOptions::new()
        .placement(Placement::SingleNode(node))
        .bits(64)
        .runtime(Arc::clone(runtime));
    Ok(SmartArray::from_fn(words, &options, |i| i as u64)?)
}

/// A random cyclic permutation of cache lines (Sattolo's algorithm): word `8 * line` holds the
/// word index of the next line, so one chase visits every line once per cycle.
fn chase_buffer(runtime: &Arc<Runtime>, node: usize, bytes: usize) -> Result<SmartArray> {
    let lines = (bytes / 64).max(16);
    let mut next: Vec<u32> = (0..lines as u32).collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for i in (1..lines).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % i as u64) as usize;
        next.swap(i, j);
    }
    let options = ArrayOptions::new()
        .placement(Placement::SingleNode(node))
        .bits(64)
        .runtime(Arc::clone(runtime));
    Ok(SmartArray::from_fn(lines * 8, &options, |i| {
        if i % 8 == 0 {
            next[i / 8] as u64 * 8
        } else {
            0
        }
    })?)
}

/// GB/s of all workers of `from` summing disjoint slices of `buffer`.
fn read_bandwidth(runtime: &Runtime, from: usize, buffer: &SmartArray, samples: usize) -> f64 {
    let words = buffer
        .replica(0)
        .as_native::<u64>()
        .expect("a 64-bit buffer");
    let len = buffer.len();
    let readers = node_runtime_workers(runtime, from).max(1);
    let first = runtime
        .workers()
        .iter()
        .position(|w| w.node == from)
        .unwrap_or(0);
    let mut best = f64::INFINITY;
    for _ in 0..samples.max(1) + 1 {
        let start = Instant::now();
        let sums = runtime.on_each_worker(|worker| {
            if worker.node != from {
                return 0;
            }
            let k = worker.index - first;
            let slice = &words[len * k / readers..len * (k + 1) / readers];
            let mut lanes = [0u64; 8];
            for chunk in slice.chunks_exact(8) {
                for (lane, &w) in lanes.iter_mut().zip(chunk) {
                    *lane = lane.wrapping_add(w);
                }
            }
            lanes.iter().fold(0u64, |a, &b| a.wrapping_add(b))
        });
        black_box(sums);
        best = best.min(start.elapsed().as_secs_f64());
    }
    (len * 8) as f64 / best / 1e9
}

/// Nanoseconds per dependent load of one worker of `from` chasing through `buffer`.
fn chase_latency(
    runtime: &Runtime,
    from: usize,
    buffer: &SmartArray,
    hops: usize,
    samples: usize,
) -> f64 {
    let words = buffer
        .replica(0)
        .as_native::<u64>()
        .expect("a 64-bit buffer");
    let results = runtime.on_each_worker(|worker| {
        if runtime
            .workers()
            .iter()
            .find(|w| w.node == from)
            .map(|w| w.index)
            != Some(worker.index)
        {
            return f64::INFINITY;
        }
        let mut position = 0usize;
        for _ in 0..hops.min(words.len() / 8) {
            position = words[position] as usize;
        }
        let mut best = f64::INFINITY;
        for _ in 0..samples.max(1) {
            let start = Instant::now();
            for _ in 0..hops {
                position = words[position] as usize;
            }
            best = best.min(start.elapsed().as_nanos() as f64 / hops.max(1) as f64);
        }
        black_box(position);
        best
    });
    results.into_iter().fold(f64::INFINITY, f64::min).max(0.1)
}

/// Nanoseconds per load of one worker of `from` loading random lines of `buffer` whose
/// addresses do not depend on each other (so misses overlap).
fn independent_load_ns(
    runtime: &Runtime,
    from: usize,
    buffer: &SmartArray,
    loads: usize,
    samples: usize,
) -> f64 {
    let words = buffer
        .replica(0)
        .as_native::<u64>()
        .expect("a 64-bit buffer");
    let lines = buffer.len() / 8;
    let results = runtime.on_each_worker(|worker| {
        if runtime
            .workers()
            .iter()
            .find(|w| w.node == from)
            .map(|w| w.index)
            != Some(worker.index)
        {
            return f64::INFINITY;
        }
        let mut best = f64::INFINITY;
        for sample in 0..samples.max(1) as u64 {
            let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ sample;
            let mut sum = 0u64;
            let start = Instant::now();
            for _ in 0..loads {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                sum = sum.wrapping_add(words[((state >> 33) as usize % lines.max(1)) * 8]);
            }
            best = best.min(start.elapsed().as_nanos() as f64 / loads.max(1) as f64);
            black_box(sum);
        }
        best
    });
    results.into_iter().fold(f64::INFINITY, f64::min).max(0.01)
}

/// Simple operations per nanosecond of one worker: four dependent chains of different
/// operations (so the compiler cannot merge them into vector instructions), 13 operations per
/// iteration in all.
fn peak_compute(runtime: &Runtime, samples: usize) -> f64 {
    const ITERATIONS: u64 = 20_000_000;
    const OPS_PER_ITERATION: f64 = 13.0;
    let results = runtime.on_each_worker(|worker| {
        if worker.index != 0 {
            return f64::INFINITY;
        }
        let mut best = f64::INFINITY;
        for sample in 0..samples.max(1) as u64 + 1 {
            let (mut a, mut b, mut c, mut d) = (sample | 1, sample + 3, sample + 5, sample + 7);
            let start = Instant::now();
            for _ in 0..black_box(ITERATIONS) {
                a ^= a << 13;
                a ^= a >> 7;
                a ^= a << 17;
                b = b.wrapping_mul(0x2545_F491_4F6C_DD1D).wrapping_add(1);
                c = c.rotate_left(5) ^ 0x0123_4567;
                d = d.wrapping_add(d >> 3) ^ 77;
            }
            black_box((a, b, c, d));
            best = best.min(start.elapsed().as_nanos() as f64);
        }
        best
    });
    let ns = results.into_iter().fold(f64::INFINITY, f64::min);
    ITERATIONS as f64 * OPS_PER_ITERATION / ns.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_measurement_describes_this_machine_without_remote_figures_on_one_node() {
        let machine = measure_machine(&MlcSettings::quick()).unwrap();
        machine.validate().unwrap();
        assert_eq!(machine.source, MachineSource::Measured);
        let topology = Topology::discover().unwrap();
        assert_eq!(machine.nodes.len(), topology.nodes().len());
        for a in &machine.nodes {
            let local = machine.link(a.id, a.id).unwrap();
            assert!(
                local.read_bandwidth_gbs > 0.01 && local.latency_ns > 0.0,
                "{machine}"
            );
        }
        if machine.nodes.len() == 1 {
            assert_eq!(machine.links.len(), 1);
        }
        assert!(machine.peak_gops_per_core > 0.1);
    }

    #[test]
    fn chase_buffers_form_one_cycle_over_every_line() {
        let runtime = Arc::new(Runtime::with_threads(1).unwrap());
        let buffer = chase_buffer(&runtime, 0, 64 * 1000).unwrap();
        let words = buffer
            .replica(0)
            .as_native::<u64>()
            .expect("a 64-bit buffer");
        let (mut position, mut seen) = (0usize, vec![false; 1000]);
        for _ in 0..1000 {
            assert!(!seen[position / 8]);
            seen[position / 8] = true;
            position = words[position] as usize;
        }
        assert_eq!(position, 0);
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn this_machine_measures_once_then_reads_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let (machine, costs, machine_cached, costs_cached) = this_machine(
            dir.path(),
            false,
            &MlcSettings::quick(),
            &CostSettings::quick(),
        )
        .unwrap();
        assert!(!machine_cached && !costs_cached);
        let (again, again_costs, machine_cached, costs_cached) = this_machine(
            dir.path(),
            false,
            &MlcSettings::quick(),
            &CostSettings::quick(),
        )
        .unwrap();
        assert!(machine_cached && costs_cached);
        assert_eq!(again.links, machine.links);
        assert_eq!(again_costs, costs);
        let (_, _, machine_cached, costs_cached) = this_machine(
            dir.path(),
            true,
            &MlcSettings::quick(),
            &CostSettings::quick(),
        )
        .unwrap();
        assert!(
            !machine_cached && !costs_cached,
            "remeasure measures both again"
        );
        std::fs::write(
            machine_cache_path(dir.path(), &machine.fingerprint),
            "{broken",
        )
        .unwrap();
        let (_, _, machine_cached, _) = this_machine(
            dir.path(),
            false,
            &MlcSettings::quick(),
            &CostSettings::quick(),
        )
        .unwrap();
        assert!(
            !machine_cached,
            "a broken cache file is measured again, not trusted"
        );
    }
}
