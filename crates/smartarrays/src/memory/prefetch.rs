//! Cache prefetch hints: start loading memory into a cache level without waiting for it. The one
//! place that owns the `unsafe` of the prefetch instruction; everything here is a safe hint that
//! never changes a result, never faults (addresses past a slice's end are allowed) and is a no-op
//! off x86-64. Used by the graph kernels (values of upcoming neighbours, into L1) and by the C
//! ABI's `sa_array_unpack_ahead` (a later chunk's packed words, into L2).

use std::ops::Range;

/// Bytes per cache line on every x86-64 CPU this library targets.
const LINE_BYTES: usize = 64;

/// Which cache a prefetch fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheLevel {
    /// The first-level data cache (and the levels below it).
    L1,
    /// The second-level cache (and below), leaving L1 alone.
    L2,
}

/// Hints the CPU to load `values[index]` into `level`. An index past the end is harmless:
/// nothing is read.
///
/// # Example
/// ```
/// use smartarrays::memory::prefetch::{prefetch, CacheLevel};
/// let values = vec![1.0f64; 1000];
/// prefetch(&values, 500, CacheLevel::L1);
/// prefetch(&values, usize::MAX, CacheLevel::L2); // only a hint, even out of range
/// ```
#[inline(always)]
pub fn prefetch<T>(values: &[T], index: usize, level: CacheLevel) {
    line(values.as_ptr().wrapping_add(index).cast::<u8>(), level);
}

/// Hints the CPU to load the cache lines holding values `values` of `words`, packed at `bits`
/// bits each (the library's layout: value `i` starts at bit `i * bits`). Lines past `words` are
/// skipped, so any range is accepted.
pub fn packed_values(words: &[u64], bits: u32, values: Range<usize>, level: CacheLevel) {
    if values.is_empty() || bits == 0 {
        return;
    }
    let bits = bits as usize;
    // Byte range covering the values' bits; saturating, since a hint must never panic.
    let first = values.start.saturating_mul(bits) / 8;
    let last = values
        .end
        .saturating_mul(bits)
        .div_ceil(8)
        .min(std::mem::size_of_val(words));
    let base = words.as_ptr().cast::<u8>();
    let mut offset = first - first % LINE_BYTES;
    while offset < last {
        line(base.wrapping_add(offset), level);
        offset += LINE_BYTES;
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn line(address: *const u8, level: CacheLevel) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
    // SAFETY: PREFETCHT0/T1 are part of SSE, which every x86-64 CPU has; a prefetch never faults,
    // never writes and is never observable by the program, whatever the address.
    unsafe {
        match level {
            CacheLevel::L1 => _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()),
            CacheLevel::L2 => _mm_prefetch::<_MM_HINT_T1>(address.cast::<i8>()),
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn line(_address: *const u8, _level: CacheLevel) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_range_is_accepted() {
        let words = vec![0u64; 100];
        for bits in [1, 7, 33, 64] {
            for level in [CacheLevel::L1, CacheLevel::L2] {
                packed_values(&words, bits, 0..0, level);
                packed_values(&words, bits, 0..(100 * 64 / bits as usize), level);
                packed_values(&words, bits, 5..usize::MAX, level); // cut at the slice's end
                packed_values(&words, bits, usize::MAX - 1..usize::MAX, level);
            }
        }
        packed_values(&[], 33, 0..10, CacheLevel::L2);
        prefetch(&words, usize::MAX, CacheLevel::L1);
    }
}
