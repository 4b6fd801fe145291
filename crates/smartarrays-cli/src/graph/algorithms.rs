//! The analyses: `graph degree`, `graph pagerank` (with per-iteration progress), `graph bfs`
//! and `graph components`, each timed and printed through [`super::report::emit`].

use std::io::IsTerminal;
use std::time::Instant;

use serde_json::json;
use smartarrays_graph::{
    bfs, connected_components, degree_centrality, pagerank, pagerank_gauss_seidel, CellOrder,
    Dangling, PageRankOptions, Precision,
};

use super::report::{emit, graph_json, order_json};
use super::storage::{to_graph, to_input};
use super::{BfsArgs, CliResult, CommonArgs, PageRankArgs};

pub(super) fn run_degree(args: &CommonArgs) -> CliResult {
    let (graph, load) = args.storage.load(&args.input)?;
    let (graph, ids) = args.order.apply(graph)?;
    let started = Instant::now();
    let degrees = degree_centrality(&graph)?;
    let seconds = started.elapsed().as_secs_f64();
    let values: Vec<Option<u64>> = to_input(ids.as_ref(), degrees.iter().map(Some).collect())?;
    let mut summary = json!({"algorithm": "degree", "graph": graph_json(&graph, load), "seconds": seconds, "bits": degrees.bits()});
    order_json(&mut summary, ids.as_ref());
    let text = format!(
        "degree centrality of {} vertices in {seconds:.4} s ({} bits per value)\n",
        graph.vertices(),
        degrees.bits()
    );
    emit(
        &args.output,
        "degree",
        &values,
        |a, b| a.cmp(b),
        summary,
        text,
    )
}

pub(super) fn run_pagerank(args: &PageRankArgs) -> CliResult {
    let (graph, load) = args.common.storage.load(&args.common.input)?;
    let (graph, ids) = args.common.order.apply(graph)?;
    let dangling = args.dangling.parse::<Dangling>()?;
    let options = PageRankOptions {
        damping: args.damping,
        tolerance: args.tolerance,
        max_iterations: args.max_iterations,
        dangling,
        contributions: args.precision.parse::<Precision>()?,
        cell_order: args.cell_order.parse::<CellOrder>()?,
    };
    // Per-iteration lines on a terminal (the library reports each iteration through the hook).
    let show = !args.common.storage.no_progress && std::io::stderr().is_terminal();
    let edges = graph.stored_entries() as f64;
    // The degree order of the cells is a layout derived from the graph: built before the
    // timed run, its time reported apart (as the graph's load is).
    let preparing = Instant::now();
    let prepared = options.cell_order.resolve(graph.vertices()) == CellOrder::Degree
        && graph.prepare_degree_order()?;
    let prepare_seconds = preparing.elapsed().as_secs_f64();
    let started = Instant::now();
    let report = |step: &smartarrays_graph::Iteration| {
        if show {
            eprintln!(
                "iteration {:>4}  change {:.3e}  {:.3} s  ({:.0} M edges/s)",
                step.iteration,
                step.change,
                step.seconds,
                edges / step.seconds.max(1e-12) / 1e6
            );
        }
    };
    let result = if args.gauss_seidel {
        pagerank_gauss_seidel(&graph, &options, report)?
    } else {
        pagerank(&graph, &options, report)?
    };
    let method = if args.gauss_seidel {
        "gauss-seidel"
    } else {
        "jacobi"
    };
    let seconds = started.elapsed().as_secs_f64();
    let summary = &result.summary;
    if !summary.converged {
        eprintln!(
            "warning: PageRank did not converge: change {:.3e} after {} iterations is still above the tolerance {:.1e}",
            summary.change, summary.iterations, options.tolerance
        );
    }
    let per_iteration = seconds / summary.iterations.max(1) as f64;
    let ranks: Vec<Option<f64>> = to_input(
        ids.as_ref(),
        result.ranks.to_vec().into_iter().map(Some).collect(),
    )?;
    let mut json_summary = json!({
        "algorithm": "pagerank",
        "method": method,
        "graph": graph_json(&graph, load),
        "options": options,
        "iterations": summary.iterations,
        "converged": summary.converged,
        "change": summary.change,
        "seconds": seconds,
        "seconds_per_iteration": per_iteration,
        "edges_per_second": edges / per_iteration.max(1e-12),
        "cell_order": summary.cell_order,
        "prepare_seconds": prepare_seconds,
        "history": summary.history,
    });
    order_json(&mut json_summary, ids.as_ref());
    let text = format!(
        "PageRank ({method}{}): {} iterations, {} (change {:.3e}), {seconds:.3} s, {:.4} s per iteration, {:.0} M edges/s\n",
        if prepared {
            format!(
                ", cells in {} order, prepared in {prepare_seconds:.3} s",
                summary.cell_order
            )
        } else {
            format!(", cells in {} order", summary.cell_order)
        },
        summary.iterations,
        if summary.converged { "converged" } else { "NOT converged" },
        summary.change,
        per_iteration,
        edges / per_iteration.max(1e-12) / 1e6
    );
    emit(
        &args.common.output,
        "rank",
        &ranks,
        |a, b| a.total_cmp(b),
        json_summary,
        text,
    )
}

pub(super) fn run_bfs(args: &BfsArgs) -> CliResult {
    let (graph, load) = args.common.storage.load(&args.common.input)?;
    let (graph, ids) = args.common.order.apply(graph)?;
    let source = to_graph(ids.as_ref(), args.source)?;
    let started = Instant::now();
    let result = bfs(&graph, source)?;
    let seconds = started.elapsed().as_secs_f64();
    let levels: Vec<Option<u64>> = to_input(
        ids.as_ref(),
        (0..graph.vertices() as u64)
            .map(|v| result.level(v))
            .collect(),
    )?;
    let mut summary = json!({
        "algorithm": "bfs",
        "graph": graph_json(&graph, load),
        "source": args.source,
        "reached": result.reached,
        "depth": result.depth,
        "top_down_steps": result.steps.0,
        "bottom_up_steps": result.steps.1,
        "seconds": seconds,
    });
    order_json(&mut summary, ids.as_ref());
    let text = format!(
        "BFS from {}: reached {} of {} vertices, depth {}, {} top-down + {} bottom-up steps, {seconds:.4} s\n",
        args.source,
        result.reached,
        graph.vertices(),
        result.depth,
        result.steps.0,
        result.steps.1
    );
    // Show the nearest vertices first.
    emit(
        &args.common.output,
        "level",
        &levels,
        |a, b| b.cmp(a),
        summary,
        text,
    )
}

pub(super) fn run_components(args: &CommonArgs) -> CliResult {
    let (graph, load) = args.storage.load(&args.input)?;
    let (graph, ids) = args.order.apply(graph)?;
    let started = Instant::now();
    let components = connected_components(&graph)?;
    let seconds = started.elapsed().as_secs_f64();
    // Labels are the smallest vertex id of the component: recomputed in the input's ids.
    let labels = match &ids {
        Some(ids) => ids.labels_to_original(&components.labels.to_vec())?,
        None => components.labels.to_vec(),
    };
    let labels: Vec<Option<u64>> = labels.into_iter().map(Some).collect();
    let mut summary = json!({
        "algorithm": "components",
        "graph": graph_json(&graph, load),
        "count": components.count,
        "largest": components.largest,
        "seconds": seconds,
    });
    order_json(&mut summary, ids.as_ref());
    let text = format!(
        "{} weakly connected components, the largest with {} vertices, {seconds:.4} s\n",
        components.count, components.largest
    );
    emit(
        &args.output,
        "component",
        &labels,
        |a, b| b.cmp(a),
        summary,
        text,
    )
}
