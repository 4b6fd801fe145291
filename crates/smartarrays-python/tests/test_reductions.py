"""Reductions against numpy: sum (modulo 2**64, like numpy's uint64 sum), min, max, minmax,
mean (from the exact sum), count_nonzero, on the array's runtime, the calling thread and
runtimes of other sizes; module-level thread settings."""

import numpy as np
import pytest

import smartarrays as sa
from conftest import reference_values


@pytest.mark.parametrize("threads", [None, 1, 2, 3])
@pytest.mark.parametrize("bits", [1, 17, 33, 64])
def test_reductions_match_numpy(threads: int | None, bits: int, placement: str) -> None:
    values = reference_values(200_003, bits, seed=3)
    a = sa.array(values, bits=bits, placement=placement)
    assert a.sum(threads=threads) == int(values.sum(dtype=np.uint64))
    assert a.min(threads=threads) == int(values.min())
    assert a.max(threads=threads) == int(values.max())
    assert a.minmax(threads=threads) == (int(values.min()), int(values.max()))
    assert a.count_nonzero(threads=threads) == int(np.count_nonzero(values))
    exact_mean = sum(int(v) for v in values[:1000]) / 1000
    assert sa.array(values[:1000]).mean(threads=threads) == pytest.approx(exact_mean, rel=1e-12)


def test_sum_wraps_like_numpy_and_mean_does_not() -> None:
    values = np.full(1000, (1 << 64) - 1, dtype=np.uint64)
    a = sa.array(values)
    assert a.sum() == int(values.sum(dtype=np.uint64)) == (1000 * ((1 << 64) - 1)) % (1 << 64)
    assert a.mean() == pytest.approx(float((1 << 64) - 1))


def test_empty_reductions() -> None:
    empty = sa.array(np.array([], dtype=np.uint64))
    assert empty.sum() == 0 and empty.sum(threads=1) == 0
    for method in (empty.min, empty.max, empty.minmax, empty.mean):
        with pytest.raises(ValueError, match="empty smart array"):
            method()


@pytest.mark.parametrize("threads", [0, -2])
def test_invalid_thread_counts(threads: int) -> None:
    a = sa.array([1, 2])
    for method in (a.sum, a.min, a.max, a.mean):
        with pytest.raises(ValueError, match=f"threads={threads} is invalid"):
            method(threads=threads)
    with pytest.raises(ValueError, match="is invalid"):
        sa.array([1], threads=threads)
    with pytest.raises(ValueError, match="is invalid"):
        sa.set_threads(threads)


def test_thread_settings_choose_the_runtime_of_new_arrays() -> None:
    default = sa.get_threads()
    assert default >= 1
    assert sa.array([1, 2], threads=3).threads == 3
    try:
        sa.set_threads(1)
        assert sa.get_threads() == 1
        a = sa.array(np.arange(100_000, dtype=np.uint64))
        assert a.threads == 1 and a.sum() == 99_999 * 100_000 // 2
    finally:
        sa.set_threads(None)
    assert sa.get_threads() == default
    assert sa.array([1]).threads == default
