//! The Python classes `smartarrays.Map`, `Set` and `Bag`: the smart collections of
//! `smartarrays-collections` for integer keys (and values), with numpy arrays of keys and
//! values in and out; and `Dictionary`, strings to dense uint32 codes that those take as keys. Keys and values are `uint64` or `int64` (chosen at construction, or taken
//! from the first array's dtype); they are stored as the crate's `u64` codes (signed values
//! zigzag-coded, as the crate's `Key` for `i64` does), so one native table type serves both.
//! Batches and the parallel group-by run with the GIL released; nothing is truncated or
//! wrapped: a key or value outside its dtype and a sum or count past its dtype's range are
//! errors naming it.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::{
    PyKeyError, PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString, PyTuple};
use smartarrays::ArrayOptions;
use smartarrays_collections::{Bag, Error, Key, Lookup, Map, MemoryReport, Set, Value};

use crate::buffer::{copy_u64_words, new_numpy_u64, numpy_from_words};
use crate::frozen::{PyFrozenMap, PyFrozenSet};
use crate::{info, input, runtime};

/// A collections error as the Python exception a caller expects.
pub(crate) fn collection_error(error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::Memory(error) => crate::errors::to_py(error),
        Error::CapacityOverflow { .. } => PyMemoryError::new_err(message),
        Error::CountOverflow { .. } => PyOverflowError::new_err(message),
        Error::LengthMismatch { .. } | Error::BufferTooSmall { .. } => {
            PyValueError::new_err(message)
        }
        _ => PyRuntimeError::new_err(message),
    }
}

pub(crate) trait IntoPyCollections<T> {
    fn py_col(self) -> PyResult<T>;
}

impl<T> IntoPyCollections<T> for Result<T, Error> {
    fn py_col(self) -> PyResult<T> {
        self.map_err(collection_error)
    }
}

/// The integer type of a collection's keys or values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntType {
    U64,
    I64,
}

impl IntType {
    pub(crate) fn name(self) -> &'static str {
        match self {
            IntType::U64 => "uint64",
            IntType::I64 => "int64",
        }
    }

    /// `dtype=`: "uint64" / "int64" (or a numpy dtype of those), or None to take the dtype of
    /// `values` (signed arrays: int64; any other: uint64).
    pub(crate) fn choose(
        py: Python<'_>,
        dtype: Option<&Bound<'_, PyAny>>,
        values: Option<&Bound<'_, PyAny>>,
        what: &str,
    ) -> PyResult<IntType> {
        if let Some(dtype) = dtype.filter(|d| !d.is_none()) {
            let numpy = py.import("numpy")?;
            let name: String = numpy
                .call_method1("dtype", (dtype,))
                .and_then(|d| d.getattr("name")?.extract())
                .unwrap_or_default();
            return match name.as_str() {
                "uint64" => Ok(IntType::U64),
                "int64" => Ok(IntType::I64),
                _ => Err(PyTypeError::new_err(format!(
                    "{what}={} is not supported: collections hold uint64 or int64",
                    dtype.repr()?
                ))),
            };
        }
        let Some(values) = values.filter(|v| !v.is_none()) else {
            return Ok(IntType::U64);
        };
        let array = py.import("numpy")?.call_method1("asarray", (values,))?;
        let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
        Ok(if kind == "i" {
            IntType::I64
        } else {
            IntType::U64
        })
    }

    pub(crate) fn code(self, value: i128) -> Option<u64> {
        match self {
            IntType::U64 => u64::try_from(value).ok(),
            IntType::I64 => i64::try_from(value).ok().map(Key::to_code),
        }
    }

    pub(crate) fn value(self, code: u64) -> i128 {
        match self {
            IntType::U64 => i128::from(code),
            IntType::I64 => i128::from(<i64 as Key>::from_code(code)),
        }
    }

    /// The code of a Python integer; `Ok(None)` when it is outside the type, TypeError when it
    /// is no integer.
    pub(crate) fn code_of(self, value: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<u64>> {
        if value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyString>() {
            return Err(not_an_integer(value, what));
        }
        let integer = input::integer_value(value).ok_or_else(|| not_an_integer(value, what))?;
        Ok(integer.extract::<i128>().ok().and_then(|v| self.code(v)))
    }

    /// The code of a Python integer, or ValueError when it is outside the type.
    pub(crate) fn strict_code(self, value: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
        self.code_of(value, what)?.ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what} {} does not fit {}",
                value.str().map(|s| s.to_string()).unwrap_or_default(),
                self.name()
            ))
        })
    }

    /// The codes of a one-dimensional array (or sequence) of integers; ValueError naming the
    /// first one outside the type.
    pub(crate) fn codes(
        self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
        what: &str,
    ) -> PyResult<Vec<u64>> {
        let numpy = py.import("numpy")?;
        if !values.is_instance(&numpy.getattr("ndarray")?)? && !values.hasattr("__array__")? {
            // A Python sequence: each int on its own (numpy would infer float64 for a list
            // mixing values above 2**63 with small ones, and lose digits).
            let items = values.try_iter().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what} must be a numpy integer array or a sequence of ints"
                ))
            })?;
            let mut codes = Vec::new();
            for (index, item) in items.enumerate() {
                let item = item?;
                let code = self.code_of(&item, what)?.ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{what}: {} at index {index} does not fit {}",
                        item.str().map(|s| s.to_string()).unwrap_or_default(),
                        self.name()
                    ))
                })?;
                codes.push(code);
            }
            return Ok(codes);
        }
        let array = numpy.call_method1("asarray", (values,))?;
        let ndim: usize = array.getattr("ndim")?.extract()?;
        if ndim != 1 {
            return Err(PyValueError::new_err(format!(
                "{what} must be one-dimensional, got {ndim} dimensions"
            )));
        }
        let size: usize = array.getattr("size")?.extract()?;
        if size == 0 {
            return Ok(Vec::new());
        }
        let dtype = array.getattr("dtype")?;
        let kind: String = dtype.getattr("kind")?.extract()?;
        let words = |target: &str| -> PyResult<Vec<u64>> {
            let contiguous = numpy.call_method1("ascontiguousarray", (&array, target))?;
            copy_u64_words(&contiguous.call_method1("view", ("uint64",))?)
        };
        let bad = |index: usize, value: i128| {
            PyValueError::new_err(format!(
                "{what}: {value} at index {index} does not fit {}",
                self.name()
            ))
        };
        match (kind.as_str(), self) {
            ("u", IntType::U64) => words("uint64"),
            ("u", IntType::I64) => words("uint64")?
                .into_iter()
                .enumerate()
                .map(|(i, w)| self.code(i128::from(w)).ok_or_else(|| bad(i, i128::from(w))))
                .collect(),
            ("i", _) => words("int64")?
                .into_iter()
                .enumerate()
                .map(|(i, w)| {
                    let v = i128::from(w as i64);
                    self.code(v).ok_or_else(|| bad(i, v))
                })
                .collect(),
            _ => Err(PyTypeError::new_err(format!(
                "{what} must be integers (a numpy integer array or a sequence of ints), got dtype {}",
                dtype.str()?
            ))),
        }
    }

    /// A Python int of a code.
    pub(crate) fn to_py<'py>(self, py: Python<'py>, code: u64) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.value(code).into_pyobject(py)?.into_any())
    }

    /// A numpy array of this type from codes.
    pub(crate) fn to_numpy<'py>(
        self,
        py: Python<'py>,
        codes: &[u64],
    ) -> PyResult<Bound<'py, PyAny>> {
        match self {
            IntType::U64 => new_numpy_u64(py, codes.len(), |out| out.copy_from_slice(codes)),
            IntType::I64 => new_numpy_u64(py, codes.len(), |out| {
                out.iter_mut()
                    .zip(codes)
                    .for_each(|(o, &c)| *o = <i64 as Key>::from_code(c) as u64)
            })?
            .call_method1("view", ("int64",)),
        }
    }

    pub(crate) fn dtype<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("numpy")?.getattr("dtype")?.call1((self.name(),))
    }
}

fn not_an_integer(value: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let type_name = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    PyTypeError::new_err(format!("{what} must be an integer, not {type_name}"))
}

/// How `upsert_many` and `Map.aggregate` combine an old value with a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    Sum,
    Min,
    Max,
    Replace,
}

impl Combine {
    fn parse(name: &str) -> PyResult<Combine> {
        match name {
            "sum" => Ok(Combine::Sum),
            "min" => Ok(Combine::Min),
            "max" => Ok(Combine::Max),
            "replace" => Ok(Combine::Replace),
            _ => Err(PyValueError::new_err(format!(
                "combine={name:?} is unknown: use \"sum\", \"min\", \"max\" or \"replace\""
            ))),
        }
    }

    /// The combined code, or `None` when a sum leaves the value type.
    fn apply(self, values: IntType, old: u64, new: u64) -> Option<u64> {
        let (a, b) = (values.value(old), values.value(new));
        match self {
            Combine::Sum => values.code(a + b),
            Combine::Min => Some(if a <= b { old } else { new }),
            Combine::Max => Some(if a >= b { old } else { new }),
            Combine::Replace => Some(new),
        }
    }
}

/// Options of a new collection: placement and runtime.
pub(crate) fn options(
    py: Python<'_>,
    placement: &str,
    threads: Option<i64>,
) -> PyResult<ArrayOptions> {
    let placement = input::placement(placement)?;
    let runtime = runtime::resolve(runtime::check_threads(threads)?)?;
    input::check_nodes(&placement, runtime.topology())?;
    let _ = py;
    Ok(ArrayOptions::new().placement(placement).runtime(runtime))
}

fn memory_dict<'py>(py: Python<'py>, report: &MemoryReport) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("entries", report.entries)?;
    dict.set_item("bytes", report.bytes)?;
    dict.set_item("bucket_bytes", report.bucket_bytes)?;
    dict.set_item("bytes_per_entry", report.bytes_per_entry)?;
    dict.set_item("partitions", report.partitions)?;
    dict.set_item("replicas", report.replicas)?;
    dict.set_item("buckets", report.buckets)?;
    dict.set_item("slots", report.slots)?;
    dict.set_item("load", report.load)?;
    dict.set_item("key_bits", report.key_bits)?;
    dict.set_item("remainder_bits", report.remainder_bits)?;
    dict.set_item("value_bits", report.value_bits)?;
    dict.set_item("slots_per_bucket", report.slots_per_bucket)?;
    dict.set_item("text", report.to_string())?;
    Ok(dict)
}

/// `placement_report()` of a map, set or bag: one placement report per partition, read with
/// the GIL released.
fn placement_list<'py, V: Value>(
    py: Python<'py>,
    map: &Map<u64, V>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for report in py.detach(|| map.placement_report()).py_col()? {
        list.append(info::report_dict(py, &report)?)?;
    }
    Ok(list)
}

/// `(keys, values)` numpy arrays of `entries` sorted by key value (not by code): `items()` of a
/// map (its values) or a bag (its counts).
fn sorted_items<'py>(
    py: Python<'py>,
    keys: IntType,
    values: IntType,
    mut entries: Vec<(u64, u64)>,
) -> PyResult<Bound<'py, PyTuple>> {
    entries.sort_unstable_by_key(|&(k, _)| keys.value(k));
    let key_codes: Vec<u64> = entries.iter().map(|&(k, _)| k).collect();
    let value_codes: Vec<u64> = entries.iter().map(|&(_, v)| v).collect();
    PyTuple::new(
        py,
        [
            keys.to_numpy(py, &key_codes)?,
            values.to_numpy(py, &value_codes)?,
        ],
    )
}

/// `contains_many(keys)` of a map or set, growable or frozen: a boolean mask of the keys
/// present, probed with the GIL released.
pub(crate) fn contains_mask<'py, V: Value, L: Lookup<u64, V> + Sync>(
    py: Python<'py>,
    key_type: IntType,
    table: &L,
    keys: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let codes = key_type.codes(py, keys, "keys")?;
    let found = py
        .detach(|| {
            let mut out = vec![false; codes.len()];
            table.contains_many(&codes, &mut out).map(|_| out)
        })
        .py_col()?;
    numpy_from_words(py, found.iter().map(|&f| u64::from(f)), "bool")
}

/// `get_many(keys, default=None)` of a map, growable or frozen, probed with the GIL released:
/// with no default, `(values, found)` (values 0 where not found, and a boolean mask of the keys
/// present); with a default (checked against the value dtype), the values with `default` where
/// a key is absent.
pub(crate) fn values_of_many<'py, L: Lookup<u64, u64> + Sync>(
    py: Python<'py>,
    key_type: IntType,
    value_type: IntType,
    map: &L,
    keys: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let codes = key_type.codes(py, keys, "keys")?;
    let fill = default
        .map(|d| value_type.strict_code(d, "default"))
        .transpose()?;
    let found = py
        .detach(|| {
            let mut out = vec![None; codes.len()];
            map.get_many(&codes, &mut out).map(|_| out)
        })
        .py_col()?;
    let zero = value_type.code(0).unwrap_or(0);
    let values: Vec<u64> = found.iter().map(|v| v.or(fill).unwrap_or(zero)).collect();
    let values = value_type.to_numpy(py, &values)?;
    if fill.is_some() {
        return Ok(values);
    }
    let mask = numpy_from_words(py, found.iter().map(|v| u64::from(v.is_some())), "bool")?;
    Ok(PyTuple::new(py, [values, mask])?.into_any())
}

/// A hash map from integer keys to integer values (uint64 or int64 each) in compact, placed
/// memory: each lookup reads one 64-byte bucket; widths follow the data.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> m = sa.Map(np.array([10, 20, 30], dtype=np.uint64), np.array([1, 2, 3], dtype=np.uint64))
/// >>> m[20], 40 in m, len(m)
/// (2, False, 3)
/// >>> values, found = m.get_many(np.array([30, 40], dtype=np.uint64))
/// >>> values[found], found
/// (array([3], dtype=uint64), array([ True, False]))
#[pyclass(name = "Map", module = "smartarrays")]
pub struct PyMap {
    map: Map<u64, u64>,
    keys: IntType,
    values: IntType,
}

impl PyMap {
    fn upsert_codes(
        &mut self,
        py: Python<'_>,
        keys: Vec<u64>,
        values: Vec<u64>,
        combine: Combine,
    ) -> PyResult<()> {
        let value_type = self.values;
        let mut overflow: Option<(u64, u64, u64)> = None;
        let map = &mut self.map;
        py.detach(|| {
            map.upsert_many(&keys, &values, |old, new| {
                match combine.apply(value_type, old, new) {
                    Some(code) => code,
                    None => {
                        overflow.get_or_insert((0, old, new));
                        old
                    }
                }
            })
        })
        .py_col()?;
        if let Some((_, old, new)) = overflow {
            return Err(PyOverflowError::new_err(format!(
                "a sum left {}: {} + {} (that key kept {}; the rest of the batch was applied)",
                value_type.name(),
                value_type.value(old),
                value_type.value(new),
                value_type.value(old)
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl PyMap {
    /// Map(keys=None, values=None, *, key_dtype=None, value_dtype=None, placement="interleaved",
    /// threads=None): an empty map, or one holding `keys` -> `values` (later duplicates win).
    /// A dtype of None is taken from the array given (signed: int64, else uint64).
    #[new]
    #[pyo3(signature = (keys = None, values = None, *, key_dtype = None, value_dtype = None, placement = "interleaved", threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        values: Option<&Bound<'_, PyAny>>,
        key_dtype: Option<&Bound<'_, PyAny>>,
        value_dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyMap> {
        let key_type = IntType::choose(py, key_dtype, keys, "key_dtype")?;
        let value_type = IntType::choose(py, value_dtype, values, "value_dtype")?;
        let options = options(py, placement, threads)?;
        let map = py.detach(|| Map::with_options(&options)).py_col()?;
        let mut this = PyMap {
            map,
            keys: key_type,
            values: value_type,
        };
        match (
            keys.filter(|k| !k.is_none()),
            values.filter(|v| !v.is_none()),
        ) {
            (Some(keys), Some(values)) => this.insert_many(py, keys, values)?,
            (None, None) => {}
            _ => {
                return Err(PyValueError::new_err(
                    "give both keys and values, or neither",
                ))
            }
        }
        Ok(this)
    }

    /// Map.aggregate(keys, values, combine="sum", *, key_dtype=None, value_dtype=None,
    /// placement="interleaved", threads=None): a group-by built in parallel (per-worker
    /// pre-aggregation, radix partitions merged per node). `combine`: "sum", "min" or "max";
    /// a sum outside the value dtype is an OverflowError.
    #[staticmethod]
    #[pyo3(signature = (keys, values, combine = "sum", *, key_dtype = None, value_dtype = None, placement = "interleaved", threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn aggregate(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        combine: &str,
        key_dtype: Option<&Bound<'_, PyAny>>,
        value_dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyMap> {
        let combine = Combine::parse(combine)?;
        if combine == Combine::Replace {
            return Err(PyValueError::new_err(
                "combine=\"replace\" depends on the order the workers see duplicates in: \
                 aggregate takes \"sum\", \"min\" or \"max\" (Map(keys, values) keeps the last)",
            ));
        }
        let key_type = IntType::choose(py, key_dtype, Some(keys), "key_dtype")?;
        let value_type = IntType::choose(py, value_dtype, Some(values), "value_dtype")?;
        let options = options(py, placement, threads)?;
        let key_codes = key_type.codes(py, keys, "keys")?;
        let value_codes = value_type.codes(py, values, "values")?;
        let overflow = AtomicBool::new(false);
        let map = py
            .detach(|| {
                Map::aggregate_parallel(
                    &key_codes,
                    &value_codes,
                    |a, b| match combine.apply(value_type, a, b) {
                        Some(code) => code,
                        None => {
                            overflow.store(true, Ordering::Relaxed);
                            a
                        }
                    },
                    &options,
                )
            })
            .py_col()?;
        if overflow.load(Ordering::Relaxed) {
            return Err(PyOverflowError::new_err(format!(
                "a sum of values left {}: no map was built",
                value_type.name()
            )));
        }
        Ok(PyMap {
            map,
            keys: key_type,
            values: value_type,
        })
    }

    fn __len__(&self) -> usize {
        self.map.len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.map.contains_key(code),
            None => false,
        })
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self
            .keys
            .code_of(key, "a key")?
            .and_then(|code| self.map.get(code))
        {
            Some(value) => self.values.to_py(py, value),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    fn __setitem__(&mut self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = self.keys.strict_code(key, "key")?;
        let value = self.values.strict_code(value, "value")?;
        self.map.insert(key, value).py_col()?;
        Ok(())
    }

    fn __delitem__(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        match self
            .keys
            .code_of(key, "a key")?
            .and_then(|code| self.map.remove(code))
        {
            Some(_) => Ok(()),
            None => Err(PyKeyError::new_err(key.clone().unbind())),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Map(len={}, key_dtype={}, value_dtype={}, placement='{}')",
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
        match self
            .keys
            .code_of(key, "a key")?
            .and_then(|code| self.map.get(code))
        {
            Some(value) => self.values.to_py(py, value),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    /// insert(key, value) -> previous value or None.
    fn insert<'py>(
        &mut self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key = self.keys.strict_code(key, "key")?;
        let value = self.values.strict_code(value, "value")?;
        match self.map.insert(key, value).py_col()? {
            Some(old) => self.values.to_py(py, old),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// remove(key) -> its value, or None when absent.
    fn remove<'py>(
        &mut self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self
            .keys
            .code_of(key, "a key")?
            .and_then(|code| self.map.remove(code))
        {
            Some(old) => self.values.to_py(py, old),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Whether `key` is present.
    fn contains(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(key)
    }

    /// get_many(keys, default=None): with no default, `(values, found)`: values (0 where not
    /// found) and a boolean mask of the keys present; with a default, the values with `default`
    /// where a key is absent. Batched: the next keys' buckets are prefetched.
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

    /// insert_many(keys, values): sets every key (later duplicates win).
    fn insert_many(
        &mut self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.upsert_many(py, keys, values, "replace")
    }

    /// upsert_many(keys, values, combine="sum"): each key becomes `combine(old, value)` when
    /// present, else `value`, in order. `combine`: "sum", "min", "max" or "replace". A sum
    /// outside the value dtype is an OverflowError (that key keeps its old value).
    #[pyo3(signature = (keys, values, combine = "sum"))]
    fn upsert_many(
        &mut self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        combine: &str,
    ) -> PyResult<()> {
        let combine = Combine::parse(combine)?;
        let key_codes = self.keys.codes(py, keys, "keys")?;
        let value_codes = self.values.codes(py, values, "values")?;
        if key_codes.len() != value_codes.len() {
            return Err(PyValueError::new_err(format!(
                "{} keys but {} values were given",
                key_codes.len(),
                value_codes.len()
            )));
        }
        self.upsert_codes(py, key_codes, value_codes, combine)
    }

    /// `(keys, values)`: numpy arrays of every entry, sorted by key.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let map = &self.map;
        let entries = py.detach(|| map.iter().collect());
        sorted_items(py, self.keys, self.values, entries)
    }

    /// The keys, sorted, as a numpy array.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.items(py)?.get_item(0)
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

    /// Bytes of memory the map occupies (all partitions and replicas, whole pages).
    #[getter]
    fn nbytes(&self) -> usize {
        self.map.memory_bytes()
    }

    /// The placement of the map's memory.
    #[getter]
    fn placement(&self) -> String {
        self.map.placement().to_string()
    }

    /// Radix partitions (1 unless built by `aggregate`).
    #[getter]
    fn partitions(&self) -> usize {
        self.map.partitions()
    }

    /// Entries, buckets, widths and bytes per entry, as a dict (with the same as `text`).
    fn memory_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        memory_dict(py, &self.map.memory_report())
    }

    /// Where the pages are: one placement report per partition.
    fn placement_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        placement_list(py, &self.map)
    }
    /// freeze() -> a read-only `FrozenMap` of the same entries, about half the bytes, placed
    /// like this map.
    fn freeze(&self, py: Python<'_>) -> PyResult<PyFrozenMap> {
        PyFrozenMap::freeze(py, &self.map, self.keys, self.values)
    }
}

/// A set of integer keys (uint64 or int64) in compact, placed memory.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> s = sa.Set(np.array([5, -1, 5, 7], dtype=np.int64))
/// >>> len(s), -1 in s, s.contains_many([7, 8])
/// (3, True, array([ True, False]))
/// >>> s.to_numpy()
/// array([-1,  5,  7])
#[pyclass(name = "Set", module = "smartarrays")]
pub struct PySet {
    set: Set<u64>,
    keys: IntType,
}

#[pymethods]
impl PySet {
    /// Set(keys=None, *, dtype=None, placement="interleaved", threads=None): an empty set, or
    /// the distinct `keys`, built in parallel.
    #[new]
    #[pyo3(signature = (keys = None, *, dtype = None, placement = "interleaved", threads = None))]
    fn py_new(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PySet> {
        let key_type = IntType::choose(py, dtype, keys, "dtype")?;
        let options = options(py, placement, threads)?;
        let set = match keys.filter(|k| !k.is_none()) {
            Some(keys) => {
                let codes = key_type.codes(py, keys, "keys")?;
                py.detach(|| Set::from_keys_parallel(&codes, &options))
            }
            None => py.detach(|| Set::with_options(&options)),
        }
        .py_col()?;
        Ok(PySet {
            set,
            keys: key_type,
        })
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
            "Set(len={}, dtype={}, placement='{}')",
            self.set.len(),
            self.keys.name(),
            self.set.as_map().placement()
        )
    }

    /// insert(key) -> True when it was new.
    fn insert(&mut self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let code = self.keys.strict_code(key, "key")?;
        self.set.insert(code).py_col()
    }

    /// Adds every key of a batch.
    fn insert_many(&mut self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        let codes = self.keys.codes(py, keys, "keys")?;
        let set = &mut self.set;
        py.detach(|| set.insert_many(&codes)).py_col()
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

    /// remove(key) -> True when it was present.
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.set.remove(code),
            None => false,
        })
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

    /// Bytes of memory the set occupies.
    #[getter]
    fn nbytes(&self) -> usize {
        self.set.memory_bytes()
    }

    /// The placement of the set's memory.
    #[getter]
    fn placement(&self) -> String {
        self.set.as_map().placement().to_string()
    }

    /// Entries, buckets, widths and bytes per entry, as a dict.
    fn memory_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        memory_dict(py, &self.set.memory_report())
    }

    /// Where the pages are: one placement report per partition.
    fn placement_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        placement_list(py, self.set.as_map())
    }
    /// freeze() -> a read-only `FrozenSet` of the same keys, about half the bytes, placed like
    /// this set.
    fn freeze(&self, py: Python<'_>) -> PyResult<PyFrozenSet> {
        let set = &self.set;
        let codes: Vec<u64> = py.detach(|| set.iter().collect());
        let map = set.as_map();
        let options = ArrayOptions::new()
            .placement(map.placement().clone())
            .runtime(std::sync::Arc::clone(map.runtime()));
        PyFrozenSet::build(py, &codes, self.keys, &options)
    }
}

/// Counts of integer keys (uint64 or int64): a multiset in compact, placed memory. Counts never
/// wrap: one past 2**64-1 is an OverflowError.
///
/// >>> import numpy as np, smartarrays as sa
/// >>> words = np.array([3, 1, 3, 3, 2], dtype=np.uint64)
/// >>> bag = sa.Bag.count(words, threads=2)
/// >>> bag[3], bag[9], len(bag)
/// (3, 0, 3)
/// >>> bag.items()
/// (array([1, 2, 3], dtype=uint64), array([1, 1, 3], dtype=uint64))
#[pyclass(name = "Bag", module = "smartarrays")]
pub struct PyBag {
    bag: Bag<u64>,
    keys: IntType,
}

impl PyBag {
    fn counted(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyBag> {
        let key_type = IntType::choose(py, dtype, keys, "dtype")?;
        let options = options(py, placement, threads)?;
        let bag = match keys.filter(|k| !k.is_none()) {
            Some(keys) => {
                let codes = key_type.codes(py, keys, "keys")?;
                py.detach(|| Bag::count_parallel(&codes, &options))
            }
            None => py.detach(|| Bag::with_options(&options)),
        }
        .py_col()?;
        Ok(PyBag {
            bag,
            keys: key_type,
        })
    }
}

#[pymethods]
impl PyBag {
    /// Bag(keys=None, *, dtype=None, placement="interleaved", threads=None): an empty bag, or
    /// the counts of `keys` (counted in parallel, as `Bag.count`).
    #[new]
    #[pyo3(signature = (keys = None, *, dtype = None, placement = "interleaved", threads = None))]
    fn py_new(
        py: Python<'_>,
        keys: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyBag> {
        PyBag::counted(py, keys, dtype, placement, threads)
    }

    /// Bag.count(keys, *, dtype=None, placement="interleaved", threads=None): counts `keys` in
    /// parallel (the radix-partitioned group-by: per-worker pre-aggregation, partitions merged by
    /// a worker of their node) on `threads` workers (None: the default runtime).
    #[staticmethod]
    #[pyo3(signature = (keys, *, dtype = None, placement = "interleaved", threads = None))]
    fn count(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyBag> {
        PyBag::counted(py, Some(keys), dtype, placement, threads)
    }

    fn __len__(&self) -> usize {
        self.bag.len()
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.bag.as_map().contains_key(code),
            None => false,
        })
    }

    /// `bag[key]`: the count of `key`, 0 when absent (as `collections.Counter`).
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.bag.count(code),
            None => 0,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Bag(len={}, dtype={}, placement='{}')",
            self.bag.len(),
            self.keys.name(),
            self.bag.as_map().placement()
        )
    }

    /// get(key) -> the count of `key` (0 when absent).
    fn get(&self, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.__getitem__(key)
    }

    /// add(key, n=1) -> the new count; OverflowError (and no change) past 2**64-1.
    #[pyo3(signature = (key, n = 1))]
    fn add(&mut self, key: &Bound<'_, PyAny>, n: u64) -> PyResult<u64> {
        let code = self.keys.strict_code(key, "key")?;
        self.bag.add(code, n).py_col()
    }

    /// Adds one to the count of every key of a batch.
    fn add_many(&mut self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        let codes = self.keys.codes(py, keys, "keys")?;
        let bag = &mut self.bag;
        py.detach(|| bag.add_many(&codes)).py_col()
    }

    /// count_many(keys) -> uint64 counts of a batch (0 for absent keys).
    fn count_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let codes = self.keys.codes(py, keys, "keys")?;
        let bag = &self.bag;
        let counts = py
            .detach(|| {
                let mut out = vec![0u64; codes.len()];
                bag.count_many(&codes, &mut out).map(|_| out)
            })
            .py_col()?;
        new_numpy_u64(py, counts.len(), |out| out.copy_from_slice(&counts))
    }

    /// remove(key) -> its count, or None when absent.
    fn remove(&mut self, key: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        Ok(match self.keys.code_of(key, "a key")? {
            Some(code) => self.bag.remove(code),
            None => None,
        })
    }

    /// `(keys, counts)`: numpy arrays of every key and its count, sorted by key.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let bag = &self.bag;
        let entries = py.detach(|| bag.iter().collect());
        sorted_items(py, self.keys, IntType::U64, entries)
    }

    /// Same as `items()`.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.items(py)
    }

    /// numpy dtype of the keys.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys.dtype(py)
    }

    /// Bytes of memory the bag occupies.
    #[getter]
    fn nbytes(&self) -> usize {
        self.bag.memory_bytes()
    }

    /// The placement of the bag's memory.
    #[getter]
    fn placement(&self) -> String {
        self.bag.as_map().placement().to_string()
    }

    /// Entries, buckets, widths (`value_bits`: the count width) and bytes per entry, as a dict.
    fn memory_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        memory_dict(py, &self.bag.memory_report())
    }

    /// Where the pages are: one placement report per partition.
    fn placement_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        placement_list(py, self.bag.as_map())
    }
}

/// The strings of a sequence (a list, or a numpy str or object array), each checked: TypeError
/// naming the first element that is no str, ValueError for one that is not valid Unicode.
fn strings_of(py: Python<'_>, values: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    let numpy = py.import("numpy")?;
    let values = if values.is_instance(&numpy.getattr("ndarray")?)? {
        values.call_method0("tolist")?
    } else {
        values.clone()
    };
    if values.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a sequence of str, not one str"
        )));
    }
    let items = values
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a sequence of str")))?;
    let mut strings = Vec::new();
    for (index, item) in items.enumerate() {
        let item = item?;
        let text = item.cast::<PyString>().map_err(|_| {
            let type_name = item
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "object".into());
            PyTypeError::new_err(format!("{what}: element {index} is {type_name}, not str"))
        })?;
        strings.push(
            text.to_str()
                .map_err(|_| {
                    PyValueError::new_err(format!(
                        "{what}: the string at index {index} is not valid Unicode text (a lone surrogate)"
                    ))
                })?
                .to_string(),
        );
    }
    Ok(strings)
}

/// Interned strings with dense uint32 codes `0..len` in insertion order: strings become keys of
/// the integer collections (a word count is `Bag.count(d.intern_many(words))`).
///
/// >>> import smartarrays as sa
/// >>> d = sa.Dictionary()
/// >>> d.intern_many("to be or not to be".split())
/// array([0, 1, 2, 3, 0, 1], dtype=uint32)
/// >>> d["not"], d.resolve(1), "cat" in d
/// (3, 'be', False)
#[pyclass(name = "Dictionary", module = "smartarrays")]
pub struct PyDictionary {
    dictionary: smartarrays_collections::Dictionary,
}

#[pymethods]
impl PyDictionary {
    /// Dictionary(strings=None, *, placement="interleaved", threads=None): empty, or with
    /// `strings` interned in order.
    #[new]
    #[pyo3(signature = (strings = None, *, placement = "interleaved", threads = None))]
    fn py_new(
        py: Python<'_>,
        strings: Option<&Bound<'_, PyAny>>,
        placement: &str,
        threads: Option<i64>,
    ) -> PyResult<PyDictionary> {
        let options = options(py, placement, threads)?;
        let dictionary = py
            .detach(|| smartarrays_collections::Dictionary::with_options(&options))
            .py_col()?;
        let mut this = PyDictionary { dictionary };
        if let Some(strings) = strings.filter(|s| !s.is_none()) {
            this.intern_many(py, strings)?;
        }
        Ok(this)
    }

    fn __len__(&self) -> usize {
        self.dictionary.len()
    }

    fn __contains__(&self, text: &Bound<'_, PyAny>) -> bool {
        text.extract::<&str>()
            .ok()
            .and_then(|t| self.dictionary.get(t))
            .is_some()
    }

    /// `d[text]`: the code of `text`; KeyError when it was never interned.
    fn __getitem__(&self, text: &Bound<'_, PyAny>) -> PyResult<u32> {
        text.extract::<&str>()
            .ok()
            .and_then(|t| self.dictionary.get(t))
            .ok_or_else(|| PyKeyError::new_err(text.clone().unbind()))
    }

    fn __repr__(&self) -> String {
        format!("Dictionary(len={})", self.dictionary.len())
    }

    /// get(text) -> its code, or None.
    fn get(&self, text: &str) -> Option<u32> {
        self.dictionary.get(text)
    }

    /// intern(text) -> its code, a new one (the next in order) when it is new.
    fn intern(&mut self, text: &str) -> PyResult<u32> {
        self.dictionary.intern(text).py_col()
    }

    /// intern_many(strings) -> uint32 codes of a batch (a list, or a numpy str or object
    /// array of str).
    fn intern_many<'py>(
        &mut self,
        py: Python<'py>,
        strings: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let strings = strings_of(py, strings, "strings")?;
        let dictionary = &mut self.dictionary;
        let codes = py
            .detach(|| dictionary.intern_many(strings.iter().map(String::as_str)))
            .py_col()?;
        numpy_from_words(py, codes.iter().map(|&c| u64::from(c)), "uint32")
    }

    /// resolve(code) -> the string of a code, or None.
    fn resolve(&self, code: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let code = IntType::U64.code_of(code, "a code")?;
        Ok(code
            .and_then(|c| u32::try_from(c).ok())
            .and_then(|c| self.dictionary.resolve(c))
            .map(str::to_string))
    }

    /// resolve_many(codes) -> an object array of the strings (None for unknown codes).
    fn resolve_many<'py>(
        &self,
        py: Python<'py>,
        codes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let codes = IntType::U64.codes(py, codes, "codes")?;
        let array = py
            .import("numpy")?
            .call_method1("empty", (codes.len(), "object"))?;
        for (index, code) in codes.into_iter().enumerate() {
            let text = u32::try_from(code)
                .ok()
                .and_then(|c| self.dictionary.resolve(c));
            array.set_item(index, text)?;
        }
        Ok(array)
    }

    /// Bytes of memory the dictionary occupies (strings, offsets and its index).
    #[getter]
    fn nbytes(&self) -> usize {
        self.dictionary.memory_bytes()
    }
}
