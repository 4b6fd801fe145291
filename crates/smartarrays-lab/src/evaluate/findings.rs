//! The paper's findings on its two machines, as the model sees them: every configuration of
//! the modelled jobs estimated on the presets, each finding checked at a sweep of decode costs,
//! and the decision diagrams' behaviour with memory short ([`paper_findings`]).

use serde::{Deserialize, Serialize};
use smartarrays::Placement;
use smartarrays_adapt::{
    AdaptError, Advisor, AdvisorSettings, CostProfile, MachineDescription, Result, WorkloadProfile,
};

use super::profiles::{
    aggregation_profile, degree_profile, PAPER_AGGREGATE_VALUES, PAPER_DEGREE_VERTICES,
    PAPER_WIDTHS,
};
use super::summary::{rule, Case, ConfigTime};

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
                |c: &Option<smartarrays_adapt::Candidate>| c.as_ref().map(|c| c.placement.clone());
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
