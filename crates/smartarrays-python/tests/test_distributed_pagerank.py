"""Partitioned PageRank (the shards Ray actors run, here in one process) equals Graph.pagerank
within 1e-9, whatever the partition count, on directed and undirected graphs with dangling and
isolated vertices."""

from __future__ import annotations

import numpy as np
import pytest
import smartarrays.distributed as sd
import smartarrays.graph as sg
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=25)
@given(st.integers(1, 300), st.integers(0, 1500), st.booleans(), st.integers(1, 7), st.integers(0, 2**32))
def test_partitioned_pagerank_equals_one_process(vertices: int, edges: int, directed: bool, partitions: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sources = rng.integers(0, vertices, size=edges)
    targets = rng.integers(0, vertices, size=edges)
    keep = sources != targets
    g = sg.from_edges(sources[keep], targets[keep], num_vertices=vertices, directed=directed)
    expected = g.pagerank(tolerance=1e-12)
    info: dict = {}
    got = sd.pagerank(g, partitions=partitions, backend="local", tolerance=1e-12, info=info)
    assert got.shape == (vertices,) and info["converged"]
    assert np.abs(got - expected).max() < 1e-9
    assert abs(got.sum() - 1.0) < 1e-9


def test_kronecker_graph_in_three_shards_and_the_exchange_it_needs() -> None:
    g = sg.kronecker(10, edge_factor=8, seed=3, directed=True)
    info: dict = {}
    got = sd.pagerank(g, partitions=3, backend="local", tolerance=1e-10, info=info)
    assert np.abs(got - g.pagerank(tolerance=1e-10)).max() < 1e-9
    # Every shard needs some contributions of both others: 6 messages per iteration, each
    # vertex's contribution at most once per receiving shard (8 bytes).
    assert info["messages_per_iteration"] == 6
    assert 0 < info["bytes_per_iteration"] <= 8 * 2 * g.num_vertices


def test_shards_hold_their_csr_as_smart_arrays() -> None:
    g = sg.from_edges(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), directed=True)
    specs = sd.partition_graph(g, 2)
    assert [(s["start"], s["stop"]) for s in specs] == [(0, 2), (2, 4)]
    shard = sd.PageRankShard(**specs[0])
    assert type(shard.sources).__name__ == "SmartArray" and shard.offsets.tolist() == [0, 1, 2]
    # Shard 0 (vertices 0, 1) pulls 0 <- 3 and 1 <- 0: it needs vertex 3 of shard 1.
    assert specs[1]["send"][0].tolist() == [1] and specs[0]["send"][1].tolist() == [1]


def test_bad_arguments_are_refused() -> None:
    g = sg.from_edges(np.array([0]), np.array([1]))
    with pytest.raises(ValueError, match="partitions=0"):
        sd.pagerank(g, partitions=0, backend="local")
    with pytest.raises(ValueError, match="backend='spark'"):
        sd.pagerank(g, backend="spark")
    with pytest.raises(ValueError, match="damping=1.5"):
        sd.pagerank(g, backend="local", damping=1.5)


def test_on_iteration_reports_every_iteration() -> None:
    g = sg.kronecker(8, edge_factor=4, seed=1, directed=True)
    seen: list[tuple[int, float, int]] = []
    info: dict = {}
    sd.pagerank(g, partitions=2, backend="local", tolerance=1e-8, info=info,
                on_iteration=lambda i, change, shards: seen.append((i, change, len(shards))))
    assert [s[0] for s in seen] == list(range(1, info["iterations"] + 1))
    assert seen[-1][1] == info["change"] < 1e-8 and {s[2] for s in seen} == {2}
