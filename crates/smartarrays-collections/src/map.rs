//! `Map<K, V>`: the compact hash map, split into radix partitions (one table each, routed by
//! the top bits of a hash of the key), with single-key and batched prefetching operations.

use std::marker::PhantomData;
use std::sync::Arc;

use smartarrays::memory::ResolvedPlacement;
use smartarrays::{ArrayOptions, Placement, PlacementReport, Runtime};

use crate::error::{Error, Result};
use crate::group;
use crate::hash::route;
use crate::key::{Key, Value};
use crate::report::MemoryReport;
use crate::table::{Hashed, Storage, Table};

/// Keys hashed and prefetched ahead of the one being probed in batched operations.
pub(crate) const WINDOW: usize = 16;

/// The storage settings of `options`: placement (`auto` becomes `os`: the advisor does not model
/// hash tables), huge pages and runtime. The width settings do not apply: widths follow the data.
pub(crate) fn storage_of(options: &ArrayOptions) -> Result<Arc<Storage>> {
    let runtime = match &options.runtime {
        Some(runtime) => Arc::clone(runtime),
        None => Runtime::global()?,
    };
    let placement = ResolvedPlacement::new(match &options.placement {
        Placement::Auto => Placement::OsDefault,
        other => other.clone(),
    })?;
    Ok(Arc::new(Storage {
        placement,
        huge_pages: options.huge_pages,
        runtime,
    }))
}

/// A hash map from integer keys to integer values in compact, placed memory.
///
/// Each probe reads one 64-byte bucket that holds a tag lane and the bit-packed remainders and
/// values of its slots (see the crate docs for the layout). Widths follow the data: a value
/// wider than the table's value width, or a key beyond its key domain, rebuilds the table
/// wider, so nothing is ever truncated. Reads take `&self` and are lock-free; writes take
/// `&mut self` (see the crate's concurrency model).
///
/// # Example
/// ```
/// use smartarrays_collections::Map;
/// let mut map: Map<u64, u32> = Map::new().unwrap();
/// assert_eq!(map.insert(7, 70).unwrap(), None);
/// assert_eq!(map.insert(7, 71).unwrap(), Some(70));
/// map.upsert(8, 1, |old, new| old + new).unwrap();
/// map.upsert(8, 1, |old, new| old + new).unwrap();
/// assert_eq!(map.get(8), Some(2));
/// assert_eq!(map.get(9), None);
/// let mut out = [None; 3];
/// assert_eq!(map.get_many(&[7, 8, 9], &mut out).unwrap(), 2);
/// assert_eq!(out, [Some(71), Some(2), None]);
/// assert_eq!(map.remove(7), Some(71));
/// assert_eq!(map.len(), 1);
/// ```
pub struct Map<K: Key, V: Value> {
    parts: Vec<Table>,
    part_bits: u32,
    storage: Arc<Storage>,
    types: PhantomData<fn() -> (K, V)>,
}

impl<K: Key, V: Value> std::fmt::Debug for Map<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Map")
            .field("len", &self.len())
            .field("partitions", &self.parts.len())
            .finish_non_exhaustive()
    }
}

impl<K: Key, V: Value> Map<K, V> {
    /// An empty map in OS-default memory, built and read by the global runtime.
    pub fn new() -> Result<Self> {
        Self::with_options(&ArrayOptions::new())
    }

    /// An empty map whose memory follows `options` (placement, huge pages, runtime).
    ///
    /// # Example
    /// ```
    /// use smartarrays::{ArrayOptions, Placement};
    /// use smartarrays_collections::Map;
    /// let options = ArrayOptions::new().placement(Placement::Replicated);
    /// let mut map: Map<u32, u32> = Map::with_options(&options).unwrap();
    /// map.insert(1, 2).unwrap();
    /// assert_eq!(map.get(1), Some(2));
    /// ```
    pub fn with_options(options: &ArrayOptions) -> Result<Self> {
        let storage = storage_of(options)?;
        Ok(Map {
            parts: vec![Table::empty(Arc::clone(&storage))],
            part_bits: 0,
            storage,
            types: PhantomData,
        })
    }

    /// An empty map with room for `entries` keys below `largest_key` and values up to
    /// `largest_value` before it grows or widens.
    ///
    /// # Example
    /// ```
    /// use smartarrays::ArrayOptions;
    /// use smartarrays_collections::Map;
    /// let map: Map<u64, u64> = Map::with_capacity(1000, 1 << 20, 100, &ArrayOptions::new()).unwrap();
    /// assert!(map.memory_report().slots >= 1000);
    /// ```
    pub fn with_capacity(
        entries: usize,
        largest_key: K,
        largest_value: V,
        options: &ArrayOptions,
    ) -> Result<Self> {
        let storage = storage_of(options)?;
        let table = Table::with_geometry(
            Arc::clone(&storage),
            entries as u64,
            crate::hash::bits_needed(largest_key.to_code()),
            crate::hash::bits_needed(largest_value.to_code()),
        )?;
        Ok(Map {
            parts: vec![table],
            part_bits: 0,
            storage,
            types: PhantomData,
        })
    }

    pub(crate) fn from_parts(storage: Arc<Storage>, part_bits: u32, parts: Vec<Table>) -> Self {
        Map {
            parts,
            part_bits,
            storage,
            types: PhantomData,
        }
    }

    /// Builds a map from `keys` and `values` in parallel (a group-by): equal keys are
    /// combined with `combine(earlier, later)` in input order within each worker's share;
    /// `combine` should be associative and commutative (a sum, a min, a max) for a result that
    /// does not depend on the split. Each worker pre-aggregates into its own small table,
    /// overflow goes to per-worker radix partitions, and each partition is merged into its
    /// final table by a worker of the node that owns it.
    ///
    /// # Example
    /// ```
    /// use smartarrays::ArrayOptions;
    /// use smartarrays_collections::Map;
    /// let keys = [3u64, 1, 3, 2, 1, 3];
    /// let values = [1u32, 10, 1, 5, 10, 1];
    /// let sums = Map::aggregate_parallel(&keys, &values, |a, b| a + b, &ArrayOptions::new()).unwrap();
    /// assert_eq!((sums.get(3), sums.get(1), sums.get(2)), (Some(3), Some(20), Some(5)));
    /// ```
    pub fn aggregate_parallel(
        keys: &[K],
        values: &[V],
        combine: impl Fn(V, V) -> V + Sync,
        options: &ArrayOptions,
    ) -> Result<Self> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        let storage = storage_of(options)?;
        let (part_bits, parts) = group::group_by(
            &storage,
            keys.len(),
            |i| keys[i].to_code(),
            |i| values[i].to_code(),
            |_, a, b| Ok(combine(V::from_code(a), V::from_code(b)).to_code()),
        )?;
        Ok(Map::from_parts(storage, part_bits, parts))
    }

    #[inline(always)]
    fn part_of(&self, code: u64) -> usize {
        if self.part_bits == 0 {
            0
        } else {
            (route(code) >> (64 - self.part_bits)) as usize
        }
    }

    /// The table of `code`: a map of one table (every map not built in parallel) takes it
    /// with one length check, no routing and no index check.
    #[inline(always)]
    fn table(&self, code: u64) -> &Table {
        match self.parts.as_slice() {
            [table] => table,
            parts => &parts[self.part_of(code)],
        }
    }

    #[inline(always)]
    fn table_mut(&mut self, code: u64) -> &mut Table {
        let part = self.part_of(code);
        match self.parts.as_mut_slice() {
            [table] => table,
            parts => &mut parts[part],
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Table::len).sum()
    }

    /// Whether the map has no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of radix partitions (1 unless built in parallel).
    pub fn partitions(&self) -> usize {
        self.parts.len()
    }

    /// The value of `key`, read from the replica of the calling thread's node.
    #[inline]
    pub fn get(&self, key: K) -> Option<V> {
        let code = key.to_code();
        self.table(code).get_local(code).map(V::from_code)
    }

    /// Whether `key` is present.
    #[inline]
    pub fn contains_key(&self, key: K) -> bool {
        let code = key.to_code();
        self.table(code).get_local(code).is_some()
    }

    /// Sets `key` to `value`; returns the previous value. The table widens or grows when it
    /// must; an error (out of memory) leaves the map as it was.
    pub fn insert(&mut self, key: K, value: V) -> Result<Option<V>> {
        let code = key.to_code();
        let value = value.to_code();
        Ok(self
            .table_mut(code)
            .upsert(code, value, |_| Ok(value))?
            .map(V::from_code))
    }

    /// Sets `key` to `combine(old, value)` when present, else to `value`; returns the new
    /// value. A result wider than the table's values widens the table.
    pub fn upsert(&mut self, key: K, value: V, combine: impl FnOnce(V, V) -> V) -> Result<V> {
        let code = key.to_code();
        let mut result = value;
        self.table_mut(code).upsert(code, value.to_code(), |old| {
            result = combine(V::from_code(old), value);
            Ok(result.to_code())
        })?;
        Ok(result)
    }

    /// Removes `key`; returns its value. The slot is freed at once (no tombstone): the
    /// overflow counts of the buckets it had passed are decremented.
    pub fn remove(&mut self, key: K) -> Option<V> {
        let code = key.to_code();
        self.table_mut(code).remove(code).map(V::from_code)
    }

    /// Looks up a batch: `out[i]` is the value of `keys[i]`; returns the number of hits. The
    /// home buckets of the next keys are prefetched while earlier ones are probed.
    pub fn get_many(&self, keys: &[K], out: &mut [Option<V>]) -> Result<usize> {
        let mut hits = 0;
        self.probe_many(keys, out.len(), |i, value| {
            out[i] = value.map(V::from_code);
            hits += usize::from(value.is_some());
        })?;
        Ok(hits)
    }

    /// Membership of a batch: `out[i]` tells whether `keys[i]` is present; returns the count.
    pub fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        let mut hits = 0;
        self.probe_many(keys, out.len(), |i, value| {
            out[i] = value.is_some();
            hits += usize::from(value.is_some());
        })?;
        Ok(hits)
    }

    fn probe_many(
        &self,
        keys: &[K],
        capacity: usize,
        mut found: impl FnMut(usize, Option<u64>),
    ) -> Result<()> {
        if capacity < keys.len() {
            return Err(Error::BufferTooSmall {
                needed: keys.len(),
                given: capacity,
            });
        }
        let replica = self.parts[0].local_replica();
        if let [table] = self.parts.as_slice() {
            // One table (every map not built in parallel): its slices taken once, and a
            // window of hashes alone (a key outside the domain hashes to a home past the
            // table), so a miss is a filter word or a tag compare and no more.
            let slices = table.lookup_slices(replica);
            let mut window = [table.lookup_hash(slices, 0); WINDOW];
            for (chunk_index, chunk) in keys.chunks(WINDOW).enumerate() {
                for (slot, key) in window.iter_mut().zip(chunk) {
                    *slot = table.lookup_hash(slices, key.to_code());
                }
                for (offset, &h) in window[..chunk.len()].iter().enumerate() {
                    found(
                        chunk_index * WINDOW + offset,
                        table.value_in_slices(slices, h),
                    );
                }
            }
            return Ok(());
        }
        let mut hashed = [(0usize, 0u64, None::<Hashed>); WINDOW];
        for (chunk_index, chunk) in keys.chunks(WINDOW).enumerate() {
            for (slot, key) in hashed.iter_mut().zip(chunk) {
                let code = key.to_code();
                let part = self.part_of(code);
                let table = &self.parts[part];
                let h = table.fits_key(code).then(|| table.hash(code));
                if let Some(h) = &h {
                    table.prefetch(replica, h);
                }
                *slot = (part, code, h);
            }
            for (offset, &(part, _, h)) in hashed.iter().take(chunk.len()).enumerate() {
                let table = &self.parts[part];
                let value = h.and_then(|h| table.value_in(replica, &h));
                found(chunk_index * WINDOW + offset, value);
            }
        }
        Ok(())
    }

    /// Inserts a batch (later duplicates win), prefetching ahead like [`Map::get_many`].
    pub fn insert_many(&mut self, keys: &[K], values: &[V]) -> Result<()> {
        self.upsert_many(keys, values, |_, new| new)
    }

    /// Upserts a batch: each `keys[i]` becomes `combine(old, values[i])` when present, else
    /// `values[i]`, in order.
    pub fn upsert_many(
        &mut self,
        keys: &[K],
        values: &[V],
        mut combine: impl FnMut(V, V) -> V,
    ) -> Result<()> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        if self.parts.len() == 1 {
            // An upper bound (duplicates make it generous): one exact resize, not a chain of
            // doublings.
            let entries = (self.len() + keys.len()) as u64;
            let largest_key = keys.iter().fold(0, |a, k| a | k.to_code());
            let largest_value = values.iter().fold(0, |a, v| a | v.to_code());
            self.parts[0].reserve(entries, largest_key, largest_value)?;
        }
        for (chunk, chunk_values) in keys.chunks(WINDOW).zip(values.chunks(WINDOW)) {
            self.prefetch_for_write(chunk);
            for (key, &value) in chunk.iter().zip(chunk_values) {
                let code = key.to_code();
                self.table_mut(code).upsert(code, value.to_code(), |old| {
                    Ok(combine(V::from_code(old), value).to_code())
                })?;
            }
        }
        Ok(())
    }

    /// Prefetches the home buckets of `keys` (of the replica writes read).
    pub(crate) fn prefetch_for_write(&self, keys: &[K]) {
        for key in keys {
            let code = key.to_code();
            let table = self.table(code);
            if table.fits_key(code) {
                table.prefetch(0, &table.hash(code));
            }
        }
    }

    /// Every (key, value), in no particular order, read from the calling thread's replica.
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.parts.iter().flat_map(|table| {
            table
                .entries(table.local_replica())
                .map(|(k, v)| (K::from_code(k), V::from_code(v)))
        })
    }

    /// Bytes of memory the map occupies (all partitions and replicas, whole pages).
    pub fn memory_bytes(&self) -> usize {
        self.parts.iter().map(Table::memory_bytes).sum()
    }

    /// What the map's memory holds: entries, buckets, widths, bytes per entry.
    pub fn memory_report(&self) -> MemoryReport {
        MemoryReport::of(&self.parts)
    }

    /// The runtime the map was built with.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.storage.runtime
    }

    /// The placement of the map's memory.
    pub fn placement(&self) -> &Placement {
        self.storage.placement.placement()
    }

    /// Nodes of the replicas (one `Some(node)` per replica for a replicated map).
    pub fn replica_nodes(&self) -> Vec<Option<usize>> {
        self.parts
            .iter()
            .find(|t| t.replicas() > 0)
            .map(|t| t.replica_nodes().to_vec())
            .unwrap_or_default()
    }

    /// Where the map's pages are, as the kernel reports them: one [`PlacementReport`] per
    /// partition, each with one entry per replica (`move_pages` and `get_mempolicy`, as
    /// [`SmartArray::placement_report`](smartarrays::SmartArray::placement_report) reads them).
    /// A partition that holds no memory yet has no replicas.
    ///
    /// # Example
    /// ```
    /// use smartarrays_collections::Map;
    /// let mut map: Map<u64, u64> = Map::new().unwrap();
    /// map.insert(7, 70).unwrap();
    /// let reports = map.placement_report().unwrap();
    /// assert_eq!(reports.len(), map.partitions());
    /// assert_eq!(reports[0].replicas.len(), 1);
    /// assert!(reports[0].replicas[0].pages > 0);
    /// ```
    pub fn placement_report(&self) -> Result<Vec<PlacementReport>> {
        self.parts.iter().map(Table::placement_report).collect()
    }

    /// The replica the calling thread reads (its node's copy of a replicated map, else 0).
    pub fn local_replica_index(&self) -> usize {
        self.parts
            .iter()
            .find(|t| t.replicas() > 0)
            .map_or(0, Table::local_replica)
    }

    /// The memory of replica `replica`, one slice of words per partition (empty for a partition
    /// with no memory yet): for checking where its pages are and which pages a reader touched.
    pub fn replica_words(&self, replica: usize) -> Vec<&[u64]> {
        self.parts
            .iter()
            .map(|t| t.replica_words(replica))
            .collect()
    }

    /// The value of `key` read from replica `replica` (for checking that replicas agree).
    pub fn get_from_replica(&self, replica: usize, key: K) -> Option<V> {
        let code = key.to_code();
        self.table(code).get_in(replica, code).map(V::from_code)
    }
}
