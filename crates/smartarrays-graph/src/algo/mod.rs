//! Graph algorithms on the project's runtime: degree centrality, PageRank (Jacobi and
//! Gauss-Seidel), BFS, weakly connected components, single-source shortest paths
//! (delta-stepping), betweenness centrality (Brandes) and triangle counting. Each reads the CSR
//! arrays through `crate::access` and returns smart arrays placed and sized like the graph's
//! vertex properties (or a count).

pub mod bc;
pub mod bfs;
mod cells;
pub mod components;
pub mod degree;
pub mod pagerank;
pub mod sssp;
pub mod tc;
