//! What the `graph` subcommands print: the graph's description as JSON, `graph stats` (sizes,
//! degrees and the memory report), and per-vertex results (all of them, or the top ones) as a
//! table, CSV or JSON, also written to `--output`.

use std::fmt::Write as _;

use serde_json::{json, Value};
use smartarrays_graph::Graph;

use super::{CliResult, CommonArgs, OutputArgs, OutputFormat};

pub(super) fn graph_json(graph: &Graph, load_seconds: f64) -> Value {
    json!({
        "vertices": graph.vertices(),
        "edges": graph.edges(),
        "directed": graph.is_directed(),
        "self_loops": graph.self_loops(),
        "max_out_degree": graph.max_out_degree(),
        "max_in_degree": graph.max_in_degree(),
        "load_seconds": load_seconds,
        "arrays": graph.arrays().iter().map(|(name, a)| json!({"name": name, "bits": a.bits(), "placement": a.placement().to_string()})).collect::<Vec<_>>(),
    })
}

/// Adds the vertex order to a result's JSON summary when the run was relabelled (so the
/// default output stays as it was).
pub(super) fn order_json(summary: &mut Value, ids: Option<&smartarrays_graph::VertexIds>) {
    if ids.is_some() {
        summary["vertex_order"] = json!("degree");
        summary["ids"] = json!("input");
    }
}

pub(super) fn run_stats(args: &CommonArgs) -> CliResult {
    let (graph, seconds) = args.storage.load(&args.input)?;
    let (graph, _) = args.order.apply(graph)?;
    let report = graph.memory_report();
    let text = match args.output.format {
        OutputFormat::Json => {
            serde_json::to_string_pretty(
                &json!({"graph": graph_json(&graph, seconds), "memory": report}),
            )? + "\n"
        }
        OutputFormat::Csv => {
            let mut out =
                String::from("array,elements,bits,packed_bytes,mapped_bytes,placement,replicas\n");
            for a in &report.arrays {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    a.name,
                    a.elements,
                    a.bits,
                    a.packed_bytes,
                    a.mapped_bytes,
                    a.placement,
                    a.replicas
                )?;
            }
            out
        }
        OutputFormat::Table => {
            format!(
                "{} graph: {} vertices, {} edges ({} self-loops), max out-degree {}, max in-degree {}, loaded in {seconds:.3} s\n{report}",
                if graph.is_directed() { "directed" } else { "undirected" },
                graph.vertices(),
                graph.edges(),
                graph.self_loops(),
                graph.max_out_degree(),
                graph.max_in_degree()
            )
        }
    };
    print!("{text}");
    if let Some(path) = &args.output.output {
        std::fs::write(path, &text)?;
    }
    Ok(())
}

/// Renders per-vertex values (all, or the top ones by value) and writes the full list to
/// `--output` when given.
pub(super) fn emit<T: Copy + Into<Value> + std::fmt::Display>(
    output: &OutputArgs,
    column: &str,
    values: &[Option<T>],
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
    summary: Value,
    summary_text: String,
) -> CliResult {
    let render = |all: bool| -> CliResult<String> {
        let chosen: Vec<usize> = if all {
            (0..values.len()).collect()
        } else {
            let mut present: Vec<(usize, T)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.map(|v| (i, v)))
                .collect();
            present.sort_by(|a, b| order(&b.1, &a.1).then(a.0.cmp(&b.0)));
            present
                .into_iter()
                .take(output.top)
                .map(|(i, _)| i)
                .collect()
        };
        Ok(match output.format {
            OutputFormat::Json => {
                let key = if all { "values" } else { "top" };
                let list: Vec<Value> = if all {
                    chosen
                        .iter()
                        .map(|&v| values[v].map_or(Value::Null, Into::into))
                        .collect()
                } else {
                    chosen.iter().map(|&v| json!({"vertex": v, column: values[v].map_or(Value::Null, Into::into)})).collect()
                };
                let mut document = summary.clone();
                document[key] = Value::Array(list);
                serde_json::to_string_pretty(&document)? + "\n"
            }
            OutputFormat::Csv => {
                let mut out = format!("vertex,{column}\n");
                for &v in &chosen {
                    writeln!(
                        out,
                        "{v},{}",
                        values[v].map_or(String::new(), |x| x.to_string())
                    )?;
                }
                out
            }
            OutputFormat::Table => {
                let mut out = summary_text.clone();
                writeln!(out, "{:>12}  {column}", "vertex")?;
                for &v in &chosen {
                    writeln!(
                        out,
                        "{v:>12}  {}",
                        values[v].map_or("-".to_string(), |x| x.to_string())
                    )?;
                }
                out
            }
        })
    };
    print!("{}", render(output.all)?);
    if let Some(path) = &output.output {
        std::fs::write(path, render(true)?)?;
    }
    Ok(())
}
