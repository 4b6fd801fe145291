//! Word ids for the hot loops of word count and naive Bayes (one lookup per word of the input,
//! most of them hits on a few thousand frequent words): std `HashMap`s with a multiply-xor hash,
//! short words held inline as two machine words (no pointer to follow, no `memcmp`).
//!
//! The collections' [`Dictionary`] owns its strings behind a compact index and checks a hit by
//! decoding the stored bytes as UTF-8 again: about 100 ns a word here, and a table of slices
//! borrowed from the mapped file was no better, since its keys lie all over the file (a cache
//! miss per comparison). Each worker gives codes of its own; the workers' words are merged
//! into a [`Dictionary`] (word count) or the model's word ids (naive Bayes) once, at the end.
//!
//! [`Dictionary`]: smartarrays_collections::Dictionary

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// A word of at most [`SHORT`] bytes as two words: its bytes zero-padded, the length on top.
#[inline]
fn short_key(word: &[u8]) -> Option<[u64; 2]> {
    if word.len() > SHORT {
        return None;
    }
    let mut bytes = [0u8; 16];
    bytes[..word.len()].copy_from_slice(word);
    bytes[15] = word.len() as u8;
    let (lo, hi) = bytes.split_at(8);
    Some([
        u64::from_le_bytes(lo.try_into().unwrap_or_default()),
        u64::from_le_bytes(hi.try_into().unwrap_or_default()),
    ])
}

/// Words to ids. Short words (most of any text) are keys of two machine words held in the
/// table itself, so a lookup hashes and compares registers and reads one slot; a longer word
/// is a key of its own bytes on the heap.
#[derive(Default)]
pub(crate) struct WordIndex {
    short: HashMap<[u64; 2], u32, BuildWordHasher>,
    long: HashMap<Box<[u8]>, u32, BuildWordHasher>,
}

impl WordIndex {
    /// The id of `word`.
    #[inline]
    pub(crate) fn get(&self, word: &[u8]) -> Option<u32> {
        match short_key(word) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(word).copied(),
        }
    }

    /// The id of `word`, which is `id` when the word is new.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, word: &[u8], id: u32) -> u32 {
        match short_key(word) {
            Some(key) => *self.short.entry(key).or_insert(id),
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
        self.short.len() + self.long.len()
    }

    /// Bytes of the tables (slots, control bytes, long words).
    pub(crate) fn memory_bytes(&self) -> usize {
        let long: usize = self.long.keys().map(|w| w.len()).sum();
        self.short.capacity() * (std::mem::size_of::<([u64; 2], u32)>() + 1)
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
    }
}
