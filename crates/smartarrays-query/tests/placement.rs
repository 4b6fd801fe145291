//! Table placement with `auto`: on a described two-node machine the small TPC-H tables are
//! replicated (two real replicas) and the large ones interleaved, `EXPLAIN` says so with the
//! reason, and the answers equal those of tables in OS-placed memory.

use std::sync::Arc;

use smartarrays::{ArrayOptions, HugePages, Placement, Runtime, Topology};
use smartarrays_query::encodings::ColumnOptions;
use smartarrays_query::{explain, queries, sql_with, tpch, QueryOptions};

/// A runtime on a described machine of two nodes with `memory` bytes each.
fn two_nodes(memory: u64) -> Arc<Runtime> {
    let topology = Arc::new(Topology::uniform(2, 1, memory).unwrap());
    Arc::new(Runtime::on_described(topology, 2).unwrap())
}

fn options(runtime: &Arc<Runtime>, placement: Placement) -> ColumnOptions {
    ColumnOptions::new().array(
        ArrayOptions::new()
            .runtime(Arc::clone(runtime))
            .placement(placement)
            .huge_pages(HugePages::Never),
    )
}

#[test]
fn auto_replicates_small_tables_and_interleaves_large_ones() {
    // 64 MiB per node: all copies of a table may take 1 MiB, so at SF 0.01 region, nation and
    // supplier (~200 KB decoded) are replicated; lineitem (~9 MB) and orders are interleaved.
    let runtime = two_nodes(64 << 20);
    let catalog = tpch::generate(0.01, &options(&runtime, Placement::Auto), |_, _, _| {}).unwrap();
    for name in ["region", "nation", "supplier"] {
        let table = catalog.get(name).unwrap();
        assert_eq!(table.placement(), Placement::Replicated, "{name}");
        assert!(table.placement_reason().unwrap().starts_with("replicated"));
        for column in table.columns() {
            let reports = column.column.placement_report().unwrap();
            assert!(
                reports.iter().all(|(_, r)| r.replicas.len() == 2),
                "{name}.{}: {reports:?}",
                column.name
            );
        }
    }
    for name in ["lineitem", "orders", "partsupp"] {
        let table = catalog.get(name).unwrap();
        assert_eq!(table.placement(), Placement::Interleaved(vec![]), "{name}");
        assert!(table
            .placement_reason()
            .unwrap()
            .starts_with("interleaved over 2 nodes"));
    }
    let plan = explain(&catalog, queries::tpch(5).unwrap()).unwrap();
    assert!(
        plan.contains("table lineitem: interleaved over 2 nodes"),
        "{plan}"
    );
    assert!(plan.contains("table nation: replicated"), "{plan}");

    let os = tpch::generate(0.01, &options(&runtime, Placement::OsDefault), |_, _, _| {}).unwrap();
    assert_eq!(os.get("nation").unwrap().placement_reason(), None);
    let run = QueryOptions {
        runtime: Some(Arc::clone(&runtime)),
        ..QueryOptions::default()
    };
    for q in [3, 5, 10] {
        let text = queries::tpch(q).unwrap();
        assert_eq!(
            sql_with(&catalog, text, &run).unwrap(),
            sql_with(&os, text, &run).unwrap(),
            "Q{q}"
        );
    }
}

#[test]
fn one_node_keeps_the_os_placement_and_says_why() {
    let topology = Arc::new(Topology::uniform(1, 2, 8 << 30).unwrap());
    let runtime = Arc::new(Runtime::on_described(topology, 1).unwrap());
    let catalog = tpch::generate(0.001, &options(&runtime, Placement::Auto), |_, _, _| {}).unwrap();
    for table in catalog.tables() {
        assert_eq!(table.placement(), Placement::OsDefault, "{}", table.name());
        assert!(table.placement_reason().unwrap().contains("one NUMA node"));
    }
}
