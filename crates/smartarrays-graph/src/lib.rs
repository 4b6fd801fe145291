//! # smartarrays-graph
//!
//! Graph analytics on smart arrays (the paper's §5.2 use case): graphs in compressed sparse
//! row form whose arrays — `begin`/`edge`, and `rbegin`/`redge` for directed graphs — are
//! [`smartarrays::SmartArray`]s, each with its own placement and bit width, so the paper's
//! variants U (uncompressed), V (offsets and properties compressed) and V+E (edges too) are one
//! option away.
//!
//! - [`EdgeList`], [`build`]: parallel CSR construction (duplicates and self-loops kept or
//!   dropped, see [`GraphOptions`]); [`build_from_csr`] from CSR offset and target arrays.
//! - [`io`]: SNAP edge lists, Matrix Market coordinate files, and the checksummed binary format
//!   (documented in [`io::binary`]).
//! - [`generate`]: seeded uniform random graphs and Graph500 Kronecker (R-MAT) graphs.
//! - Algorithms: [`degree_centrality`] (and [`degree_centrality_into`], in place), [`pagerank`]
//!   (and [`pagerank_gauss_seidel`]), [`bfs`], [`connected_components`], [`sssp`]
//!   (delta-stepping, on [`EdgeWeights`]), [`bc`] (Brandes) and [`tc`] (triangles).
//! - [`reorder_by_degree`]: the graph relabelled by decreasing degree, with the [`VertexIds`]
//!   map that takes sources in and results back to the input's ids.
//! - [`WeightedEdges`], [`build_weighted`], [`EdgeWeights::generate`]: weighted graphs (weights
//!   loaded by [`io::read_weighted_edges`] or generated).
//!
//! # Example
//! ```
//! use smartarrays_graph::{build, generate, pagerank, GraphOptions, PageRankOptions, Variant};
//! let edges = generate::uniform(1000, 8, 42, true).unwrap();
//! let graph = build(edges, &GraphOptions::variant(Variant::VE)).unwrap();
//! assert_eq!(graph.edge().bits(), 10); // ids below 1000
//! let result = pagerank(&graph, &PageRankOptions::default(), |_| {}).unwrap();
//! assert!(result.summary.converged);
//! let total: f64 = result.ranks.to_vec().iter().sum();
//! assert!((total - 1.0).abs() < 1e-6); // f32 contributions by default: ranks to about 1e-7
//! println!("{}", graph.memory_report());
//! ```

mod access;
#[cfg(feature = "adapt")]
pub mod adaptive;
pub mod algo;
pub mod budget;
mod build;
mod degree_order;
mod edges;
mod error;
pub mod generate;
mod graph;
pub mod io;
mod options;
mod packed_run;
mod progress;
mod pull_x86;
mod reorder;
mod weights;

pub use algo::bc::{bc, BcOptions, BcResult, BcSources};
pub use algo::bfs::{bfs, BfsResult};
pub use algo::components::{connected_components, ComponentSummary, Components};
pub use algo::degree::{degree_centrality, degree_centrality_into};
pub use algo::pagerank::{
    pagerank, pagerank_gauss_seidel, CellOrder, Dangling, Iteration, PageRankOptions,
    PageRankResult, PageRankSummary, Precision, CELL_ORDER_ABOVE, F32_CHANGE_FLOOR,
};
pub use algo::sssp::{sssp, verify_sssp, SsspOptions, SsspResult};
pub use algo::tc::{tc, TcOrder};
pub use build::{build, build_from_csr};
pub use edges::EdgeList;
pub use error::{GraphError, Result};
pub use graph::{ArrayMemory, Csr, Graph, MemoryReport, VariantMemory};
pub use options::{ArrayClass, GraphOptions, Keep, Variant, Width};
pub use progress::{Progress, ProgressReporter, Stage};
pub use reorder::{relabel, reorder_by_degree, reorder_by_degree_weighted, Reordered, VertexIds};
pub use weights::{build_weighted, generated_weight, EdgeWeights, WeightedEdges};

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
