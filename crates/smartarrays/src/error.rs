//! The library's error type: every fallible operation returns [`Result<T>`], and every variant
//! names the problem and the values involved so a user can act on the message alone.

/// Result alias used throughout the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in smartarrays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value is larger than the array's bit width can hold.
    #[error(
        "value {value} at index {index} does not fit in {bits} bits (largest allowed is {max})"
    )]
    ValueTooWide {
        /// Position of the offending value.
        index: usize,
        /// The value that does not fit.
        value: u64,
        /// The array's bit width.
        bits: u32,
        /// Largest value the width can hold.
        max: u64,
    },
    /// An index is past the end of the array.
    #[error("index {index} is out of range for an array of length {len}")]
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The array's length.
        len: usize,
    },
    /// A range is reversed or reaches past the end of the array.
    #[error("range {start}..{end} is out of bounds for an array of length {len}")]
    RangeOutOfBounds {
        /// Range start.
        start: usize,
        /// Range end (exclusive).
        end: usize,
        /// The array's length.
        len: usize,
    },
    /// A caller-provided buffer is shorter than the data to write into it.
    #[error("output buffer holds {given} values but {needed} are needed")]
    BufferTooSmall {
        /// Values needed.
        needed: usize,
        /// Capacity given.
        given: usize,
    },
    /// Packed words handed to [`crate::SmartArray::from_packed_words`] are not exactly the
    /// words `len` values of `bits` bits fill.
    #[error("{len} values of {bits} bits fill {expected} packed words, but {given} were given")]
    PackedLengthMismatch {
        /// Values.
        len: usize,
        /// Bits per value.
        bits: u32,
        /// Words they fill: `ceil(len * bits / 64)`.
        expected: usize,
        /// Words given.
        given: usize,
    },
    /// "Auto" placement or compression could not be resolved (no advisor installed, or its
    /// answer was unusable).
    #[error("cannot resolve auto configuration: {0}")]
    AutoUnresolved(String),
    /// A compression name that is not `auto`, `uncompressed`, `minimal` or a width.
    #[error(
        "unknown compression {0:?}: expected auto, uncompressed, minimal or a bit width 1..64"
    )]
    InvalidCompression(String),
    /// A bit width outside 1..=64.
    #[error("bit width {0} is invalid: it must be between 1 and 64")]
    InvalidBitWidth(u32),
    /// A NUMA node that the topology does not have.
    #[error("NUMA node {node} does not exist; this machine has nodes {available:?}")]
    UnknownNode {
        /// The node asked for.
        node: usize,
        /// The nodes that exist.
        available: Vec<usize>,
    },
    /// A node has less free memory than an allocation needs.
    #[error("not enough memory on NUMA node {node}: {requested} bytes requested, {available} bytes free")]
    NotEnoughMemory {
        /// The node.
        node: usize,
        /// Bytes the allocation needs on that node.
        requested: u64,
        /// Bytes the node has free.
        available: u64,
    },
    /// The machine has less memory available than an allocation with no node binding (the OS
    /// default placement) needs; refused before anything is mapped, so the process is never
    /// ended by the out-of-memory killer instead.
    #[error("not enough memory: {requested} bytes requested, {available} bytes available on this machine")]
    NotEnoughMachineMemory {
        /// Bytes the allocation needs.
        requested: u64,
        /// Bytes the machine has available (the kernel's MemAvailable, or the described nodes'
        /// free memory together).
        available: u64,
    },
    /// The operating system refused to provide memory, or the size overflows.
    #[error("could not allocate {bytes} bytes: {reason}")]
    AllocationFailed {
        /// Size asked for (saturated at `u64::MAX` when it overflowed).
        bytes: u64,
        /// What the system said.
        reason: String,
    },
    /// A system call failed.
    #[error("system call {call} failed: {reason}")]
    System {
        /// The call.
        call: &'static str,
        /// The operating system's message.
        reason: String,
    },
    /// A topology description could not be read or is inconsistent.
    #[error("invalid topology description: {0}")]
    InvalidTopology(String),
    /// A placement string or value could not be understood.
    #[error("invalid placement {0:?}: expected os, node:N, interleaved, interleaved:N,M,... or replicated")]
    InvalidPlacement(String),
    /// A runtime setting is out of range.
    #[error("invalid runtime configuration: {0}")]
    InvalidRuntime(String),
}
