"""Indexing mistakes get numpy's kind of answer, assignment that is not supported says so, and a
write while the array is shared can wait instead of failing."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import smartarrays as sa


def test_non_integer_indices_are_index_errors_naming_the_type() -> None:
    a = sa.array([1, 2, 3])
    for key, name in ((1.0, "float"), (None, "NoneType"), ("0", "str"), (np.float64(2), "float64")):
        with pytest.raises(IndexError, match=f"only integers, slices .* are valid indices, not {name}"):
            a[key]
        with pytest.raises(IndexError, match="valid indices"):
            a[key] = 1
    assert a[np.int32(1)] == 2 and a[True] == 2  # integers of any kind still work


def test_slice_and_fancy_assignment_say_they_are_not_supported() -> None:
    a = sa.array(np.arange(10, dtype=np.uint64))
    for key in (slice(0, 3), [0, 1], np.array([2, 3])):
        with pytest.raises(TypeError, match="slice and fancy assignment .* are not supported"):
            a[key] = 5
    assert a.tolist() == list(range(10))  # nothing written
    with pytest.raises(IndexError, match=f"index {2**70} is out of range for an array of length 10"):
        a[2**70] = 1


def test_a_write_can_wait_for_a_scan_in_another_thread() -> None:
    a = sa.array(np.arange(20_000_000, dtype=np.uint64) % 1000, bits=10)
    scans = threading.Thread(target=lambda: [a.sum() for _ in range(20)])
    scans.start()
    time.sleep(0.01)
    refused = 0
    try:
        a[0] = 7
    except BufferError as error:
        refused = 1
        assert "timeout=seconds" in str(error)
    a.set(0, 7, timeout=60)  # waits for the scans, never fails while they finish
    scans.join()
    assert a[0] == 7
    assert refused in (0, 1)  # the scans may have finished first on a loaded machine
    with pytest.raises(ValueError, match="timeout=-1 is invalid"):
        a.set(0, 1, timeout=-1)
