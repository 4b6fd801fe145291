//! Frame of reference: a base (the smallest value) plus non-negative offsets bit-packed in a
//! [`SmartArray`] at the width of `max - min`.
//!
//! Signed integers, decimals and dates go through it as order-preserving keys (the sign bit
//! flipped, see [`key_from_i64`](crate::kernel::key_from_i64)). With the base at the minimum
//! no zigzag step is needed: every offset is already non-negative, and the offsets span
//! `max - min`, never more than a zigzag code of the same values would need (zigzag spends a
//! bit on the sign of every value and still has to cover both extremes). Filters translate their
//! constants once through the base: a constant below the base or above `base + max offset`
//! selects nothing without a scan.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;
use crate::integer::KeyEncoding;
use crate::kernel::{self, CodePredicate, KeyFilter};
use crate::selection::Selection;

/// A base plus bit-packed offsets.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Frame, KeyEncoding, KeyFilter};
/// let frame = Frame::new(&[1_000_000, 1_000_007, 1_000_003], &Default::default()).unwrap();
/// assert_eq!(frame.base(), 1_000_000);
/// assert_eq!(frame.offsets().bits(), 3); // offsets 0..=7
/// assert_eq!(frame.get(1).unwrap(), 1_000_007);
/// // A constant below the base selects nothing, without a scan.
/// assert_eq!(frame.filter(&KeyFilter::Range { lo: 0, hi: 999_999 }).unwrap().count(), 0);
/// ```
#[derive(Debug)]
pub struct Frame {
    pub(crate) base: u64,
    pub(crate) max_offset: u64,
    pub(crate) offsets: SmartArray,
}

impl Frame {
    /// Encodes `values` with the smallest as the base, placed by `options`.
    pub fn new(values: &[u64], options: &ArrayOptions) -> Result<Frame> {
        let (min, max) = values
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let base = if values.is_empty() { 0 } else { min };
        let max_offset = max.saturating_sub(base);
        let offsets = kernel::pack(values.len(), max_offset, options, |i| values[i] - base)?;
        Ok(Frame {
            base,
            max_offset,
            offsets,
        })
    }

    /// The base (the smallest value; 0 when empty).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The bit-packed offsets from the base.
    pub fn offsets(&self) -> &SmartArray {
        &self.offsets
    }

    /// The filter translated to offsets.
    pub(crate) fn code_predicate(&self, filter: &KeyFilter) -> CodePredicate {
        let top = self.base + self.max_offset;
        match filter {
            KeyFilter::Nothing => CodePredicate::Nothing,
            KeyFilter::Range { lo, hi } if *hi < self.base || *lo > top || lo > hi => {
                CodePredicate::Nothing
            }
            KeyFilter::Range { lo, hi } => {
                CodePredicate::Range(lo.saturating_sub(self.base), (*hi).min(top) - self.base)
            }
            KeyFilter::In(keys) => CodePredicate::from_codes(
                keys.iter()
                    .filter(|&&k| k >= self.base && k <= top)
                    .map(|&k| k - self.base)
                    .collect(),
                None,
            ),
        }
    }
}

impl KeyEncoding for Frame {
    fn name(&self) -> &'static str {
        "frame"
    }
    fn len(&self) -> usize {
        self.offsets.len()
    }
    fn get(&self, index: usize) -> Result<u64> {
        Ok(self.base + self.offsets.get(index)?)
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        self.offsets.unpack(start, out)?;
        out.iter_mut().for_each(|v| *v += self.base);
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        let mut out = kernel::gather(&self.offsets, indices)?;
        out.iter_mut().for_each(|v| *v += self.base);
        Ok(out)
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        self.code_predicate(filter).evaluate(&self.offsets)
    }
    fn sum(&self) -> u128 {
        u128::from(self.base) * self.len() as u128 + kernel::exact_sum(&self.offsets)
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        kernel::min_max(&self.offsets).map(|(lo, hi)| (self.base + lo, self.base + hi))
    }
    fn run_count(&self) -> usize {
        kernel::run_count(&self.offsets)
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![("offsets", &self.offsets)]
    }
    fn heap_bytes(&self) -> usize {
        8
    }
}
