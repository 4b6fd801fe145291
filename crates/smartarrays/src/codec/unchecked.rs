//! Random reads without bounds checks, for callers that have already checked the index against
//! the array's length (a batched gather checks all its indices once, then reads without a branch
//! per value). The one place in the codec that reads packed words through raw pointers.
//!
//! A random read out of cache costs what the CPU can keep in flight while it waits for memory,
//! so the fewer integer instructions a read issues the more reads overlap. [`ReadKernel`] picks
//! the sequence once (per view): on CPUs with AVX-512 VBMI2 one 16-byte load and a funnel shift
//! in a vector register (leaving the integer side to the caller's loop); elsewhere one 8-byte
//! window up to 56 bits and, from 57 to 63 bits on x86-64, one 16-byte load shifted with SSE2
//! (two separate loads of the same line measured 2.4 ns slower per read than one).

use std::sync::OnceLock;

use super::max_value;

/// The instruction sequence random reads decode a value with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadKernel {
    /// Plain Rust: an 8-byte window up to 56 bits; from 57 to 63 bits a 16-byte window (SSE2
    /// on x86-64, a `u128` elsewhere).
    Portable,
    /// AVX-512 VBMI2 (with VL and BMI2): the value's two aligned words in one 16-byte load,
    /// `vpshrdvq` by the bit offset, the mask, all in a vector register: every width 1..=63 in
    /// the same five instructions after the multiply.
    Vbmi2,
}

impl ReadKernel {
    /// The fastest sequence the CPU has, at or below the process's kernel level
    /// (`SMARTARRAYS_KERNEL=avx2` or `=scalar` select [`ReadKernel::Portable`]).
    pub fn detected() -> ReadKernel {
        static KERNEL: OnceLock<ReadKernel> = OnceLock::new();
        *KERNEL.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                use super::dispatch::{detected_level, has_vbmi2, KernelLevel};
                if detected_level() == KernelLevel::Avx512
                    && has_vbmi2()
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("bmi2")
                {
                    return ReadKernel::Vbmi2;
                }
            }
            ReadKernel::Portable
        })
    }

    /// Short name for reports: `portable` or `vbmi2`.
    pub fn name(self) -> &'static str {
        match self {
            ReadKernel::Portable => "portable",
            ReadKernel::Vbmi2 => "vbmi2",
        }
    }
}

/// Reads value `index` from words packed at `bits` bits, without bounds checks, with the
/// portable sequence ([`get_unchecked_with`] picks a kernel).
///
/// # Safety
/// `words` must hold the packed values `0..=index` at `bits` bits followed by the storage's
/// [`super::PADDING_WORDS`] words of padding, as every array's storage does: then the 8- or
/// 16-byte window read here lies inside `words`.
#[inline(always)]
pub unsafe fn get_unchecked(words: &[u64], bits: u32, index: usize) -> u64 {
    // SAFETY: forwarded (the caller's contract).
    unsafe { get_unchecked_with(ReadKernel::Portable, words, bits, index) }
}

/// [`get_unchecked`] with the given kernel. Pass [`ReadKernel::detected`] (or a kernel it
/// returned): [`ReadKernel::Vbmi2`] on a CPU without those features faults.
///
/// # Safety
/// As [`get_unchecked`], and `kernel` must be [`ReadKernel::Portable`] or one that
/// [`ReadKernel::detected`] returned in this process.
#[inline(always)]
pub unsafe fn get_unchecked_with(
    kernel: ReadKernel,
    words: &[u64],
    bits: u32,
    index: usize,
) -> u64 {
    debug_assert!((1..=64).contains(&bits));
    if bits == 64 {
        debug_assert!(index < words.len());
        // SAFETY: at 64 bits value `index` is word `index`, inside `words` by the contract.
        return unsafe { *words.get_unchecked(index) };
    }
    let bit = index * bits as usize;
    let start = bit / 8;
    debug_assert!(start + 16 <= std::mem::size_of_val(words));
    #[cfg(target_arch = "x86_64")]
    if kernel == ReadKernel::Vbmi2 {
        // SAFETY: the aligned word holding the value's first bit starts at or before byte
        // `start`, so its 16 bytes lie inside `words` (contract); the CPU has VBMI2, VL and BMI2
        // (the kernel came from `ReadKernel::detected`).
        return unsafe { x86::get_vbmi2(words.as_ptr(), bits, bit) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernel;
    let base = words.as_ptr().cast::<u8>();
    if bits <= 56 {
        // SAFETY: the value's bytes start at `start`; with the padding after the data, the 8 bytes
        // from there lie inside `words` (contract). Unaligned reads are allowed on every target.
        let window = unsafe { base.add(start).cast::<u64>().read_unaligned() };
        return (u64::from_le(window) >> (bit % 8)) & max_value(bits);
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the aligned word holding the first bit starts at or before byte `start`, so
        // its 16 bytes lie inside `words` (contract); SSE2 is part of x86-64.
        unsafe { x86::get_sse2(words.as_ptr(), bits, bit) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: as above, 16 bytes from `start` lie inside `words` thanks to the padding.
        let window = unsafe { base.add(start).cast::<u128>().read_unaligned() };
        (u128::from_le(window) >> (bit % 8)) as u64 & max_value(bits)
    }
}

/// The x86-64 sequences, in inline assembly so that they inline into the caller's loop without
/// a target-feature boundary (the caller has checked the features).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::asm;
    use std::arch::x86_64::{__m128i, _mm_set1_epi64x};

    use super::max_value;

    /// The value at bit `bit` (1..=63 bits wide): the 16 bytes from the aligned word holding
    /// `bit`, funnel-shifted right by `bit % 64` (`vpshrdvq` takes the count modulo 64), masked.
    ///
    /// # Safety
    /// The 16 bytes from word `bit / 64` lie inside the storage at `words`; the CPU has
    /// AVX-512 VBMI2, AVX-512 VL and BMI2.
    #[inline(always)]
    pub(super) unsafe fn get_vbmi2(words: *const u64, bits: u32, bit: usize) -> u64 {
        // SAFETY: SSE2 is part of x86-64.
        let mask: __m128i = unsafe { _mm_set1_epi64x(max_value(bits) as i64) };
        let value: u64;
        // SAFETY: reads the 16 bytes from word `bit / 64` (inside the storage, the caller's
        // contract) and nothing else; the instructions exist on this CPU (the caller's contract).
        unsafe {
            asm!(
                "shrx {word}, {bit}, {six}",
                "vmovq {count}, {bit}",
                "vmovdqu {low}, xmmword ptr [{words} + {word} * 8]",
                "vpsrldq {high}, {low}, 8",
                "vpshrdvq {low}, {high}, {count}",
                "vpand {low}, {low}, {mask}",
                "vmovq {value}, {low}",
                bit = in(reg) bit,
                six = in(reg) 6usize,
                words = in(reg) words,
                mask = in(xmm_reg) mask,
                word = out(reg) _,
                count = out(xmm_reg) _,
                low = out(xmm_reg) _,
                high = out(xmm_reg) _,
                value = lateout(reg) value,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        value
    }

    /// As [`get_vbmi2`] with SSE2 only (every x86-64 CPU): the low word shifted right by the
    /// offset, or-ed with the high word shifted left by 64 minus it (`psllq` by 64 gives 0).
    ///
    /// # Safety
    /// The 16 bytes from word `bit / 64` lie inside the storage at `words`.
    #[inline(always)]
    pub(super) unsafe fn get_sse2(words: *const u64, bits: u32, bit: usize) -> u64 {
        // SAFETY: SSE2 is part of x86-64.
        let (mask, sixty_four): (__m128i, __m128i) =
            unsafe { (_mm_set1_epi64x(max_value(bits) as i64), _mm_set1_epi64x(64)) };
        let value: u64;
        // SAFETY: reads the 16 bytes from word `bit / 64` (inside the storage, the caller's
        // contract) and nothing else; SSE2 is part of x86-64.
        unsafe {
            asm!(
                "mov {word}, {bit}",
                "shr {word}, 6",
                "and {bit}, 63",
                "movq {count}, {bit}",
                "movdqu {low}, xmmword ptr [{words} + {word} * 8]",
                "movdqa {high}, {low}",
                "psrldq {high}, 8",
                "psrlq {low}, {count}",
                "movdqa {left}, {sixty_four}",
                "psubq {left}, {count}",
                "psllq {high}, {left}",
                "por {low}, {high}",
                "pand {low}, {mask}",
                "movq {value}, {low}",
                bit = inout(reg) bit => _,
                words = in(reg) words,
                mask = in(xmm_reg) mask,
                sixty_four = in(xmm_reg) sixty_four,
                word = out(reg) _,
                count = out(xmm_reg) _,
                left = out(xmm_reg) _,
                low = out(xmm_reg) _,
                high = out(xmm_reg) _,
                value = lateout(reg) value,
                options(pure, readonly, nostack),
            );
        }
        value
    }
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
                    // SAFETY: as above; the kernel is the detected one.
                    let fast =
                        unsafe { get_unchecked_with(ReadKernel::detected(), &words, bits, index) };
                    assert_eq!(fast, value, "detected kernel, bits {bits}, index {index}");
                }
            }
        }
    }
}
