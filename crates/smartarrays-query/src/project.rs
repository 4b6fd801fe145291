//! A query that only renames and sorts the columns of one subquery in FROM, answered on the
//! subquery's rows.
//!
//! `select c_1 [as n_1], .., c_k [as n_k] from (subquery) as d order by ..` (no WHERE,
//! grouping, DISTINCT or LIMIT; each output a column of `d`; each sort key an output's name or
//! position, or a column of `d`) picks and sorts the subquery's result rows directly: the rows
//! are not compressed into a table to be scanned again. The rewrite of a grouped
//! `count(DISTINCT x)` with ORDER BY (TPC-H Q16) has this shape.

use sqlparser::ast::{Expr, OrderByKind, Query, SelectItem, SetExpr, Value as AstValue};

use crate::error::Result;
use crate::scope::Scope;
use crate::value::ResultSet;

/// `query`'s result through [`projection_shape`] when it has that shape once rewritten (the
/// rewrite of `count(DISTINCT)` writes it), its subquery run by `run`; `None` otherwise (run
/// the query as written). Only queries that plan the same way either way qualify: no WITH, no
/// JOIN (a left join is answered from its groups), nothing inlined.
pub(crate) fn run_projection(
    query: &Query,
    scope: &Scope<'_>,
    run: &dyn Fn(&Query) -> Result<ResultSet>,
) -> Result<Option<ResultSet>> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Ok(None);
    };
    if query.with.is_some()
        || select.from.iter().any(|f| !f.joins.is_empty())
        || crate::inline::inline_derived(query).is_some()
    {
        return Ok(None);
    }
    let rewritten = crate::rewrite::rewrite(query, scope)?;
    let Some(projection) = projection_shape(&rewritten) else {
        return Ok(None);
    };
    let rows = run(projection.subquery)?;
    projection.apply(rows)
}

/// An output's source: a column named in `d`, by name (resolved on the rows' names).
struct Output {
    name: String,
    source: String,
}

/// A sort key: an output (by index) or a column of `d` (by name), and whether descending.
enum SortKey {
    Output(usize),
    Column(String),
}

/// The shape above, checked on the syntax: the subquery and how to pick and sort its rows.
pub(crate) struct Projection<'q> {
    /// The subquery in FROM.
    pub(crate) subquery: &'q Query,
    outputs: Vec<Output>,
    order: Vec<(SortKey, bool)>,
}

/// The column an identifier (or `d.column`) names, lower case.
fn column_name(e: &Expr, alias: &str) -> Option<String> {
    match e {
        Expr::Identifier(i) => Some(i.value.to_lowercase()),
        Expr::CompoundIdentifier(parts)
            if parts.len() == 2 && parts[0].value.to_lowercase() == alias =>
        {
            Some(parts[1].value.to_lowercase())
        }
        Expr::Nested(inner) => column_name(inner, alias),
        _ => None,
    }
}

/// `query` as a [`Projection`] when it has the shape of the module docs.
pub(crate) fn projection_shape(query: &Query) -> Option<Projection<'_>> {
    if query.limit_clause.is_some() || query.fetch.is_some() || !query.locks.is_empty() {
        return None;
    }
    let (select, subquery, alias) = crate::sole::sole_derived(query)?;
    let plain = select.top.is_none()
        && select.qualify.is_none()
        && select.named_window.is_empty()
        && crate::sole::ungrouped(select);
    if !plain || subquery.with.is_some() {
        return None;
    }
    // The subquery runs as a query of its own only when it has no joins (a left join is
    // answered from its groups, see `crate::outer`) and is not inlined into this one.
    match subquery.body.as_ref() {
        SetExpr::Select(inner) if inner.from.iter().all(|f| f.joins.is_empty()) => {}
        _ => return None,
    }
    if crate::inline::inline_derived(query).is_some() {
        return None;
    }
    let alias = alias.name.value.to_lowercase();
    let mut outputs = Vec::with_capacity(select.projection.len());
    // Per output: (its name, whether it is the plain column of that name).
    let mut items: Vec<(String, bool)> = Vec::with_capacity(select.projection.len());
    for item in &select.projection {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, crate::bind::output_name(e)),
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.to_lowercase()),
            _ => return None,
        };
        let source = column_name(expr, &alias)?;
        let plain = matches!(expr, Expr::Identifier(i) if i.value.to_lowercase() == name);
        items.push((name.clone(), plain));
        outputs.push(Output { name, source });
    }
    if outputs.is_empty() {
        return None;
    }
    let mut order = Vec::new();
    if let Some(order_by) = &query.order_by {
        let OrderByKind::Expressions(list) = &order_by.kind else {
            return None;
        };
        if order_by.interpolate.is_some() {
            return None;
        }
        for o in list {
            if o.with_fill.is_some() || o.options.nulls_first.is_some() {
                return None;
            }
            let desc = o.options.asc == Some(false);
            // As the binder resolves ORDER BY: an output's alias (not a plain column of the
            // same name), a position, else a column of the subquery.
            let key = match &o.expr {
                Expr::Identifier(i) => {
                    let name = i.value.to_lowercase();
                    match items.iter().position(|(n, plain)| *n == name && !plain) {
                        Some(k) => SortKey::Output(k),
                        None => SortKey::Column(name),
                    }
                }
                Expr::Value(v) => match &v.value {
                    AstValue::Number(n, _) => {
                        let k: usize = n.parse().ok()?;
                        if k == 0 || k > outputs.len() {
                            return None;
                        }
                        SortKey::Output(k - 1)
                    }
                    _ => return None,
                },
                e => SortKey::Column(column_name(e, &alias)?),
            };
            order.push((key, desc));
        }
    }
    Some(Projection {
        subquery,
        outputs,
        order,
    })
}

impl Projection<'_> {
    /// The query's result from the subquery's `rows`; `None` when a name does not resolve to
    /// exactly one of their columns (the caller then runs the query as written, which
    /// reports any error).
    pub(crate) fn apply(&self, rows: ResultSet) -> Result<Option<ResultSet>> {
        let column = |name: &str| -> Option<usize> {
            let mut found = rows.names.iter().enumerate().filter(|(_, n)| *n == name);
            let (c, _) = found.next()?;
            found.next().is_none().then_some(c)
        };
        let mut picks = Vec::with_capacity(self.outputs.len());
        for o in &self.outputs {
            let Some(c) = column(&o.source) else {
                return Ok(None);
            };
            picks.push(c);
        }
        let mut keys = Vec::with_capacity(self.order.len());
        for (key, desc) in &self.order {
            let c = match key {
                SortKey::Output(k) => picks[*k],
                SortKey::Column(name) => match column(name) {
                    Some(c) => c,
                    None => return Ok(None),
                },
            };
            keys.push((c, *desc));
        }
        let mut all = rows.rows;
        // Stable, like the plan's ORDER BY: ties keep the subquery's order.
        all.sort_by(|a, b| {
            for &(c, desc) in &keys {
                let o = a[c].sort_cmp(&b[c]);
                let o = if desc { o.reverse() } else { o };
                if o.is_ne() {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        // Each column taken once moves out of its row; one picked twice is copied.
        let repeated = (1..picks.len()).any(|i| picks[..i].contains(&picks[i]));
        let out = all
            .into_iter()
            .map(|mut row| {
                picks
                    .iter()
                    .map(|&c| {
                        if repeated {
                            row[c].clone()
                        } else {
                            std::mem::replace(&mut row[c], crate::value::Value::Null)
                        }
                    })
                    .collect()
            })
            .collect();
        Ok(Some(ResultSet {
            names: self.outputs.iter().map(|o| o.name.clone()).collect(),
            types: picks.iter().map(|&c| rows.types[c]).collect(),
            rows: out,
        }))
    }
}
