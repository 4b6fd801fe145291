"""Regressions of what the coverage-guided fuzz target `python_constructors`
(fuzz/python/constructors.py, docs/fuzzing.md) found: each test is named after its bug. Bugs
that took the interpreter down run in a child interpreter, so a regression fails one test
instead of the whole session."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_child(code: str, timeout: float = 120) -> None:
    """Runs `code` in a fresh interpreter; fails with its output unless it exits cleanly."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"exit status {result.returncode}\n{result.stdout}\n{result.stderr}"


def test_huge_len_of_an_iterable_aborted_the_interpreter() -> None:
    """`sa.array(range(3, 2**40 + 3))` aborted Python ("memory allocation of 8796093022208 bytes
    failed"): the collecting vector trusted len(). A __len__ of 2**62 panicked ("capacity
    overflow"), and range(2**70), whose len() overflows, was iterated until memory ran out."""
    run_child(
        """
        import pytest, smartarrays as sa

        class Lying:
            def __init__(self, length):
                self.length = length
            def __len__(self):
                return self.length
            def __iter__(self):
                return iter([1, 2, 3])

        for values in (range(3, 2**40 + 3), range(2**70), range(0, -2**50, -1), Lying(2**40), Lying(2**62)):
            with pytest.raises(MemoryError, match="memory|fit"):
                sa.array(values)
        # A wrong but possible hint, or a failing one, is only a hint.
        for length in (0, 10, 1_000_000, -1):
            assert sa.array(Lying(length)).tolist() == [1, 2, 3]
        assert sa.array(x for x in range(5000)).sum() == 4999 * 5000 // 2
        """
    )


def test_bool_buffers_with_bytes_other_than_0_and_1_gave_those_bytes() -> None:
    """A bool buffer is read as booleans: `sa.array(np.frombuffer(b"\\x02\\x00\\x05", bool))`
    gave [2, 0, 5] (at 3 bits) where numpy's astype and memoryview.tolist() give [1, 0, 1]."""
    import numpy as np

    import smartarrays as sa

    raw = b"\x02\x00\x05\xff\x01"
    for values in (np.frombuffer(raw, dtype=bool), memoryview(raw).cast("?"), np.frombuffer(raw, dtype=bool)[::-2]):
        a = sa.array(values)
        assert a.tolist() == np.asarray(values).astype(np.uint64).tolist() == [int(bool(v)) for v in values.tolist()]
        assert a.bits == 1
