//! The read side every collection shares: [`Lookup<K, V>`], implemented by [`Map`], [`Set`]
//! (values `()`), [`Bag`] (values its `u64` counts), [`FrozenMap`] and [`FrozenSet`] (values
//! `()`), so code that only reads is written once for all of them (the C and Python bindings'
//! batched lookups and exports, the benchmarks).
//!
//! Every method forwards to the type's own (inherent) method of the same meaning and is marked
//! `#[inline]`: a call through the trait in generic code does what the direct call does, at the
//! same speed. The trait is object safe (`dyn Lookup<K, V>`) except for
//! [`Lookup::for_each_entry`], which takes its visitor as a generic parameter so that visiting
//! every entry costs no indirect call per entry.

use crate::{Bag, FrozenMap, FrozenSet, Key, Map, Result, Set, Value};

/// The read-only operations of a collection from keys `K` to values `V`: sizes, single and
/// batched lookups, memory, and a visit of every entry.
///
/// Implemented by [`Map<K, V>`](Map), [`FrozenMap<K, V>`](FrozenMap), [`Set<K>`](Set) and
/// [`FrozenSet<K>`](FrozenSet) (as `Lookup<K, ()>`) and [`Bag<K>`](Bag) (as `Lookup<K, u64>`:
/// [`Lookup::get`] is `Some(count)` for a key present, `None` for one absent, where
/// [`Bag::count`] says 0). All of them take `&self` and may run on many threads at once (see the
/// crate's concurrency model).
///
/// # Example
/// One function checks a growable map and its frozen copy alike:
/// ```
/// use smartarrays_collections::{FrozenMap, Lookup, Map};
///
/// fn total_of<L: Lookup<u64, u32>>(map: &L, keys: &[u64]) -> u64 {
///     let mut out = vec![None; keys.len()];
///     map.get_many(keys, &mut out).unwrap();
///     out.iter().flatten().map(|&v| u64::from(v)).sum()
/// }
///
/// let mut map: Map<u64, u32> = Map::new().unwrap();
/// map.insert_many(&[1, 2, 3], &[10, 20, 30]).unwrap();
/// let frozen: FrozenMap<u64, u32> = map.freeze().unwrap();
/// assert_eq!(total_of(&map, &[1, 3, 5]), 40);
/// assert_eq!(total_of(&frozen, &[1, 3, 5]), 40);
///
/// // A batch longer than its output is a typed error, not a panic.
/// let mut short = [None; 1];
/// assert!(Lookup::get_many(&frozen, &[1, 2], &mut short).is_err());
/// ```
pub trait Lookup<K: Key, V: Value> {
    /// Number of entries (keys).
    fn len(&self) -> usize;

    /// Whether there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `key`, or `None` when it is absent.
    fn get(&self, key: K) -> Option<V>;

    /// Whether `key` is present.
    fn contains_key(&self, key: K) -> bool;

    /// Looks up every key of `keys` into `out` (`None` where absent), prefetching ahead, and
    /// returns how many were found; [`Error::BufferTooSmall`](crate::Error::BufferTooSmall)
    /// when `out` is shorter than `keys`.
    fn get_many(&self, keys: &[K], out: &mut [Option<V>]) -> Result<usize>;

    /// Whether each key of `keys` is present, into `out`; returns how many are.
    /// [`Error::BufferTooSmall`](crate::Error::BufferTooSmall) when `out` is shorter than
    /// `keys`.
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize>;

    /// Bytes of memory the collection occupies (every partition and replica, whole pages).
    fn memory_bytes(&self) -> usize;

    /// Calls `visit(key, value)` once for every entry, in the order of the type's `iter`.
    ///
    /// # Example
    /// ```
    /// use smartarrays_collections::{Lookup, Set};
    /// let mut set: Set<u32> = Set::new().unwrap();
    /// set.insert_many(&[4, 5, 6]).unwrap();
    /// let mut sum = 0;
    /// set.for_each_entry(|key, ()| sum += key);
    /// assert_eq!(sum, 15);
    /// ```
    fn for_each_entry<F: FnMut(K, V)>(&self, visit: F)
    where
        Self: Sized;
}

impl<K: Key, V: Value> Lookup<K, V> for Map<K, V> {
    #[inline]
    fn len(&self) -> usize {
        Map::len(self)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        Map::is_empty(self)
    }
    #[inline]
    fn get(&self, key: K) -> Option<V> {
        Map::get(self, key)
    }
    #[inline]
    fn contains_key(&self, key: K) -> bool {
        Map::contains_key(self, key)
    }
    #[inline]
    fn get_many(&self, keys: &[K], out: &mut [Option<V>]) -> Result<usize> {
        Map::get_many(self, keys, out)
    }
    #[inline]
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        Map::contains_many(self, keys, out)
    }
    #[inline]
    fn memory_bytes(&self) -> usize {
        Map::memory_bytes(self)
    }
    #[inline]
    fn for_each_entry<F: FnMut(K, V)>(&self, mut visit: F) {
        self.iter().for_each(|(key, value)| visit(key, value));
    }
}

impl<K: Key> Lookup<K, ()> for Set<K> {
    #[inline]
    fn len(&self) -> usize {
        Set::len(self)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        Set::is_empty(self)
    }
    #[inline]
    fn get(&self, key: K) -> Option<()> {
        self.as_map().get(key)
    }
    #[inline]
    fn contains_key(&self, key: K) -> bool {
        self.contains(key)
    }
    #[inline]
    fn get_many(&self, keys: &[K], out: &mut [Option<()>]) -> Result<usize> {
        self.as_map().get_many(keys, out)
    }
    #[inline]
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        Set::contains_many(self, keys, out)
    }
    #[inline]
    fn memory_bytes(&self) -> usize {
        Set::memory_bytes(self)
    }
    #[inline]
    fn for_each_entry<F: FnMut(K, ())>(&self, mut visit: F) {
        self.iter().for_each(|key| visit(key, ()));
    }
}

impl<K: Key> Lookup<K, u64> for Bag<K> {
    #[inline]
    fn len(&self) -> usize {
        Bag::len(self)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        Bag::is_empty(self)
    }
    #[inline]
    fn get(&self, key: K) -> Option<u64> {
        self.as_map().get(key)
    }
    #[inline]
    fn contains_key(&self, key: K) -> bool {
        self.as_map().contains_key(key)
    }
    #[inline]
    fn get_many(&self, keys: &[K], out: &mut [Option<u64>]) -> Result<usize> {
        self.as_map().get_many(keys, out)
    }
    #[inline]
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        self.as_map().contains_many(keys, out)
    }
    #[inline]
    fn memory_bytes(&self) -> usize {
        Bag::memory_bytes(self)
    }
    #[inline]
    fn for_each_entry<F: FnMut(K, u64)>(&self, mut visit: F) {
        self.iter().for_each(|(key, count)| visit(key, count));
    }
}

impl<K: Key, V: Value> Lookup<K, V> for FrozenMap<K, V> {
    #[inline]
    fn len(&self) -> usize {
        FrozenMap::len(self)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        FrozenMap::is_empty(self)
    }
    #[inline]
    fn get(&self, key: K) -> Option<V> {
        FrozenMap::get(self, key)
    }
    #[inline]
    fn contains_key(&self, key: K) -> bool {
        FrozenMap::contains_key(self, key)
    }
    #[inline]
    fn get_many(&self, keys: &[K], out: &mut [Option<V>]) -> Result<usize> {
        FrozenMap::get_many(self, keys, out)
    }
    #[inline]
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        FrozenMap::contains_many(self, keys, out)
    }
    #[inline]
    fn memory_bytes(&self) -> usize {
        FrozenMap::memory_bytes(self)
    }
    #[inline]
    fn for_each_entry<F: FnMut(K, V)>(&self, mut visit: F) {
        self.iter().for_each(|(key, value)| visit(key, value));
    }
}

impl<K: Key> Lookup<K, ()> for FrozenSet<K> {
    #[inline]
    fn len(&self) -> usize {
        FrozenSet::len(self)
    }
    #[inline]
    fn is_empty(&self) -> bool {
        FrozenSet::is_empty(self)
    }
    #[inline]
    fn get(&self, key: K) -> Option<()> {
        self.as_map().get(key)
    }
    #[inline]
    fn contains_key(&self, key: K) -> bool {
        self.contains(key)
    }
    #[inline]
    fn get_many(&self, keys: &[K], out: &mut [Option<()>]) -> Result<usize> {
        self.as_map().get_many(keys, out)
    }
    #[inline]
    fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        FrozenSet::contains_many(self, keys, out)
    }
    #[inline]
    fn memory_bytes(&self) -> usize {
        FrozenSet::memory_bytes(self)
    }
    #[inline]
    fn for_each_entry<F: FnMut(K, ())>(&self, mut visit: F) {
        self.iter().for_each(|key| visit(key, ()));
    }
}
