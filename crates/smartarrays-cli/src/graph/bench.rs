//! `graph bench`: PageRank and degree centrality on the U, V and V+E layouts against a plain
//! Rust CSR (the lab's `bench::graph` module measures; this prints and writes the report).

use smartarrays_lab::bench::graph as bench;

use super::{BenchArgs, CliResult, OutputFormat};

pub(super) fn run_bench(args: &BenchArgs) -> CliResult {
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
