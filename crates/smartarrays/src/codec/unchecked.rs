//! Random reads without bounds checks, for callers that have already checked the index against
//! the array's length (a batched gather checks all its indices once, then reads without a branch
//! per value). The one place in the codec that reads packed words through raw pointers.

use super::max_value;

/// Reads value `index` from words packed at `bits` bits, without bounds checks.
///
/// # Safety
/// `words` must hold the packed values `0..=index` at `bits` bits followed by the storage's
/// [`super::PADDING_WORDS`] words of padding, as every array's storage does: then the 8- or
/// 16-byte window read here lies inside `words`.
#[inline(always)]
pub unsafe fn get_unchecked(words: &[u64], bits: u32, index: usize) -> u64 {
    debug_assert!((1..=64).contains(&bits));
    if bits == 64 {
        debug_assert!(index < words.len());
        // SAFETY: at 64 bits value `index` is word `index`, inside `words` by the contract.
        return unsafe { *words.get_unchecked(index) };
    }
    let bit = index * bits as usize;
    let start = bit / 8;
    debug_assert!(start + 16 <= std::mem::size_of_val(words));
    let base = words.as_ptr().cast::<u8>();
    if bits <= 56 {
        // SAFETY: the value's bytes start at `start`; with the padding after the data, the 8 bytes
        // from there lie inside `words` (contract). Unaligned reads are allowed on every target.
        let window = unsafe { base.add(start).cast::<u64>().read_unaligned() };
        return (u64::from_le(window) >> (bit % 8)) & max_value(bits);
    }
    // SAFETY: as above, 16 bytes from `start` lie inside `words` thanks to the padding.
    let window = unsafe { base.add(start).cast::<u128>().read_unaligned() };
    (u128::from_le(window) >> (bit % 8)) as u64 & max_value(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{pack_slice, storage_words};

    #[test]
    fn agrees_with_the_checked_get_at_every_width_and_edge_length() {
        for bits in 1..=64u32 {
            for len in [1usize, 63, 64, 65, 1023, 1025] {
                let values: Vec<u64> = (0..len as u64)
                    .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & max_value(bits))
                    .collect();
                let mut words = vec![0u64; storage_words(len, bits).unwrap()];
                pack_slice(&mut words, bits, &values);
                for (index, &value) in values.iter().enumerate() {
                    // SAFETY: `words` is the storage of `len` values with padding; index < len.
                    let read = unsafe { get_unchecked(&words, bits, index) };
                    assert_eq!(read, value, "bits {bits}, len {len}, index {index}");
                    assert_eq!(read, crate::codec::get(&words, bits, index));
                }
            }
        }
    }
}
