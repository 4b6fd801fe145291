//! Which workers run a Python call. Arrays are built and reduced in parallel on a core
//! [`Runtime`]: the module default (the core's global runtime, one worker per CPU or
//! `SMARTARRAYS_THREADS`, unless `smartarrays.set_threads(n)` chose another), or one of `n`
//! workers when a call passes `threads=n`. Runtimes are created once per thread count and kept.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::PyValueError;
use pyo3::PyResult;
use smartarrays::Runtime;

use crate::errors::IntoPy;

static DEFAULT_THREADS: Mutex<Option<usize>> = Mutex::new(None);
static BY_THREADS: Mutex<BTreeMap<usize, Arc<Runtime>>> = Mutex::new(BTreeMap::new());

/// Checks a `threads=` argument from Python: `None` or a positive count.
pub fn check_threads(threads: Option<i64>) -> PyResult<Option<usize>> {
    match threads {
        None => Ok(None),
        Some(n) if n >= 1 => usize::try_from(n)
            .map(Some)
            .map_err(|_| PyValueError::new_err(format!("threads={n} is too large"))),
        Some(n) => Err(PyValueError::new_err(format!(
            "threads={n} is invalid: it must be at least 1 (or None for the default runtime)"
        ))),
    }
}

/// A runtime of exactly `threads` workers (created on first use, then shared).
pub fn with_threads(threads: usize) -> PyResult<Arc<Runtime>> {
    let mut cache = BY_THREADS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(runtime) = cache.get(&threads) {
        return Ok(Arc::clone(runtime));
    }
    let runtime = Arc::new(Runtime::with_threads(threads).py_err()?);
    cache.insert(threads, Arc::clone(&runtime));
    Ok(runtime)
}

/// The runtime for `threads`: that many workers, or the module default when `None`.
pub fn resolve(threads: Option<usize>) -> PyResult<Arc<Runtime>> {
    match threads.or(default_threads()) {
        Some(n) => with_threads(n),
        None => Runtime::global().py_err(),
    }
}

/// The thread count chosen with `set_threads`, if any.
pub fn default_threads() -> Option<usize> {
    *DEFAULT_THREADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Chooses the default worker count for arrays built from now on (`None`: the core's global
/// runtime).
pub fn set_default_threads(threads: Option<usize>) -> PyResult<()> {
    if let Some(n) = threads {
        with_threads(n)?;
    }
    *DEFAULT_THREADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = threads;
    Ok(())
}
