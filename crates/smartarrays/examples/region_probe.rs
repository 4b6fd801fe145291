//! Measures what one parallel region costs: `cargo run --release -p smartarrays --example
//! region_probe -- [THREADS] [REGIONS]` runs REGIONS near-empty `for_each_batch` loops (two
//! batches of one index, so every worker may take part) and a few with a small amount of work
//! per batch, and prints the microseconds per region.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use smartarrays::Runtime;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = args.get(1).map_or(Ok(2), |t| t.parse())?;
    let regions: usize = args.get(2).map_or(Ok(20_000), |t| t.parse())?;
    let runtime = Runtime::with_threads(threads)?;
    let sink = AtomicU64::new(0);
    for (label, len, batch, spin) in [
        ("empty (2 x 1 index)", 2usize, 1usize, 0u64),
        ("64 batches of 64, no work", 4096, 64, 0),
        ("2 batches, 2 us each", 2, 1, 2_000),
        ("2 batches, 20 us each", 2, 1, 20_000),
    ] {
        let rounds = if spin >= 20_000 {
            regions / 20
        } else {
            regions
        };
        // Warm up, then time back-to-back regions.
        for _ in 0..rounds / 10 {
            runtime.for_each_batch(0..len, batch, |_, r| {
                sink.fetch_add(r.len() as u64, Ordering::Relaxed);
            });
        }
        let started = Instant::now();
        for _ in 0..rounds {
            runtime.for_each_batch(0..len, batch, |_, r| {
                if spin > 0 {
                    let until = Instant::now() + std::time::Duration::from_nanos(spin);
                    while Instant::now() < until {
                        black_box(());
                    }
                }
                sink.fetch_add(r.len() as u64, Ordering::Relaxed);
            });
        }
        let per = started.elapsed().as_secs_f64() / rounds as f64 * 1e6;
        println!("threads {threads} {label}: {per:.2} us per region ({rounds} regions)");
    }
    println!("checksum {}", sink.load(Ordering::Relaxed));
    Ok(())
}
