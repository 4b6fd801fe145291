#!/usr/bin/env python3
"""Python part of the cross-language sum benchmark (the paper's Figure 3, single-threaded
aggregation): sums the same N values with numpy's ``ndarray.sum()`` and with smartarrays'
``SmartArray.sum(threads=1)`` on an uncompressed (64-bit) and a compressed (33-bit by default)
array, all on the calling thread, and prints ns/element and ratios.

Goals: smartarrays 64-bit sum at least as fast as numpy (speedup >= 1.0x); compressed sum within
1.3x of uncompressed. Each variant is checked against numpy's result before it is timed. With
``--parallel`` the parallel ``sum()`` on the default runtime is measured too, next to a parallel
efficiency figure (the second core of a shared machine is often busy). Variants run interleaved,
one run of each per round, and the median (and best) of the rounds is reported.

Machine-readable lines:
  RESULT language=python variant=<name> threads=<n> bits=<b> elements=<N> ns_per_element=<x> best_ns_per_element=<y>
  RATIO language=python name=<name> value=<x> goal=<text>

Usage: sum_bench.py [--elements N] [--repetitions R] [--bits B] [--placement P] [--parallel]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

import smartarrays as sa


def measure(variants: dict[str, Callable[[], int]], expected: int, repetitions: int, warmups: int) -> dict[str, list[float]]:
    """Seconds per run of each variant, after checking every result and warming up. Runs are
    interleaved (one run of each variant per round), so load from other processes on a shared
    machine falls on all variants alike instead of on whichever ran during a busy moment."""
    for name, run in variants.items():
        result = run()
        if result != expected:
            raise SystemExit(f"{name}: wrong sum {result}, expected {expected}")
    for _ in range(warmups):
        for run in variants.values():
            run()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repetitions):
        for name, run in variants.items():
            start = time.perf_counter_ns()
            run()
            times[name].append((time.perf_counter_ns() - start) / 1e9)
    return times


def report(variant: str, threads: int, bits: int, elements: int, times: list[float]) -> float:
    median = statistics.median(times) * 1e9 / elements
    best = min(times) * 1e9 / elements
    print(
        f"RESULT language=python variant={variant} threads={threads} bits={bits} elements={elements} "
        f"ns_per_element={median:.4f} best_ns_per_element={best:.4f}",
        flush=True,
    )
    return median


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", "-n", type=int, default=100_000_000, help="values to sum (default 100M)")
    parser.add_argument("--repetitions", "-r", type=int, default=7, help="timed rounds (one run of each variant per round; median reported)")
    parser.add_argument("--warmups", type=int, default=1, help="untimed runs per variant")
    parser.add_argument("--bits", type=int, default=33, help="width of the compressed array (default 33)")
    parser.add_argument("--placement", default="os", help="placement of the smart arrays (default os)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--parallel", action="store_true", help="also time the parallel sum() on the default runtime")
    args = parser.parse_args(argv)
    if args.elements < 1 or args.repetitions < 1 or not 1 <= args.bits <= 64:
        parser.error("--elements and --repetitions must be positive and --bits within 1..64")

    n = args.elements
    print(f"# smartarrays {sa.__version__}, kernels {sa.kernel_level()}, numpy {np.__version__}, {n} values below 2**{args.bits}")
    rng = np.random.default_rng(args.seed)
    values = rng.integers(0, 1 << args.bits, size=n, dtype=np.uint64)
    expected = int(values.sum(dtype=np.uint64))
    uncompressed = sa.array(values, bits=64, placement=args.placement)
    compressed = sa.array(values, bits=args.bits, placement=args.placement)
    print(
        f"# memory: numpy {values.nbytes / 2**20:.0f} MiB, smartarrays 64-bit {uncompressed.nbytes / 2**20:.0f} MiB, "
        f"{args.bits}-bit {compressed.nbytes / 2**20:.0f} MiB; placement {args.placement}",
        flush=True,
    )

    times = measure(
        {
            "numpy": lambda: int(values.sum()),
            "uncompressed": lambda: uncompressed.sum(threads=1),
            "compressed": lambda: compressed.sum(threads=1),
        },
        expected,
        args.repetitions,
        args.warmups,
    )
    numpy_ns = report("numpy_sum", 1, 64, n, times["numpy"])
    sa64_ns = report("smartarrays_sum_uncompressed", 1, 64, n, times["uncompressed"])
    sa_bits_ns = report("smartarrays_sum_compressed", 1, args.bits, n, times["compressed"])

    speedup = numpy_ns / sa64_ns
    compressed_cost = sa_bits_ns / sa64_ns
    print(f"RATIO language=python name=numpy_over_smartarrays_uncompressed value={speedup:.3f} goal=>=1.0")
    print(f"RATIO language=python name=compressed_over_uncompressed value={compressed_cost:.3f} goal=<=1.3")
    print(f"RATIO language=python name=numpy_over_smartarrays_compressed value={numpy_ns / sa_bits_ns:.3f} goal=info")

    if args.parallel:
        threads = uncompressed.threads
        parallel = measure(
            {"uncompressed": lambda: uncompressed.sum(), "compressed": lambda: compressed.sum()}, expected, args.repetitions, args.warmups
        )
        for name, key, bits, single in (
            ("smartarrays_parallel_sum_uncompressed", "uncompressed", 64, sa64_ns),
            ("smartarrays_parallel_sum_compressed", "compressed", args.bits, sa_bits_ns),
        ):
            parallel_ns = report(name, threads, bits, n, parallel[key])
            efficiency = single / parallel_ns / threads
            print(f"RATIO language=python name={name}_efficiency_{threads}_threads value={efficiency:.3f} goal=info")

    verdict = "met" if speedup >= 1.0 and compressed_cost <= 1.3 else "NOT met"
    print(
        f"# numpy {numpy_ns:.3f} ns/value, smartarrays 64-bit {sa64_ns:.3f}, {args.bits}-bit {sa_bits_ns:.3f}: "
        f"speedup over numpy {speedup:.2f}x, compressed/uncompressed {compressed_cost:.2f}x (goals {verdict})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
