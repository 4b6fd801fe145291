//! Range tests on packed values: which values of a range lie between two bounds, as a bitmap,
//! decoded and compared in registers (AVX-512 where the CPU has it) without storing the
//! values. A scan that filters on several columns ANDs their bitmaps and turns only the
//! survivors into row numbers.

use super::dispatch::{cpu_level, detected_level, unpack_range_with, KernelLevel};
use super::max_value;

/// Sets bit `k % 64` of `out[k / 64]` exactly when value `start + k` of the `bits`-bit packed
/// `words` lies in `lo..=hi`, for `k < len`; the other bits of the first `len.div_ceil(64)`
/// words are cleared. Runs at the CPU's kernel level (see [`detected_level`]).
///
/// # Panics
/// If `out` has fewer than `len.div_ceil(64)` words, or `words` does not hold the values with
/// the codec's padding.
///
/// # Example
/// ```
/// use smartarrays::codec::{pack_into, range_mask, storage_words};
/// let values: Vec<u64> = (0..100).map(|i| i % 10).collect();
/// let mut words = vec![0u64; storage_words(values.len(), 4).unwrap()];
/// pack_into(&mut words, 4, values.iter().copied());
/// let mut mask = [0u64; 2];
/// range_mask(&words, 4, 0, 100, 3, 4, &mut mask);
/// let expected: Vec<usize> = (0..100).filter(|&i| (3..=4).contains(&values[i])).collect();
/// let found: Vec<usize> = (0..100).filter(|&k| mask[k / 64] >> (k % 64) & 1 == 1).collect();
/// assert_eq!(found, expected);
/// ```
pub fn range_mask(
    words: &[u64],
    bits: u32,
    start: usize,
    len: usize,
    lo: u64,
    hi: u64,
    out: &mut [u64],
) {
    range_mask_with(detected_level(), words, bits, start, len, lo, hi, out)
}

/// [`range_mask`] with an explicit kernel level (clamped to what the CPU supports).
#[allow(clippy::too_many_arguments)]
pub fn range_mask_with(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    start: usize,
    len: usize,
    lo: u64,
    hi: u64,
    out: &mut [u64],
) {
    let out = &mut out[..len.div_ceil(64)];
    out.fill(0);
    let hi = hi.min(max_value(bits));
    if lo > hi || len == 0 {
        return;
    }
    let span = hi - lo;
    let level = level.min(cpu_level());
    let group = match level {
        #[cfg(target_arch = "x86_64")]
        KernelLevel::Avx512 if bits <= super::x86::U32_LANE_MAX_BITS => 16,
        #[cfg(target_arch = "x86_64")]
        KernelLevel::Avx512 if !matches!(bits, 8 | 16 | 32 | 64) => 8,
        _ => 0,
    };
    let end = start + len;
    let (body_start, body_end) = if group == 0 {
        (end, end)
    } else {
        let body_start = start.next_multiple_of(group).min(end);
        (body_start, (end / group * group).max(body_start))
    };
    // Head and tail (and every value where no kernel applies): decoded into a buffer.
    let mut plain = |from: usize, to: usize| {
        let mut buffer = [0u64; 256];
        let mut at = from;
        while at < to {
            let n = (to - at).min(buffer.len());
            unpack_range_with(level, words, bits, at, &mut buffer[..n]);
            for (i, &v) in buffer[..n].iter().enumerate() {
                let k = at + i - start;
                out[k / 64] |= u64::from(v.wrapping_sub(lo) <= span) << (k % 64);
            }
            at += n;
        }
    };
    plain(start, body_start);
    plain(body_end, end);
    if body_end == body_start {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let bytes: &[u8] = bytemuck::cast_slice(words);
        // Group masks are OR-ed into `out` at the group's offset from `start` (aligned when
        // `start` is a multiple of 64, else possibly across two words).
        let mut place = |value_offset: usize, mask: u64, width: usize| {
            let (w, shift) = (value_offset / 64, value_offset % 64);
            out[w] |= mask << shift;
            if shift + width > 64 {
                out[w + 1] |= mask >> (64 - shift);
            }
        };
        let mut at = body_start;
        if group == 16 {
            let mut masks = [0u16; 64];
            while at < body_end {
                let groups = ((body_end - at) / 16).min(masks.len());
                // SAFETY: group 16 is chosen only at the AVX-512 level, clamped to the CPU's
                // features above; bits <= 25 there.
                unsafe {
                    super::x86::range_masks16_avx512(
                        bytes,
                        bits,
                        at / 16,
                        lo.min(u64::from(u32::MAX)) as u32,
                        span.min(u64::from(u32::MAX)) as u32,
                        &mut masks[..groups],
                    )
                };
                for (g, &m) in masks[..groups].iter().enumerate() {
                    place(at + 16 * g - start, u64::from(m), 16);
                }
                at += 16 * groups;
            }
        } else {
            let mut masks = [0u8; 128];
            while at < body_end {
                let groups = ((body_end - at) / 8).min(masks.len());
                // SAFETY: group 8 is chosen only at the AVX-512 level, clamped to the CPU's
                // features above.
                unsafe {
                    super::x86::range_masks8_avx512(
                        bytes,
                        bits,
                        at / 8,
                        lo,
                        span,
                        &mut masks[..groups],
                    )
                };
                for (g, &m) in masks[..groups].iter().enumerate() {
                    place(at + 8 * g - start, u64::from(m), 8);
                }
                at += 8 * groups;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{pack_into, storage_words};

    fn expected(values: &[u64], start: usize, len: usize, lo: u64, hi: u64) -> Vec<u64> {
        let mut out = vec![0u64; len.div_ceil(64)];
        for k in 0..len {
            if (lo..=hi).contains(&values[start + k]) {
                out[k / 64] |= 1 << (k % 64);
            }
        }
        out
    }

    fn packed(values: &[u64], bits: u32) -> Vec<u64> {
        let mut words = vec![0u64; storage_words(values.len(), bits).unwrap()];
        pack_into(&mut words, bits, values.iter().copied());
        words
    }

    fn pseudo_random(len: usize, bits: u32, seed: u64) -> Vec<u64> {
        let mut state = seed | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state & max_value(bits)
            })
            .collect()
    }

    #[test]
    fn every_width_level_and_edge_length_agrees_with_a_plain_test() {
        for bits in 1..=64u32 {
            let values = pseudo_random(2200, bits, u64::from(bits));
            let words = packed(&values, bits);
            let top = max_value(bits);
            let bounds = [
                (0, top),
                (top / 4, top / 2),
                (top, top),
                (0, 0),
                (top / 3 + 1, top / 3),
                (5, u64::MAX),
            ];
            for level in KernelLevel::supported() {
                for len in [0usize, 1, 15, 16, 17, 63, 64, 65, 1023, 1025, 2048] {
                    for start in [0usize, 1, 8, 16, 64, 100] {
                        for &(lo, hi) in &bounds {
                            let mut out = vec![u64::MAX; len.div_ceil(64) + 1];
                            range_mask_with(level, &words, bits, start, len, lo, hi, &mut out);
                            let want = expected(&values, start, len, lo, hi);
                            assert_eq!(
                                &out[..want.len()],
                                &want[..],
                                "bits {bits} {level:?} start {start} len {len} {lo}..={hi}"
                            );
                            // The word after the result is left alone.
                            assert_eq!(out[want.len()], u64::MAX);
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn random_ranges_agree_with_a_plain_test(
            bits in 1u32..=64,
            seed in proptest::prelude::any::<u64>(),
            start in 0usize..300,
            len in 0usize..1500,
            lo in proptest::prelude::any::<u64>(),
            width in proptest::prelude::any::<u64>(),
        ) {
            let values = pseudo_random(1800, bits, seed);
            let words = packed(&values, bits);
            let lo = lo & max_value(bits);
            let hi = lo.saturating_add(width & max_value(bits));
            for level in KernelLevel::supported() {
                let mut out = vec![0u64; len.div_ceil(64)];
                range_mask_with(level, &words, bits, start, len, lo, hi, &mut out);
                proptest::prop_assert_eq!(&out, &expected(&values, start, len, lo, hi));
            }
        }
    }
}
