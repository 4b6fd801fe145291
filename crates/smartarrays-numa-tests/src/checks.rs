//! The placement checks that run inside the NUMA VM, one section per promise of the library:
//! topology, parallel runtime, single node, interleaved, replicated, OS default first touch, and
//! errors without leaks. Every page-level claim is read three ways: the library's
//! `placement_report`, its `page_nodes`, and this crate's own `move_pages` query ([`crate::os`]);
//! policies are also read from `/proc/self/numa_maps`, and which replica a reader touched from the
//! pages' referenced bits in `/proc/self/smaps`. Each check prints one `PASS`/`FAIL`/`SKIP` line.

use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use smartarrays::memory::current_free_memory;
use smartarrays::topology::format_cpu_list;
use smartarrays::{
    ArrayOptions, Error, HugePages, Placement, Runtime, RuntimeOptions, SmartArray, Topology,
    TopologySource,
};

use crate::expect::{self, Outcome, PageStatus};
use crate::os;
use crate::procfs;

const MIB: u64 = 1 << 20;
const HUGE_PAGE: usize = 2 << 20;
/// Pages per test array (not a multiple of 2, 3 or 4, so interleave counts are uneven).
const PAGES_PER_ARRAY: usize = 301;
/// MiB of node 0 taken by a bound array while errors are checked, to make node 0 the fullest.
const FILLER_MIB: u64 = 32;

/// What the VM was started with (`tools/numa_vm.py run -n`, `-c`, `-m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    /// NUMA nodes.
    pub nodes: usize,
    /// vCPUs per node.
    pub cpus_per_node: usize,
    /// Memory per node in MiB.
    pub mib_per_node: u64,
}

/// Counts and prints check results.
#[derive(Debug, Default)]
pub struct Suite {
    /// Checks that held.
    pub passed: usize,
    /// Checks that did not.
    pub failed: Vec<String>,
    /// Checks that could not apply here.
    pub skipped: usize,
}

impl Suite {
    /// Runs one check (a panic counts as a failure) and prints its line.
    pub fn check(&mut self, name: impl Display, body: impl FnOnce() -> Outcome) {
        let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(format!("panicked: {}", message.unwrap_or_default()))
        });
        match outcome {
            Ok(detail) => {
                self.passed += 1;
                println!("PASS {name}: {detail}");
            }
            Err(why) => {
                println!("FAIL {name}: {why}");
                self.failed.push(name.to_string());
            }
        }
    }

    /// Records a check that does not apply, with the reason.
    pub fn skip(&mut self, name: impl Display, why: impl Display) {
        self.skipped += 1;
        println!("SKIP {name}: {why}");
    }
}

macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err(format!($($message)+));
        }
    };
}

/// Turns any displayable error into a check failure with context.
fn ctx<E: Display>(context: &'static str) -> impl FnOnce(E) -> String {
    move |error| format!("{context}: {error}")
}

/// Runs every section and returns the tally.
pub fn run_all(expected: Expected) -> Suite {
    let mut suite = Suite::default();
    // The global runtime must start while the process may use every CPU (later checks narrow the
    // main thread's affinity for a moment to start one-node runtimes).
    suite.check("runtime/global starts", || {
        Runtime::global()
            .map(|r| format!("{} workers", r.threads()))
            .map_err(|e| e.to_string())
    });
    topology_checks(&mut suite, expected);
    runtime_checks(&mut suite, expected);
    single_node_checks(&mut suite, expected);
    interleaved_checks(&mut suite, expected);
    replicated_checks(&mut suite, expected);
    os_default_checks(&mut suite, expected);
    auto_checks(&mut suite, expected);
    error_checks(&mut suite, expected);
    suite
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn nodes(expected: Expected) -> Vec<usize> {
    (0..expected.nodes).collect()
}

fn cpus_of(expected: Expected, node: usize) -> Vec<usize> {
    (node * expected.cpus_per_node..(node + 1) * expected.cpus_per_node).collect()
}

fn topology() -> Result<Topology, String> {
    Topology::discover().map_err(ctx("Topology::discover"))
}

/// A runtime with one worker on `node`, started the way `numactl --cpunodebind` would: the
/// runtime only uses CPUs the starting thread may run on, so the main thread narrows its
/// affinity to the node's CPUs for the duration of `Runtime::new`, then widens it again.
fn runtime_on_node(expected: Expected, node: usize) -> Result<Arc<Runtime>, String> {
    let before = os::thread_affinity().map_err(ctx("sched_getaffinity"))?;
    let cpus = cpus_of(expected, node);
    os::set_thread_affinity(&cpus).map_err(ctx("sched_setaffinity"))?;
    let runtime = Runtime::new(RuntimeOptions {
        threads: Some(1),
        ..RuntimeOptions::default()
    });
    os::set_thread_affinity(&before).map_err(ctx("sched_setaffinity (restore)"))?;
    let runtime = runtime.map_err(ctx("Runtime::new"))?;
    let worker = &runtime.workers()[0];
    ensure!(
        runtime.threads() == 1
            && worker.node == node
            && worker.cpu.is_some_and(|c| cpus.contains(&c)),
        "a runtime started on node {node}'s CPUs {cpus:?} has workers {:?}",
        runtime.workers()
    );
    Ok(Arc::new(runtime))
}

fn options(
    placement: Placement,
    huge_pages: HugePages,
    runtime: Option<Arc<Runtime>>,
) -> ArrayOptions {
    let options = ArrayOptions::new()
        .placement(placement)
        .huge_pages(huge_pages);
    match runtime {
        Some(runtime) => options.runtime(runtime),
        None => options,
    }
}

/// Value `i` of the test arrays at `bits` bits (a scrambled sequence that uses every bit).
fn value(i: usize, bits: u32) -> u64 {
    let mixed = (i as u64 ^ 0x5bd1_e995)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(17);
    if bits == 64 {
        mixed
    } else {
        mixed & ((1u64 << bits) - 1)
    }
}

/// Number of values that fill `pages` pages at `bits` bits.
fn len_for_pages(pages: usize, bits: u32) -> usize {
    pages * os::page_size() * 8 / bits as usize
}

fn build(len: usize, bits: u32, options: &ArrayOptions) -> Result<SmartArray, String> {
    let array = SmartArray::from_fn(len, &options.clone().bits(bits), |i| value(i, bits))
        .map_err(ctx("SmartArray::from_fn"))?;
    ensure!(
        array.len() == len && array.bits() == bits,
        "array has len {} bits {}, wanted {len} {bits}",
        array.len(),
        array.bits()
    );
    Ok(array)
}

fn values_match(array: &SmartArray, replica: usize) -> Result<(), String> {
    let view = array.replica(replica);
    let mut wrong = 0usize;
    view.for_each_chunk(0..view.len(), |first, chunk| {
        wrong += chunk
            .iter()
            .enumerate()
            .filter(|&(k, &v)| v != value(first + k, array.bits()))
            .count();
    })
    .map_err(ctx("for_each_chunk"))?;
    ensure!(wrong == 0, "replica {replica} has {wrong} wrong values");
    Ok(())
}

/// The pages of replica `index`, read with this crate's `move_pages` and checked to agree, page by
/// page, with the library's `page_nodes` and with its `placement_report` counts.
fn pages_three_ways(array: &SmartArray, index: usize) -> Result<Vec<PageStatus>, String> {
    let direct =
        os::page_nodes_of_words(array.replica(index).packed_words()).map_err(ctx("move_pages"))?;
    let listed = array
        .page_nodes(index)
        .map_err(ctx("SmartArray::page_nodes"))?;
    ensure!(
        listed.len() == direct.len(),
        "page_nodes lists {} pages, move_pages {}",
        listed.len(),
        direct.len()
    );
    if let Some(i) = (0..direct.len()).find(|&i| listed[i] != direct[i].ok()) {
        return Err(format!(
            "page {i}: page_nodes says {:?}, move_pages says {:?}",
            listed[i], direct[i]
        ));
    }
    let report = array.placement_report().map_err(ctx("placement_report"))?;
    ensure!(
        !report.simulated,
        "the report says the placement was only simulated"
    );
    let region = report.regions.get(index).ok_or_else(|| {
        format!(
            "the report has {} regions, no {index}",
            report.regions.len()
        )
    })?;
    let mut counted = std::collections::BTreeMap::new();
    for node in direct.iter().filter_map(|p| p.ok()) {
        *counted.entry(node).or_insert(0usize) += 1;
    }
    let absent = direct.iter().filter(|p| p.is_err()).count();
    ensure!(
        region.pages == direct.len() && region.pages_by_node == counted && region.pages_not_present == absent,
        "placement_report region {index} says {} pages {:?} ({} absent); move_pages says {} pages {counted:?} ({absent} absent)",
        region.pages,
        region.pages_by_node,
        region.pages_not_present,
        direct.len()
    );
    Ok(direct)
}

/// Checks the kernel policy of replica `index` two ways: the library's report (`get_mempolicy`)
/// and `/proc/self/numa_maps`.
fn policy_is(
    array: &SmartArray,
    index: usize,
    mode: &str,
    policy_nodes: &[usize],
) -> Result<String, String> {
    let report = array.placement_report().map_err(ctx("placement_report"))?;
    let region = &report.regions[index];
    ensure!(
        region.policy == mode && region.policy_nodes == policy_nodes,
        "placement_report policy is {} {:?}, expected {mode} {policy_nodes:?}",
        region.policy,
        region.policy_nodes
    );
    let numa_maps_text = if mode == "default" {
        "default".to_string()
    } else {
        format!("{mode}:{}", format_cpu_list(policy_nodes))
    };
    let start = array.replica(index).packed_words().as_ptr() as usize;
    let seen = procfs::policy_at(start).map_err(ctx("numa_maps"))?;
    ensure!(
        seen.as_deref() == Some(numa_maps_text.as_str()),
        "numa_maps says {seen:?}, expected {numa_maps_text:?}"
    );
    Ok(format!("policy {numa_maps_text}"))
}

/// KiB of referenced pages in the mappings holding each replica (one entry per replica); fails if
/// one mapping holds two replicas, since their accesses could then not be told apart.
fn referenced_per_replica(array: &SmartArray) -> Result<Vec<u64>, String> {
    let maps = procfs::smaps().map_err(ctx("smaps"))?;
    let ranges: Vec<(usize, usize)> = (0..array.replica_count())
        .map(|r| {
            let words = array.replica(r).packed_words();
            (
                words.as_ptr() as usize,
                words.as_ptr() as usize + std::mem::size_of_val(words),
            )
        })
        .collect();
    let mut referenced = Vec::with_capacity(ranges.len());
    for (r, &(start, end)) in ranges.iter().enumerate() {
        let mut kib = 0;
        for mapping in maps.iter().filter(|m| m.overlaps(start, end)) {
            if let Some(other) = ranges
                .iter()
                .enumerate()
                .position(|(o, &(s, e))| o != r && mapping.overlaps(s, e))
            {
                return Err(format!("replicas {r} and {other} share one mapping"));
            }
            kib += mapping.field("Referenced");
        }
        referenced.push(kib);
    }
    Ok(referenced)
}

/// Expects that of all replicas only `touched` has referenced pages, at least `min_kib` of them.
fn only_replica_referenced(
    referenced: &[u64],
    touched: usize,
    min_kib: u64,
) -> Result<String, String> {
    let others: Vec<(usize, u64)> = referenced
        .iter()
        .copied()
        .enumerate()
        .filter(|&(r, kib)| r != touched && kib > 0)
        .collect();
    ensure!(
        referenced[touched] >= min_kib && others.is_empty(),
        "expected only replica {touched} read (>= {min_kib} KiB); referenced KiB per replica: {referenced:?}"
    );
    Ok(format!("referenced KiB per replica {referenced:?}"))
}

/// Pages that hold values (the padding words after the last value may spill into one more page,
/// which nothing writes).
fn data_pages(array: &SmartArray) -> usize {
    (array.len() * array.bits() as usize)
        .div_ceil(64)
        .saturating_mul(8)
        .div_ceil(os::page_size())
}

/// KiB of a replica's pages that hold values: what a full read must touch.
fn data_kib(array: &SmartArray) -> u64 {
    (data_pages(array) * os::page_size() / 1024) as u64
}

/// Runs `task` on a new thread pinned to `cpu`.
fn on_cpu<T: Send>(
    cpu: usize,
    task: impl FnOnce() -> Result<T, String> + Send,
) -> Result<T, String> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                os::set_thread_affinity(&[cpu]).map_err(ctx("sched_setaffinity"))?;
                let (now, _) = os::cpu_and_node().map_err(ctx("getcpu"))?;
                ensure!(now == cpu, "pinned to CPU {cpu} but running on {now}");
                task()
            })
            .join()
            .unwrap_or_else(|_| Err(format!("the thread on CPU {cpu} panicked")))
    })
}

// ---------------------------------------------------------------------------------------------
// Topology

fn topology_checks(suite: &mut Suite, expected: Expected) {
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

// ---------------------------------------------------------------------------------------------
// Runtime

fn runtime_checks(suite: &mut Suite, expected: Expected) {
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

// ---------------------------------------------------------------------------------------------
// Single node

fn single_node_checks(suite: &mut Suite, expected: Expected) {
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

// ---------------------------------------------------------------------------------------------
// Interleaved

fn interleaved_checks(suite: &mut Suite, expected: Expected) {
    let all = nodes(expected);
    let mut cases: Vec<Vec<usize>> = vec![Vec::new(), all.clone()];
    if expected.nodes >= 2 {
        cases.push(vec![expected.nodes - 1]);
    }
    if expected.nodes >= 4 {
        cases.push(vec![3, 1]);
        cases.push(vec![0, 2, 3]);
    }
    for requested in cases {
        let mut cycle = if requested.is_empty() {
            all.clone()
        } else {
            requested.clone()
        };
        cycle.sort_unstable();
        suite.check(
            format!(
                "interleaved/{:?} per base page (HugePages::Never)",
                requested
            ),
            || {
                let bits = 7;
                let array = build(
                    len_for_pages(PAGES_PER_ARRAY, bits),
                    bits,
                    &options(
                        Placement::Interleaved(requested.clone()),
                        HugePages::Never,
                        None,
                    ),
                )?;
                let pages =
                    expect::round_robin(&pages_three_ways(&array, 0)?, &cycle, data_pages(&array))?;
                let policy = policy_is(&array, 0, "interleave", &cycle)?;
                values_match(&array, 0)?;
                Ok(format!("{pages}; {policy}"))
            },
        );
    }
    let thp = procfs::transparent_huge_page_mode();
    match thp.as_deref() {
        Some("always" | "madvise") => suite.check(format!("interleaved/all nodes per huge page (THP {})", thp.unwrap_or_default()), || {
            let huge_pages = 4 * expected.nodes + 1;
            let array = build(huge_pages * HUGE_PAGE / 8, 64, &options(Placement::Interleaved(Vec::new()), HugePages::Always, None))?;
            let pages = pages_three_ways(&array, 0)?;
            let words = array.replica(0).packed_words();
            let start = words.as_ptr() as usize;
            let (head, whole) = expect::whole_blocks(start, pages.len(), os::page_size(), HUGE_PAGE);
            // Regions of 2 MiB or more start on a huge page, so no base pages skew the spread.
            ensure!(
                head == 0 && whole == huge_pages,
                "the region starts at {start:#x}, {head} base pages before its first 2 MiB boundary; {whole} of {huge_pages} huge pages whole"
            );
            let huge_kib: u64 = procfs::smaps()
                .map_err(ctx("smaps"))?
                .iter()
                .filter(|m| m.overlaps(start, start + std::mem::size_of_val(words)))
                .map(|m| m.field("AnonHugePages"))
                .sum();
            ensure!(
                huge_kib >= whole as u64 * HUGE_PAGE as u64 / 1024,
                "only {huge_kib} KiB of huge pages for {whole} whole 2 MiB blocks (THP did not back the array)"
            );
            let detail = expect::round_robin_blocks(&pages, start, os::page_size(), HUGE_PAGE, &nodes(expected))?;
            values_match(&array, 0)?;
            Ok(format!("{detail}; AnonHugePages {huge_kib} KiB"))
        }),
        other => suite.skip("interleaved/all nodes per huge page", format!("transparent huge pages are {other:?} in this kernel")),
    }
}

// ---------------------------------------------------------------------------------------------
// Replicated

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

fn replicated_checks(suite: &mut Suite, expected: Expected) {
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
        let intended: Vec<Option<usize>> = report.regions.iter().map(|r| r.intended_node).collect();
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

// ---------------------------------------------------------------------------------------------
// Placement::Auto

/// `Placement::Auto` end to end on a multi-node kernel: the adaptivity crate's advisor, fed the
/// paper's machine presets, chooses a placement for each usage, and the array's pages land where
/// the choice says (read three ways, like every other section).
fn auto_checks(suite: &mut Suite, expected: Expected) {
    use smartarrays::{Compression, Usage};
    use smartarrays_adapt::{Advisor, CostProfile, MachineDescription};

    let bits = 32;
    let len = len_for_pages(PAGES_PER_ARRAY, bits);
    suite.check("auto/without an advisor: a typed error", || {
        smartarrays::array::uninstall_advisor();
        match SmartArray::from_fn(
            len,
            &options(Placement::Auto, HugePages::Never, None).bits(bits),
            |i| value(i, bits),
        ) {
            Err(Error::AutoUnresolved(message)) => Ok(format!("AutoUnresolved: {message}")),
            other => Err(format!(
                "expected AutoUnresolved, got {:?}",
                other.map(|a| a.placement().clone())
            )),
        }
    });
    // (preset, read-only?, what the paper's diagrams give for an uncompressed array)
    let cases = [
        ("paper-8core", true, Placement::Replicated),
        ("paper-8core", false, Placement::SingleNode(0)),
        ("paper-18core", true, Placement::Interleaved(Vec::new())),
    ];
    for (preset, read_only, wanted) in cases {
        let usage = Usage {
            read_only,
            accesses_per_element: 20.0,
            ..Usage::default()
        };
        suite.check(
            format!("auto/{preset}, read-only {read_only}: chooses {wanted} and the pages follow"),
            || {
                let machine = MachineDescription::preset(preset).ok_or("preset missing")?;
                let costs = CostProfile::for_preset(preset).ok_or("cost preset missing")?;
                smartarrays_adapt::install(Advisor::new(machine, costs));
                let auto = options(Placement::Auto, HugePages::Never, None)
                    .compression(Compression::Uncompressed)
                    .usage(usage);
                let built = build(len, bits, &auto);
                smartarrays::array::uninstall_advisor();
                let array = built?;
                let chosen = array.placement().clone();
                ensure!(
                    chosen == wanted,
                    "advisor chose {chosen}, expected {wanted}"
                );
                ensure!(
                    array
                        .advice()
                        .is_some_and(|a| a.explanation.contains("step 2")),
                    "no explanation kept with the array"
                );
                let detail = match &chosen {
                    Placement::Replicated => {
                        ensure!(
                            array.replica_count() == expected.nodes,
                            "{} replicas on {} nodes",
                            array.replica_count(),
                            expected.nodes
                        );
                        let mut lines = Vec::new();
                        for node in nodes(expected) {
                            lines.push(expect::all_on(
                                &pages_three_ways(&array, node)?,
                                node,
                                data_pages(&array),
                            )?);
                            values_match(&array, node)?;
                        }
                        lines.join("; ")
                    }
                    Placement::SingleNode(node) => {
                        values_match(&array, 0)?;
                        expect::all_on(&pages_three_ways(&array, 0)?, *node, data_pages(&array))?
                    }
                    Placement::Interleaved(_) => {
                        values_match(&array, 0)?;
                        expect::round_robin(
                            &pages_three_ways(&array, 0)?,
                            &nodes(expected),
                            data_pages(&array),
                        )?
                    }
                    other => return Err(format!("unexpected choice {other}")),
                };
                Ok(format!("{chosen}: {detail}"))
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------
// OS default

fn os_default_checks(suite: &mut Suite, expected: Expected) {
    let bits = 32;
    for node in nodes(expected) {
        suite.check(
            format!("os-default/first touch by a worker on node {node}"),
            || {
                let runtime = runtime_on_node(expected, node)?;
                let array = build(
                    len_for_pages(PAGES_PER_ARRAY, bits),
                    bits,
                    &options(Placement::OsDefault, HugePages::Never, Some(runtime)),
                )?;
                let pages =
                    expect::all_on(&pages_three_ways(&array, 0)?, node, data_pages(&array))?;
                let policy = policy_is(&array, 0, "default", &[])?;
                values_match(&array, 0)?;
                Ok(format!("{pages}; {policy}"))
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Errors and leaks

type Attempt = Box<dyn Fn() -> Result<(), String>>;

/// A request that must fail with an error accepted by `check`.
fn refused(
    what: String,
    attempt: impl Fn() -> smartarrays::Result<SmartArray> + 'static,
    check: impl Fn(&Error) -> bool + 'static,
) -> Attempt {
    Box::new(move || match attempt() {
        Ok(array) => Err(format!(
            "{what}: built an array of {} bytes instead of failing",
            array.memory_bytes()
        )),
        Err(error) if check(&error) => Ok(()),
        Err(error) => Err(format!("{what}: wrong error: {error}")),
    })
}

fn error_checks(suite: &mut Suite, expected: Expected) {
    let n = expected.nodes;
    let node_bytes = expected.mib_per_node * MIB;
    let words = |bytes: u64| (bytes / 8) as usize;
    let available: Vec<usize> = nodes(expected);

    suite.check(format!("errors/node {n} does not exist"), || {
        let error = SmartArray::zeroed(
            10,
            8,
            &options(Placement::SingleNode(n), HugePages::Never, None),
        )
        .err()
        .ok_or("no error")?;
        ensure!(
            error
                == Error::UnknownNode {
                    node: n,
                    available: available.clone()
                },
            "got {error:?}"
        );
        let text = error.to_string();
        ensure!(
            text.contains(&format!("NUMA node {n} does not exist")),
            "message {text:?}"
        );
        Ok(text)
    });
    suite.check(
        format!(
            "errors/node {} more than a node has (-m {})",
            n - 1,
            expected.mib_per_node
        ),
        || {
            let options = options(Placement::SingleNode(n - 1), HugePages::Never, None);
            let error = SmartArray::zeroed(words(node_bytes + 4096), 64, &options)
                .err()
                .ok_or("no error")?;
            match &error {
                Error::NotEnoughMemory {
                    node,
                    requested,
                    available,
                } => {
                    ensure!(
                        *node == n - 1
                            && *requested >= node_bytes + 4096
                            && *available < node_bytes,
                        "got {error:?}"
                    );
                }
                other => return Err(format!("got {other:?}")),
            }
            let text = error.to_string();
            ensure!(
                text.contains(&format!("not enough memory on NUMA node {}", n - 1)),
                "message {text:?}"
            );
            Ok(text)
        },
    );

    let mut attempts: Vec<(String, Attempt)> = Vec::new();
    let mut add = |name: String, attempt: Attempt| attempts.push((name, attempt));
    add(
        format!("single node {n}"),
        refused(
            format!("single node {n}"),
            move || {
                SmartArray::zeroed(
                    10,
                    8,
                    &options(Placement::SingleNode(n), HugePages::Never, None),
                )
            },
            move |e| matches!(e, Error::UnknownNode { node, .. } if *node == n),
        ),
    );
    add(
        format!("interleaved [0, {}]", n + 1),
        refused(
            "interleaved".into(),
            move || {
                SmartArray::zeroed(
                    10,
                    8,
                    &options(
                        Placement::Interleaved(vec![0, n + 1]),
                        HugePages::Never,
                        None,
                    ),
                )
            },
            move |e| matches!(e, Error::UnknownNode { node, .. } if *node == n + 1),
        ),
    );
    for node in nodes(expected) {
        add(
            format!("node {node} x {} MiB", expected.mib_per_node + 1),
            refused(
                format!("single node {node}"),
                move || {
                    SmartArray::zeroed(
                        words(node_bytes + MIB),
                        64,
                        &options(Placement::SingleNode(node), HugePages::Never, None),
                    )
                },
                move |e| matches!(e, Error::NotEnoughMemory { node: bad, .. } if *bad == node),
            ),
        );
    }
    add(
        format!("replicated x {} MiB", expected.mib_per_node),
        refused(
            "replicated".into(),
            move || {
                SmartArray::zeroed(
                    words(node_bytes),
                    64,
                    &options(Placement::Replicated, HugePages::Never, None),
                )
            },
            |e| matches!(e, Error::NotEnoughMemory { .. }),
        ),
    );
    add(
        format!(
            "interleaved x {} MiB",
            n as u64 * (expected.mib_per_node + 1)
        ),
        refused(
            "interleaved".into(),
            move || {
                SmartArray::zeroed(
                    words(n as u64 * (node_bytes + MIB)),
                    64,
                    &options(Placement::Interleaved(Vec::new()), HugePages::Never, None),
                )
            },
            |e| matches!(e, Error::NotEnoughMemory { .. }),
        ),
    );
    // Fits every node but 0: the error must name node 0. Node 0 holds the kernel, and a bound
    // filler array takes more of it, so its free memory is well below the others'.
    let filler = SmartArray::zeroed(
        words(FILLER_MIB * MIB),
        64,
        &options(Placement::SingleNode(0), HugePages::Never, None),
    );
    let free: Vec<u64> = nodes(expected)
        .into_iter()
        .map(|node| current_free_memory(node).unwrap_or(0))
        .collect();
    let others_min = free.iter().skip(1).copied().min().unwrap_or(0);
    let node0_only = (free[0] + others_min) / 2;
    if n >= 2 && filler.is_ok() && others_min > free[0] + 16 * MIB {
        add(
            format!(
                "replicated x {} MiB (only node 0 too small)",
                node0_only / MIB
            ),
            refused(
                "replicated, node 0 too small".into(),
                move || {
                    SmartArray::zeroed(
                        words(node0_only),
                        64,
                        &options(Placement::Replicated, HugePages::Never, None),
                    )
                },
                |e| matches!(e, Error::NotEnoughMemory { node: 0, .. }),
            ),
        );
    } else {
        suite.skip(
            "errors/replicated where only node 0 is too small",
            format!("free memory per node {free:?} is too even"),
        );
    }
    // Fails after allocating and binding every replica (the last value is too wide): all must be freed.
    let misfit_len = len_for_pages(64, 3);
    add(
        "replicated, value too wide after allocation".into(),
        refused(
            "replicated, value too wide".into(),
            move || {
                SmartArray::from_fn(
                    misfit_len,
                    &options(Placement::Replicated, HugePages::Never, None).bits(3),
                    |i| {
                        if i == misfit_len - 1 {
                            8
                        } else {
                            i as u64 % 8
                        }
                    },
                )
            },
            move |e| matches!(e, Error::ValueTooWide { index, value: 8, bits: 3, .. } if *index == misfit_len - 1),
        ),
    );

    suite.check(
        format!(
            "errors/{} refused requests give the right typed error",
            attempts.len()
        ),
        || {
            for (name, attempt) in &attempts {
                attempt().map_err(|why| format!("{name}: {why}"))?;
            }
            Ok(attempts
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join("; "))
        },
    );
    suite.check("errors/refused requests leak nothing (20 rounds)", || {
        let before = procfs::process_size().map_err(ctx("/proc/self/status"))?;
        let bound_before = procfs::numa_maps().map_err(ctx("numa_maps"))?.iter().filter(|e| e.policy != "default").count();
        for _ in 0..20 {
            for (name, attempt) in &attempts {
                attempt().map_err(|why| format!("{name}: {why}"))?;
            }
        }
        let after = procfs::process_size().map_err(ctx("/proc/self/status"))?;
        let bound_after = procfs::numa_maps().map_err(ctx("numa_maps"))?.iter().filter(|e| e.policy != "default").count();
        ensure!(after.mappings == before.mappings, "mappings {} -> {}", before.mappings, after.mappings);
        ensure!(after.vm_size_kib == before.vm_size_kib, "VmSize {} -> {} KiB", before.vm_size_kib, after.vm_size_kib);
        ensure!(after.vm_rss_kib <= before.vm_rss_kib + 1024, "VmRSS {} -> {} KiB", before.vm_rss_kib, after.vm_rss_kib);
        ensure!(bound_after == bound_before, "mappings with a NUMA policy {bound_before} -> {bound_after}");
        Ok(format!(
            "mappings {} -> {}, VmSize {} -> {} KiB, VmRSS {} -> {} KiB, policy mappings {bound_before} -> {bound_after}",
            before.mappings, after.mappings, before.vm_size_kib, after.vm_size_kib, before.vm_rss_kib, after.vm_rss_kib
        ))
    });
    drop(filler);
}
