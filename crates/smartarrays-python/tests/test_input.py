"""Where values come from: numpy arrays of every integer dtype (read in place), strided views,
other buffers (array.array, bytes, memoryview), lists, ranges, generators, other smart arrays;
and the errors for input that cannot become a smart array."""

import array as pyarray

import numpy as np
import pytest

import smartarrays as sa

INTEGER_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_numpy_integer_dtypes(dtype: type) -> None:
    top = np.iinfo(dtype).max
    values = np.array([0, 1, top, top // 2, 5], dtype=dtype)
    a = sa.array(values)
    np.testing.assert_array_equal(a.to_numpy(), values.astype(np.uint64))
    assert a.bits == int(top).bit_length()


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_strided_and_reversed_views_are_read_in_place(dtype: type) -> None:
    base = (np.arange(3000) % 100).astype(dtype)
    for view in (base[::3], base[::-1], base[5:2000:7]):
        np.testing.assert_array_equal(sa.array(view).to_numpy(), view.astype(np.uint64))


def test_read_only_and_bool_buffers() -> None:
    values = np.arange(10, dtype=np.uint64)
    values.setflags(write=False)
    np.testing.assert_array_equal(sa.array(values).to_numpy(), values)
    mask = np.array([True, False, True])
    a = sa.array(mask)
    assert a.tolist() == [1, 0, 1] and a.bits == 1


def test_python_buffers_and_iterables() -> None:
    assert sa.array(pyarray.array("Q", [1, 2, 1 << 63])).tolist() == [1, 2, 1 << 63]
    assert sa.array(pyarray.array("i", [1, 2, 3])).tolist() == [1, 2, 3]
    assert sa.array(bytes([0, 7, 255])).tolist() == [0, 7, 255]
    assert sa.array(bytearray(b"\x01\x02")).tolist() == [1, 2]
    assert sa.array(memoryview(np.arange(4, dtype=np.uint32))).tolist() == [0, 1, 2, 3]
    assert sa.array([1, 2, (1 << 64) - 1]).tolist() == [1, 2, (1 << 64) - 1]
    assert sa.array(range(5)).tolist() == [0, 1, 2, 3, 4]
    assert sa.array(x * x for x in range(4)).tolist() == [0, 1, 4, 9]
    assert sa.array((np.uint64(3), True, 2)).tolist() == [3, 1, 2]
    assert sa.array(np.arange(3, dtype=np.uint8).tolist()).bits == 2


def test_copy_of_another_smart_array_can_change_width_and_placement() -> None:
    a = sa.array(range(100), placement="os")
    b = sa.array(a, bits=40, placement="replicated")
    assert b.bits == 40 and b.placement == "replicated" and b.tolist() == list(range(100))


def test_array_like_objects_go_through_numpy() -> None:
    class Wrapper:
        def __array__(self, dtype=None, copy=None):
            return np.array([[4, 5, 6]], dtype=np.int64)[0]

    assert sa.array(Wrapper()).tolist() == [4, 5, 6]
    with pytest.raises(ValueError, match="dimensions"):
        sa.array(np.uint64(3))


def test_values_too_wide_for_the_width_name_the_first_offender() -> None:
    values = np.array([1, 2, 1 << 33, 1 << 40], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"value 8589934592 at index 2 does not fit in 33 bits \(largest allowed is 8589934591\)"):
        sa.array(values, bits=33)
    with pytest.raises(ValueError, match="at index 1 does not fit in 1 bits"):
        sa.array([1, 2], bits=1)


def test_negative_values_are_refused_with_their_index() -> None:
    with pytest.raises(ValueError, match="value -4 at index 2 is negative"):
        sa.array(np.array([1, 2, -4, -5], dtype=np.int16))
    with pytest.raises(ValueError, match="value -1 at index 1 is negative"):
        sa.array([3, -1])
    with pytest.raises(ValueError, match="at index 0 does not fit in 64 bits"):
        sa.array([1 << 64])


def test_non_integer_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="floating-point"):
        sa.array(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="element 1 is float"):
        sa.array([1, 2.5])
    with pytest.raises(TypeError, match="element 0 is str"):
        sa.array(["1"])
    with pytest.raises(TypeError, match="got str"):
        sa.array("123")
    with pytest.raises(TypeError, match="got int"):
        sa.array(5)
    with pytest.raises(TypeError):
        sa.array(np.array(["a", "b"]))


def test_bad_shapes_byte_orders_widths_and_placements() -> None:
    with pytest.raises(ValueError, match="one-dimensional"):
        sa.array(np.zeros((2, 3), dtype=np.uint32))
    with pytest.raises(ValueError, match="byte order"):
        sa.array(np.arange(3, dtype=">u8"))
    assert sa.array(np.arange(3, dtype="<u4")).tolist() == [0, 1, 2]
    for bits in (0, 65, -1, 1 << 40, 1 << 70):
        with pytest.raises(ValueError, match=f"bit width {bits} is invalid: it must be between 1 and 64"):
            sa.array([1], bits=bits)
    with pytest.raises(ValueError, match='bits="wide" is invalid'):
        sa.array([1], bits="wide")
    with pytest.raises(TypeError, match="bits must be"):
        sa.array([1], bits=2.5)
    for placement in ("", "mirrored", "node:x", "interleaved:1,,2"):
        with pytest.raises(ValueError, match="invalid placement"):
            sa.array([1], placement=placement)
    missing = max(node["id"] for node in sa.topology()["nodes"]) + 1
    with pytest.raises(ValueError, match=f"NUMA node {missing} does not exist"):
        sa.array([1], placement=f"node:{missing}")
    assert sa.array([1], bits="AUTO").bits == 1 and sa.array([1], bits=None).bits == 1


def test_os_placement_larger_than_memory_is_refused() -> None:
    for placement in ("os", "node:0", "interleaved", "replicated"):
        with pytest.raises(MemoryError, match="not enough memory"):
            sa.zeros(1 << 40, bits=64, placement=placement)


def test_arrow_polars_and_pandas_nulls_are_named_not_blamed_on_floats() -> None:
    """Regression (issue 12): pyarrow input with nulls was refused as "a floating-point buffer"."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    for values in (
        pa.array([1, None, 3], type=pa.uint64()),
        pa.chunked_array([[1, 2], [None, None]], type=pa.int64()),
        pl.Series([1, None, 3], dtype=pl.UInt32),
        pd.Series([1, None, 3], dtype="UInt64"),
    ):
        with pytest.raises(ValueError, match=r"holds \d null value\(s\): smart arrays hold no nulls"):
            sa.array(values)
    # The same containers without nulls are welcome.
    for values in (
        pa.array([1, 2, 3], type=pa.uint64()),
        pa.chunked_array([[1, 2], [3]], type=pa.int64()),
        pl.Series([1, 2, 3], dtype=pl.UInt32),
        pd.Series([1, 2, 3], dtype="UInt64"),
    ):
        assert sa.array(values).to_numpy().tolist() == [1, 2, 3]


def test_ranges_are_computed_and_impossible_lengths_are_memory_errors() -> None:
    """Regression (issue 12): `sa.array(range(10**17))` aborted the interpreter with a failed
    allocation of 8e17 bytes; a range is now computed in place and checked against memory."""
    for r in (range(0), range(1), range(5, 1_000_000, 7), range(2**64 - 3, 2**64), range(10, -1, -1)):
        a = sa.array(r)
        assert a.to_numpy().tolist() == list(r)
    with pytest.raises(MemoryError, match="not enough"):
        sa.array(range(10**17))
    with pytest.raises(ValueError, match="value -1 at index 0 is negative"):
        sa.array(range(-1, 5))
    with pytest.raises(ValueError, match="value -3 at index 5 is negative"):
        sa.array(range(12, -2**50, -3))
    with pytest.raises(ValueError, match=r"value 18446744073709551616 at index 1 does not fit"):
        sa.array(range(2**64 - 1, 2**64 + 1))

    class Huge:
        """A sequence claiming 10**17 items."""

        def __len__(self) -> int:
            return 10**17

        def __iter__(self):  # pragma: no cover - never iterated
            return iter(())

    with pytest.raises(MemoryError, match="need .* bytes"):
        sa.array(Huge())
