//! Strings: a sorted dictionary with bit-packed codes for low cardinality, FSST ("FSST: Fast
//! Random Access String Compression", Boncz, Neumann and Leis, VLDB 2020, through the `fsst-rs`
//! crate) with bit-packed offsets for free text.
//!
//! On a dictionary every filter is evaluated once per distinct string and becomes a set of
//! codes: equality and ranges a code range (the dictionary is sorted), a prefix a code range
//! too (strings sharing a prefix are neighbours when sorted), `LIKE` a bitset of the entries
//! that match, then the packed codes are scanned a block at a time. On FSST, equality and
//! IN-lists compress their constants with the column's symbol table and compare compressed
//! bytes without decompressing (the table compresses deterministically and decompression is a
//! function, so equal compressed bytes mean equal strings); prefixes (and `LIKE 'abc%'`) decode
//! each row's symbols only until the prefix is matched or missed; ranges and other `LIKE`
//! patterns decompress each row.

use std::collections::HashMap;
use std::ops::Bound;

use smartarrays::{ArrayOptions, ArrayView, SmartArray};

use crate::error::{check_indices, check_range, EncodingError, Result};
use crate::kernel::{self, CodePredicate, DistinctSketch};
use crate::predicate::LikePattern;
use crate::selection::Selection;

/// A filter on strings, its constants already checked.
#[derive(Clone, Debug)]
pub enum StrFilter {
    /// Equal to.
    Eq(String),
    /// Equal to one of (sorted, duplicate-free).
    In(Vec<String>),
    /// Within the bounds (byte-wise order, which is code-point order for UTF-8).
    Range(Bound<String>, Bound<String>),
    /// Starting with.
    Prefix(String),
    /// Matching a `LIKE` pattern.
    Like(LikePattern),
}

impl StrFilter {
    /// Whether `value` passes (the plain, one-value form).
    pub fn matches(&self, value: &str) -> bool {
        match self {
            StrFilter::Eq(s) => value == s,
            StrFilter::In(list) => list.binary_search_by(|s| s.as_str().cmp(value)).is_ok(),
            StrFilter::Range(lo, hi) => {
                (match lo {
                    Bound::Included(b) => value >= b.as_str(),
                    Bound::Excluded(b) => value > b.as_str(),
                    Bound::Unbounded => true,
                }) && (match hi {
                    Bound::Included(b) => value <= b.as_str(),
                    Bound::Excluded(b) => value < b.as_str(),
                    Bound::Unbounded => true,
                })
            }
            StrFilter::Prefix(prefix) => value.starts_with(prefix.as_str()),
            StrFilter::Like(pattern) => pattern.matches(value),
        }
    }
}

/// Bit-packed codes over a sorted dictionary of strings.
///
/// # Example
/// ```
/// use smartarrays_encodings::strings::{StrFilter, StringDictionary};
/// let cities = ["Oslo", "Bern", "Oslo", "Berlin", "Bern"];
/// let dictionary = StringDictionary::new(&cities, &Default::default()).unwrap();
/// assert_eq!(dictionary.values(), &["Berlin", "Bern", "Oslo"]);
/// assert_eq!(dictionary.get(3).unwrap(), "Berlin");
/// let ber = dictionary.filter(&StrFilter::Prefix("Ber".into())).unwrap(); // codes 0..=1
/// assert_eq!(ber.row_ids(), vec![1, 3, 4]);
/// ```
#[derive(Debug)]
pub struct StringDictionary {
    pub(crate) values: Vec<String>,
    pub(crate) codes: SmartArray,
}

impl StringDictionary {
    /// Builds the sorted dictionary of `values` and their codes, placed by `options`.
    pub fn new<S: AsRef<str> + Sync>(values: &[S], options: &ArrayOptions) -> Result<Self> {
        // Each distinct string once, found by hashing (in the order first seen), and every
        // row's index into them; then only the distinct strings are sorted, and a row's code is
        // its string's rank. (Sorting every row and searching each one in the sorted strings
        // cost two string comparisons per row and level: most of a Parquet load of free text.)
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        let first_seen: Vec<usize> = values
            .iter()
            .map(|value| {
                let text = value.as_ref();
                *seen.entry(text).or_insert_with(|| {
                    distinct.push(text);
                    distinct.len() - 1
                })
            })
            .collect();
        drop(seen);
        let mut order: Vec<usize> = (0..distinct.len()).collect();
        order.sort_unstable_by(|&a, &b| distinct[a].cmp(distinct[b]));
        let mut rank = vec![0u64; distinct.len()];
        for (code, &index) in order.iter().enumerate() {
            rank[index] = code as u64;
        }
        let dictionary: Vec<String> = order.iter().map(|&i| distinct[i].to_string()).collect();
        let largest = dictionary.len().saturating_sub(1) as u64;
        let codes = kernel::pack(values.len(), largest, options, |i| rank[first_seen[i]])?;
        Ok(StringDictionary {
            values: dictionary,
            codes,
        })
    }

    /// The sorted distinct strings.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The bit-packed codes.
    pub fn codes(&self) -> &SmartArray {
        &self.codes
    }

    fn entry(&self, code: u64) -> String {
        self.values.get(code as usize).cloned().unwrap_or_default()
    }

    /// String `index`.
    pub fn get(&self, index: usize) -> Result<String> {
        Ok(self.entry(self.codes.get(index)?))
    }

    /// Strings `start..start + count`.
    pub fn unpack(&self, start: usize, count: usize) -> Result<Vec<String>> {
        let mut codes = vec![0u64; count];
        self.codes.unpack(start, &mut codes)?;
        Ok(codes.into_iter().map(|c| self.entry(c)).collect())
    }

    /// Strings at `indices`.
    pub fn take(&self, indices: &[usize]) -> Result<Vec<String>> {
        Ok(kernel::gather(&self.codes, indices)?
            .into_iter()
            .map(|c| self.entry(c))
            .collect())
    }

    /// The rows that pass `filter`: evaluated once per dictionary entry, then on the codes.
    pub fn filter(&self, filter: &StrFilter) -> Result<Selection> {
        let position = |bound: &Bound<String>, upper: bool| match (bound, upper) {
            (Bound::Unbounded, false) => 0,
            (Bound::Unbounded, true) => self.values.len(),
            (Bound::Included(b), false) => self.values.partition_point(|v| v < b),
            (Bound::Excluded(b), false) => self.values.partition_point(|v| v <= b),
            (Bound::Included(b), true) => self.values.partition_point(|v| v <= b),
            (Bound::Excluded(b), true) => self.values.partition_point(|v| v < b),
        };
        let span = |first: usize, end: usize| {
            if first < end {
                CodePredicate::Range(first as u64, end as u64 - 1)
            } else {
                CodePredicate::Nothing
            }
        };
        let prefix_span = |prefix: &str| {
            let first = self.values.partition_point(|v| v.as_str() < prefix);
            let count = self.values[first..].partition_point(|v| v.starts_with(prefix));
            span(first, first + count)
        };
        let predicate = match filter {
            StrFilter::Range(lo, hi) => span(position(lo, false), position(hi, true)),
            StrFilter::Prefix(prefix) => prefix_span(prefix),
            StrFilter::Like(pattern) => match pattern.as_prefix() {
                Some(prefix) => prefix_span(&prefix),
                None => CodePredicate::from_codes(
                    (0..self.values.len() as u64)
                        .filter(|&c| pattern.matches(&self.values[c as usize]))
                        .collect(),
                    Some(self.values.len()),
                ),
            },
            StrFilter::Eq(_) | StrFilter::In(_) => CodePredicate::from_codes(
                (0..self.values.len() as u64)
                    .filter(|&c| filter.matches(&self.values[c as usize]))
                    .collect(),
                Some(self.values.len()),
            ),
        };
        predicate.evaluate(&self.codes)
    }
}

/// FSST-compressed strings: the compressed bytes of every row one after the other in an 8-bit
/// smart array, and where each row starts in a bit-packed one.
///
/// # Example
/// ```
/// use smartarrays_encodings::strings::{FsstStrings, StrFilter};
/// let lines: Vec<String> = (0..500).map(|i| format!("https://example.org/items/{i}")).collect();
/// let fsst = FsstStrings::new(&lines, &Default::default()).unwrap();
/// assert_eq!(fsst.get(42).unwrap(), "https://example.org/items/42");
/// assert!(fsst.compressed_bytes() < lines.iter().map(|l| l.len()).sum::<usize>() / 2);
/// assert_eq!(fsst.filter(&StrFilter::Eq("https://example.org/items/7".into())).unwrap().row_ids(), vec![7]);
/// ```
pub struct FsstStrings {
    /// Boxed: the symbol table is 2.5 KiB, kept out of the enums that hold the encodings.
    pub(crate) compressor: Box<fsst::Compressor>,
    pub(crate) bytes: SmartArray,
    pub(crate) offsets: SmartArray,
}

impl std::fmt::Debug for FsstStrings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsstStrings")
            .field("len", &self.len())
            .field("symbols", &self.compressor.symbol_table().len())
            .field("compressed_bytes", &self.bytes.len())
            .finish()
    }
}

impl FsstStrings {
    /// Trains a symbol table on a sample of `values` and compresses every one, placed by
    /// `options`.
    pub fn new<S: AsRef<str>>(values: &[S], options: &ArrayOptions) -> Result<FsstStrings> {
        let sample: Vec<&[u8]> = kernel::sample_positions(values.len(), 64, 64)
            .into_iter()
            .map(|p| values[p].as_ref().as_bytes())
            .collect();
        let compressor = Box::new(fsst::Compressor::train(&sample));
        let mut bytes = Vec::new();
        let mut offsets = Vec::with_capacity(values.len() + 1);
        offsets.push(0u64);
        for value in values {
            bytes.extend_from_slice(&compressor.compress(value.as_ref().as_bytes()));
            offsets.push(bytes.len() as u64);
        }
        let total = bytes.len() as u64;
        Ok(FsstStrings {
            compressor,
            bytes: SmartArray::from_fn(bytes.len(), &kernel::options_at(options, 8), |i| {
                u64::from(bytes[i])
            })?,
            offsets: kernel::pack(offsets.len(), total, options, |i| offsets[i])?,
        })
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of compressed text (without offsets and symbol table).
    pub fn compressed_bytes(&self) -> usize {
        self.bytes.len()
    }

    fn compressed(&self, index: usize) -> Result<&[u8]> {
        let start = self.offsets.get(index)? as usize;
        let end = self.offsets.get(index + 1)? as usize;
        let bytes = self.bytes.local().as_native::<u8>().unwrap_or(&[]);
        bytes
            .get(start..end)
            .ok_or(EncodingError::RangeOutOfBounds {
                start,
                end,
                len: bytes.len(),
            })
    }

    fn decompress(&self, compressed: &[u8]) -> Result<String> {
        String::from_utf8(self.compressor.decompressor().decompress(compressed)).map_err(|e| {
            EncodingError::ValueDoesNotFit {
                value: format!("{} bytes", e.as_bytes().len()),
                reason: "the decompressed bytes are not UTF-8".into(),
            }
        })
    }

    /// String `index`.
    pub fn get(&self, index: usize) -> Result<String> {
        check_indices(&[index], self.len())?;
        self.decompress(self.compressed(index)?)
    }

    /// Strings `start..start + count`.
    pub fn unpack(&self, start: usize, count: usize) -> Result<Vec<String>> {
        check_range(start, start.saturating_add(count), self.len())?;
        (start..start + count).map(|i| self.get(i)).collect()
    }

    /// Strings at `indices`.
    pub fn take(&self, indices: &[usize]) -> Result<Vec<String>> {
        check_indices(indices, self.len())?;
        indices.iter().map(|&i| self.get(i)).collect()
    }

    /// The rows that pass `filter`: equality and IN-lists on compressed bytes, prefixes on as
    /// many decoded symbols as they need, the rest on decompressed rows.
    pub fn filter(&self, filter: &StrFilter) -> Result<Selection> {
        let mut selection = Selection::none(self.len());
        let constants: Option<Vec<Vec<u8>>> = match filter {
            StrFilter::Eq(s) => Some(vec![self.compressor.compress(s.as_bytes())]),
            StrFilter::In(list) => Some(
                list.iter()
                    .map(|s| self.compressor.compress(s.as_bytes()))
                    .collect(),
            ),
            _ => None,
        };
        // `LIKE 'abc%'` is a prefix.
        let literal_prefix = match filter {
            StrFilter::Like(pattern) => pattern.as_prefix(),
            _ => None,
        };
        for row in 0..self.len() {
            let compressed = self.compressed(row)?;
            let keep = match (&constants, filter) {
                (Some(constants), _) => constants.iter().any(|c| c.as_slice() == compressed),
                (None, StrFilter::Prefix(prefix)) => {
                    self.starts_with(compressed, prefix.as_bytes())
                }
                (None, StrFilter::Like(pattern)) if literal_prefix.is_some() => {
                    let prefix = literal_prefix.as_deref().unwrap_or_default();
                    self.starts_with(compressed, prefix.as_bytes())
                }
                (None, _) => filter.matches(&self.decompress(compressed)?),
            };
            if keep {
                selection.set(row);
            }
        }
        Ok(selection)
    }

    /// Decompresses the rows `start + j` for each `j` of `selection` (ascending offsets from
    /// `start`) one after the other into `out` (its buffers reused): entry `i` of `out` is
    /// row `start + selection[i]`. Tests that search the text (a `LIKE` with `%`) then scan
    /// one long buffer instead of one short string at a time. An offset past the end is
    /// [`EncodingError::IndexOutOfRange`].
    ///
    /// ```
    /// use smartarrays_encodings::strings::{FsstStrings, TextBatch};
    /// let notes: Vec<String> = (0..300).map(|i| format!("note {i}")).collect();
    /// let fsst = FsstStrings::new(&notes, &Default::default()).unwrap();
    /// let mut batch = TextBatch::default();
    /// fsst.decompress_selected(200, &[0, 5, 99], &mut batch).unwrap();
    /// assert_eq!(batch.len(), 3);
    /// assert_eq!(batch.get(1), b"note 205");
    /// assert_eq!(batch.bytes(), b"note 200note 205note 299");
    /// ```
    pub fn decompress_selected(
        &self,
        start: usize,
        selection: &[u32],
        out: &mut TextBatch,
    ) -> Result<()> {
        out.bytes.clear();
        out.ends.clear();
        let rows = self.selected_rows(start, selection)?;
        let mut at = 0;
        for &j in selection {
            at = rows.decode(start + j as usize, &mut out.bytes, at)?;
            out.ends.push(at);
        }
        out.bytes.truncate(at);
        Ok(())
    }

    /// A [`RowDecoder`] for the rows `start + j` of `selection` once they are checked to be
    /// in range ([`EncodingError::IndexOutOfRange`] if not).
    fn selected_rows(&self, start: usize, selection: &[u32]) -> Result<RowDecoder<'_>> {
        if let Some(&last) = selection.iter().max() {
            check_indices(&[start + last as usize], self.len())?;
        }
        Ok(RowDecoder {
            offsets: self.offsets.local(),
            bytes: self.bytes.local().as_native::<u8>().unwrap_or(&[]),
            table: self.symbol_words(),
        })
    }

    /// Per code: its symbol's bytes and length (the escape code and unused codes: none).
    fn symbol_words(&self) -> [(u64, usize); 256] {
        let mut table = [(0u64, 0usize); 256];
        for (code, (symbol, &length)) in self
            .compressor
            .symbol_table()
            .iter()
            .zip(self.compressor.symbol_lengths())
            .enumerate()
            .take(255)
        {
            table[code] = (symbol.to_u64(), usize::from(length).min(8));
        }
        table
    }

    /// Keeps the entries `j` of `selection` (ascending offsets from `start`) whose row
    /// `start + j` passes `keep`, called with the row's decompressed bytes. Every row is
    /// decompressed into one reused buffer (each symbol written as 8 bytes and the buffer
    /// advanced by its length): no string is built. An offset past the end is
    /// [`EncodingError::IndexOutOfRange`].
    ///
    /// ```
    /// use smartarrays_encodings::strings::FsstStrings;
    /// let notes: Vec<String> = (0..300).map(|i| format!("note {i}: special requests")).collect();
    /// let fsst = FsstStrings::new(&notes, &Default::default()).unwrap();
    /// let mut rows: Vec<u32> = (0..100).collect();
    /// fsst.retain(200, &mut rows, |bytes| bytes.ends_with(b"7: special requests")).unwrap();
    /// assert_eq!(rows, vec![7, 17, 27, 37, 47, 57, 67, 77, 87, 97]);
    /// ```
    pub fn retain(
        &self,
        start: usize,
        selection: &mut Vec<u32>,
        mut keep: impl FnMut(&[u8]) -> bool,
    ) -> Result<()> {
        let rows = self.selected_rows(start, selection)?;
        let mut buffer: Vec<u8> = Vec::new();
        let mut kept = 0;
        for i in 0..selection.len() {
            let j = selection[i];
            let at = rows.decode(start + j as usize, &mut buffer, 0)?;
            selection[kept] = j;
            kept += usize::from(keep(&buffer[..at]));
        }
        selection.truncate(kept);
        Ok(())
    }

    /// Whether the row compressed as `codes` starts with `prefix`, decoding only the symbols
    /// that cover the prefix (a code is a symbol of up to 8 bytes, or the escape code followed
    /// by one literal byte).
    fn starts_with(&self, codes: &[u8], prefix: &[u8]) -> bool {
        let symbols = self.compressor.symbol_table();
        let lengths = self.compressor.symbol_lengths();
        let (mut matched, mut at) = (0usize, 0usize);
        while matched < prefix.len() {
            let Some(&code) = codes.get(at) else {
                return false; // the row is shorter than the prefix
            };
            at += 1;
            if code == fsst::ESCAPE_CODE {
                let Some(&byte) = codes.get(at) else {
                    return false;
                };
                at += 1;
                if byte != prefix[matched] {
                    return false;
                }
                matched += 1;
                continue;
            }
            let (Some(symbol), Some(&length)) = (
                symbols.get(usize::from(code)),
                lengths.get(usize::from(code)),
            ) else {
                return false;
            };
            let bytes = symbol.to_u64().to_le_bytes();
            let take = usize::from(length).min(8).min(prefix.len() - matched);
            if bytes[..take] != prefix[matched..matched + take] {
                return false;
            }
            matched += take;
        }
        true
    }

    fn symbol_table_bytes(&self) -> usize {
        self.compressor.symbol_table().len() * 9
    }
}

/// One of the string encodings.
#[derive(Debug)]
pub enum StringEncoding {
    /// Codes over a sorted dictionary.
    Dictionary(StringDictionary),
    /// FSST-compressed rows.
    Fsst(FsstStrings),
}

impl StringEncoding {
    /// Number of strings.
    pub fn len(&self) -> usize {
        match self {
            StringEncoding::Dictionary(d) => d.codes.len(),
            StringEncoding::Fsst(f) => f.len(),
        }
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `index`.
    pub fn get(&self, index: usize) -> Result<String> {
        match self {
            StringEncoding::Dictionary(d) => d.get(index),
            StringEncoding::Fsst(f) => f.get(index),
        }
    }

    /// Strings `start..start + count`.
    pub fn unpack(&self, start: usize, count: usize) -> Result<Vec<String>> {
        match self {
            StringEncoding::Dictionary(d) => d.unpack(start, count),
            StringEncoding::Fsst(f) => f.unpack(start, count),
        }
    }

    /// Strings at `indices`.
    pub fn take(&self, indices: &[usize]) -> Result<Vec<String>> {
        check_indices(indices, self.len())?;
        match self {
            StringEncoding::Dictionary(d) => d.take(indices),
            StringEncoding::Fsst(f) => f.take(indices),
        }
    }

    /// The rows that pass `filter`.
    pub fn filter(&self, filter: &StrFilter) -> Result<Selection> {
        match self {
            StringEncoding::Dictionary(d) => d.filter(filter),
            StringEncoding::Fsst(f) => f.filter(filter),
        }
    }

    fn for_each(&self, mut visit: impl FnMut(&str)) -> Result<()> {
        let mut start = 0;
        while start < self.len() {
            let count = (self.len() - start).min(kernel::BLOCK);
            self.unpack(start, count)?.iter().for_each(|s| visit(s));
            start += count;
        }
        Ok(())
    }

    /// The smallest and largest string (byte-wise order), `None` when empty.
    pub fn min_max(&self) -> Result<Option<(String, String)>> {
        if let StringEncoding::Dictionary(d) = self {
            return Ok(d.values.first().cloned().zip(d.values.last().cloned()));
        }
        let mut found: Option<(String, String)> = None;
        self.for_each(|s| {
            found = Some(match found.take() {
                None => (s.to_string(), s.to_string()),
                Some((lo, hi)) => (
                    if s < lo.as_str() { s.to_string() } else { lo },
                    if s > hi.as_str() { s.to_string() } else { hi },
                ),
            });
        })?;
        Ok(found)
    }

    /// Number of runs of equal neighbours.
    pub fn run_count(&self) -> Result<usize> {
        if let StringEncoding::Dictionary(d) = self {
            return Ok(kernel::run_count(&d.codes));
        }
        let (mut runs, mut previous) = (0, None::<String>);
        self.for_each(|s| {
            if previous.as_deref() != Some(s) {
                runs += 1;
                previous = Some(s.to_string());
            }
        })?;
        Ok(runs)
    }

    /// Number of distinct strings (exact for a dictionary, else a sketch's estimate).
    pub fn distinct_estimate(&self) -> Result<u64> {
        if let StringEncoding::Dictionary(d) = self {
            return Ok(d.values.len() as u64);
        }
        let mut sketch = DistinctSketch::default();
        self.for_each(|s| sketch.insert(hash_str(s)))?;
        Ok(sketch.estimate())
    }

    /// The smart arrays, by role.
    pub fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        match self {
            StringEncoding::Dictionary(d) => vec![("codes", &d.codes)],
            StringEncoding::Fsst(f) => {
                vec![("compressed bytes", &f.bytes), ("offsets", &f.offsets)]
            }
        }
    }

    /// Bytes kept outside smart arrays (the dictionary's strings, the symbol table).
    pub fn heap_bytes(&self) -> usize {
        match self {
            StringEncoding::Dictionary(d) => d.values.iter().map(|s| s.len() + 8).sum(),
            StringEncoding::Fsst(f) => f.symbol_table_bytes(),
        }
    }

    /// Bytes of the encoded data in one copy, densely packed.
    pub fn packed_bytes(&self) -> usize {
        self.arrays()
            .iter()
            .map(|(_, a)| a.packed_bytes())
            .sum::<usize>()
            + self.heap_bytes()
    }
}

/// A 64-bit hash of a string (FNV-1a, then mixed), for the distinct sketch.
pub(crate) fn hash_str(s: &str) -> u64 {
    let mut hash = 0xCBF2_9CE4_8422_2325u64;
    for b in s.bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
    }
    kernel::mix(hash)
}

/// Decompresses single rows of an [`FsstStrings`]: its offsets, code bytes and symbol words,
/// read once for a run of rows.
struct RowDecoder<'a> {
    offsets: ArrayView<'a>,
    bytes: &'a [u8],
    table: [(u64, usize); 256],
}

impl RowDecoder<'_> {
    /// Writes the text of `row` into `buffer` from `at`, growing it as needed, and returns
    /// the position after it.
    #[inline]
    fn decode(&self, row: usize, buffer: &mut Vec<u8>, at: usize) -> Result<usize> {
        let (from, to) = (
            self.offsets.value(row) as usize,
            self.offsets.value(row + 1) as usize,
        );
        let codes = self
            .bytes
            .get(from..to)
            .ok_or(EncodingError::RangeOutOfBounds {
                start: from,
                end: to,
                len: self.bytes.len(),
            })?;
        // At most 8 bytes per code, plus 8 of slack for the last whole-word write.
        let need = at + codes.len() * 8 + 8;
        if buffer.len() < need {
            buffer.resize(need.max(buffer.len() * 2), 0);
        }
        Ok(decode_codes(&self.table, codes, buffer, at))
    }
}

/// Writes the text of FSST `codes` into `buffer` from `at` (each symbol as one 8-byte word,
/// the position advanced by its length; `buffer` has room for 8 bytes per code and 8 more)
/// and returns the position after it.
fn decode_codes(
    table: &[(u64, usize); 256],
    codes: &[u8],
    buffer: &mut [u8],
    mut at: usize,
) -> usize {
    let mut k = 0;
    while k < codes.len() {
        let code = codes[k];
        k += 1;
        if code == fsst::ESCAPE_CODE {
            if let Some(&byte) = codes.get(k) {
                buffer[at] = byte;
                at += 1;
            }
            k += 1;
        } else {
            let (symbol, length) = table[usize::from(code)];
            buffer[at..at + 8].copy_from_slice(&symbol.to_le_bytes());
            at += length;
        }
    }
    at
}

/// Decompressed strings one after the other (see [`FsstStrings::decompress_selected`]): the
/// bytes of all, and where each ends.
#[derive(Clone, Debug, Default)]
pub struct TextBatch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl TextBatch {
    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no strings.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of all the strings, one after the other.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where each string ends in [`TextBatch::bytes`] (string `i` starts where `i - 1` ends).
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// String `i`'s bytes (panics past the end, like slice indexing).
    pub fn get(&self, i: usize) -> &[u8] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[from..self.ends[i]]
    }

    /// A batch of `strings` (for tests and callers that hold plain strings).
    pub fn from_strings<S: AsRef<[u8]>>(strings: &[S]) -> TextBatch {
        let mut batch = TextBatch::default();
        for s in strings {
            batch.bytes.extend_from_slice(s.as_ref());
            batch.ends.push(batch.bytes.len());
        }
        batch
    }
}
