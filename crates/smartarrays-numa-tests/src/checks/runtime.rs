//! Checks of the VM suite: runtime.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use smartarrays::{HugePages, Placement, Runtime};

use crate::expect;
use crate::os;

use super::*;

pub(super) fn runtime_checks(suite: &mut Suite, expected: Expected) {
    let (n, c) = (expected.nodes, expected.cpus_per_node);
    suite.check("runtime/workers pinned per topology", || {
        let runtime = Runtime::global().map_err(ctx("Runtime::global"))?;
        let workers = runtime.workers();
        ensure!(
            workers.len() == n * c,
            "{} workers, expected one per CPU ({})",
            workers.len(),
            n * c
        );
        let mut cpus: Vec<usize> = Vec::new();
        for worker in workers {
            let cpu = worker
                .cpu
                .ok_or_else(|| format!("worker {} is not pinned", worker.index))?;
            ensure!(
                cpus_of(expected, worker.node).contains(&cpu),
                "worker {} of node {} is pinned to CPU {cpu}",
                worker.index,
                worker.node
            );
            cpus.push(cpu);
        }
        cpus.sort_unstable();
        ensure!(
            cpus == (0..n * c).collect::<Vec<_>>(),
            "workers use CPUs {cpus:?}"
        );
        let seen = runtime.on_each_worker(|worker| {
            (
                worker.clone(),
                os::cpu_and_node().ok(),
                os::thread_affinity().ok(),
                smartarrays::runtime::current_worker_node(),
            )
        });
        for (worker, actual, affinity, node) in seen {
            let cpu = worker.cpu.unwrap_or(usize::MAX);
            ensure!(
                actual == Some((cpu, worker.node)),
                "worker {} runs on (cpu, node) {actual:?}, expected ({cpu}, {})",
                worker.index,
                worker.node
            );
            ensure!(
                affinity == Some(vec![cpu]),
                "worker {} may run on {affinity:?}",
                worker.index
            );
            ensure!(
                node == Some(worker.node),
                "worker {} says current_worker_node {node:?}",
                worker.index
            );
        }
        Ok(workers
            .iter()
            .map(|w| {
                format!(
                    "w{}=node{}/cpu{}",
                    w.index,
                    w.node,
                    w.cpu.unwrap_or(usize::MAX)
                )
            })
            .collect::<Vec<_>>()
            .join(" "))
    });
    suite.check(
        "runtime/every index visited once, on the worker's node",
        || {
            let runtime = Runtime::global().map_err(ctx("Runtime::global"))?;
            let len = 100_003;
            let seen: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
            let off_node = AtomicUsize::new(0);
            let per_node: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            runtime.for_each_batch(0..len, 997, |worker, batch| {
                let on = os::cpu_and_node()
                    .map(|(_, node)| node)
                    .unwrap_or(usize::MAX);
                if on != worker.node {
                    off_node.fetch_add(1, Ordering::Relaxed);
                }
                if let Some(counter) = per_node.get(on) {
                    counter.fetch_add(batch.len(), Ordering::Relaxed);
                }
                for i in batch {
                    seen[i].fetch_add(1, Ordering::Relaxed);
                }
            });
            let wrong = seen
                .iter()
                .filter(|s| s.load(Ordering::Relaxed) != 1)
                .count();
            ensure!(
                wrong == 0,
                "{wrong} of {len} indices were not visited exactly once"
            );
            let off_node = off_node.into_inner();
            ensure!(
                off_node == 0,
                "{off_node} batches ran on a node other than their worker's"
            );
            let sum = runtime.map_reduce(
                0..len,
                1000,
                || 0u64,
                |s, _, r| s + r.map(|i| i as u64).sum::<u64>(),
                |a, b| a + b,
            );
            ensure!(
                sum == (len as u64 - 1) * len as u64 / 2,
                "map_reduce sum {sum}"
            );
            let shares: Vec<usize> = per_node.iter().map(|a| a.load(Ordering::Relaxed)).collect();
            Ok(format!(
                "{len} indices once each; indices run per node {shares:?}; map_reduce sum ok"
            ))
        },
    );
    suite.check("runtime/each worker reads its node's replica", || {
        let runtime = Runtime::global().map_err(ctx("Runtime::global"))?;
        let array = build(len_for_pages(PAGES_PER_ARRAY, 21), 21, &options(Placement::Replicated, HugePages::Never, Some(runtime)))?;
        let replica_start: Vec<usize> = (0..array.replica_count()).map(|r| array.replica(r).packed_words().as_ptr() as usize).collect();
        let results = array.runtime().on_each_worker(|worker| {
            let local = array.local_replica_index();
            let view = array.for_worker(worker);
            let pages = os::page_nodes_of_words(array.local().packed_words()).map_err(|e| e.to_string());
            (worker.clone(), local, view.packed_words().as_ptr() as usize, array.local().packed_words().as_ptr() as usize, pages)
        });
        for (worker, local, for_worker, local_start, pages) in results {
            let want = array.replica_nodes().iter().position(|&r| r == Some(worker.node)).ok_or("no replica for the worker's node")?;
            ensure!(local == want, "worker {} on node {} picks replica {local}, expected {want}", worker.index, worker.node);
            ensure!(
                for_worker == replica_start[want] && local_start == replica_start[want],
                "worker {} views do not start at replica {want}",
                worker.index
            );
            expect::all_on(&pages?, worker.node, data_pages(&array))
                .map_err(|why| format!("worker {} reads pages not on its node: {why}", worker.index))?;
        }
        let total: u64 = (0..array.len()).map(|i| value(i, 21)).sum();
        ensure!(array.par_sum() == total, "par_sum {} != {total}", array.par_sum());
        Ok(format!("{} workers: local_replica_index == for_worker == own node, move_pages agrees; par_sum ok", array.runtime().threads()))
    });
}
