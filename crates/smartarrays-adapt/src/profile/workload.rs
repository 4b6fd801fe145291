//! The [`WorkloadProfile`]: what the runs of a workload did, modelled from characteristics or
//! collected by the profiler; checked, saved, loaded and shown in plain words.

use serde::{Deserialize, Serialize};
use smartarrays::Placement;

use super::{ArrayProfile, Decode, Figure, Source, PROFILE_FORMAT};
use crate::costs::CostProfile;
use crate::error::{AdaptError, Result};
use crate::machine::{write_file, MachineDescription};
use crate::model::{self, ArrayLoad, Scales};

/// A workload's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadProfile {
    /// Must be [`PROFILE_FORMAT`].
    pub format: String,
    /// Workload name.
    pub workload: String,
    /// Runs (passes, iterations) the counts and times cover.
    pub runs: f64,
    /// Runs the workload will do in its lifetime (amortises replication; software characteristic).
    pub expected_runs: f64,
    /// Whether building replicas is hidden behind loading (paper §6.1: then any access count pays).
    pub init_hidden: bool,
    /// Workers per node during the profiled runs, `(node, workers)`.
    pub threads: Vec<(usize, usize)>,
    /// Placement of the adaptable arrays while profiled.
    pub placement: Placement,
    /// Wall-clock time of the profiled runs (seconds, all runs).
    pub elapsed_seconds: Figure,
    /// CPU time of the workers (seconds, all runs).
    pub cpu_seconds: Option<Figure>,
    /// Instructions retired (all runs), when hardware counters exist.
    pub instructions: Option<Figure>,
    /// Cycles (all runs), when hardware counters exist.
    pub cycles: Option<Figure>,
    /// CPU work at full speed in core-seconds (all runs): instructions over peak compute when
    /// counted, otherwise accesses times the cost profile.
    pub compute_core_seconds: Figure,
    /// Part of `compute_core_seconds` not caused by array accesses (kept when widths change).
    pub other_compute_core_seconds: f64,
    /// The arrays.
    pub arrays: Vec<ArrayProfile>,
    /// Remarks (e.g. why hardware counters are absent).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// CPU work of the array accesses per run at the given widths, in core-seconds.
pub fn access_compute_seconds(
    arrays: &[ArrayProfile],
    widths: &[u32],
    costs: &CostProfile,
    runs: f64,
) -> f64 {
    arrays
        .iter()
        .zip(widths)
        .map(|(a, &bits)| {
            let scan = match a.spec.decode {
                Decode::Fused => costs.sequential_ns(bits),
                Decode::Unpack => costs.unpack_ns(bits),
            };
            (a.sequential_reads + a.writes) * scan + a.random_reads * costs.random_ns(bits)
        })
        .sum::<f64>()
        * 1e-9
        / runs
}

impl WorkloadProfile {
    /// Seconds per run as measured.
    pub fn seconds_per_run(&self) -> f64 {
        self.elapsed_seconds.value / self.runs
    }

    /// Accesses per element over the workload's lifetime, over the adaptable arrays.
    pub fn accesses_per_element(&self) -> f64 {
        let (reads, len) = self
            .arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .fold((0.0, 0.0), |(r, l), a| {
                (r + a.reads(), l + a.spec.len as f64)
            });
        if len > 0.0 {
            reads / self.runs * self.expected_runs / len
        } else {
            0.0
        }
    }

    /// Random share of the adaptable arrays' reads.
    pub fn random_share(&self) -> f64 {
        let (random, all) = self
            .arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .fold((0.0, 0.0), |(r, t), a| (r + a.random_reads, t + a.reads()));
        if all > 0.0 {
            random / all
        } else {
            0.0
        }
    }

    /// Whether every adaptable array is read-only.
    pub fn read_only(&self) -> bool {
        self.arrays
            .iter()
            .filter(|a| a.spec.adaptable)
            .all(|a| a.spec.read_only)
    }

    /// CPU work per run at other widths: the measured work with the array accesses' share
    /// replaced (paper §6.2: `exec_compressed = exec_current + accesses · cost`).
    pub fn compute_seconds_at(&self, widths: &[u32], costs: &CostProfile) -> f64 {
        self.other_compute_core_seconds / self.runs
            + access_compute_seconds(&self.arrays, widths, costs, self.runs)
    }

    /// The loads per run of every array at the given configurations.
    pub fn loads(&self, configs: &[(Placement, u32)]) -> Vec<ArrayLoad> {
        self.arrays
            .iter()
            .zip(configs)
            .map(|(a, (placement, bits))| a.load(placement.clone(), *bits, self.runs))
            .collect()
    }

    /// The profiled configuration of every array.
    pub fn profiled_configs(&self) -> Vec<(Placement, u32)> {
        self.arrays
            .iter()
            .map(|a| (self.placement_of(a), a.spec.profiled_bits))
            .collect()
    }

    fn placement_of(&self, array: &ArrayProfile) -> Placement {
        if array.spec.adaptable {
            self.placement.clone()
        } else {
            Placement::Interleaved(Vec::new())
        }
    }

    /// A profile computed, not measured: arrays with their per-run accesses, `other_compute`
    /// core-seconds per run of work not tied to arrays, on all cores of `machine`, "profiled"
    /// at the natural widths interleaved. Elapsed time is the model's estimate.
    pub fn modelled(
        workload: &str,
        machine: &MachineDescription,
        costs: &CostProfile,
        arrays: Vec<ArrayProfile>,
        other_compute: f64,
        expected_runs: f64,
    ) -> Result<WorkloadProfile> {
        let threads: Vec<(usize, usize)> = machine.nodes.iter().map(|n| (n.id, n.cpus)).collect();
        let mut profile = WorkloadProfile {
            format: PROFILE_FORMAT.into(),
            workload: workload.into(),
            runs: 1.0,
            expected_runs,
            init_hidden: false,
            threads,
            placement: Placement::Interleaved(Vec::new()),
            elapsed_seconds: Figure::new(0.0, Source::Modelled),
            cpu_seconds: None,
            instructions: None,
            cycles: None,
            compute_core_seconds: Figure::new(0.0, Source::Modelled),
            other_compute_core_seconds: other_compute,
            arrays,
            notes: vec!["modelled profile: no run took place".into()],
        };
        let widths: Vec<u32> = profile
            .arrays
            .iter()
            .map(|a| a.spec.profiled_bits)
            .collect();
        let compute = profile.compute_seconds_at(&widths, costs);
        profile.compute_core_seconds = Figure::new(compute, Source::Modelled);
        let estimate = model::estimate(
            machine,
            &profile.threads,
            &profile.loads(&profile.profiled_configs()),
            compute,
            &Scales::default(),
        )?;
        profile.elapsed_seconds = Figure::new(estimate.seconds, Source::Modelled);
        profile.validate()?;
        Ok(profile)
    }

    /// Checks the profile's figures.
    pub fn validate(&self) -> Result<()> {
        let bad = |detail: String| Err(AdaptError::invalid("workload profile", detail));
        if self.format != PROFILE_FORMAT {
            return bad(format!(
                "format is {:?}, expected {PROFILE_FORMAT:?}",
                self.format
            ));
        }
        if !(self.runs > 0.0
            && self.runs.is_finite()
            && self.expected_runs >= 0.0
            && self.expected_runs.is_finite())
        {
            return bad(format!(
                "runs {} / expected runs {} must be positive",
                self.runs, self.expected_runs
            ));
        }
        if !(self.elapsed_seconds.value > 0.0 && self.elapsed_seconds.value.is_finite()) {
            return bad(format!("elapsed time {} s", self.elapsed_seconds.value));
        }
        if !(self.compute_core_seconds.value >= 0.0 && self.other_compute_core_seconds >= 0.0) {
            return bad("negative CPU work".into());
        }
        if self.threads.iter().all(|&(_, t)| t == 0) {
            return bad("no worker".into());
        }
        if self.arrays.is_empty() {
            return bad("no array".into());
        }
        for a in &self.arrays {
            let s = &a.spec;
            for bits in [s.profiled_bits, s.natural_bits, s.minimal_bits] {
                if !(1..=64).contains(&bits) {
                    return bad(format!("array {}: width {bits} is outside 1..=64", s.name));
                }
            }
            if s.minimal_bits > s.natural_bits || s.minimal_bits > s.profiled_bits {
                return bad(format!(
                    "array {}: its values need {} bits, more than its width",
                    s.name, s.minimal_bits
                ));
            }
            if [a.sequential_reads, a.random_reads, a.writes]
                .iter()
                .any(|v| !(*v >= 0.0 && v.is_finite()))
            {
                return bad(format!(
                    "array {}: negative or infinite access count",
                    s.name
                ));
            }
            if s.read_only && a.writes > 0.0 {
                return bad(format!(
                    "array {} is marked read-only but was written {} times",
                    s.name, a.writes
                ));
            }
        }
        Ok(())
    }

    /// Parses and validates JSON.
    pub fn from_json(text: &str) -> Result<WorkloadProfile> {
        let profile: WorkloadProfile = serde_json::from_str(text)
            .map_err(|e| AdaptError::invalid("workload profile", e.to_string()))?;
        profile.validate()?;
        Ok(profile)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and validates a file.
    pub fn load(path: &std::path::Path) -> Result<WorkloadProfile> {
        let text = std::fs::read_to_string(path).map_err(|e| AdaptError::io(path, e))?;
        WorkloadProfile::from_json(&text)
    }

    /// Writes the profile.
    pub fn save(&self, path: &std::path::Path) -> Result<()> {
        write_file(path, &self.to_json())
    }
}

impl std::fmt::Display for WorkloadProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "workload profile: {} ({} run(s) profiled, {} expected), placement {}",
            self.workload, self.runs, self.expected_runs, self.placement
        )?;
        writeln!(
            f,
            "  elapsed {:.4} s per run ({})",
            self.seconds_per_run(),
            self.elapsed_seconds.source.describe()
        )?;
        if let Some(cpu) = self.cpu_seconds {
            writeln!(
                f,
                "  CPU time {:.4} s per run ({})",
                cpu.value / self.runs,
                cpu.source.describe()
            )?;
        }
        match (self.instructions, self.cycles) {
            (Some(i), Some(c)) => writeln!(
                f,
                "  instructions {:.3e}, cycles {:.3e} per run ({})",
                i.value / self.runs,
                c.value / self.runs,
                i.source.describe()
            )?,
            _ => writeln!(f, "  instructions/cycles: not available")?,
        }
        writeln!(
            f,
            "  CPU work at full speed {:.4} core-s per run ({}); {:.4} of it not from array accesses",
            self.compute_core_seconds.value / self.runs,
            self.compute_core_seconds.source.describe(),
            self.other_compute_core_seconds / self.runs
        )?;
        for a in &self.arrays {
            writeln!(
                f,
                "  array {}: {} values, {} bits profiled (natural {}, needs {}), {}{}; per run {:.3e} sequential + {:.3e} random reads, {:.3e} writes ({})",
                a.spec.name,
                a.spec.len,
                a.spec.profiled_bits,
                a.spec.natural_bits,
                a.spec.minimal_bits,
                if a.spec.read_only { "read-only" } else { "written" },
                if a.spec.adaptable { "" } else { ", fixed" },
                a.sequential_reads / self.runs,
                a.random_reads / self.runs,
                a.writes / self.runs,
                a.access_source.describe()
            )?;
        }
        for note in &self.notes {
            writeln!(f, "  note: {note}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ArraySpec;

    fn aggregation(bits: u32, len: u64) -> Vec<ArrayProfile> {
        ["a1", "a2"]
            .iter()
            .map(|name| ArrayProfile {
                spec: ArraySpec::read_only(name, len, bits),
                sequential_reads: len as f64,
                random_reads: 0.0,
                writes: 0.0,
                access_source: Source::DeclaredByWorkload,
            })
            .collect()
    }

    #[test]
    fn modelled_profiles_carry_model_sources_and_round_trip() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::haswell_model(2.4);
        let profile = WorkloadProfile::modelled(
            "aggregate",
            &machine,
            &costs,
            aggregation(33, 500_000_000),
            0.0,
            15.0,
        )
        .unwrap();
        assert_eq!(profile.elapsed_seconds.source, Source::Modelled);
        assert_eq!(profile.arrays[0].spec.profiled_bits, 64);
        // 8 GB through two 8 GB/s links at 16 GB/s per socket: 0.25 s.
        assert!(
            (profile.seconds_per_run() / 0.25 - 1.0).abs() < 1e-4,
            "{}",
            profile.seconds_per_run()
        );
        assert_eq!(profile.accesses_per_element(), 15.0);
        assert_eq!(profile.random_share(), 0.0);
        assert!(profile.read_only());
        let again = WorkloadProfile::from_json(&profile.to_json()).unwrap();
        assert_eq!(again, profile);
        let dir = tempfile::tempdir().unwrap();
        profile.save(&dir.path().join("p.json")).unwrap();
        assert_eq!(
            WorkloadProfile::load(&dir.path().join("p.json")).unwrap(),
            profile
        );
        assert!(profile.to_string().contains("modelled"));
    }

    #[test]
    fn compressed_work_replaces_the_access_share_of_the_work() {
        let costs = CostProfile::haswell_model(2.4);
        let machine = MachineDescription::paper_18core();
        let profile = WorkloadProfile::modelled(
            "aggregate",
            &machine,
            &costs,
            aggregation(33, 1000),
            0.5,
            1.0,
        )
        .unwrap();
        let uncompressed = profile.compute_seconds_at(&[64, 64], &costs);
        let compressed = profile.compute_seconds_at(&[33, 33], &costs);
        assert!((uncompressed - (0.5 + 2000.0 * costs.sequential_ns(64) * 1e-9)).abs() < 1e-15);
        assert!(
            (compressed
                - uncompressed
                - 2000.0 * (costs.sequential_ns(33) - costs.sequential_ns(64)) * 1e-9)
                .abs()
                < 1e-15
        );
    }

    #[test]
    fn inconsistent_profiles_are_refused() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::haswell_model(2.4);
        let good =
            WorkloadProfile::modelled("a", &machine, &costs, aggregation(10, 1000), 0.0, 1.0)
                .unwrap();
        type Breaker = Box<dyn Fn(&mut WorkloadProfile)>;
        let cases: Vec<(Breaker, &str)> = vec![
            (Box::new(|p| p.format = "x".into()), "format"),
            (Box::new(|p| p.runs = 0.0), "runs"),
            (Box::new(|p| p.elapsed_seconds.value = -1.0), "elapsed"),
            (Box::new(|p| p.arrays.clear()), "no array"),
            (
                Box::new(|p| p.arrays[0].spec.minimal_bits = 40),
                "need 40 bits",
            ),
            (Box::new(|p| p.arrays[0].spec.natural_bits = 65), "outside"),
            (Box::new(|p| p.arrays[1].writes = 5.0), "read-only"),
            (
                Box::new(|p| p.arrays[1].random_reads = -1.0),
                "negative or infinite",
            ),
            (Box::new(|p| p.threads = vec![(0, 0)]), "no worker"),
        ];
        for (break_it, expected) in cases {
            let mut profile = good.clone();
            break_it(&mut profile);
            let error = WorkloadProfile::from_json(&profile.to_json())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(expected),
                "{error} should mention {expected}"
            );
        }
    }
}
