"""smartarrays.FrozenMap and FrozenSet (and Map.freeze / Set.freeze): read-only succinct
collections built from numpy arrays, checked against a Python dict and set at the edge sizes,
extreme keys and every placement; duplicate keys and non-integer dtypes are errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartarrays as sa
from conftest import EDGE_LENGTHS

U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1

unsigned = st.integers(0, U64_MAX) | st.integers(0, 300)
signed = st.integers(I64_MIN, I64_MAX) | st.integers(-300, 300)

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def as_dict(pair: tuple[np.ndarray, np.ndarray]) -> dict[int, int]:
    keys, values = pair
    return {int(k): int(v) for k, v in zip(keys, values)}


def spread_keys(length: int, seed: int = 3) -> np.ndarray:
    """`length` distinct uint64 keys over the whole range, uint64 max and 0 among them."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, U64_MAX, size=2 * length + 8, dtype=np.uint64, endpoint=True))
    keys = keys[(keys != 0) & (keys != np.uint64(U64_MAX))]
    keys = rng.permutation(keys)[: max(length - 2, 0)]
    extremes = np.array([U64_MAX, 0], dtype=np.uint64)[: min(length, 2)]
    return np.concatenate([extremes, keys])


# ----------------------------------------------------------------------------------------------
# FrozenMap


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_frozen_map_against_a_dict(length: int, placement: str) -> None:
    keys = spread_keys(length)
    values = np.random.default_rng(length).integers(0, U64_MAX, size=length, dtype=np.uint64, endpoint=True)
    f = sa.FrozenMap(keys, values, placement=placement)
    reference = {int(k): int(v) for k, v in zip(keys, values)}
    assert len(f) == length == len(reference)
    assert f.key_dtype == np.uint64 and f.value_dtype == np.uint64
    assert as_dict(f.items()) == reference
    got_keys, got_values = f.to_numpy()
    order = np.argsort(keys)
    np.testing.assert_array_equal(got_keys, keys[order])
    np.testing.assert_array_equal(got_values, values[order])
    np.testing.assert_array_equal(f.keys(), keys[order])
    np.testing.assert_array_equal(f.values(), values[order])
    for k in keys[:70].tolist():
        assert f[k] == reference[k] and k in f and f.get(k) == reference[k]
    # Probes: every key, then as many absent ones (neighbours of present keys).
    absent = np.setdiff1d(np.concatenate([keys + np.uint64(1), keys - np.uint64(1)]), keys)[:length]
    probes = np.concatenate([keys, absent])
    found_values, found = f.get_many(probes)
    assert found.dtype == np.bool_ and found_values.dtype == np.uint64
    np.testing.assert_array_equal(found, [p in reference for p in probes.tolist()])
    np.testing.assert_array_equal(found_values, [reference.get(p, 0) for p in probes.tolist()])
    np.testing.assert_array_equal(f.contains_many(probes), found)
    for p in absent[:20].tolist():
        assert p not in f and f.get(p) is None
        with pytest.raises(KeyError):
            f[p]
    assert f.placement.split(":")[0] == placement.split(":")[0]
    report = f.memory_report()
    assert f.nbytes == report["bytes"] > 0 and report["entries"] == length
    assert report["replicas"] >= 1 if placement == "replicated" else report["replicas"] == 1
    assert str(length) in report["text"]
    assert repr(f) == (
        f"FrozenMap(len={length}, key_dtype=uint64, value_dtype=uint64, placement='{f.placement}')"
    )


def test_frozen_map_extreme_keys_and_values() -> None:
    keys = np.array([I64_MIN, I64_MAX, -1, 0, 1], dtype=np.int64)
    values = np.array([I64_MAX, I64_MIN, 0, -1, 1], dtype=np.int64)
    f = sa.FrozenMap(keys, values)
    assert f.key_dtype == np.int64 and f.value_dtype == np.int64
    assert [f[k] for k in keys.tolist()] == values.tolist()
    assert as_dict(f.items()) == dict(zip(keys.tolist(), values.tolist()))
    assert f.keys().tolist() == sorted(keys.tolist())
    # Outside int64: absent, never wrapped onto another key.
    assert 2**63 not in f and I64_MIN - 1 not in f and f.get(2**64 + 1) is None
    u = sa.FrozenMap([U64_MAX, 0, 2**63], [U64_MAX, 0, 1])
    assert u[U64_MAX] == U64_MAX and u[0] == 0 and u[2**63] == 1 and -1 not in u
    assert u.memory_report()["value_bits"] == 64


def test_frozen_map_get_many_default_and_empty_batches() -> None:
    f = sa.FrozenMap(np.array([1, 2], dtype=np.int64), np.array([10, -20], dtype=np.int64))
    np.testing.assert_array_equal(f.get_many([2, 3, 1], default=-1), [-20, -1, 10])
    values, found = f.get_many(np.array([], dtype=np.int64))
    assert values.size == 0 and found.size == 0
    np.testing.assert_array_equal(f.contains_many(np.array([], dtype=np.int64)), [])
    assert f.contains(1) and not f.contains(3) and f.get(3, 7) == 7


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_frozen_map_takes_every_integer_dtype(dtype: type) -> None:
    info = np.iinfo(dtype)
    keys = np.array([info.min, info.max, 3, 5], dtype=dtype)
    f = sa.FrozenMap(keys, np.array([1, 2, 3, 4], dtype=dtype))
    signed = info.min < 0
    assert f.key_dtype == (np.int64 if signed else np.uint64)
    assert [f[int(k)] for k in keys] == [1, 2, 3, 4]
    np.testing.assert_array_equal(f.contains_many(keys), [True] * 4)
    s = sa.FrozenSet(keys)
    assert s.dtype == f.key_dtype and s.to_numpy().tolist() == sorted(int(k) for k in keys)


def test_frozen_map_errors() -> None:
    with pytest.raises(ValueError, match="key 7 is given twice"):
        sa.FrozenMap(np.array([7, 1, 7], dtype=np.uint64), np.array([1, 2, 3], dtype=np.uint64))
    with pytest.raises(ValueError, match=f"key {I64_MIN} is given twice"):
        sa.FrozenMap(np.array([I64_MIN, 0, I64_MIN]), np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="2 keys but 1 values"):
        sa.FrozenMap([1, 2], [1])
    with pytest.raises(TypeError, match="integers"):
        sa.FrozenMap(np.array([1.0, 2.0]), np.array([1, 2]))
    with pytest.raises(TypeError, match="integers"):
        sa.FrozenMap(np.array([1 + 0j]), np.array([1]))
    with pytest.raises(TypeError, match="integers"):
        sa.FrozenMap(np.array([1]), np.array([0.5]))
    with pytest.raises(TypeError, match="must be an integer, not float"):
        sa.FrozenMap([1.5], [1])
    with pytest.raises(TypeError, match="uint64 or int64"):
        sa.FrozenMap([1], [1], key_dtype="float64")
    with pytest.raises(TypeError, match="uint64 or int64"):
        sa.FrozenMap([1], [1], value_dtype="complex128")
    with pytest.raises(ValueError, match="-1 at index 1 does not fit uint64"):
        sa.FrozenMap([1, -1], [1, 1], key_dtype="uint64")
    with pytest.raises(ValueError, match="one-dimensional"):
        sa.FrozenMap(np.zeros((2, 2), dtype=np.uint64), np.zeros(4, dtype=np.uint64))
    with pytest.raises(ValueError):
        sa.FrozenMap([1], [1], placement="nowhere")
    f = sa.FrozenMap(np.array([1], dtype=np.uint64), np.array([1], dtype=np.uint64))
    with pytest.raises(TypeError, match="integer"):
        "a" in f
    with pytest.raises(TypeError, match="integer"):
        f.get_many(np.array([1.5]))
    with pytest.raises(ValueError, match="does not fit uint64"):
        f.get_many([1], default=-1)
    with pytest.raises(TypeError):
        f[1] = 2  # type: ignore[index]


@given(
    pairs=st.dictionaries(signed, signed, max_size=300),
    probes=st.lists(signed, max_size=50),
)
def test_frozen_map_property_signed(pairs: dict[int, int], probes: list[int]) -> None:
    keys = np.array(list(pairs), dtype=np.int64)
    values = np.array(list(pairs.values()), dtype=np.int64)
    f = sa.FrozenMap(keys, values, key_dtype="int64", value_dtype="int64")
    assert len(f) == len(pairs) and as_dict(f.items()) == pairs
    values_out, found = f.get_many(np.array(probes, dtype=np.int64))
    assert found.tolist() == [p in pairs for p in probes]
    assert values_out.tolist() == [pairs.get(p, 0) for p in probes]
    for p in probes[:10]:
        assert f.get(p) == pairs.get(p) and (p in f) == (p in pairs)


@given(
    pairs=st.dictionaries(unsigned, unsigned, max_size=300),
    probes=st.lists(unsigned, max_size=50),
)
def test_frozen_map_property_unsigned(pairs: dict[int, int], probes: list[int]) -> None:
    f = sa.FrozenMap(list(pairs), list(pairs.values()), key_dtype="uint64", value_dtype="uint64")
    assert as_dict(f.items()) == pairs
    assert f.contains_many(probes).tolist() == [p in pairs for p in probes]
    assert f.get_many(probes, default=U64_MAX).tolist() == [pairs.get(p, U64_MAX) for p in probes]


@given(keys=st.lists(signed, min_size=1, max_size=100))
def test_a_duplicate_key_is_named(keys: list[int]) -> None:
    duplicated = keys + [keys[len(keys) // 2]]
    with pytest.raises(ValueError, match="is given twice"):
        sa.FrozenMap(np.array(duplicated, dtype=np.int64), np.zeros(len(duplicated), dtype=np.int64))
    with pytest.raises(ValueError, match="is given twice"):
        sa.FrozenSet(np.array(duplicated, dtype=np.int64))


# ----------------------------------------------------------------------------------------------
# Map.freeze


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_freeze_equals_the_map(length: int, placement: str) -> None:
    rng = np.random.default_rng(length + 1)
    keys = rng.integers(I64_MIN, I64_MAX, size=length, dtype=np.int64, endpoint=True)
    values = rng.integers(I64_MIN, I64_MAX, size=length, dtype=np.int64, endpoint=True)
    m = sa.Map(keys, values, placement=placement)
    f = m.freeze()
    assert isinstance(f, sa.FrozenMap) and len(f) == len(m)
    assert f.key_dtype == m.key_dtype and f.value_dtype == m.value_dtype
    assert f.placement == m.placement
    assert as_dict(f.items()) == as_dict(m.items())
    probes = np.concatenate([keys, keys ^ np.int64(1)])
    got, got_found = f.get_many(probes)
    want, want_found = m.get_many(probes)
    np.testing.assert_array_equal(got_found, want_found)
    np.testing.assert_array_equal(got, want)
    # The frozen copy does not follow later changes of the map.
    m[12345] = 1
    assert (12345 in f) == (12345 in keys.tolist())


def test_freeze_of_an_aggregate() -> None:
    rng = np.random.default_rng(9)
    keys = rng.integers(0, 5000, size=50_000, dtype=np.uint64)
    m = sa.Map.aggregate(keys, np.ones_like(keys), "sum", threads=2)
    f = m.freeze()
    assert as_dict(f.items()) == as_dict(m.items())


def test_frozen_map_is_smaller_than_the_map() -> None:
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(0, U64_MAX, size=100_000, dtype=np.uint64, endpoint=True))
    values = rng.integers(0, 1 << 20, size=keys.size, dtype=np.uint64)
    m = sa.Map(keys, values)
    f = sa.FrozenMap(keys, values)
    assert f.nbytes < m.nbytes
    assert m.freeze().nbytes == f.nbytes
    s = sa.Set(keys)
    assert sa.FrozenSet(keys).nbytes < s.nbytes and s.freeze().nbytes < s.nbytes


# ----------------------------------------------------------------------------------------------
# FrozenSet


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_frozen_set_against_a_set(length: int, placement: str) -> None:
    keys = spread_keys(length, seed=length + 5)
    s = sa.FrozenSet(keys, placement=placement)
    reference = set(keys.tolist())
    assert len(s) == length and s.dtype == np.uint64
    assert s.to_numpy().tolist() == sorted(reference)
    absent = np.setdiff1d(keys ^ np.uint64(1 << 40), keys)
    probes = np.concatenate([keys, absent])
    np.testing.assert_array_equal(s.contains_many(probes), [p in reference for p in probes.tolist()])
    for k in probes[:40].tolist():
        assert (k in s) == (k in reference) == s.contains(k)
    assert s.placement.split(":")[0] == placement.split(":")[0]
    assert s.nbytes == s.memory_report()["bytes"] and s.memory_report()["entries"] == length
    assert repr(s) == f"FrozenSet(len={length}, dtype=uint64, placement='{s.placement}')"


def test_frozen_set_signed_extremes_and_freeze() -> None:
    keys = np.array([I64_MIN, I64_MAX, 0, -1], dtype=np.int64)
    s = sa.FrozenSet(keys)
    assert s.dtype == np.int64 and s.to_numpy().tolist() == sorted(keys.tolist())
    assert I64_MIN in s and I64_MAX in s and 1 not in s and 2**63 not in s
    mutable = sa.Set(np.concatenate([keys, keys]))
    frozen = mutable.freeze()
    assert isinstance(frozen, sa.FrozenSet) and frozen.dtype == np.int64
    assert frozen.to_numpy().tolist() == mutable.to_numpy().tolist()
    assert frozen.placement == mutable.placement
    assert sa.Set(dtype="uint64").freeze().to_numpy().size == 0
    with pytest.raises(TypeError, match="integers"):
        sa.FrozenSet(np.array([1.5]))
    with pytest.raises(TypeError, match="uint64 or int64"):
        sa.FrozenSet([1], dtype="float32")


@given(keys=st.sets(unsigned, max_size=300), probes=st.lists(unsigned, max_size=50))
def test_frozen_set_property(keys: set[int], probes: list[int]) -> None:
    s = sa.FrozenSet(sorted(keys), dtype="uint64")
    assert len(s) == len(keys) and s.to_numpy().tolist() == sorted(keys)
    assert s.contains_many(probes).tolist() == [p in keys for p in probes]

