"""smartarrays.graph.from_csr and from_scipy (built through the CSR arrays) against networkx and
against from_edges of the same pairs: edge sizes, directed and undirected, unsorted lists,
repeated entries and self-loops, scipy csr/csc/coo/lil/dok inputs and sparse arrays, and clear
errors for bad arrays."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartarrays.graph as sg

nx = pytest.importorskip("networkx")
sparse = pytest.importorskip("scipy.sparse")


def csr_of(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays of the pairs, each list in input order (so usually unsorted)."""
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst[order]


def pairs_of(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of CSR arrays, in CSR order."""
    n = len(indptr) - 1
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)), np.asarray(indices, dtype=np.int64)


def assert_same(a: "sg.Graph", b: "sg.Graph") -> None:
    """Two graphs with the same shape, neighbour lists and algorithm results."""
    assert (a.num_vertices, a.num_edges, a.directed) == (b.num_vertices, b.num_edges, b.directed)
    for v in range(a.num_vertices):
        assert a.neighbors(v).tolist() == b.neighbors(v).tolist()
    if a.num_vertices:
        np.testing.assert_array_equal(a.bfs(0)[0], b.bfs(0)[0])
        np.testing.assert_array_equal(a.connected_components(), b.connected_components())
        np.testing.assert_allclose(a.pagerank(), b.pagerank(), atol=1e-12)


def random_pairs(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    return rng.integers(0, n, m), rng.integers(0, n, m)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(("n", "m"), [(0, 0), (1, 0), (1, 1), (63, 200), (64, 64), (65, 300), (1023, 3000), (1025, 4000)])
def test_from_csr_equals_from_edges(directed: bool, n: int, m: int) -> None:
    src, dst = random_pairs(n, m, n + m)
    indptr, indices = csr_of(src, dst, n)
    graph = sg.from_csr(indptr, indices, directed=directed)
    assert graph.num_vertices == n and graph.directed == directed
    assert graph.num_edges == m  # repeats and self-loops kept, each entry one edge
    csr_src, csr_dst = pairs_of(indptr, indices)
    assert_same(graph, sg.from_edges(csr_src, csr_dst, num_vertices=n, directed=directed))
    # the same pairs in input order build the same graph too
    assert_same(graph, sg.from_edges(src, dst, num_vertices=n, directed=directed))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(("n", "m", "seed"), [(2, 1, 1), (63, 150, 2), (65, 300, 4), (200, 400, 5)])
def test_from_csr_matches_networkx(directed: bool, n: int, m: int, seed: int) -> None:
    src, dst = random_pairs(n, m, seed)
    pairs = {(int(s), int(t)) for s, t in zip(src, dst)}  # networkx keeps one edge per pair
    if not directed:
        pairs = {(min(p), max(p)) for p in pairs}
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    indptr, indices = csr_of(src, dst, n)
    graph = sg.from_csr(indptr, indices, directed=directed)
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(pairs)
    assert graph.num_edges == g.number_of_edges()
    for v in range(n):
        want = sorted(g.successors(v)) if directed else sorted(g.neighbors(v))
        assert graph.neighbors(v).tolist() == want
    levels, _ = graph.bfs(0)
    expected = nx.single_source_shortest_path_length(g, 0)
    assert {v: int(levels[v]) for v in range(n) if levels[v] >= 0} == expected
    labels = graph.connected_components()
    parts = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    for part in parts:
        assert set(labels[list(part)].tolist()) == {min(part)}
    ranks = graph.pagerank(tolerance=1e-12)
    want = nx.pagerank(g, alpha=0.85, tol=1e-14, max_iter=10_000)
    np.testing.assert_allclose(ranks, [want[v] for v in range(n)], atol=1e-9)


def test_unsorted_lists_repeats_and_self_loops() -> None:
    indptr = np.array([0, 4, 4, 6], dtype=np.uint64)
    indices = np.array([2, 0, 1, 2, 1, 2], dtype=np.int32)  # 0: 2, 0, 1, 2; 2: 1, 2
    directed = sg.from_csr(indptr, indices, directed=True)
    assert directed.neighbors(0).tolist() == [0, 1, 2, 2] and directed.num_edges == 6
    assert directed.neighbors(2).tolist() == [1, 2]
    undirected = sg.from_csr(indptr.tolist(), indices.tolist())  # plain lists too; undirected by default
    assert not undirected.directed and undirected.num_edges == 6
    assert undirected.neighbors(1).tolist() == [0, 2]
    assert undirected.neighbors(2).tolist() == [0, 0, 1, 2]


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "csr_array"])
@pytest.mark.parametrize("directed", [False, True])
def test_from_scipy_every_format(fmt: str, directed: bool) -> None:
    rng = np.random.default_rng(11)
    n = 65
    dense = (rng.random((n, n)) < 0.05).astype(np.float64)
    if not directed:
        dense = np.triu(dense)
    dense[3, 3] = 2.5  # a self-loop; values are ignored
    matrix = sparse.csr_array(dense) if fmt == "csr_array" else getattr(sparse, f"{fmt}_matrix")(dense)
    graph = sg.from_scipy(matrix, directed=directed)
    rows, cols = np.nonzero(dense)
    assert_same(graph, sg.from_edges(rows, cols, num_vertices=n, directed=directed))
    g = nx.from_scipy_sparse_array(sparse.csr_array(dense), create_using=nx.DiGraph if directed else nx.Graph)
    assert graph.num_edges == g.number_of_edges()
    for v in range(n):
        want = sorted(g.successors(v)) if directed else sorted(g.neighbors(v))
        assert graph.neighbors(v).tolist() == want


def test_from_scipy_unsorted_indices_and_empty() -> None:
    # CSR with unsorted column indices in row 0 (scipy keeps them as given).
    matrix = sparse.csr_matrix((np.ones(3), np.array([2, 0, 1]), np.array([0, 3, 3, 3])), shape=(3, 3))
    assert not matrix.has_sorted_indices
    graph = sg.from_scipy(matrix)
    assert graph.directed and graph.neighbors(0).tolist() == [0, 1, 2]
    # Repeated entries: a CSR matrix keeps them as given; COO ones are summed by scipy's tocsr().
    repeated = sparse.csr_matrix((np.ones(3), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2))
    assert sg.from_scipy(repeated).neighbors(0).tolist() == [1, 1]
    coo = sparse.coo_matrix((np.ones(3), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    assert sg.from_scipy(coo).num_edges == 2
    empty = sg.from_scipy(sparse.csr_matrix((0, 0)))
    assert empty.num_vertices == 0 and empty.num_edges == 0
    lonely = sg.from_scipy(sparse.csr_matrix((4, 4)))
    assert lonely.num_vertices == 4 and lonely.connected_components().tolist() == [0, 1, 2, 3]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 20), max_size=25), min_size=21, max_size=21), st.booleans())
def test_from_csr_property(lists: list[list[int]], directed: bool) -> None:
    indptr = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
    indices = np.array([w for x in lists for w in x], dtype=np.int64)
    graph = sg.from_csr(indptr, indices, directed=directed)
    src, dst = pairs_of(indptr, indices)
    assert_same(graph, sg.from_edges(src, dst, num_vertices=21, directed=directed))


def test_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="indptr is empty"):
        sg.from_csr(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match=r"indptr\[0\] = 1 must be 0"):
        sg.from_csr([1, 2], [0])
    with pytest.raises(ValueError, match=r"indptr\[5\] = 3 is below indptr\[4\] = 7"):
        sg.from_csr([0, 2, 4, 6, 7, 3, 8, 8, 8, 8, 10], [0] * 10)
    with pytest.raises(ValueError, match=r"indptr\[2\] = 2, is not the length of indices \(3\)"):
        sg.from_csr([0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match=r"indices\[12\] = 99 is not a vertex \(the graph has 10 vertices\)"):
        sg.from_csr([0] + [13] * 10, [1] * 12 + [99])
    with pytest.raises(ValueError, match=r"indices\[1\] is -1: indices cannot be negative"):
        sg.from_csr([0, 2], [0, -1])
    with pytest.raises(ValueError, match=r"indptr\[1\] is -2"):
        sg.from_csr([0, -2], [])
    with pytest.raises(TypeError, match="indices must hold integers"):
        sg.from_csr([0, 1], np.array([0.0]))
    with pytest.raises(TypeError, match="indptr must hold integers"):
        sg.from_csr(np.array([0.0, 1.0]), [0])
    with pytest.raises(ValueError, match="one-dimensional"):
        sg.from_csr(np.zeros((2, 2), dtype=int), [0])
    with pytest.raises(ValueError, match="placement"):
        sg.from_csr([0, 0], [], placement="mirrored")
    with pytest.raises(ValueError, match="square"):
        sg.from_scipy(sparse.csr_matrix(np.ones((2, 3))))
    with pytest.raises(TypeError, match="scipy sparse"):
        sg.from_scipy([[0, 1], [1, 0]])
