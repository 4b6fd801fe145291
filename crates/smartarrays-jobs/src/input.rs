//! Inputs: a file mapped into memory (or bytes already in memory), cut into chunks that end at
//! line boundaries so workers never share a line, and the lines of a chunk.
//!
//! A line is the bytes before a `\n`; a last line without a trailing `\n` is a line too, and an
//! empty input has no lines. A `\r` before the `\n` stays part of the line (the jobs read bytes,
//! as `grep` does), so Windows line ends show up in the last word of a line.

use std::ops::Range;
use std::path::{Path, PathBuf};

use memchr::memchr;

use crate::error::{JobError, Result};

/// Bytes of a chunk unless the options say otherwise: large enough that a worker's call costs
/// nothing next to its work, small enough that 2 GB make thousands of chunks to balance.
pub const DEFAULT_CHUNK_BYTES: usize = 1 << 20;

enum Data {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// The input of a job: a memory-mapped file or bytes in memory, with a name for error messages.
///
/// A line is the bytes before a `\n`; a last line without a trailing `\n` is a line too, and an
/// empty input has no lines. A `\r` before the `\n` stays part of the line.
///
/// # Example
/// ```
/// use smartarrays_jobs::Input;
/// let input = Input::from_bytes("words.txt", b"to be\nor not".to_vec());
/// assert_eq!(input.len(), 12);
/// assert_eq!(input.name().to_str(), Some("words.txt"));
/// ```
pub struct Input {
    name: PathBuf,
    data: Data,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("len", &self.len())
            .finish()
    }
}

impl Input {
    /// Maps `path` into memory, read-only (an empty file is read as no bytes). The kernel is told
    /// the file will be read sequentially, so it reads ahead.
    pub fn open(path: impl AsRef<Path>) -> Result<Input> {
        Input::map(path.as_ref(), false)
    }

    /// Maps `path` as [`Input::open`] does and reads every page of it in now (`MAP_POPULATE`),
    /// so a job that follows touches no page for the first time: timing this call apart from
    /// the job splits the input's I/O (from the page cache or the disk) from the job's work.
    ///
    /// # Example
    /// ```
    /// use smartarrays_jobs::Input;
    /// let path = std::env::temp_dir().join(format!("populated-{}.txt", std::process::id()));
    /// std::fs::write(&path, b"to be\nor not\n").unwrap();
    /// assert_eq!(Input::open_populated(&path).unwrap().bytes(), b"to be\nor not\n");
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn open_populated(path: impl AsRef<Path>) -> Result<Input> {
        Input::map(path.as_ref(), true)
    }

    fn map(path: &Path, populate: bool) -> Result<Input> {
        let file = std::fs::File::open(path).map_err(|e| JobError::io(path, e))?;
        let len = file.metadata().map_err(|e| JobError::io(path, e))?.len();
        let data = if len == 0 {
            Data::Owned(Vec::new())
        } else {
            let mut settings = memmap2::MmapOptions::new();
            if populate {
                settings.populate();
            }
            // SAFETY: the map is read-only and private to this process; a change of the file by
            // another process while a job runs would change the bytes a job reads (as with any
            // mapped reader, `grep` included) but cannot make the slice dangle: the mapping
            // lives as long as the `Input`. Populating only reads the pages in ahead.
            let map = unsafe { settings.map(&file) }.map_err(|e| JobError::io(path, e))?;
            let _ = map.advise(memmap2::Advice::Sequential);
            Data::Mapped(map)
        };
        Ok(Input {
            name: path.to_path_buf(),
            data,
        })
    }

    /// Bytes already in memory; `name` stands for the file in error messages.
    pub fn from_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Input {
        Input {
            name: name.into(),
            data: Data::Owned(bytes),
        }
    }

    /// The file's (or the given) name.
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// All the bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(map) => map,
            Data::Owned(bytes) => bytes,
        }
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Whether there are no bytes (and so no lines).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ranges of about `target` bytes covering the input in order, each ending just after a
    /// `\n` (or at the end of the input), so no line is cut.
    pub fn chunks(&self, target: usize) -> Vec<Range<usize>> {
        line_chunks(self.bytes(), target)
    }

    /// The 1-based line number of the line holding byte `offset`.
    pub fn line_number(&self, offset: usize) -> u64 {
        let before = &self.bytes()[..offset.min(self.len())];
        memchr::memchr_iter(b'\n', before).count() as u64 + 1
    }

    /// The parse error of the line holding byte `offset`.
    pub(crate) fn fault(&self, fault: Fault) -> JobError {
        JobError::Parse {
            file: self.name.clone(),
            line: self.line_number(fault.offset),
            problem: fault.problem,
        }
    }
}

/// A malformed line found by a worker: the byte offset of the line in the input and what is
/// wrong. Workers keep the earliest, so the error a job returns does not depend on the threads.
#[derive(Debug)]
pub(crate) struct Fault {
    pub offset: usize,
    pub problem: String,
}

impl Fault {
    pub(crate) fn new(offset: usize, problem: impl Into<String>) -> Fault {
        Fault {
            offset,
            problem: problem.into(),
        }
    }

    /// The earlier of two faults.
    pub(crate) fn earliest(a: Option<Fault>, b: Option<Fault>) -> Option<Fault> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.offset < a.offset { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// Cuts `bytes` into ranges of about `target` bytes, each ending just after a `\n` or at the end.
pub(crate) fn line_chunks(bytes: &[u8], target: usize) -> Vec<Range<usize>> {
    let target = target.max(1);
    let mut chunks = Vec::with_capacity(bytes.len() / target + 1);
    let mut start = 0;
    while start < bytes.len() {
        let tentative = (start + target).min(bytes.len());
        let end = match memchr(b'\n', &bytes[tentative - 1..]) {
            Some(i) => tentative + i,
            None => bytes.len(),
        };
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// The lines of a chunk, each with its offset in the chunk (see the module docs for what a
/// line is).
pub(crate) fn lines(chunk: &[u8]) -> impl Iterator<Item = (usize, &[u8])> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= chunk.len() {
            return None;
        }
        let offset = start;
        let end = memchr(b'\n', &chunk[start..]).map_or(chunk.len(), |i| start + i);
        start = end + 1;
        Some((offset, &chunk[offset..end]))
    })
}

/// The non-empty pieces of `line` between spaces (the study's `split(" ")`, without the empty
/// strings that two spaces in a row give in Java).
pub(crate) fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    line.split(|&b| b == b' ').filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_line_ends_and_cover_everything() {
        let text = b"ab\ncde\n\nf\ngh";
        for target in 1..=text.len() + 2 {
            let chunks = line_chunks(text, target);
            assert_eq!(chunks.first().map(|c| c.start), Some(0));
            assert_eq!(chunks.last().map(|c| c.end), Some(text.len()));
            for pair in chunks.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(text[pair[0].end - 1], b'\n', "target {target}");
            }
        }
        assert!(line_chunks(b"", 4).is_empty());
    }

    #[test]
    fn lines_keep_empty_lines_and_a_last_line_without_newline() {
        let found: Vec<&[u8]> = lines(b"a\n\nb c\nd").map(|(_, l)| l).collect();
        assert_eq!(found, [&b"a"[..], b"", b"b c", b"d"]);
        assert_eq!(lines(b"a\n").count(), 1);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(
            lines(b"\n").map(|(o, l)| (o, l.len())).collect::<Vec<_>>(),
            [(0, 0)]
        );
    }

    #[test]
    fn line_numbers_count_from_one() {
        let input = Input::from_bytes("x", b"a\nb\nc".to_vec());
        assert_eq!(input.line_number(0), 1);
        assert_eq!(input.line_number(2), 2);
        assert_eq!(input.line_number(4), 3);
    }

    #[test]
    fn words_skip_repeated_spaces() {
        let found: Vec<&[u8]> = words(b" to  be ").collect();
        assert_eq!(found, [&b"to"[..], b"be"]);
    }
}
