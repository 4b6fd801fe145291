//! Words of an array seen as atomic integers, for kernels that write an array's values from
//! several threads in place ([`SmartArray::update_atomic_u32`](super::SmartArray::update_atomic_u32)
//! and [`SmartArray::update_atomic_u64`](super::SmartArray::update_atomic_u64)). The only unsafe
//! code of those methods is here.

use std::sync::atomic::{AtomicU32, AtomicU64};

/// The words as `len` atomic 32-bit values (value `i` in the low or high half of word `i / 2`,
/// as the little-endian 32-bit layout stores it).
///
/// # Panics
/// If `words` holds fewer than `len` 32-bit values.
pub(super) fn as_atomic_u32(words: &mut [u64], len: usize) -> &[AtomicU32] {
    let values: &mut [u32] = &mut bytemuck::cast_slice_mut::<u64, u32>(words)[..len];
    // SAFETY: `AtomicU32` has the same size and bit validity as `u32`, and its alignment (4)
    // is met since the values start at a `u64` boundary and each lies 4 bytes after the last.
    // The exclusive borrow of `words` lasts as long as the returned slice, so the atomics are
    // the only way to the memory meanwhile.
    unsafe { &*(std::ptr::from_mut::<[u32]>(values) as *const [AtomicU32]) }
}

/// The words as `len` atomic 64-bit values.
///
/// # Panics
/// If `words` is shorter than `len`.
pub(super) fn as_atomic_u64(words: &mut [u64], len: usize) -> &[AtomicU64] {
    let values = &mut words[..len];
    // SAFETY: `AtomicU64` has the same size and bit validity as `u64`; its alignment (8) is
    // that of the `u64` words here. The exclusive borrow of `words` lasts as long as the
    // returned slice, so the atomics are the only way to the memory meanwhile.
    unsafe { &*(std::ptr::from_mut::<[u64]>(values) as *const [AtomicU64]) }
}
