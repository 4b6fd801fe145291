//! Times one kernel on a saved graph, for profiling without the CLI:
//! `cargo run --release -p smartarrays-graph --example time_kernels -- GRAPH.sag KERNEL [THREADS] [REPS] [SOURCE]`
//! with KERNEL one of bfs, cc, bc (from SOURCE), pr (Jacobi PageRank), pr-gs, pr-gs-f64
//! (Gauss-Seidel PageRank; both tolerance 1e-4, dangling rank dropped), tc (degree order),
//! tc-id, sssp (delta 1, weights generated from seed 1 at the edges' class). The layout is `SMARTARRAYS_VARIANT` (u, v or v+e; default u).
//! `SMARTARRAYS_ORDER=degree` relabels the graph by decreasing degree after the load (not
//! timed; the time is printed) and maps SOURCE, an input id, to its new id; sssp weights are
//! generated on the input graph and carried. Prints the median,
//! the fastest and the first run's seconds (the first pays for fresh memory, as each CLI run
//! does) and a checksum of the result.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::Runtime;
use smartarrays_graph::io::{load_graph, Format, TextOptions};
use smartarrays_graph::{
    bc, bfs, connected_components, pagerank, pagerank_gauss_seidel, reorder_by_degree,
    reorder_by_degree_weighted, sssp, tc, BcOptions, BcSources, Dangling, EdgeWeights,
    GraphOptions, PageRankOptions, Precision, SsspOptions, TcOrder, Variant,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: time_kernels GRAPH KERNEL [THREADS] [REPS] [SOURCE]".into());
    }
    let threads: usize = args.get(3).map_or(Ok(1), |t| t.parse())?;
    let reps: usize = args.get(4).map_or(Ok(5), |t| t.parse())?;
    let source: u64 = args.get(5).map_or(Ok(0), |t| t.parse())?;
    let runtime = Arc::new(Runtime::with_threads(threads)?);
    let variant = match std::env::var("SMARTARRAYS_VARIANT").as_deref() {
        Err(_) | Ok("u") => Variant::U,
        Ok("v") => Variant::V,
        Ok("v+e") => Variant::VE,
        Ok(other) => return Err(format!("unknown variant {other}: u, v or v+e").into()),
    };
    let options = GraphOptions::variant(variant).runtime(runtime);
    let graph = load_graph(
        Path::new(&args[1]),
        Format::Auto,
        &TextOptions::default(),
        &options,
    )?;
    let mut weights = if args[2] == "sssp" {
        Some(EdgeWeights::generate(&graph, 1, &options.edges)?)
    } else {
        None
    };
    let (graph, source) = match std::env::var("SMARTARRAYS_ORDER").as_deref() {
        Err(_) | Ok("input") => (graph, source),
        Ok("degree") => {
            let started = Instant::now();
            let (reordered, new_weights) = match &weights {
                Some(weights) => {
                    let (reordered, new) = reorder_by_degree_weighted(&graph, weights)?;
                    (reordered, Some(new))
                }
                None => (reorder_by_degree(&graph)?, None),
            };
            eprintln!(
                "reordered by degree in {:.3} s; source {source} is {}",
                started.elapsed().as_secs_f64(),
                reordered.ids.to_new(source)?
            );
            weights = new_weights;
            // The input graph is not needed any more: free it before the timed runs.
            drop(graph);
            let source = reordered.ids.to_new(source)?;
            (reordered.graph, source)
        }
        Ok(other) => return Err(format!("unknown order {other}: input or degree").into()),
    };
    let mut times = Vec::new();
    let mut check = 0u64;
    for _ in 0..reps {
        let started = Instant::now();
        check = match args[2].as_str() {
            "bfs" => {
                let result = bfs(&graph, source)?;
                result.reached * 1000 + result.depth
            }
            "cc" => {
                let result = connected_components(&graph)?;
                result.count * 1_000_000 + result.largest
            }
            "bc" => {
                let sources = BcOptions {
                    sources: BcSources::List(vec![source]),
                };
                let result = bc(&graph, &sources, |_, _| {})?;
                result.scores.to_vec().iter().sum::<f64>() as u64
            }
            "pr" => {
                let options = PageRankOptions {
                    tolerance: 1e-4,
                    dangling: Dangling::Drop,
                    max_iterations: 20,
                    ..PageRankOptions::default()
                };
                pagerank(&graph, &options, |_| {})?.summary.iterations as u64
            }
            "pr-gs" | "pr-gs-f64" => {
                let options = PageRankOptions {
                    tolerance: 1e-4,
                    dangling: Dangling::Drop,
                    max_iterations: 20,
                    contributions: if args[2] == "pr-gs" {
                        Precision::F32
                    } else {
                        Precision::F64
                    },
                    ..PageRankOptions::default()
                };
                pagerank_gauss_seidel(&graph, &options, |_| {})?
                    .summary
                    .iterations as u64
            }
            "sssp" => {
                let weights = weights.as_ref().ok_or("no weights")?;
                let result = sssp(&graph, weights, source, &SsspOptions::default(), |_, _| {})?;
                result.reached
            }
            "tc" => tc(&graph, TcOrder::Degree, |_, _| {})?,
            "tc-id" => tc(&graph, TcOrder::Id, |_, _| {})?,
            other => return Err(format!("unknown kernel {other}").into()),
        };
        times.push(started.elapsed().as_secs_f64());
    }
    let first = times[0];
    times.sort_by(f64::total_cmp);
    println!(
        "{} {:.5} s (min {:.5}, first {first:.5}) check {check}",
        args[2],
        times[times.len() / 2],
        times[0]
    );
    Ok(())
}
