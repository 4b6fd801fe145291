//! Runs the collections benchmark (see `smartarrays_lab::collections_bench`):
//! `cargo run --release -p smartarrays-lab --example collections`. Sizes come from the
//! environment: `IN_CACHE` (default 1e6 keys), `OUT_OF_CACHE` (1e7), `TOKENS` (2e7),
//! `DISTINCT` (1e6); a size of 0 skips its section. Lines print as each section finishes.

use std::io::Write;

use smartarrays_lab::collections_bench::{run_with, Sizes};

fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(default, |v| v as usize)
}

fn main() {
    let sizes = Sizes {
        in_cache: size("IN_CACHE", 1_000_000),
        out_of_cache: size("OUT_OF_CACHE", 10_000_000),
        tokens: size("TOKENS", 20_000_000),
        distinct: size("DISTINCT", 1_000_000),
    };
    println!("{sizes:?}");
    run_with(&sizes, |line| {
        println!("{line}");
        let _ = std::io::stdout().flush();
    });
}
