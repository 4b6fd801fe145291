//! Tables: named typed encoded columns with one row count, and the catalog of tables a query
//! reads.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use smartarrays::{Placement, Topology};
use smartarrays_encodings::{Column, ColumnOptions, Values};

use crate::error::{QueryError, Result};
use crate::placement::{decoded_bytes, TablePlacement};

/// One named column of a table.
#[derive(Debug)]
pub struct TableColumn {
    /// The column's name (lower case; SQL names are matched without case).
    pub name: String,
    /// The encoded data.
    pub column: Column,
    /// The distinct-count estimate, computed on first use (the planner's join sides).
    distinct: OnceLock<u64>,
}

impl TableColumn {
    /// A named column.
    pub fn new(name: &str, column: Column) -> TableColumn {
        TableColumn {
            name: name.to_lowercase(),
            column,
            distinct: OnceLock::new(),
        }
    }

    /// The number of distinct values, computed once: counted exactly for a column of at most
    /// [`EXACT_DISTINCT_ROWS`] rows, else the encoding's estimate. The planner builds joins on
    /// columns whose count is close to the row count, so a small table with one duplicate key
    /// must not pass for unique.
    pub fn distinct_estimate(&self) -> u64 {
        *self.distinct.get_or_init(|| {
            let rows = self.column.len();
            if rows <= EXACT_DISTINCT_ROWS {
                if let Ok(values) = self.column.unpack(0..rows) {
                    return exact_distinct(&values.values);
                }
            }
            self.column
                .statistics()
                .map_or(0, |stats| stats.distinct_estimate)
        })
    }
}

/// Columns of at most this many rows have their distinct values counted exactly.
pub const EXACT_DISTINCT_ROWS: usize = 1 << 16;

/// The exact number of distinct values (doubles by their bits).
fn exact_distinct(values: &Values) -> u64 {
    fn count<T: std::hash::Hash + Eq>(items: impl Iterator<Item = T>) -> u64 {
        items.collect::<std::collections::HashSet<T>>().len() as u64
    }
    match values {
        Values::UInt64(v) => count(v.iter()),
        Values::Int64(v) => count(v.iter()),
        Values::Float64(v) => count(v.iter().map(|x| x.to_bits())),
        Values::Decimal { unscaled, .. } => count(unscaled.iter()),
        Values::Date32(v) => count(v.iter()),
        Values::Utf8(v) => count(v.iter()),
        Values::Bool(v) => count(v.iter()),
    }
}

/// Whether the rows of a table of at most [`EXACT_DISTINCT_ROWS`] rows are unique on the
/// given columns together, counted exactly (`None` for a larger table or a column that cannot
/// be read back): a product of per-column distinct counts can pass a repeated tuple for unique.
pub(crate) fn exact_rows_unique(columns: &[&TableColumn]) -> Option<bool> {
    let rows = columns.first()?.column.len();
    if rows > EXACT_DISTINCT_ROWS {
        return None;
    }
    let mut tuples: Vec<Vec<u64>> = vec![Vec::with_capacity(columns.len()); rows];
    for c in columns {
        let values = c.column.unpack(0..rows).ok()?.values;
        let keys: Vec<u64> = match &values {
            Values::UInt64(v) => v.clone(),
            Values::Int64(v) => v.iter().map(|&x| x as u64).collect(),
            Values::Float64(v) => v.iter().map(|x| x.to_bits()).collect(),
            Values::Decimal { unscaled, .. } => unscaled.iter().map(|&x| x as u64).collect(),
            Values::Date32(v) => v.iter().map(|&x| x as u64).collect(),
            Values::Bool(v) => v.iter().map(|&x| u64::from(x)).collect(),
            Values::Utf8(v) => {
                let mut ids = std::collections::HashMap::new();
                v.iter()
                    .map(|text| {
                        let next = ids.len() as u64;
                        *ids.entry(text.as_str()).or_insert(next)
                    })
                    .collect()
            }
        };
        if keys.len() != rows {
            return None;
        }
        for (tuple, key) in tuples.iter_mut().zip(keys) {
            tuple.push(key);
        }
    }
    let distinct = tuples
        .into_iter()
        .collect::<std::collections::HashSet<_>>()
        .len();
    Some(distinct == rows)
}

/// A table: named columns of the encodings crate, all with the same number of rows.
///
/// # Example
/// ```
/// use smartarrays_encodings::{ColumnOptions, Values};
/// use smartarrays_query::Table;
/// let table = Table::from_values("t", vec![
///     ("id".to_string(), Values::Int64(vec![1, 2, 3])),
///     ("name".to_string(), Values::Utf8(vec!["a".into(), "b".into(), "a".into()])),
/// ], &ColumnOptions::new()).unwrap();
/// assert_eq!(table.rows(), 3);
/// assert!(table.column("NAME").is_some());
/// ```
#[derive(Debug)]
pub struct Table {
    name: String,
    rows: usize,
    columns: Vec<TableColumn>,
    /// Why the columns are placed where they are, when the engine chose it.
    placement_reason: Option<String>,
}

impl Table {
    /// A table of already built columns ([`QueryError::InvalidTable`] when their lengths
    /// differ or a name repeats).
    pub fn new(name: &str, columns: Vec<TableColumn>) -> Result<Table> {
        let name = name.to_lowercase();
        let rows = columns.first().map_or(0, |c| c.column.len());
        let mut seen = std::collections::BTreeSet::new();
        for column in &columns {
            if column.column.len() != rows {
                return Err(QueryError::InvalidTable {
                    table: name,
                    message: format!(
                        "column {} has {} rows, column {} has {rows}",
                        column.name,
                        column.column.len(),
                        columns[0].name
                    ),
                });
            }
            if !seen.insert(column.name.to_lowercase()) {
                return Err(QueryError::InvalidTable {
                    table: name,
                    message: format!("column {} appears twice", column.name),
                });
            }
        }
        let columns = columns
            .into_iter()
            .map(|c| TableColumn::new(&c.name, c.column))
            .collect();
        Ok(Table {
            name,
            rows,
            columns,
            placement_reason: None,
        })
    }

    /// A table from plain values, each column compressed by the sampling compressor. With
    /// placement `auto` in `options`, the table's placement is chosen for the whole table by
    /// [`TablePlacement::choose`] (replicated when small, interleaved when large, as the OS
    /// places it on one node) and [`Table::placement_reason`] says why.
    pub fn from_values(
        name: &str,
        columns: Vec<(String, Values)>,
        options: &ColumnOptions,
    ) -> Result<Table> {
        let mut options = options.clone();
        let reason = if options.array.placement == Placement::Auto {
            let topology = match &options.array.runtime {
                Some(runtime) => std::sync::Arc::clone(runtime.topology()),
                None => Topology::current()?,
            };
            let choice = TablePlacement::choose(decoded_bytes(&columns), &topology);
            options.array.placement = choice.placement;
            Some(choice.reason)
        } else {
            None
        };
        let mut built = Vec::with_capacity(columns.len());
        for (column_name, values) in columns {
            built.push(TableColumn::new(
                &column_name,
                column_from_values(values, &options)?,
            ));
        }
        let mut table = Table::new(name, built)?;
        table.placement_reason = reason;
        Ok(table)
    }

    /// Where the table's columns are (that of its first column; `os` for a table without
    /// columns).
    pub fn placement(&self) -> Placement {
        self.columns
            .first()
            .map_or(Placement::OsDefault, |c| c.column.placement().clone())
    }

    /// Why the engine placed the table where it is, when it chose (placement `auto`); `None`
    /// when the caller gave the placement.
    pub fn placement_reason(&self) -> Option<&str> {
        self.placement_reason.as_deref()
    }

    /// The columns, moved out of the table.
    pub(crate) fn into_columns(self) -> Vec<TableColumn> {
        self.columns
    }

    /// Gives the table another name (lower-cased).
    pub fn rename(&mut self, name: &str) {
        self.name = name.to_lowercase();
    }

    /// The table's name (lower case).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[TableColumn] {
        &self.columns
    }

    /// The column called `name` (without case), if any.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.column_index(name).map(|i| &self.columns[i].column)
    }

    /// The position of the column called `name` (without case), if any.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        let name = name.to_lowercase();
        self.columns.iter().position(|c| c.name == name)
    }

    /// Bytes of memory the table's columns occupy.
    pub fn memory_bytes(&self) -> usize {
        self.columns.iter().map(|c| c.column.memory_bytes()).sum()
    }

    /// Bytes of the encoded data, densely packed.
    pub fn packed_bytes(&self) -> usize {
        self.columns.iter().map(|c| c.column.packed_bytes()).sum()
    }

    /// One line per column: name, type, encoding, bits per value.
    pub fn describe(&self) -> String {
        let mut out = format!("table {} ({} rows)\n", self.name, self.rows);
        for c in &self.columns {
            let bits = if self.rows == 0 {
                0.0
            } else {
                c.column.packed_bytes() as f64 * 8.0 / self.rows as f64
            };
            out.push_str(&format!(
                "  {:<18} {:<12} {:<10} {:>6.2} bits/row\n",
                c.name,
                c.column.data_type().to_string(),
                c.column.encoding_kind().name(),
                bits
            ));
        }
        out
    }
}

/// Builds a column of `values` with the sampling compressor.
pub fn column_from_values(values: Values, options: &ColumnOptions) -> Result<Column> {
    Ok(match values {
        Values::UInt64(v) => Column::from_u64(&v, options)?,
        Values::Int64(v) => Column::from_i64(&v, options)?,
        Values::Float64(v) => Column::from_f64(&v, options)?,
        Values::Decimal { unscaled, scale } => Column::from_decimal(&unscaled, scale, options)?,
        Values::Date32(v) => Column::from_dates(&v, options)?,
        Values::Utf8(v) => Column::from_strs(&v, options)?,
        Values::Bool(v) => Column::from_bool(&v, options)?,
    })
}

/// The tables a query can name, by lower-case name.
///
/// # Example
/// ```
/// use smartarrays_encodings::{ColumnOptions, Values};
/// use smartarrays_query::{Catalog, Table};
/// let mut catalog = Catalog::new();
/// catalog.insert(Table::from_values("t", vec![("x".into(), Values::Int64(vec![5]))], &ColumnOptions::new()).unwrap());
/// assert!(catalog.get("T").is_some());
/// ```
#[derive(Debug, Default)]
pub struct Catalog {
    tables: BTreeMap<String, Arc<Table>>,
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Adds (or replaces) a table under its name.
    pub fn insert(&mut self, table: Table) {
        self.tables
            .insert(table.name().to_string(), Arc::new(table));
    }

    /// Adds (or replaces) a table shared with others (the Python, C and Java bindings keep
    /// tables in several catalogs), under `name` (lower-cased), whatever the table's own name.
    pub fn insert_shared(&mut self, name: &str, table: Arc<Table>) {
        self.tables.insert(name.to_lowercase(), table);
    }

    /// The table called `name` (without case).
    pub fn get(&self, name: &str) -> Option<&Table> {
        self.tables.get(&name.to_lowercase()).map(|t| &**t)
    }

    /// The table called `name` (without case), shared.
    pub fn get_shared(&self, name: &str) -> Option<Arc<Table>> {
        self.tables.get(&name.to_lowercase()).cloned()
    }

    /// Removes the table called `name` (without case) and returns it.
    pub fn remove(&mut self, name: &str) -> Option<Arc<Table>> {
        self.tables.remove(&name.to_lowercase())
    }

    /// The tables, by name.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.values().map(|t| &**t)
    }

    /// The names the tables are known by, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables.keys().map(String::as_str)
    }

    /// Bytes of memory all tables occupy.
    pub fn memory_bytes(&self) -> usize {
        self.tables.values().map(|t| t.memory_bytes()).sum()
    }
}
