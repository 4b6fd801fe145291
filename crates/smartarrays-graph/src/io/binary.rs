//! The binary graph format (`.sag`, version 1): a built graph saved as its packed arrays, so it
//! reloads without parsing or sorting. Files are memory-mapped on load where possible, every
//! array is checked against its checksum, and the CSR invariants are verified before the graph
//! is handed out; any failure is an error naming the file and the problem.
//!
//! Layout (integers little-endian; only little-endian hosts read and write it):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SAGRAPH\0` |
//! | 8 | 4 | version, 1 |
//! | 12 | 4 | flags: bit 0 set = directed; other bits 0 |
//! | 16 | 8 | vertices `n` |
//! | 24 | 8 | stored self-loops |
//! | 32 | 4 | array count `A`: 2 (`begin`, `edge`) or 4 (plus `rbegin`, `redge`), in that order |
//! | 36 | 4 | reserved, 0 |
//! | 40 | 48 × A | array table: kind (u32: 0 begin, 1 edge, 2 rbegin, 3 redge), bits (u32, 1..=64), length (u64), data offset (u64, a multiple of 64), data bytes (u64), XXH3-64 of the data (u64), reserved (u64, 0) |
//! | 40 + 48A | 8 | XXH3-64 of bytes `0 .. 40 + 48A` |
//!
//! Each array's data is its packed words as the core codec lays them out (value `i` in bits
//! `i*b .. (i+1)*b` of a little-endian stream of 64-bit words) followed by the codec's padding
//! words, i.e. exactly `smartarrays::codec::storage_words(length, bits) * 8` bytes. `begin`
//! and `rbegin` have `n + 1` values; `edge` and `redge` hold neighbour ids below `n`. On load the
//! arrays are re-packed at the widths and placements the caller asks for.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use smartarrays::codec::{storage_words, unpack_range};
use smartarrays::SmartArray;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{GraphError, Result};
use crate::graph::{Csr, Graph};
use crate::options::{array_options, GraphOptions};

/// The magic bytes at the start of every file.
pub const MAGIC: &[u8; 8] = b"SAGRAPH\0";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;
const FIXED_HEADER: usize = 40;
const ENTRY: usize = 48;
const NAMES: [&str; 4] = ["begin", "edge", "rbegin", "redge"];

fn align64(value: u64) -> u64 {
    value.div_ceil(64) * 64
}

/// Saves a graph in the binary format.
pub fn save_binary(graph: &Graph, path: &Path) -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(GraphError::format(
            path,
            "the binary graph format is little-endian; this host is big-endian",
        ));
    }
    let arrays = graph.arrays();
    let header_bytes = (FIXED_HEADER + ENTRY * arrays.len() + 8) as u64;
    let mut header = Vec::with_capacity(header_bytes as usize);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(graph.is_directed() as u32).to_le_bytes());
    header.extend_from_slice(&(graph.vertices() as u64).to_le_bytes());
    header.extend_from_slice(&graph.self_loops().to_le_bytes());
    header.extend_from_slice(&(arrays.len() as u32).to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    let mut offset = align64(header_bytes);
    let mut data: Vec<(u64, &[u8])> = Vec::new();
    for (kind, (_, array)) in arrays.iter().enumerate() {
        let bytes: &[u8] = array.local().storage_bytes();
        header.extend_from_slice(&(kind as u32).to_le_bytes());
        header.extend_from_slice(&array.bits().to_le_bytes());
        header.extend_from_slice(&(array.len() as u64).to_le_bytes());
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        header.extend_from_slice(&xxh3_64(bytes).to_le_bytes());
        header.extend_from_slice(&0u64.to_le_bytes());
        data.push((offset, bytes));
        offset = align64(offset + bytes.len() as u64);
    }
    let checksum = xxh3_64(&header);
    header.extend_from_slice(&checksum.to_le_bytes());
    let file = std::fs::File::create(path).map_err(|e| GraphError::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 22, file);
    let mut written = 0u64;
    let mut write = |out: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
        out.write_all(&header)?;
        written += header.len() as u64;
        for (start, bytes) in &data {
            out.write_all(&vec![0u8; (start - written) as usize])?;
            out.write_all(bytes)?;
            written = start + bytes.len() as u64;
        }
        out.flush()
    };
    write(&mut out).map_err(|e| GraphError::io(path, e))
}

/// Loads a graph saved by [`save_binary`], memory-mapping the file where possible.
pub fn load_binary(path: &Path, options: &GraphOptions) -> Result<Graph> {
    let file = std::fs::File::open(path).map_err(|e| GraphError::io(path, e))?;
    // SAFETY: the mapping is read-only and private to this call; the file is only read through
    // it while it is alive. (Another process truncating the file at the same time could make
    // reads fault, which no file API can rule out for mappings; copies are made before return.)
    let mapped = unsafe { memmap2::Mmap::map(&file) };
    match mapped {
        Ok(map) => parse_binary(&map, path, options),
        Err(_) => {
            let bytes = std::fs::read(path).map_err(|e| GraphError::io(path, e))?;
            parse_binary(&bytes, path, options)
        }
    }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Parses a binary graph held in memory (`file` names it in errors).
pub fn parse_binary(bytes: &[u8], file: &Path, options: &GraphOptions) -> Result<Graph> {
    let bad = |problem: String| GraphError::format(file, problem);
    if cfg!(target_endian = "big") {
        return Err(bad(
            "the binary graph format is little-endian; this host is big-endian".into(),
        ));
    }
    if bytes.as_ptr().align_offset(8) != 0 {
        let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()].copy_from_slice(bytes);
        return parse_binary(
            &bytemuck::cast_slice::<u64, u8>(&aligned)[..bytes.len()],
            file,
            options,
        );
    }
    if bytes.len() < FIXED_HEADER + 8 || &bytes[..8] != MAGIC {
        return Err(bad(
            "not a smartarrays binary graph (bad magic bytes)".into()
        ));
    }
    let version = read_u32(bytes, 8);
    if version != VERSION {
        return Err(bad(format!(
            "format version {version} is not supported (this reader knows version {VERSION})"
        )));
    }
    let flags = read_u32(bytes, 12);
    if flags & !1 != 0 {
        return Err(bad(format!("unknown flags {flags:#x}")));
    }
    let directed = flags & 1 == 1;
    let vertices = read_u64(bytes, 16);
    let self_loops = read_u64(bytes, 24);
    let count = read_u32(bytes, 32) as usize;
    let expected = if directed { 4 } else { 2 };
    if count != expected {
        return Err(bad(format!(
            "{count} arrays; a {} graph has {expected}",
            if directed { "directed" } else { "undirected" }
        )));
    }
    let header_end = FIXED_HEADER + ENTRY * count;
    if bytes.len() < header_end + 8 {
        return Err(bad("the file ends inside the header".into()));
    }
    if xxh3_64(&bytes[..header_end]) != read_u64(bytes, header_end) {
        return Err(bad("header checksum mismatch (the file is damaged)".into()));
    }
    let n = usize::try_from(vertices)
        .ok()
        .filter(|&n| n < usize::MAX)
        .ok_or_else(|| bad(format!("{vertices} vertices is too many")))?;
    let runtime = options.resolve_runtime()?;
    let mut arrays: Vec<SmartArray> = Vec::with_capacity(count);
    for (kind, name) in NAMES.iter().enumerate().take(count) {
        let at = FIXED_HEADER + ENTRY * kind;
        let (stored_kind, bits, len) = (
            read_u32(bytes, at),
            read_u32(bytes, at + 4),
            read_u64(bytes, at + 8),
        );
        let (offset, size, checksum) = (
            read_u64(bytes, at + 16),
            read_u64(bytes, at + 24),
            read_u64(bytes, at + 32),
        );
        if stored_kind as usize != kind {
            return Err(bad(format!(
                "array {kind} has kind {stored_kind}; expected {kind} ({name})"
            )));
        }
        if !(1..=64).contains(&bits) {
            return Err(bad(format!("{name}: bit width {bits} is not in 1..=64")));
        }
        let len =
            usize::try_from(len).map_err(|_| bad(format!("{name}: length {len} is too large")))?;
        if kind % 2 == 0 && len != n + 1 {
            return Err(bad(format!(
                "{name}: {len} offsets for {n} vertices (expected {})",
                n + 1
            )));
        }
        let words = storage_words(len, bits)
            .ok_or_else(|| bad(format!("{name}: {len} values of {bits} bits overflow")))?;
        if size != words as u64 * 8 {
            return Err(bad(format!(
                "{name}: {size} data bytes; {len} values of {bits} bits take {}",
                words * 8
            )));
        }
        if offset % 64 != 0
            || offset < (header_end + 8) as u64
            || offset
                .checked_add(size)
                .is_none_or(|end| end > bytes.len() as u64)
        {
            return Err(bad(format!(
                "{name}: data at {offset}..+{size} lies outside the {}-byte file or is misaligned",
                bytes.len()
            )));
        }
        let data = &bytes[offset as usize..(offset + size) as usize];
        if xxh3_64(data) != checksum {
            return Err(bad(format!(
                "{name}: checksum mismatch (the file is damaged)"
            )));
        }
        let words: &[u64] = bytemuck::cast_slice(data);
        let class = if kind % 2 == 0 {
            &options.offsets
        } else {
            &options.edges
        };
        let largest = if kind % 2 == 0 {
            read_u64(bytes, FIXED_HEADER + ENTRY * (kind + 1) + 8)
        } else {
            (n as u64).saturating_sub(1)
        };
        let natural = if kind % 2 == 0 { 64 } else { 32 };
        let target_bits = class.width.resolve(largest, natural);
        let array = SmartArray::from_batches(len, &array_options(class, target_bits, &runtime), |range, out| {
            unpack_range(words, bits, range.start, out);
        })
        .map_err(|e| match e {
            smartarrays::Error::ValueTooWide { index, value, .. } => {
                bad(format!("{name}: value {value} at index {index} does not fit the graph (needs more than {target_bits} bits)"))
            }
            other => GraphError::Array(other),
        })?;
        arrays.push(array);
    }
    let mut arrays = arrays.into_iter();
    let (Some(begin), Some(edge)) = (arrays.next(), arrays.next()) else {
        return Err(bad("missing arrays".into()));
    };
    let forward = Csr {
        offsets: begin,
        targets: edge,
        self_loops,
    };
    let reverse = match (arrays.next(), arrays.next()) {
        (Some(offsets), Some(targets)) => Some(Csr {
            offsets,
            targets,
            self_loops,
        }),
        _ => None,
    };
    let graph = Graph::from_parts(n, directed, forward, reverse, options, Arc::clone(&runtime))?;
    graph.validate().map_err(bad)?;
    if self_loops > graph.stored_entries() {
        return Err(bad(format!(
            "{self_loops} self-loops but only {} entries",
            graph.stored_entries()
        )));
    }
    Ok(graph)
}
