//! Checks of the VM suite: placement::auto.

use smartarrays::{Error, HugePages, Placement, SmartArray};

use crate::expect;

use super::*;

/// `Placement::Auto` end to end on a multi-node kernel: the adaptivity crate's advisor, fed the
/// paper's machine presets, chooses a placement for each usage, and the array's pages land where
/// the choice says (read three ways, like every other section).
pub(super) fn auto_checks(suite: &mut Suite, expected: Expected) {
    use smartarrays::{Compression, Usage};
    use smartarrays_adapt::{Advisor, CostProfile, MachineDescription};

    let bits = 32;
    let len = len_for_pages(PAGES_PER_ARRAY, bits);
    suite.check("auto/without an advisor: a typed error", || {
        smartarrays::array::uninstall_advisor();
        match SmartArray::from_fn(
            len,
            &options(Placement::Auto, HugePages::Never, None).bits(bits),
            |i| value(i, bits),
        ) {
            Err(Error::AutoUnresolved(message)) => Ok(format!("AutoUnresolved: {message}")),
            other => Err(format!(
                "expected AutoUnresolved, got {:?}",
                other.map(|a| a.placement().clone())
            )),
        }
    });
    // (preset, read-only?, what the paper's diagrams give for an uncompressed array)
    let cases = [
        ("paper-8core", true, Placement::Replicated),
        ("paper-8core", false, Placement::SingleNode(0)),
        ("paper-18core", true, Placement::Interleaved(Vec::new())),
    ];
    for (preset, read_only, wanted) in cases {
        let usage = Usage {
            read_only,
            accesses_per_element: 20.0,
            ..Usage::default()
        };
        suite.check(
            format!("auto/{preset}, read-only {read_only}: chooses {wanted} and the pages follow"),
            || {
                let machine = MachineDescription::preset(preset).ok_or("preset missing")?;
                let costs = CostProfile::for_preset(preset).ok_or("cost preset missing")?;
                smartarrays_adapt::install(Advisor::new(machine, costs));
                let auto = options(Placement::Auto, HugePages::Never, None)
                    .compression(Compression::Uncompressed)
                    .usage(usage);
                let built = build(len, bits, &auto);
                smartarrays::array::uninstall_advisor();
                let array = built?;
                let chosen = array.placement().clone();
                ensure!(
                    chosen == wanted,
                    "advisor chose {chosen}, expected {wanted}"
                );
                ensure!(
                    array
                        .advice()
                        .is_some_and(|a| a.explanation.contains("step 2")),
                    "no explanation kept with the array"
                );
                let detail = match &chosen {
                    Placement::Replicated => {
                        ensure!(
                            array.replica_count() == expected.nodes,
                            "{} replicas on {} nodes",
                            array.replica_count(),
                            expected.nodes
                        );
                        let mut lines = Vec::new();
                        for node in nodes(expected) {
                            lines.push(expect::all_on(
                                &pages_three_ways(&array, node)?,
                                node,
                                data_pages(&array),
                            )?);
                            values_match(&array, node)?;
                        }
                        lines.join("; ")
                    }
                    Placement::SingleNode(node) => {
                        values_match(&array, 0)?;
                        expect::all_on(&pages_three_ways(&array, 0)?, *node, data_pages(&array))?
                    }
                    Placement::Interleaved(_) => {
                        values_match(&array, 0)?;
                        expect::round_robin(
                            &pages_three_ways(&array, 0)?,
                            &nodes(expected),
                            data_pages(&array),
                        )?
                    }
                    other => return Err(format!("unexpected choice {other}")),
                };
                Ok(format!("{chosen}: {detail}"))
            },
        );
    }
}
