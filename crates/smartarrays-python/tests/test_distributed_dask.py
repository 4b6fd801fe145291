"""smartarrays.distributed on a 2-worker Dask LocalCluster: partitioned arrays whose reductions
and group-bys equal the single-process results, NUMA pinning of the workers, and worker deaths
that end in a retried, correct answer or a clear error, never a partial one."""

from __future__ import annotations

import os
import signal
import threading
import time

import dask
import numpy as np
import pytest
import smartarrays as sa
import smartarrays.distributed as sd
from distributed import Client
from hypothesis import given, settings
from hypothesis import strategies as st

LENGTHS = [0, 1, 63, 64, 65, 1023, 1025]


@pytest.fixture(scope="module")
def client():
    cluster = sd.local_cluster(n_workers=2)
    with Client(cluster) as c:
        yield c
    cluster.close()


def _values(length: int, bits: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    top = (1 << bits) - 1
    values = rng.integers(0, top, size=length, dtype=np.uint64, endpoint=True)
    if length:
        values[length // 2] = np.uint64(top)
    return values


@settings(max_examples=12)
@given(st.sampled_from(LENGTHS), st.integers(1, 64), st.sampled_from([1, 2, 3]), st.integers(0, 2**32))
def test_reductions_equal_one_smart_array(client: Client, length: int, bits: int, partitions: int, seed: int) -> None:
    values = _values(length, bits, seed)
    d = sd.from_numpy(values, client, partitions=partitions)
    assert len(d) == length and d.npartitions == partitions
    assert d.bits == max(1, int(values.max()).bit_length() if length else 1)
    one = sa.array(values)
    exact = sum(int(v) for v in values)
    assert d.sum() == one.sum() == exact % 2**64  # modulo 2**64, as one SmartArray sums
    assert d.exact_sum() == exact
    if length == 0:
        with pytest.raises(ValueError, match="empty"):
            d.min()
        with pytest.raises(ValueError, match="empty"):
            d.mean()
    else:
        assert (d.min(), d.max()) == (one.min(), one.max()) == (int(values.min()), int(values.max()))
        assert d.mean() == one.mean()
    np.testing.assert_array_equal(d.to_numpy(), values)


def test_extreme_values_sum_exactly_beyond_64_bits(client: Client) -> None:
    values = np.full(1025, 2**64 - 1, dtype=np.uint64)
    d = sd.from_numpy(values, client, partitions=3)
    assert d.bits == 64 and d.exact_sum() == 1025 * (2**64 - 1) and d.minmax() == (2**64 - 1, 2**64 - 1)
    assert d.sum() == sa.array(values).sum() == (1025 * (2**64 - 1)) % 2**64
    assert d.mean() == sa.array(values).mean()


def test_partitions_live_on_both_workers_as_packed_smart_arrays(client: Client) -> None:
    d = sd.from_numpy(np.arange(100_000, dtype=np.uint64) % 1000, client, partitions=4, placement="os")
    where = client.who_has(d.partitions)
    assert len({w for holders in where.values() for w in holders}) == 2
    kinds = client.gather(d.map_partitions(lambda p: (type(p).__name__, p.bits, p.placement)))
    assert kinds == [("SmartArray", 10, "os")] * 4
    assert d.nbytes == 4 * ((25_000 * 10 + 63) // 64 * 8)


@settings(max_examples=10)
@given(
    st.sampled_from(LENGTHS),
    st.integers(1, 40),
    st.sampled_from(["sum", "count", "min", "max", "mean"]),
    st.sampled_from([1, 2, 3]),
    st.integers(0, 2**32),
)
def test_groupby_equals_numpy(client: Client, length: int, groups: int, how: str, merges: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, groups, size=length).astype(np.uint64) * np.uint64(1_000_003)
    values = _values(length, 40, seed)
    k = sd.from_numpy(keys, client, partitions=3)
    v = sd.from_numpy(values, client, partitions=3)
    got_keys, got = sd.groupby(k, v, how, merges=merges)
    expected_keys = np.unique(keys)
    np.testing.assert_array_equal(got_keys, expected_keys)
    for key, result in zip(expected_keys, got):
        members = values[keys == key]
        if how == "sum":
            assert int(result) == sum(int(x) for x in members)
        elif how == "count":
            assert int(result) == len(members)
        elif how == "min":
            assert int(result) == int(members.min())
        elif how == "max":
            assert int(result) == int(members.max())
        else:
            assert result == sa.array(members).mean()


def test_count_needs_no_values_and_a_sum_too_wide_is_an_overflow(client: Client) -> None:
    keys = np.array([5, 5, 7, 9, 9, 9], dtype=np.uint64)
    got_keys, counts = sd.groupby(sd.from_numpy(keys, client), how="count")
    assert got_keys.tolist() == [5, 7, 9] and counts.tolist() == [2, 1, 3]
    with pytest.raises(ValueError, match="needs values"):
        sd.groupby(sd.from_numpy(keys, client), how="sum")
    big = sd.from_numpy(np.full(6, 2**63, dtype=np.uint64), client)
    with pytest.raises(OverflowError):
        sd.groupby(sd.from_numpy(keys, client), big, "sum")
    with pytest.raises(ValueError, match="partitioned alike"):
        sd.groupby(sd.from_numpy(keys, client, partitions=2), sd.from_numpy(keys, client, partitions=3), "sum")
    with pytest.raises(ValueError, match="how='median'"):
        sd.groupby(sd.from_numpy(keys, client), how="median")


def test_a_table_keeps_its_partitions_together_and_groups_by_column(client: Client) -> None:
    rng = np.random.default_rng(4)
    rows = 1025
    orderkey = rng.integers(0, 50, size=rows).astype(np.uint64)
    quantity = rng.integers(1, 51, size=rows).astype(np.uint64)
    price = rng.integers(0, 2**40, size=rows).astype(np.uint64)
    t = sd.from_columns({"orderkey": orderkey, "quantity": quantity, "price": price}, client, partitions=3)
    assert t.columns == ["orderkey", "quantity", "price"] and len(t) == rows
    assert (t["quantity"].bits, t["orderkey"].bits) == (6, max(1, int(orderkey.max()).bit_length()))
    for i in range(3):  # partition i of every column on one worker
        holders = {tuple(client.who_has(t[c].partitions[i])[t[c].partitions[i].key]) for c in t.columns}
        assert len(holders) == 1
    keys, sums = t.groupby("orderkey", "price", "sum")
    assert keys.tolist() == np.unique(orderkey).tolist()
    assert sums.tolist() == [sum(int(p) for p in price[orderkey == k]) for k in keys]
    keys, counts = t.groupby("orderkey", how="count")
    assert counts.tolist() == [int((orderkey == k).sum()) for k in keys]
    assert t["quantity"].exact_sum() == int(quantity.sum())
    with pytest.raises(KeyError, match="no column 'tax'"):
        t["tax"]
    with pytest.raises(ValueError, match="differ in length"):
        sd.from_columns({"a": np.zeros(3, dtype=np.uint64), "b": np.zeros(4, dtype=np.uint64)}, client)


def _lost_in_translation(part: sa.SmartArray) -> int:
    raise ValueError("value lost in translation")


def test_errors_of_the_computation_pass_through_unchanged(client: Client) -> None:
    d = sd.from_numpy(np.arange(10, dtype=np.uint64), client)
    with pytest.raises(ValueError, match="lost in translation"):
        sd._errors.gather(client, d.map_partitions(_lost_in_translation))


def test_bad_input_is_refused(client: Client) -> None:
    with pytest.raises(ValueError, match="negative"):
        sd.from_numpy(np.array([1, -1]), client)
    with pytest.raises(TypeError, match="integers"):
        sd.from_numpy(np.array([1.5]), client)
    with pytest.raises(ValueError, match="one-dimensional"):
        sd.from_numpy(np.zeros((2, 2), dtype=np.uint64), client)
    with pytest.raises(ValueError, match="bits=65"):
        sd.from_numpy(np.array([1], dtype=np.uint64), client, bits=65)
    with pytest.raises(ValueError, match="fit"):
        sd.from_numpy(np.array([8], dtype=np.uint64), client, bits=3)


def test_each_worker_is_pinned_to_its_own_cpus(client: Client) -> None:
    pins = sd.pinning(client)
    assert len(pins) == 2
    nodes = [n for n in sa.topology()["nodes"] if n["cpus"]]
    cpus_here = sorted(c for n in nodes for c in n["cpus"])
    for pin in pins.values():
        assert pin["node"] in {n["id"] for n in nodes} and pin["threads"] == len(pin["cpus"]) >= 1
    if len(nodes) == 1 and len(cpus_here) >= 2:
        # One node (this machine): the two workers share it, each on its half of the CPUs.
        first, second = (set(p["cpus"]) for p in pins.values())
        assert not first & second and first | second <= set(cpus_here)


def test_node_assignment_deals_nodes_and_cpus() -> None:
    two_nodes = {"nodes": [{"id": 0, "cpus": [0, 1, 2, 3]}, {"id": 1, "cpus": [4, 5, 6, 7]}]}
    assert [sd.node_assignment(s, 2, two_nodes)["node"] for s in range(2)] == [0, 1]
    assert sd.node_assignment(1, 2, two_nodes)["cpus"] == [4, 5, 6, 7]
    four = [sd.node_assignment(s, 4, two_nodes) for s in range(4)]
    assert [a["node"] for a in four] == [0, 1, 0, 1]
    assert [a["cpus"] for a in four] == [[0, 2], [4, 6], [1, 3], [5, 7]]
    one_node = {"nodes": [{"id": 0, "cpus": [0, 1]}]}
    assert [sd.node_assignment(s, 3, one_node)["cpus"] for s in range(3)] == [[0], [1], [0]]


# ---- workers killed mid-job: a retried, correct answer or a clear error


def _slow_sum(part: sa.SmartArray, seconds: float) -> int:
    time.sleep(seconds)
    return part.sum()


def _die(seed: int) -> int:
    os._exit(1)


def _kill_soon(pids: list[int], delay: float) -> threading.Thread:
    def kill() -> None:
        time.sleep(delay)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


@pytest.fixture()
def fresh_client():
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = sd.local_cluster(n_workers=2)
        with Client(cluster) as c:
            yield c
        cluster.close()


def test_a_worker_killed_mid_job_is_retried_to_the_right_answer(fresh_client: Client) -> None:
    values = np.arange(200_000, dtype=np.uint64) % 977
    d = sd.from_numpy(values, fresh_client, partitions=2, replicas=2)  # each partition on both
    pids = fresh_client.run(os.getpid)
    futures = d.map_partitions(_slow_sum, 1.0)
    killer = _kill_soon([next(iter(pids.values()))], 0.4)  # while both tasks sleep
    results = sd._errors.gather(fresh_client, futures)
    killer.join()
    assert sum(results) == int(values.sum())
    assert d.sum() == int(values.sum())  # and the array still answers after the loss
    assert next(iter(pids.values())) not in fresh_client.run(os.getpid).values()  # it did die


def test_a_lost_partition_is_a_clear_error_not_a_partial_answer(fresh_client: Client) -> None:
    values = np.arange(10_000, dtype=np.uint64)
    d = sd.from_numpy(values, fresh_client, partitions=2)  # one copy of each partition
    holder = next(iter(fresh_client.who_has(d.partitions[0]).values()))[0]
    pid = fresh_client.run(os.getpid, workers=[holder])[holder]
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(sd.DistributedError, match="lost"):
        d.sum()


def test_a_task_whose_workers_keep_dying_fails_clearly(fresh_client: Client) -> None:
    # allowed-failures=1: the task runs twice, its worker dies both times.
    with pytest.raises(sd.DistributedError, match="died every time"):
        sd._errors.gather(fresh_client, [fresh_client.submit(_die, 1, pure=False)])


def test_the_package_docstring_runs_as_shown() -> None:
    import doctest

    test = doctest.DocTestParser().get_doctest(sd.__doc__ or "", {}, "smartarrays.distributed", None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---- TPC-H on Dask: lineitem and orders partitioned by order key, small tables broadcast

pa = pytest.importorskip("pyarrow")

TPCH_QUERIES = [1, 3, 5, 6, 9, 10, 12, 14, 18, 19]


@pytest.fixture(scope="module", params=[(0.01, 2), (0.05, 3)], ids=["sf0.01-2parts", "sf0.05-3parts"])
def tpch(request, client: Client):
    sf, partitions = request.param
    tables = sa.tpch(sf)
    return tables, sd.partition_tpch(tables, client, partitions=partitions)


@pytest.mark.parametrize("number", TPCH_QUERIES)
def test_tpch_queries_on_dask_equal_the_single_process_run(tpch, number: int) -> None:
    tables, cluster = tpch
    expected = sa.sql(sd.tpch_query(number), tables)
    got = cluster.query(number)
    assert got.num_rows == expected.num_rows
    # Exact: the same schema, the same decimals and integers, and (Q1's averages) the same
    # float64 bits, since they are recombined from exact sums and counts as the engine does.
    assert got.schema == expected.schema and got.equals(expected), (got.to_pylist(), expected.to_pylist())


def test_the_partitions_split_orders_and_their_lines_by_order_key(tpch) -> None:
    tables, cluster = tpch
    lineitem = pa.table(tables["lineitem"])
    keys = lineitem.column("l_orderkey").to_numpy()
    assert bool(np.all(keys[1:] >= keys[:-1]))  # tpchgen writes lineitem in order-key order
    assert sum(r["orders"] for r in cluster.rows) == tables["orders"].num_rows
    assert sum(r["lineitem"] for r in cluster.rows) == tables["lineitem"].num_rows
    ranges = cluster.client.gather(
        [cluster.client.submit(_key_range, p["orders"], p["lineitem"], pure=False) for p in cluster.partitions]
    )
    for (low, high, line_keys_inside), following in zip(ranges, ranges[1:]):
        assert line_keys_inside and high < following[0]  # disjoint, ascending ranges
    assert ranges[-1][2]
    held = cluster.client.who_has([f for part in cluster.partitions for f in part.values()])
    assert {w for holders in held.values() for w in holders} == set(cluster.client.scheduler_info()["workers"])
    resident = cluster.resident_bytes()
    assert set(resident) == {"orders", "lineitem", "nation", "region", "supplier", "customer", "part", "partsupp"}
    assert resident["lineitem"] < pa.table(tables["lineitem"]).nbytes  # compressed in the workers
    # The partitions travelled packed: what was shipped is within 5% of the packed tables sent
    # (the partitions once, each broadcast table once per worker; partsupp's three columns).
    workers = len(cluster.client.scheduler_info()["workers"])
    packed = sum(
        cluster.client.gather([cluster.client.submit(_packed, p[name], pure=False) for p in cluster.partitions for name in p])
    )
    packed += workers * sum(cluster.client.gather([cluster.client.submit(_packed, f, pure=False) for f in cluster.broadcast.values()]))
    assert 0.95 * packed <= cluster.shipped_bytes <= 1.05 * packed, (cluster.shipped_bytes, packed)
    assert cluster.client.gather(cluster.client.submit(lambda t: t.column_names, cluster.broadcast["partsupp"])) == [
        "ps_partkey",
        "ps_suppkey",
        "ps_supplycost",
    ]


def _packed(table: sa.Table) -> int:
    return int(table.packed_bytes)


def _key_range(orders: sa.Table, lineitem: sa.Table) -> tuple[int, int, bool]:
    okeys = pa.table(orders).column("o_orderkey").to_numpy()
    lkeys = pa.table(lineitem).column("l_orderkey").to_numpy()
    return int(okeys.min()), int(okeys.max()), bool(np.isin(lkeys, okeys).all())


@pytest.mark.parametrize("merges", [1, 3])
def test_q10_hash_shuffles_its_partial_groups_to_any_number_of_merges(tpch, merges: int) -> None:
    tables, cluster = tpch
    assert cluster.query(10, merges=merges).equals(sa.sql(sd.tpch_query(10), tables))


def test_unsorted_tables_partition_by_key_too(client: Client) -> None:
    tables = dict(sa.tpch(0.01))
    rng = np.random.default_rng(7)
    for name in ("orders", "lineitem"):
        arrow = pa.table(tables[name])
        tables[name] = arrow.take(pa.array(rng.permutation(arrow.num_rows)))
    cluster = sd.partition_tpch(tables, client, partitions=3)
    for number in (3, 9, 12, 18):
        assert cluster.query(number).equals(sa.sql(sd.tpch_query(number), tables))


def test_empty_partitions_merge_to_the_single_process_answer(client: Client) -> None:
    # More partitions than orders with lines shipping in Q6's window: some partials are NULL sums.
    tables = dict(sa.tpch(0.01))
    orders = pa.table(tables["orders"]).slice(0, 40)
    keys = orders.column("o_orderkey")
    lineitem = pa.table(tables["lineitem"])
    tables["orders"] = orders
    tables["lineitem"] = lineitem.filter(pa.compute.is_in(lineitem.column("l_orderkey"), value_set=keys))
    cluster = sd.partition_tpch(tables, client, partitions=7)
    for number in (6, 14, 19, 1):
        assert cluster.query(number).equals(sa.sql(sd.tpch_query(number), tables))


def test_tpch_bad_input_is_refused(client: Client) -> None:
    tables = sa.tpch(0.01)
    with pytest.raises(ValueError, match="needs the lineitem table"):
        sd.partition_tpch({"orders": tables["orders"]}, client)
    cluster = sd.partition_tpch({"orders": tables["orders"], "lineitem": tables["lineitem"]}, client)
    with pytest.raises(ValueError, match="query 13 has no partitioned plan"):
        cluster.query(13)
    with pytest.raises(ValueError, match=r"reads \['customer'\]"):
        cluster.query(3)
    with pytest.raises(ValueError, match="partitions=0"):
        sd.partition_tpch(tables, client, partitions=0)
    for number in (0, 23):
        with pytest.raises(ValueError, match=f"query {number} is not one this engine runs"):
            sd.tpch_query(number)
    assert "left outer join" in sd.tpch_query(13)  # the engine runs it; Dask has no plan for it yet


def _slow_partial(sql: str, tables) -> object:
    time.sleep(1.0)
    return sd._tpch.run_partial(sql, tables)


def test_a_worker_killed_mid_query_is_retried_to_the_right_answer(fresh_client: Client) -> None:
    tables = sa.tpch(0.01)
    cluster = sd.partition_tpch(tables, fresh_client, partitions=2, replicas=2)
    pid = next(iter(fresh_client.run(os.getpid).values()))
    killer = _kill_soon([pid], 0.4)  # while both partitions' partial queries sleep
    got = cluster.run(sd.PLANS[5], partial=_slow_partial)
    killer.join()
    assert got.equals(sa.sql(sd.tpch_query(5), tables))
    assert pid not in fresh_client.run(os.getpid).values()  # it did die
    assert cluster.query(1).equals(sa.sql(sd.tpch_query(1), tables))  # and the tables still answer


def test_a_query_whose_partition_was_lost_is_a_clear_error(fresh_client: Client) -> None:
    tables = sa.tpch(0.01)
    cluster = sd.partition_tpch(tables, fresh_client, partitions=2)  # one copy of each partition
    holder = next(iter(fresh_client.who_has(cluster.partitions[0]["lineitem"]).values()))[0]
    os.kill(fresh_client.run(os.getpid, workers=[holder])[holder], signal.SIGKILL)
    with pytest.raises(sd.DistributedError, match="lost"):
        cluster.query(6)
