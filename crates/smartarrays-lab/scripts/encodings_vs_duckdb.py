#!/usr/bin/env python3
"""Bytes per value of our encodings against DuckDB and Parquet with zstd, on the same data.

Runs the lab's example `encodings` (TPC-H lineitem from `tpchgen` plus synthetic columns), which
measures our columns and writes their values to DIR; loads exactly those values into a DuckDB file
database (CHECKPOINT, so `pragma_storage_info` reports persistent compressed segments) and into a
Parquet file with zstd (pyarrow defaults otherwise: dictionary encoding on, 1 Mi-row groups), and
prints per column: our bytes/value, DuckDB's, Parquet-zstd's and the ratios, then our filter and
decode throughput next to the raw scan of this machine.

    python crates/smartarrays-lab/scripts/encodings_vs_duckdb.py --sf 1 [--out DIR] [--markdown]

DuckDB's per-column size: `pragma_storage_info` gives each persistent segment's block and offset
within the block; a segment's size is the distance to the next segment's offset in the same block,
the last one in a block runs to the block's end (an upper bound: the block's unused tail is
counted), and each additional block of a segment counts whole. Validity segments are included.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[3]
BLOCK_BYTES = 262144  # DuckDB's default block size (the pragma below checks it)


def arrow_column(directory: Path, column: dict, rows: int) -> pa.Array:
    """One column's values as Arrow, in the type it has in our columns."""
    data = directory / column["file"]
    kind = column["type"]
    if kind in ("int64", "uint64", "float64", "date32", "decimal"):
        dtype = {"int64": "<i8", "uint64": "<u8", "float64": "<f8", "date32": "<i4", "decimal": "<i8"}[kind]
        values = np.fromfile(data, dtype=dtype)
        assert len(values) == rows, (column["name"], len(values), rows)
        if kind == "date32":
            return pa.array(values, type=pa.int32()).cast(pa.date32())
        if kind == "decimal":
            # The unscaled values as 128-bit little-endian integers: exact, no float on the way.
            wide = np.empty(2 * rows, dtype="<i8")
            wide[0::2] = values
            wide[1::2] = np.where(values < 0, -1, 0)
            decimal = pa.decimal128(18, column["scale"])
            return pa.Array.from_buffers(decimal, rows, [None, pa.py_buffer(wide)])
        return pa.array(values)
    if kind == "bool":
        return pa.array(np.fromfile(data, dtype=np.uint8).astype(bool))
    if kind == "utf8":
        offsets = np.fromfile(directory / column["offsets_file"], dtype="<i8")
        assert len(offsets) == rows + 1, (column["name"], len(offsets), rows)
        text = data.read_bytes()
        large = pa.Array.from_buffers(pa.large_string(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(text)])
        return large.cast(pa.string())
    raise ValueError(f"unknown column type {kind}")


def duckdb_bytes(table: pa.Table, path: Path) -> dict:
    """Stored bytes per column of `table` in a checkpointed DuckDB file database."""
    if path.exists():
        path.unlink()
    con = duckdb.connect(str(path))
    con.register("source", table)
    con.execute("CREATE TABLE t AS SELECT * FROM source")
    con.unregister("source")
    con.execute("CHECKPOINT")
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    assert block_size == BLOCK_BYTES, block_size
    segments = con.execute(
        "SELECT column_name, block_id, block_offset, additional_block_ids, compression, segment_type "
        "FROM pragma_storage_info('t') WHERE persistent AND block_id >= 0"
    ).fetchall()
    compressions = con.execute(
        "SELECT column_name, string_agg(DISTINCT compression, '+' ORDER BY compression) "
        "FROM pragma_storage_info('t') WHERE segment_type <> 'VALIDITY' GROUP BY column_name"
    ).fetchall()
    con.close()
    path.unlink()
    by_block = defaultdict(list)
    for name, block, offset, extra, _, _ in segments:
        by_block[block].append((offset, name, len(extra or [])))
    sizes = defaultdict(int)
    for block, entries in by_block.items():
        entries.sort()
        for i, (offset, name, extra) in enumerate(entries):
            end = entries[i + 1][0] if i + 1 < len(entries) else block_size - 8
            sizes[name] += end - offset + extra * block_size
    return {"bytes": dict(sizes), "compression": dict(compressions)}


def parquet_bytes(table: pa.Table, path: Path) -> dict:
    """Compressed bytes per column of `table` in a Parquet file with zstd."""
    pq.write_table(table, path, compression="zstd")
    metadata = pq.ParquetFile(path).metadata
    sizes = defaultdict(int)
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            sizes[chunk.path_in_schema] += chunk.total_compressed_size
    path.unlink()
    return dict(sizes)


def run_example(args, out: Path) -> dict:
    command = ["cargo", "run", "--release", "--quiet", "-p", "smartarrays-lab", "--example", "encodings", "--",
               "--sf", str(args.sf), "--out", str(out), "--json", "--repeats", str(args.repeats)]
    if args.synthetic_rows:
        command += ["--synthetic-rows", str(args.synthetic_rows)]
    print("running:", " ".join(command), file=sys.stderr)
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return json.loads((out / "encodings.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--out", type=Path, help="where the example writes its report and the values (default: a temporary directory)")
    parser.add_argument("--synthetic-rows", type=int, help="rows of each synthetic column (default: lineitem's)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per filter and decode (the fastest is kept)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="encodings-bench-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        started = time.time()
        report = run_example(args, out)
        print(f"example: {time.time() - started:.0f} s", file=sys.stderr)
        raw = report["raw_scan"]
        sep = " | " if args.markdown else "  "
        for table in report["tables"]:
            rows = table["rows"]
            arrow = pa.table({c["name"]: arrow_column(out, c, rows) for c in table["columns"]})
            duck = duckdb_bytes(arrow, Path(scratch) / f"{table['name']}.duckdb")
            parquet = parquet_bytes(arrow, Path(scratch) / f"{table['name']}.parquet")
            print(f"\n{table['name']}: {rows} rows (TPC-H SF {report['scale_factor']}), duckdb {duckdb.__version__}, pyarrow {pa.__version__}")
            header = ["column", "ours", "width", "B/v ours", "B/v DuckDB", "DuckDB compression", "B/v Parquet-zstd",
                      "DuckDB/ours", "Parquet/ours"]
            lines = [header]
            totals = [0, 0, 0]
            for c in table["columns"]:
                d = duck["bytes"].get(c["name"], 0)
                p = parquet.get(c["name"], 0)
                ours = c["packed_bytes"]
                totals = [totals[0] + ours, totals[1] + d, totals[2] + p]
                ratio = lambda x: f"{x / ours:.2f}" if ours else "-"
                lines.append([c["name"], c["encoding"], "-" if c["width_bits"] is None else str(c["width_bits"]),
                              f"{ours / rows:.3f}", f"{d / rows:.3f}", duck["compression"].get(c["name"], "?"),
                              f"{p / rows:.3f}", ratio(d), ratio(p)])
            lines.append(["total", "", "", f"{totals[0] / rows:.3f}", f"{totals[1] / rows:.3f}", "",
                          f"{totals[2] / rows:.3f}", f"{totals[1] / totals[0]:.2f}", f"{totals[2] / totals[0]:.2f}"])
            print_table(lines, sep, args.markdown)
            print(f"\n{table['name']}: throughput: filters on the columns' runtime (every core; "
                  f"parallel from 65,536 rows), decode 1 thread; raw scan of this machine (1 thread) "
                  f"{raw['values_per_second'] / 1e6:.0f} Mvalues/s, {raw['gb_per_second']:.2f} GB/s")
            lines = [["column", "filter", "selected", "filter Mv/s", "filter GB/s packed", "x raw values/s",
                      "decode Mv/s", "decode GB/s packed"]]
            for c in table["columns"]:
                lines.append([c["name"], c["predicate"], str(c["selected"]),
                              f"{c['filter_values_per_second'] / 1e6:.0f}", f"{c['filter_gb_per_second']:.2f}",
                              f"{c['filter_values_per_second'] / raw['values_per_second']:.2f}",
                              f"{c['decode_values_per_second'] / 1e6:.0f}", f"{c['decode_gb_per_second']:.2f}"])
            print_table(lines, sep, args.markdown)
    return 0


def print_table(lines, sep, markdown):
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for n, line in enumerate(lines):
        cells = [cell.ljust(w) if i in (0, 1) else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))]
        print(("| " + sep.join(cells) + " |") if markdown else sep.join(cells))
        if markdown and n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    sys.exit(main())
