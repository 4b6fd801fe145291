//! Modelled profiles of the paper's jobs (aggregation §5.1, degree centrality §5.2, and one
//! PageRank iteration), built from their stated characteristics rather than from a run: what
//! `smartarrays advise` uses on the paper's machines and what the findings are checked with.

use smartarrays_adapt::profile::{ArrayProfile, ArraySpec, Source, WorkloadProfile};
use smartarrays_adapt::{CostProfile, MachineDescription, Result};

/// Values per array of the paper's aggregation (two 4 GB arrays of 64-bit integers).
pub const PAPER_AGGREGATE_VALUES: u64 = 1 << 29;
/// Vertices of the paper's degree-centrality graph (1.5 billion, 3 random edges each).
pub const PAPER_DEGREE_VERTICES: u64 = 1_500_000_000;
/// The paper's aggregation widths (Figure 10).
pub const PAPER_WIDTHS: [u32; 7] = [10, 31, 32, 33, 50, 63, 64];

/// Modelled profile of the aggregation: two read-only arrays of `values` 64-bit integers whose
/// data needs `bits` bits, each scanned once per run, run `expected_runs` times (5 warm-ups and
/// 10 measured runs in the paper).
pub fn aggregation_profile(
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

/// Modelled profile of degree centrality on a graph of `vertices` vertices and `entries` edges
/// per direction: `begin` and `rbegin` (vertices + 1 offsets each, 64-bit natural, needing the
/// bits of `entries`) scanned once per run; the 32-bit output written once per vertex and kept
/// interleaved (as in the paper).
pub fn degree_profile(
    machine: &MachineDescription,
    costs: &CostProfile,
    vertices: u64,
    entries: u64,
    expected_runs: f64,
) -> Result<WorkloadProfile> {
    let offset_bits = smartarrays::codec::bits_needed(entries);
    let offsets = |name: &str| ArrayProfile {
        spec: ArraySpec::read_only(name, vertices + 1, offset_bits)
            .with_natural(64)
            .unpacked(),
        sequential_reads: (vertices + 1) as f64,
        random_reads: 0.0,
        writes: 0.0,
        access_source: Source::DeclaredByWorkload,
    };
    let output = ArrayProfile {
        spec: ArraySpec::written("degree", vertices, 32).fixed(),
        sequential_reads: 0.0,
        random_reads: 0.0,
        writes: vertices as f64,
        access_source: Source::DeclaredByWorkload,
    };
    WorkloadProfile::modelled(
        "degree-centrality",
        machine,
        costs,
        vec![offsets("begin"), offsets("rbegin"), output],
        0.0,
        expected_runs,
    )
}

/// Modelled profile of one PageRank iteration (pull over reverse edges) on a graph of
/// `vertices` vertices and `edges` edges whose largest out-degree is `max_degree`: `rbegin`,
/// `redge` and the out-degrees are read-only and adaptable; ranks and contributions (64-bit
/// floating point) are written and stay interleaved. Per iteration: one pass over `rbegin`,
/// `redge`, the out-degrees and the ranks; one random read of a contribution per edge.
pub fn pagerank_profile(
    machine: &MachineDescription,
    costs: &CostProfile,
    vertices: u64,
    edges: u64,
    max_degree: u64,
    expected_iterations: f64,
) -> Result<WorkloadProfile> {
    let bits = smartarrays::codec::bits_needed;
    let n = vertices as f64;
    let m = edges as f64;
    let array =
        |spec: ArraySpec, sequential_reads: f64, random_reads: f64, writes: f64| ArrayProfile {
            spec,
            sequential_reads,
            random_reads,
            writes,
            access_source: Source::DeclaredByWorkload,
        };
    let arrays = vec![
        array(
            ArraySpec::read_only("rbegin", vertices + 1, bits(edges))
                .with_natural(64)
                .unpacked(),
            n + 1.0,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::read_only("redge", edges, bits(vertices.saturating_sub(1))).unpacked(),
            m,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::read_only("out_degree", vertices, bits(max_degree)).unpacked(),
            n,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::written("ranks", vertices, 64)
                .with_natural(64)
                .fixed(),
            n,
            0.0,
            n,
        ),
        array(
            ArraySpec::written("contributions", vertices, 64)
                .with_natural(64)
                .fixed(),
            0.0,
            m,
            n,
        ),
    ];
    WorkloadProfile::modelled("pagerank", machine, costs, arrays, 0.0, expected_iterations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartarrays::Placement;
    use smartarrays_adapt::Advisor;

    #[test]
    fn preset_profiles_have_the_papers_sizes() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let aggregate =
            aggregation_profile(&machine, &costs, PAPER_AGGREGATE_VALUES, 33, 15.0).unwrap();
        assert_eq!(aggregate.arrays[0].bytes_at(64), 4.0 * (1u64 << 30) as f64);
        assert_eq!(aggregate.arrays[0].spec.natural_bits, 64);
        let degree = degree_profile(
            &machine,
            &costs,
            PAPER_DEGREE_VERTICES,
            3 * PAPER_DEGREE_VERTICES,
            15.0,
        )
        .unwrap();
        assert_eq!(
            degree.arrays[0].spec.minimal_bits, 33,
            "the paper: 33 bits encode the edge offsets"
        );
        assert!(!degree.arrays[2].spec.adaptable && !degree.arrays[2].spec.read_only);
    }

    #[test]
    fn pagerank_arrays_are_chosen_together_under_a_budget() {
        // The paper's Twitter graph: 42 M vertices, 1.5 B edges, 15 iterations.
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let profile =
            pagerank_profile(&machine, &costs, 42_000_000, 1_500_000_000, 3_000_000, 15.0).unwrap();
        let advisor = Advisor::new(machine, costs);
        let free = advisor.choose_jointly(&profile, None).unwrap();
        assert!(
            free.arrays[1].placement == Placement::Replicated,
            "the edges dominate and are read-only: {free}"
        );
        let minimum: f64 = profile
            .arrays
            .iter()
            .map(|a| {
                a.bytes_at(if a.spec.adaptable {
                    a.spec.minimal_bits
                } else {
                    a.spec.profiled_bits
                })
            })
            .sum();
        let tight = advisor
            .choose_jointly(&profile, Some(minimum * 1.2))
            .unwrap();
        assert!(tight.memory_bytes <= minimum * 1.2);
        assert!(tight.estimate.seconds >= free.estimate.seconds * 0.999);
        assert!(advisor
            .choose_jointly(&profile, Some(minimum * 0.5))
            .is_err());
        assert!(free.to_string().contains("redge"));
    }
}
