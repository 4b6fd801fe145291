//! TPC-H `lineitem` as typed benchmark columns, shared by the example
//! `encodings` and the lab's smoke test (included with `#[path]`, so it is not an example of
//! its own).
//!
//! The columns come from `smartarrays_query::tpch` (its module header gives their types); every
//! column comes with a typical TPC-H filter.

use smartarrays_encodings::{date, Predicate, Scalar, Values};
use smartarrays_lab::encodings_bench::{BenchColumn, BenchTable};

/// A decimal at scale 2.
fn cents(unscaled: i64) -> Scalar {
    Scalar::Decimal { unscaled, scale: 2 }
}

/// A date from `yyyy-mm-dd`.
fn day(text: &str) -> Scalar {
    Scalar::Date32(date::parse(text).expect("a valid date"))
}

/// The `lineitem` table at `scale_factor` (6,001,215 rows at 1), generated in this process by
/// the query crate's TPC-H module (the columns' types are documented there).
pub fn lineitem(scale_factor: f64) -> BenchTable {
    let mut columns: std::collections::HashMap<String, Values> =
        smartarrays_query::tpch::lineitem_values(scale_factor)
            .into_iter()
            .collect();
    let mut take = |name: &str| columns.remove(name).expect("a lineitem column");
    let ints = |values: Values| match values {
        Values::Int64(v) => v,
        Values::Decimal { unscaled, .. } => unscaled,
        other => panic!("not an integer column: {other:?}"),
    };
    let orderkey = ints(take("l_orderkey"));
    let partkey = ints(take("l_partkey"));
    let suppkey = ints(take("l_suppkey"));
    let linenumber = ints(take("l_linenumber"));
    let quantity = ints(take("l_quantity"));
    let price = ints(take("l_extendedprice"));
    let discount = ints(take("l_discount"));
    let tax = ints(take("l_tax"));
    let returnflag = take("l_returnflag");
    let linestatus = take("l_linestatus");
    let shipdate = take("l_shipdate");
    let commitdate = take("l_commitdate");
    let receiptdate = take("l_receiptdate");
    let shipinstruct = take("l_shipinstruct");
    let shipmode = take("l_shipmode");
    let comment = take("l_comment");
    let half_orders = orderkey.get(orderkey.len() / 2).copied().unwrap_or(0);
    let max_part = partkey.iter().copied().max().unwrap_or(0);
    let max_supp = suppkey.iter().copied().max().unwrap_or(0);
    let decimal = |unscaled| Values::Decimal { unscaled, scale: 2 };
    let columns = vec![
        BenchColumn::new(
            "l_orderkey",
            Values::Int64(orderkey),
            Predicate::range(..=half_orders),
            &format!("l_orderkey <= {half_orders}"),
        ),
        BenchColumn::new(
            "l_partkey",
            Values::Int64(partkey),
            Predicate::range(..=max_part / 10),
            &format!("l_partkey <= {}", max_part / 10),
        ),
        BenchColumn::new(
            "l_suppkey",
            Values::Int64(suppkey),
            Predicate::range(..=max_supp / 2),
            &format!("l_suppkey <= {}", max_supp / 2),
        ),
        BenchColumn::new(
            "l_linenumber",
            Values::Int64(linenumber),
            Predicate::eq(1i64),
            "l_linenumber = 1",
        ),
        BenchColumn::new(
            "l_quantity",
            Values::Int64(quantity),
            Predicate::range(..24i64),
            "l_quantity < 24",
        ),
        BenchColumn::new(
            "l_extendedprice",
            decimal(price),
            Predicate::between(cents(1_000_000), cents(2_000_000)),
            "l_extendedprice between 10000.00 and 20000.00",
        ),
        BenchColumn::new(
            "l_discount",
            decimal(discount),
            Predicate::between(cents(5), cents(7)),
            "l_discount between 0.05 and 0.07",
        ),
        BenchColumn::new(
            "l_tax",
            decimal(tax),
            Predicate::range(..=cents(2)),
            "l_tax <= 0.02",
        ),
        BenchColumn::new(
            "l_returnflag",
            returnflag,
            Predicate::eq("R"),
            "l_returnflag = 'R'",
        ),
        BenchColumn::new(
            "l_linestatus",
            linestatus,
            Predicate::eq("O"),
            "l_linestatus = 'O'",
        ),
        BenchColumn::new(
            "l_shipdate",
            shipdate,
            Predicate::range(..=day("1998-09-02")),
            "l_shipdate <= date '1998-09-02'",
        ),
        BenchColumn::new(
            "l_commitdate",
            commitdate,
            Predicate::between(day("1994-01-01"), day("1994-12-31")),
            "l_commitdate between 1994-01-01 and 1994-12-31",
        ),
        BenchColumn::new(
            "l_receiptdate",
            receiptdate,
            Predicate::range(day("1995-01-01")..),
            "l_receiptdate >= date '1995-01-01'",
        ),
        BenchColumn::new(
            "l_shipinstruct",
            shipinstruct,
            Predicate::eq("DELIVER IN PERSON"),
            "l_shipinstruct = 'DELIVER IN PERSON'",
        ),
        BenchColumn::new(
            "l_shipmode",
            shipmode,
            Predicate::is_in(["MAIL", "SHIP"]),
            "l_shipmode in ('MAIL', 'SHIP')",
        ),
        BenchColumn::new(
            "l_comment",
            comment,
            Predicate::like("%special%"),
            "l_comment like '%special%'",
        ),
    ];
    BenchTable {
        name: "lineitem".to_string(),
        columns,
    }
}
