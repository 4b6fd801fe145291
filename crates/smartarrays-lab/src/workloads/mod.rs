//! The evaluation's workloads on this machine, in any configuration, with profiling: the
//! paper's aggregation (the data and kernel of [`aggregate`], with per-batch access counts) and
//! degree centrality (the graph crate's, with the accesses it declares: one pass over `begin` and
//! `rbegin`, one write per vertex).

pub mod aggregate;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::array::PARALLEL_BATCH;
use smartarrays::{codec, ArrayOptions, Placement, Runtime, SmartArray};
use smartarrays_graph::{
    build, degree_centrality, ArrayClass, EdgeList, Graph, GraphOptions, Width,
};

use crate::Result;
use aggregate::AggregateInput;
use smartarrays_adapt::costs::CostProfile;
use smartarrays_adapt::machine::MachineDescription;
use smartarrays_adapt::profile::{ArraySpec, Profiler, WorkloadProfile};

/// Timings of repeated runs: the median and the fastest, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median seconds per run.
    pub median: f64,
    /// Fastest run.
    pub min: f64,
}

/// Runs `task` `warmups` times untimed, then `repetitions` times timed; returns the timing and
/// the last result.
pub fn time_runs<T>(
    warmups: usize,
    repetitions: usize,
    mut task: impl FnMut() -> T,
) -> (Timing, T) {
    let mut last = None;
    for _ in 0..warmups {
        last = Some(black_box(task()));
    }
    let mut samples = Vec::new();
    for _ in 0..repetitions.max(1) {
        let started = Instant::now();
        last = Some(black_box(task()));
        samples.push(started.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    let median = if samples.len() % 2 == 1 {
        samples[samples.len() / 2]
    } else {
        (samples[samples.len() / 2 - 1] + samples[samples.len() / 2]) / 2.0
    };
    (
        Timing {
            median,
            min: samples[0],
        },
        last.expect("at least one run"),
    )
}

/// The aggregation's two arrays with `len` values of `data_bits`-bit data (the job's
/// formula and seed), stored at `width` bits with `placement`.
pub fn aggregate_input(
    runtime: &Arc<Runtime>,
    len: usize,
    data_bits: u32,
    width: u32,
    placement: &Placement,
    seed: u64,
) -> Result<AggregateInput> {
    let options = ArrayOptions::new()
        .placement(placement.clone())
        .bits(width)
        .runtime(Arc::clone(runtime));
    let a1 = SmartArray::from_fn(len, &options, |i| aggregate::value(seed, 0, i, data_bits))?;
    let a2 = SmartArray::from_fn(len, &options, |i| aggregate::value(seed, 1, i, data_bits))?;
    Ok(AggregateInput { a1, a2 })
}

/// The aggregation's expected sum, computed sequentially from the formula.
pub fn aggregate_reference(len: usize, data_bits: u32, seed: u64) -> u64 {
    (0..len).fold(0u64, |s, i| {
        s.wrapping_add(aggregate::value(seed, 0, i, data_bits))
            .wrapping_add(aggregate::value(seed, 1, i, data_bits))
    })
}

/// `sum(a1[i] + a2[i])` with the core's fused kernel, counting the values each batch reads.
pub fn counted_sum(input: &AggregateInput, profiler: &Profiler) -> u64 {
    let runtime = Arc::clone(input.a1.runtime());
    runtime.map_reduce(
        0..input.a1.len(),
        PARALLEL_BATCH,
        || 0u64,
        |sum, worker, range| {
            let first = input
                .a1
                .for_worker(worker)
                .sum_range(range.clone())
                .unwrap_or(0);
            let second = input
                .a2
                .for_worker(worker)
                .sum_range(range.clone())
                .unwrap_or(0);
            profiler.counter(0).sequential(range.len() as u64);
            profiler.counter(1).sequential(range.len() as u64);
            sum.wrapping_add(first).wrapping_add(second)
        },
        u64::wrapping_add,
    )
}

/// Profiles the aggregation as the paper does: arrays of 64-bit integers stored uncompressed
/// and interleaved, one warm-up, then `runs` counted runs. Returns the profile and the sum.
#[allow(clippy::too_many_arguments)]
pub fn profile_aggregate(
    runtime: &Arc<Runtime>,
    machine: &MachineDescription,
    costs: &CostProfile,
    len: usize,
    data_bits: u32,
    runs: usize,
    expected_runs: f64,
    seed: u64,
) -> Result<(WorkloadProfile, u64)> {
    let interleaved = Placement::Interleaved(Vec::new());
    let input = aggregate_input(runtime, len, data_bits, 64, &interleaved, seed)?;
    black_box(input.parallel_sum());
    let specs = ["a1", "a2"]
        .iter()
        .map(|name| ArraySpec::read_only(name, len as u64, data_bits).with_natural(64))
        .collect();
    let profiler = Profiler::start(runtime, "aggregate", specs);
    let mut sum = 0;
    for _ in 0..runs.max(1) {
        sum = black_box(counted_sum(&input, &profiler));
    }
    let profile = profiler.finish(
        runs.max(1) as f64,
        expected_runs,
        interleaved,
        machine,
        costs,
    )?;
    Ok((profile, sum))
}

/// Builds `edges` as a graph whose offsets (`begin`, `rbegin`) are stored at `offset_width`
/// with `placement`; edges and the degree output stay interleaved at their natural width (the
/// paper interleaves the output in every configuration).
pub fn degree_graph(
    runtime: &Arc<Runtime>,
    edges: &EdgeList,
    offset_width: Width,
    placement: &Placement,
) -> Result<Graph> {
    let interleaved = Placement::Interleaved(Vec::new());
    let options = GraphOptions {
        offsets: ArrayClass {
            placement: placement.clone(),
            width: offset_width,
        },
        edges: ArrayClass {
            placement: interleaved.clone(),
            width: Width::Natural,
        },
        properties: ArrayClass {
            placement: interleaved,
            width: Width::Natural,
        },
        runtime: Some(Arc::clone(runtime)),
        ..GraphOptions::default()
    };
    Ok(build(edges.clone(), &options)?)
}

/// The array specs of degree centrality on `graph` with offsets that may be stored at
/// `offset_bits` (at least what the offsets need): `begin`, `rbegin` read-only and adaptable;
/// the output written and fixed.
pub fn degree_specs(graph: &Graph, offset_bits: u32) -> Vec<ArraySpec> {
    let n = graph.vertices() as u64;
    let needed = codec::bits_needed(graph.stored_entries()).max(offset_bits);
    vec![
        ArraySpec::read_only("begin", n + 1, needed)
            .with_natural(64)
            .unpacked(),
        ArraySpec::read_only("rbegin", n + 1, needed)
            .with_natural(64)
            .unpacked(),
        ArraySpec::written("degree", n, 32).fixed(),
    ]
}

/// Profiles degree centrality on `graph` (built with natural, interleaved offsets): one warm-up,
/// then `runs` runs; accesses are those the algorithm declares. Returns the profile and the
/// degree sum of the last run.
#[allow(clippy::too_many_arguments)]
pub fn profile_degree(
    graph: &Graph,
    machine: &MachineDescription,
    costs: &CostProfile,
    offset_bits: u32,
    runs: usize,
    expected_runs: f64,
) -> Result<(WorkloadProfile, u64)> {
    let runtime = Arc::clone(graph.runtime());
    black_box(degree_centrality(graph)?);
    let specs = degree_specs(graph, offset_bits);
    let n = graph.vertices() as f64;
    let profiler = Profiler::start(&runtime, "degree-centrality", specs);
    let mut sum = 0;
    for _ in 0..runs.max(1) {
        sum = degree_centrality(graph)?.par_sum();
    }
    let r = runs.max(1) as f64;
    let declared = [
        ((n + 1.0) * r, 0.0, 0.0),
        ((n + 1.0) * r, 0.0, 0.0),
        (n * r, 0.0, n * r),
    ];
    let profile = profiler.finish_declared(
        &declared,
        r,
        expected_runs,
        Placement::Interleaved(Vec::new()),
        machine,
        costs,
    )?;
    Ok((profile, sum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartarrays_graph::generate;

    #[test]
    fn aggregation_in_every_configuration_matches_the_reference() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        for (len, bits) in [
            (0usize, 10u32),
            (1, 1),
            (1023, 33),
            (1025, 64),
            (70_000, 31),
        ] {
            let expected = aggregate_reference(len, bits, 5);
            for placement in Placement::all(runtime.topology()) {
                for width in [bits, 64] {
                    let input = aggregate_input(&runtime, len, bits, width, &placement, 5).unwrap();
                    assert_eq!(
                        input.parallel_sum(),
                        expected,
                        "len {len} bits {bits} width {width} {placement}"
                    );
                }
            }
        }
    }

    #[test]
    fn aggregation_profiles_count_every_value_read() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::haswell_model(2.4);
        let (profile, sum) =
            profile_aggregate(&runtime, &machine, &costs, 100_003, 33, 3, 15.0, 9).unwrap();
        assert_eq!(sum, aggregate_reference(100_003, 33, 9));
        assert_eq!(profile.arrays.len(), 2);
        assert_eq!(profile.arrays[0].sequential_reads, 3.0 * 100_003.0);
        assert_eq!(profile.arrays[1].spec.natural_bits, 64);
        assert_eq!(profile.arrays[1].spec.minimal_bits, 33);
        assert_eq!(profile.runs, 3.0);
    }

    #[test]
    fn degree_profiles_declare_their_passes_and_results_match_plain_degrees() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let edges = generate::uniform_with(1000, 3, 11, true, &runtime).unwrap();
        let graph = degree_graph(
            &runtime,
            &edges,
            Width::Natural,
            &Placement::Interleaved(vec![]),
        )
        .unwrap();
        let machine = MachineDescription::paper_18core();
        let costs = CostProfile::haswell_model(2.3);
        let (profile, sum) = profile_degree(&graph, &machine, &costs, 1, 2, 15.0).unwrap();
        assert_eq!(
            sum,
            2 * graph.stored_entries(),
            "every edge counts once out and once in"
        );
        assert_eq!(profile.arrays[0].sequential_reads, 2.0 * 1001.0);
        assert_eq!(profile.arrays[2].writes, 2.0 * 1000.0);
        assert_eq!(
            profile.arrays[0].spec.minimal_bits,
            codec::bits_needed(graph.stored_entries())
        );
        for width in [Width::Minimal, Width::Exactly(40)] {
            for placement in Placement::all(runtime.topology()) {
                let other = degree_graph(&runtime, &edges, width, &placement).unwrap();
                assert_eq!(
                    degree_centrality(&other).unwrap().to_vec(),
                    degree_centrality(&graph).unwrap().to_vec()
                );
            }
        }
    }
}
