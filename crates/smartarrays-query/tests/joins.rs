//! Joins (rank-indexed and hashed build sides, semi-join filters in the scan, text carried as
//! row ids) and IN subqueries against plain-Rust evaluations, at edge sizes of the build side.

mod common;

use std::collections::BTreeMap;

use common::{both, SIZES};
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql_with, Catalog, QueryOptions, Table, Value};

/// A fact table `f(fk, amount)` of `facts` rows and a dimension `d(id, name, w)` of `dims` rows
/// whose ids are `i * stride` in a scrambled order (so the build is not in key order), names
/// long distinct texts.
fn tables(dims: usize, stride: i64, fks: &[i64], amounts: &[i64]) -> Catalog {
    // 7919 is a prime larger than any size here: i * 7919 mod dims permutes 0..dims.
    let ids: Vec<i64> = (0..dims as i64)
        .map(|i| (i * 7919) % dims as i64 * stride)
        .collect();
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::from_values(
            "d",
            vec![
                ("id".into(), Values::Int64(ids.clone())),
                (
                    "name".into(),
                    Values::Utf8(
                        ids.iter()
                            .map(|i| format!("customer number {i} of the dimension"))
                            .collect(),
                    ),
                ),
                (
                    "w".into(),
                    Values::Int64(ids.iter().map(|i| i % 10).collect()),
                ),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog.insert(
        Table::from_values(
            "f",
            vec![
                ("fk".into(), Values::Int64(fks.to_vec())),
                ("amount".into(), Values::Int64(amounts.to_vec())),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog
}

fn check(dims: usize, stride: i64, fks: &[i64], amounts: &[i64]) {
    let catalog = tables(dims, stride, fks, amounts);
    let name = |id: i64| format!("customer number {id} of the dimension");
    let present = |k: i64| k >= 0 && k % stride == 0 && (k / stride) < dims as i64;
    // Grouped by the key, carrying the text.
    let mut groups: BTreeMap<i64, (i128, i128)> = BTreeMap::new();
    for (&k, &a) in fks.iter().zip(amounts) {
        if present(k) && k % 10 < 7 {
            let g = groups.entry(k).or_default();
            g.0 += i128::from(a);
            g.1 += 1;
        }
    }
    let want: Vec<Vec<Value>> = groups
        .iter()
        .map(|(&k, &(s, c))| {
            vec![
                Value::Int(k.into()),
                Value::Str(name(k)),
                Value::Int(s),
                Value::Int(c),
            ]
        })
        .collect();
    let got = both(
        &catalog,
        "select id, name, sum(amount) as s, count(*) as c from f, d where fk = id and w < 7 group by id, name order by id",
    );
    assert_eq!(
        got, want,
        "grouped join, {dims} build rows, stride {stride}"
    );
    // Top 3 by sum: the texts are read for the kept rows only.
    let mut top: Vec<(i64, i128)> = groups.iter().map(|(&k, &(s, _))| (k, s)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    top.truncate(3);
    let want: Vec<Vec<Value>> = top
        .iter()
        .map(|&(k, s)| vec![Value::Str(name(k)), Value::Int(s)])
        .collect();
    let got = both(
        &catalog,
        "select name, sum(amount) as s from f, d where fk = id and w < 7 group by id, name order by s desc, id limit 3",
    );
    assert_eq!(got, want, "top 3, {dims} build rows, stride {stride}");
    // Collected rows with their text.
    let mut rows: Vec<(i64, i64)> = fks
        .iter()
        .zip(amounts)
        .filter(|(&k, _)| present(k) && k % 10 >= 7)
        .map(|(&k, &a)| (k, a))
        .collect();
    rows.sort();
    let want: Vec<Vec<Value>> = rows
        .iter()
        .map(|&(k, a)| {
            vec![
                Value::Int(k.into()),
                Value::Int(a.into()),
                Value::Str(name(k)),
            ]
        })
        .collect();
    let got = both(
        &catalog,
        "select fk, amount, name from f, d where fk = id and w >= 7 order by fk, amount",
    );
    assert_eq!(
        got, want,
        "collected join, {dims} build rows, stride {stride}"
    );
    // IN and NOT IN subqueries.
    let chosen: Vec<i64> = (0..dims as i64)
        .map(|i| i * stride)
        .filter(|k| k % 10 < 3)
        .collect();
    let inside = fks.iter().filter(|k| chosen.contains(k)).count() as i128;
    let got = both(
        &catalog,
        "select count(*) as n from f where fk in (select id from d where w < 3)",
    );
    assert_eq!(got, vec![vec![Value::Int(inside)]], "IN, {dims} build rows");
    let got = both(
        &catalog,
        "select count(*) as n from f where fk not in (select id from d where w < 3)",
    );
    assert_eq!(
        got,
        vec![vec![Value::Int(fks.len() as i128 - inside)]],
        "NOT IN, {dims} build rows"
    );
}

#[test]
fn joins_at_edge_sizes_dense_sparse_and_hashed() {
    for dims in SIZES {
        // Stride 1: keys dense; 5: a bitmap with gaps; 200 000: past the bitmap, a hash map.
        for stride in [1, 5, 200_000] {
            let facts = 3000;
            let fks: Vec<i64> = (0..facts as i64)
                .map(|i| ((i * 37) % (dims as i64 + 3)) * stride)
                .collect();
            let amounts: Vec<i64> = (0..facts as i64).map(|i| i % 101 - 50).collect();
            check(dims, stride, &fks, &amounts);
        }
    }
}

#[test]
fn in_subqueries_empty_and_wrong_shapes() {
    let catalog = tables(64, 1, &(0..2000).collect::<Vec<_>>(), &[1; 2000]);
    let none = both(
        &catalog,
        "select count(*) as n from f where fk in (select id from d where w > 100)",
    );
    assert_eq!(none, vec![vec![Value::Int(0)]]);
    let all = both(
        &catalog,
        "select count(*) as n from f where fk not in (select id from d where w > 100)",
    );
    assert_eq!(all, vec![vec![Value::Int(2000)]]);
    let error = sql_with(
        &catalog,
        "select count(*) as n from f where fk in (select id, w from d)",
        &QueryOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "an IN subquery returning 2 columns (it must return one) is not supported (line 1, column 42)"
    );
    let error = sql_with(
        &catalog,
        "select count(*) as n from f where fk in (select name from d)",
        &QueryOptions::default(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("cannot compare"), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn joins_match_a_plain_evaluation(
        dims in 0usize..1100,
        stride in prop::sample::select(vec![1i64, 2, 300_000]),
        rows in prop::collection::vec((0i64..1200, -1000i64..1000), 1..2500),
    ) {
        let fks: Vec<i64> = rows.iter().map(|&(k, _)| k * stride).collect();
        let amounts: Vec<i64> = rows.iter().map(|&(_, a)| a).collect();
        // The fact table must be the larger one (it drives the root pipeline).
        prop_assume!(fks.len() > dims);
        check(dims, stride, &fks, &amounts);
    }
}

#[test]
fn having_on_aggregates_alone_and_with_keys() {
    let fks: Vec<i64> = (0..5000).map(|i| (i * 13) % 1025).collect();
    let amounts: Vec<i64> = (0..5000).map(|i| i % 17 - 8).collect();
    let catalog = tables(1025, 1, &fks, &amounts);
    let mut groups: BTreeMap<i64, (i128, i128)> = BTreeMap::new();
    for (&k, &a) in fks.iter().zip(&amounts) {
        let g = groups.entry(k).or_default();
        g.0 += i128::from(a);
        g.1 += 1;
    }
    let pick = |keep: &dyn Fn(i64, i128, i128) -> bool| -> Vec<Vec<Value>> {
        groups
            .iter()
            .filter(|(&k, &(s, c))| keep(k, s, c))
            .map(|(&k, &(s, _))| vec![Value::Int(k.into()), Value::Int(s)])
            .collect()
    };
    let base = "select id, sum(amount) as s from f, d where fk = id group by id having";
    assert_eq!(
        both(&catalog, &format!("{base} sum(amount) > 3 order by id")),
        pick(&|_, s, _| s > 3)
    );
    assert_eq!(
        both(&catalog, &format!("{base} 3 >= sum(amount) order by id")),
        pick(&|_, s, _| s <= 3)
    );
    assert_eq!(
        both(
            &catalog,
            &format!("{base} count(*) = 5 and sum(amount) < 0 order by id")
        ),
        pick(&|_, s, c| c == 5 && s < 0)
    );
    assert_eq!(
        both(
            &catalog,
            &format!("{base} id > 1000 and sum(amount) >= 0 order by id")
        ),
        pick(&|k, s, _| k > 1000 && s >= 0)
    );
}
