//! Atomic per-vertex cells at the narrowest machine width a graph allows: 32 bits while every
//! vertex id (and the "none" marker, all ones) fits, else 64. Kernels that keep a vertex id or a
//! level per vertex (BFS, connected components) are generic over [`Cell`], so a graph with
//! fewer than 2^32 - 1 vertices moves half the bytes through the cache.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use std::sync::Arc;

use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};

/// An atomic per-vertex value read and written as `u64`.
pub(crate) trait Cell: Send + Sync + Sized + bytemuck::Zeroable {
    /// All ones at the cell's width: "no value".
    const NONE: u64;
    /// The value (relaxed).
    fn get(&self) -> u64;
    /// Stores `value` (relaxed).
    fn set(&self, value: u64);
    /// Replaces `current` by `new`; false when the cell held something else.
    fn replace(&self, current: u64, new: u64) -> bool;
    /// Runs `body` on the values of `array` as cells, when it is stored at the cells' width
    /// (else `None`, without calling `body`).
    fn update<R>(array: &mut SmartArray, body: impl FnOnce(&[Self]) -> R) -> Option<R>;
}

impl Cell for AtomicU32 {
    const NONE: u64 = u32::MAX as u64;
    fn update<R>(array: &mut SmartArray, body: impl FnOnce(&[Self]) -> R) -> Option<R> {
        array.update_atomic_u32(body)
    }
    #[inline(always)]
    fn get(&self) -> u64 {
        u64::from(self.load(Ordering::Relaxed))
    }
    #[inline(always)]
    fn set(&self, value: u64) {
        self.store(value as u32, Ordering::Relaxed)
    }
    #[inline(always)]
    fn replace(&self, current: u64, new: u64) -> bool {
        self.compare_exchange(
            current as u32,
            new as u32,
            Ordering::Relaxed,
            Ordering::Relaxed,
        )
        .is_ok()
    }
}

impl Cell for AtomicU64 {
    const NONE: u64 = u64::MAX;
    fn update<R>(array: &mut SmartArray, body: impl FnOnce(&[Self]) -> R) -> Option<R> {
        array.update_atomic_u64(body)
    }
    #[inline(always)]
    fn get(&self) -> u64 {
        self.load(Ordering::Relaxed)
    }
    #[inline(always)]
    fn set(&self, value: u64) {
        self.store(value, Ordering::Relaxed)
    }
    #[inline(always)]
    fn replace(&self, current: u64, new: u64) -> bool {
        self.compare_exchange(current, new, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }
}

/// Indices per batch of [`filled`]'s parallel pass (a few pages of cells).
const FILL_BATCH: usize = 16 * 1024;

/// `n` cells, cell `v` holding `value(v)`, written by the runtime's workers. The cells are
/// first allocated as zeroed memory, which the allocator takes as fresh untouched pages (a
/// `collect` of zeros may compile to a serial `memset` instead), so the pages are faulted in by
/// the workers in parallel, as OpenMP codes do with a parallel fill, rather than by one thread,
/// or later, one at a time, by a kernel's scattered first writes.
pub(crate) fn filled<C: Cell>(
    n: usize,
    runtime: &Runtime,
    value: impl Fn(usize) -> u64 + Sync,
) -> Vec<C> {
    let cells: Vec<C> = bytemuck::zeroed_vec(n);
    let fill = |range: std::ops::Range<usize>| {
        for v in range {
            cells[v].set(value(v));
        }
    };
    // One worker: the calling thread fills (a region would only add the hand-over to it).
    if runtime.threads() == 1 {
        fill(0..n);
    } else {
        runtime.for_each_batch(0..n, FILL_BATCH, |_, range| fill(range));
    }
    cells
}

/// Runs `body` on `n` scratch cells, cell `v` holding `value(v)`, kept in a smart array at the
/// cells' width (filled in parallel, on huge pages for large `n`, OS-default placement): a
/// vector of cells takes one page fault per 4 KiB, which a kernel touching every vertex pays on
/// each call. Where arrays cannot be updated as cells (a big-endian machine) the cells are a
/// vector made by [`filled`].
pub(crate) fn scratch<C: Cell, R>(
    n: usize,
    runtime: &Arc<Runtime>,
    value: impl Fn(usize) -> u64 + Sync,
    body: impl FnOnce(&[C]) -> R,
) -> smartarrays::Result<R> {
    let options = ArrayOptions::new()
        .bits(bits::<C>())
        .placement(Placement::OsDefault)
        .runtime(Arc::clone(runtime));
    if cfg!(target_endian = "little") {
        let mut array = SmartArray::from_fn(n, &options, &value)?;
        let mut body = Some(body);
        if let Some(result) = C::update(&mut array, |cells| {
            (body.take().expect("called once"))(cells)
        }) {
            return Ok(result);
        }
        return Ok((body.take().expect("not called"))(&filled::<C>(
            n, runtime, value,
        )));
    }
    Ok(body(&filled::<C>(n, runtime, value)))
}

/// The width of cells of type `C` in bits (32 or 64): arrays stored at it can be updated as
/// cells ([`Cell::update`]).
pub(crate) fn bits<C: Cell>() -> u32 {
    8 * std::mem::size_of::<C>() as u32
}

/// Whether 32-bit cells hold every id of a graph with `n` vertices and the marker besides.
pub(crate) fn narrow(n: usize) -> bool {
    (n as u64) < u64::from(u32::MAX)
}

/// The forward offsets of a graph as `u64`s: in place when stored at 64 bits, else decoded
/// once into `buffer`.
pub(crate) fn offsets<'a>(
    array: &'a smartarrays::SmartArray,
    buffer: &'a mut Vec<u64>,
) -> &'a [u64] {
    let view = array.local();
    match view.as_native::<u64>() {
        Some(values) => values,
        None => {
            *buffer = array.to_vec();
            &buffer[..]
        }
    }
}

/// The offsets of `array` stored at 32 bits (decoded in parallel batches, on huge pages for
/// large graphs), when the array is bit-packed below 64 bits and its last (largest) offset fits
/// 32 bits; else `None`. Half the bytes of a `u64` copy to write, fault in and read back during
/// a kernel. Read the copy with [`as_u32`].
pub(crate) fn offsets_u32(array: &SmartArray) -> Option<SmartArray> {
    let len = array.len();
    if array.bits() == 64
        || len == 0
        || array.get(len - 1).ok()? > u64::from(u32::MAX)
        || !cfg!(target_endian = "little")
    {
        return None;
    }
    let view = array.local();
    let options = ArrayOptions::new()
        .bits(32)
        .placement(Placement::OsDefault)
        .runtime(Arc::clone(array.runtime()));
    // In bounds: every batch lies within the array.
    SmartArray::from_batches(len, &options, |range, out| {
        let _ = view.unpack(range.start, out);
    })
    .ok()
}

/// The values of an array made by [`offsets_u32`], in place.
pub(crate) fn as_u32(array: &SmartArray) -> &[u32] {
    array
        .local()
        .as_native::<u32>()
        .expect("offsets_u32 stores 32-bit values on a little-endian machine")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<C: Cell>(runtime: &Runtime, n: usize) {
        let value = |v: usize| (v as u64).wrapping_mul(2_654_435_761) % C::NONE;
        let cells: Vec<C> = filled(n, runtime, value);
        assert_eq!(cells.len(), n);
        for (v, cell) in cells.iter().enumerate() {
            assert_eq!(cell.get(), value(v), "n {n} v {v}");
        }
        let none: Vec<C> = filled(n, runtime, |_| C::NONE);
        assert!(none.iter().all(|c| c.get() == C::NONE));
    }

    #[test]
    fn filled_cells_hold_their_values_at_edge_sizes() {
        for threads in [1, 2, 3] {
            let runtime = Runtime::with_threads(threads).unwrap();
            for n in [
                0,
                1,
                63,
                64,
                65,
                1023,
                1025,
                FILL_BATCH - 1,
                3 * FILL_BATCH + 1,
            ] {
                check::<AtomicU32>(&runtime, n);
                check::<AtomicU64>(&runtime, n);
            }
        }
    }

    #[test]
    fn offsets_u32_decode_every_batch_and_refuse_what_does_not_fit() {
        for len in [1usize, 2, 1023, 1025, 16_384, 16_385, 70_001] {
            for bits in [17u32, 32, 33] {
                let options = ArrayOptions::new().bits(bits);
                let array =
                    SmartArray::from_fn(len, &options, |i| (i as u64 * 3) & max(bits)).unwrap();
                let decoded = offsets_u32(&array).expect("fits 32 bits");
                let expected: Vec<u32> = array.to_vec().iter().map(|&v| v as u32).collect();
                assert_eq!(as_u32(&decoded), expected, "len {len} bits {bits}");
            }
        }
        // Stored at 64 bits: read in place instead.
        let wide = SmartArray::from_fn(10, &ArrayOptions::new().bits(64), |i| i as u64).unwrap();
        assert!(offsets_u32(&wide).is_none());
        // A last offset past u32::MAX.
        let big =
            SmartArray::from_fn(3, &ArrayOptions::new().bits(33), |i| (i as u64) << 31).unwrap();
        assert!(offsets_u32(&big).is_none());
        // No offsets at all.
        let empty = SmartArray::from_fn(0, &ArrayOptions::new().bits(20), |_| 0).unwrap();
        assert!(offsets_u32(&empty).is_none());
    }

    fn max(bits: u32) -> u64 {
        smartarrays::codec::max_value(bits.min(32))
    }
}
