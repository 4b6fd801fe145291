"""Pickling ships the packed words (protocol 5: out of band, exactly their size), not decoded
values, and the receiver rebuilds the same array: width, placement and values."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import smartarrays as sa
from hypothesis import given, settings
from hypothesis import strategies as st

LENGTHS = [0, 1, 63, 64, 65, 1023, 1025]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 64), st.sampled_from(LENGTHS), st.integers(0, 4), st.sampled_from(["os", "interleaved", "replicated"]))
def test_round_trips_at_every_width_protocol_and_placement(bits: int, length: int, protocol: int, placement: str) -> None:
    top = (1 << bits) - 1
    values = (np.arange(length, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) & np.uint64(top)
    if length:
        values[-1] = np.uint64(top)
    a = sa.array(values, bits=bits, placement=placement)
    b = pickle.loads(pickle.dumps(a, protocol=protocol + 1))
    assert (b.bits, len(b), b.placement) == (bits, length, a.placement)
    np.testing.assert_array_equal(b.to_numpy(), values)


def test_protocol_5_sends_exactly_the_packed_bytes_out_of_band() -> None:
    a = sa.array(np.arange(1_000_000, dtype=np.uint64) % 1000, bits=10)
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1
    assert buffers[0].raw().nbytes == a.nbytes == 1_250_000  # 10 bits per value, no decoding
    assert len(data) < 1000  # only the recipe travels in band
    b = pickle.loads(data, buffers=buffers)
    assert b.bits == 10 and b.sum() == a.sum()
    # In band, the pickle is about the packed size, not 8 bytes per value (6.4x smaller here).
    assert len(pickle.dumps(a, protocol=5)) < 1.01 * a.nbytes + 1000
    assert len(pickle.dumps(a, protocol=4)) < 1.01 * a.nbytes + 1000


def test_damaged_packed_words_are_refused() -> None:
    with pytest.raises(ValueError, match="fill 2 packed words, but 3 were given"):
        sa._native._from_packed(np.zeros(3, dtype=np.uint64), 100, 1, "os")
    with pytest.raises(ValueError, match="bit width 65"):
        sa._native._from_packed(np.zeros(3, dtype=np.uint64), 2, 65, "os")
