//! Grouping with many groups on several workers: the workers' hash tables merged by hash
//! partitions in parallel, and `count(DISTINCT x)` counted per partition of its prefix keys.
//! Every result is checked against a plain-Rust reference, at 1, 2, 3 and 5 workers, with
//! group counts on both sides of the parallel merge's threshold (16,384 groups), packed keys
//! too wide for a direct array (hash maps) and narrow enough for one, and text keys.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::int;
use proptest::prelude::*;
use smartarrays_encodings::Values;
use smartarrays_query::{sql_with, Catalog, QueryOptions, Value};

/// `t(a, s, x, v)`: an integer key, a text key, a second integer key and a value.
fn catalog(rows: &[(i64, u8, i64, i64)]) -> Catalog {
    common::table_t(vec![
        ("a", Values::Int64(rows.iter().map(|r| r.0).collect())),
        ("s", Values::Utf8(rows.iter().map(|r| text(r.1)).collect())),
        ("x", Values::Int64(rows.iter().map(|r| r.2).collect())),
        ("v", Values::Int64(rows.iter().map(|r| r.3).collect())),
    ])
}

fn text(s: u8) -> String {
    format!("brand #{s}")
}

/// The query's rows at each of 1, 2, 3 and 5 workers; all must agree.
fn at_all_threads(catalog: &Catalog, query: &str) -> Vec<Vec<Value>> {
    let one = sql_with(catalog, query, &QueryOptions::threads(1).unwrap()).unwrap();
    for threads in [2, 3, 5] {
        let many = sql_with(catalog, query, &QueryOptions::threads(threads).unwrap()).unwrap();
        assert_eq!(many.rows, one.rows, "{query}: {threads} threads");
    }
    one.rows
}

/// `n` rows whose `(a, s, x)` triples repeat about twice; `x` spans `spread` values.
fn rows(n: usize, spread: i64, seed: i64) -> Vec<(i64, u8, i64, i64)> {
    (0..n as i64)
        .map(|r| {
            let k = r / 2;
            let h = (k * 7919 + seed * 104_729) % 1_000_003;
            (
                h % 11 - 5,
                (h % 6) as u8,
                (h * 31) % spread - spread / 2,
                r % 97 - 40,
            )
        })
        .collect()
}

/// Per `(s, a, x)`: count, sum, min and max of `v`.
type Reference = BTreeMap<(String, i64, i64), (i64, i64, i64, i64)>;

fn check(rows: &[(i64, u8, i64, i64)]) {
    let catalog = catalog(rows);
    let mut groups: Reference = BTreeMap::new();
    let mut distinct: BTreeMap<(String, i64), BTreeSet<i64>> = BTreeMap::new();
    for &(a, s, x, v) in rows {
        let g = groups
            .entry((text(s), a, x))
            .or_insert((0, 0, i64::MAX, i64::MIN));
        g.0 += 1;
        g.1 += v;
        g.2 = g.2.min(v);
        g.3 = g.3.max(v);
        distinct.entry((text(s), a)).or_default().insert(x);
    }
    let got = at_all_threads(
        &catalog,
        "select s, a, x, count(*), sum(v), min(v), max(v) from t group by s, a, x \
         order by s, a, x",
    );
    let want: Vec<Vec<Value>> = groups
        .iter()
        .map(|((s, a, x), (n, sum, lo, hi))| {
            vec![
                Value::Str(s.clone()),
                int(*a),
                int(*x),
                int(*n),
                int(*sum),
                int(*lo),
                int(*hi),
            ]
        })
        .collect();
    assert_eq!(got, want, "{} rows: groups", rows.len());
    let got = at_all_threads(
        &catalog,
        "select s, a, count(distinct x) as c from t group by s, a order by c desc, s, a",
    );
    let mut want: Vec<_> = distinct.iter().map(|(k, v)| (k, v.len())).collect();
    want.sort_by(|p, q| q.1.cmp(&p.1).then(p.0.cmp(q.0)));
    let want: Vec<Vec<Value>> = want
        .into_iter()
        .map(|((s, a), n)| vec![Value::Str(s.clone()), int(*a), int(n as i64)])
        .collect();
    assert_eq!(got, want, "{} rows: distinct counts", rows.len());
}

/// Many groups, `x` wide enough that the packed keys need a hash map.
#[test]
fn many_groups_in_hash_maps() {
    for n in [30_000, 40_001, 65_537] {
        check(&rows(n, 1 << 22, 5));
    }
}

/// Many groups, packed keys narrow enough for direct arrays: the prefix count still routes
/// the merge by its prefix.
#[test]
fn many_groups_in_direct_arrays() {
    check(&rows(70_001, 4000, 11));
}

/// Just below and above the parallel merge's threshold of groups, and the edge sizes.
#[test]
fn groups_around_the_threshold() {
    for n in [0, 1, 63, 64, 65, 1023, 1025, 32_766, 32_768, 32_770] {
        check(&rows(n, 1 << 22, 2));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn parallel_merge_matches_reference(
        n in 16_000usize..48_000,
        spread in prop::sample::select(vec![50i64, 3000, 1 << 20, 1 << 40]),
        seed in 0i64..1000,
    ) {
        check(&rows(n, spread, seed));
    }
}

/// Q18's shape: one integer key in direct arrays, a HAVING on a sum alone, keys sorted (each
/// worker's morsels hold runs of keys) or scattered, on both sides of the merge's threshold
/// and at the edge sizes; per kept key its sum and count, against a `BTreeMap`.
#[test]
fn direct_array_groups_with_having_on_a_sum() {
    for n in [0, 1, 63, 64, 65, 1023, 1025, 40_000, 70_001, 100_003] {
        for sorted in [true, false] {
            let rows: Vec<(i64, u8, i64, i64)> = (0..n as i64)
                .map(|r| {
                    let x = if sorted {
                        r / 3
                    } else {
                        (r * 7919) % (n as i64 / 3 + 1)
                    };
                    (0, 0, x - 1000, r % 97 - 40)
                })
                .collect();
            let mut groups: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
            for &(_, _, x, v) in &rows {
                let g = groups.entry(x).or_default();
                g.0 += v;
                g.1 += 1;
            }
            let want: Vec<Vec<Value>> = groups
                .iter()
                .filter(|(_, (sum, _))| *sum > 20)
                .map(|(x, (sum, count))| vec![int(*x), int(*sum), int(*count)])
                .collect();
            let got = at_all_threads(
                &catalog(&rows),
                "select x, sum(v), count(*) from t group by x having sum(v) > 20 order by x",
            );
            assert_eq!(got, want, "{n} rows, sorted {sorted}");
        }
    }
}
