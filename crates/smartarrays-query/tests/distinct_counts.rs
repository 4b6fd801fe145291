//! `count(DISTINCT x)` per group, and `count(*)` per prefix of a grouped derived table's keys
//! (which the rewrite of `count(DISTINCT x)` writes and which counts the derived table's
//! groups on their packed keys), against plain-Rust sets: integer and text keys, HAVING,
//! ORDER BY on the count, keys of every width, edge sizes (0, 1, 63, 64, 65, 1023, 1025 rows)
//! and a proptest.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{both, int};
use proptest::prelude::*;
use smartarrays_encodings::Values;
use smartarrays_query::{Catalog, Value};

/// `t(a, s, x)`: an integer key, a text key and the counted integer.
fn catalog(rows: &[(i64, u8, i64)]) -> Catalog {
    common::table_t(vec![
        ("a", Values::Int64(rows.iter().map(|r| r.0).collect())),
        ("s", Values::Utf8(rows.iter().map(|r| text(r.1)).collect())),
        ("x", Values::Int64(rows.iter().map(|r| r.2).collect())),
    ])
}

fn text(s: u8) -> String {
    format!("name #{s}")
}

/// The distinct `x` (with `x >= low`) per `(s, a)`.
fn sets(rows: &[(i64, u8, i64)], low: i64) -> BTreeMap<(String, i64), BTreeSet<i64>> {
    let mut sets: BTreeMap<(String, i64), BTreeSet<i64>> = BTreeMap::new();
    for &(a, s, x) in rows.iter().filter(|r| r.2 >= low) {
        sets.entry((text(s), a)).or_default().insert(x);
    }
    sets
}

/// Every query of the module against the reference.
/// `low` of `None`: no filter (the literal `i64::MIN` does not parse).
fn check(rows: &[(i64, u8, i64)], low: Option<i64>) {
    let catalog = catalog(rows);
    let sets = sets(rows, low.unwrap_or(i64::MIN));
    let low = match low {
        Some(l) => format!("x >= {l}"),
        None => "x = x".to_string(),
    };
    let row =
        |(s, a): &(String, i64), n: usize| vec![Value::Str(s.clone()), int(*a), int(n as i64)];
    // Ordered by the count, then the keys.
    let got = both(
        &catalog,
        &format!(
            "select s, a, count(distinct x) as c from t where {low} \
             group by s, a order by c desc, s, a"
        ),
    );
    let mut want: Vec<_> = sets.iter().map(|(k, v)| (k, v.len())).collect();
    want.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(q.0)));
    let want: Vec<_> = want.into_iter().map(|(k, n)| row(k, n)).collect();
    assert_eq!(got, want, "{} rows, {low}", rows.len());
    // HAVING on the count, the keys in another order than grouped.
    let got = both(
        &catalog,
        &format!(
            "select a, s, count(distinct x) + 1 as c from t where {low} \
             group by s, a having count(distinct x) > 1 order by s, a"
        ),
    );
    let want: Vec<Vec<Value>> = sets
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|((s, a), v)| vec![int(*a), Value::Str(s.clone()), int(v.len() as i64 + 1)])
        .collect();
    assert_eq!(got, want, "{} rows, {low}: having", rows.len());
    // The prefix count written out.
    let got = both(
        &catalog,
        &format!(
            "select s, a, n from (select s, a, count(*) as n from (select s, a, x from t \
             where {low} group by s, a, x) as d group by s, a) as e order by s, a"
        ),
    );
    let want: Vec<_> = sets.iter().map(|(k, v)| row(k, v.len())).collect();
    assert_eq!(got, want, "{} rows, {low}: prefix count", rows.len());
    // The derived table's keys not all output: rows repeat, each counted.
    let got = both(
        &catalog,
        &format!(
            "select a, n from (select a, count(*) as n from (select a, x from t \
             where {low} group by s, a, x) as d group by a) as e order by a"
        ),
    );
    let mut per_a: BTreeMap<i64, i64> = BTreeMap::new();
    for ((_, a), v) in &sets {
        *per_a.entry(*a).or_default() += v.len() as i64;
    }
    let want: Vec<_> = per_a.iter().map(|(a, n)| vec![int(*a), int(*n)]).collect();
    assert_eq!(got, want, "{} rows, {low}: keys not output", rows.len());
}

fn rows(n: usize, seed: i64, spread: i64) -> Vec<(i64, u8, i64)> {
    (0..n as i64)
        .map(|r| {
            let h = (r * 7919 + seed * 104_729) % 1_000_003;
            (h % 7 - 3, (h % 5) as u8, (h * 31) % spread - spread / 2)
        })
        .collect()
}

#[test]
fn distinct_counts_at_edge_sizes() {
    for n in [0, 1, 63, 64, 65, 1023, 1025] {
        for spread in [3, 2000] {
            let rows = rows(n, 3, spread);
            check(&rows, None);
            check(&rows, Some(0));
        }
    }
}

/// Keys and counted values wide enough that the packed keys take 63 of their 64 bits.
#[test]
fn distinct_counts_of_wide_values() {
    let wide = 1i64 << 29;
    let mut rows = Vec::new();
    for r in 0..1025i64 {
        let a = [-wide, -1, 0, wide - 1][(r % 4) as usize];
        let x = [-wide, wide - 1, r % 9, -(r % 5)][(r % 7 % 4) as usize];
        rows.push((a, (r % 5) as u8, x));
    }
    check(&rows, None);
    check(&rows, Some(0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn distinct_counts_match_sets(
        rows in prop::collection::vec((-40i64..40, 0u8..6, -500i64..500), 0..400),
        low in -600i64..600,
    ) {
        check(&rows, Some(low));
    }
}
