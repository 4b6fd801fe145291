"""Indexing like a one-dimensional numpy array: ints (negative too), slices of every step,
integer and boolean index arrays, assignment, iteration, repr, pickling, numpy conversion."""

import pickle

import numpy as np
import pytest

import smartarrays as sa
from conftest import reference_values

VALUES = reference_values(1025, 13)
ARRAY = sa.array(VALUES, bits=13)


@pytest.mark.parametrize("index", [0, 1, 63, 64, 65, 1023, 1024, -1, -64, -1025])
def test_int_indices(index: int) -> None:
    assert ARRAY[index] == int(VALUES[index])
    assert isinstance(ARRAY[index], int)
    assert ARRAY[np.int64(index)] == int(VALUES[index])


@pytest.mark.parametrize("index", [1025, 5000, -1026, 1 << 70, -(1 << 70)])
def test_out_of_range_indices_raise_index_error(index: int) -> None:
    with pytest.raises(IndexError, match="out of range for an array of length 1025"):
        ARRAY[index]


@pytest.mark.parametrize(
    "key",
    [
        slice(None),
        slice(10, 20),
        slice(-5, None),
        slice(None, None, 2),
        slice(None, None, -1),
        slice(1000, 10, -7),
        slice(64, 65),
        slice(500, 400),
        slice(-2000, 2000, 64),
        slice(3, 1024, 1000),
    ],
)
def test_slices_match_numpy(key: slice) -> None:
    got = ARRAY[key]
    assert isinstance(got, np.ndarray) and got.dtype == np.uint64
    np.testing.assert_array_equal(got, VALUES[key])


def test_index_arrays_and_masks() -> None:
    idx = np.array([0, -1, 5, 5, 1024])
    np.testing.assert_array_equal(ARRAY[idx], VALUES[idx])
    np.testing.assert_array_equal(ARRAY[[3, 2, 1]], VALUES[[3, 2, 1]])
    np.testing.assert_array_equal(ARRAY[np.array([], dtype=np.int64)], VALUES[[]])
    mask = VALUES % 3 == 0
    np.testing.assert_array_equal(ARRAY[mask], VALUES[mask])
    with pytest.raises(IndexError, match="boolean index of length 2"):
        ARRAY[np.array([True, False])]
    with pytest.raises(IndexError, match="index 1025 is out of range"):
        ARRAY[[0, 1025]]
    with pytest.raises(IndexError, match="one-dimensional"):
        ARRAY[1, 2]
    with pytest.raises(IndexError, match="only integers"):
        ARRAY[np.array([1.5])]


def test_assignment_writes_every_replica_and_refuses_bad_values() -> None:
    a = sa.array(VALUES, bits=13, placement="replicated")
    a[7] = 8191
    a[-1] = 0
    assert a[7] == 8191 and a[1024] == 0
    expected = VALUES.copy()
    expected[7], expected[-1] = 8191, 0
    np.testing.assert_array_equal(a.to_numpy(), expected)
    with pytest.raises(ValueError, match="does not fit in 13 bits"):
        a[0] = 8192
    with pytest.raises(ValueError, match="outside 0 to 2\\*\\*64-1"):
        a[0] = -1
    with pytest.raises(TypeError, match="must be integers"):
        a[0] = "x"
    with pytest.raises(IndexError):
        a[1025] = 1
    np.testing.assert_array_equal(a.to_numpy(), expected)


def test_iteration_repr_pickle_and_numpy_protocol() -> None:
    assert list(ARRAY) == VALUES.tolist()
    assert repr(sa.array([1, 2, 3])) == "SmartArray([1, 2, 3], len=3, bits=2, placement='interleaved')"
    assert repr(ARRAY).startswith("SmartArray([8191, ") and "..., " in repr(ARRAY)
    copy = pickle.loads(pickle.dumps(ARRAY))
    assert copy.bits == 13 and copy.placement == "interleaved"
    np.testing.assert_array_equal(copy.to_numpy(), VALUES)
    np.testing.assert_array_equal(np.asarray(ARRAY), VALUES)
    assert np.asarray(ARRAY, dtype=np.int64).dtype == np.int64
    with pytest.raises(ValueError, match="decoded copy"):
        np.asarray(ARRAY, copy=False)
    assert ARRAY.ndim == 1 and ARRAY.dtype == np.dtype("uint64")


def test_loops_may_write_what_they_read() -> None:
    a = sa.array(np.arange(3000, dtype=np.uint64), bits=13)
    for index, value in enumerate(a):
        a[index] = value + 1
    np.testing.assert_array_equal(a.to_numpy(), np.arange(1, 3001))
    iterator = iter(sa.array([]))
    with pytest.raises(StopIteration):
        next(iterator)
