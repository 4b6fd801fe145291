#!/usr/bin/env python3
"""The Spark study's five jobs side by side: smartarrays against pyspark (local mode) and the best
single-machine tool for each, on the same generated files and the same number of threads.

    python compare.py target/release/smartarrays --dir target/jobs-bench --size 64MB --threads 2

Peers (--peers): spark (DataFrame/ML API, local[T]; start-up timed apart from the jobs, the jobs
repeated in one JVM as the study did), polars and duckdb (word count, line sort), ripgrep (grep),
sklearn (MultinomialNB; KMeans lloyd from the same initial centroids as ours), numpy (numeric
sort). Every run is a process of its own whose peak RSS (the whole process tree, sampled every
20 ms, and the kernel's own maximum for the process) is recorded. Times are medians of
--repetitions runs; each peer's own parse or load step is timed inside its job, as ours is.
CPU seconds per run (the process tree's user + system time, start-up and imports included,
divided by the runs of the process) are printed too: on a shared machine they say more than wall
time. Outputs are compared: word counts as maps, grep and sort output byte for byte (hashes), naive
Bayes predictions line by line, k-means centroids to 1e-6 (same start) or by cost (k-means||).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

JOBS = ("wordcount", "grep", "sort", "sort-numeric", "bayes", "kmeans")
PEERS_OF = {
    "wordcount": ("spark", "polars", "duckdb"),
    "grep": ("spark", "ripgrep", "polars"),
    "sort": ("spark", "polars", "duckdb"),
    "sort-numeric": ("numpy", "polars"),
    "bayes": ("spark", "sklearn"),
    "kmeans": ("spark", "sklearn"),
}
STUDY_PATTERN = "The"


# ---- process measurement ---------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")


def tree_rss(root: int, cpu: dict[int, float] | None = None) -> int:
    """Resident bytes of `root` and every descendant (from /proc); with `cpu`, also records the
    CPU seconds (user + system) each of them has used so far."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            pid, ppid = int(entry), int(fields[1])
            rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            used[pid] = (int(fields[11]) + int(fields[12])) / TICKS
            children.setdefault(ppid, []).append(pid)
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        if cpu is not None and pid in used:
            cpu[pid] = max(cpu.get(pid, 0.0), used[pid])
        stack.extend(children.get(pid, []))
    return total


def high_water(root: int) -> int:
    """Sum of the peak resident bytes (VmHWM) of `root` and its descendants, read now."""
    total = 0
    pids = [root]
    while pids:
        pid = pids.pop()
        try:
            with open(f"/proc/{pid}/status") as f:
                total += next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                pids.extend(int(c) for c in f.read().split())
        except (OSError, StopIteration, ValueError):
            continue
    return total


def measured(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, float, int, float]:
    """Runs argv; returns (stdout, wall seconds, peak RSS bytes of its process tree sampled every
    20 ms; a JVM that pyspark starts is in the tree). The kernel's own maximum (`ru_maxrss`)
    is no use here: it counts the Python parent that was forked before the exec. Short runs
    report their own high-water mark (VmHWM) in their output, which the callers add. Also
    returns the CPU seconds of the tree: the kernel's count for the process and the children
    it waited for, or the sampled sum over the tree (a JVM), whichever is larger. On a shared
    machine CPU seconds say more than wall time, which includes waiting for a core."""
    import tempfile
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        peak = [0]
        cpu: dict[int, float] = {}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(process.pid, cpu))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({process.returncode}):\n{err.read().decode()[-3000:]}")
        cpu_s = max(usage.ru_utime + usage.ru_stime, sum(cpu.values()))
        return out.read().decode(), wall, peak[0], cpu_s


def sha(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.iterdir() if p.name.startswith("part-")) if path.is_dir() else [path]
    for file in files:
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


# ---- the peers (run in a child process: `compare.py --worker PEER JOB ...`) -----------------

def lines_frame(pl, path: str):
    """A one-column Polars frame of the lines of a file (no separator, no quoting)."""
    return pl.read_csv(path, has_header=False, separator="\x01", quote_char=None,
                       new_columns=["line"], schema_overrides={"line": pl.String})


def worker(peer: str, job: str, files: dict, out: str, threads: int, repetitions: int) -> list[dict]:
    """Runs `job` with `peer` `repetitions` times in this process; one record per run."""
    if peer == "spark":
        return spark_worker(job, files, out, threads, repetitions)
    # Imports first, so no run pays for them.
    if peer in ("polars", "numpy", "sklearn"):
        import numpy  # noqa: F401
        import polars  # noqa: F401
    if peer == "duckdb":
        import duckdb  # noqa: F401
    if peer == "sklearn":
        import sklearn.cluster  # noqa: F401
        import sklearn.feature_extraction.text  # noqa: F401
        import sklearn.naive_bayes  # noqa: F401
    records = []
    for _ in range(repetitions):
        started = time.perf_counter()
        record = {"job_s": None}
        if peer == "polars":
            import polars as pl
            if job == "wordcount":
                words = (lines_frame(pl, files["text"]).select(pl.col("line").str.split(" ").explode().alias("w"))
                         .filter(pl.col("w") != "").group_by("w").len())
                words.write_csv(out, include_header=False, separator="\t")
            elif job == "grep":
                kept = lines_frame(pl, files["text"]).filter(pl.col("line").str.contains(STUDY_PATTERN, literal=True))
                kept.write_csv(out, include_header=False, quote_style="never")
            elif job == "sort":
                lines_frame(pl, files["vectors"]).sort("line").write_csv(out, include_header=False, quote_style="never")
            elif job == "sort-numeric":
                keys = pl.read_csv(files["keys"], has_header=False, new_columns=["k"], schema_overrides={"k": pl.UInt64})
                keys.sort("k").write_csv(out, include_header=False)
        elif peer == "duckdb":
            import duckdb
            con = duckdb.connect()
            con.execute(f"SET threads = {threads}")
            source = lambda path: f"read_csv('{path}', columns={{'line': 'VARCHAR'}}, delim='\\x01', quote='', escape='', header=false)"
            if job == "wordcount":
                con.execute(f"COPY (SELECT w, count(*) FROM (SELECT unnest(string_split(line, ' ')) AS w FROM {source(files['text'])}) "
                            f"WHERE w <> '' GROUP BY w) TO '{out}' (HEADER false, DELIMITER '\t', QUOTE '')")
            elif job == "sort":
                con.execute(f"COPY (SELECT line FROM {source(files['vectors'])} ORDER BY line) TO '{out}' (HEADER false, QUOTE '', DELIMITER '\\x01')")
        elif peer == "ripgrep":
            with open(out, "wb") as f:
                subprocess.run(["rg", "--no-line-number", "--no-filename", "--threads", str(threads), "-F", STUDY_PATTERN,
                                files["text"]], stdout=f, check=True)
        elif peer == "numpy":
            import numpy as np
            import polars as pl
            parse = time.perf_counter()
            keys = pl.read_csv(files["keys"], has_header=False, new_columns=["k"], schema_overrides={"k": pl.UInt64})["k"].to_numpy()
            record["parse_s"] = time.perf_counter() - parse
            keys = np.sort(keys)
            np.savetxt(out, keys, fmt="%d")
        elif peer == "sklearn":
            import numpy as np
            import polars as pl
            from threadpoolctl import threadpool_limits
            with threadpool_limits(threads):
                if job == "bayes":
                    from sklearn.feature_extraction.text import CountVectorizer
                    from sklearn.naive_bayes import MultinomialNB
                    def reviews(path):
                        frame = lines_frame(pl, path)["line"].str.split_exact("\t", 1).struct.rename_fields(["label", "text"]).struct.unnest()
                        return frame["label"].to_list(), frame["text"].to_list()
                    labels, texts = reviews(files["train"])
                    vectorizer = CountVectorizer(tokenizer=lambda s: [w for w in s.split(" ") if w], token_pattern=None, lowercase=False)
                    model = MultinomialNB(alpha=1.0).fit(vectorizer.fit_transform(texts), labels)
                    record["train_s"] = time.perf_counter() - started
                    job_started = time.perf_counter()
                    _, test_texts = reviews(files["reviews"])
                    predicted = model.predict(vectorizer.transform(test_texts))
                    with open(out, "w") as f:
                        f.write("\n".join(predicted) + "\n")
                    record["job_s"] = time.perf_counter() - job_started
                elif job == "kmeans":
                    from sklearn.cluster import KMeans
                    parse = time.perf_counter()
                    frame = pl.read_csv(files["vectors"], has_header=False, separator=" ", infer_schema=False)
                    points = frame.cast(pl.Float64).to_numpy()
                    record["parse_s"] = time.perf_counter() - parse
                    initial = np.loadtxt(files["initial"], ndmin=2)
                    model = KMeans(n_clusters=len(initial), init=initial, n_init=1, max_iter=4, tol=0.0, algorithm="lloyd").fit(points)
                    np.savetxt(out, model.cluster_centers_, fmt="%.17g")
                    record["cost"] = float(model.inertia_)
        record["total_s"] = time.perf_counter() - started
        record["peak_rss_bytes"] = high_water(os.getpid())
        if record["job_s"] is None:
            record["job_s"] = record["total_s"]
        records.append(record)
    return records


def spark_worker(job: str, files: dict, out: str, threads: int, repetitions: int) -> list[dict]:
    started = time.perf_counter()
    from pyspark.sql import SparkSession, functions as F
    spark = (SparkSession.builder.master(f"local[{threads}]").appName("smartarrays-jobs")
             .config("spark.driver.memory", "8g").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", str(max(threads * 2, 2))).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - started
    records = []
    for run in range(repetitions):
        target = f"{out}.spark{run}"
        t = run_started = time.perf_counter()
        record = {"startup_s": startup}
        text = lambda path: spark.read.text(path)
        if job == "wordcount":
            (text(files["text"]).select(F.explode(F.split("value", " ")).alias("w")).where(F.col("w") != "")
             .groupBy("w").count().write.mode("overwrite").option("sep", "\t").csv(target))
        elif job == "grep":
            text(files["text"]).where(F.col("value").contains(STUDY_PATTERN)).write.mode("overwrite").text(target)
        elif job == "sort":
            text(files["vectors"]).orderBy("value").write.mode("overwrite").text(target)
        elif job == "bayes":
            from pyspark.ml import Pipeline
            from pyspark.ml.classification import NaiveBayes
            from pyspark.ml.feature import CountVectorizer, IndexToString, RegexTokenizer, StringIndexer
            def reviews(path):
                parts = F.split("value", "\t", 2)
                return text(path).select(parts[0].alias("class"), parts[1].alias("text"))
            indexer = StringIndexer(inputCol="class", outputCol="label")
            model = Pipeline(stages=[
                indexer,
                RegexTokenizer(inputCol="text", outputCol="words", pattern=" ", toLowercase=False, minTokenLength=1),
                CountVectorizer(inputCol="words", outputCol="features", vocabSize=1 << 22),
                NaiveBayes(smoothing=1.0, modelType="multinomial")]).fit(reviews(files["train"]))
            record["train_s"] = time.perf_counter() - t
            t = time.perf_counter()
            back = IndexToString(inputCol="prediction", outputCol="predicted", labels=model.stages[0].labels)
            back.transform(model.transform(reviews(files["reviews"]))).select("predicted").write.mode("overwrite").text(target)
        elif job == "kmeans":
            from pyspark.ml.clustering import KMeans
            from pyspark.ml.feature import VectorAssembler
            numbers = text(files["vectors"]).select(F.split("value", " ").cast("array<double>").alias("x"))
            dims = len(numbers.first()["x"])
            columns = numbers.select(*[F.col("x")[i].alias(f"c{i}") for i in range(dims)])
            points = VectorAssembler(inputCols=[f"c{i}" for i in range(dims)], outputCol="features").transform(columns).cache()
            model = KMeans(k=8, maxIter=4, initMode="k-means||", initSteps=5, tol=0.0, seed=1).fit(points)
            record["cost"] = float(model.summary.trainingCost)
            points.unpersist()
            with open(target, "w") as f:
                for centre in model.clusterCenters():
                    f.write(" ".join(repr(float(x)) for x in centre) + "\n")
        record["job_s"] = time.perf_counter() - t
        record["total_s"] = time.perf_counter() - run_started
        record["output"] = target
        record["peak_rss_bytes"] = high_water(os.getpid())
        records.append(record)
    spark.stop()
    return records


# ---- ours --------------------------------------------------------------------------------------

def ours(binary: str, job: str, files: dict, out: str, threads: int, initial: bool = False) -> tuple[dict, float, int, float]:
    args = {
        "wordcount": ["wordcount", files["text"]],
        "grep": ["grep", files["text"]],
        "sort": ["sort", files["vectors"]],
        "sort-numeric": ["sort", "--numeric", files["keys"]],
        "bayes": ["bayes", "--train", files["train"], files["reviews"]],
        "kmeans": ["kmeans", files["vectors"]] + (["--centroids", files["initial"]] if initial else []),
    }[job]
    stdout, wall, rss, cpu = measured([binary, "jobs", *args, "--threads", str(threads), "--json", "--no-progress", "-o", out])
    record = json.loads(stdout)
    record["total_s"] = sum(record.get(k, 0.0) for k in ("read_s", "train_s", "job_s", "write_s"))
    return record, wall, rss, cpu


# ---- agreement ---------------------------------------------------------------------------------

def read_counts(path: Path) -> dict[str, int]:
    counts = {}
    files = sorted(p for p in path.iterdir() if p.name.startswith("part-")) if path.is_dir() else [path]
    for file in files:
        with open(file, encoding="utf-8") as f:
            for line in f:
                word, count = line.rstrip("\n").rsplit("\t", 1)
                counts[word] = int(count)
    return counts


def read_lines(path: Path) -> list[str]:
    files = sorted(p for p in path.iterdir() if p.name.startswith("part-")) if path.is_dir() else [path]
    return [line for file in files for line in file.read_text().splitlines()]


def agreement(job: str, ours_out: Path, peer_out: Path, our_record: dict, peer_record: dict) -> str:
    if job == "wordcount":
        a, b = read_counts(ours_out), read_counts(peer_out)
        return "same counts" if a == b else f"DIFFERENT counts ({len(a)} vs {len(b)} words)"
    if job in ("grep", "sort", "sort-numeric"):
        return "same bytes" if sha(ours_out) == sha(peer_out) else "DIFFERENT bytes"
    if job == "bayes":
        a, b = read_lines(ours_out), read_lines(peer_out)
        same = sum(x == y for x, y in zip(a, b))
        return f"{same / max(len(a), 1):.4%} same predictions" + ("" if len(a) == len(b) else " (DIFFERENT line counts)")
    if job == "kmeans":
        if "initial" in peer_record:
            a = [list(map(float, l.split())) for l in read_lines(ours_out)]
            b = [list(map(float, l.split())) for l in read_lines(peer_out)]
            worst = max(abs(x - y) / max(1.0, abs(y)) for ra, rb in zip(a, b) for x, y in zip(ra, rb))
            return f"centroids within {worst:.1e}" + ("" if worst < 1e-6 else " (DIFFERENT)")
        return f"cost ratio {peer_record.get('cost', float('nan')) / our_record['cost']:.4f}"
    return ""


# ---- the driver --------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--dir", type=Path, default=Path("target/jobs-bench"))
    parser.add_argument("--size", default="64MB")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--peers", default="spark,polars,duckdb,ripgrep,sklearn,numpy")
    parser.add_argument("--jobs", default=",".join(JOBS))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", nargs=2, metavar=("PEER", "JOB"), help=argparse.SUPPRESS)
    parser.add_argument("--files", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        peer, job = options.worker
        records = worker(peer, job, json.loads(options.files), options.out, options.threads, options.repetitions)
        print(json.dumps(records))
        return 0

    folder = options.dir / options.size
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, kind, extra in (("text", "text", []), ("train", "reviews", ["--seed", "7"]), ("reviews", "reviews", []),
                              ("vectors", "vectors", []), ("keys", "keys", [])):
        path = folder / f"{name}.txt"
        if not path.exists():
            subprocess.run([options.binary, "jobs", "generate", kind, "-o", str(path), "--size", options.size,
                            "--no-progress", *extra], check=True, stdout=subprocess.DEVNULL)
        files[name] = str(path)
    initial = folder / "initial.txt"
    if not initial.exists():
        with open(files["vectors"]) as f:
            initial.write_text("".join(next(f) for _ in range(8)))
    files["initial"] = str(initial)

    peers = set(options.peers.split(","))
    threads, reps = options.threads, options.repetitions
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), SMARTARRAYS_THREADS=str(threads))
    results = []
    print(f"jobs side by side: {options.size} inputs, {threads} threads, median of {reps} runs; load {os.getloadavg()[0]:.2f}")
    for job in options.jobs.split(","):
        variants = [("smartarrays", False)] + ([("smartarrays (given centroids)", True)] if job == "kmeans" else [])
        ours_runs = {}
        for name, given in variants:
            runs = [ours(options.binary, job, files, str(folder / f"ours-{job}{'-given' if given else ''}.out"), threads, given)
                    for _ in range(reps)]
            record = dict(runs[0][0])
            record.update(total_s=statistics.median(r[0]["total_s"] for r in runs), wall_s=statistics.median(r[1] for r in runs),
                          rss=max(max(r[2], r[0].get("peak_rss_bytes", 0)) for r in runs),
                          process_cpu_s=statistics.median(r[3] for r in runs), output=str(folder / f"ours-{job}{'-given' if given else ''}.out"))
            ours_runs[given] = record
            results.append({**record, "job": job, "tool": name})
        base = ours_runs[False]
        line = (f"{job:>12}  smartarrays {base['total_s']:8.3f} s  {base['rss'] / 2**20:8.1f} MiB  "
                f"{base['process_cpu_s']:7.2f} CPU s per run")
        if job == "kmeans":
            line += f"   (given centroids {ours_runs[True]['total_s']:.3f} s; k-means|| passes over the points {base['init_passes']})"
        print(line)
        for peer in PEERS_OF[job]:
            if peer not in peers:
                continue
            out = folder / f"{peer}-{job}.out"
            try:
                stdout, wall, rss, cpu = measured([sys.executable, __file__, "--worker", peer, job, "--files", json.dumps(files),
                                              "--out", str(out), "--threads", str(threads), "--repetitions", str(reps)], env=env)
            except RuntimeError as error:
                print(f"{'':>12}  {peer}: failed: {str(error)[-400:]}")
                results.append({"job": job, "tool": peer, "error": str(error)[-2000:]})
                continue
            records = json.loads(stdout.strip().splitlines()[-1])
            total = statistics.median(r["total_s"] if "total_s" in r else r["job_s"] for r in records)
            rss = max([rss] + [r.get("peak_rss_bytes", 0) for r in records])
            record = dict(records[-1], total_s=total, wall_s=wall, rss=rss, process_cpu_s=cpu / len(records))
            if peer == "sklearn" and job == "kmeans":
                record["initial"] = files["initial"]
                compared = ours_runs[True]
            else:
                compared = base
            peer_out = Path(record.get("output", out))
            agrees = agreement(job, Path(compared["output"]), peer_out, compared, record)
            ratio = total / compared["total_s"]
            extra = f", start-up {record['startup_s']:.1f} s apart" if "startup_s" in record else ""
            cpu_ratio = record["process_cpu_s"] / max(compared["process_cpu_s"], 1e-9)
            print(f"{'':>12}  {peer:<11} {total:8.3f} s  {rss / 2**20:8.1f} MiB  {record['process_cpu_s']:7.2f} CPU s per run   "
                  f"{ratio:6.1f}x our time, {rss / max(compared['rss'], 1):5.1f}x our memory, {cpu_ratio:5.1f}x our CPU; "
                  f"{agrees}{extra}")
            results.append({**record, "job": job, "tool": peer, "ratio": ratio, "cpu_ratio": cpu_ratio, "agreement": agrees})
    if options.json:
        options.json.write_text(json.dumps({"size": options.size, "threads": threads, "repetitions": reps,
                                            "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
