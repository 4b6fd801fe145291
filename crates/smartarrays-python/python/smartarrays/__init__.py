"""Smart arrays for Python: NUMA-aware placement and bit compression, one Rust core.

A smart array holds unsigned integers packed at ``bits`` bits each (1 to 64) in memory
placed on NUMA nodes (``os``, ``node:N``, ``interleaved`` or ``replicated``), following
Psaroudakis et al., "Analytics with Smart Arrays" (EuroSys 2018). Everything runs in the
project's Rust core (the same core the C ABI wraps); this package only translates.

Example:

>>> import numpy as np
>>> import smartarrays as sa
>>> a = sa.array(np.arange(1_000, dtype=np.uint64), placement="interleaved")
>>> a.bits, len(a), a.nbytes
(10, 1000, 1250)
>>> a.sum(), a.min(), a.max()
(499500, 0, 999)
>>> a[-1], a[:3]
(999, array([0, 1, 2], dtype=uint64))
>>> sa.array([1, 2, 3], bits=33).to_numpy()
array([1, 2, 3], dtype=uint64)

Arrow consumers (pyarrow, polars, duckdb) read a smart array directly through the Arrow
PyCapsule interface, e.g. ``pyarrow.array(a)``, ``polars.Series(a)`` or duckdb's
``SELECT sum(value) FROM a``; ``smartarrays.table({"x": a, "y": b})`` exports several arrays
as one Arrow table (``pyarrow.table(t)``, ``polars.DataFrame(t)``).

Tables and SQL: ``smartarrays.Table(data)`` compresses a pyarrow table, a polars or pandas data
frame, a dict of columns or a Parquet/CSV/saved file into typed encoded columns;
``smartarrays.tpch(sf)`` generates the TPC-H tables; ``smartarrays.sql(query, tables)`` runs a
query over them and returns a ``pyarrow.Table``.
"""

from typing import Any, Mapping

from ._native import (
    Bag,
    LoadError,
    QueryResult,
    SqlError,
    Table,
    Column,
    Dictionary,
    FrozenMap,
    FrozenSet,
    Graph,
    Map,
    Set,
    SmartArray,
    SmartArrayIterator,
    SmartTable,
    VertexIds,
    __version__,
    array,
    column,
    get_threads,
    kernel_level,
    set_threads,
    table,
    topology,
    tpch,
    zeros,
)
from ._native import _sql

from . import graph



def sql(query: str, tables: Mapping[str, Any], threads: int | None = None) -> Any:
    """Runs ``query`` (or ``EXPLAIN`` of one) over ``tables`` and returns a ``pyarrow.Table``.

    ``tables`` maps the names the query uses to ``Table`` objects or to anything ``Table``
    takes (pyarrow tables, polars or pandas data frames, dicts of columns, file paths). The GIL
    is released while the query runs; the result's buffers are handed to pyarrow without a
    copy. Integers come back as int64, decimals as decimal128(38, scale), dates as date32.

    A bad query raises ``SqlError`` (a ValueError) whose ``line`` and ``column`` give its place:

    >>> import smartarrays as sa
    >>> t = sa.tpch(0.001)
    >>> sa.sql("select count(*) as n from lineitem where l_quantity < 10", t).column("n")[0].as_py() > 0
    True
    >>> try:
    ...     sa.sql("select l_nothing from lineitem", t)
    ... except sa.SqlError as e:
    ...     print(e, e.line, e.column)
    unknown column l_nothing (line 1, column 8) 1 8
    """
    import pyarrow

    if not isinstance(tables, Mapping):
        raise TypeError(f"tables must be a mapping of name to table, not {type(tables).__name__}")
    return pyarrow.table(_sql(query, dict(tables), threads))


__all__ = [
    "Bag",
    "LoadError",
    "QueryResult",
    "SqlError",
    "Table",
    "sql",
    "tpch",
    "Column",
    "Dictionary",
    "FrozenMap",
    "FrozenSet",
    "Graph",
    "graph",
    "Map",
    "Set",
    "SmartArray",
    "SmartArrayIterator",
    "SmartTable",
    "VertexIds",
    "__version__",
    "array",
    "column",
    "get_threads",
    "kernel_level",
    "set_threads",
    "table",
    "topology",
    "zeros",
]
