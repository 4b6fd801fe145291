#!/usr/bin/env python3
"""Checks the workspace's declared `rust-version` against what the lockfile really needs.

Fails (exit 1) when any resolved package declares a newer `rust-version` than the workspace,
naming the packages, or when the installed rustc is older than the workspace's rust-version.

    python3 tools/check_msrv.py            # run by `make test` (target check-msrv)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def main() -> int:
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            stdout=subprocess.PIPE,
        ).stdout
    )
    resolved = {node["id"] for node in metadata["resolve"]["nodes"]}
    members = set(metadata["workspace_members"])
    packages = [p for p in metadata["packages"] if p["id"] in resolved]
    declared = {version(p["rust_version"]) for p in packages if p["id"] in members and p.get("rust_version")}
    if len(declared) != 1:
        print(f"check-msrv: workspace members declare differing rust-versions: {sorted(declared)}")
        return 1
    workspace = declared.pop()
    needs = sorted(
        (version(p["rust_version"]), f"{p['name']} {p['version']}")
        for p in packages
        if p["id"] not in members and p.get("rust_version")
    )
    too_new = [(v, name) for v, name in needs if v > workspace]
    shown = ".".join(map(str, workspace))
    if too_new:
        listed = ", ".join(f"{name} needs {'.'.join(map(str, v))}" for v, name in too_new)
        print(f"check-msrv: the workspace declares rust-version {shown}, but {listed}")
        return 1
    rustc = subprocess.run(["rustc", "--version"], check=True, stdout=subprocess.PIPE, text=True).stdout
    if version(rustc.split()[1]) < workspace:
        print(f"check-msrv: {rustc.strip()} is older than the workspace's rust-version {shown}")
        return 1
    highest = needs[-1] if needs else (workspace, "none")
    print(
        f"check-msrv: rust-version {shown} covers all {len(needs)} dependencies that declare one "
        f"(highest: {highest[1]} needs {'.'.join(map(str, highest[0]))}); {rustc.strip()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
