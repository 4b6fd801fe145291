//! How kernels read CSR arrays: 64-bit and 32-bit arrays are read in place as `&[u64]` /
//! `&[u32]` (no copy), other widths are decoded a window at a time with the core's SIMD unpack
//! kernels. Kernels are generic over [`EdgeWindow`], so each width gets its own compiled loop,
//! and the plain-vector baseline (in the experiments crate) runs the very same kernels through
//! the public hooks of [`crate::algo::pagerank`]. Also the gather of PageRank's pull
//! ([`gather_sum_ahead`]: `f64` or `f32` values, with software prefetch of upcoming neighbours).

use std::cell::RefCell;
use std::ops::Range;

use smartarrays::memory::prefetch::CacheLevel;
use smartarrays::{ArrayView, F64Array, Worker};

use crate::packed_run::PackedRun;

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
    /// A prefix of the ids at positions `s..t` (`s <= t`), non-empty when `s < t`.
    fn piece(&mut self, s: usize, t: usize) -> &[Self::Id] {
        self.piece_ahead(s, t).0
    }
    /// [`EdgeWindow::piece`], plus the ids from `s` on that are already at hand (at least the
    /// piece; for prefetching the values of upcoming neighbours).
    fn piece_ahead(&mut self, s: usize, t: usize) -> (&[Self::Id], &[Self::Id]);
}

/// Ids read in place.
pub(crate) struct Direct<'a, T>(pub &'a [T]);

impl<T: AsIndex> EdgeWindow for Direct<'_, T> {
    type Id = T;
    #[inline(always)]
    fn piece(&mut self, s: usize, t: usize) -> &[T] {
        &self.0[s..t]
    }
    #[inline(always)]
    fn piece_ahead(&mut self, s: usize, t: usize) -> (&[T], &[T]) {
        let ahead = &self.0[s..];
        (&ahead[..t - s], ahead)
    }
}

/// Lists of at most this many ids are read one value at a time ([`PackedRun`]) rather than
/// decoded in bulk: most lists of a Kronecker graph hold one or two ids, and a bulk decode
/// costs a call with a fixed setup whatever the length.
pub(crate) const SHORT: usize = 16;

/// Ids decoded from a bit-packed array into a buffer, [`WINDOW`] at a time (or read singly
/// when the piece asked for is at most [`SHORT`] ids).
pub(crate) struct Decoded<'a, 'b> {
    view: ArrayView<'a>,
    run: Option<PackedRun<'a>>,
    buffer: &'b mut [u64],
    start: usize,
    end: usize,
    limit: usize,
}

impl<'a, 'b> Decoded<'a, 'b> {
    /// Decodes at most up to `limit` ahead (the end of a batch's edges), never past the array.
    pub(crate) fn new(
        view: ArrayView<'a>,
        buffer: &'b mut Vec<u64>,
        limit: usize,
    ) -> Decoded<'a, 'b> {
        buffer.resize(WINDOW, 0);
        Decoded {
            view,
            run: PackedRun::new(view),
            buffer: &mut buffer[..],
            start: 0,
            end: 0,
            limit,
        }
    }
}

impl Decoded<'_, '_> {
    /// Fills the buffer from position `s`: single reads for a short piece, else a bulk decode.
    #[inline(always)]
    fn refill(&mut self, s: usize, t: usize) {
        let end = (s + WINDOW).min(t.max(self.limit)).min(self.view.len());
        match self.run {
            Some(run) if end - s <= SHORT => run.read_into(s, end, self.buffer),
            _ => self.decode(s, end),
        }
        self.start = s;
        self.end = end;
    }

    /// Decodes positions `s..end` in bulk; kept out of line.
    #[inline(never)]
    fn decode(&mut self, s: usize, end: usize) {
        // The range lies inside the array (callers pass positions from its offsets).
        let _ = self.view.unpack(s, &mut self.buffer[..end - s]);
    }
}

impl EdgeWindow for Decoded<'_, '_> {
    type Id = u64;
    #[inline(always)]
    fn piece(&mut self, s: usize, t: usize) -> &[u64] {
        self.piece_ahead(s, t).0
    }
    #[inline(always)]
    fn piece_ahead(&mut self, s: usize, t: usize) -> (&[u64], &[u64]) {
        if s < self.start || s >= self.end {
            self.refill(s, t);
        }
        let ahead = &self.buffer[s - self.start..self.end - self.start];
        (&ahead[..t.min(self.end) - s], ahead)
    }
}

/// Searches of one vertex's neighbour list that stop at the first hit (bottom-up BFS steps):
/// ids read in place, or read one at a time from a bit-packed array ([`PackedRun`]) for the
/// first [`PROBE`] positions and only then decoded in bulk, so a list whose first neighbours hit is
/// never decoded as a whole.
pub(crate) trait FirstHit {
    /// The first id at positions `s..t` for which `hit` holds, if any.
    fn first_hit(&mut self, s: usize, t: usize, hit: impl FnMut(usize) -> bool) -> Option<usize>;
}

/// Positions of a packed list read one value at a time before the rest is decoded in bulk: a
/// single read costs a few instructions, a bulk decode a call with a fixed overhead per piece.
pub(crate) const PROBE: usize = 64;

impl<T: AsIndex> FirstHit for Direct<'_, T> {
    #[inline(always)]
    fn first_hit(
        &mut self,
        s: usize,
        t: usize,
        mut hit: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        // Empty lists (vertices without in-edges, which a bottom-up step meets on every level)
        // leave before the slice's bounds checks.
        if s >= t {
            return None;
        }
        for &u in &self.0[s..t] {
            if hit(u.at()) {
                return Some(u.at());
            }
        }
        None
    }
}

/// A bit-packed neighbour array searched with [`FirstHit`]: single reads ([`PackedRun`]) of
/// the first [`PROBE`] positions, then the rest decoded in bulk ([`Unpacked`]). Made only for
/// widths [`PackedRun`] reads, so the search itself never asks which reader applies (an
/// `Option` tested per list measured 14 instructions a list under callgrind).
pub(crate) struct Probed<'a, 'b> {
    run: PackedRun<'a>,
    rest: Unpacked<'a, 'b>,
}

impl<'a, 'b> Probed<'a, 'b> {
    /// `run` must read `view`.
    pub(crate) fn new(
        run: PackedRun<'a>,
        view: ArrayView<'a>,
        buffer: &'b mut Vec<u64>,
    ) -> Probed<'a, 'b> {
        Probed {
            run,
            rest: Unpacked::new(view, buffer),
        }
    }
}

impl FirstHit for Probed<'_, '_> {
    #[inline(always)]
    fn first_hit(
        &mut self,
        s: usize,
        t: usize,
        mut hit: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        // Empty lists (vertices without in-edges, which a bottom-up step meets on every level)
        // leave before the run's checks.
        if s >= t {
            return None;
        }
        let probed = t.min(s + PROBE);
        if let Some(u) = self.run.find(s, probed, |u| hit(u as usize)) {
            return Some(u as usize);
        }
        if probed < t {
            self.rest.decode(probed, t, &mut hit)
        } else {
            None
        }
    }
}

/// A bit-packed neighbour array searched with [`FirstHit`] by decoding pieces of at most
/// [`WINDOW`] values into a buffer: the rest of a [`Probed`] list, and whole lists at widths
/// [`PackedRun`] does not read (above [`crate::packed_run::MAX_BITS`]).
pub(crate) struct Unpacked<'a, 'b> {
    view: ArrayView<'a>,
    buffer: &'b mut Vec<u64>,
}

impl<'a, 'b> Unpacked<'a, 'b> {
    pub(crate) fn new(view: ArrayView<'a>, buffer: &'b mut Vec<u64>) -> Unpacked<'a, 'b> {
        buffer.resize(WINDOW, 0);
        Unpacked { view, buffer }
    }

    /// The first id at positions `s..t` for which `hit` holds, decoded in pieces; kept out of
    /// line (most bottom-up searches end within a [`Probed`] list's single reads).
    #[inline(never)]
    fn decode(
        &mut self,
        mut s: usize,
        t: usize,
        hit: &mut impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        while s < t {
            let end = t.min(s + WINDOW);
            let piece = &mut self.buffer[..end - s];
            // Positions come from the graph's offsets, so the range lies inside the array.
            let _ = self.view.unpack(s, piece);
            if let Some(u) = piece.iter().map(|&u| u as usize).find(|&u| hit(u)) {
                return Some(u);
            }
            s = end;
        }
        None
    }
}

impl FirstHit for Unpacked<'_, '_> {
    #[inline(always)]
    fn first_hit(
        &mut self,
        s: usize,
        t: usize,
        mut hit: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        self.decode(s, t, &mut hit)
    }
}

/// A value type PageRank's contributions are stored in (`f64`, or `f32` for half the memory
/// traffic of the gather); sums are always taken in `f64`. Implemented for `f64` and `f32` only
/// (sealed).
pub trait Contribution: Copy + Default + Send + Sync + bytemuck::Pod + sealed::Sealed {
    /// The [`Precision`](crate::Precision) this type stands for.
    const PRECISION: crate::Precision;
    /// The contribution nearest to `value`.
    fn from_f64(value: f64) -> Self;
    /// The contribution as `f64` (exact).
    fn to_f64(self) -> f64;
}

mod sealed {
    /// Keeps [`super::Contribution`] to the two types the kernels are written for.
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for f32 {}
}

impl Contribution for f64 {
    const PRECISION: crate::Precision = crate::Precision::F64;
    #[inline(always)]
    fn from_f64(value: f64) -> f64 {
        value
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Contribution for f32 {
    const PRECISION: crate::Precision = crate::Precision::F32;
    #[inline(always)]
    fn from_f64(value: f64) -> f32 {
        value as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// Neighbours ahead of the one being summed whose values are prefetched (far enough to hide a
/// memory access behind the additions in between, near enough to stay in the L1 cache).
pub(crate) const PREFETCH_DISTANCE: usize = 64;

/// Asks the CPU to start loading `values[index]` into L1 (a hint: no effect on results, and an
/// index past the end is harmless).
#[inline(always)]
fn prefetch<C>(values: &[C], index: usize) {
    smartarrays::memory::prefetch::prefetch(values, index, CacheLevel::L1);
}

/// Value arrays of at most this many bytes are gathered without software prefetch: they stay
/// in the L2 cache of a core between iterations (half of this machine's 2 MiB), so a prefetch
/// only adds instructions (two per edge; 778 M against 526 M instructions for a Jacobi
/// PageRank on a scale-18 Kronecker graph, whose `f32` contributions take 1 MiB). Larger ones
/// (a scale-20 graph's 4 MiB) are prefetched [`PREFETCH_DISTANCE`] neighbours ahead.
pub(crate) const PREFETCH_ABOVE: usize = 1 << 20;

/// Whether a gather over `values` should prefetch (see [`PREFETCH_ABOVE`]).
#[inline(always)]
pub(crate) fn worth_prefetching<C>(values: &[C]) -> bool {
    std::mem::size_of_val(values) > PREFETCH_ABOVE
}

/// `values[index]`, bounds-checked unless `CHECKED` is false.
///
/// # Safety
/// With `CHECKED` false, `index < values.len()` must hold.
#[inline(always)]
unsafe fn read<const CHECKED: bool, C: Copy>(values: &[C], index: usize) -> C {
    if CHECKED {
        values[index]
    } else {
        debug_assert!(index < values.len());
        // SAFETY: the caller guarantees `index < values.len()` when `CHECKED` is false.
        unsafe { *values.get_unchecked(index) }
    }
}

/// Sum of `values[id]` over `ids` (in `f64`, with four independent accumulators). With
/// `PREFETCH`, also prefetches the value of the id [`PREFETCH_DISTANCE`] positions further in
/// `ahead` (the ids from `ids[0]` on, `ids` a prefix of it). Four accumulators let consecutive
/// loads and additions overlap. Every id is bounds-checked (see [`gather_sum_trusted`]).
#[inline(always)]
pub(crate) fn gather_sum_ahead<const PREFETCH: bool, I: AsIndex, C: Contribution>(
    ids: &[I],
    ahead: &[I],
    values: &[C],
) -> f64 {
    // SAFETY: with `CHECKED` true every read is bounds-checked.
    unsafe { gather::<PREFETCH, true, I, C>(ids, ahead, values) }
}

/// [`gather_sum_ahead`] without bounds checks on `values` (two instructions fewer per edge).
///
/// # Safety
/// Every id in `ahead` (so every id in `ids`) must be below `values.len()` (true of a
/// [`crate::Graph`]'s neighbour ids against an array of one value per vertex: loaders and
/// `build` check it).
#[inline(always)]
pub(crate) unsafe fn gather_sum_trusted<const PREFETCH: bool, I: AsIndex, C: Contribution>(
    ids: &[I],
    ahead: &[I],
    values: &[C],
) -> f64 {
    // SAFETY: the caller guarantees every id is below `values.len()`.
    unsafe { gather::<PREFETCH, false, I, C>(ids, ahead, values) }
}

/// The gather behind [`gather_sum_ahead`] and [`gather_sum_trusted`].
///
/// # Safety
/// With `CHECKED` false, every id in `ahead` must be below `values.len()`.
#[inline(always)]
unsafe fn gather<const PREFETCH: bool, const CHECKED: bool, I: AsIndex, C: Contribution>(
    ids: &[I],
    ahead: &[I],
    values: &[C],
) -> f64 {
    let value = |id: I| {
        // SAFETY: ids come from `ids`: checked, or below `values.len()` by the contract.
        unsafe { read::<CHECKED, C>(values, id.at()) }.to_f64()
    };
    if !PREFETCH {
        // SAFETY: passed on from the caller (checked reads, or ids in range).
        return unsafe { gather_one_exit::<CHECKED, I, C>(ids, ahead, values) };
    }
    // Four accumulators, so consecutive loads and additions overlap.
    let add_quad = |partial: &mut [f64; 4], quad: &[I]| {
        partial[0] += value(quad[0]);
        partial[1] += value(quad[1]);
        partial[2] += value(quad[2]);
        partial[3] += value(quad[3]);
    };
    let mut partial = [0.0f64; 4];
    let whole = ids.len() / 4 * 4;
    let mut j = 0;
    {
        // Quads whose prefetch targets all lie in `ahead`.
        let covered = (ahead.len().saturating_sub(PREFETCH_DISTANCE + 3) / 4 * 4).min(whole);
        while j < covered {
            let next = &ahead[j + PREFETCH_DISTANCE..j + PREFETCH_DISTANCE + 4];
            for &id in next {
                prefetch(values, id.at());
            }
            add_quad(&mut partial, &ids[j..j + 4]);
            j += 4;
        }
    }
    for quad in ids[j..whole].chunks_exact(4) {
        add_quad(&mut partial, quad);
    }
    let mut sum = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    for (k, &id) in ids[whole..].iter().enumerate() {
        // Low in-degrees are common: prefetch here too, so every edge issues one prefetch.
        if PREFETCH {
            if let Some(next) = ahead.get(whole + k + PREFETCH_DISTANCE) {
                prefetch(values, next.at());
            }
        }
        sum += value(id);
    }
    sum
}

/// `KEEP[rest][lane]`: 1 for the first `rest` lanes, else 0 (see [`gather_one_exit`]).
pub(crate) const KEEP: [[f64; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [1.0, 1.0, 1.0],
];

/// The gather without prefetch, with a single data-dependent branch per call: the loop over
/// whole quads of `ids` (four accumulators, so consecutive loads and additions overlap). The 0
/// to 3 ids left over are summed without a branch on their count: the three ids from there on
/// in `ahead` are read (real neighbour ids, so their values are in range and finite) and those
/// past `ids` are multiplied by 0. A separate loop over the rest mispredicted its exit about
/// once a vertex on top of the quad loop's (GAPBS's plain loop has one exit per vertex). Only
/// when `ahead` ends within three ids (the end of the array or of a decoded window) are the
/// rest summed one by one. Also takes an empty `ids`, so callers need no emptiness test.
///
/// # Safety
/// With `CHECKED` false, every id in `ahead` must be below `values.len()`.
#[inline(always)]
unsafe fn gather_one_exit<const CHECKED: bool, I: AsIndex, C: Contribution>(
    ids: &[I],
    ahead: &[I],
    values: &[C],
) -> f64 {
    let value = |id: I| {
        // SAFETY: ids come from `ahead` (of which `ids` is a prefix): checked, or below
        // `values.len()` by the contract.
        unsafe { read::<CHECKED, C>(values, id.at()) }.to_f64()
    };
    sum_one_exit(ids, ahead, value)
}

/// The sum of `read(id)` over `ids` in the shape of [`gather_one_exit`] (four accumulators over
/// whole quads, then the 0 to 3 ids left over read from `ahead` and multiplied by 1 or 0 from
/// [`KEEP`], or one by one when `ahead` ends within three ids), for any reader: `ahead` starts
/// with `ids`, and `read` must give a finite value for every id of `ahead`.
#[inline(always)]
pub(crate) fn sum_one_exit<I: AsIndex>(ids: &[I], ahead: &[I], read: impl Fn(I) -> f64) -> f64 {
    let mut partial = [0.0f64; 4];
    let mut quads = ids.chunks_exact(4);
    for quad in &mut quads {
        partial[0] += read(quad[0]);
        partial[1] += read(quad[1]);
        partial[2] += read(quad[2]);
        partial[3] += read(quad[3]);
    }
    let rest = quads.remainder().len();
    let j = ids.len() - rest;
    if let Some(three) = ahead.get(j..j + 3) {
        // Times 1 for the ids still in `ids`, times 0 past them: exact for finite values.
        // The factors come from a table, as the compiler turns a select, a bit mask or a
        // converted comparison back into a branch.
        let keep = &KEEP[rest & 3];
        for (lane, &id) in three.iter().enumerate() {
            partial[lane] += read(id) * keep[lane];
        }
    } else {
        for &id in quads.remainder() {
            partial[3] += read(id);
        }
    }
    (partial[0] + partial[1]) + (partial[2] + partial[3])
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
        if let Some(ids) = view.as_native::<u64>() {
            Targets::U64(ids)
        } else if let Some(ids) = view.as_native::<u32>() {
            Targets::U32(ids)
        } else {
            Targets::Packed(view)
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
pub(crate) fn values<'s>(
    view: ArrayView<'s>,
    range: Range<usize>,
    buffer: &'s mut Vec<u64>,
) -> &'s [u64] {
    if let Some(values) = view.as_native::<u64>() {
        return &values[range];
    }
    buffer.resize(range.len(), 0);
    let _ = view.unpack(range.start, buffer);
    &buffer[..]
}

/// The values of an `F64Array` a worker should read (its node's replica).
pub(crate) fn f64_for_worker<'a>(array: &'a F64Array, worker: &Worker) -> &'a [f64] {
    let bits = array.raw().for_worker(worker).as_native::<u64>();
    bytemuck::cast_slice(bits.expect("an F64Array stores 64-bit words"))
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

/// Values at positions `s..t` of an array: in place when stored at 32 or 64 bits, else
/// decoded into a buffer (for kernels that need a whole neighbour or weight list at once).
#[derive(Clone, Copy)]
pub(crate) enum Run<'a> {
    N32(&'a [u32]),
    N64(&'a [u64]),
}

impl Run<'_> {
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        match self {
            Run::N32(values) => values.len(),
            Run::N64(values) => values.len(),
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> u64 {
        match self {
            Run::N32(values) => u64::from(values[i]),
            Run::N64(values) => values[i],
        }
    }
}

/// [`Targets`] with a single-value reader for short lists of a bit-packed array: [`Runs::run`]
/// reads lists of at most [`SHORT`] values one at a time, longer ones in bulk (as [`run`]).
#[derive(Clone, Copy)]
pub(crate) struct Runs<'a> {
    targets: Targets<'a>,
    packed: Option<PackedRun<'a>>,
}

impl<'a> Runs<'a> {
    pub(crate) fn of(view: ArrayView<'a>) -> Runs<'a> {
        let targets = Targets::of(view);
        let packed = match targets {
            Targets::Packed(view) => PackedRun::new(view),
            _ => None,
        };
        Runs { targets, packed }
    }

    /// The values at positions `s..t` (see [`Run`]).
    #[inline(always)]
    pub(crate) fn run(&self, s: usize, t: usize, buffer: &'a mut Vec<u64>) -> Run<'a> {
        match self.packed {
            Some(packed) if t - s <= SHORT => {
                if buffer.len() < SHORT {
                    buffer.resize(SHORT, 0);
                }
                packed.read_into(s, t, buffer);
                Run::N64(&buffer[..t - s])
            }
            _ => run(self.targets, s, t, buffer),
        }
    }
}

/// A vertex's list bounds read from an offsets array: in place at 64 bits, by single reads
/// ([`PackedRun`]) when bit-packed at most [`crate::packed_run::MAX_BITS`] wide, else through
/// the view.
#[derive(Clone, Copy)]
pub(crate) enum Bounds<'a> {
    Native(&'a [u64]),
    Packed(PackedRun<'a>),
    View(ArrayView<'a>),
}

impl<'a> Bounds<'a> {
    pub(crate) fn of(view: ArrayView<'a>) -> Bounds<'a> {
        if let Some(values) = view.as_native::<u64>() {
            Bounds::Native(values)
        } else if let Some(run) = PackedRun::new(view) {
            Bounds::Packed(run)
        } else {
            Bounds::View(view)
        }
    }

    /// Offsets `v` and `v + 1`: the positions of vertex `v`'s list.
    ///
    /// # Panics
    /// If `v + 1` is not a position of the array.
    #[inline(always)]
    pub(crate) fn list(&self, v: usize) -> (usize, usize) {
        match self {
            Bounds::Native(values) => (values[v] as usize, values[v + 1] as usize),
            Bounds::Packed(run) => {
                let mut pair = [0u64; 2];
                run.read_into(v, v + 2, &mut pair);
                (pair[0] as usize, pair[1] as usize)
            }
            Bounds::View(view) => (view.value(v) as usize, view.value(v + 1) as usize),
        }
    }
}

/// The values at positions `s..t` of `targets` (see [`Run`]).
#[inline(always)]
pub(crate) fn run<'a>(
    targets: Targets<'a>,
    s: usize,
    t: usize,
    buffer: &'a mut Vec<u64>,
) -> Run<'a> {
    match targets {
        Targets::U32(values) => Run::N32(&values[s..t]),
        Targets::U64(values) => Run::N64(&values[s..t]),
        Targets::Packed(view) => {
            if buffer.len() < t - s {
                buffer.resize(t - s, 0);
            }
            // The range lies inside the array (callers pass positions from its offsets).
            let _ = view.unpack(s, &mut buffer[..t - s]);
            Run::N64(&buffer[..t - s])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids `0..n` mixed with the extreme ids of a `len`-value array (0 and `len - 1`).
    fn ids(n: usize, len: usize) -> Vec<u64> {
        (0..n as u64)
            .map(|i| match i % 5 {
                0 => 0,
                1 => len as u64 - 1,
                _ => (i * 2_654_435_761) % len as u64,
            })
            .collect()
    }

    fn plain(ids: &[u64], values: &[f32]) -> f64 {
        ids.iter().map(|&id| f64::from(values[id as usize])).sum()
    }

    #[test]
    fn gathers_agree_with_a_plain_sum_at_edge_lengths() {
        let values: Vec<f32> = (0..5000).map(|i| (i % 97) as f32 * 0.25 + 1.0).collect();
        for n in [0, 1, 3, 4, 5, 63, 64, 65, 67, 68, 1023, 1024, 1025] {
            let ids64 = ids(n, values.len());
            let ids32: Vec<u32> = ids64.iter().map(|&id| id as u32).collect();
            let expected = plain(&ids64, &values);
            // `ahead` as long as the ids, and longer (prefetch targets past the list).
            let mut longer = ids64.clone();
            longer.extend(ids(100, values.len()));
            let sums = [
                gather_sum_ahead::<true, _, _>(&ids64, &ids64, &values),
                gather_sum_ahead::<false, _, _>(&ids64, &ids64, &values),
                gather_sum_ahead::<true, _, _>(&ids64, &longer, &values),
                gather_sum_ahead::<true, _, _>(&ids32, &ids32, &values),
                // SAFETY: every id is below `values.len()` (built by `ids`).
                unsafe { gather_sum_trusted::<true, _, _>(&ids64, &longer, &values) },
                // SAFETY: as above.
                unsafe { gather_sum_trusted::<false, _, _>(&ids32, &ids32, &values) },
            ];
            for sum in sums {
                // The values are multiples of 1/4 below 2^10: every order sums exactly.
                assert_eq!(sum, expected, "{n} ids");
            }
        }
    }

    #[test]
    fn the_one_exit_gather_masks_the_ids_past_the_list() {
        // Values with large, distinct ids past each list, so a lane read but not masked
        // would show; f64 values exact in every order (multiples of 1/8 below 2^20).
        let values: Vec<f64> = (0..2000).map(|i| (i % 251) as f64 * 0.125 + 3.0).collect();
        let last = values.len() as u32 - 1;
        for n in [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 1023, 1025] {
            // Ids at both ends of the range among scattered ones.
            let list: Vec<u32> = (0..n as u32)
                .map(|i| match i % 3 {
                    0 => 0,
                    1 => last,
                    _ => (i * 7919) % last,
                })
                .collect();
            let expected: f64 = list.iter().map(|&id| values[id as usize]).sum();
            // `ahead` ending with the list, and 1, 2, 3 and 10 ids past it (the ids past
            // the list must not count, whatever they are).
            for extra in [0, 1, 2, 3, 10] {
                let mut ahead = list.clone();
                ahead.extend((0..extra).map(|k| if k % 2 == 0 { last } else { 1 }));
                let checked = gather_sum_ahead::<false, _, _>(&list, &ahead, &values);
                // SAFETY: every id in `ahead` is at most `last`, below `values.len()`.
                let trusted = unsafe { gather_sum_trusted::<false, _, _>(&list, &ahead, &values) };
                assert_eq!(checked, expected, "{n} ids, {extra} past");
                assert_eq!(trusted, expected, "{n} ids, {extra} past");
                let wide: Vec<u64> = ahead.iter().map(|&id| u64::from(id)).collect();
                let sum = gather_sum_ahead::<false, _, _>(&wide[..n], &wide, &values);
                assert_eq!(sum, expected, "{n} u64 ids, {extra} past");
            }
        }
    }

    #[test]
    fn first_hits_of_packed_lists_agree_with_a_plain_search() {
        use smartarrays::{ArrayOptions, SmartArray};
        // Lists of the lengths around the probes and the window, one after another.
        let lengths = [0, 1, 63, 64, 65, 1025, 2049 + PROBE];
        for bits in [1, 2, 7, 21, 22, 32, 33, 56, 57, 63, 64] {
            let top = smartarrays::codec::max_value(bits);
            let total: usize = lengths.iter().sum();
            let all: Vec<u64> = (0..total as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & top)
                .collect();
            let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
            let view = array.local();
            let run = crate::packed_run::PackedRun::new(view);
            assert_eq!(run.is_some(), bits <= crate::packed_run::MAX_BITS);
            let mut s = 0;
            for &n in &lengths {
                let t = s + n;
                // A hit nowhere, at the first and last positions, past the probes and in a
                // second decoded window (by position, so repeated ids cannot hit early).
                for at in [
                    usize::MAX,
                    0,
                    n.wrapping_sub(1),
                    PROBE + 1,
                    WINDOW + PROBE + 1,
                ] {
                    let expected = all[s..t].get(at).map(|&u| u as usize);
                    let mut buffer = Vec::new();
                    let mut k = 0;
                    let mut hit = |_| {
                        k += 1;
                        k - 1 == at
                    };
                    let found = match run {
                        Some(run) => Probed::new(run, view, &mut buffer).first_hit(s, t, &mut hit),
                        None => Unpacked::new(view, &mut buffer).first_hit(s, t, &mut hit),
                    };
                    assert_eq!(found, expected, "{bits} bits, {n} ids, hit at {at}");
                    let mut k = 0;
                    let found = Unpacked::new(view, &mut buffer).first_hit(s, t, |_| {
                        k += 1;
                        k - 1 == at
                    });
                    assert_eq!(found, expected, "{bits} bits, {n} ids, hit at {at}, bulk");
                }
                s = t;
            }
        }
    }

    /// Lists of the given lengths, one after another, with values spread over `bits` bits
    /// (the extremes included), packed at `bits`.
    fn packed_lists(bits: u32, lengths: &[usize]) -> (Vec<u64>, smartarrays::SmartArray) {
        use smartarrays::{ArrayOptions, SmartArray};
        let all = crate::packed_run::tests::values(lengths.iter().sum(), bits);
        let array = SmartArray::from_slice(&all, &ArrayOptions::new().bits(bits)).unwrap();
        (all, array)
    }

    /// List lengths around the single-read threshold, the window and the word sizes.
    const LENGTHS: [usize; 14] = [0, 1, 2, 3, 15, 16, 17, 63, 64, 65, 1023, 1025, 2049, 1];

    #[test]
    fn windows_runs_and_bounds_read_packed_lists_exactly() {
        for bits in 1..=64 {
            let (all, array) = packed_lists(bits, &LENGTHS);
            let view = array.local();
            // Offsets of the lists, packed at the least width that holds them.
            let mut bounds = vec![0u64];
            for &n in &LENGTHS {
                bounds.push(bounds[bounds.len() - 1] + n as u64);
            }
            let offsets = smartarrays::SmartArray::from_slice(
                &bounds,
                &smartarrays::ArrayOptions::new().bits(64 - all.len().leading_zeros()),
            )
            .unwrap();
            let offsets = Bounds::of(offsets.local());
            let runs = Runs::of(view);
            for limit in [0, all.len()] {
                let mut buffer = Vec::new();
                let mut window = Decoded::new(view, &mut buffer, limit);
                let mut run_buffer = Vec::new();
                for (v, &n) in LENGTHS.iter().enumerate() {
                    let (s, t) = offsets.list(v);
                    assert_eq!((s, t), (bounds[v] as usize, bounds[v + 1] as usize));
                    assert_eq!(t - s, n);
                    // The window, piece by piece.
                    let mut seen = Vec::new();
                    let mut e = s;
                    while e < t {
                        let piece = window.piece(e, t);
                        assert!(!piece.is_empty());
                        seen.extend_from_slice(piece);
                        e += piece.len();
                    }
                    assert_eq!(seen, all[s..t], "{bits} bits, list {v} ({n} ids), {limit}");
                    // The whole list at once.
                    let list = runs.run(s, t, &mut run_buffer);
                    let got: Vec<u64> = (0..list.len()).map(|i| list.get(i)).collect();
                    assert_eq!(got, all[s..t], "{bits} bits, run of {n}");
                }
            }
        }
    }

    #[test]
    fn bounds_of_plain_offsets_are_read_in_place() {
        let bounds = [0u64, 0, 1, 3, 3, 70, 127];
        for bits in [7, 8, 32, 56, 57, 63, 64] {
            let array = smartarrays::SmartArray::from_slice(
                &bounds,
                &smartarrays::ArrayOptions::new().bits(bits),
            )
            .unwrap();
            let offsets = Bounds::of(array.local());
            let expected = match bits {
                64 => "native",
                57.. => "view",
                _ => "packed",
            };
            let kind = match offsets {
                Bounds::Native(_) => "native",
                Bounds::Packed(_) => "packed",
                Bounds::View(_) => "view",
            };
            assert_eq!(kind, expected, "{bits} bits");
            for v in 0..bounds.len() - 1 {
                assert_eq!(
                    offsets.list(v),
                    (bounds[v] as usize, bounds[v + 1] as usize),
                    "{bits} bits, vertex {v}"
                );
            }
        }
    }

    #[test]
    #[should_panic]
    fn the_checked_gather_refuses_an_id_past_the_values() {
        let values = [1.0f32; 64];
        gather_sum_ahead::<false, _, _>(&[3u32, 64], &[3u32, 64], &values);
    }

    #[test]
    fn prefetching_starts_above_the_cache_share() {
        assert!(!worth_prefetching(&vec![0f32; PREFETCH_ABOVE / 4]));
        assert!(worth_prefetching(&vec![0f32; PREFETCH_ABOVE / 4 + 1]));
        assert!(!worth_prefetching::<f64>(&[]));
    }
}
