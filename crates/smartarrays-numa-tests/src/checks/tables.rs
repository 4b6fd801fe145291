//! Checks of the VM suite: query tables placed as a whole. TPC-H tables built with placement
//! `auto` (smartarrays-query) must get the placement the table rule gives for this machine and
//! their decoded size, each integer column's arrays must sit where that placement says (every
//! replica of a replicated table on its node, an interleaved table under the interleave
//! policy with pages on every node), and a query over them must answer as it does over
//! OS-placed tables. The section runs last: its catalogs take the most memory of the suite.

use smartarrays::{HugePages, Placement, Topology};
use smartarrays_encodings::{ColumnOptions, Encoding};
use smartarrays_query::placement::{decoded_bytes, TablePlacement};
use smartarrays_query::{queries, sql, tpch, Catalog, Table};

use super::encoded::placed_as;
use super::*;

/// Small enough to generate in seconds under emulation, large enough that lineitem is larger
/// than the replica budget of the VMs' nodes (1/64 of their 512 MiB).
const SCALE_FACTOR: f64 = 0.005;

fn catalog(placement: Placement) -> Result<Catalog, String> {
    let options = ColumnOptions::new().array(options(placement, HugePages::Never, None));
    tpch::generate(SCALE_FACTOR, &options, |_, _, _| {}).map_err(ctx("tpch::generate"))
}

/// Checks the pages of every integer column of `table` against its placement.
fn columns_placed(table: &Table, expected: Expected) -> Outcome {
    let placement = table.placement();
    let replicas = if placement == Placement::Replicated {
        expected.nodes
    } else {
        1
    };
    let mut checked = 0;
    for column in table.columns() {
        let Encoding::Keys(encoding) = column.column.encoding() else {
            continue; // text: its offsets and bytes are placed alike, but not read page by page here
        };
        for (role, array) in encoding.as_dyn().arrays() {
            ensure!(
                array.replica_count() == replicas,
                "{}.{role}: {} replicas, expected {replicas}",
                column.name,
                array.replica_count()
            );
            if data_pages(array) < 2 * expected.nodes {
                continue; // too few pages to show a pattern
            }
            if let Placement::Interleaved(_) = placement {
                // The interleave policy over every node, and pages on every node. (Strict
                // page-by-page alternation is proven on fresh memory by the interleaved section;
                // here earlier sections leave nodes unevenly full, and the kernel places a full
                // node's share on the next node.)
                let all = nodes(expected);
                policy_is(array, 0, "interleave", &all)
                    .map_err(|why| format!("{}.{role}: {why}", column.name))?;
                let pages = pages_three_ways(array, 0)?;
                let used: std::collections::BTreeSet<usize> =
                    pages.iter().filter_map(|p| p.ok()).collect();
                // A node left out must be one the kernel passed over because it is nearly full.
                let missing: Vec<usize> = nodes(expected)
                    .into_iter()
                    .filter(|node| !used.contains(node))
                    .collect();
                let nearly_full = |node: &usize| {
                    procfs::node_mem_free(*node).is_ok_and(|bytes| bytes < NEARLY_FULL_BYTES)
                };
                ensure!(
                    used.len() >= 2 && missing.iter().all(nearly_full),
                    "{}.{role}: pages on nodes {used:?} only, and not every node left out is \
                     nearly full (free memory per node: {})",
                    column.name,
                    free_memory(expected)
                );
                checked += 1;
                continue;
            }
            for replica in 0..replicas {
                placed_as(array, replica, &placement, expected).map_err(|why| {
                    format!(
                        "{}.{role} replica {replica}: {why} (free memory per node: {})",
                        column.name,
                        free_memory(expected)
                    )
                })?;
                checked += 1;
            }
        }
    }
    Ok(format!("{checked} arrays placed {placement}"))
}

/// Each node's free memory, for failure messages (a full node makes the kernel place pages on
/// the next one).
/// Free memory under which a node may be passed over by the interleave policy (the kernel
/// keeps a reserve per node and takes a full node's share from the next one).
const NEARLY_FULL_BYTES: u64 = 32 << 20;

fn free_memory(expected: Expected) -> String {
    nodes(expected)
        .into_iter()
        .map(|node| match procfs::node_mem_free(node) {
            Ok(bytes) => format!("{node}:{}MiB", bytes >> 20),
            Err(error) => format!("{node}:{error}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn table_checks(suite: &mut Suite, expected: Expected) {
    let auto = match catalog(Placement::Auto) {
        Ok(catalog) => catalog,
        Err(why) => {
            suite.check("tables/TPC-H with placement auto builds", || Err(why));
            return;
        }
    };
    let topology = match Topology::current() {
        Ok(topology) => topology,
        Err(error) => {
            suite.check("tables/topology", || Err(error.to_string()));
            return;
        }
    };
    let mut kinds = Vec::new();
    for name in tpch::TABLES {
        suite.check(format!("tables/{name} placed by the table rule"), || {
            let table = auto.get(name).ok_or("missing table")?;
            let values = tpch::table_values(name, SCALE_FACTOR).map_err(ctx("table_values"))?;
            let want = TablePlacement::choose(decoded_bytes(&values), &topology);
            ensure!(
                table.placement() == want.placement,
                "placed {}, the rule says {}",
                table.placement(),
                want.placement
            );
            ensure!(
                table.placement_reason() == Some(want.reason.as_str()),
                "reason {:?}",
                table.placement_reason()
            );
            kinds.push(want.placement.kind());
            let pages = columns_placed(table, expected)?;
            Ok(format!("{pages}; {}", want.reason))
        });
    }
    suite.check("tables/both kinds of placement were chosen", || {
        ensure!(
            kinds.contains(&"replicated") && kinds.contains(&"interleaved"),
            "chosen: {kinds:?}"
        );
        Ok(format!("{kinds:?}"))
    });
    suite.check(
        "tables/queries over placed tables answer as over OS-placed ones",
        || {
            let os = catalog(Placement::OsDefault)?;
            for q in [3, 5, 10] {
                let text = queries::tpch(q).ok_or("no query text")?;
                let placed = sql(&auto, text).map_err(ctx("sql"))?;
                let plain = sql(&os, text).map_err(ctx("sql"))?;
                ensure!(placed == plain, "Q{q} differs");
            }
            Ok("Q3, Q5, Q10 equal".to_string())
        },
    );
}
