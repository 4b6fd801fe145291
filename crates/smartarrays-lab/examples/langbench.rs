//! `langbench-rust`: the Rust row of the cross-language benchmark (the paper's Figure 3, run by
//! `bench/languages.sh`). It sums the same `N` values, on one thread, from a plain `Vec<u64>` (the
//! baseline) and from smart arrays at 64 bits (uncompressed) and 33 bits (compressed), through the
//! fused `sum`, the chunk visitor and the per-value iterator, and prints one
//! `RESULT language=rust variant=... bits=... n=... ns_per_element=... sum=...` line per variant
//! (its best of several timed rounds after a warm-up; the variants run round-robin, so load from
//! other processes hits all of them alike).
//!
//! Values are `v(i) = (i * 0x9E3779B97F4A7C15 mod 2^64) >> 31`, which spans the full 33 bits; every
//! language's part of the benchmark uses the same formula, so their sums agree.
//!
//! Usage: `langbench-rust [--n N] [--repetitions R]` (defaults: `N` from the environment or
//! 100,000,000; 5 repetitions).

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::{ArrayOptions, Runtime, RuntimeOptions, SmartArray};

/// The benchmark's value at index `i` (33 significant bits).
fn value(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 31
}

struct Settings {
    n: usize,
    repetitions: usize,
}

fn parse_settings() -> Result<Settings, String> {
    let mut n = match std::env::var("N") {
        Ok(text) if !text.is_empty() => parse_count(&text, "N")?,
        _ => 100_000_000,
    };
    let mut repetitions = 5;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--n" => n = parse_count(&args.next().ok_or("--n needs a value")?, "--n")?,
            "--repetitions" => {
                repetitions = parse_count(
                    &args.next().ok_or("--repetitions needs a value")?,
                    "--repetitions",
                )?
            }
            "-h" | "--help" => return Err("usage: langbench-rust [--n N] [--repetitions R]".into()),
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: langbench-rust [--n N] [--repetitions R]"
                ))
            }
        }
    }
    if n == 0 || repetitions == 0 {
        return Err("N and the repetition count must be at least 1".into());
    }
    Ok(Settings { n, repetitions })
}

fn parse_count(text: &str, what: &str) -> Result<usize, String> {
    text.replace('_', "")
        .parse()
        .map_err(|_| format!("{what} must be a positive whole number, not {text:?}"))
}

/// One measured way of summing the values.
struct Variant<'a> {
    name: &'static str,
    bits: u32,
    sum: Box<dyn Fn() -> u64 + 'a>,
    best: f64,
}

impl<'a> Variant<'a> {
    fn new(name: &'static str, bits: u32, sum: impl Fn() -> u64 + 'a) -> Self {
        Variant {
            name,
            bits,
            sum: Box::new(sum),
            best: f64::INFINITY,
        }
    }

    fn run_checked(&self, expected: u64) -> Result<f64, String> {
        let start = Instant::now();
        let total = black_box((self.sum)());
        let seconds = start.elapsed().as_secs_f64();
        if total != expected {
            return Err(format!(
                "{} at {} bits summed to {total}, expected {expected}",
                self.name, self.bits
            ));
        }
        Ok(seconds)
    }
}

/// Warms every variant up once, then times them round-robin (each round runs every variant once,
/// so load from other processes hits all alike) and prints each one's best round.
fn measure_all(
    settings: &Settings,
    expected: u64,
    variants: &mut [Variant<'_>],
) -> Result<(), String> {
    for variant in variants.iter() {
        variant.run_checked(expected)?;
    }
    for _ in 0..settings.repetitions {
        for variant in variants.iter_mut() {
            let seconds = variant.run_checked(expected)?;
            variant.best = variant.best.min(seconds);
        }
    }
    for variant in variants.iter() {
        println!(
            "RESULT language=rust variant={} bits={} n={} ns_per_element={:.4} sum={expected}",
            variant.name,
            variant.bits,
            settings.n,
            variant.best * 1e9 / settings.n as f64
        );
    }
    Ok(())
}

#[inline]
fn sum_chunks(array: &SmartArray) -> u64 {
    let mut total = 0u64;
    let visited = array.for_each_chunk(0..array.len(), |_, chunk| {
        total = total.wrapping_add(chunk.iter().copied().fold(0u64, u64::wrapping_add));
    });
    // An error cannot happen for the full range; a wrong sum would be reported by the check.
    visited.map_or(u64::MAX, |()| total)
}

fn run(settings: &Settings) -> Result<(), String> {
    // One worker: builds run on it, and every sum below runs on the calling thread.
    let runtime = Arc::new(
        Runtime::new(RuntimeOptions {
            threads: Some(1),
            ..Default::default()
        })
        .map_err(|e| e.to_string())?,
    );
    let values: Vec<u64> = (0..settings.n).map(value).collect();
    let expected = values.iter().copied().fold(0u64, u64::wrapping_add);
    let build = |bits: u32| {
        SmartArray::from_fn(
            settings.n,
            &ArrayOptions::new().bits(bits).runtime(Arc::clone(&runtime)),
            value,
        )
    };
    let wide = build(64).map_err(|e| e.to_string())?;
    let packed = build(33).map_err(|e| e.to_string())?;
    let mut variants = vec![Variant::new("vec", 64, || {
        black_box(&values)
            .iter()
            .copied()
            .fold(0u64, u64::wrapping_add)
    })];
    for array in [&wide, &packed] {
        let bits = array.bits();
        variants.push(Variant::new("smartarray_sum", bits, move || {
            black_box(array).sum()
        }));
        variants.push(Variant::new("smartarray_chunks", bits, move || {
            sum_chunks(black_box(array))
        }));
        variants.push(Variant::new("smartarray_iter", bits, move || {
            black_box(array).iter().fold(0u64, u64::wrapping_add)
        }));
    }
    measure_all(settings, expected, &mut variants)
}

fn main() -> ExitCode {
    match parse_settings().and_then(|settings| run(&settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("langbench-rust: {message}");
            ExitCode::FAILURE
        }
    }
}
