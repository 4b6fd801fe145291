//! `SmartArray`: unsigned 64-bit values, bit-packed at a chosen width, in memory placed by a
//! [`Placement`] (one region, or one replica per node), built and scanned in parallel by a
//! [`Runtime`].

use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::Arc;

use super::atomic;
pub use super::auto::Advice;
use super::auto::{self, AutoRequest, Compression, Usage};
use super::view::{ArrayView, Iter};
use crate::codec;
use crate::error::{Error, Result};
use crate::memory::{self, HugePages, Placement, PlacementReport, Region};
use crate::runtime::{self, DisjointBatches, Part, Runtime, Worker};

/// How to build an array: placement, width, huge pages and the runtime that builds and scans it.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, Placement, SmartArray};
/// let options = ArrayOptions::new().placement(Placement::Interleaved(vec![])).bits(12);
/// let array = SmartArray::from_slice(&[1, 2, 4000], &options).unwrap();
/// assert_eq!(array.bits(), 12);
/// assert_eq!(array.get(2).unwrap(), 4000);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ArrayOptions {
    /// Where the memory goes (default: OS default).
    pub placement: Placement,
    /// Bit width rule (default: [`Compression::Minimal`], the fewest bits that hold the
    /// largest value).
    pub compression: Compression,
    /// Transparent huge pages (default: automatic for large arrays).
    pub huge_pages: HugePages,
    /// Runtime used to build and scan (default: [`Runtime::global`]).
    pub runtime: Option<Arc<Runtime>>,
    /// How the array will be used; read by the advisor when placement or width is "auto".
    pub usage: Usage,
}

impl ArrayOptions {
    /// Default options: OS default placement, minimal width.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the placement.
    pub fn placement(mut self, placement: Placement) -> Self {
        self.placement = placement;
        self
    }

    /// Sets an exact bit width.
    pub fn bits(mut self, bits: u32) -> Self {
        self.compression = Compression::Exactly(bits);
        self
    }

    /// Sets the width rule: exact, minimal, uncompressed (natural machine width), or
    /// [`Compression::Auto`] to let the installed advisor choose (see
    /// [`install_advisor`](crate::array::install_advisor)).
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// States how the array will be used (read by the advisor for "auto" options).
    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Sets the huge page policy.
    pub fn huge_pages(mut self, huge_pages: HugePages) -> Self {
        self.huge_pages = huge_pages;
        self
    }

    /// Uses this runtime to build and scan.
    pub fn runtime(mut self, runtime: Arc<Runtime>) -> Self {
        self.runtime = Some(runtime);
        self
    }

    fn resolve_runtime(&self) -> Result<Arc<Runtime>> {
        match &self.runtime {
            Some(runtime) => Ok(Arc::clone(runtime)),
            None => Runtime::global(),
        }
    }
}

/// The width, placement and advice for building `len` values with `options`: exact widths are
/// checked, derived ones computed from `largest()` (called at most once), and "auto" parts
/// resolved by the installed advisor (parts the caller fixed stay as given).
fn configure(
    len: usize,
    options: &ArrayOptions,
    runtime: &Arc<Runtime>,
    largest: impl FnOnce() -> u64,
) -> Result<(u32, Placement, Option<Arc<Advice>>)> {
    let needs_auto =
        options.placement == Placement::Auto || options.compression == Compression::Auto;
    if let Compression::Exactly(bits) = options.compression {
        codec::check_bits(bits)?;
        if !needs_auto {
            return Ok((bits, options.placement.clone(), None));
        }
    }
    let largest = largest();
    let fixed_bits = match options.compression {
        Compression::Exactly(bits) => Some(bits),
        Compression::Minimal => Some(codec::bits_needed(largest)),
        Compression::Uncompressed => Some(auto::natural_bits(codec::bits_needed(largest))),
        Compression::Auto => None,
    };
    if let (false, Some(bits)) = (needs_auto, fixed_bits) {
        return Ok((bits, options.placement.clone(), None));
    }
    let request = AutoRequest {
        len,
        largest,
        placement: options.placement.clone(),
        compression: options.compression,
        usage: options.usage.clone(),
    };
    let advice = auto::resolve(&request, runtime)?;
    let bits = fixed_bits.unwrap_or(advice.bits);
    let placement = if options.placement == Placement::Auto {
        advice.placement.clone()
    } else {
        options.placement.clone()
    };
    Ok((bits, placement, Some(Arc::new(advice))))
}

/// Values per batch when building or scanning in parallel (a multiple of the 64-value chunk).
pub const PARALLEL_BATCH: usize = 1 << 16;

/// An array of unsigned integers stored in `bits` bits each, placed on NUMA nodes.
///
/// Reads (`get`, `unpack`, scans) take `&self` and are safe from any number of threads; each
/// reader uses the replica of the node it runs on. Writes (`set`) take `&mut self`, so they
/// cannot race with reads or each other (the paper's arrays are likewise not synchronised); a
/// write goes to every replica.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, Placement, SmartArray};
/// let values: Vec<u64> = (0..1000).map(|i| i * 3).collect();
/// let mut array = SmartArray::from_slice(&values, &ArrayOptions::new().placement(Placement::Replicated)).unwrap();
/// assert_eq!(array.bits(), 12); // 2997 needs 12 bits
/// assert_eq!(array.sum(), values.iter().sum::<u64>());
/// array.set(5, 7).unwrap();
/// assert_eq!(array.get(5).unwrap(), 7);
/// assert!(array.set(5, 1 << 12).is_err()); // does not fit: refused, nothing written
/// ```
pub struct SmartArray {
    len: usize,
    bits: u32,
    placement: Placement,
    regions: Vec<Region>,
    region_nodes: Vec<Option<usize>>,
    simulated: bool,
    runtime: Arc<Runtime>,
    advice: Option<Arc<Advice>>,
    placement_advised: bool,
}

impl std::fmt::Debug for SmartArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmartArray")
            .field("len", &self.len)
            .field("bits", &self.bits)
            .field("placement", &self.placement)
            .field("replicas", &self.regions.len())
            .finish_non_exhaustive()
    }
}

impl SmartArray {
    /// Builds an array from a slice. With [`Compression::Minimal`] the width is the fewest bits that hold
    /// the largest value; with an exact width, a value that does not fit is an
    /// [`Error::ValueTooWide`] naming the first such index.
    pub fn from_slice(values: &[u64], options: &ArrayOptions) -> Result<SmartArray> {
        SmartArray::from_batches(values.len(), options, |range, out| {
            out.copy_from_slice(&values[range]);
        })
    }

    /// Builds an array of `len` values at `bits` bits from the packed words of another (as
    /// [`ArrayView::packed_bytes`] gives them, viewed as words: exactly `ceil(len * bits / 64)`),
    /// placed by `options` (whose width is replaced by `bits`). Used to move arrays between
    /// processes without decoding them (Python's pickling ships these words). Bits past the last
    /// value are ignored.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_fn(100, &ArrayOptions::new().bits(7), |i| i as u64).unwrap();
    /// let bytes = array.local().packed_bytes();
    /// let words: Vec<u64> = bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    /// let copy = SmartArray::from_packed_words(100, 7, &words, &ArrayOptions::new()).unwrap();
    /// assert_eq!(copy.to_vec(), array.to_vec());
    /// ```
    pub fn from_packed_words(
        len: usize,
        bits: u32,
        words: &[u64],
        options: &ArrayOptions,
    ) -> Result<SmartArray> {
        codec::check_bits(bits)?;
        let expected = len
            .checked_mul(bits as usize)
            .map(|total| total.div_ceil(64))
            .ok_or(Error::AllocationFailed {
                bytes: u64::MAX,
                reason: format!("{len} values of {bits} bits overflow the address space"),
            })?;
        if words.len() != expected {
            return Err(Error::PackedLengthMismatch {
                len,
                bits,
                expected,
                given: words.len(),
            });
        }
        // The decoders may read a vector past the last value: give them the padding.
        let mut padded = Vec::with_capacity(expected + codec::PADDING_WORDS);
        padded.extend_from_slice(words);
        padded.resize(expected + codec::PADDING_WORDS, 0);
        SmartArray::from_batches(len, &options.clone().bits(bits), |range, out| {
            codec::unpack_range(&padded, bits, range.start, out);
        })
    }

    /// Builds an array from an iterator (collected first, since the width and length must be
    /// known before packing).
    pub fn from_iter_with(
        values: impl IntoIterator<Item = u64>,
        options: &ArrayOptions,
    ) -> Result<SmartArray> {
        let collected: Vec<u64> = values.into_iter().collect();
        SmartArray::from_slice(&collected, options)
    }

    /// An array of `len` zeros at `bits` bits.
    pub fn zeroed(len: usize, bits: u32, options: &ArrayOptions) -> Result<SmartArray> {
        SmartArray::from_fn(len, &options.clone().bits(bits), |_| 0)
    }

    /// Builds an array whose value `i` is `value(i)`, in parallel: every replica is written by
    /// the workers of its own node, so pages are touched where they belong. `value` must be a
    /// pure function (it is called once per index and replica, and once more for
    /// [`Compression::Minimal`]). On error nothing is returned and all memory is freed.
    pub fn from_fn(
        len: usize,
        options: &ArrayOptions,
        value: impl Fn(usize) -> u64 + Sync,
    ) -> Result<SmartArray> {
        // One construction path: values are produced in L1-sized batches and packed with the
        // fastest packer the CPU has.
        SmartArray::from_batches(len, options, |range, out| {
            for (slot, i) in out.iter_mut().zip(range) {
                *slot = value(i);
            }
        })
    }

    /// Maps zeroed, placed storage for `len` values of `bits` bits (not yet written).
    fn allocate(
        len: usize,
        bits: u32,
        placement: &Placement,
        options: &ArrayOptions,
        runtime: Arc<Runtime>,
    ) -> Result<SmartArray> {
        let words = codec::storage_words(len, bits).ok_or(Error::AllocationFailed {
            bytes: u64::MAX,
            reason: format!("{len} values of {bits} bits overflow the address space"),
        })?;
        let resolved = memory::ResolvedPlacement::new(placement.clone())?;
        let allocation =
            memory::allocate(runtime.topology(), &resolved, words, options.huge_pages)?;
        Ok(SmartArray {
            len,
            bits,
            placement: placement.clone(),
            regions: allocation.regions,
            region_nodes: allocation.nodes,
            simulated: allocation.simulated,
            runtime,
            advice: None,
            placement_advised: false,
        })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits per value.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The placement the array was built with (the chosen one when it was built with
    /// [`Placement::Auto`]).
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The advisor's decision and its reasoning, when the array was built with "auto" options.
    pub fn advice(&self) -> Option<&Advice> {
        self.advice.as_deref()
    }

    /// Whether the advisor chose the placement (the array was built with [`Placement::Auto`]);
    /// false when the caller fixed it, even if the advisor chose the width.
    ///
    /// ```
    /// use smartarrays::{ArrayOptions, Placement, SmartArray};
    /// let array = SmartArray::from_slice(&[1, 2, 3], &ArrayOptions::new().placement(Placement::OsDefault)).unwrap();
    /// assert!(!array.placement_was_advised());
    /// ```
    pub fn placement_was_advised(&self) -> bool {
        self.placement_advised
    }

    /// Number of copies (1 unless replicated).
    pub fn replica_count(&self) -> usize {
        self.regions.len()
    }

    /// The node each replica is bound to (`None` for OS default and interleaved arrays).
    pub fn replica_nodes(&self) -> &[Option<usize>] {
        &self.region_nodes
    }

    /// The runtime that builds and scans this array.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// Bytes of memory the array occupies (all replicas, whole pages).
    pub fn memory_bytes(&self) -> usize {
        self.regions.iter().map(Region::mapped_bytes).sum()
    }

    /// Bytes the values would take densely packed in one copy: `ceil(len * bits / 8)`.
    pub fn packed_bytes(&self) -> usize {
        (self.len * self.bits as usize).div_ceil(8)
    }

    /// The replica the calling thread should read: the one on its node (the runtime worker's
    /// node, or the node of the CPU it runs on), else the first.
    #[inline]
    pub fn local_replica_index(&self) -> usize {
        if self.regions.len() == 1 {
            return 0;
        }
        let node =
            runtime::current_worker_node().or_else(|| self.runtime.topology().current_node());
        self.replica_index_for_node(node)
    }

    fn replica_index_for_node(&self, node: Option<usize>) -> usize {
        node.and_then(|n| self.region_nodes.iter().position(|&r| r == Some(n)))
            .unwrap_or(0)
    }

    /// A view of replica `index`.
    ///
    /// # Panics
    /// If `index >= replica_count()`.
    #[inline]
    pub fn replica(&self, index: usize) -> ArrayView<'_> {
        ArrayView::new(self.regions[index].words(), self.len, self.bits)
    }

    /// A view of the replica local to the calling thread.
    #[inline]
    pub fn local(&self) -> ArrayView<'_> {
        self.replica(self.local_replica_index())
    }

    /// The packed words of the replica local to the calling thread: [`SmartArray::local`]'s
    /// [`ArrayView::packed_words`] without building a view, for a collection that keeps its own
    /// layout in a 64-bit smart array and reads it on every lookup.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_slice(&[7, 8, 9], &ArrayOptions::new().bits(64)).unwrap();
    /// assert_eq!(&array.local_words()[..3], &[7, 8, 9]);
    /// ```
    #[inline]
    pub fn local_words(&self) -> &[u64] {
        self.regions[self.local_replica_index()].words()
    }

    /// The view a runtime worker should read.
    pub fn for_worker(&self, worker: &Worker) -> ArrayView<'_> {
        self.replica(self.replica_index_for_node(Some(worker.node)))
    }

    /// Value `index`, or [`Error::IndexOutOfRange`].
    #[inline]
    pub fn get(&self, index: usize) -> Result<u64> {
        self.local().get(index)
    }

    /// Value `index` of the local replica, without checking it against the length; see
    /// [`ArrayView::get_unchecked`].
    ///
    /// # Safety
    /// `index < self.len()`.
    #[inline]
    pub unsafe fn get_unchecked(&self, index: usize) -> u64 {
        // SAFETY: forwarded contract: index < len.
        unsafe { self.local().get_unchecked(index) }
    }

    /// Batched random reads from the local replica: `out[k]` becomes value `indices[k]`; see
    /// [`ArrayView::get_many`].
    pub fn get_many(&self, indices: &[usize], out: &mut [u64]) -> Result<()> {
        self.local().get_many(indices, out)
    }

    /// Sets value `index` in every replica. Refuses values wider than the array
    /// ([`Error::ValueTooWide`]) and indices past the end; on error nothing is written.
    pub fn set(&mut self, index: usize, value: u64) -> Result<()> {
        if index >= self.len {
            return Err(Error::IndexOutOfRange {
                index,
                len: self.len,
            });
        }
        let max = codec::max_value(self.bits);
        if value > max {
            return Err(Error::ValueTooWide {
                index,
                value,
                bits: self.bits,
                max,
            });
        }
        for region in &mut self.regions {
            codec::set(region.words_mut(), self.bits, index, value);
        }
        Ok(())
    }

    /// Decodes values `start..start + out.len()` into `out`.
    pub fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        self.local().unpack(start, out)
    }

    /// Visits `range` in decoded chunks; see [`ArrayView::for_each_chunk`].
    pub fn for_each_chunk(
        &self,
        range: Range<usize>,
        visit: impl FnMut(usize, &[u64]),
    ) -> Result<()> {
        self.local().for_each_chunk(range, visit)
    }

    /// Forward iterator over the values (of the local replica).
    pub fn iter(&self) -> Iter<'_> {
        self.local().iter()
    }

    /// All values, decoded.
    pub fn to_vec(&self) -> Vec<u64> {
        self.local().to_vec()
    }

    /// Wrapping sum of all values, on the calling thread.
    pub fn sum(&self) -> u64 {
        codec::sum_range(self.local().packed_words(), self.bits, 0, self.len)
    }

    /// Wrapping sum of all values, in parallel on the array's runtime (each worker reads its
    /// node's replica, with the fused unpack-and-sum kernel).
    pub fn par_sum(&self) -> u64 {
        self.runtime.map_reduce(
            0..self.len,
            PARALLEL_BATCH,
            || 0u64,
            |sum, worker, range| {
                sum.wrapping_add(codec::sum_range(
                    self.for_worker(worker).packed_words(),
                    self.bits,
                    range.start,
                    range.end,
                ))
            },
            u64::wrapping_add,
        )
    }

    /// Parallel map-reduce over decoded chunks (paper §7): each worker folds the chunks of the
    /// batches it claims, read from its own node's replica.
    pub fn par_map_reduce<T: Send>(
        &self,
        identity: impl Fn() -> T + Sync,
        fold: impl Fn(T, usize, &[u64]) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        self.runtime.map_reduce(
            0..self.len,
            PARALLEL_BATCH,
            &identity,
            |accumulator, worker, range| {
                let mut accumulator = Some(accumulator);
                let view = self.for_worker(worker);
                let visited = view.for_each_chunk(range, |first, values| {
                    accumulator = accumulator.take().map(|a| fold(a, first, values));
                });
                debug_assert!(visited.is_ok());
                accumulator.unwrap_or_else(&identity)
            },
            combine,
        )
    }

    /// Smallest value (`None` when empty), in parallel; see [`SmartArray::reduce`] for the
    /// other reductions and other threads.
    pub fn par_min(&self) -> Option<u64> {
        self.reduce(super::Threads::Array).min()
    }

    /// Largest value (`None` when empty), in parallel.
    pub fn par_max(&self) -> Option<u64> {
        self.reduce(super::Threads::Array).max()
    }

    /// Where the array's pages are, read back from the kernel.
    pub fn placement_report(&self) -> Result<PlacementReport> {
        let replicas = self
            .regions
            .iter()
            .zip(&self.region_nodes)
            .map(|(region, &node)| memory::region_report(region, node))
            .collect::<Result<Vec<_>>>()?;
        Ok(PlacementReport {
            placement: self.placement.to_string(),
            page_size: crate::sys::page_size(),
            replicas,
            simulated: self.simulated,
        })
    }

    /// The node of every page of replica `index` (`None` for pages not present).
    pub fn page_nodes(&self, index: usize) -> Result<Vec<Option<usize>>> {
        let region = self.regions.get(index).ok_or(Error::IndexOutOfRange {
            index,
            len: self.regions.len(),
        })?;
        memory::region_page_nodes(region)
    }
}

/// Values produced and packed per step of [`SmartArray::from_batches`] (8 KiB of decoded values,
/// so the buffer stays in the L1 cache next to what `produce` reads).
const FILL_STEP: usize = 1024;

/// Batch-wise construction and in-place rewriting (added for graph analytics: CSR arrays are
/// produced a range at a time, and PageRank rewrites its rank arrays every iteration).
impl SmartArray {
    /// Builds an array whose values `range` are written by `produce(range, out)` into a buffer
    /// of `range.len()` decoded values, for consecutive ranges of at most 1024 values (starting
    /// at multiples of 1024), in parallel (each replica is packed by the workers of its node). Like [`SmartArray::from_fn`], `produce` must be
    /// pure: it runs once per batch and replica, and once more for [`Compression::Minimal`]. A value that
    /// does not fit an exact width is an [`Error::ValueTooWide`]; on error nothing is returned.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_batches(1000, &ArrayOptions::new(), |range, out| {
    ///     for (slot, i) in out.iter_mut().zip(range) {
    ///         *slot = i as u64 * 2;
    ///     }
    /// })
    /// .unwrap();
    /// assert_eq!(array.bits(), 11);
    /// assert_eq!(array.get(999).unwrap(), 1998);
    /// ```
    pub fn from_batches(
        len: usize,
        options: &ArrayOptions,
        produce: impl Fn(Range<usize>, &mut [u64]) + Sync,
    ) -> Result<SmartArray> {
        let runtime = options.resolve_runtime()?;
        let exact = match options.compression {
            Compression::Exactly(bits) => Some(bits),
            _ => None,
        };
        if exact.is_none() || options.placement == Placement::Auto {
            // The width (or the advisor's placement) comes from the values, so they are all
            // produced once before allocating. An impossible size must fail now, not after that
            // pass: the exact width, or at least one bit per value, must fit where the array is
            // to go.
            let words = codec::storage_words(len, exact.unwrap_or(1).clamp(1, 64)).ok_or(
                Error::AllocationFailed {
                    bytes: u64::MAX,
                    reason: format!("{len} values overflow the address space"),
                },
            )?;
            memory::check_fits(runtime.topology(), &options.placement, words)?;
        }
        let largest = || {
            runtime
                .map_reduce(
                    0..len,
                    PARALLEL_BATCH,
                    || (0u64, Vec::new()),
                    |(mut largest, mut buffer): (u64, Vec<u64>), _, range| {
                        for start in range.clone().step_by(FILL_STEP) {
                            let end = (start + FILL_STEP).min(range.end);
                            buffer.resize(end - start, 0);
                            produce(start..end, &mut buffer);
                            largest = buffer.iter().copied().fold(largest, u64::max);
                        }
                        (largest, buffer)
                    },
                    |a, b| (a.0.max(b.0), Vec::new()),
                )
                .0
        };
        let (bits, placement, advice) = configure(len, options, &runtime, largest)?;
        let mut array = SmartArray::allocate(len, bits, &placement, options, runtime)?;
        array.placement_advised = advice.is_some() && options.placement == Placement::Auto;
        array.advice = advice;
        array.fill_batches(&produce)?;
        Ok(array)
    }

    pub(crate) fn fill_batches(
        &mut self,
        produce: &(impl Fn(Range<usize>, &mut [u64]) + Sync),
    ) -> Result<()> {
        let (len, bits) = (self.len, self.bits);
        let words_per_batch = PARALLEL_BATCH / 64 * bits as usize;
        let parts: Vec<Part> = self
            .region_nodes
            .iter()
            .map(|&node| Part {
                node,
                range: 0..len,
            })
            .collect();
        let pieces: Vec<DisjointBatches<u64>> = self
            .regions
            .iter_mut()
            .map(|region| DisjointBatches::new(region.words_mut(), words_per_batch))
            .collect();
        let max = codec::max_value(bits);
        let runtime = Arc::clone(&self.runtime);
        let (first_misfit, _) = runtime.run_parts(
            &parts,
            PARALLEL_BATCH,
            false,
            || (None::<(usize, u64)>, Vec::new()),
            |(mut misfit, mut buffer): (Option<(usize, u64)>, Vec<u64>), _worker, part, batch| {
                let piece_index = batch.start / PARALLEL_BATCH;
                pieces[part]
                    .with_piece(piece_index, move |piece| {
                        // Produced and packed in L1-sized steps of FILL_STEP values (whole words at any
                        // width, since FILL_STEP is a multiple of 64).
                        let mut start = batch.start;
                        // Every batch is written in full even after a misfit (values cut to the
                        // width), so the outcome does not depend on which worker saw the misfit first:
                        // replicas stay equal and the lowest misfit is reported.
                        while start < batch.end {
                            let end = (start + FILL_STEP).min(batch.end);
                            buffer.resize(end - start, 0);
                            produce(start..end, &mut buffer);
                            let first_word = (start - batch.start) / 64 * bits as usize;
                            let words = &mut piece[first_word..];
                            let widest = match bits {
                                // Whole-word widths are stored as plain little-endian integers.
                                64 => {
                                    words[..buffer.len()].copy_from_slice(&buffer);
                                    buffer.iter().fold(0u64, |w, &v| w | v)
                                }
                                32 => {
                                    let narrow: &mut [u32] = bytemuck::cast_slice_mut(words);
                                    let mut widest = 0u64;
                                    for (slot, &value) in narrow.iter_mut().zip(&buffer) {
                                        widest |= value;
                                        *slot = value as u32;
                                    }
                                    widest
                                }
                                _ => {
                                    codec::pack_slice(words, bits, &buffer);
                                    buffer.iter().fold(0u64, |w, &v| w | v)
                                }
                            };
                            if widest > max {
                                let offset = buffer.iter().position(|&v| v > max).unwrap_or(0);
                                let found = (start + offset, buffer[offset]);
                                misfit = Some(misfit.map_or(found, |m: (usize, u64)| {
                                    if m.0 <= found.0 {
                                        m
                                    } else {
                                        found
                                    }
                                }));
                            }
                            start = end;
                        }
                        (misfit, buffer)
                    })
                    .unwrap_or_default()
            },
            |a, b| {
                let misfit = match (a.0, b.0) {
                    (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
                    (a, b) => a.or(b),
                };
                (misfit, Vec::new())
            },
        );
        match first_misfit {
            Some((index, value)) => Err(Error::ValueTooWide {
                index,
                value,
                bits,
                max,
            }),
            None => Ok(()),
        }
    }

    /// Runs `body` on the values of a 32-bit array as atomics ([`AtomicU32`], one per value, in
    /// the first replica), so that several threads can write them in place; then copies the first
    /// replica to the others (replicated arrays). Returns `None`, and does not call `body`, unless
    /// the array is stored at exactly 32 bits on a little-endian target. For kernels that would
    /// otherwise fill a vector of atomics and copy it into a new array at the end.
    ///
    /// If `body` panics, the values it wrote before the panic are still copied to every replica
    /// before the panic goes on, so the replicas of an array never disagree.
    ///
    /// # Example
    /// ```
    /// use std::sync::atomic::Ordering;
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let mut array = SmartArray::from_fn(4, &ArrayOptions::new().bits(32), |_| u32::MAX as u64).unwrap();
    /// let done = array.update_atomic_u32(|values| {
    ///     values[2].store(7, Ordering::Relaxed);
    ///     values.len()
    /// });
    /// assert_eq!(done, Some(4));
    /// assert_eq!(array.to_vec(), vec![u32::MAX as u64, u32::MAX as u64, 7, u32::MAX as u64]);
    /// // At any other width the values are not 32-bit integers in memory.
    /// let mut packed = SmartArray::from_fn(4, &ArrayOptions::new().bits(20), |_| 0).unwrap();
    /// assert_eq!(packed.update_atomic_u32(|values| values.len()), None);
    /// ```
    pub fn update_atomic_u32<R>(&mut self, body: impl FnOnce(&[AtomicU32]) -> R) -> Option<R> {
        if self.bits != 32 || !cfg!(target_endian = "little") {
            return None;
        }
        let len = self.len;
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            body(atomic::as_atomic_u32(self.regions[0].words_mut(), len))
        }));
        self.copy_first_replica(len.div_ceil(2));
        Some(result.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }

    /// [`SmartArray::update_atomic_u32`] for arrays stored at 64 bits ([`AtomicU64`] values).
    ///
    /// # Example
    /// ```
    /// use std::sync::atomic::Ordering;
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let mut array = SmartArray::zeroed(3, 64, &ArrayOptions::new()).unwrap();
    /// array.update_atomic_u64(|values| values[0].fetch_add(u64::MAX, Ordering::Relaxed));
    /// assert_eq!(array.to_vec(), vec![u64::MAX, 0, 0]);
    /// assert!(SmartArray::zeroed(3, 32, &ArrayOptions::new()).unwrap().update_atomic_u64(|_| ()).is_none());
    /// ```
    pub fn update_atomic_u64<R>(&mut self, body: impl FnOnce(&[AtomicU64]) -> R) -> Option<R> {
        if self.bits != 64 {
            return None;
        }
        let len = self.len;
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            body(atomic::as_atomic_u64(self.regions[0].words_mut(), len))
        }));
        self.copy_first_replica(len);
        Some(result.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    }

    /// Copies the first `words` words of the first replica to the other replicas, each by its
    /// own node's workers (nothing to do without replicas).
    fn copy_first_replica(&mut self, words: usize) {
        let (first, rest) = self
            .regions
            .split_first_mut()
            .expect("an array has at least one region");
        if rest.is_empty() {
            return;
        }
        let source = &first.words()[..words];
        let parts: Vec<Part> = self.region_nodes[1..]
            .iter()
            .map(|&node| Part {
                node,
                range: 0..words,
            })
            .collect();
        let pieces: Vec<DisjointBatches<u64>> = rest
            .iter_mut()
            .map(|region| DisjointBatches::new(&mut region.words_mut()[..words], PARALLEL_BATCH))
            .collect();
        self.runtime.run_parts(
            &parts,
            PARALLEL_BATCH,
            false,
            || (),
            |(), _, part, range| {
                pieces[part].with_batch(&range.clone(), |piece| {
                    piece.copy_from_slice(&source[range]);
                });
            },
            |(), ()| (),
        );
    }

    /// Rewrites a 64-bit array in place, in parallel: `body(accumulator, worker, range, words)`
    /// gets the batches `range` (boundaries at multiples of `batch`) of the first replica as
    /// mutable words, exactly once each; the other replicas are then copied from the first by
    /// their own node's workers. Returns the combined accumulators.
    ///
    /// # Panics
    /// If the array is not 64 bits wide (words are values only at 64 bits).
    pub(crate) fn par_update_words<T: Send>(
        &mut self,
        batch: usize,
        identity: impl Fn() -> T + Sync,
        body: impl Fn(T, &Worker, Range<usize>, &mut [u64]) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        assert_eq!(self.bits, 64, "in-place batch updates need a 64-bit array");
        let (len, batch) = (self.len, batch.max(1));
        let runtime = Arc::clone(&self.runtime);
        let first = self
            .regions
            .first_mut()
            .expect("an array has at least one region");
        let result = runtime.map_reduce_mut(
            &mut first.words_mut()[..len],
            batch,
            &identity,
            &body,
            combine,
        );
        self.copy_first_replica(len);
        result
    }
}
