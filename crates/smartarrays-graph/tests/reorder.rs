//! Relabelling by degree (`reorder_by_degree`) is exact: on generated and hand-made graphs
//! (Kronecker, uniform, a path, a star, a hub of 3000 neighbours, isolated vertices, 0/1/2 vertices, duplicates and
//! self-loops), every kernel run on the relabelled graph and mapped back with `VertexIds`
//! equals the kernel on the input graph (BFS levels exact and parents valid, CC labels exact,
//! PageRank within tolerance, SSSP distances exact, BC within 1e-9 relative, TC and degrees
//! exact), for U and V+E at 1 and 3 threads; a proptest does the same on random edge lists.

use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::{ArrayOptions, Runtime, SmartArray};
use smartarrays_graph::{
    bc, bfs, build, build_weighted, connected_components, degree_centrality, generate, pagerank,
    pagerank_gauss_seidel, reorder_by_degree, reorder_by_degree_weighted, sssp, tc, BcOptions,
    BcSources, EdgeList, EdgeWeights, Graph, GraphOptions, Keep, PageRankOptions, Precision,
    SsspOptions, TcOrder, Variant, VertexIds, WeightedEdges,
};

fn runtimes() -> Vec<Arc<Runtime>> {
    vec![
        Arc::new(Runtime::with_threads(1).unwrap()),
        Arc::new(Runtime::with_threads(3).unwrap()),
    ]
}

/// The test graphs: (name, edges).
fn graphs() -> Vec<(String, EdgeList)> {
    let mut out = Vec::new();
    for (scale, directed) in [(6, false), (6, true), (9, false), (10, true)] {
        out.push((
            format!("kronecker {scale} directed {directed}"),
            generate::kronecker(scale, 8, 3, directed).unwrap(),
        ));
    }
    for directed in [false, true] {
        out.push((
            format!("uniform directed {directed}"),
            generate::uniform(300, 4, 5, directed).unwrap(),
        ));
    }
    let path: Vec<[u32; 2]> = (0..20).map(|v| [v, v + 1]).collect();
    out.push(("path".into(), EdgeList::from_pairs(21, false, path.clone())));
    out.push(("directed path".into(), EdgeList::from_pairs(21, true, path)));
    let star: Vec<[u32; 2]> = (0..15).map(|v| [v, 15]).collect();
    out.push(("star".into(), EdgeList::from_pairs(16, false, star)));
    // A hub of 3000 neighbours: longer than the lists the relabelling rewrites ahead of the
    // fill (1024), with duplicates so its weights must follow their edges.
    let mut hub: Vec<[u32; 2]> = (1..3000).map(|v| [v, 0]).collect();
    hub.extend((1..1500).map(|v| [0, 3000 - v]));
    hub.extend((1..2999).map(|v| [v, v + 1]));
    out.push(("hub".into(), EdgeList::from_pairs(3000, false, hub.clone())));
    out.push(("directed hub".into(), EdgeList::from_pairs(3000, true, hub)));
    let mut isolated = EdgeList::from_pairs(10, false, vec![[2, 5], [5, 7], [3, 4]]);
    isolated.set_vertices(12).unwrap();
    out.push(("isolated".into(), isolated));
    out.push((
        "loops and duplicates".into(),
        EdgeList::from_pairs(
            6,
            true,
            vec![[0, 1], [0, 1], [1, 1], [2, 3], [3, 2], [5, 0], [5, 0]],
        ),
    ));
    out.push(("empty".into(), EdgeList::from_pairs(0, false, vec![])));
    out.push(("one vertex".into(), EdgeList::from_pairs(1, true, vec![])));
    out.push((
        "one loop".into(),
        EdgeList::from_pairs(1, false, vec![[0, 0]]),
    ));
    out.push((
        "two vertices".into(),
        EdgeList::from_pairs(2, false, vec![[1, 0]]),
    ));
    out.push(("two apart".into(), EdgeList::from_pairs(2, true, vec![])));
    out
}

fn options(variant: Variant, runtime: &Arc<Runtime>) -> GraphOptions {
    GraphOptions::variant(variant).runtime(Arc::clone(runtime))
}

/// `ids` is a bijection between `0..n` and itself, both directions inverse to each other.
fn check_bijection(ids: &VertexIds, n: usize) {
    assert_eq!(ids.len(), n);
    let mut seen = vec![false; n];
    for v in 0..n as u64 {
        let new = ids.to_new(v).unwrap();
        assert!(!seen[new as usize], "new id {new} given twice");
        seen[new as usize] = true;
        assert_eq!(ids.to_original(new).unwrap(), v);
    }
}

/// The relabelled graph has the input's edges under the map, and its vertices come by
/// decreasing degree.
fn check_structure(graph: &Graph, new: &Graph, ids: &VertexIds) {
    assert_eq!(new.vertices(), graph.vertices());
    assert_eq!(new.edges(), graph.edges());
    assert_eq!(new.self_loops(), graph.self_loops());
    assert_eq!(new.is_directed(), graph.is_directed());
    for (name, a, b) in [
        ("begin", graph.begin(), new.begin()),
        ("edge", graph.edge(), new.edge()),
        ("rbegin", graph.rbegin(), new.rbegin()),
        ("redge", graph.redge(), new.redge()),
    ] {
        assert_eq!(a.bits(), b.bits(), "{name} width");
        assert_eq!(a.placement(), b.placement(), "{name} placement");
    }
    let degree = |g: &Graph, v: u64| {
        let out = g.out_degree(v).unwrap();
        if g.is_directed() {
            out + g.in_degree(v).unwrap()
        } else {
            out
        }
    };
    for w in 0..new.vertices() as u64 {
        let v = ids.to_original(w).unwrap();
        let mut expected: Vec<u64> = graph
            .out_neighbors(v)
            .unwrap()
            .into_iter()
            .map(|t| ids.to_new(t).unwrap())
            .collect();
        expected.sort_unstable();
        assert_eq!(new.out_neighbors(w).unwrap(), expected);
        let mut expected: Vec<u64> = graph
            .in_neighbors(v)
            .unwrap()
            .into_iter()
            .map(|t| ids.to_new(t).unwrap())
            .collect();
        expected.sort_unstable();
        assert_eq!(new.in_neighbors(w).unwrap(), expected);
        if w > 0 {
            let (previous, this) = (degree(new, w - 1), degree(new, w));
            assert!(previous > this || (previous == this && ids.to_original(w - 1).unwrap() < v));
        }
    }
}

/// Parents valid per the GAP rules: the source is its own parent, every other reached vertex's
/// parent is an in-neighbour one level up, unreached vertices have none.
fn check_parents(graph: &Graph, source: u64, levels: &[Option<u64>], parents: &[Option<u64>]) {
    for v in 0..graph.vertices() as u64 {
        match (levels[v as usize], parents[v as usize]) {
            (None, None) => {}
            (Some(0), Some(p)) => assert_eq!((v, p), (source, source)),
            (Some(level), Some(p)) => {
                assert_eq!(levels[p as usize], Some(level - 1), "parent {p} of {v}");
                assert!(graph.in_neighbors(v).unwrap().contains(&p));
            }
            other => panic!("vertex {v}: level and parent disagree: {other:?}"),
        }
    }
}

fn close(a: f64, b: f64, relative: f64) -> bool {
    (a - b).abs() <= relative * a.abs().max(b.abs()).max(1e-300)
}

fn check_kernels(name: &str, graph: &Graph) {
    let n = graph.vertices();
    let reordered = reorder_by_degree(graph).unwrap();
    let (new, ids) = (&reordered.graph, &reordered.ids);
    check_bijection(ids, n);
    check_structure(graph, new, ids);

    // Degrees.
    let degrees = degree_centrality(new).unwrap().to_vec();
    assert_eq!(
        ids.results_to_original(&degrees).unwrap(),
        degree_centrality(graph).unwrap().to_vec(),
        "{name}: degrees"
    );

    // Components: labels are the smallest original id of the component.
    let expected = connected_components(graph).unwrap();
    let got = connected_components(new).unwrap();
    assert_eq!(got.count, expected.count, "{name}: component count");
    assert_eq!(
        ids.labels_to_original(&got.labels.to_vec()).unwrap(),
        expected.labels.to_vec(),
        "{name}: component labels"
    );

    // PageRank, Jacobi and Gauss-Seidel, converged tightly in f64.
    let pr = PageRankOptions {
        tolerance: 1e-12,
        max_iterations: 10_000,
        contributions: Precision::F64,
        ..PageRankOptions::default()
    };
    let expected = pagerank(graph, &pr, |_| {}).unwrap().ranks.to_vec();
    let got = pagerank(new, &pr, |_| {}).unwrap().ranks.to_vec();
    let got_gs = pagerank_gauss_seidel(new, &pr, |_| {})
        .unwrap()
        .ranks
        .to_vec();
    for (label, got) in [("jacobi", got), ("gauss-seidel", got_gs)] {
        for (v, (a, b)) in ids
            .results_to_original(&got)
            .unwrap()
            .into_iter()
            .zip(&expected)
            .enumerate()
        {
            assert!(
                (a - b).abs() < 1e-9,
                "{name}: {label} rank of {v}: {a} vs {b}"
            );
        }
    }

    // Triangles (undirected only).
    if !graph.is_directed() {
        for order in [TcOrder::Id, TcOrder::Degree] {
            assert_eq!(
                tc(new, order, |_, _| {}).unwrap(),
                tc(graph, order, |_, _| {}).unwrap(),
                "{name}: triangles"
            );
        }
    }
    if n == 0 {
        // No source exists: both graphs refuse one the same way.
        assert!(bfs(graph, 0).is_err() && bfs(new, 0).is_err());
        return;
    }

    // BFS, SSSP and BC from a few sources.
    let weights = EdgeWeights::generate(graph, 11, &GraphOptions::default().edges).unwrap();
    let (weighted, new_weights) = reorder_by_degree_weighted(graph, &weights).unwrap();
    assert_eq!(weighted.ids, *ids);
    // Every edge keeps its weight.
    for w in 0..n as u64 {
        let v = ids.to_original(w).unwrap();
        let mut expected: Vec<(u64, u64)> = weights
            .out_edges(graph, v)
            .unwrap()
            .into_iter()
            .map(|(t, weight)| (ids.to_new(t).unwrap(), weight))
            .collect();
        expected.sort_unstable();
        assert_eq!(new_weights.out_edges(new, w).unwrap(), expected);
    }
    let mut sources = vec![0, n as u64 / 2, n as u64 - 1];
    sources.dedup();
    for &source in &sources {
        let expected = bfs(graph, source).unwrap();
        let got = bfs(new, ids.to_new(source).unwrap()).unwrap();
        assert_eq!((got.reached, got.depth), (expected.reached, expected.depth));
        let levels: Vec<Option<u64>> = (0..n as u64).map(|w| got.level(w)).collect();
        let levels = ids.results_to_original(&levels).unwrap();
        let expected_levels: Vec<Option<u64>> = (0..n as u64).map(|v| expected.level(v)).collect();
        assert_eq!(levels, expected_levels, "{name}: BFS levels from {source}");
        let parents = ids.parents_to_original(&got.parents).unwrap();
        check_parents(graph, source, &levels, &parents);

        let expected = sssp(graph, &weights, source, &SsspOptions::default(), |_, _| {}).unwrap();
        let got = sssp(
            new,
            &new_weights,
            ids.to_new(source).unwrap(),
            &SsspOptions::default(),
            |_, _| {},
        )
        .unwrap();
        let distances: Vec<Option<u64>> = (0..n as u64).map(|w| got.distance(w)).collect();
        let expected_distances: Vec<Option<u64>> =
            (0..n as u64).map(|v| expected.distance(v)).collect();
        assert_eq!(
            ids.results_to_original(&distances).unwrap(),
            expected_distances,
            "{name}: SSSP from {source}"
        );
    }
    let expected = bc(
        graph,
        &BcOptions {
            sources: BcSources::List(sources.clone()),
        },
        |_, _| {},
    )
    .unwrap();
    let new_sources = sources.iter().map(|&s| ids.to_new(s).unwrap()).collect();
    let got = bc(
        new,
        &BcOptions {
            sources: BcSources::List(new_sources),
        },
        |_, _| {},
    )
    .unwrap();
    for (v, (a, b)) in ids
        .results_to_original(&got.scores.to_vec())
        .unwrap()
        .into_iter()
        .zip(expected.scores.to_vec())
        .enumerate()
    {
        assert!(close(a, b, 1e-9), "{name}: BC of {v}: {a} vs {b}");
    }
}

#[test]
fn kernels_on_relabelled_graphs_match_the_input() {
    for runtime in runtimes() {
        for variant in [Variant::U, Variant::VE] {
            for (name, edges) in graphs() {
                let graph = build(edges, &options(variant, &runtime)).unwrap();
                check_kernels(
                    &format!("{name}, {variant}, {} threads", runtime.threads()),
                    &graph,
                );
            }
        }
    }
}

#[test]
fn duplicates_dropped_keep_their_weights_and_sampled_bc_sources_map() {
    let options = GraphOptions::default()
        .duplicates(Keep::Drop)
        .self_loops(Keep::Drop);
    let graph = build(generate::kronecker(8, 8, 9, false).unwrap(), &options).unwrap();
    check_kernels("kronecker 8, duplicates dropped", &graph);
    // The sample a BC run on the input would draw, resolved there and mapped in.
    let sample = BcSources::Sample { count: 4, seed: 1 };
    let expected = bc(
        &graph,
        &BcOptions {
            sources: sample.clone(),
        },
        |_, _| {},
    )
    .unwrap();
    let reordered = reorder_by_degree(&graph).unwrap();
    let sources = sample
        .resolve(&graph)
        .unwrap()
        .into_iter()
        .map(|s| reordered.ids.to_new(s).unwrap())
        .collect();
    let got = bc(
        &reordered.graph,
        &BcOptions {
            sources: BcSources::List(sources),
        },
        |_, _| {},
    )
    .unwrap();
    let got = reordered
        .ids
        .results_to_original(&got.scores.to_vec())
        .unwrap();
    for (a, b) in got.iter().zip(expected.scores.to_vec()) {
        assert!(close(*a, b, 1e-9));
    }
}

#[test]
fn weights_of_another_graph_are_refused() {
    let graph = build(
        generate::kronecker(6, 8, 1, false).unwrap(),
        &GraphOptions::default(),
    )
    .unwrap();
    let other = build(
        generate::kronecker(5, 8, 1, false).unwrap(),
        &GraphOptions::default(),
    )
    .unwrap();
    let weights = EdgeWeights::generate(&other, 1, &GraphOptions::default().edges).unwrap();
    assert!(reorder_by_degree_weighted(&graph, &weights).is_err());
    let ids = reorder_by_degree(&other).unwrap().ids;
    assert!(smartarrays_graph::relabel(&graph, &ids).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_edge_lists_relabel_exactly(
        n in 1u32..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40), 0..120),
        directed in any::<bool>(),
        compressed in any::<bool>(),
    ) {
        let pairs: Vec<[u32; 2]> = raw.into_iter().map(|(a, b)| [a % n, b % n]).collect();
        let variant = if compressed { Variant::VE } else { Variant::U };
        let graph = build(EdgeList::from_pairs(u64::from(n), directed, pairs), &GraphOptions::variant(variant)).unwrap();
        let reordered = reorder_by_degree(&graph).unwrap();
        check_bijection(&reordered.ids, n as usize);
        check_structure(&graph, &reordered.graph, &reordered.ids);
        let expected = connected_components(&graph).unwrap().labels.to_vec();
        let got = connected_components(&reordered.graph).unwrap().labels.to_vec();
        prop_assert_eq!(reordered.ids.labels_to_original(&got).unwrap(), expected);
        let expected = bfs(&graph, 0).unwrap().levels.to_vec();
        let got = bfs(&reordered.graph, reordered.ids.to_new(0).unwrap()).unwrap().levels.to_vec();
        prop_assert_eq!(reordered.ids.results_to_original(&got).unwrap(), expected);
    }
}

#[test]
fn loaded_weights_of_repeated_edges_follow_their_edges() {
    // A hub of 2000 neighbours, each edge given twice with different weights.
    let mut edges = WeightedEdges::new(true);
    for v in 1..2000u64 {
        edges.push(0, v, (v % 7 + 1) as u32);
        edges.push(0, v, (v % 5 + 10) as u32);
        edges.push(v, (v * 7) % 2000, (v % 3 + 1) as u32);
    }
    let (graph, weights) = build_weighted(edges, &GraphOptions::default()).unwrap();
    assert_weights_follow_their_edges(&graph, &weights);
}

/// Relabels weighted `graph` and checks that every vertex's (new target, weight) list is its
/// input list renamed and sorted by (target, weight).
fn assert_weights_follow_their_edges(graph: &Graph, weights: &EdgeWeights) {
    let (reordered, new_weights) = reorder_by_degree_weighted(graph, weights).unwrap();
    let ids = &reordered.ids;
    for v in 0..graph.vertices() as u64 {
        let mut expected: Vec<(u64, u64)> = weights
            .out_edges(graph, v)
            .unwrap()
            .into_iter()
            .map(|(t, w)| (ids.to_new(t).unwrap(), w))
            .collect();
        expected.sort_unstable();
        let got = new_weights
            .out_edges(&reordered.graph, ids.to_new(v).unwrap())
            .unwrap();
        assert_eq!(
            got,
            expected,
            "vertex {v}, weights of {} bits",
            weights.array().bits()
        );
    }
}

/// Weights at the edges of the two sort paths: 32-bit weights (one packed key per entry, up to
/// `u32::MAX`) and wider ones (sorted as pairs), each on a hub whose repeated edges carry
/// different weights.
#[test]
fn weights_of_32_bits_and_wider_follow_their_edges() {
    let mut pairs = Vec::new();
    for v in 1..1500u32 {
        pairs.push([0, v]);
        pairs.push([0, v]);
        pairs.push([v, (v * 11) % 1500]);
    }
    let graph = build(
        EdgeList::from_pairs(1500, true, pairs),
        &GraphOptions::default(),
    )
    .unwrap();
    let entries = graph.edges() as usize;
    for top in [u64::from(u32::MAX), u64::MAX] {
        // Weights counting down from `top`, so entries of one list and target differ.
        let values: Vec<u64> = (0..entries as u64).map(|i| top - i * 3).collect();
        let array = SmartArray::from_slice(&values, &ArrayOptions::new()).unwrap();
        let weights = EdgeWeights::from_array(&graph, array).unwrap();
        assert_eq!(
            weights.array().bits(),
            if top == u64::MAX { 64 } else { 32 }
        );
        assert_weights_follow_their_edges(&graph, &weights);
    }
}
