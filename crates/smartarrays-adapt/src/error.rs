//! The crate's error type: every fallible operation returns [`Result<T>`]; each variant names the
//! problem and the file or value involved.

use std::path::PathBuf;

/// Result alias of the adaptivity crate.
pub type Result<T, E = AdaptError> = std::result::Result<T, E>;

/// Everything that can go wrong while describing, measuring, profiling or deciding.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdaptError {
    /// The core library refused an operation (allocation, placement, width...).
    #[error(transparent)]
    Core(#[from] smartarrays::Error),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A description or profile file is not valid JSON of the expected shape, or is inconsistent.
    #[error("invalid {what}: {detail}")]
    InvalidDescription {
        /// Which kind of document (machine description, cost profile, workload profile).
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// An argument is out of range or contradicts another.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A figure the decision needs is missing from the machine description.
    #[error("missing figure: {0}")]
    MissingFigure(String),
}

impl AdaptError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> AdaptError {
        AdaptError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn invalid(what: &'static str, detail: impl Into<String>) -> AdaptError {
        AdaptError::InvalidDescription {
            what,
            detail: detail.into(),
        }
    }
}
