//! Subqueries against plain-Rust evaluations: WITH and subqueries in FROM (materialized as
//! tables), scalar subqueries, correlated EXISTS / NOT EXISTS (semi and anti joins through IN),
//! correlated scalar subqueries (joins with a grouped derived table), count(DISTINCT),
//! SUBSTRING, and exact numbers compared with a double constant. Edge sizes (0, 1, 63, 64, 65,
//! 1023, 1025 rows), duplicates on the inner side, and proptests.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{both, int, SIZES};
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql, Catalog, Table, Value};

/// `o(k, v, t)` of the given rows and `i(k, w)` of the given rows; `t` is text whose first two
/// characters repeat (`"ab-.."`, `"cd-.."`, ...), to test SUBSTRING on it.
fn catalog(outer: &[(i64, i64)], inner: &[(i64, i64)]) -> Catalog {
    let texts: Vec<String> = outer
        .iter()
        .enumerate()
        .map(|(r, (k, _))| {
            let prefix = ["ab", "cd", "éf", "gh"][r % 4];
            format!("{prefix}-{k}-row {r}")
        })
        .collect();
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::from_values(
            "o",
            vec![
                (
                    "k".into(),
                    Values::Int64(outer.iter().map(|r| r.0).collect()),
                ),
                (
                    "v".into(),
                    Values::Decimal {
                        unscaled: outer.iter().map(|r| r.1).collect(),
                        scale: 2,
                    },
                ),
                ("t".into(), Values::Utf8(texts)),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog.insert(
        Table::from_values(
            "i",
            vec![
                (
                    "k".into(),
                    Values::Int64(inner.iter().map(|r| r.0).collect()),
                ),
                (
                    "w".into(),
                    Values::Int64(inner.iter().map(|r| r.1).collect()),
                ),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog
}

fn dec(v: i128) -> Value {
    Value::Decimal {
        unscaled: v,
        scale: 2,
    }
}

/// Rows with keys in `0..keys` and values in `-1000..1000`, `n` of them.
fn rows(n: usize, keys: i64, seed: i64) -> Vec<(i64, i64)> {
    (0..n as i64)
        .map(|r| {
            let x = (r * 7919 + seed * 104_729) % 1_000_003;
            (x % keys, (x * 31) % 2000 - 1000)
        })
        .collect()
}

/// `[NOT] EXISTS` correlated by `i.k = o.k` (with a local filter on `i`), as plain loops.
fn exists_reference(outer: &[(i64, i64)], inner: &[(i64, i64)], negated: bool) -> Vec<Vec<Value>> {
    let keys: BTreeSet<i64> = inner.iter().filter(|r| r.1 > 0).map(|r| r.0).collect();
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for (k, _) in outer {
        if keys.contains(k) != negated {
            *counts.entry(*k).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, n)| vec![int(k), int(n)])
        .collect()
}

fn exists_sql(negated: bool) -> String {
    format!(
        "select k, count(*) as n from o where {}exists (select * from i where i.k = o.k and w > 0) group by k order by k",
        if negated { "not " } else { "" }
    )
}

#[test]
fn exists_and_not_exists_at_edge_sizes() {
    for &n in &SIZES {
        for &m in &SIZES {
            // Few keys: the inner side repeats them (a semi join must not multiply rows).
            let outer = rows(n, 40, 1);
            let inner = rows(m, 50, 2);
            let catalog = catalog(&outer, &inner);
            for negated in [false, true] {
                assert_eq!(
                    both(&catalog, &exists_sql(negated)),
                    exists_reference(&outer, &inner, negated),
                    "{n} outer rows, {m} inner rows, negated {negated}"
                );
            }
        }
    }
}

#[test]
fn uncorrelated_exists_is_a_constant() {
    let catalog = catalog(&rows(100, 10, 1), &rows(10, 10, 2));
    let all = both(
        &catalog,
        "select count(*) as n from o where exists (select k from i where w > 5000)",
    );
    assert_eq!(all, vec![vec![int(0)]]);
    let all = both(
        &catalog,
        "select count(*) as n from o where not exists (select k from i where w > 5000)",
    );
    assert_eq!(all, vec![vec![int(100)]]);
}

/// `v > (select max(w) ...)` and `v < (select sum(w) ...)` correlated by `i.k = o.k`.
fn scalar_reference(outer: &[(i64, i64)], inner: &[(i64, i64)]) -> Vec<Vec<Value>> {
    let mut max: BTreeMap<i64, i64> = BTreeMap::new();
    let mut sum: BTreeMap<i64, i64> = BTreeMap::new();
    for &(k, w) in inner {
        let m = max.entry(k).or_insert(i64::MIN);
        *m = (*m).max(w);
        *sum.entry(k).or_default() += w;
    }
    // v is a decimal of scale 2, w an integer: compare v with 100 * w.
    let mut out: BTreeMap<i64, (i64, i128)> = BTreeMap::new();
    for &(k, v) in outer {
        let (Some(&m), Some(&s)) = (max.get(&k), sum.get(&k)) else {
            continue;
        };
        if v > m * 100 / 4 && v < s * 100 {
            let e = out.entry(k).or_default();
            e.0 += 1;
            e.1 += i128::from(v);
        }
    }
    out.into_iter()
        .map(|(k, (n, s))| vec![int(k), int(n), dec(s)])
        .collect()
}

const SCALAR_SQL: &str = "select k, count(*) as n, sum(v) as s from o
where v > (select max(w) from i where i.k = o.k) / 4
  and v < (select sum(w) from i where o.k = i.k)
group by k order by k";

#[test]
fn correlated_scalar_subqueries_at_edge_sizes() {
    for &n in &SIZES {
        for &m in &SIZES {
            let outer = rows(n, 40, 3);
            let inner = rows(m, 50, 4);
            let catalog = catalog(&outer, &inner);
            let want = scalar_reference(&outer, &inner);
            // `max(w) / 4` is a double: compare through exact integers in the reference only
            // where the quotient is exact; otherwise compare with the double itself.
            let got = both(&catalog, &SCALAR_SQL.replace("/ 4", "* 0.25"));
            assert_eq!(got, want, "{n} outer rows, {m} inner rows");
        }
    }
}

/// A correlated average: a derived table of doubles, compared with decimals row by row (as
/// doubles, the way SQL engines cast decimals).
#[test]
fn correlated_averages_compare_as_doubles() {
    for &n in &SIZES {
        for &m in &[1usize, 64, 1025] {
            let outer = rows(n, 30, 11);
            let inner = rows(m, 30, 12);
            let catalog = catalog(&outer, &inner);
            let got = both(
                &catalog,
                "select count(*) as c from o where v >= (select avg(w) * 0.5 from i where i.k = o.k)",
            );
            let mut sums: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
            for &(k, w) in &inner {
                let e = sums.entry(k).or_default();
                e.0 += w;
                e.1 += 1;
            }
            let want = outer
                .iter()
                .filter(|&&(k, v)| {
                    sums.get(&k)
                        .is_some_and(|&(s, c)| v as f64 / 100.0 >= s as f64 / c as f64 * 0.5)
                })
                .count() as i64;
            assert_eq!(got, vec![vec![int(want)]], "{n} outer rows, {m} inner rows");
        }
    }
    // A double column is compared, never computed with, before aggregation.
    let catalog = catalog(&rows(10, 3, 1), &rows(10, 3, 2));
    let e = sql(
        &catalog,
        "select count(*) as c from o, (select k, avg(w) as a from i group by k) as t where o.k = t.k and v > t.a * 2",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("computing with doubles before aggregation"),
        "{e}"
    );
}

/// count(DISTINCT w) per k (and over the whole table), against sets.
#[test]
fn count_distinct_matches_the_reference() {
    for &m in &SIZES {
        let inner = rows(m, 7, 5);
        let catalog = catalog(&rows(3, 2, 1), &inner);
        let mut sets: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for &(k, w) in inner.iter().filter(|r| r.1 >= 0) {
            sets.entry(k).or_default().insert(w);
        }
        // Two outputs of the same count(DISTINCT), one in an expression.
        let got = both(
            &catalog,
            "select k, count(distinct w) as c, count(distinct w) + 1 as c1 from i where w >= 0 group by k order by k",
        );
        let want: Vec<Vec<Value>> = sets
            .iter()
            .map(|(k, s)| vec![int(*k), int(s.len() as i64), int(s.len() as i64 + 1)])
            .collect();
        assert_eq!(got, want, "{m} rows");
        // Ordered by the count.
        let got = both(
            &catalog,
            "select k, count(distinct w) as c from i where w >= 0 group by k order by c desc, k",
        );
        let mut exact: Vec<(i64, i64)> = sets.iter().map(|(k, s)| (*k, s.len() as i64)).collect();
        exact.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let want: Vec<Vec<Value>> = exact.iter().map(|(k, n)| vec![int(*k), int(*n)]).collect();
        assert_eq!(got, want, "{m} rows");
        // Without GROUP BY: one row.
        let all: BTreeSet<i64> = inner.iter().map(|r| r.1).collect();
        let got = both(&catalog, "select count(distinct w) as c from i");
        if inner.is_empty() {
            assert!(got.is_empty() || got == vec![vec![int(0)]], "{got:?}");
        } else {
            assert_eq!(got, vec![vec![int(all.len() as i64)]], "{m} rows");
        }
    }
}

#[test]
fn select_distinct_matches_sets() {
    for &m in &SIZES {
        let inner = rows(m, 9, 10);
        let catalog = catalog(&rows(1, 1, 1), &inner);
        let got = both(
            &catalog,
            "select distinct k, k + 1 as next from i where w > 0 order by k",
        );
        let keys: BTreeSet<i64> = inner.iter().filter(|r| r.1 > 0).map(|r| r.0).collect();
        let want: Vec<Vec<Value>> = keys.iter().map(|k| vec![int(*k), int(k + 1)]).collect();
        assert_eq!(got, want, "{m} rows");
    }
}

#[test]
fn with_and_subqueries_in_from() {
    let outer = rows(1025, 30, 6);
    let inner = rows(65, 30, 7);
    let catalog = catalog(&outer, &inner);
    // A CTE read twice (in FROM and in a scalar subquery) and a derived table with column names.
    let got = both(
        &catalog,
        "with totals (key, total) as (select k, sum(v) from o group by k)
         select key, total from totals where total = (select max(total) from totals)",
    );
    let mut totals: BTreeMap<i64, i128> = BTreeMap::new();
    for &(k, v) in &outer {
        *totals.entry(k).or_default() += i128::from(v);
    }
    let best = totals.values().max().copied().unwrap();
    let want: Vec<Vec<Value>> = totals
        .iter()
        .filter(|(_, &t)| t == best)
        .map(|(k, t)| vec![int(*k), dec(*t)])
        .collect();
    assert_eq!(got, want);
    // A derived table joined to a base table by a unique key.
    let got = both(
        &catalog,
        "select sum(total) as s, count(*) as n from (select k, sum(v) from o group by k) as t (key, total), i where key = i.k and i.w > 0",
    );
    let mut s = 0i128;
    let mut n = 0i64;
    for &(k, w) in &inner {
        if w > 0 {
            if let Some(t) = totals.get(&k) {
                s += t;
                n += 1;
            }
        }
    }
    let s = if n == 0 { Value::Null } else { dec(s) };
    assert_eq!(got, vec![vec![s, int(n)]]);
}

#[test]
fn scalar_subqueries_in_where_and_having() {
    let outer = rows(1023, 20, 8);
    let catalog = catalog(&outer, &rows(1, 1, 1));
    let got = both(
        &catalog,
        "select count(*) as n from o where v > (select avg(v) from o)",
    );
    let mean = outer.iter().map(|r| r.1 as f64 / 100.0).sum::<f64>() / outer.len() as f64;
    let want = outer.iter().filter(|r| r.1 as f64 / 100.0 > mean).count() as i64;
    assert_eq!(got, vec![vec![int(want)]]);
    // The double against decimals at every operator, with a value exactly on an existing row.
    for (op, test) in [
        (">", (|a: f64, b: f64| a > b) as fn(f64, f64) -> bool),
        (">=", |a, b| a >= b),
        ("<", |a, b| a < b),
        ("<=", |a, b| a <= b),
        ("=", |a, b| a == b),
        ("<>", |a, b| a != b),
    ] {
        let got = both(
            &catalog,
            &format!("select count(*) as n from o where v {op} (select avg(v) from o where k = 3 and v = (select max(v) from o where k = 3))"),
        );
        let max3 = outer
            .iter()
            .filter(|r| r.0 == 3)
            .map(|r| r.1)
            .max()
            .unwrap();
        let threshold = max3 as f64 / 100.0;
        let want = outer
            .iter()
            .filter(|r| test(r.1 as f64 / 100.0, threshold))
            .count() as i64;
        assert_eq!(got, vec![vec![int(want)]], "v {op} {threshold}");
    }
    let got = both(
        &catalog,
        "select k, sum(v) as s from o group by k having sum(v) > (select sum(v) from o) / 20 order by k",
    );
    let total: i128 = outer.iter().map(|r| i128::from(r.1)).sum();
    let mut sums: BTreeMap<i64, i128> = BTreeMap::new();
    for &(k, v) in &outer {
        *sums.entry(k).or_default() += i128::from(v);
    }
    let want: Vec<Vec<Value>> = sums
        .into_iter()
        .filter(|(_, s)| *s as f64 / 100.0 > total as f64 / 100.0 / 20.0)
        .map(|(k, s)| vec![int(k), dec(s)])
        .collect();
    assert_eq!(got, want);
}

#[test]
fn substring_filters_and_results() {
    let outer = rows(1025, 50, 9);
    let catalog = catalog(&outer, &rows(1, 1, 1));
    let got = both(
        &catalog,
        "select code, count(*) as n from (select substring(t from 1 for 2) as code, v from o where substring(t from 1 for 2) in ('ab', 'éf')) as c group by code order by code",
    );
    let count = |p: usize| outer.iter().enumerate().filter(|(r, _)| r % 4 == p).count() as i64;
    assert_eq!(
        got,
        vec![
            vec![Value::Str("ab".into()), int(count(0))],
            vec![Value::Str("éf".into()), int(count(2))],
        ]
    );
    // Positions outside the text, and without FOR.
    let got = both(
        &catalog,
        "select substring(t from 0 for 2) as a, substring(t from 2) as b, substring(t from 100 for 3) as c, substring(t, 2, 0) as d from o where k = 7 order by t limit 1",
    );
    if let Some(row) = got.first() {
        let Value::Str(t) = &row[1] else { panic!() };
        assert!(matches!(&row[0], Value::Str(s) if s.chars().count() == 1));
        assert!(t.chars().count() > 3);
        assert_eq!(row[2], Value::Str(String::new()));
        assert_eq!(row[3], Value::Str(String::new()));
    }
}

#[test]
fn unsupported_subqueries_are_errors_with_their_place() {
    let catalog = catalog(&rows(10, 5, 1), &rows(10, 5, 2));
    let error = |q: &str| sql(&catalog, q).unwrap_err().to_string();
    assert_eq!(
        error("select count(*) as n from o\nwhere exists (select * from i where i.k < o.k)"),
        "the correlated condition i.k < o.k (only equalities between a column of the subquery and one outside it) is not supported (line 2, column 37)"
    );
    assert_eq!(
        error("select count(*) as n from o where v > (select count(*) from i where i.k = o.k)"),
        "a correlated scalar subquery other than of sum, avg, min or max is not supported (line 1, column 47)"
    );
    assert_eq!(
        error("select count(*) as n from o where v > (select w from i)"),
        "type error: a scalar subquery returned 10 rows (at most one is allowed) (line 1, column 40)"
    );
    assert_eq!(
        error("select count(*) as n from o where v > (select k, w from i)"),
        "a scalar subquery returning 2 columns (it must return one) is not supported (line 1, column 40)"
    );
    assert_eq!(
        error("select count(*) as n from o where v > (select max(w) from i where w > 5000)"),
        "a scalar subquery without a value (NULL) is not supported (line 1, column 40)"
    );
    assert_eq!(
        error("select k, count(distinct w), sum(w) from i group by k"),
        "count(DISTINCT) next to other aggregates or of several expressions is not supported (line 1, column 8)"
    );
    assert!(error("select * from (select k from i)").contains("without an alias"));
    assert!(error("with recursive r as (select k from i) select k from r").contains("RECURSIVE"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn semi_and_anti_joins_match_the_reference(
        outer in prop::collection::vec((0i64..60, -1000i64..1000), 0..300),
        inner in prop::collection::vec((0i64..60, -1000i64..1000), 0..300),
    ) {
        let catalog = catalog(&outer, &inner);
        for negated in [false, true] {
            prop_assert_eq!(both(&catalog, &exists_sql(negated)), exists_reference(&outer, &inner, negated));
        }
    }

    #[test]
    fn correlated_scalars_match_the_reference(
        outer in prop::collection::vec((0i64..60, -1000i64..1000), 0..300),
        inner in prop::collection::vec((0i64..60, -1000i64..1000), 0..300),
    ) {
        let catalog = catalog(&outer, &inner);
        prop_assert_eq!(
            both(&catalog, &SCALAR_SQL.replace("/ 4", "* 0.25")),
            scalar_reference(&outer, &inner)
        );
    }
}
