"""Arrow PyCapsule interface: pyarrow, polars and duckdb read smart arrays directly, for every
width class and placement; capsules follow the ownership rules (zero-copy exports keep the
array alive and unwritable, unconsumed capsules release what they hold)."""

import gc

import numpy as np
import pytest

import smartarrays as sa
from conftest import reference_values

pa = pytest.importorskip("pyarrow")


class Chunked:
    """Asks for a stream of small chunks (the protocol call has no chunk size argument)."""

    def __init__(self, array: sa.SmartArray, chunk_values: int) -> None:
        self.array, self.chunk_values = array, chunk_values

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.array.__arrow_c_stream__(requested_schema, chunk_values=self.chunk_values)


@pytest.mark.parametrize("bits", [1, 13, 33, 63, 64])
@pytest.mark.parametrize("length", [0, 1, 65, 1025])
def test_pyarrow_array_round_trip(bits: int, length: int, placement: str) -> None:
    values = reference_values(length, bits)
    a = sa.array(values, bits=bits, placement=placement)
    exported = pa.array(a)
    assert exported.type == pa.uint64() and exported.null_count == 0 and len(exported) == length
    np.testing.assert_array_equal(exported.to_numpy(zero_copy_only=False), values)
    back = sa.array(exported)
    np.testing.assert_array_equal(back.to_numpy(), values)


@pytest.mark.parametrize("bits", [5, 64])
def test_stream_is_a_chunked_array(bits: int) -> None:
    values = reference_values(1025, bits)
    a = sa.array(values, bits=bits)
    whole = pa.chunked_array(a)
    assert whole.type == pa.uint64() and whole.num_chunks == 1
    np.testing.assert_array_equal(whole.to_numpy(), values)
    chunked = pa.chunked_array(Chunked(a, 100))
    assert [len(c) for c in chunked.chunks] == [100] * 10 + [25]
    np.testing.assert_array_equal(chunked.to_numpy(), values)
    assert pa.chunked_array(Chunked(sa.array([]), 100)).num_chunks == 0


def test_schema_capsule() -> None:
    a = sa.array([1, 2, 3])
    assert pa.DataType._import_from_c_capsule(a.__arrow_c_schema__()) == pa.uint64()
    schema, array = a.__arrow_c_array__()
    assert pa.Array._import_from_c_capsule(schema, array).to_pylist() == [1, 2, 3]


def test_zero_copy_export_keeps_the_array_alive_and_unwritable() -> None:
    values = np.arange(1000, dtype=np.uint64)
    a = sa.array(values, bits=64)
    exported = pa.array(a)
    with pytest.raises(BufferError, match="shared"):
        a[0] = 5
    del a
    gc.collect()
    np.testing.assert_array_equal(exported.to_numpy(), values)
    b = sa.array(values, bits=64)
    view = pa.array(b)
    del view
    gc.collect()
    b[0] = 5
    assert b[0] == 5


def test_unconsumed_capsules_release_their_exports() -> None:
    a = sa.array(np.arange(100, dtype=np.uint64), bits=64)
    for _ in range(3):
        a.__arrow_c_array__()
        a.__arrow_c_stream__()
        a.__arrow_c_schema__()
    gc.collect()
    a[0] = 7
    assert a[0] == 7


def test_polars_series() -> None:
    pl = pytest.importorskip("polars")
    values = reference_values(5000, 33)
    for bits in (33, 64):
        series = pl.Series("v", sa.array(values, bits=bits))
        assert series.dtype == pl.UInt64 and series.len() == 5000
        np.testing.assert_array_equal(series.to_numpy(), values)
        assert series.max() == int(values.max())


def test_duckdb_scans_the_array() -> None:
    duckdb = pytest.importorskip("duckdb")
    values = reference_values(5000, 40)
    exact = sum(int(v) for v in values)
    for bits in (40, 64):
        numbers = sa.array(values, bits=bits)
        connection = duckdb.connect()
        total, smallest, largest, count = connection.sql(
            "select sum(value), min(value), max(value), count(*) from numbers"
        ).fetchall()[0]
        assert (total, smallest, largest, count) == (exact, int(values.min()), int(values.max()), 5000)
        assert duckdb.from_arrow(numbers).types == ["UBIGINT"]


def test_tables_for_pyarrow_polars_and_duckdb() -> None:
    values = reference_values(3000, 33)
    ids = sa.array(np.arange(3000, dtype=np.uint64), bits=64)
    scores = sa.array(values, bits=33)
    t = sa.table({"id": ids, "score": scores}, chunk_values=1000)
    assert len(t) == 3000 and t.columns == ["id", "score"] and t["score"] is scores
    assert repr(t) == "SmartTable(columns=['id', 'score'], rows=3000)"
    arrow_table = pa.table(t)
    assert arrow_table.schema == pa.schema([pa.field("id", pa.uint64(), False), pa.field("score", pa.uint64(), False)])
    assert arrow_table.column("score").num_chunks == 3
    np.testing.assert_array_equal(arrow_table.column("score").to_numpy(), values)
    np.testing.assert_array_equal(arrow_table.column("id").to_numpy(), np.arange(3000))
    assert pa.schema(t) == arrow_table.schema
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(t)
    assert frame.shape == (3000, 2) and frame["score"].sum() == sum(int(v) for v in values)
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.connect().sql("select count(*), max(score), sum(id) from t where id % 2 = 0").fetchall()
    assert rows == [(1500, int(values[::2].max()), sum(range(0, 3000, 2)))]


def test_table_errors() -> None:
    with pytest.raises(ValueError, match='"b" has 2'):
        sa.table({"a": sa.array([1, 2, 3]), "b": sa.array([1, 2])})
    with pytest.raises(ValueError, match="is not a SmartArray"):
        sa.table({"a": [1, 2, 3]})
    with pytest.raises(KeyError, match="no column"):
        sa.table({"a": sa.array([1])})["b"]
    empty = sa.table({})
    assert len(empty) == 0 and pa.table(empty).num_rows == 0


def test_a_table_does_not_lock_its_columns() -> None:
    a = sa.array([1, 2, 3], bits=64)
    t = sa.table({"a": a})
    a[0] = 9
    assert pa.table(t).column("a").to_pylist() == [9, 2, 3]
