"""Properties, placement reports (read back from the kernel) and the topology, as Python data."""

import numpy as np

import smartarrays as sa
from conftest import FIRST_NODE


def test_properties(placement: str) -> None:
    a = sa.array(np.arange(100_000, dtype=np.uint64), placement=placement, bits=20)
    nodes = len(sa.topology()["nodes"])
    assert a.placement == placement
    assert a.bits == 20
    assert a.nbytes == 100_000 * 20 // 8
    assert a.replicas == (nodes if placement == "replicated" else 1)
    assert a.memory_bytes >= a.nbytes * a.replicas
    assert a.threads == sa.get_threads()


def test_placement_report_counts_every_page(placement: str) -> None:
    a = sa.array(np.arange(300_000, dtype=np.uint64), placement=placement, bits=64)
    report = a.placement_report()
    assert report["placement"] == placement
    assert report["page_size"] > 0 and report["simulated"] is False
    assert len(report["replicas"]) == a.replicas
    for region in report["replicas"]:
        assert region["pages"] * report["page_size"] >= a.nbytes
        assert sum(region["pages_by_node"].values()) + region["pages_not_present"] == region["pages"]
        assert all(isinstance(node, int) for node in region["pages_by_node"])
    if placement.startswith("node:"):
        only = report["replicas"][0]
        assert only["intended_node"] == FIRST_NODE and only["policy"] == "bind"
        assert set(only["pages_by_node"]) <= {FIRST_NODE}
    if placement == "interleaved":
        assert report["replicas"][0]["policy"] == "interleave"
    assert report["text"].startswith(f"placement {placement}")


def test_topology() -> None:
    topology = sa.topology()
    assert topology["source"] in ("discovered", "described")
    assert topology["cpu_count"] == sum(len(node["cpus"]) for node in topology["nodes"]) >= 1
    for node in topology["nodes"]:
        assert set(node) == {"id", "cpus", "memory_total", "memory_free", "distances"}
        assert node["memory_free"] <= node["memory_total"] or node["memory_total"] == 0
    assert sa.kernel_level() in ("scalar", "avx2", "avx512")
    assert isinstance(sa.__version__, str)
