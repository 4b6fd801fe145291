//! Bit-packing codec: each value stored in exactly `bits` bits (1..=64), little-endian, one value
//! after the other, in 64-bit words.
//!
//! The layout is the paper's (§4.2): 64 consecutive values at `b` bits fill exactly `b` words, so
//! every 64-value chunk starts on a word boundary, and every group of 8 values starts on a byte
//! boundary (8·b bits). Random `get` reads at most two adjacent words (O(1)); scans decode whole
//! byte-aligned groups with SIMD kernels chosen at run time ([`KernelLevel`]). Storage carries
//! [`PADDING_WORDS`] words after the data so that kernels may load a full vector past the last
//! value.
//!
//! The functions here work on plain word slices; [`crate::SmartArray`] owns the memory and adds
//! placement, replicas and checked indexing.

mod dispatch;
mod gather;
mod scalar;
mod select;
mod unchecked;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use dispatch::{
    detected_level, differences, differences_with, kernel_setting, pack_slice, pack_slice_with,
    paired_differences, paired_differences_with, sum_range, sum_range_with, unpack_differences,
    unpack_differences_with, unpack_paired_differences, unpack_paired_differences_with,
    unpack_range, unpack_range_with, Combine, KernelLevel, KERNEL_ENV,
};
pub(crate) use gather::gather_up_to;
pub use gather::{gather, gather_with, largest_index_with, window_bytes, PREFETCH_MIN_BYTES};
pub use scalar::{get, pack_into, set};
pub use select::{range_mask, range_mask_with};
pub use unchecked::{get_unchecked, get_unchecked_with, ReadKernel};

use crate::error::{Error, Result};

/// Words of zero padding after the packed data (one 64-byte vector).
pub const PADDING_WORDS: usize = 8;

/// Values per chunk: a chunk of 64 values at `b` bits is exactly `b` words.
pub const CHUNK_VALUES: usize = 64;

/// Checks a bit width, returning it or [`Error::InvalidBitWidth`].
pub fn check_bits(bits: u32) -> Result<u32> {
    if (1..=64).contains(&bits) {
        Ok(bits)
    } else {
        Err(Error::InvalidBitWidth(bits))
    }
}

/// The largest value `bits` bits can hold.
pub const fn max_value(bits: u32) -> u64 {
    u64::MAX >> (64 - bits)
}

/// The fewest bits that hold `value` (at least 1).
pub const fn bits_needed(value: u64) -> u32 {
    if value == 0 {
        1
    } else {
        64 - value.leading_zeros()
    }
}

/// Words needed to store `len` values at `bits` bits, padding included, or `None` on overflow.
pub fn storage_words(len: usize, bits: u32) -> Option<usize> {
    len.checked_mul(bits as usize)
        .map(|total_bits| total_bits.div_ceil(64) + PADDING_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_helpers() {
        assert_eq!(bits_needed(0), 1);
        assert_eq!(bits_needed(1), 1);
        assert_eq!(bits_needed(2), 2);
        assert_eq!(bits_needed(u64::MAX), 64);
        assert_eq!(max_value(64), u64::MAX);
        assert_eq!(max_value(1), 1);
        assert_eq!(storage_words(64, 33), Some(33 + PADDING_WORDS));
        assert_eq!(storage_words(usize::MAX, 2), None);
        assert!(check_bits(0).is_err() && check_bits(65).is_err() && check_bits(64).is_ok());
    }
}
