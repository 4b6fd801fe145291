//! The jobs' error type: a malformed input line names the file, the 1-based line and what is
//! wrong with it; I/O errors name the file; the collections' and arrays' errors pass through.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = JobError> = std::result::Result<T, E>;

/// Everything that can go wrong in a job or a generator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// An input line is malformed (not UTF-8 where words are read, a number that does not
    /// parse, a vector of the wrong length, a review without a label, ...).
    #[error("{}:{line}: {problem}", file.display())]
    Parse {
        /// The file (or the name given to an in-memory input).
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong with the line.
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
    /// An argument is out of range (k = 0, a pattern with a newline, a size of 0, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A collection refused an operation (out of memory, a dictionary past `u32::MAX` words).
    #[error(transparent)]
    Collections(#[from] smartarrays_collections::Error),
    /// The runtime or an array refused an operation.
    #[error(transparent)]
    Array(#[from] smartarrays::Error),
}

impl JobError {
    pub(crate) fn io(file: impl Into<PathBuf>, source: std::io::Error) -> JobError {
        JobError::Io {
            file: file.into(),
            source,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> JobError {
        JobError::InvalidArgument(message.into())
    }
}
