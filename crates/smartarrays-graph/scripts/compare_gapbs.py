#!/usr/bin/env python3
"""Our graph kernels against the GAP Benchmark Suite (GAPBS) on the same graph, the same thread
counts, in the same run.

GAPBS is not part of this repository. Give the folder where it was built in the environment
variable GAPBS_DIR (or --gapbs DIR); without it, the script prints how to get it and times our
side alone.

Steps:
1. `smartarrays graph generate`: an undirected Kronecker graph (Graph500 parameters, duplicates
   and self-loops dropped) saved as .sag; `graph convert --write-weights` writes the same graph
   with its generated weights (integers in 1..=255, seed --weight-seed) as a `u v w` list.
2. With GAPBS: `graph convert` writes the plain edge list; comment lines are stripped and GAPBS's
   own `converter` (with `-s`, the lists hold each undirected edge once) makes `.sg` and `.wsg`.
3. For each kernel and thread count: ours --repetitions times (one process each, the timing the
   CLI reports, loading excluded; Gauss-Seidel's degree order of its cells, built from the
   loaded graph before the timed run, is reported apart in the notes with the ratio counting
   it), then GAPBS once with `-n` --repetitions trials
   (OMP_NUM_THREADS); the medians and their ratio (ours / GAPBS: below 1.0 we are faster).
   Kernels: bfs (GAPBS bfs), sssp (sssp, same delta), pr (Jacobi; pr_spmv), pr-gs
   (Gauss-Seidel; pr), cc (cc), bc (bc, one source), tc (tc). BFS, SSSP and BC start from the
   same vertex (-r). With --variants u,v+e each of our layouts is timed (same graph file, the
   CLI's --variant) and set against the same GAPBS median; a `v+e/u` column gives our V+E time
   over our U time.
4. The load average before and after, and the parallel-efficiency probe of the project
   (compute-only, 2 threads against 1; 1.00 means the second core was free).

usage: compare_gapbs.py SMARTARRAYS [--scale 18] [--edge-factor 16] [--threads 1,2]
                        [--repetitions 3] [--kernels bfs,sssp,pr,pr-gs,cc,bc,tc] [--delta 1]
                        [--tolerance 1e-4] [--variants u] [--workdir DIR] [--json OUT.json]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

KERNELS = ["bfs", "sssp", "pr", "pr-gs", "cc", "bc", "tc"]
GAPBS_BINARY = {"bfs": "bfs", "sssp": "sssp", "pr": "pr_spmv", "pr-gs": "pr", "cc": "cc", "bc": "bc", "tc": "tc"}
TRIAL = re.compile(r"Trial Time:\s+([0-9.eE+-]+)")
PROBE = re.compile(r"parallel efficiency probe ([0-9.]+)")
HOW_TO_GET_GAPBS = """GAPBS_DIR is not set: timing our side only.
To compare with GAPBS, build it outside this repository and point GAPBS_DIR at it:
    git clone https://github.com/sbeamer/gapbs /tmp/gapbs && make -C /tmp/gapbs
    GAPBS_DIR=/tmp/gapbs make bench-gapbs"""


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def load():
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def strip_comments(source, target):
    with open(source) as lines, open(target, "w") as out:
        for line in lines:
            if line and line[0] not in "#%":
                out.write(line)


def first_vertex(path):
    with open(path) as lines:
        for line in lines:
            if line and line[0] not in "#%":
                return int(line.split()[0])
    raise RuntimeError(f"{path} holds no edge")


def ours(binary, kernel, graph, threads, root, options, variant="u"):
    common = [graph, "--threads", str(threads), "--no-progress", "--format", "json", "--variant", variant]
    listed = ["--top", "1"]
    commands = {
        "bfs": ["bfs", *common, *listed, "--source", str(root)],
        "sssp": ["sssp", *common, *listed, "--source", str(root), "--delta", str(options.delta),
                 "--weight-seed", str(options.weight_seed)],
        "pr": ["pagerank", *common, *listed, "--dangling", "drop", "--tolerance", str(options.tolerance),
               "--max-iterations", "20"],
        "pr-gs": ["pagerank", *common, *listed, "--dangling", "drop", "--tolerance", str(options.tolerance),
                  "--max-iterations", "20", "--gauss-seidel"],
        "cc": ["components", *common, *listed],
        "bc": ["bc", *common, *listed, "--sources", str(root)],
        "tc": ["tc", *common],
    }
    result = json.loads(run([binary, "graph", *commands[kernel]]))
    return result["seconds"], result.get("iterations"), result.get("prepare_seconds") or 0.0


def gapbs(folder, kernel, sg, wsg, threads, root, options):
    binary = os.path.join(folder, GAPBS_BINARY[kernel])
    trials = ["-n", str(options.repetitions)]
    commands = {
        "bfs": [binary, "-f", sg, "-r", str(root), *trials],
        "sssp": [binary, "-f", wsg, "-r", str(root), "-d", str(options.delta), *trials],
        "pr": [binary, "-f", sg, "-t", str(options.tolerance), "-i", "20", "-l", *trials],
        "pr-gs": [binary, "-f", sg, "-t", str(options.tolerance), "-i", "20", "-l", *trials],
        "cc": [binary, "-f", sg, *trials],
        "bc": [binary, "-f", sg, "-r", str(root), "-i", "1", *trials],
        "tc": [binary, "-f", sg, *trials],
    }
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    output = run(commands[kernel], env=env)
    times = [float(t) for t in TRIAL.findall(output)]
    if not times:
        raise RuntimeError(f"no 'Trial Time' in the output of {' '.join(commands[kernel])}:\n{output}")
    return statistics.median(times), output


def probe(binary):
    output = subprocess.run([binary, "bench", "aggregate", "--elements", "1000", "--threads", "2",
                             "--warmups", "0", "--repetitions", "1", "--bits", "32", "--placements", "os"],
                            capture_output=True, text=True)
    match = PROBE.search(output.stderr + output.stdout)
    return float(match.group(1)) if match else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("smartarrays")
    parser.add_argument("--gapbs", default=os.environ.get("GAPBS_DIR") or None)
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weight-seed", type=int, default=1)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--delta", type=int, default=1)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--variants", default="u",
                        help="our layouts to time, comma-separated (u, v, v+e); each against the same GAPBS run")
    parser.add_argument("--workdir")
    parser.add_argument("--json")
    options = parser.parse_args()
    kernels = options.kernels.split(",")
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        parser.error(f"unknown kernels {unknown}: choose from {','.join(KERNELS)}")
    threads = [int(t) for t in options.threads.split(",")]
    variants = options.variants.split(",")
    if [v for v in variants if v not in ("u", "v", "v+e")]:
        parser.error(f"unknown variants in {options.variants!r}: choose from u, v, v+e")
    if options.gapbs:
        needed = sorted({GAPBS_BINARY[k] for k in kernels} | {"converter"})
        missing = [p for p in needed if not os.access(os.path.join(options.gapbs, p), os.X_OK)]
        if missing:
            sys.exit(f"GAPBS_DIR={options.gapbs}: missing built programs {sorted(set(missing))} (run make there)")
    else:
        print(HOW_TO_GET_GAPBS, flush=True)

    temporary = None if options.workdir else tempfile.TemporaryDirectory()
    folder = options.workdir or temporary.name
    os.makedirs(folder, exist_ok=True)
    name = os.path.join(folder, f"kron{options.scale}")
    binary = options.smartarrays
    print(f"load average before: {load()}", flush=True)
    run([binary, "graph", "generate", "--kind", "kronecker", "--scale", str(options.scale), "--edge-factor",
         str(options.edge_factor), "--seed", str(options.seed), "--undirected", "--duplicates", "drop",
         "--self-loops", "drop", "-o", name + ".sag", "--no-progress"])
    run([binary, "graph", "convert", name + ".sag", "--write-weights", "--weight-seed", str(options.weight_seed),
         "-o", name + ".wel", "--no-progress"])
    root = first_vertex(name + ".wel")
    sg = wsg = None
    if options.gapbs:
        run([binary, "graph", "convert", name + ".sag", "-o", name + ".el", "--no-progress"])
        strip_comments(name + ".el", name + ".plain.el")
        strip_comments(name + ".wel", name + ".plain.wel")
        converter = os.path.join(options.gapbs, "converter")
        sg, wsg = name + ".sg", name + ".wsg"
        run([converter, "-f", name + ".plain.el", "-s", "-b", sg])
        run([converter, "-f", name + ".plain.wel", "-s", "-wb", wsg])
    efficiency = probe(binary)
    print(f"graph: Kronecker scale {options.scale}, edge factor {options.edge_factor}, undirected; root {root}; "
          f"delta {options.delta}; PageRank tolerance {options.tolerance:g} (dangling rank dropped, as GAPBS)")
    if efficiency is not None:
        print(f"parallel-efficiency probe (2 threads vs 1, compute only): {efficiency:.2f}")
    rows = []
    tag = len(variants) > 1
    header = f"{'kernel':<7} {'threads':>7} {'ours s':>10} {'GAPBS s':>10} {'ratio':>7}  notes"
    if tag:
        header = f"{'kernel':<7} {'layout':>6} {'threads':>7} {'ours s':>10} {'GAPBS s':>10} {'ratio':>7} {'v+e/u':>6}  notes"
    print(header)
    for kernel in kernels:
        for t in threads:
            measured = {}
            for variant in variants:
                samples, iterations, prepared = [], None, []
                for _ in range(options.repetitions):
                    seconds, iterations, prepare = ours(binary, kernel, name + ".sag", t, root, options, variant)
                    samples.append(seconds)
                    prepared.append(prepare)
                measured[variant] = (statistics.median(samples), samples, iterations, statistics.median(prepared))
            theirs, output = None, ""
            if options.gapbs:
                theirs, output = gapbs(options.gapbs, kernel, sg, wsg, t, root, options)
            for variant in variants:
                mine, samples, iterations, prepare = measured[variant]
                note = ""
                if kernel in ("pr", "pr-gs"):
                    if options.gapbs:
                        steps = len(re.findall(r"^\s*\d+\s+[0-9.eE+-]+\s*$", output, re.MULTILINE)) // max(options.repetitions, 1)
                        note = f"iterations: ours {iterations}, GAPBS {steps}"
                    else:
                        note = f"iterations: ours {iterations}"
                if prepare > 0:
                    # A layout derived from the graph before the timed run (the degree order of
                    # Gauss-Seidel's cells): shown apart, and the ratio with it counted.
                    with_it = f", {(mine + prepare) / theirs:.2f} with it" if theirs else ""
                    note += f"; prepared {prepare:.3f} s{with_it}"
                ratio = mine / theirs if theirs else None
                over_u = mine / measured["u"][0] if "u" in measured and measured["u"][0] > 0 else None
                rows.append({"kernel": kernel, "threads": t, "variant": variant, "ours_seconds": mine,
                             "ours_samples": samples, "ours_prepare_seconds": prepare, "gapbs_seconds": theirs, "ratio": ratio,
                             "over_u": over_u, "note": note})
                shown_theirs = f"{theirs:.4f}" if theirs is not None else "-"
                shown_ratio = f"{ratio:.2f}" if ratio is not None else "-"
                if tag:
                    shown_u = f"{over_u:.2f}" if over_u is not None else "-"
                    print(f"{kernel:<7} {variant:>6} {t:>7} {mine:>10.4f} {shown_theirs:>10} {shown_ratio:>7} "
                          f"{shown_u:>6}  {note}", flush=True)
                else:
                    print(f"{kernel:<7} {t:>7} {mine:>10.4f} {shown_theirs:>10} {shown_ratio:>7}  {note}", flush=True)
    print(f"load average after: {load()}")
    if options.json:
        with open(options.json, "w") as out:
            json.dump({"scale": options.scale, "edge_factor": options.edge_factor, "root": root,
                       "delta": options.delta, "tolerance": options.tolerance, "threads": threads,
                       "repetitions": options.repetitions, "variants": variants, "parallel_efficiency_probe": efficiency,
                       "gapbs": bool(options.gapbs), "rows": rows}, out, indent=2)
    if temporary:
        temporary.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
