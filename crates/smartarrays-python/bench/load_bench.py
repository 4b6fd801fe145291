"""Loading a table: smartarrays against DuckDB and Polars on one Parquet file, in one run.

Times (median of --repetitions runs each, after one warm-up) reading the file into memory:
  smartarrays  sa.Table.read_parquet (decode, then compress every column)
  duckdb       CREATE TABLE ... AS SELECT * FROM read_parquet(...) (its own in-memory format)
  polars       pl.read_parquet
and the bytes each holds afterwards (smartarrays: Table.memory_bytes; DuckDB: the memory its
buffer manager reports for the database, duckdb_memory(); Polars: DataFrame.estimated_size()),
then smartarrays' save and reload of the saved-table format (.sat). Threads: all of the
machine's, for every engine (--threads to pin one number for all three).

    python bench/load_bench.py --parquet /tmp/tpch-sf1/lineitem.parquet --repetitions 3
"""

import argparse
import os
import statistics
import tempfile
import time

import duckdb
import polars as pl

import smartarrays as sa


def timed(repetitions, run):
    run()
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
        del result
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parquet", required=True)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    sa.set_threads(args.threads)
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    rows = None

    def ours():
        return sa.Table.read_parquet(args.parquet)

    sa_s, sa_runs = timed(args.repetitions, ours)
    table = ours()
    rows = table.num_rows
    sa_bytes = table.memory_bytes

    def duck():
        con = duckdb.connect()
        con.execute(f"set threads = {args.threads}")
        con.execute(f"create table t as select * from read_parquet('{args.parquet}')")
        return con

    duck_s, duck_runs = timed(args.repetitions, duck)
    con = duck()
    duck_bytes = con.execute("select sum(memory_usage_bytes) from duckdb_memory()").fetchone()[0]
    con.close()

    def polars():
        return pl.read_parquet(args.parquet)

    pl_s, pl_runs = timed(args.repetitions, polars)
    pl_bytes = polars().estimated_size()

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "t.sat")
        save_s, save_runs = timed(args.repetitions, lambda: table.save(path))
        file_bytes = os.path.getsize(path)
        load_s, load_runs = timed(args.repetitions, lambda: sa.Table.load(path))

    print(f"file {args.parquet}: {rows} rows, {os.path.getsize(args.parquet) / 1e6:.1f} MB; threads {args.threads}")
    print(f"{'load from Parquet':<28} {'median s':>9}  {'ratio to ours':>13}  {'bytes in memory':>16}  runs")
    for name, s, runs, size in [
        ("smartarrays", sa_s, sa_runs, sa_bytes),
        ("duckdb (create table)", duck_s, duck_runs, duck_bytes),
        ("polars read_parquet", pl_s, pl_runs, pl_bytes),
    ]:
        print(f"{name:<28} {s:>9.3f}  {s / sa_s:>13.2f}  {size:>16,}  {[round(r, 3) for r in runs]}")
    print(f"memory: smartarrays / duckdb = {sa_bytes / duck_bytes:.2f}, smartarrays / polars = {sa_bytes / pl_bytes:.2f}")
    print(f"saved format: save {save_s:.3f} s, reload {load_s:.3f} s, file {file_bytes:,} bytes "
          f"(save runs {[round(r, 3) for r in save_runs]}, reload runs {[round(r, 3) for r in load_runs]})")


if __name__ == "__main__":
    main()
