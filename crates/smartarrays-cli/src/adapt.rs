//! `smartarrays advise` and `smartarrays bench adapt`: the adaptivity of the paper's §6 from the
//! command line (the advisor lives in the `smartarrays-adapt` crate, the evaluation and the
//! profiles of the paper's jobs in the `smartarrays-lab` crate).
//!
//! `advise` describes the machine (measured here and cached, a preset, or a file), profiles or
//! models a workload, and prints the choice with its reasoning and numbers. `bench adapt` runs
//! every configuration of the aggregation and degree-centrality workloads across widths on this
//! machine, reports how well Auto picked, and checks the paper's findings on its two machines.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use smartarrays::{Placement, Runtime, RuntimeOptions};
use smartarrays_adapt::costs::CostSettings;
use smartarrays_adapt::machine::cache_dir;
use smartarrays_adapt::mlc::{this_machine, MlcSettings};
use smartarrays_adapt::{
    Advisor, Characteristics, CostProfile, MachineDescription, WorkloadProfile,
};
use smartarrays_graph::adaptive::{adaptive_pagerank, AdaptivePageRankOptions};
use smartarrays_graph::{generate, Width};
use smartarrays_lab::evaluate::{self, measured, Case};
use smartarrays_lab::workloads;

use crate::measure::parallel_efficiency;
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

/// Loads the machine and cost profile named by `machine` (and `costs`).
fn inputs(
    machine: &str,
    costs: Option<&Path>,
    remeasure: bool,
    quick: bool,
) -> CliResult<(MachineDescription, CostProfile, bool)> {
    let (machine, default_costs, here) = if machine == "this" {
        let (mlc, cost_settings) = if quick {
            (MlcSettings::quick(), CostSettings::quick())
        } else {
            (MlcSettings::default(), CostSettings::default())
        };
        let (machine, costs, machine_cached, costs_cached) =
            this_machine(&cache_dir(), remeasure, &mlc, &cost_settings)?;
        eprintln!(
            "machine and array costs: {} and {} (cache {})",
            if machine_cached {
                "from the cache"
            } else {
                "measured now"
            },
            if costs_cached {
                "from the cache"
            } else {
                "measured now"
            },
            cache_dir().display()
        );
        (machine, costs, true)
    } else if let Some(preset) = MachineDescription::preset(machine) {
        let costs = CostProfile::for_preset(machine).ok_or("no cost profile for the preset")?;
        (preset, costs, false)
    } else {
        let described = MachineDescription::load(Path::new(machine))?;
        let costs = CostProfile::haswell_model(described.clock_ghz.unwrap_or(2.5));
        (described, costs, false)
    };
    let costs = match costs {
        Some(path) => CostProfile::load(path)?,
        None => default_costs,
    };
    Ok((machine, costs, here))
}

fn runtime(threads: Option<usize>) -> CliResult<Arc<Runtime>> {
    Ok(Arc::new(Runtime::new(RuntimeOptions {
        threads,
        ..RuntimeOptions::default()
    })?))
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

/// Arguments of `smartarrays bench adapt`.
#[derive(clap::Args)]
pub struct BenchAdaptArgs {
    /// Values per aggregation array.
    #[arg(long, default_value_t = 24_000_000)]
    elements: usize,
    /// Aggregation data widths.
    #[arg(long, value_delimiter = ',', default_values_t = [10, 31, 32, 33, 50, 63, 64])]
    bits: Vec<u32>,
    /// Vertices of the degree-centrality graph (3 random edges each).
    #[arg(long, default_value_t = 4_000_000)]
    vertices: u64,
    /// Widths to store the degree-centrality offsets at (each case: that width against 64);
    /// widths below what the offsets need are raised to it.
    #[arg(long, value_delimiter = ',', default_values_t = [0, 33, 48, 63])]
    degree_bits: Vec<u32>,
    /// Workloads to run.
    #[arg(long, value_delimiter = ',', default_values_t = [String::from("aggregate"), String::from("degree")])]
    workloads: Vec<String>,
    /// Untimed runs before measuring.
    #[arg(long, default_value_t = 1)]
    warmups: usize,
    /// Measured runs of every configuration, taken in rounds (one run of each per round).
    #[arg(long, default_value_t = 9)]
    repetitions: usize,
    /// Which run stands for a configuration: the fastest (least disturbed by other work on a
    /// shared machine; the default) or the median.
    #[arg(long, value_enum, default_value_t = Statistic::Min)]
    statistic: Statistic,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// A pick within this fraction of the fastest also counts as "within tolerance".
    #[arg(long, default_value_t = 0.03)]
    tolerance: f64,
    /// Skip the modelled evaluation of the paper's two machines.
    #[arg(long)]
    no_presets: bool,
    /// Decode-cost factors for the presets' sensitivity check.
    #[arg(long, value_delimiter = ',', default_values_t = [0.5, 0.75, 1.0, 1.25, 1.5, 2.0])]
    cost_factors: Vec<f64>,
    /// Skip the measurements on this machine (presets only).
    #[arg(long)]
    presets_only: bool,
    /// Measure the machine and the array costs again instead of using the cache.
    #[arg(long)]
    remeasure: bool,
    /// Measure this machine with tiny buffers when nothing is cached (smoke tests only: the
    /// figures then describe caches, not memory; point SMARTARRAYS_CACHE_DIR elsewhere).
    #[arg(long)]
    quick_inputs: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also write everything as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// No progress lines on standard error.
    #[arg(long)]
    quiet: bool,
}

/// Which run of a configuration is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Statistic {
    /// The fastest run.
    Min,
    /// The median run.
    Median,
}

impl From<Statistic> for measured::Statistic {
    fn from(statistic: Statistic) -> measured::Statistic {
        match statistic {
            Statistic::Min => measured::Statistic::Min,
            Statistic::Median => measured::Statistic::Median,
        }
    }
}

/// `smartarrays bench adapt`.
pub fn run_bench(args: &BenchAdaptArgs) -> CliResult {
    if let Some(path) = &args.json {
        crate::output::check_output_path(path, "--json")?;
    }
    for &bits in &args.bits {
        smartarrays::codec::check_bits(bits)?;
    }
    for workload in &args.workloads {
        if workload != "aggregate" && workload != "degree" {
            return Err(
                format!("unknown workload {workload:?}: expected aggregate or degree").into(),
            );
        }
    }
    let progress = |message: String| {
        if !args.quiet {
            eprintln!("{message}");
        }
    };
    let mut output = json!({});
    let mut text = String::new();
    if !args.presets_only {
        let (machine, costs, _) = inputs("this", None, args.remeasure, args.quick_inputs)?;
        let runtime = runtime(args.threads)?;
        let efficiency = parallel_efficiency(&runtime);
        let advisor = Advisor::new(machine.clone(), costs.clone());
        let settings = measured::Settings {
            elements: args.elements,
            bits: args.bits.clone(),
            vertices: args.vertices,
            degree_bits: args.degree_bits.clone(),
            warmups: args.warmups,
            repetitions: args.repetitions,
            statistic: args.statistic.into(),
        };
        let mut cases = Vec::new();
        if args.workloads.iter().any(|w| w == "aggregate") {
            cases.extend(measured::aggregate_cases(
                &settings, &runtime, &advisor, &progress,
            )?);
        }
        if args.workloads.iter().any(|w| w == "degree") {
            cases.extend(measured::degree_cases(
                &settings, &runtime, &advisor, &progress,
            )?);
        }
        let summary = evaluate::summarise(&cases, args.tolerance)?;
        let compression = evaluate::summarise_compression(&cases, args.tolerance);
        text += &format!(
            "this machine: {} node(s), {} worker(s), parallel efficiency {:.2} (1.0 = every core free for us; the machine is shared)\n",
            machine.nodes.len(),
            runtime.threads(),
            efficiency
        );
        text += &format!(
            "conditions: {} of {} runs (taken in rounds over the configurations) after {} warm-up round(s); aggregation {} values per array; degree centrality on {} vertices x 3 edges\n",
            if args.statistic == Statistic::Min { "fastest" } else { "median" },
            args.repetitions,
            args.warmups,
            args.elements,
            args.vertices
        );
        text += &summary.to_string();
        if let Some(compression) = &compression {
            text += &compression.to_string();
        }
        if machine.nodes.len() == 1 {
            text += "one node: every placement is the same memory here, so the spread between placements is measurement noise and page effects, and the compression decision is the real test\n";
        }
        output["this_machine"] = json!({ "efficiency": efficiency, "threads": runtime.threads(), "cases": cases, "summary": summary, "compression": compression, "machine": machine });
    }
    if !args.no_presets {
        progress("modelling the paper's machines".into());
        let presets = evaluate::paper_findings(&args.cost_factors)?;
        let preset_cases: Vec<Case> = presets.cases.iter().map(|c| c.case.clone()).collect();
        let summary = evaluate::summarise(&preset_cases, args.tolerance)?;
        text +=
            "\nthe paper's machines (Table 1 figures, modelled profiles; times are the model's):\n";
        text += &presets.to_string();
        text += "Auto against the model's own estimates on the presets (a consistency check, not a measurement):\n";
        text += &summary.to_string();
        output["presets"] = json!({ "evaluation": presets, "summary": summary });
    }
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&output)?),
        _ => print!("{text}"),
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&output)?)?;
    }
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
