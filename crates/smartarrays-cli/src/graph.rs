//! `smartarrays graph ...`: generate, convert, inspect and analyse graphs stored on smart arrays
//! (crate `smartarrays-graph`), with placement and width per array class, thread count, and
//! table / CSV / JSON output; plus `graph bench`, the benchmarks against a plain Rust CSR.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};
use smartarrays::{Placement, Runtime};
use smartarrays_graph::io::{self, Format, TextOptions};
use smartarrays_graph::{
    bench, bfs, build, connected_components, degree_centrality, generate, pagerank, Dangling,
    Graph, GraphOptions, Keep, PageRankOptions, Precision, Variant, Width,
};

type CliResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// Graph analytics on smart arrays.
#[derive(Subcommand)]
pub enum GraphCommand {
    /// Generate a graph (uniform random or Graph500 Kronecker) and write it to a file.
    Generate(Box<GenerateArgs>),
    /// Convert a graph between edge list, Matrix Market and the binary format.
    Convert(Box<ConvertArgs>),
    /// Vertices, edges, degrees and the memory report (per array, and the U / V / V+E sizes).
    Stats(Box<CommonArgs>),
    /// Degree centrality (out + in degree per vertex).
    Degree(Box<CommonArgs>),
    /// PageRank (pull, Jacobi) with per-iteration progress.
    Pagerank(Box<PageRankArgs>),
    /// Breadth-first search levels from a source vertex.
    Bfs(Box<BfsArgs>),
    /// Weakly connected components (label = smallest vertex id of the component).
    Components(Box<CommonArgs>),
    /// Benchmarks: PageRank and degree centrality on U, V, V+E against a plain Rust CSR.
    Bench(Box<BenchArgs>),
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned text for people.
    Table,
    /// Comma-separated values.
    Csv,
    /// JSON.
    Json,
}

/// How the input graph is read and stored.
#[derive(Args, Clone, Debug)]
pub struct StorageArgs {
    /// Input format (auto: from the first bytes / extension).
    #[arg(long, default_value = "auto")]
    input_format: String,
    /// Edge lists: the edges are undirected (each stored once, in both endpoints' lists).
    #[arg(long)]
    undirected: bool,
    /// Declare at least this many vertices (isolated vertices past the highest id).
    #[arg(long)]
    vertices: Option<u64>,
    /// Duplicate edges: keep or drop.
    #[arg(long, default_value = "keep")]
    duplicates: String,
    /// Self-loops: keep or drop.
    #[arg(long, default_value = "keep")]
    self_loops: String,
    /// Compression variant preset: u (uncompressed), v (offsets + properties), v+e (all).
    #[arg(long, default_value = "u")]
    variant: String,
    /// Placement of every array: os, node:N, interleaved or interleaved:N,M, replicated.
    #[arg(long)]
    placement: Option<String>,
    /// Placement of begin/rbegin.
    #[arg(long)]
    offsets_placement: Option<String>,
    /// Placement of edge/redge.
    #[arg(long)]
    edges_placement: Option<String>,
    /// Placement of vertex properties and results.
    #[arg(long)]
    properties_placement: Option<String>,
    /// Width of begin/rbegin: natural, min or 1..64 (overrides the variant).
    #[arg(long)]
    offsets_bits: Option<String>,
    /// Width of edge/redge: natural, min or 1..64.
    #[arg(long)]
    edges_bits: Option<String>,
    /// Width of vertex properties and results: natural, min or 1..64.
    #[arg(long)]
    properties_bits: Option<String>,
    /// Worker threads (default: one per CPU, or SMARTARRAYS_THREADS).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bars (they are off anyway when stderr is not a terminal).
    #[arg(long)]
    no_progress: bool,
}

impl StorageArgs {
    fn options(&self) -> CliResult<GraphOptions> {
        let mut options = GraphOptions::variant(self.variant.parse::<Variant>()?);
        if let Some(p) = &self.placement {
            options = options.placement(p.parse::<Placement>()?);
        }
        for (value, class) in [
            (&self.offsets_placement, &mut options.offsets),
            (&self.edges_placement, &mut options.edges),
            (&self.properties_placement, &mut options.properties),
        ] {
            if let Some(p) = value {
                class.placement = p.parse::<Placement>()?;
            }
        }
        for (value, class) in [
            (&self.offsets_bits, &mut options.offsets),
            (&self.edges_bits, &mut options.edges),
            (&self.properties_bits, &mut options.properties),
        ] {
            if let Some(w) = value {
                class.width = w.parse::<Width>()?;
            }
        }
        options.duplicates = self.duplicates.parse::<Keep>()?;
        options.self_loops = self.self_loops.parse::<Keep>()?;
        if let Some(bars) = crate::bars::Bars::for_terminal(!self.no_progress) {
            options = options.progress_reporter(bars);
        }
        let runtime = match self.threads {
            Some(threads) => Arc::new(Runtime::with_threads(threads)?),
            None => Runtime::global()?,
        };
        Ok(options.runtime(runtime))
    }

    fn text(&self) -> TextOptions {
        TextOptions {
            undirected: self.undirected,
            vertices: self.vertices,
        }
    }

    fn load(&self, input: &Path) -> CliResult<(Graph, f64)> {
        let options = self.options()?;
        let started = Instant::now();
        let graph = io::load_graph(
            input,
            self.input_format.parse::<Format>()?,
            &self.text(),
            &options,
        )?;
        Ok((graph, started.elapsed().as_secs_f64()))
    }
}

/// Where and how results go.
#[derive(Args, Clone, Debug)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Print every vertex's value (default: a summary and the top vertices).
    #[arg(long)]
    all: bool,
    /// How many top vertices to show.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Also write every vertex's value to this file (in --format).
    #[arg(long)]
    output: Option<PathBuf>,
}

/// Input, storage and output.
#[derive(Args, Clone, Debug)]
pub struct CommonArgs {
    /// Graph file (SNAP edge list, Matrix Market, or binary .sag).
    input: PathBuf,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// `graph generate`.
#[derive(Args, Clone, Debug)]
pub struct GenerateArgs {
    /// uniform (n vertices, k out-edges each) or kronecker (Graph500 R-MAT).
    #[arg(long, default_value = "kronecker")]
    kind: String,
    /// Kronecker: 2^scale vertices.
    #[arg(long, default_value_t = 16)]
    scale: u32,
    /// Kronecker: edges per vertex.
    #[arg(long, default_value_t = 16)]
    edge_factor: u64,
    /// Uniform: vertices.
    #[arg(long = "n", default_value_t = 1_000_000)]
    n: u64,
    /// Uniform: out-edges per vertex.
    #[arg(long, default_value_t = 10)]
    degree: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file (.sag binary, .mtx Matrix Market, else edge list).
    #[arg(long, short)]
    output: PathBuf,
    /// Output format (auto: from the extension).
    #[arg(long, default_value = "auto")]
    output_format: String,
    #[command(flatten)]
    storage: StorageArgs,
}

/// `graph convert`.
#[derive(Args, Clone, Debug)]
pub struct ConvertArgs {
    /// Input graph file.
    input: PathBuf,
    /// Output file (.sag binary, .mtx Matrix Market, else edge list).
    #[arg(long, short)]
    output: PathBuf,
    /// Output format (auto: from the extension).
    #[arg(long, default_value = "auto")]
    output_format: String,
    #[command(flatten)]
    storage: StorageArgs,
}

/// `graph pagerank`.
#[derive(Args, Clone, Debug)]
pub struct PageRankArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Damping factor.
    #[arg(long, default_value_t = 0.85)]
    damping: f64,
    /// Stop when the sum of absolute rank changes is below this.
    #[arg(long, default_value_t = 1e-3)]
    tolerance: f64,
    /// Stop after this many iterations (a warning says it did not converge).
    #[arg(long, default_value_t = 1000)]
    max_iterations: usize,
    /// Rank of vertices without out-edges: spread (uniformly, like networkx) or drop.
    #[arg(long, default_value = "spread")]
    dangling: String,
    /// Precision of the gathered contributions: f32 (half the memory traffic, like GAPBS; ranks
    /// agree with f64 to about 1e-7 of their value; tolerances below 1e-5 finish in f64), or f64.
    #[arg(long, default_value = "f32")]
    precision: String,
}

/// `graph bfs`.
#[derive(Args, Clone, Debug)]
pub struct BfsArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Source vertex.
    #[arg(long, default_value_t = 0)]
    source: u64,
}

/// `graph bench`.
#[derive(Args, Clone, Debug)]
pub struct BenchArgs {
    /// Kronecker scale (2^scale vertices; 22 is the 4.2 M vertices, 65 M edges).
    #[arg(long, default_value_t = 22)]
    scale: u32,
    /// Edges per vertex.
    #[arg(long, default_value_t = 16)]
    edge_factor: u64,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Repetitions per measurement (median reported).
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// PageRank tolerance.
    #[arg(long, default_value_t = 1e-3)]
    tolerance: f64,
    /// Skip the edge-list / binary load measurements.
    #[arg(long)]
    no_io: bool,
    /// Folder for the load measurements' temporary files.
    #[arg(long)]
    workdir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Also write the JSON report to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Load the graph from a binary .sag file (e.g. made by `graph generate --kind kronecker
    /// --scale 22 --duplicates drop --self-loops drop -o kron22.sag`) instead of generating it;
    /// every layout is re-encoded while loading, and the build / I/O measurements are skipped.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// Algorithms to time, comma-separated: pagerank (f64 contributions), pagerank-f32 (f32
    /// contributions, as GAPBS; the default of `graph pagerank`), degree.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "pagerank,pagerank-f32,degree"
    )]
    algorithms: Vec<String>,
    /// Degree centrality runs per timed round (into the same output array).
    #[arg(long, default_value_t = 50)]
    degree_runs: usize,
}

fn run_bench(args: &BenchArgs) -> CliResult {
    let config = bench::BenchConfig {
        scale: args.scale,
        edge_factor: args.edge_factor,
        seed: args.seed,
        threads: args.threads.clone(),
        repetitions: args.repetitions,
        tolerance: args.tolerance,
        io: !args.no_io,
        workdir: args.workdir.clone().unwrap_or_else(std::env::temp_dir),
        graph: args.graph.clone(),
        algorithms: args.algorithms.clone(),
        degree_runs: args.degree_runs,
    };
    let report = bench::run_benchmarks(&config)?;
    let json = serde_json::to_string_pretty(&report)? + "\n";
    match args.format {
        OutputFormat::Json => print!("{json}"),
        _ => print!("{report}"),
    }
    if let Some(path) = &args.json {
        std::fs::write(path, json)?;
    }
    Ok(())
}

/// Runs a `graph` subcommand.
pub fn run(command: &GraphCommand) -> CliResult {
    check_outputs(command)?;
    match command {
        GraphCommand::Generate(args) => run_generate(args),
        GraphCommand::Convert(args) => run_convert(args),
        GraphCommand::Stats(args) => run_stats(args),
        GraphCommand::Degree(args) => run_degree(args),
        GraphCommand::Pagerank(args) => run_pagerank(args),
        GraphCommand::Bfs(args) => run_bfs(args),
        GraphCommand::Components(args) => run_components(args),
        GraphCommand::Bench(args) => run_bench(args),
    }
}

/// Checks every output path (and bench thread counts) before any work starts.
fn check_outputs(command: &GraphCommand) -> CliResult {
    use crate::output::check_output_path;
    let listing = |output: &OutputArgs| match &output.output {
        Some(path) => check_output_path(path, "--output"),
        None => Ok(()),
    };
    match command {
        GraphCommand::Generate(args) => check_output_path(&args.output, "--output"),
        GraphCommand::Convert(args) => check_output_path(&args.output, "--output"),
        GraphCommand::Stats(args) | GraphCommand::Degree(args) | GraphCommand::Components(args) => {
            listing(&args.output)
        }
        GraphCommand::Pagerank(args) => listing(&args.common.output),
        GraphCommand::Bfs(args) => listing(&args.common.output),
        GraphCommand::Bench(args) => {
            if args.threads.contains(&0) {
                return Err("--threads 0: every thread count must be at least 1".into());
            }
            if let Some(path) = &args.json {
                check_output_path(path, "--json")?;
            }
            match &args.workdir {
                Some(folder) if !folder.is_dir() => {
                    Err(format!("--workdir {}: not an existing folder", folder.display()).into())
                }
                _ => Ok(()),
            }
        }
    }
}

fn run_generate(args: &GenerateArgs) -> CliResult {
    let options = args.storage.options()?;
    let runtime = options.runtime.clone().ok_or("no runtime")?;
    let started = Instant::now();
    let edges = match args.kind.as_str() {
        "uniform" => generate::uniform_with(
            args.n,
            args.degree,
            args.seed,
            !args.storage.undirected,
            &runtime,
        )?,
        "kronecker" | "rmat" | "kron" => generate::rmat_with(
            args.scale,
            args.edge_factor,
            generate::RmatParameters::GRAPH500,
            args.seed,
            !args.storage.undirected,
            &runtime,
        )?,
        other => {
            return Err(
                format!("unknown generator {other:?}: expected uniform or kronecker").into(),
            )
        }
    };
    let generated = started.elapsed().as_secs_f64();
    let format = args.output_format.parse::<Format>()?;
    let format = if format == Format::Auto {
        io::detect_format(&args.output, &[])
    } else {
        format
    };
    let (vertices, generated_edges) = (edges.vertices(), edges.len() as u64);
    let keeps_everything = options.duplicates == Keep::Keep && options.self_loops == Keep::Keep;
    // The count reported is what the file holds: after duplicates and self-loops are dropped.
    let (written_edges, note) = if format == Format::EdgeList && keeps_everything {
        io::write_edges(&edges, &args.output)?;
        (generated_edges, String::new())
    } else {
        let graph = build(edges, &options)?;
        io::save_graph(&graph, &args.output, format)?;
        let dropped = generated_edges.saturating_sub(graph.edges());
        let note = if dropped > 0 || !keeps_everything {
            format!(" ({generated_edges} generated, {dropped} dropped as duplicates or self-loops)")
        } else {
            String::new()
        };
        (graph.edges(), note)
    };
    eprintln!(
        "generated {} vertices, {} edges{note} in {:.2} s; wrote {} ({format}) in {:.2} s",
        vertices,
        written_edges,
        generated,
        args.output.display(),
        started.elapsed().as_secs_f64() - generated
    );
    Ok(())
}

fn run_convert(args: &ConvertArgs) -> CliResult {
    let (graph, seconds) = args.storage.load(&args.input)?;
    let started = Instant::now();
    io::save_graph(&graph, &args.output, args.output_format.parse::<Format>()?)?;
    eprintln!(
        "loaded {} vertices, {} edges in {seconds:.2} s; wrote {} in {:.2} s",
        graph.vertices(),
        graph.edges(),
        args.output.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn graph_json(graph: &Graph, load_seconds: f64) -> Value {
    json!({
        "vertices": graph.vertices(),
        "edges": graph.edges(),
        "directed": graph.is_directed(),
        "self_loops": graph.self_loops(),
        "max_out_degree": graph.max_out_degree(),
        "max_in_degree": graph.max_in_degree(),
        "load_seconds": load_seconds,
        "arrays": graph.arrays().iter().map(|(name, a)| json!({"name": name, "bits": a.bits(), "placement": a.placement().to_string()})).collect::<Vec<_>>(),
    })
}

fn run_stats(args: &CommonArgs) -> CliResult {
    let (graph, seconds) = args.storage.load(&args.input)?;
    let report = graph.memory_report();
    let text = match args.output.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(
                &json!({"graph": graph_json(&graph, seconds), "memory": report}),
            )? + "\n"
        }
        OutputFormat::Csv => {
            let mut out =
                String::from("array,elements,bits,packed_bytes,mapped_bytes,placement,replicas\n");
            for a in &report.arrays {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    a.name,
                    a.elements,
                    a.bits,
                    a.packed_bytes,
                    a.mapped_bytes,
                    a.placement,
                    a.replicas
                )?;
            }
            out
        }
        OutputFormat::Table => {
            format!(
                "{} graph: {} vertices, {} edges ({} self-loops), max out-degree {}, max in-degree {}, loaded in {seconds:.3} s\n{report}",
                if graph.is_directed() { "directed" } else { "undirected" },
                graph.vertices(),
                graph.edges(),
                graph.self_loops(),
                graph.max_out_degree(),
                graph.max_in_degree()
            )
        }
    };
    print!("{text}");
    if let Some(path) = &args.output.output {
        std::fs::write(path, &text)?;
    }
    Ok(())
}

/// Renders per-vertex values (all, or the top ones by value) and writes the full list to
/// `--output` when given.
fn emit<T: Copy + Into<Value> + std::fmt::Display>(
    output: &OutputArgs,
    column: &str,
    values: &[Option<T>],
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
    summary: Value,
    summary_text: String,
) -> CliResult {
    let render = |all: bool| -> CliResult<String> {
        let chosen: Vec<usize> = if all {
            (0..values.len()).collect()
        } else {
            let mut present: Vec<(usize, T)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i, v)))
                .collect();
            present.sort_by(|a, b| order(&b.1, &a.1).then(a.0.cmp(&b.0)));
            present
                .into_iter()
                .take(output.top)
                .map(|(i, _)| i)
                .collect()
        };
        Ok(match output.format {
            OutputFormat::Json => {
                let key = if all { "values" } else { "top" };
                let list: Vec<Value> = if all {
                    chosen
                        .iter()
                        .map(|&v| values[v].map_or(Value::Null, Into::into))
                        .collect()
                } else {
                    chosen.iter().map(|&v| json!({"vertex": v, column: values[v].map_or(Value::Null, Into::into)})).collect()
                };
                let mut document = summary.clone();
                document[key] = Value::Array(list);
                serde_json::to_string_pretty(&document)? + "\n"
            }
            OutputFormat::Csv => {
                let mut out = format!("vertex,{column}\n");
                for &v in &chosen {
                    writeln!(
                        out,
                        "{v},{}",
                        values[v].map_or(String::new(), |x| x.to_string())
                    )?;
                }
                out
            }
            OutputFormat::Table => {
                let mut out = summary_text.clone();
                writeln!(out, "{:>12}  {column}", "vertex")?;
                for &v in &chosen {
                    writeln!(
                        out,
                        "{v:>12}  {}",
                        values[v].map_or("-".to_string(), |x| x.to_string())
                    )?;
                }
                out
            }
        })
    };
    print!("{}", render(output.all)?);
    if let Some(path) = &output.output {
        std::fs::write(path, render(true)?)?;
    }
    Ok(())
}

fn run_degree(args: &CommonArgs) -> CliResult {
    let (graph, load) = args.storage.load(&args.input)?;
    let started = Instant::now();
    let degrees = degree_centrality(&graph)?;
    let seconds = started.elapsed().as_secs_f64();
    let values: Vec<Option<u64>> = degrees.iter().map(Some).collect();
    let summary = json!({"algorithm": "degree", "graph": graph_json(&graph, load), "seconds": seconds, "bits": degrees.bits()});
    let text = format!(
        "degree centrality of {} vertices in {seconds:.4} s ({} bits per value)\n",
        graph.vertices(),
        degrees.bits()
    );
    emit(
        &args.output,
        "degree",
        &values,
        |a, b| a.cmp(b),
        summary,
        text,
    )
}

fn run_pagerank(args: &PageRankArgs) -> CliResult {
    let (graph, load) = args.common.storage.load(&args.common.input)?;
    let dangling = match args.dangling.as_str() {
        "spread" => Dangling::Spread,
        "drop" => Dangling::Drop,
        other => return Err(format!("--dangling {other:?}: expected spread or drop").into()),
    };
    let options = PageRankOptions {
        damping: args.damping,
        tolerance: args.tolerance,
        max_iterations: args.max_iterations,
        dangling,
        contributions: args.precision.parse::<Precision>()?,
    };
    // Per-iteration lines on a terminal (the library reports each iteration through the hook).
    let show = !args.common.storage.no_progress && std::io::stderr().is_terminal();
    let edges = graph.stored_entries() as f64;
    let started = Instant::now();
    let result = pagerank(&graph, &options, |step| {
        if show {
            eprintln!(
                "iteration {:>4}  change {:.3e}  {:.3} s  ({:.0} M edges/s)",
                step.iteration,
                step.change,
                step.seconds,
                edges / step.seconds.max(1e-12) / 1e6
            );
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let summary = &result.summary;
    if !summary.converged {
        eprintln!(
            "warning: PageRank did not converge: change {:.3e} after {} iterations is still above the tolerance {:.1e}",
            summary.change, summary.iterations, options.tolerance
        );
    }
    let per_iteration = seconds / summary.iterations.max(1) as f64;
    let ranks: Vec<Option<f64>> = result.ranks.to_vec().into_iter().map(Some).collect();
    let json_summary = json!({
        "algorithm": "pagerank",
        "graph": graph_json(&graph, load),
        "options": options,
        "iterations": summary.iterations,
        "converged": summary.converged,
        "change": summary.change,
        "seconds": seconds,
        "seconds_per_iteration": per_iteration,
        "edges_per_second": edges / per_iteration.max(1e-12),
        "history": summary.history,
    });
    let text = format!(
        "PageRank: {} iterations, {} (change {:.3e}), {seconds:.3} s, {:.4} s per iteration, {:.0} M edges/s\n",
        summary.iterations,
        if summary.converged { "converged" } else { "NOT converged" },
        summary.change,
        per_iteration,
        edges / per_iteration.max(1e-12) / 1e6
    );
    emit(
        &args.common.output,
        "rank",
        &ranks,
        |a, b| a.total_cmp(b),
        json_summary,
        text,
    )
}

fn run_bfs(args: &BfsArgs) -> CliResult {
    let (graph, load) = args.common.storage.load(&args.common.input)?;
    let started = Instant::now();
    let result = bfs(&graph, args.source)?;
    let seconds = started.elapsed().as_secs_f64();
    let levels: Vec<Option<u64>> = (0..graph.vertices() as u64)
        .map(|v| result.level(v))
        .collect();
    let summary = json!({
        "algorithm": "bfs",
        "graph": graph_json(&graph, load),
        "source": args.source,
        "reached": result.reached,
        "depth": result.depth,
        "top_down_steps": result.steps.0,
        "bottom_up_steps": result.steps.1,
        "seconds": seconds,
    });
    let text = format!(
        "BFS from {}: reached {} of {} vertices, depth {}, {} top-down + {} bottom-up steps, {seconds:.4} s\n",
        args.source,
        result.reached,
        graph.vertices(),
        result.depth,
        result.steps.0,
        result.steps.1
    );
    // Show the nearest vertices first.
    emit(
        &args.common.output,
        "level",
        &levels,
        |a, b| b.cmp(a),
        summary,
        text,
    )
}

fn run_components(args: &CommonArgs) -> CliResult {
    let (graph, load) = args.storage.load(&args.input)?;
    let started = Instant::now();
    let components = connected_components(&graph)?;
    let seconds = started.elapsed().as_secs_f64();
    let labels: Vec<Option<u64>> = components.labels.iter().map(Some).collect();
    let summary = json!({
        "algorithm": "components",
        "graph": graph_json(&graph, load),
        "count": components.count,
        "largest": components.largest,
        "seconds": seconds,
    });
    let text = format!(
        "{} weakly connected components, the largest with {} vertices, {seconds:.4} s\n",
        components.count, components.largest
    );
    emit(
        &args.output,
        "component",
        &labels,
        |a, b| b.cmp(a),
        summary,
        text,
    )
}
