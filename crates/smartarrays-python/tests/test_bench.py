"""Smoke test of the cross-language sum benchmark script: it runs on a few values and prints
well-formed RESULT and RATIO lines (speed is measured by the benchmark, never asserted here)."""

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "bench" / "sum_bench.py"


def test_sum_bench_prints_machine_readable_lines() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--elements", "20000", "--repetitions", "2", "--parallel"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    results = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    variants = [dict(field.split("=", 1) for field in fields)["variant"] for fields in results]
    assert variants == [
        "numpy_sum",
        "smartarrays_sum_uncompressed",
        "smartarrays_sum_compressed",
        "smartarrays_parallel_sum_uncompressed",
        "smartarrays_parallel_sum_compressed",
    ]
    for fields in results:
        values = dict(field.split("=", 1) for field in fields)
        assert values["language"] == "python" and values["elements"] == "20000"
        assert float(values["ns_per_element"]) > 0 and float(values["best_ns_per_element"]) > 0
    assert sum(line.startswith("RATIO ") for line in run.stdout.splitlines()) == 5


def test_tpch_traffic_model_prints_a_line_per_query_and_machine_count() -> None:
    script = SCRIPT.parent / "tpch_model.py"
    run = subprocess.run(
        [sys.executable, str(script), "--sf", "0.01", "--machines", "1", "2", "5"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = [dict(f.split("=", 1) for f in line.split()[1:]) for line in run.stdout.splitlines() if line.startswith("MODEL ")]
    assert [(int(m["query"]), int(m["machines"])) for m in lines] == [
        (q, p) for q in (1, 3, 5, 6, 9, 10, 12, 14, 18, 19) for p in (1, 2, 5)
    ]
    for m in lines:
        machines = int(m["machines"])
        if machines == 1:  # nothing crosses the network on one machine but the result
            assert int(m["broadcast_bytes"]) == 0 and float(m["shuffle_bytes"]) == 0 and float(m["avoided_shuffle_bytes"]) == 0
        if m["query"] in ("6", "14", "19"):  # one partial row per machine that has qualifying rows
            assert int(m["partial_rows"]) <= machines
        if m["query"] == "1":
            assert int(m["partial_rows"]) <= 4 * machines
