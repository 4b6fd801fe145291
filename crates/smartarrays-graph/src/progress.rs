//! Progress bars on stderr for loads, builds and long algorithms (indicatif). Bars are hidden
//! when progress is off or stderr is not a terminal, so logs and pipes stay clean.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A source of progress bars, enabled or not.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// Bars are drawn when `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Progress {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// No bars.
    pub fn off() -> Progress {
        Progress { enabled: false }
    }

    /// Whether bars are drawn.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A bar counting to `total` with a message (hidden when disabled).
    pub fn bar(&self, total: u64, message: &str) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let bar =
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(10));
        let style = ProgressStyle::with_template(
            "{msg:>12} [{bar:40}] {human_pos}/{human_len} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(message.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }

    /// Prints a line above any bar (stderr), when enabled.
    pub fn line(&self, text: &str) {
        if self.enabled {
            eprintln!("{text}");
        }
    }
}
