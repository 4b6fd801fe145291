//! Delta encoding of non-decreasing keys (sorted keys, row ids, timestamps): every value's
//! difference from the one before, bit-packed at the width of the largest difference, plus the
//! first value of each block of [`DELTA_BLOCK`] rows (bit-packed as an offset from the column's
//! first value). A sorted key column with small gaps needs the bits of its largest gap, where
//! frame of reference needs the bits of its whole range (TPC-H's `l_orderkey`: 3 bits against
//! 23).
//!
//! A random read adds at most `DELTA_BLOCK - 1` differences to its block's first value with the
//! core's fused unpack-and-sum; filters binary-search the block starts (the values are sorted),
//! so a range or an IN-list selects whole row ranges after decoding one block per bound.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::{check_indices, check_range, EncodingError, Result};
use crate::integer::KeyEncoding;
use crate::kernel::{self, KeyFilter, BLOCK};
use crate::selection::Selection;

/// Rows per block: a random read decodes at most this many differences.
pub const DELTA_BLOCK: usize = 128;

/// Block starts plus bit-packed differences of non-decreasing keys.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Delta, KeyEncoding, KeyFilter};
/// let keys: Vec<u64> = (0..1000).map(|i| 5_000_000 + 3 * i).collect();
/// let delta = Delta::new(&keys, &Default::default()).unwrap();
/// assert_eq!(delta.differences().bits(), 2); // gaps of 3
/// assert_eq!(delta.get(999).unwrap(), 5_002_997);
/// let rows = delta.filter(&KeyFilter::Range { lo: 5_000_010, hi: 5_000_020 }).unwrap();
/// assert_eq!(rows.row_ids(), vec![4, 5, 6]);
/// // Unsorted keys are refused, naming the first row out of order.
/// assert!(Delta::new(&[3, 2], &Default::default()).is_err());
/// ```
#[derive(Debug)]
pub struct Delta {
    pub(crate) len: usize,
    pub(crate) first: u64,
    pub(crate) last: u64,
    pub(crate) runs: usize,
    pub(crate) starts: SmartArray,
    pub(crate) differences: SmartArray,
}

impl Delta {
    /// Encodes `values`, which must be non-decreasing
    /// ([`EncodingError::EncodingNotApplicable`] names the first row that is not), placed by
    /// `options`.
    pub fn new(values: &[u64], options: &ArrayOptions) -> Result<Delta> {
        let mut largest = 0u64;
        let mut runs = usize::from(!values.is_empty());
        for (i, pair) in values.windows(2).enumerate() {
            let Some(step) = pair[1].checked_sub(pair[0]) else {
                return Err(EncodingError::EncodingNotApplicable {
                    encoding: "delta",
                    reason: format!(
                        "the values are not sorted: row {} ({}) is smaller than row {i} ({})",
                        i + 1,
                        pair[1],
                        pair[0]
                    ),
                });
            };
            runs += usize::from(step != 0);
            if (i + 1) % DELTA_BLOCK != 0 {
                largest = largest.max(step);
            }
        }
        let first = values.first().copied().unwrap_or(0);
        let last = values.last().copied().unwrap_or(0);
        let differences = kernel::pack(values.len(), largest, options, |i| {
            if i % DELTA_BLOCK == 0 {
                0
            } else {
                values[i] - values[i - 1]
            }
        })?;
        let starts = kernel::pack(
            values.len().div_ceil(DELTA_BLOCK),
            last - first,
            options,
            |b| values[b * DELTA_BLOCK] - first,
        )?;
        Ok(Delta {
            len: values.len(),
            first,
            last,
            runs,
            starts,
            differences,
        })
    }

    /// The differences from each previous value (0 at the first row of every block).
    pub fn differences(&self) -> &SmartArray {
        &self.differences
    }

    /// The first value of each block of [`DELTA_BLOCK`] rows, as offsets from the first value.
    pub fn block_starts(&self) -> &SmartArray {
        &self.starts
    }

    /// The first value of block `block`.
    fn block_start(&self, block: usize) -> Result<u64> {
        Ok(self.first + self.starts.get(block)?)
    }

    /// Value `index` (< len).
    fn value(&self, index: usize) -> Result<u64> {
        let block = index / DELTA_BLOCK;
        let start = block * DELTA_BLOCK;
        let base = self.block_start(block)?;
        if index == start {
            return Ok(base);
        }
        let steps = self.differences.local().sum_range(start + 1..index + 1)?;
        Ok(base + steps)
    }

    /// The first row whose value is not `below` (the values are sorted, so `below` holds for
    /// a prefix of the rows).
    fn partition_point(&self, below: impl Fn(u64) -> bool) -> Result<usize> {
        let blocks = self.starts.len();
        // Blocks whose first value is below: a prefix of the blocks.
        let (mut lo, mut hi) = (0usize, blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(self.block_start(mid)?) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == 0 {
            return Ok(0);
        }
        // The answer lies in block lo - 1, or is the start of block lo.
        let start = (lo - 1) * DELTA_BLOCK;
        let end = (start + DELTA_BLOCK).min(self.len);
        let mut values = [0u64; DELTA_BLOCK];
        self.unpack(start, &mut values[..end - start])?;
        let inside = values[..end - start].partition_point(|&v| below(v));
        Ok(start + inside)
    }

    /// Rows `first..end` of the keys in `lo..=hi`.
    fn rows_between(&self, lo: u64, hi: u64) -> Result<(usize, usize)> {
        let first = self.partition_point(|v| v < lo)?;
        let end = self.partition_point(|v| v <= hi)?;
        Ok((first, end.max(first)))
    }
}

impl KeyEncoding for Delta {
    fn name(&self) -> &'static str {
        "delta"
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> Result<u64> {
        check_indices(&[index], self.len)?;
        self.value(index)
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        let end = start.saturating_add(out.len());
        check_range(start, end, self.len)?;
        if out.is_empty() {
            return Ok(());
        }
        let mut value = self.value(start)?;
        out[0] = value;
        if end > start + 1 {
            let mut failed = None;
            self.differences
                .for_each_chunk(start + 1..end, |at, steps| {
                    for (k, &step) in steps.iter().enumerate() {
                        let row = at + k;
                        if row % DELTA_BLOCK == 0 {
                            match self.block_start(row / DELTA_BLOCK) {
                                Ok(base) => value = base,
                                Err(error) => failed = Some(error),
                            }
                        } else {
                            value += step;
                        }
                        out[row - start] = value;
                    }
                })?;
            if let Some(error) = failed {
                return Err(error);
            }
        }
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        check_indices(indices, self.len)?;
        // A read after one at a smaller row of the same block adds only the differences
        // between the two (ascending indices, a filter's survivors, read each difference once).
        let differences = self.differences.local();
        let mut previous: Option<(usize, u64)> = None;
        indices
            .iter()
            .map(|&i| {
                let value = match previous {
                    Some((p, v)) if p <= i && p / DELTA_BLOCK == i / DELTA_BLOCK => {
                        if p == i {
                            v
                        } else {
                            v + differences.sum_range(p + 1..i + 1)?
                        }
                    }
                    _ => self.value(i)?,
                };
                previous = Some((i, value));
                Ok(value)
            })
            .collect()
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        let mut selection = Selection::none(self.len);
        match filter {
            KeyFilter::Nothing => {}
            KeyFilter::Range { lo, hi } => {
                if lo <= hi && *hi >= self.first && *lo <= self.last {
                    let (first, end) = self.rows_between(*lo, *hi)?;
                    selection.set_range(first, end);
                }
            }
            KeyFilter::In(keys) => {
                for &key in keys.iter().filter(|&&k| k >= self.first && k <= self.last) {
                    let (first, end) = self.rows_between(key, key)?;
                    selection.set_range(first, end);
                }
            }
        }
        Ok(selection)
    }
    fn sum(&self) -> u128 {
        let mut total = 0u128;
        let mut buffer = vec![0u64; BLOCK];
        let mut start = 0;
        while start < self.len {
            let count = (self.len - start).min(BLOCK);
            let decoded = self.unpack(start, &mut buffer[..count]);
            debug_assert!(decoded.is_ok());
            total += buffer[..count].iter().map(|&v| u128::from(v)).sum::<u128>();
            start += count;
        }
        total
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        (self.len > 0).then_some((self.first, self.last))
    }
    fn run_count(&self) -> usize {
        self.runs
    }
    fn distinct_estimate(&self) -> u64 {
        // Sorted: every run is one distinct value.
        self.runs as u64
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![
            ("block starts", &self.starts),
            ("differences", &self.differences),
        ]
    }
    fn heap_bytes(&self) -> usize {
        24
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(len: usize, gap: u64, seed: u64) -> Vec<u64> {
        let mut state = seed | 1;
        let mut value = seed % 1000;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                value += state % (gap + 1);
                value
            })
            .collect()
    }

    #[test]
    fn edge_lengths_round_trip_and_read_at_every_row() {
        for len in [0usize, 1, 63, 64, 65, 127, 128, 129, 1023, 1025, 4097] {
            for gap in [0u64, 1, 7, 1 << 40] {
                let values = sorted(len, gap, len as u64 * 31 + gap);
                let delta = Delta::new(&values, &Default::default()).unwrap();
                assert_eq!(delta.to_vec(), values, "len {len}, gap {gap}");
                for (i, &v) in values.iter().enumerate() {
                    assert_eq!(delta.get(i).unwrap(), v);
                }
                assert!(delta.get(len).is_err());
                assert_eq!(
                    delta.sum(),
                    values.iter().map(|&v| u128::from(v)).sum::<u128>()
                );
                assert_eq!(
                    delta.min_max(),
                    values.first().map(|&f| (f, *values.last().unwrap()))
                );
                let mut runs = values.clone();
                runs.dedup();
                assert_eq!(delta.run_count(), runs.len());
            }
        }
    }

    #[test]
    fn extreme_values_and_unsorted_input() {
        let values = [0, 0, u64::MAX - 1, u64::MAX, u64::MAX];
        let delta = Delta::new(&values, &Default::default()).unwrap();
        assert_eq!(delta.to_vec(), values);
        assert_eq!(delta.differences().bits(), 64);
        let error = Delta::new(&[1, 5, 4], &Default::default()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("row 2 (4) is smaller than row 1 (5)"),
            "{error}"
        );
    }

    #[test]
    fn take_reads_ascending_repeated_and_descending_rows() {
        for len in [1usize, 63, 64, 65, 127, 128, 129, 1023, 1025] {
            for gap in [0u64, 5, 1 << 40] {
                let values = sorted(len, gap, len as u64 * 7 + gap);
                let delta = Delta::new(&values, &Default::default()).unwrap();
                let every: Vec<usize> = (0..len).collect();
                let mut picked: Vec<usize> = (0..len).step_by(3).collect();
                picked.extend([len - 1, len - 1, 0, len / 2, len / 2]);
                for indices in [every, picked] {
                    let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
                    assert_eq!(
                        delta.take(&indices).unwrap(),
                        expected,
                        "len {len}, gap {gap}"
                    );
                }
                assert!(delta.take(&[0, len]).is_err());
            }
        }
        assert!(Delta::new(&[], &Default::default())
            .unwrap()
            .take(&[])
            .unwrap()
            .is_empty());
    }

    proptest! {
        #[test]
        fn take_agrees_with_a_plain_evaluation(
            mut values in proptest::collection::vec(0u64..1 << 50, 1..700),
            picks in proptest::collection::vec(0usize..700, 0..200),
            sort in any::<bool>(),
        ) {
            values.sort_unstable();
            let delta = Delta::new(&values, &Default::default()).unwrap();
            let mut indices: Vec<usize> = picks.iter().map(|&p| p % values.len()).collect();
            if sort {
                indices.sort_unstable();
            }
            let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
            prop_assert_eq!(delta.take(&indices).unwrap(), expected);
        }

        #[test]
        fn filters_and_reads_agree_with_a_plain_evaluation(
            mut values in proptest::collection::vec(0u64..5000, 0..700),
            lo in 0u64..5200,
            width in 0u64..400,
            keys in proptest::collection::vec(0u64..5200, 0..6),
            start in 0usize..700,
            count in 0usize..300,
        ) {
            values.sort_unstable();
            let delta = Delta::new(&values, &Default::default()).unwrap();
            prop_assert_eq!(delta.to_vec(), values.clone());
            let hi = lo + width;
            let range = delta.filter(&KeyFilter::Range { lo, hi }).unwrap();
            let expected: Vec<usize> = (0..values.len()).filter(|&i| (lo..=hi).contains(&values[i])).collect();
            prop_assert_eq!(range.row_ids(), expected);
            let mut keys = keys;
            keys.sort_unstable();
            keys.dedup();
            let listed = delta.filter(&KeyFilter::In(keys.clone())).unwrap();
            let expected: Vec<usize> = (0..values.len()).filter(|&i| keys.contains(&values[i])).collect();
            prop_assert_eq!(listed.row_ids(), expected);
            let start = start.min(values.len());
            let count = count.min(values.len() - start);
            let mut out = vec![0u64; count];
            delta.unpack(start, &mut out).unwrap();
            prop_assert_eq!(&out[..], &values[start..start + count]);
        }
    }
}
