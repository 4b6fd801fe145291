//! The typed vocabulary of columns: [`DataType`], one value ([`Scalar`]), decoded values
//! ([`Values`], [`Canonical`]), sums ([`Sum`]) and [`Statistics`].

use std::fmt;

use crate::date;
use crate::decimal;
use crate::error::{EncodingError, Result};

/// A column's logical type.
///
/// # Example
/// ```
/// use smartarrays_encodings::DataType;
/// assert_eq!(DataType::Decimal { scale: 2 }.to_string(), "Decimal(scale 2)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// Unsigned 64-bit integers.
    UInt64,
    /// Signed 64-bit integers.
    Int64,
    /// IEEE doubles (every bit pattern kept).
    Float64,
    /// Exact decimals: a signed 64-bit unscaled integer and `scale` digits after the point.
    Decimal {
        /// Digits after the decimal point (0..=18).
        scale: u8,
    },
    /// Dates as days since 1970-01-01 (signed 32-bit).
    Date32,
    /// UTF-8 strings.
    Utf8,
    /// Booleans.
    Bool,
}

impl DataType {
    /// The two bytes that name this type in the column wire format ([`crate::parts`]) and in
    /// stored tables: a type code (0 `UInt64`, 1 `Int64`, 2 `Float64`, 3 `Decimal`, 4 `Date32`,
    /// 5 `Utf8`, 6 `Bool`) and the decimal scale (0 for the other types).
    ///
    /// # Example
    /// ```
    /// use smartarrays_encodings::DataType;
    /// let decimal = DataType::Decimal { scale: 2 };
    /// assert_eq!(decimal.code(), (3, 2));
    /// assert_eq!(DataType::from_code(3, 2), Some(decimal));
    /// assert_eq!(DataType::from_code(7, 0), None);
    /// ```
    pub fn code(self) -> (u8, u8) {
        match self {
            DataType::UInt64 => (0, 0),
            DataType::Int64 => (1, 0),
            DataType::Float64 => (2, 0),
            DataType::Decimal { scale } => (3, scale),
            DataType::Date32 => (4, 0),
            DataType::Utf8 => (5, 0),
            DataType::Bool => (6, 0),
        }
    }

    /// The type [`DataType::code`] names: `None` for an unknown code or a decimal scale past
    /// [`crate::decimal::MAX_SCALE`].
    pub fn from_code(code: u8, scale: u8) -> Option<DataType> {
        Some(match code {
            0 => DataType::UInt64,
            1 => DataType::Int64,
            2 => DataType::Float64,
            3 if scale <= crate::decimal::MAX_SCALE => DataType::Decimal { scale },
            4 => DataType::Date32,
            5 => DataType::Utf8,
            6 => DataType::Bool,
            _ => return None,
        })
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::UInt64 => write!(f, "UInt64"),
            DataType::Int64 => write!(f, "Int64"),
            DataType::Float64 => write!(f, "Float64"),
            DataType::Decimal { scale } => write!(f, "Decimal(scale {scale})"),
            DataType::Date32 => write!(f, "Date32"),
            DataType::Utf8 => write!(f, "Utf8"),
            DataType::Bool => write!(f, "Bool"),
        }
    }
}

/// An encoding, as the compressor and [`ColumnOptions::encoding`](crate::ColumnOptions::encoding)
/// name it. Which apply depends on the type: the first five on every type but Utf8 (on Float64
/// the bit patterns in IEEE total order, so `BitPacked` is plain 64-bit doubles), `Alp` on
/// Float64, `Dictionary` and `Fsst` on Utf8.
///
/// # Example
/// ```
/// use smartarrays_encodings::EncodingKind;
/// assert_eq!(EncodingKind::RunEnd.name(), "run_end");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodingKind {
    /// [`BitPacked`](crate::BitPacked).
    BitPacked,
    /// [`Frame`](crate::Frame).
    Frame,
    /// [`Dictionary`](crate::Dictionary) (or a string dictionary).
    Dictionary,
    /// [`RunEnd`](crate::RunEnd).
    RunEnd,
    /// [`Delta`](crate::Delta) (non-decreasing keys).
    Delta,
    /// [`Constant`](crate::Constant).
    Constant,
    /// ALP decimal encoding of doubles ([`Alp`](crate::float::Alp)).
    Alp,
    /// FSST-compressed strings ([`FsstStrings`](crate::strings::FsstStrings)).
    Fsst,
}

impl EncodingKind {
    /// The encodings of integer keys, in the compressor's order of preference on ties.
    pub const INTEGER: [EncodingKind; 6] = [
        EncodingKind::Constant,
        EncodingKind::BitPacked,
        EncodingKind::Frame,
        EncodingKind::Delta,
        EncodingKind::RunEnd,
        EncodingKind::Dictionary,
    ];

    /// The encoding's name.
    pub fn name(self) -> &'static str {
        match self {
            EncodingKind::BitPacked => "bitpacked",
            EncodingKind::Frame => "frame",
            EncodingKind::Dictionary => "dictionary",
            EncodingKind::RunEnd => "run_end",
            EncodingKind::Delta => "delta",
            EncodingKind::Constant => "constant",
            EncodingKind::Alp => "alp",
            EncodingKind::Fsst => "fsst",
        }
    }
}

impl fmt::Display for EncodingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One typed value, or null.
///
/// Equality is bit-exact for doubles (`NaN == NaN` with the same payload, `-0.0 != 0.0`), as
/// the columns keep every bit pattern.
///
/// # Example
/// ```
/// use smartarrays_encodings::Scalar;
/// assert_eq!(Scalar::from(5u64), Scalar::UInt64(5));
/// assert_eq!(Scalar::from(f64::NAN), Scalar::Float64(f64::NAN));
/// assert_ne!(Scalar::from(-0.0), Scalar::from(0.0));
/// assert_eq!(Scalar::Decimal { unscaled: -1205, scale: 2 }.to_string(), "-12.05");
/// assert_eq!(Scalar::Date32(19_000).to_string(), "2022-01-08");
/// ```
#[derive(Clone, Debug)]
pub enum Scalar {
    /// No value.
    Null,
    /// An unsigned integer.
    UInt64(u64),
    /// A signed integer.
    Int64(i64),
    /// A double.
    Float64(f64),
    /// An exact decimal `unscaled / 10^scale`.
    Decimal {
        /// The value times `10^scale`.
        unscaled: i64,
        /// Digits after the point.
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date32(i32),
    /// A string.
    Utf8(String),
    /// A boolean.
    Bool(bool),
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Scalar) -> bool {
        use Scalar::*;
        match (self, other) {
            (Null, Null) => true,
            (UInt64(a), UInt64(b)) => a == b,
            (Int64(a), Int64(b)) => a == b,
            (Float64(a), Float64(b)) => a.to_bits() == b.to_bits(),
            (
                Decimal {
                    unscaled: a,
                    scale: s,
                },
                Decimal {
                    unscaled: b,
                    scale: t,
                },
            ) => a == b && s == t,
            (Date32(a), Date32(b)) => a == b,
            (Utf8(a), Utf8(b)) => a == b,
            (Bool(a), Bool(b)) => a == b,
            _ => false,
        }
    }
}

impl Scalar {
    /// The value's type (`None` for null).
    pub fn data_type(&self) -> Option<DataType> {
        Some(match self {
            Scalar::Null => return None,
            Scalar::UInt64(_) => DataType::UInt64,
            Scalar::Int64(_) => DataType::Int64,
            Scalar::Float64(_) => DataType::Float64,
            Scalar::Decimal { scale, .. } => DataType::Decimal { scale: *scale },
            Scalar::Date32(_) => DataType::Date32,
            Scalar::Utf8(_) => DataType::Utf8,
            Scalar::Bool(_) => DataType::Bool,
        })
    }

    /// Whether this is null.
    pub fn is_null(&self) -> bool {
        matches!(self, Scalar::Null)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Null => write!(f, "NULL"),
            Scalar::UInt64(v) => write!(f, "{v}"),
            Scalar::Int64(v) => write!(f, "{v}"),
            Scalar::Float64(v) => write!(f, "{v}"),
            Scalar::Decimal { unscaled, scale } => {
                write!(f, "{}", decimal::format(i128::from(*unscaled), *scale))
            }
            Scalar::Date32(days) => write!(f, "{}", date::format(*days)),
            Scalar::Utf8(v) => write!(f, "{v}"),
            Scalar::Bool(v) => write!(f, "{v}"),
        }
    }
}

impl From<u64> for Scalar {
    fn from(value: u64) -> Scalar {
        Scalar::UInt64(value)
    }
}
impl From<i64> for Scalar {
    fn from(value: i64) -> Scalar {
        Scalar::Int64(value)
    }
}
impl From<f64> for Scalar {
    fn from(value: f64) -> Scalar {
        Scalar::Float64(value)
    }
}
impl From<bool> for Scalar {
    fn from(value: bool) -> Scalar {
        Scalar::Bool(value)
    }
}
impl From<&str> for Scalar {
    fn from(value: &str) -> Scalar {
        Scalar::Utf8(value.to_string())
    }
}
impl From<String> for Scalar {
    fn from(value: String) -> Scalar {
        Scalar::Utf8(value)
    }
}
impl<T: Into<Scalar>> From<Option<T>> for Scalar {
    fn from(value: Option<T>) -> Scalar {
        value.map_or(Scalar::Null, Into::into)
    }
}

/// Decoded values of one type, the canonical form every encoding decodes to. Null rows hold an
/// arbitrary valid value of the column (see [`Canonical::validity`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Unsigned integers.
    UInt64(Vec<u64>),
    /// Signed integers.
    Int64(Vec<i64>),
    /// Doubles.
    Float64(Vec<f64>),
    /// Unscaled decimals with their scale.
    Decimal {
        /// The values times `10^scale`.
        unscaled: Vec<i64>,
        /// Digits after the point.
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date32(Vec<i32>),
    /// Strings.
    Utf8(Vec<String>),
    /// Booleans.
    Bool(Vec<bool>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::UInt64(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float64(v) => v.len(),
            Values::Decimal { unscaled, .. } => unscaled.len(),
            Values::Date32(v) => v.len(),
            Values::Utf8(v) => v.len(),
            Values::Bool(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `index` as a scalar (`None` past the end).
    pub fn scalar(&self, index: usize) -> Option<Scalar> {
        Some(match self {
            Values::UInt64(v) => Scalar::UInt64(*v.get(index)?),
            Values::Int64(v) => Scalar::Int64(*v.get(index)?),
            Values::Float64(v) => Scalar::Float64(*v.get(index)?),
            Values::Decimal { unscaled, scale } => Scalar::Decimal {
                unscaled: *unscaled.get(index)?,
                scale: *scale,
            },
            Values::Date32(v) => Scalar::Date32(*v.get(index)?),
            Values::Utf8(v) => Scalar::Utf8(v.get(index)?.clone()),
            Values::Bool(v) => Scalar::Bool(*v.get(index)?),
        })
    }
}

/// Decoded rows: the values and, when the column has nulls, which rows are valid.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Canonical, Column, DataType, Scalar, Values};
/// let column = Column::from_scalars(DataType::Int64, &[Scalar::Int64(-4), Scalar::Null], &Default::default()).unwrap();
/// let rows = column.unpack(0..2).unwrap();
/// assert_eq!(rows.validity, Some(vec![true, false]));
/// assert_eq!(rows.scalar(0), Some(Scalar::Int64(-4)));
/// assert_eq!(rows.scalar(1), Some(Scalar::Null));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Canonical {
    /// The values (null rows hold an arbitrary valid value).
    pub values: Values,
    /// `Some` when the column has nulls: `true` for a valid row.
    pub validity: Option<Vec<bool>>,
}

impl Canonical {
    /// Row `index` as a scalar, null when invalid (`None` past the end).
    pub fn scalar(&self, index: usize) -> Option<Scalar> {
        let value = self.values.scalar(index)?;
        match &self.validity {
            Some(valid) if !valid[index] => Some(Scalar::Null),
            _ => Some(value),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// An exact sum, in a type that cannot overflow for any column (128 bits for integers and
/// decimals; doubles are summed as doubles in row order).
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, Sum};
/// let column = Column::from_u64(&[u64::MAX, u64::MAX], &Default::default()).unwrap();
/// assert_eq!(column.sum().unwrap(), Sum::UInt(2 * u64::MAX as u128));
/// assert!(column.sum().unwrap().to_u64().is_err()); // leaves u64: an error, not a wrap
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sum {
    /// Sum of unsigned integers (or the number of `true` values).
    UInt(u128),
    /// Sum of signed integers.
    Int(i128),
    /// Sum of decimals, at the column's scale.
    Decimal {
        /// The sum times `10^scale`.
        unscaled: i128,
        /// Digits after the point.
        scale: u8,
    },
    /// Sum of doubles.
    Float(f64),
}

impl Sum {
    /// The sum as a `u64`, or [`EncodingError::SumOverflow`] when it does not fit (or is
    /// negative, fractional or a double).
    pub fn to_u64(self) -> Result<u64> {
        let fits = match self {
            Sum::UInt(v) => u64::try_from(v).ok(),
            Sum::Int(v)
            | Sum::Decimal {
                unscaled: v,
                scale: 0,
            } => u64::try_from(v).ok(),
            _ => None,
        };
        fits.ok_or_else(|| self.overflow("u64"))
    }

    /// The sum as an `i64`, or [`EncodingError::SumOverflow`] when it does not fit.
    pub fn to_i64(self) -> Result<i64> {
        let fits = match self {
            Sum::UInt(v) => i64::try_from(v).ok(),
            Sum::Int(v)
            | Sum::Decimal {
                unscaled: v,
                scale: 0,
            } => i64::try_from(v).ok(),
            _ => None,
        };
        fits.ok_or_else(|| self.overflow("i64"))
    }

    /// A decimal sum as an unscaled `i64` at the column's scale (a Decimal column's own type),
    /// or [`EncodingError::SumOverflow`].
    pub fn to_decimal64(self) -> Result<i64> {
        match self {
            Sum::Decimal { unscaled, .. } => {
                i64::try_from(unscaled).map_err(|_| self.overflow("a 64-bit decimal"))
            }
            _ => Err(self.overflow("a 64-bit decimal")),
        }
    }

    fn overflow(self, target: &'static str) -> EncodingError {
        let sum = match self {
            Sum::UInt(v) => v.to_string(),
            Sum::Int(v) => v.to_string(),
            Sum::Decimal { unscaled, scale } => decimal::format(unscaled, scale),
            Sum::Float(v) => v.to_string(),
        };
        EncodingError::SumOverflow { sum, target }
    }
}

/// What a column holds, in brief.
///
/// # Example
/// ```
/// use smartarrays_encodings::{Column, Scalar};
/// let stats = Column::from_i64(&[3, 3, -1, 7], &Default::default()).unwrap().statistics().unwrap();
/// assert_eq!((stats.min, stats.max), (Some(Scalar::Int64(-1)), Some(Scalar::Int64(7))));
/// assert_eq!((stats.distinct_estimate, stats.run_count, stats.null_count), (3, 3, 0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Statistics {
    /// Smallest valid value (`None` when there is none).
    pub min: Option<Scalar>,
    /// Largest valid value.
    pub max: Option<Scalar>,
    /// Number of distinct valid values: exact for dictionaries, constants and up to 1024
    /// values; a k-minimum-values estimate (about 3% error) above.
    pub distinct_estimate: u64,
    /// Number of runs of equal neighbours (null rows count as holding the smallest value).
    pub run_count: usize,
    /// Number of null rows.
    pub null_count: usize,
}
