//! Beyond the paper: placement and width chosen for each adaptable array of a workload
//! separately, under one memory budget, minimising the estimated lifetime time.

use smartarrays::topology::format_bytes;
use smartarrays::Placement;

use crate::error::{AdaptError, Result};
use crate::model::{self, Estimate};
use crate::profile::WorkloadProfile;

use super::*;

impl Advisor {
    /// Chooses placement and width for every adaptable array separately, minimising the
    /// estimated lifetime time (runs × time per run, plus building replicas unless hidden),
    /// with all arrays together within `budget_bytes` (when given) and every node's free memory.
    pub fn choose_jointly(
        &self,
        profile: &WorkloadProfile,
        budget_bytes: Option<f64>,
    ) -> Result<JointChoice> {
        let (context, _) = self.context(profile)?;
        let n = self.machine.nodes.len() as f64;
        let mut options: Vec<Vec<(Placement, u32)>> = Vec::new();
        for a in &profile.arrays {
            if !a.spec.adaptable {
                options.push(vec![(
                    Placement::Interleaved(Vec::new()),
                    a.spec.profiled_bits,
                )]);
                continue;
            }
            let mut widths = vec![a.spec.natural_bits];
            if a.spec.minimal_bits < a.spec.natural_bits {
                widths.push(a.spec.minimal_bits);
            }
            let mut list = Vec::new();
            for placement in self.placements(a.spec.read_only) {
                for &bits in &widths {
                    list.push((placement.clone(), bits));
                }
            }
            options.push(list);
        }
        let combinations: f64 = options.iter().map(|o| o.len() as f64).product();
        let build_bandwidth = self
            .machine
            .nodes
            .iter()
            .filter_map(|node| {
                self.machine
                    .link(node.id, node.id)
                    .map(|l| l.read_bandwidth_gbs)
            })
            .fold(f64::INFINITY, f64::min)
            * 1e9
            * context.scales.bandwidth;
        let runs = profile.expected_runs.max(1.0);
        let evaluate = |configs: &[(Placement, u32)]| -> Result<Option<(f64, Estimate, f64, f64)>> {
            let memory: f64 = profile
                .arrays
                .iter()
                .zip(configs)
                .map(|(a, (p, bits))| {
                    a.bytes_at(*bits)
                        * if matches!(p, Placement::Replicated) {
                            n
                        } else {
                            1.0
                        }
                })
                .sum();
            if budget_bytes.is_some_and(|b| memory > b) || !self.fits_configs(profile, configs) {
                return Ok(None);
            }
            let widths: Vec<u32> = configs.iter().map(|c| c.1).collect();
            let compute = profile.compute_seconds_at(&widths, &self.costs) + context.extra_compute;
            let estimate = match model::estimate(
                &self.machine,
                &profile.threads,
                &profile.loads(configs),
                compute,
                &context.scales,
            ) {
                Ok(e) => e,
                Err(AdaptError::MissingFigure(_)) => return Ok(None),
                Err(e) => return Err(e),
            };
            let replication: f64 = if profile.init_hidden {
                0.0
            } else {
                profile
                    .arrays
                    .iter()
                    .zip(configs)
                    .filter(|(_, (p, _))| matches!(p, Placement::Replicated))
                    .map(|(a, (_, bits))| a.bytes_at(*bits) * (n - 1.0) / n / build_bandwidth * n)
                    .sum()
            };
            Ok(Some((
                estimate.seconds * runs + replication,
                estimate,
                memory,
                replication,
            )))
        };
        let mut evaluated = 0usize;
        let mut best: Option<Best> = None;
        let mut notes = Vec::new();
        let mut consider =
            |configs: Vec<(Placement, u32)>, best: &mut Option<Best>| -> Result<bool> {
                evaluated += 1;
                if let Some((cost, estimate, memory, replication)) = evaluate(&configs)? {
                    if best
                        .as_ref()
                        .is_none_or(|b| cost < b.1 - 1e-12 || (cost <= b.1 + 1e-12 && memory < b.3))
                    {
                        *best = Some((configs, cost, estimate, memory, replication));
                        return Ok(true);
                    }
                }
                Ok(false)
            };
        if combinations <= 20_000.0 {
            let mut index = vec![0usize; options.len()];
            loop {
                consider(
                    index
                        .iter()
                        .zip(&options)
                        .map(|(&i, o)| o[i].clone())
                        .collect(),
                    &mut best,
                )?;
                let mut k = 0;
                while k < index.len() {
                    index[k] += 1;
                    if index[k] < options[k].len() {
                        break;
                    }
                    index[k] = 0;
                    k += 1;
                }
                if k == index.len() {
                    break;
                }
            }
            notes.push(format!(
                "exhaustive search over {combinations} combinations"
            ));
        } else {
            // Coordinate descent from the smallest configuration: change one array at a time
            // while the estimate improves.
            let mut current: Vec<(Placement, u32)> = options
                .iter()
                .map(|o| {
                    o.iter()
                        .min_by_key(|(p, b)| (matches!(p, Placement::Replicated), *b))
                        .cloned()
                        .unwrap_or((Placement::Interleaved(Vec::new()), 64))
                })
                .collect();
            consider(current.clone(), &mut best)?;
            loop {
                let mut improved = false;
                for k in 0..options.len() {
                    for option in &options[k] {
                        let mut trial = current.clone();
                        trial[k] = option.clone();
                        if consider(trial.clone(), &mut best)? {
                            current = trial;
                            improved = true;
                        }
                    }
                }
                if !improved {
                    break;
                }
            }
            notes.push(format!("{combinations} combinations: coordinate descent"));
        }
        let (configs, _, estimate, memory, replication) = best.ok_or_else(|| {
            AdaptError::InvalidInput(format!(
                "no configuration of the arrays fits {}",
                budget_bytes.map_or("the nodes' free memory".to_string(), |b| format!(
                    "a budget of {}",
                    format_bytes(b as u64)
                ))
            ))
        })?;
        // The paper's way for comparison: one placement and one compression for all arrays.
        let mut uniform: Option<(String, f64, f64)> = None;
        for placement in self.placements(profile.read_only()) {
            for compressed in [false, true] {
                let widths = Self::widths(profile, compressed);
                let configs = Self::configs(profile, &placement, &widths);
                if let Some((cost, estimate, _, _)) = evaluate(&configs)? {
                    if uniform.as_ref().is_none_or(|u| cost < u.2) {
                        let label = format!(
                            "{placement}, {}",
                            if compressed {
                                "compressed"
                            } else {
                                "uncompressed"
                            }
                        );
                        uniform = Some((label, context.measured / estimate.seconds, cost));
                    }
                }
            }
        }
        let uniform = uniform.map(|(label, speedup, _)| (label, speedup));
        let arrays = profile
            .arrays
            .iter()
            .zip(&configs)
            .map(|(a, (placement, bits))| ArrayDecision {
                name: a.spec.name.clone(),
                placement: placement.clone(),
                bits: *bits,
                memory_bytes: a.bytes_at(*bits)
                    * if matches!(placement, Placement::Replicated) {
                        n
                    } else {
                        1.0
                    },
            })
            .collect();
        Ok(JointChoice {
            workload: profile.workload.clone(),
            arrays,
            speedup: context.measured / estimate.seconds,
            estimate,
            memory_bytes: memory,
            budget_bytes,
            replication_seconds: replication,
            uniform,
            evaluated,
            notes,
        })
    }

    fn fits_configs(&self, profile: &WorkloadProfile, configs: &[(Placement, u32)]) -> bool {
        let n = self.machine.nodes.len() as f64;
        self.machine.nodes.iter().all(|node| {
            let bytes: f64 = profile
                .arrays
                .iter()
                .zip(configs)
                .map(|(a, (placement, bits))| {
                    let size = a.bytes_at(*bits);
                    match placement {
                        Placement::Interleaved(_) | Placement::OsDefault | Placement::Auto => {
                            size / n
                        }
                        Placement::Replicated => size,
                        Placement::SingleNode(k) => {
                            if *k == node.id {
                                size
                            } else {
                                0.0
                            }
                        }
                    }
                })
                .sum();
            bytes <= node.memory_free as f64 * self.settings.memory_headroom
        })
    }
}
