//! The baseline of the graph benchmarks (`smartarrays graph bench`): a plain Rust CSR
//! (`Vec<u64>` offsets, `Vec<u32>` ids, `Vec` properties) running the graph crate's own kernels
//! (through the hooks of [`smartarrays_graph::algo::pagerank`]) on the same runtime, so that
//! smart arrays are compared with ordinary vectors in the same run.

use smartarrays::{Runtime, SmartArray};
use smartarrays_graph::algo::pagerank::{
    self, Contribution, PageRankOptions, PageRankSummary, Precision, RankState,
};
use smartarrays_graph::{Graph, GraphError, Result};

/// Vertices per parallel batch of the plain degree centrality (smart arrays use the core's
/// batch).
pub const DEGREE_BATCH: usize = 1 << 16;

/// A CSR graph in plain vectors.
#[derive(Clone, Debug)]
pub struct PlainGraph {
    vertices: usize,
    directed: bool,
    out_offsets: Vec<u64>,
    out_targets: Vec<u32>,
    in_offsets: Vec<u64>,
    in_targets: Vec<u32>,
    out_degrees: Vec<u32>,
}

impl PlainGraph {
    /// Copies a graph into plain vectors (vertex ids must fit in 32 bits).
    pub fn from_graph(graph: &Graph) -> Result<PlainGraph> {
        if graph.vertices() as u64 > u32::MAX as u64 + 1 {
            return Err(GraphError::InvalidArgument(
                "the plain baseline holds 32-bit vertex ids only".into(),
            ));
        }
        let narrow = |array: &SmartArray| array.iter().map(|v| v as u32).collect::<Vec<u32>>();
        let out_offsets = graph.begin().to_vec();
        let out_degrees = out_offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as u32)
            .collect();
        let (in_offsets, in_targets) = if graph.is_directed() {
            (graph.rbegin().to_vec(), narrow(graph.redge()))
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(PlainGraph {
            vertices: graph.vertices(),
            directed: graph.is_directed(),
            out_offsets,
            out_targets: narrow(graph.edge()),
            in_offsets,
            in_targets,
            out_degrees,
        })
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// Bytes of the graph's vectors (offsets and ids, both directions).
    pub fn graph_bytes(&self) -> usize {
        (self.out_offsets.len() + self.in_offsets.len()) * 8
            + (self.out_targets.len() + self.in_targets.len()) * 4
    }

    fn incoming(&self) -> (&[u64], &[u32]) {
        if self.directed {
            (&self.in_offsets, &self.in_targets)
        } else {
            (&self.out_offsets, &self.out_targets)
        }
    }

    /// Degree centrality (out + in, or the degree when undirected) into a `Vec<u32>`.
    pub fn degree_centrality(&self, runtime: &Runtime) -> Vec<u32> {
        let mut out = vec![0u32; self.vertices];
        self.degree_centrality_into(runtime, &mut out);
        out
    }

    /// Degree centrality written into `out` (one value per vertex; a shorter or longer slice
    /// is written up to the shorter of the two lengths).
    pub fn degree_centrality_into(&self, runtime: &Runtime, out: &mut [u32]) {
        let len = out.len().min(self.vertices);
        let (out_offsets, in_offsets) = (&self.out_offsets, &self.incoming().0);
        let directed = self.directed;
        runtime.map_reduce_mut(
            &mut out[..len],
            DEGREE_BATCH,
            || (),
            |(), _, range, values| {
                let forward = &out_offsets[range.start..range.end + 1];
                if directed {
                    let reverse = &in_offsets[range.start..range.end + 1];
                    for ((value, f), r) in values
                        .iter_mut()
                        .zip(forward.windows(2))
                        .zip(reverse.windows(2))
                    {
                        *value = ((f[1] - f[0]) + (r[1] - r[0])) as u32;
                    }
                } else {
                    for (value, f) in values.iter_mut().zip(forward.windows(2)) {
                        *value = (f[1] - f[0]) as u32;
                    }
                }
            },
            |(), ()| (),
        );
    }

    /// PageRank with the same kernels as [`smartarrays_graph::pagerank`] (contributions in the precision
    /// the options ask for); returns the ranks and summary.
    pub fn pagerank(
        &self,
        options: &PageRankOptions,
        runtime: &Runtime,
    ) -> Result<(Vec<f64>, PageRankSummary)> {
        options.check()?;
        let n = self.vertices;
        let mut summary = pagerank::start_summary(n);
        let ranks = vec![1.0 / n.max(1) as f64; n];
        let mut ranks = match options.contributions {
            Precision::F64 => self.run::<f64>(ranks, options, runtime, &mut summary),
            Precision::F32 => self.run::<f32>(ranks, options, runtime, &mut summary),
        };
        if pagerank::continue_in_f64(options.contributions, &mut summary, options) {
            ranks = self.run::<f64>(ranks, options, runtime, &mut summary);
        }
        Ok((ranks, summary))
    }

    fn run<C: Contribution>(
        &self,
        ranks: Vec<f64>,
        options: &PageRankOptions,
        runtime: &Runtime,
        summary: &mut PageRankSummary,
    ) -> Vec<f64> {
        let n = self.vertices;
        let mut state = PlainRanks::<C> {
            graph: self,
            runtime,
            ranks,
            contributions: vec![C::default(); n],
        };
        pagerank::iterate(&mut state, n, options, C::PRECISION, summary, &mut |_| {});
        state.ranks
    }
}

struct PlainRanks<'g, C> {
    graph: &'g PlainGraph,
    runtime: &'g Runtime,
    ranks: Vec<f64>,
    contributions: Vec<C>,
}

impl<C: Contribution> RankState for PlainRanks<'_, C> {
    fn spread(&mut self) -> f64 {
        let (ranks, degrees) = (&self.ranks, &self.graph.out_degrees);
        self.runtime.map_reduce_mut(
            &mut self.contributions,
            pagerank::BATCH,
            || 0.0,
            |dangling, _, range, out| {
                dangling + pagerank::contributions(&degrees[range.clone()], &ranks[range], out)
            },
            |a, b| a + b,
        )
    }

    fn pull(&mut self, base: f64, damping: f64) -> f64 {
        let contributions = &self.contributions[..];
        let (offsets, targets) = self.graph.incoming();
        self.runtime.map_reduce_mut(
            &mut self.ranks,
            pagerank::BATCH,
            || 0.0,
            |change, _, range, values| {
                let offsets = &offsets[range.start..range.end + 1];
                change + pagerank::pull_ids(targets, offsets, contributions, values, base, damping)
            },
            |a, b| a + b,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartarrays_graph::{
        build, degree_centrality, generate, pagerank, GraphOptions, Keep, Variant,
    };

    #[test]
    fn plain_baseline_agrees_with_smart_arrays() {
        let edges = generate::kronecker(10, 8, 11, true).unwrap();
        let graph = build(
            edges,
            &GraphOptions::variant(Variant::VE).duplicates(Keep::Drop),
        )
        .unwrap();
        let plain = PlainGraph::from_graph(&graph).unwrap();
        let runtime = graph.runtime().clone();
        let degrees: Vec<u64> = plain
            .degree_centrality(&runtime)
            .into_iter()
            .map(u64::from)
            .collect();
        assert_eq!(degrees, degree_centrality(&graph).unwrap().to_vec());
        let mut into = vec![7u32; graph.vertices()];
        plain.degree_centrality_into(&runtime, &mut into);
        assert_eq!(
            into.iter().map(|&d| u64::from(d)).collect::<Vec<_>>(),
            degrees
        );
        for contributions in [Precision::F64, Precision::F32] {
            let options = PageRankOptions {
                tolerance: 1e-10,
                contributions,
                ..Default::default()
            };
            let (ranks, summary) = plain.pagerank(&options, &runtime).unwrap();
            let smart = pagerank(&graph, &options, |_| {}).unwrap();
            assert_eq!(summary.iterations, smart.summary.iterations);
            for (a, b) in ranks.iter().zip(smart.ranks.to_vec()) {
                assert!((a - b).abs() < 1e-12, "{contributions}: {a} vs {b}");
            }
        }
    }
}
