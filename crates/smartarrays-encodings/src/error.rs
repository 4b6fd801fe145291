//! The crate's typed error: every refusal names what was wrong and, where it helps, the fix.
//! Nothing in this crate panics on bad input or silently truncates a value.

use crate::types::DataType;

/// Everything that can go wrong when building, reading or filtering a column.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, EncodingError};
/// let column = Column::from_u64(&[1, 2, 3], &Default::default()).unwrap();
/// assert!(matches!(column.get(3), Err(EncodingError::IndexOutOfRange { index: 3, len: 3 })));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodingError {
    /// A smart array below refused (placement, memory, width).
    #[error(transparent)]
    Array(#[from] smartarrays::Error),
    /// A row index past the end.
    #[error("index {index} is out of range for a column of length {len}")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The column's length.
        len: usize,
    },
    /// A row range past the end (or reversed).
    #[error("range {start}..{end} is out of bounds for a column of length {len}")]
    RangeOutOfBounds {
        /// Start of the range.
        start: usize,
        /// End of the range (exclusive).
        end: usize,
        /// The column's length.
        len: usize,
    },
    /// A value does not fit the type or encoding it is meant for.
    #[error("value {value} does not fit: {reason}")]
    ValueDoesNotFit {
        /// The value, as text.
        value: String,
        /// Why it does not fit.
        reason: String,
    },
    /// An operation that means nothing for a type (the sum of strings, a prefix filter on
    /// integers).
    #[error("{operation} is not supported for a {data_type} column")]
    Unsupported {
        /// The operation.
        operation: &'static str,
        /// The column's type.
        data_type: DataType,
    },
    /// A constant of another type than the column's.
    #[error("a {found} value was given for a {expected} column")]
    TypeMismatch {
        /// The column's type.
        expected: DataType,
        /// The given value's type.
        found: DataType,
    },
    /// A decimal that leaves the range of its 64-bit unscaled integer, a scale above 18, or a
    /// text that is not an exact decimal at the given scale.
    #[error("decimal {value}: {reason}")]
    Decimal {
        /// The value, as text.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A sum that does not fit the asked result type.
    #[error("the sum {sum} does not fit in {target}")]
    SumOverflow {
        /// The exact sum, as text.
        sum: String,
        /// The asked type.
        target: &'static str,
    },
    /// Two selections over different numbers of rows were combined.
    #[error("selections over {left} and {right} rows cannot be combined")]
    SelectionLengthMismatch {
        /// Rows of the left selection.
        left: usize,
        /// Rows of the right selection.
        right: usize,
    },
    /// A validity bitmap whose length differs from the column's.
    #[error("a validity of {validity} rows was given for a column of {len} rows")]
    ValidityLengthMismatch {
        /// Rows in the validity.
        validity: usize,
        /// Rows in the column.
        len: usize,
    },
    /// An encoding that cannot hold these values (a constant encoding of values that differ,
    /// dictionary of strings asked for integers).
    #[error("encoding {encoding} cannot hold this column: {reason}")]
    EncodingNotApplicable {
        /// The encoding asked for.
        encoding: &'static str,
        /// Why not.
        reason: String,
    },
    /// A column's serialised parts ([`Column::from_parts`](crate::Column::from_parts)) that
    /// are malformed: a damaged header, a buffer of the wrong size, a code outside its
    /// dictionary, text that is not UTF-8, ...
    #[error("malformed column parts: {part}: {reason}")]
    MalformedParts {
        /// The part at fault (the header, or a buffer by its role).
        part: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Column parts written in another format version.
    #[error("column parts of format version {found}; this build reads version {supported} (upgrade the receiving side)")]
    PartsVersion {
        /// The version found.
        found: u16,
        /// The version this build reads.
        supported: u16,
    },
    /// A malformed LIKE pattern (a trailing escape).
    #[error("invalid LIKE pattern {pattern:?}: {reason}")]
    InvalidPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// This crate's result type.
pub type Result<T, E = EncodingError> = std::result::Result<T, E>;

/// Checks `start..end` against `len`.
pub(crate) fn check_range(start: usize, end: usize, len: usize) -> Result<()> {
    if start > end || end > len {
        return Err(EncodingError::RangeOutOfBounds { start, end, len });
    }
    Ok(())
}

/// Checks every index against `len`, naming the first one past the end.
pub(crate) fn check_indices(indices: &[usize], len: usize) -> Result<()> {
    match indices.iter().find(|&&i| i >= len) {
        Some(&index) => Err(EncodingError::IndexOutOfRange { index, len }),
        None => Ok(()),
    }
}
