//! Cache prefetch hints for packed values: starts loading the cache lines that hold a range of
//! values of a packed array into the L2 cache, without waiting for them. Used by
//! `sa_array_unpack_ahead`, so that a binding's chunk cursor gets a later chunk's memory while the
//! caller works on the current one. A hint only: it never changes a result; a no-op off x86-64.
//! (L2 rather than L1: a burst of L1 prefetches per chunk measured slower than none on the dev
//! machine, L2 prefetches two chunks ahead measured fastest.)

use std::ops::Range;

/// Bytes per cache line on every x86-64 CPU this library targets.
const LINE_BYTES: usize = 64;

/// Hints the CPU to fetch the cache lines holding values `values` of `words`, packed at `bits` bits
/// each (the library's layout: value `i` starts at bit `i * bits`). Lines past `words` are skipped.
pub(crate) fn packed_values(words: &[u64], bits: u32, values: Range<usize>) {
    if values.is_empty() || bits == 0 {
        return;
    }
    let bits = bits as usize;
    let total_bytes = std::mem::size_of_val(words);
    // Byte range covering the values' bits; saturating, since a hint must never panic.
    let first = values.start.saturating_mul(bits) / 8;
    let last = values.end.saturating_mul(bits).div_ceil(8).min(total_bytes);
    let base = words.as_ptr().cast::<u8>();
    let mut offset = first - first % LINE_BYTES;
    while offset < last {
        line(base.wrapping_add(offset));
        offset += LINE_BYTES;
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn line(address: *const u8) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
    // SAFETY: PREFETCHT1 is part of SSE, which every x86-64 CPU has; a prefetch never faults and
    // never writes, whatever the address (callers pass addresses inside a live slice anyway).
    unsafe { _mm_prefetch::<_MM_HINT_T1>(address.cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn line(_address: *const u8) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_range_is_accepted() {
        let words = vec![0u64; 100];
        for bits in [1, 7, 33, 64] {
            packed_values(&words, bits, 0..0);
            packed_values(&words, bits, 0..(100 * 64 / bits as usize));
            packed_values(&words, bits, 5..usize::MAX); // cut at the slice's end
            packed_values(&words, bits, usize::MAX - 1..usize::MAX);
        }
        packed_values(&[], 33, 0..10);
    }
}
