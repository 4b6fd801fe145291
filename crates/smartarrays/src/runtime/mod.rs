//! Parallel runtime (the paper's Callisto-RTS, §4.4): a pool of worker threads pinned to CPUs and
//! grouped by NUMA node, which runs loops over index ranges in dynamically claimed batches.
//!
//! The range of a loop is split into one contiguous part per node (in proportion to the node's
//! workers); each part has a shared cursor from which that node's workers claim batches, and a
//! worker whose part is exhausted steals batches from the other nodes' parts. Each worker knows
//! its node, so arrays hand it the replica on that node. The pool is a rayon thread pool whose
//! start handler pins each thread; loops run through rayon's `broadcast`, so closures may borrow
//! from the caller's stack.

use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::error::{Error, Result};
use crate::sys;

mod batches;
use crate::topology::{Topology, TopologySource};
pub use batches::DisjointBatches;

/// Environment variable that sets the number of workers of [`Runtime::global`].
pub const THREADS_ENV: &str = "SMARTARRAYS_THREADS";

/// Most workers a runtime may have per CPU it may use: more only adds switching, and a typo
/// such as `threads=10**6` would otherwise start a million threads.
pub const MAX_THREADS_PER_CPU: usize = 64;

/// The threads of a runtime and the process that started them.
struct Pool {
    process: u32,
    threads: Arc<rayon::ThreadPool>,
}

/// Starts one thread per `(node, cpu)` of `assignment`, pinned when `pin` (each records its
/// worker index and node); returns the pool and which threads were pinned.
fn start_pool(assignment: &[(usize, usize)], pin: bool) -> Result<(rayon::ThreadPool, Vec<bool>)> {
    let threads = assignment.len();
    let pinned: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(vec![false; threads]));
    let start_assignment = assignment.to_vec();
    let start_pinned = Arc::clone(&pinned);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("smartarrays-worker-{i}"))
        .start_handler(move |index| {
            let (node, cpu) = start_assignment[index];
            let ok = pin && sys::pin_current_thread(cpu).is_ok();
            if let Ok(mut flags) = start_pinned.lock() {
                flags[index] = ok;
            }
            CURRENT_WORKER.with(|w| w.set(Some((index, node))));
        })
        .build()
        .map_err(|e| Error::InvalidRuntime(format!("could not start {threads} threads: {e}")))?;
    // Every worker has run its start handler once it has taken part in a broadcast.
    pool.broadcast(|_| ());
    let flags = pinned.lock().map(|f| f.clone()).unwrap_or_default();
    Ok((pool, flags))
}

/// One worker thread of a [`Runtime`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// Position in the pool, 0-based; workers of one node have consecutive indices.
    pub index: usize,
    /// The node this worker belongs to.
    pub node: usize,
    /// The CPU it is pinned to (`None` when pinning was off or failed).
    pub cpu: Option<usize>,
}

/// Settings for [`Runtime::new`].
#[derive(Clone, Debug, Default)]
pub struct RuntimeOptions {
    /// Number of workers; `None` means one per CPU of the topology.
    pub threads: Option<usize>,
    /// Topology to follow; `None` means [`Topology::current`].
    pub topology: Option<Arc<Topology>>,
    /// Do not pin workers to CPUs (they still belong to a node for replica selection).
    pub no_pinning: bool,
}

/// A pool of node-aware workers that runs parallel loops.
///
/// # Example
/// ```
/// use smartarrays::{Runtime, RuntimeOptions};
/// let runtime = Runtime::new(RuntimeOptions { threads: Some(3), ..Default::default() }).unwrap();
/// let total = runtime.map_reduce(0..1000, 64, || 0u64, |sum, _worker, range| sum + range.map(|i| i as u64).sum::<u64>(), |a, b| a + b);
/// assert_eq!(total, 999 * 1000 / 2);
/// ```
pub struct Runtime {
    /// The worker threads, rebuilt when the process is a forked child (threads do not survive
    /// `fork`, so the parent's pool would wait forever).
    pool: RwLock<Pool>,
    /// (node, CPU) of each worker, to start the threads again after a fork.
    assignment: Vec<(usize, usize)>,
    pin: bool,
    workers: Vec<Worker>,
    topology: Arc<Topology>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

thread_local! {
    static CURRENT_WORKER: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// The node of the calling thread when it is a runtime worker (set when the worker starts).
pub fn current_worker_node() -> Option<usize> {
    CURRENT_WORKER.with(|w| w.get().map(|(_, node)| node))
}

impl Runtime {
    /// Starts a pool. Workers are spread round-robin over the nodes that have CPUs (so a pool
    /// smaller than the machine still uses every node), then numbered node by node; each is
    /// pinned to its own CPU of that node (CPUs are reused when there are more workers than
    /// CPUs). Only CPUs in the calling thread's affinity mask are used, so a runtime started under
    /// `numactl --cpunodebind`, `taskset` or a narrowed `sched_setaffinity` stays on those CPUs
    /// and nodes. Described topologies are never pinned, since their CPUs may not exist.
    pub fn new(options: RuntimeOptions) -> Result<Runtime> {
        // Environment settings are checked when a runtime starts, so a typo is an error.
        crate::codec::kernel_setting()?;
        let topology = match options.topology {
            Some(topology) => topology,
            None => Topology::current()?,
        };
        let allowed = sys::allowed_cpus().unwrap_or_default();
        let described = topology.source() == TopologySource::Described;
        let node_cpus: Vec<(usize, Vec<usize>)> = topology
            .nodes()
            .iter()
            .map(|n| {
                (
                    n.id,
                    n.cpus
                        .iter()
                        .copied()
                        .filter(|c| described || allowed.is_empty() || allowed.contains(c))
                        .collect::<Vec<_>>(),
                )
            })
            .filter(|(_, cpus)| !cpus.is_empty())
            .collect();
        if node_cpus.is_empty() {
            return Err(Error::InvalidRuntime(
                "no node of the topology has a CPU this process may use".into(),
            ));
        }
        let total_cpus: usize = node_cpus.iter().map(|(_, c)| c.len()).sum();
        let threads = options.threads.unwrap_or(total_cpus);
        if threads == 0 {
            return Err(Error::InvalidRuntime(
                "the thread count must be at least 1".into(),
            ));
        }
        let limit = MAX_THREADS_PER_CPU * total_cpus;
        if threads > limit {
            return Err(Error::InvalidRuntime(format!(
                "{threads} threads is too many: at most {MAX_THREADS_PER_CPU} per CPU, so {limit} \
                 for the {total_cpus} CPU(s) this process may use (one per CPU is usually best)"
            )));
        }
        let mut used = vec![0usize; node_cpus.len()];
        let mut assignment: Vec<(usize, usize)> = (0..threads)
            .map(|i| {
                let slot = i % node_cpus.len();
                let (node, cpus) = &node_cpus[slot];
                let cpu = cpus[used[slot] % cpus.len()];
                used[slot] += 1;
                (*node, cpu)
            })
            .collect();
        assignment.sort_by_key(|&(node, _)| node);
        let pin = !options.no_pinning && !described;
        let (pool, flags) = start_pool(&assignment, pin)?;
        let workers = assignment
            .iter()
            .enumerate()
            .map(|(index, &(node, cpu))| Worker {
                index,
                node,
                cpu: flags.get(index).copied().unwrap_or(false).then_some(cpu),
            })
            .collect();
        Ok(Runtime {
            pool: RwLock::new(Pool {
                process: std::process::id(),
                threads: Arc::new(pool),
            }),
            assignment,
            pin,
            workers,
            topology,
        })
    }

    /// A runtime with `threads` workers on the current topology.
    pub fn with_threads(threads: usize) -> Result<Runtime> {
        Runtime::new(RuntimeOptions {
            threads: Some(threads),
            ..RuntimeOptions::default()
        })
    }

    /// A runtime with `threads` workers on a described machine (for instance
    /// [`Topology::uniform`]), never pinned, since the described CPUs may not exist: data placed
    /// per node (replicated, node-local) gets one part per described node even on a one-node
    /// host. Tests and simulations use it to check placement.
    ///
    /// # Example
    /// ```
    /// use smartarrays::{Runtime, Topology};
    /// let topology = Topology::uniform(2, 2, 1 << 30).unwrap();
    /// let runtime = Runtime::on_described(topology, 3).unwrap();
    /// assert_eq!(runtime.threads(), 3);
    /// let nodes: Vec<usize> = runtime.workers().iter().map(|w| w.node).collect();
    /// assert!(nodes.contains(&0) && nodes.contains(&1));
    /// ```
    pub fn on_described(topology: impl Into<Arc<Topology>>, threads: usize) -> Result<Runtime> {
        Runtime::new(RuntimeOptions {
            threads: Some(threads),
            topology: Some(topology.into()),
            no_pinning: true,
        })
    }

    /// The process-wide default runtime: one worker per CPU (or `SMARTARRAYS_THREADS`), on
    /// [`Topology::current`]. Created on first use.
    pub fn global() -> Result<Arc<Runtime>> {
        static GLOBAL: OnceLock<std::result::Result<Arc<Runtime>, Error>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let threads = match std::env::var(THREADS_ENV) {
                    Ok(text) => Some(text.trim().parse::<usize>().map_err(|_| {
                        Error::InvalidRuntime(format!("{THREADS_ENV}={text:?} is not a number"))
                    })?),
                    Err(_) => None,
                };
                Runtime::new(RuntimeOptions {
                    threads,
                    ..RuntimeOptions::default()
                })
                .map(Arc::new)
            })
            .clone()
    }

    /// Number of workers.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// The workers, grouped by node.
    pub fn workers(&self) -> &[Worker] {
        &self.workers
    }

    /// The topology the workers follow.
    pub fn topology(&self) -> &Arc<Topology> {
        &self.topology
    }

    /// Runs `task` once on every worker, all of them at the same time (each on its own thread),
    /// and returns the results in worker order; `None`, without running anything, when the
    /// workers cannot run at once (a forked child whose threads could not be started again).
    /// Tasks that wait for each other (a barrier between the rounds of one parallel region)
    /// need this guarantee, which [`Runtime::on_each_worker`] does not give. Such calls run one
    /// at a time in the process (two at once could each hold some workers while waiting for
    /// the others), so `task` must not call this method again.
    ///
    /// # Example
    /// ```
    /// use std::sync::Barrier;
    /// use smartarrays::Runtime;
    /// let runtime = Runtime::with_threads(3).unwrap();
    /// let barrier = Barrier::new(runtime.threads());
    /// let ids = runtime.on_each_worker_together(|worker| {
    ///     barrier.wait();
    ///     worker.index
    /// });
    /// assert_eq!(ids, Some(vec![0, 1, 2]));
    /// ```
    pub fn on_each_worker_together<R: Send>(
        &self,
        task: impl Fn(&Worker) -> R + Sync,
    ) -> Option<Vec<R>> {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let pool = self.threads_of_this_process()?;
        let _turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Some(pool.broadcast(|context| task(&self.workers[context.index()])))
    }

    /// Runs `task` once on every worker and returns the results in worker order.
    pub fn on_each_worker<R: Send>(&self, task: impl Fn(&Worker) -> R + Sync) -> Vec<R> {
        match self.threads_of_this_process() {
            Some(pool) => pool.broadcast(|context| task(&self.workers[context.index()])),
            // No threads could be started in a forked child: the calling thread plays every
            // worker in turn, which gives the same results (batches are claimed dynamically).
            None => self.workers.iter().map(task).collect(),
        }
    }

    /// The pool's threads, started again first when this process is a fork of the one that
    /// started them; `None` when that restart failed.
    fn threads_of_this_process(&self) -> Option<Arc<rayon::ThreadPool>> {
        let process = std::process::id();
        if let Ok(pool) = self.pool.read() {
            if pool.process == process {
                return Some(Arc::clone(&pool.threads));
            }
        }
        let mut pool = self.pool.write().ok()?;
        if pool.process != process {
            let (threads, _) = start_pool(&self.assignment, self.pin).ok()?;
            // The parent's pool is left alone: its threads do not exist here, and dropping it
            // could wait on locks that they held at the fork.
            std::mem::forget(std::mem::replace(&mut pool.threads, Arc::new(threads)));
            pool.process = process;
        }
        Some(Arc::clone(&pool.threads))
    }

    /// Calls `body(worker, batch)` for consecutive batches of at most `batch` indices covering
    /// `range` exactly once, in parallel. Batch boundaries are `range.start + k * batch`.
    pub fn for_each_batch(
        &self,
        range: Range<usize>,
        batch: usize,
        body: impl Fn(&Worker, Range<usize>) + Sync,
    ) {
        self.map_reduce(
            range,
            batch,
            || (),
            |(), worker, batch| body(worker, batch),
            |(), ()| (),
        );
    }

    /// Parallel map-reduce over `range` in batches: each worker folds the batches it claims into
    /// its own accumulator (started by `identity`), and the accumulators are combined in worker
    /// order with `combine`.
    pub fn map_reduce<T: Send>(
        &self,
        range: Range<usize>,
        batch: usize,
        identity: impl Fn() -> T + Sync,
        fold: impl Fn(T, &Worker, Range<usize>) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        let batch = batch.max(1);
        let parts = self.split_by_node(range, batch);
        self.run_parts(
            &parts,
            batch,
            true,
            identity,
            |acc, worker, _part, batch| fold(acc, worker, batch),
            combine,
        )
    }

    /// Parallel map-reduce over disjoint mutable batches of `data`: `fold(accumulator, worker,
    /// range, piece)` gets the indices `range` of a batch and `piece = &mut data[range]`, each
    /// batch exactly once; the accumulators combine as in [`Runtime::map_reduce`].
    ///
    /// # Example
    /// ```
    /// use smartarrays::Runtime;
    /// let runtime = Runtime::with_threads(3).unwrap();
    /// let mut values = vec![1u64; 1000];
    /// let before = runtime.map_reduce_mut(&mut values, 64, || 0u64, |sum, _, range, piece| {
    ///     let old: u64 = piece.iter().sum();
    ///     for (slot, i) in piece.iter_mut().zip(range) { *slot = i as u64; }
    ///     sum + old
    /// }, |a, b| a + b);
    /// assert_eq!(before, 1000);
    /// assert_eq!(values[999], 999);
    /// ```
    pub fn map_reduce_mut<T: Send, A: Send>(
        &self,
        data: &mut [T],
        batch: usize,
        identity: impl Fn() -> A + Sync,
        fold: impl Fn(A, &Worker, Range<usize>, &mut [T]) -> A + Sync,
        combine: impl Fn(A, A) -> A,
    ) -> A {
        let batch = batch.max(1);
        let len = data.len();
        let batches = DisjointBatches::new(data, batch);
        self.map_reduce(
            0..len,
            batch,
            &identity,
            |accumulator, worker, range| {
                let mut accumulator = Some(accumulator);
                batches.with_batch(&range.clone(), |piece| {
                    accumulator = accumulator.take().map(|a| fold(a, worker, range, piece));
                });
                accumulator.unwrap_or_else(&identity)
            },
            combine,
        )
    }

    /// Splits `range` into one part per node that has workers, sized by its worker count, with
    /// boundaries rounded to multiples of `batch` from the range start.
    fn split_by_node(&self, range: Range<usize>, batch: usize) -> Vec<Part> {
        let len = range.end.saturating_sub(range.start);
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for worker in &self.workers {
            match counts.last_mut() {
                Some((node, count)) if *node == worker.node => *count += 1,
                _ => counts.push((worker.node, 1)),
            }
        }
        let mut parts = Vec::with_capacity(counts.len());
        let mut start = range.start;
        let mut workers_before = 0;
        for (position, &(node, count)) in counts.iter().enumerate() {
            workers_before += count;
            let end = if position + 1 == counts.len() {
                range.end
            } else {
                let share =
                    (len as u128 * workers_before as u128 / self.workers.len() as u128) as usize;
                (range.start + share.next_multiple_of(batch))
                    .min(range.end)
                    .max(start)
            };
            parts.push(Part {
                node: Some(node),
                range: start..end,
            });
            start = end;
        }
        parts
    }

    /// Runs `fold` over every batch of every part. Workers first claim batches of parts on their
    /// own node; with `steal`, they then help with other parts (parts with no node, or whose
    /// node has no worker, are open to all). Batch boundaries are `part.start + k * batch`. A
    /// loop of a single batch runs on the calling thread (see [`Runtime::inline_part`]).
    pub(crate) fn run_parts<T: Send>(
        &self,
        parts: &[Part],
        batch: usize,
        steal: bool,
        identity: impl Fn() -> T + Sync,
        fold: impl Fn(T, &Worker, usize, Range<usize>) -> T + Sync,
        combine: impl Fn(T, T) -> T,
    ) -> T {
        let batch = batch.max(1);
        // An empty loop wakes no one: nothing to fold.
        if parts.iter().all(|p| p.range.is_empty()) {
            return identity();
        }
        if let Some((index, worker)) = self.inline_part(parts, batch) {
            let part = parts[index].range.clone();
            return fold(identity(), worker, index, part);
        }
        let cursors: Vec<AtomicUsize> = parts
            .iter()
            .map(|p| AtomicUsize::new(p.range.start))
            .collect();
        let orphan: Vec<bool> = parts
            .iter()
            .map(|p| {
                p.node
                    .is_none_or(|n| !self.workers.iter().any(|w| w.node == n))
            })
            .collect();
        let body = |worker: &Worker| {
            let mut accumulator = identity();
            let own = parts
                .iter()
                .position(|p| p.node == Some(worker.node))
                .unwrap_or(0);
            for offset in 0..parts.len() {
                let index = (own + offset) % parts.len();
                let part = &parts[index];
                let mine = part.node == Some(worker.node);
                if !(mine || steal || orphan[index]) {
                    continue;
                }
                loop {
                    let start = cursors[index].fetch_add(batch, Ordering::Relaxed);
                    if start >= part.range.end {
                        break;
                    }
                    accumulator = fold(
                        accumulator,
                        worker,
                        index,
                        start..(start + batch).min(part.range.end),
                    );
                }
            }
            accumulator
        };
        // With stealing, any worker may run any batch, so the loop does not wait for a worker
        // that is slow to start (its CPU busy with another process): whichever workers are
        // running take its shares. Without it each node's part waits for its own workers.
        let results = if steal {
            self.on_available_workers(body)
        } else {
            self.on_each_worker(body)
        };
        results.into_iter().reduce(combine).unwrap_or_else(identity)
    }

    /// Runs `task` as many times as there are workers, each time on whichever worker takes it
    /// first (a worker may run several while another has not started), and returns the results
    /// in the order the tasks were handed out. The loops of [`Runtime::run_parts`] that let any
    /// worker take any batch run their shares this way, so that a worker kept off its CPU by
    /// another process delays nothing it has not started.
    fn on_available_workers<R: Send>(&self, task: impl Fn(&Worker) -> R + Sync) -> Vec<R> {
        let Some(pool) = self.threads_of_this_process() else {
            return self.workers.iter().map(task).collect();
        };
        let mut results: Vec<Option<R>> = (0..self.workers.len()).map(|_| None).collect();
        let task = &task;
        pool.scope(|scope| {
            for slot in results.iter_mut() {
                scope.spawn(move |_| {
                    let index = CURRENT_WORKER
                        .with(|w| w.get())
                        .map_or(0, |(index, _)| index);
                    *slot = Some(task(&self.workers[index]));
                });
            }
        });
        results.into_iter().flatten().collect()
    }

    /// The one part of a loop that the calling thread runs itself, with the worker it runs as:
    /// `Some` when the loop is a single batch (one non-empty part of at most `batch` indices)
    /// whose node is the caller's (or any node, on a one-node machine). Handing such a loop to
    /// the workers costs a wake-up and a wait for each of them, tens of microseconds when their
    /// CPUs are idle and a scheduler time slice per loop when another process keeps one busy,
    /// for work that takes less than that. A loop bound to another node keeps to that node's
    /// workers, so its memory is still touched from there.
    fn inline_part(&self, parts: &[Part], batch: usize) -> Option<(usize, &Worker)> {
        let mut busy = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.range.is_empty());
        let (index, part) = busy.next()?;
        if busy.next().is_some() || part.range.len() > batch {
            return None;
        }
        let node = match part.node {
            Some(node) if self.topology.nodes().len() > 1 => {
                if self.topology.current_node() != Some(node) {
                    return None;
                }
                Some(node)
            }
            node => node,
        };
        let worker = node
            .and_then(|n| self.workers.iter().find(|w| w.node == n))
            .unwrap_or(&self.workers[0]);
        Some((index, worker))
    }
}

/// A share of a parallel loop, preferably run by the workers of `node`.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    pub node: Option<usize>,
    pub range: Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU8;

    fn visits(runtime: &Runtime, range: Range<usize>, batch: usize) -> Vec<u8> {
        let seen: Vec<AtomicU8> = (0..range.end).map(|_| AtomicU8::new(0)).collect();
        runtime.for_each_batch(range, batch, |_, r| {
            for i in r {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
        });
        seen.into_iter().map(AtomicU8::into_inner).collect()
    }

    #[test]
    fn thread_counts_beyond_64_per_cpu_are_refused_at_once() {
        let topology = Arc::new(Topology::uniform(1, 1, 1 << 30).unwrap());
        let options = |threads| RuntimeOptions {
            threads: Some(threads),
            topology: Some(Arc::clone(&topology)),
            no_pinning: true,
        };
        let started = std::time::Instant::now();
        for threads in [65, 1_000_000, usize::MAX] {
            let error = Runtime::new(options(threads)).unwrap_err().to_string();
            assert!(error.contains("at most 64 per CPU"), "{error}");
            assert!(error.contains(&threads.to_string()), "{error}");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "refused without starting threads"
        );
        assert_eq!(Runtime::new(options(64)).unwrap().threads(), 64);
    }

    #[test]
    fn every_index_is_visited_once_for_odd_sizes_and_thread_counts() {
        for threads in [1, 2, 3, 5, 7] {
            let runtime = Runtime::with_threads(threads).unwrap();
            for (len, batch) in [
                (0, 1),
                (1, 64),
                (63, 64),
                (65, 64),
                (1023, 7),
                (1025, 64),
                (100_003, 1000),
            ] {
                let seen = visits(&runtime, 0..len, batch);
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "threads {threads} len {len} batch {batch}"
                );
            }
            let seen = visits(&runtime, 10..500, 33);
            assert!(seen[..10].iter().all(|&c| c == 0) && seen[10..].iter().all(|&c| c == 1));
        }
    }

    #[test]
    fn single_batch_loops_run_on_the_calling_thread_and_larger_ones_on_workers() {
        for threads in [1, 2, 3] {
            let runtime = Runtime::with_threads(threads).unwrap();
            let caller = std::thread::current().id();
            let runs_on = |len: usize, batch: usize| {
                runtime.map_reduce(
                    0..len,
                    batch,
                    Vec::new,
                    |mut seen, worker, range| {
                        seen.push((std::thread::current().id(), worker.index, range));
                        seen
                    },
                    |mut a, b| {
                        a.extend(b);
                        a
                    },
                )
            };
            for (len, batch) in [(1, 64), (63, 64), (64, 64), (1, 1)] {
                let seen = runs_on(len, batch);
                assert_eq!(seen.len(), 1, "threads {threads} len {len}");
                assert_eq!(seen[0].0, caller);
                assert_eq!(seen[0].2, 0..len);
                assert!(seen[0].1 < threads);
            }
            assert!(runs_on(0, 64).is_empty());
            let seen = runs_on(65, 64);
            assert_eq!(seen.len(), 2);
            assert!(seen.iter().all(|(thread, ..)| *thread != caller));
        }
    }

    #[test]
    fn loops_finish_while_a_worker_is_held_up() {
        // One worker sleeps inside a task of its own; a loop started meanwhile is run by the
        // others and does not wait for it.
        let runtime = Arc::new(Runtime::with_threads(3).unwrap());
        let held = Arc::clone(&runtime);
        let holder = std::thread::spawn(move || {
            held.on_each_worker(|worker| {
                if worker.index == 2 {
                    std::thread::sleep(std::time::Duration::from_millis(1500));
                }
            })
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        let started = std::time::Instant::now();
        for _ in 0..10 {
            let seen = visits(&runtime, 0..100_003, 1000);
            assert!(seen.iter().all(|&c| c == 1));
        }
        let elapsed = started.elapsed();
        holder.join().unwrap();
        assert!(
            elapsed < std::time::Duration::from_millis(1000),
            "ten loops took {elapsed:?} while one worker was held"
        );
    }

    #[test]
    fn described_multi_node_machines_split_work_over_nodes() {
        let topology = Arc::new(Topology::uniform(3, 2, 1 << 30).unwrap());
        let runtime = Runtime::new(RuntimeOptions {
            threads: Some(5),
            topology: Some(topology),
            no_pinning: false,
        })
        .unwrap();
        let nodes: Vec<usize> = runtime.workers().iter().map(|w| w.node).collect();
        assert_eq!(nodes, vec![0, 0, 1, 1, 2]);
        assert!(runtime.workers().iter().all(|w| w.cpu.is_none()));
        let on_node = runtime.on_each_worker(|w| (w.node, current_worker_node()));
        assert!(on_node
            .iter()
            .all(|(node, current)| Some(*node) == *current));
        let seen = visits(&runtime, 0..10_001, 64);
        assert!(seen.iter().all(|&c| c == 1));
        let sum = runtime.map_reduce(
            0..10_001,
            100,
            || 0u64,
            |s, _, r| s + r.map(|i| i as u64).sum::<u64>(),
            |a, b| a + b,
        );
        assert_eq!(sum, 10_000 * 10_001 / 2);
    }

    #[test]
    fn zero_threads_is_an_error_and_workers_are_pinned_here() {
        assert!(matches!(
            Runtime::with_threads(0),
            Err(Error::InvalidRuntime(_))
        ));
        let runtime = Runtime::with_threads(2).unwrap();
        let cpus = runtime.on_each_worker(|w| (w.cpu, sys::current_cpu()));
        for (pinned, actual) in cpus {
            if let Some(cpu) = pinned {
                assert_eq!(Some(cpu), actual);
            }
        }
    }
}
