"""The type stubs match the native module (mypy's stubtest) and type-check a typical use."""

import pathlib
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("mypy")

USE = textwrap.dedent(
    """
    import numpy as np
    import smartarrays as sa

    a: sa.SmartArray = sa.array(np.arange(10, dtype=np.uint64), placement="os", bits=33)
    first: int = a[0]
    part: np.ndarray = a[1:3]
    total: int = a.sum(threads=1)
    low, high = a.minmax()
    pages: int = a.placement_report()["replicas"][0]["pages"]
    names: list[str] = sa.table({"a": a}).columns
    node: int = sa.topology()["nodes"][0]["id"]
    """
)


def test_stubtest_finds_no_difference(tmp_path: pathlib.Path) -> None:
    # Run in a scratch folder: mypy leaves its cache in the working directory.
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "smartarrays"], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_typical_use_type_checks(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "use.py"
    script.write_text(USE)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
