"""Property tests (hypothesis) against numpy: random widths, lengths, values, slices and
placements; building, decoding, indexing and reducing must agree with the plain array."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import smartarrays as sa
from conftest import PLACEMENTS


@st.composite
def width_and_values(draw: st.DrawFn) -> tuple[int, np.ndarray]:
    bits = draw(st.integers(1, 64))
    length = draw(st.one_of(st.sampled_from([0, 1, 63, 64, 65, 1023, 1025]), st.integers(0, 3000)))
    top = (1 << bits) - 1
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = rng.integers(0, top, size=length, dtype=np.uint64, endpoint=True)
    extremes = draw(st.lists(st.tuples(st.integers(0, max(length - 1, 0)), st.sampled_from([0, top])), max_size=4))
    for index, value in extremes:
        if length:
            values[index] = np.uint64(value)
    return bits, values


@given(width_and_values(), st.sampled_from(PLACEMENTS), st.booleans())
def test_build_decode_reduce(case: tuple[int, np.ndarray], placement: str, auto: bool) -> None:
    bits, values = case
    a = sa.array(values, placement=placement, bits="minimal" if auto else bits)
    expected_bits = max(1, int(values.max()).bit_length()) if auto and len(values) else (1 if auto else bits)
    assert a.bits == expected_bits
    np.testing.assert_array_equal(a.to_numpy(), values)
    assert a.sum() == int(values.sum(dtype=np.uint64))
    assert a.sum(threads=1) == int(values.sum(dtype=np.uint64))
    if len(values):
        assert a.minmax() == (int(values.min()), int(values.max()))


@given(width_and_values(), st.integers(-4000, 4000), st.integers(-4000, 4000), st.integers(-70, 70).filter(bool))
def test_slices_and_indices(case: tuple[int, np.ndarray], start: int, stop: int, step: int) -> None:
    bits, values = case
    a = sa.array(values, bits=bits)
    np.testing.assert_array_equal(a[start:stop:step], values[start:stop:step])
    if -len(values) <= start < len(values):
        assert a[start] == int(values[start])


@given(st.lists(st.integers(0, 2**64 - 1), max_size=200), st.integers(1, 64))
def test_python_ints_fit_or_fail_like_the_core_says(values: list[int], bits: int) -> None:
    too_wide = [i for i, v in enumerate(values) if v >= 1 << bits]
    if too_wide:
        try:
            sa.array(values, bits=bits)
        except ValueError as error:
            assert f"at index {too_wide[0]} does not fit in {bits} bits" in str(error)
        else:
            raise AssertionError("a value wider than the width was accepted")
    else:
        assert sa.array(values, bits=bits).tolist() == values
