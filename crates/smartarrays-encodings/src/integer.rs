//! What every integer-like encoding offers, over 64-bit order-preserving keys (see
//! [`kernel`](crate::kernel)): the [`KeyEncoding`] trait and the [`IntEncoding`] enum of the six
//! encodings that implement it. UInt64, Int64, Decimal, Date32 and Bool columns (and Float64
//! columns that are not ALP-encoded) store one of these.

use smartarrays::{ArrayOptions, SmartArray};

use crate::bitpacked::BitPacked;
use crate::constant::Constant;
use crate::delta::Delta;
use crate::dictionary::Dictionary;
use crate::error::Result;
use crate::frame::Frame;
use crate::kernel::{DistinctSketch, KeyFilter, BLOCK};
use crate::run_end::RunEnd;
use crate::selection::Selection;
use crate::types::EncodingKind;

/// An encoding of `len` unsigned 64-bit keys that decodes to its canonical form (a `Vec<u64>`)
/// and runs its compute kernels on the encoded data.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Frame, KeyEncoding, KeyFilter};
/// let frame = Frame::new(&[1000, 1003, 1001], &Default::default()).unwrap();
/// assert_eq!(frame.to_vec(), vec![1000, 1003, 1001]);
/// assert_eq!(frame.filter(&KeyFilter::Range { lo: 1001, hi: 2000 }).unwrap().row_ids(), vec![1, 2]);
/// assert_eq!(frame.sum(), 3004);
/// ```
pub trait KeyEncoding: Send + Sync + std::fmt::Debug {
    /// The encoding's name (`bitpacked`, `frame`, ...).
    fn name(&self) -> &'static str;
    /// Number of values.
    fn len(&self) -> usize;
    /// Whether there are no values.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Value `index`, or [`EncodingError::IndexOutOfRange`](crate::EncodingError::IndexOutOfRange).
    fn get(&self, index: usize) -> Result<u64>;
    /// Decodes values `start..start + out.len()` into `out`.
    fn unpack(&self, start: usize, out: &mut [u64]) -> Result<()>;
    /// Values at `indices` (all checked first).
    fn take(&self, indices: &[usize]) -> Result<Vec<u64>>;
    /// The rows whose key passes `filter`, evaluated on the codes.
    fn filter(&self, filter: &KeyFilter) -> Result<Selection>;
    /// Exact sum of the keys.
    fn sum(&self) -> u128;
    /// Smallest and largest key, `None` when empty.
    fn min_max(&self) -> Option<(u64, u64)>;
    /// Number of runs of equal neighbours.
    fn run_count(&self) -> usize;
    /// Number of distinct keys (exact where the encoding knows it, else a sketch's estimate).
    fn distinct_estimate(&self) -> u64 {
        let mut sketch = DistinctSketch::default();
        let mut buffer = vec![0u64; BLOCK];
        let mut start = 0;
        while start < self.len() {
            let count = (self.len() - start).min(BLOCK);
            if self.unpack(start, &mut buffer[..count]).is_err() {
                break;
            }
            buffer[..count].iter().for_each(|&k| sketch.insert(k));
            start += count;
        }
        sketch.estimate()
    }
    /// The smart arrays the encoding stores, by role (for memory and placement reports).
    fn arrays(&self) -> Vec<(&'static str, &SmartArray)>;
    /// Bytes kept outside smart arrays (a dictionary's values, a constant).
    fn heap_bytes(&self) -> usize;
    /// All values decoded.
    fn to_vec(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.len()];
        let decoded = self.unpack(0, &mut out);
        debug_assert!(decoded.is_ok());
        out
    }
}

/// Number of runs of equal neighbours, from decoded blocks (for encodings that do not know it).
pub(crate) fn count_runs(encoding: &dyn KeyEncoding) -> usize {
    let mut buffer = vec![0u64; BLOCK];
    let (mut runs, mut previous, mut start) = (0usize, None, 0usize);
    while start < encoding.len() {
        let count = (encoding.len() - start).min(BLOCK);
        if encoding.unpack(start, &mut buffer[..count]).is_err() {
            break;
        }
        for &key in &buffer[..count] {
            if previous != Some(key) {
                runs += 1;
                previous = Some(key);
            }
        }
        start += count;
    }
    runs
}

/// One of the integer encodings.
///
/// # Example
/// ```
/// use smartarrays_encodings::{IntEncoding, EncodingKind, KeyEncoding};
/// let runs = IntEncoding::build(EncodingKind::RunEnd, &[7, 7, 7, 9, 9], &Default::default()).unwrap();
/// assert_eq!(runs.as_dyn().run_count(), 2);
/// assert_eq!(runs.as_dyn().get(3).unwrap(), 9);
/// ```
#[derive(Debug)]
pub enum IntEncoding {
    /// Plain bit packing at the minimal width.
    BitPacked(BitPacked),
    /// Base plus bit-packed offsets.
    Frame(Frame),
    /// Bit-packed codes over a sorted dictionary.
    Dictionary(Dictionary),
    /// Run ends plus run values.
    RunEnd(RunEnd),
    /// Block starts plus bit-packed differences (non-decreasing keys).
    Delta(Delta),
    /// One value repeated.
    Constant(Constant),
}

impl IntEncoding {
    /// Builds `kind` over `keys` ([`EncodingError::EncodingNotApplicable`] for the float and
    /// string encodings, a constant of values that differ, or delta over unsorted keys).
    ///
    /// [`EncodingError::EncodingNotApplicable`]: crate::EncodingError::EncodingNotApplicable
    pub fn build(kind: EncodingKind, keys: &[u64], options: &ArrayOptions) -> Result<IntEncoding> {
        Ok(match kind {
            EncodingKind::BitPacked => IntEncoding::BitPacked(BitPacked::new(keys, options)?),
            EncodingKind::Frame => IntEncoding::Frame(Frame::new(keys, options)?),
            EncodingKind::Dictionary => IntEncoding::Dictionary(Dictionary::new(keys, options)?),
            EncodingKind::RunEnd => IntEncoding::RunEnd(RunEnd::new(keys, options)?),
            EncodingKind::Delta => IntEncoding::Delta(Delta::new(keys, options)?),
            EncodingKind::Constant => IntEncoding::Constant(Constant::new(keys)?),
            other => {
                return Err(crate::EncodingError::EncodingNotApplicable {
                    encoding: other.name(),
                    reason: "it is not an integer encoding".to_string(),
                })
            }
        })
    }

    /// The encoding's kind.
    pub fn kind(&self) -> EncodingKind {
        match self {
            IntEncoding::BitPacked(_) => EncodingKind::BitPacked,
            IntEncoding::Frame(_) => EncodingKind::Frame,
            IntEncoding::Dictionary(_) => EncodingKind::Dictionary,
            IntEncoding::RunEnd(_) => EncodingKind::RunEnd,
            IntEncoding::Delta(_) => EncodingKind::Delta,
            IntEncoding::Constant(_) => EncodingKind::Constant,
        }
    }

    /// The encoding behind the common interface.
    pub fn as_dyn(&self) -> &dyn KeyEncoding {
        match self {
            IntEncoding::BitPacked(e) => e,
            IntEncoding::Frame(e) => e,
            IntEncoding::Dictionary(e) => e,
            IntEncoding::RunEnd(e) => e,
            IntEncoding::Delta(e) => e,
            IntEncoding::Constant(e) => e,
        }
    }

    /// Bytes of the encoded data in one copy, densely packed (what the compressor compares).
    pub fn packed_bytes(&self) -> usize {
        let e = self.as_dyn();
        e.arrays()
            .iter()
            .map(|(_, a)| a.packed_bytes())
            .sum::<usize>()
            + e.heap_bytes()
    }
}
