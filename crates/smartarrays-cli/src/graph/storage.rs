//! The storage arguments of every `graph` subcommand turned into graph options (variant,
//! placement and width per array class, duplicates, self-loops, threads, progress bars), and a
//! graph loaded with them.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::{Placement, Runtime};
use smartarrays_graph::io::{self, Format, TextOptions};
use smartarrays_graph::{
    build_weighted, EdgeWeights, Graph, GraphOptions, Keep, Progress, Variant, Width,
};

use super::{CliResult, StorageArgs, WeightArgs};

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
