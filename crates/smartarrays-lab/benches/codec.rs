//! Criterion benches of the codec's kernels on one thread, per width and per kernel level:
//! packing (`codec::pack_slice_with`), range unpacking (`codec::unpack_range_with`) and the
//! fused unpack-and-sum (`codec::sum_range_with`), over a cache-resident input.
//!
//! Every level this CPU supports is measured in one run: the `_with` entry points take the level
//! (`KernelLevel::supported()` lists them), so no environment variable is needed. The AVX2
//! kernels cover widths up to 56 bits; at wider ones the AVX2 rows measure the scalar fallback.
//!
//! Run: `cargo bench -p smartarrays-lab --bench codec` (add `-- pack/avx512` to filter).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use smartarrays::codec::{self, KernelLevel};
use smartarrays_lab::bench::values;

/// Widths measured: the smallest, a few odd ones, both sides of 32, and the widest.
const WIDTHS: [u32; 8] = [1, 7, 10, 31, 33, 50, 63, 64];

/// Values per operation (64 Ki: at most 512 KiB packed, so the kernels, not memory, are timed).
const VALUES: usize = 1 << 16;

/// Short runs so that every bench together finishes in a few minutes; the command line's
/// criterion options (`--measurement-time`, `--sample-size`, ...) override these.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

/// `VALUES` values below 2^bits and the same values packed at `bits`.
fn packed(bits: u32) -> (Vec<u64>, Vec<u64>) {
    let input = values(VALUES, bits);
    let mut words = vec![0u64; codec::storage_words(VALUES, bits).expect("small input")];
    codec::pack_into(&mut words, bits, input.iter().copied());
    (input, words)
}

fn pack(c: &mut Criterion) {
    let mut group = c.benchmark_group("pack");
    group.throughput(Throughput::Elements(VALUES as u64));
    for level in KernelLevel::supported() {
        for bits in WIDTHS {
            let (input, mut words) = packed(bits);
            group.bench_function(BenchmarkId::new(level.name(), bits), |b| {
                b.iter(|| codec::pack_slice_with(level, black_box(&mut words), bits, &input))
            });
        }
    }
    group.finish();
}

fn unpack(c: &mut Criterion) {
    let mut group = c.benchmark_group("unpack");
    group.throughput(Throughput::Elements(VALUES as u64));
    for level in KernelLevel::supported() {
        for bits in WIDTHS {
            let (input, words) = packed(bits);
            let mut out = vec![0u64; VALUES];
            codec::unpack_range_with(level, &words, bits, 0, &mut out);
            assert_eq!(out, input, "{} at {bits} bits", level.name());
            group.bench_function(BenchmarkId::new(level.name(), bits), |b| {
                b.iter(|| codec::unpack_range_with(level, black_box(&words), bits, 0, &mut out))
            });
        }
    }
    group.finish();
}

fn sum(c: &mut Criterion) {
    let mut group = c.benchmark_group("sum");
    group.throughput(Throughput::Elements(VALUES as u64));
    for level in KernelLevel::supported() {
        for bits in WIDTHS {
            let (input, words) = packed(bits);
            let expected = input.iter().fold(0u64, |s, &v| s.wrapping_add(v));
            assert_eq!(
                codec::sum_range_with(level, &words, bits, 0, VALUES),
                expected,
                "{} at {bits} bits",
                level.name()
            );
            group.bench_function(BenchmarkId::new(level.name(), bits), |b| {
                b.iter(|| codec::sum_range_with(level, black_box(&words), bits, 0, VALUES))
            });
        }
    }
    group.finish();
}

// What `criterion_group!` and `criterion_main!` expand to, written out so the bench has no
// undocumented public function.
fn main() {
    let mut criterion = config().configure_from_args();
    pack(&mut criterion);
    unpack(&mut criterion);
    sum(&mut criterion);
    criterion.final_summary();
}
