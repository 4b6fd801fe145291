//! Left outer joins counted per group (TPC-H Q13's shape) and `EXISTS` / `NOT EXISTS`
//! correlated by an equality and an inequality (Q21's shape), against plain-Rust evaluations:
//! empty tables, no matches, all matches, duplicate keys on both sides, edge sizes, proptests;
//! and the shapes that stay unsupported, with their positions.

mod common;

use std::collections::BTreeMap;

use common::{both, int, SIZES};
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql, Catalog, Table, Value};

/// `c(ck, cg)`: rows of a join key and a group; `r(rk, rv, rt)`: rows of a join key, a value
/// and a text that contains "special" when the value is odd; `l(lk, ls, lf)`: rows of an
/// order, a supplier and a flag (Q21's lineitem).
fn catalog(c: &[(i64, i64)], r: &[(i64, i64)], l: &[(i64, i64, i64)]) -> Catalog {
    let mut catalog = Catalog::new();
    let ints = |v: Vec<i64>| Values::Int64(v);
    catalog.insert(
        Table::from_values(
            "c",
            vec![
                ("ck".into(), ints(c.iter().map(|x| x.0).collect())),
                ("cg".into(), ints(c.iter().map(|x| x.1).collect())),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog.insert(
        Table::from_values(
            "r",
            vec![
                ("rk".into(), ints(r.iter().map(|x| x.0).collect())),
                ("rv".into(), ints(r.iter().map(|x| x.1).collect())),
                (
                    "rt".into(),
                    Values::Utf8(
                        r.iter()
                            .map(|x| {
                                if x.1 % 2 != 0 {
                                    format!("a special {} requests", x.1)
                                } else {
                                    format!("plain {}", x.1)
                                }
                            })
                            .collect(),
                    ),
                ),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog.insert(
        Table::from_values(
            "l",
            vec![
                ("lk".into(), ints(l.iter().map(|x| x.0).collect())),
                ("ls".into(), ints(l.iter().map(|x| x.1).collect())),
                ("lf".into(), ints(l.iter().map(|x| x.2).collect())),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog
}

/// Per group `cg`: `count(rv)` and `count(*)` of `c left join r on ck = rk and rt not like
/// '%special%requests%'`, as plain loops.
fn left_reference(c: &[(i64, i64)], r: &[(i64, i64)]) -> Vec<Vec<Value>> {
    let mut groups: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for (ck, cg) in c {
        let m = r.iter().filter(|(rk, rv)| rk == ck && rv % 2 == 0).count() as i64;
        let g = groups.entry(*cg).or_default();
        g.0 += m;
        g.1 += m.max(1);
    }
    groups
        .into_iter()
        .map(|(g, (m, n))| vec![int(g), int(m), int(n)])
        .collect()
}

const LEFT_SQL: &str = "select cg, count(rv) as m, count(*) as n from c left outer join r on ck = rk and rt not like '%special%requests%' group by cg order by cg";

/// Q13's two levels: the distribution of the number of matches per `c` row (keys unique).
fn distribution_reference(c: &[(i64, i64)], r: &[(i64, i64)]) -> Vec<Vec<Value>> {
    let mut per_key: BTreeMap<i64, i64> = BTreeMap::new();
    for (ck, _) in c {
        let m = r.iter().filter(|(rk, rv)| rk == ck && rv % 2 == 0).count() as i64;
        *per_key.entry(*ck).or_default() += m;
    }
    let mut dist: BTreeMap<i64, i64> = BTreeMap::new();
    for m in per_key.values() {
        *dist.entry(*m).or_default() += 1;
    }
    let mut rows: Vec<(i64, i64)> = dist.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    rows.into_iter()
        .map(|(m, n)| vec![int(m), int(n)])
        .collect()
}

const DISTRIBUTION_SQL: &str = "select c_count, count(*) as custdist from (select ck, count(rk) from c left outer join r on ck = rk and rt not like '%special%requests%' group by ck) as c_orders (c_key, c_count) group by c_count order by custdist desc, c_count desc";

/// [`DISTRIBUTION_SQL`] with the derived table's columns named in its query (the groups'
/// table renamed), and with a computed column (the groups' table read by a query).
const DISTRIBUTION_VARIANTS: [&str; 2] = [
    "select c_count, count(*) as custdist from (select count(rk) as c_count, ck from c left outer join r on ck = rk and rt not like '%special%requests%' group by ck) as c_orders group by c_count order by custdist desc, c_count desc",
    "select c_count, count(*) as custdist from (select ck, count(rk) + 0 as c_count from c left outer join r on ck = rk and rt not like '%special%requests%' group by ck) as c_orders group by c_count order by custdist desc, c_count desc",
];

/// Per order: how many `l1` rows pass Q21's test (late, another supplier in the order, no
/// other supplier late), as plain loops; `flag > 0` is "late".
fn q21_reference(l: &[(i64, i64, i64)]) -> Vec<Vec<Value>> {
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for (k, s, f) in l {
        if *f <= 0 {
            continue;
        }
        let other = l.iter().any(|(k2, s2, _)| k2 == k && s2 != s);
        let other_late = l.iter().any(|(k2, s2, f2)| k2 == k && s2 != s && *f2 > 0);
        if other && !other_late {
            *counts.entry(*k).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, n)| vec![int(k), int(n)])
        .collect()
}

const Q21_SQL: &str = "select l1.lk, count(*) as n from l l1 where l1.lf > 0 and exists (select * from l l2 where l2.lk = l1.lk and l2.ls <> l1.ls) and not exists (select * from l l3 where l3.lk = l1.lk and l3.ls <> l1.ls and l3.lf > 0) group by l1.lk order by l1.lk";

/// `EXISTS` alone (and `NOT EXISTS` alone) with the inequality written outer-first.
fn exists_reference(l: &[(i64, i64, i64)], negated: bool) -> Vec<Vec<Value>> {
    let n = l
        .iter()
        .filter(|(k, s, _)| l.iter().any(|(k2, s2, f2)| k2 == k && s2 != s && *f2 > 0) != negated)
        .count() as i64;
    vec![vec![int(n)]]
}

fn exists_sql(negated: bool) -> String {
    format!(
        "select count(*) as n from l l1 where {}exists (select * from l l2 where l1.lk = l2.lk and l1.ls <> l2.ls and l2.lf > 0)",
        if negated { "not " } else { "" }
    )
}

/// Rows in `0..keys` for the first field and `0..values` for the second, `n` of them.
fn pairs(n: usize, keys: i64, values: i64, seed: i64) -> Vec<(i64, i64)> {
    (0..n as i64)
        .map(|r| {
            let x = (r * 7919 + seed * 104_729) % 1_000_003;
            (x % keys, (x / 7) % values)
        })
        .collect()
}

#[test]
fn left_join_counts_at_edge_sizes() {
    for &nc in &SIZES {
        for &nr in &[0usize, 1, 64, 1025] {
            let c = pairs(nc, 97, 5, 1);
            let r = pairs(nr, 131, 40, 2);
            let catalog = catalog(&c, &r, &[]);
            assert_eq!(
                both(&catalog, LEFT_SQL),
                left_reference(&c, &r),
                "{nc} x {nr}"
            );
        }
    }
}

#[test]
fn left_join_unique_keys_distribution() {
    for &n in &SIZES {
        let c: Vec<(i64, i64)> = (0..n as i64).map(|k| (k, k % 3)).collect();
        let r = pairs(n * 3, n.max(1) as i64 + 5, 50, 3);
        let catalog = catalog(&c, &r, &[]);
        assert_eq!(
            both(&catalog, DISTRIBUTION_SQL),
            distribution_reference(&c, &r),
            "{n}"
        );
        for q in DISTRIBUTION_VARIANTS {
            assert_eq!(
                both(&catalog, q),
                distribution_reference(&c, &r),
                "{n}: {q}"
            );
        }
    }
}

/// Keys far apart and 2^40 from zero either way (counted through hash maps), keys
/// over a small range with left keys outside the right's range (counted in arrays by key),
/// and a mix: all against the plain loops.
#[test]
fn left_join_counts_sparse_dense_and_extreme_keys() {
    let spread = |k: i64| (k * 1_000_003_999) % 999_999_999_989 - 400_000_000_000;
    type Rows = Vec<(i64, i64)>;
    let shapes: Vec<(Rows, Rows)> = vec![
        (
            (0..300).map(|k| (spread(k), k % 7)).collect(),
            (0..900).map(|k| (spread(k % 400), k)).collect(),
        ),
        (
            vec![
                (-(1 << 40), 0),
                (1 << 40, 1),
                (0, 2),
                (-1, 0),
                (-(1 << 40) + 1, 1),
            ],
            vec![(-(1 << 40), 2), (1 << 40, 4), (1 << 40, 6), (-1, 1), (7, 0)],
        ),
        (
            (-20i64..1045).map(|k| (k, k.rem_euclid(5))).collect(),
            (0..3000).map(|k| (k % 1000, k)).collect(),
        ),
        (
            (0..65)
                .map(|k| (k * 3, k % 2))
                .chain([(1 << 40, 1)])
                .collect(),
            (0..64).map(|k| (k, 2 * k)).collect(),
        ),
    ];
    for (c, r) in shapes {
        let catalog = catalog(&c, &r, &[]);
        assert_eq!(both(&catalog, LEFT_SQL), left_reference(&c, &r), "{c:?}");
        let mut unique = c.clone();
        unique.sort();
        unique.dedup_by_key(|x| x.0);
        let catalog = self::catalog(&unique, &r, &[]);
        assert_eq!(
            both(&catalog, DISTRIBUTION_SQL),
            distribution_reference(&unique, &r),
            "{unique:?}"
        );
    }
}

#[test]
fn left_join_no_matches_and_all_matches() {
    let c: Vec<(i64, i64)> = (0..100).map(|k| (k, k % 4)).collect();
    // No match: every right key is outside the left's.
    let none: Vec<(i64, i64)> = (0..50).map(|k| (1000 + k, 2 * k)).collect();
    let catalog = catalog(&c, &none, &[]);
    assert_eq!(both(&catalog, LEFT_SQL), left_reference(&c, &none));
    assert_eq!(
        both(&catalog, DISTRIBUTION_SQL),
        vec![vec![int(0), int(100)]]
    );
    // All match, each left key twice (even values pass the text filter).
    let all: Vec<(i64, i64)> = (0..200).map(|k| (k % 100, 2 * k)).collect();
    let catalog = self::catalog(&c, &all, &[]);
    assert_eq!(both(&catalog, LEFT_SQL), left_reference(&c, &all));
    assert_eq!(
        both(&catalog, DISTRIBUTION_SQL),
        vec![vec![int(2), int(100)]]
    );
    // Without GROUP BY: one row, also over an empty left table.
    let q = "select count(rk) as m, count(*) as n from c left join r on ck = rk";
    assert_eq!(both(&catalog, q), vec![vec![int(200), int(200)]]);
    let empty = self::catalog(&[], &all, &[]);
    assert_eq!(both(&empty, q), vec![vec![int(0), int(0)]]);
    // HAVING, an output expression and a WHERE on the left table.
    let q = "select cg + 1 as g, count(rv) * 2 as twice from c left join r on rk = ck where ck < 50 group by cg having count(rv) > 24 order by g";
    assert_eq!(
        both(&catalog, q),
        vec![vec![int(1), int(52)], vec![int(2), int(52)]]
    );
}

#[test]
fn exists_with_inequality_at_edge_sizes() {
    for &n in &SIZES {
        for (keys, suppliers) in [(7, 1), (7, 3), (300, 4), (5, 1000)] {
            let l: Vec<(i64, i64, i64)> = pairs(n, keys, suppliers, 4)
                .into_iter()
                .enumerate()
                .map(|(i, (k, s))| (k, s, (i as i64 % 3) - 1))
                .collect();
            let catalog = catalog(&[], &[], &l);
            assert_eq!(both(&catalog, Q21_SQL), q21_reference(&l), "{n} {keys}");
            for negated in [false, true] {
                assert_eq!(
                    both(&catalog, &exists_sql(negated)),
                    exists_reference(&l, negated),
                    "{n} {keys} {negated}"
                );
            }
        }
    }
}

/// Keys spread far apart (the groups in a hash map, not a dense array) and values at the
/// extremes of 64 bits (equal to the dense array's markers for "no rows" and "several values").
#[test]
fn exists_with_inequality_sparse_keys_and_extreme_values() {
    let suppliers = [i64::MIN, i64::MAX, 0, -1, i64::MIN + 1, i64::MAX - 1];
    for &n in &SIZES {
        for spread in [1i64, 1_000_000_007] {
            for only in [None, Some(0usize), Some(1)] {
                let l: Vec<(i64, i64, i64)> = pairs(n, 13, 6, 6)
                    .into_iter()
                    .enumerate()
                    .map(|(i, (k, s))| {
                        let s = suppliers[only.unwrap_or(s as usize)];
                        (k * spread - 5 * spread, s, (i as i64 % 3) - 1)
                    })
                    .collect();
                let catalog = catalog(&[], &[], &l);
                assert_eq!(both(&catalog, Q21_SQL), q21_reference(&l), "{n} {spread}");
                for negated in [false, true] {
                    assert_eq!(
                        both(&catalog, &exists_sql(negated)),
                        exists_reference(&l, negated),
                        "{n} {spread} {only:?} {negated}"
                    );
                }
            }
        }
    }
}

/// A left join on two equalities (its matches keyed by two columns), counted per group.
#[test]
fn left_join_on_two_keys() {
    let q = "select cg, count(rv) as m, count(*) as n from c left join r on ck = rk and cg = rv group by cg order by cg";
    for &n in &SIZES {
        let c = pairs(n, 17, 4, 7);
        let r = pairs(n * 2, 19, 4, 8);
        let mut groups: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
        for (ck, cg) in &c {
            let m = r.iter().filter(|(rk, rv)| rk == ck && rv == cg).count() as i64;
            let g = groups.entry(*cg).or_default();
            g.0 += m;
            g.1 += m.max(1);
        }
        let expected: Vec<Vec<Value>> = groups
            .into_iter()
            .map(|(g, (m, n))| vec![int(g), int(m), int(n)])
            .collect();
        assert_eq!(both(&catalog(&c, &r, &[]), q), expected, "{n}");
    }
}

#[test]
fn unsupported_shapes_name_their_place() {
    let catalog = catalog(&[(1, 1)], &[(1, 2)], &[(1, 1, 1)]);
    let error = |q: &str| sql(&catalog, q).unwrap_err().to_string();
    assert_eq!(
        error("select count(*) from l l1\nwhere exists (select * from l l2 where l2.lk = l1.lk and l2.ls < l1.ls)"),
        "the correlated condition l2.ls < l1.ls (only equalities between a column of the subquery and one outside it) is not supported (line 2, column 58)"
    );
    assert_eq!(
        error("select count(*) from l l1 where exists (select * from l l2 where l2.lk = l1.lk and l2.ls <> l1.ls and l2.lf <> l1.lf)"),
        "the correlated condition l2.lf <> l1.lf next to another inequality (an EXISTS takes one equality and at most one inequality <>) is not supported (line 1, column 103)"
    );
    assert_eq!(
        error("select count(*) from l l1 where exists (select * from l l2 where l2.ls <> l1.ls)"),
        "the correlated condition l2.ls <> l1.ls (only equalities between a column of the subquery and one outside it) is not supported (line 1, column 66)"
    );
    assert_eq!(
        error("select count(*) from l l1 where l1.lf > (select sum(lf) from l l2 where l2.lk = l1.lk and l2.ls <> l1.ls)"),
        "the correlated condition l2.ls <> l1.ls (only equalities between a column of the subquery and one outside it) is not supported (line 1, column 91)"
    );
    assert_eq!(
        error("select cg, sum(rv) from c left join r on ck = rk group by cg"),
        "sum(rv) over a LEFT JOIN (only count: other aggregates of the unmatched rows need NULLs) is not supported (line 1, column 12)"
    );
    assert_eq!(
        error("select cg, count(*) from c left join r on ck = rk where rv > 0 group by cg"),
        "the condition rv > 0 on the right table of a LEFT JOIN in WHERE (it would test NULLs) is not supported (line 1, column 57)"
    );
    assert_eq!(
        error("select ck, rv from c left join r on ck = rk"),
        "a LEFT JOIN without GROUP BY or count (its unmatched rows would need NULLs) is not supported (line 1, column 32)"
    );
    assert_eq!(
        error("select cg, count(*) from c left join r on ck < rk group by cg"),
        "the LEFT JOIN condition ck < rk (only equalities between a column of each table, and conditions on the right table alone) is not supported (line 1, column 43)"
    );
    assert_eq!(
        error("select cg, count(*) from c left join r on ck = rk and cg = 1 group by cg"),
        "the LEFT JOIN condition cg = 1 (only equalities between a column of each table, and conditions on the right table alone) is not supported (line 1, column 55)"
    );
    assert_eq!(
        error("select cg, max(rv) from c left join r on ck = rk group by cg"),
        "max(rv) over a LEFT JOIN (only count: other aggregates of the unmatched rows need NULLs) is not supported (line 1, column 12)"
    );
    assert!(
        error("select cg, count(*) from c right join r on ck = rk group by cg")
            .starts_with("JOIN syntax")
    );
}

fn table_rows(max: usize, keys: i64, values: i64) -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((0..keys, 0..values), 0..max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn left_join_matches_reference(c in table_rows(40, 8, 3), r in table_rows(60, 10, 9)) {
        let catalog = catalog(&c, &r, &[]);
        prop_assert_eq!(both(&catalog, LEFT_SQL), left_reference(&c, &r));
    }

    #[test]
    fn left_join_distribution_matches_reference(n in 0usize..30, r in table_rows(60, 35, 9)) {
        let c: Vec<(i64, i64)> = (0..n as i64).map(|k| (k, 0)).collect();
        let catalog = catalog(&c, &r, &[]);
        prop_assert_eq!(both(&catalog, DISTRIBUTION_SQL), distribution_reference(&c, &r));
        for q in DISTRIBUTION_VARIANTS {
            prop_assert_eq!(both(&catalog, q), distribution_reference(&c, &r));
        }
    }

    #[test]
    fn exists_with_inequality_matches_reference(
        l in prop::collection::vec((0i64..6, 0i64..4, -1i64..2), 0..50)
    ) {
        let catalog = catalog(&[], &[], &l);
        prop_assert_eq!(both(&catalog, Q21_SQL), q21_reference(&l));
        for negated in [false, true] {
            prop_assert_eq!(both(&catalog, &exists_sql(negated)), exists_reference(&l, negated));
        }
    }
}

/// Grouping by text alone (Q21's `group by s_name`), with repeated strings among many.
#[test]
fn grouping_only_by_text() {
    for &n in &SIZES {
        let r = pairs(n, 1, 400, 5);
        let catalog = catalog(&[], &r, &[]);
        let mut want: BTreeMap<String, i64> = BTreeMap::new();
        for (_, v) in &r {
            let text = if v % 2 != 0 {
                format!("a special {v} requests")
            } else {
                format!("plain {v}")
            };
            *want.entry(text).or_default() += 1;
        }
        let want: Vec<Vec<Value>> = want
            .into_iter()
            .map(|(t, c)| vec![Value::Str(t), int(c)])
            .collect();
        assert_eq!(
            both(
                &catalog,
                "select rt, count(*) as n from r group by rt order by rt"
            ),
            want,
            "{n}"
        );
    }
}
