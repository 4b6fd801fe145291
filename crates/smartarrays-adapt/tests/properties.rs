//! Property tests of the decision logic: the model's estimates respect the obvious lower bounds
//! and symmetries for any machine figures, and choices are always one of the estimated
//! candidates and never slower than the other. (The evaluation summaries' properties are tested
//! with the evaluation, in `smartarrays-lab`.)

use proptest::prelude::*;
use smartarrays::Placement;
use smartarrays_adapt::machine::Link;
use smartarrays_adapt::model::{estimate, ArrayLoad, Scales};
use smartarrays_adapt::profile::{ArrayProfile, ArraySpec, Source};
use smartarrays_adapt::{Advisor, CostProfile, MachineDescription, WorkloadProfile};

/// A symmetric two-node machine with the given figures.
fn machine(
    cores: usize,
    local_gbs: f64,
    remote_gbs: f64,
    local_ns: f64,
    remote_ns: f64,
) -> MachineDescription {
    let mut m = MachineDescription::paper_8core();
    for node in &mut m.nodes {
        node.cores = cores;
        node.cpus = cores;
    }
    m.links = (0..2)
        .flat_map(|from| {
            (0..2).map(move |to| Link {
                from,
                to,
                read_bandwidth_gbs: if from == to { local_gbs } else { remote_gbs },
                latency_ns: if from == to { local_ns } else { remote_ns },
            })
        })
        .collect();
    m
}

fn scan(placement: Placement, bits: u32, values: f64, random: f64) -> ArrayLoad {
    ArrayLoad {
        name: "a".into(),
        placement,
        bits,
        len: values as u64,
        sequential_reads: values,
        random_reads: random,
        writes: 0.0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn estimates_respect_lower_bounds_and_replication_is_never_slower_for_reads(
        cores in 1usize..32,
        local in 5.0f64..100.0,
        remote_fraction in 0.05f64..1.0,
        values in 1e6f64..1e9,
        bits in 1u32..=64,
        work in 0.0f64..5.0,
        random_share in 0.0f64..0.5,
    ) {
        let m = machine(cores, local, local * remote_fraction, 80.0, 130.0);
        let threads = vec![(0, cores), (1, cores)];
        let random = values * random_share;
        let time = |p: Placement| estimate(&m, &threads, &[scan(p, bits, values - random, random)], work, &Scales::default()).unwrap().seconds;
        let replicated = time(Placement::Replicated);
        let interleaved = time(Placement::Interleaved(vec![]));
        let single = time(Placement::SingleNode(0));
        let bytes = (values - random) * bits as f64 / 8.0 + random * 64.0;
        let floor = (work / (2 * cores) as f64).max(bytes / (2.0 * local * 1e9));
        for t in [replicated, interleaved, single] {
            prop_assert!(t >= floor * 0.999, "{t} below the lower bound {floor}");
        }
        prop_assert!(replicated <= interleaved * 1.0001);
        prop_assert!(replicated <= single * 1.0001);
        // Single node can never beat the bandwidth of one node's memory.
        prop_assert!(single >= bytes / (local * 1e9) * 0.999);
    }

    #[test]
    fn bandwidth_bound_time_scales_inversely_with_bandwidth(factor in 0.1f64..10.0, values in 1e7f64..1e9) {
        let m = MachineDescription::paper_18core();
        let threads = vec![(0, 36), (1, 36)];
        let load = [scan(Placement::Interleaved(vec![]), 64, values, 0.0)];
        let base = estimate(&m, &threads, &load, 0.0, &Scales::default()).unwrap().seconds;
        let scaled = estimate(&m, &threads, &load, 0.0, &Scales { bandwidth: factor, ..Scales::default() }).unwrap().seconds;
        prop_assert!((base / scaled / factor - 1.0).abs() < 1e-3);
    }

    #[test]
    fn choices_are_the_faster_candidate_and_follow_the_diagram(
        bits in 1u32..=64,
        values in 1e6f64..2e9,
        runs in 1.0f64..50.0,
        preset in 0usize..2,
        free_gib in 1u64..200,
    ) {
        let name = MachineDescription::PRESETS[preset];
        let machine = MachineDescription::preset(name).unwrap().with_free_memory(free_gib << 30);
        let costs = CostProfile::for_preset(name).unwrap();
        let arrays = ["a1", "a2"].iter().map(|n| ArrayProfile {
            spec: ArraySpec::read_only(n, values as u64, bits).with_natural(64),
            sequential_reads: values,
            random_reads: 0.0,
            writes: 0.0,
            access_source: Source::UserGiven,
        }).collect();
        let Ok(profile) = WorkloadProfile::modelled("aggregate", &machine, &costs, arrays, 0.0, runs) else { return Ok(()) };
        let choice = Advisor::new(machine, costs).choose(&profile).unwrap();
        let other = if choice.chosen.compressed { Some(&choice.uncompressed) } else { choice.compressed.as_ref() };
        if let Some(other) = other {
            prop_assert!(choice.chosen.estimate.seconds <= other.estimate.seconds);
        }
        prop_assert_eq!(choice.compressed.is_some(), bits < 64);
        // A replicated candidate always passed the space test.
        if choice.chosen.placement == Placement::Replicated {
            prop_assert!(choice.uncompressed_steps.iter().chain(&choice.compressed_steps).any(|s| s.question.contains("space for") && s.answer));
        }
        prop_assert!(choice.chosen.speedup > 0.0);
    }
}
