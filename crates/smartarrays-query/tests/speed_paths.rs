//! The execution shortcuts that must not change results, against plain-Rust evaluations:
//! sideways semi-join filters (a filtered build's key bitmap applied to a later build joined on
//! the same column, Q9's `part` -> `partsupp`), code-space filters tested most selective first
//! and on the survivors only, and the memory budget's typed error.

mod common;

use std::collections::BTreeMap;

use common::both;
use proptest::prelude::*;
use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql_with, Catalog, QueryError, QueryOptions, Table, Value};

fn table(name: &str, columns: Vec<(&str, Vec<i64>)>) -> Table {
    Table::from_values(
        name,
        columns
            .into_iter()
            .map(|(n, v)| (n.to_string(), Values::Int64(v)))
            .collect(),
        &ColumnOptions::new(),
    )
    .unwrap()
}

/// `p(pk, flag)` with `parts` rows, `ps(pk, sk, cost)` with every (pk, sk < 3) pair, and a fact
/// `l(pk, sk, q)`; Q9's shape: `l` joins `p` on pk and `ps` on (pk, sk), `p` filtered.
fn sideways(parts: usize, facts: &[(i64, i64, i64)]) {
    let pk: Vec<i64> = (0..parts as i64)
        .map(|i| (i * 7919) % parts.max(1) as i64)
        .collect();
    let flag: Vec<i64> = pk.iter().map(|k| k % 5).collect();
    let mut catalog = Catalog::new();
    catalog.insert(table("p", vec![("pk", pk.clone()), ("flag", flag)]));
    let (mut ps_pk, mut ps_sk, mut cost) = (Vec::new(), Vec::new(), Vec::new());
    for &k in &pk {
        for s in 0..3 {
            ps_pk.push(k);
            ps_sk.push(s);
            cost.push(k * 10 + s);
        }
    }
    catalog.insert(table(
        "ps",
        vec![("ps_pk", ps_pk), ("ps_sk", ps_sk), ("cost", cost)],
    ));
    catalog.insert(table(
        "l",
        vec![
            ("l_pk", facts.iter().map(|f| f.0).collect()),
            ("l_sk", facts.iter().map(|f| f.1).collect()),
            ("q", facts.iter().map(|f| f.2).collect()),
        ],
    ));
    let query = "select l_sk, sum(q * cost) as s, count(*) as n from l, p, ps \
                 where p.pk = l_pk and ps_pk = l_pk and ps_sk = l_sk and flag = 2 \
                 group by l_sk order by l_sk";
    let mut want: BTreeMap<i64, (i128, i128)> = BTreeMap::new();
    for &(k, s, q) in facts {
        if k >= 0 && (k as usize) < parts && k % 5 == 2 && (0..3).contains(&s) {
            let g = want.entry(s).or_default();
            g.0 += i128::from(q) * i128::from(k * 10 + s);
            g.1 += 1;
        }
    }
    let want: Vec<Vec<Value>> = want
        .into_iter()
        .map(|(s, (sum, n))| vec![Value::Int(s.into()), Value::Int(sum), Value::Int(n)])
        .collect();
    assert_eq!(both(&catalog, query), want, "{parts} parts");
}

#[test]
fn a_filtered_build_narrows_a_later_build_on_the_same_column() {
    for parts in [1usize, 63, 64, 65, 1023, 1025] {
        // More facts than `ps` rows, so that the fact table drives the plan.
        let facts: Vec<(i64, i64, i64)> = (0..5000i64)
            .map(|i| ((i * 31) % (parts as i64 + 3) - 1, i % 4, i % 7 - 3))
            .collect();
        sideways(parts, &facts);
    }
    let none: Vec<(i64, i64, i64)> = (0..40).map(|i| (i % 10, 7, i)).collect();
    sideways(10, &none);
}

/// `t(a, b, c, v)`: three filtered columns (dictionary, frame of reference, bit-packed) and a
/// summed one, over `rows` rows.
fn filters(rows: usize, seed: u64, a_max: i64, b_lo: i64, c_hi: i64) {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let a: Vec<i64> = (0..rows).map(|_| (next() % 11) as i64).collect();
    let b: Vec<i64> = (0..rows).map(|_| 10_000 + (next() % 2600) as i64).collect();
    let c: Vec<i64> = (0..rows).map(|_| (next() % 50) as i64 + 1).collect();
    let v: Vec<i64> = (0..rows).map(|_| (next() % 1_000_000) as i64).collect();
    let mut catalog = Catalog::new();
    catalog.insert(table(
        "t",
        vec![
            ("a", a.clone()),
            ("b", b.clone()),
            ("c", c.clone()),
            ("v", v.clone()),
        ],
    ));
    let query = format!(
        "select sum(v * a) as s, count(*) as n from t \
         where a <= {a_max} and b >= {b_lo} and b < {} and c < {c_hi}",
        b_lo + 365
    );
    let (mut sum, mut n) = (0i128, 0i128);
    for i in 0..rows {
        if a[i] <= a_max && b[i] >= b_lo && b[i] < b_lo + 365 && c[i] < c_hi {
            sum += i128::from(v[i] * a[i]);
            n += 1;
        }
    }
    let got = both(&catalog, &query);
    let want_sum = if n == 0 { Value::Null } else { Value::Int(sum) };
    assert_eq!(
        got,
        vec![vec![want_sum, Value::Int(n)]],
        "{query} over {rows} rows"
    );
}

#[test]
fn code_space_filters_in_any_order_keep_the_same_rows() {
    for rows in [0usize, 1, 63, 64, 65, 1023, 1025, 2047, 2049, 40_000] {
        filters(rows, rows as u64 + 7, 7, 10_500, 24);
        // Very selective: later columns are read only for the few survivors.
        filters(rows, rows as u64 + 9, 0, 12_000, 3);
        filters(rows, rows as u64 + 11, 10, 9_000, 51);
        filters(rows, rows as u64 + 13, -1, 10_000, 51);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn filters_match_a_plain_scan(rows in 0usize..9000, seed in 1u64..u64::MAX, a_max in -1i64..12,
                                  b_lo in 9_900i64..12_700, c_hi in 0i64..52) {
        filters(rows, seed, a_max, b_lo, c_hi);
    }

    #[test]
    fn sideways_filters_match_a_plain_join(parts in 1usize..300,
                                           facts in proptest::collection::vec((-2i64..320, -1i64..4, -50i64..50), 950..1300)) {
        sideways(parts, &facts);
    }
}

#[test]
fn a_query_past_its_memory_budget_fails_naming_the_operator() {
    let n = 50_000i64;
    let mut catalog = Catalog::new();
    // `f` is the larger table, so it drives the join and `d` is the build side.
    catalog.insert(table(
        "f",
        vec![
            ("k", (0..n + 1).map(|i| i * 977).collect()),
            ("v", (0..n + 1).collect()),
        ],
    ));
    catalog.insert(table(
        "d",
        vec![
            ("id", (0..n).map(|i| i * 977).collect()),
            ("w", (0..n).map(|i| i % 3).collect()),
        ],
    ));
    let limited = |bytes: usize| QueryOptions::threads(2).unwrap().with_memory_limit(bytes);
    // Hash aggregation of 50,000 groups.
    let group = "select k, sum(v) from f group by k";
    match sql_with(&catalog, group, &limited(64 << 10)) {
        Err(QueryError::MemoryLimit {
            operator,
            requested,
            held,
            limit,
        }) => {
            assert!(operator.contains("aggregation"), "{operator}");
            assert_eq!(limit, 64 << 10);
            assert!(held + requested > limit);
            let message = QueryError::MemoryLimit {
                operator: operator.clone(),
                requested,
                held,
                limit,
            }
            .to_string();
            assert!(message.starts_with("out of memory budget: "), "{message}");
            assert!(message.contains("65536 bytes"), "{message}");
        }
        other => panic!("expected a memory-limit error, got {other:?}"),
    }
    // A build side of 50,000 rows.
    let join = "select sum(v) from f, d where k = id and w = 1";
    match sql_with(&catalog, join, &limited(100 << 10)) {
        Err(QueryError::MemoryLimit { operator, .. }) => {
            assert_eq!(operator, "the hash build of d (f.k = d.id)");
        }
        other => panic!("expected a memory-limit error, got {other:?}"),
    }
    // Rows collected without aggregation.
    let rows = "select k, v from f where v >= 0";
    assert!(matches!(
        sql_with(&catalog, rows, &limited(32 << 10)),
        Err(QueryError::MemoryLimit { .. })
    ));
    // The same queries within a budget that fits them, and a small budget for a scalar sum.
    let grouped = sql_with(&catalog, group, &limited(256 << 20)).unwrap();
    assert_eq!(grouped.rows.len(), n as usize + 1);
    let joined = sql_with(&catalog, join, &limited(256 << 20)).unwrap();
    let want: i128 = (0..n).filter(|i| i % 3 == 1).map(i128::from).sum();
    assert_eq!(joined.rows, vec![vec![Value::Int(want)]]);
    let total = sql_with(&catalog, "select sum(v) from f", &limited(4096)).unwrap();
    assert_eq!(
        total.rows,
        vec![vec![Value::Int(i128::from(n) * i128::from(n + 1) / 2)]]
    );
}
