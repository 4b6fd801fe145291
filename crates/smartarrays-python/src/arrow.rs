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

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use smartarrays::SmartArray;
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
