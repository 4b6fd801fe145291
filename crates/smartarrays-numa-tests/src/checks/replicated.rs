//! Checks of the VM suite: replicated.

use smartarrays::{HugePages, Placement, SmartArray};

use crate::expect;
use crate::os;
use crate::procfs;

use super::*;

/// A public read path of `SmartArray`: its name and a function returning a checksum of what it read.
type ReadPath = (&'static str, fn(&SmartArray) -> u64);

/// The public read paths of a `SmartArray`.
fn read_paths() -> Vec<ReadPath> {
    fn by_get(array: &SmartArray) -> u64 {
        let stride = (os::page_size() * 8 / array.bits() as usize / 2).max(1);
        (0..array.len())
            .step_by(stride)
            .map(|i| array.get(i).unwrap_or(u64::MAX))
            .fold(0, u64::wrapping_add)
    }
    fn by_chunks(array: &SmartArray) -> u64 {
        let mut total = 0u64;
        let visited = array.for_each_chunk(0..array.len(), |_, chunk| {
            total = chunk.iter().fold(total, |t, &v| t.wrapping_add(v))
        });
        if visited.is_err() {
            return u64::MAX;
        }
        total
    }
    fn by_unpack(array: &SmartArray) -> u64 {
        let mut out = vec![0u64; array.len()];
        if array.unpack(0, &mut out).is_err() {
            return u64::MAX;
        }
        out.iter().fold(0, |t, &v| t.wrapping_add(v))
    }
    vec![
        ("get", by_get),
        ("sum", SmartArray::sum),
        ("iter", |a| a.iter().fold(0, u64::wrapping_add)),
        ("for_each_chunk", by_chunks),
        ("unpack", by_unpack),
    ]
}

fn expected_read(array: &SmartArray, path: &str) -> u64 {
    if path == "get" {
        let stride = (os::page_size() * 8 / array.bits() as usize / 2).max(1);
        return (0..array.len())
            .step_by(stride)
            .map(|i| value(i, array.bits()))
            .fold(0, u64::wrapping_add);
    }
    (0..array.len())
        .map(|i| value(i, array.bits()))
        .fold(0, u64::wrapping_add)
}

pub(super) fn replicated_checks(suite: &mut Suite, expected: Expected) {
    let bits = 17;
    let len = len_for_pages(PAGES_PER_ARRAY, bits);
    let array = match build(
        len,
        bits,
        &options(Placement::Replicated, HugePages::Never, None),
    ) {
        Ok(array) => array,
        Err(why) => {
            suite.check("replicated/build", || Err(why));
            return;
        }
    };
    suite.check("replicated/one replica per node", || {
        ensure!(
            array.replica_count() == expected.nodes,
            "{} replicas for {} nodes",
            array.replica_count(),
            expected.nodes
        );
        let want: Vec<Option<usize>> = nodes(expected).into_iter().map(Some).collect();
        ensure!(
            array.replica_nodes() == want,
            "replica_nodes {:?}",
            array.replica_nodes()
        );
        let report = array.placement_report().map_err(ctx("placement_report"))?;
        let intended: Vec<Option<usize>> =
            report.replicas.iter().map(|r| r.intended_node).collect();
        ensure!(intended == want, "report intended nodes {intended:?}");
        Ok(format!(
            "{} replicas on nodes {:?}",
            array.replica_count(),
            nodes(expected)
        ))
    });
    for node in nodes(expected) {
        suite.check(
            format!("replicated/replica {node} entirely on node {node}"),
            || {
                let pages =
                    expect::all_on(&pages_three_ways(&array, node)?, node, data_pages(&array))?;
                let policy = policy_is(&array, node, "bind", &[node])?;
                values_match(&array, node)?;
                Ok(format!("{pages}; {policy}"))
            },
        );
        suite.check(
            format!("replicated/threads pinned to node {node} pick replica {node}"),
            || {
                let replica_start = array.replica(node).packed_words().as_ptr() as usize;
                for cpu in cpus_of(expected, node) {
                    let (index, start, pages, value3) = on_cpu(cpu, || {
                        let pages = os::page_nodes_of_words(array.local().packed_words())
                            .map_err(ctx("move_pages"))?;
                        Ok((
                            array.local_replica_index(),
                            array.local().packed_words().as_ptr() as usize,
                            pages,
                            array.get(3).ok(),
                        ))
                    })?;
                    ensure!(
                        index == node && start == replica_start,
                        "on CPU {cpu}: local_replica_index {index}, view at {start:#x}"
                    );
                    expect::all_on(&pages, node, data_pages(&array))
                        .map_err(|why| format!("on CPU {cpu}, local() pages: {why}"))?;
                    ensure!(
                        value3 == Some(value(3, bits)),
                        "get(3) on CPU {cpu} returned {value3:?}"
                    );
                }
                Ok(format!(
                    "CPUs {:?}: local_replica_index {node}, local() pages on node {node}",
                    cpus_of(expected, node)
                ))
            },
        );
        for (path, read) in read_paths() {
            suite.check(
                format!("replicated/{path}() on node {node} touches only replica {node}"),
                || {
                    let cpu = cpus_of(expected, node)[0];
                    let (result, referenced) = on_cpu(cpu, || {
                        procfs::clear_referenced_bits().map_err(ctx("clear_refs"))?;
                        let result = read(&array);
                        Ok((result, referenced_per_replica(&array)?))
                    })?;
                    ensure!(
                        result == expected_read(&array, path),
                        "{path} read {result}, expected {}",
                        expected_read(&array, path)
                    );
                    only_replica_referenced(&referenced, node, data_kib(&array))
                },
            );
        }
    }
    for node in nodes(expected) {
        suite.check(
            format!("replicated/par_sum on a node-{node} runtime reads replica {node}"),
            || {
                let runtime = runtime_on_node(expected, node)?;
                // Built by the one worker on `node`: binding must still put every replica on its own node.
                let array = build(
                    len,
                    bits,
                    &options(Placement::Replicated, HugePages::Never, Some(runtime)),
                )?;
                for replica in nodes(expected) {
                    let pages = pages_three_ways(&array, replica)?;
                    expect::all_on(&pages, replica, data_pages(&array)).map_err(|why| {
                        format!("replica {replica} built from node {node}: {why}")
                    })?;
                }
                procfs::clear_referenced_bits().map_err(ctx("clear_refs"))?;
                let sum = array.par_sum();
                let referenced = referenced_per_replica(&array)?;
                ensure!(sum == expected_read(&array, "sum"), "par_sum {sum}");
                let detail = only_replica_referenced(&referenced, node, data_kib(&array))?;
                Ok(format!(
                    "replicas placed right although built on node {node}; {detail}"
                ))
            },
        );
    }
    suite.check("replicated/set() reaches every replica", || {
        let mut array = build(
            len,
            bits,
            &options(Placement::Replicated, HugePages::Never, None),
        )?;
        let mut reference: Vec<u64> = (0..len).map(|i| value(i, bits)).collect();
        let max = (1u64 << bits) - 1;
        for (k, i) in (0..len).step_by(997).chain([0, len - 1]).enumerate() {
            let v = (k as u64 * 31 + 5) & max;
            array.set(i, v).map_err(ctx("set"))?;
            reference[i] = v;
        }
        ensure!(
            array.set(1, max + 1).is_err() && array.get(1).ok() == Some(reference[1]),
            "a too-wide set changed the array"
        );
        for replica in 0..array.replica_count() {
            ensure!(
                array.replica(replica).to_vec() == reference,
                "replica {replica} misses writes"
            );
        }
        for node in nodes(expected) {
            let (replica, seen) = on_cpu(cpus_of(expected, node)[0], || {
                Ok((array.local_replica_index(), array.to_vec()))
            })?;
            ensure!(
                replica == node,
                "a reader on node {node} reads replica {replica}"
            );
            ensure!(seen == reference, "a reader on node {node} misses writes");
        }
        for replica in 0..array.replica_count() {
            expect::all_on(
                &pages_three_ways(&array, replica)?,
                replica,
                data_pages(&array),
            )
            .map_err(|why| format!("after writes, replica {replica}: {why}"))?;
        }
        Ok(format!(
            "{} writes visible in all {} replicas and to readers on every node; pages stayed",
            len / 997 + 3,
            array.replica_count()
        ))
    });
}
