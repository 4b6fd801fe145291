"""Graph.reorder_by_degree and VertexIds: "relabel once, run many kernels, map the results back".
On Kronecker graphs and networkx-generated ones (and graphs of 0 and 1 vertices), every kernel
run on the relabelled graph and mapped back equals the run on the input graph; the map is a
bijection (a hypothesis property); bad input is a clear ValueError, IndexError or TypeError."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartarrays as sa
import smartarrays.graph as sg

nx = pytest.importorskip("networkx")


def from_networkx(g: "nx.Graph", directed: bool) -> sa.Graph:
    edges = np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2)
    return sg.from_edges(edges[:, 0], edges[:, 1], num_vertices=g.number_of_nodes(), directed=directed)


def graphs() -> list[tuple[str, sa.Graph]]:
    barabasi = nx.barabasi_albert_graph(300, 3, seed=4)
    star = nx.star_graph(40)
    disjoint = nx.disjoint_union(nx.path_graph(30), nx.complete_graph(8))
    scale_free = nx.DiGraph(nx.scale_free_graph(200, seed=5))
    scale_free.remove_edges_from(nx.selfloop_edges(scale_free))
    return [
        ("kronecker", sg.kronecker(9, edge_factor=8, seed=2)),
        ("directed kronecker", sg.kronecker(8, edge_factor=8, seed=3, directed=True)),
        ("barabasi-albert", from_networkx(barabasi, False)),
        ("star", from_networkx(star, False)),
        ("path and clique", from_networkx(disjoint, False)),
        ("scale-free directed", from_networkx(scale_free, True)),
        ("empty", sg.from_edges([], [], num_vertices=0)),
        ("one vertex", sg.from_edges([], [], num_vertices=1)),
        ("one self-loop", sg.from_edges([0], [0], directed=True)),
    ]


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,graph", graphs(), ids=lambda x: x if isinstance(x, str) else "")
def test_kernels_mapped_back_equal_the_input_order(name: str, graph: sa.Graph) -> None:
    fast, ids = graph.reorder_by_degree()
    n = graph.num_vertices
    assert (fast.num_vertices, fast.num_edges, fast.directed) == (n, graph.num_edges, graph.directed)
    assert len(ids) == n
    assert sorted(ids.new_ids().tolist()) == list(range(n))
    np.testing.assert_array_equal(ids.original_ids()[ids.new_ids()], np.arange(n, dtype=np.uint64))
    if n == 0:
        return
    for source in {0, n // 2, n - 1}:
        levels, parents = fast.bfs(ids.to_new(source))
        want_levels, _ = graph.bfs(source)
        np.testing.assert_array_equal(ids.results_to_original(levels), want_levels)
        mapped = ids.parents_to_original(parents)
        assert mapped.dtype == np.int64
        for v in range(n):
            if want_levels[v] < 0:
                assert mapped[v] == -1
            else:
                # BFS trees may differ; the parent is one level up (the source is its own).
                assert want_levels[mapped[v]] == want_levels[v] - (0 if v == source else 1)
    np.testing.assert_array_equal(ids.labels_to_original(fast.connected_components()), graph.connected_components())
    assert_close(ids.results_to_original(fast.pagerank(tolerance=1e-12)), graph.pagerank(tolerance=1e-12))
    assert_close(
        ids.results_to_original(fast.pagerank(tolerance=1e-12, gauss_seidel=True)),
        graph.pagerank(tolerance=1e-12, gauss_seidel=True),
    )
    if n <= 600:
        assert_close(ids.results_to_original(fast.betweenness()), graph.betweenness())
    sources = np.array(sorted({0, n // 2, n - 1}))
    assert_close(
        ids.results_to_original(fast.betweenness(sources=ids.new_ids()[sources])), graph.betweenness(sources=sources)
    )
    if not graph.directed:
        assert fast.triangle_count() == graph.triangle_count()
        assert fast.triangle_count(order="id") == graph.triangle_count()


@pytest.mark.parametrize("directed", [False, True])
def test_weights_move_with_their_edges(directed: bool) -> None:
    graph = sg.kronecker(8, edge_factor=8, seed=6, directed=directed).with_generated_weights(9)
    fast, ids = graph.reorder_by_degree()
    assert fast.weighted
    for source in (0, 17, 255):
        np.testing.assert_array_equal(ids.results_to_original(fast.sssp(ids.to_new(source), delta=4)), graph.sssp(source, delta=4))
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    weights = rng.integers(0, 1000, 400)
    weighted = sg.from_edges(src, dst, num_vertices=50, directed=directed, weights=weights)
    fast, ids = weighted.reorder_by_degree()
    np.testing.assert_array_equal(ids.results_to_original(fast.sssp(ids.to_new(3))), weighted.sssp(3))


def test_hub_first_and_results_to_new() -> None:
    graph = sg.from_edges([5, 5, 5, 5, 5, 1], [0, 1, 2, 3, 4, 2])
    fast, ids = graph.reorder_by_degree()
    assert ids.original_ids().tolist() == [5, 1, 2, 0, 3, 4]
    assert fast.neighbors(0).tolist() == [1, 2, 3, 4, 5]
    values = np.arange(6) * 10
    np.testing.assert_array_equal(ids.results_to_original(ids.results_to_new(values)), values)
    assert repr(ids) == "VertexIds(6 vertices)"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=120), st.booleans())
def test_to_original_inverts_to_new(edges: list[tuple[int, int]], directed: bool) -> None:
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    graph = sg.from_edges(src, dst, num_vertices=31, directed=directed)
    _, ids = graph.reorder_by_degree()
    for v in range(31):
        assert ids.to_original(ids.to_new(v)) == v
        assert ids.to_new(ids.to_original(v)) == v
    rebuilt = sa.VertexIds.from_new_ids(ids.new_ids())
    np.testing.assert_array_equal(rebuilt.original_ids(), ids.original_ids())


def test_bad_input_is_a_clear_error() -> None:
    _, ids = sg.kronecker(4, edge_factor=4).reorder_by_degree()
    with pytest.raises(IndexError, match="16"):
        ids.to_new(16)
    with pytest.raises(IndexError):
        ids.to_original(1 << 40)
    with pytest.raises(OverflowError):
        ids.to_new(-1)
    with pytest.raises(ValueError, match="15 values; the graph has 16 vertices"):
        ids.results_to_original(np.zeros(15))
    with pytest.raises(ValueError, match="one-dimensional"):
        ids.results_to_original(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="17 values"):
        ids.parents_to_original(np.zeros(17, dtype=np.int64))
    with pytest.raises(ValueError, match="does not exist"):
        ids.parents_to_original(np.full(16, 99, dtype=np.int64))
    with pytest.raises(ValueError, match="label 16"):
        ids.labels_to_original(np.full(16, 16, dtype=np.uint64))
    with pytest.raises(ValueError, match="negative"):
        ids.labels_to_original(np.full(16, -3, dtype=np.int64))
    with pytest.raises(TypeError, match="integers"):
        ids.labels_to_original(np.zeros(16))
    with pytest.raises(ValueError, match="permutation"):
        sa.VertexIds.from_new_ids([0, 0, 1])
    with pytest.raises(ValueError, match="permutation"):
        sa.VertexIds.from_new_ids([0, 3])


def test_module_docstring_examples_run() -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(sg.__doc__ or "", {}, "smartarrays.graph", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
