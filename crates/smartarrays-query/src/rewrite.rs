//! Rewrites of the syntax tree before binding: correlated subqueries in WHERE become
//! uncorrelated ones (decorrelation), which the binder then runs first.
//!
//! - `[NOT] EXISTS (select .. from F where inner = outer and local)` becomes
//!   `outer [NOT] IN (select inner from F where local group by inner)`: a semi join (anti join)
//!   on the set of keys. (Columns never hold nulls here, so `NOT IN` and `NOT EXISTS` agree.)
//! - A top-level conjunct `x op (select agg from F where inner_1 = outer_1 and .. and local)`
//!   becomes a join with the derived table `(select inner_1, .., agg from F where local group
//!   by inner_1, ..)` on `outer_i = inner_i`, and `x op` its value: an outer row without a
//!   group is dropped, as the comparison with the subquery's NULL would drop it.
//!
//! - `count(DISTINCT x)` grouped by `g, ..` becomes `count(*)` grouped by `g, ..` over the
//!   derived table `(select g, .., x from .. where .. group by g, .., x)`: each distinct value
//!   once per group.
//!
//! - `[NOT] EXISTS (select .. from F where inner = outer and inner_v <> outer_v and local)`
//!   becomes `[NOT] __exists_other(outer, outer_v, (select inner, min(inner_v), max(inner_v)
//!   from F where local group by inner))`: the rows of a key hold a value other than
//!   `outer_v` exactly when the key has a group and its minimum or maximum is not `outer_v`
//!   (TPC-H Q21). The binder runs the subquery first and tests each row against its groups.
//!
//! A correlated condition other than an equality between an inner and an outer expression (or,
//! in an `EXISTS` with one equality, one `<>`) is an error naming it. A subquery whose tables are not known yet is left as it is: the binder
//! then names what it cannot resolve.

use sqlparser::ast::{
    BinaryOperator, Distinct, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr,
    FunctionArguments, GroupByExpr, Ident, OrderByKind, Query, Select, SelectItem, SetExpr,
    TableAlias, TableFactor, TableWithJoins,
};

use crate::bind::position_of;
use crate::error::{QueryError, Result};
use crate::scope::Scope;
use smartarrays_encodings::DataType;

/// One expression parsed from text this module wrote.
fn parse_expr(text: &str) -> Result<Expr> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::GenericDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| QueryError::Syntax {
            message: e.to_string(),
        })
}

/// The query with the correlated subqueries of its WHERE decorrelated.
pub(crate) fn rewrite(query: &Query, scope: &Scope<'_>) -> Result<Query> {
    let mut query = query.clone();
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(query);
    };
    select_distinct(select);
    let Some(selection) = select.selection.take() else {
        distinct_counts(&mut query)?;
        return Ok(query);
    };
    let mut conjuncts = Vec::new();
    split_and(selection, &mut conjuncts);
    let outer = OuterTables::of(select, &conjuncts, scope);
    let mut kept = Vec::new();
    let mut derived = 0;
    for c in conjuncts {
        match c {
            Expr::Exists { subquery, negated } => {
                kept.push(match exists_to_in(&subquery, negated, scope)? {
                    Some(e) => e,
                    None => Expr::Exists { subquery, negated },
                })
            }
            Expr::BinaryOp { left, op, right } if is_comparison(&op) => {
                // Correlated scalar subqueries in either operand (also inside arithmetic,
                // which passes their NULL on) become joins with derived tables.
                let mut equalities = Vec::new();
                let mut tables = Vec::new();
                let mut joins = Joins {
                    scope,
                    outer: &outer,
                    derived: &mut derived,
                    tables: &mut tables,
                    equalities: &mut equalities,
                };
                let left = joins.scalars_to_joins(*left)?;
                let right = joins.scalars_to_joins(*right)?;
                select.from.extend(tables);
                // The join equalities first: the planner takes the first equality with a
                // unique side as the join key (the group keys are unique).
                kept.extend(equalities);
                kept.push(Expr::BinaryOp {
                    left: Box::new(left),
                    op,
                    right: Box::new(right),
                });
            }
            other => kept.push(other),
        }
    }
    select.selection = join_and(kept);
    distinct_counts(&mut query)?;
    Ok(query)
}

/// `SELECT DISTINCT a, b ..` without aggregates is `SELECT a, b .. GROUP BY a, b ..`.
fn select_distinct(select: &mut Select) {
    if !matches!(select.distinct, Some(Distinct::Distinct)) {
        return;
    }
    let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else {
        return;
    };
    let mut exprs = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let mut found = Vec::new();
                let mut aggregate = false;
                find_distinct(e, &mut found, &mut aggregate);
                if aggregate || !found.is_empty() {
                    return;
                }
                exprs.push(e.clone());
            }
            _ => return,
        }
    }
    if !groups.is_empty() || !modifiers.is_empty() || select.having.is_some() {
        return;
    }
    select.group_by = GroupByExpr::Expressions(exprs, vec![]);
    select.distinct = None;
}

/// The `count(DISTINCT x)` of a function call, if it is one.
fn distinct_count(e: &Expr) -> Option<&Expr> {
    let Expr::Function(f) = e else { return None };
    if f.name.to_string().to_lowercase() != "count" {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match (&list.duplicate_treatment, list.args.as_slice()) {
        (Some(DuplicateTreatment::Distinct), [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))]) => {
            Some(x)
        }
        _ => None,
    }
}

/// Finds the `count(DISTINCT ..)` calls in `e` (their arguments' text), and whether `e` holds
/// another aggregate.
fn find_distinct(e: &Expr, found: &mut Vec<String>, other: &mut bool) {
    if let Some(x) = distinct_count(e) {
        found.push(x.to_string());
        return;
    }
    if let Expr::Function(f) = e {
        if ["sum", "avg", "count", "min", "max"]
            .contains(&f.name.to_string().to_lowercase().as_str())
        {
            *other = true;
        }
    }
    map_expr(e, &mut |sub| {
        find_distinct(sub, found, other);
        None
    });
}

/// Rewrites a query whose only aggregate is `count(DISTINCT x)` (one `x`) over a derived table
/// of the distinct (group, x) pairs.
fn distinct_counts(query: &mut Query) -> Result<()> {
    let snapshot = query.clone();
    let SetExpr::Select(select) = snapshot.body.as_ref() else {
        return Ok(());
    };
    let mut found = Vec::new();
    let mut other = false;
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => exprs.push(e),
            _ => {}
        }
    }
    exprs.extend(select.having.iter());
    if let Some(order) = &snapshot.order_by {
        if let OrderByKind::Expressions(list) = &order.kind {
            exprs.extend(list.iter().map(|o| &o.expr));
        }
    }
    for e in &exprs {
        find_distinct(e, &mut found, &mut other);
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort();
    found.dedup();
    let position = exprs.first().map(|e| position_of(*e)).unwrap_or_default();
    if found.len() > 1 || other {
        return Err(QueryError::unsupported(
            "count(DISTINCT) next to other aggregates or of several expressions",
            position,
        ));
    }
    let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else {
        return Err(QueryError::unsupported(
            "count(DISTINCT) with GROUP BY ALL",
            position,
        ));
    };
    if !modifiers.is_empty() {
        return Err(QueryError::unsupported("GROUP BY modifiers", position));
    }
    let groups = groups.clone();
    let distinct_text = found.remove(0);
    let group_name = |i: usize| format!("__group{i}");
    // The derived table of distinct (group keys, x).
    let mut inner = select.as_ref().clone();
    let mut distinct_expr = None;
    for e in &exprs {
        find_first_distinct(e, &mut distinct_expr);
    }
    let Some(x) = distinct_expr else {
        return Ok(());
    };
    debug_assert_eq!(x.to_string(), distinct_text);
    let mut projection: Vec<SelectItem> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| SelectItem::ExprWithAlias {
            expr: g.clone(),
            alias: Ident::new(group_name(i)),
        })
        .collect();
    projection.push(SelectItem::ExprWithAlias {
        expr: x.clone(),
        alias: Ident::new("__distinct"),
    });
    inner.projection = projection;
    let mut inner_groups = groups.clone();
    inner_groups.push(x);
    inner.group_by = GroupByExpr::Expressions(inner_groups, vec![]);
    inner.having = None;
    let mut inner_query = snapshot.clone();
    inner_query.body = Box::new(SetExpr::Select(Box::new(inner)));
    inner_query.order_by = None;
    inner_query.limit_clause = None;
    inner_query.with = None;
    // The outer query: group keys and count(*) over the derived table.
    let count_star = sqlparser::parser::Parser::new(&sqlparser::dialect::GenericDialect {})
        .try_with_sql("count(*)")
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| QueryError::Syntax {
            message: e.to_string(),
        })?;
    let group_texts: Vec<String> = groups.iter().map(ToString::to_string).collect();
    let mut replace = |e: &Expr| -> Expr {
        replace_expr(e, &mut |sub| {
            if distinct_count(sub).is_some() {
                return Some(count_star.clone());
            }
            let text = sub.to_string();
            group_texts
                .iter()
                .position(|g| *g == text)
                .map(|i| Expr::Identifier(Ident::new(group_name(i))))
        })
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(());
    };
    select.projection = select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) => SelectItem::ExprWithAlias {
                expr: replace(e),
                alias: Ident::new(crate::bind::output_name(e)),
            },
            SelectItem::ExprWithAlias { expr, alias } => SelectItem::ExprWithAlias {
                expr: replace(expr),
                alias: alias.clone(),
            },
            other => other.clone(),
        })
        .collect();
    select.having = select.having.as_ref().map(&mut replace);
    if let Some(order) = &mut query.order_by {
        if let OrderByKind::Expressions(list) = &mut order.kind {
            for o in list {
                o.expr = replace(&o.expr);
            }
        }
    }
    if !groups.is_empty() {
        // Grouped: the derived table counts the distinct pairs per group (one row per group,
        // which `crate::prefix` computes from the pairs' packed keys), and the query reads
        // it row by row, its HAVING a WHERE.
        let count_name = "__distinct_count";
        let counted = |e: &Expr| -> Expr {
            replace_expr(e, &mut |sub| {
                (sub.to_string() == "count(*)").then(|| Expr::Identifier(Ident::new(count_name)))
            })
        };
        for item in &mut select.projection {
            if let SelectItem::ExprWithAlias { expr, .. } = item {
                *expr = counted(expr);
            }
        }
        select.selection = select.having.take().map(|h| counted(&h));
        if let Some(order) = &mut query.order_by {
            if let OrderByKind::Expressions(list) = &mut order.kind {
                for o in list {
                    o.expr = counted(&o.expr);
                }
            }
        }
        let keys: Vec<String> = (0..groups.len()).map(group_name).collect();
        let middle = format!(
            "select {keys}, count(*) as {count_name} from (select 1) as __distinct_pairs \
             group by {keys}",
            keys = keys.join(", ")
        );
        let mut middle =
            sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::GenericDialect {}, &middle)
                .map_err(|e| QueryError::Syntax {
                message: e.to_string(),
            })?;
        let Some(sqlparser::ast::Statement::Query(mut middle)) = middle.pop() else {
            return Ok(());
        };
        if let SetExpr::Select(m) = middle.body.as_mut() {
            if let TableFactor::Derived { subquery, .. } = &mut m.from[0].relation {
                **subquery = inner_query;
            }
        }
        select.group_by = GroupByExpr::Expressions(vec![], vec![]);
        select.from = vec![TableWithJoins {
            relation: TableFactor::Derived {
                lateral: false,
                subquery: middle,
                alias: Some(TableAlias {
                    name: Ident::new("__distinct_rows"),
                    columns: vec![],
                }),
            },
            joins: vec![],
        }];
        return Ok(());
    }
    select.group_by = GroupByExpr::Expressions(
        (0..groups.len())
            .map(|i| Expr::Identifier(Ident::new(group_name(i))))
            .collect(),
        vec![],
    );
    select.selection = None;
    select.from = vec![TableWithJoins {
        relation: TableFactor::Derived {
            lateral: false,
            subquery: Box::new(inner_query),
            alias: Some(TableAlias {
                name: Ident::new("__distinct_rows"),
                columns: vec![],
            }),
        },
        joins: vec![],
    }];
    Ok(())
}

fn find_first_distinct(e: &Expr, out: &mut Option<Expr>) {
    if out.is_some() {
        return;
    }
    if let Some(x) = distinct_count(e) {
        *out = Some(x.clone());
        return;
    }
    map_expr(e, &mut |sub| {
        find_first_distinct(sub, out);
        None
    });
}

/// Calls `f` on each direct child expression of `e` (the kinds this module looks into).
fn map_expr(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    let _ = replace_children(e, f);
}

/// `e` with every subexpression for which `f` gives a replacement replaced (outermost first).
pub(crate) fn replace_expr(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    if let Some(r) = f(e) {
        return r;
    }
    replace_children(e, &mut |sub| Some(replace_expr(sub, f)))
}

/// `e` with each direct child replaced by `f`'s result (kept when `None`).
fn replace_children(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    let mut go = |x: &Expr| f(x).unwrap_or_else(|| x.clone());
    let mut boxed = |x: &Expr| Box::new(go(x));
    match e {
        Expr::BinaryOp { left, op, right } => {
            let left = boxed(left);
            Expr::BinaryOp {
                left,
                op: op.clone(),
                right: boxed(right),
            }
        }
        Expr::UnaryOp { op, expr } => Expr::UnaryOp {
            op: *op,
            expr: boxed(expr),
        },
        Expr::Nested(x) => Expr::Nested(boxed(x)),
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let expr = boxed(expr);
            let low = boxed(low);
            Expr::Between {
                expr,
                negated: *negated,
                low,
                high: boxed(high),
            }
        }
        Expr::Case {
            case_token,
            end_token,
            operand,
            conditions,
            else_result,
        } => {
            let operand = operand.as_ref().map(|x| boxed(x));
            let conditions = conditions
                .iter()
                .map(|w| sqlparser::ast::CaseWhen {
                    condition: *boxed(&w.condition),
                    result: *boxed(&w.result),
                })
                .collect();
            Expr::Case {
                case_token: case_token.clone(),
                end_token: end_token.clone(),
                operand,
                conditions,
                else_result: else_result.as_ref().map(|x| boxed(x)),
            }
        }
        Expr::Function(func) => {
            let mut func = func.clone();
            if let FunctionArguments::List(list) = &mut func.args {
                for arg in &mut list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = arg {
                        *x = *boxed(x);
                    }
                }
            }
            Expr::Function(func)
        }
        other => other.clone(),
    }
}

/// Where [`Joins::scalars_to_joins`] puts what it makes.
struct Joins<'s, 'c> {
    scope: &'s Scope<'c>,
    outer: &'s OuterTables,
    derived: &'s mut usize,
    tables: &'s mut Vec<TableWithJoins>,
    equalities: &'s mut Vec<Expr>,
}

impl Joins<'_, '_> {
    /// `e` with its correlated scalar subqueries (directly, or inside arithmetic) replaced by
    /// the values of derived tables, which are added to `tables` with their join `equalities`.
    fn scalars_to_joins(&mut self, e: Expr) -> Result<Expr> {
        Ok(match e {
            Expr::Subquery(q) => {
                let name = format!("__subquery{}", *self.derived + 1);
                match scalar_to_join(&q, &name, self.scope, self.outer)? {
                    None => Expr::Subquery(q),
                    Some((table, value, joins)) => {
                        *self.derived += 1;
                        self.tables.push(table);
                        self.equalities.extend(joins);
                        value
                    }
                }
            }
            Expr::Nested(x) => Expr::Nested(Box::new(self.scalars_to_joins(*x)?)),
            Expr::UnaryOp { op, expr } => Expr::UnaryOp {
                op,
                expr: Box::new(self.scalars_to_joins(*expr)?),
            },
            Expr::BinaryOp { left, op, right }
                if matches!(
                    op,
                    BinaryOperator::Plus
                        | BinaryOperator::Minus
                        | BinaryOperator::Multiply
                        | BinaryOperator::Divide
                ) =>
            {
                let left = self.scalars_to_joins(*left)?;
                Expr::BinaryOp {
                    left: Box::new(left),
                    op,
                    right: Box::new(self.scalars_to_joins(*right)?),
                }
            }
            other => other,
        })
    }
}

/// The outer query's tables (plain tables of its FROM) with the conjuncts of its WHERE that
/// read one of them alone: what restricts the outer values a correlated subquery is asked
/// for (its "magic set").
struct OuterTables {
    tables: Vec<OuterTable>,
}

struct OuterTable {
    /// The FROM item as written (`lineitem l1`), so that qualified names still resolve.
    text: String,
    alias: String,
    /// (name, type) of each column.
    columns: Vec<(String, DataType)>,
    /// The conjuncts reading this table alone, with the names each reads.
    local: Vec<(Expr, Vec<Vec<Ident>>)>,
}

impl OuterTables {
    fn of(select: &Select, conjuncts: &[Expr], scope: &Scope<'_>) -> OuterTables {
        let mut tables: Vec<OuterTable> = Vec::new();
        for from in &select.from {
            if !from.joins.is_empty() {
                continue;
            }
            if let TableFactor::Table { name, alias, .. } = &from.relation {
                if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                    continue;
                }
                let table_name = name.to_string().to_lowercase();
                let Some(table) = scope.get(&table_name) else {
                    continue;
                };
                tables.push(OuterTable {
                    text: from.relation.to_string(),
                    alias: alias
                        .as_ref()
                        .map_or(table_name, |a| a.name.value.to_lowercase()),
                    columns: table
                        .columns()
                        .iter()
                        .map(|c| (c.name.clone(), c.column.data_type()))
                        .collect(),
                    local: Vec::new(),
                });
            }
        }
        let mut outer = OuterTables { tables };
        for c in conjuncts {
            let mut names = Vec::new();
            // `x IN (uncorrelated subquery)` reads the names of `x`.
            let readable = match c {
                Expr::InSubquery { expr, .. } => identifiers(expr, &mut names),
                other => identifiers(other, &mut names),
            };
            if !readable || names.is_empty() {
                continue;
            }
            let mut owner = None;
            for parts in &names {
                match (outer.resolve(parts), owner) {
                    (Some((t, _)), None) => owner = Some(t),
                    (Some((t, _)), Some(o)) if t == o => {}
                    _ => {
                        owner = None;
                        break;
                    }
                }
            }
            if let Some(t) = owner {
                outer.tables[t].local.push((c.clone(), names));
            }
        }
        outer
    }

    /// The table and column a (possibly qualified) name refers to, when exactly one has it.
    fn resolve(&self, parts: &[Ident]) -> Option<(usize, usize)> {
        let (qualifier, name) = match parts {
            [name] => (None, name.value.to_lowercase()),
            [q, name] => (Some(q.value.to_lowercase()), name.value.to_lowercase()),
            _ => return None,
        };
        let mut found = None;
        for (t, table) in self.tables.iter().enumerate() {
            if qualifier.as_ref().is_some_and(|q| *q != table.alias) {
                continue;
            }
            if let Some(c) = table.columns.iter().position(|(n, _)| *n == name) {
                if found.is_some() {
                    return None;
                }
                found = Some((t, c));
            }
        }
        found
    }

    /// The magic set of a correlation `inner = outer`: a derived table of the distinct values
    /// of `outer` among the rows of its table that pass the outer query's conditions on that
    /// table (`all`: all of them; else only those that read `outer`'s column alone), as
    /// `(select outer as __magic_key from T where .. group by outer)`. `None` when `outer` is
    /// not a column of one outer table, no condition restricts it, or its type is not
    /// `inner_type`.
    fn magic_set(&self, outer: &Expr, inner_type: DataType, all: bool) -> Result<Option<Query>> {
        let parts = match outer {
            Expr::Identifier(i) => vec![i.clone()],
            Expr::CompoundIdentifier(parts) => parts.clone(),
            _ => return Ok(None),
        };
        let Some((t, c)) = self.resolve(&parts) else {
            return Ok(None);
        };
        let table = &self.tables[t];
        if table.columns[c].1 != inner_type {
            return Ok(None);
        }
        let conditions: Vec<Expr> = table
            .local
            .iter()
            .filter(|(_, names)| all || names.iter().all(|n| self.resolve(n) == Some((t, c))))
            .map(|(e, _)| e.clone())
            .collect();
        let Some(condition) = join_and(conditions) else {
            return Ok(None);
        };
        let sql = format!(
            "select {outer} as __magic_key from {} where {condition} group by {outer}",
            table.text
        );
        match crate::bind::parse(&sql)? {
            (query, false) => Ok(Some(query)),
            (_, true) => Ok(None),
        }
    }
}

/// The type of a column of the subquery's tables that `e` names, if it names one.
fn inner_type(e: &Expr, select: &Select, scope: &Scope<'_>) -> Option<DataType> {
    let parts = match e {
        Expr::Identifier(i) => vec![i.clone()],
        Expr::CompoundIdentifier(parts) => parts.clone(),
        _ => return None,
    };
    let (qualifier, name) = match parts.as_slice() {
        [name] => (None, name.value.to_lowercase()),
        [q, name] => (Some(q.value.to_lowercase()), name.value.to_lowercase()),
        _ => return None,
    };
    let mut found = None;
    for from in &select.from {
        let TableFactor::Table { name: t, alias, .. } = &from.relation else {
            return None;
        };
        let table_name = t.to_string().to_lowercase();
        let alias = alias
            .as_ref()
            .map_or(table_name.clone(), |a| a.name.value.to_lowercase());
        if qualifier.as_ref().is_some_and(|q| *q != alias) {
            continue;
        }
        if let Some(column) = scope.get(&table_name)?.column(&name) {
            if found.is_some() {
                return None;
            }
            found = Some(column.data_type());
        }
    }
    found
}

fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    )
}

pub(crate) fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(*left, out);
            split_and(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            split_and(*inner, out)
        }
        other => out.push(other),
    }
}

pub(crate) fn join_and(list: Vec<Expr>) -> Option<Expr> {
    list.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

/// The names a subquery's FROM makes visible: (alias, its columns) per table.
struct Inner {
    tables: Vec<(String, Vec<String>)>,
}

impl Inner {
    /// `None` when a FROM item is not a known table (nothing is rewritten then).
    fn of(select: &Select, scope: &Scope<'_>) -> Option<Inner> {
        let mut tables = Vec::new();
        for from in &select.from {
            if !from.joins.is_empty() {
                return None;
            }
            match &from.relation {
                TableFactor::Table { name, alias, .. } => {
                    let table_name = name.to_string().to_lowercase();
                    let table = scope.get(&table_name)?;
                    let alias = alias
                        .as_ref()
                        .map_or(table_name, |a| a.name.value.to_lowercase());
                    let columns = table.columns().iter().map(|c| c.name.clone()).collect();
                    tables.push((alias, columns));
                }
                _ => return None,
            }
        }
        Some(Inner { tables })
    }

    /// Whether a (possibly qualified) name refers to one of these tables.
    fn resolves(&self, parts: &[Ident]) -> bool {
        match parts {
            [name] => {
                let name = name.value.to_lowercase();
                self.tables.iter().any(|(_, cols)| cols.contains(&name))
            }
            [q, _] => {
                let q = q.value.to_lowercase();
                self.tables.iter().any(|(alias, _)| *alias == q)
            }
            _ => false,
        }
    }

    /// Whether `e` reads names of these tables, and whether it reads other (outer) names.
    /// `None`: an expression this walk does not look into (left as it is).
    fn sides(&self, e: &Expr) -> Option<(bool, bool)> {
        let mut names = Vec::new();
        if !identifiers(e, &mut names) {
            return None;
        }
        let inner = names.iter().any(|n| self.resolves(n));
        let outer = names.iter().any(|n| !self.resolves(n));
        Some((inner, outer))
    }
}

/// Collects the names an expression reads; false for kinds it does not look into.
pub(crate) fn identifiers(e: &Expr, out: &mut Vec<Vec<Ident>>) -> bool {
    match e {
        Expr::Identifier(i) => {
            out.push(vec![i.clone()]);
            true
        }
        Expr::CompoundIdentifier(parts) => {
            out.push(parts.clone());
            true
        }
        Expr::Value(_) | Expr::TypedString(_) | Expr::Interval(_) => true,
        Expr::Nested(a) | Expr::UnaryOp { expr: a, .. } => identifiers(a, out),
        Expr::IsNull(a) | Expr::IsNotNull(a) => identifiers(a, out),
        Expr::BinaryOp { left, right, .. } => identifiers(left, out) && identifiers(right, out),
        Expr::Between {
            expr, low, high, ..
        } => identifiers(expr, out) && identifiers(low, out) && identifiers(high, out),
        Expr::InList { expr, list, .. } => {
            identifiers(expr, out) && list.iter().all(|x| identifiers(x, out))
        }
        Expr::Like { expr, pattern, .. } => identifiers(expr, out) && identifiers(pattern, out),
        Expr::Extract { expr, .. } => identifiers(expr, out),
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            identifiers(expr, out)
                && substring_from.as_ref().is_none_or(|x| identifiers(x, out))
                && substring_for.as_ref().is_none_or(|x| identifiers(x, out))
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_ref().is_none_or(|x| identifiers(x, out))
                && conditions
                    .iter()
                    .all(|w| identifiers(&w.condition, out) && identifiers(&w.result, out))
                && else_result.as_ref().is_none_or(|x| identifiers(x, out))
        }
        _ => false,
    }
}

/// A subquery's plain SELECT, split into its correlated equalities (inner, outer) and its
/// local conjuncts. `Ok(None)`: not one this rewrite handles (left as it is).
struct Correlated {
    select: Select,
    equalities: Vec<(Expr, Expr)>,
    /// Correlated inequalities `inner <> outer` (inner, outer, the condition): only an
    /// `EXISTS` takes one.
    unequal: Vec<(Expr, Expr, Expr)>,
    local: Vec<Expr>,
}

/// The function the rewrite calls a correlated `EXISTS` with an inequality (bound to a test of
/// the subquery's (key, min, max) groups).
pub(crate) const EXISTS_OTHER: &str = "__exists_other";

impl Correlated {
    /// An error for the first correlated inequality, where the caller takes none.
    fn no_inequality(&self) -> Result<()> {
        match self.unequal.first() {
            None => Ok(()),
            Some((_, _, c)) => Err(not_equality(c)),
        }
    }
}

fn not_equality(c: &Expr) -> QueryError {
    QueryError::unsupported(
        format!("the correlated condition {c} (only equalities between a column of the subquery and one outside it)"),
        position_of(c),
    )
}

/// An unknown column in a subquery's condition: a bare name that is neither the subquery's
/// nor any table's in scope (the walk would otherwise take it for an outer column).
fn unknown_name(c: &Expr, inner: &Inner, scope: &Scope<'_>) -> Option<QueryError> {
    let mut names = Vec::new();
    identifiers(c, &mut names);
    names.iter().find_map(|parts| match parts.as_slice() {
        [name] if !inner.resolves(parts) && !scope.has_column(&name.value.to_lowercase()) => {
            Some(QueryError::UnknownColumn {
                name: name.value.clone(),
                position: crate::bind::ident_position(name),
            })
        }
        _ => None,
    })
}

fn correlate(subquery: &Query, scope: &Scope<'_>) -> Result<Option<Correlated>> {
    let SetExpr::Select(select) = subquery.body.as_ref() else {
        return Ok(None);
    };
    if subquery.with.is_some()
        || subquery.order_by.is_some()
        || subquery.limit_clause.is_some()
        || select.distinct.is_some()
        || select.having.is_some()
        || !matches!(&select.group_by, GroupByExpr::Expressions(g, m) if g.is_empty() && m.is_empty())
    {
        return Ok(None);
    }
    let Some(inner) = Inner::of(select, scope) else {
        return Ok(None);
    };
    let mut conjuncts = Vec::new();
    if let Some(w) = &select.selection {
        split_and(w.clone(), &mut conjuncts);
    }
    let mut equalities = Vec::new();
    let mut unequal = Vec::new();
    let mut local = Vec::new();
    for c in conjuncts {
        let Some((_, outer)) = inner.sides(&c) else {
            return Ok(None);
        };
        if !outer {
            local.push(c);
            continue;
        }
        let pair = match &c {
            Expr::BinaryOp {
                left,
                op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq),
                right,
            } => match (inner.sides(left), inner.sides(right)) {
                (Some((true, false)), Some((false, true))) => {
                    Some((*left.clone(), *right.clone(), op))
                }
                (Some((false, true)), Some((true, false))) => {
                    Some((*right.clone(), *left.clone(), op))
                }
                _ => None,
            },
            _ => None,
        };
        match pair {
            Some((a, b, BinaryOperator::Eq)) => equalities.push((a, b)),
            Some((a, b, _)) => unequal.push((a, b, c.clone())),
            None => return Err(unknown_name(&c, &inner, scope).unwrap_or_else(|| not_equality(&c))),
        }
    }
    if equalities.is_empty() {
        if let Some((_, _, c)) = unequal.first() {
            return Err(not_equality(c));
        }
        return Ok(None);
    }
    Ok(Some(Correlated {
        select: select.as_ref().clone(),
        equalities,
        unequal,
        local,
    }))
}

/// `[NOT] EXISTS (correlated subquery)` as `outer [NOT] IN (select inner .. group by inner)`.
fn exists_to_in(subquery: &Query, negated: bool, scope: &Scope<'_>) -> Result<Option<Expr>> {
    let Some(c) = correlate(subquery, scope)? else {
        return Ok(None);
    };
    if c.equalities.len() != 1 {
        c.no_inequality()?;
        return Err(QueryError::unsupported(
            "an EXISTS subquery correlated by more than one equality",
            position_of(subquery),
        ));
    }
    if c.unequal.len() > 1 {
        return Err(QueryError::unsupported(
            format!(
                "the correlated condition {} next to another inequality (an EXISTS takes one equality and at most one inequality <>)",
                c.unequal[1].2
            ),
            position_of(&c.unequal[1].2),
        ));
    }
    let (inner, outer) = c.equalities.into_iter().next().unwrap();
    if let Some((inner_value, outer_value, _)) = c.unequal.into_iter().next() {
        // EXISTS (.. where inner = outer and inner_value <> outer_value and local): the rows
        // of the key hold a value other than outer_value, decided from their min and max.
        let mut select = c.select;
        select.projection = vec![
            SelectItem::UnnamedExpr(inner.clone()),
            SelectItem::UnnamedExpr(parse_expr(&format!("min({inner_value})"))?),
            SelectItem::UnnamedExpr(parse_expr(&format!("max({inner_value})"))?),
        ];
        select.selection = join_and(c.local);
        select.group_by = GroupByExpr::Expressions(vec![inner], vec![]);
        let mut query = subquery.clone();
        *query.body = SetExpr::Select(Box::new(select));
        let call = parse_expr(&format!(
            "{EXISTS_OTHER}({outer}, {outer_value}, ({query}))"
        ))?;
        return Ok(Some(if negated {
            Expr::UnaryOp {
                op: sqlparser::ast::UnaryOperator::Not,
                expr: Box::new(Expr::Nested(Box::new(call))),
            }
        } else {
            call
        }));
    }
    let mut select = c.select;
    select.projection = vec![SelectItem::UnnamedExpr(inner.clone())];
    select.selection = join_and(c.local);
    select.group_by = GroupByExpr::Expressions(vec![inner], vec![]);
    let mut query = subquery.clone();
    query.body = Box::new(SetExpr::Select(Box::new(select)));
    Ok(Some(Expr::InSubquery {
        expr: Box::new(outer),
        subquery: Box::new(query),
        negated,
    }))
}

/// A correlated scalar subquery as a derived table called `name` grouped by its correlation
/// columns: (the FROM item, the expression of its value, the join equalities).
fn scalar_to_join(
    subquery: &Query,
    name: &str,
    scope: &Scope<'_>,
    outer_tables: &OuterTables,
) -> Result<Option<(TableWithJoins, Expr, Vec<Expr>)>> {
    let Some(c) = correlate(subquery, scope)? else {
        return Ok(None);
    };
    c.no_inequality()?;
    let mut select = c.select;
    let value = match select.projection.as_slice() {
        [SelectItem::UnnamedExpr(e)] | [SelectItem::ExprWithAlias { expr: e, .. }] => e.clone(),
        _ => {
            return Err(QueryError::unsupported(
                "a correlated scalar subquery that does not return one expression",
                position_of(subquery),
            ))
        }
    };
    let text = value.to_string().to_lowercase();
    if !["sum(", "avg(", "min(", "max("]
        .iter()
        .any(|f| text.contains(f))
        || text.contains("count(")
    {
        return Err(QueryError::unsupported(
            "a correlated scalar subquery other than of sum, avg, min or max",
            position_of(&value),
        ));
    }
    let column = |i: usize| format!("__key{i}");
    let mut projection = Vec::new();
    let mut keys = Vec::new();
    let mut equalities = Vec::new();
    // Magic sets: the groups are needed only for the outer values that pass the outer query's
    // conditions on their table, so the subquery joins the (distinct) such values first. With
    // one correlation column every condition on its table counts; with several, only those on
    // the column itself (the others would not restrict that column alone).
    let mut local = c.local;
    let all = c.equalities.len() == 1;
    for (i, (inner, outer)) in c.equalities.iter().enumerate() {
        let Some(ty) = inner_type(inner, &select, scope) else {
            continue;
        };
        let Some(magic) = outer_tables.magic_set(outer, ty, all)? else {
            continue;
        };
        let magic_name = format!("{name}_magic{i}");
        select.from.push(TableWithJoins {
            relation: TableFactor::Derived {
                lateral: false,
                subquery: Box::new(magic),
                alias: Some(TableAlias {
                    name: Ident::new(&magic_name),
                    columns: vec![],
                }),
            },
            joins: vec![],
        });
        local.insert(
            0,
            Expr::BinaryOp {
                left: Box::new(inner.clone()),
                op: BinaryOperator::Eq,
                right: Box::new(Expr::CompoundIdentifier(vec![
                    Ident::new(magic_name),
                    Ident::new("__magic_key"),
                ])),
            },
        );
    }
    for (i, (inner, outer)) in c.equalities.into_iter().enumerate() {
        projection.push(SelectItem::ExprWithAlias {
            expr: inner.clone(),
            alias: Ident::new(column(i)),
        });
        keys.push(inner);
        equalities.push(Expr::BinaryOp {
            left: Box::new(outer),
            op: BinaryOperator::Eq,
            right: Box::new(Expr::CompoundIdentifier(vec![
                Ident::new(name),
                Ident::new(column(i)),
            ])),
        });
    }
    projection.push(SelectItem::ExprWithAlias {
        expr: value,
        alias: Ident::new("__value"),
    });
    select.projection = projection;
    select.selection = join_and(local);
    select.group_by = GroupByExpr::Expressions(keys, vec![]);
    let mut query = subquery.clone();
    query.body = Box::new(SetExpr::Select(Box::new(select)));
    let table = TableWithJoins {
        relation: TableFactor::Derived {
            lateral: false,
            subquery: Box::new(query),
            alias: Some(TableAlias {
                name: Ident::new(name),
                columns: vec![],
            }),
        },
        joins: vec![],
    };
    let value = Expr::CompoundIdentifier(vec![Ident::new(name), Ident::new("__value")]);
    Ok(Some((table, value, equalities)))
}
