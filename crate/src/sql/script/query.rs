//! The script's one query: its `FROM` (the join or the window TVF), the projection and the
//! `WHERE`, and the join condition read into the scenario's bounds and keys.

use super::*;

impl State {
    pub(super) fn query_of(
        &mut self,
        q: sqlparser::ast::Query,
        at: Location,
        sink: Option<&Ident>,
    ) -> Result<(), SqlError> {
        if q.with.is_some() {
            return Err(unsupported(at, "WITH"));
        }
        if q.order_by.is_some() || q.limit_clause.is_some() {
            return Err(unsupported(at, "ORDER BY / LIMIT"));
        }
        match *q.body {
            SetExpr::Select(sel) => self.query(&sel, at, sink),
            SetExpr::Query(inner) => self.query_of(*inner, at, sink),
            _ => Err(unsupported(at, "this query shape (UNION, VALUES, …)")),
        }
    }

    pub(crate) fn table_index(&self, f: &TableFactor) -> Result<(usize, Option<Ident>), SqlError> {
        match f {
            TableFactor::Table { name, alias, .. } => {
                let id = last_ident(name);
                let i = self
                    .tables
                    .iter()
                    .position(|t| t.name.eq_ignore_ascii_case(&id.value))
                    .ok_or_else(|| {
                        err(id.span.start, format!("Object '{}' not found", id.value))
                    })?;
                Ok((i, alias.as_ref().map(|a| a.name.clone())))
            }
            other => Err(unsupported(
                other.span().start,
                "this FROM item (a table function or subquery)",
            )),
        }
    }

    pub(super) fn query(
        &mut self,
        sel: &sqlparser::ast::Select,
        at: Location,
        _sink: Option<&Ident>,
    ) -> Result<(), SqlError> {
        if let Some(prev) = self.query_at {
            return Err(err(
                at,
                format!(
                    "a script has one query (the first is at line {})",
                    prev.line
                ),
            ));
        }
        self.query_at = Some(at);
        if sel.from.len() != 1 {
            return Err(unsupported(
                at,
                "a FROM list of several tables (write a JOIN)",
            ));
        }
        if sel.distinct.is_some() {
            return Err(unsupported(at, "SELECT DISTINCT"));
        }
        if sel.having.is_some() {
            return Err(unsupported(at, "HAVING"));
        }
        for h in &sel.optimizer_hints {
            self.hint(&h.text, at)?;
        }
        let from = &sel.from[0];
        let window_join = !from.joins.is_empty() || sel.selection.is_some();
        if let Some(left) =
            crate::sql::window_join::windowed(&self.tables, &from.relation)?.filter(|_| window_join)
        {
            let wj = crate::sql::window_join::read(&self.tables, sel, from, left, at)?;
            let job = &mut self.sc.job;
            job.operator = OperatorKind::WindowTvfJoin;
            job.tvf = wj.tvf;
            job.sql.join = wj.join;
            self.keys = wj.keys;
            let semi = matches!(wj.join, JoinType::Semi | JoinType::Anti);
            let q = projection(&wj.tables, &wj.inputs, sel, None, at, wj.join, semi)?;
            self.sc.job.query = Some(q);
            self.inputs = wj.inputs;
            return Ok(());
        }
        if let TableFactor::TableFunction { expr, .. } = &from.relation {
            if let Some(w) = &sel.selection {
                return Err(unsupported(w.span().start, "WHERE with a window TVF"));
            }
            if !from.joins.is_empty() {
                return Err(unsupported(
                    from.joins[0].relation.span().start,
                    "a join of a window TVF (a window join joins two windowed subqueries)",
                ));
            }
            let (agg, input) = crate::sql::tvf::window_aggregate(&self.tables, sel, expr)?;
            let job = &mut self.sc.job;
            job.operator = OperatorKind::WindowTvfAggregate;
            job.tvf = agg.tvf;
            // The stream's key column is the first GROUP BY key (window_tvf_aggregate::validate).
            self.keys = agg.group.keys.first().map(|k| (k.clone(), String::new()));
            job.group = agg.group;
            self.inputs = vec![(input, None)];
            return Ok(());
        }
        if !matches!(&sel.group_by, sqlparser::ast::GroupByExpr::Expressions(v, _) if v.is_empty())
        {
            return Err(unsupported(
                at,
                "GROUP BY without a window TVF (an unbounded aggregation)",
            ));
        }
        let (li, la) = self.table_index(&from.relation)?;
        let mut inputs = vec![(li, la)];
        if from.joins.len() > 1 {
            return Err(unsupported(
                from.joins[1].relation.span().start,
                "a join of more than two tables",
            ));
        }
        if let Some(j) = from.joins.first() {
            let (ri, ra) = self.table_index(&j.relation)?;
            if ri == li {
                return Err(unsupported(j.relation.span().start, "a self-join"));
            }
            inputs.push((ri, ra));
            let (jt, cons) = match &j.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinType::Inner, c),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinType::Left, c),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinType::Right, c),
                JoinOperator::FullOuter(c) => (JoinType::Full, c),
                _ => return Err(unsupported(j.relation.span().start, "this kind of join")),
            };
            let on = match cons {
                JoinConstraint::On(e) => e.clone(),
                _ => return Err(unsupported(j.relation.span().start, "a join without ON")),
            };
            let version = match &j.relation {
                TableFactor::Table { version, .. } => version.clone(),
                _ => None,
            };
            let resolver = Resolver {
                tables: &self.tables,
                inputs: &inputs,
                proctime_ok: false,
            };
            let mut conj = Vec::new();
            split_and(&on, &mut conj);
            let mut keys: Vec<(String, String)> = Vec::new();
            let mut lower: Option<(i64, bool)> = None;
            let mut upper: Option<(i64, bool)> = None;
            for c in conj {
                if let Some((a, b)) = resolver.equi(c)? {
                    keys.push((a, b));
                    continue;
                }
                match resolver.time_bound(c)? {
                    Some(bounds) => {
                        for (is_lower, v, strict) in bounds {
                            let slot = if is_lower { &mut lower } else { &mut upper };
                            if slot.is_some() {
                                return Err(unsupported(
                                    c.span().start,
                                    "a second bound on the same side of the interval",
                                ));
                            }
                            *slot = Some((v, strict));
                        }
                    }
                    None => return Err(unsupported(
                        c.span().start,
                        "this join condition (only key equalities and time bounds are simulated)",
                    )),
                }
            }
            if keys.len() > 1 {
                return Err(unsupported(
                    on.span().start,
                    "a join on several key columns",
                ));
            }
            let lt = &self.tables[li];
            let job = &mut self.sc.job;
            job.sql.join = jt;
            if let Some(v) = version {
                let TableVersion::ForSystemTimeAsOf(e) = &v else {
                    return Err(unsupported(at, "this table version"));
                };
                if jt != JoinType::Inner && jt != JoinType::Left {
                    // TemporalJoinRewriteWithUniqueKeyRule / the temporal join rules match
                    // INNER and LEFT joins only; Flink finds no plan for the others.
                    return Err(err(
                        e.span().start,
                        "a temporal join is an INNER JOIN or a LEFT JOIN (Flink has no plan for other join types)",
                    ));
                }
                let resolver = Resolver {
                    tables: &self.tables,
                    inputs: &inputs,
                    proctime_ok: false,
                };
                match resolver.column(e)? {
                    Some((0, c)) if resolver.is_time_attr(0, &c) => {}
                    _ => {
                        return Err(err(
                            e.span().start,
                            "FOR SYSTEM_TIME AS OF takes the left table's time attribute (its rowtime or PROCTIME() column)",
                        ))
                    }
                }
                let rt = &self.tables[ri];
                if lt.proctime.is_none() {
                    // LogicalCorrelateToJoinFromGeneralTemporalTableRule, which runs before the
                    // primary key is checked (Flink's words).
                    let Some((rcol, _, _)) = &rt.watermark else {
                        return Err(err(
                            e.span().start,
                            "Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found.",
                        ));
                    };
                    let ty = |t: &Table, c: &str| {
                        t.columns
                            .iter()
                            .find(|(n, _, _)| n == c)
                            .map(|(_, ty, _)| *ty)
                    };
                    let left = lt.watermark.as_ref().and_then(|(c, _, _)| ty(lt, c));
                    if let (Some(a), Some(b)) = (left, ty(rt, rcol)) {
                        if a != b {
                            return Err(err(
                                e.span().start,
                                format!(
                                    "Event-Time Temporal Table Join requires same rowtime type in left table and versioned table, but the rowtime types are {} *ROWTIME* and {} *ROWTIME*.",
                                    a.sql_name(),
                                    b.sql_name()
                                ),
                            ));
                        }
                    }
                }
                if lt.proctime.is_none() && rt.primary_key.is_empty() {
                    // TemporalJoinUtil.validateTemporalFunctionPrimaryKey (Flink's words).
                    return Err(err(
                        e.span().start,
                        "Temporal Table Join requires primary key in versioned table, but no primary key can be found.",
                    ));
                }
                let job = &mut self.sc.job;
                job.operator = if lt.proctime.is_some() {
                    OperatorKind::LookupJoin
                } else {
                    OperatorKind::TemporalJoin
                };
                if lower.is_some() || upper.is_some() {
                    return Err(unsupported(
                        on.span().start,
                        "a time bound in a temporal join",
                    ));
                }
            } else {
                match (lower, upper) {
                    (None, None) => job.operator = OperatorKind::RegularJoin,
                    (Some((lo, ls)), Some((hi, hs))) => {
                        job.operator = OperatorKind::SqlIntervalJoin;
                        job.sql.lower = Millis(lo);
                        job.sql.upper = Millis(hi);
                        job.sql.lower_strict = ls;
                        job.sql.upper_strict = hs;
                        if lt.proctime.is_some() {
                            job.sql.time = TimeKind::Processing;
                        }
                    }
                    _ => {
                        return Err(unsupported(
                            on.span().start,
                            "a join with one time bound (Flink plans it as a regular join with a non-equi condition)",
                        ))
                    }
                }
            }
            if let Some((a, b)) = keys.first() {
                self.keys = Some((a.clone(), b.clone()));
            }
        } else {
            return Err(unsupported(
                at,
                "a query without a join (window TVF aggregation is planned)",
            ));
        }
        let q = projection(
            &self.tables,
            &inputs,
            sel,
            sel.selection.as_ref(),
            at,
            self.sc.job.sql.join,
            false,
        )?;
        self.sc.job.query = Some(q);
        self.inputs = inputs;
        Ok(())
    }
}

/// The tables as a window join's query sees them: each with the TVF's window columns
/// (`window_start`, `window_end`, `window_time`, all `TIMESTAMP(3)`) after its own.
pub(crate) fn projection_tables(tables: &[Table]) -> Vec<Table> {
    tables
        .iter()
        .map(|t| {
            let mut t = t.clone();
            for w in crate::sql::window_join::WINDOW_COLUMNS {
                if !t.has(w) {
                    t.columns
                        .push((w.to_string(), SqlType::Timestamp { ltz: false }, t.at));
                }
            }
            t
        })
        .collect()
}

/// The select list and the `WHERE` of a query over its two inputs (`tables` as the query
/// sees them: a window join's inputs carry the TVF's window columns).
pub(crate) fn projection(
    tables: &[Table],
    inputs: &[(usize, Option<Ident>)],
    sel: &sqlparser::ast::Select,
    selection: Option<&Expr>,
    at: Location,
    jt: JoinType,
    semi: bool,
) -> Result<QuerySpec, SqlError> {
    // The projection.
    let resolver = Resolver {
        tables,
        inputs,
        proctime_ok: false,
    };
    // The select list may name a PROCTIME() column (its value is the output's processing
    // time); a WHERE may not.
    let selector = Resolver {
        proctime_ok: true,
        ..resolver
    };
    let mut items = Vec::new();
    let mut star_only = true;
    for (i, it) in sel.projection.iter().enumerate() {
        match it {
            SItem::Wildcard(_) => {
                // A semi or anti join gives the left input's columns only.
                for (side, (ti, _)) in inputs.iter().enumerate().take(if semi { 1 } else { 2 }) {
                    for n in all_columns(&tables[*ti]) {
                        items.push(SelectItem {
                            expr: SqlExpr::Col {
                                input: side as u8,
                                name: n.clone(),
                            },
                            name: n,
                        });
                    }
                }
            }
            SItem::QualifiedWildcard(kind, _) => {
                star_only = false;
                let name = match kind {
                    sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(n) => last_ident(n),
                    _ => return Err(unsupported(at, "this wildcard")),
                };
                let side = resolver.side_of(&name)?;
                for n in all_columns(&tables[inputs[side].0]) {
                    items.push(SelectItem {
                        expr: SqlExpr::Col {
                            input: side as u8,
                            name: n.clone(),
                        },
                        name: n,
                    });
                }
            }
            SItem::UnnamedExpr(e) => {
                star_only = false;
                let x = selector.expr(e)?;
                let name = match &x {
                    SqlExpr::Col { name, .. } => name.clone(),
                    _ => format!("EXPR${i}"),
                };
                items.push(SelectItem { expr: x, name });
            }
            SItem::ExprWithAlias { expr, alias } => {
                star_only = false;
                items.push(SelectItem {
                    expr: selector.expr(expr)?,
                    name: alias.value.clone(),
                });
            }
            _ => return Err(unsupported(at, "this select item")),
        }
    }
    // Calcite makes output names unique with a numeric suffix (SqlValidatorUtil.uniquify).
    let mut seen: Vec<String> = Vec::new();
    for it in &mut items {
        if seen.iter().any(|s| s.eq_ignore_ascii_case(&it.name)) {
            let mut k = 0;
            while seen
                .iter()
                .any(|s| s.eq_ignore_ascii_case(&format!("{}{k}", it.name)))
            {
                k += 1;
            }
            it.name = format!("{}{k}", it.name);
        }
        seen.push(it.name.clone());
    }
    // WHERE: each conjunct on one input whose rows the join keeps is pushed below the
    // join (FlinkFilterJoinRule); anything else is not simulated.
    let mut wheres: [Option<SqlExpr>; 2] = [None, None];
    if let Some(w) = selection {
        let mut conj = Vec::new();
        split_and(w, &mut conj);

        for c in conj {
            let x = resolver.expr(c)?;
            let mut sides = [false, false];
            sides_of(&x, &mut sides);
            let side = match sides {
                [true, false] => 0,
                [false, true] => 1,
                [false, false] => {
                    return Err(unsupported(
                        c.span().start,
                        "a WHERE condition on no column",
                    ))
                }
                _ => {
                    return Err(unsupported(
                        c.span().start,
                        "a WHERE condition on both inputs (a condition applied after the join)",
                    ))
                }
            };
            let kept = match side {
                0 => !jt.right_outer() || jt == JoinType::Inner,
                _ => !jt.left_outer() || jt == JoinType::Inner,
            };
            if !kept {
                return Err(unsupported(
                        c.span().start,
                        "a WHERE condition on the side an outer join pads with NULLs (Flink filters after the join or turns the join into an inner one)",
                    ));
            }
            wheres[side] = Some(match wheres[side].take() {
                None => x,
                Some(prev) => SqlExpr::Bin {
                    op: BinOp::And,
                    left: Box::new(prev),
                    right: Box::new(x),
                },
            });
        }
    }
    let [where_left, where_right] = wheres;
    Ok(QuerySpec {
        select: if star_only { Vec::new() } else { items },
        where_left,
        where_right,
    })
}

/// Which inputs an expression reads.
pub(super) fn sides_of(e: &SqlExpr, out: &mut [bool; 2]) {
    match e {
        SqlExpr::Col { input, .. } => out[(*input as usize).min(1)] = true,
        SqlExpr::Lit(_) | SqlExpr::Interval(_) => {}
        SqlExpr::Bin { left, right, .. } => {
            sides_of(left, out);
            sides_of(right, out);
        }
        SqlExpr::Not(x) | SqlExpr::Neg(x) => sides_of(x, out),
        SqlExpr::IsNull { expr, .. } => sides_of(expr, out),
        SqlExpr::Cast { expr, .. } | SqlExpr::Common { expr, .. } => sides_of(expr, out),
        SqlExpr::Coalesce(a) => a.iter().for_each(|x| sides_of(x, out)),
        SqlExpr::Case { when, otherwise } => {
            for (c, v) in when {
                sides_of(c, out);
                sides_of(v, out);
            }
            if let Some(o) = otherwise {
                sides_of(o, out);
            }
        }
    }
}

pub(crate) fn split_and<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        Expr::Nested(inner) => split_and(inner, out),
        _ => out.push(e),
    }
}

/// A bound on `L.t - R.t`: (is the lower bound, value in ms, strict).
pub(super) type Bound = (bool, i64, bool);

#[derive(Clone, Copy)]
pub(crate) struct Resolver<'a> {
    pub(crate) tables: &'a [Table],
    pub(crate) inputs: &'a [(usize, Option<Ident>)],
    /// Whether a `PROCTIME()` column may be named (in the select list).
    pub(crate) proctime_ok: bool,
}

impl Resolver<'_> {
    fn side_of(&self, q: &Ident) -> Result<usize, SqlError> {
        for (side, (ti, alias)) in self.inputs.iter().enumerate() {
            let name_ok = match alias {
                Some(a) => a.value.eq_ignore_ascii_case(&q.value),
                None => self.tables[*ti].name.eq_ignore_ascii_case(&q.value),
            };
            if name_ok {
                return Ok(side);
            }
        }
        Err(err(q.span.start, format!("Table '{}' not found", q.value)))
    }

    /// A column reference -> (side, canonical name).
    pub(crate) fn column(&self, e: &Expr) -> Result<Option<(usize, String)>, SqlError> {
        match e {
            Expr::Identifier(id) => {
                let hits: Vec<usize> = self
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, (ti, _))| self.tables[*ti].has(&id.value))
                    .map(|(s, _)| s)
                    .collect();
                match hits.as_slice() {
                    [s] => Ok(Some((
                        *s,
                        self.tables[self.inputs[*s].0]
                            .canonical(&id.value)
                            .unwrap_or_default(),
                    ))),
                    [] => Err(err(
                        id.span.start,
                        format!("Column '{}' not found in any table", id.value),
                    )),
                    _ => Err(err(
                        id.span.start,
                        format!("Column '{}' is ambiguous", id.value),
                    )),
                }
            }
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let side = self.side_of(&parts[0])?;
                let t = &self.tables[self.inputs[side].0];
                match t.canonical(&parts[1].value) {
                    Some(n) => Ok(Some((side, n))),
                    None => Err(err(
                        parts[1].span.start,
                        format!(
                            "Column '{}' not found in table '{}'",
                            parts[1].value, parts[0].value
                        ),
                    )),
                }
            }
            Expr::Nested(inner) => self.column(inner),
            _ => Ok(None),
        }
    }

    fn is_time_attr(&self, side: usize, name: &str) -> bool {
        let t = &self.tables[self.inputs[side].0];
        t.watermark.as_ref().is_some_and(|(c, _, _)| c == name)
            || t.proctime.as_deref() == Some(name)
    }

    /// `L.k = R.k`.
    fn equi(&self, e: &Expr) -> Result<Option<(String, String)>, SqlError> {
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = e
        {
            if let (Some((sa, a)), Some((sb, b))) = (self.column(left)?, self.column(right)?) {
                if sa != sb && !self.is_time_attr(sa, &a) {
                    // Keys of different DECIMAL types are both cast to their common type
                    // before the exchange, which then hashes that type's bytes.
                    let ty = |side: usize, n: &str| {
                        self.tables[self.inputs[side].0]
                            .columns
                            .iter()
                            .find(|(c, _, _)| c == n)
                            .map(|(_, t, _)| *t)
                    };
                    let (ta, tb) = (ty(sa, &a), ty(sb, &b));
                    if ta != tb
                        && [ta, tb]
                            .iter()
                            .any(|t| matches!(t, Some(SqlType::Decimal(..))))
                    {
                        return Err(unsupported(
                            e.span().start,
                            "a join key equality of columns of different types where one is a DECIMAL (declare both with the same DECIMAL(p, s))",
                        ));
                    }
                    return Ok(Some(if sa == 0 { (a, b) } else { (b, a) }));
                }
            }
        }
        Ok(None)
    }

    /// `X.t [± INTERVAL]` -> (side, offset).
    fn time_term(&self, e: &Expr) -> Result<Option<(usize, i64)>, SqlError> {
        if let Some((s, n)) = self.column(e)? {
            return Ok(self.is_time_attr(s, &n).then_some((s, 0)));
        }
        match e {
            Expr::BinaryOp {
                left,
                op: op @ (BinaryOperator::Plus | BinaryOperator::Minus),
                right,
            } => {
                if let Some((s, o)) = self.time_term(left)? {
                    if matches!(right.as_ref(), Expr::Interval(_)) {
                        let ms = interval_ms(right)?;
                        return Ok(Some((
                            s,
                            if *op == BinaryOperator::Plus {
                                o + ms
                            } else {
                                o - ms
                            },
                        )));
                    }
                }
                Ok(None)
            }
            Expr::Nested(inner) => self.time_term(inner),
            _ => Ok(None),
        }
    }

    /// A time condition -> bounds on `L.t - R.t`: (is_lower, value, strict).
    fn time_bound(&self, e: &Expr) -> Result<Option<Vec<Bound>>, SqlError> {
        let cmp = |a: &Expr,
                   op: &BinaryOperator,
                   b: &Expr|
         -> Result<Option<(bool, i64, bool)>, SqlError> {
            let (Some((sa, oa)), Some((sb, ob))) = (self.time_term(a)?, self.time_term(b)?) else {
                return Ok(None);
            };
            if sa == sb {
                return Ok(None);
            }
            // Normalise to L.t op R.t + c.
            let (op, c) = if sa == 0 {
                (op.clone(), ob - oa)
            } else {
                let flipped = match op {
                    BinaryOperator::Lt => BinaryOperator::Gt,
                    BinaryOperator::LtEq => BinaryOperator::GtEq,
                    BinaryOperator::Gt => BinaryOperator::Lt,
                    BinaryOperator::GtEq => BinaryOperator::LtEq,
                    o => o.clone(),
                };
                (flipped, oa - ob)
            };
            Ok(match op {
                BinaryOperator::GtEq => Some((true, c, false)),
                BinaryOperator::Gt => Some((true, c, true)),
                BinaryOperator::LtEq => Some((false, c, false)),
                BinaryOperator::Lt => Some((false, c, true)),
                _ => None,
            })
        };
        match e {
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => {
                let lo = cmp(expr, &BinaryOperator::GtEq, low)?;
                let hi = cmp(expr, &BinaryOperator::LtEq, high)?;
                Ok(match (lo, hi) {
                    (Some(a), Some(b)) => Some(vec![a, b]),
                    _ => None,
                })
            }
            Expr::BinaryOp { left, op, right } => Ok(cmp(left, op, right)?.map(|b| vec![b])),
            Expr::Nested(inner) => self.time_bound(inner),
            _ => Ok(None),
        }
    }

    /// The static type of an expression over the inputs' columns, as the planner infers it
    /// (`None`: NULL, an interval, or a type the simulation does not track). Arithmetic
    /// follows Calcite / `LogicalTypeMerging`: integers stay integers (`INT` op `BIGINT` is
    /// `BIGINT`), any `DOUBLE` makes a `DOUBLE`, otherwise a `DECIMAL` by
    /// `findAdditionDecimalType` and the others (an integer as `DECIMAL(10, 0)` /
    /// `DECIMAL(19, 0)`).
    fn static_type(&self, e: &SqlExpr) -> Option<SqlType> {
        use crate::decimal as dec;
        use crate::sql::ir::Literal;
        let as_dec = |t: SqlType| match t {
            SqlType::Int => Some((10, 0)),
            SqlType::Bigint => Some((19, 0)),
            SqlType::Decimal(p, s) => Some((p, s)),
            _ => None,
        };
        Some(match e {
            SqlExpr::Col { input, name } => {
                let (ti, _) = self.inputs.get(*input as usize)?;
                let t = &self.tables[*ti];
                if self.is_time_attr(*input as usize, name) {
                    return Some(SqlType::Timestamp { ltz: false });
                }
                t.columns.iter().find(|(n, _, _)| n == name)?.1
            }
            SqlExpr::Lit(l) => match l {
                Literal::Null => return None,
                Literal::Int(_) => SqlType::Int,
                Literal::Long(_) => SqlType::Bigint,
                Literal::Double(_) => SqlType::Double,
                Literal::Decimal(d) => SqlType::Decimal(d.precision, d.scale),
                Literal::Str(_) => SqlType::String,
                Literal::Bool(_) => SqlType::Boolean,
                Literal::Timestamp(_) => SqlType::Timestamp { ltz: false },
            },
            SqlExpr::Interval(_) => return None,
            SqlExpr::Not(_) | SqlExpr::IsNull { .. } => SqlType::Boolean,
            SqlExpr::Neg(x) => self.static_type(x)?,
            SqlExpr::Cast { ty, .. } | SqlExpr::Common { ty, .. } => {
                match crate::value::ColumnType::parse(ty)? {
                    crate::value::ColumnType::Decimal(p, s) => SqlType::Decimal(p, s),
                    crate::value::ColumnType::Int => SqlType::Int,
                    crate::value::ColumnType::Long => SqlType::Bigint,
                    crate::value::ColumnType::Double => SqlType::Double,
                    crate::value::ColumnType::Boolean => SqlType::Boolean,
                    crate::value::ColumnType::String => SqlType::String,
                }
            }
            SqlExpr::Coalesce(args) => self.common_type(args.iter())?,
            SqlExpr::Case { when, otherwise } => {
                self.common_type(when.iter().map(|(_, v)| v).chain(otherwise.as_deref()))?
            }
            SqlExpr::Bin { op, left, right } => match op {
                BinOp::Concat => SqlType::String,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                    let (l, r) = (self.static_type(left)?, self.static_type(right)?);
                    match (l, r) {
                        (SqlType::Int, SqlType::Int) => SqlType::Int,
                        (SqlType::Int | SqlType::Bigint, SqlType::Int | SqlType::Bigint) => {
                            SqlType::Bigint
                        }
                        (SqlType::Double, _) | (_, SqlType::Double) => SqlType::Double,
                        _ => {
                            let ((p1, s1), (p2, s2)) = (as_dec(l)?, as_dec(r)?);
                            let (p, s) = match op {
                                BinOp::Add | BinOp::Sub => dec::addition_type(p1, s1, p2, s2),
                                BinOp::Mul => dec::multiplication_type(p1, s1, p2, s2),
                                BinOp::Div => dec::division_type(p1, s1, p2, s2),
                                _ => dec::modulo_type(p1, s1, p2, s2),
                            };
                            SqlType::Decimal(p, s)
                        }
                    }
                }
                _ => SqlType::Boolean,
            },
        })
    }

    /// The common type of a `CASE`'s or `COALESCE`'s branches when they are all numeric
    /// (`LogicalTypeMerging.findCommonType`: `createCommonExactNumericType` keeps the most
    /// integral digits and the largest scale within 38 digits; any `DOUBLE` gives `DOUBLE`);
    /// NULL branches do not count.
    fn common_type<'e>(&self, branches: impl Iterator<Item = &'e SqlExpr>) -> Option<SqlType> {
        let mut acc: Option<SqlType> = None;
        for b in branches {
            let Some(t) = self.static_type(b) else {
                if matches!(b, SqlExpr::Lit(crate::sql::ir::Literal::Null)) {
                    continue;
                }
                return None;
            };
            acc = Some(match acc {
                None => t,
                Some(a) if a == t => a,
                Some(a) => common_numeric(a, t)?,
            });
        }
        acc
    }

    /// Wraps a `CASE` / `COALESCE` whose numeric branches differ in type into a cast to their
    /// common type (see [`SqlExpr::Common`]).
    fn common(&self, e: SqlExpr) -> SqlExpr {
        let branches: Vec<&SqlExpr> = match &e {
            SqlExpr::Coalesce(a) => a.iter().collect(),
            SqlExpr::Case { when, otherwise } => when
                .iter()
                .map(|(_, v)| v)
                .chain(otherwise.as_deref())
                .collect(),
            _ => return e,
        };
        let Some(t) = self.common_type(branches.iter().copied()) else {
            return e;
        };
        let differ = branches.iter().any(|b| {
            !matches!(b, SqlExpr::Lit(crate::sql::ir::Literal::Null))
                && self.static_type(b) != Some(t)
        });
        if differ
            && matches!(
                t,
                SqlType::Int | SqlType::Bigint | SqlType::Double | SqlType::Decimal(..)
            )
        {
            SqlExpr::Common {
                expr: Box::new(e),
                ty: t.sql_name().into(),
            }
        } else {
            e
        }
    }

    fn expr(&self, e: &Expr) -> Result<SqlExpr, SqlError> {
        let at = e.span().start;
        if let Some((side, name)) = self.column(e)? {
            if !self.proctime_ok
                && self.tables[self.inputs[side].0].proctime.as_deref() == Some(name.as_str())
            {
                // Flink materialises it as the wall clock when the row is processed
                // (PROCTIME_MATERIALIZE): not a value the simulation gives.
                return Err(unsupported(
                    at,
                    "a PROCTIME() column in a WHERE (its value is the wall clock when Flink processes the row)",
                ));
            }
            return Ok(SqlExpr::Col {
                input: side as u8,
                name,
            });
        }
        let b = |x: &Expr| -> Result<Box<SqlExpr>, SqlError> { Ok(Box::new(self.expr(x)?)) };
        Ok(match e {
            Expr::Value(_) | Expr::TypedString(_) => SqlExpr::Lit(literal(e)?),
            Expr::Interval(_) => SqlExpr::Interval(interval_ms(e)?),
            Expr::Nested(inner) => self.expr(inner)?,
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => SqlExpr::Not(b(expr)?),
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => SqlExpr::Neg(b(expr)?),
            Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            } => self.expr(expr)?,
            Expr::IsNull(x) => SqlExpr::IsNull {
                expr: b(x)?,
                negated: false,
            },
            Expr::IsNotNull(x) => SqlExpr::IsNull {
                expr: b(x)?,
                negated: true,
            },
            Expr::BinaryOp { left, op, right } => {
                let op = match op {
                    BinaryOperator::Plus => BinOp::Add,
                    BinaryOperator::Minus => BinOp::Sub,
                    BinaryOperator::Multiply => BinOp::Mul,
                    BinaryOperator::Divide => BinOp::Div,
                    BinaryOperator::Modulo => BinOp::Mod,
                    BinaryOperator::Eq => BinOp::Eq,
                    BinaryOperator::NotEq => BinOp::Ne,
                    BinaryOperator::Lt => BinOp::Lt,
                    BinaryOperator::LtEq => BinOp::Le,
                    BinaryOperator::Gt => BinOp::Gt,
                    BinaryOperator::GtEq => BinOp::Ge,
                    BinaryOperator::And => BinOp::And,
                    BinaryOperator::Or => BinOp::Or,
                    BinaryOperator::StringConcat => BinOp::Concat,
                    other => return Err(unsupported(at, &format!("the operator {other}"))),
                };
                SqlExpr::Bin {
                    op,
                    left: b(left)?,
                    right: b(right)?,
                }
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let mut when = Vec::new();
                for c in conditions {
                    let cond = match operand {
                        Some(o) => SqlExpr::Bin {
                            op: BinOp::Eq,
                            left: b(o)?,
                            right: b(&c.condition)?,
                        },
                        None => self.expr(&c.condition)?,
                    };
                    when.push((cond, self.expr(&c.result)?));
                }
                let case = SqlExpr::Case {
                    when,
                    otherwise: match else_result {
                        Some(x) => Some(b(x)?),
                        None => None,
                    },
                };
                self.common(case)
            }
            Expr::Cast {
                expr, data_type, ..
            } => {
                let target = sql_type(data_type, at)?;
                let ty = match target {
                    SqlType::Timestamp { .. } => return Err(unsupported(at, "CAST to TIMESTAMP")),
                    t => t.sql_name(),
                };
                let inner = b(expr)?;
                if let SqlType::Decimal(..) = target {
                    // DOUBLE -> DECIMAL goes through Java 17's Double.toString
                    // (DecimalDataUtils.castFrom(double)), whose digits Rust's shortest form does
                    // not always match; STRING and BOOLEAN casts have rules of their own.
                    if let Some(from @ (SqlType::Double | SqlType::String | SqlType::Boolean)) =
                        self.static_type(&inner)
                    {
                        return Err(unsupported(
                            at,
                            &format!("a CAST of a {} to {ty}", from.sql_name()),
                        ));
                    }
                }
                SqlExpr::Cast {
                    expr: inner,
                    ty: ty.into(),
                }
            }
            Expr::Function(f) if last_ident(&f.name).value.eq_ignore_ascii_case("COALESCE") => {
                let FunctionArguments::List(l) = &f.args else {
                    return Err(err(at, "COALESCE needs arguments"));
                };
                let mut args = Vec::new();
                for a in &l.args {
                    match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => args.push(self.expr(x)?),
                        _ => return Err(err(at, "COALESCE takes plain arguments")),
                    }
                }
                self.common(SqlExpr::Coalesce(args))
            }
            Expr::Function(f) if last_ident(&f.name).value == TABLE_ARG => {
                return Err(err(at, "TABLE t is a table function's argument"))
            }
            Expr::Function(f) => {
                let n = last_ident(&f.name).value.to_ascii_uppercase();
                if matches!(n.as_str(), "COUNT" | "SUM" | "MIN" | "MAX" | "AVG") {
                    return Err(unsupported(
                        at,
                        &format!("{n} without a window TVF GROUP BY (an unbounded aggregation)"),
                    ));
                }
                return Err(unsupported(at, &format!("the function {n}")));
            }
            _ => return Err(unsupported(at, "this expression")),
        })
    }
}

/// `LogicalTypeMerging.createCommonExactNumericType` / `createCommonApproximateNumericType` for
/// two numeric types (`None` when one is not numeric).
fn common_numeric(a: SqlType, b: SqlType) -> Option<SqlType> {
    let prec = |t: SqlType| match t {
        SqlType::Int => Some((10u8, 0u8)),
        SqlType::Bigint => Some((19, 0)),
        SqlType::Decimal(p, s) => Some((p, s)),
        _ => None,
    };
    Some(match (a, b) {
        (SqlType::Double, x) | (x, SqlType::Double) => {
            prec(x)?;
            SqlType::Double
        }
        (SqlType::Decimal(..), _) | (_, SqlType::Decimal(..)) => {
            let ((p1, s1), (p2, s2)) = (prec(a)?, prec(b)?);
            let int = (p1 - s1).max(p2 - s2).min(38);
            let scale = s1.max(s2).min(38 - int);
            SqlType::Decimal(int + scale, scale)
        }
        _ => {
            let ((p1, _), (p2, _)) = (prec(a)?, prec(b)?);
            if p1 >= p2 {
                a
            } else {
                b
            }
        }
    })
}
