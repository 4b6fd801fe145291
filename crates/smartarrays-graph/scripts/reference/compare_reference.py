#!/usr/bin/env python3
"""Our PageRank (`smartarrays graph bench`) against the C++/OpenMP reference (pagerank_reference.cpp)
on the same `.sag` graph, the same thread counts, in the same run.

Steps:
1. the C++ reference (float ranks, GAPBS-style Jacobi pull; see pagerank_reference.cpp) with
   `--threads T --repetitions R`: best run per thread count;
2. `smartarrays graph bench --graph FILE --algorithms pagerank-f32,pagerank --no-io` (every layout:
   plain Rust CSR, U, V, V+E; fastest round per configuration);
3. the C++ reference once more, so a burst of load from other processes during one of the two
   hits both sides; the faster of its two measurements is used. The reference runs in two
   modes, each before and after ours: rank arrays on ordinary heap pages (as that suite gets
   them from `new[]`) and on transparent huge pages (`--huge-pages`, fewer TLB misses in the
   random reads of the pull: the stronger baseline);
4. a correctness check: `smartarrays graph pagerank --dangling drop --precision f32` (the
   reference's settings) must give the same ranks (compared vertex by vertex), the same
   iteration count and the same top vertices; our default (dangling rank spread, f64) is shown
   next to them for the top vertices.
Then it prints a table of M edges/s per core (reverse edges visited per second per thread, the
bench's definition), the ratio to the reference and each one's 2-thread scaling.

usage: compare_reference.py SMARTARRAYS REFERENCE_BINARY GRAPH.sag [--threads 1,2] [--repetitions 3]
                            [--tolerance 1e-3] [--top 5] [--json OUT.json]
Exit status 1 when the correctness check fails.
"""

import argparse
import array
import json
import os
import re
import subprocess
import sys
import tempfile

RESULT = re.compile(r"^RESULT (.*)$")
TOP = re.compile(r"^TOP (\d+) vertex=(\d+) rank=(\S+)$")


def run_reference(binary, graph, threads, repetitions, tolerance, top, scores, verbose, huge_pages):
    command = [binary, graph, "--threads", threads, "--repetitions", str(repetitions), "--tolerance", str(tolerance),
               "--top", str(top)]
    if huge_pages:
        command.append("--huge-pages")
    if scores:
        command += ["--scores", scores]
    print("$ " + " ".join(command), flush=True)
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    results, tops, total = {}, [], None
    for line in output.splitlines():
        if verbose or line.startswith("RESULT"):
            print("  " + line)
        if match := RESULT.match(line):
            fields = dict(item.split("=", 1) for item in match.group(1).split())
            results[int(fields["threads"])] = {key: float(value) for key, value in fields.items()}
        elif match := TOP.match(line):
            tops.append((int(match.group(2)), float(match.group(3))))
        elif line.startswith("SUM "):
            total = float(line.split()[1])
    return results, tops, total, output


def run_bench(binary, graph, threads, repetitions, tolerance):
    command = [binary, "graph", "bench", "--graph", graph, "--algorithms", "pagerank-f32,pagerank", "--threads", threads,
               "--repetitions", str(repetitions), "--tolerance", str(tolerance), "--no-io", "--format", "json"]
    print("$ " + " ".join(command), flush=True)
    # Progress and per-configuration lines go to stderr (passed through); the report to stdout.
    return json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)


def ranks_of_cli(binary, graph, tolerance, extra, folder, name):
    path = os.path.join(folder, name + ".csv")
    command = [binary, "graph", "pagerank", graph, "--tolerance", str(tolerance), "--threads", "2", "--format", "csv",
               "--top", "1", "--output", path, "--no-progress", *extra]
    print("$ " + " ".join(command), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    ranks = []
    with open(path) as source:
        next(source)  # vertex,rank
        for line in source:
            vertex, rank = line.split(",")
            if int(vertex) != len(ranks):
                raise SystemExit(f"{path}: vertex {vertex} out of order")
            ranks.append(float(rank))
    os.remove(path)
    return ranks


def top_of(ranks, k):
    return sorted(range(len(ranks)), key=lambda v: (-ranks[v], v))[:k]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("smartarrays")
    parser.add_argument("reference")
    parser.add_argument("graph")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--json", help="also write the measurements and checks here")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # keep our lines in order with the bench's stderr
    thread_counts = [int(t) for t in args.threads.split(",")]

    with tempfile.TemporaryDirectory() as folder:
        scores = os.path.join(folder, "reference.f32")
        common = (args.reference, args.graph, args.threads, args.repetitions, args.tolerance)
        before, ref_top, ref_sum, _ = run_reference(*common, args.top, scores, True, False)
        before_huge, _, _, _ = run_reference(*common, 0, None, False, True)
        reference_ranks = array.array("f")
        with open(scores, "rb") as source:
            reference_ranks.frombytes(source.read())
        bench = run_bench(args.smartarrays, args.graph, args.threads, args.repetitions, args.tolerance)
        after_huge, _, _, _ = run_reference(*common, 0, None, False, True)
        after, _, _, _ = run_reference(*common, 0, None, False, False)
        matched = ranks_of_cli(args.smartarrays, args.graph, args.tolerance, ["--dangling", "drop", "--precision", "f32"], folder,
                               "matched")
        default = ranks_of_cli(args.smartarrays, args.graph, args.tolerance, [], folder, "default")

    def fastest(first, second):
        return {t: min(first[t], second[t], key=lambda r: r["seconds_per_iteration"]) for t in thread_counts}

    reference, reference_huge = fastest(before, after), fastest(before_huge, after_huge)
    edges = bench["edges"]

    # Correctness: the matched settings must agree vertex by vertex.
    n = len(reference_ranks)
    ok = n == len(matched) == bench["vertices"]
    largest = max(reference_ranks)
    max_abs = max(abs(a - b) for a, b in zip(matched, reference_ranks))
    l1 = sum(abs(a - b) for a, b in zip(matched, reference_ranks))
    ours_top = top_of(matched, args.top)
    default_top = top_of(default, args.top)
    iterations_ref = {int(r["iterations"]) for r in reference.values()}
    iterations_ours = {t["iterations"] for t in bench["timings"]}
    ok = ok and max_abs <= 1e-4 * largest and ours_top == [v for v, _ in ref_top]
    print()
    print(f"correctness ({n} vertices): C++ reference ranks sum to {ref_sum:.6f} (rank of vertices without out-edges is "
          f"not spread, so below 1); ours with the same settings sum to {sum(matched):.6f}, default (spread) {sum(default):.6f}")
    print(f"  ours (--dangling drop --precision f32) vs C++: max |difference| {max_abs:.3e} "
          f"({max_abs / largest:.2e} of the largest rank), L1 difference {l1:.3e}")
    print(f"  iterations: C++ {sorted(iterations_ref)}, ours in the bench {sorted(iterations_ours)}")
    print(f"  {'#':>2} {'C++ vertex':>10} {'C++ rank':>12} {'ours (drop, f32)':>18} {'rank':>12} {'ours (default)':>15} {'rank':>12}")
    for i, (vertex, rank) in enumerate(ref_top):
        print(f"  {i + 1:>2} {vertex:>10} {rank:>12.6e} {ours_top[i]:>18} {matched[ours_top[i]]:>12.6e} "
              f"{default_top[i]:>15} {default[default_top[i]]:>12.6e}")
    print(f"  top-{args.top} vertices: matched settings {'identical' if ours_top == [v for v, _ in ref_top] else 'DIFFERENT'}; "
          f"default settings {'identical' if default_top == [v for v, _ in ref_top] else 'differ (expected: spread dangling rank)'}")
    print(f"  check: {'PASS' if ok else 'FAIL'}")

    # Speed table.
    rows = []
    for name, measured in (("C++/OpenMP reference", reference), ("C++/OpenMP reference, huge pages", reference_huge)):
        rows += [(name, t, measured[t]["iterations"], measured[t]["seconds_per_iteration"], measured[t]["medges_per_second_per_core"],
                  measured[t]["medges_per_cpu_second"]) for t in thread_counts]
    labels = {"pagerank-f32": "f32 contributions", "pagerank": "f64 contributions"}
    for algorithm in ("pagerank-f32", "pagerank"):
        for layout in ("plain", "U", "V", "V+E"):
            for t in thread_counts:
                for timing in bench["timings"]:
                    if (timing["algorithm"], timing["layout"], timing["threads"]) == (algorithm, layout, t):
                        name = f"ours {labels[algorithm]}, {'plain Rust CSR' if layout == 'plain' else layout}"
                        rows.append((name, t, timing["iterations"], timing["seconds"], timing["edges_per_second_per_core"] / 1e6,
                                     timing["edges_per_cpu_second"] / 1e6))
    print()
    print(f"PageRank on {args.graph}: {bench['vertices']} vertices, {edges} edges, tolerance {args.tolerance}; "
          f"best of {args.repetitions} runs each (the reference: best of two such sets, before and after ours)")
    print(f"{'implementation':<42} {'threads':>7} {'iter':>4} {'s/iteration':>11} {'M edges/s/core':>14} "
          f"{'M edges/CPU-s':>13} {'vs C++':>7} {'vs C++ hp':>9} {'2-thread scaling':>16}")
    per_one = {(row[0]): row[3] for row in rows if row[1] == 1}
    for name, t, iterations, seconds, per_core, per_cpu in rows:
        ratio = per_core / reference[t]["medges_per_second_per_core"]
        ratio_huge = per_core / reference_huge[t]["medges_per_second_per_core"]
        scaling = f"{per_one[name] / seconds:.2f}x" if t == 2 and name in per_one else ""
        print(f"{name:<42} {t:>7} {int(iterations):>4} {seconds:>11.4f} {per_core:>14.1f} {per_cpu:>13.1f} {ratio:>7.2f} {ratio_huge:>9.2f} "
              f"{scaling:>16}")
    probe = bench.get("parallel_efficiency_probe")
    if probe is not None:
        print(f"parallel-efficiency probe of the bench (compute-only, 2 threads vs 1): {probe:.2f} (1.00 = second core free)")
    print("vs C++ / vs C++ hp = M edges/s/core over the reference's (ordinary heap pages / rank arrays on transparent huge "
          "pages) at the same thread count; above 1: faster than the reference")

    if args.json:
        with open(args.json, "w") as target:
            json.dump({"graph": args.graph, "vertices": bench["vertices"], "edges": edges, "reference": reference,
                       "reference_huge_pages": reference_huge,
                       "reference_runs": {"before": before, "after": after, "before_huge_pages": before_huge,
                                          "after_huge_pages": after_huge},
                       "rows": [dict(zip(("name", "threads", "iterations", "seconds_per_iteration", "medges_per_second_per_core",
                                          "medges_per_cpu_second"), row)) for row in rows],
                       "parallel_efficiency_probe": probe,
                       "check": {"pass": ok, "max_abs_difference": max_abs, "l1_difference": l1, "reference_sum": ref_sum,
                                 "reference_top": ref_top, "ours_top": ours_top, "default_top": default_top}}, target, indent=2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
