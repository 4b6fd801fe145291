//! The binder: a `sqlparser` syntax tree to a bound query over the catalog's tables, with types
//! checked, names resolved, constants folded (dates and intervals included) and aggregates
//! separated from the expressions around them. Anything outside the supported subset is an
//! error that names it and its place.

use sqlparser::ast::{
    self, BinaryOperator, DateTimeField, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, LimitClause, OrderByKind, SelectItem, SetExpr, Spanned, TableFactor,
    UnaryOperator,
};

use smartarrays_encodings::date;

use crate::error::{Position, QueryError, Result};
use crate::keyset::KeySet;
use crate::scope::Scope;
use crate::table::Table;
use crate::value::{pow10, Grouped, ResultSet, Type, Value};
use crate::vector::KeyRanges;

/// The place of a syntax node.
pub(crate) fn position_of(node: &impl Spanned) -> Position {
    let start = node.span().start;
    Position {
        line: start.line,
        column: start.column,
    }
}

/// The place of a name.
pub(crate) fn ident_position(ident: &ast::Ident) -> Position {
    Position {
        line: ident.span.start.line,
        column: ident.span.start.column,
    }
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub(crate) fn holds(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Cmp::Eq => ordering == Equal,
            Cmp::Ne => ordering != Equal,
            Cmp::Lt => ordering == Less,
            Cmp::Le => ordering != Greater,
            Cmp::Gt => ordering == Greater,
            Cmp::Ge => ordering != Less,
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub(crate) fn flip(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            other => other,
        }
    }

    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "=",
            Cmp::Ne => "<>",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggFunc {
    Sum,
    Avg,
    Count,
    Min,
    Max,
}

/// One aggregate of a query: the function and its argument (`None`: `count(*)`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AggCall {
    pub func: AggFunc,
    pub arg: Option<BExpr>,
    pub ty: Type,
}

/// A bound, typed expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum BExpr {
    /// Column `column` of the query's table `table`.
    Column {
        table: usize,
        column: usize,
        ty: Type,
    },
    /// A constant.
    Literal(Value, Type),
    /// Group key `i` (after aggregation) or collected expression `i` (without).
    Key(usize, Type),
    /// Aggregate `i`.
    Agg(usize, Type),
    Arith(Arith, Box<BExpr>, Box<BExpr>, Type),
    Neg(Box<BExpr>, Type),
    Compare(Cmp, Box<BExpr>, Box<BExpr>),
    And(Vec<BExpr>),
    Or(Vec<BExpr>),
    Not(Box<BExpr>),
    Like {
        expr: Box<BExpr>,
        pattern: String,
        negated: bool,
    },
    InList {
        expr: Box<BExpr>,
        list: Vec<Value>,
        negated: bool,
    },
    /// Membership in a subquery's keys (of the expression's own type): a semi (anti) join.
    InSet {
        expr: Box<BExpr>,
        set: std::sync::Arc<KeySet>,
        negated: bool,
    },
    Case {
        whens: Vec<(BExpr, BExpr)>,
        otherwise: Box<BExpr>,
        ty: Type,
    },
    ExtractYear(Box<BExpr>),
    /// Whether the group of `key` holds a value other than `value`: a correlated `EXISTS`
    /// with an equality and an inequality (see [`KeyRanges`]).
    ExistsOther {
        key: Box<BExpr>,
        value: Box<BExpr>,
        groups: std::sync::Arc<KeyRanges>,
    },
    /// `substring(expr from start for len)` of text (characters, from 1; `len` `None`: to the
    /// end).
    Substring {
        expr: Box<BExpr>,
        start: i64,
        len: Option<i64>,
    },
}

impl BExpr {
    pub(crate) fn ty(&self) -> Type {
        match self {
            BExpr::Column { ty, .. }
            | BExpr::Literal(_, ty)
            | BExpr::Key(_, ty)
            | BExpr::Agg(_, ty)
            | BExpr::Arith(_, _, _, ty)
            | BExpr::Neg(_, ty)
            | BExpr::Case { ty, .. } => *ty,
            BExpr::ExtractYear(_) => Type::Int,
            BExpr::Substring { .. } => Type::Str,
            _ => Type::Bool,
        }
    }

    /// Every (table, column) the expression reads.
    pub(crate) fn columns(&self, out: &mut Vec<(usize, usize)>) {
        match self {
            BExpr::Column { table, column, .. } => {
                if !out.contains(&(*table, *column)) {
                    out.push((*table, *column))
                }
            }
            BExpr::Literal(..) | BExpr::Key(..) | BExpr::Agg(..) => {}
            BExpr::Arith(_, a, b, _) | BExpr::Compare(_, a, b) => {
                a.columns(out);
                b.columns(out);
            }
            BExpr::Neg(a, _) | BExpr::Not(a) | BExpr::ExtractYear(a) => a.columns(out),
            BExpr::Substring { expr, .. } => expr.columns(out),
            BExpr::ExistsOther { key, value, .. } => {
                key.columns(out);
                value.columns(out);
            }
            BExpr::And(list) | BExpr::Or(list) => list.iter().for_each(|e| e.columns(out)),
            BExpr::Like { expr, .. } | BExpr::InList { expr, .. } | BExpr::InSet { expr, .. } => {
                expr.columns(out)
            }
            BExpr::Case {
                whens, otherwise, ..
            } => {
                for (w, t) in whens {
                    w.columns(out);
                    t.columns(out);
                }
                otherwise.columns(out);
            }
        }
    }

    /// The tables the expression reads.
    pub(crate) fn tables(&self) -> Vec<usize> {
        let mut columns = Vec::new();
        self.columns(&mut columns);
        let mut tables: Vec<usize> = columns.into_iter().map(|(t, _)| t).collect();
        tables.sort_unstable();
        tables.dedup();
        tables
    }
}

/// A table in the query's FROM clause.
pub(crate) struct TableRef<'a> {
    pub alias: String,
    pub table: &'a Table,
}

/// The bound query: tables, filters (as conjuncts), grouping, aggregates, and what is done
/// with their results.
pub(crate) struct BoundQuery<'a> {
    pub tables: Vec<TableRef<'a>>,
    pub conjuncts: Vec<BExpr>,
    /// Aggregated: the group keys; not aggregated: the collected expressions.
    pub keys: Vec<BExpr>,
    pub aggregated: bool,
    pub aggregates: Vec<AggCall>,
    /// Output columns, over `Key`/`Agg` (evaluated per result row).
    pub outputs: Vec<(String, BExpr)>,
    pub having: Option<BExpr>,
    /// Sort keys over `Key`/`Agg`, descending flags.
    pub order_by: Vec<(BExpr, bool)>,
    pub limit: Option<usize>,
}

/// Parses `sql` into one statement, and says whether it is an `EXPLAIN`.
pub(crate) fn parse(sql: &str) -> Result<(ast::Query, bool)> {
    let dialect = sqlparser::dialect::GenericDialect {};
    let mut statements =
        sqlparser::parser::Parser::parse_sql(&dialect, sql).map_err(|e| QueryError::Syntax {
            message: e.to_string(),
        })?;
    if statements.len() != 1 {
        return Err(QueryError::unsupported(
            format!("{} statements in one call", statements.len()),
            Position::default(),
        ));
    }
    match statements.remove(0) {
        ast::Statement::Query(query) => Ok((*query, false)),
        ast::Statement::Explain {
            statement, analyze, ..
        } => {
            if analyze {
                return Err(QueryError::unsupported(
                    "EXPLAIN ANALYZE",
                    Position::default(),
                ));
            }
            match *statement {
                ast::Statement::Query(query) => Ok((*query, true)),
                other => Err(QueryError::unsupported(
                    "EXPLAIN of anything but a query",
                    position_of(&other),
                )),
            }
        }
        other => Err(QueryError::unsupported(
            "statements other than SELECT and EXPLAIN",
            position_of(&other),
        )),
    }
}

/// How an expression is being bound.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Over table rows.
    Rows,
    /// Over groups: aggregates and group keys allowed, bare columns not.
    Groups,
}

/// Runs an uncorrelated subquery to its rows.
pub(crate) type SubqueryRunner<'q> = &'q dyn Fn(&ast::Query) -> Result<ResultSet>;

/// Runs an uncorrelated subquery to integer columns where its plan allows, else to rows (a
/// correlated `EXISTS`'s groups).
pub(crate) type IntRunner<'q> = &'q dyn Fn(&ast::Query) -> Result<Grouped>;

struct Binder<'a, 'q> {
    tables: &'q [TableRef<'a>],
    keys: &'q [BExpr],
    aggregates: Vec<AggCall>,
    subquery: SubqueryRunner<'q>,
    ints: IntRunner<'q>,
}

fn unsupported<T>(what: impl Into<String>, node: &impl Spanned) -> Result<T> {
    Err(QueryError::unsupported(what, position_of(node)))
}

/// Binds a parsed query against the tables in `scope` (its common table expressions and
/// subqueries in FROM already materialized there, under their names). An uncorrelated
/// `x [NOT] IN (subquery)` runs its subquery through `subquery` first and becomes an IN list of
/// the rows it returned; a scalar subquery runs first and becomes a constant.
pub(crate) fn bind<'a>(
    query: &ast::Query,
    scope: &'a Scope<'_>,
    subquery: SubqueryRunner<'_>,
    ints: IntRunner<'_>,
) -> Result<BoundQuery<'a>> {
    if let Some(with) = &query.with {
        if with.recursive {
            return unsupported("WITH RECURSIVE", query);
        }
    }
    if query.fetch.is_some() || !query.locks.is_empty() || query.for_clause.is_some() {
        return unsupported("FETCH, FOR and locking clauses", query);
    }
    if query.settings.is_some() || query.format_clause.is_some() || !query.pipe_operators.is_empty()
    {
        return unsupported("SETTINGS, FORMAT and pipe operators", query);
    }
    let select = match query.body.as_ref() {
        SetExpr::Select(select) => select,
        other => return unsupported("set operations and VALUES", other),
    };
    if select.distinct.is_some() {
        return unsupported("SELECT DISTINCT", select.as_ref());
    }
    if select.top.is_some()
        || select.into.is_some()
        || !select.lateral_views.is_empty()
        || select.prewhere.is_some()
        || !select.cluster_by.is_empty()
        || !select.distribute_by.is_empty()
        || !select.sort_by.is_empty()
        || !select.named_window.is_empty()
        || select.qualify.is_some()
        || select.connect_by.is_some()
        || select.value_table_mode.is_some()
        || select.exclude.is_some()
    {
        return unsupported("this SELECT clause", select.as_ref());
    }
    // FROM: a list of plain tables (joins are written as WHERE equalities).
    let mut tables = Vec::new();
    for from in &select.from {
        if !from.joins.is_empty() {
            return unsupported(
                "JOIN syntax (write joins as FROM a, b WHERE a.x = b.y)",
                &from.joins[0].relation,
            );
        }
        match &from.relation {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                if args.is_some() {
                    return unsupported("table functions", &from.relation);
                }
                let (table, table_name) = scope.named(name)?;
                let alias = match alias {
                    Some(a) if !a.columns.is_empty() => {
                        return unsupported("column aliases in FROM", &from.relation)
                    }
                    Some(a) => a.name.value.to_lowercase(),
                    None => table_name,
                };
                if tables.iter().any(|t: &TableRef| t.alias == alias) {
                    return Err(QueryError::unsupported(
                        format!("table {alias} appearing twice in FROM"),
                        position_of(&from.relation),
                    ));
                }
                tables.push(TableRef { alias, table });
            }
            TableFactor::Derived {
                lateral: false,
                alias: Some(alias),
                ..
            } => {
                // Materialized in `scope` under its alias before binding.
                let name = alias.name.value.to_lowercase();
                if tables.iter().any(|t: &TableRef| t.alias == name) {
                    return Err(QueryError::unsupported(
                        format!("table {name} appearing twice in FROM"),
                        position_of(&from.relation),
                    ));
                }
                let table = scope.get(&name).ok_or_else(|| QueryError::UnknownTable {
                    name: name.clone(),
                    position: ident_position(&alias.name),
                })?;
                tables.push(TableRef { alias: name, table });
            }
            TableFactor::Derived { alias: None, .. } => {
                return unsupported("a subquery in FROM without an alias", &from.relation)
            }
            other => return unsupported("LATERAL, table functions and other FROM items", other),
        }
    }
    if tables.is_empty() {
        return unsupported("SELECT without FROM", select.as_ref());
    }
    let mut binder = Binder {
        tables: &tables,
        keys: &[],
        aggregates: Vec::new(),
        subquery,
        ints,
    };
    let mut conjuncts = Vec::new();
    if let Some(selection) = &select.selection {
        let filter = binder.bind(selection, Mode::Rows)?;
        expect_bool(&filter, selection)?;
        split_and(filter, &mut conjuncts);
    }
    let group_exprs: Vec<&Expr> = match &select.group_by {
        GroupByExpr::Expressions(exprs, modifiers) => {
            if !modifiers.is_empty() {
                return unsupported("GROUP BY modifiers", select.as_ref());
            }
            exprs.iter().collect()
        }
        GroupByExpr::All(_) => return unsupported("GROUP BY ALL", select.as_ref()),
    };
    let mut keys = Vec::new();
    for g in &group_exprs {
        keys.push(binder.bind(g, Mode::Rows)?);
    }
    // Output items.
    let mut items: Vec<(String, &Expr)> = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) => items.push((output_name(e), e)),
            SelectItem::ExprWithAlias { expr, alias } => {
                items.push((alias.value.to_lowercase(), expr))
            }
            other => return unsupported("* in SELECT (name the columns)", other),
        }
    }
    let has_aggregates = !keys.is_empty()
        || select.having.is_some()
        || items.iter().any(|(_, e)| contains_aggregate(e));
    let order_items: Vec<(&Expr, bool)> = match &query.order_by {
        None => Vec::new(),
        Some(order) => match &order.kind {
            OrderByKind::Expressions(list) => {
                let mut out = Vec::new();
                for o in list {
                    if o.with_fill.is_some() || o.options.nulls_first.is_some() {
                        return unsupported("WITH FILL and NULLS FIRST/LAST", &o.expr);
                    }
                    out.push((&o.expr, o.options.asc == Some(false)));
                }
                out
            }
            OrderByKind::All(_) => return unsupported("ORDER BY ALL", query),
        },
    };
    let limit = match &query.limit_clause {
        None => None,
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if offset.is_some() || !limit_by.is_empty() {
                return unsupported("OFFSET and LIMIT BY", query);
            }
            match limit {
                None => None,
                Some(e) => Some(literal_count(e)?),
            }
        }
        Some(other) => return unsupported("this LIMIT form", other),
    };
    let mut outputs = Vec::new();
    let mut order_by = Vec::new();
    let mut having = None;
    if has_aggregates {
        binder.keys = &keys;
        for (name, e) in &items {
            outputs.push((name.clone(), binder.bind(e, Mode::Groups)?));
        }
        if let Some(h) = &select.having {
            let bound = binder.bind(h, Mode::Groups)?;
            expect_bool(&bound, h)?;
            having = Some(bound);
        }
        for (e, desc) in &order_items {
            let bound = match order_reference(e, &items, &outputs)? {
                Some(output) => output,
                None => binder.bind(e, Mode::Groups)?,
            };
            order_by.push((bound, *desc));
        }
        let aggregates = std::mem::take(&mut binder.aggregates);
        Ok(BoundQuery {
            tables,
            conjuncts,
            keys,
            aggregated: true,
            aggregates,
            outputs,
            having,
            order_by,
            limit,
        })
    } else {
        // Without aggregation every output (and sort key) is a collected expression.
        let mut collected: Vec<BExpr> = Vec::new();
        let mut collect = |bound: BExpr| -> BExpr {
            // A text function of a column is applied to the collected text, per result row.
            if let BExpr::Substring { expr, start, len } = bound {
                let ty = expr.ty();
                let index = collected
                    .iter()
                    .position(|c| *c == *expr)
                    .unwrap_or_else(|| {
                        collected.push(*expr);
                        collected.len() - 1
                    });
                return BExpr::Substring {
                    expr: Box::new(BExpr::Key(index, ty)),
                    start,
                    len,
                };
            }
            let ty = bound.ty();
            let index = collected
                .iter()
                .position(|c| *c == bound)
                .unwrap_or_else(|| {
                    collected.push(bound);
                    collected.len() - 1
                });
            BExpr::Key(index, ty)
        };
        for (name, e) in &items {
            let bound = binder.bind(e, Mode::Rows)?;
            outputs.push((name.clone(), collect(bound)));
        }
        for (e, desc) in &order_items {
            let bound = match order_reference(e, &items, &outputs)? {
                Some(output) => output,
                None => collect(binder.bind(e, Mode::Rows)?),
            };
            order_by.push((bound, *desc));
        }
        Ok(BoundQuery {
            tables,
            conjuncts,
            keys: collected,
            aggregated: false,
            aggregates: Vec::new(),
            outputs,
            having: None,
            order_by,
            limit,
        })
    }
}

/// An ORDER BY item that names an output (by alias or position).
fn order_reference(
    e: &Expr,
    items: &[(String, &Expr)],
    outputs: &[(String, BExpr)],
) -> Result<Option<BExpr>> {
    match e {
        Expr::Identifier(ident) => {
            let name = ident.value.to_lowercase();
            // An alias that is not also a plain column of the same name.
            Ok(items
                .iter()
                .position(|(n, item)| {
                    *n == name
                        && !matches!(item, Expr::Identifier(i) if i.value.to_lowercase() == name)
                })
                .map(|i| outputs[i].1.clone()))
        }
        Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => {
                let k: usize = n.parse().map_err(|_| {
                    QueryError::type_error("ORDER BY position must be an integer", position_of(e))
                })?;
                if k == 0 || k > outputs.len() {
                    return Err(QueryError::type_error(
                        format!("ORDER BY position {k} is not in the select list"),
                        position_of(e),
                    ));
                }
                Ok(Some(outputs[k - 1].1.clone()))
            }
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

fn literal_count(e: &Expr) -> Result<usize> {
    if let Expr::Value(v) = e {
        if let ast::Value::Number(n, _) = &v.value {
            if let Ok(k) = n.parse::<usize>() {
                return Ok(k);
            }
        }
    }
    unsupported("a LIMIT that is not a constant integer", e)
}

/// The name of an unnamed output: a column's name, else the expression's text.
pub(crate) fn output_name(e: &Expr) -> String {
    match e {
        Expr::Identifier(i) => i.value.to_lowercase(),
        Expr::CompoundIdentifier(parts) => parts
            .last()
            .map(|i| i.value.to_lowercase())
            .unwrap_or_default(),
        other => other.to_string().to_lowercase(),
    }
}

fn expect_bool(e: &BExpr, node: &impl Spanned) -> Result<()> {
    if e.ty() == Type::Bool {
        Ok(())
    } else {
        Err(QueryError::type_error(
            format!("expected a condition, found {}", e.ty()),
            position_of(node),
        ))
    }
}

fn split_and(e: BExpr, out: &mut Vec<BExpr>) {
    match e {
        BExpr::And(list) => list.into_iter().for_each(|e| split_and(e, out)),
        other => out.push(other),
    }
}

fn aggregate_function(f: &ast::Function) -> Option<AggFunc> {
    Some(match f.name.to_string().to_lowercase().as_str() {
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "count" => AggFunc::Count,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        _ => return None,
    })
}

fn contains_aggregate(e: &Expr) -> bool {
    let text = e.to_string().to_lowercase();
    ["sum(", "avg(", "count(", "min(", "max("]
        .iter()
        .any(|f| text.contains(f))
}

impl Binder<'_, '_> {
    fn column(&self, parts: &[ast::Ident], node: &Expr) -> Result<BExpr> {
        let position = position_of(node);
        let (qualifier, name) = match parts {
            [name] => (None, name.value.to_lowercase()),
            [table, name] => (Some(table.value.to_lowercase()), name.value.to_lowercase()),
            _ => return unsupported("names with more than two parts", node),
        };
        let mut found = None;
        for (t, r) in self.tables.iter().enumerate() {
            if qualifier.as_ref().is_some_and(|q| *q != r.alias) {
                continue;
            }
            if let Some(c) = r.table.column_index(&name) {
                if found.is_some() {
                    return Err(QueryError::AmbiguousColumn { name, position });
                }
                found = Some((t, c));
            }
        }
        if let Some(q) = &qualifier {
            if !self.tables.iter().any(|r| r.alias == *q) {
                return Err(QueryError::UnknownTable {
                    name: q.clone(),
                    position,
                });
            }
        }
        let (table, column) = found.ok_or_else(|| QueryError::UnknownColumn {
            name: match &qualifier {
                Some(q) => format!("{q}.{name}"),
                None => name.clone(),
            },
            position,
        })?;
        let data = &self.tables[table].table.columns()[column].column;
        if data.null_count() > 0 {
            return Err(QueryError::unsupported(
                format!("column {name} with nulls"),
                position,
            ));
        }
        let ty = Type::of(data.data_type()).ok_or_else(|| {
            QueryError::unsupported(
                format!("column {name} of type {}", data.data_type()),
                position,
            )
        })?;
        Ok(BExpr::Column { table, column, ty })
    }

    fn bind(&mut self, e: &Expr, mode: Mode) -> Result<BExpr> {
        if mode == Mode::Groups {
            if let Expr::Function(f) = e {
                if let Some(func) = aggregate_function(f) {
                    return self.aggregate(func, f, e);
                }
            }
            if !contains_aggregate(e) {
                if let Ok(bound) = self.bind(e, Mode::Rows) {
                    if let Some(i) = self.keys.iter().position(|k| *k == bound) {
                        return Ok(BExpr::Key(i, bound.ty()));
                    }
                    if bound.tables().is_empty() {
                        return Ok(bound);
                    }
                    if matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
                        return Err(QueryError::type_error(
                            format!("column {e} must appear in GROUP BY or in an aggregate"),
                            position_of(e),
                        ));
                    }
                }
            }
        }
        match e {
            Expr::Identifier(ident) => match mode {
                Mode::Rows => self.column(std::slice::from_ref(ident), e),
                Mode::Groups => {
                    self.column(std::slice::from_ref(ident), e)?;
                    Err(QueryError::type_error(
                        format!("column {e} must appear in GROUP BY or in an aggregate"),
                        position_of(e),
                    ))
                }
            },
            Expr::CompoundIdentifier(parts) => self.column(parts, e),
            Expr::Nested(inner) => self.bind(inner, mode),
            Expr::Value(v) => literal(&v.value, e),
            Expr::TypedString(typed) => match (&typed.data_type, &typed.value.value) {
                (ast::DataType::Date, ast::Value::SingleQuotedString(text)) => {
                    let days = date::parse(text).map_err(|err| {
                        QueryError::type_error(format!("bad date {text:?}: {err}"), position_of(e))
                    })?;
                    Ok(BExpr::Literal(Value::Date(days), Type::Date))
                }
                _ => unsupported(format!("typed constant {e}"), e),
            },
            Expr::Interval(_) => unsupported("an interval outside date arithmetic", e),
            Expr::UnaryOp { op, expr } => {
                let inner = self.bind(expr, mode)?;
                match op {
                    UnaryOperator::Not => {
                        expect_bool(&inner, expr.as_ref())?;
                        Ok(BExpr::Not(Box::new(inner)))
                    }
                    UnaryOperator::Minus => {
                        let ty = inner.ty();
                        if !ty.is_exact() {
                            return Err(QueryError::type_error(
                                format!("cannot negate {ty}"),
                                position_of(e),
                            ));
                        }
                        Ok(fold(BExpr::Neg(Box::new(inner), ty)))
                    }
                    UnaryOperator::Plus => Ok(inner),
                    _ => unsupported(format!("operator {op}"), e),
                }
            }
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right, e, mode),
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind(expr, mode)?;
                let lo = self.bind(low, mode)?;
                let hi = self.bind(high, mode)?;
                let both = BExpr::And(vec![
                    compare(Cmp::Ge, x.clone(), lo, e)?,
                    compare(Cmp::Le, x, hi, e)?,
                ]);
                Ok(if *negated {
                    BExpr::Not(Box::new(both))
                } else {
                    both
                })
            }
            Expr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind(expr, mode)?;
                let mut values = Vec::new();
                for item in list {
                    match self.bind(item, mode)? {
                        BExpr::Literal(v, ty) => {
                            comparable(x.ty(), ty, item)?;
                            values.push(v)
                        }
                        _ => return unsupported("IN lists of non-constants", item),
                    }
                }
                Ok(BExpr::InList {
                    expr: Box::new(x),
                    list: values,
                    negated: *negated,
                })
            }
            Expr::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any || escape_char.is_some() {
                    return unsupported("LIKE ANY and ESCAPE", e);
                }
                let x = self.bind(expr, mode)?;
                if x.ty() != Type::Str {
                    return Err(QueryError::type_error(
                        format!("LIKE needs text, found {}", x.ty()),
                        position_of(expr.as_ref()),
                    ));
                }
                match self.bind(pattern, mode)? {
                    BExpr::Literal(Value::Str(p), _) => Ok(BExpr::Like {
                        expr: Box::new(x),
                        pattern: p,
                        negated: *negated,
                    }),
                    _ => unsupported("a LIKE pattern that is not a constant", pattern.as_ref()),
                }
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                if operand.is_some() {
                    return unsupported("CASE with an operand (write CASE WHEN x = ...)", e);
                }
                let mut whens = Vec::new();
                let mut ty: Option<Type> = None;
                for when in conditions {
                    let c = self.bind(&when.condition, mode)?;
                    expect_bool(&c, &when.condition)?;
                    let r = self.bind(&when.result, mode)?;
                    ty = Some(unify(ty, r.ty(), &when.result)?);
                    whens.push((c, r));
                }
                let otherwise = match else_result {
                    Some(x) => self.bind(x, mode)?,
                    None => return unsupported("CASE without ELSE (nulls)", e),
                };
                let ty = unify(ty, otherwise.ty(), e)?;
                if !ty.is_exact() {
                    return unsupported(format!("CASE results of type {ty}"), e);
                }
                Ok(BExpr::Case {
                    whens,
                    otherwise: Box::new(otherwise),
                    ty,
                })
            }
            Expr::Extract { field, expr, .. } => {
                if !matches!(field, DateTimeField::Year) {
                    return unsupported(format!("EXTRACT({field})"), e);
                }
                let x = self.bind(expr, mode)?;
                if x.ty() != Type::Date {
                    return Err(QueryError::type_error(
                        format!("EXTRACT needs a date, found {}", x.ty()),
                        position_of(expr.as_ref()),
                    ));
                }
                Ok(fold(BExpr::ExtractYear(Box::new(x))))
            }
            Expr::Function(f)
                if mode == Mode::Rows
                    && f.name.to_string().eq_ignore_ascii_case(crate::rewrite::EXISTS_OTHER) =>
            {
                self.exists_other(f, e)
            }
            Expr::Function(f) => match aggregate_function(f) {
                Some(_) => Err(QueryError::type_error(
                    "aggregates are only allowed in SELECT, HAVING and ORDER BY",
                    position_of(e),
                )),
                None => unsupported(format!("function {}", f.name), e),
            },
            Expr::InSubquery {
                expr,
                subquery,
                negated,
            } if mode == Mode::Rows => {
                let x = self.bind(expr, mode)?;
                // Integer, decimal and date keys: the subquery's keys straight from its scan
                // or aggregation as a key set (a semi or anti join); other types as an IN
                // list of its rows.
                let integral = |t: Type| t.is_exact() || t == Type::Date;
                let grouped = if integral(x.ty()) {
                    (self.ints)(subquery)?
                } else {
                    Grouped::Rows((self.subquery)(subquery)?)
                };
                let types = grouped.types();
                if types.len() != 1 {
                    return unsupported(
                        format!(
                            "an IN subquery returning {} columns (it must return one)",
                            types.len()
                        ),
                        subquery.as_ref(),
                    );
                }
                comparable(x.ty(), types[0], subquery.as_ref())?;
                if types[0] == x.ty() && integral(x.ty()) {
                    let set = match grouped {
                        Grouped::Keys { set, .. } => set,
                        other => KeySet::from_keys(&other.into_ints()?.columns[0]),
                    };
                    return Ok(BExpr::InSet {
                        expr: Box::new(x),
                        set: std::sync::Arc::new(set),
                        negated: *negated,
                    });
                }
                let rows = grouped.into_rows()?;
                let mut values: Vec<Value> =
                    rows.rows.into_iter().map(|mut r| r.remove(0)).collect();
                if values.contains(&Value::Null) {
                    return unsupported("an IN subquery returning nulls", subquery.as_ref());
                }
                values.sort_by(|a, b| a.sort_cmp(b));
                values.dedup();
                Ok(BExpr::InList {
                    expr: Box::new(x),
                    list: values,
                    negated: *negated,
                })
            }
            Expr::Subquery(subquery) => {
                // An uncorrelated scalar subquery runs first and becomes a constant.
                let rows = (self.subquery)(subquery)?;
                if rows.names.len() != 1 {
                    return unsupported(
                        format!(
                            "a scalar subquery returning {} columns (it must return one)",
                            rows.names.len()
                        ),
                        subquery.as_ref(),
                    );
                }
                if rows.rows.len() > 1 {
                    return Err(QueryError::type_error(
                        format!(
                            "a scalar subquery returned {} rows (at most one is allowed)",
                            rows.rows.len()
                        ),
                        position_of(subquery.as_ref()),
                    ));
                }
                let ty = rows.types[0];
                match rows.rows.into_iter().next().map(|mut r| r.remove(0)) {
                    None | Some(Value::Null) => unsupported(
                        "a scalar subquery without a value (NULL)",
                        subquery.as_ref(),
                    ),
                    Some(v) => Ok(BExpr::Literal(v, ty)),
                }
            }
            Expr::Exists { subquery, negated } if mode == Mode::Rows => {
                // Uncorrelated (a correlated one was rewritten to IN before binding): a
                // constant.
                let rows = (self.subquery)(subquery)?;
                Ok(BExpr::Literal(
                    Value::Bool(rows.rows.is_empty() == *negated),
                    Type::Bool,
                ))
            }
            Expr::InSubquery { .. } | Expr::Exists { .. } => unsupported(
                "this subquery (IN and EXISTS subqueries only in WHERE, correlated only by equalities)",
                e,
            ),
            Expr::IsNull(_) | Expr::IsNotNull(_) => unsupported("IS [NOT] NULL", e),
            Expr::Cast { .. } => unsupported("CAST", e),
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let x = self.bind(expr, mode)?;
                if x.ty() != Type::Str {
                    return Err(QueryError::type_error(
                        format!("SUBSTRING needs text, found {}", x.ty()),
                        position_of(expr.as_ref()),
                    ));
                }
                let mut int_of = |arg: &Option<Box<Expr>>| -> Result<Option<i64>> {
                    match arg {
                        None => Ok(None),
                        Some(a) => match self.bind(a, mode)? {
                            BExpr::Literal(Value::Int(v), _) => i64::try_from(v)
                                .map(Some)
                                .map_err(|_| QueryError::Overflow(format!("the position {v}"))),
                            _ => unsupported(
                                "a SUBSTRING position or length that is not a constant integer",
                                a.as_ref(),
                            ),
                        },
                    }
                };
                let start = int_of(substring_from)?.unwrap_or(1);
                let len = int_of(substring_for)?;
                if len.is_some_and(|l| l < 0) {
                    return Err(QueryError::type_error(
                        "a negative SUBSTRING length",
                        position_of(e),
                    ));
                }
                Ok(fold(BExpr::Substring {
                    expr: Box::new(x),
                    start,
                    len,
                }))
            }
            _ => unsupported(format!("the expression {e}"), e),
        }
    }

    /// `__exists_other(key, value, (select k, min(v), max(v) .. group by k))`, which the
    /// rewrite makes of a correlated `EXISTS` with an equality and an inequality: the subquery
    /// runs first and its groups become a [`KeyRanges`].
    fn exists_other(&mut self, f: &ast::Function, e: &Expr) -> Result<BExpr> {
        let args = match &f.args {
            FunctionArguments::List(list) => list.args.as_slice(),
            _ => &[],
        };
        let (key, value, subquery) = match args {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(k)), FunctionArg::Unnamed(FunctionArgExpr::Expr(v)), FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Subquery(q)))] => {
                (k, v, q)
            }
            _ => return unsupported(format!("function {}", f.name), e),
        };
        let key = self.bind(key, Mode::Rows)?;
        let value = self.bind(value, Mode::Rows)?;
        let groups = (self.ints)(subquery)?;
        let integral = |t: Type| t.is_exact() || t == Type::Date;
        let types = groups.types();
        if types.len() != 3
            || types[0] != key.ty()
            || types[1] != value.ty()
            || types[2] != value.ty()
            || !integral(key.ty())
            || !integral(value.ty())
        {
            return unsupported(
                format!(
                    "a correlated EXISTS with an inequality between {} and {} (only integer, decimal and date columns of the same type on both sides)",
                    key.ty(),
                    value.ty()
                ),
                e,
            );
        }
        let groups = match groups {
            // Straight from the subquery's scan.
            Grouped::Ranges { ranges, .. } => ranges,
            other => {
                let columns = other.into_ints()?;
                let [keys, lo, hi] = &columns.columns[..] else {
                    unreachable!("three columns, checked above")
                };
                KeyRanges::from_columns(keys, lo, hi)
            }
        };
        Ok(BExpr::ExistsOther {
            key: Box::new(key),
            value: Box::new(value),
            groups: std::sync::Arc::new(groups),
        })
    }

    fn aggregate(&mut self, func: AggFunc, f: &ast::Function, e: &Expr) -> Result<BExpr> {
        if f.filter.is_some()
            || f.over.is_some()
            || f.null_treatment.is_some()
            || !f.within_group.is_empty()
            || !matches!(f.parameters, FunctionArguments::None)
        {
            return unsupported("window functions and aggregate modifiers", e);
        }
        let list = match &f.args {
            FunctionArguments::List(list) => list,
            _ => return unsupported("this aggregate call", e),
        };
        if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
            return unsupported("DISTINCT and clauses inside aggregates", e);
        }
        let arg = match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if func == AggFunc::Count => None,
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => {
                if contains_aggregate(x) {
                    return unsupported("nested aggregates", x);
                }
                Some(self.bind(x, Mode::Rows)?)
            }
            _ => return unsupported("this aggregate's arguments", e),
        };
        let ty = match (func, arg.as_ref().map(BExpr::ty)) {
            (AggFunc::Count, _) => Type::Int,
            (AggFunc::Sum, Some(t)) if t.is_exact() => t,
            (AggFunc::Avg, Some(t)) if t.is_exact() => Type::Float,
            (AggFunc::Min | AggFunc::Max, Some(t)) if t != Type::Bool && t != Type::Float => t,
            (_, t) => {
                return Err(QueryError::type_error(
                    format!(
                        "{func:?} of {}",
                        t.map_or("*".to_string(), |t| t.to_string())
                    ),
                    position_of(e),
                ))
            }
        };
        let call = AggCall { func, arg, ty };
        let index = match self.aggregates.iter().position(|a| *a == call) {
            Some(i) => i,
            None => {
                self.aggregates.push(call);
                self.aggregates.len() - 1
            }
        };
        Ok(BExpr::Agg(index, ty))
    }

    fn binary(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        e: &Expr,
        mode: Mode,
    ) -> Result<BExpr> {
        // Date arithmetic with intervals folds to constants.
        if let Expr::Interval(interval) = right {
            let base = self.bind(left, mode)?;
            let sign = match op {
                BinaryOperator::Plus => 1,
                BinaryOperator::Minus => -1,
                _ => return unsupported(format!("operator {op} with an interval"), e),
            };
            return match base {
                BExpr::Literal(Value::Date(days), _) => Ok(BExpr::Literal(
                    Value::Date(add_interval(days, interval, sign, right)?),
                    Type::Date,
                )),
                _ => unsupported("interval arithmetic on non-constant dates", e),
            };
        }
        let a = self.bind(left, mode)?;
        let b = self.bind(right, mode)?;
        let arith = |op| -> Result<BExpr> {
            let (ta, tb) = (a.ty(), b.ty());
            let ty = match (op, ta, tb) {
                (Arith::Div, x, y)
                    if (x.is_exact() || x == Type::Float) && (y.is_exact() || y == Type::Float) =>
                {
                    Type::Float
                }
                (_, Type::Float, y) | (_, y, Type::Float) if y.is_exact() || y == Type::Float => {
                    Type::Float
                }
                (Arith::Mul, x, y) if x.is_exact() && y.is_exact() => {
                    let s = x.scale() + y.scale();
                    if s > 18 {
                        return Err(QueryError::type_error(
                            "a product with more than 18 decimals",
                            position_of(e),
                        ));
                    }
                    if s == 0 {
                        Type::Int
                    } else {
                        Type::Decimal(s)
                    }
                }
                (_, x, y) if x.is_exact() && y.is_exact() => {
                    let s = x.scale().max(y.scale());
                    if s == 0 {
                        Type::Int
                    } else {
                        Type::Decimal(s)
                    }
                }
                _ => {
                    return Err(QueryError::type_error(
                        format!("cannot apply {op:?} to {ta} and {tb}"),
                        position_of(e),
                    ))
                }
            };
            Ok(fold(BExpr::Arith(
                op,
                Box::new(a.clone()),
                Box::new(b.clone()),
                ty,
            )))
        };
        match op {
            BinaryOperator::Plus => arith(Arith::Add),
            BinaryOperator::Minus => arith(Arith::Sub),
            BinaryOperator::Multiply => arith(Arith::Mul),
            BinaryOperator::Divide => arith(Arith::Div),
            BinaryOperator::And | BinaryOperator::Or => {
                expect_bool(&a, left)?;
                expect_bool(&b, right)?;
                let mut list = Vec::new();
                let and = matches!(op, BinaryOperator::And);
                for x in [a, b] {
                    match (x, and) {
                        (BExpr::And(inner), true) | (BExpr::Or(inner), false) => list.extend(inner),
                        (x, _) => list.push(x),
                    }
                }
                Ok(if and {
                    BExpr::And(list)
                } else {
                    BExpr::Or(list)
                })
            }
            BinaryOperator::Eq => compare(Cmp::Eq, a, b, e),
            BinaryOperator::NotEq => compare(Cmp::Ne, a, b, e),
            BinaryOperator::Lt => compare(Cmp::Lt, a, b, e),
            BinaryOperator::LtEq => compare(Cmp::Le, a, b, e),
            BinaryOperator::Gt => compare(Cmp::Gt, a, b, e),
            BinaryOperator::GtEq => compare(Cmp::Ge, a, b, e),
            other => unsupported(format!("operator {other}"), e),
        }
    }
}

fn comparable(a: Type, b: Type, node: &impl Spanned) -> Result<()> {
    let ok = a == b || (a.is_exact() || a == Type::Float) && (b.is_exact() || b == Type::Float);
    if ok {
        Ok(())
    } else {
        Err(QueryError::type_error(
            format!("cannot compare {a} with {b}"),
            position_of(node),
        ))
    }
}

fn compare(op: Cmp, a: BExpr, b: BExpr, node: &Expr) -> Result<BExpr> {
    comparable(a.ty(), b.ty(), node)?;
    // An exact number against a double constant (a scalar subquery's average) becomes an
    // exact comparison that rows can test in code space.
    let exact = match (&a, &b) {
        (x, BExpr::Literal(Value::Float(f), _)) if x.ty().is_exact() => {
            exact_against_double(op, x, *f)
        }
        (BExpr::Literal(Value::Float(f), _), x) if x.ty().is_exact() => {
            exact_against_double(op.flip(), x, *f)
        }
        _ => None,
    };
    if let Some(e) = exact {
        return Ok(e);
    }
    Ok(fold(BExpr::Compare(op, Box::new(a), Box::new(b))))
}

/// `x op f` for an exact `x` of scale `s` compared as a double (`unscaled / 10^s`, as SQL
/// engines cast it), written as comparisons of `x` with exact constants: the doubles of
/// `unscaled` grow with it, so the rows that pass are a range of it.
fn exact_against_double(op: Cmp, x: &BExpr, f: f64) -> Option<BExpr> {
    if !f.is_finite() {
        return None;
    }
    let ty = x.ty();
    let s = ty.scale();
    let as_double = |u: i64| u as f64 / 10f64.powi(i32::from(s));
    // The first unscaled value whose double passes `pass` (a test that stays true above it).
    let first = |pass: &dyn Fn(f64) -> bool| -> i64 {
        let (mut lo, mut hi) = (i64::MIN / 4, i64::MAX / 4);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pass(as_double(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    };
    let at_least = first(&|v| v >= f);
    let above = first(&|v| v > f);
    let constant = |u: i64| {
        let v = if s == 0 {
            Value::Int(i128::from(u))
        } else {
            Value::Decimal {
                unscaled: i128::from(u),
                scale: s,
            }
        };
        Box::new(BExpr::Literal(v, ty))
    };
    let x = || Box::new(x.clone());
    let range = || {
        BExpr::And(vec![
            BExpr::Compare(Cmp::Ge, x(), constant(at_least)),
            BExpr::Compare(Cmp::Lt, x(), constant(above)),
        ])
    };
    Some(match op {
        Cmp::Ge => BExpr::Compare(Cmp::Ge, x(), constant(at_least)),
        Cmp::Gt => BExpr::Compare(Cmp::Ge, x(), constant(above)),
        Cmp::Lt => BExpr::Compare(Cmp::Lt, x(), constant(at_least)),
        Cmp::Le => BExpr::Compare(Cmp::Lt, x(), constant(above)),
        Cmp::Eq => range(),
        Cmp::Ne => BExpr::Not(Box::new(range())),
    })
}

fn unify(seen: Option<Type>, next: Type, node: &impl Spanned) -> Result<Type> {
    match seen {
        None => Ok(next),
        Some(t) if t == next => Ok(t),
        Some(t) if t.is_exact() && next.is_exact() => {
            let s = t.scale().max(next.scale());
            Ok(if s == 0 { Type::Int } else { Type::Decimal(s) })
        }
        Some(t) => Err(QueryError::type_error(
            format!("CASE results of types {t} and {next}"),
            position_of(node),
        )),
    }
}

fn literal(v: &ast::Value, node: &Expr) -> Result<BExpr> {
    match v {
        ast::Value::Number(text, _) => {
            if let Some((whole, fraction)) = text.split_once('.') {
                let scale = fraction.len();
                if scale > 18 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
                    return unsupported(format!("the number {text}"), node);
                }
                let digits = format!("{whole}{fraction}");
                let unscaled: i64 = digits.parse().map_err(|_| {
                    QueryError::unsupported(format!("the number {text}"), position_of(node))
                })?;
                Ok(BExpr::Literal(
                    Value::Decimal {
                        unscaled: i128::from(unscaled),
                        scale: scale as u8,
                    },
                    Type::Decimal(scale as u8),
                ))
            } else {
                let value: i64 = text.parse().map_err(|_| {
                    QueryError::unsupported(format!("the number {text}"), position_of(node))
                })?;
                Ok(BExpr::Literal(Value::Int(i128::from(value)), Type::Int))
            }
        }
        ast::Value::SingleQuotedString(s) => Ok(BExpr::Literal(Value::Str(s.clone()), Type::Str)),
        ast::Value::Boolean(b) => Ok(BExpr::Literal(Value::Bool(*b), Type::Bool)),
        other => unsupported(format!("the constant {other}"), node),
    }
}

/// `days` plus `sign` times the interval (days, months or years; month ends clamp).
fn add_interval(days: i32, interval: &ast::Interval, sign: i64, node: &Expr) -> Result<i32> {
    let amount: i64 = match interval.value.as_ref() {
        Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::Number(s, _) => {
                s.trim().parse().map_err(|_| {
                    QueryError::unsupported(format!("the interval {interval}"), position_of(node))
                })?
            }
            _ => return unsupported(format!("the interval {interval}"), node),
        },
        _ => return unsupported(format!("the interval {interval}"), node),
    };
    let amount = amount * sign;
    let (year, month, day) = date::civil_from_days(days);
    let result = match interval.leading_field {
        Some(DateTimeField::Day) | Some(DateTimeField::Days) => i64::from(days) + amount,
        Some(DateTimeField::Month) | Some(DateTimeField::Months) => {
            let months = year * 12 + i64::from(month) - 1 + amount;
            shifted(months, day)?
        }
        Some(DateTimeField::Year) | Some(DateTimeField::Years) => {
            let months = (year + amount) * 12 + i64::from(month) - 1;
            shifted(months, day)?
        }
        _ => return unsupported(format!("the interval {interval}"), node),
    };
    i32::try_from(result).map_err(|_| QueryError::Overflow("a date out of range".to_string()))
}

fn shifted(months: i64, day: u32) -> Result<i64> {
    let (year, month) = (months.div_euclid(12), months.rem_euclid(12) as u32 + 1);
    let mut day = day;
    loop {
        if let Ok(days) = date::days_from_civil(year, month, day) {
            return Ok(i64::from(days));
        }
        if day <= 28 {
            return Err(QueryError::Overflow("a date out of range".to_string()));
        }
        day -= 1;
    }
}

/// Folds an expression whose operands are all constants.
fn fold(e: BExpr) -> BExpr {
    let folded = match &e {
        BExpr::Arith(op, a, b, ty) => match (a.as_ref(), b.as_ref()) {
            (BExpr::Literal(x, _), BExpr::Literal(y, _)) => {
                crate::exec::arith_values(*op, x, y, *ty).ok()
            }
            _ => None,
        },
        BExpr::Neg(a, _) => match a.as_ref() {
            BExpr::Literal(Value::Int(v), t) => Some(Value::Int(-v)).filter(|_| *t == Type::Int),
            BExpr::Literal(Value::Decimal { unscaled, scale }, _) => Some(Value::Decimal {
                unscaled: -unscaled,
                scale: *scale,
            }),
            _ => None,
        },
        BExpr::Substring { expr, start, len } => match expr.as_ref() {
            BExpr::Literal(Value::Str(text), _) => {
                Some(Value::Str(substring(text, *start, *len).to_string()))
            }
            _ => None,
        },
        BExpr::ExtractYear(a) => match a.as_ref() {
            BExpr::Literal(Value::Date(d), _) => {
                Some(Value::Int(i128::from(date::civil_from_days(*d).0)))
            }
            _ => None,
        },
        _ => None,
    };
    match folded {
        Some(v) => {
            let ty = e.ty();
            BExpr::Literal(v, ty)
        }
        None => e,
    }
}

/// 10^k as i64 (k <= 18).
pub(crate) fn pow10_i64(k: u8) -> i64 {
    pow10(u32::from(k)) as i64
}

/// SQL's `substring(text from start for len)`: the characters at positions `start ..
/// start + len` (from 1) that exist.
pub(crate) fn substring(text: &str, start: i64, len: Option<i64>) -> &str {
    let end = len.map_or(i64::MAX, |l| start.saturating_add(l));
    let first = start.max(1);
    if end <= first {
        return "";
    }
    let mut chars = text.char_indices().map(|(i, _)| i).chain([text.len()]);
    let from = chars.nth((first - 1) as usize).unwrap_or(text.len());
    let to = if end == i64::MAX {
        text.len()
    } else {
        text[from..]
            .char_indices()
            .map(|(i, _)| from + i)
            .chain([text.len()])
            .nth((end - first) as usize)
            .unwrap_or(text.len())
    };
    &text[from..to]
}
