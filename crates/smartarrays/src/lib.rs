//! # smartarrays
//!
//! Arrays that choose how they use the machine: where their memory lives on a multi-socket
//! (NUMA) server, and how many bits each value takes, behind one interface. Based on
//! Psaroudakis et al., "Analytics with Smart Arrays: Adaptive and Efficient Language-Independent
//! Data", EuroSys 2018.
//!
//! Layers, lowest first (each module's header says what it owns):
//! - `sys` (private): the only code that calls the kernel (mmap, mbind, move_pages, affinity);
//! - [`topology`]: NUMA nodes, their CPUs and memory;
//! - [`memory`]: page-aligned regions, placements, placement reports;
//! - [`codec`]: bit packing at 1..=64 bits with run-time-dispatched SIMD kernels;
//! - [`mod@array`]: [`SmartArray`], [`SignedArray`], [`F64Array`] and their views;
//! - [`runtime`]: pinned, node-grouped workers running batched parallel loops.
//!
//! # Example
//! ```
//! use smartarrays::{ArrayOptions, Placement, SmartArray};
//!
//! let values: Vec<u64> = (0..10_000).map(|i| i % 1000).collect();
//! let array = SmartArray::from_slice(&values, &ArrayOptions::new().placement(Placement::Interleaved(vec![]))).unwrap();
//! assert_eq!(array.bits(), 10); // 999 fits in 10 bits
//! assert_eq!(array.par_sum(), values.iter().sum::<u64>());
//! let mut total = 0;
//! array.for_each_chunk(0..array.len(), |_first, chunk| total += chunk.iter().sum::<u64>()).unwrap();
//! assert_eq!(total, array.par_sum());
//! println!("{}", array.placement_report().unwrap());
//! ```

pub mod array;
pub mod codec;
pub mod error;
pub mod memory;
pub mod runtime;
mod sys;
pub mod topology;

pub use array::{ArrayOptions, ArrayView, Compression, F64Array, SignedArray, SmartArray, Usage};
pub use error::{Error, Result};
pub use memory::{HugePages, Placement, PlacementReport};
pub use runtime::{Runtime, RuntimeOptions, Worker};
pub use topology::{Node, Topology, TopologySource};

/// The README's examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// This crate's own README's example, run as a doctest too.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct CrateReadmeDoctests;
