//! A [`Scenario`] -> a Flink SQL script that [`super::script::parse`] reads back to the same
//! scenario (with every column typed and the watermark written as Flink SQL's `rt - delay`).

use super::ir::{Literal, SelectItem, SqlExpr};
use crate::error::Error;
use crate::parse::{parse_stream, Entry, RowKind};
use crate::scenario::{JoinType, OperatorKind, Scenario, Strategy, TimeKind};
use crate::value::{ColumnType, Value};
use std::fmt::Write;

/// A SQL identifier, in backquotes when it is not a plain lower-case word or is reserved.
pub(crate) fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name.to_ascii_uppercase().as_str());
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// Words Flink's parser reserves that people use as column names.
const RESERVED: &[&str] = &[
    "TIMESTAMP",
    "TIME",
    "DATE",
    "USER",
    "VALUE",
    "VALUES",
    "YEAR",
    "MONTH",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "ORDER",
    "GROUP",
    "TABLE",
    "SELECT",
    "FROM",
    "WHERE",
    "AS",
    "BY",
    "ON",
    "JOIN",
    "LEFT",
    "RIGHT",
    "FULL",
    "INNER",
    "OUTER",
    "AND",
    "OR",
    "NOT",
    "NULL",
    "TRUE",
    "FALSE",
    "IS",
    "IN",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "INTERVAL",
    "WINDOW",
    "KEY",
    "PRIMARY",
    "WATERMARK",
    "SYSTEM_TIME",
    "RANGE",
    "ROWS",
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "CAST",
    "INSERT",
    "INTO",
    "SET",
    "CREATE",
    "WITH",
    "ALL",
    "ANY",
    "SOME",
    "EXISTS",
    "BETWEEN",
    "LIKE",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "UNION",
    "DESCRIPTOR",
    "PARTITION",
    "OVER",
    "AT",
    "LOCAL",
    "CURRENT",
    "DESC",
    "ASC",
    "ROW",
    "TO",
    "OF",
    "FOR",
    "DEFAULT",
    "PROCTIME",
];

/// `INTERVAL '…' …` for a non-negative number of milliseconds (the sign is the caller's).
/// Flink accepts a leading precision of at most 3 for `SECOND(p, 3)` and `DAY(p)`.
pub(crate) fn interval(ms: i64) -> String {
    let ms = ms.unsigned_abs();
    if ms.is_multiple_of(3_600_000) && ms / 3_600_000 < 100 {
        format!("INTERVAL '{}' HOUR", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms / 60_000 < 100 {
        format!("INTERVAL '{}' MINUTE", ms / 60_000)
    } else if ms.is_multiple_of(1000) && ms / 1000 < 100 {
        format!("INTERVAL '{}' SECOND", ms / 1000)
    } else if ms < 1_000_000 {
        let secs = ms / 1000;
        let digits = secs.to_string().len().max(1);
        format!("INTERVAL '{secs}.{:03}' SECOND({digits}, 3)", ms % 1000)
    } else {
        let days = ms / 86_400_000;
        let rest = ms % 86_400_000;
        format!(
            "INTERVAL '{days} {:02}:{:02}:{:02}.{:03}' DAY({}) TO SECOND(3)",
            rest / 3_600_000,
            rest / 60_000 % 60,
            rest / 1000 % 60,
            rest % 1000,
            days.to_string().len().clamp(2, 3)
        )
    }
}

fn offset(t: &str, ms: i64) -> String {
    if ms == 0 {
        t.to_string()
    } else if ms < 0 {
        format!("{t} - {}", interval(ms))
    } else {
        format!("{t} + {}", interval(ms))
    }
}

fn sql_type(t: ColumnType) -> std::borrow::Cow<'static, str> {
    t.sql_name()
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A row's value as a `VALUES` literal; a NULL is written `CAST(NULL AS type)` (a bare `NULL` in
/// a `VALUES` row is "Illegal use of 'NULL'" to Flink's validator).
fn value_sql(v: &Value, time: bool, ty: ColumnType) -> String {
    match v {
        Value::Long(ms) if time => format!("TIMESTAMP '{}'", crate::time::format_datetime(*ms)),
        Value::Null => format!("CAST(NULL AS {})", sql_type(ty)),
        Value::Str(s) => quote(s),
        Value::Int(i) => i.to_string(),
        Value::Long(i) => i.to_string(),
        Value::Double(d) => format!("{d:?}"),
        Value::Bool(b) => b.to_string().to_ascii_uppercase(),
        Value::Decimal(d) => d.literal_text(),
    }
}

/// Writes the scenario as a script.
pub fn script(sc: &Scenario) -> Result<String, Error> {
    script_and_query(sc).map(|(text, _)| text)
}

/// Writes the scenario as a script, and says where its query (the last statement) begins.
pub fn script_and_query(sc: &Scenario) -> Result<(String, usize), Error> {
    let job = &sc.job;
    let bad = |m: &str| Err(Error::config("job.operator", m.to_string()));
    match job.operator {
        OperatorKind::SqlIntervalJoin | OperatorKind::RegularJoin => {}
        OperatorKind::TemporalJoin | OperatorKind::LookupJoin => {}
        OperatorKind::WindowTvfAggregate | OperatorKind::WindowTvfJoin => {}
        _ => return bad("only Flink SQL operators can be written as a SQL script"),
    }
    let inputs = if job.operator == OperatorKind::WindowTvfAggregate {
        1
    } else {
        2
    };
    if sc.streams.len() != inputs {
        return Err(Error::config(
            "streams",
            format!("this SQL script needs {inputs} stream(s)"),
        ));
    }
    // What a script cannot say is refused, never dropped.
    if !job.final_watermark {
        return Err(Error::config(
            "job.final_watermark",
            "a script's tables are bounded: their end of input always sends the final watermark",
        ));
    }
    if job.arrival != crate::scenario::ArrivalOrder::ByTime {
        return Err(Error::config(
            "job.arrival",
            "a script's rows arrive by time (a=… or the event time); write the order as a= annotations",
        ));
    }
    let proctime = match job.operator {
        OperatorKind::SqlIntervalJoin => job.sql.time == TimeKind::Processing,
        OperatorKind::LookupJoin => true,
        _ => false,
    };
    let mut out = String::new();
    if job.parallelism != 1 {
        let _ = writeln!(out, "SET 'parallelism.default' = '{}';", job.parallelism);
    }
    if let Some(m) = job.max_parallelism {
        let _ = writeln!(out, "SET 'pipeline.max-parallelism' = '{m}';");
    }
    // Periodic watermark emission: one interval for the whole pipeline
    // ('pipeline.auto-watermark-interval'); a table emitting per row then says
    // 'scan.watermark.emit.strategy' = 'on-event' (see script.rs's `finish`).
    let wms: Vec<Option<&crate::scenario::WatermarkSpec>> = sc
        .streams
        .iter()
        .map(|s| {
            (s.time.is_some() && !proctime).then(|| s.watermark.as_ref().unwrap_or(&job.watermark))
        })
        .collect();
    if proctime
        && std::iter::once(&job.watermark)
            .chain(sc.streams.iter().filter_map(|s| s.watermark.as_ref()))
            .any(|w| !w.per_event || w.idle_timeout.is_some())
    {
        return Err(Error::config(
            "job.watermark",
            "a processing-time table has no watermark: periodic emission and idleness have no script form here",
        ));
    }
    let mut periodic_interval = None;
    for w in wms.iter().flatten() {
        if !w.per_event {
            match periodic_interval {
                None => periodic_interval = Some(w.interval.0),
                Some(i) if i == w.interval.0 => {}
                Some(_) => {
                    return Err(Error::config(
                        "streams",
                        "the tables' watermarks are emitted periodically at different intervals: a script has one 'pipeline.auto-watermark-interval'",
                    ))
                }
            }
        } else if w.interval.0 != 0 {
            return Err(Error::config(
                "job.watermark",
                "a watermark emitted per event and periodically has no script form",
            ));
        }
    }
    if let Some(i) = periodic_interval {
        let _ = writeln!(out, "SET 'pipeline.auto-watermark-interval' = '{i} ms';");
    }
    if let Some(d) = job.settings.source_idle_timeout {
        let _ = writeln!(out, "SET 'table.exec.source.idle-timeout' = '{} ms';", d.0);
    }
    if let Some(d) = job.settings.state_ttl {
        let _ = writeln!(out, "SET 'table.exec.state.ttl' = '{} ms';", d.0);
    }
    if job.sql.min_cleanup.0 != 0 {
        let _ = writeln!(
            out,
            "SET 'table.exec.interval-join.min-cleanup-interval' = '{} ms';",
            job.sql.min_cleanup.0
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let mut time_attr = Vec::new();
    for (si, spec) in sc.streams.iter().enumerate() {
        let parsed = parse_stream(spec, job.parallelism.max(1))?;
        let schema = &parsed.schema;
        let _ = writeln!(out, "CREATE TABLE {} (", ident(&spec.name));
        // A computed rowtime `rt AS TO_TIMESTAMP_LTZ(c, p)` (the reader's `time_from`): its
        // source column and the factor from c's value to milliseconds.
        let computed = match (&spec.time_from, schema.time) {
            (None, _) => None,
            (Some(from), Some(ti)) => {
                let (c, p) = match from.rsplit_once(':') {
                    Some((c, "0")) => (c, 0),
                    _ => (from.as_str(), 3),
                };
                let ci = schema
                    .columns
                    .iter()
                    .position(|x| x.name == c)
                    .filter(|&ci| ci != ti)
                    .ok_or_else(|| {
                        Error::stream(
                            &spec.name,
                            "time_from",
                            format!("no column '{c}' besides the time column"),
                        )
                    })?;
                Some((ti, ci, c, p))
            }
            (Some(_), None) => {
                return Err(Error::stream(
                    &spec.name,
                    "time_from",
                    "a computed rowtime needs the time column",
                ))
            }
        };
        let mut lines = Vec::new();
        let names: Vec<String> = schema.columns.iter().map(|c| c.name.clone()).collect();
        let proc_column = super::proctime_column(sc, si, &names);
        for (ci, c) in schema.columns.iter().enumerate() {
            if let Some((name, _)) = proc_column.as_ref().filter(|(_, at)| *at == ci) {
                lines.push(format!("  {} AS PROCTIME()", ident(name)));
            }
            if let Some((ti, _, src, p)) = computed.filter(|(ti, ..)| *ti == ci) {
                lines.push(format!(
                    "  {} AS TO_TIMESTAMP_LTZ({}, {p})",
                    ident(&schema.columns[ti].name),
                    ident(src)
                ));
                continue;
            }
            let ty = if Some(ci) == schema.time {
                "TIMESTAMP(3)".into()
            } else {
                sql_type(c.ty)
            };
            lines.push(format!("  {} {ty}", ident(&c.name)));
        }
        if let Some((name, _)) = proc_column.as_ref().filter(|(_, at)| *at >= names.len()) {
            lines.push(format!("  {} AS PROCTIME()", ident(name)));
        }
        if proctime {
            time_attr.push(proc_column.map(|(n, _)| n).unwrap_or_default());
        } else if let Some(ti) = schema.time {
            let t = &schema.columns[ti].name;
            let w = spec.watermark.as_ref().unwrap_or(&job.watermark);
            // Flink SQL's watermark is `rt - delay` itself (the generated WatermarkGenerator,
            // forwarded when larger): the engine's `legacy` rule. `bounded` is maxTs − d − 1.
            let delay = match w.strategy {
                Strategy::Legacy => w.delay.0,
                Strategy::Bounded => w.delay.0 + 1,
                Strategy::Monotonous => 1,
                Strategy::Punctuated | Strategy::None => {
                    return Err(Error::stream(
                        &spec.name,
                        "watermark",
                        "a punctuated or absent watermark has no Flink SQL form",
                    ))
                }
            };
            lines.push(format!(
                "  WATERMARK FOR {} AS {}",
                ident(t),
                offset(&ident(t), -delay)
            ));
            time_attr.push(t.clone());
        } else if matches!(
            job.operator,
            OperatorKind::SqlIntervalJoin | OperatorKind::TemporalJoin
        ) && (si == 0 || job.operator == OperatorKind::SqlIntervalJoin)
        {
            return Err(Error::stream(
                &spec.name,
                "time",
                "an event-time SQL join needs a time column",
            ));
        } else {
            time_attr.push(String::new());
        }
        if !spec.primary_key.is_empty() {
            let pk: Vec<String> = spec.primary_key.iter().map(|k| ident(k)).collect();
            lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", pk.join(", ")));
        }
        let options = table_options(sc, si, periodic_interval.is_some(), proctime);
        if options.is_empty() {
            let _ = writeln!(out, "{}\n);", lines.join(",\n"));
        } else {
            let _ = writeln!(
                out,
                "{}\n) WITH (\n  {}\n);",
                lines.join(",\n"),
                options.join(",\n  ")
            );
        }
        let rows: Vec<String> = parsed
            .entries
            .iter()
            .map(|e| match e {
                Entry::Watermark { line, .. } => Err(Error::row(
                    &spec.name,
                    *line as usize,
                    1,
                    "a WM row has no SQL form",
                )),
                Entry::Data(r) => {
                    let values = parsed.row_values(r);
                    if let Some((ti, ci, src, p)) = computed {
                        // The row's time must be what the computed column gives.
                        let want = match values.get(ci) {
                            Some(Value::Int(v)) => Some(*v as i64),
                            Some(Value::Long(v)) => Some(*v),
                            _ => None,
                        }
                        .and_then(|v| if p == 0 { v.checked_mul(1000) } else { Some(v) });
                        if want.is_none() || values.get(ti) != want.map(Value::Long).as_ref() {
                            return Err(Error::row(
                                &spec.name,
                                r.line as usize,
                                1,
                                format!("the time column is TO_TIMESTAMP_LTZ({src}, {p}): its value must be {src}'s{}", if p == 0 { " times 1000" } else { "" }),
                            ));
                        }
                    }
                    let vals: Vec<String> = values
                        .iter()
                        .enumerate()
                        .filter(|(ci, _)| computed.is_none_or(|(ti, ..)| ti != *ci))
                        .map(|(ci, v)| value_sql(v, Some(ci) == schema.time, schema.columns[ci].ty))
                        .collect();
                    let mut ann = Vec::new();
                    if r.kind != RowKind::Insert {
                        ann.push(r.kind.short().to_string());
                    }
                    if let Some(a) = r.arrival {
                        ann.push(format!("a={a}"));
                    }
                    if let Some(s) = r.subtask {
                        ann.push(format!("s={s}"));
                    }
                    Ok((vals.join(", "), ann))
                }
            })
            .collect::<Result<Vec<_>, Error>>()?
            .into_iter()
            .map(|(v, ann)| {
                if ann.is_empty() {
                    format!("  ({v})")
                } else {
                    format!("  ({v}) -- {}", ann.join(" "))
                }
            })
            .collect();
        if !rows.is_empty() {
            let _ = writeln!(out, "INSERT INTO {} VALUES", ident(&spec.name));
            // The comment of the last row must follow the `;`-free line: put `;` on its own
            // line when the last row carries annotations.
            let n = rows.len();
            for (i, r) in rows.iter().enumerate() {
                let (body, comment) = match r.split_once(" -- ") {
                    Some((b, c)) => (b.to_string(), format!(" -- {c}")),
                    None => (r.clone(), String::new()),
                };
                let sep = if i + 1 < n { "," } else { "" };
                let _ = writeln!(out, "{body}{sep}{comment}");
            }
            let _ = writeln!(out, ";");
        }
        out.push('\n');
    }
    if job.operator == OperatorKind::WindowTvfAggregate {
        let at = out.len();
        out.push_str(&window_aggregate(sc, &time_attr[0])?);
        return Ok((out, at));
    }
    if job.operator == OperatorKind::WindowTvfJoin {
        let at = out.len();
        out.push_str(&window_join(sc, &time_attr)?);
        return Ok((out, at));
    }
    // The query.
    let (l, r) = (&sc.streams[0], &sc.streams[1]);
    let mut hints = Vec::new();
    if let Some(t) = job.settings.state_ttl_left {
        hints.push(format!("'L' = '{} ms'", t.0));
    }
    if let Some(t) = job.settings.state_ttl_right {
        hints.push(format!("'R' = '{} ms'", t.0));
    }
    let hint = if hints.is_empty() {
        String::new()
    } else {
        format!("/*+ STATE_TTL({}) */ ", hints.join(", "))
    };
    let select = match &job.query {
        Some(q) if !q.select.is_empty() => q.select.iter().map(item).collect::<Vec<_>>().join(", "),
        _ => "*".to_string(),
    };
    let mut conds = Vec::new();
    if let (Some(a), Some(b)) = (&l.key, &r.key) {
        conds.push(format!("L.{} = R.{}", ident(a), ident(b)));
    }
    let join = match job.sql.join {
        JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full => job.sql.join.sql(),
        _ => return bad("semi and anti joins have no script form yet"),
    };
    let right = match job.operator {
        OperatorKind::TemporalJoin | OperatorKind::LookupJoin => format!(
            "{} FOR SYSTEM_TIME AS OF L.{} AS R",
            ident(&r.name),
            ident(&time_attr[0])
        ),
        _ => format!("{} AS R", ident(&r.name)),
    };
    if job.operator == OperatorKind::SqlIntervalJoin {
        let (lt, rt) = (
            format!("L.{}", ident(&time_attr[0])),
            format!("R.{}", ident(&time_attr[1])),
        );
        conds.push(format!(
            "{lt} {} {}",
            if job.sql.lower_strict { ">" } else { ">=" },
            offset(&rt, job.sql.lower.0)
        ));
        conds.push(format!(
            "{lt} {} {}",
            if job.sql.upper_strict { "<" } else { "<=" },
            offset(&rt, job.sql.upper.0)
        ));
    }
    if conds.is_empty() {
        conds.push("TRUE".into());
    }
    let wheres: Vec<String> = job
        .query
        .iter()
        .flat_map(|q| [&q.where_left, &q.where_right])
        .flatten()
        .map(expr)
        .collect();
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!("\nWHERE {}", wheres.join(" AND "))
    };
    let at = out.len();
    let _ = writeln!(
        out,
        "SELECT {hint}{select}\nFROM {} AS L\n{join} {right}\n  ON {}{filter};",
        ident(&l.name),
        conds.join("\n  AND ")
    );
    Ok((out, at))
}

/// The `WITH` options a table needs for its scenario settings: `'scan.watermark.emit.strategy'
/// = 'on-event'` for a per-row table in a periodic pipeline, and `'scan.watermark.idle-timeout'`
/// when the table's idleness is not the global `table.exec.source.idle-timeout` (the table
/// option as the scenario sets it, or the watermark's own `idle_timeout`, which a SQL table
/// only has through the options: `plan` gives a SQL source the table option, else the
/// global one, else the watermark's).
fn table_options(sc: &Scenario, si: usize, periodic: bool, proctime: bool) -> Vec<String> {
    let spec = &sc.streams[si];
    let mut out = Vec::new();
    if spec.time.is_none() || proctime {
        if let Some(t) = spec.scan_watermark_idle_timeout {
            out.push(format!("'scan.watermark.idle-timeout' = '{} ms'", t.0));
        }
        return out;
    }
    let w = spec.watermark.as_ref().unwrap_or(&sc.job.watermark);
    if periodic && w.per_event {
        out.push("'scan.watermark.emit.strategy' = 'on-event'".to_string());
    }
    let global = sc
        .job
        .settings
        .source_idle_timeout
        .map(|m| m.0)
        .unwrap_or(0);
    let table = match spec.scan_watermark_idle_timeout {
        Some(t) => Some(t.0),
        None if global <= 0 => w.idle_timeout.map(|m| m.0),
        None => None,
    };
    if let Some(t) = table {
        out.push(format!("'scan.watermark.idle-timeout' = '{t} ms'"));
    }
    out
}

fn item(it: &SelectItem) -> String {
    let e = expr(&it.expr);
    match &it.expr {
        SqlExpr::Col { name, .. } if *name == it.name => e,
        _ => format!("{e} AS {}", ident(&it.name)),
    }
}

/// An IR expression as SQL (fully parenthesised where it nests).
pub(crate) fn expr(e: &SqlExpr) -> String {
    match e {
        SqlExpr::Col { input, name } => {
            format!("{}.{}", if *input == 0 { "L" } else { "R" }, ident(name))
        }
        SqlExpr::Lit(l) => match l {
            Literal::Null => "NULL".into(),
            Literal::Int(i) => i.to_string(),
            Literal::Long(i) => i.to_string(),
            Literal::Double(d) => format!("{d:?}"),
            Literal::Decimal(d) => d.to_string(),
            Literal::Str(s) => quote(s),
            Literal::Bool(b) => b.to_string().to_ascii_uppercase(),
            Literal::Timestamp(ms) => format!("TIMESTAMP '{}'", crate::time::format_datetime(*ms)),
        },
        SqlExpr::Interval(ms) => {
            if *ms < 0 {
                format!("-{}", interval(*ms))
            } else {
                interval(*ms)
            }
        }
        SqlExpr::Bin { op, left, right } => {
            format!("({} {} {})", expr(left), op.sql(), expr(right))
        }
        SqlExpr::Not(x) => format!("(NOT {})", expr(x)),
        SqlExpr::Neg(x) => format!("(-{})", expr(x)),
        SqlExpr::IsNull { expr: x, negated } => format!(
            "({} IS {}NULL)",
            expr(x),
            if *negated { "NOT " } else { "" }
        ),
        SqlExpr::Case { when, otherwise } => {
            let mut s = "CASE".to_string();
            for (c, v) in when {
                let _ = write!(s, " WHEN {} THEN {}", expr(c), expr(v));
            }
            if let Some(o) = otherwise {
                let _ = write!(s, " ELSE {}", expr(o));
            }
            s + " END"
        }
        SqlExpr::Coalesce(args) => format!(
            "COALESCE({})",
            args.iter().map(expr).collect::<Vec<_>>().join(", ")
        ),
        SqlExpr::Cast { expr: x, ty } => format!("CAST({} AS {ty})", expr(x)),
        // Implicit: reading the script derives it again.
        SqlExpr::Common { expr: x, .. } => expr(x),
    }
}

/// `SELECT window_start, window_end, keys…, aggregates… FROM TABLE(TVF(…)) GROUP BY …`.
fn window_aggregate(sc: &Scenario, time: &str) -> Result<String, Error> {
    use crate::scenario::AggFunc;
    let job = &sc.job;
    let t = &job.tvf;
    let s = &sc.streams[0];
    let call = tvf_call(t, &s.name, time, &job.group.keys)?;
    let mut items: Vec<String> = vec!["window_start".into(), "window_end".into()];
    items.extend(job.group.keys.iter().map(|k| ident(k)));
    for a in &job.group.aggregates {
        let f = match a.func {
            AggFunc::Count => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
            AggFunc::Avg => "AVG",
        };
        let arg = match &a.column {
            None => "*".to_string(),
            Some(c) => format!("{}{}", if a.distinct { "DISTINCT " } else { "" }, ident(c)),
        };
        let alias = if a.alias.is_empty() {
            String::new()
        } else {
            format!(" AS {}", ident(&a.alias))
        };
        items.push(format!("{f}({arg}){alias}"));
    }
    let mut group: Vec<String> = vec!["window_start".into(), "window_end".into()];
    match &job.group.grouping_sets {
        None => group.extend(job.group.keys.iter().map(|k| ident(k))),
        Some(sets) => {
            let sets: Vec<String> = sets
                .iter()
                .map(|s| {
                    format!(
                        "({})",
                        s.iter().map(|k| ident(k)).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            group.push(format!("GROUPING SETS ({})", sets.join(", ")));
        }
    }
    Ok(format!(
        "SELECT {}\nFROM TABLE({call})\nGROUP BY {};\n",
        items.join(", "),
        group.join(", ")
    ))
}

/// `TUMBLE(TABLE t, DESCRIPTOR(rt), …)`: a window TVF call (`partition`: SESSION's
/// `PARTITION BY` columns).
fn tvf_call(
    t: &crate::scenario::TvfSpec,
    table: &str,
    time: &str,
    partition: &[String],
) -> Result<String, Error> {
    use crate::scenario::TvfKind;
    let table = if t.kind == TvfKind::Session && !partition.is_empty() {
        let keys: Vec<String> = partition.iter().map(|k| ident(k)).collect();
        if keys.len() == 1 {
            format!("TABLE {} PARTITION BY {}", ident(table), keys[0])
        } else {
            format!("TABLE {} PARTITION BY ({})", ident(table), keys.join(", "))
        }
    } else {
        format!("TABLE {}", ident(table))
    };
    let need = |v: Option<crate::time::Millis>, what: &str| {
        v.map(|m| m.0)
            .ok_or_else(|| Error::config("job.tvf", format!("{what} is missing")))
    };
    let mut args = vec![table, format!("DESCRIPTOR({})", ident(time))];
    match t.kind {
        TvfKind::Tumble => args.push(interval(t.size.0)),
        TvfKind::Hop => {
            args.push(interval(need(t.slide, "HOP's slide")?));
            args.push(interval(t.size.0));
        }
        TvfKind::Cumulate => {
            args.push(interval(need(t.step, "CUMULATE's step")?));
            args.push(interval(t.size.0));
        }
        TvfKind::Session => args.push(interval(need(t.gap, "SESSION's gap")?)),
    }
    if t.offset.0 != 0 && t.kind != TvfKind::Session {
        args.push(if t.offset.0 < 0 {
            format!("-{}", interval(t.offset.0))
        } else {
            interval(t.offset.0)
        });
    }
    let name = match t.kind {
        TvfKind::Tumble => "TUMBLE",
        TvfKind::Hop => "HOP",
        TvfKind::Cumulate => "CUMULATE",
        TvfKind::Session => "SESSION",
    };
    Ok(format!("{name}({})", args.join(", ")))
}

/// A window join as the Flink documentation writes it: each input windowed by the same TVF in
/// a subquery, joined on `window_start`, `window_end` and the key; a semi or anti join is
/// `WHERE [NOT] EXISTS (…)` with the same condition.
fn window_join(sc: &Scenario, time: &[String]) -> Result<String, Error> {
    use crate::scenario::WindowColumns;
    let job = &sc.job;
    if job.sql.right_tvf.is_some() || job.sql.window_columns != WindowColumns::Both {
        return Err(Error::config(
            "job.sql",
            "a window join Flink does not plan (different windows, or a missing window column in ON) has no script form",
        ));
    }
    let (l, r) = (&sc.streams[0], &sc.streams[1]);
    let side = |s: &crate::scenario::StreamSpec, t: &str| -> Result<String, Error> {
        let part: Vec<String> = s.key.iter().cloned().collect();
        Ok(format!(
            "(SELECT * FROM TABLE({}))",
            tvf_call(&job.tvf, &s.name, t, &part)?
        ))
    };
    let (lt, rt) = (side(l, &time[0])?, side(r, &time[1])?);
    let mut conds = vec![
        "L.window_start = R.window_start".to_string(),
        "L.window_end = R.window_end".to_string(),
    ];
    if let (Some(a), Some(b)) = (&l.key, &r.key) {
        conds.push(format!("L.{} = R.{}", ident(a), ident(b)));
    }
    let select = match &job.query {
        Some(q) if !q.select.is_empty() => q.select.iter().map(item).collect::<Vec<_>>().join(", "),
        _ => "*".to_string(),
    };
    Ok(match job.sql.join {
        JoinType::Semi | JoinType::Anti => format!(
            "SELECT {select}\nFROM {lt} AS L\nWHERE {}EXISTS (\n  SELECT * FROM {rt} AS R\n  WHERE {});\n",
            if job.sql.join == JoinType::Anti { "NOT " } else { "" },
            conds.join(" AND ")
        ),
        jt => format!(
            "SELECT {select}\nFROM {lt} AS L\n{} {rt} AS R\n  ON {};\n",
            jt.sql(),
            conds.join("\n  AND ")
        ),
    })
}
