//! # smartarrays-collections
//!
//! Smart collections (the paper's §7): [`Map`], [`Set`] and [`Bag`] for integer keys (and for
//! strings through a [`Dictionary`] of codes), stored in the core's placed memory so every
//! placement applies, replicas included.
//!
//! ## The table
//! A compact hash table whose probe reads one cache line. Each bucket is 64 bytes: a tag lane
//! (one byte per slot: an occupied bit and 7 bits of the key's remainder), the slots' payloads
//! bit-packed behind it, and an overflow count in the last byte. A key code is hashed by a
//! bijection on `w` bits; the home bucket and the remainder come from `hash * buckets`, so the
//! bucket count need not be a power of two and the table keeps only the remainder
//! (quotienting): the key comes back from the bucket index and the remainder. Payload widths
//! (remainder, value) follow the data: a key beyond the hash domain or a value wider than the
//! value field rebuilds the table wider, so a [`Bag`]'s counts never wrap and an upsert never
//! truncates. Entries stay within 15 buckets of home (linear probing by bucket); a lookup goes
//! past its home bucket only when that bucket's overflow count says some entry did. Tables of at
//! most 16 slots per bucket keep one filter word per bucket beside the buckets (a bit per key
//! homed there), read first, so most absent keys never read a bucket.
//!
//! ## Growth and the memory it takes
//! A table grows when an insert would take it past its load limit (0.75 of its slots with 8 or
//! more slots per bucket, 0.6 with fewer; clusters that find no slot within reach start near
//! 0.78). Below 4096 buckets (256 KiB) it doubles its bucket count: every entry's new place
//! follows from its old one, with no key recovered. From 4096 buckets on it grows by a quarter
//! (5/4), rehashing each entry from its recovered hash (no division per entry: each home's
//! quotient by the bucket count steps along with the buckets, and the rest divides by a
//! multiplication with a reciprocal; the new homes come out in order, so the new table is
//! written front to back). The load after a
//! growth is therefore at least 0.6 (0.75 / 1.25) where doubling would leave 0.375, so bytes
//! per entry stay within 1.25x of the full table's at every size, at the price of moving each
//! entry about four times over the table's life instead of once. A growth holds the old and
//! the new table at once: 2.25x the old table's memory at its peak (3x when doubling). A gentle
//! step also gives back spare value bits that earlier widening added (values keep what the
//! largest one present needs plus one bit). Tables built from a known count
//! ([`Map::with_capacity`], `insert_many` into an empty map, the group-by builders
//! behind [`Map::aggregate_parallel`], [`Bag::count_parallel`] and [`Set::from_keys`]) are
//! sized for that count at a load of about 0.72 and grow only past it.
//!
//! A probe compares its tag with a bucket's tag lane 16 slots at a time (SSE2 on x86-64, a
//! word-parallel compare elsewhere) and reads the home bucket and the remainder from one
//! product of the top-aligned hash.
//!
//! ## Strings
//! A [`Dictionary`] keeps its strings in smart arrays: their bytes one after another in an
//! 8-bit array and each string's end in a bit-packed array as wide as the bytes held need,
//! both placed like the index (replicas included). Text comes in as `&str`, valid UTF-8 once,
//! so a hit compares bytes and never decodes them again.
//!
//! ## Batches and the parallel group-by
//! `get_many`, `contains_many`, `insert_many` and `upsert_many` hash a window of keys and
//! prefetch their buckets before probing. [`Bag::count_parallel`] and
//! [`Map::aggregate_parallel`] build in parallel: thread-local pre-aggregation, then a merge of
//! radix partitions, each by one worker of the node that owns it. A bag of dense keys (codes
//! spanning no more than the input's length) is counted in direct arrays instead, one share of
//! the range per worker, with no hashing until the final tables are built.
//!
//! ## One read interface
//! [`Lookup<K, V>`](Lookup) is the read side all five collections share (`len`, `get`,
//! `contains_key`, `get_many`, `contains_many`, `memory_bytes`, a visit of every entry):
//! [`Map`] and [`FrozenMap`] as themselves, [`Set`] and [`FrozenSet`] with `()` values, [`Bag`]
//! with its counts. Code that only reads takes `&impl Lookup<K, V>` and serves every one of
//! them at the speed of the direct calls.
//!
//! ## Concurrency model
//! - **Reads** (`get`, `contains`, `get_many`, `iter`, reports) take `&self`: the collections are
//!   `Sync`, and any number of threads read at once without locks or atomics (plain loads of
//!   immutable memory). A replicated collection's readers each read their node's replica.
//! - **Writes** (`insert`, `upsert`, `remove`, the `_many` forms) take `&mut self`, so the
//!   compiler rules out a write racing a read. A write to a replicated collection goes to every
//!   replica before it returns.
//! - **Concurrent inserts** go through the partitioned builders (`count_parallel`,
//!   `aggregate_parallel`, `Set::from_keys_parallel`): each worker writes only its own buffers,
//!   and each partition's table is written by exactly one worker.
//! - **Resizes** (growth, widening) build a new table and replace the old one inside a `&mut`
//!   call: no reader can exist meanwhile, so none sees a half-moved table; every entry is moved
//!   (a rebuild that cannot place an entry starts over with more buckets), and if memory runs out
//!   the old table is kept unchanged and the error returned. To publish a new version while
//!   readers continue, share the map behind an `Arc` and swap it (`docs/concurrency.md`).
//!
//! # Example
//! ```
//! use smartarrays::ArrayOptions;
//! use smartarrays_collections::{Bag, Map};
//!
//! let tokens: Vec<u32> = (0..100_000u32).map(|i| i % 1000 * (i % 7)).collect();
//! let counts = Bag::count_parallel(&tokens, &ArrayOptions::new()).unwrap();
//! assert_eq!(counts.count(0), tokens.iter().filter(|&&t| t == 0).count() as u64);
//! let report = counts.memory_report();
//! // 16 small partitions round up to whole pages; the buckets themselves are small:
//! assert!(report.bucket_bytes < 8 * report.entries, "{report}");
//!
//! let mut prices: Map<u64, u32> = Map::new().unwrap();
//! prices.insert_many(&[10, 20, 30], &[100, 200, 300]).unwrap();
//! let mut out = [None; 2];
//! prices.get_many(&[20, 40], &mut out).unwrap();
//! assert_eq!(out, [Some(200), None]);
//! ```

mod bag;
mod bucket;
mod error;
mod frozen;
mod group;
mod hash;
mod key;
mod lookup;
mod map;
mod report;
mod set;
mod strings;
mod table;

pub use bag::Bag;
pub use error::{Error, Result};
pub use frozen::{FrozenMap, FrozenReport, FrozenSet};
pub use key::{Key, Value};
pub use lookup::Lookup;
pub use map::Map;
pub use report::MemoryReport;
pub use set::Set;
pub use strings::Dictionary;

/// The README's examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
