//! What the query crate's integration tests share: a catalog of one table, a query run at
//! several worker counts whose answers must agree, integer values, and the row counts at the
//! edges of vectors and morsels.
// Each test file uses some of these.
#![allow(dead_code)]

use smartarrays_encodings::{ColumnOptions, Values};
use smartarrays_query::{sql_with, Catalog, QueryOptions, Table, Value};

/// Row counts at the edges of 64-row words and 1024-row vectors.
pub const SIZES: [usize; 7] = [0, 1, 63, 64, 65, 1023, 1025];

/// A catalog of one table `t` with `columns` (name, values), compressed with the default
/// options.
pub fn table_t(columns: Vec<(&str, Values)>) -> Catalog {
    let columns = columns
        .into_iter()
        .map(|(name, values)| (name.to_string(), values))
        .collect();
    let mut catalog = Catalog::new();
    catalog.insert(Table::from_values("t", columns, &ColumnOptions::new()).unwrap());
    catalog
}

/// Runs `query` on all workers, on one and on three (an odd count); every answer must be the
/// same. Returns the rows.
pub fn both(catalog: &Catalog, query: &str) -> Vec<Vec<Value>> {
    let all = sql_with(catalog, query, &QueryOptions::default()).unwrap();
    for threads in [1, 3] {
        let some = sql_with(catalog, query, &QueryOptions::threads(threads).unwrap()).unwrap();
        assert_eq!(all.rows, some.rows, "{query}: {threads} threads");
    }
    all.rows
}

/// An integer value as the engine returns it.
pub fn int(v: i64) -> Value {
    Value::Int(i128::from(v))
}
