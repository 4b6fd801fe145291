//! Checks of the VM suite: interleaved.

use smartarrays::{HugePages, Placement};

use crate::expect;
use crate::os;
use crate::procfs;

use super::*;

pub(super) fn interleaved_checks(suite: &mut Suite, expected: Expected) {
    let all = nodes(expected);
    let mut cases: Vec<Vec<usize>> = vec![Vec::new(), all.clone()];
    if expected.nodes >= 2 {
        cases.push(vec![expected.nodes - 1]);
    }
    if expected.nodes >= 4 {
        cases.push(vec![3, 1]);
        cases.push(vec![0, 2, 3]);
    }
    for requested in cases {
        let mut cycle = if requested.is_empty() {
            all.clone()
        } else {
            requested.clone()
        };
        cycle.sort_unstable();
        suite.check(
            format!(
                "interleaved/{:?} per base page (HugePages::Never)",
                requested
            ),
            || {
                let bits = 7;
                let array = build(
                    len_for_pages(PAGES_PER_ARRAY, bits),
                    bits,
                    &options(
                        Placement::Interleaved(requested.clone()),
                        HugePages::Never,
                        None,
                    ),
                )?;
                let pages =
                    expect::round_robin(&pages_three_ways(&array, 0)?, &cycle, data_pages(&array))?;
                let policy = policy_is(&array, 0, "interleave", &cycle)?;
                values_match(&array, 0)?;
                Ok(format!("{pages}; {policy}"))
            },
        );
    }
    let thp = procfs::transparent_huge_page_mode();
    match thp.as_deref() {
        Some("always" | "madvise") => suite.check(format!("interleaved/all nodes per huge page (THP {})", thp.unwrap_or_default()), || {
            let huge_pages = 4 * expected.nodes + 1;
            let array = build(huge_pages * HUGE_PAGE / 8, 64, &options(Placement::Interleaved(Vec::new()), HugePages::Always, None))?;
            let pages = pages_three_ways(&array, 0)?;
            let words = array.replica(0).packed_words();
            let start = words.as_ptr() as usize;
            let (head, whole) = expect::whole_blocks(start, pages.len(), os::page_size(), HUGE_PAGE);
            // Regions of 2 MiB or more start on a huge page, so no base pages skew the spread.
            ensure!(
                head == 0 && whole == huge_pages,
                "the region starts at {start:#x}, {head} base pages before its first 2 MiB boundary; {whole} of {huge_pages} huge pages whole"
            );
            let huge_kib: u64 = procfs::smaps()
                .map_err(ctx("smaps"))?
                .iter()
                .filter(|m| m.overlaps(start, start + std::mem::size_of_val(words)))
                .map(|m| m.field("AnonHugePages"))
                .sum();
            ensure!(
                huge_kib >= whole as u64 * HUGE_PAGE as u64 / 1024,
                "only {huge_kib} KiB of huge pages for {whole} whole 2 MiB blocks (THP did not back the array)"
            );
            let detail = expect::round_robin_blocks(&pages, start, os::page_size(), HUGE_PAGE, &nodes(expected))?;
            values_match(&array, 0)?;
            Ok(format!("{detail}; AnonHugePages {huge_kib} KiB"))
        }),
        other => suite.skip("interleaved/all nodes per huge page", format!("transparent huge pages are {other:?} in this kernel")),
    }
}
