//! Shared block kernels: predicates in code space evaluated on packed smart arrays a block of
//! [`BLOCK`] values at a time, the key space that every integer-like type is mapped into, and
//! the helpers that build the smart arrays under every encoding.

use smartarrays::codec;
use smartarrays::{ArrayOptions, ArrayView, Compression, SmartArray};

use crate::error::Result;
use crate::selection::{words_from_predicate, Selection};

/// Values decoded per step by the scans (the core's range unpack into a stack buffer).
pub const BLOCK: usize = smartarrays::array::VISIT_CHUNK;

const SIGN: u64 = 1 << 63;

/// Order-preserving key of a signed integer: `a < b` exactly when `key(a) < key(b)` (the sign
/// bit flipped). Int64, Decimal and Date32 columns store keys, so one set of unsigned
/// encodings and filters serves them all.
///
/// # Example
/// ```
/// use smartarrays_encodings::kernel::{i64_from_key, key_from_i64};
/// assert!(key_from_i64(-1) < key_from_i64(0));
/// assert_eq!(key_from_i64(i64::MIN), 0);
/// assert_eq!(i64_from_key(key_from_i64(-7)), -7);
/// ```
pub const fn key_from_i64(value: i64) -> u64 {
    (value as u64) ^ SIGN
}

/// The signed integer of a key made by [`key_from_i64`].
pub const fn i64_from_key(key: u64) -> i64 {
    (key ^ SIGN) as i64
}

/// Order-preserving key of a double in IEEE total order (`f64::total_cmp`): `-NaN < -inf <
/// ... < -0.0 < +0.0 < ... < inf < NaN`. Every bit pattern (NaN payloads included) maps to a
/// distinct key and back.
///
/// # Example
/// ```
/// use smartarrays_encodings::kernel::{f64_from_key, key_from_f64};
/// assert!(key_from_f64(-0.0) < key_from_f64(0.0));
/// assert!(key_from_f64(f64::INFINITY) < key_from_f64(f64::NAN));
/// assert_eq!(f64_from_key(key_from_f64(-2.5)), -2.5);
/// ```
pub const fn key_from_f64(value: f64) -> u64 {
    let bits = value.to_bits();
    if bits & SIGN != 0 {
        !bits
    } else {
        bits | SIGN
    }
}

/// The double of a key made by [`key_from_f64`] (bit-exact).
pub const fn f64_from_key(key: u64) -> f64 {
    if key & SIGN != 0 {
        f64::from_bits(key & !SIGN)
    } else {
        f64::from_bits(!key)
    }
}

/// A filter in key space, after a typed predicate was translated: inclusive key bounds, a
/// sorted list of keys, or nothing (a constant outside the domain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyFilter {
    /// No row can match.
    Nothing,
    /// Keys in `lo..=hi`.
    Range {
        /// Smallest matching key.
        lo: u64,
        /// Largest matching key.
        hi: u64,
    },
    /// Keys in this sorted, duplicate-free list.
    In(Vec<u64>),
}

impl KeyFilter {
    /// Whether `key` passes (the plain, one-value form of the filter).
    pub fn matches(&self, key: u64) -> bool {
        match self {
            KeyFilter::Nothing => false,
            KeyFilter::Range { lo, hi } => (*lo..=*hi).contains(&key),
            KeyFilter::In(keys) => keys.binary_search(&key).is_ok(),
        }
    }
}

/// Rows from which a filter runs in parallel on the array's runtime.
pub const PARALLEL_FILTER_ROWS: usize = 1 << 16;

/// Rows per parallel filter batch (a multiple of 64, so each batch owns whole selection words).
const FILTER_BATCH_ROWS: usize = 1 << 16;

/// A predicate on the stored codes of one encoding (offsets, dictionary codes), made from a
/// [`KeyFilter`] by translating its constants once.
#[derive(Clone, Debug)]
pub(crate) enum CodePredicate {
    Nothing,
    Range(u64, u64),
    Sorted(Vec<u64>),
    /// A bitset over a small code domain (dictionary codes).
    Mask(Vec<u64>),
}

impl CodePredicate {
    /// Codes in `codes` (sorted, duplicate-free) in the best form for a domain of
    /// `domain` codes (`None`: unbounded).
    pub(crate) fn from_codes(codes: Vec<u64>, domain: Option<usize>) -> CodePredicate {
        match (codes.len(), domain) {
            (0, _) => CodePredicate::Nothing,
            (1, _) => CodePredicate::Range(codes[0], codes[0]),
            (n, _) if codes[n - 1] - codes[0] == n as u64 - 1 => {
                CodePredicate::Range(codes[0], codes[n - 1])
            }
            (_, Some(domain)) if domain <= 1 << 24 => {
                let mut mask = vec![0u64; domain.div_ceil(64)];
                for &code in &codes {
                    mask[(code / 64) as usize] |= 1 << (code % 64);
                }
                CodePredicate::Mask(mask)
            }
            _ => CodePredicate::Sorted(codes),
        }
    }

    pub(crate) fn matches(&self, code: u64) -> bool {
        match self {
            CodePredicate::Nothing => false,
            CodePredicate::Range(lo, hi) => code.wrapping_sub(*lo) <= hi - lo,
            CodePredicate::Sorted(codes) => codes.binary_search(&code).is_ok(),
            CodePredicate::Mask(mask) => mask
                .get((code / 64) as usize)
                .is_some_and(|word| word >> (code % 64) & 1 == 1),
        }
    }

    /// Evaluates the predicate on every value of `array`, decoding a block at a time; from
    /// [`PARALLEL_FILTER_ROWS`] rows on, in parallel on the array's runtime (each worker reading
    /// its node's replica and writing its own words of the selection).
    pub(crate) fn evaluate(&self, array: &SmartArray) -> Result<Selection> {
        let rows = array.len();
        if matches!(self, CodePredicate::Nothing) {
            return Ok(Selection::none(rows));
        }
        let mut words = vec![0u64; rows.div_ceil(64)];
        if rows < PARALLEL_FILTER_ROWS {
            self.fill(array.local(), 0, &mut words)?;
        } else {
            array.runtime().map_reduce_mut(
                &mut words,
                FILTER_BATCH_ROWS / 64,
                || Ok(()),
                |done: Result<()>, worker, range, piece| {
                    done.and_then(|()| self.fill(array.for_worker(worker), range.start * 64, piece))
                },
                |a, b| a.and(b),
            )?;
        }
        Ok(Selection::from_words(words, rows))
    }

    /// Writes the selection words of rows `first..` (`words.len() * 64` rows, or up to the end
    /// of the array) from `view`.
    fn fill(&self, view: ArrayView<'_>, first: usize, words: &mut [u64]) -> Result<()> {
        let end = (first + words.len() * 64).min(view.len());
        match self {
            CodePredicate::Range(lo, hi) => {
                let (lo, span) = (*lo, hi - lo);
                view.for_each_chunk(first..end, |at, values| {
                    words_from_predicate(values, words, at - first, |c| c.wrapping_sub(lo) <= span);
                })?;
            }
            _ => {
                view.for_each_chunk(first..end, |at, values| {
                    words_from_predicate(values, words, at - first, |c| self.matches(c));
                })?;
            }
        }
        Ok(())
    }
}

/// The options for a smart array under an encoding: the caller's placement, huge pages and
/// runtime, at exactly `bits` bits (encodings choose their widths themselves).
pub(crate) fn options_at(options: &ArrayOptions, bits: u32) -> ArrayOptions {
    options
        .clone()
        .compression(Compression::Exactly(bits.clamp(1, 64)))
}

/// The fewest bits that hold `value`.
pub(crate) fn bits_for(value: u64) -> u32 {
    codec::bits_needed(value)
}

/// Packs `len` values `value(i)` at the fewest bits that hold `largest`, in parallel.
pub(crate) fn pack(
    len: usize,
    largest: u64,
    options: &ArrayOptions,
    value: impl Fn(usize) -> u64 + Sync,
) -> Result<SmartArray> {
    Ok(SmartArray::from_fn(
        len,
        &options_at(options, bits_for(largest)),
        value,
    )?)
}

/// Values `indices` of `array`, checked (batched reads with prefetching).
pub(crate) fn gather(array: &SmartArray, indices: &[usize]) -> Result<Vec<u64>> {
    let mut out = vec![0u64; indices.len()];
    array.get_many(indices, &mut out)?;
    Ok(out)
}

/// Number of runs of equal neighbours in `array` (0 when empty).
pub(crate) fn run_count(array: &SmartArray) -> usize {
    let mut runs = 0usize;
    let mut previous: Option<u64> = None;
    let visited = array.for_each_chunk(0..array.len(), |_, values| {
        for &value in values {
            if previous != Some(value) {
                runs += 1;
                previous = Some(value);
            }
        }
    });
    debug_assert!(visited.is_ok());
    runs
}

/// Minimum and maximum of `array` (in parallel), `None` when empty.
pub(crate) fn min_max(array: &SmartArray) -> Option<(u64, u64)> {
    array.reduce(smartarrays::array::Threads::Array).minmax()
}

/// Exact sum of `array` (in parallel).
pub(crate) fn exact_sum(array: &SmartArray) -> u128 {
    array.reduce(smartarrays::array::Threads::Array).exact_sum()
}

/// A distinct-count sketch (k minimum values of a 64-bit mix): exact up to `K` distinct
/// values, an estimate with about 3% error above.
#[derive(Clone, Debug, Default)]
pub(crate) struct DistinctSketch {
    smallest: std::collections::BTreeSet<u64>,
}

const SKETCH_K: usize = 1024;

impl DistinctSketch {
    pub(crate) fn insert(&mut self, value: u64) {
        let hash = mix(value);
        if self.smallest.len() < SKETCH_K {
            self.smallest.insert(hash);
        } else if let Some(&largest) = self.smallest.last() {
            if hash < largest && self.smallest.insert(hash) {
                self.smallest.pop_last();
            }
        }
    }

    pub(crate) fn estimate(&self) -> u64 {
        if self.smallest.len() < SKETCH_K {
            return self.smallest.len() as u64;
        }
        let kth = self.smallest.last().copied().unwrap_or(u64::MAX).max(1);
        (((SKETCH_K - 1) as f64) * (u64::MAX as f64 / kth as f64)).round() as u64
    }
}

/// A 64-bit finaliser (splitmix64's): spreads any keys evenly for the sketch.
pub(crate) fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Positions of a spread-out sample of `len` rows: up to `segments` runs of `segment`
/// consecutive rows, evenly spaced (consecutive rows so that runs can be seen), all rows when
/// there are few.
pub(crate) fn sample_positions(len: usize, segments: usize, segment: usize) -> Vec<usize> {
    if len <= segments * segment {
        return (0..len).collect();
    }
    let stride = (len - segment) / (segments - 1).max(1);
    (0..segments)
        .flat_map(|s| {
            let start = s * stride;
            start..start + segment
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_keys_follow_total_order_for_every_special_value() {
        let mut values = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
        ];
        values.sort_by(f64::total_cmp);
        let keys: Vec<u64> = values.iter().map(|&v| key_from_f64(v)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        for &v in &values {
            assert_eq!(f64_from_key(key_from_f64(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn sketch_is_exact_when_small_and_close_when_large() {
        let mut small = DistinctSketch::default();
        (0..500u64).chain(0..500).for_each(|v| small.insert(v));
        assert_eq!(small.estimate(), 500);
        let mut large = DistinctSketch::default();
        (0..100_000u64).for_each(|v| large.insert(v * 7));
        let estimate = large.estimate() as f64;
        assert!((estimate - 100_000.0).abs() < 15_000.0, "{estimate}");
    }

    #[test]
    fn samples_cover_the_whole_column() {
        assert_eq!(sample_positions(10, 4, 64), (0..10).collect::<Vec<_>>());
        let sample = sample_positions(1_000_000, 64, 64);
        assert_eq!(sample.len(), 4096);
        assert!(*sample.last().unwrap() < 1_000_000);
        assert!(*sample.last().unwrap() > 990_000);
    }
}
