//! The `smartarrays` command: shows the machine's topology, runs the paper's benchmarks, and
//! runs SQL and TPC-H over smart-array tables and the Spark study's jobs over files.
//! Each subcommand lives in its own module; this file only parses arguments and dispatches.

mod adapt;
mod bars;
mod bench_aggregate;
mod bench_kernels;
mod bench_random;
mod graph;
mod jobs;
mod output;
mod placement;
mod plot;
mod query;

use clap::{Parser, Subcommand};

/// Smart arrays: NUMA placement and bit compression behind one array interface.
#[derive(Parser)]
#[command(name = "smartarrays", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the machine's NUMA topology, the workers a default runtime starts, and the codec
    /// kernels this CPU runs.
    Info(InfoArgs),
    /// Build an array with a placement and print where its pages really are.
    Placement(placement::PlacementArgs),
    /// Run a benchmark.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Choose placement and compression automatically (paper §6) and explain the choice.
    Advise(adapt::AdviseArgs),
    /// Graph analytics on smart arrays: generate, convert, stats, degree, pagerank, bfs, components, bench.
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    /// Run a SQL query (or EXPLAIN one) over TPC-H tables generated in this process.
    Sql(query::SqlArgs),
    /// TPC-H: generate the tables as CSV, run the supported queries, time them.
    #[command(subcommand)]
    Tpch(query::TpchCommand),
    /// The Spark scale-up study's jobs: generate, wordcount, grep, sort, bayes, kmeans.
    #[command(subcommand)]
    Jobs(jobs::JobsCommand),
}

#[derive(clap::Args)]
struct InfoArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = output::Format::Table)]
    format: output::Format,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// The aggregation job of the paper (§5.1) over bit widths and placements, against raw vectors.
    Aggregate(bench_aggregate::AggregateArgs),
    /// Fused unpack-and-sum kernels against the fastlanes crate, per width.
    Kernels(bench_kernels::KernelArgs),
    /// Random `get` on a compressed array against random reads of a raw vector.
    RandomGet(bench_random::RandomGetArgs),
    /// How well Auto picks: every configuration of aggregation and degree centrality across widths, and the paper's machines modelled.
    Adapt(adapt::BenchAdaptArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info(&args),
        Command::Placement(args) => placement::run(&args),
        Command::Bench(BenchCommand::Aggregate(args)) => bench_aggregate::run(&args),
        Command::Bench(BenchCommand::Kernels(args)) => bench_kernels::run(&args),
        Command::Bench(BenchCommand::RandomGet(args)) => bench_random::run(&args),
        Command::Bench(BenchCommand::Adapt(args)) => adapt::run_bench(&args),
        Command::Advise(args) => adapt::run_advise(&args),
        Command::Graph(command) => graph::run(&command),
        Command::Sql(args) => query::run_sql(&args),
        Command::Tpch(command) => query::run(&command),
        Command::Jobs(command) => jobs::run(&command),
    };
    if let Err(error) = result {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}

/// Errors of the command line: the library's errors plus I/O and plotting messages.
pub type CliResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn info(args: &InfoArgs) -> CliResult {
    let topology = smartarrays::Topology::current()?;
    let runtime = smartarrays::Runtime::global()?;
    let level = smartarrays::codec::detected_level();
    match args.format {
        output::Format::Json => {
            let workers: Vec<_> = runtime
                .workers()
                .iter()
                .map(|w| serde_json::json!({"index": w.index, "node": w.node, "cpu": w.cpu}))
                .collect();
            let supported: Vec<_> = smartarrays::codec::KernelLevel::supported()
                .iter()
                .map(|l| l.name())
                .collect();
            let value = serde_json::json!({
                "topology": serde_json::from_str::<serde_json::Value>(&topology.to_json())?,
                "source": topology.source(),
                "workers": workers,
                "kernel": level.name(),
                "kernels_supported": supported,
            });
            println!("{}", serde_json::to_string_pretty(&value)?);
        }
        _ => {
            print!("{topology}");
            let workers = runtime
                .workers()
                .iter()
                .map(|w| {
                    format!(
                        "#{} node {} cpu {}",
                        w.index,
                        w.node,
                        w.cpu.map_or("unpinned".to_string(), |c| c.to_string())
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            println!(
                "default runtime: {} worker(s): {workers}",
                runtime.threads()
            );
            let supported: Vec<_> = smartarrays::codec::KernelLevel::supported()
                .iter()
                .map(|l| l.name())
                .collect();
            println!(
                "codec kernels: using {} (this CPU supports: {})",
                level.name(),
                supported.join(", ")
            );
        }
    }
    Ok(())
}
