//! `Dictionary`: strings to dense `u32` codes and back, so string keys use the integer
//! collections (a word count is a [`Bag<u32>`](crate::Bag) of codes). The index is a compact
//! [`Map`] from a 64-bit hash of the string to its code; the rare strings whose hash another
//! string already holds are kept in a side table, so lookups are exact, never probabilistic.

use std::collections::HashMap;

use smartarrays::ArrayOptions;

use crate::error::{Error, Result};
use crate::hash::route;
use crate::map::Map;

/// A 64-bit hash of a string's bytes, eight bytes at a time.
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = bytes.len() as u64;
    let (words, tail) = bytes.as_chunks::<8>();
    for word in words {
        h = (h.rotate_left(23) ^ u64::from_le_bytes(*word)).wrapping_mul(0x2127_599b_f432_5c37);
    }
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    h = (h.rotate_left(23) ^ u64::from_le_bytes(last)).wrapping_mul(0x2127_599b_f432_5c37);
    route(h)
}

/// Interned strings with dense codes `0..len` in insertion order.
///
/// # Example
/// ```
/// use smartarrays_collections::{Bag, Dictionary};
/// let mut words = Dictionary::new().unwrap();
/// let codes: Vec<u32> = "the cat and the hat".split(' ').map(|w| words.intern(w).unwrap()).collect();
/// assert_eq!(codes, [0, 1, 2, 0, 3]);
/// assert_eq!(words.resolve(3), Some("hat"));
/// assert_eq!(words.get("dog"), None);
/// let mut counts = Bag::new().unwrap();
/// counts.add_many(&codes).unwrap();
/// assert_eq!(counts.count(words.get("the").unwrap()), 2);
/// ```
pub struct Dictionary {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    index: Map<u64, u32>,
    collisions: HashMap<Box<str>, u32>,
    hasher: fn(&[u8]) -> u64,
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("len", &self.len())
            .field("bytes", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

impl Dictionary {
    /// An empty dictionary (global runtime, OS-default memory for the index).
    pub fn new() -> Result<Self> {
        Self::with_options(&ArrayOptions::new())
    }

    /// An empty dictionary whose index follows `options` (a replicated index serves readers on
    /// every node locally).
    pub fn with_options(options: &ArrayOptions) -> Result<Self> {
        Ok(Dictionary {
            bytes: Vec::new(),
            ends: Vec::new(),
            index: Map::with_options(options)?,
            collisions: HashMap::new(),
            hasher: hash_bytes,
        })
    }

    #[cfg(test)]
    fn with_hasher(hasher: fn(&[u8]) -> u64) -> Result<Self> {
        let mut dictionary = Self::new()?;
        dictionary.hasher = hasher;
        Ok(dictionary)
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string of a code.
    pub fn resolve(&self, code: u32) -> Option<&str> {
        let code = code as usize;
        let end = *self.ends.get(code)?;
        let start = if code == 0 { 0 } else { self.ends[code - 1] };
        std::str::from_utf8(&self.bytes[start..end]).ok()
    }

    /// The code of `text`, if interned.
    pub fn get(&self, text: &str) -> Option<u32> {
        let code = self.index.get((self.hasher)(text.as_bytes()))?;
        if self.resolve(code) == Some(text) {
            Some(code)
        } else {
            self.collisions.get(text).copied()
        }
    }

    /// The code of `text`, interning it when new.
    pub fn intern(&mut self, text: &str) -> Result<u32> {
        let hash = (self.hasher)(text.as_bytes());
        let holder = self.index.get(hash);
        if let Some(code) = holder {
            if self.resolve(code) == Some(text) {
                return Ok(code);
            }
            if let Some(&code) = self.collisions.get(text) {
                return Ok(code);
            }
        }
        let code = u32::try_from(self.ends.len())
            .ok()
            .filter(|&c| c < u32::MAX)
            .ok_or(Error::DictionaryFull {
                max: u64::from(u32::MAX),
            })?;
        match holder {
            None => {
                self.index.insert(hash, code)?;
            }
            Some(_) => {
                self.collisions.insert(text.into(), code);
            }
        }
        self.bytes.extend_from_slice(text.as_bytes());
        self.ends.push(self.bytes.len());
        Ok(code)
    }

    /// Codes of every string of a batch, interning new ones.
    pub fn intern_many<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<u32>> {
        texts.into_iter().map(|t| self.intern(t)).collect()
    }

    /// Bytes held: the strings, their ends and the index.
    pub fn memory_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.index.memory_bytes()
            + self.collisions.keys().map(|k| k.len() + 16).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_hashes_stay_exact() {
        let mut dictionary = Dictionary::with_hasher(|bytes| (bytes.len() % 2) as u64).unwrap();
        let words = ["", "a", "bb", "c", "dd", "ü", "a", "bb", "ééé"];
        let codes = dictionary.intern_many(words).unwrap();
        assert_eq!(codes, [0, 1, 2, 3, 4, 5, 1, 2, 6]);
        for (word, code) in words.iter().zip(&codes) {
            assert_eq!(dictionary.get(word), Some(*code));
            assert_eq!(dictionary.resolve(*code), Some(*word));
        }
        assert_eq!(dictionary.get("zz"), None);
        assert_eq!(dictionary.get("z"), None);
        assert_eq!(dictionary.resolve(7), None);
    }

    #[test]
    fn long_and_unicode_strings_round_trip() {
        let mut dictionary = Dictionary::new().unwrap();
        let long = "x".repeat(10_000);
        let words = [long.as_str(), "", "日本語", "a\0b", "12345678", "123456789"];
        let codes = dictionary.intern_many(words).unwrap();
        for (word, code) in words.iter().zip(codes) {
            assert_eq!(dictionary.resolve(code), Some(*word));
            assert_eq!(dictionary.get(word), Some(code));
        }
        assert_eq!(dictionary.len(), 6);
    }
}
