//! Evaluation the paper's way (§6.3): over cases (a workload at one data width on one machine)
//! with the time of every configuration, how often Auto picked the fastest, its mean and worst
//! distance from it, and its gain over the best single static configuration ([`summarise`]).
//!
//! And the paper's findings on its two machines ([`paper_findings`]): the presets are fed the
//! paper's Table 1 figures and modelled profiles of the aggregation (§5.1) and degree centrality
//! (§5.2) workloads; every finding is checked against the model's estimates, with the range of
//! decode costs over which it holds (the decode cost of the paper's implementation is not
//! published, so it is our estimate, see [`CostProfile::haswell_model`]).

use serde::{Deserialize, Serialize};
use smartarrays::Placement;

use crate::costs::CostProfile;
use crate::decide::{Advisor, AdvisorSettings};
use crate::error::{AdaptError, Result};
use crate::machine::MachineDescription;
use crate::profile::{ArrayProfile, ArraySpec, Source, WorkloadProfile};

/// Time of one configuration in one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigTime {
    /// Placement kind or name, e.g. "interleaved", "node:0", "replicated".
    pub placement: String,
    /// Whether the adaptable arrays are at their minimal width.
    pub compressed: bool,
    /// The width the adaptable arrays are stored at.
    pub bits: u32,
    /// Seconds per run.
    pub seconds: f64,
}

impl ConfigTime {
    /// The static rule this configuration follows, e.g. "replicated, compressed".
    pub fn rule(&self) -> String {
        rule(&self.placement, self.compressed)
    }
}

/// A static rule's label.
pub fn rule(placement: &str, compressed: bool) -> String {
    format!(
        "{placement}, {}",
        if compressed {
            "compressed"
        } else {
            "uncompressed"
        }
    )
}

/// One case: every configuration's time and the rule Auto chose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Workload.
    pub workload: String,
    /// Machine.
    pub machine: String,
    /// Data width of the case.
    pub bits: u32,
    /// Every configuration (both rules listed when compressed and uncompressed coincide).
    pub times: Vec<ConfigTime>,
    /// Auto's rule.
    pub chosen: String,
    /// Step 2 alone (paper §6.3): for each placement, whether the advisor would compress there.
    #[serde(default)]
    pub predicted_compression: Vec<(String, bool)>,
}

impl Case {
    /// Seconds of a rule, if measured.
    pub fn seconds(&self, rule: &str) -> Option<f64> {
        self.times
            .iter()
            .find(|t| t.rule() == rule)
            .map(|t| t.seconds)
    }

    /// The fastest configuration.
    pub fn best(&self) -> Option<&ConfigTime> {
        self.times
            .iter()
            .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
    }
}

/// How one case went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseOutcome {
    /// Workload.
    pub workload: String,
    /// Machine.
    pub machine: String,
    /// Data width.
    pub bits: u32,
    /// Fastest rule and its time.
    pub best: (String, f64),
    /// Auto's rule and its time.
    pub chosen: (String, f64),
    /// `chosen / best - 1`.
    pub distance: f64,
}

/// The paper-style summary of an evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Cases evaluated.
    pub cases: usize,
    /// Cases where Auto's configuration was the fastest measured.
    pub picked_best: usize,
    /// Cases where it was within `tolerance` of the fastest.
    pub picked_within: usize,
    /// The tolerance (e.g. 0.03: within 3 %).
    pub tolerance: f64,
    /// Mean of `chosen / best - 1`.
    pub mean_distance: f64,
    /// Largest `chosen / best - 1`.
    pub worst_distance: f64,
    /// The best static rule: the one configuration rule with the smallest mean distance from the best.
    pub best_static: String,
    /// Its mean distance from the best.
    pub best_static_mean_distance: f64,
    /// Geometric mean over cases of `best static time / Auto time`, minus 1 (positive: Auto is faster).
    pub gain_over_best_static: f64,
    /// Every case.
    pub outcomes: Vec<CaseOutcome>,
}

/// Summarises cases the paper's way. Static rules are those present in every case.
pub fn summarise(cases: &[Case], tolerance: f64) -> Result<Summary> {
    if cases.is_empty() {
        return Err(AdaptError::InvalidInput("no case to summarise".into()));
    }
    let mut outcomes = Vec::new();
    for case in cases {
        let best = case.best().ok_or_else(|| {
            AdaptError::InvalidInput(format!(
                "case {} at {} bits has no time",
                case.workload, case.bits
            ))
        })?;
        let chosen = case.seconds(&case.chosen).ok_or_else(|| {
            AdaptError::InvalidInput(format!(
                "case {} at {} bits: Auto's rule {:?} was not measured",
                case.workload, case.bits, case.chosen
            ))
        })?;
        outcomes.push(CaseOutcome {
            workload: case.workload.clone(),
            machine: case.machine.clone(),
            bits: case.bits,
            best: (best.rule(), best.seconds),
            chosen: (case.chosen.clone(), chosen),
            distance: chosen / best.seconds - 1.0,
        });
    }
    let picked_best = outcomes.iter().filter(|o| o.distance <= 1e-12).count();
    let picked_within = outcomes.iter().filter(|o| o.distance <= tolerance).count();
    let mean_distance = outcomes.iter().map(|o| o.distance).sum::<f64>() / outcomes.len() as f64;
    let worst_distance = outcomes.iter().map(|o| o.distance).fold(0.0, f64::max);
    let mut rules: Vec<String> = cases[0].times.iter().map(ConfigTime::rule).collect();
    rules.sort();
    rules.dedup();
    rules.retain(|r| cases.iter().all(|c| c.seconds(r).is_some()));
    let mut best_static: Option<(String, f64)> = None;
    for r in &rules {
        let mean = cases
            .iter()
            .zip(&outcomes)
            .map(|(c, o)| c.seconds(r).unwrap_or(f64::INFINITY) / o.best.1 - 1.0)
            .sum::<f64>()
            / cases.len() as f64;
        if best_static.as_ref().is_none_or(|b| mean < b.1) {
            best_static = Some((r.clone(), mean));
        }
    }
    let (best_static, best_static_mean_distance) = best_static
        .ok_or_else(|| AdaptError::InvalidInput("no rule is measured in every case".into()))?;
    let log_gain = cases
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| (c.seconds(&best_static).unwrap_or(o.chosen.1) / o.chosen.1).ln())
        .sum::<f64>()
        / cases.len() as f64;
    Ok(Summary {
        cases: cases.len(),
        picked_best,
        picked_within,
        tolerance,
        mean_distance,
        worst_distance,
        best_static,
        best_static_mean_distance,
        gain_over_best_static: log_gain.exp() - 1.0,
        outcomes,
    })
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{:<18} {:<14} {:>4}  {:<30} {:>10}  {:<30} {:>10}  {:>8}",
            "workload", "machine", "bits", "fastest", "s", "auto", "s", "distance"
        )?;
        for o in &self.outcomes {
            writeln!(
                f,
                "{:<18} {:<14} {:>4}  {:<30} {:>10.5}  {:<30} {:>10.5}  {:>7.1}%",
                o.workload,
                o.machine,
                o.bits,
                o.best.0,
                o.best.1,
                o.chosen.0,
                o.chosen.1,
                o.distance * 100.0
            )?;
        }
        writeln!(
            f,
            "auto picked the fastest in {} of {} cases ({} within {:.0}%); mean distance {:.1}%, worst {:.1}%",
            self.picked_best,
            self.cases,
            self.picked_within,
            self.tolerance * 100.0,
            self.mean_distance * 100.0,
            self.worst_distance * 100.0
        )?;
        writeln!(
            f,
            "best static configuration: {} (mean distance {:.1}%); auto is {:.1}% {} than it (geometric mean)",
            self.best_static,
            self.best_static_mean_distance * 100.0,
            self.gain_over_best_static.abs() * 100.0,
            if self.gain_over_best_static >= 0.0 { "faster" } else { "slower" }
        )
    }
}

/// How the compression decision alone went (the paper's evaluation of step 2: for every case and
/// placement, compress or not).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompressionSummary {
    /// Decisions evaluated (cases × placements where both widths were measured).
    pub decisions: usize,
    /// Decisions that picked the faster width.
    pub correct: usize,
    /// Decisions within the tolerance of the faster width.
    pub within: usize,
    /// Mean `chosen / faster - 1` over the wrong decisions.
    pub mean_loss_when_wrong: f64,
    /// Geometric-mean gain of the decisions over always compressing (positive: faster).
    pub gain_over_always: f64,
    /// Geometric-mean gain over never compressing.
    pub gain_over_never: f64,
}

/// Evaluates the per-placement compression predictions of `cases`.
pub fn summarise_compression(cases: &[Case], tolerance: f64) -> Option<CompressionSummary> {
    let mut decisions = Vec::new();
    for case in cases {
        for (placement, compress) in &case.predicted_compression {
            if let (Some(u), Some(z)) = (
                case.seconds(&rule(placement, false)),
                case.seconds(&rule(placement, true)),
            ) {
                let chosen = if *compress { z } else { u };
                decisions.push((chosen, u, z));
            }
        }
    }
    if decisions.is_empty() {
        return None;
    }
    let count = decisions.len() as f64;
    let wrong: Vec<f64> = decisions
        .iter()
        .map(|&(c, u, z)| c / u.min(z) - 1.0)
        .filter(|&loss| loss > 1e-12)
        .collect();
    let geo = |other: fn(&(f64, f64, f64)) -> f64| {
        (decisions.iter().map(|d| (other(d) / d.0).ln()).sum::<f64>() / count).exp() - 1.0
    };
    Some(CompressionSummary {
        decisions: decisions.len(),
        correct: decisions.len() - wrong.len(),
        within: decisions
            .iter()
            .filter(|&&(c, u, z)| c <= u.min(z) * (1.0 + tolerance))
            .count(),
        mean_loss_when_wrong: if wrong.is_empty() {
            0.0
        } else {
            wrong.iter().sum::<f64>() / wrong.len() as f64
        },
        gain_over_always: geo(|d| d.2),
        gain_over_never: geo(|d| d.1),
    })
}

impl std::fmt::Display for CompressionSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "compression decision per placement (step 2 alone): right in {} of {} ({} within tolerance); wrong ones cost {:.1}% on average; {:+.1}% against always compressing, {:+.1}% against never compressing (geometric mean, positive = faster)",
            self.correct,
            self.decisions,
            self.within,
            self.mean_loss_when_wrong * 100.0,
            self.gain_over_always * 100.0,
            self.gain_over_never * 100.0
        )
    }
}

/// Values per array of the paper's aggregation (two 4 GB arrays of 64-bit integers).
pub const PAPER_AGGREGATE_VALUES: u64 = 1 << 29;
/// Vertices of the paper's degree-centrality graph (1.5 billion, 3 random edges each).
pub const PAPER_DEGREE_VERTICES: u64 = 1_500_000_000;
/// The paper's aggregation widths (Figure 10).
pub const PAPER_WIDTHS: [u32; 7] = [10, 31, 32, 33, 50, 63, 64];

/// Modelled profile of the aggregation: two read-only arrays of `values` 64-bit integers whose
/// data needs `bits` bits, each scanned once per run, run `expected_runs` times (5 warm-ups and
/// 10 measured runs in the paper).
pub fn aggregation_profile(
    machine: &MachineDescription,
    costs: &CostProfile,
    values: u64,
    bits: u32,
    expected_runs: f64,
) -> Result<WorkloadProfile> {
    let arrays = ["a1", "a2"]
        .iter()
        .map(|name| ArrayProfile {
            spec: ArraySpec::read_only(name, values, bits).with_natural(64),
            sequential_reads: values as f64,
            random_reads: 0.0,
            writes: 0.0,
            access_source: Source::DeclaredByWorkload,
        })
        .collect();
    WorkloadProfile::modelled("aggregate", machine, costs, arrays, 0.0, expected_runs)
}

/// Modelled profile of degree centrality on a graph of `vertices` vertices and `entries` edges
/// per direction: `begin` and `rbegin` (vertices + 1 offsets each, 64-bit natural, needing the
/// bits of `entries`) scanned once per run; the 32-bit output written once per vertex and kept
/// interleaved (as in the paper).
pub fn degree_profile(
    machine: &MachineDescription,
    costs: &CostProfile,
    vertices: u64,
    entries: u64,
    expected_runs: f64,
) -> Result<WorkloadProfile> {
    let offset_bits = smartarrays::codec::bits_needed(entries);
    let offsets = |name: &str| ArrayProfile {
        spec: ArraySpec::read_only(name, vertices + 1, offset_bits)
            .with_natural(64)
            .unpacked(),
        sequential_reads: (vertices + 1) as f64,
        random_reads: 0.0,
        writes: 0.0,
        access_source: Source::DeclaredByWorkload,
    };
    let output = ArrayProfile {
        spec: ArraySpec::written("degree", vertices, 32).fixed(),
        sequential_reads: 0.0,
        random_reads: 0.0,
        writes: vertices as f64,
        access_source: Source::DeclaredByWorkload,
    };
    WorkloadProfile::modelled(
        "degree-centrality",
        machine,
        costs,
        vec![offsets("begin"), offsets("rbegin"), output],
        0.0,
        expected_runs,
    )
}

/// Modelled profile of one PageRank iteration (pull over reverse edges) on a graph of
/// `vertices` vertices and `edges` edges whose largest out-degree is `max_degree`: `rbegin`,
/// `redge` and the out-degrees are read-only and adaptable; ranks and contributions (64-bit
/// floating point) are written and stay interleaved. Per iteration: one pass over `rbegin`,
/// `redge`, the out-degrees and the ranks; one random read of a contribution per edge.
pub fn pagerank_profile(
    machine: &MachineDescription,
    costs: &CostProfile,
    vertices: u64,
    edges: u64,
    max_degree: u64,
    expected_iterations: f64,
) -> Result<WorkloadProfile> {
    let bits = smartarrays::codec::bits_needed;
    let n = vertices as f64;
    let m = edges as f64;
    let array =
        |spec: ArraySpec, sequential_reads: f64, random_reads: f64, writes: f64| ArrayProfile {
            spec,
            sequential_reads,
            random_reads,
            writes,
            access_source: Source::DeclaredByWorkload,
        };
    let arrays = vec![
        array(
            ArraySpec::read_only("rbegin", vertices + 1, bits(edges))
                .with_natural(64)
                .unpacked(),
            n + 1.0,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::read_only("redge", edges, bits(vertices.saturating_sub(1))).unpacked(),
            m,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::read_only("out_degree", vertices, bits(max_degree)).unpacked(),
            n,
            0.0,
            0.0,
        ),
        array(
            ArraySpec::written("ranks", vertices, 64)
                .with_natural(64)
                .fixed(),
            n,
            0.0,
            n,
        ),
        array(
            ArraySpec::written("contributions", vertices, 64)
                .with_natural(64)
                .fixed(),
            0.0,
            m,
            n,
        ),
    ];
    WorkloadProfile::modelled("pagerank", machine, costs, arrays, 0.0, expected_iterations)
}

/// One of the paper's findings, checked against the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Machine preset.
    pub machine: String,
    /// Paper section.
    pub section: String,
    /// The finding in the paper's words (paraphrased).
    pub statement: String,
    /// Whether the model reproduces it at our decode-cost estimate.
    pub holds: bool,
    /// Where it does not, and the numbers.
    pub detail: String,
    /// Decode-cost factors (multiplying our estimate) at which it holds.
    pub holds_at_cost_factors: Vec<f64>,
}

/// Estimated time of every rule for one modelled case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelledCase {
    /// The case with the model's times.
    pub case: Case,
    /// Auto's full explanation in one line.
    pub summary: String,
}

/// The presets' modelled evaluation: every case, and the findings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresetEvaluation {
    /// Modelled cases (both presets, aggregation at every paper width and degree centrality).
    pub cases: Vec<ModelledCase>,
    /// The paper's findings, checked.
    pub findings: Vec<Finding>,
    /// Decision-diagram checks with memory short (paper §6.3), in words.
    pub memory_checks: Vec<(String, bool)>,
    /// Decode-cost factors swept.
    pub cost_factors: Vec<f64>,
}

/// Model times of every rule (placements × compressed or not) for a modelled profile.
fn model_case(advisor: &Advisor, profile: &WorkloadProfile, bits: u32) -> Result<ModelledCase> {
    let choice = advisor.choose(profile)?;
    let mut times = Vec::new();
    for placement in advisor.placements(true) {
        for compressed in [false, true] {
            let candidate = advisor.estimate_configuration(profile, &placement, compressed)?;
            times.push(ConfigTime {
                placement: placement.to_string(),
                compressed,
                bits: candidate.widths.first().copied().unwrap_or(bits),
                seconds: candidate.estimate.seconds,
            });
        }
    }
    let chosen = rule(
        &choice.chosen.placement.to_string(),
        choice.chosen.compressed,
    );
    Ok(ModelledCase {
        case: Case {
            workload: profile.workload.clone(),
            machine: advisor.machine.fingerprint.clone(),
            bits,
            times,
            chosen,
            predicted_compression: Vec::new(),
        },
        summary: choice.summary(),
    })
}

/// Cases of both presets at one decode-cost factor.
fn preset_cases(factor: f64) -> Result<Vec<ModelledCase>> {
    let mut cases = Vec::new();
    for name in MachineDescription::PRESETS {
        let machine = MachineDescription::preset(name)
            .ok_or_else(|| AdaptError::InvalidInput(name.into()))?;
        let costs = CostProfile::for_preset(name)
            .ok_or_else(|| AdaptError::InvalidInput(name.into()))?
            .scaled(factor);
        let advisor = Advisor::new(machine.clone(), costs.clone());
        for bits in PAPER_WIDTHS {
            let profile =
                aggregation_profile(&machine, &costs, PAPER_AGGREGATE_VALUES, bits, 15.0)?;
            cases.push(model_case(&advisor, &profile, bits)?);
        }
        let profile = degree_profile(
            &machine,
            &costs,
            PAPER_DEGREE_VERTICES,
            3 * PAPER_DEGREE_VERTICES,
            15.0,
        )?;
        let bits = profile.arrays[0].spec.minimal_bits;
        cases.push(model_case(&advisor, &profile, bits)?);
    }
    Ok(cases)
}

type Check = fn(&[ModelledCase]) -> (bool, String);

fn seconds(
    cases: &[ModelledCase],
    machine: &str,
    workload: &str,
    bits: u32,
    placement: &str,
    compressed: bool,
) -> f64 {
    cases
        .iter()
        .find(|c| c.case.machine == machine && c.case.workload == workload && c.case.bits == bits)
        .and_then(|c| c.case.seconds(&rule(placement, compressed)))
        .unwrap_or(f64::NAN)
}

const SINGLE: &str = "node:0";
const INTERLEAVED: &str = "interleaved";
const REPLICATED: &str = "replicated";
const PACKED: [u32; 5] = [10, 31, 33, 50, 63];

/// Time of the aggregation with data of `bits` bits stored at `bits` (the paper's bar for that
/// width: compressed for packed widths, the native 32/64-bit case otherwise).
fn stored(cases: &[ModelledCase], machine: &str, bits: u32, placement: &str) -> f64 {
    seconds(cases, machine, "aggregate", bits, placement, true)
}

fn findings_list() -> Vec<(&'static str, &'static str, &'static str, Check)> {
    vec![
        ("paper-8core", "5.1", "replication is the best placement for 32- and 64-bit data", |c| {
            let fails: Vec<String> = [32, 64]
                .iter()
                .filter(|&&b| {
                    let r = stored(c, "paper-8core", b, REPLICATED);
                    r >= stored(c, "paper-8core", b, SINGLE) || r >= stored(c, "paper-8core", b, INTERLEAVED)
                })
                .map(|b| format!("{b} bits"))
                .collect();
            (fails.is_empty(), fails.join(", "))
        }),
        ("paper-8core", "5.1", "interleaving is the worst placement for 32- and 64-bit data", |c| {
            let fails: Vec<String> = [32, 64]
                .iter()
                .filter(|&&b| {
                    let i = stored(c, "paper-8core", b, INTERLEAVED);
                    i <= stored(c, "paper-8core", b, SINGLE) || i <= stored(c, "paper-8core", b, REPLICATED)
                })
                .map(|b| format!("{b} bits"))
                .collect();
            (fails.is_empty(), fails.join(", "))
        }),
        ("paper-8core", "5.1", "compression pays only when interleaved (not single socket, not replicated)", |c| {
            let mut fails = Vec::new();
            for b in PACKED {
                for (placement, should_pay) in [(INTERLEAVED, true), (SINGLE, false), (REPLICATED, false)] {
                    let gain = seconds(c, "paper-8core", "aggregate", b, placement, false)
                        / seconds(c, "paper-8core", "aggregate", b, placement, true)
                        - 1.0;
                    if (gain > 0.0) != should_pay {
                        fails.push(format!(
                            "{b} bits {placement}: compression {} {:.0}%",
                            if gain > 0.0 { "gains" } else { "loses" },
                            gain.abs() * 100.0
                        ));
                    }
                }
            }
            (fails.is_empty(), fails.join("; "))
        }),
        ("paper-18core", "5.1", "interleaving beats single socket (or ties where both are compute-bound)", |c| {
            let fails: Vec<String> = crate::evaluate::PAPER_WIDTHS
                .iter()
                .filter(|&&b| stored(c, "paper-18core", b, INTERLEAVED) > stored(c, "paper-18core", b, SINGLE) * 1.01)
                .map(|b| format!("{b} bits"))
                .collect();
            let ties: Vec<String> = crate::evaluate::PAPER_WIDTHS
                .iter()
                .filter(|&&b| stored(c, "paper-18core", b, INTERLEAVED) > stored(c, "paper-18core", b, SINGLE) * 0.99)
                .map(|b| format!("{b} bits"))
                .collect();
            let detail = if fails.is_empty() && !ties.is_empty() {
                format!("ties (both compute-bound) at {}", ties.join(", "))
            } else {
                fails.join(", ")
            };
            (fails.is_empty(), detail)
        }),
        ("paper-18core", "5.1", "replication helps a little over interleaving (0-25%)", |c| {
            let mut fails = Vec::new();
            for b in crate::evaluate::PAPER_WIDTHS {
                let gain = stored(c, "paper-18core", b, INTERLEAVED) / stored(c, "paper-18core", b, REPLICATED) - 1.0;
                if !(gain > 0.0 && gain <= 0.25) {
                    fails.push(format!("{b} bits: {:+.1}%", gain * 100.0));
                }
            }
            (fails.is_empty(), fails.join(", "))
        }),
        ("paper-18core", "5.1", "compression helps for every placement", |c| {
            let mut fails = Vec::new();
            for b in PACKED.iter().copied().chain([32]) {
                for placement in [SINGLE, INTERLEAVED, REPLICATED] {
                    let gain = seconds(c, "paper-18core", "aggregate", b, placement, false)
                        / seconds(c, "paper-18core", "aggregate", b, placement, true)
                        - 1.0;
                    if gain <= 0.0 {
                        fails.push(format!("{b} bits {placement}: {:+.1}%", gain * 100.0));
                    }
                }
            }
            (fails.is_empty(), fails.join("; "))
        }),
        ("paper-8core", "5.2", "degree centrality: replication is best; with it compression is slightly worse, elsewhere it helps", |c| {
            let bits =
                c.iter().find(|c| c.case.machine == "paper-8core" && c.case.workload == "degree-centrality").map_or(0, |c| c.case.bits);
            let t = |p: &str, z: bool| seconds(c, "paper-8core", "degree-centrality", bits, p, z);
            let mut fails = Vec::new();
            for z in [false, true] {
                if t(REPLICATED, z) >= t(SINGLE, z).min(t(INTERLEAVED, z)) {
                    fails.push(format!("replication not best ({})", if z { "compressed" } else { "uncompressed" }));
                }
            }
            if t(REPLICATED, true) < t(REPLICATED, false) {
                fails.push("compression helps when replicated".into());
            }
            for p in [SINGLE, INTERLEAVED] {
                if t(p, true) >= t(p, false) {
                    fails.push(format!("compression does not help {p}"));
                }
            }
            (fails.is_empty(), fails.join(", "))
        }),
        (
            "paper-18core",
            "5.2",
            "degree centrality: interleaving beats single socket, replication a little better, compression improves further",
            |c| {
                let bits = c
                    .iter()
                    .find(|c| c.case.machine == "paper-18core" && c.case.workload == "degree-centrality")
                    .map_or(0, |c| c.case.bits);
                let t = |p: &str, z: bool| seconds(c, "paper-18core", "degree-centrality", bits, p, z);
                let mut fails = Vec::new();
                if t(INTERLEAVED, false) >= t(SINGLE, false) {
                    fails.push("interleaving not faster than single socket".to_string());
                }
                let gain = t(INTERLEAVED, false) / t(REPLICATED, false) - 1.0;
                if !(gain > 0.0 && gain <= 0.25) {
                    fails.push(format!("replication over interleaving {:+.1}%", gain * 100.0));
                }
                for p in [SINGLE, INTERLEAVED, REPLICATED] {
                    if t(p, true) >= t(p, false) {
                        fails.push(format!("compression does not help {p}"));
                    }
                }
                (fails.is_empty(), fails.join(", "))
            },
        ),
    ]
}

/// The presets' evaluation: every modelled case at our decode-cost estimate, every finding
/// checked at each of `cost_factors` (multiples of the estimate), and the memory-shortage
/// checks of the decision diagrams.
pub fn paper_findings(cost_factors: &[f64]) -> Result<PresetEvaluation> {
    let base = preset_cases(1.0)?;
    let mut swept = Vec::new();
    for &factor in cost_factors {
        swept.push((factor, preset_cases(factor)?));
    }
    let findings = findings_list()
        .into_iter()
        .map(|(machine, section, statement, check)| {
            let (holds, detail) = check(&base);
            let holds_at_cost_factors = swept
                .iter()
                .filter(|(_, cases)| check(cases).0)
                .map(|(f, _)| *f)
                .collect();
            Finding {
                machine: machine.into(),
                section: section.into(),
                statement: statement.into(),
                holds,
                detail,
                holds_at_cost_factors,
            }
        })
        .collect();
    Ok(PresetEvaluation {
        cases: base,
        findings,
        memory_checks: memory_checks()?,
        cost_factors: cost_factors.to_vec(),
    })
}

/// Paper §6.3's extra step-1 checks: with memory too short for uncompressed replicas but enough
/// for compressed ones, the uncompressed candidate must not replicate and the compressed one
/// must; with memory too short for either, neither may.
fn memory_checks() -> Result<Vec<(String, bool)>> {
    let mut checks = Vec::new();
    for name in MachineDescription::PRESETS {
        let machine = MachineDescription::preset(name)
            .ok_or_else(|| AdaptError::InvalidInput(name.into()))?;
        let costs =
            CostProfile::for_preset(name).ok_or_else(|| AdaptError::InvalidInput(name.into()))?;
        for bits in PACKED {
            let profile =
                aggregation_profile(&machine, &costs, PAPER_AGGREGATE_VALUES, bits, 15.0)?;
            let uncompressed: f64 = profile.arrays.iter().map(|a| a.bytes_at(64)).sum();
            let compressed: f64 = profile.arrays.iter().map(|a| a.bytes_at(bits)).sum();
            let headroom = AdvisorSettings::default().memory_headroom;
            let between = ((uncompressed + compressed) / 2.0 / headroom) as u64;
            let short = (compressed * 0.75 / headroom) as u64;
            let unlimited = Advisor::new(machine.clone(), costs.clone()).choose(&profile)?;
            let advisor = Advisor::new(machine.with_free_memory(between), costs.clone());
            let choice = advisor.choose(&profile)?;
            let placement_of =
                |c: &Option<crate::decide::Candidate>| c.as_ref().map(|c| c.placement.clone());
            checks.push((
                format!(
                    "{name}, {bits} bits, room for compressed replicas only: uncompressed candidate {} (not replicated), compressed candidate {} (as with ample memory: {})",
                    choice.uncompressed.placement,
                    placement_of(&choice.compressed).map_or("none".to_string(), |p| p.to_string()),
                    placement_of(&unlimited.compressed).map_or("none".to_string(), |p| p.to_string()),
                ),
                choice.uncompressed.placement != Placement::Replicated && placement_of(&choice.compressed) == placement_of(&unlimited.compressed),
            ));
            let advisor = Advisor::new(machine.with_free_memory(short), costs.clone());
            let choice = advisor.choose(&profile)?;
            let any_replicated = choice.uncompressed.placement == Placement::Replicated
                || choice
                    .compressed
                    .as_ref()
                    .is_some_and(|c| c.placement == Placement::Replicated);
            checks.push((
                format!(
                    "{name}, {bits} bits, room for no replica: uncompressed candidate {}, compressed candidate {}",
                    choice.uncompressed.placement,
                    choice.compressed.as_ref().map_or("none".to_string(), |c| c.placement.to_string())
                ),
                !any_replicated,
            ));
        }
    }
    Ok(checks)
}

impl std::fmt::Display for PresetEvaluation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "modelled cases (paper machines, our decode-cost estimate):"
        )?;
        for m in &self.cases {
            let c = &m.case;
            let times = c
                .times
                .iter()
                .filter(|t| {
                    !(t.compressed
                        && c.times.iter().any(|u| {
                            !u.compressed && u.placement == t.placement && u.bits == t.bits
                        }))
                })
                .map(|t| format!("{}/{}b {:.3}s", t.placement, t.bits, t.seconds))
                .collect::<Vec<_>>()
                .join("  ");
            writeln!(
                f,
                "  {:<13} {:<18} {:>2} bits  auto: {:<28} | {times}",
                c.machine, c.workload, c.bits, c.chosen
            )?;
        }
        writeln!(
            f,
            "the paper's findings, as the model sees them (decode-cost factors tried: {:?}):",
            self.cost_factors
        )?;
        for finding in &self.findings {
            writeln!(
                f,
                "  [{}] {} §{}: {}{}; holds at cost factors {:?}",
                if finding.holds {
                    "reproduced"
                } else {
                    "NOT reproduced"
                },
                finding.machine,
                finding.section,
                finding.statement,
                match (finding.detail.is_empty(), finding.holds) {
                    (true, _) => String::new(),
                    (false, true) => format!(" ({})", finding.detail),
                    (false, false) => format!(" (fails: {})", finding.detail),
                },
                finding.holds_at_cost_factors
            )?;
        }
        writeln!(f, "decision diagrams with memory short (paper §6.3):")?;
        for (check, ok) in &self.memory_checks {
            writeln!(f, "  [{}] {check}", if *ok { "ok" } else { "WRONG" })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(bits: u32, times: &[(&str, bool, f64)], chosen: &str) -> Case {
        Case {
            workload: "w".into(),
            machine: "m".into(),
            bits,
            times: times
                .iter()
                .map(|&(p, z, s)| ConfigTime {
                    placement: p.into(),
                    compressed: z,
                    bits,
                    seconds: s,
                })
                .collect(),
            chosen: chosen.into(),
            predicted_compression: Vec::new(),
        }
    }

    #[test]
    fn summaries_count_best_picks_distances_and_the_gain_over_the_best_static_rule() {
        let cases = vec![
            case(
                10,
                &[("interleaved", false, 2.0), ("interleaved", true, 1.0)],
                "interleaved, compressed",
            ),
            case(
                33,
                &[("interleaved", false, 1.0), ("interleaved", true, 1.5)],
                "interleaved, compressed",
            ),
            case(
                63,
                &[("interleaved", false, 1.0), ("interleaved", true, 1.02)],
                "interleaved, compressed",
            ),
        ];
        let summary = summarise(&cases, 0.03).unwrap();
        assert_eq!(summary.cases, 3);
        assert_eq!(summary.picked_best, 1);
        assert_eq!(summary.picked_within, 2);
        assert!((summary.worst_distance - 0.5).abs() < 1e-12);
        assert!((summary.mean_distance - (0.0 + 0.5 + 0.02) / 3.0).abs() < 1e-12);
        // Uncompressed: distances 1.0, 0, 0 -> mean 0.333; compressed: 0, 0.5, 0.02 -> 0.173.
        assert_eq!(summary.best_static, "interleaved, compressed");
        assert!(
            summary.gain_over_best_static.abs() < 1e-12,
            "Auto always chose the best static rule"
        );
        let better = vec![
            case(10, &[("a", false, 2.0), ("a", true, 1.0)], "a, compressed"),
            case(
                64,
                &[("a", false, 1.0), ("a", true, 4.0)],
                "a, uncompressed",
            ),
        ];
        let summary = summarise(&better, 0.0).unwrap();
        assert_eq!(summary.picked_best, 2);
        // Best static "a, uncompressed" (mean 0.5) vs Auto: ratios 2 and 1 -> sqrt(2) - 1.
        assert_eq!(summary.best_static, "a, uncompressed");
        assert!((summary.gain_over_best_static - (2f64.sqrt() - 1.0)).abs() < 1e-12);
        assert!(summary.to_string().contains("2 of 2 cases"));
    }

    #[test]
    fn compression_decisions_are_scored_per_placement() {
        let mut a = case(
            10,
            &[
                ("p", false, 2.0),
                ("p", true, 1.0),
                ("q", false, 1.0),
                ("q", true, 1.5),
            ],
            "p, compressed",
        );
        a.predicted_compression = vec![("p".into(), true), ("q".into(), true)];
        let summary = summarise_compression(&[a], 0.0).unwrap();
        assert_eq!((summary.decisions, summary.correct), (2, 1));
        assert!((summary.mean_loss_when_wrong - 0.5).abs() < 1e-12);
        assert!(
            summary.gain_over_always.abs() < 1e-12,
            "every decision was 'compress'"
        );
        // Against never compressing: ratios 2/1 and 1/1.5 -> sqrt(4/3) - 1.
        assert!((summary.gain_over_never - ((2.0f64 / 1.5).sqrt() - 1.0)).abs() < 1e-12);
        assert!(
            summarise_compression(&[case(1, &[("p", false, 1.0)], "p, uncompressed")], 0.0)
                .is_none()
        );
    }

    #[test]
    fn summaries_refuse_cases_without_the_chosen_configuration() {
        assert!(summarise(&[], 0.0).is_err());
        let missing = case(10, &[("a", false, 1.0)], "b, compressed");
        assert!(summarise(&[missing], 0.0)
            .unwrap_err()
            .to_string()
            .contains("was not measured"));
    }

    #[test]
    fn preset_profiles_have_the_papers_sizes() {
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let aggregate =
            aggregation_profile(&machine, &costs, PAPER_AGGREGATE_VALUES, 33, 15.0).unwrap();
        assert_eq!(aggregate.arrays[0].bytes_at(64), 4.0 * (1u64 << 30) as f64);
        assert_eq!(aggregate.arrays[0].spec.natural_bits, 64);
        let degree = degree_profile(
            &machine,
            &costs,
            PAPER_DEGREE_VERTICES,
            3 * PAPER_DEGREE_VERTICES,
            15.0,
        )
        .unwrap();
        assert_eq!(
            degree.arrays[0].spec.minimal_bits, 33,
            "the paper: 33 bits encode the edge offsets"
        );
        assert!(!degree.arrays[2].spec.adaptable && !degree.arrays[2].spec.read_only);
    }

    #[test]
    fn pagerank_arrays_are_chosen_together_under_a_budget() {
        // The paper's Twitter graph: 42 M vertices, 1.5 B edges, 15 iterations.
        let machine = MachineDescription::paper_8core();
        let costs = CostProfile::for_preset("paper-8core").unwrap();
        let profile =
            pagerank_profile(&machine, &costs, 42_000_000, 1_500_000_000, 3_000_000, 15.0).unwrap();
        let advisor = Advisor::new(machine, costs);
        let free = advisor.choose_jointly(&profile, None).unwrap();
        assert!(
            free.arrays[1].placement == Placement::Replicated,
            "the edges dominate and are read-only: {free}"
        );
        let minimum: f64 = profile
            .arrays
            .iter()
            .map(|a| {
                a.bytes_at(if a.spec.adaptable {
                    a.spec.minimal_bits
                } else {
                    a.spec.profiled_bits
                })
            })
            .sum();
        let tight = advisor
            .choose_jointly(&profile, Some(minimum * 1.2))
            .unwrap();
        assert!(tight.memory_bytes <= minimum * 1.2);
        assert!(tight.estimate.seconds >= free.estimate.seconds * 0.999);
        assert!(advisor
            .choose_jointly(&profile, Some(minimum * 0.5))
            .is_err());
        assert!(free.to_string().contains("redge"));
    }

    #[test]
    fn the_papers_headline_findings_are_reproduced_on_the_presets() {
        let evaluation = paper_findings(&[1.0]).unwrap();
        let holds = |machine: &str, text: &str| {
            let f = evaluation
                .findings
                .iter()
                .find(|f| f.machine == machine && f.statement.contains(text))
                .unwrap();
            assert_eq!(f.holds_at_cost_factors.contains(&1.0), f.holds);
            f.holds
        };
        assert!(holds("paper-8core", "replication is the best placement"));
        assert!(holds("paper-8core", "interleaving is the worst"));
        assert!(holds("paper-18core", "interleaving beats single socket"));
        assert!(
            !holds("paper-18core", "replication helps a little"),
            "the bandwidth model predicts a tie, not a small gain"
        );
        assert!(holds(
            "paper-18core",
            "compression helps for every placement"
        ));
        assert!(evaluation
            .memory_checks
            .iter()
            .all(|(what, ok)| { *ok || panic!("{what}") }));
        // Auto's picks on the presets: replicated on the 8-core machine for native widths,
        // compressed on the 18-core machine for packed widths.
        let chosen = |machine: &str, bits: u32| {
            evaluation
                .cases
                .iter()
                .find(|c| {
                    c.case.machine == machine
                        && c.case.workload == "aggregate"
                        && c.case.bits == bits
                })
                .unwrap()
                .case
                .chosen
                .clone()
        };
        assert!(chosen("paper-8core", 64).starts_with("replicated"));
        assert!(chosen("paper-18core", 33).ends_with(", compressed"));
        assert!(evaluation.to_string().contains("reproduced"));
    }
}
