//! Checks of the VM suite: single node.

use smartarrays::{HugePages, Placement};

use crate::expect;
use crate::os;

use super::*;

pub(super) fn single_node_checks(suite: &mut Suite, expected: Expected) {
    let bits = 13;
    let len = len_for_pages(PAGES_PER_ARRAY, bits);
    for node in nodes(expected) {
        for writer in nodes(expected) {
            suite.check(
                format!("single/node {node}, initialised by a worker on node {writer}"),
                || {
                    let runtime = runtime_on_node(expected, writer)?;
                    let array = build(
                        len,
                        bits,
                        &options(Placement::SingleNode(node), HugePages::Never, Some(runtime)),
                    )?;
                    let pages =
                        expect::all_on(&pages_three_ways(&array, 0)?, node, data_pages(&array))?;
                    let policy = policy_is(&array, 0, "bind", &[node])?;
                    values_match(&array, 0)?;
                    ensure!(
                        array.replica_nodes() == [Some(node)],
                        "replica_nodes {:?}",
                        array.replica_nodes()
                    );
                    Ok(format!("{pages}; {policy}"))
                },
            );
        }
        suite.check(
            format!("single/node {node}, global runtime, then set() from every node"),
            || {
                let mut array = build(
                    len,
                    bits,
                    &options(Placement::SingleNode(node), HugePages::Never, None),
                )?;
                let stride = os::page_size() * 8 / bits as usize;
                for from in nodes(expected) {
                    let cpu = cpus_of(expected, from)[0];
                    // Writes from a thread on another node must not move or duplicate pages.
                    array = on_cpu(cpu, move || {
                        for i in (from..array.len()).step_by(stride) {
                            array.set(i, 1).map_err(ctx("set"))?;
                        }
                        Ok(array)
                    })?;
                }
                let pages = pages_three_ways(&array, 0)?;
                expect::all_on(&pages, node, data_pages(&array))
            },
        );
    }
}
