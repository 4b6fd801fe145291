# Type stubs of the native module smartarrays._native (implemented in Rust, src/*.rs).
import decimal
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, NoReturn, SupportsIndex, TypedDict, final, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "Bag",
    "LoadError",
    "QueryResult",
    "SqlError",
    "Table",
    "_sql",
    "_tpch_query",
    "_table_from_parts",
    "tpch",
    "Column",
    "Dictionary",
    "FrozenMap",
    "FrozenSet",
    "Graph",
    "Map",
    "Set",
    "SmartArray",
    "SmartArrayIterator",
    "SmartTable",
    "VertexIds",
    "array",
    "column",
    "zeros",
    "table",
    "topology",
    "set_threads",
    "get_threads",
    "kernel_level",
    "graph_from_edges",
    "graph_from_scipy",
    "graph_convert",
    "graph_from_csr",
    "graph_kronecker",
    "graph_load",
    "_from_packed",
    "_unpickle",
    "_packed_header",
    "_partial_stats",
    "PackedWords",
    "PartBuffer",
    "_jobs_wordcount",
    "_jobs_grep",
    "_jobs_sort_lines",
    "_jobs_sort_keys",
    "_jobs_bayes",
    "_jobs_kmeans",
    "__version__",
]

_Values = npt.ArrayLike | Iterable[int] | bytes | bytearray | memoryview | SmartArray
_Bits = int | Literal["auto", "uncompressed", "minimal"] | None
_Compression = _Bits

class _NodeInfo(TypedDict):
    id: int
    cpus: list[int]
    memory_total: int
    memory_free: int
    distances: list[int]

class _TopologyInfo(TypedDict):
    source: Literal["discovered", "described"]
    cpu_count: int
    nodes: list[_NodeInfo]

class _ReplicaReport(TypedDict):
    intended_node: int | None
    policy: str
    policy_nodes: list[int]
    pages: int
    pages_by_node: dict[int, int]
    pages_not_present: int

class _PlacementReport(TypedDict):
    placement: str
    page_size: int
    simulated: bool
    replicas: list[_ReplicaReport]
    text: str

@final
class SmartArray:
    """Unsigned integers bit-packed at ``bits`` bits each, in NUMA-placed memory.

    >>> import smartarrays as sa
    >>> a = sa.array([5, 0, 7], bits=3)
    >>> a[0], a[-1], a.sum(), a.bits
    (5, 7, 12, 3)
    """

    def __new__(
        cls,
        values: _Values,
        placement: str = "interleaved",
        bits: _Bits = None,
        threads: int | None = None,
        compression: _Compression = None,
    ) -> SmartArray: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int, /) -> int: ...
    @overload
    def __getitem__(self, key: slice | npt.NDArray[Any] | list[int], /) -> npt.NDArray[np.uint64]: ...
    def __setitem__(self, key: int, value: int, /) -> None:
        """Writes one value into every replica; ValueError if it does not fit in ``bits``."""
    def __delitem__(self, key: object, /) -> NoReturn:
        """Always TypeError: a smart array has a fixed length."""
    def set(self, index: int, value: int, timeout: float | None = None) -> None:
        """``a[index] = value``, waiting up to ``timeout`` seconds while the array is shared."""
    def __iter__(self) -> SmartArrayIterator: ...
    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> npt.NDArray[Any]: ...
    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any], /) -> Any:
        """numpy's functions: sum, mean, max/amax, min/amin in the core; others on the decoded values."""
    def to_numpy(self) -> npt.NDArray[np.uint64]:
        """All values decoded into a new numpy uint64 array.

        >>> import smartarrays as sa
        >>> sa.array([1, 2, 3]).to_numpy()
        array([1, 2, 3], dtype=uint64)
        """
    def tolist(self) -> list[int]: ...
    def sum(self, threads: int | None = None) -> int:
        """Sum modulo 2**64 (like numpy's uint64 sum).

        ``threads=None`` runs on the array's runtime in parallel, ``threads=1`` on the calling
        thread only, ``threads=n`` on a runtime of n workers.

        >>> import smartarrays as sa
        >>> sa.array(range(101)).sum(threads=1)
        5050
        """
    def min(self, threads: int | None = None) -> int:
        """Smallest value; ValueError when empty."""
    def max(self, threads: int | None = None) -> int:
        """Largest value; ValueError when empty."""
    def minmax(self, threads: int | None = None) -> tuple[int, int]:
        """``(min, max)`` in one scan; ValueError when empty."""
    def mean(self, threads: int | None = None) -> float:
        """Mean from the exact 128-bit sum; ValueError when empty."""
    def count_nonzero(self, threads: int | None = None) -> int: ...
    @property
    def placement(self) -> str:
        """``os``, ``node:N``, ``interleaved``, ``interleaved:N,M`` or ``replicated`` (for
        ``placement="auto"``, the one the advisor chose)."""
    @property
    def advice(self) -> str | None:
        """The advisor's reasoning, in plain words with its numbers, when the array was built
        with ``placement="auto"`` or ``compression="auto"``; else None."""
    @property
    def bits(self) -> int:
        """Bits per value, 1 to 64."""
    @property
    def nbytes(self) -> int:
        """Bytes of one densely packed copy: ``ceil(len * bits / 8)``."""
    @property
    def memory_bytes(self) -> int:
        """Bytes really mapped: every replica, whole pages, padding."""
    @property
    def replicas(self) -> int: ...
    @property
    def threads(self) -> int:
        """Workers of the runtime that builds and scans this array."""
    @property
    def shape(self) -> tuple[int]: ...
    @property
    def ndim(self) -> Literal[1]: ...
    @property
    def dtype(self) -> np.dtype[np.uint64]: ...
    def placement_report(self) -> _PlacementReport:
        """Where the pages are, read back from the kernel.

        >>> import smartarrays as sa
        >>> sa.array(range(10_000), placement="os").placement_report()["placement"]
        'os'
        """
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None, *, chunk_values: int = 0) -> object:
        """A C stream of uint64 chunks of ``chunk_values`` values (0: 2**20), decoded lazily.

        >>> import smartarrays as sa, pyarrow as pa
        >>> pa.chunked_array(sa.array([1, 2, 3], bits=2)).to_pylist()
        [1, 2, 3]
        """
    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]: ...

@final
class SmartArrayIterator(Iterator[int]):
    def __iter__(self) -> SmartArrayIterator: ...
    def __next__(self) -> int: ...

def array(
    values: _Values,
    placement: str = "interleaved",
    bits: _Bits = None,
    threads: int | None = None,
    compression: _Compression = None,
) -> SmartArray:
    """Builds a smart array.

    ``values``: a numpy array or any one-dimensional buffer of integers (read in place, no
    copy), or any iterable of non-negative ints. ``placement``: ``"os"``, ``"node:N"``,
    ``"interleaved"``, ``"interleaved:N,M"`` or ``"replicated"``. ``bits`` (or its
    synonym ``compression``; give one): ``"minimal"`` (the default: fewest bits that hold the
    largest value), ``"uncompressed"`` (32 or 64 bits), ``"auto"`` (the advisor chooses between
    those two) or 1..64 (ValueError naming the first value that does not fit). ``threads``:
    workers that build and, by default, scan it.

    ``placement="auto"`` and ``bits="auto"`` let the advisor for this machine choose (the
    paper's section 6; the machine is measured once, in about a second, and cached).
    ``SmartArray.advice`` tells what was chosen and why.

    >>> import numpy as np, smartarrays as sa
    >>> sa.array(np.array([3, 9], dtype=np.uint32)).bits
    4
    >>> sa.array([1 << 40], bits=33)
    Traceback (most recent call last):
    ...
    ValueError: value 1099511627776 at index 0 does not fit in 33 bits (largest allowed is 8589934591)
    >>> a = sa.array(range(1000), placement="auto", compression="uncompressed")
    >>> a.bits, a.placement != "auto", a.advice is not None
    (32, True, True)
    """

@final
class SmartTable:
    """Equally long smart arrays exported together as an Arrow table (one uint64 column each).

    >>> import smartarrays as sa, pyarrow as pa
    >>> t = sa.table({"id": sa.array(range(3)), "score": sa.array([7, 8, 9], bits=33)})
    >>> pa.table(t).to_pydict()
    {'id': [0, 1, 2], 'score': [7, 8, 9]}
    >>> t.columns, len(t), t["score"].bits
    (['id', 'score'], 3, 33)
    """

    def __len__(self) -> int: ...
    @property
    def columns(self) -> list[str]: ...
    def __getitem__(self, name: str, /) -> SmartArray: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def table(columns: dict[str, SmartArray], chunk_values: int = 0) -> SmartTable:
    """Several smart arrays of one length as an Arrow table; batches of ``chunk_values`` rows.

    The table refers to the arrays themselves: they can still be written while it exists, and
    a write shows in the batches exported after it. While an exported Arrow stream of the table
    is alive, the arrays are shared with it and writes raise BufferError (``a.set(i, v,
    timeout=...)`` waits).

    >>> import smartarrays as sa
    >>> a = sa.array([1, 2, 3]); t = sa.table({"a": a})
    >>> a[0] = 2
    >>> t.columns, int(t["a"][0])
    (['a'], 2)
    """

# Names of the encodings crate (a newer crate may add more; an unknown name is a ValueError).
_Encoding = Literal["auto", "bitpacked", "frame", "dictionary", "run_end", "constant", "alp", "fsst"] | str
_ColumnValues = npt.ArrayLike | Iterable[Any]
_ColumnScalar = int | float | bool | str | np.datetime64 | decimal.Decimal | None

class _ColumnPlacementReport(_PlacementReport):
    role: str

class _ColumnStatistics(TypedDict):
    min: _ColumnScalar
    max: _ColumnScalar
    distinct_estimate: int
    run_count: int
    null_count: int

@final
class Column:
    """A typed, compressed column: values of one dtype in the encoding the sampling compressor
    chose (or the one named), in NUMA-placed smart arrays, with nulls.

    >>> import numpy as np, smartarrays as sa
    >>> prices = sa.column(np.array([1999, 2499, 1999, 999], dtype=np.int32))
    >>> prices.dtype, prices.sum(), prices.max()
    (dtype('int32'), 7496, 2499)
    >>> prices.between(1000, 2000)
    array([0, 2])
    >>> words = sa.column(np.array(["sun", "sea", None, "sky"], dtype=object))
    >>> words.startswith("s", mask=True), words.null_count
    (array([ True,  True, False,  True]), 1)
    >>> words.to_numpy()
    array(['sun', 'sea', None, 'sky'], dtype=object)
    """

    def __new__(
        cls,
        values: _ColumnValues,
        encoding: _Encoding = "auto",
        placement: str = "interleaved",
        threads: int | None = None,
        measure_all: bool = False,
    ) -> Column: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int, /) -> _ColumnScalar: ...
    @overload
    def __getitem__(self, key: slice | npt.NDArray[Any] | list[int], /) -> npt.NDArray[Any]: ...
    def take(self, indices: npt.ArrayLike) -> npt.NDArray[Any]:
        """The rows at ``indices`` (negative from the end, repeats allowed), in the column's dtype."""
    def to_numpy(self) -> npt.NDArray[Any]:
        """All values in the dtype the column was built from; nulls are None (object arrays),
        NaT (datetime64) or masked (a numpy masked array).

        >>> import numpy as np, smartarrays as sa
        >>> sa.column(np.array(["2024-02-29", "NaT"], dtype="datetime64[D]")).to_numpy()
        array(['2024-02-29',        'NaT'], dtype='datetime64[D]')
        """
    def tolist(self) -> list[_ColumnScalar]: ...
    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> npt.NDArray[Any]:
        """``numpy.asarray(c)``: the decoded values; ValueError when nulls would need a mask."""
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def scale(self) -> int | None:
        """Digits after the point of a decimal column (0..=18); None for other columns.

        >>> from decimal import Decimal
        >>> import smartarrays as sa
        >>> sa.column([Decimal("1.5"), Decimal("-0.25"), None]).scale
        2
        """
    @property
    def encoding(self) -> str:
        """bitpacked, frame, dictionary, run_end, constant, alp or fsst."""
    @property
    def null_count(self) -> int: ...
    @property
    def nbytes(self) -> int:
        """Bytes of the encoded data densely packed in one copy."""
    @property
    def memory_bytes(self) -> int:
        """Bytes really mapped: every replica, whole pages, heap parts."""
    @property
    def placement(self) -> str: ...
    def explain(self) -> str:
        """Why the column has its encoding: each candidate's estimated and real bytes per value.

        >>> import numpy as np, smartarrays as sa
        >>> values = np.random.default_rng(0).integers(1_000_000, 1_010_000, 10_000, dtype=np.uint64)
        >>> c = sa.column(values)
        >>> c.encoding, "frame" in c.explain()
        ('frame', True)
        """
    def memory_report(self) -> str: ...
    def placement_report(self) -> list[_ColumnPlacementReport]: ...
    def sum(self) -> int | float | decimal.Decimal:
        """Exact sum of the valid values: an int for integer and bool columns (never wraps), a
        float for float columns, an exact decimal.Decimal for decimal columns; TypeError for
        dates and strings.

        >>> import numpy as np, smartarrays as sa
        >>> sa.column(np.full(3, 2**63 - 1, dtype=np.int64)).sum()
        27670116110564327421
        """
    def min(self) -> _ColumnScalar:
        """Smallest valid value (floats in IEEE total order); ValueError when there is none."""
    def max(self) -> _ColumnScalar:
        """Largest valid value; ValueError when there is none."""
    def statistics(self) -> _ColumnStatistics: ...
    @overload
    def equal(self, value: _ColumnScalar, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def equal(self, value: _ColumnScalar, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def between(self, low: _ColumnScalar, high: _ColumnScalar, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def between(self, low: _ColumnScalar, high: _ColumnScalar, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def isin(self, values: Iterable[Any] | npt.NDArray[Any], *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def isin(self, values: Iterable[Any] | npt.NDArray[Any], *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def startswith(self, prefix: str, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def startswith(self, prefix: str, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def like(self, pattern: str, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def like(self, pattern: str, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def isnull(self, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def isnull(self, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    @overload
    def notnull(self, *, mask: Literal[False] = False) -> npt.NDArray[np.int64]: ...
    @overload
    def notnull(self, *, mask: Literal[True]) -> npt.NDArray[np.bool_]: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        """Arrow capsules of the values and nulls, typed as the column was built.

        >>> import pyarrow as pa, smartarrays as sa
        >>> pa.array(sa.column(pa.array([1, None, 3], type=pa.int8())))
        <pyarrow.lib.Int8Array object at ...>
        [
          1,
          null,
          3
        ]
        """

def column(
    values: _ColumnValues,
    encoding: _Encoding = "auto",
    placement: str = "interleaved",
    threads: int | None = None,
    measure_all: bool = False,
) -> Column:
    """Builds a typed, compressed column.

    ``values``: a numpy array of int8..int64, uint8..uint64, float32/64, bool, datetime64[D] or
    str (``<U``), an object array or Python sequence of one kind of value (str, int, float,
    bool, decimal.Decimal: exact decimals at the largest scale among them, at most 18 digits
    after the point) with None for nulls, a numpy masked array (masked rows are nulls), an Arrow array
    (``__arrow_c_array__``) or an Arrow stream (``__arrow_c_stream__``: a pyarrow chunked array
    or one-column table, a polars series), nulls kept. Anything else is a TypeError naming it: nothing is cast silently.
    ``encoding``: ``"auto"`` (the sampling compressor chooses, see ``Column.explain``) or a name.

    >>> import numpy as np, smartarrays as sa
    >>> sa.column(np.array([1.5, -0.0, np.nan], dtype=np.float32)).to_numpy()
    array([ 1.5, -0. ,  nan], dtype=float32)
    >>> sa.column(np.array([1 + 2j]))
    Traceback (most recent call last):
    ...
    TypeError: numpy dtype complex128 is not supported by columns: complex numbers have no column type (store the real and imaginary parts as two float64 columns)
    """

_IntDtype = Literal["uint64", "int64"] | type[np.uint64] | type[np.int64] | np.dtype[Any] | None
_Keys = npt.NDArray[np.integer[Any]] | Iterable[int]
_Combine = Literal["sum", "min", "max", "replace"]

class _CollectionMemoryReport(TypedDict):
    entries: int
    bytes: int
    bucket_bytes: int
    bytes_per_entry: float
    partitions: int
    replicas: int
    buckets: int
    slots: int
    load: float
    key_bits: int
    remainder_bits: int
    value_bits: int
    slots_per_bucket: int
    text: str

@final
class Map:
    """A hash map from integer keys to integer values (uint64 or int64 each) in compact, placed
    memory: each lookup reads one 64-byte bucket; widths follow the data.

    >>> import numpy as np, smartarrays as sa
    >>> m = sa.Map(np.array([10, 20, 30], dtype=np.uint64), np.array([1, 2, 3], dtype=np.uint64))
    >>> m[20], 40 in m, len(m)
    (2, False, 3)
    >>> values, found = m.get_many(np.array([30, 40], dtype=np.uint64))
    >>> values[found], found
    (array([3], dtype=uint64), array([ True, False]))
    >>> m.upsert_many([10, 50], [5, 5], combine="sum")
    >>> m.items()
    (array([10, 20, 30, 50], dtype=uint64), array([6, 2, 3, 5], dtype=uint64))
    """

    def __new__(
        cls,
        keys: _Keys | None = None,
        values: _Keys | None = None,
        *,
        key_dtype: _IntDtype = None,
        value_dtype: _IntDtype = None,
        placement: str = "interleaved",
        threads: int | None = None,
    ) -> Map: ...
    @staticmethod
    def aggregate(
        keys: _Keys,
        values: _Keys,
        combine: Literal["sum", "min", "max"] = "sum",
        *,
        key_dtype: _IntDtype = None,
        value_dtype: _IntDtype = None,
        placement: str = "interleaved",
        threads: int | None = None,
    ) -> Map:
        """A group-by built in parallel; a sum outside the value dtype is an OverflowError.

        >>> import numpy as np, smartarrays as sa
        >>> sa.Map.aggregate(np.array([1, 1, 2]), np.array([5, -6, 7]), "sum").items()
        (array([1, 2]), array([-1,  7]))
        """
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: int, /) -> int: ...
    def __setitem__(self, key: int, value: int, /) -> None: ...
    def __delitem__(self, key: int, /) -> None: ...
    def get(self, key: int, default: Any = None) -> Any: ...
    def insert(self, key: int, value: int) -> int | None:
        """Sets ``key``; returns the previous value or None."""
    def remove(self, key: int) -> int | None: ...
    def contains(self, key: int) -> bool: ...
    @overload
    def get_many(self, keys: _Keys, default: None = None) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]: ...
    @overload
    def get_many(self, keys: _Keys, default: int) -> npt.NDArray[Any]: ...
    def contains_many(self, keys: _Keys) -> npt.NDArray[np.bool_]: ...
    def insert_many(self, keys: _Keys, values: _Keys) -> None: ...
    def upsert_many(self, keys: _Keys, values: _Keys, combine: _Combine = "sum") -> None: ...
    def items(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """``(keys, values)`` of every entry, sorted by key."""
    def keys(self) -> npt.NDArray[Any]: ...
    def to_numpy(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
    @property
    def key_dtype(self) -> np.dtype[Any]: ...
    @property
    def value_dtype(self) -> np.dtype[Any]: ...
    @property
    def nbytes(self) -> int:
        """Bytes of memory the map occupies (all partitions and replicas, whole pages)."""
    @property
    def placement(self) -> str: ...
    @property
    def partitions(self) -> int: ...
    def memory_report(self) -> _CollectionMemoryReport: ...
    def placement_report(self) -> list[_PlacementReport]: ...
    def freeze(self) -> FrozenMap:
        """A read-only ``FrozenMap`` of the same entries, about half the bytes, placed alike.

        >>> import numpy as np, smartarrays as sa
        >>> m = sa.Map(np.array([1, 2, 3], dtype=np.uint64), np.array([10, 20, 30], dtype=np.uint64))
        >>> f = m.freeze()
        >>> f[2], len(f), f.keys()
        (20, 3, array([1, 2, 3], dtype=uint64))
        """

@final
class Set:
    """A set of integer keys (uint64 or int64) in compact, placed memory.

    >>> import numpy as np, smartarrays as sa
    >>> s = sa.Set(np.array([5, -1, 5, 7], dtype=np.int64))
    >>> len(s), -1 in s, s.contains_many([7, 8])
    (3, True, array([ True, False]))
    >>> s.to_numpy()
    array([-1,  5,  7])
    """

    def __new__(
        cls, keys: _Keys | None = None, *, dtype: _IntDtype = None, placement: str = "interleaved", threads: int | None = None
    ) -> Set: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def insert(self, key: int) -> bool: ...
    def insert_many(self, keys: _Keys) -> None: ...
    def contains(self, key: int) -> bool: ...
    def contains_many(self, keys: _Keys) -> npt.NDArray[np.bool_]: ...
    def remove(self, key: int) -> bool: ...
    def to_numpy(self) -> npt.NDArray[Any]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def placement(self) -> str: ...
    def memory_report(self) -> _CollectionMemoryReport: ...
    def placement_report(self) -> list[_PlacementReport]: ...
    def freeze(self) -> FrozenSet:
        """A read-only ``FrozenSet`` of the same keys, placed like this set."""

class _FrozenMemoryReport(TypedDict):
    entries: int
    bytes: int
    packed_bytes: int
    bytes_per_entry: float
    bits_per_entry: float
    index_bits_per_entry: float
    buckets: int
    longest_bucket: int
    key_bits: int
    remainder_bits: int
    value_bits: int
    replicas: int
    text: str

@final
class FrozenMap:
    """A read-only hash map from integer keys to integer values (uint64 or int64 each), built
    once from arrays in a succinct layout: about half the bytes of a ``Map``. A key given twice
    is a ValueError.

    >>> import numpy as np, smartarrays as sa
    >>> f = sa.FrozenMap(np.array([10, -20, 30]), np.array([1, 2, 3], dtype=np.uint64))
    >>> f[-20], 40 in f, len(f), f.get(40, -1)
    (2, False, 3, -1)
    >>> values, found = f.get_many(np.array([30, 40]))
    >>> values[found], found
    (array([3], dtype=uint64), array([ True, False]))
    >>> f.items()
    (array([-20,  10,  30]), array([2, 1, 3], dtype=uint64))
    """

    def __new__(
        cls,
        keys: _Keys,
        values: _Keys,
        *,
        key_dtype: _IntDtype = None,
        value_dtype: _IntDtype = None,
        placement: str = "interleaved",
        threads: int | None = None,
    ) -> FrozenMap: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: int, /) -> int: ...
    def get(self, key: int, default: Any = None) -> Any: ...
    def contains(self, key: int) -> bool: ...
    @overload
    def get_many(self, keys: _Keys, default: None = None) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]: ...
    @overload
    def get_many(self, keys: _Keys, default: int) -> npt.NDArray[Any]: ...
    def contains_many(self, keys: _Keys) -> npt.NDArray[np.bool_]: ...
    def items(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        """``(keys, values)`` of every entry, sorted by key."""
    def keys(self) -> npt.NDArray[Any]: ...
    def values(self) -> npt.NDArray[Any]: ...
    def to_numpy(self) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
    @property
    def key_dtype(self) -> np.dtype[Any]: ...
    @property
    def value_dtype(self) -> np.dtype[Any]: ...
    @property
    def nbytes(self) -> int:
        """Bytes of memory the map occupies (every replica, whole pages)."""
    @property
    def placement(self) -> str: ...
    def memory_report(self) -> _FrozenMemoryReport: ...

@final
class FrozenSet:
    """A read-only set of integer keys (uint64 or int64), built once from an array in a
    succinct layout: about half the bytes of a ``Set``. A key given twice is a ValueError.

    >>> import numpy as np, smartarrays as sa
    >>> s = sa.FrozenSet(np.array([5, -1, 7], dtype=np.int64))
    >>> len(s), -1 in s, s.contains_many([7, 8])
    (3, True, array([ True, False]))
    >>> s.to_numpy()
    array([-1,  5,  7])
    """

    def __new__(
        cls, keys: _Keys, *, dtype: _IntDtype = None, placement: str = "interleaved", threads: int | None = None
    ) -> FrozenSet: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def contains(self, key: int) -> bool: ...
    def contains_many(self, keys: _Keys) -> npt.NDArray[np.bool_]: ...
    def to_numpy(self) -> npt.NDArray[Any]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def placement(self) -> str: ...
    def memory_report(self) -> _FrozenMemoryReport: ...

@final
class Bag:
    """Counts of integer keys (uint64 or int64); counts never wrap.

    >>> import numpy as np, smartarrays as sa
    >>> bag = sa.Bag.count(np.array([3, 1, 3, 3, 2], dtype=np.uint64), threads=2)
    >>> bag[3], bag[9], len(bag)
    (3, 0, 3)
    >>> bag.items()
    (array([1, 2, 3], dtype=uint64), array([1, 1, 3], dtype=uint64))
    """

    def __new__(
        cls, keys: _Keys | None = None, *, dtype: _IntDtype = None, placement: str = "interleaved", threads: int | None = None
    ) -> Bag: ...
    @staticmethod
    def count(keys: _Keys, *, dtype: _IntDtype = None, placement: str = "interleaved", threads: int | None = None) -> Bag:
        """Counts ``keys`` in parallel (radix-partitioned group-by) on ``threads`` workers."""
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: int, /) -> int: ...
    def get(self, key: int) -> int: ...
    def add(self, key: int, n: int = 1) -> int: ...
    def add_many(self, keys: _Keys) -> None: ...
    def count_many(self, keys: _Keys) -> npt.NDArray[np.uint64]: ...
    def remove(self, key: int) -> int | None: ...
    def items(self) -> tuple[npt.NDArray[Any], npt.NDArray[np.uint64]]: ...
    def to_numpy(self) -> tuple[npt.NDArray[Any], npt.NDArray[np.uint64]]: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def placement(self) -> str: ...
    def memory_report(self) -> _CollectionMemoryReport: ...
    def placement_report(self) -> list[_PlacementReport]: ...

@final
class Dictionary:
    """Interned strings with dense uint32 codes ``0..len`` in insertion order: strings become
    keys of the integer collections.

    >>> import smartarrays as sa
    >>> d = sa.Dictionary()
    >>> codes = d.intern_many("to be or not to be".split())
    >>> codes
    array([0, 1, 2, 3, 0, 1], dtype=uint32)
    >>> d["not"], d.resolve(1), "cat" in d, sa.Bag.count(codes)[d["be"]]
    (3, 'be', False, 2)
    """

    def __new__(cls, strings: Iterable[str] | npt.NDArray[Any] | None = None, *, placement: str = "interleaved", threads: int | None = None) -> Dictionary: ...
    def __len__(self) -> int: ...
    def __contains__(self, text: object, /) -> bool: ...
    def __getitem__(self, text: str, /) -> int: ...
    def get(self, text: str) -> int | None: ...
    def intern(self, text: str) -> int: ...
    def intern_many(self, strings: Iterable[str] | npt.NDArray[Any]) -> npt.NDArray[np.uint32]: ...
    def resolve(self, code: int) -> str | None: ...
    def resolve_many(self, codes: _Keys) -> npt.NDArray[np.object_]: ...
    @property
    def nbytes(self) -> int: ...

def zeros(length: int, bits: int, placement: str = "interleaved", threads: int | None = None) -> SmartArray: ...
def topology() -> _TopologyInfo: ...
def _from_packed(words: Any, length: int, bits: int, placement: str) -> SmartArray:
    """Rebuilds a pickled smart array from its packed words (used by pickle)."""
def _unpickle(header: bytes, words: Any, placement: str) -> SmartArray:
    """Rebuilds a pickled smart array from its checked header and packed words (used by pickle)."""
def _partial_stats(array: SmartArray) -> tuple[int, int, int | None, int | None]:
    """(count, exact sum, min, max) of one partition (smartarrays.distributed's pre-aggregation)."""
def _packed_header(length: int, bits: int) -> bytes:
    """The 32-byte header pickle sends with ``length`` values of ``bits`` bits."""

@final
class PackedWords:
    """The packed words of a smart array as a read-only buffer over its memory (no copy); what
    pickle protocol 5 sends out of band."""

    def __len__(self) -> int: ...

@final
class PartBuffer:
    """One buffer of a table's serialised form (packed words, read-only, no copy); what pickle
    protocol 5 sends out of band for a ``Table``."""

    def __len__(self) -> int: ...

def set_threads(threads: int | None) -> None:
    """Worker count for arrays built from now on (None: one per CPU, or SMARTARRAYS_THREADS)."""
def get_threads() -> int: ...
def kernel_level() -> Literal["scalar", "avx2", "avx512"]: ...

@final
class Graph:
    """A directed or undirected graph in compressed sparse row form, its offsets and neighbour
    ids in bit-packed smart arrays (see ``smartarrays.graph``).

    >>> import smartarrays as sa
    >>> g = sa.graph.from_edges([0, 0, 1], [1, 2, 2], directed=True)
    >>> g
    Graph(3 vertices, 3 directed edges)
    >>> g.neighbors(0).tolist(), g.bfs(0)[0].tolist()
    ([1, 2], [0, 1, 1])
    """

    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weighted(self) -> bool: ...
    @property
    def nbytes(self) -> int: ...
    def __len__(self) -> int: ...
    def neighbors(self, v: int) -> npt.NDArray[np.uint64]:
        """The out-neighbours of ``v`` (the neighbours when undirected), sorted."""
    def bfs(self, source: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(levels, parents)`` of a breadth-first search, -1 where not reached."""
    def sssp(self, source: int, delta: int = 1) -> npt.NDArray[np.int64]:
        """Shortest path distances over the edge weights, -1 where not reached."""
    def connected_components(self) -> npt.NDArray[np.uint64]:
        """The smallest vertex id of each vertex's (weakly) connected component."""
    def pagerank(
        self,
        damping: float = 0.85,
        tolerance: float = 1e-6,
        max_iterations: int = 1000,
        gauss_seidel: bool = False,
        progress: Callable[[int, float], object] | None = None,
        cell_order: str = "auto",
        dangling: str = "spread",
        contributions: str = "f64",
    ) -> npt.NDArray[np.float64]:
        """Ranks summing to 1; dangling rank spread over every vertex (``dangling="drop"``
        leaves it out, as GAPBS does).

        ``progress(iteration, change)`` runs after every iteration; an exception it raises
        stops the run and propagates. ``cell_order`` ("auto", "vertex" or "degree") places the
        contributions the pull gathers; the ranks are in vertex order either way.
        ``contributions`` ("f64" or "f32") is the precision of the gathered contributions."""
    def prepare_degree_order(self) -> bool:
        """Builds the renamed copy of the incoming lists ``cell_order="degree"`` gathers through."""
    def betweenness(
        self,
        sources: npt.ArrayLike | None = None,
        progress: Callable[[int, int], object] | None = None,
        samples: int | None = None,
        seed: int = 1,
    ) -> npt.NDArray[np.float64]:
        """Unnormalised Brandes betweenness, exact when ``sources`` and ``samples`` are None;
        ``samples=k`` draws ``k`` sources with the seeded generator ``seed``.

        ``progress(done, total)`` runs after every source; an exception it raises stops the
        run and propagates."""
    def triangle_count(self, order: str = "degree") -> int:
        """Triangles of an undirected graph; ``order`` ("degree" or "id") only changes the speed."""
    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the graph in the format the extension names (``.sag``, ``.mtx``, ``.wel``, else an edge list)."""
    def with_generated_weights(self, seed: int) -> Graph:
        """The same graph with seeded edge weights in 1..255 (GAPBS's convention), for ``sssp``."""
    def reorder_by_degree(self) -> tuple[Graph, VertexIds]:
        """The graph relabelled by decreasing degree, and the id map: ``(graph, ids)``.

        Relabel once, run many kernels from ``ids.to_new(source)``, map the results back.

        >>> import smartarrays as sa
        >>> g = sa.graph.from_edges([3, 3, 3], [0, 1, 2])  # a star around vertex 3
        >>> fast, ids = g.reorder_by_degree()
        >>> ids.original_ids().tolist()  # the hub first, the leaves in their order
        [3, 0, 1, 2]
        >>> levels, parents = fast.bfs(ids.to_new(0))
        >>> ids.results_to_original(levels).tolist(), ids.parents_to_original(parents).tolist()
        ([0, 2, 2, 1], [0, 3, 3, 0])
        """
    def edges(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """Every edge as ``(sources, targets)``; an undirected edge once."""
    def to_networkx(self) -> Any:
        """A networkx ``Graph`` or ``DiGraph`` with the same vertices and edges."""

@final
class VertexIds:
    """The map between a graph's original vertex ids and those of its relabelled copy (from
    ``Graph.reorder_by_degree``): vertex ``to_new(v)`` of the relabelled graph is vertex ``v``.

    >>> import smartarrays as sa
    >>> ids = sa.VertexIds.from_new_ids([2, 0, 1])
    >>> ids.to_new(0), ids.to_original(0), ids.original_ids().tolist()
    (2, 1, [1, 2, 0])
    >>> ids.results_to_original([10.0, 20.0, 30.0]).tolist()
    [30.0, 10.0, 20.0]
    >>> ids.labels_to_original([0, 1, 0]).tolist()  # new 0 and 2 (originals 1 and 0) together
    [0, 0, 2]
    """

    @staticmethod
    def from_new_ids(new_ids: npt.ArrayLike) -> VertexIds:
        """The map from every original vertex's new id (a permutation, else ValueError)."""
    def __len__(self) -> int: ...
    def new_ids(self) -> npt.NDArray[np.uint64]:
        """The new id of every original vertex (indexed by original id)."""
    def original_ids(self) -> npt.NDArray[np.uint64]:
        """The original id of every new vertex (indexed by new id)."""
    def to_new(self, v: int) -> int:
        """The new id of original vertex ``v`` (IndexError when not a vertex)."""
    def to_original(self, v: int) -> int:
        """The original id of new vertex ``v`` (IndexError when not a vertex)."""
    def results_to_original(self, values: npt.ArrayLike) -> npt.NDArray[Any]:
        """Per-vertex results of the relabelled graph in original order: ``values[new_ids()]``."""
    def results_to_new(self, values: npt.ArrayLike) -> npt.NDArray[Any]:
        """Per-vertex values in original order in the relabelled order: ``values[original_ids()]``."""
    def parents_to_original(self, parents: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """BFS parents of the relabelled graph in original order and ids (-1 stays -1)."""
    def labels_to_original(self, labels: npt.ArrayLike) -> npt.NDArray[np.uint64]:
        """Component labels of the relabelled graph as the input's: the smallest original id."""

def graph_from_edges(
    sources: npt.ArrayLike,
    targets: npt.ArrayLike,
    num_vertices: int | None = None,
    directed: bool = False,
    weights: npt.ArrayLike | None = None,
    placement: str = "os",
    threads: int | None = None,
) -> Graph:
    """A graph from two integer arrays of edge ends, optionally weighted (``smartarrays.graph.from_edges``)."""

def graph_from_scipy(matrix: Any, directed: bool = True, placement: str = "os", threads: int | None = None) -> Graph:
    """A graph from a square scipy sparse matrix (``smartarrays.graph.from_scipy``)."""

def graph_from_csr(
    indptr: npt.ArrayLike, indices: npt.ArrayLike, directed: bool = False, placement: str = "os", threads: int | None = None
) -> Graph:
    """A graph from CSR ``indptr``/``indices`` integer arrays (``smartarrays.graph.from_csr``)."""

def graph_load(path: str | os.PathLike[str], undirected: bool = False, placement: str = "os", threads: int | None = None) -> Graph:
    """A graph from an edge list, Matrix Market or ``.sag`` file (``smartarrays.graph.load``)."""

def graph_convert(input: str | os.PathLike[str], output: str | os.PathLike[str], undirected: bool = False) -> None:
    """Converts a graph file into the format ``output``'s extension names (``smartarrays.graph.convert``)."""

def graph_kronecker(
    scale: int, edge_factor: int = 16, seed: int = 1, directed: bool = False, placement: str = "os", threads: int | None = None
) -> Graph:
    """A seeded Kronecker graph of ``2**scale`` vertices (``smartarrays.graph.kronecker``)."""

# The Spark study's jobs, wrapped and documented by smartarrays.jobs.
def _jobs_wordcount(path: str, threads: int | None = None) -> list[tuple[str, int]]: ...
def _jobs_grep(path: str, pattern: str, threads: int | None = None) -> list[bytes]: ...
def _jobs_sort_lines(path: str, threads: int | None = None) -> list[bytes]: ...
def _jobs_sort_keys(source: Any, threads: int | None = None) -> tuple[npt.NDArray[np.uint64], int]: ...
def _jobs_bayes(
    train: str, path: str, alpha: float, threads: int | None = None
) -> tuple[list[str], npt.NDArray[np.uint64]]: ...
def _jobs_kmeans(
    source: Any,
    dims: int,
    k: int,
    iterations: int,
    init_steps: int,
    seed: int,
    initial: Any = None,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.float64], float, int]: ...

class SqlError(ValueError):
    """A query that does not parse, names an unknown table or column, has a type error or uses
    what is not supported; ``line`` and ``column`` give its place (None when unknown)."""

    line: int | None
    column: int | None

class LoadError(ValueError):
    """A file or Arrow stream that cannot be loaded; for a value that does not fit, ``line``
    (a text file's line, or the row) and ``column`` (from 1) say where."""

    line: int | None
    column: int | None

@final
class Table:
    """Named typed columns, each compressed by the sampling compressor, with one row count.

    >>> import smartarrays as sa, pyarrow as pa
    >>> t = sa.Table(pa.table({"k": ["a", "b", "a"], "v": [1, 2, 3]}), name="t")
    >>> t.num_rows, t.column_names
    (3, ['k', 'v'])
    >>> sa.sql("select k, sum(v) as s from t group by k order by k", {"t": t}).to_pydict()
    {'k': ['a', 'b'], 's': [4, 2]}
    """

    def __new__(cls, data: object, name: str | None = None) -> Table: ...
    @staticmethod
    def read_csv(
        path: str | os.PathLike[str],
        name: str | None = None,
        delimiter: str = ",",
        header: bool = True,
        quote: str | None = '"',
    ) -> Table: ...
    @staticmethod
    def read_parquet(path: str | os.PathLike[str], name: str | None = None) -> Table: ...
    @staticmethod
    def load(path: str | os.PathLike[str]) -> Table: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def packed_bytes(self) -> int: ...
    def describe(self) -> str: ...
    def __len__(self) -> int: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]: ...

@final
class QueryResult:
    """A query's result, read by Arrow consumers through ``__arrow_c_stream__``."""

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def _sql(query: str, tables: dict[str, object], threads: int | None = None) -> QueryResult: ...
def _tpch_query(number: int) -> str: ...
def _table_from_parts(header: bytes, buffers: list[Any]) -> Table:
    """Rebuilds a pickled table from its checked header and buffers (used by pickle)."""
def tpch(sf: float) -> dict[str, Table]:
    """The eight TPC-H tables generated in this process at scale factor ``sf``."""
