#!/usr/bin/env python3
"""Every job of `smartarrays jobs` against a plain Python reference, through the command line.

    python3 check_reference.py target/release/smartarrays

Small generated inputs (and a few hand-made edge cases: an empty file, one line, no trailing
newline, repeated spaces) go through `smartarrays jobs ... -o FILE` on 1 and 2 threads; each
output file must equal what a few lines of Python compute: word counts with `collections.Counter`,
`"The" in line`, `sorted()`, a multinomial naive Bayes in dictionaries (scikit-learn's formulas),
and Lloyd iterations from the same initial centroids (to 1e-9). Standard library only.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path


def run(binary: str, *args: str) -> str:
    result = subprocess.run([binary, "jobs", *args, "--no-progress"], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"smartarrays jobs {' '.join(args)} failed:\n{result.stderr}")
    return result.stdout


def lines_of(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if data == b"" or data.endswith(b"\n"):
        lines.pop()
    return lines


def ref_wordcount(data: bytes) -> bytes:
    counts = Counter(w for line in lines_of(data) for w in line.split(b" ") if w)
    pairs = sorted(counts.items(), key=lambda p: (-p[1], p[0]))
    return b"".join(w + b"\t" + str(n).encode() + b"\n" for w, n in pairs)


def ref_grep(data: bytes, pattern: bytes = b"The") -> bytes:
    return b"".join(line + b"\n" for line in lines_of(data) if pattern in line)


def ref_sort(data: bytes) -> bytes:
    return b"".join(line + b"\n" for line in sorted(lines_of(data)))


def ref_sort_numeric(data: bytes) -> bytes:
    return b"".join(str(k).encode() + b"\n" for k in sorted(int(l) for l in lines_of(data)))


def ref_bayes(train: bytes, test: bytes, alpha: float = 1.0) -> bytes:
    docs, counts, vocabulary = Counter(), {}, set()
    for line in lines_of(train):
        label, text = line.split(b"\t", 1)
        docs[label] += 1
        words = [w for w in text.split(b" ") if w]
        counts.setdefault(label, Counter()).update(words)
        vocabulary.update(words)
    labels = sorted(docs)
    total = sum(docs.values())
    prior = {c: math.log(docs[c]) - math.log(total) for c in labels}
    denominator = {c: math.log(sum(counts[c].values()) + alpha * len(vocabulary)) for c in labels}
    out = []
    for line in lines_of(test):
        text = line.split(b"\t", 1)[1] if b"\t" in line else line
        scores = dict(prior)
        for word in (w for w in text.split(b" ") if w):
            if word in vocabulary:
                for c in labels:
                    scores[c] += math.log(counts[c][word] + alpha) - denominator[c]
        best = labels[0]
        for c in labels:
            if scores[c] > scores[best]:
                best = c
        out.append(best + b"\n")
    return b"".join(out)


def ref_lloyd(points: list[list[float]], centres: list[list[float]], iterations: int) -> list[list[float]]:
    for _ in range(iterations):
        sums = [[0.0] * len(centres[0]) for _ in centres]
        counts = [0] * len(centres)
        for p in points:
            distances = [sum((x - y) ** 2 for x, y in zip(p, c)) for c in centres]
            best = distances.index(min(distances))
            counts[best] += 1
            sums[best] = [s + x for s, x in zip(sums[best], p)]
        centres = [[s / counts[i] for s in sums[i]] if counts[i] else centres[i] for i in range(len(centres))]
    return centres


def parse_points(data: bytes) -> list[list[float]]:
    return [[float(x) for x in line.split()] for line in lines_of(data)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", help="the smartarrays binary")
    binary = parser.parse_args().binary
    failures, checks = [], 0
    with tempfile.TemporaryDirectory(prefix="jobs-check-") as folder:
        folder = Path(folder)

        def generate(kind: str, size: str, *extra: str) -> Path:
            path = folder / f"{kind}-{size}{''.join(extra)}.txt"
            run(binary, "generate", kind, "-o", str(path), "--size", size, *extra)
            return path

        def made(name: str, data: bytes) -> Path:
            path = folder / name
            path.write_bytes(data)
            return path

        text_inputs = [generate("text", "300KB", "--vocabulary", "2000"), made("empty.txt", b""),
                       made("one.txt", b"The one line"), made("edges.txt", b"  The  cat\n\nthe hat \nThere x")]
        for threads in ("1", "2"):
            def check(name: str, args: list[str], expected: bytes) -> None:
                nonlocal checks
                checks += 1
                output = folder / "out.txt"
                run(binary, *args, "--threads", threads, "-o", str(output))
                if output.read_bytes() != expected:
                    failures.append(f"{name} (threads {threads}): {' '.join(args)}")

            for path in text_inputs:
                data = path.read_bytes()
                check("wordcount", ["wordcount", str(path)], ref_wordcount(data))
                check("grep", ["grep", str(path)], ref_grep(data))
                check("grep a b", ["grep", str(path), "--pattern", "a b"], ref_grep(data, b"a b"))
                check("sort", ["sort", str(path)], ref_sort(data))
            vectors = generate("vectors", "200KB", "--dims", "3")
            check("sort vectors", ["sort", str(vectors)], ref_sort(vectors.read_bytes()))
            for bits in ("7", "33", "64"):
                keys = generate("keys", "100KB", "--key-bits", bits)
                check(f"sort --numeric {bits}", ["sort", "--numeric", str(keys)], ref_sort_numeric(keys.read_bytes()))
            train = generate("reviews", "300KB", "--vocabulary", "500", "--classes", "3")
            test = generate("reviews", "100KB", "--vocabulary", "500", "--classes", "3", "--seed", "2")
            for alpha in ("1", "0.5"):
                check(f"bayes alpha {alpha}", ["bayes", "--train", str(train), str(test), "--alpha", alpha],
                      ref_bayes(train.read_bytes(), test.read_bytes(), float(alpha)))
            # k-means from given centroids: numbers, compared to 1e-9.
            points = parse_points(vectors.read_bytes())
            initial = points[:8]
            centroids_file = made("initial.txt", b"".join(" ".join(map(repr, p)).encode() + b"\n" for p in initial))
            expected = ref_lloyd(points, initial, 4)
            output = folder / "centroids.txt"
            run(binary, "kmeans", str(vectors), "--centroids", str(centroids_file), "--threads", threads, "-o", str(output))
            found = parse_points(output.read_bytes())
            checks += 1
            if len(found) != len(expected) or any(
                abs(a - b) > 1e-9 * max(1.0, abs(b)) for fr, er in zip(found, expected) for a, b in zip(fr, er)
            ):
                failures.append(f"kmeans from given centroids (threads {threads})")
        # A malformed line is named.
        bad = made("bad-keys.txt", b"1\n2\nthree\n")
        result = subprocess.run([binary, "jobs", "sort", "--numeric", str(bad)], capture_output=True, text=True)
        checks += 1
        if result.returncode == 0 or f"{bad}:3:" not in result.stderr:
            failures.append(f"a malformed key line is not named: {result.stderr.strip()}")
    for failure in failures:
        print(f"check-reference: DIFFERS: {failure}", file=sys.stderr)
    print(f"jobs: {checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
