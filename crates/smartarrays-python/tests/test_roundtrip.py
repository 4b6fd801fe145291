"""Round trips against numpy: every bit width 1..64, every placement, the edge lengths, and
the largest value of each width; values, slices and reductions must equal numpy's."""

import numpy as np
import pytest

import smartarrays as sa
from conftest import EDGE_LENGTHS, PLACEMENTS, max_value, reference_values


@pytest.mark.parametrize("bits", range(1, 65))
def test_every_width_round_trips_in_every_placement(bits: int) -> None:
    values = reference_values(1025, bits)
    for placement in PLACEMENTS:
        a = sa.array(values, placement=placement, bits=bits)
        assert a.bits == bits
        assert len(a) == len(values)
        assert a.placement == placement
        np.testing.assert_array_equal(a.to_numpy(), values)
        assert a[0] == max_value(bits) and a[-1] == max_value(bits)
        np.testing.assert_array_equal(a[100:700:3], values[100:700:3])
        assert a.sum() == int(values.sum(dtype=np.uint64))
        assert a.sum(threads=1) == int(values.sum(dtype=np.uint64))
        assert a.max() == max_value(bits)
        assert a.min() == int(values.min())


@pytest.mark.parametrize("length", EDGE_LENGTHS)
@pytest.mark.parametrize("bits", [1, 7, 31, 33, 63, 64])
def test_edge_lengths(length: int, bits: int, placement: str) -> None:
    values = reference_values(length, bits)
    a = sa.array(values, placement=placement, bits=bits)
    assert len(a) == length
    assert a.shape == (length,)
    np.testing.assert_array_equal(a.to_numpy(), values)
    np.testing.assert_array_equal(a[:], values)
    assert a.tolist() == values.tolist()
    assert list(a) == values.tolist()
    assert a.sum() == int(values.sum(dtype=np.uint64))
    assert a.nbytes == (length * bits + 7) // 8
    if length:
        assert (a.min(), a.max()) == (int(values.min()), int(values.max()))
        assert a.minmax(threads=1) == (int(values.min()), int(values.max()))


@pytest.mark.parametrize("bits", range(1, 65))
def test_auto_width_is_the_fewest_bits_of_the_largest_value(bits: int) -> None:
    values = np.array([0, max_value(bits), 1], dtype=np.uint64)
    a = sa.array(values)
    assert a.bits == bits
    np.testing.assert_array_equal(a.to_numpy(), values)


def test_all_zeros_take_one_bit_and_empty_arrays_work() -> None:
    assert sa.array(np.zeros(100, dtype=np.uint64)).bits == 1
    empty = sa.array([])
    assert len(empty) == 0 and empty.bits == 1 and empty.sum() == 0
    assert empty.to_numpy().dtype == np.uint64 and empty.to_numpy().size == 0
    assert empty.count_nonzero() == 0


def test_zeros_can_be_written_up_to_the_width() -> None:
    z = sa.zeros(130, bits=5, placement="replicated")
    assert z.bits == 5 and z.sum() == 0 and len(z) == 130
    z[129] = 31
    z[-130] = 1
    assert z[129] == 31 and z[0] == 1 and z.sum() == 32
    with pytest.raises(ValueError, match="does not fit in 5 bits"):
        z[5] = 32
    assert z[5] == 0
    with pytest.raises(ValueError, match="exact bit width"):
        sa.zeros(3, bits="auto")
