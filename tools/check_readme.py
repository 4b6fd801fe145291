#!/usr/bin/env python3
"""Runs the README's Python and command-line examples as written, so they stay true.

    python3 tools/check_readme.py --python .venv/bin/python --bin-dir target/release README.md

`python` blocks run with the given interpreter; `sh` blocks whose every command starts with
`smartarrays ` run with the binary from --bin-dir first on the PATH (blocks of `make` commands are
documentation of the build, not examples). Each block runs in a fresh temporary folder, so files
one command writes are there for the next. Rust blocks are doctests of their crates.

With --library (libsmartarrays.so) and --include (the C header's folder), `c` and `cpp` blocks
are compiled as the body of `main` (after the standard headers and the library's own header) and
run; with --java-home (a JDK 25) and --java-jar (the binding's jar), `java` blocks run as the body
of `main` (leading `import` lines are kept at the top) through the JDK's source launcher. A block
that is a whole program (it has its own `main`) is compiled as it stands.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

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


C_PRELUDE = "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <smartarrays.h>\n"
CPP_PRELUDE = (
    "#include <cstdint>\n#include <iostream>\n#include <numeric>\n#include <string>\n#include <vector>\n"
    "#include <smartarrays/smartarrays.hpp>\n"
)


def compile_native(language: str, code: str, folder: Path, options: argparse.Namespace) -> list[str]:
    """Writes the block as a program, compiles it against the library; returns how to run it."""
    whole = "int main(" in code
    if language == "c":
        source, compiler, standard = folder / "example.c", "cc", "-std=c11"
        text = C_PRELUDE + (code if whole else f"int main(void) {{\n{code}\nreturn 0;\n}}\n")
    else:
        source, compiler, standard = folder / "example.cpp", "c++", "-std=c++17"
        text = CPP_PRELUDE + (code if whole else f"int main() {{\n{code}\nreturn 0;\n}}\n")
    source.write_text(text)
    library = options.library.resolve()
    includes = [f"-I{path.resolve()}" for path in options.include]
    build = [compiler, standard, "-Wall", *includes, str(source), "-o", str(folder / "example"),
             str(library), f"-Wl,-rpath,{library.parent}"]
    built = subprocess.run(build, capture_output=True, text=True)
    if built.returncode != 0:
        return ["sh", "-c", f"echo {shlex.quote(built.stderr[-4000:])} >&2; exit 1"]
    return [str(folder / "example")]


def java_program(code: str, folder: Path, options: argparse.Namespace) -> list[str]:
    """Writes the block as Example.java (body of main unless it has its own); returns its launch."""
    lines = code.splitlines()
    imports = [l for l in lines if l.startswith("import ")]
    body = "\n".join(l for l in lines if not l.startswith("import "))
    if "static void main(" in code:
        text = code
    else:
        text = (
            "import org.smartarrays.*;\nimport java.lang.foreign.*;\n" + "\n".join(imports)
            + "\npublic class Example {\n    public static void main(String[] args) throws Exception {\n"
            + body + "\n    }\n}\n"
        )
    (folder / "Example.java").write_text(text)
    java = options.java_home.resolve() / "bin" / "java"
    return [str(java), "--enable-native-access=ALL-UNNAMED", "-cp", str(options.java_jar.resolve()),
            f"-Dsmartarrays.library={options.library.resolve() if options.library else ''}",
            str(folder / "Example.java")]


# Given the example's own (empty) folder, writes what it needs there and returns the command
# line that runs it.
Launch = Callable[[Path], list[str]]


def launcher(language: str, code: str, python: str, options: argparse.Namespace) -> Launch | None:
    """How a block of `language` runs, or None when it is not an example this run can run.

    The one place a block's language is looked at: which blocks count as examples (Python;
    `sh` of `smartarrays` commands only; C, C++ and Java only with their library, headers, JDK
    and jar given) and how each kind is built and started.
    """
    if language == "python":
        return lambda folder: [python, "-c", code]
    if language == "sh" and all(c.lstrip().startswith("smartarrays ") for c in commands(code)):
        return lambda folder: ["bash", "-euo", "pipefail", "-c", code]
    if language in ("c", "cpp") and options.library:
        return lambda folder: compile_native(language, code, folder, options)
    if language == "java" and options.java_home and options.java_jar:
        return lambda folder: java_program(code, folder, options)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="interpreter with smartarrays installed")
    parser.add_argument("--bin-dir", required=True, help="folder holding the smartarrays binary")
    parser.add_argument("--library", type=Path, help="libsmartarrays.so, to compile C and C++ blocks")
    parser.add_argument("--include", action="append", type=Path, default=[], help="header folder (repeatable)")
    parser.add_argument("--java-home", type=Path, help="a JDK 25, to run Java blocks")
    parser.add_argument("--java-jar", type=Path, help="the Java binding's jar")
    parser.add_argument("files", nargs="+", type=Path)
    options = parser.parse_args()
    bin_dir = Path(options.bin_dir).resolve()
    python = str(Path(options.python).absolute())
    if not (bin_dir / "smartarrays").is_file():
        print(f"check-readme: {bin_dir}/smartarrays is missing: build it first", file=sys.stderr)
        return 2
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    examples = []
    for path in options.files:
        for language, line, code in blocks(path.read_text()):
            launch = launcher(language, code, python, options)
            if launch is not None:
                examples.append((path, line, language, launch))

    def run(example: tuple[Path, int, str, Launch]) -> tuple[subprocess.CompletedProcess, float]:
        """Compiles (C, C++, Java) and runs one example in a folder of its own."""
        _, _, _, launch = example
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="readme-") as folder:
            argv = launch(Path(folder))
            result = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        return result, time.monotonic() - started

    # Two at a time: each example is one process in a folder of its own, and most are
    # single-threaded.
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for (path, line, language, _), (result, seconds) in zip(examples, pool.map(run, examples)):
            if seconds > 30:
                print(f"check-readme: {path}:{line}: the {language} example took {seconds:.0f} s")
            if result.returncode != 0:
                failed += 1
                print(f"check-readme: {path}:{line}: the {language} example failed (exit {result.returncode}):", file=sys.stderr)
                print(result.stdout[-2000:] + result.stderr[-4000:], file=sys.stderr)
    ran = len(examples)
    print(f"check-readme: {ran - failed} of {ran} examples ran as written")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
