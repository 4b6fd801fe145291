//! Array cost profile (input 2 of the paper's §6): the CPU cost of one access to a smart array at
//! every bit width 1..=64, sequential (the codec's fused `sum_range` kernel) and random
//! (`ArrayView::value`), measured on a cache-resident array so that the figure is compute only,
//! with no memory stall in it. The decision adds memory time separately, from the machine
//! description.
//!
//! Measured profiles are cached next to the machine description (same fingerprint, plus the
//! codec kernel level). The paper's machines get a modelled profile ([`CostProfile::haswell_model`])
//! since we cannot run on them; how it is modelled is written into the profile's notes.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use smartarrays::{ArrayOptions, Placement, Runtime, SmartArray};

use crate::error::{AdaptError, Result};
use crate::machine::write_file;

/// Values per `unpack` call in the unpack measurement (the graph kernels' window size).
const UNPACK_WINDOW: usize = 2048;

/// Format tag of cost profile files.
pub const COSTS_FORMAT: &str = "smartarrays-costs/1";

/// Cost of one access at one width, in nanoseconds of one core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WidthCost {
    /// Bit width.
    pub bits: u32,
    /// Per value, when scanning (decode and add, fused kernel).
    pub sequential_ns: f64,
    /// Per `value(i)` at a random index (index load, address arithmetic, decode).
    pub random_ns: f64,
    /// Per value, when decoding a range into a buffer (`ArrayView::unpack`), as kernels that
    /// work on decoded windows do (the graph algorithms).
    pub unpack_ns: f64,
}

/// Where a cost profile came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// Measured on this machine.
    Measured,
    /// Computed from a model (for machines we cannot run on).
    Modelled,
    /// Loaded from a hand-written file.
    Described,
}

/// Per-width access costs of smart arrays on one machine.
///
/// # JSON format
/// `{"format": "smartarrays-costs/1", "fingerprint": "...", "source": "measured", "kernel":
/// "avx512-vbmi2", "widths": [{"bits": 1, "sequential_ns": 0.05, "random_ns": 1.2}, ...64 entries],
/// "notes": [...]}`; widths must be exactly 1..=64 in order, every figure positive.
///
/// # Example
/// ```
/// use smartarrays_adapt::CostProfile;
/// let costs = CostProfile::haswell_model(2.4);
/// assert!(costs.sequential_ns(33) > costs.sequential_ns(64)); // unpacking costs more than a native load
/// let again = CostProfile::from_json(&costs.to_json()).unwrap();
/// assert_eq!(again, costs);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostProfile {
    /// Must be [`COSTS_FORMAT`].
    pub format: String,
    /// Machine fingerprint (or preset name) the costs belong to.
    pub fingerprint: String,
    /// Where they came from.
    pub source: CostSource,
    /// Codec kernel level the figures were taken with.
    pub kernel: String,
    /// One entry per width, 1..=64.
    pub widths: Vec<WidthCost>,
    /// How the figures were obtained.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Settings of the cost microbenchmark.
#[derive(Clone, Debug)]
pub struct CostSettings {
    /// Values in the cache-resident test array (default 8192: 64 KiB at 64 bits).
    pub values: usize,
    /// Random indices per timed random pass.
    pub random_accesses: usize,
    /// Timed samples per figure; the fastest is kept (least disturbed by other work).
    pub samples: usize,
    /// Minimum nanoseconds per sample (passes are repeated to reach it).
    pub min_sample_ns: u64,
}

impl Default for CostSettings {
    fn default() -> Self {
        CostSettings {
            values: 8192,
            random_accesses: 4096,
            samples: 5,
            min_sample_ns: 300_000,
        }
    }
}

impl CostSettings {
    /// A very short run for tests (figures are rough).
    pub fn quick() -> CostSettings {
        CostSettings {
            values: 2048,
            random_accesses: 1024,
            samples: 2,
            min_sample_ns: 20_000,
        }
    }
}

impl CostProfile {
    /// Sequential cost per value at `bits` (clamped to 1..=64).
    pub fn sequential_ns(&self, bits: u32) -> f64 {
        self.entry(bits).sequential_ns
    }

    /// Unpack-into-buffer cost per value at `bits` (clamped to 1..=64).
    pub fn unpack_ns(&self, bits: u32) -> f64 {
        self.entry(bits).unpack_ns
    }

    /// Random cost per access at `bits` (clamped to 1..=64).
    pub fn random_ns(&self, bits: u32) -> f64 {
        self.entry(bits).random_ns
    }

    fn entry(&self, bits: u32) -> &WidthCost {
        &self.widths[(bits.clamp(1, 64) - 1) as usize]
    }

    /// Measures every width on this machine with one pinned worker, on arrays that fit in the
    /// core's caches.
    pub fn measure(fingerprint: &str, settings: &CostSettings) -> Result<CostProfile> {
        let runtime = Arc::new(Runtime::with_threads(1)?);
        let mut widths = Vec::with_capacity(64);
        let len = settings.values.max(64);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let indices: Vec<usize> = (0..settings.random_accesses.max(1))
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as usize % len
            })
            .collect();
        for bits in 1..=64u32 {
            let max = smartarrays::codec::max_value(bits);
            let options = ArrayOptions::new()
                .placement(Placement::OsDefault)
                .bits(bits)
                .runtime(Arc::clone(&runtime));
            let array = SmartArray::from_fn(len, &options, |i| {
                (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & max
            })?;
            let (sequential_ns, random_ns, unpack_ns) = runtime.on_each_worker(|_| {
                let view = array.local();
                let sequential =
                    time_per_item(settings, len, || view.sum_range(0..len).unwrap_or(0));
                let random = time_per_item(settings, indices.len(), || {
                    indices
                        .iter()
                        .fold(0u64, |s, &i| s.wrapping_add(view.value(i)))
                });
                let mut buffer = vec![0u64; UNPACK_WINDOW.min(len)];
                let unpack = time_per_item(settings, len, || {
                    let mut check = 0u64;
                    for start in (0..len).step_by(buffer.len()) {
                        let count = buffer.len().min(len - start);
                        let _ = view.unpack(start, &mut buffer[..count]);
                        check ^= buffer[count - 1];
                    }
                    check
                });
                (sequential, random, unpack)
            })[0];
            widths.push(WidthCost {
                bits,
                sequential_ns,
                random_ns,
                unpack_ns,
            });
        }
        Ok(CostProfile {
            format: COSTS_FORMAT.into(),
            fingerprint: fingerprint.into(),
            source: CostSource::Measured,
            kernel: smartarrays::codec::detected_level().name().into(),
            widths,
            notes: vec![format!(
                "one pinned worker; {len} values (cache resident); sequential = sum_range per value, unpack = unpack into a {UNPACK_WINDOW}-value buffer per value, random = value(i) per access over {} precomputed indices; fastest of {} samples",
                indices.len(),
                settings.samples
            )],
        })
    }

    /// A modelled profile for the paper's Haswell machines at `clock_ghz`, whose smart arrays
    /// (paper §4.2-4.3) decode with scalar code (Function 3) and read 32- and 64-bit arrays as
    /// native integers. We count instructions per value and assume 2.5 instructions per cycle:
    /// a scan of a packed width costs 11 instructions per value (loop, the in-word test, shift,
    /// mask, store, reload and add) plus 5 for a value crossing a word, which happens for about
    /// b/64 of the values; a native 32/64-bit scan costs 0.5 cycles per value (vectorised load
    /// and add); a random get costs 30 + 5·b/64 instructions (Function 1's index arithmetic) or
    /// 10 when native. These are our estimates, not the paper's figures: the paper publishes no
    /// per-access costs. [`CostProfile::scaled`] varies them for sensitivity checks.
    pub fn haswell_model(clock_ghz: f64) -> CostProfile {
        const IPC: f64 = 2.5;
        let widths = (1..=64u32)
            .map(|bits| {
                let native = bits == 32 || bits == 64;
                let fraction = bits as f64 / 64.0;
                let sequential_cycles = if native {
                    0.5
                } else {
                    (11.0 + 5.0 * fraction) / IPC
                };
                let random_cycles = if native {
                    10.0 / IPC
                } else {
                    (30.0 + 5.0 * fraction) / IPC
                };
                WidthCost {
                    bits,
                    sequential_ns: sequential_cycles / clock_ghz,
                    random_ns: random_cycles / clock_ghz,
                    unpack_ns: sequential_cycles / clock_ghz,
                }
            })
            .collect();
        CostProfile {
            format: COSTS_FORMAT.into(),
            fingerprint: format!("haswell-{clock_ghz}ghz"),
            source: CostSource::Modelled,
            kernel: "scalar (paper Function 3)".into(),
            widths,
            notes: vec![
                "modelled, not measured: the paper gives no per-access costs".into(),
                "instructions per value at 2.5 per cycle: scan 11 + 5*b/64 (0.5 cycles at 32/64 bits), random get 30 + 5*b/64 (10 at 32/64 bits)"
                    .into(),
            ],
        }
    }

    /// A copy whose packed (non-native: not 32 or 64 bits) widths cost `factor` times as much,
    /// for checking how a conclusion depends on the decode cost.
    pub fn scaled(&self, factor: f64) -> CostProfile {
        let mut copy = self.clone();
        for w in &mut copy.widths {
            if w.bits != 32 && w.bits != 64 {
                w.sequential_ns *= factor;
                w.random_ns *= factor;
                w.unpack_ns *= factor;
            }
        }
        copy.notes
            .push(format!("packed-width costs scaled by {factor}"));
        copy
    }

    /// The cost profile that goes with a preset machine name.
    pub fn for_preset(name: &str) -> Option<CostProfile> {
        let machine = crate::MachineDescription::preset(name)?;
        let mut costs = CostProfile::haswell_model(machine.clock_ghz.unwrap_or(2.4));
        costs.fingerprint = machine.fingerprint;
        Some(costs)
    }

    /// Checks format, widths 1..=64 in order, positive finite figures.
    pub fn validate(&self) -> Result<()> {
        let bad = |detail: String| Err(AdaptError::invalid("cost profile", detail));
        if self.format != COSTS_FORMAT {
            return bad(format!(
                "format is {:?}, expected {COSTS_FORMAT:?}",
                self.format
            ));
        }
        if self.widths.len() != 64 {
            return bad(format!(
                "{} widths listed, expected 64 (1..=64)",
                self.widths.len()
            ));
        }
        for (i, w) in self.widths.iter().enumerate() {
            if w.bits as usize != i + 1 {
                return bad(format!(
                    "entry {i} is for {} bits, expected {}",
                    w.bits,
                    i + 1
                ));
            }
            for (name, v) in [
                ("sequential_ns", w.sequential_ns),
                ("random_ns", w.random_ns),
                ("unpack_ns", w.unpack_ns),
            ] {
                if !(v.is_finite() && v > 0.0) {
                    return bad(format!("{name} at {} bits is {v}", w.bits));
                }
            }
        }
        Ok(())
    }

    /// Parses and validates JSON.
    pub fn from_json(text: &str) -> Result<CostProfile> {
        let costs: CostProfile = serde_json::from_str(text)
            .map_err(|e| AdaptError::invalid("cost profile", e.to_string()))?;
        costs.validate()?;
        Ok(costs)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and validates a file.
    pub fn load(path: &Path) -> Result<CostProfile> {
        let text = std::fs::read_to_string(path).map_err(|e| AdaptError::io(path, e))?;
        CostProfile::from_json(&text)
    }

    /// Writes the profile.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_file(path, &self.to_json())
    }
}

impl std::fmt::Display for CostProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match self.source {
            CostSource::Measured => "measured here",
            CostSource::Modelled => "modelled",
            CostSource::Described => "described in a file",
        };
        writeln!(
            f,
            "array access costs ({source}, kernel {}), ns per access on one core:",
            self.kernel
        )?;
        writeln!(
            f,
            "  {:>4}  {:>10}  {:>10}  {:>10}",
            "bits", "sequential", "unpack", "random"
        )?;
        for w in &self.widths {
            writeln!(
                f,
                "  {:>4}  {:>10.3}  {:>10.3}  {:>10.3}",
                w.bits, w.sequential_ns, w.unpack_ns, w.random_ns
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

/// Path of the cached cost profile for a fingerprint.
pub fn costs_cache_path(dir: &Path, fingerprint: &str) -> PathBuf {
    dir.join(format!("costs-{fingerprint}.json"))
}

/// Fastest time per item of `task` (which handles `items` items), over `settings.samples`
/// samples of at least `settings.min_sample_ns` each.
fn time_per_item(settings: &CostSettings, items: usize, mut task: impl FnMut() -> u64) -> f64 {
    black_box(task());
    let mut best = f64::INFINITY;
    for _ in 0..settings.samples.max(1) {
        let start = Instant::now();
        let mut passes = 0u64;
        loop {
            black_box(task());
            passes += 1;
            let elapsed = start.elapsed().as_nanos() as u64;
            if elapsed >= settings.min_sample_ns {
                best = best.min(elapsed as f64 / (passes as f64 * items.max(1) as f64));
                break;
            }
        }
    }
    best.max(1e-6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_measurement_covers_every_width_with_positive_figures() {
        let costs = CostProfile::measure("test", &CostSettings::quick()).unwrap();
        costs.validate().unwrap();
        assert_eq!(costs.widths.len(), 64);
        assert_eq!(costs.source, CostSource::Measured);
        assert!(costs
            .widths
            .iter()
            .all(|w| w.sequential_ns < 1000.0 && w.random_ns < 10_000.0));
    }

    #[test]
    fn modelled_haswell_costs_favour_native_widths() {
        let costs = CostProfile::haswell_model(2.4);
        costs.validate().unwrap();
        assert!((costs.sequential_ns(64) - 0.5 / 2.4).abs() < 1e-12);
        assert!(costs.sequential_ns(33) > 4.0 * costs.sequential_ns(32));
        assert!((costs.sequential_ns(10) * 2.4 - (11.0 + 5.0 * 10.0 / 64.0) / 2.5).abs() < 1e-12);
        assert_eq!(
            costs.scaled(2.0).sequential_ns(10),
            2.0 * costs.sequential_ns(10)
        );
        assert_eq!(costs.scaled(2.0).sequential_ns(64), costs.sequential_ns(64));
        assert!(costs.sequential_ns(63) > costs.sequential_ns(10));
        assert_eq!(costs.sequential_ns(0), costs.sequential_ns(1));
        assert_eq!(costs.sequential_ns(99), costs.sequential_ns(64));
        assert_eq!(
            CostProfile::for_preset("paper-18core").unwrap().fingerprint,
            "paper-18core"
        );
    }

    #[test]
    fn cost_files_round_trip_and_bad_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = costs_cache_path(dir.path(), "fp");
        let costs = CostProfile::haswell_model(2.3);
        costs.save(&path).unwrap();
        assert_eq!(CostProfile::load(&path).unwrap(), costs);
        let mut short = costs.clone();
        short.widths.pop();
        assert!(CostProfile::from_json(&short.to_json())
            .unwrap_err()
            .to_string()
            .contains("63 widths"));
        let mut shuffled = costs.clone();
        shuffled.widths.swap(3, 4);
        assert!(CostProfile::from_json(&shuffled.to_json())
            .unwrap_err()
            .to_string()
            .contains("entry 3"));
        let mut negative = costs;
        negative.widths[9].random_ns = -1.0;
        assert!(CostProfile::from_json(&negative.to_json())
            .unwrap_err()
            .to_string()
            .contains("random_ns at 10 bits"));
    }
}
