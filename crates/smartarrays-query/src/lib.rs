//! # smartarrays-query
//!
//! Relational pipelines over smart-array tables (issue 14, first landing): a [`Table`] is named
//! typed columns of `smartarrays-encodings` with one row count; [`tpch`] generates the TPC-H
//! tables in this process; [`sql`] parses SQL with `sqlparser`, binds it against a [`Catalog`]
//! with our own binder, plans a tree of push pipelines and runs them morsel by morsel on the
//! core's pinned [`smartarrays::Runtime`].
//!
//! A pipeline decodes vectors of rows from the packed arrays with the codec's kernels,
//! evaluates filters on the codes first (constants translated once through a frame's base or a
//! dictionary) and the join partners' key bitmaps on the key columns' codes (semi-join
//! filters), decodes the other columns for the surviving rows only, runs residual filters and
//! join probes (rank lookups in the key bitmap, or the collections crate's hash map) on the
//! decoded batch, and hands it to its sink: an aggregation on direct arrays (small dictionary
//! keys, like TPC-H Q1's flags, or packed keys of few bits) or on the collections crate's hash
//! map, or a collection of rows. Text travels as row ids and is read only where needed.
//! Uncorrelated `IN (subquery)` runs first and becomes an IN list. Decimals are scaled integers, row arithmetic is checked
//! 64-bit, sums are 128-bit: an overflow is an error, never a wrong answer.
//!
//! # Example
//! ```
//! use smartarrays_encodings::ColumnOptions;
//! use smartarrays_query::{sql, tpch, Value};
//! let catalog = tpch::generate(0.001, &ColumnOptions::new(), |_, _, _| {}).unwrap();
//! let result = sql(&catalog, "select count(*) as n, sum(l_quantity) as q from lineitem where l_discount between 0.05 and 0.07").unwrap();
//! assert_eq!(result.names, ["n", "q"]);
//! assert!(matches!(result.rows[0][0], Value::Int(n) if n > 0));
//! let error = sql(&catalog, "select l_nothing from lineitem").unwrap_err();
//! assert_eq!(error.to_string(), "unknown column l_nothing (line 1, column 8)");
//! ```

mod bind;
mod budget;
pub mod error;
mod exec;
pub mod queries;
pub mod table;
pub mod tpch;
pub mod value;
mod vector;

use std::sync::Arc;

use smartarrays::Runtime;

pub use budget::{default_memory_limit, MEMORY_LIMIT_ENV};
pub use error::{Position, QueryError, Result};
/// The encodings crate, re-exported: build a [`Table`]'s columns with its options and values.
pub use smartarrays_encodings as encodings;
pub use table::{Catalog, Table, TableColumn};
pub use value::{ResultSet, Type, Value};

/// How to run a query.
#[derive(Clone, Debug, Default)]
pub struct QueryOptions {
    /// The workers to run on (`None`: the process-wide runtime, see
    /// [`Runtime::global`](smartarrays::Runtime::global)).
    pub runtime: Option<Arc<Runtime>>,
    /// Bytes the query's hash builds, aggregation tables and collected rows may hold together
    /// (`None`: [`default_memory_limit`], the `SMARTARRAYS_QUERY_MEMORY` environment variable or
    /// the memory available). Past it the query fails with [`QueryError::MemoryLimit`].
    pub memory_limit: Option<usize>,
}

impl QueryOptions {
    /// Runs on `threads` workers of a runtime of their own.
    pub fn threads(threads: usize) -> Result<QueryOptions> {
        Ok(QueryOptions {
            runtime: Some(Arc::new(Runtime::with_threads(threads)?)),
            memory_limit: None,
        })
    }

    /// The same options with a memory budget of `bytes` for each query.
    ///
    /// ```
    /// use smartarrays_query::{sql_with, tpch, QueryError, QueryOptions};
    /// let catalog = tpch::generate(0.001, &Default::default(), |_, _, _| {}).unwrap();
    /// let tight = QueryOptions::default().with_memory_limit(1024);
    /// let error = sql_with(&catalog, "select l_orderkey, count(*) from lineitem group by l_orderkey", &tight);
    /// assert!(matches!(error, Err(QueryError::MemoryLimit { limit: 1024, .. })));
    /// ```
    pub fn with_memory_limit(mut self, bytes: usize) -> QueryOptions {
        self.memory_limit = Some(bytes);
        self
    }

    fn runtime(&self) -> Result<Arc<Runtime>> {
        match &self.runtime {
            Some(r) => Ok(Arc::clone(r)),
            None => Ok(Runtime::global()?),
        }
    }
}

/// What a statement returns: rows, or the plan of an `EXPLAIN`.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A query's rows.
    Rows(ResultSet),
    /// An `EXPLAIN`'s text.
    Plan(String),
}

/// Runs one SQL statement (a query or `EXPLAIN` of one) over `catalog`.
///
/// An uncorrelated `IN (subquery)` runs first, on the same workers, and its rows become the IN
/// list of the outer query (also under `EXPLAIN`, whose plan shows that list's size).
pub fn execute(catalog: &Catalog, sql: &str, options: &QueryOptions) -> Result<Output> {
    let (query, explain) = bind::parse(sql)?;
    let runtime = options.runtime()?;
    let budget = budget::Budget::new(match options.memory_limit {
        Some(limit) => limit,
        None => default_memory_limit()?,
    });
    let bound = bind_with_subqueries(&query, catalog, &runtime, &budget)?;
    let plan = exec::Plan::new(bound)?;
    if explain {
        return Ok(Output::Plan(plan.explain()));
    }
    Ok(Output::Rows(plan.run(&runtime, &budget)?))
}

/// Binds `query`, running its subqueries on `runtime`.
fn bind_with_subqueries<'a>(
    query: &sqlparser::ast::Query,
    catalog: &'a Catalog,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
) -> Result<bind::BoundQuery<'a>> {
    bind::bind(query, catalog, &|sub| {
        let bound = bind_with_subqueries(sub, catalog, runtime, budget)?;
        exec::Plan::new(bound)?.run(runtime, budget)
    })
}

/// Runs a query over `catalog` on the process-wide runtime and returns its rows.
pub fn sql(catalog: &Catalog, sql: &str) -> Result<ResultSet> {
    sql_with(catalog, sql, &QueryOptions::default())
}

/// Runs a query over `catalog` with `options`.
pub fn sql_with(catalog: &Catalog, sql: &str, options: &QueryOptions) -> Result<ResultSet> {
    match execute(catalog, sql, options)? {
        Output::Rows(rows) => Ok(rows),
        Output::Plan(plan) => Ok(ResultSet {
            names: vec!["plan".to_string()],
            types: vec![Type::Str],
            rows: plan
                .lines()
                .map(|l| vec![Value::Str(l.to_string())])
                .collect(),
        }),
    }
}

/// The plan of a query as text: pipelines, encodings, code-space filters, joins, sinks.
pub fn explain(catalog: &Catalog, sql: &str) -> Result<String> {
    let (query, _) = bind::parse(sql)?;
    let budget = budget::Budget::new(default_memory_limit()?);
    let bound = bind_with_subqueries(&query, catalog, &Runtime::global()?, &budget)?;
    Ok(exec::Plan::new(bound)?.explain())
}

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
