//! The direction-optimising BFS and the Afforest components against plain references, on
//! graphs chosen to reach their less common paths: bottom-up steps at bitmap word boundaries
//! (63, 64, 65, 1023, 1025 vertices), bit-packed and 32-bit edges, the largest component
//! skipped in a directed graph whose edges into it are only seen from the other side,
//! self-loops, isolated vertices, one vertex, and random graphs dense enough to switch; and
//! triangle counting (renamed by rank, marks in a bitmap) against brute force.

use std::collections::VecDeque;
use std::sync::Arc;

use proptest::prelude::*;
use smartarrays::{Placement, Runtime, Topology};
use smartarrays_graph::{
    bfs, build, connected_components, generate, tc, EdgeList, Graph, GraphOptions, TcOrder, Variant,
};

fn options(variant: Variant, threads: usize) -> GraphOptions {
    GraphOptions::variant(variant).runtime(Arc::new(Runtime::with_threads(threads).unwrap()))
}

fn lists(graph: &Graph) -> Vec<Vec<u64>> {
    (0..graph.vertices() as u64)
        .map(|v| graph.out_neighbors(v).unwrap())
        .collect()
}

fn reference_levels(out: &[Vec<u64>], source: usize) -> Vec<Option<u64>> {
    let mut levels = vec![None; out.len()];
    levels[source] = Some(0);
    let mut queue = VecDeque::from([source]);
    while let Some(v) = queue.pop_front() {
        for &w in &out[v] {
            if levels[w as usize].is_none() {
                levels[w as usize] = Some(levels[v].unwrap() + 1);
                queue.push_back(w as usize);
            }
        }
    }
    levels
}

/// Smallest vertex id of each vertex's weak component, by a serial union-find.
fn reference_labels(out: &[Vec<u64>]) -> Vec<u64> {
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut parent: Vec<usize> = (0..out.len()).collect();
    for (u, list) in out.iter().enumerate() {
        for &v in list {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v as usize));
            parent[a.max(b)] = a.min(b);
        }
    }
    (0..out.len())
        .map(|v| find(&mut parent, v) as u64)
        .collect()
}

/// Checks levels, parents and the reach of a BFS from `source`; returns its (top-down,
/// bottom-up) step counts.
fn check_bfs(graph: &Graph, source: usize, label: &str) -> (usize, usize) {
    let out = lists(graph);
    let expected = reference_levels(&out, source);
    let result = bfs(graph, source as u64).unwrap();
    let levels: Vec<Option<u64>> = (0..out.len() as u64).map(|v| result.level(v)).collect();
    assert_eq!(levels, expected, "{label}: levels from {source}");
    for (v, level) in expected.iter().enumerate() {
        let parent = result.parent(v as u64);
        match level {
            None => assert_eq!(parent, None, "{label}: unreached {v} has a parent"),
            Some(0) => assert_eq!(parent, Some(source as u64), "{label}: source's parent"),
            Some(level) => {
                let p = parent.unwrap_or_else(|| panic!("{label}: {v} has no parent"));
                assert_eq!(
                    expected[p as usize],
                    Some(level - 1),
                    "{label}: parent of {v}"
                );
                assert!(
                    out[p as usize].contains(&(v as u64)),
                    "{label}: edge {p}->{v}"
                );
            }
        }
    }
    let reached = expected.iter().filter(|l| l.is_some()).count() as u64;
    assert_eq!(result.reached, reached, "{label}: reached");
    let depth = expected.iter().flatten().copied().max().unwrap_or(0);
    assert_eq!(result.depth, depth, "{label}: depth");
    result.steps
}

fn check_components(graph: &Graph, label: &str) {
    let expected = reference_labels(&lists(graph));
    let components = connected_components(graph).unwrap();
    assert_eq!(components.labels.to_vec(), expected, "{label}: labels");
    let mut sizes = vec![0u64; expected.len()];
    for &l in &expected {
        sizes[l as usize] += 1;
    }
    assert_eq!(
        components.count,
        sizes.iter().filter(|&&s| s > 0).count() as u64,
        "{label}: count"
    );
    assert_eq!(
        components.largest,
        sizes.iter().copied().max().unwrap_or(0),
        "{label}: largest"
    );
}

#[test]
fn bottom_up_steps_are_exact_at_bitmap_word_boundaries() {
    for n in [2u64, 63, 64, 65, 127, 1023, 1025, 4097] {
        for directed in [false, true] {
            for variant in [Variant::U, Variant::VE] {
                for threads in [1, 3] {
                    let graph = build(
                        generate::uniform(n, 12, n + 3, directed).unwrap(),
                        &options(variant, threads),
                    )
                    .unwrap();
                    let label = format!("n {n} directed {directed} {variant:?} {threads} threads");
                    let mut bottom_up = 0;
                    for source in [0, n as usize / 2, n as usize - 1] {
                        bottom_up += check_bfs(&graph, source, &label).1;
                    }
                    if n >= 63 {
                        assert!(bottom_up > 0, "{label}: no bottom-up step");
                    }
                    check_components(&graph, &label);
                }
            }
        }
    }
}

/// Bottom-up steps on in-lists whose only frontier neighbour comes last, of lengths around
/// the 64 single reads of a packed list and the 2048-id pieces decoded after them, and on long
/// lists without one (unreached vertices).
#[test]
fn bottom_up_finds_parents_at_the_end_of_long_in_lists() {
    let (fillers, frontier) = (5000u64, 3000u64);
    let lengths = [
        0u64, 1, 2, 62, 63, 64, 65, 66, 127, 1023, 2111, 2112, 2113, 2114, 4160, 4161, 4999,
    ];
    let targets = fillers + frontier;
    let source = targets + 2 * lengths.len() as u64;
    let mut pairs: Vec<[u32; 2]> = Vec::new();
    let mut edge = |from: u64, to: u64| pairs.push([from as u32, to as u32]);
    // The frontier after one step: its vertices' edges among themselves make the next step
    // bottom-up.
    for f in fillers..targets {
        edge(source, f);
        for k in 1..=5 {
            edge(f, fillers + (f - fillers + k * 7) % frontier);
        }
    }
    for (k, &length) in lengths.iter().enumerate() {
        // Target 2k: `length` unreached in-neighbours, then one in the frontier (a larger id).
        // Target 2k + 1: the same unreached in-neighbours only.
        let (found, missed) = (targets + 2 * k as u64, targets + 2 * k as u64 + 1);
        for filler in 0..length {
            edge(filler, found);
            edge(filler, missed);
        }
        edge(fillers + k as u64 * 11, found);
    }
    for variant in [Variant::U, Variant::VE] {
        for threads in [1, 3] {
            let edges = EdgeList::from_pairs(source + 1, true, pairs.clone());
            let graph = build(edges, &options(variant, threads)).unwrap();
            let label = format!("long in-lists {variant:?} {threads} threads");
            let (_, bottom_up) = check_bfs(&graph, source as usize, &label);
            assert!(bottom_up > 0, "{label}: no bottom-up step");
            let result = bfs(&graph, source).unwrap();
            for (k, &length) in lengths.iter().enumerate() {
                let found = targets + 2 * k as u64;
                assert_eq!(result.level(found), Some(2), "{label}: target of {length}");
                assert_eq!(result.parent(found), Some(fillers + k as u64 * 11));
                assert_eq!(result.level(found + 1), None, "{label}: unreached {length}");
            }
        }
    }
}

/// Levels and parents written straight into the result arrays (U layout: 32-bit properties)
/// at every placement, on this machine and on a described two-node one (replicated results have
/// two replicas, which must agree), next to the packed V+E results; with unreached vertices
/// and a lone vertex.
#[test]
fn results_are_exact_at_every_placement_and_in_every_replica() {
    let two_nodes = Arc::new(
        Runtime::on_described(Arc::new(Topology::uniform(2, 2, 8 << 30).unwrap()), 3).unwrap(),
    );
    for runtime in [Arc::new(Runtime::with_threads(2).unwrap()), two_nodes] {
        for placement in Placement::all(runtime.topology()) {
            for variant in [Variant::U, Variant::VE] {
                for n in [1u64, 65, 1025] {
                    // A random graph on the first half of the vertices; the rest unreached.
                    let half = n.div_ceil(2);
                    let mut state = n;
                    let mut next = || {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1);
                        ((state >> 33) % half) as u32
                    };
                    let pairs: Vec<[u32; 2]> = (0..half * 8).map(|_| [next(), next()]).collect();
                    let edges = EdgeList::from_pairs(n, false, pairs);
                    let options = GraphOptions::variant(variant)
                        .runtime(Arc::clone(&runtime))
                        .placement(placement.clone());
                    let graph = build(edges, &options).unwrap();
                    let label = format!("{placement} {variant:?} n {n}");
                    check_bfs(&graph, 0, &label);
                    let result = bfs(&graph, 0).unwrap();
                    if variant == Variant::U {
                        assert_eq!((result.levels.bits(), result.parents.bits()), (32, 32));
                    } else {
                        // Searched in 32-bit scratch cells, packed to the narrowest width.
                        let bits = 64 - n.leading_zeros();
                        assert_eq!(result.parents.bits(), bits, "{label}: parent bits");
                        assert!(result.levels.bits() <= bits, "{label}: level bits");
                    }
                    for array in [&result.levels, &result.parents] {
                        assert_eq!(array.placement(), &placement, "{label}: placement");
                    }
                    for array in [&result.levels, &result.parents] {
                        let values = array.to_vec();
                        for r in 0..array.replica_count() {
                            assert_eq!(array.replica(r).to_vec(), values, "{label}: replica {r}");
                        }
                    }
                    assert_eq!(
                        result.level(n - 1).is_some(),
                        n == 1,
                        "{label}: last vertex"
                    );
                    // Components: U labels in place in the result array (32 bits), V+E
                    // packed at the end; every replica equal either way.
                    check_components(&graph, &label);
                    let labels = connected_components(&graph).unwrap().labels;
                    if variant == Variant::U {
                        assert_eq!(labels.bits(), 32, "{label}: component labels");
                    }
                    let values = labels.to_vec();
                    for r in 0..labels.replica_count() {
                        assert_eq!(
                            labels.replica(r).to_vec(),
                            values,
                            "{label}: labels replica {r}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_path_stays_top_down_and_reaches_its_end() {
    let n = 1025u64;
    let pairs: Vec<[u32; 2]> = (0..n as u32 - 1).map(|v| [v, v + 1]).collect();
    for variant in [Variant::U, Variant::VE] {
        let graph = build(
            EdgeList::from_pairs(n, false, pairs.clone()),
            &options(variant, 2),
        )
        .unwrap();
        let steps = check_bfs(&graph, 0, "path");
        assert_eq!(
            steps.1, 0,
            "a path never has a frontier worth a bottom-up step"
        );
        let result = bfs(&graph, 0).unwrap();
        assert_eq!((result.depth, result.reached), (n - 1, n));
        assert_eq!(result.level(n - 1), Some(n - 1));
        assert_eq!(result.parent(n - 1), Some(n - 2));
        check_components(&graph, "path");
        let directed = build(
            EdgeList::from_pairs(n, true, pairs.clone()),
            &options(variant, 2),
        )
        .unwrap();
        // Directed: from the far end nothing else is reached.
        assert_eq!(
            check_bfs(&directed, n as usize - 1, "directed path"),
            (1, 0)
        );
        check_components(&directed, "directed path");
    }
}

#[test]
fn tiny_graphs_self_loops_and_isolated_vertices() {
    for variant in [Variant::U, Variant::V, Variant::VE] {
        let one = build(EdgeList::from_pairs(1, false, vec![]), &options(variant, 2)).unwrap();
        let result = bfs(&one, 0).unwrap();
        assert_eq!(
            (
                result.reached,
                result.depth,
                result.level(0),
                result.parent(0)
            ),
            (1, 0, Some(0), Some(0))
        );
        assert!(bfs(&one, 1).is_err());
        let components = connected_components(&one).unwrap();
        assert_eq!(
            (
                components.labels.to_vec(),
                components.count,
                components.largest
            ),
            (vec![0], 1, 1)
        );

        let looped = build(
            EdgeList::from_pairs(1, true, vec![[0, 0], [0, 0]]),
            &options(variant, 1),
        )
        .unwrap();
        assert_eq!(check_bfs(&looped, 0, "self-loop").0, 1);
        check_components(&looped, "self-loop");

        // Two triangles with self-loops, and isolated vertices around and between them.
        let pairs = vec![
            [1, 2],
            [2, 3],
            [3, 1],
            [3, 3],
            [5, 6],
            [6, 7],
            [7, 5],
            [5, 5],
        ];
        for directed in [false, true] {
            let graph = build(
                EdgeList::from_pairs(9, directed, pairs.clone()),
                &options(variant, 3),
            )
            .unwrap();
            for source in 0..9 {
                check_bfs(&graph, source, "two triangles");
            }
            check_components(&graph, "two triangles");
            let components = connected_components(&graph).unwrap();
            assert_eq!(components.labels.to_vec(), vec![0, 1, 1, 1, 4, 5, 5, 5, 8]);
            assert_eq!((components.count, components.largest), (5, 3));
        }
    }
    let empty = build(EdgeList::new(false), &GraphOptions::default()).unwrap();
    assert!(bfs(&empty, 0).is_err());
    let components = connected_components(&empty).unwrap();
    assert_eq!(
        (
            components.count,
            components.largest,
            components.labels.len()
        ),
        (0, 0, 0)
    );
}

#[test]
fn components_read_packed_lists_of_every_edge_length() {
    // Stars whose centre has 0, 1, 2, 3, 63, 64, 65, 1023 or 1025 leaves next to a larger star
    // (the skipped component): bit-packed lists are read one sampled value at a time, and the
    // lists of vertices outside the skipped component are unpacked whole. The last star's
    // centre is the highest vertex id.
    let mut pairs: Vec<[u32; 2]> = (1..=3000).map(|v| [0, v]).collect();
    let mut next = 3001u32;
    let lengths = [0u32, 1, 2, 3, 63, 64, 65, 1023, 1025];
    let total: u32 = next + lengths.iter().map(|l| l + 1).sum::<u32>();
    for (i, &length) in lengths.iter().enumerate() {
        let centre = if i + 1 == lengths.len() {
            total - 1
        } else {
            next
        };
        let first_leaf = if i + 1 == lengths.len() {
            next
        } else {
            next + 1
        };
        pairs.extend((first_leaf..first_leaf + length).map(|leaf| [centre, leaf]));
        next += length + 1;
    }
    for variant in [Variant::U, Variant::VE] {
        for threads in [1, 3] {
            for directed in [true, false] {
                let graph = build(
                    EdgeList::from_pairs(total as u64, directed, pairs.clone()),
                    &options(variant, threads),
                )
                .unwrap();
                check_components(&graph, &format!("stars {variant} {threads} {directed}"));
                let components = connected_components(&graph).unwrap();
                assert_eq!(components.largest, 3001);
                assert_eq!(components.count, lengths.len() as u64 + 1);
            }
        }
    }
}

#[test]
fn components_skip_the_largest_one_only_where_every_edge_is_still_seen() {
    // Directed: 1..=1000 point at hub 0 (joined while sampling: the largest component), and the
    // hub points at 1001..=2000, of which only the first two are sampled; the rest join only
    // through their in-edges. Vertices 2001..=2003 form a chain into a leaf; 2004 is alone.
    let mut pairs: Vec<[u32; 2]> = (1..=1000).map(|v| [v, 0]).collect();
    pairs.extend((1001..=2000).map(|v| [0, v]));
    pairs.extend([[2001, 2002], [2002, 2003], [2003, 1500]]);
    for variant in [Variant::U, Variant::VE] {
        for threads in [1, 2] {
            for directed in [true, false] {
                let graph = build(
                    EdgeList::from_pairs(2005, directed, pairs.clone()),
                    &options(variant, threads),
                )
                .unwrap();
                check_components(&graph, "hub");
                let components = connected_components(&graph).unwrap();
                assert_eq!((components.count, components.largest), (2, 2004));
                assert_eq!(components.labels.get(2004).unwrap(), 2004);
            }
        }
    }
    // A skewed graph whose giant component is sampled, next to many small ones.
    let mut edges = generate::kronecker(12, 8, 5, false).unwrap();
    for v in 4096..4200u64 {
        edges.push(v, v + 1);
    }
    edges.set_vertices(4300).unwrap();
    let graph = build(edges, &options(Variant::VE, 3)).unwrap();
    check_components(&graph, "kronecker");
}

#[test]
fn component_sizes_are_exact_whether_or_not_the_sampled_one_holds_half_the_vertices() {
    // Chains of `size` vertices (the last `rest` vertices alone, or one longer chain): the
    // sampled component holds half the vertices, a little less or far less, so the size of the
    // largest comes from the sampled one's count or from counting every component.
    let chains = |n: u32, size: u32| -> Vec<[u32; 2]> {
        (0..n - 1)
            .filter(|v| (v + 1) % size != 0)
            .map(|v| [v, v + 1])
            .collect()
    };
    let mut cases: Vec<(u32, Vec<[u32; 2]>, u64, u64)> = vec![
        // Two halves.
        (1024, chains(1024, 512), 2, 512),
        // Half and one more alone.
        (1025, chains(1024, 512), 3, 512),
        // Many small chains, sizes 1, 63, 64, 65.
        (1023, chains(1023, 1), 1023, 1),
        (64 * 63, chains(64 * 63, 63), 64, 63),
        (64 * 64, chains(64 * 64, 64), 64, 64),
        (65 * 65, chains(65 * 65, 65), 65, 65),
    ];
    // Half the vertices less one in the first chain, the rest in small ones and one longer.
    let mut skewed = chains(1000, 499);
    skewed.extend((1000..1499).filter(|v| v % 7 != 6).map(|v| [v, v + 1]));
    cases.push((1500, skewed, 0, 499));
    for (n, pairs, count, largest) in cases {
        for variant in [Variant::U, Variant::VE] {
            for threads in [1, 3] {
                let graph = build(
                    EdgeList::from_pairs(u64::from(n), false, pairs.clone()),
                    &options(variant, threads),
                )
                .unwrap();
                let label = format!("n {n} {variant:?} {threads} threads");
                check_components(&graph, &label);
                let components = connected_components(&graph).unwrap();
                if count > 0 {
                    assert_eq!(components.count, count, "{label}");
                }
                assert_eq!(components.largest, largest, "{label}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn dense_random_graphs_match_the_references(
        n in 1u64..200,
        raw in proptest::collection::vec((0u32..200, 0u32..200), 0..1500),
        directed in any::<bool>(),
        variant in 0usize..3,
        threads in 1usize..4,
        source in 0u64..200,
    ) {
        let pairs: Vec<[u32; 2]> = raw.into_iter().map(|(s, t)| [s % n as u32, t % n as u32]).collect();
        let variant = [Variant::U, Variant::V, Variant::VE][variant];
        let graph = build(EdgeList::from_pairs(n, directed, pairs), &options(variant, threads)).unwrap();
        check_bfs(&graph, (source % n) as usize, "proptest");
        check_components(&graph, "proptest");
    }
}

/// Triangles of the simple graph under `pairs` (loops and repeats ignored), by brute force.
fn brute_triangles(n: usize, pairs: &[[u32; 2]]) -> u64 {
    let mut adjacent = vec![vec![false; n]; n];
    for &[a, b] in pairs {
        if a != b {
            adjacent[a as usize][b as usize] = true;
            adjacent[b as usize][a as usize] = true;
        }
    }
    let mut count = 0;
    for a in 0..n {
        for b in a + 1..n {
            if adjacent[a][b] {
                count += (b + 1..n)
                    .filter(|&c| adjacent[a][c] && adjacent[b][c])
                    .count() as u64;
            }
        }
    }
    count
}

#[test]
fn triangles_of_complete_graphs_and_hubs_with_long_oriented_lists() {
    for n in [1u64, 2, 3, 9, 63, 64, 65, 130] {
        let pairs: Vec<[u32; 2]> = (0..n as u32)
            .flat_map(|a| (a + 1..n as u32).map(move |b| [a, b]))
            .collect();
        let expected = n * n.saturating_sub(1) * n.saturating_sub(2) / 6;
        for variant in [Variant::U, Variant::VE] {
            let graph = build(
                EdgeList::from_pairs(n, false, pairs.clone()),
                &options(variant, 2),
            )
            .unwrap();
            for order in [TcOrder::Degree, TcOrder::Id] {
                assert_eq!(
                    tc(&graph, order, |_, _| {}).unwrap(),
                    expected,
                    "K{n} {order:?}"
                );
            }
        }
    }
    // A wheel: hub 0 joined to a 100-cycle (100 triangles), with self-loops and repeats.
    let mut pairs: Vec<[u32; 2]> = (1..=100).map(|v| [0, v]).collect();
    pairs.extend((1..=100).map(|v| [v, v % 100 + 1]));
    pairs.extend([[0, 0], [5, 5], [0, 7], [7, 8]]);
    let graph = build(
        EdgeList::from_pairs(101, false, pairs.clone()),
        &options(Variant::VE, 3),
    )
    .unwrap();
    assert_eq!(brute_triangles(101, &pairs), 100);
    assert_eq!(tc(&graph, TcOrder::Degree, |_, _| {}).unwrap(), 100);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn triangle_counts_match_brute_force(
        n in 1usize..80,
        raw in proptest::collection::vec((0u32..80, 0u32..80), 0..900),
        threads in 1usize..4,
    ) {
        let pairs: Vec<[u32; 2]> = raw.into_iter().map(|(s, t)| [s % n as u32, t % n as u32]).collect();
        let graph = build(EdgeList::from_pairs(n as u64, false, pairs.clone()), &options(Variant::U, threads)).unwrap();
        let expected = brute_triangles(n, &pairs);
        prop_assert_eq!(tc(&graph, TcOrder::Degree, |_, _| {}).unwrap(), expected);
        prop_assert_eq!(tc(&graph, TcOrder::Id, |_, _| {}).unwrap(), expected);
    }
}
