//! Timing helpers of the benchmarks: warm-up then measured repetitions with the median, and the
//! parallel-efficiency probe that tells whether a multi-threaded figure can be trusted on a
//! machine whose cores are shared with other work.

use std::hint::black_box;
use std::time::{Duration, Instant};

use smartarrays::Runtime;

/// Timings of repeated runs.
#[derive(Clone, Debug)]
pub struct Timings {
    /// The duration of every measured run, in the order they ran.
    pub samples: Vec<Duration>,
}

impl Timings {
    /// The median run (the mean of the two middle ones for an even count; zero when empty).
    pub fn median(&self) -> Duration {
        let mut sorted = self.samples.clone();
        sorted.sort();
        match sorted.len() {
            0 => Duration::ZERO,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
        }
    }

    /// The fastest run (zero when empty).
    pub fn min(&self) -> Duration {
        self.samples.iter().copied().min().unwrap_or_default()
    }
}

/// Runs `task` `warmups` times untimed, then `repetitions` times timed. The task's result is
/// passed through `black_box` so the work cannot be optimised away; the first result is returned
/// for correctness checks.
pub fn time<T>(warmups: usize, repetitions: usize, mut task: impl FnMut() -> T) -> (Timings, T) {
    let mut first = None;
    for _ in 0..warmups {
        let value = black_box(task());
        first.get_or_insert(value);
    }
    let mut samples = Vec::with_capacity(repetitions);
    for _ in 0..repetitions.max(1) {
        let start = Instant::now();
        let value = black_box(task());
        samples.push(start.elapsed());
        first.get_or_insert(value);
    }
    (Timings { samples }, first.expect("at least one run"))
}

/// Parallel efficiency of a purely CPU-bound loop on `runtime`: the time one worker needs for
/// one unit of work divided by the time all workers need for one unit each (1.0 = every core
/// fully available; about 0.5 on two threads means the second core is busy elsewhere).
pub fn parallel_efficiency(runtime: &Runtime) -> f64 {
    const UNIT: u64 = 20_000_000;
    let spin = |seed: u64| {
        let mut x = seed | 1;
        for _ in 0..UNIT {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        black_box(x)
    };
    let single = {
        let (timings, _) = time(1, 3, || spin(1));
        timings.median()
    };
    let all = {
        let (timings, _) = time(1, 3, || {
            runtime.on_each_worker(|w| spin(w.index as u64 + 2))
        });
        timings.median()
    };
    single.as_secs_f64() / all.as_secs_f64().max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_minimums_of_odd_even_and_empty_samples() {
        let ms = Duration::from_millis;
        let odd = Timings {
            samples: vec![ms(3), ms(1), ms(2)],
        };
        assert_eq!((odd.median(), odd.min()), (ms(2), ms(1)));
        let even = Timings {
            samples: vec![ms(4), ms(1), ms(2), ms(3)],
        };
        assert_eq!(even.median(), Duration::from_micros(2500));
        let empty = Timings {
            samples: Vec::new(),
        };
        assert_eq!(
            (empty.median(), empty.min()),
            (Duration::ZERO, Duration::ZERO)
        );
        let (timings, first) = time(2, 3, || 7);
        assert_eq!((timings.samples.len(), first), (3, 7));
    }
}
