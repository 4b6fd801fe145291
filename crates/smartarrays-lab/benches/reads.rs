//! Criterion benches of reading a smart array, per width: random `get` and the batched
//! `get_many` (each next to the same reads from a `Vec<u64>`), and `par_sum`, the
//! parallel fused unpack-and-sum over the whole array.
//!
//! `get` decodes with the same scalar code at every kernel level, so it is measured per width
//! only. `get_many` (the codec's gather kernel) and `par_sum` use the process's kernel level: the
//! best this CPU has, lowered by `SMARTARRAYS_KERNEL=scalar|avx2|avx512`; to compare levels run
//! them once per level, e.g. `SMARTARRAYS_KERNEL=scalar cargo bench -p smartarrays-lab --bench
//! reads -- par_sum`. `par_sum` runs on the default runtime (one worker per CPU, or
//! `SMARTARRAYS_THREADS`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use smartarrays::{codec, ArrayOptions, SmartArray};
use smartarrays_lab::baselines::raw;

/// Widths measured: the smallest, a few odd ones, both sides of 32, and the widest.
const WIDTHS: [u32; 8] = [1, 7, 10, 31, 33, 50, 63, 64];

/// Values per array: 1 Mi (8 MiB as `Vec<u64>`, larger than most L2 caches).
const VALUES: usize = 1 << 20;

/// Random reads per iteration.
const READS: usize = 1 << 12;

/// Short runs so that every bench together finishes in a few minutes; the command line's
/// criterion options (`--measurement-time`, `--sample-size`, ...) override these.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

/// Value `i` of every array at `bits` (spread over the width's whole range).
fn value(bits: u32) -> impl Fn(usize) -> u64 {
    let mask = codec::max_value(bits);
    move |i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask
}

/// `READS` independent random indices below `VALUES` (a xorshift sequence).
fn indices() -> Vec<usize> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..READS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % VALUES as u64) as usize
        })
        .collect()
}

fn array(bits: u32) -> SmartArray {
    SmartArray::from_fn(VALUES, &ArrayOptions::new().bits(bits), value(bits)).expect("array")
}

fn get(c: &mut Criterion) {
    let indices = indices();
    let mut group = c.benchmark_group("get");
    group.throughput(Throughput::Elements(READS as u64));
    let plain: Vec<u64> = (0..VALUES).map(value(64)).collect();
    group.bench_function(BenchmarkId::new("vec_u64", 64), |b| {
        b.iter(|| raw::read_loop(black_box(&plain), &indices))
    });
    drop(plain);
    for bits in WIDTHS {
        let array = array(bits);
        let view = array.local();
        group.bench_function(BenchmarkId::new("smart_array", bits), |b| {
            b.iter(|| {
                indices.iter().fold(0u64, |s, &i| {
                    s.wrapping_add(black_box(&view).get(i).unwrap_or(0))
                })
            })
        });
    }
    group.finish();
}

fn get_many(c: &mut Criterion) {
    let indices = indices();
    let mut out = vec![0u64; READS];
    let mut group = c.benchmark_group("get_many");
    group.throughput(Throughput::Elements(READS as u64));
    let plain: Vec<u64> = (0..VALUES).map(value(64)).collect();
    group.bench_function(BenchmarkId::new("vec_u64_gather", 64), |b| {
        b.iter(|| raw::gather(black_box(&plain), &indices, &mut out))
    });
    drop(plain);
    for bits in WIDTHS {
        let array = array(bits);
        let view = array.local();
        group.bench_function(BenchmarkId::new("smart_array", bits), |b| {
            b.iter(|| {
                black_box(&view)
                    .get_many(&indices, &mut out)
                    .expect("indices in range");
                out[0]
            })
        });
    }
    group.finish();
}

fn par_sum(c: &mut Criterion) {
    let level = codec::detected_level();
    let mut group = c.benchmark_group("par_sum");
    group.throughput(Throughput::Elements(VALUES as u64));
    for bits in WIDTHS {
        let array = array(bits);
        group.bench_function(BenchmarkId::new(level.name(), bits), |b| {
            b.iter(|| black_box(&array).par_sum())
        });
    }
    group.finish();
}

// What `criterion_group!` and `criterion_main!` expand to, written out so the bench has no
// undocumented public function.
fn main() {
    let mut criterion = config().configure_from_args();
    get(&mut criterion);
    get_many(&mut criterion);
    par_sum(&mut criterion);
    criterion.final_summary();
}
