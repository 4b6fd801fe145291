//! Turning Python arguments into core types: `placement=` and `bits=` values, and the values of
//! a new array from a buffer (read in place), anything numpy can convert, or any iterable of
//! Python integers (checked one by one, with the index of the first bad value in the error).

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyIndexError, PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyRange, PyString};
use smartarrays::{ArrayOptions, Compression, Placement, SmartArray};

use crate::buffer::{Column, Element, Kind, Typed};
use crate::errors::to_py;

/// Parses `placement=`: `"os"`, `"node:N"`, `"interleaved"`, `"interleaved:N,M"`, `"replicated"`.
pub fn placement(text: &str) -> PyResult<Placement> {
    text.parse::<Placement>().map_err(to_py)
}

/// The positions an index array (already `numpy.asarray`'d) selects among the `len` elements of
/// a `noun` ("column", "array"): integers, negative ones counting from the end, or a boolean mask
/// of length `len`. An IndexError names what is wrong: more than one dimension, a mask of
/// another length, a position out of range, or another dtype (an empty array of any dtype
/// selects nothing).
pub fn index_positions<'py>(
    py: Python<'py>,
    mut indices: Bound<'py, PyAny>,
    len: usize,
    noun: &str,
) -> PyResult<Vec<usize>> {
    let ndim: usize = indices.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyIndexError::new_err(format!(
            "index arrays must be one-dimensional, got {ndim} dimensions"
        )));
    }
    let kind: String = indices.getattr("dtype")?.getattr("kind")?.extract()?;
    match kind.as_str() {
        "b" => {
            let mask_len = indices.len()?;
            if mask_len != len {
                return Err(PyIndexError::new_err(format!(
                    "boolean index of length {mask_len} does not match the {noun} length {len}"
                )));
            }
            indices = py
                .import("numpy")?
                .call_method1("flatnonzero", (indices,))?;
        }
        "i" | "u" => {}
        _ if indices.len()? == 0 => return Ok(Vec::new()),
        _ => {
            return Err(PyIndexError::new_err(
                "only integers, slices and integer or boolean arrays are valid indices",
            ))
        }
    }
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let positions: Vec<i128> = indices.call_method0("tolist")?.extract()?;
    positions
        .into_iter()
        .map(|position| {
            let index = if position < 0 {
                position + len as i128
            } else {
                position
            };
            if index < 0 || index >= len as i128 {
                Err(PyIndexError::new_err(format!(
                    "index {position} is out of range for {article} {noun} of length {len}"
                )))
            } else {
                Ok(index as usize)
            }
        })
        .collect()
}

/// UnknownNode (ValueError) when `placement` names a node `topology` does not have.
pub fn check_nodes(placement: &Placement, topology: &smartarrays::Topology) -> PyResult<()> {
    let nodes = match placement {
        Placement::SingleNode(node) => std::slice::from_ref(node),
        Placement::Interleaved(nodes) => nodes.as_slice(),
        _ => &[],
    };
    for &node in nodes {
        topology.node(node).map_err(to_py)?;
    }
    Ok(())
}

/// The width rule from `bits=` and `compression=` (at most one of them may be given). Both take
/// the one width vocabulary of every language: `"minimal"` (the default: the fewest bits that
/// hold the largest value), `"uncompressed"` (32 or 64 bits), `"auto"` (the advisor chooses
/// between those two) or an integer width 1..64.
pub fn width(
    bits: Option<&Bound<'_, PyAny>>,
    compression: Option<&Bound<'_, PyAny>>,
) -> PyResult<Compression> {
    let given = |v: Option<&Bound<'_, PyAny>>| v.filter(|v| !v.is_none()).is_some();
    if given(bits) && given(compression) {
        return Err(PyValueError::new_err(
            "give bits= or compression=, not both",
        ));
    }
    if given(compression) {
        return parse_width("compression", compression);
    }
    parse_width("bits", bits)
}

/// Installs the advisor for this machine once per process (measured on first use, then read
/// from the cache; see `smartarrays_adapt::install_for_this_machine`).
pub fn ensure_advisor(py: Python<'_>) -> PyResult<()> {
    static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let outcome = py.detach(|| {
        INSTALLED.get_or_init(|| {
            if smartarrays::array::installed_advisor().is_some() {
                return Ok(());
            }
            smartarrays_adapt::install_for_this_machine()
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    });
    outcome.clone().map_err(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "could not set up the advisor for this machine: {e}"
        ))
    })
}

/// Parses `bits=` (the words of `parse_width`).
pub fn bits(value: Option<&Bound<'_, PyAny>>) -> PyResult<Compression> {
    parse_width("bits", value)
}

/// Parses the width given as argument `name`: `None` (minimal), `"minimal"`, `"uncompressed"`,
/// `"auto"` or an integer width 1..=64.
fn parse_width(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Compression> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Compression::Minimal);
    };
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_cow()?;
        return text.trim().parse::<Compression>().map_err(|_| {
            PyValueError::new_err(format!(
                "{name}={text:?} is invalid: use \"minimal\", \"uncompressed\", \"auto\" or a width from 1 to 64"
            ))
        });
    }
    let integer = integer_value(value).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{name} must be \"minimal\", \"uncompressed\", \"auto\" or an integer 1..64, not {}",
            type_name(value)
        ))
    })?;
    match integer.extract::<u32>() {
        Ok(width) => smartarrays::codec::check_bits(width)
            .map(Compression::Exactly)
            .map_err(to_py),
        Err(_) => Err(PyValueError::new_err(format!(
            "bit width {integer} is invalid: it must be between 1 and 64"
        ))),
    }
}

/// The Python int an integer-like object stands for, as `operator.index` gives it (ints,
/// bools, numpy integers, anything with `__index__`), or None for anything else. Values of any
/// size, so that an integer out of range is told apart from a value that is no integer.
pub fn integer_value<'py>(value: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
    let index = value.py().import("operator").ok()?.getattr("index").ok()?;
    index.call1((value,)).ok()
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Why building from a buffer failed (decided without the GIL, reported with it).
enum BuildError {
    Core(smartarrays::Error),
    Negative { index: usize, value: i64 },
}

impl From<BuildError> for PyErr {
    fn from(error: BuildError) -> PyErr {
        match error {
            BuildError::Core(error) => to_py(error),
            BuildError::Negative { index, value } => PyValueError::new_err(format!(
                "value {value} at index {index} is negative: smart arrays hold unsigned integers (0 to 2**64-1)"
            )),
        }
    }
}

/// Builds an array from `values` with `options`.
pub fn build(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    options: &ArrayOptions,
) -> PyResult<SmartArray> {
    if let Ok(view) = PyUntypedBuffer::get(values) {
        return from_buffer(py, &view, options);
    }
    if values.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "expected a sequence, numpy array or buffer of integers, got {}",
            type_name(values)
        )));
    }
    refuse_nulls(values)?;
    if values.hasattr("__array__")? {
        let numpy = py.import("numpy")?;
        let converted = numpy.call_method1("asarray", (values,))?;
        let ndim: usize = converted.getattr("ndim")?.extract()?;
        if ndim != 1 {
            return Err(PyValueError::new_err(format!(
                "expected one-dimensional values, got an array of {ndim} dimensions"
            )));
        }
        let view = PyUntypedBuffer::get(&converted)?;
        return from_buffer(py, &view, options);
    }
    if let Ok(range) = values.cast::<PyRange>() {
        return from_range(py, range, options);
    }
    let collected = collect_ints(values)?;
    py.detach(|| SmartArray::from_slice(&collected, options))
        .map_err(to_py)
}

/// A `range` is computed, not iterated: `range(10**9)` needs no billion Python integers, and
/// `range(10**17)` is refused by the memory check instead of a list of that size.
fn from_range(
    py: Python<'_>,
    range: &Bound<'_, PyRange>,
    options: &ArrayOptions,
) -> PyResult<SmartArray> {
    let len: usize = range.len().map_err(|error| {
        if error.is_instance_of::<PyOverflowError>(py) {
            PyMemoryError::new_err(format!(
                "the range holds more values than fit in memory (its len() overflows: {error})"
            ))
        } else {
            error
        }
    })?;
    if len == 0 {
        return py
            .detach(|| SmartArray::from_slice(&[], options))
            .map_err(to_py);
    }
    // Both ends fit in i128 (len fits in usize, start and step in i64's neighbourhood or the
    // range would not have a length), so the values are an arithmetic sequence in i128.
    let start: i128 = range.getattr("start")?.extract()?;
    let step: i128 = range.getattr("step")?.extract()?;
    let last = start + step * (len as i128 - 1);
    let top = i128::from(u64::MAX);
    // The first value outside 0..=u64::MAX, named with its index like any other input.
    let first_bad = if start < 0 || start > top {
        Some(0)
    } else if last < 0 {
        Some(start / -step + 1)
    } else if last > top {
        Some((top - start) / step + 1)
    } else {
        None
    };
    if let Some(index) = first_bad {
        let item = (start + step * index).into_pyobject(py)?.into_any();
        return Err(bad_element(index as usize, &item));
    }
    py.detach(|| SmartArray::from_fn(len, options, |i| (start + step * i as i128) as u64))
        .map_err(to_py)
}

fn from_buffer(
    py: Python<'_>,
    view: &PyUntypedBuffer,
    options: &ArrayOptions,
) -> PyResult<SmartArray> {
    let column = Column::new(view)?;
    let built = py.detach(|| match column.kind() {
        Kind::Unsigned(8) => match column.as_u64_slice() {
            Some(slice) => SmartArray::from_slice(slice, options).map_err(BuildError::Core),
            None => unsigned(column.typed::<u64>(), column.len(), options),
        },
        Kind::Unsigned(4) => unsigned(column.typed::<u32>(), column.len(), options),
        Kind::Unsigned(2) => unsigned(column.typed::<u16>(), column.len(), options),
        Kind::Unsigned(_) => unsigned(column.typed::<u8>(), column.len(), options),
        Kind::Bool => {
            let bytes = column.typed::<u8>();
            SmartArray::from_fn(column.len(), options, |i| u64::from(bytes.get(i) != 0))
                .map_err(BuildError::Core)
        }
        Kind::Signed(8) => signed(column.typed::<i64>(), column.len(), options),
        Kind::Signed(4) => signed(column.typed::<i32>(), column.len(), options),
        Kind::Signed(2) => signed(column.typed::<i16>(), column.len(), options),
        Kind::Signed(_) => signed(column.typed::<i8>(), column.len(), options),
    });
    Ok(built?)
}

fn unsigned<T: Element + Into<u64>>(
    values: Typed<'_, T>,
    len: usize,
    options: &ArrayOptions,
) -> Result<SmartArray, BuildError> {
    SmartArray::from_fn(len, options, |i| values.get(i).into()).map_err(BuildError::Core)
}

fn signed<T: Element + Into<i64>>(
    values: Typed<'_, T>,
    len: usize,
    options: &ArrayOptions,
) -> Result<SmartArray, BuildError> {
    if let Some(index) = (0..len).find(|&i| values.get(i).into() < 0) {
        return Err(BuildError::Negative {
            index,
            value: values.get(index).into(),
        });
    }
    SmartArray::from_fn(len, options, |i| values.get(i).into() as u64).map_err(BuildError::Core)
}

/// Arrow-backed input (pyarrow arrays and chunked arrays, polars series, pandas series with
/// missing values) says how many nulls it holds; numpy would turn them into NaN and the error
/// would blame a floating-point buffer. Smart arrays hold no nulls, so name them instead.
fn refuse_nulls(values: &Bound<'_, PyAny>) -> PyResult<()> {
    let nulls = if let Ok(count) = values.getattr("null_count") {
        // pyarrow: an attribute; polars: a method.
        let count = if count.is_callable() {
            count.call0()?
        } else {
            count
        };
        count.extract::<u64>().unwrap_or(0)
    } else if values.hasattr("hasnans")? && values.hasattr("isna")? {
        // pandas: `isna().sum()` counts None, NaN and NA alike.
        values
            .call_method0("isna")?
            .call_method0("sum")?
            .extract::<u64>()
            .unwrap_or(0)
    } else {
        0
    };
    if nulls > 0 {
        return Err(PyValueError::new_err(format!(
            "the input holds {nulls} null value(s): smart arrays hold no nulls; fill or drop them \
             first (pyarrow.compute.fill_null, polars fill_null/drop_nulls, pandas fillna/dropna)"
        )));
    }
    Ok(())
}

/// Collects any iterable of Python integers, naming the first element that is not one.
///
/// The values are gathered in a vector of 8 bytes per value before packing. Its length is
/// only a hint (`len()` may be wrong, fail, or be absurd, as for `range(2**40)`): a length no
/// memory can hold is refused at once with MemoryError, as `list()` does, and the vector grows
/// only while the machine has memory for it, so no input can abort the process or run it into
/// the OOM killer.
fn collect_ints(values: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    let iterator = values.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a sequence, numpy array or buffer of integers, got {}",
            type_name(values)
        ))
    })?;
    let mut collected = Vec::new();
    match values.len() {
        Ok(hint) => reserve_values(&mut collected, hint, values)?,
        Err(error) if error.is_instance_of::<PyOverflowError>(values.py()) => {
            return Err(PyMemoryError::new_err(format!(
                "{} holds more values than fit in memory (its len() overflows: {error})",
                type_name(values)
            )))
        }
        // No length (a generator) or a failing __len__: it was only a hint.
        Err(_) => {}
    }
    for (index, item) in iterator.enumerate() {
        let item = item?;
        match item.extract::<u64>() {
            Ok(value) => {
                if collected.len() == collected.capacity() {
                    let more = collected.len().max(1024);
                    reserve_values(&mut collected, more, values)?;
                }
                collected.push(value)
            }
            Err(_) => return Err(bad_element(index, &item)),
        }
    }
    Ok(collected)
}

/// Makes room for `additional` more values in `collected`, or MemoryError when the machine does
/// not have the memory for them: beyond 64 MiB, checked against MemAvailable before asking the
/// allocator, which would otherwise abort the process or overcommit.
fn reserve_values(
    collected: &mut Vec<u64>,
    additional: usize,
    values: &Bound<'_, PyAny>,
) -> PyResult<()> {
    const CHECKED_FROM: u64 = 64 << 20;
    let count = collected.len().saturating_add(additional);
    let bytes = (count as u64).saturating_mul(std::mem::size_of::<u64>() as u64);
    let available = if bytes > CHECKED_FROM {
        smartarrays::memory::current_available_memory()
    } else {
        None
    };
    let refused = || {
        PyMemoryError::new_err(format!(
            "{count} values from {} need {bytes} bytes while they are collected, more than the \
             {} bytes of memory available",
            type_name(values),
            available.map_or_else(|| "?".to_string(), |a| a.to_string())
        ))
    };
    if available.is_some_and(|available| bytes > available) {
        return Err(refused());
    }
    collected.try_reserve(additional).map_err(|_| refused())
}

fn bad_element(index: usize, item: &Bound<'_, PyAny>) -> PyErr {
    let Some(integer) = integer_value(item) else {
        return PyTypeError::new_err(format!(
            "element {index} is {}, not an integer",
            type_name(item)
        ));
    };
    match integer.extract::<i128>() {
        Ok(value) if value < 0 => {
            PyValueError::new_err(format!("value {value} at index {index} is negative: smart arrays hold unsigned integers (0 to 2**64-1)"))
        }
        Ok(value) => PyValueError::new_err(format!("value {value} at index {index} does not fit in 64 bits")),
        Err(_) => PyValueError::new_err(format!(
            "value {integer} at index {index} is outside 0 to 2**64-1"
        )),
    }
}
