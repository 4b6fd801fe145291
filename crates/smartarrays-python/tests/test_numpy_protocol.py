"""numpy's functions work on smart arrays (NEP 18 __array_function__): the reductions run in the
Rust core with numpy's signatures and results, everything else gets the decoded values."""

from __future__ import annotations

import numpy as np
import pytest
import smartarrays as sa
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, (1 << 64) - 1), min_size=1, max_size=400))
def test_reductions_match_numpy(values: list[int]) -> None:
    reference = np.array(values, dtype=np.uint64)
    a = sa.array(reference)
    for function in (np.sum, np.max, np.min, np.amax, np.amin):
        got, expected = function(a), function(reference)
        assert got == expected and type(got) is type(expected), function.__name__
        assert function(a, axis=0) == expected and function(a, axis=-1) == expected
        assert function(a, keepdims=False) == expected
    assert np.mean(a) == pytest.approx(float(np.mean(reference.astype(np.float64))), rel=1e-12)
    assert type(np.mean(a)) is np.float64


def test_other_arguments_and_functions_use_the_decoded_values() -> None:
    reference = np.array([5, 1, 4, 1, 5, 9, 2, 6], dtype=np.uint64)
    a = sa.array(reference)
    np.testing.assert_array_equal(np.sum(a, keepdims=True), np.sum(reference, keepdims=True))
    assert np.sum(a, dtype=np.float64) == 33.0
    assert np.max(a, initial=100) == 100
    np.testing.assert_array_equal(np.sort(a), np.sort(reference))
    np.testing.assert_array_equal(np.cumsum(a), np.cumsum(reference))
    assert np.array_equal(a, reference)
    out = np.zeros((), dtype=np.uint64)
    np.sum(a, out=out)
    assert out == 33
    with pytest.raises(np.exceptions.AxisError):
        np.sum(a, axis=1)


def test_empty_arrays_behave_like_numpy() -> None:
    empty = sa.array(np.array([], dtype=np.uint64))
    assert np.sum(empty) == 0
    for function, what in ((np.max, "maximum"), (np.min, "minimum")):
        with pytest.raises(ValueError, match=f"zero-size array to reduction operation {what}"):
            function(empty)
    with pytest.warns(RuntimeWarning):
        assert np.isnan(np.mean(empty))
