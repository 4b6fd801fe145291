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

pub mod arrow;
mod bind;
mod budget;
mod codes;
pub mod error;
mod exec;
mod implied;
mod inline;
mod keyset;
pub mod load;
mod outer;
pub mod parts;
pub mod placement;
mod prefix;
mod project;
pub mod queries;
mod rewrite;
mod scope;
mod sole;
pub mod store;
pub mod table;
pub mod tpch;
pub mod value;
mod vector;

use std::sync::Arc;

use smartarrays::Runtime;

pub use budget::{default_memory_limit, MEMORY_LIMIT_ENV};
pub use error::{Position, QueryError, Result};
pub use parts::TableParts;
/// The encodings crate, re-exported: build a [`Table`]'s columns with its options and values.
pub use smartarrays_encodings as encodings;
pub use table::{Catalog, Table, TableColumn};
pub use value::{ResultSet, Type, Value};

use scope::Scope;
use value::{Grouped, IntColumns};

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

    fn budget(&self) -> Result<budget::Budget> {
        Ok(budget::Budget::new(match self.memory_limit {
            Some(limit) => limit,
            None => default_memory_limit()?,
        }))
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
/// Subqueries run first, on the same workers: common table expressions (`WITH`) and subqueries
/// in FROM become tables of their own, an uncorrelated `IN (subquery)` becomes an IN list and a
/// scalar subquery a constant (also under `EXPLAIN`, whose plan shows them as such).
pub fn execute(catalog: &Catalog, sql: &str, options: &QueryOptions) -> Result<Output> {
    let (query, explain) = bind::parse(sql)?;
    let runtime = options.runtime()?;
    let budget = options.budget()?;
    let scope = Scope::new(catalog);
    if explain {
        return Ok(Output::Plan(with_plan(
            &query,
            &scope,
            &runtime,
            &budget,
            |plan| Ok(plan.explain()),
        )?));
    }
    Ok(Output::Rows(run_query(&query, &scope, &runtime, &budget)?))
}

/// Runs `query` over the tables of `scope` on `runtime`.
fn run_query(
    query: &sqlparser::ast::Query,
    scope: &Scope<'_>,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
) -> Result<ResultSet> {
    // Columns of one subquery's rows picked and sorted: no table of them.
    if let Some(rows) =
        project::run_projection(query, scope, &|sub| run_query(sub, scope, runtime, budget))?
    {
        return Ok(rows);
    }
    if let Some((derived, names)) = prefix::prefix_count_shape(query) {
        let prefix = names.len() - 1;
        let counted = with_plan(derived, scope, runtime, budget, |plan| {
            if plan.prefix_countable(prefix) {
                plan.run_prefix_counts(prefix, runtime, budget)
            } else {
                Ok(None)
            }
        });
        // Planning failed or the plan does not allow it: the query as written (which
        // reports any error).
        if let Ok(Some(mut rows)) = counted {
            rows.names = names;
            return Ok(rows);
        }
    }
    with_plan(query, scope, runtime, budget, |plan| {
        plan.run(runtime, budget)
    })
}

/// Runs `query` to integer columns (see [`IntColumns`]) straight from its aggregation where
/// the plan allows ([`exec::Plan::run_int_columns`]), else to its rows.
fn run_query_grouped(
    query: &sqlparser::ast::Query,
    scope: &Scope<'_>,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
) -> Result<Grouped> {
    with_plan(query, scope, runtime, budget, |plan| {
        if let Some((ty, set)) = plan.run_key_set(runtime, budget)? {
            return Ok(Grouped::Keys { ty, set });
        }
        if let Some((types, ranges)) = plan.run_key_ranges(runtime, budget)? {
            return Ok(Grouped::Ranges { types, ranges });
        }
        match plan.run_int_columns(runtime, budget)? {
            Some(columns) => Ok(Grouped::Ints(IntColumns {
                types: plan.output_types(),
                columns,
            })),
            None => Ok(Grouped::Rows(plan.run(runtime, budget)?)),
        }
    })
}

/// The table of the subquery in FROM named `alias`. A left join counted per group whose
/// query only renames the groups table's columns ([`outer::left_join_counts`]) is that table,
/// its columns renamed: its rows are never built as values nor compressed a second time.
fn derived_table(
    subquery: &sqlparser::ast::Query,
    alias: &sqlparser::ast::TableAlias,
    scope: &Scope<'_>,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
) -> Result<Table> {
    if subquery.with.is_none() && inline::inline_derived(subquery).is_none() {
        let counted = outer::left_join_counts(subquery, scope, budget, &|sub| {
            run_query_grouped(sub, scope, runtime, budget)
        })?;
        if let Some((groups, over)) = counted {
            if let Some(renames) = renamed_columns(&over, &groups, alias) {
                let mut columns = groups.into_columns();
                let mut out = Vec::with_capacity(renames.len());
                for (name, source) in renames {
                    let mut column = columns.swap_remove(
                        columns
                            .iter()
                            .position(|c| c.name == source)
                            .expect("a column of the groups"),
                    );
                    column.name = name;
                    out.push(column);
                }
                return Table::new(&alias.name.value, out);
            }
            let mut inner = scope.clone();
            inner.push(groups);
            let rows = run_query(&over, &inner, runtime, budget)?;
            return scope::table_from_result(alias, rows);
        }
    }
    let rows = run_query(subquery, scope, runtime, budget)?;
    scope::table_from_result(alias, rows)
}

/// `(output name, column of table)` per output when `query` only selects distinct columns of
/// `table` (no WHERE, grouping, DISTINCT, ORDER BY or LIMIT); `alias`'s column list, if any,
/// names the outputs.
fn renamed_columns(
    query: &sqlparser::ast::Query,
    table: &Table,
    alias: &sqlparser::ast::TableAlias,
) -> Option<Vec<(String, String)>> {
    use sqlparser::ast::{Expr, SelectItem, TableFactor};
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return None;
    }
    let (select, relation) = sole::sole_relation(query)?;
    let plain = sole::ungrouped(select)
        && matches!(relation, TableFactor::Table { name, alias: None, args: None, .. }
            if name.to_string().eq_ignore_ascii_case(table.name()));
    if !plain {
        return None;
    }
    if !alias.columns.is_empty() && alias.columns.len() != select.projection.len() {
        return None;
    }
    let mut renames: Vec<(String, String)> = Vec::with_capacity(select.projection.len());
    for (i, item) in select.projection.iter().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, bind::output_name(e)),
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.to_lowercase()),
            _ => return None,
        };
        // The alias's column list renames the outputs.
        let name = alias
            .columns
            .get(i)
            .map_or(name, |c| c.name.value.to_lowercase());
        let Expr::Identifier(source) = expr else {
            return None;
        };
        let source = source.value.to_lowercase();
        if table.column(&source).is_none()
            || renames.iter().any(|(n, s)| *n == name || *s == source)
        {
            return None;
        }
        renames.push((name, source));
    }
    (!renames.is_empty()).then_some(renames)
}

/// Plans `query` (its subqueries run first, on `runtime`) and hands the plan to `then`.
///
/// A subquery in FROM that only joins, filters and computes row expressions is inlined
/// ([`inline`]) where the query then plans; else (or when the inlined query does not plan)
/// it is materialized as a table.
fn with_plan<R>(
    query: &sqlparser::ast::Query,
    scope: &Scope<'_>,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
    then: impl FnOnce(&exec::Plan<'_>) -> Result<R>,
) -> Result<R> {
    if let Some(inlined) = inline::inline_derived(query) {
        let mut then = Some(then);
        let result = with_plan_as_written(&inlined, scope, runtime, budget, |plan| {
            (then.take().expect("called once"))(plan)
        });
        match (result, then) {
            // Planning the inlined query failed before `then` ran: materialize instead.
            (Err(_), Some(then)) => {
                return with_plan_as_written(query, scope, runtime, budget, then)
            }
            (result, _) => return result,
        }
    }
    with_plan_as_written(query, scope, runtime, budget, then)
}

/// [`with_plan`] without inlining.
fn with_plan_as_written<R>(
    query: &sqlparser::ast::Query,
    scope: &Scope<'_>,
    runtime: &Arc<Runtime>,
    budget: &budget::Budget,
    then: impl FnOnce(&exec::Plan<'_>) -> Result<R>,
) -> Result<R> {
    let mut inner = scope.clone();
    if let Some(with) = &query.with {
        for cte in &with.cte_tables {
            let rows = run_query(&cte.query, &inner, runtime, budget)?;
            inner.push(scope::table_from_result(&cte.alias, rows)?);
        }
    }
    // A left join counted per group becomes the table of its groups (computed now) and the
    // query over it.
    let counted = outer::left_join_counts(query, &inner, budget, &|sub| {
        run_query_grouped(sub, &inner, runtime, budget)
    })?;
    let query = match counted {
        Some((groups, over)) => {
            inner.push(groups);
            std::borrow::Cow::Owned(over)
        }
        None => std::borrow::Cow::Borrowed(query),
    };
    // Correlated subqueries become joins with derived tables or IN subqueries.
    let query = rewrite::rewrite(&query, &inner)?;
    if let sqlparser::ast::SetExpr::Select(select) = query.body.as_ref() {
        for from in &select.from {
            if let Some((subquery, alias)) = sole::aliased_subquery(&from.relation) {
                let table = derived_table(subquery, alias, &inner, runtime, budget)?;
                inner.push(table);
            }
        }
    }
    let bound = bind::bind(
        &query,
        &inner,
        &|sub| run_query(sub, &inner, runtime, budget),
        &|sub| run_query_grouped(sub, &inner, runtime, budget),
    )?;
    then(&exec::Plan::new(bound)?)
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
    let scope = Scope::new(catalog);
    let budget = QueryOptions::default().budget()?;
    with_plan(&query, &scope, &Runtime::global()?, &budget, |plan| {
        Ok(plan.explain())
    })
}

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
