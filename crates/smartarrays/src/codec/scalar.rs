//! Portable scalar kernels: random `get`/`set`, the streaming packer, and reference decoders
//! used for heads and tails of ranges and on CPUs without the SIMD kernels.

use super::max_value;

/// Reads value `index` from words packed at `bits` bits.
///
/// # Panics
/// If `index` lies outside the words (the array layer checks indices first).
#[inline]
pub fn get(words: &[u64], bits: u32, index: usize) -> u64 {
    let bit = index * bits as usize;
    // The storage's padding words keep both windows below inside the slice.
    if bits <= 56 {
        // One unaligned 8-byte load covers the value and its bit offset (at most 7 + 56 bits).
        let bytes: &[u8] = bytemuck::cast_slice(words);
        let start = bit / 8;
        let window: [u8; 8] = bytes[start..start + 8]
            .try_into()
            .expect("an 8-byte window");
        return (u64::from_le_bytes(window) >> (bit % 8)) & max_value(bits);
    }
    // Wider values may reach a ninth byte: one unaligned 16-byte load, shifted as a u128.
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let start = bit / 8;
    let window: [u8; 16] = bytes[start..start + 16]
        .try_into()
        .expect("a 16-byte window");
    (u128::from_le_bytes(window) >> (bit % 8)) as u64 & max_value(bits)
}

/// Writes `value` (already checked to fit) at `index`.
///
/// # Panics
/// If `index` lies outside the words.
#[inline]
pub fn set(words: &mut [u64], bits: u32, index: usize, value: u64) {
    let mask = max_value(bits);
    debug_assert!(value <= mask);
    let bit = index * bits as usize;
    let word = bit / 64;
    let shift = (bit % 64) as u32;
    words[word] = (words[word] & !(mask << shift)) | (value << shift);
    if shift + bits > 64 {
        let spill = 64 - shift;
        words[word + 1] = (words[word + 1] & !(mask >> spill)) | (value >> spill);
    }
}

/// Packs `values` (each already checked to fit in `bits`) into `words`, starting at the first
/// bit of `words[0]`. The caller passes words that begin on a chunk boundary; the last partially
/// filled word is overwritten whole. Returns the number of words written.
pub fn pack_into(words: &mut [u64], bits: u32, values: impl IntoIterator<Item = u64>) -> usize {
    let mut accumulator = 0u64;
    let mut filled = 0u32;
    let mut out = 0;
    for value in values {
        accumulator |= value << filled;
        filled += bits;
        if filled >= 64 {
            words[out] = accumulator;
            out += 1;
            filled -= 64;
            accumulator = if filled > 0 {
                value >> (bits - filled)
            } else {
                0
            };
        }
    }
    if filled > 0 {
        words[out] = accumulator;
        out += 1;
    }
    out
}

/// Packs whole 64-value chunks (`values.len()` a multiple of 64, each value masked to `bits`)
/// into `words` with an encoder whose width is known at compile time (every shift a constant).
pub fn pack_chunks(words: &mut [u64], bits: u32, values: &[u64]) {
    debug_assert_eq!(values.len() % 64, 0);
    CHUNK_ENCODERS[bits as usize - 1](values, &mut words[..values.len() / 64 * bits as usize]);
}

/// Encodes whole chunks at a compile-time width (the mirror of `unpack_chunks_const`).
#[allow(clippy::erasing_op, clippy::identity_op)] // the unrolled `J * B` includes `0 * B` and `1 * B`
fn pack_chunks_const<const B: u32>(values: &[u64], words: &mut [u64]) {
    let mask = max_value(B);
    for (chunk_values, chunk_words) in values
        .chunks_exact(64)
        .zip(words.chunks_exact_mut(B as usize))
    {
        let chunk_values: &[u64; 64] = chunk_values.try_into().expect("chunks of 64");
        let mut packed = [0u64; 65];
        seq_macro::seq!(J in 0..64 {
            {
                let bit = J * B as usize;
                let (word, shift) = (bit / 64, bit % 64);
                let value = chunk_values[J] & mask;
                packed[word] |= value << shift;
                if shift + B as usize > 64 {
                    packed[word + 1] |= value >> ((64 - shift) % 64);
                }
            }
        });
        chunk_words.copy_from_slice(&packed[..B as usize]);
    }
}

/// An encoder of whole chunks for one width.
type ChunkEncoder = fn(&[u64], &mut [u64]);

macro_rules! encoder_table {
    ($($b:literal)*) => {
        [$(pack_chunks_const::<$b> as ChunkEncoder,)*]
    };
}

/// Per-width chunk encoders, index `bits - 1`.
static CHUNK_ENCODERS: [ChunkEncoder; 64] = encoder_table!(
    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
    33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64
);

/// `out[i] = values[i + 1] - values[i]` (wrapping), or added to `out[i]` when `ADD`;
/// `values.len() == out.len() + 1`. Written so that it vectorises (the SIMD levels compile it
/// again with their features enabled).
#[inline(always)]
pub fn differences<T: Copy + Into<u64>, const ADD: bool>(values: &[T], out: &mut [u64]) {
    assert_eq!(
        values.len(),
        out.len() + 1,
        "differences need one value more than outputs"
    );
    for (slot, pair) in out.iter_mut().zip(values.windows(2)) {
        let difference = pair[1].into().wrapping_sub(pair[0].into());
        *slot = if ADD {
            slot.wrapping_add(difference)
        } else {
            difference
        };
    }
}

/// `out[i] = (a[i + 1] - a[i]) + (b[i + 1] - b[i])` (wrapping); both slices are one longer
/// than `out`. One loop over both, so that it vectorises and streams both inputs at once.
#[inline(always)]
pub fn paired_differences<T: Copy + Into<u64>, U: Copy + Into<u64>>(
    a: &[T],
    b: &[U],
    out: &mut [u64],
) {
    assert!(
        a.len() == out.len() + 1 && b.len() == out.len() + 1,
        "differences need one value more than outputs"
    );
    for ((slot, x), y) in out.iter_mut().zip(a.windows(2)).zip(b.windows(2)) {
        *slot = x[1]
            .into()
            .wrapping_sub(x[0].into())
            .wrapping_add(y[1].into().wrapping_sub(y[0].into()));
    }
}

/// Decodes values `start..start + out.len()` one by one (reference and head/tail path).
pub fn unpack_each(words: &[u64], bits: u32, start: usize, out: &mut [u64]) {
    for (offset, slot) in out.iter_mut().enumerate() {
        *slot = get(words, bits, start + offset);
    }
}

/// Sums values `start..end` one by one, wrapping.
pub fn sum_each(words: &[u64], bits: u32, start: usize, end: usize) -> u64 {
    (start..end).fold(0u64, |sum, index| sum.wrapping_add(get(words, bits, index)))
}

/// Decodes whole 64-value chunks with the width known at compile time, so every shift and mask
/// is a constant (the paper's unrolled unpack). `words` starts at a chunk; `out.len()` is a
/// multiple of 64.
#[allow(clippy::erasing_op, clippy::identity_op)] // the unrolled `J * B` includes `0 * B` and `1 * B`
fn unpack_chunks_const<const B: u32>(words: &[u64], out: &mut [u64]) {
    let mask = max_value(B);
    for (chunk_words, chunk_out) in words.chunks_exact(B as usize).zip(out.chunks_exact_mut(64)) {
        let chunk_out: &mut [u64; 64] = chunk_out.try_into().expect("chunks of 64");
        seq_macro::seq!(J in 0..64 {
            {
                // Constants after monomorphisation: J is a literal and B a const parameter.
                let bit = J * B as usize;
                let (word, shift) = (bit / 64, bit % 64);
                let mut value = chunk_words[word] >> shift;
                if shift + B as usize > 64 {
                    value |= chunk_words[word + 1] << ((64 - shift) % 64);
                }
                chunk_out[J] = value & mask;
            }
        });
    }
}

/// A decoder of whole chunks for one width.
type ChunkDecoder = fn(&[u64], &mut [u64]);

macro_rules! chunk_table {
    ($($b:literal)*) => {
        [$(unpack_chunks_const::<$b> as ChunkDecoder,)*]
    };
}

/// Per-width chunk decoders, index `bits - 1`.
static CHUNK_DECODERS: [ChunkDecoder; 64] = chunk_table!(
    1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
    33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64
);

/// Decodes `out.len()` values from chunk `first_chunk` on; `out.len()` must be a multiple of 64.
pub fn unpack_chunks(words: &[u64], bits: u32, first_chunk: usize, out: &mut [u64]) {
    debug_assert_eq!(out.len() % 64, 0);
    let begin = first_chunk * bits as usize;
    let end = begin + out.len() / 64 * bits as usize;
    CHUNK_DECODERS[bits as usize - 1](&words[begin..end], out);
}

/// Sums whole chunks with the compile-time decoders, through a small stack buffer.
pub fn sum_chunks(words: &[u64], bits: u32, first_chunk: usize, chunks: usize) -> u64 {
    let mut buffer = [0u64; 512];
    let mut sum = 0u64;
    let mut chunk = first_chunk;
    let end = first_chunk + chunks;
    while chunk < end {
        let count = (end - chunk).min(buffer.len() / 64);
        let out = &mut buffer[..count * 64];
        unpack_chunks(words, bits, chunk, out);
        sum = out.iter().fold(sum, |s, &v| s.wrapping_add(v));
        chunk += count;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::storage_words;

    #[test]
    fn pack_get_set_agree_at_every_width() {
        for bits in 1..=64 {
            let len = 200;
            let values: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & max_value(bits))
                .collect();
            let mut words = vec![0u64; storage_words(len, bits).unwrap()];
            pack_into(&mut words, bits, values.iter().copied());
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(get(&words, bits, i), v, "bits {bits} index {i}");
            }
            let mut decoded = vec![0u64; 192];
            unpack_chunks(&words, bits, 0, &mut decoded);
            assert_eq!(&decoded[..], &values[..192]);
            set(&mut words, bits, 77, max_value(bits));
            assert_eq!(get(&words, bits, 77), max_value(bits));
            assert_eq!(get(&words, bits, 76), values[76]);
            assert_eq!(get(&words, bits, 78), values[78]);
            assert_eq!(
                sum_chunks(&words, bits, 1, 2),
                sum_each(&words, bits, 64, 192)
            );
        }
    }
}
