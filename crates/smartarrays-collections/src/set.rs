//! `Set<K>`: a [`Map`] with no value bits: each entry is a tag byte, a key remainder and a
//! displacement.

use smartarrays::ArrayOptions;

use crate::error::Result;
use crate::key::Key;
use crate::map::Map;
use crate::report::MemoryReport;

/// A set of integer keys in compact, placed memory.
///
/// # Example
/// ```
/// use smartarrays_collections::Set;
/// let mut set: Set<i64> = Set::new().unwrap();
/// assert!(set.insert(-5).unwrap());
/// assert!(!set.insert(-5).unwrap());
/// assert!(set.contains(-5));
/// let mut out = [false; 2];
/// assert_eq!(set.contains_many(&[-5, 5], &mut out).unwrap(), 1);
/// assert!(set.remove(-5));
/// assert!(set.is_empty());
/// ```
#[derive(Debug)]
pub struct Set<K: Key> {
    map: Map<K, ()>,
}

impl<K: Key> Set<K> {
    /// An empty set (global runtime, OS-default memory).
    pub fn new() -> Result<Self> {
        Ok(Set { map: Map::new()? })
    }

    /// An empty set whose memory follows `options`.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, Placement};
    /// use smartarrays_collections::Set;
    /// let mut set: Set<u64> = Set::with_options(&ArrayOptions::new().placement(Placement::Interleaved(vec![]))).unwrap();
    /// set.insert(u64::MAX).unwrap();
    /// assert!(set.contains(u64::MAX));
    /// ```
    pub fn with_options(options: &ArrayOptions) -> Result<Self> {
        Ok(Set {
            map: Map::with_options(options)?,
        })
    }

    /// The distinct keys of `keys`, built in parallel (global runtime, OS-default memory).
    pub fn from_keys(keys: &[K]) -> Result<Self> {
        Self::from_keys_parallel(keys, &ArrayOptions::new())
    }

    /// The distinct keys of `keys`, built in parallel by the radix-partitioned group-by.
    ///
    /// # Example
    /// ```
    /// use smartarrays::ArrayOptions;
    /// use smartarrays_collections::Set;
    /// let set = Set::from_keys_parallel(&[3u32, 1, 3, 3], &ArrayOptions::new()).unwrap();
    /// assert_eq!(set.len(), 2);
    /// ```
    pub fn from_keys_parallel(keys: &[K], options: &ArrayOptions) -> Result<Self> {
        let units = vec![(); keys.len()];
        Ok(Set {
            map: Map::aggregate_parallel(keys, &units, |(), ()| (), options)?,
        })
    }

    /// Adds `key`; `true` when it was new.
    pub fn insert(&mut self, key: K) -> Result<bool> {
        Ok(self.map.insert(key, ())?.is_none())
    }

    /// Adds every key of a batch (prefetching ahead).
    pub fn insert_many(&mut self, keys: &[K]) -> Result<()> {
        let units = vec![(); keys.len()];
        self.map.insert_many(keys, &units)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: K) -> bool {
        self.map.contains_key(key)
    }

    /// Membership of a batch; returns how many are present.
    pub fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        self.map.contains_many(keys, out)
    }

    /// Removes `key`; `true` when it was present.
    pub fn remove(&mut self, key: K) -> bool {
        self.map.remove(key).is_some()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The keys, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.map.iter().map(|(k, ())| k)
    }

    /// Bytes of memory the set occupies.
    pub fn memory_bytes(&self) -> usize {
        self.map.memory_bytes()
    }

    /// What the set's memory holds.
    pub fn memory_report(&self) -> MemoryReport {
        self.map.memory_report()
    }

    /// The map underneath (values are `()`).
    pub fn as_map(&self) -> &Map<K, ()> {
        &self.map
    }
}
