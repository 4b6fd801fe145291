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
