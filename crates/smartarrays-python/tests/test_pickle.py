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


# ---- the packed format: a checked header in band, the packed words out of band, no copy


def _words_bytes(length: int, bits: int) -> int:
    return (length * bits + 63) // 64 * 8


@given(st.integers(1, 64), st.one_of(st.sampled_from(LENGTHS), st.integers(0, 3000)), st.integers(0, 2**32))
def test_protocol_5_round_trips_against_numpy_at_every_width(bits: int, length: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    top = (1 << bits) - 1
    values = rng.integers(0, top, size=length, dtype=np.uint64, endpoint=True)
    if length:
        values[0] = np.uint64(top)
    a = sa.array(values, bits=bits)
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and buffers[0].raw().nbytes == _words_bytes(length, bits)
    assert len(data) < 200  # header, placement and the constructor's name only
    b = pickle.loads(data, buffers=buffers)
    assert (b.bits, len(b)) == (bits, length)
    np.testing.assert_array_equal(b.to_numpy(), values)
    if bits == 64:  # at 64 bits the packed words are the values themselves
        np.testing.assert_array_equal(np.frombuffer(buffers[0].raw(), dtype=np.uint64), values)


def test_the_out_of_band_buffer_is_the_arrays_own_read_only_memory() -> None:
    a = sa.array(np.arange(1000, dtype=np.uint64), bits=64)
    buffers: list[pickle.PickleBuffer] = []
    pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    view = buffers[0].raw()
    assert view.readonly and view.nbytes == 8000
    # The buffer shares the array's storage: while it is alive, the array refuses writes.
    with pytest.raises(BufferError, match="shared"):
        a[0] = 5
    view.release()
    buffers.clear()
    a[0] = 5
    assert a[0] == 5


def test_a_damaged_header_is_refused_naming_what_is_wrong() -> None:
    a = sa.array(np.arange(100, dtype=np.uint64), bits=7)
    header = sa._native._packed_header(100, 7)
    buffers: list[pickle.PickleBuffer] = []
    pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    packed = bytes(buffers[0].raw())
    assert sa._native._unpickle(header, packed, "os").tolist() == list(range(100))
    for at in range(len(header)):
        damaged = bytearray(header)
        damaged[at] ^= 0x10
        with pytest.raises(ValueError, match="header is damaged|format version"):
            sa._native._unpickle(bytes(damaged), packed, "os")
    with pytest.raises(ValueError, match="has 31 bytes, not 32"):
        sa._native._unpickle(header[:31], packed, "os")


def test_packed_words_of_the_wrong_length_are_refused() -> None:
    header = sa._native._packed_header(100, 7)  # 700 bits: 11 words, 88 bytes
    with pytest.raises(ValueError, match="are 80 bytes, but its header says 100 values of 7 bits: 88 bytes"):
        sa._native._unpickle(header, bytes(80), "os")
    with pytest.raises(ValueError, match="are 96 bytes"):
        sa._native._unpickle(header, bytes(96), "os")
    with pytest.raises(ValueError, match="outside 1..64"):
        sa._native._packed_header(1, 65)


def test_the_placement_is_resolved_again_on_the_receiving_machine() -> None:
    header = sa._native._packed_header(3, 2)
    words = np.array([0b111001], dtype=np.uint64).tobytes()
    # A node this machine does not have: first touch by the receiving process.
    b = sa._native._unpickle(header, words, "node:4000")
    assert b.placement == "os" and b.tolist() == [1, 2, 3]
    c = sa._native._unpickle(header, words, "interleaved:0,4000")
    assert c.placement == "interleaved" and c.tolist() == [1, 2, 3]
    assert sa._native._unpickle(header, words, "replicated").placement == "replicated"


def test_an_array_the_advisor_placed_is_placed_again_by_the_receivers_advisor() -> None:
    values = np.arange(100_000, dtype=np.uint64) % 5000
    a = sa.array(values, placement="auto")
    assert a.advice is not None
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert b"auto" in data  # the policy travels, not the sender's choice
    b = pickle.loads(data, buffers=buffers)
    assert b.advice is not None and b.bits == a.bits
    np.testing.assert_array_equal(b.to_numpy(), values)


def test_dask_accounts_native_memory_and_sends_one_packed_frame() -> None:
    from dask.sizeof import sizeof
    from distributed.protocol import serialize

    a = sa.array(np.arange(100_000, dtype=np.uint64) % 1000, bits=10)
    assert sizeof(a) == a.memory_bytes >= a.nbytes
    assert sizeof(sa.Bag.count(np.arange(10, dtype=np.uint64))) > 0
    header, frames = serialize(a)
    packed = _words_bytes(100_000, 10)
    assert sum(len(memoryview(f).cast("B")) for f in frames) <= 1.05 * packed
    assert max(memoryview(f).nbytes for f in frames) == packed


def test_the_dask_sizeof_entry_point_works_without_importing_the_package() -> None:
    import subprocess
    import sys

    code = (
        "import numpy as np, smartarrays as sa; from dask.sizeof import sizeof; "
        "a = sa.array(np.arange(10**6, dtype=np.uint64)); "
        "print(sizeof(a) == a.memory_bytes)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "True", run.stderr


# ---- smartarrays.Table pickles packed: a checked header in band, its columns' packed words out of
# band with protocol 5 (in band before), the sender's encodings kept


def _same_table(a: object, b: object) -> None:
    """Equal Arrow data, doubles compared by their bits (NaN payloads and -0.0 included)."""
    pa = pytest.importorskip("pyarrow")
    x, y = pa.table(a), pa.table(b)
    assert [(f.name, f.type) for f in x.schema] == [(f.name, f.type) for f in y.schema]
    assert x.num_rows == y.num_rows
    for name in x.column_names:
        p, q = x.column(name).combine_chunks(), y.column(name).combine_chunks()
        if pa.types.is_floating(p.type):
            np.testing.assert_array_equal(
                p.to_numpy(zero_copy_only=False).view(np.uint64), q.to_numpy(zero_copy_only=False).view(np.uint64)
            )
        else:
            assert p.equals(q), name


def _frames(t: object) -> tuple[bytes, list[pickle.PickleBuffer]]:
    frames: list[pickle.PickleBuffer] = []
    return pickle.dumps(t, protocol=5, buffer_callback=frames.append), frames


def _wire_ratio(t: sa.Table) -> float:
    header, frames = _frames(t)
    return (len(header) + sum(f.raw().nbytes for f in frames)) / t.packed_bytes


SPECIAL_FLOATS = [float("nan"), -0.0, 0.0, float("inf"), float("-inf"), 1e300, -1e-300, 2.5]


def _edge_table(rows: int) -> object:
    import datetime
    import decimal

    pa = pytest.importorskip("pyarrow")
    long = "ünïcødé ✓ " * 60
    return pa.table(
        {
            "k": pa.array([i * 7919 for i in range(rows)], type=pa.int64()),  # bit-packed
            "sorted": pa.array([10**12 + 3 * i for i in range(rows)], type=pa.int64()),  # delta
            "runs": pa.array([i // 100 for i in range(rows)], type=pa.int64()),  # run-end
            "one": pa.array([-7] * rows, type=pa.int64()),  # constant
            "u": pa.array([2**63 - 1 - i for i in range(rows)], type=pa.uint64()),  # tables hold up to int64
            "price": pa.array([decimal.Decimal(i * 37 - 5000) / 100 for i in range(rows)], type=pa.decimal128(38, 2)),
            "day": pa.array([datetime.date(1992, 1, 1) + datetime.timedelta(days=i % 2500) for i in range(rows)], type=pa.date32()),
            "x": pa.array([SPECIAL_FLOATS[i % 8] if i % 5 == 0 else i / 4 for i in range(rows)], type=pa.float64()),  # ALP
            "wide": pa.array([i / 3 - 1e300 * (i % 2) for i in range(rows)], type=pa.float64()),
            "flag": pa.array([i % 3 == 0 for i in range(rows)], type=pa.bool_()),
            "s": pa.array([f"row {i % 11}" for i in range(rows)], type=pa.string()),  # dictionary
            "text": pa.array(["" if i % 7 == 0 else long if i % 7 == 1 else f"free text {i} ü" for i in range(rows)], type=pa.string()),  # FSST
        }
    )


@pytest.mark.parametrize("rows", LENGTHS)
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_table_round_trips_with_its_types_values_name_and_encodings(rows: int, protocol: int) -> None:
    t = sa.Table(_edge_table(rows), name="lines")
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert isinstance(back, sa.Table) and back.name == "lines" and back.num_rows == rows
    _same_table(back, t)
    assert back.column_names == t.column_names
    assert back.describe() == t.describe()  # the same encodings and widths
    assert back.packed_bytes == t.packed_bytes


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300),
    st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(SPECIAL_FLOATS), max_size=300),
    st.lists(st.text(max_size=40), max_size=300),
    st.integers(0, 5),
)
def test_any_table_pickles_to_its_own_arrow_data(ints: list[int], floats: list[float], texts: list[str], protocol: int) -> None:
    pa = pytest.importorskip("pyarrow")
    rows = min(len(ints), len(floats), len(texts))
    data = pa.table(
        {
            "i": pa.array(ints[:rows], type=pa.int64()),
            "f": pa.array(floats[:rows], type=pa.float64()),
            "s": pa.array(texts[:rows], type=pa.string()),
        }
    )
    t = sa.Table(data, name="h")
    if protocol == 5:
        header, frames = _frames(t)
        back = pickle.loads(header, buffers=frames)
    else:
        back = pickle.loads(pickle.dumps(t, protocol=protocol))
    _same_table(back, t)
    _same_table(back, data)


def test_a_table_sends_its_packed_words_out_of_band_and_dask_counts_its_memory() -> None:
    pa = pytest.importorskip("pyarrow")
    from dask.sizeof import sizeof

    t = sa.tpch(0.001)["lineitem"]
    header, frames = _frames(t)
    out_of_band = sum(f.raw().nbytes for f in frames)
    assert out_of_band <= t.packed_bytes < pa.table(t).nbytes / 3 and len(header) < 4_000
    assert all(f.raw().readonly for f in frames)
    back = pickle.loads(header, buffers=frames)
    query = "select l_returnflag, sum(l_extendedprice) as p, count(*) as n from lineitem group by l_returnflag order by l_returnflag"
    assert sa.sql(query, {"lineitem": back}).equals(sa.sql(query, {"lineitem": t}))
    assert sizeof(t) == t.memory_bytes > 0


def test_tpch_lineitem_goes_over_the_wire_within_5_percent_of_its_packed_size() -> None:
    # A size, not a timing: the bytes protocol 5 produces (in band + out of band) over the packed bytes.
    tables = sa.tpch(0.01)
    ratio = _wire_ratio(tables["lineitem"])
    assert 1.0 <= ratio <= 1.05, ratio
    for name in ("orders", "part", "partsupp", "customer"):  # 1,500 rows and more
        assert _wire_ratio(tables[name]) <= 1.05, name
    # The header is a fixed few dozen bytes per column: it shows only on tiny tables.
    supplier = tables["supplier"]
    header, frames = _frames(supplier)
    assert len(header) + sum(f.raw().nbytes for f in frames) <= supplier.packed_bytes + 100 * len(supplier.column_names)


def test_a_damaged_pickled_table_is_a_value_error_naming_the_part() -> None:
    pa = pytest.importorskip("pyarrow")
    t = sa.Table(pa.table({"k": list(range(1000)), "s": [f"v{i % 7}" for i in range(1000)]}), name="t")
    rebuild, (header, buffers) = t.__reduce_ex__(4)
    assert rebuild is sa._native._table_from_parts
    raw = [bytes(b) for b in buffers]
    assert pa.table(rebuild(header, raw)).equals(pa.table(t))
    with pytest.raises(ValueError, match="pack into"):
        rebuild(header, [raw[0][:-8], *raw[1:]])  # a truncated buffer
    with pytest.raises(ValueError, match="column s: needs buffers"):
        rebuild(header, raw[:-1])
    damaged = bytearray(header)
    damaged[4] = 7  # another format version
    with pytest.raises(ValueError, match="version 7"):
        rebuild(bytes(damaged), raw)
    damaged = bytearray(header)
    damaged[12] ^= 0x40  # a field changed under its checksum
    with pytest.raises(ValueError, match="checksum"):
        rebuild(bytes(damaged), raw)
