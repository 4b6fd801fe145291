//! `Bag<K>`: counts per key (a multiset). Counts are stored at the width the largest count
//! needs and widen before they would overflow it; past `u64::MAX` an addition is an error,
//! never a wrap.

use smartarrays::ArrayOptions;

use crate::error::{Error, Result};
use crate::group;
use crate::key::Key;
use crate::map::{storage_of, Map, WINDOW};
use crate::report::MemoryReport;

/// Counts of integer keys in compact, placed memory.
///
/// # Example
/// ```
/// use smartarrays_collections::Bag;
/// let mut bag: Bag<u32> = Bag::new().unwrap();
/// bag.add(7, 1).unwrap();
/// bag.add(7, 1).unwrap();
/// bag.add_many(&[7, 8]).unwrap();
/// assert_eq!((bag.count(7), bag.count(8), bag.count(9)), (3, 1, 0));
/// assert_eq!(bag.len(), 2);
/// ```
#[derive(Debug)]
pub struct Bag<K: Key> {
    map: Map<K, u64>,
}

impl<K: Key> Bag<K> {
    /// An empty bag (global runtime, OS-default memory).
    pub fn new() -> Result<Self> {
        Ok(Bag { map: Map::new()? })
    }

    /// An empty bag whose memory follows `options`.
    pub fn with_options(options: &ArrayOptions) -> Result<Self> {
        Ok(Bag {
            map: Map::with_options(options)?,
        })
    }

    /// Counts `keys` in parallel. Dense keys (the codes' range no longer than the input, as
    /// for dictionary codes or small ids) are counted in direct arrays: each worker counts its
    /// share of the range with one indexed increment per key, then builds the exactly sized
    /// tables of its partitions. Other keys are hashed: each worker pre-aggregates into a small
    /// table of its own, overflow goes to per-worker radix partitions, and each partition is
    /// merged into its final, exactly sized table by a worker of its node.
    ///
    /// # Example
    /// ```
    /// use smartarrays::ArrayOptions;
    /// use smartarrays_collections::Bag;
    /// let words = [5u64, 1, 5, 5, 2];
    /// let bag = Bag::count_parallel(&words, &ArrayOptions::new()).unwrap();
    /// assert_eq!(bag.count(5), 3);
    /// let mut counts: Vec<(u64, u64)> = bag.iter().collect();
    /// counts.sort();
    /// assert_eq!(counts, [(1, 1), (2, 1), (5, 3)]);
    /// ```
    pub fn count_parallel(keys: &[K], options: &ArrayOptions) -> Result<Self> {
        let storage = storage_of(options)?;
        if let Some((part_bits, parts)) = group::count_dense(&storage, keys)? {
            return Ok(Bag {
                map: Map::from_parts(storage, part_bits, parts),
            });
        }
        let (part_bits, parts) = group::group_by(
            &storage,
            keys.len(),
            |i| keys[i].to_code(),
            |_| 1,
            |key, a, b| {
                a.checked_add(b).ok_or(Error::CountOverflow {
                    key,
                    count: a,
                    add: b,
                })
            },
        )?;
        Ok(Bag {
            map: Map::from_parts(storage, part_bits, parts),
        })
    }

    /// Adds `n` to the count of `key`; returns the new count. A count past `u64::MAX` is an
    /// [`Error::CountOverflow`] and leaves the bag unchanged.
    pub fn add(&mut self, key: K, n: u64) -> Result<u64> {
        let mut overflow = None;
        let count = self.map.upsert(key, n, |old, n| match old.checked_add(n) {
            Some(sum) => sum,
            None => {
                overflow = Some(old);
                old
            }
        })?;
        match overflow {
            Some(count) => Err(Error::CountOverflow {
                key: key.to_code(),
                count,
                add: n,
            }),
            None => Ok(count),
        }
    }

    /// Adds one to the count of every key of a batch (prefetching ahead).
    pub fn add_many(&mut self, keys: &[K]) -> Result<()> {
        for chunk in keys.chunks(WINDOW) {
            self.map.prefetch_for_write(chunk);
            for &key in chunk {
                self.add(key, 1)?;
            }
        }
        Ok(())
    }

    /// The count of `key` (0 when absent).
    pub fn count(&self, key: K) -> u64 {
        self.map.get(key).unwrap_or(0)
    }

    /// Counts of a batch (0 for absent keys); returns how many keys are present.
    pub fn count_many(&self, keys: &[K], out: &mut [u64]) -> Result<usize> {
        let mut found = vec![None; keys.len().min(out.len())];
        let hits = self.map.get_many(keys, &mut found)?;
        for (slot, value) in out.iter_mut().zip(found) {
            *slot = value.unwrap_or(0);
        }
        Ok(hits)
    }

    /// Removes `key`; returns its count.
    pub fn remove(&mut self, key: K) -> Option<u64> {
        self.map.remove(key)
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the bag is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every (key, count), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (K, u64)> + '_ {
        self.map.iter()
    }

    /// Bytes of memory the bag occupies.
    pub fn memory_bytes(&self) -> usize {
        self.map.memory_bytes()
    }

    /// What the bag's memory holds (`value_bits` is the count width).
    pub fn memory_report(&self) -> MemoryReport {
        self.map.memory_report()
    }

    /// The map underneath.
    pub fn as_map(&self) -> &Map<K, u64> {
        &self.map
    }
}
