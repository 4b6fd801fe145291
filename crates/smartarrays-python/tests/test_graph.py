"""smartarrays.Graph against networkx (and scipy for input): every algorithm on small graphs of
many shapes, edge cases (no edges, one vertex, self-loops, isolated vertices, disconnected
parts), loaders, and clear errors for bad input."""

import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartarrays as sa
import smartarrays.graph as sg

nx = pytest.importorskip("networkx")


def reference(src: np.ndarray, dst: np.ndarray, n: int, directed: bool) -> "nx.Graph":
    """The networkx graph of the same input edges."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    return g


def random_edges(n: int, m: int, seed: int, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    """`m` random edges, without repeats (networkx's graphs keep one edge per pair; ours keep
    every edge given, as a multigraph)."""
    rng = np.random.default_rng(seed)
    pairs = {(int(s), int(t)) for s, t in zip(rng.integers(0, n, m), rng.integers(0, n, m))}
    if not directed:
        pairs = {(min(p), max(p)) for p in pairs}
    ordered = sorted(pairs)
    return np.array([p[0] for p in ordered], dtype=np.int64), np.array([p[1] for p in ordered], dtype=np.int64)


def check_bfs(graph: sa.Graph, g: "nx.Graph", source: int) -> None:
    levels, parents = graph.bfs(source)
    expected = nx.single_source_shortest_path_length(g, source)
    want = np.full(graph.num_vertices, -1, dtype=np.int64)
    for v, d in expected.items():
        want[v] = d
    np.testing.assert_array_equal(levels, want)
    for v in range(graph.num_vertices):
        if v == source:
            assert parents[v] == source
        elif levels[v] < 0:
            assert parents[v] == -1
        else:
            assert levels[parents[v]] == levels[v] - 1 and g.has_edge(int(parents[v]), v)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(("n", "m", "seed"), [(1, 0, 0), (2, 1, 1), (63, 200, 2), (64, 64, 3), (65, 300, 4), (200, 150, 5)])
def test_algorithms_match_networkx(directed: bool, n: int, m: int, seed: int) -> None:
    src, dst = random_edges(n, m, seed, directed)
    graph = sg.from_edges(src, dst, num_vertices=n, directed=directed)
    assert graph.num_vertices == n and graph.directed == directed and len(graph) == n
    g = reference(src, dst, n, directed)
    assert graph.num_edges == g.number_of_edges() == len(src)
    for source in {0, n // 2, n - 1}:
        check_bfs(graph, g, source)
    # components: weak ones when directed, labelled by their smallest vertex
    labels = graph.connected_components()
    parts = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    for part in parts:
        assert set(labels[list(part)].tolist()) == {min(part)}
    ranks = graph.pagerank(tolerance=1e-12)
    expected = nx.pagerank(g, alpha=0.85, tol=1e-14, max_iter=10_000)
    np.testing.assert_allclose(ranks, [expected[v] for v in range(n)], atol=1e-9)
    np.testing.assert_allclose(graph.pagerank(tolerance=1e-12, gauss_seidel=True), ranks, atol=1e-8)
    scores = graph.betweenness()
    want = nx.betweenness_centrality(g, normalized=False)
    # networkx halves undirected scores (each pair counted once); ours counts both ends.
    factor = 1.0 if directed else 2.0
    np.testing.assert_allclose(scores, [factor * want[v] for v in range(n)], atol=1e-9)
    if not directed:
        simple = nx.Graph(g)
        simple.remove_edges_from(nx.selfloop_edges(simple))
        assert graph.triangle_count() == sum(nx.triangles(simple).values()) // 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=80), st.booleans())
def test_bfs_and_components_property(edges: list[tuple[int, int]], directed: bool) -> None:
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    graph = sg.from_edges(src, dst, num_vertices=31, directed=directed)
    g = reference(src, dst, 31, directed)
    check_bfs(graph, g, 0)
    labels = graph.connected_components()
    parts = nx.weakly_connected_components(g) if directed else nx.connected_components(g)
    assert sum(1 for _ in parts) == len(set(labels.tolist()))


def test_scipy_networkx_and_files(tmp_path: pathlib.Path) -> None:
    sparse = pytest.importorskip("scipy.sparse")
    matrix = sparse.csr_matrix(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]]))
    graph = sg.from_scipy(matrix)
    assert graph.directed and graph.num_edges == 5 and graph.neighbors(0).tolist() == [1, 2]
    assert sorted(graph.to_networkx().edges()) == [(0, 1), (0, 2), (1, 2), (2, 3), (3, 0)]
    sources, targets = graph.edges()
    assert list(zip(sources.tolist(), targets.tolist())) == [(0, 1), (0, 2), (1, 2), (2, 3), (3, 0)]
    undirected = sg.from_scipy(sparse.triu(matrix + matrix.T).tocsr(), directed=False)
    assert undirected.triangle_count() == 2  # 0-1-2 and 0-2-3
    path = tmp_path / "g.el"
    path.write_text("# a comment\n0 1\n1 2\n2 0\n5 6\n")
    loaded = sg.load(path, undirected=True)
    assert loaded.num_vertices == 7 and loaded.triangle_count() == 1
    assert loaded.connected_components().tolist() == [0, 0, 0, 3, 4, 5, 5]
    kron = sg.kronecker(8, edge_factor=4, seed=3)
    assert kron.num_vertices == 256 and kron.nbytes > 0
    assert sg.kronecker(8, edge_factor=4, seed=3).edges()[1].tolist() == kron.edges()[1].tolist()
    assert sa.graph.Graph is sa.Graph


def test_errors_name_the_problem(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"sources\[1\] is -3"):
        sg.from_edges(np.array([0, -3]), np.array([1, 2]))
    with pytest.raises(ValueError, match="3 vertex ids but targets 2"):
        sg.from_edges([0, 1, 2], [1, 2])
    with pytest.raises(TypeError, match="integers"):
        sg.from_edges(np.array([0.5]), np.array([1.0]))
    with pytest.raises(ValueError, match="num_vertices=2, but vertex id 4"):
        sg.from_edges([0], [4], num_vertices=2)
    with pytest.raises(ValueError, match="one-dimensional"):
        sg.from_edges(np.zeros((2, 2), dtype=int), np.zeros((2, 2), dtype=int))
    graph = sg.from_edges([0], [1])
    with pytest.raises(ValueError, match="source vertex 5 does not exist"):
        graph.bfs(5)
    with pytest.raises((ValueError, IndexError), match="2"):
        graph.neighbors(2)
    with pytest.raises(ValueError):
        sg.from_edges([0], [1], directed=True).triangle_count()
    with pytest.raises(ValueError, match="square"):
        sg.from_scipy(pytest.importorskip("scipy.sparse").csr_matrix(np.ones((2, 3))))
    bad = tmp_path / "bad.el"
    bad.write_text("0 1\n1 x\n")
    with pytest.raises(ValueError, match=r"bad\.el:2: target vertex id \"x\""):
        sg.load(bad)
    with pytest.raises(OSError):
        sg.load(tmp_path / "missing.el")
    with pytest.raises(ValueError, match="placement"):
        sg.from_edges([0], [1], placement="mirrored")
    empty = sg.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert empty.num_vertices == 0 and empty.connected_components().tolist() == []


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(("n", "m", "seed"), [(1, 0, 0), (64, 200, 1), (65, 130, 2), (300, 900, 3)])
def test_sssp_matches_dijkstra(directed: bool, n: int, m: int, seed: int) -> None:
    src, dst = random_edges(n, m, seed, directed)
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 100, len(src))
    graph = sg.from_edges(src, dst, num_vertices=n, directed=directed, weights=weights)
    assert graph.weighted and not sg.from_edges(src, dst, num_vertices=n).weighted
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), weights.tolist()))
    for source in {0, n - 1}:
        expected = nx.single_source_dijkstra_path_length(g, source)
        want = [expected.get(v, -1) for v in range(n)]
        for delta in (1, 7, 1000):
            assert graph.sssp(source, delta=delta).tolist() == want


def test_weighted_files_save_load_and_convert(tmp_path: pathlib.Path) -> None:
    src, dst = random_edges(65, 300, 9, True)
    weights = np.random.default_rng(9).integers(0, 2**32, len(src))
    graph = sg.from_edges(src, dst, num_vertices=65, directed=True, weights=weights)
    want = graph.sssp(0)
    for name in ("g.sag", "g.wel"):
        graph.save(tmp_path / name)
        loaded = sg.load(tmp_path / name)
        assert loaded.weighted and loaded.directed
        np.testing.assert_array_equal(loaded.sssp(0), want)
    sg.convert(tmp_path / "g.wel", tmp_path / "again.sag")
    np.testing.assert_array_equal(sg.load(tmp_path / "again.sag").sssp(0), want)
    # An edge list or Matrix Market file has no place for weights: it loads unweighted.
    graph.save(tmp_path / "g.el")
    assert not sg.load(tmp_path / "g.el").weighted
    plain = sg.from_edges(src, dst, num_vertices=65, directed=True)
    with pytest.raises(ValueError, match="no edge weights"):
        plain.save(tmp_path / "plain.wel")
    with pytest.raises(ValueError, match="needs edge weights"):
        plain.sssp(0)
    generated = plain.with_generated_weights(7)
    assert generated.weighted and not plain.weighted
    np.testing.assert_array_equal(generated.sssp(0), plain.with_generated_weights(7).sssp(0))
    assert (generated.sssp(0)[plain.bfs(0)[0] < 0] == -1).all()
    (tmp_path / "bad.wel").write_text("0 1 5\n1 2 x\n")
    with pytest.raises(ValueError, match=r"bad.wel:2"):
        sg.load(tmp_path / "bad.wel")
    with pytest.raises(OSError):
        sg.convert(tmp_path / "missing.el", tmp_path / "never.sag")
    assert not (tmp_path / "never.sag").exists()


def test_sssp_errors() -> None:
    with pytest.raises(ValueError, match="needs edge weights"):
        sg.from_edges([0], [1]).sssp(0)
    with pytest.raises(ValueError, match="1 values for 2 edges"):
        sg.from_edges([0, 1], [1, 2], weights=[1])
    with pytest.raises(ValueError, match=r"weights\[1\] is 4294967296"):
        sg.from_edges([0, 1], [1, 2], weights=[1, 2**32])
    with pytest.raises(ValueError, match=r"weights\[0\] is -1"):
        sg.from_edges([0], [1], weights=[-1])
    with pytest.raises(ValueError, match="source vertex 3"):
        sg.from_edges([0], [1], weights=[5]).sssp(3)


@pytest.mark.parametrize("gauss_seidel", [False, True])
def test_pagerank_progress_sees_every_iteration(gauss_seidel: bool) -> None:
    graph = sg.kronecker(8, edge_factor=8, seed=3)
    seen: list[tuple[int, float]] = []
    ranks = graph.pagerank(tolerance=1e-9, gauss_seidel=gauss_seidel, progress=lambda i, change: seen.append((i, change)))
    np.testing.assert_allclose(ranks, graph.pagerank(tolerance=1e-9, gauss_seidel=gauss_seidel), atol=1e-8)
    assert [i for i, _ in seen] == list(range(1, len(seen) + 1))
    assert len(seen) >= 2
    # Every change but the last is above the tolerance, the last below it.
    assert all(change >= 1e-9 for _, change in seen[:-1]) and seen[-1][1] < 1e-9
    # The limit bounds the calls.
    calls: list[int] = []
    graph.pagerank(tolerance=0.0, max_iterations=3, progress=lambda i, _: calls.append(i))
    assert calls == [1, 2, 3]


@pytest.mark.parametrize("gauss_seidel", [False, True])
def test_pagerank_cell_order_keeps_the_ranks(gauss_seidel: bool) -> None:
    graph = sg.kronecker(9, edge_factor=8, seed=4)
    by_vertex = graph.pagerank(tolerance=1e-8, gauss_seidel=gauss_seidel, cell_order="vertex")
    by_degree = graph.pagerank(tolerance=1e-8, gauss_seidel=gauss_seidel, cell_order="Degree")
    np.testing.assert_array_equal(by_degree, by_vertex)
    np.testing.assert_array_equal(graph.pagerank(tolerance=1e-8, gauss_seidel=gauss_seidel), by_vertex)
    with pytest.raises(ValueError, match="expected auto, vertex or degree"):
        graph.pagerank(cell_order="hubs")


@pytest.mark.parametrize("gauss_seidel", [False, True])
@pytest.mark.parametrize("n", [1, 64, 65, 1025])
def test_pagerank_dangling_drop_matches_numpy(gauss_seidel: bool, n: int) -> None:
    src, dst = random_edges(n, 2 * n, n, True)
    graph = sg.from_edges(src, dst, num_vertices=n, directed=True)
    ranks = graph.pagerank(tolerance=1e-13, max_iterations=10_000, gauss_seidel=gauss_seidel, dangling="drop")
    degree = np.bincount(src, minlength=n).astype(np.float64)
    want = np.full(n, 1.0 / n)
    for _ in range(10_000):
        pulled = np.zeros(n)
        np.add.at(pulled, dst, want[src] / degree[src])
        step = 0.15 / n + 0.85 * pulled
        done = np.abs(step - want).sum() < 1e-15
        want = step
        if done:
            break
    np.testing.assert_allclose(ranks, want, rtol=0, atol=1e-10)
    if (degree == 0).any():
        assert ranks.sum() < 1 - 1e-9
    with pytest.raises(ValueError, match="expected spread or drop"):
        graph.pagerank(dangling="keep")


@pytest.mark.parametrize("gauss_seidel", [False, True])
def test_pagerank_f32_contributions_agree_with_f64(gauss_seidel: bool) -> None:
    graph = sg.kronecker(10, edge_factor=8, seed=5)
    exact = graph.pagerank(tolerance=1e-4, gauss_seidel=gauss_seidel)
    single = graph.pagerank(tolerance=1e-4, gauss_seidel=gauss_seidel, contributions="f32")
    # Each run stops within tolerance * d / (1 - d) of the fixed point (L1), so the two agree to
    # within twice that; Gauss-Seidel on several threads stops at a different point each run.
    assert np.abs(single - exact).sum() < 2 * 1e-4 * 0.85 / 0.15
    assert graph.prepare_degree_order() is True
    with pytest.raises(ValueError, match="expected f64 or f32"):
        graph.pagerank(contributions="f16")


def test_betweenness_progress_counts_sources() -> None:
    graph = sg.kronecker(7, edge_factor=4, seed=1)
    seen: list[tuple[int, int]] = []
    scores = graph.betweenness(sources=[0, 5, 9], progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    np.testing.assert_allclose(scores, graph.betweenness(sources=[0, 5, 9]))
    seen.clear()
    graph.betweenness(progress=lambda done, total: seen.append((done, total)))
    n = graph.num_vertices
    assert seen == [(k, n) for k in range(1, n + 1)]


def test_betweenness_from_sampled_sources() -> None:
    graph = sg.kronecker(8, edge_factor=4, seed=3)
    seen: list[tuple[int, int]] = []
    first = graph.betweenness(samples=5, seed=7, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(k, 5) for k in range(1, 6)]
    np.testing.assert_array_equal(graph.betweenness(samples=5, seed=7), first)
    assert (first >= 0).all() and first.sum() > 0
    assert not np.array_equal(graph.betweenness(samples=5, seed=8), first)
    np.testing.assert_array_equal(graph.betweenness(samples=0), np.zeros(graph.num_vertices))
    with pytest.raises(ValueError, match="either sources or samples"):
        graph.betweenness(sources=[0], samples=3)
    with pytest.raises(ValueError, match="no vertex has out-edges"):
        sg.from_edges([], [], num_vertices=3).betweenness(samples=2)


@pytest.mark.parametrize(("n", "m", "seed"), [(1, 0, 0), (64, 300, 1), (65, 400, 2), (200, 1500, 3)])
def test_triangle_orders_match_networkx(n: int, m: int, seed: int) -> None:
    src, dst = random_edges(n, m, seed, False)
    graph = sg.from_edges(src, dst, num_vertices=n)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((int(s), int(t)) for s, t in zip(src, dst) if s != t)
    want = sum(nx.triangles(g).values()) // 3
    assert graph.triangle_count() == graph.triangle_count(order="degree") == graph.triangle_count(order="id") == want
    with pytest.raises(ValueError, match="expected id or degree"):
        graph.triangle_count(order="random")


class Stop(Exception):
    pass


def test_an_exception_in_progress_stops_the_run_and_propagates() -> None:
    graph = sg.kronecker(9, edge_factor=8, seed=2)
    calls: list[int] = []

    def stop_at_second(i: int, _change: float) -> None:
        calls.append(i)
        if i == 2:
            raise Stop("enough")

    with pytest.raises(Stop, match="enough"):
        graph.pagerank(tolerance=1e-12, progress=stop_at_second)
    assert calls == [1, 2]  # stopped at once: no third iteration ran
    with pytest.raises(Stop):
        graph.pagerank(tolerance=1e-12, gauss_seidel=True, progress=stop_at_second)

    sources_seen: list[int] = []

    def stop_after_one(done: int, _total: int) -> None:
        sources_seen.append(done)
        raise Stop("one source")

    with pytest.raises(Stop, match="one source"):
        graph.betweenness(sources=list(range(10)), progress=stop_after_one)
    assert sources_seen == [1]
    # A callable with the wrong signature is a TypeError, raised the same way.
    with pytest.raises(TypeError):
        graph.pagerank(progress=lambda: None)
    # The graph is still usable after a stopped run.
    assert graph.pagerank().sum() == pytest.approx(1.0)


def test_progress_callbacks_run_with_the_gil_and_other_threads_proceed() -> None:
    import threading

    graph = sg.kronecker(10, edge_factor=8, seed=4)
    owners: list[int] = []
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    worker = threading.Thread(target=count)
    worker.start()
    try:
        graph.pagerank(tolerance=1e-10, progress=lambda i, _: owners.append(threading.get_ident()))
    finally:
        done.set()
        worker.join()
    assert owners and set(owners) == {threading.get_ident()}
    assert ticks > 0
