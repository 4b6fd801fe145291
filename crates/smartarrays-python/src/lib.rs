//! Python binding of smart arrays: the native module `smartarrays._native`, re-exported by the
//! pure-Python package `smartarrays` (see `python/smartarrays/__init__.py`).
//!
//! The binding is thin: it parses Python arguments, hands them to the Rust core
//! ([`smartarrays::SmartArray`] and its runtime, the same core the C ABI wraps), releases the GIL
//! while the core works, and maps core errors to Python exceptions. Modules:
//! - [`smart_array`]: the `SmartArray` class (indexing, slicing, reductions, properties);
//! - [`input`]: Python values to core arrays (buffers read in place, sequences, numpy);
//! - [`buffer`]: the only `unsafe` code: raw reads of Python buffers, writes into new numpy arrays;
//! - [`arrow`]: the Arrow PyCapsule interface (`__arrow_c_array__`, `__arrow_c_stream__`);
//! - [`collections`]: the `Map`, `Set` and `Bag` classes (smart collections of integer keys) and
//!   `Dictionary` (strings to dense codes);
//! - [`column`]: the `Column` class (typed compressed columns of `smartarrays-encodings`);
//! - [`table`]: several arrays exported together as an Arrow table (`smartarrays.table`);
//! - [`query`]: `Table` (typed compressed tables from Arrow, pandas, polars, Parquet, CSV, saved
//!   files, TPC-H) and `sql` (results as Arrow streams);
//! - [`graph`]: the `Graph` class (CSR graphs of `smartarrays-graph`) and its constructors;
//! - [`runtime`]: default and per-call worker counts;
//! - [`info`]: topology and placement reports as dicts;
//! - [`errors`]: core errors to Python exceptions.
// Doc comments on #[pyclass]/#[pyfunction] items are Python docstrings (doctests with `>>>`,
// slices like `a[10:13]`), not rustdoc: brackets there are not intra-doc links.
#![allow(rustdoc::broken_intra_doc_links)]

use pyo3::prelude::*;
use pyo3::types::PyDict;

pub mod arrow;
pub mod buffer;
pub mod collections;
pub mod column;
pub mod errors;
pub mod frozen;
pub mod graph;
pub mod graph_reorder;
pub mod info;
pub mod input;
pub mod jobs;
pub mod partials;
pub mod pickle;
pub mod query;
pub mod runtime;
pub mod smart_array;
pub mod table;

use crate::errors::IntoPy;
use crate::smart_array::{build_array, PySmartArray, SmartArrayIterator};

/// array(values, placement="interleaved", bits=None, threads=None, compression=None) -> SmartArray
///
/// Builds a smart array from a numpy array, any buffer of integers (read in place, without a
/// copy), or any iterable of non-negative Python ints. The width, given as `bits=` or
/// `compression=` (the same words): `"minimal"` (default: the fewest bits that hold the largest
/// value), `"uncompressed"` (32 or 64 bits), `"auto"` (the advisor for this machine chooses
/// between those two) or an integer 1..64. `placement="auto"` lets the advisor choose the
/// placement (see `SmartArray.advice`).
#[pyfunction]
#[pyo3(
    signature = (values, placement = "interleaved", bits = None, threads = None, compression = None),
    text_signature = "(values, placement='interleaved', bits=None, threads=None, compression=None)"
)]
fn array(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    placement: &str,
    bits: Option<&Bound<'_, PyAny>>,
    threads: Option<i64>,
    compression: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySmartArray> {
    build_array(py, values, placement, bits, threads, compression)
}

/// column(values, encoding="auto", placement="interleaved", threads=None, measure_all=False) -> Column
///
/// Builds a typed, compressed column from a numpy array (int8..int64, uint8..uint64,
/// float32/64, bool, datetime64[D], str or object arrays of str; masked arrays and None give
/// nulls), a Python sequence of one kind of value, or an Arrow array or stream (anything with
/// `__arrow_c_array__` or `__arrow_c_stream__`: chunked arrays, polars series). `encoding="auto"` lets the sampling compressor choose (see
/// `Column.explain()`); or name one: bitpacked, frame, dictionary, run_end, constant, alp, fsst.
#[pyfunction]
#[pyo3(
    name = "column",
    signature = (values, encoding = "auto", placement = "interleaved", threads = None, measure_all = false),
    text_signature = "(values, encoding='auto', placement='interleaved', threads=None, measure_all=False)"
)]
fn build_column(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    encoding: &str,
    placement: &str,
    threads: Option<i64>,
    measure_all: bool,
) -> PyResult<column::PyColumn> {
    column::build_column(py, values, encoding, placement, threads, measure_all)
}

/// zeros(length, bits, placement="interleaved", threads=None) -> SmartArray
///
/// An array of `length` zeros stored at `bits` bits each (values up to 2**bits - 1 can then be
/// written with `a[i] = v`).
#[pyfunction]
#[pyo3(signature = (length, bits, placement = "interleaved", threads = None))]
fn zeros(
    py: Python<'_>,
    length: usize,
    bits: &Bound<'_, PyAny>,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<PySmartArray> {
    let bits = match input::bits(Some(bits))? {
        smartarrays::Compression::Exactly(bits) => bits,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "zeros() needs an exact bit width (an integer 1..64)",
            ))
        }
    };
    let placement = input::placement(placement)?;
    if placement == smartarrays::Placement::Auto {
        input::ensure_advisor(py)?;
        // For "auto" the core asks the advisor with the largest value, which it finds by
        // generating every value before it allocates (and checks memory): refuse a length no
        // memory can hold first, or 2**40 zeros would be generated for hours.
        check_fits_in_memory(length, bits)?;
    }
    let options = smartarrays::ArrayOptions::new()
        .placement(placement)
        .runtime(runtime::resolve(runtime::check_threads(threads)?)?);
    let built = py
        .detach(|| smartarrays::SmartArray::zeroed(length, bits, &options))
        .py_err()?;
    Ok(PySmartArray::new(built))
}

/// MemoryError unless one copy of `length` values at `bits` bits fits in the memory the machine
/// has available now.
fn check_fits_in_memory(length: usize, bits: u32) -> PyResult<()> {
    let bytes = (length as u128 * u128::from(bits)).div_ceil(8);
    match smartarrays::memory::current_available_memory() {
        Some(available) if bytes > u128::from(available) => {
            Err(pyo3::exceptions::PyMemoryError::new_err(format!(
                "not enough memory: {length} values of {bits} bits need {bytes} bytes, \
                 {available} bytes are available on this machine"
            )))
        }
        _ => Ok(()),
    }
}

/// topology() -> dict: the NUMA nodes the runtime follows (CPUs, memory, distances).
#[pyfunction]
fn topology(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let topology = smartarrays::Topology::current().py_err()?;
    info::topology_dict(py, &topology)
}

/// set_threads(threads) -> None: worker count of the runtime used by arrays built from now on
/// (None: the default, one worker per CPU or the SMARTARRAYS_THREADS environment variable).
#[pyfunction]
#[pyo3(signature = (threads))]
fn set_threads(py: Python<'_>, threads: Option<i64>) -> PyResult<()> {
    let threads = runtime::check_threads(threads)?;
    py.detach(|| runtime::set_default_threads(threads))
}

/// get_threads() -> int: worker count of the runtime new arrays use.
#[pyfunction]
fn get_threads(py: Python<'_>) -> PyResult<usize> {
    py.detach(|| runtime::resolve(None)).map(|r| r.threads())
}

/// kernel_level() -> str: the SIMD kernels the core decodes with (scalar, avx2 or avx512).
#[pyfunction]
fn kernel_level() -> &'static str {
    smartarrays::codec::detected_level().name()
}

/// _from_packed(words, length, bits, placement) -> SmartArray
///
/// Rebuilds a pickled smart array from its packed words (any buffer of them: a numpy uint64
/// array, bytes, a pickle buffer) without decoding them in Python. Used by `pickle`.
#[pyfunction]
#[pyo3(name = "_from_packed")]
fn from_packed(
    py: Python<'_>,
    words: &Bound<'_, PyAny>,
    length: usize,
    bits: u32,
    placement: &str,
) -> PyResult<PySmartArray> {
    let numpy = py.import("numpy")?;
    let as_words = numpy.call_method1("frombuffer", (words, numpy.getattr("uint64")?))?;
    let words = buffer::copy_u64_words(&as_words)?;
    let placement = input::placement(placement)?;
    if placement == smartarrays::Placement::Auto {
        input::ensure_advisor(py)?;
    }
    let options = smartarrays::ArrayOptions::new()
        .placement(placement)
        .runtime(runtime::resolve(None)?);
    let array = py
        .detach(|| smartarrays::SmartArray::from_packed_words(length, bits, &words, &options))
        .py_err()?;
    Ok(PySmartArray::new(array))
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PySmartArray>()?;
    module.add_class::<SmartArrayIterator>()?;
    module.add_class::<table::SmartTable>()?;
    module.add_class::<column::PyColumn>()?;
    module.add_class::<collections::PyMap>()?;
    module.add_class::<collections::PySet>()?;
    module.add_class::<collections::PyBag>()?;
    module.add_class::<collections::PyDictionary>()?;
    module.add_class::<frozen::PyFrozenMap>()?;
    module.add_class::<frozen::PyFrozenSet>()?;
    graph::register(module)?;
    query::register(module)?;
    pickle::register(module)?;
    partials::register(module)?;
    module.add_function(wrap_pyfunction!(build_column, module)?)?;
    module.add_function(wrap_pyfunction!(table::table, module)?)?;
    module.add_function(wrap_pyfunction!(array, module)?)?;
    module.add_function(wrap_pyfunction!(zeros, module)?)?;
    module.add_function(wrap_pyfunction!(from_packed, module)?)?;
    module.add_function(wrap_pyfunction!(topology, module)?)?;
    module.add_function(wrap_pyfunction!(set_threads, module)?)?;
    module.add_function(wrap_pyfunction!(get_threads, module)?)?;
    module.add_function(wrap_pyfunction!(kernel_level, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::wordcount, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::grep, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::sort_lines, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::sort_keys, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::bayes, module)?)?;
    module.add_function(wrap_pyfunction!(jobs::kmeans, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
