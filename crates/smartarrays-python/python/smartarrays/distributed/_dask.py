"""Smart arrays partitioned over a Dask cluster: each partition is a ``SmartArray`` held in one
worker's memory (a Dask future), aggregations pre-aggregate inside each worker and merge the
small partial results, group-bys pre-aggregate per worker, hash-partition the partial groups and
merge each hash partition on a worker. Partitions and partial groups travel as packed words
(pickle protocol 5, out of band)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, cast

import numpy as np

import smartarrays as sa

from ._errors import DistributedError, gather

try:
    from distributed import WorkerPlugin as _WorkerPlugin
except ImportError:  # the PageRank shards and Ray need no Dask

    class _WorkerPlugin:  # type: ignore[no-redef]
        pass

__all__ = [
    "DistributedArray",
    "DistributedTable",
    "from_columns",
    "NumaPinning",
    "from_numpy",
    "from_arrays",
    "groupby",
    "local_cluster",
    "pin_workers",
    "pinning",
]

AGGREGATES = ("sum", "count", "min", "max", "mean")


def _client(client: Any) -> Any:
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError as error:
        raise DistributedError(
            "no Dask client: pass client=..., or create one first (distributed.Client(address) "
            "or smartarrays.distributed.local_cluster())"
        ) from error


# ---------------------------------------------------------------- NUMA pinning of workers


def _slot(name: Any) -> int:
    """A worker's slot on its host: its name when that is an integer (LocalCluster names workers
    0, 1, ...; ``dask worker --name 3`` too), else a stable number from the name."""
    if isinstance(name, int):
        return name
    text = str(name)
    if text.isdigit():
        return int(text)
    return sum(text.encode()) % 1_000_003


def node_assignment(slot: int, workers_per_host: int, topology: Mapping[str, Any]) -> dict[str, Any]:
    """Where worker ``slot`` (of ``workers_per_host`` on one host) runs: the NUMA node
    ``slot mod nodes`` and its share of that node's CPUs (the node's CPUs dealt out among the
    workers on it; one CPU each, round robin, when there are more workers than CPUs), with one
    smartarrays runtime thread per CPU of the share."""
    nodes = [n for n in topology["nodes"] if n["cpus"]]
    if not nodes:
        raise DistributedError("this machine's topology lists no node with CPUs")
    node = nodes[slot % len(nodes)]
    on_node = max(1, math.ceil(workers_per_host / len(nodes)))
    index = (slot // len(nodes)) % on_node
    all_cpus = sorted(node["cpus"])
    # More workers than CPUs on the node: one CPU each, dealt round robin.
    cpus = all_cpus[index::on_node] if on_node <= len(all_cpus) else [all_cpus[index % len(all_cpus)]]
    return {"node": node["id"], "cpus": cpus, "threads": len(cpus)}


class NumaPinning(_WorkerPlugin):
    """A Dask ``WorkerPlugin`` that pins each worker process to one NUMA node: worker ``slot`` of
    ``workers_per_host`` on a host gets node ``slot mod nodes`` and its share of that node's CPUs
    (``os.sched_setaffinity``), and the smartarrays runtime in it one thread per CPU of the share
    (``smartarrays.set_threads``), so the project's runtime parallelises inside the worker and two
    schedulers never fight over a core. Memory the worker allocates with placement ``os`` then
    lands on its node by first touch. A worker restarted by its nanny runs the plugin again."""

    name = "smartarrays-numa-pinning"

    def __init__(self, workers_per_host: int) -> None:
        if workers_per_host < 1:
            raise ValueError(f"workers_per_host={workers_per_host}: give at least 1")
        self.workers_per_host = workers_per_host

    def setup(self, worker: Any) -> None:
        assignment = node_assignment(_slot(worker.name), self.workers_per_host, sa.topology())
        allowed = set(os.sched_getaffinity(0))
        cpus = [c for c in assignment["cpus"] if c in allowed] or sorted(allowed)
        os.sched_setaffinity(0, cpus)
        sa.set_threads(len(cpus))
        worker.smartarrays_pinning = {**assignment, "cpus": cpus, "threads": len(cpus)}


def pin_workers(client: Any = None, workers_per_host: int | None = None) -> dict[str, dict[str, Any]]:
    """Pins every worker of ``client``'s cluster (and any that joins or restarts later) to one
    NUMA node with :class:`NumaPinning`; returns :func:`pinning`. ``workers_per_host`` defaults
    to the most workers any one host has now."""
    client = _client(client)
    if workers_per_host is None:
        hosts: dict[str, int] = {}
        for address in client.scheduler_info(n_workers=-1)["workers"]:
            host = address.rsplit(":", 1)[0]
            hosts[host] = hosts.get(host, 0) + 1
        workers_per_host = max(hosts.values(), default=1)
    client.register_plugin(NumaPinning(workers_per_host), name=NumaPinning.name)
    return pinning(client)


def _worker_pinning(dask_worker: Any) -> dict[str, Any]:
    found = getattr(dask_worker, "smartarrays_pinning", None)
    return dict(found) if found else {"node": None, "cpus": sorted(os.sched_getaffinity(0)), "threads": sa.get_threads()}


def pinning(client: Any = None) -> dict[str, dict[str, Any]]:
    """Each worker's NUMA node, CPUs and smartarrays runtime threads (``node`` None: not pinned)."""
    return dict(_client(client).run(_worker_pinning))


def local_cluster(n_workers: int | None = None, *, pin: bool = True, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` shaped for smart arrays: one worker process per NUMA node
    (``n_workers`` overrides), one Dask thread each (the smartarrays runtime parallelises inside
    the worker), its HTTP server on a free port; with ``pin=True`` each worker is pinned to its node and its share
    of the node's CPUs (:class:`NumaPinning`). Other keyword arguments go to ``LocalCluster``."""
    from distributed import LocalCluster

    nodes = [n for n in sa.topology()["nodes"] if n["cpus"]]
    count = n_workers if n_workers is not None else max(1, len(nodes))
    options: dict[str, Any] = {
        "n_workers": count,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": ":0",  # any free port: clusters side by side never clash
    }
    options.update(kwargs)
    cluster = LocalCluster(**options)
    if pin:
        from distributed import Client

        with Client(cluster, set_as_default=False) as client:
            client.register_plugin(NumaPinning(count), name=NumaPinning.name)
    return cluster


# ---------------------------------------------------------------- partitioned arrays


def _stats(part: sa.SmartArray) -> tuple[int, int, int | None, int | None]:
    """Local pre-aggregation of one partition, in its worker: (count, exact sum, min, max)."""
    return sa._native._partial_stats(part)


def _merge_stats(parts: Sequence[tuple[int, int, int | None, int | None]]) -> tuple[int, int, int | None, int | None]:
    count = sum(p[0] for p in parts)
    total = sum(p[1] for p in parts)
    lows = [p[2] for p in parts if p[2] is not None]
    highs = [p[3] for p in parts if p[3] is not None]
    return (count, total, min(lows) if lows else None, max(highs) if highs else None)


def _length(part: sa.SmartArray) -> int:
    return len(part)


def _to_numpy(part: sa.SmartArray) -> np.ndarray:
    return part.to_numpy()


def _place(part: sa.SmartArray, placement: str) -> sa.SmartArray:
    """The partition placed by this worker (unpickling already placed it on this machine)."""
    if part.placement == placement or len(part) == 0:
        return part
    return sa.array(part, placement=placement, bits=part.bits)


class DistributedArray:
    """A smart array partitioned over the workers of a Dask cluster: ``partitions`` are Dask
    futures of ``SmartArray`` s held in the workers' memory, all at one bit width.

    Reductions (``sum``, ``min``, ``max``, ``minmax``, ``mean``) pre-aggregate each partition
    inside its worker with the project's parallel runtime and merge the partial results, so only
    a few numbers per partition cross the network; the answers equal those of one
    ``SmartArray`` holding all values. A partition lost with its worker, or a task whose workers
    keep dying, is a :class:`DistributedError`, never a partial answer.
    """

    def __init__(self, client: Any, partitions: list[Any], lengths: list[int], bits: int, placement: str) -> None:
        self.client = client
        self.partitions = partitions
        self.lengths = lengths
        self.bits = bits
        self.placement = placement

    def __len__(self) -> int:
        return sum(self.lengths)

    def __repr__(self) -> str:
        return (
            f"DistributedArray({len(self)} values, {self.bits} bits, "
            f"{len(self.partitions)} partitions, placement={self.placement!r})"
        )

    @property
    def npartitions(self) -> int:
        return len(self.partitions)

    @property
    def nbytes(self) -> int:
        """Packed bytes of all values (what moving every partition puts on the wire)."""
        return sum(math.ceil(n * self.bits / 64) * 8 for n in self.lengths)

    def map_partitions(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Any]:
        """Futures of ``function(partition, *args, **kwargs)``, one per partition, each run on a
        worker holding the partition."""
        return [self.client.submit(function, part, *args, pure=False, **kwargs) for part in self.partitions]

    def _stats(self) -> tuple[int, int, int | None, int | None]:
        return _merge_stats(gather(self.client, self.map_partitions(_stats)))

    def sum(self) -> int:
        """Sum of all values modulo 2**64, as ``SmartArray.sum`` (and numpy's uint64 sum)
        computes it; :meth:`exact_sum` does not wrap."""
        return self._stats()[1] % (1 << 64)

    def exact_sum(self) -> int:
        """Exact sum of all values (a Python int, however far it leaves uint64)."""
        return self._stats()[1]

    def min(self) -> int:
        """Smallest value; ValueError when there are none."""
        return self.minmax()[0]

    def max(self) -> int:
        """Largest value; ValueError when there are none."""
        return self.minmax()[1]

    def minmax(self) -> tuple[int, int]:
        """``(min, max)`` in one pass; ValueError when there are no values."""
        count, _, low, high = self._stats()
        if count == 0 or low is None or high is None:
            raise ValueError("min/max of an empty distributed array")
        return (low, high)

    def mean(self) -> float:
        """Arithmetic mean from the exact sum, as ``SmartArray.mean`` computes it."""
        count, total, _, _ = self._stats()
        if count == 0:
            raise ValueError("mean() of an empty distributed array")
        return float(total) / float(count)

    def to_numpy(self) -> np.ndarray:
        """All values decoded into one numpy uint64 array (decoded in the workers, so this moves
        8 bytes per value: for small results and tests)."""
        parts = gather(self.client, self.map_partitions(_to_numpy))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)

    def persist_replicas(self, n: int) -> None:
        """Keeps ``n`` copies of every partition on different workers, so losing ``n - 1``
        workers loses no partition (Dask's ``replicate``). For ``n > 1`` this stops the
        cluster's active memory manager (``client.amm.stop()``), whose default policy would
        otherwise drop the extra copies within seconds."""
        if n < 1:
            raise ValueError(f"replicas={n}: give at least 1")
        if n > 1:
            if self.client.amm.running():
                self.client.amm.stop()
            self.client.replicate(self.partitions, n=n)


def _bits_of(values: np.ndarray, bits: int | str) -> int:
    if bits == "minimal":
        return max(1, int(values.max()).bit_length()) if len(values) else 1
    if isinstance(bits, int) and 1 <= bits <= 64:
        return bits
    raise ValueError(f"bits={bits!r}: give 'minimal' or an integer 1..64")


def _unsigned(values: Any) -> np.ndarray:
    """``values`` as a one-dimensional uint64 array, or the error saying why it cannot be."""
    array = np.ascontiguousarray(values)
    if array.ndim != 1:
        raise ValueError(f"values must be one-dimensional, not {array.ndim}-dimensional")
    if array.dtype.kind == "i":
        if len(array) and int(array.min()) < 0:
            raise ValueError("smart arrays hold unsigned integers: values has negative entries")
    elif array.dtype.kind != "u":
        raise TypeError(f"values must be integers, not {array.dtype}")
    return array.astype(np.uint64, copy=False)


def from_arrays(arrays: Sequence[sa.SmartArray], client: Any = None, *, replicas: int = 1) -> DistributedArray:
    """A distributed array of the given smart arrays as its partitions (scattered to the workers,
    round robin, as packed words). They must share one bit width and placement."""
    client = _client(client)
    widths = {a.bits for a in arrays}
    placements = {a.placement for a in arrays}
    if len(widths) > 1 or len(placements) > 1:
        raise ValueError(
            f"partitions must share one bit width and placement, not widths {sorted(widths)} "
            f"and placements {sorted(placements)}"
        )
    futures = client.scatter(list(arrays), hash=False) if arrays else []
    result = DistributedArray(
        client,
        futures,
        [len(a) for a in arrays],
        widths.pop() if widths else 1,
        placements.pop() if placements else "interleaved",
    )
    result.persist_replicas(replicas)
    return result


def from_numpy(
    values: Any,
    client: Any = None,
    *,
    partitions: int | None = None,
    bits: int | str = "minimal",
    placement: str = "interleaved",
    replicas: int = 1,
) -> DistributedArray:
    """Partitions ``values`` (any one-dimensional array of non-negative integers) into
    ``partitions`` contiguous pieces (default: one per worker), packs each at one common width
    here (``bits``: ``"minimal"`` for the fewest bits the largest value needs, or 1..64) and
    sends the packed words to the workers, which place them by ``placement`` on their own nodes.
    ``replicas=2`` keeps a second copy of each partition on another worker."""
    client = _client(client)
    array = _unsigned(values)
    if partitions is None:
        partitions = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
    if partitions < 1:
        raise ValueError(f"partitions={partitions}: give at least 1")
    width = _bits_of(array, bits)
    pieces = np.array_split(array, partitions)
    arrays = [sa.array(piece, bits=width, placement=placement) for piece in pieces]
    return from_arrays(arrays, client, replicas=replicas)


# ---------------------------------------------------------------- group-by


def _hash_partition(keys: np.ndarray, count: int) -> np.ndarray:
    """Which of ``count`` merge partitions each key goes to (a multiplicative hash, so runs of
    consecutive keys spread evenly)."""
    if count == 1:
        return np.zeros(len(keys), dtype=np.int64)
    mixed = keys * np.uint64(0x9E3779B97F4A7C15)
    return ((mixed >> np.uint64(32)) % np.uint64(count)).astype(np.int64)


def _partial_groups(keys: np.ndarray, values: np.ndarray, how: str) -> dict[str, np.ndarray]:
    """Local pre-aggregation with a parallel smart-collections group-by: the groups' keys and
    their partial aggregate (``mean`` keeps a sum and a count)."""
    out: dict[str, np.ndarray] = {}
    if how in ("sum", "mean"):
        group_keys, sums = sa.Map.aggregate(keys, values, "sum", key_dtype=np.uint64, value_dtype=np.uint64).items()
        out["keys"], out["sum"] = group_keys, sums
    if how in ("count", "mean"):
        group_keys, counts = sa.Bag.count(keys, dtype=np.uint64).items()
        out["keys"], out["count"] = group_keys, counts
    if how in ("min", "max"):
        combine = cast(Literal["min", "max"], how)
        group_keys, extremes = sa.Map.aggregate(keys, values, combine, key_dtype=np.uint64, value_dtype=np.uint64).items()
        out["keys"], out[how] = group_keys, extremes
    return out


def _pack(columns: dict[str, np.ndarray]) -> dict[str, sa.SmartArray]:
    """Columns as smart arrays at their minimal widths: what crosses the network."""
    return {name: sa.array(np.asarray(column, dtype=np.uint64), placement="os") for name, column in columns.items()}


def _local_groupby(keys: sa.SmartArray, values: sa.SmartArray | None, how: str, merges: int) -> list[dict[str, sa.SmartArray]]:
    """One partition's partial groups, split into ``merges`` hash partitions of packed columns."""
    if values is not None and len(keys) != len(values):
        raise ValueError(f"keys and values partitions differ in length: {len(keys)} and {len(values)}")
    key_values = keys.to_numpy()
    value_values = values.to_numpy() if values is not None else np.zeros(len(key_values), dtype=np.uint64)
    partial = _partial_groups(key_values, value_values, how)
    target = _hash_partition(partial["keys"], merges)
    return [_pack({name: column[target == m] for name, column in partial.items()}) for m in range(merges)]


def _piece(pieces: list[dict[str, sa.SmartArray]], index: int) -> dict[str, sa.SmartArray]:
    return pieces[index]


def _merge_groups(how: str, *pieces: dict[str, sa.SmartArray]) -> dict[str, sa.SmartArray]:
    """Global merge of one hash partition: the partial aggregates of every worker combined."""
    columns = {name: np.concatenate([p[name].to_numpy() for p in pieces]) for name in pieces[0]}
    keys = columns["keys"]
    merged: dict[str, np.ndarray] = {}
    for name in ("sum", "count", "min", "max"):
        if name in columns:
            combine = cast(Literal["sum", "min", "max"], "sum" if name in ("sum", "count") else name)
            group_keys, result = sa.Map.aggregate(
                keys, columns[name], combine, key_dtype=np.uint64, value_dtype=np.uint64
            ).items()
            merged["keys"], merged[name] = group_keys, result
    if not merged:
        merged["keys"] = np.zeros(0, dtype=np.uint64)
    return _pack(merged)


def groupby(
    keys: DistributedArray,
    values: DistributedArray | None = None,
    how: str = "sum",
    *,
    merges: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Group-by aggregation of ``values`` by ``keys`` (two distributed arrays partitioned alike;
    ``values`` may be None for ``how="count"``): ``(group keys, aggregates)`` sorted by key, as
    numpy arrays (uint64 aggregates; float64 for ``"mean"``).

    Each worker pre-aggregates its partition with a parallel smart-collections group-by, splits
    its partial groups by a hash of the key into ``merges`` pieces (default: one per worker) and
    each piece travels, packed, to the worker merging that hash partition: at most one message
    per (partition, merge) pair, carrying each local group once. A sum that leaves uint64 is an
    OverflowError, as in one process."""
    if how not in AGGREGATES:
        raise ValueError(f"how={how!r}: give one of {', '.join(AGGREGATES)}")
    if values is None and how != "count":
        raise ValueError(f"how={how!r} needs values (only 'count' works on keys alone)")
    if values is not None and keys.lengths != values.lengths:
        raise ValueError(
            f"keys and values must be partitioned alike: partition lengths {keys.lengths} and {values.lengths}"
        )
    client = keys.client
    if merges is None:
        merges = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
    if merges < 1:
        raise ValueError(f"merges={merges}: give at least 1")
    locals_ = [
        client.submit(_local_groupby, k, v, how, merges, pure=False)
        for k, v in zip(keys.partitions, values.partitions if values is not None else [None] * keys.npartitions)
    ]
    pieces = [[client.submit(_piece, local, m, pure=False) for local in locals_] for m in range(merges)]
    merged = [client.submit(_merge_groups, how, *column, pure=False) for column in pieces if column]
    results = gather(client, merged)
    if not results:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float64 if how == "mean" else np.uint64)
    group_keys = np.concatenate([r["keys"].to_numpy() for r in results])
    order = np.argsort(group_keys, kind="stable")
    if how == "mean":
        sums = np.concatenate([r["sum"].to_numpy() for r in results])[order]
        counts = np.concatenate([r["count"].to_numpy() for r in results])[order]
        means = np.array([float(int(s)) / float(int(c)) for s, c in zip(sums, counts)], dtype=np.float64)
        return group_keys[order], means
    aggregates = np.concatenate([r[how].to_numpy() for r in results])
    return group_keys[order], aggregates[order]


# ---------------------------------------------------------------- partitioned tables


class DistributedTable:
    """Named columns of unsigned integers, partitioned alike over a Dask cluster: partition ``i``
    of every column is a ``SmartArray`` on the same worker, so a group-by of one column by
    another reads both where they live and moves only partial groups."""

    def __init__(self, columns: dict[str, DistributedArray]) -> None:
        lengths = {tuple(c.lengths) for c in columns.values()}
        if len(lengths) > 1:
            raise ValueError("the columns of a table must be partitioned alike")
        self._columns = dict(columns)

    @property
    def columns(self) -> list[str]:
        return list(self._columns)

    def __getitem__(self, name: str) -> DistributedArray:
        try:
            return self._columns[name]
        except KeyError:
            raise KeyError(f"no column {name!r}; the table has {self.columns}") from None

    def __len__(self) -> int:
        return len(next(iter(self._columns.values()))) if self._columns else 0

    def __repr__(self) -> str:
        widths = ", ".join(f"{name}: {c.bits} bits" for name, c in self._columns.items())
        parts = next(iter(self._columns.values())).npartitions if self._columns else 0
        return f"DistributedTable({len(self)} rows, {parts} partitions; {widths})"

    def groupby(self, by: str, column: str | None = None, how: str = "sum", *, merges: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``groupby(self[by], self[column], how)``: see :func:`groupby`."""
        return groupby(self[by], self[column] if column is not None else None, how, merges=merges)


def from_columns(
    columns: Mapping[str, Any],
    client: Any = None,
    *,
    partitions: int | None = None,
    placement: str = "interleaved",
) -> DistributedTable:
    """A :class:`DistributedTable` of equally long one-dimensional integer arrays, each column
    packed at its own minimal width, partition ``i`` of every column sent to the same worker."""
    client = _client(client)
    if not columns:
        raise ValueError("a table needs at least one column")
    arrays = {name: _unsigned(values) for name, values in columns.items()}
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns differ in length: {lengths}")
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if partitions is None:
        partitions = max(1, len(workers))
    if partitions < 1:
        raise ValueError(f"partitions={partitions}: give at least 1")
    out: dict[str, DistributedArray] = {}
    for name, array in arrays.items():
        width = _bits_of(array, "minimal")
        pieces = [sa.array(piece, bits=width, placement=placement) for piece in np.array_split(array, partitions)]
        futures = [
            client.scatter(piece, workers=[workers[i % len(workers)]] if workers else None, hash=False)
            for i, piece in enumerate(pieces)
        ]
        out[name] = DistributedArray(client, futures, [len(p) for p in pieces], width, placement)
    return DistributedTable(out)
