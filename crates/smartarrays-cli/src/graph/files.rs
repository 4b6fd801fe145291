//! `graph generate` (uniform random or Graph500 Kronecker, written as an edge list, Matrix
//! Market or the binary format) and `graph convert` (between those formats, or to a weighted
//! edge list with `--write-weights`), optionally relabelled by degree (`--vertex-order degree`,
//! with the id map written by `--id-map`).

use std::io::Write as _;
use std::time::Instant;

use smartarrays_graph::io::{self, Format};
use smartarrays_graph::{build, generate, Keep, VertexIds};

use super::{CliResult, ConvertArgs, GenerateArgs, OrderArgs};

pub(super) fn run_generate(args: &GenerateArgs) -> CliResult {
    let options = args.storage.options()?;
    let runtime = options.runtime.clone().ok_or("no runtime")?;
    let started = Instant::now();
    let edges = match args.kind.as_str() {
        "uniform" => generate::uniform_with(
            args.n,
            args.degree,
            args.seed,
            !args.storage.undirected,
            &runtime,
        )?,
        "kronecker" | "rmat" | "kron" => generate::rmat_with(
            args.scale,
            args.edge_factor,
            generate::RmatParameters::GRAPH500,
            args.seed,
            !args.storage.undirected,
            &runtime,
        )?,
        other => {
            return Err(
                format!("unknown generator {other:?}: expected uniform or kronecker").into(),
            )
        }
    };
    let generated = started.elapsed().as_secs_f64();
    let format = args.output_format.parse::<Format>()?;
    let format = if format == Format::Auto {
        io::detect_format(&args.output, &[])
    } else {
        format
    };
    let (vertices, generated_edges) = (edges.vertices(), edges.len() as u64);
    let keeps_everything = options.duplicates == Keep::Keep && options.self_loops == Keep::Keep;
    // The count reported is what the file holds: after duplicates and self-loops are dropped.
    let (written_edges, note) = if format == Format::EdgeList && keeps_everything {
        io::write_edges(&edges, &args.output)?;
        (generated_edges, String::new())
    } else {
        let graph = build(edges, &options)?;
        io::save_graph(&graph, &args.output, format)?;
        let dropped = generated_edges.saturating_sub(graph.edges());
        let note = if dropped > 0 || !keeps_everything {
            format!(" ({generated_edges} generated, {dropped} dropped as duplicates or self-loops)")
        } else {
            String::new()
        };
        (graph.edges(), note)
    };
    eprintln!(
        "generated {} vertices, {} edges{note} in {:.2} s; wrote {} ({format}) in {:.2} s",
        vertices,
        written_edges,
        generated,
        args.output.display(),
        started.elapsed().as_secs_f64() - generated
    );
    Ok(())
}

pub(super) fn run_convert(args: &ConvertArgs) -> CliResult {
    let order = OrderArgs {
        vertex_order: args.vertex_order.clone(),
    };
    if args.write_weights {
        let (graph, weights, seconds) = args.storage.load_weighted(&args.input, &args.weights)?;
        let (graph, weights, ids) = order.apply_weighted(graph, weights)?;
        write_id_map(args, ids.as_ref())?;
        let started = Instant::now();
        let binary = match args.output_format.parse::<Format>()? {
            Format::Auto => io::detect_format(&args.output, &[]) == Format::Binary,
            format => format == Format::Binary,
        };
        let written = if binary {
            io::save_binary_weighted(&graph, &weights, &args.output)?;
            "binary graph with weights"
        } else {
            io::write_weighted_edge_list(&graph, &weights, &args.output)?;
            "weighted edge list"
        };
        eprintln!(
            "loaded {} vertices, {} edges in {seconds:.2} s; wrote {} ({written}, weights up to {}) in {:.2} s",
            graph.vertices(),
            graph.edges(),
            args.output.display(),
            weights.max(),
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let (graph, seconds) = args.storage.load(&args.input)?;
    let (graph, ids) = order.apply(graph)?;
    write_id_map(args, ids.as_ref())?;
    let started = Instant::now();
    io::save_graph(&graph, &args.output, args.output_format.parse::<Format>()?)?;
    eprintln!(
        "loaded {} vertices, {} edges in {seconds:.2} s; wrote {} in {:.2} s",
        graph.vertices(),
        graph.edges(),
        args.output.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes the id map to `--id-map` when asked: one line `original new` per input vertex.
fn write_id_map(args: &ConvertArgs, ids: Option<&VertexIds>) -> CliResult {
    let (Some(path), Some(ids)) = (&args.id_map, ids) else {
        return Ok(());
    };
    let file = std::fs::File::create(path)?;
    let mut out = std::io::BufWriter::new(file);
    for (original, new) in ids.new_ids().iter().enumerate() {
        writeln!(out, "{original} {new}")?;
    }
    out.flush()?;
    eprintln!(
        "wrote the id map ({} vertices) to {}",
        ids.len(),
        path.display()
    );
    Ok(())
}
