//! SSSP, betweenness centrality, triangle counting and Gauss-Seidel PageRank against plain
//! sequential references over `Vec`s (Dijkstra, Brandes, brute-force triangles, Jacobi
//! PageRank), for the U and V+E layouts at 1, 2 (two described nodes) and 3 threads, with
//! duplicates and self-loops kept or dropped; the edge cases (empty graph, one vertex,
//! unreachable vertices, bad arguments); and the weighted edge list reader's errors.

use std::collections::{BinaryHeap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::{Placement, Runtime, Topology};
use smartarrays_graph::io::{
    parse_weighted_edge_list, read_weighted_edges, write_weighted_edge_list,
};
use smartarrays_graph::{
    bc, build, build_weighted, generate, pagerank, pagerank_gauss_seidel, sssp, tc, verify_sssp,
    BcOptions, BcSources, CellOrder, EdgeList, EdgeWeights, Graph, GraphError, GraphOptions, Keep,
    PageRankOptions, Precision, SsspOptions, TcOrder, Variant, WeightedEdges,
};

fn runtimes() -> Vec<Arc<Runtime>> {
    let described = Arc::new(Topology::uniform(2, 1, 1 << 30).unwrap());
    vec![
        Arc::new(Runtime::with_threads(1).unwrap()),
        Arc::new(Runtime::with_threads(3).unwrap()),
        Arc::new(Runtime::on_described(described, 2).unwrap()),
    ]
}

fn layouts() -> [Variant; 2] {
    [Variant::U, Variant::VE]
}

fn options(
    variant: Variant,
    runtime: &Arc<Runtime>,
    duplicates: Keep,
    loops: Keep,
) -> GraphOptions {
    GraphOptions::variant(variant)
        .placement(Placement::OsDefault)
        .runtime(Arc::clone(runtime))
        .duplicates(duplicates)
        .self_loops(loops)
}

/// Weighted out-lists laid out as the build does (both directions when undirected, a
/// self-loop once; duplicates kept or the lightest kept).
fn reference_weighted(
    n: usize,
    triples: &[(u32, u32, u32)],
    directed: bool,
    duplicates: Keep,
    loops: Keep,
) -> Vec<Vec<(usize, u64)>> {
    let mut out = vec![Vec::new(); n];
    for &(s, t, w) in triples {
        let (s, t, w) = (s as usize, t as usize, w as u64);
        if s == t && loops == Keep::Drop {
            continue;
        }
        out[s].push((t, w));
        if !directed && s != t {
            out[t].push((s, w));
        }
    }
    for list in &mut out {
        list.sort_unstable();
        if duplicates == Keep::Drop {
            list.dedup_by_key(|e| e.0);
        }
    }
    out
}

fn dijkstra(out: &[Vec<(usize, u64)>], source: usize) -> Vec<Option<u64>> {
    let mut distance = vec![None; out.len()];
    let mut heap = BinaryHeap::new();
    heap.push(std::cmp::Reverse((0u64, source)));
    while let Some(std::cmp::Reverse((d, u))) = heap.pop() {
        if distance[u].is_some() {
            continue;
        }
        distance[u] = Some(d);
        for &(v, w) in &out[u] {
            if distance[v].is_none() {
                heap.push(std::cmp::Reverse((d + w, v)));
            }
        }
    }
    distance
}

/// Brandes over out-lists (edges with multiplicity).
fn brandes(out: &[Vec<usize>], sources: &[usize]) -> Vec<f64> {
    let n = out.len();
    let mut scores = vec![0.0; n];
    for &s in sources {
        let mut depth = vec![usize::MAX; n];
        let mut paths = vec![0.0f64; n];
        let mut order = Vec::new();
        let mut queue = VecDeque::from([s]);
        depth[s] = 0;
        paths[s] = 1.0;
        while let Some(u) = queue.pop_front() {
            order.push(u);
            for &v in &out[u] {
                if depth[v] == usize::MAX {
                    depth[v] = depth[u] + 1;
                    queue.push_back(v);
                }
                if depth[v] == depth[u] + 1 {
                    paths[v] += paths[u];
                }
            }
        }
        let mut dependency = vec![0.0; n];
        for &u in order.iter().rev() {
            for &v in &out[u] {
                if depth[v] == depth[u] + 1 {
                    dependency[u] += paths[u] / paths[v] * (1.0 + dependency[v]);
                }
            }
            if u != s {
                scores[u] += dependency[u];
            }
        }
    }
    scores
}

fn brute_triangles(n: usize, pairs: &[[u32; 2]]) -> u64 {
    let mut adjacent = vec![vec![false; n]; n];
    for &[s, t] in pairs {
        if s != t {
            adjacent[s as usize][t as usize] = true;
            adjacent[t as usize][s as usize] = true;
        }
    }
    let mut count = 0;
    for a in 0..n {
        for b in a + 1..n {
            if !adjacent[a][b] {
                continue;
            }
            count += (b + 1..n)
                .filter(|&c| adjacent[a][c] && adjacent[b][c])
                .count() as u64;
        }
    }
    count
}

fn out_lists(graph: &Graph) -> Vec<Vec<usize>> {
    (0..graph.vertices() as u64)
        .map(|v| {
            graph
                .out_neighbors(v)
                .unwrap()
                .into_iter()
                .map(|x| x as usize)
                .collect()
        })
        .collect()
}

fn check_sssp(graph: &Graph, weights: &EdgeWeights, reference: &[Vec<(usize, u64)>], label: &str) {
    let n = graph.vertices();
    for source in [0, n / 2, n - 1] {
        let expected = dijkstra(reference, source);
        for delta in [1, 3, 64] {
            let result = sssp(
                graph,
                weights,
                source as u64,
                &SsspOptions { delta },
                |_, _| {},
            )
            .unwrap();
            let got: Vec<Option<u64>> = (0..n as u64).map(|v| result.distance(v)).collect();
            assert_eq!(got, expected, "{label} source {source} delta {delta}");
            assert_eq!(result.reached, expected.iter().flatten().count() as u64);
            verify_sssp(graph, weights, &result).unwrap();
        }
    }
}

fn check_bc(graph: &Graph, label: &str) {
    let lists = out_lists(graph);
    let n = graph.vertices();
    let all: Vec<usize> = (0..n).collect();
    let expected = brandes(&lists, &all);
    let result = bc(
        graph,
        &BcOptions {
            sources: BcSources::All,
        },
        |_, _| {},
    )
    .unwrap();
    for (v, (got, want)) in result.scores.to_vec().iter().zip(&expected).enumerate() {
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{label} vertex {v}: {got} != {want}"
        );
    }
    let sampled = bc(
        graph,
        &BcOptions {
            sources: BcSources::Sample { count: 3, seed: 9 },
        },
        |_, _| {},
    );
    if lists.iter().any(|l| !l.is_empty()) {
        let sampled = sampled.unwrap();
        let sources: Vec<usize> = sampled.sources.iter().map(|&s| s as usize).collect();
        assert_eq!(sources.len(), 3);
        assert!(sources.iter().all(|&s| !lists[s].is_empty()));
        let expected = brandes(&lists, &sources);
        for (got, want) in sampled.scores.to_vec().iter().zip(&expected) {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{label} sampled"
            );
        }
    } else {
        assert!(sampled.is_err());
    }
}

#[test]
fn kernels_match_the_references_on_every_layout_and_thread_count() {
    let base = generate::kronecker(7, 6, 3, true).unwrap();
    let mut pairs: Vec<[u32; 2]> = base.iter().map(|(s, t)| [s as u32, t as u32]).collect();
    // Self-loops, duplicates and an isolated tail of unreachable vertices.
    pairs.extend([[5, 5], [7, 9], [7, 9], [9, 7]]);
    let n = 140usize;
    let triples: Vec<(u32, u32, u32)> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| (p[0], p[1], (i as u32 * 37) % 23))
        .collect();
    for runtime in runtimes() {
        for variant in layouts() {
            for directed in [true, false] {
                for (duplicates, loops) in [(Keep::Keep, Keep::Keep), (Keep::Drop, Keep::Drop)] {
                    let label = format!(
                        "{} threads {variant} directed {directed} {duplicates:?}/{loops:?}",
                        runtime.threads()
                    );
                    let options = options(variant, &runtime, duplicates, loops);
                    let mut weighted = WeightedEdges::new(directed);
                    for &(s, t, w) in &triples {
                        weighted.push(s as u64, t as u64, w);
                    }
                    weighted.edges_mut().set_vertices(n as u64).unwrap();
                    let (graph, weights) = build_weighted(weighted, &options).unwrap();
                    let reference = reference_weighted(n, &triples, directed, duplicates, loops);
                    for v in 0..n as u64 {
                        let got = weights.out_edges(&graph, v).unwrap();
                        let want: Vec<(u64, u64)> = reference[v as usize]
                            .iter()
                            .map(|&(t, w)| (t as u64, w))
                            .collect();
                        assert_eq!(got, want, "{label} weights of {v}");
                    }
                    check_sssp(&graph, &weights, &reference, &label);
                    check_bc(&graph, &label);
                    if directed {
                        assert!(matches!(
                            tc(&graph, TcOrder::Degree, |_, _| {}),
                            Err(GraphError::InvalidArgument(_))
                        ));
                    } else {
                        let expected = brute_triangles(n, &pairs);
                        assert!(expected > 10, "{label}: the test graph has triangles");
                        for order in [TcOrder::Id, TcOrder::Degree] {
                            assert_eq!(
                                tc(&graph, order, |_, _| {}).unwrap(),
                                expected,
                                "{label} {order:?}"
                            );
                        }
                    }
                    check_gauss_seidel(&graph, &label);
                }
            }
        }
    }
}

fn check_gauss_seidel(graph: &Graph, label: &str) {
    // Against f64 Jacobi, with f64 and with f32 (then f64) Gauss-Seidel contributions.
    for (tolerance, precision) in [
        (1e-3, Precision::F64),
        (1e-7, Precision::F64),
        (1e-3, Precision::F32),
        (1e-7, Precision::F32),
    ] {
        let options = PageRankOptions {
            tolerance,
            contributions: Precision::F64,
            ..PageRankOptions::default()
        };
        let jacobi = pagerank(graph, &options, |_| {}).unwrap();
        assert_eq!(jacobi.summary.cell_order, CellOrder::Vertex, "{label}");
        // Jacobi with cells in degree order: the same sums in the same order, so the same
        // ranks bit for bit at any thread count.
        let jacobi_by_degree = pagerank(
            graph,
            &PageRankOptions {
                cell_order: CellOrder::Degree,
                contributions: precision,
                ..options.clone()
            },
            |_| {},
        )
        .unwrap();
        let jacobi_by_vertex = pagerank(
            graph,
            &PageRankOptions {
                cell_order: CellOrder::Vertex,
                contributions: precision,
                ..options.clone()
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(jacobi_by_degree.summary.cell_order, CellOrder::Degree);
        assert_eq!(
            jacobi_by_degree.ranks.to_vec(),
            jacobi_by_vertex.ranks.to_vec(),
            "{label} tolerance {tolerance} {precision:?}: Jacobi in degree order"
        );
        assert_eq!(
            jacobi_by_degree.summary.iterations,
            jacobi_by_vertex.summary.iterations
        );
        let gauss_seidel = pagerank_gauss_seidel(
            graph,
            &PageRankOptions {
                contributions: precision,
                ..options.clone()
            },
            |_| {},
        )
        .unwrap();
        assert!(gauss_seidel.summary.converged, "{label}");
        // Small graphs keep their cells in vertex order unless told otherwise.
        assert_eq!(
            gauss_seidel.summary.cell_order,
            CellOrder::Vertex,
            "{label}"
        );
        // Cells in degree order: the same sweep, so the same ranks (bit for bit on one
        // thread, where the batches run in order).
        let by_degree = pagerank_gauss_seidel(
            graph,
            &PageRankOptions {
                contributions: precision,
                cell_order: CellOrder::Degree,
                ..options.clone()
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(by_degree.summary.cell_order, CellOrder::Degree, "{label}");
        assert!(graph.has_degree_order(), "{label}");
        if graph.runtime().threads() == 1 {
            assert_eq!(
                by_degree.ranks.to_vec(),
                gauss_seidel.ranks.to_vec(),
                "{label} tolerance {tolerance}: degree-ordered cells"
            );
            assert_eq!(
                by_degree.summary.iterations, gauss_seidel.summary.iterations,
                "{label}"
            );
        }
        let ordered: f64 = jacobi
            .ranks
            .to_vec()
            .iter()
            .zip(by_degree.ranks.to_vec())
            .map(|(x, y)| (x - y).abs())
            .sum();
        assert!(
            by_degree.summary.converged && ordered < 10.0 * tolerance,
            "{label} tolerance {tolerance}, degree order: L1 {ordered}"
        );
        let (a, b) = (jacobi.ranks.to_vec(), gauss_seidel.ranks.to_vec());
        let distance: f64 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum();
        assert!(
            distance < 10.0 * tolerance,
            "{label} tolerance {tolerance}: L1 {distance}"
        );
        let total: f64 = b.iter().sum();
        assert!(
            (total - 1.0).abs() < 10.0 * tolerance,
            "{label}: ranks sum to {total}"
        );
    }
}

#[test]
fn degree_order_is_prepared_once_reported_and_released() {
    let mut graph = build(
        generate::kronecker(10, 8, 3, true).unwrap(),
        &GraphOptions::default(),
    )
    .unwrap();
    let lists = graph.incoming().targets().to_vec();
    let before = graph.memory_report().arrays.len();
    assert!(!graph.has_degree_order());
    assert!(graph.prepare_degree_order().unwrap());
    assert!(graph.prepare_degree_order().unwrap());
    let arrays = graph.arrays();
    let (name, renamed) = arrays.last().unwrap();
    assert_eq!(*name, "degree-ordered in-lists");
    assert_eq!(renamed.len(), lists.len());
    assert_eq!(renamed.bits(), graph.incoming().targets().bits());
    // The renaming is a permutation that sorts vertices by decreasing out-degree.
    let n = graph.vertices();
    let degree = |v: u64| graph.out_degree(v).unwrap();
    let renamed = renamed.to_vec();
    let mut cell_of = vec![u64::MAX; n];
    for (&id, &cell) in lists.iter().zip(&renamed) {
        assert!(cell_of[id as usize] == u64::MAX || cell_of[id as usize] == cell);
        cell_of[id as usize] = cell;
    }
    let mut listed: Vec<(u64, u64)> = (0..n as u64)
        .filter(|&v| cell_of[v as usize] != u64::MAX)
        .map(|v| (cell_of[v as usize], v))
        .collect();
    listed.sort();
    assert!(listed.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(listed.windows(2).all(|w| degree(w[0].1) > degree(w[1].1)
        || (degree(w[0].1) == degree(w[1].1) && w[0].1 < w[1].1)));
    assert_eq!(graph.memory_report().arrays.len(), before + 1);
    graph.release_degree_order();
    assert!(!graph.has_degree_order());
    assert_eq!(graph.memory_report().arrays.len(), before);

    // Auto picks degree order only for cells past a core's cache share.
    assert_eq!(CellOrder::Auto.resolve(1000), CellOrder::Vertex);
    assert_eq!(
        CellOrder::Auto.resolve(smartarrays_graph::CELL_ORDER_ABOVE + 1),
        CellOrder::Degree
    );
    assert_eq!(CellOrder::Vertex.resolve(1 << 30), CellOrder::Vertex);
    assert_eq!("Degree".parse::<CellOrder>().unwrap(), CellOrder::Degree);
    assert_eq!("vertex".parse::<CellOrder>().unwrap(), CellOrder::Vertex);
    let error = "hot".parse::<CellOrder>().unwrap_err().to_string();
    assert!(error.contains("expected auto, vertex or degree"), "{error}");
    for order in [CellOrder::Auto, CellOrder::Vertex, CellOrder::Degree] {
        assert_eq!(order.to_string().parse::<CellOrder>().unwrap(), order);
    }

    // Edge sizes: the empty graph and a single vertex run in degree order too.
    for pairs in [vec![], vec![[0u64, 0u64]]] {
        let mut edges = EdgeList::new(false);
        for [s, t] in pairs {
            edges.push(s, t);
        }
        let tiny = build(edges, &GraphOptions::default()).unwrap();
        let options = PageRankOptions {
            cell_order: CellOrder::Degree,
            ..PageRankOptions::default()
        };
        let result = pagerank_gauss_seidel(&tiny, &options, |_| {}).unwrap();
        assert!(result.summary.converged);
        assert_eq!(result.ranks.len(), tiny.vertices());
    }
}

#[test]
fn generated_weights_are_seeded_symmetric_and_in_range() {
    let graph = build(
        generate::kronecker(9, 8, 2, false).unwrap(),
        &GraphOptions::default(),
    )
    .unwrap();
    let a = EdgeWeights::generate(&graph, 5, &GraphOptions::default().edges).unwrap();
    let b = EdgeWeights::generate(&graph, 5, &GraphOptions::variant(Variant::VE).edges).unwrap();
    let c = EdgeWeights::generate(&graph, 6, &GraphOptions::default().edges).unwrap();
    assert_eq!(a.array().to_vec(), b.array().to_vec());
    assert_ne!(a.array().to_vec(), c.array().to_vec());
    assert_eq!((a.array().bits(), b.array().bits()), (32, 8));
    let values = a.array().to_vec();
    assert!(values.iter().all(|&w| (1..=255).contains(&w)));
    assert!(values.iter().any(|&w| w > 200) && values.iter().any(|&w| w < 50));
    // Both directions of every undirected edge agree.
    for v in 0..50u64 {
        for (u, w) in a.out_edges(&graph, v).unwrap() {
            let back = a.out_edges(&graph, u).unwrap();
            assert!(back.contains(&(v, w)), "{v} -> {u}");
        }
    }
    // The same distances whatever the thread count.
    let mut distances = Vec::new();
    for runtime in runtimes() {
        let mut graph = build(
            generate::kronecker(9, 8, 2, false).unwrap(),
            &GraphOptions::default().runtime(Arc::clone(&runtime)),
        )
        .unwrap();
        graph.set_runtime(runtime);
        let weights = EdgeWeights::generate(&graph, 5, &GraphOptions::default().edges).unwrap();
        let result = sssp(&graph, &weights, 1, &SsspOptions { delta: 16 }, |_, _| {}).unwrap();
        verify_sssp(&graph, &weights, &result).unwrap();
        distances.push(result.distances.to_vec());
    }
    assert!(distances.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn edge_cases_and_bad_arguments() {
    let empty = build(EdgeList::new(false), &GraphOptions::default()).unwrap();
    let weights = EdgeWeights::generate(&empty, 1, &GraphOptions::default().edges).unwrap();
    assert!(sssp(&empty, &weights, 0, &SsspOptions::default(), |_, _| {}).is_err());
    assert_eq!(tc(&empty, TcOrder::Degree, |_, _| {}).unwrap(), 0);
    assert_eq!(
        bc(
            &empty,
            &BcOptions {
                sources: BcSources::All
            },
            |_, _| {}
        )
        .unwrap()
        .scores
        .len(),
        0
    );
    assert!(bc(&empty, &BcOptions::default(), |_, _| {}).is_err());
    assert!(
        pagerank_gauss_seidel(&empty, &PageRankOptions::default(), |_| {})
            .unwrap()
            .summary
            .converged
    );

    let mut one = WeightedEdges::new(true);
    one.push(0, 0, 4);
    let (graph, weights) = build_weighted(one, &GraphOptions::default()).unwrap();
    let result = sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap();
    assert_eq!(
        (result.distance(0), result.reached, result.max_distance),
        (Some(0), 1, 0)
    );
    assert_eq!(
        bc(
            &graph,
            &BcOptions {
                sources: BcSources::All
            },
            |_, _| {}
        )
        .unwrap()
        .scores
        .to_vec(),
        vec![0.0]
    );
    let ranks = pagerank_gauss_seidel(&graph, &PageRankOptions::default(), |_| {})
        .unwrap()
        .ranks
        .to_vec();
    assert!((ranks[0] - 1.0).abs() < 1e-9);

    // Weights far above delta (buckets beyond the near ones) and wide weights.
    let triples = [
        (0u32, 1u32, 5000u32),
        (0, 2, 3),
        (2, 1, 4000),
        (1, 3, u32::MAX),
        (2, 3, 9),
    ];
    for variant in layouts() {
        let mut edges = WeightedEdges::new(true);
        for &(s, t, w) in &triples {
            edges.push(s as u64, t as u64, w);
        }
        let (graph, weights) = build_weighted(
            edges,
            &options(variant, &runtimes()[1], Keep::Keep, Keep::Keep),
        )
        .unwrap();
        let reference = reference_weighted(4, &triples, true, Keep::Keep, Keep::Keep);
        check_sssp(&graph, &weights, &reference, "far buckets");
    }

    // A clique: long oriented lists (the marking path), C(12, 3) triangles.
    let clique: Vec<[u32; 2]> = (0..12u32)
        .flat_map(|a| (a + 1..12).map(move |b| [a, b]))
        .collect();
    for variant in layouts() {
        for runtime in runtimes() {
            let options = options(variant, &runtime, Keep::Keep, Keep::Keep);
            let graph = build(EdgeList::from_pairs(12, false, clique.clone()), &options).unwrap();
            for order in [TcOrder::Id, TcOrder::Degree] {
                assert_eq!(tc(&graph, order, |_, _| {}).unwrap(), 220);
            }
        }
    }

    // Zero weights, unreachable vertices, bad source, delta 0, foreign weights.
    let mut edges = WeightedEdges::new(true);
    edges.push(0, 1, 0);
    edges.push(1, 2, 0);
    edges.push(3, 0, 9);
    let (graph, weights) = build_weighted(edges, &GraphOptions::variant(Variant::VE)).unwrap();
    let result = sssp(&graph, &weights, 0, &SsspOptions { delta: 2 }, |_, _| {}).unwrap();
    assert_eq!(
        (0..4).map(|v| result.distance(v)).collect::<Vec<_>>(),
        vec![Some(0), Some(0), Some(0), None]
    );
    assert!(sssp(&graph, &weights, 4, &SsspOptions::default(), |_, _| {}).is_err());
    assert!(sssp(&graph, &weights, 0, &SsspOptions { delta: 0 }, |_, _| {}).is_err());
    let other = build(
        EdgeList::from_pairs(2, true, vec![[0, 1]]),
        &GraphOptions::default(),
    )
    .unwrap();
    let error = sssp(&other, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap_err();
    assert!(error.to_string().contains("do not belong"), "{error}");
    assert!(bc(
        &graph,
        &BcOptions {
            sources: BcSources::List(vec![7])
        },
        |_, _| {}
    )
    .is_err());
    assert!("bogus".parse::<TcOrder>().is_err());
    assert_eq!("id".parse::<TcOrder>().unwrap(), TcOrder::Id);

    // Verification catches a wrong distance.
    let array = vec![0, 0, 5, 255];
    let options = smartarrays::ArrayOptions::new().bits(8);
    let broken = smartarrays_graph::SsspResult {
        distances: smartarrays::SmartArray::from_slice(&array, &options).unwrap(),
        ..result
    };
    assert!(verify_sssp(&graph, &weights, &broken)
        .unwrap_err()
        .contains("relaxes 2 further"));
}

#[test]
fn weighted_edge_lists_parse_write_and_name_bad_lines() {
    let text = b"# Nodes: 5\n0 1 3\n1\t2\t4\n\n% comment\n2 0 1\r\n";
    let edges = parse_weighted_edge_list(text, Path::new("g.wel"), true).unwrap();
    assert_eq!(edges.len(), 3);
    assert_eq!(edges.edges().vertices(), 5);
    assert_eq!(edges.weights(), &[3, 4, 1]);
    for (bad, line, problem) in [
        (&b"0 1 3\n1 2\n"[..], 2, "missing weight"),
        (b"0 1 3\n1 2 -4\n", 2, "negative"),
        (b"0 1 2.5\n", 1, "not an unsigned integer"),
        (b"0 1 2 9\n", 1, "unexpected \"9\""),
        (b"0 x 2\n", 1, "target vertex id"),
        (b"0 1 99999999999\n", 1, "larger than 2^32 - 1"),
        (b"# x\n\n-1 1 2\n", 3, "negative"),
    ] {
        match parse_weighted_edge_list(bad, Path::new("g.wel"), true) {
            Err(GraphError::Parse {
                line: at,
                problem: text,
                ..
            }) => {
                assert_eq!(at, line, "{text}");
                assert!(text.contains(problem), "{text}");
            }
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(bad)),
        }
    }
    // Round trip through a file, undirected (each edge written once).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.wel");
    let mut edges = WeightedEdges::new(false);
    edges.push(0, 1, 7);
    edges.push(2, 1, 5);
    edges.push(3, 3, 2);
    let (graph, weights) = build_weighted(edges, &GraphOptions::default()).unwrap();
    write_weighted_edge_list(&graph, &weights, &path).unwrap();
    let again = read_weighted_edges(&path, false, Some(6)).unwrap();
    assert_eq!(again.edges().vertices(), 6);
    let (graph2, weights2) = build_weighted(again, &GraphOptions::default()).unwrap();
    for v in 0..4 {
        assert_eq!(
            weights.out_edges(&graph, v).unwrap(),
            weights2.out_edges(&graph2, v).unwrap()
        );
    }
    assert!(matches!(
        read_weighted_edges(&dir.path().join("missing.wel"), true, None),
        Err(GraphError::Io { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_small_graphs_match_the_references(
        n in 1usize..30,
        raw in proptest::collection::vec((0u32..30, 0u32..30, 0u32..20), 0..90),
        directed in any::<bool>(),
        drop_duplicates in any::<bool>(),
        variant in 0usize..2,
        delta in 1u64..8,
    ) {
        let triples: Vec<(u32, u32, u32)> = raw.into_iter().map(|(s, t, w)| (s % n as u32, t % n as u32, w)).collect();
        let keep = if drop_duplicates { Keep::Drop } else { Keep::Keep };
        let runtime = Arc::new(Runtime::with_threads(3).unwrap());
        let options = options(layouts()[variant], &runtime, keep, keep);
        let mut weighted = WeightedEdges::new(directed);
        for &(s, t, w) in &triples {
            weighted.push(s as u64, t as u64, w);
        }
        weighted.edges_mut().set_vertices(n as u64).unwrap();
        let (graph, weights) = build_weighted(weighted, &options).unwrap();
        let reference = reference_weighted(n, &triples, directed, keep, keep);
        let expected = dijkstra(&reference, 0);
        let result = sssp(&graph, &weights, 0, &SsspOptions { delta }, |_, _| {}).unwrap();
        prop_assert_eq!((0..n as u64).map(|v| result.distance(v)).collect::<Vec<_>>(), expected);
        let lists = out_lists(&graph);
        let all: Vec<usize> = (0..n).collect();
        let want = brandes(&lists, &all);
        let got = bc(&graph, &BcOptions { sources: BcSources::All }, |_, _| {}).unwrap().scores.to_vec();
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0));
        }
        if !directed {
            let pairs: Vec<[u32; 2]> = triples.iter().map(|&(s, t, _)| [s, t]).collect();
            let expected = brute_triangles(n, &pairs);
            prop_assert_eq!(tc(&graph, TcOrder::Id, |_, _| {}).unwrap(), expected);
            prop_assert_eq!(tc(&graph, TcOrder::Degree, |_, _| {}).unwrap(), expected);
        }
    }
}

/// Frontiers of thousands of vertices (expanded by the workers, not inline), buckets refilled
/// while they are settled (delta above the lightest weights: bucket fusion), on every layout
/// and thread count, against Dijkstra; betweenness on the same graph against Brandes.
#[test]
fn sssp_with_large_frontiers_and_fused_buckets_matches_dijkstra() {
    let pairs: Vec<[u32; 2]> = generate::kronecker(11, 16, 9, false)
        .unwrap()
        .iter()
        .map(|(s, t)| [s as u32, t as u32])
        .collect();
    let n = 2048;
    let triples: Vec<(u32, u32, u32)> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| (p[0], p[1], 1 + (i as u32 * 7) % 3))
        .collect();
    let reference = reference_weighted(n, &triples, false, Keep::Keep, Keep::Keep);
    let expected = dijkstra(&reference, 0);
    for runtime in runtimes() {
        for variant in layouts() {
            let mut weighted = WeightedEdges::new(false);
            for &(s, t, w) in &triples {
                weighted.push(s as u64, t as u64, w);
            }
            weighted.edges_mut().set_vertices(n as u64).unwrap();
            let options = options(variant, &runtime, Keep::Keep, Keep::Keep);
            let (graph, weights) = build_weighted(weighted, &options).unwrap();
            for delta in [1, 2, 5, 1000] {
                let mut largest_round = 0;
                let result = sssp(&graph, &weights, 0, &SsspOptions { delta }, |_, size| {
                    largest_round = largest_round.max(size)
                })
                .unwrap();
                let label = format!("{} threads {variant} delta {delta}", runtime.threads());
                assert!(
                    largest_round > 256,
                    "{label}: a large frontier ({largest_round})"
                );
                let got: Vec<Option<u64>> = (0..n as u64).map(|v| result.distance(v)).collect();
                assert_eq!(got, expected, "{label}");
                verify_sssp(&graph, &weights, &result).unwrap();
            }
            // Betweenness levels of hundreds of vertices (claimed by the workers) and small
            // ones (inline) against the plain Brandes.
            let sources = [0usize, 1, 700, 2047];
            let want = brandes(&out_lists(&graph), &sources);
            let chosen = BcSources::List(sources.iter().map(|&s| s as u64).collect());
            let got = bc(&graph, &BcOptions { sources: chosen }, |_, _| {})
                .unwrap()
                .scores
                .to_vec();
            for (v, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                    "{} threads {variant}: betweenness of {v} is {g}, expected {w}",
                    runtime.threads()
                );
            }
        }
    }
}

/// Distances near the top of 32-bit cells (vertices * largest weight just below 2^32 - 1) and
/// just past it (64-bit cells): exact either way.
#[test]
fn sssp_distances_at_the_cell_width_boundary_are_exact() {
    let n = 5u64;
    for largest in [(u32::MAX - 1) / 5, u32::MAX / 5 + 1, u32::MAX] {
        let mut edges = WeightedEdges::new(true);
        for v in 0..n - 1 {
            edges.push(v, v + 1, largest);
        }
        edges.push(0, 4, 1);
        let (graph, weights) = build_weighted(edges, &GraphOptions::default()).unwrap();
        let result = sssp(&graph, &weights, 0, &SsspOptions::default(), |_, _| {}).unwrap();
        let w = u64::from(largest);
        assert_eq!(
            (0..n).map(|v| result.distance(v)).collect::<Vec<_>>(),
            vec![Some(0), Some(w), Some(2 * w), Some(3 * w), Some(1)],
            "largest weight {largest}"
        );
        assert_eq!(result.max_distance, 3 * w);
    }
}

/// A hub whose list alone is longer than the most entries a PageRank batch decodes for the
/// gather (2^18): that batch takes the windowed path, the others the gather, and Jacobi with
/// `f32` cells in degree order still gives the vertex order's ranks bit for bit, packed (V+E)
/// and not (U); Gauss-Seidel in both cell orders agrees to its tolerance.
#[test]
fn pagerank_batches_longer_than_the_decode_cap() {
    let leaves: u32 = (1 << 18) + 4099;
    let mut pairs: Vec<[u32; 2]> = (1..=leaves).map(|leaf| [0, leaf]).collect();
    // A path through some of the leaves, so ranks differ from a plain star's.
    pairs.extend((1..leaves).step_by(7).map(|leaf| [leaf, leaf + 1]));
    for variant in [Variant::U, Variant::VE] {
        let graph = build(
            EdgeList::from_pairs(u64::from(leaves) + 1, false, pairs.clone()),
            &GraphOptions::variant(variant),
        )
        .unwrap();
        let run = |cell_order, gauss_seidel: bool| {
            let options = PageRankOptions {
                tolerance: 1e-7,
                contributions: Precision::F32,
                cell_order,
                ..PageRankOptions::default()
            };
            let result = if gauss_seidel {
                pagerank_gauss_seidel(&graph, &options, |_| {}).unwrap()
            } else {
                pagerank(&graph, &options, |_| {}).unwrap()
            };
            assert_eq!(result.summary.cell_order, cell_order, "{variant:?}");
            result.ranks.to_vec()
        };
        let by_degree = run(CellOrder::Degree, false);
        assert_eq!(
            by_degree,
            run(CellOrder::Vertex, false),
            "{variant:?} Jacobi"
        );
        let (a, b) = (run(CellOrder::Degree, true), run(CellOrder::Vertex, true));
        let apart: f64 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum();
        assert!(
            apart < 1e-5,
            "{variant:?} Gauss-Seidel orders {apart} apart"
        );
        let from_jacobi: f64 = a.iter().zip(&by_degree).map(|(x, y)| (x - y).abs()).sum();
        assert!(
            from_jacobi < 1e-4,
            "{variant:?} Gauss-Seidel {from_jacobi} from Jacobi"
        );
    }
}
