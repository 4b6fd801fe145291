//! Grep: keep the lines that contain a pattern (the study's `filter(line.contains("The"))`).
//!
//! Each worker searches whole chunks with `memmem` (SIMD substring search), not line by line:
//! at a hit it finds the line's ends with `memrchr`/`memchr`, records the line and resumes after
//! it, so the bytes of lines without a hit are only scanned once, at memory speed.

use std::io::Write;
use std::ops::Range;

use memchr::{memchr, memmem, memrchr};

use crate::error::{JobError, Result};
use crate::input::Input;
use crate::options::{map_indexed, JobOptions};

/// The pattern of the study's grep job.
pub const STUDY_PATTERN: &str = "The";

/// The matching lines of a grep, as byte ranges of the input (without their `\n`), in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrepMatches {
    /// The lines, in input order.
    pub lines: Vec<Range<usize>>,
}

impl GrepMatches {
    /// Number of matching lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no line matched.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Bytes of the matching lines (without newlines).
    pub fn bytes(&self) -> u64 {
        self.lines.iter().map(|r| r.len() as u64).sum()
    }

    /// Writes the matching lines of `input`, each followed by `\n`; lines next to each other in
    /// the input go out in one write.
    pub fn write_to(&self, input: &Input, mut out: impl Write) -> std::io::Result<()> {
        let bytes = input.bytes();
        let mut pending: Option<Range<usize>> = None;
        for line in &self.lines {
            match &mut pending {
                // The previous line ends just before this one's `\n`-separated start.
                Some(run) if run.end + 1 == line.start => run.end = line.end,
                _ => {
                    if let Some(run) = pending.take() {
                        out.write_all(&bytes[run])?;
                        out.write_all(b"\n")?;
                    }
                    pending = Some(line.clone());
                }
            }
        }
        if let Some(run) = pending {
            out.write_all(&bytes[run])?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The lines of `input` that contain `pattern` (bytes, case-sensitive). An empty pattern keeps
/// every line; a pattern with a newline is refused (no line holds one).
///
/// # Example
/// ```
/// use smartarrays_jobs::{grep, Input, JobOptions};
/// let input = Input::from_bytes("t.txt", b"The cat\nthe hat\nThere\n".to_vec());
/// let found = grep(&input, "The", &JobOptions::new()).unwrap();
/// let mut out = Vec::new();
/// found.write_to(&input, &mut out).unwrap();
/// assert_eq!(out, b"The cat\nThere\n");
/// ```
pub fn grep(input: &Input, pattern: &str, options: &JobOptions) -> Result<GrepMatches> {
    if pattern.contains('\n') {
        return Err(JobError::invalid(format!(
            "grep pattern {pattern:?} holds a newline, which no line does"
        )));
    }
    let runtime = options.runtime()?;
    let chunks = input.chunks(options.chunk_bytes);
    let finder = memmem::Finder::new(pattern.as_bytes());
    let stage = options.stage("grep", input.len() as u64);
    let found = map_indexed(&runtime, chunks.len(), |i| {
        let range = chunks[i].clone();
        let lines = search(&input.bytes()[range.clone()], range.start, &finder);
        stage.advance(range.len() as u64);
        lines
    });
    Ok(GrepMatches {
        lines: found.concat(),
    })
}

/// The lines of `chunk` (which starts at byte `base` of the input) holding a hit of `finder`.
fn search(chunk: &[u8], base: usize, finder: &memmem::Finder<'_>) -> Vec<Range<usize>> {
    let mut lines = Vec::new();
    let mut from = 0;
    while from <= chunk.len() {
        let Some(at) = finder.find(&chunk[from..]) else {
            break;
        };
        let hit = from + at;
        if hit == chunk.len() {
            // An empty pattern "found" past the last line end: there is no line there.
            break;
        }
        let start = memrchr(b'\n', &chunk[..hit]).map_or(0, |j| j + 1);
        let end = memchr(b'\n', &chunk[hit..]).map_or(chunk.len(), |j| hit + j);
        lines.push(base + start..base + end);
        from = end + 1;
    }
    lines
}
