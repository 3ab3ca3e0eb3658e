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
