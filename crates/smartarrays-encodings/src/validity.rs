//! Validity: which rows hold a value, as a 1-bit [`SmartArray`] (1 = valid) that any column can
//! carry, placed like the column. A 1-bit smart array has exactly the layout of a
//! [`Selection`] bitmap, so "is not null" is a copy of its words and filters combine with it
//! by a word-wise `and`.
//!
//! Null rows of a column hold a stand-in value: the smallest valid value (for strings, the
//! smallest valid string). So minima and maxima, dictionaries and frame widths never see a
//! value that is not in the data, and a sum subtracts `nulls x stand-in` instead of
//! scanning the validity.

use smartarrays::{ArrayOptions, SmartArray};

use crate::error::Result;
use crate::kernel;
use crate::selection::Selection;

/// A null bitmap.
///
/// # Example
/// ```
/// use smartarrays_encodings::Validity;
/// let validity = Validity::new(&[true, false, true], &Default::default()).unwrap();
/// assert_eq!(validity.null_count(), 1);
/// assert!(!validity.is_valid(1).unwrap());
/// assert_eq!(validity.selection().row_ids(), vec![0, 2]);
/// ```
#[derive(Debug)]
pub struct Validity {
    pub(crate) bits: SmartArray,
    pub(crate) nulls: usize,
}

impl Validity {
    /// One flag per row, `true` when the row is valid, placed by `options`.
    pub fn new(valid: &[bool], options: &ArrayOptions) -> Result<Validity> {
        let bits = SmartArray::from_fn(valid.len(), &kernel::options_at(options, 1), |i| {
            u64::from(valid[i])
        })?;
        Ok(Validity {
            bits,
            nulls: valid.iter().filter(|&&v| !v).count(),
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        self.nulls
    }

    /// Whether row `index` is valid.
    pub fn is_valid(&self, index: usize) -> Result<bool> {
        Ok(self.bits.get(index)? == 1)
    }

    /// The flags of rows `start..start + count`.
    pub fn flags(&self, start: usize, count: usize) -> Result<Vec<bool>> {
        let mut bits = vec![0u64; count];
        self.bits.unpack(start, &mut bits)?;
        Ok(bits.into_iter().map(|b| b == 1).collect())
    }

    /// The flags of rows `indices`.
    pub fn take(&self, indices: &[usize]) -> Result<Vec<bool>> {
        Ok(kernel::gather(&self.bits, indices)?
            .into_iter()
            .map(|b| b == 1)
            .collect())
    }

    /// The valid rows as a selection (a copy of the packed words).
    pub fn selection(&self) -> Selection {
        let rows = self.len();
        let words = self.bits.local().packed_words();
        Selection::from_words(words[..rows.div_ceil(64).min(words.len())].to_vec(), rows)
    }

    /// The smart array of flags.
    pub fn array(&self) -> &SmartArray {
        &self.bits
    }
}
