//! `smartarrays.jobs`: the Spark study's five jobs (crate `smartarrays-jobs`) for Python. Files
//! are read memory-mapped by the Rust side; numbers come back as numpy arrays. The functions
//! here only translate arguments, results and errors; `python/smartarrays/jobs.py` documents
//! them for Python users.

use std::sync::Arc;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use smartarrays_jobs::{Input, JobError, JobOptions, KMeansOptions, Points};

use crate::buffer::new_numpy_u64;
use crate::runtime;

/// The Python exception for a job's error: a malformed line or a bad argument is a ValueError,
/// a missing file FileNotFoundError, other I/O OSError; memory and runtime errors as the core's.
fn to_py(error: JobError) -> PyErr {
    let message = error.to_string();
    match error {
        JobError::Parse { .. } | JobError::InvalidArgument(_) => PyValueError::new_err(message),
        JobError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(message)
        }
        JobError::Io { .. } => PyOSError::new_err(message),
        JobError::Array(inner) => crate::errors::to_py(inner),
        _ => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}

fn options(threads: Option<i64>) -> PyResult<JobOptions> {
    let runtime = runtime::resolve(runtime::check_threads(threads)?)?;
    Ok(JobOptions {
        runtime: Some(Arc::clone(&runtime)),
        ..JobOptions::default()
    })
}

fn open(py: Python<'_>, path: &str) -> PyResult<Input> {
    py.detach(|| Input::open(path)).map_err(to_py)
}

/// A float64 numpy array of `rows` x `columns` from `values` (row-major).
fn numpy_f64<'py>(
    py: Python<'py>,
    values: &[f64],
    rows: usize,
    columns: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let numpy = py.import("numpy")?;
    numpy
        .call_method1(
            "frombuffer",
            (PyBytes::new(py, &bytes), numpy.getattr("float64")?),
        )?
        .call_method1("reshape", (rows, columns))?
        .call_method0("copy")
}

/// `(word, count)` pairs, most frequent first.
#[pyfunction]
#[pyo3(name = "_jobs_wordcount", signature = (path, threads = None))]
pub fn wordcount(py: Python<'_>, path: &str, threads: Option<i64>) -> PyResult<Vec<(String, u64)>> {
    let options = options(threads)?;
    let input = open(py, path)?;
    let counts = py
        .detach(|| smartarrays_jobs::wordcount(&input, &options))
        .map_err(to_py)?;
    Ok(counts
        .sorted()
        .into_iter()
        .map(|(w, n)| (w.to_string(), n))
        .collect())
}

/// The lines holding `pattern`, in order.
#[pyfunction]
#[pyo3(name = "_jobs_grep", signature = (path, pattern, threads = None))]
pub fn grep<'py>(
    py: Python<'py>,
    path: &str,
    pattern: &str,
    threads: Option<i64>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let options = options(threads)?;
    let input = open(py, path)?;
    let found = py
        .detach(|| smartarrays_jobs::grep(&input, pattern, &options))
        .map_err(to_py)?;
    Ok(found
        .lines
        .iter()
        .map(|r| PyBytes::new(py, &input.bytes()[r.clone()]))
        .collect())
}

/// The lines of a file, sorted by their bytes.
#[pyfunction]
#[pyo3(name = "_jobs_sort_lines", signature = (path, threads = None))]
pub fn sort_lines<'py>(
    py: Python<'py>,
    path: &str,
    threads: Option<i64>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let options = options(threads)?;
    let input = open(py, path)?;
    let sorted = py
        .detach(|| smartarrays_jobs::sort_lines(&input, &options))
        .map_err(to_py)?;
    Ok(sorted
        .lines(&input)
        .map(|line| PyBytes::new(py, line))
        .collect())
}

/// Sorted uint64 keys and the radix passes: from a keys file (`path`) or a uint64 buffer.
#[pyfunction]
#[pyo3(name = "_jobs_sort_keys", signature = (source, threads = None))]
pub fn sort_keys<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    threads: Option<i64>,
) -> PyResult<(Bound<'py, PyAny>, u32)> {
    let options = options(threads)?;
    if let Ok(path) = source.extract::<String>() {
        let input = open(py, &path)?;
        let sorted = py
            .detach(|| smartarrays_jobs::sort_keys(&input, &options))
            .map_err(to_py)?;
        let mut unpacked = Ok(());
        let array = new_numpy_u64(py, sorted.len(), |out| {
            unpacked = sorted.keys.unpack(0, out);
        })?;
        unpacked.map_err(crate::errors::to_py)?;
        Ok((array, sorted.passes))
    } else {
        let mut keys = PyBuffer::<u64>::get(source)?.to_vec(py)?;
        let runtime = options.runtime().map_err(to_py)?;
        let (_, passes) = py.detach(|| smartarrays_jobs::radix_sort(&runtime, &mut keys));
        let array = new_numpy_u64(py, keys.len(), |out| out.copy_from_slice(&keys))?;
        Ok((array, passes))
    }
}

/// Trains on `train`, classifies `path`: (sorted labels, class index of every line as uint64).
#[pyfunction]
#[pyo3(name = "_jobs_bayes", signature = (train, path, alpha, threads = None))]
pub fn bayes<'py>(
    py: Python<'py>,
    train: &str,
    path: &str,
    alpha: f64,
    threads: Option<i64>,
) -> PyResult<(Vec<String>, Bound<'py, PyAny>)> {
    let options = options(threads)?;
    let train = open(py, train)?;
    let input = open(py, path)?;
    let (model, predicted) = py
        .detach(|| {
            let model = smartarrays_jobs::bayes_train(&train, alpha, &options)?;
            let predicted = smartarrays_jobs::bayes_classify(&model, &input, &options)?;
            Ok((model, predicted))
        })
        .map_err(to_py)?;
    let classes = predicted.classes;
    let array = new_numpy_u64(py, classes.len(), |out| {
        for (slot, &c) in out.iter_mut().zip(&classes) {
            *slot = u64::from(c);
        }
    })?;
    Ok((model.labels().to_vec(), array))
}

/// K-means over a vectors file (`path`) or a C-contiguous float64 buffer of `dims` columns:
/// (centroids as a k x dims float64 array, cost, passes of the initialisation).
#[pyfunction]
#[pyo3(name = "_jobs_kmeans", signature = (source, dims, k, iterations, init_steps, seed, initial = None, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn kmeans<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    dims: usize,
    k: usize,
    iterations: usize,
    init_steps: usize,
    seed: u64,
    initial: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<(Bound<'py, PyAny>, f64, usize)> {
    let options = options(threads)?;
    let points = if let Ok(path) = source.extract::<String>() {
        let input = open(py, &path)?;
        py.detach(|| smartarrays_jobs::read_points(&input, &options))
            .map_err(to_py)?
    } else {
        let values = PyBuffer::<f64>::get(source)?.to_vec(py)?;
        Points::from_rows(dims, values).map_err(to_py)?
    };
    let initial = match initial {
        Some(buffer) => Some(PyBuffer::<f64>::get(buffer)?.to_vec(py)?),
        None => None,
    };
    let settings = KMeansOptions {
        k,
        iterations,
        init_steps,
        seed,
        initial,
    };
    let result = py
        .detach(|| smartarrays_jobs::kmeans(&points, &settings, &options))
        .map_err(to_py)?;
    let centroids = numpy_f64(py, &result.centroids, result.k(), result.dims)?;
    Ok((centroids, result.cost, result.init_passes))
}
