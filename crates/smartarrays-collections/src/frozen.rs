//! Read-only maps and sets built once from their entries: [`FrozenMap`] and [`FrozenSet`], a
//! static succinct layout for read-mostly data (a join's build side, a model, a dictionary) that
//! takes about half the bytes of the growable [`Map`](crate::Map).
//!
//! ## Layout
//! Keys are hashed by the crate's invertible mixer on the key domain's `w` bits (as the growable
//! table does) and kept in hash order. The top `k` bits of a hash name its bucket (`2^k`
//! buckets, 2 to 4 entries each on average), so an entry stores only the other `w - k` bits
//! (its remainder: quotienting) next to its value, both bit-packed at the widths the data needs.
//! Where each bucket starts is a two-level index: per block of 64 buckets, the count of
//! entries before the block and 64 offsets within it, each as wide as the fullest block needs,
//! so the index costs about 2-3 bits per entry. Everything lives in one 64-bit smart array,
//! so every placement applies, replicas included.
//!
//! A lookup hashes the key, reads its bucket's two offsets (one cache line), then compares the
//! bucket's few remainders, which lie together (usually one more line) and stop at the first
//! remainder not below the one sought. `get_many` and `contains_many` pipeline their keys:
//! each key's offsets line and then its records are prefetched several lookups before they
//! are read.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use smartarrays::memory::prefetch::{prefetch, CacheLevel};
use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};

use crate::hash::{bits_needed, low_mask, Mixer};
use crate::{Error, Key, Map, Result, Value};

/// Buckets per block of the index.
const BLOCK: u64 = 64;
/// Records a short bucket's branch-free scan reads.
const SHORT: u64 = 8;
/// Words a short bucket's scan reads: [`SHORT`] records of at most 128 bits from bit 63 of a
/// word at the latest end by bit 1087 (`63 + 8 * 128`), and each read takes the word after
/// its field's first (a field starts by bit 1023, so its pair is words 15 and 16 at most).
const SCAN_WORDS: usize = 18;
/// Twice the distance, in keys, between the stages of the batched lookups.
const WINDOW: usize = 32;

/// The field under `mask` (its width in low ones) at bit `position` of `words`. The words carry
/// one word of padding after the last field, so the pair read never runs off the end; the
/// pair is taken as one slice, so a read checks one bound.
#[inline(always)]
fn field_at(words: &[u64], position: u64, mask: u64) -> u64 {
    let word = (position / 64) as usize;
    let pair = &words[word..word + 2];
    let both = u128::from(pair[0]) | (u128::from(pair[1]) << 64);
    ((both >> (position % 64)) as u64) & mask
}

/// `width` bits of `words` from bit `position` (0 for a width of 0): [`field_at`] for a
/// caller without the mask at hand.
#[inline(always)]
fn bits_at(words: &[u64], position: u64, width: u32) -> u64 {
    field_at(words, position, low_mask(width))
}

/// Writes `value` (which fits `width` bits) at bit `position` of `words` (zeroed there).
fn put_bits(words: &mut [u64], position: u64, width: u32, value: u64) {
    if width == 0 {
        return;
    }
    debug_assert!(value <= low_mask(width));
    let word = (position / 64) as usize;
    let shift = position % 64;
    let wide = u128::from(value) << shift;
    words[word] |= wide as u64;
    if shift + u64::from(width) > 64 {
        words[word + 1] |= (wide >> 64) as u64;
    }
}

/// `x >> s` that gives 0 for a shift of 64.
#[inline(always)]
fn shr(x: u64, s: u32) -> u64 {
    x.checked_shr(s).unwrap_or(0)
}

/// The shape of a frozen table: widths and where its parts start.
#[derive(Clone, Copy, Debug)]
struct Shape {
    mixer: Mixer,
    key_bits: u32,
    bucket_bits: u32,
    remainder_bits: u32,
    value_bits: u32,
    base_bits: u32,
    offset_bits: u32,
    /// Bits of one index block (its base and 64 offsets).
    block_bits: u64,
    /// Bit where the records start.
    records: u64,
    /// Bits of one record (remainder, then value).
    record_bits: u64,
    /// Entries of the fullest bucket.
    longest: u64,
    /// Low ones over a key code, a remainder, a value, an index base and an index offset.
    key_mask: u64,
    remainder_mask: u64,
    value_mask: u64,
    base_mask: u64,
    offset_mask: u64,
}

impl Shape {
    /// Where bucket `bucket`'s entries start (the entries before it).
    #[inline(always)]
    fn start(&self, words: &[u64], bucket: u64) -> u64 {
        let at = bucket / BLOCK * self.block_bits;
        field_at(words, at, self.base_mask)
            + field_at(
                words,
                at + u64::from(self.base_bits) + (bucket % BLOCK) * u64::from(self.offset_bits),
                self.offset_mask,
            )
    }

    /// Where bucket `bucket`'s entries start and end. Both offsets come from one read of
    /// two words when they lie in one block and fit a word together (offsets are about 8
    /// bits); the last bucket of a block ends where the next block starts.
    #[inline(always)]
    fn range(&self, words: &[u64], bucket: u64) -> (u64, u64) {
        let slot = bucket % BLOCK;
        if slot == BLOCK - 1 || self.offset_bits > 32 {
            return (self.start(words, bucket), self.start(words, bucket + 1));
        }
        let at = bucket / BLOCK * self.block_bits;
        let base = field_at(words, at, self.base_mask);
        let offsets = field_at(
            words,
            at + u64::from(self.base_bits) + slot * u64::from(self.offset_bits),
            u64::MAX,
        );
        (
            base + (offsets & self.offset_mask),
            base + ((offsets >> self.offset_bits) & self.offset_mask),
        )
    }

    /// Word holding bucket `bucket`'s offset (for prefetching).
    #[inline(always)]
    fn offset_word(&self, bucket: u64) -> usize {
        let block = bucket / BLOCK;
        ((block * self.block_bits
            + u64::from(self.base_bits)
            + (bucket % BLOCK) * u64::from(self.offset_bits))
            / 64) as usize
    }

    /// Bucket and remainder of a key code, or `None` when the code is outside the key domain
    /// (so the key is absent).
    #[inline(always)]
    fn home(&self, code: u64) -> Option<(u64, u64)> {
        if code > self.key_mask {
            return None;
        }
        let hash = self.mixer.mix(code);
        Some((shr(hash, self.remainder_bits), hash & self.remainder_mask))
    }

    /// The value code of the entry with `remainder` among the first `count` (at most
    /// `RECORDS`, at most [`SHORT`]) records from bit `position`, compared without a branch on
    /// their contents.
    #[inline(always)]
    fn scan_window<const RECORDS: u64>(
        &self,
        words: &[u64],
        position: u64,
        count: u64,
        remainder: u64,
    ) -> Option<u64> {
        // The records lie in `SCAN_WORDS` words (bits `position % 64` up to 1087), taken as
        // one array: one bound checked, and every read below indexes it within its length.
        let first = (position / 64) as usize;
        let window: &[u64; SCAN_WORDS] = words[first..first + SCAN_WORDS]
            .try_into()
            .expect("a window of SCAN_WORDS words");
        let read = |bit: u64, mask: u64| {
            let word = ((bit / 64) as usize).min(SCAN_WORDS - 2);
            let both = u128::from(window[word]) | (u128::from(window[word + 1]) << 64);
            ((both >> (bit % 64)) as u64) & mask
        };
        let mut bit = position % 64;
        let mut at = u64::MAX;
        for j in 0..RECORDS {
            let found = read(bit, self.remainder_mask);
            // At most one record matches; the range check keeps the next bucket's out.
            at = if found == remainder && j < count {
                bit
            } else {
                at
            };
            bit += self.record_bits;
        }
        (at != u64::MAX).then(|| read(at + u64::from(self.remainder_bits), self.value_mask))
    }

    /// The value code of the entry with `remainder` among records `start..end`. Buckets of at
    /// most [`SHORT`] records (almost all: 2-4 on average) are compared without a branch on
    /// their contents, reading [`SHORT`] records whatever the length (the words carry padding
    /// for that), so a lookup mispredicts no branch in its scan; longer ones stop at the first
    /// remainder not below the one sought.
    #[inline(always)]
    fn scan(&self, words: &[u64], start: u64, end: u64, remainder: u64) -> Option<u64> {
        let mut position = self.records + start * self.record_bits;
        let count = end - start;
        if count <= SHORT {
            // Most buckets hold at most 4 entries (2-4 on average): those compare 4 records,
            // the rest 8 (a branch mispredicted for 4-18 % of lookups, against 4 records'
            // reads for every one).
            return if count <= SHORT / 2 {
                self.scan_window::<{ SHORT / 2 }>(words, position, count, remainder)
            } else {
                self.scan_window::<SHORT>(words, position, count, remainder)
            };
        }
        for _ in start..end {
            let found = field_at(words, position, self.remainder_mask);
            if found >= remainder {
                if found == remainder {
                    return Some(bits_at(
                        words,
                        position + u64::from(self.remainder_bits),
                        self.value_bits,
                    ));
                }
                return None;
            }
            position += self.record_bits;
        }
        None
    }
}

/// A read-only map from integer keys to values, built once from its entries and about half
/// the size of the growable [`Map`] (see the module's layout notes): for data that is built
/// and then only read, such as a join's build side, a model or a dictionary.
///
/// Keys and values are stored as their codes ([`Key`], [`Value`]) at the widths the data needs.
/// Reads take `&self` and are lock-free plain loads; a replicated map's readers read their
/// node's replica.
///
/// # Example
/// ```
/// use smartarrays_collections::FrozenMap;
///
/// let keys: Vec<u32> = (0..1000).map(|i| i * 7919).collect();
/// let values: Vec<u32> = (0..1000).map(|i| i % 100).collect();
/// let map = FrozenMap::from_pairs(&keys, &values).unwrap();
/// assert_eq!(map.get(7919 * 3), Some(3));
/// assert_eq!(map.get(5), None);
/// let mut out = [None; 2];
/// assert_eq!(map.get_many(&[0, 1], &mut out).unwrap(), 1);
/// assert_eq!(out, [Some(0), None]);
/// // Remainders, 7-bit values and the index: a few bytes per entry.
/// assert!(map.memory_report().bits_per_entry < 40.0);
/// ```
pub struct FrozenMap<K: Key, V: Value> {
    storage: SmartArray,
    len: usize,
    shape: Shape,
    _types: PhantomData<fn() -> (K, V)>,
}

impl<K: Key, V: Value> FrozenMap<K, V> {
    /// Builds the map from `keys[i] -> values[i]` with default placement. A key given twice is
    /// an [`Error::DuplicateKey`]; keys and values of different lengths an
    /// [`Error::LengthMismatch`].
    pub fn from_pairs(keys: &[K], values: &[V]) -> Result<Self> {
        Self::from_pairs_with(keys, values, &ArrayOptions::new())
    }

    /// [`FrozenMap::from_pairs`] with the placement, huge pages and runtime of `options` (its
    /// width is not used: the widths come from the data; `auto` placement becomes `os`).
    pub fn from_pairs_with(keys: &[K], values: &[V], options: &ArrayOptions) -> Result<Self> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        let codes: Vec<u64> = keys.iter().map(|k| k.to_code()).collect();
        let value_codes: Vec<u64> = values.iter().map(|v| v.to_code()).collect();
        Self::from_codes(&codes, &value_codes, options)
    }

    /// The same entries as `map`, frozen, placed like it.
    pub fn from_map(map: &Map<K, V>) -> Result<Self> {
        let (codes, value_codes): (Vec<u64>, Vec<u64>) =
            map.iter().map(|(k, v)| (k.to_code(), v.to_code())).unzip();
        let options = ArrayOptions::new()
            .placement(map.placement().clone())
            .runtime(Arc::clone(map.runtime()));
        Self::from_codes(&codes, &value_codes, &options)
    }

    fn from_codes(codes: &[u64], value_codes: &[u64], options: &ArrayOptions) -> Result<Self> {
        let n = codes.len();
        let key_bits = bits_needed(codes.iter().copied().max().unwrap_or(0)).max(1);
        let value_bits = bits_needed(value_codes.iter().copied().max().unwrap_or(0));
        // 2 to 4 entries a bucket: one more remainder bit per entry would halve an index that
        // costs about as much at this load, and shorter buckets scan faster.
        let bucket_bits = if n < 4 {
            0
        } else {
            (usize::BITS - 1 - (n / 2).leading_zeros()).min(key_bits)
        };
        let remainder_bits = key_bits - bucket_bits;
        let mixer = Mixer::new(key_bits);
        let buckets = 1u64 << bucket_bits;
        let too_large = || Error::CapacityOverflow { entries: n as u64 };
        let bucket_count = usize::try_from(buckets).map_err(|_| too_large())?;

        // Counting sort by bucket, then each bucket's few entries by hash.
        let mut starts = vec![0u64; bucket_count + 1];
        let hashes: Vec<u64> = codes.iter().map(|&c| mixer.mix(c)).collect();
        for &h in &hashes {
            starts[shr(h, remainder_bits) as usize + 1] += 1;
        }
        for b in 0..bucket_count {
            starts[b + 1] += starts[b];
        }
        let mut next: Vec<u64> = starts[..bucket_count].to_vec();
        let mut sorted = vec![(0u64, 0u64); n];
        for (&h, &v) in hashes.iter().zip(value_codes) {
            let slot = &mut next[shr(h, remainder_bits) as usize];
            sorted[*slot as usize] = (h, v);
            *slot += 1;
        }
        drop((hashes, next));
        for b in 0..bucket_count {
            let bucket = &mut sorted[starts[b] as usize..starts[b + 1] as usize];
            bucket.sort_unstable_by_key(|&(h, _)| h);
            if let Some(pair) = bucket.windows(2).find(|pair| pair[0].0 == pair[1].0) {
                return Err(Error::DuplicateKey {
                    key: mixer.unmix(pair[0].0),
                });
            }
        }

        // Index: per block of 64 buckets, the entries before it and each bucket's offset.
        let blocks = (buckets + 1).div_ceil(BLOCK);
        let base_bits = bits_needed(n as u64);
        let offset_bits = bits_needed(
            (0..blocks)
                .map(|block| {
                    let first = block * BLOCK;
                    let last = (first + BLOCK - 1).min(buckets);
                    starts[last as usize] - starts[first as usize]
                })
                .max()
                .unwrap_or(0),
        );
        let block_bits = u64::from(base_bits) + BLOCK * u64::from(offset_bits);
        let records = blocks * block_bits;
        let record_bits = u64::from(remainder_bits) + u64::from(value_bits);
        let total = (n as u64)
            .checked_mul(record_bits)
            .and_then(|r| r.checked_add(records))
            .ok_or_else(too_large)?;
        // Padding: a short bucket's scan reads `SCAN_WORDS` words from its first record's word
        // (an empty last bucket's is the word after the records).
        let padding = SCAN_WORDS as u64;
        let word_count = usize::try_from(total.div_ceil(64) + padding).map_err(|_| too_large())?;
        let mut words = vec![0u64; word_count];
        let shape = Shape {
            mixer,
            key_bits,
            bucket_bits,
            remainder_bits,
            value_bits,
            base_bits,
            offset_bits,
            block_bits,
            records,
            record_bits,
            longest: starts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
            key_mask: low_mask(key_bits),
            remainder_mask: low_mask(remainder_bits),
            value_mask: low_mask(value_bits),
            base_mask: low_mask(base_bits),
            offset_mask: low_mask(offset_bits),
        };
        for block in 0..blocks {
            let first = block * BLOCK;
            let at = block * block_bits;
            let base = starts[first as usize];
            put_bits(&mut words, at, base_bits, base);
            for slot in 0..BLOCK.min(buckets + 1 - first) {
                put_bits(
                    &mut words,
                    at + u64::from(base_bits) + slot * u64::from(offset_bits),
                    offset_bits,
                    starts[(first + slot) as usize] - base,
                );
            }
        }
        let mut position = records;
        for &(h, v) in &sorted {
            put_bits(
                &mut words,
                position,
                remainder_bits,
                h & low_mask(remainder_bits),
            );
            put_bits(
                &mut words,
                position + u64::from(remainder_bits),
                value_bits,
                v,
            );
            position += record_bits;
        }
        drop(sorted);
        // `auto` becomes `os`, as for the growable map: the advisor does not model this layout.
        let mut options = options.clone().bits(64);
        if matches!(options.placement, Placement::Auto) {
            options.placement = Placement::OsDefault;
        }
        let storage = SmartArray::from_slice(&words, &options)?;
        Ok(FrozenMap {
            storage,
            len: n,
            shape,
            _types: PhantomData,
        })
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn words(&self) -> &[u64] {
        self.storage.local_words()
    }

    #[inline(always)]
    fn find(&self, words: &[u64], code: u64) -> Option<u64> {
        let (bucket, remainder) = self.shape.home(code)?;
        let (start, end) = self.shape.range(words, bucket);
        self.shape.scan(words, start, end, remainder)
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: K) -> Option<V> {
        self.find(self.words(), key.to_code()).map(V::from_code)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: K) -> bool {
        self.find(self.words(), key.to_code()).is_some()
    }

    /// Looks up every key of `keys` into `out` (`None` where absent) and returns how many were
    /// found; [`Error::BufferTooSmall`] when `out` is shorter than `keys`.
    pub fn get_many(&self, keys: &[K], out: &mut [Option<V>]) -> Result<usize> {
        let mut found = 0;
        self.probe_many(keys, out.len(), |i, value| {
            out[i] = value.map(V::from_code);
            found += usize::from(value.is_some());
        })?;
        Ok(found)
    }

    /// Whether each key of `keys` is present, into `out`; returns how many are.
    /// [`Error::BufferTooSmall`] when `out` is shorter than `keys`.
    pub fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        let mut found = 0;
        self.probe_many(keys, out.len(), |i, value| {
            out[i] = value.is_some();
            found += usize::from(value.is_some());
        })?;
        Ok(found)
    }

    /// Looks up `keys` a window at a time: hash every key of the window and prefetch its
    /// offsets, then read the offsets and prefetch the first record, then scan.
    /// [`Error::BufferTooSmall`] when `capacity`, the output's length, is below the keys'.
    fn probe_many(
        &self,
        keys: &[K],
        capacity: usize,
        mut visit: impl FnMut(usize, Option<u64>),
    ) -> Result<()> {
        if capacity < keys.len() {
            return Err(Error::BufferTooSmall {
                needed: keys.len(),
                given: capacity,
            });
        }
        let words = self.words();
        let shape = &self.shape;
        let mut homes = [None; WINDOW];
        let mut ranges = [(0u64, 0u64); WINDOW];
        for (w, window) in keys.chunks(WINDOW).enumerate() {
            for (home, key) in homes.iter_mut().zip(window) {
                *home = shape.home(key.to_code());
                if let Some((bucket, _)) = *home {
                    prefetch(words, shape.offset_word(bucket), CacheLevel::L1);
                }
            }
            for (range, home) in ranges.iter_mut().zip(&homes[..window.len()]) {
                if let Some((bucket, _)) = *home {
                    *range = shape.range(words, bucket);
                    let word = (shape.records + range.0 * shape.record_bits) / 64;
                    prefetch(words, word as usize, CacheLevel::L1);
                }
            }
            for (j, (home, &(start, end))) in homes[..window.len()].iter().zip(&ranges).enumerate()
            {
                let value =
                    home.and_then(|(_, remainder)| shape.scan(words, start, end, remainder));
                visit(w * WINDOW + j, value);
            }
        }
        Ok(())
    }

    /// Every entry, in hash order (not key order).
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        let words = self.words();
        let shape = self.shape;
        let buckets = if self.len == 0 {
            0
        } else {
            1u64 << shape.bucket_bits
        };
        (0..buckets).flat_map(move |bucket| {
            let start = shape.start(words, bucket);
            let end = shape.start(words, bucket + 1);
            (start..end).map(move |j| {
                let position = shape.records + j * shape.record_bits;
                let remainder = bits_at(words, position, shape.remainder_bits);
                let value = bits_at(
                    words,
                    position + u64::from(shape.remainder_bits),
                    shape.value_bits,
                );
                let hash = bucket.checked_shl(shape.remainder_bits).unwrap_or(0) | remainder;
                (K::from_code(shape.mixer.unmix(hash)), V::from_code(value))
            })
        })
    }

    /// Bytes of memory the map occupies (every replica, whole pages).
    pub fn memory_bytes(&self) -> usize {
        self.storage.memory_bytes()
    }

    /// Where the map's bytes go.
    pub fn memory_report(&self) -> FrozenReport {
        let packed = self.storage.packed_bytes();
        let per = |bits: u64| {
            if self.len == 0 {
                0.0
            } else {
                bits as f64 / self.len as f64
            }
        };
        let bytes = self.memory_bytes();
        FrozenReport {
            entries: self.len,
            bytes,
            packed_bytes: packed,
            bytes_per_entry: per(8 * bytes as u64) / 8.0,
            bits_per_entry: per(8 * packed as u64),
            index_bits_per_entry: per(self.shape.records),
            buckets: 1u64 << self.shape.bucket_bits,
            longest_bucket: self.shape.longest,
            key_bits: self.shape.key_bits,
            remainder_bits: self.shape.remainder_bits,
            value_bits: self.shape.value_bits,
            replicas: self.storage.replica_count(),
        }
    }

    /// The placement of the map's memory.
    pub fn placement(&self) -> &Placement {
        self.storage.placement()
    }

    /// The runtime the map was built with.
    pub fn runtime(&self) -> &Arc<Runtime> {
        self.storage.runtime()
    }

    /// Replicas of the map's memory (1 unless replicated).
    pub fn replica_count(&self) -> usize {
        self.storage.replica_count()
    }

    /// The value of `key` read from replica `replica` (for tests and placement checks).
    pub fn get_from_replica(&self, replica: usize, key: K) -> Option<V> {
        let words = self.storage.replica(replica).packed_words();
        self.find(words, key.to_code()).map(V::from_code)
    }
}

impl<K: Key, V: Value> Map<K, V> {
    /// A read-only copy of the map in the frozen layout ([`FrozenMap`]), about half the bytes,
    /// placed like this map.
    ///
    /// # Example
    /// ```
    /// use smartarrays_collections::Map;
    /// let mut map: Map<u64, u16> = Map::new().unwrap();
    /// map.insert_many(&[1, 2, 3], &[10, 20, 30]).unwrap();
    /// let frozen = map.freeze().unwrap();
    /// assert_eq!(frozen.get(2), Some(20));
    /// assert_eq!(frozen.len(), 3);
    /// ```
    pub fn freeze(&self) -> Result<FrozenMap<K, V>> {
        FrozenMap::from_map(self)
    }
}

impl<K: Key, V: Value> fmt::Debug for FrozenMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrozenMap")
            .field("len", &self.len)
            .field("report", &self.memory_report())
            .finish()
    }
}

/// A read-only set of integer keys: a [`FrozenMap`] without values.
///
/// # Example
/// ```
/// use smartarrays_collections::FrozenSet;
/// let set = FrozenSet::from_keys(&[3u64, 1, 4, 15, 9, 2, 6]).unwrap();
/// assert!(set.contains(15));
/// assert!(!set.contains(5));
/// assert_eq!(set.len(), 7);
/// ```
pub struct FrozenSet<K: Key> {
    map: FrozenMap<K, ()>,
}

impl<K: Key> FrozenSet<K> {
    /// Builds the set from `keys`; a key given twice is an [`Error::DuplicateKey`].
    pub fn from_keys(keys: &[K]) -> Result<Self> {
        Self::from_keys_with(keys, &ArrayOptions::new())
    }

    /// [`FrozenSet::from_keys`] with the placement and runtime of `options`.
    pub fn from_keys_with(keys: &[K], options: &ArrayOptions) -> Result<Self> {
        let codes: Vec<u64> = keys.iter().map(|k| k.to_code()).collect();
        Ok(FrozenSet {
            map: FrozenMap::from_codes(&codes, &vec![0; codes.len()], options)?,
        })
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: K) -> bool {
        self.map.contains_key(key)
    }

    /// Whether each key of `keys` is present, into `out`; returns how many are.
    pub fn contains_many(&self, keys: &[K], out: &mut [bool]) -> Result<usize> {
        self.map.contains_many(keys, out)
    }

    /// Every key, in hash order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.map.iter().map(|(k, ())| k)
    }

    /// Bytes of memory the set occupies (every replica, whole pages).
    pub fn memory_bytes(&self) -> usize {
        self.map.memory_bytes()
    }

    /// The map underneath (values are `()`).
    pub(crate) fn as_map(&self) -> &FrozenMap<K, ()> {
        &self.map
    }

    /// Where the set's bytes go.
    pub fn memory_report(&self) -> FrozenReport {
        self.map.memory_report()
    }
}

/// Where a frozen collection's bytes go.
#[derive(Clone, Debug, PartialEq)]
pub struct FrozenReport {
    /// Entries held.
    pub entries: usize,
    /// Bytes mapped, every replica (whole pages).
    pub bytes: usize,
    /// Bytes of the packed index and records of one replica (no page rounding).
    pub packed_bytes: usize,
    /// `bytes / entries` (0 when empty).
    pub bytes_per_entry: f64,
    /// Packed bits per entry, index included, one replica.
    pub bits_per_entry: f64,
    /// Bits per entry of the bucket index.
    pub index_bits_per_entry: f64,
    /// Buckets (a power of two).
    pub buckets: u64,
    /// Entries of the fullest bucket (a lookup in a bucket of more than 8 compares one entry
    /// at a time).
    pub longest_bucket: u64,
    /// Bits of the key domain.
    pub key_bits: u32,
    /// Bits of a stored remainder.
    pub remainder_bits: u32,
    /// Bits of a stored value.
    pub value_bits: u32,
    /// Replicas.
    pub replicas: usize,
}

impl fmt::Display for FrozenReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entries in {} bytes ({:.2} B/entry; packed {:.1} bits/entry: {}-bit remainders, \
             {}-bit values, index {:.2} bits; {} buckets, longest {}, {}-bit keys, {} replica(s))",
            self.entries,
            self.bytes,
            self.bytes_per_entry,
            self.bits_per_entry,
            self.remainder_bits,
            self.value_bits,
            self.index_bits_per_entry,
            self.buckets,
            self.longest_bucket,
            self.key_bits,
            self.replicas
        )
    }
}
