//! Sort, two ways. [`sort_lines`] orders whole text lines by their bytes, as the study's job does
//! (`map(line => (line, 1)).sortByKey()`): a parallel sample sort of (8-byte prefix, offset,
//! length) keys into the mapped file, so most comparisons read the prefix only and no line is
//! copied until it is written. [`sort_keys`] sorts the numbers of a file of unsigned integers
//! (one per line) with a parallel LSD radix sort whose passes follow the keys' bit width: one
//! pass per byte the largest key needs, on 32-bit words when the keys fit them.

use std::cmp::Ordering;
use std::io::Write;

use smartarrays::Runtime;

use crate::error::Result;
use crate::input::{lines, Fault, Input};
use crate::options::{map_indexed, JobOptions};
use crate::partition::{for_each_piece, scatter};

/// A line of the input: its first 8 bytes (big-endian, zero-padded) and where it is.
#[derive(Clone, Copy, Debug)]
struct LineKey {
    prefix: u64,
    start: usize,
    len: usize,
}

impl LineKey {
    fn new(line: &[u8], start: usize) -> LineKey {
        let mut head = [0u8; 8];
        let n = line.len().min(8);
        head[..n].copy_from_slice(&line[..n]);
        LineKey {
            prefix: u64::from_be_bytes(head),
            start,
            len: line.len(),
        }
    }

    #[inline]
    fn bytes<'a>(&self, all: &'a [u8]) -> &'a [u8] {
        &all[self.start..self.start + self.len]
    }

    #[inline]
    fn cmp_in(&self, other: &LineKey, all: &[u8]) -> Ordering {
        self.prefix
            .cmp(&other.prefix)
            .then_with(|| self.bytes(all).cmp(other.bytes(all)))
    }
}

/// The lines of an input in sorted order (as positions in the input).
#[derive(Debug)]
pub struct SortedLines {
    keys: Vec<LineKey>,
}

impl SortedLines {
    /// Number of lines.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the input had no lines.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The sorted lines of `input` (the input they were sorted from).
    pub fn lines<'a>(&'a self, input: &'a Input) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.keys.iter().map(|k| k.bytes(input.bytes()))
    }

    /// Writes the sorted lines of `input`, each followed by `\n`.
    pub fn write_to(&self, input: &Input, mut out: impl Write) -> std::io::Result<()> {
        for line in self.lines(input) {
            out.write_all(line)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Sorts the lines of `input` by their bytes (so UTF-8 text sorts by code point, and a line
/// sorts before the lines it is a prefix of).
///
/// # Example
/// ```
/// use smartarrays_jobs::{sort_lines, Input, JobOptions};
/// let input = Input::from_bytes("t.txt", b"pear\napple\n\nfig".to_vec());
/// let sorted = sort_lines(&input, &JobOptions::new()).unwrap();
/// let lines: Vec<&[u8]> = sorted.lines(&input).collect();
/// assert_eq!(lines, [&b""[..], b"apple", b"fig", b"pear"]);
/// ```
pub fn sort_lines(input: &Input, options: &JobOptions) -> Result<SortedLines> {
    let runtime = options.runtime()?;
    let all = input.bytes();
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage("read lines", input.len() as u64);
    let keys: Vec<LineKey> = map_indexed(&runtime, chunks.len(), |i| {
        let range = chunks[i].clone();
        let keys: Vec<LineKey> = lines(&all[range.clone()])
            .map(|(offset, line)| LineKey::new(line, range.start + offset))
            .collect();
        stage.advance(range.len() as u64);
        keys
    })
    .concat();
    drop(stage);
    let _stage = options.stage("sort lines", 1);
    Ok(SortedLines {
        keys: sample_sort(&runtime, keys, all),
    })
}

/// Sorts `keys` in parallel: splitters from a regular sample cut them into buckets (a few per
/// worker), a stable scatter groups them, and each bucket is sorted by one worker.
fn sample_sort(runtime: &Runtime, mut keys: Vec<LineKey>, all: &[u8]) -> Vec<LineKey> {
    let threads = runtime.threads();
    if threads == 1 || keys.len() < 1 << 14 {
        keys.sort_unstable_by(|a, b| a.cmp_in(b, all));
        return keys;
    }
    let buckets = 8 * threads;
    let samples = (buckets * 32).min(keys.len());
    let mut sample: Vec<LineKey> = (0..samples)
        .map(|i| keys[i * keys.len() / samples])
        .collect();
    sample.sort_unstable_by(|a, b| a.cmp_in(b, all));
    let splitters: Vec<LineKey> = (1..buckets)
        .map(|b| sample[b * samples / buckets])
        .collect();
    let mut grouped = vec![
        LineKey {
            prefix: 0,
            start: 0,
            len: 0
        };
        keys.len()
    ];
    let sizes = scatter(runtime, &keys, &mut grouped, buckets, |key| {
        splitters.partition_point(|s| s.cmp_in(key, all) != Ordering::Greater)
    });
    drop(keys);
    for_each_piece(runtime, &mut grouped, &sizes, |piece| {
        piece.sort_unstable_by(|a, b| a.cmp_in(b, all));
    });
    grouped
}

/// The numbers of a numeric sort, in ascending order, with the width that set its passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortedKeys {
    /// The keys, ascending.
    pub keys: Vec<u64>,
    /// Bits of the largest key (0 when every key is 0 or there are none).
    pub bits: u32,
    /// Radix passes made: one per byte of `bits`.
    pub passes: u32,
}

impl SortedKeys {
    /// Writes the keys in decimal, one per line. Blocks of keys are formatted in parallel on
    /// the runtime of `options` (a few blocks per worker at a time), then written in order.
    pub fn write_to(&self, mut out: impl Write, options: &JobOptions) -> Result<()> {
        const BLOCK: usize = 1 << 16;
        let runtime = options.runtime()?;
        let blocks = self.keys.len().div_ceil(BLOCK);
        let wave = runtime.threads() * 2;
        let io = |e| crate::error::JobError::io("sorted keys", e);
        for first in (0..blocks).step_by(wave.max(1)) {
            let texts = map_indexed(&runtime, wave.min(blocks - first), |i| {
                let start = (first + i) * BLOCK;
                let keys = &self.keys[start..(start + BLOCK).min(self.keys.len())];
                let mut text = Vec::with_capacity(keys.len() * 11);
                let mut number = itoa::Buffer::new();
                for &key in keys {
                    text.extend_from_slice(number.format(key).as_bytes());
                    text.push(b'\n');
                }
                text
            });
            for text in texts {
                out.write_all(&text).map_err(io)?;
            }
        }
        Ok(())
    }
}

/// Reads one unsigned decimal integer per line and sorts the numbers ([`radix_sort`]). An empty
/// line, a sign, a space or a number past `u64::MAX` is an error naming the line.
///
/// # Example
/// ```
/// use smartarrays_jobs::{sort_keys, Input, JobOptions};
/// let input = Input::from_bytes("k.txt", b"300\n7\n65536\n7\n".to_vec());
/// let sorted = sort_keys(&input, &JobOptions::new()).unwrap();
/// assert_eq!(sorted.keys, [7, 7, 300, 65536]);
/// assert_eq!((sorted.bits, sorted.passes), (17, 3)); // 65536 needs 17 bits: 3 byte passes, not 8
/// ```
pub fn sort_keys(input: &Input, options: &JobOptions) -> Result<SortedKeys> {
    let runtime = options.runtime()?;
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage("parse keys", input.len() as u64);
    let parsed = map_indexed(&runtime, chunks.len(), |i| {
        let range = chunks[i].clone();
        let mut keys = Vec::with_capacity(range.len() / 8);
        for (offset, line) in lines(&input.bytes()[range.clone()]) {
            match parse_u64(line) {
                Ok(key) => keys.push(key),
                Err(problem) => return Err(Fault::new(range.start + offset, problem)),
            }
        }
        stage.advance(range.len() as u64);
        Ok(keys)
    });
    drop(stage);
    let mut keys = Vec::with_capacity(parsed.iter().map(|p| p.as_ref().map_or(0, Vec::len)).sum());
    for part in parsed {
        keys.extend(part.map_err(|fault| input.fault(fault))?);
    }
    let _stage = options.stage("radix sort", 1);
    let (bits, passes) = radix_sort(&runtime, &mut keys);
    Ok(SortedKeys { keys, bits, passes })
}

/// A decimal `u64`, or what is wrong with the text.
fn parse_u64(text: &[u8]) -> std::result::Result<u64, String> {
    if text.is_empty() {
        return Err("empty line where a number was expected".into());
    }
    let mut value: u64 = 0;
    for &b in text {
        if !b.is_ascii_digit() {
            return Err(format!(
                "{:?} is not an unsigned decimal number",
                String::from_utf8_lossy(text)
            ));
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| format!("{} is larger than u64::MAX", String::from_utf8_lossy(text)))?;
    }
    Ok(value)
}

/// A key the radix sort can order by bytes.
trait RadixKey: Copy + Send + Sync + Default {
    fn digit(self, shift: u32) -> usize;
}

impl RadixKey for u64 {
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        (self >> shift) as usize & 0xff
    }
}

impl RadixKey for u32 {
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        (self >> shift) as usize & 0xff
    }
}

/// Sorts `keys` ascending with a parallel LSD radix sort of one pass per byte the largest key
/// needs (so 20-bit keys take 3 passes, not 8), moving 32-bit words instead of 64-bit ones when
/// every key fits them. Returns (bits of the largest key, passes).
///
/// # Example
/// ```
/// use smartarrays::Runtime;
/// use smartarrays_jobs::radix_sort;
/// let mut keys = vec![5u64, 1 << 40, 3, 0];
/// let (bits, passes) = radix_sort(&Runtime::with_threads(2).unwrap(), &mut keys);
/// assert_eq!(keys, [0, 3, 5, 1 << 40]);
/// assert_eq!((bits, passes), (41, 6));
/// ```
pub fn radix_sort(runtime: &Runtime, keys: &mut Vec<u64>) -> (u32, u32) {
    let largest = runtime.map_reduce(
        0..keys.len(),
        1 << 16,
        || 0u64,
        |max, _, range| keys[range].iter().fold(max, |m, &k| m.max(k)),
        u64::max,
    );
    let bits = u64::BITS - largest.leading_zeros();
    let passes = bits.div_ceil(8);
    if passes == 0 || keys.len() < 2 {
        return (bits, passes);
    }
    if bits <= 32 {
        let mut narrow: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
        lsd(runtime, &mut narrow, passes);
        for (wide, &k) in keys.iter_mut().zip(&narrow) {
            *wide = u64::from(k);
        }
    } else {
        lsd(runtime, keys, passes);
    }
    (bits, passes)
}

fn lsd<T: RadixKey>(runtime: &Runtime, keys: &mut Vec<T>, passes: u32) {
    let mut other = vec![T::default(); keys.len()];
    for pass in 0..passes {
        let shift = 8 * pass;
        scatter(runtime, keys, &mut other, 256, |&k| k.digit(shift));
        std::mem::swap(keys, &mut other);
    }
}
