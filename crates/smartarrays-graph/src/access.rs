//! How kernels read CSR arrays: 64-bit and 32-bit arrays are read in place as `&[u64]` /
//! `&[u32]` (no copy), other widths are decoded a window at a time with the core's SIMD unpack
//! kernels. Kernels are generic over [`EdgeWindow`], so each width gets its own compiled loop,
//! and the plain-vector baseline runs the very same kernels.

use std::cell::RefCell;
use std::ops::Range;

use smartarrays::{ArrayView, F64Array, Worker};

/// Values decoded per window of a bit-compressed neighbour array (16 KiB).
pub(crate) const WINDOW: usize = 2048;

/// A neighbour id that indexes a vertex array.
pub(crate) trait AsIndex: Copy + Send + Sync {
    fn at(self) -> usize;
}

impl AsIndex for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl AsIndex for u64 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

/// Sequential access to neighbour ids by position.
pub(crate) trait EdgeWindow {
    type Id: AsIndex;
    /// A non-empty prefix of the ids at positions `s..t` (`s < t`).
    fn piece(&mut self, s: usize, t: usize) -> &[Self::Id];
}

/// Ids read in place.
pub(crate) struct Direct<'a, T>(pub &'a [T]);

impl<T: AsIndex> EdgeWindow for Direct<'_, T> {
    type Id = T;
    #[inline(always)]
    fn piece(&mut self, s: usize, t: usize) -> &[T] {
        &self.0[s..t]
    }
}

/// Ids decoded from a bit-packed array into a buffer, [`WINDOW`] at a time.
pub(crate) struct Decoded<'a, 'b> {
    view: ArrayView<'a>,
    buffer: &'b mut [u64],
    start: usize,
    end: usize,
    limit: usize,
}

impl<'a, 'b> Decoded<'a, 'b> {
    /// Decodes at most up to `limit` ahead (the end of a batch's edges), never past the array.
    pub(crate) fn new(view: ArrayView<'a>, buffer: &'b mut Vec<u64>, limit: usize) -> Decoded<'a, 'b> {
        buffer.resize(WINDOW, 0);
        Decoded { view, buffer: &mut buffer[..], start: 0, end: 0, limit }
    }
}

impl Decoded<'_, '_> {
    #[inline(never)]
    fn refill(&mut self, s: usize, t: usize) {
        let end = (s + WINDOW).min(t.max(self.limit)).min(self.view.len());
        // The range lies inside the array (callers pass positions from its offsets).
        let _ = self.view.unpack(s, &mut self.buffer[..end - s]);
        self.start = s;
        self.end = end;
    }
}

impl EdgeWindow for Decoded<'_, '_> {
    type Id = u64;
    #[inline(always)]
    fn piece(&mut self, s: usize, t: usize) -> &[u64] {
        if s < self.start || s >= self.end {
            self.refill(s, t);
        }
        &self.buffer[s - self.start..t.min(self.end) - self.start]
    }
}

/// Sum of `values[id]` over `ids`, with four independent accumulators (so consecutive loads
/// and additions overlap instead of waiting on one another).
#[inline(always)]
pub(crate) fn gather_sum<I: AsIndex>(ids: &[I], values: &[f64]) -> f64 {
    let mut partial = [0.0f64; 4];
    let mut quads = ids.chunks_exact(4);
    for quad in &mut quads {
        partial[0] += values[quad[0].at()];
        partial[1] += values[quad[1].at()];
        partial[2] += values[quad[2].at()];
        partial[3] += values[quad[3].at()];
    }
    let mut sum = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    for &id in quads.remainder() {
        sum += values[id.at()];
    }
    sum
}

/// A neighbour array as kernels see it.
#[derive(Clone, Copy)]
pub(crate) enum Targets<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
    Packed(ArrayView<'a>),
}

impl<'a> Targets<'a> {
    pub(crate) fn of(view: ArrayView<'a>) -> Targets<'a> {
        let words = view.packed_words();
        match view.bits() {
            64 => Targets::U64(&words[..view.len()]),
            32 => Targets::U32(&bytemuck::cast_slice(words)[..view.len()]),
            _ => Targets::Packed(view),
        }
    }
}

/// Runs `$body` with `$window` bound to the right [`EdgeWindow`] for `$targets`.
macro_rules! with_window {
    ($targets:expr, $buffer:expr, $limit:expr, |$window:ident| $body:expr) => {
        match $targets {
            $crate::access::Targets::U32(ids) => {
                let mut $window = $crate::access::Direct(ids);
                $body
            }
            $crate::access::Targets::U64(ids) => {
                let mut $window = $crate::access::Direct(ids);
                $body
            }
            $crate::access::Targets::Packed(view) => {
                let mut $window = $crate::access::Decoded::new(view, $buffer, $limit);
                $body
            }
        }
    };
}
pub(crate) use with_window;

/// Values `range` of an array: in place at 64 bits, else decoded into `buffer`.
pub(crate) fn values<'s>(view: ArrayView<'s>, range: Range<usize>, buffer: &'s mut Vec<u64>) -> &'s [u64] {
    if view.bits() == 64 {
        return &view.packed_words()[range];
    }
    buffer.resize(range.len(), 0);
    let _ = view.unpack(range.start, buffer);
    &buffer[..]
}

/// The values of an `F64Array` a worker should read (its node's replica).
pub(crate) fn f64_for_worker<'a>(array: &'a F64Array, worker: &Worker) -> &'a [f64] {
    &bytemuck::cast_slice(array.raw().for_worker(worker).packed_words())[..array.len()]
}

thread_local! {
    static SCRATCH: RefCell<(Vec<u64>, Vec<u64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Runs `task` with this thread's two scratch buffers (for closures that get no accumulator).
pub(crate) fn with_scratch<R>(task: impl FnOnce(&mut Vec<u64>, &mut Vec<u64>) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buffers) => {
            let (first, second) = &mut *buffers;
            task(first, second)
        }
        Err(_) => task(&mut Vec::new(), &mut Vec::new()),
    })
}
