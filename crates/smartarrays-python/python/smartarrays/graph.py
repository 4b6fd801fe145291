"""Graphs in smart arrays: compressed sparse rows whose offsets and neighbour ids are bit-packed
smart arrays, and the algorithms of the Rust crate ``smartarrays-graph`` returning numpy arrays.

A networkx or scipy user changes one line: build the graph from numpy edge arrays, CSR arrays
(``from_csr(indptr, indices)``), a scipy sparse matrix, a file or the Kronecker generator, then
call its methods.

>>> import numpy as np
>>> import smartarrays.graph as sg
>>> g = sg.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]))   # a triangle, undirected
>>> g.num_vertices, g.num_edges, g.triangle_count()
(3, 3, 1)
>>> levels, parents = g.bfs(0)
>>> levels.tolist(), g.connected_components().tolist()
([0, 1, 1], [0, 0, 0])
>>> [round(r, 4) for r in g.pagerank().tolist()]
[0.3333, 0.3333, 0.3333]
>>> h = sg.from_csr(np.array([0, 2, 3, 3]), np.array([2, 1, 2]), directed=True)  # 0->1, 0->2, 1->2
>>> h.neighbors(0).tolist(), h.num_edges
([1, 2], 3)

Relabelling by degree makes the kernels faster on skewed graphs: relabel once, run many
kernels, map the results back to the input's ids with the ``VertexIds`` it returns.

>>> k = sg.kronecker(8, edge_factor=8)
>>> fast, ids = k.reorder_by_degree()
>>> levels, parents = fast.bfs(ids.to_new(0))
>>> bool((ids.results_to_original(levels) == k.bfs(0)[0]).all())
True
>>> labels = ids.labels_to_original(fast.connected_components())
>>> bool((labels == k.connected_components()).all())
True
"""

from ._native import Graph, VertexIds
from ._native import graph_convert as convert
from ._native import graph_from_csr as from_csr
from ._native import graph_from_edges as from_edges
from ._native import graph_from_scipy as from_scipy
from ._native import graph_kronecker as kronecker
from ._native import graph_load as load

__all__ = ["Graph", "VertexIds", "convert", "from_csr", "from_edges", "from_scipy", "kronecker", "load"]
