//! The Arrow PyCapsule interface: `__arrow_c_schema__`, `__arrow_c_array__` and
//! `__arrow_c_stream__` hand out the C Data / C Stream structs made by the FFI crate's Arrow
//! export (`smartarrays_arrow`, the same export the C ABI offers) inside capsules named
//! `arrow_schema`, `arrow_array` and `arrow_array_stream`, so pyarrow, polars and duckdb read a
//! smart array without going through numpy.
//!
//! Ownership follows the protocol: a consumer moves the struct out of the capsule and marks it
//! released; a capsule dropped unconsumed releases its struct (the arrow-rs types release on
//! drop). 64-bit arrays are exported without a copy and stay alive (and unwritable) while the
//! export lives; narrower ones are decoded, with the GIL released.
//!
//! Typed columns go both ways: [`import_array`] takes any `__arrow_c_array__` exporter's array
//! and [`import_stream`] any `__arrow_c_stream__` exporter's chunks (pyarrow chunked arrays,
//! polars series), each moving the struct out of its capsule as the protocol says, and
//! [`export_capsules`] hands out a column's decoded values with their nulls. The capsule reads are this module's only
//! `unsafe` code.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use smartarrays::SmartArray;
use smartarrays_arrow::arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray};
use smartarrays_arrow::arrow_array::ffi_stream::{ArrayStreamReader, FFI_ArrowArrayStream};
use smartarrays_arrow::arrow_array::{make_array, Array, ArrayRef, StructArray};
use smartarrays_arrow::arrow_array::{new_empty_array, ArrayReader};
use smartarrays_arrow::arrow_schema::ffi::FFI_ArrowSchema;
use smartarrays_arrow::arrow_schema::{ArrowError, DataType};
use smartarrays_arrow::{export_array, export_stream, DEFAULT_STREAM_CHUNK};

fn arrow_error(error: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow export failed: {error}"))
}

/// A capsule holding the schema of a smart array's values (`uint64`, format "L").
pub fn schema_capsule(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let schema = FFI_ArrowSchema::try_from(&DataType::UInt64).map_err(arrow_error)?;
    Ok(PyCapsule::new_with_value(py, schema, c"arrow_schema")?.into_any())
}

/// `(schema, array)` capsules of all values.
pub fn array_capsules(py: Python<'_>, array: Arc<SmartArray>) -> PyResult<Bound<'_, PyTuple>> {
    let (exported, schema) = py.detach(|| export_array(array)).map_err(arrow_error)?;
    let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
    let exported = PyCapsule::new_with_value(py, exported, c"arrow_array")?;
    PyTuple::new(py, [schema, exported])
}

/// A capsule holding a C stream of `uint64` chunks of up to `chunk_values` values (0: the
/// export's default of 2**20), decoded as the consumer pulls them.
pub fn stream_capsule(
    py: Python<'_>,
    array: Arc<SmartArray>,
    chunk_values: usize,
) -> PyResult<Bound<'_, PyAny>> {
    let chunk = if chunk_values == 0 {
        DEFAULT_STREAM_CHUNK
    } else {
        chunk_values
    };
    Ok(
        PyCapsule::new_with_value(py, export_stream(array, chunk), c"arrow_array_stream")?
            .into_any(),
    )
}

/// The array an object hands out through the Arrow PyCapsule interface (`__arrow_c_array__`:
/// pyarrow arrays, and any other exporter), imported without a copy of its buffers and checked
/// in full (offsets, UTF-8, lengths) before anything reads it.
pub fn import_array(values: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let pair = values.call_method0("__arrow_c_array__")?;
    let (schema, array): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract().map_err(|_| {
        PyTypeError::new_err("__arrow_c_array__() must return a (schema, array) pair of capsules")
    })?;
    let not_a_capsule =
        |what: &str| PyTypeError::new_err(format!("__arrow_c_array__() gave no {what} capsule"));
    let schema = schema
        .cast::<PyCapsule>()
        .map_err(|_| not_a_capsule("arrow_schema"))?;
    let array = array
        .cast::<PyCapsule>()
        .map_err(|_| not_a_capsule("arrow_array"))?;
    let schema_pointer = schema
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<FFI_ArrowSchema>();
    let array_pointer = array
        .pointer_checked(Some(c"arrow_array"))?
        .cast::<FFI_ArrowArray>();
    // SAFETY: a capsule named "arrow_schema" holds an ArrowSchema struct (the PyCapsule
    // interface's contract); `schema` keeps the capsule, and so the struct, alive for this
    // function, and we only read it (its destructor stays the capsule's job).
    let schema_struct: &FFI_ArrowSchema = unsafe { schema_pointer.as_ref() };
    // SAFETY: a capsule named "arrow_array" holds an ArrowArray struct; the protocol lets the
    // consumer move it out, and `from_raw` does exactly that, leaving a released struct behind
    // (so the capsule's destructor then does nothing). `array` keeps the capsule alive meanwhile.
    let moved = unsafe { FFI_ArrowArray::from_raw(array_pointer.as_ptr()) };
    // SAFETY: the struct and schema follow the C Data Interface (the exporter's promise); the
    // data is then validated in full before any read, so a malformed export is an error.
    let data = unsafe { from_ffi(moved, schema_struct) }
        .map_err(|e| PyValueError::new_err(format!("Arrow import failed: {e}")))?;
    data.validate_full()
        .map_err(|e| PyValueError::new_err(format!("the Arrow array is malformed: {e}")))?;
    Ok(make_array(data))
}

/// The `ArrowArrayStream` an object hands out through `__arrow_c_stream__`, and the capsule that
/// owns it (keep the capsule alive while the pointer is used). Shared by the column and the
/// table importers, each of which moves the stream out with its own reader.
pub fn imported_stream<'py>(
    values: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyCapsule>, *mut FFI_ArrowArrayStream)> {
    let capsule = values
        .call_method0("__arrow_c_stream__")?
        .cast_into::<PyCapsule>()
        .map_err(|_| {
            PyTypeError::new_err("__arrow_c_stream__() gave no arrow_array_stream capsule")
        })?;
    let pointer = capsule
        .pointer_checked(Some(c"arrow_array_stream"))?
        .cast::<FFI_ArrowArrayStream>()
        .as_ptr();
    Ok((capsule, pointer))
}

/// The chunks of the stream an object hands out through the Arrow PyCapsule interface
/// (`__arrow_c_stream__`: pyarrow chunked arrays and tables, polars series and data frames),
/// each imported without a copy and checked in full before anything reads it. A stream of
/// one-field records (a one-column table or data frame) gives that field's chunks; a stream of
/// several fields is refused, naming them, since a column holds one. A stream without chunks
/// gives one empty chunk of the stream's type.
pub fn import_stream(values: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayRef>> {
    let (_capsule, pointer) = imported_stream(values)?;
    // SAFETY: a capsule named "arrow_array_stream" holds an ArrowArrayStream struct (the
    // PyCapsule interface's contract); the protocol lets the consumer move it out, and
    // `from_raw` does exactly that, leaving a released struct behind (so the capsule's
    // destructor then does nothing). `_capsule` keeps the capsule alive meanwhile.
    let reader = unsafe { ArrayStreamReader::from_raw(pointer) }
        .map_err(|e| PyValueError::new_err(format!("Arrow stream import failed: {e}")))?;
    // The stream's type, for a stream without chunks: it still makes a column of that type.
    let data_type = reader.field().data_type().clone();
    let mut chunks = Vec::new();
    for chunk in reader {
        let chunk =
            chunk.map_err(|e| PyValueError::new_err(format!("Arrow stream import failed: {e}")))?;
        chunk
            .to_data()
            .validate_full()
            .map_err(|e| PyValueError::new_err(format!("the Arrow stream is malformed: {e}")))?;
        chunks.push(chunk);
    }
    if chunks.is_empty() {
        chunks.push(new_empty_array(&data_type));
    }
    chunks.into_iter().map(one_field).collect()
}

/// A chunk of a stream as a column's array: itself, or the one field of a record chunk.
fn one_field(chunk: ArrayRef) -> PyResult<ArrayRef> {
    let Some(records) = chunk.as_any().downcast_ref::<StructArray>() else {
        return Ok(chunk);
    };
    if records.num_columns() == 1 && records.null_count() == 0 {
        return Ok(records.column(0).clone());
    }
    let names: Vec<&str> = records
        .fields()
        .iter()
        .map(|field| field.name().as_str())
        .collect();
    Err(PyTypeError::new_err(format!(
        "the Arrow stream holds records of {} fields ({}): a column takes one, so pass one of them",
        names.len(),
        names.join(", ")
    )))
}

/// `(schema, array)` capsules of an Arrow array built by the binding (typed columns).
pub fn export_capsules<'py>(py: Python<'py>, array: &ArrayRef) -> PyResult<Bound<'py, PyTuple>> {
    let (exported, schema) = to_ffi(&array.to_data()).map_err(arrow_error)?;
    let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
    let exported = PyCapsule::new_with_value(py, exported, c"arrow_array")?;
    PyTuple::new(py, [schema, exported])
}

/// A capsule holding the schema of `data_type`.
pub fn type_capsule<'py>(py: Python<'py>, data_type: &DataType) -> PyResult<Bound<'py, PyAny>> {
    let schema = FFI_ArrowSchema::try_from(data_type).map_err(arrow_error)?;
    Ok(PyCapsule::new_with_value(py, schema, c"arrow_schema")?.into_any())
}
