//! Property tests of the evaluation: summaries of any cases are internally consistent (moved
//! here from the advisor crate together with the evaluation).

use proptest::prelude::*;
use smartarrays_lab::evaluate::{summarise, Case, ConfigTime};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn summaries_are_consistent(times in proptest::collection::vec((0.01f64..10.0, 0.01f64..10.0, any::<bool>()), 1..20)) {
        let cases: Vec<Case> = times.iter().enumerate().map(|(i, &(u, z, pick))| Case {
            workload: "w".into(),
            machine: "m".into(),
            bits: i as u32,
            times: vec![
                ConfigTime { placement: "p".into(), compressed: false, bits: 64, seconds: u },
                ConfigTime { placement: "p".into(), compressed: true, bits: 10, seconds: z },
            ],
            chosen: if pick { "p, compressed".into() } else { "p, uncompressed".into() },
            predicted_compression: vec![("p".into(), pick)],
        }).collect();
        let s = summarise(&cases, 0.05).unwrap();
        prop_assert!(s.picked_best <= s.picked_within && s.picked_within <= s.cases);
        prop_assert!(s.mean_distance >= 0.0 && s.worst_distance >= s.mean_distance - 1e-12);
        let c = smartarrays_lab::evaluate::summarise_compression(&cases, 0.05).unwrap();
        prop_assert_eq!(c.correct, s.picked_best, "one placement: the compression decision is the whole choice");
        let oracle = cases.iter().all(|c| c.seconds(&c.chosen) == c.best().map(|b| b.seconds));
        if oracle {
            prop_assert_eq!(s.picked_best, s.cases);
            prop_assert!(s.gain_over_best_static >= -1e-12);
        }
    }
}
