//! What every job is given: the runtime whose workers run it, how large its chunks are, and
//! whom to tell about its progress. Plus the two parallel loops the jobs share.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use smartarrays::{Runtime, Worker};

use crate::error::Result;
use crate::input::{Fault, Input, DEFAULT_CHUNK_BYTES};

/// Receives progress: `(stage, done, total)` in the stage's units (bytes for passes over the
/// input). Called from worker threads, after every chunk; `done == total` ends a stage.
pub type ProgressFn = dyn Fn(&str, u64, u64) + Send + Sync;

/// Settings shared by the jobs.
///
/// # Example
/// ```
/// use smartarrays_jobs::JobOptions;
/// let options = JobOptions::threads(2).unwrap().chunk_bytes(64 << 10);
/// assert_eq!(options.runtime().unwrap().threads(), 2);
/// ```
#[derive(Clone)]
pub struct JobOptions {
    /// The workers (default: [`Runtime::global`]).
    pub runtime: Option<Arc<Runtime>>,
    /// Target bytes of a chunk of input (cut at the next line end).
    pub chunk_bytes: usize,
    /// Progress receiver (default: none).
    pub progress: Option<Arc<ProgressFn>>,
}

impl std::fmt::Debug for JobOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobOptions")
            .field("threads", &self.runtime.as_ref().map(|r| r.threads()))
            .field("chunk_bytes", &self.chunk_bytes)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Default for JobOptions {
    fn default() -> Self {
        JobOptions {
            runtime: None,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            progress: None,
        }
    }
}

impl JobOptions {
    /// Defaults: the global runtime, 1 MiB chunks, no progress.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new runtime of `threads` workers.
    pub fn threads(threads: usize) -> Result<Self> {
        Ok(JobOptions {
            runtime: Some(Arc::new(Runtime::with_threads(threads)?)),
            ..Self::default()
        })
    }

    /// Sets the chunk size (tests use tiny chunks to put every line on a chunk boundary).
    pub fn chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes.max(1);
        self
    }

    /// Sets the progress receiver.
    pub fn progress(mut self, progress: Arc<ProgressFn>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The runtime the job runs on.
    pub fn runtime(&self) -> Result<Arc<Runtime>> {
        match &self.runtime {
            Some(runtime) => Ok(Arc::clone(runtime)),
            None => Ok(Runtime::global()?),
        }
    }

    pub(crate) fn stage(&self, name: &'static str, total: u64) -> Stage {
        let stage = Stage {
            progress: self.progress.clone(),
            name,
            total,
            done: AtomicU64::new(0),
        };
        if let Some(progress) = &stage.progress {
            progress(name, 0, total);
        }
        stage
    }
}

/// One stage of a job's progress; `advance` from any worker.
pub(crate) struct Stage {
    progress: Option<Arc<ProgressFn>>,
    name: &'static str,
    total: u64,
    done: AtomicU64,
}

impl Stage {
    pub(crate) fn advance(&self, units: u64) {
        if let Some(progress) = &self.progress {
            let done = self.done.fetch_add(units, Ordering::Relaxed) + units;
            progress(self.name, done.min(self.total), self.total);
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if let Some(progress) = &self.progress {
            progress(self.name, self.total, self.total);
        }
    }
}

/// `f(0), f(1), ..., f(n - 1)` on the runtime's workers (claimed one at a time), in index order.
pub(crate) fn map_indexed<R: Send>(
    runtime: &Runtime,
    n: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    map_indexed_on(runtime, n, |_, i| f(i))
}

/// [`map_indexed`] where `f` also gets the worker that runs it (to read its node's replica).
pub(crate) fn map_indexed_on<R: Send>(
    runtime: &Runtime,
    n: usize,
    f: impl Fn(&Worker, usize) -> R + Sync,
) -> Vec<R> {
    let mut pairs = runtime.map_reduce(
        0..n,
        1,
        Vec::new,
        |mut done, worker, range| {
            done.extend(range.map(|i| (i, f(worker, i))));
            done
        },
        |mut a, b| {
            a.extend(b);
            a
        },
    );
    pairs.sort_unstable_by_key(|(i, _)| *i);
    pairs.into_iter().map(|(_, r)| r).collect()
}

/// A worker's state over an input's line chunks that keeps the earliest malformed line it met.
pub(crate) trait ChunkState<'a>: Default + Send {
    /// The earliest fault this worker found.
    fn fault(&mut self) -> &mut Option<Fault>;
}

/// Runs `work(state, chunk, start)` on every line chunk of `input` (bytes and their offset),
/// one state per worker, and reports the stage `name` as progress. A worker skips chunks after
/// its first fault; the earliest fault of all is the error, so it does not depend on the
/// threads.
pub(crate) fn fold_chunks<'a, S: ChunkState<'a>>(
    input: &'a Input,
    options: &JobOptions,
    runtime: &Runtime,
    name: &'static str,
    work: impl Fn(&mut S, &'a [u8], usize) + Sync,
) -> Result<Vec<S>> {
    let chunks = input.chunks(options.chunk_bytes);
    let stage = options.stage(name, input.len() as u64);
    let mut states = fold_per_worker(runtime, chunks.len(), |state: &mut Option<S>, i| {
        let state = state.get_or_insert_with(S::default);
        let range = chunks[i].clone();
        if state
            .fault()
            .as_ref()
            .is_some_and(|f| f.offset < range.start)
        {
            return;
        }
        work(state, &input.bytes()[range.clone()], range.start);
        stage.advance(range.len() as u64);
    });
    drop(stage);
    let mut fault = None;
    for state in &mut states {
        fault = Fault::earliest(fault, state.fault().take());
    }
    match fault {
        Some(fault) => Err(input.fault(fault)),
        None => Ok(states),
    }
}

/// Folds indices `0..n` into one state per worker (`fold(state, i)`), claimed one at a time;
/// returns the states of the workers that claimed any.
pub(crate) fn fold_per_worker<S: Send>(
    runtime: &Runtime,
    n: usize,
    fold: impl Fn(&mut Option<S>, usize) + Sync,
) -> Vec<S> {
    runtime
        .map_reduce(
            0..n,
            1,
            Vec::new,
            |mut states: Vec<Option<S>>, _, range| {
                if states.is_empty() {
                    states.push(None);
                }
                for i in range {
                    fold(&mut states[0], i);
                }
                states
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        )
        .into_iter()
        .flatten()
        .collect()
}
