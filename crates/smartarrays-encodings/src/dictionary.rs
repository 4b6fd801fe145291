//! Dictionary: bit-packed codes in a [`SmartArray`] over a **sorted** dictionary of the distinct
//! values (a cascade: the codes are themselves bit-packed at `ceil(log2(distinct))` bits).
//!
//! Sorted so that order is kept: code `a < b` exactly when value `a < b`, so a range filter
//! becomes one code range and an equality one code, found by binary search in the dictionary;
//! a constant that is not in the dictionary selects nothing without a scan. The integer form
//! here stores keys (see [`kernel`]); strings have their own in
//! [`strings`](crate::strings).

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;
use crate::integer::KeyEncoding;
use crate::kernel::{self, CodePredicate, KeyFilter};
use crate::selection::Selection;

/// Bit-packed codes over a sorted dictionary of keys.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Dictionary, KeyEncoding, KeyFilter};
/// let dictionary = Dictionary::new(&[500, 100, 500, 300, 100], &Default::default()).unwrap();
/// assert_eq!(dictionary.values(), &[100, 300, 500]);
/// assert_eq!(dictionary.codes().bits(), 2);
/// assert_eq!(dictionary.get(3).unwrap(), 300);
/// // 200..=400 is the code range 1..=1.
/// assert_eq!(dictionary.filter(&KeyFilter::Range { lo: 200, hi: 400 }).unwrap().row_ids(), vec![3]);
/// ```
#[derive(Debug)]
pub struct Dictionary {
    pub(crate) values: Vec<u64>,
    pub(crate) codes: SmartArray,
}

impl Dictionary {
    /// Builds the sorted dictionary of `values` and their codes, placed by `options`.
    pub fn new(values: &[u64], options: &ArrayOptions) -> Result<Dictionary> {
        let mut dictionary = values.to_vec();
        dictionary.sort_unstable();
        dictionary.dedup();
        let largest_code = dictionary.len().saturating_sub(1) as u64;
        let codes = kernel::pack(values.len(), largest_code, options, |i| {
            dictionary.partition_point(|&d| d < values[i]) as u64
        })?;
        Ok(Dictionary {
            values: dictionary,
            codes,
        })
    }

    /// The sorted distinct values.
    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The bit-packed codes (indices into [`Dictionary::values`]).
    pub fn codes(&self) -> &SmartArray {
        &self.codes
    }

    fn decode(&self, code: u64) -> u64 {
        // Codes were made from this dictionary, so every one indexes it.
        self.values.get(code as usize).copied().unwrap_or_default()
    }

    /// The codes of the dictionary entries in `lo..=hi`, or `None` when none is.
    pub(crate) fn code_range(&self, lo: u64, hi: u64) -> Option<(u64, u64)> {
        let first = self.values.partition_point(|&v| v < lo);
        let end = self.values.partition_point(|&v| v <= hi);
        (first < end).then(|| (first as u64, end as u64 - 1))
    }
}

impl KeyEncoding for Dictionary {
    fn name(&self) -> &'static str {
        "dictionary"
    }
    fn len(&self) -> usize {
        self.codes.len()
    }
    fn get(&self, index: usize) -> Result<u64> {
        Ok(self.decode(self.codes.get(index)?))
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        self.codes.unpack(start, out)?;
        out.iter_mut().for_each(|v| *v = self.decode(*v));
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        let mut out = kernel::gather(&self.codes, indices)?;
        out.iter_mut().for_each(|v| *v = self.decode(*v));
        Ok(out)
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        let predicate = match filter {
            KeyFilter::Nothing => CodePredicate::Nothing,
            KeyFilter::Range { lo, hi } => match self.code_range(*lo, *hi) {
                Some((first, last)) => CodePredicate::Range(first, last),
                None => CodePredicate::Nothing,
            },
            KeyFilter::In(keys) => CodePredicate::from_codes(
                keys.iter()
                    .filter_map(|k| self.values.binary_search(k).ok())
                    .map(|c| c as u64)
                    .collect(),
                Some(self.values.len()),
            ),
        };
        predicate.evaluate(&self.codes)
    }
    fn sum(&self) -> u128 {
        // Count the codes, then weigh each dictionary value by its count.
        let mut counts = vec![0u64; self.values.len()];
        let visited = self.codes.for_each_chunk(0..self.codes.len(), |_, codes| {
            for &code in codes {
                if let Some(count) = counts.get_mut(code as usize) {
                    *count += 1;
                }
            }
        });
        debug_assert!(visited.is_ok());
        counts
            .iter()
            .zip(&self.values)
            .map(|(&count, &value)| u128::from(count) * u128::from(value))
            .sum()
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        // Every entry occurs (the dictionary was made from the values).
        Some((*self.values.first()?, *self.values.last()?))
    }
    fn run_count(&self) -> usize {
        kernel::run_count(&self.codes)
    }
    fn distinct_estimate(&self) -> u64 {
        self.values.len() as u64
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![("codes", &self.codes)]
    }
    fn heap_bytes(&self) -> usize {
        self.values.len() * 8
    }
}
