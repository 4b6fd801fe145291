"""Dask memory accounting of smart-array objects: ``dask.sizeof`` counts what they occupy in native
memory (pages of every replica), not the few bytes of their Python wrapper, so Dask's spilling and
memory limits see them. Registered through the ``dask.sizeof`` entry point of the wheel (so Dask
workers count them without importing this package) and again by ``smartarrays.distributed``."""

from __future__ import annotations

from typing import Any

import smartarrays as sa


def register(sizeof: Any) -> None:
    """Registers the smart-array types with ``sizeof`` (``dask.sizeof.sizeof``)."""

    @sizeof.register(sa.SmartArray)
    def _array(a: sa.SmartArray) -> int:
        return int(a.memory_bytes)

    @sizeof.register(sa.Table)
    def _table(t: sa.Table) -> int:
        return int(t.memory_bytes)

    for kind in (sa.Map, sa.Set, sa.Bag, sa.Dictionary, sa.Graph, sa.Column):

        @sizeof.register(kind)
        def _native(obj: Any) -> int:
            return int(obj.nbytes)
