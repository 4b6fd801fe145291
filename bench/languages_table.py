#!/usr/bin/env python3
"""bench/languages_table.py: prints the table of bench/languages.sh from the collected lines.

Input lines (one per measured variant, from every language's part of the benchmark):
  RESULT language=<l> variant=<v> bits=<b> ns_per_element=<x> [best_ns_per_element=<y>] [n=|elements=<N>] ...
  SKIPPED language=<l> reason=<free text to the end of the line>
The best time is used when a part reports both a median and a best. For each language the
baseline is its own array (Vec, std::vector, numpy, long[]); "speed" is baseline ns / variant ns
(above 1 is faster than the baseline); "vs 64-bit" is a compressed row's ns over the same
variant's 64-bit ns. Goals (issue 5): Java through smartarrays >= 0.8x long[]; Python sum() >=
1.0x numpy; C++ iteration >= 0.9x std::vector; compressed within 1.3x of uncompressed.
Standard library only.
"""

from __future__ import annotations

import re
import sys

BASELINE = re.compile(r"^(vec|vector|std_?vector|numpy(_sum)?|long_array|.*baseline.*)$")
# The variant each goal is about, per language: (pattern over the variant family, minimum speed).
HEADLINE = {
    "java": (re.compile(r"^smartarray_cursor$"), 0.8),
    "python": (re.compile(r"^smartarrays_sum$"), 1.0),
    "cpp": (re.compile(r"iter"), 0.9),
    "rust": (re.compile(r"^smartarray_sum$"), None),
}
COMPRESSED_LIMIT = 1.3
ORDER = ["rust", "cpp", "python", "java"]


def parse(path: str) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    rows, skipped = [], []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            kind, _, rest = line.strip().partition(" ")
            fields = dict(token.split("=", 1) for token in rest.split() if "=" in token)
            if kind == "RESULT" and {"language", "variant"} <= fields.keys():
                rows.append(fields)
            elif kind == "SKIPPED":
                skipped.append((fields.get("language", "?"), rest.partition("reason=")[2]))
    return rows, skipped


def family(variant: str) -> str:
    """The variant's name without a trailing _compressed/_uncompressed, so 33- and 64-bit rows pair up."""
    return re.sub(r"_(un)?compressed$", "", variant)


def main(path: str) -> int:
    rows, skipped = parse(path)
    for row in rows:
        row["ns"] = float(row.get("best_ns_per_element", row.get("ns_per_element", "nan")))
        row["bits"] = row.get("bits", "64")
        row["family"] = family(row["variant"])
    languages = sorted({r["language"] for r in rows}, key=lambda l: (ORDER.index(l) if l in ORDER else len(ORDER), l))
    counts = sorted({r.get("n", r.get("elements", "?")) for r in rows})
    print()
    print(
        f"Single-threaded sum of {', '.join(counts)} values per language (SMARTARRAYS_THREADS=1), best of the timed runs; "
        "speed = the language's own array's time / the variant's time"
    )
    header = f"{'language':<9} {'variant':<30} {'bits':>4} {'ns/element':>11} {'speed vs baseline':>18} {'vs 64-bit':>10}  goal"
    print(header)
    print("-" * len(header))
    verdicts = []
    for language in languages:
        mine = [r for r in rows if r["language"] == language]
        baseline = next((r for r in mine if BASELINE.match(r["variant"])), None)
        headline, minimum = HEADLINE.get(language, (None, None))
        for row in mine:
            speed = baseline["ns"] / row["ns"] if baseline and row["ns"] > 0 else float("nan")
            uncompressed = next((r for r in mine if r["family"] == row["family"] and r["bits"] == "64"), None)
            versus = row["ns"] / uncompressed["ns"] if uncompressed and row["bits"] != "64" and uncompressed["ns"] > 0 else None
            goal = ""
            if row is baseline:
                goal = "baseline"
            elif headline is not None and headline.search(row["family"]):
                checks = []
                if minimum is not None and row["bits"] == "64":
                    met = speed >= minimum
                    checks.append(f">= {minimum}x: {'met' if met else 'NOT met'}")
                    verdicts.append((language, f"{row['variant']} at 64 bits is {speed:.2f}x {baseline['variant']} (goal >= {minimum}x)", met))
                if versus is not None:
                    met = versus <= COMPRESSED_LIMIT
                    checks.append(f"<= {COMPRESSED_LIMIT}x of 64-bit: {'met' if met else 'NOT met'}")
                    verdicts.append((language, f"{row['variant']} at {row['bits']} bits takes {versus:.2f}x its 64-bit time (goal <= {COMPRESSED_LIMIT}x)", met))
                goal = "; ".join(checks)
            print(
                f"{language:<9} {row['variant']:<30} {row['bits']:>4} {row['ns']:>11.4f} {speed:>17.2f}x "
                f"{(f'{versus:.2f}x' if versus is not None else ''):>10}  {goal}"
            )
    print()
    for language, reason in skipped:
        print(f"skipped {language}: {reason}")
    for language, text, met in verdicts:
        print(f"goal {'met    ' if met else 'NOT met'}  {language}: {text}")
    if not rows:
        print("no language produced results")
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: languages_table.py RESULTS_FILE")
    sys.exit(main(sys.argv[1]))
