//! `smartarrays.Table` and `smartarrays.sql`: tables of typed compressed columns (the query
//! crate's [`Table`]) built from Arrow data (anything with `__arrow_c_stream__`: pyarrow tables,
//! polars data frames; pandas data frames and dicts through pyarrow), Parquet, CSV and saved
//! files, or TPC-H generated in this process; and SQL over them, whose result comes back as an
//! Arrow C stream (`pyarrow.table(result)` imports it without copying its buffers).
//!
//! The GIL is released while tables are built, saved and queried. Errors become
//! `smartarrays.SqlError` (a `ValueError` with `line` and `column` of the SQL text, `None` when
//! unknown), `smartarrays.LoadError` (a `ValueError` with `line`/`row` and `column` for a value
//! that does not fit), `OverflowError` for arithmetic past 64 (or 128) bits, and the core's
//! errors as elsewhere.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyString, PyTuple};
use smartarrays_arrow::arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use smartarrays_arrow::arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use smartarrays_query::encodings::{ColumnOptions, EncodingError};
use smartarrays_query::{load, store, Catalog, QueryError, QueryOptions, Table};

create_exception!(
    smartarrays,
    SqlError,
    PyValueError,
    "A query that does not parse, names an unknown table or column, has a type error or uses what is not supported; `line` and `column` give its place in the SQL text (None when unknown)."
);
create_exception!(
    smartarrays,
    LoadError,
    PyValueError,
    "A file or Arrow stream that cannot be loaded (or a table that cannot be saved); for a value that does not fit, `line` (a text file's line, or the row) and `column` (from 1) say where."
);

/// The place `Line: N, Column: M` in a parser message.
fn parser_place(message: &str) -> Option<(u64, u64)> {
    let at = message.rfind("Line: ")?;
    let rest = &message[at + 6..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

/// The Python exception for a query-layer error.
pub fn to_py(error: QueryError) -> PyErr {
    let message = error.to_string();
    let with_place = |exception: PyErr, line: Option<u64>, column: Option<u64>| {
        Python::attach(|py| {
            let value = exception.value(py);
            let _ = value.setattr("line", line);
            let _ = value.setattr("column", column);
        });
        exception
    };
    let known = |n: u64| (n != 0).then_some(n);
    match error {
        QueryError::Syntax { message: m } => {
            let place = parser_place(&m);
            with_place(
                SqlError::new_err(message),
                place.map(|p| p.0),
                place.map(|p| p.1),
            )
        }
        QueryError::Unsupported { position, .. }
        | QueryError::UnknownTable { position, .. }
        | QueryError::UnknownColumn { position, .. }
        | QueryError::AmbiguousColumn { position, .. }
        | QueryError::Type { position, .. } => with_place(
            SqlError::new_err(message),
            known(position.line),
            known(position.column),
        ),
        QueryError::Malformed { line, column, .. } => {
            with_place(LoadError::new_err(message), Some(line), Some(column as u64))
        }
        QueryError::Load { .. } | QueryError::InvalidTable { .. } => {
            with_place(LoadError::new_err(message), None, None)
        }
        QueryError::Overflow(_) => PyOverflowError::new_err(message),
        QueryError::Encoding(
            EncodingError::MalformedParts { .. } | EncodingError::PartsVersion { .. },
        ) => PyValueError::new_err(message),
        QueryError::Core(core) => crate::errors::to_py(core),
        QueryError::DuplicateBuildKey { .. } => SqlError::new_err(message),
        QueryError::MemoryLimit { .. } => PyMemoryError::new_err(message),
        QueryError::InvalidOption { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

fn py_err<T>(result: smartarrays_query::Result<T>) -> PyResult<T> {
    result.map_err(to_py)
}

/// A capsule holding a C stream of `reader`'s batches.
fn stream_capsule<'py>(
    py: Python<'py>,
    reader: impl RecordBatchReader + Send + 'static,
) -> PyResult<Bound<'py, PyCapsule>> {
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}

/// Reads every batch of an object's `__arrow_c_stream__` (with the GIL held: a producer may
/// need it), checked in full.
fn import_batches(
    data: &Bound<'_, PyAny>,
) -> PyResult<(
    Arc<smartarrays_arrow::arrow_schema::Schema>,
    Vec<RecordBatch>,
)> {
    let (_capsule, pointer) = crate::arrow::imported_stream(data)?;
    // SAFETY: a capsule named "arrow_array_stream" holds an ArrowArrayStream struct (the
    // PyCapsule interface's contract); the protocol lets the consumer move it out, and
    // `from_raw` does exactly that, leaving a released struct behind (so the capsule's
    // destructor then does nothing). `_capsule` keeps the capsule alive meanwhile.
    let reader = unsafe { RecordBatchStreamReader::from_raw(pointer) }
        .map_err(|e| LoadError::new_err(format!("Arrow stream import failed: {e}")))?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    for batch in reader {
        let batch =
            batch.map_err(|e| LoadError::new_err(format!("Arrow stream import failed: {e}")))?;
        for column in batch.columns() {
            column
                .to_data()
                .validate_full()
                .map_err(|e| LoadError::new_err(format!("the Arrow stream is malformed: {e}")))?;
        }
        batches.push(batch);
    }
    Ok((schema, batches))
}

/// What `Table.__reduce_ex__` returns: the rebuilding function and `(header, buffers)`.
type Reduced<'py> = (
    Bound<'py, PyAny>,
    (Bound<'py, PyBytes>, Bound<'py, PyTuple>),
);

/// A table: named typed columns, each compressed by the sampling compressor, with one row
/// count. Build one from a pyarrow table, a polars or pandas data frame, a dict of lists, or
/// anything with `__arrow_c_stream__`; or from a file path (`.parquet`, `.csv`, `.tbl`, `.tsv`,
/// `.sat`). Query tables with `smartarrays.sql`; read one back with `pyarrow.table(t)`.
///
/// >>> import smartarrays as sa, pyarrow as pa
/// >>> t = sa.Table(pa.table({"k": ["a", "b", "a"], "v": [1, 2, 3]}), name="t")
/// >>> t.num_rows, t.column_names
/// (3, ['k', 'v'])
/// >>> sa.sql("select k, sum(v) as s from t group by k order by k", {"t": t}).to_pydict()
/// {'k': ['a', 'b'], 's': [4, 2]}
#[pyclass(name = "Table", module = "smartarrays", frozen)]
pub struct PyTable {
    table: Arc<Table>,
}

impl PyTable {
    fn wrap(table: Table) -> PyTable {
        PyTable {
            table: Arc::new(table),
        }
    }
}

fn path_of(data: &Bound<'_, PyAny>) -> Option<PathBuf> {
    if data.is_instance_of::<PyString>() {
        return data.extract::<String>().ok().map(PathBuf::from);
    }
    if data.hasattr("__fspath__").unwrap_or(false) {
        return data.extract::<PathBuf>().ok();
    }
    None
}

/// The table an object makes (see [`PyTable`]).
fn table_of(py: Python<'_>, data: &Bound<'_, PyAny>, name: &str) -> PyResult<Arc<Table>> {
    if let Ok(table) = data.cast::<PyTable>() {
        return Ok(Arc::clone(&table.get().table));
    }
    if let Some(path) = path_of(data) {
        let name = name.to_string();
        let table = py.detach(|| load::load_table(&name, &path, &ColumnOptions::new()));
        return Ok(Arc::new(py_err(table)?));
    }
    let data = if data.hasattr("__arrow_c_stream__")? {
        data.clone()
    } else if data.is_instance_of::<PyDict>() {
        py.import("pyarrow")?.call_method1("table", (data,))?
    } else if data.hasattr("to_records")? && data.hasattr("columns")? {
        // pandas: through pyarrow, without the index.
        let kwargs = PyDict::new(py);
        kwargs.set_item("preserve_index", false)?;
        py.import("pyarrow")?.getattr("Table")?.call_method(
            "from_pandas",
            (data,),
            Some(&kwargs),
        )?
    } else {
        return Err(PyTypeError::new_err(format!(
            "cannot make a table of {}: pass a pyarrow table, a polars or pandas data frame, a dict of columns, anything with __arrow_c_stream__, or a file path",
            data.get_type().name()?
        )));
    };
    let (schema, batches) = import_batches(&data)?;
    let name = name.to_string();
    let table = py.detach(|| {
        smartarrays_query::arrow::table_from_record_batches(
            &name,
            schema,
            batches,
            &ColumnOptions::new(),
        )
    });
    Ok(Arc::new(py_err(table)?))
}

#[pymethods]
impl PyTable {
    /// Table(data, name="t"): a table of `data` (see the class).
    #[new]
    #[pyo3(signature = (data, name = None))]
    fn new(py: Python<'_>, data: &Bound<'_, PyAny>, name: Option<String>) -> PyResult<PyTable> {
        let name = name.unwrap_or_else(|| {
            path_of(data)
                .and_then(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
                .unwrap_or_else(|| "t".to_string())
        });
        Ok(PyTable {
            table: table_of(py, data, &name)?,
        })
    }

    /// read_csv(path, name=None, delimiter=",", header=True, quote='"') -> Table: types
    /// inferred; a value that does not parse is a LoadError naming its line and column.
    #[staticmethod]
    #[pyo3(
        signature = (path, name = None, delimiter = ",", header = true, quote = Some("\"".to_string())),
        text_signature = "(path, name=None, delimiter=',', header=True, quote='\"')"
    )]
    fn read_csv(
        py: Python<'_>,
        path: PathBuf,
        name: Option<String>,
        delimiter: &str,
        header: bool,
        quote: Option<String>,
    ) -> PyResult<PyTable> {
        let byte = |s: &str, what: &str| -> PyResult<u8> {
            match s.as_bytes() {
                [b] => Ok(*b),
                _ => Err(PyValueError::new_err(format!(
                    "{what} must be one ASCII character, not {s:?}"
                ))),
            }
        };
        let options = load::CsvOptions::new()
            .delimiter(byte(delimiter, "delimiter")?)
            .header(header)
            .quote(quote.as_deref().map(|q| byte(q, "quote")).transpose()?);
        let name = name.unwrap_or_else(|| stem(&path));
        let table = py.detach(|| load::read_csv(&name, &path, &options, &ColumnOptions::new()));
        Ok(PyTable::wrap(py_err(table)?))
    }

    /// read_parquet(path, name=None) -> Table.
    #[staticmethod]
    #[pyo3(signature = (path, name = None))]
    fn read_parquet(py: Python<'_>, path: PathBuf, name: Option<String>) -> PyResult<PyTable> {
        let name = name.unwrap_or_else(|| stem(&path));
        let table = py.detach(|| load::read_parquet(&name, &path, &ColumnOptions::new()));
        Ok(PyTable::wrap(py_err(table)?))
    }

    /// load(path) -> Table: a table saved by `save` (named after the file).
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyTable> {
        let table = py.detach(|| store::load(&path, &ColumnOptions::new()));
        Ok(PyTable::wrap(py_err(table)?))
    }

    /// save(path): writes the table in the saved-table format (`.sat`: versioned,
    /// checksummed, reloaded through a memory map).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let table = Arc::clone(&self.table);
        py_err(py.detach(|| store::save(&table, &path)))
    }

    /// The table's name.
    #[getter]
    fn name(&self) -> String {
        self.table.name().to_string()
    }

    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.table.rows()
    }

    /// The columns' names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.table
            .columns()
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }

    /// Bytes of memory the table's columns occupy.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
    }

    /// One line per column: name, type, encoding, bits per row.
    fn describe(&self) -> String {
        self.table.describe()
    }

    fn __len__(&self) -> usize {
        self.table.rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "Table({}: {} rows, {} columns, {} bytes)",
            self.table.name(),
            self.table.rows(),
            self.table.columns().len(),
            self.table.memory_bytes()
        )
    }

    /// Bytes of the encoded data densely packed in one copy (what pickling sends, plus a
    /// header of a few dozen bytes per column).
    #[getter]
    fn packed_bytes(&self) -> usize {
        self.table.packed_bytes()
    }

    /// Pickling: the table travels packed, in the query crate's serialised form
    /// (`Table::to_parts`): a small checksummed header in band (name, rows, and per column its
    /// name, type, encoding and parameters) and the packed words of every column as they are in
    /// memory. With protocol 5 each buffer is a `pickle.PickleBuffer` sent out of band without a
    /// copy (Dask and Ray send them as frames of their own); older protocols get `bytes`. The
    /// receiver checks everything before it builds the table (a damaged or truncated pickle is
    /// a ValueError naming the part), keeps the sender's encodings and places the columns on its
    /// own machine.
    ///
    /// >>> import pickle, smartarrays as sa, pyarrow as pa
    /// >>> t = sa.Table(pa.table({"k": ["a", "b"], "v": [1, 2]}), name="t")
    /// >>> frames = []
    /// >>> back = pickle.loads(pickle.dumps(t, protocol=5, buffer_callback=frames.append), buffers=frames)
    /// >>> back.name, pa.table(back).equals(pa.table(t))
    /// ('t', True)
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        let table = Arc::clone(&slf.get().table);
        let parts = table.to_parts();
        let header = PyBytes::new(py, &parts.header);
        let mut buffers = Vec::with_capacity(parts.buffers.len());
        let pickle_buffer = if protocol >= 5 {
            Some(py.import("pickle")?.getattr("PickleBuffer")?)
        } else {
            None
        };
        for part in &parts.buffers {
            let buffer = match (&pickle_buffer, part) {
                (Some(wrap), std::borrow::Cow::Borrowed(bytes)) => {
                    let owner: Arc<dyn std::any::Any + Send + Sync> = table.clone();
                    let words = Bound::new(py, crate::pickle::PartBuffer::new(owner, bytes))?;
                    wrap.call1((words,))?
                }
                (Some(wrap), std::borrow::Cow::Owned(bytes)) => {
                    wrap.call1((PyBytes::new(py, bytes),))?
                }
                (None, bytes) => PyBytes::new(py, bytes).into_any(),
            };
            buffers.push(buffer);
        }
        let rebuild = py
            .import("smartarrays._native")?
            .getattr("_table_from_parts")?;
        Ok((rebuild, (header, PyTuple::new(py, buffers)?)))
    }

    /// The Arrow PyCapsule interface: the table's rows as a C stream of record batches
    /// (decoded a batch at a time as the consumer reads).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        stream_capsule(
            py,
            smartarrays_query::arrow::table_to_reader(Arc::clone(&self.table)),
        )
    }
}

fn stem(path: &std::path::Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("t")
        .to_string()
}

/// A query's result, handed to Arrow consumers through `__arrow_c_stream__` (its buffers are
/// shared, not copied).
#[pyclass(name = "QueryResult", module = "smartarrays", frozen)]
pub struct QueryResult {
    batch: RecordBatch,
}

#[pymethods]
impl QueryResult {
    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The columns' names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The result as a C stream of one record batch.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], self.batch.schema());
        stream_capsule(py, reader)
    }
}

/// _sql(query, tables, threads=None) -> QueryResult: runs `query` (or `EXPLAIN` of one) over
/// `tables` (a dict of name -> Table, or anything Table takes) with the GIL released.
#[pyfunction]
#[pyo3(signature = (query, tables, threads = None))]
pub fn _sql(
    py: Python<'_>,
    query: String,
    tables: &Bound<'_, PyDict>,
    threads: Option<usize>,
) -> PyResult<QueryResult> {
    let mut catalog = Catalog::new();
    for (name, data) in tables.iter() {
        let name: String = name
            .extract()
            .map_err(|_| PyTypeError::new_err("table names must be strings"))?;
        catalog.insert_shared(&name, table_of(py, &data, &name)?);
    }
    let options = match threads {
        Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
        Some(t) => py_err(QueryOptions::threads(t))?,
        None => QueryOptions::default(),
    };
    let batch = py.detach(|| {
        let result = smartarrays_query::sql_with(&catalog, &query, &options)?;
        smartarrays_query::arrow::result_to_record_batch(&result)
    });
    Ok(QueryResult {
        batch: py_err(batch)?,
    })
}

/// tpch(sf) -> dict[str, Table]: the eight TPC-H tables generated in this process at scale
/// factor `sf` (decimals exact, dates as dates), with the GIL released.
#[pyfunction]
pub fn tpch(py: Python<'_>, sf: f64) -> PyResult<Bound<'_, PyDict>> {
    if !(sf > 0.0 && sf.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "the scale factor must be positive, not {sf}"
        )));
    }
    let mut catalog =
        py_err(py.detach(|| {
            smartarrays_query::tpch::generate(sf, &ColumnOptions::new(), |_, _, _| {})
        }))?;
    let out = PyDict::new(py);
    for name in smartarrays_query::tpch::TABLES {
        if let Some(table) = catalog.remove(name) {
            out.set_item(name, PyTable { table })?;
        }
    }
    Ok(out)
}

/// _tpch_query(number) -> str: the text of TPC-H query `number` as this engine runs it (the
/// query crate's `queries::tpch`), so other front ends run the very same text; ValueError for a
/// number the engine does not run.
#[pyfunction]
pub fn _tpch_query(number: u32) -> PyResult<&'static str> {
    smartarrays_query::queries::tpch(number).ok_or_else(|| {
        PyValueError::new_err(format!(
            "TPC-H query {number} is not one this engine runs (it runs {:?})",
            smartarrays_query::queries::SUPPORTED
        ))
    })
}

/// _table_from_parts(header, buffers) -> Table: rebuilds a pickled table from its header and
/// buffers (bytes, pickle buffers, memoryviews), checking everything first: a damaged header or
/// a buffer of the wrong size is a ValueError naming the part.
#[pyfunction]
pub fn _table_from_parts(header: &[u8], buffers: Vec<Bound<'_, PyAny>>) -> PyResult<PyTable> {
    let table = crate::pickle::with_buffers(&buffers, |slices| {
        py_err(Table::from_parts(header, slices, &ColumnOptions::new()))
    })?;
    Ok(PyTable::wrap(table))
}

/// Adds the classes, functions and exceptions to the native module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<PyTable>()?;
    module.add_class::<QueryResult>()?;
    module.add_function(wrap_pyfunction!(_sql, module)?)?;
    module.add_function(wrap_pyfunction!(tpch, module)?)?;
    module.add_function(wrap_pyfunction!(_tpch_query, module)?)?;
    module.add_function(wrap_pyfunction!(_table_from_parts, module)?)?;
    for exception in [py.get_type::<SqlError>(), py.get_type::<LoadError>()] {
        // Class defaults, so that `line` and `column` exist (None) on every instance.
        exception.setattr("line", py.None())?;
        exception.setattr("column", py.None())?;
    }
    module.add("SqlError", py.get_type::<SqlError>())?;
    module.add("LoadError", py.get_type::<LoadError>())?;
    Ok(())
}
