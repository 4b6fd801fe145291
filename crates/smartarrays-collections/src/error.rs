//! The collections' error type: every fallible operation returns [`Result<T>`]; out of memory is
//! refused before anything is mapped (the core's placement checks), never a panic or a process
//! ended by the kernel.

/// Result alias of the collections.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a collection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The core refused the storage: not enough memory on a node or on the machine, an unknown
    /// node, or a mapping the system would not give.
    #[error(transparent)]
    Memory(#[from] smartarrays::Error),
    /// A table of this many buckets does not fit the address space or the hash domain.
    #[error("a table for {entries} entries is too large to address")]
    CapacityOverflow {
        /// Entries the table was asked to hold.
        entries: u64,
    },
    /// A bag's count would pass `u64::MAX`; nothing was changed.
    #[error("count of key code {key} would overflow: {count} + {add} exceeds u64::MAX")]
    CountOverflow {
        /// The key's code (see [`Key`](crate::Key)).
        key: u64,
        /// The count it has.
        count: u64,
        /// What was to be added.
        add: u64,
    },
    /// Keys and values of a batch differ in length.
    #[error("{keys} keys but {values} values were given")]
    LengthMismatch {
        /// Keys given.
        keys: usize,
        /// Values given.
        values: usize,
    },
    /// An output buffer is shorter than the batch.
    #[error("output buffer holds {given} values but {needed} are needed")]
    BufferTooSmall {
        /// Values needed.
        needed: usize,
        /// Capacity given.
        given: usize,
    },
    /// A key was given twice to a build that takes each key once ([`FrozenMap`](crate::FrozenMap),
    /// [`FrozenSet`](crate::FrozenSet)).
    #[error("key code {key} was given more than once")]
    DuplicateKey {
        /// The key's code (see [`Key`](crate::Key)).
        key: u64,
    },
    /// A string dictionary has more than `u32::MAX` entries.
    #[error("a dictionary holds at most {max} strings")]
    DictionaryFull {
        /// The most it holds.
        max: u64,
    },
}
