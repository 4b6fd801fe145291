//! Matching a query that reads one relation: a single SELECT whose FROM is one item without
//! joins, and a subquery in FROM with an alias. The shapes answered on that relation's rows
//! ([`crate::prefix`], [`crate::project`], and a groups table only renamed in `lib.rs`) share
//! this matcher and check the rest of their shape (ORDER BY, LIMIT, grouping, outputs)
//! themselves; inlining ([`crate::inline`]) and materializing subqueries in FROM share
//! [`aliased_subquery`].

use sqlparser::ast::{
    GroupByExpr, Query, Select, SetExpr, TableAlias, TableFactor, TableWithJoins,
};

/// `query`'s SELECT and the one relation in its FROM when `query` is a single SELECT with no
/// WITH, WHERE, HAVING or DISTINCT, and its FROM is one item without joins.
pub(crate) fn sole_relation(query: &Query) -> Option<(&Select, &TableFactor)> {
    if query.with.is_some() {
        return None;
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    if select.selection.is_some() || select.having.is_some() || select.distinct.is_some() {
        return None;
    }
    let [TableWithJoins { relation, joins }] = &select.from[..] else {
        return None;
    };
    joins.is_empty().then_some((select, relation))
}

/// The subquery and its alias when `relation` is a subquery (not `LATERAL`) with an alias
/// (which may list column names).
pub(crate) fn aliased_subquery(relation: &TableFactor) -> Option<(&Query, &TableAlias)> {
    match relation {
        TableFactor::Derived {
            lateral: false,
            subquery,
            alias: Some(alias),
        } => Some((subquery, alias)),
        _ => None,
    }
}

/// [`sole_relation`] where that relation is an [`aliased_subquery`] whose alias lists no
/// column names: the SELECT, the subquery and its alias.
pub(crate) fn sole_derived(query: &Query) -> Option<(&Select, &Query, &TableAlias)> {
    let (select, relation) = sole_relation(query)?;
    let (subquery, alias) = aliased_subquery(relation)?;
    alias
        .columns
        .is_empty()
        .then_some((select, subquery, alias))
}

/// Whether `select` has no GROUP BY (not even `GROUP BY ALL` or a modifier).
pub(crate) fn ungrouped(select: &Select) -> bool {
    matches!(&select.group_by, GroupByExpr::Expressions(g, m) if g.is_empty() && m.is_empty())
}
