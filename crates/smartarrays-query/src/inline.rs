//! A subquery in FROM that only joins, filters and computes row expressions (no grouping,
//! aggregates, DISTINCT, ORDER BY or LIMIT), read by a query with no other table, is inlined:
//! its tables and filters become the query's own, and every reference to one of its columns
//! becomes the column's expression. TPC-H Q7 and Q8 then run as one pipeline tree whose sink
//! groups the joined rows directly, instead of collecting the subquery's rows as values and
//! compressing them into a table first.
//!
//! Only expressions this module knows how to rewrite completely are accepted (a reference it
//! could not reach would silently read another column); anything else leaves the query as it
//! is, and the subquery is materialized as before.

use std::collections::HashMap;

use sqlparser::ast::{
    CaseWhen, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident,
    OrderByKind, Query, Select, SelectItem, SetExpr, TableWithJoins,
};

use crate::bind::output_name;

/// The query with its only FROM item, a plain subquery, inlined; `None` when it does not
/// qualify.
pub(crate) fn inline_derived(query: &Query) -> Option<Query> {
    let SetExpr::Select(outer) = query.body.as_ref() else {
        return None;
    };
    let [TableWithJoins { relation, joins }] = &outer.from[..] else {
        return None;
    };
    let (subquery, alias) = crate::sole::aliased_subquery(relation)?;
    if !joins.is_empty() {
        return None;
    }
    let inner = plain_select(subquery)?;
    // The derived table's columns by name: its column list, else each item's name.
    if !alias.columns.is_empty() && alias.columns.len() != inner.projection.len() {
        return None;
    }
    let mut columns: HashMap<String, Expr> = HashMap::new();
    for (k, item) in inner.projection.iter().enumerate() {
        let (name, expr) = match item {
            SelectItem::UnnamedExpr(e) => (output_name(e), e),
            SelectItem::ExprWithAlias { expr, alias } => (alias.value.to_lowercase(), expr),
            _ => return None,
        };
        if contains_aggregate(expr) {
            return None;
        }
        let name = match alias.columns.get(k) {
            Some(c) => c.name.value.to_lowercase(),
            None => name,
        };
        if columns.insert(name, expr.clone()).is_some() {
            return None; // two columns of one name: leave the error to the binder
        }
    }
    let rewriter = Rewriter {
        columns: &columns,
        alias: alias.name.value.to_lowercase(),
    };
    // Output items keep their names.
    let mut projection = Vec::with_capacity(outer.projection.len());
    let mut output_names = Vec::new();
    for item in &outer.projection {
        let (name, expr) = match item {
            SelectItem::UnnamedExpr(e) => (Ident::new(output_name(e)), e),
            SelectItem::ExprWithAlias { expr, alias } => (alias.clone(), expr),
            _ => return None,
        };
        output_names.push(name.value.to_lowercase());
        projection.push(SelectItem::ExprWithAlias {
            expr: rewriter.expr(expr)?,
            alias: name,
        });
    }
    let selection = match (&inner.selection, &outer.selection) {
        (None, None) => None,
        (Some(a), None) => Some(a.clone()),
        (inner_filter, Some(b)) => {
            let b = rewriter.expr(b)?;
            Some(match inner_filter {
                None => b,
                Some(a) => Expr::BinaryOp {
                    left: Box::new(Expr::Nested(Box::new(a.clone()))),
                    op: sqlparser::ast::BinaryOperator::And,
                    right: Box::new(Expr::Nested(Box::new(b))),
                },
            })
        }
    };
    let group_by = match &outer.group_by {
        GroupByExpr::Expressions(list, modifiers) if modifiers.is_empty() => {
            GroupByExpr::Expressions(
                list.iter()
                    .map(|e| rewriter.expr(e))
                    .collect::<Option<_>>()?,
                vec![],
            )
        }
        _ => return None,
    };
    let having = match &outer.having {
        None => None,
        Some(h) => Some(rewriter.expr(h)?),
    };
    let mut result = query.clone();
    if let Some(order) = &mut result.order_by {
        let OrderByKind::Expressions(list) = &mut order.kind else {
            return None;
        };
        for o in list {
            // A name of an output refers to it (the outputs keep their names).
            let output = matches!(&o.expr, Expr::Identifier(i) if output_names.contains(&i.value.to_lowercase()));
            if !output {
                o.expr = rewriter.expr(&o.expr)?;
            }
        }
    }
    let mut select: Select = outer.as_ref().clone();
    select.projection = projection;
    select.from = inner.from.clone();
    select.selection = selection;
    select.group_by = group_by;
    select.having = having;
    result.body = Box::new(SetExpr::Select(Box::new(select)));
    Some(result)
}

/// The subquery's SELECT when it is only tables, a filter and row expressions.
fn plain_select(query: &Query) -> Option<&Select> {
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
        || !query.locks.is_empty()
        || query.for_clause.is_some()
        || query.settings.is_some()
        || query.format_clause.is_some()
        || !query.pipe_operators.is_empty()
    {
        return None;
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let plain = select.distinct.is_none()
        && select.top.is_none()
        && select.exclude.is_none()
        && select.into.is_none()
        && select.lateral_views.is_empty()
        && select.prewhere.is_none()
        && matches!(&select.group_by, GroupByExpr::Expressions(g, m) if g.is_empty() && m.is_empty())
        && select.cluster_by.is_empty()
        && select.distribute_by.is_empty()
        && select.sort_by.is_empty()
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.qualify.is_none()
        && select.value_table_mode.is_none()
        && select.connect_by.is_none()
        && !select.from.is_empty()
        && select.selection.as_ref().is_none_or(|w| !has_subquery(w));
    plain.then_some(select.as_ref())
}

/// Whether `e` holds an aggregate or window function call (anywhere).
fn contains_aggregate(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if let Expr::Function(f) = x {
            let name = f.name.to_string().to_lowercase();
            if f.over.is_some() || matches!(name.as_str(), "sum" | "avg" | "count" | "min" | "max")
            {
                found = true;
            }
        }
    });
    found
}

/// Whether `e` holds a subquery (anywhere the walk reaches; an expression it cannot walk
/// counts as one).
fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| {
        if matches!(
            x,
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. }
        ) {
            found = true;
        }
    });
    found || Rewriter::any().expr(e).is_none()
}

/// Calls `f` on `e` and the subexpressions the rewriter knows.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let _ = children(e).map(|list| list.into_iter().for_each(|c| visit(c, f)));
}

/// The direct subexpressions of the kinds the rewriter knows (`None`: another kind).
fn children(e: &Expr) -> Option<Vec<&Expr>> {
    Some(match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_)
        | Expr::Interval(_) => vec![],
        Expr::BinaryOp { left, right, .. } => vec![left, right],
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::Cast { expr, .. }
        | Expr::Extract { expr, .. } => vec![expr],
        Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        Expr::InList { expr, list, .. } => std::iter::once(expr.as_ref()).chain(list).collect(),
        Expr::Like {
            expr,
            pattern,
            any: false,
            ..
        } => vec![expr, pattern],
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => std::iter::once(expr.as_ref())
            .chain(substring_from.as_deref())
            .chain(substring_for.as_deref())
            .collect(),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => operand
            .as_deref()
            .into_iter()
            .chain(conditions.iter().flat_map(|w| [&w.condition, &w.result]))
            .chain(else_result.as_deref())
            .collect(),
        Expr::Function(f) => match &f.args {
            FunctionArguments::None => vec![],
            FunctionArguments::List(list) => {
                let mut out = Vec::new();
                for arg in &list.args {
                    match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => out.push(x),
                        FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => {}
                        _ => return None,
                    }
                }
                out
            }
            FunctionArguments::Subquery(_) => return None,
        },
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => vec![],
        _ => return None,
    })
}

/// Replaces references to the derived table's columns by their expressions.
struct Rewriter<'c> {
    columns: &'c HashMap<String, Expr>,
    alias: String,
}

impl Rewriter<'static> {
    /// A rewriter that keeps every name (to test that an expression can be walked).
    fn any() -> Rewriter<'static> {
        static EMPTY: std::sync::OnceLock<HashMap<String, Expr>> = std::sync::OnceLock::new();
        Rewriter {
            columns: EMPTY.get_or_init(HashMap::new),
            alias: String::new(),
        }
    }
}

impl Rewriter<'_> {
    fn column(&self, name: &Ident) -> Option<Expr> {
        if self.alias.is_empty() {
            return Some(Expr::Identifier(name.clone()));
        }
        let e = self.columns.get(&name.value.to_lowercase())?;
        Some(Expr::Nested(Box::new(e.clone())))
    }

    /// `e` rewritten, or `None` when it holds something this module does not rewrite (a
    /// subquery, an unknown kind of expression, a name that is no column of the table).
    fn expr(&self, e: &Expr) -> Option<Expr> {
        let go = |x: &Expr| self.expr(x).map(Box::new);
        Some(match e {
            Expr::Identifier(i) => self.column(i)?,
            Expr::CompoundIdentifier(parts) => match &parts[..] {
                [table, name]
                    if self.alias.is_empty() || table.value.to_lowercase() == self.alias =>
                {
                    if self.alias.is_empty() {
                        e.clone()
                    } else {
                        self.column(name)?
                    }
                }
                _ => return None,
            },
            Expr::Value(_) | Expr::TypedString(_) | Expr::Interval(_) => e.clone(),
            Expr::BinaryOp { left, op, right } => Expr::BinaryOp {
                left: go(left)?,
                op: op.clone(),
                right: go(right)?,
            },
            Expr::UnaryOp { op, expr } => Expr::UnaryOp {
                op: *op,
                expr: go(expr)?,
            },
            Expr::Nested(x) => Expr::Nested(go(x)?),
            Expr::IsNull(x) => Expr::IsNull(go(x)?),
            Expr::IsNotNull(x) => Expr::IsNotNull(go(x)?),
            Expr::Cast {
                kind,
                expr,
                data_type,
                format,
            } => Expr::Cast {
                kind: kind.clone(),
                expr: go(expr)?,
                data_type: data_type.clone(),
                format: format.clone(),
            },
            Expr::Extract {
                field,
                syntax,
                expr,
            } => Expr::Extract {
                field: field.clone(),
                syntax: syntax.clone(),
                expr: go(expr)?,
            },
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => Expr::Between {
                expr: go(expr)?,
                negated: *negated,
                low: go(low)?,
                high: go(high)?,
            },
            Expr::InList {
                expr,
                list,
                negated,
            } => Expr::InList {
                expr: go(expr)?,
                list: list.iter().map(|x| self.expr(x)).collect::<Option<_>>()?,
                negated: *negated,
            },
            Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => Expr::Like {
                negated: *negated,
                any: false,
                expr: go(expr)?,
                pattern: go(pattern)?,
                escape_char: escape_char.clone(),
            },
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                special,
                shorthand,
            } => Expr::Substring {
                expr: go(expr)?,
                substring_from: match substring_from {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
                substring_for: match substring_for {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
                special: *special,
                shorthand: *shorthand,
            },
            Expr::Case {
                case_token,
                end_token,
                operand,
                conditions,
                else_result,
            } => Expr::Case {
                case_token: case_token.clone(),
                end_token: end_token.clone(),
                operand: match operand {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
                conditions: conditions
                    .iter()
                    .map(|w| {
                        Some(CaseWhen {
                            condition: self.expr(&w.condition)?,
                            result: self.expr(&w.result)?,
                        })
                    })
                    .collect::<Option<_>>()?,
                else_result: match else_result {
                    Some(x) => Some(go(x)?),
                    None => None,
                },
            },
            Expr::Function(f) => {
                let mut f = f.clone();
                if f.over.is_some() || f.filter.is_some() || !f.within_group.is_empty() {
                    return None;
                }
                match &mut f.args {
                    FunctionArguments::None => {}
                    FunctionArguments::List(list) => {
                        if !list.clauses.is_empty() {
                            return None;
                        }
                        for arg in &mut list.args {
                            match arg {
                                FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => {
                                    *x = self.expr(x)?
                                }
                                FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => {}
                                _ => return None,
                            }
                        }
                    }
                    FunctionArguments::Subquery(_) => return None,
                }
                Expr::Function(f)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(sql: &str) -> Query {
        crate::bind::parse(sql).unwrap().0
    }

    fn inlined(sql: &str) -> Option<String> {
        inline_derived(&parse(sql)).map(|q| q.to_string())
    }

    #[test]
    fn a_projection_of_joins_is_inlined_with_the_output_names_kept() {
        let q = inlined(
            "select k, sum(v) as total from (select a.x as k, b.y * 2 as v from a, b where a.id = b.id) as t where v > 1 group by k order by k, total",
        )
        .unwrap();
        assert_eq!(
            q,
            "SELECT (a.x) AS k, sum((b.y * 2)) AS total FROM a, b WHERE (a.id = b.id) AND ((b.y * 2) > 1) GROUP BY (a.x) ORDER BY k, total"
        );
        // A column list renames; qualified references name the table.
        let q = inlined("select t.c from (select x from a) as t (c)").unwrap();
        assert_eq!(q, "SELECT (x) AS c FROM a");
    }

    #[test]
    fn anything_else_is_left_to_materialize() {
        for sql in [
            // Grouping, aggregates, DISTINCT, LIMIT in the subquery.
            "select k from (select x as k from a group by x) as t",
            "select k from (select sum(x) as k from a) as t",
            "select k from (select distinct x as k from a) as t",
            "select k from (select x as k from a limit 3) as t",
            // A subquery inside, another table beside it, an unknown name.
            "select k from (select x as k from a where x in (select y from b)) as t",
            "select k from (select x as k from a) as t, b",
            "select z from (select x as k from a) as t",
            "select k from (select x as k from a) as t where exists (select 1 from b)",
            // Another table's name as a qualifier.
            "select a.x from (select x as k from a) as t",
            // No alias, a wildcard.
            "select * from (select x as k from a) as t",
        ] {
            assert_eq!(inlined(sql), None, "{sql}");
        }
    }
}
