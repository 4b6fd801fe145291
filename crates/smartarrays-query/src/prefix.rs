//! Counting the groups of a grouped derived table per prefix of its keys.
//!
//! `select k_1, .., k_n, count(*) from (select k_1, .., k_n, x from .. group by k_1, .., k_n,
//! x) as d group by k_1, .., k_n` counts the distinct `x` per group of the first keys (the
//! rewrite of `count(DISTINCT x)` writes it, see [`crate::rewrite`]). Where the derived table
//! groups on packed keys ([`crate::exec::Plan::run_prefix_counts`]), its groups are counted
//! straight from their packed keys with the field of `x` removed: the derived table's rows are
//! never built, nor a table of them.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Query, SelectItem, SetExpr,
};

/// The derived query and the output names (the keys', then the count's) when `query` has the
/// shape above (checked on the syntax; the plan checks the derived query's grouping).
pub(crate) fn prefix_count_shape(query: &Query) -> Option<(&Query, Vec<String>)> {
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return None;
    }
    let (select, subquery, _) = crate::sole::sole_derived(query)?;
    let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else {
        return None;
    };
    let n = groups.len();
    if n == 0 || !modifiers.is_empty() || select.projection.len() != n + 1 {
        return None;
    }
    let mut names = Vec::with_capacity(n + 1);
    for (item, group) in select.projection[..n].iter().zip(groups) {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(e) => (e, column_name(e)?),
            SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.to_lowercase()),
            _ => return None,
        };
        if column_name(expr)? != column_name(group)? {
            return None;
        }
        names.push(name);
    }
    let (count, name) = match &select.projection[n] {
        SelectItem::UnnamedExpr(e) => (e, crate::bind::output_name(e)),
        SelectItem::ExprWithAlias { expr, alias } => (expr, alias.value.to_lowercase()),
        _ => return None,
    };
    if !is_count_star(count) {
        return None;
    }
    names.push(name);
    // The derived query outputs the grouping keys first, in the same order, then `x`.
    let SetExpr::Select(inner) = subquery.body.as_ref() else {
        return None;
    };
    if inner.projection.len() != n + 1 {
        return None;
    }
    for (item, group) in inner.projection[..n].iter().zip(groups) {
        let name = match item {
            SelectItem::UnnamedExpr(e) => column_name(e)?,
            SelectItem::ExprWithAlias { alias, .. } => alias.value.to_lowercase(),
            _ => return None,
        };
        if name != column_name(group)? {
            return None;
        }
    }
    // Another output with the name of a grouping key would make the name ambiguous.
    let last = match &inner.projection[n] {
        SelectItem::UnnamedExpr(e) => crate::bind::output_name(e),
        SelectItem::ExprWithAlias { alias, .. } => alias.value.to_lowercase(),
        _ => return None,
    };
    if groups
        .iter()
        .any(|g| column_name(g).as_ref() == Some(&last))
    {
        return None;
    }
    Some((subquery, names))
}

/// The column an identifier (or `alias.column`) names, lower case.
fn column_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Some(crate::bind::output_name(e)),
        Expr::Nested(inner) => column_name(inner),
        _ => None,
    }
}

/// `count(*)`.
fn is_count_star(e: &Expr) -> bool {
    let Expr::Function(f) = e else {
        return false;
    };
    if !f.name.to_string().eq_ignore_ascii_case("count")
        || f.filter.is_some()
        || f.over.is_some()
        || !f.within_group.is_empty()
    {
        return false;
    }
    let FunctionArguments::List(list) = &f.args else {
        return false;
    };
    list.duplicate_treatment.is_none()
        && list.clauses.is_empty()
        && matches!(
            list.args.as_slice(),
            [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]
        )
}
