//! `ArrayView`: a read-only view of one replica of a [`super::SmartArray`], with checked random
//! access, chunk decoding, the bounded chunk visitor and the forward iterator. Every scan in the
//! library goes through `for_each_chunk` or the range kernels, so no caller pays a per-element
//! call or branch for decoding.

use std::ops::Range;

use crate::codec;
use crate::error::{Error, Result};
use crate::memory::prefetch::{self, CacheLevel};

/// Values decoded per chunk handed to a [`ArrayView::for_each_chunk`] visitor (8 KiB, fits L1).
pub const VISIT_CHUNK: usize = 1024;

/// Unsigned integer types a view can hand out directly when stored at their own width
/// ([`ArrayView::as_native`]).
pub trait NativeValue: bytemuck::Pod + sealed::Sealed {}
impl NativeValue for u8 {}
impl NativeValue for u16 {}
impl NativeValue for u32 {}
impl NativeValue for u64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A read-only view of one replica: its packed words, length and bit width, and the CPU's
/// random-read sequence (chosen once, when the view is made).
#[derive(Clone, Copy, Debug)]
pub struct ArrayView<'a> {
    words: &'a [u64],
    len: usize,
    bits: u32,
    reads: codec::ReadKernel,
}

impl<'a> ArrayView<'a> {
    /// Crate-private: only ever given a region's whole storage (`storage_words(len, bits)`
    /// words: the values and the codec's padding), which the unchecked reads rely on.
    pub(crate) fn new(words: &'a [u64], len: usize, bits: u32) -> Self {
        debug_assert!(codec::storage_words(len, bits).is_some_and(|w| w <= words.len()));
        ArrayView {
            words,
            len,
            bits,
            reads: codec::ReadKernel::detected(),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits per value.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The packed words (data followed by padding). The codec's own layout: prefer
    /// [`ArrayView::as_native`], [`ArrayView::get_many`] and the chunk visitors, and
    /// [`ArrayView::packed_bytes`] for writing the storage to a file.
    pub fn packed_words(&self) -> &'a [u64] {
        self.words
    }

    /// The values as a plain slice of `T`, when the array is stored uncompressed at `T`'s width
    /// (8, 16, 32 or 64 bits: packing at a whole-byte width of 8·2^k bits is the native
    /// little-endian layout); `None` at any other width.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_slice(&[1, 2, 70_000], &ArrayOptions::new().bits(32)).unwrap();
    /// assert_eq!(array.local().as_native::<u32>(), Some(&[1u32, 2, 70_000][..]));
    /// assert_eq!(array.local().as_native::<u64>(), None); // stored at 32 bits, not 64
    /// ```
    pub fn as_native<T: NativeValue>(&self) -> Option<&'a [T]> {
        if !cfg!(target_endian = "little") || self.bits as usize != 8 * std::mem::size_of::<T>() {
            return None;
        }
        Some(&bytemuck::cast_slice::<u64, T>(self.words)[..self.len])
    }

    /// The packed bytes of the values (without the padding): exactly
    /// `ceil(len * bits / 64) * 8` bytes, in the codec's layout (value `i` in bits
    /// `i * bits .. (i + 1) * bits`, little-endian). Meant for writing the storage to a file
    /// that [`crate::codec`] can read back; everything else should read values.
    pub fn packed_bytes(&self) -> &'a [u8] {
        let data_words = (self.len * self.bits as usize).div_ceil(64);
        bytemuck::cast_slice(&self.words[..data_words])
    }

    /// The whole storage as bytes: [`ArrayView::packed_bytes`] followed by the codec's
    /// [`codec::PADDING_WORDS`] words of zero padding, exactly as it is kept in memory. For file
    /// formats that store the layout as is and map it back (the graph crate's binary format).
    pub fn storage_bytes(&self) -> &'a [u8] {
        let words = codec::storage_words(self.len, self.bits).unwrap_or(self.words.len());
        bytemuck::cast_slice(&self.words[..words.min(self.words.len())])
    }

    /// Value `index`, or [`Error::IndexOutOfRange`].
    #[inline]
    pub fn get(&self, index: usize) -> Result<u64> {
        if index >= self.len {
            return Err(Error::IndexOutOfRange {
                index,
                len: self.len,
            });
        }
        // SAFETY: index < len, and the view's words hold `len` values plus the codec's padding;
        // `reads` came from `ReadKernel::detected`.
        Ok(unsafe { codec::get_unchecked_with(self.reads, self.words, self.bits, index) })
    }

    /// Value `index`.
    ///
    /// # Panics
    /// If `index >= len`.
    #[inline]
    pub fn value(&self, index: usize) -> u64 {
        assert!(
            index < self.len,
            "index {index} is out of range for an array of length {}",
            self.len
        );
        // SAFETY: index < len (asserted), and the view's words hold `len` values plus padding;
        // `reads` came from `ReadKernel::detected`.
        unsafe { codec::get_unchecked_with(self.reads, self.words, self.bits, index) }
    }

    /// Value `index`, without checking it against the length: for loops that have checked
    /// their indices already. [`ArrayView::get`] is the checked form.
    ///
    /// # Safety
    /// `index < self.len()`.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_slice(&[5, 6, 7], &ArrayOptions::new().bits(3)).unwrap();
    /// let view = array.local();
    /// // SAFETY: 2 < 3 values.
    /// assert_eq!(unsafe { view.get_unchecked(2) }, 7);
    /// ```
    #[inline]
    pub unsafe fn get_unchecked(&self, index: usize) -> u64 {
        debug_assert!(index < self.len);
        // SAFETY: index < len (the caller's contract), and a view's words always hold `len`
        // values followed by the codec's padding (checked when the view is made); `reads` came
        // from `ReadKernel::detected`.
        unsafe { codec::get_unchecked_with(self.reads, self.words, self.bits, index) }
    }

    /// Batched random reads: `out[k]` becomes value `indices[k]`. Checks every index once, up
    /// front (one vectorised pass for the maximum), then reads without a branch per value with
    /// the codec's gather kernel ([`codec::gather`]: AVX-512 or AVX2 gathers where the CPU has
    /// them, else a scalar loop that prefetches a few reads ahead in arrays larger than the
    /// caches).
    ///
    /// Errors: [`Error::BufferTooSmall`] when `out` is shorter than `indices`,
    /// [`Error::IndexOutOfRange`] naming the first index past the end (nothing is written).
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_fn(1000, &ArrayOptions::new().bits(10), |i| i as u64).unwrap();
    /// let mut out = [0u64; 3];
    /// array.local().get_many(&[999, 0, 500], &mut out).unwrap();
    /// assert_eq!(out, [999, 0, 500]);
    /// assert!(array.local().get_many(&[1000], &mut out).is_err());
    /// ```
    pub fn get_many(&self, indices: &[usize], out: &mut [u64]) -> Result<()> {
        if out.len() < indices.len() {
            return Err(Error::BufferTooSmall {
                needed: indices.len(),
                given: out.len(),
            });
        }
        let level = codec::detected_level();
        // A branch-free, vectorised maximum; the first bad index is looked for only on failure.
        let Some(max_index) = codec::largest_index_with(level, indices) else {
            return Ok(());
        };
        if max_index >= self.len {
            let index = *indices
                .iter()
                .find(|&&i| i >= self.len)
                .unwrap_or(&usize::MAX);
            return Err(Error::IndexOutOfRange {
                index,
                len: self.len,
            });
        }
        // SAFETY: `max_index` is the largest index (and below `len`, so its windows lie in the
        // view's padded storage, which the gather asserts once).
        unsafe { codec::gather_up_to(level, self.words, self.bits, indices, max_index, out) };
        Ok(())
    }

    /// [`ArrayView::unpack`], then a hint to start loading the packed words of the values
    /// `ahead` further on into the L2 cache: for loops that decode one chunk per call (a Java
    /// cursor, a C caller), so the next chunks arrive while this one is used. `ahead = 0` only
    /// unpacks. L2 rather than L1: a burst of L1 prefetches per chunk measured slower than none,
    /// L2 prefetches two chunks ahead measured fastest.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_fn(5000, &ArrayOptions::new().bits(13), |i| i as u64).unwrap();
    /// let mut chunk = [0u64; 1024];
    /// array.local().unpack_ahead(1024, &mut chunk, 2048).unwrap();
    /// assert_eq!(chunk[0], 1024);
    /// ```
    pub fn unpack_ahead(&self, start: usize, out: &mut [u64], ahead: usize) -> Result<()> {
        self.unpack(start, out)?;
        if ahead > 0 {
            let from = start.saturating_add(ahead).min(self.len);
            prefetch::packed_values(
                self.words,
                self.bits,
                from..from.saturating_add(out.len()).min(self.len),
                CacheLevel::L2,
            );
        }
        Ok(())
    }

    fn check_range(&self, range: &Range<usize>) -> Result<()> {
        if range.start > range.end || range.end > self.len {
            return Err(Error::RangeOutOfBounds {
                start: range.start,
                end: range.end,
                len: self.len,
            });
        }
        Ok(())
    }

    /// Decodes values `start..start + out.len()` into `out`.
    pub fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()> {
        self.check_range(&(start..start.saturating_add(out.len())))?;
        codec::unpack_range(self.words, self.bits, start, out);
        Ok(())
    }

    /// Differences of neighbouring values from `start` on, decoded in one pass:
    /// `out[i] = value(start + i + 1) - value(start + i)` (wrapping), or added to `out[i]` with
    /// [`Combine::Add`](codec::Combine::Add). Reads `out.len() + 1` values, so `start + out.len()`
    /// must be below the length (else [`Error::RangeOutOfBounds`]); an empty `out` needs only
    /// `start <= len`. On CSR offsets this gives every vertex's degree without a decode buffer.
    ///
    /// # Example
    /// ```
    /// use smartarrays::codec::Combine;
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let offsets = SmartArray::from_slice(&[0, 2, 5, 5, 9], &ArrayOptions::new()).unwrap(); // 4 bits
    /// let mut degrees = [0u64; 4];
    /// offsets.local().unpack_differences(0, &mut degrees, Combine::Overwrite).unwrap();
    /// assert_eq!(degrees, [2, 3, 0, 4]);
    /// offsets.local().unpack_differences(1, &mut degrees[..3], Combine::Add).unwrap();
    /// assert_eq!(degrees, [5, 3, 4, 4]);
    /// assert!(offsets.local().unpack_differences(1, &mut degrees, Combine::Overwrite).is_err());
    /// ```
    pub fn unpack_differences(
        &self,
        start: usize,
        out: &mut [u64],
        combine: codec::Combine,
    ) -> Result<()> {
        let last = start
            .saturating_add(out.len())
            .saturating_add(usize::from(!out.is_empty()));
        self.check_range(&(start..last))?;
        codec::unpack_differences(self.words, self.bits, start, out, combine);
        Ok(())
    }

    /// Sums of this array's and `other`'s neighbour differences from `start` on:
    /// `out[i] = (self[j + 1] - self[j]) + (other[j + 1] - other[j])` with `j = start + i`
    /// (wrapping), both arrays decoded in one pass (for a directed CSR graph, out-degree plus
    /// in-degree from the offsets of both directions). Both must hold a value at
    /// `start + out.len()` (else [`Error::RangeOutOfBounds`]); widths may differ.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let forward = SmartArray::from_slice(&[0, 2, 5, 5], &ArrayOptions::new()).unwrap();
    /// let reverse = SmartArray::from_slice(&[0, 1, 1, 5], &ArrayOptions::new().bits(64)).unwrap();
    /// let mut degrees = [0u64; 3];
    /// forward.local().unpack_paired_differences(reverse.local(), 0, &mut degrees).unwrap();
    /// assert_eq!(degrees, [3, 3, 4]);
    /// ```
    pub fn unpack_paired_differences(
        &self,
        other: ArrayView<'_>,
        start: usize,
        out: &mut [u64],
    ) -> Result<()> {
        let last = start
            .saturating_add(out.len())
            .saturating_add(usize::from(!out.is_empty()));
        self.check_range(&(start..last))?;
        other.check_range(&(start..last))?;
        codec::unpack_paired_differences(
            (self.words, self.bits),
            (other.words, other.bits),
            start,
            out,
        );
        Ok(())
    }

    /// Wrapping sum of the values in `range`.
    pub fn sum_range(&self, range: Range<usize>) -> Result<u64> {
        self.check_range(&range)?;
        Ok(codec::sum_range(
            self.words,
            self.bits,
            range.start,
            range.end,
        ))
    }

    /// Marks which values of `start..start + len` lie in `lo..=hi`: bit `k % 64` of
    /// `out[k / 64]` for value `start + k` (the other bits of the first `len.div_ceil(64)` words
    /// cleared), decoded and compared in registers ([`codec::range_mask`]).
    ///
    /// Errors: [`Error::RangeOutOfBounds`] when the range passes the end,
    /// [`Error::BufferTooSmall`] when `out` has fewer than `len.div_ceil(64)` words.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, SmartArray};
    /// let array = SmartArray::from_fn(100, &ArrayOptions::new().bits(7), |i| i as u64).unwrap();
    /// let mut mask = [0u64; 1];
    /// array.local().range_mask(10, 64, 20, 22, &mut mask).unwrap();
    /// assert_eq!(mask[0], 0b111 << 10); // values 20, 21 and 22 at rows 20..=22
    /// ```
    pub fn range_mask(
        &self,
        start: usize,
        len: usize,
        lo: u64,
        hi: u64,
        out: &mut [u64],
    ) -> Result<()> {
        self.check_range(&(start..start.saturating_add(len)))?;
        if out.len() < len.div_ceil(64) {
            return Err(Error::BufferTooSmall {
                needed: len.div_ceil(64),
                given: out.len(),
            });
        }
        codec::range_mask(self.words, self.bits, start, len, lo, hi, out);
        Ok(())
    }

    /// Calls `visit(first_index, values)` for consecutive chunks of decoded values covering
    /// `range` (at most [`VISIT_CHUNK`] values each). 64-bit arrays are visited in place, without
    /// copying; other widths are decoded into a stack buffer first.
    pub fn for_each_chunk(
        &self,
        range: Range<usize>,
        mut visit: impl FnMut(usize, &[u64]),
    ) -> Result<()> {
        self.check_range(&range)?;
        if self.bits == 64 {
            let mut start = range.start;
            for piece in self.words[range.clone()].chunks(VISIT_CHUNK) {
                visit(start, piece);
                start += piece.len();
            }
            return Ok(());
        }
        let mut buffer = [0u64; VISIT_CHUNK];
        let mut start = range.start;
        while start < range.end {
            let count = (range.end - start).min(VISIT_CHUNK);
            let out = &mut buffer[..count];
            codec::unpack_range(self.words, self.bits, start, out);
            visit(start, out);
            start += count;
        }
        Ok(())
    }

    /// A forward iterator over all values.
    pub fn iter(&self) -> Iter<'a> {
        Iter {
            view: *self,
            next: 0,
            buffer: [0; ITER_BUFFER],
            buffered: 0..0,
        }
    }

    /// All values decoded into a vector.
    pub fn to_vec(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.len];
        codec::unpack_range(self.words, self.bits, 0, &mut out);
        out
    }
}

const ITER_BUFFER: usize = 256;

/// Forward iterator over an array's values; decodes a block of values at a time.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    view: ArrayView<'a>,
    next: usize,
    buffer: [u64; ITER_BUFFER],
    buffered: Range<usize>,
}

impl Iterator for Iter<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.next >= self.view.len {
            return None;
        }
        if !self.buffered.contains(&self.next) {
            let count = (self.view.len - self.next).min(ITER_BUFFER);
            codec::unpack_range(
                self.view.words,
                self.view.bits,
                self.next,
                &mut self.buffer[..count],
            );
            self.buffered = self.next..self.next + count;
        }
        let value = self.buffer[self.next - self.buffered.start];
        self.next += 1;
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.view.len - self.next.min(self.view.len);
        (left, Some(left))
    }

    fn nth(&mut self, n: usize) -> Option<u64> {
        self.next = self.next.saturating_add(n);
        self.next()
    }
}

impl ExactSizeIterator for Iter<'_> {}
