#!/usr/bin/env python3
"""Runs the README's Python and command-line examples as written, so they stay true.

    python3 tools/check_readme.py --python .venv/bin/python --bin-dir target/release README.md

`python` blocks run with the given interpreter; `sh` blocks whose every command starts with
`smartarrays ` run with the binary from --bin-dir first on the PATH (blocks of `make` commands are
documentation of the build, not examples). Each block runs in a fresh temporary folder, so files
one command writes are there for the next. Rust blocks are doctests of the core crate; C, C++ and
Java blocks are compiled by their own test suites' equivalents.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(text: str) -> list[tuple[str, int, str]]:
    """(language, first line number, code) of every fenced block."""
    found, language, start, lines = [], None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match and language is None:
            language, start, lines = match.group(1), number + 1, []
        elif line.startswith("```") and language is not None:
            found.append((language, start, "\n".join(lines) + "\n"))
            language = None
        elif language is not None:
            lines.append(line)
    return found


def commands(code: str) -> list[str]:
    return [l for l in code.splitlines() if l.strip() and not l.lstrip().startswith("#")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="interpreter with smartarrays installed")
    parser.add_argument("--bin-dir", required=True, help="folder holding the smartarrays binary")
    parser.add_argument("files", nargs="+", type=Path)
    options = parser.parse_args()
    bin_dir = Path(options.bin_dir).resolve()
    python = str(Path(options.python).absolute())
    if not (bin_dir / "smartarrays").is_file():
        print(f"check-readme: {bin_dir}/smartarrays is missing: build it first", file=sys.stderr)
        return 2
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    ran = failed = 0
    for path in options.files:
        for language, line, code in blocks(path.read_text()):
            if language == "python":
                argv = [python, "-c", code]
            elif language == "sh" and all(c.lstrip().startswith("smartarrays ") for c in commands(code)):
                argv = ["bash", "-euo", "pipefail", "-c", code]
            else:
                continue
            ran += 1
            with tempfile.TemporaryDirectory(prefix="readme-") as folder:
                result = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                failed += 1
                print(f"check-readme: {path}:{line}: the {language} example failed (exit {result.returncode}):", file=sys.stderr)
                print(result.stdout[-2000:] + result.stderr[-4000:], file=sys.stderr)
    print(f"check-readme: {ran - failed} of {ran} examples ran as written")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
