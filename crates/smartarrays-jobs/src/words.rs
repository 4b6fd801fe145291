//! Word ids for the hot loops of word count and naive Bayes (one lookup per word of the input,
//! most of them hits on a few thousand frequent words): std `HashMap`s with a multiply-xor hash,
//! short words held inline as two machine words (no pointer to follow, no `memcmp`).
//!
//! The collections' [`Dictionary`] keeps its strings in smart arrays behind a compact index; a
//! hit (a probe of its 64-bit map, a hash of the bytes, then a compare of the stored bytes) costs
//! about 3.7 times the instructions of a std `HashMap` hit, too much for the per-word loop. A
//! table of slices borrowed from the mapped file was no better, since its keys lie all over the
//! file (a cache miss per comparison). Each worker gives codes of its own; the workers' words are merged
//! into a [`Dictionary`] (word count) or the model's word ids (naive Bayes) once, at the end.
//!
//! [`Dictionary`]: smartarrays_collections::Dictionary

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use smartarrays::memory::prefetch::{prefetch, CacheLevel};

/// Multiply-xor hashing of byte strings, 8 bytes at a time (not for untrusted keys that could
/// be chosen to collide: the jobs hash words of files they were asked to read).
#[derive(Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let (words, tail) = bytes.as_chunks::<8>();
        for word in words {
            h = (h.rotate_left(23) ^ u64::from_le_bytes(*word)).wrapping_mul(K);
        }
        if !tail.is_empty() {
            let mut last = [0u8; 8];
            last[..tail.len()].copy_from_slice(tail);
            h = (h.rotate_left(23) ^ u64::from_le_bytes(last)).wrapping_mul(K);
        }
        self.0 = h;
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(K);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// The hasher of the word tables.
pub(crate) type BuildWordHasher = BuildHasherDefault<WordHasher>;

/// Longest word kept inline in a key of two words (the last byte holds the length).
const SHORT: usize = 15;

/// Words hashed and prefetched ahead of the ones being looked up by the batched calls.
pub(crate) const BATCH: usize = 32;

/// A word of at most [`SHORT`] bytes as two words: its bytes zero-padded, the length plus one
/// in the top byte (so no key is all zeros, which marks an empty slot).
#[inline]
fn short_key(word: &[u8]) -> Option<[u64; 2]> {
    if word.len() > SHORT {
        return None;
    }
    let mut bytes = [0u8; 16];
    bytes[..word.len()].copy_from_slice(word);
    bytes[15] = word.len() as u8 + 1;
    let (lo, hi) = bytes.split_at(8);
    Some([
        u64::from_le_bytes(lo.try_into().unwrap_or_default()),
        u64::from_le_bytes(hi.try_into().unwrap_or_default()),
    ])
}

/// The [`short_key`] of the word `text[begin..begin + len]`, read from `text` with one 16-byte
/// load and a mask when 16 bytes from `begin` lie inside `text` (most words of a chunk), so a
/// hot loop that cuts words from a chunk builds keys without a variable-length copy.
#[inline(always)]
pub(crate) fn short_key_at(text: &[u8], begin: usize, len: usize) -> Option<[u64; 2]> {
    if len > SHORT {
        return None;
    }
    let Some(window) = text.get(begin..begin + 16) else {
        return short_key(&text[begin..begin + len]);
    };
    let bytes = u128::from_le_bytes(window.try_into().unwrap_or_default());
    let key = (bytes & ((1u128 << (8 * len)) - 1)) | ((len as u128 + 1) << 120);
    Some([key as u64, (key >> 64) as u64])
}

/// A word and its [`short_key`] (`None` for a long word).
pub(crate) type Keyed<'a> = (&'a [u8], Option<[u64; 2]>);

/// One slot of the short words' table (`hi == 0`: empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    lo: u64,
    hi: u64,
    id: u32,
}

/// Words to ids. Short words (most of any text) are keys of two machine words held in an
/// open-addressing table of their own (linear probing, at most half full), so a lookup hashes
/// and compares registers and reads one slot; the batched calls prefetch the slots of a batch
/// of words before probing any, so their cache misses overlap (a lookup in a large vocabulary
/// is bound by memory latency, not bandwidth: the study's finding about its jobs). A longer word
/// is a key of its own bytes in a std `HashMap`.
pub(crate) struct WordIndex {
    slots: Vec<Slot>,
    shift: u32,
    short: usize,
    long: HashMap<Box<[u8]>, u32, BuildWordHasher>,
}

impl Default for WordIndex {
    fn default() -> Self {
        WordIndex {
            slots: vec![Slot::default(); 64],
            shift: 64 - 6,
            short: 0,
            long: HashMap::default(),
        }
    }
}

impl WordIndex {
    #[inline(always)]
    fn home(&self, key: [u64; 2]) -> usize {
        let h = (key[0].wrapping_mul(K) ^ key[1]).wrapping_mul(0xD1B5_4A32_D192_ED03);
        (h >> self.shift) as usize
    }

    #[inline(always)]
    fn prefetch(&self, key: [u64; 2]) {
        prefetch(&self.slots, self.home(key), CacheLevel::L1);
    }

    /// Where `key` is, or the empty slot where it would go.
    #[inline(always)]
    fn find(&self, key: [u64; 2]) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.hi == 0 || (slot.lo == key[0] && slot.hi == key[1]) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let doubled = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.shift -= 1;
        for slot in old.into_iter().filter(|s| s.hi != 0) {
            let i = self.find([slot.lo, slot.hi]);
            self.slots[i] = slot;
        }
    }

    /// The id of `word`.
    #[inline]
    pub(crate) fn get(&self, word: &[u8]) -> Option<u32> {
        match short_key(word) {
            Some(key) => {
                let slot = &self.slots[self.find(key)];
                (slot.hi != 0).then_some(slot.id)
            }
            None => self.long.get(word).copied(),
        }
    }

    /// The ids of a batch of words (`None` for words not in the index), into `ids`.
    pub(crate) fn get_many(&self, words: &[&[u8]], ids: &mut Vec<Option<u32>>) {
        ids.clear();
        for batch in words.chunks(BATCH) {
            for word in batch {
                if let Some(key) = short_key(word) {
                    self.prefetch(key);
                }
            }
            ids.extend(batch.iter().map(|w| self.get(w)));
        }
    }

    /// The id of `word`, which is `id` when the word is new.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, word: &[u8], id: u32) -> u32 {
        self.get_or_insert_keyed(word, short_key(word), id)
    }

    /// [`WordIndex::get_or_insert`] with the word's [`short_key`] already made.
    #[inline(always)]
    fn get_or_insert_keyed(&mut self, word: &[u8], key: Option<[u64; 2]>, id: u32) -> u32 {
        match key {
            Some(key) => {
                let i = self.find(key);
                if self.slots[i].hi != 0 {
                    return self.slots[i].id;
                }
                self.slots[i] = Slot {
                    lo: key[0],
                    hi: key[1],
                    id,
                };
                self.short += 1;
                if 2 * self.short > self.slots.len() {
                    self.grow();
                }
                id
            }
            None => match self.long.get(word) {
                Some(&found) => found,
                None => {
                    self.long.insert(word.into(), id);
                    id
                }
            },
        }
    }

    /// Number of words.
    pub(crate) fn len(&self) -> usize {
        self.short + self.long.len()
    }

    /// Bytes of the tables (slots, long words).
    pub(crate) fn memory_bytes(&self) -> usize {
        let long: usize = self.long.keys().map(|w| w.len()).sum();
        self.slots.len() * std::mem::size_of::<Slot>()
            + self.long.capacity() * (std::mem::size_of::<(Box<[u8]>, u32)>() + 1)
            + long
    }
}

/// Words to dense codes `0..len` in first-seen order, the words borrowed from the input.
#[derive(Default)]
pub(crate) struct LocalWords<'a> {
    index: WordIndex,
    words: Vec<&'a [u8]>,
}

impl<'a> LocalWords<'a> {
    /// The code of `word`, given the next one when new.
    #[inline]
    pub(crate) fn intern(&mut self, word: &'a [u8]) -> u32 {
        let next = self.words.len() as u32;
        let code = self.index.get_or_insert(word, next);
        if code == next {
            self.words.push(word);
        }
        code
    }

    /// The codes of a batch of words with their keys (see [`LocalWords::intern`]), into
    /// `codes`; the slots of each [`BATCH`] of words are prefetched before any is looked up.
    pub(crate) fn intern_keyed(&mut self, words: &[Keyed<'a>], codes: &mut Vec<u32>) {
        codes.clear();
        for batch in words.chunks(BATCH) {
            for (_, key) in batch {
                if let Some(key) = key {
                    self.index.prefetch(*key);
                }
            }
            for &(word, key) in batch {
                let next = self.words.len() as u32;
                let code = self.index.get_or_insert_keyed(word, key, next);
                if code == next {
                    self.words.push(word);
                }
                codes.push(code);
            }
        }
    }

    /// The codes of a batch of words (see [`LocalWords::intern`]), into `codes`; the slots of
    /// the batch are prefetched first.
    pub(crate) fn intern_many(&mut self, words: &[&'a [u8]], codes: &mut Vec<u32>) {
        codes.clear();
        for batch in words.chunks(BATCH) {
            for word in batch {
                if let Some(key) = short_key(word) {
                    self.index.prefetch(key);
                }
            }
            for &word in batch {
                codes.push(self.intern(word));
            }
        }
    }

    /// The words, by code.
    pub(crate) fn words(&self) -> &[&'a [u8]] {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_in_first_seen_order() {
        let mut words = LocalWords::default();
        let list = [
            "b",
            "a",
            "b",
            "",
            "a",
            "12345678",
            "a\0",
            "fifteen bytes..",
            "sixteen bytes...",
            "a longer word of 29 bytes....",
            "fifteen bytes..",
            "sixteen bytes...",
            "a\0",
        ];
        let codes: Vec<u32> = list.iter().map(|w| words.intern(w.as_bytes())).collect();
        assert_eq!(codes, [0, 1, 0, 2, 1, 3, 4, 5, 6, 7, 5, 6, 4]);
        assert_eq!(words.words()[6], b"sixteen bytes...");
        assert_eq!(words.index.get(b"a longer word of 29 bytes...."), Some(7));
        assert_eq!(words.index.get(b"sixteen bytes.."), None);
        assert_eq!(words.index.len(), 8);
        let mut ids = Vec::new();
        words
            .index
            .get_many(&[b"a", b"zz", b"a longer word of 29 bytes...."], &mut ids);
        assert_eq!(ids, [Some(1), None, Some(7)]);
    }

    #[test]
    fn keys_read_in_place_equal_copied_keys() {
        let text = b"a bb ccccccc dddddddd eeeeeeeee fifteen bytes.. sixteen bytes... x";
        for begin in 0..text.len() {
            for len in 0..=(text.len() - begin).min(20) {
                assert_eq!(
                    short_key_at(text, begin, len),
                    short_key(&text[begin..begin + len]),
                    "{begin} {len}"
                );
            }
        }
        let mut keyed = LocalWords::default();
        let mut plain = LocalWords::default();
        let words: Vec<&[u8]> = text.split(|&b| b == b' ').collect();
        let with_keys: Vec<Keyed> = words.iter().map(|w| (*w, short_key(w))).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        keyed.intern_keyed(&with_keys, &mut a);
        plain.intern_many(&words, &mut b);
        assert_eq!(a, b);
        assert_eq!(keyed.words(), plain.words());
    }

    #[test]
    fn the_table_grows_and_keeps_every_word() {
        let mut words = LocalWords::default();
        let list: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        let refs: Vec<&[u8]> = list.iter().map(|w| w.as_bytes()).collect();
        let mut codes = Vec::new();
        words.intern_many(&refs, &mut codes);
        assert_eq!(codes, (0..5000).collect::<Vec<u32>>());
        words.intern_many(&refs[..10], &mut codes);
        assert_eq!(codes, (0..10).collect::<Vec<u32>>());
        assert_eq!(words.index.get(b"w4999"), Some(4999));
    }
}
