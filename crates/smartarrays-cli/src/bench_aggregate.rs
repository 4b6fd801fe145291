//! `smartarrays bench aggregate`: the paper's aggregation job (§5.1, Figure 10) over bit widths
//! and placements. Every configuration is checked against, and timed next to, the same job over
//! plain `Vec<u64>` (and `Vec<u32>` for widths up to 32) generated from the same values in the
//! same run. The lab measures (`smartarrays_lab::bench::aggregate`); this file parses the
//! arguments, prints the table and the target ratios, and writes CSV, JSON and plots.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use smartarrays::{Placement, Runtime, RuntimeOptions};
use smartarrays_lab::bench::aggregate::{self, AggregateSettings};
use smartarrays_lab::measure::parallel_efficiency;

use crate::output::{millis, Format, Table};
use crate::{plot, CliResult};

#[derive(clap::Args)]
pub struct AggregateArgs {
    /// Values per array (the job reads two arrays).
    #[arg(long, default_value_t = 100_000_000)]
    elements: usize,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Untimed runs before measuring (the paper uses 5).
    #[arg(long, default_value_t = 5)]
    warmups: usize,
    /// Measured runs; the median is reported (the paper uses 10).
    #[arg(long, default_value_t = 10)]
    repetitions: usize,
    /// Bit widths to run.
    #[arg(long, value_delimiter = ',', default_values_t = [10, 31, 32, 33, 50, 63, 64])]
    bits: Vec<u32>,
    /// Placements to run (os, node:N, interleaved or interleaved:N,M, replicated); default: all four.
    #[arg(long, value_delimiter = ',')]
    placements: Vec<String>,
    /// Seed of the job's pseudo-random data.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Format of the table on standard output.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also write the rows as CSV to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Also write the rows as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw the times as grouped bars (paper Figure 10) into this .svg or .png file (repeatable).
    #[arg(long)]
    plot: Vec<PathBuf>,
    /// No progress lines on standard error.
    #[arg(long)]
    quiet: bool,
}

/// One measured configuration, as plotted.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub bits: u32,
    pub series: String,
    pub median_ms: f64,
}

pub fn run(args: &AggregateArgs) -> CliResult {
    for (path, what) in [(&args.csv, "--csv"), (&args.json, "--json")] {
        if let Some(path) = path {
            crate::output::check_output_path(path, what)?;
        }
    }
    for path in &args.plot {
        crate::output::check_plot_path(path)?;
    }
    let runtime = Arc::new(Runtime::new(RuntimeOptions {
        threads: args.threads,
        ..RuntimeOptions::default()
    })?);
    let placements: Vec<Placement> = if args.placements.is_empty() {
        Placement::all(runtime.topology())
    } else {
        args.placements
            .iter()
            .map(|p| p.parse())
            .collect::<Result<_, _>>()?
    };
    for &bits in &args.bits {
        smartarrays::codec::check_bits(bits)?;
    }
    let efficiency = parallel_efficiency(&runtime);
    let progress = |message: String| {
        if !args.quiet {
            eprintln!("{message}");
        }
    };
    progress(format!(
        "aggregate: {} values x 2 arrays, {} thread(s) (parallel efficiency probe {efficiency:.2}), {} warm-ups + {} runs, kernel {}",
        args.elements,
        runtime.threads(),
        args.warmups,
        args.repetitions,
        smartarrays::codec::detected_level().name()
    ));
    let settings = AggregateSettings {
        elements: args.elements,
        warmups: args.warmups,
        repetitions: args.repetitions,
        bits: args.bits.clone(),
        placements,
        seed: args.seed,
    };
    let rows = aggregate::run(&runtime, &settings, &progress)?;
    let mut table = Table::new(vec![
        "bits",
        "placement",
        "median_ms",
        "min_ms",
        "G_values_per_s",
        "logical_GB_per_s",
        "memory_MiB",
        "vs_raw_u64",
        "vs_raw_u32",
    ]);
    let mut measurements = Vec::new();
    let values = 2.0 * args.elements as f64;
    for row in &rows {
        let (bits, series, timings, memory) = (
            row.bits,
            row.series.as_str(),
            &row.timings,
            row.memory_bytes,
        );
        let median = timings.median().as_secs_f64();
        let (vs64, vs32) = (row.vs_raw_u64, row.vs_raw_u32);
        table.push(
            vec![
                bits.to_string(),
                series.to_string(),
                millis(timings.median()),
                millis(timings.min()),
                format!("{:.3}", values / median / 1e9),
                format!("{:.2}", values * 8.0 / median / 1e9),
                format!("{:.1}", memory as f64 / (1 << 20) as f64),
                format!("{vs64:.3}"),
                vs32.map_or("-".into(), |r| format!("{r:.3}")),
            ],
            json!({
                "bits": bits, "placement": series, "median_ms": median * 1e3, "min_ms": timings.min().as_secs_f64() * 1e3,
                "values_per_s": values / median, "logical_bytes_per_s": values * 8.0 / median, "memory_bytes": memory,
                "ratio_vs_raw_u64": vs64, "ratio_vs_raw_u32": vs32, "threads": runtime.threads(),
                "parallel_efficiency": efficiency, "elements": args.elements,
            }),
        );
        measurements.push(Measurement {
            bits,
            series: series.to_string(),
            median_ms: median * 1e3,
        });
    }
    let rendered = table.render(args.format);
    print!("{rendered}");
    print_summary(&table, efficiency, runtime.threads());
    if let Some(path) = &args.csv {
        std::fs::write(path, table.render(Format::Csv))?;
        progress(format!("wrote {}", path.display()));
    }
    if let Some(path) = &args.json {
        std::fs::write(path, table.render(Format::Json))?;
        progress(format!("wrote {}", path.display()));
    }
    for path in &args.plot {
        let title = format!(
            "Aggregation, {} values x 2 arrays, {} thread(s)",
            args.elements,
            runtime.threads()
        );
        plot::grouped_bars(path, &title, &measurements)?;
        progress(format!("wrote {}", path.display()));
    }
    Ok(())
}

/// Prints the ratios the project's targets are stated in: 64-bit smart array against the raw
/// u64 scan, and the compressed 33-bit scan against the 64-bit one, per placement.
fn print_summary(table: &Table, efficiency: f64, threads: usize) {
    let find = |bits: u32, placement: &str| {
        table
            .json
            .iter()
            .find(|row| row["bits"] == bits && row["placement"] == placement)
            .and_then(|row| row["values_per_s"].as_f64())
    };
    eprintln!();
    eprintln!("summary ({threads} thread(s); parallel efficiency of a CPU-bound probe in this run: {efficiency:.2}):");
    let placements: Vec<String> = table
        .json
        .iter()
        .filter_map(|row| row["placement"].as_str().map(str::to_string))
        .filter(|p| !p.starts_with("raw"))
        .fold(Vec::new(), |mut v, p| {
            if !v.contains(&p) {
                v.push(p);
            }
            v
        });
    for placement in placements {
        if let (Some(smart), Some(raw)) = (find(64, &placement), find(64, "raw-u64")) {
            eprintln!(
                "  64-bit {placement:<14} vs raw &[u64] scan: {:.3}x (target >= 0.95)",
                smart / raw
            );
        }
        if let (Some(compressed), Some(full)) = (find(33, &placement), find(64, &placement)) {
            eprintln!(
                "  33-bit {placement:<14} vs 64-bit scan:     {:.3}x values/s (target >= 1.5)",
                compressed / full
            );
        }
    }
}
