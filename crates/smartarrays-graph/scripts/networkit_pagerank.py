#!/usr/bin/env python3
"""PageRank of networkit against `smartarrays graph pagerank` on the same graph and threads.

Generates a Graph500 Kronecker graph with the smartarrays CLI (duplicates and self-loops
dropped), writes it as an edge list for networkit, runs both PageRanks (damping 0.85, L1
tolerance 1e-3; load time excluded) and prints seconds per iteration and the ratio.

usage: networkit_pagerank.py PATH/TO/smartarrays [--scale 22] [--threads 2] [--variant u]
Needs networkit (pip install networkit).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variant", default="u")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    args = parser.parse_args()
    try:
        import networkit as nk
    except ImportError:
        print("networkit is not installed (pip install networkit); nothing to compare", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as folder:
        graph = os.path.join(folder, "kron.sag")
        edges = os.path.join(folder, "kron.el")
        common = ["--duplicates", "drop", "--self-loops", "drop", "--no-progress"]
        subprocess.run([args.binary, "graph", "generate", "--scale", str(args.scale), "-o", graph, *common], check=True)
        subprocess.run([args.binary, "graph", "convert", graph, "-o", edges, "--no-progress"], check=True)

        nk.setNumberOfThreads(args.threads)
        reader = nk.graphio.EdgeListReader("\t", 0, "#", continuous=True, directed=True)
        started = time.perf_counter()
        g = reader.read(edges)
        load = time.perf_counter() - started
        pagerank = nk.centrality.PageRank(g, damp=0.85, tol=args.tolerance)
        pagerank.norm = nk.centrality.Norm.L1_NORM
        started = time.perf_counter()
        pagerank.run()
        networkit_seconds = time.perf_counter() - started
        networkit_iterations = pagerank.numberOfIterations()

        ours = subprocess.run(
            [args.binary, "graph", "pagerank", graph, "--threads", str(args.threads), "--variant", args.variant,
             "--tolerance", str(args.tolerance), "--format", "json", "--top", "1", "--no-progress"],
            check=True, capture_output=True, text=True)
        result = json.loads(ours.stdout)

    per_networkit = networkit_seconds / max(networkit_iterations, 1)
    per_ours = result["seconds_per_iteration"]
    print(f"graph: Kronecker scale {args.scale}, {g.numberOfNodes()} vertices, {g.numberOfEdges()} edges; {args.threads} thread(s)")
    print(f"networkit {nk.__version__}: {networkit_iterations} iterations, {networkit_seconds:.3f} s, "
          f"{per_networkit:.4f} s per iteration (edge-list load {load:.1f} s)")
    print(f"smartarrays ({args.variant}): {result['iterations']} iterations, {result['seconds']:.3f} s, {per_ours:.4f} s per iteration")
    print(f"per-iteration speed-up of smartarrays over networkit: {per_networkit / per_ours:.2f}x; "
          f"whole run: {networkit_seconds / result['seconds']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
