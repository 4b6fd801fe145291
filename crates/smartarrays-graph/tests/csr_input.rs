//! `build_from_csr` against plain references and against `build` of the same pairs: edge
//! sizes (0 and 1 vertex, empty lists, lists of 63/64/65 entries), unsorted lists, duplicates
//! and self-loops under both keep policies, every variant, several runtimes, every validation
//! error, and a property test on random CSR arrays.

use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::Runtime;
use smartarrays_graph::{
    bfs, build, build_from_csr, connected_components, EdgeList, Graph, GraphError, GraphOptions,
    Keep, Variant,
};

const KEEPS: [Keep; 2] = [Keep::Keep, Keep::Drop];

fn runtimes() -> Vec<Arc<Runtime>> {
    vec![
        Arc::new(Runtime::with_threads(1).unwrap()),
        Arc::new(Runtime::with_threads(3).unwrap()),
    ]
}

/// The pairs `(v, targets[i])` of CSR arrays, in CSR order.
fn pairs_of(offsets: &[u64], targets: &[u64]) -> Vec<[u64; 2]> {
    let mut pairs = Vec::new();
    for v in 0..offsets.len() - 1 {
        for &t in &targets[offsets[v] as usize..offsets[v + 1] as usize] {
            pairs.push([v as u64, t]);
        }
    }
    pairs
}

/// CSR arrays of per-vertex lists.
fn csr_of(lists: &[Vec<u64>]) -> (Vec<u64>, Vec<u64>) {
    let mut offsets = vec![0];
    let mut targets = Vec::new();
    for list in lists {
        targets.extend_from_slice(list);
        offsets.push(targets.len() as u64);
    }
    (offsets, targets)
}

/// Every vertex's out- and in-neighbours.
fn lists(graph: &Graph) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let n = graph.vertices() as u64;
    let out = (0..n).map(|v| graph.out_neighbors(v).unwrap()).collect();
    let inc = (0..n).map(|v| graph.in_neighbors(v).unwrap()).collect();
    (out, inc)
}

/// Builds from CSR and from the same pairs with `build`, and checks they are the same graph.
fn same_as_build(
    offsets: &[u64],
    targets: &[u64],
    directed: bool,
    options: &GraphOptions,
) -> Graph {
    let from_csr = build_from_csr(offsets, targets, directed, options).unwrap();
    let n = offsets.len() as u64 - 1;
    let edges = EdgeList::from_wide_pairs(n, directed, pairs_of(offsets, targets));
    let from_edges = build(edges, options).unwrap();
    assert_eq!(from_csr.vertices(), from_edges.vertices());
    assert_eq!(from_csr.is_directed(), directed);
    assert_eq!(from_csr.edges(), from_edges.edges());
    assert_eq!(from_csr.stored_entries(), from_edges.stored_entries());
    assert_eq!(from_csr.self_loops(), from_edges.self_loops());
    assert_eq!(from_csr.max_out_degree(), from_edges.max_out_degree());
    assert_eq!(from_csr.max_in_degree(), from_edges.max_in_degree());
    assert_eq!(from_csr.edge().bits(), from_edges.edge().bits());
    assert_eq!(from_csr.begin().bits(), from_edges.begin().bits());
    assert_eq!(lists(&from_csr), lists(&from_edges));
    assert_eq!(from_csr.begin().to_vec(), from_edges.begin().to_vec());
    assert_eq!(from_csr.rbegin().to_vec(), from_edges.rbegin().to_vec());
    from_csr
}

fn every_options() -> Vec<GraphOptions> {
    let mut all = Vec::new();
    for runtime in runtimes() {
        for variant in Variant::ALL {
            for duplicates in KEEPS {
                for loops in KEEPS {
                    all.push(
                        GraphOptions::variant(variant)
                            .runtime(Arc::clone(&runtime))
                            .duplicates(duplicates)
                            .self_loops(loops),
                    );
                }
            }
        }
    }
    all
}

#[test]
fn no_vertices_and_one_vertex() {
    for options in every_options() {
        for directed in [true, false] {
            let graph = same_as_build(&[0], &[], directed, &options);
            assert_eq!(graph.vertices(), 0);
            assert_eq!(graph.edges(), 0);
            let graph = same_as_build(&[0, 0], &[], directed, &options);
            assert_eq!(graph.vertices(), 1);
            assert_eq!(graph.edges(), 0);
            let graph = same_as_build(&[0, 1], &[0], directed, &options);
            let kept = u64::from(options.self_loops == Keep::Keep);
            assert_eq!(graph.edges(), kept);
            assert_eq!(graph.self_loops(), kept);
            assert_eq!(graph.out_neighbors(0).unwrap().len() as u64, kept);
        }
    }
}

#[test]
fn empty_lists_keep_their_vertices() {
    // Ten vertices, only vertex 7 has a list.
    let (offsets, targets) = csr_of(&[
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![9, 0],
        vec![],
        vec![],
    ]);
    for directed in [true, false] {
        let graph = same_as_build(&offsets, &targets, directed, &GraphOptions::default());
        assert_eq!(graph.vertices(), 10);
        assert_eq!(graph.out_neighbors(7).unwrap(), vec![0, 9]);
        assert_eq!(graph.out_degree(8).unwrap(), 0);
        assert_eq!(graph.in_neighbors(9).unwrap(), vec![7]);
        let expected_out = if directed { vec![] } else { vec![7] };
        assert_eq!(graph.out_neighbors(9).unwrap(), expected_out);
    }
}

#[test]
fn lists_of_edge_lengths_reversed_with_duplicates_and_loops() {
    for length in [63usize, 64, 65] {
        let n = length + 2;
        // Vertex 0 lists every vertex in decreasing order (itself included), then 5 again;
        // vertex n - 1 lists 1 three times.
        let mut lists = vec![Vec::new(); n];
        lists[0] = (0..length as u64).rev().collect();
        lists[0].push(5);
        lists[n - 1] = vec![1, 1, 1];
        let (offsets, targets) = csr_of(&lists);
        for options in every_options() {
            for directed in [true, false] {
                let graph = same_as_build(&offsets, &targets, directed, &options);
                let mut expected: Vec<u64> = (0..length as u64).collect();
                if options.self_loops == Keep::Drop {
                    expected.retain(|&w| w != 0);
                }
                if options.duplicates == Keep::Keep {
                    expected.push(5);
                    expected.sort_unstable();
                }
                // Undirected too: only vertex 0's own list names 0.
                assert_eq!(graph.out_neighbors(0).unwrap(), expected);
                if directed {
                    let repeats = if options.duplicates == Keep::Keep {
                        3
                    } else {
                        1
                    };
                    assert_eq!(graph.out_neighbors(n as u64 - 1).unwrap(), vec![1; repeats]);
                    let mut into_one = vec![0];
                    into_one.extend(vec![n as u64 - 1; repeats]);
                    assert_eq!(graph.in_neighbors(1).unwrap(), into_one);
                }
            }
        }
    }
}

#[test]
fn undirected_input_is_symmetrised() {
    // The upper triangle of a path 0 - 1 - 2 - 3.
    let graph = build_from_csr(
        &[0, 1, 2, 3, 3],
        &[1, 2, 3],
        false,
        &GraphOptions::default(),
    )
    .unwrap();
    assert_eq!(graph.edges(), 3);
    assert_eq!(graph.stored_entries(), 6);
    assert_eq!(graph.out_neighbors(2).unwrap(), vec![1, 3]);
    // Both triangles (a symmetric matrix): each edge twice unless duplicates are dropped.
    let (offsets, targets) = csr_of(&[vec![1], vec![2, 0], vec![1, 3], vec![2]]);
    let twice = build_from_csr(&offsets, &targets, false, &GraphOptions::default()).unwrap();
    assert_eq!(twice.edges(), 6);
    assert_eq!(twice.out_neighbors(1).unwrap(), vec![0, 0, 2, 2]);
    let once = GraphOptions::default().duplicates(Keep::Drop);
    let once = build_from_csr(&offsets, &targets, false, &once).unwrap();
    assert_eq!(once.edges(), 3);
    assert_eq!(lists(&once), lists(&graph));
    let levels = bfs(&once, 0).unwrap();
    assert_eq!(levels.levels.to_vec(), vec![0, 1, 2, 3]);
}

#[test]
fn algorithms_agree_with_the_edge_list_build() {
    // Two components, {0, 1, 2, 3} and {4, 5}, vertex 6 alone; unsorted lists.
    let (offsets, targets) = csr_of(&[
        vec![3, 1],
        vec![2],
        vec![],
        vec![2, 0],
        vec![5],
        vec![],
        vec![],
    ]);
    for directed in [true, false] {
        let graph = same_as_build(&offsets, &targets, directed, &GraphOptions::default());
        let components = connected_components(&graph).unwrap();
        assert_eq!(
            components.labels.to_vec(),
            vec![0, 0, 0, 0, 4, 4, 6],
            "directed {directed}"
        );
    }
}

#[test]
fn ids_are_narrow_like_build() {
    let lists: Vec<Vec<u64>> = (0..1025u64).map(|v| vec![(v * 7) % 1025]).collect();
    let (offsets, targets) = csr_of(&lists);
    for variant in Variant::ALL {
        let options = GraphOptions::variant(variant);
        let graph = same_as_build(&offsets, &targets, true, &options);
        let expected = if variant == Variant::VE { 11 } else { 32 };
        assert_eq!(graph.edge().bits(), expected, "{variant}");
    }
}

/// The message of the `InvalidArgument` error of both a directed and an undirected build.
fn error_of(offsets: &[u64], targets: &[u64]) -> String {
    let messages: Vec<String> = [true, false]
        .into_iter()
        .map(|directed| {
            match build_from_csr(offsets, targets, directed, &GraphOptions::default()) {
                Err(GraphError::InvalidArgument(message)) => message,
                other => panic!("expected InvalidArgument, got {other:?}"),
            }
        })
        .collect();
    assert_eq!(messages[0], messages[1]);
    messages[0].clone()
}

#[test]
fn invalid_arrays_name_the_problem() {
    assert!(error_of(&[], &[]).contains("offsets is empty"));
    assert!(error_of(&[1, 1], &[0]).contains("offsets[0] = 1 must be 0"));
    let decreasing = [0, 2, 4, 6, 7, 3, 8, 8, 8, 8, 10];
    assert!(
        error_of(&decreasing, &[0; 10]).contains("offsets[5] = 3 is below offsets[4] = 7"),
        "{}",
        error_of(&decreasing, &[0; 10])
    );
    let message = error_of(&[0, 1, 2], &[0, 1, 1]);
    assert!(
        message.contains("offsets[2] = 2") && message.contains("(3)"),
        "{message}"
    );
    let message = error_of(&[0, 2, 4], &[0, 1]);
    assert!(message.contains("offsets[2] = 4"), "{message}");
    // Ten vertices, the 13th target is 99.
    let mut targets = vec![1u64; 13];
    targets[12] = 99;
    let offsets = [0, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13];
    assert_eq!(
        error_of(&offsets, &targets),
        "targets[12] = 99 is not a vertex (the graph has 10 vertices)"
    );
    targets[12] = 10;
    assert!(error_of(&offsets, &targets).contains("targets[12] = 10 is not a vertex"));
    assert!(error_of(&[0, 1], &[u64::MAX]).contains("targets[0] = 18446744073709551615"));
}

/// Random CSR arrays: up to 70 vertices, lists of up to 70 entries, some of them unsorted and
/// repeated, self-loops included.
fn random_csr() -> impl Strategy<Value = Vec<Vec<u64>>> {
    (0usize..70).prop_flat_map(|n| {
        let bound = n.max(1) as u64;
        proptest::collection::vec(
            proptest::collection::vec(0..bound, 0..if n == 0 { 1 } else { 70 }),
            n,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_csr_equals_build_of_the_same_pairs(
        lists in random_csr(),
        directed in any::<bool>(),
        variant in 0usize..3,
        duplicates in any::<bool>(),
        loops in any::<bool>(),
        threads in 1usize..4,
    ) {
        let (offsets, targets) = csr_of(&lists);
        let keep = |drop: bool| if drop { Keep::Drop } else { Keep::Keep };
        let options = GraphOptions::variant(Variant::ALL[variant])
            .runtime(Arc::new(Runtime::with_threads(threads).unwrap()))
            .duplicates(keep(duplicates))
            .self_loops(keep(loops));
        let graph = same_as_build(&offsets, &targets, directed, &options);
        // Directed and kept as given: the out-lists are the input lists, sorted.
        if directed && !duplicates && !loops {
            for (v, list) in lists.iter().enumerate() {
                let mut sorted = list.clone();
                sorted.sort_unstable();
                prop_assert_eq!(graph.out_neighbors(v as u64).unwrap(), sorted);
            }
        }
    }
}
