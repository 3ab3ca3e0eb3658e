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

mod ddl;
mod incremental;
mod query;
mod resolve;
mod rows;

use ddl::sql_type;
pub(crate) use ddl::{flink_duration, interval_ms};
pub use incremental::{ReadStats, ScriptReader};
pub(crate) use query::{projection_tables, split_and};
pub(crate) use resolve::Resolver;
use rows::literal;

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
    /// `DECIMAL(p, s)`.
    Decimal(u8, u8),
    /// `TIMESTAMP(3)` / `TIMESTAMP_LTZ(3)`: only as a table's rowtime attribute.
    Timestamp {
        ltz: bool,
    },
}

impl SqlType {
    /// The type as Flink prints it.
    pub(crate) fn sql_name(self) -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(match self {
            SqlType::Int => "INT",
            SqlType::Bigint => "BIGINT",
            SqlType::String => "STRING",
            SqlType::Double => "DOUBLE",
            SqlType::Boolean => "BOOLEAN",
            SqlType::Timestamp { ltz: false } => "TIMESTAMP(3)",
            SqlType::Timestamp { ltz: true } => "TIMESTAMP_LTZ(3)",
            SqlType::Decimal(p, s) => return format!("DECIMAL({p}, {s})").into(),
        })
    }
    fn engine(self) -> Option<std::borrow::Cow<'static, str>> {
        Some(std::borrow::Cow::Borrowed(match self {
            SqlType::Int => "int",
            SqlType::Bigint => "bigint",
            SqlType::String => "string",
            SqlType::Double => "double",
            SqlType::Boolean => "boolean",
            SqlType::Decimal(p, s) => return Some(crate::value::ColumnType::Decimal(p, s).name()),
            SqlType::Timestamp { .. } => return None,
        }))
    }
}

// Debug: the incremental reader keys a row's text by its table's definition (incremental.rs).
#[derive(Clone, Debug)]
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
    /// `rt AS TO_TIMESTAMP_LTZ(c, p)`: (rt, c, p); `rt` is among `columns` (a
    /// `TIMESTAMP_LTZ(3)`), and each row's value of it is computed from `c`'s.
    pub(crate) time_from: Option<(String, String, u8)>,
    /// Where the `PROCTIME()` column is declared: the number of columns before it.
    pub(crate) proctime_at: usize,
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
            // `IF NOT EXISTS`: Flink skips the statement when the table exists already.
            let if_not_exists = p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
            let t = self.create_table(&mut p)?;
            let lk = p.peek_token();
            if is_kw(&lk, Keyword::LIKE) {
                // CREATE TABLE … LIKE source: the schema merged from another table.
                return Err(unsupported(lk.span.start, "CREATE TABLE … LIKE"));
            }
            if self
                .tables
                .iter()
                .any(|x| x.name.eq_ignore_ascii_case(&t.name))
            {
                if if_not_exists {
                    return expect_end(&mut p);
                }
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
                time_from: t.time_from.as_ref().map(|(_, c, p)| match p {
                    0 => format!("{c}:0"),
                    _ => c.clone(),
                }),
                proctime: None,
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
        // The PROCTIME() column, kept in the scenario where the default would not give it.
        for (side, (ti, _)) in self.inputs.iter().enumerate() {
            let t = &self.tables[*ti];
            let names: Vec<String> = t.columns.iter().map(|(n, _, _)| n.clone()).collect();
            let declared = t.proctime.as_ref().map(|n| (n.clone(), t.proctime_at));
            if super::proctime_column(&self.sc, side, &names) != declared {
                self.sc.streams[side].proctime = Some(match declared {
                    None => "-".to_string(),
                    Some((n, at)) if at == names.len() => n,
                    Some((n, at)) => format!("{n}:{at}"),
                });
            }
        }
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

/// The columns `*` and `t.*` give: the table's columns in declared order, its `PROCTIME()`
/// column among them (whose value is the output's processing time, see `sql::eval`).
fn all_columns(t: &Table) -> Vec<String> {
    let mut names: Vec<String> = t.columns.iter().map(|(n, _, _)| n.clone()).collect();
    if let Some(p) = &t.proctime {
        names.insert(t.proctime_at.min(names.len()), p.clone());
    }
    names
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
