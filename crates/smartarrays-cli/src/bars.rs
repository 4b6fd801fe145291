//! Progress bars on stderr (indicatif), drawn from the libraries' progress reports. Only on a
//! terminal, so logs and pipes stay clean.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use smartarrays_graph::ProgressReporter;

/// One bar per running stage.
#[derive(Default)]
pub struct Bars {
    running: Mutex<HashMap<String, ProgressBar>>,
}

impl Bars {
    /// A reporter when stderr is a terminal and bars are wanted, else none.
    pub fn for_terminal(wanted: bool) -> Option<Arc<dyn ProgressReporter>> {
        (wanted && std::io::stderr().is_terminal())
            .then(|| Arc::new(Bars::default()) as Arc<dyn ProgressReporter>)
    }
}

impl ProgressReporter for Bars {
    fn started(&self, stage: &str, total: u64) {
        let bar =
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(10));
        let style = ProgressStyle::with_template(
            "{msg:>12} [{bar:40}] {human_pos}/{human_len} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(stage.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Ok(mut running) = self.running.lock() {
            running.insert(stage.to_string(), bar);
        }
    }

    fn advanced(&self, stage: &str, done: u64) {
        if let Ok(running) = self.running.lock() {
            if let Some(bar) = running.get(stage) {
                bar.set_position(done);
            }
        }
    }

    fn finished(&self, stage: &str) {
        if let Ok(mut running) = self.running.lock() {
            if let Some(bar) = running.remove(stage) {
                bar.finish_and_clear();
            }
        }
    }
}
