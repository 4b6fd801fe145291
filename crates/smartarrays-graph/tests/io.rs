//! Loaders and writers: SNAP edge lists and Matrix Market files (valid inputs, and errors that
//! name the file, line and problem), the binary format (round trips at every variant, width
//! changes on reload, and damaged, truncated or inconsistent files refused), and format
//! detection.

use std::path::Path;
use std::sync::Arc;

use smartarrays::{Placement, Runtime};
use smartarrays_graph::io::{
    self, detect_format, load_binary, load_binary_weighted, load_graph, parse_binary,
    parse_edge_list, parse_matrix_market, save_binary, save_binary_weighted, save_graph, Format,
    TextOptions,
};
use smartarrays_graph::{
    build, build_weighted, generate, sssp, EdgeList, EdgeWeights, Graph, GraphError, GraphOptions,
    Keep, SsspOptions, Variant, WeightedEdges,
};
use xxhash_rust::xxh3::xxh3_64;

fn runtime() -> Arc<Runtime> {
    Arc::new(Runtime::with_threads(2).unwrap())
}

fn parse_error(result: Result<EdgeList, GraphError>) -> (u64, String) {
    match result {
        Err(GraphError::Parse {
            file,
            line,
            problem,
        }) => {
            assert_eq!(file, Path::new("input.txt"));
            (line, problem)
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn snap_edge_lists_parse_with_comments_weights_and_declared_nodes() {
    let text =
        b"# Directed graph\n# Nodes: 10 Edges: 3\n% also a comment\n\n0\t1\n  2 3 0.5\r\n4 4\n";
    let edges = parse_edge_list(text, Path::new("input.txt"), true, &runtime()).unwrap();
    assert_eq!(
        edges.iter().collect::<Vec<_>>(),
        vec![(0, 1), (2, 3), (4, 4)]
    );
    assert_eq!(edges.vertices(), 10);
    let no_newline = parse_edge_list(b"5 6", Path::new("input.txt"), true, &runtime()).unwrap();
    assert_eq!((no_newline.len(), no_newline.vertices()), (1, 7));
    assert!(
        parse_edge_list(b"", Path::new("input.txt"), true, &runtime())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn snap_errors_name_the_line_and_problem_even_in_late_chunks() {
    let cases: [(&[u8], u64, &str); 5] = [
        (b"0 1\n1 x\n", 2, "not an unsigned integer"),
        (b"0 1\n# c\n\n-3 1\n", 4, "negative"),
        (b"7\n", 1, "missing target"),
        (b"0 1 abc\n", 1, "unexpected"),
        (b"99999999999999999999999 1\n", 1, "larger than"),
    ];
    for (text, line, problem) in cases {
        let (got_line, got_problem) = parse_error(parse_edge_list(
            text,
            Path::new("input.txt"),
            true,
            &runtime(),
        ));
        assert_eq!(got_line, line, "{got_problem}");
        assert!(got_problem.contains(problem), "{got_problem}");
    }
    // A big file, parsed in many chunks, with the error far down.
    let mut big = String::new();
    for i in 0..400_000 {
        big.push_str(&format!("{i} {}\n", i + 1));
    }
    big.push_str("1 2 3 oops\n");
    let (line, _) = parse_error(parse_edge_list(
        big.as_bytes(),
        Path::new("input.txt"),
        true,
        &runtime(),
    ));
    assert_eq!(line, 400_001);
}

#[test]
fn matrix_market_files_parse_and_errors_are_precise() {
    let general = b"%%MatrixMarket matrix coordinate real general\n% comment\n3 4 3\n1 2 0.5\n3 4 1e3\n2 2 -1\n";
    let edges = parse_matrix_market(general, Path::new("input.txt"), &runtime()).unwrap();
    assert!(edges.is_directed());
    assert_eq!(
        edges.iter().collect::<Vec<_>>(),
        vec![(0, 1), (2, 3), (1, 1)]
    );
    assert_eq!(edges.vertices(), 4);
    let symmetric = b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 2\n2 1\n5 3\n";
    let edges = parse_matrix_market(symmetric, Path::new("input.txt"), &runtime()).unwrap();
    assert!(!edges.is_directed());
    let graph = build(edges, &GraphOptions::default()).unwrap();
    assert_eq!((graph.vertices(), graph.edges()), (5, 2));
    assert_eq!(graph.out_neighbors(2).unwrap(), vec![4]);
    let cases: [(&[u8], u64, &str); 8] = [
        (b"", 1, "empty"),
        (b"hello\n", 1, "banner"),
        (
            b"%%MatrixMarket matrix array real general\n2 2\n",
            1,
            "coordinate",
        ),
        (
            b"%%MatrixMarket matrix coordinate pattern general\n",
            2,
            "size line",
        ),
        (
            b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n",
            3,
            "outside",
        ),
        (
            b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
            3,
            "numeric value",
        ),
        (
            b"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n",
            4,
            "declares 2 entries",
        ),
        (
            b"%%MatrixMarket matrix coordinate pattern unknown\n",
            1,
            "symmetry",
        ),
    ];
    for (text, line, problem) in cases {
        let (got_line, got_problem) = parse_error(parse_matrix_market(
            text,
            Path::new("input.txt"),
            &runtime(),
        ));
        assert_eq!(got_line, line, "{got_problem}");
        assert!(got_problem.contains(problem), "{got_problem}");
    }
}

fn same_graph(a: &Graph, b: &Graph) {
    assert_eq!(
        (a.vertices(), a.edges(), a.is_directed(), a.self_loops()),
        (b.vertices(), b.edges(), b.is_directed(), b.self_loops())
    );
    for ((_, x), (_, y)) in a.arrays().iter().zip(b.arrays()) {
        assert_eq!(x.to_vec(), y.to_vec());
    }
}

#[test]
fn binary_round_trips_every_variant_and_changes_widths_on_reload() {
    let folder = tempfile::tempdir().unwrap();
    for directed in [true, false] {
        for variant in Variant::ALL {
            let edges = generate::kronecker(9, 8, 3, directed).unwrap();
            let graph = build(
                edges,
                &GraphOptions::variant(variant).self_loops(Keep::Keep),
            )
            .unwrap();
            let path = folder.path().join(format!("{directed}-{variant}.sag"));
            save_binary(&graph, &path).unwrap();
            for reload in Variant::ALL {
                let options =
                    GraphOptions::variant(reload).placement(Placement::Interleaved(vec![]));
                let loaded = load_binary(&path, &options).unwrap();
                same_graph(&graph, &loaded);
                let expected = build(
                    generate::kronecker(9, 8, 3, directed).unwrap(),
                    &GraphOptions::variant(reload),
                )
                .unwrap();
                assert_eq!(loaded.edge().bits(), expected.edge().bits());
                assert_eq!(loaded.begin().bits(), expected.begin().bits());
            }
            let auto = load_graph(
                &path,
                Format::Auto,
                &TextOptions::default(),
                &GraphOptions::default(),
            )
            .unwrap();
            same_graph(&graph, &auto);
        }
    }
    let empty = build(EdgeList::new(false), &GraphOptions::default()).unwrap();
    let path = folder.path().join("empty.sag");
    save_binary(&empty, &path).unwrap();
    same_graph(
        &empty,
        &load_binary(&path, &GraphOptions::default()).unwrap(),
    );
}

fn format_problem(result: Result<Graph, GraphError>) -> String {
    match result {
        Err(GraphError::Format { problem, .. }) => problem,
        other => panic!("expected a format error, got {other:?}"),
    }
}

fn rechecksum(bytes: &mut [u8]) {
    let count = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    for i in 0..count {
        let at = 40 + 48 * i;
        let offset = u64::from_le_bytes(bytes[at + 16..at + 24].try_into().unwrap()) as usize;
        let size = u64::from_le_bytes(bytes[at + 24..at + 32].try_into().unwrap()) as usize;
        let sum = xxh3_64(&bytes[offset..offset + size]);
        bytes[at + 32..at + 40].copy_from_slice(&sum.to_le_bytes());
    }
    let end = 40 + 48 * count;
    let sum = xxh3_64(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn damaged_truncated_and_inconsistent_binary_files_are_refused() {
    let graph = build(
        generate::kronecker(8, 8, 1, true).unwrap(),
        &GraphOptions::variant(Variant::VE).duplicates(Keep::Drop),
    )
    .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("g.sag");
    save_binary(&graph, &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let options = GraphOptions::default();
    let name = Path::new("g.sag");
    assert!(parse_binary(&good, name, &options).is_ok());
    // Unaligned input is copied first, not refused.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&good);
    assert!(parse_binary(&shifted[1..], name, &options).is_ok());

    assert!(format_problem(parse_binary(b"not a graph", name, &options)).contains("magic"));
    assert!(format_problem(parse_binary(&good[..100], name, &options)).contains("header"));
    assert!(
        format_problem(parse_binary(&good[..good.len() - 100], name, &options)).contains("outside")
    );
    let mut version = good.clone();
    version[8] = 3;
    let problem = format_problem(parse_binary(&version, name, &options));
    assert!(
        problem.contains("version 3") && problem.contains("versions 1 to 2"),
        "{problem}"
    );
    let mut damaged = good.clone();
    let last = damaged.len() - 80;
    damaged[last] ^= 0x10;
    assert!(format_problem(parse_binary(&damaged, name, &options)).contains("checksum"));
    let mut header = good.clone();
    header[20] ^= 1;
    assert!(format_problem(parse_binary(&header, name, &options)).contains("header checksum"));

    // Consistent checksums over inconsistent contents: caught by the structural checks.
    let begin_data = u64::from_le_bytes(good[40 + 16..40 + 24].try_into().unwrap()) as usize;
    let mut decreasing = good.clone();
    decreasing[begin_data + 5] = 0xFF;
    rechecksum(&mut decreasing);
    let problem = format_problem(parse_binary(&decreasing, name, &options));
    assert!(problem.contains("begin"), "{problem}");
    let mut vertices = good.clone();
    vertices[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    rechecksum(&mut vertices);
    assert!(format_problem(parse_binary(&vertices, name, &options)).contains("offsets for"));
    let mut width = good.clone();
    width[40 + 48 + 4..40 + 48 + 8].copy_from_slice(&65u32.to_le_bytes());
    rechecksum(&mut width);
    assert!(format_problem(parse_binary(&width, name, &options)).contains("bit width"));
    assert!(matches!(
        load_binary(&folder.path().join("missing.sag"), &options),
        Err(GraphError::Io { .. })
    ));
}

#[test]
fn text_writers_round_trip_through_the_loaders_and_formats_are_detected() {
    let folder = tempfile::tempdir().unwrap();
    for directed in [true, false] {
        let options = GraphOptions::variant(Variant::V).duplicates(Keep::Drop);
        let graph = build(generate::uniform(300, 4, 2, directed).unwrap(), &options).unwrap();
        for (file, format) in [
            ("g.el", Format::EdgeList),
            ("g.mtx", Format::MatrixMarket),
            ("g.sag", Format::Binary),
        ] {
            let path = folder.path().join(file);
            save_graph(&graph, &path, Format::Auto).unwrap();
            let text = TextOptions {
                undirected: !directed,
                vertices: Some(300),
            };
            let loaded = load_graph(&path, Format::Auto, &text, &options).unwrap();
            same_graph(&graph, &loaded);
            let head = std::fs::read(&path).unwrap();
            assert_eq!(
                detect_format(Path::new("x"), &head[..head.len().min(64)]),
                if format == Format::EdgeList {
                    Format::EdgeList
                } else {
                    format
                }
            );
        }
    }
    let path = folder.path().join("bad.el");
    std::fs::write(&path, "0 1\n2 three\n").unwrap();
    let error = load_graph(
        &path,
        Format::Auto,
        &TextOptions::default(),
        &GraphOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}:2: target vertex id \"three\" is not an unsigned integer",
            path.display()
        )
    );
    let edges = io::read_edges(
        &folder.path().join("g.el"),
        Format::Auto,
        &TextOptions {
            undirected: true,
            vertices: Some(1000),
        },
        &GraphOptions::default(),
    )
    .unwrap();
    assert_eq!(edges.vertices(), 1000);
    assert!(!edges.is_directed());
}

/// Whether this machine could hold a graph of `vertices` vertices (then the huge-id cases below
/// are allowed to succeed: only refusing them on smaller machines is required).
fn fits(vertices: u128) -> bool {
    smartarrays_graph::budget::check_graph(vertices, 0).is_ok()
}

#[test]
fn huge_vertex_ids_are_errors_naming_the_line_not_aborts() {
    // `1 4294967296` used to end the CLI with a 34 GB allocation failure (SIGABRT).
    let text = b"0 1\n# c\n1 4294967296\n2 3\n";
    if !fits(1 << 32) {
        let (line, problem) = parse_error(parse_edge_list(
            text,
            Path::new("input.txt"),
            true,
            &runtime(),
        ));
        assert_eq!(line, 3);
        assert!(
            problem.starts_with("vertex id 4294967296 is too large: 4294967297 vertices need"),
            "{problem}"
        );
        assert!(problem.contains("available"), "{problem}");
    }
    // The largest id: a graph one past it has 2^64 vertices, which no machine holds.
    let (line, problem) = parse_error(parse_edge_list(
        b"18446744073709551615 0\n",
        Path::new("input.txt"),
        false,
        &runtime(),
    ));
    assert_eq!(line, 1);
    assert!(
        problem
            .contains("vertex id 18446744073709551615 is too large: 18446744073709551616 vertices"),
        "{problem}"
    );
    let (line, problem) = parse_error(parse_edge_list(
        b"0 1\n# Nodes: 99999999999999 Edges: 1\n",
        Path::new("input.txt"),
        false,
        &runtime(),
    ));
    assert_eq!(line, 2);
    assert!(
        problem.contains("declared vertex count is too large"),
        "{problem}"
    );
}

#[test]
fn a_matrix_market_size_line_beyond_memory_is_an_error_naming_the_line() {
    let text =
        b"%%MatrixMarket matrix coordinate pattern general\n% c\n99999999999 99999999999 3\n1 2\n";
    let (line, problem) = parse_error(parse_matrix_market(
        text,
        Path::new("input.txt"),
        &runtime(),
    ));
    assert_eq!(line, 3);
    assert!(
        problem.starts_with("the size line asks too much: 99999999999 vertices"),
        "{problem}"
    );
}

#[test]
fn generator_requests_beyond_memory_are_refused_before_allocating() {
    for scale in 28..=32 {
        if fits((1u128 << scale) * 3) {
            continue;
        }
        let error = generate::kronecker(scale, 16, 1, false)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(&format!("scale {scale} x edge factor 16")),
            "{error}"
        );
        assert!(error.contains("available"), "{error}");
    }
    let error = generate::uniform(1 << 32, 1 << 8, 1, false)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("4294967296 vertices and 1099511627776 edges need at least"),
        "{error}"
    );
}

fn weighted_problem<T: std::fmt::Debug>(result: Result<T, GraphError>) -> String {
    match result {
        Err(GraphError::Format { problem, .. }) => problem,
        other => panic!("expected a format error, got {other:?}"),
    }
}

/// A weighted graph whose weights span `largest` (so widths differ by variant).
fn weighted_graph(directed: bool, variant: Variant, largest: u32) -> (Graph, EdgeWeights) {
    let pairs = generate::kronecker(7, 8, 5, directed).unwrap();
    let mut edges = WeightedEdges::new(directed);
    for (i, (u, v)) in pairs.iter().enumerate() {
        edges.push(
            u,
            v,
            (i as u32).wrapping_mul(2_654_435_761) % largest.max(1) + 1,
        );
    }
    edges.push(0, 0, largest);
    build_weighted(edges, &GraphOptions::variant(variant)).unwrap()
}

#[test]
fn binary_files_keep_weights_at_every_variant_and_width() {
    let folder = tempfile::tempdir().unwrap();
    for directed in [true, false] {
        for largest in [1, 63, 64, 65, 1023, 1025, u32::MAX] {
            let (graph, weights) = weighted_graph(directed, Variant::U, largest);
            assert_eq!(weights.max(), u64::from(largest));
            let path = folder.path().join(format!("w-{directed}-{largest}.sag"));
            save_binary_weighted(&graph, &weights, &path).unwrap();
            for reload in Variant::ALL {
                let options = GraphOptions::variant(reload);
                let (loaded, loaded_weights) = load_binary_weighted(&path, &options).unwrap();
                same_graph(&graph, &loaded);
                let loaded_weights = loaded_weights.expect("weights were saved");
                assert_eq!(loaded_weights.array().to_vec(), weights.array().to_vec());
                assert_eq!(loaded_weights.max(), u64::from(largest));
                // Weights take the edge class's width: 32 bits uncompressed, the fewest that
                // hold the largest weight compressed.
                let expected = options.edges.width.resolve(u64::from(largest), 32);
                assert_eq!(loaded_weights.array().bits(), expected);
                // The plain loader reads the same graph and leaves the weights out.
                same_graph(&graph, &load_binary(&path, &options).unwrap());
                let (auto, auto_weights) =
                    io::load_graph_weighted(&path, Format::Auto, &TextOptions::default(), &options)
                        .unwrap();
                same_graph(&graph, &auto);
                assert!(auto_weights.is_some());
            }
            let source = 0;
            let expected =
                sssp(&graph, &weights, source, &SsspOptions::default(), |_, _| {}).unwrap();
            let (loaded, loaded_weights) =
                load_binary_weighted(&path, &GraphOptions::variant(Variant::VE)).unwrap();
            let found = sssp(
                &loaded,
                &loaded_weights.unwrap(),
                source,
                &SsspOptions::default(),
                |_, _| {},
            )
            .unwrap();
            let distances = |r: &smartarrays_graph::SsspResult| {
                (0..graph.vertices() as u64)
                    .map(|v| r.distance(v))
                    .collect::<Vec<_>>()
            };
            assert_eq!(distances(&expected), distances(&found));
        }
    }
    // No edges: an empty weights section.
    let (graph, weights) =
        build_weighted(WeightedEdges::new(true), &GraphOptions::default()).unwrap();
    let path = folder.path().join("empty-weighted.sag");
    save_binary_weighted(&graph, &weights, &path).unwrap();
    let (loaded, loaded_weights) = load_binary_weighted(&path, &GraphOptions::default()).unwrap();
    same_graph(&graph, &loaded);
    assert_eq!(loaded_weights.unwrap().len(), 0);
    // A file without weights loads with none.
    let plain = folder.path().join("plain.sag");
    save_binary(&graph, &plain).unwrap();
    assert!(load_binary_weighted(&plain, &GraphOptions::default())
        .unwrap()
        .1
        .is_none());
    // Weights of another graph are refused before anything is written.
    let (other, other_weights) = weighted_graph(true, Variant::U, 9);
    let refused = folder.path().join("refused.sag");
    assert!(matches!(
        save_binary_weighted(&graph, &other_weights, &refused),
        Err(GraphError::InvalidArgument(_))
    ));
    assert!(!refused.exists());
    drop(other);
}

#[test]
fn generated_weights_of_small_graphs_save_and_reload() {
    // A small graph draws a largest generated weight below 255; the file records the drawn one.
    let folder = tempfile::tempdir().unwrap();
    for vertices in [0u64, 1, 2, 63, 64, 65] {
        let mut edges = EdgeList::new(false);
        for v in 1..vertices {
            edges.push(v - 1, v);
        }
        edges.set_vertices(vertices).unwrap();
        let graph = build(edges, &GraphOptions::default()).unwrap();
        let weights = EdgeWeights::generate(&graph, 9, &GraphOptions::default().edges).unwrap();
        let drawn = weights.array().to_vec().into_iter().max().unwrap_or(0);
        assert_eq!(weights.max(), drawn);
        let path = folder.path().join(format!("generated-{vertices}.sag"));
        save_binary_weighted(&graph, &weights, &path).unwrap();
        let (_, loaded) = load_binary_weighted(&path, &GraphOptions::default()).unwrap();
        let loaded = loaded.expect("weights were saved");
        assert_eq!(loaded.array().to_vec(), weights.array().to_vec());
        assert_eq!(loaded.max(), drawn);
    }
}

#[test]
fn version_1_files_load_and_damaged_weights_are_refused() {
    let folder = tempfile::tempdir().unwrap();
    let graph = build(
        generate::kronecker(8, 8, 1, true).unwrap(),
        &GraphOptions::default(),
    )
    .unwrap();
    let path = folder.path().join("plain.sag");
    save_binary(&graph, &path).unwrap();
    let name = Path::new("w.sag");
    let options = GraphOptions::default();
    // A version-1 file (no weights section: the same bytes but the version) still loads.
    let mut old = std::fs::read(&path).unwrap();
    assert_eq!(old[8], 2);
    old[8] = 1;
    rechecksum(&mut old);
    same_graph(&graph, &parse_binary(&old, name, &options).unwrap());
    let (_, none) = io::parse_binary_weighted(&old, name, &options).unwrap();
    assert!(none.is_none());

    let (graph, weights) = weighted_graph(true, Variant::U, 1000);
    let path = folder.path().join("weighted.sag");
    save_binary_weighted(&graph, &weights, &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    assert!(io::parse_binary_weighted(&good, name, &options).is_ok());
    // Version 1 knew no weights flag.
    let mut old = good.clone();
    old[8] = 1;
    rechecksum(&mut old);
    let problem = weighted_problem(io::parse_binary_weighted(&old, name, &options));
    assert!(problem.contains("unknown flags"), "{problem}");
    // A weights flag without the weights array (and the converse).
    let mut flag = good.clone();
    flag[12] &= !2;
    rechecksum(&mut flag);
    let problem = weighted_problem(io::parse_binary_weighted(&flag, name, &options));
    assert!(problem.contains("5 arrays"), "{problem}");
    // Damaged weight data.
    let entry = 40 + 48 * 4;
    let data = u64::from_le_bytes(good[entry + 16..entry + 24].try_into().unwrap()) as usize;
    let mut damaged = good.clone();
    damaged[data] ^= 1;
    let problem = weighted_problem(io::parse_binary_weighted(&damaged, name, &options));
    assert!(problem.contains("weight: checksum"), "{problem}");
    // A header that understates the largest weight (checksums made consistent).
    let mut understated = good.clone();
    understated[entry + 40..entry + 48].copy_from_slice(&999u64.to_le_bytes());
    rechecksum(&mut understated);
    let compressed = GraphOptions::variant(Variant::VE);
    let problem = weighted_problem(io::parse_binary_weighted(&understated, name, &compressed));
    assert!(problem.contains("largest weight"), "{problem}");
    let problem = weighted_problem(io::parse_binary_weighted(&understated, name, &options));
    assert!(problem.contains("largest weight is 1000"), "{problem}");
    // Weights of the wrong length.
    let mut short = good.clone();
    let len = u64::from_le_bytes(short[entry + 8..entry + 16].try_into().unwrap());
    short[entry + 8..entry + 16].copy_from_slice(&(len - 1).to_le_bytes());
    let words = smartarrays::codec::storage_words(len as usize - 1, 32).unwrap() as u64;
    short[entry + 24..entry + 32].copy_from_slice(&(words * 8).to_le_bytes());
    rechecksum(&mut short);
    let problem = weighted_problem(io::parse_binary_weighted(&short, name, &options));
    assert!(problem.contains("weights for"), "{problem}");
}

#[test]
fn weighted_files_keep_their_weights_through_save_and_load() {
    let folder = tempfile::tempdir().unwrap();
    let mut edges = WeightedEdges::new(true);
    for (u, v, w) in [(0, 1, 5), (0, 2, 1), (2, 1, 2), (1, 3, u32::MAX), (4, 4, 0)] {
        edges.push(u, v, w);
    }
    let options = GraphOptions::default();
    let (graph, weights) = build_weighted(edges, &options).unwrap();
    let want = sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap();
    let want: Vec<Option<u64>> = (0..5).map(|v| want.distance(v)).collect();
    assert_eq!(want[3], Some(3 + u64::from(u32::MAX)));
    let text = TextOptions::default();
    for name in ["g.sag", "g.wel", "G.WEL"] {
        let path = folder.path().join(name);
        io::save_graph_with_weights(&graph, Some(&weights), &path).unwrap();
        let (loaded, again) = io::load_graph_with_weights(&path, &text, &options).unwrap();
        let again = again.unwrap_or_else(|| panic!("{name} lost its weights"));
        let got = sssp(&loaded, &again, 0, &SsspOptions::default(), |_, _| {}).unwrap();
        let got: Vec<Option<u64>> = (0..5).map(|v| got.distance(v)).collect();
        assert_eq!(got, want, "{name}");
    }
    // Formats without a place for weights save the edges and load without weights.
    for name in ["g.el", "g.mtx"] {
        let path = folder.path().join(name);
        io::save_graph_with_weights(&graph, Some(&weights), &path).unwrap();
        let (loaded, none) = io::load_graph_with_weights(&path, &text, &options).unwrap();
        assert!(none.is_none(), "{name}");
        assert_eq!(loaded.edges(), graph.edges(), "{name}");
    }
    // A weighted edge list of a graph without weights is refused, and nothing is written.
    let plain = folder.path().join("plain.wel");
    let problem = io::save_graph_with_weights(&graph, None, &plain).unwrap_err();
    assert!(problem.to_string().contains("no edge weights"), "{problem}");
    assert!(!plain.exists());
    assert!(io::is_weighted_edge_list(Path::new("a/b.Wel")));
    assert!(!io::is_weighted_edge_list(Path::new("a/b.el")));
    // Generated weights sit in the graph's placement at the default width.
    let generated = EdgeWeights::generate_like_edges(&graph, 3).unwrap();
    assert_eq!(generated.len() as u64, graph.stored_entries());
    assert!(generated.max() <= 255);
}
