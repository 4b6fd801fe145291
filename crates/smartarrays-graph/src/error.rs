//! The graph crate's error type: parse errors name the file, line and problem; binary-format
//! errors name the file and what is wrong; smart array errors pass through.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;

/// Everything that can go wrong when loading, building or analysing a graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// A text input (edge list, Matrix Market) has a malformed line.
    #[error("{}:{line}: {problem}", file.display())]
    Parse {
        /// The file (or the name given to an in-memory input).
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong with the line.
        problem: String,
    },
    /// A binary graph file is damaged, truncated, of another version, or inconsistent.
    #[error("{}: {problem}", file.display())]
    Format {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// An argument is out of range (a vertex id, a scale, a tolerance, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An output array handed to an `_into` function cannot hold the result: wrong length, or
    /// too few bits for the largest value.
    #[error("the output array ({len} values of {bits} bits) cannot hold the result ({expected_len} values of up to {needed_bits} bits)")]
    OutputMismatch {
        /// Values the result has.
        expected_len: usize,
        /// Values the output array has.
        len: usize,
        /// Bits the result's largest value needs.
        needed_bits: u32,
        /// Bits of the output array.
        bits: u32,
    },
    /// A smart array operation failed (allocation, placement, width).
    #[error(transparent)]
    Array(#[from] smartarrays::Error),
}

impl GraphError {
    pub(crate) fn io(file: impl Into<PathBuf>, source: std::io::Error) -> GraphError {
        GraphError::Io {
            file: file.into(),
            source,
        }
    }

    pub(crate) fn format(file: impl Into<PathBuf>, problem: impl Into<String>) -> GraphError {
        GraphError::Format {
            file: file.into(),
            problem: problem.into(),
        }
    }
}
