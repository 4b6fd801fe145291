//! The encodings benchmark of issue 13 (see `smartarrays_lab::encodings_bench`): TPC-H
//! `lineitem` generated in-process by `tpchgen` and the synthetic distributions, each column
//! compressed by the sampling compressor; prints encoding, width, bits and bytes per value, the
//! compressor's reason, filter and decode throughput next to the raw scan of this machine.
//!
//! ```text
//! cargo run --release -p smartarrays-lab --example encodings -- --sf 1 --out DIR [--json]
//!     [--synthetic-rows N] [--repeats N] [--scan-values N]
//! ```
//!
//! The raw scan (a `u64` sum over `--scan-values` values, 512 MB by default) runs at the start
//! and at the end; the faster is reported.
//!
//! `--out DIR` writes `DIR/encodings.json` and the columns' values (the input of
//! `scripts/encodings_vs_duckdb.py`); `--json` prints that JSON instead of the text tables.
//! Synthetic columns have as many rows as lineitem unless `--synthetic-rows` says otherwise.

#[path = "support/tpch_lineitem.rs"]
mod tpch_lineitem;

use std::path::PathBuf;
use std::process::ExitCode;

use smartarrays_lab::encodings_bench::{
    json_report, measure_table, raw_scan, render_text, synthetic, write_report, TableReport,
};

struct Args {
    scale_factor: f64,
    out: Option<PathBuf>,
    json: bool,
    synthetic_rows: Option<usize>,
    repeats: usize,
    scan_values: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        scale_factor: 1.0,
        out: None,
        json: false,
        synthetic_rows: None,
        repeats: 5,
        scan_values: 1 << 26,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--sf" => args.scale_factor = value()?.parse().map_err(|e| format!("--sf: {e}"))?,
            "--out" => args.out = Some(PathBuf::from(value()?)),
            "--json" => args.json = true,
            "--synthetic-rows" => {
                args.synthetic_rows = Some(value()?.parse().map_err(|e| format!("{flag}: {e}"))?)
            }
            "--repeats" => args.repeats = value()?.parse().map_err(|e| format!("{flag}: {e}"))?,
            "--scan-values" => {
                args.scan_values = value()?.parse().map_err(|e| format!("{flag}: {e}"))?
            }
            "-h" | "--help" => {
                return Err(
                    "usage: encodings [--sf F] [--out DIR] [--json] [--synthetic-rows N] \
                            [--repeats N] [--scan-values N]"
                        .to_string(),
                )
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !args.scale_factor.is_finite() || args.scale_factor <= 0.0 {
        return Err("--sf must be positive".to_string());
    }
    Ok(args)
}

fn run(args: &Args) -> smartarrays_lab::Result<()> {
    // The raw scan runs at the start and at the end (a shared machine's load changes over the
    // minutes of a run); the faster one is the reference.
    let raw_start = raw_scan(args.scan_values, args.repeats);
    let lineitem = tpch_lineitem::lineitem(args.scale_factor);
    let rows = lineitem.columns[0].rows();
    let lineitem_results = measure_table(&lineitem, args.repeats)?;
    let synthetic = synthetic(args.synthetic_rows.unwrap_or(rows), 13);
    let synthetic_results = measure_table(&synthetic, args.repeats)?;
    let raw_end = raw_scan(args.scan_values, args.repeats);
    let raw = if raw_start.seconds <= raw_end.seconds {
        raw_start
    } else {
        raw_end
    };
    let tables = [
        TableReport {
            table: &lineitem,
            results: &lineitem_results,
        },
        TableReport {
            table: &synthetic,
            results: &synthetic_results,
        },
    ];
    let json = match &args.out {
        Some(dir) => write_report(dir, &tables, &raw, args.scale_factor)?,
        None => json_report(&tables, &raw, args.scale_factor, None)?,
    };
    if args.json {
        print!("{json}");
    } else {
        println!("TPC-H SF {}", args.scale_factor);
        print!("{}", render_text("lineitem", &lineitem_results, &raw));
        println!();
        print!("{}", render_text("synthetic", &synthetic_results, &raw));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("encodings: {error}");
            ExitCode::FAILURE
        }
    }
}
