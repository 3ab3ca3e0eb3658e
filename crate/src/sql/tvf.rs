//! Window table-valued functions in a script: `FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(rt),
//! INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, k` -> `job.tvf` and `job.group`
//! of a window TVF aggregation. Arguments may be positional or named (`DATA =>`,
//! `TIMECOL =>`, `SIZE =>`, `SLIDE =>`, `STEP =>`, `GAP =>`, `OFFSET =>`), as Flink's
//! `SqlWindowTableFunction` operand metadata names them.

use super::dialect::TABLE_ARG;
use super::script::{err, interval_ms, last_ident, unsupported, Table};
use super::SqlError;
use crate::scenario::{AggCall, AggFunc, GroupSpec, TvfKind, TvfSpec};
use crate::time::Millis;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Select, SelectItem, Spanned,
};

/// What a window aggregation query sets.
pub(crate) struct WindowAgg {
    pub tvf: TvfSpec,
    pub group: GroupSpec,
}

fn args_of(e: &Expr) -> Vec<(Option<String>, &Expr)> {
    let mut out = Vec::new();
    if let Expr::Function(f) = e {
        if let FunctionArguments::List(l) = &f.args {
            for a in &l.args {
                match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => out.push((None, x)),
                    FunctionArg::Named {
                        name,
                        arg: FunctionArgExpr::Expr(x),
                        ..
                    } => out.push((Some(name.value.to_ascii_uppercase()), x)),
                    _ => {}
                }
            }
        }
    }
    out
}

fn fname(e: &Expr) -> Option<String> {
    match e {
        Expr::Function(f) => Some(last_ident(&f.name).value.to_ascii_uppercase()),
        _ => None,
    }
}

/// A window TVF call `TUMBLE(TABLE t [PARTITION BY …], DESCRIPTOR(rt), …)` -> its spec, the
/// input table's index and the `PARTITION BY` columns.
pub(crate) fn tvf_call(
    tables: &[Table],
    call: &Expr,
) -> Result<(TvfSpec, usize, Vec<String>), SqlError> {
    let at = call.span().start;
    let kind = match fname(call).as_deref() {
        Some("TUMBLE") => TvfKind::Tumble,
        Some("HOP") => TvfKind::Hop,
        Some("CUMULATE") => TvfKind::Cumulate,
        Some("SESSION") => TvfKind::Session,
        Some(other) => return Err(unsupported(at, &format!("the table function {other}"))),
        None => return Err(unsupported(at, "this table function")),
    };
    // Positional parameter names per function (SqlWindowTableFunction and its subclasses).
    let names: &[&str] = match kind {
        TvfKind::Tumble => &["DATA", "TIMECOL", "SIZE", "OFFSET"],
        TvfKind::Hop => &["DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"],
        TvfKind::Cumulate => &["DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"],
        TvfKind::Session => &["DATA", "TIMECOL", "GAP"],
    };
    let mut named: Vec<(String, &Expr)> = Vec::new();
    for (i, (n, x)) in args_of(call).into_iter().enumerate() {
        let n = match n {
            Some(n) => n,
            None => match names.get(i) {
                Some(n) => n.to_string(),
                None => return Err(err(x.span().start, "too many arguments")),
            },
        };
        if !names.contains(&n.as_str()) {
            return Err(err(x.span().start, format!("unknown parameter {n}")));
        }
        named.push((n, x));
    }
    let get = |n: &str| named.iter().find(|(k, _)| k == n).map(|(_, x)| *x);
    let data = get("DATA").ok_or_else(|| err(at, "the window TVF needs TABLE t"))?;
    let mut partition = Vec::new();
    let table_name = match data {
        Expr::Function(f) if last_ident(&f.name).value == TABLE_ARG => {
            let a = args_of(data);
            for (_, p) in a.iter().skip(1) {
                if let Expr::Identifier(id) = p {
                    partition.push(id.value.clone());
                }
            }
            match a.first() {
                Some((_, Expr::Identifier(id))) => id.clone(),
                _ => return Err(err(data.span().start, "TABLE needs a table name")),
            }
        }
        other => return Err(err(other.span().start, "the first argument is TABLE t")),
    };
    let ti = tables
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(&table_name.value))
        .ok_or_else(|| {
            err(
                table_name.span.start,
                format!("Object '{}' not found", table_name.value),
            )
        })?;
    let t = &tables[ti];
    let timecol = get("TIMECOL").ok_or_else(|| err(at, "the window TVF needs DESCRIPTOR(col)"))?;
    let tc = match timecol {
        Expr::Function(f) if last_ident(&f.name).value.eq_ignore_ascii_case("DESCRIPTOR") => {
            match args_of(timecol).first() {
                Some((_, Expr::Identifier(id))) => id.clone(),
                _ => return Err(err(timecol.span().start, "DESCRIPTOR needs a column")),
            }
        }
        other => {
            return Err(err(
                other.span().start,
                "the time column is DESCRIPTOR(col)",
            ))
        }
    };
    let is_rowtime = t
        .watermark
        .as_ref()
        .is_some_and(|(c, _, _)| c.eq_ignore_ascii_case(&tc.value));
    if !is_rowtime {
        if t.proctime
            .as_deref()
            .is_some_and(|p| p.eq_ignore_ascii_case(&tc.value))
        {
            return Err(unsupported(tc.span.start, "a processing-time window TVF"));
        }
        // FlinkSqlOperatorTable's window TVF type check (SqlWindowTableFunction).
        return Err(err(
            tc.span.start,
            "The window function requires the timecol is a time attribute type, but is TIMESTAMP(3).",
        ));
    }
    let ms = |n: &str| -> Result<Option<i64>, SqlError> { get(n).map(interval_ms).transpose() };
    let mut tvf = TvfSpec {
        kind,
        ..TvfSpec::default()
    };
    match kind {
        TvfKind::Session => {
            tvf.gap = Some(Millis(
                ms("GAP")?.ok_or_else(|| err(at, "SESSION needs a gap"))?,
            ));
        }
        _ => {
            tvf.size = Millis(ms("SIZE")?.ok_or_else(|| err(at, "the window TVF needs a size"))?);
            tvf.offset = Millis(ms("OFFSET")?.unwrap_or(0));
            tvf.slide = ms("SLIDE")?.map(Millis);
            tvf.step = ms("STEP")?.map(Millis);
        }
    }
    Ok((tvf, ti, partition))
}

/// Reads the TVF call and the `GROUP BY`; returns the spec and the input table's index.
pub(crate) fn window_aggregate(
    tables: &[Table],
    sel: &Select,
    call: &Expr,
) -> Result<(WindowAgg, usize), SqlError> {
    let at = call.span().start;
    let (tvf, ti, partition) = tvf_call(tables, call)?;
    let kind = tvf.kind;
    let t = &tables[ti];
    // GROUP BY window_start, window_end, keys… (or GROUPING SETS / ROLLUP / CUBE over keys).
    let GroupByExpr::Expressions(gb, _) = &sel.group_by else {
        return Err(unsupported(at, "GROUP BY ALL"));
    };
    let mut keys: Vec<String> = Vec::new();
    let mut has = (false, false);
    // Calcite: the GROUP BY items are crossed (`k, ROLLUP (item)` is `GROUPING SETS ((k, item),
    // (k))`) and the grouping columns are keyed in order of first appearance.
    let mut sets: Vec<Vec<String>> = vec![Vec::new()];
    let mut any_sets = false;
    let mut sets_at = at;
    for g in gb {
        match g {
            Expr::Identifier(id) if id.value.eq_ignore_ascii_case("window_start") => has.0 = true,
            Expr::Identifier(id) if id.value.eq_ignore_ascii_case("window_end") => has.1 = true,
            Expr::Identifier(id) => {
                let c = column(t, id)?;
                if !keys.contains(&c) {
                    keys.push(c.clone());
                }
                for set in sets.iter_mut() {
                    if !set.contains(&c) {
                        set.push(c.clone());
                    }
                }
            }
            Expr::GroupingSets(s) | Expr::Rollup(s) | Expr::Cube(s) => {
                let lists: Vec<Vec<String>> = s
                    .iter()
                    .map(|l| {
                        l.iter()
                            .map(|x| match x {
                                Expr::Identifier(id) => column(t, id),
                                other => {
                                    Err(unsupported(other.span().start, "this grouping expression"))
                                }
                            })
                            .collect()
                    })
                    .collect::<Result<_, _>>()?;
                let expanded = match g {
                    Expr::GroupingSets(_) => lists,
                    Expr::Rollup(_) => {
                        let flat: Vec<String> = lists.concat();
                        (0..=flat.len()).rev().map(|n| flat[..n].to_vec()).collect()
                    }
                    _ => {
                        let flat: Vec<String> = lists.concat();
                        let n = flat.len();
                        if n > 8 {
                            return Err(unsupported(
                                g.span().start,
                                "CUBE over more than 8 columns",
                            ));
                        }
                        (0..(1u32 << n))
                            .rev()
                            .map(|m| {
                                (0..n)
                                    .filter(|i| m & (1 << (n - 1 - i)) != 0)
                                    .map(|i| flat[i].clone())
                                    .collect()
                            })
                            .collect()
                    }
                };
                for l in &expanded {
                    for c in l {
                        if !keys.contains(c) {
                            keys.push(c.clone());
                        }
                    }
                }
                let mut crossed = Vec::new();
                for a in &sets {
                    for b in &expanded {
                        let mut x = a.clone();
                        for c in b {
                            if !x.contains(c) {
                                x.push(c.clone());
                            }
                        }
                        crossed.push(x);
                    }
                }
                if crossed.len() > crate::grouping_sets::MAX_SETS {
                    return Err(unsupported(g.span().start, "more than 256 grouping sets"));
                }
                sets = crossed;
                any_sets = true;
                sets_at = g.span().start;
            }
            other => return Err(unsupported(other.span().start, "this GROUP BY expression")),
        }
    }
    let sets: Option<Vec<Vec<String>>> = any_sets.then_some(sets);
    if let Some(sets) = &sets {
        if crate::grouping_sets::keys_of(sets) != keys {
            return Err(unsupported(
                sets_at,
                "grouping columns whose order differs from their first appearance in the grouping sets",
            ));
        }
        if let Err(m) = crate::grouping_sets::sets(&keys, sets) {
            return Err(err(sets_at, m));
        }
    }
    if !(has.0 && has.1) {
        // Without both window columns Flink plans an unbounded group aggregation over the
        // TVF's rows, not a window aggregation.
        return Err(unsupported(
            at,
            "a window TVF without GROUP BY window_start, window_end (an unbounded aggregation)",
        ));
    }
    // The select list: window_start, window_end, the keys in GROUP BY order, then the
    // aggregate calls (the order the window aggregation emits; another order is a projection
    // the engine does not model yet).
    let mut aggregates = Vec::new();
    let mut plain = Vec::new();
    for it in sel.projection.iter() {
        let (e, alias) = match it {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
            _ => return Err(unsupported(at, "`*` with a window aggregation")),
        };
        match e {
            Expr::Function(f) => {
                let name = last_ident(&f.name).value.to_ascii_uppercase();
                let func = match name.as_str() {
                    "COUNT" => AggFunc::Count,
                    "SUM" => AggFunc::Sum,
                    "MIN" => AggFunc::Min,
                    "MAX" => AggFunc::Max,
                    "AVG" => AggFunc::Avg,
                    _ => return Err(unsupported(e.span().start, &format!("the function {name}"))),
                };
                let FunctionArguments::List(l) = &f.args else {
                    return Err(err(e.span().start, format!("{name} needs an argument")));
                };
                let distinct =
                    l.duplicate_treatment == Some(sqlparser::ast::DuplicateTreatment::Distinct);
                let column = match l.args.as_slice() {
                    [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if func == AggFunc::Count => {
                        None
                    }
                    [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(id)))] => {
                        Some(column(t, id)?)
                    }
                    _ => return Err(unsupported(e.span().start, "an aggregate of an expression")),
                };
                aggregates.push(AggCall {
                    func,
                    column,
                    distinct,
                    alias: alias.unwrap_or_default(),
                });
            }
            Expr::Identifier(id) => {
                if !aggregates.is_empty() {
                    return Err(unsupported(
                        id.span.start,
                        "a grouping column after an aggregate",
                    ));
                }
                if alias
                    .as_ref()
                    .is_some_and(|a| !a.eq_ignore_ascii_case(&id.value))
                {
                    return Err(unsupported(id.span.start, "renaming a grouping column"));
                }
                plain.push((id.value.to_ascii_lowercase(), id.span.start));
            }
            other => {
                return Err(unsupported(
                    other.span().start,
                    "this select item in a window aggregation",
                ))
            }
        }
    }
    let mut want: Vec<String> = vec!["window_start".into(), "window_end".into()];
    want.extend(keys.iter().map(|k| k.to_ascii_lowercase()));
    let got: Vec<String> = plain.iter().map(|(n, _)| n.clone()).collect();
    if got != want {
        let pos = plain.first().map(|(_, p)| *p).unwrap_or(at);
        return Err(unsupported(
            pos,
            &format!(
                "this select list (the engine emits {} then the aggregates)",
                want.join(", ")
            ),
        ));
    }
    // SESSION's PARTITION BY columns are the grouping keys (TvfSpec).
    if !partition.is_empty() {
        let p: Vec<String> = partition.iter().map(|c| c.to_ascii_lowercase()).collect();
        let k: Vec<String> = keys.iter().map(|c| c.to_ascii_lowercase()).collect();
        if p != k {
            return Err(unsupported(
                at,
                "PARTITION BY columns other than the GROUP BY keys",
            ));
        }
    } else if kind == TvfKind::Session && !keys.is_empty() {
        return Err(unsupported(
            at,
            "SESSION without PARTITION BY its GROUP BY keys",
        ));
    }
    let group = GroupSpec {
        keys,
        grouping_sets: sets,
        aggregates,
    };
    Ok((WindowAgg { tvf, group }, ti))
}

fn column(t: &Table, id: &sqlparser::ast::Ident) -> Result<String, SqlError> {
    t.canonical(&id.value).ok_or_else(|| {
        err(
            id.span.start,
            format!("Column '{}' not found in table '{}'", id.value, t.name),
        )
    })
}
