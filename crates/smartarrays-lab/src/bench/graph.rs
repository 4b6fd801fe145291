//! The graph benchmarks, with every ratio measured in the same run: PageRank and degree
//! centrality per iteration on the U, V and V+E variants against a plain Rust CSR running the
//! same kernels on the same threads; edges per second per core; memory and bytes per edge of
//! each variant; build time per million edges and peak build memory; the binary format's reload
//! time against loading the edge list; and a parallel-efficiency probe so 2-thread figures can
//! be read against how busy the second core is (`smartarrays graph bench`; the command line
//! prints and writes the report).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use smartarrays::Runtime;

use smartarrays_graph::io::{self, Format, TextOptions};
use smartarrays_graph::{
    build, degree_centrality, degree_centrality_into, generate, pagerank, Graph, GraphError,
    GraphOptions, Keep, PageRankOptions, Precision, Result, Variant,
};

use crate::baselines::plain_csr::PlainGraph;

/// Benchmark settings.
#[derive(Clone, Debug, Serialize)]
pub struct BenchConfig {
    /// Kronecker scale (2^scale vertices).
    pub scale: u32,
    /// Edges per vertex.
    pub edge_factor: u64,
    /// Generator seed.
    pub seed: u64,
    /// Thread counts to run.
    pub threads: Vec<usize>,
    /// Rounds of measurements after a warm-up round (the fastest is reported).
    pub repetitions: usize,
    /// PageRank tolerance.
    pub tolerance: f64,
    /// Also measure edge-list load, binary save and binary reload (writes files to `workdir`).
    pub io: bool,
    /// Folder for the I/O measurement's files.
    pub workdir: PathBuf,
    /// Load the graph from this binary (`.sag`) file instead of generating it (each layout is
    /// re-encoded while loading; build and I/O measurements are then skipped, reload times are
    /// reported instead). Save one with `smartarrays graph generate ... -o FILE.sag`.
    pub graph: Option<PathBuf>,
    /// Algorithms to time: `pagerank` (`f64` contributions), `pagerank-f32` (`f32`
    /// contributions, as GAPBS stores scores; [`PageRankOptions`]' default), `degree` (default
    /// all three).
    pub algorithms: Vec<String>,
    /// Degree centrality runs per timed round (each writes into the same output array).
    pub degree_runs: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            scale: 22,
            edge_factor: 16,
            seed: 1,
            threads: vec![1, 2],
            repetitions: 3,
            tolerance: 1e-3,
            io: true,
            workdir: std::env::temp_dir(),
            graph: None,
            algorithms: vec!["pagerank".into(), "pagerank-f32".into(), "degree".into()],
            degree_runs: 50,
        }
    }
}

/// One timed configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// `plain`, `U`, `V`, `V+E`.
    pub layout: String,
    /// `pagerank` or `degree`.
    pub algorithm: String,
    /// Worker threads.
    pub threads: usize,
    /// Fastest round's seconds per iteration (per run for degree centrality).
    pub seconds: f64,
    /// Median round's seconds per iteration.
    pub median_seconds: f64,
    /// Plain time / this time (1.0 = as fast as the plain CSR).
    pub speed_vs_plain: f64,
    /// This time / U's time at the same thread count.
    pub time_vs_u: f64,
    /// Reverse edges visited per second per thread (PageRank).
    pub edges_per_second_per_core: f64,
    /// Reverse edges visited per CPU-second the process used (PageRank; all threads, same
    /// round as `seconds`): the per-core speed with time lost to other processes left out.
    pub edges_per_cpu_second: f64,
    /// Iterations per run (PageRank).
    pub iterations: usize,
}

/// Memory of one layout.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutMemory {
    /// `plain`, `U`, `V`, `V+E`.
    pub layout: String,
    /// Bytes of the graph arrays (both directions).
    pub graph_bytes: u64,
    /// Graph bytes per edge.
    pub bytes_per_edge: f64,
    /// Graph plus PageRank's vertex properties (out-degrees and ranks) per edge.
    pub with_properties_bytes_per_edge: f64,
    /// Bits of begin and edge.
    pub offset_bits: u32,
    /// Bits of vertex ids.
    pub id_bits: u32,
}

/// Everything a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Settings.
    pub config: BenchConfig,
    /// Vertices.
    pub vertices: usize,
    /// Directed edges after dropping duplicates and self-loops.
    pub edges: u64,
    /// Edges generated.
    pub generated_edges: usize,
    /// Seconds to generate.
    pub generate_seconds: f64,
    /// Build seconds per million input edges, per layout.
    pub build_seconds_per_million_edges: Vec<(String, f64)>,
    /// Peak resident memory during the U build over the final graph's bytes (input list
    /// excluded: it is measured before the build starts).
    pub build_peak_over_final: Option<f64>,
    /// Peak including the input edge list, over the final graph's bytes.
    pub build_peak_with_input_over_final: Option<f64>,
    /// Memory per layout.
    pub memory: Vec<LayoutMemory>,
    /// Timings.
    pub timings: Vec<Timing>,
    /// 1-thread / 2-thread time of a compute-only loop with twice the work on 2 threads
    /// (1.0 = the second core is free).
    pub parallel_efficiency_probe: Option<f64>,
    /// Seconds to parse and build from the edge list, and to reload the binary file.
    pub edge_list_load_seconds: Option<f64>,
    /// Seconds to reload the binary file.
    pub binary_load_seconds: Option<f64>,
    /// Seconds to save the binary file.
    pub binary_save_seconds: Option<f64>,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Resident memory now and at peak (kB), from /proc.
fn rss_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// CPU seconds used so far by all threads of this process (Linux `/proc/self/task/*/schedstat`;
/// NaN elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut nanoseconds = 0u64;
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
            return f64::NAN;
        };
        nanoseconds += text
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    nanoseconds as f64 / 1e9
}

/// Resets the peak resident memory counter (Linux `clear_refs` 5).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Time of `work` units of pure computation on each of `threads` threads.
fn probe(threads: usize) -> f64 {
    let runtime = match Runtime::with_threads(threads) {
        Ok(runtime) => runtime,
        Err(_) => return f64::NAN,
    };
    let started = Instant::now();
    let sums = runtime.on_each_worker(|worker| {
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ worker.index as u64;
        for _ in 0..200_000_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        x
    });
    std::hint::black_box(sums);
    started.elapsed().as_secs_f64()
}

/// Runs the benchmarks, printing progress lines to stderr.
pub fn run_benchmarks(config: &BenchConfig) -> Result<BenchReport> {
    let max_threads = config.threads.iter().copied().max().unwrap_or(1).max(1);
    let build_runtime = Arc::new(Runtime::with_threads(max_threads)?);
    for algorithm in &config.algorithms {
        if !["pagerank", "pagerank-f32", "degree"].contains(&algorithm.as_str()) {
            return Err(GraphError::InvalidArgument(format!(
                "algorithm {algorithm:?}: expected pagerank, pagerank-f32 or degree"
            )));
        }
    }
    let mut graphs: Vec<(Variant, Graph)> = Vec::new();
    let mut build_seconds = Vec::new();
    let (mut peak_ratio, mut peak_with_input_ratio) = (None, None);
    let (mut edges, mut generate_seconds, mut generated_edges) = (None, 0.0, 0);
    if let Some(path) = &config.graph {
        for variant in Variant::ALL {
            let options = GraphOptions::variant(variant).runtime(Arc::clone(&build_runtime));
            let started = Instant::now();
            let graph = io::load_binary(path, &options)?;
            let seconds = started.elapsed().as_secs_f64();
            let millions = graph.edges() as f64 / 1e6;
            eprintln!("loaded {variant} from {} in {seconds:.2} s", path.display());
            build_seconds.push((format!("{} (reload)", variant.name()), seconds / millions));
            generated_edges = graph.edges() as usize;
            graphs.push((variant, graph));
        }
    } else {
        eprintln!(
            "generating Kronecker scale {} edge factor {} (seed {})...",
            config.scale, config.edge_factor, config.seed
        );
        let started = Instant::now();
        let list = generate::rmat_with(
            config.scale,
            config.edge_factor,
            generate::RmatParameters::GRAPH500,
            config.seed,
            true,
            &build_runtime,
        )?;
        generate_seconds = started.elapsed().as_secs_f64();
        generated_edges = list.len();
        let millions = generated_edges as f64 / 1e6;
        for variant in Variant::ALL {
            let options = GraphOptions::variant(variant)
                .duplicates(Keep::Drop)
                .self_loops(Keep::Drop)
                .runtime(Arc::clone(&build_runtime));
            let input = list.clone();
            let list_bytes = input.memory_bytes() as f64;
            let before = rss_kib();
            let reset = reset_peak();
            let started = Instant::now();
            let graph = build(input, &options)?;
            let seconds = started.elapsed().as_secs_f64();
            if variant == Variant::U {
                if let (Some((rss_before, _)), Some((_, peak)), true) = (before, rss_kib(), reset) {
                    let final_bytes = graph.memory_report().packed_bytes as f64;
                    let extra = (peak.saturating_sub(rss_before) * 1024) as f64;
                    peak_ratio = Some(extra / final_bytes);
                    peak_with_input_ratio = Some((extra + list_bytes) / final_bytes);
                }
            }
            eprintln!(
                "built {variant} in {seconds:.2} s ({:.3} s per million edges)",
                seconds / millions
            );
            build_seconds.push((variant.name().to_string(), seconds / millions));
            graphs.push((variant, graph));
        }
        edges = Some(list);
    }
    let vertices = graphs[0].1.vertices();
    let edge_count = graphs[0].1.edges();
    let plain = PlainGraph::from_graph(&graphs[0].1)?;

    let mut memory = vec![LayoutMemory {
        layout: "plain".into(),
        graph_bytes: plain.graph_bytes() as u64,
        bytes_per_edge: plain.graph_bytes() as f64 / edge_count as f64,
        with_properties_bytes_per_edge: (plain.graph_bytes() as f64 + vertices as f64 * 12.0)
            / edge_count as f64,
        offset_bits: 64,
        id_bits: 32,
    }];
    for (variant, graph) in &graphs {
        let report = graph.memory_report();
        let index = Variant::ALL.iter().position(|v| v == variant).unwrap_or(0);
        memory.push(LayoutMemory {
            layout: variant.name().into(),
            graph_bytes: report.packed_bytes,
            bytes_per_edge: report.bytes_per_edge,
            with_properties_bytes_per_edge: report.variants[index]
                .with_pagerank_properties_bytes_per_edge,
            offset_bits: graph.begin().bits(),
            id_bits: graph.edge().bits(),
        });
    }

    let options = PageRankOptions {
        tolerance: config.tolerance,
        ..PageRankOptions::default()
    };
    let entries = graphs[0].1.stored_entries() as f64;
    let mut timings: Vec<Timing> = Vec::new();
    for &threads in &config.threads {
        let runtime = Arc::new(Runtime::with_threads(threads)?);
        for graph in graphs.iter_mut() {
            graph.1.set_runtime(Arc::clone(&runtime));
        }
        // Every layout is measured once per round, rounds repeated, so a burst of load from
        // other processes hits all layouts alike; the fastest round of each is reported.
        for algorithm in config.algorithms.iter().map(String::as_str) {
            let layouts: Vec<&str> = std::iter::once("plain")
                .chain(graphs.iter().map(|(v, _)| v.name()))
                .collect();
            let mut samples: Vec<Vec<f64>> = vec![Vec::new(); layouts.len()];
            let mut cpu_samples: Vec<Vec<f64>> = vec![Vec::new(); layouts.len()];
            let mut iterations = vec![0usize; layouts.len()];
            let options = PageRankOptions {
                contributions: if algorithm == "pagerank-f32" {
                    Precision::F32
                } else {
                    Precision::F64
                },
                ..options.clone()
            };
            // Degree centrality writes into output arrays made once (as a program computing it
            // repeatedly would), so the timing is the kernel's, not the allocator's.
            let mut plain_degrees = vec![0u32; if algorithm == "degree" { vertices } else { 0 }];
            let mut degrees: Vec<smartarrays::SmartArray> = Vec::new();
            if algorithm == "degree" {
                for (_, graph) in &graphs {
                    degrees.push(degree_centrality(graph)?);
                }
            }
            let degree_runs = config.degree_runs.max(1);
            for round in 0..=config.repetitions.max(1) {
                for index in 0..layouts.len() {
                    let (started, cpu_started) = (Instant::now(), cpu_seconds());
                    let runs = match (algorithm, index) {
                        ("degree", 0) => {
                            for _ in 0..degree_runs {
                                plain.degree_centrality_into(&runtime, &mut plain_degrees);
                                std::hint::black_box(&mut plain_degrees);
                            }
                            degree_runs
                        }
                        ("degree", _) => {
                            for _ in 0..degree_runs {
                                degree_centrality_into(
                                    &graphs[index - 1].1,
                                    &mut degrees[index - 1],
                                )?;
                                std::hint::black_box(&mut degrees[index - 1]);
                            }
                            degree_runs
                        }
                        (_, 0) => plain.pagerank(&options, &runtime)?.1.iterations,
                        _ => {
                            pagerank(&graphs[index - 1].1, &options, |_| {})?
                                .summary
                                .iterations
                        }
                    };
                    let seconds = started.elapsed().as_secs_f64() / runs.max(1) as f64;
                    let cpu = (cpu_seconds() - cpu_started) / runs.max(1) as f64;
                    if round > 0 {
                        // Round 0 warms caches and page tables.
                        samples[index].push(seconds);
                        cpu_samples[index].push(cpu);
                    }
                    iterations[index] = runs;
                }
            }
            if algorithm == "degree" {
                let expected: Vec<u64> = plain_degrees.iter().map(|&d| u64::from(d)).collect();
                for (array, (variant, _)) in degrees.iter().zip(&graphs) {
                    if array.to_vec() != expected {
                        return Err(GraphError::InvalidArgument(format!(
                            "degree centrality of {variant} differs from the plain CSR"
                        )));
                    }
                }
            }
            for (index, layout) in layouts.iter().enumerate() {
                let fastest = (0..samples[index].len())
                    .min_by(|&a, &b| samples[index][a].total_cmp(&samples[index][b]));
                let seconds = fastest.map_or(f64::NAN, |round| samples[index][round]);
                let cpu = fastest.map_or(f64::NAN, |round| cpu_samples[index][round]);
                let median_seconds = median(samples[index].clone());
                eprintln!("{algorithm:>9} {layout:>5} {threads} thread(s): {seconds:.4} s per iteration (median {median_seconds:.4})");
                timings.push(Timing {
                    layout: layout.to_string(),
                    algorithm: algorithm.into(),
                    threads,
                    seconds,
                    median_seconds,
                    speed_vs_plain: f64::NAN,
                    time_vs_u: f64::NAN,
                    edges_per_second_per_core: if algorithm == "degree" {
                        f64::NAN
                    } else {
                        entries / seconds / threads as f64
                    },
                    edges_per_cpu_second: if algorithm == "degree" {
                        f64::NAN
                    } else {
                        entries / cpu
                    },
                    iterations: iterations[index],
                });
            }
        }
    }
    let reference: Vec<(String, usize, String, f64)> = timings
        .iter()
        .map(|t| (t.layout.clone(), t.threads, t.algorithm.clone(), t.seconds))
        .collect();
    let find = |layout: &str, threads: usize, algorithm: &str| {
        reference
            .iter()
            .find(|r| r.0 == layout && r.1 == threads && r.2 == algorithm)
            .map_or(f64::NAN, |r| r.3)
    };
    for timing in &mut timings {
        timing.speed_vs_plain = find("plain", timing.threads, &timing.algorithm) / timing.seconds;
        timing.time_vs_u = timing.seconds / find("U", timing.threads, &timing.algorithm);
    }

    let parallel_efficiency_probe = if config.threads.contains(&2) {
        let one = probe(1);
        let two = probe(2);
        Some(one / two)
    } else {
        None
    };

    let (mut edge_list_load_seconds, mut binary_load_seconds, mut binary_save_seconds) =
        (None, None, None);
    if let (true, Some(edges)) = (config.io, edges) {
        let text_path = config
            .workdir
            .join(format!("smartarrays-bench-kron{}.el", config.scale));
        let binary_path = config
            .workdir
            .join(format!("smartarrays-bench-kron{}.sag", config.scale));
        io::write_edges(&edges, &text_path)?;
        drop(edges);
        let options = GraphOptions::variant(Variant::U)
            .duplicates(Keep::Drop)
            .self_loops(Keep::Drop)
            .runtime(Arc::clone(&build_runtime));
        let started = Instant::now();
        let loaded = io::load_graph(
            &text_path,
            Format::EdgeList,
            &TextOptions::default(),
            &options,
        )?;
        edge_list_load_seconds = Some(started.elapsed().as_secs_f64());
        let started = Instant::now();
        io::save_binary(&loaded, &binary_path)?;
        binary_save_seconds = Some(started.elapsed().as_secs_f64());
        drop(loaded);
        let started = Instant::now();
        let reloaded = io::load_binary(&binary_path, &options)?;
        binary_load_seconds = Some(started.elapsed().as_secs_f64());
        if reloaded.edges() != edge_count {
            return Err(GraphError::InvalidArgument(
                "the reloaded graph differs".into(),
            ));
        }
        let _ = std::fs::remove_file(&text_path);
        let _ = std::fs::remove_file(&binary_path);
    }

    Ok(BenchReport {
        config: config.clone(),
        vertices,
        edges: edge_count,
        generated_edges,
        generate_seconds,
        build_seconds_per_million_edges: build_seconds,
        build_peak_over_final: peak_ratio,
        build_peak_with_input_over_final: peak_with_input_ratio,
        memory,
        timings,
        parallel_efficiency_probe,
        edge_list_load_seconds,
        binary_load_seconds,
        binary_save_seconds,
    })
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.config.graph {
            Some(path) => writeln!(f, "graph {} ({} vertices, {} directed edges)", path.display(), self.vertices, self.edges)?,
            None => writeln!(
                f,
                "Kronecker scale {} (Graph500 parameters), {} vertices, {} directed edges ({} generated; duplicates and self-loops dropped)",
                self.config.scale, self.vertices, self.edges, self.generated_edges
            )?,
        }
        writeln!(f, "\nmemory            graph bytes   B/edge  +PageRank props B/edge  offset bits  id bits")?;
        for m in &self.memory {
            writeln!(
                f,
                "{:<8} {:>20} {:>8.2} {:>23.2} {:>12} {:>8}",
                m.layout,
                m.graph_bytes,
                m.bytes_per_edge,
                m.with_properties_bytes_per_edge,
                m.offset_bits,
                m.id_bits
            )?;
        }
        writeln!(
            f,
            "\nalgorithm     layout threads  s/iteration  (median)  speed vs plain  time vs U  M edges/s/core  M edges/CPU-s  iterations"
        )?;
        for t in &self.timings {
            writeln!(
                f,
                "{:<13} {:<6} {:>7} {:>12.4} {:>9.4} {:>14.3} {:>10.3} {:>15.1} {:>14.1} {:>11}",
                t.algorithm,
                t.layout,
                t.threads,
                t.seconds,
                t.median_seconds,
                t.speed_vs_plain,
                t.time_vs_u,
                t.edges_per_second_per_core / 1e6,
                t.edges_per_cpu_second / 1e6,
                t.iterations
            )?;
        }
        if let Some(p) = self.parallel_efficiency_probe {
            writeln!(f, "\nparallel-efficiency probe (compute-only, 2 threads vs 1): {:.2} (1.00 = second core free)", p)?;
        }
        if self.config.graph.is_none() {
            writeln!(f, "\ngenerate: {:.2} s", self.generate_seconds)?;
        } else {
            writeln!(f)?;
        }
        for (layout, seconds) in &self.build_seconds_per_million_edges {
            let what = if self.config.graph.is_some() {
                "load"
            } else {
                "build"
            };
            writeln!(f, "{what} {layout}: {seconds:.3} s per million edges")?;
        }
        if let (Some(extra), Some(with_input)) = (
            self.build_peak_over_final,
            self.build_peak_with_input_over_final,
        ) {
            writeln!(f, "build U peak memory: {extra:.2}x the final graph beyond the input list ({with_input:.2}x with the list)")?;
        }
        if let (Some(text), Some(binary), Some(save)) = (
            self.edge_list_load_seconds,
            self.binary_load_seconds,
            self.binary_save_seconds,
        ) {
            let m = self.generated_edges as f64 / 1e6;
            writeln!(
                f,
                "edge-list load + build: {text:.2} s ({:.3} s per million edges); binary save {save:.2} s; binary reload {binary:.2} s ({:.3} s per million edges, {:.1}x faster)",
                text / m,
                binary / m,
                text / binary
            )?;
        }
        Ok(())
    }
}
