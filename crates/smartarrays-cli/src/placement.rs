//! `smartarrays placement`: builds an array with a chosen placement and width and prints where
//! its pages really are, as the kernel reports them (so a placement can be seen, not trusted).

use std::sync::Arc;

use smartarrays::{ArrayOptions, HugePages, Placement, Runtime, RuntimeOptions, SmartArray};

use crate::output::Format;
use crate::CliResult;

#[derive(clap::Args)]
pub struct PlacementArgs {
    /// Placement: os, node:N, interleaved, interleaved:N,M,... or replicated.
    #[arg(long, default_value = "interleaved")]
    placement: String,
    /// Number of values.
    #[arg(long, default_value_t = 16 << 20)]
    elements: usize,
    /// Bits per value.
    #[arg(long, default_value_t = 64)]
    bits: u32,
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
    let runtime = Arc::new(Runtime::new(RuntimeOptions { threads: args.threads, ..RuntimeOptions::default() })?);
    let huge_pages = if args.no_huge_pages { HugePages::Never } else { HugePages::Auto };
    let options = ArrayOptions::new().placement(placement).bits(args.bits).huge_pages(huge_pages).runtime(runtime);
    let array = SmartArray::zeroed(args.elements, args.bits, &options)?;
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
