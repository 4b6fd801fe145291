"""placement="auto" and compression="auto": the advisor for this machine chooses, the values
round-trip, the choice and its reasoning are reported, and bad combinations are errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartarrays as sa

CONCRETE = ("os", "interleaved", "replicated")


def is_concrete(placement: str) -> bool:
    return placement.startswith(CONCRETE) or placement.startswith("node:")


def test_auto_placement_and_compression_choose_and_explain() -> None:
    values = np.arange(200_000, dtype=np.uint64) % 5000
    a = sa.array(values, placement="auto", compression="auto")
    assert is_concrete(a.placement)
    assert a.bits in (13, 32)  # minimal or natural width
    assert np.array_equal(a.to_numpy(), values)
    assert a.advice is not None and "step 2" in a.advice
    assert a.sum() == int(values.sum())


def test_fixed_parts_stay_fixed() -> None:
    values = list(range(1, 1025))
    a = sa.array(values, placement="auto", bits=40)
    assert a.bits == 40 and is_concrete(a.placement)
    b = sa.array(values, placement="replicated", compression="auto")
    assert b.placement == "replicated" and b.bits in (11, 32)
    c = sa.array(values, placement="auto", compression="uncompressed")
    assert c.bits == 32
    d = sa.array([1 << 40], placement="auto", compression="uncompressed")
    assert d.bits == 64
    assert sa.array(values, compression="minimal").bits == 11
    assert sa.array(values, compression=12).bits == 12


def test_concrete_options_have_no_advice() -> None:
    assert sa.array([1, 2, 3]).advice is None


def test_bad_combinations_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="not both"):
        sa.array([1, 2], bits=8, compression="auto")
    with pytest.raises(ValueError, match="compression=\"tiny\" is invalid"):
        sa.array([1, 2], compression="tiny")
    with pytest.raises(ValueError, match="bit width 65"):
        sa.array([1, 2], compression=65)
    with pytest.raises(ValueError, match="does not fit in 8 bits"):
        sa.array([1, 300], placement="auto", compression=8)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=(1 << 64) - 1), max_size=300))
def test_auto_round_trips_against_numpy(values: list[int]) -> None:
    a = sa.array(values, placement="auto", compression="auto")
    assert a.to_numpy().tolist() == values
    assert is_concrete(a.placement)


def test_bits_and_compression_speak_the_same_words() -> None:
    values = [1, 2, 1000]
    for word, expected in (("minimal", 10), ("uncompressed", 32), (None, 10), (12, 12)):
        assert sa.array(values, bits=word).bits == expected
        assert sa.array(values, compression=word).bits == expected
    assert sa.array(values, bits="auto").bits in (10, 32)
    assert sa.array(values, bits="auto").advice is not None
    with pytest.raises(ValueError, match='bits="wide" is invalid'):
        sa.array(values, bits="wide")
