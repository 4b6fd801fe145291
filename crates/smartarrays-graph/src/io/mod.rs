//! Reading and writing graphs: SNAP edge lists ([`text`]), Matrix Market coordinate files
//! ([`mtx`]) and the binary format ([`binary`]); [`load_graph`] picks the reader from the
//! file's first bytes or extension. Loads either return a complete graph or an error; nothing
//! half-built is ever handed out.

pub mod binary;
pub mod mtx;
pub mod text;
pub mod weighted;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

pub use binary::{
    load_binary, load_binary_weighted, parse_binary, parse_binary_weighted, save_binary,
    save_binary_weighted,
};
pub use mtx::{parse_matrix_market, write_matrix_market};
pub use text::{parse_edge_list, write_edge_list, write_edges};
pub use weighted::{parse_weighted_edge_list, read_weighted_edges, write_weighted_edge_list};

use crate::error::{GraphError, Result};
use crate::{build, EdgeList, EdgeWeights, Graph, GraphOptions};

/// File formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Format {
    /// Decide from the first bytes, then the extension (`.mtx`, `.sag`), else an edge list.
    #[default]
    Auto,
    /// Whitespace edge list (SNAP).
    EdgeList,
    /// Matrix Market coordinate.
    MatrixMarket,
    /// The binary format.
    Binary,
}

impl FromStr for Format {
    type Err = GraphError;

    fn from_str(text: &str) -> Result<Format> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Format::Auto),
            "snap" | "edgelist" | "edge-list" | "el" | "txt" => Ok(Format::EdgeList),
            "mtx" | "matrix-market" | "mm" => Ok(Format::MatrixMarket),
            "binary" | "sag" | "bin" => Ok(Format::Binary),
            _ => Err(GraphError::InvalidArgument(format!(
                "format {text:?}: expected auto, snap, mtx or binary"
            ))),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Auto => "auto",
            Format::EdgeList => "snap",
            Format::MatrixMarket => "mtx",
            Format::Binary => "binary",
        })
    }
}

/// Settings for text inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    /// Edge lists: treat edges as undirected (Matrix Market files say it themselves).
    pub undirected: bool,
    /// Declare at least this many vertices (for isolated vertices past the highest id).
    pub vertices: Option<u64>,
}

/// The format of `path`: from its first bytes, else its extension, else an edge list.
pub fn detect_format(path: &Path, first_bytes: &[u8]) -> Format {
    if first_bytes.starts_with(binary::MAGIC) {
        return Format::Binary;
    }
    if first_bytes.len() >= 14 && first_bytes[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Format::MatrixMarket;
    }
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
        Some("mtx") => Format::MatrixMarket,
        Some("sag") => Format::Binary,
        _ => Format::EdgeList,
    }
}

fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    let file = std::fs::File::open(path).map_err(|e| GraphError::io(path, e))?;
    // SAFETY: a read-only private mapping read only during this load; see `binary::load_binary`.
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| GraphError::io(path, e))
}

fn with_bytes<R>(path: &Path, task: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
    let empty = std::fs::metadata(path)
        .map_err(|e| GraphError::io(path, e))?
        .len()
        == 0;
    if empty {
        return task(&[]);
    }
    match map_file(path) {
        Ok(map) => task(&map),
        Err(_) => task(&std::fs::read(path).map_err(|e| GraphError::io(path, e))?),
    }
}

/// Reads an edge list or Matrix Market file into an [`EdgeList`].
pub fn read_edges(
    path: &Path,
    format: Format,
    text: &TextOptions,
    options: &GraphOptions,
) -> Result<EdgeList> {
    let runtime = options.resolve_runtime()?;
    with_bytes(path, |bytes| {
        let format = if format == Format::Auto {
            detect_format(path, &bytes[..bytes.len().min(64)])
        } else {
            format
        };
        let mut edges = match format {
            Format::MatrixMarket => parse_matrix_market(bytes, path, &runtime)?,
            Format::Binary => {
                return Err(GraphError::format(
                    path,
                    "a binary graph holds a built graph, not an edge list",
                ))
            }
            _ => {
                let mut edges = parse_edge_list(bytes, path, true, &runtime)?;
                edges.set_directed(!text.undirected);
                edges
            }
        };
        if let Some(vertices) = text.vertices {
            let vertices = vertices.max(edges.vertices());
            edges.set_vertices(vertices)?;
        }
        Ok(edges)
    })
}

/// Loads a graph from any supported file: binary files directly, text files parsed and built.
pub fn load_graph(
    path: &Path,
    format: Format,
    text: &TextOptions,
    options: &GraphOptions,
) -> Result<Graph> {
    match resolve_format(path, format)? {
        Format::Binary => load_binary(path, options),
        format => build(read_edges(path, format, text, options)?, options),
    }
}

/// Loads a graph as [`load_graph`] does, with its edge weights when the file holds them (a
/// binary file saved by [`save_binary_weighted`]); other files give `None`.
pub fn load_graph_weighted(
    path: &Path,
    format: Format,
    text: &TextOptions,
    options: &GraphOptions,
) -> Result<(Graph, Option<EdgeWeights>)> {
    match resolve_format(path, format)? {
        Format::Binary => load_binary_weighted(path, options),
        format => Ok((
            build(read_edges(path, format, text, options)?, options)?,
            None,
        )),
    }
}

/// Whether `path` names a weighted edge list (extension `.wel`, any case).
pub fn is_weighted_edge_list(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("wel"))
}

/// Loads a graph file with its edge weights when it holds them: a `.wel` file as a weighted
/// edge list (`source target weight` lines; directed unless `text.undirected`), a binary file
/// saved with weights with them, any other file as [`load_graph`] reads it, without weights.
pub fn load_graph_with_weights(
    path: &Path,
    text: &TextOptions,
    options: &GraphOptions,
) -> Result<(Graph, Option<EdgeWeights>)> {
    if is_weighted_edge_list(path) {
        let edges = read_weighted_edges(path, !text.undirected, text.vertices)?;
        let (graph, weights) = crate::weights::build_weighted(edges, options)?;
        return Ok((graph, Some(weights)));
    }
    load_graph_weighted(path, Format::Auto, text, options)
}

/// Saves a graph in the format its extension names, as [`save_graph`] does, with its weights
/// in a binary (`.sag`) or weighted edge list (`.wel`) file when it has them (other formats
/// have no place for them). A `.wel` file of a graph without weights is an
/// [`GraphError::InvalidArgument`].
pub fn save_graph_with_weights(
    graph: &Graph,
    weights: Option<&EdgeWeights>,
    path: &Path,
) -> Result<()> {
    let wel = is_weighted_edge_list(path);
    match weights {
        Some(weights) if wel => write_weighted_edge_list(graph, weights, path),
        Some(weights) if detect_format(path, &[]) == Format::Binary => {
            save_binary_weighted(graph, weights, path)
        }
        None if wel => Err(GraphError::InvalidArgument(format!(
            "{} is a weighted edge list (.wel), but the graph has no edge weights: give it \
             weights first (with the edges, or generated from a seed)",
            path.display()
        ))),
        _ => save_graph(graph, path, Format::Auto),
    }
}

/// `format`, or with [`Format::Auto`] the format detected from the file's first bytes.
fn resolve_format(path: &Path, format: Format) -> Result<Format> {
    Ok(if format == Format::Auto {
        let mut first = [0u8; 64];
        let read = {
            use std::io::Read;
            let mut file = std::fs::File::open(path).map_err(|e| GraphError::io(path, e))?;
            file.read(&mut first).map_err(|e| GraphError::io(path, e))?
        };
        detect_format(path, &first[..read])
    } else {
        format
    })
}

/// Saves a graph in the format chosen by `format` (or by the extension with
/// [`Format::Auto`]: `.sag` binary, `.mtx` Matrix Market, else an edge list).
pub fn save_graph(graph: &Graph, path: &Path, format: Format) -> Result<()> {
    let format = if format == Format::Auto {
        detect_format(path, &[])
    } else {
        format
    };
    match format {
        Format::Binary => save_binary(graph, path),
        Format::MatrixMarket => write_matrix_market(graph, path),
        _ => write_edge_list(graph, path),
    }
}
