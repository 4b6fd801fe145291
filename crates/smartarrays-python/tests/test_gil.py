"""The GIL is released while the core works: a Python thread keeps running during long native
calls (building, summing, decoding)."""

import threading

import numpy as np

import smartarrays as sa


def test_other_python_threads_run_during_native_work() -> None:
    values = np.arange(4_000_000, dtype=np.uint64)
    a = sa.array(values, bits=33)
    ticks = 0
    stop = threading.Event()

    def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        before = ticks
        for _ in range(20):
            assert a.sum(threads=1) == int(values.sum())
            a.to_numpy()
        during = ticks - before
    finally:
        stop.set()
        thread.join()
    # With the GIL held for whole calls the ticker could only run between them (a few hundred
    # ticks at most); released, it counts freely.
    assert during > 10_000, during
