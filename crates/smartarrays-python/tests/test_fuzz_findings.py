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

        for values in (range(3, 2**40 + 3), range(2**70), Lying(2**40), Lying(2**62)):
            with pytest.raises(MemoryError, match="memory|fit"):
                sa.array(values)
        # A range is computed, not collected: its first negative value is named at once.
        with pytest.raises(ValueError, match="value -1 at index 1 is negative"):
            sa.array(range(0, -2**50, -1))
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


class _Index:
    """An integer-like object (numpy integers, and any class with __index__, are read so)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_index_objects_and_ints_beyond_128_bits_were_type_errors() -> None:
    """`bits=` refused integer-like objects (`bits=Index(9)`: "bits must be ... not Index"), and
    integers too large for 128 bits were TypeErrors instead of ValueErrors: `bits=2**200` said
    "... not int", `a[0] = 2**200` "values must be integers", `sa.array([Index(2**200)])`
    "element 0 is Index, not an integer"."""
    import pytest

    import smartarrays as sa

    assert sa.array([1], bits=_Index(9)).bits == 9
    assert sa.array([1], compression=_Index(33)).bits == 33
    assert sa.zeros(3, _Index(7)).bits == 7
    for bits in (2**200, -(2**200), _Index(2**200), _Index(0), _Index(-1)):
        with pytest.raises(ValueError, match="bit width .* is invalid: it must be between 1 and 64"):
            sa.array([1], bits=bits)
    with pytest.raises(ValueError, match="at index 1 is outside 0 to 2\\*\\*64-1"):
        sa.array([1, _Index(2**200)])
    with pytest.raises(ValueError, match="value -3 at index 0 is negative"):
        sa.array([_Index(-3)])
    a = sa.array([1, 2], bits=8)
    for value in (2**200, -(2**200), _Index(2**70)):
        with pytest.raises(ValueError, match="outside 0 to 2\\*\\*64-1"):
            a[0] = value
    a[0] = _Index(3)
    a.set(1, _Index(4))
    assert a.tolist() == [3, 4]
    with pytest.raises(TypeError):
        sa.array([1], bits=2.0)
    with pytest.raises(TypeError, match="element 0 is float"):
        sa.array([1.0])


def test_zeros_and_from_packed_with_placement_auto_raised_runtime_error() -> None:
    """`sa.zeros(3, 5, placement="auto")` raised RuntimeError ("cannot resolve auto
    configuration ... none is installed") until some `sa.array(..., placement="auto")` had
    installed the advisor; so did `_from_packed` (pickle's constructor). Run in a fresh
    interpreter, where no advisor is installed yet."""
    run_child(
        """
        import numpy as np, smartarrays as sa
        from smartarrays import _native

        a = sa.zeros(3, 5, placement="auto")
        assert a.tolist() == [0, 0, 0] and a.bits == 5 and a.placement != "auto" and a.advice
        b = _native._from_packed(np.array([5 | 7 << 5], dtype=np.uint64), 2, 5, "auto")
        assert b.tolist() == [5, 7] and b.placement != "auto"
        """
    )


def test_zeros_of_absurd_length_with_placement_auto_ran_for_hours() -> None:
    """`sa.zeros(2**40, 1, placement="auto")` did not return (the fuzzer's 20-second timeout):
    the core generates every value to find the largest for the advisor before it allocates,
    where the other placements are refused at once with MemoryError."""
    import time

    import pytest

    import smartarrays as sa

    started = time.monotonic()
    for length, bits in ((2**40, 1), (2**63, 64), (2**64 - 1, 64)):
        with pytest.raises(MemoryError, match="not enough memory"):
            sa.zeros(length, bits, placement="auto")
    assert time.monotonic() - started < 10
    assert sa.zeros(1000, 3, placement="auto").sum() == 0


def test_set_with_a_timeout_beyond_the_clock_panicked() -> None:
    """`a.set(0, 1, timeout=1e300)` raised pyo3_runtime.PanicException ("cannot convert float
    seconds to Duration"), and timeout=9.3e18 panicked adding it to the clock: a timeout longer
    than a clock can count now waits as long as it takes."""
    import threading
    import time

    import smartarrays as sa

    a = sa.array([1, 2, 3], bits=8)
    for timeout in (1e300, 9.3e18, 1.8e19, float(2**64), 10**30):
        a.set(0, 9, timeout=timeout)
    assert a.tolist() == [9, 2, 3]
    # Shared by an Arrow stream: the write waits for the stream to go, however long the timeout.
    stream = a.__arrow_c_stream__()
    writer = threading.Thread(target=lambda: a.set(1, 7, timeout=1e300))
    writer.start()
    time.sleep(0.2)
    assert a[1] == 2  # still waiting
    del stream
    writer.join(timeout=30)
    assert not writer.is_alive() and a.tolist() == [9, 7, 3]


def test_del_of_an_item_raised_not_implemented_error() -> None:
    """`del a[0]` raised NotImplementedError ("can't delete item"), an exception for missing
    code; a fixed-length sequence refuses deletion with TypeError, as a tuple does."""
    import pytest

    import smartarrays as sa

    a = sa.array([1, 2, 3])
    for key in (0, -1, slice(0, 2), [0, 1], 10):
        with pytest.raises(TypeError, match="fixed length: items cannot be deleted"):
            del a[key]
    assert a.tolist() == [1, 2, 3]


def test_zero_dimensional_integer_arrays_were_refused_as_indices() -> None:
    """`a[np.array(1)]` raised IndexError ("only integers ... not ndarray") and `a[np.array(1)]
    = v` TypeError ("slice and fancy assignment"), where numpy and Python's own sequences take a
    zero-dimensional integer array as the integer it holds (it has __index__)."""
    import numpy as np
    import pytest

    import smartarrays as sa

    a = sa.array([10, 20, 30], bits=8)
    assert a[np.array(1)] == 20 == [10, 20, 30][np.array(1)]
    assert a[np.array(-1, dtype=np.int8)] == 30
    a[np.array(0)] = 5
    a.set(np.array(2, dtype=np.uint16), 7)
    assert a.tolist() == [5, 20, 7]
    for key in (np.array(3), np.array(-4), _Index(2**70)):
        with pytest.raises(IndexError, match="out of range"):
            a[key]
        with pytest.raises(IndexError, match="out of range"):
            a[key] = 1
    with pytest.raises(IndexError, match="valid indices, not ndarray"):
        a[np.array(1.0)]
    with pytest.raises(IndexError, match="valid indices, not ndarray"):
        a[np.array(1.0)] = 1
    with pytest.raises(TypeError, match="fancy assignment"):
        a[np.array([1])] = 1
    assert a.tolist() == [5, 20, 7]


def test_auto_width_with_a_node_the_machine_lacks_raised_runtime_error() -> None:
    """`sa.array(values, placement="node:1", compression="auto")` on a one-node machine raised
    RuntimeError ("cannot resolve auto configuration: invalid input: placement on node 1, which
    the machine does not have"), where any other width says ValueError ("NUMA node 1 does not
    exist")."""
    import pytest

    import smartarrays as sa

    nodes = [node["id"] for node in sa.topology()["nodes"]]
    missing = max(nodes) + 1
    for placement in (f"node:{missing}", f"interleaved:{nodes[0]},{missing}"):
        for width in ({"compression": "auto"}, {"bits": "auto"}, {"bits": 7}, {}):
            with pytest.raises(ValueError, match=f"NUMA node {missing} does not exist"):
                sa.array([1, 2], placement=placement, **width)
    a = sa.array([1, 2], placement=f"node:{nodes[0]}", bits="auto")
    assert a.tolist() == [1, 2] and a.placement == f"node:{nodes[0]}" and a.advice


def test_array_of_an_absurd_range_with_placement_auto_is_refused_at_once() -> None:
    """`sa.array(range(2**44), placement="auto")` ran past the fuzzer's timeout: with an exact
    width (or none) the core produced every value for the advisor before checking that the
    array could fit anywhere. The size is now checked first."""
    import time

    import pytest

    import smartarrays as sa

    started = time.monotonic()
    for bits in (8, 64, "minimal", "auto"):
        with pytest.raises(MemoryError, match="not enough memory"):
            sa.array(range(2**44), placement="auto", bits=bits)
    assert time.monotonic() - started < 10
    assert sa.array(range(1000), placement="auto", bits=16).sum() == 999 * 1000 // 2


def test_pickling_an_array_with_an_advised_width_kept_the_callers_placement() -> None:
    """`sa.array([], placement="os", bits="auto")` came back from pickle as `interleaved`: any
    array with advice travelled as placement "auto", even when only its width was advised. Now
    only a placement the advisor chose travels as "auto"."""
    import pickle

    import smartarrays as sa

    for placement in ("os", "interleaved", "replicated", "node:0"):
        for values in ([], [1], [5] * 100):
            a = sa.array(values, placement=placement, bits="auto")
            for protocol in range(6):
                b = pickle.loads(pickle.dumps(a, protocol=protocol))
                assert (b.placement, b.bits, b.tolist()) == (a.placement, a.bits, values), (placement, protocol)
