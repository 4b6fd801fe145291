//! The performance model behind step 2 (paper §6.2), generalised to any number of nodes and to
//! several arrays at once.
//!
//! The paper estimates a configuration's speedup per socket as the smaller of two ratios, the
//! compute the socket has over the compute the workload needs, and the memory bandwidth the
//! placement gives the socket over the bandwidth the workload uses, then averages the sockets.
//! We state the same bound as a small linear program: node `i`'s workers complete `ρ_i` runs of
//! the workload per second (work is stolen between nodes, so rates add up), subject to
//! - compute: `ρ_i · W ≤ cores_i` (W: core-seconds of CPU work per run);
//! - latency: `ρ_i · Σ random · latency(i, ·) / (cores_i · misses in flight) ≤ 1`;
//! - each link: `ρ_i · bytes(i → j) ≤ bandwidth(i → j)` for `j ≠ i`;
//! - each node's memory: `Σ_i ρ_i · bytes(i → j) ≤ local bandwidth(j)`;
//!
//! and the run time is `1 / max Σ ρ_i`. For the paper's symmetric two-socket cases this is the
//! paper's min-then-average; it also handles single-socket placement (one node's memory shared
//! by local and remote readers) and mixed placements of several arrays. The constraints that
//! are tight at the optimum are the bottleneck, reported with every estimate.

use serde::{Deserialize, Serialize};
use smartarrays::Placement;

use crate::error::{AdaptError, Result};
use crate::machine::MachineDescription;

/// Bytes moved per random access (one cache line).
pub const LINE_BYTES: f64 = 64.0;

/// One array's work in one run of the workload, in a given configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrayLoad {
    /// Name, for reports.
    pub name: String,
    /// Where it is.
    pub placement: Placement,
    /// Width it is stored at.
    pub bits: u32,
    /// Values it holds.
    pub len: u64,
    /// Values read by scans per run.
    pub sequential_reads: f64,
    /// Values read at random positions per run.
    pub random_reads: f64,
    /// Values written per run.
    pub writes: f64,
}

impl ArrayLoad {
    /// Bytes one copy of the array takes.
    pub fn bytes(&self) -> f64 {
        self.len as f64 * self.bits as f64 / 8.0
    }

    /// Bytes of memory traffic per run for reads (scans at the stored width, one line per random read).
    pub fn read_bytes(&self) -> f64 {
        self.sequential_reads * self.bits as f64 / 8.0 + self.random_reads * LINE_BYTES
    }

    /// Bytes written per run (per copy).
    pub fn write_bytes(&self) -> f64 {
        self.writes * self.bits as f64 / 8.0
    }
}

/// Scale factors applied to the machine's capacities (1.0 = as described). Calibration sets the
/// one of the profiled run's bottleneck so that the model reproduces the measured time (the
/// paper scales bandwidths to the utilisation the workload reached).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scales {
    /// Multiplies every core's compute capacity.
    pub compute: f64,
    /// Multiplies every bandwidth.
    pub bandwidth: f64,
    /// Multiplies every latency term's capacity.
    pub latency: f64,
}

impl Default for Scales {
    fn default() -> Self {
        Scales {
            compute: 1.0,
            bandwidth: 1.0,
            latency: 1.0,
        }
    }
}

/// Kind of a modelled resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// Cores of a node.
    Compute,
    /// Random-access latency of a node's cores.
    Latency,
    /// Memory channels of a node.
    Memory,
    /// Interconnect from one node's cores to another node's memory.
    Link,
}

/// How busy one resource is at the estimated optimum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Utilisation {
    /// What it is.
    pub kind: ResourceKind,
    /// Its name, e.g. "memory of node 1", "link 0->1".
    pub resource: String,
    /// Fraction of its capacity in use (1.0 = saturated).
    pub fraction: f64,
}

/// A modelled run time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Seconds per run.
    pub seconds: f64,
    /// The saturated resources.
    pub bottleneck: Vec<String>,
    /// Kind of the first saturated resource.
    pub bottleneck_kind: Option<ResourceKind>,
    /// Every resource's utilisation.
    pub utilisation: Vec<Utilisation>,
    /// Share of the work each node's workers do, by node.
    pub node_shares: Vec<(usize, f64)>,
}

/// One constraint of the model: kind, name, (reader, demand per run) terms, capacity.
type Row = (ResourceKind, String, Vec<(usize, f64)>, f64);

/// Share of an array's traffic that reader node `reader` sends to memory node `memory`.
pub fn share(
    machine: &MachineDescription,
    placement: &Placement,
    reader: usize,
    memory: usize,
) -> Result<f64> {
    let all: Vec<usize> = machine
        .nodes
        .iter()
        .filter(|n| n.memory_total > 0)
        .map(|n| n.id)
        .collect();
    Ok(match placement {
        Placement::SingleNode(node) => {
            if machine.node(*node).is_none() {
                return Err(AdaptError::InvalidInput(format!(
                    "placement on node {node}, which the machine does not have"
                )));
            }
            f64::from(u8::from(*node == memory))
        }
        Placement::Interleaved(list) if !list.is_empty() => {
            if let Some(missing) = list.iter().find(|n| machine.node(**n).is_none()) {
                return Err(AdaptError::InvalidInput(format!(
                    "interleaving over node {missing}, which the machine does not have"
                )));
            }
            list.iter().filter(|&&n| n == memory).count() as f64 / list.len() as f64
        }
        Placement::Interleaved(_) | Placement::OsDefault => {
            if all.contains(&memory) {
                1.0 / all.len().max(1) as f64
            } else {
                0.0
            }
        }
        Placement::Replicated => f64::from(u8::from(reader == memory)),
        Placement::Auto => {
            return Err(AdaptError::InvalidInput(
                "placement auto has no traffic shares: resolve it first".into(),
            ))
        }
    })
}

/// Estimates the time of one run: `arrays` under their configurations, `compute_core_seconds`
/// of CPU work, `threads` workers per node (`(node, workers)`), on `machine` scaled by `scales`.
pub fn estimate(
    machine: &MachineDescription,
    threads: &[(usize, usize)],
    arrays: &[ArrayLoad],
    compute_core_seconds: f64,
    scales: &Scales,
) -> Result<Estimate> {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    let readers: Vec<(usize, f64)> = threads
        .iter()
        .filter(|(_, t)| *t > 0)
        .map(|&(node, t)| {
            let cores = machine.node(node).map(|n| n.cores).ok_or_else(|| {
                AdaptError::InvalidInput(format!(
                    "workers on node {node}, which the machine description does not have"
                ))
            })?;
            Ok((node, t.min(cores) as f64))
        })
        .collect::<Result<_>>()?;
    if readers.is_empty() {
        return Err(AdaptError::InvalidInput("no worker on any node".into()));
    }
    let memories: Vec<usize> = machine.node_ids();
    // bytes[r][m]: bytes per run that reader r's workers move to or from memory node m.
    let mut bytes = vec![vec![0.0f64; memories.len()]; readers.len()];
    let mut latency_seconds = vec![0.0f64; readers.len()];
    for array in arrays {
        for (r, &(reader, cores)) in readers.iter().enumerate() {
            let mut average_latency = 0.0;
            for (m, &memory) in memories.iter().enumerate() {
                let s = share(machine, &array.placement, reader, memory)?;
                let written = if matches!(array.placement, Placement::Replicated) {
                    1.0
                } else {
                    s
                };
                let traffic = s * array.read_bytes() + written * array.write_bytes();
                bytes[r][m] += traffic;
                if s > 0.0 && array.random_reads > 0.0 {
                    let link = machine
                        .link(reader, memory)
                        .ok_or_else(|| missing_link(reader, memory))?;
                    average_latency += s * link.latency_ns * 1e-9;
                }
            }
            latency_seconds[r] +=
                array.random_reads * average_latency / (cores * machine.memory_level_parallelism);
        }
    }
    // Each constraint: (kind, name, terms, capacity), kept to compute utilisation afterwards.
    let mut constraints: Vec<Row> = Vec::new();
    for (r, &(reader, cores)) in readers.iter().enumerate() {
        if compute_core_seconds > 0.0 {
            constraints.push((
                ResourceKind::Compute,
                format!("compute on node {reader}"),
                vec![(r, compute_core_seconds)],
                cores * scales.compute,
            ));
        }
        if latency_seconds[r] > 0.0 {
            constraints.push((
                ResourceKind::Latency,
                format!("latency on node {reader}"),
                vec![(r, latency_seconds[r])],
                scales.latency,
            ));
        }
        for (m, &memory) in memories.iter().enumerate() {
            if memory != reader && bytes[r][m] > 0.0 {
                let link = machine
                    .link(reader, memory)
                    .ok_or_else(|| missing_link(reader, memory))?;
                constraints.push((
                    ResourceKind::Link,
                    format!("link {reader}->{memory}"),
                    vec![(r, bytes[r][m])],
                    link.read_bandwidth_gbs * 1e9 * scales.bandwidth,
                ));
            }
        }
    }
    for (m, &memory) in memories.iter().enumerate() {
        let terms: Vec<(usize, f64)> = (0..readers.len())
            .filter(|&r| bytes[r][m] > 0.0)
            .map(|r| (r, bytes[r][m]))
            .collect();
        if !terms.is_empty() {
            let local = machine
                .link(memory, memory)
                .ok_or_else(|| missing_link(memory, memory))?;
            constraints.push((
                ResourceKind::Memory,
                format!("memory of node {memory}"),
                terms,
                local.read_bandwidth_gbs * 1e9 * scales.bandwidth,
            ));
        }
    }
    if constraints.is_empty() {
        return Err(AdaptError::InvalidInput(
            "the workload has neither CPU work nor memory traffic to model".into(),
        ));
    }
    // Each node's rate alone is bounded by its tightest constraint; the solver works on rates
    // divided by the largest such bound and on rows normalised to a right-hand side of 1, so
    // that it sees numbers near 1 whether a row counts bytes or core-seconds.
    let bounds: Vec<f64> = (0..readers.len())
        .map(|r| {
            constraints
                .iter()
                .flat_map(|(_, _, terms, capacity)| {
                    terms
                        .iter()
                        .filter(|t| t.0 == r)
                        .map(move |t| capacity / t.1)
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let unit = bounds
        .iter()
        .copied()
        .filter(|b| b.is_finite())
        .fold(0.0, f64::max);
    if unit.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(AdaptError::InvalidInput(
            "the workload has neither CPU work nor memory traffic to model".into(),
        ));
    }
    let mut problem = Problem::new(OptimizationDirection::Maximize);
    let rates: Vec<_> = bounds
        .iter()
        .map(|&b| problem.add_var(1.0, (0.0, if b.is_finite() { b / unit } else { 1.0 })))
        .collect();
    for (_, _, terms, capacity) in &constraints {
        let expression: Vec<(microlp::Variable, f64)> = terms
            .iter()
            .map(|&(r, c)| (rates[r], c * unit / capacity))
            .collect();
        problem.add_constraint(expression.as_slice(), ComparisonOp::Le, 1.0);
    }
    let solution = problem
        .solve()
        .map_err(|e| AdaptError::InvalidInput(format!("the model has no solution: {e}")))?;
    let values: Vec<f64> = rates
        .iter()
        .map(|&v| *solution.var_value(v) * unit)
        .collect();
    let total: f64 = values.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return Err(AdaptError::InvalidInput(format!(
            "the model found no feasible rate ({total})"
        )));
    }
    let mut utilisation: Vec<Utilisation> = constraints
        .iter()
        .map(|(kind, name, terms, capacity)| Utilisation {
            kind: *kind,
            resource: name.clone(),
            fraction: terms.iter().map(|&(r, c)| values[r] * c).sum::<f64>() / capacity,
        })
        .collect();
    utilisation.sort_by(|a, b| b.fraction.total_cmp(&a.fraction));
    let bottleneck: Vec<String> = utilisation
        .iter()
        .filter(|u| u.fraction > 0.999)
        .map(|u| u.resource.clone())
        .collect();
    let bottleneck_kind = utilisation
        .iter()
        .find(|u| u.fraction > 0.999)
        .map(|u| u.kind);
    let node_shares = readers
        .iter()
        .zip(&values)
        .map(|(&(node, _), &v)| (node, v / total))
        .collect();
    Ok(Estimate {
        seconds: 1.0 / total,
        bottleneck,
        bottleneck_kind,
        utilisation,
        node_shares,
    })
}

fn missing_link(from: usize, to: usize) -> AdaptError {
    if from == to {
        AdaptError::MissingFigure(format!(
            "node {from} has no local bandwidth/latency figures"
        ))
    } else {
        AdaptError::MissingFigure(format!("node {from} reading node {to} has no measured bandwidth/latency (remote figures absent)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LP solver's answers are exact to about 1e-5 relative.
    fn close(a: f64, b: f64) -> bool {
        (a / b - 1.0).abs() < 1e-4
    }

    fn scan(placement: Placement, bits: u32, values: f64) -> ArrayLoad {
        ArrayLoad {
            name: "a".into(),
            placement,
            bits,
            len: values as u64,
            sequential_reads: values,
            random_reads: 0.0,
            writes: 0.0,
        }
    }

    fn all_threads(machine: &MachineDescription) -> Vec<(usize, usize)> {
        machine.nodes.iter().map(|n| (n.id, n.cpus)).collect()
    }

    /// Hand-computed bandwidth-only cases on the paper's 8-core machine (49.3 local, 8 remote).
    #[test]
    fn bandwidth_bound_scans_match_hand_computed_throughputs() {
        let machine = MachineDescription::paper_8core();
        let threads = all_threads(&machine);
        let gb = 1e9 / 8.0; // 1 GB of 64-bit values
        let time = |placement: Placement| {
            estimate(
                &machine,
                &threads,
                &[scan(placement, 64, gb)],
                0.0,
                &Scales::default(),
            )
            .unwrap()
        };
        // Replicated: both sockets read locally: 98.6 GB/s.
        assert!(close(time(Placement::Replicated).seconds, 1.0 / 98.6));
        // Interleaved: each socket's remote half limited by its 8 GB/s link: 2 x 16 GB/s.
        let interleaved = time(Placement::Interleaved(vec![]));
        assert!(close(interleaved.seconds, 1.0 / 32.0), "{interleaved:?}");
        assert!(interleaved.bottleneck.iter().any(|b| b.starts_with("link")));
        // Single socket: node 0's memory is shared by local readers and the remote 8 GB/s: 49.3.
        let single = time(Placement::SingleNode(0));
        assert!(close(single.seconds, 1.0 / 49.3), "{single:?}");
        assert!(single.bottleneck.contains(&"memory of node 0".to_string()));
        // OS default is modelled as interleaving (parallel first touch).
        assert!(close(
            time(Placement::OsDefault).seconds,
            interleaved.seconds
        ));
    }

    #[test]
    fn compute_bound_runs_take_work_over_cores() {
        let machine = MachineDescription::paper_18core();
        let threads = all_threads(&machine);
        let estimate = estimate(
            &machine,
            &threads,
            &[scan(Placement::Replicated, 10, 1e6)],
            72.0,
            &Scales::default(),
        )
        .unwrap();
        assert!(
            close(estimate.seconds, 2.0),
            "72 core-seconds over 36 cores"
        );
        assert_eq!(estimate.bottleneck_kind, Some(ResourceKind::Compute));
        let halved = super::estimate(
            &machine,
            &threads,
            &[scan(Placement::Replicated, 10, 1e6)],
            72.0,
            &Scales {
                compute: 0.5,
                ..Scales::default()
            },
        )
        .unwrap();
        assert!(close(halved.seconds, 4.0));
    }

    #[test]
    fn random_reads_are_latency_bound_and_prefer_local_memory() {
        let mut machine = MachineDescription::paper_8core();
        machine.memory_level_parallelism = 2.0;
        let threads = all_threads(&machine);
        let random = |placement: Placement| ArrayLoad {
            name: "r".into(),
            placement,
            bits: 64,
            len: 1 << 30,
            sequential_reads: 0.0,
            random_reads: 1.6e8,
            writes: 0.0,
        };
        let local = estimate(
            &machine,
            &threads,
            &[random(Placement::Replicated)],
            0.0,
            &Scales::default(),
        )
        .unwrap();
        // 1.6e8 accesses x 77 ns / (16 cores x 2 in flight) = 0.385 s (memory would allow 0.104 s).
        assert!(close(local.seconds, 0.385), "{local:?}");
        assert_eq!(local.bottleneck_kind, Some(ResourceKind::Latency));
        let interleaved = estimate(
            &machine,
            &threads,
            &[random(Placement::Interleaved(vec![]))],
            0.0,
            &Scales::default(),
        )
        .unwrap();
        assert!(interleaved.seconds > local.seconds);
    }

    #[test]
    fn writes_to_replicas_cost_every_node() {
        let machine = MachineDescription::paper_18core();
        let threads = all_threads(&machine);
        let writes = ArrayLoad {
            name: "w".into(),
            placement: Placement::Replicated,
            bits: 64,
            len: 1,
            sequential_reads: 0.0,
            random_reads: 0.0,
            writes: 1e9 / 8.0,
        };
        let replicated = estimate(
            &machine,
            &threads,
            std::slice::from_ref(&writes),
            0.0,
            &Scales::default(),
        )
        .unwrap();
        let interleaved = estimate(
            &machine,
            &threads,
            &[ArrayLoad {
                placement: Placement::Interleaved(vec![]),
                ..writes
            }],
            0.0,
            &Scales::default(),
        )
        .unwrap();
        assert!(replicated.seconds > interleaved.seconds);
    }

    #[test]
    fn missing_remote_figures_are_reported_not_invented() {
        let mut machine = MachineDescription::paper_8core();
        machine.links.retain(|l| !(l.from == 1 && l.to == 0));
        let threads = all_threads(&machine);
        let error = estimate(
            &machine,
            &threads,
            &[scan(Placement::SingleNode(0), 64, 1e6)],
            0.0,
            &Scales::default(),
        )
        .unwrap_err();
        assert!(matches!(error, AdaptError::MissingFigure(_)), "{error}");
        assert!(estimate(
            &machine,
            &threads,
            &[scan(Placement::Replicated, 64, 1e6)],
            0.0,
            &Scales::default()
        )
        .is_ok());
        assert!(estimate(
            &machine,
            &threads,
            &[scan(Placement::SingleNode(5), 64, 1e6)],
            0.0,
            &Scales::default()
        )
        .is_err());
        assert!(estimate(
            &machine,
            &[(0, 0)],
            &[scan(Placement::Replicated, 64, 1e6)],
            0.0,
            &Scales::default()
        )
        .is_err());
        assert!(estimate(&machine, &threads, &[], 0.0, &Scales::default()).is_err());
    }

    #[test]
    fn a_one_node_machine_is_modelled_with_its_local_figures_only() {
        let mut machine = MachineDescription::paper_8core();
        machine.nodes.truncate(1);
        machine.links.retain(|l| l.from == 0 && l.to == 0);
        for placement in [
            Placement::OsDefault,
            Placement::SingleNode(0),
            Placement::Interleaved(vec![]),
            Placement::Replicated,
        ] {
            let e = estimate(
                &machine,
                &[(0, 16)],
                &[scan(placement, 64, 1e9 / 8.0)],
                0.0,
                &Scales::default(),
            )
            .unwrap();
            assert!(close(e.seconds, 1.0 / 49.3));
        }
    }
}
