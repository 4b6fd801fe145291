//! Placement reports: where an array's pages really are, read back from the kernel
//! (`move_pages` in query mode and `get_mempolicy`), so placement can be checked, not trusted.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::region::Region;
use crate::error::{Error, Result};
use crate::sys;

/// What the kernel says about one replica of an array (its memory region).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaReport {
    /// The node this region was meant for (replicas and single-node arrays), if any.
    pub intended_node: Option<usize>,
    /// The kernel's policy for the region (`default`, `bind`, `interleave`, ...).
    pub policy: String,
    /// The nodes in the policy's mask.
    pub policy_nodes: Vec<usize>,
    /// Base pages in the region.
    pub pages: usize,
    /// Resident pages per node.
    pub pages_by_node: BTreeMap<usize, usize>,
    /// Pages not yet backed by memory (never written).
    pub pages_not_present: usize,
}

impl ReplicaReport {
    /// Whether every resident page is on `node`.
    pub fn entirely_on(&self, node: usize) -> bool {
        self.pages_by_node.keys().all(|&n| n == node)
    }
}

/// Where an array's memory is, replica by replica.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacementReport {
    /// The placement the array was created with (as text).
    pub placement: String,
    /// Base page size in bytes.
    pub page_size: usize,
    /// One entry per replica (one for arrays that are not replicated).
    pub replicas: Vec<ReplicaReport>,
    /// True when the topology was only described and no kernel policy was applied.
    pub simulated: bool,
}

/// Reads back one region's placement.
pub fn region_report(region: &Region, intended_node: Option<usize>) -> Result<ReplicaReport> {
    let statuses =
        sys::page_nodes(region.start(), region.mapped_bytes()).map_err(|e| Error::System {
            call: "move_pages",
            reason: e.to_string(),
        })?;
    let (policy, policy_nodes) = sys::policy_of(region.start()).map_err(|e| Error::System {
        call: "get_mempolicy",
        reason: e.to_string(),
    })?;
    let mut pages_by_node = BTreeMap::new();
    let mut pages_not_present = 0;
    for status in &statuses {
        match status {
            Ok(node) => *pages_by_node.entry(*node).or_insert(0) += 1,
            Err(_) => pages_not_present += 1,
        }
    }
    Ok(ReplicaReport {
        intended_node,
        policy,
        policy_nodes,
        pages: statuses.len(),
        pages_by_node,
        pages_not_present,
    })
}

/// The node of every base page of a region, in address order (`None` for pages not present).
pub fn region_page_nodes(region: &Region) -> Result<Vec<Option<usize>>> {
    let statuses =
        sys::page_nodes(region.start(), region.mapped_bytes()).map_err(|e| Error::System {
            call: "move_pages",
            reason: e.to_string(),
        })?;
    Ok(statuses.into_iter().map(|s| s.ok()).collect())
}

impl fmt::Display for PlacementReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "placement {}", self.placement)?;
        if self.simulated {
            write!(f, " (simulated topology: no kernel policy applied)")?;
        }
        writeln!(f)?;
        for (index, region) in self.replicas.iter().enumerate() {
            let intended = region
                .intended_node
                .map_or_else(|| "-".to_string(), |n| n.to_string());
            let by_node = region
                .pages_by_node
                .iter()
                .map(|(node, pages)| format!("node {node}: {pages}"))
                .collect::<Vec<_>>()
                .join(", ");
            writeln!(
                f,
                "  replica {index}: meant for node {intended}, policy {} {:?}, {} pages of {} B; resident {}; not present {}",
                region.policy,
                region.policy_nodes,
                region.pages,
                self.page_size,
                if by_node.is_empty() { "none".to_string() } else { by_node },
                region.pages_not_present
            )?;
        }
        Ok(())
    }
}
