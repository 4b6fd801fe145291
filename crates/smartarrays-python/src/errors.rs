//! Translation of the core's [`smartarrays::Error`] into Python exceptions: every variant maps to
//! the built-in exception a Python user expects (ValueError, IndexError, MemoryError, OSError),
//! carrying the core's message unchanged.

use pyo3::exceptions::{PyIndexError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;
use smartarrays::Error;

/// The Python exception for a core error.
pub fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::IndexOutOfRange { .. } | Error::RangeOutOfBounds { .. } => {
            PyIndexError::new_err(message)
        }
        Error::NotEnoughMemory { .. }
        | Error::NotEnoughMachineMemory { .. }
        | Error::AllocationFailed { .. } => PyMemoryError::new_err(message),
        Error::System { .. } => PyOSError::new_err(message),
        Error::ValueTooWide { .. }
        | Error::BufferTooSmall { .. }
        | Error::InvalidBitWidth(_)
        | Error::UnknownNode { .. }
        | Error::InvalidTopology(_)
        | Error::InvalidPlacement(_)
        | Error::InvalidCompression(_)
        | Error::PackedLengthMismatch { .. }
        | Error::InvalidRuntime(_) => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// `Result<T, smartarrays::Error>` to `PyResult<T>`.
pub trait IntoPy<T> {
    /// Converts the error, if any, with [`to_py`].
    fn py_err(self) -> pyo3::PyResult<T>;
}

impl<T> IntoPy<T> for smartarrays::Result<T> {
    fn py_err(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}
