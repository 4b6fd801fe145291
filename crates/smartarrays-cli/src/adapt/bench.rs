//! `smartarrays bench adapt`: runs every configuration of the aggregation and degree-centrality
//! workloads across widths on this machine (measured by the lab), reports how well Auto picked,
//! and checks the paper's findings on its two machines.

use std::path::PathBuf;

use serde_json::json;
use smartarrays_adapt::Advisor;
use smartarrays_lab::evaluate::{self, measured, Case};
use smartarrays_lab::measure::parallel_efficiency;

use super::{inputs, runtime};
use crate::output::Format;
use crate::CliResult;

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
