"""Shared fixtures of the smartarrays Python tests: placements of this machine, reference data
helpers, and a hypothesis profile sized for a 2-core CI machine."""

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import smartarrays as sa

settings.register_profile(
    "smartarrays",
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("smartarrays")

FIRST_NODE = sa.topology()["nodes"][0]["id"]
PLACEMENTS = ["os", f"node:{FIRST_NODE}", "interleaved", "replicated"]
EDGE_LENGTHS = [0, 1, 63, 64, 65, 1023, 1025]


def max_value(bits: int) -> int:
    return (1 << bits) - 1


def reference_values(length: int, bits: int, seed: int = 7) -> np.ndarray:
    """Random uint64 values below 2**bits, with the largest value placed first and last."""
    rng = np.random.default_rng(seed * 1000 + bits)
    values = rng.integers(0, 1 << 63, size=length, dtype=np.uint64) * np.uint64(2) + rng.integers(
        0, 2, size=length, dtype=np.uint64
    )
    if bits < 64:
        values &= np.uint64(max_value(bits))
    if length:
        values[0] = np.uint64(max_value(bits))
        values[-1] = np.uint64(max_value(bits))
    return values


@pytest.fixture(params=PLACEMENTS)
def placement(request: pytest.FixtureRequest) -> str:
    return request.param
