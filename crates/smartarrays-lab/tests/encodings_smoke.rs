//! Smoke test of the encodings benchmark (the example `encodings`): TPC-H lineitem at SF 0.001
//! and small synthetic columns go through the whole measurement, which itself fails when a
//! column does not decode to its values or a filter selects other rows than plain evaluation;
//! the widths of issue 13 hold, and the JSON report names files with the right sizes.

#[path = "../examples/support/tpch_lineitem.rs"]
mod tpch_lineitem;

use std::collections::BTreeMap;

use smartarrays_lab::encodings_bench::{
    measure_table, raw_scan, synthetic, write_report, ColumnResult, TableReport,
};

fn by_name(results: &[ColumnResult]) -> BTreeMap<&str, &ColumnResult> {
    results.iter().map(|r| (r.name.as_str(), r)).collect()
}

#[test]
fn lineitem_round_trips_filters_exactly_and_reaches_the_widths() {
    let table = tpch_lineitem::lineitem(0.001);
    assert_eq!(table.columns.len(), 16);
    let rows = table.columns[0].rows();
    assert_eq!(rows, LINEITEM_ROWS_SF_0_001);
    assert!(table.columns.iter().all(|c| c.rows() == rows));
    let results = measure_table(&table, 1).unwrap();
    let results = by_name(&results);
    for (name, bits) in [
        ("l_quantity", 6),
        ("l_discount", 4),
        ("l_tax", 4),
        ("l_returnflag", 2),
        ("l_linestatus", 1),
        ("l_shipdate", 12),
    ] {
        assert_eq!(results[name].width_bits, Some(bits), "{name}");
    }
    assert!(results["l_extendedprice"].width_bits.unwrap() <= 24);
    // Q1's filter keeps nearly every row; Q6's discount band about 3 in 11.
    let shipped = results["l_shipdate"].selected;
    assert!(shipped > rows * 95 / 100 && shipped < rows, "{shipped}");
    let discount = results["l_discount"].selected as f64 / rows as f64;
    assert!((0.22..0.33).contains(&discount), "{discount}");
    assert!(results.values().all(|r| r.packed_bytes < r.plain_bytes));
}

/// Rows of lineitem at SF 0.001 (1,500 orders of 1 to 7 lines).
const LINEITEM_ROWS_SF_0_001: usize = 6005;

#[test]
fn synthetic_columns_round_trip_and_the_report_names_their_files() {
    let table = synthetic(5000, 3);
    let results = measure_table(&table, 1).unwrap();
    let named = by_name(&results);
    assert_eq!(named["constant"].encoding, "constant");
    assert_eq!(named["constant"].selected, 5000);
    assert_eq!(named["sorted_runs"].encoding, "run_end");
    assert_eq!(named["uniform_small"].width_bits, Some(10));
    assert_eq!(named["doubles_2dp"].encoding, "alp");
    assert_eq!(named["strings_low_card"].encoding, "dictionary");

    let dir = std::env::temp_dir().join(format!("encodings-smoke-{}", std::process::id()));
    let raw = raw_scan(1 << 16, 1);
    assert!(raw.values_per_second() > 0.0);
    let json = write_report(
        &dir,
        &[TableReport {
            table: &table,
            results: &results,
        }],
        &raw,
        0.0,
    )
    .unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let columns = report["tables"][0]["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 8);
    for column in columns {
        let file = dir.join(column["file"].as_str().unwrap());
        let bytes = std::fs::metadata(&file).unwrap().len();
        match column["type"].as_str().unwrap() {
            "utf8" => {
                let offsets = dir.join(column["offsets_file"].as_str().unwrap());
                assert_eq!(std::fs::metadata(offsets).unwrap().len(), 5001 * 8);
            }
            _ => assert_eq!(bytes, 5000 * 8, "{}", column["name"]),
        }
    }
    assert_eq!(report["tables"][0]["rows"], 5000);
    std::fs::remove_dir_all(&dir).unwrap();
}
