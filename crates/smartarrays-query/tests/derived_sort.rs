//! A query that only picks, renames and sorts the columns of a subquery in FROM (answered on
//! the subquery's rows, no table of them): outputs renamed, repeated and reordered, sort keys
//! by alias, by position, by a column not output, descending, at edge sizes and in a proptest
//! against a plain sort; and names that do not resolve still report their error.

mod common;

use common::{both as run, int};
use proptest::prelude::*;
use smartarrays_encodings::Values;
use smartarrays_query::{sql_with, Catalog, QueryError, QueryOptions, Value};

fn catalog(rows: &[(i64, u8)]) -> Catalog {
    common::table_t(vec![
        ("a", Values::Int64(rows.iter().map(|r| r.0).collect())),
        (
            "s",
            Values::Utf8(rows.iter().map(|r| format!("s{}", r.1)).collect()),
        ),
    ])
}

fn check(rows: &[(i64, u8)]) {
    let catalog = catalog(rows);
    // Per s: count and sum of a (the grouped subquery).
    let mut groups: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
    for &(a, s) in rows {
        let g = groups.entry(format!("s{s}")).or_default();
        g.0 += 1;
        g.1 += a;
    }
    let sub = "(select s, count(*) as n, sum(a) as total from t group by s) as d";
    // Renamed and reordered, sorted by an alias descending, then by a position.
    let got = run(
        &catalog,
        &format!("select total as tt, d.s as name, n from {sub} order by tt desc, 2"),
    );
    let mut want: Vec<(String, i64, i64)> = groups
        .iter()
        .map(|(s, (n, t))| (s.clone(), *n, *t))
        .collect();
    want.sort_by(|x, y| y.2.cmp(&x.2).then(x.0.cmp(&y.0)));
    let want_rows: Vec<Vec<Value>> = want
        .iter()
        .map(|(s, n, t)| vec![int(*t), Value::Str(s.clone()), int(*n)])
        .collect();
    assert_eq!(got, want_rows, "{} rows: by alias", rows.len());
    // A column output twice, sorted by a column not output.
    let got = run(&catalog, &format!("select n, n as m from {sub} order by s"));
    let want_rows: Vec<Vec<Value>> = groups
        .values()
        .map(|(n, _)| vec![int(*n), int(*n)])
        .collect();
    assert_eq!(got, want_rows, "{} rows: repeated", rows.len());
    // No ORDER BY: every group once.
    let mut got = run(&catalog, &format!("select s from {sub}"));
    got.sort_by(|x, y| x[0].sort_cmp(&y[0]));
    let want_rows: Vec<Vec<Value>> = groups.keys().map(|s| vec![Value::Str(s.clone())]).collect();
    assert_eq!(got, want_rows, "{} rows: unsorted", rows.len());
}

fn rows(n: usize, seed: i64) -> Vec<(i64, u8)> {
    (0..n as i64)
        .map(|r| {
            let h = (r * 7919 + seed * 104_729) % 1_000_003;
            (h % 2001 - 1000, (h % 97) as u8)
        })
        .collect()
}

#[test]
fn derived_sorts_at_edge_sizes() {
    for n in [0, 1, 63, 64, 65, 1023, 1025] {
        check(&rows(n, 7));
    }
}

#[test]
fn unknown_names_still_fail() {
    let catalog = catalog(&rows(10, 1));
    for query in [
        "select nope from (select s, count(*) as n from t group by s) as d order by n",
        "select s from (select s, count(*) as n from t group by s) as d order by nope",
    ] {
        let err = sql_with(&catalog, query, &QueryOptions::default()).unwrap_err();
        assert!(
            matches!(err, QueryError::UnknownColumn { .. }),
            "{query}: {err:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn derived_sort_matches_plain_sort(
        rows in prop::collection::vec((-50i64..50, 0u8..20), 0..300),
    ) {
        check(&rows);
    }
}
