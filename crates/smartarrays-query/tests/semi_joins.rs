//! Semi and anti joins through key sets (`x [NOT] IN (subquery)`, correlated `[NOT] EXISTS`)
//! against plain-Rust evaluations: keys dense (a bitmap straight from the subquery's scan),
//! spread (a bitmap or hash set of its groups), extreme, negative; subqueries with and without
//! GROUP BY; keys of another type (an IN list). Edge sizes (0, 1, 63, 64, 65, 1023, 1025 rows)
//! and a proptest.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{both as run, SIZES};
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{explain, Catalog, Table, Value};

/// `o(k, d)` and `i(k, w, d)`: integer keys, a decimal `d` (scale 2) equal to the key, and a
/// filter column `w`.
fn catalog(outer: &[i64], inner: &[(i64, i64)]) -> Catalog {
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::from_values(
            "o",
            vec![
                ("k".into(), Values::Int64(outer.to_vec())),
                (
                    "d".into(),
                    Values::Decimal {
                        unscaled: outer.iter().map(|&k| k.wrapping_mul(100)).collect(),
                        scale: 2,
                    },
                ),
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

/// Per outer key (ascending), its rows whose key is (not, `negated`) among the inner keys with
/// `w > 0`.
fn reference(outer: &[i64], inner: &[(i64, i64)], negated: bool) -> Vec<Vec<Value>> {
    let keys: BTreeSet<i64> = inner.iter().filter(|r| r.1 > 0).map(|r| r.0).collect();
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for k in outer {
        if keys.contains(k) != negated {
            *counts.entry(*k).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, n)| vec![Value::Int(i128::from(k)), Value::Int(i128::from(n))])
        .collect()
}

/// The query shapes that must all give [`reference`]'s rows.
fn shapes(negated: bool) -> Vec<String> {
    let not = if negated { "not " } else { "" };
    vec![
        format!("select k, count(*) from o where {not}exists (select * from i where i.k = o.k and w > 0) group by k order by k"),
        format!("select k, count(*) from o where k {not}in (select k from i where w > 0 group by k) group by k order by k"),
        format!("select k, count(*) from o where k {not}in (select k from i where w > 0) group by k order by k"),
    ]
}

fn check(outer: &[i64], inner: &[(i64, i64)], label: &str) {
    let catalog = catalog(outer, inner);
    for negated in [false, true] {
        let expected = reference(outer, inner, negated);
        for query in shapes(negated) {
            assert_eq!(run(&catalog, &query), expected, "{label}: {query}");
        }
    }
}

/// The widest keys a query can group by here: their range must fit the 63 bits of packed group
/// keys (the `group by k` of the reference queries and of the subqueries).
const EDGE_LO: i64 = i64::MIN / 4;
const EDGE_HI: i64 = i64::MAX / 4;

/// `n` keys from `key(r)`, with `w` alternating sign.
fn inner_rows(n: usize, key: impl Fn(i64) -> i64) -> Vec<(i64, i64)> {
    (0..n as i64)
        .map(|r| (key(r), if r % 3 == 0 { -1 } else { r + 1 }))
        .collect()
}

#[test]
fn dense_sparse_and_extreme_keys_at_edge_sizes() {
    type Spread = fn(i64) -> i64;
    let spreads: [(&str, Spread); 4] = [
        ("dense", |r| r % 97),
        ("negative", |r| -5000 + (r * 13) % 1999),
        ("spread", |r| (r * 7919) % 1_000_003 * 1000),
        ("extreme", |r| match r % 4 {
            0 => EDGE_LO + r,
            1 => EDGE_HI - r,
            2 => r << 40,
            _ => -r,
        }),
    ];
    for (label, spread) in spreads {
        for &n in &SIZES {
            for &m in &SIZES {
                // The outer keys: the inner ones (hits) and their neighbours (misses).
                let outer: Vec<i64> = (0..n as i64)
                    .map(|r| spread(r / 2).wrapping_add(r % 2))
                    .collect();
                check(&outer, &inner_rows(m, spread), &format!("{label} {n}x{m}"));
            }
        }
    }
}

#[test]
fn keys_of_another_type_are_an_in_list() {
    // A decimal outer column against integer keys: compared by value.
    let outer: Vec<i64> = (0..200).collect();
    let inner = inner_rows(150, |r| r * 2);
    let catalog = catalog(&outer, &inner);
    let keys: BTreeSet<i64> = inner.iter().filter(|r| r.1 > 0).map(|r| r.0).collect();
    let rows = run(
        &catalog,
        "select count(*) from o where d in (select k from i where w > 0 group by k)",
    );
    assert_eq!(
        rows,
        vec![vec![Value::Int(i128::from(
            outer.iter().filter(|k| keys.contains(k)).count() as i64
        ))]]
    );
}

#[test]
fn explain_names_the_key_set() {
    let catalog = catalog(&(0..100).collect::<Vec<_>>(), &inner_rows(100, |r| r));
    let plan = explain(
        &catalog,
        "select count(*) from o where not exists (select * from i where i.k = o.k and w > 0)",
    )
    .unwrap();
    assert!(
        plan.contains("k not in the subquery's 66 keys in a bitmap"),
        "{plan}"
    );
    let sparse = catalog_with_keys(&[1, 1 << 50]);
    let plan = explain(
        &sparse,
        "select count(*) from o where k in (select k from i)",
    )
    .unwrap();
    assert!(
        plan.contains("k in the subquery's 2 keys in a hash set"),
        "{plan}"
    );
}

fn catalog_with_keys(keys: &[i64]) -> Catalog {
    catalog(keys, &keys.iter().map(|&k| (k, 1)).collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn semi_and_anti_joins_match_the_reference(
        outer in prop::collection::vec(prop_oneof![-70i64..70, EDGE_LO..=EDGE_HI], 0..200),
        inner in prop::collection::vec((prop_oneof![-70i64..70, EDGE_LO..=EDGE_HI], -5i64..5), 0..200),
    ) {
        let catalog = catalog(&outer, &inner);
        for negated in [false, true] {
            let expected = reference(&outer, &inner, negated);
            for query in shapes(negated) {
                prop_assert_eq!(run(&catalog, &query), expected.clone(), "{}", query);
            }
        }
    }
}
