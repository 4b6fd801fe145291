//! `smartarrays.table`: several equally long smart arrays exported together as an Arrow table
//! (a C stream of record batches with one non-nullable `uint64` column per array), for
//! consumers that want tables rather than single arrays: `pyarrow.table(t)`,
//! `polars.DataFrame(t)`, duckdb's `FROM t`. Batches are cut lazily, one range of rows at a
//! time, with the FFI crate's `range_to_arrow` (zero-copy for 64-bit columns, decoded otherwise).

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};
use smartarrays::SmartArray;
use smartarrays_arrow::arrow_array::ffi_stream::FFI_ArrowArrayStream;
use smartarrays_arrow::arrow_array::{
    ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader,
};
use smartarrays_arrow::arrow_schema::ffi::FFI_ArrowSchema;
use smartarrays_arrow::arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use smartarrays_arrow::{range_to_arrow, DEFAULT_STREAM_CHUNK};

use crate::smart_array::PySmartArray;

/// Smart arrays of one length, named, exported as an Arrow table. The table refers to the
/// arrays; an export shares them only while a consumer reads it.
///
/// >>> import smartarrays as sa, pyarrow as pa
/// >>> t = sa.table({"id": sa.array(range(3)), "score": sa.array([7, 8, 9], bits=33)})
/// >>> pa.table(t).to_pydict()
/// {'id': [0, 1, 2], 'score': [7, 8, 9]}
#[pyclass(name = "SmartTable", module = "smartarrays", frozen)]
pub struct SmartTable {
    names: Vec<String>,
    objects: Vec<Py<PySmartArray>>,
    rows: usize,
    chunk_values: usize,
}

impl SmartTable {
    fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(
            self.names
                .iter()
                .map(|name| Field::new(name, DataType::UInt64, false))
                .collect::<Vec<_>>(),
        ))
    }
}

/// table(columns, chunk_values=0) -> SmartTable: a dict of column name -> SmartArray (all of
/// one length) as an Arrow table; batches of `chunk_values` rows (0: 2**20).
#[pyfunction]
#[pyo3(signature = (columns, chunk_values = 0))]
pub fn table(columns: &Bound<'_, PyDict>, chunk_values: usize) -> PyResult<SmartTable> {
    let mut names = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    let mut objects = Vec::with_capacity(columns.len());
    for (name, column) in columns.iter() {
        let name: String = name
            .extract()
            .map_err(|_| PyValueError::new_err("table column names must be strings"))?;
        let column = column.cast::<PySmartArray>().map_err(|_| {
            PyValueError::new_err(format!(
                "table column {name:?} is not a SmartArray (build it with smartarrays.array)"
            ))
        })?;
        names.push(name);
        arrays.push(column.get().shared());
        objects.push(column.clone().unbind());
    }
    let rows = arrays.first().map_or(0, |a| a.len());
    if let Some((name, other)) = names.iter().zip(&arrays).find(|(_, a)| a.len() != rows) {
        return Err(PyValueError::new_err(format!(
            "table columns must have one length: {:?} has {rows} values but {name:?} has {}",
            names[0],
            other.len()
        )));
    }
    let chunk_values = if chunk_values == 0 {
        DEFAULT_STREAM_CHUNK
    } else {
        chunk_values
    };
    Ok(SmartTable {
        names,
        objects,
        rows,
        chunk_values,
    })
}

#[pymethods]
impl SmartTable {
    fn __len__(&self) -> usize {
        self.rows
    }

    /// Column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The smart array of column `name`.
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PySmartArray>> {
        match self.names.iter().position(|n| n == name) {
            Some(index) => Ok(self.objects[index].clone_ref(py)),
            None => Err(PyKeyError::new_err(format!(
                "no column {name:?}; the columns are {:?}",
                self.names
            ))),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let names = PyList::new(py, &self.names)?.repr()?;
        Ok(format!("SmartTable(columns={names}, rows={})", self.rows))
    }

    /// Arrow PyCapsule interface: the table's schema (a struct of uint64 fields).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = FFI_ArrowSchema::try_from(self.schema().as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyCapsule::new_with_value(py, schema, c"arrow_schema")?.into_any())
    }

    /// Arrow PyCapsule interface: a stream of record batches.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = requested_schema;
        let columns = self
            .objects
            .iter()
            .map(|object| object.get().shared())
            .collect();
        let reader = Batches {
            schema: self.schema(),
            columns,
            rows: self.rows,
            next: 0,
            chunk: self.chunk_values,
        };
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        Ok(PyCapsule::new_with_value(py, stream, c"arrow_array_stream")?.into_any())
    }
}

/// Record batches of consecutive row ranges.
struct Batches {
    schema: SchemaRef,
    columns: Vec<Arc<SmartArray>>,
    rows: usize,
    next: usize,
    chunk: usize,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.rows {
            return None;
        }
        let range = self.next..self.next.saturating_add(self.chunk).min(self.rows);
        self.next = range.end;
        let columns: Result<Vec<ArrayRef>, _> = self
            .columns
            .iter()
            .map(|column| range_to_arrow(column, range.clone()).map(|a| Arc::new(a) as ArrayRef))
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(range.len()));
        Some(
            columns
                .map_err(|e| ArrowError::ComputeError(e.to_string()))
                .and_then(|columns| {
                    RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
                }),
        )
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}
