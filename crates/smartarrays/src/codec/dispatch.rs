//! Run-time kernel selection and the range entry points (`sum_range`, `unpack_range`) that split
//! a range into an unaligned head, whole SIMD groups and a tail.
//!
//! The level is detected once per process; `SMARTARRAYS_KERNEL=scalar|avx2|avx512` lowers it
//! (never raises it above what the CPU has), so every kernel can be tested on one machine.

use std::sync::OnceLock;

use super::scalar;

/// Which family of kernels decodes packed data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelLevel {
    /// Portable Rust, widths fixed at compile time per 64-value chunk.
    Scalar,
    /// AVX2 byte shuffles (x86-64), for widths up to 56 bits; wider ones use `Scalar`.
    Avx2,
    /// AVX-512 F/BW/VBMI byte permutes (x86-64), every width.
    Avx512,
}

impl KernelLevel {
    /// Levels this CPU can run, lowest first.
    pub fn supported() -> Vec<KernelLevel> {
        let best = cpu_level();
        [KernelLevel::Scalar, KernelLevel::Avx2, KernelLevel::Avx512].into_iter().filter(|&l| l <= best).collect()
    }

    /// Lower-case name (`scalar`, `avx2`, `avx512`).
    pub fn name(self) -> &'static str {
        match self {
            KernelLevel::Scalar => "scalar",
            KernelLevel::Avx2 => "avx2",
            KernelLevel::Avx512 => "avx512",
        }
    }
}

/// The best level this CPU supports, detected once.
fn cpu_level() -> KernelLevel {
    static BEST: OnceLock<KernelLevel> = OnceLock::new();
    *BEST.get_or_init(detect_cpu_level)
}

fn detect_cpu_level() -> KernelLevel {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
        {
            return KernelLevel::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return KernelLevel::Avx2;
        }
    }
    KernelLevel::Scalar
}

/// The level used by [`sum_range`] and [`unpack_range`]: the best the CPU supports, lowered by
/// `SMARTARRAYS_KERNEL` when set.
pub fn detected_level() -> KernelLevel {
    static LEVEL: OnceLock<KernelLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let best = cpu_level();
        let wanted = match std::env::var("SMARTARRAYS_KERNEL").ok().as_deref() {
            Some("scalar") => KernelLevel::Scalar,
            Some("avx2") => KernelLevel::Avx2,
            _ => best,
        };
        wanted.min(best)
    })
}

/// Wrapping sum of values `start..end` stored at `bits` bits in padded storage `words`.
pub fn sum_range(words: &[u64], bits: u32, start: usize, end: usize) -> u64 {
    sum_range_with(detected_level(), words, bits, start, end)
}

/// [`sum_range`] with an explicit kernel level (clamped to what the CPU supports).
pub fn sum_range_with(level: KernelLevel, words: &[u64], bits: u32, start: usize, end: usize) -> u64 {
    debug_assert!(start <= end);
    if bits == 64 {
        return words[start..end].iter().fold(0u64, |s, &v| s.wrapping_add(v));
    }
    let level = level.min(cpu_level());
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let group = group_size(level, bits);
    let body_start = start.next_multiple_of(group).min(end);
    let body_end = (end / group * group).max(body_start);
    let mut sum = scalar::sum_each(words, bits, start, body_start);
    let (first, groups) = (body_start / group, (body_end - body_start) / group);
    sum = sum.wrapping_add(match (level, group) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx512, 16) => unsafe { super::x86::sum_groups16_avx512(bytes, bits, first, groups) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above, and VBMI2 is checked here.
        (KernelLevel::Avx512, 8) if bits > 56 && has_vbmi2() => unsafe {
            super::x86::sum_groups8_straddling_vbmi2(bytes, bits, first, groups)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx512, 8) => unsafe { super::x86::sum_groups8_avx512(bytes, bits, first, groups) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx2, 8) => unsafe { super::x86::sum_groups8_avx2(bytes, bits, first, groups) },
        _ => scalar::sum_chunks(words, bits, first, groups),
    });
    sum.wrapping_add(scalar::sum_each(words, bits, body_end, end))
}

/// Decodes values `start..start + out.len()` into `out`.
pub fn unpack_range(words: &[u64], bits: u32, start: usize, out: &mut [u64]) {
    unpack_range_with(detected_level(), words, bits, start, out)
}

/// [`unpack_range`] with an explicit kernel level (clamped to what the CPU supports).
pub fn unpack_range_with(level: KernelLevel, words: &[u64], bits: u32, start: usize, out: &mut [u64]) {
    let end = start + out.len();
    let bytes: &[u8] = bytemuck::cast_slice(words);
    match bits {
        64 => return out.copy_from_slice(&words[start..end]),
        32 => return widen(&bytemuck::cast_slice::<u64, u32>(words)[start..end], out),
        16 => return widen(&bytemuck::cast_slice::<u64, u16>(words)[start..end], out),
        8 => return widen(&bytes[start..end], out),
        _ => {}
    }
    let level = level.min(cpu_level());
    // Decoding into a buffer favours u64 lanes at every width (no widening of u32 lanes).
    let group = match group_size(level, bits) {
        16 => 8,
        other => other,
    };
    let body_start = start.next_multiple_of(group).min(end);
    let body_end = (end / group * group).max(body_start);
    let (head, rest) = out.split_at_mut(body_start - start);
    let (body, tail) = rest.split_at_mut(body_end - body_start);
    scalar::unpack_each(words, bits, start, head);
    let first = body_start / group;
    match (level, group) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx512, 8) => unsafe { super::x86::unpack_groups8_avx512(bytes, bits, first, body) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx2, 8) => unsafe { super::x86::unpack_groups8_avx2(bytes, bits, first, body) },
        _ => scalar::unpack_chunks(words, bits, first, body),
    }
    scalar::unpack_each(words, bits, body_end, tail);
}

/// Values per kernel step: 16 for the u32-lane AVX-512 kernels, 8 for the u64-lane SIMD
/// kernels, 64 (one chunk) for the scalar decoders.
fn group_size(level: KernelLevel, bits: u32) -> usize {
    match level {
        #[cfg(target_arch = "x86_64")]
        KernelLevel::Avx512 if bits <= super::x86::U32_LANE_MAX_BITS => 16,
        KernelLevel::Avx512 => 8,
        KernelLevel::Avx2 if bits <= 56 => 8,
        _ => 64,
    }
}

/// Whether the CPU has AVX-512 VBMI2 (funnel shifts), used for widths above 56 bits.
fn has_vbmi2() -> bool {
    static VBMI2: OnceLock<bool> = OnceLock::new();
    *VBMI2.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512vbmi2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

fn widen<T: Copy + Into<u64>>(source: &[T], out: &mut [u64]) {
    for (slot, &value) in out.iter_mut().zip(source) {
        *slot = value.into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{max_value, pack_into, storage_words};

    #[test]
    fn long_runs_of_maximum_values_do_not_overflow_narrow_lanes() {
        for bits in 1..=64u32 {
            let len = 40_000 + 13;
            let mut words = vec![0u64; storage_words(len, bits).unwrap()];
            pack_into(&mut words, bits, std::iter::repeat_n(max_value(bits), len));
            let expected = (0..len).fold(0u64, |s, _| s.wrapping_add(max_value(bits)));
            for level in KernelLevel::supported() {
                assert_eq!(sum_range_with(level, &words, bits, 0, len), expected, "bits {bits} {level:?}");
                assert_eq!(sum_range_with(level, &words, bits, 5, len), expected.wrapping_sub(5u64.wrapping_mul(max_value(bits))));
            }
        }
    }

    #[test]
    fn every_level_agrees_with_get_at_every_width_and_alignment() {
        for bits in 1..=64u32 {
            let len = 1000;
            let values: Vec<u64> = (0..len as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3) & max_value(bits)).collect();
            let mut words = vec![0u64; storage_words(len, bits).unwrap()];
            pack_into(&mut words, bits, values.iter().copied());
            for level in KernelLevel::supported() {
                for (start, end) in [(0, len), (3, 997), (16, 48), (5, 9), (0, 0), (999, 1000), (64, 1000)] {
                    let expected = values[start..end].iter().fold(0u64, |s, &v| s.wrapping_add(v));
                    assert_eq!(sum_range_with(level, &words, bits, start, end), expected, "sum bits {bits} {level:?} {start}..{end}");
                    let mut out = vec![0u64; end - start];
                    unpack_range_with(level, &words, bits, start, &mut out);
                    assert_eq!(out, &values[start..end], "unpack bits {bits} {level:?} {start}..{end}");
                }
            }
        }
    }
}
