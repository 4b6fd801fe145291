//! Graph algorithms on the project's runtime: degree centrality, PageRank, BFS and weakly
//! connected components. Each reads the CSR arrays through `crate::access` and returns smart
//! arrays placed and sized like the graph's vertex properties.

pub mod bfs;
pub mod components;
pub mod degree;
pub mod pagerank;
