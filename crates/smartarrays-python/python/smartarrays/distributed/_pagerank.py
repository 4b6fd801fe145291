"""Partitioned PageRank: the vertices split into contiguous ranges, one :class:`PageRankShard` per
range holding the in-edges of its vertices as compressed sparse rows in smart arrays for the
whole run. Each iteration every shard computes the contributions (rank / out-degree) of its own
vertices and sends each other shard exactly the ones it needs, as a dense float64 vector in an
order agreed once at set-up (no vertex ids on the wire); each shard then pulls its new ranks.
The formula and stopping rule are those of ``Graph.pagerank`` (Jacobi iteration, dangling rank
spread over all vertices, stop when the sum of absolute changes is below ``tolerance``).

Shards run as Ray actors (``backend="ray"``: each actor keeps its shard between iterations and
the contribution vectors pass actor to actor through Ray's object store) or in this process
(``backend="local"``, the same code without a cluster)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import smartarrays as sa

from ._errors import DistributedError

__all__ = ["PageRankShard", "pagerank", "partition_graph"]


class PageRankShard:
    """The vertices ``start..stop`` of a partitioned graph: their in-edges as CSR (``offsets``
    into ``sources``; each source is a position in the vector of contributions this shard
    receives, ordered by sending shard), their out-degrees, and for every other shard the
    vertices (relative to ``start``) whose contributions it needs. All are smart arrays, kept
    for the whole run; the ranks are float64."""

    def __init__(
        self,
        start: int,
        stop: int,
        num_vertices: int,
        offsets: sa.SmartArray,
        sources: sa.SmartArray,
        out_degrees: sa.SmartArray,
        send: list[sa.SmartArray],
    ) -> None:
        self.start, self.stop, self.num_vertices = start, stop, num_vertices
        self.offsets, self.sources, self.out_degrees, self.send = offsets, sources, out_degrees, send
        self.ranks = np.full(stop - start, 1.0 / num_vertices if num_vertices else 0.0)

    def spread(self) -> list[Any]:
        """This shard's dangling rank (of vertices without out-edges) followed by one
        contribution vector per shard (float64, in the agreed order)."""
        degrees = self.out_degrees.to_numpy()
        dangling = float(self.ranks[degrees == 0].sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            contributions = np.where(degrees == 0, 0.0, self.ranks / np.maximum(degrees, 1))
        return [dangling] + [contributions[wanted.to_numpy().astype(np.intp)] for wanted in self.send]

    def pull(self, base: float, damping: float, *received: np.ndarray) -> float:
        """New ranks from the contribution vectors of every shard (in shard order); returns the
        sum of absolute changes of this shard's ranks."""
        incoming = np.concatenate(received) if received else np.zeros(0)
        offsets = self.offsets.to_numpy().astype(np.intp)
        rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        gathered = incoming[self.sources.to_numpy().astype(np.intp)] if len(rows) else np.zeros(0)
        sums = np.bincount(rows, weights=gathered, minlength=len(offsets) - 1)
        new = base + damping * sums
        change = float(np.abs(new - self.ranks).sum())
        self.ranks = new
        return change

    def get_ranks(self) -> np.ndarray:
        """This shard's current ranks."""
        return self.ranks

    def nbytes(self) -> int:
        """Bytes of the shard's smart arrays (packed)."""
        return int(self.offsets.nbytes + self.sources.nbytes + self.out_degrees.nbytes + sum(s.nbytes for s in self.send))


def _edges(graph: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Directed edge arrays (an undirected edge both ways) and the vertex count of a Graph."""
    sources, targets = graph.edges()
    if not graph.directed:
        loops = sources == targets
        sources, targets = (
            np.concatenate([sources, targets[~loops]]),
            np.concatenate([targets, sources[~loops]]),
        )
    return sources.astype(np.int64), targets.astype(np.int64), int(graph.num_vertices)


def partition_graph(graph: Any, partitions: int) -> list[dict[str, Any]]:
    """The constructor arguments of the :class:`PageRankShard` s of ``graph`` split into
    ``partitions`` contiguous vertex ranges (built here, from the graph's edges)."""
    if partitions < 1:
        raise ValueError(f"partitions={partitions}: give at least 1")
    sources, targets, n = _edges(graph)
    bounds = np.linspace(0, n, partitions + 1).round().astype(np.int64)
    out_degrees = np.bincount(sources, minlength=n).astype(np.uint64)
    owner_of = np.searchsorted(bounds, np.arange(n), side="right") - 1 if n else np.zeros(0, np.int64)
    order = np.argsort(targets, kind="stable")
    sources, targets = sources[order], targets[order]
    # needed[p][q]: the sorted vertices of shard q whose contributions shard p pulls.
    needed: list[list[np.ndarray]] = []
    shards: list[dict[str, Any]] = []
    for p in range(partitions):
        lo, hi = int(bounds[p]), int(bounds[p + 1])
        first, last = np.searchsorted(targets, [lo, hi])
        srcs = sources[first:last]
        rows = targets[first:last] - lo
        owners = owner_of[srcs] if len(srcs) else np.zeros(0, np.int64)
        per_source = [np.unique(srcs[owners == q]) for q in range(partitions)]
        needed.append(per_source)
        base = np.cumsum([0] + [len(x) for x in per_source])
        positions = np.empty(len(srcs), dtype=np.uint64)
        for q in range(partitions):
            mask = owners == q
            positions[mask] = base[q] + np.searchsorted(per_source[q], srcs[mask])
        offsets = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=hi - lo))]).astype(np.uint64)
        shards.append(
            {
                "start": lo,
                "stop": hi,
                "num_vertices": n,
                "offsets": sa.array(offsets),
                "sources": sa.array(positions),
                "out_degrees": sa.array(out_degrees[lo:hi]),
            }
        )
    for q in range(partitions):
        lo = int(bounds[q])
        shards[q]["send"] = [sa.array((needed[p][q] - lo).astype(np.uint64)) for p in range(partitions)]
    return shards


def pagerank(
    graph: Any,
    partitions: int = 2,
    *,
    backend: str = "ray",
    damping: float = 0.85,
    tolerance: float = 1e-6,
    max_iterations: int = 1000,
    info: dict[str, Any] | None = None,
    on_iteration: Callable[[int, float, list[Any]], None] | None = None,
) -> np.ndarray:
    """PageRank of a ``smartarrays.Graph`` over ``partitions`` shards, as ``Graph.pagerank``
    computes it (same formula, dangling rank spread, stopping rule); float64 ranks summing to 1.

    ``backend="ray"`` runs one Ray actor per shard (``ray.init()`` first, or this starts a local
    Ray); ``"local"`` runs the shards in this process. ``info``, when given, receives the
    iteration count, the final change, and per iteration the number of contribution messages
    between different shards and their bytes. ``on_iteration(iteration, change, shards)``, when
    given, is called after every iteration with the shards (Ray actor handles, or the local
    :class:`PageRankShard` objects): for progress reports."""
    if not 0.0 <= damping <= 1.0:
        raise ValueError(f"damping={damping} is outside 0..1")
    if not tolerance > 0.0:
        raise ValueError(f"tolerance={tolerance}: give a positive number")
    n = int(graph.num_vertices)
    if n == 0:
        return np.zeros(0)
    specs = partition_graph(graph, partitions)
    if backend == "local":
        shards = [PageRankShard(**spec) for spec in specs]
        handles: list[Any] = shards

        def spread_all() -> list[list[Any]]:
            return [s.spread() for s in shards]

        def pull_all(base: float, outgoing: list[list[Any]]) -> list[float]:
            return [s.pull(base, damping, *[outgoing[p][1 + q] for p in range(partitions)]) for q, s in enumerate(shards)]

        def dangling_of(outgoing: list[list[Any]]) -> list[float]:
            return [float(o[0]) for o in outgoing]

        def ranks_all() -> list[np.ndarray]:
            return [s.get_ranks() for s in shards]

    elif backend == "ray":
        try:
            import ray  # type: ignore[import-untyped,import-not-found,unused-ignore]
        except ImportError as error:
            raise DistributedError(
                "backend='ray' needs Ray (pip install 'ray>=2.9', or make setup-python-ray)"
            ) from error
        if not ray.is_initialized():
            ray.init(include_dashboard=False)
        actor_class = ray.remote(num_cpus=0)(PageRankShard)
        actors: list[Any] = [actor_class.remote(**spec) for spec in specs]
        handles = actors

        def spread_all() -> list[list[Any]]:
            return [a.spread.options(num_returns=partitions + 1).remote() for a in actors]

        def pull_all(base: float, outgoing: list[list[Any]]) -> list[float]:
            futures = [
                a.pull.remote(base, damping, *[outgoing[p][1 + q] for p in range(partitions)])
                for q, a in enumerate(actors)
            ]
            return list(_ray_get(ray, futures))

        def dangling_of(outgoing: list[list[Any]]) -> list[float]:
            return [float(x) for x in _ray_get(ray, [o[0] for o in outgoing])]

        def ranks_all() -> list[np.ndarray]:
            return list(_ray_get(ray, [a.get_ranks.remote() for a in actors]))

    else:
        raise ValueError(f"backend={backend!r}: give 'ray' or 'local'")

    messages = sum(len(s) > 0 for q, spec in enumerate(specs) for p, s in enumerate(spec["send"]) if p != q)
    message_bytes = sum(8 * len(s) for q, spec in enumerate(specs) for p, s in enumerate(spec["send"]) if p != q)
    iterations, change = 0, float("inf")
    for iteration in range(1, max_iterations + 1):
        outgoing = spread_all()
        dangling = sum(dangling_of(outgoing))
        spread = damping * dangling / n
        change = sum(pull_all((1.0 - damping) / n + spread, outgoing))
        iterations = iteration
        if on_iteration is not None:
            on_iteration(iteration, change, handles)
        if change < tolerance:
            break
    if info is not None:
        info.update(
            iterations=iterations,
            change=change,
            converged=change < tolerance,
            messages_per_iteration=messages,
            bytes_per_iteration=message_bytes,
        )
    return np.concatenate(ranks_all())


def _ray_get(ray: Any, refs: list[Any]) -> list[Any]:
    """``ray.get``, with an actor that died turned into a DistributedError."""
    try:
        return list(ray.get(refs))
    except ray.exceptions.RayActorError as error:
        raise DistributedError(
            f"a PageRank shard's actor died ({error}); its shard is lost, so the run stops "
            "without ranks"
        ) from error
