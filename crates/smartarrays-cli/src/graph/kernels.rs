//! `graph sssp` (weights from the file or generated), `graph bc` and `graph tc`: timed, with
//! progress bars drawn here from the library's callbacks, printed through
//! [`super::report::emit`] (or, for the single count of `tc`, directly).

use std::time::Instant;

use serde_json::json;
use smartarrays_graph::{bc, sssp, tc, verify_sssp, BcOptions, BcSources, SsspOptions, TcOrder};

use super::report::{emit, graph_json, order_json};
use super::storage::{to_graph, to_input};
use super::{BcArgs, CliResult, OutputFormat, SsspArgs, TcArgs};

pub(super) fn run_sssp(args: &SsspArgs) -> CliResult {
    let storage = &args.common.storage;
    let (graph, weights, load) = storage.load_weighted(&args.common.input, &args.weights)?;
    // Weights (from the file or generated on the input's ids) follow their edges.
    let (graph, weights, ids) = args.common.order.apply_weighted(graph, weights)?;
    let source = to_graph(ids.as_ref(), args.source)?;
    let options = SsspOptions { delta: args.delta };
    let progress = storage.progress();
    let bar = progress.bar(graph.vertices() as u64, "sssp (vertices settled)");
    let started = Instant::now();
    let result = sssp(&graph, &weights, source, &options, |_, frontier| {
        bar.inc(frontier as u64)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    drop(bar);
    if args.verify {
        verify_sssp(&graph, &weights, &result)
            .map_err(|problem| format!("SSSP verification failed: {problem}"))?;
    }
    let distances: Vec<Option<u64>> = to_input(
        ids.as_ref(),
        (0..graph.vertices() as u64)
            .map(|v| result.distance(v))
            .collect(),
    )?;
    let mut summary = json!({
        "algorithm": "sssp",
        "graph": graph_json(&graph, load),
        "source": args.source,
        "delta": args.delta,
        "max_weight": weights.max(),
        "reached": result.reached,
        "max_distance": result.max_distance,
        "rounds": result.rounds,
        "verified": args.verify,
        "seconds": seconds,
    });
    order_json(&mut summary, ids.as_ref());
    let text = format!(
        "SSSP from {} (delta {}): reached {} of {} vertices, largest distance {}, {} rounds, {seconds:.4} s{}\n",
        args.source,
        args.delta,
        result.reached,
        graph.vertices(),
        result.max_distance,
        result.rounds,
        if args.verify { ", verified" } else { "" }
    );
    // Show the nearest vertices first.
    emit(
        &args.common.output,
        "distance",
        &distances,
        |a, b| b.cmp(a),
        summary,
        text,
    )
}

pub(super) fn run_bc(args: &BcArgs) -> CliResult {
    let storage = &args.common.storage;
    let (graph, load) = storage.load(&args.common.input)?;
    let mut sources = if args.all_sources {
        BcSources::All
    } else if !args.sources.is_empty() {
        BcSources::List(args.sources.clone())
    } else {
        BcSources::Sample {
            count: args.samples,
            seed: args.seed,
        }
    };
    if args.common.order.by_degree()? && !args.all_sources {
        // The sources a run on the input draws, named in the input's ids.
        sources = BcSources::List(sources.resolve(&graph)?);
    }
    let (graph, ids) = args.common.order.apply(graph)?;
    if let (Some(ids), BcSources::List(list)) = (&ids, &mut sources) {
        for source in list.iter_mut() {
            *source = ids.to_new(*source)?;
        }
    }
    let progress = storage.progress();
    let mut bar = None;
    let started = Instant::now();
    let result = bc(&graph, &BcOptions { sources }, |done, total| {
        let stage = bar.get_or_insert_with(|| progress.bar(total as u64, "bc (sources)"));
        stage.inc(1);
        if done == total {
            bar = None;
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let scores = if args.normalize {
        result.normalized()
    } else {
        result.scores.to_vec()
    };
    let values: Vec<Option<f64>> = to_input(ids.as_ref(), scores.into_iter().map(Some).collect())?;
    let result_sources = match &ids {
        Some(ids) => result
            .sources
            .iter()
            .map(|&s| ids.to_original(s))
            .collect::<Result<Vec<u64>, _>>()?,
        None => result.sources.clone(),
    };
    let mut summary = json!({
        "algorithm": "bc",
        "graph": graph_json(&graph, load),
        "sources": result_sources,
        "normalized": args.normalize,
        "seconds": seconds,
    });
    order_json(&mut summary, ids.as_ref());
    let text = format!(
        "betweenness from {} source(s), {seconds:.4} s ({:.4} s per source){}\n",
        result.sources.len(),
        seconds / result.sources.len().max(1) as f64,
        if args.normalize {
            ", scores divided by the largest"
        } else {
            ""
        }
    );
    emit(
        &args.common.output,
        "score",
        &values,
        |a, b| a.total_cmp(b),
        summary,
        text,
    )
}

pub(super) fn run_tc(args: &TcArgs) -> CliResult {
    let (graph, load) = args.storage.load(&args.input)?;
    let order = args.order.parse::<TcOrder>()?;
    // The count does not depend on the ids: the relabelled graph only runs faster (or not).
    let (graph, _) = args.vertex_order.apply(graph)?;
    if graph.is_directed() {
        return Err(
            "triangle counting needs an undirected graph: give --undirected for an edge list"
                .into(),
        );
    }
    let progress = args.storage.progress();
    let bar = progress.bar(graph.vertices() as u64, "tc (vertices)");
    let last = std::sync::atomic::AtomicU64::new(0);
    let started = Instant::now();
    let triangles = tc(&graph, order, |done, _| {
        let before = last.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
        if done > before {
            bar.inc(done - before);
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    drop(bar);
    let text = match args.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(&json!({
                "algorithm": "tc",
                "graph": graph_json(&graph, load),
                "order": format!("{order:?}").to_ascii_lowercase(),
                "triangles": triangles,
                "seconds": seconds,
            }))? + "\n"
        }
        OutputFormat::Csv => format!("triangles,seconds\n{triangles},{seconds}\n"),
        OutputFormat::Table => format!(
            "{triangles} triangles ({} order), {seconds:.4} s\n",
            format!("{order:?}").to_ascii_lowercase()
        ),
    };
    print!("{text}");
    Ok(())
}
