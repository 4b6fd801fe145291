//! The errors of the query layer: every one names what was wrong and, for SQL, where.

use std::fmt;

/// A place in the SQL text (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Position {
    /// Line, from 1 (0: unknown).
    pub line: u64,
    /// Column, from 1 (0: unknown).
    pub column: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            Ok(())
        } else {
            write!(f, " (line {}, column {})", self.line, self.column)
        }
    }
}

/// What went wrong while loading, planning or running a query. Nothing is ever returned
/// half-computed: a query either returns its whole result or one of these.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The SQL text does not parse.
    #[error("syntax error: {message}")]
    Syntax {
        /// The parser's message (it carries the line and column).
        message: String,
    },
    /// A feature of SQL this engine does not run (yet).
    #[error("{what} is not supported{position}")]
    Unsupported {
        /// What is not supported.
        what: String,
        /// Where it is in the SQL text.
        position: Position,
    },
    /// A table that the catalog does not have.
    #[error("unknown table {name}{position}")]
    UnknownTable {
        /// The name used.
        name: String,
        /// Where it is in the SQL text.
        position: Position,
    },
    /// A column that no table in scope has.
    #[error("unknown column {name}{position}")]
    UnknownColumn {
        /// The name used.
        name: String,
        /// Where it is in the SQL text.
        position: Position,
    },
    /// A column name that more than one table in scope has.
    #[error("column {name} is ambiguous{position}")]
    AmbiguousColumn {
        /// The name used.
        name: String,
        /// Where it is in the SQL text.
        position: Position,
    },
    /// Operands of the wrong types.
    #[error("type error: {message}{position}")]
    Type {
        /// What does not fit.
        message: String,
        /// Where it is in the SQL text.
        position: Position,
    },
    /// Arithmetic that leaves the 64-bit range of its type (or 128 bits for sums).
    #[error("overflow: {0}")]
    Overflow(String),
    /// A table that cannot be built as asked (columns of different lengths, duplicate names).
    #[error("invalid table {table}: {message}")]
    InvalidTable {
        /// The table's name.
        table: String,
        /// What is wrong.
        message: String,
    },
    /// A join whose build side has a key twice (only unique build keys are supported yet).
    #[error("join key {column} has duplicate values on the build side (only unique build keys are supported yet)")]
    DuplicateBuildKey {
        /// The build side's key column.
        column: String,
    },
    /// A value in a file or an Arrow stream that does not fit its column, with its place
    /// (`line` is the 1-based line of a text file, or the 1-based row of other sources).
    #[error("{source_name}: {unit} {line}, column {column} ({name}): {message}")]
    Malformed {
        /// The file or stream.
        source_name: String,
        /// `line` for text files, `row` for Arrow and Parquet data.
        unit: &'static str,
        /// The line (or row), from 1.
        line: u64,
        /// The column, from 1.
        column: usize,
        /// The column's name.
        name: String,
        /// What is wrong with the value.
        message: String,
    },
    /// A file or stream that cannot be loaded or saved as a whole (unreadable, truncated,
    /// corrupted, an unsupported type).
    #[error("{source_name}: {message}")]
    Load {
        /// The file or stream.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// From the encodings.
    #[error(transparent)]
    Encoding(#[from] smartarrays_encodings::EncodingError),
    /// From the collections.
    #[error(transparent)]
    Collections(#[from] smartarrays_collections::Error),
    /// From the core (memory, runtime).
    #[error(transparent)]
    Core(#[from] smartarrays::Error),
    /// An operator's memory (a hash build, an aggregation's groups, collected rows) would pass
    /// the query's memory budget (`QueryOptions::memory_limit`, `SMARTARRAYS_QUERY_MEMORY`, or
    /// the memory the machine has available): the query stops instead of being killed.
    #[error("out of memory budget: {operator} needs {requested} more bytes while the query holds {held}, over its limit of {limit} bytes (raise QueryOptions::memory_limit or SMARTARRAYS_QUERY_MEMORY)")]
    MemoryLimit {
        /// The operator that asked, for example `hash build of orders (o_orderkey)`.
        operator: String,
        /// Bytes it asked for.
        requested: usize,
        /// Bytes the query's operators held already.
        held: usize,
        /// The query's budget in bytes.
        limit: usize,
    },
    /// An option (or the environment variable that sets it) with a value it cannot take.
    #[error("invalid option {name}: {message}")]
    InvalidOption {
        /// The option's name.
        name: String,
        /// What is wrong with its value.
        message: String,
    },
}

/// The result of the query layer.
pub type Result<T> = std::result::Result<T, QueryError>;

impl QueryError {
    pub(crate) fn unsupported(what: impl Into<String>, position: Position) -> QueryError {
        QueryError::Unsupported {
            what: what.into(),
            position,
        }
    }

    pub(crate) fn load(source_name: impl Into<String>, message: impl Into<String>) -> QueryError {
        QueryError::Load {
            source_name: source_name.into(),
            message: message.into(),
        }
    }

    pub(crate) fn type_error(message: impl Into<String>, position: Position) -> QueryError {
        QueryError::Type {
            message: message.into(),
            position,
        }
    }
}
