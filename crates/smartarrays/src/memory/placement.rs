//! `Placement`: where an array's memory goes, and `allocate`, which turns a placement into
//! regions on the right nodes (checking nodes and free memory first).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::region::Region;
use crate::error::{Error, Result};
use crate::sys::{HugePageAdvice, PolicyMode};
use crate::topology::{Topology, TopologySource};

/// How an array's memory is spread over NUMA nodes (paper §4.1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Placement {
    /// No policy: the operating system places each page on the node of the thread that first
    /// writes it (arrays are initialised by workers on every node, so pages spread out).
    #[default]
    OsDefault,
    /// Every page on one node.
    SingleNode(usize),
    /// Pages round-robin over the listed nodes; an empty list means all nodes.
    Interleaved(Vec<usize>),
    /// One full copy per node; each reader uses the copy of the node it runs on, and every
    /// write goes to all copies.
    Replicated,
    /// Chosen when the array is built, by the installed advisor (paper §6; see
    /// [`install_advisor`](crate::array::install_advisor)). An array never keeps this
    /// placement: [`SmartArray::placement`](crate::SmartArray::placement) reports the choice.
    Auto,
}

impl Placement {
    /// The four kinds, one of each, for a machine with this topology (single node = the first
    /// node; interleaved over all nodes). Used by benchmarks and tests.
    pub fn all(topology: &Topology) -> Vec<Placement> {
        vec![
            Placement::OsDefault,
            Placement::SingleNode(topology.nodes()[0].id),
            Placement::Interleaved(Vec::new()),
            Placement::Replicated,
        ]
    }

    /// Short name of the kind: `os`, `single`, `interleaved`, `replicated`.
    pub fn kind(&self) -> &'static str {
        match self {
            Placement::OsDefault => "os",
            Placement::SingleNode(_) => "single",
            Placement::Interleaved(_) => "interleaved",
            Placement::Replicated => "replicated",
            Placement::Auto => "auto",
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::OsDefault => write!(f, "os"),
            Placement::SingleNode(node) => write!(f, "node:{node}"),
            Placement::Interleaved(nodes) if nodes.is_empty() => write!(f, "interleaved"),
            Placement::Interleaved(nodes) => {
                write!(
                    f,
                    "interleaved:{}",
                    nodes
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                )
            }
            Placement::Replicated => write!(f, "replicated"),
            Placement::Auto => write!(f, "auto"),
        }
    }
}

impl FromStr for Placement {
    type Err = Error;

    /// Parses `os` (or `default`), `node:N` (or `single:N`, and `single` for node 0),
    /// `interleaved`, `interleaved:N,M,...`, `replicated`, `auto`.
    fn from_str(text: &str) -> Result<Placement> {
        let bad = || Error::InvalidPlacement(text.to_string());
        let lower = text.trim().to_ascii_lowercase();
        let (kind, argument) = match lower.split_once(':') {
            Some((kind, argument)) => (kind, Some(argument)),
            None => (lower.as_str(), None),
        };
        let nodes = |argument: &str| -> Result<Vec<usize>> {
            argument
                .split(',')
                .map(|n| n.trim().parse::<usize>().map_err(|_| bad()))
                .collect()
        };
        match (kind, argument) {
            ("os" | "default" | "os-default", None) => Ok(Placement::OsDefault),
            ("single" | "single-node", None) => Ok(Placement::SingleNode(0)),
            ("node" | "single" | "single-node", Some(n)) => n
                .trim()
                .parse()
                .map(Placement::SingleNode)
                .map_err(|_| bad()),
            ("interleaved" | "interleave", None) => Ok(Placement::Interleaved(Vec::new())),
            ("interleaved" | "interleave", Some(list)) => nodes(list).map(Placement::Interleaved),
            ("replicated" | "replicate", None) => Ok(Placement::Replicated),
            ("auto", None) => Ok(Placement::Auto),
            _ => Err(bad()),
        }
    }
}

/// A placement the allocator can act on: any [`Placement`] but [`Placement::Auto`]. Users ask
/// for a [`Placement`] (a request, which may say "auto"); the array layer resolves "auto" through
/// the installed advisor and only then makes a `ResolvedPlacement`, the one type [`allocate`]
/// takes. So "auto" cannot reach the allocator: it fails here, where it is resolved, with
/// [`Error::AutoUnresolved`].
///
/// # Example
/// ```
/// use smartarrays::memory::ResolvedPlacement;
/// use smartarrays::Placement;
/// assert!(ResolvedPlacement::new(Placement::Replicated).is_ok());
/// assert!(ResolvedPlacement::new(Placement::Auto).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedPlacement(Placement);

impl ResolvedPlacement {
    /// `placement` as the allocator's input; [`Error::AutoUnresolved`] for [`Placement::Auto`].
    pub fn new(placement: Placement) -> Result<ResolvedPlacement> {
        match placement {
            Placement::Auto => Err(Error::AutoUnresolved(
                "placement auto must be resolved (by the installed advisor, as SmartArray does) \
                 before memory is allocated"
                    .to_string(),
            )),
            concrete => Ok(ResolvedPlacement(concrete)),
        }
    }

    /// The placement itself (never [`Placement::Auto`]).
    pub fn placement(&self) -> &Placement {
        &self.0
    }
}

impl TryFrom<Placement> for ResolvedPlacement {
    type Error = Error;

    fn try_from(placement: Placement) -> Result<ResolvedPlacement> {
        ResolvedPlacement::new(placement)
    }
}

/// Transparent huge page policy for an array's memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HugePages {
    /// Ask for huge pages when a region is at least [`HUGE_PAGE_THRESHOLD`] bytes.
    #[default]
    Auto,
    /// Always ask for huge pages.
    Always,
    /// Ask the kernel not to use huge pages (page-by-page placement, e.g. for tests).
    Never,
}

/// Regions at least this large get `MADV_HUGEPAGE` under [`HugePages::Auto`].
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// The regions of one array: one per replica, with the node each is meant for.
#[derive(Debug)]
pub struct Allocation {
    /// The regions (one unless replicated).
    pub regions: Vec<Region>,
    /// For each region, the node it is bound to (None for OS default and interleaved).
    pub nodes: Vec<Option<usize>>,
    /// Whether kernel policies were skipped because the topology is only described.
    pub simulated: bool,
}

/// Allocates `words` words per region for `placement` on `topology`.
///
/// Checks that every node exists and has room (free memory as the kernel reports it now, or as
/// the description says), then maps and binds. Nothing is leaked on error: regions already
/// mapped are freed when the partial allocation is dropped.
pub fn allocate(
    topology: &Topology,
    placement: &ResolvedPlacement,
    words: usize,
    huge_pages: HugePages,
) -> Result<Allocation> {
    let placement = placement.placement();
    let bytes = (words as u64).saturating_mul(8);
    let advice = match huge_pages {
        HugePages::Always => Some(HugePageAdvice::Use),
        HugePages::Never => Some(HugePageAdvice::Avoid),
        HugePages::Auto if bytes >= HUGE_PAGE_THRESHOLD as u64 => Some(HugePageAdvice::Use),
        HugePages::Auto => None,
    };
    check_fits(topology, placement, words)?;
    let simulated = topology.source() == TopologySource::Described;
    let policy_nodes: Vec<usize>;
    let mut allocation = Allocation {
        regions: Vec::new(),
        nodes: Vec::new(),
        simulated,
    };
    match placement {
        Placement::OsDefault => {
            allocation.regions.push(Region::map(words, None, advice)?);
            allocation.nodes.push(None);
        }
        Placement::SingleNode(node) => {
            let nodes = [*node];
            let policy = (!simulated).then_some((PolicyMode::Bind, &nodes[..]));
            allocation.regions.push(Region::map(words, policy, advice)?);
            allocation.nodes.push(Some(*node));
        }
        Placement::Interleaved(requested) => {
            policy_nodes = if requested.is_empty() {
                topology.node_ids()
            } else {
                requested.clone()
            };
            let policy = (!simulated).then_some((PolicyMode::Interleave, &policy_nodes[..]));
            allocation.regions.push(Region::map(words, policy, advice)?);
            allocation.nodes.push(None);
        }
        Placement::Replicated => {
            for node in topology.node_ids() {
                let nodes = [node];
                let policy = (!simulated).then_some((PolicyMode::Bind, &nodes[..]));
                allocation.regions.push(Region::map(words, policy, advice)?);
                allocation.nodes.push(Some(node));
            }
        }
        // A ResolvedPlacement is never Auto; kept as an error rather than a panic all the same.
        Placement::Auto => return Err(ResolvedPlacement::new(Placement::Auto).unwrap_err()),
    }
    Ok(allocation)
}

/// Checks, without mapping anything, that `words` words per region of `placement` fit on
/// `topology` now: every node named exists and has room for its share, and an allocation with no
/// node binding (OS default, or `Auto` before the advisor has chosen) fits the machine. Callers
/// that would spend time before allocating (scanning values for their width, say) ask this
/// first, so an impossible size fails at once.
pub fn check_fits(topology: &Topology, placement: &Placement, words: usize) -> Result<()> {
    let bytes = (words as u64).saturating_mul(8);
    match placement {
        Placement::OsDefault | Placement::Auto => check_machine_room(topology, bytes),
        Placement::SingleNode(node) => check_room(topology, *node, bytes),
        Placement::Interleaved(requested) => {
            let nodes = if requested.is_empty() {
                topology.node_ids()
            } else {
                requested.clone()
            };
            let share = bytes.div_ceil(nodes.len().max(1) as u64);
            nodes
                .iter()
                .try_for_each(|&node| check_room(topology, node, share))
        }
        Placement::Replicated => topology
            .node_ids()
            .into_iter()
            .try_for_each(|node| check_room(topology, node, bytes)),
    }
}

/// Requests below this many bytes are not checked against the kernel's free-memory figures on
/// a discovered machine: reading them (a file under /proc or /sys) costs tens of microseconds,
/// more than allocating and filling such an array, and a request this small is not what runs
/// a machine out of memory. Described machines are always checked (their figures are at hand).
const UNCHECKED_REQUEST_BYTES: u64 = 1 << 20;

/// Fails with `UnknownNode` or `NotEnoughMemory` when `node` cannot take `bytes` more.
fn check_room(topology: &Topology, node: usize, bytes: u64) -> Result<()> {
    let described = topology.node(node)?;
    let available = match topology.source() {
        TopologySource::Discovered if bytes < UNCHECKED_REQUEST_BYTES => return Ok(()),
        TopologySource::Discovered => current_free_memory(node).unwrap_or(described.memory_free),
        TopologySource::Described => described.memory_free,
    };
    if bytes > available {
        return Err(Error::NotEnoughMemory {
            node,
            requested: bytes,
            available,
        });
    }
    Ok(())
}

/// Fails with `NotEnoughMachineMemory` when the machine as a whole cannot take `bytes` more
/// (allocations with no node binding may land anywhere).
fn check_machine_room(topology: &Topology, bytes: u64) -> Result<()> {
    let described = || topology.nodes().iter().map(|n| n.memory_free).sum::<u64>();
    let available = match topology.source() {
        TopologySource::Discovered if bytes < UNCHECKED_REQUEST_BYTES => return Ok(()),
        TopologySource::Discovered => current_available_memory().unwrap_or_else(described),
        TopologySource::Described => described(),
    };
    if bytes > available {
        return Err(Error::NotEnoughMachineMemory {
            requested: bytes,
            available,
        });
    }
    Ok(())
}

/// Memory the kernel could hand out now without swapping (`MemAvailable` in /proc/meminfo).
pub fn current_available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Free memory of a node right now, from sysfs (`None` when the kernel does not say).
pub fn current_free_memory(node: usize) -> Option<u64> {
    let text =
        std::fs::read_to_string(format!("/sys/devices/system/node/node{node}/meminfo")).ok()?;
    let line = text.lines().find(|l| l.contains("MemFree:"))?;
    let kib: u64 = line.split_whitespace().rev().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(placement: Placement) -> ResolvedPlacement {
        ResolvedPlacement::new(placement).unwrap()
    }

    #[test]
    fn auto_cannot_become_an_allocator_input() {
        assert!(matches!(
            ResolvedPlacement::new(Placement::Auto),
            Err(Error::AutoUnresolved(_))
        ));
        let concrete = ResolvedPlacement::try_from(Placement::SingleNode(1)).unwrap();
        assert_eq!(concrete.placement(), &Placement::SingleNode(1));
    }

    #[test]
    fn placements_parse_and_print() {
        for text in [
            "os",
            "node:3",
            "interleaved",
            "interleaved:0,2",
            "replicated",
        ] {
            assert_eq!(text.parse::<Placement>().unwrap().to_string(), text);
        }
        assert_eq!(
            "single".parse::<Placement>().unwrap(),
            Placement::SingleNode(0)
        );
        for bad in ["", "node", "node:x", "interleaved:1,,2", "mirrored"] {
            assert!(
                matches!(bad.parse::<Placement>(), Err(Error::InvalidPlacement(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn unknown_nodes_and_oversized_requests_are_refused() {
        let topology = Topology::discover().unwrap();
        let missing = topology.node_ids().iter().max().unwrap() + 1;
        assert!(matches!(
            allocate(
                &topology,
                &resolved(Placement::SingleNode(missing)),
                8,
                HugePages::Auto
            ),
            Err(Error::UnknownNode { .. })
        ));
        assert!(matches!(
            allocate(
                &topology,
                &resolved(Placement::Interleaved(vec![0, missing])),
                8,
                HugePages::Auto
            ),
            Err(Error::UnknownNode { .. })
        ));
        let too_big = 1usize << 50;
        assert!(matches!(
            allocate(
                &topology,
                &resolved(Placement::SingleNode(0)),
                too_big,
                HugePages::Auto
            ),
            Err(Error::NotEnoughMemory { node: 0, .. })
        ));
        assert!(matches!(
            allocate(
                &topology,
                &resolved(Placement::Replicated),
                too_big,
                HugePages::Auto
            ),
            Err(Error::NotEnoughMemory { .. })
        ));
    }

    #[test]
    fn os_placement_larger_than_memory_is_refused() {
        let topology = Topology::discover().unwrap();
        let too_big = 1usize << 50;
        let error = allocate(
            &topology,
            &resolved(Placement::OsDefault),
            too_big,
            HugePages::Auto,
        );
        assert!(
            matches!(error, Err(Error::NotEnoughMachineMemory { requested, .. }) if requested == 8 << 50),
            "{error:?}"
        );
        // A described machine: its nodes' free memory together is the limit.
        let described = Topology::uniform(2, 1, 1 << 20).unwrap();
        assert!(allocate(
            &described,
            &resolved(Placement::OsDefault),
            (2 << 20) / 8,
            HugePages::Never
        )
        .is_ok());
        assert!(matches!(
            allocate(&described, &resolved(Placement::OsDefault), (2 << 20) / 8 + 1, HugePages::Never),
            Err(Error::NotEnoughMachineMemory { available, .. }) if available == 2 << 20
        ));
    }

    #[test]
    fn described_topologies_allocate_one_region_per_replica_without_kernel_policy() {
        let topology = Topology::uniform(3, 1, 1 << 30).unwrap();
        let allocation = allocate(
            &topology,
            &resolved(Placement::Replicated),
            100,
            HugePages::Never,
        )
        .unwrap();
        assert_eq!(allocation.regions.len(), 3);
        assert_eq!(allocation.nodes, vec![Some(0), Some(1), Some(2)]);
        assert!(allocation.simulated);
        assert!(matches!(
            allocate(
                &topology,
                &resolved(Placement::SingleNode(0)),
                1 << 28,
                HugePages::Auto
            ),
            Err(Error::NotEnoughMemory { .. })
        ));
    }
}
