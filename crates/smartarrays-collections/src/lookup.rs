//! The read side every collection shares: [`Lookup<K, V>`], implemented by [`Map`], [`Set`]
//! (values `()`), [`Bag`] (values its `u64` counts), [`FrozenMap`] and [`FrozenSet`] (values
//! `()`), so code that only reads is written once for all of them (the C and Python bindings'
//! batched lookups and exports, the benchmarks).
//!
//! Every method forwards to the inherent method of the same meaning, of the type itself ([`Map`],
//! [`FrozenMap`]) or of the map underneath ([`Set`], [`Bag`], [`FrozenSet`], which are thin
//! wrappers), and is marked `#[inline]`: a call through the trait in generic code does what the
//! direct call does, at the same speed. One macro, `forward_lookup!`, writes the five impls.
//!
//! The trait is object safe (`dyn Lookup<K, V>`) except for [`Lookup::for_each_entry`], which
//! takes its visitor as a generic parameter so that visiting every entry costs no indirect call
//! per entry.

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

/// Writes `impl Lookup<K, V>` for each collection listed, every method forwarding to the inherent
/// method of the same name of the map type after `via`, called on the expression after it (the
/// collection itself, named by the ident between the bars, or the map it wraps), with
/// `for_each_entry` walking that map's `iter`. The impls carry no docs of their own, so rustdoc
/// shows the trait's.
///
/// The map is named by a `let` of the caller's ident rather than a bare `self` in the expression,
/// as a `self` written at the call site would not refer to the generated method's receiver
/// (macro hygiene). Forwarding by `<Map<K, V>>::len(map)` rather than `map.len()` keeps every call
/// visibly on the inherent method, never back into the trait.
macro_rules! forward_lookup {
    ($(
        impl[$($generics:tt)*] Lookup<$k:ty, $v:ty> for $ty:ty,
            via $map_ty:ty: |$this:ident| $map:expr;
    )+) => {$(
        impl<$($generics)*> Lookup<$k, $v> for $ty {
            #[inline]
            fn len(&self) -> usize {
                let $this = self;
                <$map_ty>::len($map)
            }
            #[inline]
            fn is_empty(&self) -> bool {
                let $this = self;
                <$map_ty>::is_empty($map)
            }
            #[inline]
            fn get(&self, key: $k) -> Option<$v> {
                let $this = self;
                <$map_ty>::get($map, key)
            }
            #[inline]
            fn contains_key(&self, key: $k) -> bool {
                let $this = self;
                <$map_ty>::contains_key($map, key)
            }
            #[inline]
            fn get_many(&self, keys: &[$k], out: &mut [Option<$v>]) -> Result<usize> {
                let $this = self;
                <$map_ty>::get_many($map, keys, out)
            }
            #[inline]
            fn contains_many(&self, keys: &[$k], out: &mut [bool]) -> Result<usize> {
                let $this = self;
                <$map_ty>::contains_many($map, keys, out)
            }
            #[inline]
            fn memory_bytes(&self) -> usize {
                let $this = self;
                <$map_ty>::memory_bytes($map)
            }
            #[inline]
            fn for_each_entry<F: FnMut($k, $v)>(&self, mut visit: F) {
                let $this = self;
                <$map_ty>::iter($map).for_each(|(key, value)| visit(key, value));
            }
        }
    )+};
}

forward_lookup! {
    impl[K: Key, V: Value] Lookup<K, V> for Map<K, V>, via Map<K, V>: |map| map;
    impl[K: Key, V: Value] Lookup<K, V> for FrozenMap<K, V>, via FrozenMap<K, V>: |map| map;
    impl[K: Key] Lookup<K, ()> for Set<K>, via Map<K, ()>: |set| set.as_map();
    impl[K: Key] Lookup<K, u64> for Bag<K>, via Map<K, u64>: |bag| bag.as_map();
    impl[K: Key] Lookup<K, ()> for FrozenSet<K>, via FrozenMap<K, ()>: |set| set.as_map();
}
