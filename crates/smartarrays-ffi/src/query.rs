//! Tables and SQL in the C ABI: an `SaCatalog` of named tables (the query crate's typed
//! compressed tables) filled from TPC-H generated in-process, Parquet, CSV or saved files, or an
//! Arrow C stream; queries over it whose results come back as an Arrow C stream
//! (`ArrowArrayStream`); tables saved in the saved-table format and exported as Arrow streams.

use std::ffi::c_char;
use std::path::Path;
use std::sync::Arc;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use smartarrays_arrow::arrow_array;
use smartarrays_encodings::ColumnOptions;
use smartarrays_query::{load, store, tpch, Catalog, QueryError, QueryOptions};

use crate::ptr;
use crate::status::{guard, FfiError, FfiResult, SaStatus};

impl From<QueryError> for FfiError {
    fn from(error: QueryError) -> FfiError {
        let message = error.to_string();
        let status = match error {
            QueryError::Syntax { .. }
            | QueryError::Unsupported { .. }
            | QueryError::UnknownTable { .. }
            | QueryError::UnknownColumn { .. }
            | QueryError::AmbiguousColumn { .. }
            | QueryError::Type { .. }
            | QueryError::DuplicateBuildKey { .. } => SaStatus::Sql,
            QueryError::Malformed { .. }
            | QueryError::Load { .. }
            | QueryError::InvalidTable { .. } => SaStatus::Load,
            QueryError::Overflow(_) => SaStatus::Overflow,
            QueryError::MemoryLimit { .. } => SaStatus::OutOfMemory,
            QueryError::InvalidOption { .. } => SaStatus::InvalidArgument,
            QueryError::Core(core) => return FfiError::from(core),
            QueryError::Encoding(e) => return FfiError::from(e),
            QueryError::Collections(e) => return FfiError::from(e),
        };
        FfiError::new(status, message)
    }
}

/// Named tables for queries. Opaque: create it with `sa_catalog_new`, free it with
/// `sa_catalog_free`.
///
/// Thread safety: calls taking a `const SaCatalog *` (queries, exports, saves) may run at the
/// same time on one catalog; calls that add tables need it to themselves.
pub struct SaCatalog {
    catalog: Catalog,
}

/// Required text: NULL is a `SA_STATUS_NULL_POINTER` naming the argument.
///
/// # Safety
/// `pointer` must be NULL or NUL-terminated text.
unsafe fn required_text<'a>(pointer: *const c_char, name: &str) -> FfiResult<&'a str> {
    // SAFETY: forwarded from the caller.
    unsafe { ptr::text(pointer, name) }?
        .ok_or_else(|| FfiError::new(SaStatus::NullPointer, format!("argument `{name}` is NULL")))
}

/// Creates an empty catalog.
///
/// Ownership: on success `*out` is a new catalog the caller owns (free with
/// `sa_catalog_free`). Thread-safe.
///
/// # Safety
/// `out` must be NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_new(out: *mut *mut SaCatalog) -> SaStatus {
    guard(|| {
        let catalog = Box::new(SaCatalog {
            catalog: Catalog::new(),
        });
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(out, "out", Box::into_raw(catalog)) }
    })
}

/// Frees a catalog and its tables (an exported stream keeps what it reads alive). NULL is
/// ignored.
///
/// # Safety
/// `catalog` must be NULL or a live handle not freed before; no other call on it may be running.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_free(catalog: *mut SaCatalog) {
    if catalog.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the caller passes a pointer from `sa_catalog_new`, exactly once.
        drop(unsafe { Box::from_raw(catalog) });
    }));
}

/// Adds the eight TPC-H tables generated in this process at scale factor `sf` (region,
/// nation, supplier, customer, part, partsupp, orders, lineitem), replacing tables of those
/// names.
///
/// # Safety
/// `catalog` must be NULL or a live handle that no other call uses meanwhile.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_add_tpch(catalog: *mut SaCatalog, sf: f64) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow_mut(catalog, "catalog") }?;
        if !(sf > 0.0 && sf.is_finite()) {
            return Err(FfiError::new(
                SaStatus::InvalidArgument,
                format!("the scale factor must be positive, not {sf}"),
            ));
        }
        let mut generated = tpch::generate(sf, &ColumnOptions::new(), |_, _, _| {})?;
        for name in tpch::TABLES {
            if let Some(table) = generated.remove(name) {
                handle.catalog.insert_shared(name, table);
            }
        }
        Ok(())
    })
}

/// Loads the file at `path` as the table `name`, by its extension: Parquet (`.parquet`), CSV
/// (`.csv` with commas, `.tbl` with `|`, `.tsv` with tabs; a header line, types inferred) or a
/// saved table (`.sat`). A malformed file is `SA_STATUS_LOAD`, the message naming the file and,
/// for a value that does not fit, its line and column.
///
/// # Safety
/// `catalog` must be NULL or a live handle that no other call uses meanwhile; `name` and `path`
/// NULL or NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_load(
    catalog: *mut SaCatalog,
    name: *const c_char,
    path: *const c_char,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow_mut(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_text(name, "name") }?;
        // SAFETY: forwarded from the caller.
        let path = unsafe { required_text(path, "path") }?;
        let table = load::load_table(name, Path::new(path), &ColumnOptions::new())?;
        handle.catalog.insert_shared(name, Arc::new(table));
        Ok(())
    })
}

/// Imports every record batch of an Arrow C stream as the table `name` (integers, decimals of
/// scale 0..18, dates, strings, booleans, floats; no nulls). The stream is consumed and released,
/// also on failure.
///
/// # Safety
/// `catalog` must be NULL or a live handle that no other call uses meanwhile; `name` NULL or
/// NUL-terminated text; `stream` NULL or a valid, unreleased `ArrowArrayStream` the library may
/// take over.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_import_arrow_stream(
    catalog: *mut SaCatalog,
    name: *const c_char,
    stream: *mut FFI_ArrowArrayStream,
) -> SaStatus {
    guard(|| {
        if stream.is_null() {
            return Err(FfiError::new(
                SaStatus::NullPointer,
                "argument `stream` is NULL",
            ));
        }
        // SAFETY: the caller hands over a valid stream; `from_raw` moves it out and leaves a
        // released struct behind, so it is released exactly once whatever happens next.
        let reader = unsafe { RecordBatchStreamReader::from_raw(stream) }?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow_mut(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_text(name, "name") }?;
        let table =
            smartarrays_query::arrow::table_from_reader(name, reader, &ColumnOptions::new())?;
        handle.catalog.insert_shared(name, Arc::new(table));
        Ok(())
    })
}

/// Writes the number of rows of table `name`.
///
/// # Safety
/// `catalog` must be NULL or a live handle; `name` NULL or NUL-terminated text; `rows` NULL or
/// valid for writing.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_table_rows(
    catalog: *const SaCatalog,
    name: *const c_char,
    rows: *mut u64,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_text(name, "name") }?;
        let table = table(handle, name)?;
        // SAFETY: forwarded from the caller.
        unsafe { ptr::write(rows, "rows", table.rows() as u64) }
    })
}

fn table(handle: &SaCatalog, name: &str) -> FfiResult<Arc<smartarrays_query::Table>> {
    handle.catalog.get_shared(name).ok_or_else(|| {
        FfiError::new(
            SaStatus::Sql,
            format!(
                "unknown table {name} (the catalog has: {})",
                handle.catalog.names().collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// Saves table `name` at `path` in the saved-table format (versioned, checksummed; reload it
/// with `sa_catalog_load` and a `.sat` path). The file appears only when complete.
///
/// # Safety
/// `catalog` must be NULL or a live handle; `name` and `path` NULL or NUL-terminated text.
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_save(
    catalog: *const SaCatalog,
    name: *const c_char,
    path: *const c_char,
) -> SaStatus {
    guard(|| {
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_text(name, "name") }?;
        // SAFETY: forwarded from the caller.
        let path = unsafe { required_text(path, "path") }?;
        store::save(&*table(handle, name)?, Path::new(path))?;
        Ok(())
    })
}

/// Exports table `name` as an Arrow C stream of record batches of 65536 rows, decoded as the
/// consumer calls `get_next`; the stream keeps the table alive until released.
///
/// Ownership: on success `*out` belongs to the caller, who must call its `release` callback.
///
/// # Safety
/// `catalog` must be NULL or a live handle; `name` NULL or NUL-terminated text; `out` NULL or
/// valid for writing one struct (its previous contents are overwritten, not released).
#[no_mangle]
pub unsafe extern "C" fn sa_catalog_export_arrow_stream(
    catalog: *const SaCatalog,
    name: *const c_char,
    out: *mut FFI_ArrowArrayStream,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_text(name, "name") }?;
        let reader = smartarrays_query::arrow::table_to_reader(table(handle, name)?);
        // SAFETY: forwarded from the caller; `out` was checked for NULL.
        unsafe { out.write(FFI_ArrowArrayStream::new(Box::new(reader))) };
        Ok(())
    })
}

/// Runs one SQL statement (a query, or `EXPLAIN` of one: a `plan` column of text lines) over the
/// catalog's tables on `threads` workers (0: the process-wide runtime), and hands its result
/// out as an Arrow C stream of one record batch: integers int64, decimals decimal128(38, scale),
/// dates date32, text utf8, doubles float64. Nothing is written on failure: a bad query is
/// `SA_STATUS_SQL` whose message gives its line and column, an overflow `SA_STATUS_OVERFLOW`, a
/// query past its memory budget (`SMARTARRAYS_QUERY_MEMORY`, else the memory available)
/// `SA_STATUS_OUT_OF_MEMORY` naming the operator and the sizes.
///
/// Ownership: on success `*out` belongs to the caller, who must call its `release` callback.
/// Thread-safe: several queries may run on one catalog at once.
///
/// # Safety
/// `catalog` must be NULL or a live handle; `sql` NULL or NUL-terminated text; `out` NULL or
/// valid for writing one struct.
#[no_mangle]
pub unsafe extern "C" fn sa_query(
    catalog: *const SaCatalog,
    sql: *const c_char,
    threads: usize,
    out: *mut FFI_ArrowArrayStream,
) -> SaStatus {
    guard(|| {
        ptr::check_out(out, "out")?;
        // SAFETY: forwarded from the caller.
        let handle = unsafe { ptr::borrow(catalog, "catalog") }?;
        // SAFETY: forwarded from the caller.
        let sql = unsafe { required_text(sql, "sql") }?;
        let options = if threads == 0 {
            QueryOptions::default()
        } else {
            QueryOptions::threads(threads)?
        };
        let result = smartarrays_query::sql_with(&handle.catalog, sql, &options)?;
        let reader = smartarrays_query::arrow::result_to_reader(&result)?;
        // SAFETY: forwarded from the caller; `out` was checked for NULL.
        unsafe { out.write(FFI_ArrowArrayStream::new(Box::new(reader))) };
        Ok(())
    })
}
