//! Adaptive PageRank (feature `adapt`): PageRank that profiles its first iterations, asks the
//! advisor of `smartarrays-adapt` for a configuration of its reverse arrays, and restructures
//! them (as `AdaptiveArray`s) while it keeps iterating. Beyond the paper, which suggests run-time
//! re-adaptation in §6.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};
use smartarrays_adapt::adaptive::AdaptiveArray;
use smartarrays_adapt::profile::{ArraySpec, Profiler, WorkloadProfile};
use smartarrays_adapt::{AdaptError, Advisor, JointChoice};

use crate::Graph;

type Result<T> = std::result::Result<T, AdaptError>;

/// Settings of [`adaptive_pagerank`].
#[derive(Clone, Debug, Serialize)]
pub struct AdaptivePageRankOptions {
    /// Damping factor.
    pub damping: f64,
    /// Stop when the sum of absolute rank changes is below this.
    pub tolerance: f64,
    /// Stop after this many iterations.
    pub max_iterations: usize,
    /// Iterations profiled before deciding (at least 1).
    pub profile_iterations: usize,
    /// Iterations the workload is expected to run (amortises replicas; the paper's run took 15).
    pub expected_iterations: f64,
    /// Memory budget for the adaptable arrays and the rank arrays together (bytes).
    pub budget_bytes: Option<f64>,
    /// Restructure on a background thread while iterations continue (else between iterations).
    pub background: bool,
}

impl Default for AdaptivePageRankOptions {
    fn default() -> Self {
        AdaptivePageRankOptions {
            damping: 0.85,
            tolerance: 1e-3,
            max_iterations: 100,
            profile_iterations: 2,
            expected_iterations: 15.0,
            budget_bytes: None,
            background: true,
        }
    }
}

/// What an adaptive PageRank run did.
#[derive(Clone, Debug, Serialize)]
pub struct AdaptivePageRankReport {
    /// Rank of every vertex.
    pub ranks: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// Seconds of every iteration.
    pub iteration_seconds: Vec<f64>,
    /// The profile of the first iterations.
    pub profile: WorkloadProfile,
    /// The advisor's per-array choice.
    pub choice: JointChoice,
    /// Per array: (name, configuration before, configuration after, iteration that first used the new one).
    pub swaps: Vec<(String, String, String, Option<usize>)>,
    /// Seconds spent building the new arrays (in the background when so configured).
    pub restructure_seconds: f64,
}

const BATCH: usize = 2048;
const NAMES: [&str; 3] = ["rbegin", "redge", "out_degree"];

/// The arrays PageRank reads, each restructurable.
struct Arrays {
    rbegin: AdaptiveArray,
    redge: AdaptiveArray,
    out_degree: AdaptiveArray,
}

impl Arrays {
    fn get(&self, index: usize) -> &AdaptiveArray {
        match index {
            0 => &self.rbegin,
            1 => &self.redge,
            _ => &self.out_degree,
        }
    }
}

fn describe(array: &SmartArray) -> String {
    format!("{} {} bits", array.placement(), array.bits())
}

/// PageRank (pull, Jacobi, dangling rank spread uniformly; the same arithmetic as
/// `smartarrays_graph::pagerank`) that profiles its first `profile_iterations` iterations with
/// the graph's reverse arrays copied into the uncompressed interleaved configuration, asks
/// `advisor` for a per-array configuration under the budget, and restructures the arrays while
/// it keeps iterating. Ranks are bit-for-bit those of a run without restructuring.
pub fn adaptive_pagerank(
    graph: &Graph,
    advisor: &Advisor,
    options: &AdaptivePageRankOptions,
) -> Result<AdaptivePageRankReport> {
    if !((0.0..1.0).contains(&options.damping) && options.tolerance >= 0.0)
        || options.max_iterations == 0
        || options.profile_iterations == 0
    {
        return Err(AdaptError::InvalidInput(
            "damping must be in [0, 1), tolerance >= 0, iterations >= 1".into(),
        ));
    }
    let runtime = Arc::clone(graph.runtime());
    let n = graph.vertices();
    let incoming = graph.incoming();
    let entries = incoming.targets().len();
    let interleaved = ArrayOptions::new()
        .placement(Placement::Interleaved(Vec::new()))
        .runtime(Arc::clone(&runtime));
    let begin = graph.begin();
    let max_degree = graph.max_out_degree();
    let specs = vec![
        ArraySpec::read_only(
            "rbegin",
            n as u64 + 1,
            smartarrays::codec::bits_needed(entries as u64),
        )
        .with_natural(64)
        .unpacked(),
        ArraySpec::read_only(
            "redge",
            entries as u64,
            smartarrays::codec::bits_needed(n.saturating_sub(1) as u64),
        )
        .unpacked(),
        ArraySpec::read_only(
            "out_degree",
            n as u64,
            smartarrays::codec::bits_needed(max_degree),
        )
        .unpacked(),
        ArraySpec::written("ranks", n as u64, 64)
            .with_natural(64)
            .fixed(),
        ArraySpec::written("contributions", n as u64, 64)
            .with_natural(64)
            .fixed(),
    ];
    let copy = |source: &SmartArray, bits: u32| {
        SmartArray::from_batches(
            source.len(),
            &interleaved.clone().bits(bits),
            |range, out| {
                let _ = source.local().unpack(range.start, out);
            },
        )
    };
    let arrays = Arrays {
        rbegin: AdaptiveArray::new(copy(incoming.offsets(), specs[0].natural_bits)?),
        redge: AdaptiveArray::new(copy(incoming.targets(), specs[1].natural_bits)?),
        out_degree: AdaptiveArray::new(SmartArray::from_batches(
            n,
            &interleaved.clone().bits(specs[2].natural_bits),
            |range, out| {
                let mut offsets = vec![0u64; range.len() + 1];
                let _ = begin.local().unpack(range.start, &mut offsets);
                for (slot, pair) in out.iter_mut().zip(offsets.windows(2)) {
                    *slot = pair[1] - pair[0];
                }
            },
        )?),
    };
    let before: Vec<String> = (0..3).map(|i| describe(&arrays.get(i).load())).collect();
    let mut ranks = vec![if n > 0 { 1.0 / n as f64 } else { 0.0 }; n];
    let mut contributions = vec![0.0f64; n];
    let mut iteration_seconds = Vec::new();
    let mut converged = n == 0;
    let mut profiler = Some(Profiler::start(&runtime, "pagerank", specs));
    let mut decision: Option<(WorkloadProfile, JointChoice)> = None;
    let mut worker: Option<std::thread::JoinHandle<Result<f64>>> = None;
    let mut first_use: [Option<usize>; 3] = [None; 3];
    let generations_before: Vec<u64> = (0..3).map(|i| arrays.get(i).generation()).collect();
    let arrays = Arc::new(arrays);
    let mut iterations = 0;
    while !converged && iterations < options.max_iterations {
        iterations += 1;
        let started = Instant::now();
        let snapshot: Vec<Arc<SmartArray>> = (0..3).map(|i| arrays.get(i).load()).collect();
        for (i, generation) in generations_before.iter().enumerate() {
            if first_use[i].is_none() && arrays.get(i).generation() > *generation {
                first_use[i] = Some(iterations);
            }
        }
        let counters = profiler.as_ref();
        let dangling = spread(&runtime, &snapshot[2], &ranks, &mut contributions, counters);
        let base = (1.0 - options.damping) / n as f64 + options.damping * dangling / n as f64;
        let change = pull(
            &runtime,
            &snapshot[0],
            &snapshot[1],
            &contributions,
            &mut ranks,
            base,
            options.damping,
            counters,
        );
        iteration_seconds.push(started.elapsed().as_secs_f64());
        converged = change < options.tolerance;
        if iterations == options.profile_iterations {
            if let Some(profiler) = profiler.take() {
                let profile = profiler.finish(
                    iterations as f64,
                    options.expected_iterations.max(iterations as f64),
                    Placement::Interleaved(Vec::new()),
                    &advisor.machine,
                    &advisor.costs,
                )?;
                let choice = advisor.choose_jointly(&profile, options.budget_bytes)?;
                let targets: Vec<(usize, ArrayOptions)> = (0..3)
                    .filter_map(|i| {
                        let decided = &choice.arrays[i];
                        let current = arrays.get(i).load();
                        let placement = local_placement(&decided.placement, &runtime);
                        (placement != *current.placement() || decided.bits != current.bits()).then(
                            || {
                                (
                                    i,
                                    ArrayOptions::new()
                                        .placement(placement)
                                        .bits(decided.bits)
                                        .runtime(Arc::clone(&runtime)),
                                )
                            },
                        )
                    })
                    .collect();
                let shared = Arc::clone(&arrays);
                let restructure = move || -> Result<f64> {
                    let started = Instant::now();
                    for (i, target) in targets {
                        shared.get(i).restructure(&target)?;
                    }
                    Ok(started.elapsed().as_secs_f64())
                };
                if options.background {
                    worker = Some(std::thread::spawn(restructure));
                } else {
                    let seconds = restructure()?;
                    worker = Some(std::thread::spawn(move || Ok(seconds)));
                }
                decision = Some((profile, choice));
            }
        }
    }
    let restructure_seconds = match worker {
        Some(handle) => handle
            .join()
            .map_err(|_| AdaptError::InvalidInput("the restructuring thread panicked".into()))??,
        None => 0.0,
    };
    let (profile, choice) = match decision {
        Some(decision) => decision,
        None => {
            // Converged before the profile was complete: decide on what was seen.
            let profiler = profiler
                .take()
                .ok_or_else(|| AdaptError::InvalidInput("no profile".into()))?;
            let profile = profiler.finish(
                iterations.max(1) as f64,
                options.expected_iterations.max(1.0),
                Placement::Interleaved(Vec::new()),
                &advisor.machine,
                &advisor.costs,
            )?;
            let choice = advisor.choose_jointly(&profile, options.budget_bytes)?;
            (profile, choice)
        }
    };
    let swaps = (0..3)
        .map(|i| {
            (
                NAMES[i].to_string(),
                before[i].clone(),
                describe(&arrays.get(i).load()),
                first_use[i],
            )
        })
        .collect();
    Ok(AdaptivePageRankReport {
        ranks,
        iterations,
        converged,
        iteration_seconds,
        profile,
        choice,
        swaps,
        restructure_seconds,
    })
}

fn local_placement(chosen: &Placement, runtime: &Runtime) -> Placement {
    let here = runtime.topology().node_ids();
    match chosen {
        Placement::SingleNode(node) if !here.contains(node) => Placement::SingleNode(here[0]),
        Placement::Interleaved(nodes) if nodes.iter().any(|n| !here.contains(n)) => {
            Placement::Interleaved(Vec::new())
        }
        other => other.clone(),
    }
}

/// `contributions[v] = ranks[v] / out_degree[v]`; returns the rank of vertices without out-edges.
fn spread(
    runtime: &Runtime,
    degrees: &SmartArray,
    ranks: &[f64],
    contributions: &mut [f64],
    counters: Option<&Profiler>,
) -> f64 {
    let pieces: Vec<Mutex<&mut [f64]>> = contributions.chunks_mut(BATCH).map(Mutex::new).collect();
    runtime
        .map_reduce(
            0..ranks.len(),
            BATCH,
            || (0.0, vec![0u64; BATCH]),
            |(dangling, mut buffer), worker, range| {
                let view = degrees.for_worker(worker);
                let degrees = &mut buffer[..range.len()];
                let _ = view.unpack(range.start, degrees);
                let mut sum = dangling;
                if let Ok(mut out) = pieces[range.start / BATCH].lock() {
                    for ((slot, &degree), &rank) in out
                        .iter_mut()
                        .zip(degrees.iter())
                        .zip(&ranks[range.clone()])
                    {
                        if degree == 0 {
                            sum += rank;
                            *slot = 0.0;
                        } else {
                            *slot = rank / degree as f64;
                        }
                    }
                }
                if let Some(p) = counters {
                    p.counter(2).sequential(range.len() as u64);
                    p.counter(3).sequential(range.len() as u64);
                    p.counter(4).writes(range.len() as u64);
                }
                (sum, buffer)
            },
            |a, b| (a.0 + b.0, Vec::new()),
        )
        .0
}

/// New ranks from in-neighbours' contributions; returns the sum of absolute changes.
#[allow(clippy::too_many_arguments)]
fn pull(
    runtime: &Runtime,
    rbegin: &SmartArray,
    redge: &SmartArray,
    contributions: &[f64],
    ranks: &mut [f64],
    base: f64,
    damping: f64,
    counters: Option<&Profiler>,
) -> f64 {
    let n = ranks.len();
    let pieces: Vec<Mutex<&mut [f64]>> = ranks.chunks_mut(BATCH).map(Mutex::new).collect();
    runtime
        .map_reduce(
            0..n,
            BATCH,
            || (0.0, Vec::new(), Vec::new()),
            |(change, mut offsets, mut ids): (f64, Vec<u64>, Vec<u64>), worker, range| {
                offsets.resize(range.len() + 1, 0);
                let _ = rbegin.for_worker(worker).unpack(range.start, &mut offsets);
                let (first, last) = (offsets[0] as usize, offsets[range.len()] as usize);
                ids.resize(last - first, 0);
                let _ = redge.for_worker(worker).unpack(first, &mut ids);
                let mut delta = change;
                if let Ok(mut out) = pieces[range.start / BATCH].lock() {
                    for (i, rank) in out.iter_mut().enumerate() {
                        let (s, t) = (offsets[i] as usize - first, offsets[i + 1] as usize - first);
                        let mut sum = 0.0;
                        for &u in &ids[s..t] {
                            sum += contributions[u as usize];
                        }
                        let new = base + damping * sum;
                        delta += (new - *rank).abs();
                        *rank = new;
                    }
                }
                if let Some(p) = counters {
                    p.counter(0).sequential(range.len() as u64 + 1);
                    p.counter(1).sequential((last - first) as u64);
                    p.counter(4).random((last - first) as u64);
                    p.counter(3).writes(range.len() as u64);
                }
                (delta, offsets, ids)
            },
            |a, b| (a.0 + b.0, Vec::new(), Vec::new()),
        )
        .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build, generate, pagerank, GraphOptions, PageRankOptions, Precision};
    use smartarrays_adapt::{CostProfile, MachineDescription};

    #[test]
    fn adaptive_pagerank_restructures_and_matches_the_static_ranks() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let edges = generate::uniform_with(3000, 5, 7, true, &runtime).unwrap();
        let graph = build(
            edges,
            &GraphOptions::default().runtime(Arc::clone(&runtime)),
        )
        .unwrap();
        // The adaptive run gathers f64 contributions: compare with the same precision.
        let exact = PageRankOptions {
            tolerance: 1e-10,
            contributions: Precision::F64,
            ..PageRankOptions::default()
        };
        let reference = pagerank(&graph, &exact, |_| {}).unwrap();
        // The paper's 18-core machine as the description: compression pays there, so arrays change.
        let advisor = Advisor::new(
            MachineDescription::paper_18core(),
            CostProfile::for_preset("paper-18core").unwrap(),
        );
        for background in [false, true] {
            let options = AdaptivePageRankOptions {
                tolerance: 1e-10,
                background,
                ..AdaptivePageRankOptions::default()
            };
            let report = adaptive_pagerank(&graph, &advisor, &options).unwrap();
            assert_eq!(report.iterations, reference.summary.iterations);
            let expected = reference.ranks.to_vec();
            for (v, (a, b)) in report.ranks.iter().zip(&expected).enumerate() {
                assert!((a - b).abs() <= 1e-15, "vertex {v}: {a} vs {b}");
            }
            assert_eq!(
                report.profile.arrays[1].sequential_reads,
                2.0 * graph.stored_entries() as f64
            );
            assert_eq!(
                report.profile.arrays[4].random_reads,
                2.0 * graph.stored_entries() as f64
            );
            assert!(
                report.swaps.iter().any(|s| s.1 != s.2),
                "some array was restructured: {:?}",
                report.swaps
            );
            if !background {
                assert!(report
                    .swaps
                    .iter()
                    .filter(|s| s.1 != s.2)
                    .all(|s| s.3 == Some(options.profile_iterations + 1)));
            }
        }
    }

    #[test]
    fn a_tight_budget_keeps_arrays_small() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let edges = generate::uniform_with(2000, 4, 3, true, &runtime).unwrap();
        let graph = build(
            edges,
            &GraphOptions::default().runtime(Arc::clone(&runtime)),
        )
        .unwrap();
        let advisor = Advisor::new(
            MachineDescription::paper_8core(),
            CostProfile::for_preset("paper-8core").unwrap(),
        );
        let free =
            adaptive_pagerank(&graph, &advisor, &AdaptivePageRankOptions::default()).unwrap();
        let budget = free.choice.memory_bytes * 0.5;
        let tight = adaptive_pagerank(
            &graph,
            &advisor,
            &AdaptivePageRankOptions {
                budget_bytes: Some(budget),
                ..AdaptivePageRankOptions::default()
            },
        );
        match tight {
            Ok(report) => assert!(report.choice.memory_bytes <= budget),
            Err(error) => assert!(error.to_string().contains("no configuration"), "{error}"),
        }
        assert!(adaptive_pagerank(
            &graph,
            &advisor,
            &AdaptivePageRankOptions {
                budget_bytes: Some(1.0),
                ..AdaptivePageRankOptions::default()
            }
        )
        .is_err());
    }
}
