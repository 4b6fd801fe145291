"""smartarrays.Table and smartarrays.sql against DuckDB on the same data: TPC-H tables generated in
this process and read back through Arrow, tables from pyarrow, polars, pandas, dicts, Parquet,
CSV and saved files, result types, errors with their place, and the GIL released while a
query runs."""

import datetime
import decimal
import threading
import time

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")

import smartarrays as sa

QUERIES = [
    "select l_returnflag, l_linestatus, sum(l_quantity) as q, sum(l_extendedprice) as p, "
    "sum(l_extendedprice * (1 - l_discount)) as r, count(*) as n from lineitem "
    "where l_shipdate <= date '1998-09-02' group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus",
    "select sum(l_extendedprice * l_discount) as revenue from lineitem where l_shipdate >= date '1994-01-01' "
    "and l_shipdate < date '1995-01-01' and l_discount between 0.05 and 0.07 and l_quantity < 24",
    "select n_name, count(*) as n from customer, nation where c_nationkey = n_nationkey group by n_name order by n_name",
    "select o_orderpriority, count(*) as n, min(o_orderdate) as first from orders group by o_orderpriority order by o_orderpriority",
]


@pytest.fixture(scope="module")
def tpch():
    return sa.tpch(0.01)


@pytest.fixture(scope="module")
def duck(tpch):
    con = duckdb.connect()
    for name, table in tpch.items():
        con.register(name, pa.table(table))
    return con


def normalize(rows):
    out = []
    for row in rows:
        out.append(tuple(float(v) if isinstance(v, (float, decimal.Decimal)) else v for v in row))
    return out


def same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(normalize(ours), normalize(theirs)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if isinstance(x, float) or isinstance(y, float):
                assert x == pytest.approx(y, rel=1e-9)
            else:
                assert x == y


@pytest.mark.parametrize("query", QUERIES)
def test_queries_match_duckdb_on_the_same_data(tpch, duck, query):
    ours = sa.sql(query, tpch)
    assert isinstance(ours, pa.Table)
    theirs = duck.sql(query).fetchall()
    same([tuple(r.values()) for r in ours.to_pylist()], theirs)


def test_tables_round_trip_through_arrow_with_their_types(tpch):
    lineitem = pa.table(tpch["lineitem"])
    assert lineitem.num_rows == tpch["lineitem"].num_rows == len(tpch["lineitem"])
    assert lineitem.schema.field("l_quantity").type == pa.int64()
    assert lineitem.schema.field("l_extendedprice").type == pa.decimal128(38, 2)
    assert lineitem.schema.field("l_shipdate").type == pa.date32()
    assert lineitem.schema.field("l_comment").type == pa.string()
    again = sa.Table(lineitem, name="again")
    assert pa.table(again).equals(lineitem)
    assert again.memory_bytes < lineitem.nbytes / 2


def test_result_types_and_exact_decimals(tpch):
    out = sa.sql(
        "select count(*) as n, sum(l_extendedprice) as s, avg(l_quantity) as a, min(l_shipdate) as d, "
        "l_shipmode as m from lineitem group by l_shipmode order by l_shipmode limit 1",
        tpch,
    )
    assert out.schema.types == [pa.int64(), pa.decimal128(38, 2), pa.float64(), pa.date32(), pa.string()]
    lineitem = pa.table(tpch["lineitem"]).to_pydict()
    mode = out.column("m")[0].as_py()
    rows = [i for i, m in enumerate(lineitem["l_shipmode"]) if m == mode]
    assert mode == min(lineitem["l_shipmode"])
    assert out.column("n")[0].as_py() == len(rows)
    assert out.column("s")[0].as_py() == sum(lineitem["l_extendedprice"][i] for i in rows)
    assert out.column("d")[0].as_py() == min(lineitem["l_shipdate"][i] for i in rows)
    assert out.column("a")[0].as_py() == pytest.approx(sum(lineitem["l_quantity"][i] for i in rows) / len(rows))
    empty = sa.sql("select sum(l_quantity) as q from lineitem where l_quantity > 1000", tpch)
    assert empty.column("q").to_pylist() == [None]
    none = sa.sql("select l_orderkey from lineitem where l_quantity > 1000", tpch)
    assert none.num_rows == 0 and none.schema.types == [pa.int64()]


@pytest.mark.parametrize("rows", [0, 1, 63, 64, 65, 1023, 1025])
def test_every_source_gives_the_same_table(tmp_path, rows):
    data = {
        "i": [(-1) ** k * k * 1_000_003 for k in range(rows)],
        "s": [f"w{k % 7}" for k in range(rows)],
        "f": [k / 4 for k in range(rows)],
        "b": [k % 3 == 0 for k in range(rows)],
        "d": [datetime.date(2000, 1, 1) + datetime.timedelta(days=k) for k in range(rows)],
        "x": [decimal.Decimal(k) / 100 for k in range(rows)],
    }
    arrow = pa.table(data).cast(
        pa.schema([("i", pa.int64()), ("s", pa.string()), ("f", pa.float64()), ("b", pa.bool_()),
                   ("d", pa.date32()), ("x", pa.decimal128(12, 2))])
    )
    pq.write_table(arrow, tmp_path / "t.parquet")
    sources = {
        "arrow": arrow,
        "polars": pl.from_arrow(arrow),
        "parquet": str(tmp_path / "t.parquet"),
        "parquet-path": tmp_path / "t.parquet",
    }
    expected = arrow.cast(
        pa.schema([("i", pa.int64()), ("s", pa.string()), ("f", pa.float64()), ("b", pa.bool_()),
                   ("d", pa.date32()), ("x", pa.decimal128(38, 2))])
    )
    if rows > 0:
        # Without rows pyarrow infers the null type for a dict's or pandas' columns.
        sources["dict"] = data
        sources["pandas"] = arrow.to_pandas()
    def same_table(back, what):
        # Our columns have no nulls, so they export as non-nullable fields. A dict's or pandas'
        # decimals get the scale pyarrow infers from the values.
        if what not in ("dict", "pandas"):
            assert back.schema.types == expected.schema.types, what
        assert back.to_pydict() == expected.to_pydict(), what

    for what, source in sources.items():
        same_table(pa.table(sa.Table(source, name="t")), what)
    saved = tmp_path / "t.sat"
    sa.Table(arrow).save(saved)
    same_table(pa.table(sa.Table.load(saved)), "saved")
    assert sa.Table(saved).name == "t"


def test_csv_loads_with_inferred_types_and_names_bad_values(tmp_path):
    path = tmp_path / "lineitem.csv"
    path.write_text("l_orderkey,l_quantity,l_price\n1,17,2.50\n2,4,0.75\n")
    t = sa.Table.read_csv(path)
    assert t.name == "lineitem" and t.column_names == ["l_orderkey", "l_quantity", "l_price"]
    out = sa.sql("select sum(l_quantity) as q, sum(l_price) as p from lineitem", {"lineitem": t})
    assert out.to_pylist() == [{"q": 21, "p": decimal.Decimal("3.25")}]
    bad = tmp_path / "bad.tbl"
    # Inference never fails: an impossible date makes the column text.
    bad.write_text("a|b\n1|1998-01-02\n2|1998-02-30\n")
    t = sa.Table.read_csv(bad, delimiter="|")
    assert pa.table(t).schema.field("b").type == pa.string()
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n")
    with pytest.raises(sa.LoadError, match="line 3: 1 fields, expected 2"):
        sa.Table(ragged)


def test_bad_input_raises_clear_exceptions(tpch, tmp_path):
    with pytest.raises(sa.SqlError) as error:
        sa.sql("select l_orderkey,\n  l_nothing\nfrom lineitem", tpch)
    assert str(error.value) == "unknown column l_nothing (line 2, column 3)"
    assert (error.value.line, error.value.column) == (2, 3)
    assert isinstance(error.value, ValueError)
    with pytest.raises(sa.SqlError) as error:
        sa.sql("select * from nowhere", tpch)
    assert "unknown table nowhere" in str(error.value)
    with pytest.raises(sa.SqlError) as error:
        sa.sql("selec 1", tpch)
    assert error.value.line == 1 and error.value.column is not None
    with pytest.raises(sa.SqlError, match="not supported"):
        sa.sql("select sum(l_quantity) over () from lineitem", tpch)
    with pytest.raises(sa.LoadError, match=r"row 2, column 2 \(x\): null") as error:
        sa.Table(pa.table({"y": [1, 2], "x": [1, None]}))
    assert (error.value.line, error.value.column) == (2, 2)
    with pytest.raises(sa.LoadError, match="Arrow type Timestamp"):
        sa.Table(pa.table({"t": pa.array([1], pa.timestamp("s"))}))
    with pytest.raises(TypeError, match="cannot make a table of int"):
        sa.Table(5)
    with pytest.raises(TypeError, match="mapping"):
        sa.sql("select 1", [1, 2])
    broken = tmp_path / "broken.sat"
    tpch["nation"].save(broken)
    data = bytearray(broken.read_bytes())
    data[200] ^= 0x08
    broken.write_bytes(bytes(data))
    with pytest.raises(sa.LoadError, match="corrupted"):
        sa.Table.load(broken)
    (tmp_path / "short.sat").write_bytes(b"SATABLE\0")
    with pytest.raises(sa.LoadError, match="truncated"):
        sa.Table.load(tmp_path / "short.sat")
    with pytest.raises(ValueError, match="scale factor"):
        sa.tpch(0)


def test_explain_and_threads(tpch):
    plan = sa.sql("explain select count(*) from lineitem where l_quantity < 5", tpch)
    assert plan.column_names == ["plan"] and plan.num_rows > 0
    one = sa.sql(QUERIES[0], tpch, threads=1)
    three = sa.sql(QUERIES[0], tpch, threads=3)
    assert one.equals(three)
    with pytest.raises(ValueError):
        sa.sql(QUERIES[0], tpch, threads=0)


def test_the_gil_is_released_while_a_query_runs(tpch):
    ticks = 0
    stop = threading.Event()

    def ticker():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        before = ticks
        for _ in range(10):
            sa.sql(QUERIES[0], tpch, threads=1)
            sa.sql(QUERIES[2], tpch, threads=1)
        during = ticks - before
    finally:
        stop.set()
        thread.join()
    # With the GIL held for whole calls the ticker could only run between them (a few hundred
    # ticks at most); released, it counts freely.
    assert during > 10_000, during
