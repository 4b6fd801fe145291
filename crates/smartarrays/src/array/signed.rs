//! `SignedArray`: signed integers stored in a [`SmartArray`] through zigzag encoding
//! (0, -1, 1, -2, 2, ... map to 0, 1, 2, 3, 4, ...), so small magnitudes of either sign take few
//! bits.

use super::smart_array::{ArrayOptions, SmartArray};
use crate::error::Result;

/// Maps a signed value to its zigzag code.
#[inline]
pub const fn zigzag_encode(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Maps a zigzag code back to the signed value.
#[inline]
pub const fn zigzag_decode(code: u64) -> i64 {
    ((code >> 1) as i64) ^ -((code & 1) as i64)
}

/// A bit-compressed array of `i64` values.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, SignedArray};
/// let array = SignedArray::from_slice(&[-3, 0, 2], &ArrayOptions::new()).unwrap();
/// assert_eq!(array.bits(), 3); // zigzag codes 5, 0, 4
/// assert_eq!(array.get(0).unwrap(), -3);
/// assert_eq!(array.sum(), -1);
/// ```
#[derive(Debug)]
pub struct SignedArray {
    codes: SmartArray,
}

impl SignedArray {
    /// Builds from signed values; with an exact width, the zigzag code must fit (a width of `b`
    /// holds `-2^(b-1) ..= 2^(b-1) - 1`; the error reports the zigzag code of the misfit).
    pub fn from_slice(values: &[i64], options: &ArrayOptions) -> Result<SignedArray> {
        SignedArray::from_fn(values.len(), options, |i| values[i])
    }

    /// Builds from a pure function of the index, in parallel.
    pub fn from_fn(
        len: usize,
        options: &ArrayOptions,
        value: impl Fn(usize) -> i64 + Sync,
    ) -> Result<SignedArray> {
        SmartArray::from_fn(len, options, |i| zigzag_encode(value(i)))
            .map(|codes| SignedArray { codes })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Bits per value (of the zigzag code).
    pub fn bits(&self) -> u32 {
        self.codes.bits()
    }

    /// Value `index`.
    pub fn get(&self, index: usize) -> Result<i64> {
        self.codes.get(index).map(zigzag_decode)
    }

    /// Sets value `index` in every replica (refused when its code does not fit).
    pub fn set(&mut self, index: usize, value: i64) -> Result<()> {
        self.codes.set(index, zigzag_encode(value))
    }

    /// Wrapping sum of all values, in parallel.
    pub fn sum(&self) -> i64 {
        self.codes.par_map_reduce(
            || 0i64,
            |s, _, codes| {
                codes
                    .iter()
                    .fold(s, |s, &c| s.wrapping_add(zigzag_decode(c)))
            },
            i64::wrapping_add,
        )
    }

    /// All values, decoded.
    pub fn to_vec(&self) -> Vec<i64> {
        self.codes.iter().map(zigzag_decode).collect()
    }

    /// The underlying array of zigzag codes.
    pub fn codes(&self) -> &SmartArray {
        &self.codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips_extremes() {
        for v in [0, 1, -1, 2, -2, i64::MAX, i64::MIN, 1 << 40, -(1 << 40)] {
            assert_eq!(zigzag_decode(zigzag_encode(v)), v);
        }
        assert_eq!(zigzag_encode(-1), 1);
        assert_eq!(zigzag_encode(i64::MIN), u64::MAX);
    }
}
