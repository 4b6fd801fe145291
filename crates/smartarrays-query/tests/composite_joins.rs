//! Joins on a two-column key (TPC-H Q9's `partsupp`): the key columns' offsets in their build
//! ranges are combined into one integer. Checked against a plain-Rust evaluation at edge sizes
//! of the build side, with keys at the ends of the 64-bit range, and with ranges whose product
//! does not fit (a clear error).

use std::collections::HashMap;

use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql_with, Catalog, QueryOptions, Table, Value};

const QUERY: &str = "select fa, fb, amount * v as p from f, d \
                     where fa = da and fb = db order by fa, fb, p";

fn catalog(build: &[(i64, i64)], probe: &[(i64, i64)]) -> Catalog {
    let mut catalog = Catalog::new();
    let column = |v: Vec<i64>| Values::Int64(v);
    catalog.insert(
        Table::from_values(
            "d",
            vec![
                ("da".into(), column(build.iter().map(|k| k.0).collect())),
                ("db".into(), column(build.iter().map(|k| k.1).collect())),
                (
                    "v".into(),
                    column((0..build.len() as i64).map(|i| i % 97 + 1).collect()),
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
                ("fa".into(), column(probe.iter().map(|k| k.0).collect())),
                ("fb".into(), column(probe.iter().map(|k| k.1).collect())),
                (
                    "amount".into(),
                    column((0..probe.len() as i64).map(|i| i % 13).collect()),
                ),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog
}

/// The query's rows by plain Rust.
fn reference(build: &[(i64, i64)], probe: &[(i64, i64)]) -> Vec<Vec<Value>> {
    let v: HashMap<(i64, i64), i64> = build
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as i64 % 97 + 1))
        .collect();
    let mut rows: Vec<(i64, i64, i64)> = probe
        .iter()
        .enumerate()
        .filter_map(|(i, k)| v.get(k).map(|&w| (k.0, k.1, i as i64 % 13 * w)))
        .collect();
    rows.sort_unstable();
    rows.into_iter()
        .map(|(a, b, p)| {
            vec![
                Value::Int(a.into()),
                Value::Int(b.into()),
                Value::Int(p.into()),
            ]
        })
        .collect()
}

fn run(catalog: &Catalog) -> Vec<Vec<Value>> {
    let all = sql_with(catalog, QUERY, &QueryOptions::default()).unwrap();
    let one = sql_with(catalog, QUERY, &QueryOptions::threads(1).unwrap()).unwrap();
    assert_eq!(all.rows, one.rows, "one thread");
    all.rows
}

#[test]
fn two_column_keys_at_edge_build_sizes() {
    for n in [0usize, 1, 63, 64, 65, 1023, 1025] {
        // (i / 7, i % 7) scrambled: neither column alone is unique, the pair is.
        let build: Vec<(i64, i64)> = (0..n as i64)
            .map(|i| {
                let j = (i * 7919) % n.max(1) as i64;
                (j / 7 + 100, j % 7 - 3)
            })
            .collect();
        // Every build key, keys with a partner in one column only, and values outside both
        // columns' ranges.
        let mut probe: Vec<(i64, i64)> = build.iter().rev().copied().collect();
        for i in 0..(n as i64 + 20) {
            probe.push((i / 7 + 100, 7 + i % 5));
            probe.push((i64::MIN + i, i % 7 - 3));
            probe.push((i / 7 + 100, i64::MAX - i));
            probe.push((99 - i, i % 7 - 3));
        }
        let tables = catalog(&build, &probe);
        let got = run(&tables);
        assert_eq!(got, reference(&build, &probe), "build of {n} rows");
        assert_eq!(got.len(), n, "every build key found once at {n} rows");
    }
}

#[test]
fn two_column_keys_at_the_ends_of_the_range() {
    // Widths 2 and 3 at the extremes of i64: the combination is small, the values are not.
    let build = vec![
        (i64::MAX, i64::MIN),
        (i64::MAX, i64::MIN + 1),
        (i64::MAX, i64::MIN + 2),
        (i64::MAX - 1, i64::MIN),
        (i64::MAX - 1, i64::MIN + 2),
    ];
    let mut probe = build.clone();
    probe.extend([
        (i64::MAX - 1, i64::MIN + 1), // in both ranges, no such pair
        (i64::MAX - 2, i64::MIN),     // first column just below its range
        (i64::MAX, i64::MIN + 3),     // second column just above its range
        (i64::MIN, i64::MAX),
        (0, 0),
        (i64::MAX, i64::MIN),
    ]);
    let tables = catalog(&build, &probe);
    let got = run(&tables);
    assert_eq!(got, reference(&build, &probe));
    assert_eq!(got.len(), 6);
    assert_eq!(
        got[5][..2],
        [
            Value::Int(i64::MAX.into()),
            Value::Int((i64::MIN + 2).into())
        ]
    );
}

#[test]
fn key_ranges_whose_product_overflows_are_an_error() {
    let wide = 1i64 << 40;
    let build = vec![(0, 0), (0, wide), (wide, 0), (wide, wide)];
    let probe: Vec<(i64, i64)> = build.iter().cycle().take(12).copied().collect();
    let tables = catalog(&build, &probe);
    let error = sql_with(&tables, QUERY, &QueryOptions::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "a join on f.fa = d.da and f.fb = d.db whose key columns' value ranges multiply past \
         2^63 (they are combined into one 64-bit key) is not supported"
    );
    // Ranges that just fit: widths 2^31 - 1 and 2^32 (product 2^63 - 2^32) still run.
    let (x, y) = ((1i64 << 31) - 2, (1i64 << 32) - 1);
    let build = vec![(0, 0), (0, y), (x, 0), (x, y)];
    let probe: Vec<(i64, i64)> = build.iter().cycle().take(12).copied().collect();
    let tables = catalog(&build, &probe);
    assert_eq!(run(&tables), reference(&build, &probe));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Random unique pairs from small ranges at random offsets, probed by pairs from slightly
    /// wider ranges (misses in one column, the other, or both), against the plain reference.
    #[test]
    fn two_column_keys_match_the_reference(
        pairs in proptest::collection::btree_set((0i64..40, 0i64..12), 0..300),
        probes in proptest::collection::vec((-3i64..45, -2i64..15), 0..700),
        base in (-1i64 << 50)..(1i64 << 50),
    ) {
        let build: Vec<(i64, i64)> = pairs.iter().map(|&(a, b)| (a + base, b - base)).collect();
        let mut probe: Vec<(i64, i64)> = probes.iter().map(|&(a, b)| (a + base, b - base)).collect();
        // The fact table must be the larger one (it drives the pipeline).
        probe.extend(build.iter().copied());
        let tables = catalog(&build, &probe);
        proptest::prop_assert_eq!(run(&tables), reference(&build, &probe));
    }
}
