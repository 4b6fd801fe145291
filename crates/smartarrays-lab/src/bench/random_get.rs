//! Random single-value reads from a compressed smart array against random reads from a raw
//! `Vec<u64>` of the same values (`smartarrays bench random-get`), with independent (not
//! pointer-chasing) accesses, single-threaded: checked `get`, `get_unchecked`, and the batched
//! `get_many` against a raw gather loop into a buffer.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use smartarrays::{codec, ArrayOptions, Runtime, SmartArray};

use crate::baselines::raw;
use crate::measure::{time, Timings};
use crate::Result;

/// One width's figures: nanoseconds per read (medians over the runs) and the memory of each
/// side.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomGetRow {
    /// Width of the smart array.
    pub bits: u32,
    /// A read loop over the `Vec<u64>` (allocator memory).
    pub raw_ns: f64,
    /// The same loop over the same values in huge-page memory (a 64-bit smart array read as a
    /// plain slice), to tell the effect of huge pages on the TLB from that of compression.
    pub raw_huge_ns: f64,
    /// Checked `get` (`value`) on the smart array.
    pub get_ns: f64,
    /// `get_unchecked` on the smart array.
    pub get_unchecked_ns: f64,
    /// A gather loop from the `Vec<u64>` into a buffer.
    pub raw_gather_ns: f64,
    /// The smart array's batched `get_many` (the codec's gather kernel) into the same buffer.
    pub get_many_ns: f64,
    /// Bytes of the `Vec<u64>`.
    pub raw_bytes: usize,
    /// Bytes of the smart array.
    pub smart_bytes: usize,
}

/// The benchmark's fixed parts: a one-thread runtime and the random indices every way of
/// reading uses.
pub struct RandomGet {
    runtime: Arc<Runtime>,
    elements: usize,
    indices: Vec<usize>,
}

impl RandomGet {
    /// Arrays of `elements` values, `reads` independent random reads per run.
    pub fn new(elements: usize, reads: usize) -> Result<RandomGet> {
        if elements == 0 {
            return Err("random reads need at least one value".into());
        }
        let runtime = Arc::new(Runtime::with_threads(1)?);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let indices: Vec<usize> = (0..reads)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % elements as u64) as usize
            })
            .collect();
        Ok(RandomGet {
            runtime,
            elements,
            indices,
        })
    }

    /// Measures every way of reading at `bits`, `repetitions` counted rounds after one warm-up
    /// round; in each round every way runs once, in turn, so background load hits all alike.
    /// Every way's sum is checked against the others'.
    pub fn measure(&self, bits: u32, repetitions: usize) -> Result<RandomGetRow> {
        codec::check_bits(bits)?;
        let (elements, indices) = (self.elements, &self.indices);
        let mask = codec::max_value(bits);
        let value = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
        let raw: Vec<u64> = (0..elements).map(value).collect();
        let huge = SmartArray::from_fn(
            elements,
            &ArrayOptions::new().bits(64).runtime(self.runtime.clone()),
            value,
        )?;
        let array = SmartArray::from_fn(
            elements,
            &ArrayOptions::new().bits(bits).runtime(self.runtime.clone()),
            value,
        )?;
        let view = array.local();
        let (raw_reader, view_reader) = (black_box(&raw), black_box(view));
        let huge_reader = black_box(huge.local().as_native::<u64>().expect("a 64-bit array"));
        let mut gathered = vec![0u64; indices.len()];
        let mut ways: [Vec<Duration>; 6] = Default::default();
        for round in 0..repetitions.max(1) + 1 {
            let mut sums = [0u64; 6];
            for (way, samples) in ways.iter_mut().enumerate() {
                let (timing, sum) = time(0, 1, || match way {
                    0 => raw::read_loop(raw_reader, indices),
                    1 => raw::read_loop(huge_reader, indices),
                    2 => indices
                        .iter()
                        .fold(0u64, |s, &i| s.wrapping_add(view_reader.value(i))),
                    3 => indices.iter().fold(0u64, |s, &i| {
                        // SAFETY: every index was drawn below `elements`, the array's length.
                        s.wrapping_add(unsafe { view_reader.get_unchecked(i) })
                    }),
                    4 => raw::gather(raw_reader, indices, &mut gathered),
                    _ => {
                        view_reader
                            .get_many(indices, &mut gathered)
                            .expect("indices in range");
                        raw::sum(&gathered)
                    }
                });
                sums[way] = sum;
                // The first round warms every way up and is not counted.
                if round > 0 {
                    samples.extend(timing.samples);
                }
            }
            if sums.iter().any(|&s| s != sums[0]) {
                return Err(format!("random reads disagree at {bits} bits: {sums:?}").into());
            }
        }
        drop(huge);
        let raw_bytes = raw.len() * 8;
        drop(raw);
        let [raw_ns, raw_huge_ns, get_ns, get_unchecked_ns, raw_gather_ns, get_many_ns] =
            ways.map(|samples| {
                let median = Timings { samples }.median();
                median.as_secs_f64() * 1e9 / indices.len() as f64
            });
        Ok(RandomGetRow {
            bits,
            raw_ns,
            raw_huge_ns,
            get_ns,
            get_unchecked_ns,
            raw_gather_ns,
            get_many_ns,
            raw_bytes,
            smart_bytes: array.memory_bytes(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_way_of_reading_is_timed_and_agrees() {
        let bench = RandomGet::new(5000, 1000).unwrap();
        for bits in [7, 64] {
            let row = bench.measure(bits, 1).unwrap();
            assert_eq!((row.bits, row.raw_bytes), (bits, 5000 * 8));
            assert!(row.get_ns > 0.0 && row.get_many_ns > 0.0 && row.smart_bytes > 0);
        }
        assert!(bench.measure(65, 1).is_err());
        assert!(RandomGet::new(0, 10).is_err());
    }
}
