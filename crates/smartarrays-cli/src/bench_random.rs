//! `smartarrays bench random-get`: random single-value reads from a compressed smart array
//! against random reads from a raw `Vec<u64>` of the same values (1 GiB by default), with
//! independent (not pointer-chasing) accesses, single-threaded: checked `get`, `get_unchecked`,
//! and the batched `get_many` against a raw gather loop into a buffer. The lab measures
//! (`smartarrays_lab::bench::random_get`); this file prints.

use serde_json::json;
use smartarrays_lab::bench::random_get::RandomGet;

use crate::output::{Format, Table};
use crate::CliResult;

#[derive(clap::Args)]
pub struct RandomGetArgs {
    /// Values in the arrays (default: 2^27, a 1 GiB raw vector).
    #[arg(long, default_value_t = 1 << 27)]
    elements: usize,
    /// Random reads per run.
    #[arg(long, default_value_t = 1 << 24)]
    reads: usize,
    /// Bit widths to test.
    #[arg(long, value_delimiter = ',', default_values_t = [10, 31, 33, 50, 63])]
    bits: Vec<u32>,
    /// Measured runs (median reported).
    #[arg(long, default_value_t = 5)]
    repetitions: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

pub fn run(args: &RandomGetArgs) -> CliResult {
    if args.elements == 0 {
        return Err("--elements must be at least 1".into());
    }
    let bench = RandomGet::new(args.elements, args.reads)?;
    eprintln!(
        "random-get: {} values, {} independent random reads per run, 1 thread, read kernel {}, \
         gather kernel {}",
        args.elements,
        args.reads,
        smartarrays::codec::ReadKernel::detected().name(),
        smartarrays::codec::detected_level().name()
    );
    let mut table = Table::new(vec![
        "bits",
        "raw_ns",
        "raw_huge_ns",
        "get_ns",
        "get_unchecked_ns",
        "get_ratio",
        "unchecked_ratio",
        "raw_gather_ns",
        "get_many_ns",
        "get_many_ratio",
        "raw_MiB",
        "smart_MiB",
    ]);
    for &bits in &args.bits {
        let row = bench.measure(bits, args.repetitions)?;
        let (raw_ns, huge_ns, smart_ns, unchecked_ns, gather_ns, many_ns) = (
            row.raw_ns,
            row.raw_huge_ns,
            row.get_ns,
            row.get_unchecked_ns,
            row.raw_gather_ns,
            row.get_many_ns,
        );
        let (raw_bytes, smart_bytes) = (row.raw_bytes, row.smart_bytes);
        table.push(
            vec![
                bits.to_string(),
                format!("{raw_ns:.2}"),
                format!("{huge_ns:.2}"),
                format!("{smart_ns:.2}"),
                format!("{unchecked_ns:.2}"),
                format!("{:.3}", smart_ns / raw_ns),
                format!("{:.3}", unchecked_ns / raw_ns),
                format!("{gather_ns:.2}"),
                format!("{many_ns:.2}"),
                format!("{:.3}", many_ns / gather_ns),
                format!("{:.0}", raw_bytes as f64 / (1 << 20) as f64),
                format!("{:.0}", smart_bytes as f64 / (1 << 20) as f64),
            ],
            json!({"bits": bits, "raw_ns": raw_ns, "raw_huge_page_ns": huge_ns, "smart_ns": smart_ns,
                   "smart_unchecked_ns": unchecked_ns, "ratio": smart_ns / raw_ns,
                   "ratio_unchecked": unchecked_ns / raw_ns, "ratio_vs_huge_pages": smart_ns / huge_ns,
                   "raw_gather_ns": gather_ns, "smart_get_many_ns": many_ns,
                   "ratio_get_many": many_ns / gather_ns, "raw_bytes": raw_bytes,
                   "smart_bytes": smart_bytes, "elements": args.elements, "reads": args.reads}),
        );
    }
    print!("{}", table.render(args.format));
    eprintln!(
        "targets: get and get_unchecked <= 1.5x a Vec<u64> read loop (raw, allocator memory; raw_huge: \
         the same values in huge pages); get_many <= 1.0x a raw gather loop into a buffer"
    );
    Ok(())
}
