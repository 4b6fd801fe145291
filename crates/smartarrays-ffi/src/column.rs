//! The `SaColumn` and `SaSelection` handles: typed, compressed columns of the
//! `smartarrays-encodings` crate (unsigned and signed 64-bit integers, doubles, UTF-8 strings,
//! each optionally with nulls) built from caller buffers, with the encoding chosen by the
//! sampling compressor or by name; reads (get, unpack, take), filters evaluated on the encoded
//! data (equal, range, in-list, prefix, null) returning a selection, exact sums, min/max, and the
//! compressor's explanation.
//!
//! Conventions beyond the ABI's usual ones: a validity bitmap is `ceil(len / 8)` bytes, bit
//! `i % 8` of byte `i / 8` set for a valid (non-null) row (the Arrow layout); NULL means every row
//! is valid. Strings come in as `bytes` plus `len + 1` offsets (row `i` is
//! `bytes[offsets[i] .. offsets[i + 1]]`, the Arrow layout with 64-bit offsets).

use std::ffi::c_char;
use std::ops::Bound;

use smartarrays_encodings::{
    Canonical, Column, ColumnOptions, DataType, EncodingKind, Predicate, Scalar, Selection, Sum,
    Values,
};

use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

/// A typed, compressed column (values of one type, optionally with nulls) in smart arrays with a
/// NUMA placement. Opaque: create it with `sa_column_from_u64`, `sa_column_from_i64`,
/// `sa_column_from_f64` or `sa_column_from_utf8`; free it with `sa_column_free`.
///
/// Thread safety: a column never changes after it is built; every function but `sa_column_free`
/// may run at the same time as any other on the same column, from any number of threads.
pub struct SaColumn {
    pub(crate) column: Column,
}

impl SaColumn {
    /// The column behind the handle.
    pub fn column(&self) -> &Column {
        &self.column
    }
}

/// The rows a filter kept, out of the column's rows. Opaque: made by the `sa_column_filter_*`
/// functions, read with `sa_selection_count`, `sa_selection_row_ids` and `sa_selection_words`,
/// freed with `sa_selection_free`. Immutable: reads may run concurrently.
pub struct SaSelection {
    pub(crate) selection: Selection,
}

/// The logical type of a column (`sa_column_data_type`). The numeric values are stable.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaDataType {
    /// Unsigned 64-bit integers (`sa_column_from_u64`).
    Uint64 = 0,
    /// Signed 64-bit integers (`sa_column_from_i64`).
    Int64 = 1,
    /// IEEE doubles, every bit pattern kept (`sa_column_from_f64`).
    Float64 = 2,
    /// UTF-8 strings (`sa_column_from_utf8`).
    Utf8 = 3,
    /// Exact decimals: signed 64-bit unscaled values at a scale (`sa_column_from_decimal`).
    Decimal = 4,
    /// Days since 1970-01-01 (`sa_column_from_date32`).
    Date32 = 5,
    /// Booleans (`sa_column_from_bool`).
    Bool = 6,
}

impl SaDataType {
    fn of(data_type: DataType) -> SaDataType {
        match data_type {
            DataType::UInt64 => SaDataType::Uint64,
            DataType::Int64 => SaDataType::Int64,
            DataType::Float64 => SaDataType::Float64,
            DataType::Utf8 => SaDataType::Utf8,
            DataType::Decimal { .. } => SaDataType::Decimal,
            DataType::Date32 => SaDataType::Date32,
            DataType::Bool => SaDataType::Bool,
        }
    }
}

/// Every encoding a column can be asked for by name: the integer encodings, ALP and FSST.
fn encodings() -> impl Iterator<Item = EncodingKind> {
    EncodingKind::INTEGER
        .into_iter()
        .chain([EncodingKind::Alp, EncodingKind::Fsst])
}

/// The encoding called `name` ("bitpacked", "frame", ...), or an `SA_STATUS_INVALID_ARGUMENT`
/// naming the known ones.
pub fn parse_encoding(name: &str) -> FfiResult<EncodingKind> {
    encodings().find(|kind| kind.name() == name).ok_or_else(|| {
        let known: Vec<&str> = encodings().map(|k| k.name()).collect();
        FfiError::new(
            SaStatus::InvalidArgument,
            format!(
                "unknown encoding {name:?} (expected \"auto\" or one of {})",
                known.join(", ")
            ),
        )
    })
}

/// Column options from the C arguments: encoding name (NULL or "auto": the compressor
/// chooses) and placement text (NULL: "os"; its nodes checked now, as a constant column maps no
/// memory).
fn column_options(encoding: *const c_char, placement: *const c_char) -> FfiResult<ColumnOptions> {
    let mut options = ColumnOptions::new().array(crate::array::checked_options(placement)?);
    // SAFETY: the exported functions require `encoding` to be NULL or NUL-terminated text.
    if let Some(name) = unsafe { ptr::text(encoding, "encoding") }? {
        if name != "auto" {
            options = options.encoding(parse_encoding(name)?);
        }
    }
    Ok(options)
}

/// The validity flags of `len` rows from an Arrow-layout bitmap (NULL: `None`, all valid).
///
/// # Safety
/// `valid` must be NULL or point to `ceil(len / 8)` readable bytes.
unsafe fn validity_in(valid: *const u8, len: usize) -> FfiResult<Option<Vec<bool>>> {
    if valid.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { ptr::slice(valid, len.div_ceil(8), "valid") }?;
    Ok(Some(
        (0..len).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect(),
    ))
}

/// The `count` strings of `bytes` cut at `offsets[0..=count]`, checked: offsets that decrease or
/// pass `bytes_len`, and rows that are not UTF-8, are `SA_STATUS_INVALID_ARGUMENT` naming the row.
///
/// # Safety
/// `bytes` must point to `bytes_len` readable bytes (or be NULL when `bytes_len` is 0); `offsets`
/// must point to `count + 1` readable values.
pub(crate) unsafe fn strings_in<'a>(
    bytes: *const c_char,
    bytes_len: usize,
    offsets: *const usize,
    count: usize,
) -> FfiResult<Vec<&'a str>> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { ptr::slice(bytes.cast::<u8>(), bytes_len, "bytes") }?;
    let slots = count.checked_add(1).ok_or_else(|| {
        FfiError::new(
            SaStatus::InvalidArgument,
            format!("{count} strings cannot exist in memory"),
        )
    })?;
    // SAFETY: forwarded from the caller.
    let offsets = unsafe { ptr::slice(offsets, slots, "offsets") }?;
    let mut strings = Vec::with_capacity(count);
    for row in 0..count {
        let (start, end) = (offsets[row], offsets[row + 1]);
        if start > end || end > bytes.len() {
            return Err(FfiError::new(
                SaStatus::InvalidArgument,
                format!(
                    "string {row}: offsets {start}..{end} are reversed or pass the end of the {} bytes given",
                    bytes.len()
                ),
            ));
        }
        let text = std::str::from_utf8(&bytes[start..end]).map_err(|e| {
            FfiError::new(
                SaStatus::InvalidArgument,
                format!("string {row} is not UTF-8 text: {e}"),
            )
        })?;
        strings.push(text);
    }
    Ok(strings)
}

/// One string argument given as `len` bytes (not NUL-terminated; NULL is accepted when `len` is 0).
///
/// # Safety
/// `text` must point to `len` readable bytes.
unsafe fn text_in<'a>(text: *const c_char, len: usize, name: &str) -> FfiResult<&'a str> {
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { ptr::slice(text.cast::<u8>(), len, name) }?;
    std::str::from_utf8(bytes).map_err(|e| {
        FfiError::new(
            SaStatus::InvalidArgument,
            format!("argument `{name}` is not UTF-8 text: {e}"),
        )
    })
}

/// Builds a column from typed values, with nulls where `valid` says so.
fn build<T: Copy>(
    values: &[T],
    valid: Option<Vec<bool>>,
    data_type: DataType,
    scalar: impl Fn(T) -> Scalar,
    plain: impl FnOnce(&[T], &ColumnOptions) -> smartarrays_encodings::Result<Column>,
    options: &ColumnOptions,
) -> FfiResult<Column> {
    Ok(match valid {
        None => plain(values, options)?,
        Some(valid) => {
            let scalars: Vec<Scalar> = values
                .iter()
                .zip(valid)
                .map(|(&v, ok)| if ok { scalar(v) } else { Scalar::Null })
                .collect();
            Column::from_scalars(data_type, &scalars, options)?
        }
    })
}

/// The body of every typed builder: reads `len` values (`name` in messages) and the validity
/// bitmap, builds with [`build`] and hands the column out.
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable values of `T`.
#[allow(clippy::too_many_arguments)]
unsafe fn build_from<T: Copy>(
    values: *const T,
    len: usize,
    name: &str,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
    data_type: DataType,
    scalar: impl Fn(T) -> Scalar,
    plain: impl FnOnce(&[T], &ColumnOptions) -> smartarrays_encodings::Result<Column>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, len, name) }?;
        // SAFETY: forwarded from the caller.
        let valid = unsafe { validity_in(valid, len) }?;
        let options = column_options(encoding, placement)?;
        let column = build(values, valid, data_type, scalar, plain, &options)?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, column) }
    })
}

/// Stores a newly built column in `*out`.
///
/// # Safety
/// `out` must be valid for writing a pointer (checked for NULL before building).
unsafe fn hand_out(out: *mut *mut SaColumn, column: Column) -> FfiResult {
    let handle = Box::into_raw(Box::new(SaColumn { column }));
    // SAFETY: forwarded from the caller; `out` is not NULL (checked first), so nothing leaks.
    unsafe { ptr::write(out, "out", handle) }
}

/// Borrows the column behind a handle.
///
/// # Safety
/// `column` must be NULL or a live handle from this library.
unsafe fn borrow<'a>(column: *const SaColumn) -> FfiResult<&'a Column> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(column, "column") }.map(|handle| &handle.column)
}

/// `SA_STATUS_TYPE_MISMATCH` unless the column has type `expected`.
fn expect_type(column: &Column, expected: DataType, function: &str) -> FfiResult {
    if column.data_type() != expected {
        return Err(FfiError::new(
            SaStatus::TypeMismatch,
            format!(
                "{function} reads {expected} columns, but this column is {}",
                column.data_type()
            ),
        ));
    }
    Ok(())
}

/// The body of every text getter (`sa_column_encoding`, `_explanation`, ...): writes
/// `text(column)` to `*out` as a string the caller frees with `sa_string_free`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
unsafe fn write_text(
    column: *const SaColumn,
    out: *mut *mut c_char,
    text: impl FnOnce(&Column) -> String,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let text = text(unsafe { borrow(column) }?);
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write_string(out, "out", text) }
    })
}

/// A C value type that a typed entry point reads from a column: the column type it matches and
/// how it comes out of the encodings crate's scalars and decoded vectors. One implementation per
/// type keeps the per-type entry points (`sa_column_get_*`, `_unpack_*`, `_take_*`,
/// `_min_max_*`) one-line calls of a shared body.
trait CValue: Copy + Default {
    /// The column type this C type reads.
    const DATA_TYPE: DataType;
    /// The value of a scalar of that type (`None` for a null or another type).
    fn from_scalar(scalar: Scalar) -> Option<Self>;
    /// The values of a decoded vector of that type (`None` for another type).
    fn from_values(values: Values) -> Option<Vec<Self>>;
}

macro_rules! c_value {
    ($t:ty, $variant:ident) => {
        impl CValue for $t {
            const DATA_TYPE: DataType = DataType::$variant;
            fn from_scalar(scalar: Scalar) -> Option<Self> {
                match scalar {
                    Scalar::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn from_values(values: Values) -> Option<Vec<Self>> {
                match values {
                    Values::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

c_value!(u64, UInt64);
c_value!(i64, Int64);
c_value!(f64, Float64);
c_value!(bool, Bool);
c_value!(i32, Date32);

/// Creates a column of unsigned 64-bit integers from `values[0..len]`.
///
/// `valid` is NULL (no nulls) or a validity bitmap of `ceil(len / 8)` bytes (bit `i % 8` of byte
/// `i / 8` set when row `i` is valid). `encoding` is NULL or "auto" (the sampling compressor
/// chooses; `sa_column_explanation` says why) or one of "bitpacked", "frame", "dictionary",
/// "run_end", "delta" (sorted values), "constant"; an unknown name is `SA_STATUS_INVALID_ARGUMENT`, and an encoding that
/// cannot hold the values (a constant of values that differ) too. `placement` as for
/// `sa_array_new` (NULL = "os"). `values` may be NULL when `len` is 0.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new column the caller owns
/// (free with `sa_column_free`); on failure `*out` is not written. Thread-safe.
///
/// # Safety
/// `values` must point to `len` readable values, `valid` to `ceil(len / 8)` bytes or be NULL;
/// `encoding` and `placement` must be NULL or NUL-terminated text; `out` must be valid for
/// writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_u64(
    values: *const u64,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    // SAFETY: forwarded from the caller (the same contract).
    unsafe {
        build_from(
            values,
            len,
            "values",
            valid,
            encoding,
            placement,
            out,
            DataType::UInt64,
            Scalar::UInt64,
            Column::from_u64,
        )
    }
}

/// Creates a column of signed 64-bit integers; arguments as for `sa_column_from_u64`.
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable `int64_t` values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_i64(
    values: *const i64,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    // SAFETY: forwarded from the caller (the same contract).
    unsafe {
        build_from(
            values,
            len,
            "values",
            valid,
            encoding,
            placement,
            out,
            DataType::Int64,
            Scalar::Int64,
            Column::from_i64,
        )
    }
}

/// Creates a column of doubles (every bit pattern kept: NaN payloads, -0.0, infinities);
/// arguments as for `sa_column_from_u64`, and `encoding` may also be "alp" (decimal digits
/// through a frame, plus exceptions).
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable `double` values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_f64(
    values: *const f64,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    // SAFETY: forwarded from the caller (the same contract).
    unsafe {
        build_from(
            values,
            len,
            "values",
            valid,
            encoding,
            placement,
            out,
            DataType::Float64,
            Scalar::Float64,
            Column::from_f64,
        )
    }
}

/// Creates a column of `len` UTF-8 strings: row `i` is `bytes[offsets[i] .. offsets[i + 1]]`
/// (`offsets` holds `len + 1` values; they must not decrease nor pass `bytes_len`, and every row
/// must be UTF-8, else `SA_STATUS_INVALID_ARGUMENT` naming the row). `valid`, `encoding` (NULL,
/// "auto", "dictionary" or "fsst") and `placement` as for `sa_column_from_u64`. `bytes` may be
/// NULL when `bytes_len` is 0.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new column the caller owns.
/// Thread-safe.
///
/// # Safety
/// `bytes` must point to `bytes_len` readable bytes, `offsets` to `len + 1` readable values,
/// `valid` to `ceil(len / 8)` bytes or be NULL; `encoding` and `placement` must be NULL or
/// NUL-terminated text; `out` must be valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_utf8(
    bytes: *const c_char,
    bytes_len: usize,
    offsets: *const usize,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let strings = unsafe { strings_in(bytes, bytes_len, offsets, len) }?;
        // SAFETY: forwarded from the caller.
        let valid = unsafe { validity_in(valid, len) }?;
        let options = column_options(encoding, placement)?;
        let column = build(
            &strings,
            valid,
            DataType::Utf8,
            |s: &str| Scalar::Utf8(s.to_string()),
            Column::from_strs,
            &options,
        )?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, column) }
    })
}

/// Creates a column of booleans from `values[0..len]`, one byte each, 0 (false) or 1 (true);
/// any other byte is `SA_STATUS_INVALID_ARGUMENT` naming the row (never read as true).
/// `valid`, `encoding` and `placement` as for `sa_column_from_u64`.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new column the caller owns.
/// Thread-safe.
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_bool(
    values: *const u8,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let bytes = unsafe { ptr::slice(values, len, "values") }?;
        let values = bytes
            .iter()
            .enumerate()
            .map(|(row, &byte)| match byte {
                0 => Ok(false),
                1 => Ok(true),
                other => Err(FfiError::new(
                    SaStatus::InvalidArgument,
                    format!("values[{row}] is {other}: a boolean is 0 (false) or 1 (true)"),
                )),
            })
            .collect::<FfiResult<Vec<bool>>>()?;
        // SAFETY: forwarded from the caller.
        let valid = unsafe { validity_in(valid, len) }?;
        let options = column_options(encoding, placement)?;
        let column = build(
            &values,
            valid,
            DataType::Bool,
            Scalar::Bool,
            Column::from_bool,
            &options,
        )?;
        // SAFETY: forwarded from the caller.
        unsafe { hand_out(out, column) }
    })
}

/// Creates a column of dates from `days[0..len]`, days since 1970-01-01 (negative before).
/// `valid`, `encoding` and `placement` as for `sa_column_from_u64`.
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new column the caller owns.
/// Thread-safe.
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable `int32_t` values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_date32(
    days: *const i32,
    len: usize,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    // SAFETY: forwarded from the caller (the same contract).
    unsafe {
        build_from(
            days,
            len,
            "days",
            valid,
            encoding,
            placement,
            out,
            DataType::Date32,
            Scalar::Date32,
            Column::from_dates,
        )
    }
}

/// Creates a column of exact decimals: row `i` is `unscaled[i] / 10^scale` (`1234` at scale 2 is
/// 12.34). `scale` is 0..=18, else `SA_STATUS_INVALID_ARGUMENT`. `valid`, `encoding` and
/// `placement` as for `sa_column_from_u64`. Sums of the column are exact (`sa_column_sum_i128`
/// gives the unscaled sum).
///
/// Ownership: the buffers stay the caller's; on success `*out` is a new column the caller owns.
/// Thread-safe.
///
/// # Safety
/// As for `sa_column_from_u64`, with `len` readable `int64_t` values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_from_decimal(
    unscaled: *const i64,
    len: usize,
    scale: u8,
    valid: *const u8,
    encoding: *const c_char,
    placement: *const c_char,
    out: *mut *mut SaColumn,
) -> SaStatus {
    // SAFETY: forwarded from the caller (the same contract).
    unsafe {
        build_from(
            unscaled,
            len,
            "unscaled",
            valid,
            encoding,
            placement,
            out,
            DataType::Decimal { scale },
            |unscaled| Scalar::Decimal { unscaled, scale },
            |values, options| Column::from_decimal(values, scale, options),
        )
    }
}

/// Frees a column. NULL is ignored.
///
/// # Safety
/// `column` must be NULL or a live handle not freed before; no other call on it may be running,
/// and the handle is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_column_free(column: *mut SaColumn) {
    if column.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from hand_out, exactly once.
        drop(unsafe { Box::from_raw(column) });
    }));
}

/// Writes the number of rows to `*out`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_len(column: *const SaColumn, out: *mut usize) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(column)?.len()) })
}

/// Writes the number of null rows to `*out`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_null_count(
    column: *const SaColumn,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(column)?.null_count()) })
}

/// Writes the column's type to `*out`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_data_type(
    column: *const SaColumn,
    out: *mut SaDataType,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let column = unsafe { borrow(column) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", SaDataType::of(column.data_type())) }
    })
}

/// Writes the encoding's name ("bitpacked", "frame", "dictionary", "run_end", "delta", "constant", "alp"
/// or "fsst") to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_encoding(
    column: *const SaColumn,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(column, out, |c| c.encoding_kind().name().to_string()) }
}

/// Writes why the column has its encoding (every candidate's estimated and real size, and the
/// decision) as text to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_explanation(
    column: *const SaColumn,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(column, out, |c| c.explanation().to_string()) }
}

/// Writes where the column's memory is and how much (every smart array by role) as text to
/// `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_memory_report_text(
    column: *const SaColumn,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(column, out, |c| c.memory_report().to_string()) }
}

/// Writes the placement of the column's smart arrays as text ("os", "node:0", "interleaved",
/// "replicated", ...) to `*out`; free it with `sa_string_free`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_placement(
    column: *const SaColumn,
    out: *mut *mut c_char,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_text(column, out, |c| c.placement().to_string()) }
}

/// Writes the bytes of memory the column occupies (every replica, whole pages, plus what is kept
/// outside smart arrays) to `*out`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_memory_bytes(
    column: *const SaColumn,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(column)?.memory_bytes()) })
}

/// Writes the bytes of the encoded data densely packed in one copy (what the compressor
/// compares) to `*out`.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_packed_bytes(
    column: *const SaColumn,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow(column)?.packed_bytes()) })
}

/// Reads row `index`: its value (through `value`) and whether it is valid.
///
/// # Safety
/// `column` must be a live handle; `valid` NULL or valid for writing.
unsafe fn get_scalar(
    column: *const SaColumn,
    index: usize,
    expected: DataType,
    function: &str,
    valid: *mut bool,
) -> FfiResult<Scalar> {
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    expect_type(column, expected, function)?;
    let scalar = column.get(index)?;
    let is_valid = !scalar.is_null();
    if valid.is_null() {
        if !is_valid {
            return Err(FfiError::new(
                SaStatus::InvalidArgument,
                format!("row {index} is null; pass `valid` to read rows that may be null"),
            ));
        }
    } else {
        // SAFETY: not NULL; the caller guarantees it is valid for writing.
        unsafe { valid.write(is_valid) };
    }
    Ok(scalar)
}

/// The body of every `sa_column_get_*` of a plain type: reads row `index` as `T`.
///
/// # Safety
/// As for `sa_column_get_u64`.
unsafe fn get_value<T: CValue>(
    column: *const SaColumn,
    index: usize,
    out: *mut T,
    valid: *mut bool,
    function: &str,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let scalar = unsafe { get_scalar(column, index, T::DATA_TYPE, function, valid) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", T::from_scalar(scalar).unwrap_or_default()) }
    })
}

/// Writes row `index` of a UInt64 column to `*out`, and to `*valid` whether the row is valid
/// (not null). A null row writes 0 to `*out`. `valid` may be NULL for a column without nulls;
/// reading a null row with `valid` NULL is `SA_STATUS_INVALID_ARGUMENT` (never a made-up value).
/// `SA_STATUS_INDEX_OUT_OF_RANGE` past the end; `SA_STATUS_TYPE_MISMATCH` for another type.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` and `valid` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_u64(
    column: *const SaColumn,
    index: usize,
    out: *mut u64,
    valid: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { get_value(column, index, out, valid, "sa_column_get_u64") }
}

/// Like `sa_column_get_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_get_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_i64(
    column: *const SaColumn,
    index: usize,
    out: *mut i64,
    valid: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { get_value(column, index, out, valid, "sa_column_get_i64") }
}

/// Like `sa_column_get_u64`, for a Float64 column (the exact bit pattern stored).
///
/// # Safety
/// As for `sa_column_get_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_f64(
    column: *const SaColumn,
    index: usize,
    out: *mut f64,
    valid: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { get_value(column, index, out, valid, "sa_column_get_f64") }
}

/// Like `sa_column_get_u64`, for a Bool column.
///
/// # Safety
/// As for `sa_column_get_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_bool(
    column: *const SaColumn,
    index: usize,
    out: *mut bool,
    valid: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { get_value(column, index, out, valid, "sa_column_get_bool") }
}

/// Like `sa_column_get_u64`, for a Date32 column: days since 1970-01-01.
///
/// # Safety
/// As for `sa_column_get_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_date32(
    column: *const SaColumn,
    index: usize,
    out: *mut i32,
    valid: *mut bool,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { get_value(column, index, out, valid, "sa_column_get_date32") }
}

/// Like `sa_column_get_u64`, for a Decimal column: the row's unscaled value (the row is
/// `*out / 10^scale`, with the scale from `sa_column_decimal_scale`).
///
/// # Safety
/// As for `sa_column_get_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_decimal(
    column: *const SaColumn,
    index: usize,
    out: *mut i64,
    valid: *mut bool,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let column_ref = unsafe { borrow(column) }?;
        let expected = match column_ref.data_type() {
            decimal @ DataType::Decimal { .. } => decimal,
            other => {
                return Err(FfiError::new(
                    SaStatus::TypeMismatch,
                    format!(
                        "sa_column_get_decimal reads Decimal columns, but this column is {other}"
                    ),
                ))
            }
        };
        // SAFETY: forwarded from the caller.
        let value =
            match unsafe { get_scalar(column, index, expected, "sa_column_get_decimal", valid) }? {
                Scalar::Decimal { unscaled, .. } => unscaled,
                _ => 0,
            };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", value) }
    })
}

/// Writes a Decimal column's scale (digits after the point, 0..=18) to `*out`;
/// `SA_STATUS_TYPE_MISMATCH` for another type.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_decimal_scale(
    column: *const SaColumn,
    out: *mut u8,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let column = unsafe { borrow(column) }?;
        let DataType::Decimal { scale } = column.data_type() else {
            return Err(FfiError::new(
                SaStatus::TypeMismatch,
                format!(
                    "sa_column_decimal_scale reads Decimal columns, but this column is {}",
                    column.data_type()
                ),
            ));
        };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", scale) }
    })
}

/// Reads row `index` of a Utf8 column: writes its length in bytes to `*len` and, when
/// `capacity` is more than that, the bytes and a terminating NUL to `buffer`. When `capacity`
/// is too small the status is `SA_STATUS_BUFFER_TOO_SMALL` and only `*len` (and `*valid`) are
/// written: call again with `*len + 1` bytes. `valid` as for `sa_column_get_u64` (a null row has
/// length 0).
///
/// # Safety
/// `column` must be NULL or a live handle; `buffer` must be valid for writing `capacity` bytes
/// (NULL when `capacity` is 0); `len` and `valid` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_get_utf8(
    column: *const SaColumn,
    index: usize,
    buffer: *mut c_char,
    capacity: usize,
    len: *mut usize,
    valid: *mut bool,
) -> SaStatus {
    guard(|| {
        ptr::check_out(len, "len")?;
        // SAFETY: forwarded from the caller.
        let text = match unsafe {
            get_scalar(column, index, DataType::Utf8, "sa_column_get_utf8", valid)
        }? {
            Scalar::Utf8(text) => text,
            _ => String::new(),
        };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(len, "len", text.len()) }?;
        if capacity <= text.len() {
            return Err(FfiError::new(
                SaStatus::BufferTooSmall,
                format!(
                    "row {index} holds {} bytes; the buffer needs {} (with the NUL) but holds {capacity}",
                    text.len(),
                    text.len() + 1
                ),
            ));
        }
        // SAFETY: forwarded from the caller.
        let buffer = unsafe { ptr::slice_mut(buffer.cast::<u8>(), capacity, "buffer") }?;
        buffer[..text.len()].copy_from_slice(text.as_bytes());
        buffer[text.len()] = 0;
        Ok(())
    })
}

/// Which rows to decode: a range or a list of indices.
enum Rows<'a> {
    Range(usize, usize),
    Take(&'a [usize]),
}

impl Rows<'_> {
    fn count(&self) -> usize {
        match self {
            Rows::Range(_, count) => *count,
            Rows::Take(indices) => indices.len(),
        }
    }

    fn decode(&self, column: &Column) -> FfiResult<Canonical> {
        Ok(match *self {
            Rows::Range(start, count) => {
                let end = start.checked_add(count).ok_or_else(|| {
                    FfiError::new(
                        SaStatus::RangeOutOfBounds,
                        format!("range {start} + {count} overflows"),
                    )
                })?;
                column.unpack(start..end)?
            }
            Rows::Take(indices) => column.take(indices)?,
        })
    }
}

/// Writes decoded validity to the caller's bitmap (`valid` NULL: refuses nulls).
///
/// # Safety
/// `valid` must be NULL or valid for writing `ceil(count / 8)` bytes.
unsafe fn validity_out(validity: &Option<Vec<bool>>, count: usize, valid: *mut u8) -> FfiResult {
    if valid.is_null() {
        if let Some(row) = validity
            .as_ref()
            .and_then(|flags| flags.iter().position(|&ok| !ok))
        {
            return Err(FfiError::new(
                SaStatus::InvalidArgument,
                format!("row {row} of those asked for is null; pass `valid` to read rows that may be null"),
            ));
        }
        return Ok(());
    }
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { ptr::slice_mut(valid, count.div_ceil(8), "valid") }?;
    bytes.fill(0);
    for i in 0..count {
        if validity.as_ref().is_none_or(|flags| flags[i]) {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    Ok(())
}

/// Decodes `rows` of a column of type `T` into `out[0..count]` and the validity bitmap.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` valid for writing `rows.count()` values; `valid`
/// NULL or valid for writing `ceil(count / 8)` bytes.
unsafe fn decode_into<T: CValue>(
    column: *const SaColumn,
    rows: Rows<'_>,
    function: &str,
    out: *mut T,
    valid: *mut u8,
) -> FfiResult {
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    expect_type(column, T::DATA_TYPE, function)?;
    let count = rows.count();
    // SAFETY: forwarded from the caller.
    let out = unsafe { ptr::slice_mut(out, count, "out") }?;
    let decoded = rows.decode(column)?;
    // SAFETY: forwarded from the caller.
    unsafe { validity_out(&decoded.validity, count, valid) }?;
    let values = T::from_values(decoded.values)
        .ok_or_else(|| FfiError::new(SaStatus::Other, "decoded values of an unexpected type"))?;
    out.copy_from_slice(&values);
    Ok(())
}

/// The body of every `sa_column_unpack_*` of a plain type.
///
/// # Safety
/// As for `sa_column_unpack_u64`.
unsafe fn unpack_values<T: CValue>(
    column: *const SaColumn,
    start: usize,
    out: *mut T,
    count: usize,
    valid: *mut u8,
    function: &str,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { decode_into(column, Rows::Range(start, count), function, out, valid) })
}

/// The body of every `sa_column_take_*` of a plain type.
///
/// # Safety
/// As for `sa_column_take_u64`.
unsafe fn take_values<T: CValue>(
    column: *const SaColumn,
    indices: *const usize,
    count: usize,
    out: *mut T,
    valid: *mut u8,
    function: &str,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let indices = unsafe { ptr::slice(indices, count, "indices") }?;
        // SAFETY: forwarded from the caller.
        unsafe { decode_into(column, Rows::Take(indices), function, out, valid) }
    })
}

/// Decodes rows `start .. start + count` of a UInt64 column into `out[0..count]`, and their
/// validity into the bitmap `valid` (`ceil(count / 8)` bytes; bit set = valid). `valid` may be
/// NULL when none of those rows is null; a null row with `valid` NULL is
/// `SA_STATUS_INVALID_ARGUMENT`. Null rows hold an unspecified value of the column.
/// `SA_STATUS_RANGE_OUT_OF_BOUNDS` when the range passes the end (nothing is written);
/// `SA_STATUS_TYPE_MISMATCH` for another type. `out` may be NULL when `count` is 0.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be valid for writing `count` values and
/// `valid` NULL or valid for writing `ceil(count / 8)` bytes.
#[no_mangle]
pub unsafe extern "C" fn sa_column_unpack_u64(
    column: *const SaColumn,
    start: usize,
    out: *mut u64,
    count: usize,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { unpack_values(column, start, out, count, valid, "sa_column_unpack_u64") }
}

/// Like `sa_column_unpack_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_unpack_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_unpack_i64(
    column: *const SaColumn,
    start: usize,
    out: *mut i64,
    count: usize,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { unpack_values(column, start, out, count, valid, "sa_column_unpack_i64") }
}

/// Like `sa_column_unpack_u64`, for a Float64 column.
///
/// # Safety
/// As for `sa_column_unpack_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_unpack_f64(
    column: *const SaColumn,
    start: usize,
    out: *mut f64,
    count: usize,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { unpack_values(column, start, out, count, valid, "sa_column_unpack_f64") }
}

/// Decodes rows `indices[0..count]` (any order, repeats allowed; all checked first:
/// `SA_STATUS_INDEX_OUT_OF_RANGE` names the first one past the end) of a UInt64 column into
/// `out[0..count]` and the bitmap `valid`, as `sa_column_unpack_u64` does for a range.
///
/// # Safety
/// `column` must be NULL or a live handle; `indices` must point to `count` readable values,
/// `out` must be valid for writing `count` values and `valid` NULL or valid for writing
/// `ceil(count / 8)` bytes.
#[no_mangle]
pub unsafe extern "C" fn sa_column_take_u64(
    column: *const SaColumn,
    indices: *const usize,
    count: usize,
    out: *mut u64,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { take_values(column, indices, count, out, valid, "sa_column_take_u64") }
}

/// Like `sa_column_take_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_take_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_take_i64(
    column: *const SaColumn,
    indices: *const usize,
    count: usize,
    out: *mut i64,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { take_values(column, indices, count, out, valid, "sa_column_take_i64") }
}

/// Like `sa_column_take_u64`, for a Float64 column.
///
/// # Safety
/// As for `sa_column_take_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_take_f64(
    column: *const SaColumn,
    indices: *const usize,
    count: usize,
    out: *mut f64,
    valid: *mut u8,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { take_values(column, indices, count, out, valid, "sa_column_take_f64") }
}

/// Decodes strings into offsets + bytes (see `sa_column_unpack_utf8`).
///
/// # Safety
/// As for `sa_column_unpack_utf8`.
#[allow(clippy::too_many_arguments)]
unsafe fn decode_utf8(
    column: *const SaColumn,
    rows: Rows<'_>,
    function: &str,
    offsets: *mut usize,
    bytes: *mut c_char,
    capacity: usize,
    needed: *mut usize,
    valid: *mut u8,
) -> FfiResult {
    ptr::check_out(needed, "bytes_needed")?;
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    expect_type(column, DataType::Utf8, function)?;
    let count = rows.count();
    let slots = count.checked_add(1).ok_or_else(|| {
        FfiError::new(
            SaStatus::InvalidArgument,
            format!("{count} strings cannot exist in memory"),
        )
    })?;
    // SAFETY: forwarded from the caller.
    let offsets = unsafe { ptr::slice_mut(offsets, slots, "offsets") }?;
    let decoded = rows.decode(column)?;
    let Values::Utf8(strings) = decoded.values else {
        return Err(FfiError::new(
            SaStatus::Other,
            "decoded values of an unexpected type",
        ));
    };
    let total: usize = strings.iter().map(String::len).sum();
    // SAFETY: forwarded from the caller.
    unsafe { ptr::write(needed, "bytes_needed", total) }?;
    if capacity < total {
        return Err(FfiError::new(
            SaStatus::BufferTooSmall,
            format!("the {count} strings take {total} bytes but `bytes` holds {capacity}"),
        ));
    }
    // SAFETY: forwarded from the caller.
    unsafe { validity_out(&decoded.validity, count, valid) }?;
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { ptr::slice_mut(bytes.cast::<u8>(), total, "bytes") }?;
    let mut at = 0;
    offsets[0] = 0;
    for (i, text) in strings.iter().enumerate() {
        bytes[at..at + text.len()].copy_from_slice(text.as_bytes());
        at += text.len();
        offsets[i + 1] = at;
    }
    Ok(())
}

/// Decodes rows `start .. start + count` of a Utf8 column: the strings' bytes, back to back, into
/// `bytes` (which holds `capacity` bytes), `count + 1` offsets into `offsets` (row `i` is
/// `bytes[offsets[i] .. offsets[i + 1]]`, `offsets[0]` is 0), and the validity bitmap into `valid`
/// (as for `sa_column_unpack_u64`; a null row is an empty string). `*bytes_needed` gets the total
/// length of the strings, also when the status is `SA_STATUS_BUFFER_TOO_SMALL` (`capacity` is
/// less: call again with that many bytes); nothing else is written then.
///
/// # Safety
/// `column` must be NULL or a live handle; `offsets` must be valid for writing `count + 1`
/// values, `bytes` for `capacity` bytes (NULL when 0), `valid` NULL or valid for writing
/// `ceil(count / 8)` bytes, `bytes_needed` valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_unpack_utf8(
    column: *const SaColumn,
    start: usize,
    count: usize,
    offsets: *mut usize,
    bytes: *mut c_char,
    capacity: usize,
    bytes_needed: *mut usize,
    valid: *mut u8,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        unsafe {
            decode_utf8(
                column,
                Rows::Range(start, count),
                "sa_column_unpack_utf8",
                offsets,
                bytes,
                capacity,
                bytes_needed,
                valid,
            )
        }
    })
}

/// Like `sa_column_unpack_utf8`, for the rows `indices[0..count]` (checked first, as for
/// `sa_column_take_u64`).
///
/// # Safety
/// As for `sa_column_unpack_utf8`, and `indices` must point to `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_take_utf8(
    column: *const SaColumn,
    indices: *const usize,
    count: usize,
    offsets: *mut usize,
    bytes: *mut c_char,
    capacity: usize,
    bytes_needed: *mut usize,
    valid: *mut u8,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let indices = unsafe { ptr::slice(indices, count, "indices") }?;
        // SAFETY: forwarded from the caller.
        unsafe {
            decode_utf8(
                column,
                Rows::Take(indices),
                "sa_column_take_utf8",
                offsets,
                bytes,
                capacity,
                bytes_needed,
                valid,
            )
        }
    })
}

/// Runs `predicate` on the column and hands out the selection.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be valid for writing a pointer.
unsafe fn filter(
    column: *const SaColumn,
    predicate: impl FnOnce(&Column) -> FfiResult<Predicate>,
    out: *mut *mut SaSelection,
) -> FfiResult {
    ptr::check_out(out, "out")?;
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    let selection = column.filter(&predicate(column)?)?;
    let handle = Box::into_raw(Box::new(SaSelection { selection }));
    // SAFETY: forwarded from the caller; `out` is not NULL (checked first).
    unsafe { ptr::write(out, "out", handle) }
}

/// Selects the rows of a UInt64 column equal to `value` (null rows never match). The filter runs
/// on the encoded data. `SA_STATUS_TYPE_MISMATCH` for a column of another type.
///
/// Ownership: on success `*out` is a new selection the caller owns (free with
/// `sa_selection_free`). Thread-safe.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_eq_u64(
    column: *const SaColumn,
    value: u64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(Predicate::eq(value)), out) })
}

/// Like `sa_column_filter_eq_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_eq_i64(
    column: *const SaColumn,
    value: i64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(Predicate::eq(value)), out) })
}

/// Like `sa_column_filter_eq_u64`, for a Float64 column: equality of bit patterns (NaN matches
/// the same NaN; -0.0 does not match 0.0).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_eq_f64(
    column: *const SaColumn,
    value: f64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(Predicate::eq(value)), out) })
}

/// Selects the rows of a Utf8 column equal to the `len` bytes at `text` (UTF-8, not
/// NUL-terminated; NULL is accepted when `len` is 0).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`, and `text` must point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_eq_utf8(
    column: *const SaColumn,
    text: *const c_char,
    len: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let text = unsafe { text_in(text, len, "text") }?;
        // SAFETY: forwarded from the caller.
        unsafe { filter(column, |_| Ok(Predicate::eq(text)), out) }
    })
}

/// Selects the rows of a Utf8 column that start with the `len` bytes at `text`.
/// `SA_STATUS_UNSUPPORTED` for a column of another type.
///
/// # Safety
/// As for `sa_column_filter_eq_utf8`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_prefix_utf8(
    column: *const SaColumn,
    text: *const c_char,
    len: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let text = unsafe { text_in(text, len, "text") }?;
        // SAFETY: forwarded from the caller.
        unsafe { filter(column, |_| Ok(Predicate::prefix(text)), out) }
    })
}

/// Selects the rows of a UInt64 column with `lo <= value <= hi` (both ends included; nothing
/// when `lo > hi`).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_range_u64(
    column: *const SaColumn,
    lo: u64,
    hi: u64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(between(lo, hi)), out) })
}

/// Like `sa_column_filter_range_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_range_i64(
    column: *const SaColumn,
    lo: i64,
    hi: i64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(between(lo, hi)), out) })
}

/// Like `sa_column_filter_range_u64`, for a Float64 column, in IEEE total order (-NaN < -inf <
/// ... < -0.0 < 0.0 < ... < inf < NaN).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_range_f64(
    column: *const SaColumn,
    lo: f64,
    hi: f64,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(between(lo, hi)), out) })
}

fn between(lo: impl Into<Scalar>, hi: impl Into<Scalar>) -> Predicate {
    Predicate::Range {
        lo: Bound::Included(lo.into()),
        hi: Bound::Included(hi.into()),
    }
}

/// The body of `sa_column_filter_in_u64`, `_i64` and `_f64`: the rows equal to any of
/// `values[0..count]`.
///
/// # Safety
/// As for `sa_column_filter_in_u64`.
unsafe fn filter_in<T: Copy + Into<Scalar>>(
    column: *const SaColumn,
    values: *const T,
    count: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let values = unsafe { ptr::slice(values, count, "values") }?;
        // SAFETY: forwarded from the caller.
        unsafe {
            filter(
                column,
                |_| Ok(Predicate::is_in(values.iter().copied())),
                out,
            )
        }
    })
}

/// Selects the rows of a UInt64 column equal to any of `values[0..count]` (an empty list selects
/// nothing; `values` may be NULL when `count` is 0).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`, and `values` must point to `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_in_u64(
    column: *const SaColumn,
    values: *const u64,
    count: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { filter_in(column, values, count, out) }
}

/// Like `sa_column_filter_in_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_filter_in_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_in_i64(
    column: *const SaColumn,
    values: *const i64,
    count: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { filter_in(column, values, count, out) }
}

/// Like `sa_column_filter_in_u64`, for a Float64 column (bit-pattern equality).
///
/// # Safety
/// As for `sa_column_filter_in_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_in_f64(
    column: *const SaColumn,
    values: *const f64,
    count: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { filter_in(column, values, count, out) }
}

/// Selects the rows of a Utf8 column equal to any of `count` strings given as for
/// `sa_column_from_utf8` (`bytes`, `bytes_len` and `count + 1` offsets).
///
/// # Safety
/// As for `sa_column_filter_eq_u64`; `bytes` must point to `bytes_len` readable bytes and
/// `offsets` to `count + 1` readable values.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_in_utf8(
    column: *const SaColumn,
    bytes: *const c_char,
    bytes_len: usize,
    offsets: *const usize,
    count: usize,
    out: *mut *mut SaSelection,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let strings = unsafe { strings_in(bytes, bytes_len, offsets, count) }?;
        // SAFETY: forwarded from the caller.
        unsafe {
            filter(
                column,
                |_| Ok(Predicate::is_in(strings.iter().copied())),
                out,
            )
        }
    })
}

/// Selects the null rows (`is_null` true) or the valid rows (`is_null` false), of a column of
/// any type.
///
/// # Safety
/// As for `sa_column_filter_eq_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_filter_null(
    column: *const SaColumn,
    is_null: bool,
    out: *mut *mut SaSelection,
) -> SaStatus {
    let predicate = if is_null {
        Predicate::IsNull
    } else {
        Predicate::IsNotNull
    };
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { filter(column, |_| Ok(predicate), out) })
}

/// Borrows the selection behind a handle.
///
/// # Safety
/// `selection` must be NULL or a live handle from this library.
unsafe fn borrow_selection<'a>(selection: *const SaSelection) -> FfiResult<&'a Selection> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::borrow(selection, "selection") }.map(|handle| &handle.selection)
}

/// Frees a selection. NULL is ignored.
///
/// # Safety
/// `selection` must be NULL or a live handle not freed before; it is invalid afterwards.
#[no_mangle]
pub unsafe extern "C" fn sa_selection_free(selection: *mut SaSelection) {
    if selection.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from `filter`, exactly once.
        drop(unsafe { Box::from_raw(selection) });
    }));
}

/// Writes the number of rows the selection is over (the column's length) to `*out`.
///
/// # Safety
/// `selection` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_selection_rows(
    selection: *const SaSelection,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow_selection(selection)?.rows()) })
}

/// Writes the number of selected rows to `*out`.
///
/// # Safety
/// `selection` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_selection_count(
    selection: *const SaSelection,
    out: *mut usize,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    guard(|| unsafe { ptr::write(out, "out", borrow_selection(selection)?.count()) })
}

/// Writes the selected row ids, ascending, to `out[0..count]` where `count` is
/// `sa_selection_count`; `SA_STATUS_BUFFER_TOO_SMALL` (nothing written) when `capacity` is less.
/// The ids can be passed to `sa_column_take_*`.
///
/// # Safety
/// `selection` must be NULL or a live handle; `out` must be valid for writing `capacity` values
/// (NULL when `capacity` is 0).
#[no_mangle]
pub unsafe extern "C" fn sa_selection_row_ids(
    selection: *const SaSelection,
    out: *mut usize,
    capacity: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let selection = unsafe { borrow_selection(selection) }?;
        let count = selection.count();
        if capacity < count {
            return Err(FfiError::new(
                SaStatus::BufferTooSmall,
                format!("{count} rows are selected but `out` holds {capacity}"),
            ));
        }
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, count, "out") }?;
        for (slot, row) in out.iter_mut().zip(selection.iter()) {
            *slot = row;
        }
        Ok(())
    })
}

/// Writes the selection as a bitmap of `ceil(rows / 64)` words to `out` (bit `i % 64` of word
/// `i / 64` set for a selected row `i`; bits past the end are 0); `SA_STATUS_BUFFER_TOO_SMALL`
/// (nothing written) when `capacity` words are fewer.
///
/// # Safety
/// `selection` must be NULL or a live handle; `out` must be valid for writing `capacity` values
/// (NULL when `capacity` is 0).
#[no_mangle]
pub unsafe extern "C" fn sa_selection_words(
    selection: *const SaSelection,
    out: *mut u64,
    capacity: usize,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let words = unsafe { borrow_selection(selection) }?.words();
        if capacity < words.len() {
            return Err(FfiError::new(
                SaStatus::BufferTooSmall,
                format!(
                    "the bitmap takes {} words but `out` holds {capacity}",
                    words.len()
                ),
            ));
        }
        // SAFETY: forwarded from the caller.
        let out = unsafe { ptr::slice_mut(out, words.len(), "out") }?;
        out.copy_from_slice(words);
        Ok(())
    })
}

/// The column's exact sum (an error for types without one).
///
/// # Safety
/// `column` must be NULL or a live handle.
unsafe fn sum_of(column: *const SaColumn) -> FfiResult<(Sum, DataType)> {
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    Ok((column.sum()?, column.data_type()))
}

fn not_float(data_type: DataType, function: &str) -> FfiResult {
    if data_type == DataType::Float64 {
        return Err(FfiError::new(
            SaStatus::TypeMismatch,
            format!("{function} sums integer columns; use sa_column_sum_f64 for a Float64 column"),
        ));
    }
    Ok(())
}

/// The body of `sa_column_sum_i64` and `_u64`: the exact sum of an integer column, converted
/// by `convert` (which fails with `SA_STATUS_OVERFLOW` when the sum does not fit).
///
/// # Safety
/// As for `sa_column_sum_i64`.
unsafe fn write_integer_sum<T>(
    column: *const SaColumn,
    out: *mut T,
    function: &str,
    convert: impl FnOnce(Sum) -> smartarrays_encodings::Result<T>,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let (sum, data_type) = unsafe { sum_of(column) }?;
        not_float(data_type, function)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", convert(sum)?) }
    })
}

/// Writes the exact sum of the valid values of an integer column to `*out`, or fails with
/// `SA_STATUS_OVERFLOW` when it does not fit in `int64_t` (use `sa_column_sum_i128` for every
/// sum). Nulls are skipped; an empty column sums to 0. `SA_STATUS_UNSUPPORTED` for strings,
/// `SA_STATUS_TYPE_MISMATCH` for doubles (`sa_column_sum_f64`).
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_sum_i64(column: *const SaColumn, out: *mut i64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_integer_sum(column, out, "sa_column_sum_i64", Sum::to_i64) }
}

/// Like `sa_column_sum_i64`, as a `uint64_t` (`SA_STATUS_OVERFLOW` for a sum above `UINT64_MAX`
/// or below 0).
///
/// # Safety
/// As for `sa_column_sum_i64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_sum_u64(column: *const SaColumn, out: *mut u64) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_integer_sum(column, out, "sa_column_sum_u64", Sum::to_u64) }
}

/// Writes the exact sum of the valid values of an integer column as a two's complement 128-bit
/// integer in two words: the sum is `high * 2^64 + low` (`high` is -1 and `low` the 64-bit
/// pattern for a small negative sum). Never overflows for an Int64 column; for a UInt64 column
/// it is `SA_STATUS_OVERFLOW` only past 2^127. Errors otherwise as for `sa_column_sum_i64`.
///
/// # Safety
/// `column` must be NULL or a live handle; `low` and `high` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_sum_i128(
    column: *const SaColumn,
    low: *mut u64,
    high: *mut i64,
) -> SaStatus {
    guard(|| {
        ptr::check_out(low, "low")?;
        ptr::check_out(high, "high")?;
        // SAFETY: forwarded from the caller.
        let (sum, data_type) = unsafe { sum_of(column) }?;
        not_float(data_type, "sa_column_sum_i128")?;
        let wide: i128 = match sum {
            Sum::Int(v) | Sum::Decimal { unscaled: v, .. } => v,
            Sum::UInt(v) => i128::try_from(v).map_err(|_| {
                FfiError::new(
                    SaStatus::Overflow,
                    format!("the sum {v} does not fit in a signed 128-bit integer"),
                )
            })?,
            Sum::Float(_) => return not_float(DataType::Float64, "sa_column_sum_i128"),
        };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(low, "low", wide as u64) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(high, "high", (wide >> 64) as i64) }
    })
}

/// Writes the sum of the valid values of a Float64 column (added as doubles in row order) to
/// `*out`; `SA_STATUS_TYPE_MISMATCH` for other types.
///
/// # Safety
/// `column` must be NULL or a live handle; `out` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_sum_f64(column: *const SaColumn, out: *mut f64) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let column = unsafe { borrow(column) }?;
        expect_type(column, DataType::Float64, "sa_column_sum_f64")?;
        let total = match column.sum()? {
            Sum::Float(v) => v,
            _ => 0.0,
        };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", total) }
    })
}

/// The smallest and largest valid value of a column of type `expected`.
///
/// # Safety
/// `column` must be NULL or a live handle.
unsafe fn min_max(
    column: *const SaColumn,
    expected: DataType,
    function: &str,
) -> FfiResult<(Scalar, Scalar)> {
    // SAFETY: forwarded from the caller.
    let column = unsafe { borrow(column) }?;
    expect_type(column, expected, function)?;
    column.min_max()?.ok_or_else(|| {
        FfiError::new(
            SaStatus::EmptyArray,
            "the column has no valid value, so it has no smallest or largest value",
        )
    })
}

/// The body of every `sa_column_min_max_*`.
///
/// # Safety
/// As for `sa_column_min_max_u64`.
unsafe fn write_min_max<T: CValue>(
    column: *const SaColumn,
    min: *mut T,
    max: *mut T,
    function: &str,
) -> SaStatus {
    guard(|| {
        ptr::check_out(min, "min")?;
        ptr::check_out(max, "max")?;
        // SAFETY: forwarded from the caller.
        let (lo, hi) = unsafe { min_max(column, T::DATA_TYPE, function) }?;
        let (Some(lo), Some(hi)) = (T::from_scalar(lo), T::from_scalar(hi)) else {
            return Err(FfiError::new(
                SaStatus::Other,
                "min/max of an unexpected type",
            ));
        };
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(min, "min", lo) }?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(max, "max", hi) }
    })
}

/// Writes the smallest and largest valid value of a UInt64 column to `*min` and `*max`;
/// `SA_STATUS_EMPTY_ARRAY` when the column is empty or all null.
///
/// # Safety
/// `column` must be NULL or a live handle; `min` and `max` must be NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_column_min_max_u64(
    column: *const SaColumn,
    min: *mut u64,
    max: *mut u64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_min_max(column, min, max, "sa_column_min_max_u64") }
}

/// Like `sa_column_min_max_u64`, for an Int64 column.
///
/// # Safety
/// As for `sa_column_min_max_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_min_max_i64(
    column: *const SaColumn,
    min: *mut i64,
    max: *mut i64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_min_max(column, min, max, "sa_column_min_max_i64") }
}

/// Like `sa_column_min_max_u64`, for a Float64 column, in IEEE total order (so a NaN with the
/// sign bit clear is the largest value, and -0.0 is below 0.0).
///
/// # Safety
/// As for `sa_column_min_max_u64`.
#[no_mangle]
pub unsafe extern "C" fn sa_column_min_max_f64(
    column: *const SaColumn,
    min: *mut f64,
    max: *mut f64,
) -> SaStatus {
    // SAFETY: forwarded from the caller.
    unsafe { write_min_max(column, min, max, "sa_column_min_max_f64") }
}
