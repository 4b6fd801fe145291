//! End-to-end checks of the `smartarrays` binary: it runs, its outputs parse, and bad input gives
//! a clear message and a non-zero exit status.

use std::process::Command;

fn smartarrays(arguments: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_smartarrays"))
        .args(arguments)
        .output()
        .expect("the binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn info_prints_the_topology_as_a_table_and_as_json() {
    let (ok, out, _) = smartarrays(&["info"]);
    assert!(ok);
    assert!(
        out.contains("NUMA node(s)") && out.contains("codec kernels"),
        "{out}"
    );
    let (ok, out, _) = smartarrays(&["info", "--format", "json"]);
    assert!(ok);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(!value["topology"]["nodes"].as_array().unwrap().is_empty());
}

#[test]
fn the_aggregation_benchmark_writes_rows_csv_json_and_plots() {
    let directory = std::env::temp_dir().join(format!("smartarrays-cli-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let csv = directory.join("rows.csv");
    let svg = directory.join("plot.svg");
    let (ok, out, err) = smartarrays(&[
        "bench",
        "aggregate",
        "--elements",
        "10001",
        "--warmups",
        "1",
        "--repetitions",
        "2",
        "--bits",
        "10,33,64",
        "--threads",
        "3",
        "--format",
        "json",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    // Per width: raw u64, (raw u32 at 10 bits), and four placements.
    assert_eq!(rows.len(), 3 * 5 + 1);
    assert!(
        rows.iter()
            .all(|r| r["median_ms"].as_f64().unwrap() > 0.0
                && r["memory_bytes"].as_u64().unwrap() > 0)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("bits,placement,median_ms"));
    assert_eq!(text.lines().count(), rows.len() + 1);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn the_placement_command_reads_pages_back() {
    let (ok, out, err) = smartarrays(&[
        "placement",
        "--placement",
        "node:0",
        "--elements",
        "100000",
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let region = &report["replicas"][0];
    assert_eq!(region["intended_node"], 0);
    assert_eq!(
        region["pages_by_node"]["0"].as_u64().unwrap() as usize
            + region["pages_not_present"].as_u64().unwrap() as usize,
        region["pages"].as_u64().unwrap() as usize
    );
}

#[test]
fn the_placement_command_lets_the_advisor_choose_and_says_why() {
    let cache = std::env::temp_dir().join(format!("smartarrays-cli-auto-{}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_smartarrays"))
        .args([
            "placement",
            "--placement",
            "auto",
            "--elements",
            "100000",
            "--bits",
            "20",
            "--reads-per-element",
            "30",
        ])
        .env("SMARTARRAYS_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{err}");
    assert!(
        err.contains("measured this machine"),
        "first run measures: {err}"
    );
    assert!(
        out.contains("placement auto -> ") && out.contains("step 1a") && out.contains("step 2"),
        "{out}"
    );
    assert!(out.contains("100000 values at 20 bits"), "{out}");
    assert!(
        !out.contains("placement auto\n"),
        "the report shows the chosen placement: {out}"
    );
    // The headline picks its candidate at its own estimate, and a faster candidate it did not
    // take is explained (here the width was fixed to 20 bits by --bits).
    let headline = out
        .lines()
        .find(|l| l.trim_start().starts_with("use "))
        .unwrap_or("");
    let estimates: Vec<f64> = headline
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches([',', ')']).strip_suffix('x'))
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(estimates.len(), 2, "{headline}");
    assert!(
        estimates[0] >= estimates[1] || headline.contains("was not an option: the width was fixed"),
        "{headline}"
    );
    std::fs::remove_dir_all(&cache).ok();
}

#[test]
fn bad_input_is_reported_clearly() {
    let (ok, _, err) = smartarrays(&["placement", "--placement", "node:99"]);
    assert!(!ok);
    assert!(err.contains("NUMA node 99 does not exist"), "{err}");
    let (ok, _, err) = smartarrays(&["placement", "--placement", "mirrored"]);
    assert!(!ok);
    assert!(err.contains("invalid placement"), "{err}");
    let (ok, _, err) = smartarrays(&["bench", "aggregate", "--bits", "65", "--elements", "10"]);
    assert!(!ok);
    assert!(err.contains("bit width 65 is invalid"), "{err}");
}

#[test]
fn kernel_and_random_get_benchmarks_run_small() {
    let (ok, out, err) = smartarrays(&[
        "bench",
        "kernels",
        "--cache-values",
        "2048",
        "--memory-values",
        "4096",
        "--values-per-run",
        "4096",
        "--repetitions",
        "1",
        "--format",
        "csv",
    ]);
    assert!(ok, "{err}");
    // The sum table (header + 8 widths x 2 inputs), then the packing/differences table (header + 8 widths).
    assert_eq!(out.lines().count(), 1 + 16 + 1 + 8);
    assert!(
        out.lines()
            .nth(17)
            .is_some_and(|header| header.contains("pack_G_per_s")),
        "{out}"
    );
    let (ok, out, err) = smartarrays(&[
        "bench",
        "random-get",
        "--elements",
        "5000",
        "--reads",
        "1000",
        "--repetitions",
        "1",
        "--bits",
        "7,64",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("ratio"));
}

/// Runs the binary and returns (exit code, stderr); a death by signal (abort) has no code.
fn exit_code(arguments: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_smartarrays"))
        .args(arguments)
        .output()
        .expect("the binary runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_huge_vertex_id_in_a_graph_file_is_an_error_not_an_abort() {
    let directory = std::env::temp_dir().join(format!("sa-cli-huge-id-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("g.el");
    std::fs::write(&file, "0 1\n18446744073709551615 2\n").unwrap();
    let (code, err) = exit_code(&["graph", "stats", file.to_str().unwrap()]);
    assert!(
        matches!(code, Some(c) if c != 0),
        "exit {code:?} (None = killed by a signal): {err}"
    );
    assert!(
        err.contains("g.el:2: vertex id 18446744073709551615 is too large"),
        "{err}"
    );
    std::fs::remove_dir_all(&directory).ok();
}

#[test]
fn output_paths_are_checked_before_the_work_starts() {
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "graph",
                "generate",
                "--scale",
                "30",
                "-o",
                "/nonexistent-dir/g.sag",
            ],
            "--output /nonexistent-dir/g.sag: folder /nonexistent-dir",
        ),
        (
            &["graph", "generate", "--scale", "10", "-o", "/tmp"],
            "--output /tmp: is a folder",
        ),
        (
            &[
                "bench",
                "aggregate",
                "--elements",
                "100000000",
                "--plot",
                "out.jpg",
            ],
            "must be .svg or .png",
        ),
        (
            &[
                "bench",
                "aggregate",
                "--elements",
                "100000000",
                "--csv",
                "/nonexistent-dir/a.csv",
            ],
            "--csv /nonexistent-dir/a.csv",
        ),
        (
            &[
                "bench",
                "aggregate",
                "--elements",
                "100000000",
                "--json",
                "/nonexistent-dir/a.json",
            ],
            "--json /nonexistent-dir/a.json",
        ),
        (
            &["graph", "bench", "--scale", "24", "--threads", "0,1"],
            "--threads 0",
        ),
        (
            &[
                "graph",
                "bench",
                "--scale",
                "24",
                "--json",
                "/nonexistent-dir/b.json",
            ],
            "--json /nonexistent-dir/b.json",
        ),
    ];
    for (arguments, expected) in cases {
        let started = std::time::Instant::now();
        let (ok, _, err) = smartarrays(arguments);
        assert!(!ok, "{arguments:?}");
        assert!(err.contains(expected), "{arguments:?}: {err}");
        // Refused at once: none of these reached the (long) work.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{arguments:?}"
        );
    }
}

#[test]
fn generate_reports_the_edge_count_after_dropping_duplicates() {
    let directory = std::env::temp_dir().join(format!("sa-cli-dups-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("k.sag");
    let path = file.to_str().unwrap();
    let (ok, _, err) = smartarrays(&[
        "graph",
        "generate",
        "--kind",
        "kronecker",
        "--scale",
        "10",
        "--duplicates",
        "drop",
        "--self-loops",
        "drop",
        "-o",
        path,
    ]);
    assert!(ok, "{err}");
    // "generated 1024 vertices, M edges (16384 generated, D dropped ...)" and M + D = 16384.
    let reported: Vec<u64> = err
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    let (edges, generated, dropped) = (reported[1], reported[2], reported[3]);
    assert_eq!((generated, edges + dropped), (16384, 16384), "{err}");
    assert!(dropped > 0, "{err}");
    let (ok, out, err) = smartarrays(&["graph", "stats", path]);
    assert!(ok, "{err}");
    let stats = format!("{out}{err}");
    assert!(
        stats.contains(&format!("1024 vertices, {edges} edges")),
        "{stats}"
    );
    std::fs::remove_dir_all(&directory).ok();
}

fn with_env(variable: &str, value: &str, arguments: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_smartarrays"))
        .args(arguments)
        .env(variable, value)
        .output()
        .expect("the binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn environment_settings_are_validated_and_behave_as_documented() {
    // A kernel level that does not exist is an error naming the variable and the choices.
    let (ok, _, err) = with_env("SMARTARRAYS_KERNEL", "bogus", &["info"]);
    assert!(!ok);
    assert!(
        err.contains(
            "SMARTARRAYS_KERNEL=\"bogus\" is not a kernel level: use scalar, avx2 or avx512"
        ),
        "{err}"
    );
    let (ok, out, err) = with_env("SMARTARRAYS_KERNEL", "scalar", &["info"]);
    assert!(ok, "{err}");
    assert!(out.contains("codec kernels: using scalar"), "{out}");
    // The topology: inline JSON ...
    let json = r#"{"nodes": [{"id": 0, "cpus": [0], "memory_total": 1073741824, "memory_free": 1073741824},
                             {"id": 1, "cpus": [1], "memory_total": 1073741824, "memory_free": 1073741824}]}"#;
    let (ok, out, err) = with_env("SMARTARRAYS_TOPOLOGY", json, &["info"]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("2 NUMA node(s), 2 CPU(s), described"),
        "{out}"
    );
    // ... or a file; a missing file or bad JSON names the variable.
    let file = std::env::temp_dir().join(format!("sa-topology-{}.json", std::process::id()));
    std::fs::write(&file, json).unwrap();
    let (ok, out, err) = with_env("SMARTARRAYS_TOPOLOGY", file.to_str().unwrap(), &["info"]);
    assert!(ok && out.starts_with("2 NUMA node(s)"), "{out}{err}");
    std::fs::remove_file(&file).ok();
    for bad in ["/nonexistent/topology.json", "{\"nodes\": 3}"] {
        let (ok, _, err) = with_env("SMARTARRAYS_TOPOLOGY", bad, &["info"]);
        assert!(!ok, "{bad}");
        assert!(
            err.contains("SMARTARRAYS_TOPOLOGY (JSON text or the path of a JSON file)"),
            "{err}"
        );
    }
    let (ok, _, err) = with_env("SMARTARRAYS_THREADS", "many", &["info"]);
    assert!(!ok);
    assert!(
        err.contains("SMARTARRAYS_THREADS=\"many\" is not a number"),
        "{err}"
    );
}

#[test]
fn graph_sssp_bc_tc_and_gauss_seidel_pagerank_print_checked_results() {
    let directory = std::env::temp_dir().join(format!("sa-cli-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    // 0 -5-> 1, 0 -1-> 2, 2 -2-> 1, 1 -1-> 3; 4 unreachable.
    let weighted = directory.join("g.wel");
    std::fs::write(&weighted, "0 1 5\n0 2 1\n2 1 2\n1 3 1\n4 0 1\n").unwrap();
    let path = weighted.to_str().unwrap();
    for variant in ["u", "v+e"] {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "sssp",
            path,
            "--source",
            "0",
            "--verify",
            "--all",
            "--format",
            "csv",
            "--variant",
            variant,
            "--threads",
            "3",
        ]);
        assert!(ok, "{err}");
        assert_eq!(
            out, "vertex,distance\n0,0\n1,3\n2,1\n3,4\n4,\n",
            "{variant}"
        );
    }
    let (ok, out, err) = smartarrays(&["graph", "sssp", path, "--delta", "4", "--format", "json"]);
    assert!(ok, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (value["reached"].as_u64(), value["max_distance"].as_u64()),
        (Some(4), Some(4))
    );
    // A malformed line is named; so is a bad delta.
    let bad = directory.join("bad.wel");
    std::fs::write(&bad, "0 1 5\n# c\n1 2 -3\n").unwrap();
    let (ok, _, err) = smartarrays(&["graph", "sssp", bad.to_str().unwrap()]);
    assert!(
        !ok && err.contains("bad.wel:3: weight \"-3\" is negative"),
        "{err}"
    );
    let (ok, _, err) = smartarrays(&["graph", "sssp", path, "--delta", "0"]);
    assert!(!ok && err.contains("delta must be at least 1"), "{err}");

    // A generated graph: weights generated, written with --write-weights and read back give
    // the same distances.
    let graph = directory.join("k.el");
    let graph_path = graph.to_str().unwrap();
    let (ok, _, err) = smartarrays(&[
        "graph",
        "generate",
        "--scale",
        "8",
        "--edge-factor",
        "8",
        "--undirected",
        "-o",
        graph_path,
    ]);
    assert!(ok, "{err}");
    let written = directory.join("k.wel");
    let (ok, _, err) = smartarrays(&[
        "graph",
        "convert",
        graph_path,
        "--undirected",
        "--write-weights",
        "--weight-seed",
        "3",
        "-o",
        written.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let run = |file: &str| {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "sssp",
            file,
            "--undirected",
            "--weight-seed",
            "3",
            "--source",
            "7",
            "--all",
            "--format",
            "csv",
            "--verify",
        ]);
        assert!(ok, "{err}");
        out
    };
    assert_eq!(run(graph_path), run(written.to_str().unwrap()));

    // Triangles: the same count in both orders; a directed graph is refused.
    let count = |order: &str| {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "tc",
            graph_path,
            "--undirected",
            "--order",
            order,
            "--format",
            "json",
        ]);
        assert!(ok, "{err}");
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        value["triangles"].as_u64().unwrap()
    };
    assert!(count("degree") > 0);
    assert_eq!(count("degree"), count("id"));
    let (ok, _, err) = smartarrays(&["graph", "tc", graph_path]);
    assert!(!ok && err.contains("needs an undirected graph"), "{err}");

    // Betweenness on a path 0 - 1 - 2 from every source.
    let path3 = directory.join("p.el");
    std::fs::write(&path3, "0 1\n1 2\n").unwrap();
    let (ok, out, err) = smartarrays(&[
        "graph",
        "bc",
        path3.to_str().unwrap(),
        "--undirected",
        "--all-sources",
        "--all",
        "--format",
        "csv",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out, "vertex,score\n0,0\n1,2\n2,0\n");
    let (ok, out, err) = smartarrays(&[
        "graph",
        "bc",
        graph_path,
        "--undirected",
        "--samples",
        "3",
        "--normalize",
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["sources"].as_array().unwrap().len(), 3);
    assert_eq!(value["top"][0]["score"].as_f64(), Some(1.0));
    let (ok, _, err) = smartarrays(&["graph", "bc", graph_path, "--sources", "999999"]);
    assert!(
        !ok && err.contains("source vertex 999999 does not exist"),
        "{err}"
    );

    // Gauss-Seidel PageRank agrees with Jacobi within a few tolerances.
    let ranks = |extra: &[&str]| {
        let mut arguments = vec![
            "graph",
            "pagerank",
            graph_path,
            "--undirected",
            "--all",
            "--format",
            "json",
            "--tolerance",
            "1e-6",
            "--precision",
            "f64",
        ];
        arguments.extend_from_slice(extra);
        let (ok, out, err) = smartarrays(&arguments);
        assert!(ok, "{err}");
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        let method = value["method"].as_str().unwrap().to_string();
        let values: Vec<f64> = value["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        (method, values)
    };
    let (jacobi_method, jacobi) = ranks(&[]);
    let (gauss_seidel_method, gauss_seidel) = ranks(&["--gauss-seidel"]);
    assert_eq!(
        (jacobi_method.as_str(), gauss_seidel_method.as_str()),
        ("jacobi", "gauss-seidel")
    );
    let distance: f64 = jacobi
        .iter()
        .zip(&gauss_seidel)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(distance < 1e-5, "{distance}");
    std::fs::remove_dir_all(&directory).ok();
}

#[test]
fn sql_runs_a_query_explains_it_and_names_bad_columns() {
    let (ok, out, err) = smartarrays(&[
        "sql",
        "--tpch",
        "0.001",
        "--format",
        "csv",
        "select l_returnflag, count(*) as n from lineitem group by l_returnflag order by l_returnflag",
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("l_returnflag,n\nA,"), "{out}");
    let (ok, out, err) = smartarrays(&[
        "sql",
        "--tpch",
        "0.001",
        "explain select sum(l_quantity) from lineitem where l_shipdate < date '1995-01-01'",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("filter in code space: l_shipdate"), "{out}");
    let (ok, _, err) = smartarrays(&["sql", "--tpch", "0.001", "select nope from lineitem"]);
    assert!(!ok);
    assert!(
        err.contains("unknown column nope (line 1, column 8)"),
        "{err}"
    );
}

#[test]
fn tpch_run_and_bench_report_every_query() {
    let (ok, out, err) = smartarrays(&["tpch", "run", "--sf", "0.001", "-q", "6", "-q", "14"]);
    assert!(ok, "{err}");
    assert!(out.contains("Q6 (") && out.contains("Q14 ("), "{out}");
    // SF 0.01: below it, partsupp repeats (part, supplier) pairs (dbgen's formula with fewer
    // than 20 suppliers), which Q9's join refuses (see the next check).
    let (ok, out, err) = smartarrays(&[
        "tpch",
        "bench",
        "--sf",
        "0.01",
        "--threads",
        "1,2",
        "--repetitions",
        "1",
        "--json",
    ]);
    assert!(ok, "{err}");
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    // Every supported query at each of the two thread counts.
    assert_eq!(
        value["results"].as_array().unwrap().len(),
        2 * smartarrays_query::queries::SUPPORTED.len()
    );
    let (ok, _, err) = smartarrays(&["tpch", "run", "--sf", "0.001", "-q", "9"]);
    assert!(!ok, "Q9 at SF 0.001 meets repeated partsupp keys");
    assert!(
        err.contains("has duplicate values on the build side"),
        "{err}"
    );
    let (ok, _, err) = smartarrays(&["tpch", "run", "--sf", "0.001", "-q", "23"]);
    assert!(!ok);
    assert!(err.contains("Q23 is not supported yet"), "{err}");
    // Queries from files, over the same tables, numbered in the order given.
    let dir = std::env::temp_dir().join(format!("sa-cli-sql-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.sql"), dir.join("b.sql"));
    std::fs::write(&a, "select count(*) as n from region").unwrap();
    std::fs::write(
        &b,
        "select count(*) as n from orders where exists (select * from lineitem where l_orderkey = o_orderkey)",
    )
    .unwrap();
    let (ok, out, err) = smartarrays(&[
        "tpch",
        "run",
        "--sf",
        "0.001",
        "--format",
        "json",
        "--quiet",
        "--sql-file",
        a.to_str().unwrap(),
        "--sql-file",
        b.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["query"], 1);
    assert_eq!(lines[0]["rows"][0][0], "5");
    assert_eq!(lines[1]["rows"][0][0], "1500");
}

#[test]
fn sql_reads_tables_from_parquet_csv_and_saved_files() {
    let directory = std::env::temp_dir().join(format!("sa-cli-tables-{}", std::process::id()));
    let query = "select l_returnflag, count(*) as n, sum(l_quantity) as q from lineitem group by l_returnflag order by l_returnflag";
    let (ok, expected, err) = smartarrays(&[
        "sql", "--tpch", "0.001", "--quiet", "--format", "csv", query,
    ]);
    assert!(ok, "{err}");
    for (format, extension) in [("parquet", "parquet"), ("sat", "sat"), ("csv", "csv")] {
        let dir = directory.join(format);
        let (ok, _, err) = smartarrays(&[
            "tpch",
            "generate",
            "--sf",
            "0.001",
            "--format",
            format,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        assert!(err.contains(&format!("lineitem.{extension}")), "{err}");
        let path = dir.join(format!("lineitem.{extension}"));
        // The CSV the generator writes is `|`-separated: read it as a .tbl file.
        let path = if extension == "csv" {
            let tbl = dir.join("lineitem.tbl");
            std::fs::rename(&path, &tbl).unwrap();
            tbl
        } else {
            path
        };
        let table = format!("lineitem={}", path.display());
        let (ok, out, err) = smartarrays(&["sql", "--table", &table, "--format", "csv", query]);
        assert!(ok, "{format}: {err}");
        assert_eq!(out, expected, "{format}");
    }
    // JSON output, one object per row.
    let table = format!("lineitem={}", directory.join("sat/lineitem.sat").display());
    let (ok, out, err) = smartarrays(&["sql", "--table", &table, "--format", "json", query]);
    assert!(ok, "{err}");
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["l_returnflag"], "A");
    // Bad input: a malformed file, a missing '=', an unknown kind of file.
    let bad = directory.join("bad.csv");
    std::fs::write(&bad, "a,b\n1,2\n3\n").unwrap();
    let (ok, _, err) = smartarrays(&[
        "sql",
        "--table",
        &format!("t={}", bad.display()),
        "select a from t",
    ]);
    assert!(!ok);
    assert!(
        err.contains("bad.csv: line 3: 1 fields, expected 2"),
        "{err}"
    );
    let (ok, _, err) = smartarrays(&["sql", "--table", "nothing", "select 1"]);
    assert!(!ok);
    assert!(err.contains("--table nothing: expected NAME=PATH"), "{err}");
    let (ok, _, err) = smartarrays(&["sql", "--table", "t=/tmp/x.json", "select 1"]);
    assert!(!ok);
    assert!(err.contains("unknown file kind"), "{err}");
    std::fs::remove_dir_all(&directory).ok();
}

#[test]
fn graph_kernels_in_degree_order_print_the_input_order_results() {
    let directory =
        std::env::temp_dir().join(format!("smartarrays-cli-order-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let graph = directory.join("k.el");
    let graph_path = graph.to_str().unwrap();
    let (ok, _, err) = smartarrays(&[
        "graph",
        "generate",
        "--scale",
        "9",
        "--edge-factor",
        "8",
        "-o",
        graph_path,
    ]);
    assert!(ok, "{err}");
    // Exact kernels: the CSV of every vertex's value is the same byte for byte.
    for (kernel, extra) in [
        ("bfs", vec!["--source", "5"]),
        ("components", vec![]),
        ("degree", vec![]),
        ("sssp", vec!["--source", "5", "--verify"]),
        ("bc", vec!["--samples", "3", "--seed", "2"]),
    ] {
        let run = |order: &str| {
            let mut arguments = vec![
                "graph",
                kernel,
                graph_path,
                "--undirected",
                "--all",
                "--format",
                "csv",
                "--vertex-order",
                order,
            ];
            arguments.extend(&extra);
            let (ok, out, err) = smartarrays(&arguments);
            assert!(ok, "{kernel} {order}: {err}");
            (out, err)
        };
        let (input, _) = run("input");
        let (degree, note) = run("degree");
        assert!(note.contains("relabelled by degree"), "{note}");
        if kernel == "bc" {
            // Sums of floating-point dependencies: equal to rounding.
            for (a, b) in input.lines().zip(degree.lines()).skip(1) {
                let value = |line: &str| line.split(',').nth(1).unwrap().parse::<f64>().unwrap();
                assert!((value(a) - value(b)).abs() <= 1e-9 * value(a).abs().max(1.0));
            }
        } else {
            assert_eq!(input, degree, "{kernel}");
        }
    }
    // PageRank: the same ranks to the tolerance.
    let ranks = |order: &str| {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "pagerank",
            graph_path,
            "--undirected",
            "--all",
            "--format",
            "csv",
            "--precision",
            "f64",
            "--tolerance",
            "1e-12",
            "--vertex-order",
            order,
        ]);
        assert!(ok, "{err}");
        out.lines()
            .skip(1)
            .map(|line| line.split(',').nth(1).unwrap().parse::<f64>().unwrap())
            .collect::<Vec<f64>>()
    };
    for (a, b) in ranks("input").iter().zip(ranks("degree")) {
        assert!((a - b).abs() < 1e-10);
    }
    // Triangles: the same count.
    let triangles = |order: &str| {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "tc",
            graph_path,
            "--undirected",
            "--format",
            "csv",
            "--vertex-order",
            order,
        ]);
        assert!(ok, "{err}");
        out.lines()
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(triangles("input"), triangles("degree"));
    // Convert: the relabelled graph and its id map.
    let written = directory.join("k.deg.sag");
    let map = directory.join("k.map");
    let (ok, _, err) = smartarrays(&[
        "graph",
        "convert",
        graph_path,
        "--undirected",
        "--vertex-order",
        "degree",
        "-o",
        written.to_str().unwrap(),
        "--id-map",
        map.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let map = std::fs::read_to_string(&map).unwrap();
    let mut new_ids: Vec<u64> = map
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split(' ');
            assert_eq!(parts.next().unwrap(), i.to_string());
            parts.next().unwrap().parse().unwrap()
        })
        .collect();
    let n = new_ids.len();
    new_ids.sort_unstable();
    assert_eq!(new_ids, (0..n as u64).collect::<Vec<_>>());
    // The relabelled file has the same components, counted the same.
    let count = |file: &str| {
        let (ok, out, err) = smartarrays(&[
            "graph",
            "components",
            file,
            "--undirected",
            "--format",
            "json",
        ]);
        assert!(ok, "{err}");
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        value["count"].as_u64().unwrap()
    };
    assert_eq!(count(graph_path), count(written.to_str().unwrap()));
    // Bad values are refused.
    let (ok, _, err) = smartarrays(&["graph", "bfs", graph_path, "--vertex-order", "random"]);
    assert!(!ok && err.contains("expected input or degree"), "{err}");
    let (ok, _, err) = smartarrays(&[
        "graph",
        "convert",
        graph_path,
        "-o",
        written.to_str().unwrap(),
        "--id-map",
        "x.map",
    ]);
    assert!(
        !ok && err.contains("--id-map needs --vertex-order degree"),
        "{err}"
    );
    std::fs::remove_dir_all(&directory).ok();
}
