//! Matrix Market coordinate files as graphs: the banner `%%MatrixMarket matrix coordinate
//! <field> <symmetry>`, `%` comments, the size line `rows columns entries`, then one `i j
//! [value...]` line per entry with 1-based indices. Entry `(i, j)` becomes edge `i-1 -> j-1`;
//! values are ignored. `general` matrices give directed graphs; `symmetric`, `skew-symmetric`
//! and `hermitian` ones give undirected graphs. The vertex count is `max(rows, columns)`.

use std::io::Write;
use std::path::Path;

use smartarrays::Runtime;

use super::text::{is_number, next_token, parse_id, parse_lines, Line};
use crate::error::{GraphError, Result};
use crate::{EdgeList, Graph};

/// Parses a Matrix Market coordinate file held in memory (`file` names it in errors).
pub fn parse_matrix_market(bytes: &[u8], file: &Path, runtime: &Runtime) -> Result<EdgeList> {
    let error = |line: u64, problem: String| GraphError::Parse {
        file: file.to_path_buf(),
        line,
        problem,
    };
    let mut position = 0usize;
    let mut line_number = 0u64;
    let mut next_line = |position: &mut usize| -> Option<&[u8]> {
        if *position >= bytes.len() {
            return None;
        }
        let rest = &bytes[*position..];
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        *position += (end + 1).min(rest.len());
        line_number += 1;
        Some(&rest[..end])
    };
    let banner = next_line(&mut position)
        .ok_or_else(|| error(1, "empty file: expected a %%MatrixMarket banner".into()))?;
    let banner_text = String::from_utf8_lossy(banner).to_ascii_lowercase();
    let words: Vec<&str> = banner_text.split_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") {
        return Err(error(1, "expected a %%MatrixMarket banner".into()));
    }
    if words.len() != 5 {
        return Err(error(
            1,
            format!("the banner has {} words; expected %%MatrixMarket matrix coordinate <field> <symmetry>", words.len()),
        ));
    }
    if words[1] != "matrix" {
        return Err(error(
            1,
            format!("object {:?} is not supported (only matrix)", words[1]),
        ));
    }
    if words[2] != "coordinate" {
        return Err(error(
            1,
            format!(
                "format {:?} is not supported (only coordinate; a dense array is not a graph)",
                words[2]
            ),
        ));
    }
    let values = match words[3] {
        "pattern" => 0,
        "real" | "integer" | "double" => 1,
        "complex" => 2,
        other => {
            return Err(error(
                1,
                format!("field {other:?} is not pattern, real, integer or complex"),
            ))
        }
    };
    let directed = match words[4] {
        "general" => true,
        "symmetric" | "skew-symmetric" | "hermitian" => false,
        other => {
            return Err(error(
                1,
                format!(
                    "symmetry {other:?} is not general, symmetric, skew-symmetric or hermitian"
                ),
            ))
        }
    };
    let (rows, columns, entries) = loop {
        let Some(line) = next_line(&mut position) else {
            return Err(error(
                line_number + 1,
                "missing the size line (rows columns entries)".into(),
            ));
        };
        let (first, _) = next_token(line);
        if first.is_empty() || first[0] == b'%' {
            continue;
        }
        let mut numbers = [0u64; 3];
        let mut rest = line;
        for (slot, what) in numbers
            .iter_mut()
            .zip(["row count", "column count", "entry count"])
        {
            let (token, after) = next_token(rest);
            *slot = parse_id(token, what).map_err(|p| error(line_number, p))?;
            rest = after;
        }
        if !next_token(rest).0.is_empty() {
            return Err(error(
                line_number,
                "the size line has more than three numbers".into(),
            ));
        }
        let vertices = u128::from(numbers[0].max(numbers[1]));
        crate::budget::check_graph(vertices, u128::from(numbers[2]))
            .map_err(|p| error(line_number, format!("the size line asks too much: {p}")))?;
        break (numbers[0], numbers[1], numbers[2]);
    };
    let first_entry_line = line_number + 1;
    let body = &bytes[position.min(bytes.len())..];
    let parsed = parse_lines(body, first_entry_line, file, directed, runtime, |line| {
        let (first, rest) = next_token(line);
        if first.is_empty() || first[0] == b'%' {
            return Ok(Line::Skip);
        }
        let i = parse_id(first, "row index")?;
        let (second, mut rest) = next_token(rest);
        let j = parse_id(second, "column index")?;
        if i == 0 || i > rows {
            return Err(format!("row index {i} is outside 1..={rows}"));
        }
        if j == 0 || j > columns {
            return Err(format!("column index {j} is outside 1..={columns}"));
        }
        for _ in 0..values {
            let (value, after) = next_token(rest);
            if !is_number(value) {
                return Err(format!(
                    "expected a numeric value, found {:?}",
                    String::from_utf8_lossy(value)
                ));
            }
            rest = after;
        }
        if !next_token(rest).0.is_empty() {
            return Err("too many columns for the declared field".to_string());
        }
        Ok(Line::Edge(i - 1, j - 1))
    })?;
    let mut edges = parsed.edges;
    if edges.len() as u64 != entries {
        let lines = first_entry_line + body.iter().filter(|&&b| b == b'\n').count() as u64;
        return Err(error(
            lines,
            format!(
                "the size line declares {entries} entries but the file has {}",
                edges.len()
            ),
        ));
    }
    edges.set_vertices(rows.max(columns))?;
    Ok(edges)
}

/// Writes a graph as a Matrix Market `pattern` file (`general` when directed, else
/// `symmetric` with each edge once, in the lower triangle).
pub fn write_matrix_market(graph: &Graph, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| GraphError::io(path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let write = |out: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
        let symmetry = if graph.is_directed() {
            "general"
        } else {
            "symmetric"
        };
        writeln!(out, "%%MatrixMarket matrix coordinate pattern {symmetry}")?;
        writeln!(out, "% written by smartarrays-graph")?;
        writeln!(
            out,
            "{} {} {}",
            graph.vertices(),
            graph.vertices(),
            graph.edges()
        )?;
        let mut numbers = itoa::Buffer::new();
        let mut line = Vec::with_capacity(48);
        for (s, t) in graph.edge_iter() {
            let (row, column) = if graph.is_directed() {
                (s, t)
            } else {
                (s.max(t), s.min(t))
            };
            if !graph.is_directed() && s > t {
                continue;
            }
            line.clear();
            line.extend_from_slice(numbers.format(row + 1).as_bytes());
            line.push(b' ');
            line.extend_from_slice(numbers.format(column + 1).as_bytes());
            line.push(b'\n');
            out.write_all(&line)?;
        }
        out.flush()
    };
    write(&mut out).map_err(|e| GraphError::io(path, e))
}
