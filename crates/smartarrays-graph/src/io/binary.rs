//! The binary graph format (`.sag`, version 2): a built graph saved as its packed arrays (and,
//! optionally, its edge weights), so it reloads without parsing or sorting. Files are memory-mapped on load where possible, every
//! array is checked against its checksum, and the CSR invariants are verified before the graph
//! is handed out; any failure is an error naming the file and the problem.
//!
//! Layout (integers little-endian; only little-endian hosts read and write it):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SAGRAPH\0` |
//! | 8 | 4 | version, 2 (version 1 files, which have no weights, still load) |
//! | 12 | 4 | flags: bit 0 set = directed; bit 1 set = weights present (version 2 only); other bits 0 |
//! | 16 | 8 | vertices `n` |
//! | 24 | 8 | stored self-loops |
//! | 32 | 4 | array count `A`: 2 (`begin`, `edge`) or 4 (plus `rbegin`, `redge`), in that order, plus 1 (`weight`, last) when flag bit 1 is set |
//! | 36 | 4 | reserved, 0 |
//! | 40 | 48 × A | array table: kind (u32: 0 begin, 1 edge, 2 rbegin, 3 redge, 4 weight), bits (u32, 1..=64), length (u64), data offset (u64, a multiple of 64), data bytes (u64), XXH3-64 of the data (u64), reserved (u64: 0, except for `weight`, where it is the largest weight) |
//! | 40 + 48A | 8 | XXH3-64 of bytes `0 .. 40 + 48A` |
//!
//! Each array's data is its packed words as the core codec lays them out (value `i` in bits
//! `i*b .. (i+1)*b` of a little-endian stream of 64-bit words) followed by the codec's padding
//! words, i.e. exactly `smartarrays::codec::storage_words(length, bits) * 8` bytes. `begin`
//! and `rbegin` have `n + 1` values; `edge` and `redge` hold neighbour ids below `n`; `weight`
//! (the optional section) holds one weight per `edge` entry, in `edge` order, as
//! [`EdgeWeights`] does. On load the arrays are re-packed at the widths and placements the caller
//! asks for (weights in the edge class). A file of a version this reader does not know is
//! refused with an error naming both versions.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use smartarrays::codec::{storage_words, unpack_range};
use smartarrays::SmartArray;
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{GraphError, Result};
use crate::graph::{Csr, Graph};
use crate::options::{array_options, GraphOptions};
use crate::EdgeWeights;

/// The magic bytes at the start of every file.
pub const MAGIC: &[u8; 8] = b"SAGRAPH\0";
/// The version this code writes (it reads this one and every earlier one).
pub const VERSION: u32 = 2;
const FIXED_HEADER: usize = 40;
const ENTRY: usize = 48;
const NAMES: [&str; 5] = ["begin", "edge", "rbegin", "redge", "weight"];
/// Table kind of the optional weights array.
const WEIGHT: usize = 4;
/// Flag bit: the graph is directed.
const DIRECTED: u32 = 1;
/// Flag bit: a `weight` array follows the graph's arrays (version 2).
const WEIGHTED: u32 = 2;

fn align64(value: u64) -> u64 {
    value.div_ceil(64) * 64
}

/// Saves a graph in the binary format (without weights).
pub fn save_binary(graph: &Graph, path: &Path) -> Result<()> {
    save(graph, None, path)
}

/// Saves a graph and its edge weights in the binary format; [`load_binary_weighted`] reads
/// both back.
///
/// # Example
/// ```
/// use smartarrays_graph::io::{load_binary_weighted, save_binary_weighted};
/// use smartarrays_graph::{build_weighted, GraphOptions, WeightedEdges};
/// let mut edges = WeightedEdges::new(true);
/// edges.push(0, 1, 5);
/// edges.push(1, 2, 300);
/// let (graph, weights) = build_weighted(edges, &GraphOptions::default())?;
/// let path = std::env::temp_dir().join(format!("weighted-doc-{}.sag", std::process::id()));
/// save_binary_weighted(&graph, &weights, &path)?;
/// let (loaded, loaded_weights) = load_binary_weighted(&path, &GraphOptions::default())?;
/// std::fs::remove_file(&path).ok();
/// assert_eq!(loaded.edges(), 2);
/// let loaded_weights = loaded_weights.expect("the file holds weights");
/// assert_eq!(loaded_weights.array().to_vec(), vec![5, 300]);
/// assert_eq!(loaded_weights.max(), 300);
/// # Ok::<(), smartarrays_graph::GraphError>(())
/// ```
pub fn save_binary_weighted(graph: &Graph, weights: &EdgeWeights, path: &Path) -> Result<()> {
    weights.check(graph)?;
    save(graph, Some(weights), path)
}

fn save(graph: &Graph, weights: Option<&EdgeWeights>, path: &Path) -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(GraphError::format(
            path,
            "the binary graph format is little-endian; this host is big-endian",
        ));
    }
    let mut arrays: Vec<(usize, &SmartArray, u64)> = graph
        .arrays()
        .into_iter()
        .enumerate()
        .map(|(kind, (_, array))| (kind, array, 0))
        .collect();
    let mut flags = if graph.is_directed() { DIRECTED } else { 0 };
    if let Some(weights) = weights {
        arrays.push((WEIGHT, weights.array(), weights.max()));
        flags |= WEIGHTED;
    }
    let header_bytes = (FIXED_HEADER + ENTRY * arrays.len() + 8) as u64;
    let mut header = Vec::with_capacity(header_bytes as usize);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&flags.to_le_bytes());
    header.extend_from_slice(&(graph.vertices() as u64).to_le_bytes());
    header.extend_from_slice(&graph.self_loops().to_le_bytes());
    header.extend_from_slice(&(arrays.len() as u32).to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    let mut offset = align64(header_bytes);
    let mut data: Vec<(u64, &[u8])> = Vec::new();
    for &(kind, array, extra) in &arrays {
        let bytes: &[u8] = array.local().storage_bytes();
        header.extend_from_slice(&(kind as u32).to_le_bytes());
        header.extend_from_slice(&array.bits().to_le_bytes());
        header.extend_from_slice(&(array.len() as u64).to_le_bytes());
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        header.extend_from_slice(&xxh3_64(bytes).to_le_bytes());
        header.extend_from_slice(&extra.to_le_bytes());
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

/// Loads a graph saved by [`save_binary`] (or [`save_binary_weighted`], whose weights it
/// checks and leaves out), memory-mapping the file where possible.
pub fn load_binary(path: &Path, options: &GraphOptions) -> Result<Graph> {
    Ok(load_binary_weighted(path, options)?.0)
}

/// Loads a graph and, when the file holds them, its edge weights (stored in the edge class:
/// 32 bits uncompressed, the fewest bits that hold the largest weight compressed).
pub fn load_binary_weighted(
    path: &Path,
    options: &GraphOptions,
) -> Result<(Graph, Option<EdgeWeights>)> {
    let file = std::fs::File::open(path).map_err(|e| GraphError::io(path, e))?;
    // SAFETY: the mapping is read-only and private to this call; the file is only read through
    // it while it is alive. (Another process truncating the file at the same time could make
    // reads fault, which no file API can rule out for mappings; copies are made before return.)
    let mapped = unsafe { memmap2::Mmap::map(&file) };
    match mapped {
        Ok(map) => parse_binary_weighted(&map, path, options),
        Err(_) => {
            let bytes = std::fs::read(path).map_err(|e| GraphError::io(path, e))?;
            parse_binary_weighted(&bytes, path, options)
        }
    }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Parses a binary graph held in memory (`file` names it in errors); weights, if any, are
/// checked and left out.
pub fn parse_binary(bytes: &[u8], file: &Path, options: &GraphOptions) -> Result<Graph> {
    Ok(parse_binary_weighted(bytes, file, options)?.0)
}

/// Parses a binary graph held in memory and its weights, when it has them.
pub fn parse_binary_weighted(
    bytes: &[u8],
    file: &Path,
    options: &GraphOptions,
) -> Result<(Graph, Option<EdgeWeights>)> {
    let bad = |problem: String| GraphError::format(file, problem);
    if cfg!(target_endian = "big") {
        return Err(bad(
            "the binary graph format is little-endian; this host is big-endian".into(),
        ));
    }
    if bytes.as_ptr().align_offset(8) != 0 {
        let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()].copy_from_slice(bytes);
        return parse_binary_weighted(
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
    if !(1..=VERSION).contains(&version) {
        return Err(bad(format!(
            "format version {version} is not supported (this reader knows versions 1 to {VERSION}; \
             a newer smartarrays wrote it)"
        )));
    }
    let flags = read_u32(bytes, 12);
    let known = if version >= 2 {
        DIRECTED | WEIGHTED
    } else {
        DIRECTED
    };
    if flags & !known != 0 {
        return Err(bad(format!(
            "unknown flags {flags:#x} for format version {version}"
        )));
    }
    let directed = flags & DIRECTED != 0;
    let weighted = flags & WEIGHTED != 0;
    let vertices = read_u64(bytes, 16);
    let self_loops = read_u64(bytes, 24);
    let count = read_u32(bytes, 32) as usize;
    let structure = if directed { 4 } else { 2 };
    let expected = structure + usize::from(weighted);
    if count != expected {
        return Err(bad(format!(
            "{count} arrays; a {}{} graph has {expected}",
            if weighted { "weighted " } else { "" },
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
    let mut largest_weight = 0;
    let kinds = (0..structure).chain(weighted.then_some(WEIGHT));
    for (index, kind) in kinds.enumerate() {
        let name = NAMES[kind];
        let at = FIXED_HEADER + ENTRY * index;
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
        if kind != WEIGHT && kind % 2 == 0 && len != n + 1 {
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
        let offsets = kind != WEIGHT && kind % 2 == 0;
        let class = if offsets {
            &options.offsets
        } else {
            &options.edges
        };
        let largest = if kind == WEIGHT {
            largest_weight = read_u64(bytes, at + 40);
            largest_weight
        } else if offsets {
            read_u64(bytes, FIXED_HEADER + ENTRY * (kind + 1) + 8)
        } else {
            (n as u64).saturating_sub(1)
        };
        let natural = if offsets { 64 } else { 32 };
        let target_bits = class.width.resolve(largest, natural);
        let array = SmartArray::from_batches(len, &array_options(class, target_bits, &runtime), |range, out| {
            unpack_range(words, bits, range.start, out);
        })
        .map_err(|e| match e {
            smartarrays::Error::ValueTooWide { index, value, .. } if kind == WEIGHT => {
                bad(format!("weight: value {value} at index {index} exceeds the largest weight {largest} the header gives"))
            }
            smartarrays::Error::ValueTooWide { index, value, .. } => {
                bad(format!("{name}: value {value} at index {index} does not fit the graph (needs more than {target_bits} bits)"))
            }
            other => GraphError::Array(other),
        })?;
        arrays.push(array);
    }
    let weight_array = if weighted { arrays.pop() } else { None };
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
    let weights = match weight_array {
        Some(array) => {
            if array.len() as u64 != graph.stored_entries() {
                return Err(bad(format!(
                    "weight: {} weights for {} stored edges",
                    array.len(),
                    graph.stored_entries()
                )));
            }
            let weights = EdgeWeights::from_array(&graph, array)?;
            if weights.max() != largest_weight {
                return Err(bad(format!(
                    "weight: the largest weight is {}, the header says {largest_weight}",
                    weights.max()
                )));
            }
            Some(weights)
        }
        None => None,
    };
    Ok((graph, weights))
}
