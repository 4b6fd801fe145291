//! `smartarrays placement`: builds an array with a chosen placement and width and prints where
//! its pages really are, as the kernel reports them (so a placement can be seen, not trusted).
//! With `--placement auto` the installed advisor (smartarrays-adapt, for this machine) chooses,
//! and its reasoning is printed before the report.

use std::sync::Arc;

use smartarrays::{ArrayOptions, HugePages, Placement, Runtime, RuntimeOptions, SmartArray};

use crate::output::Format;
use crate::CliResult;

#[derive(clap::Args)]
pub struct PlacementArgs {
    /// Placement: os, node:N, interleaved, interleaved:N,M,..., replicated, or auto (chosen by the
    /// advisor for this machine, from --reads-per-element and --random-share).
    #[arg(long, default_value = "interleaved")]
    placement: String,
    /// Number of values.
    #[arg(long, default_value_t = 16 << 20)]
    elements: usize,
    /// Bits per value.
    #[arg(long, default_value_t = 64)]
    bits: u32,
    /// Accesses per element the array will see (read by the advisor with `--placement auto`).
    #[arg(long, default_value_t = 10.0)]
    reads_per_element: f64,
    /// Share of those accesses at random positions, 0..1 (read by the advisor).
    #[arg(long, default_value_t = 0.0)]
    random_share: f64,
    /// Do not ask for transparent huge pages (page-by-page placement).
    #[arg(long)]
    no_huge_pages: bool,
    /// Worker threads that initialise the array (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

pub fn run(args: &PlacementArgs) -> CliResult {
    let placement: Placement = args.placement.parse()?;
    let runtime = Arc::new(Runtime::new(RuntimeOptions {
        threads: args.threads,
        ..RuntimeOptions::default()
    })?);
    let huge_pages = if args.no_huge_pages {
        HugePages::Never
    } else {
        HugePages::Auto
    };
    if placement == Placement::Auto {
        let measured = smartarrays_adapt::install_for_this_machine()?;
        if measured {
            eprintln!("advisor: measured this machine's bandwidth, latency and array costs (cached for next time)");
        }
    }
    let usage = smartarrays::Usage {
        accesses_per_element: args.reads_per_element,
        random_share: args.random_share,
        ..Default::default()
    };
    let options = ArrayOptions::new()
        .placement(placement)
        .bits(args.bits)
        .usage(usage)
        .huge_pages(huge_pages)
        .runtime(runtime);
    let array = SmartArray::zeroed(args.elements, args.bits, &options)?;
    if let (Some(advice), Format::Table) = (array.advice(), &args.format) {
        println!(
            "placement auto -> {} ({} bits). Why:\n{}\n",
            array.placement(),
            array.bits(),
            advice.explanation
        );
    }
    let report = array.placement_report()?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        _ => {
            println!(
                "{} values at {} bits: {} bytes in {} replica(s)",
                array.len(),
                array.bits(),
                array.memory_bytes(),
                array.replica_count()
            );
            print!("{report}");
        }
    }
    Ok(())
}
