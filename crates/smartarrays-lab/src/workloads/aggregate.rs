//! The aggregation job of the paper (§5.1): two arrays `a1`, `a2` with
//! `a[i] = (i + r) & (2^bits - 1)` for a pseudo-random `r` in {0, 1, 2}, summed in parallel as
//! `sum += a1[i] + a2[i]`; plus the same job over plain `Vec<u64>` / `Vec<u32>` as the baseline.

use std::ops::Range;
use std::sync::Arc;

use smartarrays::array::PARALLEL_BATCH;
use smartarrays::{codec, ArrayOptions, Result, Runtime, SmartArray};

/// The job's value at index `i` of array `which` (0 or 1): deterministic for a `seed`, so every
/// layout and the baselines see identical data.
#[inline]
pub fn value(seed: u64, which: u64, index: usize, bits: u32) -> u64 {
    let noise = mix(seed ^ which.wrapping_mul(0xA24B_AED4_963E_E407) ^ index as u64) % 3;
    (index as u64).wrapping_add(noise) & codec::max_value(bits)
}

/// SplitMix64 finaliser: a fast, well-distributed hash of a 64-bit value.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Values of each array summed before switching to the other (one 4 KiB page at 64 bits;
/// measured: 512 values 1.02-1.04x the raw scan at 1 thread, 1024 1.04-1.09x, 4096 0.89x).
const STEP: usize = 512;

/// The two input arrays of the job.
#[derive(Debug)]
pub struct AggregateInput {
    /// First array.
    pub a1: SmartArray,
    /// Second array.
    pub a2: SmartArray,
}

impl AggregateInput {
    /// Generates both arrays with `len` values at `bits` bits and the given options (the width
    /// in `options` is replaced by `bits`).
    pub fn generate(
        len: usize,
        bits: u32,
        seed: u64,
        options: &ArrayOptions,
    ) -> Result<AggregateInput> {
        let options = options.clone().bits(bits);
        let a1 = SmartArray::from_fn(len, &options, |i| value(seed, 0, i, bits))?;
        let a2 = SmartArray::from_fn(len, &options, |i| value(seed, 1, i, bits))?;
        Ok(AggregateInput { a1, a2 })
    }

    /// `sum(a1[i] + a2[i])` over all `i`, wrapping, in parallel on the arrays' runtime: each
    /// worker claims batches and runs the fused unpack-and-sum kernel on its node's replicas.
    pub fn parallel_sum(&self) -> u64 {
        let runtime = Arc::clone(self.a1.runtime());
        runtime.map_reduce(
            0..self.a1.len(),
            PARALLEL_BATCH,
            || 0u64,
            |mut sum, worker, range: Range<usize>| {
                let (a1, a2) = (self.a1.for_worker(worker), self.a2.for_worker(worker));
                // Both arrays are read in step, a few pages of each at a time, as the raw loop
                // reads `a1[i] + a2[i]`: two streams in flight keep more memory requests
                // outstanding than one array's whole batch followed by the other's.
                for start in range.clone().step_by(STEP) {
                    let part = start..(start + STEP).min(range.end);
                    let first = a1
                        .sum_range(part.clone())
                        .expect("the batch lies within a1");
                    let second = a2.sum_range(part).expect("a2 is as long as a1");
                    sum = sum.wrapping_add(first).wrapping_add(second);
                }
                sum
            },
            u64::wrapping_add,
        )
    }

    /// Bytes of memory both arrays occupy.
    pub fn memory_bytes(&self) -> usize {
        self.a1.memory_bytes() + self.a2.memory_bytes()
    }
}

/// The job over plain vectors of `T` (`u64`, or `u32` for widths up to 32): the baseline.
#[derive(Debug)]
pub struct RawInput<T> {
    /// First vector.
    pub a1: Vec<T>,
    /// Second vector.
    pub a2: Vec<T>,
}

impl<T: Copy + Default + Into<u64> + Send + Sync + TryFrom<u64>> RawInput<T> {
    /// Generates the same values as [`AggregateInput::generate`] into plain vectors, in parallel.
    /// Returns `None` when a value does not fit in `T`.
    pub fn generate(runtime: &Runtime, len: usize, bits: u32, seed: u64) -> Option<RawInput<T>> {
        let build = |which: u64| -> Option<Vec<T>> {
            let mut values = vec![T::default(); len];
            let fits = runtime.map_reduce_mut(
                &mut values,
                PARALLEL_BATCH,
                || true,
                |fits, _, range, piece| {
                    let mut all = fits;
                    for (slot, i) in piece.iter_mut().zip(range) {
                        match T::try_from(value(seed, which, i, bits)) {
                            Ok(v) => *slot = v,
                            Err(_) => all = false,
                        }
                    }
                    all
                },
                |a, b| a && b,
            );
            fits.then_some(values)
        };
        Some(RawInput {
            a1: build(0)?,
            a2: build(1)?,
        })
    }

    /// `sum(a1[i] + a2[i])`, wrapping, in parallel with the same batches as the smart array job.
    pub fn parallel_sum(&self, runtime: &Runtime) -> u64 {
        runtime.map_reduce(
            0..self.a1.len(),
            PARALLEL_BATCH,
            || 0u64,
            |sum, _, range| {
                let (first, second) = (&self.a1[range.clone()], &self.a2[range]);
                first.iter().zip(second).fold(sum, |s, (&x, &y)| {
                    s.wrapping_add(x.into()).wrapping_add(y.into())
                })
            },
            u64::wrapping_add,
        )
    }

    /// Bytes both vectors occupy.
    pub fn memory_bytes(&self) -> usize {
        (self.a1.len() + self.a2.len()) * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartarrays::Placement;

    #[test]
    fn smart_and_raw_jobs_agree_at_every_paper_width_and_placement() {
        let runtime = Arc::new(Runtime::with_threads(3).unwrap());
        for bits in [10, 31, 32, 33, 50, 63, 64] {
            let raw = RawInput::<u64>::generate(&runtime, 100_003, bits, 7).unwrap();
            let expected = raw.parallel_sum(&runtime);
            let sequential = (0..100_003).fold(0u64, |s, i| {
                s.wrapping_add(value(7, 0, i, bits))
                    .wrapping_add(value(7, 1, i, bits))
            });
            assert_eq!(expected, sequential);
            if bits <= 32 {
                let narrow = RawInput::<u32>::generate(&runtime, 100_003, bits, 7).unwrap();
                assert_eq!(narrow.parallel_sum(&runtime), expected);
            }
            for placement in Placement::all(runtime.topology()) {
                let options = ArrayOptions::new()
                    .placement(placement)
                    .runtime(Arc::clone(&runtime));
                let input = AggregateInput::generate(100_003, bits, 7, &options).unwrap();
                assert_eq!(input.parallel_sum(), expected, "bits {bits}");
            }
        }
    }
}
