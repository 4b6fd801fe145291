"""How the network traffic of the Dask TPC-H plans (smartarrays.distributed.PLANS) grows with the
number of machines, computed from the plans and real TPC-H data (default scale factor 1), not
measured on a cluster (`make bench-distributed` runs this after the timings; docs/distributed.md
prints its table).

The plan: lineitem and orders partitioned by order key (each machine holds a range of orders and
their lines, so their join is local), the small tables a query reads broadcast, each machine
runs the query's partial form and sends its partial result to the driver; Q10 hash-shuffles its
partial groups by c_custkey to one merge task per machine first. For P machines:

- broadcast: (P - 1) x the bytes of each small table the query reads (the tables start on one
  machine), (P - 1) messages per table; and the same for only the columns the query reads of
  them (projected_broadcast_bytes: what the plan sends once projections go below the
  broadcast). Both in Arrow bytes (broadcast_bytes, projected_broadcast_bytes) and in packed
  bytes (broadcast_packed_bytes, projected_packed_bytes): tables travel packed
  (smartarrays.Table pickles as its packed words), so the packed figures are what is sent.
  partsupp, which only Q9 reads, is always sent as the three columns Q9 reads;
- partial results: the exact number of partial rows each machine produces, found by cutting the
  qualifying rows' order keys into P ranges and counting the distinct groups per range (capped
  at the query's LIMIT where the partial keeps it), times the mean Arrow bytes of a partial row;
  one message per machine;
- Q10's shuffle: of its partial groups a fraction (P - 1) / P crosses to another machine in
  P x (P - 1) messages, then each of P merges sends its top 20 to the driver;
- for comparison, the shuffle the co-partitioning avoids: orders and lineitem (the columns the
  query reads) repartitioned by order key, rows x row bytes x (P - 1) / P.

Usage: tpch_model.py [--sf 1] [--machines 2 16 64 256] [--queries 1 3 ...]
Lines: MODEL query=<n> machines=<P> broadcast_bytes=... projected_broadcast_bytes=...
       broadcast_packed_bytes=... projected_packed_bytes=...
       partial_rows=... partial_bytes=...
       shuffle_bytes=... messages=... avoided_shuffle_bytes=...
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyarrow as pa

import smartarrays as sa
import smartarrays.distributed as sd

#: For each query: (group key columns of the partial, None for a global aggregate; an order key
#: column of the qualifying rows; the partial's LIMIT or None), as SQL over the
#: same tables and predicates as the partial form. The grouping keys plus the order key give, for
#: every partition count, how many partial rows each machine produces.
KEYS: dict[int, tuple[str | None, str, int | None]] = {
    1: ("l_returnflag, l_linestatus", "l_orderkey", None),
    3: ("l_orderkey", "l_orderkey", 10),
    5: ("n_name", "l_orderkey", None),
    6: (None, "l_orderkey", None),
    9: ("n_name, extract(year from o_orderdate)", "l_orderkey", None),
    10: ("c_custkey", "l_orderkey", None),
    12: ("l_shipmode", "l_orderkey", None),
    14: (None, "l_orderkey", None),
    18: ("o_orderkey", "o_orderkey", 100),
    19: (None, "l_orderkey", None),
}

#: Columns of orders and lineitem each query reads (what a shuffle of them would carry).
READS = {
    1: ["l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_shipdate"],
    3: ["o_orderkey", "o_custkey", "o_orderdate", "o_shippriority", "l_orderkey", "l_extendedprice", "l_discount", "l_shipdate"],
    5: ["o_orderkey", "o_custkey", "o_orderdate", "l_orderkey", "l_suppkey", "l_extendedprice", "l_discount"],
    6: ["l_shipdate", "l_discount", "l_quantity", "l_extendedprice"],
    9: ["o_orderkey", "o_orderdate", "l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount"],
    10: ["o_orderkey", "o_custkey", "o_orderdate", "l_orderkey", "l_returnflag", "l_extendedprice", "l_discount"],
    12: ["o_orderkey", "o_orderpriority", "l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"],
    14: ["l_partkey", "l_shipdate", "l_extendedprice", "l_discount"],
    18: ["o_orderkey", "o_custkey", "o_orderdate", "o_totalprice", "l_orderkey", "l_quantity"],
    19: ["l_partkey", "l_quantity", "l_shipmode", "l_shipinstruct", "l_extendedprice", "l_discount"],
}


#: Columns of the broadcast tables each query reads: broadcasting only these (projection pushed
#: below the broadcast) is what the plan would send at scale.
BROADCAST_READS = {
    3: {"customer": ["c_custkey", "c_mktsegment"]},
    5: {
        "customer": ["c_custkey", "c_nationkey"],
        "supplier": ["s_suppkey", "s_nationkey"],
        "nation": ["n_nationkey", "n_name", "n_regionkey"],
        "region": ["r_regionkey", "r_name"],
    },
    9: {
        "part": ["p_partkey", "p_name"],
        "supplier": ["s_suppkey", "s_nationkey"],
        "partsupp": ["ps_partkey", "ps_suppkey", "ps_supplycost"],
        "nation": ["n_nationkey", "n_name"],
    },
    10: {
        "customer": ["c_custkey", "c_name", "c_acctbal", "c_phone", "c_address", "c_comment", "c_nationkey"],
        "nation": ["n_nationkey", "n_name"],
    },
    14: {"part": ["p_partkey", "p_type"]},
    18: {"customer": ["c_custkey", "c_name"]},
    19: {"part": ["p_partkey", "p_brand", "p_container", "p_size"]},
}


def _qualifying(number: int, tables: dict) -> tuple[np.ndarray, np.ndarray]:
    """(group id, order key) of every distinct (group, order) among the query's qualifying rows."""
    groups, order_key, _ = KEYS[number]
    partial = sd.PLANS[number].partial
    if number == 18:
        # The partial's groups are whole orders; the ones it keeps pass the IN subquery.
        sql = (
            "select o_orderkey as g, o_orderkey as k from orders where o_orderkey in "
            "(select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 300)"
        )
    else:
        body = partial[partial.index("\nfrom\n") :]
        if "\ngroup by" in body:
            body = body[: body.index("\ngroup by")]
        if groups is None:  # a global aggregate: one group
            sql = f"select {order_key} as k{body} group by {order_key}"
        else:
            sql = f"select {groups}, {order_key} as k{body} group by {groups}, {order_key}"
    result = sa.sql(sql, tables)
    keys = result.column(result.num_columns - 1).to_numpy()
    group_columns = [result.column(i).to_pylist() for i in range(result.num_columns - 1)]
    if not group_columns:
        return np.zeros(len(keys), dtype=np.int64), keys.astype(np.int64)
    ids: dict = {}
    group_ids = np.array([ids.setdefault(g, len(ids)) for g in zip(*group_columns)], dtype=np.int64)
    return group_ids, keys.astype(np.int64)


def _partial_rows(group_ids: np.ndarray, keys: np.ndarray, boundaries: np.ndarray, limit: int | None) -> list[int]:
    """Partial rows per machine: distinct groups among the qualifying rows of each key range."""
    which = np.searchsorted(boundaries[1:], keys, side="right")
    rows = []
    for machine in range(len(boundaries)):
        count = len(np.unique(group_ids[which == machine]))
        rows.append(min(count, limit) if limit is not None else count)
    return rows


def _arrow_bytes(table: sa.Table, columns: list[str] | None = None) -> int:
    """Arrow bytes of a table (or of some of its columns), read a batch at a time."""
    reader = pa.RecordBatchReader.from_stream(table)
    total = 0
    for batch in reader:
        if columns is not None:
            batch = batch.select([c for c in columns if c in batch.schema.names])
        total += batch.nbytes
    return total


def _packed_bytes(tables: dict, name: str, columns: list[str] | None = None) -> int:
    """Packed bytes of a table (or of some of its columns, compressed as a table of their own,
    as partition_tpch sends partsupp), what pickling sends (within a few header bytes)."""
    if columns is None and name not in sd._tpch.BROADCAST_COLUMNS:
        return int(tables[name].packed_bytes)
    chosen = columns if columns is not None else list(sd._tpch.BROADCAST_COLUMNS[name])
    projection = sa.sql(f"select {', '.join(chosen)} from {name}", {name: tables[name]})
    return int(sa.Table(projection, name=name).packed_bytes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--machines", type=int, nargs="+", default=[2, 16, 64, 256])
    parser.add_argument("--queries", type=int, nargs="+", default=sorted(sd.PLANS), help="the plans to model, in this order")
    args = parser.parse_args(argv)
    tables = dict(sa.tpch(args.sf))
    rows = {name: t.num_rows for name, t in tables.items()}
    small_bytes = {name: _arrow_bytes(tables[name]) for name in sd._tpch.BROADCAST}
    print(f"# sf={args.sf} rows={rows}", flush=True)
    small_packed = {name: _packed_bytes(tables, name) for name in sd._tpch.BROADCAST}
    print(f"# broadcast table Arrow bytes: {small_bytes}", flush=True)
    print(f"# broadcast table packed bytes (as sent; partsupp: its three Q9 columns): {small_packed}", flush=True)
    order_keys = np.sort(
        np.concatenate(
            [b.column("o_orderkey").to_numpy() for b in pa.RecordBatchReader.from_stream(tables["orders"])]
        )
    )
    if 9 in args.queries:
        q9_alternative(tables, args.machines)
    for number in args.queries:
        plan = sd.PLANS[number]
        reads = {name: _arrow_bytes(tables[name], READS[number]) for name in ("orders", "lineitem")}
        reads = {name: b for name, b in reads.items() if any(c.startswith(name[0] + "_") for c in READS[number])}
        whole = sa.sql(plan.partial, {t: tables[t] for t in plan.tables})
        row_bytes = whole.nbytes / max(1, whole.num_rows)
        group_ids, keys = _qualifying(number, tables)
        broadcast = [t for t in plan.tables if t in small_bytes]
        projected = sum(_arrow_bytes(tables[t], c) for t, c in BROADCAST_READS.get(number, {}).items())
        projected_packed = sum(_packed_bytes(tables, t, c) for t, c in BROADCAST_READS.get(number, {}).items())
        for machines in args.machines:
            boundaries = sd._tpch._boundaries(order_keys, machines)
            partial_rows = sum(_partial_rows(group_ids, keys, boundaries, KEYS[number][2]))
            broadcast_bytes = (machines - 1) * sum(small_bytes[t] for t in broadcast)
            projected_bytes = (machines - 1) * projected
            broadcast_packed = (machines - 1) * sum(small_packed[t] for t in broadcast)
            projected_packed_bytes = (machines - 1) * projected_packed
            # Broadcast messages, then one partial result per machine to the driver.
            messages = (machines - 1) * len(broadcast) + machines
            partial_bytes = partial_rows * row_bytes
            shuffle_bytes = 0.0
            if plan.shuffle is not None:
                # Partial groups to the merge machines, then each merge's top 20 to the driver.
                shuffle_bytes = partial_rows * row_bytes * (machines - 1) / machines
                messages += machines * (machines - 1)  # pieces to the other merges
                partial_bytes = machines * min(20, partial_rows) * row_bytes
            avoided = sum(reads.values()) * (machines - 1) / machines
            print(
                f"MODEL query={number} machines={machines} broadcast_bytes={broadcast_bytes} "
                f"projected_broadcast_bytes={projected_bytes} broadcast_packed_bytes={broadcast_packed} "
                f"projected_packed_bytes={projected_packed_bytes} "
                f"partial_rows={partial_rows} partial_bytes={partial_bytes:.0f} shuffle_bytes={shuffle_bytes:.0f} "
                f"messages={messages} total_bytes={broadcast_bytes + partial_bytes + shuffle_bytes:.0f} "
                f"avoided_shuffle_bytes={avoided:.0f}",
                flush=True,
            )
    return 0


def q9_alternative(tables: dict, machines: list[int]) -> None:
    """Q9's two layouts for partsupp: broadcast (what the plan does: its three columns to every
    machine) against a shuffle by (partkey, suppkey) of partsupp's rows of 'green' parts and of
    the lineitem rows of those parts (joined with their order's year first, where lineitem and
    orders are together), both packed. The shuffle moves (P - 1) / P of those bytes once, in
    2 x P x (P - 1) messages; the broadcast (P - 1) times the projection, in P - 1 messages."""
    green = "p_partkey = {key} and p_name like '%green%'"
    lines = sa.sql(
        "select l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount, o_orderdate "
        f"from part, lineitem, orders where {green.format(key='l_partkey')} and o_orderkey = l_orderkey",
        tables,
    )
    stock = sa.sql(
        f"select ps_partkey, ps_suppkey, ps_supplycost from part, partsupp where {green.format(key='ps_partkey')}",
        tables,
    )
    shuffled = sa.Table(lines, name="lines").packed_bytes + sa.Table(stock, name="stock").packed_bytes
    broadcast = _packed_bytes(tables, "partsupp")
    for p in machines:
        print(
            f"MODEL_Q9 machines={p} broadcast_partsupp_packed_bytes={(p - 1) * broadcast} broadcast_messages={p - 1} "
            f"shuffle_packed_bytes={shuffled * (p - 1) / p:.0f} shuffle_messages={2 * p * (p - 1)} "
            f"shuffled_rows={lines.num_rows + stock.num_rows}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
