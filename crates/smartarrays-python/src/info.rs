//! Machine and placement information as plain Python dicts: the NUMA topology the runtime
//! follows, and an array's placement report as read back from the kernel.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use smartarrays::{PlacementReport, Topology, TopologySource};

/// `{"source": "discovered", "nodes": [{"id", "cpus", "memory_total", "memory_free", "distances"}]}`.
pub fn topology_dict<'py>(py: Python<'py>, topology: &Topology) -> PyResult<Bound<'py, PyDict>> {
    let nodes = PyList::empty(py);
    for node in topology.nodes() {
        let entry = PyDict::new(py);
        entry.set_item("id", node.id)?;
        entry.set_item("cpus", node.cpus.clone())?;
        entry.set_item("memory_total", node.memory_total)?;
        entry.set_item("memory_free", node.memory_free)?;
        entry.set_item("distances", node.distances.clone())?;
        nodes.append(entry)?;
    }
    let dict = PyDict::new(py);
    let source = match topology.source() {
        TopologySource::Discovered => "discovered",
        TopologySource::Described => "described",
    };
    dict.set_item("source", source)?;
    dict.set_item("cpu_count", topology.cpu_count())?;
    dict.set_item("nodes", nodes)?;
    Ok(dict)
}

/// `{"placement", "page_size", "simulated", "replicas": [{"intended_node", "policy",
/// "policy_nodes", "pages", "pages_by_node", "pages_not_present"}], "text"}`.
pub fn report_dict<'py>(py: Python<'py>, report: &PlacementReport) -> PyResult<Bound<'py, PyDict>> {
    let replicas = PyList::empty(py);
    for replica in &report.replicas {
        let entry = PyDict::new(py);
        entry.set_item("intended_node", replica.intended_node)?;
        entry.set_item("policy", &replica.policy)?;
        entry.set_item("policy_nodes", replica.policy_nodes.clone())?;
        entry.set_item("pages", replica.pages)?;
        let by_node = PyDict::new(py);
        for (node, pages) in &replica.pages_by_node {
            by_node.set_item(node, pages)?;
        }
        entry.set_item("pages_by_node", by_node)?;
        entry.set_item("pages_not_present", replica.pages_not_present)?;
        replicas.append(entry)?;
    }
    let dict = PyDict::new(py);
    dict.set_item("placement", &report.placement)?;
    dict.set_item("page_size", report.page_size)?;
    dict.set_item("simulated", report.simulated)?;
    dict.set_item("replicas", replicas)?;
    dict.set_item("text", report.to_string())?;
    Ok(dict)
}
