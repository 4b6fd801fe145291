//! Plans that must not change results, against plain-Rust evaluations: filters implied by a
//! disjunction over two tables (Q7's nations), range tests run on packed codes into bitmaps,
//! sorted (delta-encoded) keys read row by row for few survivors, and subqueries in FROM
//! inlined into the query that groups them (Q7, Q8).

mod common;

use std::collections::BTreeMap;

use common::both;
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{Catalog, Table, Value};

const SIZES: [usize; 9] = [0, 1, 63, 64, 65, 1023, 1025, 2049, 40_000];
const NAMES: [&str; 5] = ["ant", "bee", "cat", "dog", "eel"];

/// `d(dk, name)`: keys 0..5 named from `NAMES`; `f(k, a, b, v)`: `rows` facts with a sorted
/// key `k` (delta-encoded), `a` and `b` joining `d`, and a value.
fn catalog(rows: usize, seed: u64) -> (Catalog, Vec<[i64; 4]>) {
    let mut state = seed | 1;
    let mut next = move |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m) as i64
    };
    let mut key = 0i64;
    let facts: Vec<[i64; 4]> = (0..rows)
        .map(|_| {
            key += next(3);
            [key, next(5), next(5), next(1000) - 100]
        })
        .collect();
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::from_values(
            "d",
            vec![
                ("dk".to_string(), Values::Int64((0..5).collect())),
                (
                    "name".to_string(),
                    Values::Utf8(NAMES.iter().map(|s| s.to_string()).collect()),
                ),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    let column = |i: usize| Values::Int64(facts.iter().map(|f| f[i]).collect());
    catalog.insert(
        Table::from_values(
            "f",
            vec![
                ("k".to_string(), column(0)),
                ("a".to_string(), column(1)),
                ("b".to_string(), column(2)),
                ("v".to_string(), column(3)),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    (catalog, facts)
}

/// Q7's shape: a disjunction over two copies of `d` (implied `name in (..)` filters on both),
/// grouped by both names through a subquery in FROM (inlined).
fn q7_shape(rows: usize, seed: u64, (x, y): (usize, usize), (lo, hi): (i64, i64)) {
    let (catalog, facts) = catalog(rows, seed);
    let (nx, ny) = (NAMES[x], NAMES[y]);
    let query = format!(
        "select first, second, sum(value) as total, count(*) as n from (
            select d1.name as first, d2.name as second, v * 2 as value
            from f, d d1, d d2
            where a = d1.dk and b = d2.dk
              and ((d1.name = '{nx}' and d2.name = '{ny}') or (d1.name = '{ny}' and d2.name = '{nx}'))
              and v between {lo} and {hi}
        ) as t group by first, second order by first, second"
    );
    let mut want: BTreeMap<(&str, &str), (i128, i128)> = BTreeMap::new();
    for f in &facts {
        let (n1, n2) = (NAMES[f[1] as usize], NAMES[f[2] as usize]);
        if ((n1, n2) == (nx, ny) || (n1, n2) == (ny, nx)) && (lo..=hi).contains(&f[3]) {
            let g = want.entry((n1, n2)).or_default();
            g.0 += i128::from(f[3] * 2);
            g.1 += 1;
        }
    }
    let want: Vec<Vec<Value>> = want
        .into_iter()
        .map(|((a, b), (s, n))| {
            vec![
                Value::Str(a.into()),
                Value::Str(b.into()),
                Value::Int(s),
                Value::Int(n),
            ]
        })
        .collect();
    assert_eq!(
        both(&catalog, &query),
        want,
        "{rows} rows, {nx}/{ny}, {lo}..={hi}"
    );
}

#[test]
fn disjunctions_over_two_tables_at_edge_sizes() {
    for rows in SIZES {
        q7_shape(rows, rows as u64 + 7, (0, 3), (-100, 899));
        q7_shape(rows, rows as u64 + 8, (2, 2), (0, 10));
    }
}

/// Range tests on three columns (the first two into bitmaps while many rows are left), the sum
/// of a product over the survivors, and the sorted key read for them.
fn ranges(rows: usize, seed: u64, bounds: [(i64, i64); 3]) {
    let (catalog, facts) = catalog(rows, seed);
    let [(a0, a1), (b0, b1), (v0, v1)] = bounds;
    let query = format!(
        "select count(*) as n, sum(v * b) as s, sum(k) as keys from f \
         where a >= {a0} and a <= {a1} and b between {b0} and {b1} and v >= {v0} and v < {v1}"
    );
    let kept: Vec<&[i64; 4]> = facts
        .iter()
        .filter(|f| {
            (a0..=a1).contains(&f[1]) && (b0..=b1).contains(&f[2]) && (v0..v1).contains(&f[3])
        })
        .collect();
    let sum = |g: &dyn Fn(&[i64; 4]) -> i64| -> Value {
        if kept.is_empty() {
            Value::Null
        } else {
            Value::Int(kept.iter().map(|f| i128::from(g(f))).sum())
        }
    };
    let want = vec![vec![
        Value::Int(kept.len() as i128),
        sum(&|f| f[3] * f[2]),
        sum(&|f| f[0]),
    ]];
    assert_eq!(both(&catalog, &query), want, "{rows} rows, {bounds:?}");
}

#[test]
fn range_tests_at_edge_sizes() {
    for rows in SIZES {
        ranges(rows, rows as u64 + 1, [(1, 3), (0, 2), (-50, 700)]);
        // Few survivors: the later columns and the key read row by row.
        ranges(rows, rows as u64 + 2, [(4, 4), (4, 4), (0, 60)]);
        // Nothing passes.
        ranges(rows, rows as u64 + 3, [(3, 2), (0, 4), (-100, 900)]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_filters_and_disjunctions_agree_with_a_plain_evaluation(
        rows in 0usize..5000,
        seed in any::<u64>(),
        x in 0usize..5,
        y in 0usize..5,
        a in (0i64..5, 0i64..5),
        b in (0i64..5, 0i64..5),
        v in (-120i64..920, 0i64..1100),
    ) {
        ranges(rows, seed, [(a.0, a.1), (b.0, b.1), (v.0, v.0 + v.1)]);
        q7_shape(rows, seed, (x, y), (v.0, v.0 + v.1));
    }
}
