//! Checks of the VM suite: topology.

use smartarrays::topology::format_cpu_list;
use smartarrays::{Topology, TopologySource};

use crate::os;
use crate::procfs;

use super::*;

pub(super) fn topology_checks(suite: &mut Suite, expected: Expected) {
    let (n, c, m) = (
        expected.nodes,
        expected.cpus_per_node,
        expected.mib_per_node,
    );
    suite.check(format!("topology/nodes and cpus (-n {n} -c {c})"), || {
        let topology = topology()?;
        ensure!(
            topology.source() == TopologySource::Discovered,
            "source is {:?}",
            topology.source()
        );
        ensure!(
            topology.node_ids() == nodes(expected),
            "nodes {:?}, expected {:?}",
            topology.node_ids(),
            nodes(expected)
        );
        for node in topology.nodes() {
            ensure!(
                node.cpus == cpus_of(expected, node.id),
                "node {} has CPUs {:?}, expected {:?}",
                node.id,
                node.cpus,
                cpus_of(expected, node.id)
            );
        }
        ensure!(
            topology.cpu_count() == n * c,
            "{} CPUs, expected {}",
            topology.cpu_count(),
            n * c
        );
        let allowed = os::thread_affinity().map_err(ctx("sched_getaffinity"))?;
        ensure!(
            allowed == (0..n * c).collect::<Vec<_>>(),
            "the process may run on CPUs {allowed:?}"
        );
        let current = Topology::current().map_err(ctx("Topology::current"))?;
        ensure!(
            current.node_ids() == topology.node_ids()
                && current.cpu_count() == topology.cpu_count(),
            "Topology::current differs"
        );
        Ok(format!(
            "{n} nodes, CPUs {}",
            topology
                .nodes()
                .iter()
                .map(|node| format!("{}:[{}]", node.id, format_cpu_list(&node.cpus)))
                .collect::<Vec<_>>()
                .join(" ")
        ))
    });
    suite.check(format!("topology/memory per node (-m {m})"), || {
        let topology = topology()?;
        let mut total = 0;
        let mut shown = Vec::new();
        for node in topology.nodes() {
            let sysfs = procfs::node_mem_total(node.id).map_err(ctx("node meminfo"))?;
            ensure!(
                node.memory_total == sysfs,
                "node {} memory_total {} but sysfs MemTotal is {sysfs}",
                node.id,
                node.memory_total
            );
            // The guest kernel keeps page structures (~1/64) on every node and its image on node 0.
            let floor = m * MIB - m * MIB / 16 - if node.id == 0 { 96 * MIB } else { 0 };
            ensure!(
                node.memory_total <= m * MIB && node.memory_total >= floor,
                "node {} has {} bytes, expected between {floor} and {} (-m {m})",
                node.id,
                node.memory_total,
                m * MIB
            );
            ensure!(
                node.memory_free > 0 && node.memory_free <= node.memory_total,
                "node {} free {} of {}",
                node.id,
                node.memory_free,
                node.memory_total
            );
            total += node.memory_total;
            shown.push(format!(
                "{}:{:.1}MiB",
                node.id,
                node.memory_total as f64 / MIB as f64
            ));
        }
        let machine = procfs::machine_mem_total().map_err(ctx("/proc/meminfo"))?;
        ensure!(
            total == machine,
            "nodes total {total} bytes, /proc/meminfo MemTotal {machine}"
        );
        Ok(format!(
            "{} (sum {} B = /proc/meminfo MemTotal)",
            shown.join(" "),
            total
        ))
    });
    suite.check("topology/distances", || {
        let topology = topology()?;
        for node in topology.nodes() {
            let want: Vec<u32> = (0..n)
                .map(|other| if other == node.id { 10 } else { 20 })
                .collect();
            ensure!(
                node.distances == want,
                "node {} distances {:?}, expected {want:?}",
                node.id,
                node.distances
            );
        }
        Ok("10 local, 20 remote".into())
    });
    suite.check("topology/current_node on every CPU", || {
        let topology = topology()?;
        for node in nodes(expected) {
            for cpu in cpus_of(expected, node) {
                let (library, kernel) = on_cpu(cpu, || {
                    Ok((
                        topology.current_node(),
                        os::cpu_and_node().map_err(ctx("getcpu"))?.1,
                    ))
                })?;
                ensure!(
                    library == Some(node) && kernel == node,
                    "on CPU {cpu}: current_node {library:?}, getcpu node {kernel}, expected {node}"
                );
            }
        }
        Ok(format!("{} CPUs each report their node", n * c))
    });
}
