//! Whitespace edge lists (the SNAP format): one `source target` pair per line, separated by
//! spaces or tabs, ids 0-based unsigned integers; lines starting with `#` or `%` and blank lines
//! are comments; further numeric columns (weights) are ignored. A `Nodes: N` comment declares
//! `N` vertices. Parsing runs in parallel over line-aligned chunks; an error names the line.
//! Also the shared chunked line parser used by the Matrix Market reader, and the writers.

use std::io::Write;
use std::path::Path;

use smartarrays::Runtime;

use crate::error::{GraphError, Result};
use crate::{EdgeList, Graph};

/// Pairs parsed from one chunk.
pub(crate) enum Chunk {
    Narrow(Vec<[u32; 2]>),
    Wide(Vec<[u64; 2]>),
}

impl Chunk {
    fn push(&mut self, s: u64, t: u64) {
        match self {
            Chunk::Narrow(pairs) if s <= u32::MAX as u64 && t <= u32::MAX as u64 => {
                pairs.push([s as u32, t as u32])
            }
            Chunk::Narrow(pairs) => {
                let mut wide: Vec<[u64; 2]> =
                    pairs.iter().map(|p| [p[0] as u64, p[1] as u64]).collect();
                wide.push([s, t]);
                *self = Chunk::Wide(wide);
            }
            Chunk::Wide(pairs) => pairs.push([s, t]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Chunk::Narrow(p) => p.len(),
            Chunk::Wide(p) => p.len(),
        }
    }
}

/// What one line holds.
pub(crate) enum Line {
    Skip,
    Edge(u64, u64),
    Vertices(u64),
}

/// Everything parsed from a text body: pairs in file order and the largest declared vertex
/// count.
pub(crate) struct Parsed {
    pub edges: EdgeList,
    pub declared_vertices: u64,
}

/// Splits `bytes` into line-aligned chunks and parses them in parallel with `parse_line`.
/// `first_line` is the 1-based number of the first line of `bytes` in the file.
pub(crate) fn parse_lines(
    bytes: &[u8],
    first_line: u64,
    file: &Path,
    directed: bool,
    runtime: &Runtime,
    parse_line: impl Fn(&[u8]) -> std::result::Result<Line, String> + Sync,
) -> Result<Parsed> {
    let target_chunks = (runtime.threads() * 8).max(1);
    let chunk_size = (bytes.len() / target_chunks).max(1 << 20);
    let mut bounds = vec![0usize];
    while *bounds.last().unwrap_or(&0) < bytes.len() {
        let start = *bounds.last().unwrap_or(&0);
        let mut end = (start + chunk_size).min(bytes.len());
        while end < bytes.len() && bytes[end - 1] != b'\n' {
            end += 1;
        }
        bounds.push(end);
    }
    let chunks = bounds.len() - 1;
    // Ids are checked against memory as they are read, so a stray huge id is an error naming
    // its line rather than a multi-gigabyte allocation later.
    let id_limit = crate::budget::vertex_id_limit();
    type ChunkResult = (usize, std::result::Result<(Chunk, u64), (u64, String)>);
    let mut results: Vec<ChunkResult> = runtime.map_reduce(
        0..chunks,
        1,
        Vec::new,
        |mut done: Vec<ChunkResult>, _, range| {
            for index in range {
                let text = &bytes[bounds[index]..bounds[index + 1]];
                let mut pairs = Chunk::Narrow(Vec::with_capacity(text.len() / 12));
                let mut declared = 0u64;
                let mut outcome = Ok(());
                for (number, line) in text.split(|&b| b == b'\n').enumerate() {
                    if line.is_empty() {
                        continue;
                    }
                    match parse_line(line) {
                        Ok(Line::Skip) => {}
                        Ok(Line::Edge(s, t)) => {
                            if let Some(problem) =
                                crate::budget::check_vertex_id(s.max(t), id_limit)
                            {
                                outcome = Err((number as u64, problem));
                                break;
                            }
                            pairs.push(s, t)
                        }
                        Ok(Line::Vertices(n)) => {
                            if n > id_limit {
                                let available =
                                    id_limit.saturating_mul(crate::budget::BYTES_PER_VERTEX);
                                let problem = format!(
                                    "the declared vertex count is too large: {}",
                                    crate::budget::too_many_vertices(n.into(), available)
                                );
                                outcome = Err((number as u64, problem));
                                break;
                            }
                            declared = declared.max(n)
                        }
                        Err(problem) => {
                            outcome = Err((number as u64, problem));
                            break;
                        }
                    }
                }
                done.push((index, outcome.map(|()| (pairs, declared))));
            }
            done
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    );
    results.sort_by_key(|r| r.0);
    let mut declared_vertices = 0;
    let mut parts = Vec::with_capacity(results.len());
    for (index, result) in results {
        match result {
            Ok((chunk, declared)) => {
                declared_vertices = declared_vertices.max(declared);
                parts.push(chunk);
            }
            Err((local_line, problem)) => {
                let before = bytes[..bounds[index]]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                return Err(GraphError::Parse {
                    file: file.to_path_buf(),
                    line: first_line + before + local_line,
                    problem,
                });
            }
        }
    }
    let total: usize = parts.iter().map(Chunk::len).sum();
    let edges = if parts.iter().all(|p| matches!(p, Chunk::Narrow(_))) {
        let mut all = Vec::with_capacity(total);
        for part in parts {
            if let Chunk::Narrow(pairs) = part {
                all.extend_from_slice(&pairs);
            }
        }
        EdgeList::from_pairs(0, directed, all)
    } else {
        let mut all = Vec::with_capacity(total);
        for part in parts {
            match part {
                Chunk::Narrow(pairs) => {
                    all.extend(pairs.iter().map(|p| [p[0] as u64, p[1] as u64]))
                }
                Chunk::Wide(pairs) => all.extend_from_slice(&pairs),
            }
        }
        EdgeList::from_wide_pairs(0, directed, all)
    };
    Ok(Parsed {
        edges,
        declared_vertices,
    })
}

/// Splits off the next whitespace-separated token (spaces, tabs, carriage returns).
pub(crate) fn next_token(line: &[u8]) -> (&[u8], &[u8]) {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let rest = &line[start..];
    let end = rest
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    (&rest[..end], &rest[end..])
}

/// Parses an unsigned decimal id, naming the problem otherwise.
pub(crate) fn parse_id(token: &[u8], what: &str) -> std::result::Result<u64, String> {
    if token.is_empty() {
        return Err(format!("missing {what}"));
    }
    let mut value: u64 = 0;
    for &b in token {
        if !b.is_ascii_digit() {
            let shown = String::from_utf8_lossy(&token[..token.len().min(40)]);
            return Err(if token[0] == b'-' {
                format!("{what} {shown:?} is negative")
            } else {
                format!("{what} {shown:?} is not an unsigned integer")
            });
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add((b - b'0') as u64))
            .ok_or_else(|| {
                format!(
                    "{what} {} is larger than 2^64 - 1",
                    String::from_utf8_lossy(&token[..token.len().min(40)])
                )
            })?;
    }
    Ok(value)
}

/// Whether a token is a number (integer or decimal, optional sign and exponent).
pub(crate) fn is_number(token: &[u8]) -> bool {
    std::str::from_utf8(token).is_ok_and(|t| t.parse::<f64>().is_ok_and(|v| v.is_finite()))
}

fn parse_snap_line(line: &[u8]) -> std::result::Result<Line, String> {
    let (first, rest) = next_token(line);
    if first.is_empty() {
        return Ok(Line::Skip);
    }
    if first[0] == b'#' || first[0] == b'%' {
        return Ok(declared_nodes(line).map_or(Line::Skip, Line::Vertices));
    }
    let source = parse_id(first, "source vertex id")?;
    let (second, mut rest) = next_token(rest);
    let target = parse_id(second, "target vertex id")?;
    loop {
        let (extra, after) = next_token(rest);
        if extra.is_empty() {
            break;
        }
        if !is_number(extra) {
            return Err(format!(
                "unexpected {:?} after the edge (only numeric weight columns may follow)",
                String::from_utf8_lossy(extra)
            ));
        }
        rest = after;
    }
    Ok(Line::Edge(source, target))
}

/// The `N` of a SNAP `# Nodes: N ...` comment.
pub(crate) fn declared_nodes(line: &[u8]) -> Option<u64> {
    let at = line.windows(6).position(|w| w == b"Nodes:")?;
    let (token, _) = next_token(&line[at + 6..]);
    parse_id(token, "").ok()
}

/// Parses a SNAP edge list held in memory (`file` names it in errors). The vertex count is the
/// largest of the highest id + 1 and a `# Nodes: N` comment.
pub fn parse_edge_list(
    bytes: &[u8],
    file: &Path,
    directed: bool,
    runtime: &Runtime,
) -> Result<EdgeList> {
    let parsed = parse_lines(bytes, 1, file, directed, runtime, parse_snap_line)?;
    let mut edges = parsed.edges;
    let vertices = edges.vertices().max(parsed.declared_vertices);
    edges.set_vertices(vertices)?;
    Ok(edges)
}

/// Writes an edge-list file: a `# Directed|Undirected <kind>` title, a `# Nodes: N Edges: M`
/// line, the `extra` comment lines, then one line per row with its numbers joined by
/// `separator`. Shared by the plain and the weighted writers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_rows<const N: usize>(
    path: &Path,
    kind: &str,
    directed: bool,
    vertices: impl std::fmt::Display,
    edges: impl std::fmt::Display,
    extra: &[&str],
    separator: u8,
    rows: impl Iterator<Item = [u64; N]>,
) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| GraphError::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let write = || -> std::io::Result<()> {
        let direction = if directed { "Directed" } else { "Undirected" };
        writeln!(out, "# {direction} {kind} written by smartarrays-graph")?;
        writeln!(out, "# Nodes: {vertices} Edges: {edges}")?;
        for line in extra {
            writeln!(out, "# {line}")?;
        }
        let mut line = Vec::with_capacity(64);
        let mut numbers = itoa::Buffer::new();
        for row in rows {
            line.clear();
            for (i, value) in row.into_iter().enumerate() {
                if i > 0 {
                    line.push(separator);
                }
                line.extend_from_slice(numbers.format(value).as_bytes());
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        out.flush()
    };
    write().map_err(|e| GraphError::io(path, e))
}

/// Writes a graph as a SNAP edge list (an undirected edge once, as `u v` with `u <= v`).
pub fn write_edge_list(graph: &Graph, path: &Path) -> Result<()> {
    let directed = graph.is_directed();
    write_rows(
        path,
        "graph",
        directed,
        graph.vertices(),
        graph.edges(),
        &["FromNodeId\tToNodeId"],
        b'\t',
        graph
            .edge_iter()
            .filter(|&(s, t)| directed || s <= t)
            .map(|(s, t)| [s, t]),
    )
}

/// Writes an edge list (as given, no deduplication).
pub fn write_edges(edges: &EdgeList, path: &Path) -> Result<()> {
    write_rows(
        path,
        "graph",
        edges.is_directed(),
        edges.vertices(),
        edges.len(),
        &[],
        b'\t',
        edges.iter().map(|(s, t)| [s, t]),
    )
}
