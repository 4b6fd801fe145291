"""Scale-out measurements of smartarrays.distributed on one machine (`make bench-distributed`).

1. Bytes on the wire against the packed size, for several widths: the pickle-5 frames
   (in band + out of band), Dask's own serialisation (`distributed.protocol.serialize`) and a
   real worker-to-worker transfer on a 2-worker LocalCluster, counted on the loopback interface
   (/sys/class/net/lo/statistics/tx_bytes, TCP/IP headers included; the least of 3 tries).
   Goal: at most 1.05x.
2. The same jobs (a sum with min/max, a group-by sum over 1000 keys; N values in 2 partitions)
   on 1 worker pinned to 1 CPU, 2 workers pinned to 1 CPU each, and 1 worker on both CPUs, with a
   parallel-efficiency probe from the same run (a CPU-bound loop in 1 process, then in 2
   processes at once; 1.0 means the second core was free).

Machine-readable lines:
  WIRE bits=<b> values=<N> packed=<bytes> pickle=<bytes> dask_frames=<bytes> transfer=<bytes> ratio=<x>
  RESULT job=<name> layout=<l> seconds_median=<s> seconds_best=<s>
  RATIO name=<name> value=<x> goal=<text>
  MODEL graph=<g> machines=<P> messages_per_iteration=<m> bytes_per_iteration=<b> ...

3. The TPC-H queries of smartarrays.distributed.PLANS at --tpch-sf (default 0.1): the
   single-process engine (smartarrays.sql, its runtime on both CPUs) against Dask with 1 worker
   (pinned to both CPUs, a 2-thread runtime, one partition) and 2 workers (one CPU each, two
   partitions by order key), every Dask result checked equal to the single-process one first;
   plus the bytes shipped to build the partitions (packed tables), the bytes the workers hold,
   and each TPC-H table's bytes on the wire against its packed size (pickle protocol 5: the
   in-band pickle plus the out-of-band buffers, over `Table.packed_bytes`; goal <= 1.05).
4. (--model-only) PageRank's exchange per iteration on a Kronecker graph split over 2, 16, 64
   and 256 machines, read off the shards' send lists. (The TPC-H traffic model is
   bench/tpch_model.py.)

Machine-readable lines of the TPC-H part:
  TPCH query=<n> layout=<l> sf=<sf> seconds_median=<s> seconds_best=<s>
  TPCH_DATA layout=<l> sf=<sf> shipped_bytes=<b> resident_bytes=<b> setup_seconds=<s>
  TABLE_WIRE table=<t> sf=<sf> packed=<b> wire=<b> in_band=<b> arrow=<b> ratio=<wire/packed>

Usage: distributed_bench.py [--elements N] [--repetitions R] [--tpch-sf SF] [--wire-only |
                             --scaling-only | --tpch-only | --model-only [--model-scale S]]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pickle
import statistics
import sys
import time

import numpy as np

import smartarrays as sa
import smartarrays.distributed as sd


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def efficiency_probe(n: int = 3_000_000) -> float:
    """time(1 process) / time(2 processes at once, same work each): 1.0 when a second core is free."""
    started = time.perf_counter()
    _spin(n)
    one = time.perf_counter() - started
    with mp.get_context("fork").Pool(2) as pool:
        started = time.perf_counter()
        pool.map(_spin, [n, n])
        two = time.perf_counter() - started
    return one / two


LOOPBACK = "/sys/class/net/lo/statistics/tx_bytes"


def _loopback_bytes() -> int:
    with open(LOOPBACK) as counter:
        return int(counter.read())


def _touch(part: sa.SmartArray) -> int:
    return len(part)


def wire(client, elements: int) -> None:
    from distributed.protocol import serialize

    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    for bits in (1, 10, 17, 33, 64):
        values = (np.arange(elements, dtype=np.uint64) * np.uint64(2654435761)) & np.uint64((1 << bits) - 1)
        a = sa.array(values, bits=bits)
        packed = (elements * bits + 63) // 64 * 8
        buffers: list[pickle.PickleBuffer] = []
        in_band = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
        pickled = len(in_band) + sum(b.raw().nbytes for b in buffers)
        header, frames = serialize(a)
        dask_frames = sum(memoryview(f).nbytes for f in frames) + len(pickle.dumps(header))
        # A real transfer over TCP: the partition lives on worker 0, a task on worker 1 needs it.
        # Counted as the loopback interface's bytes (TCP/IP headers included) during the
        # transfer; the least of 3 tries, since other processes may talk over loopback too.
        tries = []
        for _ in range(3):
            [future] = client.scatter([a], workers=[workers[0]], hash=False)
            time.sleep(0.2)
            before = _loopback_bytes()
            task = client.submit(_touch, future, workers=[workers[1]], allow_other_workers=False, pure=False)
            assert task.result() == elements
            tries.append(_loopback_bytes() - before)
            del future, task
        sent = min(tries)
        ratio = max(pickled, dask_frames, sent) / packed
        print(
            f"WIRE bits={bits} values={elements} packed={packed} pickle={pickled} dask_frames={dask_frames} "
            f"transfer={sent} ratio={ratio:.4f}",
            flush=True,
        )
        print(f"RATIO name=wire_over_packed_{bits}_bits value={ratio:.4f} goal=<=1.05", flush=True)


def timed(job, repetitions: int) -> list[float]:
    job()  # warm up
    seconds = []
    for _ in range(repetitions):
        started = time.perf_counter()
        job()
        seconds.append(time.perf_counter() - started)
    return seconds


def _one_cpu() -> list[int]:
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, [cpu])
    sa.set_threads(1)
    return [cpu]


def scaling(elements: int, repetitions: int) -> None:
    """The same jobs on three layouts of this machine's 2 CPUs: one worker on one CPU, two
    workers on one CPU each (the 2-worker LocalCluster of the tests), one worker on both CPUs
    with a 2-thread runtime (what local_cluster() starts on a one-node machine)."""
    from distributed import Client

    values = (np.arange(elements, dtype=np.uint64) * np.uint64(2654435761)) % np.uint64(1_000_000)
    keys = values % np.uint64(1000)
    expected_sum = int(values.sum())
    medians = {}
    for layout, workers in (("1_worker_1_cpu", 1), ("2_workers_1_cpu_each", 2), ("1_worker_2_cpus", 1)):
        cluster = sd.local_cluster(n_workers=workers)
        client = Client(cluster)
        try:
            if layout == "1_worker_1_cpu":
                client.run(_one_cpu)
            print(f"# {layout}: pinning {sd.pinning(client)} cpus {client.run(lambda: sorted(os.sched_getaffinity(0)))}", flush=True)
            d = sd.from_numpy(values, client, partitions=2)
            k = sd.from_numpy(keys, client, partitions=2)
            assert d.exact_sum() == expected_sum
            jobs = {
                "sum_min_max": lambda: (d.sum(), d.minmax()),
                "groupby_sum_1000_groups": lambda: sd.groupby(k, d, "sum"),
            }
            for name, job in jobs.items():
                seconds = timed(job, repetitions)
                medians[(name, layout)] = statistics.median(seconds)
                print(
                    f"RESULT job={name} layout={layout} values={elements} "
                    f"seconds_median={statistics.median(seconds):.4f} seconds_best={min(seconds):.4f}",
                    flush=True,
                )
        finally:
            client.close()
            cluster.close()
    for name in ("sum_min_max", "groupby_sum_1000_groups"):
        speedup = medians[(name, "1_worker_1_cpu")] / medians[(name, "2_workers_1_cpu_each")]
        print(f"RATIO name={name}_2_workers_speedup value={speedup:.3f} goal=info", flush=True)
        print(f"RATIO name={name}_2_workers_efficiency value={speedup / 2:.3f} goal=info", flush=True)
        threads = medians[(name, "1_worker_2_cpus")] / medians[(name, "2_workers_1_cpu_each")]
        print(f"RATIO name={name}_2_workers_over_1_worker_2_threads value={threads:.3f} goal=info", flush=True)


def tpch(sf: float, repetitions: int) -> None:
    """The same TPC-H queries single-process and on Dask with 1 and 2 workers. Both clusters are
    up at once (idle workers cost nothing) and the three runs of a query alternate, repetition
    by repetition, so that the machine's load drifts alike over all three."""
    from distributed import Client

    tables = sa.tpch(sf)
    import pyarrow as pa

    for name in ("lineitem", "orders", "partsupp", "part", "customer", "supplier"):
        t = tables[name]
        buffers: list[pickle.PickleBuffer] = []
        in_band = len(pickle.dumps(t, protocol=5, buffer_callback=buffers.append))
        wire_bytes = in_band + sum(b.raw().nbytes for b in buffers)
        ratio = wire_bytes / t.packed_bytes
        print(
            f"TABLE_WIRE table={name} sf={sf} packed={t.packed_bytes} wire={wire_bytes} in_band={in_band} "
            f"arrow={pa.table(t).nbytes} ratio={ratio:.4f}",
            flush=True,
        )
        print(f"RATIO name=table_wire_over_packed_{name} value={ratio:.4f} goal=<=1.05", flush=True)
    numbers = list(sd.PLANS)
    texts = {n: sd.tpch_query(n) for n in numbers}
    expected = {n: sa.sql(texts[n], tables) for n in numbers}
    medians: dict[tuple[int, str], float] = {}
    print(f"# single process: runtime threads {sa.get_threads()}, cpus {sorted(os.sched_getaffinity(0))}", flush=True)
    clusters, clients, data = [], [], {}
    try:
        for layout, workers in (("dask_1_worker", 1), ("dask_2_workers", 2)):
            cluster = sd.local_cluster(n_workers=workers)
            client = Client(cluster, set_as_default=False)
            clusters.append(cluster)
            clients.append(client)
            print(f"# {layout}: pinning {sd.pinning(client)}", flush=True)
            started = time.perf_counter()
            data[layout] = sd.partition_tpch(tables, client)
            setup = time.perf_counter() - started
            resident = sum(data[layout].resident_bytes().values())
            print(
                f"TPCH_DATA layout={layout} sf={sf} shipped_bytes={data[layout].shipped_bytes} "
                f"resident_bytes={resident} setup_seconds={setup:.2f}",
                flush=True,
            )
        for number in numbers:
            runs = {
                "single_process": lambda: sa.sql(texts[number], tables),
                "dask_1_worker": lambda: data["dask_1_worker"].query(number),
                "dask_2_workers": lambda: data["dask_2_workers"].query(number),
            }
            seconds: dict[str, list[float]] = {layout: [] for layout in runs}
            for layout, run in runs.items():  # warm up, and check the answer
                if not run().equals(expected[number]):
                    raise AssertionError(f"Q{number} on {layout} differs from the single-process result")
            for _ in range(repetitions):
                for layout, run in runs.items():
                    started = time.perf_counter()
                    run()
                    seconds[layout].append(time.perf_counter() - started)
            for layout, times in seconds.items():
                medians[(number, layout)] = statistics.median(times)
                print(
                    f"TPCH query={number} layout={layout} sf={sf} seconds_median={statistics.median(times):.4f} "
                    f"seconds_best={min(times):.4f}",
                    flush=True,
                )
    finally:
        for client in clients:
            client.close()
        for cluster in clusters:
            cluster.close()
    for number in numbers:
        single = medians[(number, "single_process")]
        one, two = medians[(number, "dask_1_worker")], medians[(number, "dask_2_workers")]
        print(f"RATIO name=tpch_q{number}_dask_1_worker_over_single value={one / single:.3f} goal=info", flush=True)
        print(f"RATIO name=tpch_q{number}_dask_2_workers_over_single value={two / single:.3f} goal=info", flush=True)
        print(f"RATIO name=tpch_q{number}_2_workers_speedup_over_1 value={one / two:.3f} goal=info", flush=True)
    total = {layout: sum(medians[(n, layout)] for n in numbers) for layout in ("single_process", "dask_1_worker", "dask_2_workers")}
    print(
        f"RATIO name=tpch_all_dask_2_workers_over_single value={total['dask_2_workers'] / total['single_process']:.3f} "
        f"goal=info",
        flush=True,
    )
    print(
        f"RATIO name=tpch_all_2_workers_speedup_over_1 value={total['dask_1_worker'] / total['dask_2_workers']:.3f} goal=info",
        flush=True,
    )


def model(scale: int) -> None:
    """PageRank's exchange per iteration when the graph is split over P = 2 ... 256 machines:
    messages between different shards and their bytes (8 per contribution a shard needs from
    another), read off the shards' send lists (no cluster needed)."""
    import smartarrays.graph as sg

    g = sg.kronecker(scale, edge_factor=16, seed=1, directed=True)
    edges = g.num_edges
    for partitions in (2, 16, 64, 256):
        specs = sd.partition_graph(g, partitions)
        sizes = [len(s) for q, spec in enumerate(specs) for p, s in enumerate(spec["send"]) if p != q]
        messages = sum(1 for n in sizes if n)
        volume = 8 * sum(sizes)
        print(
            f"MODEL graph=kronecker{scale} vertices={g.num_vertices} edges={edges} machines={partitions} "
            f"messages_per_iteration={messages} bytes_per_iteration={volume} "
            f"bytes_per_edge={volume / edges:.3f} mean_message_bytes={volume / max(messages, 1):.0f}",
            flush=True,
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=20_000_000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--model-only", action="store_true", help="print only the PageRank exchange model")
    parser.add_argument("--wire-only", action="store_true", help="only the bytes on the wire (no timing)")
    parser.add_argument("--scaling-only", action="store_true", help="only the 1 against 2 workers timing")
    parser.add_argument("--tpch-only", action="store_true", help="only the TPC-H queries")
    parser.add_argument("--tpch-sf", type=float, default=0.1)
    parser.add_argument("--model-scale", type=int, default=16)
    args = parser.parse_args(argv)
    if args.model_only:
        model(args.model_scale)
        return 0
    from distributed import Client

    print(f"# load {os.getloadavg()}, efficiency probe {efficiency_probe():.2f}", flush=True)
    if not (args.scaling_only or args.tpch_only):
        cluster = sd.local_cluster(n_workers=2)
        try:
            with Client(cluster) as client:
                wire(client, args.elements)
        finally:
            cluster.close()
    if not (args.wire_only or args.tpch_only):
        scaling(args.elements, args.repetitions)
    if not (args.wire_only or args.scaling_only):
        print(f"# load {os.getloadavg()}, efficiency probe {efficiency_probe():.2f}", flush=True)
        tpch(args.tpch_sf, args.repetitions)
    print(f"# load {os.getloadavg()}, efficiency probe {efficiency_probe():.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
