# Type stubs of the smartarrays package: everything but `sql` comes from the native module.
from collections.abc import Mapping
from typing import Any

from . import graph as graph
from ._native import (
    Bag as Bag,
    LoadError as LoadError,
    QueryResult as QueryResult,
    SqlError as SqlError,
    Table as Table,
    Column as Column,
    Dictionary as Dictionary,
    FrozenMap as FrozenMap,
    FrozenSet as FrozenSet,
    Graph as Graph,
    Map as Map,
    Set as Set,
    SmartArray as SmartArray,
    SmartArrayIterator as SmartArrayIterator,
    SmartTable as SmartTable,
    VertexIds as VertexIds,
    __version__ as __version__,
    array as array,
    column as column,
    get_threads as get_threads,
    kernel_level as kernel_level,
    set_threads as set_threads,
    table as table,
    topology as topology,
    tpch as tpch,
    zeros as zeros,
)

def sql(query: str, tables: Mapping[str, Any], threads: int | None = None) -> Any:
    """Runs ``query`` over ``tables`` and returns a ``pyarrow.Table``."""

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
