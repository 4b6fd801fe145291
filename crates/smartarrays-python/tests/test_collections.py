"""smartarrays.Map, Set and Bag: integer keys and values as numpy arrays in and out, checked
against a Python dict, set and collections.Counter; batched and parallel operations; placement;
errors for keys, values, sums and counts outside their dtype."""

from collections import Counter

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


def as_dict(pair: tuple[np.ndarray, np.ndarray]) -> dict[int, int]:
    keys, values = pair
    return {int(k): int(v) for k, v in zip(keys, values)}


# ----------------------------------------------------------------------------------------------
# Map


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_map_round_trip(length: int, placement: str) -> None:
    keys = np.arange(length, dtype=np.uint64) * np.uint64(7919) + np.uint64(U64_MAX - 10 * length * 7919)
    values = np.arange(length, dtype=np.uint64)[::-1].copy()
    m = sa.Map(keys, values, placement=placement)
    assert len(m) == length and m.key_dtype == np.uint64 and m.value_dtype == np.uint64
    got_keys, got_values = m.items()
    order = np.argsort(keys)
    np.testing.assert_array_equal(got_keys, keys[order])
    np.testing.assert_array_equal(got_values, values[order])
    found_values, found = m.get_many(keys)
    assert found.all() and found_values.dtype == np.uint64
    np.testing.assert_array_equal(found_values, values)
    assert m.placement.split(":")[0] == placement.split(":")[0]
    reports = m.placement_report()
    assert len(reports) == m.partitions
    assert m.nbytes == m.memory_report()["bytes"] and m.memory_report()["entries"] == length


def test_map_scalar_operations() -> None:
    m = sa.Map(key_dtype="int64", value_dtype="int64")
    assert m.insert(-5, I64_MIN) is None
    assert m.insert(-5, I64_MAX) == I64_MIN
    m[7] = -1
    assert m[-5] == I64_MAX and m.get(7) == -1 and m.get(8) is None and m.get(8, 0) == 0
    assert 7 in m and 8 not in m and 2**80 not in m and m.contains(-5)
    del m[7]
    assert 7 not in m and len(m) == 1
    with pytest.raises(KeyError):
        m[7]
    with pytest.raises(KeyError):
        del m[7]
    assert m.remove(-5) == I64_MAX and m.remove(-5) is None and len(m) == 0
    assert repr(m).startswith("Map(len=0, key_dtype=int64, value_dtype=int64")


def test_map_extremes_and_widening() -> None:
    m = sa.Map()
    m[0] = 0
    m[U64_MAX] = U64_MAX
    m[1] = 1
    assert (m[0], m[U64_MAX], m[1]) == (0, U64_MAX, 1)
    assert m.memory_report()["value_bits"] == 64


def test_get_many_with_default_and_contains_many() -> None:
    m = sa.Map(np.array([1, 2], dtype=np.int64), np.array([10, 20], dtype=np.int64))
    assert m.key_dtype == np.int64
    np.testing.assert_array_equal(m.get_many([2, 3, 1], default=-1), [20, -1, 10])
    values, found = m.get_many(np.array([3, 2]))
    np.testing.assert_array_equal(found, [False, True])
    np.testing.assert_array_equal(values[found], [20])
    np.testing.assert_array_equal(m.contains_many(np.array([], dtype=np.int64)), [])
    np.testing.assert_array_equal(m.contains_many([1, 5]), [True, False])


@pytest.mark.parametrize("combine", ["sum", "min", "max", "replace"])
def test_upsert_many_matches_a_dict(combine: str) -> None:
    rng = np.random.default_rng(5)
    keys = rng.integers(-50, 50, size=5000)
    values = rng.integers(-1000, 1000, size=5000)
    m = sa.Map(key_dtype="int64", value_dtype="int64")
    m.upsert_many(keys, values, combine=combine)
    expected: dict[int, int] = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        old = expected.get(k)
        expected[k] = v if old is None else {"sum": old + v, "min": min(old, v), "max": max(old, v), "replace": v}[combine]
    assert as_dict(m.items()) == expected


@pytest.mark.parametrize("combine", ["sum", "min", "max"])
@pytest.mark.parametrize("threads", [1, 2, None])
def test_aggregate_in_parallel_matches_a_dict(combine: str, threads: int | None) -> None:
    rng = np.random.default_rng(11)
    keys = rng.integers(0, 20_000, size=200_000, dtype=np.uint64)
    values = rng.integers(0, 1 << 20, size=200_000, dtype=np.uint64)
    m = sa.Map.aggregate(keys, values, combine, threads=threads)
    expected: dict[int, int] = {}
    reduce = {"sum": lambda a, b: a + b, "min": min, "max": max}[combine]
    for k, v in zip(keys.tolist(), values.tolist()):
        expected[k] = v if k not in expected else reduce(expected[k], v)
    assert as_dict(m.items()) == expected


def test_sums_never_wrap() -> None:
    m = sa.Map(np.array([1], dtype=np.uint64), np.array([U64_MAX - 1], dtype=np.uint64))
    m.upsert_many([1], [1])
    assert m[1] == U64_MAX
    with pytest.raises(OverflowError, match="uint64"):
        m.upsert_many(np.array([1, 2], dtype=np.uint64), np.array([1, 5], dtype=np.uint64))
    assert m[1] == U64_MAX and m[2] == 5
    signed_map = sa.Map(key_dtype="int64", value_dtype="int64")
    signed_map.upsert_many([0, 0], [I64_MIN, 0])
    with pytest.raises(OverflowError, match="int64"):
        signed_map.upsert_many([0], [-1])
    with pytest.raises(OverflowError, match="no map was built"):
        sa.Map.aggregate(np.array([3, 3], dtype=np.uint64), np.array([U64_MAX, 1], dtype=np.uint64))


def test_lists_are_read_exactly() -> None:
    # numpy infers float64 for such a list (and would lose digits); each int is read on its own.
    keys = [2**63 + 1, 0, 2**64 - 1]
    s = sa.Set(keys)
    assert s.to_numpy().tolist() == sorted(keys)
    bag = sa.Bag(dtype="uint64")
    bag.add_many(keys + [0])
    assert bag.count_many(keys).tolist() == [1, 2, 1]
    m = sa.Map(keys, [1, 2, 3])
    assert m.get_many(keys, default=0).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="-1 at index 1 does not fit uint64"):
        s.contains_many([1, -1])
    with pytest.raises(TypeError, match="integer"):
        s.contains_many([1, 2.0])


def test_map_errors() -> None:
    m = sa.Map()
    with pytest.raises(TypeError, match="must be an integer, not float"):
        m.insert_many([1.5], [1])
    with pytest.raises(TypeError, match="integers"):
        m.insert_many(np.array([1.5]), [1])
    with pytest.raises(TypeError, match="integer"):
        m.insert(1.5, 1)
    with pytest.raises(TypeError, match="integer"):
        "a" in m
    with pytest.raises(ValueError, match="-1 at index 1 does not fit uint64"):
        m.insert_many([1, -1], [1, 1])
    with pytest.raises(ValueError, match="does not fit uint64"):
        m[2**64] = 1
    with pytest.raises(ValueError, match="2 keys but 1 values"):
        m.upsert_many([1, 2], [1])
    with pytest.raises(ValueError, match="combine"):
        m.upsert_many([1], [1], combine="avg")
    with pytest.raises(ValueError, match="replace"):
        sa.Map.aggregate([1], [1], "replace")
    with pytest.raises(ValueError, match="both keys and values"):
        sa.Map([1])
    with pytest.raises(TypeError, match="uint64 or int64"):
        sa.Map(key_dtype="int32")
    with pytest.raises(ValueError, match="one-dimensional"):
        m.get_many(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(ValueError, match="does not fit int64"):
        sa.Map(key_dtype="int64").insert_many(np.array([2**63], dtype=np.uint64), [1])
    with pytest.raises(ValueError):
        sa.Map(placement="nowhere")


@given(
    pairs=st.lists(st.tuples(signed, signed), max_size=300),
    probes=st.lists(signed, max_size=50),
)
def test_map_against_a_dict(pairs: list[tuple[int, int]], probes: list[int]) -> None:
    keys = np.array([k for k, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.int64)
    m = sa.Map(keys, values)
    reference = dict(pairs)
    assert len(m) == len(reference) and as_dict(m.items()) == reference
    values_out, found = m.get_many(np.array(probes, dtype=np.int64))
    assert found.tolist() == [p in reference for p in probes]
    assert [int(v) for v, f in zip(values_out, found) if f] == [reference[p] for p in probes if p in reference]
    for p in probes[:10]:
        assert m.get(p) == reference.get(p)
        if p in reference:
            assert m.remove(p) == reference.pop(p)
    assert as_dict(m.items()) == reference


# ----------------------------------------------------------------------------------------------
# Set


@pytest.mark.parametrize("length", EDGE_LENGTHS)
def test_set_round_trip(length: int, placement: str) -> None:
    keys = np.arange(length, dtype=np.int64) * -3
    s = sa.Set(np.concatenate([keys, keys]), placement=placement)
    assert len(s) == length and s.dtype == np.int64
    np.testing.assert_array_equal(s.to_numpy(), np.sort(keys))
    assert s.contains_many(keys).all()
    assert s.placement.split(":")[0] == placement.split(":")[0]


def test_set_operations() -> None:
    s = sa.Set(dtype=np.uint64)
    assert s.insert(U64_MAX) and not s.insert(U64_MAX) and s.insert(0)
    s.insert_many(np.array([5, 6, 5], dtype=np.uint64))
    assert len(s) == 4 and U64_MAX in s and -1 not in s and s.contains(6)
    assert s.remove(5) and not s.remove(5) and not s.remove(-1)
    np.testing.assert_array_equal(s.to_numpy(), np.array([0, 6, U64_MAX], dtype=np.uint64))
    assert s.memory_report()["entries"] == 3 and s.nbytes > 0
    assert all("replicas" in r for r in s.placement_report())
    with pytest.raises(ValueError, match="does not fit uint64"):
        s.insert(-1)


@given(keys=st.lists(unsigned, max_size=400), probes=st.lists(unsigned, max_size=40))
def test_set_against_python(keys: list[int], probes: list[int]) -> None:
    s = sa.Set(np.array(keys, dtype=np.uint64), dtype="uint64")
    reference = set(keys)
    assert sorted(reference) == s.to_numpy().tolist()
    assert s.contains_many(np.array(probes, dtype=np.uint64)).tolist() == [p in reference for p in probes]


# ----------------------------------------------------------------------------------------------
# Bag


@pytest.mark.parametrize("length", EDGE_LENGTHS)
@pytest.mark.parametrize("threads", [1, 2])
def test_bag_count_matches_counter(length: int, threads: int) -> None:
    rng = np.random.default_rng(length)
    keys = rng.integers(0, 1 + length // 3, size=length, dtype=np.uint64)
    bag = sa.Bag.count(keys, threads=threads)
    reference = Counter(keys.tolist())
    assert len(bag) == len(reference)
    assert as_dict(bag.items()) == dict(reference)
    np.testing.assert_array_equal(bag.count_many(np.arange(5, dtype=np.uint64)), [reference[k] for k in range(5)])


def test_bag_large_parallel_count() -> None:
    rng = np.random.default_rng(3)
    keys = rng.zipf(1.3, size=300_000).astype(np.int64) - 40
    bag = sa.Bag.count(keys, threads=2, placement="interleaved")
    assert bag.dtype == np.int64
    unique, counts = np.unique(keys, return_counts=True)
    got_keys, got_counts = bag.items()
    np.testing.assert_array_equal(got_keys, unique)
    np.testing.assert_array_equal(got_counts, counts)


def test_bag_operations() -> None:
    bag = sa.Bag()
    assert bag.add(4) == 1 and bag.add(4, 10) == 11 and bag[4] == 11 and bag.get(5) == 0
    bag.add_many(np.array([1, 1, 4], dtype=np.uint64))
    assert as_dict(bag.items()) == {1: 2, 4: 12} and 1 in bag and 9 not in bag
    assert bag.remove(1) == 2 and bag.remove(1) is None
    bag.add(7, U64_MAX)
    with pytest.raises(OverflowError):
        bag.add(7)
    assert bag[7] == U64_MAX
    assert bag.memory_report()["value_bits"] == 64
    assert repr(bag).startswith("Bag(len=2, dtype=uint64")
    assert sa.Bag(np.array([], dtype=np.uint64)).items()[0].size == 0


@given(keys=st.lists(signed, max_size=400), more=st.lists(signed, max_size=100))
def test_bag_against_counter(keys: list[int], more: list[int]) -> None:
    bag = sa.Bag(np.array(keys, dtype=np.int64))
    reference = Counter(keys)
    assert as_dict(bag.items()) == dict(reference)
    bag.add_many(np.array(more, dtype=np.int64))
    reference.update(more)
    assert as_dict(bag.to_numpy()) == dict(reference)
    for k in more[:5]:
        assert bag[k] == reference[k]


# ----------------------------------------------------------------------------------------------
# Dictionary


def test_dictionary_codes_and_word_count() -> None:
    words = "the cat and the hat and the bat".split()
    d = sa.Dictionary(placement="interleaved")
    codes = d.intern_many(np.array(words))
    assert codes.dtype == np.uint32 and codes.tolist() == [0, 1, 2, 0, 3, 2, 0, 4]
    assert len(d) == 5 and d["hat"] == 3 and d.get("dog") is None and "cat" in d and 5 not in d
    assert d.intern("dog") == 5 and d.intern("cat") == 1
    assert d.resolve(4) == "bat" and d.resolve(99) is None and d.resolve(-1) is None
    assert d.resolve_many([0, 99, 5]).tolist() == ["the", None, "dog"]
    counts = sa.Bag.count(codes)
    assert {d.resolve(k): int(n) for k, n in zip(*counts.items())} == Counter(words)
    assert d.nbytes > 0 and repr(d) == "Dictionary(len=6)"
    with pytest.raises(KeyError):
        d["fish"]
    with pytest.raises(TypeError, match="element 1 is NoneType"):
        d.intern_many(["a", None])
    with pytest.raises(TypeError, match="one str"):
        d.intern_many("abc")
    with pytest.raises(ValueError, match="not valid Unicode"):
        d.intern_many(["\ud800"])


@given(words=st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=8), max_size=200))
def test_dictionary_against_python(words: list[str]) -> None:
    d = sa.Dictionary(words)
    first: dict[str, int] = {}
    for w in words:
        first.setdefault(w, len(first))
    assert len(d) == len(first)
    assert all(d[w] == code and d.resolve(code) == w for w, code in first.items())
    assert d.intern_many(words).tolist() == [first[w] for w in words]
