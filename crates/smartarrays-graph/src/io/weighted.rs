//! Weighted edge lists: one `source target weight` triple per line (the layout of the `.wel`
//! files of common graph suites), separated by spaces or tabs; ids are 0-based unsigned
//! integers and weights unsigned integers below 2^32. Lines starting with `#` or `%` and blank
//! lines are comments, and a `Nodes: N` comment declares `N` vertices. A malformed line is an
//! error naming its line: a missing or negative weight, a fractional one, extra columns.
//! [`write_weighted_edge_list`] writes a graph and its weights in the same form.

use std::path::Path;

use crate::error::{GraphError, Result};
use crate::io::text::{declared_nodes, next_token, parse_id, write_rows};
use crate::{EdgeWeights, Graph, WeightedEdges};

fn parse_weight(token: &[u8]) -> std::result::Result<u32, String> {
    if token.is_empty() {
        return Err("missing weight (expected `source target weight`)".into());
    }
    let shown = String::from_utf8_lossy(&token[..token.len().min(40)]).into_owned();
    if token[0] == b'-' {
        return Err(format!("weight {shown:?} is negative"));
    }
    if !token.iter().all(u8::is_ascii_digit) {
        return Err(format!("weight {shown:?} is not an unsigned integer"));
    }
    let value = parse_id(token, "weight")?;
    u32::try_from(value).map_err(|_| format!("weight {shown} is larger than 2^32 - 1"))
}

/// Parses a weighted edge list held in memory (`file` names it in errors). The vertex count is
/// the largest of the highest id + 1 and a `# Nodes: N` comment.
///
/// # Example
/// ```
/// use std::path::Path;
/// use smartarrays_graph::io::parse_weighted_edge_list;
/// let edges = parse_weighted_edge_list(b"0 1 5\n1 2 7\n", Path::new("g.wel"), true).unwrap();
/// assert_eq!(edges.weights(), &[5, 7]);
/// let error = parse_weighted_edge_list(b"0 1 5\n1 2 -7\n", Path::new("g.wel"), true).unwrap_err();
/// assert_eq!(error.to_string(), "g.wel:2: weight \"-7\" is negative");
/// ```
pub fn parse_weighted_edge_list(
    bytes: &[u8],
    file: &Path,
    directed: bool,
) -> Result<WeightedEdges> {
    let id_limit = crate::budget::vertex_id_limit();
    let mut edges = WeightedEdges::new(directed);
    let mut declared = 0u64;
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let fail = |problem: String| GraphError::Parse {
            file: file.to_path_buf(),
            line: index as u64 + 1,
            problem,
        };
        let (first, rest) = next_token(line);
        if first.is_empty() {
            continue;
        }
        if first[0] == b'#' || first[0] == b'%' {
            if let Some(n) = declared_nodes(line) {
                if n > id_limit {
                    return Err(fail(format!("the declared vertex count {n} is too large")));
                }
                declared = declared.max(n);
            }
            continue;
        }
        let source = parse_id(first, "source vertex id").map_err(fail)?;
        let (second, rest) = next_token(rest);
        let target = parse_id(second, "target vertex id").map_err(fail)?;
        let (third, rest) = next_token(rest);
        let weight = parse_weight(third).map_err(fail)?;
        let (extra, _) = next_token(rest);
        if !extra.is_empty() {
            return Err(fail(format!(
                "unexpected {:?} after the weight (expected `source target weight`)",
                String::from_utf8_lossy(&extra[..extra.len().min(40)])
            )));
        }
        if let Some(problem) = crate::budget::check_vertex_id(source.max(target), id_limit) {
            return Err(fail(problem));
        }
        edges.push(source, target, weight);
    }
    let vertices = edges.edges().vertices().max(declared);
    edges.edges_mut().set_vertices(vertices)?;
    Ok(edges)
}

/// Reads a weighted edge list file (see [`parse_weighted_edge_list`]); `vertices` declares at
/// least that many vertices.
pub fn read_weighted_edges(
    path: &Path,
    directed: bool,
    vertices: Option<u64>,
) -> Result<WeightedEdges> {
    let bytes = std::fs::read(path).map_err(|e| GraphError::io(path, e))?;
    let mut edges = parse_weighted_edge_list(&bytes, path, directed)?;
    if let Some(vertices) = vertices {
        let vertices = vertices.max(edges.edges().vertices());
        edges.edges_mut().set_vertices(vertices)?;
    }
    Ok(edges)
}

/// Writes a graph and its weights as a weighted edge list (`u v w` lines; an undirected edge
/// once, with `u <= v`).
pub fn write_weighted_edge_list(graph: &Graph, weights: &EdgeWeights, path: &Path) -> Result<()> {
    weights.check(graph)?;
    let directed = graph.is_directed();
    write_rows(
        path,
        "weighted graph",
        directed,
        graph.vertices(),
        graph.edges(),
        &[],
        b' ',
        graph
            .edge_iter()
            .zip(weights.array().iter())
            .filter(|&((s, t), _)| directed || s <= t)
            .map(|((s, t), w)| [s, t, w]),
    )
}
