//! Scoring an evaluation the paper's way (§6.3): every configuration's time per case, and how
//! close Auto's pick came to the fastest ([`summarise`]); and the compression decision alone,
//! per placement ([`summarise_compression`]).

use serde::{Deserialize, Serialize};
use smartarrays_adapt::{AdaptError, Result};

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
}
