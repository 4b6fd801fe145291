"""Partitioned PageRank on Ray actors (run by `make test-distributed-ray`, which installs Ray):
each actor keeps its CSR shard as smart arrays for the whole run; ranks equal Graph.pagerank
within 1e-9; an actor killed mid-run ends the run with a clear error, never partial ranks."""

from __future__ import annotations

import numpy as np
import pytest
import ray
import smartarrays.distributed as sd
import smartarrays.graph as sg


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 * 1024 * 1024, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("partitions", [1, 2, 3])
@pytest.mark.parametrize("directed", [True, False])
def test_ray_pagerank_equals_one_process(partitions: int, directed: bool) -> None:
    g = sg.kronecker(11, edge_factor=8, seed=5, directed=directed)
    info: dict = {}
    got = sd.pagerank(g, partitions=partitions, backend="ray", tolerance=1e-10, info=info)
    expected = g.pagerank(tolerance=1e-10)
    assert info["converged"] and np.abs(got - expected).max() < 1e-9


def test_ray_and_local_shards_agree_exactly_on_a_random_graph() -> None:
    rng = np.random.default_rng(9)
    g = sg.from_edges(rng.integers(0, 500, 4000), rng.integers(0, 500, 4000), num_vertices=501, directed=True)
    ray_ranks = sd.pagerank(g, partitions=3, backend="ray", tolerance=1e-11)
    local_ranks = sd.pagerank(g, partitions=3, backend="local", tolerance=1e-11)
    np.testing.assert_array_equal(ray_ranks, local_ranks)  # same shards, same arithmetic
    assert np.abs(ray_ranks - g.pagerank(tolerance=1e-11)).max() < 1e-9


def test_an_actor_killed_mid_run_is_a_clear_error() -> None:
    g = sg.kronecker(10, edge_factor=8, seed=2, directed=True)
    seen: list[int] = []

    def kill_the_first_actor(iteration: int, change: float, actors: list) -> None:
        seen.append(iteration)
        if iteration == 2:
            ray.kill(actors[0], no_restart=True)

    with pytest.raises(sd.DistributedError, match="actor died"):
        sd.pagerank(g, partitions=2, backend="ray", tolerance=1e-12, on_iteration=kill_the_first_actor)
    assert seen == [1, 2]
