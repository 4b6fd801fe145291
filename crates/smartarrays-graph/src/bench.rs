//! The graph benchmarks, with every ratio measured in the same run: PageRank and degree
//! centrality per iteration on the U, V and V+E variants against a plain Rust CSR running the
//! same kernels on the same threads; edges per second per core; memory and bytes per edge of
//! each variant; build time per million edges and peak build memory; the binary format's reload
//! time against loading the edge list; and a parallel-efficiency probe so 2-thread figures can
//! be read against how busy the second core is.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use smartarrays::Runtime;

use crate::error::{GraphError, Result};
use crate::io::{self, Format, TextOptions};
use crate::{build, degree_centrality, generate, pagerank, Graph, GraphOptions, PageRankOptions, PlainGraph, Variant};

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
    /// Plain time / this time (1.0 = as fast as the plain CSR).
    pub speed_vs_plain: f64,
    /// This time / U's time at the same thread count.
    pub time_vs_u: f64,
    /// Reverse edges visited per second per thread (PageRank).
    pub edges_per_second_per_core: f64,
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
    let field = |name: &str| status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
    Some((field("VmRSS:")?, field("VmHWM:")?))
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
    eprintln!("generating Kronecker scale {} edge factor {} (seed {})...", config.scale, config.edge_factor, config.seed);
    let started = Instant::now();
    let edges =
        generate::rmat_with(config.scale, config.edge_factor, generate::RmatParameters::GRAPH500, config.seed, true, &build_runtime)?;
    let generate_seconds = started.elapsed().as_secs_f64();
    let generated_edges = edges.len();
    let millions = generated_edges as f64 / 1e6;

    let mut graphs: Vec<(Variant, Graph)> = Vec::new();
    let mut build_seconds = Vec::new();
    let (mut peak_ratio, mut peak_with_input_ratio) = (None, None);
    for variant in Variant::ALL {
        let options =
            GraphOptions::variant(variant).duplicates(crate::Keep::Drop).self_loops(crate::Keep::Drop).runtime(Arc::clone(&build_runtime));
        let input = edges.clone();
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
        eprintln!("built {variant} in {seconds:.2} s ({:.3} s per million edges)", seconds / millions);
        build_seconds.push((variant.name().to_string(), seconds / millions));
        graphs.push((variant, graph));
    }
    let vertices = graphs[0].1.vertices();
    let edge_count = graphs[0].1.edges();
    let plain = PlainGraph::from_graph(&graphs[0].1)?;

    let mut memory = vec![LayoutMemory {
        layout: "plain".into(),
        graph_bytes: plain.graph_bytes() as u64,
        bytes_per_edge: plain.graph_bytes() as f64 / edge_count as f64,
        with_properties_bytes_per_edge: (plain.graph_bytes() as f64 + vertices as f64 * 12.0) / edge_count as f64,
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
            with_properties_bytes_per_edge: report.variants[index].with_pagerank_properties_bytes_per_edge,
            offset_bits: graph.begin().bits(),
            id_bits: graph.edge().bits(),
        });
    }

    let options = PageRankOptions { tolerance: config.tolerance, ..PageRankOptions::default() };
    let entries = graphs[0].1.stored_entries() as f64;
    let mut timings: Vec<Timing> = Vec::new();
    for &threads in &config.threads {
        let runtime = Arc::new(Runtime::with_threads(threads)?);
        for graph in graphs.iter_mut() {
            graph.1.set_runtime(Arc::clone(&runtime));
        }
        // Every layout is measured once per round, rounds repeated, so a burst of load from
        // other processes hits all layouts alike; the fastest round of each is reported.
        for algorithm in ["pagerank", "degree"] {
            let layouts: Vec<&str> = std::iter::once("plain").chain(graphs.iter().map(|(v, _)| v.name())).collect();
            let mut samples: Vec<Vec<f64>> = vec![Vec::new(); layouts.len()];
            let mut iterations = vec![0usize; layouts.len()];
            for round in 0..=config.repetitions.max(1) {
                for index in 0..layouts.len() {
                    let started = Instant::now();
                    let runs = match (algorithm, index) {
                        ("pagerank", 0) => plain.pagerank(&options, &runtime)?.1.iterations,
                        ("pagerank", _) => pagerank(&graphs[index - 1].1, &options, |_| {})?.summary.iterations,
                        (_, 0) => {
                            std::hint::black_box(plain.degree_centrality(&runtime));
                            1
                        }
                        _ => {
                            std::hint::black_box(degree_centrality(&graphs[index - 1].1)?);
                            1
                        }
                    };
                    let seconds = started.elapsed().as_secs_f64() / runs.max(1) as f64;
                    if round > 0 {
                        // Round 0 warms caches and page tables.
                        samples[index].push(seconds);
                    }
                    iterations[index] = runs;
                }
            }
            for (index, layout) in layouts.iter().enumerate() {
                let seconds = samples[index].iter().copied().fold(f64::INFINITY, f64::min);
                eprintln!(
                    "{algorithm:>9} {layout:>5} {threads} thread(s): {seconds:.4} s per iteration (median {:.4})",
                    median(samples[index].clone())
                );
                timings.push(Timing {
                    layout: layout.to_string(),
                    algorithm: algorithm.into(),
                    threads,
                    seconds,
                    speed_vs_plain: f64::NAN,
                    time_vs_u: f64::NAN,
                    edges_per_second_per_core: if algorithm == "pagerank" { entries / seconds / threads as f64 } else { f64::NAN },
                    iterations: iterations[index],
                });
            }
        }
    }
    let reference: Vec<(String, usize, String, f64)> =
        timings.iter().map(|t| (t.layout.clone(), t.threads, t.algorithm.clone(), t.seconds)).collect();
    let find = |layout: &str, threads: usize, algorithm: &str| {
        reference.iter().find(|r| r.0 == layout && r.1 == threads && r.2 == algorithm).map_or(f64::NAN, |r| r.3)
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

    let (mut edge_list_load_seconds, mut binary_load_seconds, mut binary_save_seconds) = (None, None, None);
    if config.io {
        let text_path = config.workdir.join(format!("smartarrays-bench-kron{}.el", config.scale));
        let binary_path = config.workdir.join(format!("smartarrays-bench-kron{}.sag", config.scale));
        io::write_edges(&edges, &text_path)?;
        drop(edges);
        let options = GraphOptions::variant(Variant::U)
            .duplicates(crate::Keep::Drop)
            .self_loops(crate::Keep::Drop)
            .runtime(Arc::clone(&build_runtime));
        let started = Instant::now();
        let loaded = io::load_graph(&text_path, Format::EdgeList, &TextOptions::default(), &options)?;
        edge_list_load_seconds = Some(started.elapsed().as_secs_f64());
        let started = Instant::now();
        io::save_binary(&loaded, &binary_path)?;
        binary_save_seconds = Some(started.elapsed().as_secs_f64());
        drop(loaded);
        let started = Instant::now();
        let reloaded = io::load_binary(&binary_path, &options)?;
        binary_load_seconds = Some(started.elapsed().as_secs_f64());
        if reloaded.edges() != edge_count {
            return Err(GraphError::InvalidArgument("the reloaded graph differs".into()));
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
        writeln!(
            f,
            "Kronecker scale {} (Graph500 parameters), {} vertices, {} directed edges ({} generated; duplicates and self-loops dropped)",
            self.config.scale, self.vertices, self.edges, self.generated_edges
        )?;
        writeln!(f, "\nmemory            graph bytes   B/edge  +PageRank props B/edge  offset bits  id bits")?;
        for m in &self.memory {
            writeln!(
                f,
                "{:<8} {:>20} {:>8.2} {:>23.2} {:>12} {:>8}",
                m.layout, m.graph_bytes, m.bytes_per_edge, m.with_properties_bytes_per_edge, m.offset_bits, m.id_bits
            )?;
        }
        writeln!(f, "\nalgorithm  layout threads  s/iteration  speed vs plain  time vs U  M edges/s/core  iterations")?;
        for t in &self.timings {
            writeln!(
                f,
                "{:<10} {:<6} {:>7} {:>12.4} {:>14.3} {:>10.3} {:>15.1} {:>11}",
                t.algorithm,
                t.layout,
                t.threads,
                t.seconds,
                t.speed_vs_plain,
                t.time_vs_u,
                t.edges_per_second_per_core / 1e6,
                t.iterations
            )?;
        }
        if let Some(p) = self.parallel_efficiency_probe {
            writeln!(f, "\nparallel-efficiency probe (compute-only, 2 threads vs 1): {:.2} (1.00 = second core free)", p)?;
        }
        writeln!(f, "\ngenerate: {:.2} s", self.generate_seconds)?;
        for (layout, seconds) in &self.build_seconds_per_million_edges {
            writeln!(f, "build {layout}: {seconds:.3} s per million edges")?;
        }
        if let (Some(extra), Some(with_input)) = (self.build_peak_over_final, self.build_peak_with_input_over_final) {
            writeln!(f, "build U peak memory: {extra:.2}x the final graph beyond the input list ({with_input:.2}x with the list)")?;
        }
        if let (Some(text), Some(binary), Some(save)) = (self.edge_list_load_seconds, self.binary_load_seconds, self.binary_save_seconds) {
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
