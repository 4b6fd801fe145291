//! Bad input is a typed error that names the problem and its place; never a wrong answer.

use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{explain, sql, Catalog, QueryError, Table, Value};

fn catalog() -> Catalog {
    let mut catalog = Catalog::new();
    catalog.insert(
        Table::from_values(
            "t",
            vec![
                ("id".into(), Values::Int64((0..3000).collect())),
                (
                    "price".into(),
                    Values::Decimal {
                        unscaled: (0..3000).map(|i| 100 + i % 700).collect(),
                        scale: 2,
                    },
                ),
                (
                    "kind".into(),
                    Values::Utf8(
                        (0..3000)
                            .map(|i| ["a", "b", "c"][i % 3].to_string())
                            .collect(),
                    ),
                ),
                ("big".into(), Values::Int64(vec![i64::MAX / 2; 3000])),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog.insert(
        Table::from_values(
            "u",
            vec![
                (
                    "id".into(),
                    Values::Int64((0..3000).map(|i| i % 10).collect()),
                ),
                ("kind".into(), Values::Utf8(vec!["x".to_string(); 3000])),
            ],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    catalog
}

fn error(query: &str) -> String {
    sql(&catalog(), query).unwrap_err().to_string()
}

#[test]
fn syntax_errors_carry_the_parsers_position() {
    let e = error("select id frm t");
    assert!(
        e.starts_with("syntax error:") && e.contains("Line: 1"),
        "{e}"
    );
}

#[test]
fn unknown_tables_and_columns_are_named_with_their_place() {
    assert_eq!(
        error("select id from nope"),
        "unknown table nope (line 1, column 16)"
    );
    assert_eq!(
        error("select id\nfrom t\nwhere pricey > 1"),
        "unknown column pricey (line 3, column 7)"
    );
    assert_eq!(
        error("select t.nope from t"),
        "unknown column t.nope (line 1, column 8)"
    );
    assert_eq!(
        error("select id from t, u"),
        "column id is ambiguous (line 1, column 8)"
    );
}

#[test]
fn unsupported_features_are_errors_with_their_place() {
    assert_eq!(
        error("select id,\n  row_number() over (order by id)\nfrom t"),
        "function row_number is not supported (line 2, column 3)"
    );
    assert_eq!(
        error("select distinct id, sum(price) from t group by id"),
        "SELECT DISTINCT is not supported (line 1, column 1)"
    );
    assert!(error("select id from t union select id from t").contains("set operations"));
    assert!(error("select count(distinct id), sum(price) from t")
        .contains("count(DISTINCT) next to other aggregates"));
    assert!(error("select id from t join u on t.id = u.id").contains("JOIN syntax"));
}

#[test]
fn type_errors_are_named() {
    assert!(error("select id from t where kind > 3").contains("cannot compare VARCHAR with BIGINT"));
    assert!(error("select sum(kind) from t").starts_with("type error: Sum of VARCHAR"));
    assert!(error("select id, sum(price) from t").contains("must appear in GROUP BY"));
    assert!(error("select id from t where price").contains("expected a condition"));
}

#[test]
fn overflow_is_an_error_not_a_wrapped_value() {
    let e = error("select sum(big * 4) from t");
    assert!(e.starts_with("overflow:"), "{e}");
    // A 128-bit sum of many large values is exact.
    let result = sql(&catalog(), "select sum(big) as s from t").unwrap();
    assert_eq!(
        result.rows[0][0],
        Value::Int(3000 * i128::from(i64::MAX / 2))
    );
}

#[test]
fn a_duplicate_build_key_is_an_error() {
    // u.id repeats, t.id is unique: t is the build side, fine; u cannot be one.
    let fine = sql(
        &catalog(),
        "select count(*) as n from t, u where t.id = u.id",
    )
    .unwrap();
    assert_eq!(fine.rows[0][0], Value::Int(3000));
    let mut catalog = catalog();
    catalog.insert(
        Table::from_values(
            "w",
            vec![(
                "id".into(),
                Values::Int64((0..100).map(|i| i / 2).collect()),
            )],
            &ColumnOptions::new(),
        )
        .unwrap(),
    );
    // w.id has 50 distinct values in 100 rows: not a build side, and u (the larger) neither;
    // w is counted exactly, so the error names its repeating key.
    let e = sql(&catalog, "select count(*) from u, w where u.id = w.id").unwrap_err();
    assert!(matches!(e, QueryError::DuplicateBuildKey { .. }), "{e}");
    assert!(e.to_string().contains("u.id = w.id"), "{e}");
    // A small table's keys are counted exactly: 95 distinct values in 100 rows are no key.
    let small = |rows: i64, distinct: i64| {
        Table::from_values(
            "v",
            vec![(
                "id".into(),
                Values::Int64((0..rows).map(|i| i.min(distinct - 1)).collect()),
            )],
            &ColumnOptions::new(),
        )
        .unwrap()
    };
    catalog.insert(small(100, 95));
    let e = sql(&catalog, "select count(*) from u, v where u.id = v.id").unwrap_err();
    assert!(matches!(e, QueryError::DuplicateBuildKey { .. }), "{e}");
    // A large one's count is estimated: 68,000 distinct values in 70,000 rows look like a key
    // to the planner; the build finds the repeats and refuses, rather than dropping rows.
    const { assert!(70_000 > smartarrays_query::table::EXACT_DISTINCT_ROWS) };
    catalog.insert(small(70_000, 68_000));
    let e = sql(&catalog, "select count(*) from u, v where u.id = v.id").unwrap_err();
    assert!(matches!(e, QueryError::DuplicateBuildKey { .. }), "{e}");
    assert!(e.to_string().contains("u.id = v.id"), "{e}");
}

#[test]
fn explain_shows_code_space_filters_and_encodings() {
    let plan = explain(
        &catalog(),
        "select kind, sum(price) from t where price < 3.00 and kind = 'b' group by kind",
    )
    .unwrap();
    assert!(plan.contains("filter in code space: price"), "{plan}");
    assert!(plan.contains("filter in code space: kind"), "{plan}");
    assert!(plan.contains("direct array"), "{plan}");
}

#[test]
fn an_unknown_column_in_a_correlated_subquery_is_named_where_it_stands() {
    // `nope` is no table's column: not taken for an outer column of an unsupported
    // correlated condition.
    let query =
        "select count(*) from t where exists (select * from u where u.id = t.id and nope > 1)";
    let e = sql(&catalog(), query).unwrap_err();
    assert!(matches!(e, QueryError::UnknownColumn { .. }), "{e}");
    let column = query.find("nope").unwrap() + 1;
    assert!(
        e.to_string()
            .contains(&format!("unknown column nope (line 1, column {column})")),
        "{e}"
    );
    // The same in a scalar subquery and against the outer side of an inequality.
    let query =
        "select count(*) from t where price > (select avg(price) from t as x where x.id = nope)";
    let e = sql(&catalog(), query).unwrap_err();
    assert!(matches!(e, QueryError::UnknownColumn { .. }), "{e}");
    let query =
        "select count(*) from t where exists (select * from u where u.id = t.id and u.id <> nope)";
    let e = sql(&catalog(), query).unwrap_err();
    assert!(matches!(e, QueryError::UnknownColumn { .. }), "{e}");
    // A real outer column in an unsupported condition keeps its own error.
    let query =
        "select count(*) from t where exists (select * from u where u.id = t.id and u.id > t.id)";
    let e = sql(&catalog(), query).unwrap_err();
    assert!(matches!(e, QueryError::Unsupported { .. }), "{e}");
}
