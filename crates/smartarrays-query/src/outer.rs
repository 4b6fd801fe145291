//! Left outer joins that are counted per group (TPC-H Q13's inner query):
//!
//! ```sql
//! select g.., count(r) .., count(*) ..
//! from L left [outer] join R on L.a = R.b [and ..] [and <conditions on R alone>]
//! [where <conditions on L alone>]
//! group by g..      -- expressions of L's columns
//! ```
//!
//! Each row of `L` joins its matches in `R` (the rows of `R` that pass the conditions on `R`
//! with equal keys), or, without any, one row whose `R` columns are NULL. So per row of `L`
//! with `m` matches, `count(<expression of R>)` counts `m` (0 for the NULL row: no column holds
//! nulls here, so an expression of `R` is NULL exactly on that row) and `count(*)` counts
//! `max(m, 1)`. The operator runs two grouped queries through the engine: `R`'s match counts per
//! join key, and `L`'s rows per (group, join key) with how many there are; the groups' counts
//! are then summed from those in one pass over `L`'s groups, and become a table that the rest of
//! the query (HAVING, ORDER BY, an outer query) reads like any other. No NULL is ever built:
//! anything that would need one (another aggregate of `R`, a column of `R` outside `count`, a
//! condition on `R` in WHERE) is an error naming it and its place.

use std::collections::HashMap;

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, Ident, JoinConstraint, JoinOperator, OrderByKind, Query, Select, SelectItem,
    SetExpr, TableAlias, TableFactor, TableWithJoins,
};

use crate::bind::{output_name, position_of};
use crate::budget::Budget;
use crate::error::{QueryError, Result};
use crate::rewrite::{identifiers, join_and, replace_expr, split_and};
use crate::scope::{table_from_result, Scope};
use crate::table::Table;
use crate::value::{Grouped, IntColumns, ResultSet, Type, Value};
use crate::vector::KeyHasher;
use smartarrays_encodings::{ColumnOptions, Values};

/// The name of the table of a left join's groups.
const GROUPS_TABLE: &str = "__left_join_groups";

/// One side of the join: its alias and its columns.
struct Side {
    alias: String,
    columns: Vec<String>,
}

/// Which sides an expression reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reads {
    Neither,
    Left,
    Right,
    Both,
}

struct Sides {
    left: Side,
    right: Side,
}

impl Sides {
    /// The side a name belongs to; an error for a name of neither or an ambiguous one.
    fn side_of(&self, parts: &[Ident], node: &Expr) -> Result<Reads> {
        let (qualifier, name) = match parts {
            [name] => (None, name.value.to_lowercase()),
            [q, name] => (Some(q.value.to_lowercase()), name.value.to_lowercase()),
            _ => {
                return Err(QueryError::unsupported(
                    "names with more than two parts",
                    position_of(node),
                ))
            }
        };
        let matches = |s: &Side| {
            qualifier.as_ref().is_none_or(|q| *q == s.alias) && s.columns.contains(&name)
        };
        match (matches(&self.left), matches(&self.right)) {
            (true, false) => Ok(Reads::Left),
            (false, true) => Ok(Reads::Right),
            (true, true) => Err(QueryError::AmbiguousColumn {
                name,
                position: position_of(node),
            }),
            (false, false) => Err(QueryError::UnknownColumn {
                name: match qualifier {
                    Some(q) => format!("{q}.{name}"),
                    None => name,
                },
                position: position_of(node),
            }),
        }
    }

    /// The sides `e` reads (`what` names the clause in the error for an expression this
    /// operator does not look into).
    fn reads(&self, e: &Expr, what: &str) -> Result<Reads> {
        let mut names = Vec::new();
        if !identifiers(e, &mut names) {
            return Err(QueryError::unsupported(
                format!("the expression {e} in {what} of a LEFT JOIN"),
                position_of(e),
            ));
        }
        let mut reads = Reads::Neither;
        for parts in &names {
            let side = self.side_of(parts, e)?;
            reads = match (reads, side) {
                (Reads::Neither, s) => s,
                (r, s) if r == s => r,
                _ => Reads::Both,
            };
        }
        Ok(reads)
    }
}

/// What an aggregate of the query counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Counted {
    /// The matches (`count` of an expression of `R`): 0 for a row of `L` without any.
    Matches,
    /// The joined rows (`count(*)`, or `count` of an expression of `L`): at least 1 per row of
    /// `L`.
    Rows,
}

/// The function call `e`'s aggregate name, if it is one.
fn aggregate_name(e: &Expr) -> Option<String> {
    let Expr::Function(f) = e else { return None };
    let name = f.name.to_string().to_lowercase();
    ["sum", "avg", "count", "min", "max"]
        .contains(&name.as_str())
        .then_some(name)
}

/// A left join's query as a table of its groups (already computed, through `run`) and the query
/// that reads it; `None` when the query has no join (nothing to do here).
pub(crate) fn left_join_counts(
    query: &Query,
    scope: &Scope<'_>,
    budget: &Budget,
    run: &dyn Fn(&Query) -> Result<Grouped>,
) -> Result<Option<(Table, Query)>> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Ok(None);
    };
    let Some(join_from) = select.from.iter().find(|f| !f.joins.is_empty()) else {
        return Ok(None);
    };
    let join = &join_from.joins[0];
    let constraint = match &join.join_operator {
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => c,
        // Other joins: the binder names them.
        _ => return Ok(None),
    };
    let refuse = |what: String, node: &Expr| -> Result<Option<(Table, Query)>> {
        Err(QueryError::unsupported(what, position_of(node)))
    };
    if select.from.len() != 1 || join_from.joins.len() != 1 {
        return Err(QueryError::unsupported(
            "a LEFT JOIN next to other tables or joins (only `L left join R on ..`)",
            position_of(&join.relation),
        ));
    }
    let JoinConstraint::On(on) = constraint else {
        return Err(QueryError::unsupported(
            "a LEFT JOIN without ON (USING, NATURAL)",
            position_of(&join.relation),
        ));
    };
    let side = |factor: &TableFactor| -> Result<(Side, String)> {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } if alias.as_ref().is_none_or(|a| a.columns.is_empty()) => {
                let (table, table_name) = scope.named(name)?;
                let alias = alias
                    .as_ref()
                    .map_or(table_name.clone(), |a| a.name.value.to_lowercase());
                let columns = table.columns().iter().map(|c| c.name.clone()).collect();
                Ok((Side { alias, columns }, factor.to_string()))
            }
            other => Err(QueryError::unsupported(
                "a LEFT JOIN of anything but two tables",
                position_of(other),
            )),
        }
    };
    let (left, left_text) = side(&join_from.relation)?;
    let (right, right_text) = side(&join.relation)?;
    if left.alias == right.alias {
        return Err(QueryError::unsupported(
            format!("table {} appearing twice in FROM", left.alias),
            position_of(&join.relation),
        ));
    }
    let sides = Sides { left, right };

    // ON: equalities between the two sides, and conditions on R alone.
    let mut on_conjuncts = Vec::new();
    split_and(on.clone(), &mut on_conjuncts);
    let mut keys: Vec<(Expr, Expr)> = Vec::new();
    let mut right_filters = Vec::new();
    for c in on_conjuncts {
        match sides.reads(&c, "the ON condition")? {
            Reads::Right => right_filters.push(c),
            Reads::Both => {
                let pair = match &c {
                    Expr::BinaryOp {
                        left: a,
                        op: BinaryOperator::Eq,
                        right: b,
                    } => match (sides.reads(a, "ON")?, sides.reads(b, "ON")?) {
                        (Reads::Left, Reads::Right) => Some((*a.clone(), *b.clone())),
                        (Reads::Right, Reads::Left) => Some((*b.clone(), *a.clone())),
                        _ => None,
                    },
                    _ => None,
                };
                match pair {
                    Some(p) => keys.push(p),
                    None => return refuse(format!("the LEFT JOIN condition {c} (only equalities between a column of each table, and conditions on the right table alone)"), &c),
                }
            }
            Reads::Left | Reads::Neither => {
                return refuse(
                    format!("the LEFT JOIN condition {c} (only equalities between a column of each table, and conditions on the right table alone)"),
                    &c,
                )
            }
        }
    }
    if keys.is_empty() {
        return refuse(
            "a LEFT JOIN without an equality between the two tables".to_string(),
            on,
        );
    }
    // WHERE: conditions on L alone (a condition on R would test the NULLs of unmatched rows).
    let mut left_filters = Vec::new();
    if let Some(w) = &select.selection {
        split_and(w.clone(), &mut left_filters);
        for c in &left_filters {
            if matches!(sides.reads(c, "WHERE")?, Reads::Right | Reads::Both) {
                return refuse(
                    format!("the condition {c} on the right table of a LEFT JOIN in WHERE (it would test NULLs)"),
                    c,
                );
            }
        }
    }
    let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else {
        return Err(QueryError::unsupported(
            "GROUP BY ALL over a LEFT JOIN",
            position_of(select.as_ref()),
        ));
    };
    if !modifiers.is_empty() {
        return Err(QueryError::unsupported(
            "GROUP BY modifiers",
            position_of(select.as_ref()),
        ));
    }
    for g in groups {
        if matches!(sides.reads(g, "GROUP BY")?, Reads::Right | Reads::Both) {
            return refuse(
                format!("grouping a LEFT JOIN by {g}, which reads the right table (NULLs)"),
                g,
            );
        }
    }
    if select.distinct.is_some() {
        return Err(QueryError::unsupported(
            "SELECT DISTINCT over a LEFT JOIN",
            position_of(select.as_ref()),
        ));
    }

    // The aggregates the query reads, and what each counts.
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => exprs.push(e),
            other => {
                return Err(QueryError::unsupported(
                    "* in SELECT (name the columns)",
                    position_of(other),
                ))
            }
        }
    }
    exprs.extend(select.having.iter());
    if let Some(order) = &query.order_by {
        if let OrderByKind::Expressions(list) = &order.kind {
            exprs.extend(list.iter().map(|o| &o.expr));
        }
    }
    let mut aggregates: Vec<(String, Counted)> = Vec::new();
    let mut problem: Option<QueryError> = None;
    for e in &exprs {
        replace_expr(e, &mut |sub| {
            if problem.is_some() {
                return Some(sub.clone());
            }
            let name = aggregate_name(sub)?;
            match counted(sub, &name, &sides) {
                Ok(kind) => {
                    let text = sub.to_string();
                    if !aggregates.iter().any(|(t, _)| *t == text) {
                        aggregates.push((text, kind));
                    }
                }
                Err(err) => problem = Some(err),
            }
            Some(sub.clone())
        });
    }
    if let Some(err) = problem {
        return Err(err);
    }
    if groups.is_empty() && aggregates.is_empty() {
        return Err(QueryError::unsupported(
            "a LEFT JOIN without GROUP BY or count (its unmatched rows would need NULLs)",
            position_of(&join.relation),
        ));
    }

    // R's matches per join key.
    let parse = |sql: &str| -> Result<Query> {
        match crate::bind::parse(sql)? {
            (q, false) => Ok(q),
            (_, true) => unreachable!("an EXPLAIN built here"),
        }
    };
    let list = |items: &[String]| items.join(", ");
    let where_clause = |filters: &[Expr]| match join_and(filters.to_vec()) {
        Some(w) => format!(" where {w}"),
        None => String::new(),
    };
    let right_keys: Vec<String> = keys.iter().map(|(_, r)| r.to_string()).collect();
    let right_query = parse(&format!(
        "select {}, count(*) as __matches from {right_text}{} group by {}",
        list(
            &right_keys
                .iter()
                .enumerate()
                .map(|(i, k)| format!("{k} as __key{i}"))
                .collect::<Vec<_>>()
        ),
        where_clause(&right_filters),
        list(&right_keys),
    ))?;
    let matches = run(&right_query)?;
    // L's rows per (group, join key): each distinct expression once.
    let mut left_exprs: Vec<String> = Vec::new();
    let mut index_of = |text: String| -> usize {
        match left_exprs.iter().position(|t| *t == text) {
            Some(i) => i,
            None => {
                left_exprs.push(text);
                left_exprs.len() - 1
            }
        }
    };
    let group_at: Vec<usize> = groups.iter().map(|g| index_of(g.to_string())).collect();
    let key_at: Vec<usize> = keys.iter().map(|(l, _)| index_of(l.to_string())).collect();
    let left_query = parse(&format!(
        "select {}, count(*) as __rows from {left_text}{} group by {}",
        list(
            &left_exprs
                .iter()
                .enumerate()
                .map(|(i, e)| format!("{e} as __expr{i}"))
                .collect::<Vec<_>>()
        ),
        where_clause(&left_filters),
        list(&left_exprs),
    ))?;
    let left = run(&left_query)?;
    // The count step holds both grouped results while it counts: reserved in the query's
    // budget (and given back when it ends) before anything of it is built.
    let held = budget.scope();
    let (left_rows, match_rows) = (left.rows().unwrap_or(0), matches.rows().unwrap_or(0));
    let ints = matches!((&left, &matches), (Grouped::Ints(_), Grouped::Ints(_)));
    held.reserve(
        &|| {
            format!(
                "the LEFT JOIN of {} and {} counted per group ({left_rows} groups and join keys \
                 of {}, {match_rows} join keys of {})",
                sides.left.alias, sides.right.alias, sides.left.alias, sides.right.alias
            )
        },
        count_step_bytes(
            (left_rows, left.types().len()),
            (match_rows, matches.types().len()),
            aggregates.len(),
            ints,
        ),
    )?;
    let (left_types, match_types) = (left.types().to_vec(), matches.types().to_vec());
    for (i, &k) in key_at.iter().enumerate() {
        let (a, b) = (left_types[k], match_types[i]);
        let fits = a == b || a.is_exact() && b.is_exact();
        if !fits {
            return refuse(
                format!("cannot compare {a} with {b}"),
                &Expr::BinaryOp {
                    left: Box::new(keys[i].0.clone()),
                    op: BinaryOperator::Eq,
                    right: Box::new(keys[i].1.clone()),
                },
            );
        }
    }
    let kinds: Vec<Counted> = aggregates.iter().map(|(_, k)| *k).collect();

    // The table of groups, and the query over it.
    let group_name = |i: usize| format!("__group{i}");
    let agg_name = |i: usize| format!("__count{i}");
    let mut names: Vec<String> = (0..groups.len()).map(group_name).collect();
    names.extend((0..aggregates.len()).map(agg_name));
    let mut types: Vec<Type> = group_at.iter().map(|&i| left_types[i]).collect();
    types.extend(aggregates.iter().map(|_| Type::Int));
    // Keys of one type on both sides, counted from integer columns: no rows of values.
    let same_keys = key_at
        .iter()
        .enumerate()
        .all(|(i, &k)| left_types[k] == match_types[i]);
    let table = match (left, matches) {
        (Grouped::Ints(left), Grouped::Ints(matches)) if same_keys => {
            let (group_columns, counts) =
                count_groups_ints(&left, &group_at, &key_at, &matches, &kinds)?;
            let mut columns = Vec::with_capacity(names.len());
            for ((name, ty), values) in names
                .iter()
                .zip(&types)
                .zip(group_columns.into_iter().chain(counts))
            {
                columns.push((name.clone(), int_values(*ty, values)?));
            }
            Table::from_values(GROUPS_TABLE, columns, &ColumnOptions::new())?
        }
        (left, matches) => {
            let (left_rows, matches_rows) = (left.into_rows()?, matches.into_rows()?);
            let grouped = count_groups(&left_rows, &group_at, &key_at, &matches_rows, &kinds)?;
            table_from_result(
                &TableAlias {
                    name: Ident::new(GROUPS_TABLE),
                    columns: vec![],
                },
                ResultSet {
                    names,
                    types,
                    rows: grouped,
                },
            )?
        }
    };
    let group_texts: Vec<String> = groups.iter().map(ToString::to_string).collect();
    let replace = |e: &Expr| -> Expr {
        replace_expr(e, &mut |sub| {
            let text = sub.to_string();
            if aggregate_name(sub).is_some() {
                let i = aggregates.iter().position(|(t, _)| *t == text)?;
                return Some(Expr::Identifier(Ident::new(agg_name(i))));
            }
            group_texts
                .iter()
                .position(|g| *g == text)
                .map(|i| Expr::Identifier(Ident::new(group_name(i))))
        })
    };
    let mut outer = query.clone();
    let mut select: Select = select.as_ref().clone();
    select.projection = select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) => SelectItem::ExprWithAlias {
                expr: replace(e),
                alias: Ident::new(output_name(e)),
            },
            SelectItem::ExprWithAlias { expr, alias } => SelectItem::ExprWithAlias {
                expr: replace(expr),
                alias: alias.clone(),
            },
            other => other.clone(),
        })
        .collect();
    // One row per group: HAVING is a WHERE over the groups' table.
    select.selection = select.having.take().map(|h| replace(&h));
    select.group_by = GroupByExpr::Expressions(vec![], vec![]);
    if let Some(order) = &mut outer.order_by {
        if let OrderByKind::Expressions(list) = &mut order.kind {
            for o in list {
                o.expr = replace(&o.expr);
            }
        }
    }
    // A column of R left outside `count` would need its NULLs.
    let mut rest: Vec<&Expr> = Vec::new();
    for item in &select.projection {
        if let SelectItem::ExprWithAlias { expr, .. } = item {
            rest.push(expr);
        }
    }
    rest.extend(select.selection.iter());
    if let Some(order) = &outer.order_by {
        if let OrderByKind::Expressions(list) = &order.kind {
            rest.extend(list.iter().map(|o| &o.expr));
        }
    }
    for e in rest {
        let mut names = Vec::new();
        identifiers(e, &mut names);
        for parts in &names {
            if let Ok(Reads::Right | Reads::Left) = sides.side_of(parts, e) {
                let name = parts
                    .iter()
                    .map(|p| p.value.clone())
                    .collect::<Vec<_>>()
                    .join(".");
                return refuse(
                    format!("the column {name} outside GROUP BY and count over a LEFT JOIN"),
                    e,
                );
            }
        }
    }
    select.from = vec![TableWithJoins {
        relation: TableFactor::Table {
            name: sqlparser::ast::ObjectName::from(vec![Ident::new(GROUPS_TABLE)]),
            alias: None,
            args: None,
            with_hints: vec![],
            version: None,
            with_ordinality: false,
            partitions: vec![],
            json_path: None,
            sample: None,
            index_hints: vec![],
        },
        joins: vec![],
    }];
    outer.body = Box::new(SetExpr::Select(Box::new(select)));
    Ok(Some((table, outer)))
}

/// What the aggregate call `e` (function `name`) counts over the join.
fn counted(e: &Expr, name: &str, sides: &Sides) -> Result<Counted> {
    let Expr::Function(f) = e else {
        unreachable!("an aggregate is a function call")
    };
    let refuse = |what: String| Err(QueryError::unsupported(what, position_of(e)));
    if name != "count" {
        return refuse(format!(
            "{e} over a LEFT JOIN (only count: other aggregates of the unmatched rows need NULLs)"
        ));
    }
    if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
        return refuse(format!("{e} over a LEFT JOIN"));
    }
    let FunctionArguments::List(args) = &f.args else {
        return refuse(format!("{e} over a LEFT JOIN"));
    };
    if matches!(args.duplicate_treatment, Some(DuplicateTreatment::Distinct))
        || !args.clauses.is_empty()
    {
        return refuse(format!("{e} over a LEFT JOIN (count(DISTINCT ..))"));
    }
    match args.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] => Ok(Counted::Rows),
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => match sides.reads(x, "count")? {
            Reads::Right => Ok(Counted::Matches),
            Reads::Left | Reads::Neither => Ok(Counted::Rows),
            Reads::Both => refuse(format!(
                "{e} over a LEFT JOIN (count of an expression of both tables)"
            )),
        },
        _ => refuse(format!("{e} over a LEFT JOIN")),
    }
}

/// A join key value that hashes: exact numbers in their shortest scale (so 5 and 5.00 are
/// one key), the others as they are.
#[derive(Clone, PartialEq, Eq, Hash)]
enum KeyPart {
    Exact(i128, u8),
    Date(i32),
    Str(String),
    Bool(bool),
    Bits(u64),
}

fn key_part(v: &Value) -> KeyPart {
    match v {
        Value::Date(d) => KeyPart::Date(*d),
        Value::Str(s) => KeyPart::Str(s.clone()),
        Value::Bool(b) => KeyPart::Bool(*b),
        Value::Float(f) => KeyPart::Bits((f + 0.0).to_bits()),
        Value::Null => KeyPart::Bits(u64::MAX),
        other => {
            let (mut u, mut s) = other.as_exact().unwrap_or((0, 0));
            while s > 0 && u % 10 == 0 {
                u /= 10;
                s -= 1;
            }
            KeyPart::Exact(u, s)
        }
    }
}

/// The groups of a left join: `left` has, per (group, join key) of `L`'s rows, the expressions
/// (group keys at `group_at`, join keys at `key_at`) and the number of rows last; `matches`
/// has the join keys of `R` and their number of matching rows last. Per group: its keys, then
/// one count per entry of `kinds`, in the order the groups first appear.
pub(crate) fn count_groups(
    left: &ResultSet,
    group_at: &[usize],
    key_at: &[usize],
    matches: &ResultSet,
    kinds: &[Counted],
) -> Result<Vec<Vec<Value>>> {
    let count_of = |v: &Value| -> Result<i128> {
        match v {
            Value::Int(n) => Ok(*n),
            other => Err(QueryError::type_error(
                format!("a count of {other}"),
                crate::Position::default(),
            )),
        }
    };
    let mut by_key: HashMap<Vec<KeyPart>, i128> = HashMap::with_capacity(matches.rows.len());
    for row in &matches.rows {
        let n = count_of(&row[row.len() - 1])?;
        let key = row[..row.len() - 1].iter().map(key_part).collect();
        by_key.insert(key, n);
    }
    let mut order: Vec<Vec<Value>> = Vec::new();
    let mut groups: HashMap<Vec<KeyPart>, usize> = HashMap::new();
    let mut counts: Vec<Vec<i128>> = Vec::new();
    if group_at.is_empty() {
        // One group, also over no rows.
        order.push(Vec::new());
        groups.insert(Vec::new(), 0);
        counts.push(vec![0; kinds.len()]);
    }
    for row in &left.rows {
        let rows = count_of(&row[row.len() - 1])?;
        let key: Vec<KeyPart> = key_at.iter().map(|&i| key_part(&row[i])).collect();
        let m = by_key.get(&key).copied().unwrap_or(0);
        let group_key: Vec<KeyPart> = group_at.iter().map(|&i| key_part(&row[i])).collect();
        let g = *groups.entry(group_key).or_insert_with(|| {
            order.push(group_at.iter().map(|&i| row[i].clone()).collect());
            counts.push(vec![0; kinds.len()]);
            order.len() - 1
        });
        for (c, kind) in counts[g].iter_mut().zip(kinds) {
            let per_row = match kind {
                Counted::Matches => m,
                Counted::Rows => m.max(1),
            };
            *c = per_row
                .checked_mul(rows)
                .and_then(|x| c.checked_add(x))
                .ok_or_else(|| QueryError::Overflow("a count over a LEFT JOIN".to_string()))?;
        }
    }
    Ok(order
        .into_iter()
        .zip(counts)
        .map(|(mut keys, counts)| {
            keys.extend(counts.into_iter().map(Value::Int));
            keys
        })
        .collect())
}

/// A column of `ty` (an integer, decimal or date type) from integer values.
fn int_values(ty: Type, values: Vec<i64>) -> Result<Values> {
    Ok(match ty {
        Type::Decimal(scale) => Values::Decimal {
            unscaled: values,
            scale,
        },
        Type::Date => Values::Date32(
            values
                .into_iter()
                .map(|d| i32::try_from(d).map_err(|_| QueryError::Overflow(format!("day {d}"))))
                .collect::<Result<_>>()?,
        ),
        _ => Values::Int64(values),
    })
}

/// Columns of 64-bit integers.
type Columns = Vec<Vec<i64>>;

/// [`count_groups`] over integer columns whose join keys have one type on both sides: the
/// group keys' columns and one column of counts per entry of `kinds`, per group in the order
/// the groups first appear.
pub(crate) fn count_groups_ints(
    left: &IntColumns,
    group_at: &[usize],
    key_at: &[usize],
    matches: &IntColumns,
    kinds: &[Counted],
) -> Result<(Columns, Columns)> {
    type Fast<V> = HashMap<i64, V, std::hash::BuildHasherDefault<KeyHasher>>;
    let (lc, mc) = (&left.columns, &matches.columns);
    let (left_rows, match_rows) = (lc[lc.len() - 1].as_slice(), mc[mc.len() - 1].as_slice());
    // Each row's matches (by its join key), then its group (by its group keys).
    let per_row: Vec<i64> = if let ([k], Some((base, len))) =
        (key_at, dense_range(&mc[0], lc.first().map_or(0, Vec::len)))
    {
        // Keys over a small range (TPC-H's customer keys): the counts in an array by key.
        let mut by_key = vec![0i64; len];
        for (&key, &n) in mc[0].iter().zip(match_rows) {
            by_key[(key - base) as usize] = n;
        }
        lc[*k]
            .iter()
            .map(|&key| {
                key.checked_sub(base)
                    .and_then(|i| by_key.get(usize::try_from(i).ok()?))
                    .copied()
                    .unwrap_or(0)
            })
            .collect()
    } else if let [k] = key_at {
        let mut by_key: Fast<i64> = Fast::default();
        by_key.reserve(match_rows.len());
        by_key.extend(mc[0].iter().copied().zip(match_rows.iter().copied()));
        lc[*k]
            .iter()
            .map(|key| by_key.get(key).copied().unwrap_or(0))
            .collect()
    } else {
        let key_of = |cols: &[Vec<i64>], at: &mut dyn Iterator<Item = usize>, r: usize| {
            at.map(|c| cols[c][r]).collect::<Vec<i64>>()
        };
        let mut by_key: HashMap<Vec<i64>, i64> = HashMap::with_capacity(match_rows.len());
        for (r, &n) in match_rows.iter().enumerate() {
            by_key.insert(key_of(mc, &mut (0..key_at.len()), r), n);
        }
        (0..left_rows.len())
            .map(|r| {
                by_key
                    .get(&key_of(lc, &mut key_at.iter().copied(), r))
                    .copied()
                    .unwrap_or(0)
            })
            .collect()
    };
    let mut first_row: Vec<usize> = Vec::new();
    let group_of: Vec<usize> = match group_at {
        [] => {
            // One group, also over no rows.
            first_row.push(0);
            vec![0; left_rows.len()]
        }
        [g] if dense_range(&lc[*g], 0).is_some() => {
            // Group keys over a small range: each key's group in an array by key.
            let (base, len) = dense_range(&lc[*g], 0).expect("tested");
            let mut seen = vec![usize::MAX; len];
            lc[*g]
                .iter()
                .enumerate()
                .map(|(r, &key)| {
                    let slot = &mut seen[(key - base) as usize];
                    if *slot == usize::MAX {
                        first_row.push(r);
                        *slot = first_row.len() - 1;
                    }
                    *slot
                })
                .collect()
        }
        [g] => {
            let mut seen: Fast<usize> = Fast::default();
            lc[*g]
                .iter()
                .enumerate()
                .map(|(r, &key)| {
                    *seen.entry(key).or_insert_with(|| {
                        first_row.push(r);
                        first_row.len() - 1
                    })
                })
                .collect()
        }
        _ => {
            let mut seen: HashMap<Vec<i64>, usize> = HashMap::new();
            (0..left_rows.len())
                .map(|r| {
                    let key: Vec<i64> = group_at.iter().map(|&c| lc[c][r]).collect();
                    *seen.entry(key).or_insert_with(|| {
                        first_row.push(r);
                        first_row.len() - 1
                    })
                })
                .collect()
        }
    };
    let overflow = || QueryError::Overflow("a count over a LEFT JOIN".to_string());
    let mut counts = vec![vec![0i64; first_row.len()]; kinds.len()];
    for (&g, (&m, &rows)) in group_of.iter().zip(per_row.iter().zip(left_rows)) {
        for (column, kind) in counts.iter_mut().zip(kinds) {
            let per_row = match kind {
                Counted::Matches => m,
                Counted::Rows => m.max(1),
            };
            column[g] = per_row
                .checked_mul(rows)
                .and_then(|x| column[g].checked_add(x))
                .ok_or_else(overflow)?;
        }
    }
    let group_columns = group_at
        .iter()
        .map(|&c| first_row.iter().map(|&r| lc[c][r]).collect())
        .collect();
    Ok((group_columns, counts))
}

/// An upper bound of the bytes the count step holds for `left` = (rows, columns) of `L`'s
/// groups and join keys and `matches` = (rows, columns) of `R`'s join keys: the two results
/// themselves, a match count and a group per row of `L` with the maps (or arrays) that find
/// them, and per group its keys and `kinds` counts. `ints`: the results are integer columns
/// (else rows of values, which the rows path converts them to and keys by [`KeyPart`]s).
fn count_step_bytes(
    left: (usize, usize),
    matches: (usize, usize),
    kinds: usize,
    ints: bool,
) -> usize {
    // A hash map's entry with its control byte, at the load it grows to (7/8), rounded up.
    const MAP_SLOT: usize = 2;
    let word = std::mem::size_of::<i64>();
    let (cell, row) = if ints {
        (word, 0)
    } else {
        // A value, and a row's vector of them; keys as vectors of key parts.
        (
            std::mem::size_of::<Value>() + std::mem::size_of::<KeyPart>(),
            3 * std::mem::size_of::<Vec<Value>>(),
        )
    };
    let results = left.0 * (left.1 * cell + row) + matches.0 * (matches.1 * cell + row);
    // Per row of L: its matches and its group; a map of R's keys; a map of L's groups.
    let per_row = left.0 * 2 * word;
    let match_map = matches.0 * MAP_SLOT * (matches.1 * cell + row + word);
    let group_map = left.0 * MAP_SLOT * (left.1 * cell + row + word);
    let counts = left.0 * (kinds + left.1) * cell.max(std::mem::size_of::<i128>());
    results
        .saturating_add(per_row)
        .saturating_add(match_map)
        .saturating_add(group_map)
        .saturating_add(counts)
}

/// The smallest key of `keys` and the length of the range up to the largest, when that range
/// is at most 4 times `keys.len()` plus `other` rows (then an array indexed by `key - base`
/// is no larger than a hash map of them); `None` for other keys and for no keys.
fn dense_range(keys: &[i64], other: usize) -> Option<(i64, usize)> {
    let (&min, &max) = (keys.iter().min()?, keys.iter().max()?);
    let span = u64::try_from(i128::from(max) - i128::from(min) + 1).ok()?;
    let limit = 4 * (keys.len() as u64 + other as u64);
    (span <= limit.max(64)).then_some((min, span as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::Catalog;

    /// 50,000 rows of `c(ck)` and 100,000 of `r(rk)`, keys far apart (hash maps).
    fn catalog() -> Catalog {
        let n = 50_000i64;
        let mut catalog = Catalog::new();
        let column = |values: Vec<i64>| Values::Int64(values);
        for (name, key, values) in [
            ("c", "ck", (0..n).map(|k| k * 977).collect::<Vec<_>>()),
            ("r", "rk", (0..2 * n).map(|k| (k % n) * 977).collect()),
        ] {
            let table = Table::from_values(
                name,
                vec![(key.to_string(), column(values))],
                &ColumnOptions::new(),
            )
            .unwrap();
            catalog.insert(table);
        }
        catalog
    }

    /// The count step's maps and results are reserved in the budget given to it (the grouped
    /// queries run here under their own, unlimited one): too small a budget is a
    /// memory-limit error naming the join and its sizes, given back afterwards; an ample one
    /// counts every key.
    #[test]
    fn the_count_step_is_reserved_in_the_query_budget() {
        let catalog = catalog();
        let scope = Scope::new(&catalog);
        let runtime = crate::QueryOptions::threads(2).unwrap().runtime().unwrap();
        let unlimited = Budget::new(usize::MAX);
        let run = |sub: &Query| crate::run_query_grouped(sub, &scope, &runtime, &unlimited);
        let (query, _) = crate::bind::parse(
            "select ck, count(rk) as m from c left outer join r on ck = rk group by ck",
        )
        .unwrap();
        let tight = Budget::new(1 << 20);
        match left_join_counts(&query, &scope, &tight, &run) {
            Err(QueryError::MemoryLimit {
                operator,
                requested,
                held,
                limit,
            }) => {
                assert_eq!(
                    operator,
                    "the LEFT JOIN of c and r counted per group (50000 groups and join keys of \
                     c, 50000 join keys of r)"
                );
                assert_eq!((held, limit), (0, 1 << 20));
                // Both results (16 bytes a row), a match count and a group per row of c, two
                // maps, the counts: more than 50,000 x 64 bytes.
                assert!(requested > 50_000 * 64, "{requested}");
            }
            Err(other) => panic!("expected a memory-limit error, got {other}"),
            Ok(_) => panic!("expected a memory-limit error, got groups"),
        }
        // The step holds nothing once it has failed, or once it has counted.
        tight.reserve(&|| "the test".to_string(), 1 << 20).unwrap();
        let ample = Budget::new(64 << 20);
        let (groups, _) = left_join_counts(&query, &scope, &ample, &run)
            .unwrap()
            .expect("a left join");
        assert_eq!(groups.rows(), 50_000);
        ample.reserve(&|| "the test".to_string(), 64 << 20).unwrap();
    }
}
