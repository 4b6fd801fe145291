//! The serialised form of a column, for sending it to another process without decoding it:
//! [`Column::to_parts`] gives a small versioned **header** (the type, the encoding and its
//! parameters, and a descriptor of every buffer) and a list of **buffers** that are the packed
//! words of the column's smart arrays as they are in memory (borrowed, no copy) plus the few
//! heap parts (a dictionary's values, its strings). [`Column::from_parts`] rebuilds the column
//! on the receiving side, placing its arrays by the receiver's own options, after checking
//! everything: the header's magic, version and checksum, every buffer's length against its
//! width and length, and every invariant the encoding's kernels rely on (codes inside the
//! dictionary, sorted dictionaries, increasing run ends and offsets, sorted exception
//! positions, FSST code streams and symbol tables, UTF-8, a delta column's sums, the values of
//! null rows). Anything malformed is an [`EncodingError::MalformedParts`] (or
//! [`EncodingError::PartsVersion`]) naming the part; nothing panics, and no half-built column is
//! returned.
//!
//! # Header, version 1
//!
//! Little-endian throughout: magic `SAcp`, version (u16), type (u8: 0 UInt64, 1 Int64,
//! 2 Float64, 3 Decimal, 4 Date32, 5 Utf8, 6 Bool), decimal scale (u8), encoding (u8:
//! 0 bitpacked, 1 frame, 2 dictionary, 3 run_end, 4 delta, 5 constant, 6 alp, 7 fsst), rows
//! (u64), the key of null rows (u64), whether there is a validity (u8); then the encoding's
//! parameters and buffer descriptors in the order the buffers come (a packed array: tag 0,
//! length u64, bits u8; raw bytes: tag 1, byte count u64); then the validity's descriptor; then
//! an FNV-1a checksum (u64) of everything before it.
//!
//! | encoding | parameters and buffers |
//! | --- | --- |
//! | bitpacked | values |
//! | frame | base (u64); offsets |
//! | dictionary (keys) | codes; sorted values (8 bytes each) |
//! | run_end | base of the run values (u64); run ends; run values' offsets |
//! | delta | first value (u64); block starts; differences |
//! | constant | the value (u64) |
//! | alp | exponent (u8), factor (u8), base of the digits (u64); digits' offsets; exception positions; exception values |
//! | dictionary (strings) | codes; end offsets of the sorted strings (8 bytes each); their UTF-8 bytes |
//! | fsst | symbol count (u8), symbols (u64 each), symbol lengths (u8 each); compressed bytes (8-bit array); row offsets |
//!
//! # Example
//! ```
//! use smartarrays_encodings::{Column, ColumnOptions, EncodingKind};
//! let values: Vec<i64> = (0..10_000).map(|i| 1_000_000 + i % 300).collect();
//! let column = Column::from_i64(&values, &ColumnOptions::new()).unwrap();
//! let parts = column.to_parts();
//! // The buffers are the packed words themselves (whole 64-bit words).
//! assert!(parts.buffer_bytes() <= column.packed_bytes() + 8);
//! let buffers: Vec<&[u8]> = parts.buffers.iter().map(|b| b.as_ref()).collect();
//! let back = Column::from_parts(&parts.header, &buffers, &ColumnOptions::new()).unwrap();
//! assert_eq!(back.encoding_kind(), column.encoding_kind());
//! assert_eq!(back.unpack(0..10_000).unwrap().values, column.unpack(0..10_000).unwrap().values);
//! // A truncated buffer is a typed error, never a panic.
//! let mut short = buffers.clone();
//! short[0] = &short[0][..short[0].len() - 1];
//! assert!(Column::from_parts(&parts.header, &short, &ColumnOptions::new()).is_err());
//! ```

use std::borrow::Cow;

use smartarrays::SmartArray;

use crate::bitpacked::BitPacked;
use crate::column::{Column, ColumnOptions, Encoding};
use crate::compress::Explanation;
use crate::constant::Constant;
use crate::decimal;
use crate::delta::{Delta, DELTA_BLOCK};
use crate::dictionary::Dictionary;
use crate::error::{EncodingError, Result};
use crate::float::Alp;
use crate::frame::Frame;
use crate::integer::{IntEncoding, KeyEncoding};
use crate::kernel::{self, key_from_i64, BLOCK};
use crate::run_end::RunEnd;
use crate::strings::{FsstStrings, StringDictionary, StringEncoding};
use crate::types::{DataType, EncodingKind};
use crate::validity::Validity;

/// The first bytes of every header.
pub const PARTS_MAGIC: [u8; 4] = *b"SAcp";
/// The header version this build writes and reads.
pub const PARTS_VERSION: u16 = 1;

const KINDS: [EncodingKind; 8] = [
    EncodingKind::BitPacked,
    EncodingKind::Frame,
    EncodingKind::Dictionary,
    EncodingKind::RunEnd,
    EncodingKind::Delta,
    EncodingKind::Constant,
    EncodingKind::Alp,
    EncodingKind::Fsst,
];

const TAG_ARRAY: u8 = 0;
const TAG_BYTES: u8 = 1;

/// A column's serialised form: the header and the buffers (see the module docs). The buffers
/// borrow the column's packed words where they can.
#[derive(Debug)]
pub struct ColumnParts<'a> {
    /// Type, encoding, parameters and buffer descriptors, checksummed.
    pub header: Vec<u8>,
    /// The packed words of every smart array under the column, and its heap parts, in the
    /// order the header describes them.
    pub buffers: Vec<Cow<'a, [u8]>>,
}

impl ColumnParts<'_> {
    /// Bytes in all buffers.
    pub fn buffer_bytes(&self) -> usize {
        self.buffers.iter().map(|b| b.len()).sum()
    }

    /// Bytes in the header and all buffers.
    pub fn total_bytes(&self) -> usize {
        self.header.len() + self.buffer_bytes()
    }
}

/// The checksum a parts header ends with: FNV-1a (64 bit) over the header's bytes before it.
/// Public so that formats built on the parts (the query engine's table parts) use the same one.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn malformed(part: impl Into<String>, reason: impl Into<String>) -> EncodingError {
    EncodingError::MalformedParts {
        part: part.into(),
        reason: reason.into(),
    }
}

/// The header being written and the buffers it describes.
struct Writer<'a> {
    header: Vec<u8>,
    buffers: Vec<Cow<'a, [u8]>>,
}

impl<'a> Writer<'a> {
    fn u8(&mut self, v: u8) {
        self.header.push(v);
    }
    fn u64(&mut self, v: u64) {
        self.header.extend_from_slice(&v.to_le_bytes());
    }
    fn array(&mut self, array: &'a SmartArray) {
        self.u8(TAG_ARRAY);
        self.u64(array.len() as u64);
        self.u8(array.bits() as u8);
        self.buffers
            .push(Cow::Borrowed(array.local().packed_bytes()));
    }
    fn bytes(&mut self, bytes: Vec<u8>) {
        self.u8(TAG_BYTES);
        self.u64(bytes.len() as u64);
        self.buffers.push(Cow::Owned(bytes));
    }
}

impl Column {
    /// The column's serialised form: a small header and the packed words of its smart arrays
    /// (borrowed, as they are in memory) plus its heap parts. See the [`parts`](crate::parts)
    /// module for the format; [`Column::from_parts`] reads it back.
    pub fn to_parts(&self) -> ColumnParts<'_> {
        let mut w = Writer {
            header: Vec::with_capacity(96),
            buffers: Vec::new(),
        };
        w.header.extend_from_slice(&PARTS_MAGIC);
        w.header.extend_from_slice(&PARTS_VERSION.to_le_bytes());
        let (code, scale) = self.data_type.code();
        w.u8(code);
        w.u8(scale);
        let kind = self.encoding.kind();
        w.u8(KINDS.iter().position(|&k| k == kind).unwrap_or(0) as u8);
        w.u64(self.len as u64);
        w.u64(self.fill);
        w.u8(u8::from(self.validity.is_some()));
        match &self.encoding {
            Encoding::Keys(IntEncoding::BitPacked(e)) => w.array(&e.values),
            Encoding::Keys(IntEncoding::Frame(e)) => {
                w.u64(e.base);
                w.array(&e.offsets);
            }
            Encoding::Keys(IntEncoding::Dictionary(e)) => {
                w.array(&e.codes);
                w.bytes(e.values.iter().flat_map(|v| v.to_le_bytes()).collect());
            }
            Encoding::Keys(IntEncoding::RunEnd(e)) => {
                w.u64(e.values.base);
                w.array(&e.ends);
                w.array(&e.values.offsets);
            }
            Encoding::Keys(IntEncoding::Delta(e)) => {
                w.u64(e.first);
                w.array(&e.starts);
                w.array(&e.differences);
            }
            Encoding::Keys(IntEncoding::Constant(e)) => w.u64(e.value),
            Encoding::Alp(a) => {
                w.u8(a.exponent);
                w.u8(a.factor);
                w.u64(a.digits.base);
                w.array(&a.digits.offsets);
                w.array(&a.positions);
                w.array(&a.exceptions);
            }
            Encoding::Strings(StringEncoding::Dictionary(d)) => {
                w.array(&d.codes);
                let mut end = 0u64;
                let mut ends = Vec::with_capacity(d.values.len() * 8);
                let mut text = Vec::new();
                for s in &d.values {
                    end += s.len() as u64;
                    ends.extend_from_slice(&end.to_le_bytes());
                    text.extend_from_slice(s.as_bytes());
                }
                w.bytes(ends);
                w.bytes(text);
            }
            Encoding::Strings(StringEncoding::Fsst(f)) => {
                let symbols = f.compressor.symbol_table();
                w.u8(symbols.len() as u8);
                for symbol in symbols {
                    w.u64(symbol.to_u64());
                }
                w.header.extend_from_slice(f.compressor.symbol_lengths());
                w.array(&f.bytes);
                w.array(&f.offsets);
            }
        }
        if let Some(validity) = &self.validity {
            w.array(&validity.bits);
        }
        let sum = checksum(&w.header);
        w.u64(sum);
        ColumnParts {
            header: w.header,
            buffers: w.buffers,
        }
    }

    /// Rebuilds a column from [`Column::to_parts`]'s header and buffers (any byte slices: they
    /// are copied into the new column's smart arrays, placed by `options`; its `encoding` and
    /// `measure_all` are ignored, the sender's encoding is kept). Everything is checked first
    /// (see the [`parts`](crate::parts) module): a malformed header or buffer is an
    /// [`EncodingError::MalformedParts`] naming the part, another format version an
    /// [`EncodingError::PartsVersion`].
    pub fn from_parts(header: &[u8], buffers: &[&[u8]], options: &ColumnOptions) -> Result<Column> {
        let mut r = Reader::new(header, buffers, options)?;
        let code = r.u8("type")?;
        let scale = r.u8("decimal scale")?;
        let data_type = DataType::from_code(code, scale).ok_or_else(|| match code {
            3 => malformed(
                "decimal scale",
                format!(
                    "the scale must be at most {}, not {scale}",
                    decimal::MAX_SCALE
                ),
            ),
            other => malformed("type", format!("unknown type code {other}")),
        })?;
        let kind_code = r.u8("encoding")?;
        let kind = *KINDS
            .get(usize::from(kind_code))
            .ok_or_else(|| malformed("encoding", format!("unknown encoding code {kind_code}")))?;
        let len = r.length("rows")?;
        let fill = r.u64("null key")?;
        let has_validity = match r.u8("validity flag")? {
            0 => false,
            1 => true,
            other => return Err(malformed("validity flag", format!("{other} is not 0 or 1"))),
        };
        let applies = match kind {
            EncodingKind::Alp => data_type == DataType::Float64,
            EncodingKind::Fsst => data_type == DataType::Utf8,
            EncodingKind::Dictionary => true,
            _ => data_type != DataType::Utf8,
        };
        if !applies {
            return Err(malformed(
                "encoding",
                format!("{kind} does not apply to a {data_type} column"),
            ));
        }
        let encoding = match (kind, data_type) {
            (EncodingKind::Dictionary, DataType::Utf8) => {
                Encoding::Strings(StringEncoding::Dictionary(r.string_dictionary(len)?))
            }
            (EncodingKind::Fsst, _) => Encoding::Strings(StringEncoding::Fsst(r.fsst(len)?)),
            (EncodingKind::Alp, _) => Encoding::Alp(r.alp(len)?),
            (kind, _) => Encoding::Keys(r.keys(kind, len)?),
        };
        let validity = if has_validity {
            let bits = r.array("validity", Some(len))?;
            if bits.bits() != 1 {
                return Err(malformed(
                    "validity",
                    format!("{} bits per row, not 1", bits.bits()),
                ));
            }
            let valid = kernel::exact_sum(&bits) as usize;
            Some(Validity {
                bits,
                nulls: len - valid,
            })
        } else {
            None
        };
        r.finish()?;
        check_values(data_type, &encoding, len, validity.as_ref(), fill)?;
        let placement = match encoding.arrays().first() {
            Some((_, array)) => array.placement().clone(),
            None => options.array.placement.clone(),
        };
        Ok(Column {
            data_type,
            len,
            explanation: Explanation {
                chosen: kind,
                rows: len,
                sample_rows: 0,
                candidates: Vec::new(),
                reason: "received in its serialised form (Column::from_parts): the sender's \
                         encoding is kept"
                    .to_string(),
            },
            encoding,
            validity,
            fill,
            placement,
        })
    }
}

/// Checks what depends on the type and the nulls: booleans are 0 or 1, dates fit 32 bits, and
/// null rows hold the stand-in the kernels expect (the smallest valid value).
fn check_values(
    data_type: DataType,
    encoding: &Encoding,
    len: usize,
    validity: Option<&Validity>,
    fill: u64,
) -> Result<()> {
    // A column of nulls only holds the key 0 in every row, whatever its type.
    let all_null = validity.is_some_and(|v| v.null_count() == len);
    if let Some(keys) = encoding_keys(encoding).filter(|_| !all_null) {
        if let Some((lo, hi)) = keys.min_max() {
            let range = match data_type {
                DataType::Bool => Some((0, 1)),
                DataType::Date32 => Some((
                    key_from_i64(i64::from(i32::MIN)),
                    key_from_i64(i64::from(i32::MAX)),
                )),
                _ => None,
            };
            if let Some((min, max)) = range {
                if lo < min || hi > max {
                    return Err(malformed(
                        "values",
                        format!("a {data_type} column holds a key outside {min}..={max}"),
                    ));
                }
            }
        }
    }
    let Some(validity) = validity else {
        return Ok(());
    };
    let mut start = 0;
    let mut smallest_valid: Option<u64> = None;
    let mut smallest_string: Option<String> = None;
    let mut null_strings: Vec<String> = Vec::new();
    while start < len {
        let count = (len - start).min(BLOCK);
        let flags = validity.flags(start, count)?;
        match encoding {
            Encoding::Strings(strings) => {
                for (s, ok) in strings.unpack(start, count)?.into_iter().zip(&flags) {
                    if *ok {
                        if smallest_string.as_ref().is_none_or(|m| s < *m) {
                            smallest_string = Some(s);
                        }
                    } else if null_strings.last() != Some(&s) {
                        null_strings.push(s);
                    }
                }
            }
            _ => {
                let keys = encoding_keys(encoding).ok_or_else(|| malformed("values", "no keys"))?;
                let mut out = vec![0u64; count];
                keys.unpack(start, &mut out)?;
                for (row, (&key, ok)) in out.iter().zip(&flags).enumerate() {
                    if *ok {
                        smallest_valid = Some(smallest_valid.map_or(key, |m| m.min(key)));
                    } else if key != fill {
                        return Err(malformed(
                            "values",
                            format!(
                                "null row {} holds key {key}, not the null key {fill}",
                                start + row
                            ),
                        ));
                    }
                }
            }
        }
        start += count;
    }
    if let Some(smallest) = smallest_valid {
        if smallest != fill {
            return Err(malformed(
                "null key",
                format!("{fill} is not the smallest valid key ({smallest})"),
            ));
        }
    }
    let stand_in = smallest_string.unwrap_or_default();
    if null_strings.iter().any(|s| *s != stand_in) {
        return Err(malformed(
            "values",
            "a null row's string is not the smallest valid string",
        ));
    }
    Ok(())
}

fn encoding_keys(encoding: &Encoding) -> Option<&dyn KeyEncoding> {
    match encoding {
        Encoding::Keys(e) => Some(e.as_dyn()),
        Encoding::Alp(alp) => Some(alp),
        Encoding::Strings(_) => None,
    }
}

/// Reads a header and hands out its buffers, checking every field.
struct Reader<'h, 'b> {
    header: &'h [u8],
    at: usize,
    buffers: &'b [&'b [u8]],
    next_buffer: usize,
    options: &'b ColumnOptions,
}

impl<'h, 'b> Reader<'h, 'b> {
    fn new(
        header: &'h [u8],
        buffers: &'b [&'b [u8]],
        options: &'b ColumnOptions,
    ) -> Result<Reader<'h, 'b>> {
        if header.len() < 6 + 8 {
            return Err(malformed(
                "header",
                format!("{} bytes, too short for a column header", header.len()),
            ));
        }
        if header[0..4] != PARTS_MAGIC {
            return Err(malformed(
                "header",
                format!(
                    "it starts with {:?}, not {:?}",
                    String::from_utf8_lossy(&header[0..4]),
                    String::from_utf8_lossy(&PARTS_MAGIC)
                ),
            ));
        }
        let version = u16::from_le_bytes([header[4], header[5]]);
        if version != PARTS_VERSION {
            return Err(EncodingError::PartsVersion {
                found: version,
                supported: PARTS_VERSION,
            });
        }
        let body = header.len() - 8;
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&header[body..]);
        let stored = u64::from_le_bytes(stored);
        let computed = checksum(&header[..body]);
        if stored != computed {
            return Err(malformed(
                "header",
                format!("checksum {stored:#018x} does not match its fields ({computed:#018x})"),
            ));
        }
        Ok(Reader {
            header: &header[..body],
            at: 6,
            buffers,
            next_buffer: 0,
            options,
        })
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'h [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.header.len())
            .ok_or_else(|| {
                malformed(
                    what,
                    format!("the header ends at byte {} before it", self.header.len()),
                )
            })?;
        let out = &self.header[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(word))
    }

    fn length(&mut self, what: &str) -> Result<usize> {
        let value = self.u64(what)?;
        usize::try_from(value).map_err(|_| malformed(what, format!("{value} overflows usize")))
    }

    fn buffer(&mut self, what: &str) -> Result<&'b [u8]> {
        let buffer = self.buffers.get(self.next_buffer).ok_or_else(|| {
            malformed(
                what,
                format!(
                    "buffer {} is missing: {} were given",
                    self.next_buffer,
                    self.buffers.len()
                ),
            )
        })?;
        self.next_buffer += 1;
        Ok(buffer)
    }

    /// The next buffer as a packed array (of `len` values, when given), checked against its
    /// descriptor.
    fn array(&mut self, what: &str, len: Option<usize>) -> Result<SmartArray> {
        let tag = self.u8(what)?;
        if tag != TAG_ARRAY {
            return Err(malformed(
                what,
                format!("descriptor tag {tag}, a packed array has {TAG_ARRAY}"),
            ));
        }
        let count = self.length(what)?;
        let bits = u32::from(self.u8(what)?);
        if !(1..=64).contains(&bits) {
            return Err(malformed(what, format!("width {bits} is outside 1..=64")));
        }
        if let Some(len) = len {
            if count != len {
                return Err(malformed(
                    what,
                    format!("{count} values where {len} belong"),
                ));
            }
        }
        let bytes = count
            .checked_mul(bits as usize)
            .map(|total| total.div_ceil(64) * 8)
            .ok_or_else(|| malformed(what, format!("{count} values of {bits} bits overflow")))?;
        let buffer = self.buffer(what)?;
        if buffer.len() != bytes {
            return Err(malformed(
                what,
                format!(
                    "{} bytes, but {count} values of {bits} bits pack into {bytes}",
                    buffer.len()
                ),
            ));
        }
        let words: Vec<u64> = buffer
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        Ok(SmartArray::from_packed_words(
            count,
            bits,
            &words,
            &kernel::options_at(&self.options.array, bits),
        )?)
    }

    /// The next buffer as raw bytes, checked against its descriptor.
    fn bytes(&mut self, what: &str) -> Result<&'b [u8]> {
        let tag = self.u8(what)?;
        if tag != TAG_BYTES {
            return Err(malformed(
                what,
                format!("descriptor tag {tag}, raw bytes have {TAG_BYTES}"),
            ));
        }
        let count = self.length(what)?;
        let buffer = self.buffer(what)?;
        if buffer.len() != count {
            return Err(malformed(
                what,
                format!("{} bytes where the header says {count}", buffer.len()),
            ));
        }
        Ok(buffer)
    }

    fn finish(&self) -> Result<()> {
        if self.at != self.header.len() {
            return Err(malformed(
                "header",
                format!(
                    "{} bytes are left over after its fields",
                    self.header.len() - self.at
                ),
            ));
        }
        if self.next_buffer != self.buffers.len() {
            return Err(malformed(
                "buffers",
                format!(
                    "{} were given, the header describes {}",
                    self.buffers.len(),
                    self.next_buffer
                ),
            ));
        }
        Ok(())
    }

    /// A frame of `len` values: base and offsets, whose top must not overflow.
    fn frame(&mut self, what: &str, len: Option<usize>) -> Result<Frame> {
        let base = self.u64(what)?;
        let offsets = self.array(what, len)?;
        let max_offset = kernel::min_max(&offsets).map_or(0, |(_, hi)| hi);
        if base.checked_add(max_offset).is_none() {
            return Err(malformed(
                what,
                format!("base {base} plus offset {max_offset} overflows 64 bits"),
            ));
        }
        Ok(Frame {
            base,
            max_offset,
            offsets,
        })
    }

    fn keys(&mut self, kind: EncodingKind, len: usize) -> Result<IntEncoding> {
        Ok(match kind {
            EncodingKind::BitPacked => {
                let values = self.array("bit-packed values", Some(len))?;
                let max = kernel::min_max(&values).map_or(0, |(_, hi)| hi);
                IntEncoding::BitPacked(BitPacked { max, values })
            }
            EncodingKind::Frame => IntEncoding::Frame(self.frame("frame offsets", Some(len))?),
            EncodingKind::Dictionary => {
                let codes = self.array("dictionary codes", Some(len))?;
                let raw = self.bytes("dictionary values")?;
                if raw.len() % 8 != 0 {
                    return Err(malformed(
                        "dictionary values",
                        format!("{} bytes is not a whole number of 8-byte values", raw.len()),
                    ));
                }
                let values: Vec<u64> = raw
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect();
                if let Some(i) = (1..values.len()).find(|&i| values[i - 1] >= values[i]) {
                    return Err(malformed(
                        "dictionary values",
                        format!("not strictly increasing at entry {i}"),
                    ));
                }
                check_codes("dictionary codes", &codes, values.len())?;
                IntEncoding::Dictionary(Dictionary { values, codes })
            }
            EncodingKind::RunEnd => {
                let base = self.u64("run values")?;
                let ends = self.array("run ends", None)?;
                let runs = ends.len();
                let mut previous = 0u64;
                let mut bad = None;
                ends.for_each_chunk(0..runs, |at, chunk| {
                    for (k, &end) in chunk.iter().enumerate() {
                        if bad.is_none() && end <= previous {
                            bad = Some(at + k);
                        }
                        previous = end;
                    }
                })?;
                if let Some(run) = bad {
                    return Err(malformed(
                        "run ends",
                        format!("run {run} does not end after the one before"),
                    ));
                }
                if previous != len as u64 {
                    return Err(malformed(
                        "run ends",
                        format!("the last run ends at {previous}, the column has {len} rows"),
                    ));
                }
                let offsets = self.array("run values", Some(runs))?;
                let max_offset = kernel::min_max(&offsets).map_or(0, |(_, hi)| hi);
                if base.checked_add(max_offset).is_none() {
                    return Err(malformed(
                        "run values",
                        format!("base {base} plus offset {max_offset} overflows 64 bits"),
                    ));
                }
                if runs > 0 && kernel::run_count(&offsets) != runs {
                    return Err(malformed(
                        "run values",
                        "two neighbouring runs hold the same value",
                    ));
                }
                IntEncoding::RunEnd(RunEnd {
                    len,
                    ends,
                    values: Frame {
                        base,
                        max_offset,
                        offsets,
                    },
                })
            }
            EncodingKind::Delta => {
                let first = self.u64("delta first value")?;
                let starts = self.array("delta block starts", Some(len.div_ceil(DELTA_BLOCK)))?;
                let differences = self.array("delta differences", Some(len))?;
                let (last, runs) = check_delta(first, &starts, &differences, len)?;
                IntEncoding::Delta(Delta {
                    len,
                    first,
                    last,
                    runs,
                    starts,
                    differences,
                })
            }
            EncodingKind::Constant => {
                let value = self.u64("constant value")?;
                IntEncoding::Constant(Constant::repeat(value, len))
            }
            other => {
                return Err(malformed(
                    "encoding",
                    format!("{other} is not an integer encoding"),
                ))
            }
        })
    }

    fn alp(&mut self, len: usize) -> Result<Alp> {
        let exponent = self.u8("ALP exponent")?;
        let factor = self.u8("ALP factor")?;
        if exponent > 18 || factor > exponent {
            return Err(malformed(
                "ALP parameters",
                format!("exponent {exponent} and factor {factor}: need factor <= exponent <= 18"),
            ));
        }
        let digits = self.frame("ALP digits", Some(len))?;
        let positions = self.array("ALP exception positions", None)?;
        let exceptions = self.array("ALP exception values", Some(positions.len()))?;
        let mut previous: Option<u64> = None;
        let mut bad = None;
        positions.for_each_chunk(0..positions.len(), |at, chunk| {
            for (k, &row) in chunk.iter().enumerate() {
                if bad.is_none() && (row >= len as u64 || previous.is_some_and(|p| row <= p)) {
                    bad = Some(at + k);
                }
                previous = Some(row);
            }
        })?;
        if let Some(k) = bad {
            return Err(malformed(
                "ALP exception positions",
                format!("position {k} is past the last row or not after the one before"),
            ));
        }
        Ok(Alp {
            len,
            exponent,
            factor,
            digits,
            positions,
            exceptions,
        })
    }

    fn string_dictionary(&mut self, len: usize) -> Result<StringDictionary> {
        let codes = self.array("string codes", Some(len))?;
        let ends = self.bytes("string ends")?;
        let text = self.bytes("string bytes")?;
        if ends.len() % 8 != 0 {
            return Err(malformed(
                "string ends",
                format!(
                    "{} bytes is not a whole number of 8-byte offsets",
                    ends.len()
                ),
            ));
        }
        let mut values: Vec<String> = Vec::with_capacity(ends.len() / 8);
        let mut start = 0usize;
        for (i, raw) in ends.chunks_exact(8).enumerate() {
            let end = u64::from_le_bytes(raw.try_into().unwrap_or_default());
            let end = usize::try_from(end)
                .ok()
                .filter(|&e| e >= start && e <= text.len())
                .ok_or_else(|| {
                    malformed(
                        "string ends",
                        format!("entry {i} ends at {end}, outside {start}..={}", text.len()),
                    )
                })?;
            let s = std::str::from_utf8(&text[start..end])
                .map_err(|e| malformed("string bytes", format!("entry {i} is not UTF-8: {e}")))?;
            if values.last().is_some_and(|last| last.as_str() >= s) {
                return Err(malformed(
                    "string ends",
                    format!("the strings are not strictly increasing at entry {i}"),
                ));
            }
            values.push(s.to_string());
            start = end;
        }
        if start != text.len() {
            return Err(malformed(
                "string bytes",
                format!("{} bytes after the last string", text.len() - start),
            ));
        }
        check_codes("string codes", &codes, values.len())?;
        Ok(StringDictionary { values, codes })
    }

    fn fsst(&mut self, len: usize) -> Result<FsstStrings> {
        let n = usize::from(self.u8("FSST symbol count")?);
        let mut symbols = Vec::with_capacity(n);
        for _ in 0..n {
            symbols.push(fsst::Symbol::from_slice(
                &self.u64("FSST symbols")?.to_le_bytes(),
            ));
        }
        let lengths = self.take(n, "FSST symbol lengths")?.to_vec();
        // What `Compressor::rebuild_from` requires, checked here so that it cannot panic:
        // every length is the symbol's own (1..=8), the lengths are in FSST's order (2 to 8
        // non-decreasing, then the 1-byte symbols), and the long symbols fit its hash table
        // (found by inserting them into a builder, which refuses a collision).
        let mut builder = fsst::CompressorBuilder::new();
        let mut one_byte = false;
        let mut previous = 2u8;
        for (code, (&symbol, &length)) in symbols.iter().zip(&lengths).enumerate() {
            if usize::from(length) != symbol.len() {
                return Err(malformed(
                    "FSST symbols",
                    format!(
                        "symbol {code} has {} bytes, its length says {length}",
                        symbol.len()
                    ),
                ));
            }
            if length == 1 {
                one_byte = true;
            } else if one_byte || length < previous {
                return Err(malformed(
                    "FSST symbols",
                    format!("symbol {code} breaks the table's order by length"),
                ));
            } else {
                previous = length;
            }
            if !builder.insert(symbol, usize::from(length)) {
                return Err(malformed(
                    "FSST symbols",
                    format!("symbol {code} collides with another in the symbol hash table"),
                ));
            }
        }
        let compressor = Box::new(fsst::Compressor::rebuild_from(&symbols, &lengths));
        let bytes = self.array("FSST bytes", None)?;
        if bytes.bits() != 8 {
            return Err(malformed(
                "FSST bytes",
                format!("{} bits per byte, not 8", bytes.bits()),
            ));
        }
        let offsets = self.array("FSST offsets", Some(len + 1))?;
        let raw = bytes.local().as_native::<u8>().unwrap_or(&[]);
        let mut start = 0usize;
        let mut failed = None;
        let decompressor = compressor.decompressor();
        offsets.for_each_chunk(0..offsets.len(), |at, chunk| {
            for (k, &end) in chunk.iter().enumerate() {
                if failed.is_some() {
                    return;
                }
                let row = at + k;
                if row == 0 {
                    if end != 0 {
                        failed = Some(format!("row 0 starts at {end}, not 0"));
                    }
                    continue;
                }
                let Some(end) = usize::try_from(end)
                    .ok()
                    .filter(|&e| e >= start && e <= raw.len())
                else {
                    failed = Some(format!(
                        "row {} ends at {end}, outside {start}..={}",
                        row - 1,
                        raw.len()
                    ));
                    return;
                };
                let codes = &raw[start..end];
                let mut i = 0;
                while i < codes.len() {
                    if codes[i] == fsst::ESCAPE_CODE {
                        i += 2;
                    } else if usize::from(codes[i]) >= n {
                        failed = Some(format!(
                            "row {} uses code {}, the table has {n} symbols",
                            row - 1,
                            codes[i]
                        ));
                        return;
                    } else {
                        i += 1;
                    }
                }
                if i != codes.len() {
                    failed = Some(format!("row {} ends inside an escape", row - 1));
                    return;
                }
                if std::str::from_utf8(&decompressor.decompress(codes)).is_err() {
                    failed = Some(format!("row {} is not UTF-8", row - 1));
                    return;
                }
                start = end;
            }
        })?;
        if let Some(reason) = failed {
            return Err(malformed("FSST offsets", reason));
        }
        if start != raw.len() {
            return Err(malformed(
                "FSST bytes",
                format!("{} bytes after the last row", raw.len() - start),
            ));
        }
        Ok(FsstStrings {
            compressor,
            bytes,
            offsets,
        })
    }
}

/// Every code below `entries`, and every entry used (the kernels take a dictionary's first and
/// last entry as the column's minimum and maximum).
fn check_codes(what: &str, codes: &SmartArray, entries: usize) -> Result<()> {
    let mut used = vec![false; entries];
    let mut bad = None;
    codes.for_each_chunk(0..codes.len(), |at, chunk| {
        for (k, &code) in chunk.iter().enumerate() {
            match used.get_mut(code as usize) {
                Some(slot) => *slot = true,
                None if bad.is_none() => bad = Some((at + k, code)),
                None => {}
            }
        }
    })?;
    if let Some((row, code)) = bad {
        return Err(malformed(
            what,
            format!("row {row} has code {code}, the dictionary has {entries} entries"),
        ));
    }
    if let Some(entry) = used.iter().position(|&u| !u) {
        return Err(malformed(
            what,
            format!("dictionary entry {entry} is used by no row"),
        ));
    }
    Ok(())
}

/// Decodes a delta column with checked arithmetic: the block starts are offsets from `first`
/// (the first one 0), each block's first difference is 0, no value overflows and the values
/// never decrease. Returns the last value and the number of runs.
fn check_delta(
    first: u64,
    starts: &SmartArray,
    differences: &SmartArray,
    len: usize,
) -> Result<(u64, usize)> {
    let mut value = first;
    let mut runs = usize::from(len > 0);
    let mut failed = None;
    differences.for_each_chunk(0..len, |at, steps| {
        for (k, &step) in steps.iter().enumerate() {
            if failed.is_some() {
                return;
            }
            let row = at + k;
            if row % DELTA_BLOCK == 0 {
                let start = match starts.get(row / DELTA_BLOCK) {
                    Ok(start) => start,
                    Err(e) => {
                        failed = Some(e.to_string());
                        return;
                    }
                };
                if step != 0 {
                    failed = Some(format!(
                        "row {row} starts a block but has difference {step}"
                    ));
                    return;
                }
                if row == 0 && start != 0 {
                    failed = Some(format!("the first block starts at offset {start}, not 0"));
                    return;
                }
                match first.checked_add(start) {
                    Some(next) if next >= value => {
                        runs += usize::from(row > 0 && next != value);
                        value = next;
                    }
                    _ => {
                        failed = Some(format!(
                            "block {} starts below the value before it or overflows",
                            row / DELTA_BLOCK
                        ));
                        return;
                    }
                }
            } else {
                match value.checked_add(step) {
                    Some(next) => {
                        runs += usize::from(step != 0);
                        value = next;
                    }
                    None => {
                        failed = Some(format!("row {row} overflows 64 bits"));
                        return;
                    }
                }
            }
        }
    })?;
    match failed {
        Some(reason) => Err(malformed("delta", reason)),
        None => Ok((value, runs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Predicate, Scalar, Values};
    use proptest::prelude::*;

    const LENGTHS: [usize; 7] = [0, 1, 63, 64, 65, 1023, 1025];

    fn round_trip(column: &Column) -> Column {
        let parts = column.to_parts();
        let buffers: Vec<&[u8]> = parts.buffers.iter().map(|b| b.as_ref()).collect();
        // Whole 64-bit words per array, where the packed size counts bytes.
        let arrays = column.memory_report().parts.len();
        assert!(
            parts.buffer_bytes() <= column.packed_bytes() + 8 * arrays,
            "{} buffer bytes for {} packed",
            parts.buffer_bytes(),
            column.packed_bytes()
        );
        Column::from_parts(&parts.header, &buffers, &ColumnOptions::new()).unwrap()
    }

    fn same(a: &Column, b: &Column) {
        assert_eq!(a.data_type(), b.data_type());
        assert_eq!(a.encoding_kind(), b.encoding_kind());
        assert_eq!(a.len(), b.len());
        assert_eq!(a.null_count(), b.null_count());
        let (x, y) = (a.unpack(0..a.len()).unwrap(), b.unpack(0..b.len()).unwrap());
        match (&x.values, &y.values) {
            (Values::Float64(p), Values::Float64(q)) => {
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(p), bits(q));
            }
            (p, q) => assert_eq!(p, q),
        }
        assert_eq!(x.validity, y.validity);
        assert_eq!(a.packed_bytes(), b.packed_bytes());
        assert_eq!(
            format!("{:?}", a.min_max().unwrap()),
            format!("{:?}", b.min_max().unwrap())
        );
        if !matches!(a.data_type(), DataType::Date32 | DataType::Utf8) {
            assert_eq!(
                format!("{:?}", a.sum().unwrap()),
                format!("{:?}", b.sum().unwrap())
            );
        }
        assert_eq!(
            a.filter(&Predicate::IsNull).unwrap().row_ids(),
            b.filter(&Predicate::IsNull).unwrap().row_ids()
        );
        if let Some(v) = x.scalar(a.len() / 2) {
            if !v.is_null() {
                let p = Predicate::Eq(v);
                assert_eq!(
                    a.filter(&p).unwrap().row_ids(),
                    b.filter(&p).unwrap().row_ids()
                );
            }
        }
    }

    fn forced(kind: EncodingKind) -> ColumnOptions {
        ColumnOptions::new().encoding(kind)
    }

    fn keys_for(len: usize, seed: u64) -> Vec<u64> {
        (0..len as u64)
            .map(|i| 1_000 + (i / 7) * 3 + (i.wrapping_mul(seed | 1) >> 3) % 5)
            .collect()
    }

    #[test]
    fn every_encoding_and_type_round_trips_at_the_edge_lengths() {
        for len in LENGTHS {
            let keys = keys_for(len, 77);
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            for kind in EncodingKind::INTEGER {
                let data = match kind {
                    EncodingKind::Constant => vec![42u64; len],
                    EncodingKind::Delta => sorted.clone(),
                    _ => keys.clone(),
                };
                let c = Column::from_u64(&data, &forced(kind)).unwrap();
                assert_eq!(c.encoding_kind(), kind);
                same(&c, &round_trip(&c));
                let signed: Vec<i64> = data.iter().map(|&k| k as i64 - 2_000).collect();
                let c = Column::from_i64(&signed, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
                let c = Column::from_decimal(&signed, 2, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
                let days: Vec<i32> = signed.iter().map(|&v| v as i32).collect();
                let c = Column::from_dates(&days, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
                let floats: Vec<f64> = data.iter().map(|&k| k as f64 / 4.0).collect();
                let c = Column::from_f64(&floats, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
                let flags: Vec<bool> = match kind {
                    EncodingKind::Delta => (0..len).map(|i| i > len / 2).collect(),
                    EncodingKind::Constant => vec![true; len],
                    _ => data.iter().map(|&k| k % 2 == 1).collect(),
                };
                let c = Column::from_bool(&flags, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
            }
            let specials = [
                f64::NAN,
                -0.0,
                0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                1.5,
                1e300,
            ];
            let floats: Vec<f64> = (0..len)
                .map(|i| {
                    if i % 9 == 4 {
                        specials[i % 7]
                    } else {
                        (i % 500) as f64 / 100.0
                    }
                })
                .collect();
            for kind in [
                EncodingKind::Alp,
                EncodingKind::BitPacked,
                EncodingKind::Frame,
            ] {
                let c = Column::from_f64(&floats, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
            }
            let long = "ünïcødé ✓ ".repeat(40);
            let strings: Vec<String> = (0..len)
                .map(|i| match i % 5 {
                    0 => String::new(),
                    1 => "ünïcødé".to_string(),
                    2 => long.clone(),
                    _ => format!("https://example.org/items/{}", i % 37),
                })
                .collect();
            for kind in [EncodingKind::Dictionary, EncodingKind::Fsst] {
                let c = Column::from_strs(&strings, &forced(kind)).unwrap();
                assert_eq!(c.encoding_kind(), kind);
                same(&c, &round_trip(&c));
            }
        }
    }

    #[test]
    fn nulls_round_trip() {
        for len in LENGTHS {
            let ints: Vec<Scalar> = (0..len)
                .map(|i| {
                    if i % 3 == 1 {
                        Scalar::Null
                    } else {
                        Scalar::Int64(i as i64 - 50)
                    }
                })
                .collect();
            let strs: Vec<Scalar> = (0..len)
                .map(|i| {
                    if i % 4 == 0 {
                        Scalar::Null
                    } else {
                        Scalar::Utf8(format!("s{}", i % 11))
                    }
                })
                .collect();
            for kind in [
                EncodingKind::Frame,
                EncodingKind::Dictionary,
                EncodingKind::RunEnd,
            ] {
                let c = Column::from_scalars(DataType::Int64, &ints, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
            }
            for kind in [EncodingKind::Dictionary, EncodingKind::Fsst] {
                let c = Column::from_scalars(DataType::Utf8, &strs, &forced(kind)).unwrap();
                same(&c, &round_trip(&c));
            }
            let all_null = vec![Scalar::Null; len];
            for data_type in [
                DataType::UInt64,
                DataType::Int64,
                DataType::Float64,
                DataType::Decimal { scale: 3 },
                DataType::Date32, // its null rows hold the key 0, outside the dates (a fuzz finding)
                DataType::Bool,
                DataType::Utf8,
            ] {
                let c = Column::from_scalars(data_type, &all_null, &ColumnOptions::new()).unwrap();
                same(&c, &round_trip(&c));
            }
        }
    }

    fn parts_of(column: &Column) -> (Vec<u8>, Vec<Vec<u8>>) {
        let parts = column.to_parts();
        (
            parts.header,
            parts.buffers.into_iter().map(|b| b.into_owned()).collect(),
        )
    }

    fn rebuild(header: &[u8], buffers: &[Vec<u8>]) -> Result<Column> {
        let slices: Vec<&[u8]> = buffers.iter().map(|b| b.as_slice()).collect();
        Column::from_parts(header, &slices, &ColumnOptions::new())
    }

    /// Rewrites the header's checksum after a change to its fields.
    fn reseal(header: &mut [u8]) {
        let body = header.len() - 8;
        let sum = checksum(&header[..body]);
        header[body..].copy_from_slice(&sum.to_le_bytes());
    }

    fn malformed_part(result: Result<Column>) -> String {
        match result {
            Err(EncodingError::MalformedParts { part, reason }) => format!("{part}: {reason}"),
            other => panic!("expected MalformedParts, got {other:?}"),
        }
    }

    #[test]
    fn malformed_parts_are_typed_errors() {
        let values: Vec<u64> = (0..1000).map(|i| i % 37 * 1000).collect();
        let column = Column::from_u64(&values, &forced(EncodingKind::Dictionary)).unwrap();
        let (header, buffers) = parts_of(&column);
        assert!(rebuild(&header, &buffers).is_ok());
        // Truncated buffer.
        let mut short = buffers.clone();
        short[0].pop();
        assert!(malformed_part(rebuild(&header, &short)).contains("pack into"));
        // A missing and an extra buffer.
        assert!(malformed_part(rebuild(&header, &buffers[..1])).contains("missing"));
        let mut extra = buffers.clone();
        extra.push(vec![0; 8]);
        assert!(malformed_part(rebuild(&header, &extra)).contains("describes"));
        // Wrong width: the codes' width byte says 7, the buffer holds 6-bit codes.
        let mut wide = header.clone();
        let width_at = 4 + 2 + 3 + 8 + 8 + 1 + 1 + 8;
        assert_eq!(wide[width_at], 6);
        wide[width_at] = 7;
        reseal(&mut wide);
        assert!(malformed_part(rebuild(&wide, &buffers)).contains("bits pack into"));
        wide[width_at] = 65;
        reseal(&mut wide);
        assert!(malformed_part(rebuild(&wide, &buffers)).contains("outside 1..=64"));
        // Code out of range: drop the last dictionary entry.
        let mut fewer = buffers.clone();
        let keep = fewer[1].len() - 8;
        fewer[1].truncate(keep);
        let mut head = header.clone();
        let count_at = width_at + 1 + 1;
        head[count_at..count_at + 8].copy_from_slice(&(fewer[1].len() as u64).to_le_bytes());
        reseal(&mut head);
        assert!(malformed_part(rebuild(&head, &fewer)).contains("has code 36"));
        // Unsorted dictionary.
        let mut unsorted = buffers.clone();
        (0..8).for_each(|i| unsorted[1].swap(i, 8 + i));
        assert!(malformed_part(rebuild(&header, &unsorted)).contains("strictly increasing"));
        // A damaged field without a new checksum, a wrong magic, another version.
        let mut flipped = header.clone();
        flipped[10] ^= 1;
        assert!(malformed_part(rebuild(&flipped, &buffers)).contains("checksum"));
        let mut magic = header.clone();
        magic[0] = b'X';
        assert!(malformed_part(rebuild(&magic, &buffers)).contains("starts with"));
        let mut version = header.clone();
        version[4] = 9;
        assert!(matches!(
            rebuild(&version, &buffers),
            Err(EncodingError::PartsVersion {
                found: 9,
                supported: 1
            })
        ));
        assert!(malformed_part(rebuild(&header[..10], &buffers)).contains("too short"));
    }

    #[test]
    fn bad_strings_and_runs_are_refused() {
        let names = ["apple", "banana", "cherry"];
        let strs: Vec<&str> = (0..100).map(|i| names[i % 3]).collect();
        let column = Column::from_strs(&strs, &forced(EncodingKind::Dictionary)).unwrap();
        let (header, buffers) = parts_of(&column);
        let mut bad = buffers.clone();
        bad[2][0] = 0xff; // not UTF-8
        assert!(malformed_part(rebuild(&header, &bad)).contains("not UTF-8"));
        let mut ends = buffers.clone();
        ends[1][0] = 200; // past the text
        assert!(malformed_part(rebuild(&header, &ends)).contains("outside"));

        let text: Vec<String> = (0..300)
            .map(|i| format!("free text number {i} ü"))
            .collect();
        let column = Column::from_strs(&text, &forced(EncodingKind::Fsst)).unwrap();
        let (header, buffers) = parts_of(&column);
        assert!(rebuild(&header, &buffers).is_ok());
        let mut escape = buffers.clone();
        let last = escape[0].len() - 1;
        escape[0][last] = fsst::ESCAPE_CODE; // an escape with no byte after it, or a new code
        let message = malformed_part(rebuild(&header, &escape));
        assert!(
            message.contains("escape") || message.contains("not UTF-8"),
            "{message}"
        );

        let runs: Vec<u64> = (0..1000).map(|i| i / 100).collect();
        let column = Column::from_u64(&runs, &forced(EncodingKind::RunEnd)).unwrap();
        let (header, buffers) = parts_of(&column);
        let mut ends = buffers.clone();
        ends[0].iter_mut().for_each(|b| *b = 0); // every run ends at 0
        assert!(malformed_part(rebuild(&header, &ends)).contains("does not end after"));

        let sorted: Vec<u64> = (0..1000).map(|i| i * 3).collect();
        let column = Column::from_u64(&sorted, &forced(EncodingKind::Delta)).unwrap();
        let (header, buffers) = parts_of(&column);
        let mut steps = buffers.clone();
        steps[1].iter_mut().for_each(|b| *b = 0xff); // every difference its largest
        assert!(malformed_part(rebuild(&header, &steps)).contains("starts a block"));
    }

    proptest! {
        #[test]
        fn parts_round_trip_against_the_decoded_values(
            values in proptest::collection::vec(any::<i64>(), 0..1100),
            small in proptest::collection::vec(0u64..40, 0..1100),
            kind_index in 0usize..6,
            nulls in proptest::collection::vec(any::<bool>(), 0..1100),
        ) {
            let kind = EncodingKind::INTEGER[kind_index];
            let mut keys = small.clone();
            if kind == EncodingKind::Delta { keys.sort_unstable(); }
            if kind == EncodingKind::Constant { keys.iter_mut().for_each(|k| *k = 5); }
            let c = Column::from_u64(&keys, &forced(kind)).unwrap();
            let back = round_trip(&c);
            prop_assert_eq!(back.unpack(0..keys.len()).unwrap().values, Values::UInt64(keys.clone()));
            let c = Column::from_i64(&values, &ColumnOptions::new()).unwrap();
            let back = round_trip(&c);
            prop_assert_eq!(back.unpack(0..values.len()).unwrap().values, Values::Int64(values.clone()));
            let floats: Vec<f64> = values.iter().map(|&v| f64::from_bits(v as u64)).collect();
            let c = Column::from_f64(&floats, &ColumnOptions::new()).unwrap();
            let back = round_trip(&c);
            let Values::Float64(got) = back.unpack(0..floats.len()).unwrap().values else { panic!() };
            prop_assert!(got.iter().zip(&floats).all(|(a, b)| a.to_bits() == b.to_bits()));
            let scalars: Vec<Scalar> = small.iter().zip(nulls.iter().chain(std::iter::repeat(&false)))
                .map(|(&v, &null)| if null { Scalar::Null } else { Scalar::Utf8(format!("v{v}")) })
                .collect();
            let c = Column::from_scalars(DataType::Utf8, &scalars, &ColumnOptions::new()).unwrap();
            let back = round_trip(&c);
            for (i, s) in scalars.iter().enumerate() {
                prop_assert_eq!(back.get(i).unwrap(), s.clone());
            }
        }
    }
}
