//! Single-threaded codec kernels against their baselines (`smartarrays bench kernels`): fused
//! unpack-and-sum against the fastlanes crate and a raw `&[u64]` sum, per width, for a
//! cache-resident and a memory-sized input ([`sums`]); then, cache-resident, packing
//! (`pack_slice` against the scalar encoder and fastlanes' `pack`) and the fused
//! decode-and-difference kernel against decoding then subtracting ([`writes`]).

use std::hint::black_box;

use smartarrays::codec::{self, KernelLevel};

use super::values;
use crate::baselines::{fastlanes, raw};
use crate::measure::time;
use crate::Result;

/// Sizes and repetitions of the kernel benchmarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSettings {
    /// Values in the cache-resident input (rounded up to 1024).
    pub cache_values: usize,
    /// Values in the memory-sized input (rounded up to 1024).
    pub memory_values: usize,
    /// Values decoded per timed run (small inputs are summed repeatedly to reach it).
    pub values_per_run: usize,
    /// Measured runs per configuration (the median is reported).
    pub repetitions: usize,
}

/// Fused unpack-and-sum at one width on one input; rates in billions of values per second.
#[derive(Clone, Debug, PartialEq)]
pub struct SumRow {
    /// Lane type of the fastlanes baseline ("u64" or "u32").
    pub kind: &'static str,
    /// Width.
    pub bits: u32,
    /// Values in the input.
    pub values: usize,
    /// Which input: "cache" or "memory".
    pub input: &'static str,
    /// Our kernel at the chosen level.
    pub smartarrays: f64,
    /// Our scalar kernel.
    pub scalar: f64,
    /// fastlanes' `unpack!` with a summing body.
    pub fastlanes: f64,
    /// A raw `&[u64]` sum of the same number of values (the same for every width of an input).
    pub raw_u64: f64,
}

/// Packing and neighbour differences at one width, cache-resident; rates in billions of values
/// per second.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteRow {
    /// Lane type of the fastlanes baseline ("u64" or "u32").
    pub kind: &'static str,
    /// Width.
    pub bits: u32,
    /// Values in the input.
    pub values: usize,
    /// `pack_slice` at the chosen level.
    pub pack: f64,
    /// `pack_slice` at the scalar level.
    pub pack_scalar: f64,
    /// fastlanes' `pack`.
    pub pack_fastlanes: f64,
    /// The fused decode-and-difference kernel.
    pub differences_fused: f64,
    /// Decoding into a buffer, then subtracting.
    pub differences_two_pass: f64,
}

/// Fused unpack-and-sum of every width of [`fastlanes::CASES`] with our kernels at `level` and
/// at the scalar level, fastlanes and a raw sum, on the cache-resident input, then the
/// memory-sized one. Every sum is checked against the input's.
pub fn sums(settings: &KernelSettings, level: KernelLevel) -> Result<Vec<SumRow>> {
    let mut rows = Vec::new();
    for (size_name, requested) in [
        ("cache", settings.cache_values),
        ("memory", settings.memory_values),
    ] {
        let count = requested.next_multiple_of(1024);
        // Repeat small inputs so each timed run lasts long enough to measure.
        let rounds = (settings.values_per_run / count).max(1);
        let raw_values = values(count, 64);
        let (raw_time, _) = time(2, settings.repetitions, || {
            (0..rounds).fold(0u64, |s, _| {
                s.wrapping_add(raw::sum(black_box(&raw_values)))
            })
        });
        let raw_rate = (count * rounds) as f64 / raw_time.median().as_secs_f64() / 1e9;
        drop(raw_values);
        for (kind, bits) in fastlanes::CASES {
            let input = values(count, bits);
            let expected = input.iter().fold(0u64, |s, &v| s.wrapping_add(v));
            let mut words = vec![0u64; codec::storage_words(count, bits).ok_or("size overflow")?];
            codec::pack_into(&mut words, bits, input.iter().copied());
            let mut baseline = fastlanes::baselines(kind, bits, &input)
                .ok_or("no fastlanes case")?
                .sum;
            let rate = |seconds: f64| (count * rounds) as f64 / seconds / 1e9;
            let (ours, sum) = time(2, settings.repetitions, || {
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
            let (scalar, scalar_sum) = time(1, settings.repetitions.min(5), || {
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
            let (theirs, their_sum) = time(2, settings.repetitions, || {
                (0..rounds).fold(0u64, |s, _| s.wrapping_add(baseline()))
            });
            // Every timed run sums the input `rounds` times.
            let repeated = (0..rounds).fold(0u64, |s, _| s.wrapping_add(expected));
            if sum != repeated || scalar_sum != repeated || their_sum != repeated {
                return Err(format!("kernel sums disagree at {kind} {bits} bits").into());
            }
            rows.push(SumRow {
                kind,
                bits,
                values: count,
                input: size_name,
                smartarrays: rate(ours.median().as_secs_f64()),
                scalar: rate(scalar.median().as_secs_f64()),
                fastlanes: rate(theirs.median().as_secs_f64()),
                raw_u64: raw_rate,
            });
        }
    }
    Ok(rows)
}

/// Packing and neighbour differences of every width of [`fastlanes::CASES`] on the
/// cache-resident input. The packed words are checked against the reference encoder and the
/// fused differences against the two-pass ones.
pub fn writes(settings: &KernelSettings, level: KernelLevel) -> Result<Vec<WriteRow>> {
    let count = settings.cache_values.next_multiple_of(1024);
    let rounds = (settings.values_per_run / count).max(1);
    let rate = |seconds: f64| (count * rounds) as f64 / seconds / 1e9;
    let mut rows = Vec::new();
    for (kind, bits) in fastlanes::CASES {
        let input = values(count, bits);
        let storage = codec::storage_words(count, bits).ok_or("size overflow")?;
        let mut reference = vec![0u64; storage];
        codec::pack_into(&mut reference, bits, input.iter().copied());
        let mut words = vec![0u64; storage];
        let (ours, _) = time(2, settings.repetitions, || {
            (0..rounds).fold(0, |s, _| {
                s + codec::pack_slice_with(level, black_box(&mut words), bits, black_box(&input))
            })
        });
        let (scalar, _) = time(1, settings.repetitions.min(5), || {
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
        let mut baseline = fastlanes::baselines(kind, bits, &input)
            .ok_or("no fastlanes case")?
            .pack;
        let (theirs, _) = time(2, settings.repetitions, || {
            (0..rounds).fold(0u64, |s, _| s.wrapping_add(baseline()))
        });
        // Differences of all but the last value: fused, then decode into a buffer and subtract.
        let mut out = vec![0u64; count - 1];
        let mut buffer = vec![0u64; count];
        let (fused, _) = time(2, settings.repetitions, || {
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
        let (two_pass, _) = time(2, settings.repetitions, || {
            for _ in 0..rounds {
                codec::unpack_range_with(level, black_box(&reference), bits, 0, &mut buffer);
                codec::differences_with(level, &buffer, &mut out, codec::Combine::Overwrite);
            }
            out[0]
        });
        if fused_out != out {
            return Err(format!("fused differences disagree at {bits} bits").into());
        }
        rows.push(WriteRow {
            kind,
            bits,
            values: count,
            pack: rate(ours.median().as_secs_f64()),
            pack_scalar: rate(scalar.median().as_secs_f64()),
            pack_fastlanes: rate(theirs.median().as_secs_f64()),
            differences_fused: rate(fused.median().as_secs_f64()),
            differences_two_pass: rate(two_pass.median().as_secs_f64()),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_runs_give_a_row_per_width_and_input() {
        let settings = KernelSettings {
            cache_values: 1024,
            memory_values: 2048,
            values_per_run: 2048,
            repetitions: 1,
        };
        let level = codec::detected_level();
        let sums = sums(&settings, level).unwrap();
        assert_eq!(sums.len(), 2 * fastlanes::CASES.len());
        assert!(sums
            .iter()
            .all(|r| r.smartarrays > 0.0 && r.fastlanes > 0.0));
        assert_eq!(sums[fastlanes::CASES.len()].input, "memory");
        let writes = writes(&settings, level).unwrap();
        assert_eq!(writes.len(), fastlanes::CASES.len());
        assert!(writes.iter().all(|r| r.values == 1024 && r.pack > 0.0));
    }
}
