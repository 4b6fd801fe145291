//! The tables a query can name: the catalog's, plus the results of its common table
//! expressions (`WITH`) and subqueries in FROM, materialized as tables of their own before
//! the query that reads them is bound.

use std::sync::Arc;

use sqlparser::ast::TableAlias;

use smartarrays_encodings::{ColumnOptions, Values};

use crate::bind::ident_position;
use crate::error::{QueryError, Result};
use crate::table::{Catalog, Table};
use crate::value::{rescale_i128, ResultSet, Type, Value};

/// The catalog and the materialized tables in scope (the latest shadows an earlier one, and
/// any of them the catalog's table of the same name).
#[derive(Clone)]
pub(crate) struct Scope<'c> {
    catalog: &'c Catalog,
    temps: Vec<Arc<Table>>,
}

impl<'c> Scope<'c> {
    /// The catalog's tables only.
    pub(crate) fn new(catalog: &'c Catalog) -> Scope<'c> {
        Scope {
            catalog,
            temps: Vec::new(),
        }
    }

    /// The table a FROM clause names, with its lower-case name; an unknown one is
    /// [`QueryError::UnknownTable`] at the name's position.
    pub(crate) fn named(&self, name: &sqlparser::ast::ObjectName) -> Result<(&Table, String)> {
        let table_name = name.to_string().to_lowercase();
        match self.get(&table_name) {
            Some(table) => Ok((table, table_name)),
            None => Err(QueryError::UnknownTable {
                name: table_name,
                position: crate::bind::position_of(name),
            }),
        }
    }

    /// The table called `name` (lower case).
    pub(crate) fn get(&self, name: &str) -> Option<&Table> {
        let name = name.to_lowercase();
        self.temps
            .iter()
            .rev()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
            .or_else(|| self.catalog.get(&name))
    }

    /// Whether any table in scope has a column called `name` (lower case): a name that none
    /// has is unknown wherever it stands.
    pub(crate) fn has_column(&self, name: &str) -> bool {
        self.catalog
            .tables()
            .chain(self.temps.iter().map(|t| t.as_ref()))
            .any(|t| t.columns().iter().any(|c| c.name == name))
    }

    /// Adds a materialized table.
    pub(crate) fn push(&mut self, table: Table) {
        self.temps.push(Arc::new(table));
    }
}

/// The rows of a subquery as a table called `alias` (its column list, if any, renames the
/// columns). Doubles and nulls are kept as they are: a query that reads such a column gets the
/// binder's error naming it.
pub(crate) fn table_from_result(alias: &TableAlias, rows: ResultSet) -> Result<Table> {
    let name = alias.name.value.to_lowercase();
    let names: Vec<String> = if alias.columns.is_empty() {
        rows.names.clone()
    } else {
        if alias.columns.len() != rows.names.len() {
            return Err(QueryError::type_error(
                format!(
                    "{name} names {} columns, its query returns {}",
                    alias.columns.len(),
                    rows.names.len()
                ),
                ident_position(&alias.name),
            ));
        }
        alias
            .columns
            .iter()
            .map(|c| c.name.value.to_lowercase())
            .collect()
    };
    let mut columns = Vec::with_capacity(names.len());
    for (c, (column_name, ty)) in names.into_iter().zip(&rows.types).enumerate() {
        let cells = rows.rows.iter().map(|r| &r[c]);
        if rows.rows.iter().any(|r| r[c] == Value::Null) {
            return Err(QueryError::unsupported(
                format!("column {column_name} of {name} with nulls"),
                ident_position(&alias.name),
            ));
        }
        let values = match ty {
            Type::Int => Values::Int64(cells.map(|v| exact_i64(v, 0)).collect::<Result<_>>()?),
            Type::Decimal(scale) => Values::Decimal {
                unscaled: cells.map(|v| exact_i64(v, *scale)).collect::<Result<_>>()?,
                scale: *scale,
            },
            Type::Date => Values::Date32(
                cells
                    .map(|v| match v {
                        Value::Date(d) => *d,
                        _ => 0,
                    })
                    .collect(),
            ),
            Type::Str => Values::Utf8(
                cells
                    .map(|v| match v {
                        Value::Str(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
            ),
            Type::Bool => Values::Bool(cells.map(|v| *v == Value::Bool(true)).collect()),
            Type::Float => Values::Float64(cells.map(|v| v.as_f64().unwrap_or(0.0)).collect()),
        };
        columns.push((column_name, values));
    }
    Table::from_values(&name, columns, &ColumnOptions::new())
}

/// An exact value at `scale`, as a 64-bit integer (an error when it does not fit).
pub(crate) fn exact_i64(v: &Value, scale: u8) -> Result<i64> {
    let (unscaled, s) = v.as_exact().ok_or_else(|| {
        QueryError::type_error(
            format!("{v} in a column of numbers"),
            crate::Position::default(),
        )
    })?;
    let at = if s <= scale {
        rescale_i128(unscaled, scale - s)?
    } else {
        unscaled / crate::value::pow10(u32::from(s - scale))
    };
    i64::try_from(at).map_err(|_| QueryError::Overflow(format!("{v} does not fit 64 bits")))
}
