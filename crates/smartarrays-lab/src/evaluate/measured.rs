//! The evaluation on this machine (`smartarrays bench adapt`): every configuration of the
//! aggregation and of degree centrality timed across widths and placements, in rounds so that
//! other work on a shared machine disturbs every configuration alike, next to the configuration
//! Auto chose from a profile of the uncompressed interleaved run. The cases feed
//! [`summarise`](super::summarise).

use std::sync::Arc;

use smartarrays::{Placement, Runtime};
use smartarrays_adapt::{Advisor, WorkloadProfile};
use smartarrays_graph::{degree_centrality, generate, Width};

use super::summary::{rule, Case, ConfigTime};
use crate::workloads;
use crate::Result;

/// Which run of a configuration stands for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// The fastest run (least disturbed by other work on a shared machine).
    Min,
    /// The median run.
    Median,
}

impl Statistic {
    /// The chosen statistic of `timing`, in seconds.
    pub fn of(self, timing: &workloads::Timing) -> f64 {
        match self {
            Statistic::Min => timing.min,
            Statistic::Median => timing.median,
        }
    }
}

/// What to measure on this machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Values per aggregation array.
    pub elements: usize,
    /// Aggregation data widths.
    pub bits: Vec<u32>,
    /// Vertices of the degree-centrality graph (3 random edges each).
    pub vertices: u64,
    /// Widths to store the degree-centrality offsets at (each case: that width against 64);
    /// widths below what the offsets need are raised to it.
    pub degree_bits: Vec<u32>,
    /// Untimed rounds before measuring.
    pub warmups: usize,
    /// Measured runs of every configuration, taken in rounds (one run of each per round).
    pub repetitions: usize,
    /// Which run stands for a configuration.
    pub statistic: Statistic,
}

/// Times every task `warmups + repetitions` times in rounds (one run of each task per round),
/// so that other work on a shared machine disturbs every configuration alike.
fn round_robin(
    tasks: &[Box<dyn Fn() -> Result<()> + '_>],
    warmups: usize,
    repetitions: usize,
) -> Result<Vec<workloads::Timing>> {
    let mut samples = vec![Vec::new(); tasks.len()];
    for round in 0..warmups + repetitions.max(1) {
        for (task, samples) in tasks.iter().zip(&mut samples) {
            let started = std::time::Instant::now();
            task()?;
            if round >= warmups {
                samples.push(started.elapsed().as_secs_f64());
            }
        }
    }
    Ok(samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            let median = if s.len() % 2 == 1 {
                s[s.len() / 2]
            } else {
                (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
            };
            workloads::Timing { median, min: s[0] }
        })
        .collect())
}

/// Step 2 alone: whether the advisor would compress at each placement.
fn predictions(
    advisor: &Advisor,
    profile: &WorkloadProfile,
    placements: &[Placement],
) -> Result<Vec<(String, bool)>> {
    let mut predicted = Vec::new();
    if profile
        .arrays
        .iter()
        .any(|a| a.spec.adaptable && a.spec.minimal_bits < a.spec.natural_bits)
    {
        for placement in placements {
            let uncompressed = advisor.estimate_configuration(profile, placement, false)?;
            let compressed = advisor.estimate_configuration(profile, placement, true)?;
            predicted.push((
                placement.to_string(),
                compressed.estimate.seconds < uncompressed.estimate.seconds,
            ));
        }
    }
    Ok(predicted)
}

/// The aggregation at every width of `settings.bits`: profiled uncompressed and interleaved,
/// Auto's choice, and every placement at 64 bits and at the data's width, timed in rounds;
/// every run's sum is checked against the formula.
pub fn aggregate_cases(
    settings: &Settings,
    runtime: &Arc<Runtime>,
    advisor: &Advisor,
    progress: &dyn Fn(String),
) -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    let placements = Placement::all(runtime.topology());
    for &bits in &settings.bits {
        let expected = workloads::aggregate_reference(settings.elements, bits, 42);
        let runs = (settings.warmups + settings.repetitions) as f64;
        let (profile, sum) = workloads::profile_aggregate(
            runtime,
            &advisor.machine,
            &advisor.costs,
            settings.elements,
            bits,
            settings.repetitions,
            runs,
            42,
        )?;
        if sum != expected {
            return Err(
                format!("aggregation at {bits} bits summed to {sum}, expected {expected}").into(),
            );
        }
        let choice = advisor.choose(&profile)?;
        let mut configs = Vec::new();
        for placement in &placements {
            for width in if bits == 64 { vec![64] } else { vec![64, bits] } {
                configs.push((
                    placement.clone(),
                    width,
                    workloads::aggregate_input(
                        runtime,
                        settings.elements,
                        bits,
                        width,
                        placement,
                        42,
                    )?,
                ));
            }
        }
        let tasks: Vec<Box<dyn Fn() -> Result<()> + '_>> = configs
            .iter()
            .map(|(placement, width, input)| {
                Box::new(move || -> Result<()> {
                    let sum = std::hint::black_box(input.parallel_sum());
                    if sum != expected {
                        return Err(format!("aggregation {placement} at {width} bits summed to {sum}, expected {expected}").into());
                    }
                    Ok(())
                }) as Box<dyn Fn() -> Result<()> + '_>
            })
            .collect();
        let timings = round_robin(&tasks, settings.warmups, settings.repetitions)?;
        let mut times = Vec::new();
        for ((placement, width, _), timing) in configs.iter().zip(&timings) {
            let seconds = settings.statistic.of(timing);
            progress(format!(
                "aggregate {bits:>2} bits: {placement:<12} stored at {width:>2} bits: {:.3} ms",
                seconds * 1e3
            ));
            // At 64-bit data the compressed and uncompressed rules are the same configuration.
            let rules = if bits == 64 {
                vec![false, true]
            } else {
                vec![*width == bits]
            };
            for compressed in rules {
                times.push(ConfigTime {
                    placement: placement.to_string(),
                    compressed,
                    bits: *width,
                    seconds,
                });
            }
        }
        let chosen = rule(
            &choice.chosen.placement.to_string(),
            choice.chosen.compressed,
        );
        progress(format!(
            "aggregate {bits:>2} bits: auto chose {chosen}: {}",
            choice.summary()
        ));
        let predicted_compression = predictions(advisor, &profile, &placements)?;
        cases.push(Case {
            workload: "aggregate".into(),
            machine: "this".into(),
            bits,
            times,
            chosen,
            predicted_compression,
        });
    }
    Ok(cases)
}

/// Degree centrality on a uniform random graph (3 edges per vertex) with its offsets at every
/// width of `settings.degree_bits` and at 64, every placement, timed in rounds; every result is
/// checked against the one of the profiled graph.
pub fn degree_cases(
    settings: &Settings,
    runtime: &Arc<Runtime>,
    advisor: &Advisor,
    progress: &dyn Fn(String),
) -> Result<Vec<Case>> {
    let edges = generate::uniform_with(settings.vertices, 3, 42, true, runtime)?;
    let placements = Placement::all(runtime.topology());
    let profiled = workloads::degree_graph(
        runtime,
        &edges,
        Width::Natural,
        &Placement::Interleaved(Vec::new()),
    )?;
    let expected = degree_centrality(&profiled)?.to_vec();
    let needed = smartarrays::codec::bits_needed(profiled.stored_entries());
    let mut widths: Vec<u32> = settings
        .degree_bits
        .iter()
        .map(|&b| b.clamp(needed, 64))
        .collect();
    widths.sort_unstable();
    widths.dedup();
    let uncompressed = placements
        .iter()
        .map(|p| workloads::degree_graph(runtime, &edges, Width::Exactly(64), p))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut cases = Vec::new();
    for width in widths {
        let runs = (settings.warmups + settings.repetitions) as f64;
        let (profile, _) = workloads::profile_degree(
            &profiled,
            &advisor.machine,
            &advisor.costs,
            width,
            settings.repetitions,
            runs,
        )?;
        let choice = advisor.choose(&profile)?;
        let compressed = if width == 64 {
            Vec::new()
        } else {
            placements
                .iter()
                .map(|p| workloads::degree_graph(runtime, &edges, Width::Exactly(width), p))
                .collect::<std::result::Result<Vec<_>, _>>()?
        };
        let graphs: Vec<(&Placement, u32, &smartarrays_graph::Graph)> = placements
            .iter()
            .zip(&uncompressed)
            .map(|(p, g)| (p, 64, g))
            .chain(
                placements
                    .iter()
                    .zip(&compressed)
                    .map(|(p, g)| (p, width, g)),
            )
            .collect();
        let expected = &expected;
        let tasks: Vec<Box<dyn Fn() -> Result<()> + '_>> = graphs
            .iter()
            .map(|&(placement, bits, graph)| {
                Box::new(move || -> Result<()> {
                    let degrees = std::hint::black_box(degree_centrality(graph)?);
                    if degrees.len() != expected.len()
                        || degrees.get(degrees.len().saturating_sub(1)).ok()
                            != expected.last().copied()
                    {
                        return Err(format!(
                            "degree centrality differs at {placement} {bits} bits"
                        )
                        .into());
                    }
                    Ok(())
                }) as Box<dyn Fn() -> Result<()> + '_>
            })
            .collect();
        for &(placement, bits, graph) in &graphs {
            if degree_centrality(graph)?.to_vec() != *expected {
                return Err(format!("degree centrality differs at {placement} {bits} bits").into());
            }
        }
        let timings = round_robin(&tasks, settings.warmups, settings.repetitions)?;
        let mut times = Vec::new();
        for (&(placement, bits, _), timing) in graphs.iter().zip(&timings) {
            let seconds = settings.statistic.of(timing);
            progress(format!(
                "degree {width:>2} bits: {placement:<12} offsets at {bits:>2} bits: {:.3} ms",
                seconds * 1e3
            ));
            let rules = if width == 64 {
                vec![false, true]
            } else {
                vec![bits == width]
            };
            for compressed in rules {
                times.push(ConfigTime {
                    placement: placement.to_string(),
                    compressed,
                    bits,
                    seconds,
                });
            }
        }
        let chosen = rule(
            &choice.chosen.placement.to_string(),
            choice.chosen.compressed,
        );
        progress(format!(
            "degree {width:>2} bits: auto chose {chosen}: {}",
            choice.summary()
        ));
        let predicted_compression = predictions(advisor, &profile, &placements)?;
        cases.push(Case {
            workload: "degree-centrality".into(),
            machine: "this".into(),
            bits: width,
            times,
            chosen,
            predicted_compression,
        });
    }
    Ok(cases)
}
