//! `smartarrays bench random-get`: random single-value reads from a compressed smart array
//! against random reads from a raw `Vec<u64>` of the same values (1 GiB by default), with
//! independent (not pointer-chasing) accesses, single-threaded.

use std::hint::black_box;

use serde_json::json;
use smartarrays::{ArrayOptions, Runtime};

use crate::measure::time;
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
    let runtime = std::sync::Arc::new(Runtime::with_threads(1)?);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let indices: Vec<usize> = (0..args.reads)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % args.elements as u64) as usize
        })
        .collect();
    eprintln!("random-get: {} values, {} independent random reads per run, 1 thread", args.elements, args.reads);
    let mut table = Table::new(vec!["bits", "raw_ns_per_read", "smart_ns_per_read", "ratio", "raw_MiB", "smart_MiB"]);
    for &bits in &args.bits {
        smartarrays::codec::check_bits(bits)?;
        let mask = smartarrays::codec::max_value(bits);
        let value = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        let raw: Vec<u64> = (0..args.elements).map(value).collect();
        let (raw_time, raw_sum) = time(1, args.repetitions, || indices.iter().fold(0u64, |s, &i| s.wrapping_add(black_box(&raw)[i])));
        let raw_bytes = raw.len() * 8;
        drop(raw);
        let array = smartarrays::SmartArray::from_fn(args.elements, &ArrayOptions::new().bits(bits).runtime(runtime.clone()), value)?;
        let view = array.local();
        let (smart_time, smart_sum) =
            time(1, args.repetitions, || indices.iter().fold(0u64, |s, &i| s.wrapping_add(black_box(&view).value(i))));
        if raw_sum != smart_sum {
            return Err(format!("random reads disagree at {bits} bits").into());
        }
        let per = |t: std::time::Duration| t.as_secs_f64() * 1e9 / args.reads as f64;
        let (raw_ns, smart_ns) = (per(raw_time.median()), per(smart_time.median()));
        table.push(
            vec![
                bits.to_string(),
                format!("{raw_ns:.2}"),
                format!("{smart_ns:.2}"),
                format!("{:.3}", smart_ns / raw_ns),
                format!("{:.0}", raw_bytes as f64 / (1 << 20) as f64),
                format!("{:.0}", array.memory_bytes() as f64 / (1 << 20) as f64),
            ],
            json!({"bits": bits, "raw_ns": raw_ns, "smart_ns": smart_ns, "ratio": smart_ns / raw_ns, "raw_bytes": raw_bytes,
                   "smart_bytes": array.memory_bytes(), "elements": args.elements, "reads": args.reads}),
        );
    }
    print!("{}", table.render(args.format));
    eprintln!("target: smart/raw time ratio <= 1.5");
    Ok(())
}
