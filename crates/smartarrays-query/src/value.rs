//! SQL types and values of results: exact decimals as scaled 128-bit integers, dates as day
//! numbers.

use std::cmp::Ordering;
use std::fmt;

use smartarrays_encodings::{date, decimal, DataType};

use crate::error::{QueryError, Result};

/// The type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// 64-bit integers (sums: 128 bits).
    Int,
    /// Exact decimals: an integer of units of 10^-scale.
    Decimal(u8),
    /// Days since 1970-01-01.
    Date,
    /// Text.
    Str,
    /// True or false.
    Bool,
    /// Doubles (averages and divisions).
    Float,
}

impl Type {
    /// The type of a column of `data_type` (`None`: no query runs on it yet).
    pub fn of(data_type: DataType) -> Option<Type> {
        Some(match data_type {
            DataType::Int64 => Type::Int,
            DataType::Decimal { scale } => Type::Decimal(scale),
            DataType::Date32 => Type::Date,
            DataType::Utf8 => Type::Str,
            DataType::Bool => Type::Bool,
            DataType::Float64 => Type::Float,
            DataType::UInt64 => return None,
        })
    }

    /// Whether it is an exact number (integer or decimal).
    pub fn is_exact(self) -> bool {
        matches!(self, Type::Int | Type::Decimal(_))
    }

    /// The scale of an exact number (0 for integers).
    pub fn scale(self) -> u8 {
        match self {
            Type::Decimal(s) => s,
            _ => 0,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int => write!(f, "BIGINT"),
            Type::Decimal(s) => write!(f, "DECIMAL(38,{s})"),
            Type::Date => write!(f, "DATE"),
            Type::Str => write!(f, "VARCHAR"),
            Type::Bool => write!(f, "BOOLEAN"),
            Type::Float => write!(f, "DOUBLE"),
        }
    }
}

/// One value of a result.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL (an aggregate over no rows).
    Null,
    /// An integer.
    Int(i128),
    /// An exact decimal: `unscaled * 10^-scale`.
    Decimal {
        /// The integer of units.
        unscaled: i128,
        /// Digits after the point.
        scale: u8,
    },
    /// A double.
    Float(f64),
    /// Days since 1970-01-01.
    Date(i32),
    /// Text.
    Str(String),
    /// A truth value.
    Bool(bool),
}

/// 10^n as i128 (n <= 38).
pub(crate) fn pow10(n: u32) -> i128 {
    10i128.pow(n)
}

impl Value {
    /// The value as a double (numbers only).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Decimal { unscaled, scale } => {
                Some(*unscaled as f64 / pow10(u32::from(*scale)) as f64)
            }
            Value::Float(v) => Some(*v),
            _ => None,
        }
    }

    /// The value as an exact (unscaled, scale) pair (integers and decimals only).
    pub fn as_exact(&self) -> Option<(i128, u8)> {
        match self {
            Value::Int(v) => Some((*v, 0)),
            Value::Decimal { unscaled, scale } => Some((*unscaled, *scale)),
            _ => None,
        }
    }

    /// Total order for ORDER BY: nulls last, numbers by value (exact when both are exact).
    pub fn sort_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Greater,
            (_, Value::Null) => Ordering::Less,
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (a, b) => match (a.as_exact(), b.as_exact()) {
                (Some((x, sx)), Some((y, sy))) => {
                    let scale = sx.max(sy);
                    let x = x.saturating_mul(pow10(u32::from(scale - sx)));
                    let y = y.saturating_mul(pow10(u32::from(scale - sy)));
                    x.cmp(&y)
                }
                _ => a
                    .as_f64()
                    .unwrap_or(f64::NAN)
                    .total_cmp(&b.as_f64().unwrap_or(f64::NAN)),
            },
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "NULL"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Decimal { unscaled, scale } => {
                write!(f, "{}", decimal::format(*unscaled, *scale))
            }
            Value::Float(v) => write!(f, "{v}"),
            Value::Date(d) => write!(f, "{}", date::format(*d)),
            Value::Str(s) => write!(f, "{s}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A query's result: named, typed columns and rows of values.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultSet {
    /// Column names.
    pub names: Vec<String>,
    /// Column types.
    pub types: Vec<Type>,
    /// The rows.
    pub rows: Vec<Vec<Value>>,
}

impl ResultSet {
    /// The result as an aligned text table.
    pub fn to_table_string(&self) -> String {
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(ToString::to_string).collect())
            .collect();
        let mut widths: Vec<usize> = self.names.iter().map(String::len).collect();
        for row in &cells {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.len());
            }
        }
        let line = |values: &[String]| {
            values
                .iter()
                .zip(&widths)
                .map(|(v, w)| format!("{v:<w$}"))
                .collect::<Vec<_>>()
                .join(" | ")
                .trim_end()
                .to_string()
        };
        let mut out = line(&self.names);
        out.push('\n');
        out.push_str(
            &widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("-+-"),
        );
        out.push('\n');
        for row in &cells {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }

    /// The result as CSV (a header line, then one line per row; text quoted when needed).
    pub fn to_csv(&self) -> String {
        let quote = |s: &str| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let mut out = self
            .names
            .iter()
            .map(|n| quote(n))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
        for row in &self.rows {
            out.push_str(
                &row.iter()
                    .map(|v| quote(&v.to_string()))
                    .collect::<Vec<_>>()
                    .join(","),
            );
            out.push('\n');
        }
        out
    }
}

/// Checks that a 128-bit result fits the 64-bit range where the type requires it.
pub(crate) fn overflow(what: &str) -> QueryError {
    QueryError::Overflow(what.to_string())
}

/// `x * 10^k` exactly, or an overflow error.
pub(crate) fn rescale_i128(x: i128, k: u8) -> Result<i128> {
    x.checked_mul(pow10(u32::from(k)))
        .ok_or_else(|| overflow("rescaling a decimal"))
}

/// A query's result as integer columns: integers, decimals (unscaled, at their type's scale)
/// and dates (days), one `Vec` per output column. Subqueries whose groups feed an operator
/// (a left join's counts, a correlated `EXISTS`'s key ranges) read these instead of rows of
/// [`Value`]s.
pub(crate) struct IntColumns {
    pub types: Vec<Type>,
    pub columns: Vec<Vec<i64>>,
}

/// A subquery's result: integer columns straight from its aggregation where it allowed them,
/// else its rows.
pub(crate) enum Grouped {
    Ints(IntColumns),
    Rows(ResultSet),
    /// The keys of `select k .. group by k`, as a set (one column of type `ty`).
    Keys {
        ty: Type,
        set: crate::keyset::KeySet,
    },
    /// The groups `(k, min(v), max(v))` of `select k, min(v), max(v) .. group by k` as the
    /// test a correlated `EXISTS` with an inequality makes of them (the minima and maxima
    /// themselves are not kept).
    Ranges {
        types: Vec<Type>,
        ranges: crate::vector::KeyRanges,
    },
}

impl Grouped {
    /// The types of the columns.
    pub(crate) fn types(&self) -> &[Type] {
        match self {
            Grouped::Ints(c) => &c.types,
            Grouped::Rows(r) => &r.types,
            Grouped::Keys { ty, .. } => std::slice::from_ref(ty),
            Grouped::Ranges { types, .. } => types,
        }
    }

    /// The number of rows (groups); `None` for [`Grouped::Ranges`], which keeps no rows.
    pub(crate) fn rows(&self) -> Option<usize> {
        match self {
            Grouped::Ints(c) => Some(c.columns.first().map_or(0, Vec::len)),
            Grouped::Rows(r) => Some(r.rows.len()),
            Grouped::Keys { set, .. } => Some(set.len()),
            Grouped::Ranges { .. } => None,
        }
    }

    /// As integer columns (an error for a value that is not an integer, decimal or date).
    pub(crate) fn into_ints(self) -> crate::Result<IntColumns> {
        match self {
            Grouped::Ints(c) => Ok(c),
            Grouped::Rows(r) => IntColumns::from_rows(&r),
            Grouped::Keys { ty, set } => Ok(IntColumns {
                types: vec![ty],
                columns: vec![set.keys()],
            }),
            Grouped::Ranges { .. } => Err(ranges_are_not_rows()),
        }
    }

    /// As rows (their names left empty; an error for [`Grouped::Ranges`]).
    pub(crate) fn into_rows(self) -> crate::Result<ResultSet> {
        Ok(match self {
            Grouped::Rows(r) => r,
            Grouped::Ranges { .. } => return Err(ranges_are_not_rows()),
            Grouped::Keys { ty, set } => Grouped::Ints(IntColumns {
                types: vec![ty],
                columns: vec![set.keys()],
            })
            .into_rows()?,
            Grouped::Ints(c) => {
                let rows = (0..c.columns.first().map_or(0, Vec::len))
                    .map(|r| {
                        c.columns
                            .iter()
                            .zip(&c.types)
                            .map(|(col, ty)| match ty {
                                Type::Decimal(s) => Value::Decimal {
                                    unscaled: i128::from(col[r]),
                                    scale: *s,
                                },
                                Type::Date => Value::Date(col[r] as i32),
                                _ => Value::Int(i128::from(col[r])),
                            })
                            .collect()
                    })
                    .collect();
                ResultSet {
                    names: vec![String::new(); c.types.len()],
                    types: c.types,
                    rows,
                }
            }
        })
    }
}

/// [`Grouped::Ranges`] asked for as columns: only the binder's `EXISTS` test reads them.
fn ranges_are_not_rows() -> crate::QueryError {
    crate::QueryError::unsupported(
        "the groups of an EXISTS with an inequality as columns",
        crate::Position::default(),
    )
}

impl IntColumns {
    /// The columns of `rows`; an error for a value that is not an integer, decimal or date.
    pub(crate) fn from_rows(rows: &ResultSet) -> crate::Result<IntColumns> {
        let mut columns = Vec::with_capacity(rows.types.len());
        for (c, ty) in rows.types.iter().enumerate() {
            let scale = match ty {
                Type::Decimal(s) => *s,
                _ => 0,
            };
            let column = rows
                .rows
                .iter()
                .map(|r| match (&r[c], ty) {
                    (Value::Date(d), Type::Date) => Ok(i64::from(*d)),
                    (v, Type::Int | Type::Decimal(_)) => crate::scope::exact_i64(v, scale),
                    (v, _) => Err(crate::QueryError::type_error(
                        format!("{v} where an integer, decimal or date is needed"),
                        crate::Position::default(),
                    )),
                })
                .collect::<crate::Result<Vec<i64>>>()?;
            columns.push(column);
        }
        Ok(IntColumns {
            types: rows.types.clone(),
            columns,
        })
    }
}
