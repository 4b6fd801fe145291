//! Sort, two ways. [`sort_lines`] orders whole text lines by their bytes, as the study's job does
//! (`map(line => (line, 1)).sortByKey()`): a parallel sample sort of (8-byte prefix, offset,
//! length) keys into the mapped file, so most comparisons read the prefix only and no line is
//! copied until it is written. [`sort_keys`] sorts the numbers of a file of unsigned integers
//! (one per line) with a parallel LSD radix sort whose passes follow the keys' bit width (one
//! pass per [`RADIX_BITS`] bits the largest key needs, on 32-bit words when the keys fit them)
//! and keeps the sorted keys bit-packed in a [`SmartArray`] of that width.

use std::cmp::Ordering;
use std::io::Write;

use smartarrays::{ArrayOptions, Runtime, SmartArray};

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

/// Most bits a radix pass sorts by: a pass scatters into `2^RADIX_BITS` buckets per worker.
/// Keys of `b` bits take `ceil(b / RADIX_BITS)` passes of equal digits.
pub const RADIX_BITS: u32 = 8;

/// Radix passes for keys of `bits` bits.
///
/// # Example
/// ```
/// assert_eq!(smartarrays_jobs::radix_passes(20), 3);
/// assert_eq!(smartarrays_jobs::radix_passes(64), 8);
/// assert_eq!(smartarrays_jobs::radix_passes(0), 0);
/// ```
pub const fn radix_passes(bits: u32) -> u32 {
    bits.div_ceil(RADIX_BITS)
}

/// The numbers of a numeric sort, in ascending order, bit-packed at the width that set the
/// radix passes.
#[derive(Debug)]
pub struct SortedKeys {
    /// The keys, ascending, in a smart array of `max(bits, 1)` bits per key (20-bit keys take
    /// 2.5 bytes each, not 8).
    pub keys: SmartArray,
    /// Bits of the largest key (0 when every key is 0 or there are none).
    pub bits: u32,
    /// Radix passes made ([`radix_passes`] of `bits`).
    pub passes: u32,
}

impl SortedKeys {
    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there were no keys.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys, unpacked.
    pub fn to_vec(&self) -> Vec<u64> {
        self.keys.to_vec()
    }

    /// Writes the keys in decimal, one per line. Blocks of keys are formatted in parallel on
    /// the runtime of `options` (a few blocks per worker at a time), then written in order.
    pub fn write_to(&self, mut out: impl Write, options: &JobOptions) -> Result<()> {
        const BLOCK: usize = 1 << 16;
        let runtime = options.runtime()?;
        let len = self.keys.len();
        let blocks = len.div_ceil(BLOCK);
        let wave = runtime.threads() * 2;
        let io = |e| crate::error::JobError::io("sorted keys", e);
        for first in (0..blocks).step_by(wave.max(1)) {
            let texts = map_indexed(&runtime, wave.min(blocks - first), |i| {
                let start = (first + i) * BLOCK;
                let mut keys = vec![0u64; BLOCK.min(len - start)];
                self.keys.unpack(start, &mut keys)?;
                let mut text = Vec::with_capacity(keys.len() * 11);
                let mut number = itoa::Buffer::new();
                for &key in &keys {
                    text.extend_from_slice(number.format(key).as_bytes());
                    text.push(b'\n');
                }
                Ok::<_, smartarrays::Error>(text)
            });
            for text in texts {
                out.write_all(&text?).map_err(io)?;
            }
        }
        Ok(())
    }
}

/// Reads one unsigned decimal integer per line and sorts the numbers ([`radix_sort`]) into a
/// smart array of the fewest bits that hold the largest. An empty line, a sign, a space or a
/// number past `u64::MAX` is an error naming the line.
///
/// # Example
/// ```
/// use smartarrays_jobs::{sort_keys, Input, JobOptions};
/// let input = Input::from_bytes("k.txt", b"300\n7\n65536\n7\n".to_vec());
/// let sorted = sort_keys(&input, &JobOptions::new()).unwrap();
/// assert_eq!(sorted.to_vec(), [7, 7, 300, 65536]);
/// assert_eq!((sorted.bits, sorted.passes), (17, 3)); // 65536 needs 17 bits: 3 byte passes, not 8
/// assert_eq!(sorted.keys.bits(), 17); // and 17 bits a key
/// ```
pub fn sort_keys(input: &Input, options: &JobOptions) -> Result<SortedKeys> {
    let runtime = options.runtime()?;
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage("parse keys", input.len() as u64);
    let parsed = map_indexed(&runtime, chunks.len(), |i| {
        let range = chunks[i].clone();
        let mut keys = Vec::with_capacity(range.len() / 8);
        parse_keys(&input.bytes()[range.clone()], &mut keys)
            .map_err(|fault| Fault::new(range.start + fault.offset, fault.problem))?;
        stage.advance(range.len() as u64);
        Ok(keys)
    });
    drop(stage);
    let mut keys = Vec::with_capacity(parsed.iter().map(|p| p.as_ref().map_or(0, Vec::len)).sum());
    for part in parsed {
        keys.extend(part.map_err(|fault| input.fault(fault))?);
    }
    let _stage = options.stage("radix sort", 1);
    let (bits, passes, sorted) = radix_sort_keys(&runtime, keys);
    let packing = ArrayOptions::new()
        .bits(bits.max(1))
        .runtime(std::sync::Arc::clone(&runtime));
    let keys = match sorted {
        Keys::Narrow(keys) => SmartArray::from_batches(keys.len(), &packing, |range, out| {
            for (slot, &k) in out.iter_mut().zip(&keys[range]) {
                *slot = u64::from(k);
            }
        })?,
        Keys::Wide(keys) => SmartArray::from_slice(&keys, &packing)?,
    };
    Ok(SortedKeys { keys, bits, passes })
}

/// Sorted keys as the radix sort left them: 32-bit words when every key fit them.
enum Keys {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

/// [`radix_sort`], leaving the keys in the words it sorted them in.
fn radix_sort_keys(runtime: &Runtime, mut keys: Vec<u64>) -> (u32, u32, Keys) {
    let largest = runtime.map_reduce(
        0..keys.len(),
        1 << 16,
        || 0u64,
        |max, _, range| keys[range].iter().fold(max, |m, &k| m.max(k)),
        u64::max,
    );
    let bits = u64::BITS - largest.leading_zeros();
    let passes = radix_passes(bits);
    if passes == 0 || keys.len() < 2 {
        return (bits, passes, Keys::Wide(keys));
    }
    if bits <= 32 {
        let mut narrow: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
        drop(keys);
        lsd(runtime, &mut narrow, bits, passes);
        (bits, passes, Keys::Narrow(narrow))
    } else {
        lsd(runtime, &mut keys, bits, passes);
        (bits, passes, Keys::Wide(keys))
    }
}

/// The numbers of the lines of `text` (a chunk: see [`lines`]) appended to `keys` in one pass
/// over the bytes: digits accumulate until a `\n`, and only a line that is empty, longer than 19
/// digits (it could overflow) or holds something else goes through [`parse_u64`], which names
/// the problem. The fault's offset is that of its line in `text`.
fn parse_keys(text: &[u8], keys: &mut Vec<u64>) -> std::result::Result<(), Fault> {
    let slow = |begin: usize, end: usize, keys: &mut Vec<u64>| {
        parse_u64(&text[begin..end])
            .map(|key| keys.push(key))
            .map_err(|problem| Fault::new(begin, problem))
    };
    let (mut value, mut digits, mut begin) = (0u64, 0usize, 0usize);
    for (i, &b) in text.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit <= 9 {
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
            digits += 1;
        } else if b == b'\n' {
            if digits == 0 || digits > 19 {
                slow(begin, i, keys)?;
            } else {
                keys.push(value);
            }
            (value, digits, begin) = (0, 0, i + 1);
        } else {
            let end = memchr::memchr(b'\n', &text[i..]).map_or(text.len(), |n| i + n);
            return slow(begin, end, keys);
        }
    }
    if begin < text.len() {
        if digits == 0 || digits > 19 {
            slow(begin, text.len(), keys)?;
        } else {
            keys.push(value);
        }
    }
    Ok(())
}

/// A decimal `u64`, or what is wrong with the text.
fn parse_u64(text: &[u8]) -> std::result::Result<u64, String> {
    if text.is_empty() {
        return Err("empty line where a number was expected".into());
    }
    let not_a_number = || {
        format!(
            "{:?} is not an unsigned decimal number",
            String::from_utf8_lossy(text)
        )
    };
    if text.len() <= 19 {
        // 19 digits stay below u64::MAX (about 1.8e19): no overflow check per digit.
        let mut value: u64 = 0;
        for &b in text {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return Err(not_a_number());
            }
            value = value * 10 + u64::from(digit);
        }
        return Ok(value);
    }
    let mut value: u64 = 0;
    for &b in text {
        if !b.is_ascii_digit() {
            return Err(not_a_number());
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| format!("{} is larger than u64::MAX", String::from_utf8_lossy(text)))?;
    }
    Ok(value)
}

/// A key the radix sort can order by digits of a few bits.
trait RadixKey: Copy + Send + Sync + Default {
    fn digit(self, shift: u32, mask: usize) -> usize;
}

impl RadixKey for u64 {
    #[inline(always)]
    fn digit(self, shift: u32, mask: usize) -> usize {
        (self >> shift) as usize & mask
    }
}

impl RadixKey for u32 {
    #[inline(always)]
    fn digit(self, shift: u32, mask: usize) -> usize {
        (self >> shift) as usize & mask
    }
}

/// Sorts `keys` ascending with a parallel LSD radix sort of one pass per [`RADIX_BITS`] bits
/// the largest key needs ([`radix_passes`]: 20-bit keys take 3 passes, not 8), moving 32-bit
/// words instead of 64-bit ones when every key fits them. Returns (bits of the largest key,
/// passes).
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
    let (bits, passes, sorted) = radix_sort_keys(runtime, std::mem::take(keys));
    *keys = match sorted {
        Keys::Narrow(narrow) => narrow.into_iter().map(u64::from).collect(),
        Keys::Wide(wide) => wide,
    };
    (bits, passes)
}

/// `passes` LSD passes over the low `bits` bits of `keys`, in digits of equal width.
fn lsd<T: RadixKey>(runtime: &Runtime, keys: &mut Vec<T>, bits: u32, passes: u32) {
    let width = bits.div_ceil(passes);
    let buckets = 1usize << width;
    let mut other = vec![T::default(); keys.len()];
    for pass in 0..passes {
        let shift = width * pass;
        scatter(runtime, keys, &mut other, buckets, |&k| {
            k.digit(shift, buckets - 1)
        });
        std::mem::swap(keys, &mut other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of `text` line by line with [`parse_u64`], or the offset of the first bad line.
    fn reference(text: &[u8]) -> std::result::Result<Vec<u64>, usize> {
        lines(text)
            .map(|(offset, line)| parse_u64(line).map_err(|_| offset))
            .collect()
    }

    #[test]
    fn one_pass_parsing_equals_line_by_line_parsing() {
        let cases: [&[u8]; 16] = [
            b"",
            b"0",
            b"0\n",
            b"7\n300\n65536",
            b"18446744073709551615\n1\n",
            b"00000000000000000001\n",
            b"9999999999999999999\n",
            b"18446744073709551616\n",
            b"1\n\n3\n",
            b"\n",
            b"12a\n4\n",
            b"1\r\n2\r\n",
            b"5\n-6\n",
            b" 1\n",
            b"1 \n",
            b"123456789012345678901234567890\n",
        ];
        for text in cases {
            let mut keys = Vec::new();
            let found = parse_keys(text, &mut keys)
                .map(|()| keys)
                .map_err(|f| f.offset);
            assert_eq!(
                found,
                reference(text),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
