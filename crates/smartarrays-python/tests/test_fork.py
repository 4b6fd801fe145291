"""The library works in processes forked after the parent used it (multiprocessing's default
start method on Linux, gunicorn, celery and data-loader workers): the runtime starts its
threads again in the child instead of waiting forever on the parent's."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest
import smartarrays as sa


def _sum_in_child(args: tuple[sa.SmartArray, int | None]) -> int:
    array, threads = args
    return array.sum(threads=threads)


@pytest.mark.parametrize("threads", [None, 1, 3])
def test_forked_workers_sum_after_the_parent_did(threads: int | None) -> None:
    values = np.arange(200_001, dtype=np.uint64) % 1000
    a = sa.array(values, bits=10)
    expected = int(values.sum())
    assert a.sum() == expected and a.sum(threads=3) == expected  # the parent's pools are running
    context = mp.get_context("fork")
    with context.Pool(2) as pool:
        result = pool.map_async(_sum_in_child, [(a, threads)] * 4)
        assert result.get(timeout=60) == [expected] * 4


def _build_in_child(length: int) -> tuple[int, int]:
    b = sa.array(np.arange(length, dtype=np.uint64), placement="interleaved")
    return b.sum(), b.max()


def test_forked_children_build_new_arrays() -> None:
    assert sa.array([1, 2, 3]).sum() == 6
    with mp.get_context("fork").Pool(2) as pool:
        results = pool.map_async(_build_in_child, [10, 70_001]).get(timeout=60)
    assert results == [(45, 9), (70_000 * 70_001 // 2, 70_000)]


def test_absurd_thread_counts_are_refused_at_once() -> None:
    for threads in (10**6, 2**40):
        with pytest.raises(ValueError, match="at most 64 per CPU"):
            sa.array(range(10), threads=threads)
    with pytest.raises(ValueError, match="at most 64 per CPU"):
        sa.array(range(10)).sum(threads=10**6)
