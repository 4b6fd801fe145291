//! Correlated scalar subqueries whose groups are restricted to the outer query's values (magic
//! sets: the outer conditions on the correlated column's table are pushed into the subquery as
//! a join with the distinct values that pass them), and text tests on FSST columns run in the
//! scan on decompressed bytes. Against plain-Rust evaluations at edge sizes (0, 1, 63, 64, 65,
//! 1023, 1025 rows), with proptests.

mod common;

use std::collections::BTreeMap;

use common::{both, int, SIZES};
use proptest::prelude::*;
use smartarrays_encodings::{Column, ColumnOptions, EncodingKind};
use smartarrays_query::{Catalog, Table, TableColumn, Value};

/// `o(k, k2, v, t)` and `i(k, k2, w)`: `v` a decimal of scale 2, `t` FSST text.
fn catalog(outer: &[(i64, i64, i64)], inner: &[(i64, i64, i64)]) -> Catalog {
    let options = ColumnOptions::new();
    let ints = |values: Vec<i64>| Column::from_i64(&values, &options).unwrap();
    let texts: Vec<String> = outer
        .iter()
        .enumerate()
        .map(|(r, &(k, _, v))| {
            let word = ["special", "plain", "spécial", "other"][r % 4];
            format!("row {r} key {k} has {word} requests {v}")
        })
        .collect();
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::new(
            "o",
            vec![
                TableColumn::new("k", ints(outer.iter().map(|r| r.0).collect())),
                TableColumn::new("k2", ints(outer.iter().map(|r| r.1).collect())),
                TableColumn::new(
                    "v",
                    Column::from_decimal(
                        &outer.iter().map(|r| r.2).collect::<Vec<_>>(),
                        2,
                        &options,
                    )
                    .unwrap(),
                ),
                TableColumn::new(
                    "t",
                    Column::from_strs(&texts, &ColumnOptions::new().encoding(EncodingKind::Fsst))
                        .unwrap(),
                ),
            ],
        )
        .unwrap(),
    );
    catalog.insert(
        Table::new(
            "i",
            vec![
                TableColumn::new("k", ints(inner.iter().map(|r| r.0).collect())),
                TableColumn::new("k2", ints(inner.iter().map(|r| r.1).collect())),
                TableColumn::new("w", ints(inner.iter().map(|r| r.2).collect())),
            ],
        )
        .unwrap(),
    );
    catalog
}

/// `n` rows with keys in `0..keys`, second keys in `0..7` and values in `-1000..1000`.
fn rows(n: usize, keys: i64, seed: i64) -> Vec<(i64, i64, i64)> {
    (0..n as i64)
        .map(|r| {
            let x = (r * 7919 + seed * 104_729) % 1_000_003;
            (x % keys, (x / 7) % 7, (x * 31) % 2000 - 1000)
        })
        .collect()
}

/// Per `k` (and `k2` when `two`): the sum of `w` over the inner rows.
fn sums(inner: &[(i64, i64, i64)], two: bool) -> BTreeMap<(i64, i64), i64> {
    let mut out = BTreeMap::new();
    for &(k, k2, w) in inner {
        *out.entry((k, if two { k2 } else { 0 })).or_default() += w;
    }
    out
}

/// One correlation column, the outer table filtered on other columns (`v > 0` and `k2 < 4`):
/// the count and key sum of the outer rows with `v < sum(w)` of their group.
const ONE_KEY: &str = "select count(*) as n, sum(k) as s from o
where v > 0 and k2 < 4 and v < (select sum(w) from i where i.k = o.k)";

fn one_key_reference(outer: &[(i64, i64, i64)], inner: &[(i64, i64, i64)]) -> Vec<Vec<Value>> {
    let sums = sums(inner, false);
    let kept: Vec<i64> = outer
        .iter()
        .filter(|&&(k, k2, v)| {
            v > 0
                && k2 < 4
                && sums
                    .get(&(k, 0))
                    .is_some_and(|&s| i128::from(v) < i128::from(s) * 100)
        })
        .map(|r| r.0)
        .collect();
    let sum = if kept.is_empty() {
        Value::Null
    } else {
        int(kept.iter().sum())
    };
    vec![vec![int(kept.len() as i64), sum]]
}

/// Two correlation columns, the outer table filtered on one of them (`k < 9`) and on another
/// column (`v > -5`, which restricts neither key alone).
const TWO_KEYS: &str = "select k, k2, count(*) as n from o
where k < 9 and v > -5 and v * 2 > (select sum(w) from i where i.k = o.k and i.k2 = o.k2)
group by k, k2 order by k, k2";

fn two_keys_reference(outer: &[(i64, i64, i64)], inner: &[(i64, i64, i64)]) -> Vec<Vec<Value>> {
    let sums = sums(inner, true);
    let mut counts: BTreeMap<(i64, i64), i64> = BTreeMap::new();
    for &(k, k2, v) in outer {
        if k < 9
            && v > -500
            && sums
                .get(&(k, k2))
                .is_some_and(|&s| i128::from(v) * 2 > i128::from(s) * 100)
        {
            *counts.entry((k, k2)).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|((k, k2), n)| vec![int(k), int(k2), int(n)])
        .collect()
}

/// A `LIKE` and a `NOT LIKE` on FSST text (with and without `_`, a non-ASCII literal).
fn like_reference(outer: &[(i64, i64, i64)], negated: bool) -> Vec<Vec<Value>> {
    let n = (0..outer.len())
        .filter(|r| {
            let special = r % 4 == 0;
            special != negated
        })
        .count();
    vec![vec![int(n as i64)]]
}

#[test]
fn one_key_with_outer_conditions_at_edge_sizes() {
    for &n in &SIZES {
        for &m in &SIZES {
            let outer = rows(n, 40, 1);
            let inner = rows(m, 50, 2);
            let catalog = catalog(&outer, &inner);
            assert_eq!(
                both(&catalog, ONE_KEY),
                one_key_reference(&outer, &inner),
                "{n} outer rows, {m} inner rows"
            );
        }
    }
}

#[test]
fn two_keys_with_a_condition_on_one_at_edge_sizes() {
    for &n in &SIZES {
        for &m in &SIZES {
            let outer = rows(n, 20, 3);
            let inner = rows(m, 20, 4);
            let catalog = catalog(&outer, &inner);
            assert_eq!(
                both(&catalog, TWO_KEYS),
                two_keys_reference(&outer, &inner),
                "{n} outer rows, {m} inner rows"
            );
        }
    }
}

#[test]
fn no_outer_row_passes() {
    let outer = rows(1025, 40, 5);
    let inner = rows(1025, 40, 6);
    let catalog = catalog(&outer, &inner);
    let got = both(
        &catalog,
        "select count(*) as n from o where v > 5000 and v < (select sum(w) from i where i.k = o.k)",
    );
    assert_eq!(got, vec![vec![int(0)]]);
    // An IN subquery on the correlated column is pushed too (and may keep nothing).
    let got = both(
        &catalog,
        "select count(*) as n from o where k in (select k from i where w > 5000) and v < (select sum(w) from i where i.k = o.k)",
    );
    assert_eq!(got, vec![vec![int(0)]]);
}

#[test]
fn an_in_subquery_on_the_key_is_pushed() {
    for &n in &SIZES {
        let outer = rows(n, 30, 7);
        let inner = rows(1025, 30, 8);
        let catalog = catalog(&outer, &inner);
        let got = both(
            &catalog,
            "select count(*) as n from o where k in (select k from i where w > 900) and v < (select sum(w) from i where i.k = o.k and i.k2 = o.k2)",
        );
        let keys: std::collections::BTreeSet<i64> =
            inner.iter().filter(|r| r.2 > 900).map(|r| r.0).collect();
        let sums = sums(&inner, true);
        let want = outer
            .iter()
            .filter(|&&(k, k2, v)| {
                keys.contains(&k)
                    && sums
                        .get(&(k, k2))
                        .is_some_and(|&s| i128::from(v) < i128::from(s) * 100)
            })
            .count();
        assert_eq!(got, vec![vec![int(want as i64)]], "{n} outer rows");
    }
}

#[test]
fn like_on_fsst_text_in_the_scan_at_edge_sizes() {
    for &n in &SIZES {
        let outer = rows(n, 40, 9);
        let catalog = catalog(&outer, &[]);
        for negated in [false, true] {
            let not = if negated { "not " } else { "" };
            assert_eq!(
                both(
                    &catalog,
                    &format!("select count(*) as n from o where t {not}like '%special%requests%'")
                ),
                like_reference(&outer, negated),
                "{n} rows, negated {negated}"
            );
        }
        // With `_`, and a non-ASCII literal: matched on characters.
        let accented = (0..n).filter(|r| r % 4 == 2).count() as i64;
        assert_eq!(
            both(
                &catalog,
                "select count(*) as n from o where t like '%sp_cial%' and t like '%é%'"
            ),
            vec![vec![int(accented)]],
            "{n} rows"
        );
        // Next to a code-space filter: only the survivors are decompressed.
        let want = outer
            .iter()
            .enumerate()
            .filter(|(r, row)| row.2 > 0 && r % 4 != 0)
            .count() as i64;
        assert_eq!(
            both(
                &catalog,
                "select count(*) as n from o where v > 0 and t not like '%special%requests%'"
            ),
            vec![vec![int(want)]],
            "{n} rows"
        );
    }
}

#[test]
fn like_on_fsst_text_is_shown_in_explain() {
    let catalog = catalog(&rows(100, 10, 1), &[]);
    let plan = smartarrays_query::explain(
        &catalog,
        "select count(*) from o where t not like '%special%requests%'",
    )
    .unwrap();
    assert!(
        plan.contains("filter in the scan on decompressed bytes"),
        "{plan}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn magic_sets_match_the_reference(
        outer in prop::collection::vec((0i64..30, 0i64..7, -1000i64..1000), 0..300),
        inner in prop::collection::vec((0i64..30, 0i64..7, -1000i64..1000), 0..300),
    ) {
        let catalog = catalog(&outer, &inner);
        prop_assert_eq!(both(&catalog, ONE_KEY), one_key_reference(&outer, &inner));
        prop_assert_eq!(both(&catalog, TWO_KEYS), two_keys_reference(&outer, &inner));
    }
}
