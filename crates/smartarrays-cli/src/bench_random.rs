//! `smartarrays bench random-get`: random single-value reads from a compressed smart array
//! against random reads from a raw `Vec<u64>` of the same values (1 GiB by default), with
//! independent (not pointer-chasing) accesses, single-threaded: checked `get`, `get_unchecked`,
//! and the batched `get_many` against a raw gather loop into a buffer.

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
        // Every way of reading runs once per round, in turn, so background load hits all alike.
        let (raw_reader, view_reader) = (black_box(&raw), black_box(view));
        let huge_reader = black_box(huge.local().as_native::<u64>().expect("a 64-bit array"));
        let mut gathered = vec![0u64; indices.len()];
        let mut ways: [(&str, Vec<std::time::Duration>); 6] = [
            ("raw", Vec::new()),
            ("raw_huge", Vec::new()),
            ("smart_get", Vec::new()),
            ("smart_get_unchecked", Vec::new()),
            ("raw_gather", Vec::new()),
            ("smart_get_many", Vec::new()),
        ];
        for round in 0..args.repetitions.max(1) + 1 {
            let mut sums = [0u64; 6];
            for (way, (_, samples)) in ways.iter_mut().enumerate() {
                let (timing, sum) = time(0, 1, || match way {
                    0 => indices
                        .iter()
                        .fold(0u64, |s, &i| s.wrapping_add(raw_reader[i])),
                    1 => indices
                        .iter()
                        .fold(0u64, |s, &i| s.wrapping_add(huge_reader[i])),
                    2 => indices
                        .iter()
                        .fold(0u64, |s, &i| s.wrapping_add(view_reader.value(i))),
                    3 => indices.iter().fold(0u64, |s, &i| {
                        // SAFETY: every index was drawn below `args.elements`, the array's length.
                        s.wrapping_add(unsafe { view_reader.get_unchecked(i) })
                    }),
                    4 => {
                        for (slot, &i) in gathered.iter_mut().zip(&indices) {
                            *slot = raw_reader[i];
                        }
                        gathered.iter().fold(0u64, |s, &v| s.wrapping_add(v))
                    }
                    _ => {
                        view_reader
                            .get_many(&indices, &mut gathered)
                            .expect("indices in range");
                        gathered.iter().fold(0u64, |s, &v| s.wrapping_add(v))
                    }
                });
                sums[way] = sum;
                // The first round warms every way up and is not counted.
                if round > 0 {
                    samples.extend(timing.samples);
                }
            }
            if sums.iter().any(|&s| s != sums[0]) {
                return Err(format!("random reads disagree at {bits} bits: {sums:?}").into());
            }
        }
        drop(huge);
        let raw_bytes = raw.len() * 8;
        drop(raw);
        let [raw_ns, huge_ns, smart_ns, unchecked_ns, gather_ns, many_ns] =
            ways.map(|(_, samples)| {
                let median = crate::measure::Timings { samples }.median();
                median.as_secs_f64() * 1e9 / args.reads as f64
            });
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
                format!("{:.0}", array.memory_bytes() as f64 / (1 << 20) as f64),
            ],
            json!({"bits": bits, "raw_ns": raw_ns, "raw_huge_page_ns": huge_ns, "smart_ns": smart_ns,
                   "smart_unchecked_ns": unchecked_ns, "ratio": smart_ns / raw_ns,
                   "ratio_unchecked": unchecked_ns / raw_ns, "ratio_vs_huge_pages": smart_ns / huge_ns,
                   "raw_gather_ns": gather_ns, "smart_get_many_ns": many_ns,
                   "ratio_get_many": many_ns / gather_ns, "raw_bytes": raw_bytes,
                   "smart_bytes": array.memory_bytes(), "elements": args.elements, "reads": args.reads}),
        );
    }
    print!("{}", table.render(args.format));
    eprintln!(
        "targets: get and get_unchecked <= 1.5x a Vec<u64> read loop (raw, allocator memory; raw_huge: \
         the same values in huge pages); get_many <= 1.0x a raw gather loop into a buffer"
    );
    Ok(())
}
