//! The Python class `smartarrays.Column`: a typed, compressed column of the encodings crate
//! ([`smartarrays_encodings::Column`]) behind numpy and Arrow. Values come in as numpy arrays
//! (int8..int64, uint8..uint64, float32/64, bool, datetime64[D], str and object arrays of one
//! kind of Python object, `decimal.Decimal` included, masked arrays for nulls), Python sequences, or Arrow arrays through
//! the PyCapsule interface; they go out with the same dtype. The column remembers the dtype it
//! was built from (its `Logical` type) and stores every integer type in the crate's 64-bit types, so a
//! value always comes back exactly: nothing is cast silently, and what has no exact
//! representation (complex numbers, float16, other datetime units, objects of mixed types) is a
//! `TypeError` naming it.

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PySlice, PyString, PyTuple};
use smartarrays::ArrayOptions;
use smartarrays_arrow::arrow_array::cast::AsArray;
use smartarrays_arrow::arrow_array::types::{
    Date32Type, Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use smartarrays_arrow::arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float32Array, Float64Array,
    Int16Array, Int32Array, Int64Array, Int8Array, LargeStringArray, StringArray, UInt16Array,
    UInt32Array, UInt64Array, UInt8Array,
};
use smartarrays_arrow::arrow_buffer::NullBuffer;
use smartarrays_arrow::arrow_schema::DataType as ArrowType;
use smartarrays_encodings::decimal::format as decimal_text;
use smartarrays_encodings::{
    Canonical, Column, ColumnOptions, DataType, EncodingError, EncodingKind, Predicate, Scalar,
    Selection, Sum, Values,
};

use crate::buffer::{copy_u64_words, new_numpy_u64, numpy_from_words};
use crate::smart_array::{cast_to, refuse_no_copy};
use crate::{arrow, info, input, runtime};

/// A crate error as the Python exception a caller expects.
pub fn encoding_error(error: EncodingError) -> PyErr {
    let message = error.to_string();
    match error {
        EncodingError::Array(error) => crate::errors::to_py(error),
        EncodingError::IndexOutOfRange { .. } | EncodingError::RangeOutOfBounds { .. } => {
            PyIndexError::new_err(message)
        }
        EncodingError::Unsupported { .. } | EncodingError::TypeMismatch { .. } => {
            PyTypeError::new_err(message)
        }
        _ => PyValueError::new_err(message),
    }
}

trait IntoPyEncoding<T> {
    fn py_enc(self) -> PyResult<T>;
}

impl<T> IntoPyEncoding<T> for Result<T, EncodingError> {
    fn py_enc(self) -> PyResult<T> {
        self.map_err(encoding_error)
    }
}

/// The dtype a column was built from: what its values decode back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Logical {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    Bool,
    Date,
    Str,
    /// Exact decimals at a scale (0..=18): `decimal.Decimal` objects out.
    Decimal(u8),
}

impl Logical {
    /// The numpy dtype name of the decoded values (strings: object arrays of `str`).
    fn numpy(self) -> &'static str {
        match self {
            Logical::I8 => "int8",
            Logical::I16 => "int16",
            Logical::I32 => "int32",
            Logical::I64 => "int64",
            Logical::U8 => "uint8",
            Logical::U16 => "uint16",
            Logical::U32 => "uint32",
            Logical::U64 => "uint64",
            Logical::F32 => "float32",
            Logical::F64 => "float64",
            Logical::Bool => "bool",
            Logical::Date => "datetime64[D]",
            Logical::Str | Logical::Decimal(_) => "object",
        }
    }

    fn signed(self) -> bool {
        matches!(
            self,
            Logical::I8 | Logical::I16 | Logical::I32 | Logical::I64
        )
    }

    fn unsigned(self) -> bool {
        matches!(
            self,
            Logical::U8 | Logical::U16 | Logical::U32 | Logical::U64
        )
    }

    /// The range of the dtype, for integers and dates.
    fn integer_range(self) -> (i128, i128) {
        match self {
            Logical::I8 => (i8::MIN.into(), i8::MAX.into()),
            Logical::I16 => (i16::MIN.into(), i16::MAX.into()),
            Logical::I32 | Logical::Date => (i32::MIN.into(), i32::MAX.into()),
            Logical::I64 => (i64::MIN.into(), i64::MAX.into()),
            Logical::U8 => (0, u8::MAX.into()),
            Logical::U16 => (0, u16::MAX.into()),
            Logical::U32 => (0, u32::MAX.into()),
            _ => (0, u64::MAX.into()),
        }
    }

    /// The scalar of an integer (or day number) known to be in [`Logical::integer_range`].
    fn integer_scalar(self, value: i128) -> Scalar {
        if self.signed() {
            Scalar::Int64(value as i64)
        } else if self == Logical::Date {
            Scalar::Date32(value as i32)
        } else {
            Scalar::UInt64(value as u64)
        }
    }

    fn arrow(self) -> ArrowType {
        match self {
            Logical::I8 => ArrowType::Int8,
            Logical::I16 => ArrowType::Int16,
            Logical::I32 => ArrowType::Int32,
            Logical::I64 => ArrowType::Int64,
            Logical::U8 => ArrowType::UInt8,
            Logical::U16 => ArrowType::UInt16,
            Logical::U32 => ArrowType::UInt32,
            Logical::U64 => ArrowType::UInt64,
            Logical::F32 => ArrowType::Float32,
            Logical::F64 => ArrowType::Float64,
            Logical::Bool => ArrowType::Boolean,
            Logical::Date => ArrowType::Date32,
            Logical::Str => ArrowType::Utf8,
            Logical::Decimal(scale) => ArrowType::Decimal128(38, scale as i8),
        }
    }
}

/// Values read from Python, in the crate's types.
enum Data {
    U(Vec<u64>),
    I(Vec<i64>),
    F(Vec<f64>),
    B(Vec<bool>),
    D(Vec<i32>),
    S(Vec<String>),
    /// Unscaled decimals at a scale.
    Dec(Vec<i64>, u8),
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::U(v) => v.len(),
            Data::I(v) => v.len(),
            Data::F(v) => v.len(),
            Data::B(v) => v.len(),
            Data::D(v) => v.len(),
            Data::S(v) => v.len(),
            Data::Dec(v, _) => v.len(),
        }
    }

    /// Builds the column (without the GIL): the typed constructors, or scalars with nulls.
    fn build(
        self,
        valid: Option<Vec<bool>>,
        options: &ColumnOptions,
    ) -> Result<Column, EncodingError> {
        let valid = valid.filter(|v| v.iter().any(|&ok| !ok));
        let Some(valid) = valid else {
            return match self {
                Data::U(v) => Column::from_u64(&v, options),
                Data::I(v) => Column::from_i64(&v, options),
                Data::F(v) => Column::from_f64(&v, options),
                Data::B(v) => Column::from_bool(&v, options),
                Data::D(v) => Column::from_dates(&v, options),
                Data::S(v) => Column::from_strs(&v, options),
                Data::Dec(v, scale) => Column::from_decimal(&v, scale, options),
            };
        };
        fn with_nulls<T>(values: Vec<T>, valid: &[bool], to: impl Fn(T) -> Scalar) -> Vec<Scalar> {
            values
                .into_iter()
                .zip(valid)
                .map(|(v, &ok)| if ok { to(v) } else { Scalar::Null })
                .collect()
        }
        let (data_type, scalars) = match self {
            Data::U(v) => (DataType::UInt64, with_nulls(v, &valid, Scalar::UInt64)),
            Data::I(v) => (DataType::Int64, with_nulls(v, &valid, Scalar::Int64)),
            Data::F(v) => (DataType::Float64, with_nulls(v, &valid, Scalar::Float64)),
            Data::B(v) => (DataType::Bool, with_nulls(v, &valid, Scalar::Bool)),
            Data::D(v) => (DataType::Date32, with_nulls(v, &valid, Scalar::Date32)),
            Data::S(v) => (DataType::Utf8, with_nulls(v, &valid, Scalar::Utf8)),
            Data::Dec(v, scale) => (
                DataType::Decimal { scale },
                with_nulls(v, &valid, |unscaled| Scalar::Decimal { unscaled, scale }),
            ),
        };
        Column::from_scalars(data_type, &scalars, options)
    }
}

/// What a Python input turned into: values, validity, and how to give them back.
struct Input {
    data: Data,
    valid: Option<Vec<bool>>,
    logical: Logical,
    /// The numpy dtype `to_numpy()` gives (the input's; object for object arrays).
    out_dtype: Py<PyAny>,
    /// Whether nulls go out as a numpy masked array (the input was one, or the dtype has no
    /// null of its own).
    masked: bool,
}

impl Input {
    /// Appends the values of `next`, a later chunk of the same Arrow stream (so of the same
    /// logical type).
    fn append(&mut self, next: Input) -> PyResult<()> {
        if next.logical != self.logical {
            return Err(PyTypeError::new_err(format!(
                "the Arrow stream changed type between chunks ({:?}, then {:?})",
                self.logical, next.logical
            )));
        }
        let before = self.data.len();
        let added = next.data.len();
        match (&mut self.data, next.data) {
            (Data::U(a), Data::U(b)) => a.extend(b),
            (Data::I(a), Data::I(b)) => a.extend(b),
            (Data::F(a), Data::F(b)) => a.extend(b),
            (Data::B(a), Data::B(b)) => a.extend(b),
            (Data::D(a), Data::D(b)) => a.extend(b),
            (Data::S(a), Data::S(b)) => a.extend(b),
            (Data::Dec(a, _), Data::Dec(b, _)) => a.extend(b),
            _ => unreachable!("one logical type reads into one kind of data"),
        }
        match (&mut self.valid, next.valid) {
            (None, None) => {}
            (Some(valid), None) => valid.resize(before + added, true),
            (valid, Some(more)) => {
                let mut all = valid.take().unwrap_or_else(|| vec![true; before]);
                all.extend(more);
                *valid = Some(all);
            }
        }
        self.masked |= next.masked;
        Ok(())
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A numpy array converted exactly to a 64-bit dtype (`int64`, `uint64`, `float64`), read as
/// the raw words.
fn words64(numpy: &Bound<'_, PyAny>, array: &Bound<'_, PyAny>, dtype: &str) -> PyResult<Vec<u64>> {
    let contiguous = numpy.call_method1("ascontiguousarray", (array, dtype))?;
    copy_u64_words(&contiguous.call_method1("view", ("uint64",))?)
}

/// Reads a Python value into column input.
fn read_input(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<Input> {
    let numpy = py.import("numpy")?;
    if values.hasattr("__arrow_c_array__")? {
        return read_arrow(py, &arrow::import_array(values)?);
    }
    if values.hasattr("__arrow_c_stream__")? {
        return read_arrow_chunks(py, &arrow::import_stream(values)?);
    }
    let ndarray = numpy.getattr("ndarray")?;
    if values.is_instance(&ndarray)? {
        return read_numpy(py, values);
    }
    if values.is_instance_of::<PyString>() || values.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "expected a one-dimensional sequence, numpy array or Arrow array of values, got {}",
            type_name(values)
        )));
    }
    if values.is_instance_of::<PyList>() || values.is_instance_of::<PyTuple>() {
        return read_objects(py, values, false);
    }
    if values.hasattr("__array__")? {
        refuse_nulls_through_numpy(values)?;
        return read_numpy(py, &numpy.call_method1("asarray", (values,))?);
    }
    let listed = PyList::new(
        py,
        values
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                "expected a one-dimensional sequence, numpy array or Arrow array of values, got {}",
                type_name(values)
            ))
            })?
            .collect::<PyResult<Vec<_>>>()?,
    )?;
    read_objects(py, listed.as_any(), false)
}

/// Arrow-backed objects without `__arrow_c_array__` (pyarrow chunked arrays, polars series)
/// that hold nulls: numpy would turn them into NaN or objects, a silent change of type, so the
/// caller is asked for an Arrow array, whose nulls stay nulls.
fn refuse_nulls_through_numpy(values: &Bound<'_, PyAny>) -> PyResult<()> {
    let Ok(count) = values.getattr("null_count") else {
        return Ok(());
    };
    // pyarrow: an attribute; polars: a method.
    let count = if count.is_callable() {
        count.call0()?
    } else {
        count
    };
    let nulls = count.extract::<u64>().unwrap_or(0);
    if nulls > 0 {
        return Err(PyValueError::new_err(format!(
            "{} holds {nulls} null(s), which a numpy conversion would turn into NaN or objects: \
             pass an Arrow array instead (pyarrow: chunked.combine_chunks(); polars: \
             series.to_arrow()) so they stay nulls",
            type_name(values)
        )));
    }
    Ok(())
}

/// A numpy array (masked arrays give their mask as nulls).
fn read_numpy(py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<Input> {
    let numpy = py.import("numpy")?;
    let ndim: usize = values.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "a column is one-dimensional, got an array of {ndim} dimensions (flatten it first, e.g. values.ravel())"
        )));
    }
    let ma = numpy.getattr("ma")?;
    let masked = values.is_instance(&ma.getattr("MaskedArray")?)?;
    let (array, valid) = if masked {
        let mask = ma.call_method1("getmaskarray", (values,))?;
        let flags = words64(&numpy, &mask, "uint64")?;
        (
            ma.call_method1("getdata", (values,))?,
            Some(flags.into_iter().map(|m| m == 0).collect::<Vec<bool>>()),
        )
    } else {
        (values.clone(), None)
    };
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    let dtype_text: String = dtype.str()?.extract()?;
    let unsupported = |why: &str| {
        PyTypeError::new_err(format!(
            "numpy dtype {dtype_text} is not supported by columns: {why}"
        ))
    };
    let (data, logical) = match (kind.as_str(), itemsize) {
        ("i", 1 | 2 | 4 | 8) => {
            let words = words64(&numpy, &array, "int64")?;
            let logical = [Logical::I8, Logical::I16, Logical::I32, Logical::I64]
                [itemsize.trailing_zeros() as usize];
            (Data::I(words.into_iter().map(|w| w as i64).collect()), logical)
        }
        ("u", 1 | 2 | 4 | 8) => {
            let logical = [Logical::U8, Logical::U16, Logical::U32, Logical::U64]
                [itemsize.trailing_zeros() as usize];
            (Data::U(words64(&numpy, &array, "uint64")?), logical)
        }
        ("f", 8) => {
            let words = words64(&numpy, &array, "float64")?;
            (
                Data::F(words.into_iter().map(f64::from_bits).collect()),
                Logical::F64,
            )
        }
        ("f", 4) => {
            // The float32 bits, widened here (numpy's cast would quiet signaling NaNs).
            let bits = words64(&numpy, &array.call_method1("view", ("uint32",))?, "uint64")?;
            (
                Data::F(bits.into_iter().map(|b| widen_f32(b as u32)).collect()),
                Logical::F32,
            )
        }
        ("f", _) => {
            return Err(unsupported(
                "floats are float32 or float64 (convert float16 with values.astype('float32'), which is exact)",
            ))
        }
        ("b", 1) => {
            let words = words64(&numpy, &array, "uint64")?;
            (Data::B(words.into_iter().map(|w| w != 0).collect()), Logical::Bool)
        }
        ("M", 8) => {
            let unit: String = numpy
                .call_method1("datetime_data", (&dtype,))?
                .get_item(0)?
                .extract()?;
            if unit != "D" {
                return Err(unsupported(
                    "dates are datetime64[D] (days); convert with values.astype('datetime64[D]') once every value is a whole day",
                ));
            }
            let days = words64(&numpy, &array.call_method1("view", ("int64",))?, "int64")?;
            let mut valid = valid.clone().unwrap_or_else(|| vec![true; days.len()]);
            let mut out = Vec::with_capacity(days.len());
            for (index, &word) in days.iter().enumerate() {
                let day = word as i64;
                if day == i64::MIN {
                    // NaT: a null.
                    valid[index] = false;
                    out.push(0);
                    continue;
                }
                out.push(i32::try_from(day).map_err(|_| {
                    PyValueError::new_err(format!(
                        "date at index {index} is {day} days from 1970-01-01, outside the 32-bit day range of date columns"
                    ))
                })?);
            }
            return Ok(Input {
                data: Data::D(out),
                valid: Some(valid),
                logical: Logical::Date,
                out_dtype: dtype.unbind(),
                masked,
            });
        }
        ("U" | "T", _) => {
            let listed = array.call_method0("tolist")?;
            let mut input = read_objects(py, &listed, true)?;
            input.out_dtype = dtype.unbind();
            if let Some(flags) = valid {
                input.valid = Some(match input.valid {
                    Some(own) => own.iter().zip(&flags).map(|(a, b)| *a && *b).collect(),
                    None => flags,
                });
            }
            input.masked = masked || (input.masked && kind == "T");
            return Ok(input);
        }
        ("O", _) => {
            let listed = array.call_method0("tolist")?;
            let mut input = read_objects(py, &listed, true)?;
            input.out_dtype = dtype.unbind();
            if let Some(flags) = valid {
                input.valid = Some(match input.valid {
                    Some(own) => own.iter().zip(&flags).map(|(a, b)| *a && *b).collect(),
                    None => flags,
                });
            }
            input.masked = masked;
            return Ok(input);
        }
        ("c", _) => {
            return Err(unsupported(
                "complex numbers have no column type (store the real and imaginary parts as two float64 columns)",
            ))
        }
        ("m", _) => return Err(unsupported("timedeltas have no column type (convert them to integers of a unit)")),
        ("S", _) => return Err(unsupported("byte strings have no column type (decode them to str first)")),
        _ => return Err(unsupported("columns take integers, float32/64, bool, datetime64[D] and str")),
    };
    let has_nulls = valid.as_ref().is_some_and(|v| v.iter().any(|&ok| !ok));
    Ok(Input {
        data,
        valid,
        logical,
        out_dtype: dtype.unbind(),
        masked: masked || has_nulls,
    })
}

/// A float32 as the float64 of the same value, bit-exact for every NaN: the payload moves to
/// the top of the wider mantissa, so a signaling NaN stays signaling (a hardware conversion
/// would quiet it) and [`narrow_f64`] gives back the very bits.
fn widen_f32(bits: u32) -> f64 {
    let value = f32::from_bits(bits);
    if !value.is_nan() {
        return f64::from(value);
    }
    let sign = u64::from(bits >> 31) << 63;
    let payload = u64::from(bits & 0x007F_FFFF) << 29;
    f64::from_bits(sign | 0x7FF0_0000_0000_0000 | payload)
}

/// The float32 a [`widen_f32`] value came from (its exact value, NaN bits included).
fn narrow_f64(value: f64) -> f32 {
    if !value.is_nan() {
        return value as f32;
    }
    let bits = value.to_bits();
    let sign = ((bits >> 63) as u32) << 31;
    let payload = ((bits >> 29) & 0x007F_FFFF) as u32;
    f32::from_bits(sign | 0x7F80_0000 | payload)
}

/// What one Python object is, for columns built from objects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ObjectKind {
    Str,
    Int,
    Float,
    Bool,
    Decimal,
}

impl ObjectKind {
    fn name(self) -> &'static str {
        match self {
            ObjectKind::Str => "str",
            ObjectKind::Int => "int",
            ObjectKind::Float => "float",
            ObjectKind::Bool => "bool",
            ObjectKind::Decimal => "Decimal",
        }
    }
}

fn object_kind(
    numpy: &Bound<'_, PyAny>,
    decimal: &Bound<'_, PyAny>,
    item: &Bound<'_, PyAny>,
) -> PyResult<Option<ObjectKind>> {
    Ok(if item.is_instance_of::<PyString>() {
        Some(ObjectKind::Str)
    } else if item.is_instance_of::<PyBool>() || item.is_instance(&numpy.getattr("bool_")?)? {
        Some(ObjectKind::Bool)
    } else if item.is_instance_of::<PyInt>() || item.is_instance(&numpy.getattr("integer")?)? {
        Some(ObjectKind::Int)
    } else if item.is_instance_of::<PyFloat>() || item.is_instance(&numpy.getattr("floating")?)? {
        Some(ObjectKind::Float)
    } else if item.is_instance(decimal)? {
        Some(ObjectKind::Decimal)
    } else {
        None
    })
}

/// A sequence of Python objects of one kind (str, int, float or bool), `None` for nulls.
/// `from_array`: the objects of a numpy array (an empty one is a string column; an empty
/// Python sequence has no type to tell).
fn read_objects(py: Python<'_>, values: &Bound<'_, PyAny>, from_array: bool) -> PyResult<Input> {
    let numpy = py.import("numpy")?;
    let decimal_class = py.import("decimal")?.getattr("Decimal")?;
    let items: Vec<Bound<'_, PyAny>> = values.try_iter()?.collect::<PyResult<_>>()?;
    let mut kind: Option<(ObjectKind, usize)> = None;
    let mut valid = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        if item.is_none() {
            valid.push(false);
            continue;
        }
        valid.push(true);
        let Some(this) = object_kind(&numpy, &decimal_class, item)? else {
            return Err(PyTypeError::new_err(format!(
                "element {index} is {}: columns hold str, int, float, bool, decimal.Decimal or None",
                type_name(item)
            )));
        };
        match kind {
            None => kind = Some((this, index)),
            Some((first, at)) if first != this => {
                return Err(PyTypeError::new_err(format!(
                    "mixed objects: element {at} is {} but element {index} is {}; a column holds one type (convert explicitly)",
                    first.name(),
                    this.name()
                )))
            }
            Some(_) => {}
        }
    }
    let any_null = valid.iter().any(|&ok| !ok);
    let kind = match kind {
        Some((kind, _)) => kind,
        None if items.is_empty() && from_array => ObjectKind::Str,
        None if items.is_empty() => {
            return Err(PyTypeError::new_err(
                "cannot tell the type of an empty sequence: pass a numpy array with a dtype (e.g. numpy.array([], dtype='int64'))",
            ))
        }
        // Only None: a string column of nulls.
        None => ObjectKind::Str,
    };
    let (data, logical) = match kind {
        ObjectKind::Str => {
            let mut strings = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                if item.is_none() {
                    strings.push(String::new());
                    continue;
                }
                strings.push(item.extract::<String>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "string at index {index} is not valid Unicode text (it holds a lone surrogate) and cannot be stored as UTF-8"
                    ))
                })?);
            }
            (Data::S(strings), Logical::Str)
        }
        ObjectKind::Bool => {
            let flags = items
                .iter()
                .map(|item| Ok(!item.is_none() && item.is_truthy()?))
                .collect::<PyResult<Vec<bool>>>()?;
            (Data::B(flags), Logical::Bool)
        }
        ObjectKind::Float => {
            let floats = items
                .iter()
                .map(|item| {
                    if item.is_none() {
                        Ok(0.0)
                    } else {
                        item.extract::<f64>()
                    }
                })
                .collect::<PyResult<Vec<f64>>>()?;
            (Data::F(floats), Logical::F64)
        }
        ObjectKind::Decimal => {
            let (unscaled, scale) = read_decimals(&items)?;
            (Data::Dec(unscaled, scale), Logical::Decimal(scale))
        }
        ObjectKind::Int => {
            let mut wide = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                if item.is_none() {
                    wide.push(None);
                    continue;
                }
                let integer = input::integer_value(item).unwrap_or_else(|| item.clone());
                wide.push(Some(integer.extract::<i128>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "integer {integer} at index {index} fits neither int64 nor uint64"
                    ))
                })?));
            }
            let present = wide.iter().flatten();
            let min = present.clone().min().copied().unwrap_or(0);
            let max = present.max().copied().unwrap_or(0);
            if min >= i128::from(i64::MIN) && max <= i128::from(i64::MAX) {
                (
                    Data::I(wide.iter().map(|v| v.unwrap_or(0) as i64).collect()),
                    Logical::I64,
                )
            } else if min >= 0 && max <= i128::from(u64::MAX) {
                (
                    Data::U(wide.iter().map(|v| v.unwrap_or(0) as u64).collect()),
                    Logical::U64,
                )
            } else {
                return Err(PyValueError::new_err(format!(
                    "integers from {min} to {max} fit neither int64 nor uint64 as one column \
                     (negative values need int64, values above 2**63-1 need uint64)"
                )));
            }
        }
    };
    // Sequences decode to their natural numpy dtype; object arrays (the caller replaces
    // out_dtype) stay object arrays.
    let out_dtype = numpy.getattr("dtype")?.call1((logical.numpy(),))?.unbind();
    let masked = any_null && !matches!(logical, Logical::Str | Logical::Decimal(_));
    Ok(Input {
        data,
        valid: Some(valid),
        logical,
        out_dtype,
        masked,
    })
}

/// The largest scale a decimal column holds (digits after the point).
const MAX_DECIMAL_SCALE: u8 = 18;

/// `10^exponent` as an `i128`, `None` past its range.
fn pow10(exponent: u64) -> Option<i128> {
    u32::try_from(exponent)
        .ok()
        .and_then(|e| 10i128.checked_pow(e))
}

/// `decimal.Decimal` objects (`None` for nulls) as unscaled values at the largest scale among
/// them, each rescaled exactly. NaN and infinities, scales past 18 and values whose unscaled
/// form leaves int64 are a `ValueError` naming the index.
fn read_decimals(items: &[Bound<'_, PyAny>]) -> PyResult<(Vec<i64>, u8)> {
    // (negative, coefficient (None: past i128), exponent) of each valid value.
    let mut parts = Vec::with_capacity(items.len());
    let mut scale = 0u8;
    for (index, item) in items.iter().enumerate() {
        if item.is_none() {
            parts.push(None);
            continue;
        }
        let tuple = item.call_method0("as_tuple")?;
        let negative = tuple.get_item(0)?.extract::<i64>()? != 0;
        let exponent = tuple.get_item(2)?;
        if exponent.is_instance_of::<PyString>() {
            // 'n', 'N' or 'F': a NaN, signaling NaN or infinity.
            return Err(PyValueError::new_err(format!(
                "decimal {} at index {index} is not a finite number (NaN and infinities have no decimal column value)",
                item.str()?
            )));
        }
        // Exponents past i64 saturate: far too small or large for any column either way.
        let exponent = match exponent.extract::<i64>() {
            Ok(e) => e,
            Err(_) if exponent.lt(0)? => i64::MIN,
            Err(_) => i64::MAX,
        };
        let digits: Vec<u8> = tuple.get_item(1)?.extract()?;
        let coefficient = digits.iter().try_fold(0i128, |acc, &d| {
            acc.checked_mul(10)?.checked_add(i128::from(d))
        });
        let own_scale = exponent.min(0).unsigned_abs();
        if own_scale > u64::from(MAX_DECIMAL_SCALE) {
            return Err(PyValueError::new_err(format!(
                "decimal {} at index {index} has {own_scale} digits after the point: decimal columns hold at most {MAX_DECIMAL_SCALE} (round it first, e.g. value.quantize(Decimal('1e-18')))",
                item.str()?
            )));
        }
        scale = scale.max(own_scale as u8);
        parts.push(Some((negative, coefficient, exponent)));
    }
    let mut unscaled = Vec::with_capacity(items.len());
    for (index, part) in parts.into_iter().enumerate() {
        let Some((negative, coefficient, exponent)) = part else {
            unscaled.push(0);
            continue;
        };
        // exponent + scale >= 0: the value times 10^scale is an integer.
        let shift = exponent.saturating_add(i64::from(scale)) as u64;
        let value = match coefficient {
            Some(0) => Some(0),
            Some(c) => pow10(shift).and_then(|p| c.checked_mul(p)),
            None => None,
        }
        .map(|v| if negative { -v } else { v })
        .and_then(|v| i64::try_from(v).ok());
        let Some(value) = value else {
            return Err(PyValueError::new_err(format!(
                "decimal {} at index {index} does not fit a decimal column at scale {scale}: its unscaled value (times 10**{scale}) leaves the int64 range",
                items[index].str()?
            )));
        };
        unscaled.push(value);
    }
    Ok((unscaled, scale))
}

/// Arrow decimals (unscaled values at `scale`, of any width) as a decimal column's input; a
/// negative scale is rescaled to 0 exactly. Null rows are not read.
fn arrow_decimals(
    values: impl Iterator<Item = i128>,
    scale: i8,
    valid: Option<&[bool]>,
) -> PyResult<(Data, Logical)> {
    if scale > MAX_DECIMAL_SCALE as i8 {
        return Err(PyValueError::new_err(format!(
            "Arrow decimal scale {scale} is past {MAX_DECIMAL_SCALE}, the most digits after the point a decimal column holds"
        )));
    }
    let factor = pow10(u64::from(scale.min(0).unsigned_abs()));
    let mut out = Vec::new();
    for (row, value) in values.enumerate() {
        if valid.is_some_and(|v| !v[row]) {
            out.push(0);
            continue;
        }
        let fits = factor
            .and_then(|f| value.checked_mul(f))
            .and_then(|v| i64::try_from(v).ok());
        let Some(v) = fits else {
            return Err(PyValueError::new_err(format!(
                "decimal at row {row} ({}) does not fit a decimal column: its unscaled value leaves the int64 range",
                decimal_text(value, scale.max(0) as u8)
            )));
        };
        out.push(v);
    }
    let scale = scale.max(0) as u8;
    Ok((Data::Dec(out, scale), Logical::Decimal(scale)))
}

/// An Arrow array's values and nulls.
fn read_arrow(py: Python<'_>, array: &ArrayRef) -> PyResult<Input> {
    let valid = array.logical_nulls().map(|nulls| {
        (0..array.len())
            .map(|i| nulls.is_valid(i))
            .collect::<Vec<bool>>()
    });
    fn ints<T>(values: impl Iterator<Item = T>, to: impl Fn(T) -> i64) -> Data {
        Data::I(values.map(to).collect())
    }
    fn uints<T>(values: impl Iterator<Item = T>, to: impl Fn(T) -> u64) -> Data {
        Data::U(values.map(to).collect())
    }
    let (data, logical) = match array.data_type() {
        ArrowType::Int8 => (ints(array.as_primitive::<Int8Type>().values().iter(), |&v| v.into()), Logical::I8),
        ArrowType::Int16 => (ints(array.as_primitive::<Int16Type>().values().iter(), |&v| v.into()), Logical::I16),
        ArrowType::Int32 => (ints(array.as_primitive::<Int32Type>().values().iter(), |&v| v.into()), Logical::I32),
        ArrowType::Int64 => (ints(array.as_primitive::<Int64Type>().values().iter(), |&v| v), Logical::I64),
        ArrowType::UInt8 => (uints(array.as_primitive::<UInt8Type>().values().iter(), |&v| v.into()), Logical::U8),
        ArrowType::UInt16 => (uints(array.as_primitive::<UInt16Type>().values().iter(), |&v| v.into()), Logical::U16),
        ArrowType::UInt32 => (uints(array.as_primitive::<UInt32Type>().values().iter(), |&v| v.into()), Logical::U32),
        ArrowType::UInt64 => (uints(array.as_primitive::<UInt64Type>().values().iter(), |&v| v), Logical::U64),
        ArrowType::Float32 => (
            Data::F(array.as_primitive::<Float32Type>().values().iter().map(|v| widen_f32(v.to_bits())).collect()),
            Logical::F32,
        ),
        ArrowType::Float64 => (
            Data::F(array.as_primitive::<Float64Type>().values().to_vec()),
            Logical::F64,
        ),
        ArrowType::Boolean => (
            Data::B(array.as_boolean().values().iter().collect()),
            Logical::Bool,
        ),
        ArrowType::Date32 => (
            Data::D(array.as_primitive::<Date32Type>().values().to_vec()),
            Logical::Date,
        ),
        ArrowType::Utf8 => (
            Data::S((0..array.len()).map(|i| array.as_string::<i32>().value(i).to_string()).collect()),
            Logical::Str,
        ),
        ArrowType::LargeUtf8 => (
            Data::S((0..array.len()).map(|i| array.as_string::<i64>().value(i).to_string()).collect()),
            Logical::Str,
        ),
        ArrowType::Utf8View => (
            Data::S((0..array.len()).map(|i| array.as_string_view().value(i).to_string()).collect()),
            Logical::Str,
        ),
        &ArrowType::Decimal32(_, scale) => {
            let values = array.as_primitive::<Decimal32Type>().values().iter().map(|&v| i128::from(v));
            arrow_decimals(values, scale, valid.as_deref())?
        }
        &ArrowType::Decimal64(_, scale) => {
            let values = array.as_primitive::<Decimal64Type>().values().iter().map(|&v| i128::from(v));
            arrow_decimals(values, scale, valid.as_deref())?
        }
        &ArrowType::Decimal128(_, scale) => {
            let values = array.as_primitive::<Decimal128Type>().values().iter().copied();
            arrow_decimals(values, scale, valid.as_deref())?
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "Arrow type {other} is not supported by columns: they take int8..int64, uint8..uint64, float32/64, bool, date32, utf8 (large and view too) and decimal32/64/128 of scale up to 18"
            )))
        }
    };
    let numpy = py.import("numpy")?;
    let has_nulls = valid.as_ref().is_some_and(|v| v.iter().any(|&ok| !ok));
    Ok(Input {
        data,
        valid,
        logical,
        out_dtype: numpy.getattr("dtype")?.call1((logical.numpy(),))?.unbind(),
        masked: has_nulls && !matches!(logical, Logical::Str | Logical::Date | Logical::Decimal(_)),
    })
}

/// Reads the chunks of an Arrow stream as one input, in order (`import_stream` gives at least
/// one, empty for an empty stream, so the column keeps the stream's type).
fn read_arrow_chunks(py: Python<'_>, chunks: &[ArrayRef]) -> PyResult<Input> {
    let Some((first, rest)) = chunks.split_first() else {
        return Err(PyValueError::new_err(
            "the Arrow stream gave no array, not even an empty one",
        ));
    };
    let mut input = read_arrow(py, first)?;
    for chunk in rest {
        let next = read_arrow(py, chunk)?;
        input.append(next)?;
    }
    Ok(input)
}

/// The encoding named by `encoding=`: `None` for "auto".
fn encoding_kind(name: &str) -> PyResult<Option<EncodingKind>> {
    // Every integer encoding the crate has (its own list, so a new one is accepted here as soon
    // as the crate adds it), then the float and string ones.
    let kinds: Vec<EncodingKind> = EncodingKind::INTEGER
        .into_iter()
        .chain([EncodingKind::Alp, EncodingKind::Fsst])
        .collect();
    if name == "auto" {
        return Ok(None);
    }
    kinds
        .iter()
        .find(|kind| kind.name() == name)
        .map(|&kind| Some(kind))
        .ok_or_else(|| {
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            PyValueError::new_err(format!(
                "encoding={name:?} is unknown: use \"auto\" or one of {}",
                names.join(", ")
            ))
        })
}

/// Builds a column from Python arguments (the class constructor and `smartarrays.column`).
pub fn build_column(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    encoding: &str,
    placement: &str,
    threads: Option<i64>,
    measure_all: bool,
) -> PyResult<PyColumn> {
    let kind = encoding_kind(encoding)?;
    let placement = input::placement(placement)?;
    let runtime = runtime::resolve(runtime::check_threads(threads)?)?;
    if placement == smartarrays::Placement::Auto {
        input::check_nodes(&placement, runtime.topology())?;
        input::ensure_advisor(py)?;
    }
    let mut options = ColumnOptions::new()
        .array(ArrayOptions::new().placement(placement).runtime(runtime))
        .measure_all(measure_all);
    if let Some(kind) = kind {
        options = options.encoding(kind);
    }
    let input = read_input(py, values)?;
    if let Some(valid) = &input.valid {
        debug_assert_eq!(valid.len(), input.data.len());
    }
    let Input {
        data,
        valid,
        logical,
        out_dtype,
        masked,
    } = input;
    let column = py.detach(|| data.build(valid, &options)).py_enc()?;
    Ok(PyColumn {
        column: Arc::new(column),
        logical,
        out_dtype,
        masked,
    })
}

/// A typed, compressed column: values of one dtype in the encoding the sampling compressor
/// chose (or the one named), in NUMA-placed smart arrays, with nulls.
///
/// Build one with `smartarrays.column(values, encoding="auto", placement="interleaved")`.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> c = sa.column(np.array([3, 1, 3, 3, 2], dtype=np.int16))
/// >>> len(c), c.dtype, c.sum(), c.min(), c.max()
/// (5, dtype('int16'), 12, 1, 3)
/// >>> c.equal(3)
/// array([0, 2, 3])
/// >>> c.to_numpy()
/// array([3, 1, 3, 3, 2], dtype=int16)
#[pyclass(name = "Column", module = "smartarrays", frozen)]
pub struct PyColumn {
    column: Arc<Column>,
    logical: Logical,
    out_dtype: Py<PyAny>,
    masked: bool,
}

/// How a value given to a filter relates to the column's type.
enum Fit {
    /// A value of the column's type.
    Exact(Scalar),
    /// Below every value the type holds.
    Below,
    /// Above every value the type holds.
    Above,
    /// Equal to no value (a date that is NaT).
    Never,
    /// Strictly between two neighbouring values of the type (a decimal with more digits than
    /// the column's scale): equal to none, `between` takes the upper one as a low bound and
    /// the lower one as a high bound.
    Gap(Scalar, Scalar),
}

impl PyColumn {
    fn len(&self) -> usize {
        self.column.len()
    }

    /// A Python value as a value of the column's type, for filters: exact, or where it lies.
    fn fit(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Fit> {
        let logical = self.logical;
        let wrong = |expected: &str| {
            PyTypeError::new_err(format!(
                "a {} column is compared with {expected}, not {}",
                logical.numpy(),
                type_name(value)
            ))
        };
        if value.is_none() {
            return Err(PyTypeError::new_err(
                "None is no value to compare with: use isnull() / notnull() for nulls",
            ));
        }
        let numpy = py.import("numpy")?;
        match logical {
            _ if logical.signed() || logical.unsigned() => {
                if value.is_instance_of::<PyFloat>()
                    || value.is_instance(&numpy.getattr("floating")?)?
                {
                    return Err(wrong("integers"));
                }
                let integer = input::integer_value(value).ok_or_else(|| wrong("integers"))?;
                let (low, high) = logical.integer_range();
                Ok(match integer.extract::<i128>() {
                    Ok(v) if v < low => Fit::Below,
                    Ok(v) if v > high => Fit::Above,
                    Ok(v) => Fit::Exact(logical.integer_scalar(v)),
                    Err(_) if integer.lt(0)? => Fit::Below,
                    Err(_) => Fit::Above,
                })
            }
            Logical::Decimal(scale) => self.fit_decimal(py, value, scale),
            Logical::F32 | Logical::F64 => {
                if value.is_instance_of::<PyFloat>()
                    || value.is_instance(&numpy.getattr("floating")?)?
                {
                    return Ok(Fit::Exact(Scalar::Float64(value.extract::<f64>()?)));
                }
                if value.is_instance_of::<PyBool>() {
                    return Err(wrong("floats or integers"));
                }
                let integer =
                    input::integer_value(value).ok_or_else(|| wrong("floats or integers"))?;
                let as_float: f64 = integer
                    .call_method0("__float__")
                    .and_then(|f| f.extract())
                    .map_err(|_| {
                        PyValueError::new_err(format!(
                            "integer {integer} is too large for a float64 comparison"
                        ))
                    })?;
                let back = PyFloat::new(py, as_float).call_method0("__int__")?;
                if !back.eq(&integer)? {
                    return Err(PyValueError::new_err(format!(
                        "integer {integer} has no exact float64 value: compare with a float"
                    )));
                }
                Ok(Fit::Exact(Scalar::Float64(as_float)))
            }
            Logical::Bool => {
                if value.is_instance_of::<PyBool>()
                    || value.is_instance(&numpy.getattr("bool_")?)?
                {
                    Ok(Fit::Exact(Scalar::Bool(value.is_truthy()?)))
                } else {
                    Err(wrong("True or False"))
                }
            }
            Logical::Date => {
                let days = date_days(py, value)
                    .map_err(|_| wrong("datetime64[D] values or datetime.date"))?;
                let Some(days) = days else {
                    return Ok(Fit::Never);
                };
                Ok(match i32::try_from(days) {
                    Ok(d) => Fit::Exact(Scalar::Date32(d)),
                    Err(_) if days < 0 => Fit::Below,
                    Err(_) => Fit::Above,
                })
            }
            _ => {
                let text = value.cast::<PyString>().map_err(|_| wrong("str"))?;
                Ok(Fit::Exact(Scalar::Utf8(
                    text.to_str()
                        .map_err(|_| {
                            PyValueError::new_err(
                                "the string is not valid Unicode text (a lone surrogate)",
                            )
                        })?
                        .to_string(),
                )))
            }
        }
    }

    /// A Python int or `decimal.Decimal` against a decimal column at `scale`, exactly (through
    /// the value's integer ratio, so no digit is rounded away).
    fn fit_decimal(&self, py: Python<'_>, value: &Bound<'_, PyAny>, scale: u8) -> PyResult<Fit> {
        let decimal_class = py.import("decimal")?.getattr("Decimal")?;
        let wrong = || {
            PyTypeError::new_err(format!(
                "a decimal column is compared with decimal.Decimal or int, not {}",
                type_name(value)
            ))
        };
        let (numerator, denominator) = if value.is_instance(&decimal_class)? {
            if !value.call_method0("is_finite")?.is_truthy()? {
                return Err(PyValueError::new_err(format!(
                    "decimal {} is not a finite number: a decimal column holds no NaN or infinity",
                    value.str()?
                )));
            }
            let ratio = value.call_method0("as_integer_ratio")?;
            (ratio.get_item(0)?, ratio.get_item(1)?)
        } else if value.is_instance_of::<PyBool>()
            || value.is_instance_of::<PyFloat>()
            || value.is_instance(&py.import("numpy")?.getattr("floating")?)?
        {
            return Err(wrong());
        } else {
            let integer = input::integer_value(value).ok_or_else(wrong)?;
            (integer, 1i64.into_pyobject(py)?.into_any())
        };
        let scaled = numerator.mul(10i64.pow(u32::from(scale)))?;
        let floor = scaled.floor_div(&denominator)?;
        let exact = scaled.rem(&denominator)?.eq(0)?;
        let at = |unscaled: i64| Scalar::Decimal { unscaled, scale };
        Ok(match floor.extract::<i64>() {
            Ok(low) if exact => Fit::Exact(at(low)),
            Ok(i64::MAX) => Fit::Above,
            Ok(low) => Fit::Gap(at(low), at(low + 1)),
            Err(_) if floor.lt(0)? => Fit::Below,
            Err(_) => Fit::Above,
        })
    }

    /// The smallest and largest value of the column's type (`None` where no bound is needed).
    fn type_bounds(&self) -> Option<(Scalar, Scalar)> {
        let logical = self.logical;
        if let Logical::Decimal(scale) = logical {
            let at = |unscaled: i64| Scalar::Decimal { unscaled, scale };
            return Some((at(i64::MIN), at(i64::MAX)));
        }
        if logical.signed() || logical.unsigned() || logical == Logical::Date {
            let (low, high) = logical.integer_range();
            Some((logical.integer_scalar(low), logical.integer_scalar(high)))
        } else {
            None
        }
    }

    fn run_filter<'py>(
        &self,
        py: Python<'py>,
        predicate: Option<Predicate>,
        mask: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let column = Arc::clone(&self.column);
        let selection = match predicate {
            Some(predicate) => py.detach(|| column.filter(&predicate)).py_enc()?,
            None => Selection::none(column.len()),
        };
        selection_out(py, &selection, mask)
    }

    /// Decoded rows as numpy, with the column's dtype and nulls.
    fn to_python<'py>(&self, py: Python<'py>, rows: Canonical) -> PyResult<Bound<'py, PyAny>> {
        let numpy = py.import("numpy")?;
        let len = rows.len();
        let base = match rows.values {
            Values::UInt64(v) => new_numpy_u64(py, len, |out| out.copy_from_slice(&v))?,
            Values::Int64(v) => new_numpy_u64(py, len, |out| {
                out.iter_mut().zip(&v).for_each(|(o, &x)| *o = x as u64)
            })?
            .call_method1("view", ("int64",))?,
            Values::Float64(v) if self.logical == Logical::F32 => new_numpy_u64(py, len, |out| {
                out.iter_mut()
                    .zip(&v)
                    .for_each(|(o, &x)| *o = u64::from(narrow_f64(x).to_bits()))
            })?
            .call_method1("astype", ("uint32",))?
            .call_method1("view", ("float32",))?,
            Values::Float64(v) => new_numpy_u64(py, len, |out| {
                out.iter_mut().zip(&v).for_each(|(o, &x)| *o = x.to_bits())
            })?
            .call_method1("view", ("float64",))?,
            Values::Bool(v) => numpy_from_words(py, v.iter().map(|&x| u64::from(x)), "bool")?,
            Values::Date32(v) => new_numpy_u64(py, len, |out| {
                out.iter_mut()
                    .zip(&v)
                    .for_each(|(o, &x)| *o = i64::from(x) as u64)
            })?
            .call_method1("view", ("int64",))?
            .call_method1("view", ("datetime64[D]",))?,
            Values::Utf8(v) => {
                let array = numpy.call_method1("empty", (len, "object"))?;
                for (i, s) in v.iter().enumerate() {
                    array.set_item(i, s)?;
                }
                array
            }
            Values::Decimal { unscaled, scale } => {
                let class = py.import("decimal")?.getattr("Decimal")?;
                let array = numpy.call_method1("empty", (len, "object"))?;
                for (i, &v) in unscaled.iter().enumerate() {
                    array.set_item(i, class.call1((decimal_text(v.into(), scale),))?)?;
                }
                array
            }
        };
        let base = if self.logical.numpy() == "object"
            || base.getattr("dtype")?.eq(self.logical.numpy())?
        {
            base
        } else {
            base.call_method1("astype", (self.logical.numpy(),))?
        };
        let out_dtype = self.out_dtype.bind(py);
        let out = if base.getattr("dtype")?.eq(out_dtype)? {
            base
        } else {
            base.call_method1("astype", (out_dtype,))?
        };
        let Some(valid) = rows.validity else {
            return if self.masked {
                numpy.getattr("ma")?.call_method1("masked_array", (out,))
            } else {
                Ok(out)
            };
        };
        let invalid = numpy_from_words(py, valid.iter().map(|&ok| u64::from(!ok)), "bool")?;
        let kind: String = out.getattr("dtype")?.getattr("kind")?.extract()?;
        if self.masked || !matches!(kind.as_str(), "O" | "M") {
            let kwargs = PyDict::new(py);
            kwargs.set_item("mask", invalid)?;
            return numpy
                .getattr("ma")?
                .getattr("masked_array")?
                .call((out,), Some(&kwargs));
        }
        let null = if kind == "O" {
            py.None().into_bound(py)
        } else {
            numpy.getattr("datetime64")?.call1(("NaT",))?
        };
        out.set_item(invalid, null)?;
        Ok(out)
    }

    /// One value as a Python object: int, float, bool, str, numpy.datetime64, decimal.Decimal
    /// or None.
    fn scalar_to_py<'py>(&self, py: Python<'py>, value: Scalar) -> PyResult<Bound<'py, PyAny>> {
        Ok(match value {
            Scalar::Null => py.None().into_bound(py),
            Scalar::UInt64(v) => v.into_pyobject(py)?.into_any(),
            Scalar::Int64(v) => v.into_pyobject(py)?.into_any(),
            Scalar::Float64(v) => {
                let v = if self.logical == Logical::F32 {
                    widen_f32(narrow_f64(v).to_bits())
                } else {
                    v
                };
                PyFloat::new(py, v).into_any()
            }
            Scalar::Bool(v) => PyBool::new(py, v).to_owned().into_any(),
            Scalar::Date32(days) => py
                .import("numpy")?
                .getattr("datetime64")?
                .call1((i64::from(days), "D"))?,
            Scalar::Utf8(s) => PyString::new(py, &s).into_any(),
            Scalar::Decimal { unscaled, scale } => decimal_object(py, unscaled.into(), scale)?,
        })
    }

    fn take_rows<'py>(&self, py: Python<'py>, indices: Vec<usize>) -> PyResult<Bound<'py, PyAny>> {
        let column = Arc::clone(&self.column);
        let rows = py.detach(|| column.take(&indices)).py_enc()?;
        self.to_python(py, rows)
    }

    /// The Arrow array of all rows, typed as the column was built.
    fn arrow_array(&self, py: Python<'_>) -> PyResult<ArrayRef> {
        let column = Arc::clone(&self.column);
        let rows = py.detach(|| column.unpack(0..column.len())).py_enc()?;
        let nulls = rows.validity.map(NullBuffer::from);
        /// The decoded 64-bit values in the column's narrower integer dtype.
        fn narrow<S: Copy + std::fmt::Display, T: TryFrom<S>>(values: Vec<S>) -> PyResult<Vec<T>> {
            values
                .into_iter()
                .map(|v| {
                    T::try_from(v).map_err(|_| {
                        PyValueError::new_err(format!("value {v} does not fit the column's dtype"))
                    })
                })
                .collect()
        }
        let array: ArrayRef = match (self.logical, rows.values) {
            (Logical::I8, Values::Int64(v)) => {
                Arc::new(Int8Array::new(narrow::<i64, i8>(v)?.into(), nulls))
            }
            (Logical::I16, Values::Int64(v)) => {
                Arc::new(Int16Array::new(narrow::<i64, i16>(v)?.into(), nulls))
            }
            (Logical::I32, Values::Int64(v)) => {
                Arc::new(Int32Array::new(narrow::<i64, i32>(v)?.into(), nulls))
            }
            (Logical::I64, Values::Int64(v)) => Arc::new(Int64Array::new(v.into(), nulls)),
            (Logical::U8, Values::UInt64(v)) => {
                Arc::new(UInt8Array::new(narrow::<u64, u8>(v)?.into(), nulls))
            }
            (Logical::U16, Values::UInt64(v)) => {
                Arc::new(UInt16Array::new(narrow::<u64, u16>(v)?.into(), nulls))
            }
            (Logical::U32, Values::UInt64(v)) => {
                Arc::new(UInt32Array::new(narrow::<u64, u32>(v)?.into(), nulls))
            }
            (Logical::U64, Values::UInt64(v)) => Arc::new(UInt64Array::new(v.into(), nulls)),
            (Logical::F32, Values::Float64(v)) => Arc::new(Float32Array::new(
                v.into_iter().map(narrow_f64).collect::<Vec<f32>>().into(),
                nulls,
            )),
            (Logical::F64, Values::Float64(v)) => Arc::new(Float64Array::new(v.into(), nulls)),
            (Logical::Bool, Values::Bool(v)) => Arc::new(BooleanArray::new(v.into(), nulls)),
            (Logical::Date, Values::Date32(v)) => Arc::new(Date32Array::new(v.into(), nulls)),
            (Logical::Decimal(scale), Values::Decimal { unscaled, .. }) => Arc::new(
                Decimal128Array::new(
                    unscaled
                        .into_iter()
                        .map(i128::from)
                        .collect::<Vec<_>>()
                        .into(),
                    nulls,
                )
                .with_precision_and_scale(38, scale as i8)
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
            (Logical::Str, Values::Utf8(v)) => {
                let bytes: usize = v.iter().map(String::len).sum();
                let with_nulls = v.iter().enumerate().map(|(i, s)| {
                    nulls
                        .as_ref()
                        .is_none_or(|n| n.is_valid(i))
                        .then_some(s.as_str())
                });
                if bytes <= i32::MAX as usize {
                    Arc::new(with_nulls.collect::<StringArray>())
                } else {
                    Arc::new(with_nulls.collect::<LargeStringArray>())
                }
            }
            (logical, _) => {
                return Err(PyTypeError::new_err(format!(
                    "a {} column decoded to values of another type",
                    logical.numpy()
                )))
            }
        };
        Ok(array)
    }

    /// Positions of an index array (integers, negative from the end, or a boolean mask).
    fn positions(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let indices = py.import("numpy")?.call_method1("asarray", (key,))?;
        input::index_positions(py, indices, self.len(), "column")
    }
}

/// `unscaled / 10^scale` as an exact `decimal.Decimal` (built from its text, which no context
/// rounds).
fn decimal_object(py: Python<'_>, unscaled: i128, scale: u8) -> PyResult<Bound<'_, PyAny>> {
    py.import("decimal")?
        .getattr("Decimal")?
        .call1((decimal_text(unscaled, scale),))
}

/// Days since 1970-01-01 of a `numpy.datetime64` (exactly a whole day) or `datetime.date`
/// (not a datetime); `None` for NaT.
fn date_days(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    let numpy = py.import("numpy")?;
    let datetime = py.import("datetime")?;
    if value.is_instance(&numpy.getattr("datetime64")?)? {
        if numpy.call_method1("isnat", (value,))?.is_truthy()? {
            return Ok(None);
        }
        let day = value.call_method1("astype", ("datetime64[D]",))?;
        if !day.eq(value)? {
            return Err(PyValueError::new_err(format!("{value} is not a whole day")));
        }
        return Ok(Some(day.call_method1("astype", ("int64",))?.extract()?));
    }
    if value.is_instance(&datetime.getattr("date")?)?
        && !value.is_instance(&datetime.getattr("datetime")?)?
    {
        let epoch = datetime.getattr("date")?.call1((1970, 1, 1))?;
        return Ok(Some(value.sub(epoch)?.getattr("days")?.extract()?));
    }
    Err(PyTypeError::new_err("not a date"))
}

/// A selection as sorted row ids (int64), or a boolean mask.
fn selection_out<'py>(
    py: Python<'py>,
    selection: &Selection,
    mask: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if mask {
        let words = selection.words();
        let packed = new_numpy_u64(py, words.len(), |out| out.copy_from_slice(words))?;
        let numpy = py.import("numpy")?;
        let bytes = packed
            .call_method1("astype", ("<u8",))?
            .call_method1("view", ("uint8",))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("count", selection.rows())?;
        kwargs.set_item("bitorder", "little")?;
        return numpy
            .getattr("unpackbits")?
            .call((bytes,), Some(&kwargs))?
            .call_method1("astype", ("bool",));
    }
    let ids = py.detach(|| selection.row_ids());
    new_numpy_u64(py, ids.len(), |out| {
        out.iter_mut().zip(&ids).for_each(|(o, &id)| *o = id as u64)
    })?
    .call_method1("view", ("int64",))
}

#[pymethods]
impl PyColumn {
    /// Column(values, encoding="auto", placement="interleaved", threads=None, measure_all=False):
    /// same as `smartarrays.column`.
    #[new]
    #[pyo3(
        signature = (values, encoding = "auto", placement = "interleaved", threads = None, measure_all = false),
        text_signature = "(values, encoding='auto', placement='interleaved', threads=None, measure_all=False)"
    )]
    fn py_new(
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        encoding: &str,
        placement: &str,
        threads: Option<i64>,
        measure_all: bool,
    ) -> PyResult<PyColumn> {
        build_column(py, values, encoding, placement, threads, measure_all)
    }

    fn __len__(&self) -> usize {
        self.len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dtype: String = self.out_dtype.bind(py).str()?.extract()?;
        Ok(format!(
            "Column(len={}, dtype={dtype}, encoding='{}', nulls={}, placement='{}')",
            self.len(),
            self.column.encoding_kind(),
            self.column.null_count(),
            self.column.placement()
        ))
    }

    /// `c[i]` is one value (int, float, bool, str, numpy.datetime64, decimal.Decimal, or None
    /// for a null);
    /// `c[start:stop:step]` and `c[index_array]` are numpy arrays of the column's dtype.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let len = self.len();
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            if range.step == 1 {
                let start = range.start as usize;
                let column = Arc::clone(&self.column);
                let rows = py
                    .detach(|| column.unpack(start..start + range.slicelength))
                    .py_enc()?;
                return self.to_python(py, rows);
            }
            let indices = (0..range.slicelength)
                .map(|k| (range.start + k as isize * range.step) as usize)
                .collect();
            return self.take_rows(py, indices);
        }
        if key.is_instance_of::<PyInt>() || (key.hasattr("__index__")? && key.len().is_err()) {
            let index: i128 = input::integer_value(key)
                .ok_or_else(|| PyIndexError::new_err("index is not an integer"))?
                .extract()
                .unwrap_or(i128::MAX);
            let resolved = if index < 0 {
                index + len as i128
            } else {
                index
            };
            if resolved < 0 || resolved >= len as i128 {
                return Err(PyIndexError::new_err(format!(
                    "index {index} is out of range for a column of length {len}"
                )));
            }
            let value = self.column.get(resolved as usize).py_enc()?;
            return self.scalar_to_py(py, value);
        }
        if key.is_none()
            || key.is_instance_of::<PyFloat>()
            || key.is_instance_of::<PyString>()
            || key.is_instance_of::<PyTuple>()
        {
            return Err(PyIndexError::new_err(format!(
                "only integers, slices (`:`) and integer or boolean arrays are valid indices, not {}",
                type_name(key)
            )));
        }
        let indices = self.positions(py, key)?;
        self.take_rows(py, indices)
    }

    /// take(indices) -> numpy array: the rows at `indices` (integers, negative from the end,
    /// repeats allowed), in the column's dtype.
    fn take<'py>(
        &self,
        py: Python<'py>,
        indices: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let indices = self.positions(py, indices)?;
        self.take_rows(py, indices)
    }

    /// All values decoded into a numpy array of the dtype the column was built from. Nulls: None
    /// in object arrays, NaT in datetime64 arrays, else a numpy masked array.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let column = Arc::clone(&self.column);
        let rows = py.detach(|| column.unpack(0..column.len())).py_enc()?;
        self.to_python(py, rows)
    }

    /// numpy conversion (`numpy.asarray(c)`): the decoded values, as `to_numpy()`. A column
    /// whose nulls need a mask (integers, floats, bools) refuses: a plain array would show the
    /// stand-in values of null rows as data; use `to_numpy()`, which gives a masked array.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        refuse_no_copy(
            copy,
            "a column is encoded: converting it to numpy always makes a decoded copy",
        )?;
        let decoded = self.to_numpy(py)?;
        let masked = py.import("numpy")?.getattr("ma")?.getattr("MaskedArray")?;
        if decoded.is_instance(&masked)? {
            if self.column.null_count() > 0 {
                return Err(PyValueError::new_err(format!(
                    "the column holds {} null(s) that a plain numpy array cannot show: use \
                     to_numpy(), which gives a masked array",
                    self.column.null_count()
                )));
            }
            return cast_to(decoded.getattr("data")?, dtype);
        }
        cast_to(decoded, dtype)
    }

    /// All values as a list of Python objects (None for nulls).
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let column = Arc::clone(&self.column);
        let rows = py.detach(|| column.unpack(0..column.len())).py_enc()?;
        let list = PyList::empty(py);
        for i in 0..rows.len() {
            list.append(self.scalar_to_py(py, rows.scalar(i).unwrap_or(Scalar::Null))?)?;
        }
        Ok(list)
    }

    /// The numpy dtype values decode to (the one the column was built from).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.out_dtype.bind(py).clone()
    }

    /// Digits after the point of a decimal column (0..=18); None for other columns.
    #[getter]
    fn scale(&self) -> Option<u8> {
        match self.logical {
            Logical::Decimal(scale) => Some(scale),
            _ => None,
        }
    }

    /// The encoding's name: bitpacked, frame, dictionary, run_end, constant, alp or fsst.
    #[getter]
    fn encoding(&self) -> &'static str {
        self.column.encoding_kind().name()
    }

    /// Number of null rows.
    #[getter]
    fn null_count(&self) -> usize {
        self.column.null_count()
    }

    /// Bytes of the encoded data densely packed in one copy (nulls' bitmap included).
    #[getter]
    fn nbytes(&self) -> usize {
        self.column.packed_bytes()
    }

    /// Bytes of memory the column occupies: every replica, whole pages, heap parts.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.column.memory_bytes()
    }

    /// The placement of the column's smart arrays.
    #[getter]
    fn placement(&self) -> String {
        self.column.placement().to_string()
    }

    /// Why the column has its encoding: every candidate's estimated (and, when built, real)
    /// bytes per value, and the decision in words.
    fn explain(&self) -> String {
        self.column.explanation().to_string()
    }

    /// What each part of the column takes (packed and mapped bytes, bits, replicas), as text.
    fn memory_report(&self) -> String {
        self.column.memory_report().to_string()
    }

    /// Where the pages of each smart array under the column are: a list of placement reports
    /// (the dict of `SmartArray.placement_report`), each with its `role`.
    fn placement_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let column = Arc::clone(&self.column);
        let reports = py.detach(|| column.placement_report()).py_enc()?;
        let list = PyList::empty(py);
        for (role, report) in reports {
            let dict = info::report_dict(py, &report)?;
            dict.set_item("role", role)?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// Exact sum of the valid values: a Python int for integer and bool columns (no overflow,
    /// whatever the size), a float for float columns (summed in float64, in row order), an exact
    /// `decimal.Decimal` for decimal columns (summed in 128 bits).
    /// TypeError for dates and strings.
    fn sum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let column = Arc::clone(&self.column);
        let sum = py.detach(|| column.sum()).py_enc()?;
        Ok(match sum {
            Sum::UInt(v) => v.into_pyobject(py)?.into_any(),
            Sum::Int(v) => v.into_pyobject(py)?.into_any(),
            Sum::Float(v) => PyFloat::new(py, v).into_any(),
            Sum::Decimal { unscaled, scale } => decimal_object(py, unscaled, scale)?,
        })
    }

    /// Smallest valid value (floats in IEEE total order: -0.0 < 0.0, NaN above infinity);
    /// ValueError when there is none.
    fn min<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (low, _) = self.min_max(py, "min")?;
        self.scalar_to_py(py, low)
    }

    /// Largest valid value; ValueError when there is none.
    fn max<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (_, high) = self.min_max(py, "max")?;
        self.scalar_to_py(py, high)
    }

    /// dict: min, max (None when no valid value), distinct_estimate, run_count, null_count.
    fn statistics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let column = Arc::clone(&self.column);
        let stats = py.detach(|| column.statistics()).py_enc()?;
        let dict = PyDict::new(py);
        dict.set_item(
            "min",
            self.scalar_to_py(py, stats.min.unwrap_or(Scalar::Null))?,
        )?;
        dict.set_item(
            "max",
            self.scalar_to_py(py, stats.max.unwrap_or(Scalar::Null))?,
        )?;
        dict.set_item("distinct_estimate", stats.distinct_estimate)?;
        dict.set_item("run_count", stats.run_count)?;
        dict.set_item("null_count", stats.null_count)?;
        Ok(dict)
    }

    /// Rows equal to `value` (floats bit-exact: -0.0 is not 0.0, NaN matches NaN), evaluated on
    /// the encoded data: sorted row ids (int64), or a boolean mask with `mask=True`. Nulls never
    /// match.
    #[pyo3(signature = (value, *, mask = false))]
    fn equal<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        mask: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let predicate = match self.fit(py, value)? {
            Fit::Exact(scalar) => Some(Predicate::eq(scalar)),
            _ => None,
        };
        self.run_filter(py, predicate, mask)
    }

    /// Rows with `low <= value <= high` (both included; floats in IEEE total order).
    #[pyo3(signature = (low, high, *, mask = false))]
    fn between<'py>(
        &self,
        py: Python<'py>,
        low: &Bound<'py, PyAny>,
        high: &Bound<'py, PyAny>,
        mask: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let bounds = self.type_bounds();
        let low = match self.fit(py, low)? {
            Fit::Exact(scalar) => Some(scalar),
            Fit::Below => bounds.as_ref().map(|(lo, _)| lo.clone()),
            Fit::Gap(_, above) => Some(above),
            Fit::Above | Fit::Never => None,
        };
        let high = match self.fit(py, high)? {
            Fit::Exact(scalar) => Some(scalar),
            Fit::Above => bounds.as_ref().map(|(_, hi)| hi.clone()),
            Fit::Gap(below, _) => Some(below),
            Fit::Below | Fit::Never => None,
        };
        let predicate = match (low, high) {
            (Some(low), Some(high)) => Some(Predicate::between(low, high)),
            _ => None,
        };
        self.run_filter(py, predicate, mask)
    }

    /// Rows equal to one of `values` (any iterable, or a numpy array).
    #[pyo3(signature = (values, *, mask = false))]
    fn isin<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        mask: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values = if values.hasattr("tolist")? && !values.is_instance_of::<PyString>() {
            values.call_method0("tolist")?
        } else {
            values.clone()
        };
        if values.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "isin() takes a collection of values, not one string (use equal())",
            ));
        }
        let mut scalars = Vec::new();
        for value in values.try_iter()? {
            if let Fit::Exact(scalar) = self.fit(py, &value?)? {
                scalars.push(scalar);
            }
        }
        self.run_filter(py, Some(Predicate::is_in(scalars)), mask)
    }

    /// Strings starting with `prefix` (a sorted dictionary answers with one code range).
    #[pyo3(signature = (prefix, *, mask = false))]
    fn startswith<'py>(
        &self,
        py: Python<'py>,
        prefix: &str,
        mask: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.run_filter(py, Some(Predicate::prefix(prefix)), mask)
    }

    /// Strings matching an SQL LIKE pattern (`%` any run, `_` one character, `\` escapes).
    #[pyo3(signature = (pattern, *, mask = false))]
    fn like<'py>(&self, py: Python<'py>, pattern: &str, mask: bool) -> PyResult<Bound<'py, PyAny>> {
        self.run_filter(py, Some(Predicate::like(pattern)), mask)
    }

    /// Null rows.
    #[pyo3(signature = (*, mask = false))]
    fn isnull<'py>(&self, py: Python<'py>, mask: bool) -> PyResult<Bound<'py, PyAny>> {
        self.run_filter(py, Some(Predicate::IsNull), mask)
    }

    /// Rows that hold a value.
    #[pyo3(signature = (*, mask = false))]
    fn notnull<'py>(&self, py: Python<'py>, mask: bool) -> PyResult<Bound<'py, PyAny>> {
        self.run_filter(py, Some(Predicate::IsNotNull), mask)
    }

    /// Arrow PyCapsule interface: the schema of the column's Arrow type.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow::type_capsule(py, &self.logical.arrow())
    }

    /// Arrow PyCapsule interface: `(schema, array)` capsules of the decoded values and nulls,
    /// typed as the column was built (int8..uint64, float32/64, bool, date32, utf8,
    /// decimal128(38, scale)).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let array = self.arrow_array(py)?;
        arrow::export_capsules(py, &array)
    }
}

impl PyColumn {
    fn min_max(&self, py: Python<'_>, what: &str) -> PyResult<(Scalar, Scalar)> {
        let column = Arc::clone(&self.column);
        py.detach(|| column.min_max()).py_enc()?.ok_or_else(|| {
            PyValueError::new_err(format!("{what}() of a column without valid values"))
        })
    }
}
