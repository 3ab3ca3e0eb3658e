//! `CREATE TABLE`, `SET` and hints of a script: Flink's column types, computed columns,
//! `WATERMARK FOR`, primary keys, the `WITH` options that change semantics, and durations.

use super::*;

impl State {
    pub(super) fn set(&mut self, key: &str, value: &str, at: Location) -> Result<(), SqlError> {
        let dur = |v: &str| -> Result<Millis, SqlError> {
            flink_duration(v).map(Millis).map_err(|m| err(at, m))
        };
        self.settings_at.push((key.to_string(), at));
        let job = &mut self.sc.job;
        match key {
            "parallelism.default" => {
                job.parallelism = value
                    .trim()
                    .parse()
                    .map_err(|_| err(at, format!("'{value}' is not a parallelism")))?;
            }
            "pipeline.max-parallelism" => {
                job.max_parallelism = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| err(at, format!("'{value}' is not a parallelism")))?,
                );
            }
            "table.exec.source.idle-timeout" => {
                let d = dur(value)?;
                job.settings.source_idle_timeout = (d.0 != 0).then_some(d);
            }
            "table.exec.state.ttl" => {
                let d = dur(value)?;
                job.settings.state_ttl = (d.0 != 0).then_some(d);
            }
            "table.exec.interval-join.min-cleanup-interval" => {
                job.sql.min_cleanup = dur(value)?;
            }
            "pipeline.auto-watermark-interval" => {
                // The tables' watermarks are emitted periodically at this interval of
                // (simulated) processing time; see `finish` for the rule.
                let d = dur(value)?;
                if d.0 < 0 {
                    return Err(err(at, "the interval must not be negative"));
                }
                self.auto_watermark_interval = Some(d);
            }
            _ => return Err(unsupported(at, &format!("the option '{key}'"))),
        }
        Ok(())
    }

    pub(super) fn create_table(&mut self, p: &mut Parser) -> Result<Table, SqlError> {
        let at = p.peek_token().span.start;
        let pe = |e| from_parser(e, at);
        let name = last_ident(&p.parse_object_name(false).map_err(pe)?);
        let mut t = Table {
            name: name.value.clone(),
            at: name.span.start,
            columns: Vec::new(),
            proctime: None,
            watermark: None,
            primary_key: Vec::new(),
            rows: Vec::new(),
            emit_periodic: None,
            idle_timeout: None,
            time_from: None,
            proctime_at: 0,
        };
        p.expect_token(&Token::LParen).map_err(pe)?;
        // The spans of a computed rowtime's source column and function, checked after the loop.
        let mut computed_from = None;
        let mut proctime_span = None;
        let mut computed_index = None;
        loop {
            let here = p.peek_token().span.start;
            if parse_word(p, "WATERMARK") {
                p.expect_keyword_is(Keyword::FOR).map_err(pe)?;
                let col = p.parse_identifier().map_err(pe)?;
                p.expect_keyword_is(Keyword::AS).map_err(pe)?;
                let e = p.parse_expr().map_err(pe)?;
                let delay = watermark_delay(&col, &e)?;
                t.watermark = Some((col.value.clone(), delay, col.span.start));
            } else if p.parse_keyword(Keyword::PRIMARY) || p.parse_keyword(Keyword::CONSTRAINT) {
                if !p.parse_keyword(Keyword::KEY) {
                    // CONSTRAINT name PRIMARY KEY
                    p.parse_identifier().map_err(pe)?;
                    p.expect_keyword_is(Keyword::PRIMARY).map_err(pe)?;
                    p.expect_keyword_is(Keyword::KEY).map_err(pe)?;
                }
                p.expect_token(&Token::LParen).map_err(pe)?;
                let cols = p
                    .parse_comma_separated(Parser::parse_identifier)
                    .map_err(pe)?;
                p.expect_token(&Token::RParen).map_err(pe)?;
                let ne = p.peek_token().span.start;
                if !p.parse_keywords(&[Keyword::NOT, Keyword::ENFORCED]) {
                    // SqlCreateTableConverter / SqlTableConstraint: Flink's own words.
                    return Err(err(ne, "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode"));
                }
                t.primary_key = cols.into_iter().map(|c| c.value).collect();
            } else {
                let col = p.parse_identifier().map_err(pe)?;
                if p.parse_keyword(Keyword::AS) {
                    let e = p.parse_expr().map_err(pe)?;
                    match &e {
                        Expr::Function(f)
                            if last_ident(&f.name).value.eq_ignore_ascii_case("PROCTIME") =>
                        {
                            if t.proctime.is_some() {
                                return Err(unsupported(
                                    col.span.start,
                                    "a second PROCTIME() column in a table",
                                ));
                            }
                            t.proctime = Some(col.value.clone());
                            t.proctime_at = t.columns.len();
                            proctime_span = Some(col.span.start);
                        }
                        Expr::Function(f)
                            if last_ident(&f.name)
                                .value
                                .eq_ignore_ascii_case("TO_TIMESTAMP_LTZ") =>
                        {
                            computed_index = Some(t.columns.len());
                            computed_from = Some(self.computed_rowtime(&mut t, &col, f)?);
                        }
                        _ => {
                            return Err(unsupported(
                                col.span.start,
                                "a computed column other than PROCTIME() (declare the time column as TIMESTAMP(3) and give its values)",
                            ))
                        }
                    }
                } else {
                    let ty = sql_type(&p.parse_data_type().map_err(pe)?, here)?;
                    let meta = p.peek_token().span.start;
                    if parse_word(p, "METADATA") {
                        // Flink reads a METADATA column from the connector (a Kafka record's
                        // timestamp, a Debezium source timestamp, …): there is no connector here.
                        return Err(unsupported(
                            meta,
                            "a METADATA column (declare it as a plain column and give its values in the table's rows)",
                        ));
                    }
                    let _ = p.parse_keywords(&[Keyword::NOT, Keyword::NULL]);
                    if p.parse_keyword(Keyword::COMMENT) {
                        p.parse_literal_string().map_err(pe)?;
                    }
                    t.columns.push((col.value.clone(), ty, col.span.start));
                }
            }
            if p.consume_token(&Token::Comma) {
                continue;
            }
            p.expect_token(&Token::RParen).map_err(pe)?;
            break;
        }
        check_column_names(&t, computed_index, proctime_span)?;
        Self::resolve_computed_rowtime(&mut t, computed_from)?;
        if p.parse_keyword(Keyword::COMMENT) {
            p.parse_literal_string().map_err(pe)?;
        }
        // `PARTITIONED BY (cols)` lays out a filesystem table's files: kept in the script text,
        // like the WITH options; it does not change the join.
        if parse_word(p, "PARTITIONED") {
            p.expect_keyword_is(Keyword::BY).map_err(pe)?;
            p.expect_token(&Token::LParen).map_err(pe)?;
            p.parse_comma_separated(Parser::parse_identifier)
                .map_err(pe)?;
            p.expect_token(&Token::RParen).map_err(pe)?;
        }
        if p.parse_keyword(Keyword::WITH) {
            // The connector options are the user's production configuration: kept in the
            // script text for the export, not interpreted.
            p.expect_token(&Token::LParen).map_err(pe)?;
            loop {
                if p.consume_token(&Token::RParen) {
                    break;
                }
                let kt = p.peek_token().span.start;
                let k = p.parse_literal_string().map_err(pe)?;
                p.expect_token(&Token::Eq).map_err(pe)?;
                let vt = p.peek_token().span.start;
                let v = p.parse_literal_string().map_err(pe)?;
                match k.as_str() {
                    // FactoryUtil.WATERMARK_EMIT_STRATEGY (default on-periodic).
                    "scan.watermark.emit.strategy" => {
                        t.emit_periodic = Some(match v.trim().to_ascii_lowercase().as_str() {
                            "on-event" => false,
                            "on-periodic" => true,
                            _ => return Err(err(vt, format!("Could not parse value '{v}' for key 'scan.watermark.emit.strategy' (expected on-event or on-periodic)"))),
                        });
                    }
                    // FactoryUtil.SOURCE_IDLE_TIMEOUT: overrides table.exec.source.idle-timeout
                    // for this table (WatermarkPushDownSpec.calculateIdleTimeoutMillis).
                    "scan.watermark.idle-timeout" => {
                        let ms = flink_duration(&v).map_err(|m| err(vt, m))?;
                        t.idle_timeout = Some(Millis(ms));
                    }
                    _ if k.starts_with("scan.watermark.") => {
                        return Err(unsupported(kt, &format!("the option '{k}'")));
                    }
                    _ => {}
                }
                if !p.consume_token(&Token::Comma) {
                    p.expect_token(&Token::RParen).map_err(pe)?;
                    break;
                }
            }
        }
        // Checks Flink makes when it converts the DDL (SqlCreateTableConverter, the
        // MergeTableLikeUtil schema builder).
        if let Some((c, _, at)) = &t.watermark {
            match t.columns.iter().find(|(n, _, _)| n == c) {
                None => {
                    return Err(err(
                        *at,
                        format!(
                            "The rowtime attribute field '{c}' is not defined in the table schema, at line {} column {}\nAvailable fields: [{}]",
                            at.line,
                            at.column,
                            t.columns.iter().map(|(n, _, _)| format!("'{n}'")).collect::<Vec<_>>().join(", ")
                        ),
                    ))
                }
                Some((_, SqlType::Timestamp { .. }, _)) => {}
                Some((_, ty, _)) => {
                    return Err(err(*at, format!("Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is {}", ty.sql_name())))
                }
            }
        }
        for k in &t.primary_key {
            if !t.columns.iter().any(|(n, _, _)| n == k) {
                return Err(err(
                    t.at,
                    format!("Could not create a PRIMARY KEY '{k}'. Column '{k}' does not exist."),
                ));
            }
        }
        // A table with PROCTIME() may have one TIMESTAMP column: the rows' time, which only
        // orders their arrival (the engine's time column of a processing-time input).
        let mut proc_ts = t.proctime.is_some();
        for (n, ty, at) in &t.columns {
            if matches!(ty, SqlType::Timestamp { .. })
                && t.watermark.as_ref().is_none_or(|(c, _, _)| c != n)
            {
                if std::mem::take(&mut proc_ts) {
                    continue;
                }
                return Err(unsupported(
                    *at,
                    "a TIMESTAMP column that is not the table's WATERMARK column",
                ));
            }
        }
        if let Some((rt, _, _)) = &t.time_from {
            if t.watermark.as_ref().is_none_or(|(c, _, _)| c != rt) {
                let at = t
                    .columns
                    .iter()
                    .find(|(n, _, _)| n == rt)
                    .map_or(t.at, |(_, _, a)| *a);
                return Err(unsupported(
                    at,
                    "a computed TO_TIMESTAMP_LTZ column that is not the table's WATERMARK column",
                ));
            }
        }
        if t.watermark.is_some() && t.proctime.is_some() {
            return Err(unsupported(
                t.at,
                "a table with both a rowtime and a proctime attribute",
            ));
        }
        Ok(t)
    }

    /// The source column `c` of `rt AS TO_TIMESTAMP_LTZ(c, p)`, declared before or after `rt`:
    /// it must be a physical INT or BIGINT column of the table; its declared spelling is kept.
    fn resolve_computed_rowtime(
        t: &mut Table,
        spans: Option<(Location, Location)>,
    ) -> Result<(), SqlError> {
        let (Some((rt, src, _)), Some((src_at, fat))) = (&mut t.time_from, spans) else {
            return Ok(());
        };
        let Some((name, ty, _)) = t
            .columns
            .iter()
            .find(|(n, _, _)| n != rt && n.eq_ignore_ascii_case(src))
        else {
            return Err(err(
                src_at,
                format!("Column '{src}' not found in any table"),
            ));
        };
        if !matches!(ty, SqlType::Int | SqlType::Bigint) {
            return Err(unsupported(
                fat,
                "this TO_TIMESTAMP_LTZ call (the engine simulates TO_TIMESTAMP_LTZ(c, 3) and TO_TIMESTAMP_LTZ(c, 0) over an INT or BIGINT column c of the table)",
            ));
        }
        *src = name.clone();
        Ok(())
    }

    /// `rt AS TO_TIMESTAMP_LTZ(c, p)` over an INT or BIGINT column `c` of the table, with
    /// precision 3 (epoch milliseconds) or 0 (epoch seconds): a `TIMESTAMP_LTZ(3)` column
    /// (Flink's `ToTimestampLtzTypeStrategy` gives `TIMESTAMP_LTZ(p)`; the engine's time is in
    /// milliseconds, which holds both). Its value in each row is computed from `c`'s (see
    /// `rows.rs`), so the engine sees an ordinary time column; the scenario's `time_from`
    /// remembers the form for the printer.
    fn computed_rowtime(
        &self,
        t: &mut Table,
        col: &Ident,
        f: &sqlparser::ast::Function,
    ) -> Result<(Location, Location), SqlError> {
        let fat = f.name.span().start;
        let bad = || {
            unsupported(
                fat,
                "this TO_TIMESTAMP_LTZ call (the engine simulates TO_TIMESTAMP_LTZ(c, 3) and TO_TIMESTAMP_LTZ(c, 0) over an INT or BIGINT column c of the table)",
            )
        };
        let sqlparser::ast::FunctionArguments::List(list) = &f.args else {
            return Err(bad());
        };
        let args: Vec<&Expr> = list
            .args
            .iter()
            .map(|a| match a {
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) => {
                    Some(e)
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let (src, precision) = match args[..] {
            [Expr::Identifier(c), p] => (c, p),
            [Expr::Identifier(_)] => {
                // TO_TIMESTAMP_LTZ(c) is precision 3 in Flink 2.3, but say it explicitly.
                return Err(bad());
            }
            _ => return Err(bad()),
        };
        let precision = match super::rows::literal(precision) {
            Ok(Literal::Int(3)) => 3,
            Ok(Literal::Int(0)) => 0,
            _ => return Err(bad()),
        };
        if t.time_from.is_some() {
            return Err(unsupported(
                col.span.start,
                "more than one computed TO_TIMESTAMP_LTZ column in a table",
            ));
        }
        // The source column may be declared after `rt` (Flink resolves computed columns
        // against the whole physical schema): `resolve_computed_rowtime` checks it once every
        // column is read.
        t.time_from = Some((col.value.clone(), src.value.clone(), precision));
        t.columns.push((
            col.value.clone(),
            SqlType::Timestamp { ltz: true },
            col.span.start,
        ));
        Ok((src.span.start, fat))
    }

    pub(super) fn hint(&mut self, text: &str, at: Location) -> Result<(), SqlError> {
        let t = text.trim();
        let Some(rest) = t.strip_prefix("STATE_TTL") else {
            return Err(unsupported(at, &format!("the hint /*+{text}*/")));
        };
        let inner = rest.trim().trim_start_matches('(').trim_end_matches(')');
        self.ttl_hints = inner
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|kv| {
                let mut it = kv.splitn(2, '=');
                let k = it
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches('\'')
                    .to_string();
                let v = it
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches('\'')
                    .to_string();
                (k, v)
            })
            .collect();
        self.hint_at = Some(at);
        Ok(())
    }
}

/// A Flink duration option value: `10 s`, `1h`, `500 ms`, `1 min`, `3600000` (ms).
pub(crate) fn flink_duration(v: &str) -> Result<i64, String> {
    let t = v.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: i64 = n.parse().map_err(|_| format!("'{v}' is not a duration"))?;
    let mult = match unit.trim() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1000,
        "min" | "m" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        _ => return Err(format!("'{v}' is not a duration")),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("'{v}' is too long"))
}

pub(super) fn sql_type(dt: &DataType, at: Location) -> Result<SqlType, SqlError> {
    let s = dt.to_string().to_ascii_uppercase().replace(' ', "");
    Ok(match s.as_str() {
        "INT" | "INTEGER" => SqlType::Int,
        "BIGINT" => SqlType::Bigint,
        "STRING" | "VARCHAR" | "TEXT" => SqlType::String,
        "DOUBLE" | "DOUBLEPRECISION" => SqlType::Double,
        "BOOLEAN" | "BOOL" => SqlType::Boolean,
        "TIMESTAMP(3)" | "TIMESTAMP" => SqlType::Timestamp { ltz: false },
        "TIMESTAMP_LTZ(3)" | "TIMESTAMP(3)WITHLOCALTIMEZONE" => SqlType::Timestamp { ltz: true },
        _ if s.starts_with("VARCHAR(") || s.starts_with("CHAR(") => SqlType::String,
        // DECIMAL, DECIMAL(p), DECIMAL(p, s) and the synonyms DEC / NUMERIC (DecimalType;
        // the defaults are precision 10, scale 0).
        _ if ["DECIMAL", "DEC", "NUMERIC"]
            .iter()
            .any(|k| s == *k || s.starts_with(&format!("{k}("))) =>
        {
            match crate::value::ColumnType::parse_checked(&s) {
                Ok(Some(crate::value::ColumnType::Decimal(p, sc))) => SqlType::Decimal(p, sc),
                Err(m) => return Err(err(at, m)),
                _ => return Err(unsupported(at, &format!("the type {dt}"))),
            }
        }
        _ => return Err(unsupported(at, &format!("the type {dt}"))),
    })
}

/// `rt - INTERVAL '5' SECOND` (or `rt`) -> 5000 (or 0).
pub(super) fn watermark_delay(col: &Ident, e: &Expr) -> Result<i64, SqlError> {
    let is_col =
        |x: &Expr| matches!(x, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(&col.value));
    match e {
        x if is_col(x) => Ok(0),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Minus,
            right,
        } if is_col(left) => {
            let ms = interval_ms(right)?;
            if ms < 0 {
                return Err(unsupported(
                    right.span().start,
                    "a negative watermark delay",
                ));
            }
            Ok(ms)
        }
        Expr::Nested(inner) => watermark_delay(col, inner),
        other => Err(unsupported(
            other.span().start,
            "this watermark expression (the engine simulates `rt` and `rt - INTERVAL …`)",
        )),
    }
}

/// `INTERVAL '10' MINUTE(S)` / `INTERVAL '1.5' SECOND` / `INTERVAL '1 02:03:04.005' DAY TO
/// SECOND` -> milliseconds.
pub(crate) fn interval_ms(e: &Expr) -> Result<i64, SqlError> {
    let at = e.span().start;
    // `-INTERVAL '1' SECOND` (a negative window offset).
    if let Expr::UnaryOp {
        op: UnaryOperator::Minus,
        expr,
    } = e
    {
        return interval_ms(expr)?
            .checked_neg()
            .ok_or_else(|| err(at, "the INTERVAL is out of range"));
    }
    let Expr::Interval(iv) = e else {
        return Err(err(at, "expected an INTERVAL"));
    };
    let text = match iv.value.as_ref() {
        Expr::Value(v) => match &v.value {
            SValue::SingleQuotedString(s) | SValue::Number(s, _) => s.clone(),
            _ => return Err(err(at, "an INTERVAL needs a quoted value")),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                SValue::SingleQuotedString(s) | SValue::Number(s, _) => format!("-{s}"),
                _ => return Err(err(at, "an INTERVAL needs a quoted value")),
            },
            _ => return Err(err(at, "an INTERVAL needs a quoted value")),
        },
        _ => return Err(err(at, "an INTERVAL needs a quoted value")),
    };
    let unit = |f: &DateTimeField| -> Option<i64> {
        Some(match f {
            DateTimeField::Day | DateTimeField::Days => 86_400_000,
            DateTimeField::Hour | DateTimeField::Hours => 3_600_000,
            DateTimeField::Minute | DateTimeField::Minutes => 60_000,
            DateTimeField::Second | DateTimeField::Seconds => 1000,
            DateTimeField::Millisecond | DateTimeField::Milliseconds => 1,
            _ => return None,
        })
    };
    let lead = iv
        .leading_field
        .as_ref()
        .ok_or_else(|| err(at, "an INTERVAL needs a unit"))?;
    let lu = unit(lead).ok_or_else(|| unsupported(at, &format!("an INTERVAL in {lead}")))?;
    let (neg, body) = match text.trim().strip_prefix('-') {
        Some(b) => (true, b.trim().to_string()),
        None => (false, text.trim().to_string()),
    };
    let ms = match &iv.last_field {
        None => {
            let v: f64 = body.parse().map_err(|_| {
                err(
                    at,
                    format!("Illegal interval literal format '{text}' for INTERVAL {lead}"),
                )
            })?;
            (v * lu as f64).round() as i64
        }
        Some(_) => {
            // DAY TO SECOND / HOUR TO SECOND / MINUTE TO SECOND: `d hh:mm:ss.fff`.
            let (days, clock) = match body.split_once(' ') {
                Some((d, c)) => (
                    d.parse::<i64>().map_err(|_| err(at, "bad interval"))?,
                    c.to_string(),
                ),
                None => (0, body.clone()),
            };
            let parts: Vec<&str> = clock.split(':').collect();
            let mut ms = days * 86_400_000;
            let units = [3_600_000i64, 60_000, 1000];
            let start = 3usize.saturating_sub(parts.len());
            for (k, p) in parts.iter().enumerate() {
                let u = units.get(start + k).copied().unwrap_or(1000);
                let v: f64 = p
                    .parse()
                    .map_err(|_| err(at, format!("Illegal interval literal format '{text}'")))?;
                ms += (v * u as f64).round() as i64;
            }
            ms
        }
    };
    Ok(if neg { -ms } else { ms })
}

/// Flink's checks of a table's column names, in its order (`MergeTableLikeUtil.SchemaBuilder`,
/// 2.3.0 bytecode): every physical column against the ones before it
/// (`collectPhysicalFieldsTypes`), then each computed column (a `TO_TIMESTAMP_LTZ` rowtime,
/// `PROCTIME()`) against all the physical ones, wherever declared (`appendDerivedColumns`).
fn check_column_names(
    t: &Table,
    computed_index: Option<usize>,
    proctime_span: Option<Location>,
) -> Result<(), SqlError> {
    let (computed, physical): (Vec<_>, Vec<_>) = t
        .columns
        .iter()
        .enumerate()
        .map(|(i, (n, _, at))| (i, n.as_str(), *at))
        .partition(|(i, _, _)| Some(*i) == computed_index);
    let computed = computed.into_iter().map(|(_, n, at)| (n, at));
    let physical: Vec<(&str, Location)> = physical.into_iter().map(|(_, n, at)| (n, at)).collect();
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    for (i, (n, at)) in physical.iter().enumerate() {
        if physical[..i].iter().any(|(m, _)| same(m, n)) {
            return Err(err(
                *at,
                format!("A regular Column named '{n}' already exists in the table."),
            ));
        }
    }
    let derived = computed.chain(t.proctime.as_deref().zip(proctime_span));
    for (n, at) in derived {
        if physical.iter().any(|(m, _)| same(m, n)) {
            return Err(err(at, format!("A column named '{n}' already exists in the table. Duplicate columns exist in the compute column and regular column.")));
        }
    }
    Ok(())
}
