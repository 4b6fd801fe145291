//! The Python classes `smartarrays.FrozenMap` and `FrozenSet`: the read-only succinct maps and
//! sets of `smartarrays-collections` (built once from numpy arrays, about half the bytes of a
//! `Map`), with the key and value dtypes, placements, batches and errors of `Map` and `Set`.
//! Keys and values are held as the crate's `u64` codes (signed ones zigzag-coded), as in
//! `collections.rs`; building and batches run with the GIL released.

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use smartarrays::{ArrayOptions, Placement};
use smartarrays_collections::{Error, FrozenMap, FrozenReport, FrozenSet};

use crate::collections::{collection_error, contains_mask, options, values_of_many, IntType};

/// A build error as the Python exception a caller expects: a key given twice is a ValueError
/// naming the key as its dtype reads it.
fn build_error(error: Error, keys: IntType) -> PyErr {
    match error {
        Error::DuplicateKey { key } => PyValueError::new_err(format!(
            "key {} is given twice: a frozen collection holds each key once",
            keys.value(key)
        )),
        error => collection_error(error),
    }
}

fn report_dict<'py>(py: Python<'py>, report: &FrozenReport) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("entries", report.entries)?;
    dict.set_item("bytes", report.bytes)?;
    dict.set_item("packed_bytes", report.packed_bytes)?;
    dict.set_item("bytes_per_entry", report.bytes_per_entry)?;
    dict.set_item("bits_per_entry", report.bits_per_entry)?;
    dict.set_item("index_bits_per_entry", report.index_bits_per_entry)?;
    dict.set_item("buckets", report.buckets)?;
    dict.set_item("longest_bucket", report.longest_bucket)?;
    dict.set_item("key_bits", report.key_bits)?;
    dict.set_item("remainder_bits", report.remainder_bits)?;
    dict.set_item("value_bits", report.value_bits)?;
    dict.set_item("replicas", report.replicas)?;
    dict.set_item("text", report.to_string())?;
    Ok(dict)
}

/// A read-only hash map from integer keys to integer values (uint64 or int64 each), built once
/// from arrays in a succinct layout: about half the bytes of a `Map`, a lookup reads about two
/// cache lines. A key given twice is a ValueError.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> f = sa.FrozenMap(np.array([10, -20, 30]), np.array([1, 2, 3], dtype=np.uint64))
/// >>> f[-20], 40 in f, len(f), f.get(40, -1)
/// (2, False, 3, -1)
/// >>> values, found = f.get_many(np.array([30, 40]))
/// >>> values[found], found
/// (array([3], dtype=uint64), array([ True, False]))
/// >>> f.items()
/// (array([-20,  10,  30]), array([2, 1, 3], dtype=uint64))
#[pyclass(name = "FrozenMap", module = "smartarrays", frozen)]
pub struct PyFrozenMap {
    map: FrozenMap<u64, u64>,
    keys: IntType,
    values: IntType,
}

impl PyFrozenMap {
    /// The frozen copy of a `Map`'s codes (`Map.freeze()`), placed like it.
    pub(crate) fn freeze(
        py: Python<'_>,
        map: &smartarrays_collections::Map<u64, u64>,
        keys: IntType,
        values: IntType,
    ) -> PyResult<PyFrozenMap> {
        let map = py
            .detach(|| map.freeze())
            .map_err(|e| build_error(e, keys))?;
        Ok(PyFrozenMap { map, keys, values })
    }

    fn lookup(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        Ok(self
            .keys
            .code_of(key, "a key")?
            .and_then(|code| self.map.get(code)))
    }

    /// Every entry's codes, sorted by key value.
    fn sorted(&self, py: Python<'_>) -> Vec<(u64, u64)> {
        let map = &self.map;
        let keys = self.keys;
        py.detach(|| {
            let mut entries: Vec<(u64, u64)> = map.iter().collect();
            entries.sort_unstable_by_key(|&(k, _)| keys.value(k));
            entries
        })
    }
}

#[pymethods]
impl PyFrozenMap {
    /// FrozenMap(keys, values, *, key_dtype=None, value_dtype=None, placement="interleaved",
    /// threads=None): `keys` -> `values`, each key once (a key given twice is a ValueError).
    /// A dtype of None is taken from the array given (signed: int64, else uint64).
    #[new]
    #[pyo3(signature = (keys, values, *, key_dtype = None, value_dtype = None, placement = "interleaved", threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        key_dtype: Option<&Bound<'_, PyAny>>,
        value_dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyFrozenMap> {
        let key_type = IntType::choose(py, key_dtype, Some(keys), "key_dtype")?;
        let value_type = IntType::choose(py, value_dtype, Some(values), "value_dtype")?;
        let options = options(py, placement, threads)?;
        let key_codes = key_type.codes(py, keys, "keys")?;
        let value_codes = value_type.codes(py, values, "values")?;
        if key_codes.len() != value_codes.len() {
            return Err(PyValueError::new_err(format!(
                "{} keys but {} values were given",
                key_codes.len(),
                value_codes.len()
            )));
        }
        let map = py
            .detach(|| FrozenMap::from_pairs_with(&key_codes, &value_codes, &options))
            .map_err(|e| build_error(e, key_type))?;
        Ok(PyFrozenMap {
            map,
            keys: key_type,
            values: value_type,
        })
    }

    fn __len__(&self) -> usize {
        self.map.len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.lookup(key)?.is_some())
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.lookup(key)? {
            Some(value) => self.values.to_py(py, value),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "FrozenMap(len={}, key_dtype={}, value_dtype={}, placement='{}')",
            self.map.len(),
            self.keys.name(),
            self.values.name(),
            self.map.placement()
        )
    }

    /// get(key, default=None): the value of `key`, or `default`.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.lookup(key)? {
            Some(value) => self.values.to_py(py, value),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    /// Whether `key` is present.
    fn contains(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(key)
    }

    /// get_many(keys, default=None): with no default, `(values, found)`: values (0 where not
    /// found) and a boolean mask of the keys present; with a default, the values with `default`
    /// where a key is absent. Batched: the next keys' index and records are prefetched.
    #[pyo3(signature = (keys, default = None))]
    fn get_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        default: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        values_of_many(py, self.keys, self.values, &self.map, keys, default)
    }

    /// contains_many(keys) -> boolean mask of the keys present.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        contains_mask(py, self.keys, &self.map, keys)
    }

    /// `(keys, values)`: numpy arrays of every entry, sorted by key.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let entries = self.sorted(py);
        let key_codes: Vec<u64> = entries.iter().map(|&(k, _)| k).collect();
        let value_codes: Vec<u64> = entries.iter().map(|&(_, v)| v).collect();
        PyTuple::new(
            py,
            [
                self.keys.to_numpy(py, &key_codes)?,
                self.values.to_numpy(py, &value_codes)?,
            ],
        )
    }

    /// The keys, sorted, as a numpy array.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.items(py)?.get_item(0)
    }

    /// The values in the order of `keys()`, as a numpy array.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.items(py)?.get_item(1)
    }

    /// Same as `items()`: `(keys, values)` sorted by key.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.items(py)
    }

    /// numpy dtype of the keys.
    #[getter]
    fn key_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys.dtype(py)
    }

    /// numpy dtype of the values.
    #[getter]
    fn value_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.values.dtype(py)
    }

    /// Bytes of memory the map occupies (every replica, whole pages).
    #[getter]
    fn nbytes(&self) -> usize {
        self.map.memory_bytes()
    }

    /// The placement of the map's memory.
    #[getter]
    fn placement(&self) -> String {
        self.map.placement().to_string()
    }

    /// Entries, bytes, packed bits per entry (remainders, values, index), buckets and widths,
    /// as a dict (with the same as `text`).
    fn memory_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report_dict(py, &self.map.memory_report())
    }
}

/// A read-only set of integer keys (uint64 or int64), built once from an array in a succinct
/// layout: about half the bytes of a `Set`. A key given twice is a ValueError.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> s = sa.FrozenSet(np.array([5, -1, 7], dtype=np.int64))
/// >>> len(s), -1 in s, s.contains_many([7, 8])
/// (3, True, array([ True, False]))
/// >>> s.to_numpy()
/// array([-1,  5,  7])
#[pyclass(name = "FrozenSet", module = "smartarrays", frozen)]
pub struct PyFrozenSet {
    set: FrozenSet<u64>,
    keys: IntType,
    placement: String,
}

impl PyFrozenSet {
    /// A frozen set of key codes (`Set.freeze()` and the constructor).
    pub(crate) fn build(
        py: Python<'_>,
        codes: &[u64],
        keys: IntType,
        options: &ArrayOptions,
    ) -> PyResult<PyFrozenSet> {
        let set = py
            .detach(|| FrozenSet::from_keys_with(codes, options))
            .map_err(|e| build_error(e, keys))?;
        // FrozenSet does not expose its placement; a frozen layout places `auto` as `os`.
        let placement = match &options.placement {
            Placement::Auto => Placement::OsDefault.to_string(),
            placement => placement.to_string(),
        };
        Ok(PyFrozenSet {
            set,
            keys,
            placement,
        })
    }
}

#[pymethods]
impl PyFrozenSet {
    /// FrozenSet(keys, *, dtype=None, placement="interleaved", threads=None): the `keys`,
    /// each once (a key given twice is a ValueError). A dtype of None is taken from the array.
    #[new]
    #[pyo3(signature = (keys, *, dtype = None, placement = "interleaved", threads = None))]
    fn py_new(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyFrozenSet> {
        let key_type = IntType::choose(py, dtype, Some(keys), "dtype")?;
        let options = options(py, placement, threads)?;
        let codes = key_type.codes(py, keys, "keys")?;
        PyFrozenSet::build(py, &codes, key_type, &options)
    }

    fn __len__(&self) -> usize {
        self.set.len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.set.contains(code),
            None => false,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "FrozenSet(len={}, dtype={}, placement='{}')",
            self.set.len(),
            self.keys.name(),
            self.placement
        )
    }

    /// Whether `key` is present.
    fn contains(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(key)
    }

    /// contains_many(keys) -> boolean mask of the keys present.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        contains_mask(py, self.keys, &self.set, keys)
    }

    /// The keys, sorted, as a numpy array.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let set = &self.set;
        let keys = self.keys;
        let codes: Vec<u64> = py.detach(|| {
            let mut codes: Vec<u64> = set.iter().collect();
            codes.sort_unstable_by_key(|&c| keys.value(c));
            codes
        });
        self.keys.to_numpy(py, &codes)
    }

    /// numpy dtype of the keys.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys.dtype(py)
    }

    /// Bytes of memory the set occupies (every replica, whole pages).
    #[getter]
    fn nbytes(&self) -> usize {
        self.set.memory_bytes()
    }

    /// The placement of the set's memory.
    #[getter]
    fn placement(&self) -> String {
        self.placement.clone()
    }

    /// Entries, bytes, packed bits per entry (remainders and index), buckets and widths, as a
    /// dict (with the same as `text`).
    fn memory_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report_dict(py, &self.set.memory_report())
    }
}
