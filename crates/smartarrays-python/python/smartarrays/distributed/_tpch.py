"""TPC-H queries over a Dask cluster: lineitem and orders partitioned by order key (row ranges of
orders and the lineitem rows of those orders, so every order and all its lines live in one
partition), the small tables broadcast to every worker, each worker running the query's partial
form over its partition with the single-process SQL engine (``smartarrays.sql``), and a global
merge of the partial results on the client: sums and counts added, min and max of min and max,
averages recombined from exact sums and counts, then ORDER BY and LIMIT. Q10's partial groups are
hash-shuffled by ``c_custkey`` to merge tasks on the workers before the client takes the top 20.
Partitions and broadcast tables travel packed: ``smartarrays.Table`` pickles as its encoded
columns' packed words (protocol 5, out of band), never decoded on the wire.
"""

from __future__ import annotations

import dataclasses
import decimal
import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import smartarrays as sa

from ._errors import gather

__all__ = ["PLANS", "QueryPlan", "TpchCluster", "partition_tpch", "tpch_query"]

#: The tables partitioned by order key, with their key column.
PARTITIONED = {"orders": "o_orderkey", "lineitem": "l_orderkey"}
#: The small tables the plans read, copied to every worker.
BROADCAST = ("nation", "region", "supplier", "customer", "part", "partsupp")
#: Broadcast tables sent as a projection: partsupp, the largest of them (its comments are most of
#: its bytes), is read only by Q9, which needs these three columns (1/6 of its packed bytes).
BROADCAST_COLUMNS = {"partsupp": ("ps_partkey", "ps_suppkey", "ps_supplycost")}
#: Name of the table of partial results a merge query reads.
PARTIALS = "partials"
#: Column a global (ungrouped) partial aggregate adds: its input rows, so an empty partition's
#: row of NULL sums can be dropped before the merge (tables hold no NULLs).
ROWS = "partial_rows"


def tpch_query(number: int) -> str:
    """The text of TPC-H query ``number`` as the single-process engine runs it."""
    return sa._native._tpch_query(number)


def _select(number: int, columns: str) -> str:
    """Query ``number`` with its top-level select list replaced by ``columns`` (the text up to the
    first ``from`` line is the select list in every query this module rewrites)."""
    text = tpch_query(number)
    at = text.index("\nfrom\n")
    return f"select\n    {columns}{text[at:]}"


def _unordered(text: str) -> str:
    """``text`` without its final ORDER BY (and LIMIT)."""
    return text[: text.rindex("\norder by")]


@dataclasses.dataclass(frozen=True)
class QueryPlan:
    """How one query runs partitioned by order key.

    ``partial`` runs on every worker over its partition of lineitem and orders and the broadcast
    tables. ``merge`` combines the union of the partial results (a table named ``partials``):
    SQL run by ``smartarrays.sql`` on the client, or a function of the ``pyarrow.Table``. With
    ``shuffle``, the partial groups are first hash-partitioned by that column into one piece per
    merge task; each merge task runs ``merge`` on a worker and the client runs ``final`` over
    their union. ``finish`` post-processes the merged ``pyarrow.Table`` (Q1's averages)."""

    number: int
    tables: tuple[str, ...]
    partial: str
    merge: str | Callable[[Any], Any]
    shuffle: str | None = None
    final: str | None = None
    finish: Callable[[Any], Any] | None = None


def _unscaled(value: decimal.Decimal | int, scale: int) -> int:
    """The exact integer ``value * 10**scale`` (no decimal context, so no rounding)."""
    if isinstance(value, int):
        return value * int(10**scale)
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int) and exponent + scale >= 0, value  # a sum keeps its scale
    magnitude = int("".join(map(str, digits)) or "0") * int(10 ** (exponent + scale))
    return -magnitude if sign else magnitude


def _average(total: Any, count: int, scale: int) -> float | None:
    """An average as the engine computes it: the exact unscaled sum over the count, divided by
    ten to the argument's scale, in float64."""
    if count == 0 or total is None:
        return None
    return float(_unscaled(total, scale)) / float(count) / float(10**scale)


def _q1_averages(merged: Any) -> Any:
    import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]

    counts = merged.column("count_order").to_pylist()

    def averages(column: str, scale: int) -> Any:
        totals = merged.column(column).to_pylist()
        return pa.array([_average(t, c, scale) for t, c in zip(totals, counts)], type=pa.float64())

    def scale_of(column: str) -> int:
        kind = merged.schema.field(column).type
        return int(getattr(kind, "scale", 0))

    table = pa.table(
        {
            "l_returnflag": merged.column("l_returnflag"),
            "l_linestatus": merged.column("l_linestatus"),
            "sum_qty": merged.column("sum_qty"),
            "sum_base_price": merged.column("sum_base_price"),
            "sum_disc_price": merged.column("sum_disc_price"),
            "sum_charge": merged.column("sum_charge"),
            "avg_qty": averages("sum_qty", scale_of("sum_qty")),
            "avg_price": averages("sum_base_price", scale_of("sum_base_price")),
            "avg_disc": averages("sum_disc", scale_of("sum_disc")),
            "count_order": merged.column("count_order"),
        }
    )
    # The engine marks a result column nullable only when it holds a NULL.
    fields = [f.with_nullable(table.column(f.name).null_count > 0) for f in table.schema]
    return table.cast(pa.schema(fields))


def _q18_top(partials: Any) -> Any:
    """Q18's global ORDER BY o_totalprice DESC, o_orderdate and LIMIT 100 over the partitions'
    own top 100s (each order, and so each group, lives in one partition)."""
    ordered = partials.sort_by([("o_totalprice", "descending"), ("o_orderdate", "ascending")])
    return ordered.slice(0, 100)


REVENUE = "sum(l_extendedprice * (1 - l_discount))"
Q10_GROUP = "c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment"

#: The plans of the queries that run on Dask, by number.
PLANS: dict[int, QueryPlan] = {
    1: QueryPlan(
        1,
        ("lineitem",),
        _unordered(
            _select(
                1,
                "l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, "
                "sum(l_extendedprice) as sum_base_price, "
                "sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, "
                "sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, "
                "sum(l_discount) as sum_disc, count(*) as count_order",
            )
        ),
        "select l_returnflag, l_linestatus, sum(sum_qty) as sum_qty, "
        "sum(sum_base_price) as sum_base_price, sum(sum_disc_price) as sum_disc_price, "
        "sum(sum_charge) as sum_charge, sum(sum_disc) as sum_disc, sum(count_order) as count_order "
        "from partials group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus",
        finish=_q1_averages,
    ),
    3: QueryPlan(
        3,
        ("customer", "orders", "lineitem"),
        tpch_query(3),  # groups by l_orderkey: every group is whole in one partition
        "select l_orderkey, revenue, o_orderdate, o_shippriority from partials "
        "order by revenue desc, o_orderdate, l_orderkey limit 10",
    ),
    5: QueryPlan(
        5,
        ("customer", "orders", "lineitem", "supplier", "nation", "region"),
        _unordered(tpch_query(5)),
        "select n_name, sum(revenue) as revenue from partials group by n_name order by revenue desc",
    ),
    6: QueryPlan(
        6,
        ("lineitem",),
        _select(6, f"sum(l_extendedprice * l_discount) as revenue, count(*) as {ROWS}"),
        "select sum(revenue) as revenue from partials",
    ),
    9: QueryPlan(
        9,
        ("part", "supplier", "lineitem", "partsupp", "orders", "nation"),
        _unordered(tpch_query(9)),  # profit per (nation, year): sums of partial sums
        "select nation, o_year, sum(sum_profit) as sum_profit from partials group by nation, o_year "
        "order by nation, o_year desc",
    ),
    10: QueryPlan(
        10,
        ("customer", "orders", "lineitem", "nation"),
        _unordered(tpch_query(10)),
        f"select c_custkey, c_name, sum(revenue) as revenue, c_acctbal, n_name, c_address, c_phone, "
        f"c_comment from partials group by {Q10_GROUP} order by revenue desc, c_custkey limit 20",
        shuffle="c_custkey",
        final="select c_custkey, c_name, revenue, c_acctbal, n_name, c_address, c_phone, c_comment "
        "from partials order by revenue desc, c_custkey limit 20",
    ),
    12: QueryPlan(
        12,
        ("orders", "lineitem"),
        _unordered(tpch_query(12)),
        "select l_shipmode, sum(high_line_count) as high_line_count, "
        "sum(low_line_count) as low_line_count from partials group by l_shipmode order by l_shipmode",
    ),
    14: QueryPlan(
        14,
        ("lineitem", "part"),
        _select(
            14,
            "sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end) "
            f"as promo, {REVENUE} as revenue, count(*) as {ROWS}",
        ),
        "select 100.00 * sum(promo) / sum(revenue) as promo_revenue from partials",
    ),
    18: QueryPlan(
        18,
        ("customer", "orders", "lineitem"),
        tpch_query(18),  # the IN subquery and the groups are per order: whole in one partition
        _q18_top,
    ),
    19: QueryPlan(
        19,
        ("lineitem", "part"),
        _select(19, f"{REVENUE} as revenue, count(*) as {ROWS}"),
        "select sum(revenue) as revenue from partials",
    ),
}


# ---------------------------------------------------------------- worker-side functions


def wire_bytes(obj: Any) -> int:
    """Bytes ``obj`` takes on the wire: its pickle (protocol 5, what Dask sends) in band plus
    the out-of-band buffers."""
    buffers: list[pickle.PickleBuffer] = []
    in_band = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return len(in_band) + sum(b.raw().nbytes for b in buffers)


def run_partial(sql: str, tables: Mapping[str, sa.Table]) -> Any:
    """A query's partial form over one partition and the broadcast tables (in a worker)."""
    return sa.sql(sql, dict(tables))


def _hash_pieces(table: Any, column: str, pieces: int) -> list[Any]:
    """``table`` split into ``pieces`` by a multiplicative hash of the integer ``column``."""
    keys = table.column(column).to_numpy().astype(np.uint64)
    target = ((keys * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)) % np.uint64(pieces)
    return [table.filter(target == np.uint64(p)) for p in range(pieces)]


def _piece(pieces: list[Any], index: int) -> Any:
    return pieces[index]


def _union(tables: Sequence[Any]) -> Any:
    """The partial results as one table, without the NULL rows of empty global aggregates."""
    import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import pyarrow.compute as pc  # type: ignore[import-untyped,import-not-found,unused-ignore]

    union = pa.concat_tables(list(tables), promote_options="default")  # nullability may differ
    if ROWS in union.column_names:
        union = union.filter(pc.greater(union.column(ROWS), 0)).drop_columns([ROWS])
    return union


def merge_partials(merge: str | Callable[[Any], Any], tables: Sequence[Any]) -> Any:
    """The global merge of partial results: ``merge`` (SQL over ``partials``, or a function)."""
    union = _union(tables)
    if callable(merge):
        return merge(union)
    return sa.sql(merge, {PARTIALS: sa.Table(union.combine_chunks(), name=PARTIALS)})


def _merge_task(merge: str, *tables: Any) -> Any:
    return merge_partials(merge, tables)


def _memory(table: sa.Table) -> int:
    return int(table.memory_bytes)


# ---------------------------------------------------------------- the partitioned catalog


class TpchCluster:
    """TPC-H tables spread over a Dask cluster by :func:`partition_tpch`: ``partitions[i]`` maps
    ``"lineitem"`` and ``"orders"`` to futures of partition ``i`` (``smartarrays.Table`` s in a
    worker's memory), ``broadcast`` maps each small table to a future held by every worker.
    ``shipped_bytes`` counts the bytes sent to build them (pickled packed tables: the in-band
    pickle and the out-of-band packed words, each broadcast table once per worker)."""

    def __init__(
        self,
        client: Any,
        partitions: list[dict[str, Any]],
        broadcast: dict[str, Any],
        rows: list[dict[str, int]],
        shipped_bytes: int,
    ) -> None:
        self.client = client
        self.partitions = partitions
        self.broadcast = broadcast
        self.rows = rows
        self.shipped_bytes = shipped_bytes

    def __repr__(self) -> str:
        return (
            f"TpchCluster({len(self.partitions)} partitions of {', '.join(PARTITIONED)} by order key; "
            f"broadcast: {', '.join(self.broadcast)})"
        )

    @property
    def npartitions(self) -> int:
        return len(self.partitions)

    def resident_bytes(self) -> dict[str, int]:
        """Bytes the compressed tables occupy in the workers: each partitioned table summed over
        its partitions, each broadcast table once (every worker holds a copy)."""
        out: dict[str, int] = {}
        for name in PARTITIONED:
            out[name] = sum(gather(self.client, [self.client.submit(_memory, p[name], pure=False) for p in self.partitions]))
        for name, future in self.broadcast.items():
            out[name] = gather(self.client, [self.client.submit(_memory, future, pure=False)])[0]
        return out

    def query(self, number: int, *, merges: int | None = None) -> Any:
        """TPC-H query ``number`` (one of :data:`PLANS`) on the cluster, as a ``pyarrow.Table``
        equal to ``smartarrays.sql`` of the same query over the whole tables."""
        if number not in PLANS:
            raise ValueError(f"TPC-H query {number} has no partitioned plan; the plans are {sorted(PLANS)}")
        return self.run(PLANS[number], merges=merges)

    def run(
        self,
        plan: QueryPlan,
        *,
        merges: int | None = None,
        partial: Callable[[str, Mapping[str, sa.Table]], Any] = run_partial,
    ) -> Any:
        """Runs ``plan``: ``partial(plan.partial, tables)`` on every partition where it lives
        (the default runs ``smartarrays.sql``; pass your own function to instrument it), the
        shuffle and merge tasks when the plan has a shuffle (``merges`` of them, default one per
        worker), then the merge on the client. Every partial result is gathered, or the call
        raises: a :class:`DistributedError` when data or tasks were lost with their workers."""
        client = self.client
        missing = [t for t in plan.tables if t not in PARTITIONED and t not in self.broadcast]
        if missing:
            raise ValueError(f"query {plan.number} reads {missing}, which were not partitioned or broadcast")
        partials = []
        for part in self.partitions:
            tables = {t: part[t] if t in PARTITIONED else self.broadcast[t] for t in plan.tables}
            partials.append(client.submit(partial, plan.partial, tables, pure=False))
        if plan.shuffle is None:
            merged = merge_partials(plan.merge, gather(client, partials))
        else:
            if merges is None:
                merges = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
            if merges < 1:
                raise ValueError(f"merges={merges}: give at least 1")
            assert isinstance(plan.merge, str) and plan.final is not None
            split = [client.submit(_hash_pieces, p, plan.shuffle, merges, pure=False) for p in partials]
            tasks = [
                client.submit(_merge_task, plan.merge, *[client.submit(_piece, s, m, pure=False) for s in split], pure=False)
                for m in range(merges)
            ]
            merged = merge_partials(plan.final, gather(client, tasks))
        return plan.finish(merged) if plan.finish is not None else merged


def _boundaries(orders_keys: np.ndarray, partitions: int) -> np.ndarray:
    """The first order key of each partition: orders split into ``partitions`` row ranges of
    (nearly) equal size, in key order."""
    keys = np.sort(orders_keys, kind="stable")
    starts = [len(piece) for piece in np.array_split(np.arange(len(keys)), partitions)]
    offsets = np.cumsum([0, *starts[:-1]])
    return np.array([keys[o] if o < len(keys) else np.iinfo(np.int64).max for o in offsets], dtype=np.int64)


def _split_by_key(table: Any, column: str, boundaries: np.ndarray) -> list[Any]:
    """Rows of ``table`` whose ``column`` falls in ``[boundaries[i], boundaries[i + 1])``:
    contiguous slices when the column is sorted (TPC-H's lineitem and orders are), a filter
    otherwise."""
    keys = table.column(column).to_numpy()
    cuts = [*boundaries[1:]]
    if len(keys) == 0 or bool(np.all(keys[1:] >= keys[:-1])):
        edges = [0, *np.searchsorted(keys, cuts, side="left").tolist(), len(keys)]
        return [table.slice(edges[i], edges[i + 1] - edges[i]) for i in range(len(boundaries))]
    which = np.searchsorted(np.asarray(cuts), keys, side="right")
    return [table.filter(which == i) for i in range(len(boundaries))]


def partition_tpch(
    tables: Mapping[str, Any],
    client: Any = None,
    *,
    partitions: int | None = None,
    replicas: int = 1,
) -> TpchCluster:
    """Spreads TPC-H tables (``smartarrays.tpch(sf)``, or any mapping of the table names to
    ``smartarrays.Table`` s or anything ``pyarrow.table`` takes) over the cluster of ``client``:
    orders cut into ``partitions`` row ranges of order keys (default one per worker) and the
    lineitem rows of those orders with them, each partition compressed here into
    ``smartarrays.Table`` s and sent packed to its worker (round robin); the small tables sent
    packed to every worker (partsupp only with the columns Q9 reads). ``replicas=2`` keeps a second
    copy of every partition on another worker, so a query survives losing one; this stops the
    cluster's active memory manager, which would drop the extra copies (and the broadcast ones)."""
    import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from ._dask import _client

    client = _client(client)
    for name in PARTITIONED:
        if name not in tables:
            raise ValueError(f"partition_tpch needs the {name} table; got {sorted(tables)}")
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if partitions is None:
        partitions = max(1, len(workers))
    if partitions < 1:
        raise ValueError(f"partitions={partitions}: give at least 1")
    if replicas < 1:
        raise ValueError(f"replicas={replicas}: give at least 1")
    if client.amm.running():
        client.amm.stop()  # it would drop the broadcast copies and the replicas
    arrow = {name: pa.table(tables[name]) for name in PARTITIONED}
    boundaries = _boundaries(arrow["orders"].column("o_orderkey").to_numpy(), partitions)
    pieces = {name: _split_by_key(arrow[name], column, boundaries) for name, column in PARTITIONED.items()}
    shipped = 0
    out: list[dict[str, Any]] = []
    rows: list[dict[str, int]] = []
    for i in range(partitions):
        home = [workers[i % len(workers)]] if workers else None
        part: dict[str, Any] = {}
        for name in PARTITIONED:
            table = sa.Table(pieces[name][i], name=name)  # compressed here, sent packed
            shipped += wire_bytes(table)
            [part[name]] = client.scatter([table], workers=home, hash=False)
        out.append(part)
        rows.append({name: pieces[name][i].num_rows for name in PARTITIONED})
    futures = [f for part in out for f in part.values()]
    broadcast: dict[str, Any] = {}
    for name in BROADCAST:
        if name in tables:
            table = tables[name] if isinstance(tables[name], sa.Table) else sa.Table(tables[name], name=name)
            if name in BROADCAST_COLUMNS:
                columns = ", ".join(BROADCAST_COLUMNS[name])
                table = sa.Table(sa.sql(f"select {columns} from {name}", {name: table}), name=name)
            broadcast[name] = client.scatter(table, broadcast=True, hash=False)
            shipped += wire_bytes(table) * max(1, len(workers))
    if replicas > 1:
        client.replicate(futures, n=replicas)
    return TpchCluster(client, out, broadcast, rows, shipped)
