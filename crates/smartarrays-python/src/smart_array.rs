//! The Python class `smartarrays.SmartArray`: a thin wrapper of the core's [`SmartArray`] that
//! translates indexing, slicing, iteration, reductions and properties into core calls, releasing
//! the GIL for every scan. Reductions run on the array's runtime (parallel), on the calling
//! thread (`threads=1`) or on a runtime of `threads` workers.

use std::sync::{Arc, PoisonError, RwLock};

use pyo3::exceptions::{PyBufferError, PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PySlice, PyString, PyTuple};
use smartarrays::array::Threads;
use smartarrays::{ArrayOptions, SmartArray};

use crate::buffer::new_numpy_u64;
use crate::errors::IntoPy;
use crate::pickle::Reduced;
use crate::{arrow, info, input, runtime};

/// Builds a SmartArray from Python arguments (shared by `smartarrays.array` and the class
/// constructor).
pub fn build_array(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    placement: &str,
    bits: Option<&Bound<'_, PyAny>>,
    threads: Option<i64>,
    compression: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySmartArray> {
    let placement = input::placement(placement)?;
    let width = input::width(bits, compression)?;
    let runtime = runtime::resolve(runtime::check_threads(threads)?)?;
    if placement == smartarrays::Placement::Auto || width == smartarrays::Compression::Auto {
        // A node the machine lacks is the caller's ValueError, as without "auto"; the advisor
        // would refuse it as an unresolvable request (RuntimeError).
        input::check_nodes(&placement, runtime.topology())?;
        input::ensure_advisor(py)?;
    }
    let options = ArrayOptions::new()
        .placement(placement)
        .compression(width)
        .runtime(runtime);
    if let Ok(other) = values.cast::<PySmartArray>() {
        let source = other.get().shared();
        let array = py
            .detach(|| SmartArray::from_slice(&source.to_vec(), &options))
            .py_err()?;
        return Ok(PySmartArray::new(array));
    }
    input::build(py, values, &options).map(PySmartArray::new)
}

/// The core's choice of threads for a `threads=` argument: None = the array's runtime, 1 = the
/// calling thread, n = a runtime of n workers.
fn threads_for(threads: Option<i64>) -> PyResult<Threads> {
    Ok(match runtime::check_threads(threads)? {
        None => Threads::Array,
        Some(1) => Threads::Calling,
        Some(n) => Threads::Runtime(runtime::with_threads(n)?),
    })
}

/// numpy's answer to an index that is not one: IndexError naming the type.
fn not_an_index(key: &Bound<'_, PyAny>) -> PyErr {
    let type_name = key
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    PyIndexError::new_err(format!(
        "only integers, slices (`:`) and integer or boolean arrays are valid indices, not {type_name}"
    ))
}

/// The integer an index key stands for (ints and bools, numpy integers, zero-dimensional
/// integer arrays, anything with `__index__`); IndexError naming the key when it is no
/// integer, or saying it is out of range when it does not even fit in an isize.
fn integer_index(key: &Bound<'_, PyAny>, len: usize) -> PyResult<isize> {
    if let Ok(index) = key.extract::<isize>() {
        return Ok(index);
    }
    match input::integer_value(key) {
        Some(integer) => Err(PyIndexError::new_err(format!(
            "index {integer} is out of range for an array of length {len}"
        ))),
        None => Err(not_an_index(key)),
    }
}

/// A smart array: unsigned integers bit-packed at `bits` bits each, in memory placed on NUMA
/// nodes by `placement`, all in the Rust core.
///
/// Build one with `smartarrays.array(values, placement="interleaved", bits="minimal")`.
///
/// >>> import smartarrays, numpy as np
/// >>> a = smartarrays.array(np.arange(1000, dtype=np.uint64), bits="minimal")
/// >>> len(a), a.bits, a[-1], a.sum()
/// (1000, 10, 999, 499500)
/// >>> a[10:13]
/// array([10, 11, 12], dtype=uint64)
#[pyclass(name = "SmartArray", module = "smartarrays", frozen)]
pub struct PySmartArray {
    inner: RwLock<Arc<SmartArray>>,
}

impl PySmartArray {
    /// Wraps a core array.
    pub fn new(array: SmartArray) -> Self {
        PySmartArray {
            inner: RwLock::new(Arc::new(array)),
        }
    }

    /// A shared handle to the core array (scans use it with the GIL released).
    pub fn shared(&self) -> Arc<SmartArray> {
        Arc::clone(&self.inner.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn normalize(len: usize, index: isize) -> PyResult<usize> {
        let resolved = if index < 0 {
            index.checked_add(len as isize)
        } else {
            Some(index)
        };
        match resolved {
            Some(i) if i >= 0 && (i as usize) < len => Ok(i as usize),
            _ => Err(PyIndexError::new_err(format!(
                "index {index} is out of range for an array of length {len}"
            ))),
        }
    }

    fn take<'py>(
        py: Python<'py>,
        array: Arc<SmartArray>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let indices = py.import("numpy")?.call_method1("asarray", (key,))?;
        let ndim: usize = indices.getattr("ndim")?.extract()?;
        if ndim == 0 {
            return Err(not_an_index(key));
        }
        let resolved = input::index_positions(py, indices, array.len(), "array")?;
        // The core's batched gather (one check, prefetching reads); indices are in range.
        new_numpy_u64(py, resolved.len(), |out| {
            let gathered = array.get_many(&resolved, out);
            debug_assert!(gathered.is_ok());
        })
    }
}

#[pymethods]
impl PySmartArray {
    /// SmartArray(values, placement="interleaved", bits=None, threads=None): same as
    /// `smartarrays.array`.
    #[new]
    #[pyo3(
        signature = (values, placement = "interleaved", bits = None, threads = None, compression = None),
        text_signature = "(values, placement='interleaved', bits=None, threads=None, compression=None)"
    )]
    fn py_new(
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        placement: &str,
        bits: Option<&Bound<'_, PyAny>>,
        threads: Option<i64>,
        compression: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PySmartArray> {
        build_array(py, values, placement, bits, threads, compression)
    }

    fn __len__(&self) -> usize {
        self.shared().len()
    }

    /// `a[i]` is an int (negative indices count from the end); `a[start:stop:step]` and
    /// `a[index_array]` are new numpy uint64 arrays.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let array = self.shared();
        let len = array.len();
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            let (start, step, count) = (range.start, range.step, range.slicelength);
            return new_numpy_u64(py, count, |out| {
                if step == 1 {
                    let unpacked = array.unpack(start as usize, out);
                    debug_assert!(unpacked.is_ok());
                } else {
                    let view = array.local();
                    for (k, slot) in out.iter_mut().enumerate() {
                        *slot = view.value((start + k as isize * step) as usize);
                    }
                }
            });
        }
        // Integers, and integer-likes without a length: numpy integers and zero-dimensional
        // integer arrays (which have __len__, but len() fails), objects with __index__.
        if key.is_instance_of::<PyInt>() || (key.hasattr("__index__")? && key.len().is_err()) {
            let index = integer_index(key, len)?;
            let value = array.get(Self::normalize(len, index)?).py_err()?;
            return Ok(value.into_pyobject(py)?.into_any());
        }
        if key.is_instance_of::<PyTuple>() {
            return Err(PyIndexError::new_err(
                "smart arrays are one-dimensional: use a single index or slice",
            ));
        }
        if key.is_none() || key.is_instance_of::<PyFloat>() || key.is_instance_of::<PyString>() {
            return Err(not_an_index(key));
        }
        Self::take(py, array, key)
    }

    /// `a[i] = value` writes one value into every replica; a value wider than the array's
    /// bits raises ValueError and writes nothing. While another thread scans the array or an
    /// Arrow export holds it, the write is refused with BufferError (`a.set(i, v, timeout=s)`
    /// waits instead). Slice and fancy assignment are not supported (TypeError).
    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.set(py, key, value, None)
    }

    /// set(index, value, timeout=None): `a[index] = value`, but when the array is shared (a
    /// scan in another thread, an Arrow export) waits up to `timeout` seconds for it to be free
    /// (None: refuse at once with BufferError, like `a[i] = v`).
    #[pyo3(signature = (index, value, timeout = None))]
    fn set(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        timeout: Option<f64>,
    ) -> PyResult<()> {
        if index.is_none()
            || index.is_instance_of::<PyFloat>()
            || index.is_instance_of::<PyString>()
        {
            return Err(not_an_index(index));
        }
        if index.is_instance_of::<PySlice>() || index.len().is_ok() {
            return Err(PyTypeError::new_err(
                "slice and fancy assignment (a[0:3] = ..., a[[0, 1]] = 5) are not supported: \
                 write one value at a time (a[i] = v), or build a new array with smartarrays.array(...)",
            ));
        }
        let index = integer_index(index, self.shared().len())?;
        let value: u64 = value
            .extract()
            .map_err(|_| match input::integer_value(value) {
                Some(v) => PyValueError::new_err(format!(
                    "value {v} is outside 0 to 2**64-1: smart arrays hold unsigned integers"
                )),
                None => PyTypeError::new_err("smart array values must be integers"),
            })?;
        if let Some(t) = timeout {
            if !(t >= 0.0 && t.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "timeout={t} is invalid: give seconds >= 0, or None"
                )));
            }
        }
        // None: refuse at once; Some(None): a timeout longer than a clock can count (1e300
        // seconds), so wait as long as it takes; Some(Some(t)): wait until t.
        let deadline = timeout.map(|t| {
            std::time::Duration::try_from_secs_f64(t)
                .ok()
                .and_then(|wait| std::time::Instant::now().checked_add(wait))
        });
        let mut pause = std::time::Duration::from_micros(50);
        loop {
            {
                let mut guard = self.inner.write().unwrap_or_else(PoisonError::into_inner);
                let len = guard.len();
                let index = Self::normalize(len, index)?;
                if let Some(array) = Arc::get_mut(&mut guard) {
                    return array.set(index, value).py_err();
                }
            }
            // Shared: wait (without the lock or the GIL, so readers can finish) or refuse.
            let waiting = match deadline {
                Some(Some(deadline)) => std::time::Instant::now() < deadline,
                Some(None) => true,
                None => false,
            };
            if !waiting {
                return Err(PyBufferError::new_err(
                    "the array cannot be changed while it is shared (by an Arrow export or a \
                     scan in another thread); a.set(i, v, timeout=seconds) waits for it",
                ));
            }
            py.detach(|| std::thread::sleep(pause));
            pause = (pause * 2).min(std::time::Duration::from_millis(10));
            // A long wait can be interrupted (Ctrl-C) like any blocking call.
            py.check_signals()?;
        }
    }

    /// `del a[i]` is not supported: a smart array has a fixed length (TypeError, as for a
    /// tuple).
    fn __delitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let _ = key;
        Err(PyTypeError::new_err(
            "smart arrays have a fixed length: items cannot be deleted (build a new array, \
             e.g. smartarrays.array(numpy.delete(a.to_numpy(), i)))",
        ))
    }

    fn __iter__(slf: Bound<'_, Self>) -> SmartArrayIterator {
        SmartArrayIterator {
            array: slf.unbind(),
            next: 0,
            buffer: Vec::new(),
            buffer_start: 0,
        }
    }

    fn __repr__(&self) -> String {
        let array = self.shared();
        let len = array.len();
        let shown: Vec<String> = if len <= 8 {
            array.iter().map(|v| v.to_string()).collect()
        } else {
            let head = (0..3).map(|i| array.local().value(i).to_string());
            let tail = (len - 3..len).map(|i| array.local().value(i).to_string());
            head.chain(std::iter::once("...".to_string()))
                .chain(tail)
                .collect()
        };
        format!(
            "SmartArray([{}], len={len}, bits={}, placement='{}')",
            shown.join(", "),
            array.bits(),
            array.placement()
        )
    }

    /// numpy conversion (`numpy.asarray(a)`): always a decoded copy.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        refuse_no_copy(
            copy,
            "a smart array is bit-packed: converting it to numpy always makes a decoded copy",
        )?;
        cast_to(self.to_numpy(py)?, dtype)
    }

    /// numpy's function protocol (NEP 18): `np.sum`, `np.mean`, `np.max`/`np.amax` and
    /// `np.min`/`np.amin` of a smart array run in the Rust core (with numpy's signatures: `axis`
    /// None, 0 or -1, `keepdims` false, no `dtype`, `out`, `initial` or `where`); every other numpy
    /// function, and those with other arguments, gets the decoded values (a copy) instead.
    fn __array_function__<'py>(
        slf: &Bound<'py, Self>,
        func: &Bound<'py, PyAny>,
        types: &Bound<'py, PyAny>,
        args: &Bound<'py, PyTuple>,
        kwargs: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = types;
        let py = slf.py();
        let name: String = func.getattr("__name__")?.extract()?;
        let simple_arguments = args.len() == 1
            && args.get_item(0)?.is(slf)
            && kwargs.iter().all(|(key, value)| {
                let key: String = key.extract().unwrap_or_default();
                match key.as_str() {
                    "axis" => {
                        value.is_none() || value.extract::<i64>().is_ok_and(|a| a == 0 || a == -1)
                    }
                    "keepdims" => !value.is_truthy().unwrap_or(true),
                    "dtype" | "out" => value.is_none(),
                    _ => false,
                }
            });
        if simple_arguments {
            let numpy = py.import("numpy")?;
            let this = slf.get();
            let empty = |what: &str| {
                PyValueError::new_err(format!(
                    "zero-size array to reduction operation {what} which has no identity"
                ))
            };
            match name.as_str() {
                "sum" => return numpy.getattr("uint64")?.call1((this.sum(py, None)?,)),
                "mean" if this.__len__() > 0 => {
                    return numpy.getattr("float64")?.call1((this.mean(py, None)?,))
                }
                "max" | "amax" => {
                    let (_, max) = this
                        .min_max(py, None, "max")
                        .map_err(|_| empty("maximum"))?;
                    return numpy.getattr("uint64")?.call1((max,));
                }
                "min" | "amin" => {
                    let (min, _) = this
                        .min_max(py, None, "min")
                        .map_err(|_| empty("minimum"))?;
                    return numpy.getattr("uint64")?.call1((min,));
                }
                _ => {}
            }
        }
        // Anything else: numpy's own function on the decoded values.
        let decode = |value: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
            match value.cast::<PySmartArray>() {
                Ok(array) => array.get().to_numpy(py),
                Err(_) => Ok(value),
            }
        };
        let decoded: Vec<Bound<'py, PyAny>> = args.iter().map(decode).collect::<PyResult<_>>()?;
        let decoded_kwargs = PyDict::new(py);
        for (key, value) in kwargs.iter() {
            decoded_kwargs.set_item(key, decode(value)?)?;
        }
        func.call(PyTuple::new(py, decoded)?, Some(&decoded_kwargs))
    }

    /// Pickling ships the packed words, not decoded values: `(_unpickle, (header, words,
    /// placement))` (see `pickle.rs`). With protocol 5 the words travel as a
    /// `pickle.PickleBuffer` over the array's own memory, so `pickle.dumps(a, protocol=5,
    /// buffer_callback=...)` sends them out of band without a copy. The receiver builds the array
    /// with the same width and values, placed by the same policy on its own machine.
    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: i64) -> PyResult<Reduced<'py>> {
        crate::pickle::reduce(py, self.shared(), protocol)
    }

    /// All values decoded into a new numpy uint64 array.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let array = self.shared();
        new_numpy_u64(py, array.len(), |out| {
            let unpacked = array.unpack(0, out);
            debug_assert!(unpacked.is_ok());
        })
    }

    /// All values as a list of Python ints.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_numpy(py)?.call_method0("tolist")
    }

    /// Sum of all values, modulo 2**64 (like numpy's uint64 sum). `threads=None` runs on the
    /// array's runtime in parallel, `threads=1` on the calling thread, `threads=n` on n workers.
    #[pyo3(signature = (threads = None))]
    fn sum(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<u64> {
        let threads = threads_for(threads)?;
        let array = self.shared();
        Ok(py.detach(|| array.reduce(threads).sum()))
    }

    /// Smallest value; ValueError when the array is empty.
    #[pyo3(signature = (threads = None))]
    fn min(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<u64> {
        self.min_max(py, threads, "min").map(|(min, _)| min)
    }

    /// Largest value; ValueError when the array is empty.
    #[pyo3(signature = (threads = None))]
    fn max(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<u64> {
        self.min_max(py, threads, "max").map(|(_, max)| max)
    }

    /// `(min, max)` in one scan; ValueError when the array is empty.
    #[pyo3(signature = (threads = None))]
    fn minmax(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<(u64, u64)> {
        self.min_max(py, threads, "minmax")
    }

    /// Arithmetic mean as a float, computed from the exact (128-bit) sum; ValueError when empty.
    #[pyo3(signature = (threads = None))]
    fn mean(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<f64> {
        let threads = threads_for(threads)?;
        let array = self.shared();
        py.detach(|| array.reduce(threads).mean())
            .ok_or_else(|| PyValueError::new_err("mean() of an empty smart array"))
    }

    /// Number of values that are not zero.
    #[pyo3(signature = (threads = None))]
    fn count_nonzero(&self, py: Python<'_>, threads: Option<i64>) -> PyResult<usize> {
        let threads = threads_for(threads)?;
        let array = self.shared();
        Ok(py.detach(|| array.reduce(threads).count_nonzero()))
    }

    /// The placement the array was built with: `os`, `node:N`, `interleaved[:N,M]` or
    /// `replicated` (for `placement="auto"`, the one the advisor chose).
    #[getter]
    fn placement(&self) -> String {
        self.shared().placement().to_string()
    }

    /// The advisor's reasoning when the array was built with `placement="auto"` or
    /// `compression="auto"`, else None.
    #[getter]
    fn advice(&self) -> Option<String> {
        self.shared()
            .advice()
            .map(|advice| advice.explanation.clone())
    }

    /// Bits per value (1..64).
    #[getter]
    fn bits(&self) -> u32 {
        self.shared().bits()
    }

    /// Bytes the values take densely packed in one copy: `ceil(len * bits / 8)`.
    #[getter]
    fn nbytes(&self) -> usize {
        self.shared().packed_bytes()
    }

    /// Bytes of memory the array really occupies: every replica, whole pages.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.shared().memory_bytes()
    }

    /// Number of copies (one per NUMA node when replicated, else 1).
    #[getter]
    fn replicas(&self) -> usize {
        self.shared().replica_count()
    }

    /// Worker threads of the runtime that builds and scans the array.
    #[getter]
    fn threads(&self) -> usize {
        self.shared().runtime().threads()
    }

    /// `(len,)`, as for a one-dimensional numpy array.
    #[getter]
    fn shape(&self) -> (usize,) {
        (self.shared().len(),)
    }

    /// Always 1.
    #[getter]
    fn ndim(&self) -> usize {
        1
    }

    /// `numpy.dtype("uint64")`: the type values decode to.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("numpy")?.getattr("dtype")?.call1(("uint64",))
    }

    /// Where the array's pages are, read back from the kernel, as a dict (see the stub file).
    fn placement_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let array = self.shared();
        let report = py.detach(|| array.placement_report()).py_err()?;
        info::report_dict(py, &report)
    }

    /// Arrow PyCapsule interface: the schema (uint64, not nullable).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow::schema_capsule(py)
    }

    /// Arrow PyCapsule interface: `(schema, array)` capsules of the decoded values.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        arrow::array_capsules(py, self.shared())
    }

    /// Arrow PyCapsule interface: a stream of uint64 chunks of `chunk_values` values (0: 2**20),
    /// decoded as the consumer pulls them.
    #[pyo3(signature = (requested_schema = None, *, chunk_values = 0))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
        chunk_values: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = requested_schema;
        arrow::stream_capsule(py, self.shared(), chunk_values)
    }
}

impl PySmartArray {
    fn min_max(&self, py: Python<'_>, threads: Option<i64>, what: &str) -> PyResult<(u64, u64)> {
        let threads = threads_for(threads)?;
        let array = self.shared();
        py.detach(|| array.reduce(threads).minmax())
            .ok_or_else(|| PyValueError::new_err(format!("{what}() of an empty smart array")))
    }
}

/// Iterator over a smart array's values. It decodes 1024 values at a time and shares the array
/// only while decoding, so the loop body may write to the array (a write to a value of the
/// current block of 1024 that is still ahead is seen from the next block on).
#[pyclass(name = "SmartArrayIterator", module = "smartarrays")]
pub struct SmartArrayIterator {
    array: Py<PySmartArray>,
    next: usize,
    buffer: Vec<u64>,
    buffer_start: usize,
}

#[pymethods]
impl SmartArrayIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> Option<u64> {
        if self.next >= self.buffer_start + self.buffer.len() {
            let array = self.array.get().shared();
            if self.next >= array.len() {
                return None;
            }
            let count = (array.len() - self.next).min(smartarrays::array::VISIT_CHUNK);
            self.buffer.resize(count, 0);
            array.unpack(self.next, &mut self.buffer).ok()?;
            self.buffer_start = self.next;
        }
        let value = self.buffer[self.next - self.buffer_start];
        self.next += 1;
        Some(value)
    }
}

/// The `copy` argument of numpy's `__array__` for an object that converts by decoding:
/// `copy=False` (no copy) cannot be honoured, so it is a ValueError saying `why`.
pub(crate) fn refuse_no_copy(copy: Option<bool>, why: &'static str) -> PyResult<()> {
    if copy == Some(false) {
        return Err(PyValueError::new_err(why));
    }
    Ok(())
}

/// The `dtype` argument of numpy's `__array__`: `values` cast to it, or as they are for None.
pub(crate) fn cast_to<'py>(
    values: Bound<'py, PyAny>,
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match dtype {
        Some(dtype) if !dtype.is_none() => values.call_method1("astype", (dtype,)),
        _ => Ok(values),
    }
}
