//! The paper's aggregation job (§5.1, Figure 10) over bit widths and placements
//! (`smartarrays bench aggregate`). Every configuration is checked against, and timed next to,
//! the same job over plain `Vec<u64>` (and `Vec<u32>` for widths up to 32) generated from the
//! same values in the same run.

use std::sync::Arc;

use smartarrays::{ArrayOptions, Placement, Runtime};

use crate::measure::{time, Timings};
use crate::workloads::aggregate::{AggregateInput, RawInput};
use crate::Result;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateSettings {
    /// Values per array (the job reads two arrays).
    pub elements: usize,
    /// Untimed runs before measuring (the paper uses 5).
    pub warmups: usize,
    /// Measured runs; the median is reported (the paper uses 10).
    pub repetitions: usize,
    /// Bit widths to run.
    pub bits: Vec<u32>,
    /// Placements of the smart arrays.
    pub placements: Vec<Placement>,
    /// Seed of the job's pseudo-random data.
    pub seed: u64,
}

/// One measured configuration.
#[derive(Clone, Debug)]
pub struct AggregateRow {
    /// Data width.
    pub bits: u32,
    /// "raw-u64", "raw-u32" or the smart arrays' placement.
    pub series: String,
    /// Every measured run.
    pub timings: Timings,
    /// Bytes of the two arrays.
    pub memory_bytes: usize,
    /// Median time of the raw `Vec<u64>` job over this row's median (above 1: faster than it).
    pub vs_raw_u64: f64,
    /// The same against the raw `Vec<u32>` job, for widths up to 32.
    pub vs_raw_u32: Option<f64>,
}

/// Runs the job at every width of `settings`: the raw u64 baseline, the raw u32 one (widths up
/// to 32), then the smart arrays at every placement, in that order (the rows' order). `progress`
/// hears one line per configuration, numbered out of widths x (placements + 2).
pub fn run(
    runtime: &Arc<Runtime>,
    settings: &AggregateSettings,
    progress: &dyn Fn(String),
) -> Result<Vec<AggregateRow>> {
    let mut rows = Vec::new();
    let total = settings.bits.len() * (settings.placements.len() + 2);
    let mut step = 0;
    for &bits in &settings.bits {
        step += 1;
        progress(format!("[{step}/{total}] bits {bits}: raw u64 baseline"));
        let raw64 = RawInput::<u64>::generate(runtime, settings.elements, bits, settings.seed)
            .ok_or("raw u64 generation failed")?;
        let (raw64_time, expected) = time(settings.warmups, settings.repetitions, || {
            raw64.parallel_sum(runtime)
        });
        let raw64_memory = raw64.memory_bytes();
        drop(raw64);
        let raw64_median = raw64_time.median().as_secs_f64();
        let row = |series: &str, timings: Timings, memory_bytes: usize, raw32: Option<f64>| {
            let median = timings.median().as_secs_f64();
            AggregateRow {
                bits,
                series: series.to_string(),
                timings,
                memory_bytes,
                vs_raw_u64: raw64_median / median,
                vs_raw_u32: raw32.map(|t| t / median),
            }
        };
        let mut raw32_median = None;
        let raw32_row = if bits <= 32 {
            step += 1;
            progress(format!("[{step}/{total}] bits {bits}: raw u32 baseline"));
            let raw32 = RawInput::<u32>::generate(runtime, settings.elements, bits, settings.seed)
                .ok_or("raw u32 generation failed")?;
            let (timings, sum) = time(settings.warmups, settings.repetitions, || {
                raw32.parallel_sum(runtime)
            });
            check(sum, expected, bits, "raw u32")?;
            raw32_median = Some(timings.median().as_secs_f64());
            Some((timings, raw32.memory_bytes()))
        } else {
            step += 1;
            None
        };
        rows.push(row("raw-u64", raw64_time, raw64_memory, raw32_median));
        if let Some((timings, memory)) = raw32_row {
            rows.push(row("raw-u32", timings, memory, raw32_median));
        }
        for placement in &settings.placements {
            step += 1;
            progress(format!(
                "[{step}/{total}] bits {bits}: smart array, placement {placement}"
            ));
            let options = ArrayOptions::new()
                .placement(placement.clone())
                .runtime(Arc::clone(runtime));
            let input = AggregateInput::generate(settings.elements, bits, settings.seed, &options)?;
            let (timings, sum) = time(settings.warmups, settings.repetitions, || {
                input.parallel_sum()
            });
            check(sum, expected, bits, &placement.to_string())?;
            rows.push(row(
                &placement.to_string(),
                timings,
                input.memory_bytes(),
                raw32_median,
            ));
        }
    }
    Ok(rows)
}

fn check(sum: u64, expected: u64, bits: u32, what: &str) -> Result<()> {
    if sum != expected {
        return Err(
            format!("wrong result at {bits} bits for {what}: {sum} instead of {expected}").into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn rows_come_baselines_first_and_progress_counts_every_configuration() {
        let runtime = Arc::new(Runtime::with_threads(2).unwrap());
        let settings = AggregateSettings {
            elements: 3001,
            warmups: 0,
            repetitions: 1,
            bits: vec![10, 64],
            placements: vec![Placement::Interleaved(Vec::new())],
            seed: 7,
        };
        let lines = RefCell::new(Vec::new());
        let rows = run(&runtime, &settings, &|line| lines.borrow_mut().push(line)).unwrap();
        let series: Vec<(u32, &str)> = rows.iter().map(|r| (r.bits, r.series.as_str())).collect();
        assert_eq!(
            series,
            [
                (10, "raw-u64"),
                (10, "raw-u32"),
                (10, "interleaved"),
                (64, "raw-u64"),
                (64, "interleaved")
            ]
        );
        assert!(rows[0].vs_raw_u32.is_some() && rows[3].vs_raw_u32.is_none());
        assert!(rows.iter().all(|r| r.memory_bytes > 0));
        let lines = lines.into_inner();
        assert_eq!(lines.len(), 5);
        assert!(lines[4].starts_with("[6/6] bits 64"), "{lines:?}");
    }
}
