//! Batched random reads (gathers): `out[k] = value(indices[k])`, the kernel behind
//! [`crate::ArrayView::get_many`]. The largest index is found first (one vectorised pass), its
//! read windows are checked against the storage once, and then every value is read without a
//! branch.
//!
//! In cache, AVX-512 gathers (8 values per step, every width), AVX2 gathers (4 per step) or the
//! scalar `get_unchecked` loop, by the process's [`KernelLevel`]. Out of cache (storage of at
//! least [`PREFETCH_MIN_BYTES`]) the gather instructions keep fewer misses in flight than plain
//! loads, so a scalar loop of the fastest single read ([`ReadKernel`]) runs instead, with a
//! software prefetch [`PREFETCH_DISTANCE`] reads ahead; in cache the prefetches cost more than
//! they hide.

use super::dispatch::{cpu_level, detected_level, KernelLevel};
use super::unchecked::{get_unchecked_with, ReadKernel};
use crate::memory::prefetch::{self, CacheLevel};

/// Storage size from which gathers take the prefetching loop: 32 MiB, a typical last-level cache.
pub const PREFETCH_MIN_BYTES: usize = 32 << 20;

/// How many reads ahead the out-of-cache gather prefetches: enough misses in flight to cover
/// memory latency, few enough that the lines are still in L1 when read (8, 16, 32 and 64
/// measured 0.87-1.29x, 0.77-1.25x, 0.69-1.17x and 0.69-0.89x a raw gather over 1 GiB).
pub const PREFETCH_DISTANCE: usize = 64;

/// Bytes a gather (and [`super::get_unchecked`]) may read from a value's first byte on: the
/// 64-bit word at 64 bits, else 16 (one 8-byte window up to 56 bits, two from 57 to 63 bits, a
/// 16-byte window in `get_unchecked`). The codec's [`super::PADDING_WORDS`] words after the data
/// cover them for every value of an array.
pub const fn window_bytes(bits: u32) -> usize {
    if bits == 64 {
        8
    } else {
        16
    }
}

/// Panics unless the read windows of every value up to `max_index` lie inside `words`. For
/// `words` holding `len` values plus the codec's padding and `max_index < len` this always holds:
/// the value's first byte is below `ceil(len * bits / 64) * 8`, and 16 <= 64 padding bytes.
pub(super) fn assert_gather_readable(words: &[u64], bits: u32, max_index: usize) {
    let end = max_index
        .checked_mul(bits as usize)
        .map(|bit| bit / 8 + window_bytes(bits));
    assert!(
        end.is_some_and(|end| end <= std::mem::size_of_val(words)),
        "gather would read past the padded storage"
    );
}

/// The largest of `indices` (`None` when empty), vectorised at `level`.
pub fn largest_index_with(level: KernelLevel, indices: &[usize]) -> Option<usize> {
    match level.min(cpu_level()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features, and AVX-512 implies AVX-512 F.
        KernelLevel::Avx512 => unsafe { super::x86::largest_avx512(indices) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features.
        KernelLevel::Avx2 => unsafe { super::x86::largest_avx2(indices) },
        _ => indices.iter().copied().max(),
    }
}

/// Reads the values at `indices` from words packed at `bits` bits (with the codec's padding)
/// into `out[..indices.len()]`, at the CPU's kernel level.
///
/// # Panics
/// If `out` is shorter than `indices`, or an index lies past the padded storage (an index
/// below the array's length never does; one past it may read padding instead of panicking).
///
/// # Example
/// ```
/// use smartarrays::codec::{gather, pack_slice, storage_words};
/// let values: Vec<u64> = (0..100).map(|i| i * 3).collect();
/// let mut words = vec![0u64; storage_words(values.len(), 9).unwrap()];
/// pack_slice(&mut words, 9, &values);
/// let mut out = [0u64; 3];
/// gather(&words, 9, &[99, 0, 42], &mut out);
/// assert_eq!(out, [297, 0, 126]);
/// ```
pub fn gather(words: &[u64], bits: u32, indices: &[usize], out: &mut [u64]) {
    gather_with(detected_level(), words, bits, indices, out)
}

/// [`gather`] with an explicit kernel level (clamped to what the CPU supports).
pub fn gather_with(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    indices: &[usize],
    out: &mut [u64],
) {
    let Some(max_index) = largest_index_with(level, indices) else {
        return;
    };
    // SAFETY: `max_index` is the largest index.
    unsafe { gather_up_to(level, words, bits, indices, max_index, out) }
}

/// [`gather_with`] for callers that have found the largest index already (the array layer
/// checks it against the length).
///
/// # Safety
/// No index may exceed `max_index`. (That `max_index`'s windows lie inside `words` is asserted
/// here.)
pub(crate) unsafe fn gather_up_to(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    indices: &[usize],
    max_index: usize,
    out: &mut [u64],
) {
    assert!((1..=64).contains(&bits), "bit width {bits} is not 1..=64");
    assert!(out.len() >= indices.len(), "gather output is too short");
    assert_gather_readable(words, bits, max_index);
    let out = &mut out[..indices.len()];
    let level = level.min(cpu_level());
    if std::mem::size_of_val(words) >= PREFETCH_MIN_BYTES {
        let reads = if level == KernelLevel::Avx512 {
            ReadKernel::detected()
        } else {
            ReadKernel::Portable
        };
        // SAFETY: no index exceeds `max_index`, whose windows were checked above; the kernel is
        // the detected one or the portable one.
        unsafe { gather_prefetching(reads, words, bits, indices, out) };
        return;
    }
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features (AVX-512 implies AVX-512 F), and
        // no index exceeds `max_index` (the caller's contract).
        KernelLevel::Avx512 => unsafe {
            super::x86::gather_avx512(words, bits, indices, max_index, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, with AVX2.
        KernelLevel::Avx2 => unsafe {
            super::x86::gather_avx2(words, bits, indices, max_index, out)
        },
        // SAFETY: no index exceeds `max_index`, whose windows were checked above.
        _ => unsafe { gather_scalar(words, bits, indices, out) },
    }
}

/// The out-of-cache gather: one read per value with `reads`, prefetching the value
/// [`PREFETCH_DISTANCE`] reads ahead: the line of its aligned word and, below 64 bits, the line
/// of the next word, since the read's window covers both (for one word in eight they lie on
/// different lines, and without the second prefetch that read waits on memory: measured
/// 0.8-0.9x a raw gather with one prefetch, 0.4-0.6x with both).
///
/// # Safety
/// Every index's windows lie inside `words`; `out.len() == indices.len()`; `reads` is
/// [`ReadKernel::Portable`] or came from [`ReadKernel::detected`].
unsafe fn gather_prefetching(
    reads: ReadKernel,
    words: &[u64],
    bits: u32,
    indices: &[usize],
    out: &mut [u64],
) {
    let width = bits as usize;
    let ahead = indices.len().saturating_sub(PREFETCH_DISTANCE);
    // Below 64 bits the read's window reaches into the word after the value's first: prefetch
    // its line too (the same line but for one word in eight).
    let last_word = (window_bytes(bits) / 8) - 1;
    for (k, slot) in out[..ahead].iter_mut().enumerate() {
        let word = indices[k + PREFETCH_DISTANCE] * width / 64;
        prefetch::prefetch(words, word, CacheLevel::L1);
        if last_word > 0 {
            prefetch::prefetch(words, word + last_word, CacheLevel::L1);
        }
        // SAFETY: the index's windows lie inside `words`, and the kernel is usable (contract).
        *slot = unsafe { get_unchecked_with(reads, words, bits, indices[k]) };
    }
    for (slot, &index) in out[ahead..].iter_mut().zip(&indices[ahead..]) {
        // SAFETY: as above.
        *slot = unsafe { get_unchecked_with(reads, words, bits, index) };
    }
}

/// The in-cache scalar gather: `get_unchecked` per value.
///
/// # Safety
/// Every index's windows lie inside `words`; `out.len() == indices.len()`.
unsafe fn gather_scalar(words: &[u64], bits: u32, indices: &[usize], out: &mut [u64]) {
    for (slot, &index) in out.iter_mut().zip(indices) {
        // SAFETY: the index's windows lie inside `words` (contract).
        *slot = unsafe { super::get_unchecked(words, bits, index) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{max_value, pack_slice, storage_words};
    use proptest::prelude::*;

    /// `len` values at `bits` bits (the top bit set in some), packed with exactly the storage
    /// an array has.
    fn packed(len: usize, bits: u32) -> (Vec<u64>, Vec<u64>) {
        let values: Vec<u64> = (0..len as u64)
            .map(|i| {
                if i % 5 == 3 {
                    max_value(bits)
                } else {
                    i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) & max_value(bits)
                }
            })
            .collect();
        let mut words = vec![0u64; storage_words(len, bits).unwrap()];
        pack_slice(&mut words, bits, &values);
        (values, words)
    }

    /// Index patterns over `len` values: sorted, reversed, random, one value repeated, and the
    /// first and last values alternating, each `count` long.
    fn patterns(len: usize, count: usize) -> Vec<(&'static str, Vec<usize>)> {
        let mut state = 0x2545_F491_4F6C_DD1Du64 ^ count as u64;
        let random = (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % len as u64) as usize
            })
            .collect();
        vec![
            (
                "sorted",
                (0..count).map(|k| k * len / count.max(1)).collect(),
            ),
            ("reversed", (0..count).map(|k| len - 1 - k % len).collect()),
            ("random", random),
            ("repeated", vec![len / 2; count]),
            (
                "ends",
                (0..count)
                    .map(|k| if k % 2 == 0 { 0 } else { len - 1 })
                    .collect(),
            ),
        ]
    }

    #[test]
    fn every_level_agrees_with_get_unchecked_at_every_width_pattern_and_length() {
        // 64 values at any width end exactly on a word, so the last value's windows reach into
        // the padding as far as they ever can; 1025 values do not.
        for bits in 1..=64u32 {
            for len in [64usize, 1025] {
                let (values, words) = packed(len, bits);
                for count in [0usize, 1, 7, 8, 9, 63, 64, 65, 1023, 1025] {
                    for (name, indices) in patterns(len, count) {
                        let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
                        for &i in &indices {
                            // SAFETY: i < len, and `words` is the padded storage of `len` values.
                            let read = unsafe { crate::codec::get_unchecked(&words, bits, i) };
                            assert_eq!(read, values[i]);
                        }
                        for level in KernelLevel::supported() {
                            // One slot more than needed: it must stay untouched.
                            let mut out = vec![0xA5A5_u64; count + 1];
                            gather_with(level, &words, bits, &indices, &mut out);
                            assert_eq!(
                                out[..count],
                                expected[..],
                                "bits {bits}, len {len}, {name} x {count}, {level:?}"
                            );
                            assert_eq!(out[count], 0xA5A5, "wrote past the indices");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_last_value_ending_at_the_padding_is_read_at_every_level() {
        for bits in 1..=64u32 {
            // len * bits a multiple of 64: the data ends exactly where the padding starts.
            for len in [64usize, 128, 64 * 7] {
                let (values, words) = packed(len, bits);
                assert_eq!(
                    words.len(),
                    len * bits as usize / 64 + crate::codec::PADDING_WORDS
                );
                let indices = [
                    len - 1,
                    len - 2,
                    len - 1,
                    0,
                    len - 1,
                    len - 1,
                    len - 1,
                    len - 1,
                    len - 1,
                ];
                for level in KernelLevel::supported() {
                    let mut out = [0u64; 9];
                    gather_with(level, &words, bits, &indices, &mut out);
                    let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
                    assert_eq!(out[..], expected[..], "bits {bits}, len {len}, {level:?}");
                }
            }
        }
    }

    #[test]
    fn largest_index_agrees_at_every_level() {
        for level in KernelLevel::supported() {
            assert_eq!(largest_index_with(level, &[]), None);
            for count in [1usize, 7, 8, 9, 63, 64, 65, 1023, 1025] {
                let indices: Vec<usize> = (0..count)
                    .map(|k| (k.wrapping_mul(0x9E37_79B9) % 10_007) | (k << 40))
                    .collect();
                assert_eq!(
                    largest_index_with(level, &indices),
                    indices.iter().copied().max(),
                    "{level:?} {count}"
                );
            }
            assert_eq!(
                largest_index_with(level, &[usize::MAX, 0]),
                Some(usize::MAX)
            );
        }
    }

    #[test]
    fn an_index_past_the_storage_panics_instead_of_reading() {
        let (_, words) = packed(100, 13);
        for level in KernelLevel::supported() {
            for bad in [10_000usize, usize::MAX] {
                let result = std::panic::catch_unwind(|| {
                    let mut out = [0u64; 2];
                    gather_with(level, &words, 13, &[1, bad], &mut out);
                });
                assert!(result.is_err(), "{level:?} {bad}");
            }
        }
    }

    #[test]
    fn large_storage_takes_the_prefetching_loop_at_every_level() {
        // One width with a single 8-byte window and one with two (57..=63 bits).
        for bits in [33, 63] {
            let len = PREFETCH_MIN_BYTES * 8 / bits as usize + 1000;
            let (values, words) = packed(len, bits);
            assert!(std::mem::size_of_val(&words[..]) >= PREFETCH_MIN_BYTES);
            for count in [0usize, 63, 64, 65, 1025] {
                for (name, indices) in patterns(len, count) {
                    let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
                    for level in KernelLevel::supported() {
                        let mut out = vec![0u64; count];
                        gather_with(level, &words, bits, &indices, &mut out);
                        assert_eq!(out, expected, "{bits} bits, {name} x {count}, {level:?}");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn gather_agrees_with_a_vec_at_every_level(
            bits in 1u32..=64,
            len in 1usize..600,
            picks in proptest::collection::vec(any::<usize>(), 0..80),
        ) {
            let (values, words) = packed(len, bits);
            let indices: Vec<usize> = picks.iter().map(|&p| p % len).collect();
            let expected: Vec<u64> = indices.iter().map(|&i| values[i]).collect();
            for level in KernelLevel::supported() {
                let mut out = vec![0u64; indices.len()];
                gather_with(level, &words, bits, &indices, &mut out);
                prop_assert_eq!(&out, &expected, "{:?}", level);
            }
        }
    }
}
