//! `Dictionary`: strings to dense `u32` codes and back, so string keys use the integer
//! collections (a word count is a [`Bag<u32>`](crate::Bag) of codes). The strings are kept in
//! smart arrays: their bytes one after another in an 8-bit array, and the end of each string in a
//! bit-packed array whose width follows the bytes held (both placed like the index, replicas
//! included). The index is a compact [`Map`] from a 64-bit hash of the string to its code; the
//! rare strings whose hash another string already holds are kept in a side table, so lookups
//! are exact, never probabilistic. Text is valid UTF-8 when it comes in (`&str`), so a hit
//! compares bytes and never decodes them again.

use std::collections::HashMap;

use smartarrays::{ArrayOptions, Placement, SmartArray};

use crate::error::{Error, Result};
use crate::hash::{bits_needed, route};
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

/// Bytes (and string ends) the arrays hold before their first growth.
const FIRST_CAPACITY: usize = 64;

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
/// // Bytes and string ends live in smart arrays; the ends are bit-packed.
/// assert!(words.ends_bits() <= 8);
/// ```
pub struct Dictionary {
    /// The strings' bytes one after another (8-bit smart array; its length is the capacity).
    bytes: SmartArray,
    /// Bytes in use.
    used: usize,
    /// `ends[c]`: the end of string `c` in `bytes` (its start is the end of `c - 1`), bit-packed
    /// at the width of the byte capacity; its length is the capacity in strings.
    ends: SmartArray,
    /// Strings held.
    len: usize,
    index: Map<u64, u32>,
    collisions: HashMap<Box<str>, u32>,
    /// Placement, huge pages and runtime of the two arrays (their widths are set per array).
    options: ArrayOptions,
    hasher: fn(&[u8]) -> u64,
}

impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("len", &self.len())
            .field("bytes", &self.used)
            .finish_non_exhaustive()
    }
}

impl Dictionary {
    /// An empty dictionary (global runtime, OS-default memory).
    pub fn new() -> Result<Self> {
        Self::with_options(&ArrayOptions::new())
    }

    /// An empty dictionary whose strings and index follow `options` (placement, huge pages,
    /// runtime; a replicated dictionary serves readers on every node locally). Width settings
    /// do not apply: the bytes are 8 bits and the ends as wide as the bytes held need.
    pub fn with_options(options: &ArrayOptions) -> Result<Self> {
        let mut options = options.clone();
        if matches!(options.placement, Placement::Auto) {
            options.placement = Placement::OsDefault;
        }
        Ok(Dictionary {
            bytes: SmartArray::zeroed(0, 8, &options)?,
            used: 0,
            ends: SmartArray::zeroed(0, 1, &options)?,
            len: 0,
            index: Map::with_options(&options)?,
            collisions: HashMap::new(),
            options,
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
        self.len
    }

    /// Whether no string was interned.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bits per stored string end (the width of the ends array, which follows the bytes held).
    pub fn ends_bits(&self) -> u32 {
        self.ends.bits()
    }

    /// The stored bytes of a code.
    #[inline]
    fn stored(&self, code: u32) -> Option<&[u8]> {
        let code = code as usize;
        if code >= self.len {
            return None;
        }
        let ends = self.ends.local();
        let end = ends.get(code).ok()? as usize;
        let start = match code {
            0 => 0,
            _ => ends.get(code - 1).ok()? as usize,
        };
        self.bytes.local().as_native::<u8>()?.get(start..end)
    }

    /// The string of a code.
    pub fn resolve(&self, code: u32) -> Option<&str> {
        // Every stored string came in as a `&str` and is cut out at its own boundaries, so
        // this check never fails; it only spares an `unsafe` block.
        std::str::from_utf8(self.stored(code)?).ok()
    }

    /// The code of `text`, if interned.
    pub fn get(&self, text: &str) -> Option<u32> {
        let code = self.index.get((self.hasher)(text.as_bytes()))?;
        if self.stored(code) == Some(text.as_bytes()) {
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
            if self.stored(code) == Some(text.as_bytes()) {
                return Ok(code);
            }
            if let Some(&code) = self.collisions.get(text) {
                return Ok(code);
            }
        }
        let code = u32::try_from(self.len)
            .ok()
            .filter(|&c| c < u32::MAX)
            .ok_or(Error::DictionaryFull {
                max: u64::from(u32::MAX),
            })?;
        let end = self.used + text.len();
        self.reserve(end, self.len + 1)?;
        match holder {
            None => {
                self.index.insert(hash, code)?;
            }
            Some(_) => {
                self.collisions.insert(text.into(), code);
            }
        }
        for (i, &byte) in text.as_bytes().iter().enumerate() {
            self.bytes.set(self.used + i, u64::from(byte))?;
        }
        self.ends.set(self.len, end as u64)?;
        self.used = end;
        self.len += 1;
        Ok(code)
    }

    /// Grows the arrays (doubling) to hold `bytes` bytes and `strings` strings, widening the
    /// ends to the new byte capacity. An error leaves the dictionary as it was.
    fn reserve(&mut self, bytes: usize, strings: usize) -> Result<()> {
        let mut byte_capacity = self.bytes.len();
        if bytes > byte_capacity {
            byte_capacity = bytes.max(2 * byte_capacity).max(FIRST_CAPACITY);
        }
        let mut end_capacity = self.ends.len();
        if strings > end_capacity {
            end_capacity = strings.max(2 * end_capacity).max(FIRST_CAPACITY);
        }
        let end_bits = bits_needed(byte_capacity as u64).max(1);
        let new_bytes = if byte_capacity > self.bytes.len() {
            let old = self.bytes.local().as_native::<u8>().unwrap_or(&[]);
            let used = self.used;
            Some(SmartArray::from_fn(
                byte_capacity,
                &self.options.clone().bits(8),
                |i| if i < used { u64::from(old[i]) } else { 0 },
            )?)
        } else {
            None
        };
        if end_capacity > self.ends.len() || end_bits > self.ends.bits() {
            let old = self.ends.local();
            let len = self.len;
            self.ends =
                SmartArray::from_fn(end_capacity, &self.options.clone().bits(end_bits), |i| {
                    if i < len {
                        old.get(i).unwrap_or(0)
                    } else {
                        0
                    }
                })?;
        }
        if let Some(bytes) = new_bytes {
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Codes of every string of a batch, interning new ones.
    pub fn intern_many<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<u32>> {
        texts.into_iter().map(|t| self.intern(t)).collect()
    }

    /// Bytes held: the two arrays (at their capacity), the index and the side table.
    pub fn memory_bytes(&self) -> usize {
        self.bytes.memory_bytes()
            + self.ends.memory_bytes()
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
    fn edge_lengths_grow_the_arrays_and_widen_the_ends() {
        let options = ArrayOptions::new().placement(Placement::Interleaved(vec![]));
        let mut dictionary = Dictionary::with_options(&options).unwrap();
        assert_eq!(dictionary.resolve(0), None);
        assert_eq!(dictionary.get(""), None);
        let words: Vec<String> = [0, 1, 63, 64, 65, 1023, 1025]
            .iter()
            .enumerate()
            .map(|(i, &n)| char::from(b'a' + i as u8).to_string().repeat(n))
            .collect();
        let mut widths = Vec::new();
        for (code, word) in words.iter().enumerate() {
            assert_eq!(dictionary.intern(word).unwrap(), code as u32);
            widths.push(dictionary.ends_bits());
        }
        for (code, word) in words.iter().enumerate() {
            assert_eq!(dictionary.intern(word).unwrap(), code as u32);
            assert_eq!(dictionary.get(word), Some(code as u32));
            assert_eq!(dictionary.resolve(code as u32), Some(word.as_str()));
        }
        // The ends widen with the byte capacity: 1 bit while it is 0 (the empty string), 7 at
        // 64 bytes, then doubling or exact steps (128, 256, 1216) to 2432 bytes for the 2241
        // held: 12 bits.
        assert_eq!(widths, [1, 7, 7, 8, 9, 11, 12]);
        assert!(dictionary.memory_bytes() > 2241);
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
