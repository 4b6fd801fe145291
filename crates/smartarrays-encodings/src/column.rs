//! `Column`: one typed column over the encodings, with nulls. Every integer-like type (and
//! doubles outside ALP) is stored as 64-bit order-preserving keys (see
//! [`kernel`](crate::kernel)) in one of the integer encodings, chosen by the sampling
//! compressor ([`compress`]) unless the caller names one.

use std::ops::{Bound, Range};

use smartarrays::{ArrayOptions, Placement, PlacementReport, SmartArray};

use crate::compress::{self, Explanation};
use crate::decimal;
use crate::error::{check_indices, check_range, EncodingError, Result};
use crate::float::Alp;
use crate::integer::{IntEncoding, KeyEncoding};
use crate::kernel::{f64_from_key, i64_from_key, key_from_f64, key_from_i64, KeyFilter, BLOCK};
use crate::memory::{MemoryPart, MemoryReport};
use crate::predicate::LikePattern;
use crate::predicate::Predicate;
use crate::selection::Selection;
use crate::strings::{StrFilter, StringEncoding};
use crate::types::{Canonical, DataType, EncodingKind, Scalar, Statistics, Sum, Values};
use crate::validity::Validity;

/// How to build a column: the smart arrays' options (placement, huge pages, runtime; their
/// width rule is ignored, encodings choose their own widths), and optionally the encoding.
///
/// # Example
/// ```
/// use smartarrays::{ArrayOptions, Placement};
/// use smartarrays_encodings::{Column, ColumnOptions, EncodingKind};
/// let options = ColumnOptions::new()
///     .array(ArrayOptions::new().placement(Placement::Interleaved(vec![])))
///     .encoding(EncodingKind::Dictionary);
/// let column = Column::from_u64(&[10, 20, 10], &options).unwrap();
/// assert_eq!(column.explanation().chosen, EncodingKind::Dictionary);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ColumnOptions {
    /// Options of every smart array under the column.
    pub array: ArrayOptions,
    /// The encoding to build (`None`: the compressor chooses).
    pub encoding: Option<EncodingKind>,
    /// Build every candidate and keep the smallest real one (slower; exact choice and an
    /// explanation with every candidate's real size).
    pub measure_all: bool,
}

impl ColumnOptions {
    /// Defaults: OS placement, the compressor chooses from a sample.
    pub fn new() -> ColumnOptions {
        ColumnOptions::default()
    }

    /// Sets the smart arrays' options.
    pub fn array(mut self, array: ArrayOptions) -> ColumnOptions {
        self.array = array;
        self
    }

    /// Sets the placement of every smart array under the column.
    pub fn placement(mut self, placement: Placement) -> ColumnOptions {
        self.array = self.array.placement(placement);
        self
    }

    /// Builds this encoding instead of choosing one.
    pub fn encoding(mut self, kind: EncodingKind) -> ColumnOptions {
        self.encoding = Some(kind);
        self
    }

    /// Builds every candidate and keeps the smallest.
    pub fn measure_all(mut self, measure_all: bool) -> ColumnOptions {
        self.measure_all = measure_all;
        self
    }
}

/// The encoded data of a column.
#[derive(Debug)]
pub enum Encoding {
    /// Order-preserving 64-bit keys in an integer encoding.
    Keys(IntEncoding),
    /// Doubles in ALP's decimal encoding.
    Alp(Alp),
    /// Strings.
    Strings(StringEncoding),
}

impl Encoding {
    fn keyed(&self) -> Option<&dyn KeyEncoding> {
        match self {
            Encoding::Keys(encoding) => Some(encoding.as_dyn()),
            Encoding::Alp(alp) => Some(alp),
            Encoding::Strings(_) => None,
        }
    }

    /// The encoding's kind.
    pub fn kind(&self) -> EncodingKind {
        match self {
            Encoding::Keys(encoding) => encoding.kind(),
            Encoding::Alp(_) => EncodingKind::Alp,
            Encoding::Strings(StringEncoding::Dictionary(_)) => EncodingKind::Dictionary,
            Encoding::Strings(StringEncoding::Fsst(_)) => EncodingKind::Fsst,
        }
    }

    pub(crate) fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        match self {
            Encoding::Keys(encoding) => encoding.as_dyn().arrays(),
            Encoding::Alp(alp) => alp.arrays(),
            Encoding::Strings(strings) => strings.arrays(),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Encoding::Keys(encoding) => encoding.as_dyn().heap_bytes(),
            Encoding::Alp(alp) => alp.heap_bytes(),
            Encoding::Strings(strings) => strings.heap_bytes(),
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

/// A typed, compressed column: values of one [`DataType`], an encoding chosen by the sampling
/// compressor, and optionally a null bitmap.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, ColumnOptions, Predicate, Scalar, Sum};
/// let prices: Vec<i64> = (0..5000).map(|i| 10_000 + (i * 37) % 2000).collect();
/// let column = Column::from_i64(&prices, &ColumnOptions::new()).unwrap();
/// assert_eq!(column.get(1).unwrap(), Scalar::Int64(10_037));
/// assert_eq!(column.sum().unwrap(), Sum::Int(prices.iter().map(|&p| p as i128).sum()));
/// let cheap = column.filter(&Predicate::range(..10_100i64)).unwrap();
/// assert_eq!(cheap.count(), prices.iter().filter(|&&p| p < 10_100).count());
/// println!("{}", column.explanation());
/// println!("{}", column.memory_report());
/// ```
#[derive(Debug)]
pub struct Column {
    pub(crate) data_type: DataType,
    pub(crate) len: usize,
    pub(crate) encoding: Encoding,
    pub(crate) validity: Option<Validity>,
    /// The key stored in null rows (the smallest valid key).
    pub(crate) fill: u64,
    pub(crate) explanation: Explanation,
    pub(crate) placement: Placement,
}

impl Column {
    /// A UInt64 column.
    pub fn from_u64(values: &[u64], options: &ColumnOptions) -> Result<Column> {
        Column::from_keys(DataType::UInt64, values.to_vec(), None, options)
    }

    /// An Int64 column.
    pub fn from_i64(values: &[i64], options: &ColumnOptions) -> Result<Column> {
        let keys = values.iter().map(|&v| key_from_i64(v)).collect();
        Column::from_keys(DataType::Int64, keys, None, options)
    }

    /// A Float64 column (every bit pattern kept: NaN payloads, -0.0, infinities), ALP-encoded
    /// when that is smallest.
    pub fn from_f64(values: &[f64], options: &ColumnOptions) -> Result<Column> {
        let keys = values.iter().map(|&v| key_from_f64(v)).collect();
        Column::from_keys(DataType::Float64, keys, None, options)
    }

    /// A Bool column.
    pub fn from_bool(values: &[bool], options: &ColumnOptions) -> Result<Column> {
        let keys = values.iter().map(|&v| u64::from(v)).collect();
        Column::from_keys(DataType::Bool, keys, None, options)
    }

    /// A Decimal column of unscaled values at `scale` (0..=18): `1234` at scale 2 is `12.34`.
    /// See [`decimal::parse`] to read them from text exactly.
    pub fn from_decimal(unscaled: &[i64], scale: u8, options: &ColumnOptions) -> Result<Column> {
        decimal::check_scale(scale)?;
        let keys = unscaled.iter().map(|&v| key_from_i64(v)).collect();
        Column::from_keys(DataType::Decimal { scale }, keys, None, options)
    }

    /// A Date32 column of days since 1970-01-01 (see [`date`](crate::date) for conversions).
    pub fn from_dates(days: &[i32], options: &ColumnOptions) -> Result<Column> {
        let keys = days.iter().map(|&d| key_from_i64(i64::from(d))).collect();
        Column::from_keys(DataType::Date32, keys, None, options)
    }

    /// A Utf8 column.
    ///
    /// # Example
    /// ```
    /// use smartarrays_encodings::{Column, EncodingKind, Predicate};
    /// let flags: Vec<&str> = (0..1000).map(|i| ["A", "N", "R"][i % 3]).collect();
    /// let column = Column::from_strs(&flags, &Default::default()).unwrap();
    /// assert_eq!(column.encoding_kind(), EncodingKind::Dictionary);
    /// assert_eq!(column.filter(&Predicate::like("_")).unwrap().count(), 1000);
    /// assert_eq!(column.filter(&Predicate::eq("N")).unwrap().count(), 333);
    /// ```
    pub fn from_strs<S: AsRef<str>>(values: &[S], options: &ColumnOptions) -> Result<Column> {
        let strings = values.iter().map(|s| s.as_ref().to_string()).collect();
        Column::from_strings(strings, None, options)
    }

    fn from_strings(
        mut strings: Vec<String>,
        valid: Option<Vec<bool>>,
        options: &ColumnOptions,
    ) -> Result<Column> {
        let valid = valid.filter(|v| v.iter().any(|&ok| !ok));
        if let Some(valid) = &valid {
            let fill = strings
                .iter()
                .zip(valid)
                .filter(|(_, &ok)| ok)
                .map(|(s, _)| s)
                .min()
                .cloned()
                .unwrap_or_default();
            strings
                .iter_mut()
                .zip(valid)
                .filter(|(_, &ok)| !ok)
                .for_each(|(s, _)| s.clone_from(&fill));
        }
        let (encoding, explanation) = compress::choose_strings(&strings, options)?;
        Column::assemble(
            DataType::Utf8,
            strings.len(),
            Encoding::Strings(encoding),
            valid,
            0,
            explanation,
            options,
        )
    }

    /// A column of any type from scalars, [`Scalar::Null`] for nulls; a scalar of another
    /// type is an [`EncodingError::TypeMismatch`].
    ///
    /// # Example
    /// ```
    /// use smartarrays_encodings::{Column, DataType, Scalar};
    /// let column = Column::from_scalars(DataType::UInt64, &[Scalar::Null, Scalar::UInt64(9)], &Default::default()).unwrap();
    /// assert_eq!(column.get(0).unwrap(), Scalar::Null);
    /// assert_eq!(column.statistics().unwrap().null_count, 1);
    /// assert!(Column::from_scalars(DataType::UInt64, &[Scalar::Int64(1)], &Default::default()).is_err());
    /// ```
    pub fn from_scalars(
        data_type: DataType,
        values: &[Scalar],
        options: &ColumnOptions,
    ) -> Result<Column> {
        if let DataType::Decimal { scale } = data_type {
            decimal::check_scale(scale)?;
        }
        let valid: Vec<bool> = values.iter().map(|v| !v.is_null()).collect();
        if data_type == DataType::Utf8 {
            let mut strings = Vec::with_capacity(values.len());
            for value in values {
                strings.push(match value {
                    Scalar::Utf8(s) => s.clone(),
                    Scalar::Null => String::new(),
                    other => {
                        return Err(EncodingError::TypeMismatch {
                            expected: DataType::Utf8,
                            found: other.data_type().unwrap_or(DataType::Utf8),
                        })
                    }
                });
            }
            return Column::from_strings(strings, Some(valid), options);
        }
        let mut keys = Vec::with_capacity(values.len());
        for value in values {
            keys.push(key_of(data_type, value)?.unwrap_or(0));
        }
        Column::from_keys(data_type, keys, Some(valid), options)
    }

    fn from_keys(
        data_type: DataType,
        mut keys: Vec<u64>,
        valid: Option<Vec<bool>>,
        options: &ColumnOptions,
    ) -> Result<Column> {
        let valid = valid.filter(|v| v.iter().any(|&ok| !ok));
        let mut fill = 0;
        if let Some(valid) = &valid {
            fill = keys
                .iter()
                .zip(valid)
                .filter(|(_, &ok)| ok)
                .map(|(&k, _)| k)
                .min()
                .unwrap_or(0);
            keys.iter_mut()
                .zip(valid)
                .filter(|(_, &ok)| !ok)
                .for_each(|(k, _)| *k = fill);
        }
        let (encoding, explanation) = if data_type == DataType::Float64 {
            let values: Vec<f64> = keys.iter().map(|&k| f64_from_key(k)).collect();
            compress::choose_float(&values, &keys, options)?
        } else {
            let (encoding, explanation) = compress::choose_int(&keys, options)?;
            (Encoding::Keys(encoding), explanation)
        };
        Column::assemble(
            data_type,
            keys.len(),
            encoding,
            valid,
            fill,
            explanation,
            options,
        )
    }

    fn assemble(
        data_type: DataType,
        len: usize,
        encoding: Encoding,
        valid: Option<Vec<bool>>,
        fill: u64,
        explanation: Explanation,
        options: &ColumnOptions,
    ) -> Result<Column> {
        let validity = valid
            .map(|valid| Validity::new(&valid, &options.array))
            .transpose()?;
        let placement = encoding
            .arrays()
            .first()
            .map(|(_, array)| array.placement().clone())
            .unwrap_or_else(|| options.array.placement.clone());
        Ok(Column {
            data_type,
            len,
            encoding,
            validity,
            fill,
            explanation,
            placement,
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The column's type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The encoded data.
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// The encoding's kind.
    pub fn encoding_kind(&self) -> EncodingKind {
        self.encoding.kind()
    }

    /// The null bitmap, when the column has nulls.
    pub fn validity(&self) -> Option<&Validity> {
        self.validity.as_ref()
    }

    /// Number of null rows.
    pub fn null_count(&self) -> usize {
        self.validity.as_ref().map_or(0, Validity::null_count)
    }

    /// Why the column has its encoding: every candidate's estimated and real size.
    pub fn explanation(&self) -> &Explanation {
        &self.explanation
    }

    /// The placement of the column's smart arrays (the advisor's choice when it was auto).
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The key encoding, for every type but Utf8.
    fn keys(&self, operation: &'static str) -> Result<&dyn KeyEncoding> {
        self.encoding.keyed().ok_or(EncodingError::Unsupported {
            operation,
            data_type: self.data_type,
        })
    }

    fn scalar_of_key(&self, key: u64) -> Scalar {
        match self.data_type {
            DataType::UInt64 => Scalar::UInt64(key),
            DataType::Int64 => Scalar::Int64(i64_from_key(key)),
            DataType::Float64 => Scalar::Float64(f64_from_key(key)),
            DataType::Decimal { scale } => Scalar::Decimal {
                unscaled: i64_from_key(key),
                scale,
            },
            DataType::Date32 => Scalar::Date32(i64_from_key(key) as i32),
            DataType::Bool => Scalar::Bool(key != 0),
            DataType::Utf8 => Scalar::Null,
        }
    }

    fn values_of_keys(&self, keys: Vec<u64>) -> Values {
        match self.data_type {
            DataType::UInt64 => Values::UInt64(keys),
            DataType::Int64 => Values::Int64(keys.into_iter().map(i64_from_key).collect()),
            DataType::Float64 => Values::Float64(keys.into_iter().map(f64_from_key).collect()),
            DataType::Decimal { scale } => Values::Decimal {
                unscaled: keys.into_iter().map(i64_from_key).collect(),
                scale,
            },
            DataType::Date32 => {
                Values::Date32(keys.into_iter().map(|k| i64_from_key(k) as i32).collect())
            }
            DataType::Bool => Values::Bool(keys.into_iter().map(|k| k != 0).collect()),
            DataType::Utf8 => Values::Utf8(Vec::new()),
        }
    }

    /// Row `index` (null for a null row).
    pub fn get(&self, index: usize) -> Result<Scalar> {
        check_indices(&[index], self.len)?;
        if let Some(validity) = &self.validity {
            if !validity.is_valid(index)? {
                return Ok(Scalar::Null);
            }
        }
        if let Encoding::Strings(strings) = &self.encoding {
            return Ok(Scalar::Utf8(strings.get(index)?));
        }
        let key = self.keys("get")?.get(index)?;
        Ok(self.scalar_of_key(key))
    }

    /// Rows `range`, decoded to their canonical form.
    pub fn unpack(&self, range: Range<usize>) -> Result<Canonical> {
        check_range(range.start, range.end, self.len)?;
        let values = if let Encoding::Strings(strings) = &self.encoding {
            Values::Utf8(strings.unpack(range.start, range.len())?)
        } else {
            let mut keys = vec![0u64; range.len()];
            self.keys("unpack")?.unpack(range.start, &mut keys)?;
            self.values_of_keys(keys)
        };
        Ok(Canonical {
            values,
            validity: self
                .validity
                .as_ref()
                .map(|v| v.flags(range.start, range.len()))
                .transpose()?,
        })
    }

    /// Calls `visit(first_row, rows)` for consecutive decoded chunks of at most 1024 rows
    /// covering `range`.
    ///
    /// # Example
    /// ```
    /// use smartarrays_encodings::{Column, Values};
    /// let column = Column::from_u64(&vec![3; 3000], &Default::default()).unwrap();
    /// let mut total = 0;
    /// column.for_each_chunk(0..3000, |_, rows| {
    ///     if let Values::UInt64(values) = &rows.values { total += values.iter().sum::<u64>() }
    /// }).unwrap();
    /// assert_eq!(total, 9000);
    /// ```
    pub fn for_each_chunk(
        &self,
        range: Range<usize>,
        mut visit: impl FnMut(usize, &Canonical),
    ) -> Result<()> {
        check_range(range.start, range.end, self.len)?;
        let mut start = range.start;
        while start < range.end {
            let end = (start + BLOCK).min(range.end);
            visit(start, &self.unpack(start..end)?);
            start = end;
        }
        Ok(())
    }

    /// Rows `indices` (any order, repeats allowed; all checked first).
    pub fn take(&self, indices: &[usize]) -> Result<Canonical> {
        check_indices(indices, self.len)?;
        let values = if let Encoding::Strings(strings) = &self.encoding {
            Values::Utf8(strings.take(indices)?)
        } else {
            self.values_of_keys(self.keys("take")?.take(indices)?)
        };
        Ok(Canonical {
            values,
            validity: self
                .validity
                .as_ref()
                .map(|v| v.take(indices))
                .transpose()?,
        })
    }

    /// The rows that pass `predicate`, evaluated on the encoded data: constants are
    /// translated once into the encoding's code space, then packed codes are compared a block
    /// at a time. Null rows never pass (except for [`Predicate::IsNull`]).
    pub fn filter(&self, predicate: &Predicate) -> Result<Selection> {
        match predicate {
            Predicate::IsNull => {
                return Ok(self
                    .validity
                    .as_ref()
                    .map_or_else(|| Selection::none(self.len), |v| v.selection().not()))
            }
            Predicate::IsNotNull => return Ok(self.valid_rows()),
            _ if self.data_type == DataType::Utf8 => {
                let selection = match (self.str_filter(predicate)?, &self.encoding) {
                    (Some(filter), Encoding::Strings(strings)) => strings.filter(&filter)?,
                    _ => Selection::none(self.len),
                };
                return self.and_valid(selection);
            }
            Predicate::Prefix(_) | Predicate::Like(_) => {
                return Err(EncodingError::Unsupported {
                    operation: "a prefix or LIKE filter",
                    data_type: self.data_type,
                })
            }
            _ => {}
        }
        let filter = self.key_filter(predicate)?;
        let selection = self.keys("filter")?.filter(&filter)?;
        self.and_valid(selection)
    }

    fn valid_rows(&self) -> Selection {
        self.validity
            .as_ref()
            .map_or_else(|| Selection::all(self.len), Validity::selection)
    }

    fn and_valid(&self, selection: Selection) -> Result<Selection> {
        match &self.validity {
            Some(validity) => selection.and(&validity.selection()),
            None => Ok(selection),
        }
    }

    /// The predicate on strings (`None`: nothing can match).
    fn str_filter(&self, predicate: &Predicate) -> Result<Option<StrFilter>> {
        let text = |value: &Scalar| -> Result<Option<String>> {
            match value {
                Scalar::Null => Ok(None),
                Scalar::Utf8(s) => Ok(Some(s.clone())),
                other => Err(EncodingError::TypeMismatch {
                    expected: DataType::Utf8,
                    found: other.data_type().unwrap_or(DataType::Utf8),
                }),
            }
        };
        let bound = |b: &Bound<Scalar>| -> Result<Option<Bound<String>>> {
            Ok(match b {
                Bound::Included(v) => text(v)?.map(Bound::Included),
                Bound::Excluded(v) => text(v)?.map(Bound::Excluded),
                Bound::Unbounded => Some(Bound::Unbounded),
            })
        };
        Ok(match predicate {
            Predicate::Eq(value) => text(value)?.map(StrFilter::Eq),
            Predicate::In(values) => {
                let mut list = Vec::with_capacity(values.len());
                for value in values {
                    list.extend(text(value)?);
                }
                list.sort_unstable();
                list.dedup();
                (!list.is_empty()).then_some(StrFilter::In(list))
            }
            Predicate::Range { lo, hi } => match (bound(lo)?, bound(hi)?) {
                (Some(lo), Some(hi)) => Some(StrFilter::Range(lo, hi)),
                _ => None,
            },
            Predicate::Prefix(prefix) => Some(StrFilter::Prefix(prefix.clone())),
            Predicate::Like(pattern) => Some(StrFilter::Like(LikePattern::new(pattern)?)),
            Predicate::IsNull | Predicate::IsNotNull => None,
        })
    }

    /// The predicate in key space.
    fn key_filter(&self, predicate: &Predicate) -> Result<KeyFilter> {
        let key = |value: &Scalar| key_of(self.data_type, value);
        Ok(match predicate {
            Predicate::Eq(value) => match key(value)? {
                Some(k) => KeyFilter::Range { lo: k, hi: k },
                None => KeyFilter::Nothing,
            },
            Predicate::In(values) => {
                let mut keys = Vec::with_capacity(values.len());
                for value in values {
                    keys.extend(key(value)?);
                }
                keys.sort_unstable();
                keys.dedup();
                if keys.is_empty() {
                    KeyFilter::Nothing
                } else {
                    KeyFilter::In(keys)
                }
            }
            Predicate::Range { lo, hi } => {
                let lo = match lo {
                    Bound::Included(v) => key(v)?,
                    Bound::Excluded(v) => key(v)?.and_then(|k| k.checked_add(1)),
                    Bound::Unbounded => Some(0),
                };
                let hi = match hi {
                    Bound::Included(v) => key(v)?,
                    Bound::Excluded(v) => key(v)?.and_then(|k| k.checked_sub(1)),
                    Bound::Unbounded => Some(u64::MAX),
                };
                match (lo, hi) {
                    (Some(lo), Some(hi)) if lo <= hi => KeyFilter::Range { lo, hi },
                    _ => KeyFilter::Nothing,
                }
            }
            _ => KeyFilter::Nothing,
        })
    }

    /// The exact sum of the valid values: 128-bit for integers and decimals (so it cannot
    /// overflow; [`Sum::to_i64`] and friends refuse a sum that leaves a smaller type), the
    /// number of `true` values for Bool, a double sum in row order for Float64.
    /// [`EncodingError::Unsupported`] for dates and strings.
    pub fn sum(&self) -> Result<Sum> {
        if matches!(self.data_type, DataType::Date32 | DataType::Utf8) {
            return Err(EncodingError::Unsupported {
                operation: "sum",
                data_type: self.data_type,
            });
        }
        let keys = self.keys("sum")?;
        let nulls = self.null_count();
        let valid = (self.len - nulls) as u128;
        let key_sum = || keys.sum() - nulls as u128 * u128::from(self.fill);
        let signed = |sum: u128| sum.wrapping_sub(valid << 63) as i128;
        Ok(match self.data_type {
            DataType::UInt64 | DataType::Bool => Sum::UInt(key_sum()),
            DataType::Int64 => Sum::Int(signed(key_sum())),
            DataType::Decimal { scale } => Sum::Decimal {
                unscaled: signed(key_sum()),
                scale,
            },
            DataType::Float64 => {
                let mut total = 0.0;
                self.for_each_chunk(0..self.len, |_, rows| {
                    if let Values::Float64(values) = &rows.values {
                        for (i, v) in values.iter().enumerate() {
                            if rows.validity.as_ref().is_none_or(|valid| valid[i]) {
                                total += v;
                            }
                        }
                    }
                })?;
                Sum::Float(total)
            }
            DataType::Date32 | DataType::Utf8 => {
                return Err(EncodingError::Unsupported {
                    operation: "sum",
                    data_type: self.data_type,
                })
            }
        })
    }

    /// The smallest and largest valid value (doubles in IEEE total order), `None` when there is
    /// none.
    pub fn min_max(&self) -> Result<Option<(Scalar, Scalar)>> {
        if self.null_count() == self.len {
            return Ok(None);
        }
        if let Encoding::Strings(strings) = &self.encoding {
            return Ok(strings
                .min_max()?
                .map(|(lo, hi)| (Scalar::Utf8(lo), Scalar::Utf8(hi))));
        }
        Ok(self
            .keys("min/max")?
            .min_max()
            .map(|(lo, hi)| (self.scalar_of_key(lo), self.scalar_of_key(hi))))
    }

    /// The smallest valid value.
    pub fn min(&self) -> Result<Option<Scalar>> {
        Ok(self.min_max()?.map(|(lo, _)| lo))
    }

    /// The largest valid value.
    pub fn max(&self) -> Result<Option<Scalar>> {
        Ok(self.min_max()?.map(|(_, hi)| hi))
    }

    /// Minimum, maximum, distinct estimate, run count and null count.
    pub fn statistics(&self) -> Result<Statistics> {
        let (min, max) = self.min_max()?.unzip();
        let all_null = self.null_count() == self.len;
        let (distinct, runs) = match (&self.encoding, self.encoding.keyed()) {
            (Encoding::Strings(strings), _) => (strings.distinct_estimate()?, strings.run_count()?),
            (_, Some(keys)) => (keys.distinct_estimate(), keys.run_count()),
            _ => (0, 0),
        };
        Ok(Statistics {
            min,
            max,
            distinct_estimate: if all_null { 0 } else { distinct },
            run_count: runs,
            null_count: self.null_count(),
        })
    }

    fn arrays(&self) -> Vec<(&'static str, &SmartArray)> {
        let mut arrays = self.encoding.arrays();
        if let Some(validity) = &self.validity {
            arrays.push(("validity", validity.array()));
        }
        arrays
    }

    /// Where the memory is and how much: every smart array by role (packed and mapped bytes,
    /// bits, replicas) and the bytes kept outside them.
    pub fn memory_report(&self) -> MemoryReport {
        let heap = self.encoding.heap_bytes();
        MemoryReport::new(
            self.encoding_kind().name(),
            self.len,
            self.arrays()
                .into_iter()
                .map(|(name, array)| MemoryPart::of_array(name, array))
                .chain((heap > 0).then(|| MemoryPart::heap("heap", heap)))
                .collect(),
        )
    }

    /// Bytes of memory the column occupies (every replica, whole pages, plus heap parts).
    pub fn memory_bytes(&self) -> usize {
        self.memory_report().mapped_bytes()
    }

    /// Bytes of the encoded data densely packed in one copy (what the compressor compares).
    pub fn packed_bytes(&self) -> usize {
        self.memory_report().packed_bytes()
    }

    /// Where the pages of every smart array under the column are, by role.
    pub fn placement_report(&self) -> Result<Vec<(String, PlacementReport)>> {
        self.arrays()
            .into_iter()
            .map(|(name, array)| Ok((name.to_string(), array.placement_report()?)))
            .collect()
    }
}

/// The key of `value` in a column of `data_type` (`None` for null).
fn key_of(data_type: DataType, value: &Scalar) -> Result<Option<u64>> {
    let key = match (data_type, value) {
        (_, Scalar::Null) => return Ok(None),
        (DataType::UInt64, Scalar::UInt64(v)) => *v,
        (DataType::Int64, Scalar::Int64(v)) => key_from_i64(*v),
        (DataType::Float64, Scalar::Float64(v)) => key_from_f64(*v),
        (DataType::Decimal { scale }, Scalar::Decimal { unscaled, scale: s }) if *s == scale => {
            key_from_i64(*unscaled)
        }
        (DataType::Date32, Scalar::Date32(d)) => key_from_i64(i64::from(*d)),
        (DataType::Bool, Scalar::Bool(b)) => u64::from(*b),
        (expected, found) => {
            return Err(EncodingError::TypeMismatch {
                expected,
                found: found.data_type().unwrap_or(expected),
            })
        }
    };
    Ok(Some(key))
}
