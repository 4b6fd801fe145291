//! Seeded generators of inputs shaped like the study's, written as files so the jobs read them
//! through the real I/O path.
//!
//! - [`DataKind::Text`]: lines of 5 to 30 words drawn from a Zipf distribution over a vocabulary
//!   (the study's Wikipedia entries): the most frequent words are common English ones, "The"
//!   among them (so the grep job keeps about a third of the lines), the rest made of syllables.
//! - [`DataKind::Reviews`]: `LABEL<TAB>TEXT` lines (the study's Amazon movie reviews), labels
//!   `1` to `classes` drawn uniformly; each class draws some of its words from its own shifted
//!   Zipf distribution, so the classes can be told apart.
//! - [`DataKind::Vectors`]: points of `dims` numbers with 4 decimals, separated by spaces, one
//!   per line, around `clusters` centres drawn uniformly in [-10, 10] (normal noise of
//!   deviation 1): the k-means input and the study's sort input.
//! - [`DataKind::Keys`]: unsigned integers below `2^key_bits`, one per line: the numeric sort.
//!
//! Lines are made in blocks of [`LINES_PER_BLOCK`], each from its own random stream seeded by
//! `(seed, block)`, in parallel; the output stops at the first line end at or past the size
//! asked for. So a file depends only on its settings, never on the number of threads.

use std::io::Write;
use std::path::Path;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};

use crate::error::{JobError, Result};
use crate::options::{map_indexed, JobOptions};

/// Lines per block of the generators.
pub const LINES_PER_BLOCK: usize = 2048;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// Zipf-distributed words, for word count and grep.
    Text,
    /// Labelled review lines, for naive Bayes.
    Reviews,
    /// Numeric vectors as text, for k-means and the line sort.
    Vectors,
    /// Unsigned integers, one per line, for the numeric sort.
    Keys,
}

impl std::str::FromStr for DataKind {
    type Err = JobError;
    fn from_str(text: &str) -> Result<DataKind> {
        match text {
            "text" => Ok(DataKind::Text),
            "reviews" => Ok(DataKind::Reviews),
            "vectors" => Ok(DataKind::Vectors),
            "keys" => Ok(DataKind::Keys),
            other => Err(JobError::invalid(format!(
                "unknown data kind {other:?}: text, reviews, vectors or keys"
            ))),
        }
    }
}

/// Settings of a generator.
#[derive(Clone, Debug, PartialEq)]
pub struct DataOptions {
    /// What to generate.
    pub kind: DataKind,
    /// Bytes to write (the last line is completed, so a few more).
    pub bytes: u64,
    /// Random seed.
    pub seed: u64,
    /// Distinct words of the text and reviews (at least 64).
    pub vocabulary: usize,
    /// Zipf exponent of the word frequencies (1.0 is close to natural text).
    pub zipf: f64,
    /// Review classes.
    pub classes: usize,
    /// Numbers per vector.
    pub dims: usize,
    /// Centres the vectors are drawn around.
    pub clusters: usize,
    /// Keys are below `2^key_bits` (1 to 64).
    pub key_bits: u32,
}

impl DataOptions {
    /// Defaults for `kind`: 100,000 words, exponent 1.0, 5 classes, 16 dimensions around 8
    /// centres, 32-bit keys; 1 MB, seed 1.
    pub fn new(kind: DataKind) -> Self {
        DataOptions {
            kind,
            bytes: 1 << 20,
            seed: 1,
            vocabulary: 100_000,
            zipf: 1.0,
            classes: 5,
            dims: 16,
            clusters: 8,
            key_bits: 32,
        }
    }

    fn check(&self) -> Result<()> {
        let problem = if self.vocabulary < 64 || self.vocabulary > 1 << 26 {
            Some(format!(
                "vocabulary {} is not in 64..=2^26",
                self.vocabulary
            ))
        } else if !(self.zipf > 0.0 && self.zipf < 10.0) {
            Some(format!("Zipf exponent {} is not in (0, 10)", self.zipf))
        } else if self.classes == 0 || self.classes > 1000 {
            Some(format!("classes {} is not in 1..=1000", self.classes))
        } else if self.dims == 0 || self.dims > 10_000 {
            Some(format!("dims {} is not in 1..=10000", self.dims))
        } else if self.clusters == 0 {
            Some("clusters must be at least 1".to_string())
        } else if self.key_bits == 0 || self.key_bits > 64 {
            Some(format!("key bits {} is not in 1..=64", self.key_bits))
        } else {
            None
        };
        problem.map_or(Ok(()), |p| Err(JobError::invalid(p)))
    }
}

/// The most frequent words, in rank order.
const COMMON: &[&str] = &[
    "the", "of", "and", "in", "to", "a", "The", "was", "is", "for", "as", "on", "with", "by", "he",
    "at", "that", "from", "his", "it", "an", "In", "were", "are", "which", "this", "also", "be",
    "had", "first", "or", "has", "one", "their", "its", "new", "after", "who", "they", "two",
    "her", "she", "been", "other", "when", "There", "time", "during", "all", "into", "school",
    "more", "A", "only", "used", "He", "years", "city", "Then", "world", "three",
];

const SYLLABLES: &[&str] = &[
    "ka", "to", "ri", "ne", "su", "mo", "la", "vi", "de", "po", "ha", "gu", "ze", "fi", "bo",
    "tra", "ser", "lin", "dor", "ach", "mel", "qua", "ist", "on", "ul", "eb", "ix", "str", "pan",
    "gor", "wy", "ce",
];

/// The word of vocabulary rank `rank`.
fn word(rank: usize) -> String {
    if let Some(common) = COMMON.get(rank) {
        return (*common).to_string();
    }
    let mut n = rank - COMMON.len();
    let mut word = String::new();
    loop {
        word.push_str(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
        if n == 0 {
            break;
        }
        n -= 1;
    }
    word
}

/// Draws ranks from a Zipf distribution by binary search in its cumulative table.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, exponent: f64) -> Zipf {
        let mut total = 0.0;
        let mut cumulative: Vec<f64> = (1..=n)
            .map(|r| {
                total += (r as f64).powf(-exponent);
                total
            })
            .collect();
        for c in &mut cumulative {
            *c /= total;
        }
        Zipf { cumulative }
    }

    #[inline]
    fn sample(&self, u: f64) -> usize {
        self.cumulative
            .partition_point(|&c| c <= u)
            .min(self.cumulative.len() - 1)
    }
}

fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn stream(seed: u64, block: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(
        seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29),
    )
}

/// What every block needs: the vocabulary, the word distribution, the vector centres.
struct Generator {
    options: DataOptions,
    words: Vec<String>,
    zipf: Zipf,
    centres: Vec<f64>,
}

impl Generator {
    fn new(options: &DataOptions) -> Generator {
        let words_needed = matches!(options.kind, DataKind::Text | DataKind::Reviews);
        let (words, zipf) = if words_needed {
            (
                (0..options.vocabulary).map(word).collect(),
                Zipf::new(options.vocabulary, options.zipf),
            )
        } else {
            (
                Vec::new(),
                Zipf {
                    cumulative: vec![1.0],
                },
            )
        };
        let mut rng = stream(options.seed, u64::MAX);
        let centres = if options.kind == DataKind::Vectors {
            (0..options.clusters * options.dims)
                .map(|_| uniform(&mut rng) * 20.0 - 10.0)
                .collect()
        } else {
            Vec::new()
        };
        Generator {
            options: options.clone(),
            words,
            zipf,
            centres,
        }
    }

    fn block(&self, index: u64) -> Vec<u8> {
        let mut rng = stream(self.options.seed, index);
        let mut out = Vec::with_capacity(LINES_PER_BLOCK * 64);
        let mut number = itoa::Buffer::new();
        for _ in 0..LINES_PER_BLOCK {
            match self.options.kind {
                DataKind::Text => self.words_line(&mut rng, &mut out, None),
                DataKind::Reviews => {
                    let class = (rng.next_u64() % self.options.classes as u64) as usize;
                    out.extend_from_slice(number.format(class + 1).as_bytes());
                    out.push(b'\t');
                    self.words_line(&mut rng, &mut out, Some(class));
                }
                DataKind::Vectors => {
                    let dims = self.options.dims;
                    let c = (rng.next_u64() % self.options.clusters as u64) as usize;
                    for j in 0..dims {
                        if j > 0 {
                            out.push(b' ');
                        }
                        let x = self.centres[c * dims + j] + normal(&mut rng);
                        push_fixed4(&mut out, x, &mut number);
                    }
                }
                DataKind::Keys => {
                    let bits = self.options.key_bits;
                    let key = if bits == 64 {
                        rng.next_u64()
                    } else {
                        rng.next_u64() >> (64 - bits)
                    };
                    out.extend_from_slice(number.format(key).as_bytes());
                }
            }
            out.push(b'\n');
        }
        out
    }

    /// 5 to 30 words; a review's words come from its class's shifted distribution one time in
    /// three.
    fn words_line(&self, rng: &mut Xoshiro256PlusPlus, out: &mut Vec<u8>, class: Option<usize>) {
        let count = 5 + (rng.next_u64() % 26) as usize;
        let vocabulary = self.words.len();
        for i in 0..count {
            if i > 0 {
                out.push(b' ');
            }
            let mut rank = self.zipf.sample(uniform(rng));
            if let Some(class) = class {
                if rng.next_u64().is_multiple_of(3) {
                    rank = (rank + COMMON.len() + class * 7919) % vocabulary;
                }
            }
            out.extend_from_slice(self.words[rank].as_bytes());
        }
    }
}

/// Appends `x` with 4 decimals (as `{:.4}` does, but without the formatting machinery, which
/// made the vectors 5x slower to write).
fn push_fixed4(out: &mut Vec<u8>, x: f64, number: &mut itoa::Buffer) {
    let scaled = (x * 10_000.0).round() as i64;
    if scaled < 0 {
        out.push(b'-');
    }
    let magnitude = scaled.unsigned_abs();
    out.extend_from_slice(number.format(magnitude / 10_000).as_bytes());
    out.push(b'.');
    let fraction = magnitude % 10_000;
    out.extend_from_slice(&[
        b'0' + (fraction / 1000) as u8,
        b'0' + (fraction / 100 % 10) as u8,
        b'0' + (fraction / 10 % 10) as u8,
        b'0' + (fraction % 10) as u8,
    ]);
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u = 1.0 - uniform(rng);
    let v = uniform(rng);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Writes `options.bytes` bytes (completing the last line) of generated data to `out`; returns
/// the bytes written.
///
/// # Example
/// ```
/// use smartarrays_jobs::{generate, DataKind, DataOptions, JobOptions};
/// let mut text = Vec::new();
/// let options = DataOptions { bytes: 10_000, ..DataOptions::new(DataKind::Text) };
/// let written = generate(&options, &mut text, &JobOptions::new()).unwrap();
/// assert_eq!(written as usize, text.len());
/// assert!(text.len() >= 10_000 && text.ends_with(b"\n"));
/// ```
pub fn generate(data: &DataOptions, mut out: impl Write, options: &JobOptions) -> Result<u64> {
    data.check()?;
    let runtime = options.runtime()?;
    let generator = Generator::new(data);
    let stage = options.stage("generate", data.bytes);
    let wave = (runtime.threads() * 2) as u64;
    let mut written = 0u64;
    let mut next = 0u64;
    let io = |e| JobError::io("generated data", e);
    while written < data.bytes {
        let blocks = map_indexed(&runtime, wave as usize, |i| {
            let block = generator.block(next + i as u64);
            stage.advance(block.len() as u64);
            block
        });
        next += wave;
        for block in blocks {
            let left = (data.bytes - written) as usize;
            if block.len() < left {
                out.write_all(&block).map_err(io)?;
                written += block.len() as u64;
                continue;
            }
            // The first line end at or past the size asked for.
            let end = memchr::memchr(b'\n', &block[left.max(1) - 1..])
                .map_or(block.len(), |i| left.max(1) + i);
            out.write_all(&block[..end]).map_err(io)?;
            written += end as u64;
            break;
        }
    }
    out.flush().map_err(io)?;
    Ok(written)
}

/// [`generate`] into a new file at `path`.
pub fn generate_file(
    data: &DataOptions,
    path: impl AsRef<Path>,
    options: &JobOptions,
) -> Result<u64> {
    let path = path.as_ref();
    let file = std::fs::File::create(path).map_err(|e| JobError::io(path, e))?;
    let written = generate(
        data,
        std::io::BufWriter::with_capacity(1 << 20, file),
        options,
    )
    .map_err(|e| match e {
        JobError::Io { source, .. } => JobError::io(path, source),
        other => other,
    })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_decimals_match_the_formatter() {
        let mut number = itoa::Buffer::new();
        for x in [
            0.0, 1.5, -2.25, 9.99996, -0.00004, 123.45678, -17.0001, 0.0009,
        ] {
            let mut out = Vec::new();
            push_fixed4(&mut out, x, &mut number);
            let expected = format!("{:.4}", x).replace("-0.0000", "0.0000");
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{x}");
        }
    }
}
