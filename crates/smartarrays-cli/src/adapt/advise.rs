//! `smartarrays advise`: describes the machine (measured here and cached, a preset, or a file),
//! profiles or models a workload, and prints the choice with its reasoning and numbers.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use smartarrays::Placement;
use smartarrays_adapt::{Advisor, Characteristics, WorkloadProfile};
use smartarrays_graph::adaptive::{adaptive_pagerank, AdaptivePageRankOptions};
use smartarrays_graph::{generate, Width};
use smartarrays_lab::evaluate;
use smartarrays_lab::workloads;

use super::{inputs, runtime};
use crate::output::Format;
use crate::CliResult;

/// Which workload to advise on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// The paper's aggregation: two arrays summed (§5.1).
    Aggregate,
    /// Degree centrality on a random graph with 3 edges per vertex (§5.2).
    Degree,
    /// PageRank: its arrays chosen together under one memory budget; on this machine it runs
    /// adaptively (profiles, decides, restructures while iterating).
    Pagerank,
    /// One array described by --len, --bits, --random-share, --written, --expected-runs.
    Manual,
}

/// Arguments of `smartarrays advise`.
#[derive(clap::Args)]
pub struct AdviseArgs {
    /// Machine: `this` (measured here once, then cached), a preset (paper-8core, paper-18core)
    /// or a machine description JSON file.
    #[arg(long, default_value = "this")]
    machine: String,
    /// Cost profile JSON file (default: measured here for `this`, modelled for the presets).
    #[arg(long)]
    costs: Option<PathBuf>,
    /// The workload.
    #[arg(long, value_enum, default_value_t = Workload::Aggregate)]
    workload: Workload,
    /// Use a saved workload profile instead of profiling or modelling one.
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Data width: aggregation data bits; degree-centrality offsets stored at (at least what they need); manual array bits.
    #[arg(long, default_value_t = 33)]
    bits: u32,
    /// Values per aggregation array (and the manual array's length).
    #[arg(long, default_value_t = 20_000_000)]
    elements: u64,
    /// Vertices of the generated graph (degree, pagerank); 3 edges per vertex for degree, 8 for pagerank.
    #[arg(long, default_value_t = 1_000_000)]
    vertices: u64,
    /// Runs to profile on this machine (iterations for PageRank).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Runs (iterations) the workload does in its lifetime: amortises building replicas.
    #[arg(long, default_value_t = 15.0)]
    expected_runs: f64,
    /// Manual workload: share of accesses at random positions (0..1).
    #[arg(long, default_value_t = 0.0)]
    random_share: f64,
    /// Manual workload: the array is written (so it is never replicated).
    #[arg(long)]
    written: bool,
    /// Building replicas is hidden behind loading the data.
    #[arg(long)]
    init_hidden: bool,
    /// Memory budget for the arrays chosen together (PageRank), e.g. 2GiB or 500000000.
    #[arg(long)]
    budget: Option<String>,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Measure the machine and the array costs again instead of using the cache.
    #[arg(long)]
    remeasure: bool,
    /// Measure this machine with tiny buffers when nothing is cached (smoke tests only: the
    /// figures then describe caches, not memory; point SMARTARRAYS_CACHE_DIR elsewhere).
    #[arg(long)]
    quick_inputs: bool,
    /// Also print the machine description and the array cost profile.
    #[arg(long)]
    show_inputs: bool,
    /// Write the machine description used to this file.
    #[arg(long)]
    save_machine: Option<PathBuf>,
    /// Write the cost profile used to this file.
    #[arg(long)]
    save_costs: Option<PathBuf>,
    /// Write the workload profile used to this file.
    #[arg(long)]
    save_profile: Option<PathBuf>,
    /// Output: table (plain words) or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Parses a byte count: a number, optionally with B, KB, MB, GB, KiB, MiB, GiB, TiB.
pub fn parse_bytes(text: &str) -> CliResult<f64> {
    let text = text.trim();
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("budget {text:?}: expected a number of bytes such as 2GiB"))?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0f64.powi(4),
        other => return Err(format!("budget {text:?}: unknown unit {other:?}").into()),
    };
    if !(value >= 0.0 && value.is_finite()) {
        return Err(format!("budget {text:?} must be a non-negative number").into());
    }
    Ok(value * factor)
}

/// `smartarrays advise`.
pub fn run_advise(args: &AdviseArgs) -> CliResult {
    for (path, what) in [
        (&args.save_machine, "--save-machine"),
        (&args.save_costs, "--save-costs"),
        (&args.save_profile, "--save-profile"),
    ] {
        if let Some(path) = path {
            crate::output::check_output_path(path, what)?;
        }
    }
    smartarrays::codec::check_bits(args.bits)?;
    let (machine, costs, here) = inputs(
        &args.machine,
        args.costs.as_deref(),
        args.remeasure,
        args.quick_inputs,
    )?;
    if let Some(path) = &args.save_machine {
        machine.save(path)?;
    }
    if let Some(path) = &args.save_costs {
        costs.save(path)?;
    }
    let budget = args.budget.as_deref().map(parse_bytes).transpose()?;
    let advisor = Advisor::new(machine.clone(), costs.clone());
    let json_out = args.format == Format::Json;
    if args.show_inputs && !json_out {
        print!("{machine}");
        print!("{costs}");
    }
    let mut profile = match (&args.profile, args.workload) {
        (Some(path), _) => WorkloadProfile::load(path)?,
        (None, Workload::Aggregate) if here => {
            let runtime = runtime(args.threads)?;
            let (profile, sum) = workloads::profile_aggregate(
                &runtime,
                &machine,
                &costs,
                args.elements as usize,
                args.bits,
                args.runs,
                args.expected_runs,
                42,
            )?;
            let expected = workloads::aggregate_reference(args.elements as usize, args.bits, 42);
            if sum != expected {
                return Err(format!(
                    "the profiled aggregation summed to {sum}, expected {expected}"
                )
                .into());
            }
            profile
        }
        (None, Workload::Aggregate) => evaluate::aggregation_profile(
            &machine,
            &costs,
            args.elements,
            args.bits,
            args.expected_runs,
        )?,
        (None, Workload::Degree) if here => {
            let runtime = runtime(args.threads)?;
            let edges = generate::uniform_with(args.vertices, 3, 42, true, &runtime)?;
            let graph = workloads::degree_graph(
                &runtime,
                &edges,
                Width::Natural,
                &Placement::Interleaved(Vec::new()),
            )?;
            workloads::profile_degree(
                &graph,
                &machine,
                &costs,
                args.bits,
                args.runs,
                args.expected_runs,
            )?
            .0
        }
        (None, Workload::Degree) => evaluate::degree_profile(
            &machine,
            &costs,
            args.vertices,
            3 * args.vertices,
            args.expected_runs,
        )?,
        (None, Workload::Pagerank) if here => return advise_pagerank_here(args, &advisor, budget),
        (None, Workload::Pagerank) => evaluate::pagerank_profile(
            &machine,
            &costs,
            args.vertices,
            8 * args.vertices,
            64,
            args.expected_runs,
        )?,
        (None, Workload::Manual) => {
            let characteristics = Characteristics {
                read_only: !args.written,
                accesses_per_element: args.expected_runs,
                random_share: args.random_share,
                init_hidden: args.init_hidden,
            };
            advisor.characteristics_profile(args.elements as usize, args.bits, &characteristics)?
        }
    };
    profile.init_hidden |= args.init_hidden;
    if let Some(path) = &args.save_profile {
        profile.save(path)?;
    }
    let choice = advisor.choose(&profile)?;
    let joint =
        if profile.arrays.iter().filter(|a| a.spec.adaptable).count() > 1 || budget.is_some() {
            Some(advisor.choose_jointly(&profile, budget)?)
        } else {
            None
        };
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({ "machine": machine, "costs_source": costs.source, "profile": profile, "choice": choice, "joint": joint })
            )?
        );
    } else {
        print!("{profile}");
        print!("{choice}");
        if let Some(joint) = joint {
            println!("beyond the paper, each array chosen separately:");
            print!("{joint}");
        }
    }
    Ok(())
}

fn advise_pagerank_here(args: &AdviseArgs, advisor: &Advisor, budget: Option<f64>) -> CliResult {
    let runtime = runtime(args.threads)?;
    let edges = generate::uniform_with(args.vertices, 8, 42, true, &runtime)?;
    let graph = smartarrays_graph::build(
        edges,
        &smartarrays_graph::GraphOptions::default().runtime(Arc::clone(&runtime)),
    )?;
    let options = AdaptivePageRankOptions {
        profile_iterations: args.runs.max(1),
        expected_iterations: args.expected_runs,
        budget_bytes: budget,
        ..AdaptivePageRankOptions::default()
    };
    let report = adaptive_pagerank(&graph, advisor, &options)?;
    if let Some(path) = &args.save_profile {
        report.profile.save(path)?;
    }
    if args.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({ "report": { "iterations": report.iterations, "converged": report.converged,
            "iteration_seconds": report.iteration_seconds, "swaps": report.swaps, "restructure_seconds": report.restructure_seconds },
            "profile": report.profile, "choice": report.choice })
            )?
        );
        return Ok(());
    }
    print!("{}", report.profile);
    print!("{}", report.choice);
    println!(
        "adaptive PageRank: {} iterations ({}), restructuring took {:.3} s on a background thread while iterating",
        report.iterations,
        if report.converged { "converged" } else { "not converged" },
        report.restructure_seconds
    );
    for (name, before, after, first) in &report.swaps {
        match first {
            Some(iteration) if before != after => {
                println!("  {name}: {before} -> {after}, used from iteration {iteration}")
            }
            _ if before != after => {
                println!("  {name}: {before} -> {after} (built after the last iteration)")
            }
            _ => println!("  {name}: kept {before}"),
        }
    }
    let times: Vec<String> = report
        .iteration_seconds
        .iter()
        .map(|s| format!("{:.1}", s * 1e3))
        .collect();
    println!("  iteration times (ms): {}", times.join(" "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_parse_with_units() {
        assert_eq!(parse_bytes("1000").unwrap(), 1000.0);
        assert_eq!(parse_bytes("2GiB").unwrap(), 2.0 * 1024.0 * 1024.0 * 1024.0);
        assert_eq!(parse_bytes("1.5 GB").unwrap(), 1.5e9);
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("3 parsecs").is_err());
        assert!(parse_bytes("-1").is_err());
    }
}
