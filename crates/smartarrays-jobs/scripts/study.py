#!/usr/bin/env python3
"""The Spark scale-up study's measurement protocol on our five jobs (`make bench-jobs-study`).

    python study.py target/release/smartarrays --dir /tmp/jobs-study --sizes 0.5GB,1GB,2GB \\
        --threads 1,2 --repetitions 2 --out demo-output/jobs-study

For each input size and thread count, every job (word count, grep, line sort, numeric sort,
naive Bayes, k-means) runs as a process of its own with `--populate`, so its summary splits the
time to map and read the input in (`map_s`) from the work on data in memory; the script records:

- data processed per second (input bytes, plus the training file for naive Bayes, over the whole
  run: map, parse, job and write);
- the speed-up from 1 to 2 threads, next to a parallel-efficiency probe run just before and
  just after the runs of each thread count (a pure-CPU loop timed on one worker and on all: 1.0
  means every core was free, 0.5 on two threads means the second core was busy elsewhere);
- memory traffic in GB/s: bytes the job must read and write, modelled from the data sizes and
  the passes it makes over them (see `traffic` below; not counted by hardware, and a lower bound
  where caches miss), against this machine's sequential read bandwidth measured in the same
  run by `smartarrays bench aggregate` (a raw `&[u64]` scan and a 64-bit smart array scan);
- peak RSS of the process (the kernel's high-water mark; the mapped input counts);
- the share of time in I/O: mapping the input in (`map_s`) and writing the output (`write_s`).

Inputs are generated per job group (text, vectors, keys, reviews), used at every thread count,
and deleted before the next group (unless --keep), so at most one group's files are on disk.
Results: a table on standard output, `study.json`, and one plot per job (throughput against
size, one line per thread count, the range of the repetitions as error bars) as PNG and SVG in
--out. Plots need matplotlib (in the bench venv, `make setup-jobs-bench`); without it the script
says so and writes the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import measured  # noqa: E402  (the same process measurement as bench-jobs)

JOBS = ("wordcount", "grep", "sort", "sort-numeric", "bayes", "kmeans")
GROUPS = (  # inputs generated together, and the jobs that read them
    ({"text": ("text", [])}, ("wordcount", "grep")),
    ({"vectors": ("vectors", [])}, ("sort", "kmeans")),
    ({"keys": ("keys", [])}, ("sort-numeric",)),
    ({"train": ("reviews", ["--seed", "7"]), "reviews": ("reviews", [])}, ("bayes",)),
)
NAMES = {"wordcount": "word count", "grep": "grep", "sort": "line sort", "sort-numeric": "numeric sort",
         "bayes": "naive Bayes", "kmeans": "k-means"}


def parse_size(text: str) -> int:
    units = {"KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "B": 1}
    upper = text.strip().upper()
    for unit in sorted(units, key=len, reverse=True):
        if upper.endswith(unit):
            return int(float(upper[: -len(unit)]) * units[unit])
    return int(upper)


def traffic(job: str, r: dict) -> float:
    """Bytes a run must move between memory and the cores (reads plus writes), modelled from
    the sizes the job reports and the passes it makes; output writing is left out (it is timed
    as write_s, part of the I/O share). N: input bytes, L: lines, n: keys or points."""
    n_bytes = r["bytes"]
    if job in ("wordcount", "grep"):
        return n_bytes  # one pass over the text; word table and counts stay in cache
    if job == "sort":
        lines = r["lines"]
        # scan N, write (prefix, offset, length) keys of 24 bytes, scatter them (read + write),
        # sort each bucket (read + write)
        return n_bytes + 24 * lines * 5
    if job == "sort-numeric":
        n, bits, passes = r["keys"], r["bits"], r["passes"]
        word = 4 if bits <= 32 else 8
        # parse N into 8-byte keys, gather them into one array (read + write), find the largest
        # (read), narrow to 4 bytes when they fit (read + write), per pass a histogram read and
        # a scatter (read + write), then pack into bits/8 bytes a key (read + write)
        narrow = 12 * n if word == 4 else 0
        return n_bytes + 8 * n + 16 * n + 8 * n + narrow + passes * 3 * word * n + (word + bits / 8) * n
    if job == "bayes":
        return r["train_bytes"] + n_bytes  # one pass over each file; the model is read at random
    if job == "kmeans":
        points = 8 * r["points"] * r["dims"]
        passes = r.get("init_passes", 0) + r.get("iterations", 4) + 1  # + the final cost pass
        return n_bytes + points + passes * points
    raise ValueError(job)


def seconds(r: dict) -> float:
    return sum(r.get(k, 0.0) for k in ("map_s", "read_s", "train_s", "job_s", "write_s"))


def bench_aggregate(binary: str, threads: int, elements: int) -> dict:
    """Sequential read bandwidth (GB/s of a raw `&[u64]` scan and of a 64-bit smart array) and
    the efficiency probe, from `smartarrays bench aggregate` on `threads` workers."""
    out = subprocess.run([binary, "bench", "aggregate", "--bits", "64", "--placements", "os",
                          "--elements", str(elements), "--threads", str(threads), "--warmups", "1",
                          "--repetitions", "3", "--format", "json", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    # the best of the runs (the machine is shared: the median says more about the others' load)
    gbs = {row["placement"]: 2 * 8 * row["elements"] / (row["min_ms"] / 1e3) / 1e9 for row in rows}
    median = {row["placement"]: row["logical_bytes_per_s"] / 1e9 for row in rows}
    return {"gbs": max(gbs.values()), "by_kind": gbs, "median_by_kind": median,
            "efficiency": rows[0]["parallel_efficiency"]}


def probe(binary: str, threads: int) -> float:
    """The parallel-efficiency probe alone (a tiny aggregate run; its CPU loop is what counts)."""
    return bench_aggregate(binary, threads, 1 << 16)["efficiency"]


def run_job(binary: str, job: str, files: dict, out: Path, threads: int) -> dict:
    args = {
        "wordcount": ["wordcount", files.get("text", "")],
        "grep": ["grep", files.get("text", "")],
        "sort": ["sort", files.get("vectors", "")],
        "sort-numeric": ["sort", "--numeric", files.get("keys", "")],
        "bayes": ["bayes", "--train", files.get("train", ""), files.get("reviews", "")],
        "kmeans": ["kmeans", files.get("vectors", "")],
    }[job]
    stdout, wall, tree_rss, cpu = measured([binary, "jobs", *args, "--threads", str(threads), "--json",
                                            "--no-progress", "--populate", "-o", str(out)])
    record = json.loads(stdout)
    record.update(wall_s=wall, cpu_s=cpu, rss=max(tree_rss, record.get("peak_rss_bytes", 0)))
    return record


def plot(job: str, rows: list[dict], folder: Path) -> list[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    figure, axes = plt.subplots(figsize=(5.5, 3.6))
    for threads in sorted({r["threads"] for r in rows}):
        mine = sorted((r for r in rows if r["threads"] == threads), key=lambda r: r["size_bytes"])
        x = [r["size_bytes"] / 1e9 for r in mine]
        y = [r["mb_per_s"] for r in mine]
        low = [r["mb_per_s"] - r["mb_per_s_min"] for r in mine]
        high = [r["mb_per_s_max"] - r["mb_per_s"] for r in mine]
        axes.errorbar(x, y, yerr=[low, high], marker="o", capsize=3,
                      label=f"{threads} thread{'s' if threads > 1 else ''}")
    axes.set_xscale("log", base=2)
    axes.set_xticks([r["size_bytes"] / 1e9 for r in rows], [r["size"] for r in rows])
    axes.minorticks_off()
    axes.set_ylim(bottom=0)
    axes.set_xlabel("input size")
    axes.set_ylabel("MB of input per second")
    axes.set_title(f"{NAMES[job]}: throughput against size and threads")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    written = []
    for suffix in ("png", "svg"):
        path = folder / f"study-{job}.{suffix}"
        figure.savefig(path, dpi=120)
        written.append(str(path))
    plt.close(figure)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--dir", type=Path, default=Path("target/jobs-study"), help="generated inputs (deleted as it goes)")
    parser.add_argument("--sizes", default="0.5GB,1GB,2GB")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--bandwidth-elements", type=int, default=50_000_000,
                        help="values per array of the bandwidth run (it reads two arrays of 8-byte values)")
    parser.add_argument("--out", type=Path, default=Path("demo-output/jobs-study"))
    parser.add_argument("--keep", action="store_true", help="keep the generated inputs")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="STUDY_JSON",
                        help="run nothing: merge the rows of earlier runs' study.json (e.g. one per size) "
                             "into one table, study.json and plots in --out")
    options = parser.parse_args()
    if options.merge:
        return merge(options.merge, options.out)
    sizes = options.sizes.split(",")
    thread_counts = [int(t) for t in options.threads.split(",")]
    jobs = [j for j in options.jobs.split(",") if j]
    for job in jobs:
        if job not in JOBS:
            parser.error(f"--jobs: unknown job {job!r} (one of {', '.join(JOBS)})")
    options.out.mkdir(parents=True, exist_ok=True)
    load = load_before = os.getloadavg()
    print(f"jobs study: sizes {', '.join(sizes)}, threads {options.threads}, {options.repetitions} run(s) each; "
          f"{os.cpu_count()} CPUs; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    bandwidth = {}
    for threads in thread_counts:
        bandwidth[threads] = bench_aggregate(options.binary, threads, options.bandwidth_elements)
        kinds = ", ".join(f"{k} {v:.1f}" for k, v in bandwidth[threads]["by_kind"].items())
        print(f"bandwidth, {threads} thread(s): {bandwidth[threads]['gbs']:.1f} GB/s sequential read ({kinds}); "
              f"efficiency probe {bandwidth[threads]['efficiency']:.2f}", flush=True)
    machine_gbs = max(b["gbs"] for b in bandwidth.values())

    runs: dict[tuple[str, str, int], list[dict]] = {}
    probes: dict[tuple[str, int], list[float]] = {}
    started = time.perf_counter()
    for size in sizes:
        folder = options.dir / size
        folder.mkdir(parents=True, exist_ok=True)
        for inputs, group_jobs in GROUPS:
            wanted = [j for j in group_jobs if j in jobs]
            if not wanted:
                continue
            files = {}
            for name, (kind, extra) in inputs.items():
                path = folder / f"{name}.txt"
                if not path.exists():
                    subprocess.run([options.binary, "jobs", "generate", kind, "-o", str(path), "--size", size,
                                    "--no-progress", *extra], check=True, stdout=subprocess.DEVNULL)
                files[name] = str(path)
            for threads in thread_counts:
                probes.setdefault((size, threads), []).append(probe(options.binary, threads))
                for job in wanted:
                    for _ in range(options.repetitions):
                        out = folder / f"out-{job}.txt"
                        record = run_job(options.binary, job, files, out, threads)
                        out.unlink(missing_ok=True)
                        runs.setdefault((job, size, threads), []).append(record)
                probes[(size, threads)].append(probe(options.binary, threads))
            if not options.keep:
                for path in files.values():
                    Path(path).unlink(missing_ok=True)
        if not options.keep:
            shutil.rmtree(folder, ignore_errors=True)

    rows = []
    for (job, size, threads), records in runs.items():
        data = records[0]["bytes"] + records[0].get("train_bytes", 0)
        rates = [data / seconds(r) / 1e6 for r in records]
        best = max(records, key=seconds)
        middle = sorted(records, key=seconds)[len(records) // 2]
        total = seconds(middle)
        moved = traffic(job, middle)
        compute = total - middle.get("map_s", 0.0) - middle.get("write_s", 0.0)
        rows.append({
            "job": job, "size": size, "size_bytes": parse_size(size), "threads": threads, "data_bytes": data,
            "seconds": total, "mb_per_s": statistics.median(rates), "mb_per_s_min": min(rates),
            "mb_per_s_max": max(rates), "map_s": middle.get("map_s", 0.0), "write_s": middle.get("write_s", 0.0),
            "io_share": (middle.get("map_s", 0.0) + middle.get("write_s", 0.0)) / total,
            "traffic_bytes": moved, "traffic_gbs": moved / max(compute, 1e-9) / 1e9,
            "bandwidth_gbs": bandwidth[threads]["gbs"],
            "peak_rss_bytes": max(r["rss"] for r in records), "cpu_s": middle["cpu_s"],
            "mb_per_cpu_s": data / max(middle["cpu_s"], 1e-9) / 1e6,
            "probe": statistics.mean(probes[(size, threads)]), "probe_runs": probes[(size, threads)],
            "slowest_s": seconds(best), "summary": middle,
        })
    load = os.getloadavg()
    result = {"sizes": sizes, "threads": thread_counts, "repetitions": options.repetitions,
              "bandwidth": {str(t): b for t, b in bandwidth.items()}, "rows": rows,
              "load_before": load_before, "load_after": load, "seconds": time.perf_counter() - started}
    report(result, jobs, options.out)
    return 0


def merge(paths: list[Path], out: Path) -> int:
    parts = [json.loads(p.read_text()) for p in paths]
    rows = [r for part in parts for r in part["rows"]]
    sizes = sorted({r["size"] for r in rows}, key=parse_size)
    threads = sorted({r["threads"] for r in rows})
    bandwidth: dict[str, dict] = {}
    for part in parts:
        for t, b in part["bandwidth"].items():
            if t not in bandwidth or b["gbs"] > bandwidth[t]["gbs"]:
                bandwidth[t] = b
    result = {"sizes": sizes, "threads": threads, "repetitions": parts[0]["repetitions"], "bandwidth": bandwidth,
              "rows": rows, "merged": [str(p) for p in paths],
              "load_before": [p.get("load_before") for p in parts], "load_after": [p.get("load_after") for p in parts],
              "seconds": sum(p.get("seconds", 0) for p in parts)}
    out.mkdir(parents=True, exist_ok=True)
    jobs = [j for j in JOBS if any(r["job"] == j for r in rows)]
    report(result, jobs, out)
    return 0


def report(result: dict, jobs: list[str], out: Path) -> None:
    """Prints the table and the size ratios, draws the plots, writes study.json."""
    rows, sizes, thread_counts = result["rows"], result["sizes"], result["threads"]
    bandwidth = {int(t): b for t, b in result["bandwidth"].items()}
    machine_gbs = max(b["gbs"] for b in bandwidth.values())
    by_key = {(r["job"], r["size"], r["threads"]): r for r in rows}
    one, most = min(thread_counts), max(thread_counts)
    for r in rows:
        base = by_key.get((r["job"], r["size"], one))
        r["speedup"] = base["seconds"] / r["seconds"] if base else None

    print(f"\n{'job':<13}{'size':>6}{'thr':>4}{'MB/s':>9}{'range':>14}{'s':>8}{'speed-up':>9}{'probe':>7}"
          f"{'GB/s':>7}{'of bw':>7}{'RSS MiB':>9}{'I/O':>6}{'MB/CPU s':>10}")
    for job in jobs:
        for size in sizes:
            for threads in thread_counts:
                r = by_key.get((job, size, threads))
                if not r:
                    continue
                speedup = f"{r['speedup']:.2f}x" if threads != one and r["speedup"] else "-"
                print(f"{NAMES[job]:<13}{size:>6}{threads:>4}{r['mb_per_s']:>9.0f}"
                      f"{r['mb_per_s_min']:>7.0f}-{r['mb_per_s_max']:<6.0f}{r['seconds']:>8.2f}{speedup:>9}"
                      f"{r['probe']:>7.2f}{r['traffic_gbs']:>7.2f}{r['traffic_gbs'] / r['bandwidth_gbs']:>6.0%}"
                      f"{r['peak_rss_bytes'] / 2**20:>9.0f}{r['io_share']:>6.0%}{r['mb_per_cpu_s']:>10.0f}")
    print(f"\nbandwidth measured: {machine_gbs:.1f} GB/s (best of {', '.join(str(t) for t in thread_counts)} threads); "
          f"'of bw' compares a run's modelled traffic with the bandwidth on its own thread count")
    for job in jobs:
        for size in sizes[1:]:
            a, b = by_key.get((job, sizes[0], most)), by_key.get((job, size, most))
            if a and b:
                print(f"{NAMES[job]}: {size} against {sizes[0]} at {most} threads: throughput {b['mb_per_s'] / a['mb_per_s']:.2f}x")
    plots = []
    for job in jobs:
        mine = [r for r in rows if r["job"] == job]
        if mine:
            plots += plot(job, mine, out)
    if jobs and not plots:
        print("no plots: matplotlib is missing (it is in the bench venv: make setup-jobs-bench)")
    result["plots"] = plots
    (out / "study.json").write_text(json.dumps(result, indent=1))
    print(f"wrote {out / 'study.json'} and {len(plots)} plot files; load before {result['load_before']}, "
          f"after {result['load_after']}")


if __name__ == "__main__":
    sys.exit(main())
