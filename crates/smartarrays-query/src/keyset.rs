//! Sets of 64-bit keys for `x [NOT] IN (subquery)` (also what a correlated `[NOT] EXISTS`
//! becomes): a bitmap over the keys' range when it is dense enough, else a hash set. Membership
//! of a whole vector of values is one pass over it, without sorting or comparing [`Value`]s.
//!
//! A key set is built from a subquery's 64-bit column (any order, duplicates allowed) or
//! straight from a grouped scan's per-worker bitmaps ([`KeySet::from_bitmap`]), so a subquery
//! `select k .. group by k` never materializes its groups as rows.
//!
//! [`Value`]: crate::Value

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::vector::KeyHasher;

/// A bitmap is used when it takes at most this many bits per key (a hash set's entry takes
/// about 128 bits with its slack), or when its range is at most [`SMALL_RANGE`] bits anyway.
const BITS_PER_KEY: u128 = 128;
/// Ranges of at most this many bits (8 KiB) are always a bitmap.
const SMALL_RANGE: u128 = 1 << 16;

/// A set of 64-bit keys (in a slot's representation: decimals scaled, dates as days).
#[derive(Clone, PartialEq)]
pub(crate) struct KeySet {
    len: usize,
    repr: Repr,
}

#[derive(Clone, PartialEq)]
enum Repr {
    /// Bit `k - base` of the words is set for every key `k` (the range is `bits` long).
    Bitmap {
        base: i64,
        bits: u64,
        words: Vec<u64>,
    },
    Hash(HashSet<i64, BuildHasherDefault<KeyHasher>>),
}

impl std::fmt::Debug for KeySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeySet({})", self.describe())
    }
}

impl KeySet {
    /// The set of `keys` (in any order, duplicates allowed).
    pub(crate) fn from_keys(keys: &[i64]) -> KeySet {
        let Some((&first, rest)) = keys.split_first() else {
            return KeySet {
                len: 0,
                repr: Repr::Bitmap {
                    base: 0,
                    bits: 0,
                    words: Vec::new(),
                },
            };
        };
        let (lo, hi) = rest
            .iter()
            .fold((first, first), |(a, z), &k| (a.min(k), z.max(k)));
        let span = (i128::from(hi) - i128::from(lo) + 1) as u128;
        if span <= SMALL_RANGE.max(BITS_PER_KEY * keys.len() as u128) {
            let bits = span as u64;
            let mut words = vec![0u64; bits.div_ceil(64) as usize];
            for &k in keys {
                let at = (k as u64).wrapping_sub(lo as u64);
                words[(at >> 6) as usize] |= 1 << (at & 63);
            }
            return KeySet::from_bitmap(lo, bits, words);
        }
        let set: HashSet<i64, BuildHasherDefault<KeyHasher>> = keys.iter().copied().collect();
        KeySet {
            len: set.len(),
            repr: Repr::Hash(set),
        }
    }

    /// The set whose keys are `base + i` for every bit `i` set in `words` (bits at `bits` and
    /// beyond must be clear).
    pub(crate) fn from_bitmap(base: i64, bits: u64, words: Vec<u64>) -> KeySet {
        debug_assert!(words.len() as u64 == bits.div_ceil(64));
        let len = words.iter().map(|w| w.count_ones() as usize).sum();
        KeySet {
            len,
            repr: Repr::Bitmap { base, bits, words },
        }
    }

    /// The number of keys.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether `key` is in the set.
    pub(crate) fn contains(&self, key: i64) -> bool {
        match &self.repr {
            Repr::Bitmap { base, bits, words } => {
                let at = (key as u64).wrapping_sub(*base as u64);
                at < *bits && words[(at >> 6) as usize] >> (at & 63) & 1 == 1
            }
            Repr::Hash(set) => set.contains(&key),
        }
    }

    /// Writes over every value 1 where it is in the set (not in it, `negated`), else 0.
    pub(crate) fn test_many(&self, values: &mut [i64], negated: bool) {
        let flip = i64::from(negated);
        match &self.repr {
            Repr::Bitmap { base, bits, words } => {
                for v in values.iter_mut() {
                    let at = (*v as u64).wrapping_sub(*base as u64);
                    let hit = at < *bits && words[(at >> 6) as usize] >> (at & 63) & 1 == 1;
                    *v = i64::from(hit) ^ flip;
                }
            }
            Repr::Hash(set) => {
                for v in values.iter_mut() {
                    *v = i64::from(set.contains(v)) ^ flip;
                }
            }
        }
    }

    /// The keys, in ascending order.
    pub(crate) fn keys(&self) -> Vec<i64> {
        match &self.repr {
            Repr::Bitmap { base, words, .. } => {
                let mut out = Vec::with_capacity(self.len);
                for (i, &w) in words.iter().enumerate() {
                    let mut w = w;
                    while w != 0 {
                        let b = w.trailing_zeros() as u64;
                        out.push(base.wrapping_add((i as u64 * 64 + b) as i64));
                        w &= w - 1;
                    }
                }
                out
            }
            Repr::Hash(set) => {
                let mut out: Vec<i64> = set.iter().copied().collect();
                out.sort_unstable();
                out
            }
        }
    }

    /// How the set is held, for `EXPLAIN`.
    pub(crate) fn describe(&self) -> String {
        match &self.repr {
            Repr::Bitmap { base, bits, .. } => format!(
                "{} keys in a bitmap over {base}..={}",
                self.len(),
                i128::from(*base) + i128::from(*bits) - 1
            ),
            Repr::Hash(_) => format!("{} keys in a hash set", self.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plain(keys: &[i64], v: i64) -> bool {
        keys.contains(&v)
    }

    #[test]
    fn edge_sizes() {
        for n in [0usize, 1, 63, 64, 65, 1023, 1025] {
            // Dense (a bitmap), sparse (a hash set), and around i64's ends.
            for (stride, offset) in [(1i64, 0i64), (3, -5), (1 << 40, 7), (1, i64::MAX - 2000)] {
                let keys: Vec<i64> = (0..n as i64)
                    .map(|i| offset.wrapping_add(i.wrapping_mul(stride)))
                    .collect();
                let set = KeySet::from_keys(&keys);
                assert_eq!(set.len(), n);
                let mut sorted = keys.clone();
                sorted.sort_unstable();
                assert_eq!(set.keys(), sorted);
                let probes: Vec<i64> = keys
                    .iter()
                    .flat_map(|&k| [k, k.wrapping_add(1), k.wrapping_sub(1)])
                    .chain([i64::MIN, i64::MAX, 0, -1])
                    .collect();
                for negated in [false, true] {
                    let mut out = probes.clone();
                    set.test_many(&mut out, negated);
                    for (&p, &o) in probes.iter().zip(&out) {
                        assert_eq!(o == 1, plain(&keys, p) != negated, "n {n} probe {p}");
                        assert_eq!(set.contains(p), plain(&keys, p));
                    }
                }
            }
        }
    }

    #[test]
    fn bitmap_and_hash_representations() {
        let dense = KeySet::from_keys(&[5, 6, 7, 5]);
        assert_eq!(dense.len(), 3);
        assert!(dense.describe().contains("bitmap over 5..=7"));
        let sparse = KeySet::from_keys(&(0..100).map(|i| i << 30).collect::<Vec<_>>());
        assert!(sparse.describe().contains("hash set"));
        let extremes = KeySet::from_keys(&[i64::MIN, i64::MAX]);
        assert!(extremes.contains(i64::MIN) && extremes.contains(i64::MAX));
        assert!(!extremes.contains(0));
    }

    #[test]
    fn from_bitmap_counts_and_lists() {
        let mut words = vec![0u64; 2];
        words[0] = 0b1011;
        words[1] = 1 << 63;
        let set = KeySet::from_bitmap(-10, 128, words);
        assert_eq!(set.len(), 4);
        assert_eq!(set.keys(), vec![-10, -9, -7, 117]);
        assert!(set.contains(117) && !set.contains(118) && !set.contains(-11));
    }

    proptest! {
        #[test]
        fn matches_a_plain_search(
            keys in proptest::collection::vec(prop_oneof![-300i64..300, any::<i64>()], 0..300),
            probes in proptest::collection::vec(prop_oneof![-300i64..300, any::<i64>()], 0..100),
            negated in any::<bool>(),
        ) {
            let set = KeySet::from_keys(&keys);
            let mut distinct = keys.clone();
            distinct.sort_unstable();
            distinct.dedup();
            prop_assert_eq!(set.len(), distinct.len());
            prop_assert_eq!(set.keys(), distinct);
            let mut out = probes.clone();
            set.test_many(&mut out, negated);
            for (&p, &o) in probes.iter().zip(&out) {
                prop_assert_eq!(o == 1, plain(&keys, p) != negated);
            }
        }
    }
}
