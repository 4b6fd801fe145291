//! The storage arguments of every `graph` subcommand turned into graph options (variant,
//! placement and width per array class, duplicates, self-loops, threads, progress bars), and a
//! graph loaded with them.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::{Placement, Runtime};
use smartarrays_graph::io::{self, Format, TextOptions};
use smartarrays_graph::{
    build_weighted, reorder_by_degree, reorder_by_degree_weighted, EdgeWeights, Graph,
    GraphOptions, Keep, Progress, Variant, VertexIds, Width,
};

use super::{CliResult, OrderArgs, StorageArgs, WeightArgs};

impl OrderArgs {
    /// Whether the degree order is asked for (an unknown order is an error).
    pub(super) fn by_degree(&self) -> CliResult<bool> {
        by_degree(&self.vertex_order)
    }

    /// `graph` in the asked order: as it is, or relabelled by degree (the input graph freed),
    /// with the id map; says on stderr how long the relabelling took.
    pub(super) fn apply(&self, graph: Graph) -> CliResult<(Graph, Option<VertexIds>)> {
        if !self.by_degree()? {
            return Ok((graph, None));
        }
        let started = Instant::now();
        let reordered = reorder_by_degree(&graph)?;
        drop(graph);
        note_reordered(started);
        Ok((reordered.graph, Some(reordered.ids)))
    }

    /// [`OrderArgs::apply`] for a graph and its weights (each weight follows its edge).
    pub(super) fn apply_weighted(
        &self,
        graph: Graph,
        weights: EdgeWeights,
    ) -> CliResult<(Graph, EdgeWeights, Option<VertexIds>)> {
        if !self.by_degree()? {
            return Ok((graph, weights, None));
        }
        let started = Instant::now();
        let (reordered, weights) = reorder_by_degree_weighted(&graph, &weights)?;
        drop(graph);
        note_reordered(started);
        Ok((reordered.graph, weights, Some(reordered.ids)))
    }
}

/// Whether `order` (a `--vertex-order` value) is `degree`.
pub(super) fn by_degree(order: &str) -> CliResult<bool> {
    match order {
        "input" => Ok(false),
        "degree" => Ok(true),
        other => Err(format!("--vertex-order {other:?}: expected input or degree").into()),
    }
}

fn note_reordered(started: Instant) {
    eprintln!(
        "relabelled by degree in {:.3} s; vertex ids in results are the input's",
        started.elapsed().as_secs_f64()
    );
}

/// `values` of a relabelled graph back in the input's order (unchanged without a map).
pub(super) fn to_input<T: Copy>(ids: Option<&VertexIds>, values: Vec<T>) -> CliResult<Vec<T>> {
    Ok(match ids {
        Some(ids) => ids.results_to_original(&values)?,
        None => values,
    })
}

/// An input vertex id in the graph's ids.
pub(super) fn to_graph(ids: Option<&VertexIds>, v: u64) -> CliResult<u64> {
    Ok(match ids {
        Some(ids) => ids.to_new(v)?,
        None => v,
    })
}

impl StorageArgs {
    pub(super) fn options(&self) -> CliResult<GraphOptions> {
        let mut options = GraphOptions::variant(self.variant.parse::<Variant>()?);
        if let Some(p) = &self.placement {
            options = options.placement(p.parse::<Placement>()?);
        }
        for (value, class) in [
            (&self.offsets_placement, &mut options.offsets),
            (&self.edges_placement, &mut options.edges),
            (&self.properties_placement, &mut options.properties),
        ] {
            if let Some(p) = value {
                class.placement = p.parse::<Placement>()?;
            }
        }
        for (value, class) in [
            (&self.offsets_bits, &mut options.offsets),
            (&self.edges_bits, &mut options.edges),
            (&self.properties_bits, &mut options.properties),
        ] {
            if let Some(w) = value {
                class.width = w.parse::<Width>()?;
            }
        }
        options.duplicates = self.duplicates.parse::<Keep>()?;
        options.self_loops = self.self_loops.parse::<Keep>()?;
        if let Some(bars) = crate::bars::Bars::for_terminal(!self.no_progress) {
            options = options.progress_reporter(bars);
        }
        let runtime = match self.threads {
            Some(threads) => Arc::new(Runtime::with_threads(threads)?),
            None => Runtime::global()?,
        };
        Ok(options.runtime(runtime))
    }

    pub(super) fn text(&self) -> TextOptions {
        TextOptions {
            undirected: self.undirected,
            vertices: self.vertices,
        }
    }

    pub(super) fn load(&self, input: &Path) -> CliResult<(Graph, f64)> {
        let options = self.options()?;
        let started = Instant::now();
        let graph = io::load_graph(
            input,
            self.input_format.parse::<Format>()?,
            &self.text(),
            &options,
        )?;
        Ok((graph, started.elapsed().as_secs_f64()))
    }
}

impl StorageArgs {
    /// Progress bars for an analysis's own stages (none off a terminal or with --no-progress).
    pub(super) fn progress(&self) -> Progress {
        Progress::new(crate::bars::Bars::for_terminal(!self.no_progress))
    }

    /// A graph and its edge weights: read from a weighted edge list (with --weighted, or a
    /// `.wel` file), else the graph loaded as usual with the weights a `.sag` file holds, or
    /// weights generated from the seed when it holds none.
    pub(super) fn load_weighted(
        &self,
        input: &Path,
        weights: &WeightArgs,
    ) -> CliResult<(Graph, EdgeWeights, f64)> {
        let options = self.options()?;
        let started = Instant::now();
        let from_file = weights.weighted
            || input
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("wel"));
        if from_file {
            let edges = io::read_weighted_edges(input, !self.undirected, self.vertices)?;
            let (graph, weights) = build_weighted(edges, &options)?;
            return Ok((graph, weights, started.elapsed().as_secs_f64()));
        }
        let (graph, stored) = io::load_graph_weighted(
            input,
            self.input_format.parse::<Format>()?,
            &self.text(),
            &options,
        )?;
        let weights = match stored {
            Some(stored) => stored,
            None => EdgeWeights::generate(&graph, weights.weight_seed, &options.edges)?,
        };
        Ok((graph, weights, started.elapsed().as_secs_f64()))
    }
}
