//! Machine topology: which NUMA nodes exist, which CPUs and how much memory each has, and which
//! node the calling thread is on.
//!
//! The topology is read from Linux sysfs (`/sys/devices/system/node`). For tests and for
//! planning on machines we do not have, a topology can instead be described in a JSON file
//! (see [`Topology::from_json`]) and selected with the `SMARTARRAYS_TOPOLOGY` environment
//! variable or passed explicitly to a [`crate::Runtime`]. A described topology is marked
//! [`TopologySource::Described`]; memory placement then skips kernel policy calls for nodes the
//! kernel does not have, so the rest of the library (replicas, worker grouping) can be
//! exercised on any machine.

use std::fs;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::sys;

/// Environment variable that replaces discovery with a described topology: the JSON text itself
/// (when it starts with `{`) or the path of a JSON file (see [`Topology::from_json`]).
pub const TOPOLOGY_ENV: &str = "SMARTARRAYS_TOPOLOGY";

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Kernel node number.
    pub id: usize,
    /// CPUs of the node, ascending.
    pub cpus: Vec<usize>,
    /// Total memory of the node in bytes.
    pub memory_total: u64,
    /// Free memory of the node in bytes at the time the topology was read.
    pub memory_free: u64,
    /// Distances to every node, in node order, as the firmware reports them (10 = local).
    #[serde(default)]
    pub distances: Vec<u32>,
}

/// Where a [`Topology`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopologySource {
    /// Read from the running kernel.
    Discovered,
    /// Given by a description (file or API); may not match the hardware.
    Described,
}

/// The NUMA layout of a machine.
///
/// # Example
/// ```
/// let topology = smartarrays::Topology::discover().unwrap();
/// assert!(!topology.nodes().is_empty());
/// println!("{topology}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    nodes: Vec<Node>,
    source: TopologySource,
}

impl Topology {
    /// Reads the topology of this machine from sysfs. Machines without NUMA support in sysfs are
    /// reported as a single node holding every CPU the process may use.
    pub fn discover() -> Result<Topology> {
        let root = Path::new("/sys/devices/system/node");
        let mut nodes = Vec::new();
        if let Ok(entries) = fs::read_dir(root) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(id) = name
                    .strip_prefix("node")
                    .and_then(|n| n.parse::<usize>().ok())
                else {
                    continue;
                };
                let dir = entry.path();
                let cpus = fs::read_to_string(dir.join("cpulist"))
                    .map_err(|e| {
                        Error::InvalidTopology(format!("{}: {e}", dir.join("cpulist").display()))
                    })
                    .and_then(|text| parse_cpu_list(text.trim()))?;
                let (memory_total, memory_free) = fs::read_to_string(dir.join("meminfo"))
                    .map(|t| parse_node_meminfo(&t))
                    .unwrap_or((0, 0));
                let distances = fs::read_to_string(dir.join("distance"))
                    .map(|t| {
                        t.split_whitespace()
                            .filter_map(|d| d.parse().ok())
                            .collect()
                    })
                    .unwrap_or_default();
                nodes.push(Node {
                    id,
                    cpus,
                    memory_total,
                    memory_free,
                    distances,
                });
            }
        }
        if nodes.is_empty() {
            let cpus = sys::allowed_cpus().map_err(|e| Error::System {
                call: "sched_getaffinity",
                reason: e.to_string(),
            })?;
            let (memory_total, memory_free) = fs::read_to_string("/proc/meminfo")
                .map(|t| parse_node_meminfo(&t))
                .unwrap_or((0, 0));
            nodes.push(Node {
                id: 0,
                cpus,
                memory_total,
                memory_free,
                distances: vec![10],
            });
        }
        nodes.sort_by_key(|n| n.id);
        Ok(Topology {
            nodes,
            source: TopologySource::Discovered,
        })
    }

    /// The topology every default [`crate::Runtime`] uses: the one `SMARTARRAYS_TOPOLOGY`
    /// describes when set (JSON text, or the path of a JSON file), otherwise
    /// [`Topology::discover`]. Read once per process; errors name the variable.
    pub fn current() -> Result<Arc<Topology>> {
        static CURRENT: OnceLock<std::result::Result<Arc<Topology>, Error>> = OnceLock::new();
        CURRENT
            .get_or_init(|| match std::env::var_os(TOPOLOGY_ENV) {
                Some(value) if !value.is_empty() => Topology::from_setting(&value).map(Arc::new),
                _ => Topology::discover().map(Arc::new),
            })
            .clone()
    }

    /// The topology a `SMARTARRAYS_TOPOLOGY` value describes: JSON text when it starts with `{`,
    /// else the path of a JSON file.
    pub fn from_setting(value: &std::ffi::OsStr) -> Result<Topology> {
        let text = value.to_string_lossy();
        let described = if text.trim_start().starts_with('{') {
            Topology::from_json(&text)
        } else {
            Topology::load(Path::new(value))
        };
        described.map_err(|e| {
            let problem = match e {
                Error::InvalidTopology(problem) => problem,
                other => other.to_string(),
            };
            Error::InvalidTopology(format!(
                "{TOPOLOGY_ENV} (JSON text or the path of a JSON file): {problem}"
            ))
        })
    }

    /// Builds a described topology from nodes, checking that ids and CPUs are unique and that
    /// every node has at least one CPU or some memory.
    pub fn from_nodes(mut nodes: Vec<Node>) -> Result<Topology> {
        if nodes.is_empty() {
            return Err(Error::InvalidTopology(
                "a topology needs at least one node".into(),
            ));
        }
        nodes.sort_by_key(|n| n.id);
        for pair in nodes.windows(2) {
            if pair[0].id == pair[1].id {
                return Err(Error::InvalidTopology(format!(
                    "node {} is listed twice",
                    pair[0].id
                )));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for node in &mut nodes {
            node.cpus.sort_unstable();
            for &cpu in &node.cpus {
                if !seen.insert(cpu) {
                    return Err(Error::InvalidTopology(format!(
                        "CPU {cpu} belongs to more than one node"
                    )));
                }
            }
            if node.memory_free > node.memory_total {
                return Err(Error::InvalidTopology(format!(
                    "node {} has more free memory than total",
                    node.id
                )));
            }
        }
        if seen.is_empty() {
            return Err(Error::InvalidTopology(
                "a topology needs at least one CPU".into(),
            ));
        }
        Ok(Topology {
            nodes,
            source: TopologySource::Described,
        })
    }

    /// A described machine of `nodes` nodes with `cpus_per_node` CPUs and `memory_per_node` bytes
    /// each (CPUs numbered node by node). Handy for tests and simulation.
    pub fn uniform(nodes: usize, cpus_per_node: usize, memory_per_node: u64) -> Result<Topology> {
        let described = (0..nodes)
            .map(|id| Node {
                id,
                cpus: (id * cpus_per_node..(id + 1) * cpus_per_node).collect(),
                memory_total: memory_per_node,
                memory_free: memory_per_node,
                distances: (0..nodes)
                    .map(|other| if other == id { 10 } else { 21 })
                    .collect(),
            })
            .collect();
        Topology::from_nodes(described)
    }

    /// Parses a JSON description: `{"nodes": [{"id": 0, "cpus": [0,1], "memory_total": N,
    /// "memory_free": N, "distances": [10, 21]}, ...]}`.
    pub fn from_json(text: &str) -> Result<Topology> {
        #[derive(Deserialize)]
        struct Description {
            nodes: Vec<Node>,
        }
        let description: Description =
            serde_json::from_str(text).map_err(|e| Error::InvalidTopology(e.to_string()))?;
        Topology::from_nodes(description.nodes)
    }

    /// Reads a JSON description from a file.
    pub fn load(path: &Path) -> Result<Topology> {
        let text = fs::read_to_string(path)
            .map_err(|e| Error::InvalidTopology(format!("{}: {e}", path.display())))?;
        Topology::from_json(&text)
            .map_err(|e| Error::InvalidTopology(format!("{}: {e}", path.display())))
    }

    /// The description as JSON, in the format [`Topology::from_json`] reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&serde_json::json!({ "nodes": self.nodes }))
            .unwrap_or_default()
    }

    /// The nodes, ascending by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Node ids, ascending.
    pub fn node_ids(&self) -> Vec<usize> {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// Whether this topology was discovered or described.
    pub fn source(&self) -> TopologySource {
        self.source
    }

    /// The node with this id, or [`Error::UnknownNode`].
    pub fn node(&self, id: usize) -> Result<&Node> {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .ok_or_else(|| Error::UnknownNode {
                node: id,
                available: self.node_ids(),
            })
    }

    /// The node that holds `cpu`, if any.
    pub fn node_of_cpu(&self, cpu: usize) -> Option<usize> {
        self.nodes
            .iter()
            .find(|n| n.cpus.binary_search(&cpu).is_ok())
            .map(|n| n.id)
    }

    /// Total number of CPUs over all nodes.
    pub fn cpu_count(&self) -> usize {
        self.nodes.iter().map(|n| n.cpus.len()).sum()
    }

    /// The node the calling thread runs on right now (by `getcpu`), if this topology knows its CPU.
    pub fn current_node(&self) -> Option<usize> {
        sys::current_cpu().and_then(|cpu| self.node_of_cpu(cpu))
    }
}

impl std::fmt::Display for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            TopologySource::Discovered => "discovered from the kernel",
            TopologySource::Described => "described (not read from this machine)",
        };
        writeln!(
            f,
            "{} NUMA node(s), {} CPU(s), {source}",
            self.nodes.len(),
            self.cpu_count()
        )?;
        writeln!(
            f,
            "{:>5}  {:>5}  {:<24}  {:>12}  {:>12}  distances",
            "node", "cpus", "cpu list", "memory", "free"
        )?;
        for node in &self.nodes {
            let distances = node
                .distances
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ");
            writeln!(
                f,
                "{:>5}  {:>5}  {:<24}  {:>12}  {:>12}  {}",
                node.id,
                node.cpus.len(),
                format_cpu_list(&node.cpus),
                format_bytes(node.memory_total),
                format_bytes(node.memory_free),
                distances
            )?;
        }
        Ok(())
    }
}

/// Parses a kernel CPU list such as `0-3,8,10-11`.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || Error::InvalidTopology(format!("bad CPU list {text:?}"));
        match part.split_once('-') {
            Some((low, high)) => {
                let (low, high): (usize, usize) = (
                    low.parse().map_err(|_| bad())?,
                    high.parse().map_err(|_| bad())?,
                );
                if low > high {
                    return Err(bad());
                }
                cpus.extend(low..=high);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(cpus)
}

/// Formats CPUs as a compact kernel-style list.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Human-readable byte count (binary units).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn parse_node_meminfo(text: &str) -> (u64, u64) {
    let field = |name: &str| {
        text.lines()
            .find(|line| {
                line.split_whitespace()
                    .any(|w| w.trim_end_matches(':') == name)
            })
            .and_then(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                let position = words.iter().position(|w| w.trim_end_matches(':') == name)?;
                words.get(position + 1)?.parse::<u64>().ok()
            })
            .map_or(0, |kib| kib * 1024)
    };
    (field("MemTotal"), field("MemFree"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<usize>::new());
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }

    #[test]
    fn meminfo_is_parsed_for_nodes_and_the_whole_machine() {
        let node = "Node 0 MemTotal:       24000 kB\nNode 0 MemFree:        1000 kB\n";
        assert_eq!(parse_node_meminfo(node), (24000 * 1024, 1000 * 1024));
        let whole = "MemTotal:       24000 kB\nMemFree:        1000 kB\n";
        assert_eq!(parse_node_meminfo(whole), (24000 * 1024, 1000 * 1024));
    }

    #[test]
    fn discovery_finds_this_machine() {
        let topology = Topology::discover().unwrap();
        assert!(topology.cpu_count() >= 1);
        assert_eq!(topology.source(), TopologySource::Discovered);
        assert!(topology.nodes().iter().all(|n| n.memory_total > 0));
    }

    #[test]
    fn descriptions_round_trip_and_are_validated() {
        let topology = Topology::uniform(2, 4, 1 << 30).unwrap();
        let again = Topology::from_json(&topology.to_json()).unwrap();
        assert_eq!(topology, again);
        assert_eq!(again.node_of_cpu(5), Some(1));
        assert!(matches!(
            again.node(7),
            Err(Error::UnknownNode { node: 7, .. })
        ));
        let duplicate = r#"{"nodes":[{"id":0,"cpus":[0],"memory_total":1,"memory_free":1},{"id":1,"cpus":[0],"memory_total":1,"memory_free":1}]}"#;
        assert!(matches!(
            Topology::from_json(duplicate),
            Err(Error::InvalidTopology(_))
        ));
        assert!(matches!(
            Topology::from_json("{"),
            Err(Error::InvalidTopology(_))
        ));
    }
}
