//! Machine description (input 1 of the paper's §6): NUMA nodes with their CPUs, cores and memory;
//! read bandwidth and latency for every (reader node, memory node) pair; peak compute per core.
//!
//! A description comes from one of three places: a preset (the paper's two machines of its
//! Table 1), the short built-in microbenchmark of [`crate::mlc`] run on this machine, or a JSON
//! file. The JSON format (`"format": "smartarrays-machine/1"`) is documented on
//! [`MachineDescription`]; [`MachineDescription::load`] validates everything it reads. A
//! measured description is cached on disk under [`cache_dir`], keyed by [`fingerprint`], so the
//! microbenchmark runs once per machine.
//!
//! Remote figures are optional: a one-node machine has none, and a multi-node description may
//! leave a pair unmeasured. The decision code treats a missing pair as "this placement cannot be
//! estimated" and says so, instead of inventing a number.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use smartarrays::Topology;

use crate::error::{AdaptError, Result};

/// Format tag written into, and required from, machine description files.
pub const MACHINE_FORMAT: &str = "smartarrays-machine/1";

/// Environment variable that overrides the cache directory (used before `XDG_CACHE_HOME`).
pub const CACHE_DIR_ENV: &str = "SMARTARRAYS_CACHE_DIR";

/// One NUMA node of a described machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeDescription {
    /// Node number (as the kernel numbers it on a measured machine).
    pub id: usize,
    /// Hardware threads (logical CPUs) of the node.
    pub cpus: usize,
    /// Physical cores of the node: the compute capacity the model counts (hyper-threads share a
    /// core's execution units, so they add no capacity in the model).
    pub cores: usize,
    /// Memory of the node in bytes.
    pub memory_total: u64,
    /// Free memory of the node in bytes (refreshed from the kernel before deciding on this machine).
    pub memory_free: u64,
}

/// Read performance of node `from`'s cores reading memory of node `to` (`from == to`: local).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Node whose cores read.
    pub from: usize,
    /// Node whose memory is read.
    pub to: usize,
    /// Peak read bandwidth with all of `from`'s cores streaming, in GB/s (10^9 bytes per second).
    /// For a local pair this is also the capacity of the node's memory channels.
    pub read_bandwidth_gbs: f64,
    /// Latency of one dependent load that misses every cache, in nanoseconds.
    pub latency_ns: f64,
}

/// Where a description came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MachineSource {
    /// Shipped with the crate (the paper's machines).
    Preset,
    /// Measured on the machine it describes by the built-in microbenchmark.
    Measured,
    /// Written by hand (or edited) and loaded from a file.
    Described,
}

/// A machine as the adaptivity decision sees it.
///
/// # JSON format
/// ```json
/// {
///   "format": "smartarrays-machine/1",
///   "name": "2x8-core Xeon E5-2630 v3",
///   "source": "preset",
///   "fingerprint": "paper-8core",
///   "clock_ghz": 2.4,
///   "peak_gops_per_core": 9.6,
///   "memory_level_parallelism": 10.0,
///   "nodes": [{"id": 0, "cpus": 16, "cores": 8, "memory_total": 137438953472, "memory_free": 137438953472}],
///   "links": [{"from": 0, "to": 0, "read_bandwidth_gbs": 49.3, "latency_ns": 77.0}],
///   "notes": ["..."]
/// }
/// ```
/// `links` holds one entry per measured (reader, memory) pair; pairs not listed are unknown.
/// `peak_gops_per_core` is a simple measured compute figure (independent integer operations
/// per nanosecond on one core); `memory_level_parallelism` is how many cache misses one core
/// keeps in flight (used to turn latency into random-access throughput).
///
/// # Example
/// ```
/// use smartarrays_adapt::MachineDescription;
/// let paper = MachineDescription::paper_8core();
/// assert_eq!(paper.nodes.len(), 2);
/// assert_eq!(paper.link(0, 1).unwrap().read_bandwidth_gbs, 8.0);
/// let again = MachineDescription::from_json(&paper.to_json()).unwrap();
/// assert_eq!(again, paper);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineDescription {
    /// Must be [`MACHINE_FORMAT`].
    pub format: String,
    /// Human-readable name.
    pub name: String,
    /// Where the figures came from.
    pub source: MachineSource,
    /// Identity of the machine (see [`fingerprint`]); presets use their own names.
    pub fingerprint: String,
    /// Nominal clock rate, when known.
    #[serde(default)]
    pub clock_ghz: Option<f64>,
    /// Simple operations per nanosecond one core sustains (compute figure).
    pub peak_gops_per_core: f64,
    /// Cache misses one core keeps in flight.
    pub memory_level_parallelism: f64,
    /// The nodes, ascending by id.
    pub nodes: Vec<NodeDescription>,
    /// Measured (reader, memory) pairs.
    pub links: Vec<Link>,
    /// Free-form remarks (how it was measured, what is modelled).
    #[serde(default)]
    pub notes: Vec<String>,
}

const GIB: u64 = 1 << 30;

impl MachineDescription {
    /// The paper's 2×8-core machine (Table 1: Xeon E5-2630 v3, 2.4 GHz, 128 GB per socket,
    /// 77 / 130 ns local / remote latency, 49.3 / 8 GB/s local / remote bandwidth).
    pub fn paper_8core() -> MachineDescription {
        paper_machine(
            "paper-8core",
            "2x8-core Xeon E5-2630 v3 (paper Table 1)",
            2.4,
            8,
            128,
            (77.0, 130.0),
            (49.3, 8.0),
        )
    }

    /// The paper's 2×18-core machine (Table 1: Xeon E5-2699 v3, 2.3 GHz, 192 GB per socket,
    /// 85 / 132 ns local / remote latency, 43.8 / 26.8 GB/s local / remote bandwidth).
    pub fn paper_18core() -> MachineDescription {
        paper_machine(
            "paper-18core",
            "2x18-core Xeon E5-2699 v3 (paper Table 1)",
            2.3,
            18,
            192,
            (85.0, 132.0),
            (43.8, 26.8),
        )
    }

    /// The presets by name: `paper-8core`, `paper-18core`.
    pub fn preset(name: &str) -> Option<MachineDescription> {
        match name.trim().to_ascii_lowercase().as_str() {
            "paper-8core" | "8core" | "paper-8" => Some(MachineDescription::paper_8core()),
            "paper-18core" | "18core" | "paper-18" => Some(MachineDescription::paper_18core()),
            _ => None,
        }
    }

    /// Names of the presets.
    pub const PRESETS: [&'static str; 2] = ["paper-8core", "paper-18core"];

    /// The figures for `from`'s cores reading `to`'s memory, if measured.
    pub fn link(&self, from: usize, to: usize) -> Option<&Link> {
        self.links.iter().find(|l| l.from == from && l.to == to)
    }

    /// The node with this id.
    pub fn node(&self, id: usize) -> Option<&NodeDescription> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Node ids, ascending.
    pub fn node_ids(&self) -> Vec<usize> {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// Total physical cores.
    pub fn total_cores(&self) -> usize {
        self.nodes.iter().map(|n| n.cores).sum()
    }

    /// Whether every remote pair has figures (always true on one node).
    pub fn has_all_remote_figures(&self) -> bool {
        self.nodes.iter().all(|a| {
            self.nodes
                .iter()
                .all(|b| a.id == b.id || self.link(a.id, b.id).is_some())
        })
    }

    /// Checks the description: format tag, unique nodes, positive figures, links between
    /// known nodes, a local link for every node.
    pub fn validate(&self) -> Result<()> {
        let bad = |detail: String| Err(AdaptError::invalid("machine description", detail));
        if self.format != MACHINE_FORMAT {
            return bad(format!(
                "format is {:?}, expected {MACHINE_FORMAT:?}",
                self.format
            ));
        }
        if self.nodes.is_empty() {
            return bad("it has no node".into());
        }
        let mut ids: Vec<usize> = self.node_ids();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != self.nodes.len() {
            return bad("a node id is listed twice".into());
        }
        for node in &self.nodes {
            if node.cores == 0 || node.cpus < node.cores {
                return bad(format!(
                    "node {} has {} cores and {} CPUs (need 1 <= cores <= cpus)",
                    node.id, node.cores, node.cpus
                ));
            }
            if node.memory_free > node.memory_total {
                return bad(format!("node {} has more free memory than memory", node.id));
            }
            if self.link(node.id, node.id).is_none() {
                return bad(format!(
                    "node {} has no local bandwidth/latency figures",
                    node.id
                ));
            }
        }
        for link in &self.links {
            if self.node(link.from).is_none() || self.node(link.to).is_none() {
                return bad(format!(
                    "link {} -> {} names a node that is not described",
                    link.from, link.to
                ));
            }
            if !(link.read_bandwidth_gbs.is_finite() && link.read_bandwidth_gbs > 0.0) {
                return bad(format!(
                    "link {} -> {} has bandwidth {} GB/s",
                    link.from, link.to, link.read_bandwidth_gbs
                ));
            }
            if !(link.latency_ns.is_finite() && link.latency_ns > 0.0) {
                return bad(format!(
                    "link {} -> {} has latency {} ns",
                    link.from, link.to, link.latency_ns
                ));
            }
            if self
                .links
                .iter()
                .filter(|l| l.from == link.from && l.to == link.to)
                .count()
                > 1
            {
                return bad(format!("link {} -> {} is listed twice", link.from, link.to));
            }
        }
        if !(self.peak_gops_per_core.is_finite() && self.peak_gops_per_core > 0.0) {
            return bad(format!("peak_gops_per_core is {}", self.peak_gops_per_core));
        }
        if !(self.memory_level_parallelism.is_finite() && self.memory_level_parallelism >= 1.0) {
            return bad(format!(
                "memory_level_parallelism is {} (need at least 1)",
                self.memory_level_parallelism
            ));
        }
        Ok(())
    }

    /// Parses and validates a JSON description.
    pub fn from_json(text: &str) -> Result<MachineDescription> {
        let machine: MachineDescription = serde_json::from_str(text)
            .map_err(|e| AdaptError::invalid("machine description", e.to_string()))?;
        machine.validate()?;
        Ok(machine)
    }

    /// The description as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and validates a description file.
    pub fn load(path: &Path) -> Result<MachineDescription> {
        let text = std::fs::read_to_string(path).map_err(|e| AdaptError::io(path, e))?;
        MachineDescription::from_json(&text).map_err(|e| match e {
            AdaptError::InvalidDescription { what, detail } => AdaptError::InvalidDescription {
                what,
                detail: format!("{}: {detail}", path.display()),
            },
            other => other,
        })
    }

    /// Writes the description (creating parent directories).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_file(path, &self.to_json())
    }

    /// Replaces every node's free memory with what the kernel reports now (for a description of
    /// this machine; nodes the kernel does not know keep their figure).
    pub fn refresh_free_memory(&mut self) {
        for node in &mut self.nodes {
            if let Some(free) = smartarrays::memory::current_free_memory(node.id) {
                node.memory_free = free.min(node.memory_total);
            }
        }
    }

    /// A copy with every node's free memory set to `bytes` (for "what if memory were short").
    pub fn with_free_memory(&self, bytes: u64) -> MachineDescription {
        let mut copy = self.clone();
        for node in &mut copy.nodes {
            node.memory_free = bytes.min(node.memory_total);
        }
        copy
    }
}

impl std::fmt::Display for MachineDescription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            MachineSource::Preset => "preset",
            MachineSource::Measured => "measured here",
            MachineSource::Described => "described in a file",
        };
        writeln!(
            f,
            "machine: {} ({source}; fingerprint {})",
            self.name, self.fingerprint
        )?;
        let clock = self
            .clock_ghz
            .map_or(String::new(), |c| format!(", clock {c} GHz"));
        writeln!(
            f,
            "  compute: {:.2} simple ops/ns per core{clock}; {:.1} misses in flight per core",
            self.peak_gops_per_core, self.memory_level_parallelism
        )?;
        for node in &self.nodes {
            writeln!(
                f,
                "  node {}: {} CPUs, {} cores, memory {} ({} free)",
                node.id,
                node.cpus,
                node.cores,
                smartarrays::topology::format_bytes(node.memory_total),
                smartarrays::topology::format_bytes(node.memory_free)
            )?;
        }
        for a in &self.nodes {
            for b in &self.nodes {
                match self.link(a.id, b.id) {
                    Some(link) => writeln!(
                        f,
                        "  node {} reads node {} ({}): {:.1} GB/s, {:.0} ns",
                        a.id,
                        b.id,
                        if a.id == b.id { "local" } else { "remote" },
                        link.read_bandwidth_gbs,
                        link.latency_ns
                    )?,
                    None => writeln!(f, "  node {} reads node {}: not measured", a.id, b.id)?,
                }
            }
        }
        if self.nodes.len() == 1 {
            writeln!(
                f,
                "  one node: there is no remote memory, so no remote figures"
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

fn paper_machine(
    fingerprint: &str,
    name: &str,
    clock_ghz: f64,
    cores: usize,
    memory_gib: u64,
    (local_ns, remote_ns): (f64, f64),
    (local_gbs, remote_gbs): (f64, f64),
) -> MachineDescription {
    let nodes = (0..2)
        .map(|id| NodeDescription {
            id,
            cpus: 2 * cores,
            cores,
            memory_total: memory_gib * GIB,
            memory_free: memory_gib * GIB,
        })
        .collect();
    let mut links = Vec::new();
    for from in 0..2 {
        for to in 0..2 {
            let local = from == to;
            links.push(Link {
                from,
                to,
                read_bandwidth_gbs: if local { local_gbs } else { remote_gbs },
                latency_ns: if local { local_ns } else { remote_ns },
            });
        }
    }
    MachineDescription {
        format: MACHINE_FORMAT.to_string(),
        name: name.to_string(),
        source: MachineSource::Preset,
        fingerprint: fingerprint.to_string(),
        clock_ghz: Some(clock_ghz),
        peak_gops_per_core: 4.0 * clock_ghz,
        memory_level_parallelism: 10.0,
        nodes,
        links,
        notes: vec![
            "latencies and bandwidths are the paper's Table 1 (measured there with Intel MLC)".into(),
            "peak compute is modelled as 4 simple operations per cycle at the nominal clock; 10 misses in flight per core (Haswell's fill buffers)".into(),
            "memory per socket is the paper's; all of it is assumed free".into(),
        ],
    }
}

/// Identity of this machine for the caches: a hash of the CPU model, the kernel's NUMA layout
/// (CPUs and memory size per node) and the codec kernel the CPU runs. Any change to those
/// invalidates cached measurements.
pub fn fingerprint(topology: &Topology) -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown-cpu".into());
    let mut identity = format!("{model}|{}", smartarrays::codec::detected_level().name());
    for node in topology.nodes() {
        identity += &format!(
            "|node{}:{}cpus:{}GiB",
            node.id,
            node.cpus.len(),
            node.memory_total.div_ceil(GIB)
        );
    }
    format!("{:016x}", fnv1a(identity.as_bytes()))
}

/// 64-bit FNV-1a: a stable hash (unlike the standard library's, which may change between
/// releases), so cache keys stay valid across builds.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| {
        (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The cache directory: `$SMARTARRAYS_CACHE_DIR`, else `$XDG_CACHE_HOME/smartarrays`, else
/// `$HOME/.cache/smartarrays`, else a folder under the system's temporary directory.
pub fn cache_dir() -> PathBuf {
    let from_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = from_env(CACHE_DIR_ENV) {
        return dir;
    }
    if let Some(dir) = from_env("XDG_CACHE_HOME") {
        return dir.join("smartarrays");
    }
    if let Some(home) = from_env("HOME") {
        return home.join(".cache").join("smartarrays");
    }
    std::env::temp_dir().join("smartarrays-cache")
}

/// Path of the cached machine description for a fingerprint.
pub fn machine_cache_path(dir: &Path, fingerprint: &str) -> PathBuf {
    dir.join(format!("machine-{fingerprint}.json"))
}

/// Writes `text` to `path` atomically (temporary file, then rename), creating parent folders.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| AdaptError::io(parent, e))?;
    }
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, text).map_err(|e| AdaptError::io(&temporary, e))?;
    std::fs::rename(&temporary, path).map_err(|e| AdaptError::io(path, e))
}

/// Physical cores among `cpus` (distinct package/core pairs from sysfs; the CPU count when sysfs
/// does not say).
pub(crate) fn physical_cores(cpus: &[usize]) -> usize {
    let mut cores = std::collections::BTreeSet::new();
    for &cpu in cpus {
        let read = |name: &str| {
            std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{name}"))
                .ok()
        };
        match (read("physical_package_id"), read("core_id")) {
            (Some(package), Some(core)) => {
                cores.insert((package.trim().to_string(), core.trim().to_string()));
            }
            _ => return cpus.len(),
        }
    }
    cores.len().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_carry_the_papers_table_1() {
        let eight = MachineDescription::paper_8core();
        eight.validate().unwrap();
        assert_eq!(eight.link(0, 0).unwrap().read_bandwidth_gbs, 49.3);
        assert_eq!(eight.link(1, 0).unwrap().read_bandwidth_gbs, 8.0);
        assert_eq!(eight.link(0, 1).unwrap().latency_ns, 130.0);
        assert_eq!(eight.total_cores(), 16);
        assert_eq!(eight.nodes[0].memory_total, 128 * GIB);
        let eighteen = MachineDescription::paper_18core();
        eighteen.validate().unwrap();
        assert_eq!(eighteen.link(1, 1).unwrap().latency_ns, 85.0);
        assert_eq!(eighteen.link(0, 1).unwrap().read_bandwidth_gbs, 26.8);
        assert_eq!(eighteen.total_cores(), 36);
        assert_eq!(eighteen.clock_ghz, Some(2.3));
        assert!(
            MachineDescription::preset("PAPER-18CORE").is_some()
                && MachineDescription::preset("x").is_none()
        );
    }

    #[test]
    fn descriptions_round_trip_through_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("m.json");
        let machine = MachineDescription::paper_18core();
        machine.save(&path).unwrap();
        assert_eq!(MachineDescription::load(&path).unwrap(), machine);
        assert!(matches!(
            MachineDescription::load(&dir.path().join("missing.json")),
            Err(AdaptError::Io { .. })
        ));
    }

    #[test]
    fn one_node_descriptions_need_no_remote_figures() {
        let mut machine = MachineDescription::paper_8core();
        machine.nodes.truncate(1);
        machine.links.retain(|l| l.from == 0 && l.to == 0);
        machine.validate().unwrap();
        assert!(machine.has_all_remote_figures());
        assert!(machine.to_string().contains("no remote figures"));
    }

    #[test]
    fn bad_descriptions_are_refused_with_the_reason() {
        let good = MachineDescription::paper_8core();
        type Breaker = Box<dyn Fn(&mut MachineDescription)>;
        let cases: Vec<(Breaker, &str)> = vec![
            (Box::new(|m| m.format = "other/1".into()), "format"),
            (Box::new(|m| m.nodes.clear()), "no node"),
            (Box::new(|m| m.nodes[1].id = 0), "twice"),
            (Box::new(|m| m.nodes[0].cores = 0), "cores"),
            (
                Box::new(|m| m.nodes[0].memory_free = m.nodes[0].memory_total + 1),
                "free memory",
            ),
            (
                Box::new(|m| m.links.retain(|l| !(l.from == 1 && l.to == 1))),
                "local",
            ),
            (
                Box::new(|m| m.links[1].read_bandwidth_gbs = -1.0),
                "bandwidth",
            ),
            (Box::new(|m| m.links[1].latency_ns = 0.0), "latency"),
            (Box::new(|m| m.links[1].to = 7), "not described"),
            (Box::new(|m| m.peak_gops_per_core = 0.0), "peak"),
            (
                Box::new(|m| m.memory_level_parallelism = 0.5),
                "memory_level_parallelism",
            ),
        ];
        for (break_it, expected) in cases {
            let mut machine = good.clone();
            break_it(&mut machine);
            let error = MachineDescription::from_json(&machine.to_json())
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(expected),
                "{error} should mention {expected}"
            );
        }
        assert!(MachineDescription::from_json("{").is_err());
        assert!(MachineDescription::from_json("{\"format\": \"smartarrays-machine/1\"}").is_err());
    }

    #[test]
    fn fingerprints_are_stable_and_cache_paths_follow_the_environment_rules() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let topology = Topology::discover().unwrap();
        assert_eq!(fingerprint(&topology), fingerprint(&topology));
        assert_eq!(fingerprint(&topology).len(), 16);
        let path = machine_cache_path(Path::new("/x"), "abc");
        assert_eq!(path, PathBuf::from("/x/machine-abc.json"));
    }
}
