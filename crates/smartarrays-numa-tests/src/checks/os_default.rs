//! Checks of the VM suite: os default.

use smartarrays::{HugePages, Placement};

use crate::expect;

use super::*;

pub(super) fn os_default_checks(suite: &mut Suite, expected: Expected) {
    let bits = 32;
    for node in nodes(expected) {
        suite.check(
            format!("os-default/first touch by a worker on node {node}"),
            || {
                let runtime = runtime_on_node(expected, node)?;
                let array = build(
                    len_for_pages(PAGES_PER_ARRAY, bits),
                    bits,
                    &options(Placement::OsDefault, HugePages::Never, Some(runtime)),
                )?;
                let pages =
                    expect::all_on(&pages_three_ways(&array, 0)?, node, data_pages(&array))?;
                let policy = policy_is(&array, 0, "default", &[])?;
                values_match(&array, 0)?;
                Ok(format!("{pages}; {policy}"))
            },
        );
    }
}
