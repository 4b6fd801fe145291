//! `smartarrays bench kernels`: single-threaded fused unpack-and-sum throughput of the codec's
//! kernels against the fastlanes crate, per width, for a cache-resident and a memory-sized
//! input; then, cache-resident, packing and the fused decode-and-difference kernel. The lab
//! measures (`smartarrays_lab::bench::kernels`, with its baselines); this file prints.

use serde_json::json;
use smartarrays::codec;
use smartarrays_lab::bench::kernels::{self, KernelSettings};

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

pub fn run(args: &KernelArgs) -> CliResult {
    let settings = KernelSettings {
        cache_values: args.cache_values,
        memory_values: args.memory_values,
        values_per_run: args.values_per_run,
        repetitions: args.repetitions,
    };
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
    for row in kernels::sums(&settings, level)? {
        let (kind, bits, count) = (row.kind, row.bits, row.values);
        let (ours_rate, scalar_rate, their_rate, raw_rate) =
            (row.smartarrays, row.scalar, row.fastlanes, row.raw_u64);
        table.push(
            vec![
                kind.to_string(),
                bits.to_string(),
                format!("{count} ({})", row.input),
                format!("{ours_rate:.2}"),
                format!("{scalar_rate:.2}"),
                format!("{their_rate:.2}"),
                format!("{:.2}", ours_rate / their_rate),
                format!("{raw_rate:.2}"),
            ],
            json!({"type": kind, "bits": bits, "values": count, "input": row.input, "smartarrays_values_per_s": ours_rate * 1e9,
                   "scalar_values_per_s": scalar_rate * 1e9, "fastlanes_values_per_s": their_rate * 1e9,
                   "ratio_vs_fastlanes": ours_rate / their_rate, "raw_u64_values_per_s": raw_rate * 1e9, "kernel": level.name()}),
        );
    }
    print!("{}", table.render(args.format));
    eprintln!(
        "kernels: packing and neighbour differences, {} values in cache",
        args.cache_values.next_multiple_of(1024)
    );
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
    for row in kernels::writes(&settings, level)? {
        let (kind, bits, count) = (row.kind, row.bits, row.values);
        let (ours, scalar, theirs, fused, two_pass) = (
            row.pack,
            row.pack_scalar,
            row.pack_fastlanes,
            row.differences_fused,
            row.differences_two_pass,
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
    print!("{}", table.render(args.format));
    Ok(())
}
