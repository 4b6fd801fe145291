//! Progress of long library work (loads, builds), reported through callbacks: the library says
//! which stage started, how far it got and when it finished; whoever called it decides how to show
//! that (the `smartarrays` command draws bars on a terminal; a server might log, a notebook might
//! update a widget). With no reporter set, reporting costs a branch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Receives progress reports. Called from worker threads, so it must be `Send + Sync`; calls
/// are frequent (every batch), so implementations should be cheap or rate-limit themselves.
///
/// # Example
/// ```
/// use std::sync::{Arc, Mutex};
/// use smartarrays_graph::{build, generate, GraphOptions, ProgressReporter};
///
/// #[derive(Default)]
/// struct Stages(Mutex<Vec<String>>);
/// impl ProgressReporter for Stages {
///     fn started(&self, stage: &str, _total: u64) { self.0.lock().unwrap().push(stage.to_string()); }
///     fn advanced(&self, _stage: &str, _done: u64) {}
///     fn finished(&self, _stage: &str) {}
/// }
/// let stages = Arc::new(Stages::default());
/// let options = GraphOptions::default().progress_reporter(stages.clone());
/// build(generate::uniform(1000, 4, 1, true).unwrap(), &options).unwrap();
/// assert!(stages.0.lock().unwrap().iter().any(|s| s == "pack"));
/// ```
pub trait ProgressReporter: Send + Sync {
    /// A stage of `total` units starts.
    fn started(&self, stage: &str, total: u64);
    /// `done` units of the stage are done so far (monotonic).
    fn advanced(&self, stage: &str, done: u64);
    /// The stage finished.
    fn finished(&self, stage: &str);
}

/// The library's side of reporting: a reporter, or none.
#[derive(Clone, Default)]
pub struct Progress {
    reporter: Option<Arc<dyn ProgressReporter>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("reporting", &self.reporter.is_some())
            .finish()
    }
}

impl Progress {
    /// Reports to `reporter` (or nowhere when `None`).
    pub fn new(reporter: Option<Arc<dyn ProgressReporter>>) -> Progress {
        Progress { reporter }
    }

    /// Reports nowhere.
    pub fn off() -> Progress {
        Progress { reporter: None }
    }

    /// Whether a reporter listens.
    pub fn enabled(&self) -> bool {
        self.reporter.is_some()
    }

    /// Starts a stage of `total` units.
    pub fn bar(&self, total: u64, stage: &'static str) -> Stage {
        if let Some(reporter) = &self.reporter {
            reporter.started(stage, total);
        }
        Stage {
            reporter: self.reporter.clone(),
            stage,
            done: AtomicU64::new(0),
        }
    }
}

/// One running stage; `inc` from any worker, `finish_and_clear` at the end (or on drop).
pub struct Stage {
    reporter: Option<Arc<dyn ProgressReporter>>,
    stage: &'static str,
    done: AtomicU64,
}

impl Stage {
    /// `units` more are done.
    pub fn inc(&self, units: u64) {
        if let Some(reporter) = &self.reporter {
            let done = self.done.fetch_add(units, Ordering::Relaxed) + units;
            reporter.advanced(self.stage, done);
        }
    }

    /// The stage is over.
    pub fn finish_and_clear(self) {}
}

impl Drop for Stage {
    fn drop(&mut self) {
        if let Some(reporter) = &self.reporter {
            reporter.finished(self.stage);
        }
    }
}
