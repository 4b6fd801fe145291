//! `smartarrays bench kernels`: single-threaded fused unpack-and-sum throughput of the codec's
//! kernels against the fastlanes crate (its `unpack!` macro with a summing body, built the same
//! portable way as this binary), per width, for a cache-resident and a memory-sized input; then,
//! cache-resident, packing (`pack_slice` against the compile-time scalar encoder and fastlanes'
//! `pack`) and the fused decode-and-difference kernel against decoding then subtracting.

use std::hint::black_box;

use fastlanes::{unpack, BitPacking, FastLanes};
use serde_json::json;
use smartarrays::codec::{self, KernelLevel};

use crate::measure::time;
use crate::output::{Format, Table};
use crate::CliResult;

#[derive(clap::Args)]
pub struct KernelArgs {
    /// Values in the cache-resident input (rounded up to 1024).
    #[arg(long, default_value_t = 32 * 1024)]
    cache_values: usize,
    /// Values in the memory-sized input (rounded up to 1024).
    #[arg(long, default_value_t = 32 * 1024 * 1024)]
    memory_values: usize,
    /// Values decoded per timed run (small inputs are summed repeatedly to reach it).
    #[arg(long, default_value_t = 64 << 20)]
    values_per_run: usize,
    /// Measured runs per configuration (the median is reported).
    #[arg(long, default_value_t = 9)]
    repetitions: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Deterministic values below 2^bits, spread over the whole range.
fn values(count: usize, bits: u32) -> Vec<u64> {
    let mut state = 0x2545_F491_4F6C_DD1Du64 ^ bits as u64;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state & codec::max_value(bits)
        })
        .collect()
}

fn fastlanes_sum_u64<const W: usize, const B: usize>(packed: &[u64]) -> u64 {
    let mut sum = 0u64;
    for block in packed.chunks_exact(B) {
        for lane in 0..<u64 as FastLanes>::LANES {
            unpack!(u64, W, block, lane, |$_index, $value| { sum = sum.wrapping_add($value) });
        }
    }
    sum
}

fn fastlanes_sum_u32<const W: usize, const B: usize>(packed: &[u32]) -> u64 {
    let mut sum = 0u64;
    for block in packed.chunks_exact(B) {
        for lane in 0..<u32 as FastLanes>::LANES {
            unpack!(u32, W, block, lane, |$_index, $value| { sum = sum.wrapping_add($value as u64) });
        }
    }
    sum
}

fn fastlanes_pack_u64<const W: usize, const B: usize>(input: &[u64], packed: &mut [u64]) {
    for (block, out) in input.chunks_exact(1024).zip(packed.chunks_exact_mut(B)) {
        let block: &[u64; 1024] = block.try_into().expect("1024 values");
        let out: &mut [u64; B] = out.try_into().expect("B words");
        u64::pack::<W, B>(block, out);
    }
}

fn fastlanes_pack_u32<const W: usize, const B: usize>(input: &[u32], packed: &mut [u32]) {
    for (block, out) in input.chunks_exact(1024).zip(packed.chunks_exact_mut(B)) {
        let block: &[u32; 1024] = block.try_into().expect("1024 values");
        let out: &mut [u32; B] = out.try_into().expect("B words");
        u32::pack::<W, B>(block, out);
    }
}

/// A fastlanes baseline: a closure timed against ours (it returns a value so the work is kept).
type Baseline = Box<dyn FnMut() -> u64>;

/// The fastlanes baselines for one width: a summing closure over the input packed once, and a
/// packing closure (into a buffer allocated once, from the input in fastlanes' own lane type).
struct Fastlanes {
    sum: Baseline,
    pack: Baseline,
}

fn fastlanes_baselines(kind: &str, bits: u32, input: &[u64]) -> Option<Fastlanes> {
    macro_rules! u64_case {
        ($w:literal) => {{
            let values = input.to_vec();
            let mut packed = vec![0u64; input.len() / 1024 * 16 * $w];
            fastlanes_pack_u64::<$w, { 16 * $w }>(&values, &mut packed);
            let summed = packed.clone();
            Some(Fastlanes {
                sum: Box::new(move || fastlanes_sum_u64::<$w, { 16 * $w }>(black_box(&summed))),
                pack: Box::new(move || {
                    fastlanes_pack_u64::<$w, { 16 * $w }>(black_box(&values), &mut packed);
                    packed[0]
                }),
            })
        }};
    }
    macro_rules! u32_case {
        ($w:literal) => {{
            let values: Vec<u32> = input.iter().map(|&v| v as u32).collect();
            let mut packed = vec![0u32; input.len() / 1024 * 32 * $w];
            fastlanes_pack_u32::<$w, { 32 * $w }>(&values, &mut packed);
            let summed = packed.clone();
            Some(Fastlanes {
                sum: Box::new(move || fastlanes_sum_u32::<$w, { 32 * $w }>(black_box(&summed))),
                pack: Box::new(move || {
                    fastlanes_pack_u32::<$w, { 32 * $w }>(black_box(&values), &mut packed);
                    u64::from(packed[0])
                }),
            })
        }};
    }
    match (kind, bits) {
        ("u64", 10) => u64_case!(10),
        ("u64", 31) => u64_case!(31),
        ("u64", 33) => u64_case!(33),
        ("u64", 50) => u64_case!(50),
        ("u64", 63) => u64_case!(63),
        ("u32", 10) => u32_case!(10),
        ("u32", 26) => u32_case!(26),
        ("u32", 31) => u32_case!(31),
        _ => None,
    }
}

/// Packing and neighbour differences on a cache-resident input, values per second (billions).
fn writes_table(
    args: &KernelArgs,
    cases: &[(&str, u32)],
    level: KernelLevel,
) -> Result<Table, Box<dyn std::error::Error>> {
    let mut table = Table::new(vec![
        "type",
        "bits",
        "pack_G_per_s",
        "pack_scalar_G_per_s",
        "pack_fastlanes_G_per_s",
        "pack_vs_fastlanes",
        "differences_fused_G_per_s",
        "differences_two_pass_G_per_s",
        "fused_vs_two_pass",
    ]);
    let count = args.cache_values.next_multiple_of(1024);
    let rounds = (args.values_per_run / count).max(1);
    let rate = |seconds: f64| (count * rounds) as f64 / seconds / 1e9;
    for &(kind, bits) in cases {
        let input = values(count, bits);
        let storage = codec::storage_words(count, bits).ok_or("size overflow")?;
        let mut reference = vec![0u64; storage];
        codec::pack_into(&mut reference, bits, input.iter().copied());
        let mut words = vec![0u64; storage];
        let (ours, _) = time(2, args.repetitions, || {
            (0..rounds).fold(0, |s, _| {
                s + codec::pack_slice_with(level, black_box(&mut words), bits, black_box(&input))
            })
        });
        let (scalar, _) = time(1, args.repetitions.min(5), || {
            (0..rounds).fold(0, |s, _| {
                s + codec::pack_slice_with(
                    KernelLevel::Scalar,
                    black_box(&mut words),
                    bits,
                    black_box(&input),
                )
            })
        });
        if words != reference {
            return Err(format!("packing disagrees with the reference at {bits} bits").into());
        }
        let mut baseline = fastlanes_baselines(kind, bits, &input)
            .ok_or("no fastlanes case")?
            .pack;
        let (theirs, _) = time(2, args.repetitions, || {
            (0..rounds).fold(0u64, |s, _| s.wrapping_add(baseline()))
        });
        // Differences of all but the last value: fused, then decode into a buffer and subtract.
        let mut out = vec![0u64; count - 1];
        let mut buffer = vec![0u64; count];
        let (fused, _) = time(2, args.repetitions, || {
            for _ in 0..rounds {
                codec::unpack_differences_with(
                    level,
                    black_box(&reference),
                    bits,
                    0,
                    &mut out,
                    codec::Combine::Overwrite,
                );
            }
            out[0]
        });
        let fused_out = out.clone();
        let (two_pass, _) = time(2, args.repetitions, || {
            for _ in 0..rounds {
                codec::unpack_range_with(level, black_box(&reference), bits, 0, &mut buffer);
                codec::differences_with(level, &buffer, &mut out, codec::Combine::Overwrite);
            }
            out[0]
        });
        if fused_out != out {
            return Err(format!("fused differences disagree at {bits} bits").into());
        }
        let (ours, scalar, theirs, fused, two_pass) = (
            rate(ours.median().as_secs_f64()),
            rate(scalar.median().as_secs_f64()),
            rate(theirs.median().as_secs_f64()),
            rate(fused.median().as_secs_f64()),
            rate(two_pass.median().as_secs_f64()),
        );
        table.push(
            vec![
                kind.to_string(),
                bits.to_string(),
                format!("{ours:.2}"),
                format!("{scalar:.2}"),
                format!("{theirs:.2}"),
                format!("{:.2}", ours / theirs),
                format!("{fused:.2}"),
                format!("{two_pass:.2}"),
                format!("{:.2}", fused / two_pass),
            ],
            json!({"type": kind, "bits": bits, "values": count, "pack_values_per_s": ours * 1e9, "pack_scalar_values_per_s": scalar * 1e9,
                   "pack_fastlanes_values_per_s": theirs * 1e9, "differences_fused_values_per_s": fused * 1e9,
                   "differences_two_pass_values_per_s": two_pass * 1e9, "kernel": level.name()}),
        );
    }
    Ok(table)
}

pub fn run(args: &KernelArgs) -> CliResult {
    let cases = [
        ("u64", 10),
        ("u64", 31),
        ("u64", 33),
        ("u64", 50),
        ("u64", 63),
        ("u32", 10),
        ("u32", 26),
        ("u32", 31),
    ];
    let level = codec::detected_level();
    eprintln!(
        "kernels: single thread, smartarrays kernel {} (portable build, run-time dispatch)",
        level.name()
    );
    let mut table = Table::new(vec![
        "type",
        "bits",
        "values",
        "smartarrays_G_per_s",
        "scalar_G_per_s",
        "fastlanes_G_per_s",
        "vs_fastlanes",
        "raw_u64_G_per_s",
    ]);
    for (size_name, requested) in [("cache", args.cache_values), ("memory", args.memory_values)] {
        let count = requested.next_multiple_of(1024);
        // Repeat small inputs so each timed run lasts long enough to measure.
        let rounds = (args.values_per_run / count).max(1);
        let raw = values(count, 64);
        let (raw_time, _) = time(2, args.repetitions, || {
            (0..rounds).fold(0u64, |s, _| {
                s.wrapping_add(black_box(&raw).iter().fold(0u64, |a, &v| a.wrapping_add(v)))
            })
        });
        let raw_rate = (count * rounds) as f64 / raw_time.median().as_secs_f64() / 1e9;
        drop(raw);
        for (kind, bits) in cases {
            let input = values(count, bits);
            let expected = input.iter().fold(0u64, |s, &v| s.wrapping_add(v));
            let mut words = vec![0u64; codec::storage_words(count, bits).ok_or("size overflow")?];
            codec::pack_into(&mut words, bits, input.iter().copied());
            let mut baseline = fastlanes_baselines(kind, bits, &input)
                .ok_or("no fastlanes case")?
                .sum;
            let rate = |seconds: f64| (count * rounds) as f64 / seconds / 1e9;
            let (ours, sum) = time(2, args.repetitions, || {
                (0..rounds).fold(0u64, |s, _| {
                    s.wrapping_add(codec::sum_range_with(
                        level,
                        black_box(&words),
                        bits,
                        0,
                        count,
                    ))
                })
            });
            let (scalar, scalar_sum) = time(1, args.repetitions.min(5), || {
                (0..rounds).fold(0u64, |s, _| {
                    s.wrapping_add(codec::sum_range_with(
                        KernelLevel::Scalar,
                        black_box(&words),
                        bits,
                        0,
                        count,
                    ))
                })
            });
            let (theirs, their_sum) = time(2, args.repetitions, || {
                (0..rounds).fold(0u64, |s, _| s.wrapping_add(baseline()))
            });
            // Every timed run sums the input `rounds` times.
            let repeated = (0..rounds).fold(0u64, |s, _| s.wrapping_add(expected));
            if sum != repeated || scalar_sum != repeated || their_sum != repeated {
                return Err(format!("kernel sums disagree at {kind} {bits} bits").into());
            }
            let (ours_rate, scalar_rate, their_rate) = (
                rate(ours.median().as_secs_f64()),
                rate(scalar.median().as_secs_f64()),
                rate(theirs.median().as_secs_f64()),
            );
            table.push(
                vec![
                    kind.to_string(),
                    bits.to_string(),
                    format!("{count} ({size_name})"),
                    format!("{ours_rate:.2}"),
                    format!("{scalar_rate:.2}"),
                    format!("{their_rate:.2}"),
                    format!("{:.2}", ours_rate / their_rate),
                    format!("{raw_rate:.2}"),
                ],
                json!({"type": kind, "bits": bits, "values": count, "input": size_name, "smartarrays_values_per_s": ours_rate * 1e9,
                       "scalar_values_per_s": scalar_rate * 1e9, "fastlanes_values_per_s": their_rate * 1e9,
                       "ratio_vs_fastlanes": ours_rate / their_rate, "raw_u64_values_per_s": raw_rate * 1e9, "kernel": level.name()}),
            );
        }
    }
    print!("{}", table.render(args.format));
    eprintln!(
        "kernels: packing and neighbour differences, {} values in cache",
        args.cache_values.next_multiple_of(1024)
    );
    print!("{}", writes_table(args, &cases, level)?.render(args.format));
    Ok(())
}
