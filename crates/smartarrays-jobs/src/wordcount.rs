//! Word count: split lines on spaces, count each word, write the counts.
//!
//! Words are dictionary-encoded twice: each worker gives the words of the chunks it claims codes
//! of its own (a table of words borrowed from the mapped file, see [`crate::words`]) and counts
//! them in a dense array indexed by those codes (a word count is a tight loop over a skewed
//! vocabulary, so the frequent words stay in cache); the workers' words are then interned into
//! one [`Dictionary`], and their counts added into a [`Bag`] of its codes.

use std::io::Write;
use std::sync::Arc;

use smartarrays::ArrayOptions;
use smartarrays_collections::{Bag, Dictionary};

use crate::error::Result;
use crate::input::{Fault, Input};
use crate::options::{fold_chunks, ChunkState, JobOptions};
use crate::words::{short_key_at, Keyed, LocalWords, BATCH};

/// The counts of a word count: the words' dictionary and a bag of their codes.
pub struct WordCounts {
    words: Dictionary,
    counts: Bag<u32>,
    tokens: u64,
}

impl std::fmt::Debug for WordCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WordCounts")
            .field("distinct", &self.distinct())
            .field("tokens", &self.tokens)
            .finish()
    }
}

impl WordCounts {
    /// Number of distinct words.
    pub fn distinct(&self) -> usize {
        self.words.len()
    }

    /// Number of words read (with repeats).
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// The count of `word` (0 when absent).
    pub fn count(&self, word: &str) -> u64 {
        self.words
            .get(word)
            .map_or(0, |code| self.counts.count(code))
    }

    /// Every (word, count), most frequent first, ties in byte order of the word.
    pub fn sorted(&self) -> Vec<(&str, u64)> {
        let mut pairs: Vec<(&str, u64)> = self
            .counts
            .iter()
            .filter_map(|(code, n)| self.words.resolve(code).map(|w| (w, n)))
            .collect();
        pairs.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        pairs
    }

    /// Writes `word<TAB>count` lines in the order of [`WordCounts::sorted`].
    pub fn write_to(&self, mut out: impl Write) -> std::io::Result<()> {
        let mut number = itoa::Buffer::new();
        for (word, count) in self.sorted() {
            out.write_all(word.as_bytes())?;
            out.write_all(b"\t")?;
            out.write_all(number.format(count).as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The dictionary of the words (codes are the bag's keys).
    pub fn dictionary(&self) -> &Dictionary {
        &self.words
    }

    /// The counts per word code.
    pub fn bag(&self) -> &Bag<u32> {
        &self.counts
    }

    /// Bytes held by the dictionary and the bag.
    pub fn memory_bytes(&self) -> usize {
        self.words.memory_bytes() + self.counts.memory_bytes()
    }
}

/// A worker's share: its own word codes and dense counts by them.
#[derive(Default)]
struct Local<'a> {
    words: LocalWords<'a>,
    counts: Vec<u64>,
    tokens: u64,
    fault: Option<Fault>,
    /// Words read but not yet counted with their keys, and their codes (batches, so lookups
    /// overlap).
    pending: Vec<Keyed<'a>>,
    codes: Vec<u32>,
}

impl<'a> ChunkState<'a> for Local<'a> {
    fn fault(&mut self) -> &mut Option<Fault> {
        &mut self.fault
    }
}

impl<'a> Local<'a> {
    /// Counts the words of `bytes` (a chunk starting at byte `start` of the input).
    fn count(&mut self, bytes: &'a [u8], start: usize) {
        if let Err(e) = std::str::from_utf8(bytes) {
            let fault = Fault::new(start + e.valid_up_to(), "not UTF-8 text");
            self.fault = Fault::earliest(self.fault.take(), Some(fault));
            return;
        }
        let mut begin = 0;
        for i in memchr::memchr2_iter(b' ', b'\n', bytes) {
            if i > begin {
                self.add(bytes, begin, i);
            }
            begin = i + 1;
        }
        if bytes.len() > begin {
            self.add(bytes, begin, bytes.len());
        }
        self.flush();
    }

    /// Queues the word `bytes[begin..end]`.
    #[inline]
    fn add(&mut self, bytes: &'a [u8], begin: usize, end: usize) {
        let key = short_key_at(bytes, begin, end - begin);
        self.pending.push((&bytes[begin..end], key));
        if self.pending.len() == 8 * BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.words.intern_keyed(&self.pending, &mut self.codes);
        self.counts.resize(self.words.words().len(), 0);
        for &code in &self.codes {
            self.counts[code as usize] += 1;
        }
        self.tokens += self.pending.len() as u64;
        self.pending.clear();
    }
}

/// Counts the words of `input` (pieces of lines between spaces; see [`Input`] for lines). A
/// chunk that is not UTF-8 is an error naming its line.
///
/// # Example
/// ```
/// use smartarrays_jobs::{wordcount, Input, JobOptions};
/// let input = Input::from_bytes("t.txt", b"the cat\nthe hat\n".to_vec());
/// let counts = wordcount(&input, &JobOptions::threads(2).unwrap()).unwrap();
/// assert_eq!(counts.sorted(), [("the", 2), ("cat", 1), ("hat", 1)]);
/// ```
pub fn wordcount(input: &Input, options: &JobOptions) -> Result<WordCounts> {
    let runtime = options.runtime()?;
    let locals = fold_chunks(input, options, &runtime, "wordcount", Local::count)?;
    let options = ArrayOptions::new().runtime(Arc::clone(&runtime));
    let mut words = Dictionary::with_options(&options)?;
    let mut counts = Bag::with_options(&options)?;
    let mut tokens = 0;
    for local in &locals {
        tokens += local.tokens;
        for (word, &n) in local.words.words().iter().zip(&local.counts) {
            // Checked per chunk above: every word of a chunk that is UTF-8 is UTF-8.
            let word = std::str::from_utf8(word).unwrap_or_default();
            counts.add(words.intern(word)?, n)?;
        }
    }
    Ok(WordCounts {
        words,
        counts,
        tokens,
    })
}
