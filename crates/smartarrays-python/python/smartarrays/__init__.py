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
"""

from ._native import (
    Bag,
    Column,
    Dictionary,
    Graph,
    Map,
    Set,
    SmartArray,
    SmartArrayIterator,
    SmartTable,
    __version__,
    array,
    column,
    get_threads,
    kernel_level,
    set_threads,
    table,
    topology,
    zeros,
)

from . import graph

__all__ = [
    "Bag",
    "Column",
    "Dictionary",
    "Graph",
    "graph",
    "Map",
    "Set",
    "SmartArray",
    "SmartArrayIterator",
    "SmartTable",
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
