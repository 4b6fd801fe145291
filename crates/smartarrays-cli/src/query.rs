//! `smartarrays sql` and `smartarrays tpch generate|run|bench`: SQL over TPC-H tables
//! generated in this process (smartarrays-query), with a progress bar while they are built.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use smartarrays::Placement;
use smartarrays_graph::ProgressReporter;
use smartarrays_query::encodings::ColumnOptions;
use smartarrays_query::{queries, tpch, Catalog, Output, QueryOptions, ResultSet};

use crate::bars::Bars;
use crate::CliResult;

/// Output format of query results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ResultFormat {
    /// Aligned columns.
    Table,
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object per row.
    Json,
}

#[derive(clap::Args)]
pub struct SqlArgs {
    /// The query (or `EXPLAIN` of one).
    query: String,
    /// Run over the TPC-H tables generated at this scale factor (the default, at 0.01, when no
    /// `--table` is given).
    #[arg(long)]
    tpch: Option<f64>,
    /// A table from a file, as `NAME=PATH`: Parquet (`.parquet`), CSV (`.csv` with commas,
    /// `.tbl` with `|`, `.tsv` with tabs; a header line, types inferred) or a saved table
    /// (`.sat`). Repeat for several tables.
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ResultFormat::Table)]
    format: ResultFormat,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(clap::Subcommand)]
pub enum TpchCommand {
    /// Write the TPC-H tables as `|`-separated CSV files with a header line (for other engines).
    Generate(GenerateArgs),
    /// Run TPC-H queries and print their results and times.
    Run(RunArgs),
    /// Time TPC-H queries: warm-up, then the median of several runs each.
    Bench(BenchArgs),
}

/// File format of generated tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// `|`-separated text with a header line (`<table>.csv`).
    Csv,
    /// Parquet, Zstd-compressed (`<table>.parquet`).
    Parquet,
    /// The saved-table format (`<table>.sat`), reloaded through a memory map.
    Sat,
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Scale factor.
    #[arg(long, default_value_t = 1.0)]
    sf: f64,
    /// Directory for the tables' files.
    #[arg(long)]
    out: PathBuf,
    /// File format.
    #[arg(long, value_enum, default_value_t = TableFormat::Csv)]
    format: TableFormat,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// Scale factor.
    #[arg(long, default_value_t = 0.1)]
    sf: f64,
    /// Worker threads (default: one per CPU).
    #[arg(long)]
    threads: Option<usize>,
    /// Queries to run (default: every supported one).
    #[arg(long = "query", short = 'q')]
    queries: Vec<u32>,
    /// Output format of the results (`json`: one object per query, values as exact text).
    #[arg(long, value_enum, default_value_t = ResultFormat::Table)]
    format: ResultFormat,
    /// Compare each result with the official SF 1 answer that tpchgen ships (needs `--sf 1`).
    #[arg(long)]
    verify: bool,
    /// Run the query in this file instead, over the same tables (repeatable: the queries are
    /// numbered from 1 in the order given; other substitution parameters, for instance).
    #[arg(long = "sql-file", conflicts_with_all = ["queries", "verify"])]
    sql_files: Vec<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Scale factor.
    #[arg(long, default_value_t = 1.0)]
    sf: f64,
    /// Worker threads (default: one per CPU); several values run one after the other.
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Queries to time (default: every supported one).
    #[arg(long = "query", short = 'q')]
    queries: Vec<u32>,
    /// Timed runs per query (after one warm-up run).
    #[arg(long, default_value_t = 5)]
    repetitions: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn generate(sf: f64, quiet: bool) -> CliResult<Catalog> {
    let bars: Option<Arc<dyn ProgressReporter>> = Bars::for_terminal(!quiet);
    let stage = format!("TPC-H SF {sf}");
    if let Some(b) = &bars {
        b.started(&stage, tpch::TABLES.len() as u64);
    }
    // Each table is placed as a whole (small ones replicated, large ones interleaved on a
    // NUMA machine); the reasons are printed once per distinct choice.
    let options = ColumnOptions::new().placement(Placement::Auto);
    let catalog = tpch::generate(sf, &options, |_, done, _| {
        if let Some(b) = &bars {
            b.advanced(&stage, done as u64);
        }
    })?;
    if let Some(b) = &bars {
        b.finished(&stage);
    }
    if !quiet {
        let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
        for table in catalog.tables() {
            let reason = table.placement_reason().unwrap_or_default().to_string();
            match reasons.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, names)) => names.push(table.name()),
                None => reasons.push((reason, vec![table.name()])),
            }
        }
        for (reason, names) in reasons {
            eprintln!("placement of {}: {reason}", names.join(", "));
        }
    }
    Ok(catalog)
}

fn options(threads: Option<usize>) -> CliResult<QueryOptions> {
    Ok(match threads {
        Some(t) => QueryOptions::threads(t)?,
        None => QueryOptions::default(),
    })
}

fn print_result(result: &ResultSet, format: ResultFormat) {
    match format {
        ResultFormat::Table => print!("{}", result.to_table_string()),
        ResultFormat::Csv => print!("{}", result.to_csv()),
        ResultFormat::Json => {
            for row in &result.rows {
                let object: serde_json::Map<String, serde_json::Value> = result
                    .names
                    .iter()
                    .zip(row)
                    .map(|(n, v)| {
                        let value = match v {
                            smartarrays_query::Value::Null => serde_json::Value::Null,
                            smartarrays_query::Value::Int(i) => serde_json::json!(*i as f64 as i64),
                            smartarrays_query::Value::Float(f) => serde_json::json!(f),
                            smartarrays_query::Value::Bool(b) => serde_json::json!(b),
                            other => serde_json::json!(other.to_string()),
                        };
                        (n.clone(), value)
                    })
                    .collect();
                println!("{}", serde_json::Value::Object(object));
            }
        }
    }
}

/// Loads `NAME=PATH` tables into `catalog`.
fn load_tables(catalog: &mut Catalog, tables: &[String]) -> CliResult {
    for spec in tables {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(format!("--table {spec}: expected NAME=PATH").into());
        };
        let table = smartarrays_query::load::load_table(
            name.trim(),
            std::path::Path::new(path),
            &ColumnOptions::new(),
        )?;
        catalog.insert(table);
    }
    Ok(())
}

pub fn run_sql(args: &SqlArgs) -> CliResult {
    let sf = match (args.tpch, args.tables.is_empty()) {
        (Some(sf), _) => Some(sf),
        (None, true) => Some(0.01),
        (None, false) => None,
    };
    let mut catalog = match sf {
        Some(sf) => generate(sf, args.quiet)?,
        None => Catalog::new(),
    };
    load_tables(&mut catalog, &args.tables)?;
    match smartarrays_query::execute(&catalog, &args.query, &options(args.threads)?)? {
        Output::Rows(result) => print_result(&result, args.format),
        Output::Plan(plan) => print!("{plan}"),
    }
    Ok(())
}

fn query_list(asked: &[u32]) -> CliResult<Vec<u32>> {
    if asked.is_empty() {
        return Ok(queries::SUPPORTED.to_vec());
    }
    for q in asked {
        if queries::tpch(*q).is_none() {
            return Err(format!(
                "TPC-H Q{q} is not supported yet (supported: {:?})",
                queries::SUPPORTED
            )
            .into());
        }
    }
    Ok(asked.to_vec())
}

pub fn run(command: &TpchCommand) -> CliResult {
    match command {
        TpchCommand::Generate(args) => {
            std::fs::create_dir_all(&args.out)?;
            for table in tpch::TABLES {
                let path = match args.format {
                    TableFormat::Csv => {
                        let columns = tpch::table_values(table, args.sf)?;
                        let path = args.out.join(format!("{table}.csv"));
                        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
                        tpch::write_csv(&columns, &mut file)?;
                        path
                    }
                    TableFormat::Parquet => {
                        let built = Arc::new(tpch::table(table, args.sf, &ColumnOptions::new())?);
                        let path = args.out.join(format!("{table}.parquet"));
                        smartarrays_query::load::parquet::write_parquet(
                            &path,
                            smartarrays_query::arrow::table_to_reader(built),
                        )?;
                        path
                    }
                    TableFormat::Sat => {
                        let built = tpch::table(table, args.sf, &ColumnOptions::new())?;
                        let path = args.out.join(format!("{table}.sat"));
                        smartarrays_query::store::save(&built, &path)?;
                        path
                    }
                };
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        TpchCommand::Run(args) => {
            if args.verify && args.sf != 1.0 {
                return Err(
                    "--verify compares with the official answers, which are for --sf 1".into(),
                );
            }
            let mut texts = Vec::new();
            for path in &args.sql_files {
                texts.push(
                    std::fs::read_to_string(path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
                );
            }
            let list = if texts.is_empty() {
                query_list(&args.queries)?
            } else {
                (1..=texts.len() as u32).collect()
            };
            let catalog = generate(args.sf, args.quiet)?;
            let options = options(args.threads)?;
            let mut failed = Vec::new();
            for q in list {
                let sql = match texts.get(q as usize - 1) {
                    Some(text) if !args.sql_files.is_empty() => text.as_str(),
                    _ => queries::tpch(q).unwrap_or_default(),
                };
                let start = Instant::now();
                let result = smartarrays_query::sql_with(&catalog, sql, &options)?;
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let verdict = args.verify.then(|| tpch::check_official_answer(q, &result));
                if let Some(Err(_)) = &verdict {
                    failed.push(q);
                }
                if args.format == ResultFormat::Json {
                    // One object per query: exact values as text (decimals keep every digit).
                    let rows: Vec<Vec<String>> = result
                        .rows
                        .iter()
                        .map(|r| r.iter().map(ToString::to_string).collect())
                        .collect();
                    let types: Vec<String> = result.types.iter().map(ToString::to_string).collect();
                    let official =
                        verdict.map(|v| v.err().unwrap_or_else(|| "matches".to_string()));
                    println!(
                        "{}",
                        serde_json::json!({"query": q, "ms": ms, "names": result.names, "types": types, "rows": rows, "official_answer": official})
                    );
                    continue;
                }
                println!("Q{q} ({ms:.1} ms, {} rows)", result.rows.len());
                print_result(&result, args.format);
                match verdict {
                    Some(Ok(())) => println!("Q{q}: matches the official SF 1 answer"),
                    Some(Err(e)) => println!("Q{q}: DIFFERS from the official SF 1 answer: {e}"),
                    None => {}
                }
                println!();
            }
            if failed.is_empty() {
                Ok(())
            } else {
                Err(format!("queries {failed:?} differ from the official answers").into())
            }
        }
        TpchCommand::Bench(args) => bench(args),
    }
}

fn bench(args: &BenchArgs) -> CliResult {
    let list = query_list(&args.queries)?;
    let start = Instant::now();
    let catalog = generate(args.sf, args.quiet)?;
    let generate_s = start.elapsed().as_secs_f64();
    let thread_counts: Vec<Option<usize>> = if args.threads.is_empty() {
        vec![None]
    } else {
        args.threads.iter().map(|&t| Some(t)).collect()
    };
    let mut records = Vec::new();
    for threads in thread_counts {
        let options = options(threads)?;
        let workers = options.runtime.as_ref().map_or_else(
            || smartarrays::Runtime::global().map(|r| r.threads()),
            |r| Ok(r.threads()),
        )?;
        for &q in &list {
            let sql = queries::tpch(q).unwrap_or_default();
            smartarrays_query::sql_with(&catalog, sql, &options)?;
            let mut runs = Vec::with_capacity(args.repetitions);
            for _ in 0..args.repetitions.max(1) {
                let t = Instant::now();
                let result = smartarrays_query::sql_with(&catalog, sql, &options)?;
                runs.push(t.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(result);
            }
            let mut sorted = runs.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            records.push(serde_json::json!({
                "query": q, "threads": workers, "median_ms": median, "runs_ms": runs,
            }));
            if !args.json {
                println!(
                    "Q{q:<3} threads {workers:<3} median {median:>10.2} ms  runs {:?}",
                    runs.iter()
                        .map(|r| (r * 100.0).round() / 100.0)
                        .collect::<Vec<_>>()
                );
            }
        }
    }
    if args.json {
        let value = serde_json::json!({
            "sf": args.sf,
            "generate_s": generate_s,
            "memory_bytes": catalog.memory_bytes(),
            "tables": catalog.tables().map(|t| serde_json::json!({
                "name": t.name(), "rows": t.rows(), "memory_bytes": t.memory_bytes(), "packed_bytes": t.packed_bytes(),
                "columns": t.columns().iter().map(|c| serde_json::json!({
                    "name": c.name, "memory_bytes": c.column.memory_bytes(), "packed_bytes": c.column.packed_bytes(),
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "results": records,
        });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "tables: {:.1} MB in memory (generated and compressed in {generate_s:.1} s)",
            catalog.memory_bytes() as f64 / 1e6
        );
    }
    Ok(())
}
