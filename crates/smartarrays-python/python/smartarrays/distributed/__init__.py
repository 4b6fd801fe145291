"""Smart arrays partitioned over Dask and Ray: each worker process holds its partitions as
node-local smart arrays and runs the project's parallel runtime inside; partitions and partial
results travel packed (pickle protocol 5, the packed words out of band, never decoded on the
wire). We build no cluster runtime: Dask schedules the partitioned arrays, their aggregations
and group-bys; Ray actors run partitioned PageRank.

>>> import numpy as np
>>> from distributed import Client
>>> import smartarrays.distributed as sd
>>> cluster = sd.local_cluster(n_workers=2)          # one pinned worker per NUMA node by default
>>> client = Client(cluster)
>>> values = np.arange(1_000, dtype=np.uint64) % 37
>>> a = sd.from_numpy(values)                         # two partitions of 6-bit packed words
>>> a.exact_sum() == int(values.sum()), a.minmax(), a.bits
(True, (0, 36), 6)
>>> keys, sums = sd.groupby(sd.from_numpy(values % 3), a, "sum")
>>> keys.tolist(), sums.tolist()
([0, 1, 2], [6318, 5670, 5994])
>>> client.close(); cluster.close()

Partitioned PageRank over Ray actors (``backend="ray"``; ``"local"`` runs the same shards in
this process) equals ``Graph.pagerank``:

>>> import smartarrays.graph as sg
>>> g = sg.from_edges(np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3]), directed=True)
>>> ranks = sd.pagerank(g, partitions=2, backend="local", tolerance=1e-12)
>>> bool(np.abs(ranks - g.pagerank(tolerance=1e-12)).max() < 1e-9)
True
"""

from ._dask import (
    DistributedArray,
    DistributedTable,
    NumaPinning,
    from_arrays,
    from_columns,
    from_numpy,
    groupby,
    local_cluster,
    node_assignment,
    pin_workers,
    pinning,
)
from ._errors import DistributedError
from ._pagerank import PageRankShard, pagerank, partition_graph
from ._tpch import PLANS, QueryPlan, TpchCluster, partition_tpch, tpch_query
from .._sizeof import register as register_sizeof


def _register_with_dask() -> None:
    try:
        from dask.sizeof import sizeof
    except ImportError:  # Dask is optional for the PageRank shards
        return
    register_sizeof(sizeof)


_register_with_dask()

__all__ = [
    "DistributedArray",
    "DistributedError",
    "DistributedTable",
    "NumaPinning",
    "PLANS",
    "PageRankShard",
    "QueryPlan",
    "TpchCluster",
    "from_arrays",
    "from_columns",
    "from_numpy",
    "groupby",
    "local_cluster",
    "node_assignment",
    "pagerank",
    "partition_graph",
    "pin_workers",
    "pinning",
    "partition_tpch",
    "register_sizeof",
    "tpch_query",
]
