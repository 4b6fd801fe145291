//! Table placement: where a table's columns go on a NUMA machine when the caller leaves it to the
//! engine (`Placement::Auto` in the table's column options), and why, in words a user can read
//! (`Table::placement_reason`, `EXPLAIN`).
//!
//! The rule looks at one table at a time, so it works the same for generated, loaded and
//! imported tables:
//! - **One node:** every placement puts the pages on node 0, so the table stays where the
//!   operating system puts it (`os`).
//! - **A small table** (a dimension: its copies on every node together take at most 1/64 of one
//!   node's memory) is **replicated**. Joins read it at random from every worker (build sides,
//!   text fetched by row id), and a copy per node keeps those reads local for little memory.
//! - **A large table** (a fact table) is **interleaved** over all nodes: it is scanned by every
//!   worker, and spreading its pages draws on every node's memory bandwidth at once, where one
//!   node's would be the bottleneck; copying it to every node would cost too much memory.
//!
//! Sizes are the table's decoded bytes (8 per number, the text's length), an upper bound of its
//! compressed size known before anything is built.

use smartarrays::{Placement, Topology};
use smartarrays_encodings::Values;

/// The share of one node's memory that all copies of a replicated table may take.
pub const REPLICA_BUDGET_SHARE: u64 = 64;

/// The placement chosen for one table and the reason for it.
#[derive(Clone, Debug, PartialEq)]
pub struct TablePlacement {
    /// Where the table's columns go (never [`Placement::Auto`]).
    pub placement: Placement,
    /// Why, with the numbers behind it.
    pub reason: String,
}

impl TablePlacement {
    /// The placement of a table of `decoded_bytes` on `topology` (see the module's rule).
    ///
    /// # Example
    /// ```
    /// use smartarrays::{Placement, Topology};
    /// use smartarrays_query::placement::TablePlacement;
    /// let two_nodes = Topology::uniform(2, 8, 64 << 30).unwrap();
    /// let nation = TablePlacement::choose(2_000, &two_nodes);
    /// assert_eq!(nation.placement, Placement::Replicated);
    /// let lineitem = TablePlacement::choose(700 << 20, &two_nodes);
    /// assert_eq!(lineitem.placement, Placement::Interleaved(vec![]));
    /// let one_node = Topology::uniform(1, 2, 24 << 30).unwrap();
    /// assert_eq!(TablePlacement::choose(2_000, &one_node).placement, Placement::OsDefault);
    /// ```
    pub fn choose(decoded_bytes: u64, topology: &Topology) -> TablePlacement {
        let nodes = topology.nodes();
        if nodes.len() <= 1 {
            return TablePlacement {
                placement: Placement::OsDefault,
                reason:
                    "os: one NUMA node, where every placement puts the pages on node 0, so the \
                         table stays where the operating system puts it"
                        .to_string(),
            };
        }
        let smallest_node = nodes.iter().map(|n| n.memory_total).min().unwrap_or(0);
        let budget = smallest_node / REPLICA_BUDGET_SHARE;
        let copies = decoded_bytes.saturating_mul(nodes.len() as u64);
        let sizes = format!(
            "{} copies of {} take {}, against a budget of {} (1/{REPLICA_BUDGET_SHARE} of a node's {})",
            nodes.len(),
            mib(decoded_bytes),
            mib(copies),
            mib(budget),
            mib(smallest_node)
        );
        if copies <= budget {
            TablePlacement {
                placement: Placement::Replicated,
                reason: format!(
                    "replicated: a small table that joins read at random from every worker, so \
                     a copy per node keeps those reads local ({sizes})"
                ),
            }
        } else {
            TablePlacement {
                placement: Placement::Interleaved(vec![]),
                reason: format!(
                    "interleaved over {} nodes: a large table scanned by every worker, whose \
                     pages spread over all nodes give the scans every node's bandwidth; too \
                     large to copy to each node ({sizes})",
                    nodes.len()
                ),
            }
        }
    }

    /// The placement the caller asked for, kept as it is.
    pub fn asked(placement: &Placement) -> TablePlacement {
        TablePlacement {
            placement: placement.clone(),
            reason: format!("{placement}: as asked"),
        }
    }
}

/// The decoded size of a table's values: 8 bytes per number or date (1 per boolean) and the
/// length of every string plus its 8-byte offset.
///
/// # Example
/// ```
/// use smartarrays_encodings::Values;
/// use smartarrays_query::placement::decoded_bytes;
/// let columns = vec![
///     ("id".to_string(), Values::Int64(vec![1, 2])),
///     ("name".to_string(), Values::Utf8(vec!["ab".into(), "c".into()])),
/// ];
/// assert_eq!(decoded_bytes(&columns), 16 + 3 + 16);
/// ```
pub fn decoded_bytes(columns: &[(String, Values)]) -> u64 {
    columns
        .iter()
        .map(|(_, values)| match values {
            Values::Utf8(strings) => strings.iter().map(|s| s.len() as u64 + 8).sum(),
            Values::Bool(v) => v.len() as u64,
            other => other.len() as u64 * 8,
        })
        .sum()
}

fn mib(bytes: u64) -> String {
    smartarrays::topology::format_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(n: usize, memory: u64) -> Topology {
        Topology::uniform(n, 4, memory).unwrap()
    }

    #[test]
    fn one_node_keeps_the_os_placement_at_every_size() {
        for bytes in [0, 1, 1 << 20, 1 << 40, u64::MAX] {
            let choice = TablePlacement::choose(bytes, &nodes(1, 24 << 30));
            assert_eq!(choice.placement, Placement::OsDefault);
            assert!(choice.reason.contains("one NUMA node"), "{}", choice.reason);
        }
    }

    #[test]
    fn the_replica_budget_is_the_boundary() {
        // 4 nodes of 64 GiB: all copies may take 1 GiB, so a table of 256 MiB is replicated
        // and one byte more is interleaved.
        let topology = nodes(4, 64 << 30);
        let at = TablePlacement::choose(256 << 20, &topology);
        assert_eq!(at.placement, Placement::Replicated);
        assert!(at.reason.starts_with("replicated"), "{}", at.reason);
        let over = TablePlacement::choose((256 << 20) + 1, &topology);
        assert_eq!(over.placement, Placement::Interleaved(vec![]));
        assert!(
            over.reason.contains("interleaved over 4 nodes"),
            "{}",
            over.reason
        );
    }

    #[test]
    fn huge_tables_do_not_overflow_the_copy_count() {
        let choice = TablePlacement::choose(u64::MAX, &nodes(8, 1 << 40));
        assert_eq!(choice.placement, Placement::Interleaved(vec![]));
    }

    #[test]
    fn empty_tables_are_replicated_on_several_nodes() {
        assert_eq!(
            TablePlacement::choose(0, &nodes(2, 1 << 30)).placement,
            Placement::Replicated
        );
    }

    #[test]
    fn asked_placements_are_kept() {
        let choice = TablePlacement::asked(&Placement::SingleNode(1));
        assert_eq!(choice.placement, Placement::SingleNode(1));
        assert_eq!(choice.reason, "node:1: as asked");
    }

    #[test]
    fn decoded_bytes_counts_every_type() {
        let columns = vec![
            ("a".to_string(), Values::UInt64(vec![1, 2, 3])),
            ("b".to_string(), Values::Bool(vec![true, false])),
            (
                "c".to_string(),
                Values::Decimal {
                    unscaled: vec![5],
                    scale: 2,
                },
            ),
            ("d".to_string(), Values::Date32(vec![])),
            (
                "e".to_string(),
                Values::Utf8(vec![String::new(), "é".into()]),
            ),
        ];
        assert_eq!(decoded_bytes(&columns), 24 + 2 + 8 + (8 + 10));
    }
}
