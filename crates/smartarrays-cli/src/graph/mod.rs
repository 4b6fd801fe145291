//! `smartarrays graph ...`: generate, convert, inspect and analyse graphs stored on smart arrays
//! (crate `smartarrays-graph`), with placement and width per array class, thread count, and
//! table / CSV / JSON output; plus `graph bench`, the benchmarks against a plain Rust CSR.
//!
//! This file holds the command line's shape (every subcommand's arguments), the dispatch and the
//! output checks made before any work starts; [`storage`] turns the storage arguments into graph
//! options and loads, [`files`] generates and converts, [`report`] prints graph statistics and
//! per-vertex results, [`algorithms`] runs the analyses, [`kernels`] the weighted and
//! path-based ones (SSSP, betweenness, triangles) and [`bench`](mod@bench) the benchmarks.

mod algorithms;
mod bench;
mod files;
mod kernels;
mod report;
mod storage;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

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
    /// PageRank (pull; Jacobi, or Gauss-Seidel with --gauss-seidel) with per-iteration progress.
    Pagerank(Box<PageRankArgs>),
    /// Breadth-first search levels from a source vertex.
    Bfs(Box<BfsArgs>),
    /// Weakly connected components (label = smallest vertex id of the component).
    Components(Box<CommonArgs>),
    /// Single-source shortest paths (delta-stepping) on weights from the file (`u v w` lines)
    /// or generated (integers in 1..=255 from a seed).
    Sssp(Box<SsspArgs>),
    /// Betweenness centrality (Brandes) from sampled, listed or all sources.
    Bc(Box<BcArgs>),
    /// Triangle count of an undirected graph.
    Tc(Box<TcArgs>),
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

/// The vertex order an analysis runs in.
#[derive(Args, Clone, Debug)]
pub struct OrderArgs {
    /// Vertex order to run in: input (the file's ids) or degree (relabelled in memory after the
    /// load by decreasing degree, out + in when directed, ties by id; the time it takes is
    /// printed). Sources are given and results printed in the input's ids either way.
    #[arg(long, default_value = "input")]
    vertex_order: String,
}

/// Input, storage and output.
#[derive(Args, Clone, Debug)]
pub struct CommonArgs {
    /// Graph file (SNAP edge list, Matrix Market, or binary .sag).
    input: PathBuf,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    order: OrderArgs,
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
    /// Write the weights too, the input's or generated ones (see --weight-seed): a `.sag`
    /// output gets its weights section, any other a weighted edge list (`source target weight`
    /// lines, the layout GAPBS's converter reads as `.wel`).
    #[arg(long)]
    write_weights: bool,
    #[command(flatten)]
    weights: WeightArgs,
    #[command(flatten)]
    storage: StorageArgs,
    /// Vertex order of the written graph: input, or degree (relabelled by decreasing degree,
    /// out + in when directed, ties by input id; weights follow their edges).
    #[arg(long, default_value = "input")]
    vertex_order: String,
    /// With --vertex-order degree: also write the id map to this text file, one line
    /// `original new` per vertex of the input, in input id order.
    #[arg(long)]
    id_map: Option<PathBuf>,
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
    /// Gauss-Seidel sweeps (each new rank used at once) instead of Jacobi iterations (with
    /// contributions of the same --precision).
    #[arg(long)]
    gauss_seidel: bool,
    /// Order of the contribution cells the pull gathers: auto (degree order above
    /// 262,144 vertices), vertex, or degree (most-read cells first, sharing cache lines; costs a
    /// renamed copy of the incoming lists for the run). Ranks are in vertex order either way.
    #[arg(long, default_value = "auto")]
    cell_order: String,
}

/// Where edge weights come from.
#[derive(Args, Clone, Debug)]
pub struct WeightArgs {
    /// The input is a weighted edge list (`source target weight` lines; the default for a
    /// `.wel` file): use its weights. Otherwise weights are generated.
    #[arg(long)]
    weighted: bool,
    /// Seed of the generated weights (integers in 1..=255, the same both ways when undirected).
    #[arg(long, default_value_t = 1)]
    weight_seed: u64,
}

/// `graph sssp`.
#[derive(Args, Clone, Debug)]
pub struct SsspArgs {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    weights: WeightArgs,
    /// Source vertex.
    #[arg(long, default_value_t = 0)]
    source: u64,
    /// Bucket width of delta-stepping (at least 1).
    #[arg(long, default_value_t = 1)]
    delta: u64,
    /// Check the distances with a verifier's rules (no edge relaxes further, every distance
    /// attained by an in-edge); a violation is an error.
    #[arg(long)]
    verify: bool,
}

/// `graph bc`.
#[derive(Args, Clone, Debug)]
pub struct BcArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Sampled sources (vertices with out-edges, drawn with --seed).
    #[arg(long, default_value_t = 4)]
    samples: usize,
    /// Seed of the source sampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// These sources instead of sampled ones, comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "all_sources")]
    sources: Vec<u64>,
    /// Every vertex as a source (exact betweenness).
    #[arg(long)]
    all_sources: bool,
    /// Print scores divided by the largest.
    #[arg(long)]
    normalize: bool,
}

/// `graph tc`.
#[derive(Args, Clone, Debug)]
pub struct TcArgs {
    /// Graph file (SNAP edge list, Matrix Market, or binary .sag); edge lists need --undirected.
    input: PathBuf,
    #[command(flatten)]
    storage: StorageArgs,
    #[command(flatten)]
    vertex_order: OrderArgs,
    /// Which vertex of a triangle counts it: degree (then id; the default) or id.
    #[arg(long, default_value = "degree")]
    order: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
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

/// Runs a `graph` subcommand.
pub fn run(command: &GraphCommand) -> CliResult {
    check_outputs(command)?;
    match command {
        GraphCommand::Generate(args) => files::run_generate(args),
        GraphCommand::Convert(args) => files::run_convert(args),
        GraphCommand::Stats(args) => report::run_stats(args),
        GraphCommand::Degree(args) => algorithms::run_degree(args),
        GraphCommand::Pagerank(args) => algorithms::run_pagerank(args),
        GraphCommand::Bfs(args) => algorithms::run_bfs(args),
        GraphCommand::Components(args) => algorithms::run_components(args),
        GraphCommand::Sssp(args) => kernels::run_sssp(args),
        GraphCommand::Bc(args) => kernels::run_bc(args),
        GraphCommand::Tc(args) => kernels::run_tc(args),
        GraphCommand::Bench(args) => bench::run_bench(args),
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
        GraphCommand::Convert(args) => {
            check_output_path(&args.output, "--output")?;
            match &args.id_map {
                Some(_) if args.vertex_order != "degree" => {
                    Err("--id-map needs --vertex-order degree".into())
                }
                Some(path) => check_output_path(path, "--id-map"),
                None => Ok(()),
            }
        }
        GraphCommand::Stats(args) | GraphCommand::Degree(args) | GraphCommand::Components(args) => {
            listing(&args.output)
        }
        GraphCommand::Pagerank(args) => listing(&args.common.output),
        GraphCommand::Bfs(args) => listing(&args.common.output),
        GraphCommand::Sssp(args) => listing(&args.common.output),
        GraphCommand::Bc(args) => listing(&args.common.output),
        GraphCommand::Tc(_) => Ok(()),
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
