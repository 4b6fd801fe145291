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
    eprintln!(
        "random-get: {} values, {} independent random reads per run, 1 thread",
        args.elements, args.reads
    );
    let mut table = Table::new(vec![
        "bits",
        "raw_ns_per_read",
        "raw_huge_ns_per_read",
        "smart_ns_per_read",
        "ratio",
        "ratio_vs_huge",
        "raw_MiB",
        "smart_MiB",
    ]);
    for &bits in &args.bits {
        smartarrays::codec::check_bits(bits)?;
        let mask = smartarrays::codec::max_value(bits);
        let value = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        let raw: Vec<u64> = (0..args.elements).map(value).collect();
        // The same values in huge-page memory (a 64-bit smart array read as a plain slice), so the
        // effect of huge pages on the TLB can be told apart from the effect of compression.
        let huge = smartarrays::SmartArray::from_fn(
            args.elements,
            &ArrayOptions::new().bits(64).runtime(runtime.clone()),
            value,
        )?;
        let array = smartarrays::SmartArray::from_fn(
            args.elements,
            &ArrayOptions::new().bits(bits).runtime(runtime.clone()),
            value,
        )?;
        let view = array.local();
        // Raw and compressed runs alternate, so background load hits both alike.
        let (raw_reader, view_reader) = (black_box(&raw), black_box(view));
        let huge_reader = black_box(&huge.local().packed_words()[..args.elements]);
        let (mut raw_samples, mut smart_samples, mut huge_samples) =
            (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..args.repetitions.max(1) + 1 {
            let (raw_time, raw_sum) = time(0, 1, || {
                indices
                    .iter()
                    .fold(0u64, |s, &i| s.wrapping_add(raw_reader[i]))
            });
            let (smart_time, smart_sum) = time(0, 1, || {
                indices
                    .iter()
                    .fold(0u64, |s, &i| s.wrapping_add(view_reader.value(i)))
            });
            let (huge_time, huge_sum) = time(0, 1, || {
                indices
                    .iter()
                    .fold(0u64, |s, &i| s.wrapping_add(huge_reader[i]))
            });
            if raw_sum != smart_sum || raw_sum != huge_sum {
                return Err(format!("random reads disagree at {bits} bits").into());
            }
            raw_samples.extend(raw_time.samples);
            smart_samples.extend(smart_time.samples);
            huge_samples.extend(huge_time.samples);
        }
        // The first round warms up both.
        let raw_time = crate::measure::Timings {
            samples: raw_samples.split_off(1),
        };
        let smart_time = crate::measure::Timings {
            samples: smart_samples.split_off(1),
        };
        let huge_time = crate::measure::Timings {
            samples: huge_samples.split_off(1),
        };
        drop(huge);
        let raw_bytes = raw.len() * 8;
        drop(raw);
        let per = |t: std::time::Duration| t.as_secs_f64() * 1e9 / args.reads as f64;
        let (raw_ns, smart_ns, huge_ns) = (
            per(raw_time.median()),
            per(smart_time.median()),
            per(huge_time.median()),
        );
        table.push(
            vec![
                bits.to_string(),
                format!("{raw_ns:.2}"),
                format!("{huge_ns:.2}"),
                format!("{smart_ns:.2}"),
                format!("{:.3}", smart_ns / raw_ns),
                format!("{:.3}", smart_ns / huge_ns),
                format!("{:.0}", raw_bytes as f64 / (1 << 20) as f64),
                format!("{:.0}", array.memory_bytes() as f64 / (1 << 20) as f64),
            ],
            json!({"bits": bits, "raw_ns": raw_ns, "raw_huge_page_ns": huge_ns, "smart_ns": smart_ns, "ratio": smart_ns / raw_ns, "ratio_vs_huge_pages": smart_ns / huge_ns, "raw_bytes": raw_bytes,
                   "smart_bytes": array.memory_bytes(), "elements": args.elements, "reads": args.reads}),
        );
    }
    print!("{}", table.render(args.format));
    eprintln!("target: smart/raw time ratio <= 1.5 (raw = Vec<u64> from the allocator; raw_huge = the same values in huge pages)");
    Ok(())
}
