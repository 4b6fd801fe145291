//! Constant: one value repeated `len` times, in no memory but the value. Every kernel is
//! O(1) or O(output): a filter selects all rows or none.

use smartarrays::SmartArray;

use crate::error::{check_indices, check_range, EncodingError, Result};
use crate::integer::KeyEncoding;
use crate::kernel::KeyFilter;
use crate::selection::Selection;

/// One key repeated.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Constant, KeyEncoding, KeyFilter};
/// let constant = Constant::new(&[42; 1000]).unwrap();
/// assert_eq!(constant.sum(), 42_000);
/// assert_eq!(constant.filter(&KeyFilter::Range { lo: 40, hi: 50 }).unwrap().count(), 1000);
/// assert!(Constant::new(&[1, 2]).is_err()); // values differ
/// ```
#[derive(Debug)]
pub struct Constant {
    pub(crate) value: u64,
    pub(crate) len: usize,
}

impl Constant {
    /// Encodes `values`, which must all be equal
    /// ([`EncodingError::EncodingNotApplicable`] otherwise).
    pub fn new(values: &[u64]) -> Result<Constant> {
        let value = values.first().copied().unwrap_or(0);
        if let Some(position) = values.iter().position(|&v| v != value) {
            return Err(EncodingError::EncodingNotApplicable {
                encoding: "constant",
                reason: format!(
                    "row {position} holds {} but row 0 holds {value}",
                    values[position]
                ),
            });
        }
        Ok(Constant::repeat(value, values.len()))
    }

    /// `value` repeated `len` times.
    pub fn repeat(value: u64, len: usize) -> Constant {
        Constant { value, len }
    }

    /// The value.
    pub fn value(&self) -> u64 {
        self.value
    }
}

impl KeyEncoding for Constant {
    fn name(&self) -> &'static str {
        "constant"
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, index: usize) -> Result<u64> {
        check_indices(&[index], self.len)?;
        Ok(self.value)
    }
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        check_range(start, start.saturating_add(out.len()), self.len)?;
        out.fill(self.value);
        Ok(())
    }
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>> {
        check_indices(indices, self.len)?;
        Ok(vec![self.value; indices.len()])
    }
    fn filter(&self, filter: &KeyFilter) -> Result<Selection> {
        Ok(if filter.matches(self.value) {
            Selection::all(self.len)
        } else {
            Selection::none(self.len)
        })
    }
    fn sum(&self) -> u128 {
        u128::from(self.value) * self.len as u128
    }
    fn min_max(&self) -> Option<(u64, u64)> {
        (self.len > 0).then_some((self.value, self.value))
    }
    fn run_count(&self) -> usize {
        usize::from(self.len > 0)
    }
    fn distinct_estimate(&self) -> u64 {
        u64::from(self.len > 0)
    }
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        Vec::new()
    }
    fn heap_bytes(&self) -> usize {
        8
    }
}
