//! Run-time kernel selection and the entry points that split a range into an unaligned head,
//! whole SIMD groups and a tail: `sum_range`, `unpack_range`, `unpack_differences` (decode and
//! subtract neighbours in one pass, e.g. CSR degrees from offsets), `differences` (the same on
//! plain values) and `pack_slice`.
//!
//! The level is detected once per process; `SMARTARRAYS_KERNEL=scalar|avx2|avx512` lowers it
//! (never raises it above what the CPU has), so every kernel can be tested on one machine.

use std::sync::OnceLock;

use super::{max_value, scalar};

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
        [KernelLevel::Scalar, KernelLevel::Avx2, KernelLevel::Avx512]
            .into_iter()
            .filter(|&l| l <= best)
            .collect()
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
pub(super) fn cpu_level() -> KernelLevel {
    static BEST: OnceLock<KernelLevel> = OnceLock::new();
    *BEST.get_or_init(detect_cpu_level)
}

fn detect_cpu_level() -> KernelLevel {
    #[cfg(target_arch = "x86_64")]
    {
        // The AVX-512 level also runs the AVX2 kernels, so it requires AVX2 too (every AVX-512
        // CPU has it).
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
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

/// Environment variable that lowers the kernel level: `scalar`, `avx2` or `avx512` (a level the
/// CPU lacks falls back to the best it has).
pub const KERNEL_ENV: &str = "SMARTARRAYS_KERNEL";

/// The level `SMARTARRAYS_KERNEL` asks for: `None` when it is unset or empty, an
/// [`Error::InvalidRuntime`](crate::Error::InvalidRuntime) naming the value when it is not a
/// level. Runtimes check it when they start, so a typo is an error, never silently ignored.
pub fn kernel_setting() -> crate::Result<Option<KernelLevel>> {
    let Ok(text) = std::env::var(KERNEL_ENV) else {
        return Ok(None);
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "scalar" => Ok(Some(KernelLevel::Scalar)),
        "avx2" => Ok(Some(KernelLevel::Avx2)),
        "avx512" | "avx-512" => Ok(Some(KernelLevel::Avx512)),
        _ => Err(crate::Error::InvalidRuntime(format!(
            "{KERNEL_ENV}={text:?} is not a kernel level: use scalar, avx2 or avx512, or unset it"
        ))),
    }
}

/// The level used by [`sum_range`] and [`unpack_range`]: the best the CPU supports, lowered by
/// `SMARTARRAYS_KERNEL` when set (see [`kernel_setting`]).
pub fn detected_level() -> KernelLevel {
    static LEVEL: OnceLock<KernelLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let best = cpu_level();
        kernel_setting().ok().flatten().unwrap_or(best).min(best)
    })
}

/// Wrapping sum of values `start..end` stored at `bits` bits in padded storage `words`.
pub fn sum_range(words: &[u64], bits: u32, start: usize, end: usize) -> u64 {
    sum_range_with(detected_level(), words, bits, start, end)
}

/// [`sum_range`] with an explicit kernel level (clamped to what the CPU supports).
pub fn sum_range_with(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    start: usize,
    end: usize,
) -> u64 {
    debug_assert!(start <= end);
    if bits == 64 {
        return words[start..end]
            .iter()
            .fold(0u64, |s, &v| s.wrapping_add(v));
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
        (KernelLevel::Avx512, 16) => unsafe {
            super::x86::sum_groups16_avx512(bytes, bits, first, groups)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above, and VBMI2 is checked here.
        (KernelLevel::Avx512, 8) if bits > 56 && has_vbmi2() => unsafe {
            super::x86::sum_groups8_straddling_vbmi2(bytes, bits, first, groups)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx512, 8) => unsafe {
            super::x86::sum_groups8_avx512(bytes, bits, first, groups)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx2, 8) => unsafe {
            super::x86::sum_groups8_avx2(bytes, bits, first, groups)
        },
        _ => scalar::sum_chunks(words, bits, first, groups),
    });
    sum.wrapping_add(scalar::sum_each(words, bits, body_end, end))
}

/// Decodes values `start..start + out.len()` into `out`.
pub fn unpack_range(words: &[u64], bits: u32, start: usize, out: &mut [u64]) {
    unpack_range_with(detected_level(), words, bits, start, out)
}

/// [`unpack_range`] with an explicit kernel level (clamped to what the CPU supports).
pub fn unpack_range_with(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    start: usize,
    out: &mut [u64],
) {
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
    let GroupSplit {
        head,
        first_group: first,
        body,
        tail_start,
        tail,
    } = split_groups(out, start, group);
    scalar::unpack_each(words, bits, start, head);
    match (level, group) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx512, 8) => unsafe {
            super::x86::unpack_groups8_avx512(bytes, bits, first, body)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features above.
        (KernelLevel::Avx2, 8) => unsafe {
            super::x86::unpack_groups8_avx2(bytes, bits, first, body)
        },
        _ => scalar::unpack_chunks(words, bits, first, body),
    }
    scalar::unpack_each(words, bits, tail_start, tail);
}

/// Packs `values` (masked to `bits`) into `words` from the first bit of `words[0]`, like
/// [`pack_into`](super::pack_into), but whole 64-value chunks go through a fast encoder: AVX-512
/// byte permutes for 8..=63 bits where the CPU has them, else an encoder with the width known at
/// compile time. Returns the number of words written.
///
/// # Example
/// ```
/// use smartarrays::codec::{get, pack_slice, storage_words};
/// let values: Vec<u64> = (0..100).collect();
/// let mut words = vec![0u64; storage_words(values.len(), 7).unwrap()];
/// assert_eq!(pack_slice(&mut words, 7, &values), 11); // 700 bits
/// assert_eq!(get(&words, 7, 99), 99);
/// ```
pub fn pack_slice(words: &mut [u64], bits: u32, values: &[u64]) -> usize {
    pack_slice_with(detected_level(), words, bits, values)
}

/// [`pack_slice`] with an explicit kernel level (clamped to what the CPU supports).
pub fn pack_slice_with(level: KernelLevel, words: &mut [u64], bits: u32, values: &[u64]) -> usize {
    let whole = values.len() / 64 * 64;
    let chunk_words = whole / 64 * bits as usize;
    match level.min(cpu_level()) {
        #[cfg(target_arch = "x86_64")]
        KernelLevel::Avx512
            if (super::x86::PACK_MIN_BITS..=super::x86::PACK_MAX_BITS).contains(&bits) =>
        {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words[..chunk_words]);
            // SAFETY: the level was clamped to the CPU's features above.
            unsafe { super::x86::pack_groups8_avx512(&values[..whole], bits, bytes) }
        }
        _ => scalar::pack_chunks(words, bits, &values[..whole]),
    }
    let mask = max_value(bits);
    chunk_words
        + scalar::pack_into(
            &mut words[chunk_words..],
            bits,
            values[whole..].iter().map(|&v| v & mask),
        )
}

/// How a kernel's results combine with what its output already holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// The output is overwritten.
    Overwrite,
    /// Each result is added (wrapping) to the output value in its place.
    Add,
}

/// Differences of neighbouring values: `out[i] = values[i + 1] - values[i]` (wrapping), or added
/// to `out[i]` with [`Combine::Add`], vectorised at the CPU's level. Degrees from CSR offsets.
///
/// # Panics
/// If `values.len() != out.len() + 1`.
///
/// # Example
/// ```
/// use smartarrays::codec::{differences, Combine};
/// let offsets = [0u64, 3, 3, 7];
/// let mut degrees = [0u64; 3];
/// differences(&offsets, &mut degrees, Combine::Overwrite);
/// assert_eq!(degrees, [3, 0, 4]);
/// differences(&offsets, &mut degrees, Combine::Add);
/// assert_eq!(degrees, [6, 0, 8]);
/// ```
pub fn differences<T: Copy + Into<u64>>(values: &[T], out: &mut [u64], combine: Combine) {
    differences_with(detected_level(), values, out, combine)
}

/// [`differences`] with an explicit kernel level (clamped to what the CPU supports).
pub fn differences_with<T: Copy + Into<u64>>(
    level: KernelLevel,
    values: &[T],
    out: &mut [u64],
    combine: Combine,
) {
    let add = combine == Combine::Add;
    match (level.min(cpu_level()), add) {
        // 256-bit vectors at both SIMD levels (see `differences_avx2`).
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features; both SIMD levels include AVX2.
        (KernelLevel::Avx512 | KernelLevel::Avx2, false) => unsafe {
            super::x86::differences_avx2::<T, false>(values, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        (KernelLevel::Avx512 | KernelLevel::Avx2, true) => unsafe {
            super::x86::differences_avx2::<T, true>(values, out)
        },
        (_, false) => scalar::differences::<T, false>(values, out),
        (_, true) => scalar::differences::<T, true>(values, out),
    }
}

/// Decodes values `start..=start + out.len()` and writes the differences of neighbours:
/// `out[i] = v[start + i + 1] - v[start + i]` (wrapping), or adds them with [`Combine::Add`].
/// On AVX-512 the decode and the subtraction are one pass over registers; elsewhere values are
/// decoded a block at a time into a stack buffer. Reads one value past `out`'s range, which must
/// exist.
pub fn unpack_differences(
    words: &[u64],
    bits: u32,
    start: usize,
    out: &mut [u64],
    combine: Combine,
) {
    unpack_differences_with(detected_level(), words, bits, start, out, combine)
}

/// [`unpack_differences`] with an explicit kernel level (clamped to what the CPU supports).
pub fn unpack_differences_with(
    level: KernelLevel,
    words: &[u64],
    bits: u32,
    start: usize,
    out: &mut [u64],
    combine: Combine,
) {
    let end = start + out.len();
    match bits {
        64 => return differences_with(level, &words[start..=end], out, combine),
        32 => {
            return differences_with(
                level,
                &bytemuck::cast_slice::<u64, u32>(words)[start..=end],
                out,
                combine,
            )
        }
        16 => {
            return differences_with(
                level,
                &bytemuck::cast_slice::<u64, u16>(words)[start..=end],
                out,
                combine,
            )
        }
        8 => {
            return differences_with(
                level,
                &bytemuck::cast_slice::<u64, u8>(words)[start..=end],
                out,
                combine,
            )
        }
        _ => {}
    }
    let level = level.min(cpu_level());
    #[cfg(target_arch = "x86_64")]
    if level == KernelLevel::Avx512 {
        let GroupSplit {
            head,
            first_group,
            body,
            tail_start,
            tail,
        } = split_groups(out, start, 8);
        differences_one_by_one(words, bits, start, head, combine);
        let bytes: &[u8] = bytemuck::cast_slice(words);
        // SAFETY: the level was clamped to the CPU's features above.
        unsafe {
            match combine {
                Combine::Overwrite => super::x86::unpack_differences_groups8_avx512::<false>(
                    bytes,
                    bits,
                    first_group,
                    body,
                ),
                Combine::Add => super::x86::unpack_differences_groups8_avx512::<true>(
                    bytes,
                    bits,
                    first_group,
                    body,
                ),
            }
        }
        return differences_one_by_one(words, bits, tail_start, tail, combine);
    }
    // Decoded a block at a time (the last value of a block starts the next one).
    let mut buffer = [0u64; 513];
    let mut position = start;
    for piece in out.chunks_mut(buffer.len() - 1) {
        let values = &mut buffer[..piece.len() + 1];
        unpack_range_with(level, words, bits, position, values);
        differences_with(level, values, piece, combine);
        position += piece.len();
    }
}

/// Sums of two sequences' neighbour differences: `out[i] = (a[i + 1] - a[i]) + (b[i + 1] - b[i])`
/// (wrapping), one vectorised loop over both (out-degree plus in-degree from the offsets of both
/// directions of a CSR graph).
///
/// # Panics
/// If `a` or `b` is not exactly one longer than `out`.
///
/// # Example
/// ```
/// use smartarrays::codec::paired_differences;
/// let (forward, reverse) = ([0u64, 2, 3], [0u32, 1, 4]);
/// let mut degrees = [0u64; 2];
/// paired_differences(&forward, &reverse, &mut degrees);
/// assert_eq!(degrees, [3, 4]);
/// ```
pub fn paired_differences<T: Copy + Into<u64>, U: Copy + Into<u64>>(
    a: &[T],
    b: &[U],
    out: &mut [u64],
) {
    paired_differences_with(detected_level(), a, b, out)
}

/// [`paired_differences`] with an explicit kernel level (clamped to what the CPU supports).
pub fn paired_differences_with<T: Copy + Into<u64>, U: Copy + Into<u64>>(
    level: KernelLevel,
    a: &[T],
    b: &[U],
    out: &mut [u64],
) {
    match level.min(cpu_level()) {
        // 256-bit vectors at both SIMD levels (see `differences_avx2`).
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the level was clamped to the CPU's features; both SIMD levels include AVX2.
        KernelLevel::Avx512 | KernelLevel::Avx2 => unsafe {
            super::x86::paired_differences_avx2(a, b, out)
        },
        _ => scalar::paired_differences(a, b, out),
    }
}

/// [`paired_differences`] of two packed arrays (`(words, bits)` each), over values
/// `start..=start + out.len()` of both: on AVX-512 both are decoded and subtracted in one pass
/// over registers; elsewhere one array after the other (`unpack_differences`). Both must hold a
/// value at `start + out.len()`.
pub fn unpack_paired_differences(
    a: (&[u64], u32),
    b: (&[u64], u32),
    start: usize,
    out: &mut [u64],
) {
    unpack_paired_differences_with(detected_level(), a, b, start, out)
}

/// [`unpack_paired_differences`] with an explicit kernel level (clamped to what the CPU supports).
pub fn unpack_paired_differences_with(
    level: KernelLevel,
    a: (&[u64], u32),
    b: (&[u64], u32),
    start: usize,
    out: &mut [u64],
) {
    let end = start + out.len();
    let level = level.min(cpu_level());
    match (a.1, b.1) {
        (64, 64) => {
            return paired_differences_with(level, &a.0[start..=end], &b.0[start..=end], out)
        }
        (32, 32) => {
            let (a32, b32) = (
                bytemuck::cast_slice::<u64, u32>(a.0),
                bytemuck::cast_slice::<u64, u32>(b.0),
            );
            return paired_differences_with(level, &a32[start..=end], &b32[start..=end], out);
        }
        _ => {}
    }
    #[cfg(target_arch = "x86_64")]
    if level == KernelLevel::Avx512 && a.1 < 64 && b.1 < 64 {
        let GroupSplit {
            head,
            first_group,
            body,
            tail_start,
            tail,
        } = split_groups(out, start, 8);
        let (bytes_a, bytes_b): (&[u8], &[u8]) =
            (bytemuck::cast_slice(a.0), bytemuck::cast_slice(b.0));
        // SAFETY: the level was clamped to the CPU's features above.
        unsafe {
            super::x86::unpack_paired_differences_groups8_avx512(
                (bytes_a, a.1),
                (bytes_b, b.1),
                first_group,
                body,
            )
        };
        for (part, part_start) in [(head, start), (tail, tail_start)] {
            differences_one_by_one(a.0, a.1, part_start, part, Combine::Overwrite);
            differences_one_by_one(b.0, b.1, part_start, part, Combine::Add);
        }
        return;
    }
    // One array after the other, each decoded a block at a time.
    unpack_differences_with(level, a.0, a.1, start, out, Combine::Overwrite);
    unpack_differences_with(level, b.0, b.1, start, out, Combine::Add);
}

/// The differences of `out.len()` neighbours from `start` on, each value read with `get`.
fn differences_one_by_one(
    words: &[u64],
    bits: u32,
    start: usize,
    out: &mut [u64],
    combine: Combine,
) {
    for (offset, slot) in out.iter_mut().enumerate() {
        let difference = scalar::get(words, bits, start + offset + 1).wrapping_sub(scalar::get(
            words,
            bits,
            start + offset,
        ));
        *slot = match combine {
            Combine::Overwrite => difference,
            Combine::Add => slot.wrapping_add(difference),
        };
    }
}

/// `out`, which holds values `start..start + out.len()`, split where whole `group`-value groups
/// begin and end: the unaligned head, the body of whole groups (starting at group `first_group`)
/// and the tail (starting at value `tail_start`).
struct GroupSplit<'a> {
    head: &'a mut [u64],
    first_group: usize,
    body: &'a mut [u64],
    tail_start: usize,
    tail: &'a mut [u64],
}

fn split_groups(out: &mut [u64], start: usize, group: usize) -> GroupSplit<'_> {
    let end = start + out.len();
    let body_start = start.next_multiple_of(group).min(end);
    let body_end = (end / group * group).max(body_start);
    let (head, rest) = out.split_at_mut(body_start - start);
    let (body, tail) = rest.split_at_mut(body_end - body_start);
    GroupSplit {
        head,
        first_group: body_start / group,
        body,
        tail_start: body_end,
        tail,
    }
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
pub(super) fn has_vbmi2() -> bool {
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
                assert_eq!(
                    sum_range_with(level, &words, bits, 0, len),
                    expected,
                    "bits {bits} {level:?}"
                );
                assert_eq!(
                    sum_range_with(level, &words, bits, 5, len),
                    expected.wrapping_sub(5u64.wrapping_mul(max_value(bits)))
                );
            }
        }
    }

    #[test]
    fn every_level_agrees_with_get_at_every_width_and_alignment() {
        for bits in 1..=64u32 {
            let len = 1000;
            let values: Vec<u64> = (0..len as u64)
                .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3) & max_value(bits))
                .collect();
            let mut words = vec![0u64; storage_words(len, bits).unwrap()];
            pack_into(&mut words, bits, values.iter().copied());
            for level in KernelLevel::supported() {
                for (start, end) in [
                    (0, len),
                    (3, 997),
                    (16, 48),
                    (5, 9),
                    (0, 0),
                    (999, 1000),
                    (64, 1000),
                ] {
                    let expected = values[start..end]
                        .iter()
                        .fold(0u64, |s, &v| s.wrapping_add(v));
                    assert_eq!(
                        sum_range_with(level, &words, bits, start, end),
                        expected,
                        "sum bits {bits} {level:?} {start}..{end}"
                    );
                    let mut out = vec![0u64; end - start];
                    unpack_range_with(level, &words, bits, start, &mut out);
                    assert_eq!(
                        out,
                        &values[start..end],
                        "unpack bits {bits} {level:?} {start}..{end}"
                    );
                }
            }
        }
    }

    #[test]
    fn pack_slice_equals_pack_into_at_every_level_width_and_length() {
        for bits in 1..=64 {
            for len in [
                0usize,
                1,
                7,
                8,
                63,
                64,
                65,
                127,
                128,
                1023,
                1024,
                1025,
                4096 + 64,
            ] {
                // Values wider than the width too: both must keep only the low `bits` bits.
                let values: Vec<u64> = (0..len as u64)
                    .map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
                    .collect();
                let words = storage_words(len, bits).unwrap();
                let mut reference = vec![u64::MAX; words];
                let expected = pack_into(
                    &mut reference,
                    bits,
                    values.iter().map(|&v| v & max_value(bits)),
                );
                for level in KernelLevel::supported() {
                    let mut fast = vec![u64::MAX; words];
                    let written = pack_slice_with(level, &mut fast, bits, &values);
                    assert_eq!(written, expected, "bits {bits} len {len} {level:?}");
                    assert_eq!(fast, reference, "bits {bits} len {len} {level:?}");
                }
            }
        }
    }

    #[test]
    fn pack_slice_keeps_the_words_after_its_output() {
        // The packer writes only its own words, even where a full vector store would reach further.
        for bits in [8u32, 13, 20, 26, 33, 56, 57, 63] {
            let values: Vec<u64> = (0..256u64).map(|i| (i * 7919) & max_value(bits)).collect();
            for level in KernelLevel::supported() {
                let mut words = vec![0xDEAD_BEEF_u64; 4 * bits as usize + 16];
                let written = pack_slice_with(level, &mut words, bits, &values);
                assert_eq!(written, 4 * bits as usize);
                assert!(
                    words[written..].iter().all(|&w| w == 0xDEAD_BEEF),
                    "bits {bits} {level:?}"
                );
            }
        }
    }

    #[test]
    fn differences_agree_with_a_plain_loop_at_every_level() {
        let values: Vec<u64> = (0..1100u64).map(|i| i * i / 3 + (i % 7)).collect();
        for level in KernelLevel::supported() {
            for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 1023, 1025] {
                let expected: Vec<u64> = (0..len)
                    .map(|i| values[i + 1].wrapping_sub(values[i]))
                    .collect();
                let mut out = vec![u64::MAX; len];
                differences_with(level, &values[..=len], &mut out, Combine::Overwrite);
                assert_eq!(out, expected, "{level:?} len {len}");
                differences_with(level, &values[..=len], &mut out, Combine::Add);
                assert_eq!(
                    out,
                    expected
                        .iter()
                        .map(|v| v.wrapping_mul(2))
                        .collect::<Vec<_>>(),
                    "{level:?} len {len}"
                );
                let narrow: Vec<u32> = values[..=len].iter().map(|&v| v as u32).collect();
                differences_with(level, &narrow, &mut out, Combine::Overwrite);
                assert_eq!(out, expected, "u32 {level:?} len {len}");
            }
            // Decreasing neighbours wrap.
            let mut out = [0u64; 1];
            differences_with(level, &[5u64, 3], &mut out, Combine::Overwrite);
            assert_eq!(out, [u64::MAX - 1]);
        }
    }

    #[test]
    fn unpack_differences_agree_with_get_at_every_level_width_and_alignment() {
        for bits in 1..=64u32 {
            let len = 1200;
            // Random values (differences wrap), and at the widest values too.
            let values: Vec<u64> = (0..len as u64)
                .map(|i| {
                    if i % 97 == 5 {
                        max_value(bits)
                    } else {
                        (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 5) & max_value(bits)
                    }
                })
                .collect();
            let mut words = vec![0u64; storage_words(len, bits).unwrap()];
            pack_into(&mut words, bits, values.iter().copied());
            for level in KernelLevel::supported() {
                for (start, count) in [
                    (0, len - 1),
                    (3, 996),
                    (16, 32),
                    (5, 3),
                    (0, 0),
                    (1198, 1),
                    (64, 1135),
                    (8, 8),
                    (1191, 8),
                ] {
                    let expected: Vec<u64> = (start..start + count)
                        .map(|i| values[i + 1].wrapping_sub(values[i]))
                        .collect();
                    let mut out = vec![7u64; count];
                    unpack_differences_with(
                        level,
                        &words,
                        bits,
                        start,
                        &mut out,
                        Combine::Overwrite,
                    );
                    assert_eq!(out, expected, "bits {bits} {level:?} {start}+{count}");
                    unpack_differences_with(level, &words, bits, start, &mut out, Combine::Add);
                    let doubled: Vec<u64> = expected.iter().map(|v| v.wrapping_mul(2)).collect();
                    assert_eq!(out, doubled, "add bits {bits} {level:?} {start}+{count}");
                }
            }
        }
    }

    #[test]
    fn paired_differences_agree_with_a_plain_loop_at_every_level_and_width_pair() {
        let len = 700;
        for (bits_a, bits_b) in [
            (64, 64),
            (32, 32),
            (26, 26),
            (1, 63),
            (63, 1),
            (64, 20),
            (33, 57),
            (8, 16),
            (56, 64),
        ] {
            let make = |bits: u32, seed: u64| -> Vec<u64> {
                (0..len as u64)
                    .map(|i| {
                        (i.wrapping_add(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
                            & max_value(bits)
                    })
                    .collect()
            };
            let (a, b) = (make(bits_a, 1), make(bits_b, 2));
            let (mut words_a, mut words_b) = (
                vec![0u64; storage_words(len, bits_a).unwrap()],
                vec![0u64; storage_words(len, bits_b).unwrap()],
            );
            pack_into(&mut words_a, bits_a, a.iter().copied());
            pack_into(&mut words_b, bits_b, b.iter().copied());
            for level in KernelLevel::supported() {
                for (start, count) in [
                    (0, len - 1),
                    (3, 600),
                    (16, 32),
                    (5, 2),
                    (0, 0),
                    (698, 1),
                    (64, 635),
                ] {
                    let expected: Vec<u64> = (start..start + count)
                        .map(|i| {
                            a[i + 1]
                                .wrapping_sub(a[i])
                                .wrapping_add(b[i + 1].wrapping_sub(b[i]))
                        })
                        .collect();
                    let mut out = vec![9u64; count];
                    unpack_paired_differences_with(
                        level,
                        (&words_a, bits_a),
                        (&words_b, bits_b),
                        start,
                        &mut out,
                    );
                    assert_eq!(
                        out, expected,
                        "bits {bits_a}/{bits_b} {level:?} {start}+{count}"
                    );
                    let mut plain = vec![9u64; count];
                    paired_differences_with(
                        level,
                        &a[start..=start + count],
                        &b[start..=start + count],
                        &mut plain,
                    );
                    assert_eq!(plain, expected, "slices {level:?} {start}+{count}");
                }
            }
        }
    }
}
