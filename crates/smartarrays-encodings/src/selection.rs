//! `Selection`: the rows a filter kept, as a bitmap (bit `i % 64` of word `i / 64` is row `i`).
//!
//! A bitmap rather than sorted row ids: its size is fixed (`rows / 8` bytes) whatever the
//! selectivity, the block kernels write one word per 64 rows without branches, `and`/`or`/`not`
//! are word loops, and a validity bitmap (a 1-bit smart array has this very layout) combines
//! with it directly. [`Selection::row_ids`] gives the sorted ids when a caller wants them (for
//! [`Column::take`](crate::Column::take)).

use crate::error::{EncodingError, Result};

/// A set of selected rows out of `rows`, as a bitmap.
///
/// # Example
/// ```
/// use smartarrays_encodings::Selection;
/// let even = Selection::from_row_ids(10, &[0, 2, 4, 6, 8]).unwrap();
/// let small = Selection::from_row_ids(10, &[0, 1, 2, 3]).unwrap();
/// assert_eq!(even.and(&small).unwrap().row_ids(), vec![0, 2]);
/// assert_eq!(even.or(&small).unwrap().count(), 7);
/// assert_eq!(even.not().row_ids(), vec![1, 3, 5, 7, 9]);
/// assert!(even.contains(4) && !even.contains(5));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Selection {
    words: Vec<u64>,
    rows: usize,
}

impl std::fmt::Debug for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selection")
            .field("rows", &self.rows)
            .field("selected", &self.count())
            .finish()
    }
}

impl Selection {
    /// No row of `rows` selected.
    pub fn none(rows: usize) -> Selection {
        Selection {
            words: vec![0; rows.div_ceil(64)],
            rows,
        }
    }

    /// Every row of `rows` selected.
    pub fn all(rows: usize) -> Selection {
        let mut selection = Selection {
            words: vec![u64::MAX; rows.div_ceil(64)],
            rows,
        };
        selection.clear_tail();
        selection
    }

    /// The rows `ids` (any order, repeats allowed) out of `rows`; an id past the end is an
    /// [`EncodingError::IndexOutOfRange`].
    pub fn from_row_ids(rows: usize, ids: &[usize]) -> Result<Selection> {
        crate::error::check_indices(ids, rows)?;
        let mut selection = Selection::none(rows);
        for &id in ids {
            selection.set(id);
        }
        Ok(selection)
    }

    /// A selection from bitmap words (bits past `rows` are ignored); `words` must hold at
    /// least `rows` bits.
    pub(crate) fn from_words(mut words: Vec<u64>, rows: usize) -> Selection {
        words.resize(rows.div_ceil(64), 0);
        let mut selection = Selection { words, rows };
        selection.clear_tail();
        selection
    }

    fn clear_tail(&mut self) {
        if !self.rows.is_multiple_of(64) {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << (self.rows % 64)) - 1;
            }
        }
    }

    /// Number of rows the selection is over (selected or not).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of selected rows.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether row `row` is selected (`false` past the end).
    pub fn contains(&self, row: usize) -> bool {
        row < self.rows && self.words[row / 64] >> (row % 64) & 1 == 1
    }

    /// The bitmap words: bit `i % 64` of word `i / 64` is row `i`; bits past the end are zero.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn set(&mut self, row: usize) {
        self.words[row / 64] |= 1 << (row % 64);
    }

    pub(crate) fn assign(&mut self, row: usize, selected: bool) {
        let bit = 1u64 << (row % 64);
        if selected {
            self.words[row / 64] |= bit;
        } else {
            self.words[row / 64] &= !bit;
        }
    }

    /// Selects rows `start..end` (within the selection's rows).
    pub(crate) fn set_range(&mut self, start: usize, end: usize) {
        let mut row = start;
        while row < end {
            let bit = row % 64;
            let span = (64 - bit).min(end - row);
            let mask = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << bit
            };
            self.words[row / 64] |= mask;
            row += span;
        }
    }

    fn check_rows(&self, other: &Selection) -> Result<()> {
        if self.rows != other.rows {
            return Err(EncodingError::SelectionLengthMismatch {
                left: self.rows,
                right: other.rows,
            });
        }
        Ok(())
    }

    /// Rows selected in both.
    pub fn and(&self, other: &Selection) -> Result<Selection> {
        self.check_rows(other)?;
        let words = self.words.iter().zip(&other.words).map(|(a, b)| a & b);
        Ok(Selection::from_words(words.collect(), self.rows))
    }

    /// Rows selected in either.
    pub fn or(&self, other: &Selection) -> Result<Selection> {
        self.check_rows(other)?;
        let words = self.words.iter().zip(&other.words).map(|(a, b)| a | b);
        Ok(Selection::from_words(words.collect(), self.rows))
    }

    /// Rows not selected.
    pub fn not(&self) -> Selection {
        Selection::from_words(self.words.iter().map(|w| !w).collect(), self.rows)
    }

    /// The selected rows, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(k * 64 + bit)
            })
        })
    }

    /// The selected rows as sorted ids.
    pub fn row_ids(&self) -> Vec<usize> {
        self.iter().collect()
    }
}

/// Builds selection words block by block: `push` takes 64 (or, last, fewer) row results at a
/// time as a word.
pub(crate) fn words_from_predicate(
    values: &[u64],
    words: &mut [u64],
    first: usize,
    keep: impl Fn(u64) -> bool,
) {
    debug_assert!(first.is_multiple_of(64));
    for (k, group) in values.chunks(64).enumerate() {
        let mut word = 0u64;
        for (bit, &value) in group.iter().enumerate() {
            word |= u64::from(keep(value)) << bit;
        }
        words[first / 64 + k] = word;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_tails_are_exact() {
        for rows in [0, 1, 63, 64, 65, 130] {
            let all = Selection::all(rows);
            assert_eq!(all.count(), rows);
            assert_eq!(all.not().count(), 0);
            let mut some = Selection::none(rows);
            if rows > 2 {
                some.set_range(1, rows - 1);
                assert_eq!(some.row_ids(), (1..rows - 1).collect::<Vec<_>>());
            }
        }
        assert!(Selection::from_row_ids(3, &[3]).is_err());
        assert!(Selection::all(3).and(&Selection::all(4)).is_err());
    }
}
