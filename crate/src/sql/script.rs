//! A Flink SQL script -> a [`Scenario`].
//!
//! The script is tokenized once by sqlparser with [`FlinkDialect`]; statements are split at
//! `;` and each is read with sqlparser's `Parser` (its own `INSERT` and `SELECT` grammar, and
//! its primitives for `CREATE TABLE … WATERMARK FOR …` and `SET 'k' = 'v'`, which it has no
//! node for). Errors carry the 1-based line and column of the token they are about.

use super::dialect::{FlinkDialect, TABLE_ARG};
use super::ir::{BinOp, Literal, QuerySpec, SelectItem, SqlExpr};
use super::SqlError;
use crate::scenario::{
    JoinType, OperatorKind, Scenario, Strategy, StreamSpec, TimeKind, WatermarkSpec,
};
use crate::time::{parse_timestamp, Millis};
use sqlparser::ast::{
    BinaryOperator, DataType, DateTimeField, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    Ident, JoinConstraint, JoinOperator, ObjectName, SelectItem as SItem, SetExpr, Spanned,
    TableFactor, TableVersion, UnaryOperator, Value as SValue,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Tokenizer, Whitespace};

pub(crate) fn err(at: Location, message: impl Into<String>) -> SqlError {
    SqlError {
        line: at.line.max(1) as usize,
        column: at.column.max(1) as usize,
        message: message.into(),
    }
}

/// Says that Flink accepts this but the simulator does not model it.
pub(crate) fn unsupported(at: Location, what: &str) -> SqlError {
    err(
        at,
        format!("{what}: Flink accepts this, but Joinlab does not simulate it"),
    )
}

/// sqlparser's messages end in ` at Line: L, Column: C`; that becomes the position.
fn from_parser(e: ParserError, fallback: Location) -> SqlError {
    let text = match e {
        ParserError::TokenizerError(s) | ParserError::ParserError(s) => s,
        ParserError::RecursionLimitExceeded => "the expression is nested too deeply".into(),
    };
    if let Some(i) = text.rfind(" at Line: ") {
        let tail = &text[i + 10..];
        let mut it = tail.split(", Column: ");
        let line = it.next().and_then(|l| l.trim().parse().ok());
        let col = it.next().and_then(|c| c.trim().parse().ok());
        if let (Some(l), Some(c)) = (line, col) {
            return err(Location::new(l, c), text[..i].to_string());
        }
    }
    err(fallback, text)
}

/// A column's SQL type as the engine knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SqlType {
    Int,
    Bigint,
    String,
    Double,
    Boolean,
    /// `TIMESTAMP(3)` / `TIMESTAMP_LTZ(3)`: only as a table's rowtime attribute.
    Timestamp {
        ltz: bool,
    },
}

impl SqlType {
    /// The type as Flink prints it.
    fn sql_name(self) -> &'static str {
        match self {
            SqlType::Int => "INT",
            SqlType::Bigint => "BIGINT",
            SqlType::String => "STRING",
            SqlType::Double => "DOUBLE",
            SqlType::Boolean => "BOOLEAN",
            SqlType::Timestamp { ltz: false } => "TIMESTAMP(3)",
            SqlType::Timestamp { ltz: true } => "TIMESTAMP_LTZ(3)",
        }
    }
    fn engine(self) -> Option<&'static str> {
        match self {
            SqlType::Int => Some("int"),
            SqlType::Bigint => Some("bigint"),
            SqlType::String => Some("string"),
            SqlType::Double => Some("double"),
            SqlType::Boolean => Some("boolean"),
            SqlType::Timestamp { .. } => None,
        }
    }
}

#[derive(Clone)]
pub(crate) struct Table {
    pub(crate) name: String,
    at: Location,
    pub(crate) columns: Vec<(String, SqlType, Location)>,
    /// `pt AS PROCTIME()`.
    pub(crate) proctime: Option<String>,
    pub(crate) watermark: Option<(String, i64, Location)>,
    primary_key: Vec<String>,
    rows: Vec<String>,
    /// `'scan.watermark.emit.strategy'`: `Some(true)` for `on-periodic`, `Some(false)` for
    /// `on-event`.
    emit_periodic: Option<bool>,
    /// `'scan.watermark.idle-timeout'`.
    idle_timeout: Option<Millis>,
}

impl Table {
    fn has(&self, c: &str) -> bool {
        self.columns
            .iter()
            .any(|(n, _, _)| n.eq_ignore_ascii_case(c))
            || self
                .proctime
                .as_deref()
                .is_some_and(|p| p.eq_ignore_ascii_case(c))
    }
    pub(crate) fn canonical(&self, c: &str) -> Option<String> {
        self.columns
            .iter()
            .map(|(n, _, _)| n)
            .chain(self.proctime.iter())
            .find(|n| n.eq_ignore_ascii_case(c))
            .cloned()
    }
}

/// Reads a script into a scenario (the script text itself is kept in `sql`).
pub fn parse(text: &str) -> Result<Scenario, SqlError> {
    let dialect = FlinkDialect;
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .map_err(|e| err(e.location, e.message))?;
    let mut statements: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    let mut semicolon_line = 0;
    for t in tokens {
        if t.token == Token::SemiColon {
            semicolon_line = t.span.start.line;
            statements.push(Vec::new());
            continue;
        }
        // A comment right after `;` on its line belongs to the statement it ends (a row's
        // annotations: `(…); -- a=…`).
        let trailing = matches!(
            t.token,
            Token::Whitespace(Whitespace::SingleLineComment { .. })
        ) && t.span.start.line == semicolon_line
            && statements.last().is_some_and(|s| {
                s.iter().all(|x| {
                    matches!(
                        x.token,
                        Token::Whitespace(Whitespace::Space | Whitespace::Tab)
                    )
                })
            });
        let n = statements.len();
        if trailing && n >= 2 {
            statements[n - 2].push(t);
        } else if let Some(last) = statements.last_mut() {
            last.push(t);
        }
    }
    let mut st = State::default();
    for toks in statements {
        let Some(first) = toks
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .cloned()
        else {
            continue;
        };
        st.statement(&dialect, toks, first)?;
    }
    st.finish(text)
}

/// The query of a script as the user wrote it, from its `SELECT` to its end (an `INSERT
/// INTO sink` before it is left out): what the conformance job runs on real Flink.
pub fn query_text(text: &str) -> Option<String> {
    let dialect = FlinkDialect;
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .ok()?;
    let mut statements: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    for t in tokens {
        if t.token == Token::SemiColon {
            statements.push(Vec::new());
        } else if let Some(last) = statements.last_mut() {
            last.push(t);
        }
    }
    for st in statements {
        let words: Vec<&TokenWithSpan> = st
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        let Some(first) = words.first() else {
            continue;
        };
        let is_query = is_kw(first, Keyword::SELECT)
            || (is_kw(first, Keyword::INSERT) && !words.iter().any(|t| is_kw(t, Keyword::VALUES)));
        if !is_query {
            continue;
        }
        let start = st.iter().position(|t| is_kw(t, Keyword::SELECT))?;
        let q: String = st[start..].iter().map(|t| t.token.to_string()).collect();
        return Some(q.trim_end().to_string());
    }
    None
}

/// The name of the `PROCTIME()` column of table `table` in a script.
pub fn proctime_column(text: &str, table: &str) -> Option<String> {
    let mut st = State::default();
    let dialect = FlinkDialect;
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .ok()?;
    let mut cur = Vec::new();
    for t in tokens.into_iter().chain(std::iter::once(TokenWithSpan::new(
        Token::SemiColon,
        Span::empty(),
    ))) {
        if t.token != Token::SemiColon {
            cur.push(t);
            continue;
        }
        let toks = std::mem::take(&mut cur);
        let Some(first) = toks
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .cloned()
        else {
            continue;
        };
        if is_kw(&first, Keyword::CREATE) {
            let _ = st.statement(&dialect, toks, first);
        }
    }
    st.tables
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(table))
        .and_then(|t| t.proctime.clone())
}

#[derive(Default)]
struct State {
    tables: Vec<Table>,
    sc: Scenario,
    query_at: Option<Location>,
    settings_at: Vec<(String, Location)>,
    /// The query's inputs: table index and alias.
    inputs: Vec<(usize, Option<Ident>)>,
    keys: Option<(String, String)>,
    ttl_hints: Vec<(String, String)>,
    hint_at: Option<Location>,
    /// `SET 'pipeline.auto-watermark-interval'`.
    auto_watermark_interval: Option<Millis>,
}

fn is_kw(t: &TokenWithSpan, kw: Keyword) -> bool {
    matches!(&t.token, Token::Word(w) if w.keyword == kw)
}

impl State {
    fn statement(
        &mut self,
        dialect: &FlinkDialect,
        toks: Vec<TokenWithSpan>,
        first: TokenWithSpan,
    ) -> Result<(), SqlError> {
        let at = first.span.start;
        let comments: Vec<(Span, String)> = toks
            .iter()
            .filter_map(|t| match &t.token {
                Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => {
                    Some((t.span, comment.clone()))
                }
                _ => None,
            })
            .collect();
        let mut p = Parser::new(dialect).with_tokens_with_locations(toks);
        let pe = |e| from_parser(e, at);
        if is_kw(&first, Keyword::SET) {
            p.next_token();
            let key = p.parse_literal_string().map_err(pe)?;
            p.expect_token(&Token::Eq).map_err(pe)?;
            let vt = p.peek_token();
            let value = p.parse_literal_string().map_err(pe)?;
            self.set(&key, &value, vt.span.start)?;
            return expect_end(&mut p);
        }
        if is_kw(&first, Keyword::CREATE) {
            p.next_token();
            let _ = p.parse_keyword(Keyword::TEMPORARY);
            p.expect_keyword_is(Keyword::TABLE).map_err(pe)?;
            let t = self.create_table(&mut p)?;
            if self
                .tables
                .iter()
                .any(|x| x.name.eq_ignore_ascii_case(&t.name))
            {
                return Err(err(t.at, format!("Table `{}` already exists", t.name)));
            }
            self.tables.push(t);
            return expect_end(&mut p);
        }
        // INSERT and the query are read with sqlparser's query grammar and primitives, not
        // `parse_statement`: that one reaches every statement of every dialect, which would
        // more than double the SQL wasm module.
        if is_kw(&first, Keyword::INSERT) {
            p.next_token();
            p.expect_keyword_is(Keyword::INTO).map_err(pe)?;
            let target = last_ident(&p.parse_object_name(false).map_err(pe)?);
            if p.parse_keyword(Keyword::VALUES) {
                let rows = p
                    .parse_comma_separated(|p| {
                        let open = p.expect_token(&Token::LParen)?;
                        let vals = p.parse_comma_separated(Parser::parse_expr)?;
                        let close = p.expect_token(&Token::RParen)?;
                        Ok((open.span.start, vals, close.span.end))
                    })
                    .map_err(pe)?;
                expect_end(&mut p)?;
                let Some(ti) = self
                    .tables
                    .iter()
                    .position(|t| t.name.eq_ignore_ascii_case(&target.value))
                else {
                    return Err(err(
                        target.span.start,
                        format!("Object '{}' not found", target.value),
                    ));
                };
                for (open, vals, close) in rows {
                    let text = self.row(ti, &vals, open, close, &comments)?;
                    self.tables[ti].rows.push(text);
                }
                return Ok(());
            }
            let q = p.parse_query().map_err(pe)?;
            expect_end(&mut p)?;
            return self.query_of(*q, at, Some(&target));
        }
        if is_kw(&first, Keyword::SELECT) || is_kw(&first, Keyword::WITH) {
            let q = p.parse_query().map_err(pe)?;
            expect_end(&mut p)?;
            return self.query_of(*q, at, None);
        }
        Err(err(
            at,
            "a script holds SET, CREATE TABLE, INSERT INTO … VALUES and one query",
        ))
    }

    fn query_of(
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

    fn set(&mut self, key: &str, value: &str, at: Location) -> Result<(), SqlError> {
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

    fn create_table(&mut self, p: &mut Parser) -> Result<Table, SqlError> {
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
        };
        p.expect_token(&Token::LParen).map_err(pe)?;
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
                            t.proctime = Some(col.value.clone());
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
                    let _ = p.parse_keywords(&[Keyword::NOT, Keyword::NULL]);
                    if p.parse_keyword(Keyword::COMMENT) {
                        p.parse_literal_string().map_err(pe)?;
                    }
                    if t.has(&col.value) {
                        return Err(err(
                            col.span.start,
                            format!(
                                "A column named '{}' already exists in the table.",
                                col.value
                            ),
                        ));
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
        if p.parse_keyword(Keyword::COMMENT) {
            p.parse_literal_string().map_err(pe)?;
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
        if t.watermark.is_some() && t.proctime.is_some() {
            return Err(unsupported(
                t.at,
                "a table with both a rowtime and a proctime attribute",
            ));
        }
        Ok(t)
    }

    fn row(
        &self,
        ti: usize,
        content: &[Expr],
        at: Location,
        end: Location,
        comments: &[(Span, String)],
    ) -> Result<String, SqlError> {
        let t = &self.tables[ti];
        if content.len() != t.columns.len() {
            return Err(err(
                at,
                format!(
                    "Column types of query result and sink for '{}' do not match: {} values for {} columns",
                    t.name,
                    content.len(),
                    t.columns.len()
                ),
            ));
        }
        let mut fields = Vec::new();
        for (e, (name, ty, _)) in content.iter().zip(&t.columns) {
            let pos = e.span().start;
            let lit = literal(e)?;
            let text = match (&lit, ty) {
                (Literal::Null, SqlType::Timestamp { .. }) => {
                    return Err(err(pos, format!("the rowtime column {name} needs a value")))
                }
                (Literal::Null, _) => "null".to_string(),
                (Literal::Timestamp(ms), SqlType::Timestamp { .. }) => {
                    crate::time::format_datetime(*ms)
                }
                (Literal::Str(s), SqlType::Timestamp { .. }) => {
                    // A string literal is cast to TIMESTAMP by Flink.
                    let ms = parse_timestamp(s).map_err(|m| err(pos, m))?;
                    crate::time::format_datetime(ms)
                }
                (Literal::Int(_) | Literal::Long(_), SqlType::Int | SqlType::Bigint)
                | (Literal::Int(_) | Literal::Long(_) | Literal::Double(_), SqlType::Double)
                | (Literal::Bool(_), SqlType::Boolean) => lit_text(&lit),
                (Literal::Str(s), SqlType::String) => field(s),
                _ => {
                    return Err(err(
                        pos,
                        format!(
                            "this value does not fit column {name} of type {}",
                            ty.sql_name()
                        ),
                    ))
                }
            };
            if let (Literal::Long(_), SqlType::Int) = (&lit, ty) {
                return Err(err(
                    pos,
                    format!("this value is out of range for INT column {name}"),
                ));
            }
            fields.push(text);
        }
        let mut text = fields.join(", ");
        // Row annotations in a comment on the row's line: `-- -U a=2021-11-01T00:03:10 s=1`.
        if let Some((_, c)) = comments
            .iter()
            .find(|(s, _)| s.start.line == end.line && s.start.column > end.column)
        {
            let words: Vec<&str> = c.split_whitespace().collect();
            let is_annotation = words.first().is_some_and(|w| {
                matches!(*w, "+I" | "-U" | "+U" | "-D")
                    || w.starts_with("a=")
                    || w.starts_with("s=")
            });
            if is_annotation {
                let mut ann = Vec::new();
                for w in words {
                    match w {
                        "+I" => {}
                        "-U" | "+U" | "-D" => text = format!("{w} {text}"),
                        _ if w.starts_with("a=") || w.starts_with("s=") => ann.push(w.to_string()),
                        _ => {
                            return Err(err(
                                end,
                                format!(
                                    "row annotation {w:?}: expected +I, -U, +U, -D, a=TIME or s=N"
                                ),
                            ))
                        }
                    }
                }
                if !ann.is_empty() {
                    text = format!("{text} | {}", ann.join(" "));
                }
            }
        }
        Ok(text)
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

    fn query(
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
            super::window_join::windowed(&self.tables, &from.relation)?.filter(|_| window_join)
        {
            let wj = super::window_join::read(&self.tables, sel, from, left, at)?;
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
            let (agg, input) = super::tvf::window_aggregate(&self.tables, sel, expr)?;
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

    fn hint(&mut self, text: &str, at: Location) -> Result<(), SqlError> {
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

    fn finish(mut self, text: &str) -> Result<Scenario, SqlError> {
        let end = Location::new(text.lines().count().max(1) as u64, 1);
        if self.query_at.is_none() {
            return Err(err(
                end,
                "the script has no query: end it with SELECT … or INSERT INTO sink SELECT …",
            ));
        }
        let keys = self.keys.take();
        let mut streams = Vec::new();
        for (side, (ti, _)) in self.inputs.iter().enumerate() {
            let t = &self.tables[*ti];
            let time = t.watermark.as_ref().map(|(c, _, _)| c.clone()).or_else(|| {
                t.proctime.as_ref().and_then(|_| {
                    t.columns
                        .iter()
                        .find(|(_, ty, _)| matches!(ty, SqlType::Timestamp { .. }))
                        .map(|(n, _, _)| n.clone())
                })
            });
            // Emission: a table's watermark is emitted after every row unless the script asks
            // for periodic emission, by the table's 'scan.watermark.emit.strategy' =
            // 'on-periodic' or by setting 'pipeline.auto-watermark-interval' (then every
            // table without 'on-event' is periodic). Flink's generator for a SQL watermark
            // (GeneratedWatermarkGeneratorSupplier.DefaultWatermarkGenerator, Flink 2.3.0
            // bytecode) keeps the largest `rt - d` of the rows so far (`if (wm >
            // currentWatermark) currentWatermark = wm`), emits it in onEvent only for
            // on-event and in onPeriodicEmit only for on-periodic: the engine's `legacy`
            // rule (maxTs - d), per event or periodic. An interval of 0 switches periodic
            // emission off (only the end of input's watermark); Flink's default interval is
            // 200 ms.
            let periodic = t
                .emit_periodic
                .unwrap_or(self.auto_watermark_interval.is_some());
            let watermark = t.watermark.as_ref().map(|(_, d, _)| WatermarkSpec {
                strategy: Strategy::Legacy,
                delay: Millis(*d),
                per_event: !periodic,
                interval: if periodic {
                    self.auto_watermark_interval.unwrap_or(Millis(200))
                } else {
                    Millis(0)
                },
                idle_timeout: None,
            });
            streams.push(StreamSpec {
                name: t.name.clone(),
                columns: t
                    .columns
                    .iter()
                    .map(|(n, ty, _)| match ty.engine() {
                        Some(e) => format!("{n}:{e}"),
                        None => n.clone(),
                    })
                    .collect(),
                key: keys
                    .as_ref()
                    .map(|(a, b)| if side == 0 { a.clone() } else { b.clone() }),
                time,
                rows: t.rows.join("\n"),
                watermark,
                primary_key: t.primary_key.clone(),
                scan_watermark_idle_timeout: t.idle_timeout,
            });
        }
        // The job's watermark is the first stream's; a stream whose watermark equals it
        // keeps none of its own.
        let job_wm = streams
            .first()
            .and_then(|s| s.watermark.clone())
            .unwrap_or_default();
        for s in &mut streams {
            if s.watermark.as_ref() == Some(&job_wm) {
                s.watermark = None;
            } else if s.watermark.is_none() && s.time.is_none() {
                // A table without a rowtime attribute (proctime or none) has no watermark.
                if job_wm != WatermarkSpec::default() {
                    s.watermark = Some(WatermarkSpec {
                        strategy: Strategy::None,
                        ..WatermarkSpec::default()
                    });
                }
            }
        }
        self.sc.job.watermark = job_wm;
        if !self.ttl_hints.is_empty() {
            for (k, v) in std::mem::take(&mut self.ttl_hints) {
                let ms = flink_duration(&v).map_err(|m| err(self.hint_at.unwrap_or(end), m))?;
                let side = self.alias_side(&k).ok_or_else(|| err(self.hint_at.unwrap_or(end), format!("The options of following hints cannot match the name of input tables or views: \n`{k}` in `STATE_TTL`")))?;
                if side == 0 {
                    self.sc.job.settings.state_ttl_left = Some(Millis(ms));
                } else {
                    self.sc.job.settings.state_ttl_right = Some(Millis(ms));
                }
            }
        }
        self.sc.streams = streams;
        self.sc.sql = text.to_string();
        Ok(self.sc)
    }
}

impl State {
    /// The input a `STATE_TTL` hint names (its alias, else its table name).
    fn alias_side(&self, k: &str) -> Option<usize> {
        self.inputs.iter().position(|(ti, alias)| match alias {
            Some(a) => a.value.eq_ignore_ascii_case(k),
            None => self.tables[*ti].name.eq_ignore_ascii_case(k),
        })
    }
}

/// The tables as a window join's query sees them: each with the TVF's window columns
/// (`window_start`, `window_end`, `window_time`, all `TIMESTAMP(3)`) after its own.
pub(crate) fn projection_tables(tables: &[Table]) -> Vec<Table> {
    tables
        .iter()
        .map(|t| {
            let mut t = t.clone();
            for w in super::window_join::WINDOW_COLUMNS {
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
    let resolver = Resolver { tables, inputs };
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
                let x = resolver.expr(e)?;
                let name = match &x {
                    SqlExpr::Col { name, .. } => name.clone(),
                    _ => format!("EXPR${i}"),
                };
                items.push(SelectItem { expr: x, name });
            }
            SItem::ExprWithAlias { expr, alias } => {
                star_only = false;
                items.push(SelectItem {
                    expr: resolver.expr(expr)?,
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

/// A word that is not one of sqlparser's keywords (`WATERMARK`).
fn parse_word(p: &mut Parser, word: &str) -> bool {
    match &p.peek_token().token {
        Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word) => {
            p.next_token();
            true
        }
        _ => false,
    }
}

fn expect_end(p: &mut Parser) -> Result<(), SqlError> {
    let t = p.peek_token();
    if t.token != Token::EOF {
        return Err(err(
            t.span.start,
            format!("unexpected {} (a statement ends with ;)", t.token),
        ));
    }
    Ok(())
}

pub(crate) fn last_ident(n: &ObjectName) -> Ident {
    n.0.last()
        .and_then(|p| p.as_ident().cloned())
        .unwrap_or_else(|| Ident::new(n.to_string()))
}

fn all_columns(t: &Table) -> Vec<String> {
    t.columns
        .iter()
        .map(|(n, _, _)| n.clone())
        .chain(t.proctime.clone())
        .collect()
}

/// Which inputs an expression reads.
fn sides_of(e: &SqlExpr, out: &mut [bool; 2]) {
    match e {
        SqlExpr::Col { input, .. } => out[(*input as usize).min(1)] = true,
        SqlExpr::Lit(_) | SqlExpr::Interval(_) => {}
        SqlExpr::Bin { left, right, .. } => {
            sides_of(left, out);
            sides_of(right, out);
        }
        SqlExpr::Not(x) | SqlExpr::Neg(x) => sides_of(x, out),
        SqlExpr::IsNull { expr, .. } => sides_of(expr, out),
        SqlExpr::Cast { expr, .. } => sides_of(expr, out),
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

fn sql_type(dt: &DataType, at: Location) -> Result<SqlType, SqlError> {
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
        _ => return Err(unsupported(at, &format!("the type {dt}"))),
    })
}

/// `rt - INTERVAL '5' SECOND` (or `rt`) -> 5000 (or 0).
fn watermark_delay(col: &Ident, e: &Expr) -> Result<i64, SqlError> {
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

fn literal(e: &Expr) -> Result<Literal, SqlError> {
    let at = e.span().start;
    Ok(match e {
        Expr::Value(v) => match &v.value {
            SValue::Null => Literal::Null,
            SValue::Boolean(b) => Literal::Bool(*b),
            SValue::SingleQuotedString(s) => Literal::Str(s.clone()),
            SValue::Number(n, _) => number(n, at)?,
            other => return Err(err(at, format!("unexpected literal {other}"))),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Int(i) => Literal::Int(-i),
            Literal::Long(i) => match i.checked_neg() {
                Some(n)
                    if n >= i32::MIN as i64 && n <= i32::MAX as i64 && i <= i32::MAX as i64 + 1 =>
                {
                    Literal::Int(n as i32)
                }
                Some(n) => Literal::Long(n),
                None => return Err(err(at, "number out of range")),
            },
            Literal::Double(d) => Literal::Double(-d),
            _ => return Err(err(at, "a minus sign needs a number")),
        },
        Expr::TypedString(ts) if matches!(ts.data_type, DataType::Timestamp(..)) => {
            let s = match &ts.value.value {
                SValue::SingleQuotedString(s) => s.clone(),
                other => other.to_string(),
            };
            Literal::Timestamp(parse_timestamp(&s).map_err(|m| err(at, m))?)
        }
        Expr::Nested(inner) => literal(inner)?,
        _ => {
            return Err(err(
                at,
                "a row value must be a literal (a number, 'text', TIMESTAMP '…' or NULL)",
            ))
        }
    })
}

fn number(n: &str, at: Location) -> Result<Literal, SqlError> {
    if let Ok(i) = n.parse::<i32>() {
        return Ok(Literal::Int(i));
    }
    if let Ok(i) = n.parse::<i64>() {
        return Ok(Literal::Long(i));
    }
    n.parse::<f64>()
        .ok()
        .filter(|d| d.is_finite())
        .map(Literal::Double)
        .ok_or_else(|| err(at, format!("{n} is not a number")))
}

fn lit_text(l: &Literal) -> String {
    match l {
        Literal::Null => "null".into(),
        Literal::Int(i) => i.to_string(),
        Literal::Long(i) => i.to_string(),
        Literal::Double(d) => format!("{d:?}"),
        Literal::Str(s) => field(s),
        Literal::Bool(b) => b.to_string(),
        Literal::Timestamp(ms) => crate::time::format_datetime(*ms),
    }
}

/// A string as a field of the rows text: quoted when it would not read back as itself.
pub(crate) fn field(s: &str) -> String {
    let plain = !s.is_empty()
        && s.trim() == s
        && !s.contains([',', '"', '|', '\n', '\r', '#'])
        && !s.eq_ignore_ascii_case("null")
        && !s.starts_with("WM ")
        && !s.starts_with(['+', '-']);
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

/// A bound on `L.t - R.t`: (is the lower bound, value in ms, strict).
type Bound = (bool, i64, bool);

pub(crate) struct Resolver<'a> {
    pub(crate) tables: &'a [Table],
    pub(crate) inputs: &'a [(usize, Option<Ident>)],
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

    fn expr(&self, e: &Expr) -> Result<SqlExpr, SqlError> {
        let at = e.span().start;
        if let Some((side, name)) = self.column(e)? {
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
                SqlExpr::Case {
                    when,
                    otherwise: match else_result {
                        Some(x) => Some(b(x)?),
                        None => None,
                    },
                }
            }
            Expr::Cast {
                expr, data_type, ..
            } => {
                let ty = match sql_type(data_type, at)? {
                    SqlType::Int => "INT",
                    SqlType::Bigint => "BIGINT",
                    SqlType::String => "STRING",
                    SqlType::Double => "DOUBLE",
                    SqlType::Boolean => "BOOLEAN",
                    SqlType::Timestamp { .. } => return Err(unsupported(at, "CAST to TIMESTAMP")),
                };
                SqlExpr::Cast {
                    expr: b(expr)?,
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
                SqlExpr::Coalesce(args)
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
