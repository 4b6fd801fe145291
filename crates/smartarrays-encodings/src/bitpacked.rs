//! Bit packing: the core [`SmartArray`] at the fewest bits that hold the largest value. The base
//! of the other encodings and the best one for small non-negative values that vary freely.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;
use crate::integer::KeyEncoding;
use crate::kernel::{self, CodePredicate, KeyFilter};
use crate::selection::Selection;

/// Unsigned values bit-packed at their minimal width in a smart array.
///
/// # Example
/// ```
/// use smartarrays_encodings::{BitPacked, KeyEncoding, KeyFilter};
/// let packed = BitPacked::new(&[3, 0, 5, 2], &Default::default()).unwrap();
/// assert_eq!(packed.array().bits(), 3);
/// assert_eq!(packed.get(2).unwrap(), 5);
/// assert_eq!(packed.filter(&KeyFilter::In(vec![2, 3])).unwrap().row_ids(), vec![0, 3]);
/// ```
#[derive(Debug)]
pub struct BitPacked {
    pub(crate) max: u64,
    pub(crate) values: SmartArray,
}

impl BitPacked {
    /// Packs `values` at the fewest bits that hold the largest, placed by `options`.
    pub fn new(values: &[u64], options: &ArrayOptions) -> Result<BitPacked> {
        let max = values.iter().copied().max().unwrap_or(0);
        let array = kernel::pack(values.len(), max, options, |i| values[i])?;
        Ok(BitPacked { max, values: array })
    }

    /// The smart array holding the values.
    pub fn array(&self) -> &SmartArray {
        &self.values
    }
}

impl KeyEncoding for BitPacked {
    fn name(&self) -> &'static str {
        "bitpacked"
    }
    fn len(&self) -> usize {
        self.values.len()
    }
    fn get(&self, index: usize) -> Result<u64> {
        Ok(self.values.get(index)?)
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        Ok(self.values.unpack(start, out)?)
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        kernel::gather(&self.values, indices)
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        let predicate = match filter {
            KeyFilter::Nothing => CodePredicate::Nothing,
            KeyFilter::Range { lo, hi } if *lo > self.max || lo > hi => CodePredicate::Nothing,
            KeyFilter::Range { lo, hi } => CodePredicate::Range(*lo, (*hi).min(self.max)),
            KeyFilter::In(keys) => CodePredicate::from_codes(
                keys.iter().copied().filter(|&k| k <= self.max).collect(),
                None,
            ),
        };
        predicate.evaluate(&self.values)
    }
    fn sum(&self) -> u128 {
        kernel::exact_sum(&self.values)
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        kernel::min_max(&self.values)
    }
    fn run_count(&self) -> usize {
        kernel::run_count(&self.values)
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        vec![("values", &self.values)]
    }
    fn heap_bytes(&self) -> usize {
        0
    }
}
