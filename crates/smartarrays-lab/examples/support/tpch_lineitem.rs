//! TPC-H `lineitem` from the `tpchgen` crate as typed benchmark columns, shared by the example
//! `encodings` and the lab's smoke test (included with `#[path]`, so it is not an example of
//! its own).
//!
//! Types: keys and line numbers Int64; `l_quantity` Int64 in units (1..=50: the generator makes
//! whole quantities, so cents would only add 7 bits); prices, discounts and taxes Decimal at
//! scale 2 (`tpchgen`'s cents); dates Date32 (days since 1970-01-01); flags, instructions,
//! modes and comments Utf8. Every column comes with a typical TPC-H filter.

use smartarrays_encodings::{date, Predicate, Scalar, Values};
use smartarrays_lab::encodings_bench::{BenchColumn, BenchTable};
use tpchgen::generators::LineItemGenerator;

/// A decimal at scale 2.
fn cents(unscaled: i64) -> Scalar {
    Scalar::Decimal { unscaled, scale: 2 }
}

/// A date from `yyyy-mm-dd`.
fn day(text: &str) -> Scalar {
    Scalar::Date32(date::parse(text).expect("a valid date"))
}

/// The `lineitem` table at `scale_factor` (6,001,215 rows at 1), generated in this process.
pub fn lineitem(scale_factor: f64) -> BenchTable {
    let generator = LineItemGenerator::new(scale_factor, 1, 1);
    let (mut orderkey, mut partkey, mut suppkey, mut linenumber) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut quantity, mut price, mut discount, mut tax) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut returnflag, mut linestatus) = (Vec::new(), Vec::new());
    let (mut shipdate, mut commitdate, mut receiptdate) = (Vec::new(), Vec::new(), Vec::new());
    let (mut shipinstruct, mut shipmode, mut comment) = (Vec::new(), Vec::new(), Vec::new());
    for row in generator.iter() {
        orderkey.push(row.l_orderkey);
        partkey.push(row.l_partkey);
        suppkey.push(row.l_suppkey);
        linenumber.push(i64::from(row.l_linenumber));
        quantity.push(row.l_quantity);
        price.push(row.l_extendedprice.into_inner());
        discount.push(row.l_discount.into_inner());
        tax.push(row.l_tax.into_inner());
        returnflag.push(row.l_returnflag.to_string());
        linestatus.push(row.l_linestatus.to_string());
        shipdate.push(row.l_shipdate.to_unix_epoch());
        commitdate.push(row.l_commitdate.to_unix_epoch());
        receiptdate.push(row.l_receiptdate.to_unix_epoch());
        shipinstruct.push(row.l_shipinstruct.to_string());
        shipmode.push(row.l_shipmode.to_string());
        comment.push(row.l_comment.to_string());
    }
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
            Values::Utf8(returnflag),
            Predicate::eq("R"),
            "l_returnflag = 'R'",
        ),
        BenchColumn::new(
            "l_linestatus",
            Values::Utf8(linestatus),
            Predicate::eq("O"),
            "l_linestatus = 'O'",
        ),
        BenchColumn::new(
            "l_shipdate",
            Values::Date32(shipdate),
            Predicate::range(..=day("1998-09-02")),
            "l_shipdate <= date '1998-09-02'",
        ),
        BenchColumn::new(
            "l_commitdate",
            Values::Date32(commitdate),
            Predicate::between(day("1994-01-01"), day("1994-12-31")),
            "l_commitdate between 1994-01-01 and 1994-12-31",
        ),
        BenchColumn::new(
            "l_receiptdate",
            Values::Date32(receiptdate),
            Predicate::range(day("1995-01-01")..),
            "l_receiptdate >= date '1995-01-01'",
        ),
        BenchColumn::new(
            "l_shipinstruct",
            Values::Utf8(shipinstruct),
            Predicate::eq("DELIVER IN PERSON"),
            "l_shipinstruct = 'DELIVER IN PERSON'",
        ),
        BenchColumn::new(
            "l_shipmode",
            Values::Utf8(shipmode),
            Predicate::is_in(["MAIL", "SHIP"]),
            "l_shipmode in ('MAIL', 'SHIP')",
        ),
        BenchColumn::new(
            "l_comment",
            Values::Utf8(comment),
            Predicate::like("%special%"),
            "l_comment like '%special%'",
        ),
    ];
    BenchTable {
        name: "lineitem".to_string(),
        columns,
    }
}
