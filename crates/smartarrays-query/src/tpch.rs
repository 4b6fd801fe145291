//! TPC-H generated in this process by the `tpchgen` crate, as typed columns and as tables.
//!
//! Types: keys, line numbers, sizes, quantities and priorities Int64 (`l_quantity` in whole
//! units: the generator makes whole quantities only); prices, discounts, taxes and balances
//! Decimal at scale 2 (the generator's cents, exact); dates Date32 (days since 1970-01-01);
//! everything else Utf8. No column has nulls.

use smartarrays_encodings::{ColumnOptions, Values};
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

use crate::error::{QueryError, Result};
use crate::table::{Catalog, Table};

/// The eight TPC-H tables, in the order [`generate`] builds them.
pub const TABLES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

/// Columns being filled row by row.
struct Columns(Vec<(String, Values)>);

impl Columns {
    fn new(spec: &[(&str, char)]) -> Columns {
        Columns(
            spec.iter()
                .map(|&(name, kind)| {
                    let values = match kind {
                        'i' => Values::Int64(Vec::new()),
                        'd' => Values::Decimal {
                            unscaled: Vec::new(),
                            scale: 2,
                        },
                        't' => Values::Date32(Vec::new()),
                        _ => Values::Utf8(Vec::new()),
                    };
                    (name.to_string(), values)
                })
                .collect(),
        )
    }

    fn int(&mut self, column: usize, value: i64) {
        match &mut self.0[column].1 {
            Values::Int64(v) => v.push(value),
            Values::Decimal { unscaled, .. } => unscaled.push(value),
            _ => unreachable!("column {column} is not an integer column"),
        }
    }

    fn date(&mut self, column: usize, days: i32) {
        if let Values::Date32(v) = &mut self.0[column].1 {
            v.push(days)
        }
    }

    fn text(&mut self, column: usize, value: impl ToString) {
        if let Values::Utf8(v) = &mut self.0[column].1 {
            v.push(value.to_string())
        }
    }
}

/// `lineitem`'s columns at `scale_factor` (6,001,215 rows at 1).
pub fn lineitem_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("l_orderkey", 'i'),
        ("l_partkey", 'i'),
        ("l_suppkey", 'i'),
        ("l_linenumber", 'i'),
        ("l_quantity", 'i'),
        ("l_extendedprice", 'd'),
        ("l_discount", 'd'),
        ("l_tax", 'd'),
        ("l_returnflag", 's'),
        ("l_linestatus", 's'),
        ("l_shipdate", 't'),
        ("l_commitdate", 't'),
        ("l_receiptdate", 't'),
        ("l_shipinstruct", 's'),
        ("l_shipmode", 's'),
        ("l_comment", 's'),
    ]);
    for row in LineItemGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.l_orderkey);
        c.int(1, row.l_partkey);
        c.int(2, row.l_suppkey);
        c.int(3, i64::from(row.l_linenumber));
        c.int(4, row.l_quantity);
        c.int(5, row.l_extendedprice.into_inner());
        c.int(6, row.l_discount.into_inner());
        c.int(7, row.l_tax.into_inner());
        c.text(8, row.l_returnflag);
        c.text(9, row.l_linestatus);
        c.date(10, row.l_shipdate.to_unix_epoch());
        c.date(11, row.l_commitdate.to_unix_epoch());
        c.date(12, row.l_receiptdate.to_unix_epoch());
        c.text(13, row.l_shipinstruct);
        c.text(14, row.l_shipmode);
        c.text(15, row.l_comment);
    }
    c.0
}

/// `orders`' columns (1,500,000 rows at SF 1).
pub fn orders_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("o_orderkey", 'i'),
        ("o_custkey", 'i'),
        ("o_orderstatus", 's'),
        ("o_totalprice", 'd'),
        ("o_orderdate", 't'),
        ("o_orderpriority", 's'),
        ("o_clerk", 's'),
        ("o_shippriority", 'i'),
        ("o_comment", 's'),
    ]);
    for row in OrderGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.o_orderkey);
        c.int(1, row.o_custkey);
        c.text(2, row.o_orderstatus);
        c.int(3, row.o_totalprice.into_inner());
        c.date(4, row.o_orderdate.to_unix_epoch());
        c.text(5, row.o_orderpriority);
        c.text(6, row.o_clerk);
        c.int(7, i64::from(row.o_shippriority));
        c.text(8, row.o_comment);
    }
    c.0
}

/// `customer`'s columns (150,000 rows at SF 1).
pub fn customer_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("c_custkey", 'i'),
        ("c_name", 's'),
        ("c_address", 's'),
        ("c_nationkey", 'i'),
        ("c_phone", 's'),
        ("c_acctbal", 'd'),
        ("c_mktsegment", 's'),
        ("c_comment", 's'),
    ]);
    for row in CustomerGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.c_custkey);
        c.text(1, row.c_name);
        c.text(2, row.c_address);
        c.int(3, row.c_nationkey);
        c.text(4, row.c_phone);
        c.int(5, row.c_acctbal.into_inner());
        c.text(6, row.c_mktsegment);
        c.text(7, row.c_comment);
    }
    c.0
}

/// `part`'s columns (200,000 rows at SF 1).
pub fn part_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("p_partkey", 'i'),
        ("p_name", 's'),
        ("p_mfgr", 's'),
        ("p_brand", 's'),
        ("p_type", 's'),
        ("p_size", 'i'),
        ("p_container", 's'),
        ("p_retailprice", 'd'),
        ("p_comment", 's'),
    ]);
    for row in PartGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.p_partkey);
        c.text(1, row.p_name);
        c.text(2, row.p_mfgr);
        c.text(3, row.p_brand);
        c.text(4, row.p_type);
        c.int(5, i64::from(row.p_size));
        c.text(6, row.p_container);
        c.int(7, row.p_retailprice.into_inner());
        c.text(8, row.p_comment);
    }
    c.0
}

/// `supplier`'s columns (10,000 rows at SF 1).
pub fn supplier_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("s_suppkey", 'i'),
        ("s_name", 's'),
        ("s_address", 's'),
        ("s_nationkey", 'i'),
        ("s_phone", 's'),
        ("s_acctbal", 'd'),
        ("s_comment", 's'),
    ]);
    for row in SupplierGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.s_suppkey);
        c.text(1, row.s_name);
        c.text(2, row.s_address);
        c.int(3, row.s_nationkey);
        c.text(4, row.s_phone);
        c.int(5, row.s_acctbal.into_inner());
        c.text(6, row.s_comment);
    }
    c.0
}

/// `partsupp`'s columns (800,000 rows at SF 1).
pub fn partsupp_values(scale_factor: f64) -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("ps_partkey", 'i'),
        ("ps_suppkey", 'i'),
        ("ps_availqty", 'i'),
        ("ps_supplycost", 'd'),
        ("ps_comment", 's'),
    ]);
    for row in PartSuppGenerator::new(scale_factor, 1, 1).iter() {
        c.int(0, row.ps_partkey);
        c.int(1, row.ps_suppkey);
        c.int(2, i64::from(row.ps_availqty));
        c.int(3, row.ps_supplycost.into_inner());
        c.text(4, row.ps_comment);
    }
    c.0
}

/// `nation`'s columns (25 rows).
pub fn nation_values() -> Vec<(String, Values)> {
    let mut c = Columns::new(&[
        ("n_nationkey", 'i'),
        ("n_name", 's'),
        ("n_regionkey", 'i'),
        ("n_comment", 's'),
    ]);
    for row in NationGenerator::new(1.0, 1, 1).iter() {
        c.int(0, row.n_nationkey);
        c.text(1, row.n_name);
        c.int(2, row.n_regionkey);
        c.text(3, row.n_comment);
    }
    c.0
}

/// `region`'s columns (5 rows).
pub fn region_values() -> Vec<(String, Values)> {
    let mut c = Columns::new(&[("r_regionkey", 'i'), ("r_name", 's'), ("r_comment", 's')]);
    for row in RegionGenerator::new(1.0, 1, 1).iter() {
        c.int(0, row.r_regionkey);
        c.text(1, row.r_name);
        c.text(2, row.r_comment);
    }
    c.0
}

/// The columns of TPC-H table `name` at `scale_factor`.
pub fn table_values(name: &str, scale_factor: f64) -> Result<Vec<(String, Values)>> {
    check_scale_factor(scale_factor)?;
    Ok(match name {
        "region" => region_values(),
        "nation" => nation_values(),
        "supplier" => supplier_values(scale_factor),
        "customer" => customer_values(scale_factor),
        "part" => part_values(scale_factor),
        "partsupp" => partsupp_values(scale_factor),
        "orders" => orders_values(scale_factor),
        "lineitem" => lineitem_values(scale_factor),
        other => {
            return Err(QueryError::InvalidTable {
                table: other.to_string(),
                message: format!("not a TPC-H table (those are {})", TABLES.join(", ")),
            })
        }
    })
}

fn check_scale_factor(scale_factor: f64) -> Result<()> {
    if scale_factor.is_finite() && scale_factor > 0.0 && scale_factor <= 1000.0 {
        Ok(())
    } else {
        Err(QueryError::InvalidTable {
            table: "tpch".to_string(),
            message: format!("scale factor {scale_factor} is not in (0, 1000]"),
        })
    }
}

/// TPC-H table `name` at `scale_factor`, every column compressed.
pub fn table(name: &str, scale_factor: f64, options: &ColumnOptions) -> Result<Table> {
    Table::from_values(name, table_values(name, scale_factor)?, options)
}

/// All eight TPC-H tables at `scale_factor`; `progress(table, done, total)` is called before
/// each table is generated and once at the end (with `done == total`).
///
/// # Example
/// ```
/// use smartarrays_encodings::ColumnOptions;
/// let catalog = smartarrays_query::tpch::generate(0.001, &ColumnOptions::new(), |_, _, _| {}).unwrap();
/// assert_eq!(catalog.get("nation").unwrap().rows(), 25);
/// assert_eq!(catalog.get("orders").unwrap().rows(), 1500);
/// ```
pub fn generate(
    scale_factor: f64,
    options: &ColumnOptions,
    mut progress: impl FnMut(&str, usize, usize),
) -> Result<Catalog> {
    check_scale_factor(scale_factor)?;
    let mut catalog = Catalog::new();
    for (done, name) in TABLES.iter().enumerate() {
        progress(name, done, TABLES.len());
        catalog.insert(table(name, scale_factor, options)?);
    }
    progress("", TABLES.len(), TABLES.len());
    Ok(catalog)
}

/// Writes TPC-H columns as CSV with a header line (`|` between fields, as `dbgen` does; text
/// never contains `|`): decimals with their scale's digits, dates as `yyyy-mm-dd`. This is the
/// data other engines load to run the same queries on the same rows.
pub fn write_csv(
    columns: &[(String, Values)],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
    writeln!(out, "{}", names.join("|"))?;
    let rows = columns.first().map_or(0, |(_, v)| v.len());
    let mut line = String::new();
    for row in 0..rows {
        line.clear();
        for (i, (_, values)) in columns.iter().enumerate() {
            if i > 0 {
                line.push('|');
            }
            match values {
                Values::Int64(v) => line.push_str(&v[row].to_string()),
                Values::Decimal { unscaled, scale } => line.push_str(
                    &smartarrays_encodings::decimal::format(i128::from(unscaled[row]), *scale),
                ),
                Values::Date32(v) => line.push_str(&smartarrays_encodings::date::format(v[row])),
                Values::Utf8(v) => line.push_str(&v[row]),
                Values::UInt64(v) => line.push_str(&v[row].to_string()),
                Values::Float64(v) => line.push_str(&v[row].to_string()),
                Values::Bool(v) => line.push_str(&v[row].to_string()),
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Compares a result of TPC-H query `number` with the official answer at SF 1 that `tpchgen`
/// ships: the same rows in the same order, text equal (both trimmed: the answer files pad and
/// trim their cells), numbers equal after rounding to the answer's two decimals (a difference of
/// at most 0.01), column names equal (or cut short in the answer, as `o_orderdat`). `Err` says
/// what differs.
///
/// Two cells of the shipped files differ from the specification's answer set, and are read as
/// the specification has them: Q11's `ps_partkey` column is cut to its first four digits
/// (`1297` for part 129760: a key is then matched by those digits), and Q17's `avg_yearly` is
/// 348406.02 where the specification (and DuckDB) has 348406.05.
pub fn check_official_answer(
    number: u32,
    result: &crate::ResultSet,
) -> std::result::Result<(), String> {
    let answer = tpchgen::q_and_a::answers_sf1::answer(number as i32)
        .ok_or_else(|| format!("no official answer for Q{number}"))?;
    let mut lines = answer.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines
        .next()
        .ok_or("an empty answer")?
        .split('|')
        .map(|s| s.trim().to_lowercase())
        .collect();
    // The answer files cut some headers short (`o_orderdat`) and call unnamed ones `colN`.
    let names_match = header.len() == result.names.len()
        && header
            .iter()
            .zip(&result.names)
            .enumerate()
            .all(|(i, (h, n))| {
                !h.is_empty() && (n.starts_with(h.as_str()) || *h == format!("col{}", i + 1))
            });
    if !names_match {
        return Err(format!(
            "columns {:?}, the answer has {header:?}",
            result.names
        ));
    }
    let rows: Vec<Vec<&str>> = lines
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    if rows.len() != result.rows.len() {
        return Err(format!(
            "{} rows, the answer has {}",
            result.rows.len(),
            rows.len()
        ));
    }
    for (i, (want, got)) in rows.iter().zip(&result.rows).enumerate() {
        for (c, (w, g)) in want.iter().zip(got).enumerate() {
            let w = match (number, header[c].as_str(), *w) {
                (17, "avg_yearly", "348406.02") => "348406.05",
                (11, "ps_partkey", cut) if g.to_string().starts_with(cut) => {
                    continue;
                }
                (_, _, w) => w,
            };
            let ok = match (w.parse::<f64>(), g.as_f64()) {
                (Ok(w), Some(g)) => (w - g).abs() <= 0.01 + 1e-9 * w.abs(),
                _ => w == g.to_string().trim(),
            };
            if !ok {
                return Err(format!(
                    "row {i}, column {}: {g}, the answer has {w}",
                    header[c]
                ));
            }
        }
    }
    Ok(())
}
