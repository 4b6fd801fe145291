//! The placement checks that run inside the NUMA VM, one section per promise of the library:
//! topology, parallel runtime, single node, interleaved, replicated, OS default first touch, and
//! errors without leaks, the encodings' columns and collections' maps on every placement, and
//! query tables placed as a whole. Every page-level claim is read three ways: the library's
//! `placement_report`, its `page_nodes`, and this crate's own `move_pages` query ([`crate::os`]);
//! policies are also read from `/proc/self/numa_maps`, and which replica a reader touched from the
//! pages' referenced bits in `/proc/self/smaps`. Each check prints one `PASS`/`FAIL`/`SKIP` line.

use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use smartarrays::topology::format_cpu_list;
use smartarrays::{
    ArrayOptions, HugePages, Placement, Runtime, RuntimeOptions, SmartArray, Topology,
};

use crate::expect::{Outcome, PageStatus};
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

mod auto;
mod encoded;
mod errors;
mod interleaved;
mod os_default;
mod replicated;
mod runtime;
mod single_node;
mod tables;
mod topology;

use self::{
    auto::auto_checks, encoded::encoded_checks, errors::error_checks,
    interleaved::interleaved_checks, os_default::os_default_checks, replicated::replicated_checks,
    runtime::runtime_checks, single_node::single_node_checks, tables::table_checks,
    topology::topology_checks,
};

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
    encoded_checks(&mut suite, expected);
    error_checks(&mut suite, expected);
    table_checks(&mut suite, expected);
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
    let region = report.replicas.get(index).ok_or_else(|| {
        format!(
            "the report has {} replicas, no {index}",
            report.replicas.len()
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
    let region = &report.replicas[index];
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
